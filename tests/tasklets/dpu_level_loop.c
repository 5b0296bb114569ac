/* SPDX-License-Identifier: MIT */
/* A level-synchronous loop, as graph kernels write it: each level every
 * tasklet reads its part of the frontier (a DMA) and tasklet 0 also writes
 * the level's result (a second DMA), so tasklet 0 is the last to reach the
 * barrier; right after it, tasklet 0 counts the remaining levels down while
 * the others first clear their per-level state, then re-read the count.  On
 * the DPU the tasklets leave the barrier together and tasklet 0's store comes
 * several instructions before the others' load, so every tasklet sees the
 * new count and all leave the loop at the same level. */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

BARRIER_INIT(level_barrier, NR_TASKLETS);

__host uint32_t levels_left;
__host uint32_t levels_done[NR_TASKLETS];
__dma_aligned uint64_t frontier[NR_TASKLETS][8];
uint32_t next_frontier[NR_TASKLETS][8];

int main(void)
{
    unsigned t = me();
    uint32_t levels = 0;
    for (;;) {
        mram_read((__mram_ptr void *)((uintptr_t)DPU_MRAM_HEAP_POINTER + t * 64), frontier[t], 64);
        if (t == 0)
            mram_write(frontier[t], (__mram_ptr void *)((uintptr_t)DPU_MRAM_HEAP_POINTER + 4096), 64);
        levels++;
        barrier_wait(&level_barrier);
        if (t == 0) {
            levels_left--;
        } else {
            for (int k = 0; k < 8; k++)
                next_frontier[t][k] = 0;
        }
        if (levels_left == 0)
            break;
    }
    levels_done[t] = levels;
    return 0;
}
