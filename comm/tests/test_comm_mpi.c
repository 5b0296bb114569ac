/* SPDX-License-Identifier: MIT */
/* Collectives across MPI processes (openpim_comm_mpi.h), each process with its
 * own emulated machine: every primitive on every communicator of two local
 * shapes (full rank: the view path inside each host; 40 DPUs: the general
 * path) plus the host dimension, several types and operations, checked
 * exactly against a reference over the whole global cube computed here by
 * every process from the same random data (reductions over the host
 * dimension fold each host's ranks, then the hosts, in order).  Also: the
 * inter-host cost recorded, and arguments that differ between processes.
 *   mpirun -np H test_comm_mpi DPU_NOP */
#include <mpi.h>

#include "comm_test.h"
#include "openpim_comm_mpi.h"

#include <openpim_ext.h>

#define W 4096u

static int me, H;

/* The global problem: every node's window, identical on every process. */
struct glob {
    uint32_t n, G, nd;     /* local nodes, global nodes, global dimensions */
    uint32_t len[5];
    uint8_t *in, *out;     /* [G][W] */
};

static void fold(openpim_comm_type type, openpim_comm_op op, uint8_t *acc, const uint8_t *const *src, uint32_t N,
                 uint32_t n_l, int hosts, size_t bytes)
{
    /* ranks of host h: [n_l h, n_l (h + 1)) when the host dimension is in */
    uint32_t per = hosts ? n_l : N;
    uint8_t *part = malloc(bytes);
    for (uint32_t h0 = 0; h0 < N; h0 += per) {
        memcpy(part, src[h0], bytes);
        for (uint32_t r = h0 + 1; r < h0 + per; r++)
            ref_reduce(type, op, part, src[r], bytes);
        if (h0 == 0)
            memcpy(acc, part, bytes);
        else
            ref_reduce(type, op, acc, part, bytes);
    }
    free(part);
}

/* Reference of primitive p on the global windows; rooted outputs in hout. */
static void reference(struct glob *g, uint32_t mask, enum prim p, uint64_t src, uint64_t dst, uint64_t bytes,
                      openpim_comm_type type, openpim_comm_op op, const uint8_t *hin, uint8_t *hout)
{
    struct tcomm c = ref_comm(g->nd, g->len, mask);
    int hosts = mask >> (g->nd - 1) & 1;
    uint32_t n_l = hosts ? c.N / (uint32_t)H : c.N;
    memcpy(g->out, g->in, (size_t)g->G * W);
#define IN(n) (g->in + (size_t)(n) * W + src)
#define OUT(n) (g->out + (size_t)(n) * W + dst)
    uint64_t blk = bytes / c.N;
    const uint8_t **s = malloc(c.N * sizeof *s);
    uint8_t *acc = malloc(bytes + 1);
    for (uint32_t i = 0; i < c.I; i++) {
        const uint32_t *nd = c.node + (size_t)i * c.N;
        switch (p) {
        case P_AA:
            for (uint32_t r = 0; r < c.N; r++)
                for (uint32_t q = 0; q < c.N; q++)
                    memcpy(OUT(nd[r]) + q * blk, IN(nd[q]) + r * blk, blk);
            break;
        case P_RS:
            for (uint32_t r = 0; r < c.N; r++) {
                for (uint32_t q = 0; q < c.N; q++)
                    s[q] = IN(nd[q]) + r * blk;
                fold(type, op, OUT(nd[r]), s, c.N, n_l, hosts, blk);
            }
            break;
        case P_AG:
            for (uint32_t r = 0; r < c.N; r++)
                for (uint32_t q = 0; q < c.N; q++)
                    memcpy(OUT(nd[r]) + q * bytes, IN(nd[q]), bytes);
            break;
        case P_AR:
        case P_RE:
            for (uint32_t q = 0; q < c.N; q++)
                s[q] = IN(nd[q]);
            fold(type, op, acc, s, c.N, n_l, hosts, bytes);
            for (uint32_t r = 0; p == P_AR && r < c.N; r++)
                memcpy(OUT(nd[r]), acc, bytes);
            if (p == P_RE)
                memcpy(hout + (size_t)i * bytes, acc, bytes);
            break;
        case P_BC:
            for (uint32_t r = 0; r < c.N; r++)
                memcpy(OUT(nd[r]), hin + (size_t)i * bytes, bytes);
            break;
        case P_SC:
            for (uint32_t r = 0; r < c.N; r++)
                memcpy(OUT(nd[r]), hin + ((size_t)i * c.N + r) * bytes, bytes);
            break;
        case P_GA:
            for (uint32_t r = 0; r < c.N; r++)
                memcpy(hout + ((size_t)i * c.N + r) * bytes, IN(nd[r]), bytes);
            break;
        default:
            abort();
        }
    }
#undef IN
#undef OUT
    free(s);
    free(acc);
    free(c.node);
}

static openpim_comm_status run(openpim_mcomm_t *m, enum prim p, uint64_t src, uint64_t dst, uint64_t bytes,
                               openpim_comm_type type, openpim_comm_op op, const uint8_t *hin, uint8_t *hout)
{
    switch (p) {
    case P_AA: return openpim_mpi_alltoall(m, src, dst, bytes);
    case P_RS: return openpim_mpi_reduce_scatter(m, src, dst, bytes, type, op);
    case P_AG: return openpim_mpi_allgather(m, src, dst, bytes);
    case P_AR: return openpim_mpi_allreduce(m, src, dst, bytes, type, op);
    case P_BC: return openpim_mpi_broadcast(m, dst, hin, bytes);
    case P_SC: return openpim_mpi_scatter(m, dst, hin, bytes);
    case P_GA: return openpim_mpi_gather(m, src, hout, bytes);
    case P_RE: return openpim_mpi_reduce(m, src, hout, bytes, type, op);
    default: abort();
    }
}

/* Fresh global data (the same on every process), this process's part into MRAM. */
static void fill(struct tctx *t, struct glob *g, openpim_comm_type type)
{
    static uint64_t round;
    rng_state = 0x5EEDull + (uint64_t)g->G * 1000003u + round++; /* the same stream on every process */
    size_t total = (size_t)W * g->G;
    for (size_t i = 0; i + 8 <= total; i += 8) {
        if (type == OPENPIM_DOUBLE) {
            double f = (double)((int64_t)(rnd() % 2000000001) - 1000000000) / (double)(1 + rnd() % 997) * 1e-3;
            memcpy(g->in + i, &f, 8);
        } else {
            uint64_t v = rnd();
            memcpy(g->in + i, &v, 8);
        }
    }
    memcpy(t->shadow, g->in + (size_t)me * g->n * W, (size_t)g->n * W);
    t_xfer(t, DPU_XFER_TO_DPU, t->shadow);
}

static int one_case(struct tctx *t, struct glob *g, openpim_mcube_t *cube, openpim_mcomm_t *m, uint32_t mask,
                    enum prim p, uint64_t src, uint64_t dst, uint64_t bytes, openpim_comm_type type, openpim_comm_op op)
{
    fill(t, g, type);
    struct tcomm c = ref_comm(g->nd, g->len, mask);
    size_t hb = host_bytes(&c, p, bytes);
    free(c.node);
    uint8_t *hin = malloc(hb + 1), *hout = malloc(hb + 1), *href = malloc(hb + 1);
    for (size_t i = 0; i < hb; i++)
        hin[i] = (uint8_t)rnd();
    memset(hout, 0xA5, hb + 1);
    memset(href, 0xA5, hb + 1);
    double t0 = openpim_modelled_time_us();
    openpim_comm_status st = run(m, p, src, dst, bytes, type, op, me == 0 ? hin : NULL, hout);
    double dt = openpim_modelled_time_us() - t0;
    reference(g, mask, p, src, dst, bytes, type, op, hin, href);
    int ok = st == OPENPIM_COMM_OK;
    if (!ok)
        fprintf(stderr, "[%d] %s mask %x: %s\n", me, prim_name[p], mask, openpim_comm_last_error());
    memcpy(t->shadow, g->out + (size_t)me * g->n * W, (size_t)g->n * W);
    char what[128];
    snprintf(what, sizeof what, "[%d] %s mask %x bytes %llu type %d op %d", me, prim_name[p], mask,
             (unsigned long long)bytes, (int)type, (int)op);
    ok = ok && t_verify(t, what) == 0;
    if (me == 0 && (p == P_GA || p == P_RE) && memcmp(hout, href, hb + 1)) {
        fprintf(stderr, "%s: host buffer differs\n", what);
        ok = 0;
    }
    /* the exchange between hosts is in the modelled time */
    double inter = openpim_mcube_last_inter_host_us(cube);
    CHECK(dt >= inter);
    free(hin), free(hout), free(href);
    CHECK(ok);
    return ok;
}

static void run_shape(const char *nop, uint32_t nr_dpus, const char *profile, uint32_t nd, const uint32_t *len)
{
    struct tctx t;
    t_open(&t, nr_dpus, profile, W, nop);
    openpim_mcube_t *cube;
    CHECK_EQ(openpim_mcube_create(MPI_COMM_WORLD, t.set, nd, len, &cube), OPENPIM_COMM_OK);
    CHECK_EQ(openpim_mcube_nr_hosts(cube), H);
    struct glob g = {t.nr, t.nr * (uint32_t)H, nd + 1, {0}, NULL, NULL};
    memcpy(g.len, len, nd * sizeof *len);
    g.len[nd] = (uint32_t)H;
    g.in = malloc((size_t)g.G * W);
    g.out = malloc((size_t)g.G * W);
    int failures = 0, cases = 0;
    for (int impl = 0; impl < 2; impl++) /* the local steps: baseline, then optimised */
    for (uint32_t mask = 1; mask < 1u << (nd + 1); mask++) {
        CHECK_EQ(openpim_cube_set_impl(openpim_mcube_local(cube), impl ? OPENPIM_COMM_OPTIMISED : OPENPIM_COMM_BASELINE),
                 OPENPIM_COMM_OK);
        char s[8] = {0};
        for (uint32_t d = 0; d <= nd; d++)
            s[d] = mask >> d & 1 ? '1' : '0';
        openpim_mcomm_t *m;
        CHECK_EQ(openpim_mcomm_create_mask(cube, s, &m), OPENPIM_COMM_OK); /* (a second one per mask: fine) */
        uint32_t N = openpim_mcomm_size(m);
        struct tcomm c = ref_comm(g.nd, g.len, mask);
        CHECK_EQ(N, c.N);
        CHECK_EQ(openpim_mcomm_nr_instances(m), c.I);
        free(c.node);
        for (int p = 0; p < NR_PRIMS; p++) {
            uint64_t per = (W / 2) / N / 8 * 8; /* keeps N * per <= W / 2 */
            if (per > 64)
                per = 64;
            uint64_t bytes = (p == P_AA || p == P_RS) ? per * N : (p == P_AG ? per : 4 * per);
            for (int k = 0; k < 3; k++) {
                static const openpim_comm_type types[] = {OPENPIM_INT32, OPENPIM_UINT8, OPENPIM_DOUBLE};
                static const openpim_comm_op ops[] = {OPENPIM_SUM, OPENPIM_MAX, OPENPIM_SUM};
                if (k > 0 && p != P_RS && p != P_AR && p != P_RE)
                    break;
                failures += !one_case(&t, &g, cube, m, mask, (enum prim)p, 0, W / 2, bytes, types[k], ops[k]);
                cases++;
            }
            /* in place, aligned differently */
            if (p <= P_AR)
                failures += !one_case(&t, &g, cube, m, mask, (enum prim)p, 64, 64, bytes, OPENPIM_INT32, OPENPIM_SUM);
        }
    }
    /* inter-host cost: AllReduce over the host dimension only, int32 */
    {
        char s[8] = {0};
        for (uint32_t d = 0; d < nd; d++)
            s[d] = '0';
        s[nd] = '1';
        openpim_mcomm_t *m;
        CHECK_EQ(openpim_mcomm_create_mask(cube, s, &m), OPENPIM_COMM_OK);
        CHECK_EQ(openpim_mpi_allreduce(m, 0, W / 2, 1024, OPENPIM_INT32, OPENPIM_SUM), OPENPIM_COMM_OK);
        /* this host's partial: its n nodes x 1024 B, 2 (H - 1) / H of it over 1.25 GB/s */
        double want = 2.0 * t.nr * 1024.0 * (H - 1) / H / 1250.0;
        CHECK(fabs(openpim_mcube_last_inter_host_us(cube) - want) < 1e-9 * want);
        CHECK_EQ(openpim_mpi_alltoall(m, 0, W / 2, 256 * (uint64_t)H), OPENPIM_COMM_OK);
        /* 256 B from each node to each other host */
        want = (double)t.nr * 256.0 * (H - 1) / 1250.0;
        CHECK(fabs(openpim_mcube_last_inter_host_us(cube) - want) < 1e-9 * want);
        /* arguments that differ between processes fail everywhere, and change nothing */
        fill(&t, &g, OPENPIM_UINT8);
        CHECK_EQ(openpim_mpi_allreduce(m, 0, W / 2, me == 1 ? 512 : 1024, OPENPIM_INT32, OPENPIM_SUM),
                 OPENPIM_COMM_ERR_ARGUMENT);
        CHECK(openpim_comm_last_error()[0] != 0);
        CHECK(t_verify(&t, "after refused call") == 0);
        /* a bad region fails on every process */
        CHECK_EQ(openpim_mpi_allgather(m, 0, openpim_cube_mram_bytes(openpim_mcube_local(cube)) - 8, 64),
                 OPENPIM_COMM_ERR_RANGE);
        CHECK_EQ(openpim_mpi_gather(m, 0, NULL, 8), OPENPIM_COMM_ERR_ARGUMENT); /* root without a buffer */
        /* a negative type is refused by the reductions, not taken for "no type" (it used to pass and divide
         * by its size, 0) */
        const openpim_comm_type neg = (openpim_comm_type)-1;
        CHECK_EQ(openpim_mpi_allreduce(m, 0, W / 2, 1024, neg, OPENPIM_SUM), OPENPIM_COMM_ERR_TYPE_OP);
        CHECK_EQ(openpim_mpi_reduce_scatter(m, 0, W / 2, 64 * (uint64_t)H, neg, OPENPIM_SUM),
                 OPENPIM_COMM_ERR_TYPE_OP);
        uint8_t root[4096];
        CHECK_EQ(openpim_mpi_reduce(m, 0, root, 64, neg, OPENPIM_SUM), OPENPIM_COMM_ERR_TYPE_OP);
        CHECK(t_verify(&t, "after refused reductions") == 0);
    }
    CHECK_EQ(openpim_mcomm_create_mask(cube, "1", NULL), OPENPIM_COMM_ERR_ARGUMENT);
    printf("[%d] %u DPUs per host x %d hosts: %d cases, %d failed\n", me, t.nr, H, cases, failures);
    free(g.in), free(g.out);
    openpim_mcube_destroy(cube);
    t_close(&t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &H);
    if (argc < 2) {
        fprintf(stderr, "usage: mpirun -np H test_comm_mpi DPU_NOP\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    uint32_t full[2] = {8, 8}, part[2] = {5, 8};
    run_shape(argv[1], 64, "nrRanks=1", 2, full);   /* the view path inside each host */
    run_shape(argv[1], 40, "nrRanks=1", 2, part);   /* partial rank: the general path */
    int bad = check_failures, all_bad = 0;
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rc = check_done("test_comm_mpi");
    MPI_Finalize();
    return rc || all_bad ? 1 : 0;
}
