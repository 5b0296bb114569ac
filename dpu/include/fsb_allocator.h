/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <fsb_allocator.h>, fixed-size-block pools in the WRAM heap.
 *
 * A pool is one mem_alloc'd area: its blocks, then one word that heads the
 * free list (each free block starts with the address of the next).  The
 * allocator handle points at that word, as the SDK's `void **` does. */
#ifndef DPUSYSCORE_FSB_ALLOCATOR_H
#define DPUSYSCORE_FSB_ALLOCATOR_H

/* A pool, as returned by fsb_alloc. */
typedef void **fsb_allocator_t;

/* Creates a pool of nb_of_blocks blocks of block_size bytes (rounded up to 8,
 * 0 meaning 8), taken from mem_alloc: the DPU faults (OP_FAULT_HEAP) when the
 * WRAM heap cannot hold it. */
fsb_allocator_t fsb_alloc(unsigned int block_size, unsigned int nb_of_blocks);
/* A free block of the pool, or NULL when every block is taken. */
void *fsb_get(fsb_allocator_t allocator);
/* Returns a block to its pool (no check that it came from there, as the SDK). */
void fsb_free(fsb_allocator_t allocator, void *ptr);

#endif
