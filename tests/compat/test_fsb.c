/* SPDX-License-Identifier: MIT */
/* fsb_allocator_t from <alloc.h>: blocks rounded up to 8 bytes (0 meaning 8),
 * laid out one after the other in the WRAM heap, NULL once all are taken,
 * last freed reused first; a pool the heap cannot hold faults the DPU. */
#include <dpu.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

int main(void)
{
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_fsb", NULL));
    DPU_FOREACH(set, dpu) {
        break;
    }
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    uint32_t heap_start, after_pools, a[6], b[3], again[3], intact;
    DPU_ASSERT(dpu_copy_from(dpu, "heap_start", 0, &heap_start, 4));
    DPU_ASSERT(dpu_copy_from(dpu, "after_pools", 0, &after_pools, 4));
    DPU_ASSERT(dpu_copy_from(dpu, "a", 0, a, sizeof a));
    DPU_ASSERT(dpu_copy_from(dpu, "b", 0, b, sizeof b));
    DPU_ASSERT(dpu_copy_from(dpu, "again", 0, again, sizeof again));
    DPU_ASSERT(dpu_copy_from(dpu, "intact", 0, &intact, 4));

    /* pool A: 5 blocks of 16 bytes from the heap start, then its list head word */
    for (uint32_t i = 0; i < 5; i++)
        CHECK_EQ(a[i], heap_start + 16 * i);
    CHECK_EQ(a[5], 0); /* exhausted */
    /* pool B right after (8-aligned): 3 blocks of 8 */
    uint32_t b0 = heap_start + 5 * 16 + 8;
    for (uint32_t i = 0; i < 3; i++)
        CHECK_EQ(b[i], b0 + 8 * i);
    CHECK_EQ(after_pools, b0 + 3 * 8 + 8);
    CHECK_EQ(again[0], a[3]);
    CHECK_EQ(again[1], a[1]);
    CHECK_EQ(again[2], 0);
    CHECK_EQ(intact, 1);

    uint32_t mode = 1;
    DPU_ASSERT(dpu_copy_to(dpu, "mode", 0, &mode, 4));
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_DPU_FAULT);
    struct openpim_fault f;
    CHECK_EQ(openpim_get_fault(dpu, &f), DPU_OK);
    CHECK(f.faulted);
    CHECK(f.kind && strcmp(f.kind, "heap") == 0);
    DPU_ASSERT(dpu_free(set));
    return check_done("test_fsb");
}
