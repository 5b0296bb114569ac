/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU runtime: sequential readers (seqread.h).  The cache holds the two
 * MRAM pages starting at reader->mram_addr (page-aligned). */
#include "rt_internal.h"

#include <alloc.h>
#include <seqread.h>

seqreader_buffer_t __op_seqread_alloc(uint32_t page)
{
    /* Page-aligned in WRAM, like the SDK's; the padding is heap too. */
    uintptr_t p = ((uintptr_t)mem_alloc(0) + 7) & ~(uintptr_t)7;
    uintptr_t cache = (p + page - 1) & ~(uintptr_t)(page - 1);
    mem_alloc(cache - p + 2 * (size_t)page);
    return cache;
}

static void __op_load(seqreader_t *reader, uint32_t page)
{
    uint64_t end = (uint64_t)OP_MRAM_BASE + __op_env->mram_size;
    uint64_t n = 2 * (uint64_t)page;
    if (reader->mram_addr < end && end - reader->mram_addr < n)
        n = end - reader->mram_addr; /* last page of MRAM */
    mram_read((const __mram_ptr void *)(uintptr_t)reader->mram_addr, (void *)reader->wram_cache, (unsigned int)n);
}

void *__op_seqread_seek(__mram_ptr void *mram_addr, seqreader_t *reader, uint32_t page)
{
    uint64_t target = (uintptr_t)mram_addr;
    uint64_t offset = target - reader->mram_addr;
    if (offset >= page) {
        reader->mram_addr = target & ~(uintptr_t)(page - 1);
        __op_load(reader, page);
        offset = target - reader->mram_addr;
    }
    return (void *)(reader->wram_cache + offset);
}

void *__op_seqread_get(void *ptr, uint32_t inc, seqreader_t *reader, uint32_t page)
{
    uintptr_t p = (uintptr_t)ptr + inc;
    uintptr_t offset = p - reader->wram_cache;
    if (offset >= page) {
        uintptr_t skip = offset & ~(uintptr_t)(page - 1);
        reader->mram_addr += skip;
        p -= skip;
        __op_load(reader, page);
    }
    return (void *)p;
}
