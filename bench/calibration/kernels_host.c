/* SPDX-License-Identifier: MIT */
/* Host side of kernels_dpu.c (the calibration kernels): runs one mode on one DPU,
 * checks the result exactly against a host computation, and prints one CSV
 * record for report.py:
 *   kernel,<name>,<tasklets>,<units>,<cycles>,<cycles per unit>,<ok>
 * usage: kernels_host BINARY TASKLETS */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench.h"

#define BINS 256
#define MAXT 24

static uint64_t cycles_of(struct dpu_set_t set)
{
    struct dpu_set_t dpu;
    struct openpim_dpu_stats st;
    memset(&st, 0, sizeof st);
    DPU_FOREACH(set, dpu)
        DPU_ASSERT(openpim_get_dpu_stats(dpu, &st));
    return st.cycles;
}

static void set_u32(struct dpu_set_t set, const char *sym, uint32_t v)
{
    DPU_ASSERT(dpu_copy_to(set, sym, 0, &v, sizeof v));
}

static uint32_t xs(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: kernels_host BINARY TASKLETS\n");
        return 2;
    }
    const char *bin = argv[1];
    unsigned nt = (unsigned)bench_parse_u64("TASKLETS", argv[2], 0, UINT32_MAX);
    if (nt == 0 || nt > MAXT) {
        fprintf(stderr, "kernels_host: bad tasklet count\n");
        return 2;
    }
    static uint32_t a[MAXT * 16384], b[MAXT * 16384], c[MAXT * 16384];
    uint32_t seed = 2463534242u;
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
        a[i] = xs(&seed) & 0xfff; /* 12-bit values, as HST's image depth */
        b[i] = xs(&seed);
    }
    for (uint32_t mode = 0; mode <= 4; mode++) {
        struct dpu_set_t set;
        DPU_ASSERT(dpu_alloc(1, "nrRanks=1", &set));
        DPU_ASSERT(dpu_load(set, bin, NULL));
        /* per tasklet for the histograms; in all for the others */
        uint32_t n = mode == 0 ? 256 : mode == 1 ? 4096 : mode == 2 ? 4096 : nt * 256 * 16;
        uint32_t zero_hist[BINS] = {0};
        set_u32(set, "mode", mode);
        set_u32(set, "n", n);
        set_u32(set, "seed", 12345);
        DPU_ASSERT(dpu_copy_to(set, "hist", 0, zero_hist, sizeof zero_hist));
        set_u32(set, "done_count", 0);
        set_u32(set, "next_item", 0);
        if (mode == 1 || mode >= 3)
            DPU_ASSERT(dpu_copy_to(set, "in_a", 0, a, nt * 16384 * sizeof a[0]));
        if (mode == 3)
            DPU_ASSERT(dpu_copy_to(set, "in_b", 0, b, nt * 16384 * sizeof b[0]));
        if (mode == 2) {
            static uint64_t zf[4096];
            DPU_ASSERT(dpu_copy_to(set, "flags", 0, zf, sizeof zf));
        }
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
        uint64_t cyc = cycles_of(set);
        struct dpu_set_t one = set; /* the DPU itself: dpu_copy_from takes one DPU */
        struct dpu_set_t d;
        DPU_FOREACH(set, d)
            one = d;
        int ok = 1;
        const char *name = "";
        uint64_t units = 0;
        if (mode <= 1) { /* exact histogram */
            uint32_t h[BINS], ref[BINS] = {0};
            DPU_ASSERT(dpu_copy_from(one, "hist", 0, h, sizeof h));
            for (unsigned t = 0; t < nt; t++) {
                uint32_t s = (12345u ^ (t * 0x9E3779B9u)) | 1u;
                for (uint32_t i = 0; i < n; i++)
                    ref[mode == 0 ? xs(&s) & (BINS - 1) : (a[t * 16384 + i] * BINS) >> 12]++;
            }
            ok = memcmp(h, ref, sizeof h) == 0;
            name = mode == 0 ? "hist_mutex_wram" : "hist_mutex_hstl";
            units = (uint64_t)n * nt;
        } else if (mode == 2) {
            static uint64_t f[4096];
            uint32_t cnt;
            DPU_ASSERT(dpu_copy_from(one, "flags", 0, f, sizeof f));
            DPU_ASSERT(dpu_copy_from(one, "done_count", 0, &cnt, sizeof cnt));
            ok = cnt == n;
            for (uint32_t i = 0; i < n; i++)
                ok &= f[i] == ((i & 1) ? i + 1 : 0);
            name = "trns_step3_sync";
            units = n;
        } else if (mode == 3) {
            DPU_ASSERT(dpu_copy_from(one, "out_c", 0, c, n * sizeof c[0]));
            for (uint32_t i = 0; i < n; i++)
                ok &= c[i] == a[i] + b[i];
            name = "va";
            units = n;
        } else {
            uint64_t p[MAXT], sum = 0, ref = 0;
            DPU_ASSERT(dpu_copy_from(one, "partial", 0, p, nt * sizeof p[0]));
            for (unsigned t = 0; t < nt; t++)
                sum += p[t];
            for (uint32_t i = 0; i < n; i++)
                ref += a[i];
            ok = sum == ref;
            name = "red";
            units = n;
        }
        printf("kernel,%s,%u,%llu,%llu,%.2f,%d\n", name, nt, (unsigned long long)units, (unsigned long long)cyc,
               (double)cyc / (double)units, ok);
        DPU_ASSERT(dpu_free(set));
    }
    return 0;
}
