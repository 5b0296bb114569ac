/* Randomized differential test of comm/ on one host, against fuzz_ref.h (a
 * reference written from openpim_comm.h alone).  Each case draws:
 *   - a set: full ranks (1-3), a partial last rank, ranks with disabled DPUs,
 *     one DPU; a cube over it (1-5 dimensions, lengths 1 included, L[0] a
 *     multiple of 8 or not) and a communicator (mask string or dimension list;
 *     one-node communicators included);
 *   - a primitive (the eight, and Gather from chosen nodes at per-node
 *     offsets), a type and an operation (NaN payloads, +-0, +-inf, integer
 *     extremes in the data), a size, source and destination offsets (aligned
 *     or not, in place, at the very end of MRAM);
 *   - sometimes one bad argument (a range one byte past MRAM, an overlap, a
 *     size that is not a multiple, a bad type/op): the call must refuse it
 *     with the status the header names and change nothing;
 * and runs it under the baseline, each technique set and every SIMD variant
 * the CPU has, from the same MRAM contents each time.  Every run must give
 * exactly the reference: each node's MRAM windows around the source and the
 * destination (random canaries on both sides of each region), and the host
 * buffer with canaries on both sides (an input buffer must stay unchanged).
 *   test_comm_fuzz DPU_NOP            fixed seed, a fixed number of cases
 *   OPENPIM_FUZZ_SECONDS=N ...        random seed, cases until N seconds
 * (fuzz_ref.h: OPENPIM_FUZZ_SEED, _CASES, _ONE reproduce a printed case). */
#define _POSIX_C_SOURCE 200809L
#include <dpu.h>
#include <openpim_ext.h>
#include <time.h>

#include "check.h"
#include "fuzz_mach.h"

#define NR_FIXED_CASES 160 /* the suite's run */

static const char *nop_path;
static unsigned long long runs, views, refusals, cases_done;

/* ---- a case ---------------------------------------------------------------------------------- */

enum { FZ_GN = FZ_NR_PRIMS }; /* Gather from chosen nodes at per-node offsets */

struct call {
    int prim;
    uint32_t mask;
    openpim_comm_type type;
    openpim_comm_op op;
    uint64_t bytes, src, dst;
    uint64_t in, out, hb;         /* extents (fz_extent) */
    openpim_comm_status want;     /* OK, or the refusal the header names */
    /* Gather from chosen nodes */
    uint32_t nsel, *sel;
    uint64_t *srcs;
    uint64_t pool[4]; /* the distinct offsets srcs[] takes */
    unsigned npool;
};

static const char *case_str(const struct fz_shape *sh, const struct call *c, char *buf, size_t n)
{
    int k = snprintf(buf, n, "%u DPUs%s%s dims {", sh->nr_dpus, sh->profile[0] ? " " : "", sh->profile);
    for (uint32_t d = 0; d < sh->nd; d++)
        k += snprintf(buf + k, n - (size_t)k, "%s%u", d ? "," : "", sh->len[d]);
    snprintf(buf + k, n - (size_t)k, "} mask 0x%x %s %s %s bytes %llu src %llu dst %llu (want %s)", c->mask,
             c->prim == FZ_GN ? "gather_nodes" : fz_prim_name[c->prim], fz_type_name[c->type % OPENPIM_NR_TYPES],
             fz_op_name[c->op % OPENPIM_NR_OPS], (unsigned long long)c->bytes, (unsigned long long)c->src,
             (unsigned long long)c->dst, openpim_comm_status_name(c->want));
    return buf;
}

/* Draws a call on communicator c (N ranks, I instances) of a cube with `nodes`
 * nodes and MRAM of `mram` bytes. */
static void pick_call(uint64_t *s, struct call *c, uint32_t N, uint32_t I, uint32_t nodes, uint64_t mram)
{
    c->prim = (int)fz_below(s, FZ_NR_PRIMS + 1);
    bool red = c->prim == FZ_RS || c->prim == FZ_AR || c->prim == FZ_RE;
    do { /* floats two times in five: their NaN, +-0 and order rules are the subtle ones */
        c->type = fz_chance(s, 2, 5) ? OPENPIM_FLOAT + (openpim_comm_type)fz_below(s, 2)
                                     : (openpim_comm_type)fz_below(s, OPENPIM_NR_TYPES);
        c->op = (openpim_comm_op)fz_below(s, OPENPIM_NR_OPS);
    } while (red && !fz_valid(c->type, c->op));
    if (!red)
        c->type = OPENPIM_UINT8, c->op = OPENPIM_SUM;
    size_t es = fz_size[c->type];
    bool al = fz_chance(s, 1, 2); /* the view path: blocks and offsets multiples of 8 */
    uint64_t unit = c->prim == FZ_AA ? N : c->prim == FZ_RS ? (uint64_t)N * es : es;
    if (al)
        unit = c->prim == FZ_AA || c->prim == FZ_RS ? unit * (8 / (es < 8 ? es : 8)) : 8;
    /* units: mostly small, sometimes up to ~32 KB per node */
    uint64_t cap = 32768 / unit;
    uint64_t k = fz_chance(s, 1, 2) ? 1 + fz_below(s, 16) : 1 + fz_below(s, cap > 1 ? cap : 1);
    if (fz_chance(s, 1, 40))
        k = 0;
    c->bytes = k * unit;
    fz_extent(c->prim == FZ_GN ? FZ_GA : (enum fz_prim)c->prim, c->bytes, N, I, &c->in, &c->out, &c->hb);
    if (c->prim == FZ_GN) {
        c->out = 0;
        c->nsel = 1 + (uint32_t)fz_below(s, nodes);
        c->hb = (uint64_t)c->nsel * c->bytes;
    }
    if (c->in > mram / 2 || c->out > mram / 2) { /* a big AllGather on many nodes: shrink */
        c->bytes = unit;
        fz_extent(c->prim == FZ_GN ? FZ_GA : (enum fz_prim)c->prim, c->bytes, N, I, &c->in, &c->out, &c->hb);
        if (c->prim == FZ_GN)
            c->out = 0, c->hb = (uint64_t)c->nsel * c->bytes;
    }
    c->src = c->in ? fz_pick_offset(s, mram, c->in, al) : 0;
    c->dst = c->out ? fz_pick_offset(s, mram, c->out, al) : 0;
    for (int tries = 0; fz_overlap(c->src, c->in, c->dst, c->out) && tries < 20; tries++)
        c->dst = fz_pick_offset(s, mram, c->out, al);
    bool dpu2dpu = c->prim <= FZ_AR;
    if (dpu2dpu && fz_chance(s, 1, 6)) { /* in place */
        uint64_t big = c->in > c->out ? c->in : c->out;
        c->src = c->dst = fz_pick_offset(s, mram, big, al);
    }
    if (fz_overlap(c->src, c->in, c->dst, c->out) && c->src != c->dst) {
        c->dst = 0; /* no room apart: in place */
        c->src = 0;
    }
    c->want = OPENPIM_COMM_OK;
    if (c->prim == FZ_GN) {
        c->sel = malloc((size_t)nodes * sizeof *c->sel);
        c->srcs = malloc((size_t)nodes * sizeof *c->srcs);
        for (uint32_t n = 0; n < nodes; n++)
            c->sel[n] = n;
        for (uint32_t n = 0; n + 1 < nodes; n++) { /* a random order */
            uint32_t j = n + (uint32_t)fz_below(s, nodes - n), t = c->sel[n];
            c->sel[n] = c->sel[j];
            c->sel[j] = t;
        }
        c->npool = 1 + (unsigned)fz_below(s, 4);
        c->pool[0] = c->src;
        for (unsigned i = 1; i < c->npool; i++)
            c->pool[i] = fz_pick_offset(s, mram, c->in, al);
        for (uint32_t k2 = 0; k2 < c->nsel; k2++)
            c->srcs[k2] = c->pool[fz_below(s, c->npool)];
    }
    /* one bad argument, sometimes */
    if (!fz_chance(s, 1, 8) || c->bytes == 0)
        return;
    switch (fz_below(s, 4)) {
    case 0: /* a region one to eight bytes past the end of MRAM */
        if (c->out) {
            c->dst = mram - c->out + 1 + fz_below(s, 8);
            if (c->in && c->src + c->in > c->dst - 64)
                c->src = 0;
        } else {
            c->src = mram - c->in + 1 + fz_below(s, 8);
            if (c->prim == FZ_GN) {
                c->pool[0] = c->src;
                c->srcs[fz_below(s, c->nsel)] = c->src;
            }
        }
        c->want = OPENPIM_COMM_ERR_RANGE;
        break;
    case 1: /* overlapping without being in place */
        if (dpu2dpu && c->in > 1 && c->out > 1 && c->in + c->out < mram) {
            c->src = fz_below(s, mram - c->in - c->out);
            c->dst = c->src + 1 + fz_below(s, c->in - 1);
            c->want = OPENPIM_COMM_ERR_OVERLAP;
        }
        break;
    case 2: /* a size that is not a multiple of what the primitive needs (regions well inside MRAM, so
             * that the size is the only problem) */
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
    default: /* a bad type or operation */
        if (red) {
            if (fz_chance(s, 1, 2) || !fz_is_float(c->type)) {
                c->type = fz_chance(s, 1, 2) ? OPENPIM_NR_TYPES : (openpim_comm_type)-1;
            } else {
                c->op = (openpim_comm_op)(OPENPIM_AND + fz_below(s, 3));
            }
            c->want = OPENPIM_COMM_ERR_TYPE_OP;
        } else if (c->prim == FZ_GN && c->nsel > 1) {
            c->sel[c->nsel - 1] = c->sel[0]; /* a node listed twice */
            c->want = OPENPIM_COMM_ERR_ARGUMENT;
        } else if (c->prim == FZ_GN) {
            c->sel[0] = nodes; /* no such node */
            c->want = OPENPIM_COMM_ERR_ARGUMENT;
        }
        break;
    }
}

static openpim_comm_status lib_call(openpim_cube_t *cube, openpim_comm_t *m, const struct call *c, uint8_t *host)
{
    switch (c->prim) {
    case FZ_AA: return openpim_alltoall(m, c->src, c->dst, c->bytes);
    case FZ_RS: return openpim_reduce_scatter(m, c->src, c->dst, c->bytes, c->type, c->op);
    case FZ_AG: return openpim_allgather(m, c->src, c->dst, c->bytes);
    case FZ_AR: return openpim_allreduce(m, c->src, c->dst, c->bytes, c->type, c->op);
    case FZ_BC: return openpim_broadcast(m, c->dst, host, c->bytes);
    case FZ_SC: return openpim_scatter(m, c->dst, host, c->bytes);
    case FZ_GA: return openpim_gather(m, c->src, host, c->bytes);
    case FZ_RE: return openpim_reduce(m, c->src, host, c->bytes, c->type, c->op);
    case FZ_GN: return openpim_gather_nodes(cube, c->nsel, c->sel, c->srcs, host, c->bytes);
    default: abort();
    }
}

static int fail_case(uint64_t seed, const char *what, const char *desc)
{
    fprintf(stderr, "FAIL %s\n  case %s\n  reproduce: OPENPIM_FUZZ_SEED=0x%016llx OPENPIM_FUZZ_ONE=1 "
                    "OPENPIM_FUZZ_CASES=1\n",
            what, desc, (unsigned long long)seed);
    check_failures++;
    return 1;
}

static const char *simds[] = {"scalar", "avx2", "avx512"};

/* One case: returns the number of failed runs. */
static int run_case(uint64_t seed)
{
    uint64_t st = seed, *s = &st;
    struct fz_shape sh;
    fz_pick_shape(s, &sh);
    struct fz_mach m = {0};
    DPU_ASSERT(dpu_alloc(sh.nr_dpus, sh.profile, &m.set));
    DPU_ASSERT(dpu_load(m.set, nop_path, NULL));
    fz_map_nodes(&m);
    m.nodes = m.local;
    uint32_t wram;
    DPU_ASSERT(openpim_get_memory_sizes(m.set, &m.mram, &wram));
    openpim_cube_t *cube;
    int bad = 0;
    char desc[768];
    CHECK_EQ(openpim_cube_create(m.set, sh.nd, sh.len, &cube), OPENPIM_COMM_OK);
    CHECK_EQ(openpim_cube_nr_nodes(cube), m.nodes);
    CHECK_EQ(openpim_cube_mram_bytes(cube), m.mram);
    for (uint32_t n = 0; n < m.nodes; n++) {
        struct dpu_set_t d;
        CHECK_EQ(openpim_cube_node_dpu(cube, n, &d), OPENPIM_COMM_OK);
        CHECK(d.kind == DPU_SET_DPU && d.dpu == m.dpu[n].dpu);
    }
    /* the communicator */
    uint32_t mask = 0;
    while (!mask)
        mask = (uint32_t)fz_below(s, 1u << sh.nd);
    openpim_comm_t *comm;
    if (fz_chance(s, 1, 2)) {
        char ms[OPENPIM_COMM_MAX_DIMS + 1] = {0};
        for (uint32_t d = 0; d < sh.nd; d++)
            ms[d] = mask >> d & 1 ? '1' : '0';
        CHECK_EQ(openpim_comm_create_mask(cube, ms, &comm), OPENPIM_COMM_OK);
    } else {
        uint32_t dims[OPENPIM_COMM_MAX_DIMS], nr = 0;
        for (uint32_t d = sh.nd; d-- > 0;) /* listed in any order */
            if (mask >> d & 1)
                dims[nr++] = d;
        CHECK_EQ(openpim_comm_create(cube, nr, dims, &comm), OPENPIM_COMM_OK);
    }
    struct fz_comm fc = fz_comm_make(sh.nd, sh.len, mask);
    CHECK_EQ(openpim_comm_size(comm), fc.N);
    CHECK_EQ(openpim_comm_nr_instances(comm), fc.I);
    for (uint32_t i = 0; i < fc.I; i++)
        for (uint32_t r = 0; r < fc.N; r++)
            if (openpim_comm_node(comm, i, r) != fc.node[(size_t)i * fc.N + r]) {
                bad += fail_case(seed, "openpim_comm_node differs from the header's numbering", "");
                i = fc.I;
                break;
            }
    struct call c = {0};
    c.mask = mask;
    pick_call(s, &c, fc.N, fc.I, m.nodes, m.mram);
    case_str(&sh, &c, desc, sizeof desc);
    fz_cur_desc = desc;
    if (c.prim == FZ_GN) { /* a window around each chosen node's region (at most 4 distinct offsets) */
        uint64_t lens[4] = {c.in, c.in, c.in, c.in};
        fz_make_windows(&m, s, c.npool, c.pool, lens);
    } else {
        uint64_t offs[2] = {c.src, c.dst}, lens[2] = {c.in, c.out};
        fz_make_windows(&m, s, 2, offs, lens);
    }
    fz_fill(s, fz_is_float(c.type) ? c.type : OPENPIM_UINT8, m.before, m.img * m.nodes);
    /* reduction inputs of another type than the bytes: fill them with that type's values */
    if ((unsigned)c.type < OPENPIM_NR_TYPES && c.in && c.src + c.in <= m.mram)
        for (uint32_t n = 0; n < m.nodes; n++)
            fz_fill(s, c.type, fz_at_win(&m, n, c.src, 0), c.in);
    memcpy(m.after, m.before, m.img * m.nodes);
    /* host buffers: the input (Broadcast, Scatter) and the reference output's initial bytes */
    size_t hb = (size_t)c.hb;
    uint8_t *hin = malloc(hb + 1), *href = malloc(hb + 1);
    fz_fill(s, (unsigned)c.type < OPENPIM_NR_TYPES ? c.type : OPENPIM_UINT8, hin, hb);
    memcpy(href, hin, hb);
    bool host_out = c.prim == FZ_GA || c.prim == FZ_RE || c.prim == FZ_GN;
    if (c.want == OPENPIM_COMM_OK && c.bytes) { /* 0 bytes: nothing changes */
        if (c.prim == FZ_GN) {
            for (uint32_t k = 0; k < c.nsel; k++)
                memcpy(href + (size_t)k * c.bytes, fz_at_win(&m, c.sel[k], c.srcs[k], 0), c.bytes);
        } else {
            fz_apply(&fc, (enum fz_prim)c.prim, c.src, c.dst, c.bytes, c.type, c.op, 1, fz_at_win, &m,
                     host_out ? href : hin);
        }
    }
    /* the runs: baseline, each technique set added in turn, every SIMD variant */
    static const unsigned techs[] = {0, OPENPIM_COMM_PR, OPENPIM_COMM_PR | OPENPIM_COMM_IM,
                                     OPENPIM_COMM_PR | OPENPIM_COMM_IM | OPENPIM_COMM_CM};
    for (int cfg = 0; cfg < 4 + 2; cfg++) {
        unsigned tech = techs[cfg < 4 ? cfg : 3];
        const char *simd = cfg < 4 ? "auto" : simds[cfg - 4];
        if (openpim_comm_force_simd(simd) != 0)
            continue; /* the CPU lacks it */
        if (cfg == 3 && fz_chance(s, 1, 2))
            CHECK_EQ(openpim_cube_set_impl(cube, OPENPIM_COMM_OPTIMISED), OPENPIM_COMM_OK);
        else if (cfg == 0 && fz_chance(s, 1, 2))
            CHECK_EQ(openpim_cube_set_impl(cube, OPENPIM_COMM_BASELINE), OPENPIM_COMM_OK);
        else
            CHECK_EQ(openpim_cube_set_techniques(cube, tech), OPENPIM_COMM_OK);
        fz_mram_io(&m, DPU_XFER_TO_DPU, m.before);
        struct fz_host h;
        fz_host_make(&h, s, hb);
        memcpy(h.p, hin, hb);
        openpim_comm_status got = lib_call(cube, comm, &c, h.p);
        runs++;
        char what[160];
        snprintf(what, sizeof what, "techniques %u, SIMD %s (%s)", tech, simd, openpim_comm_simd_name());
        if (got != c.want) {
            char msg[800];
            snprintf(msg, sizeof msg, "%s: status %s, expected %s: %s", what, openpim_comm_status_name(got),
                     openpim_comm_status_name(c.want), openpim_comm_last_error());
            bad += fail_case(seed, msg, desc);
        } else if ((got == OPENPIM_COMM_OK) != (openpim_comm_last_error()[0] == 0)) {
            bad += fail_case(seed, "the error message does not match the status", desc);
        }
        refusals += got != OPENPIM_COMM_OK;
        views += got == OPENPIM_COMM_OK && openpim_cube_last_used_view(cube);
        fz_mram_io(&m, DPU_XFER_FROM_DPU, m.got);
        const uint8_t *want = c.want == OPENPIM_COMM_OK ? m.after : m.before;
        for (uint32_t n = 0; n < m.nodes; n++) {
            long long i = fz_diff(m.got + (size_t)n * m.img, want + (size_t)n * m.img, m.img);
            if (i >= 0) {
                size_t o = (size_t)i;
                unsigned wi = 0;
                while (wi + 1 < m.nw && o >= m.w[wi + 1].at)
                    wi++;
                char msg[400];
                snprintf(msg, sizeof msg, "%s: node %u MRAM byte %llu is 0x%02x, expected 0x%02x (before: 0x%02x)",
                         what, n, (unsigned long long)(m.w[wi].lo + o - m.w[wi].at),
                         m.got[(size_t)n * m.img + o], want[(size_t)n * m.img + o], m.before[(size_t)n * m.img + o]);
                bad += fail_case(seed, msg, desc);
                break;
            }
        }
        long long hd = fz_diff(h.p, host_out && c.want == OPENPIM_COMM_OK ? href : hin, hb);
        if (hd >= 0) {
            char msg[300];
            snprintf(msg, sizeof msg, "%s: host byte %lld is 0x%02x, expected 0x%02x", what, hd, h.p[hd],
                     (host_out && c.want == OPENPIM_COMM_OK ? href : hin)[hd]);
            bad += fail_case(seed, msg, desc);
        }
        if (!fz_host_guards_ok(&h))
            bad += fail_case(seed, "a canary around the host buffer changed", desc);
        fz_host_free(&h);
    }
    CHECK_EQ(openpim_comm_force_simd(NULL), 0);
    check_count++;
    free(hin), free(href), free(fc.node), free(c.sel), free(c.srcs);
    openpim_cube_destroy(cube);
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
    if (argc < 2) {
        fprintf(stderr, "usage: test_comm_fuzz DPU_NOP\n");
        return 2;
    }
    nop_path = argv[1];
    struct fz_plan plan = fz_plan_from_env(0xC0FFEE2024ull, NR_FIXED_CASES);
    printf("test_comm_fuzz: seed 0x%016llx, %s\n", (unsigned long long)plan.master,
           plan.seconds > 0 ? "long mode" : "fixed cases");
    fflush(stdout);
    double t0 = now_s();
    unsigned failed_cases = 0;
    for (unsigned k = 0; k < plan.cases; k++) {
        if (plan.seconds > 0 && now_s() - t0 >= plan.seconds)
            break;
        failed_cases += run_case(fz_case_seed(&plan, k)) != 0;
        if (plan.seconds > 0 && (k + 1) % 200 == 0) {
            printf("  %u cases, %llu runs, %.0f s\n", k + 1, runs, now_s() - t0);
            fflush(stdout);
        }
    }
    printf("test_comm_fuzz: seed 0x%016llx: %llu cases, %llu runs (%llu on the physical view, %llu refused as "
           "expected), %u cases failed, %.1f s\n",
           (unsigned long long)plan.master, cases_done, runs, views, refusals, failed_cases, now_s() - t0);
    return check_done("test_comm_fuzz");
}
