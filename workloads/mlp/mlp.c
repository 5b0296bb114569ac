/* SPDX-License-Identifier: MIT */
/* PID-Comm's MLP on comm's 1D hypercube (see mlp.h): its synthetic weights and
 * inputs, and the run on the DPUs (the CPU reference is mlp_ref.c). */
#define _POSIX_C_SOURCE 200809L
#include "mlp.h"

#include <openpim_ext.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlp_kernel_abi.h"
#include "../common/pidcomm_host.h"

static _Thread_local char err[256];

const char *mlp_last_error(void)
{
    return err;
}

static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, sizeof err, fmt, ap);
    va_end(ap);
    return -1;
}

/* For mlp_ref.c, which shares this file's error message. */
int mlp_fail_nomem(void)
{
    return fail("mlp: out of host memory");
}

static int check_config(const struct mlp_config *c)
{
    if (!c)
        return fail("mlp: NULL configuration");
    if (c->pes == 0 || c->pes > 2560)
        return fail("mlp: %u PEs (1..2560 DPUs)", c->pes);
    if (c->features == 0 || c->features % (8 * c->pes))
        return fail("mlp: features %u must be a positive multiple of 8 * PEs = %u", c->features, 8 * c->pes);
    if (c->batch == 0 || c->batch > MLP_MAX_BATCH)
        return fail("mlp: batch %u must be 1..%u", c->batch, MLP_MAX_BATCH);
    if ((uint64_t)c->batch * (c->features / c->pes) > MLP_MAX_INPUT)
        return fail("mlp: batch %u x features per PE %u exceed the kernel's %u-value WRAM input (use more PEs)",
                    c->batch, c->features / c->pes, MLP_MAX_INPUT);
    if (c->layers == 0 || c->layers > 64)
        return fail("mlp: layers %u must be 1..64", c->layers);
    return 0;
}

int mlp_model_create(const struct mlp_config *cfg, struct mlp_model *m)
{
    if (!m)
        return fail("mlp: NULL model");
    if (check_config(cfg))
        return -1;
    const size_t F = cfg->features, nw = (size_t)cfg->layers * F * F;
    struct mlp_model t = {.cfg = *cfg};
    t.w = malloc(nw * sizeof *t.w);
    t.x = malloc((size_t)cfg->batch * F * sizeof *t.x);
    if (!t.w || !t.x) {
        free(t.w), free(t.x);
        return fail("mlp: out of host memory for %zu weights", nw);
    }
    uint64_t s = cfg->seed;
    for (size_t i = 0; i < nw; i++)
        t.w[i] = (int32_t)(pidcomm_mix(&s) % 9) - 4;
    for (size_t i = 0; i < (size_t)cfg->batch * F; i++)
        t.x[i] = (int32_t)(pidcomm_mix(&s) % 256);
    *m = t;
    return 0;
}

void mlp_model_free(struct mlp_model *m)
{
    if (!m)
        return;
    free(m->w), free(m->x);
    m->w = m->x = NULL;
}

#define COMM(call) PIDCOMM_COMM("mlp", call)
#define SDK(call) PIDCOMM_SDK("mlp", call)

int mlp_pim_run(struct dpu_set_t set, const char *kernel, openpim_comm_impl impl, const struct mlp_model *m,
                int32_t *out, struct mlp_times *times)
{
    if (!m || !out || !kernel)
        return fail("mlp: NULL argument");
    if (check_config(&m->cfg))
        return -1;
    if (impl != OPENPIM_COMM_BASELINE && impl != OPENPIM_COMM_OPTIMISED)
        return fail("mlp: unknown implementation %d", (int)impl);
    const struct mlp_config *c = &m->cfg;
    const uint32_t P = c->pes, F = c->features, B = c->batch, Fp = F / P;
    uint32_t nr = 0;
    if (dpu_get_nr_dpus(set, &nr) != DPU_OK || nr != P)
        return fail("mlp: the set has %u DPUs, the configuration needs %u", nr, P);

    struct mlp_args a = {.batch = B, .Fp = Fp, .F = F};
    const uint64_t in_bytes = (uint64_t)B * Fp * 4, part_bytes = (uint64_t)B * F * 4,
                   w_bytes = (uint64_t)F * Fp * 4;
    a.off_in = 0;
    a.off_part = (uint32_t)in_bytes;
    const uint64_t off_w = in_bytes + part_bytes, end = off_w + c->layers * w_bytes;

    int rc = 0;
    openpim_cube_t *cube = NULL;
    openpim_comm_t *all = NULL;
    int32_t *buf = NULL;
    struct mlp_times t = {0};
    SDK(dpu_load(set, kernel, NULL));
    COMM(openpim_cube_create(set, 1, &P, &cube));
    if (end > openpim_cube_mram_bytes(cube)) {
        rc = fail("mlp: each DPU needs %llu bytes of MRAM for %u layers, it has %llu (use more PEs or fewer "
                  "features)", (unsigned long long)end, c->layers, (unsigned long long)openpim_cube_mram_bytes(cube));
        goto out;
    }
    COMM(openpim_cube_set_impl(cube, impl));
    COMM(openpim_comm_create_mask(cube, "1", &all));

    /* One staging buffer for a layer's weights (F x F values) and for the
     * batch's input and output slices (B x F values): the larger of the two. */
    buf = malloc((size_t)(B > F ? B : F) * F * sizeof *buf);
    if (!buf) {
        rc = fail("mlp: out of host memory for the weight staging buffer");
        goto out;
    }
    /* Not timed: the weights (resident model).  Node p: [F][Fp], columns p*Fp + [0, Fp). */
    for (uint32_t l = 0; l < c->layers; l++) {
        const int32_t *w = &m->w[(size_t)l * F * F];
        for (uint32_t p = 0; p < P; p++)
            for (uint32_t o = 0; o < F; o++)
                memcpy(&buf[((size_t)p * F + o) * Fp], &w[(size_t)o * F + (size_t)p * Fp], Fp * sizeof *buf);
        COMM(openpim_scatter(all, off_w + l * w_bytes, buf, w_bytes));
    }
    /* Node p's input slice, [B][Fp]. */
    for (uint32_t p = 0; p < P; p++)
        for (uint32_t b = 0; b < B; b++)
            memcpy(&buf[((size_t)p * B + b) * Fp], &m->x[(size_t)b * F + (size_t)p * Fp], Fp * sizeof *buf);

    /* ---- timed: one batch -------------------------------------------------------------- */
    double t0 = openpim_modelled_time_us();
#define LAP(field) (t.field += pidcomm_lap(&t0))
    COMM(openpim_scatter(all, a.off_in, buf, in_bytes));
    LAP(scatter);
    for (uint32_t l = 0; l < c->layers; l++) {
        a.act = l > 0;
        a.off_w = (uint32_t)(off_w + l * w_bytes);
        SDK(dpu_broadcast_to(set, "mlp_args", 0, &a, sizeof a, DPU_XFER_DEFAULT));
        SDK(dpu_launch(set, DPU_SYNCHRONOUS));
        LAP(layers_kernel);
        COMM(openpim_reduce_scatter(all, a.off_part, a.off_in, part_bytes, OPENPIM_INT32, OPENPIM_SUM));
        LAP(reduce_scatter);
    }
    COMM(openpim_gather(all, a.off_in, buf, in_bytes));
    LAP(gather);
#undef LAP
    t.kernel = t.layers_kernel;
    t.comm = t.reduce_scatter;
    t.host = t.scatter + t.gather;
    t.total = t.kernel + t.comm + t.host;
    for (uint32_t p = 0; p < P; p++)
        for (uint32_t b = 0; b < B; b++)
            memcpy(&out[(size_t)b * F + (size_t)p * Fp], &buf[((size_t)p * B + b) * Fp], Fp * sizeof *out);
    if (times)
        *times = t;
out:
    free(buf);
    openpim_cube_destroy(cube);
    return rc;
}
