/* SPDX-License-Identifier: MIT */
/* The randomized differential tests' own reference (test_comm_fuzz.c,
 * test_comm_mpi_fuzz.c), written from the public headers alone
 * (openpim_comm.h, openpim_comm_mpi.h), not from comm_test.h nor the library:
 *   - a seeded generator (splitmix64), and values that stress reductions:
 *     NaNs with distinct payloads (quiet and signalling, both signs), +-0,
 *     +-inf, subnormals, integer extremes (wrap-around);
 *   - one element combined as the header defines it (acc = acc op x, rank
 *     order, NaN rule of sums, min/max as comparisons);
 *   - the node numbering of a communicator (rank over the selected
 *     dimensions, instance over the others, dimension 0 fastest);
 *   - each primitive applied to per-node byte images, given how to find a
 *     node's bytes at an MRAM offset;
 *   - host buffers with canaries on both sides. */
#ifndef COMM_FUZZ_REF_H
#define COMM_FUZZ_REF_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "openpim_comm.h"

/* ---- random numbers ------------------------------------------------------------ */

static inline uint64_t fz_mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline uint64_t fz_below(uint64_t *s, uint64_t n)
{
    return n ? fz_mix(s) % n : 0;
}

/* true with probability num / den */
static inline bool fz_chance(uint64_t *s, unsigned num, unsigned den)
{
    return fz_below(s, den) < num;
}

/* ---- types and operations, as the header lists them ------------------------------ */

static const size_t fz_size[OPENPIM_NR_TYPES] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
static const char *const fz_type_name[OPENPIM_NR_TYPES] = {"int8", "uint8", "int16", "uint16", "int32",
                                                           "uint32", "int64", "uint64", "float", "double"};
static const char *const fz_op_name[OPENPIM_NR_OPS] = {"sum", "min", "max", "and", "or", "xor"};

static inline bool fz_is_float(openpim_comm_type t)
{
    return t == OPENPIM_FLOAT || t == OPENPIM_DOUBLE;
}

/* the header: sum, min, max on floats; all six on integers */
static inline bool fz_valid(openpim_comm_type t, openpim_comm_op op)
{
    return (unsigned)t < OPENPIM_NR_TYPES && (unsigned)op < OPENPIM_NR_OPS &&
           (!fz_is_float(t) || op == OPENPIM_SUM || op == OPENPIM_MIN || op == OPENPIM_MAX);
}

/* A value of `type` at p, chosen to stress the reduction: special values a
 * third of the time (floats: NaNs with random payloads, +-0, +-inf, the
 * smallest subnormal; integers: the extremes, 0, -1), else random bits
 * (floats: finite values whose sums round). */
static inline void fz_value(uint64_t *s, openpim_comm_type type, uint8_t *p)
{
    uint64_t r = fz_mix(s);
    bool special = fz_chance(s, 1, 3);
    if (type == OPENPIM_FLOAT) {
        uint32_t bits;
        if (special) {
            static const uint32_t k[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x00000001u,
                                         0x80000001u, 0x7f7fffffu};
            switch (fz_below(s, 3)) {
            case 0: /* NaN: exponent all ones, random non-zero mantissa (quiet or signalling), random sign */
                bits = 0x7f800000u | (uint32_t)(r & 0x007fffffu) | (uint32_t)(r >> 32 & 1) << 31;
                if (!(bits & 0x007fffffu))
                    bits |= 1;
                break;
            default: bits = k[fz_below(s, sizeof k / sizeof *k)]; break;
            }
        } else {
            float f = (float)((int32_t)(r % 2000001) - 1000000) / (float)(1 + (r >> 40) % 97);
            memcpy(&bits, &f, 4);
        }
        memcpy(p, &bits, 4);
    } else if (type == OPENPIM_DOUBLE) {
        uint64_t bits;
        if (special) {
            static const uint64_t k[] = {0, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                                         1, 0x8000000000000001ull, 0x7fefffffffffffffull};
            switch (fz_below(s, 3)) {
            case 0:
                bits = 0x7ff0000000000000ull | (r & 0x000fffffffffffffull) | (fz_mix(s) & 1) << 63;
                if (!(bits & 0x000fffffffffffffull))
                    bits |= 1;
                break;
            default: bits = k[fz_below(s, sizeof k / sizeof *k)]; break;
            }
        } else {
            double f = (double)((int64_t)(r % 2000000001) - 1000000000) / (double)(1 + (r >> 40) % 997) * 1e-3;
            memcpy(&bits, &f, 8);
        }
        memcpy(p, &bits, 8);
    } else {
        size_t n = fz_size[type];
        if (special) {
            /* 0, -1 (all ones), the signed minimum and maximum of the width, 1 */
            uint64_t top = 1ull << (8 * n - 1);
            const uint64_t k[] = {0, ~0ull, top, top - 1, 1};
            uint64_t v = k[fz_below(s, 5)];
            memcpy(p, &v, n);
        } else {
            memcpy(p, &r, n);
        }
    }
}

/* Fills len bytes with values of `type` (len need not be a multiple of its
 * size: the tail gets random bytes). */
static inline void fz_fill(uint64_t *s, openpim_comm_type type, uint8_t *p, size_t len)
{
    size_t es = fz_size[type], i = 0;
    for (; i + es <= len; i += es)
        fz_value(s, type, p + i);
    for (; i < len; i++)
        p[i] = (uint8_t)fz_mix(s);
}

/* ---- one element: acc = acc op x (openpim_comm.h "Reductions") --------------------- */

#define FZ_INT(T, U)                                                                                                   \
    do {                                                                                                               \
        T a, x;                                                                                                        \
        memcpy(&a, acc, sizeof a);                                                                                     \
        memcpy(&x, src, sizeof x);                                                                                     \
        switch (op) {                                                                                                  \
        case OPENPIM_SUM: a = (T)(U)((U)a + (U)x); break; /* wrap-around */                                           \
        case OPENPIM_MIN: a = x < a ? x : a; break;                                                                    \
        case OPENPIM_MAX: a = x > a ? x : a; break;                                                                    \
        case OPENPIM_AND: a = (T)(a & x); break;                                                                       \
        case OPENPIM_OR: a = (T)(a | x); break;                                                                        \
        default: a = (T)(a ^ x); break;                                                                                \
        }                                                                                                              \
        memcpy(acc, &a, sizeof a);                                                                                     \
    } while (0)

/* Floats: min(a, x) = x < a ? x : a, max(a, x) = x > a ? x : a (comparisons:
 * a NaN in the accumulator stays, a NaN x is skipped, nothing is quieted);
 * sums: the accumulator's NaN wins, quieted; else a NaN x, quieted; else
 * a + x (inf - inf: the CPU's default NaN). */
#define FZ_FLT(T, B, QUIET)                                                                                            \
    do {                                                                                                               \
        T a, x;                                                                                                        \
        B ab, xb;                                                                                                      \
        memcpy(&a, acc, sizeof a);                                                                                     \
        memcpy(&x, src, sizeof x);                                                                                     \
        memcpy(&ab, acc, sizeof ab);                                                                                   \
        memcpy(&xb, src, sizeof xb);                                                                                   \
        if (op == OPENPIM_MIN) {                                                                                       \
            if (x < a)                                                                                                 \
                memcpy(acc, src, sizeof a);                                                                            \
        } else if (op == OPENPIM_MAX) {                                                                                \
            if (x > a)                                                                                                 \
                memcpy(acc, src, sizeof a);                                                                            \
        } else if (isnan(a)) {                                                                                         \
            ab |= QUIET;                                                                                               \
            memcpy(acc, &ab, sizeof ab);                                                                               \
        } else if (isnan(x)) {                                                                                         \
            xb |= QUIET;                                                                                               \
            memcpy(acc, &xb, sizeof xb);                                                                               \
        } else {                                                                                                       \
            volatile T r = a + x; /* evaluated at run time, in T */                                                   \
            T rr = r;                                                                                                  \
            memcpy(acc, &rr, sizeof rr);                                                                               \
        }                                                                                                              \
    } while (0)

static inline void fz_op1(openpim_comm_type type, openpim_comm_op op, uint8_t *acc, const uint8_t *src)
{
    switch (type) {
    case OPENPIM_INT8: FZ_INT(int8_t, uint8_t); break;
    case OPENPIM_UINT8: FZ_INT(uint8_t, uint8_t); break;
    case OPENPIM_INT16: FZ_INT(int16_t, uint16_t); break;
    case OPENPIM_UINT16: FZ_INT(uint16_t, uint16_t); break;
    case OPENPIM_INT32: FZ_INT(int32_t, uint32_t); break;
    case OPENPIM_UINT32: FZ_INT(uint32_t, uint32_t); break;
    case OPENPIM_INT64: FZ_INT(int64_t, uint64_t); break;
    case OPENPIM_UINT64: FZ_INT(uint64_t, uint64_t); break;
    case OPENPIM_FLOAT: FZ_FLT(float, uint32_t, 0x00400000u); break;
    case OPENPIM_DOUBLE: FZ_FLT(double, uint64_t, 0x0008000000000000ull); break;
    default: abort();
    }
}

static inline void fz_reduce(openpim_comm_type type, openpim_comm_op op, uint8_t *acc, const uint8_t *src, size_t bytes)
{
    for (size_t i = 0; i < bytes; i += fz_size[type])
        fz_op1(type, op, acc + i, src + i);
}

/* ---- communicators ------------------------------------------------------------------ */

/* The node of every (instance, rank) of the dimensions in `mask` of a cube
 * with lengths len[0..nd-1]: node[inst * N + rank]. */
struct fz_comm {
    uint32_t N, I;
    uint32_t *node;
};

static inline struct fz_comm fz_comm_make(uint32_t nd, const uint32_t *len, uint32_t mask)
{
    struct fz_comm c = {1, 1, NULL};
    uint32_t total = 1;
    for (uint32_t d = 0; d < nd; d++) {
        total *= len[d];
        if (mask >> d & 1)
            c.N *= len[d];
        else
            c.I *= len[d];
    }
    c.node = malloc((size_t)total * sizeof *c.node);
    for (uint32_t n = 0; n < total; n++) {
        uint32_t rest = n, rank = 0, inst = 0, rw = 1, iw = 1;
        for (uint32_t d = 0; d < nd; d++) {
            uint32_t x = rest % len[d];
            rest /= len[d];
            if (mask >> d & 1) {
                rank += x * rw;
                rw *= len[d];
            } else {
                inst += x * iw;
                iw *= len[d];
            }
        }
        c.node[(size_t)inst * c.N + rank] = n;
    }
    return c;
}

/* ---- the primitives on byte images ------------------------------------------------- */

enum fz_prim { FZ_AA, FZ_RS, FZ_AG, FZ_AR, FZ_BC, FZ_SC, FZ_GA, FZ_RE, FZ_NR_PRIMS };
static const char *const fz_prim_name[FZ_NR_PRIMS] = {"alltoall", "reduce_scatter", "allgather", "allreduce",
                                                      "broadcast", "scatter", "gather", "reduce"};

/* Bytes read at src and written at dst per node (0: none), and bytes of the
 * host buffer, for `bytes` as the header's functions take it. */
static inline void fz_extent(enum fz_prim p, uint64_t bytes, uint32_t N, uint32_t I, uint64_t *in, uint64_t *out,
                             uint64_t *host)
{
    *in = *out = *host = 0;
    switch (p) {
    case FZ_AA: *in = *out = bytes; break;
    case FZ_RS: *in = bytes, *out = bytes / N; break;
    case FZ_AG: *in = bytes, *out = bytes * N; break;
    case FZ_AR: *in = *out = bytes; break;
    case FZ_BC: *out = bytes, *host = (uint64_t)I * bytes; break;
    case FZ_SC: *out = bytes, *host = (uint64_t)I * N * bytes; break;
    case FZ_GA: *in = bytes, *host = (uint64_t)I * N * bytes; break;
    case FZ_RE: *in = bytes, *host = (uint64_t)I * bytes; break;
    default: break;
    }
}

/* Where a node's MRAM bytes at `off` are in the caller's images: before
 * (the inputs, read) and after (the expected result, written). */
typedef uint8_t *(*fz_at_fn)(void *ctx, uint32_t node, uint64_t off, int after);

/* One reduction over an instance's sources src[0..n-1] (rank order), split
 * in `parts` consecutive groups of n / parts ranks: each group folded in rank
 * order, then the groups in order (parts = 1: plain rank order; the hosts of
 * openpim_comm_mpi.h otherwise). */
static inline void fz_fold(openpim_comm_type type, openpim_comm_op op, uint8_t *acc, uint8_t *const *src, uint32_t n,
                           uint32_t parts, uint64_t bytes)
{
    uint32_t per = n / parts;
    uint8_t *part = malloc(bytes ? bytes : 1);
    for (uint32_t g = 0; g < parts; g++) {
        memcpy(part, src[g * per], bytes);
        for (uint32_t r = g * per + 1; r < (g + 1) * per; r++)
            fz_reduce(type, op, part, src[r], bytes);
        if (g == 0)
            memcpy(acc, part, bytes);
        else
            fz_reduce(type, op, acc, part, bytes);
    }
    free(part);
}

/* Applies primitive p on every instance of c: inputs read through at(.., 0)
 * (all of them before any output is written, so in-place cases work),
 * outputs through at(.., 1); the host buffer `host` is read (Broadcast,
 * Scatter) or written (Gather, Reduce).  parts: see fz_fold. */
static inline void fz_apply(const struct fz_comm *c, enum fz_prim p, uint64_t src, uint64_t dst, uint64_t bytes,
                            openpim_comm_type type, openpim_comm_op op, uint32_t parts, fz_at_fn at, void *ctx,
                            uint8_t *host)
{
    uint64_t in, out, hb;
    fz_extent(p, bytes, c->N, c->I, &in, &out, &hb);
    uint8_t **s = malloc((size_t)c->N * sizeof *s);
    uint8_t *copy = malloc((size_t)c->N * (in ? in : 1));
    uint8_t *acc = malloc(bytes + 1);
    uint64_t blk = bytes / c->N;
    for (uint32_t i = 0; i < c->I; i++) {
        const uint32_t *nd = c->node + (size_t)i * c->N;
        for (uint32_t q = 0; q < c->N && in; q++) {
            memcpy(copy + (size_t)q * in, at(ctx, nd[q], src, 0), in);
            s[q] = copy + (size_t)q * in;
        }
        switch (p) {
        case FZ_AA:
            for (uint32_t r = 0; r < c->N; r++)
                for (uint32_t q = 0; q < c->N; q++)
                    memcpy(at(ctx, nd[r], dst, 1) + q * blk, s[q] + r * blk, blk);
            break;
        case FZ_RS: {
            uint8_t **sb = malloc((size_t)c->N * sizeof *sb);
            for (uint32_t r = 0; r < c->N; r++) {
                for (uint32_t q = 0; q < c->N; q++)
                    sb[q] = s[q] + r * blk;
                fz_fold(type, op, acc, sb, c->N, parts, blk);
                memcpy(at(ctx, nd[r], dst, 1), acc, blk);
            }
            free(sb);
            break;
        }
        case FZ_AG:
            for (uint32_t r = 0; r < c->N; r++)
                for (uint32_t q = 0; q < c->N; q++)
                    memcpy(at(ctx, nd[r], dst, 1) + q * bytes, s[q], bytes);
            break;
        case FZ_AR:
        case FZ_RE:
            fz_fold(type, op, acc, s, c->N, parts, bytes);
            if (p == FZ_RE)
                memcpy(host + (size_t)i * bytes, acc, bytes);
            else
                for (uint32_t r = 0; r < c->N; r++)
                    memcpy(at(ctx, nd[r], dst, 1), acc, bytes);
            break;
        case FZ_BC:
            for (uint32_t r = 0; r < c->N; r++)
                memcpy(at(ctx, nd[r], dst, 1), host + (size_t)i * bytes, bytes);
            break;
        case FZ_SC:
            for (uint32_t r = 0; r < c->N; r++)
                memcpy(at(ctx, nd[r], dst, 1), host + ((size_t)i * c->N + r) * bytes, bytes);
            break;
        case FZ_GA:
            for (uint32_t r = 0; r < c->N; r++)
                memcpy(host + ((size_t)i * c->N + r) * bytes, s[r], bytes);
            break;
        default:
            abort();
        }
    }
    free(s);
    free(copy);
    free(acc);
}

/* ---- host buffers with canaries ------------------------------------------------------ */

#define FZ_GUARD 64

struct fz_host {
    uint8_t *raw, *p; /* p = raw + FZ_GUARD; raw has len + 2 FZ_GUARD bytes */
    size_t len;
    uint8_t canary[2 * FZ_GUARD];
};

static inline void fz_host_make(struct fz_host *h, uint64_t *s, size_t len)
{
    h->len = len;
    h->raw = malloc(len + 2 * FZ_GUARD);
    h->p = h->raw + FZ_GUARD;
    for (size_t i = 0; i < 2 * FZ_GUARD; i++)
        h->canary[i] = (uint8_t)fz_mix(s);
    memcpy(h->raw, h->canary, FZ_GUARD);
    memcpy(h->p + len, h->canary + FZ_GUARD, FZ_GUARD);
}

/* Whether the canaries on both sides are intact. */
static inline bool fz_host_guards_ok(const struct fz_host *h)
{
    return !memcmp(h->raw, h->canary, FZ_GUARD) && !memcmp(h->p + h->len, h->canary + FZ_GUARD, FZ_GUARD);
}

static inline void fz_host_free(struct fz_host *h)
{
    free(h->raw);
    h->raw = h->p = NULL;
}

/* First differing byte of two buffers, or -1. */
static inline long long fz_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return (long long)i;
    return -1;
}

/* ---- run length and seeds (environment) --------------------------------------------------
 * OPENPIM_FUZZ_SEED     master seed (default: fixed for the suite; random in the long mode)
 * OPENPIM_FUZZ_SECONDS  long mode: run cases until this many seconds have passed
 * OPENPIM_FUZZ_CASES    number of cases (default: the suite's count)
 * OPENPIM_FUZZ_TRACE    1: print every case (seed, description) before it runs
 * A failing case prints its own seed; OPENPIM_FUZZ_SEED=<it> OPENPIM_FUZZ_CASES=1
 * with OPENPIM_FUZZ_ONE=1 runs that case alone. */
struct fz_plan {
    uint64_t master;
    double seconds;  /* 0: a fixed number of cases */
    unsigned cases;
    bool one;        /* master is a case seed */
};

static inline uint64_t fz_env_u64(const char *name, uint64_t dflt, bool *given)
{
    const char *v = getenv(name);
    if (given)
        *given = v && *v;
    if (!v || !*v)
        return dflt;
    char *end;
    unsigned long long x = strtoull(v, &end, 0);
    if (*end) {
        fprintf(stderr, "%s=%s: expected a whole number\n", name, v);
        exit(2);
    }
    return x;
}

static inline uint64_t fz_random_seed(void)
{
    uint64_t s = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(&s, sizeof s, 1, f) != 1) {
        fprintf(stderr, "cannot read /dev/urandom\n");
        exit(2);
    }
    fclose(f);
    return s;
}

static inline struct fz_plan fz_plan_from_env(uint64_t fixed_seed, unsigned fixed_cases)
{
    struct fz_plan p = {fixed_seed, 0, fixed_cases, false};
    bool seed_given;
    p.seconds = (double)fz_env_u64("OPENPIM_FUZZ_SECONDS", 0, NULL);
    p.master = fz_env_u64("OPENPIM_FUZZ_SEED", fixed_seed, &seed_given);
    if (p.seconds > 0 && !seed_given)
        p.master = fz_random_seed();
    p.cases = (unsigned)fz_env_u64("OPENPIM_FUZZ_CASES", p.seconds > 0 ? UINT32_MAX : fixed_cases, NULL);
    p.one = fz_env_u64("OPENPIM_FUZZ_ONE", 0, NULL) != 0;
    return p;
}

/* The seed of case k. */
static inline uint64_t fz_case_seed(const struct fz_plan *p, unsigned k)
{
    if (p->one)
        return p->master;
    uint64_t s = p->master ^ (0xA0761D6478BD642Full * (k + 1));
    return fz_mix(&s);
}

#endif
