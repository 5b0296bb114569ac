/* SPDX-License-Identifier: MIT */
/* The WRAM heap is what the chip leaves: its WRAM less the program's globals
 * and its declared stacks (STACK_SIZE_DEFAULT=256, STACK_SIZE_TASKLET_1=512
 * here, 4 tasklets).  Tasklet 0 takes `ask` bytes of it; then every tasklet
 * reads MRAM into a 192-byte buffer on its stack, which fits 256 bytes in
 * DPU terms. */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

__host uint32_t ask, heap_start, sums[NR_TASKLETS];
__host uint8_t filler[1000]; /* globals of some size */
__mram_noinit uint64_t data[NR_TASKLETS * 24];
BARRIER_INIT(taken, NR_TASKLETS);

static __attribute__((noinline)) uint32_t sum_block(uint32_t t)
{
    uint64_t block[24];
    mram_read(&data[t * 24], block, sizeof(block));
    uint32_t s = 0;
    for (uint32_t i = 0; i < 24; i++)
        s += (uint32_t)block[i];
    return s;
}

int main(void)
{
    if (me() == 0) {
        uint8_t *p = mem_reset();
        heap_start = (uint32_t)(uintptr_t)p;
        uint8_t *q = mem_alloc(ask); /* faults (heap) past the end */
        q[0] = filler[0];
        q[ask - 1] = 1;
    }
    barrier_wait(&taken);
    sums[me()] = sum_block(me());
    return 0;
}
