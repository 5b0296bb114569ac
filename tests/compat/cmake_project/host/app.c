/* SPDX-License-Identifier: MIT */
/* Runs the two DPU programs the CMake project built: dpu_sum over 3 DPUs with
 * a different uneven count per DPU, and dpu_scale; the results are checked
 * against sums and products computed here. */
#include <dpu.h>

#include <stdint.h>
#include <stdio.h>

int main(void)
{
    int failures = 0;
    struct dpu_set_t set, dpu;
    uint32_t each;
    DPU_ASSERT(dpu_alloc(3, NULL, &set));

    DPU_ASSERT(dpu_load(set, DPU_SUM, NULL));
    static uint32_t values[3][4096];
    uint32_t counts[3] = { 4096, 1, 1237 };
    uint64_t want[3] = { 0, 0, 0 };
    uint64_t seed = 42;
    DPU_FOREACH (set, dpu, each) {
        for (uint32_t i = 0; i < counts[each]; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            values[each][i] = (uint32_t)(seed >> 33);
            want[each] += values[each][i];
        }
        DPU_ASSERT(dpu_copy_to(dpu, "count", 0, &counts[each], sizeof(uint32_t)));
        DPU_ASSERT(dpu_copy_to(dpu, "values", 0, values[each], sizeof(values[each])));
    }
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH (set, dpu, each) {
        uint64_t got = 0;
        DPU_ASSERT(dpu_copy_from(dpu, "total", 0, &got, sizeof got));
        if (got != want[each]) {
            printf("[ERROR] dpu_sum on DPU %u: %llu, expected %llu\n", each, (unsigned long long)got,
                   (unsigned long long)want[each]);
            failures++;
        }
    }

    DPU_ASSERT(dpu_load(set, DPU_SCALE, NULL));
    uint32_t factor = 7;
    DPU_ASSERT(dpu_broadcast_to(set, "factor", 0, &factor, sizeof factor, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH (set, dpu, each) {
        uint32_t out[NR_TASKLETS];
        DPU_ASSERT(dpu_copy_from(dpu, "out", 0, out, sizeof out));
        for (uint32_t t = 0; t < NR_TASKLETS; t++)
            if (out[t] != (t + 1) * factor) {
                printf("[ERROR] dpu_scale on DPU %u, tasklet %u: %u, expected %u\n", each, t, out[t], (t + 1) * factor);
                failures++;
            }
    }
    DPU_ASSERT(dpu_free(set));
    if (failures)
        return 1;
    printf("[OK] a CMake project with UPMEM's modules (DpuHost.cmake, dpu.cmake), %d tasklets\n", NR_TASKLETS);
    return 0;
}
