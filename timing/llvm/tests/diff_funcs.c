/* SPDX-License-Identifier: MIT */
/* Differential test: compiled twice (DIFF_SUFFIX=_native without the plugin,
 * DIFF_SUFFIX=_counted with it) and run on the same inputs by diff_main.c:
 * the instrumentation must never change a result (except that division by
 * zero and MIN / -1 return the DPU values instead of trapping; inputs here
 * avoid them).  Exercises constructs the exact tests do not. */
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define NAME(n) CAT(n, DIFF_SUFFIX)

typedef uint32_t v4u __attribute__((vector_size(16)));
struct big { uint32_t w[13]; double d; uint8_t tail[7]; };

static uint32_t helper(uint32_t x, int depth) { return depth ? helper(x * 3u + 1u, depth - 1) ^ x : x; }

static int sum_va(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    int s = 0;
    for (int i = 0; i < n; i++)
        s += va_arg(ap, int) * (i + 1);
    va_end(ap);
    return s;
}

uint64_t NAME(diff_all)(uint32_t seed, int n)
{
    uint64_t h = seed;
    /* switch with many cases (jump table) and with few */
    for (int i = 0; i < n; i++) {
        switch ((seed + (uint32_t)i) % 9u) {
        case 0: h += 3; break;
        case 1: h ^= h << 7; break;
        case 2: h *= 0x100000001b3ull; break;
        case 3: h -= (uint64_t)i; break;
        case 4: h = (h >> 3) | (h << 61); break;
        case 5: h += (uint16_t)(h * 31u); break;
        case 6: h /= (uint64_t)(i | 1); break;
        default: h += (uint64_t)((int64_t)h % 1000003); break;
        }
    }
    /* VLA and struct copies (memcpy of a non-constant and a constant size) */
    uint32_t vla[n + 1];
    for (int i = 0; i <= n; i++)
        vla[i] = helper((uint32_t)i + seed, i % 5);
    struct big a, b;
    memset(&a, 0, sizeof a);
    for (int i = 0; i < 13; i++)
        a.w[i] = vla[i % (n + 1)];
    a.d = (double)seed / 7.0;
    b = a;
    memcpy(vla, b.w, sizeof(uint32_t) * (size_t)(n < 13 ? n : 13));
    for (int i = 0; i <= n; i++)
        h = h * 1099511628211ull + vla[i];
    /* i128, 16-bit and 8-bit arithmetic */
    unsigned __int128 w = (unsigned __int128)h * (h | 1);
    h ^= (uint64_t)(w >> 64) + (uint64_t)(w / ((unsigned __int128)seed + 3));
    uint16_t s16 = (uint16_t)seed;
    for (int i = 0; i < 5; i++)
        s16 = (uint16_t)(s16 * (uint16_t)(i + 7) / (uint16_t)(i + 1));
    int8_t s8 = (int8_t)seed;
    s8 = (int8_t)(s8 / (int8_t)((seed & 7) + 1));
    h += s16 + (uint64_t)(int64_t)s8;
    /* floats */
    float f = (float)seed;
    double d = b.d;
    for (int i = 1; i < 6; i++) {
        f = f * 1.5f / (float)i - 2.0f;
        d = d * 0.75 + (double)f / (double)i;
    }
    h += (uint64_t)(int64_t)d + (f < (float)d ? 1 : 0);
    /* vector extension */
    v4u v = {seed, seed * 3u, seed ^ 0x55u, seed + 9u};
    v = v * v + (v >> 3);
    h += v[0] ^ v[1] ^ v[2] ^ v[3];
    /* varargs, data-dependent 32-bit mul/div/rem */
    h += (uint64_t)sum_va(4, (int)seed, 3, -5, 7);
    uint32_t x = seed | 1u;
    for (int i = 0; i < n; i++) {
        x = x * (uint32_t)(i + 0x10001) + (x / (uint32_t)(i + 1)) + (x % 97u);
        int32_t sx = (int32_t)x;
        x += (uint32_t)(sx / (int32_t)(i - 3 == 0 ? 5 : i - 3)) + (uint32_t)(sx % -7);
    }
    /* narrow products (16x16 with its run-time short path, signed bytes) and constants of the
     * group method (a run of set bits, a negative power of two, one too long for it) */
    for (int i = 0; i < n; i++) {
        x += (uint32_t)(uint16_t)(x >> (i & 15)) * (uint16_t)(x + (uint32_t)i);
        x ^= (uint32_t)((int32_t)(int16_t)x * (int16_t)(x >> 16)) + (uint32_t)((int8_t)x * (int8_t)(x >> 8));
        x = x * 0x7F0u + (0u - (x << 8)) + x * 0x15555u;
    }
    return h ^ x;
}
