/* SPDX-License-Identifier: MIT */
/* The race detector (see racecheck.h).
 *
 *   mode                 op_race_init
 *   vector clocks        join, sync_entry, op_race_sync
 *   shadow memory        shadow_of, check_granule, check_range
 *   reports              site_text, symbol_text, report
 *   accesses             op_race_access, op_race_dma
 *
 * Single-threaded (the worker process is the object); state is per DPU run
 * except the mode and the table of reported pairs. */
#define _GNU_SOURCE
#include "racecheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../timing/op_points.h"

#define CELLS 4                           /* accesses remembered per granule */
#define GRANULE 8u                        /* bytes */
#define WRAM_GRANULES (OP_WRAM_STRIDE / GRANULE)
#define PAGE_GRANULES 512u                /* MRAM shadow is allocated by 4 KB of MRAM */
#define SYNC_SLOTS 512u                   /* synchronisation objects of one run (power of two) */
#define MRAM_SHADOW_PAGES 8192u           /* MRAM followed: 32 MB per worker (about 400 MB of shadow) */
#define ACCESS_MAX 65536u                 /* bytes of one access at most (all of WRAM) */

struct cell {
    uint32_t epoch; /* the tasklet's clock at the access */
    uint32_t site;  /* its site record (0: the runtime, no site known) */
    uint8_t tid1;   /* tasklet + 1; 0: free */
    uint8_t mask;   /* bytes of the granule */
    uint8_t flags;  /* OP_RACE_WRITE, OP_RACE_VOLATILE */
    uint8_t unused;
};

struct sync {
    uint64_t key; /* OP_WAIT_KEY(kind, object) (abi/dpu_abi.h); 0: free */
    uint32_t vc[OP_MAX_TASKLETS];
    uint32_t arrived; /* barriers and handshakes: tasklets of the round so far */
    uint32_t count;
};

static enum op_race_mode mode;
static struct op_ctrl *shared;

/* the current run */
static const struct op_image *image;
static uint64_t program_id;
static uint32_t dpu_index;
static unsigned ntasklets;
static uint64_t mram_bytes;
static uint32_t vc[OP_MAX_TASKLETS][OP_MAX_TASKLETS];
static uint32_t call_site[OP_MAX_TASKLETS]; /* site of the runtime call in progress (OP_RACE_CALL) */
static uint64_t sem_wait[OP_MAX_TASKLETS];  /* key of the semaphore a tasklet waits for */
static struct sync syncs[SYNC_SLOTS];
static struct cell *wram_shadow;
static struct cell **mram_shadow; /* per 4 KB of MRAM, allocated on first use */
static uint8_t *mram_in_run;      /* the page holds this run's accesses */
static uint32_t *mram_used;       /* those pages, to clear at the next run */
static size_t mram_nused;
static uint64_t mram_npages;
static uint64_t local_seen[OP_RACE_SEEN]; /* this worker's reported pairs: no shared lookup for them */

int op_race_init(struct op_ctrl *ctrl, char *err, size_t errlen)
{
    shared = ctrl;
    const char *v = getenv("OPENPIM_RACECHECK");
    if (!v || !*v || strcmp(v, "0") == 0)
        mode = OP_RACE_OFF;
    else if (strcmp(v, "1") == 0 || strcmp(v, "warn") == 0)
        mode = OP_RACE_WARN;
    else if (strcmp(v, "fault") == 0)
        mode = OP_RACE_FAULT;
    else {
        snprintf(err, errlen, "OPENPIM_RACECHECK=%s: expected 0, 1, warn or fault", v);
        return -1;
    }
    return 0;
}

enum op_race_mode op_race_mode(void)
{
    return mode;
}

static int first_time(uint64_t key);

/* ---- vector clocks ----------------------------------------------------------- */

static void join(uint32_t *into, const uint32_t *from)
{
    for (unsigned i = 0; i < ntasklets; i++)
        if (from[i] > into[i])
            into[i] = from[i];
}

static struct sync *sync_entry(uint64_t key)
{
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    for (unsigned k = 0, i = (unsigned)(h >> 40) & (SYNC_SLOTS - 1); k < SYNC_SLOTS; k++, i = (i + 1) & (SYNC_SLOTS - 1)) {
        if (syncs[i].key == key)
            return &syncs[i];
        if (syncs[i].key == 0) {
            syncs[i].key = key;
            return &syncs[i];
        }
    }
    return NULL; /* full: the object orders nothing (more races reported, none hidden) */
}

/* A release: the object's clock takes the tasklet's, which then moves on. */
static void release(unsigned tid, struct sync *s, int replace)
{
    if (!s)
        return;
    if (replace)
        memcpy(s->vc, vc[tid], sizeof s->vc);
    else
        join(s->vc, vc[tid]);
    vc[tid][tid]++;
}

/* A rendezvous of `count` tasklets (a barrier round, a handshake): each
 * leaves with every arrival's clock. */
static void arrive(unsigned tid, struct sync *s, unsigned count)
{
    if (!s)
        return;
    join(s->vc, vc[tid]);
    s->arrived |= 1u << tid;
    if (++s->count < count)
        return;
    for (unsigned t = 0; t < ntasklets; t++)
        if (s->arrived >> t & 1) {
            join(vc[t], s->vc);
            vc[t][t]++;
        }
    memset(s->vc, 0, sizeof s->vc);
    s->arrived = s->count = 0;
}

#define KEY(kind, obj) OP_WAIT_KEY(kind, obj)

void op_race_sync(unsigned tid, uint32_t ev, uint32_t obj, uint32_t arg)
{
    if (mode == OP_RACE_OFF || tid >= ntasklets)
        return;
    switch (ev) {
    case OP_RTE_MUTEX_LOCK:
        if (arg) { /* granted */
            struct sync *s = sync_entry(KEY(OP_WAIT_MUTEX, obj));
            if (s)
                join(vc[tid], s->vc);
        }
        break;
    case OP_RTE_MUTEX_UNLOCK:
        release(tid, sync_entry(KEY(OP_WAIT_MUTEX, obj)), 1);
        break;
    case OP_RTE_VMUTEX_LOCK: {
        struct sync *s = sync_entry(KEY(OP_WAIT_VMUTEX, ((uint64_t)(arg & 0xffff) << 32) | obj));
        if (s)
            join(vc[tid], s->vc);
        break;
    }
    case OP_RTE_VMUTEX_UNLOCK:
        release(tid, sync_entry(KEY(OP_WAIT_VMUTEX, ((uint64_t)(arg & 0xffff) << 32) | obj)), 1);
        break;
    case OP_RTE_SEM_TAKE: {
        struct sync *s = sync_entry(KEY(OP_WAIT_SEM, obj));
        if (arg) /* blocks: ordered after the give that hands it a unit */
            sem_wait[tid] = KEY(OP_WAIT_SEM, obj);
        else if (s)
            join(vc[tid], s->vc);
        break;
    }
    case OP_RTE_SEM_GIVE: {
        struct sync *s = sync_entry(KEY(OP_WAIT_SEM, obj));
        release(tid, s, 0);
        for (unsigned t = 0; s && t < ntasklets; t++)
            if (sem_wait[t] == KEY(OP_WAIT_SEM, obj)) { /* a waiter may be the one handed the unit */
                join(vc[t], s->vc);
                if (arg)
                    sem_wait[t] = 0;
            }
        break;
    }
    case OP_RTE_BARRIER:
        arrive(tid, sync_entry(KEY(OP_WAIT_BARRIER, obj)), arg & 0xff);
        break;
    case OP_RTE_HS_NOTIFY:
        arrive(tid, sync_entry(KEY(OP_WAIT_HS_NOTIFIER, obj)), 2);
        break;
    case OP_RTE_HS_WAIT:
        if (arg) /* not refused (EALREADY) */
            arrive(tid, sync_entry(KEY(OP_WAIT_HS_NOTIFIER, obj)), 2);
        break;
    default:
        break;
    }
}

/* ---- the run ------------------------------------------------------------------- */

void op_race_begin(const struct op_image *img, uint64_t program, uint32_t dpu, unsigned nr_tasklets,
                   uint64_t mram_size)
{
    if (mode == OP_RACE_OFF)
        return;
    image = img;
    program_id = program;
    if (!img->racecheck && first_time(program * 0x9e3779b97f4a7c15ull + 0x5a17)) {
        static const char line[] = "openpim: OPENPIM_RACECHECK is set, but a DPU program was built without race "
                                   "checks: only runtime calls are seen; rebuild it with OPENPIM_RACECHECK=1 in the "
                                   "environment of dpu-upmem-dpurte-clang\n";
        ssize_t w = write(2, line, sizeof line - 1);
        (void)w;
    }
    dpu_index = dpu;
    ntasklets = nr_tasklets < OP_MAX_TASKLETS ? nr_tasklets : OP_MAX_TASKLETS;
    memset(vc, 0, sizeof vc);
    for (unsigned t = 0; t < OP_MAX_TASKLETS; t++)
        vc[t][t] = 1;
    memset(call_site, 0, sizeof call_site);
    memset(sem_wait, 0, sizeof sem_wait);
    memset(syncs, 0, sizeof syncs);
    if (!wram_shadow)
        wram_shadow = calloc((size_t)WRAM_GRANULES * CELLS, sizeof *wram_shadow);
    else
        memset(wram_shadow, 0, (size_t)WRAM_GRANULES * CELLS * sizeof *wram_shadow);
    uint64_t pages = mram_size / (PAGE_GRANULES * GRANULE);
    if (pages != mram_npages) {
        for (uint64_t p = 0; mram_shadow && p < mram_npages; p++)
            free(mram_shadow[p]);
        free(mram_shadow);
        free(mram_in_run);
        free(mram_used);
        mram_shadow = calloc(pages, sizeof *mram_shadow);
        mram_in_run = calloc(pages, 1);
        mram_used = calloc(pages, sizeof *mram_used);
        mram_npages = mram_shadow && mram_in_run && mram_used ? pages : 0;
        mram_nused = 0;
    }
    for (size_t i = 0; i < mram_nused; i++) {
        memset(mram_shadow[mram_used[i]], 0, (size_t)PAGE_GRANULES * CELLS * sizeof(struct cell));
        mram_in_run[mram_used[i]] = 0;
    }
    mram_nused = 0;
    mram_bytes = mram_npages ? mram_size : 0;
}

/* ---- shadow memory ------------------------------------------------------------- */

/* The cells of the granule holding byte `offset` of WRAM's window or MRAM
 * (NULL: outside both, or out of memory). */
static struct cell *shadow_of(int is_mram, uint64_t offset)
{
    if (!is_mram)
        return wram_shadow && offset < OP_WRAM_STRIDE ? wram_shadow + (offset / GRANULE) * CELLS : NULL;
    uint64_t page = offset / (PAGE_GRANULES * GRANULE);
    if (page >= mram_npages)
        return NULL;
    if (!mram_shadow[page]) {
        static unsigned allocated;
        if (allocated >= MRAM_SHADOW_PAGES) { /* the rest of MRAM goes unchecked, said once */
            static int said;
            static const char line[] = "openpim: race detector: more than 32 MB of MRAM touched in one worker; "
                                       "accesses beyond are not checked\n";
            if (!said++) {
                ssize_t w = write(2, line, sizeof line - 1);
                (void)w;
            }
            return NULL;
        }
        if (!(mram_shadow[page] = calloc((size_t)PAGE_GRANULES * CELLS, sizeof(struct cell))))
            return NULL;
        allocated++;
    }
    if (!mram_in_run[page]) {
        mram_in_run[page] = 1;
        mram_used[mram_nused++] = (uint32_t)page;
    }
    return mram_shadow[page] + (offset / GRANULE % PAGE_GRANULES) * CELLS;
}

struct access {
    unsigned tid;
    uint32_t site;
    uint8_t flags;
    int is_mram;
};

struct conflict {
    int found;
    struct cell prev;
    uint64_t first, last; /* the bytes both touch, first and last (offsets) */
};

/* Checks one access against a granule's cells, then records it. */
static void check_granule(struct cell *c, const struct access *a, uint8_t mask, uint64_t offset,
                          struct conflict *out)
{
    const uint32_t *mine = vc[a->tid];
    int w = (a->flags & OP_RACE_WRITE) != 0, v = (a->flags & OP_RACE_VOLATILE) != 0;
    for (unsigned i = 0; i < CELLS; i++) {
        const struct cell *p = &c[i];
        if (!p->tid1 || p->tid1 == a->tid + 1 || !(p->mask & mask))
            continue;
        int pw = (p->flags & OP_RACE_WRITE) != 0, pv = (p->flags & OP_RACE_VOLATILE) != 0;
        if (!(pw || w) || (pv && v && !(pw && w)))
            continue; /* two reads; or a volatile signal and its reader */
        if (p->epoch <= mine[p->tid1 - 1])
            continue; /* ordered */
        uint8_t both = mask & p->mask;
        if (!out->found) {
            out->found = 1;
            out->prev = *p;
            out->first = offset + (unsigned)__builtin_ctz(both);
        }
        if (p->site == out->prev.site && p->tid1 == out->prev.tid1)
            out->last = offset + 31u - (unsigned)__builtin_clz(both);
    }
    /* remember it: over this tasklet's cell for the same bytes and kind, else
     * in a free cell, else over a fixed one */
    struct cell now = {.epoch = mine[a->tid], .site = a->site, .tid1 = (uint8_t)(a->tid + 1), .mask = mask,
                       .flags = (uint8_t)(a->flags & (OP_RACE_WRITE | OP_RACE_VOLATILE))};
    unsigned slot = CELLS;
    for (unsigned i = 0; i < CELLS && slot == CELLS; i++)
        if (c[i].tid1 == now.tid1 && c[i].mask == mask && (c[i].flags == now.flags || w))
            slot = i;
    for (unsigned i = 0; i < CELLS && slot == CELLS; i++)
        if (!c[i].tid1)
            slot = i;
    if (slot == CELLS)
        slot = (a->tid + (unsigned)(offset / GRANULE)) % CELLS;
    c[slot] = now;
}

static void check_range(const struct access *a, uint64_t offset, uint64_t bytes, struct conflict *out)
{
    uint64_t end = offset + bytes;
    for (uint64_t g = offset / GRANULE * GRANULE; g < end; g += GRANULE) {
        struct cell *c = shadow_of(a->is_mram, g);
        if (!c)
            return;
        uint64_t lo = offset > g ? offset - g : 0, hi = end - g < GRANULE ? end - g : GRANULE;
        uint8_t mask = (uint8_t)(((1u << hi) - 1) & ~((1u << lo) - 1));
        check_granule(c, a, mask, g, out);
    }
}

/* ---- reports ------------------------------------------------------------------- */

/* A site record of the image's code (timing/op_points.h): its file (NULL if
 * the record is not valid), line (0 without -g) and function. */
static const char *site_of(uint32_t site, unsigned *line, const char **fn)
{
    const struct op_image *img = image;
    if (!site || site < img->text_addr || (uint64_t)site + OP_SITE_HEADER + 2 > (uint64_t)img->text_addr + img->text_len)
        return NULL;
    const uint8_t *rec = img->text + (site - img->text_addr), *end = img->text + img->text_len;
    uint32_t l;
    memcpy(&l, rec, 4);
    const char *file = (const char *)rec + OP_SITE_HEADER;
    const char *f = memchr(file, 0, (size_t)(end - (const uint8_t *)file));
    if (!f || !memchr(f + 1, 0, (size_t)(end - (const uint8_t *)f - 1)))
        return NULL;
    *line = l;
    *fn = f + 1;
    return file;
}

/* "file:line (function)"; the file's last component only if `brief`. */
static void site_text(uint32_t site, int brief, char *buf, size_t len)
{
    unsigned line;
    const char *fn, *file = site_of(site, &line, &fn);
    if (!file) {
        snprintf(buf, len, site ? "an unknown site" : "the DPU runtime");
        return;
    }
    const char *slash = strrchr(file, '/');
    if (brief && slash)
        file = slash + 1;
    if (line)
        snprintf(buf, len, "%s:%u (%s)", file, line, fn);
    else
        snprintf(buf, len, "%s%s(%s; build with -g for file:line)", brief ? "" : file, brief || !*file ? "" : " ", fn);
}

/* The variable the bytes belong to, as "name" or "name+off", or "". */
static void symbol_text(int is_mram, uint64_t offset, char *buf, size_t len)
{
    uint64_t addr = is_mram ? OP_MRAM_BASE + offset : OP_WRAM_BASE + offset;
    buf[0] = 0;
    for (size_t i = 0; i < image->nr_syms; i++) {
        const struct op_symbol *s = &image->syms[i];
        if (s->size && addr >= s->addr && addr < (uint64_t)s->addr + s->size && s->name[0] && s->name[0] != '.') {
            if (addr == s->addr)
                snprintf(buf, len, "%s", s->name);
            else
                snprintf(buf, len, "%s+%llu", s->name, (unsigned long long)(addr - s->addr));
            return;
        }
    }
}

/* Inserts a pair into the tables of reported pairs; 1 if it was new. */
static int first_time(uint64_t key)
{
    if (!key)
        key = 1;
    for (unsigned k = 0, i = (unsigned)(key >> 32) % OP_RACE_SEEN; k < OP_RACE_SEEN; k++, i = (i + 1) % OP_RACE_SEEN) {
        if (local_seen[i] == key)
            return 0;
        if (!local_seen[i]) {
            local_seen[i] = key;
            break;
        }
    }
    if (!shared)
        return 1;
    for (unsigned k = 0, i = (unsigned)(key >> 32) % OP_RACE_SEEN; k < OP_RACE_SEEN; k++, i = (i + 1) % OP_RACE_SEEN) {
        uint64_t expect = 0;
        if (atomic_compare_exchange_strong(&shared->race_seen[i], &expect, key))
            return 1;
        if (expect == key)
            return 0;
    }
    return 1; /* full: say it again rather than never */
}

/* A race between the access a and the earlier one c->prev.  The pair of
 * sites (and kinds) is reported once per machine on stderr; in fault mode
 * the DPU also stops, with a short form as its fault message (returns 1). */
static int report(const struct access *a, const struct conflict *c, char *msg, size_t len)
{
    uint32_t s1 = a->site, s2 = c->prev.site;
    uint64_t f1 = a->flags & OP_RACE_WRITE, f2 = c->prev.flags & OP_RACE_WRITE;
    uint64_t lo = s1 < s2 || (s1 == s2 && f1 < f2) ? (uint64_t)s1 << 1 | f1 : (uint64_t)s2 << 1 | f2;
    uint64_t hi = s1 < s2 || (s1 == s2 && f1 < f2) ? (uint64_t)s2 << 1 | f2 : (uint64_t)s1 << 1 | f1;
    uint64_t key = (program_id * 0x9e3779b97f4a7c15ull) ^ ((lo << 32 | hi) * 0xbf58476d1ce4e5b9ull) ^
                   ((uint64_t)a->is_mram << 63);
    int tell = first_time(key);
    if (!tell && mode != OP_RACE_FAULT)
        return 0;
    unsigned bytes = (unsigned)(c->last - c->first + 1);
    unsigned long long addr = (a->is_mram ? OP_MRAM_BASE : OP_WRAM_BASE) + c->first;
    const char *what = a->is_mram ? "MRAM" : "WRAM";
    const char *now = a->flags & OP_RACE_WRITE ? "writes" : "reads";
    const char *then = c->prev.flags & OP_RACE_WRITE ? "wrote" : "read";
    char var[96], here[256], there[256];
    symbol_text(a->is_mram, c->first, var, sizeof var);
    if (tell) {
        site_text(s1, 0, here, sizeof here);
        site_text(s2, 0, there, sizeof there);
        char line[1024];
        int n = snprintf(line, sizeof line,
                         "openpim: machine DPU %u: data race on %s 0x%08llx%s%s%s (%u byte%s): tasklet %u %s it at %s; "
                         "tasklet %u %s it at %s; no barrier, mutex, semaphore or handshake orders the two\n",
                         dpu_index, what, addr, var[0] ? " (" : "", var, var[0] ? ")" : "", bytes, bytes == 1 ? "" : "s",
                         a->tid, now, here, c->prev.tid1 - 1u, then, there);
        if (n > 0) {
            ssize_t w = write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
            (void)w; /* a warning: nothing to do if stderr is gone */
        }
    }
    if (mode != OP_RACE_FAULT)
        return 0;
    site_text(s1, 1, here, sizeof here);
    site_text(s2, 1, there, sizeof there);
    snprintf(msg, len, "data race on %s%s%s 0x%08llx%s: tasklet %u %s at %s, tasklet %u %s at %s", var,
             var[0] ? " (" : "", what, addr, var[0] ? ")" : "", a->tid, now, here, c->prev.tid1 - 1u, then, there);
    return 1;
}

/* ---- accesses -------------------------------------------------------------------- */

static int access_range(unsigned tid, int is_mram, uint64_t address, uint64_t bytes, uint32_t flags, uint32_t site,
                        char *msg, size_t len)
{
    if (!bytes)
        return 0;
    if (bytes > ACCESS_MAX) /* no access of DPU code is larger: the image is not what the pass made */
        bytes = ACCESS_MAX;
    uint64_t offset;
    if (is_mram) {
        if (!mram_bytes)
            return 0;
        offset = address % mram_bytes; /* the DPU decodes the offset in its MRAM only */
        if (bytes > mram_bytes - offset)
            bytes = mram_bytes - offset;
    } else {
        if (address < OP_WRAM_BASE || address >= OP_WRAM_BASE + OP_WRAM_STRIDE)
            return 0; /* not WRAM (its scratch, an invalid address that faults anyway) */
        offset = address - OP_WRAM_BASE;
        if (bytes > OP_WRAM_STRIDE - offset)
            bytes = OP_WRAM_STRIDE - offset;
    }
    struct access a = {.tid = tid, .site = site, .flags = (uint8_t)flags, .is_mram = is_mram};
    struct conflict c = {0};
    check_range(&a, offset, bytes, &c);
    return c.found ? report(&a, &c, msg, len) : 0;
}

int op_race_access(unsigned tid, uint64_t address, uint64_t bytes, uint32_t flags, uint32_t site, char *msg,
                   size_t len)
{
    if (mode == OP_RACE_OFF || tid >= ntasklets)
        return 0;
    if (flags & OP_RACE_CALL) { /* a runtime call that moves memory starts (site) or ends (0) */
        call_site[tid] = site;
        return 0;
    }
    return access_range(tid, (flags & OP_RACE_MRAM) != 0, address, bytes, flags, site, msg, len);
}

int op_race_dma(unsigned tid, uint32_t mram, uint32_t wram, uint32_t size, uint32_t dma_flags, char *msg,
                size_t len)
{
    /* only DMAs of the calls a race-checked image announced: the runtime's
     * own (printf's log, ...) are its business */
    if (mode == OP_RACE_OFF || tid >= ntasklets || !call_site[tid])
        return 0;
    uint32_t site = call_site[tid], write = (dma_flags & OP_DMA_WRITE) != 0;
    if (access_range(tid, 1, mram, size, write ? OP_RACE_WRITE : 0, site, msg, len))
        return 1;
    if (dma_flags & OP_DMA_COPY)
        return access_range(tid, 0, wram, size, write ? 0 : OP_RACE_WRITE, site, msg, len);
    return 0;
}
