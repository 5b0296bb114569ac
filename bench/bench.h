/* What the benchmark programs share: a monotonic clock, and sorting the
 * samples of a run to report its minimum and median. */
#ifndef OPENPIM_BENCH_H
#define OPENPIM_BENCH_H

#include <stddef.h>
#include <stdlib.h>
#include <time.h>

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
