/* SPDX-License-Identifier: MIT */
/* DPU side of the host-API test: exercises WRAM/MRAM symbols, initialised MRAM
 * variables, the MRAM heap and WRAM persistence across launches. */
#include <alloc.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

__host uint32_t w_in[16];
__host uint64_t w_out[8];
__host uint32_t launches;              /* .bss: 0 at load, persists across launches */
__host uint32_t w_data_init = 0x1234;  /* .data: initial value from the image */
__mram uint64_t m_init[4] = {11, 22, 33, 44};
__mram_noinit uint64_t m_buf[512];

int main(void)
{
    if (me() != 0)
        return 0;
    launches++;
    w_out[0] = launches;
    w_out[1] = (uint64_t)w_in[0] + w_in[1];
    uint64_t tmp[4];
    mram_read(m_init, tmp, sizeof tmp);
    w_out[2] = tmp[0] + tmp[3];
    uint64_t heap[2];
    mram_read(DPU_MRAM_HEAP_POINTER, heap, sizeof heap);
    w_out[3] = heap[0] * 2 + heap[1];
    mram_read(&m_buf[0], tmp, 16);
    w_out[4] = tmp[0] ^ tmp[1];
    tmp[0] = launches * 100;
    mram_write(tmp, &m_buf[8], 8);
    w_out[5] = w_data_init;
    w_out[6] = me();
    /* direct (non-DMA) access to an __mram global, as UPMEM code may do */
    m_init[2] = m_init[1] + launches;
    w_out[7] = m_init[2];
    return 0;
}
