/* SPDX-License-Identifier: MIT */
/* DPU side of the rank-view test: reads nr_words MRAM words from byte offset
 * in_offset, returns a checksum of them, and writes f(word) for each at byte
 * offset out_offset (f as in test_rank_view.c). */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#define MRAM_ADDR(off) ((__mram_ptr uint64_t *)(uintptr_t)(0x08000000u + (uint32_t)(off)))
#define CHUNK 32

__host uint64_t in_offset, out_offset, nr_words;
__host uint64_t checksum;

__dma_aligned uint64_t buf[CHUNK];

static uint64_t f(uint64_t x)
{
    return ((x << 8) | (x >> 56)) ^ 0x0123456789ABCDEFull;
}

int main(void)
{
    uint64_t sum = 0;
    for (uint64_t w = 0; w < nr_words; w += CHUNK) {
        uint32_t n = nr_words - w < CHUNK ? (uint32_t)(nr_words - w) : CHUNK;
        mram_read(MRAM_ADDR(in_offset + 8 * w), buf, 8 * n);
        for (uint32_t i = 0; i < n; i++) {
            sum = sum * 1000003u + buf[i];
            buf[i] = f(buf[i]);
        }
        mram_write(buf, MRAM_ADDR(out_offset + 8 * w), 8 * n);
    }
    checksum = sum;
    return 0;
}
