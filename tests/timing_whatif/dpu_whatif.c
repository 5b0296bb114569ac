/* SPDX-License-Identifier: MIT */
/* Many 32-bit multiplies, their number known to the host (see test_whatif.c).
 *   mode 1: 2n multiplies per tasklet, both operands >= 2^31 (bitlen 32 each);
 *   mode 2: n multiplies per tasklet of xorshift values a = s >> (s & 31) and
 *           s (a <= s: the cost depends on bitlen(a)); the host replays them.
 * No other multiply, division or soft-float operation runs. */
#include <defs.h>
#include <stdint.h>

__host uint32_t mode, n;
__host uint32_t seed[NR_TASKLETS];
__host uint32_t out[NR_TASKLETS];

int main(void)
{
    uint32_t t = me();
    uint32_t x = seed[t] | 0x80000000u, y = ~seed[t] | 0x80000000u, acc = 0;
    if (mode == 1) {
        for (uint32_t i = 0; i < n; i++) {
            x = (x * y) | 0x80000000u;
            y = (y * x) | 0x80000001u;
        }
        acc = x ^ y;
    } else if (mode == 2) {
        uint32_t s = seed[t] | 1u;
        for (uint32_t i = 0; i < n; i++) {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            acc += (s >> (s & 31u)) * s;
        }
    }
    out[t] = acc;
    return 0;
}
