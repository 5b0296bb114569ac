/* SPDX-License-Identifier: MIT */
/* PID-Comm's MLP on comm's 1D hypercube: the last layer's outputs the DPUs
 * produce equal the CPU reference exactly, with comm's baseline and
 * optimised implementations, on the physical-view path (a full rank) and
 * the general path (a partial rank); bad configurations are refused with a
 * clear message.
 *   test_mlp MLP_KERNEL */
#include <dpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mlp.h"

static const char *kernel;

static void run_case(uint32_t pes, uint32_t F, uint32_t batch, uint32_t layers, uint64_t seed)
{
    struct mlp_config c = {pes, F, batch, layers, seed};
    struct mlp_model m;
    if (mlp_model_create(&c, &m)) {
        fprintf(stderr, "%s\n", mlp_last_error());
        CHECK(0);
        return;
    }
    size_t n = (size_t)batch * F;
    int32_t *ref = malloc(n * 4), *got = malloc(n * 4);
    CHECK_EQ(mlp_cpu(&m, ref), 0);
    size_t nonzero = 0;
    for (size_t i = 0; i < n; i++)
        nonzero += ref[i] != 0;
    CHECK(nonzero > n / 2); /* a meaningful result, not zeros compared with zeros */

    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(pes, NULL, &set));
    for (int v = 0; v < 2; v++) {
        openpim_comm_impl impl = v ? OPENPIM_COMM_OPTIMISED : OPENPIM_COMM_BASELINE;
        memset(got, 0x5a, n * 4);
        struct mlp_times t;
        int rc = mlp_pim_run(set, kernel, impl, &m, got, &t);
        if (rc)
            fprintf(stderr, "%s\n", mlp_last_error());
        CHECK_EQ(rc, 0);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += got[i] != ref[i];
        printf("%u PEs, %u features, batch %u, %u layers, %s: %zu/%zu outputs differ; modelled %.1f us "
               "(kernel %.1f, reduce-scatter %.1f, scatter+gather %.1f)\n",
               pes, F, batch, layers, v ? "optimised" : "baseline", bad, n, t.total, t.kernel, t.comm, t.host);
        CHECK_EQ(bad, 0);
        CHECK(t.kernel > 0 && t.comm > 0 && t.host > 0);
        CHECK(t.total == t.kernel + t.comm + t.host);
    }
    DPU_ASSERT(dpu_free(set));
    free(ref), free(got);
    mlp_model_free(&m);
}

static void refused(const struct mlp_config *c, const char *word)
{
    struct mlp_model m;
    memset(&m, 0x77, sizeof m);
    CHECK_EQ(mlp_model_create(c, &m), -1);
    CHECK(strstr(mlp_last_error(), word) != NULL);
    if (!strstr(mlp_last_error(), word))
        fprintf(stderr, "message \"%s\" lacks \"%s\"\n", mlp_last_error(), word);
    CHECK(((unsigned char *)&m)[0] == 0x77); /* untouched */
}

static void bad_input(void)
{
    const struct mlp_config ok = {64, 1024, 2, 5, 1};
    struct mlp_config c;
    c = ok, c.features = 1000;
    refused(&c, "features");
    c = ok, c.pes = 0;
    refused(&c, "PEs");
    c = ok, c.batch = 0;
    refused(&c, "batch");
    c = ok, c.batch = 17;
    refused(&c, "batch");
    c = ok, c.pes = 1, c.features = 8192, c.batch = 1; /* 8192 inputs per PE > the kernel's WRAM */
    refused(&c, "WRAM");
    c = ok, c.layers = 0;
    refused(&c, "layers");
    CHECK_EQ(mlp_model_create(NULL, NULL), -1);

    struct mlp_config c2 = {64, 512, 1, 1, 2};
    struct mlp_model m;
    CHECK_EQ(mlp_model_create(&c2, &m), 0);
    int32_t *out = malloc(512 * 4);
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(8, NULL, &set));
    CHECK_EQ(mlp_pim_run(set, kernel, OPENPIM_COMM_OPTIMISED, &m, out, NULL), -1);
    CHECK(strstr(mlp_last_error(), "needs 64") != NULL);
    CHECK_EQ(mlp_pim_run(set, kernel, OPENPIM_COMM_OPTIMISED, &m, NULL, NULL), -1);
    CHECK(strstr(mlp_last_error(), "NULL") != NULL);
    CHECK_EQ(mlp_pim_run(set, kernel, (openpim_comm_impl)7, &m, out, NULL), -1);
    CHECK(strstr(mlp_last_error(), "implementation") != NULL);
    DPU_ASSERT(dpu_free(set));
    free(out);
    mlp_model_free(&m);

    struct mlp_config c3 = {1, 2048, 1, 4, 3}; /* 4 layers x 2048 x 2048 x 4 B = 64 MB + buffers > MRAM */
    CHECK_EQ(mlp_model_create(&c3, &m), 0);
    out = malloc(2048 * 4);
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    CHECK_EQ(mlp_pim_run(set, kernel, OPENPIM_COMM_BASELINE, &m, out, NULL), -1);
    CHECK(strstr(mlp_last_error(), "MRAM") != NULL);
    fprintf(stderr, "(expected) %s\n", mlp_last_error());
    DPU_ASSERT(dpu_free(set));
    free(out);
    mlp_model_free(&m);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MLP_KERNEL\n", argv[0]);
        return 2;
    }
    kernel = argv[1];
    run_case(64, 1024, 2, 5, 21); /* one full rank: comm's physical-view path, PID-Comm's 5 layers */
    run_case(64, 512, 16, 2, 22); /* the largest batch */
    run_case(8, 256, 3, 3, 23);   /* a partial rank: comm's general path */
    run_case(1, 8, 16, 1, 24);    /* batch > features: the staging buffer holds B x F, not only F x F */
    run_case(2, 16, 13, 2, 25);   /* the same with two PEs and an uneven batch */
    bad_input();
    return check_done("test_mlp");
}
