/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU libc: <stdlib.h> (abort and exit are in dpu/runtime/misc.c). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

int abs(int x)
{
    return x < 0 ? -x : x;
}
long labs(long x)
{
    return x < 0 ? -x : x;
}
long long llabs(long long x)
{
    return x < 0 ? -x : x;
}

div_t div(int num, int den)
{
    div_t r = { num / den, num % den };
    return r;
}
ldiv_t ldiv(long num, long den)
{
    ldiv_t r = { num / den, num % den };
    return r;
}
lldiv_t lldiv(long long num, long long den)
{
    lldiv_t r = { num / den, num % den };
    return r;
}

/* Parses an optionally signed integer in `base` (0: from its prefix).  Returns
 * the magnitude clamped to `limit` (+1 for negatives), with *neg and *end. */
static unsigned long long __op_parse(const char *s, char **end, int base, int *neg, unsigned long long limit, int *overflow)
{
    const char *p = s;
    *neg = 0;
    *overflow = 0;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '+' || *p == '-')
        *neg = *p++ == '-';
    if ((base == 0 || base == 16) && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
        p += 2;
        base = 16;
    } else if (base == 0) {
        base = p[0] == '0' ? 8 : 10;
    }
    unsigned long long v = 0;
    const char *digits = p;
    for (;; p++) {
        int d;
        if (isdigit((unsigned char)*p))
            d = *p - '0';
        else if (islower((unsigned char)*p))
            d = *p - 'a' + 10;
        else if (isupper((unsigned char)*p))
            d = *p - 'A' + 10;
        else
            break;
        if (d >= base)
            break;
        if (v > (limit - (unsigned long long)d) / (unsigned long long)base) {
            *overflow = 1;
            v = limit;
        } else if (!*overflow) {
            v = v * (unsigned long long)base + (unsigned long long)d;
        }
    }
    if (end != NULL)
        *end = (char *)(p == digits ? s : p);
    return v;
}

long long strtoll(const char *restrict s, char **restrict end, int base)
{
    int neg, overflow;
    unsigned long long v = __op_parse(s, end, base, &neg, (unsigned long long)LLONG_MAX + 1, &overflow);
    if (!neg && v > (unsigned long long)LLONG_MAX) {
        overflow = 1;
        v = LLONG_MAX;
    }
    if (overflow)
        errno = ERANGE;
    return neg ? (long long)(0 - v) : (long long)v;
}

unsigned long long strtoull(const char *restrict s, char **restrict end, int base)
{
    int neg, overflow;
    unsigned long long v = __op_parse(s, end, base, &neg, ULLONG_MAX, &overflow);
    if (overflow) {
        errno = ERANGE;
        return ULLONG_MAX;
    }
    return neg ? 0 - v : v;
}

long strtol(const char *restrict s, char **restrict end, int base)
{
    return (long)strtoll(s, end, base);
}

unsigned long strtoul(const char *restrict s, char **restrict end, int base)
{
    return (unsigned long)strtoull(s, end, base);
}

int atoi(const char *s)
{
    return (int)strtol(s, NULL, 10);
}
long atol(const char *s)
{
    return strtol(s, NULL, 10);
}
long long atoll(const char *s)
{
    return strtoll(s, NULL, 10);
}

/* A 64-bit LCG; its state is a WRAM global (one per DPU). */
static uint64_t __op_rand_state = 1;

int rand(void)
{
    __op_rand_state = __op_rand_state * 6364136223846793005ull + 1442695040888963407ull;
    return (int)(__op_rand_state >> 33);
}

void srand(unsigned int seed)
{
    __op_rand_state = seed;
}

static void __op_swap_bytes(unsigned char *a, unsigned char *b, size_t size)
{
    for (size_t i = 0; i < size; i++) {
        unsigned char t = a[i];
        a[i] = b[i];
        b[i] = t;
    }
}

static void __op_sift_down(unsigned char *base, size_t root, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && cmp(base + child * size, base + (child + 1) * size) < 0)
            child++;
        if (cmp(base + root * size, base + child * size) >= 0)
            return;
        __op_swap_bytes(base + root * size, base + child * size, size);
        root = child;
    }
}

/* Heapsort: no recursion, no extra memory (tasklet stacks are small). */
void qsort(void *base, size_t nmemb, size_t size, int (*compar)(const void *, const void *))
{
    unsigned char *b = base;
    if (nmemb < 2 || size == 0)
        return;
    for (size_t i = nmemb / 2; i-- > 0;)
        __op_sift_down(b, i, nmemb, size, compar);
    for (size_t n = nmemb - 1; n > 0; n--) {
        __op_swap_bytes(b, b + n * size, size);
        __op_sift_down(b, 0, n, size, compar);
    }
}

void *bsearch(const void *key, const void *base, size_t nmemb, size_t size, int (*compar)(const void *, const void *))
{
    const unsigned char *b = base;
    size_t lo = 0, hi = nmemb;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = compar(key, b + mid * size);
        if (c == 0)
            return (void *)(b + mid * size);
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}
