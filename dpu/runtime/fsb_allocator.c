/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU runtime: fixed-size-block pools (fsb_allocator.h).  Tasklets
 * switch only at DMAs and synchronisation calls, so the list updates below are
 * atomic with respect to other tasklets without a lock. */
#include "rt_internal.h"

#include <alloc.h>
#include <fsb_allocator.h>

fsb_allocator_t fsb_alloc(unsigned int block_size, unsigned int nb_of_blocks)
{
    if (block_size > 0xfffffff8u)
        __op_fault(OP_FAULT_HEAP, "fsb_alloc: block size too large");
    size_t bs = block_size == 0 ? 8 : ((size_t)block_size + 7) & ~(size_t)7;
    if (nb_of_blocks > (0xffffffffu - sizeof(void *)) / bs)
        __op_faultf(OP_FAULT_HEAP, "fsb_alloc: %u blocks of %u bytes do not fit in WRAM", (uint64_t)nb_of_blocks,
                    (uint64_t)bs);
    uint8_t *blocks = mem_alloc(bs * nb_of_blocks + sizeof(void *));
    void **head = (void **)(blocks + bs * nb_of_blocks);
    *head = nb_of_blocks ? blocks : NULL;
    for (unsigned int i = 0; i < nb_of_blocks; i++)
        *(void **)(blocks + i * bs) = (i + 1 < nb_of_blocks) ? blocks + (i + 1) * bs : NULL;
    return head;
}

void *fsb_get(fsb_allocator_t allocator)
{
    void *block = *allocator;
    if (block != NULL)
        *allocator = *(void **)block;
    return block;
}

void fsb_free(fsb_allocator_t allocator, void *ptr)
{
    *(void **)ptr = *allocator;
    *allocator = ptr;
}
