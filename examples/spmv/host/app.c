/* SPDX-License-Identifier: MIT */
/* spmv, host side.
 *
 * y = A x with A a random sparse matrix in CSR form (int32 entries) and x a
 * dense int32 vector; y is int64, so the result is exact.  Each DPU gets a
 * block of consecutive rows; x is broadcast to all DPUs.
 *
 * Shows: dpu_broadcast_to, dpu_copy_to / dpu_copy_from on single DPUs with a
 * different size per DPU, per-DPU arguments with dpu_prepare_xfer +
 * dpu_push_xfer, seqread on the DPU.
 *
 * Usage: bin/host_app [-d nr_dpus] [-n rows] [-m columns]
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

#define EXAMPLE "spmv"
#define DEFAULT_ROWS 20011u
#define DEFAULT_COLS 4099u
#define MRAM_BUDGET (60u << 20) /* bytes of the MRAM heap we allow ourselves */

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
static uint64_t lcg_state = 0x5eed0005u;

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

static uint32_t share_first(uint32_t total, uint32_t nr, uint32_t d)
{
    uint32_t extra = total % nr;
    return d * (total / nr) + (d < extra ? d : extra);
}

static uint32_t round8(uint64_t bytes, uint32_t d)
{
    uint64_t rounded = (bytes + 7u) & ~(uint64_t)7u;
    if (rounded > MRAM_BUDGET) {
        fail("the data of DPU %" PRIu32 " does not fit in MRAM", d);
    }
    return (uint32_t)rounded;
}

int main(int argc, char **argv)
{
    uint32_t nr_dpus = NR_DPUS;
    uint32_t nr_rows = DEFAULT_ROWS, nr_cols = DEFAULT_COLS;
    int opt;

    while ((opt = getopt(argc, argv, "d:n:m:h")) != -1) {
        switch (opt) {
        case 'd':
            nr_dpus = parse_count(optarg, "DPU count");
            break;
        case 'n':
            nr_rows = parse_count(optarg, "row count");
            break;
        case 'm':
            nr_cols = parse_count(optarg, "column count");
            break;
        default:
            fprintf(stderr, "usage: %s [-d nr_dpus] [-n rows] [-m columns]\n", argv[0]);
            return opt == 'h' ? EXIT_SUCCESS : EXIT_FAILURE;
        }
    }

    /* ---- random sparse matrix, vector and reference ---- */
    uint32_t *row_ptr = calloc((size_t)nr_rows + 1, sizeof(uint32_t));
    if (row_ptr == NULL) {
        fail("out of host memory");
    }
    uint64_t nnz64 = 0;
    for (uint32_t r = 0; r < nr_rows; r++) {
        uint32_t len;
        uint32_t kind = lcg_next() % 100u;
        if (kind < 10) {
            len = 0; /* empty rows */
        } else if (kind < 12) {
            len = 150 + lcg_next() % 200u; /* a few dense rows */
        } else {
            len = 1 + lcg_next() % 24u;
        }
        nnz64 += len;
        if (nnz64 > (64u << 20)) {
            fail("too many nonzeros");
        }
        row_ptr[r + 1] = (uint32_t)nnz64;
    }
    const uint32_t nnz = (uint32_t)nnz64;
    uint32_t *col_idx = malloc(((size_t)nnz + 1) * sizeof(uint32_t));
    value_t *values = malloc(((size_t)nnz + 1) * sizeof(value_t));
    const uint32_t x_bytes = round8((uint64_t)nr_cols * sizeof(value_t), 0);
    value_t *x = calloc(x_bytes / sizeof(value_t), sizeof(value_t));
    result_t *y_expected = calloc(nr_rows, sizeof(result_t));
    result_t *y = calloc(nr_rows, sizeof(result_t));
    if (col_idx == NULL || values == NULL || x == NULL || y_expected == NULL || y == NULL) {
        fail("out of host memory");
    }
    for (uint32_t k = 0; k < nnz; k++) {
        col_idx[k] = lcg_next() % nr_cols;
        values[k] = (value_t)(lcg_next() % (2u * MAX_ABS_VALUE + 1)) - MAX_ABS_VALUE;
    }
    for (uint32_t c = 0; c < nr_cols; c++) {
        x[c] = (value_t)(lcg_next() % (2u * MAX_ABS_X + 1)) - MAX_ABS_X;
    }
    for (uint32_t r = 0; r < nr_rows; r++) {
        result_t sum = 0;
        for (uint32_t k = row_ptr[r]; k < row_ptr[r + 1]; k++) {
            sum += (result_t)values[k] * x[col_idx[k]];
        }
        y_expected[r] = sum;
    }

    /* ---- DPUs ---- */
    struct dpu_set_t set, dpu;
    uint32_t allocated = 0;
    DPU_ASSERT(dpu_alloc(nr_dpus, NULL, &set));
    DPU_ASSERT(dpu_get_nr_dpus(set, &allocated));
    if (allocated != nr_dpus) {
        fail("asked for %" PRIu32 " DPUs, got %" PRIu32, nr_dpus, allocated);
    }
    DPU_ASSERT(dpu_load(set, DPU_BINARY, NULL));

    dpu_arguments_t *args = calloc(nr_dpus, sizeof(dpu_arguments_t));
    if (args == NULL) {
        fail("out of host memory");
    }

    /* x goes to the same place on every DPU. */
    DPU_ASSERT(dpu_broadcast_to(set, DPU_MRAM_HEAP_POINTER_NAME, 0, x, x_bytes, DPU_XFER_DEFAULT));

    /* The row block of each DPU, copied with one dpu_copy_to per DPU since
     * sizes differ: [row pointers | column indices | values], each padded to
     * 8 bytes. */
    uint32_t i;
    DPU_FOREACH(set, dpu, i) {
        const uint32_t first_row = share_first(nr_rows, nr_dpus, i);
        const uint32_t rows = share_count(nr_rows, nr_dpus, i);
        const uint32_t first_nz = row_ptr[first_row];
        const uint32_t dpu_nnz = row_ptr[first_row + rows] - first_nz;
        dpu_arguments_t *a = &args[i];

        a->nr_rows = rows;
        a->nr_cols = nr_cols;
        a->nnz = dpu_nnz;
        a->x_offset = 0;
        a->row_ptr_offset = x_bytes;
        const uint32_t row_ptr_bytes = round8(((uint64_t)rows + 1) * sizeof(uint32_t), i);
        const uint32_t col_bytes = round8((uint64_t)dpu_nnz * sizeof(uint32_t), i);
        const uint32_t val_bytes = round8((uint64_t)dpu_nnz * sizeof(value_t), i);
        a->col_idx_offset = a->row_ptr_offset + row_ptr_bytes;
        a->values_offset = a->col_idx_offset + col_bytes;
        a->y_offset = a->values_offset + val_bytes;
        round8((uint64_t)a->y_offset + (uint64_t)rows * sizeof(result_t), i);

        const uint32_t image_bytes = row_ptr_bytes + col_bytes + val_bytes;
        uint8_t *image = calloc(image_bytes, 1);
        if (image == NULL) {
            fail("out of host memory");
        }
        uint32_t *local_row_ptr = (uint32_t *)image;
        for (uint32_t r = 0; r <= rows; r++) {
            local_row_ptr[r] = row_ptr[first_row + r] - first_nz;
        }
        memcpy(image + row_ptr_bytes, &col_idx[first_nz], (size_t)dpu_nnz * sizeof(uint32_t));
        memcpy(image + row_ptr_bytes + col_bytes, &values[first_nz],
               (size_t)dpu_nnz * sizeof(value_t));
        DPU_ASSERT(dpu_copy_to(dpu, DPU_MRAM_HEAP_POINTER_NAME, a->row_ptr_offset, image,
                               image_bytes));
        free(image);
    }

    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &args[i]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, "DPU_INPUT_ARGUMENTS", 0,
                             sizeof(dpu_arguments_t), DPU_XFER_DEFAULT));

    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));

    DPU_FOREACH(set, dpu, i) {
        if (args[i].nr_rows != 0) {
            DPU_ASSERT(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, args[i].y_offset,
                                     &y[share_first(nr_rows, nr_dpus, i)],
                                     (size_t)args[i].nr_rows * sizeof(result_t)));
        }
    }

    uint32_t errors = 0, bad_row = 0;
    for (uint32_t r = 0; r < nr_rows; r++) {
        if (y[r] != y_expected[r]) {
            if (errors == 0) {
                bad_row = r;
            }
            errors++;
        }
    }
    const result_t bad_value = y[bad_row], bad_expected = y_expected[bad_row];

    free(row_ptr);
    free(col_idx);
    free(values);
    free(x);
    free(y);
    free(y_expected);
    free(args);
    DPU_ASSERT(dpu_free(set));

    if (errors != 0) {
        fail("%" PRIu32 " of %" PRIu32 " rows differ; first: y[%" PRIu32 "] = %" PRId64
             ", expected %" PRId64,
             errors, nr_rows, bad_row, bad_value, bad_expected);
    }
    printf("[OK] " EXAMPLE ": y = A x for a %" PRIu32 " x %" PRIu32 " matrix with %" PRIu32
           " nonzeros on %" PRIu32 " DPUs, %d tasklets\n",
           nr_rows, nr_cols, nnz, nr_dpus, NR_TASKLETS);
    return EXIT_SUCCESS;
}
