/* SPDX-License-Identifier: MIT */
/* Sessions (openpim_ext.h): several clients in one process share the machine
 * their profile names, each with its own ranks, sets and modelled clock; a
 * rank given back is reset before another session gets it; sessions work
 * from several threads at once. */
#include <dpu.h>
#include <openpim_ext.h>
#include <pthread.h>
#include <stdint.h>

#include "check.h"

#define PROFILE "nrRanks=3,nrDpusPerRank=2"

static uint64_t read_u64(struct dpu_set_t dpu, const char *sym)
{
    uint64_t v = ~0ull;
    CHECK_EQ(dpu_copy_from(dpu, sym, 0, &v, sizeof v), DPU_OK);
    return v;
}

/* Loads, sets the step, launches `times` and checks both counters on every
 * DPU: WRAM restarts at each load, MRAM (noinit) from `mram_before`. */
static void run_counter_from(struct dpu_set_t set, uint32_t step, unsigned times, uint64_t mram_before)
{
    CHECK_EQ(dpu_load(set, "./dpu_counter", NULL), DPU_OK);
    CHECK_EQ(dpu_broadcast_to(set, "step", 0, &step, sizeof step, DPU_XFER_DEFAULT), DPU_OK);
    for (unsigned i = 0; i < times; i++)
        CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    struct dpu_set_t dpu;
    DPU_FOREACH(set, dpu) {
        CHECK_EQ(read_u64(dpu, "wram_count"), (uint64_t)step * times);
        CHECK_EQ(read_u64(dpu, "mram_count"), mram_before + (uint64_t)step * times);
    }
}

static void run_counter(struct dpu_set_t set, uint32_t step, unsigned times)
{
    run_counter_from(set, step, times, 0);
}

static void *tenant(void *arg)
{
    struct openpim_session *s = arg;
    CHECK(openpim_session_use(s) == NULL);
    struct dpu_set_t set;
    CHECK_EQ(dpu_alloc_ranks(1, PROFILE, &set), DPU_OK);
    for (uint32_t round = 1; round <= 20; round++) {
        run_counter(set, round, 3);
        CHECK_EQ(dpu_free(set), DPU_OK);
        CHECK_EQ(dpu_alloc_ranks(1, PROFILE, &set), DPU_OK); /* clean again: the counters restart */
    }
    CHECK_EQ(dpu_free(set), DPU_OK);
    openpim_session_use(NULL);
    return NULL;
}

int main(void)
{
    struct openpim_session *a = openpim_session_create(), *b = openpim_session_create();
    CHECK(a && b);

    /* the default session takes one rank of the 3 */
    struct dpu_set_t mine, sa, sb, extra;
    CHECK_EQ(dpu_alloc_ranks(1, PROFILE, &mine), DPU_OK);
    run_counter(mine, 5, 2);

    /* session a takes another rank: the same machine, so one rank is left */
    CHECK(openpim_session_use(a) == NULL);
    CHECK_EQ(dpu_alloc_ranks(1, PROFILE, &sa), DPU_OK);
    run_counter(sa, 7, 1);
    /* a set of another session is not valid here */
    uint32_t n = 0;
    CHECK_EQ(dpu_get_nr_dpus(mine, &n), DPU_ERR_INVALID_DPU_SET);
    CHECK_EQ(dpu_launch(mine, DPU_SYNCHRONOUS), DPU_ERR_INVALID_DPU_SET);
    CHECK_EQ(dpu_free(mine), DPU_ERR_INVALID_DPU_SET);

    /* session b gets the last rank, then nothing */
    CHECK((struct openpim_session *)openpim_session_use(b) == a);
    CHECK_EQ(dpu_alloc_ranks(1, PROFILE, &sb), DPU_OK);
    CHECK_EQ(dpu_alloc_ranks(1, PROFILE, &extra), DPU_ERR_ALLOCATION);
    run_counter(sb, 11, 4);
    /* each session's modelled clock counts its own work */
    double tb = openpim_modelled_time_us();
    openpim_session_use(a);
    double ta = openpim_modelled_time_us();
    CHECK(ta > 0 && tb > ta); /* b launched 4 times, a once */

    /* a gives its rank back: b gets it, reset (counters zero, no program) */
    CHECK_EQ(dpu_free(sa), DPU_OK);
    openpim_session_use(b);
    CHECK_EQ(dpu_alloc_ranks(1, PROFILE, &extra), DPU_OK);
    struct dpu_set_t dpu;
    DPU_FOREACH(extra, dpu) {
        uint64_t v = 1;
        CHECK_EQ(dpu_copy_from(dpu, "mram_count", 0, &v, sizeof v), DPU_ERR_NO_PROGRAM_LOADED);
    }
    CHECK_EQ(dpu_load(extra, "./dpu_counter", NULL), DPU_OK);
    DPU_FOREACH(extra, dpu) {
        CHECK_EQ(read_u64(dpu, "mram_count"), 0);
        CHECK_EQ(read_u64(dpu, "wram_count"), 0);
    }
    /* destroying b frees its sets: both ranks come back */
    openpim_session_use(NULL);
    CHECK_EQ(openpim_session_destroy(b), DPU_OK);
    CHECK_EQ(openpim_session_destroy(NULL), DPU_ERR_INVALID_DPU_SET);
    openpim_session_use(a);
    struct dpu_set_t two;
    CHECK_EQ(dpu_alloc_ranks(2, PROFILE, &two), DPU_OK);
    CHECK_EQ(dpu_free(two), DPU_OK);
    openpim_session_use(NULL);
    run_counter_from(mine, 3, 1, 5 * 2); /* the default session's set is still as it left it */
    CHECK_EQ(dpu_free(mine), DPU_OK);
    CHECK_EQ(openpim_session_destroy(a), DPU_OK);

    /* three sessions on three threads at once, sharing the machine's 3 ranks */
    struct openpim_session *t[3];
    pthread_t th[3];
    for (int i = 0; i < 3; i++) {
        t[i] = openpim_session_create();
        CHECK_EQ(pthread_create(&th[i], NULL, tenant, t[i]), 0);
    }
    for (int i = 0; i < 3; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ(openpim_session_destroy(t[i]), DPU_OK);
    }
    return check_done("test_sessions");
}
