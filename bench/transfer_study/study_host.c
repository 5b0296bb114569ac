/* SPDX-License-Identifier: MIT */
/* Data-transfer study ([XferStudy]), host side, end to end through the
 * SDK: allocates RANKS ranks of the emulated server, performs the transfers of
 * the plan (plan.h) whose host memory fits BUDGET_MB, and prints one record per
 * point with the modelled time of its SDK calls (openpim_modelled_time_us()
 * deltas):
 *
 *   study_host DPU_BINARY RANKS BUDGET_MB
 *   -> e2e,KIND,RANKS,BYTES_PER_DPU,BLOCK,MODELLED_US
 *      skip,KIND,RANKS,BYTES_PER_DPU,BLOCK,NEEDED_MB     (over the budget)
 *      mem,RANKS,EMULATOR_USED_MB,HOST_PEAK_RSS_MB
 *
 * Host memory of a point: the emulator backs MRAM only where it is written
 * (the largest region written so far stays backed: size x DPUs), and a
 * different-data transfer needs size x DPUs of host buffers; a point runs when
 * both together stay under 90 % of the budget (the emulator's own limit,
 * hostMemoryLimitMB, is set to the budget too).  Every transfer is checked:
 * broadcast and sent data are read back from the first and last DPU, every
 * DPU's retrieved data is compared with what was sent; a
 * mismatch exits 1. */
#define _GNU_SOURCE
#include <dpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "plan.h"

#include "../bench.h"

struct ctx {
    struct dpu_set_t set;
    unsigned ranks, nr_dpus;
    uint64_t budget;  /* bytes */
    double mram;      /* MRAM bytes the emulator backs so far (largest region written) */
    uint8_t *check;   /* read-back buffer */
};

static void *xmalloc(uint64_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "study_host: out of host memory (%llu B)\n", (unsigned long long)n);
        exit(1);
    }
    return p;
}

/* Deterministic content: DPU `seed`'s data differs from every other DPU's. */
static void fill(uint8_t *b, uint64_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1u;
    for (uint64_t i = 0; i + 4 <= n; i += 4) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        memcpy(b + i, &x, 4);
    }
}

static void fail(const char *what, const struct study_point *p, unsigned dpu)
{
    fprintf(stderr, "study_host: WRONG DATA after %s %llu B (block %llu) on DPU %u\n", what,
            (unsigned long long)p->size, (unsigned long long)p->block, dpu);
    exit(1);
}

/* Reads `size` bytes back from the first and last DPU and compares. */
static void check_dpus(struct ctx *c, const struct study_point *p, const char *sym, uint8_t *const *want)
{
    struct dpu_set_t dpu;
    unsigned i;
    DPU_FOREACH (c->set, dpu, i) {
        if (i != 0 && i != c->nr_dpus - 1)
            continue;
        DPU_ASSERT(dpu_copy_from(dpu, sym, 0, c->check, p->size));
        if (memcmp(c->check, want[p->kind == STUDY_TO ? i : 0], p->size))
            fail(study_kind_name[p->kind], p, i);
    }
}

/* Host bytes a point needs beyond the MRAM it writes: per-DPU buffers. */
static double host_bytes(const struct study_point *p, unsigned nr_dpus)
{
    return (double)p->size * (p->kind == STUDY_TO || p->kind == STUDY_FROM ? nr_dpus + 1 : 2);
}

static uint8_t **alloc_per_dpu(const struct ctx *c, uint64_t size, int filled)
{
    uint8_t **b = xmalloc(sizeof *b * c->nr_dpus);
    for (unsigned i = 0; i < c->nr_dpus; i++) {
        b[i] = xmalloc(size);
        if (filled)
            fill(b[i], size, i + 1);
        else
            memset(b[i], 0, size);
    }
    return b;
}

static void free_per_dpu(const struct ctx *c, uint8_t **b)
{
    for (unsigned i = 0; i < c->nr_dpus; i++)
        free(b[i]);
    free(b);
}

static void run_point(const struct study_point *p, void *arg)
{
    struct ctx *c = arg;
    struct dpu_set_t dpu;
    unsigned i;
    double region = p->kind == STUDY_WBCAST ? 0 : (double)p->size * c->nr_dpus;
    double need = (region > c->mram ? region : c->mram) + host_bytes(p, c->nr_dpus);
    if (need > 0.9 * (double)c->budget) {
        printf("skip,%s,%u,%llu,%llu,%.0f\n", study_kind_name[p->kind], c->ranks, (unsigned long long)p->size,
               (unsigned long long)p->block, need / MB);
        return;
    }
    if (region > c->mram)
        c->mram = region;
    double t0 = 0, us = 0;
    switch (p->kind) {
    case STUDY_BCAST:
    case STUDY_WBCAST: {
        const char *sym = p->kind == STUDY_BCAST ? DPU_MRAM_HEAP_POINTER_NAME : "wram_buf";
        uint8_t *src = xmalloc(p->size);
        fill(src, p->size, 0x5eed);
        t0 = openpim_modelled_time_us();
        for (uint64_t off = 0; off < p->size; off += p->block)
            DPU_ASSERT(dpu_broadcast_to(c->set, sym, (uint32_t)off, src + off, p->block, DPU_XFER_DEFAULT));
        us = openpim_modelled_time_us() - t0;
        check_dpus(c, p, sym, &src);
        free(src);
        break;
    }
    case STUDY_TO: {
        uint8_t **bufs = alloc_per_dpu(c, p->size, 1);
        DPU_FOREACH (c->set, dpu, i)
            DPU_ASSERT(dpu_prepare_xfer(dpu, bufs[i]));
        t0 = openpim_modelled_time_us();
        DPU_ASSERT(dpu_push_xfer(c->set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0, p->size, DPU_XFER_DEFAULT));
        us = openpim_modelled_time_us() - t0;
        check_dpus(c, p, DPU_MRAM_HEAP_POINTER_NAME, bufs);
        free_per_dpu(c, bufs);
        break;
    }
    case STUDY_FROM: {
        /* the plan sends `size` bytes to each DPU just before (STUDY_TO):
         * retrieve them and compare every DPU's with what was sent */
        uint8_t **got = alloc_per_dpu(c, p->size, 0);
        DPU_FOREACH (c->set, dpu, i)
            DPU_ASSERT(dpu_prepare_xfer(dpu, got[i]));
        t0 = openpim_modelled_time_us();
        DPU_ASSERT(dpu_push_xfer(c->set, DPU_XFER_FROM_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0, p->size,
                                 DPU_XFER_DEFAULT));
        us = openpim_modelled_time_us() - t0;
        for (i = 0; i < c->nr_dpus; i++) {
            fill(c->check, p->size, i + 1);
            if (memcmp(got[i], c->check, p->size))
                fail("from", p, i);
        }
        free_per_dpu(c, got);
        break;
    }
    }
    printf("e2e,%s,%u,%llu,%llu,%.3f\n", study_kind_name[p->kind], c->ranks, (unsigned long long)p->size,
           (unsigned long long)p->block, us);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s DPU_BINARY RANKS BUDGET_MB\n", argv[0]);
        return 2;
    }
    struct ctx c = {0};
    unsigned long r = bench_parse_u64("RANKS", argv[2], 1, 40), b = bench_parse_u64("BUDGET_MB", argv[3], 1, 1u << 30);
    c.ranks = (unsigned)r;
    c.budget = (uint64_t)b * MB;
    /* the emulator refuses (loudly) to back more than the budget */
    char profile[64];
    snprintf(profile, sizeof profile, "hostMemoryLimitMB=%lu", b);
    DPU_ASSERT(dpu_alloc_ranks(c.ranks, profile, &c.set));
    DPU_ASSERT(dpu_load(c.set, argv[1], NULL));
    DPU_ASSERT(dpu_get_nr_dpus(c.set, &c.nr_dpus));
    c.check = xmalloc(STUDY_CHUNK_TOTAL);
    study_for_each_point(run_point, &c);

    uint64_t used = 0, limit = 0;
    DPU_ASSERT(openpim_memory_usage(&used, &limit));
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("mem,%u,%.0f,%.0f\n", c.ranks, (double)used / MB, ru.ru_maxrss / 1024.0);
    free(c.check);
    DPU_ASSERT(dpu_free(c.set));
    return 0;
}
