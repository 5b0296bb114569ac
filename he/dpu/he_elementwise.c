/* SPDX-License-Identifier: MIT */
/* Element-wise kernels, fine-grained: the DPU's sub-polynomials of an array lie
 * contiguously, so the tasklets split that flat range of words into blocks of
 * HE_EW_WORDS and take every NR_TASKLETS-th block. */
#include <defs.h>

#include "he_kernels.h"

#define E HE_EW_WORDS

void he_elementwise(const struct he_dpu_cmd *cmd, uint32_t words, struct he_mod m, uint32_t *wram)
{
    uint32_t *x = wram, *y = wram + E, *z = wram + 2 * E, *u = wram + 3 * E;
    for (uint32_t w = me() * E; w < words; w += NR_TASKLETS * E) {
        switch (cmd->op) {
        case HE_OP_ADD:
        case HE_OP_SUB:
        case HE_OP_MUL:
            mram_read(he_at(cmd->src[0]) + w, x, E * 4);
            mram_read(he_at(cmd->src[1]) + w, y, E * 4);
            if (cmd->op == HE_OP_ADD)
                for (uint32_t k = 0; k < E; k++)
                    x[k] = he_addmod(x[k], y[k], m);
            else if (cmd->op == HE_OP_SUB)
                for (uint32_t k = 0; k < E; k++)
                    x[k] = he_submod(x[k], y[k], m);
            else
                for (uint32_t k = 0; k < E; k++)
                    x[k] = he_mulmod(x[k], y[k], m);
            mram_write(x, he_at(cmd->dst[0]) + w, E * 4);
            break;
        case HE_OP_NEG:
            mram_read(he_at(cmd->src[0]) + w, x, E * 4);
            for (uint32_t k = 0; k < E; k++)
                x[k] = x[k] ? m.q - x[k] : 0;
            mram_write(x, he_at(cmd->dst[0]) + w, E * 4);
            break;
        case HE_OP_COPY:
            mram_read(he_at(cmd->src[0]) + w, x, E * 4);
            mram_write(x, he_at(cmd->dst[0]) + w, E * 4);
            break;
        case HE_OP_BGV_TENSOR:
            /* (a0, a1) x (b0, b1) -> (a0 b0, a0 b1 + a1 b0, a1 b1), in NTT form */
            mram_read(he_at(cmd->src[0]) + w, x, E * 4);
            mram_read(he_at(cmd->src[1]) + w, y, E * 4);
            mram_read(he_at(cmd->src[2]) + w, z, E * 4);
            mram_read(he_at(cmd->src[3]) + w, u, E * 4);
            for (uint32_t k = 0; k < E; k++) {
                uint32_t a0 = x[k], a1 = y[k], b0 = z[k], b1 = u[k];
                x[k] = he_mulmod(a0, b0, m);
                y[k] = he_addmod(he_mulmod(a0, b1, m), he_mulmod(a1, b0, m), m);
                z[k] = he_mulmod(a1, b1, m);
            }
            mram_write(x, he_at(cmd->dst[0]) + w, E * 4);
            mram_write(y, he_at(cmd->dst[1]) + w, E * 4);
            mram_write(z, he_at(cmd->dst[2]) + w, E * 4);
            break;
        default:
            break;
        }
    }
}
