/* SPDX-License-Identifier: MIT */
/* The DPU's DMA engine decodes MRAM offsets: an address without the 0x08000000
 * tag (as PrIM BFS passes, straight from host-computed offsets) reaches the same
 * byte.  This program has no MRAM variables and no printf, so its MRAM heap
 * starts at MRAM offset 0, as BFS assumes. */
#include <defs.h>
#include <mram.h>
#include <seqread.h>
#include <alloc.h>
#include <stdint.h>

__host uint32_t heap_addr;
__host uint64_t via_offset[4];
__host uint64_t via_tag[4];
__host uint64_t via_seqread;
__host uint32_t finished;

int main(void)
{
    if (me() != 0)
        return 0;
    mem_reset();
    heap_addr = (uint32_t)DPU_MRAM_HEAP_POINTER;
    uint32_t off = heap_addr - 0x08000000u; /* the heap as an untagged offset */
    __dma_aligned uint64_t buf[4];

    /* the host wrote 4 words at heap offset 64 */
    mram_read((__mram_ptr void const *)(off + 64), buf, sizeof buf);
    for (int i = 0; i < 4; i++)
        via_offset[i] = buf[i];
    mram_read((__mram_ptr void const *)(heap_addr + 64), buf, sizeof buf);
    for (int i = 0; i < 4; i++)
        via_tag[i] = buf[i];

    /* write through an untagged offset; the host reads it through the symbol */
    buf[0] = 0x0123456789abcdefull;
    buf[1] = 77;
    mram_write(buf, (__mram_ptr void *)(off + 256), 16);

    seqreader_t reader;
    uint64_t *p = seqread_init(seqread_alloc(), (__mram_ptr void *)(off + 64 + 8), &reader);
    via_seqread = *p;
    finished = 1;
    return 0;
}
