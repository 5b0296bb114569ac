/* SPDX-License-Identifier: MIT */
/* DLRM on comm's 3D hypercube: the interactions and the pooled embeddings
 * the DPUs produce equal the CPU reference exactly, with comm's baseline and
 * optimised implementations, on the physical-view path (full ranks, X a
 * multiple of 8) and the general path (a partial rank); bad configurations
 * are refused with a clear message.
 *   test_dlrm DLRM_KERNEL */
#include <dpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dlrm.h"

static const char *kernel;

static void run_case(uint32_t X, uint32_t Y, uint32_t Z, uint32_t batch, uint32_t dim, uint32_t pooling,
                     uint32_t max_rows, uint64_t seed)
{
    struct dlrm_config c = {X, Y, Z, batch, dim, pooling, max_rows, seed};
    struct dlrm_model m;
    if (dlrm_model_create(&c, &m)) {
        fprintf(stderr, "%s\n", dlrm_last_error());
        CHECK(0);
        return;
    }
    uint32_t *idx = dlrm_batch_create(&m);
    CHECK(idx != NULL);
    size_t ne = (size_t)batch * DLRM_TABLES * dim, ni = (size_t)batch * DLRM_PAIRS;
    int32_t *ref_e = malloc(ne * 4), *ref_i = malloc(ni * 4), *e = malloc(ne * 4), *in = malloc(ni * 4);
    int32_t *ref_l = malloc(batch * 4), *lg = malloc(batch * 4);
    CHECK_EQ(dlrm_cpu(&m, idx, ref_l, ref_i, ref_e), 0);
    size_t nonzero = 0, distinct = 0;
    for (size_t i = 0; i < ni; i++)
        nonzero += ref_i[i] != 0;
    for (uint32_t b = 1; b < batch; b++)
        distinct += ref_l[b] != ref_l[0];
    CHECK(nonzero > ni / 2); /* a meaningful result, not zeros compared with zeros */
    CHECK(distinct > batch / 2);

    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(X * Y * Z, NULL, &set));
    for (int v = 0; v < 2; v++) {
        openpim_comm_impl impl = v ? OPENPIM_COMM_OPTIMISED : OPENPIM_COMM_BASELINE;
        memset(e, 0x5a, ne * 4);
        memset(in, 0x5a, ni * 4);
        memset(lg, 0x5a, batch * 4);
        struct dlrm_times t;
        int rc = dlrm_pim_run(set, kernel, impl, &m, idx, lg, in, e, &t);
        if (rc)
            fprintf(stderr, "%s\n", dlrm_last_error());
        CHECK_EQ(rc, 0);
        size_t bad_e = 0, bad_i = 0, bad_l = 0;
        for (uint32_t b = 0; b < batch; b++)
            bad_l += lg[b] != ref_l[b];
        for (size_t i = 0; i < ne; i++)
            bad_e += e[i] != ref_e[i];
        for (size_t i = 0; i < ni; i++)
            bad_i += in[i] != ref_i[i];
        printf("%ux%ux%u batch %u dim %u pooling %u %s: %zu/%zu embeddings, %zu/%zu interactions and %zu/%u logits "
               "differ; modelled %.1f us (kernel %.1f, comm %.1f, scatter+gather %.1f)\n",
               X, Y, Z, batch, dim, pooling, v ? "optimised" : "baseline", bad_e, ne, bad_i, ni, bad_l, batch, t.total,
               t.kernel, t.comm, t.host);
        CHECK_EQ(bad_l, 0);
        CHECK_EQ(bad_e, 0);
        CHECK_EQ(bad_i, 0);
        CHECK(t.kernel > 0 && t.comm > 0 && t.host > 0);
        CHECK(Y > 1 ? t.reduce_scatter_y > 0 : t.reduce_scatter_y == 0);
        CHECK(t.alltoall_xyz > 0 && t.alltoall_xz > 0); /* PID-Comm's 3D pattern: AlltoAll, RS on y, AlltoAll on xz */
        CHECK(t.comm == t.alltoall_xyz + t.reduce_scatter_y + t.alltoall_xz);
        CHECK(t.total == t.kernel + t.comm + t.host);
    }
    DPU_ASSERT(dpu_free(set));
    free(ref_e), free(ref_i), free(e), free(in), free(idx), free(ref_l), free(lg);
    dlrm_model_free(&m);
}

static void refused(const struct dlrm_config *c, const char *word)
{
    struct dlrm_model m;
    memset(&m, 0x77, sizeof m);
    CHECK_EQ(dlrm_model_create(c, &m), -1);
    CHECK(strstr(dlrm_last_error(), word) != NULL);
    if (!strstr(dlrm_last_error(), word))
        fprintf(stderr, "message \"%s\" lacks \"%s\"\n", dlrm_last_error(), word);
    CHECK(((unsigned char *)&m)[0] == 0x77); /* untouched */
}

static void bad_input(void)
{
    const struct dlrm_config ok = {8, 2, 4, 128, 16, 1, 1000, 1};
    struct dlrm_config c;
    c = ok, c.batch = 100;
    refused(&c, "batch");
    c = ok, c.batch = 0;
    refused(&c, "batch");
    c = ok, c.dim = 12; /* not a multiple of 2*Z */
    refused(&c, "dim");
    c = ok, c.Z = 1, c.dim = 64;
    c.Y = 8;
    refused(&c, "dim");
    c = ok, c.Y = 0;
    refused(&c, "length");
    c = ok, c.pooling = 0;
    refused(&c, "pooling");
    c = ok, c.max_rows = 0;
    refused(&c, "max_rows");
    c = ok, c.X = 32, c.Y = 1, c.Z = 2, c.batch = 64;
    refused(&c, "table groups");
    c = ok, c.X = 1, c.Y = 2, c.Z = 1, c.dim = 20, c.batch = 2; /* 26 slots x 20 columns: 2,080 B per sample */
    refused(&c, "2 KB embedding block");
    c = ok, c.X = 1, c.Y = 2, c.Z = 2, c.dim = 32, c.batch = 4; /* 26 x 16 = 416 words: accepted */
    struct dlrm_model ok_model;
    CHECK_EQ(dlrm_model_create(&c, &ok_model), 0);
    dlrm_model_free(&ok_model);
    CHECK_EQ(dlrm_model_create(NULL, NULL), -1);

    /* A set of the wrong size, and tables that do not fit in MRAM: refused before anything runs. */
    struct dlrm_config c2 = {8, 2, 4, 64, 16, 1, 100, 2};
    struct dlrm_model m;
    CHECK_EQ(dlrm_model_create(&c2, &m), 0);
    uint32_t *idx = dlrm_batch_create(&m);
    int32_t *inter = malloc((size_t)64 * 4);
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(8, NULL, &set));
    CHECK_EQ(dlrm_pim_run(set, kernel, OPENPIM_COMM_OPTIMISED, &m, idx, inter, NULL, NULL, NULL), -1);
    CHECK(strstr(dlrm_last_error(), "needs 64") != NULL);
    CHECK_EQ(dlrm_pim_run(set, kernel, OPENPIM_COMM_OPTIMISED, &m, NULL, inter, NULL, NULL, NULL), -1);
    CHECK(strstr(dlrm_last_error(), "NULL") != NULL);
    CHECK_EQ(dlrm_pim_run(set, kernel, (openpim_comm_impl)7, &m, idx, inter, NULL, NULL, NULL), -1);
    CHECK(strstr(dlrm_last_error(), "implementation") != NULL);
    DPU_ASSERT(dpu_free(set));
    free(idx), free(inter);
    dlrm_model_free(&m);

    /* An index out of range (one past the table's last row, and the largest uint32) is refused by the DPU path
     * and the CPU reference alike, naming the table, the sample and the value; nothing is written. */
    struct dlrm_config c4 = {2, 1, 1, 4, 16, 2, 300, 4};
    CHECK_EQ(dlrm_model_create(&c4, &m), 0);
    idx = dlrm_batch_create(&m);
    int32_t lg[4], out_i[4 * DLRM_PAIRS];
    DPU_ASSERT(dpu_alloc(2, NULL, &set));
    const uint32_t bad[2] = {m.rows[7], UINT32_MAX};
    for (int k = 0; k < 2; k++) {
        const size_t at = ((size_t)3 * DLRM_TABLES + 7) * 2 + 1; /* sample 3, table 7, position 1 */
        const uint32_t keep = idx[at];
        idx[at] = bad[k];
        char want[64];
        snprintf(want, sizeof want, "table 7, sample 3, position 1: index %u", bad[k]);
        memset(lg, 0x5a, sizeof lg), memset(out_i, 0x5a, sizeof out_i);
        CHECK_EQ(dlrm_pim_run(set, kernel, OPENPIM_COMM_OPTIMISED, &m, idx, lg, out_i, NULL, NULL), -1);
        CHECK(strstr(dlrm_last_error(), want) != NULL);
        CHECK_EQ(dlrm_cpu(&m, idx, lg, out_i, NULL), -1);
        CHECK(strstr(dlrm_last_error(), want) != NULL);
        CHECK(lg[0] == 0x5a5a5a5a && out_i[0] == 0x5a5a5a5a && out_i[4 * DLRM_PAIRS - 1] == 0x5a5a5a5a);
        fprintf(stderr, "(expected) %s\n", dlrm_last_error());
        idx[at] = keep;
    }
    idx[((size_t)3 * DLRM_TABLES + 7) * 2 + 1] = m.rows[7] - 1; /* the last row: accepted */
    CHECK_EQ(dlrm_cpu(&m, idx, lg, NULL, NULL), 0);
    CHECK_EQ(dlrm_pim_run(set, kernel, OPENPIM_COMM_BASELINE, &m, idx, lg, NULL, NULL, NULL), 0);
    CHECK_EQ(dlrm_cpu(&m, NULL, lg, NULL, NULL), -1);
    DPU_ASSERT(dpu_free(set));
    free(idx);
    dlrm_model_free(&m);

    struct dlrm_config c3 = {1, 1, 1, 1, 16, 1, 1000000, 3}; /* millions of rows x 64 B > 64 MB on one DPU */
    CHECK_EQ(dlrm_model_create(&c3, &m), 0);
    idx = dlrm_batch_create(&m);
    inter = malloc(4);
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    CHECK_EQ(dlrm_pim_run(set, kernel, OPENPIM_COMM_BASELINE, &m, idx, inter, NULL, NULL, NULL), -1);
    CHECK(strstr(dlrm_last_error(), "MRAM") != NULL);
    fprintf(stderr, "(expected) %s\n", dlrm_last_error());
    DPU_ASSERT(dpu_free(set));
    free(idx), free(inter);
    dlrm_model_free(&m);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DLRM_KERNEL\n", argv[0]);
        return 2;
    }
    kernel = argv[1];
    run_case(8, 2, 4, 128, 16, 1, 4096, 11); /* one full rank: comm's physical-view path; dim 16 */
    run_case(8, 4, 2, 64, 32, 2, 2048, 12);  /* dim 32, two indices per feature */
    run_case(2, 2, 2, 16, 16, 3, 500, 13);   /* a partial rank: comm's general path */
    run_case(8, 1, 8, 64, 16, 1, 1000, 14);  /* one row shard: no ReduceScatter */
    run_case(1, 2, 1, 4, 18, 1, 300, 15);    /* one table group: 26 slots x 18 columns, 1,872 B per sample */
    bad_input();
    return check_done("test_dlrm");
}
