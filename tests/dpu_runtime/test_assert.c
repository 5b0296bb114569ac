/* SPDX-License-Identifier: MIT */
/* assert() on the DPU: OP_FAULT_ASSERT with "file:line: assertion failed: expr". */
#include <dpu.h>
#include <stdint.h>
#include <string.h>

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

int main(void)
{
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_assert", NULL));
    uint32_t value = 42, reached = 0;
    DPU_ASSERT(dpu_copy_to(set, "value", 0, &value, 4));
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    DPU_ASSERT(dpu_copy_from(only_dpu(set), "reached", 0, &reached, 4));
    CHECK_EQ(reached, 1);

    value = 7;
    DPU_ASSERT(dpu_copy_to(set, "value", 0, &value, 4));
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_DPU_FAULT);
    DPU_FOREACH(set, dpu) {
        struct openpim_fault f;
        CHECK_EQ(openpim_get_fault(dpu, &f), DPU_OK);
        CHECK(f.faulted);
        CHECK(f.kind && strcmp(f.kind, "assert") == 0);
        CHECK(strstr(f.message, "dpu_assert.c:15: assertion failed: value == 42") != NULL);
        if (!strstr(f.message, "dpu_assert.c:15: assertion failed: value == 42"))
            fprintf(stderr, "fault message: %s\n", f.message);
    }
    DPU_ASSERT(dpu_copy_from(only_dpu(set), "reached", 0, &reached, 4));
    CHECK_EQ(reached, 0);
    DPU_ASSERT(dpu_free(set));
    return check_done("test_assert");
}
