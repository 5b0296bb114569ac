/* SPDX-License-Identifier: MIT */
/* Every tasklet the image runs marks itself; the program records the
 * NR_TASKLETS it was compiled with.  With BIG_FRAME set, tasklet
 * BIG_FRAME_TASKLET (every tasklet when negative) calls a function with a
 * frame of BIG_FRAME bytes, which needs a stack larger than the default. */
#include <defs.h>
#include <stdint.h>

#include "flag_cfg.h" /* found only through the -I forms */

#ifndef BIG_FRAME
#define BIG_FRAME 0
#endif
#ifndef BIG_FRAME_TASKLET
#define BIG_FRAME_TASKLET (-1)
#endif

__host uint32_t compiled_nr_tasklets;
__host uint32_t ran[24];
__host uint32_t frame_sum[24];

__attribute__((noinline)) static uint32_t big_frame(uint32_t seed)
{
    volatile uint8_t buf[BIG_FRAME + 8];
    uint32_t s = 0;
    for (uint32_t i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)(seed + i);
    for (uint32_t i = 0; i < sizeof(buf); i++)
        s += buf[i];
    return s;
}

int main(void)
{
    if (BIG_FRAME && (BIG_FRAME_TASKLET < 0 || me() == (uint32_t)BIG_FRAME_TASKLET))
        frame_sum[me()] = big_frame(me());
    ran[me()] = FLAG_CFG_MARK + me();
    if (me() == 0)
        compiled_nr_tasklets = NR_TASKLETS;
    return 0;
}
