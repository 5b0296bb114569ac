/* OpenPIM DPU syslib: <fsb_allocator.h>, fixed-size-block pools in the WRAM heap. */
#ifndef DPUSYSCORE_FSB_ALLOCATOR_H
#define DPUSYSCORE_FSB_ALLOCATOR_H

/* A pool, as returned by fsb_alloc. */
typedef struct __op_fsb_pool *fsb_allocator_t;

/* Creates a pool of nb_of_blocks blocks of block_size bytes (rounded up to 8,
 * 0 meaning 8), taken from mem_alloc. */
fsb_allocator_t fsb_alloc(unsigned int block_size, unsigned int nb_of_blocks);
/* A free block of the pool, or NULL when none is left. */
void *fsb_get(fsb_allocator_t allocator);
/* Returns a block to its pool. */
void fsb_free(fsb_allocator_t allocator, void *ptr);

#endif
