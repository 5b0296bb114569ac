/* SPDX-License-Identifier: MIT */
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

#include "check.h"
#include "fuzz_mach.h"

#define NR_FIXED_CASES 160 /* the suite's run */

static const char *nop_path;
static unsigned long long runs, views, refusals, cases_done;

/* ---- a case ---------------------------------------------------------------------------------- */

static openpim_comm_status lib_call(openpim_cube_t *cube, openpim_comm_t *m, const struct fz_call *c, uint8_t *host)
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
                bad += fz_fail(seed, 0, 0, "openpim_comm_node differs from the header's numbering", "");
                i = fc.I;
                break;
            }
    struct fz_call c = {0};
    c.mask = mask;
    struct fz_call_opts opts = {0, m.nodes, 32768};
    fz_pick_call(s, &c, fc.N, fc.I, m.mram, &opts);
    fz_case_str(&sh, 0, &c, desc, sizeof desc);
    fz_cur_desc = desc;
    fz_crash_case(seed, desc, 0);
    uint8_t *hin, *href;
    fz_prepare(s, &m, &c, &fc, 1, &hin, &href);
    size_t hb = (size_t)c.hb;
    bool host_out = c.prim == FZ_GA || c.prim == FZ_RE || c.prim == FZ_GN;
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
        refusals += got != OPENPIM_COMM_OK;
        views += got == OPENPIM_COMM_OK && openpim_cube_last_used_view(cube);
        fz_mram_io(&m, DPU_XFER_FROM_DPU, m.got);
        bad += fz_check_run(&m, &c, got, &h, host_out && c.want == OPENPIM_COMM_OK ? href : hin, what, desc, seed,
                            0, 0);
        fz_host_free(&h);
    }
    CHECK_EQ(openpim_comm_force_simd(NULL), 0);
    check_count++;
    free(hin), free(href), free(fc.node), free(c.sel), free(c.srcs);
    openpim_cube_destroy(cube);
    fz_mach_free(&m);
    cases_done++;
    return bad;
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
    fz_crash_arm();
    double t0 = fz_now_s();
    unsigned failed_cases = 0;
    for (unsigned k = 0; k < plan.cases; k++) {
        if (plan.seconds > 0 && fz_now_s() - t0 >= plan.seconds)
            break;
        failed_cases += run_case(fz_case_seed(&plan, k)) != 0;
        if (plan.seconds > 0 && (k + 1) % 200 == 0) {
            printf("  %u cases, %llu runs, %.0f s\n", k + 1, runs, fz_now_s() - t0);
            fflush(stdout);
        }
    }
    printf("test_comm_fuzz: seed 0x%016llx: %llu cases, %llu runs (%llu on the physical view, %llu refused as "
           "expected), %u cases failed, %.1f s\n",
           (unsigned long long)plan.master, cases_done, runs, views, refusals, failed_cases, fz_now_s() - t0);
    return check_done("test_comm_fuzz");
}
