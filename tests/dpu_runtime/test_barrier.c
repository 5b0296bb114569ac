/* SPDX-License-Identifier: MIT */
/* Run-time initialised barriers: no tasklet passes early, count is reset for
 * the next round, and each member of a group leaves once per round. */
#include <dpu.h>
#include <stdint.h>

#include "check.h"

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

#define T 8
#define ROUNDS 10

int main(void)
{
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_barrier", NULL));
    for (int launch = 0; launch < 2; launch++) {
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
        uint32_t errors, order[ROUNDS][T];
        uint32_t counts[2];
        DPU_ASSERT(dpu_copy_from(only_dpu(set), "errors", 0, &errors, 4));
        DPU_ASSERT(dpu_copy_from(only_dpu(set), "leave_order", 0, order, sizeof(order)));
        DPU_ASSERT(dpu_copy_from(only_dpu(set), "counts_after", 0, counts, sizeof(counts)));
        CHECK_EQ(errors, 0);
        CHECK_EQ(counts[0], T / 2);
        CHECK_EQ(counts[1], T / 2);
        for (int r = 0; r < ROUNDS; r++)
            for (int g = 0; g < 2; g++) {
                uint32_t seen = 0; /* the group's members: tids g, g + 2, ... */
                for (int k = 0; k < T / 2; k++) {
                    uint32_t tid = order[r][g * (T / 2) + k];
                    CHECK(tid < T && tid % 2 == (uint32_t)g);
                    seen |= tid < T ? 1u << tid : 0;
                }
                CHECK_EQ(seen, g ? 0xaau : 0x55u);
            }
    }
    DPU_ASSERT(dpu_free(set));
    return check_done("test_barrier");
}
