/* SPDX-License-Identifier: MIT */
/* perfcounter_get_both on v1B: both counters run together from
 * COUNT_ENABLE_BOTH; instructions grow with the loop exactly as the cycle
 * count does with the model (checked against the DPU's modelled totals), a
 * reset restarts both; v1A refuses both counters with a fault. */
#include <dpu.h>
#include <openpim_ext.h>
#include <string.h>

#include "check.h"

static void run(uint32_t iterations, uint64_t cycles[3], uint64_t instr[3], struct openpim_dpu_stats *st)
{
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(1, "nrRanks=1,nrDpusPerRank=1,chip=v1B", &set));
    DPU_ASSERT(dpu_load(set, "./dpu_perf_both", NULL));
    DPU_ASSERT(dpu_broadcast_to(set, "iterations", 0, &iterations, 4, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu) {
        DPU_ASSERT(dpu_copy_from(dpu, "cycles", 0, cycles, 3 * sizeof *cycles));
        DPU_ASSERT(dpu_copy_from(dpu, "instr", 0, instr, 3 * sizeof *instr));
        CHECK_EQ(openpim_get_dpu_stats(dpu, st), DPU_OK);
    }
    DPU_ASSERT(dpu_free(set));
}

int main(void)
{
    uint64_t c1[3], i1[3], c2[3], i2[3];
    struct openpim_dpu_stats s1, s2;
    run(1000, c1, i1, &s1);
    run(2000, c2, i2, &s2);
    /* counting: later reads are larger, and bounded by the DPU's whole run */
    CHECK(i1[1] > i1[0] && c1[1] > c1[0] && c1[1] >= i1[1]);
    CHECK(i1[1] < s1.instructions && c1[1] < s1.cycles);
    /* 1000 more iterations add exactly the instructions the DPU ran more (one tasklet) */
    CHECK_EQ(i2[1] - i1[1], s2.instructions - s1.instructions);
    CHECK_EQ(c2[1] - c1[1], s2.cycles - s1.cycles);
    CHECK(i2[1] - i1[1] >= 1000); /* at least an instruction per iteration */
    /* a reset restarts both: the read right after it is small */
    CHECK(i1[2] < 50 && c1[2] < 50 * 12);
    /* the same run twice gives the same counts (deterministic) */
    uint64_t c3[3], i3[3];
    struct openpim_dpu_stats s3;
    run(1000, c3, i3, &s3);
    CHECK(memcmp(c1, c3, sizeof c1) == 0 && memcmp(i1, i3, sizeof i1) == 0);

    /* v1A: one counter; asking for both faults with a clear message */
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(1, "nrRanks=1,nrDpusPerRank=1", &set));
    DPU_ASSERT(dpu_load(set, "./dpu_perf_both_v1A", NULL));
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_DPU_FAULT);
    DPU_FOREACH(set, dpu) {
        struct openpim_fault f;
        CHECK_EQ(openpim_get_fault(dpu, &f), DPU_OK);
        CHECK(f.faulted && strstr(f.message, "needs a v1B DPU") != NULL);
    }
    DPU_ASSERT(dpu_free(set));
    return check_done("test_perf_both");
}
