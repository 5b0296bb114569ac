/* SPDX-License-Identifier: MIT */
/* histogram, DPU side: 256-bin histogram of the bytes held by this DPU.
 *
 * All tasklets update one shared histogram in WRAM (DPU_HISTOGRAM, read by
 * the host).  Bins below NR_MUTEX_BINS are protected by four mutexes made
 * with MUTEX_INIT; the other bins by an array of atomic bits
 * (ATOMIC_BIT_INIT) that are locked and unlocked as mutexes. */
#include <stdint.h>

#include <alloc.h>
#include <atomic_bit.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <mutex.h>

#include "common.h"

__host dpu_arguments_t DPU_INPUT_ARGUMENTS;
__host uint32_t DPU_HISTOGRAM[NR_BINS];

BARRIER_INIT(start_barrier, NR_TASKLETS);

MUTEX_INIT(low_bins_lock0);
MUTEX_INIT(low_bins_lock1);
MUTEX_INIT(low_bins_lock2);
MUTEX_INIT(low_bins_lock3);

ATOMIC_BIT_INIT(high_bins_locks)[NR_BIT_LOCKS];

static mutex_id_t lock_of_bin(uint32_t bin)
{
    if (bin >= NR_MUTEX_BINS) {
        return &ATOMIC_BIT_GET(high_bins_locks)[bin % NR_BIT_LOCKS];
    }
    switch (bin % NR_NAMED_MUTEXES) {
    case 0:
        return MUTEX_GET(low_bins_lock0);
    case 1:
        return MUTEX_GET(low_bins_lock1);
    case 2:
        return MUTEX_GET(low_bins_lock2);
    default:
        return MUTEX_GET(low_bins_lock3);
    }
}

int main(void)
{
    const unsigned int tasklet_id = me();

    /* WRAM keeps its contents between launches: clear the histogram and the
     * heap before anyone uses them. */
    if (tasklet_id == 0) {
        mem_reset();
        for (uint32_t bin = 0; bin < NR_BINS; bin++) {
            DPU_HISTOGRAM[bin] = 0;
        }
    }
    barrier_wait(&start_barrier);

    const uint32_t bytes = DPU_INPUT_ARGUMENTS.nr_bytes;
    __mram_ptr uint8_t *input = (__mram_ptr uint8_t *)DPU_MRAM_HEAP_POINTER;
    uint8_t *block = (uint8_t *)mem_alloc(BLOCK_BYTES);

    for (uint32_t offset = tasklet_id * BLOCK_BYTES; offset < bytes;
         offset += NR_TASKLETS * BLOCK_BYTES) {
        const uint32_t left = bytes - offset;
        const uint32_t used = left < BLOCK_BYTES ? left : BLOCK_BYTES;
        /* DMA sizes are multiples of 8; the host pads the input. */
        mram_read(input + offset, block, (used + 7u) & ~7u);
        for (uint32_t i = 0; i < used; i++) {
            const uint32_t bin = block[i];
            mutex_id_t lock = lock_of_bin(bin);
            mutex_lock(lock);
            DPU_HISTOGRAM[bin]++;
            mutex_unlock(lock);
        }
    }
    return 0;
}
