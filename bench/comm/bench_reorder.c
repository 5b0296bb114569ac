/* SPDX-License-Identifier: MIT */
/* Cost per piece of the baseline AlltoAll's host reorder (comm_base_alltoall
 * in comm/src/baseline.c, the same loop): nodes in communicators of `size`,
 * each node's buffer `size` pieces of `piece` bytes; piece q of node p's
 * output is piece p of node q's input, one memcpy each.  Consecutive copies
 * read size * piece bytes apart (the stride) and write contiguously.  The
 * figure behind comm's chunk_ns / chunk_far_ns (comm/src/cost.c).
 *   bench_reorder nodes size piece runs   (prints min and median ns per piece) */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s nodes size piece_bytes runs\n", argv[0]);
        return 2;
    }
    size_t nodes = bench_parse_u64("nodes", argv[1], 1, 1u << 20), size = bench_parse_u64("size", argv[2], 1, 1u << 20);
    size_t c = bench_parse_u64("piece_bytes", argv[3], 1, 1u << 30), runs = bench_parse_u64("runs", argv[4], 1, 1000);
    if (nodes % size) {
        fprintf(stderr, "nodes must be a multiple of size\n");
        return 2;
    }
    size_t stride = size * c, all = nodes * stride;
    uint8_t *in = malloc(all), *out = malloc(all);
    double *t = malloc(runs * sizeof *t);
    if (!in || !out || !t) {
        fprintf(stderr, "out of memory (%zu bytes twice)\n", all);
        return 1;
    }
    for (size_t i = 0; i < all; i++)
        in[i] = (uint8_t)(i * 131 + 7);
    memset(out, 0, all);
    for (size_t r = 0; r < runs; r++) {
        double t0 = now_ns();
        for (size_t i = 0; i < nodes / size; i++) {
            uint8_t *ib = in + i * size * stride, *ob = out + i * size * stride;
            for (size_t p = 0; p < size; p++)
                for (size_t q = 0; q < size; q++)
                    memcpy(ob + p * stride + q * c, ib + q * stride + p * c, c);
        }
        t[r] = (now_ns() - t0) / (double)(nodes * size);
    }
    /* the result checked once, so the copies cannot be dropped */
    size_t i = nodes - 1, p = i % size, q = size - 1, base = (i - p) * stride;
    if (out[i * stride + q * c] != in[base + q * stride + p * c]) {
        fprintf(stderr, "wrong reorder\n");
        return 1;
    }
    qsort(t, runs, sizeof *t, cmp);
    printf("%6zu nodes size %4zu piece %5zu B stride %7zu B footprint %8.2f MB pieces %8zu: ns/piece min %6.2f "
           "median %6.2f\n",
           nodes, size, c, stride, 2.0 * (double)all / 1048576.0, nodes * size, t[0], t[runs / 2]);
    free(in);
    free(out);
    free(t);
    return 0;
}
