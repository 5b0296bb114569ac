/* SPDX-License-Identifier: MIT */
/* The run report: every transfer and launch is costed by the timing model
 * (timing/timing.h) as it happens, which advances a modelled clock; at exit
 * the run's breakdown is written when the environment asks for it:
 *   OPENPIM_REPORT=1 | PATH    text report on stderr or into PATH
 *   OPENPIM_TRACE=PATH         Chrome/Perfetto trace (JSON), one track per rank
 *   OPENPIM_REPORT_DPUS=PATH   CSV, one row per DPU and launch: cycles,
 *                              instructions, IPC, DMA bytes
 *   OPENPIM_VIRTUAL_CLOCK=1    gettimeofday/clock_gettime read modelled time
 *                              around SDK calls (see vclock.c) */
#ifndef OPENPIM_SDK_REPORT_H
#define OPENPIM_SDK_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "../timing/timing.h"
#include "internal.h"

/* issued_us: < 0 for a synchronous transfer (untimed when the calling
 * thread's timing is paused); for a DPU_XFER_ASYNC one the
 * host's clock when it was issued (the host does not wait for it). */
void op_record_xfer(struct dpu_set_t set, enum op_xfer_kind kind, int to_dpu, enum op_region region,
                    size_t bytes_per_dpu, uint32_t nr_dpus, double issued_us);
/* A transfer issued while its thread's timing was paused (a synchronous one
 * comes through op_record_xfer): counted for the report, no modelled time; an
 * MRAM one still takes the ranks' MRAM to the host (the next launch hands it
 * over). */
void op_record_untimed_xfer(struct dpu_set_t set, enum op_region region, size_t bytes);
/* A program's SDK call took sdk_us of real time (lock.c, at its return;
 * dpu_load for its file read before the lock): time the program's clock does
 * not count (vclock.c). */
void op_record_sdk_time(double sdk_us);
/* async: a DPU_ASYNCHRONOUS launch, which does not hold the host's clock;
 * issued_us: the host's clock when it was issued (< 0: now). */
void op_record_launch(struct dpu_set_t set, int async, double issued_us);
/* A dpu_load of img on the set (under the lock): its modelled cost, an
 * estimate (report.c), as an "Other" event on the set's ranks. */
void op_record_load(struct dpu_set_t set, const struct op_image *img);
/* The host's modelled clock. */
double op_record_host_clock(void);
/* dpu_sync: the host's clock waits for the set's ranks. */
void op_record_sync(struct dpu_set_t set);
/* Modelled minus measured host time of all SDK work so far, in nanoseconds;
 * safe to call without the lock, from any thread. */
long long op_record_shift_ns(void);

#endif
