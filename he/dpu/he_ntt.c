/* SPDX-License-Identifier: MIT */
/* Negacyclic NTT (Cooley-Tukey, natural order in, bit-reversed out) and its
 * inverse (Gentleman-Sande, bit-reversed in, natural out), one sub-polynomial
 * per tasklet, streamed through WRAM.
 *
 * Forward, stage with m groups of half-size t = n / 2m: group i pairs
 * a[2it + j] with a[2it + j + t] under tw[m + i] = psi^bitrev(m + i).
 * Stages with t >= C (C = HE_NTT_CHUNK) stream both halves in chunks of C
 * words; once t < C every remaining stage stays inside blocks of 2C words,
 * so each block is read once, transformed through all of them, written once.
 * The inverse runs the stages backwards with the twiddles' inverses, stored in
 * the order it reads them (DRAMatic's "scrambled" table): stage with h groups
 * at itw[n - 2h + i]; the last stage folds in n^-1 (itw[n - 2] = psi^-1 * n^-1
 * premultiplied by the host). */
#include "he_kernels.h"

#define C HE_NTT_CHUNK

static inline void ct_butterflies(uint32_t *x, uint32_t *y, uint32_t count, uint32_t w, struct he_mod m)
{
    for (uint32_t k = 0; k < count; k++) {
        uint32_t u = x[k];
        uint32_t v = he_mulmod(y[k], w, m);
        x[k] = he_addmod(u, v, m);
        y[k] = he_submod(u, v, m);
    }
}

static inline void gs_butterflies(uint32_t *x, uint32_t *y, uint32_t count, uint32_t w, struct he_mod m)
{
    for (uint32_t k = 0; k < count; k++) {
        uint32_t u = x[k], v = y[k];
        x[k] = he_addmod(u, v, m);
        y[k] = he_mulmod(he_submod(u, v, m), w, m);
    }
}

void he_ntt_forward(he_mram_t a, he_mram_t tw, uint32_t n, struct he_mod m, uint32_t *wram)
{
    uint32_t *blk = wram;              /* 2C words */
    uint32_t *twb = wram + 2 * C;      /* C + 2 words */
    uint32_t groups = 1, t = n >> 1;
    for (; t >= C; groups <<= 1, t >>= 1) {
        for (uint32_t i0 = 0; i0 < groups; i0 += C) {
            uint32_t cnt = groups - i0 < C ? groups - i0 : C;
            const uint32_t *w = he_load_words(tw, groups + i0, cnt, twb);
            for (uint32_t i = 0; i < cnt; i++) {
                uint32_t j1 = 2 * (i0 + i) * t;
                for (uint32_t j = j1; j < j1 + t; j += C) {
                    mram_read(a + j, blk, C * 4);
                    mram_read(a + j + t, blk + C, C * 4);
                    ct_butterflies(blk, blk + C, C, w[i], m);
                    mram_write(blk, a + j, C * 4);
                    mram_write(blk + C, a + j + t, C * 4);
                }
            }
        }
    }
    for (uint32_t b = 0; b < n / (2 * C); b++) {
        mram_read(a + b * 2 * C, blk, 2 * C * 4);
        for (uint32_t g = groups, tt = t; tt >= 1; g <<= 1, tt >>= 1) {
            uint32_t per_block = C / tt;
            const uint32_t *w = he_load_words(tw, g + b * per_block, per_block, twb);
            for (uint32_t i = 0; i < per_block; i++)
                ct_butterflies(blk + 2 * i * tt, blk + 2 * i * tt + tt, tt, w[i], m);
        }
        mram_write(blk, a + b * 2 * C, 2 * C * 4);
    }
}

void he_ntt_inverse(he_mram_t a, he_mram_t itw, uint32_t n, uint32_t n_inv, struct he_mod m, uint32_t *wram)
{
    uint32_t *blk = wram;
    uint32_t *twb = wram + 2 * C;
    for (uint32_t b = 0; b < n / (2 * C); b++) {
        mram_read(a + b * 2 * C, blk, 2 * C * 4);
        for (uint32_t h = n >> 1, tt = 1; tt < C; h >>= 1, tt <<= 1) {
            uint32_t per_block = C / tt;
            const uint32_t *w = he_load_words(itw, n - 2 * h + b * per_block, per_block, twb);
            for (uint32_t i = 0; i < per_block; i++)
                gs_butterflies(blk + 2 * i * tt, blk + 2 * i * tt + tt, tt, w[i], m);
        }
        mram_write(blk, a + b * 2 * C, 2 * C * 4);
    }
    for (uint32_t h = n / (2 * C), t = C; h >= 1; h >>= 1, t <<= 1) {
        for (uint32_t i0 = 0; i0 < h; i0 += C) {
            uint32_t cnt = h - i0 < C ? h - i0 : C;
            const uint32_t *w = he_load_words(itw, n - 2 * h + i0, cnt, twb);
            for (uint32_t i = 0; i < cnt; i++) {
                uint32_t j1 = 2 * (i0 + i) * t;
                for (uint32_t j = j1; j < j1 + t; j += C) {
                    mram_read(a + j, blk, C * 4);
                    mram_read(a + j + t, blk + C, C * 4);
                    if (h == 1) {
                        /* last stage: x = (u + v) n^-1, y = (u - v) psi^-1 n^-1 */
                        for (uint32_t k = 0; k < C; k++) {
                            uint32_t u = blk[k], v = blk[C + k];
                            blk[k] = he_mulmod(he_addmod(u, v, m), n_inv, m);
                            blk[C + k] = he_mulmod(he_submod(u, v, m), w[i], m);
                        }
                    } else {
                        gs_butterflies(blk, blk + C, C, w[i], m);
                    }
                    mram_write(blk, a + j, C * 4);
                    mram_write(blk + C, a + j + t, C * 4);
                }
            }
        }
    }
}
