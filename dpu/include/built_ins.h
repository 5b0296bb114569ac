/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <built_ins.h>, portable C for the DPU instruction
 * builtins programs commonly use.  Each macro assigns its result to its first
 * argument, like the SDK's:  __builtin_clz_rr(dest, x);
 *
 * Operands are 32-bit.  mul_X_Y multiplies one byte of each operand: s/u =
 * signed/unsigned, l/h = byte 0 (bits 0-7) / byte 1 (bits 8-15).
 */
#ifndef DPUSYSCORE_BUILT_INS_H
#define DPUSYSCORE_BUILT_INS_H

#include <stdint.h>

static inline uint32_t __op_clz32(uint32_t x)
{
    return x ? (uint32_t)__builtin_clz(x) : 32u;
}
static inline uint32_t __op_cls32(uint32_t x)
{
    return __op_clz32((x & 0x80000000u) ? ~x : x);
}

/* Count leading zeros (32 for 0). */
#define __builtin_clz_rr(dc, ra) ((dc) = __op_clz32((uint32_t)(ra)))
/* Count leading ones. */
#define __builtin_clo_rr(dc, ra) ((dc) = __op_clz32(~(uint32_t)(ra)))
/* Count leading bits equal to the sign bit. */
#define __builtin_cls_rr(dc, ra) ((dc) = __op_cls32((uint32_t)(ra)))
/* Count all ones. */
#define __builtin_cao_rr(dc, ra) ((dc) = (uint32_t)__builtin_popcount((uint32_t)(ra)))

/* Shifts and rotations by rb[0:4] (rb & 31), like the DPU's. */
#define __builtin_lsl_rrr(dc, ra, rb) ((dc) = (uint32_t)(ra) << ((uint32_t)(rb)&31u))
#define __builtin_lsr_rrr(dc, ra, rb) ((dc) = (uint32_t)(ra) >> ((uint32_t)(rb)&31u))
#define __builtin_asr_rrr(dc, ra, rb) ((dc) = (uint32_t)((int32_t)(ra) >> ((uint32_t)(rb)&31u)))
#define __builtin_rol_rrr(dc, ra, rb)                                                                                  \
    ((dc) = ((uint32_t)(ra) << ((uint32_t)(rb)&31u)) | ((uint32_t)(ra) >> ((32u - ((uint32_t)(rb)&31u)) & 31u)))
#define __builtin_ror_rrr(dc, ra, rb)                                                                                  \
    ((dc) = ((uint32_t)(ra) >> ((uint32_t)(rb)&31u)) | ((uint32_t)(ra) << ((32u - ((uint32_t)(rb)&31u)) & 31u)))

/* Byte selectors of the 8x8 multiplier. */
#define __OP_MUL_SL(x) ((int32_t)(int8_t)(uint8_t)((uint32_t)(x)&0xffu))
#define __OP_MUL_SH(x) ((int32_t)(int8_t)(uint8_t)(((uint32_t)(x) >> 8) & 0xffu))
#define __OP_MUL_UL(x) ((int32_t)((uint32_t)(x)&0xffu))
#define __OP_MUL_UH(x) ((int32_t)(((uint32_t)(x) >> 8) & 0xffu))

#define __builtin_mul_sl_sl_rrr(dc, ra, rb) ((dc) = __OP_MUL_SL(ra) * __OP_MUL_SL(rb))
#define __builtin_mul_sl_sh_rrr(dc, ra, rb) ((dc) = __OP_MUL_SL(ra) * __OP_MUL_SH(rb))
#define __builtin_mul_sl_ul_rrr(dc, ra, rb) ((dc) = __OP_MUL_SL(ra) * __OP_MUL_UL(rb))
#define __builtin_mul_sl_uh_rrr(dc, ra, rb) ((dc) = __OP_MUL_SL(ra) * __OP_MUL_UH(rb))
#define __builtin_mul_sh_sl_rrr(dc, ra, rb) ((dc) = __OP_MUL_SH(ra) * __OP_MUL_SL(rb))
#define __builtin_mul_sh_sh_rrr(dc, ra, rb) ((dc) = __OP_MUL_SH(ra) * __OP_MUL_SH(rb))
#define __builtin_mul_sh_ul_rrr(dc, ra, rb) ((dc) = __OP_MUL_SH(ra) * __OP_MUL_UL(rb))
#define __builtin_mul_sh_uh_rrr(dc, ra, rb) ((dc) = __OP_MUL_SH(ra) * __OP_MUL_UH(rb))
#define __builtin_mul_ul_sl_rrr(dc, ra, rb) ((dc) = __OP_MUL_UL(ra) * __OP_MUL_SL(rb))
#define __builtin_mul_ul_sh_rrr(dc, ra, rb) ((dc) = __OP_MUL_UL(ra) * __OP_MUL_SH(rb))
#define __builtin_mul_ul_ul_rrr(dc, ra, rb) ((dc) = __OP_MUL_UL(ra) * __OP_MUL_UL(rb))
#define __builtin_mul_ul_uh_rrr(dc, ra, rb) ((dc) = __OP_MUL_UL(ra) * __OP_MUL_UH(rb))
#define __builtin_mul_uh_sl_rrr(dc, ra, rb) ((dc) = __OP_MUL_UH(ra) * __OP_MUL_SL(rb))
#define __builtin_mul_uh_sh_rrr(dc, ra, rb) ((dc) = __OP_MUL_UH(ra) * __OP_MUL_SH(rb))
#define __builtin_mul_uh_ul_rrr(dc, ra, rb) ((dc) = __OP_MUL_UH(ra) * __OP_MUL_UL(rb))
#define __builtin_mul_uh_uh_rrr(dc, ra, rb) ((dc) = __OP_MUL_UH(ra) * __OP_MUL_UH(rb))

/* Byte-wise equality: byte i of the result is 1 where byte i of ra equals byte
 * i of rb, 0 elsewhere (string matching: 0x01010101 when all four agree). */
static inline uint32_t __op_cmpb4(uint32_t a, uint32_t b)
{
    uint32_t diff = a ^ b, r = 0;
    for (uint32_t i = 0; i < 32; i += 8)
        r |= (((diff >> i) & 0xffu) == 0 ? 1u : 0u) << i;
    return r;
}
#define __builtin_cmpb4_rrr(dc, ra, rb) ((dc) = __op_cmpb4((uint32_t)(ra), (uint32_t)(rb)))

/* The running tasklet's id (as me()). */
#include <defs.h>
#define __builtin_dpu_tid() me()

#endif
