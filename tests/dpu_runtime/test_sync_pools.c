/* SPDX-License-Identifier: MIT */
/* mutex_pool.h and vmutex.h (dpu_sync_pools.c): histograms equal the host's,
 * pool mapping and virtual-mutex independence, over two launches. */
#include <dpu.h>
#include <stdint.h>

#include "check.h"

#define N 4096
#define BINS 64

int main(void)
{
    uint8_t input[N];
    uint32_t x = 12345;
    for (int i = 0; i < N; i++) { /* a fixed LCG: the same input every run */
        x = x * 1103515245u + 12345u;
        input[i] = (uint8_t)(x >> 16);
    }
    uint32_t want[BINS] = {0};
    for (int i = 0; i < N; i++)
        want[input[i] % BINS]++;

    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(2, NULL, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_sync_pools", NULL));
    DPU_ASSERT(dpu_broadcast_to(set, "input", 0, input, N, DPU_XFER_DEFAULT));
    for (int launch = 0; launch < 2; launch++) {
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
        DPU_FOREACH(set, dpu) {
            uint32_t pool[BINS], vm[BINS], none[BINS], checks[8];
            DPU_ASSERT(dpu_copy_from(dpu, "hist_pool", 0, pool, sizeof pool));
            DPU_ASSERT(dpu_copy_from(dpu, "hist_vmutex", 0, vm, sizeof vm));
            DPU_ASSERT(dpu_copy_from(dpu, "hist_none", 0, none, sizeof none));
            DPU_ASSERT(dpu_copy_from(dpu, "checks", 0, checks, sizeof checks));
            int lost = 0;
            for (int b = 0; b < BINS; b++) {
                CHECK_EQ(pool[b], want[b]);
                CHECK_EQ(vm[b], want[b]);
                lost += none[b] != want[b];
            }
            /* without a lock the same loop goes wrong: the updates really interleave */
            CHECK(lost > 0);
            CHECK_EQ(checks[0], 0);
            CHECK_EQ(checks[1], 1);
            CHECK_EQ(checks[2], 1);
            CHECK_EQ(checks[3], 7);
            CHECK_EQ(checks[4], 0);
            CHECK_EQ(checks[5], (1u << 5) | (1u << 6) | (1u << 13));
            CHECK_EQ(checks[6], 0);
        }
    }
    DPU_ASSERT(dpu_free(set));
    return check_done("test_sync_pools");
}
