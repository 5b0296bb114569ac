/* SPDX-License-Identifier: MIT */
/* The DPU side of the small-transfer workload (bench_vpim.c, nw), shaped as
 * PrIM's NW host loop: per step, the host writes two small blocks to each DPU
 * (`a` and `b`, BLOCK bytes each), launches, and reads one block back (`out`
 * = a + b + step, word by word). */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#define WORDS 13 /* 104 bytes: vPIM's NW moves ~109 bytes per DPU and transfer */

__host uint64_t step;
__mram_noinit uint64_t a[WORDS], b[WORDS], out[WORDS];

int main(void)
{
    __dma_aligned uint64_t x[WORDS + 1], y[WORDS + 1];
    mram_read(a, x, sizeof a);
    mram_read(b, y, sizeof b);
    for (int i = 0; i < WORDS; i++)
        x[i] += y[i] + step;
    mram_write(x, out, sizeof out);
    return 0;
}
