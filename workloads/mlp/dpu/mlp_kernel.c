/* SPDX-License-Identifier: MIT */
/* One MLP layer on a column block of the weights (see ../mlp.h): the node's
 * input slice goes to WRAM once (through the requantising ReLU), then each
 * tasklet takes 8 consecutive outputs at a time, streams their weight rows
 * through WRAM and writes the 8 partial sums of every batch row in one DMA. */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#include "../mlp_kernel_abi.h"

#define WCHUNK 256u /* weights per DMA (1 KB) */

__host struct mlp_args mlp_args;

__dma_aligned static int32_t in[MLP_MAX_INPUT];
__dma_aligned static int32_t wbuf[NR_TASKLETS][WCHUNK];
__dma_aligned static int32_t acc[NR_TASKLETS][MLP_MAX_BATCH][8];

BARRIER_INIT(loaded, NR_TASKLETS);

#define MRAM(off) ((__mram_ptr void *)(uintptr_t)(0x08000000u + (uint32_t)(off)))

static int32_t relu_q(int32_t v)
{
    if (v <= 0)
        return 0;
    v >>= MLP_SHIFT;
    return v > 255 ? 255 : v;
}

int main(void)
{
    const uint32_t id = me();
    const struct mlp_args a = mlp_args;
    const uint32_t n_in = a.batch * a.Fp;

    for (uint32_t i = id * 512; i < n_in; i += NR_TASKLETS * 512) {
        uint32_t n = n_in - i < 512 ? n_in - i : 512;
        mram_read(MRAM(a.off_in + i * 4), &in[i], n * 4);
        if (a.act)
            for (uint32_t k = 0; k < n; k++)
                in[i + k] = relu_q(in[i + k]);
    }
    barrier_wait(&loaded);

    for (uint32_t c = id; c < a.F / 8; c += NR_TASKLETS) {
        const uint32_t o0 = c * 8;
        for (uint32_t b = 0; b < a.batch; b++)
            for (uint32_t i = 0; i < 8; i++)
                acc[id][b][i] = 0;
        for (uint32_t i = 0; i < 8; i++) {
            const uint32_t o = o0 + i;
            for (uint32_t k0 = 0; k0 < a.Fp; k0 += WCHUNK) {
                const uint32_t n = a.Fp - k0 < WCHUNK ? a.Fp - k0 : WCHUNK;
                mram_read(MRAM(a.off_w + (o * a.Fp + k0) * 4), wbuf[id], n * 4);
                for (uint32_t b = 0; b < a.batch; b++) {
                    const int32_t *x = &in[b * a.Fp + k0];
                    int32_t s = 0;
                    for (uint32_t k = 0; k < n; k++)
                        s += wbuf[id][k] * x[k];
                    acc[id][b][i] += s;
                }
            }
        }
        const uint32_t p = o0 / a.Fp, j0 = o0 % a.Fp;
        for (uint32_t b = 0; b < a.batch; b++)
            mram_write(acc[id][b], MRAM(a.off_part + ((p * a.batch + b) * a.Fp + j0) * 4), 8 * 4);
    }
    return 0;
}
