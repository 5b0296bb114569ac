/* SPDX-License-Identifier: MIT */
#include "gnn_ref.h"

#include <stdlib.h>
#include <string.h>

/* One layer loop per element type T (int8_t, int32_t).  Sums are uint32_t:
 * they wrap modulo 2^32, which keeps them exact modulo 2^(8 sizeof(T)); each
 * element enters a sum sign-extended.  ReLU reads the truncated element as
 * signed.  Plain loops the compiler vectorises (this is also the CPU time the
 * benchmarks report); the combination takes REF_ROWS rows per pass over W, so
 * that each row of W is reused from L1 rather than streamed once per vertex
 * (W is 8 MB at 1,433 int32 features). */
#define REF_ROWS 8
#define GNN_REF_FOR(T, NAME)                                                                                           \
    /* AVX2 where the CPU has it: the CPU time should be a fair one */                                            \
    __attribute__((target_clones("avx2", "default"))) static void NAME(                                             \
        const struct csr *a, uint32_t F, uint32_t layers, const void *const *w, T *h, T *z, uint32_t *sum)          \
    {                                                                                                                  \
        const size_t V = a->nr_vertices;                                                                               \
        for (uint32_t l = 0; l < layers; l++) {                                                                        \
            const T *W = (const T *)w[l];                                                                              \
            for (size_t u = 0; u < V; u++) { /* Z = A H */                                                             \
                memset(sum, 0, (size_t)F * sizeof *sum);                                                               \
                for (uint32_t e = a->rp[u]; e < a->rp[u + 1]; e++) {                                                   \
                    const T *hv = h + (size_t)a->col[e] * F;                                                           \
                    for (uint32_t f = 0; f < F; f++)                                                                   \
                        sum[f] += (uint32_t)(int32_t)hv[f];                                                            \
                }                                                                                                      \
                for (uint32_t f = 0; f < F; f++)                                                                       \
                    z[u * F + f] = (T)sum[f];                                                                          \
            }                                                                                                          \
            for (size_t u0 = 0; u0 < V; u0 += REF_ROWS) { /* H = ReLU(Z W), REF_ROWS rows at a time */               \
                const size_t nb = V - u0 < REF_ROWS ? V - u0 : REF_ROWS;                                               \
                memset(sum, 0, nb * F * sizeof *sum);                                                                  \
                for (uint32_t k = 0; k < F; k++) {                                                                     \
                    const T *wk = W + (size_t)k * F;                                                                   \
                    for (size_t b = 0; b < nb; b++) {                                                                  \
                        const uint32_t zk = (uint32_t)(int32_t)z[(u0 + b) * F + k];                                    \
                        uint32_t *s = sum + b * F;                                                                     \
                        for (uint32_t j = 0; j < F; j++)                                                               \
                            s[j] += zk * (uint32_t)(int32_t)wk[j];                                                     \
                    }                                                                                                  \
                }                                                                                                      \
                for (size_t b = 0; b < nb; b++)                                                                        \
                    for (uint32_t j = 0; j < F; j++) {                                                                 \
                        T x = (T)sum[b * F + j];                                                                       \
                        h[(u0 + b) * F + j] = x < 0 ? 0 : x;                                                           \
                    }                                                                                                  \
            }                                                                                                          \
        }                                                                                                              \
    }

GNN_REF_FOR(int8_t, ref_int8)
GNN_REF_FOR(int32_t, ref_int32)

int gnn_ref(const struct csr *a, uint32_t F, uint32_t eb, uint32_t layers, const void *const *w, void *h)
{
    void *z = malloc((size_t)a->nr_vertices * F * eb);
    uint32_t *sum = malloc((size_t)REF_ROWS * F * sizeof *sum);
    if (!z || !sum || (eb != 1 && eb != 4)) {
        free(z);
        free(sum);
        return -1;
    }
    if (eb == 1)
        ref_int8(a, F, layers, w, h, z, sum);
    else
        ref_int32(a, F, layers, w, h, z, sum);
    free(z);
    free(sum);
    return 0;
}
