/* SPDX-License-Identifier: MIT */
/* The runtime side of the pass's switch points and WRAM low-end checks
 * (timing/op_points.h) for the
 * test harnesses, which are compiled without the plugin (and with clang: the
 * calls use LLVM's preserve_most convention).  By default no count reaches
 * the limits; points_fire(1) sets them to 0, so that every switch point calls
 * the stub, which does what the worker does when it does not switch: it
 * leaves the counter at the caller's value.  Counts and results must not
 * change. */
#ifndef SWITCH_POINTS_H
#define SWITCH_POINTS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

extern uint64_t __op_icount;
uint64_t __op_limits[2] = {UINT64_MAX, UINT64_MAX};
static uint64_t points_called __attribute__((unused)), points_bad __attribute__((unused));

typedef void __attribute__((preserve_most)) sched_fn_t(uint64_t, uint32_t, uint64_t *);
static void __attribute__((preserve_most)) points_stub(uint64_t count, uint32_t back, uint64_t *limits)
{
    points_called++;
    if (back > count || limits != __op_limits)
        points_bad++;
    __op_icount = count;
}
sched_fn_t *__op_sched_fn = points_stub;

/* The check of WRAM's low end (-openpim-wram-start): the harnesses give a
 * start in the null page, which no access of theirs reaches. */
void __op_wram_low(uint32_t address);
void __op_wram_low(uint32_t address)
{
    fprintf(stderr, "FAIL: __op_wram_low(0x%08x): a checked access below the WRAM start\n", address);
    abort();
}

static __attribute__((unused)) void points_fire(int on)
{
    __op_limits[0] = __op_limits[1] = on ? 0 : UINT64_MAX;
}

#endif
