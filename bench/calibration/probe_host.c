/* SPDX-License-Identifier: MIT */
/* Host side of the kernel probe: takes the PrIM-shaped kernels of
 * prim_shapes_dpu.c apart on one DPU and prints what the DPU's performance
 * counter saw.  Portable: it uses only UPMEM's host API, so it builds and runs
 * on a real UPMEM server (UPMEM's SDK) as on OpenPIM, and the two outputs can
 * be set side by side (probe.py; probe.sh builds and runs both halves).
 *
 * For each kernel (va, red, hst_s), variant (0 streaming, 1 compute only,
 * 2 DMA only), size (two: the per-element cost is their difference) and
 * counter (cycles, instructions) it launches once, checks the DPU's result
 * exactly against the same computation on the host, and prints
 *   probe,<kernel>,<variant>,<tasklets>,<elements>,<cycles|instructions>,<count>,<ok>
 * usage: probe_host DPU_BINARY TASKLETS   (TASKLETS: the binary's NR_TASKLETS) */
#define _POSIX_C_SOURCE 200809L /* bench.h: clock_gettime */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench.h"

#define BLOCK 1024
#define BINS 256
#define MAXT 24
#define BLOCKS_PER_TASKLET 16 /* at the smaller size; twice as many at the larger */
#define MAX_WORDS (2 * BLOCKS_PER_TASKLET * MAXT * BLOCK / 4)

static const char *const kernels[3] = {"va", "red", "hst_s"};
static const char *const counters[3] = {"", "cycles", "instructions"};
static uint32_t a[MAX_WORDS], b[MAX_WORDS], out[MAX_WORDS];

static uint32_t xs(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* How many times tasklet t runs the block loop: blocks t, t + T, ... */
static uint32_t turns(uint32_t t, uint32_t blocks, uint32_t nt)
{
    return t < blocks ? (blocks - t + nt - 1) / nt : 0;
}

/* The int64 elements of a[] from word w on (little-endian, as the DPU). */
static uint64_t word64(uint32_t w)
{
    return (uint64_t)a[w] | (uint64_t)a[w + 1] << 32;
}

static void histogram(uint32_t *h, uint32_t from, uint32_t count, uint32_t times)
{
    for (uint32_t i = from; i < from + count; i++)
        h[(a[i] * BINS) >> 12] += times;
}

/* The DPU's outputs against the host's computation of the same kernel. */
static int check(struct dpu_set_t dpu, uint32_t m, uint32_t v, uint32_t n, uint32_t nt)
{
    const uint32_t words = m == 1 ? 2 * n : n, per_block = BLOCK / 4, blocks = words / per_block;
    if (m == 0) {
        DPU_ASSERT(dpu_copy_from(dpu, "in_b", 0, out, words * 4));
        for (uint32_t i = 0; i < words; i++) {
            uint32_t blk = i / per_block, want = b[i];
            if (v == 0)
                want = a[i] + b[i];
            else if (v == 1 && blk < nt) /* the tasklet's first block, added once per turn */
                want = b[i] + turns(blk, blocks, nt) * a[i];
            if (out[i] != want)
                return 0;
        }
        return 1;
    }
    if (m == 1) {
        uint64_t p[MAXT], want[MAXT] = {0};
        DPU_ASSERT(dpu_copy_from(dpu, "partial", 0, p, nt * sizeof p[0]));
        for (uint32_t t = 0; t < nt; t++) {
            if (v == 0)
                for (uint32_t blk = t; blk < blocks; blk += nt)
                    for (uint32_t w = blk * per_block; w < (blk + 1) * per_block; w += 2)
                        want[t] += word64(w);
            else if (v == 1 && t < blocks)
                for (uint32_t w = t * per_block; w < (t + 1) * per_block; w += 2)
                    want[t] += turns(t, blocks, nt) * word64(w);
            if (p[t] != want[t])
                return 0;
        }
        return 1;
    }
    uint32_t h[BINS], want[BINS] = {0};
    DPU_ASSERT(dpu_copy_from(dpu, "histo", 0, h, sizeof h));
    if (v == 0)
        histogram(want, 0, words, 1);
    else if (v == 1)
        for (uint32_t t = 0; t < nt && t < blocks; t++)
            histogram(want, t * per_block, per_block, turns(t, blocks, nt));
    return memcmp(h, want, sizeof h) == 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: probe_host DPU_BINARY TASKLETS\n");
        return 2;
    }
    const uint32_t nt = (uint32_t)bench_parse_u64("TASKLETS", argv[2], 1, MAXT);
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, argv[1], NULL));
    int all_ok = 1;
    for (uint32_t m = 0; m < 3; m++) {
        const uint32_t elem = m == 1 ? 8 : 4;
        for (uint32_t scale = 1; scale <= 2; scale++) {
            const uint32_t n = scale * BLOCKS_PER_TASKLET * nt * (BLOCK / elem), words = n * elem / 4;
            uint32_t seed = 2463534242u;
            for (uint32_t i = 0; i < words; i++) {
                a[i] = m == 2 ? xs(&seed) & 0xfff : xs(&seed); /* HST: 12-bit pixels */
                b[i] = xs(&seed);
            }
            for (uint32_t v = 0; v < 3; v++)
                for (uint32_t c = 1; c <= 2; c++) {
                    const uint32_t bins = BINS;
                    DPU_FOREACH(set, dpu) {
                        DPU_ASSERT(dpu_copy_to(dpu, "mode", 0, &m, sizeof m));
                        DPU_ASSERT(dpu_copy_to(dpu, "variant", 0, &v, sizeof v));
                        DPU_ASSERT(dpu_copy_to(dpu, "counter", 0, &c, sizeof c));
                        DPU_ASSERT(dpu_copy_to(dpu, "n", 0, &n, sizeof n));
                        DPU_ASSERT(dpu_copy_to(dpu, "bins", 0, &bins, sizeof bins));
                        DPU_ASSERT(dpu_copy_to(dpu, "in_a", 0, a, words * 4));
                        DPU_ASSERT(dpu_copy_to(dpu, "in_b", 0, b, words * 4));
                    }
                    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
                    uint64_t count = 0;
                    int ok = 1;
                    DPU_FOREACH(set, dpu) {
                        DPU_ASSERT(dpu_copy_from(dpu, "counted", 0, &count, sizeof count));
                        ok = check(dpu, m, v, n, nt);
                    }
                    printf("probe,%s,%u,%u,%u,%s,%llu,%d\n", kernels[m], v, nt, n, counters[c],
                           (unsigned long long)count, ok);
                    all_ok &= ok;
                }
        }
    }
    DPU_ASSERT(dpu_free(set));
    return all_ok ? 0 : 1;
}
