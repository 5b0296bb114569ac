/* SPDX-License-Identifier: MIT */
/* A tenant's DPU program: adds `step` to each of the `n` words of `data` in
 * MRAM and sums them; counts its launches in WRAM and MRAM.  What a tenant
 * leaves in a rank, and what the reset on release must clear. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#define WORDS 2048
#define BLOCK 64

__host uint32_t step;
__host uint32_t n;
__host uint64_t sum;
__host uint64_t wram_count;
__mram_noinit uint64_t mram_count;
__mram_noinit uint32_t data[WORDS];

int main(void)
{
    __dma_aligned uint32_t buf[BLOCK];
    uint64_t s = 0;
    uint32_t words = n < WORDS ? n : WORDS;
    for (uint32_t i = 0; i < words; i += BLOCK) {
        mram_read(&data[i], buf, sizeof buf);
        for (uint32_t k = 0; k < BLOCK && i + k < words; k++) {
            buf[k] += step;
            s += buf[k];
        }
        mram_write(buf, &data[i], sizeof buf);
    }
    sum = s;
    wram_count += step;
    mram_count += step;
    return 0;
}
