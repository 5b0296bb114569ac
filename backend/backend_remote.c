/* SPDX-License-Identifier: MIT */
/* The remote backend: a client of openpimd (backend/remote_protocol.h) behind
 * the operations table of backend/backend.h.  An unmodified UPMEM program
 * gets it with UPMEM_PROFILE=backend=remote (sdk/profile.c, sdk/session.c).
 *
 * The SDK numbers ranks 0 .. nr_ranks - 1 as on the embedded machine; the
 * daemon hands out whichever physical ranks are free, so this backend keeps
 * the map from the SDK's (virtual) ranks to the daemon's and translates DPU
 * numbers on every request.  The timing model runs in the SDK from the
 * results the daemon returns, over the SDK's rank numbers: modelled times are
 * those of the embedded machine.
 *
 * One connection per backend.  Operations on different ranks (the SDK's
 * per-rank jobs, asynchronous launches) have their requests in flight at the
 * same time and the daemon runs them in parallel; see remote_internal.h for
 * the locks.  Data above OPD_INLINE_MAX bytes goes through the window (a
 * sealed memfd the daemon maps, or the daemon's own memory filled and emptied
 * over the connection when streaming), in pieces of the window's size. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "remote_internal.h"

static struct remote *R(struct op_backend *b)
{
    return (struct remote *)b;
}

/* The daemon's number of an SDK DPU; -1 if its rank is not claimed here. */
static int64_t phys(struct remote *r, uint32_t dpu)
{
    uint32_t vr = dpu / r->per_rank;
    if (vr >= r->nr_vranks || r->vmap[vr] < 0)
        return -1;
    return r->vmap[vr] * r->per_rank + dpu % r->per_rank;
}

/* Translates a DPU list into out (n entries). */
static int translate(struct remote *r, const uint32_t *dpus, uint32_t n, uint32_t *out, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < n; i++) {
        int64_t p = phys(r, dpus[i]);
        if (p < 0)
            return rpc_fail(err, errlen, "DPU %u: its rank is not claimed", dpus[i]);
        out[i] = (uint32_t)p;
    }
    return 0;
}

/* ---- entering an operation ----------------------------------------------------------
 * Exclusive: nothing else runs (claims, releases, programs; everything while
 * writes are batched).  Else shared, with the locks of the SDK ranks the
 * operation names, taken in ascending order. */

struct entered {
    bool exclusive;
    uint32_t lo, hi; /* the ranks locked: [lo, hi], those marked in mask */
    uint8_t *mask;
};

static void enter_exclusive(struct remote *r, struct entered *e)
{
    pthread_rwlock_wrlock(&r->ops);
    e->exclusive = true;
    e->mask = NULL;
}

/* Enters an operation on the DPUs (SDK numbers; those out of range are the
 * translation's to refuse). */
static int enter(struct remote *r, const uint32_t *dpus, uint32_t n, struct entered *e, char *err, size_t errlen)
{
    memset(e, 0, sizeof *e);
    if (r->batch_on) {
        enter_exclusive(r, e);
        return 0;
    }
    e->mask = calloc(r->nr_vranks ? r->nr_vranks : 1, 1);
    if (!e->mask)
        return rpc_fail(err, errlen, "out of memory");
    pthread_rwlock_rdlock(&r->ops);
    e->lo = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = dpus[i] / r->per_rank;
        if (v >= r->nr_vranks)
            continue;
        e->mask[v] = 1;
        e->lo = v < e->lo ? v : e->lo;
        e->hi = v > e->hi ? v : e->hi;
    }
    for (uint32_t v = e->lo; e->lo != UINT32_MAX && v <= e->hi; v++)
        if (e->mask[v])
            pthread_mutex_lock(&r->rank_lock[v]);
    return 0;
}

static void leave(struct remote *r, struct entered *e)
{
    if (!e->exclusive)
        for (uint32_t v = e->lo; e->lo != UINT32_MAX && v <= e->hi; v++)
            if (e->mask[v])
                pthread_mutex_unlock(&r->rank_lock[v]);
    pthread_rwlock_unlock(&r->ops);
    free(e->mask);
}

/* Forgets the prefetched reads of the ranks the operation entered. */
static void forget(struct remote *r, const struct entered *e)
{
    for (uint32_t v = 0; v < r->nr_vranks; v++)
        if (e->exclusive || e->mask[v])
            cache_forget_rank(r, v);
}

/* ---- the connection and its ranks ---------------------------------------------------- */

static void remote_close(struct op_backend *b)
{
    struct remote *r = R(b);
    char err[512];
    if (r->fd >= 0)
        cache_flush_writes(r, err, sizeof err); /* as the embedded machine: a write is done when it returns */
    rpc_fini(r); /* the daemon releases (and resets) whatever is still claimed */
    for (uint32_t v = 0; r->rank_lock && v < r->nr_vranks; v++)
        pthread_mutex_destroy(&r->rank_lock[v]);
    free(r->rank_lock);
    free(r->vmap);
    free(r->results);
    free(r->have_result);
    free(r->loaded);
    free(r->batch);
    for (uint32_t v = 0; r->pf && v < r->nr_vranks; v++) {
        free(r->pf[v].have);
        free(r->pf[v].data);
    }
    free(r->pf);
    free(r);
}

static void remote_info(struct op_backend *b, struct op_backend_info *out)
{
    *out = R(b)->hello.info;
}

/* What this backend knows of a rank's DPUs: their results, whether they hold a program. */
static void forget_results(struct remote *r, uint32_t vrank)
{
    memset(r->have_result + (size_t)vrank * r->per_rank, 0, r->per_rank);
    memset(r->loaded + (size_t)vrank * r->per_rank, 0, r->per_rank);
}

/* Claims between min and n of the SDK ranks listed (the first ones), in one
 * request: one wait in the daemon's queue for them all. */
static int remote_claim_ranks(struct op_backend *b, const uint32_t *ranks, uint32_t min, uint32_t n, char *err,
                              size_t errlen)
{
    struct remote *r = R(b);
    if (min == 0 || min > n)
        return rpc_fail(err, errlen, "a claim of %u to %u ranks", min, n);
    for (uint32_t i = 0; i < n; i++)
        if (ranks[i] >= r->nr_vranks)
            return rpc_fail(err, errlen, "no rank %u: the machine has %u", ranks[i], r->nr_vranks);
    struct entered e;
    enter_exclusive(r, &e);
    int rc = -1;
    uint32_t *got = malloc((size_t)n * sizeof *got);
    for (uint32_t i = 0; i < n && got; i++)
        if (r->vmap[ranks[i]] >= 0) {
            rpc_fail(err, errlen, "rank %u is in use", ranks[i]);
            goto out;
        }
    if (!got) {
        rpc_fail(err, errlen, "out of memory");
        goto out;
    }
    struct opd_claim req = {.wait_ms = r->wait_ms, .count = n, .min = min};
    struct waiter w = {.rep = got, .rep_len = (size_t)n * sizeof *got, .up_to = true, .extra_ms = r->wait_ms};
    if (rpc_send_request(r, OPD_CLAIM, &req, sizeof req, NULL, 0, NULL, 0, -1, &w, err, errlen) != 0 ||
        rpc_await(r, &w, err, errlen) != 0)
        goto out;
    uint32_t k = (uint32_t)(w.got / sizeof *got);
    for (uint32_t i = 0; i < k; i++)
        if (got[i] >= r->hello.cfg.desc.nr_ranks || w.got % sizeof *got || k < min) {
            rpc_lost(r, err, errlen, "the daemon handed out ranks it does not have");
            goto out;
        }
    for (uint32_t i = 0; i < k; i++) {
        r->vmap[ranks[i]] = got[i];
        forget_results(r, ranks[i]);
        cache_forget_rank(r, ranks[i]);
    }
    rc = (int)k;
out:
    free(got);
    leave(r, &e);
    return rc;
}

static int remote_claim_rank(struct op_backend *b, uint32_t rank, char *err, size_t errlen)
{
    return remote_claim_ranks(b, &rank, 1, 1, err, errlen) == 1 ? 0 : -1;
}

static void remote_release_rank(struct op_backend *b, uint32_t rank)
{
    struct remote *r = R(b);
    if (rank >= r->nr_vranks)
        return;
    struct entered e;
    enter_exclusive(r, &e);
    cache_forget_rank(r, rank);
    if (r->vmap[rank] >= 0) {
        struct opd_rank req = {.rank = (uint32_t)r->vmap[rank]};
        char err[256];
        rpc_call(r, OPD_RELEASE, &req, sizeof req, NULL, 0, NULL, 0, -1, NULL, 0, err, sizeof err);
        r->vmap[rank] = -1; /* released for us even if the daemon is gone (it reclaims) */
        forget_results(r, rank);
    }
    leave(r, &e);
}

/* ---- programs ------------------------------------------------------------------------ */

static struct op_backend_program *remote_program_open(struct op_backend *b, const void *elf, size_t len, char *err,
                                                      size_t errlen)
{
    struct remote *r = R(b);
    struct remote_program *p = calloc(1, sizeof *p);
    if (!p) {
        rpc_fail(err, errlen, "out of memory");
        return NULL;
    }
    struct entered e;
    enter_exclusive(r, &e);
    struct opd_program req = {.len = len};
    struct opd_handle got;
    int rc;
    if (len <= OPD_INLINE_MAX) {
        rc = rpc_call(r, OPD_PROGRAM_OPEN, &req, sizeof req, NULL, 0, elf, len, -1, &got, sizeof got, err, errlen);
    } else if (len > WINDOW_SIZE) {
        rc = rpc_fail(err, errlen, "a DPU program of %zu bytes is over the %llu MB the daemon takes", len,
                      WINDOW_SIZE >> 20);
    } else {
        pthread_mutex_lock(&r->win_lock);
        rc = rpc_window(r, err, errlen);
        if (rc == 0)
            rc = rpc_window_put(r, 0, &elf, 1, len, err, errlen);
        if (rc == 0) {
            req.data.where = OPD_SHM;
            rc = rpc_call(r, OPD_PROGRAM_OPEN, &req, sizeof req, NULL, 0, NULL, 0, -1, &got, sizeof got, err, errlen);
        }
        char later[512]; /* the puts' replies: after a failure, its message stays in err */
        if (rpc_wait_all(r, rc ? later : err, rc ? sizeof later : errlen) != 0)
            rc = -1;
        pthread_mutex_unlock(&r->win_lock);
    }
    leave(r, &e);
    if (rc != 0) {
        free(p);
        return NULL;
    }
    p->handle = got.handle;
    return (struct op_backend_program *)p;
}

static void remote_program_close(struct op_backend *b, struct op_backend_program *bp)
{
    struct remote *r = R(b);
    struct remote_program *p = (struct remote_program *)bp;
    if (!p)
        return;
    struct entered e;
    enter_exclusive(r, &e);
    struct opd_handle req = {.handle = p->handle};
    char err[256];
    /* not waited for: it cannot fail in a way the caller could act on, and
     * the daemon may still be resetting a rank released just before */
    rpc_send_detached(r, OPD_PROGRAM_CLOSE, &req, sizeof req, err, sizeof err);
    leave(r, &e);
    free(p);
}

/* A translated copy of a DPU list (free it). */
static uint32_t *dpu_list(struct remote *r, const uint32_t *dpus, uint32_t n, char *err, size_t errlen)
{
    uint32_t *out = malloc((n ? n : 1) * sizeof *out);
    if (!out) {
        rpc_fail(err, errlen, "out of memory");
        return NULL;
    }
    if (translate(r, dpus, n, out, err, errlen) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

static int remote_load(struct op_backend *b, const uint32_t *dpus, uint32_t n, struct op_backend_program *bp,
                       char *err, size_t errlen)
{
    struct remote *r = R(b);
    struct entered e;
    if (enter(r, dpus, n, &e, err, errlen) != 0)
        return -1;
    int rc = -1;
    forget(r, &e);
    uint32_t *list = dpu_list(r, dpus, n, err, errlen);
    if (list) {
        struct opd_load req = {.handle = ((struct remote_program *)bp)->handle, .n = n};
        rc = rpc_call(r, OPD_LOAD, &req, sizeof req, list, (size_t)n * 4, NULL, 0, -1, NULL, 0, err, errlen);
        for (uint32_t i = 0; rc == 0 && i < n; i++)
            r->loaded[dpus[i]] = 1;
        free(list);
    }
    leave(r, &e);
    return rc;
}

/* ---- memory ------------------------------------------------------------------------- */

static int check_room_locked(struct remote *r, const uint32_t *list, uint32_t n, uint32_t off, size_t len, char *err,
                             size_t errlen)
{
    struct opd_room req = {.off = off, .n = n, .len = len};
    return rpc_call(r, OPD_CHECK_ROOM, &req, sizeof req, list, (size_t)n * 4, NULL, 0, -1, NULL, 0, err, errlen);
}

/* One WRITE request of n DPUs (list) with nsrc sources of len bytes at off. */
static int write_piece(struct remote *r, const uint32_t *list, uint32_t n, enum op_region region, uint64_t off,
                       const void *const *src, uint32_t nsrc, size_t len, char *err, size_t errlen)
{
    struct opd_write req = {.region = (uint32_t)region, .off = (uint32_t)off, .n = n, .nsrc = nsrc, .len = len};
    size_t total = (size_t)nsrc * len;
    if (total > OPD_INLINE_MAX) {
        pthread_mutex_lock(&r->win_lock);
        int rc = rpc_window(r, err, errlen);
        if (rc == 0)
            rc = rpc_window_put(r, 0, src, nsrc, len, err, errlen);
        if (rc == 0) {
            req.data.where = OPD_SHM;
            rc = rpc_call(r, OPD_WRITE, &req, sizeof req, list, (size_t)n * 4, NULL, 0, -1, NULL, 0, err, errlen);
        }
        char later[512]; /* the puts' replies: after a failure, its message stays in err */
        if (rpc_wait_all(r, rc ? later : err, rc ? sizeof later : errlen) != 0)
            rc = -1;
        pthread_mutex_unlock(&r->win_lock);
        return rc;
    }
    if (nsrc == 1)
        return rpc_call(r, OPD_WRITE, &req, sizeof req, list, (size_t)n * 4, src[0], total, -1, NULL, 0, err, errlen);
    uint8_t *stage = malloc(total ? total : 1);
    if (!stage)
        return rpc_fail(err, errlen, "out of memory");
    for (uint32_t i = 0; i < nsrc; i++)
        memcpy(stage + (size_t)i * len, src[i], len);
    int rc = rpc_call(r, OPD_WRITE, &req, sizeof req, list, (size_t)n * 4, stage, total, -1, NULL, 0, err, errlen);
    free(stage);
    return rc;
}

/* Large writes (and reads, read_pipelined) in pieces through two halves of
 * the window, two requests in flight: with shared memory, the client fills
 * one half while the daemon copies the other out, so the two copies overlap;
 * streaming, every piece's WINDOW_PUTs and its WRITE go out without waiting
 * (the daemon takes them in order), so the connection never idles.  Under
 * win_lock. */
#define HALF (4ull << 20)          /* one piece (a round trip per 4 MB is ~1 % of its copies) */
#define PIPELINE_MIN (2ull << 20) /* below this, one request (its round trip costs more than the overlap gains) */
_Static_assert(2 * HALF <= WINDOW_SIZE && PIPELINE_MIN <= WINDOW_SIZE, "two pieces, or one smaller request, fit the window");
struct pipeline {
    uint32_t seq[2]; /* the last WRITE from each half (0: none) */
    unsigned next_half;
    int rc; /* -1: failed, its message in err; 1: stopped, a reply's error is still to be read */
};

/* Issues one WRITE of n DPUs with nsrc sources of len (<= HALF) bytes. */
static int pipe_write(struct remote *r, struct pipeline *pl, const uint32_t *list, uint32_t n, enum op_region region,
                      uint64_t off, const void *const *src, uint32_t nsrc, size_t len, char *err, size_t errlen)
{
    unsigned h = pl->next_half;
    if (pl->rc == 0 && rpc_posted_failed(r))
        pl->rc = 1; /* an earlier piece failed: pipe_drain reports it */
    if (pl->rc != 0)
        return -1;
    /* shared memory: the daemon must be done with this half before it is refilled */
    if (!r->stream && pl->seq[h] && rpc_wait(r, pl->seq[h], err, errlen) != 0)
        return pl->rc = -1;
    struct opd_write req = {.region = (uint32_t)region, .off = (uint32_t)off, .n = n, .nsrc = nsrc, .len = len,
                            .data = {.where = OPD_SHM, .shm_off = (uint64_t)h * HALF}};
    if (rpc_window_put(r, (uint64_t)h * HALF, src, nsrc, len, err, errlen) != 0 ||
        rpc_post(r, OPD_WRITE, &req, sizeof req, list, (size_t)n * 4, NULL, 0, -1, NULL, 0, &pl->seq[h], err,
                 errlen) != 0)
        return pl->rc = -1;
    pl->next_half ^= 1;
    return 0;
}

/* Every reply read; the first error's message in err. */
static int pipe_drain(struct remote *r, struct pipeline *pl, char *err, size_t errlen)
{
    char later[512];
    int rc = rpc_wait_all(r, pl->rc < 0 ? later : err, pl->rc < 0 ? sizeof later : errlen);
    return pl->rc || rc ? -1 : 0;
}

static int remote_write(struct op_backend *b, const uint32_t *dpus, uint32_t n, enum op_region region, uint32_t off,
                        const void *const *src, uint32_t nsrc, size_t len, char *err, size_t errlen)
{
    struct remote *r = R(b);
    if (nsrc != 1 && nsrc != n)
        return rpc_fail(err, errlen, "write: %u sources for %u DPUs", nsrc, n);
    struct entered e;
    if (enter(r, dpus, n, &e, err, errlen) != 0)
        return -1;
    forget(r, &e);
    int rc = -1;
    uint32_t *list = dpu_list(r, dpus, n, err, errlen);
    if (!list)
        goto out;
    size_t total = (size_t)nsrc * len;
    int kept = cache_batch_write(r, list, n, region, off, src, nsrc, len, err, errlen);
    if (kept != 0) {
        rc = kept > 0 ? 0 : -1;
        goto out;
    }
    if (total < PIPELINE_MIN) { /* one request: all or none, as the embedded machine */
        rc = write_piece(r, list, n, region, off, src, nsrc, len, err, errlen);
        goto out;
    }
    /* several requests: the memory limit is checked for the whole first (a
     * broadcast is stored once on the daemon's machine: as for one DPU) */
    if (region == OP_REGION_MRAM &&
        (rc = check_room_locked(r, list, nsrc == 1 ? 1 : n, off, len, err, errlen)) != 0)
        goto out;
    pthread_mutex_lock(&r->win_lock);
    if ((rc = rpc_window(r, err, errlen)) == 0) {
        struct pipeline pl = {.rc = 0};
        if (nsrc == n && len <= HALF) { /* groups of whole DPUs */
            uint32_t group = (uint32_t)(HALF / len);
            for (uint32_t i = 0; i < n && pl.rc == 0; i += group) {
                uint32_t k = n - i < group ? n - i : group;
                pipe_write(r, &pl, list + i, k, region, off, src + i, k, len, err, errlen);
            }
        } else { /* pieces of every DPU's range: all DPUs for a broadcast, one by one otherwise */
            uint32_t step = nsrc == 1 ? n : 1;
            for (uint32_t i = 0; i < n && pl.rc == 0; i += step)
                for (size_t at = 0; at < len && pl.rc == 0; at += HALF) {
                    size_t piece = len - at < HALF ? len - at : HALF;
                    const void *one = (const uint8_t *)src[nsrc == 1 ? 0 : i] + at;
                    pipe_write(r, &pl, list + i, step, region, off + at, &one, 1, piece, err, errlen);
                }
        }
        rc = pipe_drain(r, &pl, err, errlen);
    }
    pthread_mutex_unlock(&r->win_lock);
out:
    free(list);
    leave(r, &e);
    return rc;
}

static int remote_check_room(struct op_backend *b, const uint32_t *dpus, uint32_t n, uint32_t off, size_t len,
                             char *err, size_t errlen)
{
    struct remote *r = R(b);
    struct entered e;
    if (enter(r, dpus, n, &e, err, errlen) != 0)
        return -1;
    int rc = -1;
    uint32_t *list = dpu_list(r, dpus, n, err, errlen);
    if (list)
        rc = check_room_locked(r, list, n, off, len, err, errlen);
    free(list);
    leave(r, &e);
    return rc;
}

/* A large read in pieces through two parts of the window, two requests in
 * flight: the daemon fills one part while the client copies the other out. */
static int read_pipelined(struct remote *r, uint32_t p, enum op_region region, uint32_t off, void *dst, size_t len,
                          char *err, size_t errlen)
{
    if (rpc_window(r, err, errlen) != 0)
        return -1;
    size_t pieces = (len + HALF - 1) / HALF;
    uint32_t seq[2];
    int rc = 0; /* -1: failed, its message in err */
    /* piece k goes to half k % 2; it is copied out once piece k + 1 is on its way */
    for (size_t k = 0; k <= pieces && !rpc_posted_failed(r); k++) { /* a failed piece ends it */
        if (k < pieces) {
            size_t at = k * HALF, piece = len - at < HALF ? len - at : HALF;
            struct opd_read req = {.dpu = p, .region = (uint32_t)region, .off = (uint32_t)(off + at), .len = piece,
                                   .data = {.where = OPD_SHM, .shm_off = k % 2 * HALF}};
            if (rpc_post(r, OPD_READ, &req, sizeof req, NULL, 0, NULL, 0, -1, NULL, 0, &seq[k % 2], err, errlen) != 0)
                return -1; /* the connection is lost: nothing more to read */
        }
        if (k >= 1) {
            size_t at = (k - 1) * HALF, piece = len - at < HALF ? len - at : HALF;
            /* shared memory: the piece must be there; streaming: the daemon takes the GETs in order */
            if (!r->stream && rpc_wait(r, seq[(k - 1) % 2], err, errlen) != 0) {
                rc = -1;
                break;
            }
            if (rpc_window_get(r, (k - 1) % 2 * HALF, (uint8_t *)dst + at, piece, err, errlen) != 0)
                return -1;
        }
    }
    char later[512];
    if (rpc_wait_all(r, rc ? later : err, rc ? sizeof later : errlen) != 0)
        rc = -1;
    return rc;
}

static int remote_read(struct op_backend *b, uint32_t dpu, enum op_region region, uint32_t off, void *dst, size_t len,
                       char *err, size_t errlen)
{
    struct remote *r = R(b);
    struct entered e;
    if (enter(r, &dpu, 1, &e, err, errlen) != 0)
        return -1;
    uint32_t p = 0;
    int rc = translate(r, &dpu, 1, &p, err, errlen);
    if (rc == 0 && r->prefetch_on && len && len <= PREFETCH_MAX && r->per_rank <= 64) {
        int served = cache_prefetch_read(r, dpu, (uint32_t)region, off, dst, len, err, errlen);
        if (served != 0) {
            leave(r, &e);
            return served < 0 ? -1 : 0;
        }
    }
    if (rc == 0 && len >= PIPELINE_MIN) {
        pthread_mutex_lock(&r->win_lock);
        rc = read_pipelined(r, p, region, off, dst, len, err, errlen);
        pthread_mutex_unlock(&r->win_lock);
    } else if (rc == 0) { /* one request: inline, or through the window (len < PIPELINE_MIN < WINDOW_SIZE) */
        struct opd_read req = {.dpu = p, .region = (uint32_t)region, .off = off, .len = len};
        if (len <= OPD_INLINE_MAX) {
            rc = rpc_call(r, OPD_READ, &req, sizeof req, NULL, 0, NULL, 0, -1, dst, len, err, errlen);
        } else {
            pthread_mutex_lock(&r->win_lock);
            if ((rc = rpc_window(r, err, errlen)) == 0) {
                req.data.where = OPD_SHM;
                rc = rpc_call(r, OPD_READ, &req, sizeof req, NULL, 0, NULL, 0, -1, NULL, 0, err, errlen);
                if (rc == 0 && (rc = rpc_window_get(r, 0, dst, len, err, errlen)) == 0)
                    rc = rpc_wait_all(r, err, errlen);
            }
            pthread_mutex_unlock(&r->win_lock);
        }
    }
    leave(r, &e);
    return rc;
}

/* A transfer from several DPUs: with the prefetch on (vPIM's batching of
 * reads, which the transfer's DPU list makes exact: nothing is read that the
 * program does not read), one READ_GATHER per window's worth of DPUs instead
 * of a round trip per DPU; else, or for large reads (pipelined one by one),
 * DPU by DPU. */
static int remote_read_many(struct op_backend *b, const uint32_t *dpus, uint32_t n, enum op_region region,
                            uint32_t off, void *const *dst, size_t len, char *err, size_t errlen)
{
    struct remote *r = R(b);
    if (!r->prefetch_on || n < 2 || len == 0 || len >= PIPELINE_MIN) {
        for (uint32_t i = 0; i < n; i++)
            if (remote_read(b, dpus[i], region, off, dst[i], len, err, errlen) != 0)
                return -1;
        return 0;
    }
    struct entered e;
    if (enter(r, dpus, n, &e, err, errlen) != 0)
        return -1;
    int rc = -1;
    uint32_t *list = dpu_list(r, dpus, n, err, errlen);
    uint32_t group = (uint32_t)(WINDOW_SIZE / len); /* >= 16: len < PIPELINE_MIN */
    for (uint32_t i = 0; list && i < n; i += group) {
        uint32_t k = n - i < group ? n - i : group;
        if ((rc = rpc_read_gather(r, (uint32_t)region, off, list + i, k, len, dst + i, err, errlen)) != 0)
            break;
    }
    free(list);
    leave(r, &e);
    return rc;
}

/* The rank view in pieces of whole lines (64 bytes = 8 bytes of each of the 8 DPUs). */
static int view(struct op_backend *b, const uint32_t dpus[8], uint64_t off, uint8_t *lines, size_t size, int write,
                char *err, size_t errlen)
{
    struct remote *r = R(b);
    struct entered e;
    if (enter(r, dpus, 8, &e, err, errlen) != 0)
        return -1;
    if (write)
        forget(r, &e);
    struct opd_view req;
    memset(&req, 0, sizeof req);
    int rc = translate(r, dpus, 8, req.dpus, err, errlen);
    uint16_t op = write ? OPD_VIEW_WRITE : OPD_VIEW_READ;
    for (size_t at = 0; rc == 0 && (at < size || size == 0);) {
        size_t piece = size - at < WINDOW_SIZE ? size - at : WINDOW_SIZE;
        req.off = off + at / 8;
        req.size = piece;
        if (piece <= OPD_INLINE_MAX) {
            req.data.where = OPD_INLINE;
            rc = write ? rpc_call(r, op, &req, sizeof req, NULL, 0, lines + at, piece, -1, NULL, 0, err, errlen)
                       : rpc_call(r, op, &req, sizeof req, NULL, 0, NULL, 0, -1, lines + at, piece, err, errlen);
        } else {
            pthread_mutex_lock(&r->win_lock);
            if ((rc = rpc_window(r, err, errlen)) == 0) {
                req.data.where = OPD_SHM;
                const void *from = lines + at;
                if (write)
                    rc = rpc_window_put(r, 0, &from, 1, piece, err, errlen);
                if (rc == 0)
                    rc = rpc_call(r, op, &req, sizeof req, NULL, 0, NULL, 0, -1, NULL, 0, err, errlen);
                char later[512];
                if (write && rpc_wait_all(r, rc ? later : err, rc ? sizeof later : errlen) != 0)
                    rc = -1;
                if (rc == 0 && !write && (rc = rpc_window_get(r, 0, lines + at, piece, err, errlen)) == 0)
                    rc = rpc_wait_all(r, err, errlen);
            }
            pthread_mutex_unlock(&r->win_lock);
        }
        at += piece;
        if (size == 0)
            break;
    }
    leave(r, &e);
    return rc;
}

static int remote_view_write(struct op_backend *b, const uint32_t dpus[8], uint64_t off, const void *lines,
                             size_t size, char *err, size_t errlen)
{
    return view(b, dpus, off, (uint8_t *)lines, size, 1, err, errlen);
}

static int remote_view_read(struct op_backend *b, const uint32_t dpus[8], uint64_t off, void *lines, size_t size,
                            char *err, size_t errlen)
{
    return view(b, dpus, off, lines, size, 0, err, errlen);
}

/* ---- launches ----------------------------------------------------------------------- */

static int remote_launch_watched(struct op_backend *b, const uint32_t *dpus, uint32_t n, op_watch_fn *watch,
                                 void *arg, char *err, size_t errlen)
{
    struct remote *r = R(b);
    struct entered e;
    if (enter(r, dpus, n, &e, err, errlen) != 0)
        return -1;
    forget(r, &e);
    int rc = -1;
    uint32_t *list = dpu_list(r, dpus, n, err, errlen);
    struct op_dpu_status *st = malloc((n ? n : 1) * sizeof *st);
    if (list && st) {
        struct opd_count req = {.n = n};
        struct waiter w = {.rep = st, .rep_len = (size_t)n * sizeof *st, .progress = watch, .progress_arg = arg};
        rc = rpc_send_request(r, OPD_LAUNCH, &req, sizeof req, list, (size_t)n * 4, NULL, 0, -1, &w, err, errlen);
        if (rc == 0)
            rc = rpc_await(r, &w, err, errlen);
        for (uint32_t i = 0; rc == 0 && i < n; i++) {
            st[i].fault_msg[sizeof st[i].fault_msg - 1] = 0;
            r->results[dpus[i]] = st[i];
            r->have_result[dpus[i]] = 1;
        }
    } else if (list) {
        rpc_fail(err, errlen, "out of memory");
    }
    free(st);
    free(list);
    leave(r, &e);
    return rc;
}

static int remote_launch(struct op_backend *b, const uint32_t *dpus, uint32_t n, char *err, size_t errlen)
{
    return remote_launch_watched(b, dpus, n, NULL, NULL, err, errlen);
}

static void remote_result(struct op_backend *b, uint32_t dpu, struct op_dpu_status *out)
{
    struct remote *r = R(b);
    memset(out, 0, sizeof *out);
    struct entered e;
    char err[256];
    if (enter(r, &dpu, 1, &e, err, sizeof err) != 0)
        return;
    int64_t p = phys(r, dpu);
    if (p >= 0 && r->have_result[dpu]) {
        *out = r->results[dpu];
    } else if (p >= 0) {
        struct opd_dpu req = {.dpu = (uint32_t)p};
        if (rpc_call(r, OPD_RESULT, &req, sizeof req, NULL, 0, NULL, 0, -1, out, sizeof *out, err, sizeof err) != 0)
            memset(out, 0, sizeof *out);
        out->fault_msg[sizeof out->fault_msg - 1] = 0;
    }
    leave(r, &e);
}

static void remote_memory(struct op_backend *b, uint64_t *used, uint64_t *limit)
{
    struct remote *r = R(b);
    /* the figure of the daemon's last reply: every reply carries it */
    if (used)
        *used = atomic_load(&r->mem_used);
    if (limit)
        *limit = r->mem_limit;
}

static const struct op_backend_ops remote_ops = {
    .name = "remote",
    .close = remote_close,
    .info = remote_info,
    .claim_rank = remote_claim_rank,
    .release_rank = remote_release_rank,
    .claim_ranks = remote_claim_ranks,
    .program_open = remote_program_open,
    .program_close = remote_program_close,
    .load = remote_load,
    .write = remote_write,
    .check_room = remote_check_room,
    .read = remote_read,
    .read_many = remote_read_many,
    .view_write = remote_view_write,
    .view_read = remote_view_read,
    .launch = remote_launch,
    .launch_watched = remote_launch_watched,
    .result = remote_result,
    .memory = remote_memory,
};

struct op_backend *op_backend_remote_open(const struct op_machine_config *cfg, char *err, size_t errlen)
{
    struct remote *r = calloc(1, sizeof *r);
    if (!r) {
        rpc_fail(err, errlen, "out of memory");
        return NULL;
    }
    r->base.ops = &remote_ops;
    rpc_init(r, cfg);
    if (rpc_connect(r, err, errlen) != 0 || rpc_hello(r, cfg->token, err, errlen) != 0)
        goto fail;
    if (memcmp(&r->hello.cfg.desc, &cfg->desc, sizeof cfg->desc) != 0) {
        rpc_fail(err, errlen,
                 "openpimd at %s serves another machine (%s, %u ranks of %u DPUs) than the profile asks for (%s, %u "
                 "ranks of %u DPUs)",
                 r->path, r->hello.cfg.desc.name, r->hello.cfg.desc.nr_ranks, r->hello.info.dpus_per_rank,
                 cfg->desc.name, cfg->desc.nr_ranks, cfg->desc.chips_per_rank * cfg->desc.dpus_per_chip);
        goto fail;
    }
    r->per_rank = r->hello.info.dpus_per_rank;
    r->nr_vranks = cfg->desc.nr_ranks;
    r->wait_ms = cfg->alloc_wait_ms;
    if (r->per_rank == 0 || r->hello.info.nr_dpus != r->nr_vranks * r->per_rank) {
        rpc_fail(err, errlen, "openpimd at %s describes an inconsistent machine", r->path);
        goto fail;
    }
    r->vmap = malloc(r->nr_vranks * sizeof *r->vmap);
    r->rank_lock = malloc(r->nr_vranks * sizeof *r->rank_lock);
    r->results = calloc(r->hello.info.nr_dpus, sizeof *r->results);
    r->have_result = calloc(r->hello.info.nr_dpus, 1);
    r->loaded = calloc(r->hello.info.nr_dpus, 1);
    r->pf = calloc(r->nr_vranks, sizeof *r->pf);
    if (!r->vmap || !r->rank_lock || !r->results || !r->have_result || !r->loaded || !r->pf) {
        free(r->rank_lock);
        r->rank_lock = NULL;
        rpc_fail(err, errlen, "out of memory");
        goto fail;
    }
    for (uint32_t i = 0; i < r->nr_vranks; i++) {
        r->vmap[i] = -1;
        pthread_mutex_init(&r->rank_lock[i], NULL);
    }
    r->mem_limit = r->hello.memory_limit;
    r->prefetch_on = cfg->prefetch; /* profile keys remotePrefetch, remoteBatch or the environment (sdk/profile.c) */
    r->batch_on = cfg->batch;
    for (uint32_t v = 0; r->prefetch_on && v < r->nr_vranks; v++) {
        r->pf[v].have = calloc(r->per_rank, 1); /* data: on first use */
        if (!r->pf[v].have) {
            rpc_fail(err, errlen, "out of memory");
            goto fail;
        }
    }
    return &r->base;
fail:
    remote_close(&r->base);
    return NULL;
}
