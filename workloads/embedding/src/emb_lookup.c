/* SPDX-License-Identifier: MIT */
/* Placing the tables on the DPUs and running lookups: split the bags by row
 * slice on the host, push them, launch the kernel, bring the pooled vectors
 * back through comm (Reduce over the row slices, or Gather), concatenate. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#include "openpim_ext.h"

/* The arguments as they lie at the start of a node's input image. */
struct emb_host_args {
    struct emb_header h;
    struct emb_shard_args shard[EMB_MAX_SHARDS];
};

struct openpim_emb {
    struct dpu_set_t set;
    struct openpim_emb_config cfg;
    struct openpim_emb_plan plan;
    struct emb_layout l;
    uint32_t nr_tables;
    struct openpim_emb_table *tables; /* shapes only (data is not kept) */
    uint32_t *col_offset;             /* [t] first column of table t in an output row */
    uint32_t total_dim;
    uint32_t nr_nodes;
    openpim_cube_t *cube;
    openpim_comm_t *rows; /* communicator over the row slices (cube dimension 0) */
    struct dpu_set_t *node_dpu;
    uint64_t mram_bytes, out_base, in_base;
    /* scratch, grown as needed */
    struct emb_host_args *args; /* [node] */
    uint8_t *in_buf;        /* [node][in_stride] */
    size_t in_cap;
    uint8_t *out_buf;       /* comm's host buffer: [instance][out_bytes] */
    size_t out_cap;
    uint32_t *cnt;          /* [R][batch] bag sizes per row slice, then their starts */
    uint32_t *fill;         /* [R][batch] */
    uint64_t *slice_total;  /* [t][R] padded index count of table t's slice r */
    uint64_t *node_in;      /* [g][R] input bytes of a DPU */
    size_t cnt_cap;
    uint32_t last_batch; /* of the last successful lookup (0: none) */
};

static const struct openpim_emb_table *table_shapes(const openpim_emb_t *e)
{
    return e->tables;
}

static void *grow(void *p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return p;
    void *q = realloc(p, need);
    if (q)
        *cap = need;
    return q;
}

static uint32_t node_of(const struct emb_layout *l, uint32_t r, uint32_t c, uint32_t g)
{
    return r + l->R * (c + l->C * g);
}

/* Pushes every node's table region, window by window (at most ~64 MB of
 * staging in all): slice (r, c) of each table of the node's group, rows
 * padded to cols_pad with zeros, room of empty rows zero. */
static openpim_emb_status place_tables(openpim_emb_t *e, const struct openpim_emb_table *tables)
{
    const struct emb_layout *l = &e->l;
    const uint64_t total = emb_out_base(l);
    if (total == 0)
        return OPENPIM_EMB_OK;
    uint64_t win = ((64ull << 20) / e->nr_nodes) & ~(uint64_t)7;
    if (win < 4096)
        win = 4096;
    if (win > total)
        win = total;
    uint8_t *buf = malloc((size_t)win * e->nr_nodes);
    if (!buf)
        return emb_fail(OPENPIM_EMB_ERR_NOMEM, "out of host memory staging the tables (%llu bytes)",
                        (unsigned long long)win * e->nr_nodes);
    openpim_emb_status st = OPENPIM_EMB_OK;
    const size_t esz = 4;
    for (uint64_t w0 = 0; w0 < total && !st; w0 += win) {
        const uint64_t wl = total - w0 < win ? total - w0 : win;
        memset(buf, 0, (size_t)win * e->nr_nodes);
        for (uint32_t g = 0; g < l->G; g++)
            for (uint32_t k = 0; k < l->group_count[g]; k++) {
                const uint32_t t = l->group_tables[(size_t)g * l->nr_tables + k];
                const uint64_t rb = (uint64_t)l->cols_pad[t] * esz, t0 = l->table_off[t];
                const uint64_t t1 = t0 + (uint64_t)l->rows_per[t] * rb;
                if (t1 <= w0 || t0 >= w0 + wl)
                    continue;
                for (uint32_t r = 0; r < l->R; r++) {
                    const uint32_t nrows = emb_slice_rows(l, tables, t, r);
                    const uint64_t lo = t0 > w0 ? t0 : w0, hi = t1 < w0 + wl ? t1 : w0 + wl;
                    for (uint64_t lr = (lo - t0) / rb; lr < nrows && t0 + lr * rb < hi; lr++) {
                        const uint64_t row = (uint64_t)r * l->rows_per[t] + lr;
                        for (uint32_t c = 0; c < l->C; c++) {
                            const uint8_t *src = (const uint8_t *)tables[t].data +
                                                 (row * tables[t].dim + (uint64_t)c * l->cols[t]) * esz;
                            uint8_t *dst = buf + (size_t)node_of(l, r, c, g) * win;
                            /* the part of this row inside the window */
                            const uint64_t a = t0 + lr * rb, z = a + (uint64_t)l->cols[t] * esz;
                            const uint64_t ca = a > w0 ? a : w0, cz = z < w0 + wl ? z : w0 + wl;
                            if (ca < cz)
                                memcpy(dst + (ca - w0), src + (ca - a), (size_t)(cz - ca));
                        }
                    }
                }
            }
        for (uint32_t n = 0; n < e->nr_nodes && !st; n++) {
            dpu_error_t rc = dpu_prepare_xfer(e->node_dpu[n], buf + (size_t)n * win);
            if (rc != DPU_OK)
                st = emb_dpu_fail(rc, "dpu_prepare_xfer (tables)");
        }
        if (!st) {
            struct dpu_symbol_t mram = {EMB_MRAM_BASE, (uint32_t)e->mram_bytes};
            dpu_error_t rc = dpu_push_xfer_symbol(e->set, DPU_XFER_TO_DPU, mram, (uint32_t)w0, (size_t)wl,
                                                  DPU_XFER_DEFAULT);
            if (rc != DPU_OK)
                st = emb_dpu_fail(rc, "pushing the table slices to the DPUs");
        }
    }
    free(buf);
    return st;
}

openpim_emb_status openpim_emb_create(struct dpu_set_t set, const struct openpim_emb_config *config,
                                      uint32_t nr_tables, const struct openpim_emb_table *tables,
                                      const struct openpim_emb_plan *plan, openpim_emb_t **emb)
{
    emb_clear_error();
    if (!config || !plan || !emb)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "config, plan and emb must not be NULL");
    *emb = NULL;
    if (config->type != OPENPIM_EMB_INT32 && config->type != OPENPIM_EMB_FLOAT)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "unknown element type %d", (int)config->type);
    if (config->max_batch == 0)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "max_batch is 0");
    const uint32_t tasklets = config->tasklets ? config->tasklets : 16;
    struct dpu_incbin_t *image = emb_kernel_image(tasklets);
    if (!image)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT,
                        "no kernel image for %u tasklets (built: 1, 2, 4, 6, 8, 11, 12, 16, 20, 24)", tasklets);
    if (config->comm_impl != -1 && config->comm_impl != OPENPIM_COMM_BASELINE &&
        config->comm_impl != OPENPIM_COMM_OPTIMISED)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "comm_impl %d is not -1, OPENPIM_COMM_BASELINE or _OPTIMISED",
                        config->comm_impl);
    openpim_emb_status st = emb_check_tables(nr_tables, tables, 1);
    if (st)
        return st;
    uint32_t nr_dpus = 0;
    dpu_error_t rc = dpu_get_nr_dpus(set, &nr_dpus);
    if (rc != DPU_OK)
        return emb_dpu_fail(rc, "dpu_get_nr_dpus");
    openpim_emb_t *e = calloc(1, sizeof *e);
    if (!e)
        return emb_fail(OPENPIM_EMB_ERR_NOMEM, "out of host memory");
    e->set = set;
    e->cfg = *config;
    e->cfg.tasklets = tasklets;
    e->plan = *plan;
    e->nr_tables = nr_tables;
    if ((st = emb_layout_make(plan, nr_tables, tables, &e->l)))
        goto fail;
    if ((uint64_t)e->l.R * e->l.C * e->l.G != nr_dpus) {
        st = emb_fail(OPENPIM_EMB_ERR_PLAN, "%s plan R %u x C %u x G %u does not match the set's %u DPUs",
                      openpim_emb_sharding_name(plan->sharding), e->l.R, e->l.C, e->l.G, nr_dpus);
        goto fail;
    }
    e->nr_nodes = nr_dpus;
    uint32_t wram = 0;
    if ((rc = openpim_get_memory_sizes(set, &e->mram_bytes, &wram)) != DPU_OK) {
        st = emb_dpu_fail(rc, "openpim_get_memory_sizes");
        goto fail;
    }
    if ((st = openpim_emb_plan_fits(plan, nr_tables, tables, config->max_batch, e->mram_bytes, NULL)))
        goto fail;
    e->out_base = emb_out_base(&e->l);
    e->in_base = emb_in_base(&e->l, config->max_batch);
    e->tables = calloc(nr_tables, sizeof *e->tables);
    e->col_offset = calloc(nr_tables, sizeof *e->col_offset);
    e->node_dpu = calloc(nr_dpus, sizeof *e->node_dpu);
    e->args = calloc(nr_dpus, sizeof *e->args);
    e->slice_total = calloc((size_t)nr_tables * e->l.R, sizeof *e->slice_total);
    e->node_in = calloc((size_t)e->l.G * e->l.R, sizeof *e->node_in);
    if (!e->tables || !e->col_offset || !e->node_dpu || !e->args || !e->slice_total || !e->node_in) {
        st = emb_fail(OPENPIM_EMB_ERR_NOMEM, "out of host memory");
        goto fail;
    }
    for (uint32_t t = 0; t < nr_tables; t++) {
        e->tables[t] = tables[t];
        e->tables[t].data = NULL;
        e->col_offset[t] = e->total_dim;
        e->total_dim += tables[t].dim;
    }
    const uint32_t lengths[3] = {e->l.R, e->l.C, e->l.G}, dim0 = 0;
    openpim_comm_status cs = openpim_cube_create(set, 3, lengths, &e->cube);
    if (cs == OPENPIM_COMM_OK && config->comm_impl >= 0)
        cs = openpim_cube_set_impl(e->cube, (openpim_comm_impl)config->comm_impl);
    if (cs == OPENPIM_COMM_OK)
        cs = openpim_comm_create(e->cube, 1, &dim0, &e->rows);
    for (uint32_t n = 0; cs == OPENPIM_COMM_OK && n < nr_dpus; n++)
        cs = openpim_cube_node_dpu(e->cube, n, &e->node_dpu[n]);
    if (cs != OPENPIM_COMM_OK) {
        st = emb_comm_fail(cs, "setting up the DPU grid");
        goto fail;
    }
    if ((rc = dpu_load_from_incbin(set, image, NULL)) != DPU_OK) {
        st = emb_dpu_fail(rc, "loading the embedding kernel");
        goto fail;
    }
    const uint32_t at = (uint32_t)e->in_base;
    if ((rc = dpu_broadcast_to(set, "emb_args_at", 0, &at, sizeof at, DPU_XFER_DEFAULT)) != DPU_OK) {
        st = emb_dpu_fail(rc, "telling the kernel where its arguments are");
        goto fail;
    }
    if ((st = place_tables(e, tables)))
        goto fail;
    *emb = e;
    return OPENPIM_EMB_OK;
fail:
    openpim_emb_destroy(e);
    return st;
}

void openpim_emb_destroy(openpim_emb_t *e)
{
    if (!e)
        return;
    openpim_cube_destroy(e->cube);
    emb_layout_free(&e->l);
    free(e->tables);
    free(e->col_offset);
    free(e->node_dpu);
    free(e->args);
    free(e->in_buf);
    free(e->out_buf);
    free(e->cnt);
    free(e->fill);
    free(e->slice_total);
    free(e->node_in);
    free(e);
}

openpim_emb_status openpim_emb_measure_transfer_back(openpim_emb_t *e, double *us)
{
    emb_clear_error();
    if (!e || !us)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "emb and us must not be NULL");
    if (!e->last_batch)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "no lookup has run yet");
    const uint64_t out_bytes = (uint64_t)e->last_batch * e->l.out_width * 4;
    const size_t all = (size_t)out_bytes * e->nr_nodes;
    uint8_t *host = malloc(all ? all : 1);
    if (!host)
        return emb_fail(OPENPIM_EMB_ERR_NOMEM, "out of host memory");
    const double t0 = openpim_modelled_time_us();
    openpim_comm_status cs = openpim_gather(e->rows, e->out_base, host, out_bytes);
    *us = openpim_modelled_time_us() - t0;
    free(host);
    return cs == OPENPIM_COMM_OK ? OPENPIM_EMB_OK : emb_comm_fail(cs, "gathering the outputs");
}

const struct openpim_emb_plan *openpim_emb_get_plan(const openpim_emb_t *e)
{
    return e ? &e->plan : NULL;
}

openpim_emb_status openpim_emb_cell_dpu(const openpim_emb_t *e, uint32_t r, uint32_t c, uint32_t g,
                                        struct dpu_set_t *dpu)
{
    emb_clear_error();
    if (!e || !dpu)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "emb and dpu must not be NULL");
    if (r >= e->l.R || c >= e->l.C || g >= e->l.G)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "cell (%u, %u, %u) outside the %u x %u x %u grid", r, c, g,
                        e->l.R, e->l.C, e->l.G);
    *dpu = e->node_dpu[node_of(&e->l, r, c, g)];
    return OPENPIM_EMB_OK;
}

static uint64_t even(uint64_t x)
{
    return (x + 1) & ~(uint64_t)1;
}

/* Splits the bags of every table by row slice into each node's input image
 * (per table of its group: batch (start, count) headers, then the local
 * indices, each bag starting at an even position) and fills the kernel
 * arguments.  Returns the bytes read and written (for the modelled cost) or
 * 0 on failure (the error is set). */
static uint64_t split_indices(openpim_emb_t *e, uint32_t batch, const uint32_t *const *indices, size_t *stride_out)
{
    const struct emb_layout *l = &e->l;
    const struct openpim_emb_table *tables = table_shapes(e);
    const uint32_t R = l->R;
    const size_t cells = (size_t)R * batch * sizeof(uint32_t);
    size_t cap_c = e->cnt_cap, cap_f = e->cnt_cap;
    uint32_t *cnt = grow(e->cnt, &cap_c, cells);
    if (cnt)
        e->cnt = cnt;
    uint32_t *fill = grow(e->fill, &cap_f, cells);
    if (fill)
        e->fill = fill;
    if (!cnt || !fill) {
        emb_fail(OPENPIM_EMB_ERR_NOMEM, "out of host memory splitting the indices");
        return 0;
    }
    e->cnt_cap = cap_c < cap_f ? cap_c : cap_f;
    /* padded index counts of every (table, row slice), then each node's input size */
    for (uint32_t t = 0; t < l->nr_tables; t++) {
        memset(cnt, 0, cells);
        const uint32_t P = tables[t].pooling, rp = l->rows_per[t];
        for (uint32_t b = 0; b < batch; b++)
            for (uint32_t p = 0; p < P; p++)
                cnt[(size_t)(indices[t][(size_t)b * P + p] / rp) * batch + b]++;
        for (uint32_t r = 0; r < R; r++) {
            uint64_t s = 0;
            for (uint32_t b = 0; b < batch; b++)
                s += even(cnt[(size_t)r * batch + b]);
            e->slice_total[(size_t)t * R + r] = s;
        }
    }
    const uint64_t A = EMB_ARGS_BYTES(l->max_shards); /* the arguments come first */
    uint64_t stride = 8;
    for (uint32_t g = 0; g < l->G; g++)
        for (uint32_t r = 0; r < R; r++) {
            uint64_t s = A;
            for (uint32_t k = 0; k < l->group_count[g]; k++) {
                uint32_t t = l->group_tables[(size_t)g * l->nr_tables + k];
                s += (uint64_t)batch * 8 + e->slice_total[(size_t)t * R + r] * 4;
            }
            e->node_in[(size_t)g * R + r] = s;
            if (s > stride)
                stride = s;
        }
    stride = (stride + 7) & ~(uint64_t)7;
    size_t need = (size_t)stride * e->nr_nodes;
    uint8_t *in = grow(e->in_buf, &e->in_cap, need);
    if (!in) {
        emb_fail(OPENPIM_EMB_ERR_NOMEM, "out of host memory for %llu bytes of indices", (unsigned long long)need);
        return 0;
    }
    e->in_buf = in;
    uint64_t bytes = 0;
    const uint64_t out_base = e->out_base;
    uint64_t *pos = malloc((size_t)R * sizeof *pos); /* where the next table's part starts in node (r, 0, g) */
    if (!pos) {
        emb_fail(OPENPIM_EMB_ERR_NOMEM, "out of host memory");
        return 0;
    }
    for (uint32_t g = 0; g < l->G; g++) {
        for (uint32_t r = 0; r < R; r++)
            pos[r] = A;
        for (uint32_t k = 0; k < l->group_count[g]; k++) {
            const uint32_t t = l->group_tables[(size_t)g * l->nr_tables + k];
            const uint32_t P = tables[t].pooling, rp = l->rows_per[t];
            memset(cnt, 0, cells);
            for (uint32_t b = 0; b < batch; b++)
                for (uint32_t p = 0; p < P; p++)
                    cnt[(size_t)(indices[t][(size_t)b * P + p] / rp) * batch + b]++;
            for (uint32_t r = 0; r < R; r++) {
                uint8_t *img = in + (size_t)node_of(l, r, 0, g) * stride + pos[r];
                uint32_t *hdr = (uint32_t *)img, *idx = (uint32_t *)(img + (size_t)batch * 8);
                uint32_t start = 0;
                for (uint32_t b = 0; b < batch; b++) {
                    uint32_t n = cnt[(size_t)r * batch + b];
                    hdr[2 * b] = start;
                    hdr[2 * b + 1] = n;
                    fill[(size_t)r * batch + b] = start;
                    if (n & 1u)
                        idx[start + n] = 0; /* the pad word the kernel's 8-byte DMA reads */
                    start += (uint32_t)even(n);
                }
                struct emb_host_args *a = &e->args[node_of(l, r, 0, g)];
                a->h.batch = batch;
                a->h.type = e->cfg.type == OPENPIM_EMB_FLOAT ? EMB_TYPE_FLOAT : EMB_TYPE_INT32;
                a->h.nr_shards = l->group_count[g];
                a->shard[k] = (struct emb_shard_args){
                    .table_off = (uint32_t)l->table_off[t],
                    .rows = emb_slice_rows(l, tables, t, r),
                    .cols = l->cols[t],
                    .cols_pad = l->cols_pad[t],
                    .hdr_off = (uint32_t)(e->in_base + pos[r]),
                    .idx_off = (uint32_t)(e->in_base + pos[r] + (uint64_t)batch * 8),
                    .out_off = (uint32_t)(out_base + (uint64_t)batch * l->out_col[t] * 4),
                    .nr_indices = start,
                };
            }
            for (uint32_t b = 0; b < batch; b++)
                for (uint32_t p = 0; p < P; p++) {
                    const uint32_t x = indices[t][(size_t)b * P + p], r = x / rp;
                    uint32_t *idx = (uint32_t *)(in + (size_t)node_of(l, r, 0, g) * stride + pos[r] + (size_t)batch * 8);
                    idx[fill[(size_t)r * batch + b]++] = x - r * rp;
                }
            for (uint32_t r = 0; r < R; r++)
                pos[r] += (uint64_t)batch * 8 + e->slice_total[(size_t)t * R + r] * 4;
            bytes += (uint64_t)batch * P * 4 * 2; /* two passes over the bags */
        }
        /* the arguments at the head of the image; every column slice of the group gets the same image */
        for (uint32_t r = 0; r < R; r++) {
            const uint32_t n0 = node_of(l, r, 0, g);
            memset(in + (size_t)n0 * stride, 0, (size_t)A);
            memcpy(in + (size_t)n0 * stride, &e->args[n0], (size_t)EMB_ARGS_BYTES(l->group_count[g]));
            for (uint32_t c = 1; c < l->C; c++) {
                const uint32_t n = node_of(l, r, c, g);
                memcpy(in + (size_t)n * stride, in + (size_t)n0 * stride, (size_t)e->node_in[(size_t)g * R + r]);
            }
            bytes += (uint64_t)l->C * e->node_in[(size_t)g * R + r];
        }
    }
    free(pos);
    *stride_out = (size_t)stride;
    return bytes ? bytes : 1;
}

openpim_emb_status openpim_emb_lookup(openpim_emb_t *e, uint32_t batch, const uint32_t *const *indices, void *out,
                                      struct openpim_emb_times *times)
{
    emb_clear_error();
    if (!e || !out)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "emb and out must not be NULL");
    if (batch == 0 || batch > e->cfg.max_batch)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "batch %u outside [1, max_batch %u]", batch, e->cfg.max_batch);
    const struct emb_layout *l = &e->l;
    const struct openpim_emb_table *tables = table_shapes(e);
    openpim_emb_status st = emb_check_indices(e->nr_tables, tables, batch, indices);
    if (st)
        return st;
    /* the input region was sized for the worst case at create; this checks the invariant */
    for (uint32_t g = 0; g < l->G; g++)
        if (e->in_base + emb_input_bytes(l, tables, g, batch) > e->mram_bytes)
            return emb_fail(OPENPIM_EMB_ERR_CAPACITY, "the indices of a batch of %u do not fit in MRAM", batch);
    struct openpim_emb_times tm = {0};
    const double t0 = openpim_modelled_time_us();
    size_t stride = 0;
    uint64_t split_bytes = split_indices(e, batch, indices, &stride);
    if (!split_bytes)
        return OPENPIM_EMB_ERR_NOMEM;
    tm.host_split_us = emb_host_us(split_bytes);
    dpu_error_t rc = openpim_record_host_event(OPENPIM_EVENT_HOST, "embedding: split indices", tm.host_split_us);
    if (rc != DPU_OK)
        return emb_dpu_fail(rc, "recording the host's work");
    double t = openpim_modelled_time_us();
    for (uint32_t n = 0; n < e->nr_nodes; n++)
        if ((rc = dpu_prepare_xfer(e->node_dpu[n], e->in_buf + (size_t)n * stride)) != DPU_OK)
            return emb_dpu_fail(rc, "dpu_prepare_xfer (indices)");
    struct dpu_symbol_t mram = {EMB_MRAM_BASE, (uint32_t)e->mram_bytes};
    if ((rc = dpu_push_xfer_symbol(e->set, DPU_XFER_TO_DPU, mram, (uint32_t)e->in_base, stride, DPU_XFER_DEFAULT)) !=
        DPU_OK)
        return emb_dpu_fail(rc, "pushing the kernel arguments and indices");
    double t2 = openpim_modelled_time_us();
    tm.cpu_dpu_us = t2 - t;
    if ((rc = dpu_launch(e->set, DPU_SYNCHRONOUS)) != DPU_OK)
        return emb_dpu_fail(rc, "running the embedding kernel");
    t = openpim_modelled_time_us();
    tm.kernel_us = t - t2;
    const uint64_t out_bytes = (uint64_t)batch * l->out_width * 4;
    const size_t inst = (size_t)l->C * l->G;
    uint8_t *host = grow(e->out_buf, &e->out_cap, (size_t)out_bytes * inst);
    if (!host)
        return emb_fail(OPENPIM_EMB_ERR_NOMEM, "out of host memory for the outputs");
    e->out_buf = host;
    openpim_comm_status cs =
        l->R > 1 ? openpim_reduce(e->rows, e->out_base, host, out_bytes,
                                  e->cfg.type == OPENPIM_EMB_FLOAT ? OPENPIM_FLOAT : OPENPIM_INT32, OPENPIM_SUM)
                 : openpim_gather(e->rows, e->out_base, host, out_bytes);
    if (cs != OPENPIM_COMM_OK)
        return emb_comm_fail(cs, l->R > 1 ? "reducing the row slices' partial sums" : "gathering the outputs");
    t2 = openpim_modelled_time_us();
    tm.retrieve_us = t2 - t;
    /* instance c + C * g holds column slice c of group g's tables */
    for (uint32_t g = 0; g < l->G; g++)
        for (uint32_t c = 0; c < l->C; c++) {
            const uint8_t *blk = host + (size_t)(c + l->C * g) * out_bytes;
            for (uint32_t k = 0; k < l->group_count[g]; k++) {
                const uint32_t tt = l->group_tables[(size_t)g * l->nr_tables + k];
                const size_t w = (size_t)l->cols[tt] * 4;
                for (uint32_t b = 0; b < batch; b++)
                    memcpy((uint8_t *)out + ((size_t)b * e->total_dim + e->col_offset[tt] + (size_t)c * l->cols[tt]) * 4,
                           blk + ((size_t)batch * l->out_col[tt] + (size_t)b * l->cols_pad[tt]) * 4, w);
            }
        }
    tm.host_concat_us = emb_host_us((uint64_t)batch * e->total_dim * 4 * 2);
    if ((rc = openpim_record_host_event(OPENPIM_EVENT_HOST, "embedding: concatenate", tm.host_concat_us)) != DPU_OK)
        return emb_dpu_fail(rc, "recording the host's work");
    tm.total_us = openpim_modelled_time_us() - t0;
    e->last_batch = batch;
    if (times)
        *times = tm;
    return OPENPIM_EMB_OK;
}
