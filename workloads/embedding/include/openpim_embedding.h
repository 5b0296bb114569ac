/* SPDX-License-Identifier: MIT */
/* OpenPIM embedding tables: lookup with sum pooling on the DPUs of a
 * dpu_set_t, the tables partitioned across DPUs ([Jonatan24], §4: Jonatan et
 * al., "Scalability Limitations of Processing-in-Memory using Real System
 * Evaluations").
 *
 * Tables.  Table t has `rows` rows of `dim` elements (int32 or float, the
 * same type for every table), row-major, and a pooling factor P: each lookup
 * of a batch of B samples gives, per sample b and table t, the sum of the P
 * rows indices[t][b * P + 0 .. P - 1] (a "bag").  The output of one lookup is
 * out[b][total_dim], table t's pooled vector at columns col_offset(t) =
 * dim[0] + ... + dim[t - 1] (the concatenation DLRM's interaction takes).
 *
 * Partitioning ("sharding", named as TorchRec's ShardingType names them).
 * Every plan is a grid of R x C x G DPUs: the tables are dealt to G groups
 * (table-wise, largest first onto the group with the fewest bytes), and
 * inside a group every table is cut into C column slices (dim / C columns
 * each; C must divide every dim) and R row slices (ceil(rows / R) rows each,
 * the last ones shorter or empty).  DPU (r, c, g) holds slice (r, c) of each
 * table of group g.
 *   OPENPIM_EMB_TABLE_WISE      "table_wise"      R = C = 1, G = DPUs (G <= tables)
 *   OPENPIM_EMB_ROW_WISE        "row_wise"        R = DPUs
 *   OPENPIM_EMB_COLUMN_WISE     "column_wise"     C = DPUs (C divides every dim)
 *   OPENPIM_EMB_TABLE_ROW_WISE  "table_row_wise"  G groups x R rows ([Jonatan24]'s T-R hybrid)
 *   OPENPIM_EMB_GRID_SHARD      "grid_shard"      C columns x R rows ([Jonatan24]'s C-R,
 *                               "column-row" hybrid)
 *   OPENPIM_EMB_TABLE_COLUMN_WISE "table_column_wise"  G groups x C columns
 * [Jonatan24]'s column-row hybrid is what TorchRec calls grid_shard (each rank
 * a subset of columns and rows); TorchRec versions before grid_shard had no
 * name for it.  A plan with R, C and G all above 1 (table x column x row) has
 * no TorchRec name: OPENPIM_EMB_CUSTOM.
 *
 * A lookup.  The host checks every index, splits each bag by row slice
 * (a DPU receives only the indices of its rows; column slices all receive
 * them), pushes them with the kernel's arguments (CPU-DPU), launches the
 * kernel (tasklets share the (table, sample) items; each DMAs the rows it
 * needs into WRAM and sums them there), then brings the pooled vectors back
 * through the collective library (comm/): with R > 1, openpim_reduce sums the
 * R row-slice partials of each (column slice, group) on the host (the
 * paper's global reduction); with R = 1, openpim_gather.  Last, the host
 * concatenates the column slices and tables into `out`.
 *
 * Float results.  Each DPU sums its rows of a bag in bag order starting from
 * +0.0f; comm sums the R partials in row-slice order (p0 + p1 + ... ), all in
 * IEEE single precision.  The result is therefore deterministic and equal to
 * that order of summation on the host (tests check it exactly); against a
 * plain left-to-right sum of the bag it differs by at most the usual
 * (P + R) * FLT_EPSILON * sum |x| rounding bound.  int32 sums wrap around
 * (two's complement), exactly as on the host.
 *
 * Modelled time.  Transfers, launches and comm's host pass are charged by
 * the SDK and comm as they happen; this library records its own host work
 * (splitting the indices, concatenating the outputs) with
 * openpim_record_host_event (category "Other"), costed as the bytes it reads
 * and writes at comm's modelled host DRAM bandwidth
 * (openpim_comm_get_cost_model().dram_gbps).
 *
 * Errors.  Every function returns OPENPIM_EMB_OK or a negative status;
 * openpim_emb_last_error() says why (thread-local).  Arguments are checked
 * before anything is sent: a refused lookup changes nothing, and never
 * returns a partial or wrong output.
 *
 * Thread safety: one thread at a time per openpim_emb_t. */
#ifndef OPENPIM_EMBEDDING_H
#define OPENPIM_EMBEDDING_H

#include <stddef.h>
#include <stdint.h>

#include <dpu.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum openpim_emb_status {
    OPENPIM_EMB_OK = 0,
    OPENPIM_EMB_ERR_ARGUMENT = -1, /* NULL pointer, zero size, unknown type or sharding */
    OPENPIM_EMB_ERR_PLAN = -2,     /* the plan does not suit the tables or the set (says why) */
    OPENPIM_EMB_ERR_CAPACITY = -3, /* a DPU's share does not fit in its MRAM */
    OPENPIM_EMB_ERR_INDEX = -4,    /* an index >= the table's rows */
    OPENPIM_EMB_ERR_DPU = -5,      /* the SDK or comm refused a call (message says which) */
    OPENPIM_EMB_ERR_NOMEM = -6,    /* host memory */
} openpim_emb_status;

typedef enum openpim_emb_type {
    OPENPIM_EMB_INT32,
    OPENPIM_EMB_FLOAT,
} openpim_emb_type;

typedef enum openpim_emb_sharding {
    OPENPIM_EMB_TABLE_WISE,
    OPENPIM_EMB_ROW_WISE,
    OPENPIM_EMB_COLUMN_WISE,
    OPENPIM_EMB_TABLE_ROW_WISE,
    OPENPIM_EMB_GRID_SHARD,
    OPENPIM_EMB_TABLE_COLUMN_WISE,
    OPENPIM_EMB_CUSTOM, /* R, C, G given by the caller (any of them may exceed 1) */
    OPENPIM_EMB_NR_SHARDINGS
} openpim_emb_sharding;

struct openpim_emb_table {
    uint32_t rows;    /* >= 1 */
    uint32_t dim;     /* >= 1 */
    uint32_t pooling; /* P: indices per bag, >= 1 */
    const void *data; /* rows x dim elements, row-major; read by openpim_emb_create only */
};

/* R x C x G must equal the set's DPU count. */
struct openpim_emb_plan {
    openpim_emb_sharding sharding;
    uint32_t row_shards; /* R */
    uint32_t col_shards; /* C */
    uint32_t groups;     /* G */
};

struct openpim_emb_config {
    openpim_emb_type type;
    uint32_t max_batch; /* largest batch a lookup may have (sizes the MRAM output region) */
    uint32_t tasklets;  /* 0: 16; else one of openpim_emb_tasklets() */
    int comm_impl;      /* -1: comm's default; else an openpim_comm_impl for the reduction */
};

/* Tasklet counts with a kernel image (1, 2, 4, 6, 8, 11, 12, 16, 20, 24);
 * returns how many, fills list[] when it is not NULL (room for 16). */
uint32_t openpim_emb_tasklets(uint32_t *list);

const char *openpim_emb_sharding_name(openpim_emb_sharding sharding); /* TorchRec's name; NULL if unknown */

/* A plan of `sharding` for nr_dpus DPUs.  `split` is the hybrids' free
 * choice: R for table_row_wise and grid_shard (G or C = nr_dpus / R), C for
 * table_column_wise; ignored by the others.  Checks only the shape (R x C x G
 * = nr_dpus, C divides every dim, G <= tables); capacity is checked by
 * openpim_emb_create and openpim_emb_plan_fits. */
openpim_emb_status openpim_emb_plan_make(openpim_emb_sharding sharding, uint32_t nr_dpus, uint32_t split,
                                         uint32_t nr_tables, const struct openpim_emb_table *tables,
                                         struct openpim_emb_plan *plan);

/* Whether the plan's largest DPU share (table slices, outputs for max_batch,
 * indices of max_batch samples in the worst case: every index of a bag on
 * one DPU) fits in mram_bytes; *need (may be NULL) gets that share in bytes.
 * OPENPIM_EMB_OK or OPENPIM_EMB_ERR_CAPACITY (or a shape error). */
openpim_emb_status openpim_emb_plan_fits(const struct openpim_emb_plan *plan, uint32_t nr_tables,
                                         const struct openpim_emb_table *tables, uint32_t max_batch,
                                         uint64_t mram_bytes, uint64_t *need);

typedef struct openpim_emb openpim_emb_t;

/* Loads the kernel on `set` (which must stay allocated while *emb lives), and
 * places the tables' slices in the DPUs' MRAM as `plan` says.  The set's
 * programs and MRAM belong to the library until openpim_emb_destroy. */
openpim_emb_status openpim_emb_create(struct dpu_set_t set, const struct openpim_emb_config *config,
                                      uint32_t nr_tables, const struct openpim_emb_table *tables,
                                      const struct openpim_emb_plan *plan, openpim_emb_t **emb);
void openpim_emb_destroy(openpim_emb_t *emb); /* NULL is fine */

/* Modelled microseconds of one lookup, by phase (SDK/comm clock deltas and
 * this library's recorded host events). */
struct openpim_emb_times {
    double host_split_us;  /* host: checking and splitting the indices */
    double cpu_dpu_us;     /* pushing indices and kernel arguments */
    double kernel_us;      /* the launch */
    double retrieve_us;    /* comm's Reduce (R > 1: DPU-CPU transfer + host reduction) or Gather */
    double host_concat_us; /* host: concatenating slices into `out` */
    double total_us;       /* the modelled clock over the whole call */
};

/* One batch: indices[t] holds batch x tables[t].pooling row numbers of table
 * t; out receives batch x total_dim elements.  1 <= batch <= max_batch.
 * times may be NULL. */
openpim_emb_status openpim_emb_lookup(openpim_emb_t *emb, uint32_t batch, const uint32_t *const *indices, void *out,
                                      struct openpim_emb_times *times);

/* For benchmarks: modelled microseconds of moving the last lookup's outputs
 * from the DPUs to the host alone (an openpim_gather of the bytes its Reduce
 * or Gather moved; the data is thrown away).  With R > 1, retrieve_us minus
 * this is comm's host reduction (the paper's Inter-DPU/Host reduction time).
 * Adds to the modelled clock.  ERR_ARGUMENT before any lookup. */
openpim_emb_status openpim_emb_measure_transfer_back(openpim_emb_t *emb, double *us);

/* The plan in use, and the DPU (one-DPU set) holding grid cell (r, c, g), for
 * reading the timing model's per-DPU statistics. */
const struct openpim_emb_plan *openpim_emb_get_plan(const openpim_emb_t *emb);
openpim_emb_status openpim_emb_cell_dpu(const openpim_emb_t *emb, uint32_t r, uint32_t c, uint32_t g,
                                        struct dpu_set_t *dpu);

/* ---- planner --------------------------------------------------------------------
 * Candidates: every sharding and split whose shape suits the tables and set
 * and whose largest share fits the set's MRAM (openpim_get_memory_sizes).  Each
 * gets an estimate of one lookup of max_batch samples, uniformly random
 * indices, from the timing model:
 *   kernel    the slowest DPU's slowest tasklets: the modelled cycles per bag
 *             and per lookup of each slice width, and a lone tasklet's, from
 *             probe launches of the kernel on one DPU of the set (modelled
 *             times are deterministic), applied to every tasklet's bags and a
 *             draw of their lookups in each row slice (a fixed seed: the
 *             estimate is deterministic too), expected over a few draws;
 *   transfers the modelled time of probe pushes to / from the set at five
 *             sizes (8 B - 64 KB per DPU), interpolated piecewise linearly
 *             to the plan's bytes per DPU;
 *   host      comm's host cost model for the reduction, and this library's
 *             splitting and concatenation costs.
 * The probes load the kernel on `set` and overwrite its MRAM; they add to the
 * run's modelled time. */
struct openpim_emb_estimate {
    struct openpim_emb_plan plan;
    uint64_t mram_need;   /* bytes on the fullest DPU */
    double kernel_us, cpu_dpu_us, dpu_cpu_us, host_us, total_us;
};

/* Fills up to max_out candidates sorted by total_us (fastest first) into
 * out[] (may be NULL with max_out 0), *nr_out gets how many were found;
 * *best (may be NULL) the fastest.  OPENPIM_EMB_ERR_CAPACITY when no plan
 * fits (the message gives the smallest share against MRAM). */
openpim_emb_status openpim_emb_plan_auto(struct dpu_set_t set, const struct openpim_emb_config *config,
                                         uint32_t nr_tables, const struct openpim_emb_table *tables,
                                         struct openpim_emb_plan *best, struct openpim_emb_estimate *out,
                                         uint32_t max_out, uint32_t *nr_out);

/* ---- CPU reference ----------------------------------------------------------------
 * The same lookup on the host, one thread, each bag summed left to right from
 * 0 (int32 wrapping; float in single precision): the CPU baseline of the
 * benchmarks.  Checks indices like openpim_emb_lookup. */
openpim_emb_status openpim_emb_cpu_lookup(openpim_emb_type type, uint32_t nr_tables,
                                          const struct openpim_emb_table *tables, uint32_t batch,
                                          const uint32_t *const *indices, void *out);

const char *openpim_emb_last_error(void);
const char *openpim_emb_status_name(openpim_emb_status status);

#ifdef __cplusplus
}
#endif

#endif
