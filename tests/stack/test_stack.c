/* SPDX-License-Identifier: MIT */
/* Declared stack budgets are enforced in DPU terms: 24 tasklets with 512-byte
 * stacks each use 256 bytes and finish; a 640-byte frame in tasklet `culprit`
 * faults that tasklet with "stack overflow", naming too_big, and the other
 * tasklets' results stand.  A recursion runs exactly as deep as its frames,
 * as check_stack() measures them, fit the budget, and one level more faults
 * naming rec and what its callers use; printf at the deepest level costs the
 * 48 bytes UPMEM's printf uses.  Exhausting the native (x86) stack is reported
 * as a native stack overflow. */
#include <dpu.h>
#include <string.h>

#include "check.h"

#define T 24

static void expect_fault(struct dpu_set_t dpu, uint32_t tasklet, const char *want)
{
    CHECK_EQ(dpu_launch(dpu, DPU_SYNCHRONOUS), DPU_ERR_DPU_FAULT);
    struct openpim_fault f;
    DPU_ASSERT(openpim_get_fault(dpu, &f));
    CHECK(f.faulted && strcmp(f.kind, "stack") == 0 && f.tasklet == tasklet);
    if (!strstr(f.message, want)) {
        fprintf(stderr, "fault message \"%s\", wanted \"%s\"\n", f.message, want);
        CHECK(0);
    }
}

static void set(struct dpu_set_t dpu, const char *name, uint32_t v)
{
    DPU_ASSERT(dpu_copy_to(dpu, name, 0, &v, 4));
}

int main(void)
{
    struct dpu_set_t dpus, dpu;
    DPU_ASSERT(dpu_alloc(1, "nrRanks=1", &dpus));
    DPU_ASSERT(dpu_load(dpus, "./dpu_stack", NULL));
    DPU_FOREACH(dpus, dpu)
        break;
    set(dpu, "mode", 0);
    set(dpu, "culprit", T);
    CHECK_EQ(dpu_launch(dpu, DPU_SYNCHRONOUS), DPU_OK);
    uint32_t sums[T];
    DPU_ASSERT(dpu_copy_from(dpu, "sums", 0, sums, sizeof sums));
    for (uint32_t t = 0; t < T; t++)
        CHECK_EQ(sums[t], 64 * t + 64 * 63 / 2);
    for (uint32_t culprit = 0; culprit < T; culprit += 17) {
        char want[160];
        set(dpu, "culprit", culprit);
        set(dpu, "mode", 1);
        snprintf(want, sizeof want, "stack overflow in tasklet %u: too_big needs ", culprit);
        expect_fault(dpu, culprit, want);

        /* rec's DPU frame and what its first level leaves, as check_stack() sees them */
        set(dpu, "mode", 2);
        set(dpu, "depth", 2);
        CHECK_EQ(dpu_launch(dpu, DPU_SYNCHRONOUS), DPU_OK);
        uint32_t levels[8];
        DPU_ASSERT(dpu_copy_from(dpu, "levels", 0, levels, sizeof levels));
        uint32_t frame = 4 * (levels[0] - levels[1]), left = 4 * levels[0];
        CHECK(frame >= 8 && frame <= 64 && left < 512 && left > 256);
        printf("culprit %u: rec frame %u, %u bytes left at its first level\n", culprit, frame, left);
        if (frame == 0)
            break;
        uint32_t deepest = left / frame + 1; /* levels 0 .. left / frame fit */
        set(dpu, "depth", deepest);
        CHECK_EQ(dpu_launch(dpu, DPU_SYNCHRONOUS), DPU_OK);
        DPU_ASSERT(dpu_copy_from(dpu, "sums", 0, sums, sizeof sums));
        uint32_t result = deepest - 1; /* rec's result, level by level from the innermost */
        for (uint32_t l = 1; l < deepest; l++)
            result = 2 * result + 1;
        CHECK_EQ(sums[culprit], result);
        set(dpu, "depth", deepest + 1);
        snprintf(want, sizeof want, "stack overflow in tasklet %u: rec needs %u bytes of DPU stack, its callers use %u of its 512",
                 culprit, frame, 512 - (left - (deepest - 1) * frame));
        expect_fault(dpu, culprit, want);

        /* printf at the deepest level of a recursion: it needs the 48 bytes
         * UPMEM's printf uses, whatever this emulator's uses */
        set(dpu, "mode", 4);
        set(dpu, "depth", 2);
        CHECK_EQ(dpu_launch(dpu, DPU_SYNCHRONOUS), DPU_OK);
        DPU_ASSERT(dpu_copy_from(dpu, "levels", 0, levels, sizeof levels));
        frame = 4 * (levels[0] - levels[1]), left = 4 * levels[0];
        CHECK(frame >= 8 && frame < 48 && left > 48);
        uint32_t printable = (left - 48) / frame + 1; /* the deepest level leaves left - (d - 1) frame >= 48 */
        set(dpu, "depth", printable);
        CHECK_EQ(dpu_launch(dpu, DPU_SYNCHRONOUS), DPU_OK);
        set(dpu, "depth", printable + 1);
        snprintf(want, sizeof want, "stack overflow in tasklet %u: printf needs 48 bytes of DPU stack, its callers use %u",
                 culprit, 512 - (left - printable * frame));
        expect_fault(dpu, culprit, want);

        set(dpu, "mode", 3);
        snprintf(want, sizeof want, "native stack overflow in tasklet %u", culprit);
        expect_fault(dpu, culprit, want);
    }
    DPU_ASSERT(dpu_free(dpus));
    return check_done("test_stack");
}
