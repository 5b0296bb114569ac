/* SPDX-License-Identifier: MIT */
/* binary_search, DPU side: look up this DPU's queries in the sorted array.
 *
 * Tasklets take blocks of queries in turn.  Each lookup is a binary search
 * directly in MRAM: every probe is one 8-byte mram_read into a variable on
 * the tasklet's stack. */
#include <stdint.h>

#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>

#include "common.h"

__host dpu_arguments_t DPU_INPUT_ARGUMENTS;

BARRIER_INIT(start_barrier, NR_TASKLETS);

static int64_t search(__mram_ptr const int64_t *array, uint32_t nr_elements, int64_t key)
{
    uint32_t low = 0, high = nr_elements; /* the key can only be in [low, high) */
    while (low < high) {
        const uint32_t mid = low + (high - low) / 2;
        int64_t probe;
        mram_read(&array[mid], &probe, sizeof(probe));
        if (probe == key) {
            return (int64_t)mid;
        }
        if (probe < key) {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    return NOT_FOUND;
}

int main(void)
{
    const unsigned int tasklet_id = me();

    if (tasklet_id == 0) {
        mem_reset();
    }
    barrier_wait(&start_barrier);

    __mram_ptr uint8_t *heap = (__mram_ptr uint8_t *)DPU_MRAM_HEAP_POINTER;
    __mram_ptr const int64_t *array = (__mram_ptr const int64_t *)heap;
    __mram_ptr uint8_t *queries = heap + DPU_INPUT_ARGUMENTS.queries_offset;
    __mram_ptr uint8_t *results = heap + DPU_INPUT_ARGUMENTS.results_offset;
    const uint32_t array_elements = DPU_INPUT_ARGUMENTS.array_elements;
    const uint32_t bytes = DPU_INPUT_ARGUMENTS.nr_queries * 8u;

    /* The block holds the keys, then (in place) their results. */
    int64_t *block = (int64_t *)mem_alloc(BLOCK_BYTES);

    for (uint32_t offset = tasklet_id * BLOCK_BYTES; offset < bytes;
         offset += NR_TASKLETS * BLOCK_BYTES) {
        const uint32_t left = bytes - offset;
        const uint32_t len = left < BLOCK_BYTES ? left : BLOCK_BYTES;
        mram_read(queries + offset, block, len);
        for (uint32_t i = 0; i < len / 8u; i++) {
            block[i] = search(array, array_elements, block[i]);
        }
        mram_write(block, results + offset, len);
    }
    return 0;
}
