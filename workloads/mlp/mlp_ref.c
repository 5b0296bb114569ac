/* SPDX-License-Identifier: MIT */
/* The MLP's CPU reference (see mlp.h): the same layers as the DPUs compute,
 * in plain C on one thread, compiled -O3 so that the compiler vectorises it
 * for the benchmarks' CPU baseline. */
#include <stdlib.h>
#include <string.h>

#include "mlp.h"
#include "mlp_kernel_abi.h"

int mlp_fail_nomem(void);

static int32_t relu_q(int32_t v)
{
    if (v <= 0)
        return 0;
    v >>= MLP_SHIFT;
    return v > 255 ? 255 : v;
}

int mlp_cpu(const struct mlp_model *m, int32_t *out)
{
    const struct mlp_config *c = &m->cfg;
    const size_t F = c->features, B = c->batch;
    int32_t *a = malloc(B * F * sizeof *a);
    if (!a)
        return mlp_fail_nomem();
    memcpy(a, m->x, B * F * sizeof *a);
    for (uint32_t l = 0; l < c->layers; l++) {
        const int32_t *w = &m->w[(size_t)l * F * F];
        if (l > 0)
            for (size_t i = 0; i < B * F; i++)
                a[i] = relu_q(out[i]);
        for (size_t b = 0; b < B; b++)
            for (size_t o = 0; o < F; o++) {
                const int32_t *wr = &w[o * F], *x = &a[b * F];
                int32_t s = 0;
                for (size_t k = 0; k < F; k++)
                    s += wr[k] * x[k];
                out[b * F + o] = s;
            }
    }
    free(a);
    return 0;
}

