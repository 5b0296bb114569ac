/* SPDX-License-Identifier: MIT */
/* binary_search, host side.
 *
 * A sorted array of distinct int64 is broadcast to every DPU; a list of
 * queries (keys present in the array and keys that are not) is split over
 * the DPUs; every DPU answers its queries with binary searches in MRAM.  The
 * host checks every answer: the index of the key, or NOT_FOUND.
 *
 * Shows: dpu_broadcast_to to the MRAM heap, parallel transfers of different
 * data to each DPU, 8-byte DMAs.
 *
 * Usage: bin/host_app [-d nr_dpus] [-n total_queries] [-a array_elements]
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

#define EXAMPLE "binary_search"
#define DEFAULT_QUERIES 100003u
#define DEFAULT_ARRAY_ELEMENTS 262147u
#define MRAM_BUDGET (60u << 20)

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
static uint64_t lcg_state = 0x5eed0006u;

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

/* Reference lookup. */
static int64_t host_search(const int64_t *array, uint32_t n, int64_t key)
{
    uint32_t low = 0, high = n;
    while (low < high) {
        uint32_t mid = low + (high - low) / 2;
        if (array[mid] == key) {
            return mid;
        }
        if (array[mid] < key) {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    return NOT_FOUND;
}

int main(int argc, char **argv)
{
    uint32_t nr_dpus = NR_DPUS;
    uint32_t nr_queries = DEFAULT_QUERIES;
    uint32_t n = DEFAULT_ARRAY_ELEMENTS;
    int opt;

    while ((opt = getopt(argc, argv, "d:n:a:h")) != -1) {
        switch (opt) {
        case 'd':
            nr_dpus = parse_count(optarg, "DPU count");
            break;
        case 'n':
            nr_queries = parse_count(optarg, "query count");
            break;
        case 'a':
            n = parse_count(optarg, "array size");
            break;
        default:
            fprintf(stderr, "usage: %s [-d nr_dpus] [-n total_queries] [-a array_elements]\n",
                    argv[0]);
            return opt == 'h' ? EXIT_SUCCESS : EXIT_FAILURE;
        }
    }

    const uint32_t max_queries = share_count(nr_queries, nr_dpus, 0);
    const uint64_t array_bytes = (uint64_t)n * 8u;
    const uint64_t query_bytes = (uint64_t)max_queries * 8u;
    if (array_bytes + 2 * query_bytes > MRAM_BUDGET) {
        fail("array and queries of one DPU do not fit in MRAM");
    }

    /* Sorted, distinct keys with gaps (so that some keys are absent), spread
     * over a large part of the int64 range. */
    int64_t *array = malloc(array_bytes);
    int64_t *queries = calloc((size_t)nr_dpus * max_queries, sizeof(int64_t));
    int64_t *results = calloc((size_t)nr_dpus * max_queries, sizeof(int64_t));
    dpu_arguments_t *args = calloc(nr_dpus, sizeof(dpu_arguments_t));
    if (array == NULL || queries == NULL || results == NULL || args == NULL) {
        fail("out of host memory");
    }
    array[0] = -((int64_t)1 << 50);
    for (uint32_t i = 1; i < n; i++) {
        int64_t step = 1 + lcg_next() % 5u;
        if (lcg_next() % 4096u == 0) {
            step += (int64_t)1 << 36; /* an occasional huge gap */
        }
        array[i] = array[i - 1] + step;
    }

    uint32_t expected_found = 0;
    for (uint32_t d = 0; d < nr_dpus; d++) {
        args[d].array_elements = n;
        args[d].nr_queries = share_count(nr_queries, nr_dpus, d);
        args[d].queries_offset = (uint32_t)array_bytes;
        args[d].results_offset = (uint32_t)(array_bytes + query_bytes);
        for (uint32_t j = 0; j < args[d].nr_queries; j++) {
            int64_t key;
            uint32_t pick = lcg_next() % n;
            switch (lcg_next() % 8u) {
            case 0:
            case 1:
            case 2:
            case 3: /* present */
                key = array[pick];
                break;
            case 4:
            case 5: /* just above a present key: absent when the gap is > 1 */
                key = array[pick] + 1;
                break;
            case 6: /* below the smallest or above the largest key */
                key = (lcg_next() & 1u) ? array[0] - 1 - (int64_t)(lcg_next() % 1000u)
                                         : array[n - 1] + 1 + (int64_t)(lcg_next() % 1000u);
                break;
            default: /* extreme keys */
                key = (lcg_next() & 1u) ? INT64_MIN : INT64_MAX;
                break;
            }
            queries[(size_t)d * max_queries + j] = key;
            if (host_search(array, n, key) != NOT_FOUND) {
                expected_found++;
            }
        }
    }

    struct dpu_set_t set, dpu;
    uint32_t allocated = 0;
    DPU_ASSERT(dpu_alloc(nr_dpus, NULL, &set));
    DPU_ASSERT(dpu_get_nr_dpus(set, &allocated));
    if (allocated != nr_dpus) {
        fail("asked for %" PRIu32 " DPUs, got %" PRIu32, nr_dpus, allocated);
    }
    DPU_ASSERT(dpu_load(set, DPU_BINARY, NULL));

    /* The array is the same for everyone: one broadcast. */
    DPU_ASSERT(dpu_broadcast_to(set, DPU_MRAM_HEAP_POINTER_NAME, 0, array, array_bytes,
                                DPU_XFER_DEFAULT));

    uint32_t i;
    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &args[i]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, "DPU_INPUT_ARGUMENTS", 0,
                             sizeof(dpu_arguments_t), DPU_XFER_DEFAULT));
    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &queries[(size_t)i * max_queries]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME,
                             (uint32_t)array_bytes, query_bytes, DPU_XFER_DEFAULT));

    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));

    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &results[(size_t)i * max_queries]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, DPU_MRAM_HEAP_POINTER_NAME,
                             (uint32_t)(array_bytes + query_bytes), query_bytes,
                             DPU_XFER_DEFAULT));

    uint32_t errors = 0, found = 0, bad_dpu = 0, bad_query = 0;
    int64_t bad_key = 0, bad_value = 0, bad_expected = 0;
    for (uint32_t d = 0; d < nr_dpus; d++) {
        for (uint32_t j = 0; j < args[d].nr_queries; j++) {
            size_t k = (size_t)d * max_queries + j;
            int64_t want = host_search(array, n, queries[k]);
            if (results[k] != NOT_FOUND) {
                found++;
            }
            if (results[k] != want) {
                if (errors == 0) {
                    bad_dpu = d;
                    bad_query = j;
                    bad_key = queries[k];
                    bad_value = results[k];
                    bad_expected = want;
                }
                errors++;
            }
        }
    }

    free(array);
    free(queries);
    free(results);
    free(args);
    DPU_ASSERT(dpu_free(set));

    if (errors != 0) {
        fail("%" PRIu32 " of %" PRIu32 " answers differ; first: DPU %" PRIu32 " query %" PRIu32
             " key %" PRId64 " -> %" PRId64 ", expected %" PRId64,
             errors, nr_queries, bad_dpu, bad_query, bad_key, bad_value, bad_expected);
    }
    if (found != expected_found) {
        fail("%" PRIu32 " keys found, expected %" PRIu32, found, expected_found);
    }
    printf("[OK] " EXAMPLE ": %" PRIu32 " queries (%" PRIu32 " found, %" PRIu32
           " not found) in %" PRIu32 " sorted int64 on %" PRIu32 " DPUs, %d tasklets\n",
           nr_queries, found, nr_queries - found, n, nr_dpus, NR_TASKLETS);
    return EXIT_SUCCESS;
}
