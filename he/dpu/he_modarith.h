/* Modular arithmetic for one 30-bit RNS modulus on the DPU.
 *
 * The DPU's only hardware multiplier is 8x8 -> 16 bits; wider products are
 * software.  Two compile-time variants (DRAMatic section 3.1.1):
 *   HE_MUL_CUSTOM  32x32 -> 64 from four 16x16 products, 32x32 -> 32 from
 *                  three (the high one is not needed).  A 16x16 product is
 *                  written (uint32_t)(uint16_t)a * (uint16_t)b, which UPMEM's
 *                  compiler turns into its fixed sequence of byte-selecting
 *                  multiplies (mul_ul_ul, mul_uh_ul twice, mul_uh_uh, three
 *                  lsl_add: 7 instructions, 1 when both factors fit a byte)
 *                  instead of the data-dependent __mulsi3 call.
 *   HE_MUL_NATIVE  what the compiler emits for `a * b`: a 64-bit multiply
 *                  (__muldi3) and the data-dependent 32-bit one (__mulsi3).
 * Reduction is Barrett's (HAC 14.42 with base 2): for q of b bits,
 * mu = floor(2^(2b) / q); for x < q^2 the estimate leaves r < 3q, which fits a
 * word because q < 2^30, and two conditional subtractions finish. */
#ifndef OPENPIM_HE_MODARITH_H
#define OPENPIM_HE_MODARITH_H

#include <stdint.h>

#if defined(HE_MUL_CUSTOM) == defined(HE_MUL_NATIVE)
#error "define exactly one of HE_MUL_CUSTOM and HE_MUL_NATIVE"
#endif

struct he_mod {
    uint32_t q, bits, mu;
};

/* Inlined everywhere: a call costs more than the modular operations around
 * it, and inlining lets loops keep the modulus' pieces in registers. */
#define HE_INLINE static inline __attribute__((always_inline))

#ifdef HE_MUL_CUSTOM
/* An empty assembly statement the optimiser cannot see through (it emits no
 * instruction): without it, clang folds shifts and negations of a product
 * into its factors, e.g. (x * y) << 16 into (x << 16) * y, a product of wider
 * factors that the DPU would do with the slow __mulsi3 routine (DRAMatic
 * combines its partial products in hand-written assembly). */
#define HE_OPAQUE(x) __asm__("" : "+r"(x))

/* a, b < 2^16: one 16x16 -> 32 product (the compiler's byte-multiply sequence). */
HE_INLINE uint32_t he_mul16(uint32_t a, uint32_t b)
{
    uint32_t p = (uint32_t)(uint16_t)a * (uint16_t)b;
    HE_OPAQUE(p);
    return p;
}

HE_INLINE uint64_t he_mul32to64(uint32_t a, uint32_t b)
{
    uint32_t a0 = a & 0xffff, a1 = a >> 16, b0 = b & 0xffff, b1 = b >> 16;
    uint64_t mid = (uint64_t)he_mul16(a0, b1) + he_mul16(a1, b0); /* 33 bits */
    return ((uint64_t)he_mul16(a1, b1) << 32) + (mid << 16) + he_mul16(a0, b0);
}

/* The low word: the high product only reaches bits >= 32. */
HE_INLINE uint32_t he_mul32to32(uint32_t a, uint32_t b)
{
    uint32_t a0 = a & 0xffff, a1 = a >> 16, b0 = b & 0xffff, b1 = b >> 16;
    return he_mul16(a0, b0) + ((he_mul16(a0, b1) + he_mul16(a1, b0)) << 16);
}
#else
HE_INLINE uint64_t he_mul32to64(uint32_t a, uint32_t b)
{
    return (uint64_t)a * b;
}

HE_INLINE uint32_t he_mul32to32(uint32_t a, uint32_t b)
{
    return a * b;
}
#endif

/* x < q^2  ->  x mod q */
HE_INLINE uint32_t he_reduce(uint64_t x, struct he_mod m)
{
    uint32_t t = (uint32_t)(x >> (m.bits - 1));                            /* < 2^(b+1) */
    uint32_t qhat = (uint32_t)(he_mul32to64(t, m.mu) >> (m.bits + 1));    /* floor(x/q) - {0,1,2} */
    uint32_t qq = he_mul32to32(qhat, m.q);
#ifdef HE_MUL_CUSTOM
    /* else clang folds the negation into the partial products' shifts, as
     * multiplies by -256, which the DPU would not do with a shift */
    HE_OPAQUE(qq);
#endif
    uint32_t r = (uint32_t)x - qq;                                          /* < 3q < 2^32 */
    r = r >= m.q ? r - m.q : r;
    return r >= m.q ? r - m.q : r;
}

HE_INLINE uint32_t he_mulmod(uint32_t a, uint32_t b, struct he_mod m)
{
    return he_reduce(he_mul32to64(a, b), m);
}

HE_INLINE uint32_t he_addmod(uint32_t a, uint32_t b, struct he_mod m)
{
    uint32_t s = a + b; /* < 2q < 2^31 */
    return s >= m.q ? s - m.q : s;
}

HE_INLINE uint32_t he_submod(uint32_t a, uint32_t b, struct he_mod m)
{
    return a >= b ? a - b : a + m.q - b;
}

#endif
