/* SPDX-License-Identifier: MIT */
/* Shared by comm/'s tests: a DPU set with a known MRAM window per node, a
 * plain host reference of every collective (written independently of the
 * library: one element at a time, with its own node numbering), and exact
 * comparison of every node's whole window after each collective. */
#ifndef COMM_TEST_H
#define COMM_TEST_H

#include <dpu.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "free_kernels.h"
#include "openpim_comm.h"

/* ---- deterministic random numbers (splitmix64) ------------------------------ */
static uint64_t rng_state = 0x0123456789ABCDEFull;
static inline uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline uint32_t rnd_below(uint32_t n)
{
    return (uint32_t)(rnd() % n);
}

/* ---- the set and its windows --------------------------------------------------- */
struct tctx {
    struct dpu_set_t set;
    uint32_t nr;               /* DPUs */
    struct dpu_set_t *node;    /* node -> DPU, by the documented order, computed here */
    size_t W;                  /* window bytes per node, at MRAM offset 0 */
    uint8_t *shadow;           /* [node][W]: what MRAM should hold */
    uint8_t *scratch;          /* [node][W] */
};

struct tpos {
    uint32_t member, slice;
    struct dpu_set_t dpu;
};

static inline int tpos_cmp(const void *a, const void *b)
{
    const struct tpos *x = a, *y = b;
    if (x->member != y->member)
        return x->member < y->member ? -1 : 1;
    return (x->slice > y->slice) - (x->slice < y->slice);
}

static inline void t_open(struct tctx *t, uint32_t nr_dpus, const char *profile, size_t W, const char *nop)
{
    memset(t, 0, sizeof *t);
    DPU_ASSERT(dpu_alloc(nr_dpus, profile, &t->set));
    DPU_ASSERT(dpu_load(t->set, nop, NULL));
    DPU_ASSERT(dpu_get_nr_dpus(t->set, &t->nr));
    t->node = calloc(t->nr, sizeof *t->node);
    t->W = W;
    t->shadow = malloc(W * t->nr);
    t->scratch = malloc(W * t->nr);
    struct dpu_set_t rank, dpu;
    uint32_t n = 0;
    DPU_RANK_FOREACH(t->set, rank) {
        struct tpos p[64 * 8];
        uint32_t k = 0;
        DPU_FOREACH(rank, dpu) {
            p[k].member = dpu_get_member_id(dpu_from_set(dpu));
            p[k].slice = dpu_get_slice_id(dpu_from_set(dpu));
            p[k].dpu = dpu;
            k++;
        }
        qsort(p, k, sizeof *p, tpos_cmp);
        for (uint32_t i = 0; i < k; i++)
            t->node[n++] = p[i].dpu;
    }
}

static inline void t_close(struct tctx *t)
{
    DPU_ASSERT(dpu_free(t->set));
    free(t->node);
    free(t->shadow);
    free(t->scratch);
}

static inline void t_xfer(struct tctx *t, dpu_xfer_t dir, uint8_t *buf)
{
    for (uint32_t n = 0; n < t->nr; n++)
        DPU_ASSERT(dpu_prepare_xfer(t->node[n], buf + (size_t)n * t->W));
    struct dpu_symbol_t mram = {0x08000000u, 64u << 20};
    DPU_ASSERT(dpu_push_xfer_symbol(t->set, dir, mram, 0, t->W, DPU_XFER_DEFAULT));
}

/* Random window contents; for float/double elements, finite values with many
 * mantissa bits (so that the order of a sum shows) where `ftype` says so. */
static inline void t_fill(struct tctx *t, openpim_comm_type ftype)
{
    size_t total = t->W * t->nr;
    if (ftype == OPENPIM_FLOAT) {
        for (size_t i = 0; i + 4 <= total; i += 4) {
            float f = (float)((int32_t)(rnd() % 2000001) - 1000000) / (float)(1 + rnd() % 97);
            memcpy(t->shadow + i, &f, 4);
        }
    } else if (ftype == OPENPIM_DOUBLE) {
        for (size_t i = 0; i + 8 <= total; i += 8) {
            double f = (double)((int64_t)(rnd() % 2000000001) - 1000000000) / (double)(1 + rnd() % 997) * 1e-3;
            memcpy(t->shadow + i, &f, 8);
        }
    } else {
        for (size_t i = 0; i < total; i += 8) {
            uint64_t v = rnd();
            memcpy(t->shadow + i, &v, total - i < 8 ? total - i : 8);
        }
    }
    t_xfer(t, DPU_XFER_TO_DPU, t->shadow);
}

/* Compares every node's window with the shadow; returns the mismatches. */
static inline int t_verify(struct tctx *t, const char *what)
{
    t_xfer(t, DPU_XFER_FROM_DPU, t->scratch);
    int bad = 0;
    for (uint32_t n = 0; n < t->nr && bad < 1; n++) {
        const uint8_t *a = t->scratch + (size_t)n * t->W, *b = t->shadow + (size_t)n * t->W;
        if (memcmp(a, b, t->W)) {
            size_t i = 0;
            while (a[i] == b[i])
                i++;
            fprintf(stderr, "%s: node %u differs first at byte %zu (got 0x%02x, want 0x%02x)\n", what, n, i, a[i],
                    b[i]);
            bad++;
        }
    }
    check_count++;
    if (bad)
        check_failures++;
    return bad;
}

/* ---- reference -------------------------------------------------------------------- */
static const size_t tsize[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};

#define REF_INT(T)                                                                                                     \
    {                                                                                                                  \
        T a, x;                                                                                                        \
        memcpy(&a, acc, sizeof a);                                                                                     \
        memcpy(&x, src, sizeof x);                                                                                     \
        switch (op) {                                                                                                  \
        case OPENPIM_SUM: a = (T)((uint64_t)a + (uint64_t)x); break;                                                   \
        case OPENPIM_MIN: if (x < a) a = x; break;                                                                     \
        case OPENPIM_MAX: if (x > a) a = x; break;                                                                     \
        case OPENPIM_AND: a = a & x; break;                                                                            \
        case OPENPIM_OR: a = a | x; break;                                                                             \
        case OPENPIM_XOR: a = a ^ x; break;                                                                            \
        default: abort();                                                                                              \
        }                                                                                                              \
        memcpy(acc, &a, sizeof a);                                                                                     \
    }
#define REF_FLT(T)                                                                                                     \
    {                                                                                                                  \
        T a, x;                                                                                                        \
        memcpy(&a, acc, sizeof a);                                                                                     \
        memcpy(&x, src, sizeof x);                                                                                     \
        switch (op) {                                                                                                  \
        case OPENPIM_SUM: a = a + x; break;                                                                            \
        case OPENPIM_MIN: if (x < a) a = x; break;                                                                     \
        case OPENPIM_MAX: if (x > a) a = x; break;                                                                     \
        default: abort();                                                                                              \
        }                                                                                                              \
        memcpy(acc, &a, sizeof a);                                                                                     \
    }

/* acc = acc op src, one element */
static inline void ref_op1(openpim_comm_type type, openpim_comm_op op, uint8_t *acc, const uint8_t *src)
{
    switch (type) {
    case OPENPIM_INT8: REF_INT(int8_t) break;
    case OPENPIM_UINT8: REF_INT(uint8_t) break;
    case OPENPIM_INT16: REF_INT(int16_t) break;
    case OPENPIM_UINT16: REF_INT(uint16_t) break;
    case OPENPIM_INT32: REF_INT(int32_t) break;
    case OPENPIM_UINT32: REF_INT(uint32_t) break;
    case OPENPIM_INT64: REF_INT(int64_t) break;
    case OPENPIM_UINT64: REF_INT(uint64_t) break;
    case OPENPIM_FLOAT: REF_FLT(float) break;
    case OPENPIM_DOUBLE: REF_FLT(double) break;
    default: abort();
    }
}

static inline void ref_reduce(openpim_comm_type type, openpim_comm_op op, uint8_t *acc, const uint8_t *src, size_t bytes)
{
    for (size_t i = 0; i < bytes; i += tsize[type])
        ref_op1(type, op, acc + i, src + i);
}

/* The communicator's node table, computed here: rank = linear index over the
 * selected coordinates, instance over the others (dimension 0 fastest). */
struct tcomm {
    uint32_t N, I;
    uint32_t *node; /* [inst * N + rank] */
};

static inline struct tcomm ref_comm(uint32_t nd, const uint32_t *len, uint32_t mask)
{
    struct tcomm c = {1, 1, NULL};
    uint32_t total = 1;
    for (uint32_t d = 0; d < nd; d++) {
        total *= len[d];
        if (mask >> d & 1)
            c.N *= len[d];
    }
    c.I = total / c.N;
    c.node = malloc(total * sizeof *c.node);
    for (uint32_t n = 0; n < total; n++) {
        uint32_t x[16], rest = n;
        for (uint32_t d = 0; d < nd; d++) {
            x[d] = rest % len[d];
            rest /= len[d];
        }
        uint32_t r = 0, i = 0;
        for (int d = (int)nd - 1; d >= 0; d--) {
            if (mask >> d & 1)
                r = r * len[d] + x[d];
            else
                i = i * len[d] + x[d];
        }
        c.node[i * c.N + r] = n;
    }
    return c;
}

enum prim { P_AA, P_RS, P_AG, P_AR, P_BC, P_SC, P_GA, P_RE, NR_PRIMS };
__attribute__((unused)) static const char *const prim_name[] = {"alltoall", "reduce_scatter", "allgather", "allreduce",
                                        "broadcast", "scatter", "gather", "reduce"};

/* Applies the primitive to the shadow (and host buffers for rooted ones). */
static inline void ref_apply(struct tctx *t, const struct tcomm *c, enum prim p, uint64_t src, uint64_t dst, uint64_t bytes,
                      openpim_comm_type type, openpim_comm_op op, const uint8_t *hin, uint8_t *hout)
{
    size_t W = t->W;
    uint8_t *in = malloc(W * t->nr);
    memcpy(in, t->shadow, W * t->nr); /* inputs as they were before */
#define IN(n) (in + (size_t)(n) * W + src)
#define OUT(n) (t->shadow + (size_t)(n) * W + dst)
    uint64_t blk = bytes / c->N;
    for (uint32_t i = 0; i < c->I; i++) {
        const uint32_t *nd = c->node + (size_t)i * c->N;
        switch (p) {
        case P_AA:
            for (uint32_t r = 0; r < c->N; r++)
                for (uint32_t q = 0; q < c->N; q++)
                    memcpy(OUT(nd[r]) + q * blk, IN(nd[q]) + r * blk, blk);
            break;
        case P_RS:
            for (uint32_t r = 0; r < c->N; r++) {
                uint8_t *acc = malloc(blk);
                memcpy(acc, IN(nd[0]) + r * blk, blk);
                for (uint32_t q = 1; q < c->N; q++)
                    ref_reduce(type, op, acc, IN(nd[q]) + r * blk, blk);
                memcpy(OUT(nd[r]), acc, blk);
                free(acc);
            }
            break;
        case P_AG:
            for (uint32_t r = 0; r < c->N; r++)
                for (uint32_t q = 0; q < c->N; q++)
                    memcpy(OUT(nd[r]) + q * bytes, IN(nd[q]), bytes);
            break;
        case P_AR:
        case P_RE: {
            uint8_t *acc = malloc(bytes);
            memcpy(acc, IN(nd[0]), bytes);
            for (uint32_t q = 1; q < c->N; q++)
                ref_reduce(type, op, acc, IN(nd[q]), bytes);
            if (p == P_AR)
                for (uint32_t r = 0; r < c->N; r++)
                    memcpy(OUT(nd[r]), acc, bytes);
            else
                memcpy(hout + (size_t)i * bytes, acc, bytes);
            free(acc);
            break;
        }
        case P_BC:
            for (uint32_t r = 0; r < c->N; r++)
                memcpy(OUT(nd[r]), hin + (size_t)i * bytes, bytes);
            break;
        case P_SC:
            for (uint32_t r = 0; r < c->N; r++)
                memcpy(OUT(nd[r]), hin + ((size_t)i * c->N + r) * bytes, bytes);
            break;
        case P_GA:
            for (uint32_t r = 0; r < c->N; r++)
                memcpy(hout + ((size_t)i * c->N + r) * bytes, IN(nd[r]), bytes);
            break;
        default:
            abort();
        }
    }
#undef IN
#undef OUT
    free(in);
}

/* Runs the primitive through the library. */
static inline openpim_comm_status lib_run(openpim_comm_t *m, enum prim p, uint64_t src, uint64_t dst, uint64_t bytes,
                                   openpim_comm_type type, openpim_comm_op op, const uint8_t *hin, uint8_t *hout)
{
    switch (p) {
    case P_AA: return openpim_alltoall(m, src, dst, bytes);
    case P_RS: return openpim_reduce_scatter(m, src, dst, bytes, type, op);
    case P_AG: return openpim_allgather(m, src, dst, bytes);
    case P_AR: return openpim_allreduce(m, src, dst, bytes, type, op);
    case P_BC: return openpim_broadcast(m, dst, hin, bytes);
    case P_SC: return openpim_scatter(m, dst, hin, bytes);
    case P_GA: return openpim_gather(m, src, hout, bytes);
    case P_RE: return openpim_reduce(m, src, hout, bytes, type, op);
    default: abort();
    }
}

/* Host-buffer bytes of a rooted primitive. */
static inline size_t host_bytes(const struct tcomm *c, enum prim p, uint64_t bytes)
{
    switch (p) {
    case P_BC:
    case P_RE: return (size_t)c->I * bytes;
    case P_SC:
    case P_GA: return (size_t)c->I * c->N * bytes;
    default: return 0;
    }
}

/* One checked run: the library against the reference, on fresh data.  Returns
 * whether it matched; *view tells which path ran. */
static inline int t_case(struct tctx *t, openpim_cube_t *cube, openpim_comm_t *m, const struct tcomm *c, enum prim p,
                  uint64_t src, uint64_t dst, uint64_t bytes, openpim_comm_type type, openpim_comm_op op, int *view)
{
    size_t hb = host_bytes(c, p, bytes);
    uint8_t *hin = malloc(hb + 1), *hout = malloc(hb + 1), *href = malloc(hb + 1);
    for (size_t i = 0; i < hb; i++)
        hin[i] = (uint8_t)rnd();
    memset(hout, 0xA5, hb + 1);
    memset(href, 0xA5, hb + 1);
    t_fill(t, type == OPENPIM_FLOAT || type == OPENPIM_DOUBLE ? type : OPENPIM_UINT8);
    openpim_comm_status st = lib_run(m, p, src, dst, bytes, type, op, hin, hout);
    char what[256];
    snprintf(what, sizeof what, "%s N=%u I=%u src=%llu dst=%llu bytes=%llu type=%d op=%d tech=%u", prim_name[p], c->N,
             c->I, (unsigned long long)src, (unsigned long long)dst, (unsigned long long)bytes, (int)type, (int)op,
             openpim_cube_get_techniques(cube));
    if (st != OPENPIM_COMM_OK) {
        fprintf(stderr, "%s: failed: %s\n", what, openpim_comm_last_error());
        check_count++;
        check_failures++;
        free(hin), free(hout), free(href);
        return 0;
    }
    if (view)
        *view = openpim_cube_last_used_view(cube);
    ref_apply(t, c, p, src, dst, bytes, type, op, hin, href);
    int ok = !t_verify(t, what);
    if (hb) {
        check_count++;
        if (memcmp(hout, href, hb + 1)) {
            check_failures++;
            ok = 0;
            fprintf(stderr, "%s: host buffer differs\n", what);
        }
    }
    free(hin), free(hout), free(href);
    return ok;
}

#endif
