/* SPDX-License-Identifier: MIT */
/* The WRAM heap: 8-aligned blocks, a pointer that persists across launches
 * unless mem_reset() is called, and a heap fault when it overflows. */
#include <alloc.h>
#include <defs.h>
#include <stdint.h>

__host uint32_t mode; /* 0: reset then allocate, 1: allocate only, 2: overflow */
__host uint64_t blocks[3];

int main(void)
{
    if (mode == 0)
        mem_reset();
    if (mode == 2) {
        mem_reset();
        for (;;)
            blocks[0] = (uintptr_t)mem_alloc(1000);
    }
    blocks[0] = (uintptr_t)mem_alloc(3);
    blocks[1] = (uintptr_t)mem_alloc(8);
    blocks[2] = (uintptr_t)mem_alloc(0);
    return 0;
}
