/* SPDX-License-Identifier: MIT */
/* Embedding-table benchmark ([Jonatan24] §4, Jonatan et al.): the studies of
 * Figures 5-11 on OpenPIM's embedding library (workloads/embedding).
 *
 *   bench_emb <study> [scale] [dpus]
 *   study: fig5 fig6 fig7 fig8 fig10 fig11 fig11c planner all;  scale: table-height
 *   divisor for fig11 (default 128: RM1-RM3 of Table 3 at 1/128 of their
 *   heights); dpus: the DPUs of fig11 (default 2560); fig11c: RM2 at batch
 *   16, 32 and 64 (Fig. 11c; row-wise partials grow as batch x DPUs);
 *   planner: the planner's estimate beside the measured time of every plan it
 *   ranks ("# planner" lines, not CSV rows; not part of all)
 *
 * One CSV row per measurement on stdout (header first).  PIM times are the
 * timing model's (modelled, deterministic); cpu_us and the host MLPs are
 * measured on this host in the same run as the CPU time of the calling thread
 * (CLOCK_THREAD_CPUTIME_ID: other processes on a shared host do not inflate
 * it, wall clock varied ~10x between runs here), median and minimum of
 * CPU_RUNS runs after a warm-up; one thread, plain C.  Every DPU output is compared with the CPU's: int32
 * exactly; float exactly when R = 1 (the same summation order) and within
 * (P + R) * FLT_EPSILON * sum |x| otherwise.  A mismatch prints WRONG on
 * stderr and the program exits 1. */
#define _POSIX_C_SOURCE 200809L
#include <dpu.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench.h"
#include "openpim_comm.h"
#include "openpim_embedding.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int wrong;

struct model {
    uint32_t nt;
    struct openpim_emb_table *t;
    uint32_t **idx;
    uint32_t total_dim;
    openpim_emb_type type;
};

static void model_make(struct model *m, openpim_emb_type type, uint32_t nt, uint32_t rows, uint32_t dim, uint32_t pool,
                       uint32_t max_batch)
{
    m->nt = nt, m->type = type, m->total_dim = nt * dim;
    m->t = calloc(nt, sizeof *m->t);
    m->idx = calloc(nt, sizeof *m->idx);
    for (uint32_t i = 0; i < nt; i++) {
        size_t n = (size_t)rows * dim;
        uint32_t *d = malloc(n * 4);
        if (!d) {
            fprintf(stderr, "out of memory for a table of %zu elements\n", n);
            exit(2);
        }
        for (size_t k = 0; k < n; k++) {
            uint32_t v = (uint32_t)rnd();
            if (type == OPENPIM_EMB_FLOAT) {
                float f = (float)((int32_t)(v >> 8) - (1 << 23)) / (float)(1 << 23);
                memcpy(&d[k], &f, 4);
            } else {
                d[k] = v;
            }
        }
        m->t[i] = (struct openpim_emb_table){rows, dim, pool, d};
        m->idx[i] = malloc((size_t)max_batch * pool * 4);
    }
}

static void model_free(struct model *m)
{
    for (uint32_t i = 0; i < m->nt; i++) {
        free((void *)m->t[i].data);
        free(m->idx[i]);
    }
    free(m->t);
    free(m->idx);
}

/* bias of P: that many indices of each bag from the first 1/hot_parts of the rows (Fig. 7), the rest uniform */
static void model_indices(struct model *m, uint32_t batch, uint32_t bias, uint32_t hot_parts)
{
    for (uint32_t i = 0; i < m->nt; i++) {
        const uint32_t P = m->t[i].pooling, rows = m->t[i].rows;
        const uint32_t hot = hot_parts ? (rows + hot_parts - 1) / hot_parts : rows;
        for (uint32_t b = 0; b < batch; b++)
            for (uint32_t p = 0; p < P; p++)
                m->idx[i][(size_t)b * P + p] = (uint32_t)(rnd() % (p < bias ? hot : rows));
    }
}

struct result {
    struct openpim_emb_times tm;
    double dpu_cpu_us, inter_dpu_us, host_us;
    double cpu_us, cpu_min_us, cpu_max_us; /* median, minimum, maximum of the CPU runs */
    struct openpim_dpu_stats st; /* cell (0, 0, 0) */
};

/* Runs after a warm-up, each timed by this thread's CPU time; the minimum is what the rest of
 * the host (cache sharing, frequency) disturbs least, the median shows the spread. */
#define CPU_RUNS 51

static double cpu_time(const struct model *m, uint32_t batch, void *out, double *min_us, double *max_us)
{
    double s[CPU_RUNS + 1];
    for (int r = 0; r < CPU_RUNS + 1; r++) {
        double t0 = bench_thread_cpu();
        if (openpim_emb_cpu_lookup(m->type, m->nt, m->t, batch, (const uint32_t *const *)m->idx, out)) {
            fprintf(stderr, "cpu lookup: %s\n", openpim_emb_last_error());
            exit(2);
        }
        s[r] = (bench_thread_cpu() - t0) * 1e6;
    }
    bench_sort(s + 1, CPU_RUNS); /* s[0]: warm-up */
    *min_us = s[1];
    *max_us = s[CPU_RUNS];
    return s[1 + CPU_RUNS / 2];
}

static void verify(const struct model *m, uint32_t batch, const void *got, const void *want, uint32_t R,
                   const char *what)
{
    long bad = 0;
    for (uint32_t b = 0; b < batch; b++)
        for (uint32_t t = 0; t < m->nt; t++) {
            const uint32_t dim = m->t[t].dim, P = m->t[t].pooling;
            for (uint32_t j = 0; j < dim; j++) {
                size_t at = (size_t)b * m->total_dim + (size_t)t * dim + j;
                if (m->type == OPENPIM_EMB_INT32) {
                    bad += ((const uint32_t *)got)[at] != ((const uint32_t *)want)[at];
                } else if (R == 1) {
                    bad += ((const float *)got)[at] != ((const float *)want)[at];
                } else {
                    const float *d = m->t[t].data;
                    double a = 0;
                    for (uint32_t p = 0; p < P; p++)
                        a += fabs(d[(size_t)m->idx[t][(size_t)b * P + p] * dim + j]);
                    bad += fabs((double)((const float *)got)[at] - ((const float *)want)[at]) >
                           (P + R) * (double)FLT_EPSILON * a;
                }
            }
        }
    if (bad) {
        fprintf(stderr, "WRONG: %s: %ld elements differ from the CPU's\n", what, bad);
        wrong = 1;
    }
}

/* One lookup of `batch` on a fresh set of nr_dpus DPUs with `plan`; returns 0 when the plan cannot run. */
static int measure(const struct model *m, uint32_t nr_dpus, const struct openpim_emb_plan *plan, uint32_t batch,
                   uint32_t tasklets, struct result *res, const void *cpu_out, const char *what)
{
    struct dpu_set_t set;
    if (dpu_alloc(nr_dpus, NULL, &set) != DPU_OK) {
        fprintf(stderr, "%s: cannot allocate %u DPUs\n", what, nr_dpus);
        exit(2);
    }
    struct openpim_emb_config cfg = {m->type, batch, tasklets, OPENPIM_COMM_BASELINE};
    openpim_emb_t *emb = NULL;
    openpim_emb_status st = openpim_emb_create(set, &cfg, m->nt, m->t, plan, &emb);
    if (st) {
        fprintf(stderr, "%s: %s\n", what, openpim_emb_last_error());
        dpu_free(set);
        return 0;
    }
    void *out = malloc((size_t)batch * m->total_dim * 4);
    memset(res, 0, sizeof *res);
    if (openpim_emb_lookup(emb, batch, (const uint32_t *const *)m->idx, out, &res->tm) ||
        openpim_emb_measure_transfer_back(emb, &res->dpu_cpu_us)) {
        fprintf(stderr, "%s: %s\n", what, openpim_emb_last_error());
        exit(2);
    }
    verify(m, batch, out, cpu_out, plan->row_shards, what);
    if (plan->row_shards > 1) {
        res->inter_dpu_us = res->tm.retrieve_us - res->dpu_cpu_us;
    } else {
        res->dpu_cpu_us = res->tm.retrieve_us;
        res->inter_dpu_us = 0;
    }
    res->host_us = res->tm.host_split_us + res->tm.host_concat_us;
    struct dpu_set_t d0;
    if (openpim_emb_cell_dpu(emb, 0, 0, 0, &d0) == OPENPIM_EMB_OK)
        openpim_get_dpu_stats(d0, &res->st);
    free(out);
    openpim_emb_destroy(emb);
    dpu_free(set);
    return 1;
}

static void header(void)
{
    printf("fig,series,type,dpus,R,C,G,tasklets,tables,dim,rows,pooling,batch,x,kernel_us,cpu_dpu_us,dpu_cpu_us,"
           "inter_dpu_us,host_us,total_us,cpu_us,cpu_min_us,cycles,instructions,dma_bytes,ipc,mram_gbps,"
           "mlp_us,e2e_pim_us,e2e_cpu_us,estimate_us,cpu_max_us\n");
}

static double estimate_us; /* the planner's estimate of the next row's plan (0: none) */

static void row(const char *fig, const char *series, const struct model *m, uint32_t dpus,
                const struct openpim_emb_plan *p, uint32_t tasklets, uint32_t batch, double x, const struct result *r,
                double mlp_us)
{
    const double ipc = r->st.cycles ? (double)r->st.instructions / r->st.cycles : 0;
    const uint64_t dma = r->st.dma_read_bytes + r->st.dma_write_bytes;
    const double gbps = r->st.time_us > 0 ? dma / r->st.time_us / 1e3 : 0;
    printf("%s,%s,%s,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%g,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%llu,%llu,%llu,%.4f,"
           "%.4f,%.3f,%.3f,%.3f,%.3f,%.3f\n",
           fig, series, m->type == OPENPIM_EMB_FLOAT ? "fp32" : "int32", dpus, p->row_shards, p->col_shards,
           p->groups, tasklets, m->nt, m->t[0].dim, m->t[0].rows, m->t[0].pooling, batch, x, r->tm.kernel_us,
           r->tm.cpu_dpu_us, r->dpu_cpu_us, r->inter_dpu_us, r->host_us, r->tm.total_us, r->cpu_us, r->cpu_min_us,
           (unsigned long long)r->st.cycles, (unsigned long long)r->st.instructions, (unsigned long long)dma, ipc,
           gbps, mlp_us, mlp_us > 0 ? r->tm.total_us + mlp_us : 0, mlp_us > 0 ? r->cpu_us + mlp_us : 0, estimate_us,
           r->cpu_max_us);
    estimate_us = 0;
    fflush(stdout);
}

static struct openpim_emb_plan plan_of(openpim_emb_sharding s, uint32_t R, uint32_t C, uint32_t G)
{
    return (struct openpim_emb_plan){s, R, C, G};
}

/* ---- Fig. 5: one DPU, tasklets / dim / height / pooling ------------------------------ */
static void one_dpu(const char *series, openpim_emb_type type, uint32_t T, uint32_t dim, uint32_t rows, uint32_t P,
                    double x)
{
    const uint32_t batch = 512;
    struct model m;
    model_make(&m, type, 1, rows, dim, P, batch);
    model_indices(&m, batch, 0, 0);
    void *cpu = malloc((size_t)batch * m.total_dim * 4);
    struct result r;
    double mn, mx, med = cpu_time(&m, batch, cpu, &mn, &mx);
    struct openpim_emb_plan p = plan_of(OPENPIM_EMB_TABLE_WISE, 1, 1, 1);
    if (measure(&m, 1, &p, batch, T, &r, cpu, series)) {
        r.cpu_us = med, r.cpu_min_us = mn, r.cpu_max_us = mx;
        row("fig5", series, &m, 1, &p, T, batch, x, &r, 0);
    }
    free(cpu);
    model_free(&m);
}

static void fig5(void)
{
    static const uint32_t ts[] = {1, 2, 4, 6, 8, 11, 12, 16, 20, 24};
    static const uint32_t dims[] = {8, 16, 32, 64, 128, 256};
    static const uint32_t hs[] = {1024, 8192, 32768, 131072};
    static const uint32_t ps[] = {1, 2, 4, 8, 16, 32, 64};
    for (int ty = 0; ty < 2; ty++) {
        openpim_emb_type type = ty ? OPENPIM_EMB_INT32 : OPENPIM_EMB_FLOAT;
        for (size_t i = 0; i < sizeof ts / sizeof *ts; i++)
            one_dpu("tasklets", type, ts[i], 64, 1024, 16, ts[i]);
        for (size_t i = 0; i < sizeof dims / sizeof *dims; i++)
            one_dpu("dim", type, 24, dims[i], 1024, 16, dims[i]);
        for (size_t i = 0; i < sizeof hs / sizeof *hs; i++)
            one_dpu("height", type, 24, 64, hs[i], 16, hs[i]);
        for (size_t i = 0; i < sizeof ps / sizeof *ps; i++)
            one_dpu("pooling", type, 24, 64, 1024, ps[i], ps[i]);
    }
}

/* ---- multi-DPU sweeps on one table --------------------------------------------------- */
static void sweep(const char *fig, openpim_emb_type type, uint32_t dim, uint32_t rows, uint32_t P, uint32_t batch,
                  const uint32_t *dpus, size_t nd, uint32_t max_col, int with_grid, uint32_t bias)
{
    struct model m;
    model_make(&m, type, 1, rows, dim, P, batch);
    void *cpu = malloc((size_t)batch * m.total_dim * 4);
    for (size_t i = 0; i < nd; i++) {
        const uint32_t N = dpus[i];
        if (bias || i == 0)
            model_indices(&m, batch, bias, bias ? N : 0);
        struct result r;
        double mn, mx, med = cpu_time(&m, batch, cpu, &mn, &mx);
        char what[96];
        struct openpim_emb_plan p = plan_of(OPENPIM_EMB_ROW_WISE, N, 1, 1);
        snprintf(what, sizeof what, "%s row %u", fig, N);
        if (measure(&m, N, &p, batch, 24, &r, cpu, what)) {
            r.cpu_us = med, r.cpu_min_us = mn, r.cpu_max_us = mx;
            row(fig, "row", &m, N, &p, 24, batch, bias, &r, 0);
        }
        if (N <= max_col && dim % N == 0) {
            p = plan_of(OPENPIM_EMB_COLUMN_WISE, 1, N, 1);
            snprintf(what, sizeof what, "%s column %u", fig, N);
            if (measure(&m, N, &p, batch, 24, &r, cpu, what)) {
                r.cpu_us = med, r.cpu_min_us = mn, r.cpu_max_us = mx;
                row(fig, "column", &m, N, &p, 24, batch, bias, &r, 0);
            }
        } else if (with_grid && N > dim && N % dim == 0) { /* C-R: one column per slice, rows split N / dim ways */
            p = plan_of(OPENPIM_EMB_GRID_SHARD, N / dim, dim, 1);
            snprintf(what, sizeof what, "%s column-row %u", fig, N);
            if (measure(&m, N, &p, batch, 24, &r, cpu, what)) {
                r.cpu_us = med, r.cpu_min_us = mn, r.cpu_max_us = mx;
                row(fig, "column-row", &m, N, &p, 24, batch, bias, &r, 0);
            }
        }
    }
    free(cpu);
    model_free(&m);
}

static void fig6(void)
{
    /* dim 64, H = 128k, P = 32, batch 512; Fig. 9: the same with int32 */
    static const uint32_t n[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
    sweep("fig6", OPENPIM_EMB_FLOAT, 64, 131072, 32, 512, n, sizeof n / sizeof *n, 64, 0, 0);
    sweep("fig9", OPENPIM_EMB_INT32, 64, 131072, 32, 512, n, 8, 64, 0, 0);
}

static void fig7(void)
{
    /* 64 DPUs, P = 64: x of the 64 indices from the first DPU's rows */
    static const uint32_t n[] = {64};
    for (uint32_t x = 0; x <= 64; x += 16)
        sweep("fig7", OPENPIM_EMB_FLOAT, 64, 131072, 64, 512, n, 1, 64, 0, x);
}

static void fig8(void)
{
    static const uint32_t n[] = {64};
    static const uint32_t ps[] = {1, 4, 16, 64, 128};
    for (size_t i = 0; i < sizeof ps / sizeof *ps; i++)
        sweep("fig8", OPENPIM_EMB_FLOAT, 64, 131072, ps[i], 512, n, 1, 64, 0, 0);
}

static void fig10(void)
{
    /* a 128 MB table (dim 128 x 256k rows of fp32) that fits 4 DPUs; 10a: 4 -> 128 DPUs; 10b: beyond,
     * row vs the column-row hybrid */
    static const uint32_t n[] = {4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048};
    sweep("fig10", OPENPIM_EMB_FLOAT, 128, 262144, 32, 512, n, sizeof n / sizeof *n, 128, 1, 0);
}

/* ---- Fig. 11: RM1-RM3 (Table 3), batch 16, embedding-only and end-to-end DLRM ------------ */

/* A DLRM's MLPs on the host (plain C, one thread): bottom 13-512-256-32 on the dense features,
 * top (32 + tables x 32)-512-256-1 on the concatenation. */
static void dense(const float *in, uint32_t batch, uint32_t n_in, const float *w, uint32_t n_out, float *out, int relu)
{
    for (uint32_t b = 0; b < batch; b++)
        for (uint32_t o = 0; o < n_out; o++) {
            float s = 0;
            const float *wr = w + (size_t)o * n_in, *x = in + (size_t)b * n_in;
            for (uint32_t i = 0; i < n_in; i++)
                s += wr[i] * x[i];
            out[(size_t)b * n_out + o] = relu && s < 0 ? 0 : s;
        }
}

#define MLP_RUNS 21

static double mlp_time(uint32_t batch, uint32_t nt, uint32_t dim, const float *emb_out)
{
    const uint32_t bot[4] = {13, 512, 256, dim}, top_in = dim + nt * dim, top[4] = {top_in, 512, 256, 1};
    float *w[6];
    size_t wn[6] = {512 * 13, 256 * 512, (size_t)dim * 256, (size_t)512 * top_in, 256 * 512, 256};
    for (int i = 0; i < 6; i++) {
        w[i] = malloc(wn[i] * 4);
        for (size_t k = 0; k < wn[i]; k++)
            w[i][k] = (float)((int)(rnd() % 2001) - 1000) * 1e-4f;
    }
    float *x = malloc((size_t)batch * 13 * 4), *a = malloc((size_t)batch * 512 * 4), *c = malloc((size_t)batch * 512 * 4);
    float *z = malloc((size_t)batch * top_in * 4);
    for (size_t k = 0; k < (size_t)batch * 13; k++)
        x[k] = (float)(rnd() % 1000) * 1e-3f;
    double s[MLP_RUNS + 1];
    volatile float sink = 0;
    for (int r = 0; r < MLP_RUNS + 1; r++) { /* s[0]: warm-up; thread CPU time as cpu_time() */
        double t0 = bench_thread_cpu();
        dense(x, batch, bot[0], w[0], bot[1], a, 1);
        dense(a, batch, bot[1], w[1], bot[2], c, 1);
        dense(c, batch, bot[2], w[2], bot[3], a, 1);
        for (uint32_t b = 0; b < batch; b++) { /* interaction: concatenation */
            memcpy(z + (size_t)b * top_in, a + (size_t)b * dim, dim * 4);
            memcpy(z + (size_t)b * top_in + dim, emb_out + (size_t)b * nt * dim, (size_t)nt * dim * 4);
        }
        dense(z, batch, top[0], w[3], top[1], a, 1);
        dense(a, batch, top[1], w[4], top[2], c, 1);
        dense(c, batch, top[2], w[5], top[3], a, 0);
        for (uint32_t b = 0; b < batch; b++)
            a[b] = 1.0f / (1.0f + expf(-a[b]));
        s[r] = (bench_thread_cpu() - t0) * 1e6;
        sink += a[0];
    }
    (void)sink;
    for (int i = 0; i < 6; i++)
        free(w[i]);
    free(x), free(a), free(c), free(z);
    bench_sort(s + 1, MLP_RUNS);
    return s[1 + MLP_RUNS / 2]; /* the median */
}

static void fig11(uint32_t scale, uint32_t dpus, const uint32_t *batches, size_t nb, int rm2_only)
{
    struct rm {
        const char *name;
        uint32_t tables, pool;
        uint64_t rows;
    } rms[] = {{"RM1", 10, 80, 16000000}, {"RM2", 40, 80, 16000000}, {"RM3", 5, 20, 160000000}};
    for (size_t k = rm2_only ? 1 : 0; k < (rm2_only ? 2u : 3u); k++) {
        const uint32_t rows = (uint32_t)(rms[k].rows / scale), nt = rms[k].tables, dim = 32;
        uint32_t maxb = 0;
        for (size_t i = 0; i < nb; i++)
            maxb = batches[i] > maxb ? batches[i] : maxb;
        struct model m;
        model_make(&m, OPENPIM_EMB_FLOAT, nt, rows, dim, rms[k].pool, maxb);
        for (size_t bi = 0; bi < nb; bi++) {
            const uint32_t batch = batches[bi];
            model_indices(&m, batch, 0, 0);
            float *cpu = malloc((size_t)batch * m.total_dim * 4);
            double mn, mx, med = cpu_time(&m, batch, cpu, &mn, &mx);
            const double mlp = mlp_time(batch, nt, dim, cpu);
            struct openpim_emb_plan plans[3] = {
                plan_of(OPENPIM_EMB_ROW_WISE, dpus, 1, 1),
                plan_of(OPENPIM_EMB_GRID_SHARD, dpus / dim, dim, 1),
                plan_of(OPENPIM_EMB_TABLE_ROW_WISE, dpus / nt, 1, nt),
            };
            const char *names[3] = {"R", "C-R", "T-R"};
            /* the planner's pick among every shape that fits, measured like the others */
            if (batch == 16) {
                struct dpu_set_t set;
                if (dpu_alloc(dpus, NULL, &set) != DPU_OK) {
                    fprintf(stderr, "cannot allocate %u DPUs\n", dpus);
                    exit(2);
                }
                struct openpim_emb_config cfg = {m.type, batch, 16, OPENPIM_COMM_BASELINE};
                struct openpim_emb_estimate est[1];
                uint32_t nc = 0;
                if (openpim_emb_plan_auto(set, &cfg, m.nt, m.t, NULL, est, 1, &nc)) {
                    fprintf(stderr, "%s planner: %s\n", rms[k].name, openpim_emb_last_error());
                    exit(2);
                }
                dpu_free(set);
                struct result r;
                char what[64], series[64];
                snprintf(what, sizeof what, "%s planner", rms[k].name);
                if (measure(&m, dpus, &est[0].plan, batch, 16, &r, cpu, what)) {
                    r.cpu_us = med, r.cpu_min_us = mn, r.cpu_max_us = mx;
                    snprintf(series, sizeof series, "%s auto:%s", rms[k].name,
                             openpim_emb_sharding_name(est[0].plan.sharding));
                    estimate_us = est[0].total_us;
                    row("fig11", series, &m, dpus, &est[0].plan, 16, batch, nc, &r, mlp);
                }
            }
            for (int p = 0; p < 3; p++) {
                char what[64];
                snprintf(what, sizeof what, "%s %s batch %u", rms[k].name, names[p], batch);
                if ((uint64_t)plans[p].row_shards * plans[p].col_shards * plans[p].groups != dpus)
                    continue;
                struct result r;
                if (measure(&m, dpus, &plans[p], batch, 16, &r, cpu, what)) {
                    r.cpu_us = med, r.cpu_min_us = mn, r.cpu_max_us = mx;
                    char series[32];
                    snprintf(series, sizeof series, "%s %s", rms[k].name, names[p]);
                    row("fig11", series, &m, dpus, &plans[p], 16, batch, scale, &r, mlp);
                }
            }
            free(cpu);
        }
        model_free(&m);
    }
}

/* The planner's error: every candidate it ranks, its estimate beside the modelled time of running that
 * plan (`measure`, the same lookup), for Fig. 6/9's table (float and int32) and RM1 of Fig. 11 at 16 and
 * 64 DPUs.  One line per plan, then the largest error. */
static void planner_error(uint32_t scale)
{
    static const uint32_t dpus[] = {16, 64};
    double worst = 0;
    for (int cfg_i = 0; cfg_i < 3; cfg_i++) {
        const openpim_emb_type type = cfg_i == 1 ? OPENPIM_EMB_INT32 : OPENPIM_EMB_FLOAT;
        const uint32_t nt = cfg_i == 2 ? 10 : 1, rows = cfg_i == 2 ? 16000000 / scale : 131072,
                       dim = cfg_i == 2 ? 32 : 64, pool = cfg_i == 2 ? 80 : 32, batch = cfg_i == 2 ? 16 : 512;
        const uint32_t tasklets = 16;
        struct model m;
        model_make(&m, type, nt, rows, dim, pool, batch);
        model_indices(&m, batch, 0, 0);
        void *cpu = malloc((size_t)batch * m.total_dim * 4);
        double mn, mx;
        cpu_time(&m, batch, cpu, &mn, &mx);
        for (size_t d = 0; d < sizeof dpus / sizeof *dpus; d++) {
            struct dpu_set_t set;
            if (dpu_alloc(dpus[d], NULL, &set) != DPU_OK) {
                fprintf(stderr, "cannot allocate %u DPUs\n", dpus[d]);
                exit(2);
            }
            struct openpim_emb_config cfg = {m.type, batch, tasklets, OPENPIM_COMM_BASELINE};
            struct openpim_emb_estimate est[64];
            uint32_t nc = 0;
            if (openpim_emb_plan_auto(set, &cfg, m.nt, m.t, NULL, est, 64, &nc)) {
                fprintf(stderr, "planner: %s\n", openpim_emb_last_error());
                exit(2);
            }
            dpu_free(set);
            for (uint32_t i = 0; i < nc && i < 64; i++) {
                struct result r;
                char what[96];
                snprintf(what, sizeof what, "planner %u", i);
                if (!measure(&m, dpus[d], &est[i].plan, batch, tasklets, &r, cpu, what))
                    continue;
                const double ratio = est[i].total_us / r.tm.total_us;
                worst = fabs(ratio - 1) > worst ? fabs(ratio - 1) : worst;
                printf("# planner %s %u tables x %u rows x %u, pool %u, batch %u, %u DPUs: rank %u %s R%u C%u G%u: "
                       "estimate %.1f us (kernel %.1f, cpu-dpu %.1f, dpu-cpu %.1f, host %.1f), measured %.1f us "
                       "(kernel %.1f, cpu-dpu %.1f, retrieve %.1f, host %.1f), ratio %.3f\n",
                       type == OPENPIM_EMB_FLOAT ? "float" : "int32", nt, rows, dim, pool, batch, dpus[d], i,
                       openpim_emb_sharding_name(est[i].plan.sharding), est[i].plan.row_shards,
                       est[i].plan.col_shards, est[i].plan.groups, est[i].total_us, est[i].kernel_us,
                       est[i].cpu_dpu_us, est[i].dpu_cpu_us, est[i].host_us, r.tm.total_us, r.tm.kernel_us,
                       r.tm.cpu_dpu_us, r.tm.retrieve_us, r.tm.host_split_us + r.tm.host_concat_us, ratio);
                fflush(stdout);
            }
        }
        free(cpu);
        model_free(&m);
    }
    printf("# planner: largest |estimate / measured - 1| = %.1f %%\n", 100 * worst);
}

/* A decimal number in [1, 2^32); 0 (refused by the caller) for anything else. */
static uint32_t parse_u32(const char *text)
{
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 10);
    return text[0] >= '0' && text[0] <= '9' && *end == '\0' && v <= UINT32_MAX ? (uint32_t)v : 0;
}

int main(int argc, char **argv)
{
    const char *study = argc > 1 ? argv[1] : "all";
    static const char *const studies[] = {"fig5", "fig6", "fig7", "fig8", "fig10", "fig11", "fig11c", "planner",
                                          "all"};
    int known = 0;
    for (size_t i = 0; i < sizeof studies / sizeof studies[0]; i++)
        known |= !strcmp(study, studies[i]);
    /* strict numbers: "12x" or "-1" must not run a silently different study */
    const uint32_t scale = argc > 2 ? parse_u32(argv[2]) : 128;
    const uint32_t dpus = argc > 3 ? parse_u32(argv[3]) : 2560;
    if (!known || argc > 4 || scale == 0 || dpus == 0 || dpus % 32 || dpus % 40) {
        fprintf(stderr, "usage: bench_emb fig5|fig6|fig7|fig8|fig10|fig11|fig11c|planner|all [scale >= 1] [dpus: multiple "
                        "of 32 and 40]\n");
        return 2;
    }
    header();
    const int all = strcmp(study, "all") == 0;
    if (all || !strcmp(study, "fig5"))
        fig5();
    if (all || !strcmp(study, "fig6"))
        fig6();
    if (all || !strcmp(study, "fig7"))
        fig7();
    if (all || !strcmp(study, "fig8"))
        fig8();
    if (all || !strcmp(study, "fig10"))
        fig10();
    static const uint32_t b16[] = {16}, bs[] = {16, 32, 64};
    if (all || !strcmp(study, "fig11"))
        fig11(scale, dpus, b16, 1, 0);
    if (!strcmp(study, "fig11c")) /* the batch study is RM2's */
        fig11(scale, dpus, bs, 3, 1);
    if (!strcmp(study, "planner"))
        planner_error(scale);
    return wrong;
}
