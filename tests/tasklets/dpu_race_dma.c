/* SPDX-License-Identifier: MIT */
/* A race through MRAM: tasklet 0 writes a block with a DMA that tasklet 1
 * reads with another, with nothing between them. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

__dma_aligned uint64_t buf[NR_TASKLETS][4];
__mram_noinit uint64_t block[4];
__host uint64_t first;

int main(void)
{
    unsigned t = me();
    if (t == 0) {
        for (int i = 0; i < 4; i++)
            buf[t][i] = i + 1;
        mram_write(buf[t], block, sizeof buf[t]); /* RACE_W */
    } else if (t == 1) {
        mram_read(block, buf[t], sizeof buf[t]); /* RACE_R */
        first = buf[t][0];
    }
    return 0;
}
