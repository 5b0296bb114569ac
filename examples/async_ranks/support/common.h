/* SPDX-License-Identifier: MIT */
/* Shared between the host program and the DPU program: fixed-width types only. */
#ifndef ASYNC_RANKS_COMMON_H
#define ASYNC_RANKS_COMMON_H

#include <stdint.h>

#if NR_TASKLETS <= 16
#define BLOCK_BYTES 2048
#else
#define BLOCK_BYTES 1024
#endif

/* Input of each DPU (__host variable DPU_INPUT_ARGUMENTS).  MRAM layout from
 * DPU_MRAM_HEAP_POINTER: x at 0, y at region_bytes, nr_elements uint32 each. */
typedef struct {
    uint32_t nr_elements;
    uint32_t region_bytes; /* multiple of 8 */
    uint32_t a;            /* y[i] = a * x[i] + b, modulo 2^32 */
    uint32_t b;
} dpu_arguments_t;

/* Output of each DPU (__host variable DPU_RESULTS). */
typedef struct {
    uint64_t sum_y;       /* sum of the y[i] (modulo 2^64) */
    uint32_t nr_elements; /* elements processed */
    uint32_t launches;    /* how many times this DPU ran since dpu_load */
} dpu_result_t;

#endif
