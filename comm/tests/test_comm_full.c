/* SPDX-License-Identifier: MIT */
/* The full 2,560-DPU machine (40 ranks) as an 8 x 8 x 40 cube: every
 * primitive along the 40 ranks (dimension 2, whole lines on the view), along
 * dimension 0 (rotations and DPU kernels) and over the whole cube, in both
 * implementations, small sizes, checked exactly.
 *   test_comm_full DPU_NOP */
#include "comm_test.h"

#define W 2048u

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_comm_full DPU_NOP\n");
        return 2;
    }
    struct tctx t;
    t_open(&t, 2560, NULL, W, argv[1]);
    CHECK_EQ(t.nr, 2560);
    uint32_t len[3] = {8, 8, 40};
    openpim_cube_t *cube;
    CHECK_EQ(openpim_cube_create(t.set, 3, len, &cube), OPENPIM_COMM_OK);
    static const uint32_t masks[] = {4, 1, 7};
    int views = 0;
    for (size_t k = 0; k < 3; k++) {
        uint32_t dims[3], nr = 0;
        for (uint32_t d = 0; d < 3; d++)
            if (masks[k] >> d & 1)
                dims[nr++] = d;
        openpim_comm_t *m;
        CHECK_EQ(openpim_comm_create(cube, nr, dims, &m), OPENPIM_COMM_OK);
        struct tcomm c = ref_comm(3, len, masks[k]);
        for (int impl = 0; impl < 2; impl++) {
            openpim_cube_set_impl(cube, impl ? OPENPIM_COMM_OPTIMISED : OPENPIM_COMM_BASELINE);
            for (int p = 0; p < NR_PRIMS; p++) {
                uint64_t blk = c.N > 64 ? 8 : 16;
                uint64_t bytes = (p == P_AA || p == P_RS) ? blk * c.N : p == P_AG ? blk : 64;
                if ((p == P_AA || p == P_RS || p == P_AG) && blk * c.N > W / 2)
                    continue; /* 2560 x 8 B blocks do not fit the window: the whole cube skips these */
                int view = 0;
                t_case(&t, cube, m, &c, (enum prim)p, 0, W / 2, bytes, p == P_RS || p == P_AR ? OPENPIM_INT32
                                                                                              : OPENPIM_FLOAT,
                       OPENPIM_SUM, &view);
                views += view;
            }
        }
        free(c.node);
    }
    printf("%d optimised runs on the physical view\n", views);
    CHECK(views >= 6);
    openpim_cube_destroy(cube);
    t_close(&t);
    return check_done("test_comm_full");
}
