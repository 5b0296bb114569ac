/* SPDX-License-Identifier: MIT */
/* DLRM on comm's 3D hypercube (see dlrm.h): the synthetic Criteo-like model and
 * batch, and the run on the DPUs (the CPU reference is dlrm_ref.c). */
#define _POSIX_C_SOURCE 200809L
#include "dlrm.h"

#include <math.h>
#include <openpim_ext.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlrm_kernel_abi.h"
#include "../common/pidcomm_host.h"

/* Cardinalities of the 26 categorical features of Criteo's Kaggle Display
 * Advertising Challenge data set (as DLRM's data loader counts them). */
static const uint32_t criteo_rows[DLRM_TABLES] = {
    1460,    583,   10131227, 2202608, 305,    24,      12517, 633, 3,      93145, 5683, 8351593, 3194,
    27,      14992, 5461306,  10,      5652,   2173,    4,     7046547, 18,  15,    286181, 105, 142572,
};

static _Thread_local char err[256];

const char *dlrm_last_error(void)
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

static uint32_t slots_per_group(uint32_t X)
{
    uint32_t tx = (DLRM_TABLES + X - 1) / X;
    return tx + (tx & 1); /* even, so that index blocks are whole 8-byte words */
}

int dlrm_check_batch(const struct dlrm_model *m, const uint32_t *idx)
{
    if (!m || !idx)
        return fail("dlrm: NULL model or indices");
    const struct dlrm_config *c = &m->cfg;
    for (uint32_t b = 0; b < c->batch; b++)
        for (uint32_t g = 0; g < DLRM_TABLES; g++)
            for (uint32_t k = 0; k < c->pooling; k++) {
                const uint32_t v = idx[((size_t)b * DLRM_TABLES + g) * c->pooling + k];
                if (v >= m->rows[g])
                    return fail("dlrm: table %u, sample %u, position %u: index %u but the table has %u rows", g, b,
                                k, v, m->rows[g]);
            }
    return 0;
}

static int check_config(const struct dlrm_config *c)
{
    if (!c)
        return fail("dlrm: NULL configuration");
    if (c->X == 0 || c->Y == 0 || c->Z == 0)
        return fail("dlrm: cube %ux%ux%u: every length must be >= 1", c->X, c->Y, c->Z);
    uint64_t P = (uint64_t)c->X * c->Y * c->Z;
    if (P > 2560)
        return fail("dlrm: cube %ux%ux%u has %llu nodes (at most 2560 DPUs)", c->X, c->Y, c->Z,
                    (unsigned long long)P);
    if (c->X > DLRM_TABLES)
        return fail("dlrm: X = %u table groups for %d tables", c->X, DLRM_TABLES);
    if (c->batch == 0 || c->batch % P)
        return fail("dlrm: batch %u is not a positive multiple of the %llu nodes", c->batch, (unsigned long long)P);
    if (c->dim == 0 || c->dim > DLRM_MAX_DIM || c->dim % (2 * c->Z))
        return fail("dlrm: dim %u must be a multiple of 2*Z = %u and at most %d", c->dim, 2 * c->Z, DLRM_MAX_DIM);
    if (c->pooling == 0 || c->pooling > 64)
        return fail("dlrm: pooling %u must be 1..64", c->pooling);
    if (c->max_rows == 0)
        return fail("dlrm: max_rows must be >= 1");
    uint32_t tx = slots_per_group(c->X);
    if (c->X * tx * c->pooling > 512)
        return fail("dlrm: %u x %u slots x pooling %u indices per sample exceed the kernel's 2 KB buffer", c->X, tx,
                    c->pooling);
    /* a node's embedding block of one sample moves in one DMA (at most 2 KB) through a 2 KB buffer */
    if (tx * (c->dim / c->Z) > 512)
        return fail("dlrm: %u slots x %u columns per shard exceed the kernel's 2 KB embedding block per sample "
                    "(use more table groups X or column shards Z)", tx, c->dim / c->Z);
    return 0;
}

int dlrm_model_create(const struct dlrm_config *cfg, struct dlrm_model *m)
{
    if (!m)
        return fail("dlrm: NULL model");
    if (check_config(cfg))
        return -1;
    struct dlrm_model t = {.cfg = *cfg};
    uint64_t s = cfg->seed;
    for (int g = 0; g < DLRM_TABLES; g++) {
        t.rows[g] = criteo_rows[g] < cfg->max_rows ? criteo_rows[g] : cfg->max_rows;
        size_t n = (size_t)t.rows[g] * cfg->dim;
        t.table[g] = malloc(n * sizeof(int32_t));
        if (!t.table[g]) {
            dlrm_model_free(&t);
            return fail("dlrm: out of host memory for table %d (%zu values)", g, n);
        }
        for (size_t i = 0; i < n; i++)
            t.table[g][i] = (int32_t)(pidcomm_mix(&s) % 17) - 8; /* small values: the interaction stays readable */
    }
    t.top = calloc(DLRM_TOP_BYTES, 1);
    if (!t.top) {
        dlrm_model_free(&t);
        return fail("dlrm: out of host memory for the top MLP");
    }
    /* [512][328] (325 used), [256][512], [1][256]: uniform in [-4, 4]. */
    for (uint32_t o = 0; o < DLRM_TOP_N1; o++)
        for (uint32_t k = 0; k < DLRM_TOP_IN0; k++)
            t.top[o * DLRM_TOP_ROW0 + k] = (int8_t)((int)(pidcomm_mix(&s) % 9) - 4);
    for (size_t i = (size_t)DLRM_TOP_N1 * DLRM_TOP_ROW0; i < DLRM_TOP_BYTES; i++)
        t.top[i] = (int8_t)((int)(pidcomm_mix(&s) % 9) - 4);
    *m = t;
    return 0;
}

void dlrm_model_free(struct dlrm_model *m)
{
    if (!m)
        return;
    for (int g = 0; g < DLRM_TABLES; g++) {
        free(m->table[g]);
        m->table[g] = NULL;
    }
    free(m->top);
    m->top = NULL;
}

/* An index with P(r) ~ 1/(r + 1) over [0, n) (log-uniform), then a fixed
 * permutation r -> (a*r + c) mod n so that the hot rows spread over the row
 * shards as ids in real logs do. */
static uint32_t power_law(uint64_t *s, uint32_t n, uint64_t a)
{
    double u = (double)(pidcomm_mix(s) >> 11) * (1.0 / 9007199254740992.0);
    uint64_t r = (uint64_t)floor(exp(u * log((double)n + 1.0))) - 1;
    if (r >= n)
        r = n - 1;
    return (uint32_t)((a * r + 12345u) % n);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

uint32_t *dlrm_batch_create(const struct dlrm_model *m)
{
    const struct dlrm_config *c = &m->cfg;
    uint32_t *idx = malloc((size_t)c->batch * DLRM_TABLES * c->pooling * sizeof *idx);
    if (!idx) {
        fail("dlrm: out of host memory for the batch");
        return NULL;
    }
    uint64_t a[DLRM_TABLES];
    for (int g = 0; g < DLRM_TABLES; g++) {
        a[g] = 2654435761u % (m->rows[g] > 1 ? m->rows[g] : 1);
        while (m->rows[g] > 1 && gcd(a[g], m->rows[g]) != 1)
            a[g]++;
        if (m->rows[g] <= 1)
            a[g] = 1;
    }
    uint64_t s = c->seed ^ 0xB47C4E5ull;
    for (uint32_t b = 0; b < c->batch; b++)
        for (int g = 0; g < DLRM_TABLES; g++)
            for (uint32_t k = 0; k < c->pooling; k++)
                idx[((size_t)b * DLRM_TABLES + g) * c->pooling + k] = power_law(&s, m->rows[g], a[g]);
    return idx;
}

/* ---- the PIM run -------------------------------------------------------------------------- */

struct plan {
    uint32_t X, Y, Z, P, Tx, Dz, S, B, pool;
    uint32_t shard_rows[DLRM_TABLES]; /* by table */
    uint64_t group_bytes[DLRM_TABLES]; /* table shard bytes of a node of group x */
    struct dlrm_args args;
    uint64_t end; /* MRAM bytes used by the largest group */
};

static uint64_t up8(uint64_t v)
{
    return (v + 7) & ~7ull;
}

static void make_plan(const struct dlrm_model *m, struct plan *p)
{
    const struct dlrm_config *c = &m->cfg;
    memset(p, 0, sizeof *p);
    p->X = c->X, p->Y = c->Y, p->Z = c->Z, p->P = c->X * c->Y * c->Z;
    p->Tx = slots_per_group(c->X), p->Dz = c->dim / c->Z, p->B = c->batch, p->S = c->batch / p->P;
    p->pool = c->pooling;
    for (int g = 0; g < DLRM_TABLES; g++) {
        p->shard_rows[g] = (m->rows[g] + c->Y - 1) / c->Y;
        p->group_bytes[g % c->X] += up8((uint64_t)p->shard_rows[g] * (c->dim / c->Z) * 4);
    }
    struct dlrm_args *a = &p->args;
    a->X = p->X, a->Z = p->Z, a->Tx = p->Tx, a->pool = p->pool, a->Dz = p->Dz, a->S = p->S, a->B = p->B;
    a->P = p->P;
    uint64_t o = up8(sizeof(struct dlrm_node_header)), ib = (uint64_t)p->Tx * p->pool * 4,
             eb = (uint64_t)p->Tx * p->Dz * 4;
    a->off_idx_local = (uint32_t)o, o = up8(o + (uint64_t)p->S * p->X * ib);
    a->off_send = (uint32_t)o, o = up8(o + (uint64_t)p->B * ib);
    a->off_idx_all = (uint32_t)o, o = up8(o + (uint64_t)p->B * ib);
    a->off_part = (uint32_t)o, o = up8(o + (uint64_t)p->B * eb);
    a->off_rsout = (uint32_t)o, o = up8(o + (uint64_t)p->B / p->Y * eb);
    a->off_emb = (uint32_t)o, o = up8(o + (uint64_t)p->B / p->Y * eb);
    a->off_inter = (uint32_t)o, o = up8(o + (uint64_t)p->S * DLRM_INTER_STRIDE * 4);
    a->off_top = (uint32_t)o, o = up8(o + DLRM_TOP_BYTES);
    a->off_logit = (uint32_t)o, o = up8(o + (uint64_t)p->S * 8);
    a->off_tables = (uint32_t)o;
    uint64_t most = 0;
    for (uint32_t x = 0; x < p->X; x++)
        most = p->group_bytes[x] > most ? p->group_bytes[x] : most;
    p->end = o + most;
}

#define COMM(call) PIDCOMM_COMM("dlrm", call)
#define SDK(call) PIDCOMM_SDK("dlrm", call)

/* One kernel launch: the mode in the broadcast arguments, then a synchronous launch. */
static dpu_error_t launch(struct dpu_set_t set, struct dlrm_args *a, uint32_t mode)
{
    a->mode = mode;
    dpu_error_t e = dpu_broadcast_to(set, "dlrm_args", 0, a, sizeof *a, DPU_XFER_DEFAULT);
    return e != DPU_OK ? e : dpu_launch(set, DPU_SYNCHRONOUS);
}

int dlrm_pim_run(struct dpu_set_t set, const char *kernel, openpim_comm_impl impl, const struct dlrm_model *m,
                 const uint32_t *idx, int32_t *logit, int32_t *inter, int32_t *emb, struct dlrm_times *times)
{
    if (!m || !idx || !logit || !kernel)
        return fail("dlrm: NULL argument");
    if (check_config(&m->cfg))
        return -1;
    if (impl != OPENPIM_COMM_BASELINE && impl != OPENPIM_COMM_OPTIMISED)
        return fail("dlrm: unknown implementation %d", (int)impl);
    if (dlrm_check_batch(m, idx))
        return -1;
    struct plan p;
    make_plan(m, &p);
    uint32_t nr = 0;
    if (dpu_get_nr_dpus(set, &nr) != DPU_OK || nr != p.P)
        return fail("dlrm: the set has %u DPUs, the cube %ux%ux%u needs %u", nr, p.X, p.Y, p.Z, p.P);

    int rc = 0;
    openpim_cube_t *cube = NULL;
    openpim_comm_t *all = NULL, *ycomm = NULL, *xz = NULL;
    uint8_t *host = NULL, *tab = NULL;
    uint32_t *inter_h = NULL;
    uint8_t *zp = NULL;
    struct dlrm_times t = {0};
    SDK(dpu_load(set, kernel, NULL));
    uint32_t lengths[3] = {p.X, p.Y, p.Z};
    COMM(openpim_cube_create(set, 3, lengths, &cube));
    if (p.end > openpim_cube_mram_bytes(cube)) {
        rc = fail("dlrm: each DPU needs %llu bytes of MRAM, it has %llu (lower max_rows or the batch, or use more "
                  "DPUs)", (unsigned long long)p.end, (unsigned long long)openpim_cube_mram_bytes(cube));
        goto out;
    }
    COMM(openpim_cube_set_impl(cube, impl));
    COMM(openpim_comm_create_mask(cube, "111", &all));
    COMM(openpim_comm_create_mask(cube, "010", &ycomm));
    COMM(openpim_comm_create_mask(cube, "101", &xz));

    /* Not timed: each node's header and table shards, one DPU at a time (the model is resident, as in
     * inference; the shards differ in size between table groups). */
    const struct dpu_symbol_t mram = {0x08000000u, (uint32_t)openpim_cube_mram_bytes(cube)};
    uint64_t most = 0;
    for (uint32_t x = 0; x < p.X; x++)
        most = p.group_bytes[x] > most ? p.group_bytes[x] : most;
    tab = malloc(most ? most : 8);
    if (!tab) {
        rc = fail("dlrm: out of host memory for a node's table shards (%llu bytes)", (unsigned long long)most);
        goto out;
    }
    for (uint32_t n = 0; n < p.P; n++) {
        struct dlrm_node_header h = {.x = n % p.X, .y = n / p.X % p.Y, .z = n / (p.X * p.Y)};
        uint64_t o = 0;
        for (uint32_t tt = 0; tt < p.Tx; tt++) {
            uint32_t g = h.x + tt * p.X;
            if (g >= DLRM_TABLES)
                continue;
            h.shard_rows[tt] = p.shard_rows[g];
            h.slot_off[tt] = (uint32_t)(p.args.off_tables + o);
            int32_t *dst = (int32_t *)(tab + o);
            for (uint32_t r = 0; r < p.shard_rows[g]; r++) {
                uint64_t row = (uint64_t)h.y * p.shard_rows[g] + r;
                if (row < m->rows[g])
                    memcpy(&dst[(size_t)r * p.Dz], &m->table[g][row * m->cfg.dim + (uint64_t)h.z * p.Dz],
                           p.Dz * sizeof(int32_t));
                else
                    memset(&dst[(size_t)r * p.Dz], 0, p.Dz * sizeof(int32_t));
            }
            o += up8((uint64_t)p.shard_rows[g] * p.Dz * 4);
        }
        struct dpu_set_t dpu;
        COMM(openpim_cube_node_dpu(cube, n, &dpu));
        SDK(dpu_copy_to_symbol(dpu, mram, 0, &h, sizeof h));
        if (o)
            SDK(dpu_copy_to_symbol(dpu, mram, p.args.off_tables, tab, o));
    }
    free(tab);
    tab = NULL;

    /* The top MLP's weights, the same on every node. */
    zp = malloc(DLRM_TOP_BYTES);
    if (!zp) {
        rc = fail("dlrm: out of host memory for the top MLP");
        goto out;
    }
    for (uint32_t i = 0; i < DLRM_TOP_BYTES; i++) /* zero point: unsigned weights (padding columns unused) */
        zp[i] = (uint8_t)(m->top[i] + DLRM_TOP_ZP);
    SDK(dpu_broadcast_to_symbol(set, mram, p.args.off_top, zp, DLRM_TOP_BYTES, DPU_XFER_DEFAULT));

    /* The batch: node n's samples, [S][X*Tx][pool] with slot (x, t) = table x + t*X. */
    const uint64_t local = (uint64_t)p.S * p.X * p.Tx * p.pool * 4;
    host = calloc((size_t)p.P, local);
    inter_h = malloc((size_t)p.P * p.S * DLRM_INTER_STRIDE * 4); /* also the logits, [S][2] per node */
    if (!host || !inter_h) {
        rc = fail("dlrm: out of host memory for the batch buffers");
        goto out;
    }
    for (uint32_t n = 0; n < p.P; n++)
        for (uint32_t s = 0; s < p.S; s++) {
            uint32_t b = n * p.S + s;
            uint32_t *row = (uint32_t *)(host + (size_t)n * local) + (size_t)s * p.X * p.Tx * p.pool;
            for (uint32_t x = 0; x < p.X; x++)
                for (uint32_t tt = 0; tt < p.Tx; tt++) {
                    uint32_t g = x + tt * p.X;
                    if (g < DLRM_TABLES)
                        memcpy(&row[(x * p.Tx + tt) * p.pool], &idx[((size_t)b * DLRM_TABLES + g) * p.pool],
                               p.pool * sizeof *row);
                }
        }

    /* ---- timed: one batch -------------------------------------------------------------- */
    const uint64_t ib = (uint64_t)p.Tx * p.pool * 4, eb = (uint64_t)p.Tx * p.Dz * 4;
    double t0 = openpim_modelled_time_us();
#define LAP(field) (t.field += pidcomm_lap(&t0))
    COMM(openpim_scatter(all, p.args.off_idx_local, host, local));
    LAP(scatter);
    SDK(launch(set, &p.args, DLRM_PACK));
    LAP(pack);
    COMM(openpim_alltoall(all, p.args.off_send, p.args.off_idx_all, (uint64_t)p.B * ib));
    SDK(dpu_sync(set)); /* the collective's work on the ranks ends before its lap does */
    LAP(alltoall_xyz);
    SDK(dpu_load(set, kernel, NULL)); /* the collective may have loaded comm's reordering kernel (untimed) */
    SDK(launch(set, &p.args, DLRM_LOOKUP));
    LAP(lookup);
    /* With one row shard the sums are complete: no ReduceScatter (a collective over one node is a copy). */
    const uint32_t sums = p.Y > 1 ? p.args.off_rsout : p.args.off_part;
    if (p.Y > 1)
        COMM(openpim_reduce_scatter(ycomm, p.args.off_part, p.args.off_rsout, (uint64_t)p.B * eb, OPENPIM_INT32,
                                    OPENPIM_SUM));
    SDK(dpu_sync(set)); /* the collective's work on the ranks ends before its lap does */
    LAP(reduce_scatter_y);
    COMM(openpim_alltoall(xz, sums, p.args.off_emb, (uint64_t)p.B / p.Y * eb));
    SDK(dpu_sync(set)); /* the collective's work on the ranks ends before its lap does */
    LAP(alltoall_xz);
    SDK(dpu_load(set, kernel, NULL));
    SDK(launch(set, &p.args, DLRM_INTERACT));
    LAP(interact);
    SDK(launch(set, &p.args, DLRM_TOP));
    LAP(top_mlp);
    COMM(openpim_gather(all, p.args.off_logit, inter_h, (uint64_t)p.S * 8));
    LAP(gather);
#undef LAP
    t.kernel = t.pack + t.lookup + t.interact + t.top_mlp;
    t.comm = t.alltoall_xyz + t.reduce_scatter_y + t.alltoall_xz;
    t.host = t.scatter + t.gather;
    t.total = t.kernel + t.comm + t.host;

    /* Results in sample order: node (x, y, z) holds samples y*B/Y + (x + X*z)*S + [0, S). */
    for (uint32_t n = 0; n < p.P; n++) {
        uint32_t x = n % p.X, y = n / p.X % p.Y, z = n / (p.X * p.Y);
        uint32_t first = y * (p.B / p.Y) + (x + p.X * z) * p.S;
        for (uint32_t s = 0; s < p.S; s++)
            logit[first + s] = (int32_t)inter_h[((size_t)n * p.S + s) * 2];
    }
    if (inter) {
        /* Not timed: the interactions, for checking. */
        COMM(openpim_gather(all, p.args.off_inter, inter_h, (uint64_t)p.S * DLRM_INTER_STRIDE * 4));
        for (uint32_t n = 0; n < p.P; n++) {
            uint32_t x = n % p.X, y = n / p.X % p.Y, z = n / (p.X * p.Y);
            uint32_t first = y * (p.B / p.Y) + (x + p.X * z) * p.S;
            for (uint32_t s = 0; s < p.S; s++)
                memcpy(&inter[(size_t)(first + s) * DLRM_PAIRS],
                       &inter_h[((size_t)n * p.S + s) * DLRM_INTER_STRIDE], DLRM_PAIRS * sizeof *inter);
        }
    }
    if (emb) {
        /* The pooled embeddings after the AlltoAll over xz, [X*Z blocks][S][Tx][Dz] per node. */
        const uint64_t eb_node = (uint64_t)p.B / p.Y * eb;
        uint8_t *e = malloc((size_t)p.P * eb_node);
        if (!e) {
            rc = fail("dlrm: out of host memory for the embeddings");
            goto out;
        }
        openpim_comm_status s_ = openpim_gather(all, p.args.off_emb, e, eb_node);
        if (s_ != OPENPIM_COMM_OK) {
            free(e);
            rc = fail("dlrm: reading the embeddings back: %s", openpim_comm_last_error());
            goto out;
        }
        const uint32_t D = m->cfg.dim;
        for (uint32_t n = 0; n < p.P; n++) {
            uint32_t x = n % p.X, y = n / p.X % p.Y, z = n / (p.X * p.Y);
            uint32_t first = y * (p.B / p.Y) + (x + p.X * z) * p.S;
            const int32_t *src = (const int32_t *)(e + (size_t)n * eb_node);
            for (uint32_t zz = 0; zz < p.Z; zz++)
                for (uint32_t xx = 0; xx < p.X; xx++)
                    for (uint32_t s = 0; s < p.S; s++)
                        for (uint32_t tt = 0; tt < p.Tx; tt++) {
                            uint32_t g = xx + tt * p.X;
                            if (g >= DLRM_TABLES)
                                continue;
                            const int32_t *blk = &src[(((size_t)(xx + p.X * zz) * p.S + s) * p.Tx + tt) * p.Dz];
                            memcpy(&emb[((size_t)(first + s) * DLRM_TABLES + g) * D + zz * p.Dz], blk,
                                   p.Dz * sizeof *emb);
                        }
        }
        free(e);
    }
    if (times)
        *times = t;
out:
    free(tab);
    free(host);
    free(inter_h);
    free(zp);
    openpim_cube_destroy(cube);
    return rc;
}
