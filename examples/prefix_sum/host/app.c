/* SPDX-License-Identifier: MIT */
/* prefix_sum, host side.
 *
 * Global inclusive scan of an array of uint32 split over the DPUs, in two
 * launches:
 *   1. every DPU scans its own part (KERNEL_SCAN) and reports its total;
 *   2. the host turns the totals into per-DPU offsets (exclusive scan) and
 *      sends them; every DPU adds its offset (KERNEL_ADD_OFFSET).
 * The result, read back from MRAM, must equal the host's scan exactly
 * (arithmetic modulo 2^32).
 *
 * Shows: several launches of one program with WRAM arguments changed in
 * between, barriers, results read from __host variables and from MRAM.
 *
 * Usage: bin/host_app [-d nr_dpus] [-n total_elements]
 */
#define _POSIX_C_SOURCE 200809L

#include <dpu.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common.h"

#ifndef DPU_BINARY
#define DPU_BINARY "./bin/dpu_task"
#endif

#define EXAMPLE "prefix_sum"
#define DEFAULT_ELEMENTS 1500007u
#define MAX_ELEMENTS_PER_DPU (12u << 20) /* 48 MB of MRAM */

__attribute__((format(printf, 1, 2), noreturn)) static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("[ERROR] " EXAMPLE ": ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    exit(EXIT_FAILURE);
}

/* 64-bit LCG (Knuth's MMIX constants); deterministic input. */
static uint64_t lcg_state = 0x5eed0004u;

static uint32_t lcg_next(void)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(lcg_state >> 32);
}

static uint32_t parse_count(const char *text, const char *what)
{
    char *end = NULL;
    unsigned long long value = strtoull(text, &end, 0);
    if (end == text || *end != '\0' || value == 0 || value > UINT32_MAX) {
        fail("invalid %s '%s'", what, text);
    }
    return (uint32_t)value;
}

static uint32_t share_count(uint32_t total, uint32_t nr, uint32_t d)
{
    return total / nr + (d < total % nr ? 1u : 0u);
}

static void push_arguments(struct dpu_set_t set, dpu_arguments_t *args)
{
    struct dpu_set_t dpu;
    uint32_t i;
    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &args[i]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, "DPU_INPUT_ARGUMENTS", 0,
                             sizeof(dpu_arguments_t), DPU_XFER_DEFAULT));
}

int main(int argc, char **argv)
{
    uint32_t nr_dpus = NR_DPUS;
    uint32_t total = DEFAULT_ELEMENTS;
    int opt;

    while ((opt = getopt(argc, argv, "d:n:h")) != -1) {
        switch (opt) {
        case 'd':
            nr_dpus = parse_count(optarg, "DPU count");
            break;
        case 'n':
            total = parse_count(optarg, "element count");
            break;
        default:
            fprintf(stderr, "usage: %s [-d nr_dpus] [-n total_elements]\n", argv[0]);
            return opt == 'h' ? EXIT_SUCCESS : EXIT_FAILURE;
        }
    }

    const uint32_t max_per_dpu = share_count(total, nr_dpus, 0);
    if (max_per_dpu > MAX_ELEMENTS_PER_DPU) {
        fail("%" PRIu32 " elements per DPU do not fit in MRAM (max %u)", max_per_dpu,
             MAX_ELEMENTS_PER_DPU);
    }
    /* Same region size on every DPU, padded to a multiple of 8 bytes. */
    const uint32_t region_elems = (max_per_dpu + 1u) & ~1u;

    struct dpu_set_t set, dpu;
    uint32_t allocated = 0;
    DPU_ASSERT(dpu_alloc(nr_dpus, NULL, &set));
    DPU_ASSERT(dpu_get_nr_dpus(set, &allocated));
    if (allocated != nr_dpus) {
        fail("asked for %" PRIu32 " DPUs, got %" PRIu32, nr_dpus, allocated);
    }
    DPU_ASSERT(dpu_load(set, DPU_BINARY, NULL));

    uint32_t *data = calloc((size_t)nr_dpus * region_elems, sizeof(uint32_t));
    uint32_t *expected = calloc((size_t)nr_dpus * region_elems, sizeof(uint32_t));
    dpu_arguments_t *args = calloc(nr_dpus, sizeof(dpu_arguments_t));
    dpu_result_t *results = calloc(nr_dpus, sizeof(dpu_result_t));
    uint32_t *dpu_sums = calloc(nr_dpus, sizeof(uint32_t));
    if (data == NULL || expected == NULL || args == NULL || results == NULL || dpu_sums == NULL) {
        fail("out of host memory");
    }

    /* Input and reference: the global inclusive scan, DPU after DPU. */
    uint32_t running = 0;
    for (uint32_t d = 0; d < nr_dpus; d++) {
        args[d].nr_elements = share_count(total, nr_dpus, d);
        args[d].kernel = KERNEL_SCAN;
        for (uint32_t j = 0; j < args[d].nr_elements; j++) {
            uint32_t value = lcg_next();
            size_t k = (size_t)d * region_elems + j;
            data[k] = value;
            dpu_sums[d] += value;
            running += value;
            expected[k] = running;
        }
    }

    /* Launch 1: scan inside each DPU. */
    push_arguments(set, args);
    uint32_t i;
    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &data[(size_t)i * region_elems]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0,
                             (size_t)region_elems * sizeof(uint32_t), DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));

    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &results[i]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "DPU_RESULTS", 0, sizeof(dpu_result_t),
                             DPU_XFER_DEFAULT));

    /* Per-DPU offsets from the DPU totals. */
    uint32_t offset = 0;
    for (uint32_t d = 0; d < nr_dpus; d++) {
        if (results[d].dpu_total != dpu_sums[d]) {
            fail("DPU %" PRIu32 " total after launch 1 is 0x%08" PRIx32 ", expected 0x%08" PRIx32,
                 d, results[d].dpu_total, dpu_sums[d]);
        }
        args[d].kernel = KERNEL_ADD_OFFSET;
        args[d].dpu_offset = offset;
        offset += results[d].dpu_total;
    }

    /* Launch 2: add the offsets. */
    push_arguments(set, args);
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));

    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &data[(size_t)i * region_elems]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0,
                             (size_t)region_elems * sizeof(uint32_t), DPU_XFER_DEFAULT));

    uint32_t errors = 0, bad_index = 0, bad_value = 0, bad_expected = 0, bad_dpu = 0;
    uint32_t global_index = 0;
    for (uint32_t d = 0; d < nr_dpus; d++) {
        for (uint32_t j = 0; j < args[d].nr_elements; j++, global_index++) {
            size_t k = (size_t)d * region_elems + j;
            if (data[k] != expected[k]) {
                if (errors == 0) {
                    bad_index = global_index;
                    bad_dpu = d;
                    bad_value = data[k];
                    bad_expected = expected[k];
                }
                errors++;
            }
        }
    }

    free(data);
    free(expected);
    free(args);
    free(results);
    free(dpu_sums);
    DPU_ASSERT(dpu_free(set));

    if (errors != 0) {
        fail("%" PRIu32 " of %" PRIu32 " elements differ; first: out[%" PRIu32 "] (DPU %" PRIu32
             ") = 0x%08" PRIx32 ", expected 0x%08" PRIx32,
             errors, total, bad_index, bad_dpu, bad_value, bad_expected);
    }
    printf("[OK] " EXAMPLE ": inclusive scan of %" PRIu32 " uint32 on %" PRIu32
           " DPUs, %d tasklets, 2 launches (total 0x%08" PRIx32 ")\n",
           total, nr_dpus, NR_TASKLETS, running);
    return EXIT_SUCCESS;
}
