/* SPDX-License-Identifier: MIT */
/* exit(), perfcounter, errno, buddy/fsb allocators and libc on the DPU. */
#include <dpu.h>
#include <stdint.h>

#include "check.h"

#define T 4

static struct dpu_set_t only_dpu(struct dpu_set_t set)
{
    struct dpu_set_t dpu, first = set;
    int seen = 0;
    DPU_FOREACH(set, dpu) {
        if (!seen++)
            first = dpu;
    }
    return first;
}

int main(void)
{
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_misc", NULL));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    struct dpu_set_t dpu = only_dpu(set);
    uint32_t after[T], err[T], failed, run;
    uint64_t perf[4];
    DPU_ASSERT(dpu_copy_from(dpu, "after_exit", 0, after, sizeof(after)));
    DPU_ASSERT(dpu_copy_from(dpu, "errno_of", 0, err, sizeof(err)));
    DPU_ASSERT(dpu_copy_from(dpu, "perf", 0, perf, sizeof(perf)));
    DPU_ASSERT(dpu_copy_from(dpu, "checks_failed", 0, &failed, 4));
    DPU_ASSERT(dpu_copy_from(dpu, "checks_run", 0, &run, 4));
    for (uint32_t t = 0; t < T; t++) {
        CHECK_EQ(after[t], t % 2 == 0);
        CHECK_EQ(err[t], 100 + t);
    }
    CHECK_EQ(perf[0] % 16, 0);
    CHECK(perf[1] > perf[0]);
    CHECK(perf[2] >= perf[1]);
    CHECK_EQ(perf[3], perf[2]); /* stopped */
    CHECK_EQ(run, 11);
    CHECK_EQ(failed, 0);
    DPU_ASSERT(dpu_free(set));
    return check_done("test_misc");
}
