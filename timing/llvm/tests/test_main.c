/* SPDX-License-Identifier: MIT */
/* Exact-count tests for the OpenPIMCount pass.
 *
 * This harness is compiled WITHOUT the plugin; it defines __op_icount, calls
 * the functions of count_funcs.c / count_o0.c (compiled WITH it) and compares
 * the counter with values derived by hand from the rules of OpenPIMCount.cpp
 * and op_costs.def.  The costs of multiplies, divisions and soft-float are
 * read at run time from the table __op_costs (timing/op_cost_slots.h), which
 * the harness defines and fills with the v1A values of timing/presets/v1A.desc
 * (what the worker writes for the default machine).  Abbreviations in the
 * derivations:
 *   ret = 1 (jump r23); br = 1 (conditional, or an unconditional jump that
 *   does not fall through); icmp feeding the block's br = 0 (fused);
 *   frame = 3 for a function that calls (2 at entry, 1 at ret);
 *   mul32 = MULB + bitlen(min(ua, ub)) (MULB = 8, per_bit 1);
 *   udiv32 = DIVB + max(0, clz(d) - clz(n) + 1) (DIVB = 8, per_step 1);
 *   sdiv32 = DIVB + SDIVX + max(0, clz|d| - clz|n| + 1) (SDIVX = 6).
 * The last part changes table slots at run time and checks that the counts
 * follow without recompiling.
 * x86 keeps int indices and loop counters in i64; they count as 32-bit.
 * No division below may raise SIGFPE. */
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <asm/prctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "op_cost_slots.h"
#include "switch_points.h"

uint64_t __op_icount; /* defined by the DPU runtime in OpenPIM; here by the test */
uint32_t __op_costs[OP_COST_COUNT]; /* likewise; the worker fills it from the machine description */

/* v1A (timing/presets/v1A.desc, op_* keys) */
enum {
    MUL8 = 1, MULB = 8, MULBIT = 1, DIVB = 8, DIVSTEP = 1, SDIVX = 6, MUL64 = 125, DIV64 = 240,
    FADD = 65, FMUL = 178, FDIV = 1025, DADD = 100, DMUL = 655, DDIV = 2185, CONV = 30, FCMP = 20,
    DCMP = 30 /* 1.5 x fp_compare, as op_fill_costs derives it */
};

static void set_v1a_costs(void)
{
    static const uint32_t v1a[OP_COST_COUNT] = {
        [OP_COST_MUL8] = MUL8,
        [OP_COST_INT32_MUL_BASE] = MULB,
        [OP_COST_INT32_MUL_PER_BIT] = MULBIT,
        [OP_COST_INT32_DIV_BASE] = DIVB,
        [OP_COST_INT32_DIV_PER_STEP] = DIVSTEP,
        [OP_COST_INT32_DIV_SIGNED_EXTRA] = SDIVX,
        [OP_COST_INT64_MUL] = MUL64,
        [OP_COST_INT64_DIV] = DIV64,
        [OP_COST_FLOAT_ADD] = FADD,
        [OP_COST_FLOAT_MUL] = FMUL,
        [OP_COST_FLOAT_DIV] = FDIV,
        [OP_COST_DOUBLE_ADD] = DADD,
        [OP_COST_DOUBLE_MUL] = DMUL,
        [OP_COST_DOUBLE_DIV] = DDIV,
        [OP_COST_CONVERSION] = CONV,
        [OP_COST_FP_COMPARE] = FCMP,
        [OP_COST_DOUBLE_COMPARE] = DCMP,
    };
    memcpy(__op_costs, v1a, sizeof v1a);
}

uint32_t t_straight(uint32_t, uint32_t, uint32_t);
uint64_t t_add64(uint64_t, uint64_t, uint64_t);
int t_sel(int, int, int);
uint32_t t_carry(uint32_t, uint32_t, uint32_t);
uint32_t t_mask_load(const uint32_t *);
uint32_t t_cmp_value(uint32_t, uint32_t, uint32_t);
int32_t t_cmp_sext(int32_t, int32_t, int32_t);
uint32_t t_cmp_shift_add(uint32_t, uint32_t, uint32_t);
uint32_t t_fuse_add(uint32_t, uint32_t);
uint32_t t_fuse_sub(uint32_t, uint32_t);
uint32_t t_fuse_lsr(uint32_t, uint32_t);
uint32_t t_fuse_two(uint32_t, uint32_t);
uint8_t t_fuse_gep(const uint8_t *, size_t);
uint32_t t_nofuse_minuend(uint32_t, uint32_t);
uint32_t t_nofuse_multi(uint32_t, uint32_t);
uint32_t t_nofuse_var(uint32_t, uint32_t, uint32_t);
uint64_t t_nofuse_64(uint64_t, uint64_t);
uint32_t t_nofuse_lsr_sub(uint32_t, uint32_t);
int32_t t_nofuse_asr(int32_t, int32_t);
uint32_t t_nofuse_const(uint32_t);
uint32_t t_nofuse_gep4(const uint32_t *, size_t);
uint32_t t_mask_twice(const uint32_t *);
uint32_t t_mask_wide(const uint32_t *);
uint32_t t_loop100(const uint32_t *);
uint32_t t_loop_n(const uint32_t *, int);
uint32_t t_loop_mul(const uint32_t *, int);
uint32_t t_mul(uint32_t, uint32_t);
uint32_t t_mul10(uint32_t);
uint32_t t_mul_golden(uint32_t);
uint32_t t_mul8(uint8_t, uint8_t);
uint64_t t_mul64(uint64_t, uint64_t);
uint32_t t_udiv(uint32_t, uint32_t);
uint32_t t_urem(uint32_t, uint32_t);
int32_t t_sdiv(int32_t, int32_t);
int32_t t_srem(int32_t, int32_t);
uint32_t t_udiv10(uint32_t);
int32_t t_sdiv8(int32_t);
uint8_t t_udiv8(uint8_t, uint8_t);
uint64_t t_udiv64(uint64_t, uint64_t);
uint64_t t_urem64(uint64_t, uint64_t);
int64_t t_sdiv64(int64_t, int64_t);
int64_t t_srem64(int64_t, int64_t);
int t_caller(int);
uint32_t t_probe(uint32_t, uint32_t);
void t_memcpy64(void *, const void *);
void t_memset64(void *);
void t_memcpy_n(void *, const void *, size_t);
float t_fadd(float, float);
float t_fmul(float, float);
float t_fdiv(float, float);
double t_dadd(double, double);
double t_dmul(double, double);
double t_ddiv(double, double);
int t_f2i(float);
int t_flt(float, float);
int t_o0_add(int, int);
unsigned t_o0_byte(const unsigned *);
#define MRAM_PTR __attribute__((address_space(256)))
uint32_t t_mram_load(const MRAM_PTR uint32_t *);
void t_mram_store(MRAM_PTR uint32_t *, uint32_t);
int t_o0_div(int, int);
double t_dlt_mix(double, double, int);
uint32_t t_mul3_neg(uint32_t);
uint32_t t_muldiv_mix(uint32_t, uint32_t, uint32_t, uint32_t);
uint64_t t_mul64_10(uint64_t);
uint32_t t_neg_shl8(uint32_t);
uint32_t t_mul1000(uint32_t);
uint32_t t_mul_0x7f0(uint32_t);
uint32_t t_mul_0x5555(uint32_t);
uint32_t t_mul_0x15555(uint32_t);
uint32_t t_mul16(uint16_t, uint16_t);
int32_t t_mul16s(int16_t, int16_t);
int32_t t_mul8s(int8_t, int8_t);
uint32_t t_mul16_mask(uint32_t, uint32_t);
uint32_t t_bsel_b0(uint32_t, uint32_t);
uint32_t t_bsel_b1(uint32_t, uint32_t);
uint32_t t_bsel_b1m(uint32_t, uint32_t);
uint32_t t_bsel_b1h(uint32_t, uint32_t);
uint32_t t_bsel_b2(uint32_t, uint32_t);
uint32_t t_bsel_b3(uint32_t, uint32_t);
uint32_t t_bsel_used(uint32_t, uint32_t);
uint32_t t_bsel_half(uint32_t, uint32_t);
uint32_t t_bsel_8x16(uint32_t, uint32_t);
uint32_t t_bsel_const(uint32_t);
int32_t t_bsel_signed(uint32_t, uint32_t);
int32_t t_bsel_signed16(uint32_t, uint32_t);
uint32_t t_bsel_mul16lo(uint32_t, uint32_t);
uint32_t t_asm_barrier(uint32_t);

/* probe() is called by t_probe: it records the counter at each call, i.e. at
 * the moment a real tasklet switch inside a call would read it. */
static uint64_t probe_seen[4];
static unsigned probe_n;
void probe(void)
{
    if (probe_n < 4)
        probe_seen[probe_n] = __op_icount;
    probe_n++;
}
/* the SDK's inline mutex calls, as probes (t_mutex) */
uint32_t t_mutex(unsigned char *, uint32_t);
void mutex_lock(unsigned char *m)
{
    (void)m;
    probe();
}
void mutex_unlock(unsigned char *m)
{
    (void)m;
    probe();
}

static int failures, checks;

static void check(int line, const char *what, const char *kind, uint64_t got, uint64_t want)
{
    checks++;
    if (got != want) {
        printf("FAIL line %d: %s: %s = %" PRIu64 ", expected %" PRIu64 "\n", line, what, kind, got, want);
        failures++;
    }
}

/* Runs `call` with the counter at 0; checks its value (as uint64_t bits) and the count. */
#define EXPECT(call, value, count)                                                       \
    do {                                                                                 \
        __op_icount = 0;                                                                 \
        uint64_t v_ = (uint64_t)(call);                                                  \
        uint64_t n_ = __op_icount;                                                       \
        check(__LINE__, #call, "value", v_, (uint64_t)(value));                          \
        check(__LINE__, #call, "count", n_, (uint64_t)(count));                          \
    } while (0)
#define EXPECT_COUNT(stmt, count)                                                        \
    do {                                                                                 \
        __op_icount = 0;                                                                 \
        stmt;                                                                            \
        check(__LINE__, #stmt, "count", __op_icount, (uint64_t)(count));                 \
    } while (0)
#define EXPECT_F(call, value, count)                                                     \
    do {                                                                                 \
        __op_icount = 0;                                                                 \
        double v_ = (double)(call);                                                      \
        uint64_t n_ = __op_icount;                                                       \
        check(__LINE__, #call, "value", v_ == (double)(value), 1);                       \
        check(__LINE__, #call, "count", n_, (uint64_t)(count));                          \
    } while (0)

static void on_sigfpe(int sig)
{
    (void)sig;
    static const char msg[] = "FAIL: SIGFPE raised by an instrumented division\n";
    ssize_t r = write(1, msg, sizeof msg - 1);
    (void)r;
    _exit(2);
}

/* Every check, run twice: switch points idle, then all calling the stub. */
static void run_all(void)
{
    set_v1a_costs();

    /* ---- straight-line code ---- */
    /* add, shl, xor, and, sub: 5 x 1; ret 1 */
    EXPECT(t_straight(1, 2, 3), 26, 6);
    /* 64-bit add 2, lshr 2, xor 2; ret 1 */
    EXPECT(t_add64(1, 2, 1024), 11, 7);
    /* icmp (feeds a select, not fused) 1, select 2, ret 1 */
    EXPECT(t_sel(1, 5, 9), 5, 4);
    EXPECT(t_sel(0, 5, 9), 9, 4);
    /* adds 5, compares 3; the compares' zext 0 (the compare sets its register
     * to 0/1), c1 ? 2^16 : 0 0 (one lsl, fused with the add it feeds into an
     * lsl_add); ret 1 */
    EXPECT(t_carry(0xffffffffu, 2, 5), 65542, 9);
    EXPECT(t_carry(1, 2, 0xfffffffeu), 3, 9);

    /* compares used as values: icmp 1 + zext 0, icmp 1 + (c ? 8 : 0) 1 (lsl),
     * the or 1, ret 1; icmp 1 + sext 1 (negation) + xor 1 + ret 1 */
    EXPECT(t_cmp_value(1, 2, 1), 9, 5);
    EXPECT(t_cmp_value(2, 1, 3), 0, 5);
    /* c + ((a < b) << 4): icmp 1, the select is the shift of an lsl_add 0, add 1, ret 1 */
    EXPECT(t_cmp_shift_add(1, 2, 3), 19, 3);
    EXPECT(t_cmp_shift_add(2, 1, 3), 3, 3);
    EXPECT(t_cmp_sext(1, 2, 5), (int32_t)~5u, 4);
    EXPECT(t_cmp_sext(2, 1, 5), 5, 4);

    /* shift + add fusion.  Fused (shift 0, add 1, ret 1): a + (b << 3) lsl_add;
     * a - (b << 2), which InstCombine writes a + b * -4, lsl_sub; a + (b >> 5)
     * lsr_add; two shifts into one add: one fuses (shl 1 + shl 0 + add 1 + ret 1);
     * a byte GEP indexed by i << 2: shl 0 + GEP 1 + lbu 1 + ret 1 */
    EXPECT(t_fuse_add(5, 3), 29, 2);
    EXPECT(t_fuse_sub(100, 3), 88, 2);
    EXPECT(t_fuse_lsr(5, 64), 7, 2);
    EXPECT(t_fuse_two(1, 1), 12, 3);
    static const uint8_t bytes[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    EXPECT(t_fuse_gep(bytes, 3), 12, 3);
    /* not fused: the shift is the minuend ((b << 2) - a: shl 1, sub 1, ret 1);
     * the shift has two uses (shl 1, add 1, xor 1, ret 1); a variable amount
     * (shl 1, add 1, ret 1); 64-bit (shl 2, add 2, ret 1); a - (b >> 5) (no
     * lsr_sub: lshr 1, sub 1, ret 1); an arithmetic shift (no asr_add: 3); an add
     * of a constant (3); a GEP of 4-byte elements (shl 1, GEP 1, lw 1, ret 1) */
    EXPECT(t_nofuse_minuend(1, 3), 11, 3);
    EXPECT(t_nofuse_multi(1, 1), 9 ^ 8, 4);
    EXPECT(t_nofuse_var(1, 1, 4), 17, 3);
    EXPECT(t_nofuse_64(1, 1), 9, 5);
    EXPECT(t_nofuse_lsr_sub(100, 64), 98, 3);
    EXPECT(t_nofuse_asr(1, -64), -1, 3);
    EXPECT(t_nofuse_const(1), 108, 3);
    static const uint32_t words16[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    EXPECT(t_nofuse_gep4(words16, 3), 12, 4);

    /* masks of loaded words: load 1 + and 0 (one lbu / lhu) twice, add 1, ret 1;
     * a word used by the mask and a shift: load 1, and 1, lshr 0 + add 1 (one
     * lsr_add), ret 1;
     * mask 0xfff: load 1, and 1, ret 1 */
    static const uint32_t words[2] = {0x12345678u, 0x9abcdef0u};
    EXPECT(t_mask_load(words), 0x78u + 0xdef0u, 4);
    EXPECT(t_mask_twice(words), 0x78u + 0x123456u, 4);
    EXPECT(t_mask_wide(words), 0x678u, 3);

    /* ---- loops ---- */
    uint32_t a[128];
    for (int i = 0; i < 128; i++)
        a[i] = (uint32_t)i * 3u;
    uint32_t want = 0;
    for (int i = 0; i < 100; i++)
        want += a[i] ^ (uint32_t)i;
    /* entry: br falls into the loop 0; body: gep 1, load 1, trunc 0, xor 1,
     * add 1, iv add 1, icmp 0, br 1 = 6 per iteration; exit: ret 1 */
    EXPECT(t_loop100(a), want, 0 + 100 * 6 + 1);
    /* entry: icmp 0 + br 1; preheader: zext (index) 0, br falls through 0;
     * body: gep, load, add, iv add, br = 5 per iteration; exit: br falls
     * through 0, ret 1 */
    want = 0;
    for (int i = 0; i < 37; i++)
        want += a[i];
    EXPECT(t_loop_n(a, 37), want, 1 + 0 + 37 * 5 + 0 + 1);
    EXPECT(t_loop_n(a, 0), 0, 1 + 1); /* entry + ret */

    /* t_loop_mul: s += a[i] * a[i + 1]; a[0] is loaded in the preheader
     * (load 1), each iteration loads a[i + 1] (iv add, gep, load, add, br = 5)
     * plus mul32 of the pair; entry 1, exit ret 1 */
    static const uint32_t m[11] = {1, 2, 3, 4, 255, 256, 65535, 65536, 0xFFFFFFFFu, 7, 1000};
    /* min of each pair and its bit length:
     * 1:1  2:2  3:2  4:3  255:8  256:9  65535:16  65536:17  7:3  7:3  -> sum 64 */
    want = 0;
    for (int i = 0; i < 10; i++)
        want += m[i] * m[i + 1];
    uint32_t want_loop_mul = want;
    EXPECT(t_loop_mul(m, 10), want, 1 + 1 + 10 * 5 + (10 * MULB + 64) + 1);

    /* ---- 32-bit multiply: ret 1 + MULB + bitlen(min) ---- */
    EXPECT(t_mul(3, 1000000), 3000000, 1 + MULB + 2);
    EXPECT(t_mul(1000000, 3), 3000000, 1 + MULB + 2);
    EXPECT(t_mul(0x12345678u, 0x87654321u), 0x12345678u * 0x87654321u, 1 + MULB + 29);
    EXPECT(t_mul(0, 12345), 0, 1 + MULB + 0);
    EXPECT(t_mul(0xFFFFFFFFu, 0xFFFFFFFFu), 1, 1 + MULB + 32);
    {   /* small vs large operands differ exactly by the bit-length rule */
        __op_icount = 0;
        (void)t_mul(3, 1000000);
        uint64_t small = __op_icount;
        __op_icount = 0;
        (void)t_mul(0x12345678u, 0x87654321u);
        uint64_t large = __op_icount;
        check(__LINE__, "t_mul large - small", "count", large - small, 29 - 2);
    }
    /* x * 10: constant fits the 8-bit multiply: 10 = 0b1010, two shift/add
     * terms = 2, independent of x (cheaper than the table's multiply,
     * MULB + bitlen(10) = 12); ret 1 */
    EXPECT(t_mul10(7), 70, 3);
    EXPECT(t_mul10(0xFFFFFFFFu), 0xFFFFFFFFu * 10u, 3);
    /* x * -3: 3 = 0b11, one shift/add term + negation = 2; ret 1 */
    EXPECT(t_mul3_neg(5), (uint32_t)-15, 3);
    /* 64-bit x * 10: 2 terms x 2 words = 4 (int64_mul 125 is dearer); ret 1 */
    EXPECT(t_mul64_10(1ull << 40), 10ull << 40, 5);
    /* x * 0x9E3779B1: large constant, dynamic: min(5, c) = 5 -> bitlen 3 */
    EXPECT(t_mul_golden(5), 5u * 0x9E3779B1u, 1 + MULB + 3);
    EXPECT(t_mul_golden(0xFFFFFFFFu), 0xFFFFFFFFu * 0x9E3779B1u, 1 + MULB + 32);
    /* both operands known to fit 8 bits: mul_ul_ul MUL8 (zext of zeroext
     * arguments is free); ret 1 */
    EXPECT(t_mul8(200, 100), 20000, 1 + MUL8);
    /* 64-bit multiply: MUL64; ret 1 */
    EXPECT(t_mul64(0x100000001ull, 3), 0x300000003ull, MUL64 + 1);
    /* Constants as UPMEM's backend lowers them (canUseMulByConstant, group
     * method): one lsl/lsl_add/lsl_sub per set bit of |c| above bit 0, a run of
     * >= 3 set bits as two terms, + 1 negation if c < 0; kept when <= 7, else
     * __mulsi3.  -(a << 8) is clang's mul a, -256: lsl + neg = 2; ret 1 */
    EXPECT(t_neg_shl8(3), (uint32_t)-768, 3);
    EXPECT(t_neg_shl8(0xFFFFFFFFu), 256u, 3);
    /* 1000 = 0b1111101000: bit 3, run 5..9 (2 terms) = 3; ret 1 */
    EXPECT(t_mul1000(7), 7000u, 4);
    /* 0x7F0: one run of 7 bits = 2 (add at bit 11, subtract at bit 4); ret 1 */
    EXPECT(t_mul_0x7f0(3), 3u * 0x7F0u, 3);
    /* 0x5555: odd (x itself), 7 single bits above bit 0 = 7 <= 7; ret 1 */
    EXPECT(t_mul_0x5555(0xFFFFFFFFu), 0xFFFFFFFFu * 0x5555u, 8);
    /* 0x15555: 8 terms > 7: __mulsi3, MULB + bitlen(min(5, c)) = 3; ret 1 */
    EXPECT(t_mul_0x15555(5), 5u * 0x15555u, 1 + MULB + 3);
    EXPECT(t_mul_0x15555(0xFFFFFFFFu), 0xFFFFFFFFu * 0x15555u, 1 + MULB + 17);
    /* 16x16 products (EmitMul16WithCustomInserter): mul_ul_ul, which jumps
     * over the rest when both operands fit a byte (1 = MUL8); else 3 more
     * byte multiplies and 3 lsl_add (4 MUL8 + 3 = 7); ret 1 */
    EXPECT(t_mul16(200, 100), 20000u, 1 + MUL8);
    EXPECT(t_mul16(300, 2), 600u, 1 + 4 * MUL8 + 3);
    EXPECT(t_mul16(65535, 65535), 65535u * 65535u, 1 + 4 * MUL8 + 3);
    /* signed: both in -128..127 is the short path */
    EXPECT((uint32_t)t_mul16s(-5, 100), (uint32_t)-500, 1 + MUL8);
    EXPECT((uint32_t)t_mul16s(-200, 3), (uint32_t)-600, 1 + 4 * MUL8 + 3);
    EXPECT((uint32_t)t_mul16s(-32768, -32768), 1u << 30, 1 + 4 * MUL8 + 3);
    /* signed bytes: mul_sl_sl */
    EXPECT((uint32_t)t_mul8s(-128, 127), (uint32_t)-16256, 1 + MUL8);
    /* operands known to fit 16 bits: the same rule; the and (low half, read
     * by the Mul16 sequence itself) 0, the lsr (bytes 2-3) 1 */
    EXPECT(t_mul16_mask(0x12340007u, 0x00090000u), 63u, 1 + MUL8 + 1);
    EXPECT(t_mul16_mask(0xFFFFFFFFu, 0xFFFFFFFFu), 65535u * 65535u, 1 + 4 * MUL8 + 3 + 1);
    /* byte operands selected by the multiply (mul_ul_ul, mul_uh_ul, ...):
     * x & 0xff, (x >> 8) & 0xff, (x & 0xff00) >> 8 and x >> 8 of a 16-bit x
     * cost 0; ret 1 */
    EXPECT(t_bsel_b0(0x12345678u, 0xabcdef09u), 0x78u * 0x09u, 1 + MUL8);
    EXPECT(t_bsel_b1(0x12345678u, 0xabcdef09u), 0x56u * 0x09u, 1 + MUL8);
    EXPECT(t_bsel_b1m(0x12345678u, 0xabcdef09u), 0x56u * 0xefu, 1 + MUL8);
    /* p >> 8 of a 16-bit p (a byte product) is its byte 1: 0; the masks of
     * b (two multiplies) 0; the add 1 */
    EXPECT(t_bsel_b1h(0x123456ffu, 0xabcdef09u), ((0xffu * 9u) >> 8) * 9u + 0xffu * 9u, 1 + 1 + 2 * MUL8);
    /* bytes 2 and 3 need an lsr first (1; the mask of byte 2 is byte 0 of
     * the shifted register, 0) */
    EXPECT(t_bsel_b2(0x12345678u, 0xabcdef09u), 0x34u * 0x09u, 1 + 1 + MUL8);
    EXPECT(t_bsel_b3(0x12345678u, 0xabcdef09u), 0x12u * 0xefu, 1 + 1 + MUL8);
    /* a mask with another use (the add) is a register: and 1, add 1 */
    EXPECT(t_bsel_used(0x12345678u, 0xabcdef09u), 0x78u * 0x09u + 0x78u, 1 + 1 + 1 + MUL8);
    /* low halves of a 16x16 product: the Mul16 sequence reads bytes 0, 1 */
    EXPECT(t_bsel_half(0x123400c8u, 0xabcd0064u), 20000u, 1 + MUL8);
    EXPECT(t_bsel_half(0x1234ffffu, 0xabcdffffu), 65535u * 65535u, 1 + 4 * MUL8 + 3);
    /* a byte mask in a Mul16 sequence is not free (its byte 1 is read): 1 */
    EXPECT(t_bsel_8x16(0x123456c8u, 0xabcd0064u), 20000u, 1 + 1 + MUL8);
    /* a multiply by a constant (shift/add: 10 = 2 terms) reads the whole
     * register: and 1 */
    EXPECT(t_bsel_const(0x12345678u), 0x78u * 10u, 1 + 1 + 2);
    /* signed bytes and halves (InstCombine's shl + ashr): mul_sl_sh, 0 */
    EXPECT((uint32_t)t_bsel_signed(0x123456ffu, 0x00008000u), 128u, 1 + MUL8);
    EXPECT((uint32_t)t_bsel_signed16(0x1234ffffu, 0x00007fffu), (uint32_t)-32767, 1 + 4 * MUL8 + 3);
    /* low 16 bits of a 16x16 product: 3 byte products, 2 lsl_add; ret 1 */
    EXPECT(t_bsel_mul16lo(0x1234abcdu, 0x5678ef01u) & 0xffffu, (0xabcdu * 0xef01u) & 0xffffu, 1 + 3 * MUL8 + 2);
    /* empty asm 0, add 1, ret 1 */
    EXPECT(t_asm_barrier(41), 42u, 2);

    /* ---- 32-bit division: ret 1 + DIVB + max(0, clz(d) - clz(n) + 1) ---- */
    EXPECT(t_udiv(100, 7), 14, 1 + DIVB + (29 - 25 + 1));          /* 5 div_steps */
    EXPECT(t_udiv(0xFFFFFFFFu, 1), 0xFFFFFFFFu, 1 + DIVB + 32);     /* 32 div_steps */
    EXPECT(t_udiv(5, 7), 0, 1 + DIVB + 1);                          /* same bit length: 1 step */
    EXPECT(t_udiv(3, 100), 0, 1 + DIVB + 0);                        /* divisor longer: 0 steps */
    EXPECT(t_urem(100, 7), 2, 1 + DIVB + 5);
    /* division by zero: quotient 0xFFFFFFFF, remainder = dividend; the count
     * follows the formula with clz(0) = 32 (clz(1234) = 21) */
    EXPECT(t_udiv(1234, 0), 0xFFFFFFFFu, 1 + DIVB + (32 - 21 + 1));
    EXPECT(t_urem(1234, 0), 1234, 1 + DIVB + (32 - 21 + 1));
    /* signed: on |n|, |d|, + SDIVX */
    EXPECT((uint32_t)t_sdiv(-100, 7), (uint32_t)-14, 1 + DIVB + SDIVX + 5);
    EXPECT((uint32_t)t_srem(-100, 7), (uint32_t)-2, 1 + DIVB + SDIVX + 5);
    /* INT_MIN / -1: |INT_MIN| = 0x80000000 (clz 0), |-1| = 1 (clz 31) -> 32 steps */
    EXPECT((uint32_t)t_sdiv(INT_MIN, -1), (uint32_t)INT_MIN, 1 + DIVB + SDIVX + 32);
    EXPECT((uint32_t)t_srem(INT_MIN, -1), 0, 1 + DIVB + SDIVX + 32);
    EXPECT((uint32_t)t_sdiv(7, 0), 0xFFFFFFFFu, 1 + DIVB + SDIVX + (32 - 29 + 1));
    EXPECT((uint32_t)t_srem(7, 0), 7, 1 + DIVB + SDIVX + (32 - 29 + 1));
    EXPECT((uint32_t)t_sdiv(INT_MIN, 0), 0xFFFFFFFFu, 1 + DIVB + SDIVX + 33);
    /* constant divisor 10 (clz 28): no guard, dynamic count; clz(1000) = 22 */
    EXPECT(t_udiv10(1000), 100, 1 + DIVB + (28 - 22 + 1));
    EXPECT(t_udiv10(9), 0, 1 + DIVB + 1);
    /* sdiv by 8: shift sequence 4; ret 1 */
    EXPECT((uint32_t)t_sdiv8(-20), (uint32_t)-2, 4 + 1);
    /* 8-bit division (operands zero-extended): clz(200) = 24, clz(7) = 29 */
    EXPECT(t_udiv8(200, 7), 28, 1 + DIVB + 6);
    EXPECT(t_udiv8(200, 0), 0xFF, 1 + DIVB + (32 - 24 + 1));
    /* 64-bit division: DIV64; ret 1; guarded the same way */
    EXPECT(t_udiv64(10, 3), 3, DIV64 + 1);
    EXPECT(t_udiv64(5, 0), UINT64_MAX, DIV64 + 1);
    EXPECT(t_urem64(5, 0), 5, DIV64 + 1);
    EXPECT(t_sdiv64(INT64_MIN, -1), INT64_MIN, DIV64 + 1);
    EXPECT(t_srem64(INT64_MIN, -1), 0, DIV64 + 1);
    EXPECT(t_sdiv64(-7, 0), -1, DIV64 + 1);
    EXPECT(t_srem64(-7, 2), -1, DIV64 + 1);

    /* ---- calls ---- */
    /* t_callee: add 1, ret 1 = 2 (leaf).  t_caller: entry segment = frame 2
     * + call 2; after the 1st call: add 1 + call 2; after the 2nd: add 1 +
     * ret 1 + frame 1 => 4 + 3 + 3, plus 2 x 2 in the callee */
    EXPECT(t_caller(5), 15, 4 + 3 + 3 + 2 * 2);
    /* t_probe: segments end at each call; probe() sees what ran so far:
     * frame 2 + xor 1 + call 2 = 5, then shl 0 (one lsl_add with the add
     * after the call: one block, one DAG) + call 2 = 2, then
     * sub 1 + add 1 + ret 1 + frame 1 = 4 */
    probe_n = 0;
    EXPECT(t_probe(6, 3), 13, 5 + 2 + 4);
    check(__LINE__, "probe calls", "n", probe_n, 2);
    check(__LINE__, "probe 1st", "count", probe_seen[0], 5);
    check(__LINE__, "probe 2nd", "count", probe_seen[1], 5 + 2);
    /* t_mutex: the mutex calls cost 0 and leave the function a leaf: xor 1 +
     * ret 1; the segments still end at each call (the lock sees 0, the unlock 1) */
    probe_n = 0;
    EXPECT(t_mutex(NULL, 6), 3, 2);
    check(__LINE__, "mutex calls", "n", probe_n, 2);
    check(__LINE__, "mutex_lock sees", "count", probe_seen[0], 0);
    check(__LINE__, "mutex_unlock sees", "count", probe_seen[1], 1);

    /* ---- memcpy / memset ---- */
    uint8_t src[128], dst[128];
    for (int i = 0; i < 128; i++)
        src[i] = (uint8_t)i;
    /* constant 64 B: memcpy 1 + 64/4 = 17, memset 1 + 64/8 = 9; ret 1 */
    EXPECT_COUNT(t_memcpy64(dst, src), 17 + 1);
    check(__LINE__, "memcpy64 copy", "cmp", memcmp(dst, src, 64) == 0, 1);
    EXPECT_COUNT(t_memset64(dst), 9 + 1);
    /* variable size: 6 + ceil(n / 4) at run time; ret 1 */
    EXPECT_COUNT(t_memcpy_n(dst, src, 100), 1 + 6 + 25);
    EXPECT_COUNT(t_memcpy_n(dst, src, 5), 1 + 6 + 2);
    EXPECT_COUNT(t_memcpy_n(dst, src, 0), 1 + 6 + 0);

    /* ---- soft-float (fixed costs); ret 1 ---- */
    EXPECT_F(t_fadd(1.5f, 2.25f), 3.75f, FADD + 1);
    EXPECT_F(t_fmul(1.5f, 2.0f), 3.0f, FMUL + 1);
    EXPECT_F(t_fdiv(3.0f, 2.0f), 1.5f, FDIV + 1);
    EXPECT_F(t_dadd(1.5, 2.25), 3.75, DADD + 1);
    EXPECT_F(t_dmul(1.5, 2.0), 3.0, DMUL + 1);
    EXPECT_F(t_ddiv(3.0, 2.0), 1.5, DDIV + 1);
    EXPECT(t_f2i(-7.75f), -7, CONV + 1);
    /* fcmp FCMP + zext i1 1 + ret 1 */
    EXPECT(t_flt(1.0f, 2.0f), 1, FCMP + 1 + 1);

    /* ---- direct MRAM accesses through GS (as OpenPIM maps MRAM) ---- */
    {
        /* mmap: a high address, so that base = buffer - 0x08000000 stays canonical */
        uint32_t *mram = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mram != MAP_FAILED &&
            syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)(uintptr_t)mram - 0x08000000ul) == 0) {
            MRAM_PTR uint32_t *p = (MRAM_PTR uint32_t *)(uintptr_t)(0x08000000u + 8u);
            mram[2] = 41;
            /* MRAM load 4; ret 1 */
            EXPECT(t_mram_load(p), 41, 4 + 1);
            /* add 1, MRAM store 6, ret 1 */
            EXPECT_COUNT(t_mram_store(p, 99), 1 + 6 + 1);
            check(__LINE__, "mram store", "value", mram[2], 100);
        } else {
            printf("note: arch_prctl(ARCH_SET_GS) refused, MRAM checks skipped\n");
        }
    }

    /* ---- -O0 ---- */
    /* 2 stores + 2 loads + add + ret */
    EXPECT(t_o0_add(2, 3), 5, 6);
    /* store p, load p, load p[1] (gep 0: constant), trunc 0, zext 0 (lbu), ret 1 */
    EXPECT(t_o0_byte(words), 0xf0u, 4);
    /* 2 stores + 2 loads + ret = 5, + sdiv32: |7| clz 29, |0| clz 32 -> 4 steps */
    EXPECT(t_o0_div(7, 0), -1, 5 + DIVB + SDIVX + 4);
    EXPECT(t_o0_div(-100, 7), -14, 5 + DIVB + SDIVX + 5);

    /* ---- the table is read at run time: change slots, same code ---- */
    /* a multiply costing nothing from the table: only ret 1 is left */
    __op_costs[OP_COST_INT32_MUL_BASE] = 0;
    __op_costs[OP_COST_INT32_MUL_PER_BIT] = 0;
    EXPECT(t_mul(0x12345678u, 0x87654321u), 0x12345678u * 0x87654321u, 1);
    EXPECT(t_mul_golden(5), 5u * 0x9E3779B1u, 1);
    /* x * 10: min(2 shift/add terms, multiply 0) = 0 */
    EXPECT(t_mul10(7), 70, 1);
    /* one-cycle multiplier (timing/presets/mul1.desc): base 1, per_bit 0 */
    __op_costs[OP_COST_INT32_MUL_BASE] = 1;
    EXPECT(t_mul(0xFFFFFFFFu, 0xFFFFFFFFu), 1, 1 + 1);
    EXPECT(t_loop_mul(m, 10), want_loop_mul, 1 + 1 + 10 * 5 + 10 * 1 + 1);
    EXPECT(t_mul10(7), 70, 1 + 1);      /* min(2, 1) */
    EXPECT(t_mul3_neg(5), (uint32_t)-15, 1 + 2); /* min(1 + neg 1, 1 + neg 1) */
    /* per-bit cost 3, base 2: 2 + 3 x bitlen */
    __op_costs[OP_COST_INT32_MUL_BASE] = 2;
    __op_costs[OP_COST_INT32_MUL_PER_BIT] = 3;
    EXPECT(t_mul(3, 1000000), 3000000, 1 + 2 + 3 * 2);
    EXPECT(t_mul10(7), 70, 1 + 2);      /* min(2, 2 + 3 x 4) */
    /* 8-bit multiply and 64-bit multiply */
    __op_costs[OP_COST_MUL8] = 5;
    __op_costs[OP_COST_INT64_MUL] = 10;
    EXPECT(t_mul8(200, 100), 20000, 1 + 5);
    EXPECT(t_mul16(200, 100), 20000u, 1 + 5);
    EXPECT(t_mul16(300, 2), 600u, 1 + 4 * 5 + 3);
    EXPECT(t_mul64(0x100000001ull, 3), 0x300000003ull, 10 + 1);
    __op_costs[OP_COST_INT64_MUL] = 3;
    EXPECT(t_mul64_10(1ull << 40), 10ull << 40, 3 + 1); /* min(4, 3) */
    /* division: base 3, 2 per step, signed extra 5 */
    __op_costs[OP_COST_INT32_DIV_BASE] = 3;
    __op_costs[OP_COST_INT32_DIV_PER_STEP] = 2;
    __op_costs[OP_COST_INT32_DIV_SIGNED_EXTRA] = 5;
    EXPECT(t_udiv(100, 7), 14, 1 + 3 + 2 * 5);
    EXPECT((uint32_t)t_srem(-100, 7), (uint32_t)-2, 1 + 3 + 5 + 2 * 5);
    EXPECT(t_o0_div(-100, 7), -14, 5 + 3 + 5 + 2 * 5);
    __op_costs[OP_COST_INT64_DIV] = 17;
    EXPECT(t_udiv64(10, 3), 3, 17 + 1);
    /* soft-float */
    __op_costs[OP_COST_FLOAT_ADD] = 7;
    __op_costs[OP_COST_FLOAT_MUL] = 8;
    __op_costs[OP_COST_FLOAT_DIV] = 9;
    __op_costs[OP_COST_DOUBLE_ADD] = 10;
    __op_costs[OP_COST_DOUBLE_MUL] = 11;
    __op_costs[OP_COST_DOUBLE_DIV] = 12;
    __op_costs[OP_COST_CONVERSION] = 13;
    __op_costs[OP_COST_FP_COMPARE] = 14;
    __op_costs[OP_COST_DOUBLE_COMPARE] = 15;
    EXPECT_F(t_fadd(1.5f, 2.25f), 3.75f, 7 + 1);
    EXPECT_F(t_fmul(1.5f, 2.0f), 3.0f, 8 + 1);
    EXPECT_F(t_fdiv(3.0f, 2.0f), 1.5f, 9 + 1);
    EXPECT_F(t_dadd(1.5, 2.25), 3.75, 10 + 1);
    EXPECT_F(t_dmul(1.5, 2.0), 3.0, 11 + 1);
    EXPECT_F(t_ddiv(3.0, 2.0), 1.5, 12 + 1);
    EXPECT(t_f2i(-7.75f), -7, 13 + 1);
    EXPECT(t_flt(1.0f, 2.0f), 1, 14 + 1 + 1);
    /* t_dlt_mix: a loop of n iterations, each a double compare, a double add
     * and an int->double conversion (see count_funcs.c for the static part) */
    {
        __op_icount = 0;
        (void)t_dlt_mix(1.0, 2.0, 10);
        uint64_t a = __op_icount;
        __op_costs[OP_COST_DOUBLE_COMPARE] += 100;
        __op_costs[OP_COST_DOUBLE_ADD] += 1000;
        __op_costs[OP_COST_CONVERSION] += 10000;
        __op_icount = 0;
        (void)t_dlt_mix(1.0, 2.0, 10);
        check(__LINE__, "t_dlt_mix: table change", "count", __op_icount - a, 10 * (100 + 1000 + 10000));
    }
    /* several operations of one segment share one formula per kind:
     * t_muldiv_mix(5, 123456, 100000, -7): multiplies 5 x 123456 (min 5,
     * bitlen 3) and 100000 x 0xFFFFFFF9 (min 100000, bitlen 17); udiv
     * 5 / 100000 (0 steps); srem 123456 % -7 (clz 29 - clz 15 + 1 = 15 steps) */
    {
        uint64_t n[5];
        set_v1a_costs();
        for (int k = 0; k < 5; k++) {
            if (k == 1)
                __op_costs[OP_COST_INT32_MUL_BASE] += 10;
            if (k == 2)
                __op_costs[OP_COST_INT32_MUL_PER_BIT] += 2;
            if (k == 3)
                __op_costs[OP_COST_INT32_DIV_BASE] += 100, __op_costs[OP_COST_INT32_DIV_SIGNED_EXTRA] += 1000;
            if (k == 4)
                __op_costs[OP_COST_INT32_DIV_PER_STEP] += 3;
            __op_icount = 0;
            uint32_t v = t_muldiv_mix(5, 123456, 100000, (uint32_t)-7);
            n[k] = __op_icount;
            check(__LINE__, "t_muldiv_mix", "value", v,
                  5u * 123456u + 100000u * (uint32_t)-7 + 5u / 100000u + (uint32_t)(123456 % -7));
        }
        check(__LINE__, "t_muldiv_mix: mul base +10", "count", n[1] - n[0], 2 * 10);
        check(__LINE__, "t_muldiv_mix: mul per_bit +2", "count", n[2] - n[1],
              2 * (3 + 17));
        check(__LINE__, "t_muldiv_mix: div base +100, signed +1000", "count", n[3] - n[2], 2 * 100 + 1000);
        check(__LINE__, "t_muldiv_mix: div per_step +3", "count", n[4] - n[3], 3 * (0 + 15));
    }
    set_v1a_costs();
    EXPECT(t_mul(3, 1000000), 3000000, 1 + MULB + 2);
}

int main(void)
{
    signal(SIGFPE, on_sigfpe);
    run_all();
    points_fire(1);
    run_all();
    check(__LINE__, "switch points reached with limits 0", "calls > 0", points_called > 0, 1);
    check(__LINE__, "switch points' arguments", "bad calls", points_bad, 0);
    printf("%s: %d checks, %d failure(s); %" PRIu64 " switch-point calls\n", failures ? "FAILED" : "ok", checks,
           failures, points_called);
    return failures != 0;
}
