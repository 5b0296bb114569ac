/* SPDX-License-Identifier: MIT */
/* Shared between the host program and the DPU program: fixed-width types only. */
#ifndef REDUCTION_COMMON_H
#define REDUCTION_COMMON_H

#include <stdint.h>

/* One WRAM block per tasklet; smaller with many tasklets so that
 * NR_TASKLETS * (block + 1 KB of stack) fits in the 64 KB WRAM. */
#if NR_TASKLETS <= 16
#define BLOCK_BYTES 2048
#else
#define BLOCK_BYTES 1024
#endif

/* Input of each DPU (__host variable DPU_INPUT_ARGUMENTS). */
typedef struct {
    uint32_t nr_elements; /* uint64 values at DPU_MRAM_HEAP_POINTER */
    uint32_t reserved;
} dpu_arguments_t;

/* Output of each DPU (__host variable DPU_RESULTS). */
typedef struct {
    uint64_t sum;    /* sum of the DPU's values, modulo 2^64 */
    uint64_t cycles; /* perfcounter value at the end of the reduction (information only) */
} dpu_result_t;

#endif
