/* SPDX-License-Identifier: MIT */
/* spmv, DPU side: y = A x for the block of rows of A held by this DPU.
 *
 * Each tasklet takes a contiguous range of rows.  Row pointers, column
 * indices and values are read front to back with three sequential readers
 * (seqread); x[col] is fetched with an 8-byte DMA; results are gathered in a
 * small buffer on the stack and written to MRAM a few rows at a time. */
#include <stdint.h>

/* Sequential-reader cache: each reader takes 2 x SEQREAD_CACHE_SIZE bytes of
 * WRAM; 3 readers x 24 tasklets need the smaller cache. */
#if NR_TASKLETS > 16
#define SEQREAD_CACHE_SIZE 128
#endif

#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <seqread.h>

#include "common.h"

#define Y_BUFFER_ROWS 16

__host dpu_arguments_t DPU_INPUT_ARGUMENTS;

BARRIER_INIT(start_barrier, NR_TASKLETS);

static value_t read_x(__mram_ptr value_t *x, uint32_t col)
{
    /* A DMA moves at least 8 aligned bytes: fetch the pair holding x[col]. */
    value_t pair[2] __dma_aligned;
    mram_read(x + (col & ~1u), pair, sizeof(pair));
    return pair[col & 1u];
}

int main(void)
{
    const unsigned int tasklet_id = me();

    if (tasklet_id == 0) {
        mem_reset();
    }
    barrier_wait(&start_barrier);

    /* Every tasklet takes its readers' caches from the heap. */
    seqreader_buffer_t row_ptr_cache = seqread_alloc();
    seqreader_buffer_t col_idx_cache = seqread_alloc();
    seqreader_buffer_t values_cache = seqread_alloc();

    const dpu_arguments_t args = DPU_INPUT_ARGUMENTS;
    __mram_ptr uint8_t *heap = (__mram_ptr uint8_t *)DPU_MRAM_HEAP_POINTER;
    __mram_ptr value_t *x = (__mram_ptr value_t *)(heap + args.x_offset);
    __mram_ptr uint32_t *row_ptr = (__mram_ptr uint32_t *)(heap + args.row_ptr_offset);
    __mram_ptr uint32_t *col_idx = (__mram_ptr uint32_t *)(heap + args.col_idx_offset);
    __mram_ptr value_t *values = (__mram_ptr value_t *)(heap + args.values_offset);
    __mram_ptr result_t *y = (__mram_ptr result_t *)(heap + args.y_offset);

    /* Rows [row_begin, row_end) of this tasklet. */
    const uint32_t base = args.nr_rows / NR_TASKLETS, extra = args.nr_rows % NR_TASKLETS;
    const uint32_t row_begin = tasklet_id * base + (tasklet_id < extra ? tasklet_id : extra);
    const uint32_t row_end = row_begin + base + (tasklet_id < extra ? 1u : 0u);
    if (row_begin == row_end) {
        return 0;
    }

    seqreader_t row_ptr_reader, col_idx_reader, values_reader;
    uint32_t *next_row_ptr = seqread_init(row_ptr_cache, row_ptr + row_begin, &row_ptr_reader);
    uint32_t nz = *next_row_ptr;
    uint32_t *col = seqread_init(col_idx_cache, col_idx + nz, &col_idx_reader);
    value_t *val = seqread_init(values_cache, values + nz, &values_reader);

    result_t y_buffer[Y_BUFFER_ROWS] __dma_aligned;
    uint32_t buffered = 0, buffer_first_row = row_begin;

    for (uint32_t row = row_begin; row < row_end; row++) {
        next_row_ptr = seqread_get(next_row_ptr, sizeof(uint32_t), &row_ptr_reader);
        const uint32_t row_nz_end = *next_row_ptr;
        result_t sum = 0;
        for (; nz < row_nz_end; nz++) {
            /* |value| <= 100 and |x| <= 1000 (see common.h): the product
             * fits in 32 bits, only the sum needs 64 (a 64-bit multiplication
             * is much more expensive on a DPU). */
            sum += *val * read_x(x, *col);
            col = seqread_get(col, sizeof(uint32_t), &col_idx_reader);
            val = seqread_get(val, sizeof(value_t), &values_reader);
        }
        y_buffer[buffered++] = sum;
        if (buffered == Y_BUFFER_ROWS || row + 1 == row_end) {
            mram_write(y_buffer, y + buffer_first_row, buffered * sizeof(result_t));
            buffer_first_row += buffered;
            buffered = 0;
        }
    }
    return 0;
}
