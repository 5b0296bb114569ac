/* SPDX-License-Identifier: MIT */
/* openpim_gather_nodes: chosen nodes, each at its own MRAM offset.  Results
 * (every order of nodes, repeated offsets, unaligned regions, the end of
 * MRAM) are fuzzed by test_comm_fuzz; here: what it costs in modelled time
 * -- one transfer per distinct offset: on the view with IM (only the
 * entangled groups holding a chosen node transposed, at the cost model's
 * rate), else an SDK push from the chosen DPUs (staged, and charged as a
 * pass, when unaligned) -- exactly, from the SDK's estimates and the cost
 * model of openpim_comm.h; and its refusals, which name the culprit and
 * touch nothing.
 *   test_comm_gather_nodes DPU_NOP */
#include "comm_test.h"

#include <openpim_ext.h>

#define B 4096u

static struct dpu_set_t g_set;

static double est(enum openpim_estimate_kind k, uint64_t bytes)
{
    double us = -1;
    CHECK_EQ(openpim_estimate_us(g_set, k, DPU_XFER_FROM_DPU, (size_t)bytes, OPENPIM_ESTIMATE_NOW, &us), DPU_OK);
    return us;
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-9;
}

/* the cost model's in-register transposes of `bytes` (openpim_comm.h) */
static double transpose_us(double bytes)
{
    struct openpim_comm_cost_model m = openpim_comm_get_cost_model();
    return bytes / (m.optimised_threads * m.transpose_gbps * 1e3);
}

static double timed(openpim_cube_t *cube, uint32_t nr, const uint32_t *nodes, const uint64_t *src, uint8_t *host,
                    uint64_t bytes, openpim_comm_status want)
{
    double t0 = openpim_modelled_time_us();
    CHECK_EQ(openpim_gather_nodes(cube, nr, nodes, src, host, bytes), want);
    return openpim_modelled_time_us() - t0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_comm_gather_nodes DPU_NOP\n");
        return 2;
    }
    struct tctx t;
    t_open(&t, 128, "nrRanks=2", 2 * B, argv[1]);
    g_set = t.set;
    t_fill(&t, OPENPIM_UINT8);
    uint32_t len[2] = {8, 16};
    openpim_cube_t *cube;
    CHECK_EQ(openpim_cube_create(t.set, 2, len, &cube), OPENPIM_COMM_OK);
    uint8_t *host = malloc(4 * B + 16);
    /* one node, then two nodes of two groups (3: group 0; 12 and 13: group 1), one offset: one view read, the
     * chosen groups' lines transposed */
    uint32_t nodes[4] = {3, 12, 13, 100};
    uint64_t same[4] = {0, 0, 0, 0}, two[4] = {0, B, 0, B};
    double view = est(OPENPIM_ESTIMATE_VIEW, B);
    CHECK(near(timed(cube, 1, nodes, same, host, B, OPENPIM_COMM_OK), view + transpose_us(8.0 * B)));
    CHECK_EQ(openpim_cube_last_used_view(cube), 1);
    CHECK(near(timed(cube, 3, nodes, same, host, B, OPENPIM_COMM_OK), view + transpose_us(2 * 8.0 * B)));
    /* two offsets: two view reads; groups 0 and 1 at offset 0, groups 1 and 12 at B */
    CHECK(near(timed(cube, 4, nodes, two, host, B, OPENPIM_COMM_OK), 2 * view + transpose_us(4 * 8.0 * B)));
    for (int k = 0; k < 4; k++) /* the bytes of each, at its place */
        CHECK(memcmp(host + (size_t)k * B, t.shadow + (size_t)nodes[k] * t.W + two[k], B) == 0);
    /* the baseline: one SDK push per offset */
    CHECK_EQ(openpim_cube_set_impl(cube, OPENPIM_COMM_BASELINE), OPENPIM_COMM_OK);
    double push = est(OPENPIM_ESTIMATE_PUSH, B);
    CHECK(near(timed(cube, 4, nodes, two, host, B, OPENPIM_COMM_OK), 2 * push));
    CHECK_EQ(openpim_cube_last_used_view(cube), 0);
    /* unaligned: the 8-byte span pushed, then a pass through host memory (the baseline's: one thread,
     * write-allocate) */
    uint64_t odd[2] = {5, 5};
    double dt = timed(cube, 2, nodes, odd, host, 100, OPENPIM_COMM_OK);
    CHECK(near(dt, est(OPENPIM_ESTIMATE_PUSH, 112) + openpim_comm_host_pass_us(1, 200, 200, 0)));
    CHECK(memcmp(host, t.shadow + 3 * t.W + 5, 100) == 0);
    CHECK(memcmp(host + 100, t.shadow + 12 * t.W + 5, 100) == 0);
    /* nodes NULL: nodes 0 .. nr - 1 */
    uint64_t offs[128];
    for (int k = 0; k < 128; k++)
        offs[k] = (uint64_t)(k % 3) * 8;
    uint8_t *all = malloc(128 * 16);
    CHECK_EQ(openpim_gather_nodes(cube, 128, NULL, offs, all, 16), OPENPIM_COMM_OK);
    int same_bytes = 1;
    for (int k = 0; k < 128; k++)
        same_bytes &= memcmp(all + k * 16, t.shadow + (size_t)k * t.W + offs[k], 16) == 0;
    CHECK(same_bytes);
    /* refusals: nothing written, nothing charged, the message names the problem */
    memset(host, 0xA5, 4 * B);
    uint32_t dup[2] = {7, 7}, far[1] = {128};
    uint64_t past[1] = {openpim_cube_mram_bytes(cube) - 8};
    CHECK(timed(cube, 2, dup, same, host, 8, OPENPIM_COMM_ERR_ARGUMENT) == 0);
    CHECK(strstr(openpim_comm_last_error(), "node 7 listed twice") != NULL);
    CHECK(timed(cube, 1, far, same, host, 8, OPENPIM_COMM_ERR_ARGUMENT) == 0);
    CHECK(strstr(openpim_comm_last_error(), "node 128") != NULL);
    CHECK(timed(cube, 129, NULL, offs, host, 8, OPENPIM_COMM_ERR_ARGUMENT) == 0);
    CHECK(timed(cube, 1, nodes, NULL, host, 8, OPENPIM_COMM_ERR_ARGUMENT) == 0);
    CHECK(timed(cube, 1, nodes, same, NULL, 8, OPENPIM_COMM_ERR_ARGUMENT) == 0);
    CHECK(timed(cube, 1, nodes, past, host, 16, OPENPIM_COMM_ERR_RANGE) == 0);
    CHECK(strstr(openpim_comm_last_error(), "past the end of MRAM") != NULL);
    CHECK_EQ(openpim_gather_nodes(NULL, 1, nodes, same, host, 8), OPENPIM_COMM_ERR_ARGUMENT);
    int untouched = 1;
    for (size_t i = 0; i < 4 * B; i++)
        untouched &= host[i] == 0xA5;
    CHECK(untouched);
    /* nothing to do */
    CHECK_EQ(openpim_gather_nodes(cube, 0, NULL, NULL, NULL, 8), OPENPIM_COMM_OK);
    CHECK(timed(cube, 2, nodes, same, host, 0, OPENPIM_COMM_OK) == 0);
    CHECK(t_verify(&t, "after openpim_gather_nodes") == 0); /* MRAM never written */
    free(host), free(all);
    openpim_cube_destroy(cube);
    t_close(&t);
    return check_done("test_comm_gather_nodes");
}
