/* SPDX-License-Identifier: MIT */
/* Every kind of DPU fault is reported with the right SDK error, names the DPU,
 * tasklet and cause, leaves the other DPUs' memory intact and never harms the
 * host, which keeps using the same DPUs afterwards. */
#include <dpu.h>
#include <string.h>

#include "check.h"

#define NR 8
#define VICTIM 5

struct expect {
    uint32_t mode;
    dpu_error_t error;
    const char *kind;
    const char *message_part;
};

static const struct expect cases[] = {
    {1, DPU_ERR_DPU_FAULT, "dma", "MRAM"},
    {2, DPU_ERR_DPU_FAULT, "memory", "invalid memory access at address 0x100000"},
    {3, DPU_ERR_DPU_FAULT, "memory", "WRAM access out of bounds"},
    {4, DPU_ERR_DPU_FAULT, "heap", ""},
    {5, DPU_ERR_DPU_FAULT, "halt", ""},
    {6, DPU_ERR_DPU_FAULT, "assert", "mode == 0"},
    {7, DPU_ERR_DPU_FAULT, "stack", "stack overflow in tasklet 0"},
    {8, DPU_ERR_DPU_FAULT, "deadlock", ""},
    {9, DPU_ERR_TIMEOUT, "timeout", ""},
    {10, DPU_ERR_DPU_FAULT, "divide-by-zero", "division by zero"},
    {11, DPU_ERR_DPU_FAULT, "memory", "invalid memory access at address 0x0"},
};

static void set_mode(struct dpu_set_t set, uint32_t victim_mode)
{
    struct dpu_set_t dpu;
    uint32_t i, zero = 0;
    DPU_FOREACH(set, dpu, i)
        DPU_ASSERT(dpu_copy_to(dpu, "mode", 0, i == VICTIM ? &victim_mode : &zero, 4));
}

static void check_survivors(struct dpu_set_t set, int skip_victim)
{
    struct dpu_set_t dpu;
    uint32_t i;
    DPU_FOREACH(set, dpu, i) {
        if (skip_victim && i == VICTIM)
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

int main(void)
{
    struct dpu_set_t set, dpu;
    uint32_t i;
    DPU_ASSERT(dpu_alloc(NR, "nrRanks=1,timeoutMs=300", &set));
    DPU_ASSERT(dpu_load(set, "./dpu_faults", NULL));
    uint32_t zero_divisor = 0;
    DPU_ASSERT(dpu_copy_to(set, "divisor", 0, &zero_divisor, 4));
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const struct expect *e = &cases[c];
        /* clear the survivors' results, then fault one DPU */
        uint64_t zero[4] = {0, 0, 0, 0};
        DPU_ASSERT(dpu_copy_to(set, "result", 0, zero, sizeof zero));
        set_mode(set, e->mode);
        CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), e->error);
        bool done = false, fault = false;
        CHECK_EQ(dpu_status(set, &done, &fault), DPU_OK);
        CHECK(done && fault);
        DPU_FOREACH(set, dpu, i) {
            if (i != VICTIM)
                continue;
            struct openpim_fault f;
            CHECK_EQ(openpim_get_fault(dpu, &f), DPU_OK);
            CHECK(f.faulted);
            CHECK_EQ(f.tasklet, 0);
            if (strcmp(f.kind, e->kind) != 0 || !strstr(f.message, e->message_part)) {
                fprintf(stderr, "mode %u: got %s fault \"%s\", expected %s fault with \"%s\"\n", e->mode, f.kind,
                        f.message, e->kind, e->message_part);
                CHECK(0);
            }
        }
        check_survivors(set, 1);
        /* the same DPUs work normally afterwards */
        set_mode(set, 0);
        CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
        check_survivors(set, 0);
    }
    DPU_ASSERT(dpu_free(set));
    return check_done("test_faults");
}
