/* SPDX-License-Identifier: MIT */
/* Shared between the host program and the DPU program: fixed-width types only,
 * so that the layout is the same on the host (x86-64) and on the DPU. */
#ifndef VECTOR_ADD_COMMON_H
#define VECTOR_ADD_COMMON_H

#include <stdint.h>

/* Element type of the vectors. */
typedef uint32_t elem_t;

/* Each tasklet holds two blocks (A and B) in WRAM.  A DMA moves at most 2048
 * bytes; with many tasklets the blocks shrink so that
 * NR_TASKLETS * (2 blocks + 1 KB of stack) stays well inside the 64 KB WRAM. */
#if NR_TASKLETS <= 11
#define BLOCK_BYTES 2048
#elif NR_TASKLETS <= 16
#define BLOCK_BYTES 1024
#else
#define BLOCK_BYTES 512
#endif

/* Arguments written by the host into the __host variable DPU_INPUT_ARGUMENTS
 * of every DPU (one value per DPU, sent with dpu_prepare_xfer/dpu_push_xfer). */
typedef struct {
    uint32_t nr_elements;   /* elements of A, B and C held by this DPU */
    uint32_t region_bytes;  /* size of each of the A, B, C regions in MRAM (multiple of 8) */
} dpu_arguments_t;

/* MRAM layout, from DPU_MRAM_HEAP_POINTER:
 *   [0, region)            A
 *   [region, 2 * region)   B
 *   [2 * region, 3 * region) C = A + B
 */

#endif
