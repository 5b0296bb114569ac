/* SPDX-License-Identifier: MIT */
/* First program: multiplies the heap's values by 3 in place. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>
#include <stdio.h>

#include "common.h"

static __dma_aligned uint64_t cache[NR_TASKLETS][BLOCK];

/* Never called: with sections per function and --gc-sections it is dropped,
 * and with it printf's 1 MB MRAM log buffer. */
void debug_dump(void)
{
    printf("first value %llu\n", (unsigned long long)cache[0][0]);
}

int main(void)
{
    uint64_t *c = cache[me()];
    for (uint32_t b = me(); b < NR_ELEMENTS / BLOCK; b += NR_TASKLETS) {
        __mram_ptr uint64_t *at = (__mram_ptr uint64_t *)DPU_MRAM_HEAP_POINTER + b * BLOCK;
        mram_read(at, c, sizeof(cache[0]));
        for (uint32_t i = 0; i < BLOCK; i++)
            c[i] *= 3;
        mram_write(c, at, sizeof(cache[0]));
    }
    return 0;
}
