/* SPDX-License-Identifier: MIT */
/* The timing model through the whole stack: instruction counts from the
 * accounting pass, the revolver pipeline (a tasklet issues at most every 11
 * cycles, the DPU at most one instruction per cycle) and the DMA engine
 * (read = 77 + 0.5 cycles/byte), checked exactly on small programs; modelled
 * times are the same on every run. */
#include <dpu.h>
#include <string.h>

#include "check.h"

static struct openpim_dpu_stats run_with(const char *profile, const char *bin, uint32_t mode, uint32_t n)
{
    struct dpu_set_t set, dpu;
    struct openpim_dpu_stats st;
    memset(&st, 0, sizeof st);
    DPU_ASSERT(dpu_alloc(1, profile, &set));
    DPU_ASSERT(dpu_load(set, bin, NULL));
    DPU_ASSERT(dpu_copy_to(set, "mode", 0, &mode, 4));
    DPU_ASSERT(dpu_copy_to(set, "n", 0, &n, 4));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu)
        DPU_ASSERT(openpim_get_dpu_stats(dpu, &st));
    DPU_ASSERT(dpu_free(set));
    return st;
}

static struct openpim_dpu_stats run(const char *bin, uint32_t mode, uint32_t n)
{
    return run_with("nrRanks=1", bin, mode, n);
}

int main(void)
{
    /* one tasklet issues every 11 cycles: N instructions take 11(N-1)+1 */
    struct openpim_dpu_stats a = run("./dpu_timing_t1", 1, 1000);
    CHECK(a.instructions > 1000);
    CHECK_EQ(a.cycles, 11 * (a.instructions - 1) + 1);
    struct openpim_dpu_stats a2 = run("./dpu_timing_t1", 1, 2000);
    CHECK(a2.instructions > a.instructions); /* the loop is counted per iteration */

    /* k < 11 tasklets of N instructions each: 11(N-1)+k */
    struct openpim_dpu_stats b = run("./dpu_timing_t4", 1, 1000);
    for (int t = 1; t < 4; t++)
        CHECK_EQ(b.tasklet_instructions[t], b.tasklet_instructions[0]);
    CHECK_EQ(b.cycles, 11 * (b.tasklet_instructions[0] - 1) + 4);

    /* k >= 11 tasklets of N instructions each: the pipeline is full, k*N */
    struct openpim_dpu_stats c = run("./dpu_timing_t16", 1, 1000);
    for (int t = 1; t < 16; t++)
        CHECK_EQ(c.tasklet_instructions[t], c.tasklet_instructions[0]);
    CHECK_EQ(c.cycles, 16 * c.tasklet_instructions[0]);
    CHECK_EQ(c.instructions, 16 * c.tasklet_instructions[0]);

    /* one tasklet, one 2048-byte MRAM read: the tasklet waits for the DMA
       (v1A: 22 + 0.52 x 2048 = 1086.96 cycles) after the instruction that
       issued it, then resumes; the latency follows the machine description */
    struct openpim_dpu_stats d = run("./dpu_timing_t1", 2, 0);
    CHECK_EQ(d.dma_read_bytes, 2048);
    uint64_t latency = d.cycles - (11 * (d.instructions - 2) + 1);
    CHECK(latency == 1086 || latency == 1087);
    struct openpim_dpu_stats e = run_with("nrRanks=1,dma_read_fixed=122", "./dpu_timing_t1", 2, 0);
    CHECK_EQ(e.instructions, d.instructions);
    CHECK_EQ(e.cycles - d.cycles, 100);
    struct openpim_dpu_stats f = run_with("nrRanks=1,dma_cycles_per_byte=1.52", "./dpu_timing_t1", 2, 0);
    CHECK_EQ(f.cycles - d.cycles, 2048);

    /* same program, same input: same modelled time */
    struct openpim_dpu_stats again = run("./dpu_timing_t16", 1, 1000);
    CHECK_EQ(again.cycles, c.cycles);
    CHECK_EQ(again.instructions, c.instructions);
    printf("1 tasklet: %llu instr -> %llu cycles; 16 tasklets: %llu instr -> %llu cycles; DMA: %llu cycles\n",
           (unsigned long long)a.instructions, (unsigned long long)a.cycles, (unsigned long long)c.instructions,
           (unsigned long long)c.cycles, (unsigned long long)d.cycles);
    return check_done("test_timing");
}
