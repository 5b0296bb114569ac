/* SPDX-License-Identifier: MIT */
/* MLP (PID-Comm §VII-E) on comm's 1D hypercube: one batch through every
 * layer with comm's baseline and optimised implementations on the same DPU
 * set, each checked exactly against the CPU reference, which is also timed
 * on this host.  Prints the modelled breakdown and appends CSV rows
 *   app,variant,pes,dtype,total_us,kernel_us,comm_us,host_us,cpu_us
 * to $PIDCOMM_APPS_CSV (and per-step rows app,variant,pes,dtype,step,us to
 * $PIDCOMM_APPS_STEPS_CSV) when set.  total/kernel/comm/host are modelled
 * (OpenPIM's timing model: kernels = the layers' GEMV/GEMM launches, comm =
 * the ReduceScatters, host = Scatter of the input + Gather of the output);
 * cpu_us is the CPU reference measured here (CPU time of one thread, best of
 * `runs`).
 *   mlp_bench MLP_KERNEL pes features batch [layers] [runs] */
#define _POSIX_C_SOURCE 200809L
#include <dpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench.h"
#include "pim_app.h"
#include "mlp.h"

static void csv(const char *app, const char *variant, uint32_t pes, const struct mlp_times *t, double cpu_us)
{
    static const char *const names[] = {"scatter", "kernel_layers", "reduce_scatter", "gather"};
    const double v[] = {t->scatter, t->layers_kernel, t->reduce_scatter, t->gather};
    pim_write_rows(getenv("PIDCOMM_APPS_CSV"), getenv("PIDCOMM_APPS_STEPS_CSV"), app, variant, pes, "int32", t->total,
                   t->kernel, t->comm, t->host, cpu_us, (int)(sizeof names / sizeof names[0]), names, v);
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc > 7) {
        fprintf(stderr, "usage: %s MLP_KERNEL pes features batch [layers] [runs]\n", argv[0]);
        return 2;
    }
    struct mlp_config c = {0};
    /* whole numbers only (pim_die: message, exit 2); mlp_model_create judges the values */
    c.pes = (uint32_t)pim_parse_u64("pes", argv[2], 0, UINT32_MAX);
    c.features = (uint32_t)pim_parse_u64("features", argv[3], 0, UINT32_MAX);
    c.batch = (uint32_t)pim_parse_u64("batch", argv[4], 0, UINT32_MAX);
    c.layers = argc > 5 ? (uint32_t)pim_parse_u64("layers", argv[5], 0, UINT32_MAX) : 5;
    const int runs = argc > 6 ? (int)pim_parse_u64("runs", argv[6], 1, 1000) : 3;
    c.seed = 2024;
    struct mlp_model m;
    if (mlp_model_create(&c, &m)) {
        fprintf(stderr, "%s\n", mlp_last_error());
        return 1;
    }
    const size_t n = (size_t)c.batch * c.features;
    int32_t *ref = malloc(n * 4), *got = malloc(n * 4);
    if (!ref || !got) {
        fprintf(stderr, "mlp_bench: out of host memory\n");
        return 1;
    }
    double best = 1e300;
    for (int r = 0; r < runs; r++) {
        double t0 = bench_thread_cpu();
        if (mlp_cpu(&m, ref)) {
            fprintf(stderr, "%s\n", mlp_last_error());
            return 1;
        }
        double dt = (bench_thread_cpu() - t0) * 1e6;
        best = dt < best ? dt : best;
    }
    char app[32];
    snprintf(app, sizeof app, "mlp_f%u", c.features);
    printf("MLP %u PEs, %u features, batch %u, %u layers; CPU reference %.1f us (this host, one thread, best of %d)\n",
           c.pes, c.features, c.batch, c.layers, best, runs);
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(c.pes, NULL, &set));
    struct mlp_times t[2];
    for (int v = 0; v < 2; v++) {
        memset(got, 0x5a, n * 4);
        if (mlp_pim_run(set, argv[1], v ? OPENPIM_COMM_OPTIMISED : OPENPIM_COMM_BASELINE, &m, got, &t[v])) {
            fprintf(stderr, "%s\n", mlp_last_error());
            return 1;
        }
        if (memcmp(got, ref, n * 4)) {
            fprintf(stderr, "mlp_bench: the %s result differs from the CPU reference\n", v ? "optimised" : "baseline");
            return 1;
        }
        const struct mlp_times *x = &t[v];
        printf("  %-9s modelled %10.1f us = kernels %9.1f + ReduceScatter %9.1f + host %7.1f (Scatter %.1f, "
               "Gather %.1f); exact\n",
               v ? "optimised" : "baseline", x->total, x->kernel, x->comm, x->host, x->scatter, x->gather);
        csv(app, v ? "optimised" : "baseline", c.pes, x, best);
    }
    printf("  speedup over the baseline %.2fx (comm %.2fx); over the CPU reference: baseline %.2fx, optimised "
           "%.2fx\n",
           t[0].total / t[1].total, t[0].comm / t[1].comm, best / t[0].total, best / t[1].total);
    DPU_ASSERT(dpu_free(set));
    free(ref), free(got);
    mlp_model_free(&m);
    return 0;
}
