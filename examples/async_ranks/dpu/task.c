/* SPDX-License-Identifier: MIT */
/* async_ranks, DPU side: y = a * x + b on this DPU's elements, plus the sum
 * of y and a launch counter in DPU_RESULTS.
 *
 * The launch counter lives in WRAM, which is initialised by dpu_load and then
 * keeps its contents from one launch to the next. */
#include <stdint.h>

#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>

#include "common.h"

__host dpu_arguments_t DPU_INPUT_ARGUMENTS;
__host dpu_result_t DPU_RESULTS;

BARRIER_INIT(sync_barrier, NR_TASKLETS);

static uint32_t launch_count; /* zero after dpu_load */
static uint64_t tasklet_sums[NR_TASKLETS];

int main(void)
{
    const unsigned int tasklet_id = me();

    if (tasklet_id == 0) {
        mem_reset();
        launch_count++;
    }
    barrier_wait(&sync_barrier);

    const dpu_arguments_t args = DPU_INPUT_ARGUMENTS;
    const uint32_t bytes = args.nr_elements * (uint32_t)sizeof(uint32_t);
    __mram_ptr uint8_t *x = (__mram_ptr uint8_t *)DPU_MRAM_HEAP_POINTER;
    __mram_ptr uint8_t *y = x + args.region_bytes;
    uint32_t *block = (uint32_t *)mem_alloc(BLOCK_BYTES);

    uint64_t sum = 0;
    for (uint32_t offset = tasklet_id * BLOCK_BYTES; offset < bytes;
         offset += NR_TASKLETS * BLOCK_BYTES) {
        const uint32_t left = bytes - offset;
        const uint32_t used = left < BLOCK_BYTES ? left : BLOCK_BYTES;
        const uint32_t dma_bytes = (used + 7u) & ~7u;
        mram_read(x + offset, block, dma_bytes);
        for (uint32_t i = 0; i < used / sizeof(uint32_t); i++) {
            block[i] = args.a * block[i] + args.b;
            sum += block[i];
        }
        mram_write(block, y + offset, dma_bytes);
    }
    tasklet_sums[tasklet_id] = sum;
    barrier_wait(&sync_barrier);

    if (tasklet_id == 0) {
        uint64_t total = 0;
        for (unsigned int t = 0; t < NR_TASKLETS; t++) {
            total += tasklet_sums[t];
        }
        DPU_RESULTS.sum_y = total;
        DPU_RESULTS.nr_elements = args.nr_elements;
        DPU_RESULTS.launches = launch_count;
    }
    return 0;
}
