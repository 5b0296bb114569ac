/* SPDX-License-Identifier: MIT */
/* The HE DPU program: one launch runs the command in he_cmd on this DPU's
 * sub-polynomials, for the RNS modulus in he_consts (DRAMatic's 1D split: a
 * DPU serves one modulus, so no DPU needs another's data).  An unknown
 * command halts the DPU (a fault the host reports) rather than do nothing. */
#include <defs.h>
#include <mram.h>

#include "he_kernels.h"

#if NR_TASKLETS != HE_NR_TASKLETS
#error "build with NR_TASKLETS == HE_NR_TASKLETS"
#endif

__host struct he_dpu_consts he_consts;
__host struct he_dpu_cmd he_cmd;

static uint32_t wram_buffers[NR_TASKLETS][HE_TASKLET_WORDS] __attribute__((aligned(8)));

int main(void)
{
    const struct he_dpu_consts c = he_consts;
    const struct he_dpu_cmd cmd = he_cmd;
    const struct he_mod m = he_mod_make(c.q, c.q_bits, c.barrett_mu);
    const uint32_t slots = he_slots_on_dpu(cmd.nr_polys, c.group_index, c.group_size);
    uint32_t *wram = wram_buffers[me()];
    if (c.modulus_index >= cmd.nr_groups)
        return 0; /* the special modulus' DPUs sit out data-level operations */

    switch (cmd.op) {
    case HE_OP_NTT:
    case HE_OP_INTT:
        /* coarse-grained: tasklet t transforms slots t, t + NR_TASKLETS, ... */
        for (uint32_t s = me(); s < slots; s += NR_TASKLETS) {
            he_mram_t src = he_at(cmd.src[0]) + s * c.n, dst = he_at(cmd.dst[0]) + s * c.n;
            if (src != dst)
                for (uint32_t w = 0; w < c.n; w += 2 * HE_NTT_CHUNK) {
                    mram_read(src + w, wram, 2 * HE_NTT_CHUNK * 4);
                    mram_write(wram, dst + w, 2 * HE_NTT_CHUNK * 4);
                }
            if (cmd.op == HE_OP_NTT)
                he_ntt_forward(dst, he_at(c.tw_offset), c.n, m, wram);
            else
                he_ntt_inverse(dst, he_at(c.itw_offset), c.n, c.n_inv, m, wram);
        }
        break;
    case HE_OP_ADD:
    case HE_OP_SUB:
    case HE_OP_NEG:
    case HE_OP_MUL:
    case HE_OP_COPY:
    case HE_OP_BGV_TENSOR:
        he_elementwise(&cmd, slots * c.n, m, wram);
        break;
    case HE_OP_RELIN_KEYSWITCH:
        for (uint32_t s = me(); s < slots; s += NR_TASKLETS)
            he_relin_keyswitch(&cmd, &c, s, m, wram);
        break;
    case HE_OP_RELIN_FINISH:
        for (uint32_t s = me(); s < slots; s += NR_TASKLETS)
            he_relin_finish(&cmd, &c, s, m, wram);
        break;
    case HE_OP_BCONV_SCALE:
    case HE_OP_BCONV_SUM:
        he_bconv(&cmd, c.n, slots, m, wram);
        break;
    default:
        halt();
    }
    return 0;
}
