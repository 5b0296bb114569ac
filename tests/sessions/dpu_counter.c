/* SPDX-License-Identifier: MIT */
/* Adds `step` to a counter in MRAM and to one in WRAM at each launch: what a
 * DPU keeps between launches, and what a reset must clear. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

__host uint32_t step;
__host uint64_t wram_count;
__mram_noinit uint64_t mram_count;

int main(void)
{
    wram_count += step;
    mram_count += step;
    return 0;
}
