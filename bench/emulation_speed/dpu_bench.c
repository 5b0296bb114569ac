/* SPDX-License-Identifier: MIT */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#include "kernels.h"

__host uint32_t mode, iterations, bytes;
__host uint64_t result;
__dma_aligned uint64_t block[DMA_BLOCK / 8];

int main(void)
{
    if (mode == 0) {
        result = compute_kernel(iterations, iterations);
    } else if (mode == 2) {
        result = call_kernel(iterations, iterations);
    } else {
        uint64_t acc = 0;
        for (uint32_t off = 0; off < bytes; off += DMA_BLOCK) {
            mram_read((__mram_ptr void *)((uintptr_t)DPU_MRAM_HEAP_POINTER + off), block, DMA_BLOCK);
            acc = fold_block(block, acc);
        }
        result = acc;
    }
    return 0;
}
