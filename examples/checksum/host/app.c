/* SPDX-License-Identifier: MIT */
/* checksum, host side.
 *
 * Writes one buffer (8 MiB by default) into the MRAM array dpu_mram_buffer of
 * all DPUs with a single dpu_copy_to on the whole set (a broadcast); each DPU
 * checksums its own share, per tasklet; the host reads all tasklet results
 * of all DPUs and checks each of them and their total.  Tasklet 0 of every
 * DPU prints its result: the host reads the first DPU's log with dpu_log_read
 * and checks that the line is there.
 *
 * Usage: bin/host_app [-d nr_dpus] [-n bytes] [-v]
 *   -n  bytes of the buffer to use (a multiple of 8, at most 8 MiB)
 *   -v  also print the first DPU's log
 */
#define _POSIX_C_SOURCE 200809L

#include <dpu.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#ifndef DPU_BINARY
#define DPU_BINARY "./bin/dpu_task"
#endif

#define EXAMPLE "checksum"
#define LOG_CAPACITY 65536

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
static uint64_t lcg_state = 0x5eed0007u;

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

/* Checksum of buffer[from, from + len), as defined in common.h. */
static uint64_t host_checksum(const uint8_t *buffer, uint32_t from, uint32_t len)
{
    uint64_t sum = 0;
    for (uint32_t p = from; p < from + len; p++) {
        sum += (uint64_t)(p + 1) * buffer[p];
    }
    return sum;
}

int main(int argc, char **argv)
{
    uint32_t nr_dpus = NR_DPUS;
    uint32_t size = BUFFER_SIZE;
    int verbose = 0;
    int opt;

    while ((opt = getopt(argc, argv, "d:n:vh")) != -1) {
        switch (opt) {
        case 'd':
            nr_dpus = parse_count(optarg, "DPU count");
            break;
        case 'n':
            size = parse_count(optarg, "byte count");
            break;
        case 'v':
            verbose = 1;
            break;
        default:
            fprintf(stderr, "usage: %s [-d nr_dpus] [-n bytes] [-v]\n", argv[0]);
            return opt == 'h' ? EXIT_SUCCESS : EXIT_FAILURE;
        }
    }
    if (size % 8 != 0 || size > BUFFER_SIZE) {
        fail("the size must be a multiple of 8 and at most %u bytes", BUFFER_SIZE);
    }

    uint8_t *buffer = malloc(size);
    dpu_arguments_t *args = calloc(nr_dpus, sizeof(dpu_arguments_t));
    dpu_result_t *results = calloc((size_t)nr_dpus * NR_TASKLETS, sizeof(dpu_result_t));
    char *log_text = calloc(LOG_CAPACITY + 1, 1);
    if (buffer == NULL || args == NULL || results == NULL || log_text == NULL) {
        fail("out of host memory");
    }
    for (uint32_t p = 0; p < size; p++) {
        buffer[p] = (uint8_t)(lcg_next() >> 24);
    }
    /* Shares of the DPUs, in 8-byte words. */
    const uint32_t words = size / 8;
    for (uint32_t d = 0; d < nr_dpus; d++) {
        uint32_t extra = words % nr_dpus;
        uint32_t first_word = d * (words / nr_dpus) + (d < extra ? d : extra);
        uint32_t nr_words = words / nr_dpus + (d < extra ? 1u : 0u);
        args[d].first_byte = first_word * 8;
        args[d].nr_bytes = nr_words * 8;
    }

    struct dpu_set_t set, dpu;
    uint32_t allocated = 0;
    DPU_ASSERT(dpu_alloc(nr_dpus, NULL, &set));
    DPU_ASSERT(dpu_get_nr_dpus(set, &allocated));
    if (allocated != nr_dpus) {
        fail("asked for %" PRIu32 " DPUs, got %" PRIu32, nr_dpus, allocated);
    }
    DPU_ASSERT(dpu_load(set, DPU_BINARY, NULL));

    /* dpu_copy_to on a set of several DPUs writes the same data to all. */
    DPU_ASSERT(dpu_copy_to(set, "dpu_mram_buffer", 0, buffer, size));

    uint32_t i;
    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &args[i]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, "DPU_INPUT_ARGUMENTS", 0,
                             sizeof(dpu_arguments_t), DPU_XFER_DEFAULT));

    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));

    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &results[(size_t)i * NR_TASKLETS]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "dpu_wram_results", 0,
                             NR_TASKLETS * sizeof(dpu_result_t), DPU_XFER_DEFAULT));

    /* The log of the first DPU, read into a temporary file. */
    FILE *log = tmpfile();
    if (log == NULL) {
        fail("cannot create a temporary file");
    }
    DPU_FOREACH(set, dpu) {
        DPU_ASSERT(dpu_log_read(dpu, log));
        break;
    }
    rewind(log);
    size_t log_length = fread(log_text, 1, LOG_CAPACITY, log);
    log_text[log_length] = '\0';
    fclose(log);
    if (verbose) {
        printf("--- log of DPU 0 ---\n%s--- end of log ---\n", log_text);
    }

    /* Check every tasklet of every DPU. */
    uint64_t total = 0, expected_total = host_checksum(buffer, 0, size);
    uint32_t errors = 0, bad_dpu = 0, bad_tasklet = 0;
    uint64_t max_cycles = 0;
    uint64_t bad_value = 0, bad_expected = 0;
    for (uint32_t d = 0; d < nr_dpus; d++) {
        for (uint32_t t = 0; t < NR_TASKLETS; t++) {
            /* Bytes of tasklet t: blocks t, t + NR_TASKLETS, ... of the share. */
            uint64_t expected = 0;
            uint32_t expected_bytes = 0;
            for (uint32_t offset = t * BLOCK_BYTES; offset < args[d].nr_bytes;
                 offset += NR_TASKLETS * BLOCK_BYTES) {
                uint32_t len = args[d].nr_bytes - offset;
                len = len < BLOCK_BYTES ? len : BLOCK_BYTES;
                expected += host_checksum(buffer, args[d].first_byte + offset, len);
                expected_bytes += len;
            }
            const dpu_result_t *r = &results[(size_t)d * NR_TASKLETS + t];
            total += r->checksum;
            if (r->cycles > max_cycles) {
                max_cycles = r->cycles;
            }
            if (r->checksum != expected || r->nr_bytes != expected_bytes) {
                if (errors == 0) {
                    bad_dpu = d;
                    bad_tasklet = t;
                    bad_value = r->checksum;
                    bad_expected = expected;
                }
                errors++;
            }
        }
    }

    /* The line printed by tasklet 0 of DPU 0. */
    char expected_line[128];
    snprintf(expected_line, sizeof(expected_line), "tasklet 0: checksum 0x%016" PRIx64
             " over %" PRIu32 " bytes\n",
             results[0].checksum, results[0].nr_bytes);
    const int log_ok = strstr(log_text, expected_line) != NULL;

    free(buffer);
    free(args);
    free(results);
    free(log_text);
    DPU_ASSERT(dpu_free(set));

    if (errors != 0) {
        fail("%" PRIu32 " tasklet results differ; first: DPU %" PRIu32 " tasklet %" PRIu32
             " = 0x%016" PRIx64 ", expected 0x%016" PRIx64,
             errors, bad_dpu, bad_tasklet, bad_value, bad_expected);
    }
    if (total != expected_total) {
        fail("total 0x%016" PRIx64 ", expected 0x%016" PRIx64, total, expected_total);
    }
    if (!log_ok) {
        expected_line[strlen(expected_line) - 1] = '\0';
        fail("the log of DPU 0 (%zu bytes) lacks the line \"%s\"", log_length, expected_line);
    }
    printf("[OK] " EXAMPLE ": checksum 0x%016" PRIx64 " of %" PRIu32 " bytes on %" PRIu32
           " DPUs, %d tasklets, DPU log checked (max %" PRIu64 " cycles)\n",
           total, size, nr_dpus, NR_TASKLETS, max_cycles);
    return EXIT_SUCCESS;
}
