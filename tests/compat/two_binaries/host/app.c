/* SPDX-License-Identifier: MIT */
/* Loads dpu_scale, writes the data into its MRAM heap and runs it; loads
 * dpu_sum, which reads the scaled data from its own MRAM heap.  Both checks
 * are exact against the host's own computation. */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

#define NR_DPUS 2

int main(void)
{
    static uint64_t data[NR_DPUS][NR_ELEMENTS], back[NR_ELEMENTS];
    uint64_t expect[NR_DPUS] = { 0 };
    for (uint32_t d = 0; d < NR_DPUS; d++)
        for (uint32_t i = 0; i < NR_ELEMENTS; i++) {
            data[d][i] = (uint64_t)i * i + 7 + d * 1000003ull;
            expect[d] += 3 * data[d][i];
        }

    struct dpu_set_t set, dpu;
    uint32_t d;
    DPU_ASSERT(dpu_alloc(NR_DPUS, NULL, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_scale", NULL));
    DPU_FOREACH(set, dpu, d) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, data[d]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0, sizeof(data[0]), DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));

    DPU_ASSERT(dpu_load(set, "./dpu_sum", NULL));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    int ok = 1;
    DPU_FOREACH(set, dpu, d) {
        uint64_t partial[NR_TASKLETS], sum = 0;
        DPU_ASSERT(dpu_copy_from(dpu, "partial", 0, partial, sizeof(partial)));
        for (uint32_t t = 0; t < NR_TASKLETS; t++)
            sum += partial[t];
        DPU_ASSERT(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, 0, back, sizeof(back)));
        for (uint32_t i = 0; i < NR_ELEMENTS; i++)
            if (back[i] != 3 * data[d][i]) {
                printf("[ERROR] DPU %u: heap element %u is %llu after reloading, expected %llu\n", d, i,
                       (unsigned long long)back[i], (unsigned long long)(3 * data[d][i]));
                ok = 0;
                break;
            }
        if (sum != expect[d]) {
            printf("[ERROR] DPU %u: dpu_sum found %llu, expected %llu\n", d, (unsigned long long)sum,
                   (unsigned long long)expect[d]);
            ok = 0;
        }
    }
    DPU_ASSERT(dpu_free(set));
    if (ok)
        printf("[OK] the second program read the data the host wrote under the first\n");
    return ok ? 0 : 1;
}
