/* SPDX-License-Identifier: MIT */
/* Shared between the host program and the DPU program: fixed-width types only. */
#ifndef BINARY_SEARCH_COMMON_H
#define BINARY_SEARCH_COMMON_H

#include <stdint.h>

/* Result of a query whose key is not in the array. */
#define NOT_FOUND ((int64_t)-1)

/* Queries are processed one WRAM block at a time per tasklet. */
#if NR_TASKLETS <= 16
#define BLOCK_BYTES 2048
#else
#define BLOCK_BYTES 1024
#endif

/* Input of each DPU (__host variable DPU_INPUT_ARGUMENTS).  MRAM layout, in
 * bytes from DPU_MRAM_HEAP_POINTER:
 *   [0, 8 * array_elements)        the sorted int64 array (same on all DPUs)
 *   queries_offset                 nr_queries int64 keys
 *   results_offset                 nr_queries int64: index of the key, or NOT_FOUND */
typedef struct {
    uint32_t array_elements;
    uint32_t nr_queries;
    uint32_t queries_offset;
    uint32_t results_offset;
} dpu_arguments_t;

#endif
