/* SPDX-License-Identifier: MIT */
/* Host<->DPU transfer and launch model (calibration-sources §3).
 *
 * MRAM, parallel push or broadcast, for one SDK call:
 *   t = F(ranks)                                   fixed cost per call (calibration-sources §3.3, 32-B row)
 *     + max( (1 + c(s) * log2(active channels)) * max over channels of t_ch,
 *            useful bytes / cap(s) )               host aggregate cap: the host reads (or
 *                                                  writes) each DPU's data once, whatever
 *                                                  the lines it moves to the ranks
 *   t_ch = B_rank / R(s)        if one rank of the call sits on the channel,
 *        = sum B_rank / C(s)    otherwise (ranks of a channel are served by one
 *                               per-channel thread pool, calibration-sources §3.1: they serialise)
 * with s = bytes per DPU, B_rank = s * chips_per_rank * min(DPUs of the rank,
 * dpus_per_chip) (one 64-B line carries 8 B for each of 8 chips at one DPU
 * index, calibration-sources §3.1; DPUs numbered chip by chip), t_ch at least
 * sum over its ranks of B_rank / (min(DPU indices, xfer_threads) * chips_per_rank
 * * serial_gbps) (one host thread per DPU index, each as fast as a serial
 * copy's: partial ranks, calibration-sources §3.2), curves R, C, c, cap interpolated in log2(s) (bandwidths through
 * their inverse), F interpolated in log2(ranks).  Broadcast multiplies R, C and
 * cap by bcast_speedup (calibration-sources §3.2).
 * Broadcast and the host's last-level cache ([XferStudy]): a source block of at
 * most host_llc_bytes is read from DRAM once and stays cached while every
 * rank is written, so R, C and cap take their best value at sizes up to s
 * (the per-DPU curves' fall at large sizes and their host cap come from
 * reading the sources from DRAM); a larger block streams from DRAM for every
 * rank and is memory-bound like per-DPU data (the curves at s).
 * WRAM (__host symbols, control interface, calibration-sources §3.4):
 *   t = wram_fixed + per_doubling * log2(ranks)
 *     + max over ranks (DPUs * s * ns_per_byte(s)) * (1 + slowdown(s) * (ranks per channel - 1)),
 * ns_per_byte and slowdown interpolated in log2(s) between the xfer_wram_size
 * points (small pushes pay more per byte; large ones on many channels overlap
 * better: one constant each missed calibration-sources §3.4's rows by up to 27 %).
 * A WRAM broadcast with wram_bcast_factor > 0 ([XferStudy] Fig. 6) costs that
 * factor times the same broadcast into MRAM: the SDK's broadcast path, not
 * the per-DPU control-interface rate of calibration-sources §3.4 (which would make it 4x to
 * 560x slower than MRAM, not the paper's ~3x).
 * Serial (dpu_copy_to/from, calibration-sources §3.7, §6): sum over DPUs of (call + s / serial_bw);
 * WRAM: sum over DPUs of (wram_fixed + s * ns_per_byte(s)).
 * A first MRAM access after a launch adds the MRAM mux hand-back (calibration-sources §3.5);
 * WRAM goes through the control interface and needs none.
 * Launch: launch_base plus the hand-over of the MRAM mux to the DPUs of the
 * ranks the host holds, per rank, the ranks of a channel in turn
 * (calibration-sources §3.1, §3.5).
 */
#include "timing.h"

#include <math.h>
#include <string.h>

/* y at x by linear interpolation in log2(x); clamped outside xs. */
static double interp_log(double x, const double *xs, const double *ys, unsigned n)
{
    if (n == 0)
        return 0.0;
    if (x <= xs[0] || n == 1)
        return ys[0];
    if (x >= xs[n - 1])
        return ys[n - 1];
    unsigned i = 1;
    while (i < n - 1 && x > xs[i])
        i++;
    double a = log2(xs[i - 1]), b = log2(xs[i]);
    double f = (log2(x) - a) / (b - a);
    return ys[i - 1] + f * (ys[i] - ys[i - 1]);
}

/* Inverse of an interpolated bandwidth curve: ns per byte (0 where gbps is 0). */
static double interp_inv(double x, const double *xs, const double *gbps, unsigned n)
{
    double inv[OP_TIMING_MAX_POINTS] = {0};
    if (n > OP_TIMING_MAX_POINTS)
        n = OP_TIMING_MAX_POINTS;
    for (unsigned i = 0; i < n; i++)
        inv[i] = gbps[i] > 0 ? 1.0 / gbps[i] : 0.0;
    return interp_log(x, xs, inv, n);
}

/* Lowest interpolated ns per byte at sizes up to x (knots <= x and x itself). */
static double interp_inv_best(double x, const double *xs, const double *gbps, unsigned n)
{
    double best = interp_inv(x, xs, gbps, n);
    for (unsigned i = 0; i < n && i < OP_TIMING_MAX_POINTS && xs[i] <= x; i++) {
        double inv = gbps[i] > 0 ? 1.0 / gbps[i] : 0.0; /* 0: no limit */
        if (inv < best)
            best = inv;
    }
    return best;
}

/* Fixed cost per call at n ranks: log2 interpolation, linear extrapolation above. */
static double fixed_us(const struct op_machine_desc *d, const struct op_xfer_dir_params *p, double nranks)
{
    unsigned n = d->xfer_nfixed;
    const double *xs = d->xfer_fixed_ranks;
    if (n >= 2 && nranks > xs[n - 1]) {
        double slope = (p->fixed_us[n - 1] - p->fixed_us[n - 2]) / (log2(xs[n - 1]) - log2(xs[n - 2]));
        return p->fixed_us[n - 1] + slope * (log2(nranks) - log2(xs[n - 1]));
    }
    return interp_log(nranks, xs, p->fixed_us, n);
}

struct chan_acc {
    unsigned channel, ranks;
    double bytes;  /* bytes the host moves: whole 64-B lines */
    double tbytes; /* sum over ranks of bytes / threads working on the rank */
};

/* Group the participating ranks by channel.  Returns the number of channels.
 * round_lines (MRAM window transfers, calibration-sources §3.1): one 64-B line carries 8 B for
 * each chip at one DPU index, and the SDK's threads share a rank's DPU indices.
 * DPUs are numbered chip by chip (the SDK's slice-major order), so n DPUs of a
 * rank engage m = min(n, dpus_per_chip) DPU indices: the host moves
 * chips_per_rank * m * s bytes of lines for n * s useful ones, with
 * min(m, xfer_threads) threads. */
static unsigned group(const struct op_machine_desc *d, const struct op_xfer_rank *ranks, unsigned nr,
                      double bytes_per_dpu, int round_lines, struct chan_acc *acc, unsigned *nranks,
                      double *dpus, double *max_rank_dpus)
{
    unsigned nch = 0;
    *nranks = 0;
    *dpus = 0;
    *max_rank_dpus = 0;
    unsigned chips = d->chips_per_rank ? d->chips_per_rank : 1;
    unsigned per_chip = d->dpus_per_chip ? d->dpus_per_chip : 1;
    for (unsigned i = 0; i < nr; i++) {
        if (ranks[i].nr_dpus == 0)
            continue;
        unsigned ch = ranks[i].channel == OP_XFER_CHANNEL_AUTO ? op_machine_rank_channel(d, ranks[i].rank)
                                                               : ranks[i].channel;
        double eff = ranks[i].nr_dpus, threads = 1;
        if (round_lines) {
            unsigned m = ranks[i].nr_dpus < per_chip ? ranks[i].nr_dpus : per_chip;
            eff = (double)chips * m;
            threads = m < d->xfer_threads ? m : (d->xfer_threads ? d->xfer_threads : 1);
        }
        unsigned j = 0;
        while (j < nch && acc[j].channel != ch)
            j++;
        if (j == nch) {
            if (nch == OP_TIMING_MAX_RANKS)
                j = nch - 1; /* absurdly many channels: fold into the last */
            else {
                acc[nch].channel = ch;
                acc[nch].ranks = 0;
                acc[nch].bytes = 0;
                acc[nch].tbytes = 0;
                nch++;
            }
        }
        acc[j].ranks++;
        acc[j].bytes += eff * bytes_per_dpu;
        acc[j].tbytes += eff * bytes_per_dpu / threads;
        (*nranks)++;
        *dpus += ranks[i].nr_dpus;
        if (ranks[i].nr_dpus > *max_rank_dpus)
            *max_rank_dpus = ranks[i].nr_dpus;
    }
    return nch;
}

static unsigned max_ranks_on_channel(const struct chan_acc *acc, unsigned nch)
{
    unsigned k = 0;
    for (unsigned j = 0; j < nch; j++)
        if (acc[j].ranks > k)
            k = acc[j].ranks;
    return k;
}

double op_xfer_time_us(const struct op_machine_desc *d, const struct op_xfer_desc *x)
{
    if (!d || !x || !x->ranks || x->nr_ranks == 0 || x->bytes_per_dpu == 0)
        return 0.0;
    const struct op_xfer_dir_params *p = x->dir == OP_XFER_FROM_DPU ? &d->d2h : &d->h2d;
    const double s = (double)x->bytes_per_dpu;
    struct chan_acc acc[OP_TIMING_MAX_RANKS];
    unsigned nranks;
    double dpus, max_rank_dpus;
    int mram_parallel = x->target == OP_XFER_MRAM && x->kind != OP_XFER_SERIAL;
    unsigned nch = group(d, x->ranks, x->nr_ranks, s, mram_parallel, acc, &nranks, &dpus, &max_rank_dpus);
    if (nranks == 0)
        return 0.0;
    unsigned kmax = max_ranks_on_channel(acc, nch);
    const unsigned nw = d->xfer_wram_npoints;
    const double wram_ns = interp_log(s, d->xfer_wram_size, p->wram_ns_per_byte, nw) * 1e-3; /* us per byte */
    double t;

    if (x->kind == OP_XFER_SERIAL) {
        /* WRAM goes through the control interface: a one-DPU call costs a WRAM call (calibration-sources §3.4) */
        double per_dpu = x->target == OP_XFER_WRAM ? p->wram_fixed_us + s * wram_ns
                                                   : p->serial_call_us + s / (p->serial_gbps * 1e3);
        t = dpus * per_dpu;
    } else if (x->target == OP_XFER_WRAM && x->kind == OP_XFER_BROADCAST && p->wram_bcast_factor > 0) {
        struct op_xfer_desc m = *x; /* the broadcast's path into MRAM, wram_bcast_factor times slower */
        m.target = OP_XFER_MRAM;
        m.after_launch = 0;
        t = p->wram_bcast_factor * op_xfer_time_us(d, &m);
    } else if (x->target == OP_XFER_WRAM) {
        double slow = interp_log(s, d->xfer_wram_size, p->wram_channel_slowdown, nw);
        t = p->wram_fixed_us + p->wram_fixed_us_per_doubling * log2((double)nranks) +
            max_rank_dpus * s * wram_ns * (1.0 + slow * (kmax - 1));
    } else {
        const unsigned np = d->xfer_npoints;
        double rinv = interp_inv(s, d->xfer_size, p->rank_gbps, np); /* ns per byte */
        double cinv = interp_inv(s, d->xfer_size, p->chan_gbps, np);
        double hinv = interp_inv(s, d->xfer_size, p->cap_gbps, np);
        double cont = interp_log(s, d->xfer_size, p->contention, np);
        int bcast = x->kind == OP_XFER_BROADCAST && x->dir == OP_XFER_TO_DPU;
        if (bcast && s <= d->host_llc_bytes) { /* the source stays in the host's cache */
            rinv = interp_inv_best(s, d->xfer_size, p->rank_gbps, np);
            cinv = interp_inv_best(s, d->xfer_size, p->chan_gbps, np);
            hinv = interp_inv_best(s, d->xfer_size, p->cap_gbps, np);
        }
        if (bcast && p->bcast_speedup > 0) {
            rinv /= p->bcast_speedup;
            cinv /= p->bcast_speedup;
            hinv /= p->bcast_speedup;
        }
        if (x->kind == OP_XFER_DIRECT) { /* no SDK copy path: the direct interface streams faster */
            rinv /= p->direct_speedup;
            cinv /= p->direct_speedup;
            hinv /= p->direct_speedup;
        }
        /* one host thread per DPU index of a rank moves chips_per_rank * serial_gbps of lines (one DPU's
         * parallel transfer runs at the serial rate, calibration-sources §3.2): the limit of partial ranks */
        double tinv = 1.0 / ((d->chips_per_rank ? d->chips_per_rank : 1) * p->serial_gbps);
        if (bcast && p->bcast_speedup > 0)
            tinv /= p->bcast_speedup;
        if (x->kind == OP_XFER_DIRECT)
            tinv /= p->direct_speedup;
        double worst = 0;
        for (unsigned j = 0; j < nch; j++) {
            double tch = acc[j].bytes * (acc[j].ranks == 1 ? rinv : cinv);
            if (acc[j].tbytes * tinv > tch)
                tch = acc[j].tbytes * tinv;
            if (tch > worst)
                worst = tch;
        }
        double tx = worst * (1.0 + cont * log2((double)nch));
        /* the host cap counts the DPUs' own bytes, not the lines: a partial rank's
         * lines carry other chips' bytes the host neither reads nor writes (the
         * PrIM-era 4-DPU runs move lines at ~18 GB/s, a whole rank's useful bytes
         * stop at 6.68 GB/s: server-prim.desc) */
        double tcap = dpus * s * hinv;
        double call = x->kind == OP_XFER_DIRECT ? p->direct_call_us : fixed_us(d, p, (double)nranks);
        t = call + (tx > tcap ? tx : tcap) * 1e-3;
    }
    if (x->after_launch && x->target == OP_XFER_MRAM) /* WRAM (control interface) needs no MRAM mux */
        t += d->launch_mux_back_us * kmax;
    return t;
}

/* The most ranks of `ranks` on one channel (0 if none takes part). */
static unsigned busiest_channel(const struct op_machine_desc *d, const struct op_xfer_rank *ranks, unsigned nr)
{
    if (!ranks || nr == 0)
        return 0;
    struct chan_acc acc[OP_TIMING_MAX_RANKS];
    unsigned nranks;
    double dpus, maxr;
    unsigned nch = group(d, ranks, nr, 0.0, 0, acc, &nranks, &dpus, &maxr);
    return nranks ? max_ranks_on_channel(acc, nch) : 0;
}

double op_launch_overhead_us(const struct op_machine_desc *d, const struct op_xfer_rank *ranks, unsigned nr,
                             const struct op_xfer_rank *handover, unsigned nr_handover)
{
    if (!d || busiest_channel(d, ranks, nr) == 0)
        return 0.0;
    return d->launch_base_us + d->launch_mux_us * busiest_channel(d, handover, nr_handover);
}

static int side_index(const struct op_xfer_rank *r)
{
    return r->rank < OP_TIMING_MAX_RANKS ? (int)r->rank : -1;
}

int op_mram_side_dpus(const struct op_mram_side *s, const struct op_xfer_rank *ranks, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        int k = side_index(&ranks[i]);
        if (k >= 0 && s->dpus[k])
            return 1;
    }
    return 0;
}

int op_mram_side_take(struct op_mram_side *s, const struct op_xfer_rank *ranks, unsigned n)
{
    int back = op_mram_side_dpus(s, ranks, n);
    for (unsigned i = 0; i < n; i++) {
        int k = side_index(&ranks[i]);
        if (k >= 0)
            s->dpus[k] = 0;
    }
    return back;
}

unsigned op_mram_side_held(const struct op_mram_side *s, const struct op_xfer_rank *ranks, unsigned n,
                           struct op_xfer_rank *held)
{
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++) {
        int j = side_index(&ranks[i]);
        if (j < 0 || !s->dpus[j])
            held[k++] = ranks[i];
    }
    return k;
}

unsigned op_mram_side_launch(struct op_mram_side *s, const struct op_xfer_rank *ranks, unsigned n,
                             struct op_xfer_rank *held)
{
    unsigned k = op_mram_side_held(s, ranks, n, held);
    for (unsigned i = 0; i < n; i++) {
        int j = side_index(&ranks[i]);
        if (j >= 0)
            s->dpus[j] = 1;
    }
    return k;
}
