/* SPDX-License-Identifier: MIT */
/* DMA size encoding and address rounding of mram_read / mram_write. */
#include <dpu.h>
#include <stdint.h>

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

int main(void)
{
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_dma", NULL));
    static uint8_t pattern[8192];
    for (uint32_t i = 0; i < sizeof(pattern); i++)
        pattern[i] = (uint8_t)(i % 200); /* never the 0xEE sentinel */
    DPU_ASSERT(dpu_copy_to(set, DPU_MRAM_HEAP_POINTER_NAME, 0, pattern, sizeof(pattern)));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));

    int32_t first[6];
    uint32_t count[6], ok[6];
    DPU_ASSERT(dpu_copy_from(only_dpu(set), "first", 0, first, sizeof(first)));
    DPU_ASSERT(dpu_copy_from(only_dpu(set), "count", 0, count, sizeof(count)));
    DPU_ASSERT(dpu_copy_from(only_dpu(set), "content_ok", 0, ok, sizeof(ok)));
    const int32_t want_first[6] = { 0, 0, 0, 0, 0, 8 };
    const uint32_t want_count[6] = { 2048, 8, 8, 16, 8, 2048 };
    for (int c = 0; c < 6; c++) {
        CHECK_EQ(first[c], want_first[c]);
        CHECK_EQ(count[c], want_count[c]);
        CHECK_EQ(ok[c], 1);
    }

    uint8_t back[32];
    DPU_ASSERT(dpu_copy_from(only_dpu(set), DPU_MRAM_HEAP_POINTER_NAME, 4096, back, sizeof(back)));
    for (uint32_t i = 0; i < sizeof(back); i++)
        CHECK_EQ(back[i], (i >= 8 && i < 16) ? 0xA5 : pattern[4096 + i]);

    uint64_t direct[2];
    DPU_ASSERT(dpu_copy_from(only_dpu(set), "direct", 0, direct, sizeof(direct)));
    CHECK_EQ(direct[0], 0x1122334455667788ull);
    CHECK_EQ(direct[1], 42);
    DPU_ASSERT(dpu_free(set));
    return check_done("test_dma");
}
