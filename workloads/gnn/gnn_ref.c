#include "gnn_ref.h"

#include <stdlib.h>
#include <string.h>

/* One layer loop per element type T (int8_t, int32_t).  Sums are uint32_t:
 * they wrap modulo 2^32, which keeps them exact modulo 2^(8 sizeof(T)); each
 * element enters a sum sign-extended.  ReLU reads the truncated element as
 * signed.  Plain loops the compiler vectorises (this is also the CPU time the
 * benchmarks report). */
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
            for (size_t u = 0; u < V; u++) { /* H = ReLU(Z W), row by row */                                           \
                memset(sum, 0, (size_t)F * sizeof *sum);                                                               \
                for (uint32_t k = 0; k < F; k++) {                                                                     \
                    const uint32_t zk = (uint32_t)(int32_t)z[u * F + k];                                               \
                    const T *wk = W + (size_t)k * F;                                                                   \
                    for (uint32_t j = 0; j < F; j++)                                                                   \
                        sum[j] += zk * (uint32_t)(int32_t)wk[j];                                                       \
                }                                                                                                      \
                for (uint32_t j = 0; j < F; j++) {                                                                     \
                    T x = (T)sum[j];                                                                                   \
                    h[u * F + j] = x < 0 ? 0 : x;                                                                      \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
    }

GNN_REF_FOR(int8_t, ref_int8)
GNN_REF_FOR(int32_t, ref_int32)

int gnn_ref(const struct csr *a, uint32_t F, uint32_t eb, uint32_t layers, const void *const *w, void *h)
{
    void *z = malloc((size_t)a->nr_vertices * F * eb);
    uint32_t *sum = malloc((size_t)F * sizeof *sum);
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
