/* Declared stack budgets are enforced: 24 tasklets with 512-byte stacks each
 * use 256 bytes and finish; a 640-byte frame in tasklet `culprit` faults that
 * tasklet with "stack overflow", and the other tasklets' results stand. */
#include <dpu.h>
#include <string.h>

#include "check.h"

#define T 24

int main(void)
{
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(1, "nrRanks=1", &set));
    DPU_ASSERT(dpu_load(set, "./dpu_stack", NULL));
    DPU_FOREACH(set, dpu)
        break;
    uint32_t zero = 0;
    DPU_ASSERT(dpu_copy_to(dpu, "mode", 0, &zero, 4));
    CHECK_EQ(dpu_launch(dpu, DPU_SYNCHRONOUS), DPU_OK);
    uint32_t sums[T];
    DPU_ASSERT(dpu_copy_from(dpu, "sums", 0, sums, sizeof sums));
    for (uint32_t t = 0; t < T; t++)
        CHECK_EQ(sums[t], 64 * t + 64 * 63 / 2);
    for (uint32_t culprit = 0; culprit < T; culprit += 17) {
        uint32_t one = 1;
        DPU_ASSERT(dpu_copy_to(dpu, "mode", 0, &one, 4));
        DPU_ASSERT(dpu_copy_to(dpu, "culprit", 0, &culprit, 4));
        CHECK_EQ(dpu_launch(dpu, DPU_SYNCHRONOUS), DPU_ERR_DPU_FAULT);
        struct openpim_fault f;
        DPU_ASSERT(openpim_get_fault(dpu, &f));
        char want[64];
        snprintf(want, sizeof want, "stack overflow in tasklet %u (its stack is 512 bytes", culprit);
        CHECK(f.faulted && strcmp(f.kind, "stack") == 0 && f.tasklet == culprit);
        if (!strstr(f.message, want)) {
            fprintf(stderr, "fault message \"%s\", wanted \"%s\"\n", f.message, want);
            CHECK(0);
        }
    }
    DPU_ASSERT(dpu_free(set));
    return check_done("test_stack");
}
