/* SPDX-License-Identifier: MIT */
/* Only <stdio.h> (and <stdint.h>): __host and __mram are declared by it, and
 * STDOUT_BUFFER_INIT gives the log 256 bytes instead of 1 MiB.  The program
 * doubles `input` into `output` (an MRAM array) and prints `lines` numbered
 * lines, more than 256 bytes of log when `lines` is large. */
#include <stdint.h>
#include <stdio.h>

STDOUT_BUFFER_INIT(256)

__host uint32_t input;
__host uint32_t lines;
__mram uint64_t output;

int main(void)
{
    output = 2ull * input;
    for (uint32_t i = 0; i < lines; i++)
        printf("line %u of %u\n", i, lines);
    return 0;
}
