/* SPDX-License-Identifier: MIT */
/* Emulation speed: native-C time / emulated time of the same loop, both
 * measured in this one run (min and median of several repetitions). */
#define _POSIX_C_SOURCE 200809L
#include <dpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench.h"
#include "kernels.h"

#define REPS 7

static volatile uint64_t sink;

static void report(const char *what, double *native, double *emulated, int ok)
{
    double ratio[REPS];
    for (int i = 0; i < REPS; i++)
        ratio[i] = native[i] / emulated[i];
    bench_sort(native, REPS);
    bench_sort(emulated, REPS);
    bench_sort(ratio, REPS);
    printf("%-14s native %8.2f ms  emulated %8.2f ms  native/emulated: min %.3f median %.3f  %s\n", what,
           native[0] * 1e3, emulated[0] * 1e3, ratio[0], ratio[REPS / 2], ok ? "(results equal)" : "(RESULTS DIFFER)");
}

int main(int argc, char **argv)
{
    const char *binary = argc > 1 ? argv[1] : "./dpu_bench";
    const char *profile = argc > 2 ? argv[2] : "nrRanks=1,workers=1"; /* e.g. ...,chip=v1B for a v1B image */
    uint32_t iterations = 20000000, bytes = 32u << 20, mode;
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(1, profile, &set));
    DPU_ASSERT(dpu_load(set, binary, NULL));
    DPU_ASSERT(dpu_copy_to(set, "iterations", 0, &iterations, 4));
    DPU_ASSERT(dpu_copy_to(set, "bytes", 0, &bytes, 4));
    uint64_t *data = malloc(bytes);
    for (uint32_t i = 0; i < bytes / 8; i++)
        data[i] = (uint64_t)i * 0x9E3779B97F4A7C15ull;
    DPU_ASSERT(dpu_copy_to(set, DPU_MRAM_HEAP_POINTER_NAME, 0, data, bytes));

    double native[REPS], emulated[REPS];
    uint64_t r = 0, want = 0;
    int ok = 1;
    for (mode = 0; mode < 3; mode++) {
        DPU_ASSERT(dpu_copy_to(set, "mode", 0, &mode, 4));
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS)); /* warm-up: worker start, page faults */
        ok = 1;
        for (int i = 0; i < REPS; i++) {
            double t0 = bench_now();
            if (mode == 0) {
                want = compute_kernel(iterations, iterations);
            } else if (mode == 2) {
                want = call_kernel(iterations, iterations);
            } else {
                uint64_t acc = 0, block[DMA_BLOCK / 8];
                for (uint32_t off = 0; off < bytes; off += DMA_BLOCK) {
                    memcpy(block, (const uint8_t *)data + off, DMA_BLOCK);
                    sink = block[0];
                    acc = fold_block(block, acc);
                }
                want = acc;
            }
            double t1 = bench_now();
            DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
            double t2 = bench_now();
            struct dpu_set_t dpu;
            DPU_FOREACH(set, dpu)
                DPU_ASSERT(dpu_copy_from(dpu, "result", 0, &r, 8));
            ok &= r == want;
            native[i] = t1 - t0;
            emulated[i] = t2 - t1;
        }
        report(mode == 0 ? "compute-bound" : mode == 1 ? "DMA-bound" : "call-bound", native, emulated, ok);
    }
    free(data);
    DPU_ASSERT(dpu_free(set));
    return ok ? 0 : 1;
}
