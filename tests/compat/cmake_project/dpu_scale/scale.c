/* SPDX-License-Identifier: MIT */
/* Each tasklet records its id times `factor` in out[me()]. */
#include <defs.h>
#include <stdint.h>

__host uint32_t factor;
__host uint32_t out[NR_TASKLETS];

int main(void)
{
    out[me()] = (me() + 1) * factor;
    return 0;
}
