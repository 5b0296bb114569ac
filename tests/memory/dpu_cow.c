/* SPDX-License-Identifier: MIT */
/* Reads one word of MRAM and, when asked, writes another: directly (mode 1),
 * through an alias of the address 64 MB further on, which wraps into the
 * DPU's own MRAM as on hardware (mode 2), or by DMA (mode 3). */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

__host uint32_t mode, probe_off, target_off, value, seen;
__dma_aligned uint64_t word;

int main(void)
{
    if (me() != 0)
        return 0;
    __mram_ptr uint32_t *heap = (__mram_ptr uint32_t *)DPU_MRAM_HEAP_POINTER;
    seen = heap[probe_off / 4];
    if (mode == 1)
        heap[target_off / 4] = value;
    if (mode == 2)
        *(__mram_ptr uint32_t *)((uintptr_t)&heap[target_off / 4] + (64u << 20)) = value;
    if (mode == 3) {
        word = (uint64_t)value * 0x100000001ull;
        mram_write(&word, (__mram_ptr void *)((uintptr_t)heap + (target_off & ~7u)), 8);
    }
    return 0;
}
