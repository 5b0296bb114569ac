/* SPDX-License-Identifier: MIT */
/* The kernel images, one per tasklet count, embedded in the library (built by
 * workloads/embedding/CMakeLists.txt into EMB_DPU_DIR). */
#include <stddef.h>

#include "internal.h"

#ifndef EMB_DPU_DIR
#error "EMB_DPU_DIR must name the directory of the embedding kernel images"
#endif

DPU_INCBIN(emb_kernel_t1, EMB_DPU_DIR "/emb_kernel_t1")
DPU_INCBIN(emb_kernel_t2, EMB_DPU_DIR "/emb_kernel_t2")
DPU_INCBIN(emb_kernel_t4, EMB_DPU_DIR "/emb_kernel_t4")
DPU_INCBIN(emb_kernel_t6, EMB_DPU_DIR "/emb_kernel_t6")
DPU_INCBIN(emb_kernel_t8, EMB_DPU_DIR "/emb_kernel_t8")
DPU_INCBIN(emb_kernel_t11, EMB_DPU_DIR "/emb_kernel_t11")
DPU_INCBIN(emb_kernel_t12, EMB_DPU_DIR "/emb_kernel_t12")
DPU_INCBIN(emb_kernel_t16, EMB_DPU_DIR "/emb_kernel_t16")
DPU_INCBIN(emb_kernel_t20, EMB_DPU_DIR "/emb_kernel_t20")
DPU_INCBIN(emb_kernel_t24, EMB_DPU_DIR "/emb_kernel_t24")

static const uint32_t counts[] = {1, 2, 4, 6, 8, 11, 12, 16, 20, 24};

uint32_t openpim_emb_tasklets(uint32_t *list)
{
    const uint32_t n = sizeof counts / sizeof counts[0];
    for (uint32_t i = 0; list && i < n; i++)
        list[i] = counts[i];
    return n;
}

struct dpu_incbin_t *emb_kernel_image(uint32_t tasklets)
{
    switch (tasklets) {
    case 1: return &emb_kernel_t1;
    case 2: return &emb_kernel_t2;
    case 4: return &emb_kernel_t4;
    case 6: return &emb_kernel_t6;
    case 8: return &emb_kernel_t8;
    case 11: return &emb_kernel_t11;
    case 12: return &emb_kernel_t12;
    case 16: return &emb_kernel_t16;
    case 20: return &emb_kernel_t20;
    case 24: return &emb_kernel_t24;
    default: return NULL;
    }
}
