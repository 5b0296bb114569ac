/* SPDX-License-Identifier: MIT */
/* GNN layer kernels (PID-Comm §VII-B): aggregation (SpMM of the PE's
 * adjacency tile with its feature strip) and combination (GEMM with its
 * slice of the layer's weights).  Elements are ELEM_BYTES wide (1: int8,
 * 4: int32) and all arithmetic is modulo 2^(8 ELEM_BYTES), as in the CPU
 * reference (gnn_ref.c): sums accumulate in uint32 and are truncated; ReLU
 * reads the element as signed.  An int8 product is computed on the
 * zero-extended bytes (its low byte is the signed product's), which is the
 * DPU's 8x8 multiply.
 *
 * Built twice per type: plain (GNN_SPMM, GNN_GEMM: the row and the weight
 * slice in WRAM) and with GNN_TILED also the tiled kernels (any width).  The
 * plain image is the program as it was before the tiled kernels existed, so
 * the widths it handles keep their instruction counts (and modelled times). */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#include "../gnn_args.h"

#if ELEM_BYTES == 1
typedef uint8_t elem_t;
typedef int8_t selem_t;
#elif ELEM_BYTES == 4
typedef uint32_t elem_t;
typedef int32_t selem_t;
#else
#error "ELEM_BYTES must be 1 or 4"
#endif

__host struct gnn_args gnn_args;

__dma_aligned elem_t wbuf[GNN_WRAM_WEIGHTS / ELEM_BYTES];
__dma_aligned elem_t row[NR_TASKLETS][GNN_MAX_FEATURES];
__dma_aligned uint32_t acc[NR_TASKLETS][GNN_MAX_FEATURES];
__dma_aligned uint32_t colb[NR_TASKLETS][64];
__dma_aligned uint32_t rpb[NR_TASKLETS][4];

BARRIER_INIT(gnn_barrier, NR_TASKLETS);

#define MRAM(off) ((__mram_ptr void *)(uintptr_t)(0x08000000u + (uint32_t)(off)))

static elem_t relu(elem_t v)
{
    return (selem_t)v < 0 ? 0 : v;
}

/* MRAM <-> WRAM of any multiple of 8 bytes (DMAs of at most 2,048). */
static void read_big(uint32_t off, void *dst, uint32_t bytes)
{
    for (uint32_t d = 0; d < bytes; d += 2048)
        mram_read(MRAM(off + d), (uint8_t *)dst + d, bytes - d < 2048 ? bytes - d : 2048);
}

static void relayout(const struct gnn_args *a, uint32_t id)
{
    const uint32_t bw = a->width / a->blocks * ELEM_BYTES, rb = a->width * ELEM_BYTES;
    for (uint32_t r = id; r < a->rows; r += NR_TASKLETS) {
        for (uint32_t b = 0; b < a->blocks; b++)
            mram_read(MRAM(a->gathered + (b * a->rows + r) * bw), (uint8_t *)row[id] + b * bw, bw);
        mram_write(row[id], MRAM(a->in + r * rb), rb);
    }
}

static void spmm(const struct gnn_args *a, uint32_t id)
{
    const uint32_t F = a->width, rb = F * ELEM_BYTES, bw = F / a->blocks * ELEM_BYTES;
    for (uint32_t r = id; r < a->rows; r += NR_TASKLETS) {
        for (uint32_t f = 0; f < F; f++)
            acc[id][f] = 0;
        mram_read(MRAM(a->rp + (r & ~1u) * 4), rpb[id], 16);
        uint32_t e = rpb[id][r & 1], end = rpb[id][(r & 1) + 1];
        while (e < end) {
            uint32_t base = e & ~1u, n = end - base < 64 ? end - base : 64;
            mram_read(MRAM(a->col + base * 4), colb[id], (n * 4 + 7) & ~7u);
            for (uint32_t k = e - base; k < n; k++) {
                mram_read(MRAM(a->in + colb[id][k] * rb), row[id], rb);
                if (a->relu_in)
                    for (uint32_t f = 0; f < F; f++)
                        acc[id][f] += (uint32_t)(selem_t)relu(row[id][f]);
                else
                    for (uint32_t f = 0; f < F; f++)
                        acc[id][f] += (uint32_t)(selem_t)row[id][f];
            }
            e = base + n;
        }
        for (uint32_t f = 0; f < F; f++)
            row[id][f] = (elem_t)acc[id][f];
        if (!a->out_blocked)
            mram_write(row[id], MRAM(a->out + r * rb), rb);
        else
            for (uint32_t b = 0; b < a->blocks; b++)
                mram_write((uint8_t *)row[id] + b * bw, MRAM(a->out + (b * a->rows + r) * bw), bw);
    }
}

static void gemm(const struct gnn_args *a, uint32_t id)
{
    const uint32_t K = a->k, N = a->n, wbytes = K * N * ELEM_BYTES;
    for (uint32_t d = id * 2048; d < wbytes; d += NR_TASKLETS * 2048)
        mram_read(MRAM(a->w + d), (uint8_t *)wbuf + d, wbytes - d < 2048 ? wbytes - d : 2048);
    barrier_wait(&gnn_barrier);
    for (uint32_t r = id; r < a->rows; r += NR_TASKLETS) {
        read_big(a->in + r * K * ELEM_BYTES, row[id], K * ELEM_BYTES);
        for (uint32_t n = 0; n < N; n++)
            acc[id][n] = 0;
        for (uint32_t k = 0; k < K; k++) {
            const elem_t x = row[id][k];
            if (x == 0)
                continue;
            const elem_t *w = &wbuf[k * N];
            for (uint32_t n = 0; n < N; n++)
                acc[id][n] += (uint32_t)x * (uint32_t)w[n];
        }
        for (uint32_t n = 0; n < N; n++)
            row[id][n] = a->relu_out ? relu((elem_t)acc[id][n]) : (elem_t)acc[id][n];
        mram_write(row[id], MRAM(a->out + r * N * ELEM_BYTES), N * ELEM_BYTES);
    }
}

#if GNN_TILED
/* ---- the tiled kernels: any width (F > GNN_MAX_FEATURES, a weight slice over
 * GNN_WRAM_WEIGHTS).  Every MRAM offset and length below is a whole number of
 * 8-byte words: rows, column blocks and chunks are (the host pads the
 * features), and so is any difference of them. */

#define CHUNK GNN_MAX_FEATURES /* features per pass of tiled SpMM: a row's accumulators */

static uint32_t min_u32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

/* MRAM -> MRAM through the tasklet's row buffer, in DMAs of at most a chunk. */
static void copy_mram(uint32_t dst, uint32_t src, uint32_t bytes, uint32_t id)
{
    for (uint32_t d = 0; d < bytes; d += CHUNK * ELEM_BYTES) {
        const uint32_t n = min_u32(bytes - d, CHUNK * ELEM_BYTES);
        mram_read(MRAM(src + d), row[id], n);
        mram_write(row[id], MRAM(dst + d), n);
    }
}

static void relayout_tiled(const struct gnn_args *a, uint32_t id)
{
    const uint32_t bw = a->width / a->blocks * ELEM_BYTES, rb = a->width * ELEM_BYTES;
    for (uint32_t r = id; r < a->rows; r += NR_TASKLETS)
        for (uint32_t b = 0; b < a->blocks; b++)
            copy_mram(a->in + r * rb + b * bw, a->gathered + (b * a->rows + r) * bw, bw, id);
}

/* spmm() one chunk of CHUNK features at a time: each chunk walks the row's
 * edges again and reads only its piece of each neighbour's row. */
static void spmm_tiled(const struct gnn_args *a, uint32_t id)
{
    const uint32_t F = a->width, rb = F * ELEM_BYTES, fq = F / a->blocks;
    for (uint32_t r = id; r < a->rows; r += NR_TASKLETS) {
        mram_read(MRAM(a->rp + (r & ~1u) * 4), rpb[id], 16);
        const uint32_t first = rpb[id][r & 1], end = rpb[id][(r & 1) + 1];
        for (uint32_t c0 = 0; c0 < F; c0 += CHUNK) {
            const uint32_t cw = min_u32(CHUNK, F - c0);
            for (uint32_t f = 0; f < cw; f++)
                acc[id][f] = 0;
            uint32_t e = first;
            while (e < end) {
                uint32_t base = e & ~1u, n = min_u32(end - base, 64);
                mram_read(MRAM(a->col + base * 4), colb[id], (n * 4 + 7) & ~7u);
                for (uint32_t k = e - base; k < n; k++) {
                    mram_read(MRAM(a->in + colb[id][k] * rb + c0 * ELEM_BYTES), row[id], cw * ELEM_BYTES);
                    if (a->relu_in)
                        for (uint32_t f = 0; f < cw; f++)
                            acc[id][f] += (uint32_t)(selem_t)relu(row[id][f]);
                    else
                        for (uint32_t f = 0; f < cw; f++)
                            acc[id][f] += (uint32_t)(selem_t)row[id][f];
                }
                e = base + n;
            }
            for (uint32_t f = 0; f < cw; f++)
                row[id][f] = (elem_t)acc[id][f];
            if (!a->out_blocked) {
                mram_write(row[id], MRAM(a->out + r * rb + c0 * ELEM_BYTES), cw * ELEM_BYTES);
                continue;
            }
            /* the chunk's pieces of the column blocks it overlaps */
            for (uint32_t lo = c0, hi; lo < c0 + cw; lo = hi) {
                const uint32_t b = lo / fq;
                hi = min_u32((b + 1) * fq, c0 + cw);
                mram_write(&row[id][lo - c0], MRAM(a->out + ((b * a->rows + r) * fq + lo - b * fq) * ELEM_BYTES),
                           (hi - lo) * ELEM_BYTES);
            }
        }
    }
}

/* gemm() with the weights streamed from MRAM one tile at a time (the layout
 * of gnn_args.h), every tasklet loading a share of it.  A row's partial sums
 * over the row tiles done so far are kept in out (as elements: the sums are
 * modulo 2^(8 ELEM_BYTES), so truncating between tiles changes nothing);
 * ReLU is applied after the last row tile. */
static void gemm_tiled(const struct gnn_args *a, uint32_t id)
{
    const uint32_t K = a->k, N = a->n, tn = gnn_tile_n(N), tk = gnn_tile_k(N, ELEM_BYTES);
    for (uint32_t k0 = 0; k0 < K; k0 += tk) {
        const uint32_t kw = min_u32(tk, K - k0);
        for (uint32_t n0 = 0; n0 < N; n0 += tn) {
            const uint32_t nw = min_u32(tn, N - n0), wbytes = kw * nw * ELEM_BYTES;
            const uint32_t w = a->w + (k0 * N + kw * n0) * ELEM_BYTES;
            barrier_wait(&gnn_barrier); /* everyone is done with the previous tile */
            for (uint32_t d = id * 2048; d < wbytes; d += NR_TASKLETS * 2048)
                mram_read(MRAM(w + d), (uint8_t *)wbuf + d, min_u32(wbytes - d, 2048));
            barrier_wait(&gnn_barrier);
            const int last = k0 + kw == K;
            for (uint32_t r = id; r < a->rows; r += NR_TASKLETS) {
                const uint32_t out = a->out + (r * N + n0) * ELEM_BYTES;
                if (k0 == 0) {
                    for (uint32_t n = 0; n < nw; n++)
                        acc[id][n] = 0;
                } else {
                    mram_read(MRAM(out), row[id], nw * ELEM_BYTES);
                    for (uint32_t n = 0; n < nw; n++)
                        acc[id][n] = row[id][n];
                }
                mram_read(MRAM(a->in + (r * K + k0) * ELEM_BYTES), row[id], kw * ELEM_BYTES);
                for (uint32_t k = 0; k < kw; k++) {
                    const elem_t x = row[id][k];
                    if (x == 0)
                        continue;
                    const elem_t *wr = &wbuf[k * nw];
                    for (uint32_t n = 0; n < nw; n++)
                        acc[id][n] += (uint32_t)x * (uint32_t)wr[n];
                }
                for (uint32_t n = 0; n < nw; n++)
                    row[id][n] = last && a->relu_out ? relu((elem_t)acc[id][n]) : (elem_t)acc[id][n];
                mram_write(row[id], MRAM(out), nw * ELEM_BYTES);
            }
        }
    }
}

#endif

int main(void)
{
    const uint32_t id = me();
    const struct gnn_args a = gnn_args;
    if (a.mode == GNN_SPMM) {
        if (a.relayout) {
            relayout(&a, id);
            barrier_wait(&gnn_barrier);
        }
        spmm(&a, id);
    }
#if !GNN_TILED
    else {
        gemm(&a, id);
    }
#else
    else if (a.mode == GNN_GEMM) {
        gemm(&a, id);
    } else if (a.mode == GNN_SPMM_TILED) {
        if (a.relayout) {
            relayout_tiled(&a, id);
            barrier_wait(&gnn_barrier);
        }
        spmm_tiled(&a, id);
    } else {
        gemm_tiled(&a, id);
    }
#endif
    return 0;
}
