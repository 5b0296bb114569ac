/* SPDX-License-Identifier: MIT */
/* Spins `iterations` rounds of a recurrence whose value the host checks: a
 * launch long enough (in host wall time) to show the progress line. */
#include <defs.h>
#include <stdint.h>

__host uint32_t iterations;
__host uint32_t result;

int main(void)
{
    uint32_t x = 1 + me();
    for (uint32_t i = 0; i < iterations; i++)
        x = x * 3u + i;
    result = x;
    return 0;
}
