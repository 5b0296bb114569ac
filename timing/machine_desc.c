/* SPDX-License-Identifier: MIT */
/* Machine description: presets, text-file and profile-string parsers, writer.
 *
 * Every constant has a source: "calibration-sources §N" = docs/calibration-sources.md,
 * "fit §3.3" = least-squares/minimax fit of this model to the tables of calibration-sources §3.3
 * (see timing/tests/test_xfer.c), "estimate" = no measurement available.
 */
#include "timing.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* presets                                                                   */
/* ------------------------------------------------------------------------ */

/* Rank allocation order of the 40-rank (20 dual-rank DIMMs) reference server,
 * inferred from calibration-sources §3.3: 2 ranks (one DIMM) serialise fully (654 vs 327 ms at
 * 32 MB/DPU), 5 ranks take as long as 2, 10 and 20 ranks about 4x one rank.
 * That fits 2 sockets x 2 memory controllers x 3 channels = 12 channels, PIM
 * DIMMs numbered across the 3 channels of a controller first (6 DIMMs on
 * controller 0, 4 on controller 1 per socket): 8 channels carry 4 ranks and 4
 * carry 2.  Physically: DIMM d of socket s -> controller, channel, slot. */
static unsigned ref_server_channel(unsigned rank)
{
    unsigned dimm = rank / 2, socket = dimm / 10, j = dimm % 10;
    if (j < 6)
        return socket * 6 + j % 3;
    return socket * 6 + 3 + (j - 6) % 3;
}

/* The server of the compiled presets (calibration-sources §3.3/§3.4): its constants are the
 * ones below, listed key by key in presets/v1A.desc; presets/server-cloud2024.desc
 * sets no key. */
#define OP_DEFAULT_SERVER "cloud2024"

static void set_list(double *dst, const double *src, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        dst[i] = src[i];
}

static void preset_v1a(struct op_machine_desc *d)
{
    memset(d, 0, sizeof *d);
    strcpy(d->name, "v1A");
    strcpy(d->server, OP_DEFAULT_SERVER);
    d->freq_mhz = 350.0;
    d->nr_tasklets = 24;
    d->mram_bytes = 64u << 20;
    d->wram_bytes = 64u << 10;

    d->nr_ranks = 40;
    d->channels = 12;
    d->ranks_per_channel = 4;
    d->ranks_per_dimm = 2;
    d->chips_per_rank = 8;
    d->dpus_per_chip = 8;
    for (unsigned r = 0; r < d->nr_ranks; r++)
        d->rank_channel[r] = (uint16_t)ref_server_channel(r);

    d->revolver_cycles = 11;
    d->dma_read_fixed = 22.0;
    d->dma_write_fixed = 6.0;
    d->dma_cycles_per_byte = 0.52;
    d->dma_overlap_cycles = 0.0;

    d->ops = (struct op_op_costs){
        .mul8 = 1,
        .int32_mul_base = 8, .int32_mul_per_bit = 1,
        .int32_div_base = 8, .int32_div_per_step = 1, .int32_div_signed_extra = 6,
        .int64_mul = 125, .int64_div = 240,
        .float_add = 65, .float_mul = 178, .float_div = 1025,
        .double_add = 100, .double_mul = 655, .double_div = 2185,
        .conversion = 30, .fp_compare = 20,
    };
    d->rt = (struct op_runtime_costs){
        .dma_call = 1, .barrier_wait = 20, .barrier_wake_per_tasklet = 2,
        .mutex_lock = 1, .mutex_unlock = 1, .sem_take = 8, .sem_give = 8,
        .handshake_wait = 12, .handshake_notify = 12,
        .mem_alloc = 15, .mem_reset = 4, .perfcounter = 4, .boot = 16,
    };

    static const double sizes[5] = {2048, 65536, 1048576, 8388608, 33554432};
    static const double fixed_ranks[6] = {1, 2, 5, 10, 20, 40};
    d->xfer_npoints = 5;
    set_list(d->xfer_size, sizes, 5);
    d->xfer_nfixed = 6;
    set_list(d->xfer_fixed_ranks, fixed_ranks, 6);
    static const double wram_sizes[4] = {8, 256, 2048, 32768}; /* calibration-sources §3.4's rows */
    d->xfer_wram_npoints = 4;
    set_list(d->xfer_wram_size, wram_sizes, 4);
    d->xfer_threads = 4;

    static const double h_fixed[6] = {59, 89, 135, 168, 201, 327};
    static const double h_rank[5] = {4.883, 4.881, 10.16, 9.178, 6.848};
    static const double h_chan[5] = {4.773, 5.781, 11.60, 10.21, 6.848};
    static const double h_cont[5] = {0.0283, 0.3493, 0.3261, 0.1099, 0.0};
    static const double h_cap[5] = {13.07, 0, 0, 56.37, 47.97};
    set_list(d->h2d.fixed_us, h_fixed, 6);
    set_list(d->h2d.rank_gbps, h_rank, 5);
    set_list(d->h2d.chan_gbps, h_chan, 5);
    set_list(d->h2d.contention, h_cont, 5);
    set_list(d->h2d.cap_gbps, h_cap, 5);
    d->h2d.bcast_speedup = 2.5;
    d->h2d.serial_call_us = 59.0;
    d->h2d.direct_call_us = 15.0;
    d->h2d.direct_speedup = 1.45;
    d->h2d.serial_gbps = 0.39;
    /* calibration-sources §3.4, all 8 points exactly (timing/README.md): the fixed cost and its
     * growth from the 8-B and 256-B rows (which share a per-byte cost), the
     * per-byte cost of a rank from the 64-DPU column, the channel slowdown
     * from the 2,560-DPU column (40 ranks, 4 per channel) */
    d->h2d.wram_fixed_us = 193.2;
    d->h2d.wram_fixed_us_per_doubling = 51.8;
    static const double h_wns[4] = {71.8, 71.8, 55.7, 57.1}, h_wslow[4] = {0.582, 0.582, 0.421, 0.314};
    set_list(d->h2d.wram_ns_per_byte, h_wns, 4);
    set_list(d->h2d.wram_channel_slowdown, h_wslow, 4);

    static const double d_fixed[6] = {157, 165, 185, 239, 285, 432};
    static const double d_rank[5] = {2.5, 1.831, 3.247, 2.878, 2.817};
    static const double d_chan[5] = {2.275, 2.193, 2.976, 2.513, 2.583};
    static const double d_cont[5] = {0.3172, 0.2963, 0.2083, 0.0816, 0.1043};
    static const double d_cap[5] = {5.117, 30.97, 13.41, 14.32, 13.99};
    set_list(d->d2h.fixed_us, d_fixed, 6);
    set_list(d->d2h.rank_gbps, d_rank, 5);
    set_list(d->d2h.chan_gbps, d_chan, 5);
    set_list(d->d2h.contention, d_cont, 5);
    set_list(d->d2h.cap_gbps, d_cap, 5);
    d->d2h.bcast_speedup = 1.0;
    d->d2h.serial_call_us = 157.0;
    d->d2h.direct_call_us = 30.0;
    d->d2h.direct_speedup = 2.9;
    d->d2h.serial_gbps = 0.115;
    d->d2h.wram_fixed_us = 93.2;
    d->d2h.wram_fixed_us_per_doubling = 50.4;
    static const double d_wns[4] = {71.8, 71.8, 54.2, 54.8}, d_wslow[4] = {0.471, 0.471, 0.508, 0.257};
    set_list(d->d2h.wram_ns_per_byte, d_wns, 4);
    set_list(d->d2h.wram_channel_slowdown, d_wslow, 4);

    d->launch_base_us = 49.0;
    d->launch_mux_us = 67.0;
    d->launch_mux_back_us = 46.0;
}

static void preset_v1b(struct op_machine_desc *d)
{
    preset_v1a(d);
    strcpy(d->name, "v1B");
    d->freq_mhz = 400.0;
    d->nr_tasklets = 16;
    d->wram_bytes = 63488;
}

static int ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

int op_machine_desc_preset(const char *name, struct op_machine_desc *desc)
{
    if (!name || !desc)
        return -1;
    if (ieq(name, "v1A"))
        preset_v1a(desc);
    else if (ieq(name, "v1B"))
        preset_v1b(desc);
    else
        return -1;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* key table                                                                 */
/* ------------------------------------------------------------------------ */

enum ktype {
    K_STR, K_DBL, K_UINT, K_U32, K_LIST_SIZE, K_LIST_FIXED, K_SIZES, K_FIXED_RANKS, K_RCHAN, K_LIST_WSIZE, K_WSIZES
};

struct key {
    const char *name;
    enum ktype type;
    size_t off;
    const char *src;
};

#define D(f) offsetof(struct op_machine_desc, f)
static const struct key keys[] = {
    {"name", K_STR, D(name), "label printed in reports"},
    {"freq_mhz", K_DBL, D(freq_mhz), "calibration-sources §1.1: v1A 350 MHz, v1B 400 MHz"},
    {"nr_tasklets", K_UINT, D(nr_tasklets), "calibration-sources §1.1: v1A <=24, v1B <=16 tasklets"},
    {"mram_bytes", K_U32, D(mram_bytes), "calibration-sources §1.1: 64 MiB MRAM per DPU"},
    {"wram_bytes", K_U32, D(wram_bytes), "calibration-sources §1.1: v1A 65536 B, v1B 63488 B"},
            {"channels", K_UINT, D(channels), "inferred from calibration-sources §3.3 (see rank_channels)"},
    {"ranks_per_channel", K_UINT, D(ranks_per_channel), "max ranks sharing a channel; inferred from calibration-sources §3.3"},
    {"nr_ranks", K_UINT, D(nr_ranks), "calibration-sources §3.3: 2,560 DPUs = 40 ranks (20 dual-rank DIMMs)"},
    {"ranks_per_dimm", K_UINT, D(ranks_per_dimm), "calibration-sources §3.5: double-rank PIM DIMMs"},
    {"chips_per_rank", K_UINT, D(chips_per_rank), "calibration-sources §3.1: a 64-B line carries 8 B for each of 8 chips"},
    {"dpus_per_chip", K_UINT, D(dpus_per_chip), "8 DPUs per chip (64 per rank, calibration-sources §3.2)"},
    {"rank_channels", K_RCHAN, D(rank_channel),
     "allocation order rank->channel; inferred from calibration-sources §3.3 (ranks sharing a channel serialise, calibration-sources §3.1)"},
    {"revolver_cycles", K_UINT, D(revolver_cycles), "calibration-sources §1.1: a tasklet issues >=11 cycles after its previous issue"},
        {"dma_read_fixed", K_DBL, D(dma_read_fixed), "calibration-sources §2.2: PrIM's 77-cycle read window minus its ~5 instructions x 11 cycles (the model charges those separately); uPIMulator's alpha ~20; calibration suite"},
    {"dma_write_fixed", K_DBL, D(dma_write_fixed), "calibration-sources §2.2: PrIM's 61-cycle write window minus ~5 instructions x 11 cycles; calibration suite"},
    {"dma_cycles_per_byte", K_DBL, D(dma_cycles_per_byte), "calibration-sources §2.2: fits 77/61 intercepts and 628/633 MB/s at 2 KB together (0.5 is the rounded value)"},
    {"dma_overlap_cycles", K_DBL, D(dma_overlap_cycles), "calibration-sources §6: one DMA at a time, FIFO (0); what-if knob"},
#define OP_OP_COST_KEY_(slot, field, source) {"op_" #field, K_UINT, D(ops.field), source},
    OP_OP_COST_LIST(OP_OP_COST_KEY_)
#undef OP_OP_COST_KEY_
    {"rt_dma_call", K_UINT, D(rt.dma_call),
     "estimate: size encode (lsr_add, lsl_add) + ldma/sdma (calibration-sources §2.1)"},
    {"rt_barrier_wait", K_UINT, D(rt.barrier_wait), "estimate: atomic-bit lock, count update, stop"},
    {"rt_barrier_wake_per_tasklet", K_UINT, D(rt.barrier_wake_per_tasklet), "estimate: resume loop of the last arrival"},
    {"rt_mutex_lock", K_UINT, D(rt.mutex_lock), "the `acquire` of SDK mutex.h (static inline; the counting pass charges no call): its retries while taken are modelled as spinning"},
    {"rt_mutex_unlock", K_UINT, D(rt.mutex_unlock), "the `release` of SDK mutex.h (static inline; no call)"},
    {"rt_sem_take", K_UINT, D(rt.sem_take), "estimate"},
    {"rt_sem_give", K_UINT, D(rt.sem_give), "estimate"},
    {"rt_handshake_wait", K_UINT, D(rt.handshake_wait), "estimate"},
    {"rt_handshake_notify", K_UINT, D(rt.handshake_notify), "estimate"},
    {"rt_mem_alloc", K_UINT, D(rt.mem_alloc), "estimate: lock, bump pointer, align, unlock"},
    {"rt_mem_reset", K_UINT, D(rt.mem_reset), "estimate"},
    {"rt_perfcounter", K_UINT, D(rt.perfcounter), "estimate: time instruction + shift ([UPMEM-SDK] perfcounter.c)"},
    {"rt_boot", K_UINT, D(rt.boot), "estimate: crt0 per-tasklet boot chain"},
    {"xfer_size", K_SIZES, D(xfer_size), "calibration-sources §3.3 table rows (bytes per DPU)"},
    {"xfer_fixed_ranks", K_FIXED_RANKS, D(xfer_fixed_ranks), "calibration-sources §3.3 table columns (64..2,560 DPUs)"},
    {"xfer_wram_size", K_WSIZES, D(xfer_wram_size), "calibration-sources §3.4 table rows (bytes per DPU, WRAM __host)"},
    {"xfer_threads", K_UINT, D(xfer_threads),
     "calibration-sources §3.1: SDK >= 2021.3 per-channel pool, 4 threads by default (2020.2: 8 per rank); one thread per DPU index"},
    {"h2d_fixed_us", K_LIST_FIXED, D(h2d.fixed_us), "calibration-sources §3.3: 32-B row, Host->DPU (59..327 us)"},
    {"h2d_rank_gbps", K_LIST_SIZE, D(h2d.rank_gbps), "fit §3.3 (64-DPU column ~ one rank)"},
    {"h2d_chan_gbps", K_LIST_SIZE, D(h2d.chan_gbps), "fit §3.3 (128-DPU column: 2 ranks on one channel)"},
    {"h2d_contention", K_LIST_SIZE, D(h2d.contention), "fit §3.3 (320..1,280-DPU columns)"},
    {"h2d_cap_gbps", K_LIST_SIZE, D(h2d.cap_gbps), "fit §3.3 (2,560-DPU column; ~57 GB/s peak, calibration-sources §3.3)"},
    {"h2d_bcast_speedup", K_DBL, D(h2d.bcast_speedup), "calibration-sources §3.2: PrIM broadcast 16.88 vs parallel 6.68 GB/s"},
    {"h2d_serial_call_us", K_DBL, D(h2d.serial_call_us), "calibration-sources §3.3/§6: ~59 us per call (1 rank fixed cost)"},
    {"h2d_direct_call_us", K_DBL, D(h2d.direct_call_us), "calibration-sources §3.5 Loremkang: direct interface, 64 KB send 15 us (SDK 146 us)"},
    {"h2d_direct_speedup", K_DBL, D(h2d.direct_speedup), "calibration-sources §3.5 Loremkang ParallelResult: direct send 23 GB/s vs SDK 15.9 GB/s"},
    {"h2d_serial_gbps", K_DBL, D(h2d.serial_gbps), "between calibration-sources §3.2 PrIM 0.33 and PrIM-era RED 0.48 GB/s (both within 19 %); calibration suite"},
    {"h2d_wram_fixed_us", K_DBL, D(h2d.wram_fixed_us), "fit §3.4 (8-B and 256-B rows, 64 DPUs)"},
    {"h2d_wram_fixed_us_per_doubling", K_DBL, D(h2d.wram_fixed_us_per_doubling), "fit §3.4 (8-B and 256-B rows, 2,560 DPUs)"},
    {"h2d_wram_ns_per_byte", K_LIST_WSIZE, D(h2d.wram_ns_per_byte), "fit §3.4 (64-DPU column; ~57 ns per byte per DPU at 32 KB)"},
    {"h2d_wram_channel_slowdown", K_LIST_WSIZE, D(h2d.wram_channel_slowdown), "fit §3.4 (2,560 vs 64 DPUs)"},
    {"h2d_wram_bcast_factor", K_DBL, D(h2d.wram_bcast_factor),
     "0 = off: a WRAM broadcast costs a parallel WRAM push (calibration-sources §3.4 has no broadcast data); [XferStudy]: 3"},
    {"host_llc_bytes", K_DBL, D(host_llc_bytes),
     "0 = none modelled (calibration-sources §3.3 does not name the cloud server's CPU); [XferStudy]: 11 MB"},
    {"d2h_fixed_us", K_LIST_FIXED, D(d2h.fixed_us), "calibration-sources §3.3: 32-B row, DPU->Host (157..432 us)"},
    {"d2h_rank_gbps", K_LIST_SIZE, D(d2h.rank_gbps), "fit §3.3 (64-DPU column)"},
    {"d2h_chan_gbps", K_LIST_SIZE, D(d2h.chan_gbps), "fit §3.3 (128-DPU column)"},
    {"d2h_contention", K_LIST_SIZE, D(d2h.contention), "fit §3.3 (320..1,280-DPU columns)"},
    {"d2h_cap_gbps", K_LIST_SIZE, D(d2h.cap_gbps), "fit §3.3 (2,560-DPU column; ~14 GB/s, calibration-sources §3.3)"},
    {"d2h_serial_call_us", K_DBL, D(d2h.serial_call_us), "calibration-sources §3.3/§6: ~157 us per call (1 rank fixed cost)"},
    {"d2h_direct_call_us", K_DBL, D(d2h.direct_call_us), "calibration-sources §3.5 Loremkang: direct interface, 64 KB receive 30 us (SDK 183 us)"},
    {"d2h_direct_speedup", K_DBL, D(d2h.direct_speedup), "calibration-sources §3.5 Loremkang ParallelResult: direct receive 24.5 GB/s vs SDK 8.4 GB/s"},
    {"d2h_serial_gbps", K_DBL, D(d2h.serial_gbps), "calibration-sources §6/§3.2: 0.115 GB/s per DPU"},
    {"d2h_wram_fixed_us", K_DBL, D(d2h.wram_fixed_us), "fit §3.4 (8-B and 256-B rows, 64 DPUs)"},
    {"d2h_wram_fixed_us_per_doubling", K_DBL, D(d2h.wram_fixed_us_per_doubling), "fit §3.4 (8-B and 256-B rows, 2,560 DPUs)"},
    {"d2h_wram_ns_per_byte", K_LIST_WSIZE, D(d2h.wram_ns_per_byte), "fit §3.4 (64-DPU column)"},
    {"d2h_wram_channel_slowdown", K_LIST_WSIZE, D(d2h.wram_channel_slowdown), "fit §3.4 (2,560 vs 64 DPUs)"},
    {"launch_base_us", K_DBL, D(launch_base_us), "calibration-sources §3.5: 183 us SDK launch on 4 ranks/2 channels - 2 x 67"},
    {"launch_mux_us", K_DBL, D(launch_mux_us), "calibration-sources §3.5: MRAM mux hand-over ~67 us per rank (11.4 + 55.4)"},
    {"launch_mux_back_us", K_DBL, D(launch_mux_back_us), "calibration-sources §3.5: receive after launch 275 vs 183 us on 2 ranks/channel"},
};
#undef D
#define NKEYS (sizeof keys / sizeof keys[0])

unsigned op_machine_desc_key_count(void)
{
    return (unsigned)NKEYS;
}

const char *op_machine_desc_key_name(unsigned i)
{
    return i < NKEYS ? keys[i].name : NULL;
}

/* ------------------------------------------------------------------------ */
/* parsing                                                                   */
/* ------------------------------------------------------------------------ */

struct pctx {
    int server_named; /* a 'server =' line since the last reload */
    unsigned char given[NKEYS];
    unsigned count[NKEYS]; /* list lengths */
};

static void seterr(char *err, size_t len, const char *fmt, const char *a, const char *b)
{
    if (err && len)
        snprintf(err, len, fmt, a ? a : "", b ? b : "");
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = 0;
    return s;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v))
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return -1;
    *out = v;
    return 0;
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
    char *end;
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '-' || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    while (isspace((unsigned char)*end))
        end++;
    if (errno || *end || v > max)
        return -1;
    *out = v;
    return 0;
}

/* Split a list on sep into at most max doubles. */
static int parse_list(const char *val, char sep, double *out, unsigned max, unsigned *n)
{
    char buf[4096];
    if (strlen(val) >= sizeof buf)
        return -1;
    strcpy(buf, val);
    unsigned k = 0;
    char *p = buf;
    for (;;) {
        char *q = strchr(p, sep);
        if (q)
            *q = 0;
        char *item = trim(p);
        if (k >= max || parse_double(item, &out[k]) < 0)
            return -1;
        k++;
        if (!q)
            break;
        p = q + 1;
    }
    *n = k;
    return 0;
}

static const struct key *find_key(const char *name, size_t *idx)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].name, name) == 0) {
            *idx = i;
            return &keys[i];
        }
    return NULL;
}

/* 1 applied, 0 unknown key, -1 bad value */
static int set_key(struct op_machine_desc *d, struct pctx *ctx, const char *name,
                   const char *val, char sep, char *err, size_t errlen)
{
    size_t idx;
    const struct key *k = find_key(name, &idx);
    if (!k)
        return 0;
    char *base = (char *)d + k->off;
    unsigned long long u;
    double v, list[OP_TIMING_MAX_RANKS];
    unsigned n = 0;
    switch (k->type) {
    case K_STR:
        if (strlen(val) >= sizeof d->name || !*val)
            goto bad;
        strcpy(base, val);
        break;
    case K_DBL:
        if (parse_double(val, &v) < 0)
            goto bad;
        *(double *)(void *)base = v;
        break;
    case K_UINT:
        if (parse_uint(val, 0xffffffffull, &u) < 0)
            goto bad;
        *(unsigned *)(void *)base = (unsigned)u;
        break;
    case K_U32:
        if (parse_uint(val, 0xffffffffull, &u) < 0)
            goto bad;
        *(uint32_t *)(void *)base = (uint32_t)u;
        break;
    case K_LIST_SIZE:
    case K_LIST_FIXED:
    case K_SIZES:
    case K_FIXED_RANKS:
    case K_LIST_WSIZE:
    case K_WSIZES:
        if (parse_list(val, sep, list, OP_TIMING_MAX_POINTS, &n) < 0)
            goto bad;
        for (unsigned i = 0; i < OP_TIMING_MAX_POINTS; i++)
            ((double *)(void *)base)[i] = i < n ? list[i] : 0.0;
        if (k->type == K_SIZES)
            d->xfer_npoints = n;
        if (k->type == K_FIXED_RANKS)
            d->xfer_nfixed = n;
        if (k->type == K_WSIZES)
            d->xfer_wram_npoints = n;
        break;
    case K_RCHAN:
        if (parse_list(val, sep, list, OP_TIMING_MAX_RANKS, &n) < 0)
            goto bad;
        for (unsigned i = 0; i < n; i++) {
            if (list[i] < 0 || list[i] > 65535 || list[i] != floor(list[i]))
                goto bad;
            d->rank_channel[i] = (uint16_t)list[i];
        }
        for (unsigned i = n; i < OP_TIMING_MAX_RANKS; i++)
            d->rank_channel[i] = 0;
        break;
    }
    if (ctx) {
        ctx->given[idx] = 1;
        ctx->count[idx] = (k->type >= K_LIST_SIZE) ? n : 1;
    }
    return 1;
bad:
    seterr(err, errlen, "bad value for %s: '%s'", name, val);
    return -1;
}

static int given(const struct pctx *ctx, const char *name)
{
    size_t idx;
    return find_key(name, &idx) && ctx->given[idx];
}

/* Post-parse consistency: list lengths and topology regeneration. */
static int finish(struct op_machine_desc *d, const struct pctx *ctx, char *err, size_t errlen)
{
    int sizes_given = given(ctx, "xfer_size"), fixed_given = given(ctx, "xfer_fixed_ranks");
    int wsizes_given = given(ctx, "xfer_wram_size");
    for (size_t i = 0; i < NKEYS; i++) {
        const struct key *k = &keys[i];
        if (k->type == K_LIST_SIZE) {
            if (ctx->given[i] && ctx->count[i] != d->xfer_npoints) {
                seterr(err, errlen, "%s: needs one value per xfer_size point%s", k->name, "");
                return -1;
            }
            if (sizes_given && !ctx->given[i]) {
                seterr(err, errlen, "xfer_size changed: %s must be given too%s", k->name, "");
                return -1;
            }
        } else if (k->type == K_LIST_FIXED) {
            if (ctx->given[i] && ctx->count[i] != d->xfer_nfixed) {
                seterr(err, errlen, "%s: needs one value per xfer_fixed_ranks point%s", k->name, "");
                return -1;
            }
            if (fixed_given && !ctx->given[i]) {
                seterr(err, errlen, "xfer_fixed_ranks changed: %s must be given too%s", k->name, "");
                return -1;
            }
        } else if (k->type == K_LIST_WSIZE) {
            if (ctx->given[i] && ctx->count[i] != d->xfer_wram_npoints) {
                seterr(err, errlen, "%s: needs one value per xfer_wram_size point%s", k->name, "");
                return -1;
            }
            if (wsizes_given && !ctx->given[i]) {
                seterr(err, errlen, "xfer_wram_size changed: %s must be given too%s", k->name, "");
                return -1;
            }
        }
    }
    size_t rc_idx = 0;
    find_key("rank_channels", &rc_idx);
    if (ctx->given[rc_idx]) {
        unsigned n = ctx->count[rc_idx];
        if (given(ctx, "nr_ranks") && d->nr_ranks != n) {
            seterr(err, errlen, "rank_channels lists a number of ranks different from nr_ranks%s%s", "", "");
            return -1;
        }
        d->nr_ranks = n;
        unsigned maxc = 0;
        for (unsigned i = 0; i < n; i++)
            if (d->rank_channel[i] + 1u > maxc)
                maxc = d->rank_channel[i] + 1u;
        if (!given(ctx, "channels") && maxc > d->channels)
            d->channels = maxc;
    } else if (given(ctx, "channels") || given(ctx, "ranks_per_channel") || given(ctx, "nr_ranks") ||
               given(ctx, "ranks_per_dimm")) {
        if (!given(ctx, "nr_ranks"))
            d->nr_ranks = d->channels * d->ranks_per_channel;
        if (d->nr_ranks == 0 || d->nr_ranks > OP_TIMING_MAX_RANKS || d->channels == 0 ||
            d->ranks_per_dimm == 0) {
            seterr(err, errlen, "bad topology (channels, ranks_per_channel, nr_ranks, ranks_per_dimm)%s%s", "",
                   "");
            return -1;
        }
        /* default allocation order: DIMMs round-robin over the channels */
        for (unsigned r = 0; r < d->nr_ranks; r++)
            d->rank_channel[r] = (uint16_t)((r / d->ranks_per_dimm) % d->channels);
        for (unsigned r = d->nr_ranks; r < OP_TIMING_MAX_RANKS; r++)
            d->rank_channel[r] = 0;
    }
    /* ranks_per_channel: the most ranks any channel carries */
    if (d->nr_ranks <= OP_TIMING_MAX_RANKS && d->channels > 0) {
        unsigned cnt[OP_TIMING_MAX_RANKS] = {0}, maxk = 0;
        for (unsigned r = 0; r < d->nr_ranks; r++)
            if (d->rank_channel[r] < OP_TIMING_MAX_RANKS && ++cnt[d->rank_channel[r]] > maxk)
                maxk = cnt[d->rank_channel[r]];
        if (given(ctx, "ranks_per_channel") && d->ranks_per_channel < maxk) {
            seterr(err, errlen, "ranks_per_channel is smaller than the rank allocation implies%s%s", "", "");
            return -1;
        }
        if (!given(ctx, "ranks_per_channel"))
            d->ranks_per_channel = maxk;
    }
    return op_machine_desc_validate(d, err, errlen);
}

int op_machine_desc_validate(const struct op_machine_desc *d, char *err, size_t errlen)
{
#define CHECK(cond, msg)                                                                                     \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            seterr(err, errlen, "invalid description: %s%s", msg, "");                                       \
            return -1;                                                                                       \
        }                                                                                                    \
    } while (0)
    CHECK(d->freq_mhz > 0, "freq_mhz must be > 0");
    CHECK(d->nr_tasklets >= 1 && d->nr_tasklets <= OP_TIMING_MAX_TASKLETS, "nr_tasklets must be 1..24");
    CHECK(d->mram_bytes > 0 && d->wram_bytes > 0, "memory sizes must be > 0");
    CHECK(d->nr_ranks >= 1 && d->nr_ranks <= OP_TIMING_MAX_RANKS, "nr_ranks must be 1..256");
    CHECK(d->channels >= 1, "channels must be >= 1");
    CHECK(d->ranks_per_channel >= 1, "ranks_per_channel must be >= 1");
    CHECK(d->ranks_per_dimm >= 1, "ranks_per_dimm must be >= 1");
    CHECK(d->chips_per_rank >= 1 && d->dpus_per_chip >= 1, "chips_per_rank and dpus_per_chip must be >= 1");
    for (unsigned r = 0; r < d->nr_ranks; r++)
        CHECK(d->rank_channel[r] < d->channels, "rank_channels entry >= channels");
    CHECK(d->revolver_cycles >= 1, "revolver_cycles must be >= 1");
    CHECK(d->dma_read_fixed >= 0 && d->dma_write_fixed >= 0 && d->dma_cycles_per_byte >= 0,
          "DMA constants must be >= 0");
    CHECK(d->dma_overlap_cycles >= 0 && d->dma_overlap_cycles <= d->dma_read_fixed &&
              d->dma_overlap_cycles <= d->dma_write_fixed,
          "dma_overlap_cycles must be within 0..min(dma fixed costs)");
    CHECK(d->xfer_npoints >= 1 && d->xfer_npoints <= OP_TIMING_MAX_POINTS, "xfer_size needs 1..8 points");
    CHECK(d->xfer_nfixed >= 1 && d->xfer_nfixed <= OP_TIMING_MAX_POINTS, "xfer_fixed_ranks needs 1..8 points");
    CHECK(d->xfer_wram_npoints >= 1 && d->xfer_wram_npoints <= OP_TIMING_MAX_POINTS,
          "xfer_wram_size needs 1..8 points");
    for (unsigned i = 0; i < d->xfer_wram_npoints; i++)
        CHECK(d->xfer_wram_size[i] > 0 && (i == 0 || d->xfer_wram_size[i] > d->xfer_wram_size[i - 1]),
              "xfer_wram_size must be positive and increasing");
    for (unsigned i = 0; i < d->xfer_npoints; i++) {
        CHECK(d->xfer_size[i] > 0 && (i == 0 || d->xfer_size[i] > d->xfer_size[i - 1]),
              "xfer_size must be positive and increasing");
        const struct op_xfer_dir_params *p[2] = {&d->h2d, &d->d2h};
        for (int j = 0; j < 2; j++) {
            CHECK(p[j]->rank_gbps[i] > 0 && p[j]->chan_gbps[i] > 0, "*_rank_gbps/*_chan_gbps must be > 0");
            CHECK(p[j]->contention[i] >= 0 && p[j]->cap_gbps[i] >= 0, "*_contention/*_cap_gbps must be >= 0");
        }
    }
    for (unsigned i = 0; i < d->xfer_nfixed; i++) {
        CHECK(d->xfer_fixed_ranks[i] >= 1 && (i == 0 || d->xfer_fixed_ranks[i] > d->xfer_fixed_ranks[i - 1]),
              "xfer_fixed_ranks must be >= 1 and increasing");
        CHECK(d->h2d.fixed_us[i] >= 0 && d->d2h.fixed_us[i] >= 0, "*_fixed_us must be >= 0");
    }
    const struct op_xfer_dir_params *p[2] = {&d->h2d, &d->d2h};
    for (int j = 0; j < 2; j++) {
        CHECK(p[j]->bcast_speedup > 0, "*_bcast_speedup must be > 0");
        CHECK(p[j]->serial_call_us >= 0 && p[j]->serial_gbps > 0, "*_serial_* constants");
        CHECK(p[j]->direct_call_us >= 0 && p[j]->direct_speedup > 0, "*_direct_* constants");
        CHECK(p[j]->wram_fixed_us >= 0 && p[j]->wram_fixed_us_per_doubling >= 0, "*_wram_* constants must be >= 0");
        for (unsigned i = 0; i < d->xfer_wram_npoints; i++)
            CHECK(p[j]->wram_ns_per_byte[i] >= 0 && p[j]->wram_channel_slowdown[i] >= 0,
                  "*_wram_ns_per_byte/*_wram_channel_slowdown must be >= 0");
        CHECK(p[j]->wram_bcast_factor >= 0, "*_wram_bcast_factor must be >= 0");
    }
    CHECK(d->host_llc_bytes >= 0, "host_llc_bytes must be >= 0");
    CHECK(d->xfer_threads >= 1, "xfer_threads must be >= 1");
    CHECK(d->launch_base_us >= 0 && d->launch_mux_us >= 0 && d->launch_mux_back_us >= 0,
          "launch constants must be >= 0");
#undef CHECK
    return 0;
}

/* Server keys: the topology, the host transfers and the launch (see timing.h). */
int op_machine_desc_is_server_key(const char *key)
{
    static const char *const topo[] = {"channels",       "ranks_per_channel", "nr_ranks",     "ranks_per_dimm",
                                       "chips_per_rank", "dpus_per_chip",     "rank_channels"};
    static const char *const prefix[] = {"xfer_", "h2d_", "d2h_", "launch_", "host_"};
    size_t idx;
    if (!key || !find_key(key, &idx))
        return 0;
    for (size_t i = 0; i < sizeof topo / sizeof topo[0]; i++)
        if (strcmp(key, topo[i]) == 0)
            return 1;
    for (size_t i = 0; i < sizeof prefix / sizeof prefix[0]; i++)
        if (strncmp(key, prefix[i], strlen(prefix[i])) == 0)
            return 1;
    return 0;
}

static int parse_text(char *text, const char *label, struct op_machine_desc *d, struct pctx *ctx, int server_only,
                      char *err, size_t errlen);

struct op_server_preset {
    const char *name, *text;
};
#include "op_server_presets.inc" /* op_server_presets[]: generated from presets/server-*.desc */
#define NSERVERS (sizeof op_server_presets / sizeof op_server_presets[0])

unsigned op_machine_server_count(void)
{
    return (unsigned)NSERVERS;
}

const char *op_machine_server_name(unsigned i)
{
    return i < NSERVERS ? op_server_presets[i].name : NULL;
}

static size_t key_size(const struct op_machine_desc *d, const struct key *k);

/* Every server key back to the default server's value. */
static void reset_server(struct op_machine_desc *d)
{
    struct op_machine_desc def;
    preset_v1a(&def);
    for (size_t i = 0; i < NKEYS; i++) {
        const struct key *k = &keys[i];
        if (!op_machine_desc_is_server_key(k->name))
            continue;
        size_t n = key_size(d, k);
        memcpy((char *)d + k->off, (const char *)&def + k->off, n);
    }
    d->xfer_npoints = def.xfer_npoints;
    d->xfer_nfixed = def.xfer_nfixed;
    d->xfer_wram_npoints = def.xfer_wram_npoints;
    strcpy(d->server, def.server);
}

static size_t key_size(const struct op_machine_desc *d, const struct key *k)
{
    switch (k->type) {
    case K_STR:
        return sizeof d->name;
    case K_DBL:
        return sizeof(double);
    case K_UINT:
        return sizeof(unsigned);
    case K_U32:
        return sizeof(uint32_t);
    case K_LIST_SIZE:
    case K_LIST_FIXED:
    case K_SIZES:
    case K_FIXED_RANKS:
    case K_LIST_WSIZE:
    case K_WSIZES:
        return OP_TIMING_MAX_POINTS * sizeof(double);
    case K_RCHAN:
        return sizeof d->rank_channel;
    }
    return 0;
}

/* The name of the server preset whose server keys d has (its current label
 * first), or "" for none: the server of a loaded file that names none. */
static void name_server(struct op_machine_desc *d)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < NSERVERS; i++) {
            if ((pass == 0) != (strcmp(d->server, op_server_presets[i].name) == 0))
                continue;
            struct op_machine_desc s = *d;
            if (op_machine_desc_server(&s, op_server_presets[i].name, NULL, 0) < 0)
                continue;
            int same = s.xfer_npoints == d->xfer_npoints && s.xfer_nfixed == d->xfer_nfixed &&
                       s.xfer_wram_npoints == d->xfer_wram_npoints;
            for (size_t j = 0; j < NKEYS && same; j++)
                if (op_machine_desc_is_server_key(keys[j].name))
                    same = memcmp((const char *)&s + keys[j].off, (const char *)d + keys[j].off,
                                  key_size(d, &keys[j])) == 0;
            if (same) {
                strcpy(d->server, op_server_presets[i].name);
                return;
            }
        }
    d->server[0] = 0;
}

int op_machine_desc_server(struct op_machine_desc *desc, const char *name, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    if (!desc || !name)
        return -1;
    const struct op_server_preset *sp = NULL;
    for (size_t i = 0; i < NSERVERS; i++)
        if (ieq(name, op_server_presets[i].name))
            sp = &op_server_presets[i];
    if (!sp) {
        char known[512] = "";
        size_t pos = 0;
        for (size_t i = 0; i < NSERVERS && pos < sizeof known; i++)
            pos += (size_t)snprintf(known + pos, sizeof known - pos, "%s%s", i ? ", " : "", op_server_presets[i].name);
        if (err && errlen)
            snprintf(err, errlen, "unknown server preset '%s' (known: %s)", name, known);
        return -1;
    }
    return op_machine_desc_server_text(desc, sp->name, sp->text, err, errlen);
}

int op_machine_desc_server_text(struct op_machine_desc *desc, const char *name, const char *text, char *err,
                                size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    if (!desc || !name || !text || strlen(name) >= sizeof desc->server)
        return -1;
    struct op_machine_desc d = *desc;
    reset_server(&d);
    char label[64], msg[256];
    snprintf(label, sizeof label, "server-%s.desc", name);
    char *buf = malloc(strlen(text) + 1);
    if (!buf)
        return -1;
    strcpy(buf, text);
    struct pctx ctx;
    memset(&ctx, 0, sizeof ctx);
    int rc = parse_text(buf, label, &d, &ctx, 1, err, errlen);
    free(buf);
    if (rc == 0 && finish(&d, &ctx, msg, sizeof msg) < 0) {
        if (err && errlen)
            snprintf(err, errlen, "%s: %s", label, msg);
        rc = -1;
    }
    if (rc < 0)
        return -1;
    strcpy(d.server, name);
    *desc = d;
    return 0;
}

/* Apply 'key = value' lines of text (modified in place).  server_only: a
 * server preset, which may set server keys only. */
static int parse_text(char *text, const char *label, struct op_machine_desc *d, struct pctx *ctx, int server_only,
                      char *err, size_t errlen)
{
    char msg[256];
    unsigned lineno = 0;
    for (char *line = text; line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *s = trim(line);
        line = nl ? nl + 1 : NULL;
        if (!*s)
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            snprintf(err, errlen, "%s:%u: expected 'key = value'", label, lineno);
            return -1;
        }
        *eq = 0;
        char *key = trim(s), *val = trim(eq + 1);
        int whole = strcmp(key, "preset") == 0 || strcmp(key, "server") == 0;
        if (server_only && (whole || (find_key(key, &(size_t){0}) && !op_machine_desc_is_server_key(key)))) {
            snprintf(err, errlen, "%s:%u: '%s' is not a server key (a server preset sets only topology, xfer_*, "
                     "h2d_*, d2h_*, launch_* and host_* keys)", label, lineno, key);
            return -1;
        }
        if (strcmp(key, "preset") == 0) {
            if (op_machine_desc_preset(val, d) < 0) {
                snprintf(err, errlen, "%s:%u: unknown preset '%s'", label, lineno, val);
                return -1;
            }
            memset(ctx, 0, sizeof *ctx);
            continue;
        }
        if (strcmp(key, "server") == 0) {
            if (op_machine_desc_server(d, val, msg, sizeof msg) < 0) {
                snprintf(err, errlen, "%s:%u: %s", label, lineno, msg);
                return -1;
            }
            memset(ctx, 0, sizeof *ctx);
            ctx->server_named = 1;
            continue;
        }
        int r = set_key(d, ctx, key, val, ',', msg, sizeof msg);
        if (r == 0) {
            snprintf(err, errlen, "%s:%u: unknown key '%s'", label, lineno, key);
            return -1;
        }
        if (r < 0) {
            snprintf(err, errlen, "%s:%u: %s", label, lineno, msg);
            return -1;
        }
    }
    return 0;
}

static void name_server(struct op_machine_desc *d);

static int load_into(const char *path, struct op_machine_desc *d, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        seterr(err, errlen, "%s: cannot open%s", path, "");
        return -1;
    }
    /* a description is a few KB: refuse anything absurd rather than read it */
    enum { MAX_DESC = 1 << 20 };
    char *text = malloc(MAX_DESC + 1);
    size_t n = text ? fread(text, 1, MAX_DESC + 1, f) : 0;
    int bad_read = ferror(f);
    fclose(f);
    if (!text || bad_read || n > MAX_DESC || memchr(text, 0, n)) {
        snprintf(err, errlen, "%s: %s", path,
                 !text ? "out of memory" : bad_read ? "read error" : n > MAX_DESC ? "larger than 1 MB" : "binary file");
        free(text);
        return -1;
    }
    text[n] = 0;
    struct pctx ctx;
    memset(&ctx, 0, sizeof ctx);
    char msg[256];
    int rc = parse_text(text, path, d, &ctx, 0, err, errlen);
    free(text);
    if (rc == 0 && finish(d, &ctx, msg, sizeof msg) < 0) {
        snprintf(err, errlen, "%s: %s", path, msg);
        rc = -1;
    }
    if (rc == 0 && !ctx.server_named) /* a file that names no server: the preset it matches, if any */
        name_server(d);
    return rc;
}

int op_machine_desc_load(const char *path, struct op_machine_desc *desc, char *errbuf, size_t errlen)
{
    if (!path || !desc)
        return -1;
    if (errbuf && errlen)
        errbuf[0] = 0;
    struct op_machine_desc d;
    preset_v1a(&d);
    if (load_into(path, &d, errbuf, errlen) < 0)
        return -1;
    *desc = d;
    return 0;
}

int op_machine_desc_apply(struct op_machine_desc *desc, const char *profile)
{
    if (!desc)
        return -1;
    if (!profile)
        return 0;
    struct op_machine_desc d = *desc;
    struct pctx ctx;
    memset(&ctx, 0, sizeof ctx);
    size_t len = strlen(profile);
    char *buf = malloc(len + 1);
    if (!buf)
        return -1;
    memcpy(buf, profile, len + 1);
    int applied = 0, rc = 0;
    char err[256];
    char *p = buf;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = 0;
        char *item = trim(p);
        char *eq = strchr(item, '=');
        if (eq) {
            *eq = 0;
            char *key = trim(item), *val = trim(eq + 1);
            if (strcmp(key, "preset") == 0) {
                if (op_machine_desc_preset(val, &d) < 0) {
                    rc = -1;
                    break;
                }
                memset(&ctx, 0, sizeof ctx);
                applied++;
            } else if (strcmp(key, "server") == 0) {
                if (op_machine_desc_server(&d, val, err, sizeof err) < 0) {
                    rc = -1;
                    break;
                }
                memset(&ctx, 0, sizeof ctx);
                applied++;
            } else if (strcmp(key, "desc_file") == 0) {
                if (op_machine_desc_load(val, &d, err, sizeof err) < 0) {
                    rc = -1;
                    break;
                }
                memset(&ctx, 0, sizeof ctx);
                applied++;
            } else {
                int r = set_key(&d, &ctx, key, val, ':', err, sizeof err);
                if (r < 0) {
                    rc = -1;
                    break;
                }
                applied += r;
            }
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    free(buf);
    if (rc == 0 && finish(&d, &ctx, err, sizeof err) < 0)
        rc = -1;
    if (rc < 0)
        return -1;
    *desc = d;
    return applied;
}

/* ------------------------------------------------------------------------ */
/* writer                                                                    */
/* ------------------------------------------------------------------------ */

/* Shortest %g form that reads back to the same double. */
static void fmt_double(char *out, size_t len, double v)
{
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(out, len, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

int op_machine_desc_write(FILE *f, const struct op_machine_desc *d)
{
    if (!f || !d)
        return -1;
    char num[64];
    /* the server first: loading resets the server keys to it, the keys below then give every value */
    if (d->server[0] && fprintf(f, "server = %s  # server preset (timing/presets/server-%s.desc)\n", d->server,
                                d->server) < 0)
        return -1;
    for (size_t i = 0; i < NKEYS; i++) {
        const struct key *k = &keys[i];
        const char *base = (const char *)d + k->off;
        char val[2048];
        size_t pos = 0;
        val[0] = 0;
        unsigned n = 0;
        switch (k->type) {
        case K_STR:
            snprintf(val, sizeof val, "%s", base);
            break;
        case K_DBL:
            fmt_double(val, sizeof val, *(const double *)(const void *)base);
            break;
        case K_UINT:
            snprintf(val, sizeof val, "%u", *(const unsigned *)(const void *)base);
            break;
        case K_U32:
            snprintf(val, sizeof val, "%lu", (unsigned long)*(const uint32_t *)(const void *)base);
            break;
        case K_LIST_SIZE:
        case K_SIZES:
            n = d->xfer_npoints;
            goto list;
        case K_LIST_WSIZE:
        case K_WSIZES:
            n = d->xfer_wram_npoints;
            goto list;
        case K_LIST_FIXED:
        case K_FIXED_RANKS:
            n = d->xfer_nfixed;
        list:
            for (unsigned j = 0; j < n && j < OP_TIMING_MAX_POINTS; j++) {
                fmt_double(num, sizeof num, ((const double *)(const void *)base)[j]);
                pos += (size_t)snprintf(val + pos, sizeof val - pos, "%s%s", j ? ", " : "", num);
            }
            break;
        case K_RCHAN:
            for (unsigned j = 0; j < d->nr_ranks && pos < sizeof val - 16; j++)
                pos += (size_t)snprintf(val + pos, sizeof val - pos, "%s%u", j ? "," : "", d->rank_channel[j]);
            break;
        }
        if (fprintf(f, "%s = %s  # %s\n", k->name, val, k->src) < 0)
            return -1;
    }
    return 0;
}

unsigned op_machine_rank_channel(const struct op_machine_desc *desc, unsigned rank)
{
    if (!desc || rank >= desc->nr_ranks || rank >= OP_TIMING_MAX_RANKS)
        return 0;
    return desc->rank_channel[rank];
}
