/* SPDX-License-Identifier: MIT */
/* Host-transfer and launch model: calibration against calibration-sources §3.3/§3.4 and
 * properties.  Prints the calibration tables. */
#include "timing.h"
#include "check.h"

#include <math.h>
#include <string.h>

static struct op_machine_desc D;

/* calibration-sources §3.3 (downmem upmemLut-mramxfer.c, UPMEM cloud server, Nov 2024), ms */
static const double sizes[6] = {32, 2048, 65536, 1048576, 8388608, 33554432};
static const char *const size_names[6] = {"32 B", "2 KB", "64 KB", "1 MB", "8 MB", "32 MB"};
static const unsigned dpus[6] = {64, 128, 320, 640, 1280, 2560};
static const double h2d_ms[6][6] = {
    {0.059, 0.089, 0.135, 0.168, 0.201, 0.327}, {0.09, 0.13, 0.17, 0.32, 0.45, 0.65},
    {0.88, 1.41, 2.61, 4.97, 5.24, 4.29},       {6.61, 10.8, 16.8, 38.1, 43.9, 46.8},
    {60.1, 97.2, 134, 228, 268, 372},           {327, 654, 652, 1226, 1265, 1718}};
static const double d2h_ms[6][6] = {
    {0.157, 0.165, 0.185, 0.239, 0.285, 0.432}, {0.19, 0.26, 0.33, 0.62, 0.86, 1.36},
    {2.32, 3.76, 6.16, 11.0, 13.0, 14.9},       {20.1, 47.2, 57.7, 116, 145, 202},
    {188, 412, 464, 1004, 1069, 1540},          {788, 1609, 1875, 4006, 4318, 5947}};

/* Points not asserted: 64 KB x 2,560 DPUs host->DPU takes less time than
 * 1,280 DPUs (4.29 vs 5.24 ms for twice the data), which no shared-resource
 * model reproduces; calibration-sources §3.3 warns that several entries are noisy. */
static int reliable(int dir, int si, int ci)
{
    return !(dir == 0 && si == 2 && ci == 5);
}

static struct op_xfer_rank R[OP_TIMING_MAX_RANKS];

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (1 + fabs(b));
}

static double xfer_ms(const struct op_machine_desc *d, int dir, int kind, int target, double bytes, unsigned ndpus)
{
    unsigned nr = (ndpus + 63) / 64;
    for (unsigned i = 0; i < nr; i++) {
        R[i].rank = i;
        R[i].channel = OP_XFER_CHANNEL_AUTO;
        R[i].nr_dpus = ndpus - 64 * i < 64 ? ndpus - 64 * i : 64;
    }
    struct op_xfer_desc x = {.dir = dir ? OP_XFER_FROM_DPU : OP_XFER_TO_DPU,
                             .kind = (enum op_xfer_kind)kind,
                             .target = (enum op_xfer_target)target,
                             .bytes_per_dpu = (uint64_t)bytes,
                             .nr_ranks = nr,
                             .ranks = R};
    return op_xfer_time_us(d, &x) / 1e3;
}

static void test_calibration(void)
{
    double sum_abs = 0, max_abs = 0;
    unsigned npts = 0, nbad = 0;
    for (int dir = 0; dir < 2; dir++) {
        const double(*tab)[6] = dir ? d2h_ms : h2d_ms;
        printf("\n%s, MRAM parallel push: model ms (reference ms, relative error)\n",
               dir ? "DPU->Host" : "Host->DPU");
        printf("%-6s", "B/DPU");
        for (int c = 0; c < 6; c++)
            printf(" | %5u DPUs (%2u ranks)      ", dpus[c], dpus[c] / 64);
        printf("\n");
        for (int s = 0; s < 6; s++) {
            printf("%-6s", size_names[s]);
            for (int c = 0; c < 6; c++) {
                double m = xfer_ms(&D, dir, OP_XFER_PARALLEL, OP_XFER_MRAM, sizes[s], dpus[c]);
                double e = m / tab[s][c] - 1.0;
                int ok = reliable(dir, s, c);
                printf(" | %8.3f (%8.3f %+6.1f%%)%s", m, tab[s][c], 100 * e, ok ? " " : "*");
                if (ok) {
                    sum_abs += fabs(e);
                    npts++;
                    if (fabs(e) > max_abs)
                        max_abs = fabs(e);
                    if (fabs(e) > 0.20) {
                        nbad++;
                        fprintf(stderr, "calibration point %s %s x %u DPUs off by %+.1f%%\n",
                                dir ? "D->H" : "H->D", size_names[s], dpus[c], 100 * e);
                    }
                }
            }
            printf("\n");
        }
    }
    printf("\n%u asserted points: mean |error| %.1f%%, max |error| %.1f%% (* = not asserted, see test)\n", npts,
           100 * sum_abs / npts, 100 * max_abs);
    CHECK(nbad == 0);
    CHECK(sum_abs / npts < 0.08);

    /* aggregate GB/s of the full machine: peak at 1-8 MB/DPU, lower at 16/32 MB (calibration-sources §3.3) */
    printf("\nfull machine (2,560 DPUs) Host->DPU aggregate: ");
    double gb[5];
    const double sz[5] = {262144, 1048576, 8388608, 16777216, 33554432};
    for (int i = 0; i < 5; i++) {
        gb[i] = sz[i] * 2560 / (xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, sz[i], 2560) * 1e6);
        printf("%.0f KB: %.1f GB/s  ", sz[i] / 1024, gb[i]);
    }
    printf("\n");
    CHECK(gb[3] < gb[2] && gb[4] < gb[3] && gb[4] < gb[1]);
    CHECK(fabs(gb[3] / 53.0 - 1) < 0.1); /* calibration-sources §3.3: 53 GB/s at 16 MB/DPU */
    /* one 32-MB push is slower than four 8-MB pushes (the SDK's 8-MB optimum) */
    for (unsigned n = 64; n <= 2560; n *= 40) {
        double one = xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, 33554432, n);
        double four = 4 * xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, 8388608, n);
        printf("%u DPUs: one 32-MB push %.0f ms, four 8-MB pushes %.0f ms\n", n, one, four);
        CHECK(four < one);
    }
}

/* calibration-sources §3.4 (downmem wramxfer.c): WRAM (__host) pushes, ms */
static void test_wram(void)
{
    const double ws[4] = {8, 256, 2048, 32768};
    const double ref[2][2][4] = {{{0.23, 1.37, 7.5, 120}, {0.57, 3.7, 17.0, 233}},
                                 {{0.13, 1.27, 7.2, 115}, {0.45, 3.2, 18.3, 204}}};
    printf("\nWRAM (__host) parallel push: model ms (reference ms, error)\n");
    double maxe = 0;
    for (int dir = 0; dir < 2; dir++)
        for (int c = 0; c < 2; c++) {
            unsigned n = c ? 2560 : 64;
            printf("%s %4u DPUs:", dir ? "D->H" : "H->D", n);
            for (int s = 0; s < 4; s++) {
                double m = xfer_ms(&D, dir, OP_XFER_PARALLEL, OP_XFER_WRAM, ws[s], n);
                double e = m / ref[dir][c][s] - 1;
                if (fabs(e) > maxe)
                    maxe = fabs(e);
                printf("  %5.0f B %7.3f (%7.3f %+5.1f%%)", ws[s], m, ref[dir][c][s], 100 * e);
            }
            printf("\n");
        }
    printf("WRAM max |error| %.2f%% (the curves go through every point; 3 significant digits)\n", 100 * maxe);
    CHECK(maxe < 0.005);
}

static void test_properties(void)
{
    const double sz[5] = {64, 2048, 65536, 1048576, 33554432};
    const unsigned nd[3] = {64, 640, 2560};
    for (int s = 0; s < 5; s++)
        for (int c = 0; c < 3; c++) {
            double b = xfer_ms(&D, 0, OP_XFER_BROADCAST, OP_XFER_MRAM, sz[s], nd[c]);
            double p = xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, sz[s], nd[c]);
            double se = xfer_ms(&D, 0, OP_XFER_SERIAL, OP_XFER_MRAM, sz[s], nd[c]);
            double from = xfer_ms(&D, 1, OP_XFER_PARALLEL, OP_XFER_MRAM, sz[s], nd[c]);
            double fse = xfer_ms(&D, 1, OP_XFER_SERIAL, OP_XFER_MRAM, sz[s], nd[c]);
            double w = xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_WRAM, sz[s] > 65536 ? 65536 : sz[s], nd[c]);
            double pm = xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, sz[s] > 65536 ? 65536 : sz[s], nd[c]);
            CHECK(b <= p); /* equal where the fixed cost dominates */
            CHECK(b < p || sz[s] <= 2048);
            CHECK(p < se);
            CHECK(from > p);
            CHECK(fse > se);
            CHECK(w > 2 * pm);
            CHECK(w > 10 * pm || sz[s] < 2048);
        }
    /* calibration-sources §3.2: one rank, 32 MB/DPU, broadcast ~16.88 GB/s vs parallel 6.68 */
    double bgbs = 64 * 33554432.0 / (xfer_ms(&D, 0, OP_XFER_BROADCAST, OP_XFER_MRAM, 33554432, 64) * 1e6);
    double pgbs = 64 * 33554432.0 / (xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, 33554432, 64) * 1e6);
    printf("\n1 rank, 32 MB/DPU: broadcast %.2f GB/s (PrIM 16.88), parallel %.2f GB/s (PrIM 6.68)\n", bgbs, pgbs);
    CHECK(fabs(bgbs / 16.88 - 1) < 0.1 && fabs(pgbs / 6.68 - 1) < 0.1);

    /* fewer DPUs in a rank (calibration-sources §3.1, §3.2): DPUs are numbered chip by chip and a
       64-B line carries 8 B for each of the 8 chips at one DPU index, so n DPUs
       move 8 * min(n, 8) * s bytes of lines, with min(n, 8, xfer_threads)
       threads of 8 chips x serial_gbps each.  Exact, 1 MB per DPU, v1A: */
    const double M1 = 1048576;
    double one = xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, M1, 1);
    double two_ = xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, M1, 2);
    double four_ = xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, M1, 4);
    double eight = xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, M1, 8);
    double sixteen = xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, M1, 16);
    double full = xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, M1, 64);
    CHECK(near(one, (59 + 8 * M1 / (8 * 0.39) * 1e-3) / 1e3));    /* 1 thread: the serial rate */
    CHECK(near(two_, one));                                        /* 2 threads, twice the lines */
    CHECK(near(four_, (59 + 32 * M1 / 10.16 * 1e-3) / 1e3));       /* 4 threads: the rank curve */
    CHECK(near(eight, (59 + 64 * M1 / 10.16 * 1e-3) / 1e3));       /* every DPU index: whole lines */
    CHECK(near(sixteen, eight) && near(full, eight));
    double done = xfer_ms(&D, 1, OP_XFER_PARALLEL, OP_XFER_MRAM, M1, 1);
    CHECK(near(done, (157 + 8 * M1 / (8 * 0.115) * 1e-3) / 1e3));
    printf("partial rank, 1 MB/DPU CPU->DPU GB/s: 1 DPU %.3f, 2 %.3f, 4 %.3f, 8 %.3f, 16 %.3f, 64 %.3f\n",
           M1 / (one * 1e6), 2 * M1 / (two_ * 1e6), 4 * M1 / (four_ * 1e6), 8 * M1 / (eight * 1e6),
           16 * M1 / (sixteen * 1e6), 64 * M1 / (full * 1e6));

    /* PrIM's one-rank curve on PrIM's server (calibration-sources §3.2, 32 MB/DPU): 6.68 / 4.74
       GB/s at 64 DPUs (the host caps, server-prim.desc), within 20 %; 1 DPU at
       the serial rates fitted to the PrIM-era one-DPU runs (bench/calibration/
       data: 0.46-0.56 GB/s CPU->DPU at 8-16 MB per DPU, where PrIM's recalled
       Fig. 10 value is 0.33; 0.11 GB/s DPU->CPU, PrIM 0.12); 8 threads (SDK 2020.2) */
    struct op_machine_desc P = D;
    char err[256];
    CHECK(op_machine_desc_server(&P, "prim", err, sizeof err) == 0);
    const double M32 = 33554432;
    static const unsigned pn[7] = {1, 2, 4, 8, 16, 32, 64};
    double ph[7], pd[7];
    printf("PrIM server, one rank, 32 MB/DPU, GB/s (CPU->DPU / DPU->CPU):");
    for (int i = 0; i < 7; i++) {
        ph[i] = pn[i] * M32 / (xfer_ms(&P, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, M32, pn[i]) * 1e6);
        pd[i] = pn[i] * M32 / (xfer_ms(&P, 1, OP_XFER_PARALLEL, OP_XFER_MRAM, M32, pn[i]) * 1e6);
        printf(" %u: %.3f/%.3f", pn[i], ph[i], pd[i]);
        if (i)
            CHECK(ph[i] >= ph[i - 1] && pd[i] >= pd[i - 1]);
    }
    printf("\n");
    CHECK(fabs(ph[0] / 0.51 - 1) <= 0.2 && fabs(pd[0] / 0.12 - 1) <= 0.2);
    CHECK(fabs(ph[6] / 6.68 - 1) <= 0.2 && fabs(pd[6] / 4.74 - 1) <= 0.2);
    CHECK(ph[5] < 0.6 * ph[6] && pd[5] < 0.6 * pd[6]); /* "reaches 6.68 only at 64 DPUs" */
    /* exact: 1 DPU = one thread; 64 DPUs = the host cap (= the rank curve's 32-MB point) */
    CHECK(near(ph[0], M32 / ((59 + 8 * M32 / (8 * 0.546) * 1e-3) * 1e3)));
    CHECK(near(ph[6], 64 * M32 / ((59 + 64 * M32 / 6.68 * 1e-3) * 1e3)));
    CHECK(near(pd[6], 64 * M32 / ((70.6 + 64 * M32 / 4.74 * 1e-3) * 1e3)));
    /* 4 threads (today's SDK) could not reach PrIM's 4.74 GB/s DPU->CPU: 8 chips x 0.1187 x 4 = 3.80 */
    struct op_machine_desc P4 = P;
    P4.xfer_threads = 4;
    CHECK(near(64 * M32 / (xfer_ms(&P4, 1, OP_XFER_PARALLEL, OP_XFER_MRAM, M32, 64) * 1e6),
               64 * M32 / ((70.6 + 64 * M32 / (4 * 8 * 0.1187) * 1e-3) * 1e3)));
    /* a partial rank on the PrIM server: 4 DPUs (one chip, 4 DPU indices) x 1 MB move
       32 MB of lines with 4 threads of 8 x 0.546 GB/s (17.47 GB/s, just under the
       rank's line rate, 17.71 at 1 MB); the host cap on the DPUs' own 4 MB (6.68 GB/s)
       does not bind: 2.2 GB/s, 1.25-2.6 measured on 4 DPUs at 1 MB (bench/calibration/data) */
    const double M1p = 1048576;
    CHECK(near(xfer_ms(&P, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, M1p, 4), (59 + 32 * M1p / (4 * 8 * 0.546) * 1e-3) / 1e3));
    /* the host cap counts the DPUs' own bytes: 64 DPUs x 1 MB stop at 6.68 GB/s, not the line rate */
    CHECK(near(xfer_ms(&P, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, M1p, 64), (59 + 64 * M1p / 6.68 * 1e-3) / 1e3));

    /* small transfers (a few bytes per DPU, result variables), read right after
       a launch.  WRAM (__host) goes through the control interface: no MRAM mux
       hand-back; one DPU's dpu_copy_from costs a WRAM call.  MRAM pays it. */
    struct op_xfer_rank r1 = {0, OP_XFER_CHANNEL_AUTO, 1}, r64 = {0, OP_XFER_CHANNEL_AUTO, 64};
    struct op_xfer_desc sx = {OP_XFER_FROM_DPU, OP_XFER_PARALLEL, OP_XFER_WRAM, 8, 1, &r64, 1};
    CHECK(near(op_xfer_time_us(&D, &sx), 93.2 + 64 * 8 * 71.8e-3)); /* calibration-sources §3.4: 0.13 ms */
    sx.kind = OP_XFER_SERIAL;
    sx.ranks = &r1;
    CHECK(near(op_xfer_time_us(&D, &sx), 93.2 + 8 * 71.8e-3));
    sx.target = OP_XFER_MRAM;
    CHECK(near(op_xfer_time_us(&D, &sx), 157 + 8 / 0.115e3 + 46));
    /* PrIM-era small reads (calibration-sources §6): BS, 1 DPU, 16 tasklets x 16 B of WRAM results, 0.088 ms;
       GEMV, 4 DPUs, MRAM after the launch, 0.12 ms (size not published: 1 KB/DPU here);
       RED, 64 DPUs x 256 B of WRAM results, 1.10-1.22 ms (calibration-sources §3.4) */
    struct op_xfer_desc bs = {OP_XFER_FROM_DPU, OP_XFER_PARALLEL, OP_XFER_WRAM, 256, 1, &r1, 1};
    struct op_xfer_rank r4 = {0, OP_XFER_CHANNEL_AUTO, 4};
    struct op_xfer_desc gemv = {OP_XFER_FROM_DPU, OP_XFER_PARALLEL, OP_XFER_MRAM, 1024, 1, &r4, 1};
    struct op_xfer_desc red = {OP_XFER_FROM_DPU, OP_XFER_PARALLEL, OP_XFER_WRAM, 256, 1, &r64, 1};
    double tbs = op_xfer_time_us(&P, &bs), tgemv = op_xfer_time_us(&P, &gemv), tred = op_xfer_time_us(&P, &red);
    printf("PrIM server small reads after a launch: BS 1 DPU %.1f us (HW 88), GEMV 4 DPUs %.1f us (HW 120), "
           "RED 64 DPUs %.0f us (HW 1100-1220)\n", tbs, tgemv, tred);
    CHECK(near(tbs, 77.4 + 256 * 71.8e-3)); /* server-prim sets only the fixed cost */
    CHECK(near(tgemv, 70.6 + 4 * 8 * 1024 / 2.35 * 1e-3 + 46)); /* rank curve (2-KB point) above 4 threads */
    CHECK(fabs(tbs / 88 - 1) <= 0.2 && fabs(tgemv / 120 - 1) <= 0.2 && tred >= 0.8 * 1100 && tred <= 1.2 * 1220);

    /* serial copies, calibration-sources §3.7: SEL on 64 DPUs retrieving 8.4 MB serially = 101.6 ms (PrIM-era HW) */
    double sel = xfer_ms(&D, 1, OP_XFER_SERIAL, OP_XFER_MRAM, 8.4e6 / 64, 64);
    printf("serial D->H, 64 DPUs x 131 KB: model %.1f ms, PrIM-era hardware (SEL) 101.6 ms\n", sel);

    /* ranks on one channel serialise; on distinct channels they do not */
    struct op_xfer_rank two[2] = {{0, 0, 64}, {1, 0, 64}};
    struct op_xfer_desc x = {OP_XFER_TO_DPU, OP_XFER_PARALLEL, OP_XFER_MRAM, 33554432, 2, two, 0};
    double same = op_xfer_time_us(&D, &x);
    two[1].channel = 1;
    double diff = op_xfer_time_us(&D, &x);
    CHECK(diff < 0.6 * same);
    /* the first access after a launch pays the mux hand-back */
    x.after_launch = 1;
    CHECK(fabs(op_xfer_time_us(&D, &x) - diff - D.launch_mux_back_us) < 1e-9);
    /* nothing to move costs nothing */
    x.bytes_per_dpu = 0;
    CHECK(op_xfer_time_us(&D, &x) == 0);
}

static void test_launch_and_anchors(void)
{
    /* calibration-sources §3.5 (Loremkang): 4 ranks on 2 DIMMs / 2 channels, SDK launch 183 us */
    struct op_xfer_rank four[4] = {{0, 0, 64}, {1, 0, 64}, {2, 1, 64}, {3, 1, 64}};
    double l4 = op_launch_overhead_us(&D, four, 4, four, 4);
    printf("\nlaunch overhead: 4 ranks/2 channels %.0f us (measured 183 us)", l4);
    CHECK(fabs(l4 - 183) < 1e-9);
    /* only the ranks whose MRAM the host holds hand it over, those of a channel in turn */
    CHECK(op_launch_overhead_us(&D, four, 4, NULL, 0) == D.launch_base_us);
    struct op_xfer_rank one_chan[2] = {four[0], four[1]}, two_chans[2] = {four[0], four[2]};
    CHECK(fabs(op_launch_overhead_us(&D, four, 4, one_chan, 2) - (D.launch_base_us + 2 * D.launch_mux_us)) < 1e-9);
    CHECK(fabs(op_launch_overhead_us(&D, four, 4, two_chans, 2) - (D.launch_base_us + D.launch_mux_us)) < 1e-9);
    CHECK(op_launch_overhead_us(&D, NULL, 0, four, 4) == 0); /* no rank launched, nothing to pay */
    /* the side each rank's MRAM is on: the host's at first; a launch takes it to the DPUs, an MRAM access back */
    struct op_mram_side side = {{0}};
    struct op_xfer_rank held[4];
    CHECK(op_mram_side_dpus(&side, four, 4) == 0);
    CHECK(op_mram_side_launch(&side, four, 4, held) == 4 && held[3].rank == four[3].rank);
    CHECK(op_mram_side_held(&side, four, 4, held) == 0 && op_mram_side_dpus(&side, four, 4) == 1);
    CHECK(op_mram_side_take(&side, two_chans, 2) == 1 && op_mram_side_take(&side, two_chans, 2) == 0);
    CHECK(op_mram_side_held(&side, four, 4, held) == 2 && held[0].rank == four[0].rank && held[1].rank == four[2].rank);
    CHECK(op_mram_side_launch(&side, four, 4, held) == 2 && op_mram_side_held(&side, four, 4, held) == 0);
    unsigned n = 40;
    for (unsigned i = 0; i < n; i++)
        R[i] = (struct op_xfer_rank){i, OP_XFER_CHANNEL_AUTO, 64};
    double l40 = op_launch_overhead_us(&D, R, n, R, n);
    printf(", 1 rank %.0f us, 40 ranks %.0f us\n", op_launch_overhead_us(&D, R, 1, R, 1), l40);
    CHECK(l40 > l4);

    /* different server (calibration-sources §3.5, SDK 2023.2, 4 ranks, 2 channels): printed, not asserted */
    const double tot[5] = {8192, 65536, 1048576, 4194304, 16777216};
    const double meas[5] = {142, 114, 234, 697, 2351};
    printf("4 ranks/2 channels H->D (Loremkang box, another server/SDK):\n");
    for (int i = 0; i < 5; i++) {
        struct op_xfer_desc x = {OP_XFER_TO_DPU, OP_XFER_PARALLEL, OP_XFER_MRAM, (uint64_t)(tot[i] / 256), 4,
                                 four, 0};
        printf("  total %8.0f B: model %7.0f us, measured %5.0f us\n", tot[i], op_xfer_time_us(&D, &x), meas[i]);
    }

    /* the same box as its own server preset (server=loremkang): every published
       point within 20 %, receive right after a launch 274-277 us, launch 183 us */
    struct op_machine_desc L = D;
    char err[256];
    CHECK(op_machine_desc_server(&L, "loremkang", err, sizeof err) == 0);
    struct op_xfer_rank auto4[4];
    for (unsigned i = 0; i < 4; i++)
        auto4[i] = (struct op_xfer_rank){i, OP_XFER_CHANNEL_AUTO, 64};
    const double dtot[3] = {65536, 1048576, 16777216}, dmeas[3] = {183, 326, 4018};
    printf("server=loremkang:");
    for (int i = 0; i < 8; i++) {
        int d2h = i >= 5;
        double total = d2h ? dtot[i - 5] : tot[i], m = d2h ? dmeas[i - 5] : meas[i];
        struct op_xfer_desc x = {d2h ? OP_XFER_FROM_DPU : OP_XFER_TO_DPU, OP_XFER_PARALLEL, OP_XFER_MRAM,
                                 (uint64_t)(total / 256), 4, auto4, 0};
        double t = op_xfer_time_us(&L, &x);
        printf(" %s %.0f B %.0f us (%.0f)", d2h ? "D->H" : "H->D", total, t, m);
        CHECK(fabs(t / m - 1) <= 0.2);
    }
    struct op_xfer_desc rx = {OP_XFER_FROM_DPU, OP_XFER_PARALLEL, OP_XFER_MRAM, 256, 4, auto4, 1};
    double after = op_xfer_time_us(&L, &rx);
    printf("; receive after launch %.0f us (274-277)\n", after);
    /* 2 ranks per channel, each with 4 threads of 8 x 0.115 GB/s (above the 2-KB curve point, 4.1 GB/s) */
    CHECK(near(after, 175 + 2 * (64 * 256 / 4) / (8 * 0.115) * 1e-3 + 2 * 46));
    CHECK(near(op_launch_overhead_us(&L, auto4, 4, auto4, 4), 183));

    /* what-if: the same machine with every rank on its own channel */
    struct op_machine_desc w = D;
    char prof[1024] = "channels=40,rank_channels=0";
    for (unsigned i = 1; i < 40; i++) {
        size_t l = strlen(prof);
        snprintf(prof + l, sizeof prof - l, ":%u", i);
    }
    CHECK(op_machine_desc_apply(&w, prof) == 2);
    double base = xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, 8388608, 640);
    double what = xfer_ms(&w, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, 8388608, 640);
    printf("what-if one channel per rank: 640 DPUs x 8 MB H->D %.0f -> %.0f ms\n", base, what);
    CHECK(what < base);
}

/* One call on full ranks 0..n-1 (channels from the description). */
static double full_us(const struct op_machine_desc *d, enum op_xfer_dir dir, enum op_xfer_kind kind,
                      enum op_xfer_target target, double bytes, unsigned n, int after_launch)
{
    struct op_xfer_rank r[OP_TIMING_MAX_RANKS];
    for (unsigned i = 0; i < n; i++)
        r[i] = (struct op_xfer_rank){i, OP_XFER_CHANNEL_AUTO, 64};
    struct op_xfer_desc x = {dir, kind, target, (uint64_t)bytes, n, r, after_launch};
    return op_xfer_time_us(d, &x);
}

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b);
}

/* [XferStudy]: the host's last-level cache (host_llc_bytes) and the WRAM
 * broadcast factor, against the formulas of xfer_model.c with v1A's curves
 * (h2d: rank 4.883/4.881/10.16/9.178/6.848, channel 4.773/5.781/11.6/10.21/6.848
 * GB/s at 2 KB/64 KB/1/8/32 MiB, broadcast x2.5, fixed 59/89/../327 us). */
static void test_llc_and_wram_bcast(void)
{
    const double MiB = 1048576, bs = 2.5;
    const enum op_xfer_dir TO = OP_XFER_TO_DPU;
    struct op_machine_desc c = D;
    /* hostile values are refused and change nothing */
    CHECK(op_machine_desc_apply(&c, "host_llc_bytes=-1") < 0 && c.host_llc_bytes == 0);
    CHECK(op_machine_desc_apply(&c, "h2d_wram_bcast_factor=-3") < 0 && c.h2d.wram_bcast_factor == 0);
    CHECK(op_machine_desc_apply(&c, "host_llc_bytes=4194304") == 1);
    /* one rank alone on its channel: F(1) + 64 s / (rank rate x 2.5) (cap and thread limit do not bind);
     * a block that fits the cache runs at the curve's best rate up to its size: 1 MiB's 10.16 GB/s */
    double s = 4 * MiB;
    double f = 2.0 / 3.0, at_s = (1 - f) / 10.16 + f / 9.178; /* ns/B at 4 MiB, log2 between 1 and 8 MiB */
    CHECK(close_to(full_us(&c, TO, OP_XFER_BROADCAST, OP_XFER_MRAM, s, 1, 0), 59 + 64 * s / (10.16 * bs) * 1e-3));
    CHECK(close_to(full_us(&D, TO, OP_XFER_BROADCAST, OP_XFER_MRAM, s, 1, 0), 59 + 64 * s * at_s / bs * 1e-3));
    /* one line more than the cache: the curve at s (memory-bound like per-DPU data) */
    s = 4 * MiB + 8;
    f = (log2(s) - 20) / 3;
    CHECK(close_to(full_us(&c, TO, OP_XFER_BROADCAST, OP_XFER_MRAM, s, 1, 0),
                   59 + 64 * s * ((1 - f) / 10.16 + f / 9.178) / bs * 1e-3));
    /* two ranks on one channel (ranks 0 and 1): the channel curve's best, 11.6 GB/s at 1 MiB; F(2) = 89 us */
    s = 2 * MiB;
    CHECK(close_to(full_us(&c, TO, OP_XFER_BROADCAST, OP_XFER_MRAM, s, 2, 0), 89 + 128 * s / (11.6 * bs) * 1e-3));
    /* 40 ranks, 8 MiB, 11 MiB cache: no host cap for a cached source (the cap curve's best up to 8 MiB is
     * 64 KB's "none"): 4 ranks on the busiest channel x (1 + 0.1099 log2 12 channels); F(40) = 327 us.
     * Without the cache the cap binds: 2,560 DPUs x s / (56.37 GB/s x 2.5) */
    CHECK(op_machine_desc_apply(&c, "host_llc_bytes=11534336") == 1);
    s = 8 * MiB;
    double cached = 327 + 256 * s / (11.6 * bs) * (1 + 0.1099 * log2(12.0)) * 1e-3;
    double capped = 327 + 2560 * s / (56.37 * bs) * 1e-3;
    CHECK(close_to(full_us(&c, TO, OP_XFER_BROADCAST, OP_XFER_MRAM, s, 40, 0), cached));
    CHECK(close_to(full_us(&D, TO, OP_XFER_BROADCAST, OP_XFER_MRAM, s, 40, 0), capped));
    printf("\nhost_llc_bytes = 11 MiB, broadcast 8 MiB on 40 ranks: %.0f us (no cache model: %.0f us)\n", cached,
           capped);
    /* the cache changes broadcasts only: pushes and retrievals keep their times */
    for (unsigned n = 1; n <= 40; n *= 40)
        for (s = 2048; s <= 64 * MiB; s *= 8) {
            CHECK(full_us(&c, TO, OP_XFER_PARALLEL, OP_XFER_MRAM, s, n, 0) ==
                  full_us(&D, TO, OP_XFER_PARALLEL, OP_XFER_MRAM, s, n, 0));
            CHECK(full_us(&c, OP_XFER_FROM_DPU, OP_XFER_PARALLEL, OP_XFER_MRAM, s, n, 0) ==
                  full_us(&D, OP_XFER_FROM_DPU, OP_XFER_PARALLEL, OP_XFER_MRAM, s, n, 0));
        }

    /* WRAM broadcast: off (v1A), a parallel WRAM push: 193.2 us + 64 DPUs x s x ns(s) on one rank, ns(4 KB)
       a quarter of the way (in log2 s) from 55.7 ns at 2 KB to 57.1 ns at 32 KB */
    CHECK(close_to(full_us(&D, TO, OP_XFER_BROADCAST, OP_XFER_WRAM, 4096, 1, 0),
                   193.2 + 64 * 4096 * (55.7 + 0.25 * (57.1 - 55.7)) * 1e-3));
    /* factor 3: three times the same broadcast into MRAM, at every size and rank count; after a launch
     * the MRAM one pays the mux hand-back, the WRAM one (control interface) does not */
    struct op_machine_desc w = D;
    CHECK(op_machine_desc_apply(&w, "h2d_wram_bcast_factor=3") == 1);
    const unsigned ns[3] = {1, 10, 40};
    for (int i = 0; i < 3; i++)
        for (s = 8; s <= 65536; s *= 8) {
            double m = full_us(&w, TO, OP_XFER_BROADCAST, OP_XFER_MRAM, s, ns[i], 0);
            CHECK(close_to(full_us(&w, TO, OP_XFER_BROADCAST, OP_XFER_WRAM, s, ns[i], 0), 3 * m));
            CHECK(close_to(full_us(&w, TO, OP_XFER_BROADCAST, OP_XFER_WRAM, s, ns[i], 1), 3 * m));
            CHECK(close_to(full_us(&w, TO, OP_XFER_BROADCAST, OP_XFER_MRAM, s, ns[i], 1),
                           m + D.launch_mux_back_us * (ns[i] == 1 ? 1 : 4)));
            /* parallel WRAM pushes are not broadcasts */
            CHECK(full_us(&w, TO, OP_XFER_PARALLEL, OP_XFER_WRAM, s, ns[i], 0) ==
                  full_us(&D, TO, OP_XFER_PARALLEL, OP_XFER_WRAM, s, ns[i], 0));
        }
}

/* The data-transfer study's server (presets/server-xferstudy.desc, [XferStudy]):
 * the paper's statements as properties of the model (the report, section
 * transfer_study, compares them with the paper). */
static void test_xferstudy_server(void)
{
    const double MiB = 1048576;
    const enum op_xfer_dir TO = OP_XFER_TO_DPU;
    struct op_machine_desc x = D;
    char err[256];
    CHECK(op_machine_desc_server(&x, "xferstudy", err, sizeof err) == 0);
    CHECK(x.host_llc_bytes == 11534336 && x.h2d.wram_bcast_factor == 3 && x.nr_ranks == 40);
    const unsigned ns[6] = {1, 2, 5, 10, 20, 40};
    printf("\nserver xferstudy ([XferStudy]), 64 MiB broadcast in blocks, ms:\n");
    for (int i = 0; i < 6; i++) {
        double best = 0, tb = 0, t64 = 0, t8 = 0;
        printf("%2u ranks:", ns[i]);
        for (double b = MiB; b <= 64 * MiB; b *= 2) {
            double t = (64 * MiB / b) * full_us(&x, TO, OP_XFER_BROADCAST, OP_XFER_MRAM, b, ns[i], 0);
            printf(" %2.0f MiB %6.0f", b / MiB, t / 1e3);
            if (best == 0 || t < tb)
                best = b, tb = t;
            if (b == 8 * MiB)
                t8 = t;
            if (b == 64 * MiB)
                t64 = t;
        }
        printf("  8x8/64 %.3f\n", t8 / t64);
        CHECK(best == 8 * MiB); /* paper Fig. 3: 8 MB is the best block for every series */
        if (ns[i] == 10)
            CHECK(fabs(t8 / t64 / 0.70 - 1) < 0.2); /* paper Fig. 3: 30 % faster on 10 ranks */
        /* paper Fig. 4: broadcast beats per-DPU data, more while the block fits the 11 MB L3 */
        double g8 = full_us(&x, TO, OP_XFER_PARALLEL, OP_XFER_MRAM, 8 * MiB, ns[i], 0) /
                    full_us(&x, TO, OP_XFER_BROADCAST, OP_XFER_MRAM, 8 * MiB, ns[i], 0);
        double g16 = full_us(&x, TO, OP_XFER_PARALLEL, OP_XFER_MRAM, 16 * MiB, ns[i], 0) /
                     full_us(&x, TO, OP_XFER_BROADCAST, OP_XFER_MRAM, 16 * MiB, ns[i], 0);
        CHECK(g16 > 1 && g8 > 1.05 * g16);
        /* paper Fig. 5: retrieval at half the sending rate (fixed costs aside) */
        for (double s = MiB; s <= 64 * MiB; s *= 8) {
            double r = full_us(&x, OP_XFER_FROM_DPU, OP_XFER_PARALLEL, OP_XFER_MRAM, s, ns[i], 0) /
                       full_us(&x, TO, OP_XFER_PARALLEL, OP_XFER_MRAM, s, ns[i], 0);
            CHECK(fabs(r / 2 - 1) < 0.02);
        }
        /* paper Fig. 6: MRAM broadcast 3x faster than WRAM */
        CHECK(close_to(full_us(&x, TO, OP_XFER_BROADCAST, OP_XFER_WRAM, 4096, ns[i], 0),
                       3 * full_us(&x, TO, OP_XFER_BROADCAST, OP_XFER_MRAM, 4096, ns[i], 0)));
    }
}

int main(void)
{
    op_machine_desc_preset("v1A", &D);
    test_calibration();
    test_wram();
    test_properties();
    test_launch_and_anchors();
    test_llc_and_wram_bcast();
    test_xferstudy_server();
    return check_done("test_xfer");
}
