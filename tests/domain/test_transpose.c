/* SPDX-License-Identifier: MIT */
/* The domain transposes (machine/domain.c): every implementation this CPU can
 * run gives exactly the bytes of the definition in domain.h
 *     line i byte (8j + k) == byte j of word i of chip k
 * for 1..1000 lines, any buffer alignment, with and without non-temporal
 * stores, never writes outside its destination, and the two directions are
 * inverse of each other. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "domain.h"

#define MAX_LINES 1000
#define GUARD 64
#define CANARY 0xC5

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static void fill_random(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(rnd() >> 32);
}

/* Buffers with room for GUARD canary bytes before and after any offset 0..63. */
struct buf {
    uint8_t *mem, *p;
    size_t len;
};

static void buf_place(struct buf *b, size_t len, size_t misalign)
{
    b->len = len;
    b->p = b->mem + GUARD + misalign;
    memset(b->mem, CANARY, GUARD + 64 + len + GUARD);
}

static int buf_guard_ok(const struct buf *b)
{
    const uint8_t *end = b->mem + GUARD + 64 + b->len + GUARD;
    for (const uint8_t *q = b->mem; q < b->p; q++)
        if (*q != CANARY)
            return 0;
    for (const uint8_t *q = b->p + b->len; q < end; q++)
        if (*q != CANARY)
            return 0;
    return 1;
}

static struct buf lines_in, lines_out, dpus_in[8], dpus_out[8];

static void alloc_bufs(void)
{
    size_t big = GUARD + 64 + 64 * (size_t)MAX_LINES + GUARD;
    lines_in.mem = aligned_alloc(64, big);
    lines_out.mem = aligned_alloc(64, big);
    for (int k = 0; k < 8; k++) {
        dpus_in[k].mem = aligned_alloc(64, GUARD + 64 + 8 * MAX_LINES + GUARD);
        dpus_out[k].mem = aligned_alloc(64, GUARD + 64 + 8 * MAX_LINES + GUARD);
    }
}

/* Alignments of one case: 0 = all random, 1 = DPU buffers with one common
 * 8-byte-multiple offset (what MRAM looks like), 2 = everything 64-aligned. */
static size_t pick(int mode, size_t common)
{
    return mode == 0 ? (size_t)(rnd() % 64) : mode == 1 ? common : 0;
}

static int check_case(const char *impl, size_t n, int mode)
{
    int bad = 0;
    size_t common = 8 * (size_t)(rnd() % 8);
    buf_place(&lines_in, 64 * n, pick(mode, common));
    buf_place(&lines_out, 64 * n, pick(mode, 0));
    fill_random(lines_in.p, 64 * n);
    uint8_t *dout[8];
    const uint8_t *din[8];
    for (int k = 0; k < 8; k++) {
        buf_place(&dpus_out[k], 8 * n, pick(mode, common));
        buf_place(&dpus_in[k], 8 * n, pick(mode, common));
        fill_random(dpus_in[k].p, 8 * n);
        dout[k] = dpus_out[k].p;
        din[k] = dpus_in[k].p;
    }
    /* scatter: against the definition */
    op_domain_to_dpus(lines_in.p, n, dout);
    for (size_t i = 0; i < n && !bad; i++)
        for (int j = 0; j < 8; j++)
            for (int k = 0; k < 8; k++)
                if (dout[k][8 * i + j] != lines_in.p[64 * i + 8 * j + k])
                    bad = 1;
    for (int k = 0; k < 8; k++)
        if (!buf_guard_ok(&dpus_out[k]))
            bad |= 2;
    /* gather: against the definition */
    op_dpus_to_domain(din, n, lines_out.p);
    for (size_t i = 0; i < n && !(bad & 4); i++)
        for (int j = 0; j < 8; j++)
            for (int k = 0; k < 8; k++)
                if (lines_out.p[64 * i + 8 * j + k] != din[k][8 * i + j])
                    bad |= 4;
    if (!buf_guard_ok(&lines_out))
        bad |= 8;
    /* round trip: lines -> DPUs -> lines */
    const uint8_t *dback[8];
    for (int k = 0; k < 8; k++)
        dback[k] = dout[k];
    op_dpus_to_domain(dback, n, lines_out.p);
    if (memcmp(lines_out.p, lines_in.p, 64 * n))
        bad |= 16;
    if (bad)
        fprintf(stderr, "%s: %zu lines, alignment mode %d: failure mask %d\n", impl, n, mode, bad);
    return bad == 0;
}

int main(void)
{
    alloc_bufs();
    static const char *const names[] = { "scalar", "avx2", "avx512bw", "avx512vbmi" };
    const char *best = op_domain_impl_name();
    printf("default implementation: %s\n", best);
    CHECK_EQ(op_domain_force_impl("no-such-impl"), -1);
    CHECK(strcmp(op_domain_impl_name(), best) == 0); /* unchanged by a refused name */

    /* the example of domain.h */
    CHECK_EQ(op_domain_force_impl("scalar"), 0);
    {
        uint8_t w[8][8], line[64], *d[8];
        for (int k = 0; k < 8; k++) {
            for (int j = 0; j < 8; j++)
                w[k][j] = (uint8_t)(10 * k + j);
            d[k] = w[k];
        }
        const uint8_t *const *cd = (const uint8_t *const *)d;
        op_dpus_to_domain(cd, 1, line);
        CHECK_EQ(line[0], 0);
        CHECK_EQ(line[1], 10);
        CHECK_EQ(line[7], 70);
        CHECK_EQ(line[8], 1);
        CHECK_EQ(line[9], 11);
        CHECK_EQ(line[63], 77);
    }

    int tested = 0;
    for (size_t t = 0; t < sizeof names / sizeof names[0]; t++) {
        if (op_domain_force_impl(names[t]) != 0) {
            printf("%s: not supported by this CPU, skipped\n", names[t]);
            continue;
        }
        CHECK(strcmp(op_domain_impl_name(), names[t]) == 0);
        tested++;
        int fails = 0, cases = 0;
        for (int nt = 0; nt < 2; nt++) {
            /* nt = 1: every conversion uses non-temporal stores where alignment allows */
            op_domain_set_nt_threshold(nt ? 64 : SIZE_MAX);
            for (size_t n = 1; n <= MAX_LINES; n++) {
                for (int mode = 0; mode < 3; mode++) {
                    if (n > 64 && mode != (int)(n % 3)) /* all modes for small sizes, one each beyond */
                        continue;
                    cases++;
                    if (!check_case(names[t], n, mode))
                        fails++;
                }
            }
        }
        op_domain_set_nt_threshold(0);
        printf("%s: %d cases, %d failed\n", names[t], cases, fails);
        CHECK_EQ(fails, 0);
    }
    CHECK(tested >= 1);
    CHECK_EQ(op_domain_force_impl("auto"), 0);
    CHECK(strcmp(op_domain_impl_name(), best) == 0);
    return check_done("test_domain_transpose");
}
