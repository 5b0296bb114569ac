/* SPDX-License-Identifier: MIT */
/* Second program: sums the heap's values (one partial sum per tasklet). */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#include "common.h"

__host uint64_t partial[NR_TASKLETS];
static __dma_aligned uint64_t cache[NR_TASKLETS][BLOCK];

int main(void)
{
    uint64_t *c = cache[me()], s = 0;
    for (uint32_t b = me(); b < NR_ELEMENTS / BLOCK; b += NR_TASKLETS) {
        mram_read((__mram_ptr uint64_t *)DPU_MRAM_HEAP_POINTER + b * BLOCK, c, sizeof(cache[0]));
        for (uint32_t i = 0; i < BLOCK; i++)
            s += c[i];
    }
    partial[me()] = s;
    return 0;
}
