/* GNN layer kernels (PID-Comm §VII-B): aggregation (SpMM of the PE's
 * adjacency tile with its feature strip) and combination (GEMM with its
 * slice of the layer's weights).  Elements are ELEM_BYTES wide (1: int8,
 * 4: int32) and all arithmetic is modulo 2^(8 ELEM_BYTES), as in the CPU
 * reference (gnn_ref.c): sums accumulate in uint32 and are truncated; ReLU
 * reads the element as signed.  An int8 product is computed on the
 * zero-extended bytes (its low byte is the signed product's), which is the
 * DPU's 8x8 multiply. */
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
    } else {
        gemm(&a, id);
    }
    return 0;
}
