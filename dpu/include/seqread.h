/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <seqread.h>, sequential reading of an MRAM area through a
 * small WRAM cache.
 *
 * The cache holds two pages of SEQREAD_CACHE_SIZE bytes (32, 64, 128, 256, 512
 * or 1024; default 256).  seqread_init/seqread_seek return the address in the
 * cache of a given MRAM byte; seqread_get(ptr, inc, reader) advances that
 * pointer by inc (< SEQREAD_CACHE_SIZE) bytes, refilling the cache with
 * mram_read (one DMA, which yields) when it leaves the first page.  At least
 * SEQREAD_CACHE_SIZE valid bytes follow any returned pointer.
 *
 *     seqreader_buffer_t cache = seqread_alloc();
 *     seqreader_t sr;
 *     uint32_t *p = seqread_init(cache, mram_array, &sr);
 *     for (...) { use(*p); p = seqread_get(p, sizeof(*p), &sr); }
 */
#ifndef DPUSYSCORE_SEQREAD_H
#define DPUSYSCORE_SEQREAD_H

#include <stdint.h>
#include <attributes.h>
#include <mram.h>

#ifndef SEQREAD_CACHE_SIZE
#define SEQREAD_CACHE_SIZE 256
#endif

#if SEQREAD_CACHE_SIZE != 32 && SEQREAD_CACHE_SIZE != 64 && SEQREAD_CACHE_SIZE != 128 && SEQREAD_CACHE_SIZE != 256    \
    && SEQREAD_CACHE_SIZE != 512 && SEQREAD_CACHE_SIZE != 1024
#error "seqread: SEQREAD_CACHE_SIZE must be 32, 64, 128, 256, 512 or 1024"
#endif

/* A reader's WRAM cache (its address). */
typedef uintptr_t seqreader_buffer_t;

/* A sequential reader. */
typedef struct {
    seqreader_buffer_t wram_cache; /* the cache */
    uint64_t mram_addr;            /* MRAM address of the cache's first byte (2^40: none yet) */
} seqreader_t;

seqreader_buffer_t __op_seqread_alloc(uint32_t page);
void *__op_seqread_seek(__mram_ptr void *mram_addr, seqreader_t *reader, uint32_t page);
void *__op_seqread_get(void *ptr, uint32_t inc, seqreader_t *reader, uint32_t page);

/* Allocates a cache (2 * SEQREAD_CACHE_SIZE bytes) with mem_alloc. */
static inline seqreader_buffer_t seqread_alloc(void)
{
    return __op_seqread_alloc(SEQREAD_CACHE_SIZE);
}

/* Moves the reader to `mram_addr` (any alignment); returns its place in the cache. */
static inline void *seqread_seek(__mram_ptr void *mram_addr, seqreader_t *reader)
{
    return __op_seqread_seek(mram_addr, reader, SEQREAD_CACHE_SIZE);
}

/* Attaches a reader to `cache` and positions it at `mram_addr`. */
static inline void *seqread_init(seqreader_buffer_t cache, __mram_ptr void *mram_addr, seqreader_t *reader)
{
    reader->wram_cache = cache;
    reader->mram_addr = (uint64_t)1 << 40; /* matches no MRAM address: forces a load */
    return __op_seqread_seek(mram_addr, reader, SEQREAD_CACHE_SIZE);
}

/* Advances `ptr` by `inc` bytes (inc < SEQREAD_CACHE_SIZE); returns the new pointer. */
static inline void *seqread_get(void *ptr, uint32_t inc, seqreader_t *reader)
{
    return __op_seqread_get(ptr, inc, reader, SEQREAD_CACHE_SIZE);
}

/* The MRAM address that `ptr` (a pointer returned by this reader) maps. */
static inline __mram_ptr void *seqread_tell(void *ptr, seqreader_t *reader)
{
    return (__mram_ptr void *)(reader->mram_addr + ((uintptr_t)ptr - reader->wram_cache));
}

#endif
