/* SPDX-License-Identifier: MIT */
/* Times dpu_wram_loops.c's three loops (min and median of several launches)
 * on the chip given as profile: with the v1B image against the v1A one, the
 * cost of v1B's checks of WRAM's low end.
 *   host_wram_loops IMAGE PROFILE */
#define _POSIX_C_SOURCE 200809L
#include <dpu.h>
#include <stdio.h>

#include "../bench.h"

#define REPS 7

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s IMAGE PROFILE\n", argv[0]);
        return 2;
    }
    static const char *const names[] = {"global table", "heap table", "pointer argument"};
    uint32_t passes = 2000, results[3];
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(1, argv[2], &set));
    DPU_ASSERT(dpu_load(set, argv[1], NULL));
    DPU_ASSERT(dpu_broadcast_to(set, "passes", 0, &passes, 4, DPU_XFER_DEFAULT));
    for (uint32_t mode = 0; mode < 3; mode++) {
        double t[REPS];
        DPU_ASSERT(dpu_broadcast_to(set, "mode", 0, &mode, 4, DPU_XFER_DEFAULT));
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS)); /* warm-up */
        for (int i = 0; i < REPS; i++) {
            double t0 = bench_now();
            DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
            t[i] = bench_now() - t0;
        }
        DPU_FOREACH(set, dpu)
            DPU_ASSERT(dpu_copy_from(dpu, "result", 0, &results[mode], 4));
        bench_sort(t, REPS);
        printf("%-17s %8.2f ms min %8.2f ms median  (result %u)\n", names[mode], t[0] * 1e3, t[REPS / 2] * 1e3,
               results[mode]);
    }
    DPU_ASSERT(dpu_free(set));
    return 0;
}
