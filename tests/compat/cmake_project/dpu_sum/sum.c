/* SPDX-License-Identifier: MIT */
/* Sums `count` 32-bit values of the MRAM array `values` over the tasklets;
 * tasklet 0 stores the total in `total`. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#include "reduce.h"

#define MAX_VALUES 4096

__host uint32_t count;
__host uint64_t total;
__mram_noinit uint32_t values[MAX_VALUES];

int main(void)
{
    uint64_t mine = 0;
    for (uint32_t i = me(); i < count && i < MAX_VALUES; i += NR_TASKLETS)
        mine += values[i];
    uint64_t all = reduce_sum(mine);
    if (me() == 0)
        total = all;
    return 0;
}
