/* SPDX-License-Identifier: MIT */
/* A loop of `iterations` with one nop per iteration (mode 1) or two (mode 2). */
#include <attributes.h>
#include <stdint.h>

__host uint32_t iterations, mode;

int main(void)
{
    if (mode == 1) {
        for (uint32_t i = 0; i < iterations; i++)
            __builtin_nop_();
    } else {
        for (uint32_t i = 0; i < iterations; i++) {
            __builtin_nop_();
            __builtin_nop_();
        }
    }
    return 0;
}
