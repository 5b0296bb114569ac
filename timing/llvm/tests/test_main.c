/* Exact-count tests for the OpenPIMCount pass.
 *
 * This harness is compiled WITHOUT the plugin; it defines __op_icount, calls
 * the functions of count_funcs.c / count_o0.c (compiled WITH it) and compares
 * the counter with values derived by hand from the rules of OpenPIMCount.cpp
 * and op_costs.def.  Abbreviations in the derivations:
 *   ret = 1 (jump r23); br = 1 (conditional, or an unconditional jump that
 *   does not fall through); icmp feeding the block's br = 0 (fused);
 *   frame = 3 for a function that calls (2 at entry, 1 at ret);
 *   mul32 = 6 + bitlen(min(ua, ub)); udiv32 = 6 + max(0, clz(d) - clz(n) + 1);
 *   sdiv32 = 12 + max(0, clz|d| - clz|n| + 1).
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

uint64_t __op_icount; /* defined by the DPU runtime in OpenPIM; here by the test */

uint32_t t_straight(uint32_t, uint32_t, uint32_t);
uint64_t t_add64(uint64_t, uint64_t, uint64_t);
int t_sel(int, int, int);
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
#define MRAM_PTR __attribute__((address_space(256)))
uint32_t t_mram_load(const MRAM_PTR uint32_t *);
void t_mram_store(MRAM_PTR uint32_t *, uint32_t);
int t_o0_div(int, int);

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

int main(void)
{
    signal(SIGFPE, on_sigfpe);

    /* ---- straight-line code ---- */
    /* add, shl, xor, and, sub: 5 x 1; ret 1 */
    EXPECT(t_straight(1, 2, 3), 26, 6);
    /* 64-bit add 2, lshr 2, xor 2; ret 1 */
    EXPECT(t_add64(1, 2, 1024), 11, 7);
    /* icmp (feeds a select, not fused) 1, select 2, ret 1 */
    EXPECT(t_sel(1, 5, 9), 5, 4);
    EXPECT(t_sel(0, 5, 9), 9, 4);

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
    EXPECT(t_loop_mul(m, 10), want, 1 + 1 + 10 * 5 + (10 * 6 + 64) + 1);

    /* ---- 32-bit multiply: ret 1 + 6 + bitlen(min) ---- */
    EXPECT(t_mul(3, 1000000), 3000000, 1 + 6 + 2);
    EXPECT(t_mul(1000000, 3), 3000000, 1 + 6 + 2);
    EXPECT(t_mul(0x12345678u, 0x87654321u), 0x12345678u * 0x87654321u, 1 + 6 + 29);
    EXPECT(t_mul(0, 12345), 0, 1 + 6 + 0);
    EXPECT(t_mul(0xFFFFFFFFu, 0xFFFFFFFFu), 1, 1 + 6 + 32);
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
     * terms = 2, independent of x; ret 1 */
    EXPECT(t_mul10(7), 70, 3);
    EXPECT(t_mul10(0xFFFFFFFFu), 0xFFFFFFFFu * 10u, 3);
    /* x * 0x9E3779B1: large constant, dynamic: min(5, c) = 5 -> bitlen 3 */
    EXPECT(t_mul_golden(5), 5u * 0x9E3779B1u, 1 + 6 + 3);
    EXPECT(t_mul_golden(0xFFFFFFFFu), 0xFFFFFFFFu * 0x9E3779B1u, 1 + 6 + 32);
    /* both operands known to fit 8 bits: mul_ul_ul 1 (zext of zeroext
     * arguments is free); ret 1 */
    EXPECT(t_mul8(200, 100), 20000, 1 + 1);
    /* 64-bit multiply: 125; ret 1 */
    EXPECT(t_mul64(0x100000001ull, 3), 0x300000003ull, 125 + 1);

    /* ---- 32-bit division: ret 1 + 6 + max(0, clz(d) - clz(n) + 1) ---- */
    EXPECT(t_udiv(100, 7), 14, 1 + 6 + (29 - 25 + 1));          /* 5 div_steps */
    EXPECT(t_udiv(0xFFFFFFFFu, 1), 0xFFFFFFFFu, 1 + 6 + 32);     /* 32 div_steps */
    EXPECT(t_udiv(5, 7), 0, 1 + 6 + 1);                          /* same bit length: 1 step */
    EXPECT(t_udiv(3, 100), 0, 1 + 6 + 0);                        /* divisor longer: 0 steps */
    EXPECT(t_urem(100, 7), 2, 1 + 6 + 5);
    /* division by zero: quotient 0xFFFFFFFF, remainder = dividend; the count
     * follows the formula with clz(0) = 32 (clz(1234) = 21) */
    EXPECT(t_udiv(1234, 0), 0xFFFFFFFFu, 1 + 6 + (32 - 21 + 1));
    EXPECT(t_urem(1234, 0), 1234, 1 + 6 + (32 - 21 + 1));
    /* signed: on |n|, |d|, + 6 */
    EXPECT((uint32_t)t_sdiv(-100, 7), (uint32_t)-14, 1 + 12 + 5);
    EXPECT((uint32_t)t_srem(-100, 7), (uint32_t)-2, 1 + 12 + 5);
    /* INT_MIN / -1: |INT_MIN| = 0x80000000 (clz 0), |-1| = 1 (clz 31) -> 32 steps */
    EXPECT((uint32_t)t_sdiv(INT_MIN, -1), (uint32_t)INT_MIN, 1 + 12 + 32);
    EXPECT((uint32_t)t_srem(INT_MIN, -1), 0, 1 + 12 + 32);
    EXPECT((uint32_t)t_sdiv(7, 0), 0xFFFFFFFFu, 1 + 12 + (32 - 29 + 1));
    EXPECT((uint32_t)t_srem(7, 0), 7, 1 + 12 + (32 - 29 + 1));
    EXPECT((uint32_t)t_sdiv(INT_MIN, 0), 0xFFFFFFFFu, 1 + 12 + 33);
    /* constant divisor 10 (clz 28): no guard, dynamic count; clz(1000) = 22 */
    EXPECT(t_udiv10(1000), 100, 1 + 6 + (28 - 22 + 1));
    EXPECT(t_udiv10(9), 0, 1 + 6 + 1);
    /* sdiv by 8: shift sequence 4; ret 1 */
    EXPECT((uint32_t)t_sdiv8(-20), (uint32_t)-2, 4 + 1);
    /* 8-bit division (operands zero-extended): clz(200) = 24, clz(7) = 29 */
    EXPECT(t_udiv8(200, 7), 28, 1 + 6 + 6);
    EXPECT(t_udiv8(200, 0), 0xFF, 1 + 6 + (32 - 24 + 1));
    /* 64-bit division: 240; ret 1; guarded the same way */
    EXPECT(t_udiv64(10, 3), 3, 241);
    EXPECT(t_udiv64(5, 0), UINT64_MAX, 241);
    EXPECT(t_urem64(5, 0), 5, 241);
    EXPECT(t_sdiv64(INT64_MIN, -1), INT64_MIN, 241);
    EXPECT(t_srem64(INT64_MIN, -1), 0, 241);
    EXPECT(t_sdiv64(-7, 0), -1, 241);
    EXPECT(t_srem64(-7, 2), -1, 241);

    /* ---- calls ---- */
    /* t_callee: add 1, ret 1 = 2 (leaf).  t_caller: entry segment = frame 2
     * + call 2; after the 1st call: add 1 + call 2; after the 2nd: add 1 +
     * ret 1 + frame 1 => 4 + 3 + 3, plus 2 x 2 in the callee */
    EXPECT(t_caller(5), 15, 4 + 3 + 3 + 2 * 2);
    /* t_probe: segments end at each call; probe() sees what ran so far:
     * frame 2 + xor 1 + call 2 = 5, then shl 1 + call 2 = 3, then
     * sub 1 + add 1 + ret 1 + frame 1 = 4 */
    probe_n = 0;
    EXPECT(t_probe(6, 3), 13, 5 + 3 + 4);
    check(__LINE__, "probe calls", "n", probe_n, 2);
    check(__LINE__, "probe 1st", "count", probe_seen[0], 5);
    check(__LINE__, "probe 2nd", "count", probe_seen[1], 5 + 3);

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
    EXPECT_F(t_fadd(1.5f, 2.25f), 3.75f, 65 + 1);
    EXPECT_F(t_fmul(1.5f, 2.0f), 3.0f, 178 + 1);
    EXPECT_F(t_fdiv(3.0f, 2.0f), 1.5f, 1025 + 1);
    EXPECT_F(t_dadd(1.5, 2.25), 3.75, 100 + 1);
    EXPECT_F(t_dmul(1.5, 2.0), 3.0, 655 + 1);
    EXPECT_F(t_ddiv(3.0, 2.0), 1.5, 2185 + 1);
    EXPECT(t_f2i(-7.75f), -7, 30 + 1);
    /* fcmp 20 + zext i1 1 + ret 1 */
    EXPECT(t_flt(1.0f, 2.0f), 1, 20 + 1 + 1);

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
    /* 2 stores + 2 loads + ret = 5, + sdiv32: |7| clz 29, |0| clz 32 -> 12 + 4 */
    EXPECT(t_o0_div(7, 0), -1, 5 + 12 + 4);
    EXPECT(t_o0_div(-100, 7), -14, 5 + 12 + 5);

    printf("%s: %d checks, %d failure(s)\n", failures ? "FAILED" : "ok", checks, failures);
    return failures != 0;
}
