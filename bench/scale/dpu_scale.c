/* SPDX-License-Identifier: MIT */
/* Kernels for the scale benchmark: compute-bound with cheap ALU operations
 * (mode 0) or 32-bit multiplies (mode 2, a software routine on the DPU), and
 * a vector add over MRAM (mode 1: C = A + B, 1 KB DMAs), split across the
 * tasklets. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

__host uint32_t mode, iterations, bytes; /* bytes of each of A, B, C per DPU */
__host uint32_t out[NR_TASKLETS];
__dma_aligned uint32_t a[NR_TASKLETS][256], b[NR_TASKLETS][256];

int main(void)
{
    uint32_t t = me(), acc = t;
    if (mode == 0) {
        for (uint32_t i = 0; i < iterations; i++) {
            acc ^= acc << 13;
            acc ^= acc >> 17;
            acc += i * 3;
        }
    } else if (mode == 2) {
        for (uint32_t i = 0; i < iterations; i++)
            acc = acc * (i | 0x10001u) + (acc >> 7);
    } else {
        uintptr_t base = (uintptr_t)DPU_MRAM_HEAP_POINTER;
        for (uint32_t off = t * 1024; off < bytes; off += NR_TASKLETS * 1024) {
            mram_read((__mram_ptr void *)(base + off), a[t], 1024);
            mram_read((__mram_ptr void *)(base + bytes + off), b[t], 1024);
            for (uint32_t k = 0; k < 256; k++)
                a[t][k] += b[t][k];
            mram_write(a[t], (__mram_ptr void *)(base + 2 * bytes + off), 1024);
        }
        acc = a[t][0];
    }
    out[t] = acc;
    return 0;
}
