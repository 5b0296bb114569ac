/* SPDX-License-Identifier: MIT */
/* Single-DPU NTT study (Jonatan et al., Sec. 5.2.1, Fig. 12): one 256-point
 * negacyclic NTT in WRAM with radix-R butterflies (R = RADIX = 2, 4 or 16).
 * log2(256) radix-2 layers are merged s = log2(R) at a time: a stage has
 * 256/R butterflies of R elements, given to the tasklets round-robin, with a
 * barrier between stages.  A radix-R butterfly loads its R elements once,
 * applies the s Cooley-Tukey layers to them in registers (the loops are
 * unrolled, so the elements need no WRAM loads and stores between layers: the
 * paper's "temporal locality") and stores them once; the output is the
 * radix-2 NTT's (bit-reversed order, SEAL's convention), which the host checks.
 *
 * Code size: a radix-16 butterfly is 32 radix-2 ones; with the ~130-instruction
 * Barrett multiply inlined into each, it is over 4,000 instructions, more than
 * the DPU's IRAM (4,096 instructions on v1A, 3,968 on v1B; the emulator does
 * not enforce it).  RADIX16_CALL=1 calls one out-of-line multiply instead
 * (fits; a call and the multiply's constants set up again per butterfly). */
#include <stdint.h>

#include <barrier.h>
#include <defs.h>
#include <mram.h>

#define HE_MUL_CUSTOM
#include "../../he/dpu/he_modarith.h"

#define N 256
#define LOG_N 8
#if RADIX == 2
#define LOG_R 1
#elif RADIX == 4
#define LOG_R 2
#elif RADIX == 16
#define LOG_R 4
#else
#error "RADIX must be 2, 4 or 16"
#endif

__host uint32_t rx_q, rx_bits, rx_mu;
__host uint32_t rx_tw[N]; /* rx_tw[m + i] = psi^bitrev(m + i) */
__mram_noinit uint32_t rx_data[N];
static uint32_t data[N] __attribute__((aligned(8)));

BARRIER_INIT(stage_barrier, NR_TASKLETS);

#ifndef RADIX16_CALL
#define RADIX16_CALL 0
#endif
#if RADIX == 16 && RADIX16_CALL
static __attribute__((noinline)) uint32_t bf_mulmod(uint32_t a, uint32_t b, struct he_mod m)
{
    return he_mulmod(a, b, m);
}
#else
#define bf_mulmod he_mulmod
#endif

#define UNROLL _Pragma("clang loop unroll(full)")

int main(void)
{
    const struct he_mod m = {rx_q, rx_bits, rx_mu};
    if (me() == 0)
        mram_read(rx_data, data, sizeof data);
    barrier_wait(&stage_barrier);
    for (uint32_t layer = 0; layer < LOG_N; layer += LOG_R) {
        /* this stage's butterflies: R elements `stride` apart inside blocks of `span`; all powers of
         * two, so indices are shifts and masks (a division is a software routine on the DPU) */
        const uint32_t log_span = LOG_N - layer, log_stride = log_span - LOG_R;
        for (uint32_t unit = me(); unit < N / RADIX; unit += NR_TASKLETS) {
            const uint32_t blk = unit >> log_stride;
            const uint32_t base = (blk << log_span) + (unit & ((1u << log_stride) - 1));
            uint32_t x[RADIX];
            UNROLL for (uint32_t u = 0; u < RADIX; u++)
                x[u] = data[base + (u << log_stride)];
            /* layer + l of the radix-2 NTT on these R elements: groups g of 2h, twiddle
             * psi^bitrev((1 << (layer + l)) + (blk << l) + g), as in the whole-array loop */
            UNROLL for (uint32_t l = 0; l < LOG_R; l++) {
                const uint32_t h = RADIX >> (l + 1);
                const uint32_t *w = &rx_tw[(1u << (layer + l)) + (blk << l)];
                UNROLL for (uint32_t g = 0; g < (1u << l); g++) {
                    const uint32_t wg = w[g];
                    uint32_t *y = &x[g * 2 * h];
                    UNROLL for (uint32_t j = 0; j < h; j++) {
                        const uint32_t a = y[j], b = bf_mulmod(y[j + h], wg, m);
                        y[j] = he_addmod(a, b, m);
                        y[j + h] = he_submod(a, b, m);
                    }
                }
            }
            UNROLL for (uint32_t u = 0; u < RADIX; u++)
                data[base + (u << log_stride)] = x[u];
        }
        barrier_wait(&stage_barrier);
    }
    if (me() == 0)
        mram_write(data, rx_data, sizeof data);
    return 0;
}
