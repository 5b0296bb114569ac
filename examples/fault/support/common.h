/* SPDX-License-Identifier: MIT */
/* Shared between the host program and the DPU program: fixed-width types only. */
#ifndef FAULT_COMMON_H
#define FAULT_COMMON_H

#include <stdint.h>

/* What the DPU does wrong on purpose (__host argument `mode`). */
enum fault_mode {
    MODE_NONE = 0,          /* nothing: a normal run */
    MODE_MRAM_READ_PAST_END, /* mram_read beyond the end of the 64 MB MRAM */
    MODE_BAD_WRAM_POINTER,  /* store through a pointer beyond the end of WRAM (MRAM pointers wrap, as on the DPU) */
    MODE_HEAP_OVERFLOW,     /* mem_alloc of more than the whole WRAM */
    MODE_HALT,              /* halt() */
    MODE_ASSERT,            /* a failing assert() */
    MODE_DIVIDE_BY_ZERO,    /* x / 0: the DPU runtime's division stops with "fault 2" */
    MODE_DIVIDE_OVERFLOW,   /* INT32_MIN / -1: no fault, the DPU's result is reported */
    NR_MODES
};

/* Each tasklet writes PATTERN_WORDS uint64 to MRAM at
 * DPU_MRAM_HEAP_POINTER + tasklet_id * PATTERN_WORDS * 8, in chunks of
 * CHUNK_WORDS through WRAM. */
#define PATTERN_WORDS 256u
#define CHUNK_WORDS 128u

/* Word k of tasklet t on a DPU whose seed is `seed`. */
static inline uint64_t pattern_word(uint32_t seed, uint32_t t, uint32_t k)
{
    uint64_t v = ((uint64_t)seed << 32) ^ ((uint64_t)t << 16) ^ k;
    v *= 0x9e3779b97f4a7c15ull;
    return v ^ (v >> 29);
}

/* Input of each DPU (__host variable DPU_INPUT_ARGUMENTS). */
typedef struct {
    uint32_t mode;      /* enum fault_mode */
    uint32_t seed;      /* selects the MRAM pattern */
    uint32_t param;     /* mode-specific: byte offset, allocation size, asserted value */
    uint32_t udividend; /* tasklet 0 computes udividend / udivisor and % */
    uint32_t udivisor;
    int32_t sdividend;  /* and sdividend / sdivisor and % */
    int32_t sdivisor;
    uint32_t reserved;
} dpu_arguments_t;

/* Output of each DPU (__host variable DPU_RESULTS). */
typedef struct {
    uint64_t checksum;      /* sum of all pattern words written */
    uint32_t tasklets_done; /* tasklets that reached the end */
    uint32_t uquotient;
    uint32_t uremainder;
    int32_t squotient;
    int32_t sremainder;
    uint32_t reserved;
} dpu_result_t;

#endif
