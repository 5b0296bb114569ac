/* SPDX-License-Identifier: MIT */
/* The optimised collectives never lose to the baseline in modelled time, tiny
 * sizes included: a sweep of sizes per node, every primitive, on PID-Comm's
 * server (server=pidcomm: the channel's four ranks share it) with 64 and 256
 * DPUs.  AlltoAll and AllGather along dimension 0 choose between the kernel
 * path (PE-assisted reordering around the view) and the general path by the
 * model (comm/src/optimised.c): the general path at the smallest sizes, the
 * kernel path from a threshold on (never back), the general path's time
 * exactly its prediction written out here from the SDK's estimates
 * (openpim_estimate_us) and the cost model of openpim_comm.h, and the kernel
 * path only where it is cheaper than that.  Each call starts with the ranks'
 * memory on the host side (a small read first), so that no call pays for the
 * previous one's launch.
 *   test_comm_threshold DPU_NOP */
#include "comm_test.h"

#include <openpim_ext.h>

static struct dpu_set_t g_set;
static uint8_t touch_buf[8];

/* A small read from every DPU: the memory back on the host side. */
static void touch(struct tctx *t)
{
    for (uint32_t n = 0; n < t->nr; n++)
        DPU_ASSERT(dpu_prepare_xfer(t->node[n], touch_buf));
    struct dpu_symbol_t mram = {0x08000000u, 64u << 20};
    DPU_ASSERT(dpu_push_xfer_symbol(t->set, DPU_XFER_FROM_DPU, mram, 0, 8, DPU_XFER_DEFAULT));
}

static double est(enum openpim_estimate_kind k, dpu_xfer_t dir, uint64_t bytes, enum openpim_estimate_when when)
{
    double us = -1;
    CHECK_EQ(openpim_estimate_us(g_set, k, dir, (size_t)bytes, when, &us), DPU_OK);
    return us;
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-9;
}

/* The general path's time, from openpim_comm.h's cost model: a push from
 * every node, the host's pass on the optimised threads (AlltoAll: a reorder
 * of I N^2 pieces, each at least chunk_ns / threads; chunk_far_ns when the
 * pass's footprint exceeds the modelled 13.75 MB L3 and the pieces are read
 * 1 KB or more apart: a node's buffer apart), a push back. */
static double general_us(enum prim p, uint32_t nodes, uint32_t N, uint32_t I, uint64_t bytes)
{
    struct openpim_comm_cost_model cm = openpim_comm_get_cost_model();
    uint64_t out = p == P_AG ? bytes * N : bytes;
    double rd = (double)bytes * nodes, wr = (double)out * nodes;
    double host = openpim_comm_host_pass_us(0, rd, wr, 0);
    if (p == P_AA) {
        double ns = rd + wr > 13.75 * 1024 * 1024 && bytes >= 1024 ? cm.chunk_far_ns : cm.chunk_ns;
        double pieces = (double)I * N * N * ns * 1e-3 / cm.optimised_threads;
        host = pieces > host ? pieces : host;
    }
    return est(OPENPIM_ESTIMATE_PUSH, DPU_XFER_FROM_DPU, bytes, OPENPIM_ESTIMATE_HOST_SIDE) + host +
           est(OPENPIM_ESTIMATE_PUSH, DPU_XFER_TO_DPU, out, OPENPIM_ESTIMATE_HOST_SIDE);
}

static double run(struct tctx *t, openpim_cube_t *cube, openpim_comm_t *m, enum prim p, uint64_t bytes, uint8_t *host,
                  int *view)
{
    touch(t);
    double t0 = openpim_modelled_time_us();
    openpim_comm_status st = lib_run(m, p, 0, 4u << 20, bytes, OPENPIM_INT32, OPENPIM_SUM, host, host);
    CHECK_EQ(st, OPENPIM_COMM_OK);
    *view = openpim_cube_last_used_view(cube);
    return openpim_modelled_time_us() - t0;
}

/* One sweep of every primitive; `learned`: the cube has run its kernel
 * before, so the predictions include the kernel's own cycles (before its
 * first run they do not: the first kernel-path choice may then cost up to
 * those cycles more than the general path, and still less than the baseline). */
static void sweep_once(struct tctx *t, openpim_cube_t *cube, openpim_comm_t *m, uint64_t max, uint8_t *host,
                       int *learned)
{
    uint32_t nr_dpus = t->nr, N = openpim_comm_size(m), I = openpim_comm_nr_instances(m);
    for (int p = 0; p < NR_PRIMS; p++) {
        int kernel_from = -1, first = 1, general_seen = 0, kernel_seen = 0;
        /* bytes per node 8 B .. max (AllGather: its output); AlltoAll/ReduceScatter blocks of 8 B at least */
        for (uint64_t b = 8; b <= max; b *= 2) {
            uint64_t bytes = p == P_AA || p == P_RS ? (b < 8 * (uint64_t)N ? 8 * (uint64_t)N : b) : b;
            if (p == P_AG) {
                if (b < 8 * (uint64_t)N)
                    continue;
                bytes = b / N;
            }
            if (p != P_AA && p != P_AG && b > (64u << 10))
                break; /* the others: the small sizes are the question */
            int vb, vo;
            CHECK_EQ(openpim_cube_set_impl(cube, OPENPIM_COMM_BASELINE), OPENPIM_COMM_OK);
            double base = run(t, cube, m, (enum prim)p, bytes, host, &vb);
            CHECK_EQ(openpim_cube_set_impl(cube, OPENPIM_COMM_OPTIMISED), OPENPIM_COMM_OK);
            touch(t);
            double gen = p == P_AA || p == P_AG ? general_us((enum prim)p, nr_dpus, N, I, bytes) : 0;
            double opt = run(t, cube, m, (enum prim)p, bytes, host, &vo);
            if (opt > base)
                fprintf(stderr, "%u DPUs, %s, %llu B per node: optimised %.3f us > baseline %.3f us\n", nr_dpus,
                        prim_name[p], (unsigned long long)bytes, opt, base);
            CHECK(opt <= base);
            if (p != P_AA && p != P_AG)
                continue;
            if (!vo) { /* the general path: exactly as predicted, and below the kernel threshold */
                if (!near(opt, gen))
                    fprintf(stderr, "%u DPUs, %s, %llu B: general path %.6f us, predicted %.6f\n", nr_dpus,
                            prim_name[p], (unsigned long long)bytes, opt, gen);
                CHECK(near(opt, gen));
                CHECK(kernel_from < 0);
                general_seen = 1;
            } else { /* the kernel path: cheaper than the general path would have been */
                if (*learned && opt > gen)
                    fprintf(stderr, "%u DPUs, %s, %llu B: kernel path %.3f us, the general path %.3f\n", nr_dpus,
                            prim_name[p], (unsigned long long)bytes, opt, gen);
                CHECK(!*learned || opt <= gen);
                *learned = 1;
                if (kernel_from < 0)
                    kernel_from = (int)bytes;
                kernel_seen = 1;
            }
            if (first)
                CHECK_EQ(vo, 0); /* the smallest size: the general path */
            first = 0;
        }
        if (p == P_AA || p == P_AG) {
            printf("%u DPUs, %u per communicator, %s: the kernel path from %d B per node\n", nr_dpus, N,
                   prim_name[p], kernel_from);
            CHECK(general_seen && kernel_seen);
        }
    }
}

static void sweep(const char *nop, uint32_t nr_dpus, uint32_t l0, uint64_t max)
{
    struct tctx t;
    t_open(&t, nr_dpus, "server=pidcomm", 8, nop);
    g_set = t.set;
    uint32_t len[2] = {l0, nr_dpus / l0};
    openpim_cube_t *cube;
    openpim_comm_t *m;
    CHECK_EQ(openpim_cube_create(t.set, 2, len, &cube), OPENPIM_COMM_OK);
    CHECK_EQ(openpim_comm_create_mask(cube, "10", &m), OPENPIM_COMM_OK);
    uint8_t *host = calloc(1, (size_t)nr_dpus * max);
    int learned = 0;
    sweep_once(&t, cube, m, max, host, &learned);
    sweep_once(&t, cube, m, max, host, &learned); /* again, every kernel-path choice now exact */
    free(host);
    openpim_cube_destroy(cube);
    t_close(&t);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_comm_threshold DPU_NOP\n");
        return 2;
    }
    sweep(argv[1], 64, 8, 512u << 10);  /* AllGather's threshold: 256 KB of output per node */
    sweep(argv[1], 256, 32, 256u << 10);
    return check_done("test_comm_threshold");
}
