/* SPDX-License-Identifier: MIT */
/* Untagged MRAM offsets in mram_read / mram_write / seqread (see dpu_mram_offset.c). */
#include <dpu.h>
#include <stdint.h>

#include "check.h"

int main(void)
{
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_mram_offset", NULL));
    uint64_t words[4] = {11, 22, 33, 44};
    DPU_ASSERT(dpu_copy_to(set, DPU_MRAM_HEAP_POINTER_NAME, 64, words, sizeof words));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu) {
        uint32_t heap = 0, finished = 0;
        uint64_t off[4], tag[4], seq = 0, back[2];
        DPU_ASSERT(dpu_copy_from(dpu, "finished", 0, &finished, sizeof finished));
        CHECK_EQ(finished, 1);
        DPU_ASSERT(dpu_copy_from(dpu, "heap_addr", 0, &heap, sizeof heap));
        CHECK_EQ(heap, 0x08000000u); /* no MRAM variables: the heap is at MRAM offset 0 */
        DPU_ASSERT(dpu_copy_from(dpu, "via_offset", 0, off, sizeof off));
        DPU_ASSERT(dpu_copy_from(dpu, "via_tag", 0, tag, sizeof tag));
        for (int i = 0; i < 4; i++) {
            CHECK_EQ(off[i], words[i]);
            CHECK_EQ(tag[i], words[i]);
        }
        DPU_ASSERT(dpu_copy_from(dpu, "via_seqread", 0, &seq, sizeof seq));
        CHECK_EQ(seq, 22);
        DPU_ASSERT(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, 256, back, sizeof back));
        CHECK_EQ(back[0], 0x0123456789abcdefull);
        CHECK_EQ(back[1], 77);
    }
    DPU_ASSERT(dpu_free(set));
    return check_done("test_compat_mram_offset");
}
