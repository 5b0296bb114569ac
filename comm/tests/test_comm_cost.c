/* SPDX-License-Identifier: MIT */
/* Modelled time of the collectives: deterministic, and the host work charged
 * as openpim_comm.h's cost model says, for the baseline and each technique:
 * a pass through host DRAM bound by the channel (the baseline's writes
 * counted twice: write-allocate) or the cores, scalar reductions on the
 * baseline's thread, in-register transposes and reductions on the optimised
 * threads, nothing for lines streamed through the view.
 *   test_comm_cost DPU_NOP */
#include "comm_test.h"

#include <openpim_ext.h>

typedef openpim_comm_status (*prim_fn)(openpim_comm_t *, uint64_t, uint64_t, uint64_t);

static double delta(prim_fn f, openpim_comm_t *m, uint64_t bytes)
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

static double max2(double a, double b)
{
    return a > b ? a : b;
}

/* Modelled time of f under model x minus under the defaults (same state before each call). */
static double diff(prim_fn f, openpim_comm_t *m, uint64_t bytes, const struct openpim_comm_cost_model *x)
{
    delta(f, m, bytes); /* leaves the same state (after a launch or not) before each measured call */
    double d = delta(f, m, bytes);
    openpim_comm_set_cost_model(x);
    delta(f, m, bytes);
    double e = delta(f, m, bytes);
    openpim_comm_set_cost_model(NULL);
    return d - e;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_comm_cost DPU_NOP\n");
        return 2;
    }
    struct tctx t;
    t_open(&t, 64, "nrRanks=1," COMM_TEST_FREE_KERNELS, 4096, argv[1]);
    uint32_t len[2] = {8, 8};
    openpim_cube_t *cube;
    openpim_comm_t *m;
    CHECK_EQ(openpim_cube_create(t.set, 2, len, &cube), OPENPIM_COMM_OK);
    CHECK_EQ(openpim_comm_create_mask(cube, "10", &m), OPENPIM_COMM_OK);
    const uint64_t bytes = 4096;
    const double all = (double)bytes * 64; /* bytes over the 64 nodes */
    struct openpim_comm_cost_model def = openpim_comm_get_cost_model();
    CHECK(def.dram_gbps == 19.2 && def.core_copy_gbps == 10.0 && def.scalar_gbps == 3.0 &&
          def.transpose_gbps == 6.0 && def.baseline_threads == 1.0 && def.optimised_threads == 10.0 &&
          def.inter_host_gbps == 1.25 && def.chunk_ns == 4.0 && def.reduce_gbps == 3.0 &&
          def.chunk_far_ns == 15.0);
    struct openpim_comm_cost_model dram2 = def, tr2 = def, sc2 = def, ch2 = def, re2 = def;
    dram2.dram_gbps = 38.4;
    ch2.chunk_ns = 8.0;
    tr2.transpose_gbps = 12.0;
    re2.reduce_gbps = 6.0;
    sc2.scalar_gbps = 6.0;

    /* the host-pass estimate that libraries above use (the planner of workloads/embedding):
     * baseline: one thread, writes counted twice; optimised: 10 threads, streaming stores */
    CHECK(near(openpim_comm_host_pass_us(1, 6e6, 1e6, 0), (6e6 + 2e6) / 19.2e3));      /* DRAM binds */
    CHECK(near(openpim_comm_host_pass_us(1, 1e6, 1e6, 6e6), 6e6 / 3e3));               /* scalar loop */
    openpim_comm_set_cost_model(&dram2); /* with 38.4 GB/s of DRAM the core's copy binds */
    CHECK(near(openpim_comm_host_pass_us(1, 1e5, 1e6, 0), 1e6 / 10e3));
    openpim_comm_set_cost_model(NULL);
    CHECK(near(openpim_comm_host_pass_us(0, 6e6, 1e6, 6e6), max2(7e6 / 19.2e3, 6e6 / 30e3)));
    CHECK(near(openpim_comm_host_pass_us(0, 0, 0, 0), 0));

    /* deterministic */
    openpim_cube_set_impl(cube, OPENPIM_COMM_BASELINE);
    delta(openpim_alltoall, m, bytes);
    CHECK(near(delta(openpim_alltoall, m, bytes), delta(openpim_alltoall, m, bytes)));

    /* baseline AlltoAll: one thread copying all the bytes through DRAM, each
     * written line read first: max((all + 2 all) / 19.2, all / 10) GB/s; with
     * 38.4 GB/s of DRAM the core binds */
    CHECK(near(diff(openpim_alltoall, m, bytes, &dram2), 3 * all / 19.2e3 - all / 10e3));
    /* baseline AllGather (8 nodes per instance): all read, 8 all written:
     * max((all + 16 all) / 19.2, 8 all / 10); with 38.4 the core binds */
    CHECK(near(diff(openpim_allgather, m, bytes, &dram2), 17 * all / 19.2e3 - 8 * all / 10e3));
    /* ... its 8 x 8 x 8 pieces of 512 B cost less than the pass; pieces of 8 B (64 B per node) bind:
     * 512 pieces x 4 ns > max(3 x 4096 B / 19.2, 4096 B / 10) GB/s */
    CHECK(near(diff(openpim_alltoall, m, bytes, &ch2), 0));
    CHECK(near(diff(openpim_alltoall, m, 64, &ch2), 512 * 4e-3 - 512 * 8e-3));
    CHECK(near(diff(openpim_alltoall, m, 64, &dram2), 0));
    /* pieces beyond the caches: 256 KB per node, a 32 MB pass (past the modelled 13.75 MB L3),
     * pieces read 256 KB apart (1 KB or more) cost chunk_far_ns each, not chunk_ns.  At
     * 10 us each the 512 calls (5.12 ms) exceed the pass (3 x 16 MB / 19.2 GB/s = 2.62 ms);
     * the same setting moves nothing in cache (4 KB per node), nor does chunk_ns out of it */
    {
        const uint64_t big = 256 << 10;
        const double ball = (double)big * 64;
        struct openpim_comm_cost_model far = def, near_only = def;
        far.chunk_far_ns = 1e4;
        near_only.chunk_ns = 1e4;
        CHECK(near(diff(openpim_alltoall, m, big, &far), 3 * ball / 19.2e3 - 512 * 10.0));
        CHECK(near(diff(openpim_alltoall, m, big, &near_only), 0));
        CHECK(near(diff(openpim_alltoall, m, bytes, &far), 0));
    }
    /* baseline ReduceScatter: the scalar loop binds (all / 3 GB/s) */
    openpim_cube_set_impl(cube, OPENPIM_COMM_BASELINE);
    delta_rs(m, bytes, OPENPIM_INT32);
    double s1 = delta_rs(m, bytes, OPENPIM_INT32);
    openpim_comm_set_cost_model(&sc2);
    double s2 = delta_rs(m, bytes, OPENPIM_INT32);
    openpim_comm_set_cost_model(NULL);
    CHECK(near(s1 - s2, all / 3e3 - max2(all / 6e3, (all + 2 * all / 8) / 19.2e3)));

    /* PR alone: the same copy on 10 threads with streaming stores (no
     * write-allocate): 2 all / 19.2, the channel binds */
    CHECK_EQ(openpim_cube_set_techniques(cube, OPENPIM_COMM_PR), OPENPIM_COMM_OK);
    CHECK(near(diff(openpim_alltoall, m, bytes, &dram2), 2 * all / 19.2e3 - 2 * all / 38.4e3));
    CHECK(openpim_cube_last_used_view(cube) == 1);
    /* PR + IM: every line transposed in and out on 10 threads at 6 GB/s */
    CHECK_EQ(openpim_cube_set_techniques(cube, OPENPIM_COMM_PR | OPENPIM_COMM_IM), OPENPIM_COMM_OK);
    CHECK(near(diff(openpim_alltoall, m, bytes, &tr2), 2 * all / 60e3 - 2 * all / 120e3));
    CHECK(near(diff(openpim_alltoall, m, bytes, &re2), 0));
    CHECK(near(diff(openpim_alltoall, m, bytes, &dram2), 0));
    /* all three: no host charge at all */
    openpim_cube_set_impl(cube, OPENPIM_COMM_OPTIMISED);
    CHECK(near(diff(openpim_alltoall, m, bytes, &tr2), 0));
    CHECK(near(diff(openpim_alltoall, m, bytes, &dram2), 0));
    CHECK(openpim_cube_last_used_view(cube) == 1);

    /* optimised int32 ReduceScatter and AllReduce: the reduction in registers
     * charged by input bytes (all / (10 x 3 GB/s)), not by transposes; uint8:
     * none (CM) */
    for (int ar = 0; ar < 2; ar++) {
        double r[2], u[2], x[2];
        for (int k = 0; k < 2; k++) {
            openpim_comm_set_cost_model(k ? &re2 : NULL);
            for (int i = 0; i < 3; i++) { /* the first call of each sets the state before the measured ones */
                double t0 = openpim_modelled_time_us();
                openpim_comm_type ty = i == 1 ? OPENPIM_UINT8 : OPENPIM_INT32;
                if (ar)
                    CHECK_EQ(openpim_allreduce(m, 0, 1 << 20, bytes, ty, OPENPIM_SUM), OPENPIM_COMM_OK);
                else
                    CHECK_EQ(openpim_reduce_scatter(m, 0, 1 << 20, bytes, ty, OPENPIM_SUM), OPENPIM_COMM_OK);
                double d = openpim_modelled_time_us() - t0;
                if (i == 1)
                    u[k] = d;
                else if (i == 2)
                    r[k] = d;
            }
            openpim_comm_set_cost_model(k ? &tr2 : NULL);
            double t0 = openpim_modelled_time_us();
            if (ar)
                CHECK_EQ(openpim_allreduce(m, 0, 1 << 20, bytes, OPENPIM_INT32, OPENPIM_SUM), OPENPIM_COMM_OK);
            else
                CHECK_EQ(openpim_reduce_scatter(m, 0, 1 << 20, bytes, OPENPIM_INT32, OPENPIM_SUM), OPENPIM_COMM_OK);
            x[k] = openpim_modelled_time_us() - t0;
        }
        openpim_comm_set_cost_model(NULL);
        CHECK(openpim_cube_last_used_view(cube) == 1);
        CHECK(near(u[0], u[1]));
        CHECK(near(r[0] - r[1], all / 30e3 - all / 60e3));
        CHECK(near(x[0], x[1])); /* transposes' rate: not used by reductions */
    }

    /* a communicator of one node per instance, in place: nothing to move, nothing charged, data kept;
     * not in place it still copies */
    uint32_t one_len[3] = {8, 8, 1};
    openpim_cube_t *c3;
    openpim_comm_t *solo;
    CHECK_EQ(openpim_cube_create(t.set, 3, one_len, &c3), OPENPIM_COMM_OK);
    CHECK_EQ(openpim_comm_create_mask(c3, "001", &solo), OPENPIM_COMM_OK);
    uint32_t mark = 0x5eed1234, seen = 0;
    struct dpu_set_t d0;
    DPU_FOREACH(t.set, d0) {
        break;
    }
    struct dpu_symbol_t mram = {0x08000000u, 64u << 20}; /* comm's offsets: from the start of MRAM */
    CHECK_EQ(dpu_copy_to_symbol(d0, mram, 0, &mark, 4), DPU_OK);
    for (int impl = 0; impl < 2; impl++) {
        openpim_cube_set_impl(c3, impl ? OPENPIM_COMM_OPTIMISED : OPENPIM_COMM_BASELINE);
        double t0 = openpim_modelled_time_us();
        CHECK_EQ(openpim_alltoall(solo, 0, 0, bytes), OPENPIM_COMM_OK);
        CHECK_EQ(openpim_allgather(solo, 0, 0, bytes), OPENPIM_COMM_OK);
        CHECK_EQ(openpim_allreduce(solo, 0, 0, bytes, OPENPIM_INT32, OPENPIM_SUM), OPENPIM_COMM_OK);
        CHECK_EQ(openpim_reduce_scatter(solo, 0, 0, bytes, OPENPIM_INT32, OPENPIM_MAX), OPENPIM_COMM_OK);
        CHECK(openpim_modelled_time_us() == t0);
        CHECK(openpim_modelled_time_us() < t0 + delta(openpim_alltoall, solo, bytes)); /* a copy is charged */
        CHECK_EQ(dpu_copy_from_symbol(d0, mram, 0, &seen, 4), DPU_OK);
        CHECK_EQ(seen, mark);
        CHECK_EQ(dpu_copy_from_symbol(d0, mram, 1 << 20, &seen, 4), DPU_OK); /* the copy did happen */
        CHECK_EQ(seen, mark);
    }
    openpim_cube_destroy(c3);

    /* a bad model value restores the default */
    struct openpim_comm_cost_model bad = {NAN, -1, 0, NAN, -2, 0, -1, -4, NAN, -15};
    openpim_comm_set_cost_model(&bad);
    struct openpim_comm_cost_model got = openpim_comm_get_cost_model();
    CHECK(memcmp(&got, &def, sizeof got) == 0);
    openpim_cube_destroy(cube);
    t_close(&t);
    return check_done("test_comm_cost");
}
