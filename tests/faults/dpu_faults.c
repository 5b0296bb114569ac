/* SPDX-License-Identifier: MIT */
/* Faults on purpose: the host sets `mode` on one DPU; the others compute a
 * result that must survive the faulting DPU. */
#include <alloc.h>
#include <assert.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

__host uint32_t mode;
__host uint32_t divisor;
__host uint64_t result[4];
__mram_noinit uint64_t mram_out[NR_TASKLETS];
BARRIER_INIT(everyone, NR_TASKLETS);

static volatile uint32_t sink;

static uint32_t recurse(uint32_t n)
{
    volatile uint8_t pad[512];
    pad[n % 512] = (uint8_t)n;
    return n == 0 ? 0 : recurse(n - 1) + pad[n % 512];
}

int main(void)
{
    uint64_t v = (uint64_t)me() * 1000 + 7;
    if (mode == 0) {
        mram_write(&v, &mram_out[me()], 8);
        if (me() == 0) {
            result[0] = 42;
            result[1] = 0xFFFFFFFFu / (divisor ? divisor : 1);
        }
        return 0;
    }
    if (me() != 0)
        return 0;
    uint64_t buf[2] = {1, 2};
    switch (mode) {
    case 1: /* DMA past the end of MRAM */
        mram_read((__mram_ptr void *)(uintptr_t)(0x08000000u + (64u << 20) - 8), buf, 16);
        break;
    case 2: /* load from an address no DPU memory has (MRAM addresses wrap: tests/isolation) */
        sink = *(volatile uint32_t *)(uintptr_t)0x00100000u;
        break;
    case 3: /* store past the end of WRAM */
        *(volatile uint32_t *)(uintptr_t)(0x10000000u + 0x30000u) = 1;
        break;
    case 4: /* heap overflow */
        for (;;)
            sink += (uint32_t)(uintptr_t)mem_alloc(4096);
        break;
    case 5:
        halt();
        break;
    case 6:
        assert(mode == 0);
        break;
    case 7: /* stack overflow */
        sink = recurse(1u << 20);
        break;
    case 8: /* tasklet 0 waits at a barrier the others never reach */
        barrier_wait(&everyone);
        break;
    case 9: /* never finishes */
        for (;;)
            sink++;
        break;
    case 10: /* integer division by zero: the DPU has no trap */
        result[2] = 1234u / divisor;
        result[3] = 1234u % divisor;
        break;
    case 11: { /* store through a null pointer */
        volatile uintptr_t null = 0;
        *(volatile uint32_t *)null = 1;
        break;
    }
    }
    return 0;
}
