/* SPDX-License-Identifier: MIT */
/* PID-Comm's MLP ([PIDComm], §VII-E) on a 1D hypercube of P DPUs: `layers`
 * fully connected layers of F x F int32 weights, the weights partitioned by
 * columns, a ReduceScatter after every layer.
 *
 * Node p holds columns [p*F/P, (p+1)*F/P) of every layer's weights and the
 * same slice of the layer's input (batch rows).  A layer is one kernel: the
 * node's partial products for all F outputs, laid out as P blocks of
 * [batch][F/P]; the ReduceScatter over all nodes then leaves on node p the
 * complete outputs p*F/P + [0, F/P): exactly its input slice of the next
 * layer.  Between layers the kernel applies a requantising ReLU,
 * a = min(max(acc, 0) >> 8, 255), so that values stay in int8's range
 * and nothing overflows (|acc| <= F * 4 * 255).  Weights are uniform in
 * [-4, 4], inputs in [0, 255], from a deterministic seed.
 * Steps of a batch: Scatter (input slices), then per layer a kernel and a
 * ReduceScatter, then Gather (the last layer's accumulators, no ReLU).
 *
 * Errors: functions return 0 or -1 with mlp_last_error() saying why; a
 * refused configuration changes nothing. */
#ifndef OPENPIM_MLP_H
#define OPENPIM_MLP_H

#include <stdint.h>

#include <dpu.h>
#include <openpim_comm.h>

struct mlp_config {
    uint32_t pes;      /* P DPUs (a 1D cube) */
    uint32_t features; /* F: a multiple of 8*P */
    uint32_t batch;    /* 1..16, batch * F/P <= 4096 (the kernel's WRAM) */
    uint32_t layers;   /* >= 1 (PID-Comm: 5) */
    uint64_t seed;
};

struct mlp_model {
    struct mlp_config cfg;
    int32_t *w; /* [layers][F][F], w[l][o][k] */
    int32_t *x; /* [batch][F] */
};

/* Modelled microseconds (OpenPIM's timing model) of one batch. */
struct mlp_times {
    double scatter, layers_kernel, reduce_scatter, gather;
    double kernel, comm, host, total; /* kernels; ReduceScatters; Scatter + Gather; all */
};

int mlp_model_create(const struct mlp_config *cfg, struct mlp_model *model);
void mlp_model_free(struct mlp_model *model);
/* CPU reference: out [batch][F], the last layer's accumulators. */
int mlp_cpu(const struct mlp_model *model, int32_t *out);
/* Runs the batch on `set` (exactly `pes` DPUs) with comm's `impl`: loads
 * `kernel` (the mlp_kernel DPU program) and the weights (not timed), then the
 * steps above (timed); out as mlp_cpu; times may be NULL. */
int mlp_pim_run(struct dpu_set_t set, const char *kernel, openpim_comm_impl impl, const struct mlp_model *model,
                int32_t *out, struct mlp_times *times);

const char *mlp_last_error(void);

#endif
