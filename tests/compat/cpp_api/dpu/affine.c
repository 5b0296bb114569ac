/* SPDX-License-Identifier: MIT */
/* out[i] = in[i] * factor + bias[i % 4] for the `count` first elements of the
 * WRAM array `in`; the sum of the outputs goes to the MRAM variable `total`,
 * and tasklet 0 prints it. */
#include <barrier.h>
#include <defs.h>
#include <stdint.h>
#include <stdio.h>

#define MAX_ELEMENTS 512

__host uint32_t factor;
__host uint32_t bias[4];
__host uint32_t count;
__host uint32_t in[MAX_ELEMENTS];
__host uint32_t out[MAX_ELEMENTS];
__mram uint64_t total;

BARRIER_INIT(done, NR_TASKLETS);

int main(void)
{
    for (uint32_t i = me(); i < count && i < MAX_ELEMENTS; i += NR_TASKLETS)
        out[i] = in[i] * factor + bias[i % 4];
    barrier_wait(&done);
    if (me() == 0) {
        uint64_t sum = 0;
        for (uint32_t i = 0; i < count && i < MAX_ELEMENTS; i++)
            sum += out[i];
        total = sum;
        printf("total %llu over %u\n", (unsigned long long)sum, count);
    }
    return 0;
}
