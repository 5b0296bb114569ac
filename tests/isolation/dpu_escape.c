/* SPDX-License-Identifier: MIT */
/* Tries to leave its DPU's memory the ways C code can: 32-bit wrap, unsigned
 * underflow, 64-bit offsets, 64-bit addresses.  On the DPU every address is 32
 * bits and an MRAM address wraps inside the DPU's own MRAM; so here. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

__host uint32_t mode;
__host uint32_t marker;
__host uint32_t probe;
__mram_noinit uint32_t first[16]; /* the first MRAM variable: at 0x08000000 */

/* Sums what an uninitialised stack array holds, then leaves a pattern of its
 * own there: 8 KB, over pages of the native stack below its first. */
#define STALE_WORDS 2048u
static __attribute__((noinline)) uint32_t stale_stack(uint32_t seed)
{
    volatile uint32_t a[STALE_WORDS];
    uint32_t sum = 0;
    for (uint32_t i = 0; i < STALE_WORDS; i++)
        sum += a[i];
    for (uint32_t i = 0; i < STALE_WORDS; i++)
        a[i] = seed * 2654435761u + i;
    return sum;
}

#define MRAM_AT(a) (*(__mram_ptr volatile uint32_t *)(uintptr_t)(a))

int main(void)
{
    __mram_ptr volatile uint32_t *base = first;
    switch (mode) {
    case 1: /* 3 x 64 MB + 64 bytes further: MRAM offset 64 of this DPU */
        MRAM_AT((uintptr_t)base + (64u << 20) * 3u + 64u) = marker;
        probe = MRAM_AT(0x08000000u + 64u);
        break;
    case 2: { /* p[i - 1] with i == 0: 0x07fffffc, the last word of this DPU's MRAM */
        volatile unsigned i = 0;
        base[i - 1] = marker;
        probe = MRAM_AT(0x08000000u + (64u << 20) - 4u);
        break;
    }
    case 3: { /* a 64-bit offset of 2^32 + 8 words: cut to 8 words */
        volatile int64_t off = ((int64_t)1 << 32) + 8;
        base[off] = marker;
        probe = base[8];
        break;
    }
    case 4: { /* a negative 64-bit offset of -2^40 + 2 words: cut to 2 words */
        volatile int64_t off = -((int64_t)1 << 40) + 2;
        base[off] = marker;
        probe = base[2];
        break;
    }
    case 5: { /* a 64-bit host address: cut to 32 bits, where no DPU memory is */
        volatile uint64_t addr = 0x7ff012345678ull;
        probe = *(volatile uint32_t *)(uintptr_t)addr;
        break;
    }
    case 7: /* every DPU: whatever the previous DPU run on this worker left on the stack */
        probe = stale_stack(marker);
        break;
    case 6: { /* a WRAM pointer plus 2^30 words wraps back onto itself */
        volatile uint32_t *w = &probe;
        volatile int64_t off = (int64_t)1 << 30;
        w[off] = marker + 1;
        break;
    }
    }
    return 0;
}
