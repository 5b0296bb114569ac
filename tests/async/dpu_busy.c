/* SPDX-License-Identifier: MIT */
/* Spins `iterations` times (or halts, when asked): a launch long enough to be
 * seen running. */
#include <defs.h>
#include <stdint.h>

__host uint32_t iterations, halt_now;
__host uint32_t result;

int main(void)
{
    if (halt_now)
        halt();
    uint32_t x = 1;
    for (uint32_t i = 0; i < iterations; i++)
        x = x * 3 + i;
    result = x;
    return 0;
}
