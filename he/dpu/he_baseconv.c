/* SPDX-License-Identifier: MIT */
/* RNS fast base conversion on the DPU (the ModUp / ModDown / rescale step of
 * RNS-CKKS key switching), fine-grained like the element-wise kernels: the
 * tasklets take every NR_TASKLETS-th block of HE_EW_WORDS words.  The host
 * relays the scaled source residues between the two steps (src/he_baseconv.c). */
#include <defs.h>

#include "he_kernels.h"

#define E HE_EW_WORDS

void he_bconv(const struct he_dpu_cmd *cmd, uint32_t n, uint32_t slots, struct he_mod m, uint32_t *wram)
{
    /* this DPU's constants: header then weights (at most HE_MAX_MODULI = 128) */
    uint32_t *k = wram, *x = wram + HE_BCONV_HEADER + 128 + 2, *acc = x + E;
    mram_read(he_at(cmd->src[1]), k, HE_BCONV_HEADER * 4);
    const uint32_t role = k[0], scale = k[1], nf = k[2], fits = k[3];
    if (role == HE_BCONV_TO && cmd->op == HE_OP_BCONV_SUM)
        mram_read(he_at(cmd->src[1]) + HE_BCONV_HEADER, k + HE_BCONV_HEADER, ((nf + 1) & ~1u) * 4);
    const uint32_t *w = k + HE_BCONV_HEADER;
    const uint32_t words = slots * n;
    for (uint32_t b = me() * E; b < words; b += NR_TASKLETS * E) {
        if (cmd->op == HE_OP_BCONV_SCALE) {
            if (role == HE_BCONV_FROM) {
                mram_read(he_at(cmd->src[0]) + b, x, E * 4);
                mram_write(x, he_at(cmd->dst[0]) + b, E * 4);
                for (uint32_t i = 0; i < E; i++)
                    x[i] = he_mulmod(x[i], scale, m);
                mram_write(x, he_at(cmd->dst[1]) + b, E * 4);
            } else if (role == HE_BCONV_NONE) {
                for (uint32_t i = 0; i < E; i++)
                    x[i] = 0;
                mram_write(x, he_at(cmd->dst[0]) + b, E * 4);
            }
        } else if (role == HE_BCONV_TO) {
            /* E divides n, so a block stays inside one slot */
            he_mram_t src = he_at(cmd->src[0]) + (b / n) * nf * n + b % n;
            for (uint32_t f = 0; f < nf; f++) {
                mram_read(src + f * n, x, E * 4);
                /* a source residue is < 2^30 < q^2; unless it fits q's bits, reduce it before weighing
                 * it (Barrett needs the product below 2^(2 bits(q))) */
                if (fits)
                    for (uint32_t i = 0; i < E; i++) {
                        uint32_t t = he_mulmod(x[i], w[f], m);
                        acc[i] = f ? he_addmod(acc[i], t, m) : t;
                    }
                else
                    for (uint32_t i = 0; i < E; i++) {
                        uint32_t t = he_mulmod(he_reduce(x[i], m), w[f], m);
                        acc[i] = f ? he_addmod(acc[i], t, m) : t;
                    }
            }
            mram_write(acc, he_at(cmd->dst[0]) + b, E * 4);
        }
    }
}
