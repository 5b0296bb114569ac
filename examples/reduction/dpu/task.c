/* SPDX-License-Identifier: MIT */
/* reduction, DPU side: sum of the uint64 values held by this DPU.
 *
 * Every tasklet sums a strided set of blocks into a partial sum; the partial
 * sums are then combined by a tree of handshakes: at step s (1, 2, 4, ...)
 * tasklet t with bit s set hands its sum over to tasklet t - s and stops,
 * tasklet t without it waits for t + s and adds its sum.  Tasklet 0 ends with
 * the total and publishes it in DPU_RESULTS. */
#include <stdint.h>

#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <handshake.h>
#include <mram.h>
#include <perfcounter.h>

#include "common.h"

__host dpu_arguments_t DPU_INPUT_ARGUMENTS;
__host dpu_result_t DPU_RESULTS;

BARRIER_INIT(start_barrier, NR_TASKLETS);

static uint64_t partial_sums[NR_TASKLETS];

int main(void)
{
    const unsigned int tasklet_id = me();

    if (tasklet_id == 0) {
        mem_reset();
        perfcounter_config(COUNT_CYCLES, true);
    }
    barrier_wait(&start_barrier);

    const uint32_t bytes = DPU_INPUT_ARGUMENTS.nr_elements * (uint32_t)sizeof(uint64_t);
    __mram_ptr uint8_t *input = (__mram_ptr uint8_t *)DPU_MRAM_HEAP_POINTER;
    uint64_t *block = (uint64_t *)mem_alloc(BLOCK_BYTES);

    uint64_t sum = 0;
    for (uint32_t offset = tasklet_id * BLOCK_BYTES; offset < bytes;
         offset += NR_TASKLETS * BLOCK_BYTES) {
        const uint32_t left = bytes - offset;
        const uint32_t len = left < BLOCK_BYTES ? left : BLOCK_BYTES;
        mram_read(input + offset, block, len);
        for (uint32_t i = 0; i < len / sizeof(uint64_t); i++) {
            sum += block[i];
        }
    }
    partial_sums[tasklet_id] = sum;

    for (unsigned int step = 1; step < NR_TASKLETS; step <<= 1) {
        if (tasklet_id & step) {
            /* partial_sums[tasklet_id] is final: hand it to tasklet_id - step. */
            handshake_notify();
            return 0;
        }
        if (tasklet_id + step < NR_TASKLETS) {
            handshake_wait_for(tasklet_id + step);
            partial_sums[tasklet_id] += partial_sums[tasklet_id + step];
        }
    }

    /* Only tasklet 0 gets here. */
    DPU_RESULTS.sum = partial_sums[0];
    DPU_RESULTS.cycles = perfcounter_get();
    return 0;
}
