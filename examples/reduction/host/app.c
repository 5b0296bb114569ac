/* SPDX-License-Identifier: MIT */
/* reduction, host side.
 *
 * Splits an array of uint64 over the DPUs; every DPU sums its part (tasklet
 * partial sums combined by a handshake tree) and the host adds the per-DPU
 * sums.  All sums are modulo 2^64, so the result is exact.
 *
 * Shows: per-DPU __host arguments and results moved with dpu_prepare_xfer +
 * dpu_push_xfer (TO and FROM), handshakes, the perfcounter.
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

#define EXAMPLE "reduction"
#define DEFAULT_ELEMENTS 2000003u
#define MAX_ELEMENTS_PER_DPU (6u << 20) /* 48 MB of MRAM */

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
static uint64_t lcg_state = 0x5eed0002u;

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

/* The first (total % nr) DPUs get one element more. */
static uint32_t share_count(uint32_t total, uint32_t nr, uint32_t d)
{
    return total / nr + (d < total % nr ? 1u : 0u);
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

    struct dpu_set_t set, dpu;
    uint32_t allocated = 0;
    DPU_ASSERT(dpu_alloc(nr_dpus, NULL, &set));
    DPU_ASSERT(dpu_get_nr_dpus(set, &allocated));
    if (allocated != nr_dpus) {
        fail("asked for %" PRIu32 " DPUs, got %" PRIu32, nr_dpus, allocated);
    }
    DPU_ASSERT(dpu_load(set, DPU_BINARY, NULL));

    /* One region of max_per_dpu values per DPU (unused tail left at zero). */
    uint64_t *input = calloc((size_t)nr_dpus * max_per_dpu, sizeof(uint64_t));
    uint64_t *expected = calloc(nr_dpus, sizeof(uint64_t));
    dpu_arguments_t *args = calloc(nr_dpus, sizeof(dpu_arguments_t));
    dpu_result_t *results = calloc(nr_dpus, sizeof(dpu_result_t));
    if (input == NULL || expected == NULL || args == NULL || results == NULL) {
        fail("out of host memory");
    }
    uint64_t expected_total = 0;
    for (uint32_t d = 0; d < nr_dpus; d++) {
        args[d].nr_elements = share_count(total, nr_dpus, d);
        for (uint32_t j = 0; j < args[d].nr_elements; j++) {
            uint64_t value = ((uint64_t)lcg_next() << 32) | lcg_next();
            input[(size_t)d * max_per_dpu + j] = value;
            expected[d] += value;
        }
        expected_total += expected[d];
    }

    uint32_t i;
    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &args[i]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, "DPU_INPUT_ARGUMENTS", 0,
                             sizeof(dpu_arguments_t), DPU_XFER_DEFAULT));
    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &input[(size_t)i * max_per_dpu]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0,
                             (size_t)max_per_dpu * sizeof(uint64_t), DPU_XFER_DEFAULT));

    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));

    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &results[i]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "DPU_RESULTS", 0, sizeof(dpu_result_t),
                             DPU_XFER_DEFAULT));

    uint64_t total_sum = 0, max_cycles = 0;
    uint32_t errors = 0, bad_dpu = 0;
    for (uint32_t d = 0; d < nr_dpus; d++) {
        total_sum += results[d].sum;
        if (results[d].cycles > max_cycles) {
            max_cycles = results[d].cycles;
        }
        if (results[d].sum != expected[d]) {
            if (errors == 0) {
                bad_dpu = d;
            }
            errors++;
        }
    }
    uint64_t bad_sum = results[bad_dpu].sum, bad_expected = expected[bad_dpu];

    free(input);
    free(expected);
    free(args);
    free(results);
    DPU_ASSERT(dpu_free(set));

    if (errors != 0) {
        fail("%" PRIu32 " of %" PRIu32 " DPU sums differ; first: DPU %" PRIu32 " returned 0x%016" PRIx64
             ", expected 0x%016" PRIx64,
             errors, nr_dpus, bad_dpu, bad_sum, bad_expected);
    }
    if (total_sum != expected_total) {
        fail("total 0x%016" PRIx64 ", expected 0x%016" PRIx64, total_sum, expected_total);
    }
    printf("[OK] " EXAMPLE ": sum of %" PRIu32 " uint64 on %" PRIu32 " DPUs, %d tasklets = 0x%016" PRIx64
           " (max %" PRIu64 " DPU cycles)\n",
           total, nr_dpus, NR_TASKLETS, total_sum, max_cycles);
    return EXIT_SUCCESS;
}
