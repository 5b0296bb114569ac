/* SPDX-License-Identifier: MIT */
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

#include "check.h"
#include "fuzz_mach.h"
#include "openpim_comm_mpi.h"

#define NR_FIXED_CASES 40

static int me, H;
static const char *nop_path;
static unsigned long long runs, refusals, cases_done;

static openpim_comm_status lib_call(openpim_mcomm_t *m, const struct fz_call *c, uint64_t bytes, uint8_t *host)
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

static int run_case(uint64_t seed, bool fixed)
{
    uint64_t st = seed, *s = &st;
    struct fz_shape sh;
    struct fz_call c = {0};
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
        fz_set_extent(&c, fc.N, fc.I);
    } else {
        struct fz_call_opts opts = {H, m.local, 4096 + 8192 * fz_chance(s, 1, 4)};
        fz_pick_call(s, &c, fc.N, fc.I, m.mram, &opts);
    }
    char desc[768];
    fz_case_str(&sh, H, &c, desc, sizeof desc);
    fz_cur_desc = desc;
    fz_crash_case(seed, desc, H);
    uint8_t *hin, *href;
    bool hosts = c.mask >> sh.nd & 1;
    fz_prepare(s, &m, &c, &fc, hosts ? (uint32_t)H : 1, &hin, &href);
    size_t hb = (size_t)c.hb;
    bool host_out = c.prim == FZ_GA || c.prim == FZ_RE;
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
        refusals += got != OPENPIM_COMM_OK;
        fz_mram_io(&m, DPU_XFER_FROM_DPU, m.got);
        /* the root's buffer: the output or its unchanged input; the others' unchanged */
        const uint8_t *hw = me == 0 ? (host_out && c.want == OPENPIM_COMM_OK ? href : hin) : href;
        bad += fz_check_run(&m, &c, got, give ? &h : NULL, hw, what, desc, seed, H, me);
        fz_host_free(&h);
    }
    CHECK_EQ(openpim_comm_force_simd(NULL), 0);
    free(hin), free(href), free(fc.node);
    openpim_mcube_destroy(cube);
    fz_mach_free(&m);
    cases_done++;
    return bad;
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
    fz_crash_arm();
    double t0 = fz_now_s();
    unsigned failed = 0;
    for (unsigned k = 0; k < plan.cases; k++) {
        int go = plan.seconds <= 0 || fz_now_s() - t0 < plan.seconds;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD); /* rank 0's clock decides for all */
        if (!go)
            break;
        bool fixed = k == 0 && !plan.one && plan.seconds <= 0;
        failed += run_case(fz_case_seed(&plan, k), fixed) != 0;
        if (me == 0 && plan.seconds > 0 && (k + 1) % 50 == 0) {
            printf("  %u cases, %llu runs, %.0f s\n", k + 1, runs, fz_now_s() - t0);
            fflush(stdout);
        }
    }
    unsigned all_failed = 0;
    MPI_Allreduce(&failed, &all_failed, 1, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("test_comm_mpi_fuzz: %d processes, seed 0x%016llx: %llu cases, %llu runs each (%llu refused as "
               "expected), %u failed case-processes, %.1f s\n",
               H, (unsigned long long)plan.master, cases_done, runs, refusals, all_failed, fz_now_s() - t0);
    int rc = check_done("test_comm_mpi_fuzz");
    MPI_Finalize();
    return rc || all_failed ? 1 : 0;
}
