/* SPDX-License-Identifier: MIT */
/* The loops the emulation-speed benchmark times twice: natively on the host
 * and inside an emulated DPU.  Compute-bound: integer mixing with a serial
 * dependency (multiplies, shifts, adds).  DMA-bound: stream a buffer in 2 KB
 * blocks and fold it (MRAM reads on the DPU, memcpy natively).  Call-bound: a
 * small function that is not inlined and has a local array (a DPU frame: the
 * stack accounting runs at each call). */
#ifndef BENCH_KERNELS_H
#define BENCH_KERNELS_H

#include <stdint.h>

static inline uint32_t compute_kernel(uint32_t seed, uint32_t iterations)
{
    uint32_t x = seed | 1, acc = 0;
    for (uint32_t i = 0; i < iterations; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        acc += (x & 0xffff) * (i & 0xff) + (acc >> 3);
    }
    return acc ^ x;
}

static __attribute__((noinline)) uint32_t call_step(uint32_t x, uint32_t i)
{
    volatile uint32_t t[4];
    t[i & 3] = x ^ i;
    return t[i & 3] * 3 + (x >> 7);
}

static inline uint32_t call_kernel(uint32_t seed, uint32_t iterations)
{
    uint32_t x = seed;
    for (uint32_t i = 0; i < iterations; i++)
        x = call_step(x, i);
    return x;
}

#define DMA_BLOCK 2048u

static inline uint64_t fold_block(const uint64_t *b, uint64_t acc)
{
    for (uint32_t k = 0; k < DMA_BLOCK / 8; k++)
        acc = (acc ^ b[k]) + (acc << 1);
    return acc;
}

#endif
