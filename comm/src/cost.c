/* Modelled cost of the collectives' host work (see "Host cost model" in
 * openpim_comm.h and "Modelled time" in comm/README.md): charged on the host
 * timeline as Inter-DPU time. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "internal.h"

double comm_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* Defaults, with their sources (the notes in shared/reference/):
 *   DRAM 19.2 GB/s: PID-Comm's host has one channel of ordinary DDR4-2400
 *     besides its 4 PIM channels (pid-comm.md §7, repository README);
 *     a DDR4-2400 channel peaks at 19.2 GB/s (timing-calibration.md §5);
 *   one core copying DRAM to DRAM, 10 GB/s written (timing-calibration.md
 *     §5: 9.9-12 GB/s with ordinary stores, up to 24 with streaming stores);
 *   scalar loop 3 GB/s of input (§5: a scalar byte loop 2.6-3.3 GB/s);
 *   8x8 transposes in registers, 30 GB/s per core (§5: >= 30 GB/s in cache);
 *   threads: SimplePIM's communication loops run on one thread (its
 *     CommOps.c, pid-comm.md §8); PID-Comm's host pass on 32 pthreads
 *     (pid-comm.md §2.3) of a 10-core Xeon Gold 5215 (pid-comm.md §7);
 *   between hosts 10 Gb/s (PID-Comm §IX-A: MPI limited to 10 Gbps). */
#define DEFAULTS                                                                                                       \
    {                                                                                                                  \
        .dram_gbps = 19.2, .core_copy_gbps = 10.0, .scalar_gbps = 3.0, .transpose_gbps = 30.0,                        \
        .baseline_threads = 1.0, .optimised_threads = 10.0, .inter_host_gbps = 1.25,                                  \
    }
static const struct openpim_comm_cost_model defaults = DEFAULTS;
static struct openpim_comm_cost_model model = DEFAULTS;

static double pick(double v, double d)
{
    return v > 0 ? v : d; /* !(v > 0) also catches NaN */
}

void openpim_comm_set_cost_model(const struct openpim_comm_cost_model *m)
{
    struct openpim_comm_cost_model d = defaults;
    if (m) {
        d.dram_gbps = pick(m->dram_gbps, defaults.dram_gbps);
        d.core_copy_gbps = pick(m->core_copy_gbps, defaults.core_copy_gbps);
        d.scalar_gbps = pick(m->scalar_gbps, defaults.scalar_gbps);
        d.transpose_gbps = pick(m->transpose_gbps, defaults.transpose_gbps);
        d.baseline_threads = pick(m->baseline_threads, defaults.baseline_threads);
        d.optimised_threads = pick(m->optimised_threads, defaults.optimised_threads);
        d.inter_host_gbps = pick(m->inter_host_gbps, defaults.inter_host_gbps);
    }
    model = d;
}

struct openpim_comm_cost_model openpim_comm_get_cost_model(void)
{
    return model;
}

static void record(const char *name, double us)
{
    if (us <= 0)
        return;
    /* failures (no allocation yet) only lose the record */
    (void)openpim_record_host_event(OPENPIM_EVENT_INTER_DPU, name, us);
}

/* GB/s = 1e3 bytes per microsecond */
void comm_charge_pass(const char *name, bool baseline, double rd, double wr, double scalar)
{
    double t = baseline ? model.baseline_threads : model.optimised_threads;
    double mem = (rd + wr) / (model.dram_gbps * 1e3);
    double cores = wr / (t * model.core_copy_gbps * 1e3);
    double arith = scalar / (t * model.scalar_gbps * 1e3);
    double us = mem > cores ? mem : cores;
    record(name, arith > us ? arith : us);
}

void comm_charge_transpose(const char *name, double bytes)
{
    record(name, bytes / (model.optimised_threads * model.transpose_gbps * 1e3));
}

double comm_inter_host_us(double bytes)
{
    return bytes / (model.inter_host_gbps * 1e3);
}
