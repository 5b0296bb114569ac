/* Arguments of the GNN DPU kernel (dpu/gnn.c), shared by the host program.
 * Offsets are MRAM byte offsets from the start of MRAM; sizes and offsets of
 * every row and block are multiples of 8 bytes (the host checks). */
#ifndef OPENPIM_GNN_ARGS_H
#define OPENPIM_GNN_ARGS_H

#include <stdint.h>

#define GNN_MAX_FEATURES 256u    /* a row's accumulators (uint32) fit a tasklet's WRAM */
#define GNN_WRAM_WEIGHTS 16384u  /* bytes of the weight slice held in WRAM by GEMM */

enum gnn_mode {
    GNN_SPMM, /* out[r] = sum over the tile's row r of in[c] (aggregation) */
    GNN_GEMM, /* out[r] = in[r] x W (combination) */
};

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
