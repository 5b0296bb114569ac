/* SPDX-License-Identifier: MIT */
/* Arguments of the GNN DPU kernel (dpu/gnn.c), shared by the host program.
 * Offsets are MRAM byte offsets from the start of MRAM; sizes and offsets of
 * every row and block are multiples of 8 bytes (the host checks). */
#ifndef OPENPIM_GNN_ARGS_H
#define OPENPIM_GNN_ARGS_H

#include <stdint.h>

#define GNN_MAX_FEATURES 256u    /* a row's accumulators (uint32) fit a tasklet's WRAM */
#define GNN_WRAM_WEIGHTS 16384u  /* bytes of the weight slice held in WRAM by GEMM */

/* The plain kernels hold a whole row (width, k, n <= GNN_MAX_FEATURES) and the
 * whole weight slice (<= GNN_WRAM_WEIGHTS bytes) in WRAM; the tiled ones take
 * any size: SpMM in feature chunks of GNN_MAX_FEATURES, GEMM streaming the
 * slice tile by tile (gnn_tile_k x gnn_tile_n). */
enum gnn_mode {
    GNN_SPMM,       /* out[r] = sum over the tile's row r of in[c] (aggregation) */
    GNN_GEMM,       /* out[r] = in[r] x W (combination) */
    GNN_SPMM_TILED, /* the same, feature chunk by feature chunk */
    GNN_GEMM_TILED, /* the same, weight tile by weight tile, partial sums kept in out */
};

/* Tiles of a tiled GEMM's weights W (k x n): at most gnn_tile_k(n, eb) rows by
 * gnn_tile_n(n) columns, so that one fits the WRAM buffer (columns: the
 * accumulators of a row; rows: a multiple of 8, so that every tile's piece of
 * an input row is a whole number of 8-byte words when k is).  In MRAM the
 * tiles follow each other row-tile by row-tile, each row-major: element
 * (i, j) of the tile at row k0 (kw rows) and column n0 (nw columns) lies at
 * k0 n + kw n0 + (i - k0) nw + (j - n0).  With one column tile (n <=
 * GNN_MAX_FEATURES) that is plain row-major order: the plain GEMM's layout. */
static inline uint32_t gnn_tile_n(uint32_t n)
{
    return n < GNN_MAX_FEATURES ? n : GNN_MAX_FEATURES;
}

static inline uint32_t gnn_tile_k(uint32_t n, uint32_t elem_bytes)
{
    const uint32_t k = GNN_WRAM_WEIGHTS / (gnn_tile_n(n) * elem_bytes) & ~7u;
    return k < GNN_MAX_FEATURES ? k : GNN_MAX_FEATURES;
}

struct gnn_args {
    uint32_t mode;
    uint32_t rows;       /* rows of the PE's vertex block */
    /* SPMM */
    uint32_t rp, col;    /* the tile (CSR, local indices) */
    uint32_t width;      /* features per row of in and out */
    uint32_t blocks;     /* column blocks of the blocked layout [blocks][rows][width / blocks] */
    uint32_t out_blocked;/* write out in the blocked layout (else row-major) */
    uint32_t relayout;   /* first turn the blocked rows at `gathered` into row-major rows at `in` */
    uint32_t gathered;
    uint32_t relu_in;    /* aggregate max(in, 0) */
    /* GEMM: in is rows x k, w is k x n (both row-major), out rows x n */
    uint32_t k, n, w;
    uint32_t relu_out;
    /* both */
    uint32_t in, out;
};

#endif
