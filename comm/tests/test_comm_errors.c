/* SPDX-License-Identifier: MIT */
/* Bad arguments: each gives its error code and a message, and leaves every
 * DPU's MRAM window as it was.
 *   test_comm_errors DPU_NOP */
#include "comm_test.h"

#define W 4096u
static uint64_t MRAM; /* the cube's MRAM size, checked against the SDK's */

static struct tctx t;

/* The call failed with `want`, said why, and changed nothing. */
#define EXPECT_FAIL(call, want)                                                                                        \
    do {                                                                                                               \
        openpim_comm_status st_ = (call);                                                                              \
        CHECK_EQ(st_, want);                                                                                           \
        CHECK(openpim_comm_last_error()[0] != 0);                                                                      \
        if (st_ != (want))                                                                                             \
            fprintf(stderr, "  %s -> %s (%s)\n", #call, openpim_comm_status_name(st_), openpim_comm_last_error());   \
        t_verify(&t, #call);                                                                                           \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_comm_errors DPU_NOP\n");
        return 2;
    }
    t_open(&t, 64, "nrRanks=2", W, argv[1]);
    t_fill(&t, OPENPIM_UINT8);

    /* shapes */
    openpim_cube_t *cube = NULL;
    uint32_t bad[] = {8, 9}, zero[] = {64, 0}, ok[] = {8, 8}, many[17];
    for (int i = 0; i < 17; i++)
        many[i] = 1;
    EXPECT_FAIL(openpim_cube_create(t.set, 2, bad, &cube), OPENPIM_COMM_ERR_SHAPE);
    CHECK(cube == NULL);
    EXPECT_FAIL(openpim_cube_create(t.set, 2, zero, &cube), OPENPIM_COMM_ERR_SHAPE);
    EXPECT_FAIL(openpim_cube_create(t.set, 0, ok, &cube), OPENPIM_COMM_ERR_ARGUMENT);
    EXPECT_FAIL(openpim_cube_create(t.set, 17, many, &cube), OPENPIM_COMM_ERR_ARGUMENT);
    EXPECT_FAIL(openpim_cube_create(t.set, 2, NULL, &cube), OPENPIM_COMM_ERR_ARGUMENT);
    EXPECT_FAIL(openpim_cube_create(t.set, 2, ok, NULL), OPENPIM_COMM_ERR_ARGUMENT);
    EXPECT_FAIL(openpim_cube_create(t.node[0], 1, (uint32_t[]){1}, &cube), OPENPIM_COMM_ERR_ARGUMENT);
    uint32_t big[] = {65536, 65536, 65536}; /* product past 2^32: no wrap to a match */
    EXPECT_FAIL(openpim_cube_create(t.set, 3, big, &cube), OPENPIM_COMM_ERR_SHAPE);
    CHECK_EQ(openpim_cube_create(t.set, 2, ok, &cube), OPENPIM_COMM_OK);
    CHECK_EQ(openpim_comm_last_error()[0], 0);

    /* communicators */
    openpim_comm_t *m = NULL, *m0 = NULL;
    EXPECT_FAIL(openpim_comm_create(cube, 1, (uint32_t[]){2}, &m), OPENPIM_COMM_ERR_ARGUMENT);
    EXPECT_FAIL(openpim_comm_create(cube, 2, (uint32_t[]){1, 1}, &m), OPENPIM_COMM_ERR_ARGUMENT);
    EXPECT_FAIL(openpim_comm_create(cube, 0, NULL, &m), OPENPIM_COMM_ERR_ARGUMENT);
    EXPECT_FAIL(openpim_comm_create_mask(cube, "1", &m), OPENPIM_COMM_ERR_ARGUMENT);
    EXPECT_FAIL(openpim_comm_create_mask(cube, "1x", &m), OPENPIM_COMM_ERR_ARGUMENT);
    EXPECT_FAIL(openpim_comm_create_mask(cube, "00", &m), OPENPIM_COMM_ERR_ARGUMENT);
    CHECK_EQ(openpim_comm_create_mask(cube, "11", &m), OPENPIM_COMM_OK);
    CHECK_EQ(openpim_comm_size(m), 64);
    CHECK_EQ(openpim_comm_create_mask(cube, "10", &m0), OPENPIM_COMM_OK);
    CHECK_EQ(openpim_comm_size(m0), 8);
    CHECK_EQ(openpim_comm_nr_instances(m0), 8);

    /* the bounds come from the SDK (openpim_get_memory_sizes), not a constant */
    {
        uint64_t sdk_mram = 0;
        uint32_t sdk_wram = 0;
        DPU_ASSERT(openpim_get_memory_sizes(t.set, &sdk_mram, &sdk_wram));
        MRAM = openpim_cube_mram_bytes(cube);
        CHECK(MRAM == sdk_mram && MRAM > 0);
    }
    /* techniques: IM needs PR, CM needs IM, no unknown bits; a refusal keeps the setting */
    CHECK_EQ(openpim_cube_set_techniques(cube, OPENPIM_COMM_PR), OPENPIM_COMM_OK);
    EXPECT_FAIL(openpim_cube_set_techniques(cube, OPENPIM_COMM_IM), OPENPIM_COMM_ERR_ARGUMENT);
    EXPECT_FAIL(openpim_cube_set_techniques(cube, OPENPIM_COMM_PR | OPENPIM_COMM_CM), OPENPIM_COMM_ERR_ARGUMENT);
    EXPECT_FAIL(openpim_cube_set_techniques(cube, 8), OPENPIM_COMM_ERR_ARGUMENT);
    EXPECT_FAIL(openpim_cube_set_techniques(NULL, 0), OPENPIM_COMM_ERR_ARGUMENT);
    CHECK_EQ(openpim_cube_get_techniques(cube), OPENPIM_COMM_PR);
    CHECK_EQ(openpim_cube_get_impl(cube), OPENPIM_COMM_BASELINE);
    CHECK_EQ(openpim_cube_set_impl(cube, OPENPIM_COMM_OPTIMISED), OPENPIM_COMM_OK);
    CHECK_EQ(openpim_cube_get_techniques(cube), OPENPIM_COMM_PR | OPENPIM_COMM_IM | OPENPIM_COMM_CM);

    uint8_t host[64 * 64] = {0};
    for (int impl = 0; impl < 2; impl++) {
        openpim_cube_set_impl(cube, impl ? OPENPIM_COMM_OPTIMISED : OPENPIM_COMM_BASELINE);
        /* overlap without being in place */
        EXPECT_FAIL(openpim_alltoall(m, 0, 8, 512), OPENPIM_COMM_ERR_OVERLAP);
        EXPECT_FAIL(openpim_allreduce(m0, 64, 0, 128, OPENPIM_INT32, OPENPIM_SUM), OPENPIM_COMM_ERR_OVERLAP);
        EXPECT_FAIL(openpim_allgather(m0, 64, 0, 16), OPENPIM_COMM_ERR_OVERLAP); /* output 128 B covers 64 */
        EXPECT_FAIL(openpim_reduce_scatter(m0, 0, 32, 256, OPENPIM_INT32, OPENPIM_SUM), OPENPIM_COMM_ERR_OVERLAP);
        /* past the end of MRAM */
        EXPECT_FAIL(openpim_alltoall(m, MRAM - 256, 0, 512), OPENPIM_COMM_ERR_RANGE);
        EXPECT_FAIL(openpim_alltoall(m, 0, MRAM, 512), OPENPIM_COMM_ERR_RANGE);
        EXPECT_FAIL(openpim_alltoall(m, UINT64_MAX - 7, 0, 512), OPENPIM_COMM_ERR_RANGE);
        EXPECT_FAIL(openpim_allgather(m, 0, MRAM - 1024, 64), OPENPIM_COMM_ERR_RANGE); /* 64 x 64 B */
        EXPECT_FAIL(openpim_allgather(m, 0, 4096, MRAM), OPENPIM_COMM_ERR_RANGE);
        EXPECT_FAIL(openpim_allgather(m, 0, 4096, UINT64_MAX / 2), OPENPIM_COMM_ERR_RANGE);
        EXPECT_FAIL(openpim_scatter(m, MRAM - 8, host, 16), OPENPIM_COMM_ERR_RANGE);
        EXPECT_FAIL(openpim_gather(m, MRAM, host, 8), OPENPIM_COMM_ERR_RANGE);
        EXPECT_FAIL(openpim_broadcast(m, MRAM - 4, host, 8), OPENPIM_COMM_ERR_RANGE);
        EXPECT_FAIL(openpim_reduce(m, MRAM - 4, host, 8, OPENPIM_UINT8, OPENPIM_SUM), OPENPIM_COMM_ERR_RANGE);
        /* types and operations */
        EXPECT_FAIL(openpim_allreduce(m, 0, 1024, 64, OPENPIM_FLOAT, OPENPIM_XOR), OPENPIM_COMM_ERR_TYPE_OP);
        EXPECT_FAIL(openpim_allreduce(m, 0, 1024, 64, OPENPIM_DOUBLE, OPENPIM_AND), OPENPIM_COMM_ERR_TYPE_OP);
        EXPECT_FAIL(openpim_reduce_scatter(m, 0, 1024, 512, OPENPIM_FLOAT, OPENPIM_OR), OPENPIM_COMM_ERR_TYPE_OP);
        EXPECT_FAIL(openpim_reduce(m, 0, host, 64, OPENPIM_DOUBLE, OPENPIM_XOR), OPENPIM_COMM_ERR_TYPE_OP);
        EXPECT_FAIL(openpim_allreduce(m, 0, 1024, 64, (openpim_comm_type)99, OPENPIM_SUM), OPENPIM_COMM_ERR_TYPE_OP);
        EXPECT_FAIL(openpim_allreduce(m, 0, 1024, 64, OPENPIM_INT32, (openpim_comm_op)-1), OPENPIM_COMM_ERR_TYPE_OP);
        /* sizes */
        EXPECT_FAIL(openpim_alltoall(m, 0, 1024, 65), OPENPIM_COMM_ERR_SIZE);
        EXPECT_FAIL(openpim_reduce_scatter(m0, 0, 1024, 8 * 6, OPENPIM_INT32, OPENPIM_SUM), OPENPIM_COMM_ERR_SIZE);
        EXPECT_FAIL(openpim_allreduce(m, 0, 1024, 6, OPENPIM_INT32, OPENPIM_SUM), OPENPIM_COMM_ERR_SIZE);
        EXPECT_FAIL(openpim_reduce(m, 0, host, 12, OPENPIM_DOUBLE, OPENPIM_SUM), OPENPIM_COMM_ERR_SIZE);
        /* NULL */
        EXPECT_FAIL(openpim_broadcast(m, 0, NULL, 8), OPENPIM_COMM_ERR_ARGUMENT);
        EXPECT_FAIL(openpim_gather(m, 0, NULL, 8), OPENPIM_COMM_ERR_ARGUMENT);
        EXPECT_FAIL(openpim_alltoall(NULL, 0, 1024, 64), OPENPIM_COMM_ERR_ARGUMENT);
        EXPECT_FAIL(openpim_reduce(NULL, 0, host, 8, OPENPIM_INT8, OPENPIM_SUM), OPENPIM_COMM_ERR_ARGUMENT);
    }
    /* the bounds are not too strict: the last bytes of MRAM work */
    {
        struct tcomm c = ref_comm(2, ok, 1);
        uint8_t *ref = malloc(64 * 8), *got = malloc(64 * 8);
        for (int impl = 0; impl < 2; impl++) {
            openpim_cube_set_impl(cube, impl ? OPENPIM_COMM_OPTIMISED : OPENPIM_COMM_BASELINE);
            uint8_t in[64 * 8];
            for (int i = 0; i < 64 * 8; i++)
                in[i] = (uint8_t)(i * 7 + 1);
            CHECK_EQ(openpim_scatter(m0, MRAM - 8, in, 8), OPENPIM_COMM_OK);
            CHECK_EQ(openpim_allreduce(m0, MRAM - 8, MRAM - 8, 8, OPENPIM_UINT8, OPENPIM_SUM), OPENPIM_COMM_OK);
            CHECK_EQ(openpim_gather(m0, MRAM - 8, got, 8), OPENPIM_COMM_OK);
            for (uint32_t i = 0; i < c.I; i++)
                for (int b = 0; b < 8; b++) {
                    uint8_t s = 0;
                    for (uint32_t r = 0; r < c.N; r++)
                        s = (uint8_t)(s + in[(i * c.N + r) * 8 + b]);
                    for (uint32_t r = 0; r < c.N; r++)
                        ref[(i * c.N + r) * 8 + b] = s;
                }
            CHECK(memcmp(got, ref, 64 * 8) == 0);
        }
        free(ref);
        free(got);
        free(c.node);
    }
    t_verify(&t, "window after the end-of-MRAM run");
    openpim_cube_destroy(cube);
    /* a partial rank: the shape must match the enabled DPUs */
    struct dpu_set_t s40;
    DPU_ASSERT(dpu_alloc(40, "nrRanks=2", &s40));
    uint32_t l64[] = {64}, l40[] = {8, 5};
    EXPECT_FAIL(openpim_cube_create(s40, 1, l64, &cube), OPENPIM_COMM_ERR_SHAPE);
    CHECK_EQ(openpim_cube_create(s40, 2, l40, &cube), OPENPIM_COMM_OK);
    openpim_cube_destroy(cube);
    DPU_ASSERT(dpu_free(s40));
    t_close(&t);
    return check_done("test_comm_errors");
}
