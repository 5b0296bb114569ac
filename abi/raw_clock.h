/* SPDX-License-Identifier: MIT */
/* The clock of the machine and worker layers: CLOCK_MONOTONIC read by the
 * system call itself.  libdpu interposes clock_gettime and gettimeofday for
 * the user's program (the virtual clock, sdk/vclock.c): a deadline measured
 * through them would move with the modelled time of SDK calls, and the host
 * would compare it with a worker's start time taken on another clock.  Both
 * sides of every deadline (struct op_worker_slot's started_ns and the host's
 * watchdog) read this one; the worker's seccomp filter lets clock_gettime
 * through. */
#ifndef OPENPIM_RAW_CLOCK_H
#define OPENPIM_RAW_CLOCK_H

#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t op_raw_monotonic_ns(void)
{
    struct timespec t;
    if (syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t) != 0)
        return 0; /* cannot fail for CLOCK_MONOTONIC with a valid pointer */
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

#endif
