/* SPDX-License-Identifier: MIT */
/* Times the native and the counted build of each kernel in one process,
 * alternating them, and prints native_time / counted_time (min and median).
 * Compiled without the plugin; defines the counter the counted code updates. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "op_cost_slots.h"

uint64_t __op_icount;
/* the cost table the counted code reads (v1A values of the multiply/divide slots) */
uint32_t __op_costs[OP_COST_COUNT] = {
    [OP_COST_MUL8] = 1, [OP_COST_INT32_MUL_BASE] = 8, [OP_COST_INT32_MUL_PER_BIT] = 1,
    [OP_COST_INT32_DIV_BASE] = 8, [OP_COST_INT32_DIV_PER_STEP] = 1, [OP_COST_INT32_DIV_SIGNED_EXTRA] = 6,
};

uint32_t hash_mix_native(uint32_t *, int, int);
uint32_t hash_mix_counted(uint32_t *, int, int);
uint32_t div_mix_native(uint32_t *, int, int);
uint32_t div_mix_counted(uint32_t *, int, int);

typedef uint32_t (*kernel_fn)(uint32_t *, int, int);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum { N = 4096, TRIALS = 11 };

static int bench(const char *name, kernel_fn native, kernel_fn counted, int rounds)
{
    static uint32_t init[N], a[N], b[N];
    uint32_t s = 12345;
    for (int i = 0; i < N; i++) {
        s = s * 1103515245u + 12345u;
        init[i] = s;
    }
    double tn[TRIALS], tc[TRIALS];
    uint64_t icount = 0;
    for (int t = 0; t < TRIALS; t++) {
        memcpy(a, init, sizeof a);
        memcpy(b, init, sizeof b);
        double t0 = now();
        uint32_t rn = native(a, N, rounds);
        double t1 = now();
        __op_icount = 0;
        uint32_t rc = counted(b, N, rounds);
        double t2 = now();
        icount = __op_icount;
        if (rn != rc || memcmp(a, b, sizeof a) != 0) {
            printf("%s: counted build computes a different result\n", name);
            return 1;
        }
        tn[t] = t1 - t0;
        tc[t] = t2 - t1;
    }
    qsort(tn, TRIALS, sizeof tn[0], cmp_double);
    qsort(tc, TRIALS, sizeof tc[0], cmp_double);
    double elems = (double)N * rounds;
    printf("%-9s native  min %7.2f ms  median %7.2f ms  (%.2f ns/element)\n", name, tn[0] * 1e3,
           tn[TRIALS / 2] * 1e3, tn[0] / elems * 1e9);
    printf("%-9s counted min %7.2f ms  median %7.2f ms  (%.2f ns/element)  DPU instructions/element %.2f\n",
           name, tc[0] * 1e3, tc[TRIALS / 2] * 1e3, tc[0] / elems * 1e9, icount / elems);
    printf("%-9s ratio native/counted: min %.3f  median %.3f\n", name, tn[0] / tc[0],
           tn[TRIALS / 2] / tc[TRIALS / 2]);
    return 0;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 400;
    int rc = bench("hash_mix", hash_mix_native, hash_mix_counted, rounds);
    rc |= bench("div_mix", div_mix_native, div_mix_counted, rounds / 4 ? rounds / 4 : 1);
    return rc;
}
