/* SPDX-License-Identifier: MIT */
/* DLRM's embedding stage on a 3D hypercube of DPUs, as PID-Comm ([PIDComm],
 * §VII-A) maps it: x = tables, y = rows, z = columns of the embedding tables.
 *
 * Model: the 26 categorical features of Criteo (cardinalities of the Kaggle
 * Display Advertising Challenge data, capped at max_rows), one int32 table
 * per feature of `dim` columns.  A sample has `pooling` indices per feature
 * (Criteo: 1), drawn from a power law (P(r) ~ 1/(r+1), rows scrambled by a
 * fixed permutation) from a deterministic seed; its pooled embedding of
 * feature g is the wrap-around sum of the looked-up rows.  The "remaining
 * layers" run on the DPUs too: DLRM's dot interaction (for every pair of
 * features i < j the dot product of their pooled embeddings, 325 int32 per
 * sample), then DLRM's top MLP for Criteo (325 -> 512 -> 256 -> 1, int8
 * weights, requantised activations, see dlrm_kernel_abi.h), whose int32
 * output is the sample's click logit.  Dense features and the bottom MLP are
 * not modelled (see README.md).
 *
 * Placement on X x Y x Z DPUs (node n = x + X*y + X*Y*z, comm's numbering):
 *   - table g lives in table group x = g % X, slot g / X; DPU (x, y, z) holds
 *     rows [y*Rg, (y+1)*Rg) (Rg = ceil(rows_g / Y)) and columns
 *     [z*Dz, (z+1)*Dz) (Dz = dim / Z) of every table of group x;
 *   - the batch of B samples is data-parallel: node n receives samples
 *     [n*S, (n+1)*S), S = B / (X*Y*Z), with a Scatter.
 * Data flow (every step on the DPUs or through comm/):
 *   Scatter   indices of the node's samples (host -> DPUs)
 *   kernel    pack: one block per destination node, its table group's indices
 *   AlltoAll  over xyz: every node gets the indices of all B samples for its group
 *   kernel    lookup: partial pooled embeddings from its rows and columns
 *   ReduceScatter along y: the complete embeddings of B/Y samples (its columns;
 *             none when Y = 1)
 *   AlltoAll  over xz: every node gets all tables and columns of S samples
 *   kernel    interaction: the 325 dot products per sample
 *   kernel    top MLP: one logit per sample
 *   Gather    the logits (DPUs -> host)
 * After the second AlltoAll, node (x, y, z) holds samples
 * y*B/Y + (x + X*z)*S + [0, S).
 *
 * Errors: functions return 0 or -1 with dlrm_last_error() saying why; a
 * refused configuration changes nothing. */
#ifndef OPENPIM_DLRM_H
#define OPENPIM_DLRM_H

#include <stdint.h>

#include <dpu.h>
#include <openpim_comm.h>

#include "dlrm_kernel_abi.h"

#define DLRM_TABLES 26                                       /* Criteo's categorical features */
#define DLRM_PAIRS (DLRM_TABLES * (DLRM_TABLES - 1) / 2)     /* 325 */
#define DLRM_MAX_DIM 32                                      /* the interaction kernel's WRAM */

struct dlrm_config {
    uint32_t X, Y, Z;   /* table groups, row shards, column shards: X*Y*Z DPUs */
    uint32_t batch;     /* samples; a multiple of X*Y*Z */
    uint32_t dim;       /* embedding dimension (PID-Comm: 16 and 32), a multiple of 2*Z, <= 32, and
                           slots x dim/Z <= 512 (slots = ceil(26/X) rounded up to even: the kernel's
                           2 KB embedding block per sample) */
    uint32_t pooling;   /* indices per sample and table (>= 1, Criteo: 1) */
    uint32_t max_rows;  /* cap on the tables' cardinalities (>= 1) */
    uint64_t seed;      /* tables and batch */
};

struct dlrm_model {
    struct dlrm_config cfg;
    uint32_t rows[DLRM_TABLES];
    int32_t *table[DLRM_TABLES]; /* [rows][dim] */
    int8_t *top;                 /* the top MLP's weights, DLRM_TOP_BYTES, rows padded as in MRAM */
};

/* Modelled microseconds (OpenPIM's timing model) of each step of one batch. */
struct dlrm_times {
    double scatter, pack, alltoall_xyz, lookup, reduce_scatter_y, alltoall_xz, interact, top_mlp, gather;
    double kernel, comm, host, total; /* kernels; AA + RS; Scatter + Gather; all */
};

/* Checks cfg and builds the tables; *model is freed with dlrm_model_free. */
int dlrm_model_create(const struct dlrm_config *cfg, struct dlrm_model *model);
void dlrm_model_free(struct dlrm_model *model);
/* The batch's indices, [batch][DLRM_TABLES][pooling] (malloc'd; free()). */
uint32_t *dlrm_batch_create(const struct dlrm_model *model);

/* Checks a batch's indices (as dlrm_batch_create lays them out): every index
 * of table g must be below rows[g].  0, or -1 naming the first index out of
 * range (table, sample, position, value, rows).  dlrm_cpu and dlrm_pim_run
 * call it first and refuse such a batch. */
int dlrm_check_batch(const struct dlrm_model *model, const uint32_t *idx);

/* CPU reference: logit [batch], inter [batch][DLRM_PAIRS] and emb
 * [batch][DLRM_TABLES][dim] (each may be NULL).  0, or -1 (as
 * dlrm_check_batch) with nothing written. */
int dlrm_cpu(const struct dlrm_model *model, const uint32_t *idx, int32_t *logit, int32_t *inter, int32_t *emb);

/* Runs the batch on `set` (exactly X*Y*Z DPUs) with comm's `impl`: loads
 * `kernel` (the dlrm_kernel DPU program), the tables and the top MLP (not
 * timed), then the steps above (timed).  Fills logit [batch] (sample order)
 * and, when not NULL, inter [batch][DLRM_PAIRS] and emb
 * [batch][DLRM_TABLES][dim], read back from the DPUs after the timed steps;
 * times may be NULL. */
int dlrm_pim_run(struct dpu_set_t set, const char *kernel, openpim_comm_impl impl, const struct dlrm_model *model,
                 const uint32_t *idx, int32_t *logit, int32_t *inter, int32_t *emb, struct dlrm_times *times);

const char *dlrm_last_error(void);

#endif
