/* SPDX-License-Identifier: MIT */
/* Host unit test of the DPU printf log: records are produced by the DPU
 * runtime's own encoder (abi/log_record.h) and turned back into text by
 * the SDK's decoder (sdk/log_format.c); the text is compared with the host's
 * vsnprintf of the same call, or with an exact expected string. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sdk/log_format.h"
#include "../../abi/log_record.h"

static int passed, failed;

/* Expected text, accumulated alongside the ring. */
struct expect {
    char *text;
    size_t len, cap;
};

static void expect_add(struct expect *e, const char *s)
{
    size_t n = strlen(s);
    if (e->len + n + 1 > e->cap) {
        e->cap = 2 * (e->len + n + 1);
        e->text = realloc(e->text, e->cap);
        if (e->text == NULL)
            exit(2);
    }
    memcpy(e->text + e->len, s, n);
    e->len += n;
    e->text[e->len] = '\0';
}

static void expect_init(struct expect *e)
{
    e->text = NULL;
    e->len = e->cap = 0;
    expect_add(e, "");
}

/* Logs printf(fmt, ...) and appends the host's vsnprintf of it to e. */
__attribute__((format(printf, 3, 4))) static uint32_t both(
    struct op_log_ring *r, struct expect *e, const char *fmt, ...)
{
    char host[4096];
    va_list ap;
    va_start(ap, fmt);
    uint32_t n = op_log_encode(r, fmt, ap);
    va_end(ap);
    va_start(ap, fmt);
    vsnprintf(host, sizeof(host), fmt, ap);
    va_end(ap);
    expect_add(e, host);
    return n;
}

/* Decodes the ring; returns the text (to free) and op_log_format's result. */
static char *decode(const struct op_log_ring *r, int *rc)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (out == NULL) {
        perror("open_memstream");
        exit(2);
    }
    *rc = op_log_format(r->buf, r->size, r->pos, out);
    fclose(out);
    return text;
}

static void check_text(const char *name, const struct op_log_ring *r, int want_rc, const char *want)
{
    int rc;
    char *got = decode(r, &rc);
    if (rc == want_rc && strcmp(got, want) == 0) {
        passed++;
    } else {
        failed++;
        size_t at = 0;
        while (got[at] != '\0' && got[at] == want[at])
            at++;
        size_t from = at > 80 ? at - 80 : 0;
        fprintf(stderr,
            "FAIL %s: rc %d (want %d), %zu bytes (want %zu), first difference at byte %zu\n"
            "--- got ---\n%.200s\n--- want ---\n%.200s\n-----------\n",
            name, rc, want_rc, strlen(got), strlen(want), at, got + from, want + from);
    }
    free(got);
}

static struct op_log_ring new_ring(uint32_t size)
{
    struct op_log_ring r = { calloc(size, 1), size, 0 };
    if (r.buf == NULL)
        exit(2);
    return r;
}

static void test_conversions(void)
{
    struct op_log_ring r = new_ring(1 << 16);
    struct expect e;
    expect_init(&e);
    int x = -42;
    signed char sc = -100;
    unsigned char uc = 200;
    short ss = -30000;
    unsigned short us = 60000;
    both(&r, &e, "plain text, no conversion\n");
    both(&r, &e, "%d %i %u %x %X %o\n", x, 17, 4000000000u, 0xbeefu, 0xbeefu, 8u);
    both(&r, &e, "%hhd %hhu %hd %hu %ld %lu %lld %llu\n", sc, uc, ss, us, -5L, 5UL, -123456789012LL,
        18446744073709551615ULL);
    both(&r, &e, "%zu %zd %jd %ju %td\n", (size_t)12345, (size_t)7, (intmax_t)-9, (uintmax_t)9, (ptrdiff_t)-3);
    both(&r, &e, "[%c%c%c] [%5c] [%-3c]\n", 'a', 'b', 'c', 'x', 'y');
    both(&r, &e, "[%s] [%10s] [%-10s] [%.3s] [%5.2s] [%s]\n", "hello", "right", "left", "truncate", "ab", "");
    both(&r, &e, "%p %20p %-20p|\n", (void *)0x10001234, (void *)0x08000000, (void *)0xdeadbeef);
    both(&r, &e, "%f %e %g %.2f %10.3e %G %E %F\n", 3.14159, 12345.678, 0.0001, 2.005, -1.5e-7, 1e20, 6.02e23, 1.0 / 3);
    both(&r, &e, "%a %A %.1a\n", 1.0, 255.5, 3.0);
    both(&r, &e, "%f %g\n", (double)1.25f, (double)-0.0f);
    both(&r, &e, "%Lf %Le\n", (long double)2.5, (long double)-1e10);
    both(&r, &e, "100%% sure, %d%%\n", 99);
    both(&r, &e, "[%*d] [%-*d] [%*d] [%.*f] [%*.*s] [%.*d]\n", 6, 42, 6, 42, -6, 42, 3, 3.14159, 8, 2, "xyz", -1, 7);
    both(&r, &e, "[%+d] [% d] [%#x] [%#o] [%08.3f] [%-8d] [%08d] [%+.3e] [%#g]\n", 5, 5, 255u, 8u, 3.14159, 7, -7,
        12.5, 1.0);
    both(&r, &e, "[%.0d] [%.5d] [%5.0x] [%#.3o]\n", 0, 42, 0u, 0u);
    both(&r, &e, "%s=%d %s=%lld %s=%.1f\n", "a", 1, "bb", 22LL, "ccc", 3.33);
    both(&r, &e, "%c", '\n');
    check_text("conversions", &r, 0, e.text);
    free(e.text);
    free(r.buf);
}

static void test_special(void)
{
    struct op_log_ring r = new_ring(4096);
    const char *volatile null_string = NULL;
    op_log_encodef(&r, "[%s]", null_string);
    op_log_encodef(&r, " [%b] [%#b] [%08b] [%-6b] [%b] [%.4b] [%#010b]", 5u, 5u, 5u, 5u, 0u, 3u, 5u);
    op_log_encodef(&r, " [%lb] [%hhb]", 0x100000000ul, 0x1ffu);
    op_log_encodef(&r, " [%hhd %hhu %hd %hu %hhx]", 300, 300, 70000, 70000, -1);
    int count = 0;
    op_log_encodef(&r, " a%nb", &count);
    op_log_encodef(&r, " [%y] [%5k]", 1);
    op_log_encodef(&r, " end%");
    op_log_encodef(&r, "%s\n", "puts-like");
    op_log_encodef(&r, "%c", 'Z');
    check_text("special", &r, 0,
        "[(null)] [101] [0b101] [00000101] [101   ] [0] [0011] [0b00000101] [100000000000000000000000000000000] "
        "[11111111] [44 44 4464 4464 ff] ab [%y] [%5k] end%puts-like\nZ");
    free(r.buf);
}

static void test_empty_and_limits(void)
{
    struct op_log_ring r = new_ring(64);
    check_text("empty", &r, 0, "");
    /* A record larger than the ring is dropped whole. */
    uint32_t n = op_log_encodef(&r, "%s", "this string is far too long to fit in a ring of sixty-four bytes at all");
    if (n == 0 && r.pos == 0)
        passed++;
    else {
        failed++;
        fprintf(stderr, "FAIL too-long record: returned %u, pos %llu\n", n, (unsigned long long)r.pos);
    }
    op_log_encodef(&r, "ok %d\n", 1);
    check_text("after drop", &r, 0, "ok 1\n");
    /* A record exactly the ring's size fits. */
    struct op_log_ring exact = new_ring(OP_LOG_MIN_RECORD + 3);
    n = op_log_encodef(&exact, "abc");
    if (n == exact.size)
        passed++;
    else {
        failed++;
        fprintf(stderr, "FAIL exact-size record: returned %u\n", n);
    }
    check_text("exact size", &exact, 0, "abc");
    free(exact.buf);
    free(r.buf);
}

/* Many records through a small ring: only the complete newest ones remain. */
static void test_wrap(uint32_t size, int records)
{
    struct op_log_ring r = new_ring(size);
    uint64_t *start = calloc((size_t)records, sizeof(*start));
    char (*line)[64] = calloc((size_t)records, sizeof(*line));
    for (int i = 0; i < records; i++) {
        start[i] = r.pos;
        if (i % 3 == 0) {
            op_log_encodef(&r, "line %d: %s\n", i, "xx");
            snprintf(line[i], sizeof(line[i]), "line %d: %s\n", i, "xx");
        } else {
            op_log_encodef(&r, "rec %05d %.2f\n", i * 7, i / 4.0);
            snprintf(line[i], sizeof(line[i]), "rec %05d %.2f\n", i * 7, i / 4.0);
        }
    }
    struct expect e;
    expect_init(&e);
    uint64_t lower = r.pos > size ? r.pos - size : 0;
    for (int i = 0; i < records; i++)
        if (start[i] >= lower)
            expect_add(&e, line[i]);
    char name[64];
    snprintf(name, sizeof(name), "wrap %u/%d", size, records);
    check_text(name, &r, 0, e.text);
    free(e.text);
    free(start);
    free(line);
    free(r.buf);
}

static void test_corrupt(void)
{
    struct op_log_ring r = new_ring(256);
    op_log_encodef(&r, "first\n");
    op_log_encodef(&r, "second %d\n", 2);
    /* A state past the real end points at garbage. */
    struct op_log_ring bad = r;
    bad.pos = r.pos + 5;
    check_text("state past the end", &bad, -1, "");
    /* A damaged header of the oldest record: the newer one is still printed. */
    r.buf[0] ^= 0xff;
    check_text("damaged first header", &r, -1, "second 2\n");
    free(r.buf);
}

int main(void)
{
    test_conversions();
    test_special();
    test_empty_and_limits();
    test_wrap(100, 50);
    test_wrap(128, 1000);
    test_wrap(1u << 20, 200000);
    test_wrap(OP_LOG_MIN_RECORD + 40, 7);
    test_corrupt();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
