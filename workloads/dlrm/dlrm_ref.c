/* SPDX-License-Identifier: MIT */
/* DLRM's CPU reference (see dlrm.h): the same pooled embeddings, interactions
 * and top MLP as the DPUs compute, in plain C on one thread, compiled -O3 so
 * that the compiler vectorises it for the benchmarks' CPU baseline. */
#include <string.h>

#include "dlrm.h"

static int32_t requant(int32_t v, uint32_t shift)
{
    if (v <= 0)
        return 0;
    v >>= shift;
    return v > 255 ? 255 : v;
}

/* The top MLP on one sample's interactions. */
static int32_t top_mlp(const int8_t *w, const int32_t *inter)
{
    int32_t a0[DLRM_TOP_IN0], a1[DLRM_TOP_N1], a2[DLRM_TOP_N2];
    for (int k = 0; k < DLRM_TOP_IN0; k++)
        a0[k] = requant(inter[k], DLRM_TOP_SHIFT0);
    for (int o = 0; o < DLRM_TOP_N1; o++) {
        int32_t acc = 0;
        for (int k = 0; k < DLRM_TOP_IN0; k++)
            acc += w[o * DLRM_TOP_ROW0 + k] * a0[k];
        a1[o] = requant(acc, DLRM_TOP_SHIFT1);
    }
    w += DLRM_TOP_N1 * DLRM_TOP_ROW0;
    for (int o = 0; o < DLRM_TOP_N2; o++) {
        int32_t acc = 0;
        for (int k = 0; k < DLRM_TOP_N1; k++)
            acc += w[o * DLRM_TOP_N1 + k] * a1[k];
        a2[o] = requant(acc, DLRM_TOP_SHIFT2);
    }
    w += DLRM_TOP_N2 * DLRM_TOP_N1;
    int32_t acc = 0;
    for (int k = 0; k < DLRM_TOP_N2; k++)
        acc += w[k] * a2[k];
    return acc;
}

int dlrm_cpu(const struct dlrm_model *m, const uint32_t *idx, int32_t *logit, int32_t *inter_out, int32_t *emb_out)
{
    if (dlrm_check_batch(m, idx))
        return -1;
    int32_t inter[DLRM_PAIRS];
    const struct dlrm_config *c = &m->cfg;
    const uint32_t D = c->dim;
    uint32_t v[DLRM_TABLES * DLRM_MAX_DIM];
    for (uint32_t b = 0; b < c->batch; b++) {
        for (int g = 0; g < DLRM_TABLES; g++) {
            uint32_t *e = &v[g * D];
            memset(e, 0, D * sizeof *e);
            for (uint32_t k = 0; k < c->pooling; k++) {
                const int32_t *row = &m->table[g][(size_t)idx[((size_t)b * DLRM_TABLES + g) * c->pooling + k] * D];
                for (uint32_t d = 0; d < D; d++)
                    e[d] += (uint32_t)row[d];
            }
        }
        if (emb_out)
            memcpy(&emb_out[(size_t)b * DLRM_TABLES * D], v, DLRM_TABLES * D * sizeof *v);
        uint32_t k = 0;
        for (int i = 0; i < DLRM_TABLES; i++)
            for (int j = i + 1; j < DLRM_TABLES; j++) {
                uint32_t acc = 0;
                for (uint32_t d = 0; d < D; d++)
                    acc += v[i * D + d] * v[j * D + d];
                inter[k++] = (int32_t)acc;
            }
        if (inter_out)
            memcpy(&inter_out[(size_t)b * DLRM_PAIRS], inter, sizeof inter);
        if (logit)
            logit[b] = top_mlp(m->top, inter);
    }
    return 0;
}

