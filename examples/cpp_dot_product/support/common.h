/* SPDX-License-Identifier: MIT */
/* Shared between the host program and the DPU program: fixed-width types only,
 * so that the layout is the same on the host (x86-64) and on the DPU. */
#ifndef CPP_DOT_PRODUCT_COMMON_H
#define CPP_DOT_PRODUCT_COMMON_H

#include <stdint.h>

/* Elements of each vector one DPU can hold in MRAM (4 MB per vector). */
#define MAX_ELEMENTS_PER_DPU (1u << 20)
/* Elements a tasklet moves per DMA (512 bytes): two blocks per tasklet and a
 * 1 KB stack stay inside the 64 KB WRAM with 24 tasklets. */
#define BLOCK_ELEMENTS 128u

#endif
