/* SPDX-License-Identifier: MIT */
/* A kernel whose modelled length the host chooses (iterations). */
#include <defs.h>
#include <stdint.h>

__host uint32_t iterations;
__host uint32_t result;

int main(void)
{
    uint32_t x = 1;
    for (uint32_t i = 0; i < iterations; i++)
        x = x * 3 + i;
    result = x;
    return 0;
}
