/* SPDX-License-Identifier: MIT */
/* Randomized differential test of the workload libraries (embedding, MLP,
 * DLRM) against references written here from their public headers alone
 * (plain loops, one element at a time): random shapes (one DPU, partial
 * ranks, uneven row slices, tables of one row, batches larger than the
 * features), random types and values (int32 over its whole range with
 * wrap-around, floats with +-0, +-inf, NaN and huge magnitudes), random
 * implementations, host output buffers with canaries on both sides, and a
 * bad index in some cases, which must be refused with nothing written.
 *
 *   fuzz_workloads MLP_KERNEL DLRM_KERNEL
 * Environment: OPENPIM_FUZZ_SEED (master seed; default fixed),
 * OPENPIM_FUZZ_CASES (default 150), OPENPIM_FUZZ_SECONDS (long mode: cases
 * with a random master seed until that many seconds have passed).  Every
 * failure prints the case's seed; OPENPIM_FUZZ_ONE=1 with OPENPIM_FUZZ_SEED
 * set to it reruns that case alone. */
#define _POSIX_C_SOURCE 200809L
#include <dpu.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "dlrm.h"
#include "mlp.h"
#include "openpim_embedding.h"

static const char *mlp_kernel, *dlrm_kernel;

static uint64_t rng;
static uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* uniform in [lo, hi] */
static uint32_t pick(uint32_t lo, uint32_t hi)
{
    return lo + (uint32_t)(rnd() % ((uint64_t)hi - lo + 1));
}

#define GUARD 64 /* canary bytes on each side of a host output buffer */
static void *guarded(size_t bytes)
{
    unsigned char *p = malloc(bytes + 2 * GUARD);
    memset(p, 0xA5, bytes + 2 * GUARD);
    return p + GUARD;
}
static int guards_intact(void *buf, size_t bytes)
{
    unsigned char *p = (unsigned char *)buf - GUARD;
    for (size_t i = 0; i < GUARD; i++)
        if (p[i] != 0xA5 || p[GUARD + bytes + i] != 0xA5)
            return 0;
    return 1;
}
static int untouched(void *buf, size_t bytes)
{
    return guards_intact(buf, bytes) && ((unsigned char *)buf)[0] == 0xA5 && ((unsigned char *)buf)[bytes - 1] == 0xA5;
}
static void guarded_free(void *buf)
{
    if (buf)
        free((unsigned char *)buf - GUARD);
}

static uint64_t case_seed;
static int case_failed;
static unsigned long plans_refused, bad_indices, values_checked;
/* cond is evaluated once */
#define FAIL_IF(cond, ...)                                                                         \
    do {                                                                                           \
        const int failed_ = (cond) != 0;                                                           \
        CHECK(!failed_);                                                                           \
        if (failed_) {                                                                             \
            fprintf(stderr, "case seed 0x%016llx: ", (unsigned long long)case_seed);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            case_failed = 1;                                                                       \
        }                                                                                          \
    } while (0)

/* ---- embedding ----------------------------------------------------------------------------- */

static float special_float(void)
{
    static const float v[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 3.0e38f, -3.0e38f, 1e-45f, 1.0f};
    return v[rnd() % (sizeof v / sizeof v[0])];
}

/* The header's float order: each row slice (ceil(rows / R) rows) sums its rows of the bag in bag order from
 * +0.0f, then the slices' partials are added in slice order. */
static float ref_float_bag(const float *tab, uint32_t rows, uint32_t dim, uint32_t d, const uint32_t *bag,
                           uint32_t P, uint32_t R)
{
    const uint32_t S = (rows + R - 1) / R;
    float acc = 0.0f;
    for (uint32_t r = 0; r < R; r++) {
        float part = +0.0f;
        for (uint32_t k = 0; k < P; k++)
            if (bag[k] / S == r)
                part += tab[(size_t)bag[k] * dim + d];
        acc = r == 0 ? part : acc + part;
    }
    return acc;
}

static int same_float(float a, float b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b); /* the header promises no NaN payload */
    return memcmp(&a, &b, 4) == 0;
}

static void emb_case(void)
{
    const int is_float = rnd() & 1;
    const uint32_t nr = pick(1, 5), dpus = pick(1, 24), max_batch = pick(1, 24), batch = pick(1, max_batch);
    const uint32_t dim_base = pick(1, 4); /* dims share a factor now and then, so that column plans exist */
    struct openpim_emb_table t[5];
    uint32_t *idx[5];
    uint32_t total_dim = 0;
    for (uint32_t i = 0; i < nr; i++) {
        const uint32_t rows = rnd() % 4 ? pick(1, 400) : 1, dim = rnd() % 2 ? dim_base * pick(1, 4) : pick(1, 9);
        uint32_t *d = malloc((size_t)rows * dim * 4);
        for (size_t k = 0; k < (size_t)rows * dim; k++) {
            if (is_float) {
                float f = rnd() % 16 ? (float)((int32_t)(rnd() >> 40) - (1 << 23)) / 4096.0f : special_float();
                memcpy(&d[k], &f, 4);
            } else {
                d[k] = rnd() % 8 ? (uint32_t)rnd() : (rnd() & 1 ? 0x80000000u : 0x7fffffffu);
            }
        }
        t[i] = (struct openpim_emb_table){rows, dim, pick(1, 5), d};
        idx[i] = malloc((size_t)max_batch * t[i].pooling * 4);
        for (uint32_t k = 0; k < max_batch * t[i].pooling; k++)
            idx[i][k] = rnd() % 4 ? pick(0, rows - 1) : (rnd() & 1 ? rows - 1 : 0);
        total_dim += dim;
    }
    openpim_emb_sharding sh = (openpim_emb_sharding)(rnd() % OPENPIM_EMB_CUSTOM);
    struct openpim_emb_plan plan;
    if (openpim_emb_plan_make(sh, dpus, pick(1, dpus), nr, t, &plan) != OPENPIM_EMB_OK) {
        plans_refused++; /* a shape this sharding cannot take: row-wise takes any */
        sh = OPENPIM_EMB_ROW_WISE;
        FAIL_IF(openpim_emb_plan_make(sh, dpus, 0, nr, t, &plan) != OPENPIM_EMB_OK, "row_wise on %u DPUs: %s", dpus,
                openpim_emb_last_error());
        if (case_failed)
            goto out_tables;
    }
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(dpus, NULL, &set));
    const uint32_t nt = openpim_emb_tasklets(NULL);
    uint32_t tl[16];
    openpim_emb_tasklets(tl);
    struct openpim_emb_config cfg = {is_float ? OPENPIM_EMB_FLOAT : OPENPIM_EMB_INT32, max_batch, tl[rnd() % nt],
                                     (int)(rnd() % 3) - 1};
    openpim_emb_t *emb = NULL;
    openpim_emb_status st = openpim_emb_create(set, &cfg, nr, t, &plan, &emb);
    FAIL_IF(st != OPENPIM_EMB_OK, "embedding create (%s, %u DPUs, R %u C %u G %u): %s",
            openpim_emb_sharding_name(sh), dpus, plan.row_shards, plan.col_shards, plan.groups,
            openpim_emb_last_error());
    if (st == OPENPIM_EMB_OK) {
        const size_t bytes = (size_t)batch * total_dim * 4;
        void *out = guarded(bytes);
        const int bad = rnd() % 8 == 0;
        uint32_t bt = 0, bk = 0, keep = 0;
        if (bad) {
            bt = pick(0, nr - 1), bk = pick(0, batch * t[bt].pooling - 1), keep = idx[bt][bk];
            idx[bt][bk] = rnd() & 1 ? t[bt].rows : (uint32_t)rnd() | 0x80000000u;
        }
        st = openpim_emb_lookup(emb, batch, (const uint32_t *const *)idx, out, NULL);
        bad_indices += bad;
        values_checked += bad ? 0 : bytes / 4;
        if (bad) {
            FAIL_IF(st != OPENPIM_EMB_ERR_INDEX || !untouched(out, bytes),
                    "embedding: index %u of table %u (%u rows) gave %s and %s", idx[bt][bk], bt, t[bt].rows,
                    openpim_emb_status_name(st), untouched(out, bytes) ? "no write" : "a write");
            idx[bt][bk] = keep;
        } else {
            FAIL_IF(st != OPENPIM_EMB_OK, "embedding lookup: %s", openpim_emb_last_error());
            size_t wrong = 0, first = 0;
            uint32_t col = 0;
            for (uint32_t i = 0; i < nr && st == OPENPIM_EMB_OK; i++) {
                for (uint32_t b = 0; b < batch; b++)
                    for (uint32_t d = 0; d < t[i].dim; d++) {
                        const size_t o = (size_t)b * total_dim + col + d;
                        const uint32_t *bag = &idx[i][b * t[i].pooling];
                        int ok;
                        if (is_float) {
                            float want = ref_float_bag(t[i].data, t[i].rows, t[i].dim, d, bag, t[i].pooling,
                                                       plan.row_shards);
                            ok = same_float(((float *)out)[o], want);
                        } else {
                            uint32_t want = 0;
                            for (uint32_t k = 0; k < t[i].pooling; k++)
                                want += ((const uint32_t *)t[i].data)[(size_t)bag[k] * t[i].dim + d];
                            ok = ((uint32_t *)out)[o] == want;
                        }
                        if (!ok && !wrong++)
                            first = o;
                    }
                col += t[i].dim;
            }
            FAIL_IF(wrong, "embedding %s %s, %u DPUs R %u C %u G %u, batch %u: %zu of %zu values differ (first %zu)",
                    is_float ? "float" : "int32", openpim_emb_sharding_name(sh), dpus, plan.row_shards,
                    plan.col_shards, plan.groups, batch, wrong, bytes / 4, first);
            FAIL_IF(!guards_intact(out, bytes), "embedding: the output's canaries were overwritten");
        }
        guarded_free(out);
    }
    openpim_emb_destroy(emb);
    DPU_ASSERT(dpu_free(set));
out_tables:
    for (uint32_t i = 0; i < nr; i++)
        free((void *)t[i].data), free(idx[i]);
}

/* ---- MLP ------------------------------------------------------------------------------------- */

static void mlp_case(void)
{
    static const uint32_t pes[] = {1, 2, 3, 4, 8, 16};
    const uint32_t P = pes[rnd() % 6], F = 8 * P * pick(1, 4);
    uint32_t B = pick(1, 16); /* mlp.h: batch 1..16, batch * F/P <= 4096 */
    while ((uint64_t)B * (F / P) > 4096)
        B--;
    struct mlp_config c = {P, F, B, pick(1, 4), rnd()};
    struct mlp_model m;
    FAIL_IF(mlp_model_create(&c, &m), "mlp create: %s", mlp_last_error());
    if (case_failed)
        return;
    /* mlp.h: layer l's accumulators acc[b][o] = sum_k w[l][o][k] a[b][k]; between layers
     * a = min(max(acc, 0) >> 8, 255); out = the last layer's accumulators. */
    int32_t *a = malloc((size_t)B * F * 4), *acc = malloc((size_t)B * F * 4);
    memcpy(a, m.x, (size_t)B * F * 4);
    for (uint32_t l = 0; l < c.layers; l++) {
        if (l)
            for (size_t i = 0; i < (size_t)B * F; i++)
                a[i] = acc[i] <= 0 ? 0 : (acc[i] >> 8) > 255 ? 255 : acc[i] >> 8;
        for (uint32_t b = 0; b < B; b++)
            for (uint32_t o = 0; o < F; o++) {
                int64_t s = 0;
                for (uint32_t k = 0; k < F; k++)
                    s += (int64_t)m.w[((size_t)l * F + o) * F + k] * a[(size_t)b * F + k];
                acc[(size_t)b * F + o] = (int32_t)s;
            }
    }
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(P, NULL, &set));
    const size_t bytes = (size_t)B * F * 4;
    int32_t *out = guarded(bytes);
    const openpim_comm_impl impl = rnd() & 1 ? OPENPIM_COMM_OPTIMISED : OPENPIM_COMM_BASELINE;
    int rc = mlp_pim_run(set, mlp_kernel, impl, &m, out, NULL);
    FAIL_IF(rc, "mlp run: %s", mlp_last_error());
    size_t wrong = 0;
    for (size_t i = 0; i < (size_t)B * F && !rc; i++)
        wrong += out[i] != acc[i];
    values_checked += (size_t)B * F;
    FAIL_IF(wrong, "mlp %u PEs, %u features, batch %u, %u layers: %zu of %zu outputs differ", P, F, B, c.layers,
            wrong, (size_t)B * F);
    FAIL_IF(!guards_intact(out, bytes), "mlp: the output's canaries were overwritten");
    DPU_ASSERT(dpu_free(set));
    guarded_free(out);
    free(a), free(acc);
    mlp_model_free(&m);
}

/* ---- DLRM ------------------------------------------------------------------------------------ */

static void dlrm_case(void)
{
    struct dlrm_config c;
    for (;;) { /* a shape the configuration check accepts */
        static const uint32_t zs[] = {1, 2, 4};
        c.X = pick(1, 13), c.Y = pick(1, 3), c.Z = zs[rnd() % 3];
        c.dim = 2 * c.Z * pick(1, 16 / c.Z), c.pooling = pick(1, 3);
        c.batch = c.X * c.Y * c.Z * pick(1, 3), c.max_rows = rnd() % 4 ? pick(1, 600) : 1, c.seed = rnd();
        const uint32_t tx = (DLRM_TABLES + c.X - 1) / c.X;
        if (c.dim <= DLRM_MAX_DIM && c.X * (tx + (tx & 1)) * c.pooling <= 512 && (tx + (tx & 1)) * (c.dim / c.Z) <= 512 &&
            c.X * c.Y * c.Z <= 64)
            break;
    }
    struct dlrm_model m;
    FAIL_IF(dlrm_model_create(&c, &m), "dlrm create %ux%ux%u: %s", c.X, c.Y, c.Z, dlrm_last_error());
    if (case_failed)
        return;
    uint32_t *idx = dlrm_batch_create(&m);
    const uint32_t B = c.batch, D = c.dim;
    const size_t ne = (size_t)B * DLRM_TABLES * D, ni = (size_t)B * DLRM_PAIRS;
    /* dlrm.h: pooled embedding = wrap-around sum of the bag's rows; interactions = dot products of
     * features i < j in order (i, j) = (0, 1), (0, 2), ..., wrap-around. */
    uint32_t *emb = calloc(ne, 4), *inter = malloc(ni * 4);
    for (uint32_t b = 0; b < B; b++)
        for (uint32_t g = 0; g < DLRM_TABLES; g++)
            for (uint32_t k = 0; k < c.pooling; k++)
                for (uint32_t d = 0; d < D; d++)
                    emb[((size_t)b * DLRM_TABLES + g) * D + d] +=
                        (uint32_t)m.table[g][(size_t)idx[((size_t)b * DLRM_TABLES + g) * c.pooling + k] * D + d];
    for (uint32_t b = 0; b < B; b++) {
        uint32_t p = 0;
        for (uint32_t i = 0; i < DLRM_TABLES; i++)
            for (uint32_t j = i + 1; j < DLRM_TABLES; j++, p++) {
                uint32_t s = 0;
                for (uint32_t d = 0; d < D; d++)
                    s += emb[((size_t)b * DLRM_TABLES + i) * D + d] * emb[((size_t)b * DLRM_TABLES + j) * D + d];
                inter[(size_t)b * DLRM_PAIRS + p] = s;
            }
    }
    int32_t *ref_l = malloc(B * 4);
    FAIL_IF(dlrm_cpu(&m, idx, ref_l, NULL, NULL), "dlrm_cpu: %s", dlrm_last_error());

    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(c.X * c.Y * c.Z, NULL, &set));
    int32_t *lg = guarded(B * 4), *gi = guarded(ni * 4), *ge = guarded(ne * 4);
    const openpim_comm_impl impl = rnd() & 1 ? OPENPIM_COMM_OPTIMISED : OPENPIM_COMM_BASELINE;
    const int bad = rnd() % 6 == 0;
    bad_indices += bad;
    values_checked += bad ? 0 : ne + ni + B;
    if (bad) {
        const size_t at = rnd() % ((size_t)B * DLRM_TABLES * c.pooling);
        const uint32_t g = (uint32_t)(at / c.pooling % DLRM_TABLES);
        idx[at] = rnd() & 1 ? m.rows[g] : m.rows[g] + (uint32_t)(rnd() % 1000000);
        int rc = dlrm_pim_run(set, dlrm_kernel, impl, &m, idx, lg, gi, ge, NULL);
        FAIL_IF(rc != -1 || !untouched(lg, B * 4) || !untouched(gi, ni * 4) || !untouched(ge, ne * 4),
                "dlrm: index %u of table %u (%u rows) was not refused cleanly", idx[at], g, m.rows[g]);
        FAIL_IF(dlrm_cpu(&m, idx, lg, gi, ge) != -1 || !untouched(lg, B * 4),
                "dlrm_cpu: index %u of table %u (%u rows) was not refused cleanly", idx[at], g, m.rows[g]);
    } else {
        int rc = dlrm_pim_run(set, dlrm_kernel, impl, &m, idx, lg, gi, ge, NULL);
        FAIL_IF(rc, "dlrm run %ux%ux%u: %s", c.X, c.Y, c.Z, dlrm_last_error());
        size_t we = 0, wi = 0, wl = 0;
        for (size_t i = 0; i < ne && !rc; i++)
            we += (uint32_t)ge[i] != emb[i];
        for (size_t i = 0; i < ni && !rc; i++)
            wi += (uint32_t)gi[i] != inter[i];
        for (uint32_t b = 0; b < B && !rc; b++)
            wl += lg[b] != ref_l[b];
        FAIL_IF(we || wi || wl,
                "dlrm %ux%ux%u batch %u dim %u pooling %u rows <= %u: %zu embeddings, %zu interactions, %zu "
                "logits differ", c.X, c.Y, c.Z, B, D, c.pooling, c.max_rows, we, wi, wl);
        FAIL_IF(!guards_intact(lg, B * 4) || !guards_intact(gi, ni * 4) || !guards_intact(ge, ne * 4),
                "dlrm: an output's canaries were overwritten");
    }
    DPU_ASSERT(dpu_free(set));
    guarded_free(lg), guarded_free(gi), guarded_free(ge);
    free(idx), free(emb), free(inter), free(ref_l);
    dlrm_model_free(&m);
}

/* ---- driver ---------------------------------------------------------------------------------- */

static uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *s = getenv(name);
    return s && *s ? strtoull(s, NULL, 0) : dflt;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s MLP_KERNEL DLRM_KERNEL\n", argv[0]);
        return 2;
    }
    mlp_kernel = argv[1], dlrm_kernel = argv[2];
    const double seconds = (double)env_u64("OPENPIM_FUZZ_SECONDS", 0);
    uint64_t master = env_u64("OPENPIM_FUZZ_SEED", 0x5EED0F0A11ull);
    if (seconds > 0 && !getenv("OPENPIM_FUZZ_SEED")) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        master = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec;
    }
    const int one = env_u64("OPENPIM_FUZZ_ONE", 0) != 0;
    const uint64_t cases = one ? 1 : env_u64("OPENPIM_FUZZ_CASES", 150);
    printf("fuzz_workloads: master seed 0x%016llx%s\n", (unsigned long long)master,
           seconds > 0 ? " (long mode)" : "");
    fflush(stdout);
    unsigned long counts[3] = {0}, failed = 0;
    const double t0 = now();
    for (uint64_t i = 0; seconds > 0 ? now() - t0 < seconds : i < cases; i++) {
        if (one) {
            case_seed = master;
        } else {
            rng = master + i * 0xD1B54A32D192ED03ull;
            case_seed = rnd();
        }
        rng = case_seed;
        case_failed = 0;
        const unsigned kind = (unsigned)(rnd() % 3);
        if (getenv("OPENPIM_FUZZ_TRACE"))
            fprintf(stderr, "case %llu seed 0x%016llx kind %u\n", (unsigned long long)i,
                    (unsigned long long)case_seed, kind);
        kind == 0 ? emb_case() : kind == 1 ? mlp_case() : dlrm_case();
        counts[kind]++;
        failed += case_failed;
    }
    printf("fuzz_workloads: %lu embedding (%lu plans refused by shape: row-wise instead), %lu MLP, %lu DLRM cases, %lu with a bad "
           "index, %lu values compared, in %.1f s; %lu failed (master seed 0x%016llx)\n",
           counts[0], plans_refused, counts[1], counts[2], bad_indices, values_checked, now() - t0, failed,
           (unsigned long long)master);
    return check_done("fuzz_workloads");
}
