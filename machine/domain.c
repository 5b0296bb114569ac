/* SPDX-License-Identifier: MIT */
/* Conversion between the rank's physical view ("PIM domain": 64-byte lines,
 * each holding one 8-byte word of each of 8 chips, byte-interleaved) and the
 * per-DPU MRAM layout.  See domain.h for the exact convention.
 *
 * The conversion is an 8x8 byte transpose per line.  The SIMD versions work on
 * blocks of 8 lines (AVX-512) or 4 lines (AVX2) so that every load and store is
 * a full vector: a block is 8 registers in (one per line, or one per DPU) and 8
 * registers out, and the transpose is done as three layers of two-register
 * shuffles, each layer moving one bit of the register index (line number or
 * chip number) into the position of a byte inside the registers and one
 * position bit out into the register index.  In the comments, a layout is
 * written "reg (b2 b1 b0)" for the register index bits and "pos (...)" or
 * "lanes (...) in-lane (...)" for the byte position bits, most significant
 * first; i = line (word) bits, j = byte-in-word bits, k = chip bits.
 *
 * All variants are compiled here with target attributes (no special build
 * flags); the one used is picked once from __builtin_cpu_supports. */
#define _GNU_SOURCE /* sysconf(_SC_LEVEL3_CACHE_SIZE) */
#include "domain.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define OP_DOMAIN_X86 1
#else
#define OP_DOMAIN_X86 0
#endif

/* ---- portable C ------------------------------------------------------------ */

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline void store64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* r[a] byte b <-> r[b] byte a, in three stages of block swaps (4, 2, 1 bytes):
 * for rows x and x+s (x & s == 0) the bytes of row x at columns c+s and of row
 * x+s at columns c (c & s == 0) are exchanged. */
#define SWAP_STAGE(a, b, s, mask)                                                                                      \
    do {                                                                                                               \
        uint64_t t_ = (((a) >> (8 * (s))) ^ (b)) & (mask);                                                             \
        (b) ^= t_;                                                                                                     \
        (a) ^= t_ << (8 * (s));                                                                                        \
    } while (0)

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

static void scalar_to_dpus(const uint8_t *lines, size_t n, uint8_t *const dpu[8])
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r[8];
        for (int j = 0; j < 8; j++)
            r[j] = load64(lines + 64 * i + 8 * j); /* row j: byte k = chip k's byte j */
        transpose8x8(r);
        for (int k = 0; k < 8; k++)
            store64(dpu[k] + 8 * i, r[k]);
    }
}

static void scalar_to_domain(const uint8_t *const dpu[8], size_t n, uint8_t *lines)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r[8];
        for (int k = 0; k < 8; k++)
            r[k] = load64(dpu[k] + 8 * i);
        transpose8x8(r);
        for (int j = 0; j < 8; j++)
            store64(lines + 64 * i + 8 * j, r[j]);
    }
}
#else
static void scalar_to_dpus(const uint8_t *lines, size_t n, uint8_t *const dpu[8])
{
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 8; j++)
            for (int k = 0; k < 8; k++)
                dpu[k][8 * i + j] = lines[64 * i + 8 * j + k];
}

static void scalar_to_domain(const uint8_t *const dpu[8], size_t n, uint8_t *lines)
{
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 8; j++)
            for (int k = 0; k < 8; k++)
                lines[64 * i + 8 * j + k] = dpu[k][8 * i + j];
}
#endif

/* Pointers advanced by `words` 8-byte words. */
static inline void advance(uint8_t *out[8], uint8_t *const in[8], size_t words)
{
    for (int k = 0; k < 8; k++)
        out[k] = in[k] + 8 * words;
}

static inline void advance_c(const uint8_t *out[8], const uint8_t *const in[8], size_t words)
{
    for (int k = 0; k < 8; k++)
        out[k] = in[k] + 8 * words;
}

/* Whether all 8 pointers have the same remainder modulo `align`, a multiple
 * of 8, and that remainder is a multiple of 8; sets *peel to the words before
 * the first aligned one. */
static inline bool common_alignment(uint8_t *const p[8], uintptr_t align, size_t *peel)
{
    uintptr_t r = (uintptr_t)p[0] & (align - 1);
    for (int k = 1; k < 8; k++)
        if (((uintptr_t)p[k] & (align - 1)) != r)
            return false;
    if (r & 7)
        return false;
    *peel = ((align - r) & (align - 1)) / 8;
    return true;
}

static _Atomic size_t nt_threshold_bytes; /* 0 = not computed yet */

static size_t default_nt_threshold(void)
{
    long l3 = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    /* a quarter of the last-level cache (source and destination both pass
     * through it), within [1 MiB, 8 MiB]; some VMs report an inflated L3 */
    size_t t = l3 > 0 ? (size_t)l3 / 4 : (size_t)8 << 20;
    if (t > ((size_t)8 << 20))
        t = (size_t)8 << 20;
    return t < ((size_t)1 << 20) ? (size_t)1 << 20 : t;
}

size_t op_domain_nt_threshold(void)
{
    size_t t = atomic_load_explicit(&nt_threshold_bytes, memory_order_relaxed);
    if (!t) {
        t = default_nt_threshold();
        atomic_store_explicit(&nt_threshold_bytes, t, memory_order_relaxed);
    }
    return t;
}

void op_domain_set_nt_threshold(size_t bytes)
{
    atomic_store_explicit(&nt_threshold_bytes, bytes ? bytes : default_nt_threshold(), memory_order_relaxed);
}

static inline bool want_nt(size_t lines)
{
    return lines >= op_domain_nt_threshold() / 64;
}

#if OP_DOMAIN_X86

/* ---- AVX-512 with VBMI ------------------------------------------------------ */
/* Byte permutes across the whole register (vpermt2b) for the layer that moves
 * chip bits in or out of the byte position; qword unpacks and 128-bit lane
 * shuffles for the two layers that only move whole words. */

#define TGT_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi"), always_inline)) static inline
#define TGT_VBMI_FN __attribute__((target("avx512f,avx512bw,avx512vbmi"))) static
#define TGT_BW __attribute__((target("avx512f,avx512bw"), always_inline)) static inline
#define TGT_BW_FN __attribute__((target("avx512f,avx512bw"))) static
#define TGT_AVX2 __attribute__((target("avx2"), always_inline)) static inline
#define TGT_AVX2_FN __attribute__((target("avx2"))) static

/* Tables of 64 bytes written as expressions of the byte position p. */
#define REP8(f, c, b) f(c, (b) + 0), f(c, (b) + 1), f(c, (b) + 2), f(c, (b) + 3), f(c, (b) + 4), f(c, (b) + 5),        \
                      f(c, (b) + 6), f(c, (b) + 7)
#define REP64(f, c) REP8(f, c, 0), REP8(f, c, 8), REP8(f, c, 16), REP8(f, c, 24), REP8(f, c, 32), REP8(f, c, 40),      \
                    REP8(f, c, 48), REP8(f, c, 56)
#define BIT(p, b) (((p) >> (b)) & 1)

/* vpermt2b indexes (bit 6 selects the second source).  Scatter layer 1, pairing
 * lines by i1 (s = i1 of the source): out pos (k2 i1 k1 j2 j1 j0) <- byte
 * 8j + 4k2 + 2k1 + k0 of line s, with k0 = c for output c. */
#define SCATTER_IDX(c, p) (uint8_t)(BIT(p, 4) << 6 | (8 * ((p) & 7) + 4 * BIT(p, 5) + 2 * BIT(p, 3) + (c)))
/* Gather layer 3, pairing by k2 (s): out pos (j2 j1 j0 k2 k1 k0) <- pos
 * (k1 i1 k0 j2 j1 j0) of register s, with i1 = c for output c. */
#define GATHER_IDX(c, p) (uint8_t)(BIT(p, 2) << 6 | (8 * (4 * BIT(p, 1) + 2 * (c) + BIT(p, 0)) + ((p) >> 3)))
/* vpshufb mask, in-lane (j0 k2 k1 k0) -> (k2 k1 k0 j0), the same in every 128-bit lane. */
#define PSHUFB_KJ(c, p) (uint8_t)((c) + 8 * ((p) & 1) + (((p) & 15) >> 1))

static const _Alignas(64) uint8_t vbmi_scatter_idx[2][64] = { { REP64(SCATTER_IDX, 0) }, { REP64(SCATTER_IDX, 1) } };
static const _Alignas(64) uint8_t vbmi_gather_idx[2][64] = { { REP64(GATHER_IDX, 0) }, { REP64(GATHER_IDX, 1) } };
static const _Alignas(64) uint8_t pshufb_kj[64] = { REP64(PSHUFB_KJ, 0) };

/* Pairing registers by bit b of their index: the lower register of pair
 * p = 0..3 (its partner is that | 1 << b). */
#define PAIR(p, b) ((((p) >> (b)) << ((b) + 1)) | ((p) & ((1 << (b)) - 1)))
/* One butterfly stage over v[8]: each pair (r, r | 1 << b), r = PAIR(p, b),
 * becomes (LO, HI), two expressions of its registers a and b. */
#define PAIR_STAGE(T, b_, LO, HI)                                                                                      \
    _Pragma("GCC unroll 4") for (int p_ = 0; p_ < 4; p_++)                                                             \
    {                                                                                                                  \
        const int r_ = PAIR(p_, b_);                                                                                   \
        T a = v[r_], b = v[r_ | 1 << (b_)];                                                                            \
        v[r_] = (LO);                                                                                                  \
        v[r_ | 1 << (b_)] = (HI);                                                                                      \
    }

/* v[i] = line i (pos 8j + k)  ->  v[r] = 8 words of chip k, r = (k2 k0 k1). */
TGT_VBMI void vbmi_scatter_block(__m512i v[8])
{
    const __m512i x0 = _mm512_load_si512(vbmi_scatter_idx[0]), x1 = _mm512_load_si512(vbmi_scatter_idx[1]);
    /* reg (i2 i1 i0) pos (j k) -> reg (i2 k0 i0) pos (k2 i1 k1 j) */
    PAIR_STAGE(__m512i, 1, _mm512_permutex2var_epi8(a, x0, b), _mm512_permutex2var_epi8(a, x1, b));
    /* pairing reg bit 0 (i0) swaps it with qword bit 0 (k1): reg (i2 k0 k1) pos (k2 i1 i0 j) */
    PAIR_STAGE(__m512i, 0, _mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b));
    /* pairing reg bit 2 (i2) swaps it with lane bit 1 (k2): reg (k2 k0 k1) pos (i2 i1 i0 j) */
    PAIR_STAGE(__m512i, 2, _mm512_shuffle_i64x2(a, b, 0x44), _mm512_shuffle_i64x2(a, b, 0xEE));
}

/* v[k] = 8 words of chip k (pos 8i + j)  ->  v[r] = line i, r = (i1 i2 i0). */
TGT_VBMI void vbmi_gather_block(__m512i v[8])
{
    /* reg (k2 k1 k0) pos (i2 i1 i0 j) -> reg (k2 k1 i0) pos (i2 i1 k0 j) */
    PAIR_STAGE(__m512i, 0, _mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b));
    /* -> reg (k2 i2 i0) pos (k1 i1 k0 j) */
    PAIR_STAGE(__m512i, 1, _mm512_shuffle_i64x2(a, b, 0x44), _mm512_shuffle_i64x2(a, b, 0xEE));
    /* -> reg (i1 i2 i0) pos (j k) */
    const __m512i x0 = _mm512_load_si512(vbmi_gather_idx[0]), x1 = _mm512_load_si512(vbmi_gather_idx[1]);
    PAIR_STAGE(__m512i, 2, _mm512_permutex2var_epi8(a, x0, b), _mm512_permutex2var_epi8(a, x1, b));
}

/* Register holding chip k after a scatter block, and line i after a gather block. */
#define VBMI_SCATTER_REG(k) (((k) & 4) | (((k) & 1) << 1) | (((k) >> 1) & 1))
#define VBMI_GATHER_REG(i) ((((i) & 2) << 1) | (((i) & 4) >> 1) | ((i) & 1))

/* ---- AVX-512BW --------------------------------------------------------------- */
/* In-lane byte shuffles and unpacks plus 128-bit lane shuffles. */

/* v[i] = line i  ->  v[r] = chip k, r = (k1 k2 k0). */
TGT_BW void bw_scatter_block(__m512i v[8])
{
    const __m512i m = _mm512_load_si512(pshufb_kj);
    /* lanes (j2 j1) in-lane (j0 k) -> in-lane (k j0) */
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++)
        v[r] = _mm512_shuffle_epi8(v[r], m);
    /* pairing reg bit 1 (i1): lanes (i1 j2), reg (i2 j1 i0) */
    PAIR_STAGE(__m512i, 1, _mm512_shuffle_i64x2(a, b, 0x88), _mm512_shuffle_i64x2(a, b, 0xDD));
    /* pairing reg bit 2 (i2): lanes (i2 i1), reg (j2 j1 i0) */
    PAIR_STAGE(__m512i, 2, _mm512_shuffle_i64x2(a, b, 0x88), _mm512_shuffle_i64x2(a, b, 0xDD));
    /* 16-bit unpack pairing j1: in-lane (k1 k0 j1 j0), reg (j2 k2 i0) */
    PAIR_STAGE(__m512i, 1, _mm512_unpacklo_epi16(a, b), _mm512_unpackhi_epi16(a, b));
    /* 32-bit unpack pairing j2: in-lane (k0 j2 j1 j0), reg (k1 k2 i0) */
    PAIR_STAGE(__m512i, 2, _mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b));
    /* 64-bit unpack pairing i0: in-lane (i0 j), reg (k1 k2 k0) */
    PAIR_STAGE(__m512i, 0, _mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b));
}

/* v[k] = chip k (lanes (i2 i1) in-lane (i0 j))  ->  v[i] = line i. */
TGT_BW void bw_gather_block(__m512i v[8])
{
    /* 8-bit unpack pairing k0: in-lane (j k0), reg (k2 k1 i0) */
    PAIR_STAGE(__m512i, 0, _mm512_unpacklo_epi8(a, b), _mm512_unpackhi_epi8(a, b));
    /* 16-bit unpack pairing k1: in-lane (j1 j0 k1 k0), reg (k2 j2 i0) */
    PAIR_STAGE(__m512i, 1, _mm512_unpacklo_epi16(a, b), _mm512_unpackhi_epi16(a, b));
    /* 32-bit unpack pairing k2: in-lane (j0 k), reg (j1 j2 i0) */
    PAIR_STAGE(__m512i, 2, _mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b));
    /* pairing reg bit 2 (j1), keeping lane bit 0: lanes (j1 i1), reg (i2 j2 i0) */
    PAIR_STAGE(__m512i, 2, _mm512_shuffle_i64x2(a, b, 0x44), _mm512_shuffle_i64x2(a, b, 0xEE));
    /* pairing reg bit 1 (j2), lane bit 1 moving down: lanes (j2 j1), reg (i2 i1 i0) */
    PAIR_STAGE(__m512i, 1, _mm512_shuffle_i64x2(a, b, 0x88), _mm512_shuffle_i64x2(a, b, 0xDD));
}

#define BW_SCATTER_REG(k) ((((k) & 2) << 1) | (((k) & 4) >> 1) | ((k) & 1))
#define BW_GATHER_REG(i) (i)

/* ---- AVX-512 drivers (shared by VBMI and BW through a macro) ----------------- */
/* Full blocks of 8 lines; the last partial block and the words before the
 * destination is aligned for non-temporal stores use masked loads/stores. */

#define DEFINE_AVX512_IMPL(NAME, TGT, TGT_FN, SCATTER_BLOCK, SCATTER_REG, GATHER_BLOCK, GATHER_REG)                    \
    TGT void NAME##_scatter_part(const uint8_t *lines, size_t n, uint8_t *const dpu[8])                                \
    {                                                                                                                  \
        __m512i v[8];                                                                                                  \
        _Pragma("GCC unroll 8") for (size_t i = 0; i < 8; i++)                                                         \
            v[i] = i < n ? _mm512_loadu_si512(lines + 64 * i) : _mm512_setzero_si512();                                \
        SCATTER_BLOCK(v);                                                                                              \
        __mmask8 m = (__mmask8)((1u << n) - 1);                                                                        \
        _Pragma("GCC unroll 8") for (int k = 0; k < 8; k++)                                                            \
            _mm512_mask_storeu_epi64(dpu[k], m, v[SCATTER_REG(k)]);                                                    \
    }                                                                                                                  \
    TGT void NAME##_scatter_run(const uint8_t *lines, size_t n, uint8_t *const dpu[8], bool nt)                        \
    {                                                                                                                  \
        size_t i = 0;                                                                                                  \
        for (; i + 8 <= n; i += 8) {                                                                                   \
            __m512i v[8];                                                                                              \
            _Pragma("GCC unroll 8") for (int l = 0; l < 8; l++)                                                        \
                v[l] = _mm512_loadu_si512(lines + 64 * (i + l));                                                       \
            SCATTER_BLOCK(v);                                                                                          \
            if (nt)                                                                                                    \
                _Pragma("GCC unroll 8") for (int k = 0; k < 8; k++)                                                    \
                    _mm512_stream_si512((void *)(dpu[k] + 8 * i), v[SCATTER_REG(k)]);                                  \
            else                                                                                                       \
                _Pragma("GCC unroll 8") for (int k = 0; k < 8; k++)                                                    \
                    _mm512_storeu_si512(dpu[k] + 8 * i, v[SCATTER_REG(k)]);                                            \
        }                                                                                                              \
        if (i < n) {                                                                                                   \
            uint8_t *d[8];                                                                                             \
            advance(d, dpu, i);                                                                                        \
            NAME##_scatter_part(lines + 64 * i, n - i, d);                                                             \
        }                                                                                                              \
    }                                                                                                                  \
    TGT_FN void NAME##_to_dpus(const uint8_t *lines, size_t n, uint8_t *const dpu[8])                                  \
    {                                                                                                                  \
        size_t peel;                                                                                                   \
        if (want_nt(n) && common_alignment(dpu, 64, &peel)) {                                                          \
            if (peel > n)                                                                                              \
                peel = n;                                                                                              \
            if (peel)                                                                                                  \
                NAME##_scatter_part(lines, peel, dpu);                                                                 \
            uint8_t *d[8];                                                                                             \
            advance(d, dpu, peel);                                                                                     \
            NAME##_scatter_run(lines + 64 * peel, n - peel, d, true);                                                  \
            _mm_sfence();                                                                                              \
        } else {                                                                                                       \
            NAME##_scatter_run(lines, n, dpu, false);                                                                  \
        }                                                                                                              \
    }                                                                                                                  \
    TGT void NAME##_gather_run(const uint8_t *const dpu[8], size_t n, uint8_t *lines, bool nt)                         \
    {                                                                                                                  \
        size_t i = 0;                                                                                                  \
        for (; i + 8 <= n; i += 8) {                                                                                   \
            __m512i v[8];                                                                                              \
            _Pragma("GCC unroll 8") for (int k = 0; k < 8; k++)                                                        \
                v[k] = _mm512_loadu_si512(dpu[k] + 8 * i);                                                             \
            GATHER_BLOCK(v);                                                                                           \
            if (nt)                                                                                                    \
                _Pragma("GCC unroll 8") for (int l = 0; l < 8; l++)                                                    \
                    _mm512_stream_si512((void *)(lines + 64 * (i + l)), v[GATHER_REG(l)]);                             \
            else                                                                                                       \
                _Pragma("GCC unroll 8") for (int l = 0; l < 8; l++)                                                    \
                    _mm512_storeu_si512(lines + 64 * (i + l), v[GATHER_REG(l)]);                                       \
        }                                                                                                              \
        if (i < n) {                                                                                                   \
            __mmask8 m = (__mmask8)((1u << (n - i)) - 1);                                                              \
            __m512i v[8];                                                                                              \
            _Pragma("GCC unroll 8") for (int k = 0; k < 8; k++)                                                        \
                v[k] = _mm512_maskz_loadu_epi64(m, dpu[k] + 8 * i);                                                    \
            GATHER_BLOCK(v);                                                                                           \
            _Pragma("GCC unroll 8") for (size_t l = 0; l < 8; l++) if (l < n - i)                                      \
                _mm512_storeu_si512(lines + 64 * (i + l), v[GATHER_REG(l)]);                                           \
        }                                                                                                              \
    }                                                                                                                  \
    TGT_FN void NAME##_to_domain(const uint8_t *const dpu[8], size_t n, uint8_t *lines)                                \
    {                                                                                                                  \
        if (want_nt(n) && ((uintptr_t)lines & 63) == 0) {                                                              \
            NAME##_gather_run(dpu, n, lines, true);                                                                    \
            _mm_sfence();                                                                                              \
        } else {                                                                                                       \
            NAME##_gather_run(dpu, n, lines, false);                                                                   \
        }                                                                                                              \
    }

DEFINE_AVX512_IMPL(vbmi, TGT_VBMI, TGT_VBMI_FN, vbmi_scatter_block, VBMI_SCATTER_REG, vbmi_gather_block,
                   VBMI_GATHER_REG)
DEFINE_AVX512_IMPL(bw, TGT_BW, TGT_BW_FN, bw_scatter_block, BW_SCATTER_REG, bw_gather_block, BW_GATHER_REG)

/* ---- AVX2 -------------------------------------------------------------------- */
/* Blocks of 4 lines; the remaining 0..3 lines go through the portable code. */

/* v[r], r = (i0 j2 j1), holds lane i1 <- bytes 32 j2 + 16 j1 of line 2 i1 + i0
 * -> v[r] = 4 words of chip k, r = (k0 k1 k2). */
TGT_AVX2 void avx2_scatter_block(__m256i v[8])
{
    const __m256i m = _mm256_load_si256((const __m256i *)pshufb_kj);
    /* in-lane (j0 k) -> (k j0) */
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++)
        v[r] = _mm256_shuffle_epi8(v[r], m);
    /* 16-bit unpack pairing j1 (bit 0): in-lane (k1 k0 j1 j0), reg (i0 j2 k2) */
    PAIR_STAGE(__m256i, 0, _mm256_unpacklo_epi16(a, b), _mm256_unpackhi_epi16(a, b));
    /* 32-bit unpack pairing j2 (bit 1): in-lane (k0 j2 j1 j0), reg (i0 k1 k2) */
    PAIR_STAGE(__m256i, 1, _mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b));
    /* 64-bit unpack pairing i0 (bit 2): in-lane (i0 j), reg (k0 k1 k2) */
    PAIR_STAGE(__m256i, 2, _mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
}

/* v[k] = 4 words of chip k (lane i1, in-lane (i0 j))  ->  v[r], r = (j1 j2 i0),
 * lane i1 = bytes 32 j2 + 16 j1 of line 2 i1 + i0. */
TGT_AVX2 void avx2_gather_block(__m256i v[8])
{
    /* 8-bit unpack pairing k0: in-lane (j k0), reg (k2 k1 i0) */
    PAIR_STAGE(__m256i, 0, _mm256_unpacklo_epi8(a, b), _mm256_unpackhi_epi8(a, b));
    /* 16-bit unpack pairing k1: in-lane (j1 j0 k1 k0), reg (k2 j2 i0) */
    PAIR_STAGE(__m256i, 1, _mm256_unpacklo_epi16(a, b), _mm256_unpackhi_epi16(a, b));
    /* 32-bit unpack pairing k2: in-lane (j0 k), reg (j1 j2 i0) */
    PAIR_STAGE(__m256i, 2, _mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b));
}

/* Lines l .. l+3 -> v[k] = their 4 words of chip k. */
TGT_AVX2 void avx2_scatter4(const uint8_t *l, __m256i v[8])
{
    __m256i t[8];
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++) {
        size_t i0 = (size_t)(r >> 2), off = 16 * (size_t)(r & 3);
        __m128i lo = _mm_loadu_si128((const __m128i *)(l + 64 * i0 + off));
        __m128i hi = _mm_loadu_si128((const __m128i *)(l + 64 * (2 + i0) + off));
        t[r] = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
    }
    avx2_scatter_block(t);
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++)
        v[k] = t[((k & 1) << 2) | (k & 2) | ((k >> 2) & 1)];
}

/* With nt, the DPU pointers are 64-byte aligned: blocks of 8 lines write whole
 * 64-byte lines of each DPU, which is what write-combining wants. */
TGT_AVX2 void avx2_scatter_run(const uint8_t *lines, size_t n, uint8_t *const dpu[8], bool nt)
{
    size_t i = 0;
    if (nt) {
        for (; i + 8 <= n; i += 8) {
            __m256i a[8], b[8];
            avx2_scatter4(lines + 64 * i, a);
            avx2_scatter4(lines + 64 * (i + 4), b);
#pragma GCC unroll 8
            for (int k = 0; k < 8; k++) {
                _mm256_stream_si256((__m256i *)(dpu[k] + 8 * i), a[k]);
                _mm256_stream_si256((__m256i *)(dpu[k] + 8 * i + 32), b[k]);
            }
        }
    }
    for (; i + 4 <= n; i += 4) {
        __m256i v[8];
        avx2_scatter4(lines + 64 * i, v);
#pragma GCC unroll 8
        for (int k = 0; k < 8; k++)
            _mm256_storeu_si256((__m256i *)(dpu[k] + 8 * i), v[k]);
    }
    if (i < n) {
        uint8_t *d[8];
        advance(d, dpu, i);
        scalar_to_dpus(lines + 64 * i, n - i, d);
    }
}

TGT_AVX2_FN void avx2_to_dpus(const uint8_t *lines, size_t n, uint8_t *const dpu[8])
{
    size_t peel;
    if (want_nt(n) && common_alignment(dpu, 64, &peel)) {
        if (peel > n)
            peel = n;
        scalar_to_dpus(lines, peel, dpu);
        uint8_t *d[8];
        advance(d, dpu, peel);
        avx2_scatter_run(lines + 64 * peel, n - peel, d, true);
        _mm_sfence();
    } else {
        avx2_scatter_run(lines, n, dpu, false);
    }
}

/* With nt, `lines` is 64-byte aligned; each line's two halves are stored one
 * after the other. */
TGT_AVX2 void avx2_gather_run(const uint8_t *const dpu[8], size_t n, uint8_t *lines, bool nt)
{
    for (size_t i = 0; i + 4 <= n; i += 4) {
        __m256i v[8];
#pragma GCC unroll 8
        for (int k = 0; k < 8; k++)
            v[k] = _mm256_loadu_si256((const __m256i *)(dpu[k] + 8 * i));
        avx2_gather_block(v);
        /* v[r], r = (j1 j2 i0): pairing reg bit 2 (j1) gives bytes 32 j2 .. 32 j2 + 31
         * of line i0 (low lanes) and of line 2 + i0 (high lanes) */
        __m256i out[4][2]; /* [line][j2] */
#pragma GCC unroll 4
        for (int r = 0; r < 4; r++) {
            int j2 = r >> 1, i0 = r & 1;
            out[i0][j2] = _mm256_permute2x128_si256(v[r], v[r | 4], 0x20);
            out[2 + i0][j2] = _mm256_permute2x128_si256(v[r], v[r | 4], 0x31);
        }
#pragma GCC unroll 4
        for (int l = 0; l < 4; l++) {
            uint8_t *p = lines + 64 * (i + (size_t)l);
            if (nt) {
                _mm256_stream_si256((__m256i *)p, out[l][0]);
                _mm256_stream_si256((__m256i *)(p + 32), out[l][1]);
            } else {
                _mm256_storeu_si256((__m256i *)p, out[l][0]);
                _mm256_storeu_si256((__m256i *)(p + 32), out[l][1]);
            }
        }
    }
    size_t done = n & ~(size_t)3;
    if (done < n) {
        const uint8_t *d[8];
        advance_c(d, dpu, done);
        scalar_to_domain(d, n - done, lines + 64 * done);
    }
}

TGT_AVX2_FN void avx2_to_domain(const uint8_t *const dpu[8], size_t n, uint8_t *lines)
{
    if (want_nt(n) && ((uintptr_t)lines & 63) == 0) {
        avx2_gather_run(dpu, n, lines, true);
        _mm_sfence();
    } else {
        avx2_gather_run(dpu, n, lines, false);
    }
}

#endif /* OP_DOMAIN_X86 */

/* ---- selection ---------------------------------------------------------------- */

struct impl {
    const char *name;
    void (*to_dpus)(const uint8_t *, size_t, uint8_t *const[8]);
    void (*to_domain)(const uint8_t *const[8], size_t, uint8_t *);
};

enum { IMPL_VBMI, IMPL_BW, IMPL_AVX2, IMPL_SCALAR, NR_IMPLS };

static const struct impl impls[NR_IMPLS] = {
#if OP_DOMAIN_X86
    [IMPL_VBMI] = { "avx512vbmi", vbmi_to_dpus, vbmi_to_domain },
    [IMPL_BW] = { "avx512bw", bw_to_dpus, bw_to_domain },
    [IMPL_AVX2] = { "avx2", avx2_to_dpus, avx2_to_domain },
#else
    [IMPL_VBMI] = { "avx512vbmi", NULL, NULL },
    [IMPL_BW] = { "avx512bw", NULL, NULL },
    [IMPL_AVX2] = { "avx2", NULL, NULL },
#endif
    [IMPL_SCALAR] = { "scalar", scalar_to_dpus, scalar_to_domain },
};

static bool supported(int which)
{
#if OP_DOMAIN_X86
    __builtin_cpu_init();
    switch (which) {
    case IMPL_VBMI:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vbmi");
    case IMPL_BW:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
    case IMPL_AVX2:
        return __builtin_cpu_supports("avx2");
    default:
        return which == IMPL_SCALAR;
    }
#else
    return which == IMPL_SCALAR;
#endif
}

static _Atomic(const struct impl *) current;

static const struct impl *best(void)
{
    for (int i = 0; i < NR_IMPLS; i++)
        if (supported(i))
            return &impls[i];
    return &impls[IMPL_SCALAR];
}

static inline const struct impl *get(void)
{
    const struct impl *p = atomic_load_explicit(&current, memory_order_acquire);
    if (!p) {
        p = best();
        atomic_store_explicit(&current, p, memory_order_release);
    }
    return p;
}

void op_domain_to_dpus(const uint8_t *lines, size_t nr_lines, uint8_t *dpu[8])
{
    if (nr_lines)
        get()->to_dpus(lines, nr_lines, dpu);
}

void op_dpus_to_domain(const uint8_t *const dpu[8], size_t nr_words, uint8_t *lines)
{
    if (nr_words)
        get()->to_domain(dpu, nr_words, lines);
}

const char *op_domain_impl_name(void)
{
    return get()->name;
}

int op_domain_force_impl(const char *name)
{
    if (!name || !strcmp(name, "auto")) {
        atomic_store_explicit(&current, best(), memory_order_release);
        return 0;
    }
    for (int i = 0; i < NR_IMPLS; i++)
        if (!strcmp(name, impls[i].name)) {
            if (!supported(i))
                return -1;
            atomic_store_explicit(&current, &impls[i], memory_order_release);
            return 0;
        }
    return -1;
}
