/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <profiling.h>, accepted but not supported.
 *
 * The SDK's code-section profiling (PROFILING_INIT, profiling_start,
 * profiling_stop) fills counters that UPMEM's dpu-profiling tool reads from
 * the DPU; OpenPIM has no such tool.  Including the header builds, as public
 * programs include it without using it; any use of its names is a build error
 * that names what was used.  Measure with <perfcounter.h>, or with OpenPIM's
 * modelled DPU statistics (openpim_get_dpu_stats). */
#ifndef DPUSYSCORE_PROFILING_H
#define DPUSYSCORE_PROFILING_H

#include <attributes.h>
#include <limits.h>

#define OP_PROFILING_REFUSED(what)                                                                 \
    "OpenPIM does not support <profiling.h>: " what " (dpu-profiling sections); use <perfcounter.h>, " \
    "see docs/sdk-audit.md"

/* At file scope, as the SDK's. */
#define PROFILING_INIT(_name) _Static_assert(0, OP_PROFILING_REFUSED("PROFILING_INIT(" #_name ")"));
/* In a function: a statement expression, so that the use is refused wherever it is. */
#define profiling_start(_ctx) ({ _Static_assert(0, OP_PROFILING_REFUSED("profiling_start(" #_ctx ")")); })
#define profiling_stop(_ctx) ({ _Static_assert(0, OP_PROFILING_REFUSED("profiling_stop(" #_ctx ")")); })

#endif
