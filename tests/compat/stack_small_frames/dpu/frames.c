/* SPDX-License-Identifier: MIT */
/* Tasklet 0 keeps a pattern in its top frame (the WRAM just below tasklet 1's
 * stack); tasklet 1 descends `depth` small frames, then calls a leaf with a
 * 192-byte local buffer.  Tasklet 0 then reports how many words of its
 * pattern changed. */
#include <barrier.h>
#include <defs.h>
#include <stdint.h>

__host uint32_t depth, leaf_sum, damaged;
BARRIER_INIT(both, NR_TASKLETS);

static __attribute__((noinline)) uint32_t leaf(uint32_t seed)
{
    volatile uint8_t buf[192];
    for (uint32_t i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)(seed + i);
    uint32_t sum = 0;
    for (uint32_t i = 0; i < sizeof(buf); i++)
        sum += buf[i];
    return sum;
}

static __attribute__((noinline)) uint32_t descend(uint32_t d)
{
    volatile uint32_t keep = d;
    if (d == 0)
        return leaf(7);
    return descend(d - 1) + keep;
}

int main(void)
{
    volatile uint32_t pattern[24];
    if (me() == 0)
        for (uint32_t i = 0; i < 24; i++)
            pattern[i] = 0xa5a50000u + i;
    barrier_wait(&both);
    if (me() == 1)
        leaf_sum = descend(depth);
    barrier_wait(&both);
    if (me() == 0) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < 24; i++)
            n += pattern[i] != 0xa5a50000u + i;
        damaged = n;
    }
    return 0;
}
