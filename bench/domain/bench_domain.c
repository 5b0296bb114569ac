/* SPDX-License-Identifier: MIT */
/* Throughput of the domain transposes (machine/domain.c), single thread:
 * for each implementation this CPU runs, both directions, a buffer that stays
 * in cache and one that does not, and two layouts of the 8 DPU buffers:
 *   separate  at different offsets modulo 4 KiB (what a transpose alone costs)
 *   mram      64 MiB apart, as the emulator's MRAMs are: the 8 streams then
 *             fall in the same cache sets at every level
 * GB/s = bytes of host view (= bytes of DPU data) converted per second,
 * 1 GB = 1e9 bytes; best (fastest run) and median of the runs.  memcpy of the
 * same bytes is printed as a yardstick.  Default non-temporal store policy
 * ("nt" rows) plus, where it would use them, the same with plain stores.
 *   bench_domain [runs] [small_bytes] [large_bytes] [nt_threshold_bytes] */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "domain.h"

#include "../bench.h"

#define MRAM_STRIDE ((size_t)64 << 20)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static uint8_t *lines, *dpu[8];

enum op { TO_DPUS, TO_DOMAIN, MEMCPY };

static void once(enum op op, size_t bytes)
{
    size_t n = bytes / 64;
    switch (op) {
    case TO_DPUS:
        op_domain_to_dpus(lines, n, dpu);
        break;
    case TO_DOMAIN:
        op_dpus_to_domain((const uint8_t *const *)dpu, n, lines);
        break;
    case MEMCPY:
        /* the same bytes as a conversion: 8 copies of bytes/8 */
        for (int k = 0; k < 8; k++)
            memcpy(dpu[k], lines + (size_t)k * (bytes / 8), bytes / 8);
        break;
    }
}

/* GB/s of `runs` timed runs, each repeating the operation enough times to last
 * about 5 ms (at least once). */
static void measure(enum op op, size_t bytes, int runs, double *best, double *median)
{
    once(op, bytes); /* warm up: caches, page tables */
    double t0 = now();
    once(op, bytes);
    double one = now() - t0;
    long reps = one > 0.005 ? 1 : (long)(0.005 / (one > 1e-7 ? one : 1e-7)) + 1;
    double *gbs = malloc((size_t)runs * sizeof *gbs);
    for (int r = 0; r < runs; r++) {
        double s = now();
        for (long i = 0; i < reps; i++)
            once(op, bytes);
        double t = now() - s;
        gbs[r] = (double)bytes * (double)reps / t / 1e9;
    }
    qsort(gbs, (size_t)runs, sizeof *gbs, cmp_double);
    *best = gbs[runs - 1];
    *median = runs % 2 ? gbs[runs / 2] : 0.5 * (gbs[runs / 2 - 1] + gbs[runs / 2]);
    free(gbs);
}

static void row(const char *name, const char *layout, const char *stores, size_t bytes, int runs)
{
    double b1, m1, b2, m2;
    char size[32];
    if (bytes >= (1u << 20))
        snprintf(size, sizeof size, "%zu MiB", bytes >> 20);
    else
        snprintf(size, sizeof size, "%zu KiB", bytes >> 10);
    if (!strcmp(name, "memcpy")) {
        measure(MEMCPY, bytes, runs, &b1, &m1);
        printf("%-11s %-9s %-7s %9s   %7.2f %7.2f\n", name, layout, stores, size, b1, m1);
        return;
    }
    measure(TO_DPUS, bytes, runs, &b1, &m1);
    measure(TO_DOMAIN, bytes, runs, &b2, &m2);
    printf("%-11s %-9s %-7s %9s   %7.2f %7.2f   %7.2f %7.2f\n", name, layout, stores, size, b1, m1, b2, m2);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? (int)bench_parse_u64("runs", argv[1], 1, 1000) : 11;
    size_t small = argc > 2 ? bench_parse_u64("small_bytes", argv[2], 0, SIZE_MAX) : (size_t)256 << 10;
    size_t large = argc > 3 ? bench_parse_u64("large_bytes", argv[3], 0, SIZE_MAX) : (size_t)256 << 20;
    size_t nt = argc > 4 ? bench_parse_u64("nt_threshold_bytes", argv[4], 0, SIZE_MAX) : 0;
    if (runs < 1 || small < 512 || large < 512 || small % 512 || large % 512 || small / 8 > MRAM_STRIDE ||
        large / 8 > MRAM_STRIDE) {
        fprintf(stderr, "usage: bench_domain [runs] [small_bytes] [large_bytes] [nt_threshold_bytes]\n"
                        "  (sizes: multiples of 512, at most 512 MiB)\n");
        return 2;
    }
    size_t max = small > large ? small : large;
    lines = aligned_alloc(64, max);
    /* separate: one block, buffer k at k * (max/8 + 576) (9 cache lines more each) */
    uint8_t *sep = aligned_alloc(64, 8 * (max / 8 + 576));
    /* mram: 64 MiB apart, touched only where used */
    uint8_t *mram = mmap(NULL, 8 * MRAM_STRIDE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (!lines || !sep || mram == MAP_FAILED) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < max; i++)
        lines[i] = (uint8_t)(i * 131 + 7);
    for (int k = 0; k < 8; k++) {
        memset(sep + (size_t)k * (max / 8 + 576), k, max / 8);
        memset(mram + (size_t)k * MRAM_STRIDE, k, max / 8);
    }

    op_domain_set_nt_threshold(nt);
    printf("single thread; GB/s = 1e9 bytes of host view per second; best and median of %d runs;\n"
           "non-temporal stores from %zu KiB; default implementation here: %s\n",
           runs, op_domain_nt_threshold() >> 10, op_domain_impl_name());
    printf("%-11s %-9s %-7s %9s   %-15s   %-15s\n", "impl", "layout", "stores", "size", "domain->DPUs",
           "DPUs->domain");
    printf("%-11s %-9s %-7s %9s   %7s %7s   %7s %7s\n", "", "", "", "", "best", "median", "best", "median");
    static const char *const names[] = { "avx512vbmi", "avx512bw", "avx2", "scalar" };
    static const char *const layouts[] = { "separate", "mram" };
    size_t sizes[2] = { small, large };
    for (int s = 0; s < 2; s++) {
        for (int l = 0; l < 2; l++) {
            for (int k = 0; k < 8; k++)
                dpu[k] = l == 0 ? sep + (size_t)k * (max / 8 + 576) : mram + (size_t)k * MRAM_STRIDE;
            for (size_t t = 0; t < sizeof names / sizeof names[0]; t++) {
                if (op_domain_force_impl(names[t]) != 0)
                    continue;
                op_domain_set_nt_threshold(nt);
                int uses_nt = sizes[s] >= op_domain_nt_threshold() && strcmp(names[t], "scalar") != 0;
                row(names[t], layouts[l], uses_nt ? "nt" : "normal", sizes[s], runs);
                if (uses_nt) {
                    op_domain_set_nt_threshold(SIZE_MAX);
                    row(names[t], layouts[l], "normal", sizes[s], runs);
                    op_domain_set_nt_threshold(nt);
                }
            }
            row("memcpy", layouts[l], "libc", sizes[s], runs);
        }
    }
    op_domain_force_impl(NULL);
    return 0;
}
