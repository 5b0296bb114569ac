/* SPDX-License-Identifier: MIT */
/* The virtual clock: with OPENPIM_VIRTUAL_CLOCK=1 a program's own timers around
 * SDK calls read modelled time, and host work outside SDK calls keeps its
 * measured time, however small and many the calls. */
#define _GNU_SOURCE
#include <dpu.h>
#include <math.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static double tv_us(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec * 1e6 + tv.tv_usec;
}

static double mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* the real clock: a system call the virtual clock does not move */
static double raw_us(void)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Many small transfers (PrIM TRNS's step 1: a 64-B push per matrix row): the
 * program's clock advances by their modelled time plus the program's own
 * work between the calls, measured here around every call, and nothing more.
 * A transfer did part of its work after the point that took its real time
 * out of the program's: 1.4 us a call on a quiet 2-core host (2.7 ms over
 * these 2,000), 13 us on a busy one (+22 % on a 59-us modelled push); now
 * ~0.2 us, the brackets' own clock reads. */
static void small_transfers(struct dpu_set_t set)
{
    const int calls = 2000;
    static uint64_t row[8];
    double m0 = openpim_modelled_time_us(), v0 = mono_us(), r0 = raw_us(), inside = 0;
    for (int j = 0; j < calls; j++) {
        row[0] = (uint64_t)j;
        double s = raw_us();
        DPU_ASSERT(dpu_copy_to(set, DPU_MRAM_HEAP_POINTER_NAME, 0, row, sizeof row));
        inside += raw_us() - s;
    }
    double m1 = openpim_modelled_time_us(), v1 = mono_us(), r1 = raw_us();
    double host = (r1 - r0) - inside, extra = (v1 - v0) - (m1 - m0) - host;
    printf("%d transfers of 64 B: modelled %.0f us, program's clock %.0f us, host work between the calls %.0f us, "
           "unexplained %.0f us\n", calls, m1 - m0, v1 - v0, host, extra);
    CHECK(m1 - m0 > calls * 10.0);
    CHECK(fabs(extra) < 1500);
}

/* Every SDK call's real time is the SDK's, not only a transfer's or a
 * launch's: allocating, loading and freeing a rank (real milliseconds here:
 * worker processes start and stop) move the program's clock by the load's
 * modelled time alone (they moved it by all their real time). */
static void alloc_load_free(void)
{
    struct dpu_set_t more;
    double m0 = openpim_modelled_time_us(), v0 = mono_us(), r0 = raw_us();
    DPU_ASSERT(dpu_alloc(64, "nrRanks=2", &more));
    DPU_ASSERT(dpu_load(more, "../timing/dpu_timing_t16", NULL));
    DPU_ASSERT(dpu_free(more));
    double m1 = openpim_modelled_time_us(), v1 = mono_us(), r1 = raw_us();
    printf("dpu_alloc, dpu_load, dpu_free of a rank: real %.0f us, program's clock %.0f us, modelled %.0f us\n",
           r1 - r0, v1 - v0, m1 - m0);
    CHECK(r1 - r0 > 1000);
    CHECK(fabs((v1 - v0) - (m1 - m0)) < 500);
}

/* A dpu_callback function is the program's own host work (20 ms asleep):
 * the program's clock keeps it, and the modelled time of an SDK call it makes
 * (a 1 MB broadcast), not that call's real time. */
static dpu_error_t host_work(struct dpu_set_t set, uint32_t index, void *arg)
{
    (void)index;
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL);
    return dpu_broadcast_to(set, DPU_MRAM_HEAP_POINTER_NAME, 0, arg, 1 << 20, DPU_XFER_DEFAULT);
}

static void callback(struct dpu_set_t set)
{
    static uint8_t block[1 << 20];
    double m0 = openpim_modelled_time_us(), v0 = mono_us(), r0 = raw_us();
    DPU_ASSERT(dpu_callback(set, host_work, block, DPU_CALLBACK_SINGLE_CALL));
    double m1 = openpim_modelled_time_us(), v1 = mono_us(), r1 = raw_us();
    printf("dpu_callback with 20 ms of host work and a 1 MB broadcast: real %.0f us, program's clock %.0f us, "
           "modelled %.0f us\n", r1 - r0, v1 - v0, m1 - m0);
    CHECK(m1 - m0 > 100);
    CHECK(v1 - v0 >= 20000 + (m1 - m0) && v1 - v0 < 20000 + (m1 - m0) + 2000);
}

int main(void)
{
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(64, "nrRanks=2", &set));
    DPU_ASSERT(dpu_load(set, "../timing/dpu_timing_t16", NULL));
    uint32_t mode = 1, n = 200000;
    DPU_ASSERT(dpu_broadcast_to(set, "mode", 0, &mode, 4, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_broadcast_to(set, "n", 0, &n, 4, DPU_XFER_DEFAULT));

    double m0 = openpim_modelled_time_us(), t0 = tv_us(), c0 = mono_us();
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    double t1 = tv_us(), c1 = mono_us(), m1 = openpim_modelled_time_us();
    double modelled = m1 - m0;
    printf("launch: modelled %.1f us, gettimeofday %.1f us, clock_gettime %.1f us\n", modelled, t1 - t0, c1 - c0);
    CHECK(modelled > 1000); /* 200k iterations on 16 tasklets: milliseconds on a DPU */
    CHECK(fabs((t1 - t0) - modelled) < 200); /* only the host time around the call is real */
    CHECK(fabs((c1 - c0) - modelled) < 200);

    small_transfers(set);
    alloc_load_free();
    callback(set);

    /* host work between SDK calls is measured as it is */
    double h0 = mono_us();
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL);
    double h1 = mono_us();
    CHECK(h1 - h0 >= 20000 && h1 - h0 < 200000);
    DPU_ASSERT(dpu_free(set));
    return check_done("test_vclock");
}
