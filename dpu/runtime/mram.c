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
    __builtin_memcpy((void *)w, __op_mram_host(m), size);
    __OP_SVC->dma_event((uint32_t)m, size, 0);
    __op_yield();
}

void mram_write(const void *from, __mram_ptr void *dest, unsigned int nb_of_bytes)
{
    uintptr_t w = (uintptr_t)from & ~(uintptr_t)7;
    uint64_t m = __op_mram_dma_addr((uint64_t)(uintptr_t)dest & ~(uint64_t)7);
    uint32_t size = __op_dma_size(nb_of_bytes);
    __op_check_mram("mram_write", m, size);
    __op_check_wram("mram_write", w, size);
    __builtin_memcpy(__op_mram_host(m), (const void *)w, size);
    __OP_SVC->dma_event((uint32_t)m, size, 1);
    __op_yield();
}

void *mram_read_unaligned(const __mram_ptr void *from, void *buffer, unsigned int nb_of_bytes)
{
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
    uint64_t a = __op_mram_dma_addr((uint64_t)(uintptr_t)dest);
    if (nb_of_bytes == 0) {
        __op_yield();
        return;
    }
    __op_check_mram("mram_write_unaligned", a, nb_of_bytes);
    __op_check_wram("mram_write_unaligned", (uintptr_t)from, nb_of_bytes);
    __builtin_memcpy(__op_mram_host(a), from, nb_of_bytes);
    uint64_t start = a & ~(uint64_t)7;
    uint64_t end = (a + nb_of_bytes + 7) & ~(uint64_t)7;
    /* Partial head and tail words are read first, as the DPU code does. */
    if (a != start)
        __OP_SVC->dma_event((uint32_t)start, 8, 0);
    if (a + nb_of_bytes != end && (end - 8 != start || a == start))
        __OP_SVC->dma_event((uint32_t)(end - 8), 8, 0);
    __OP_SVC->dma_event((uint32_t)start, (uint32_t)(end - start), 1);
    __op_yield();
}

void *__op_mram_rmw_begin(uint32_t addr, uint32_t size)
{
    addr = (uint32_t)__op_mram_dma_addr(addr);
    __op_check_mram("mram atomic update", addr, size);
    return __op_mram_host(addr);
}

void __op_mram_rmw_end(uint32_t addr)
{
    uint32_t word = (uint32_t)__op_mram_dma_addr(addr) & ~7u;
    __OP_SVC->dma_event(word, 8, 0);
    __OP_SVC->dma_event(word, 8, 1);
    __op_yield();
}
