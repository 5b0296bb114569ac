/* Emulated MRAM, host side: each DPU's own pages in the MRAM memfd, and the
 * store of chunks that DPUs share until they write them (abi/shared.h,
 * "Shared MRAM").  A broadcast of whole chunks is stored once: 64 MB sent to
 * 2,560 DPUs costs 64 MB of host memory, not 160 GB.
 *
 * The host maps every DPU's MRAM in one range (m->mram); a shared chunk is
 * mapped there read-only from the store.  Writers first make their range the
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
    return op_ctrl_chunks(m->ctrl, dpu);
}

static uint64_t nr_slots(const struct op_machine *m)
{
    return (uint64_t)m->nr_dpus * m->nr_chunks;
}

int op_mram_init(struct op_machine *m, char *err, size_t errlen)
{
    m->store_fd = op_make_memfd("openpim-mram-store", nr_slots(m) * OP_MRAM_CHUNK);
    m->slot_used = calloc(nr_slots(m) ? nr_slots(m) : 1, 1);
    m->host_gen = calloc(m->nr_dpus, sizeof *m->host_gen);
    if (m->store_fd < 0 || !m->slot_used || !m->host_gen)
        return op_fail(err, errlen, "cannot create the store of shared MRAM: %s", strerror(errno));
    if (nr_slots(m)) {
        m->store = mmap(NULL, nr_slots(m) * OP_MRAM_CHUNK, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
                        m->store_fd, 0);
        if (m->store == MAP_FAILED) {
            m->store = NULL;
            return op_fail(err, errlen, "cannot map the store of shared MRAM: %s", strerror(errno));
        }
    }
    pthread_mutex_init(&m->store_lock, NULL);
    m->ctrl->store_fd = m->store_fd;
    m->ctrl->nr_chunks = m->nr_chunks;
    return 0;
}

void op_mram_fini(struct op_machine *m)
{
    if (m->store)
        munmap(m->store, nr_slots(m) * OP_MRAM_CHUNK);
    if (m->store_fd > 0) {
        close(m->store_fd);
        pthread_mutex_destroy(&m->store_lock);
    }
    free(m->slot_used);
    free(m->host_gen);
}

/* Maps chunks [c0, c1) of the DPU in the host's range as its chunk map says. */
static int map_chunks(struct op_machine *m, uint32_t dpu, uint32_t c0, uint32_t c1)
{
    _Atomic uint32_t *map = chunks(m, dpu);
    uint8_t *base = m->mram + (uint64_t)dpu * m->mram_size;
    for (uint32_t c = c0, e; c < c1; c = e) {
        e = op_chunk_run(map, c, c1);
        uint32_t r = atomic_load(&map[c]);
        void *at = base + (uint64_t)c * OP_MRAM_CHUNK;
        size_t len = (size_t)(e - c) * OP_MRAM_CHUNK;
        void *got = r ? mmap(at, len, PROT_READ, MAP_SHARED | MAP_FIXED, m->store_fd, (off_t)(r - 1) * OP_MRAM_CHUNK)
                      : mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, m->mram_fd,
                             (off_t)((uint64_t)dpu * m->mram_size + (uint64_t)c * OP_MRAM_CHUNK));
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
    uint32_t gen = atomic_fetch_add(&op_ctrl_gen(m->ctrl)[dpu], 1) + 1;
    int rc = map_chunks(m, dpu, c0, c1);
    m->host_gen[dpu] = rc == 0 ? gen : gen - 1;
    return rc;
}

uint8_t *op_machine_mram(struct op_machine *m, uint32_t dpu)
{
    uint32_t gen = atomic_load(&op_ctrl_gen(m->ctrl)[dpu]);
    if (gen != m->host_gen[dpu] && map_chunks(m, dpu, 0, m->nr_chunks) == 0) /* a worker changed it */
        m->host_gen[dpu] = gen;
    return m->mram + (uint64_t)dpu * m->mram_size;
}

static void drop_slot(struct op_machine *m, uint32_t ref)
{
    atomic_fetch_sub(&op_ctrl_slot_refs(m->ctrl)[ref - 1], 1);
}

/* Makes chunk c of the DPU its own: with the shared bytes (copy), or with
 * whatever (the caller overwrites all of it). */
static int own_chunk(struct op_machine *m, uint32_t dpu, uint32_t c, int copy)
{
    _Atomic uint32_t *map = chunks(m, dpu);
    uint32_t r = atomic_load(&map[c]);
    if (!r)
        return 0;
    off_t own = (off_t)((uint64_t)dpu * m->mram_size + (uint64_t)c * OP_MRAM_CHUNK);
    const uint8_t *from = m->store + (uint64_t)(r - 1) * OP_MRAM_CHUNK;
    unsigned char vec[OP_MRAM_CHUNK / 4096];
    if (copy && mincore((void *)from, OP_MRAM_CHUNK, vec) != 0)
        memset(vec, 1, sizeof vec);
    for (size_t p = 0; copy && p < sizeof vec; p++) /* pages never written stay unbacked */
        if ((vec[p] & 1) && pwrite(m->mram_fd, from + p * 4096, 4096, own + (off_t)(p * 4096)) != 4096)
            return -1;
    atomic_store(&map[c], 0);
    drop_slot(m, r);
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

uint64_t op_machine_memory_used(const struct op_machine *m)
{
    struct stat a, b, c;
    if (fstat(m->mram_fd, &a) != 0 || fstat(m->wram_fd, &b) != 0 || fstat(m->store_fd, &c) != 0)
        return 0;
    return ((uint64_t)a.st_blocks + (uint64_t)b.st_blocks + (uint64_t)c.st_blocks) * 512u;
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
        if (c < m->nr_chunks && atomic_load(&map[c])) {
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
    uint64_t used = op_machine_memory_used(m), limit = m->ctrl->memory_limit;
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
    if (op_machine_memory_used(m) + (uint64_t)n * len <= m->ctrl->memory_limit)
        return 0;
    uint64_t more = 0;
    for (uint32_t i = 0; i < n; i++)
        more += holes(m, dpus[i], off, len);
    return over_limit(m, more, err, errlen);
}

void op_mram_reclaim(struct op_machine *m)
{
    _Atomic uint32_t *refs = op_ctrl_slot_refs(m->ctrl);
    pthread_mutex_lock(&m->store_lock);
    uint64_t high = 0;
    for (uint64_t s = 0; s < m->slot_high; s++) {
        if (m->slot_used[s] && atomic_load(&refs[s]) == 0) {
            if (fallocate(m->store_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(s * OP_MRAM_CHUNK),
                          OP_MRAM_CHUNK) != 0)
                memset(m->store + s * OP_MRAM_CHUNK, 0, OP_MRAM_CHUNK);
            m->slot_used[s] = 0;
        }
        if (m->slot_used[s])
            high = s + 1;
    }
    m->slot_high = high;
    pthread_mutex_unlock(&m->store_lock);
}

/* k free slots in a row, each held once by the caller; UINT64_MAX if none. */
static uint64_t take_slots(struct op_machine *m, uint32_t k)
{
    op_mram_reclaim(m);
    pthread_mutex_lock(&m->store_lock);
    uint64_t found = UINT64_MAX;
    for (uint64_t s = 0, run = 0; s < nr_slots(m); s++) {
        run = m->slot_used[s] ? 0 : run + 1;
        if (run == k) {
            found = s + 1 - k;
            break;
        }
    }
    for (uint64_t s = found; found != UINT64_MAX && s < found + k; s++) {
        m->slot_used[s] = 1;
        atomic_store(&op_ctrl_slot_refs(m->ctrl)[s], 1);
    }
    if (found != UINT64_MAX && found + k > m->slot_high)
        m->slot_high = found + k;
    pthread_mutex_unlock(&m->store_lock);
    return found;
}

/* Gives the DPU chunks [c0, c0 + k) as slots [s0, s0 + k). */
static int share(struct op_machine *m, uint32_t dpu, uint32_t c0, uint32_t k, uint64_t s0)
{
    _Atomic uint32_t *map = chunks(m, dpu);
    op_machine_mram(m, dpu);
    for (uint32_t i = 0; i < k; i++) {
        uint32_t old = atomic_load(&map[c0 + i]);
        atomic_fetch_add(&op_ctrl_slot_refs(m->ctrl)[s0 + i], 1);
        atomic_store(&map[c0 + i], (uint32_t)(s0 + i + 1));
        if (old)
            drop_slot(m, old);
    }
    /* the DPU's own bytes there are not needed any more */
    if (fallocate(m->mram_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                  (off_t)((uint64_t)dpu * m->mram_size + (uint64_t)c0 * OP_MRAM_CHUNK),
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
    uint32_t r = atomic_load(&chunks(m, dpu)[c]);
    uint64_t base = c * OP_MRAM_CHUNK;
    const uint8_t *bytes = r ? m->store + (uint64_t)(r - 1) * OP_MRAM_CHUNK : op_machine_mram(m, dpu) + base;
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
    uint32_t k = nsrc == 1 && n > 1 && cb > ca ? (uint32_t)(cb - ca) : 0;
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
    uint64_t s0 = take_slots(m, k);
    if (s0 == UINT64_MAX) /* cannot happen: there are as many slots as chunks */
        return op_fail(err, errlen, "no room left in the store of shared MRAM");
    const uint8_t *bytes = src[0];
    memcpy(m->store + s0 * OP_MRAM_CHUNK + (slo - lo), bytes + (slo - off), (size_t)(shi - slo));
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
        drop_slot(m, (uint32_t)(s0 + i + 1));
    op_mram_reclaim(m); /* what this broadcast replaced everywhere */
    return rc;
}

void op_machine_mram_read(struct op_machine *m, uint32_t dpu, uint64_t off, void *dst, uint64_t len)
{
    _Atomic uint32_t *map = chunks(m, dpu);
    uint8_t *out = dst;
    while (len) {
        uint64_t c = off / OP_MRAM_CHUNK, part = len;
        uint32_t r = c < m->nr_chunks ? atomic_load(&map[c]) : 0;
        if (c < m->nr_chunks && (c + 1) * OP_MRAM_CHUNK - off < part)
            part = (c + 1) * OP_MRAM_CHUNK - off;
        /* pread keeps pages never written unbacked (they read as 0) */
        int fd = r ? m->store_fd : m->mram_fd;
        uint64_t at = r ? (uint64_t)(r - 1) * OP_MRAM_CHUNK + off % OP_MRAM_CHUNK : (uint64_t)dpu * m->mram_size + off;
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

void op_machine_reset(struct op_machine *m, uint32_t dpu)
{
    _Atomic uint32_t *map = chunks(m, dpu);
    int had_shared = 0;
    for (uint32_t c = 0; c < m->nr_chunks; c++) {
        uint32_t r = atomic_exchange(&map[c], 0);
        if (r) {
            drop_slot(m, r);
            had_shared = 1;
        }
    }
    if (had_shared) {
        changed_here(m, dpu, 0, m->nr_chunks);
        op_mram_reclaim(m);
    }
    if (fallocate(m->mram_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)((uint64_t)dpu * m->mram_size),
                  (off_t)m->mram_size) != 0)
        memset(op_machine_mram(m, dpu), 0, m->mram_size);
    if (fallocate(m->wram_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)((uint64_t)dpu * OP_WRAM_STRIDE),
                  OP_WRAM_STRIDE) != 0)
        memset(op_machine_wram(m, dpu), 0, OP_WRAM_STRIDE);
}
