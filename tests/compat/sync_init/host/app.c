/* SPDX-License-Identifier: MIT */
/* Runs dpu_sync_init on two DPUs, twice, and checks every round's total:
 * sum over rounds r <= k of r * (1 + ... + NR_TASKLETS). */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>

#define NR_ROUNDS 5

int main(void)
{
    struct dpu_set_t set, dpu;
    int failures = 0;
    DPU_ASSERT(dpu_alloc(2, NULL, &set));
    DPU_ASSERT(dpu_load(set, "dpu_sync_init", NULL));
    const uint64_t per_round = (uint64_t)NR_TASKLETS * (NR_TASKLETS + 1) / 2;
    for (int launch = 0; launch < 2; launch++) {
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
        DPU_FOREACH (set, dpu) {
            uint64_t totals[NR_ROUNDS];
            DPU_ASSERT(dpu_copy_from(dpu, "round_totals", 0, totals, sizeof(totals)));
            uint64_t expected = 0;
            for (int r = 1; r <= NR_ROUNDS; r++) {
                expected += (uint64_t)r * per_round;
                if (totals[r - 1] != expected) {
                    printf("[ERROR] launch %d round %d: total %llu, expected %llu\n", launch, r,
                           (unsigned long long)totals[r - 1], (unsigned long long)expected);
                    failures++;
                }
            }
        }
    }
    DPU_ASSERT(dpu_free(set));
    if (failures)
        return 1;
    printf("[OK] barrier and semaphore declared without ';' (%d tasklets)\n", NR_TASKLETS);
    return 0;
}
