/* SPDX-License-Identifier: MIT */
/* Shared between the host program and the DPU program: fixed-width types only. */
#ifndef PREFIX_SUM_COMMON_H
#define PREFIX_SUM_COMMON_H

#include <stdint.h>

/* One WRAM block per tasklet. */
#if NR_TASKLETS <= 16
#define BLOCK_BYTES 2048
#else
#define BLOCK_BYTES 1024
#endif
#define BLOCK_ELEMENTS (BLOCK_BYTES / 4u) /* uint32 per block */

/* The DPU program has two kernels, chosen by the host at each launch. */
enum {
    KERNEL_SCAN = 0,       /* inclusive scan of the DPU's elements, in place */
    KERNEL_ADD_OFFSET = 1, /* add dpu_offset to every element, in place */
};

/* Input of each DPU (__host variable DPU_INPUT_ARGUMENTS). */
typedef struct {
    uint32_t nr_elements; /* uint32 values at DPU_MRAM_HEAP_POINTER */
    uint32_t kernel;      /* KERNEL_SCAN or KERNEL_ADD_OFFSET */
    uint32_t dpu_offset;  /* KERNEL_ADD_OFFSET: sum of all elements of the previous DPUs */
    uint32_t reserved;
} dpu_arguments_t;

/* Output of KERNEL_SCAN (__host variable DPU_RESULTS). */
typedef struct {
    uint32_t dpu_total; /* sum of the DPU's elements (modulo 2^32) */
    uint32_t reserved;
} dpu_result_t;

#endif
