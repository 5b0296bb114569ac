/* SPDX-License-Identifier: MIT */
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

/* Defaults, with their sources:
 *   DRAM 19.2 GB/s: the Xeon Gold 5215 has 6 memory channels, but PID-Comm's
 *     server puts 4 of them on PIM DIMMs and its ordinary memory is two
 *     DDR4-2400 DIMMs on one channel (its repository's README); a
 *     DDR4-2400 channel peaks at 19.2 GB/s (calibration-sources §5).
 *     Ordinary stores to lines not in cache read each line first (x86
 *     write-allocate), so the baseline's passes (memcpy of pieces below
 *     glibc's non-temporal threshold, plain loops) move R + 2 W bytes over
 *     the channel (buffers of 16 MB and more, beyond the 13.75 MB L3); the
 *     other techniques' passes R + W: PID-Comm's host code writes with
 *     streaming stores (_mm512_stream_si512 in its pid_comm.c);
 *   one core copying DRAM to DRAM, 10 GB/s written (calibration-sources
 *     §5: 9.9-12 GB/s with ordinary stores, up to 24 with streaming stores);
 *   scalar loop 3 GB/s of input: SimplePIM's AllReduce combines element by
 *     element through the user's function, reached through a pointer
 *     (its CommOps.c), which no compiler inlines or vectorises.  That loop
 *     measured (bench/comm/host_reduce.sh: one thread, int32 sum, 32 sources
 *     of 1 MB, four runs on a loaded 2-vCPU VM): 5.0-5.9 cycles per element
 *     in cache, 5.7-6.7 from DRAM, i.e. 2.0-2.7 GB/s at the Xeon Gold
 *     5215's 3.4 GHz (single-core turbo); a call, a return and the loop's
 *     branch per element keep any core above ~3 cycles (4.5 GB/s).  3.0
 *     stays, at the fast end of that class: within the error of carrying a
 *     VM's cycles to another core (§5's scalar loop, 2.6-3.3 GB/s, is the
 *     same class).  The ReduceScatter and Reduce baselines are charged the same
 *     loop: the paper's authors wrote theirs ([PIDComm] §VIII-A), unpublished
 *     (comm/README.md, "Against the paper");
 *   a reduction in registers (PR + IM: lines in the PIM domain transposed to
 *     whole elements, combined, transposed back), 3.0 GB/s of input per core
 *     = 30 GB/s on the 10 cores: PID-Comm's own maxima ([PIDComm] §VIII-E,
 *     Fig. 20) are AllReduce 12.2 GB/s and AlltoAll 20.6 GB/s; both read and
 *     write the same bytes through the same direct path with two DPU
 *     kernels, so AllReduce's extra 1/12.2 - 1/20.6 s per GB (33.4 ms) is
 *     its host reduction: 1 / 33.4 ms = 29.9 GB/s.  (§5's 30 GB/s per core
 *     is a transpose of lines already in cache; PID-Comm's loops pull every
 *     line from PIM memory, uncached, flushing each one);
 *   8x8 transposes in registers (PR + IM without CM), 6.0 GB/s per core of
 *     bytes transposed one way: the same measured round trip (to the host
 *     domain and back, 3.0 GB/s per core of data) is two transposes;
 *   threads: SimplePIM's communication loops run on one thread (its
 *     CommOps.c); PID-Comm's host pass on 32 pthreads
 *     (its pid_comm.c) of a 10-core Xeon Gold 5215 (its README);
 *   between hosts 10 Gb/s (PID-Comm §IX-A: MPI limited to 10 Gbps);
 *   one piece of a reorder 4 ns: comm_base_alltoall's own loop measured on
 *     this project's development host (one core, -O2, 2048 nodes in
 *     communicators of 256, 4-byte pieces, 2 MB: 2.4-2.5 ms = 4.6 ns per
 *     piece; 1024 and 256 nodes: 3.8-3.9 ns; 8-32-byte pieces 4.3-4.9 ns;
 *     2 KB pieces run at the copy bandwidth);
 *   one piece beyond the caches 15 ns: the same loop (bench/comm/reorder.sh
 *     15 NODES SIZE PIECE; one core of a loaded 2-vCPU AMD EPYC VM, 32 MB
 *     L3, -O2; ns per piece, min / median of 15 runs) with footprints past
 *     its L3: 48-B pieces 12 KB apart (the 2D NTT's exchange), 48 MB 9.8 /
 *     15.8, 192 MB 15.0 / 17.0; 16 B 4 KB apart 9.2 / 13.5; 48 B 1.5 KB
 *     apart 8.4 / 12.4; 16 B 1 KB apart 8.1 / 11.5; nearer pieces stay
 *     near the in-cache rate (4 B 64 B apart 5.7 / 6.2, 256 B apart 6.1 /
 *     8.5).  Each piece misses the caches and the TLB, most misses overlap.
 *     With a memory-bound process on the other core the same points took
 *     52-98 ns (the shared L3 and channel): 15 is the quiet figure.  Two
 *     regimes only: far when the pass's footprint (rd + wr) exceeds the
 *     modelled host's L3 (Xeon Gold 5215, 13.75 MB) and consecutive pieces
 *     are read COMM_FAR_STRIDE (1 KB) or more apart; else the in-cache 4 ns
 *     (pieces larger than a few hundred bytes are bound by the pass). */
#define DEFAULTS                                                                                                       \
    {                                                                                                                  \
        .dram_gbps = 19.2, .core_copy_gbps = 10.0, .scalar_gbps = 3.0, .transpose_gbps = 6.0,                         \
        .baseline_threads = 1.0, .optimised_threads = 10.0, .inter_host_gbps = 1.25, .chunk_ns = 4.0,                 \
        .reduce_gbps = 3.0, .chunk_far_ns = 15.0,                                                                      \
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
        d.chunk_ns = pick(m->chunk_ns, defaults.chunk_ns);
        d.reduce_gbps = pick(m->reduce_gbps, defaults.reduce_gbps);
        d.chunk_far_ns = pick(m->chunk_far_ns, defaults.chunk_far_ns);
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
double openpim_comm_host_pass_us(int baseline, double rd, double wr, double scalar)
{
    double t = baseline ? model.baseline_threads : model.optimised_threads;
    double mem = (rd + (baseline ? 2 : 1) * wr) / (model.dram_gbps * 1e3); /* baseline: write-allocate */
    double cores = wr / (t * model.core_copy_gbps * 1e3);
    double arith = scalar / (t * model.scalar_gbps * 1e3);
    double us = mem > cores ? mem : cores;
    return arith > us ? arith : us;
}

void comm_charge_pass(const char *name, bool baseline, double rd, double wr, double scalar)
{
    record(name, openpim_comm_host_pass_us(baseline, rd, wr, scalar));
}

/* the modelled host's last-level cache (Xeon Gold 5215: 13.75 MB); pieces
 * this far apart share no lines and no prefetch stream (measured above) */
#define COMM_L3_BYTES (13.75 * 1024 * 1024)
#define COMM_FAR_STRIDE 1024.0

double comm_reorder_piece_ns(double footprint, double stride)
{
    return footprint > COMM_L3_BYTES && stride >= COMM_FAR_STRIDE ? model.chunk_far_ns : model.chunk_ns;
}

double comm_reorder_us(bool baseline, double rd, double wr, double pieces, double stride)
{
    double t = baseline ? model.baseline_threads : model.optimised_threads;
    double calls = pieces * comm_reorder_piece_ns(rd + wr, stride) * 1e-3 / t; /* one memcpy per piece */
    double us = openpim_comm_host_pass_us(baseline, rd, wr, 0);
    return calls > us ? calls : us;
}

void comm_charge_reorder(const char *name, bool baseline, double rd, double wr, double pieces, double stride)
{
    record(name, comm_reorder_us(baseline, rd, wr, pieces, stride));
}

double comm_transpose_us(double bytes)
{
    return bytes / (model.optimised_threads * model.transpose_gbps * 1e3);
}

void comm_charge_transpose(const char *name, double bytes)
{
    record(name, comm_transpose_us(bytes));
}

void comm_charge_reduce(const char *name, double bytes)
{
    record(name, bytes / (model.optimised_threads * model.reduce_gbps * 1e3));
}

double comm_inter_host_us(double bytes)
{
    return bytes / (model.inter_host_gbps * 1e3);
}
