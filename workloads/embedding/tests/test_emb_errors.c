/* SPDX-License-Identifier: MIT */
/* Hostile and invalid arguments: each gets its status and a message, changes
 * nothing (the output buffer keeps its bytes), and the library goes on giving
 * exact results afterwards. */
#include <dpu.h>

#include "emb_test.h"

#define EXPECT(call, status)                                                                              \
    do {                                                                                                  \
        openpim_emb_status _s = (call);                                                                   \
        CHECK_EQ(_s, status);                                                                             \
        if (_s != OPENPIM_EMB_OK)                                                                         \
            CHECK(openpim_emb_last_error()[0] != '\0');                                                   \
        if (_s != (status))                                                                               \
            fprintf(stderr, "  %s: %s (%s)\n", #call, openpim_emb_status_name(_s), openpim_emb_last_error()); \
    } while (0)

static const uint32_t rows[3] = {50, 7, 300}, dims[3] = {8, 12, 16}, pool[3] = {4, 1, 9};

static void plans(const struct tables *x)
{
    struct openpim_emb_plan p;
    EXPECT(openpim_emb_plan_make(OPENPIM_EMB_ROW_WISE, 4, 0, 3, x->t, NULL), OPENPIM_EMB_ERR_ARGUMENT);
    EXPECT(openpim_emb_plan_make(OPENPIM_EMB_ROW_WISE, 0, 0, 3, x->t, &p), OPENPIM_EMB_ERR_ARGUMENT);
    EXPECT(openpim_emb_plan_make(OPENPIM_EMB_ROW_WISE, 4, 0, 0, x->t, &p), OPENPIM_EMB_ERR_ARGUMENT);
    EXPECT(openpim_emb_plan_make((openpim_emb_sharding)99, 4, 0, 3, x->t, &p), OPENPIM_EMB_ERR_ARGUMENT);
    EXPECT(openpim_emb_plan_make(OPENPIM_EMB_CUSTOM, 4, 0, 3, x->t, &p), OPENPIM_EMB_ERR_ARGUMENT);
    /* table_wise needs a table per DPU */
    EXPECT(openpim_emb_plan_make(OPENPIM_EMB_TABLE_WISE, 4, 0, 3, x->t, &p), OPENPIM_EMB_ERR_PLAN);
    /* column slices of whole columns only: 12 and 16 are not multiples of 8 ... 12 is not */
    EXPECT(openpim_emb_plan_make(OPENPIM_EMB_COLUMN_WISE, 8, 0, 3, x->t, &p), OPENPIM_EMB_ERR_PLAN);
    EXPECT(openpim_emb_plan_make(OPENPIM_EMB_COLUMN_WISE, 4, 0, 3, x->t, &p), OPENPIM_EMB_OK);
    /* hybrids: the split must divide the DPUs */
    EXPECT(openpim_emb_plan_make(OPENPIM_EMB_GRID_SHARD, 8, 3, 3, x->t, &p), OPENPIM_EMB_ERR_PLAN);
    EXPECT(openpim_emb_plan_make(OPENPIM_EMB_GRID_SHARD, 8, 0, 3, x->t, &p), OPENPIM_EMB_ERR_PLAN);
    EXPECT(openpim_emb_plan_make(OPENPIM_EMB_TABLE_ROW_WISE, 8, 2, 3, x->t, &p), OPENPIM_EMB_ERR_PLAN); /* 4 groups */
    /* a named sharding keeps its shape */
    struct openpim_emb_plan bad = {OPENPIM_EMB_ROW_WISE, 2, 2, 1};
    EXPECT(openpim_emb_plan_fits(&bad, 3, x->t, 4, 1u << 26, NULL), OPENPIM_EMB_ERR_PLAN);
    struct openpim_emb_plan zero = {OPENPIM_EMB_CUSTOM, 0, 1, 1};
    EXPECT(openpim_emb_plan_fits(&zero, 3, x->t, 4, 1u << 26, NULL), OPENPIM_EMB_ERR_PLAN);
    /* capacity: the share against a given MRAM size */
    struct openpim_emb_plan rw = {OPENPIM_EMB_ROW_WISE, 4, 1, 1};
    uint64_t need = 0;
    EXPECT(openpim_emb_plan_fits(&rw, 3, x->t, 4, 1u << 26, &need), OPENPIM_EMB_OK);
    CHECK(need > 0);
    EXPECT(openpim_emb_plan_fits(&rw, 3, x->t, 4, need, NULL), OPENPIM_EMB_OK);
    EXPECT(openpim_emb_plan_fits(&rw, 3, x->t, 4, need - 1, NULL), OPENPIM_EMB_ERR_CAPACITY);
    EXPECT(openpim_emb_plan_fits(&rw, 3, x->t, 0, need, NULL), OPENPIM_EMB_ERR_ARGUMENT);
    /* bad table shapes */
    struct openpim_emb_table t0[1] = {{0, 8, 1, x->t[0].data}}, t1[1] = {{8, 0, 1, x->t[0].data}},
                             t2[1] = {{8, 8, 0, x->t[0].data}};
    EXPECT(openpim_emb_plan_make(OPENPIM_EMB_ROW_WISE, 1, 0, 1, t0, &p), OPENPIM_EMB_ERR_ARGUMENT);
    EXPECT(openpim_emb_plan_make(OPENPIM_EMB_ROW_WISE, 1, 0, 1, t1, &p), OPENPIM_EMB_ERR_ARGUMENT);
    EXPECT(openpim_emb_plan_make(OPENPIM_EMB_ROW_WISE, 1, 0, 1, t2, &p), OPENPIM_EMB_ERR_ARGUMENT);
    CHECK(openpim_emb_sharding_name((openpim_emb_sharding)-1) == NULL);
    CHECK(strcmp(openpim_emb_sharding_name(OPENPIM_EMB_GRID_SHARD), "grid_shard") == 0);
}

static void create_errors(struct dpu_set_t set4, struct tables *x)
{
    struct openpim_emb_plan rw;
    EXPECT(openpim_emb_plan_make(OPENPIM_EMB_ROW_WISE, 4, 0, 3, x->t, &rw), OPENPIM_EMB_OK);
    struct openpim_emb_config cfg = {OPENPIM_EMB_INT32, 4, 0, -1};
    openpim_emb_t *emb = (openpim_emb_t *)&cfg; /* must be set to NULL on failure */
    EXPECT(openpim_emb_create(set4, NULL, 3, x->t, &rw, &emb), OPENPIM_EMB_ERR_ARGUMENT);
    EXPECT(openpim_emb_create(set4, &cfg, 3, x->t, NULL, &emb), OPENPIM_EMB_ERR_ARGUMENT);
    EXPECT(openpim_emb_create(set4, &cfg, 3, x->t, &rw, NULL), OPENPIM_EMB_ERR_ARGUMENT);
    struct openpim_emb_config c2 = cfg;
    c2.type = (openpim_emb_type)7;
    EXPECT(openpim_emb_create(set4, &c2, 3, x->t, &rw, &emb), OPENPIM_EMB_ERR_ARGUMENT);
    CHECK(emb == NULL);
    c2 = cfg, c2.max_batch = 0;
    EXPECT(openpim_emb_create(set4, &c2, 3, x->t, &rw, &emb), OPENPIM_EMB_ERR_ARGUMENT);
    c2 = cfg, c2.tasklets = 3;
    EXPECT(openpim_emb_create(set4, &c2, 3, x->t, &rw, &emb), OPENPIM_EMB_ERR_ARGUMENT);
    c2 = cfg, c2.comm_impl = 5;
    EXPECT(openpim_emb_create(set4, &c2, 3, x->t, &rw, &emb), OPENPIM_EMB_ERR_ARGUMENT);
    /* the plan's grid must be the set's DPU count */
    struct openpim_emb_plan rw8 = {OPENPIM_EMB_ROW_WISE, 8, 1, 1};
    EXPECT(openpim_emb_create(set4, &cfg, 3, x->t, &rw8, &emb), OPENPIM_EMB_ERR_PLAN);
    /* table data missing */
    struct openpim_emb_table nodata[3] = {x->t[0], x->t[1], x->t[2]};
    nodata[1].data = NULL;
    EXPECT(openpim_emb_create(set4, &cfg, 3, nodata, &rw, &emb), OPENPIM_EMB_ERR_ARGUMENT);
    /* a table that does not fit: 2^24 + 1 rows of one int32 on each of 4 DPUs would be
     * 2^22 + 1 rows each, but table_wise puts the whole table on one DPU */
    uint32_t *big = calloc((size_t)(1u << 24) + 1, 4); /* untouched pages: never read */
    struct openpim_emb_table huge[4] = {{(1u << 24) + 1, 1, 1, big}, x->t[0], x->t[1], x->t[2]};
    struct openpim_emb_plan tw = {OPENPIM_EMB_TABLE_WISE, 1, 1, 4};
    EXPECT(openpim_emb_create(set4, &cfg, 4, huge, &tw, &emb), OPENPIM_EMB_ERR_CAPACITY);
    CHECK(strstr(openpim_emb_last_error(), "MRAM") != NULL);
    /* too many tables on one DPU */
    struct openpim_emb_table many[65];
    for (int i = 0; i < 65; i++)
        many[i] = x->t[0];
    struct openpim_emb_plan rw4 = {OPENPIM_EMB_ROW_WISE, 4, 1, 1};
    EXPECT(openpim_emb_create(set4, &cfg, 65, many, &rw4, &emb), OPENPIM_EMB_ERR_PLAN);
    CHECK(emb == NULL);
    free(big);
}

static void lookup_errors(struct dpu_set_t set4, struct tables *x, int is_float)
{
    struct openpim_emb_plan grid;
    EXPECT(openpim_emb_plan_make(OPENPIM_EMB_GRID_SHARD, 4, 2, 3, x->t, &grid), OPENPIM_EMB_OK);
    struct openpim_emb_config cfg = {is_float ? OPENPIM_EMB_FLOAT : OPENPIM_EMB_INT32, 6, 4, -1};
    openpim_emb_t *emb = NULL;
    EXPECT(openpim_emb_create(set4, &cfg, 3, x->t, &grid, &emb), OPENPIM_EMB_OK);
    if (!emb)
        return;
    double us = -1;
    EXPECT(openpim_emb_measure_transfer_back(emb, &us), OPENPIM_EMB_ERR_ARGUMENT);
    EXPECT(openpim_emb_measure_transfer_back(emb, NULL), OPENPIM_EMB_ERR_ARGUMENT);
    const size_t bytes = (size_t)6 * x->total_dim * 4;
    uint8_t *out = malloc(bytes), *ref = malloc(bytes);
    memset(out, 0x5A, bytes);
    memcpy(ref, out, bytes);
    tables_indices(x, 6);
    const uint32_t *const *idx = (const uint32_t *const *)x->idx;
    EXPECT(openpim_emb_lookup(NULL, 6, idx, out, NULL), OPENPIM_EMB_ERR_ARGUMENT);
    EXPECT(openpim_emb_lookup(emb, 6, idx, NULL, NULL), OPENPIM_EMB_ERR_ARGUMENT);
    EXPECT(openpim_emb_lookup(emb, 0, idx, out, NULL), OPENPIM_EMB_ERR_ARGUMENT);
    EXPECT(openpim_emb_lookup(emb, 7, idx, out, NULL), OPENPIM_EMB_ERR_ARGUMENT);
    EXPECT(openpim_emb_lookup(emb, 6, NULL, out, NULL), OPENPIM_EMB_ERR_ARGUMENT);
    uint32_t *save = x->idx[1];
    x->idx[1] = NULL;
    EXPECT(openpim_emb_lookup(emb, 6, idx, out, NULL), OPENPIM_EMB_ERR_ARGUMENT);
    x->idx[1] = save;
    /* an index one past the end, in the last bag of the last table */
    uint32_t last = 6 * x->t[2].pooling - 1, keep = x->idx[2][last];
    x->idx[2][last] = x->t[2].rows;
    EXPECT(openpim_emb_lookup(emb, 6, idx, out, NULL), OPENPIM_EMB_ERR_INDEX);
    CHECK(strstr(openpim_emb_last_error(), "table 2") != NULL);
    x->idx[2][last] = 0xFFFFFFFFu;
    EXPECT(openpim_emb_lookup(emb, 6, idx, out, NULL), OPENPIM_EMB_ERR_INDEX);
    EXPECT(openpim_emb_cpu_lookup(cfg.type, 3, x->t, 6, idx, out), OPENPIM_EMB_ERR_INDEX);
    CHECK(memcmp(out, ref, bytes) == 0); /* nothing written */
    x->idx[2][last] = keep;
    struct dpu_set_t d;
    EXPECT(openpim_emb_cell_dpu(emb, 2, 0, 0, &d), OPENPIM_EMB_ERR_ARGUMENT);
    EXPECT(openpim_emb_cell_dpu(emb, 1, 1, 0, &d), OPENPIM_EMB_OK);
    /* and afterwards a good batch is exact */
    struct openpim_emb_times tm;
    EXPECT(openpim_emb_lookup(emb, 6, idx, out, &tm), OPENPIM_EMB_OK);
    CHECK_EQ(compare(x, 6, out, is_float, 2), 0);
    /* the transfer alone is part of the Reduce (which adds the host's reduction) */
    EXPECT(openpim_emb_measure_transfer_back(emb, &us), OPENPIM_EMB_OK);
    CHECK(us > 0 && us < tm.retrieve_us);
    EXPECT(openpim_emb_cpu_lookup((openpim_emb_type)9, 3, x->t, 6, idx, out), OPENPIM_EMB_ERR_ARGUMENT);
    free(out);
    free(ref);
    openpim_emb_destroy(emb);
    openpim_emb_destroy(NULL);
}

int main(void)
{
    struct tables x;
    tables_make(&x, 3, rows, dims, pool, 0, 6);
    plans(&x);
    struct dpu_set_t set4;
    DPU_ASSERT(dpu_alloc(4, "nrRanks=1", &set4));
    create_errors(set4, &x);
    lookup_errors(set4, &x, 0);
    tables_free(&x);
    tables_make(&x, 3, rows, dims, pool, 1, 6);
    lookup_errors(set4, &x, 1);
    tables_free(&x);
    DPU_ASSERT(dpu_free(set4));
    return check_done("test_emb_errors");
}
