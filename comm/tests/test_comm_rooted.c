/* SPDX-License-Identifier: MIT */
/* The rooted primitives (Broadcast, Scatter, Gather, Reduce: the host as
 * root) on the physical view and off it:
 *   - every communicator of 1D-3D shapes on full ranks (the view: any L[0]
 *     for Scatter, Gather and Broadcast, L[0] % 8 == 0 for Reduce), a partial
 *     rank and ranks with disabled DPUs (the pushes), the baseline and each
 *     technique added in turn; aligned non-zero offsets with a partial 8-line
 *     block, unaligned offsets and sizes, doubles in rank order;
 *   - Reduce: every element type x operation with and without dimension 0,
 *     under each SIMD variant this CPU runs, with IM and with IM + CM;
 *   - modelled time: the clock advances by the view transfer (replayed here)
 *     plus the host work of the cost model (formulas written out here), all
 *     of that host work on Inter-DPU.
 * Results are checked exactly against comm_test.h's reference, whole MRAM
 * windows and host buffers (one byte past them included), and which path ran
 * against what each case should take.
 *   test_comm_rooted DPU_NOP */
#include "comm_test.h"

#include <openpim_ext.h>

#define W 8192u

struct shape {
    uint32_t nr_dpus;
    const char *profile;
    uint32_t nd, len[4];
    int nodes_view; /* full ranks: Scatter, Gather, Broadcast may use the view */
    int group_view; /* and L[0] % 8 == 0: Reduce too */
};

static const struct shape shapes[] = {
    {64, "nrRanks=1", 2, {8, 8}, 1, 1},
    {64, "nrRanks=1", 1, {64}, 1, 1},
    {64, "nrRanks=1", 3, {8, 2, 4}, 1, 1},
    {64, "nrRanks=1", 2, {2, 32}, 1, 0},
    {64, "nrRanks=1", 3, {4, 4, 4}, 1, 0},
    {192, "nrRanks=3", 3, {8, 8, 3}, 1, 1},
    {192, "nrRanks=3", 2, {16, 12}, 1, 1},
    {40, "nrRanks=1", 2, {8, 5}, 0, 0},                        /* a partial rank */
    {120, "nrRanks=2,nrDpusPerRank=60", 2, {8, 15}, 0, 0},   /* 4 DPUs of each rank disabled */
};

static const unsigned techs[] = {0, OPENPIM_COMM_PR, OPENPIM_COMM_PR | OPENPIM_COMM_IM,
                                 OPENPIM_COMM_PR | OPENPIM_COMM_IM | OPENPIM_COMM_CM};
#define NR_TECHS 4

static int wrong_path;

static void expect_path(int view, int want, const char *what)
{
    if (view != want) {
        fprintf(stderr, "%s: ran on the %s, expected the %s\n", what, view ? "view" : "pushes", want ? "view" : "pushes");
        wrong_path++;
    }
}

static openpim_comm_t *comm_of(openpim_cube_t *cube, const struct shape *s, uint32_t mask, struct tcomm *c)
{
    uint32_t dims[4], nr = 0;
    for (uint32_t d = 0; d < s->nd; d++)
        if (mask >> d & 1)
            dims[nr++] = d;
    openpim_comm_t *m;
    CHECK_EQ(openpim_comm_create(cube, nr, dims, &m), OPENPIM_COMM_OK);
    *c = ref_comm(s->nd, s->len, mask);
    return m;
}

/* Whether an aligned case of rooted primitive p should run on the view. */
static int view_wanted(const struct shape *s, const struct tcomm *c, unsigned tech, enum prim p)
{
    if (!(tech & OPENPIM_COMM_IM) || !s->nodes_view)
        return 0;
    if (p == P_BC && c->I == 1)
        return 0; /* one instance: the SDK's broadcast */
    return p != P_RE || s->group_view;
}

static void run_mask(struct tctx *t, openpim_cube_t *cube, const struct shape *s, uint32_t mask)
{
    struct tcomm c;
    openpim_comm_t *m = comm_of(cube, s, mask, &c);
    static const enum prim rooted[] = {P_BC, P_SC, P_GA, P_RE};
    for (int ti = 0; ti < NR_TECHS; ti++) {
        CHECK_EQ(openpim_cube_set_techniques(cube, techs[ti]), OPENPIM_COMM_OK);
        for (int k = 0; k < 4; k++) {
            enum prim p = rooted[k];
            char what[128];
            snprintf(what, sizeof what, "%s, %u-dim shape of %u DPUs, mask %x, techniques %u", prim_name[p], s->nd,
                     s->nr_dpus, mask, techs[ti]);
            int view = -1;
            /* aligned, a non-zero offset; 9 lines (a partial block of 8) and 131 lines */
            uint64_t off = 8 * (1 + rnd_below(64));
            t_case(t, cube, m, &c, p, off, off, 72, OPENPIM_INT32, OPENPIM_SUM, &view);
            expect_path(view, view_wanted(s, &c, techs[ti], p), what);
            t_case(t, cube, m, &c, p, 2048, 2048, 8 * 131, OPENPIM_INT32, OPENPIM_MAX, &view);
            expect_path(view, view_wanted(s, &c, techs[ti], p), what);
            /* unaligned offset or size: always the pushes */
            t_case(t, cube, m, &c, p, 3, 3, 13, OPENPIM_UINT8, OPENPIM_MAX, &view);
            expect_path(view, 0, what);
            t_case(t, cube, m, &c, p, 16, 16, 6, OPENPIM_INT16, OPENPIM_SUM, &view);
            expect_path(view, 0, what);
            if (p == P_RE) { /* floating point: rank order 0..N-1 */
                t_case(t, cube, m, &c, p, 512, 512, 8 * 40, OPENPIM_DOUBLE, OPENPIM_SUM, &view);
                expect_path(view, view_wanted(s, &c, techs[ti], p), what);
                t_case(t, cube, m, &c, p, 512, 512, 8 * 40, OPENPIM_FLOAT, OPENPIM_SUM, &view);
                expect_path(view, view_wanted(s, &c, techs[ti], p), what);
            }
        }
    }
    free(c.node);
}

/* Reduce: every type x operation on one communicator, each SIMD variant. */
static void run_types(struct tctx *t, openpim_cube_t *cube, const struct shape *s, uint32_t mask)
{
    struct tcomm c;
    openpim_comm_t *m = comm_of(cube, s, mask, &c);
    static const char *const simds[] = {"scalar", "avx2", "avx512"};
    for (int ti = 2; ti < NR_TECHS; ti++)
        for (int si = 0; si < 3; si++) {
            if (openpim_comm_force_simd(simds[si]) != 0) {
                printf("  (SIMD %s: not on this CPU)\n", simds[si]);
                continue;
            }
            CHECK_EQ(openpim_cube_set_techniques(cube, techs[ti]), OPENPIM_COMM_OK);
            for (int type = 0; type < OPENPIM_NR_TYPES; type++)
                for (int op = 0; op < OPENPIM_NR_OPS; op++) {
                    if (type >= OPENPIM_FLOAT && op > OPENPIM_MAX)
                        continue;
                    /* 9 lines: a partial block of 8 in the view */
                    int view = -1;
                    t_case(t, cube, m, &c, P_RE, 64, 64, 72, type, op, &view);
                    expect_path(view, 1, "reduce, all types");
                    t_case(t, cube, m, &c, P_RE, 8, 8, 8 * 64, type, op, &view);
                    expect_path(view, 1, "reduce, all types");
                }
        }
    openpim_comm_force_simd(NULL);
    free(c.node);
}

/* ---- modelled time ------------------------------------------------------------------- */

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-9;
}

static double inter_dpu_us(void)
{
    double us = -1;
    CHECK_EQ(openpim_category_time_us(OPENPIM_EVENT_INTER_DPU, &us), DPU_OK);
    return us;
}

/* Modelled time of one set-wide view transfer of `bytes` per DPU at off. */
static double view_push_us(struct tctx *t, dpu_xfer_t dir, uint64_t off, uint64_t bytes)
{
    uint32_t nranks = 0;
    DPU_ASSERT(dpu_get_nr_ranks(t->set, &nranks));
    uint8_t *buf = calloc((size_t)nranks * 64, bytes);
    void **lines = malloc((size_t)nranks * 8 * sizeof *lines);
    for (uint32_t e = 0; e < nranks * 8; e++)
        lines[e] = buf + (size_t)e * 8 * bytes;
    double t0 = openpim_modelled_time_us();
    DPU_ASSERT(openpim_rank_view_push(t->set, dir, off, lines, 8 * bytes));
    double us = openpim_modelled_time_us() - t0;
    free(lines);
    free(buf);
    return us;
}

/* Runs p twice (three times for Scatter; the last measured: the same state before it as before the
 * replay), then replays its transfer; checks the clock = transfer + the host
 * work `want_inter` (all on Inter-DPU), and the path. */
static void cost_case(struct tctx *t, openpim_cube_t *cube, openpim_comm_t *m, const struct tcomm *c, enum prim p,
                      uint64_t bytes, openpim_comm_type type, unsigned tech, double want_inter, int want_view)
{
    CHECK_EQ(openpim_cube_set_techniques(cube, tech), OPENPIM_COMM_OK);
    size_t hb = host_bytes(c, p, bytes);
    uint8_t *h = calloc(hb, 1);
    const uint64_t off = 1024;
    CHECK_EQ(lib_run(m, p, off, off, bytes, type, OPENPIM_SUM, h, h), OPENPIM_COMM_OK);
    if (p == P_SC) /* its first calls for a size try both paths (run_scatter_choice) */
        CHECK_EQ(lib_run(m, p, off, off, bytes, type, OPENPIM_SUM, h, h), OPENPIM_COMM_OK);
    double i0 = inter_dpu_us(), t0 = openpim_modelled_time_us();
    CHECK_EQ(lib_run(m, p, off, off, bytes, type, OPENPIM_SUM, h, h), OPENPIM_COMM_OK);
    double clock = openpim_modelled_time_us() - t0, inter = inter_dpu_us() - i0;
    int view = openpim_cube_last_used_view(cube);
    double xfer = view_push_us(t, p == P_GA || p == P_RE ? DPU_XFER_FROM_DPU : DPU_XFER_TO_DPU, off, bytes);
    char what[96];
    snprintf(what, sizeof what, "modelled time of %s (N=%u, techniques %u, type %d)", prim_name[p], c->N, tech,
             (int)type);
    expect_path(view, want_view, what);
    if (!near(inter, want_inter) || !near(clock, xfer + want_inter)) {
        fprintf(stderr, "%s: clock %.6f us (want %.6f), Inter-DPU %.6f us (want %.6f)\n", what, clock,
                xfer + want_inter, inter, want_inter);
        CHECK(0);
    } else {
        CHECK(1);
    }
    free(h);
}

static void run_cost(const char *nop)
{
    struct tctx t;
    t_open(&t, 128, "nrRanks=2", W, nop);
    const struct shape s = {128, "", 2, {8, 16}, 1, 1};
    openpim_cube_t *cube;
    CHECK_EQ(openpim_cube_create(t.set, s.nd, s.len, &cube), OPENPIM_COMM_OK);
    struct tcomm cx, cy, ca;
    openpim_comm_t *mx = comm_of(cube, &s, 1, &cx); /* along x: an instance is 8 chips of one group */
    openpim_comm_t *my = comm_of(cube, &s, 2, &cy); /* along y: a group's chips are 8 instances */
    openpim_comm_t *ma = comm_of(cube, &s, 3, &ca); /* everything: one instance */
    const struct openpim_comm_cost_model cm = openpim_comm_get_cost_model();
    const double T = cm.optimised_threads, nodes = 128, b = 2048;
    const double tr = T * cm.transpose_gbps * 1e3, re = T * cm.reduce_gbps * 1e3; /* bytes per us */
    const unsigned all = OPENPIM_COMM_PR | OPENPIM_COMM_IM | OPENPIM_COMM_CM, im = OPENPIM_COMM_PR | OPENPIM_COMM_IM;
    /* a pass writing w bytes into host memory with streaming stores: the channel or the cores */
    double out_x = b * cx.I, out_y = b * cy.I, out_a = b;
#define WRITE_US(w) fmax((w) / (cm.dram_gbps * 1e3), (w) / (T * cm.core_copy_gbps * 1e3))
    /* Scatter, Gather: every byte transposed once */
    cost_case(&t, cube, mx, &cx, P_SC, b, OPENPIM_UINT8, all, b * nodes / tr, 1);
    cost_case(&t, cube, my, &cy, P_SC, b, OPENPIM_UINT8, im, b * nodes / tr, 1);
    cost_case(&t, cube, mx, &cx, P_GA, b, OPENPIM_UINT8, all, b * nodes / tr, 1);
    cost_case(&t, cube, ma, &ca, P_GA, b, OPENPIM_UINT8, im, b * nodes / tr, 1);
    /* Broadcast: along x every group holds another instance (16 different
     * groups' lines); along y all 16 groups take the same 8 instances: one
     * group's lines, stored 16 times */
    cost_case(&t, cube, mx, &cx, P_BC, b, OPENPIM_UINT8, all, 8 * b * 16 / tr, 1);
    cost_case(&t, cube, my, &cy, P_BC, b, OPENPIM_UINT8, all, 8 * b / tr, 1);
    /* Reduce: whole elements, by input bytes, plus the result's write; 8-bit
     * with CM: combined in the PIM domain, only the result transposed */
    cost_case(&t, cube, mx, &cx, P_RE, b, OPENPIM_INT32, all, b * nodes / re + WRITE_US(out_x), 1);
    cost_case(&t, cube, my, &cy, P_RE, b, OPENPIM_INT32, all, b * nodes / re + WRITE_US(out_y), 1);
    cost_case(&t, cube, ma, &ca, P_RE, b, OPENPIM_DOUBLE, all, b * nodes / re + WRITE_US(out_a), 1);
    cost_case(&t, cube, mx, &cx, P_RE, b, OPENPIM_UINT8, all, out_x / tr + WRITE_US(out_x), 1);
    cost_case(&t, cube, my, &cy, P_RE, b, OPENPIM_INT8, all, out_y / tr + WRITE_US(out_y), 1);
    cost_case(&t, cube, mx, &cx, P_RE, b, OPENPIM_UINT8, im, b * nodes / re + WRITE_US(out_x), 1);
#undef WRITE_US
    /* the baseline and PR alone: the SDK's pushes, no host work for aligned
     * Scatter and Gather (the replay is a view transfer: compare the paths only) */
    for (int ti = 0; ti < 2; ti++) {
        CHECK_EQ(openpim_cube_set_techniques(cube, techs[ti]), OPENPIM_COMM_OK);
        uint8_t *h = calloc((size_t)b * 128, 1);
        double i0 = inter_dpu_us();
        CHECK_EQ(openpim_scatter(mx, 0, h, (uint64_t)b), OPENPIM_COMM_OK);
        CHECK_EQ(openpim_cube_last_used_view(cube), 0);
        CHECK_EQ(openpim_gather(my, 0, h, (uint64_t)b), OPENPIM_COMM_OK);
        CHECK_EQ(openpim_cube_last_used_view(cube), 0);
        CHECK(near(inter_dpu_us() - i0, 0));
        free(h);
    }
    /* one instance: the SDK's broadcast whatever the techniques, no host work */
    CHECK_EQ(openpim_cube_set_techniques(cube, all), OPENPIM_COMM_OK);
    uint8_t *h = calloc((size_t)b, 1);
    double i0 = inter_dpu_us();
    CHECK_EQ(openpim_broadcast(ma, 0, h, (uint64_t)b), OPENPIM_COMM_OK);
    CHECK_EQ(openpim_cube_last_used_view(cube), 0);
    CHECK(near(inter_dpu_us() - i0, 0));
    free(h);
    free(cx.node), free(cy.node), free(ca.node);
    openpim_cube_destroy(cube);
    t_close(&t);
}

/* One optimised Scatter of b bytes per node from h: its modelled time; *view: the path it took.
 * The data is read back with the baseline's Gather and must equal h. */
static double scatter_once(openpim_cube_t *cube, openpim_comm_t *m, const uint8_t *h, uint64_t b, size_t hb,
                           int *view)
{
    CHECK_EQ(openpim_cube_set_impl(cube, OPENPIM_COMM_OPTIMISED), OPENPIM_COMM_OK);
    double t0 = openpim_modelled_time_us();
    CHECK_EQ(openpim_scatter(m, 0, h, b), OPENPIM_COMM_OK);
    double us = openpim_modelled_time_us() - t0;
    *view = openpim_cube_last_used_view(cube);
    uint8_t *back = malloc(hb);
    CHECK_EQ(openpim_cube_set_impl(cube, OPENPIM_COMM_BASELINE), OPENPIM_COMM_OK);
    CHECK_EQ(openpim_gather(m, 0, back, b), OPENPIM_COMM_OK);
    CHECK(memcmp(back, h, hb) == 0);
    free(back);
    return us;
}

/* The optimised Scatter takes the path the model predicts cheaper: its view
 * write plus the transposes, or the SDK push the baseline takes, each write's
 * cost as last seen on the cube for these bytes (each tried once, the view
 * first, until both are seen).  Exact data on both paths; each path's exact time; a transpose rate
 * that flips the choice each way. */
static void run_scatter_choice(const char *nop)
{
    struct tctx t;
    t_open(&t, 64, "nrRanks=1", W, nop);
    const uint32_t len[2] = {8, 8};
    openpim_cube_t *cube;
    openpim_comm_t *m;
    CHECK_EQ(openpim_cube_create(t.set, 2, len, &cube), OPENPIM_COMM_OK);
    CHECK_EQ(openpim_comm_create_mask(cube, "10", &m), OPENPIM_COMM_OK);
    const uint64_t b = 2048;
    const size_t hb = (size_t)b * 64;
    uint8_t *h = malloc(hb);
    for (size_t i = 0; i < hb; i++)
        h[i] = (uint8_t)(i * 37 + i / 251);
    const struct openpim_comm_cost_model def = openpim_comm_get_cost_model();
    const double tr_def = (double)hb / (def.optimised_threads * def.transpose_gbps * 1e3);
    int view;
    /* nothing seen: the view first (its write + the transposes) */
    double v1 = scatter_once(cube, m, h, b, hb, &view);
    CHECK_EQ(view, 1);
    const double vw = v1 - tr_def; /* the view write alone */
    CHECK(vw > 0);
    /* the view seen, the push not: the SDK push, which records its cost */
    const double push = scatter_once(cube, m, h, b, hb, &view);
    CHECK_EQ(view, 0);
    CHECK(vw < push); /* the direct interface is faster than the SDK's copy path: the view can win */
    /* the baseline takes the same push, at the same time */
    CHECK_EQ(openpim_cube_set_impl(cube, OPENPIM_COMM_BASELINE), OPENPIM_COMM_OK);
    double t0 = openpim_modelled_time_us();
    CHECK_EQ(openpim_scatter(m, 0, h, b), OPENPIM_COMM_OK);
    CHECK(near(openpim_modelled_time_us() - t0, push));
    /* default model: the cheaper of the two */
    double d = scatter_once(cube, m, h, b, hb, &view);
    CHECK_EQ(view, v1 < push);
    CHECK(near(d, v1 < push ? v1 : push));
    /* slow transposes: the push, never slower than the baseline */
    struct openpim_comm_cost_model x = def;
    x.transpose_gbps = 1e-3;
    openpim_comm_set_cost_model(&x);
    d = scatter_once(cube, m, h, b, hb, &view);
    CHECK_EQ(view, 0);
    CHECK(near(d, push));
    /* nearly free transposes: the view, its write and those transposes */
    x.transpose_gbps = 1e6;
    openpim_comm_set_cost_model(&x);
    d = scatter_once(cube, m, h, b, hb, &view);
    CHECK_EQ(view, 1);
    CHECK(near(d, vw + (double)hb / (def.optimised_threads * 1e6 * 1e3)));
    openpim_comm_set_cost_model(NULL);
    free(h);
    openpim_cube_destroy(cube);
    t_close(&t);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_comm_rooted DPU_NOP\n");
        return 2;
    }
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        const struct shape *s = &shapes[k];
        struct tctx t;
        t_open(&t, s->nr_dpus, s->profile, W, argv[1]);
        CHECK_EQ(t.nr, s->nr_dpus);
        openpim_cube_t *cube;
        CHECK_EQ(openpim_cube_create(t.set, s->nd, s->len, &cube), OPENPIM_COMM_OK);
        for (uint32_t mask = 1; mask < 1u << s->nd; mask++)
            run_mask(&t, cube, s, mask);
        if (k == 0) {
            run_types(&t, cube, s, 1); /* {8,8} along dimension 0: chips of one instance, folded across lanes */
            run_types(&t, cube, s, 2); /* along dimension 1: 8 instances in lock-step, lane by lane */
            run_types(&t, cube, s, 3); /* everything */
        }
        printf("shape %zu (%u DPUs) done\n", k, s->nr_dpus);
        openpim_cube_destroy(cube);
        t_close(&t);
    }
    run_cost(argv[1]);
    run_scatter_choice(argv[1]);
    CHECK_EQ(wrong_path, 0);
    return check_done("test_comm_rooted");
}
