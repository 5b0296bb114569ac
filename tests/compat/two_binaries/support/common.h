/* SPDX-License-Identifier: MIT */
/* Shared by the host and both DPU programs. */
#ifndef TWO_BINARIES_COMMON_H
#define TWO_BINARIES_COMMON_H

#define NR_ELEMENTS 4096 /* uint64_t values in the MRAM heap */
#define BLOCK 256        /* elements per DMA (2 KB) */

#endif
