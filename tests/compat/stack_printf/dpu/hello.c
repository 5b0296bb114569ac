/* SPDX-License-Identifier: MIT */
/* printf from a function with a 520-byte buffer on a 1 KB stack: on the DPU
 * the buffer and printf's frames fit 1 KB, so the message is printed. */
#include <defs.h>
#include <stdint.h>
#include <stdio.h>

__host uint32_t seed;

static __attribute__((noinline)) void report(uint32_t s)
{
    char line[520];
    uint32_t n = 0;
    for (; n < 40; n++)
        line[n] = (char)('a' + (s + n) % 26);
    line[n] = '\0';
    for (uint32_t i = n + 1; i < sizeof(line); i++)
        line[i] = (char)i;
    printf("tasklet %u: %s %u %lld\n", me(), line, (uint32_t)line[sizeof(line) - 1] & 0xff, (long long)s * 3);
}

int main(void)
{
    report(seed + me());
    return 0;
}
