/* Randomized differential test of comm/'s several-host collectives
 * (openpim_comm_mpi.h) over H MPI processes, each with its own emulated
 * machine, against fuzz_ref.h (written from the headers alone).  Every
 * process draws the same cases from the same seed and computes the same
 * reference over the whole global cube (the host dimension last, global node
 * h * n + l; reductions over the host dimension fold each host's ranks in
 * rank order, then the hosts in order); each checks its own nodes' MRAM
 * windows (guard bytes around every region) and MPI rank 0 the root's host
 * buffer (canaries on both sides; the other processes' host arguments, NULL
 * or a buffer, must stay untouched).  Cases: local shapes of full ranks,
 * partial ranks, disabled DPUs, one DPU; every primitive, communicators with
 * and without the host dimension, element counts that do not split evenly
 * across the hosts, NaN payloads, +-0, +-inf and integer extremes; the
 * baseline, each technique set and every SIMD variant for the local steps;
 * sometimes one bad argument (past MRAM, an overlap, a size, a type, a
 * process that passes different arguments, no root buffer), which every
 * process must refuse with the header's status, changing nothing.
 * The first case is a fixed one: 15 DPUs per host as 3 x 5, the host
 * dimension only, AllReduce of 520 bytes of doubles (an uneven split).
 *   mpirun -np H test_comm_mpi_fuzz DPU_NOP     (fuzz_ref.h: seeds, long mode) */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <time.h>

#include "check.h"
#include "fuzz_mach.h"
#include "openpim_comm_mpi.h"

#define NR_FIXED_CASES 40

static int me, H;
static const char *nop_path;
static unsigned long long runs, refusals, cases_done;

struct call {
    int prim;
    uint32_t mask;
    openpim_comm_type type;
    openpim_comm_op op;
    uint64_t bytes, src, dst, in, out, hb;
    openpim_comm_status want;
    int odd_one;   /* >= 0: this process passes bytes + 8 (arguments differ) */
    int null_root; /* the root passes a NULL host buffer */
};

static int fail(uint64_t seed, const char *what, const char *desc)
{
    fprintf(stderr, "[%d] FAIL %s\n  case %s\n  reproduce: OPENPIM_FUZZ_SEED=0x%016llx OPENPIM_FUZZ_ONE=1 "
                    "OPENPIM_FUZZ_CASES=1 mpirun -np %d ...\n",
            me, what, desc, (unsigned long long)seed, H);
    check_failures++;
    return 1;
}

static openpim_comm_status lib_call(openpim_mcomm_t *m, const struct call *c, uint64_t bytes, uint8_t *host)
{
    switch (c->prim) {
    case FZ_AA: return openpim_mpi_alltoall(m, c->src, c->dst, bytes);
    case FZ_RS: return openpim_mpi_reduce_scatter(m, c->src, c->dst, bytes, c->type, c->op);
    case FZ_AG: return openpim_mpi_allgather(m, c->src, c->dst, bytes);
    case FZ_AR: return openpim_mpi_allreduce(m, c->src, c->dst, bytes, c->type, c->op);
    case FZ_BC: return openpim_mpi_broadcast(m, c->dst, host, bytes);
    case FZ_SC: return openpim_mpi_scatter(m, c->dst, host, bytes);
    case FZ_GA: return openpim_mpi_gather(m, c->src, host, bytes);
    case FZ_RE: return openpim_mpi_reduce(m, c->src, host, bytes, c->type, c->op);
    default: abort();
    }
}

static void pick_call(uint64_t *s, struct call *c, uint32_t N, uint32_t I, uint32_t n_local, uint64_t mram)
{
    c->odd_one = -1;
    c->null_root = 0;
    c->prim = (int)fz_below(s, FZ_NR_PRIMS);
    bool red = c->prim == FZ_RS || c->prim == FZ_AR || c->prim == FZ_RE;
    do {
        c->type = fz_chance(s, 2, 5) ? OPENPIM_FLOAT + (openpim_comm_type)fz_below(s, 2)
                                     : (openpim_comm_type)fz_below(s, OPENPIM_NR_TYPES);
        c->op = (openpim_comm_op)fz_below(s, OPENPIM_NR_OPS);
    } while (red && !fz_valid(c->type, c->op));
    if (!red)
        c->type = OPENPIM_UINT8, c->op = OPENPIM_SUM;
    size_t es = fz_size[c->type];
    bool al = fz_chance(s, 1, 2);
    uint64_t unit = c->prim == FZ_AA ? N : c->prim == FZ_RS ? (uint64_t)N * es : es;
    if (al)
        unit = c->prim == FZ_AA || c->prim == FZ_RS ? unit * (8 / (es < 8 ? es : 8)) : 8;
    /* the whole global cube's images live in every process: keep the sizes moderate */
    uint64_t cap = (4096 + 8192 * fz_chance(s, 1, 4)) / unit;
    c->bytes = unit * (fz_chance(s, 1, 2) ? 1 + fz_below(s, 12) : 1 + fz_below(s, cap > 1 ? cap : 1));
    if (fz_chance(s, 1, 40))
        c->bytes = 0;
    fz_extent((enum fz_prim)c->prim, c->bytes, N, I, &c->in, &c->out, &c->hb);
    if (c->in > mram / 2 || c->out > mram / 2 || (uint64_t)c->out * n_local > (64u << 20)) {
        c->bytes = unit;
        fz_extent((enum fz_prim)c->prim, c->bytes, N, I, &c->in, &c->out, &c->hb);
    }
    c->src = c->in ? fz_pick_offset(s, mram, c->in, al) : 0;
    c->dst = c->out ? fz_pick_offset(s, mram, c->out, al) : 0;
    for (int t = 0; fz_overlap(c->src, c->in, c->dst, c->out) && t < 20; t++)
        c->dst = fz_pick_offset(s, mram, c->out, al);
    if (c->prim <= FZ_AR && fz_chance(s, 1, 6)) {
        uint64_t big = c->in > c->out ? c->in : c->out;
        c->src = c->dst = fz_pick_offset(s, mram, big, al);
    }
    if (fz_overlap(c->src, c->in, c->dst, c->out) && c->src != c->dst)
        c->src = c->dst = 0;
    c->want = OPENPIM_COMM_OK;
    if (!fz_chance(s, 1, 6) || c->bytes == 0)
        return;
    switch (fz_below(s, 5)) {
    case 0: /* past the end of MRAM */
        if (c->out) {
            c->dst = mram - c->out + 1 + fz_below(s, 8);
            if (c->in && c->src + c->in > c->dst - 64)
                c->src = 0;
        } else {
            c->src = mram - c->in + 1 + fz_below(s, 8);
        }
        c->want = OPENPIM_COMM_ERR_RANGE;
        break;
    case 1: /* one process passes different arguments */
        c->odd_one = (int)fz_below(s, (uint64_t)H);
        c->want = OPENPIM_COMM_ERR_ARGUMENT;
        break;
    case 2: /* a size that is not a multiple */
        if (c->prim == FZ_AA && N > 1) {
            c->bytes += 1 + fz_below(s, N - 1);
            c->want = OPENPIM_COMM_ERR_SIZE;
        } else if (red && (c->prim == FZ_RS ? (uint64_t)N * es : es) > 1) {
            c->bytes += 1;
            c->want = OPENPIM_COMM_ERR_SIZE;
        }
        if (c->want != OPENPIM_COMM_OK) {
            c->src = 0;
            c->dst = c->out ? mram / 2 : 0;
        }
        break;
    case 3: /* a bad type or operation; for the rooted ones without one, no root buffer */
        if (red) {
            c->type = fz_is_float(c->type) && fz_chance(s, 1, 2) ? c->type : OPENPIM_NR_TYPES;
            if (c->type != OPENPIM_NR_TYPES)
                c->op = OPENPIM_XOR;
            c->want = OPENPIM_COMM_ERR_TYPE_OP;
        } else if (c->prim >= FZ_BC) {
            c->null_root = 1;
            c->want = OPENPIM_COMM_ERR_ARGUMENT;
        }
        break;
    default: /* overlapping without being in place */
        if (c->prim <= FZ_AR && c->in > 1 && c->out > 1 && c->in + c->out < mram) {
            c->src = fz_below(s, mram - c->in - c->out);
            c->dst = c->src + 1 + fz_below(s, c->in - 1);
            c->want = OPENPIM_COMM_ERR_OVERLAP;
        }
        break;
    }
}

static int run_case(uint64_t seed, bool fixed)
{
    uint64_t st = seed, *s = &st;
    struct fz_shape sh;
    struct call c = {0};
    if (fixed) { /* 15 DPUs as 3 x 5, the host dimension only, AllReduce of 65 doubles */
        memset(&sh, 0, sizeof sh);
        sh.nr_dpus = 15;
        sh.nd = 2;
        sh.len[0] = 3, sh.len[1] = 5;
    } else {
        fz_pick_shape(s, &sh);
    }
    struct fz_mach m = {0};
    DPU_ASSERT(dpu_alloc(sh.nr_dpus, sh.profile, &m.set));
    DPU_ASSERT(dpu_load(m.set, nop_path, NULL));
    fz_map_nodes(&m);
    m.first = (uint32_t)me * m.local;
    m.nodes = m.local * (uint32_t)H;
    uint32_t wram;
    DPU_ASSERT(openpim_get_memory_sizes(m.set, &m.mram, &wram));
    openpim_mcube_t *cube;
    int bad = 0;
    CHECK_EQ(openpim_mcube_create(MPI_COMM_WORLD, m.set, sh.nd, sh.len, &cube), OPENPIM_COMM_OK);
    uint32_t gnd = sh.nd + 1, glen[OPENPIM_COMM_MAX_DIMS];
    memcpy(glen, sh.len, sh.nd * sizeof *glen);
    glen[sh.nd] = (uint32_t)H;
    c.mask = fixed ? 1u << sh.nd : 0;
    while (!c.mask)
        c.mask = (uint32_t)fz_below(s, 1u << gnd);
    char ms[OPENPIM_COMM_MAX_DIMS + 2] = {0};
    for (uint32_t d = 0; d < gnd; d++)
        ms[d] = c.mask >> d & 1 ? '1' : '0';
    openpim_mcomm_t *comm;
    CHECK_EQ(openpim_mcomm_create_mask(cube, ms, &comm), OPENPIM_COMM_OK);
    struct fz_comm fc = fz_comm_make(gnd, glen, c.mask);
    CHECK_EQ(openpim_mcomm_size(comm), fc.N);
    CHECK_EQ(openpim_mcomm_nr_instances(comm), fc.I);
    if (fixed) {
        c.prim = FZ_AR, c.type = OPENPIM_DOUBLE, c.op = OPENPIM_SUM, c.bytes = 520, c.src = 0, c.dst = 1024;
        c.odd_one = -1;
        c.want = OPENPIM_COMM_OK;
        fz_extent(FZ_AR, c.bytes, fc.N, fc.I, &c.in, &c.out, &c.hb);
    } else {
        pick_call(s, &c, fc.N, fc.I, m.local, m.mram);
    }
    char desc[768];
    int k = snprintf(desc, sizeof desc, "%d hosts x %u DPUs%s%s dims {", H, sh.nr_dpus, sh.profile[0] ? " " : "",
                     sh.profile);
    for (uint32_t d = 0; d < gnd; d++)
        k += snprintf(desc + k, sizeof desc - (size_t)k, "%s%u", d ? "," : "", glen[d]);
    snprintf(desc + k, sizeof desc - (size_t)k, "} mask %s %s %s %s bytes %llu src %llu dst %llu (want %s)", ms,
             fz_prim_name[c.prim], fz_type_name[c.type % OPENPIM_NR_TYPES], fz_op_name[c.op % OPENPIM_NR_OPS],
             (unsigned long long)c.bytes, (unsigned long long)c.src, (unsigned long long)c.dst,
             openpim_comm_status_name(c.want));
    fz_cur_desc = desc;
    uint64_t offs[2] = {c.src, c.dst}, lens[2] = {c.in, c.out};
    fz_make_windows(&m, s, 2, offs, lens);
    fz_fill(s, fz_is_float(c.type) ? c.type : OPENPIM_UINT8, m.before, m.img * m.nodes);
    if ((unsigned)c.type < OPENPIM_NR_TYPES && c.in && c.src + c.in <= m.mram)
        for (uint32_t n = 0; n < m.nodes; n++)
            fz_fill(s, c.type, fz_at_win(&m, n, c.src, 0), c.in);
    memcpy(m.after, m.before, m.img * m.nodes);
    size_t hb = (size_t)c.hb;
    uint8_t *hin = malloc(hb + 1), *href = malloc(hb + 1);
    fz_fill(s, (unsigned)c.type < OPENPIM_NR_TYPES ? c.type : OPENPIM_UINT8, hin, hb);
    memcpy(href, hin, hb);
    bool host_out = c.prim == FZ_GA || c.prim == FZ_RE;
    bool hosts = c.mask >> sh.nd & 1;
    if (c.want == OPENPIM_COMM_OK && c.bytes)
        fz_apply(&fc, (enum fz_prim)c.prim, c.src, c.dst, c.bytes, c.type, c.op, hosts ? (uint32_t)H : 1, fz_at_win,
                 &m, host_out ? href : hin);
    static const unsigned techs[] = {0, OPENPIM_COMM_PR, OPENPIM_COMM_PR | OPENPIM_COMM_IM,
                                     OPENPIM_COMM_PR | OPENPIM_COMM_IM | OPENPIM_COMM_CM};
    static const char *const simds[] = {"scalar", "avx2"};
    openpim_cube_t *local = openpim_mcube_local(cube);
    for (int cfg = 0; cfg < 6; cfg++) {
        const char *simd = cfg < 4 ? "auto" : simds[cfg - 4];
        int have = openpim_comm_force_simd(simd) == 0, all = 0;
        MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!all)
            continue;
        CHECK_EQ(openpim_cube_set_techniques(local, techs[cfg < 4 ? cfg : 3]), OPENPIM_COMM_OK);
        fz_mram_io(&m, DPU_XFER_TO_DPU, m.before);
        /* the root's buffer, or (others) NULL or a buffer that must not change */
        struct fz_host h = {0};
        bool give = me == 0 ? !c.null_root : fz_chance(s, 1, 2);
        fz_host_make(&h, s, hb);
        memcpy(h.p, me == 0 ? hin : href, hb);
        uint64_t bytes = c.bytes + (c.odd_one == me ? 8 : 0);
        openpim_comm_status got = lib_call(comm, &c, bytes, give ? h.p : NULL);
        runs++;
        char what[200];
        snprintf(what, sizeof what, "techniques %u, SIMD %s (%s)", techs[cfg < 4 ? cfg : 3], simd,
                 openpim_comm_simd_name());
        if (got != c.want) {
            char msg[800];
            snprintf(msg, sizeof msg, "%s: status %s, expected %s: %s", what, openpim_comm_status_name(got),
                     openpim_comm_status_name(c.want), openpim_comm_last_error());
            bad += fail(seed, msg, desc);
        } else if ((got == OPENPIM_COMM_OK) != (openpim_comm_last_error()[0] == 0)) {
            bad += fail(seed, "the error message does not match the status", desc);
        }
        refusals += got != OPENPIM_COMM_OK;
        fz_mram_io(&m, DPU_XFER_FROM_DPU, m.got);
        const uint8_t *want = c.want == OPENPIM_COMM_OK ? m.after : m.before;
        for (uint32_t n = m.first; n < m.first + m.local; n++) {
            long long i = fz_diff(m.got + (size_t)n * m.img, want + (size_t)n * m.img, m.img);
            if (i >= 0) {
                char msg[400];
                snprintf(msg, sizeof msg, "%s: global node %u, image byte %lld is 0x%02x, expected 0x%02x "
                                          "(before: 0x%02x)",
                         what, n, i, m.got[(size_t)n * m.img + i], want[(size_t)n * m.img + i],
                         m.before[(size_t)n * m.img + i]);
                bad += fail(seed, msg, desc);
                break;
            }
        }
        if (give) {
            const uint8_t *hw = me == 0 ? (host_out && c.want == OPENPIM_COMM_OK ? href : hin) : href;
            long long hd = fz_diff(h.p, hw, hb);
            if (hd >= 0) {
                char msg[300];
                snprintf(msg, sizeof msg, "%s: host byte %lld is 0x%02x, expected 0x%02x", what, hd, h.p[hd], hw[hd]);
                bad += fail(seed, msg, desc);
            }
            if (!fz_host_guards_ok(&h))
                bad += fail(seed, "a canary around the host buffer changed", desc);
        }
        fz_host_free(&h);
    }
    CHECK_EQ(openpim_comm_force_simd(NULL), 0);
    free(hin), free(href), free(fc.node);
    openpim_mcube_destroy(cube);
    DPU_ASSERT(dpu_free(m.set));
    free(m.dpu), free(m.before), free(m.after), free(m.got);
    cases_done++;
    return bad;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &H);
    if (argc < 2) {
        fprintf(stderr, "usage: mpirun -np H test_comm_mpi_fuzz DPU_NOP\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    nop_path = argv[1];
    /* rank 0's plan (its seed, when random) for every process */
    struct fz_plan plan = fz_plan_from_env(0x5EED2024ull, NR_FIXED_CASES);
    uint64_t v[4] = {plan.master, (uint64_t)plan.seconds, plan.cases, plan.one};
    MPI_Bcast(v, 4, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    plan.master = v[0], plan.seconds = (double)v[1], plan.cases = (unsigned)v[2], plan.one = v[3] != 0;
    if (me == 0) {
        printf("test_comm_mpi_fuzz: %d processes, seed 0x%016llx, %s\n", H, (unsigned long long)plan.master,
               plan.seconds > 0 ? "long mode" : "fixed cases");
        fflush(stdout);
    }
    double t0 = now_s();
    unsigned failed = 0;
    for (unsigned k = 0; k < plan.cases; k++) {
        int go = plan.seconds <= 0 || now_s() - t0 < plan.seconds;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD); /* rank 0's clock decides for all */
        if (!go)
            break;
        bool fixed = k == 0 && !plan.one && plan.seconds <= 0;
        failed += run_case(fz_case_seed(&plan, k), fixed) != 0;
        if (me == 0 && plan.seconds > 0 && (k + 1) % 50 == 0) {
            printf("  %u cases, %llu runs, %.0f s\n", k + 1, runs, now_s() - t0);
            fflush(stdout);
        }
    }
    unsigned all_failed = 0;
    MPI_Allreduce(&failed, &all_failed, 1, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("test_comm_mpi_fuzz: %d processes, seed 0x%016llx: %llu cases, %llu runs each (%llu refused as "
               "expected), %u failed case-processes, %.1f s\n",
               H, (unsigned long long)plan.master, cases_done, runs, refusals, all_failed, now_s() - t0);
    int rc = check_done("test_comm_mpi_fuzz");
    MPI_Finalize();
    return rc || all_failed ? 1 : 0;
}
