/* SPDX-License-Identifier: MIT */
/* Calibration suite, host side: runs the DPU calibration programs on the
 * emulator and prints one CSV record per measurement (the first field names
 * the measurement).  run.sh collects the records; report.py compares them
 * with the published values of docs/calibration-sources.md.
 *
 *   cal_host arith  DPU_BINARY TASKLETS        calibration-sources §1.2
 *   cal_host wram   DPU_BINARY TASKLETS        calibration-sources §1.3
 *   cal_host mram   DPU_BINARY TASKLETS        calibration-sources §2.2, §2.3
 *   cal_host xfer   DPU_BINARY MAX_MB          calibration-sources §3.2, §3.3 (end to end through the SDK)
 *   cal_host launch DPU_BINARY                 calibration-sources §3.5
 *
 * Times come from the timing model: DPU cycles from the DPU's perfcounter
 * (as on hardware) and openpim_get_dpu_stats; SDK call times from deltas of
 * openpim_modelled_time_us() around each call.
 */
#define _GNU_SOURCE
#include <dpu.h>
#include <dpu_description.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench.h"

/* The DPU clock of the machine description in use (UPMEM_PROFILE: v1A 350 MHz,
 * v1B 400 MHz, calibration-sources §1.1), as the SDK's dpu_description.h gives it. */
static double freq_mhz_of_profile(void)
{
    dpu_description_t desc;
    DPU_ASSERT(dpu_get_profile_description(NULL, &desc));
    double f = (double)desc->hw.timings.fck_frequency_in_mhz / desc->hw.timings.clock_division;
    dpu_free_description(desc);
    return f;
}
static double FREQ_MHZ;
static uint32_t MACHINE_DPUS; /* DPUs of the machine (a server preset may have fewer than 2,560) */

static uint32_t machine_dpus(void)
{
    struct dpu_set_t set;
    uint32_t n = 0;
    DPU_ASSERT(dpu_alloc(DPU_ALLOCATE_ALL, NULL, &set));
    DPU_ASSERT(dpu_get_nr_dpus(set, &n));
    DPU_ASSERT(dpu_free(set));
    return n;
}

static struct dpu_set_t alloc_load(uint32_t nr_dpus, const char *profile, const char *binary)
{
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(nr_dpus, profile, &set));
    DPU_ASSERT(dpu_load(set, binary, NULL));
    return set;
}

static struct dpu_set_t first_dpu(struct dpu_set_t set)
{
    struct dpu_set_t dpu, first = set;
    DPU_FOREACH (set, dpu) {
        first = dpu;
        break;
    }
    return first;
}

/* Pseudo-random 31-bit values (the range of C's rand(), as PrIM's inputs). */
static uint32_t rnd_state = 12345u;
static uint32_t rnd31(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 17;
    rnd_state ^= rnd_state << 5;
    return rnd_state & 0x7fffffffu;
}

/* ------------------------------------------------------------------------ */
/* 1. Arithmetic throughput (calibration-sources §1.2)                      */
/* ------------------------------------------------------------------------ */

static const char *const type_names[4] = {"int32", "int64", "float", "double"};
static const char *const op_names[4] = {"add", "sub", "mul", "div"};
static const size_t type_size[4] = {4, 8, 4, 8};

static void fill(void *buf, int type, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = rnd31();
        switch (type) {
        case 0: ((int32_t *)buf)[i] = (int32_t)r; break;
        case 1: ((int64_t *)buf)[i] = (int64_t)r; break;
        case 2: ((float *)buf)[i] = (float)r; break;
        default: ((double *)buf)[i] = (double)r; break;
        }
    }
}

#define CHECK_OP(T)                                                                                    \
    do {                                                                                               \
        const T *a = in, *b = out;                                                                     \
        T s = (T)n;                                                                                    \
        for (uint32_t i = 0; i < n; i++) {                                                             \
            T x = a[i];                                                                                \
            switch (op) {                                                                              \
            case 0: x += s; break;                                                                     \
            case 1: x -= s; break;                                                                     \
            case 2: x *= s; break;                                                                     \
            default: x /= s; break;                                                                    \
            }                                                                                          \
            if (memcmp(&x, &b[i], sizeof x) != 0)                                                      \
                return 0;                                                                              \
        }                                                                                              \
    } while (0)

static int check(const void *in, const void *out, int type, int op, uint32_t n)
{
    switch (type) {
    case 0: { /* int32 wraps on the DPU: compute in uint32 */
        const uint32_t *a = in, *b = out;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t x = a[i];
            switch (op) {
            case 0: x += n; break;
            case 1: x -= n; break;
            case 2: x *= n; break;
            default: x = (uint32_t)((int32_t)x / (int32_t)n); break;
            }
            if (x != b[i])
                return 0;
        }
        break;
    }
    case 1: CHECK_OP(int64_t); break;
    case 2: CHECK_OP(float); break;
    default: CHECK_OP(double); break;
    }
    return 1;
}

static int cmd_arith(const char *binary, unsigned tasklets)
{
    const uint32_t n = 1u << 20; /* PrIM's default: 1,048,576 elements per DPU; scalar = n */
    struct dpu_set_t set = alloc_load(1, "nrRanks=1", binary), dpu = first_dpu(set);
    void *in = malloc((size_t)n * 8), *out = malloc((size_t)n * 8);
    if (!in || !out)
        return 1;
    for (int type = 0; type < 4; type++) {
        rnd_state = 12345u;
        fill(in, type, n);
        size_t bytes = (size_t)n * type_size[type];
        DPU_ASSERT(dpu_copy_to(dpu, DPU_MRAM_HEAP_POINTER_NAME, 0, in, bytes));
        for (int op = 0; op < 4; op++) {
            uint32_t kernel = (uint32_t)(type * 4 + op);
            DPU_ASSERT(dpu_copy_to(dpu, "cal_kernel", 0, &kernel, sizeof kernel));
            DPU_ASSERT(dpu_copy_to(dpu, "cal_elems", 0, &n, sizeof n));
            DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
            uint64_t cyc[24] = {0}, max = 0;
            DPU_ASSERT(dpu_copy_from(dpu, "cal_cycles", 0, cyc, tasklets * sizeof(uint64_t)));
            for (unsigned t = 0; t < tasklets; t++)
                if (cyc[t] > max)
                    max = cyc[t];
            DPU_ASSERT(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, (uint32_t)bytes, out, bytes));
            int ok = check(in, out, type, op, n);
            struct openpim_dpu_stats st;
            DPU_ASSERT(openpim_get_dpu_stats(dpu, &st));
            double mops = max ? (double)n * FREQ_MHZ / (double)max : 0.0;
            /* arith,type,op,tasklets,perfcounter cycles (slowest tasklet),MOPS,cycles/op,
               launch cycles,launch instructions,result ok */
            printf("arith,%s,%s,%u,%llu,%.4f,%.3f,%llu,%llu,%d\n", type_names[type], op_names[op], tasklets,
                   (unsigned long long)max, mops, (double)max / n,
                   (unsigned long long)st.cycles, (unsigned long long)st.instructions, ok);
            fflush(stdout);
        }
    }
    free(in);
    free(out);
    DPU_ASSERT(dpu_free(set));
    return 0;
}

/* ------------------------------------------------------------------------ */
/* 2. STREAM on WRAM (calibration-sources §1.3)                             */
/* ------------------------------------------------------------------------ */

static int cmd_wram(const char *binary, unsigned tasklets)
{
    const uint32_t n = 1u << 18; /* uint64 elements per array: 2 MB */
    static const char *const names[4] = {"copy", "add", "scale", "triad"};
    static const unsigned bytes_per_elem[4] = {16, 24, 16, 24};
    struct dpu_set_t set = alloc_load(1, "nrRanks=1", binary), dpu = first_dpu(set);
    uint64_t *a = malloc((size_t)n * 8 * 2), *out = malloc((size_t)n * 8);
    if (!a || !out)
        return 1;
    for (uint32_t i = 0; i < 2 * n; i++)
        a[i] = rnd31();
    const uint64_t scalar = 3;
    for (uint32_t k = 0; k < 4; k++) {
        DPU_ASSERT(dpu_copy_to(dpu, DPU_MRAM_HEAP_POINTER_NAME, 0, a, (size_t)n * 16));
        DPU_ASSERT(dpu_copy_to(dpu, "cal_kernel", 0, &k, sizeof k));
        DPU_ASSERT(dpu_copy_to(dpu, "cal_elems", 0, &n, sizeof n));
        DPU_ASSERT(dpu_copy_to(dpu, "cal_scalar", 0, &scalar, sizeof scalar));
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
        uint64_t cyc[24] = {0}, max = 0;
        DPU_ASSERT(dpu_copy_from(dpu, "cal_cycles", 0, cyc, tasklets * sizeof(uint64_t)));
        for (unsigned t = 0; t < tasklets; t++)
            if (cyc[t] > max)
                max = cyc[t];
        DPU_ASSERT(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, n * 8, out, (size_t)n * 8));
        int ok = 1;
        for (uint32_t i = 0; i < n && ok; i++) {
            uint64_t x = a[i], y = a[n + i], want = k == 0 ? x : k == 1 ? x + y : k == 2 ? scalar * x : x + scalar * y;
            ok = out[i] == want;
        }
        double mbs = max ? (double)n * bytes_per_elem[k] * FREQ_MHZ / (double)max : 0.0;
        /* wram,kernel,tasklets,cycles (slowest tasklet),MB/s,cycles per element,result ok */
        printf("wram,%s,%u,%llu,%.3f,%.3f,%d\n", names[k], tasklets, (unsigned long long)max, mbs,
               (double)max / n, ok);
        fflush(stdout);
    }
    free(a);
    free(out);
    DPU_ASSERT(dpu_free(set));
    return 0;
}

/* ------------------------------------------------------------------------ */
/* 3. MRAM <-> WRAM DMA (calibration-sources §2.2, §2.3)                    */
/* ------------------------------------------------------------------------ */

static void mram_run(struct dpu_set_t set, struct dpu_set_t dpu, unsigned tasklets, uint32_t mode, uint32_t size,
                     uint32_t bytes, double *lat, double *phase)
{
    static const uint32_t no = 0;
    DPU_ASSERT(dpu_copy_to(dpu, "cal_count_instructions", 0, &no, sizeof no));
    DPU_ASSERT(dpu_copy_to(dpu, "cal_mode", 0, &mode, sizeof mode));
    DPU_ASSERT(dpu_copy_to(dpu, "cal_size", 0, &size, sizeof size));
    DPU_ASSERT(dpu_copy_to(dpu, "cal_bytes", 0, &bytes, sizeof bytes));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    uint64_t cyc[24] = {0}, ph = 0;
    uint32_t cnt[24] = {0};
    DPU_ASSERT(dpu_copy_from(dpu, "cal_cycles", 0, cyc, tasklets * sizeof(uint64_t)));
    DPU_ASSERT(dpu_copy_from(dpu, "cal_count", 0, cnt, tasklets * sizeof(uint32_t)));
    DPU_ASSERT(dpu_copy_from(dpu, "cal_phase", 0, &ph, sizeof ph));
    /* latency: mean window of the tasklet with the longest windows */
    double worst = 0;
    for (unsigned t = 0; t < tasklets; t++)
        if (cnt[t] && (double)cyc[t] / cnt[t] > worst)
            worst = (double)cyc[t] / cnt[t];
    *lat = worst;
    *phase = (double)ph;
}

static int cmd_mram(const char *binary, unsigned tasklets)
{
    static const char *const names[3] = {"read", "write", "copy"};
    struct dpu_set_t set = alloc_load(1, "nrRanks=1", binary), dpu = first_dpu(set);
    if (tasklets == 1) {
        /* latency and bandwidth versus DMA size, 1 tasklet (PrIM Fig. 6) */
        for (uint32_t size = 8; size <= 2048; size *= 2)
            for (uint32_t mode = 0; mode < 2; mode++) {
                double lat, phase;
                mram_run(set, dpu, tasklets, mode, size, size * 512, &lat, &phase);
                /* mram_lat,op,size,tasklets,latency cycles,MB/s (size*f/latency) */
                printf("mram_lat,%s,%u,%u,%.3f,%.3f\n", names[mode], size, tasklets, lat,
                       lat > 0 ? size * FREQ_MHZ / lat : 0.0);
            }
        /* diagnosis: DPU instructions the emulator charges inside one timed window */
        for (uint32_t mode = 0; mode < 2; mode++) {
            static const uint32_t yes = 1;
            const uint32_t size = 8, bytes = 8 * 512;
            DPU_ASSERT(dpu_copy_to(dpu, "cal_mode", 0, &mode, sizeof mode));
            DPU_ASSERT(dpu_copy_to(dpu, "cal_size", 0, &size, sizeof size));
            DPU_ASSERT(dpu_copy_to(dpu, "cal_bytes", 0, &bytes, sizeof bytes));
            DPU_ASSERT(dpu_copy_to(dpu, "cal_count_instructions", 0, &yes, sizeof yes));
            DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
            uint64_t sum = 0;
            uint32_t cnt = 0;
            DPU_ASSERT(dpu_copy_from(dpu, "cal_cycles", 0, &sum, sizeof sum));
            DPU_ASSERT(dpu_copy_from(dpu, "cal_count", 0, &cnt, sizeof cnt));
            /* mram_window,op,size,tasklets,instructions per timed window */
            printf("mram_window,%s,%u,%u,%.3f\n", names[mode], size, tasklets, cnt ? (double)sum / cnt : 0.0);
        }
    }
    /* sustained bandwidth of the whole phase, 2048-B DMAs, all tasklets */
    for (uint32_t mode = 0; mode < 3; mode++) {
        const uint32_t size = 2048, bytes = size * 16 * 32;
        double lat, phase;
        mram_run(set, dpu, tasklets, mode, size, bytes, &lat, &phase);
        double moved = (double)bytes * (mode == 2 ? 2 : 1);
        /* mram_bw,op,size,tasklets,phase cycles,MB/s (bytes moved * f / cycles) */
        printf("mram_bw,%s,%u,%u,%.0f,%.3f\n", names[mode], size, tasklets, phase,
               phase > 0 ? moved * FREQ_MHZ / phase : 0.0);
    }
    fflush(stdout);
    DPU_ASSERT(dpu_free(set));
    return 0;
}

/* ------------------------------------------------------------------------ */
/* 4. Host <-> DPU transfers via the SDK (calibration-sources §3.2, §3.3)   */
/* ------------------------------------------------------------------------ */

static uint8_t *xbuf;
static size_t xbuf_size;

static void need_buf(size_t size)
{
    if (size <= xbuf_size)
        return;
    free(xbuf);
    xbuf = malloc(size);
    if (!xbuf) {
        fprintf(stderr, "out of host memory (%zu B)\n", size);
        exit(1);
    }
    memset(xbuf, 0x5a, size);
    xbuf_size = size;
}

/* One parallel push (every DPU from/to the same host buffer: the model only
 * needs the size).  Returns modelled microseconds. */
static double push(struct dpu_set_t set, int to_dpu, size_t size)
{
    struct dpu_set_t dpu;
    need_buf(size);
    DPU_FOREACH (set, dpu)
        DPU_ASSERT(dpu_prepare_xfer(dpu, xbuf));
    double t0 = openpim_modelled_time_us();
    DPU_ASSERT(dpu_push_xfer(set, to_dpu ? DPU_XFER_TO_DPU : DPU_XFER_FROM_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0, size,
                             DPU_XFER_DEFAULT));
    return openpim_modelled_time_us() - t0;
}

static double broadcast(struct dpu_set_t set, size_t size)
{
    need_buf(size);
    double t0 = openpim_modelled_time_us();
    DPU_ASSERT(dpu_broadcast_to(set, DPU_MRAM_HEAP_POINTER_NAME, 0, xbuf, size, DPU_XFER_DEFAULT));
    return openpim_modelled_time_us() - t0;
}

/* dpu_copy_to / dpu_copy_from on each DPU in turn (PrIM's "serial"). */
static double serial(struct dpu_set_t set, int to_dpu, size_t size)
{
    struct dpu_set_t dpu;
    need_buf(size);
    double t0 = openpim_modelled_time_us();
    DPU_FOREACH (set, dpu) {
        if (to_dpu)
            DPU_ASSERT(dpu_copy_to(dpu, DPU_MRAM_HEAP_POINTER_NAME, 0, xbuf, size));
        else
            DPU_ASSERT(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, 0, xbuf, size));
    }
    return openpim_modelled_time_us() - t0;
}

static void xrec(const char *table, const char *kind, int to_dpu, unsigned ndpus, size_t size, double us)
{
    double gbs = us > 0 ? (double)size * ndpus / (us * 1e3) : 0.0;
    /* xfer,e2e,table,kind,dir,DPUs,bytes per DPU,us,GB/s */
    printf("xfer,e2e,%s,%s,%s,%u,%zu,%.3f,%.4f\n", table, kind, to_dpu ? "h2d" : "d2h", ndpus, size, us, gbs);
    fflush(stdout);
}

static int cmd_xfer(const char *binary, unsigned max_mb)
{
    const double budget = (double)max_mb * 1048576.0;
    /* calibration-sources §3.3 grid: 64..2560 DPUs x 32 B..32 MB per DPU, parallel push */
    static const unsigned grid_dpus[6] = {64, 128, 320, 640, 1280, 2560};
    static const size_t grid_size[6] = {32, 2048, 65536, 1u << 20, 8u << 20, 32u << 20};
    for (int c = 0; c < 6; c++) {
        int any = 0;
        if (grid_dpus[c] > MACHINE_DPUS)
            continue;
        for (int s = 0; s < 6; s++)
            any |= (double)grid_size[s] * grid_dpus[c] <= budget;
        if (!any)
            continue;
        struct dpu_set_t set = alloc_load(grid_dpus[c], NULL, binary);
        for (int s = 0; s < 6; s++) {
            if ((double)grid_size[s] * grid_dpus[c] > budget)
                continue;
            xrec("s33", "push", 1, grid_dpus[c], grid_size[s], push(set, 1, grid_size[s]));
            xrec("s33", "push", 0, grid_dpus[c], grid_size[s], push(set, 0, grid_size[s]));
        }
        DPU_ASSERT(dpu_free(set));
    }
    /* calibration-sources §3.2 (PrIM Figs. 10-11): one rank, 1..64 DPUs, 32 MB per DPU */
    static const unsigned prim_dpus[4] = {1, 4, 16, 64};
    const size_t psize = 32u << 20;
    for (int c = 0; c < 4; c++) {
        if ((double)psize * prim_dpus[c] > budget)
            continue;
        struct dpu_set_t set = alloc_load(prim_dpus[c], NULL, binary);
        xrec("s32", "push", 1, prim_dpus[c], psize, push(set, 1, psize));
        xrec("s32", "push", 0, prim_dpus[c], psize, push(set, 0, psize));
        xrec("s32", "broadcast", 1, prim_dpus[c], psize, broadcast(set, psize));
        xrec("s32", "serial", 1, prim_dpus[c], psize, serial(set, 1, psize));
        xrec("s32", "serial", 0, prim_dpus[c], psize, serial(set, 0, psize));
        DPU_ASSERT(dpu_free(set));
    }
    /* calibration-sources §3.5 (Loremkang): 4 ranks = 256 DPUs, SDK push of 8 KB..16 MB in total */
    if (MACHINE_DPUS >= 256) {
        static const size_t totals[5] = {8u << 10, 64u << 10, 1u << 20, 4u << 20, 16u << 20};
        struct dpu_set_t set = alloc_load(256, NULL, binary);
        for (int i = 0; i < 5; i++)
            xrec("s35", "push", 1, 256, totals[i] / 256, push(set, 1, totals[i] / 256));
        for (int i = 0; i < 5; i++)
            xrec("s35", "push", 0, 256, totals[i] / 256, push(set, 0, totals[i] / 256));
        DPU_ASSERT(dpu_free(set));
    }
    free(xbuf);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* 5. Launch overhead (calibration-sources §3.5)                            */
/* ------------------------------------------------------------------------ */

static int cmd_launch(const char *binary)
{
    static const unsigned ranks[8] = {1, 2, 4, 8, 10, 16, 20, 40};
    for (int i = 0; i < 8; i++) {
        if (ranks[i] * 64 > MACHINE_DPUS)
            continue;
        struct dpu_set_t set = alloc_load(ranks[i] * 64, NULL, binary), dpu;
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS)); /* warm: same modelled cost, kept out */
        double t0 = openpim_modelled_time_us();
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
        double us = openpim_modelled_time_us() - t0;
        uint64_t maxc = 0;
        DPU_FOREACH (set, dpu) {
            struct openpim_dpu_stats st;
            DPU_ASSERT(openpim_get_dpu_stats(dpu, &st));
            if (st.cycles > maxc)
                maxc = st.cycles;
        }
        double kernel = maxc / FREQ_MHZ;
        /* launch,ranks,total us,kernel us,overhead us */
        printf("launch,%u,%.3f,%.3f,%.3f\n", ranks[i], us, kernel, us - kernel);
        fflush(stdout);
        DPU_ASSERT(dpu_free(set));
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s arith|wram|mram|xfer|launch DPU_BINARY [ARG]\n", argv[0]);
        return 2;
    }
    const char *cmd = argv[1], *bin = argv[2];
    unsigned arg = argc > 3 ? (unsigned)bench_parse_u64("ARG", argv[3], 0, UINT32_MAX) : 0;
    FREQ_MHZ = freq_mhz_of_profile();
    MACHINE_DPUS = machine_dpus();
    if (!strcmp(cmd, "arith"))
        return cmd_arith(bin, arg);
    if (!strcmp(cmd, "wram"))
        return cmd_wram(bin, arg);
    if (!strcmp(cmd, "mram"))
        return cmd_mram(bin, arg);
    if (!strcmp(cmd, "xfer"))
        return cmd_xfer(bin, arg ? arg : 2048);
    if (!strcmp(cmd, "launch"))
        return cmd_launch(bin);
    fprintf(stderr, "unknown command %s\n", cmd);
    return 2;
}
