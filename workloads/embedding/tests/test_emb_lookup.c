/* SPDX-License-Identifier: MIT */
/* Every sharding type on 8 DPUs (and on 1), int32 and float, two batches
 * each on the same placement, against the references of emb_test.h; kernel
 * variants of 1 and 24 tasklets; both comm implementations; the CPU
 * baseline; the modelled phases adding up and repeating exactly. */
#include <dpu.h>

#include "emb_test.h"

#include "openpim_comm.h"

#define NT 8
static const uint32_t rows[NT] = {100, 37, 250, 9, 64, 1, 333, 20};
/* dim 24 / 8 column slices = 3 columns (odd: padded rows); 264 = three 128-column passes */
static const uint32_t dims[NT] = {8, 16, 8, 24, 8, 16, 8, 264};
static const uint32_t pool[NT] = {3, 5, 1, 7, 70, 2, 4, 6}; /* 70: two index DMAs per bag */

struct pl {
    openpim_emb_sharding s;
    uint32_t split, R, C, G; /* R, C, G only for custom */
};

static void run_plan(struct dpu_set_t set, uint32_t nr_dpus, const struct pl *pl, int is_float, uint32_t tasklets,
                     int comm_impl)
{
    struct tables x;
    tables_make(&x, NT, rows, dims, pool, is_float, 16);
    struct openpim_emb_plan plan;
    if (pl->s == OPENPIM_EMB_CUSTOM) {
        plan = (struct openpim_emb_plan){OPENPIM_EMB_CUSTOM, pl->R, pl->C, pl->G};
    } else {
        openpim_emb_status st = openpim_emb_plan_make(pl->s, nr_dpus, pl->split, NT, x.t, &plan);
        CHECK_EQ(st, OPENPIM_EMB_OK);
        if (st) {
            fprintf(stderr, "plan %s: %s\n", openpim_emb_sharding_name(pl->s), openpim_emb_last_error());
            tables_free(&x);
            return;
        }
    }
    struct openpim_emb_config cfg = {is_float ? OPENPIM_EMB_FLOAT : OPENPIM_EMB_INT32, 16, tasklets, comm_impl};
    openpim_emb_t *emb = NULL;
    openpim_emb_status st = openpim_emb_create(set, &cfg, NT, x.t, &plan, &emb);
    CHECK_EQ(st, OPENPIM_EMB_OK);
    if (st) {
        fprintf(stderr, "create %s: %s\n", openpim_emb_sharding_name(plan.sharding), openpim_emb_last_error());
        tables_free(&x);
        return;
    }
    void *out = malloc((size_t)16 * x.total_dim * 4);
    double kernel_first = -1;
    uint64_t cycles_first = 0;
    for (int round = 0; round < 3; round++) {
        uint32_t batch = round == 0 ? 13 : 16; /* round 2 repeats round 1's batch */
        if (round != 2)
            tables_indices(&x, batch);
        memset(out, 0xA5, (size_t)16 * x.total_dim * 4);
        struct openpim_emb_times tm;
        st = openpim_emb_lookup(emb, batch, (const uint32_t *const *)x.idx, out, &tm);
        CHECK_EQ(st, OPENPIM_EMB_OK);
        if (st) {
            fprintf(stderr, "lookup: %s\n", openpim_emb_last_error());
            break;
        }
        long bad = compare(&x, batch, out, is_float, plan.row_shards);
        if (bad)
            fprintf(stderr, "%s R%u C%u G%u %s T%u: %ld mismatches (batch %u)\n", openpim_emb_sharding_name(plan.sharding),
                    plan.row_shards, plan.col_shards, plan.groups, is_float ? "float" : "int32", tasklets, bad, batch);
        CHECK_EQ(bad, 0);
        CHECK(tm.kernel_us > 0 && tm.cpu_dpu_us > 0 && tm.retrieve_us > 0 && tm.host_split_us > 0 &&
              tm.host_concat_us > 0);
        double sum = tm.host_split_us + tm.cpu_dpu_us + tm.kernel_us + tm.retrieve_us + tm.host_concat_us;
        CHECK(fabs(sum - tm.total_us) <= 1e-6 * tm.total_us);
        /* modelled cycles are exact; microseconds are differences of an absolute clock */
        struct dpu_set_t d0;
        struct openpim_dpu_stats stats;
        CHECK_EQ(openpim_emb_cell_dpu(emb, 0, 0, 0, &d0), OPENPIM_EMB_OK);
        DPU_ASSERT(openpim_get_dpu_stats(d0, &stats));
        CHECK(stats.cycles > 0 && stats.instructions > 0 && stats.dma_read_bytes > 0);
        if (round == 1) {
            kernel_first = tm.kernel_us;
            cycles_first = stats.cycles;
        }
        if (round == 2) { /* the same batch again: the same modelled kernel */
            CHECK_EQ(stats.cycles, cycles_first);
            CHECK(fabs(tm.kernel_us - kernel_first) <= 1e-9 * kernel_first);
        }
    }
    free(out);
    openpim_emb_destroy(emb);
    tables_free(&x);
}

static void cpu_baseline(void)
{
    for (int is_float = 0; is_float < 2; is_float++) {
        struct tables x;
        tables_make(&x, NT, rows, dims, pool, is_float, 16);
        tables_indices(&x, 16);
        void *out = malloc((size_t)16 * x.total_dim * 4);
        CHECK_EQ(openpim_emb_cpu_lookup(is_float ? OPENPIM_EMB_FLOAT : OPENPIM_EMB_INT32, NT, x.t, 16,
                                        (const uint32_t *const *)x.idx, out),
                 OPENPIM_EMB_OK);
        CHECK_EQ(compare(&x, 16, out, is_float, 1), 0);
        free(out);
        tables_free(&x);
    }
}

int main(void)
{
    cpu_baseline();
    struct dpu_set_t set8, set1;
    DPU_ASSERT(dpu_alloc(8, "nrRanks=1", &set8));
    const struct pl plans8[] = {
        {OPENPIM_EMB_TABLE_WISE, 0, 0, 0, 0},         {OPENPIM_EMB_ROW_WISE, 0, 0, 0, 0},
        {OPENPIM_EMB_COLUMN_WISE, 0, 0, 0, 0},        {OPENPIM_EMB_TABLE_ROW_WISE, 2, 0, 0, 0},
        {OPENPIM_EMB_TABLE_ROW_WISE, 4, 0, 0, 0},     {OPENPIM_EMB_GRID_SHARD, 2, 0, 0, 0},
        {OPENPIM_EMB_GRID_SHARD, 4, 0, 0, 0},         {OPENPIM_EMB_TABLE_COLUMN_WISE, 2, 0, 0, 0},
        {OPENPIM_EMB_CUSTOM, 0, 2, 2, 2},
    };
    for (int is_float = 0; is_float < 2; is_float++)
        for (size_t i = 0; i < sizeof plans8 / sizeof plans8[0]; i++)
            run_plan(set8, 8, &plans8[i], is_float, 16, -1);
    /* the reduction through both comm implementations, other kernel variants */
    const struct pl rw = {OPENPIM_EMB_ROW_WISE, 0, 0, 0, 0}, grid = {OPENPIM_EMB_GRID_SHARD, 4, 0, 0, 0};
    run_plan(set8, 8, &rw, 1, 16, OPENPIM_COMM_BASELINE);
    run_plan(set8, 8, &grid, 0, 16, OPENPIM_COMM_OPTIMISED);
    run_plan(set8, 8, &rw, 1, 24, -1);
    run_plan(set8, 8, &grid, 1, 11, -1);
    DPU_ASSERT(dpu_free(set8));
    DPU_ASSERT(dpu_alloc(1, "nrRanks=1", &set1));
    const struct pl tw = {OPENPIM_EMB_TABLE_WISE, 0, 0, 0, 0};
    for (int is_float = 0; is_float < 2; is_float++) {
        run_plan(set1, 1, &tw, is_float, 1, -1);
        run_plan(set1, 1, &tw, is_float, 24, -1);
    }
    DPU_ASSERT(dpu_free(set1));
    return check_done("test_emb_lookup");
}
