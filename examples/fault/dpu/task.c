/* SPDX-License-Identifier: MIT */
/* fault, DPU side.
 *
 * Every DPU writes a known pattern to MRAM and a summary to DPU_RESULTS.  On
 * the DPU whose `mode` the host set, the last tasklet then does something
 * wrong on purpose: the whole DPU must stop with a fault (and dpu_launch
 * report it).  Integer division is done in software on a DPU: a zero divisor
 * makes the runtime stop the DPU with "fault 2 (Division by Zero)", while
 * INT32_MIN / -1 does not fault and just produces a value. */
#include <assert.h>
#include <stdint.h>

#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>

#include "common.h"

__host dpu_arguments_t DPU_INPUT_ARGUMENTS;
__host dpu_result_t DPU_RESULTS;

BARRIER_INIT(end_barrier, NR_TASKLETS);
BARRIER_INIT(start_barrier, NR_TASKLETS);

static uint64_t tasklet_sums[NR_TASKLETS];
static uint32_t tasklet_done[NR_TASKLETS];

static void misbehave(const dpu_arguments_t *args)
{
    __mram_ptr uint8_t *heap = (__mram_ptr uint8_t *)DPU_MRAM_HEAP_POINTER;
    switch (args->mode) {
    case MODE_MRAM_READ_PAST_END: {
        /* param = 64 MB: past the last MRAM byte, whatever the heap start. */
        uint64_t word[1] __dma_aligned;
        mram_read(heap + args->param, word, sizeof(word));
        tasklet_sums[me()] += word[0];
        break;
    }
    case MODE_BAD_WRAM_POINTER: {
        /* param = 1 MB: far past the 64 KB WRAM */
        volatile uint64_t *bad = (volatile uint64_t *)((uintptr_t)tasklet_sums + args->param);
        *bad = 0xbadbadbadbadbadull;
        break;
    }
    case MODE_HEAP_OVERFLOW: {
        /* param = 1 MB: more than the whole WRAM. */
        volatile uint8_t *too_big = (volatile uint8_t *)mem_alloc(args->param);
        too_big[0] = 1;
        break;
    }
    case MODE_HALT:
        halt();
    case MODE_ASSERT:
        /* param = 1 */
        assert(args->param == 0);
        break;
    default:
        break;
    }
}

int main(void)
{
    const unsigned int tasklet_id = me();
    const dpu_arguments_t args = DPU_INPUT_ARGUMENTS;

    if (tasklet_id == 0) {
        mem_reset();
    }
    barrier_wait(&start_barrier);

    /* Write this tasklet's pattern. */
    uint64_t *chunk = (uint64_t *)mem_alloc(CHUNK_WORDS * sizeof(uint64_t));
    __mram_ptr uint64_t *out = (__mram_ptr uint64_t *)DPU_MRAM_HEAP_POINTER + tasklet_id * PATTERN_WORDS;
    uint64_t sum = 0;
    for (uint32_t base = 0; base < PATTERN_WORDS; base += CHUNK_WORDS) {
        for (uint32_t k = 0; k < CHUNK_WORDS; k++) {
            chunk[k] = pattern_word(args.seed, tasklet_id, base + k);
            sum += chunk[k];
        }
        mram_write(chunk, out + base, CHUNK_WORDS * sizeof(uint64_t));
    }
    tasklet_sums[tasklet_id] = sum;

    if (tasklet_id == NR_TASKLETS - 1) {
        misbehave(&args);
    }
    tasklet_done[tasklet_id] = 1;
    barrier_wait(&end_barrier);

    if (tasklet_id == 0) {
        uint64_t checksum = 0;
        uint32_t done = 0;
        for (unsigned int t = 0; t < NR_TASKLETS; t++) {
            checksum += tasklet_sums[t];
            done += tasklet_done[t];
            tasklet_done[t] = 0;
        }
        DPU_RESULTS.checksum = checksum;
        DPU_RESULTS.tasklets_done = done;
        /* Software division: x / 0 faults (MODE_DIVIDE_BY_ZERO), INT32_MIN / -1
         * does not (MODE_DIVIDE_OVERFLOW). */
        DPU_RESULTS.uquotient = args.udividend / args.udivisor;
        DPU_RESULTS.uremainder = args.udividend % args.udivisor;
        DPU_RESULTS.squotient = args.sdividend / args.sdivisor;
        DPU_RESULTS.sremainder = args.sdividend % args.sdivisor;
    }
    return 0;
}
