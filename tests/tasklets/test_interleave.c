/* SPDX-License-Identifier: MIT */
/* Tasklets interleave as the DPU's revolver pipeline interleaves them
 * (worker/tasklets.h):
 *  - counter++ on a shared word without a mutex loses updates as on the DPU:
 *    N iterations per tasklet end at exactly N (dpu_lost_updates.c says why), for
 *    3, 16 and 24 tasklets, with the same counts and modelled cycles on 1, 2
 *    and 3 host workers;
 *  - a spin-wait on another tasklet's store completes, and the spinner sees
 *    the store within one iteration of its loop in modelled time;
 *  - a level loop whose count tasklet 0 decrements right after a barrier, and
 *    the others re-read, ends at the same level for every tasklet. */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"

#define NR_DPUS 6

/* One launch of dpu_lost_updates_t<tasklets> on NR_DPUS DPUs with `workers` host
 * workers: each DPU's final count and modelled cycles. */
static void counter_run(const char *image, unsigned workers, uint32_t *count, uint64_t *cycles)
{
    struct dpu_set_t set, dpu;
    char profile[64];
    snprintf(profile, sizeof profile, "workers=%u", workers);
    DPU_ASSERT(dpu_alloc(NR_DPUS, profile, &set));
    DPU_ASSERT(dpu_load(set, image, NULL));
    uint32_t i = 0, n[NR_DPUS], zero = 0;
    DPU_FOREACH(set, dpu, i) {
        n[i] = 500 + 137 * i; /* uneven: the DPUs finish at different times */
        DPU_ASSERT(dpu_copy_to(dpu, "iterations", 0, &n[i], 4));
        DPU_ASSERT(dpu_copy_to(dpu, "counter", 0, &zero, 4));
    }
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu, i) {
        struct openpim_dpu_stats st;
        DPU_ASSERT(dpu_copy_from(dpu, "counter", 0, &count[i], 4));
        DPU_ASSERT(openpim_get_dpu_stats(dpu, &st));
        cycles[i] = st.cycles;
        CHECK_EQ(count[i], n[i]);
    }
    DPU_ASSERT(dpu_free(set));
}

static void test_counter(void)
{
    static const char *images[] = {"./dpu_lost_updates_t3", "./dpu_lost_updates_t16", "./dpu_lost_updates_t24"};
    for (unsigned k = 0; k < sizeof images / sizeof *images; k++) {
        uint32_t count[3][NR_DPUS];
        uint64_t cycles[3][NR_DPUS];
        for (unsigned w = 1; w <= 3; w++)
            counter_run(images[k], w, count[w - 1], cycles[w - 1]);
        for (unsigned w = 2; w <= 3; w++)
            for (unsigned d = 0; d < NR_DPUS; d++) {
                CHECK_EQ(count[w - 1][d], count[0][d]);
                CHECK_EQ(cycles[w - 1][d], cycles[0][d]);
            }
    }
}

static void test_spin(void)
{
    struct dpu_set_t set, dpu;
    /* on an emulator that does not interleave, the spinner never gives way:
     * the budget turns that into a failure */
    DPU_ASSERT(dpu_alloc(1, "timeoutMs=20000", &set));
    DPU_ASSERT(dpu_load(set, "./dpu_spin_flag", NULL));
    uint32_t work = 300, zero = 0, want = 1;
    for (uint32_t i = 0; i < work; i++)
        want = want * 3 + i;
    DPU_ASSERT(dpu_copy_to(set, "work", 0, &work, 4));
    DPU_ASSERT(dpu_copy_to(set, "flag", 0, &zero, 4));
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    DPU_FOREACH(set, dpu) {
        uint32_t seen, spins;
        uint64_t set_at, seen_at;
        DPU_ASSERT(dpu_copy_from(dpu, "seen", 0, &seen, 4));
        DPU_ASSERT(dpu_copy_from(dpu, "spins", 0, &spins, 4));
        DPU_ASSERT(dpu_copy_from(dpu, "set_at", 0, &set_at, 8));
        DPU_ASSERT(dpu_copy_from(dpu, "seen_at", 0, &seen_at, 8));
        CHECK_EQ(seen, want);
        CHECK(spins > work); /* it spun all along the computation (several instructions per step) */
        /* the setter stores a few instructions after its perfcounter_get; the
         * spinner leaves its loop at its next load and reads the counter: a
         * handful of instructions, at most every 11 cycles each on a DPU
         * running two tasklets */
        CHECK(seen_at >= set_at);
        CHECK(seen_at - set_at <= 16 * 11);
    }
    DPU_ASSERT(dpu_free(set));
}

static void test_levels(void)
{
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(1, "timeoutMs=20000", &set));
    DPU_ASSERT(dpu_load(set, "./dpu_level_loop", NULL));
    uint32_t levels = 7, done[16];
    DPU_ASSERT(dpu_copy_to(set, "levels_left", 0, &levels, 4));
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    DPU_FOREACH(set, dpu) {
        DPU_ASSERT(dpu_copy_from(dpu, "levels_done", 0, done, sizeof done));
        for (int t = 0; t < 16; t++)
            CHECK_EQ(done[t], levels);
    }
    DPU_ASSERT(dpu_free(set));
}

int main(void)
{
    test_counter();
    test_spin();
    test_levels();
    return check_done("test_interleave");
}
