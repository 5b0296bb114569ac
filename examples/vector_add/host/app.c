/* SPDX-License-Identifier: MIT */
/* vector_add, host side.
 *
 * Splits two vectors A and B of uint32 over the DPUs, lets the DPUs compute
 * C = A + B, and checks C against the host.
 *
 * Shows: dpu_alloc / dpu_load, per-DPU arguments in a __host variable sent with
 * dpu_prepare_xfer + dpu_push_xfer, parallel transfers to and from the MRAM heap
 * (DPU_MRAM_HEAP_POINTER_NAME), dpu_launch.
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

#define EXAMPLE "vector_add"
#define DEFAULT_ELEMENTS 1000003u
/* Three regions must fit in the 64 MB MRAM (with room to spare). */
#define MAX_ELEMENTS_PER_DPU (5u << 20)

/* ---- small helpers ------------------------------------------------------ */

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

/* Deterministic input: a 64-bit linear congruential generator (Knuth's MMIX
 * constants), returning the high 32 bits. */
static uint64_t lcg_state = 0x5eed0001u;

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

/* Elements given to DPU `d` when `total` elements are split over `nr` DPUs:
 * the first (total % nr) DPUs get one more. */
static uint32_t share_count(uint32_t total, uint32_t nr, uint32_t d)
{
    return total / nr + (d < total % nr ? 1u : 0u);
}

static uint32_t share_first(uint32_t total, uint32_t nr, uint32_t d)
{
    uint32_t extra = total % nr;
    return d * (total / nr) + (d < extra ? d : extra);
}

/* ---- main ---------------------------------------------------------------- */

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
    /* Every DPU gets regions of the same size (a parallel transfer moves the
     * same number of bytes to every DPU), padded to a multiple of 8 bytes. */
    const uint32_t region_bytes = (max_per_dpu * (uint32_t)sizeof(elem_t) + 7u) & ~7u;
    const uint32_t region_elems = region_bytes / (uint32_t)sizeof(elem_t);

    struct dpu_set_t set, dpu;
    uint32_t allocated = 0;
    DPU_ASSERT(dpu_alloc(nr_dpus, NULL, &set));
    DPU_ASSERT(dpu_get_nr_dpus(set, &allocated));
    if (allocated != nr_dpus) {
        fail("asked for %" PRIu32 " DPUs, got %" PRIu32, nr_dpus, allocated);
    }
    DPU_ASSERT(dpu_load(set, DPU_BINARY, NULL));

    /* Host buffers, one padded region per DPU. */
    elem_t *a = calloc((size_t)nr_dpus * region_elems, sizeof(elem_t));
    elem_t *b = calloc((size_t)nr_dpus * region_elems, sizeof(elem_t));
    elem_t *c = calloc((size_t)nr_dpus * region_elems, sizeof(elem_t));
    dpu_arguments_t *args = calloc(nr_dpus, sizeof(dpu_arguments_t));
    if (a == NULL || b == NULL || c == NULL || args == NULL) {
        fail("out of host memory");
    }
    for (uint32_t d = 0; d < nr_dpus; d++) {
        args[d].nr_elements = share_count(total, nr_dpus, d);
        args[d].region_bytes = region_bytes;
        for (uint32_t j = 0; j < args[d].nr_elements; j++) {
            a[(size_t)d * region_elems + j] = lcg_next();
            b[(size_t)d * region_elems + j] = lcg_next();
        }
    }

    uint32_t i;
    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &args[i]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, "DPU_INPUT_ARGUMENTS", 0,
                             sizeof(dpu_arguments_t), DPU_XFER_DEFAULT));
    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &a[(size_t)i * region_elems]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0,
                             region_bytes, DPU_XFER_DEFAULT));
    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &b[(size_t)i * region_elems]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, region_bytes,
                             region_bytes, DPU_XFER_DEFAULT));

    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));

    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &c[(size_t)i * region_elems]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, DPU_MRAM_HEAP_POINTER_NAME,
                             2 * region_bytes, region_bytes, DPU_XFER_DEFAULT));

    /* Check against the host. */
    uint32_t errors = 0, bad_index = 0, bad_dpu = 0;
    elem_t bad_value = 0, bad_expected = 0;
    for (uint32_t d = 0; d < nr_dpus; d++) {
        for (uint32_t j = 0; j < args[d].nr_elements; j++) {
            size_t k = (size_t)d * region_elems + j;
            elem_t expected = (elem_t)(a[k] + b[k]);
            if (c[k] != expected) {
                if (errors == 0) {
                    bad_index = share_first(total, nr_dpus, d) + j;
                    bad_dpu = d;
                    bad_value = c[k];
                    bad_expected = expected;
                }
                errors++;
            }
        }
    }

    free(a);
    free(b);
    free(c);
    free(args);
    DPU_ASSERT(dpu_free(set));

    if (errors != 0) {
        fail("%" PRIu32 " of %" PRIu32 " elements differ; first: C[%" PRIu32 "] (DPU %" PRIu32
             ") = %" PRIu32 ", expected %" PRIu32,
             errors, total, bad_index, bad_dpu, bad_value, bad_expected);
    }
    printf("[OK] " EXAMPLE ": C = A + B for %" PRIu32 " uint32 elements on %" PRIu32
           " DPUs, %d tasklets\n", total, nr_dpus, NR_TASKLETS);
    return EXIT_SUCCESS;
}
