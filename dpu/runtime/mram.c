/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU runtime: mram_read / mram_write and the unaligned variants. */
#include "rt_internal.h"

#include <mram.h>
#include <mram_unaligned.h>

/* Bytes moved by a DMA instruction asked for n bytes. */
static inline uint32_t __op_dma_size(unsigned int n)
{
    return ((((n >> 3) - 1u) & 0xffu) + 1u) << 3;
}

void mram_read(const __mram_ptr void *from, void *to, unsigned int nb_of_bytes)
{
    uint64_t m = __op_mram_dma_addr((uint64_t)(uintptr_t)from & ~(uint64_t)7);
    uintptr_t w = (uintptr_t)to & ~(uintptr_t)7;
    uint32_t size = __op_dma_size(nb_of_bytes);
    __op_check_mram("mram_read", m, size);
    __op_check_wram("mram_read", w, size);
    __OP_SVC->dma((uint32_t)m, (uint32_t)w, size, OP_DMA_COPY | OP_DMA_YIELD);
}

void mram_write(const void *from, __mram_ptr void *dest, unsigned int nb_of_bytes)
{
    uintptr_t w = (uintptr_t)from & ~(uintptr_t)7;
    uint64_t m = __op_mram_dma_addr((uint64_t)(uintptr_t)dest & ~(uint64_t)7);
    uint32_t size = __op_dma_size(nb_of_bytes);
    __op_check_mram("mram_write", m, size);
    __op_check_wram("mram_write", w, size);
    __OP_SVC->dma((uint32_t)m, (uint32_t)w, size, OP_DMA_COPY | OP_DMA_WRITE | OP_DMA_YIELD);
}

/* The SDK documents at most 2048 bytes for both unaligned calls; its own
 * versions go wrong past that (one DMA, whose size wraps), so more is a fault
 * here rather than a result the hardware would not give. */
static void check_unaligned_size(const char *who, unsigned int nb_of_bytes)
{
    if (nb_of_bytes > 2048)
        __op_faultf(OP_FAULT_DMA, "%s: %u bytes (at most 2048)", who, (uint64_t)nb_of_bytes);
}

void *mram_read_unaligned(const __mram_ptr void *from, void *buffer, unsigned int nb_of_bytes)
{
    check_unaligned_size("mram_read_unaligned", nb_of_bytes);
    uint64_t a = (uint64_t)(uintptr_t)from;
    uint64_t start = a & ~(uint64_t)7;
    uint64_t end = (a + nb_of_bytes + 7) & ~(uint64_t)7;
    uint8_t *to = (uint8_t *)buffer;
    for (uint64_t at = start; at < end;) {
        uint64_t chunk = end - at;
        if (chunk > 2048)
            chunk = 2048;
        mram_read((const __mram_ptr void *)(uintptr_t)at, to, (unsigned int)chunk);
        to += chunk;
        at += chunk;
    }
    return (uint8_t *)buffer + (a & 7);
}

void mram_write_unaligned(const void *from, __mram_ptr void *dest, unsigned int nb_of_bytes)
{
    check_unaligned_size("mram_write_unaligned", nb_of_bytes);
    uint64_t a = __op_mram_dma_addr((uint64_t)(uintptr_t)dest);
    if (nb_of_bytes != 0 && ((a | nb_of_bytes) & 7) == 0) { /* whole words: a plain DMA, as the SDK's */
        mram_write(from, dest, nb_of_bytes);
        return;
    }
    /* The SDK requires the WRAM source to sit at the MRAM address's offset in
     * its 8-byte word, and its DPU code faults otherwise */
    if (nb_of_bytes != 0 && (((uintptr_t)from ^ a) & 7) != 0)
        __op_faultf(OP_FAULT_DMA,
                    "mram_write_unaligned: WRAM address %x and MRAM address %x differ modulo 8 (the SDK requires "
                    "the same alignment)", (uint64_t)(uintptr_t)from, a);
    if (nb_of_bytes == 0) {
        __op_yield();
        return;
    }
    __op_check_mram("mram_write_unaligned", a, nb_of_bytes);
    __op_check_wram("mram_write_unaligned", (uintptr_t)from, nb_of_bytes);
    __mram_ptr uint8_t *to = __op_mram_at(a);
    for (unsigned int k = 0; k < nb_of_bytes; k++)
        to[k] = ((const uint8_t *)from)[k];
    uint64_t start = a & ~(uint64_t)7;
    uint64_t end = (a + nb_of_bytes + 7) & ~(uint64_t)7;
    /* Partial head and tail words are read first, as the DPU code does. */
    if (a != start)
        __OP_SVC->dma((uint32_t)start, 0, 8, 0);
    if (a + nb_of_bytes != end && (end - 8 != start || a == start))
        __OP_SVC->dma((uint32_t)(end - 8), 0, 8, 0);
    __OP_SVC->dma((uint32_t)start, 0, (uint32_t)(end - start), OP_DMA_WRITE);
    __op_yield();
}

/* The update function of an unaligned MRAM update works on a WRAM copy of the
 * bytes (DPU code cannot hold a plain pointer into MRAM), written back at the
 * end; nothing can switch tasklets in between. */
static uint8_t __op_rmw_copy[OP_MAX_TASKLETS][8] __op_scratch;
static uint32_t __op_rmw_size[OP_MAX_TASKLETS] __op_scratch;

void *__op_mram_rmw_begin(uint32_t addr, uint32_t size)
{
    addr = (uint32_t)__op_mram_dma_addr(addr);
    __op_check_mram("mram atomic update", addr, size);
    uint32_t tid = __op_env->tid;
    __mram_ptr uint8_t *at = __op_mram_at(addr);
    for (uint32_t k = 0; k < size && k < 8; k++)
        __op_rmw_copy[tid][k] = at[k];
    __op_rmw_size[tid] = size < 8 ? size : 8;
    return __op_rmw_copy[tid];
}

void __op_mram_rmw_end(uint32_t addr)
{
    uint32_t a = (uint32_t)__op_mram_dma_addr(addr), tid = __op_env->tid;
    __mram_ptr uint8_t *at = __op_mram_at(a);
    for (uint32_t k = 0; k < __op_rmw_size[tid]; k++)
        at[k] = __op_rmw_copy[tid][k];
    uint32_t word = a & ~7u;
    __OP_SVC->dma(word, 0, 8, 0);
    __OP_SVC->dma(word, 0, 8, OP_DMA_WRITE);
    __op_yield();
}
