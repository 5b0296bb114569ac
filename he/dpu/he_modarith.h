/* SPDX-License-Identifier: MIT */
/* Modular arithmetic for one RNS modulus on the DPU: up to 30 bits, or up to
 * 32 bits with HE_WIDE (the *_wide images, below).
 *
 * The DPU's only hardware multiplier is 8x8 -> 16 bits; wider products are
 * software.  Two compile-time variants (DRAMatic section 3.1.1):
 *   HE_MUL_CUSTOM  32x32 -> 64 from four 16x16 products, 32x32 -> 32 from
 *                  one and the low 16 bits of two more (he_mul16lo: three
 *                  byte products each; the high one is not needed).  A 16x16 product is
 *                  written (uint32_t)(uint16_t)a * (uint16_t)b, which UPMEM's
 *                  compiler turns into its fixed sequence of byte-selecting
 *                  multiplies (mul_ul_ul, mul_uh_ul twice, mul_uh_uh, three
 *                  lsl_add: 7 instructions, 1 when both factors fit a byte)
 *                  instead of the data-dependent __mulsi3 call.  The partial
 *                  products are combined in 32-bit halves and the 64-bit
 *                  product stays a (low, high) pair through the reduction:
 *                  UPMEM's compiler keeps a uint64_t in a register pair and
 *                  builds one from two words with a move per word and an or
 *                  per word, shifts it by 16 with three instructions
 *                  (lslx, lsl_add, lsl), so 64-bit C costs about twice the
 *                  32-bit carry chain written here (its 32-bit add-with-carry
 *                  is not selected from C: ADDC/ADDE/UADDO are expanded, a
 *                  carry out is a compare that sets a register).
 *   HE_MUL_NATIVE  what the compiler emits for `a * b`: a 64-bit multiply
 *                  (__muldi3) and the data-dependent 32-bit one (__mulsi3).
 * HE_MUL_METHOD (custom variant only; benchmarks only, bench/he/whatif.sh):
 * DRAMatic's own Figure 10 method (section 5.1), which swaps its multiply
 * routines rather than the hardware:
 *   custom_inline  the default (unset): the custom routines, inlined
 *   custom_call    the same routines out of line, a call each, as DRAMatic
 *                  calls its assembly routines (3 calls per modular multiply)
 *   dummy_call     its "9-10x faster" dummies, out of line: 32x32 -> 32 is
 *                  (a + b) xor 0x12345678, 32x32 -> 64 is a 2^20 + b
 *   dummy_inline   its one-cycle dummies, inlined "to prevent function call
 *                  overhead": a + b and (a + b) 2^32 + a
 * The dummies compute wrong products on purpose: their images are named
 * he_dpu_dummy_*, which the library never loads by itself.
 * Reduction is Barrett's (HAC 14.42 with base 2): for q of b bits,
 * mu = floor(2^(2b) / q); for x < q^2 the estimate leaves r < 3q, which fits a
 * word because q < 2^30, and two conditional subtractions finish.
 * HE_WIDE (moduli of 31 and 32 bits, DRAMatic's): r < 3q no longer fits a
 * word, nor do x >> (b - 1) and mu.  The estimate is floor(x / 2^b) (< 2^b)
 * times mu' = mu - 2^b (< 2^b; mu's word modulo 2^b, as he_mod_make takes
 * it), the 2^b part added back as the estimate itself: qhat = t +
 * floor(t mu' / 2^b) <= floor(x / q), at most 3 below it (t > x/2^b - 1,
 * mu > 2^(2b)/q - 1, x < q^2 < 2^(2b), 2^b < 2q); r = x - qhat q is then
 * computed on two words (the full product) and up to three subtractions
 * finish.  Additions compare against q - b instead of forming a + b, which
 * can pass 2^32. */
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

#define HE_MUL_METHOD_custom_inline 1
#define HE_MUL_METHOD_custom_call 2
#define HE_MUL_METHOD_dummy_call 3
#define HE_MUL_METHOD_dummy_inline 4
#ifndef HE_MUL_METHOD
#define HE_MUL_METHOD custom_inline
#endif
#define HE_MUL_METHOD_ID_(m) HE_MUL_METHOD_##m
#define HE_MUL_METHOD_ID(m) HE_MUL_METHOD_ID_(m)
#if HE_MUL_METHOD_ID(HE_MUL_METHOD) == 0
#error "HE_MUL_METHOD: one of custom_inline, custom_call, dummy_call, dummy_inline"
#endif
#define HE_MUL_IS(m) (HE_MUL_METHOD_ID(HE_MUL_METHOD) == HE_MUL_METHOD_##m)
#if !HE_MUL_IS(custom_inline) && !defined(HE_MUL_CUSTOM)
#error "HE_MUL_METHOD swaps the custom routines: it needs HE_MUL_CUSTOM"
#endif
/* The two product routines: out of line for the *_call methods (inline keeps
 * -Wunused-function quiet in the files that do not multiply). */
#if HE_MUL_IS(custom_call) || HE_MUL_IS(dummy_call)
#define HE_MUL_ROUTINE static inline __attribute__((noinline))
#else
#define HE_MUL_ROUTINE HE_INLINE
#endif

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

/* The low 16 bits of (a mod 2^16)(b mod 2^16) (the bits above are not the
 * product's): a0 b0 + (a1 b0 + a0 b1) 2^8 with ai, bi the bytes 0 and 1,
 * which UPMEM's byte multiplies select themselves (mul_ul_ul, mul_uh_ul,
 * mul_ul_uh): 3 byte products and 2 lsl_add, where the 16x16 sequence of
 * he_mul16 takes 4 and 3 (the high product a1 b1 only reaches bit 16).
 * Opaque partial products: else clang folds the shifts into the factors. */
HE_INLINE uint32_t he_mul16lo(uint32_t a, uint32_t b)
{
    uint32_t a0 = a & 0xff, a1 = (a >> 8) & 0xff, b0 = b & 0xff, b1 = (b >> 8) & 0xff;
    uint32_t p10 = a1 * b0, p01 = a0 * b1;
    HE_OPAQUE(p10);
    HE_OPAQUE(p01);
    uint32_t p = a0 * b0 + (p10 << 8) + (p01 << 8);
    HE_OPAQUE(p);
    return p;
}

#if HE_MUL_IS(dummy_call)
/* DRAMatic's 9-10x dummies (not products): a 2^20 + b, low word returned */
HE_MUL_ROUTINE uint32_t he_mul32x32(uint32_t a, uint32_t b, uint32_t *hi)
{
    uint32_t lo = (a << 20) + b;
    *hi = (a >> 12) + (lo < b);
    return lo;
}

HE_MUL_ROUTINE uint32_t he_mul32to32(uint32_t a, uint32_t b)
{
    return (a + b) ^ 0x12345678u;
}
#elif HE_MUL_IS(dummy_inline)
/* DRAMatic's one-cycle dummies (not products): (a + b) 2^32 + a and a + b */
HE_MUL_ROUTINE uint32_t he_mul32x32(uint32_t a, uint32_t b, uint32_t *hi)
{
    *hi = a + b;
    return a;
}

HE_MUL_ROUTINE uint32_t he_mul32to32(uint32_t a, uint32_t b)
{
    return a + b;
}
#else
/* 32x32 -> 64: returns the low word, *hi the high one.  With
 * mid = p01 + p10 (33 bits: c1 is its carry out),
 * a b = p11 2^32 + mid 2^16 + p00, so the low word is p00 + (mid << 16) (c2
 * its carry out) and the high word p11 + (mid >> 16) + c1 2^16 + c2. */
HE_MUL_ROUTINE uint32_t he_mul32x32(uint32_t a, uint32_t b, uint32_t *hi)
{
    uint32_t a0 = a & 0xffff, a1 = a >> 16, b0 = b & 0xffff, b1 = b >> 16;
    uint32_t p01 = he_mul16(a0, b1), mid = p01 + he_mul16(a1, b0);
    uint32_t c1 = mid < p01;
    uint32_t p00 = he_mul16(a0, b0), lo = p00 + (mid << 16);
    uint32_t c2 = lo < p00;
    *hi = he_mul16(a1, b1) + (mid >> 16) + (c1 << 16) + c2;
    return lo;
}

/* The low word: the high product only reaches bits >= 32, and the cross
 * products only bits >= 16, so only their low 16 bits count (he_mul16lo).
 * The halves a >> 16, b >> 16 are registers (one lsr each) whose bytes 0
 * and 1 the byte multiplies read; HE_OPAQUE keeps clang from writing their
 * byte 1 as a >> 24 (a second shift). */
HE_MUL_ROUTINE uint32_t he_mul32to32(uint32_t a, uint32_t b)
{
    uint32_t a1 = a >> 16, b1 = b >> 16;
    HE_OPAQUE(a1);
    HE_OPAQUE(b1);
    return he_mul16(a, b) + ((he_mul16lo(a, b1) + he_mul16lo(a1, b)) << 16);
}
#endif

HE_INLINE uint64_t he_mul32to64(uint32_t a, uint32_t b)
{
    uint32_t hi, lo = he_mul32x32(a, b, &hi);
    return (uint64_t)hi << 32 | lo;
}
#else
HE_INLINE uint64_t he_mul32to64(uint32_t a, uint32_t b)
{
    return (uint64_t)a * b;
}

HE_INLINE uint32_t he_mul32x32(uint32_t a, uint32_t b, uint32_t *hi)
{
    uint64_t x = (uint64_t)a * b;
    *hi = (uint32_t)(x >> 32);
    return (uint32_t)x;
}

HE_INLINE uint32_t he_mul32to32(uint32_t a, uint32_t b)
{
    return a * b;
}
#endif

/* The modulus as a kernel uses it, from the host's words (he_abi.h:
 * barrett_mu = floor(2^(2b) / q) modulo 2^32); HE_WIDE keeps mu' = mu - 2^b.
 * A macro: the 30-bit kernels compile exactly as with a plain initialiser. */
#ifdef HE_WIDE
#define he_mod_make(q, bits, mu_word) ((struct he_mod){(q), (bits), (mu_word) - (uint32_t)(1ull << (bits))})
#else
#define he_mod_make(q, bits, mu_word) ((struct he_mod){(q), (bits), (mu_word)})
#endif

#ifdef HE_WIDE
/* x = hi 2^32 + lo < q^2, q of b <= 32 bits  ->  x mod q (see the header
 * comment).  The shifts by b are written as two, so that no shift reaches 32. */
HE_INLINE uint32_t he_reduce2(uint32_t lo, uint32_t hi, struct he_mod m)
{
    const uint32_t up = 32 - m.bits;
    uint32_t t = (lo >> (m.bits - 1) >> 1) | (hi << up);                    /* floor(x / 2^b) < 2^b */
    uint32_t phi, plo = he_mul32x32(t, m.mu, &phi);
    uint32_t qhat = t + ((plo >> (m.bits - 1) >> 1) | (phi << up));         /* floor(x/q) - {0..3} */
    uint32_t qh, ql = he_mul32x32(qhat, m.q, &qh);
    uint32_t rlo = lo - ql, rhi = hi - qh - (lo < ql);                      /* r < 4q < 2^34 */
    for (int i = 0; i < 3; i++)
        if (rhi || rlo >= m.q) {
            rhi -= rlo < m.q;
            rlo -= m.q;
        }
    return rlo;
}

HE_INLINE uint32_t he_reduce(uint64_t x, struct he_mod m)
{
    return he_reduce2((uint32_t)x, (uint32_t)(x >> 32), m);
}

HE_INLINE uint32_t he_mulmod(uint32_t a, uint32_t b, struct he_mod m)
{
    uint32_t hi, lo = he_mul32x32(a, b, &hi);
    return he_reduce2(lo, hi, m);
}

HE_INLINE uint32_t he_addmod(uint32_t a, uint32_t b, struct he_mod m)
{
    uint32_t t = m.q - b; /* a + b >= q  <=>  a >= q - b; a + b may pass 2^32 */
    return a >= t ? a - t : a + b;
}
#else
/* Barrett's last step, for both multiply variants: x - qhat q < 3q < 2^32
 * from the low words alone, then at most two subtractions of q. */
HE_INLINE uint32_t he_barrett_finish(uint32_t xlo, uint32_t qq, struct he_mod m)
{
    uint32_t r = xlo - qq;
    r = r >= m.q ? r - m.q : r;
    return r >= m.q ? r - m.q : r;
}

#ifdef HE_MUL_CUSTOM
/* x = hi 2^32 + lo < q^2  ->  x mod q, on the halves (see he_reduce).  For
 * 1 <= s <= 31 the low word of x >> s is (lo >> s) | (hi << (32 - s)); here
 * s = b - 1 and b + 1, 2 <= b <= 30 (OPENPIM_HE_MAX_MODULUS_BITS). */
HE_INLINE uint32_t he_reduce2(uint32_t lo, uint32_t hi, struct he_mod m)
{
    uint32_t t = lo >> (m.bits - 1) | hi << (33 - m.bits);                  /* < 2^(b+1) */
    uint32_t phi, plo = he_mul32x32(t, m.mu, &phi);
    uint32_t qhat = plo >> (m.bits + 1) | phi << (31 - m.bits);             /* floor(x/q) - {0,1,2} */
    uint32_t qq = he_mul32to32(qhat, m.q);
    /* else clang folds the negation into the partial products' shifts, as
     * multiplies by -256, which the DPU would not do with a shift */
    HE_OPAQUE(qq);
    return he_barrett_finish(lo, qq, m);
}

/* x < q^2  ->  x mod q */
HE_INLINE uint32_t he_reduce(uint64_t x, struct he_mod m)
{
    return he_reduce2((uint32_t)x, (uint32_t)(x >> 32), m);
}

HE_INLINE uint32_t he_mulmod(uint32_t a, uint32_t b, struct he_mod m)
{
    uint32_t hi, lo = he_mul32x32(a, b, &hi);
    return he_reduce2(lo, hi, m);
}
#else
/* x < q^2  ->  x mod q */
HE_INLINE uint32_t he_reduce(uint64_t x, struct he_mod m)
{
    uint32_t t = (uint32_t)(x >> (m.bits - 1));                            /* < 2^(b+1) */
    uint32_t qhat = (uint32_t)(he_mul32to64(t, m.mu) >> (m.bits + 1));    /* floor(x/q) - {0,1,2} */
    return he_barrett_finish((uint32_t)x, he_mul32to32(qhat, m.q), m);
}

HE_INLINE uint32_t he_mulmod(uint32_t a, uint32_t b, struct he_mod m)
{
    return he_reduce(he_mul32to64(a, b), m);
}
#endif

HE_INLINE uint32_t he_addmod(uint32_t a, uint32_t b, struct he_mod m)
{
    uint32_t s = a + b; /* < 2q < 2^31 */
    return s >= m.q ? s - m.q : s;
}
#endif /* HE_WIDE */

HE_INLINE uint32_t he_submod(uint32_t a, uint32_t b, struct he_mod m)
{
    return a >= b ? a - b : a + m.q - b;
}

#endif
