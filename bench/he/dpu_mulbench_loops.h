/* SPDX-License-Identifier: MIT */
/* Loops of the multiply micro-benchmark, compiled once per variant (the
 * including file defines HE_MUL_CUSTOM or HE_MUL_NATIVE and SUFFIX).  Each
 * loop applies one operation `reps` times to operands loaded from WRAM (so
 * the compiler cannot hoist it) and folds the results into a checksum; the
 * host subtracts the same loop with an addition (bench_add). */
#include <stdint.h>

#include "../../he/dpu/he_modarith.h"

#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)

/* The 64-bit product as the kernels use it: the native multiply's uint64_t,
 * the custom one's (low, high) pair (he_modarith.h: a C uint64_t built from
 * two words would add the compiler's moves and ors to the routine). */
uint64_t CAT(bench_mul64, SUFFIX)(const volatile uint32_t *v, uint32_t reps)
{
#ifdef HE_MUL_CUSTOM
    uint32_t acc_lo = 0, acc_hi = 0;
    for (uint32_t i = 0; i < reps; i++) {
        uint32_t hi, lo = he_mul32x32(v[0], v[1], &hi);
        acc_lo ^= lo;
        acc_hi ^= hi;
    }
    return (uint64_t)acc_hi << 32 | acc_lo;
#else
    uint64_t acc = 0;
    for (uint32_t i = 0; i < reps; i++)
        acc ^= he_mul32to64(v[0], v[1]);
    return acc;
#endif
}

uint64_t CAT(bench_mul32, SUFFIX)(const volatile uint32_t *v, uint32_t reps)
{
    uint32_t acc = 0;
    for (uint32_t i = 0; i < reps; i++)
        acc ^= he_mul32to32(v[0], v[1]);
    return acc;
}

uint64_t CAT(bench_mulmod, SUFFIX)(const volatile uint32_t *v, uint32_t reps, struct he_mod m)
{
    uint32_t acc = 0;
    for (uint32_t i = 0; i < reps; i++)
        acc ^= he_mulmod(v[0], v[1], m);
    return acc;
}
