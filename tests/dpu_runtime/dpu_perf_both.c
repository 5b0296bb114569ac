/* SPDX-License-Identifier: MIT */
/* v1B's two counters: cycles and instructions together (COUNT_ENABLE_BOTH,
 * perfcounter_get_both), around a loop of a known number of iterations; with
 * `v1a_style` set, a v1A-only program's request for both (it faults on v1A). */
#include <defs.h>
#include <perfcounter.h>
#include <stdint.h>

__host uint32_t iterations;
__host uint64_t cycles[3], instr[3];
__host volatile uint32_t sink;

int main(void)
{
    perfcounter_config(COUNT_ENABLE_BOTH, true);
    perfcounter_pair_t a = perfcounter_get_both(false);
    for (uint32_t i = 0; i < iterations; i++)
        sink += i;
    perfcounter_pair_t b = perfcounter_get_both(true); /* and restart both from 0 */
    perfcounter_pair_t c = perfcounter_get_both(false);
    cycles[0] = a.cycles, instr[0] = a.instr;
    cycles[1] = b.cycles, instr[1] = b.instr;
    cycles[2] = c.cycles, instr[2] = c.instr;
    return 0;
}
