/* SPDX-License-Identifier: MIT */
/* Instructions the DPU executes (OpenPIM's exact per-launch count) for both
 * loops of dpu_nop: the two-nop loop costs exactly one instruction per
 * iteration more than the one-nop loop, and the one-nop loop is not removed
 * (at least the nop and the loop test per iteration). */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>

static uint64_t instructions(struct dpu_set_t set, uint32_t mode, uint32_t n)
{
    struct dpu_set_t dpu;
    struct openpim_dpu_stats stats = { 0 };
    DPU_ASSERT(dpu_copy_to(set, "mode", 0, &mode, sizeof(mode)));
    DPU_ASSERT(dpu_copy_to(set, "iterations", 0, &n, sizeof(n)));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH (set, dpu)
        DPU_ASSERT(openpim_get_dpu_stats(dpu, &stats));
    return stats.instructions;
}

int main(void)
{
    struct dpu_set_t set;
    int failures = 0;
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, "dpu_nop", NULL));
    const int64_t base = (int64_t)instructions(set, 2, 0) - (int64_t)instructions(set, 1, 0);
    const uint32_t lengths[] = { 1, 10, 1000 };
    for (unsigned k = 0; k < sizeof(lengths) / sizeof(lengths[0]); k++) {
        uint32_t n = lengths[k];
        int64_t one = (int64_t)instructions(set, 1, n), two = (int64_t)instructions(set, 2, n);
        if (two - one - base != n) {
            printf("[ERROR] %u iterations: %lld instructions with two nops, %lld with one (%lld at 0)\n", n,
                   (long long)two, (long long)one, (long long)base);
            failures++;
        }
        if (one - (int64_t)instructions(set, 1, 0) < 2 * (int64_t)n) {
            printf("[ERROR] %u iterations: the one-nop loop took %lld instructions\n", n, (long long)one);
            failures++;
        }
    }
    DPU_ASSERT(dpu_free(set));
    if (failures)
        return 1;
    printf("[OK] __builtin_nop_() is one instruction\n");
    return 0;
}
