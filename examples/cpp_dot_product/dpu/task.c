/* SPDX-License-Identifier: MIT */
/* cpp_dot_product, DPU side: the dot product of this DPU's slices of two int32
 * vectors (MRAM arrays `va`, `vb`, `nr_elements` long, padded by the host to
 * whole blocks with zeros).  Tasklet t adds blocks t, t + NR_TASKLETS, ... into
 * partial[t]; tasklet 0 prints the DPU's total. */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>
#include <stdio.h>

#include "common.h"

__host uint32_t nr_elements;
__host int64_t partial[NR_TASKLETS];
__mram_noinit int32_t va[MAX_ELEMENTS_PER_DPU];
__mram_noinit int32_t vb[MAX_ELEMENTS_PER_DPU];

static int32_t block_a[NR_TASKLETS][BLOCK_ELEMENTS];
static int32_t block_b[NR_TASKLETS][BLOCK_ELEMENTS];

BARRIER_INIT(summed, NR_TASKLETS);

int main(void)
{
    const uint32_t t = me();
    int64_t sum = 0;
    for (uint32_t first = t * BLOCK_ELEMENTS; first < nr_elements; first += NR_TASKLETS * BLOCK_ELEMENTS) {
        mram_read(&va[first], block_a[t], sizeof(block_a[t]));
        mram_read(&vb[first], block_b[t], sizeof(block_b[t]));
        uint32_t n = nr_elements - first < BLOCK_ELEMENTS ? nr_elements - first : BLOCK_ELEMENTS;
        for (uint32_t i = 0; i < n; i++)
            sum += (int64_t)block_a[t][i] * block_b[t][i];
    }
    partial[t] = sum;
    barrier_wait(&summed);
    if (t == 0) {
        int64_t total = 0;
        for (uint32_t i = 0; i < NR_TASKLETS; i++)
            total += partial[i];
        printf("dot product of %u elements: %lld\n", nr_elements, (long long)total);
    }
    return 0;
}
