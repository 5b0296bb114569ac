/* SPDX-License-Identifier: MIT */
/* Host kernels of the collectives: element-wise reduction, 64-bit lane
 * rotation of physical-view lines (moves words between the chips of an
 * entangled group) and the in-word byte reduction, in portable C, AVX2 and
 * AVX-512 (compiled with target attributes, picked at run time with
 * __builtin_cpu_supports).  Every variant gives bit-identical results: integer
 * arithmetic wraps, float min/max follow "x < acc ? x : acc" (the operand
 * order of vminps), float sums keep the accumulator's NaN (sum_f), and each
 * element is combined in the same order. */
#include <string.h>

#include "internal.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define COMM_X86 1
#else
#define COMM_X86 0
#endif

/* ---- portable C --------------------------------------------------------------- */

/* Elements through memcpy: the buffers hold a node's bytes at its MRAM
 * offset, which need not be aligned to the element's size. */
#define SCALAR_LOOP(T, EXPR)                                                                                           \
    do {                                                                                                               \
        uint8_t *a_ = acc;                                                                                             \
        const uint8_t *s_ = src;                                                                                       \
        for (size_t i_ = 0; i_ < n; i_++) {                                                                            \
            T a, x;                                                                                                    \
            memcpy(&a, a_ + i_ * sizeof(T), sizeof(T));                                                                \
            memcpy(&x, s_ + i_ * sizeof(T), sizeof(T));                                                                \
            a = (T)(EXPR);                                                                                             \
            memcpy(a_ + i_ * sizeof(T), &a, sizeof(T));                                                                \
        }                                                                                                              \
    } while (0)

/* Integers: sums wrap (computed unsigned), min/max in the element's signedness. */
#define SCALAR_INT(T, U)                                                                                               \
    switch (op) {                                                                                                      \
    case OPENPIM_SUM: SCALAR_LOOP(T, (U)a + (U)x); break;                                                              \
    case OPENPIM_MIN: SCALAR_LOOP(T, x < a ? x : a); break;                                                            \
    case OPENPIM_MAX: SCALAR_LOOP(T, x > a ? x : a); break;                                                            \
    case OPENPIM_AND: SCALAR_LOOP(T, a & x); break;                                                                    \
    case OPENPIM_OR: SCALAR_LOOP(T, a | x); break;                                                                     \
    case OPENPIM_XOR: SCALAR_LOOP(T, a ^ x); break;                                                                    \
    default: break;                                                                                                    \
    }

/* Float sums with openpim_comm.h's NaN rule: a NaN accumulator wins over a
 * NaN operand (both quieted).  Written out, because an x86 add keeps its
 * first source's NaN and a compiler may swap the operands of a + x. */
static inline float sum_f(float a, float x)
{
    uint32_t b;
    if (a != a || x != x) {
        memcpy(&b, a != a ? &a : &x, 4);
        b |= 0x00400000u; /* quiet */
        memcpy(&a, &b, 4);
        return a;
    }
    return a + x;
}

static inline double sum_d(double a, double x)
{
    uint64_t b;
    if (a != a || x != x) {
        memcpy(&b, a != a ? &a : &x, 8);
        b |= 0x0008000000000000ull;
        memcpy(&a, &b, 8);
        return a;
    }
    return a + x;
}

#define SCALAR_FLT(T, SUM)                                                                                             \
    switch (op) {                                                                                                      \
    case OPENPIM_SUM: SCALAR_LOOP(T, SUM(a, x)); break;                                                                \
    case OPENPIM_MIN: SCALAR_LOOP(T, x < a ? x : a); break;                                                            \
    case OPENPIM_MAX: SCALAR_LOOP(T, x > a ? x : a); break;                                                            \
    default: break;                                                                                                    \
    }

static void scalar_reduce(openpim_comm_type type, openpim_comm_op op, void *acc, const void *src, size_t n)
{
    switch (type) {
    case OPENPIM_INT8: SCALAR_INT(int8_t, uint8_t) break;
    case OPENPIM_UINT8: SCALAR_INT(uint8_t, uint8_t) break;
    case OPENPIM_INT16: SCALAR_INT(int16_t, uint16_t) break;
    case OPENPIM_UINT16: SCALAR_INT(uint16_t, uint16_t) break;
    case OPENPIM_INT32: SCALAR_INT(int32_t, uint32_t) break;
    case OPENPIM_UINT32: SCALAR_INT(uint32_t, uint32_t) break;
    case OPENPIM_INT64: SCALAR_INT(int64_t, uint64_t) break;
    case OPENPIM_UINT64: SCALAR_INT(uint64_t, uint64_t) break;
    case OPENPIM_FLOAT: SCALAR_FLT(float, sum_f) break;
    case OPENPIM_DOUBLE: SCALAR_FLT(double, sum_d) break;
    default: break;
    }
}

static inline uint64_t rol64(uint64_t x, unsigned s)
{
    return s ? (x << s) | (x >> (64 - s)) : x;
}

static void scalar_rotate(void *dst, const void *src, size_t n, unsigned r)
{
    if (r % 8 == 0) {
        memmove(dst, src, n * COMM_LINE);
        return;
    }
    uint8_t *d = dst;
    const uint8_t *s = src;
    for (size_t i = 0; i < n * 8; i++) {
        uint64_t w;
        memcpy(&w, s + 8 * i, 8);
        w = rol64(w, 8 * (r % 8));
        memcpy(d + 8 * i, &w, 8);
    }
}

/* One step of the in-word reduction: each byte combined with the byte `sh`
 * bytes further (cyclically) in its word. */
static void scalar_hreduce8(openpim_comm_type type, openpim_comm_op op, void *lines, size_t n)
{
    uint8_t *p = lines;
    bool sgn = type == OPENPIM_INT8;
    for (size_t w = 0; w < n * 8; w++) {
        uint8_t *b = p + 8 * w;
        for (unsigned sh = 4; sh >= 1; sh /= 2) {
            uint8_t t[8];
            for (unsigned k = 0; k < 8; k++) {
                uint8_t a = b[k], x = b[(k + 8 - sh) % 8];
                switch (op) {
                case OPENPIM_SUM: t[k] = (uint8_t)(a + x); break;
                case OPENPIM_MIN: t[k] = sgn ? ((int8_t)x < (int8_t)a ? x : a) : (x < a ? x : a); break;
                case OPENPIM_MAX: t[k] = sgn ? ((int8_t)x > (int8_t)a ? x : a) : (x > a ? x : a); break;
                case OPENPIM_AND: t[k] = a & x; break;
                case OPENPIM_OR: t[k] = a | x; break;
                default: t[k] = a ^ x; break;
                }
            }
            memcpy(b, t, 8);
        }
    }
}


/* ---- 8x8 byte transposes (portable; used by cross-domain reductions) ---------- */

#define SWAP_STAGE(a, b, s, mask)                                                                                      \
    do {                                                                                                               \
        uint64_t t_ = (((a) >> (8 * (s))) ^ (b)) & (mask);                                                             \
        (b) ^= t_;                                                                                                     \
        (a) ^= t_ << (8 * (s));                                                                                        \
    } while (0)

/* r[a] byte b <-> r[b] byte a (little-endian words) */
static inline void transpose8x8(uint64_t r[8])
{
    const uint64_t m4 = 0x00000000FFFFFFFFull, m2 = 0x0000FFFF0000FFFFull, m1 = 0x00FF00FF00FF00FFull;
    SWAP_STAGE(r[0], r[4], 4, m4);
    SWAP_STAGE(r[1], r[5], 4, m4);
    SWAP_STAGE(r[2], r[6], 4, m4);
    SWAP_STAGE(r[3], r[7], 4, m4);
    SWAP_STAGE(r[0], r[2], 2, m2);
    SWAP_STAGE(r[1], r[3], 2, m2);
    SWAP_STAGE(r[4], r[6], 2, m2);
    SWAP_STAGE(r[5], r[7], 2, m2);
    SWAP_STAGE(r[0], r[1], 1, m1);
    SWAP_STAGE(r[2], r[3], 1, m1);
    SWAP_STAGE(r[4], r[5], 1, m1);
    SWAP_STAGE(r[6], r[7], 1, m1);
}

static void scalar_lines_to_rows(const uint8_t *lines, uint8_t rows[8][64])
{
    for (unsigned l = 0; l < 8; l++) {
        uint64_t r[8];
        memcpy(r, lines + 64 * l, 64); /* r[j] byte k = byte j of chip k's word l */
        transpose8x8(r);               /* r[k] = chip k's word l */
        for (unsigned k = 0; k < 8; k++)
            memcpy(rows[k] + 8 * l, &r[k], 8);
    }
}

static void scalar_rows_to_lines(uint8_t rows[8][64], uint8_t *lines)
{
    for (unsigned l = 0; l < 8; l++) {
        uint64_t r[8];
        for (unsigned k = 0; k < 8; k++)
            memcpy(&r[k], rows[k] + 8 * l, 8);
        transpose8x8(r);
        memcpy(lines + 64 * l, r, 64);
    }
}

static const struct comm_simd scalar = {"scalar",      scalar_reduce,        scalar_rotate,
                                        scalar_hreduce8, scalar_lines_to_rows, scalar_rows_to_lines};

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "comm/: the physical-view layout code assumes a little-endian host"
#endif

#if COMM_X86
/* ---- AVX2 -------------------------------------------------------------------------- */

#define AVX2 __attribute__((target("avx2")))

/* Vector loop: V vectors of 32 bytes, then the tail in portable C (same
 * per-element arithmetic). */
#define VLOOP(W, LOAD, STORE, VT, EXPR)                                                                                \
    do {                                                                                                               \
        size_t nb_ = n * esz, i_ = 0;                                                                                  \
        uint8_t *a_ = acc;                                                                                             \
        const uint8_t *s_ = src;                                                                                       \
        for (; i_ + (W) <= nb_; i_ += (W)) {                                                                           \
            VT a = LOAD((const void *)(a_ + i_)), x = LOAD((const void *)(s_ + i_));                                   \
            STORE((void *)(a_ + i_), (EXPR));                                                                          \
        }                                                                                                              \
        if (i_ < nb_)                                                                                                  \
            scalar_reduce(type, op, a_ + i_, s_ + i_, (nb_ - i_) / esz);                                               \
    } while (0)

#define L256(p) _mm256_loadu_si256((const __m256i *)(p))
#define S256(p, v) _mm256_storeu_si256((__m256i *)(p), (v))
#define L256ps(p) _mm256_loadu_ps((const float *)(p))
#define S256ps(p, v) _mm256_storeu_ps((float *)(p), (v))
#define L256pd(p) _mm256_loadu_pd((const double *)(p))
#define S256pd(p, v) _mm256_storeu_pd((double *)(p), (v))

/* The reduction's loops for a vector of V bits (256: AVX2, 512: AVX-512),
 * named by the intrinsics' pattern _mm<V>_*: one vector loop per (type, op),
 * chosen outside it.  INT64(V) is the 64-bit min / max case (AVX2 has no
 * 64-bit min / max instruction). */
#define VLOOP_V(V, EXPR) VLOOP((V) / 8, L##V, S##V, __m##V##i, EXPR)
#define REDUCE_INT_CASE(V, B, SIGNED)                                                                                  \
    if (op == OPENPIM_SUM)                                                                                             \
        VLOOP_V(V, _mm##V##_add_epi##B(a, x));                                                                         \
    else if (type == SIGNED)                                                                                           \
        VLOOP_V(V, op == OPENPIM_MIN ? _mm##V##_min_epi##B(a, x) : _mm##V##_max_epi##B(a, x));                         \
    else                                                                                                               \
        VLOOP_V(V, op == OPENPIM_MIN ? _mm##V##_min_epu##B(a, x) : _mm##V##_max_epu##B(a, x));                         \
    break;
#define REDUCE_FLT_CASE(V, SUF, T)                                                                                     \
    if (op == OPENPIM_SUM)                                                                                             \
        VLOOP((V) / 8, L##V##SUF, S##V##SUF, T, sum##V##_##SUF(a, x));                                                 \
    else if (op == OPENPIM_MIN)                                                                                        \
        VLOOP((V) / 8, L##V##SUF, S##V##SUF, T, _mm##V##_min_##SUF(x, a));                                             \
    else                                                                                                               \
        VLOOP((V) / 8, L##V##SUF, S##V##SUF, T, _mm##V##_max_##SUF(x, a));                                             \
    break;
#define REDUCE_BODY(V, INT64)                                                                                          \
    size_t esz = openpim_comm_type_size(type);                                                                         \
    if (op == OPENPIM_AND || op == OPENPIM_OR || op == OPENPIM_XOR) {                                                  \
        if (op == OPENPIM_AND)                                                                                         \
            VLOOP_V(V, _mm##V##_and_si##V(a, x));                                                                      \
        else if (op == OPENPIM_OR)                                                                                     \
            VLOOP_V(V, _mm##V##_or_si##V(a, x));                                                                       \
        else                                                                                                           \
            VLOOP_V(V, _mm##V##_xor_si##V(a, x));                                                                      \
        return;                                                                                                        \
    }                                                                                                                  \
    switch (type) {                                                                                                    \
    case OPENPIM_INT8:                                                                                                 \
    case OPENPIM_UINT8: REDUCE_INT_CASE(V, 8, OPENPIM_INT8)                                                            \
    case OPENPIM_INT16:                                                                                                \
    case OPENPIM_UINT16: REDUCE_INT_CASE(V, 16, OPENPIM_INT16)                                                         \
    case OPENPIM_INT32:                                                                                                \
    case OPENPIM_UINT32: REDUCE_INT_CASE(V, 32, OPENPIM_INT32)                                                         \
    case OPENPIM_INT64:                                                                                                \
    case OPENPIM_UINT64: INT64(V)                                                                                      \
    case OPENPIM_FLOAT: REDUCE_FLT_CASE(V, ps, __m##V)                                                                 \
    case OPENPIM_DOUBLE: REDUCE_FLT_CASE(V, pd, __m##V##d)                                                             \
    default:                                                                                                           \
        break;                                                                                                         \
    }

/* The in-word reduction's byte operation on vectors of V bits. */
#define BYTEOP_BODY(V)                                                                                                 \
    bool sgn = type == OPENPIM_INT8;                                                                                   \
    switch (op) {                                                                                                      \
    case OPENPIM_SUM: return _mm##V##_add_epi8(a, x);                                                                  \
    case OPENPIM_MIN: return sgn ? _mm##V##_min_epi8(a, x) : _mm##V##_min_epu8(a, x);                                 \
    case OPENPIM_MAX: return sgn ? _mm##V##_max_epi8(a, x) : _mm##V##_max_epu8(a, x);                                 \
    case OPENPIM_AND: return _mm##V##_and_si##V(a, x);                                                                 \
    case OPENPIM_OR: return _mm##V##_or_si##V(a, x);                                                                   \
    default: return _mm##V##_xor_si##V(a, x);                                                                          \
    }

/* Float sums with the NaN rule of sum_f: where the accumulator is a NaN, it
 * (quieted) replaces the sum; elsewhere the add returns its one NaN operand
 * quieted (x86), whatever the order the compiler gives the operands. */
AVX2 static inline __m256 sum256_ps(__m256 a, __m256 x)
{
    __m256 q = _mm256_or_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(0x00400000)));
    return _mm256_blendv_ps(_mm256_add_ps(a, x), q, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
}

AVX2 static inline __m256d sum256_pd(__m256d a, __m256d x)
{
    __m256d q = _mm256_or_pd(a, _mm256_castsi256_pd(_mm256_set1_epi64x(0x0008000000000000ll)));
    return _mm256_blendv_pd(_mm256_add_pd(a, x), q, _mm256_cmp_pd(a, a, _CMP_UNORD_Q));
}

AVX2 static inline __m256i avx2_min64(__m256i a, __m256i x, bool sgn)
{
    __m256i bias = sgn ? _mm256_setzero_si256() : _mm256_set1_epi64x((long long)0x8000000000000000ull);
    __m256i lt = _mm256_cmpgt_epi64(_mm256_xor_si256(a, bias), _mm256_xor_si256(x, bias)); /* x < a */
    return _mm256_blendv_epi8(a, x, lt);
}

AVX2 static inline __m256i avx2_max64(__m256i a, __m256i x, bool sgn)
{
    __m256i bias = sgn ? _mm256_setzero_si256() : _mm256_set1_epi64x((long long)0x8000000000000000ull);
    __m256i gt = _mm256_cmpgt_epi64(_mm256_xor_si256(x, bias), _mm256_xor_si256(a, bias)); /* x > a */
    return _mm256_blendv_epi8(a, x, gt);
}

/* 64-bit min / max: compares of biased values (avx2_min64, avx2_max64). */
#define AVX2_INT64(V)                                                                                                  \
    {                                                                                                                  \
        bool sgn = type == OPENPIM_INT64;                                                                              \
        if (op == OPENPIM_SUM)                                                                                         \
            VLOOP_V(V, _mm256_add_epi64(a, x));                                                                        \
        else if (op == OPENPIM_MIN)                                                                                    \
            VLOOP_V(V, avx2_min64(a, x, sgn));                                                                         \
        else                                                                                                           \
            VLOOP_V(V, avx2_max64(a, x, sgn));                                                                         \
        break;                                                                                                         \
    }

AVX2 static void avx2_reduce(openpim_comm_type type, openpim_comm_op op, void *acc, const void *src, size_t n)
{
    REDUCE_BODY(256, AVX2_INT64)
}

AVX2 static void avx2_rotate(void *dst, const void *src, size_t n, unsigned r)
{
    r %= 8;
    if (r == 0) {
        memmove(dst, src, n * COMM_LINE);
        return;
    }
    uint8_t *d = dst;
    const uint8_t *s = src;
    __m128i sl = _mm_cvtsi32_si128((int)(8 * r)), sr = _mm_cvtsi32_si128((int)(64 - 8 * r));
    for (size_t i = 0; i < 2 * n; i++) {
        __m256i v = L256(s + 32 * i);
        S256(d + 32 * i, _mm256_or_si256(_mm256_sll_epi64(v, sl), _mm256_srl_epi64(v, sr)));
    }
}

/* x rotated left by 8*sh bits within each 64-bit word */
#define AVX2_ROL(v, sh) _mm256_or_si256(_mm256_slli_epi64(v, 8 * (sh)), _mm256_srli_epi64(v, 64 - 8 * (sh)))

AVX2 static inline __m256i avx2_byteop(openpim_comm_type type, openpim_comm_op op, __m256i a, __m256i x)
{
    BYTEOP_BODY(256)
}

AVX2 static void avx2_hreduce8(openpim_comm_type type, openpim_comm_op op, void *lines, size_t n)
{
    uint8_t *p = lines;
    for (size_t i = 0; i < 2 * n; i++) {
        __m256i v = L256(p + 32 * i);
        v = avx2_byteop(type, op, v, AVX2_ROL(v, 4));
        v = avx2_byteop(type, op, v, AVX2_ROL(v, 2));
        v = avx2_byteop(type, op, v, AVX2_ROL(v, 1));
        S256(p + 32 * i, v);
    }
}

/* 8x8 byte transpose of 64 bytes: out word k byte j = in word j byte k.
 * Bytes of word pairs are interleaved (pshufb), then 16-bit units of the two
 * registers, then of the two 128-bit lanes; the last step pairs lane 0 with
 * lane 1 in one order and lane 1 with lane 0 in the other, so that both
 * lanes come out in word order. */
AVX2 static inline void avx2_t8x8(const uint8_t *in, uint8_t *out)
{
    const __m256i pairs = _mm256_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15, 0, 8, 1, 9, 2, 10, 3,
                                           11, 4, 12, 5, 13, 6, 14, 7, 15);
    __m256i a = _mm256_shuffle_epi8(L256(in), pairs);      /* lane 0: words 0,1 by byte; lane 1: 2,3 */
    __m256i b = _mm256_shuffle_epi8(L256(in + 32), pairs); /* words 4,5 and 6,7 */
    __m256i c = _mm256_unpacklo_epi16(a, b);               /* bytes 0-3: (w0 w1 w4 w5 | w2 w3 w6 w7) */
    __m256i d = _mm256_unpackhi_epi16(a, b);               /* bytes 4-7 */
    __m256i cs = _mm256_permute2x128_si256(c, c, 0x01), ds = _mm256_permute2x128_si256(d, d, 0x01);
    __m256i lo = _mm256_blend_epi32(_mm256_unpacklo_epi16(c, cs), _mm256_unpackhi_epi16(cs, c), 0xF0);
    __m256i hi = _mm256_blend_epi32(_mm256_unpacklo_epi16(d, ds), _mm256_unpackhi_epi16(ds, d), 0xF0);
    S256(out, lo);
    S256(out + 32, hi);
}

AVX2 static void avx2_lines_to_rows(const uint8_t *lines, uint8_t rows[8][64])
{
    for (unsigned l = 0; l < 8; l++) {
        uint8_t t[64];
        avx2_t8x8(lines + 64 * l, t);
        for (unsigned k = 0; k < 8; k++)
            memcpy(rows[k] + 8 * l, t + 8 * k, 8);
    }
}

AVX2 static void avx2_rows_to_lines(uint8_t rows[8][64], uint8_t *lines)
{
    for (unsigned l = 0; l < 8; l++) {
        uint8_t t[64];
        for (unsigned k = 0; k < 8; k++)
            memcpy(t + 8 * k, rows[k] + 8 * l, 8);
        avx2_t8x8(t, lines + 64 * l);
    }
}

static const struct comm_simd avx2 = {"avx2",        avx2_reduce,        avx2_rotate,
                                      avx2_hreduce8, avx2_lines_to_rows, avx2_rows_to_lines};

/* ---- AVX-512 (F + BW) ------------------------------------------------------------- */

#define AVX512 __attribute__((target("avx512f,avx512bw")))
#define L512(p) _mm512_loadu_si512((const void *)(p))
#define S512(p, v) _mm512_storeu_si512((void *)(p), (v))
#define L512ps(p) _mm512_loadu_ps((const void *)(p))
#define S512ps(p, v) _mm512_storeu_ps((void *)(p), (v))
#define L512pd(p) _mm512_loadu_pd((const void *)(p))
#define S512pd(p, v) _mm512_storeu_pd((void *)(p), (v))

#define AVX512_INT64(V) REDUCE_INT_CASE(V, 64, OPENPIM_INT64)

/* sum256_ps / sum256_pd on 512 bits (F + BW only: the OR is an integer one) */
AVX512 static inline __m512 sum512_ps(__m512 a, __m512 x)
{
    __m512 q = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(a), _mm512_set1_epi32(0x00400000)));
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q), _mm512_add_ps(a, x), q);
}

AVX512 static inline __m512d sum512_pd(__m512d a, __m512d x)
{
    __m512d q = _mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(a), _mm512_set1_epi64(0x0008000000000000ll)));
    return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q), _mm512_add_pd(a, x), q);
}

AVX512 static void avx512_reduce(openpim_comm_type type, openpim_comm_op op, void *acc, const void *src, size_t n)
{
    REDUCE_BODY(512, AVX512_INT64)
}

AVX512 static void avx512_rotate(void *dst, const void *src, size_t n, unsigned r)
{
    r %= 8;
    if (r == 0) {
        memmove(dst, src, n * COMM_LINE);
        return;
    }
    uint8_t *d = dst;
    const uint8_t *s = src;
    __m512i cnt = _mm512_set1_epi64(8 * (long long)r);
    for (size_t i = 0; i < n; i++)
        S512(d + 64 * i, _mm512_rolv_epi64(L512(s + 64 * i), cnt));
}

AVX512 static inline __m512i avx512_byteop(openpim_comm_type type, openpim_comm_op op, __m512i a, __m512i x)
{
    BYTEOP_BODY(512)
}

AVX512 static void avx512_hreduce8(openpim_comm_type type, openpim_comm_op op, void *lines, size_t n)
{
    uint8_t *p = lines;
    for (size_t i = 0; i < n; i++) {
        __m512i v = L512(p + 64 * i);
        v = avx512_byteop(type, op, v, _mm512_rol_epi64(v, 32));
        v = avx512_byteop(type, op, v, _mm512_rol_epi64(v, 16));
        v = avx512_byteop(type, op, v, _mm512_rol_epi64(v, 8));
        S512(p + 64 * i, v);
    }
}

/* The transposes are the AVX2 ones (every AVX-512 CPU has AVX2): they work
 * on 64 bytes in registers either way. */
static const struct comm_simd avx512 = {"avx512",        avx512_reduce,      avx512_rotate,
                                        avx512_hreduce8, avx2_lines_to_rows, avx2_rows_to_lines};
#endif /* COMM_X86 */

/* ---- selection ------------------------------------------------------------------ */

static bool cpu_has(const char *name)
{
#if COMM_X86
    __builtin_cpu_init();
    if (!strcmp(name, "avx512"))
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
    if (!strcmp(name, "avx2"))
        return __builtin_cpu_supports("avx2");
#endif
    return !strcmp(name, "scalar");
}

static const struct comm_simd *by_name(const char *name)
{
#if COMM_X86
    if (!strcmp(name, "avx512"))
        return &avx512;
    if (!strcmp(name, "avx2"))
        return &avx2;
#endif
    return !strcmp(name, "scalar") ? &scalar : NULL;
}

static _Atomic(const struct comm_simd *) current;

static const struct comm_simd *best(void)
{
    static const char *const order[] = {"avx512", "avx2", "scalar"};
    for (unsigned i = 0; i < 3; i++)
        if (cpu_has(order[i]) && by_name(order[i]))
            return by_name(order[i]);
    return &scalar;
}

const struct comm_simd *comm_simd(void)
{
    const struct comm_simd *s = current;
    if (!s)
        current = s = best();
    return s;
}

const struct comm_simd *comm_simd_scalar(void)
{
    return &scalar;
}

int openpim_comm_force_simd(const char *name)
{
    if (!name || !strcmp(name, "auto")) {
        current = best();
        return 0;
    }
    const struct comm_simd *s = by_name(name);
    if (!s || !cpu_has(name))
        return -1;
    current = s;
    return 0;
}

const char *openpim_comm_simd_name(void)
{
    return comm_simd()->name;
}
