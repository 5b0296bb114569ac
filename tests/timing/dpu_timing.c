/* SPDX-License-Identifier: MIT */
/* Small kernels whose modelled time follows the pipeline and DMA rules exactly. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

__host uint32_t mode, n;
__host uint32_t out[NR_TASKLETS];
__dma_aligned uint64_t buf[NR_TASKLETS][256];

int main(void)
{
    uint32_t acc = 0, t = me();
    if (mode == 1) {
        for (uint32_t i = 0; i < n; i++)
            acc += i ^ (acc >> 3);
    } else if (mode == 2) {
        mram_read(DPU_MRAM_HEAP_POINTER, buf[t], 2048);
        acc = (uint32_t)buf[t][0];
    }
    out[t] = acc;
    return 0;
}
