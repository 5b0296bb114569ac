/* SPDX-License-Identifier: MIT */
/* What the benchmark programs share: a monotonic clock, sorting the samples
 * of a run to report its minimum and median, and strict argument parsing. */
#ifndef OPENPIM_BENCH_H
#define OPENPIM_BENCH_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* A decimal whole number in [lo, hi], or exit 2 naming the argument: "12x",
 * "-1" or "" must not run a silently different benchmark. */
static inline uint64_t bench_parse_u64(const char *what, const char *text, uint64_t lo, uint64_t hi)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = text ? strtoull(text, &end, 10) : 0;
    if (!text || text[0] < '0' || text[0] > '9' || *end || errno || v < lo || v > hi) {
        fprintf(stderr, "%s: expected a whole number in [%llu, %llu], got '%s'\n", what, (unsigned long long)lo,
                (unsigned long long)hi, text ? text : "(nothing)");
        exit(2);
    }
    return v;
}

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU seconds of the calling thread: a single-threaded CPU baseline's cost on
 * a shared host, without the time other processes take from it. */
static inline double bench_thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Cycles per second of the calling thread's core: 8 dependent adds per
 * iteration (one cycle each on x86 cores; the loop's own instructions run
 * beside the chain), by the thread's CPU time, best of `reps` runs of `iters`
 * iterations.  x86 only. */
static inline double bench_clock_hz(long iters, int reps)
{
    unsigned long x = 1, y = 3;
    double best = 0;
    for (int r = 0; r < reps; r++) {
        double c0 = bench_thread_cpu();
        for (long i = 0; i < iters; i++)
            __asm__ volatile("add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
                             "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0"
                             : "+r"(x)
                             : "r"(y));
        double hz = 8.0 * (double)iters / (bench_thread_cpu() - c0);
        if (hz > best)
            best = hz;
    }
    return best;
}

static inline int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts n samples in place: v[0] is the minimum, v[n / 2] the median. */
static inline void bench_sort(double *v, size_t n)
{
    qsort(v, n, sizeof *v, bench_cmp);
}

#endif
