/* The PIM-interconnect what-if: link times on the bank / chip / rank
 * hierarchy against the formulas of openpim_comm.h worked out by hand for
 * each kind of group, results identical with the what-if transport, the
 * re-timing sums, and bad arguments.
 *   test_comm_interconnect DPU_NOP */
#include "comm_test.h"

#include <openpim_ext.h>

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-12;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_comm_interconnect DPU_NOP\n");
        return 2;
    }
    struct tctx t;
    t_open(&t, 256, "nrRanks=4", 8192, argv[1]);
    /* node n: chip n % 8, DPU (n / 8) % 8 of that chip, rank n / 64 */
    uint32_t len[3] = {8, 8, 4};
    openpim_cube_t *cube;
    CHECK_EQ(openpim_cube_create(t.set, 3, len, &cube), OPENPIM_COMM_OK);
    openpim_comm_t *chips, *banks, *ranks, *all, *rank_wide;
    CHECK_EQ(openpim_comm_create_mask(cube, "100", &chips), OPENPIM_COMM_OK);     /* 8 chips of a rank, 1 DPU each */
    CHECK_EQ(openpim_comm_create_mask(cube, "010", &banks), OPENPIM_COMM_OK);     /* the 8 DPUs of one chip */
    CHECK_EQ(openpim_comm_create_mask(cube, "001", &ranks), OPENPIM_COMM_OK);     /* 4 ranks */
    CHECK_EQ(openpim_comm_create_mask(cube, "111", &all), OPENPIM_COMM_OK);       /* 8 x 8 x 4 */
    CHECK_EQ(openpim_comm_create_mask(cube, "110", &rank_wide), OPENPIM_COMM_OK); /* a whole rank */
    const double L = 2.8e3, b = 4096; /* bytes per microsecond */
    CHECK(near(openpim_comm_link_us(banks, OPENPIM_PRIM_REDUCE_SCATTER, 4096, 0), 7.0 / 8 * b / L));
    CHECK(near(openpim_comm_link_us(chips, OPENPIM_PRIM_REDUCE_SCATTER, 4096, 2.8), 7.0 / 8 * b / L));
    CHECK(near(openpim_comm_link_us(ranks, OPENPIM_PRIM_ALLGATHER, 4096, 0), 3 * b / L));
    CHECK(near(openpim_comm_link_us(rank_wide, OPENPIM_PRIM_ALLTOALL, 4096, 0), 2 * 7.0 / 8 * b / L));
    CHECK(near(openpim_comm_link_us(all, OPENPIM_PRIM_ALLREDUCE, 4096, 0),
               2 * (7.0 / 8 * b + 7.0 / 8 * b / 8 + 3.0 / 4 * b / 64) / L));
    CHECK(near(openpim_comm_link_us(all, OPENPIM_PRIM_ALLGATHER, 16, 0), (7 * 16 + 7 * 128 + 3 * 1024.0) / L));
    CHECK(near(openpim_comm_link_us(banks, OPENPIM_PRIM_REDUCE_SCATTER, 4096, 0.35),
               8 * openpim_comm_link_us(banks, OPENPIM_PRIM_REDUCE_SCATTER, 4096, 2.8)));
    CHECK(openpim_comm_link_us(NULL, OPENPIM_PRIM_ALLTOALL, 64, 0) == -1);
    CHECK(openpim_comm_link_us(all, (openpim_comm_prim)9, 64, 0) == -1);
    CHECK(openpim_comm_link_us(all, OPENPIM_PRIM_ALLTOALL, 64, NAN) == -1);

    /* the what-if transport: same results, sums of host-routed and link time */
    CHECK_EQ(openpim_cube_set_transport(cube, OPENPIM_COMM_INTERCONNECT, 1.4), OPENPIM_COMM_OK);
    struct tcomm c = ref_comm(3, len, 7);
    for (int impl = 0; impl < 2; impl++) {
        openpim_cube_set_impl(cube, impl ? OPENPIM_COMM_OPTIMISED : OPENPIM_COMM_BASELINE);
        CHECK_EQ(openpim_cube_set_transport(cube, OPENPIM_COMM_INTERCONNECT, 1.4), OPENPIM_COMM_OK);
        double t0 = openpim_modelled_time_us();
        CHECK(t_case(&t, cube, all, &c, P_AR, 0, 4096, 1024, OPENPIM_INT32, OPENPIM_SUM, NULL));
        CHECK(t_case(&t, cube, all, &c, P_GA, 0, 0, 64, OPENPIM_UINT8, OPENPIM_SUM, NULL));
        struct openpim_comm_whatif w;
        CHECK_EQ(openpim_cube_get_whatif(cube, &w), OPENPIM_COMM_OK);
        CHECK_EQ(w.collectives, 2);
        /* t_case itself moves data (its checks) between the two collectives: host-routed <= elapsed */
        CHECK(w.host_routed_us > 0 && w.host_routed_us <= openpim_modelled_time_us() - t0);
        /* interconnect = AllReduce's link time + the gather's host-routed time, so
         * host-routed - (interconnect - link) is AllReduce's host-routed time */
        double ar_host = w.host_routed_us - (w.interconnect_us - openpim_comm_link_us(all, OPENPIM_PRIM_ALLREDUCE, 1024, 1.4));
        CHECK(ar_host > 0);
        CHECK(w.interconnect_us < w.host_routed_us); /* ... and AllReduce is cheaper on links */
    }
    free(c.node);
    /* bad arguments change nothing */
    struct openpim_comm_whatif before, after;
    CHECK_EQ(openpim_cube_get_whatif(cube, &before), OPENPIM_COMM_OK);
    CHECK_EQ(openpim_cube_set_transport(cube, (openpim_comm_transport)5, 1), OPENPIM_COMM_ERR_ARGUMENT);
    CHECK_EQ(openpim_cube_set_transport(cube, OPENPIM_COMM_INTERCONNECT, INFINITY), OPENPIM_COMM_ERR_ARGUMENT);
    CHECK_EQ(openpim_cube_set_transport(cube, OPENPIM_COMM_INTERCONNECT, 2000), OPENPIM_COMM_ERR_ARGUMENT);
    CHECK_EQ(openpim_cube_set_transport(NULL, OPENPIM_COMM_INTERCONNECT, 1), OPENPIM_COMM_ERR_ARGUMENT);
    CHECK_EQ(openpim_cube_get_whatif(cube, NULL), OPENPIM_COMM_ERR_ARGUMENT);
    CHECK_EQ(openpim_cube_get_whatif(cube, &after), OPENPIM_COMM_OK);
    CHECK(memcmp(&before, &after, sizeof before) == 0);
    /* host-routed again: no sums */
    CHECK_EQ(openpim_cube_set_transport(cube, OPENPIM_COMM_HOST_ROUTED, 0), OPENPIM_COMM_OK);
    CHECK_EQ(openpim_allreduce(all, 0, 4096, 64, OPENPIM_INT32, OPENPIM_SUM), OPENPIM_COMM_OK);
    CHECK_EQ(openpim_cube_get_whatif(cube, &after), OPENPIM_COMM_OK);
    CHECK_EQ(after.collectives, 0);
    openpim_cube_destroy(cube);
    t_close(&t);

    /* a partial rank: 40 DPUs of one rank, 5 groups of 8 chips */
    t_open(&t, 40, "nrRanks=1", 4096, argv[1]);
    uint32_t l40[2] = {8, 5};
    CHECK_EQ(openpim_cube_create(t.set, 2, l40, &cube), OPENPIM_COMM_OK);
    openpim_comm_t *g5;
    CHECK_EQ(openpim_comm_create_mask(cube, "01", &g5), OPENPIM_COMM_OK); /* 5 DPUs of one chip */
    CHECK(near(openpim_comm_link_us(g5, OPENPIM_PRIM_ALLTOALL, 4000, 0), 4.0 / 5 * 4000 / L));
    openpim_cube_destroy(cube);
    t_close(&t);
    return check_done("test_comm_interconnect");
}
