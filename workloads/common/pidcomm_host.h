/* SPDX-License-Identifier: MIT */
/* What the PID-Comm applications' host libraries (dlrm/, mlp/) share: their
 * deterministic generator, the timing of a run's phases and the checks of
 * comm and SDK calls. */
#ifndef OPENPIM_WORKLOADS_PIDCOMM_HOST_H
#define OPENPIM_WORKLOADS_PIDCOMM_HOST_H

#include <stdint.h>
#include <stdlib.h>

#include <dpu.h>
#include <openpim_comm.h>
#include <openpim_ext.h>

/* splitmix64: deterministic, the same on every host and compiler. */
static inline uint64_t pidcomm_mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The modelled time since *t0; *t0 moves to now (a run's phases, one after another). */
static inline double pidcomm_lap(double *t0)
{
    const double now = openpim_modelled_time_us(), d = now - *t0;
    *t0 = now;
    return d;
}

/* A comm call (an SDK call) that failed sets rc = fail("WHO: call: reason")
 * and jumps to the caller's label `out`: the caller has int rc, a printf-like
 * fail() returning -1, and out. */
#define PIDCOMM_COMM(who, call)                                                                                        \
    do {                                                                                                               \
        openpim_comm_status s_ = (call);                                                                               \
        if (s_ != OPENPIM_COMM_OK) {                                                                                   \
            rc = fail("%s: %s: %s", who, #call, openpim_comm_last_error());                                            \
            goto out;                                                                                                  \
        }                                                                                                              \
    } while (0)
#define PIDCOMM_SDK(who, call)                                                                                         \
    do {                                                                                                               \
        dpu_error_t e_ = (call);                                                                                       \
        if (e_ != DPU_OK) {                                                                                            \
            char *m_ = dpu_error_to_string(e_);                                                                        \
            rc = fail("%s: %s: %s %s", who, #call, m_ ? m_ : "?", openpim_last_error());                               \
            free(m_);                                                                                                  \
            goto out;                                                                                                  \
        }                                                                                                              \
    } while (0)

#endif
