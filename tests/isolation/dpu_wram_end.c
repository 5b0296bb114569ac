/* SPDX-License-Identifier: MIT */
/* Reads and writes around the ends of WRAM: the last word is WRAM, the next
 * byte is not, nor the one before the first, on v1B (62 KB) as on v1A (64 KB). */
#include <defs.h>
#include <stdint.h>

extern uint8_t __op_wram_start[], __op_wram_end[]; /* the linker script's WRAM bounds */
__host uint32_t mode, size;

int main(void)
{
    size = (uint32_t)(__op_wram_end - __op_wram_start);
    if (mode == 1)
        *(volatile uint32_t *)(__op_wram_end - 4) = 0x600dcafe;
    if (mode == 2) /* the first byte past WRAM: 62 KB into a 64 KB page-aligned window on v1B */
        *(volatile uint32_t *)(__op_wram_end + 0x100) = 1;
    if (mode == 3) /* 8 bytes below WRAM's first byte: on the DPU, an address past its end */
        *(volatile uint32_t *)(__op_wram_start - 8) = 1;
    return 0;
}
