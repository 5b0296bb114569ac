/* SPDX-License-Identifier: MIT */
/* DLRM (PID-Comm §VII-A) on comm's 3D hypercube: one batch with comm's
 * baseline and optimised implementations on the same DPU set, each checked
 * exactly against the CPU reference, which is also timed on this host.
 * Prints the modelled breakdown per step and appends CSV rows
 *   app,variant,pes,dtype,total_us,kernel_us,comm_us,host_us,cpu_us
 * to $PIDCOMM_APPS_CSV (and per-step rows app,variant,pes,dtype,step,us to
 * $PIDCOMM_APPS_STEPS_CSV) when set.  total/kernel/comm/host are modelled
 * (OpenPIM's timing model: kernels = pack + lookup + interaction + top MLP,
 * comm = the two AlltoAlls and the ReduceScatter, host = Scatter of the batch
 * + Gather of the logits); cpu_us is the CPU reference measured here
 * (CPU time of one thread, best of `runs`).
 *   dlrm_bench DLRM_KERNEL XxYxZ batch dim [pooling] [max_rows] [runs] */
#define _POSIX_C_SOURCE 200809L
#include <dpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench.h"
#include "pim_app.h"
#include "dlrm.h"

static void csv(const char *app, const char *variant, uint32_t pes, const struct dlrm_times *t, double cpu_us)
{
    static const char *const names[] = {"scatter",          "kernel_pack", "alltoall_xyz",    "kernel_lookup",
                                        "reduce_scatter_y", "alltoall_xz", "kernel_interact", "kernel_top_mlp",
                                        "gather"};
    const double v[] = {t->scatter,     t->pack,     t->alltoall_xyz, t->lookup, t->reduce_scatter_y,
                        t->alltoall_xz, t->interact, t->top_mlp,      t->gather};
    pim_write_rows(getenv("PIDCOMM_APPS_CSV"), getenv("PIDCOMM_APPS_STEPS_CSV"), app, variant, pes, "int32", t->total,
                   t->kernel, t->comm, t->host, cpu_us, (int)(sizeof names / sizeof names[0]), names, v);
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc > 8) {
        fprintf(stderr, "usage: %s DLRM_KERNEL XxYxZ batch dim [pooling] [max_rows] [runs]\n", argv[0]);
        return 2;
    }
    struct dlrm_config c = {0};
    int used = -1;
    if (strchr(argv[2], '-') || sscanf(argv[2], "%ux%ux%u%n", &c.X, &c.Y, &c.Z, &used) != 3 || argv[2][used] != '\0') {
        fprintf(stderr, "dlrm_bench: cube %s is not XxYxZ\n", argv[2]);
        return 2;
    }
    /* whole numbers only (pim_die: message, exit 2); dlrm_model_create judges the values */
    c.batch = (uint32_t)pim_parse_u64("batch", argv[3], 0, UINT32_MAX);
    c.dim = (uint32_t)pim_parse_u64("dim", argv[4], 0, UINT32_MAX);
    c.pooling = argc > 5 ? (uint32_t)pim_parse_u64("pooling", argv[5], 0, UINT32_MAX) : 1;
    c.max_rows = argc > 6 ? (uint32_t)pim_parse_u64("max_rows", argv[6], 0, UINT32_MAX) : 1000000;
    const int runs = argc > 7 ? (int)pim_parse_u64("runs", argv[7], 1, 1000) : 3;
    c.seed = 2024;
    struct dlrm_model m;
    if (dlrm_model_create(&c, &m)) {
        fprintf(stderr, "%s\n", dlrm_last_error());
        return 1;
    }
    uint32_t *idx = dlrm_batch_create(&m);
    const size_t ni = (size_t)c.batch * DLRM_PAIRS;
    int32_t *ref = malloc(ni * 4), *got = malloc(ni * 4), *ref_l = malloc(c.batch * 4), *lg = malloc(c.batch * 4);
    if (!idx || !ref || !got || !ref_l || !lg) {
        fprintf(stderr, "dlrm_bench: out of host memory\n");
        return 1;
    }
    double best = 1e300;
    for (int r = 0; r < runs; r++) {
        double t0 = bench_thread_cpu();
        if (dlrm_cpu(&m, idx, ref_l, NULL, NULL)) {
            fprintf(stderr, "dlrm_bench: %s\n", dlrm_last_error());
            return 1;
        }
        double dt = (bench_thread_cpu() - t0) * 1e6;
        best = dt < best ? dt : best;
    }
    const uint32_t P = c.X * c.Y * c.Z;
    char app[32];
    snprintf(app, sizeof app, "dlrm_d%u", c.dim);
    printf("DLRM %ux%ux%u (%u PEs), batch %u, dim %u, pooling %u, rows capped at %u; CPU reference %.1f us "
           "(this host, one thread, best of %d)\n",
           c.X, c.Y, c.Z, P, c.batch, c.dim, c.pooling, c.max_rows, best, runs);
    (void)dlrm_cpu(&m, idx, ref_l, ref, NULL); /* the interactions too, for the check (not timed; checked above) */
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(P, NULL, &set));
    struct dlrm_times t[2];
    for (int v = 0; v < 2; v++) {
        memset(got, 0x5a, ni * 4);
        memset(lg, 0x5a, c.batch * 4);
        if (dlrm_pim_run(set, argv[1], v ? OPENPIM_COMM_OPTIMISED : OPENPIM_COMM_BASELINE, &m, idx, lg, got, NULL,
                         &t[v])) {
            fprintf(stderr, "%s\n", dlrm_last_error());
            return 1;
        }
        if (memcmp(got, ref, ni * 4) || memcmp(lg, ref_l, c.batch * 4)) {
            fprintf(stderr, "dlrm_bench: the %s result differs from the CPU reference\n",
                    v ? "optimised" : "baseline");
            return 1;
        }
        const struct dlrm_times *x = &t[v];
        printf("  %-9s modelled %10.1f us = kernels %9.1f (pack %.1f, lookup %.1f, interaction %.1f, top MLP %.1f) + "
               "comm %9.1f (AA xyz %.1f, RS y %.1f, AA xz %.1f) + host %7.1f (Scatter %.1f, Gather %.1f); exact\n",
               v ? "optimised" : "baseline", x->total, x->kernel, x->pack, x->lookup, x->interact, x->top_mlp, x->comm,
               x->alltoall_xyz, x->reduce_scatter_y, x->alltoall_xz, x->host, x->scatter, x->gather);
        csv(app, v ? "optimised" : "baseline", P, x, best);
    }
    printf("  speedup over the baseline %.2fx (comm %.2fx); over the CPU reference: baseline %.2fx, optimised "
           "%.2fx\n",
           t[0].total / t[1].total, t[0].comm / t[1].comm, best / t[0].total, best / t[1].total);
    DPU_ASSERT(dpu_free(set));
    free(idx), free(ref), free(got), free(ref_l), free(lg);
    dlrm_model_free(&m);
    return 0;
}
