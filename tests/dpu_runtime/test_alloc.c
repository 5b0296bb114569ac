/* SPDX-License-Identifier: MIT */
/* mem_alloc alignment, persistence of the heap pointer, and heap overflow. */
#include <dpu.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

static struct dpu_set_t only_dpu(struct dpu_set_t set)
{
    struct dpu_set_t dpu, first = set;
    int seen = 0;
    DPU_FOREACH(set, dpu) {
        if (!seen++)
            first = dpu;
    }
    return first;
}

static void run(struct dpu_set_t set, uint32_t mode, uint64_t blocks[3])
{
    DPU_ASSERT(dpu_copy_to(set, "mode", 0, &mode, 4));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_ASSERT(dpu_copy_from(only_dpu(set), "blocks", 0, blocks, 24));
}

int main(void)
{
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_alloc", NULL));
    uint64_t a[3], b[3], c[3];
    run(set, 0, a);
    CHECK_EQ(a[0] % 8, 0);
    CHECK_EQ(a[1], a[0] + 8); /* 3 bytes, then realigned to 8 */
    CHECK_EQ(a[2], a[1] + 8); /* mem_alloc(0): the current pointer */
    run(set, 1, b);           /* no mem_reset: the heap goes on */
    CHECK_EQ(b[0], a[2]);
    CHECK_EQ(b[1], b[0] + 8);
    run(set, 0, c); /* mem_reset: back to the start */
    CHECK_EQ(c[0], a[0]);

    uint32_t mode = 2;
    DPU_ASSERT(dpu_copy_to(set, "mode", 0, &mode, 4));
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_DPU_FAULT);
    DPU_FOREACH(set, dpu) {
        struct openpim_fault f;
        CHECK_EQ(openpim_get_fault(dpu, &f), DPU_OK);
        CHECK(f.faulted);
        CHECK(f.kind && strcmp(f.kind, "heap") == 0);
        CHECK(strstr(f.message, "mem_alloc") != NULL);
    }
    /* the DPU is usable again afterwards */
    run(set, 0, c);
    CHECK_EQ(c[0], a[0]);
    DPU_ASSERT(dpu_free(set));
    return check_done("test_alloc");
}
