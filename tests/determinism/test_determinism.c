/* SPDX-License-Identifier: MIT */
/* Same results and same modelled cycles on every run and for any number of
 * host workers (1, 2, 3): the tasklet schedule is a function of the program
 * and its input only. */
#include <dpu.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define NR_DPUS 24
#define LOG_BYTES (NR_TASKLETS * 6 * 2 + 8)

struct snapshot {
    uint32_t len[NR_DPUS];
    uint8_t log[NR_DPUS][LOG_BYTES];
    uint64_t cycles[NR_DPUS], instructions[NR_DPUS];
};

static const char *binary;

static void run(const char *profile, struct snapshot *s)
{
    struct dpu_set_t set, dpu;
    uint32_t i;
    memset(s, 0, sizeof *s);
    DPU_ASSERT(dpu_alloc(NR_DPUS, profile, &set));
    DPU_ASSERT(dpu_load(set, binary, NULL));
    DPU_FOREACH(set, dpu, i) {
        uint32_t seed = i * 7919u;
        DPU_ASSERT(dpu_copy_to(dpu, "seed", 0, &seed, 4));
    }
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_copy_from(dpu, "log_len", 0, &s->len[i], 4));
        DPU_ASSERT(dpu_copy_from(dpu, "order_log", 0, s->log[i], LOG_BYTES & ~3u));
        DPU_ASSERT(dpu_copy_from(dpu, "cycles", 0, &s->cycles[i], 8));
        DPU_ASSERT(dpu_copy_from(dpu, "instructions", 0, &s->instructions[i], 8));
    }
    DPU_ASSERT(dpu_free(set));
}

int main(int argc, char **argv)
{
    binary = argc > 1 ? argv[1] : "./dpu_order";
    static struct snapshot first, again, w1, w3;
    run("nrRanks=1,workers=2", &first);
    run("nrRanks=1,workers=2", &again);
    run("nrRanks=1,workers=1", &w1);
    run("nrRanks=1,workers=3", &w3);
    CHECK(memcmp(&first, &again, sizeof first) == 0);
    CHECK(memcmp(&first, &w1, sizeof first) == 0);
    CHECK(memcmp(&first, &w3, sizeof first) == 0);
    int differing_orders = 0;
    for (int d = 0; d < NR_DPUS; d++) {
        CHECK_EQ(first.len[d], NR_TASKLETS * 6 + NR_TASKLETS);
        CHECK(first.cycles[d] > 0);
        /* every tasklet logged each round exactly once */
        for (int t = 0; t < NR_TASKLETS; t++) {
            int n = 0;
            for (uint32_t k = 0; k < first.len[d]; k++)
                n += first.log[d][k] == t;
            CHECK_EQ(n, 6);
        }
        /* the handshake chain orders the final entries by tasklet id */
        for (int t = 0; t < NR_TASKLETS; t++)
            CHECK_EQ(first.log[d][NR_TASKLETS * 6 + t], 100 + t);
        differing_orders += d > 0 && memcmp(first.log[d], first.log[0], LOG_BYTES) != 0;
    }
    /* the input changes the interleaving, so the test is not trivially ordered */
    if (NR_TASKLETS > 1)
        CHECK(differing_orders > 0);
    printf("DPU 0: %u log entries, %llu cycles, %llu instructions\n", first.len[0],
           (unsigned long long)first.cycles[0], (unsigned long long)first.instructions[0]);
    return check_done("test_determinism");
}
