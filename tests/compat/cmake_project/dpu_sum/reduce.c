/* SPDX-License-Identifier: MIT */
/* A DPU static library: the tasklets' partial sums, combined after a barrier. */
#include <barrier.h>
#include <defs.h>
#include <stdint.h>

#include "reduce.h"

BARRIER_INIT(reduce_barrier, NR_TASKLETS);
static uint64_t partial[NR_TASKLETS];

uint64_t reduce_sum(uint64_t mine)
{
    partial[me()] = mine;
    barrier_wait(&reduce_barrier);
    uint64_t total = 0;
    for (uint32_t t = 0; t < NR_TASKLETS; t++)
        total += partial[t];
    return total;
}
