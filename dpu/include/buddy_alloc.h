/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <buddy_alloc.h>, a buddy allocator in the WRAM heap.
 *
 * buddy_init(size) takes a power-of-two area (size rounded down, at least 32
 * bytes) from mem_alloc, once per program run; blocks are powers of two, at
 * least 16 bytes, 8-aligned.  Bad sizes set errno to EINVAL, exhaustion to ENOMEM.
 */
#ifndef DPUSYSCORE_BUDDY_ALLOC_H
#define DPUSYSCORE_BUDDY_ALLOC_H

#include <stddef.h>

/* Reserves the allocator's area (later calls do nothing). */
void buddy_init(size_t size_of_heap);
/* Frees every block at once. */
void buddy_reset(void);
/* A block of at least `size` bytes, or NULL (errno EINVAL or ENOMEM). */
void *buddy_alloc(size_t size);
/* Frees the block containing `pointer` (any address inside it); NULL is ignored;
 * an address in no allocated block sets errno to EINVAL and changes nothing. */
void buddy_free(void *pointer);
/* Resizes like realloc(): NULL allocates; size 0 frees and returns `ptr`; a
 * smaller size keeps the block and frees its unused upper halves; a larger one
 * moves it when it does not fit (NULL and errno ENOMEM if no block is free: the
 * old block is then untouched); a pointer not allocated gives NULL, EINVAL. */
void *buddy_realloc(void *ptr, size_t size);

#endif
