/* SPDX-License-Identifier: MIT */
/* prefix_sum, DPU side: inclusive scan (running sum) of uint32, in place.
 *
 * KERNEL_SCAN: the DPU's elements are cut into one contiguous chunk per
 * tasklet.  Each tasklet scans its chunk (pass 1) and records the chunk sum;
 * after a barrier tasklet 0 turns the chunk sums into chunk offsets; after a
 * second barrier each tasklet adds its offset to its chunk (pass 2).  The DPU
 * total goes to DPU_RESULTS for the host.
 *
 * KERNEL_ADD_OFFSET: the host has computed the sum of all previous DPUs'
 * elements; every element gets it added, which turns the per-DPU scan into
 * the global scan. */
#include <stdint.h>

#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>

#include "common.h"

__host dpu_arguments_t DPU_INPUT_ARGUMENTS;
__host dpu_result_t DPU_RESULTS;

BARRIER_INIT(scan_barrier, NR_TASKLETS);

static uint32_t chunk_sums[NR_TASKLETS];
static uint32_t chunk_offsets[NR_TASKLETS];

/* Chunk [*first, *first + *count) of tasklet t.  Chunk lengths are even, so
 * every chunk starts at an 8-byte boundary and only the last chunk of the
 * DPU may end in the middle of an 8-byte word. */
static void tasklet_chunk(uint32_t nr_elements, uint32_t t, uint32_t *first, uint32_t *count)
{
    const uint32_t per_tasklet = ((nr_elements + NR_TASKLETS - 1) / NR_TASKLETS + 1) & ~1u;
    uint32_t begin = t * per_tasklet;
    uint32_t end = begin + per_tasklet;
    if (begin > nr_elements) {
        begin = nr_elements;
    }
    if (end > nr_elements) {
        end = nr_elements;
    }
    *first = begin;
    *count = end - begin;
}

/* Streams the chunk through `block`.  scan != 0: replaces each element by
 * offset + the running sum of the chunk so far; scan == 0: adds offset to each
 * element.  Returns offset + the sum of the chunk. */
static uint32_t process_chunk(__mram_ptr uint32_t *data, uint32_t first, uint32_t count,
                              uint32_t offset, int scan, uint32_t *block)
{
    uint32_t running = offset;
    for (uint32_t done = 0; done < count; done += BLOCK_ELEMENTS) {
        const uint32_t left = count - done;
        const uint32_t n = left < BLOCK_ELEMENTS ? left : BLOCK_ELEMENTS;
        /* A DMA moves a multiple of 8 bytes: an odd last element travels with
         * the (untouched) padding element after it. */
        const uint32_t dma_bytes = (n * (uint32_t)sizeof(uint32_t) + 7u) & ~7u;

        mram_read(data + first + done, block, dma_bytes);
        if (scan) {
            for (uint32_t i = 0; i < n; i++) {
                running += block[i];
                block[i] = running;
            }
        } else {
            for (uint32_t i = 0; i < n; i++) {
                running += block[i];
                block[i] += offset;
            }
        }
        mram_write(block, data + first + done, dma_bytes);
    }
    return running;
}

int main(void)
{
    const unsigned int tasklet_id = me();

    if (tasklet_id == 0) {
        mem_reset();
    }
    barrier_wait(&scan_barrier);

    __mram_ptr uint32_t *data = (__mram_ptr uint32_t *)DPU_MRAM_HEAP_POINTER;
    uint32_t *block = (uint32_t *)mem_alloc(BLOCK_BYTES);
    uint32_t first, count;
    tasklet_chunk(DPU_INPUT_ARGUMENTS.nr_elements, tasklet_id, &first, &count);

    if (DPU_INPUT_ARGUMENTS.kernel == KERNEL_ADD_OFFSET) {
        if (DPU_INPUT_ARGUMENTS.dpu_offset != 0) {
            process_chunk(data, first, count, DPU_INPUT_ARGUMENTS.dpu_offset, 0, block);
        }
        return 0;
    }

    /* KERNEL_SCAN, pass 1: local scans. */
    chunk_sums[tasklet_id] = process_chunk(data, first, count, 0, 1, block);
    barrier_wait(&scan_barrier);

    /* Offsets of the chunks (exclusive scan of the chunk sums). */
    if (tasklet_id == 0) {
        uint32_t sum = 0;
        for (unsigned int t = 0; t < NR_TASKLETS; t++) {
            chunk_offsets[t] = sum;
            sum += chunk_sums[t];
        }
        DPU_RESULTS.dpu_total = sum;
    }
    barrier_wait(&scan_barrier);

    /* Pass 2: apply the offsets. */
    if (chunk_offsets[tasklet_id] != 0) {
        process_chunk(data, first, count, chunk_offsets[tasklet_id], 0, block);
    }
    return 0;
}
