/* SPDX-License-Identifier: MIT */
/* vPIM's checksum microbenchmark on the DPU side (bench_vpim.c, fig9): every
 * DPU sums the 32-bit words of the `bytes` bytes the host broadcast to the
 * start of its MRAM heap; each tasklet takes every NR_TASKLETS-th 2 KB block
 * and leaves its partial sum in sums[]. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#define BLOCK 2048

__host uint32_t bytes;
__host uint64_t sums[NR_TASKLETS];
__dma_aligned uint32_t bufs[NR_TASKLETS][BLOCK / 4]; /* in WRAM, not on the tasklets' small stacks */

int main(void)
{
    uint32_t *buf = bufs[me()];
    uint64_t s = 0;
    __mram_ptr uint8_t *data = (__mram_ptr uint8_t *)DPU_MRAM_HEAP_POINTER;
    for (uint32_t at = me() * BLOCK; at < bytes; at += NR_TASKLETS * BLOCK) {
        uint32_t n = bytes - at < BLOCK ? bytes - at : BLOCK;
        mram_read(data + at, buf, BLOCK);
        for (uint32_t k = 0; k < n / 4; k++)
            s += buf[k];
    }
    sums[me()] = s;
    return 0;
}
