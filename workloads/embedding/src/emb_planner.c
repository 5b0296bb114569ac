/* SPDX-License-Identifier: MIT */
/* The planner: every plan shape that suits the tables and fits the set's MRAM,
 * each with a modelled estimate of one lookup of max_batch uniformly random
 * samples, from probe launches and probe transfers on the set (see the
 * header for the cost terms).
 *
 * The kernel term follows how the kernel spends its time: (shard, bag) items
 * dealt round-robin to the tasklets, a DPU done when its last tasklet is, the
 * launch done when its slowest DPU is.  With row slices a bag's lookups fall
 * in a slice at random (for uniform indices, binomially), so a tasklet with a
 * few bags of a few lookups each can carry far more than the mean; below the
 * pipeline's depth of busy tasklets the DPU slows down (a lone tasklet issues
 * one instruction per pipeline pass).  The planner draws those lookups for
 * every DPU and tasklet (fixed seed: estimates are deterministic) and runs
 * each DPU's tasklets through that pipeline. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#include "openpim_ext.h"

#define MAX_TASKLETS 24u          /* the largest kernel image (emb_kernels.c) */
#define PROBE_BAGS_PER_TASKLET 4u /* balanced probes: every tasklet gets as many bags */
#define PROBE_BATCH (PROBE_BAGS_PER_TASKLET * MAX_TASKLETS)
#define SIM_TRIALS 16u            /* draws of the lookups per plan, averaged */
#define SIM_DRAWS 500000.0        /* at most this many binomial draws per plan (fewer trials if need be) */
#define PROBE_POOL 16u
#define PROBE_ROWS 64u
/* transfer probe sizes (bytes per DPU): the SDK's cost is far from linear below a few KB */
#define NR_SIZES 5
static const uint64_t sizes[NR_SIZES] = {8, 256, 2048, 16384, 65536};

struct probes {
    double bag_w1, bag_w2; /* modelled cycles per bag (header, output write) at widths w1, w2 (padded columns) */
    double cyc_w1, cyc_w2; /* modelled cycles per lookup at widths w1, w2 */
    double bag_1, cyc_1;   /* the same for a slice of one column (padded to 2, the pad never summed) */
    double par;            /* a lone tasklet's cycles per lookup / the balanced ones: busy tasklets the
                            * pipeline needs to run at full rate */
    uint32_t w1, w2, tasklets;
    double us_per_cycle;
    double launch_us; /* a launch of the whole set with nothing to do */
    double push[NR_SIZES], pull[NR_SIZES]; /* us at sizes[i] bytes per DPU */
};

/* One launch of the kernel on `dpu` with one shard of `cols` columns (padded
 * to even) and `bags` (<= PROBE_BATCH) bags of `pool` rows: modelled cycles per bag. */
static openpim_emb_status probe_kernel(struct dpu_set_t dpu, uint64_t mram_bytes, uint32_t type, uint32_t cols,
                                       uint32_t bags, uint32_t pool, double *cyc, double *us_per_cycle)
{
    const uint32_t cols_pad = cols + (cols & 1);
    const uint64_t table = (uint64_t)PROBE_ROWS * cols_pad * 4, hdr = table, idx = hdr + PROBE_BATCH * 8;
    const uint64_t out = idx + (uint64_t)PROBE_BATCH * PROBE_POOL * 4;
    const uint64_t argoff = out + (uint64_t)PROBE_BATCH * cols_pad * 4, total = argoff + EMB_ARGS_BYTES(1);
    uint32_t *img = calloc(total / 4, 4);
    if (!img)
        return emb_fail(OPENPIM_EMB_ERR_NOMEM, "out of host memory for the planner's probe");
    uint32_t *h = img + hdr / 4, *ix = img + idx / 4;
    for (uint32_t b = 0; b < PROBE_BATCH; b++) {
        h[2 * b] = b * PROBE_POOL;
        h[2 * b + 1] = pool;
        for (uint32_t p = 0; p < pool; p++)
            ix[b * PROBE_POOL + p] = (b * 7 + p * 13) % PROBE_ROWS;
    }
    const struct emb_header head = {bags, type, 1, 0};
    const struct emb_shard_args sa = {0, PROBE_ROWS, cols, cols_pad, (uint32_t)hdr, (uint32_t)idx, (uint32_t)out,
                                      PROBE_BATCH * PROBE_POOL};
    memcpy((uint8_t *)img + argoff, &head, sizeof head);
    memcpy((uint8_t *)img + argoff + sizeof head, &sa, sizeof sa);
    struct dpu_symbol_t mram = {EMB_MRAM_BASE, (uint32_t)mram_bytes};
    /* the output region's bytes are pushed too (zeros): one push */
    dpu_error_t rc = dpu_copy_to_symbol(dpu, mram, 0, img, (size_t)total);
    free(img);
    const uint32_t at = (uint32_t)argoff;
    if (rc == DPU_OK)
        rc = dpu_copy_to(dpu, "emb_args_at", 0, &at, sizeof at);
    if (rc == DPU_OK)
        rc = dpu_launch(dpu, DPU_SYNCHRONOUS);
    struct openpim_dpu_stats st;
    if (rc == DPU_OK)
        rc = openpim_get_dpu_stats(dpu, &st);
    if (rc != DPU_OK)
        return emb_dpu_fail(rc, "the planner's probe launch");
    *cyc = (double)st.cycles / bags;
    *us_per_cycle = st.cycles ? st.time_us / (double)st.cycles : 0;
    return OPENPIM_EMB_OK;
}

static openpim_emb_status probe_xfer(struct dpu_set_t set, uint64_t mram_bytes, dpu_xfer_t dir, uint64_t bytes,
                                     uint8_t *buf, double *us)
{
    struct dpu_set_t d;
    DPU_FOREACH(set, d)
    {
        dpu_error_t rc = dpu_prepare_xfer(d, buf);
        if (rc != DPU_OK)
            return emb_dpu_fail(rc, "dpu_prepare_xfer (planner probe)");
    }
    struct dpu_symbol_t mram = {EMB_MRAM_BASE, (uint32_t)mram_bytes};
    const double t0 = openpim_modelled_time_us();
    dpu_error_t rc = dpu_push_xfer_symbol(set, dir, mram, 0, (size_t)bytes, DPU_XFER_DEFAULT);
    if (rc != DPU_OK)
        return emb_dpu_fail(rc, "the planner's probe transfer");
    *us = openpim_modelled_time_us() - t0;
    return OPENPIM_EMB_OK;
}

static double lerp(double x, double x1, double y1, double x2, double y2)
{
    return y1 + (x - x1) * (y2 - y1) / (x2 - x1);
}

/* piecewise linear through the probes, extended linearly past the last */
static double xfer_us(const double *us, double bytes)
{
    int i = 0;
    while (i < NR_SIZES - 2 && bytes > (double)sizes[i + 1])
        i++;
    double t = lerp(bytes, (double)sizes[i], us[i], (double)sizes[i + 1], us[i + 1]);
    return t > us[0] ? t : us[0];
}

/* splitmix64: the draws of the kernel term (fixed seed per plan) */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform01(uint64_t *s) /* in (0, 1) */
{
    return ((double)(next_u64(s) >> 11) + 0.5) * 0x1p-53;
}

/* A binomial(n, p) draw: inversion up to a mean of 30, the normal approximation above. */
static double binomial(uint64_t *s, double n, double p)
{
    if (p >= 1)
        return n;
    if (p <= 0 || n <= 0)
        return 0;
    const double mean = n * p;
    double pk = mean <= 30 ? pow(1 - p, n) : 0;
    if (pk > 0) {
        const double u = uniform01(s), q = p / (1 - p);
        double k = 0, cdf = pk;
        while (u > cdf && k < n) {
            pk *= q * (n - k) / (k + 1);
            k++;
            cdf += pk;
        }
        return k;
    }
    const double z = sqrt(-2 * log(uniform01(s))) * cos(6.283185307179586 * uniform01(s));
    const double k = floor(mean + z * sqrt(mean * (1 - p)) + 0.5);
    return k < 0 ? 0 : k > n ? n : k;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Cycles until the last of n tasklets is done, their loads in cycles of the balanced kernel (the DPU at full
 * rate): while k >= par tasklets are busy the DPU runs at full rate, shared by the k; below, each runs at
 * 1 / par of it.  Sorts load[]. */
static double makespan(double *load, uint32_t n, double par)
{
    qsort(load, n, sizeof *load, cmp_double);
    double t = 0, done = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double busy = n - i;
        t += (load[i] - done) * (busy > par ? busy : par);
        done = load[i];
    }
    return t;
}

/* Items of tasklet j among items [0, x) dealt round-robin to T tasklets. */
static double items_below(uint64_t x, uint32_t j, uint32_t T)
{
    return (double)((x + T - 1 - j) / T);
}

/* The slowest DPU's modelled cycles for B bags of uniformly random indices, expected over SIM_TRIALS draws of
 * where each lookup falls: DPU (r, c, g) holds slice r of group g's tables as shards k = 0, 1, ...; item
 * k * B + b goes to tasklet (k * B + b) mod T; a tasklet's lookups in shard k, among its n bags of P lookups,
 * are binomial(n P, rows of slice r / rows). */
static double kernel_cycles(const struct probes *pr, uint32_t B, const struct emb_layout *l,
                            const struct openpim_emb_table *tables)
{
    const uint32_t T = pr->tasklets;
    double load[MAX_TASKLETS];
    const double draws = (double)l->R * l->nr_tables * T;
    uint32_t trials = l->R == 1 ? 1 : SIM_TRIALS; /* one row slice: no draw, the loads are exact */
    if (trials > 1 && draws * trials > SIM_DRAWS)
        trials = draws >= SIM_DRAWS / 2 ? 1 : (uint32_t)(SIM_DRAWS / draws);
    uint64_t seed = 0x6A09E667F3BCC909ull;
    double sum = 0;
    for (uint32_t trial = 0; trial < trials; trial++) {
        double slowest = 0;
        for (uint32_t g = 0; g < l->G; g++)
            for (uint32_t r = 0; r < l->R; r++) {
                for (uint32_t j = 0; j < T; j++)
                    load[j] = 0;
                for (uint32_t k = 0; k < l->group_count[g]; k++) {
                    const uint32_t t = l->group_tables[(size_t)g * l->nr_tables + k];
                    double bag, cyc;
                    if (l->cols[t] == 1) { /* the kernel sums one column of the two it moves: probed on its own */
                        bag = pr->bag_1, cyc = pr->cyc_1;
                    } else {
                        bag = lerp(l->cols_pad[t], pr->w1, pr->bag_w1, pr->w2, pr->bag_w2);
                        cyc = lerp(l->cols_pad[t], pr->w1, pr->cyc_w1, pr->w2, pr->cyc_w2);
                    }
                    const double p = (double)emb_slice_rows(l, tables, t, r) / tables[t].rows;
                    for (uint32_t j = 0; j < T; j++) {
                        const double n = items_below((uint64_t)(k + 1) * B, j, T) - items_below((uint64_t)k * B, j, T);
                        if (n > 0)
                            load[j] += n * bag + cyc * binomial(&seed, n * tables[t].pooling, p);
                    }
                }
                const double m = makespan(load, T, pr->par);
                if (m > slowest)
                    slowest = m;
            }
        sum += slowest;
    }
    return sum / trials;
}

static void estimate(const struct probes *pr, const struct openpim_emb_config *cfg, const struct emb_layout *l,
                     const struct openpim_emb_table *tables, struct openpim_emb_estimate *e)
{
    const double B = cfg->max_batch;
    const double kernel_cyc = kernel_cycles(pr, cfg->max_batch, l, tables);
    double in_bytes = 0, split_bytes = 0;
    for (uint32_t g = 0; g < l->G; g++) {
        double in = 0;
        for (uint32_t k = 0; k < l->group_count[g]; k++)
            in += B * 8 + B * tables[l->group_tables[(size_t)g * l->nr_tables + k]].pooling / l->R * 4;
        if (in > in_bytes)
            in_bytes = in;
        split_bytes += in * l->R * l->C;
    }
    for (uint32_t t = 0; t < l->nr_tables; t++)
        split_bytes += B * tables[t].pooling * 8;
    const double args = EMB_ARGS_BYTES(l->max_shards);
    const double out = B * l->out_width * 4;
    uint32_t total_dim = 0;
    for (uint32_t t = 0; t < l->nr_tables; t++)
        total_dim += tables[t].dim;
    e->kernel_us = pr->launch_us + kernel_cyc * pr->us_per_cycle;
    e->cpu_dpu_us = xfer_us(pr->push, args + in_bytes); /* one push: arguments, then the bags */
    e->dpu_cpu_us = xfer_us(pr->pull, out);
    e->host_us = emb_host_us((uint64_t)split_bytes) + emb_host_us((uint64_t)(2 * B * total_dim * 4));
    if (l->R > 1) { /* comm's Reduce: one host pass reads every partial, writes one sum per instance */
        const int baseline = cfg->comm_impl == OPENPIM_COMM_BASELINE;
        const double rd = out * l->R * l->C * l->G, wr = out * l->C * l->G;
        e->host_us += openpim_comm_host_pass_us(baseline, rd, wr, baseline ? rd : 0);
    }
    e->total_us = e->kernel_us + e->cpu_dpu_us + e->dpu_cpu_us + e->host_us;
}

static int cmp_est(const void *a, const void *b)
{
    const struct openpim_emb_estimate *x = a, *y = b;
    if (x->total_us != y->total_us)
        return x->total_us < y->total_us ? -1 : 1;
    if (x->plan.sharding != y->plan.sharding)
        return (int)x->plan.sharding - (int)y->plan.sharding;
    if (x->plan.row_shards != y->plan.row_shards)
        return x->plan.row_shards < y->plan.row_shards ? -1 : 1;
    return (x->plan.col_shards > y->plan.col_shards) - (x->plan.col_shards < y->plan.col_shards);
}

openpim_emb_status openpim_emb_plan_auto(struct dpu_set_t set, const struct openpim_emb_config *cfg,
                                         uint32_t nr_tables, const struct openpim_emb_table *tables,
                                         struct openpim_emb_plan *best, struct openpim_emb_estimate *out,
                                         uint32_t max_out, uint32_t *nr_out)
{
    emb_clear_error();
    if (!cfg || !nr_out || (max_out && !out))
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "config and nr_out must not be NULL (out: when max_out > 0)");
    *nr_out = 0;
    if (cfg->type != OPENPIM_EMB_INT32 && cfg->type != OPENPIM_EMB_FLOAT)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "unknown element type %d", (int)cfg->type);
    if (cfg->max_batch == 0)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "max_batch is 0");
    struct dpu_incbin_t *image = emb_kernel_image(cfg->tasklets ? cfg->tasklets : 16);
    if (!image)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "no kernel image for %u tasklets", cfg->tasklets);
    openpim_emb_status st = emb_check_tables(nr_tables, tables, 0);
    if (st)
        return st;
    uint32_t N = 0, wram = 0;
    uint64_t mram = 0;
    dpu_error_t rc = dpu_get_nr_dpus(set, &N);
    if (rc == DPU_OK)
        rc = openpim_get_memory_sizes(set, &mram, &wram);
    if (rc != DPU_OK)
        return emb_dpu_fail(rc, "reading the set's size");
    /* candidate shapes */
    size_t cap = 16, n = 0;
    struct openpim_emb_estimate *cand = calloc(cap, sizeof *cand);
    if (!cand)
        return emb_fail(OPENPIM_EMB_ERR_NOMEM, "out of host memory");
    uint64_t smallest = UINT64_MAX;
    for (int s = 0; s < OPENPIM_EMB_CUSTOM; s++) {
        const int hybrid = s == OPENPIM_EMB_TABLE_ROW_WISE || s == OPENPIM_EMB_GRID_SHARD ||
                           s == OPENPIM_EMB_TABLE_COLUMN_WISE;
        for (uint32_t split = hybrid ? 2 : 0; hybrid ? split < N : split == 0; split++) {
            if (hybrid && N % split)
                continue;
            struct openpim_emb_plan p;
            if (openpim_emb_plan_make((openpim_emb_sharding)s, N, split, nr_tables, tables, &p))
                continue;
            int dup = 0;
            for (size_t i = 0; i < n; i++)
                dup |= cand[i].plan.row_shards == p.row_shards && cand[i].plan.col_shards == p.col_shards &&
                       cand[i].plan.groups == p.groups;
            uint64_t need = 0;
            openpim_emb_status f = openpim_emb_plan_fits(&p, nr_tables, tables, cfg->max_batch, mram, &need);
            if (need && need < smallest)
                smallest = need;
            if (dup || f)
                continue;
            if (n == cap) {
                struct openpim_emb_estimate *q = realloc(cand, 2 * cap * sizeof *q);
                if (!q) {
                    free(cand);
                    return emb_fail(OPENPIM_EMB_ERR_NOMEM, "out of host memory");
                }
                cand = q, cap *= 2;
            }
            cand[n++] = (struct openpim_emb_estimate){.plan = p, .mram_need = need};
        }
    }
    if (n == 0) {
        free(cand);
        return emb_fail(OPENPIM_EMB_ERR_CAPACITY,
                        "no plan fits: the smallest share of any plan on %u DPUs is %llu bytes, a DPU has %llu "
                        "bytes of MRAM (more DPUs, or a smaller max_batch)",
                        N, (unsigned long long)smallest, (unsigned long long)mram);
    }
    /* probes: the kernel on the set's first DPU at one column and two widths, transfers at five sizes
     * (T <= MAX_TASKLETS: it has a kernel image) */
    const uint32_t T = cfg->tasklets ? cfg->tasklets : 16, bags = PROBE_BAGS_PER_TASKLET * T;
    struct probes pr = {.w1 = 2, .w2 = 64, .tasklets = T};
    uint8_t *buf = calloc(1, sizes[NR_SIZES - 1]);
    struct dpu_set_t first = {0};
    uint32_t i;
    struct dpu_set_t d;
    DPU_FOREACH(set, d, i)
    {
        if (i == 0)
            first = d;
    }
    rc = buf ? dpu_load_from_incbin(set, image, NULL) : DPU_OK;
    const uint32_t type = cfg->type == OPENPIM_EMB_FLOAT ? EMB_TYPE_FLOAT : EMB_TYPE_INT32;
    if (!buf)
        st = emb_fail(OPENPIM_EMB_ERR_NOMEM, "out of host memory");
    else if (rc != DPU_OK)
        st = emb_dpu_fail(rc, "loading the embedding kernel (planner)");
    /* per bag at P = 1 and P = PROBE_POOL: lookup = the difference / (PROBE_POOL - 1), bag = the rest */
    double one1 = 0, one2 = 0, many1 = 0, many2 = 0, one0 = 0, many0 = 0;
    if (!st)
        st = probe_kernel(first, mram, type, 1, bags, 1, &one0, &pr.us_per_cycle);
    if (!st)
        st = probe_kernel(first, mram, type, 1, bags, PROBE_POOL, &many0, &pr.us_per_cycle);
    if (!st)
        st = probe_kernel(first, mram, type, pr.w1, bags, 1, &one1, &pr.us_per_cycle);
    if (!st)
        st = probe_kernel(first, mram, type, pr.w1, bags, PROBE_POOL, &many1, &pr.us_per_cycle);
    if (!st)
        st = probe_kernel(first, mram, type, pr.w2, bags, 1, &one2, &pr.us_per_cycle);
    if (!st)
        st = probe_kernel(first, mram, type, pr.w2, bags, PROBE_POOL, &many2, &pr.us_per_cycle);
    /* one bag alone, at P = 1 and P = PROBE_POOL: a lone tasklet's cycles per lookup */
    double lone_one = 0, lone_many = 0, unused;
    if (!st)
        st = probe_kernel(first, mram, type, pr.w1, 1, 1, &lone_one, &unused);
    if (!st)
        st = probe_kernel(first, mram, type, pr.w1, 1, PROBE_POOL, &lone_many, &unused);
    if (!st) { /* the launch's own cost: every DPU of the set, batch 0 */
        const struct emb_header idle = {0, type, 0, 0};
        const uint32_t at = 0;
        struct dpu_symbol_t msym = {EMB_MRAM_BASE, (uint32_t)mram};
        rc = dpu_broadcast_to(set, "emb_args_at", 0, &at, sizeof at, DPU_XFER_DEFAULT);
        if (rc == DPU_OK)
            rc = dpu_broadcast_to_symbol(set, msym, 0, &idle, sizeof idle, DPU_XFER_DEFAULT);
        const double t1 = openpim_modelled_time_us();
        if (rc == DPU_OK)
            rc = dpu_launch(set, DPU_SYNCHRONOUS);
        pr.launch_us = openpim_modelled_time_us() - t1;
        if (rc != DPU_OK)
            st = emb_dpu_fail(rc, "the planner's probe launch");
    }
    pr.cyc_1 = (many0 - one0) / (PROBE_POOL - 1), pr.bag_1 = one0 - pr.cyc_1;
    pr.cyc_w1 = (many1 - one1) / (PROBE_POOL - 1), pr.bag_w1 = one1 - pr.cyc_w1;
    pr.cyc_w2 = (many2 - one2) / (PROBE_POOL - 1), pr.bag_w2 = one2 - pr.cyc_w2;
    pr.par = pr.cyc_w1 > 0 ? (lone_many - lone_one) / (PROBE_POOL - 1) / pr.cyc_w1 : 1;
    for (int k = 0; k < NR_SIZES && !st; k++) {
        st = probe_xfer(set, mram, DPU_XFER_TO_DPU, sizes[k], buf, &pr.push[k]);
        if (!st)
            st = probe_xfer(set, mram, DPU_XFER_FROM_DPU, sizes[k], buf, &pr.pull[k]);
    }
    free(buf);
    for (size_t k = 0; !st && k < n; k++) {
        struct emb_layout l;
        if ((st = emb_layout_make(&cand[k].plan, nr_tables, tables, &l)))
            break;
        estimate(&pr, cfg, &l, tables, &cand[k]);
        emb_layout_free(&l);
    }
    if (st) {
        free(cand);
        return st;
    }
    qsort(cand, n, sizeof *cand, cmp_est);
    for (size_t k = 0; k < n && k < max_out; k++)
        out[k] = cand[k];
    if (best)
        *best = cand[0].plan;
    *nr_out = (uint32_t)n;
    free(cand);
    return OPENPIM_EMB_OK;
}
