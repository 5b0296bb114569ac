/* SPDX-License-Identifier: MIT */
/* The multiply routines of he/dpu/he_modarith.h, compiled natively: the
 * custom ones (HE_MUL_CUSTOM: he_mul16lo, he_mul32to32 and he_mul32x32)
 * against the C products on all pairs of edge values (0, 1, byte and half
 * boundaries, 2^31, 2^32 - 1, each +-1) and on random operands, and
 * he_mulmod, he_addmod and he_submod against (a op b) mod q: for moduli up
 * to 30 bits, and built with -DHE_WIDE (test_he_modarith_wide, custom and
 * native products) up to 32 bits, the largest 32-bit prime included.  The HE
 * kernels' own tests (test_he.py) check the DPU builds bit-exactly against
 * SEAL and a Python reference. */
#include <stdint.h>
#include <stdio.h>

#include "../../tests/check.h"

#ifndef HE_MUL_NATIVE
#define HE_MUL_CUSTOM 1
#endif
#include "../dpu/he_modarith.h"

static uint64_t state = 88172645463325252ull;
static uint32_t rnd(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (uint32_t)(state >> 11);
}

static unsigned bad;
static void check(uint32_t a, uint32_t b)
{
    uint32_t hi, lo = he_mul32x32(a, b, &hi);
    uint64_t p = (uint64_t)a * b;
#ifdef HE_MUL_CUSTOM
    const int lo16_ok = (he_mul16lo(a, b) & 0xffff) == (((a & 0xffff) * (b & 0xffff)) & 0xffff);
#else
    const int lo16_ok = 1;
#endif
    if (he_mul32to32(a, b) != (uint32_t)p || lo != (uint32_t)p || hi != (uint32_t)(p >> 32) || !lo16_ok) {
        if (bad++ < 10)
            fprintf(stderr, "wrong product of %#x and %#x\n", a, b);
    }
}

int main(void)
{
    static const uint32_t base[] = {0,       1,       2,       0x7f,        0x80,        0xff,        0x100,
                                    0x7fff,  0x8000,  0xffff,  0x10000,     0xff0000,    0x1000000,   0x3fffffff,
                                    0x7fffffff, 0x80000000u, 0xffffffffu, 0xff00ff00u, 0x00ff00ffu, 0x12345678u};
    uint32_t edge[3 * sizeof base / sizeof *base];
    unsigned n = 0;
    for (unsigned i = 0; i < sizeof base / sizeof *base; i++) {
        edge[n++] = base[i];
        edge[n++] = base[i] - 1;
        edge[n++] = base[i] + 1;
    }
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++)
            check(edge[i], edge[j]);
    for (unsigned k = 0; k < 4000000; k++)
        check(rnd(), rnd());
    CHECK_EQ(bad, 0u);

    /* Barrett: x mod q for x < q^2, with mu as the host writes it (floor(2^(2b) / q) mod 2^32) */
    static const uint32_t moduli[] = {1073692673u, 1073643521u, 998244353u, 786433u, 12289u,
#ifdef HE_WIDE
                                      4294967291u, 4293918721u, 3221225473u, 2147483647u,
                                      2147352577u, 1073750017u, 65537u,
#endif
    };
    for (unsigned i = 0; i < sizeof moduli / sizeof *moduli; i++) {
        uint32_t q = moduli[i], bits = 32 - (uint32_t)__builtin_clz(q);
        struct he_mod m = he_mod_make(q, bits, (uint32_t)(((unsigned __int128)1 << (2 * bits)) / q));
        unsigned wrong = 0;
        for (unsigned k = 0; k < 500000; k++) {
            uint32_t a = k < 8 ? (k & 1 ? q - 1 : k & 2 ? q - 2 : 0) : rnd() % q;
            uint32_t b = k < 8 ? (k & 4 ? q - 1 : 1) : rnd() % q;
            wrong += he_mulmod(a, b, m) != (uint32_t)((uint64_t)a * b % q);
            wrong += he_addmod(a, b, m) != (uint32_t)(((uint64_t)a + b) % q);
            wrong += he_submod(a, b, m) != (uint32_t)(((uint64_t)a + q - b) % q);
        }
        if (wrong)
            fprintf(stderr, "q = %u (%u bits): %u wrong\n", q, bits, wrong);
        CHECK_EQ(wrong, 0u);
    }
    return check_done("test_he_modarith");
}
