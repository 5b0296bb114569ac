/* SPDX-License-Identifier: MIT */
/* Plans: the grid shape of each sharding type, where each table's slices go
 * (the layout), and whether a DPU's share fits its MRAM. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *const names[OPENPIM_EMB_NR_SHARDINGS] = {
    [OPENPIM_EMB_TABLE_WISE] = "table_wise",       [OPENPIM_EMB_ROW_WISE] = "row_wise",
    [OPENPIM_EMB_COLUMN_WISE] = "column_wise",     [OPENPIM_EMB_TABLE_ROW_WISE] = "table_row_wise",
    [OPENPIM_EMB_GRID_SHARD] = "grid_shard",       [OPENPIM_EMB_TABLE_COLUMN_WISE] = "table_column_wise",
    [OPENPIM_EMB_CUSTOM] = "custom",
};

const char *openpim_emb_sharding_name(openpim_emb_sharding sharding)
{
    return (unsigned)sharding < OPENPIM_EMB_NR_SHARDINGS ? names[sharding] : NULL;
}

openpim_emb_status emb_check_tables(uint32_t nr_tables, const struct openpim_emb_table *tables, int need_data)
{
    if (nr_tables == 0 || !tables)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "no tables (nr_tables %u, tables %p)", nr_tables, (void *)tables);
    for (uint32_t t = 0; t < nr_tables; t++) {
        const struct openpim_emb_table *x = &tables[t];
        if (x->rows == 0 || x->dim == 0 || x->pooling == 0)
            return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "table %u: rows %u, dim %u, pooling %u (each must be >= 1)", t,
                            x->rows, x->dim, x->pooling);
        if (need_data && !x->data)
            return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "table %u: data is NULL", t);
        /* bounds that keep every DPU-side byte offset within 32 bits */
        if (x->pooling > (1u << 24) || x->dim > (1u << 20))
            return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "table %u: pooling %u or dim %u out of range", t, x->pooling,
                            x->dim);
    }
    return OPENPIM_EMB_OK;
}

openpim_emb_status emb_check_indices(uint32_t nr_tables, const struct openpim_emb_table *tables, uint32_t batch,
                                     const uint32_t *const *indices)
{
    if (!indices)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "indices is NULL");
    for (uint32_t t = 0; t < nr_tables; t++) {
        if (!indices[t])
            return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "indices[%u] is NULL", t);
        const uint64_t n = (uint64_t)batch * tables[t].pooling;
        const uint32_t rows = tables[t].rows;
        for (uint64_t i = 0; i < n; i++)
            if (indices[t][i] >= rows)
                return emb_fail(OPENPIM_EMB_ERR_INDEX,
                                "table %u, sample %llu, position %llu: index %u but the table has %u rows", t,
                                (unsigned long long)(i / tables[t].pooling),
                                (unsigned long long)(i % tables[t].pooling), indices[t][i], rows);
    }
    return OPENPIM_EMB_OK;
}

openpim_emb_status openpim_emb_plan_make(openpim_emb_sharding sharding, uint32_t nr_dpus, uint32_t split,
                                         uint32_t nr_tables, const struct openpim_emb_table *tables,
                                         struct openpim_emb_plan *plan)
{
    emb_clear_error();
    if (!plan)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "plan is NULL");
    openpim_emb_status st = emb_check_tables(nr_tables, tables, 0);
    if (st)
        return st;
    if (nr_dpus == 0)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "nr_dpus is 0");
    struct openpim_emb_plan p = {sharding, 1, 1, 1};
    const int hybrid = sharding == OPENPIM_EMB_TABLE_ROW_WISE || sharding == OPENPIM_EMB_GRID_SHARD ||
                       sharding == OPENPIM_EMB_TABLE_COLUMN_WISE;
    if (hybrid && (split == 0 || nr_dpus % split != 0))
        return emb_fail(OPENPIM_EMB_ERR_PLAN, "%s on %u DPUs: split %u must divide the DPU count",
                        openpim_emb_sharding_name(sharding), nr_dpus, split);
    switch (sharding) {
    case OPENPIM_EMB_TABLE_WISE: p.groups = nr_dpus; break;
    case OPENPIM_EMB_ROW_WISE: p.row_shards = nr_dpus; break;
    case OPENPIM_EMB_COLUMN_WISE: p.col_shards = nr_dpus; break;
    case OPENPIM_EMB_TABLE_ROW_WISE: p.row_shards = split, p.groups = nr_dpus / split; break;
    case OPENPIM_EMB_GRID_SHARD: p.row_shards = split, p.col_shards = nr_dpus / split; break;
    case OPENPIM_EMB_TABLE_COLUMN_WISE: p.col_shards = split, p.groups = nr_dpus / split; break;
    default:
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "sharding %d has no fixed shape (custom plans: fill the struct)",
                        (int)sharding);
    }
    struct emb_layout l;
    if ((st = emb_layout_make(&p, nr_tables, tables, &l)))
        return st;
    emb_layout_free(&l);
    *plan = p;
    return OPENPIM_EMB_OK;
}

void emb_layout_free(struct emb_layout *l)
{
    free(l->group_of);
    free(l->group_count);
    free(l->group_tables);
    free(l->cols);
    free(l->cols_pad);
    free(l->rows_per);
    free(l->table_off);
    free(l->out_col);
    memset(l, 0, sizeof *l);
}

static uint64_t slice_bytes(const struct emb_layout *l, uint32_t t)
{
    return (uint64_t)l->rows_per[t] * l->cols_pad[t] * 4;
}

openpim_emb_status emb_layout_make(const struct openpim_emb_plan *p, uint32_t nr_tables,
                                   const struct openpim_emb_table *tables, struct emb_layout *l)
{
    memset(l, 0, sizeof *l);
    if (!p)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "plan is NULL");
    openpim_emb_status st = emb_check_tables(nr_tables, tables, 0);
    if (st)
        return st;
    const char *name = openpim_emb_sharding_name(p->sharding);
    if (!name)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "unknown sharding %d", (int)p->sharding);
    const uint32_t R = p->row_shards, C = p->col_shards, G = p->groups;
    if (R == 0 || C == 0 || G == 0)
        return emb_fail(OPENPIM_EMB_ERR_PLAN, "%s: R %u, C %u, G %u (each must be >= 1)", name, R, C, G);
    /* the named shardings keep their shape */
    const int shape_ok[OPENPIM_EMB_NR_SHARDINGS] = {
        [OPENPIM_EMB_TABLE_WISE] = R == 1 && C == 1,       [OPENPIM_EMB_ROW_WISE] = C == 1 && G == 1,
        [OPENPIM_EMB_COLUMN_WISE] = R == 1 && G == 1,      [OPENPIM_EMB_TABLE_ROW_WISE] = C == 1,
        [OPENPIM_EMB_GRID_SHARD] = G == 1,                 [OPENPIM_EMB_TABLE_COLUMN_WISE] = R == 1,
        [OPENPIM_EMB_CUSTOM] = 1,
    };
    if (!shape_ok[p->sharding])
        return emb_fail(OPENPIM_EMB_ERR_PLAN, "%s cannot have R %u, C %u, G %u", name, R, C, G);
    if ((uint64_t)R * C * G > 65536)
        return emb_fail(OPENPIM_EMB_ERR_PLAN, "%s: R x C x G = %llu DPUs", name, (unsigned long long)R * C * G);
    if (G > nr_tables)
        return emb_fail(OPENPIM_EMB_ERR_PLAN, "%s: %u table groups but only %u tables (a group needs a table)", name,
                        G, nr_tables);
    for (uint32_t t = 0; t < nr_tables; t++)
        if (tables[t].dim % C != 0)
            return emb_fail(OPENPIM_EMB_ERR_PLAN,
                            "%s: table %u has dim %u, which %u column slices cannot split evenly "
                            "(a column slice is at least one whole column)",
                            name, t, tables[t].dim, C);
    l->R = R, l->C = C, l->G = G, l->nr_tables = nr_tables;
    l->group_of = calloc(nr_tables, sizeof *l->group_of);
    l->group_count = calloc(G, sizeof *l->group_count);
    l->group_tables = calloc((size_t)G * nr_tables, sizeof *l->group_tables);
    l->cols = calloc(nr_tables, sizeof *l->cols);
    l->cols_pad = calloc(nr_tables, sizeof *l->cols_pad);
    l->rows_per = calloc(nr_tables, sizeof *l->rows_per);
    l->table_off = calloc(nr_tables, sizeof *l->table_off);
    l->out_col = calloc(nr_tables, sizeof *l->out_col);
    uint64_t *group_bytes = calloc(G, sizeof *group_bytes);
    uint32_t *order = calloc(nr_tables, sizeof *order);
    if (!l->group_of || !l->group_count || !l->group_tables || !l->cols || !l->cols_pad || !l->rows_per ||
        !l->table_off || !l->out_col || !group_bytes || !order) {
        free(group_bytes);
        free(order);
        emb_layout_free(l);
        return emb_fail(OPENPIM_EMB_ERR_NOMEM, "out of host memory for the layout of %u tables", nr_tables);
    }
    for (uint32_t t = 0; t < nr_tables; t++) {
        l->cols[t] = tables[t].dim / C;
        l->cols_pad[t] = (l->cols[t] + 1) & ~1u;
        l->rows_per[t] = (uint32_t)(((uint64_t)tables[t].rows + R - 1) / R);
        order[t] = t;
    }
    /* largest tables first (insertion sort, stable), each onto the group with the fewest bytes */
    for (uint32_t i = 1; i < nr_tables; i++)
        for (uint32_t j = i; j > 0 && slice_bytes(l, order[j]) > slice_bytes(l, order[j - 1]); j--) {
            uint32_t x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    for (uint32_t i = 0; i < nr_tables; i++) {
        /* the G largest tables open the G groups; the others go where the fewest bytes are */
        uint32_t t = order[i], best = i < G ? i : 0;
        for (uint32_t g = 1; i >= G && g < G; g++)
            if (group_bytes[g] < group_bytes[best])
                best = g;
        l->group_of[t] = best;
        l->group_count[best]++;
        group_bytes[best] += slice_bytes(l, t);
    }
    free(order);
    free(group_bytes);
    for (uint32_t g = 0; g < G; g++)
        l->group_count[g] = 0;
    for (uint32_t t = 0; t < nr_tables; t++) { /* table order inside a group */
        uint32_t g = l->group_of[t];
        l->group_tables[(size_t)g * nr_tables + l->group_count[g]++] = t;
    }
    for (uint32_t g = 0; g < G; g++) {
        uint64_t off = 0;
        uint32_t col = 0;
        for (uint32_t k = 0; k < l->group_count[g]; k++) {
            uint32_t t = l->group_tables[(size_t)g * nr_tables + k];
            l->table_off[t] = off;
            l->out_col[t] = col;
            off += slice_bytes(l, t);
            col += l->cols_pad[t];
        }
        if (off > l->table_bytes)
            l->table_bytes = off;
        if (col > l->out_width)
            l->out_width = col;
        if (l->group_count[g] > l->max_shards)
            l->max_shards = l->group_count[g];
    }
    if (l->max_shards > EMB_MAX_SHARDS) {
        uint32_t m = l->max_shards;
        emb_layout_free(l);
        return emb_fail(OPENPIM_EMB_ERR_PLAN, "%s: %u tables on one DPU; the kernel takes at most %u", name, m,
                        EMB_MAX_SHARDS);
    }
    return OPENPIM_EMB_OK;
}

uint32_t emb_slice_rows(const struct emb_layout *l, const struct openpim_emb_table *tables, uint32_t t, uint32_t r)
{
    uint64_t first = (uint64_t)r * l->rows_per[t];
    if (first >= tables[t].rows)
        return 0;
    uint64_t left = tables[t].rows - first;
    return left < l->rows_per[t] ? (uint32_t)left : l->rows_per[t];
}

static uint64_t even(uint64_t x)
{
    return (x + 1) & ~(uint64_t)1;
}

uint64_t emb_input_bytes(const struct emb_layout *l, const struct openpim_emb_table *tables, uint32_t g,
                         uint32_t batch)
{
    uint64_t bytes = EMB_ARGS_BYTES(l->max_shards);
    for (uint32_t k = 0; k < l->group_count[g]; k++) {
        uint32_t t = l->group_tables[(size_t)g * l->nr_tables + k];
        bytes += (uint64_t)batch * 8 + (uint64_t)batch * even(tables[t].pooling) * 4;
    }
    return bytes;
}

uint64_t emb_out_base(const struct emb_layout *l)
{
    return (l->table_bytes + 7) & ~(uint64_t)7;
}

uint64_t emb_in_base(const struct emb_layout *l, uint32_t max_batch)
{
    return emb_out_base(l) + (uint64_t)max_batch * l->out_width * 4;
}

static openpim_emb_status fits(const struct emb_layout *l, const struct openpim_emb_table *tables,
                               uint32_t max_batch, uint64_t mram_bytes, uint64_t *need_out, const char *name)
{
    uint64_t in = 0;
    for (uint32_t g = 0; g < l->G; g++) {
        uint64_t x = emb_input_bytes(l, tables, g, max_batch);
        if (x > in)
            in = x;
    }
    const uint64_t need = emb_in_base(l, max_batch) + in;
    if (need_out)
        *need_out = need;
    if (need > mram_bytes)
        return emb_fail(OPENPIM_EMB_ERR_CAPACITY,
                        "%s (R %u, C %u, G %u) needs %llu bytes of MRAM on its fullest DPU (%llu of table slices, "
                        "%llu of outputs and %llu of indices for a batch of %u) but a DPU has %llu",
                        name, l->R, l->C, l->G, (unsigned long long)need, (unsigned long long)l->table_bytes,
                        (unsigned long long)(emb_in_base(l, max_batch) - emb_out_base(l)), (unsigned long long)in,
                        max_batch, (unsigned long long)mram_bytes);
    return OPENPIM_EMB_OK;
}

openpim_emb_status openpim_emb_plan_fits(const struct openpim_emb_plan *plan, uint32_t nr_tables,
                                         const struct openpim_emb_table *tables, uint32_t max_batch,
                                         uint64_t mram_bytes, uint64_t *need)
{
    emb_clear_error();
    if (max_batch == 0)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "max_batch is 0");
    struct emb_layout l;
    openpim_emb_status st = emb_layout_make(plan, nr_tables, tables, &l);
    if (st)
        return st;
    st = fits(&l, tables, max_batch, mram_bytes, need, openpim_emb_sharding_name(plan->sharding));
    emb_layout_free(&l);
    return st;
}

double emb_host_us(uint64_t bytes)
{
    struct openpim_comm_cost_model m = openpim_comm_get_cost_model();
    return (double)bytes / (m.dram_gbps * 1e3);
}
