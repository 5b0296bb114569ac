/* SPDX-License-Identifier: MIT */
/* Every primitive on 1D-4D shapes (every communicator of each), full ranks,
 * a non-power-of-two last dimension, partial ranks and partial groups, the
 * baseline and each technique added in turn (PR, PR+IM, PR+IM+CM); and every element type x operation on the three kinds of
 * path (view with dimension 0 in the communicator, view without it, general),
 * under each SIMD variant this CPU runs.  Everything is checked exactly
 * against comm_test.h's reference, whole MRAM windows included.
 *   test_comm_matrix DPU_NOP */
#include "comm_test.h"

#define W 8192u

struct shape {
    uint32_t nr_dpus, nd, len[4];
    int view; /* whether the optimised path may use the view (full ranks, L0 % 8 == 0) */
};

static const struct shape shapes[] = {
    {64, 1, {64}, 1},          {64, 2, {8, 8}, 1},  {64, 3, {8, 2, 4}, 1}, {64, 4, {8, 2, 2, 2}, 1},
    {64, 2, {2, 32}, 0},       {64, 3, {4, 4, 4}, 0}, {192, 3, {8, 8, 3}, 1}, {192, 2, {16, 12}, 1},
    {40, 1, {40}, 0},          {40, 2, {8, 5}, 0},  {40, 2, {5, 8}, 0},    {100, 2, {10, 10}, 0},
};

static const char *nop;
static int view_expected_failures;

/* baseline, each technique added in turn (the ablation), all three */
static const unsigned techs[] = {0, OPENPIM_COMM_PR, OPENPIM_COMM_PR | OPENPIM_COMM_IM,
                                 OPENPIM_COMM_PR | OPENPIM_COMM_IM | OPENPIM_COMM_CM};
#define NR_TECHS 4

/* Whether primitive p with techniques `tech` should run on the view (or, for
 * AlltoAll/AllGather with PR alone, its staged variant). */
static int view_wanted(unsigned tech, int p, int shape_view)
{
    if (!tech || p > P_AR || !shape_view)
        return 0;
    return (tech & OPENPIM_COMM_IM) || p == P_AA || p == P_AG;
}

static void run_mask(struct tctx *t, openpim_cube_t *cube, const struct shape *s, uint32_t mask)
{
    uint32_t dims[4], nr = 0;
    for (uint32_t d = 0; d < s->nd; d++)
        if (mask >> d & 1)
            dims[nr++] = d;
    openpim_comm_t *m;
    CHECK_EQ(openpim_comm_create(cube, nr, dims, &m), OPENPIM_COMM_OK);
    struct tcomm c = ref_comm(s->nd, s->len, mask);
    CHECK_EQ(openpim_comm_size(m), c.N);
    CHECK_EQ(openpim_comm_nr_instances(m), c.I);
    for (uint32_t i = 0; i < c.I; i++)
        for (uint32_t r = 0; r < c.N; r++)
            CHECK_EQ(openpim_comm_node(m, i, r), c.node[i * c.N + r]);
    for (int ti = 0; ti < NR_TECHS; ti++) {
        CHECK_EQ(openpim_cube_set_techniques(cube, techs[ti]), OPENPIM_COMM_OK);
        for (int p = 0; p < NR_PRIMS; p++) {
            /* block per rank for AA/RS, per node for the others; keep N * block <= W / 2 */
            uint64_t per = (W / 2) / (c.N * 16) * 8;
            if (per > 64)
                per = 64;
            uint64_t bytes = (p == P_AA || p == P_RS) ? per * c.N : (p == P_AG ? per : 4 * per);
            int view = -1;
            /* aligned, disjoint, int32 sum */
            t_case(t, cube, m, &c, p, 0, W / 2, bytes, OPENPIM_INT32, OPENPIM_SUM, &view);
            if (p <= P_AR && view != view_wanted(techs[ti], p, s->view)) {
                fprintf(stderr, "%s on %u-dim shape mask %x, techniques %u: view %d\n", prim_name[p], s->nd, mask,
                        techs[ti], view);
                view_expected_failures++;
            }
            /* in place */
            if (p <= P_AR)
                t_case(t, cube, m, &c, p, 64, 64, bytes, OPENPIM_INT32, OPENPIM_SUM, NULL);
            /* unaligned offsets and sizes (bytes not a multiple of 8): uint8 max, int16 sum */
            uint64_t ub = (p == P_AA || p == P_RS) ? 3 * c.N : 5;
            t_case(t, cube, m, &c, p, 3, W / 2 + 5, ub, OPENPIM_UINT8, OPENPIM_MAX, NULL);
            uint64_t hb = (p == P_AA || p == P_RS) ? 6 * c.N : 6;
            t_case(t, cube, m, &c, p, 2, W / 2 + 6, hb, OPENPIM_INT16, OPENPIM_SUM, NULL);
            /* floating point, aligned */
            if (p == P_RS || p == P_AR || p == P_RE)
                t_case(t, cube, m, &c, p, 0, W / 2, bytes, OPENPIM_DOUBLE, OPENPIM_SUM, NULL);
        }
    }
    free(c.node);
}

/* All types x operations of the reductions on one communicator. */
static void run_types(struct tctx *t, openpim_cube_t *cube, const struct shape *s, uint32_t mask, int want_view)
{
    uint32_t dims[4], nr = 0;
    for (uint32_t d = 0; d < s->nd; d++)
        if (mask >> d & 1)
            dims[nr++] = d;
    openpim_comm_t *m;
    CHECK_EQ(openpim_comm_create(cube, nr, dims, &m), OPENPIM_COMM_OK);
    struct tcomm c = ref_comm(s->nd, s->len, mask);
    static const char *const simds[] = {"scalar", "avx2", "avx512"};
    for (int ti = 0; ti < NR_TECHS; ti++)
        for (int si = 0; si < 3; si++) {
            if (openpim_comm_force_simd(simds[si]) != 0) {
                printf("  (SIMD %s: not on this CPU)\n", simds[si]);
                continue;
            }
            if (!techs[ti] && si > 0)
                continue; /* the baseline does not use them */
            CHECK_EQ(openpim_cube_set_techniques(cube, techs[ti]), OPENPIM_COMM_OK);
            int want = want_view && (techs[ti] & OPENPIM_COMM_IM);
            for (int type = 0; type < OPENPIM_NR_TYPES; type++)
                for (int op = 0; op < OPENPIM_NR_OPS; op++) {
                    if (type >= OPENPIM_FLOAT && op > OPENPIM_MAX)
                        continue;
                    /* 72 elements per block: a partial 8-line chunk in the view (9 lines) */
                    uint64_t elems = (W / 2) / (c.N * tsize[type]);
                    uint64_t blk = (elems < 72 ? elems : 72) * tsize[type];
                    int view = -1;
                    t_case(t, cube, m, &c, P_RS, 0, W / 2, blk * c.N, type, op, &view);
                    if (view != want)
                        view_expected_failures++;
                    t_case(t, cube, m, &c, P_AR, 0, W / 2, blk, type, op, &view);
                    if (view != want)
                        view_expected_failures++;
                    t_case(t, cube, m, &c, P_RE, 0, W / 2, blk, type, op, NULL);
                }
        }
    openpim_comm_force_simd(NULL);
    free(c.node);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_comm_matrix DPU_NOP\n");
        return 2;
    }
    nop = argv[1];
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        const struct shape *s = &shapes[k];
        struct tctx t;
        t_open(&t, s->nr_dpus, "nrRanks=4," COMM_TEST_FREE_KERNELS, W, nop);
        openpim_cube_t *cube;
        CHECK_EQ(openpim_cube_create(t.set, s->nd, s->len, &cube), OPENPIM_COMM_OK);
        /* the documented node order */
        for (uint32_t n = 0; n < t.nr; n++) {
            struct dpu_set_t d;
            CHECK_EQ(openpim_cube_node_dpu(cube, n, &d), OPENPIM_COMM_OK);
            CHECK(dpu_from_set(d) == dpu_from_set(t.node[n]));
        }
        uint32_t masks = (1u << s->nd) - 1;
        for (uint32_t mask = 1; mask <= masks; mask++)
            run_mask(&t, cube, s, mask);
        if (k == 1) {
            run_types(&t, cube, s, 1, 1); /* {8,8} along dimension 0: view, rotations */
            run_types(&t, cube, s, 2, 1); /* along dimension 1: view, whole lines */
        }
        if (k == 9)
            run_types(&t, cube, s, 3, 0); /* {8,5} on 40 DPUs: general path */
        printf("shape %zu (%u DPUs) done\n", k, s->nr_dpus);
        openpim_cube_destroy(cube);
        t_close(&t);
    }
    CHECK_EQ(view_expected_failures, 0);
    return check_done("test_comm_matrix");
}
