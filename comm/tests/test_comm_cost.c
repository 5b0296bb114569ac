/* Modelled time of the collectives: deterministic, and the host work is
 * charged as the header's cost model says (a baseline pass per byte read and
 * written; the optimised path only its cross-domain transposes).
 *   test_comm_cost DPU_NOP */
#include "comm_test.h"

#include <openpim_ext.h>

static double delta(openpim_comm_status (*f)(openpim_comm_t *, uint64_t, uint64_t, uint64_t), openpim_comm_t *m,
                    uint64_t bytes)
{
    double t0 = openpim_modelled_time_us();
    CHECK_EQ(f(m, 0, 1 << 20, bytes), OPENPIM_COMM_OK);
    return openpim_modelled_time_us() - t0;
}

static double delta_rs(openpim_comm_t *m, uint64_t bytes, openpim_comm_type type)
{
    double t0 = openpim_modelled_time_us();
    CHECK_EQ(openpim_reduce_scatter(m, 0, 1 << 20, bytes, type, OPENPIM_SUM), OPENPIM_COMM_OK);
    return openpim_modelled_time_us() - t0;
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_comm_cost DPU_NOP\n");
        return 2;
    }
    struct tctx t;
    t_open(&t, 64, "nrRanks=1", 4096, argv[1]);
    uint32_t len[2] = {8, 8};
    openpim_cube_t *cube;
    openpim_comm_t *m;
    CHECK_EQ(openpim_cube_create(t.set, 2, len, &cube), OPENPIM_COMM_OK);
    CHECK_EQ(openpim_comm_create_mask(cube, "10", &m), OPENPIM_COMM_OK);
    const uint64_t bytes = 4096;
    struct openpim_comm_cost_model def = openpim_comm_get_cost_model(), fast = def;
    CHECK(def.host_pass_gbps == 12.0 && def.host_scalar_gbps == 3.0 && def.host_transpose_gbps == 30.0);
    fast.host_pass_gbps = 24.0;
    fast.host_transpose_gbps = 60.0;

    /* baseline: deterministic; the host pass (2 x bytes x 64 DPUs) at 12 GB/s */
    openpim_cube_set_impl(cube, OPENPIM_COMM_BASELINE);
    delta(openpim_alltoall, m, bytes); /* first accesses after allocation */
    double b1 = delta(openpim_alltoall, m, bytes), b2 = delta(openpim_alltoall, m, bytes);
    CHECK(near(b1, b2));
    openpim_comm_set_cost_model(&fast);
    double b3 = delta(openpim_alltoall, m, bytes);
    double pass = 2.0 * bytes * 64;
    CHECK(near(b1 - b3, pass / 12e3 - pass / 24e3));
    openpim_comm_set_cost_model(NULL);
    CHECK(openpim_comm_get_cost_model().host_pass_gbps == 12.0);

    /* optimised AlltoAll: no host pass charged (lines move inside the view transfers) */
    openpim_cube_set_impl(cube, OPENPIM_COMM_OPTIMISED);
    delta(openpim_alltoall, m, bytes); /* same state before each measured call: right after a launch */
    double o1 = delta(openpim_alltoall, m, bytes);
    CHECK(openpim_cube_last_used_view(cube) == 1);
    openpim_comm_set_cost_model(&fast);
    double o2 = delta(openpim_alltoall, m, bytes);
    CHECK(near(o1, o2));
    /* optimised int32 ReduceScatter: transposes charged; uint8: none */
    openpim_comm_set_cost_model(NULL);
    delta_rs(m, bytes, OPENPIM_INT32); /* takes the MRAM mux back after the kernel launch */
    double r1 = delta_rs(m, bytes, OPENPIM_INT32), u1 = delta_rs(m, bytes, OPENPIM_UINT8);
    openpim_comm_set_cost_model(&fast);
    double r2 = delta_rs(m, bytes, OPENPIM_INT32), u2 = delta_rs(m, bytes, OPENPIM_UINT8);
    CHECK(r2 < r1);
    CHECK(near(u1, u2));
    /* 8 groups x (8 dst chips x 1 source position + 1 store) x 512 B per 8-line chunk, 8 chunks per block */
    double tr = 8.0 * (8 * 512 + 512) * ((bytes / 8) / 8 / 8);
    CHECK(near(r1 - r2, tr / 30e3 - tr / 60e3));
    openpim_comm_set_cost_model(NULL);
    /* a bad model value restores the default */
    struct openpim_comm_cost_model nan_model = {NAN, -1, 0};
    openpim_comm_set_cost_model(&nan_model);
    CHECK(openpim_comm_get_cost_model().host_pass_gbps == 12.0);
    CHECK(openpim_comm_get_cost_model().host_transpose_gbps == 30.0);
    openpim_cube_destroy(cube);
    t_close(&t);
    return check_done("test_comm_cost");
}
