/* SPDX-License-Identifier: MIT */
/* What the host and the DLRM DPU kernel (dpu/dlrm_kernel.c) share: the
 * launch arguments (a __host variable, the same on every DPU) and the
 * per-DPU header at MRAM offset 0 (written once with the tables). */
#ifndef OPENPIM_DLRM_KERNEL_ABI_H
#define OPENPIM_DLRM_KERNEL_ABI_H

#include <stdint.h>

enum dlrm_mode { DLRM_PACK = 0, DLRM_LOOKUP = 1, DLRM_INTERACT = 2, DLRM_TOP = 3 };

/* The top MLP (DLRM's Criteo configuration "512-256-1" on the 325 interactions):
 * int8 weights, activations requantised to [0, 255] between layers,
 * a = min(max(acc, 0) >> shift, 255), int32 accumulators, the last layer's
 * accumulator (the click logit) is the output. */
#define DLRM_TOP_LAYERS 3
#define DLRM_TOP_ZP 4 /* MRAM holds weight + 4 (uint8): sum(w*x) = sum((w+4)*x) - 4*sum(x) */
#define DLRM_TOP_IN0 325
#define DLRM_TOP_N1 512
#define DLRM_TOP_N2 256
#define DLRM_TOP_N3 1
#define DLRM_TOP_SHIFT0 0 /* interactions -> layer 1 input */
#define DLRM_TOP_SHIFT1 5
#define DLRM_TOP_SHIFT2 5
#define DLRM_TOP_ROW0 328 /* weight row bytes of layer 1 (325 padded to 8) */
#define DLRM_TOP_BYTES (DLRM_TOP_N1 * DLRM_TOP_ROW0 + DLRM_TOP_N2 * DLRM_TOP_N1 + DLRM_TOP_N3 * DLRM_TOP_N2)

#define DLRM_MAX_SLOTS 32u    /* tables per group (header size) */
#define DLRM_INTER_STRIDE 326 /* 325 pairs padded to 8 bytes */

struct dlrm_args {
    uint32_t mode;
    uint32_t X, Z, Tx, pool, Dz, S, B, P; /* groups, column shards, slots per group, indices, columns per shard,
                                          samples per node, batch, nodes */
    uint32_t off_idx_local;            /* [S][X*Tx][pool]          (Scatter's destination) */
    uint32_t off_send;                 /* [P][S][Tx][pool]         (AlltoAll xyz source) */
    uint32_t off_idx_all;              /* [B][Tx][pool]            (AlltoAll xyz destination) */
    uint32_t off_part;                 /* [B][Tx][Dz]              (ReduceScatter source) */
    uint32_t off_rsout;                /* [B/Y][Tx][Dz]            (RS destination, AlltoAll xz source) */
    uint32_t off_emb;                  /* [X*Z][S][Tx][Dz]         (AlltoAll xz destination) */
    uint32_t off_inter;                /* [S][DLRM_INTER_STRIDE]   interactions */
    uint32_t off_top;                  /* top MLP weights + DLRM_TOP_ZP, uint8: [512][328], [256][512], [1][256] */
    uint32_t off_logit;                /* [S][2] int32: logit, 0   (Gather's source) */
    uint32_t off_tables;               /* the table shards (the header gives each slot's offset) */
    uint32_t pad;
};

struct dlrm_node_header {
    uint32_t x, y, z, pad;
    uint32_t shard_rows[DLRM_MAX_SLOTS]; /* rows per shard of the slot's table; 0: no table */
    uint32_t slot_off[DLRM_MAX_SLOTS];   /* MRAM offset of the slot's shard, [rows][Dz] */
};

#endif
