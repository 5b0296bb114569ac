/* SPDX-License-Identifier: MIT */
/* dpu_frames for every depth from 0 to 40: a launch either completes with
 * tasklet 0's pattern intact and the right sums, or faults tasklet 1 with a
 * stack overflow; both outcomes occur, and the deepest run that fits is the
 * last one before the first fault. */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    struct dpu_set_t set, dpu;
    int failures = 0, completed = 0, faulted = 0, first_fault = -1;
    uint32_t want_leaf = 0;
    for (uint32_t i = 0; i < 192; i++)
        want_leaf += (uint8_t)(7 + i);
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, "dpu_frames", NULL));
    for (uint32_t d = 0; d <= 40; d++) {
        DPU_ASSERT(dpu_copy_to(set, "depth", 0, &d, sizeof(d)));
        dpu_error_t err = dpu_launch(set, DPU_SYNCHRONOUS);
        DPU_FOREACH (set, dpu) {
            if (err == DPU_OK) {
                uint32_t sum, damaged;
                DPU_ASSERT(dpu_copy_from(dpu, "leaf_sum", 0, &sum, sizeof(sum)));
                DPU_ASSERT(dpu_copy_from(dpu, "damaged", 0, &damaged, sizeof(damaged)));
                completed++;
                if (first_fault >= 0 || damaged != 0 || sum != want_leaf + d * (d + 1) / 2) {
                    printf("[ERROR] depth %u: completed with %u damaged words, sum %u (expected %u)%s\n", d, damaged,
                           sum, want_leaf + d * (d + 1) / 2, first_fault >= 0 ? " after a shallower fault" : "");
                    failures++;
                }
            } else {
                struct openpim_fault f;
                DPU_ASSERT(openpim_get_fault(dpu, &f));
                faulted++;
                if (first_fault < 0)
                    first_fault = (int)d;
                if (!f.faulted || f.tasklet != 1 || strcmp(f.kind, "stack") != 0 ||
                    strstr(f.message, "stack overflow in tasklet 1") == NULL) {
                    printf("[ERROR] depth %u: %s fault in tasklet %u: %s\n", d, f.kind, f.tasklet, f.message);
                    failures++;
                }
            }
        }
    }
    DPU_ASSERT(dpu_free(set));
    if (completed == 0 || faulted == 0) {
        printf("[ERROR] %d runs completed, %d faulted: the depths do not reach the stack's end\n", completed, faulted);
        failures++;
    }
    if (failures)
        return 1;
    printf("[OK] depths 0..%d fit, deeper ones fault tasklet 1 (stack overflow)\n", first_fault - 1);
    return 0;
}
