/* SPDX-License-Identifier: MIT */
/* Writes `megabytes` MB of MRAM from the heap pointer on, 2 KB at a time. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

__host uint32_t megabytes;
__dma_aligned uint8_t block[2048];

int main(void)
{
    for (uint32_t k = 0; k < sizeof block; k++)
        block[k] = (uint8_t)(k + 1);
    for (uint32_t off = 0; off < (megabytes << 20); off += sizeof block)
        mram_write(block, (__mram_ptr void *)((uintptr_t)DPU_MRAM_HEAP_POINTER + off), sizeof block);
    return 0;
}
