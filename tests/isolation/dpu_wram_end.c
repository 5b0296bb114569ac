/* SPDX-License-Identifier: MIT */
/* Reads and writes around the ends of WRAM: its first and last bytes are
 * WRAM, the byte past its end is not, nor any below its first byte, on v1B
 * (62 KB) as on v1A (64 KB).  Tasklet `who` makes the access the host asks
 * for (`mode`, at `addr`); the others only wait. */
#include <alloc.h>
#include <defs.h>
#include <stdint.h>
#include <string.h>

extern uint8_t __op_wram_start[], __op_wram_end[]; /* the linker script's WRAM bounds */
__host uint32_t mode, size, who, addr, value;
__host int32_t from; /* first index of mode 8's loop */

/* n words from p on: a loop over a pointer argument */
static __attribute__((noinline)) uint32_t sum_words(const uint32_t *p, int32_t n)
{
    uint32_t sum = 0;
    for (int32_t i = 0; i < n; i++)
        sum += p[i];
    return sum;
}

static void touch(void)
{
    volatile uint8_t *at = (volatile uint8_t *)(uintptr_t)addr;
    if (mode == 1)
        *(volatile uint32_t *)(__op_wram_end - 4) = 0x600dcafe;
    if (mode == 2) /* the first byte past WRAM: 62 KB into a 64 KB page-aligned window on v1B */
        *(volatile uint32_t *)(__op_wram_end + 0x100) = 1;
    if (mode == 3) /* 8 bytes below WRAM's first byte: on the DPU, an address past its end */
        *(volatile uint32_t *)(__op_wram_start - 8) = 1;
    if (mode == 4) /* a load, from a global and a constant offset */
        value = *(volatile uint32_t *)(__op_wram_start - 8);
    if (mode == 5) /* a byte load at an address the program computed */
        value = *at;
    if (mode == 6) /* a byte store there */
        *at = (uint8_t)value;
    if (mode == 7) { /* a copy from there, of a size known at run time */
        uint32_t word = 0;
        memcpy(&word, (const void *)(uintptr_t)addr, value);
        value = word;
    }
    if (mode == 10) { /* a byte stored there, loaded back, restored (it is program data) */
        uint8_t old = *at;
        *at = (uint8_t)value;
        value = *at;
        *at = old;
    }
    if (mode == 11) /* `value` words from there on (none: no access) */
        value = sum_words((const uint32_t *)(uintptr_t)addr, (int32_t)value);
    if (mode == 9) { /* a load at an offset from a heap block (negative here) */
        mem_reset();
        const volatile uint8_t *block = mem_alloc(8);
        value = block[(int32_t)(addr - (uintptr_t)block)];
    }
    if (mode == 8) { /* a loop that starts below WRAM's first byte */
        uint32_t sum = 0;
        for (int32_t i = from; i < 4; i++)
            sum += ((const volatile uint32_t *)__op_wram_start)[i];
        value = sum;
    }
}

int main(void)
{
    size = (uint32_t)(__op_wram_end - __op_wram_start);
    if (me() == who)
        touch();
    return 0;
}
