/* SPDX-License-Identifier: MIT */
/* mutex_lock(NULL) works and excludes; named mutexes are distinct keys. */
#include <dpu.h>
#include <stdint.h>

#include "check.h"

int main(void)
{
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(2, NULL, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_mutex", NULL));
    for (int launch = 0; launch < 2; launch++) { /* mutexes are all free again at each launch */
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
        struct dpu_set_t dpu;
        DPU_FOREACH(set, dpu) {
            uint32_t counter, named, tl[4];
            DPU_ASSERT(dpu_copy_from(dpu, "counter", 0, &counter, 4));
            DPU_ASSERT(dpu_copy_from(dpu, "named_counter", 0, &named, 4));
            DPU_ASSERT(dpu_copy_from(dpu, "trylock_results", 0, tl, sizeof(tl)));
            CHECK_EQ(counter, 8 * 50);
            CHECK_EQ(named, 8 * 50);
            CHECK_EQ(tl[0], 0);
            CHECK_EQ(tl[1], 1);
            CHECK_EQ(tl[2], 1);
            CHECK_EQ(tl[3], 1);
        }
    }
    DPU_ASSERT(dpu_free(set));
    return check_done("test_mutex");
}
