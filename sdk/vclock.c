/* SPDX-License-Identifier: MIT */
/* The virtual clock.  With OPENPIM_VIRTUAL_CLOCK=1, a program's own
 * gettimeofday() and clock_gettime() (REALTIME and MONOTONIC clocks) read
 * "host time outside SDK calls + modelled time of SDK calls": the timers that
 * published UPMEM benchmarks put around dpu_launch and transfers then print
 * what the run would take on real hardware, while host computation keeps its
 * measured time.  libdpu interposes both functions (it precedes libc in the
 * program's link order); without the variable they forward unchanged. */
#define _GNU_SOURCE
#include "vclock.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "report.h"

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
typedef int (*gettimeofday_fn)(struct timeval *, void *);

/* Looked up once; atomics because any thread may call the clocks first (two
 * racing lookups find the same function). */
static clock_gettime_fn real_clock_gettime(void)
{
    static _Atomic(clock_gettime_fn) fn;
    clock_gettime_fn f = atomic_load_explicit(&fn, memory_order_acquire);
    if (!f) {
        f = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
        atomic_store_explicit(&fn, f, memory_order_release);
    }
    return f;
}

static int raw_clock_gettime(clockid_t id, struct timespec *ts)
{
    clock_gettime_fn fn = real_clock_gettime();
    return fn ? fn(id, ts) : (int)syscall(SYS_clock_gettime, id, ts);
}

double op_real_now_us(void)
{
    struct timespec ts;
    raw_clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int enabled(void)
{
    static _Atomic int on = -1;
    int v = atomic_load_explicit(&on, memory_order_relaxed);
    if (v < 0) {
        const char *e = getenv("OPENPIM_VIRTUAL_CLOCK");
        v = e && *e && strcmp(e, "0") != 0;
        atomic_store_explicit(&on, v, memory_order_relaxed);
    }
    return v;
}

static void shift(struct timespec *ts)
{
    long long ns = (long long)ts->tv_sec * 1000000000ll + ts->tv_nsec + op_record_shift_ns();
    ts->tv_sec = (time_t)(ns / 1000000000ll);
    ts->tv_nsec = (long)(ns % 1000000000ll);
    if (ts->tv_nsec < 0) { /* a negative shift: keep tv_nsec in [0, 1e9) */
        ts->tv_nsec += 1000000000l;
        ts->tv_sec--;
    }
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    int rc = raw_clock_gettime(id, ts);
    if (rc == 0 && enabled() &&
        (id == CLOCK_REALTIME || id == CLOCK_MONOTONIC || id == CLOCK_MONOTONIC_RAW || id == CLOCK_BOOTTIME))
        shift(ts);
    return rc;
}

int gettimeofday(struct timeval *tv, void *tz)
{
    if (!enabled()) {
        static _Atomic(gettimeofday_fn) fn;
        gettimeofday_fn f = atomic_load_explicit(&fn, memory_order_acquire);
        if (!f) {
            f = (gettimeofday_fn)dlsym(RTLD_NEXT, "gettimeofday");
            atomic_store_explicit(&fn, f, memory_order_release);
        }
        return f ? f(tv, tz) : (int)syscall(SYS_gettimeofday, tv, tz);
    }
    struct timespec ts;
    int rc = clock_gettime(CLOCK_REALTIME, &ts);
    if (rc == 0) {
        tv->tv_sec = ts.tv_sec;
        tv->tv_usec = ts.tv_nsec / 1000;
    }
    return rc;
}
