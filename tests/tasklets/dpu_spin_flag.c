/* SPDX-License-Identifier: MIT */
/* A spin-wait on another tasklet's store: tasklet 0 spins on a volatile flag
 * that tasklet 1 sets after a computation.  On the DPU both issue in turn, so
 * the spinner sees the flag within one iteration of its loop after the store;
 * both note the modelled cycle (perfcounter) at that point. */
#include <defs.h>
#include <perfcounter.h>
#include <stdint.h>

__host uint32_t work;
__host volatile uint32_t flag;
__host uint32_t result, seen, spins;
__host uint64_t set_at, seen_at;

int main(void)
{
    if (me() == 0) {
        uint32_t n = 0;
        while (!flag)
            n++;
        seen_at = perfcounter_get();
        seen = result;
        spins = n;
    } else if (me() == 1) {
        uint32_t x = 1;
        for (uint32_t i = 0; i < work; i++)
            x = x * 3 + i;
        result = x;
        set_at = perfcounter_get();
        flag = 1;
    }
    return 0;
}
