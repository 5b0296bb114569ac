/* SPDX-License-Identifier: MIT */
/* Asynchrony on the host, both measured in this run, min and median of REPS:
 * 1. host work overlapped with an asynchronous launch: wall time of (launch;
 *    host work) synchronously against (async launch; host work; dpu_sync);
 *    with real asynchrony the second is close to the longer of the two;
 * 2. two ranks launched asynchronously (one DPU each, two workers) against
 *    the same two launches one after the other: with launches on different
 *    ranks running at once, the first takes about half the time. */
#define _POSIX_C_SOURCE 200809L
#include <dpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../bench.h"

#define REPS 5

static volatile uint64_t sink;

/* Host computation of about `seconds`. */
static void host_work(double seconds)
{
    double end = bench_now() + seconds;
    uint64_t x = 1;
    while (bench_now() < end)
        for (int i = 0; i < 10000; i++)
            x = x * 6364136223846793005ull + 1442695040888963407ull;
    sink = x;
}

int main(int argc, char **argv)
{
    struct dpu_set_t set;
    uint32_t iterations = 300000000u, zero = 0;
    DPU_ASSERT(dpu_alloc(1, "nrRanks=1,nrDpusPerRank=1", &set));
    DPU_ASSERT(dpu_load(set, argc > 1 ? argv[1] : "./dpu_busy", NULL));
    DPU_ASSERT(dpu_broadcast_to(set, "iterations", 0, &iterations, 4, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_broadcast_to(set, "halt_now", 0, &zero, 4, DPU_XFER_DEFAULT));
    double t = bench_now();
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    double launch = bench_now() - t;
    double serial[REPS], overlapped[REPS], ratio[REPS];
    for (int r = 0; r < REPS; r++) {
        t = bench_now();
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
        host_work(launch);
        serial[r] = bench_now() - t;
        t = bench_now();
        DPU_ASSERT(dpu_launch(set, DPU_ASYNCHRONOUS));
        host_work(launch);
        DPU_ASSERT(dpu_sync(set));
        overlapped[r] = bench_now() - t;
        ratio[r] = overlapped[r] / serial[r];
    }
    bench_sort(serial, REPS);
    bench_sort(overlapped, REPS);
    bench_sort(ratio, REPS);
    printf("launch %.3f s; launch + equal host work: serial min %.3f median %.3f s, asynchronous min %.3f median "
           "%.3f s; async/serial min %.2f median %.2f (0.5 = full overlap)\n",
           launch, serial[0], serial[REPS / 2], overlapped[0], overlapped[REPS / 2], ratio[0], ratio[REPS / 2]);
    DPU_ASSERT(dpu_free(set));

    struct dpu_set_t two, rank;
    DPU_ASSERT(dpu_alloc(2, "nrRanks=2,nrDpusPerRank=1,workers=2", &two));
    DPU_ASSERT(dpu_load(two, argc > 1 ? argv[1] : "./dpu_busy", NULL));
    DPU_ASSERT(dpu_broadcast_to(two, "iterations", 0, &iterations, 4, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_broadcast_to(two, "halt_now", 0, &zero, 4, DPU_XFER_DEFAULT));
    for (int r = 0; r < REPS; r++) {
        t = bench_now();
        DPU_RANK_FOREACH(two, rank) {
            DPU_ASSERT(dpu_launch(rank, DPU_SYNCHRONOUS));
        }
        serial[r] = bench_now() - t;
        t = bench_now();
        DPU_RANK_FOREACH(two, rank) {
            DPU_ASSERT(dpu_launch(rank, DPU_ASYNCHRONOUS));
        }
        DPU_ASSERT(dpu_sync(two));
        overlapped[r] = bench_now() - t;
        ratio[r] = overlapped[r] / serial[r];
    }
    bench_sort(serial, REPS);
    bench_sort(overlapped, REPS);
    bench_sort(ratio, REPS);
    printf("two ranks: one after the other min %.3f median %.3f s, asynchronous min %.3f median %.3f s; "
           "async/serial min %.2f median %.2f (0.5 = both at once)\n",
           serial[0], serial[REPS / 2], overlapped[0], overlapped[REPS / 2], ratio[0], ratio[REPS / 2]);
    DPU_ASSERT(dpu_free(two));
    return 0;
}
