/* SPDX-License-Identifier: MIT */
/* async_ranks, host side.
 *
 * Drives the ranks of a DPU set independently with the asynchronous API.
 *
 * Round 1, rank by rank (DPU_RANK_FOREACH): queue on each rank the transfer
 * of its arguments and inputs (DPU_XFER_ASYNC), an asynchronous launch
 * (DPU_ASYNCHRONOUS), the transfer of its outputs back (DPU_XFER_ASYNC) and a
 * callback (DPU_CALLBACK_ASYNC) that reads the rank's DPU_RESULTS and checks
 * the rank's outputs.  The host only waits at the final dpu_sync, so a rank
 * whose work is done does not wait for the others.
 *
 * Round 2, on the whole set: new arguments (asynchronous transfer), an
 * asynchronous launch, then a blocking callback (DPU_CALLBACK_DEFAULT) that
 * the SDK calls once per rank, in parallel, with the rank's index.
 *
 * Every DPU computes y = a * x + b (modulo 2^32) with its own a and b; ranks
 * get different amounts of work.  Every value is checked.
 *
 * Usage: bin/host_app [-d nr_dpus] [-n elements_per_dpu]
 */
#define _POSIX_C_SOURCE 200809L

#include <dpu.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common.h"

#ifndef DPU_BINARY
#define DPU_BINARY "./bin/dpu_task"
#endif

#define EXAMPLE "async_ranks"
#define DEFAULT_ELEMENTS_PER_DPU 20001u
#define MAX_ELEMENTS_PER_DPU (2u << 20)

__attribute__((format(printf, 1, 2), noreturn)) static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("[ERROR] " EXAMPLE ": ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    exit(EXIT_FAILURE);
}

/* 64-bit LCG (Knuth's MMIX constants); deterministic input. */
static uint64_t lcg_state = 0x5eed0008u;

static uint32_t lcg_next(void)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(lcg_state >> 32);
}

static uint32_t parse_count(const char *text, const char *what)
{
    char *end = NULL;
    unsigned long long value = strtoull(text, &end, 0);
    if (end == text || *end != '\0' || value == 0 || value > UINT32_MAX) {
        fail("invalid %s '%s'", what, text);
    }
    return (uint32_t)value;
}

/* ---- state shared with the callbacks ------------------------------------ */

struct rank_info {
    struct job *job;
    uint32_t first_dpu; /* global index of the rank's first DPU */
    uint32_t nr_dpus;
    uint32_t callbacks; /* calls of the callback for this rank, per round */
    uint32_t bad_dpus;  /* DPUs whose outputs were wrong */
};

struct job {
    uint32_t nr_dpus, nr_ranks, region_elems, round;
    const uint32_t *x;
    uint32_t *y;
    dpu_arguments_t *args;
    dpu_result_t *results;
    struct rank_info *ranks;
};

/* Checks DPU g after round `round`; returns 1 when everything is right. */
static int dpu_is_correct(const struct job *job, uint32_t g)
{
    const dpu_arguments_t *a = &job->args[g];
    const dpu_result_t *r = &job->results[g];
    const uint32_t *x = &job->x[(size_t)g * job->region_elems];
    const uint32_t *y = &job->y[(size_t)g * job->region_elems];
    uint64_t sum = 0;
    int ok = 1;
    for (uint32_t i = 0; i < a->nr_elements; i++) {
        uint32_t want = a->a * x[i] + a->b;
        sum += want;
        if (y[i] != want) {
            ok = 0;
        }
    }
    return ok && r->sum_y == sum && r->nr_elements == a->nr_elements && r->launches == job->round;
}

/* Round 1 callback, queued on one rank behind its transfers and launch: the
 * outputs are already back, read the results and check the rank. */
static dpu_error_t collect_rank_async(struct dpu_set_t rank, uint32_t rank_id, void *arg)
{
    struct rank_info *info = arg;
    struct job *job = info->job;
    struct dpu_set_t dpu;
    uint32_t i;
    dpu_error_t status;

    (void)rank_id; /* the callback was registered on a single rank */
    DPU_FOREACH(rank, dpu, i) {
        status = dpu_prepare_xfer(dpu, &job->results[info->first_dpu + i]);
        if (status != DPU_OK) {
            return status;
        }
    }
    status = dpu_push_xfer(rank, DPU_XFER_FROM_DPU, "DPU_RESULTS", 0, sizeof(dpu_result_t),
                           DPU_XFER_DEFAULT);
    if (status != DPU_OK) {
        return status;
    }
    for (uint32_t d = 0; d < info->nr_dpus; d++) {
        if (!dpu_is_correct(job, info->first_dpu + d)) {
            info->bad_dpus++;
        }
    }
    info->callbacks++;
    return DPU_OK;
}

/* Round 2 callback, called once per rank of the whole set with the rank's
 * index in the set: fetch the rank's outputs and results, and check them. */
static dpu_error_t collect_rank_default(struct dpu_set_t rank, uint32_t rank_id, void *arg)
{
    struct job *job = arg;
    if (rank_id >= job->nr_ranks) {
        return DPU_ERR_INTERNAL;
    }
    struct rank_info *info = &job->ranks[rank_id];
    struct dpu_set_t dpu;
    uint32_t i, nr_dpus = 0;
    dpu_error_t status;

    status = dpu_get_nr_dpus(rank, &nr_dpus);
    if (status != DPU_OK) {
        return status;
    }
    if (nr_dpus != info->nr_dpus) {
        return DPU_ERR_INTERNAL;
    }
    DPU_FOREACH(rank, dpu, i) {
        status = dpu_prepare_xfer(dpu, &job->y[(size_t)(info->first_dpu + i) * job->region_elems]);
        if (status != DPU_OK) {
            return status;
        }
    }
    status = dpu_push_xfer(rank, DPU_XFER_FROM_DPU, DPU_MRAM_HEAP_POINTER_NAME,
                           job->region_elems * (uint32_t)sizeof(uint32_t),
                           job->region_elems * sizeof(uint32_t), DPU_XFER_DEFAULT);
    if (status != DPU_OK) {
        return status;
    }
    DPU_FOREACH(rank, dpu, i) {
        status = dpu_prepare_xfer(dpu, &job->results[info->first_dpu + i]);
        if (status != DPU_OK) {
            return status;
        }
    }
    status = dpu_push_xfer(rank, DPU_XFER_FROM_DPU, "DPU_RESULTS", 0, sizeof(dpu_result_t),
                           DPU_XFER_DEFAULT);
    if (status != DPU_OK) {
        return status;
    }
    for (uint32_t d = 0; d < info->nr_dpus; d++) {
        if (!dpu_is_correct(job, info->first_dpu + d)) {
            info->bad_dpus++;
        }
    }
    info->callbacks++;
    return DPU_OK;
}

/* After a round: every rank called back once, with no bad DPU; then every DPU
 * checked again from the main thread. */
static void check_round(struct job *job)
{
    for (uint32_t r = 0; r < job->nr_ranks; r++) {
        struct rank_info *info = &job->ranks[r];
        if (info->callbacks != 1) {
            fail("round %" PRIu32 ": the callback ran %" PRIu32 " times for rank %" PRIu32
                 " (expected once)",
                 job->round, info->callbacks, r);
        }
        if (info->bad_dpus != 0) {
            fail("round %" PRIu32 ": the callback of rank %" PRIu32 " found %" PRIu32
                 " wrong DPUs",
                 job->round, r, info->bad_dpus);
        }
        info->callbacks = 0;
    }
    for (uint32_t g = 0; g < job->nr_dpus; g++) {
        if (!dpu_is_correct(job, g)) {
            const dpu_result_t *res = &job->results[g];
            fail("round %" PRIu32 ": DPU %" PRIu32 " is wrong (sum 0x%016" PRIx64 ", %" PRIu32
                 " elements, %" PRIu32 " launches)",
                 job->round, g, res->sum_y, res->nr_elements, res->launches);
        }
    }
}

int main(int argc, char **argv)
{
    uint32_t nr_dpus = NR_DPUS;
    uint32_t per_dpu = DEFAULT_ELEMENTS_PER_DPU;
    int opt;

    while ((opt = getopt(argc, argv, "d:n:h")) != -1) {
        switch (opt) {
        case 'd':
            nr_dpus = parse_count(optarg, "DPU count");
            break;
        case 'n':
            per_dpu = parse_count(optarg, "element count");
            break;
        default:
            fprintf(stderr, "usage: %s [-d nr_dpus] [-n elements_per_dpu]\n", argv[0]);
            return opt == 'h' ? EXIT_SUCCESS : EXIT_FAILURE;
        }
    }
    if (per_dpu > MAX_ELEMENTS_PER_DPU) {
        fail("at most %u elements per DPU", MAX_ELEMENTS_PER_DPU);
    }

    struct dpu_set_t set, rank, dpu;
    uint32_t allocated = 0, nr_ranks = 0;
    DPU_ASSERT(dpu_alloc(nr_dpus, NULL, &set));
    DPU_ASSERT(dpu_get_nr_dpus(set, &allocated));
    DPU_ASSERT(dpu_get_nr_ranks(set, &nr_ranks));
    if (allocated != nr_dpus) {
        fail("asked for %" PRIu32 " DPUs, got %" PRIu32, nr_dpus, allocated);
    }
    if (nr_ranks == 0 || nr_ranks > nr_dpus) {
        fail("%" PRIu32 " DPUs in %" PRIu32 " ranks", nr_dpus, nr_ranks);
    }
    DPU_ASSERT(dpu_load(set, DPU_BINARY, NULL));

    /* Work per DPU: ranks get 1, 1.5 or 2 times the base size, plus a little
     * per DPU, so that they finish at different times.  The layout is the
     * same everywhere: room for the largest. */
    const uint32_t max_elems = per_dpu * 2 + 4;
    const uint32_t region_elems = (max_elems + 1u) & ~1u;

    struct job job = {
        .nr_dpus = nr_dpus,
        .nr_ranks = nr_ranks,
        .region_elems = region_elems,
        .round = 1,
        .x = NULL,
    };
    uint32_t *x = calloc((size_t)nr_dpus * region_elems, sizeof(uint32_t));
    job.y = calloc((size_t)nr_dpus * region_elems, sizeof(uint32_t));
    job.args = calloc(nr_dpus, sizeof(dpu_arguments_t));
    job.results = calloc(nr_dpus, sizeof(dpu_result_t));
    job.ranks = calloc(nr_ranks, sizeof(struct rank_info));
    if (x == NULL || job.y == NULL || job.args == NULL || job.results == NULL || job.ranks == NULL) {
        fail("out of host memory");
    }
    job.x = x;

    /* Ranks, and the inputs of their DPUs. */
    uint32_t r, i, g = 0;
    DPU_RANK_FOREACH(set, rank, r) {
        struct rank_info *info = &job.ranks[r];
        info->job = &job;
        info->first_dpu = g;
        DPU_ASSERT(dpu_get_nr_dpus(rank, &info->nr_dpus));
        for (uint32_t d = 0; d < info->nr_dpus; d++, g++) {
            dpu_arguments_t *a = &job.args[g];
            a->nr_elements = per_dpu + (r % 3) * (per_dpu / 2) + g % 5;
            a->region_bytes = region_elems * (uint32_t)sizeof(uint32_t);
            a->a = 2 * g + 1;
            a->b = 1000 * g;
            for (uint32_t k = 0; k < a->nr_elements; k++) {
                x[(size_t)g * region_elems + k] = lcg_next();
            }
        }
    }
    if (g != nr_dpus) {
        fail("the ranks hold %" PRIu32 " DPUs, the set %" PRIu32, g, nr_dpus);
    }

    /* ---- round 1: an independent pipeline per rank ---- */
    DPU_RANK_FOREACH(set, rank, r) {
        struct rank_info *info = &job.ranks[r];
        DPU_FOREACH(rank, dpu, i) {
            DPU_ASSERT(dpu_prepare_xfer(dpu, &job.args[info->first_dpu + i]));
        }
        DPU_ASSERT(dpu_push_xfer(rank, DPU_XFER_TO_DPU, "DPU_INPUT_ARGUMENTS", 0,
                                 sizeof(dpu_arguments_t), DPU_XFER_ASYNC));
        DPU_FOREACH(rank, dpu, i) {
            DPU_ASSERT(dpu_prepare_xfer(dpu, &x[(size_t)(info->first_dpu + i) * region_elems]));
        }
        DPU_ASSERT(dpu_push_xfer(rank, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0,
                                 region_elems * sizeof(uint32_t), DPU_XFER_ASYNC));
        DPU_ASSERT(dpu_launch(rank, DPU_ASYNCHRONOUS));
        DPU_FOREACH(rank, dpu, i) {
            DPU_ASSERT(dpu_prepare_xfer(dpu, &job.y[(size_t)(info->first_dpu + i) * region_elems]));
        }
        DPU_ASSERT(dpu_push_xfer(rank, DPU_XFER_FROM_DPU, DPU_MRAM_HEAP_POINTER_NAME,
                                 region_elems * (uint32_t)sizeof(uint32_t),
                                 region_elems * sizeof(uint32_t), DPU_XFER_ASYNC));
        DPU_ASSERT(dpu_callback(rank, collect_rank_async, info, DPU_CALLBACK_ASYNC));
    }
    DPU_ASSERT(dpu_sync(set));
    check_round(&job);

    /* ---- round 2: the whole set at once, new coefficients ---- */
    job.round = 2;
    for (g = 0; g < nr_dpus; g++) {
        job.args[g].a = 0x9e3779b1u * (g + 1);
        job.args[g].b = ~g;
    }
    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &job.args[i]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, "DPU_INPUT_ARGUMENTS", 0,
                             sizeof(dpu_arguments_t), DPU_XFER_ASYNC));
    DPU_ASSERT(dpu_launch(set, DPU_ASYNCHRONOUS));
    DPU_ASSERT(dpu_callback(set, collect_rank_default, &job, DPU_CALLBACK_DEFAULT));
    DPU_ASSERT(dpu_sync(set));
    check_round(&job);

    free(x);
    free(job.y);
    free(job.args);
    free(job.results);
    free(job.ranks);
    DPU_ASSERT(dpu_free(set));

    printf("[OK] " EXAMPLE ": %" PRIu32 " DPUs in %" PRIu32 " ranks, %d tasklets, 2 rounds of "
           "asynchronous transfers, launches and callbacks checked\n",
           nr_dpus, nr_ranks, NR_TASKLETS);
    return EXIT_SUCCESS;
}
