/* SPDX-License-Identifier: MIT */
/* Internals of the embedding library: the grid layout a plan gives the
 * tables, error reporting, and the kernel images. */
#ifndef EMB_INTERNAL_H
#define EMB_INTERNAL_H

#include <stdint.h>

#include <dpu.h>

#include "../dpu/emb_abi.h"
#include "openpim_comm.h"
#include "openpim_embedding.h"

#define EMB_MRAM_BASE 0x08000000u

/* Where a plan puts each table.  Offsets are bytes from the start of MRAM,
 * the same on every DPU of a group (a slice keeps rows_per rows of room even
 * when it holds fewer). */
struct emb_layout {
    uint32_t R, C, G, nr_tables;
    uint32_t *group_of;     /* [t] */
    uint32_t *group_count;  /* [g] tables in group g */
    uint32_t *group_tables; /* [g * nr_tables + k]: k-th table of group g (table order) */
    uint32_t *cols;         /* [t] dim / C */
    uint32_t *cols_pad;     /* [t] cols rounded up to even */
    uint32_t *rows_per;     /* [t] ceil(rows / R) */
    uint64_t *table_off;    /* [t] */
    uint32_t *out_col;      /* [t] first column of t in its group's output row (elements, padded) */
    uint64_t table_bytes;   /* largest group's slices */
    uint32_t out_width;     /* largest group's padded output row (elements) */
    uint32_t max_shards;    /* largest group's table count */
};

/* Checks the plan against the tables and fills *l (free with emb_layout_free). */
openpim_emb_status emb_layout_make(const struct openpim_emb_plan *plan, uint32_t nr_tables,
                                   const struct openpim_emb_table *tables, struct emb_layout *l);
void emb_layout_free(struct emb_layout *l);
/* Rows of slice r of table t. */
uint32_t emb_slice_rows(const struct emb_layout *l, const struct openpim_emb_table *tables, uint32_t t, uint32_t r);
/* Worst-case input bytes (kernel arguments, bag headers, indices) of a DPU of group g for a batch. */
uint64_t emb_input_bytes(const struct emb_layout *l, const struct openpim_emb_table *tables, uint32_t g,
                         uint32_t batch);
/* MRAM offsets of the output and input regions for max_batch. */
uint64_t emb_out_base(const struct emb_layout *l);
uint64_t emb_in_base(const struct emb_layout *l, uint32_t max_batch);

openpim_emb_status emb_check_tables(uint32_t nr_tables, const struct openpim_emb_table *tables, int need_data);
openpim_emb_status emb_check_indices(uint32_t nr_tables, const struct openpim_emb_table *tables, uint32_t batch,
                                     const uint32_t *const *indices);

/* The kernel image for `tasklets` (NULL when there is none). */
struct dpu_incbin_t *emb_kernel_image(uint32_t tasklets);

/* Host work recorded in the modelled clock: bytes read + written at comm's
 * host DRAM bandwidth. */
double emb_host_us(uint64_t bytes);

openpim_emb_status emb_fail(openpim_emb_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
openpim_emb_status emb_dpu_fail(dpu_error_t rc, const char *what);
openpim_emb_status emb_comm_fail(openpim_comm_status rc, const char *what);
void emb_clear_error(void);

#endif
