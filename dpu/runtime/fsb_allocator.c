/* OpenPIM DPU runtime: fixed-size-block pools (fsb_allocator.h).
 * A pool is a free-list head followed by its blocks, all from mem_alloc. */
#include "rt_internal.h"

#include <alloc.h>
#include <fsb_allocator.h>

struct __op_fsb_pool {
    void *free; /* first free block; each free block starts with the next one */
};

fsb_allocator_t fsb_alloc(unsigned int block_size, unsigned int nb_of_blocks)
{
    if (block_size > 0xfffffff8u)
        __op_fault(OP_FAULT_HEAP, "fsb_alloc: block size too large");
    size_t bs = block_size == 0 ? 8 : ((size_t)block_size + 7) & ~(size_t)7;
    struct __op_fsb_pool *pool = mem_alloc(sizeof(*pool) + bs * nb_of_blocks);
    uint8_t *blocks = (uint8_t *)(pool + 1);
    pool->free = nb_of_blocks ? blocks : NULL;
    for (unsigned int i = 0; i < nb_of_blocks; i++) {
        void *next = (i + 1 < nb_of_blocks) ? blocks + (i + 1) * bs : NULL;
        __builtin_memcpy(blocks + i * bs, &next, sizeof(next));
    }
    return pool;
}

void *fsb_get(fsb_allocator_t allocator)
{
    void *block = allocator->free;
    if (block != NULL)
        __builtin_memcpy(&allocator->free, block, sizeof(void *));
    return block;
}

void fsb_free(fsb_allocator_t allocator, void *ptr)
{
    __builtin_memcpy(ptr, &allocator->free, sizeof(void *));
    allocator->free = ptr;
}
