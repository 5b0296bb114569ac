/* SPDX-License-Identifier: MIT */
/* histogram, host side.
 *
 * Splits a byte array over the DPUs; every DPU builds the 256-bin histogram
 * of its bytes in a shared WRAM array guarded by mutexes and atomic bits; the
 * host reads every DPU's histogram, merges them and checks the result.
 *
 * Usage: bin/host_app [-d nr_dpus] [-n total_bytes]
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

#define EXAMPLE "histogram"
#define DEFAULT_BYTES 3000017u
#define MAX_BYTES_PER_DPU (48u << 20)

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
static uint64_t lcg_state = 0x5eed0003u;

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

/* A skewed byte distribution, so that some bins (on both the mutex side and
 * the atomic-bit side) are much more popular than others. */
static uint8_t next_byte(void)
{
    uint32_t r = lcg_next();
    switch (r & 3u) {
    case 0:
        return (uint8_t)(0x80u | ((r >> 8) & 0x7u)); /* a few high bins */
    case 1:
        return (uint8_t)((r >> 8) & 0x7u); /* a few low bins */
    default:
        return (uint8_t)(r >> 24); /* uniform */
    }
}

int main(int argc, char **argv)
{
    uint32_t nr_dpus = NR_DPUS;
    uint32_t total = DEFAULT_BYTES;
    int opt;

    while ((opt = getopt(argc, argv, "d:n:h")) != -1) {
        switch (opt) {
        case 'd':
            nr_dpus = parse_count(optarg, "DPU count");
            break;
        case 'n':
            total = parse_count(optarg, "byte count");
            break;
        default:
            fprintf(stderr, "usage: %s [-d nr_dpus] [-n total_bytes]\n", argv[0]);
            return opt == 'h' ? EXIT_SUCCESS : EXIT_FAILURE;
        }
    }

    const uint32_t max_per_dpu = share_count(total, nr_dpus, 0);
    if (max_per_dpu > MAX_BYTES_PER_DPU) {
        fail("%" PRIu32 " bytes per DPU do not fit in MRAM (max %u)", max_per_dpu,
             MAX_BYTES_PER_DPU);
    }
    const uint32_t region_bytes = (max_per_dpu + 7u) & ~7u;

    struct dpu_set_t set, dpu;
    uint32_t allocated = 0;
    DPU_ASSERT(dpu_alloc(nr_dpus, NULL, &set));
    DPU_ASSERT(dpu_get_nr_dpus(set, &allocated));
    if (allocated != nr_dpus) {
        fail("asked for %" PRIu32 " DPUs, got %" PRIu32, nr_dpus, allocated);
    }
    DPU_ASSERT(dpu_load(set, DPU_BINARY, NULL));

    uint8_t *input = calloc((size_t)nr_dpus, region_bytes);
    dpu_arguments_t *args = calloc(nr_dpus, sizeof(dpu_arguments_t));
    uint32_t *dpu_histograms = calloc((size_t)nr_dpus * NR_BINS, sizeof(uint32_t));
    uint32_t *expected = calloc((size_t)nr_dpus * NR_BINS, sizeof(uint32_t));
    if (input == NULL || args == NULL || dpu_histograms == NULL || expected == NULL) {
        fail("out of host memory");
    }
    uint32_t expected_total[NR_BINS] = {0};
    for (uint32_t d = 0; d < nr_dpus; d++) {
        args[d].nr_bytes = share_count(total, nr_dpus, d);
        for (uint32_t j = 0; j < args[d].nr_bytes; j++) {
            uint8_t byte = next_byte();
            input[(size_t)d * region_bytes + j] = byte;
            expected[(size_t)d * NR_BINS + byte]++;
            expected_total[byte]++;
        }
    }

    uint32_t i;
    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &args[i]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, "DPU_INPUT_ARGUMENTS", 0,
                             sizeof(dpu_arguments_t), DPU_XFER_DEFAULT));
    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &input[(size_t)i * region_bytes]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0, region_bytes,
                             DPU_XFER_DEFAULT));

    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));

    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &dpu_histograms[(size_t)i * NR_BINS]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "DPU_HISTOGRAM", 0,
                             NR_BINS * sizeof(uint32_t), DPU_XFER_DEFAULT));

    /* Merge and check, per DPU and in total. */
    uint32_t merged[NR_BINS] = {0};
    uint32_t errors = 0, bad_dpu = 0, bad_bin = 0, bad_value = 0, bad_expected = 0;
    for (uint32_t d = 0; d < nr_dpus; d++) {
        for (uint32_t bin = 0; bin < NR_BINS; bin++) {
            uint32_t got = dpu_histograms[(size_t)d * NR_BINS + bin];
            uint32_t want = expected[(size_t)d * NR_BINS + bin];
            merged[bin] += got;
            if (got != want) {
                if (errors == 0) {
                    bad_dpu = d;
                    bad_bin = bin;
                    bad_value = got;
                    bad_expected = want;
                }
                errors++;
            }
        }
    }
    uint32_t merged_errors = 0, largest_bin = 0;
    for (uint32_t bin = 0; bin < NR_BINS; bin++) {
        if (merged[bin] != expected_total[bin]) {
            merged_errors++;
        }
        if (merged[bin] > merged[largest_bin]) {
            largest_bin = bin;
        }
    }

    free(input);
    free(args);
    free(dpu_histograms);
    free(expected);
    DPU_ASSERT(dpu_free(set));

    if (errors != 0) {
        fail("%" PRIu32 " DPU bins differ; first: DPU %" PRIu32 " bin %" PRIu32 " = %" PRIu32
             ", expected %" PRIu32,
             errors, bad_dpu, bad_bin, bad_value, bad_expected);
    }
    if (merged_errors != 0) {
        fail("%" PRIu32 " merged bins differ", merged_errors);
    }
    printf("[OK] " EXAMPLE ": 256-bin histogram of %" PRIu32 " bytes on %" PRIu32
           " DPUs, %d tasklets (largest bin 0x%02" PRIx32 ": %" PRIu32 ")\n",
           total, nr_dpus, NR_TASKLETS, largest_bin, merged[largest_bin]);
    return EXIT_SUCCESS;
}
