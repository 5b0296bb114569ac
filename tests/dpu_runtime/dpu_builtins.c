/* SPDX-License-Identifier: MIT */
/* Every macro of <built_ins.h> on the host's edge values: for each pair (a, b)
 * of the inputs, one row of results in the order the host test lists them. */
#include <built_ins.h>
#include <defs.h>
#include <stdint.h>

#define NV 14
#define NR_OPS 26

__host uint32_t values[NV];
__host uint32_t results[NV * NV][NR_OPS];
__host uint32_t tids[NR_TASKLETS];

int main(void)
{
    tids[me()] = __builtin_dpu_tid();
    for (uint32_t p = me(); p < NV * NV; p += NR_TASKLETS) {
        uint32_t a = values[p / NV], b = values[p % NV];
        uint32_t *r = results[p];
        __builtin_clz_rr(r[0], a);
        __builtin_clo_rr(r[1], a);
        __builtin_cls_rr(r[2], a);
        __builtin_cao_rr(r[3], a);
        __builtin_lsl_rrr(r[4], a, b);
        __builtin_lsr_rrr(r[5], a, b);
        __builtin_asr_rrr(r[6], a, b);
        __builtin_rol_rrr(r[7], a, b);
        __builtin_ror_rrr(r[8], a, b);
        __builtin_mul_sl_sl_rrr(r[9], a, b);
        __builtin_mul_sl_sh_rrr(r[10], a, b);
        __builtin_mul_sl_ul_rrr(r[11], a, b);
        __builtin_mul_sl_uh_rrr(r[12], a, b);
        __builtin_mul_sh_sl_rrr(r[13], a, b);
        __builtin_mul_sh_sh_rrr(r[14], a, b);
        __builtin_mul_sh_ul_rrr(r[15], a, b);
        __builtin_mul_sh_uh_rrr(r[16], a, b);
        __builtin_mul_ul_sl_rrr(r[17], a, b);
        __builtin_mul_ul_sh_rrr(r[18], a, b);
        __builtin_mul_ul_ul_rrr(r[19], a, b);
        __builtin_mul_ul_uh_rrr(r[20], a, b);
        __builtin_mul_uh_sl_rrr(r[21], a, b);
        __builtin_mul_uh_sh_rrr(r[22], a, b);
        __builtin_mul_uh_ul_rrr(r[23], a, b);
        __builtin_mul_uh_uh_rrr(r[24], a, b);
        __builtin_cmpb4_rrr(r[25], a, b);
    }
    return 0;
}
