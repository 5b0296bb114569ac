/* SPDX-License-Identifier: MIT */
/* Compute-bound kernels for bench.sh, compiled twice: natively (KERNEL_SUFFIX
 * = _native) and with the OpenPIMCount plugin (KERNEL_SUFFIX = _counted). */
#include <stdint.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define NAME(n) CAT(n, KERNEL_SUFFIX)

/* Integer hash (two data-dependent 32-bit multiplies) + xorshift mixing over
 * an array; elements are independent, so the native loop is throughput-bound
 * and the instrumentation cannot hide in latency slack. */
uint32_t NAME(hash_mix)(uint32_t *a, int n, int rounds)
{
    uint32_t acc = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++) {
            uint32_t x = a[i] + (uint32_t)r;
            x ^= x >> 16;
            x *= 0x7feb352du;
            x ^= x >> 15;
            x *= 0x846ca68bu;
            x ^= x >> 16;
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            a[i] = x;
            acc += x;
        }
    }
    return acc;
}

/* Guarded 32-bit division and remainder with data-dependent divisors. */
uint32_t NAME(div_mix)(uint32_t *a, int n, int rounds)
{
    uint32_t acc = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++) {
            uint32_t d = (a[i] & 0xffffu) | 1u;
            uint32_t x = a[i] * 2654435761u + (uint32_t)r;
            acc += x / d + x % (d + (uint32_t)i);
            a[i] = x;
        }
    }
    return acc;
}
