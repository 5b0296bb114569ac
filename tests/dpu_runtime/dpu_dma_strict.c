/* SPDX-License-Identifier: MIT */
/* One mram_read (or mram_write) with a size and offsets the host chooses, as
 * the DMA engine does it, or under -DOPENPIM_STRICT_DMA refused when the SDK
 * documents them as invalid.  buf starts as 0xEE sentinels. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

__host uint32_t n, mram_off, wram_off, write;
__mram_noinit uint8_t src[8192];
__dma_aligned uint8_t buf[4096 + 16];

int main(void)
{
    for (uint32_t i = 0; i < sizeof buf; i++)
        buf[i] = 0xEE;
    if (write)
        mram_write(buf + wram_off, src + mram_off, n);
    else
        mram_read(src + mram_off, buf + wram_off, n);
    return 0;
}
