/* SPDX-License-Identifier: MIT */
/* How fast one host core reduces int32 data the way each ReduceScatter /
 * AllReduce baseline does, on this host (the rate behind comm's
 * cost model, src/cost.c).  The data are laid out as after the baseline's
 * gather: N separate per-node buffers of B bytes (one communicator of a
 * 32 x 32 cube along x: N = 32), I communicators in all, so that the input
 * (I x N x B) is far beyond the caches, as on a real 1,024-PE run.
 * Loops, each on one thread, int32 sum:
 *   fnptr     SimplePIM's AllReduce: for each source, for each element, the
 *             user's combine function called through a pointer (loaded with
 *             dlsym there, so never inlined; a volatile pointer here);
 *   typed     a hand-written typed loop in the order of PID-Comm's own
 *             host-reduction code (destination chunk outer, element, then the
 *             N sources innermost through a table of pointers: dst[i] +=
 *             src[j][i], the store kept in memory because the tables may
 *             alias);
 *   vector    the same reduction source by source (acc[i] += src[i],
 *             restrict pointers: the compiler vectorises it);
 *   read      one stream summed (this core's read bandwidth, for scale).
 * cyc/elem: CPU cycles per input element, the clock measured by a chain of
 * dependent adds (one cycle each on x86 cores): a loop bound by its
 * instructions, not by memory, takes about the same cycles on another x86
 * core, so cyc/elem carries over to the modelled host (at its own clock).
 * GB/s = input bytes / time (PID-Comm's "larger side" of a reduction), by
 * the thread's CPU time (this host is shared: time the thread was not
 * running is left out) and by wall-clock time; best and median of `runs`.
 *   bench_host_reduce [N] [KB per node] [communicators] [runs] */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench.h"

typedef void (*combine_fn)(void *dst, const void *src);

static void combine_i32(void *dst, const void *src)
{
    *(int32_t *)dst += *(const int32_t *)src;
}

/* volatile: the call cannot be resolved at compile time, as with dlsym */
static combine_fn volatile combine = combine_i32;

/* SimplePIM-style: out = node 0's chunk, then every other node combined in,
 * element by element through the pointer. */
static void run_fnptr(int32_t **src, int32_t **dst, uint32_t n, size_t ne)
{
    for (uint32_t k = 0; k < n; k++) {
        memcpy(dst[k], src[0] + k * ne, ne * sizeof(int32_t));
        for (uint32_t j = 1; j < n; j++) {
            const int32_t *s = src[j] + k * ne;
            for (size_t i = 0; i < ne; i++)
                combine(&dst[k][i], &s[i]);
        }
    }
}

/* noinline: the loop compiled on its own, pointers of unknown provenance */
__attribute__((noinline)) static void run_typed(int32_t **src, int32_t **dst, uint32_t n, size_t ne)
{
    for (uint32_t k = 0; k < n; k++)
        for (size_t i = 0; i < ne; i++) {
            dst[k][i] = 0;
            for (uint32_t j = 0; j < n; j++)
                dst[k][i] += src[j][i + k * ne];
        }
}

__attribute__((noinline)) static void add_into(int32_t *restrict acc, const int32_t *restrict s, size_t ne)
{
    for (size_t i = 0; i < ne; i++)
        acc[i] += s[i];
}

static void run_vector(int32_t **src, int32_t **dst, uint32_t n, size_t ne)
{
    for (uint32_t k = 0; k < n; k++) {
        memcpy(dst[k], src[0] + k * ne, ne * sizeof(int32_t));
        for (uint32_t j = 1; j < n; j++)
            add_into(dst[k], src[j] + k * ne, ne);
    }
}

__attribute__((noinline)) static int64_t read_sum(const int32_t *s, size_t ne)
{
    int64_t t = 0;
    for (size_t i = 0; i < ne; i++)
        t += s[i];
    return t;
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)bench_parse_u64("N", argv[1], 0, UINT32_MAX) : 32;
    size_t kb = argc > 2 ? (size_t)bench_parse_u64("KB per node", argv[2], 0, 1u << 20) : 1024;
    uint32_t comms = argc > 3 ? (uint32_t)bench_parse_u64("communicators", argv[3], 0, 1u << 20) : 8;
    int runs = argc > 4 ? (int)bench_parse_u64("runs", argv[4], 0, 1000) : 5;
    if (n < 2 || n > 32768 || kb == 0 || comms == 0 || runs < 1 || (kb * 1024) % (4 * n)) {
        fprintf(stderr, "usage: bench_host_reduce [2 <= N <= 32768] [KB per node, a multiple of 4N bytes] "
                        "[communicators] [runs]\n");
        return 2;
    }
    size_t bytes = kb * 1024, ne = bytes / 4 / n; /* elements of one destination chunk */
    size_t nodes = (size_t)n * comms;
    int32_t **src = malloc(nodes * sizeof *src), **dst = malloc(nodes * sizeof *dst);
    int32_t *one = malloc(bytes * nodes);
    if (!src || !dst || !one) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (size_t q = 0; q < nodes; q++) {
        src[q] = malloc(bytes);
        dst[q] = malloc(bytes / n);
        if (!src[q] || !dst[q]) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        for (size_t i = 0; i < bytes / 4; i++) /* below 2^16: no sum of N <= 2^15 of them overflows */
            src[q][i] = (int32_t)((q * 2654435761u + i * 40503u) >> 16);
        memset(dst[q], 0, bytes / n);
    }
    memset(one, 1, bytes * nodes);
    double in_gb = (double)bytes * nodes / 1e9;
    printf("# int32 sum, %u nodes per communicator, %zu KB per node, %u communicators: %.1f MiB of input; one "
           "thread\n", n, kb, comms, (double)bytes * nodes / 1048576.0);
    double hz = bench_clock_hz(20000000, 5);
    printf("# this core: %.2f GHz (a chain of dependent adds, best of 5)\n", hz / 1e9);
    printf("# %-8s %10s %10s %10s %10s %9s   (GB/s of input, best and median of %d runs; cycles per element at the "
           "median)\n", "loop", "cpu_best", "cpu_median", "wall_best", "wall_med", "cyc/elem", runs);
    const char *names[] = {"fnptr", "typed", "vector", "read"};
    int64_t keep = 0;
    uint64_t check[3] = {0};
    for (int v = 0; v < 4; v++) {
        double *g = malloc((size_t)runs * sizeof *g), *w = malloc((size_t)runs * sizeof *w);
        for (int r = 0; r < runs; r++) {
            double t0 = bench_now(), c0 = bench_thread_cpu();
            for (uint32_t c = 0; c < comms; c++) {
                int32_t **s = src + (size_t)c * n, **d = dst + (size_t)c * n;
                if (v == 0)
                    run_fnptr(s, d, n, ne);
                else if (v == 1)
                    run_typed(s, d, n, ne);
                else if (v == 2)
                    run_vector(s, d, n, ne);
                else
                    keep += read_sum(one + (size_t)c * n * bytes / 4, (size_t)n * bytes / 4);
            }
            g[r] = in_gb / (bench_thread_cpu() - c0);
            w[r] = in_gb / (bench_now() - t0);
        }
        if (v < 3) { /* the three loops must agree (a checksum of every output) */
            uint64_t h = 0;
            for (size_t q = 0; q < nodes; q++)
                for (size_t i = 0; i < ne; i++)
                    h = h * 31 + (uint32_t)dst[q][i];
            check[v] = h;
        }
        bench_sort(g, (size_t)runs);
        bench_sort(w, (size_t)runs);
        printf("  %-8s %10.2f %10.2f %10.2f %10.2f %9.2f\n", names[v], g[runs - 1], g[runs / 2], w[runs - 1],
               w[runs / 2], hz * 4 / (g[runs / 2] * 1e9));
        free(g);
        free(w);
    }
    for (size_t q = 0; q < nodes; q++) {
        free(src[q]);
        free(dst[q]);
    }
    free(src);
    free(dst);
    free(one);
    if (check[0] != check[1] || check[1] != check[2]) {
        fprintf(stderr, "the loops disagree\n");
        return 1;
    }
    printf("# outputs identical in the three loops (checksum %016llx); read sum %lld\n", (unsigned long long)check[0],
           (long long)keep);
    return 0;
}
