/* SPDX-License-Identifier: MIT */
/* Shared between the host program and the DPU program: fixed-width types only. */
#ifndef SPMV_COMMON_H
#define SPMV_COMMON_H

#include <stdint.h>

/* Matrix and vector entries are int32, with |A[i][j]| <= MAX_ABS_VALUE and
 * |x[j]| <= MAX_ABS_X, so that every product fits in an int32; the products
 * are summed in int64: the result is exact. */
#define MAX_ABS_VALUE 100
#define MAX_ABS_X 1000
typedef int32_t value_t;
typedef int64_t result_t;

/* Input of each DPU (__host variable DPU_INPUT_ARGUMENTS).  The DPU holds the
 * rows [first_row, first_row + nr_rows) of the matrix in CSR form, with row
 * pointers relative to its own first nonzero.  Offsets are in bytes from
 * DPU_MRAM_HEAP_POINTER, each a multiple of 8:
 *   x_offset        x, nr_cols value_t (the same on every DPU: broadcast)
 *   row_ptr_offset  nr_rows + 1 uint32
 *   col_idx_offset  nnz uint32
 *   values_offset   nnz value_t
 *   y_offset        nr_rows result_t, written by the DPU */
typedef struct {
    uint32_t nr_rows;
    uint32_t nr_cols;
    uint32_t nnz;
    uint32_t x_offset;
    uint32_t row_ptr_offset;
    uint32_t col_idx_offset;
    uint32_t values_offset;
    uint32_t y_offset;
} dpu_arguments_t;

#endif
