/* Host-transfer and launch model: calibration against ref §3.3/§3.4 and
 * properties.  Prints the calibration tables. */
#include "timing.h"
#include "check.h"

#include <math.h>
#include <string.h>

static struct op_machine_desc D;

/* ref §3.3 (downmem upmemLut-mramxfer.c, UPMEM cloud server, Nov 2024), ms */
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
 * model reproduces; ref §3.3 warns that several entries are noisy. */
static int reliable(int dir, int si, int ci)
{
    return !(dir == 0 && si == 2 && ci == 5);
}

static struct op_xfer_rank R[OP_TIMING_MAX_RANKS];

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

    /* aggregate GB/s of the full machine: peak at 1-8 MB/DPU, lower at 16/32 MB (ref §3.3) */
    printf("\nfull machine (2,560 DPUs) Host->DPU aggregate: ");
    double gb[5];
    const double sz[5] = {262144, 1048576, 8388608, 16777216, 33554432};
    for (int i = 0; i < 5; i++) {
        gb[i] = sz[i] * 2560 / (xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, sz[i], 2560) * 1e6);
        printf("%.0f KB: %.1f GB/s  ", sz[i] / 1024, gb[i]);
    }
    printf("\n");
    CHECK(gb[3] < gb[2] && gb[4] < gb[3] && gb[4] < gb[1]);
    CHECK(fabs(gb[3] / 53.0 - 1) < 0.1); /* ref §3.3: 53 GB/s at 16 MB/DPU */
    /* one 32-MB push is slower than four 8-MB pushes (the SDK's 8-MB optimum) */
    for (unsigned n = 64; n <= 2560; n *= 40) {
        double one = xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, 33554432, n);
        double four = 4 * xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, 8388608, n);
        printf("%u DPUs: one 32-MB push %.0f ms, four 8-MB pushes %.0f ms\n", n, one, four);
        CHECK(four < one);
    }
}

/* ref §3.4 (downmem wramxfer.c): WRAM (__host) pushes, ms */
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
    printf("WRAM max |error| %.1f%% (two-parameter fit per rank count)\n", 100 * maxe);
    CHECK(maxe < 0.30);
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
    /* ref §3.2: one rank, 32 MB/DPU, broadcast ~16.88 GB/s vs parallel 6.68 */
    double bgbs = 64 * 33554432.0 / (xfer_ms(&D, 0, OP_XFER_BROADCAST, OP_XFER_MRAM, 33554432, 64) * 1e6);
    double pgbs = 64 * 33554432.0 / (xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, 33554432, 64) * 1e6);
    printf("\n1 rank, 32 MB/DPU: broadcast %.2f GB/s (PrIM 16.88), parallel %.2f GB/s (PrIM 6.68)\n", bgbs, pgbs);
    CHECK(fabs(bgbs / 16.88 - 1) < 0.1 && fabs(pgbs / 6.68 - 1) < 0.1);

    /* fewer DPUs in a rank: a 64-B line serves 8 chips, so 1..8 DPUs cost the same */
    double one = xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, 1048576, 1);
    double eight = xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, 1048576, 8);
    double full = xfer_ms(&D, 0, OP_XFER_PARALLEL, OP_XFER_MRAM, 1048576, 64);
    CHECK(one == eight && eight < full);

    /* serial copies, ref §3.7: SEL on 64 DPUs retrieving 8.4 MB serially = 101.6 ms (PrIM-era HW) */
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
    /* ref §3.5 (Loremkang): 4 ranks on 2 DIMMs / 2 channels, SDK launch 183 us */
    struct op_xfer_rank four[4] = {{0, 0, 64}, {1, 0, 64}, {2, 1, 64}, {3, 1, 64}};
    double l4 = op_launch_overhead_us(&D, four, 4);
    printf("\nlaunch overhead: 4 ranks/2 channels %.0f us (measured 183 us)", l4);
    CHECK(fabs(l4 - 183) < 1e-9);
    unsigned n = 40;
    for (unsigned i = 0; i < n; i++)
        R[i] = (struct op_xfer_rank){i, OP_XFER_CHANNEL_AUTO, 64};
    double l40 = op_launch_overhead_us(&D, R, n);
    printf(", 1 rank %.0f us, 40 ranks %.0f us\n", op_launch_overhead_us(&D, R, 1), l40);
    CHECK(l40 > l4);

    /* different server (ref §3.5, SDK 2023.2, 4 ranks, 2 channels): printed, not asserted */
    const double tot[5] = {8192, 65536, 1048576, 4194304, 16777216};
    const double meas[5] = {142, 114, 234, 697, 2351};
    printf("4 ranks/2 channels H->D (Loremkang box, another server/SDK):\n");
    for (int i = 0; i < 5; i++) {
        struct op_xfer_desc x = {OP_XFER_TO_DPU, OP_XFER_PARALLEL, OP_XFER_MRAM, (uint64_t)(tot[i] / 256), 4,
                                 four, 0};
        printf("  total %8.0f B: model %7.0f us, measured %5.0f us\n", tot[i], op_xfer_time_us(&D, &x), meas[i]);
    }

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

int main(void)
{
    op_machine_desc_preset("v1A", &D);
    test_calibration();
    test_wram();
    test_properties();
    test_launch_and_anchors();
    return check_done("test_xfer");
}
