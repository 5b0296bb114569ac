/* SPDX-License-Identifier: MIT */
/* What the host and the MLP DPU kernel (dpu/mlp_kernel.c) share: the launch
 * arguments, a __host variable broadcast before every launch. */
#ifndef OPENPIM_MLP_KERNEL_ABI_H
#define OPENPIM_MLP_KERNEL_ABI_H

#include <stdint.h>

#define MLP_MAX_BATCH 16u
#define MLP_MAX_INPUT 4096u /* batch x F/P int32 in WRAM */
#define MLP_SHIFT 8u        /* requantising ReLU: min(max(acc, 0) >> 8, 255) */

struct mlp_args {
    uint32_t batch, Fp, F, act;  /* act: apply the requantising ReLU to the input (every layer but the first) */
    uint32_t off_in;             /* [batch][Fp] this node's input slice (and the ReduceScatter's destination) */
    uint32_t off_part;           /* [P][batch][Fp] partial outputs (the ReduceScatter's source) */
    uint32_t off_w;              /* [F][Fp] this layer's columns of the weights */
    uint32_t pad;
};

#endif
