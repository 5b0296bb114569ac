/* SPDX-License-Identifier: MIT */
/* Fixed-size-block pools through <alloc.h> alone, as SDK programs use them.
 * mode 0: the pool's layout, exhaustion and reuse; mode 1: a pool larger than
 * the WRAM heap (the DPU faults, as the SDK's fsb_alloc does). */
#include <alloc.h>
#include <defs.h>
#include <stdint.h>

__host uint32_t mode;
__host uint32_t heap_start, after_pools;
__host uint32_t a[6], b[3], again[3];
__host uint32_t intact; /* blocks kept their contents while others were used */

int main(void)
{
    heap_start = (uint32_t)(uintptr_t)mem_reset();
    if (mode == 1) {
        fsb_allocator_t huge = fsb_alloc(1024, 1000);
        a[0] = (uint32_t)(uintptr_t)huge; /* not reached */
        return 0;
    }
    fsb_allocator_t pa = fsb_alloc(12, 5); /* 12 bytes: blocks of 16 */
    fsb_allocator_t pb = fsb_alloc(0, 3);  /* 0 bytes: blocks of 8 */
    after_pools = (uint32_t)(uintptr_t)mem_alloc(8);
    uint64_t *blk[5];
    for (int i = 0; i < 6; i++) {
        void *p = fsb_get(pa);
        a[i] = (uint32_t)(uintptr_t)p;
        if (i < 5) {
            blk[i] = p;
            blk[i][0] = 0x1111111111111111ull * (i + 1);
            blk[i][1] = ~blk[i][0];
        }
    }
    for (int i = 0; i < 3; i++)
        b[i] = (uint32_t)(uintptr_t)fsb_get(pb);
    fsb_free(pa, blk[1]);
    fsb_free(pa, blk[3]);
    again[0] = (uint32_t)(uintptr_t)fsb_get(pa); /* last freed first */
    again[1] = (uint32_t)(uintptr_t)fsb_get(pa);
    again[2] = (uint32_t)(uintptr_t)fsb_get(pa); /* empty again */
    intact = 1;
    for (int i = 0; i < 5; i += 2)
        if (blk[i][0] != 0x1111111111111111ull * (i + 1) || blk[i][1] != ~blk[i][0])
            intact = 0;
    return 0;
}
