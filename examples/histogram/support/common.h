/* SPDX-License-Identifier: MIT */
/* Shared between the host program and the DPU program: fixed-width types only. */
#ifndef HISTOGRAM_COMMON_H
#define HISTOGRAM_COMMON_H

#include <stdint.h>

#define NR_BINS 256

/* Bins [0, NR_MUTEX_BINS) are guarded by NR_NAMED_MUTEXES mutexes declared
 * with MUTEX_INIT (bin % NR_NAMED_MUTEXES picks one); bins [NR_MUTEX_BINS,
 * NR_BINS) by an array of NR_BIT_LOCKS atomic bits used as mutexes. */
#define NR_MUTEX_BINS 128
#define NR_NAMED_MUTEXES 4
#define NR_BIT_LOCKS 32

/* One WRAM block per tasklet. */
#if NR_TASKLETS <= 16
#define BLOCK_BYTES 2048
#else
#define BLOCK_BYTES 1024
#endif

/* Input of each DPU (__host variable DPU_INPUT_ARGUMENTS); the bytes
 * themselves are at DPU_MRAM_HEAP_POINTER. */
typedef struct {
    uint32_t nr_bytes;
    uint32_t reserved;
} dpu_arguments_t;

#endif
