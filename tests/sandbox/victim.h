/* SPDX-License-Identifier: MIT */
/* The victim convention of the sandbox tests (dpu_sandbox.c): DPU VICTIM (a
 * macro of the including test) gets a mode, every other DPU mode 0, which
 * computes result 42 and writes t * 1000 + 7 for tasklet t into mram_out. */
#ifndef OPENPIM_TEST_VICTIM_H
#define OPENPIM_TEST_VICTIM_H

#include <dpu.h>
#include <string.h>

#include "check.h"

static void set_mode(struct dpu_set_t set, uint32_t victim_mode)
{
    struct dpu_set_t dpu;
    uint32_t i, zero = 0;
    uint64_t zero64 = 0;
    DPU_ASSERT(dpu_copy_to(set, "result", 0, &zero64, 8));
    DPU_ASSERT(dpu_copy_to(set, "returned", 0, &zero64, 8));
    DPU_FOREACH(set, dpu, i)
        DPU_ASSERT(dpu_copy_to(dpu, "mode", 0, i == VICTIM ? &victim_mode : &zero, 4));
}

/* Every DPU but the victim (unless with_victim) computed its result, unfaulted. */
static void check_results(struct dpu_set_t set, int with_victim)
{
    struct dpu_set_t dpu;
    uint32_t i;
    DPU_FOREACH(set, dpu, i) {
        if (!with_victim && i == VICTIM)
            continue;
        uint64_t r, m[4];
        CHECK_EQ(dpu_copy_from(dpu, "result", 0, &r, 8), DPU_OK);
        CHECK_EQ(r, 42);
        CHECK_EQ(dpu_copy_from(dpu, "mram_out", 0, m, sizeof m), DPU_OK);
        for (uint64_t t = 0; t < 4; t++)
            CHECK_EQ(m[t], t * 1000 + 7);
        struct openpim_fault f;
        CHECK_EQ(openpim_get_fault(dpu, &f), DPU_OK);
        CHECK(!f.faulted);
    }
}

/* Why the victim stopped in the last launch. */
static inline struct openpim_fault victim_fault(struct dpu_set_t set)
{
    struct dpu_set_t dpu;
    uint32_t i;
    struct openpim_fault f;
    memset(&f, 0, sizeof f);
    DPU_FOREACH(set, dpu, i)
        if (i == VICTIM)
            CHECK_EQ(openpim_get_fault(dpu, &f), DPU_OK);
    return f;
}

#endif
