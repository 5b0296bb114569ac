/* SPDX-License-Identifier: MIT */
/* Calibration suite: the host-transfer and launch model evaluated directly
 * (timing/xfer_model.c through op_xfer_time_us / op_launch_overhead_us, the
 * description of UPMEM_PROFILE, e.g. server=prim), for every point of the published tables, including those too
 * large to run end to end on this host (2,560 DPUs x 32 MB = 80 GB).
 * Same records as cal_host's end-to-end ones, tagged "model".
 *   xfer_model [desc-file]      (default: the compiled v1A preset; then the
 *                               keys of $UPMEM_PROFILE, as the SDK applies them)
 */
#include "timing.h"

#include <stdio.h>
#include <stdlib.h>

static struct op_machine_desc D;
static struct op_xfer_rank R[OP_TIMING_MAX_RANKS];

/* DPUs numbered from rank 0 up, as dpu_alloc hands them out. */
static unsigned ranks_for(unsigned ndpus)
{
    unsigned nr = (ndpus + 63) / 64;
    for (unsigned i = 0; i < nr; i++) {
        R[i].rank = i;
        R[i].channel = OP_XFER_CHANNEL_AUTO;
        R[i].nr_dpus = ndpus - 64 * i < 64 ? ndpus - 64 * i : 64;
    }
    return nr;
}

static double xfer_at(int to_dpu, enum op_xfer_kind kind, enum op_xfer_target target, unsigned ndpus,
                      double bytes, int after_launch);

static double xfer_us(int to_dpu, enum op_xfer_kind kind, unsigned ndpus, double bytes)
{
    return xfer_at(to_dpu, kind, OP_XFER_MRAM, ndpus, bytes, 0);
}

/* target MRAM or WRAM (__host), first access after a launch or not */
static double xfer_at(int to_dpu, enum op_xfer_kind kind, enum op_xfer_target target, unsigned ndpus,
                      double bytes, int after_launch)
{
    if (kind == OP_XFER_SERIAL) { /* one SDK call per DPU, each on a one-DPU set */
        struct op_xfer_rank one = {0, OP_XFER_CHANNEL_AUTO, 1};
        struct op_xfer_desc x = {.dir = to_dpu ? OP_XFER_TO_DPU : OP_XFER_FROM_DPU, .kind = kind,
                                 .target = target, .bytes_per_dpu = (uint64_t)bytes, .nr_ranks = 1,
                                 .ranks = &one, .after_launch = after_launch};
        return ndpus * op_xfer_time_us(&D, &x);
    }
    struct op_xfer_desc x = {.dir = to_dpu ? OP_XFER_TO_DPU : OP_XFER_FROM_DPU, .kind = kind,
                             .target = target, .bytes_per_dpu = (uint64_t)bytes,
                             .nr_ranks = ranks_for(ndpus), .ranks = R, .after_launch = after_launch};
    return op_xfer_time_us(&D, &x);
}

/* Points with more DPUs than the machine has (a smaller server preset) are left out. */
static int fits(unsigned ndpus)
{
    return ndpus <= 64 * D.nr_ranks;
}

static void rec(const char *table, const char *kind, int to_dpu, unsigned ndpus, double bytes, double us)
{
    if (!fits(ndpus))
        return;
    printf("xfer,model,%s,%s,%s,%u,%.0f,%.3f,%.4f\n", table, kind, to_dpu ? "h2d" : "d2h", ndpus, bytes, us,
           us > 0 ? bytes * ndpus / (us * 1e3) : 0.0);
}

int main(int argc, char **argv)
{
    char err[256];
    if (argc > 1 ? op_machine_desc_load(argv[1], &D, err, sizeof err) : op_machine_desc_preset("v1A", &D)) {
        fprintf(stderr, "xfer_model: %s\n", argc > 1 ? err : "no v1A preset");
        return 1;
    }
    /* the same profile keys as the SDK (e.g. UPMEM_PROFILE=h2d_serial_gbps=0.4) */
    const char *prof = getenv("UPMEM_PROFILE");
    if (prof && *prof && op_machine_desc_apply(&D, prof) < 0) {
        fprintf(stderr, "xfer_model: bad UPMEM_PROFILE '%s'\n", prof);
        return 1;
    }
    /* the server preset this description is (server= key; "" for none of them) */
    printf("server,%s\n", D.server[0] ? D.server : "custom");
    static const unsigned grid_dpus[6] = {64, 128, 320, 640, 1280, 2560};
    static const double grid_size[6] = {32, 2048, 65536, 1048576, 8388608, 33554432};
    for (int d = 1; d >= 0; d--)
        for (int c = 0; c < 6; c++)
            for (int s = 0; s < 6; s++)
                rec("s33", "push", d, grid_dpus[c], grid_size[s], xfer_us(d, OP_XFER_PARALLEL, grid_dpus[c], grid_size[s]));
    static const unsigned prim_dpus[7] = {1, 2, 4, 8, 16, 32, 64};
    for (int c = 0; c < 7; c++) {
        const double s = 33554432;
        rec("s32", "push", 1, prim_dpus[c], s, xfer_us(1, OP_XFER_PARALLEL, prim_dpus[c], s));
        rec("s32", "push", 0, prim_dpus[c], s, xfer_us(0, OP_XFER_PARALLEL, prim_dpus[c], s));
        rec("s32", "broadcast", 1, prim_dpus[c], s, xfer_us(1, OP_XFER_BROADCAST, prim_dpus[c], s));
        rec("s32", "serial", 1, prim_dpus[c], s, xfer_us(1, OP_XFER_SERIAL, prim_dpus[c], s));
        rec("s32", "serial", 0, prim_dpus[c], s, xfer_us(0, OP_XFER_SERIAL, prim_dpus[c], s));
    }
    /* small reads of results right after a launch (calibration-sources §3.4, §3.5, §6):
       xfer,model,small,<what>,d2h,DPUs,bytes,us */
    rec("small", "wram_after_launch", 0, 1, 256, xfer_at(0, OP_XFER_PARALLEL, OP_XFER_WRAM, 1, 256, 1));
    rec("small", "mram_after_launch", 0, 4, 1024, xfer_at(0, OP_XFER_PARALLEL, OP_XFER_MRAM, 4, 1024, 1));
    rec("small", "wram_after_launch", 0, 64, 256, xfer_at(0, OP_XFER_PARALLEL, OP_XFER_WRAM, 64, 256, 1));
    rec("small", "mram_after_launch", 0, 256, 256, xfer_at(0, OP_XFER_PARALLEL, OP_XFER_MRAM, 256, 256, 1));
    for (int d = 1; d >= 0; d--)
        for (unsigned n = 64; n <= 2560; n *= 40)
            rec("small", "wram", d, n, 8, fits(n) ? xfer_at(d, OP_XFER_PARALLEL, OP_XFER_WRAM, n, 8, 0) : 0);
    /* calibration-sources §3.7: PrIM-era SEL on 64 DPUs retrieving 8.4 MB serially (dpu_copy_from per DPU) */
    rec("s37", "serial", 0, 64, 8.4e6 / 64, xfer_us(0, OP_XFER_SERIAL, 64, 8.4e6 / 64));
    static const double totals[5] = {8192, 65536, 1048576, 4194304, 16777216};
    for (int d = 1; d >= 0; d--)
        for (int i = 0; i < 5; i++)
            rec("s35", "push", d, 256, totals[i] / 256, xfer_us(d, OP_XFER_PARALLEL, 256, totals[i] / 256));
    /* curves for the figures: GB/s versus size (1, 2, 5, 10, 20, 40 ranks), versus ranks */
    for (int d = 1; d >= 0; d--)
        for (int c = 0; c < 6; c++)
            for (double s = 8; s <= 64.0 * 1048576; s *= 2)
                rec("curve_size", "push", d, grid_dpus[c], s, xfer_us(d, OP_XFER_PARALLEL, grid_dpus[c], s));
    for (int d = 1; d >= 0; d--)
        for (unsigned r = 1; r <= D.nr_ranks; r++)
            for (double s = 1048576; s <= 33554432; s *= 2)
                rec("curve_ranks", "push", d, r * 64, s, xfer_us(d, OP_XFER_PARALLEL, r * 64, s));
    for (unsigned r = 1; r <= D.nr_ranks; r++) {
        ranks_for(r * 64);
        /* a launch after MRAM transfers: every rank hands its MRAM over */
        printf("launch,model,%u,%.3f\n", r, op_launch_overhead_us(&D, R, r, R, r));
    }
    return 0;
}
