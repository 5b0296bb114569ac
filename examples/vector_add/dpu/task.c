/* SPDX-License-Identifier: MIT */
/* vector_add, DPU side: C = A + B over the elements held by this DPU.
 *
 * The tasklets stream the vectors through WRAM in blocks: tasklet t handles
 * blocks t, t + NR_TASKLETS, t + 2 * NR_TASKLETS, ...  Every DMA is a multiple
 * of 8 bytes at an 8-byte aligned address; the host pads each MRAM region to
 * a multiple of 8 bytes, so a last odd element can be moved together with one
 * padding element. */
#include <stdint.h>

#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>

#include "common.h"

__host dpu_arguments_t DPU_INPUT_ARGUMENTS;

BARRIER_INIT(heap_barrier, NR_TASKLETS);

int main(void)
{
    const unsigned int tasklet_id = me();

    /* WRAM globals (the heap pointer included) keep their values from one
     * launch to the next: reset the heap before anyone allocates. */
    if (tasklet_id == 0) {
        mem_reset();
    }
    barrier_wait(&heap_barrier);

    const uint32_t bytes = DPU_INPUT_ARGUMENTS.nr_elements * (uint32_t)sizeof(elem_t);
    const uint32_t region = DPU_INPUT_ARGUMENTS.region_bytes;

    __mram_ptr uint8_t *mram_a = (__mram_ptr uint8_t *)DPU_MRAM_HEAP_POINTER;
    __mram_ptr uint8_t *mram_b = mram_a + region;
    __mram_ptr uint8_t *mram_c = mram_b + region;

    elem_t *block_a = (elem_t *)mem_alloc(BLOCK_BYTES);
    elem_t *block_b = (elem_t *)mem_alloc(BLOCK_BYTES);

    for (uint32_t offset = tasklet_id * BLOCK_BYTES; offset < bytes;
         offset += NR_TASKLETS * BLOCK_BYTES) {
        const uint32_t left = bytes - offset;
        const uint32_t used = left < BLOCK_BYTES ? left : BLOCK_BYTES;
        const uint32_t dma_bytes = (used + 7u) & ~7u;

        mram_read(mram_a + offset, block_a, dma_bytes);
        mram_read(mram_b + offset, block_b, dma_bytes);
        for (uint32_t i = 0; i < dma_bytes / sizeof(elem_t); i++) {
            block_a[i] += block_b[i];
        }
        mram_write(block_a, mram_c + offset, dma_bytes);
    }
    return 0;
}
