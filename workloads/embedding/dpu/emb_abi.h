/* SPDX-License-Identifier: MIT */
/* What the embedding host library (workloads/embedding/src) and its DPU kernel
 * (emb_kernel.c) share: the kernel's arguments.
 *
 * The arguments travel in MRAM, at the start of each lookup's input image
 * (one push per lookup: the host's WRAM writes cost far more per byte in the
 * timing model, as on the hardware); the WRAM variable emb_args_at, set once
 * when the tables are placed, says where.  There: struct emb_header, then
 * struct emb_shard_args for each shard.
 *
 * MRAM of a DPU (byte offsets from the start of MRAM; all multiples of 8):
 *   shard s's table slice at table_off: rows x cols_pad elements, row-major
 *     (cols_pad = cols rounded up to even, so every row starts 8-byte aligned
 *     and DMAs are whole 8-byte words; the pad column holds 0);
 *   its per-sample bag headers at hdr_off: batch pairs (start, count), start
 *     in elements from idx_off, always even (8-byte aligned bags);
 *   its local row indices at idx_off;
 *   its pooled partial outputs at out_off: batch x cols_pad elements (the pad
 *     column is written 0; only `cols` columns are summed). */
#ifndef EMB_ABI_H
#define EMB_ABI_H

#include <stdint.h>

#define EMB_MAX_SHARDS 64   /* table slices on one DPU */
#define EMB_CHUNK_COLS 128  /* columns summed per pass (one WRAM row buffer, 512 bytes) */
#define EMB_IDX_CHUNK 64    /* indices read per DMA */

#define EMB_TYPE_INT32 0u
#define EMB_TYPE_FLOAT 1u

struct emb_shard_args {
    uint32_t table_off, rows, cols, cols_pad, hdr_off, idx_off, out_off, nr_indices;
};

struct emb_header {
    uint32_t batch, type, nr_shards, pad;
};

/* bytes of arguments for n shards */
#define EMB_ARGS_BYTES(n) (sizeof(struct emb_header) + (n) * sizeof(struct emb_shard_args))

#endif
