/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <alloc.h>, the incremental WRAM heap.
 *
 * The heap lies after the program's static data and its tasklets' stacks, up
 * to the end of WRAM (README "Tasklet stacks").  Its pointer is an ordinary
 * WRAM global: it is set at dpu_load and NOT reset at each launch, so kernels
 * launched several times call mem_reset() first.
 */
#ifndef DPUSYSCORE_ALLOC_H
#define DPUSYSCORE_ALLOC_H

#include <stddef.h>
/* As the SDK's: <alloc.h> also gives the other two allocators and the qualifiers. */
#include <attributes.h>
#include <buddy_alloc.h>
#include <fsb_allocator.h>

/* Returns `size` bytes of WRAM, 8-aligned (size 0 returns the current heap
 * pointer unaligned).  Stops the DPU with OP_FAULT_HEAP if the heap is full. */
void *mem_alloc(size_t size);
/* Frees the whole heap; returns its start. */
void *mem_reset(void);

#endif
