/* SPDX-License-Identifier: MIT */
/* vPIM's two optimisations of the remote backend: batching of small writes
 * (every operation exclusive while it is on) and prefetch of small reads (per
 * rank, under the rank's lock). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote_internal.h"

/* ---- batching of small writes ----------------------------------------------------- */

/* vPIM's write batching, off unless remoteBatch=true (OPENPIM_REMOTE_BATCH=1): a small write
 * whose DPUs, region and range check out here is kept and sent with the
 * others in one WRITE_BATCH before the next request of any other kind.  What
 * the daemon alone can refuse (its host memory limit) then fails that next
 * request, with the reason, instead of the write itself. */
#define BATCH_ENTRY_MAX 4096u          /* bytes of one batched write request */
#define BATCH_BYTES OPD_INLINE_MAX     /* bytes of a batch */

int cache_flush_writes(struct remote *r, char *err, size_t errlen)
{
    if (!r->batch_count)
        return 0;
    struct opd_batch req = {.count = r->batch_count};
    size_t len = r->batch_len;
    r->batch_count = 0;
    r->batch_len = 0;
    char why[400];
    if (rpc_call(r, OPD_WRITE_BATCH, &req, sizeof req, r->batch, len, NULL, 0, -1, NULL, 0, why, sizeof why) != 0) {
        rpc_fail(err, errlen, "an earlier write (batched, remoteBatch) failed: %s", why);
        fprintf(stderr, "openpim: %s\n", err); /* also when the request that flushed cannot report it */
        return -1;
    }
    return 0;
}

/* Keeps a small write for the next batch: 1 kept, 0 not (send it now), -1 error. */
int cache_batch_write(struct remote *r, const uint32_t *list, uint32_t n, enum op_region region, uint32_t off,
                      const void *const *src, uint32_t nsrc, size_t len, char *err, size_t errlen)
{
    size_t body = sizeof(struct opd_write) + (size_t)n * 4 + (size_t)nsrc * len;
    uint64_t size = region == OP_REGION_MRAM ? r->hello.info.mram_size : region == OP_REGION_WRAM ? OP_WRAM_STRIDE : 0;
    if (!r->batch_on || body > BATCH_ENTRY_MAX || !size || off > size || len > size - off)
        return 0; /* the daemon's reply reports what is wrong */
    for (uint32_t i = 0; i < n; i++) /* the SDK never names a DPU twice; the daemon would refuse the batch */
        for (uint32_t k = 0; k < i; k++)
            if (list[k] == list[i])
                return 0;
    size_t entry = 8 + (body + 7) / 8 * 8;
    if (r->batch_len + entry > BATCH_BYTES && cache_flush_writes(r, err, errlen) != 0)
        return -1;
    if (!r->batch && !(r->batch = malloc(BATCH_BYTES)))
        return 0;
    uint8_t *at = r->batch + r->batch_len;
    uint64_t blen = body;
    struct opd_write w = {.region = (uint32_t)region, .off = off, .n = n, .nsrc = nsrc, .len = len};
    memcpy(at, &blen, 8);
    memcpy(at + 8, &w, sizeof w);
    memcpy(at + 8 + sizeof w, list, (size_t)n * 4);
    uint8_t *data = at + 8 + sizeof w + (size_t)n * 4;
    for (uint32_t i = 0; i < nsrc; i++)
        memcpy(data + (size_t)i * len, src[i], len);
    memset(at + 8 + body, 0, entry - 8 - body);
    r->batch_len += entry;
    r->batch_count++;
    if (r->batch_count == OPD_BATCH_MAX && cache_flush_writes(r, err, errlen) != 0)
        return -1;
    return 1;
}

/* ---- the prefetch cache -------------------------------------------------------- */

void cache_forget_rank(struct remote *r, uint32_t vrank)
{
    if (r->pf && vrank < r->nr_vranks)
        r->pf[vrank].valid = r->pf[vrank].seen = false;
}

/* Serves a read from the cache, or fills the cache when the pattern repeats:
 * 1 served, 0 not (read directly), -1 error. */
int cache_prefetch_read(struct remote *r, uint32_t dpu, uint32_t region, uint32_t off, void *dst, size_t len,
                        char *err, size_t errlen)
{
    uint32_t vr = dpu / r->per_rank, idx = dpu % r->per_rank;
    struct prefetch *p = &r->pf[vr];
    if (p->valid && p->region == region && off >= p->off && len <= p->len && off - p->off <= p->len - len &&
        p->have[idx]) {
        memcpy(dst, p->data + (size_t)idx * p->len + (off - p->off), len);
        return 1;
    }
    bool repeat = p->seen && p->region == region && p->off == off && p->len == len && p->last != idx;
    p->seen = true;
    p->region = region;
    p->off = off;
    p->len = (uint32_t)len;
    p->last = idx;
    p->valid = false;
    if (!repeat)
        return 0;
    if (!p->data && !(p->data = malloc((size_t)r->per_rank * PREFETCH_MAX)))
        return 0;
    /* this DPU and the rank's later ones, as the SDK goes through them; only
     * DPUs with a program (the set's), so that no memory is read that the
     * program would not read (reading WRAM backs its pages) */
    uint32_t n = 0, list[64], at[64];
    void *to[64];
    for (uint32_t i = idx; i < r->per_rank; i++)
        if (i == idx || r->loaded[vr * r->per_rank + i]) {
            at[n] = i;
            to[n] = p->data + (size_t)i * len;
            list[n++] = (uint32_t)(r->vmap[vr] * r->per_rank + i);
        }
    if (rpc_read_gather(r, region, off, list, n, len, to, err, errlen) != 0)
        return rpc_dead(r) ? -1 : 0; /* the direct read reports what is wrong */
    memset(p->have, 0, r->per_rank);
    for (uint32_t k = 0; k < n; k++)
        p->have[at[k]] = 1;
    p->valid = true;
    memcpy(dst, p->data + (size_t)idx * len, len);
    return 1;
}

/* ---- operations ------------------------------------------------------------- */
