/* Single-DPU NTT study (Jonatan et al., Sec. 5.2.1, Fig. 12): one 256-point
 * negacyclic NTT in WRAM with radix-R butterflies (R = RADIX = 2, 4 or 16).
 * log2(256) radix-2 layers are merged s = log2(R) at a time: a stage has
 * 256/R butterflies of R elements, given to the tasklets round-robin, with a
 * barrier between stages.  A radix-R butterfly applies the s Cooley-Tukey
 * layers to its R elements in registers, so the output is the radix-2 NTT's
 * (bit-reversed order, SEAL's convention), which the host checks. */
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

int main(void)
{
    const struct he_mod m = {rx_q, rx_bits, rx_mu};
    if (me() == 0)
        mram_read(rx_data, data, sizeof data);
    barrier_wait(&stage_barrier);
    for (uint32_t layer = 0; layer < LOG_N; layer += LOG_R) {
        const uint32_t span = N >> layer, stride = span / RADIX;
        for (uint32_t unit = me(); unit < N / RADIX; unit += NR_TASKLETS) {
            const uint32_t base = unit / stride * span + unit % stride;
            uint32_t x[RADIX];
            for (uint32_t u = 0; u < RADIX; u++)
                x[u] = data[base + u * stride];
            for (uint32_t l = 0; l < LOG_R; l++) {
                const uint32_t h = RADIX >> (l + 1), shift = LOG_N - layer - l;
                for (uint32_t u = 0; u < RADIX; u++) {
                    if (u & h)
                        continue;
                    const uint32_t w = rx_tw[(1u << (layer + l)) + ((base + u * stride) >> shift)];
                    const uint32_t a = x[u], b = he_mulmod(x[u + h], w, m);
                    x[u] = he_addmod(a, b, m);
                    x[u + h] = he_submod(a, b, m);
                }
            }
            for (uint32_t u = 0; u < RADIX; u++)
                data[base + u * stride] = x[u];
        }
        barrier_wait(&stage_barrier);
    }
    if (me() == 0)
        mram_write(data, rx_data, sizeof data);
    return 0;
}
