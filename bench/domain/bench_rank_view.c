/* SPDX-License-Identifier: MIT */
/* Throughput of the rank view through libdpu: one rank, each of its 8 groups
 * written (openpim_rank_view_write) and read (openpim_rank_view_read) with
 * `per_group` bytes of view, beside a parallel push (dpu_push_xfer) of the same
 * bytes in the per-DPU layout.  Host-side emulator speed, not modelled time;
 * warm MRAM (backed pages).  GB/s = 1e9 bytes of view per second.
 *   bench_rank_view DPU_BINARY [runs] [per_group_bytes] */
#define _POSIX_C_SOURCE 200809L
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum what { VIEW_WRITE, VIEW_READ, PUSH_TO, PUSH_FROM };

static struct dpu_set_t set;
static uint8_t *host;
static size_t per_group;

static void once(enum what w)
{
    struct dpu_set_t dpu;
    uint32_t i;
    switch (w) {
    case VIEW_WRITE:
        for (uint32_t g = 0; g < 8; g++)
            DPU_ASSERT(openpim_rank_view_write(set, g, 0, host + g * per_group, per_group));
        break;
    case VIEW_READ:
        for (uint32_t g = 0; g < 8; g++)
            DPU_ASSERT(openpim_rank_view_read(set, g, 0, host + g * per_group, per_group));
        break;
    case PUSH_TO:
    case PUSH_FROM:
        DPU_FOREACH(set, dpu, i)
            DPU_ASSERT(dpu_prepare_xfer(dpu, host + i * (per_group / 8)));
        DPU_ASSERT(dpu_push_xfer(set, w == PUSH_TO ? DPU_XFER_TO_DPU : DPU_XFER_FROM_DPU,
                                 DPU_MRAM_HEAP_POINTER_NAME, 0, per_group / 8, DPU_XFER_DEFAULT));
        break;
    }
}

static void row(const char *name, enum what w, int runs)
{
    double *gbs = malloc((size_t)runs * sizeof *gbs);
    once(w); /* warm up */
    for (int r = 0; r < runs; r++) {
        double t = now();
        once(w);
        gbs[r] = 8.0 * (double)per_group / (now() - t) / 1e9;
    }
    qsort(gbs, (size_t)runs, sizeof *gbs, cmp);
    printf("%-34s best %7.2f  median %7.2f GB/s\n", name, gbs[runs - 1], gbs[runs / 2]);
    free(gbs);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_rank_view DPU_BINARY [runs] [per_group_bytes]\n");
        return 2;
    }
    int runs = argc > 2 ? (int)bench_parse_u64("runs", argv[2], 1, 1000) : 7;
    per_group = argc > 3 ? bench_parse_u64("per_group_bytes", argv[3], 0, SIZE_MAX) : (size_t)32 << 20;
    if (runs < 1 || per_group < 512 || per_group % 512) {
        fprintf(stderr, "per_group_bytes: a multiple of 512\n");
        return 2;
    }
    DPU_ASSERT(dpu_alloc_ranks(1, "nrRanks=1", &set));
    DPU_ASSERT(dpu_load(set, argv[1], NULL));
    host = aligned_alloc(64, 8 * per_group);
    if (!host)
        return 1;
    for (size_t i = 0; i < 8 * per_group; i++)
        host[i] = (uint8_t)(i * 37 + 1);
    printf("one rank, %zu KiB of view per group = %zu KiB per DPU, %zu MiB in all; best and median of %d runs\n",
           per_group >> 10, per_group >> 13, (8 * per_group) >> 20, runs);
    row("openpim_rank_view_write (8 groups)", VIEW_WRITE, runs);
    row("openpim_rank_view_read (8 groups)", VIEW_READ, runs);
    row("dpu_push_xfer to DPUs (64 DPUs)", PUSH_TO, runs);
    row("dpu_push_xfer from DPUs (64 DPUs)", PUSH_FROM, runs);
    DPU_ASSERT(dpu_free(set));
    return 0;
}
