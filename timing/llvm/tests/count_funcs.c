/* SPDX-License-Identifier: MIT */
/* Functions compiled WITH the OpenPIMCount plugin
 * (clang-14 -O2 -fno-vectorize -fno-slp-vectorize -fpass-plugin=...).
 * test_main.c (compiled without it) calls them and checks __op_icount.
 * The expected counts, derived by hand from the rules in OpenPIMCount.cpp and
 * the values in op_costs.def, are written next to each check in test_main.c. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

/* ---- straight-line code ---- */
NOINLINE uint32_t t_straight(uint32_t a, uint32_t b, uint32_t c) { return ((a + b) ^ (c << 3)) - (a & c); }
NOINLINE uint64_t t_add64(uint64_t a, uint64_t b, uint64_t c) { return (a + b) ^ (c >> 7); }
NOINLINE int t_sel(int c, int a, int b) { return c ? a : b; }
/* carry outs of 32-bit adds used as values (compares used as values), and a
 * compare that is no carry */
NOINLINE uint32_t t_carry(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t s = a + b, c1 = s < a;
    uint32_t t = s + c, c2 = t < c;
    return t + (c1 << 16) + c2 + (a < c);
}

/* compares used as values: zext free (the compare sets its register to 0/1),
 * c ? 2^k : 0 one lsl, sext one negation */
NOINLINE uint32_t t_cmp_value(uint32_t a, uint32_t b, uint32_t c) { return (a < b) + ((a == c) << 3); }
NOINLINE uint32_t t_cmp_shift_add(uint32_t a, uint32_t b, uint32_t c) { return c + ((a < b) << 4); }
NOINLINE int32_t t_cmp_sext(int32_t a, int32_t b, int32_t c) { return (-(a < b)) ^ c; }

/* shift + add fused into lsl_add / lsl_sub / lsr_add, and the shapes that are not */
NOINLINE uint32_t t_fuse_add(uint32_t a, uint32_t b) { return a + (b << 3); }
NOINLINE uint32_t t_fuse_sub(uint32_t a, uint32_t b) { return a - (b << 2); }
NOINLINE uint32_t t_fuse_lsr(uint32_t a, uint32_t b) { return a + (b >> 5); }
NOINLINE uint32_t t_fuse_two(uint32_t a, uint32_t b) { return (a << 2) + (b << 3); }
NOINLINE uint8_t t_fuse_gep(const uint8_t *p, size_t i) { return p[i << 2]; }
NOINLINE uint32_t t_nofuse_minuend(uint32_t a, uint32_t b) { return (b << 2) - a; }
NOINLINE uint32_t t_nofuse_multi(uint32_t a, uint32_t b)
{
    uint32_t s = b << 3;
    return (a + s) ^ s;
}
NOINLINE uint32_t t_nofuse_var(uint32_t a, uint32_t b, uint32_t c) { return a + (b << c); }
NOINLINE uint64_t t_nofuse_64(uint64_t a, uint64_t b) { return a + (b << 3); }
NOINLINE uint32_t t_nofuse_lsr_sub(uint32_t a, uint32_t b) { return a - (b >> 5); }
NOINLINE int32_t t_nofuse_asr(int32_t a, int32_t b) { return a + (b >> 5); }
NOINLINE uint32_t t_nofuse_const(uint32_t a) { return (a << 3) + 100u; }
NOINLINE uint32_t t_nofuse_gep4(const uint32_t *p, size_t i) { return p[i << 2]; }

/* masks of loaded words (an lbu/lhu when the word has no other use), a word
 * used twice, and a mask that is no byte/half */
NOINLINE uint32_t t_mask_load(const uint32_t *p) { return (p[0] & 0xffu) + (p[1] & 0xffffu); }
NOINLINE uint32_t t_mask_twice(const uint32_t *p) { return (p[0] & 0xffu) + (p[0] >> 8); }
NOINLINE uint32_t t_mask_wide(const uint32_t *p) { return p[0] & 0xfffu; }

/* ---- loops ---- */
NOINLINE uint32_t t_loop100(const uint32_t *a)
{
    uint32_t s = 0;
#pragma clang loop unroll(disable)
    for (int i = 0; i < 100; i++)
        s += a[i] ^ (uint32_t)i;
    return s;
}

NOINLINE uint32_t t_loop_n(const uint32_t *a, int n)
{
    uint32_t s = 0;
#pragma clang loop unroll(disable)
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}

/* data-dependent multiplies inside a loop (counter promoted to a register) */
NOINLINE uint32_t t_loop_mul(const uint32_t *a, int n)
{
    uint32_t s = 0;
#pragma clang loop unroll(disable)
    for (int i = 0; i < n; i++)
        s += a[i] * a[i + 1];
    return s;
}

/* ---- 32-bit multiply ---- */
NOINLINE uint32_t t_mul(uint32_t a, uint32_t b) { return a * b; }
NOINLINE uint32_t t_mul10(uint32_t a) { return a * 10u; }
NOINLINE uint32_t t_mul_golden(uint32_t a) { return a * 0x9E3779B1u; }
NOINLINE uint32_t t_mul8(uint8_t a, uint8_t b) { return (uint32_t)a * b; }
NOINLINE uint64_t t_mul64(uint64_t a, uint64_t b) { return a * b; }
NOINLINE uint32_t t_mul3_neg(uint32_t a) { return a * (uint32_t)-3; }
/* two multiplies, an unsigned and a signed division in one segment */
NOINLINE uint32_t t_muldiv_mix(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    return a * b + c * d + a / c + (uint32_t)((int32_t)b % (int32_t)d);
}
NOINLINE uint64_t t_mul64_10(uint64_t a) { return a * 10u; }
/* multiplies by constants as UPMEM's backend lowers them (group method) */
NOINLINE uint32_t t_neg_shl8(uint32_t a) { return -(a << 8); } /* clang: mul a, -256 */
NOINLINE uint32_t t_mul1000(uint32_t a) { return a * 1000u; }
NOINLINE uint32_t t_mul_0x7f0(uint32_t a) { return a * 0x7F0u; }
NOINLINE uint32_t t_mul_0x5555(uint32_t a) { return a * 0x5555u; }
NOINLINE uint32_t t_mul_0x15555(uint32_t a) { return a * 0x15555u; }
/* narrow products: the DPU's byte multiplies */
NOINLINE uint32_t t_mul16(uint16_t a, uint16_t b) { return (uint32_t)a * b; }
NOINLINE int32_t t_mul16s(int16_t a, int16_t b) { return (int32_t)a * b; }
NOINLINE int32_t t_mul8s(int8_t a, int8_t b) { return (int32_t)a * b; }
NOINLINE uint32_t t_mul16_mask(uint32_t a, uint32_t b) { return (a & 0xffffu) * (b >> 16); }
/* byte operands that the multiply selects itself (mul_ul_ul, mul_uh_ul, ...) */
NOINLINE uint32_t t_bsel_b0(uint32_t a, uint32_t b) { return (a & 0xffu) * (b & 0xffu); }
NOINLINE uint32_t t_bsel_b1(uint32_t a, uint32_t b) { return ((a >> 8) & 0xffu) * (b & 0xffu); }
NOINLINE uint32_t t_bsel_b1m(uint32_t a, uint32_t b) { return ((a & 0xff00u) >> 8) * ((b >> 8) & 0xffu); }
NOINLINE uint32_t t_bsel_b1h(uint32_t a, uint32_t b)
{
    uint32_t p = (a & 0xffu) * (b & 0xffu); /* known to fit 16 bits */
    return (p >> 8) * (b & 0xffu) + p;
}
NOINLINE uint32_t t_bsel_b2(uint32_t a, uint32_t b) { return ((a >> 16) & 0xffu) * (b & 0xffu); }
NOINLINE uint32_t t_bsel_b3(uint32_t a, uint32_t b) { return (a >> 24) * ((b >> 8) & 0xffu); }
NOINLINE uint32_t t_bsel_used(uint32_t a, uint32_t b)
{
    uint32_t m = a & 0xffu;
    return m * (b & 0xffu) + m;
}
NOINLINE uint32_t t_bsel_half(uint32_t a, uint32_t b) { return (a & 0xffffu) * (b & 0xffffu); }
NOINLINE uint32_t t_bsel_8x16(uint32_t a, uint32_t b) { return (a & 0xffu) * (b & 0xffffu); }
NOINLINE uint32_t t_bsel_const(uint32_t a) { return (a & 0xffu) * 10u; }
NOINLINE int32_t t_bsel_signed(uint32_t a, uint32_t b) { return (int32_t)(int8_t)a * (int8_t)(b >> 8); }
NOINLINE int32_t t_bsel_signed16(uint32_t a, uint32_t b) { return (int32_t)(int16_t)a * (int16_t)b; }
/* low 16 bits of a 16x16 product from 3 byte products and 2 lsl_add */
NOINLINE uint32_t t_bsel_mul16lo(uint32_t a, uint32_t b)
{
    uint32_t a0 = a & 0xffu, a1 = (a >> 8) & 0xffu, b0 = b & 0xffu, b1 = (b >> 8) & 0xffu;
    uint32_t p00 = a0 * b0, p10 = a1 * b0, p01 = a0 * b1;
    __asm__("" : "+r"(p10));
    __asm__("" : "+r"(p01));
    return p00 + (p10 << 8) + (p01 << 8);
}
/* an empty asm statement (optimisation barrier) emits no instruction */
NOINLINE uint32_t t_asm_barrier(uint32_t a)
{
    __asm__("" : "+r"(a));
    return a + 1;
}

/* ---- division ---- */
NOINLINE uint32_t t_udiv(uint32_t a, uint32_t b) { return a / b; }
NOINLINE uint32_t t_urem(uint32_t a, uint32_t b) { return a % b; }
NOINLINE int32_t t_sdiv(int32_t a, int32_t b) { return a / b; }
NOINLINE int32_t t_srem(int32_t a, int32_t b) { return a % b; }
NOINLINE uint32_t t_udiv10(uint32_t a) { return a / 10u; }
NOINLINE int32_t t_sdiv8(int32_t a) { return a / 8; }
NOINLINE uint8_t t_udiv8(uint8_t a, uint8_t b) { return (uint8_t)(a / b); }
NOINLINE uint64_t t_udiv64(uint64_t a, uint64_t b) { return a / b; }
NOINLINE uint64_t t_urem64(uint64_t a, uint64_t b) { return a % b; }
NOINLINE int64_t t_sdiv64(int64_t a, int64_t b) { return a / b; }
NOINLINE int64_t t_srem64(int64_t a, int64_t b) { return a % b; }

/* ---- calls: segments end at each call ---- */
extern void probe(void); /* defined in the (uninstrumented) harness: records __op_icount */
NOINLINE int t_callee(int x) { return x + 1; }
NOINLINE int t_caller(int x) { return t_callee(x) + t_callee(x + 3); }
NOINLINE uint32_t t_probe(uint32_t a, uint32_t b)
{
    uint32_t x = a ^ b;
    probe();
    x = (x << 1) + a;
    probe();
    return x - b;
}

/* SDK mutex calls are inline instructions on the DPU: no call, no frame (the
 * runtime charges rt_mutex_*); the harness defines them as probes */
extern void mutex_lock(unsigned char *m);
extern void mutex_unlock(unsigned char *m);
NOINLINE uint32_t t_mutex(unsigned char *m, uint32_t x)
{
    mutex_lock(m);
    x ^= 5;
    mutex_unlock(m);
    return x;
}

/* ---- memcpy / memset ---- */
NOINLINE void t_memcpy64(void *d, const void *s) { memcpy(d, s, 64); }
NOINLINE void t_memset64(void *d) { memset(d, 0, 64); }
NOINLINE void t_memcpy_n(void *d, const void *s, size_t n) { memcpy(d, s, n); }

/* ---- soft-float ---- */
NOINLINE float t_fadd(float a, float b) { return a + b; }
NOINLINE float t_fmul(float a, float b) { return a * b; }
NOINLINE float t_fdiv(float a, float b) { return a / b; }
NOINLINE double t_dadd(double a, double b) { return a + b; }
NOINLINE double t_dmul(double a, double b) { return a * b; }
NOINLINE double t_ddiv(double a, double b) { return a / b; }
NOINLINE int t_f2i(float f) { return (int)f; }
NOINLINE int t_flt(float a, float b) { return a < b; }
/* per iteration: one double compare, one double add, one int->double conversion */
NOINLINE double t_dlt_mix(double a, double b, int n)
{
    double s = 0;
#pragma clang loop unroll(disable)
    for (int i = 0; i < n; i++) {
        double x = (double)i;
        s += x < b ? x : a;
    }
    return s;
}

/* ---- direct MRAM accesses (__mram_ptr = address space 256, GS-based) ---- */
#define MRAM_PTR __attribute__((address_space(256)))
NOINLINE uint32_t t_mram_load(const MRAM_PTR uint32_t *p) { return *p; }
NOINLINE void t_mram_store(MRAM_PTR uint32_t *p, uint32_t v) { *p = v + 1; }
