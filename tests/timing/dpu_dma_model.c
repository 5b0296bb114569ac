/* SPDX-License-Identifier: MIT */
/* DMA-bound kernel for test_dma_model: C = A + B over `words` 32-bit words
 * of MRAM in chunks of `chunk` bytes (at most CHUNK_MAX) split across the tasklets, with `work`
 * extra rounds per word (from DMA-bound to compute-bound). */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

/* the largest chunk that fits WRAM next to the stacks */
#define CHUNK_MAX (NR_TASKLETS <= 4 ? 2048 : NR_TASKLETS <= 16 ? 1024 : 512)

__host uint32_t words, chunk, work;
__dma_aligned uint32_t a[NR_TASKLETS][CHUNK_MAX / 4], b[NR_TASKLETS][CHUNK_MAX / 4];

int main(void)
{
    if (chunk > CHUNK_MAX)
        chunk = CHUNK_MAX;
    uint32_t t = me(), n = chunk / 4;
    uintptr_t base = (uintptr_t)DPU_MRAM_HEAP_POINTER, bytes = words * 4;
    for (uint32_t off = t * chunk; off < bytes; off += NR_TASKLETS * chunk) {
        mram_read((__mram_ptr void *)(base + off), a[t], chunk);
        mram_read((__mram_ptr void *)(base + bytes + off), b[t], chunk);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t v = a[t][k] + b[t][k];
            for (uint32_t r = 0; r < work; r++)
                v = v ^ (v >> 3);
            a[t][k] = v;
        }
        mram_write(a[t], (__mram_ptr void *)(base + 2 * bytes + off), chunk);
    }
    return 0;
}
