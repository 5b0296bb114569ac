/* SPDX-License-Identifier: MIT */
/* A failed assert() stops the DPU with an assert fault naming file, line and
 * expression; a passing one does nothing. */
#include <assert.h>
#include <defs.h>
#include <stdint.h>

__host uint32_t value;
__host uint32_t reached;

int main(void)
{
    reached = 0;
    assert(value != 0);
    assert(value == 42);
    reached = 1;
    return 0;
}
