/* SPDX-License-Identifier: MIT */
/* Shared between the host program and the DPU program: fixed-width types only. */
#ifndef CHECKSUM_COMMON_H
#define CHECKSUM_COMMON_H

#include <stdint.h>

/* Size of the MRAM array dpu_mram_buffer that the host fills by name. */
#define BUFFER_SIZE (8u << 20)

#if NR_TASKLETS <= 16
#define BLOCK_BYTES 2048
#else
#define BLOCK_BYTES 1024
#endif

/* The checksum of bytes b[p] at positions p of the buffer is
 *   sum over p of (p + 1) * b[p]   (modulo 2^64)
 * It depends on where each byte is, and partial checksums of disjoint
 * pieces simply add up. */

/* Input of each DPU (__host variable DPU_INPUT_ARGUMENTS): the share of the
 * buffer it checksums.  Both values are multiples of 8. */
typedef struct {
    uint32_t first_byte;
    uint32_t nr_bytes;
} dpu_arguments_t;

/* One per tasklet (__host array dpu_wram_results[NR_TASKLETS]). */
typedef struct {
    uint64_t checksum; /* checksum of the bytes this tasklet read */
    uint64_t cycles;   /* perfcounter at the end (information only) */
    uint32_t nr_bytes; /* how many bytes it read */
    uint32_t reserved;
} dpu_result_t;

#endif
