/* SPDX-License-Identifier: MIT */
/* Runs both builds of diff_funcs.c and compares results. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "op_cost_slots.h"
#include "switch_points.h"

uint64_t __op_icount;
uint32_t __op_costs[OP_COST_COUNT] = {[OP_COST_INT32_MUL_BASE] = 8, [OP_COST_INT32_MUL_PER_BIT] = 1}; /* read by the counted code */
uint64_t diff_all_native(uint32_t, int);
uint64_t diff_all_counted(uint32_t, int);

int main(void)
{
    int bad = 0, runs = 0;
    uint32_t seed = 1;
    for (int k = 0; k < 300; k++) {
        seed = seed * 1664525u + 1013904223u;
        for (int n = 1; n < 40; n += 7) {
            /* switch points idle, then all calling the stub: same count */
            points_fire(0);
            __op_icount = 0;
            uint64_t a = diff_all_native(seed, n), b = diff_all_counted(seed, n), idle = __op_icount;
            points_fire(1);
            __op_icount = 0;
            uint64_t c = diff_all_counted(seed, n);
            runs++;
            if (a != b || a != c || idle == 0 || __op_icount != idle || points_bad) {
                printf("FAIL seed %u n %d: native %" PRIx64 " counted %" PRIx64 " count %" PRIu64 "\n",
                       seed, n, a, b, __op_icount);
                bad++;
            }
        }
    }
    printf("%s: differential test, %d runs, %d mismatch(es)\n", bad ? "FAILED" : "ok", runs, bad);
    return bad != 0;
}
