/* SPDX-License-Identifier: MIT */
/* Scale benchmark:
 *  (a) speedup of a launch from 1 worker to all host cores (same results);
 *  (b) the full 2560-DPU server: wall time of a launch versus the modelled
 *      time of the same launch on real hardware, compute-bound and DMA-bound
 *      (vector add with `mb` MB per array per DPU);
 *  (c) host memory per emulated DPU.
 * Min and median of several repetitions, all measured in this one run.
 * A third argument N (DPUs) runs only (b) on N DPUs: quick before/after
 * comparisons of the emulator's speed. */
#define _GNU_SOURCE
#include <dpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../bench.h"

#define REPS 5

/* Launches `reps` times; fills wall-clock seconds and returns modelled us of one launch. */
static double launches(struct dpu_set_t set, int reps, double *wall)
{
    double model = 0;
    for (int i = 0; i < reps; i++) {
        double m0 = openpim_modelled_time_us(), t0 = bench_now();
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
        wall[i] = bench_now() - t0;
        model = openpim_modelled_time_us() - m0;
    }
    bench_sort(wall, (size_t)reps);
    return model;
}

/* The host's own parallel capacity: throughput of `procs` processes each
 * running a native compute loop, relative to one.  On a shared VM it can be
 * far below the core count; the emulator cannot beat it. */
static volatile uint32_t sink;

static uint32_t burn(uint32_t n)
{
    uint32_t x = 1;
    for (uint32_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x += i * 3;
    }
    return x;
}

static double host_capacity(int procs)
{
    const uint32_t n = 200000000;
    double t0 = bench_now();
    sink = burn(n);
    double one = bench_now() - t0;
    pid_t kids[64];
    int nk = 0;
    t0 = bench_now();
    for (int p = 1; p < procs && nk < 64; p++) {
        pid_t k = fork();
        if (k == 0) {
            sink = burn(n);
            _exit(0);
        }
        if (k > 0)
            kids[nk++] = k;
    }
    sink = burn(n);
    for (int k = 0; k < nk; k++) /* only ours: OpenPIM's workers are children too */
        waitpid(kids[k], NULL, 0);
    return (nk + 1) * one / (bench_now() - t0);
}

static uint64_t checksum(struct dpu_set_t set)
{
    struct dpu_set_t dpu;
    uint64_t sum = 0;
    uint32_t out[16];
    DPU_FOREACH(set, dpu) {
        DPU_ASSERT(dpu_copy_from(dpu, "out", 0, out, sizeof out));
        for (int t = 0; t < 16; t++)
            sum = sum * 31 + out[t];
    }
    return sum;
}

static void setup(struct dpu_set_t set, uint32_t mode, uint32_t iterations, uint32_t bytes)
{
    DPU_ASSERT(dpu_broadcast_to(set, "mode", 0, &mode, 4, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_broadcast_to(set, "iterations", 0, &iterations, 4, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_broadcast_to(set, "bytes", 0, &bytes, 4, DPU_XFER_DEFAULT));
}

/* (a) 1 worker versus all cores, 256 DPUs, compute-bound */
static void worker_speedup(const char *bin)
{
    double wall[REPS], wall1[REPS];
    struct dpu_set_t set;
    uint64_t sums[2];
    for (int all = 0; all < 2; all++) {
        DPU_ASSERT(dpu_alloc(256, all ? "nrRanks=4,workers=0" : "nrRanks=4,workers=1", &set));
        DPU_ASSERT(dpu_load(set, bin, NULL));
        setup(set, 0, 20000, 0);
        launches(set, REPS, all ? wall : wall1);
        sums[all] = checksum(set);
        DPU_ASSERT(dpu_free(set));
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double capacity = host_capacity((int)cores);
    printf("(a) 256 DPUs, compute-bound: 1 worker %.3f s, %ld workers %.3f s (min); speedup min %.2fx median %.2fx; "
           "results %s\n    this host's own throughput with %ld processes of native code: %.2fx one process\n",
           wall1[0], cores, wall[0], wall1[0] / wall[0], wall1[REPS / 2] / wall[REPS / 2],
           sums[0] == sums[1] ? "identical" : "DIFFER", cores, capacity);
}

int main(int argc, char **argv)
{
    const char *bin = argc > 1 ? argv[1] : "./dpu_scale";
    uint32_t mb = argc > 2 ? (uint32_t)bench_parse_u64("MB", argv[2], 1, 20) : 1;
    uint32_t only = argc > 3 ? (uint32_t)bench_parse_u64("only", argv[3], 0, UINT32_MAX) : 0; /* 0: the whole benchmark */
    double wall[REPS];
    struct dpu_set_t set;
    if (!only)
        worker_speedup(bin);
    /* (b) the full server */
    DPU_ASSERT(dpu_alloc(only ? only : DPU_ALLOCATE_ALL, NULL, &set));
    uint32_t nr;
    DPU_ASSERT(dpu_get_nr_dpus(set, &nr));
    DPU_ASSERT(dpu_load(set, bin, NULL));
    double model = 0;
    static const char *kinds[] = {"compute-bound (ALU)", "", "compute-bound (32-bit multiplies)"};
    for (uint32_t mode = 0; mode <= 2; mode += 2) {
        setup(set, mode, mode ? 20000 : 200000, 0);
        model = launches(set, 3, wall);
        printf("(b) %u DPUs, %s: wall %.3f s (min of 3), modelled %.3f ms on the server: slowdown %.0fx\n", nr,
               kinds[mode], wall[0], model / 1e3, wall[0] * 1e6 / model);
    }

    uint32_t bytes = mb << 20;
    uint8_t *data = malloc(2 * (size_t)bytes);
    for (size_t i = 0; i < 2 * (size_t)bytes; i++)
        data[i] = (uint8_t)(i * 7);
    double t0 = bench_now();
    DPU_ASSERT(dpu_broadcast_to(set, DPU_MRAM_HEAP_POINTER_NAME, 0, data, 2 * (size_t)bytes, DPU_XFER_DEFAULT));
    double fill = bench_now() - t0;
    setup(set, 1, 0, bytes);
    model = launches(set, REPS, wall);
    printf("(b) %u DPUs, vector add of %u MB per array per DPU (%.1f GB of MRAM touched): fill %.1f s, launch wall %.3f s"
           " (min of %d, median %.3f s), modelled %.3f ms: slowdown %.0fx (median %.0fx)\n", nr, mb,
           3.0 * bytes * nr / 1e9, fill, wall[0], REPS, wall[REPS / 2], model / 1e3, wall[0] * 1e6 / model,
           wall[REPS / 2] * 1e6 / model);
    uint64_t used, limit;
    DPU_ASSERT(openpim_memory_usage(&used, &limit));
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("(c) emulated memory backing: %.1f MB = %.2f MB per DPU (limit %.0f MB); host process peak RSS %.1f MB\n",
           used / 1048576.0, used / 1048576.0 / nr, limit / 1048576.0, ru.ru_maxrss / 1024.0);
    free(data);
    DPU_ASSERT(dpu_free(set));
    return 0;
}
