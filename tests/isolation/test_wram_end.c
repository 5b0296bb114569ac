/* SPDX-License-Identifier: MIT */
/* WRAM ends where the chip's does: on v1B (62 KB) an access between 62 and
 * 64 KB faults, as past 64 KB does on v1A; so does a store below WRAM's first
 * byte; the last word of WRAM works and the host sees it. */
#include <dpu.h>
#include <string.h>

#include "check.h"

static void run(const char *profile, const char *binary, uint32_t wram)
{
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(1, profile, &set));
    DPU_ASSERT(dpu_load(set, binary, NULL));
    DPU_FOREACH(set, dpu)
        break;
    uint32_t mode = 1, size = 0;
    DPU_ASSERT(dpu_copy_to(dpu, "mode", 0, &mode, 4));
    CHECK_EQ(dpu_launch(dpu, DPU_SYNCHRONOUS), DPU_OK);
    DPU_ASSERT(dpu_copy_from(dpu, "size", 0, &size, 4));
    CHECK_EQ(size, wram);
    mode = 2;
    DPU_ASSERT(dpu_copy_to(dpu, "mode", 0, &mode, 4));
    CHECK_EQ(dpu_launch(dpu, DPU_SYNCHRONOUS), DPU_ERR_DPU_FAULT);
    struct openpim_fault f;
    DPU_ASSERT(openpim_get_fault(dpu, &f));
    CHECK(f.faulted && strcmp(f.kind, "memory") == 0);
    if (!strstr(f.message, "WRAM access out of bounds at address 0x10010100")) {
        fprintf(stderr, "%s: fault \"%s\"\n", profile, f.message);
        CHECK(0);
    }
    /* a store below WRAM's first byte faults too, on v1B (within the
     * window's first page) as on v1A (below the window) */
    mode = 3;
    DPU_ASSERT(dpu_copy_to(dpu, "mode", 0, &mode, 4));
    CHECK_EQ(dpu_launch(dpu, DPU_SYNCHRONOUS), DPU_ERR_DPU_FAULT);
    DPU_ASSERT(openpim_get_fault(dpu, &f));
    CHECK(f.faulted && strcmp(f.kind, "memory") == 0);
    fprintf(stderr, "%s: below WRAM: \"%s\"\n", profile, f.message);
    /* and the next launch is clean (the bytes below are refilled) */
    mode = 1;
    DPU_ASSERT(dpu_copy_to(dpu, "mode", 0, &mode, 4));
    CHECK_EQ(dpu_launch(dpu, DPU_SYNCHRONOUS), DPU_OK);
    DPU_ASSERT(dpu_free(set));
}

int main(void)
{
    run("nrRanks=1,chip=v1B", "./dpu_wram_end_v1B", 62u << 10);
    run("nrRanks=1", "./dpu_wram_end", 64u << 10);
    return check_done("test_wram_end");
}
