/* SPDX-License-Identifier: MIT */
/* Emulated MRAM, host side: each DPU's own pages in its rank's memfd, and
 * the stores of chunks that the DPUs of a pool share until they write them
 * (abi/shared.h, "Shared MRAM").  A broadcast of whole chunks is stored once
 * per pool: 64 MB sent to 2,560 DPUs costs 64 MB of host memory, not 160 GB.
 *
 * The host maps every DPU's MRAM in one range (m->mram); a shared chunk is
 * mapped there read-only from its pool's store.  Writers first make their range the
 * DPU's own (op_machine_mram_prepare); a worker does the same for DPU code in
 * its fault handler and bumps the DPU's generation, after which the host
 * remaps that DPU before it next looks at it (op_machine_mram). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "machine_internal.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

static _Atomic uint32_t *chunks(struct op_machine *m, uint32_t dpu)
{
    struct op_pool *p = op_pool_of(m, dpu);
    return p ? op_ctrl_chunks(p->ctrl, dpu) : m->no_chunks;
}

static uint64_t nr_slots(const struct op_machine *m)
{
    return (uint64_t)m->nr_dpus * m->nr_chunks;
}

/* A slot reference read from a control block workers write: usable only if
 * it names a slot of the store (else the DPU's own chunk). */
static uint32_t slot_ref(const struct op_machine *m, _Atomic uint32_t *map, uint32_t c)
{
    uint32_t r = atomic_load(&map[c]);
    return r <= nr_slots(m) ? r : 0;
}

int op_mram_file(const struct op_machine *m, uint32_t dpu, uint64_t *off)
{
    *off = op_rank_mram_offset(m->per_rank, dpu % m->per_rank, m->mram_size);
    return m->rank_fd[dpu / m->per_rank];
}

int op_mram_init(struct op_machine *m, char *err, size_t errlen)
{
    m->host_gen = calloc(m->nr_dpus, sizeof *m->host_gen);
    m->no_chunks = calloc(m->nr_chunks ? m->nr_chunks : 1, sizeof *m->no_chunks);
    if (!m->host_gen || !m->no_chunks)
        return op_fail(err, errlen, "out of memory");
    return 0;
}

void op_mram_fini(struct op_machine *m)
{
    free(m->host_gen);
    free(m->no_chunks);
}

int op_store_init(struct op_pool *p, char *err, size_t errlen)
{
    struct op_machine *m = p->m;
    pthread_mutex_init(&p->store_lock, NULL);
    p->store_fd = op_make_memfd("openpim-store", nr_slots(m) * OP_MRAM_CHUNK);
    p->slot_used = calloc(nr_slots(m) ? nr_slots(m) : 1, 1);
    if (p->store_fd < 0 || !p->slot_used)
        return op_fail(err, errlen, "cannot create the store of shared MRAM: %s", strerror(errno));
    if (nr_slots(m)) {
        p->store = mmap(NULL, nr_slots(m) * OP_MRAM_CHUNK, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
                        p->store_fd, 0);
        if (p->store == MAP_FAILED) {
            p->store = NULL;
            return op_fail(err, errlen, "cannot map the store of shared MRAM: %s", strerror(errno));
        }
    }
    return 0;
}

void op_store_fini(struct op_pool *p)
{
    if (p->store)
        munmap(p->store, nr_slots(p->m) * OP_MRAM_CHUNK);
    if (p->store_fd >= 0)
        close(p->store_fd);
    pthread_mutex_destroy(&p->store_lock);
    free(p->slot_used);
}

/* Maps chunks [c0, c1) of the DPU in the host's range as its chunk map says. */
static int map_chunks(struct op_machine *m, uint32_t dpu, uint32_t c0, uint32_t c1)
{
    _Atomic uint32_t *map = chunks(m, dpu);
    struct op_pool *p = op_pool_of(m, dpu);
    uint8_t *base = m->mram + (uint64_t)dpu * m->mram_size;
    uint64_t own;
    int fd = op_mram_file(m, dpu, &own);
    for (uint32_t c = c0, e; c < c1; c = e) {
        e = op_chunk_run(map, c, c1);
        uint32_t r = slot_ref(m, map, c);
        if (r && (uint64_t)r - 1 + (e - c) > nr_slots(m)) /* a run a worker made up: chunk by chunk */
            e = c + 1;
        void *at = base + (uint64_t)c * OP_MRAM_CHUNK;
        size_t len = (size_t)(e - c) * OP_MRAM_CHUNK;
        void *got = r && p ? mmap(at, len, PROT_READ, MAP_SHARED | MAP_FIXED, p->store_fd, (off_t)(r - 1) * OP_MRAM_CHUNK)
                           : mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
                                  (off_t)(own + (uint64_t)c * OP_MRAM_CHUNK));
        if (got == MAP_FAILED)
            return -1;
    }
    return 0;
}

/* The DPU's chunk map changed here; the caller maps [c0, c1) anew, after
 * which the host's mapping shows the map (or, if mapping failed, is remapped
 * whole at the next op_machine_mram). */
static int changed_here(struct op_machine *m, uint32_t dpu, uint32_t c0, uint32_t c1)
{
    struct op_pool *p = op_pool_of(m, dpu);
    uint32_t gen = p ? atomic_fetch_add(&op_ctrl_gen(p->ctrl)[dpu], 1) + 1 : m->host_gen[dpu] + 1;
    int rc = map_chunks(m, dpu, c0, c1);
    m->host_gen[dpu] = rc == 0 ? gen : gen - 1;
    return rc;
}

uint8_t *op_machine_mram(struct op_machine *m, uint32_t dpu)
{
    struct op_pool *p = op_pool_of(m, dpu);
    uint32_t gen = p ? atomic_load(&op_ctrl_gen(p->ctrl)[dpu]) : m->host_gen[dpu];
    if (gen != m->host_gen[dpu] && map_chunks(m, dpu, 0, m->nr_chunks) == 0) /* a worker changed it */
        m->host_gen[dpu] = gen;
    return m->mram + (uint64_t)dpu * m->mram_size;
}

static void drop_slot(struct op_machine *m, uint32_t dpu, uint32_t ref)
{
    struct op_pool *p = op_pool_of(m, dpu);
    if (p && ref && ref <= nr_slots(m))
        atomic_fetch_sub(&op_ctrl_slot_refs(p->ctrl)[ref - 1], 1);
}

/* Makes chunk c of the DPU its own: with the shared bytes (copy), or with
 * whatever (the caller overwrites all of it). */
static int own_chunk(struct op_machine *m, uint32_t dpu, uint32_t c, int copy)
{
    _Atomic uint32_t *map = chunks(m, dpu);
    struct op_pool *pool = op_pool_of(m, dpu);
    uint32_t r = slot_ref(m, map, c);
    if (!pool || !atomic_load(&map[c]))
        return 0;
    uint64_t base;
    int fd = op_mram_file(m, dpu, &base);
    off_t own = (off_t)(base + (uint64_t)c * OP_MRAM_CHUNK);
    unsigned char vec[OP_MRAM_CHUNK / 4096];
    const uint8_t *from = r ? pool->store + (uint64_t)(r - 1) * OP_MRAM_CHUNK : NULL;
    if (!from || (copy && mincore((void *)from, OP_MRAM_CHUNK, vec) != 0))
        memset(vec, from ? 1 : 0, sizeof vec);
    for (size_t p = 0; copy && p < sizeof vec; p++) /* pages never written stay unbacked */
        if ((vec[p] & 1) && pwrite(fd, from + p * 4096, 4096, own + (off_t)(p * 4096)) != 4096)
            return -1;
    atomic_store(&map[c], 0);
    drop_slot(m, dpu, r);
    return changed_here(m, dpu, c, c + 1);
}

int op_machine_mram_prepare(struct op_machine *m, uint32_t dpu, uint64_t off, uint64_t len, char *err, size_t errlen)
{
    op_machine_mram(m, dpu);
    if (!len)
        return 0;
    uint64_t end = off + len;
    for (uint64_t c = off / OP_MRAM_CHUNK; c < m->nr_chunks && c * OP_MRAM_CHUNK < end; c++) {
        uint64_t lo = c * OP_MRAM_CHUNK, hi = lo + OP_MRAM_CHUNK;
        if (own_chunk(m, dpu, (uint32_t)c, !(off <= lo && end >= hi)) != 0)
            return op_fail(err, errlen, "cannot copy a shared MRAM chunk of DPU %u: %s", dpu, strerror(errno));
    }
    return 0;
}

static uint64_t file_bytes(int fd)
{
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 ? (uint64_t)st.st_blocks * 512u : 0;
}

/* Under the machine's lock (the list of pools). */
static uint64_t memory_used(const struct op_machine *m, const struct op_pool *except)
{
    uint64_t used = 0;
    for (uint32_t r = 0; r < m->nr_ranks; r++)
        if (!except || atomic_load(&m->pool_of[r]) != except)
            used += file_bytes(m->rank_fd[r]);
    for (const struct op_pool *p = m->pools; p; p = p->next)
        if (p != except)
            used += file_bytes(p->store_fd);
    return used;
}

uint64_t op_machine_memory_used(const struct op_machine *m)
{
    pthread_mutex_lock((pthread_mutex_t *)&m->lock);
    uint64_t used = memory_used(m, NULL);
    pthread_mutex_unlock((pthread_mutex_t *)&m->lock);
    return used;
}

uint64_t op_machine_pool_memory_used(const struct op_machine *m, const struct op_pool *p)
{
    pthread_mutex_lock((pthread_mutex_t *)&m->lock);
    uint64_t used = file_bytes(p->store_fd);
    for (uint32_t r = 0; r < m->nr_ranks; r++)
        if (atomic_load(&m->pool_of[r]) == p)
            used += file_bytes(m->rank_fd[r]);
    pthread_mutex_unlock((pthread_mutex_t *)&m->lock);
    return used;
}

uint64_t op_machine_memory_elsewhere(const struct op_machine *m, const struct op_pool *p)
{
    return memory_used(m, p);
}

/* Bytes of [off, off+len) of DPU dpu's MRAM that writing would back anew:
 * pages not resident in the host's mapping of the memfd, and whole shared
 * chunks (the write copies them).  mincore() looks at these pages only, so
 * the cost follows the transfer, not how full the machine is. */
static uint64_t holes(struct op_machine *m, uint32_t dpu, uint64_t off, uint64_t len)
{
    if (!len)
        return 0;
    uint64_t page = 4096, lo = off / page * page, hi = (off + len + page - 1) / page * page;
    _Atomic uint32_t *map = chunks(m, dpu);
    uint8_t *base = op_machine_mram(m, dpu);
    unsigned char vec[4096];
    uint64_t missing = 0;
    for (uint64_t at = lo; at < hi;) {
        uint64_t c = at / OP_MRAM_CHUNK;
        if (c < m->nr_chunks && slot_ref(m, map, c)) {
            missing += OP_MRAM_CHUNK;
            at = (c + 1) * OP_MRAM_CHUNK;
            continue;
        }
        uint64_t stop = c < m->nr_chunks && (c + 1) * OP_MRAM_CHUNK < hi ? (c + 1) * OP_MRAM_CHUNK : hi;
        uint64_t n = (stop - at) / page < sizeof vec ? (stop - at) / page : sizeof vec;
        if (mincore(base + at, n * page, vec) != 0)
            return len; /* cannot tell: count everything as new */
        for (uint64_t k = 0; k < n; k++)
            missing += !(vec[k] & 1) * page;
        at += n * page;
    }
    return missing;
}

static int over_limit(struct op_machine *m, uint64_t more, char *err, size_t errlen)
{
    uint64_t used = op_machine_memory_used(m), limit = m->memory_limit;
    if (used + more <= limit)
        return 0;
    return op_fail(err, errlen,
                   "host memory limit reached: the emulated memories use %llu MB and this transfer needs %llu MB "
                   "more, over the limit of %llu MB (profile key hostMemoryLimitMB)",
                   (unsigned long long)(used >> 20), (unsigned long long)((more + (1 << 20) - 1) >> 20),
                   (unsigned long long)(limit >> 20));
}

int op_machine_check_mram_write(struct op_machine *m, const uint32_t *dpus, uint32_t n, uint64_t off, uint64_t len,
                                char *err, size_t errlen)
{
    if (op_machine_memory_used(m) + (uint64_t)n * len <= m->memory_limit)
        return 0;
    uint64_t more = 0;
    for (uint32_t i = 0; i < n; i++)
        more += holes(m, dpus[i], off, len);
    return over_limit(m, more, err, errlen);
}

void op_mram_reclaim(struct op_pool *p)
{
    if (!p)
        return;
    _Atomic uint32_t *refs = op_ctrl_slot_refs(p->ctrl);
    pthread_mutex_lock(&p->store_lock);
    uint64_t high = 0;
    for (uint64_t s = 0; s < p->slot_high; s++) {
        if (p->slot_used[s] && atomic_load(&refs[s]) == 0) {
            if (fallocate(p->store_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(s * OP_MRAM_CHUNK),
                          OP_MRAM_CHUNK) != 0)
                memset(p->store + s * OP_MRAM_CHUNK, 0, OP_MRAM_CHUNK);
            p->slot_used[s] = 0;
        }
        if (p->slot_used[s])
            high = s + 1;
    }
    p->slot_high = high;
    pthread_mutex_unlock(&p->store_lock);
}

/* k free slots in a row of the pool's store, each held once by the caller;
 * UINT64_MAX if none. */
static uint64_t take_slots(struct op_pool *p, uint32_t k)
{
    op_mram_reclaim(p);
    pthread_mutex_lock(&p->store_lock);
    uint64_t found = UINT64_MAX;
    for (uint64_t s = 0, run = 0; s < nr_slots(p->m); s++) {
        run = p->slot_used[s] ? 0 : run + 1;
        if (run == k) {
            found = s + 1 - k;
            break;
        }
    }
    for (uint64_t s = found; found != UINT64_MAX && s < found + k; s++) {
        p->slot_used[s] = 1;
        atomic_store(&op_ctrl_slot_refs(p->ctrl)[s], 1);
    }
    if (found != UINT64_MAX && found + k > p->slot_high)
        p->slot_high = found + k;
    pthread_mutex_unlock(&p->store_lock);
    return found;
}

/* Gives the DPU chunks [c0, c0 + k) as slots [s0, s0 + k). */
static int share(struct op_machine *m, uint32_t dpu, uint32_t c0, uint32_t k, uint64_t s0)
{
    _Atomic uint32_t *map = chunks(m, dpu);
    struct op_pool *p = op_pool_of(m, dpu);
    op_machine_mram(m, dpu);
    for (uint32_t i = 0; i < k; i++) {
        uint32_t old = slot_ref(m, map, c0 + i);
        atomic_fetch_add(&op_ctrl_slot_refs(p->ctrl)[s0 + i], 1);
        atomic_store(&map[c0 + i], (uint32_t)(s0 + i + 1));
        drop_slot(m, dpu, old);
    }
    /* the DPU's own bytes there are not needed any more */
    uint64_t base;
    int fd = op_mram_file(m, dpu, &base);
    if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(base + (uint64_t)c0 * OP_MRAM_CHUNK),
                  (off_t)k * OP_MRAM_CHUNK) != 0)
        return -1;
    return changed_here(m, dpu, c0, c0 + k);
}

static int copy_in(struct op_machine *m, uint32_t dpu, uint64_t off, const void *src, uint64_t len, char *err,
                   size_t errlen)
{
    if (op_machine_mram_prepare(m, dpu, off, len, err, errlen) != 0)
        return -1;
    /* back the pages with one call rather than a fault each (+40 % on first
     * writes here; the kernel's page allocation bounds them, ~0.3 GB/s on this
     * VM, against ~4.5 GB/s for rewrites).  Kernels before 5.14 refuse it and
     * fault page by page. */
    uint8_t *to = op_machine_mram(m, dpu) + off;
    const uintptr_t page = 4096;
    uintptr_t plo = (uintptr_t)to & ~(page - 1), phi = ((uintptr_t)to + len + page - 1) & ~(page - 1);
    if (len >= 64 * page)
        madvise((void *)plo, phi - plo, MADV_POPULATE_WRITE);
    memcpy(to, src, len);
    return 0;
}

/* Whether a broadcast writing [lo, hi) of chunk c of the DPU can give it a
 * shared chunk (zeros around the bytes written): no byte of the chunk outside
 * [lo, hi) was ever written, in its own chunk or in the slot it shares. */
static int blank_around(struct op_machine *m, uint32_t dpu, uint64_t c, uint64_t lo, uint64_t hi)
{
    uint32_t r = slot_ref(m, chunks(m, dpu), (uint32_t)c);
    uint64_t base = c * OP_MRAM_CHUNK;
    const uint8_t *bytes = r ? op_pool_of(m, dpu)->store + (uint64_t)(r - 1) * OP_MRAM_CHUNK
                             : op_machine_mram(m, dpu) + base;
    unsigned char vec[OP_MRAM_CHUNK / 4096];
    if (mincore((void *)bytes, OP_MRAM_CHUNK, vec) != 0)
        return 0;
    for (uint64_t p = 0; p < OP_MRAM_CHUNK / 4096; p++) {
        uint64_t plo = base + p * 4096, phi = plo + 4096;
        if (!(vec[p] & 1) || (plo >= lo && phi <= hi))
            continue; /* never written, or overwritten whole */
        if (phi <= lo || plo >= hi)
            return 0; /* written, outside the broadcast */
        /* a page across an end of [lo, hi): zero outside it is blank too */
        const uint8_t *page = bytes + p * 4096;
        for (uint64_t b = 0; b < 4096; b++)
            if ((plo + b < lo || plo + b >= hi) && page[b])
                return 0;
    }
    return 1;
}

/* A broadcast shares a chunk it writes at least this much of (less is copied:
 * sharing costs some mapping work per DPU, and the first write copies). */
#define SHARE_MIN (64u << 10)

int op_machine_mram_write(struct op_machine *m, const uint32_t *dpus, uint32_t n, uint64_t off,
                          const void *const *src, uint32_t nsrc, uint64_t len, char *err, size_t errlen)
{
    return op_machine_mram_write_watched(m, dpus, n, off, src, nsrc, len, NULL, NULL, err, errlen);
}

int op_machine_mram_write_watched(struct op_machine *m, const uint32_t *dpus, uint32_t n, uint64_t off,
                                  const void *const *src, uint32_t nsrc, uint64_t len, op_watch_fn *watch,
                                  void *watch_arg, char *err, size_t errlen)
{
    /* the chunks a broadcast to several DPUs writes enough of: [ca, cb) */
    uint64_t end = off + len, ca = off / OP_MRAM_CHUNK, cb = (end + OP_MRAM_CHUNK - 1) / OP_MRAM_CHUNK;
    uint64_t lo = ca * OP_MRAM_CHUNK;
    if (lo < off && (ca + 1) * OP_MRAM_CHUNK - off < SHARE_MIN && (ca + 1) * OP_MRAM_CHUNK <= end)
        ca++, lo += OP_MRAM_CHUNK; /* too little of the first chunk */
    if (cb > m->nr_chunks)
        cb = m->nr_chunks;
    if (cb > ca && cb * OP_MRAM_CHUNK > end && end - (cb - 1) * OP_MRAM_CHUNK < SHARE_MIN)
        cb--; /* too little of the last one */
    if (cb > ca && cb - ca == 1 && len < SHARE_MIN)
        cb = ca;
    /* chunks are shared within a pool (its store): a broadcast over DPUs of
     * several pools, or of none, copies */
    struct op_pool *pool = n ? op_pool_of(m, dpus[0]) : NULL;
    for (uint32_t i = 1; pool && i < n; i++)
        if (op_pool_of(m, dpus[i]) != pool)
            pool = NULL;
    uint32_t k = pool && nsrc == 1 && n > 1 && cb > ca ? (uint32_t)(cb - ca) : 0;
    if (!k) {
        if (op_machine_check_mram_write(m, dpus, n, off, len, err, errlen) != 0)
            return -1;
        for (uint32_t i = 0; i < n; i++) {
            if (copy_in(m, dpus[i], off, src[nsrc == 1 ? 0 : i], len, err, errlen) != 0)
                return -1;
            if (watch)
                watch(watch_arg, i + 1);
        }
        return 0;
    }
    uint64_t hi = cb * OP_MRAM_CHUNK;               /* chunks [lo, hi) shared where possible */
    uint64_t slo = off > lo ? off : lo, shi = end < hi ? end : hi; /* the bytes written there */
    uint64_t more = (uint64_t)k * OP_MRAM_CHUNK;
    for (uint32_t i = 0; i < n; i++)
        more += holes(m, dpus[i], off, slo - off) + holes(m, dpus[i], shi, end - shi);
    if (over_limit(m, more, err, errlen) != 0)
        return -1;
    uint64_t s0 = take_slots(pool, k);
    if (s0 == UINT64_MAX) /* cannot happen: there are as many slots as chunks */
        return op_fail(err, errlen, "no room left in the store of shared MRAM");
    const uint8_t *bytes = src[0];
    memcpy(pool->store + s0 * OP_MRAM_CHUNK + (slo - lo), bytes + (slo - off), (size_t)(shi - slo));
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        uint32_t d = dpus[i];
        rc = copy_in(m, d, off, bytes, slo - off, err, errlen);
        if (rc == 0)
            rc = copy_in(m, d, shi, bytes + (shi - off), end - shi, err, errlen);
        /* a partly written chunk is shared only where the rest of it is blank */
        uint64_t first = ca, last = cb; /* [first, last): shared with this DPU */
        if (rc == 0 && slo > lo && !blank_around(m, d, ca, slo, shi)) {
            rc = copy_in(m, d, slo, bytes + (slo - off), (ca + 1) * OP_MRAM_CHUNK - slo < shi - slo
                             ? (ca + 1) * OP_MRAM_CHUNK - slo : shi - slo, err, errlen);
            first++;
        }
        if (rc == 0 && shi < hi && last > first && !blank_around(m, d, cb - 1, slo, shi)) {
            uint64_t from = (cb - 1) * OP_MRAM_CHUNK > slo ? (cb - 1) * OP_MRAM_CHUNK : slo;
            rc = copy_in(m, d, from, bytes + (from - off), shi - from, err, errlen);
            last--;
        }
        if (rc == 0 && last > first &&
            share(m, d, (uint32_t)first, (uint32_t)(last - first), s0 + (first - ca)) != 0)
            rc = op_fail(err, errlen, "cannot map shared MRAM for DPU %u: %s", d, strerror(errno));
        if (rc == 0 && watch)
            watch(watch_arg, i + 1);
    }
    for (uint32_t i = 0; i < k; i++) /* the holds of take_slots */
        atomic_fetch_sub(&op_ctrl_slot_refs(pool->ctrl)[s0 + i], 1);
    op_mram_reclaim(pool); /* what this broadcast replaced everywhere */
    return rc;
}

void op_machine_mram_read(struct op_machine *m, uint32_t dpu, uint64_t off, void *dst, uint64_t len)
{
    _Atomic uint32_t *map = chunks(m, dpu);
    struct op_pool *p = op_pool_of(m, dpu);
    uint64_t base;
    int own_fd = op_mram_file(m, dpu, &base);
    uint8_t *out = dst;
    while (len) {
        uint64_t c = off / OP_MRAM_CHUNK, part = len;
        uint32_t r = c < m->nr_chunks && p ? slot_ref(m, map, (uint32_t)c) : 0;
        if (c < m->nr_chunks && (c + 1) * OP_MRAM_CHUNK - off < part)
            part = (c + 1) * OP_MRAM_CHUNK - off;
        /* pread keeps pages never written unbacked (they read as 0) */
        int fd = r ? p->store_fd : own_fd;
        uint64_t at = r ? (uint64_t)(r - 1) * OP_MRAM_CHUNK + off % OP_MRAM_CHUNK : base + off;
        for (uint64_t done = 0; done < part;) {
            ssize_t got = pread(fd, out + done, part - done, (off_t)(at + done));
            if (got <= 0) { /* cannot happen on memfds of the right size; fall back to the mapping */
                memcpy(out + done, op_machine_mram(m, dpu) + off + done, part - done);
                break;
            }
            done += (uint64_t)got;
        }
        out += part;
        off += part;
        len -= part;
    }
}

/* Gives every shared chunk of the DPU back (its MRAM there reads as zeros);
 * whether it had any. */
static int drop_shared(struct op_machine *m, uint32_t dpu)
{
    struct op_pool *p = op_pool_of(m, dpu);
    if (!p)
        return 0;
    _Atomic uint32_t *map = chunks(m, dpu);
    int had_shared = 0;
    for (uint32_t c = 0; c < m->nr_chunks; c++) {
        uint32_t r = atomic_exchange(&map[c], 0);
        if (r) {
            drop_slot(m, dpu, r);
            had_shared = 1;
        }
    }
    if (had_shared) {
        changed_here(m, dpu, 0, m->nr_chunks);
        op_mram_reclaim(p);
    }
    return had_shared;
}

void op_machine_reset(struct op_machine *m, uint32_t dpu)
{
    drop_shared(m, dpu);
    uint64_t base;
    int fd = op_mram_file(m, dpu, &base);
    if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)base, (off_t)m->mram_size) != 0)
        memset(op_machine_mram(m, dpu), 0, m->mram_size);
    if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                  (off_t)op_rank_wram_offset(dpu % m->per_rank), OP_WRAM_STRIDE) != 0)
        memset(op_machine_wram(m, dpu), 0, OP_WRAM_STRIDE);
}

void op_machine_reset_rank(struct op_machine *m, uint32_t rank)
{
    uint32_t first = rank * m->per_rank;
    for (uint32_t i = 0; i < m->per_rank; i++)
        drop_shared(m, first + i);
    /* the rank's one memfd, WRAM and MRAM of all its DPUs: one hole */
    if (fallocate(m->rank_fd[rank], FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
                  (off_t)op_rank_memfd_size(m->per_rank, m->mram_size)) != 0)
        for (uint32_t i = 0; i < m->per_rank; i++)
            op_machine_reset(m, first + i);
}

void op_mram_leave_pool(struct op_machine *m, uint32_t rank)
{
    struct op_pool *p = atomic_load(&m->pool_of[rank]);
    if (!p)
        return;
    for (uint32_t i = 0; i < m->per_rank; i++) {
        uint32_t dpu = rank * m->per_rank + i;
        for (uint32_t c = 0; c < m->nr_chunks; c++) /* what it shares becomes its own */
            if (own_chunk(m, dpu, c, 1) != 0)
                break;
        drop_shared(m, dpu); /* whatever could not be copied */
        memset(&op_ctrl_prog(p->ctrl)[dpu], 0, sizeof(struct op_dpu_program));
        memset(&op_ctrl_status(p->ctrl)[dpu], 0, sizeof(struct op_dpu_status));
    }
    op_mram_reclaim(p);
}
