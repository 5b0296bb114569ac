/* SPDX-License-Identifier: MIT */
/* Each tasklet adds its share of `values` (WRAM, written by the host) into
 * sums[me()]. */
#include <attributes.h>
#include <defs.h>
#include <stdint.h>

#define NR_VALUES 256

__host uint32_t values[NR_VALUES];
__host uint64_t sums[NR_TASKLETS];

int main(void)
{
    uint64_t s = 0;
    for (uint32_t i = me(); i < NR_VALUES; i += NR_TASKLETS)
        s += values[i];
    sums[me()] = s;
    return 0;
}
