/* SPDX-License-Identifier: MIT */
/* Host memory of the emulated MRAM: speed of first writes (pages backed on
 * the way) against rewrites, the cost of the host-memory-limit check when the
 * machine is full (the slow path that counts new pages), and what a 64 MB
 * broadcast to the 2,560-DPU server costs (shared copy-on-write).  One run,
 * min and median of REPS repetitions; ratios within the run. */
#define _GNU_SOURCE
#include <dpu.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench.h"

#define NR 32
#define REPS 3

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* The kernel's own speed at backing new shared-memory pages: a bare memfd of
 * len bytes written once (populated first, as OpenPIM does), in GB/s. */
static double bare_first_write(const uint8_t *buf, size_t len)
{
    int fd = memfd_create("bench", 0);
    if (fd < 0 || ftruncate(fd, (off_t)len) != 0)
        return 0;
    uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    double t0 = bench_now();
    madvise(p, len, MADV_POPULATE_WRITE);
    memcpy(p, buf, len);
    double t = bench_now() - t0;
    munmap(p, len);
    close(fd);
    return (double)len / t / 1e9;
}

static void push(struct dpu_set_t set, uint8_t *buf, uint32_t off, size_t len)
{
    struct dpu_set_t dpu;
    DPU_FOREACH(set, dpu) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, buf));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, off, len, DPU_XFER_DEFAULT));
}

int main(int argc, char **argv)
{
    const char *binary = argc > 1 ? argv[1] : "./dpu_nop";
    size_t len = 64u << 20; /* whole MRAMs: their pages are one run in the memfd */
    uint8_t *buf = malloc(len);
    memset(buf, 0x5a, len);
    double first[REPS], again[REPS], check[REPS], bare[REPS];
    for (int r = 0; r < REPS; r++) {
        struct dpu_set_t set;
        /* the limit sits just above what the fill uses: a later 1 MB push to every DPU (32 MB) would
         * pass it if all its pages were new, so the check counts them */
        DPU_ASSERT(dpu_alloc(NR, "nrRanks=1,hostMemoryLimitMB=2060", &set));
        DPU_ASSERT(dpu_load(set, binary, NULL));
        double t0 = bench_now();
        push(set, buf, 0, len - 64);
        double t1 = bench_now();
        push(set, buf, 0, len - 64);
        double t2 = bench_now();
        for (int k = 0; k < 10; k++)
            push(set, buf, 4096u * (uint32_t)k, 1u << 20);
        double t3 = bench_now();
        first[r] = (double)len * NR / (t1 - t0) / 1e9;
        bare[r] = bare_first_write(buf, len);
        again[r] = (double)len * NR / (t2 - t1) / 1e9;
        check[r] = (t3 - t2) / 10 * 1e3;
        DPU_ASSERT(dpu_free(set));
    }
    bench_sort(first, REPS);
    bench_sort(again, REPS);
    bench_sort(check, REPS);
    bench_sort(bare, REPS);
    printf("first write of %d x %zu MB: min %.2f median %.2f GB/s\n", NR, len >> 20, first[0], first[REPS / 2]);
    printf("first write of a bare memfd (the kernel's page allocation): min %.2f median %.2f GB/s "
           "(OpenPIM first write / bare median %.2f)\n", bare[0], bare[REPS / 2], first[REPS / 2] / bare[REPS / 2]);
    printf("rewrite:                  min %.2f median %.2f GB/s (first/rewrite median %.2f)\n", again[0],
           again[REPS / 2], first[REPS / 2] / again[REPS / 2]);
    printf("1 MB rewrite to each of %d DPUs near the host-memory limit (2 GB of MRAM backed): min %.3f median %.3f ms\n", NR,
           check[0], check[REPS / 2]);

    /* 64 MB (all the MRAM past the heap pointer) to every DPU of the embedded server */
    struct dpu_set_t all;
    uint32_t nr = 0;
    uint64_t before = 0, after = 0;
    DPU_ASSERT(dpu_alloc(DPU_ALLOCATE_ALL, NULL, &all));
    DPU_ASSERT(dpu_get_nr_dpus(all, &nr));
    DPU_ASSERT(dpu_load(all, binary, NULL));
    DPU_ASSERT(openpim_memory_usage(&before, NULL));
    double tb[REPS];
    for (int r = 0; r < REPS; r++) {
        double t0 = bench_now();
        DPU_ASSERT(dpu_broadcast_to(all, DPU_MRAM_HEAP_POINTER_NAME, 0, buf, len - 64, DPU_XFER_DEFAULT));
        tb[r] = bench_now() - t0;
    }
    DPU_ASSERT(openpim_memory_usage(&after, NULL));
    bench_sort(tb, REPS);
    printf("broadcast of %zu MB to %u DPUs: host memory %+.1f MB (%.0f GB if copied to each), min %.3f median %.3f s\n",
           (len - 64) >> 20, nr, (double)(after - before) / (1 << 20), (double)(len - 64) * nr / 1e9, tb[0],
           tb[REPS / 2]);
    DPU_ASSERT(dpu_free(all));
    free(buf);
    return 0;
}
