/* SPDX-License-Identifier: MIT */
/* Streaming kernels in the shape of PrIM's VA, RED and HST-S (written for
 * OpenPIM after reading CMU-SAFARI/prim-benchmarks; no code taken), so that the
 * timing model's cost per element can be set beside the real-hardware PrIM runs
 * (bench/calibration/data/prim-hw-train.csv) without PrIM itself:
 *   mode 0  VA: int32, c = a + b over 1-KB blocks, tasklet t takes blocks
 *           t, t + T, ...; the block is added by a function over two WRAM
 *           buffers from mem_alloc, as PrIM's vector_addition
 *   mode 1  RED: int64 sum of 1-KB blocks, one partial sum per tasklet
 *   mode 2  HST-S: 32-bit pixels of 1-KB blocks into a private 256-bin
 *           histogram per tasklet, bin = (pixel * bins) >> 12 with bins = 256
 *           set by the host (a multiply, as PrIM's runtime bin count), merged
 *           at the end by tasklet 0 after a barrier
 * n: elements per DPU (a multiple of the block's elements x NR_TASKLETS).
 *
 * variant takes the kernel apart, to tell where its cycles go (probe_host.c):
 *   0  as above: each block is read from MRAM, computed (and written back)
 *   1  compute only: the same loop over the same number of blocks, on the
 *      tasklet's first block, read once before the counted phase (no DMA in it)
 *   2  DMA only: the same transfers, no compute
 * With counter 1 (cycles) or 2 (instructions) the DPU's performance counter
 * counts the phase between two barriers that holds every tasklet's loop, and
 * `counted` gets its value.  The host side is prim_shapes_host.c (OpenPIM's
 * statistics; tests/calibration checks the results exactly and the modelled
 * cycles) and probe_host.c (portable: UPMEM's SDK or OpenPIM). */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <perfcounter.h>
#include <stdint.h>

#define BLOCK 1024
#define BINS 256

__host uint32_t mode, n, bins, variant, counter;
__host uint64_t partial[NR_TASKLETS];
__host uint32_t histo[BINS];
__host uint64_t counted;
__mram_noinit uint8_t in_a[4 << 20];
__mram_noinit uint8_t in_b[4 << 20];
uint32_t *local_hist[NR_TASKLETS];
BARRIER_INIT(bar, NR_TASKLETS);

static void add_block(int32_t *b, const int32_t *a, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++)
        b[i] += a[i];
}

static int64_t sum_block(const int64_t *a, uint32_t len)
{
    int64_t s = 0;
    for (uint32_t i = 0; i < len; i++)
        s += a[i];
    return s;
}

static void hist_block(uint32_t *h, const uint32_t *a, uint32_t len, uint32_t nbins)
{
    for (uint32_t i = 0; i < len; i++)
        h[(a[i] * nbins) >> 12]++;
}

/* One block of kernel m (variant v) at MRAM offset off, in buffers ca and cb;
 * h: the tasklet's histogram. */
static int64_t block(uint32_t m, uint32_t v, uint32_t off, uint8_t *ca, uint8_t *cb, uint32_t *h, uint32_t nbins)
{
    int64_t sum = 0;
    if (v != 1) {
        mram_read(&in_a[off], ca, BLOCK);
        if (m == 0)
            mram_read(&in_b[off], cb, BLOCK);
    }
    if (v != 2) {
        if (m == 0)
            add_block((int32_t *)cb, (const int32_t *)ca, BLOCK / 4);
        else if (m == 1)
            sum = sum_block((const int64_t *)ca, BLOCK / 8);
        else
            hist_block(h, (const uint32_t *)ca, BLOCK / 4, nbins);
    }
    if (v != 1 && m == 0)
        mram_write(cb, &in_b[off], BLOCK);
    return sum;
}

int main(void)
{
    uint32_t t = me();
    if (t == 0)
        mem_reset();
    barrier_wait(&bar);
    uint8_t *ca = mem_alloc(BLOCK), *cb = mem_alloc(BLOCK);
    uint32_t elem = mode == 1 ? 8 : 4, bytes = n * elem;
    if (mode == 2) {
        uint32_t *h = (uint32_t *)cb; /* BLOCK = BINS x 4 */
        for (uint32_t i = 0; i < BINS; i++)
            h[i] = 0;
        local_hist[t] = h;
    }
    if (variant == 1 && t * BLOCK < bytes) {
        mram_read(&in_a[t * BLOCK], ca, BLOCK);
        if (mode == 0)
            mram_read(&in_b[t * BLOCK], cb, BLOCK);
    }
    if (t == 0 && counter)
        perfcounter_config(counter == 1 ? COUNT_CYCLES : COUNT_INSTRUCTIONS, true);
    barrier_wait(&bar);
    const uint32_t m = mode, v = variant, nbins = bins;
    uint32_t *h = local_hist[t];
    int64_t sum = 0;
    for (uint32_t off = t * BLOCK; off < bytes; off += BLOCK * NR_TASKLETS)
        sum += block(m, v, off, ca, cb, h, nbins);
    barrier_wait(&bar);
    if (t == 0 && counter)
        counted = perfcounter_get();
    if (variant == 1 && mode == 0 && t * BLOCK < bytes)
        mram_write(cb, &in_b[t * BLOCK], BLOCK); /* b + k a, k: the tasklet's blocks */
    partial[t] = (uint64_t)sum;
    if (mode == 2 && t == 0)
        for (uint32_t b = 0; b < BINS; b++) {
            uint32_t c = 0;
            for (uint32_t k = 0; k < NR_TASKLETS; k++)
                c += local_hist[k][b];
            histo[b] = c;
        }
    return 0;
}
