/* SPDX-License-Identifier: MIT */
/* The virtual clock: with OPENPIM_VIRTUAL_CLOCK=1 a program's own timers around
 * SDK calls read modelled time, and host work outside SDK calls keeps its
 * measured time. */
#define _GNU_SOURCE
#include <dpu.h>
#include <math.h>
#include <sys/time.h>
#include <time.h>

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

    /* host work between SDK calls is measured as it is */
    double h0 = mono_us();
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL);
    double h1 = mono_us();
    CHECK(h1 - h0 >= 20000 && h1 - h0 < 200000);
    DPU_ASSERT(dpu_free(set));
    return check_done("test_vclock");
}
