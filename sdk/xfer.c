/* SPDX-License-Identifier: MIT */
/* Host <-> DPU transfers by symbol: copy, broadcast, prepared pushes and
 * scatter-gather.  Checks follow the UPMEM SDK: off + length within the symbol
 * (DPU_ERR_INVALID_SYMBOL_ACCESS), WRAM offsets and lengths 4-byte aligned
 * (DPU_ERR_INVALID_WRAM_ACCESS), accesses inside the memory.  A refused
 * transfer changes nothing, on the DPUs or in the host buffers.  Asynchronous
 * flags queue behind pending launches; the copy itself is done at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "openpim_ext.h"
#include "progress.h"
#include "report.h"

struct target {
    enum op_region region;
    uint32_t offset; /* in the DPU memory */
};

/* The program all DPUs of the set run. */
static dpu_error_t common_program(struct dpu_set_t set, struct dpu_program_t **out)
{
    struct dpu_program_t *p = NULL;
    struct dpu_t *d;
    bool any = false;
    OP_SET_FOREACH_DPU(set, d) {
        struct dpu_program_t *q = d->program;
        if (!q)
            return DPU_ERR_NO_PROGRAM_LOADED;
        if (any && q->img.bytes != p->img.bytes && (q->img.len != p->img.len || memcmp(q->img.bytes, p->img.bytes, q->img.len)))
            return DPU_ERR_DIFFERENT_DPU_PROGRAMS;
        p = q;
        any = true;
    }
    if (!any)
        return DPU_ERR_INVALID_DPU_SET;
    *out = p;
    return DPU_OK;
}

/* ---- what a refused transfer says ----------------------------------------
 * The symbol, its memory and size, the offset and length asked, and for a
 * name the program does not have, the nearest one it has (a typo). */

static const char *region_name(uint32_t addr)
{
    switch (op_region_of(addr)) {
    case OP_REGION_WRAM: return "WRAM";
    case OP_REGION_MRAM: return "MRAM";
    case OP_REGION_IRAM: return "IRAM";
    default: return "no memory";
    }
}

/* Edit distance (insertions, deletions, substitutions) of a and b, at most
 * `cap` (names longer than 63 bytes count as far). */
static unsigned edit_distance(const char *a, const char *b, unsigned cap)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return cap;
    unsigned row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb] < cap ? row[lb] : cap;
}

/* The program's WRAM or MRAM symbol nearest to `name`, if near enough to be a
 * typo of it (at most a third of its letters, at least 2, differ). */
static const struct op_symbol *nearest_symbol(const struct op_image *img, const char *name)
{
    size_t len = strlen(name);
    unsigned cap = len / 3 > 2 ? (unsigned)(len / 3) : 2, best_d = cap + 1;
    const struct op_symbol *best = NULL;
    for (size_t i = 0; i < img->nr_syms; i++) {
        const struct op_symbol *s = &img->syms[i];
        enum op_region r = op_region_of(s->addr);
        if ((r != OP_REGION_WRAM && r != OP_REGION_MRAM) || !s->name[0] || s->name[0] == '.')
            continue;
        unsigned d = edit_distance(name, s->name, cap + 1);
        if (d < best_d || (d == best_d && best && s->global && !best->global)) {
            best_d = d;
            best = s;
        }
    }
    return best;
}

static const char *symbol_name_at(const struct op_image *img, uint32_t addr)
{
    for (size_t i = 0; i < img->nr_syms; i++)
        if (img->syms[i].addr == addr && img->syms[i].name[0] && img->syms[i].global)
            return img->syms[i].name;
    return NULL;
}

static dpu_error_t resolve(struct dpu_set_t set, const char *name, struct dpu_symbol_t *sym)
{
    if (!name) {
        op_warn("transfer with no symbol name (NULL)");
        return DPU_ERR_UNKNOWN_SYMBOL;
    }
    struct dpu_program_t *p;
    dpu_error_t rc = common_program(set, &p);
    if (rc != DPU_OK)
        return rc;
    if ((rc = op_symbol_lookup(&p->img, name, sym)) == DPU_ERR_UNKNOWN_SYMBOL) {
        const struct op_symbol *near = nearest_symbol(&p->img, name);
        if (near)
            op_warn("unknown symbol \"%s\" in the DPU program; did you mean \"%s\" (%s, %u bytes)?", name,
                    near->name, region_name(near->addr), near->size);
        else
            op_warn("unknown symbol \"%s\" in the DPU program (a host-visible symbol is a global "
                    "__host or __mram variable)", name);
    }
    return rc;
}

/* Says why check_access refused: the symbol, its memory and size, what was asked. */
static dpu_error_t refuse(dpu_error_t rc, const char *name, struct dpu_symbol_t sym, uint32_t off, size_t len,
                          const char *why)
{
    char at[32];
    if (!name)
        snprintf(at, sizeof at, "at 0x%08x", sym.address);
    const char *what = rc == DPU_ERR_INVALID_WRAM_ACCESS   ? "invalid WRAM access"
                       : rc == DPU_ERR_INVALID_MRAM_ACCESS ? "invalid MRAM access"
                       : rc == DPU_ERR_INVALID_IRAM_ACCESS ? "invalid IRAM access"
                                                           : "invalid symbol access";
    op_warn("%s: symbol \"%s\" (%s, %u bytes at 0x%08x): offset %u, length %zu: %s", what,
            name ? name : at, region_name(sym.address), sym.size, sym.address, off, len, why);
    return rc;
}

/* Every bound is checked as "length fits in what is left", never as
 * "offset + length <= limit": off and len come from the caller and len is a
 * size_t, so the sum can wrap (off 8 + len 2^64 - 8 is 0). */
static dpu_error_t check_access(struct dpu_symbol_t sym, const char *name, uint32_t off, size_t len,
                                struct target *t)
{
    if (off > sym.size || len > (size_t)(sym.size - off))
        return refuse(DPU_ERR_INVALID_SYMBOL_ACCESS, name, sym, off, len, "past the end of the symbol");
    /* from here len <= sym.size < 2^32, and addr < 2^33: no sum below wraps */
    uint64_t addr = (uint64_t)sym.address + off;
    const struct op_backend_info *m = op_sdk_info();
    switch (op_region_of(sym.address)) {
    case OP_REGION_WRAM:
        if ((addr | len) & 3u)
            return refuse(DPU_ERR_INVALID_WRAM_ACCESS, name, sym, off, len,
                          "WRAM transfers need an address and a length that are multiples of 4");
        if (addr < OP_WRAM_START(m->wram_size) || addr > OP_WRAM_END || len > OP_WRAM_END - addr)
            return refuse(DPU_ERR_INVALID_WRAM_ACCESS, name, sym, off, len, "outside this DPU's WRAM");
        t->region = OP_REGION_WRAM;
        t->offset = (uint32_t)(addr - OP_WRAM_BASE);
        return DPU_OK;
    case OP_REGION_MRAM:
        if (addr - OP_MRAM_BASE > m->mram_size || len > m->mram_size - (addr - OP_MRAM_BASE))
            return refuse(DPU_ERR_INVALID_MRAM_ACCESS, name, sym, off, len, "outside this DPU's MRAM");
        t->region = OP_REGION_MRAM;
        t->offset = (uint32_t)(addr - OP_MRAM_BASE);
        return DPU_OK;
    case OP_REGION_IRAM:
        return refuse(DPU_ERR_INVALID_IRAM_ACCESS, name, sym, off, len, "the host cannot transfer to or from IRAM");
    default:
        return refuse(DPU_ERR_INVALID_SYMBOL_ACCESS, name, sym, off, len, "not in any DPU memory");
    }
}

static void write_watch(void *arg, uint32_t done)
{
    op_progress_update(arg, done);
}

/* Writes len bytes at the target of the given DPUs, from src[i] each or from
 * src[0] for all (nsrc 1); a refusal (the host memory limit) is a warning.
 * With p on, the DPUs written so far go to the progress line if the backend
 * counts them. */
static dpu_error_t write_dpus(const uint32_t *ids, uint32_t n, const struct target *t, const void *const *src,
                              uint32_t nsrc, size_t len, struct op_progress *p)
{
    char err[256];
    if (n == 0 || len == 0)
        return DPU_OK;
    int rc = p && p->on && op_sdk_backend()->ops->write_watched
                 ? OP_BACKEND(write_watched, ids, n, t->region, t->offset, src, nsrc, len, write_watch, p, err,
                              sizeof err)
                 : OP_BACKEND(write, ids, n, t->region, t->offset, src, nsrc, len, err, sizeof err);
    if (rc != 0) {
        op_warn("%s", err);
        return DPU_ERR_SYSTEM;
    }
    return DPU_OK;
}

/* DPU memory -> host; MRAM never written reads as zeros without costing host memory. */
static dpu_error_t read_dpu(uint32_t id, const struct target *t, uint32_t skip, void *dst, size_t len)
{
    char err[256];
    if (OP_BACKEND(read, id, t->region, t->offset + skip, dst, len, err, sizeof err) != 0) {
        op_warn("%s", err);
        return DPU_ERR_SYSTEM;
    }
    return DPU_OK;
}

/* The machine indexes of the set's DPUs (with a prepared buffer if
 * `prepared`), and those buffers in bufs if asked; *n their number. */
static dpu_error_t set_ids(struct dpu_set_t set, bool prepared, uint32_t **ids, const void ***bufs, uint32_t *n)
{
    uint32_t cap = op_set_count(set), k = 0;
    *ids = malloc((cap ? cap : 1) * sizeof **ids);
    if (bufs)
        *bufs = malloc((cap ? cap : 1) * sizeof **bufs);
    if (!*ids || (bufs && !*bufs)) {
        free(*ids);
        *ids = NULL;
        if (bufs) {
            free(*bufs);
            *bufs = NULL;
        }
        return DPU_ERR_SYSTEM;
    }
    struct dpu_t *d;
    OP_SET_FOREACH_DPU(set, d)
        if (!prepared || d->xfer) {
            if (bufs)
                (*bufs)[k] = d->xfer;
            (*ids)[k++] = d->id;
        }
    *n = k;
    return DPU_OK;
}

static dpu_error_t prepare(struct dpu_set_t set, const struct dpu_symbol_t *given, const char *name, uint32_t off,
                           size_t len, struct target *t)
{
    dpu_error_t rc = op_set_check(set);
    if (rc != DPU_OK)
        return rc;
    struct dpu_symbol_t sym;
    if (given) {
        struct dpu_program_t *p;
        if ((rc = common_program(set, &p)) != DPU_OK)
            return rc;
        sym = *given;
        name = symbol_name_at(&p->img, sym.address);
    } else if ((rc = resolve(set, name, &sym)) != DPU_OK) {
        return rc;
    }
    return check_access(sym, name, off, len, t);
}

/* A transfer as a job in its ranks' queues: to the DPUs from src[0] (every
 * DPU) or src[i], or from the DPUs into dst[i].  Synchronous transfers run on
 * the calling thread without the library lock; DPU_XFER_ASYNC ones in the
 * background, from and into the caller's buffers, which must stay valid until
 * dpu_sync. */
struct xfer_job {
    struct op_job job;
    struct target t;
    size_t len;
    int to_dpu;
    enum op_xfer_kind kind;
    uint32_t *ids, n;
    const void **src; /* to the DPUs: nsrc buffers */
    uint32_t nsrc;
    void **dst;       /* from the DPUs: n buffers */
    double issued_us;     /* asynchronous: the host's modelled clock when issued */
    bool untimed;         /* asynchronous: issued while the thread's timing was paused */
    dpu_error_t rc;
};

static void xfer_run(struct op_job *j)
{
    struct xfer_job *x = (struct xfer_job *)j;
    /* (write_dpus and read_dpu warn through op_warn, which takes no lock) */
    struct op_progress p;
    op_progress_begin(&p, "transfer", x->n);
    x->rc = x->to_dpu ? write_dpus(x->ids, x->n, &x->t, x->src, x->nsrc, x->len, &p) : DPU_OK;
    if (!x->to_dpu && x->n && op_sdk_backend()->ops->read_many) { /* one step (the remote backend's gather) */
        char err[256];
        if (OP_BACKEND(read_many, x->ids, x->n, x->t.region, x->t.offset, x->dst, x->len, err, sizeof err) != 0) {
            op_warn("%s", err);
            x->rc = DPU_ERR_SYSTEM;
        }
        op_progress_update(&p, x->n);
    }
    for (uint32_t i = 0; !x->to_dpu && !op_sdk_backend()->ops->read_many && i < x->n && x->rc == DPU_OK; i++) {
        x->rc = read_dpu(x->ids[i], &x->t, 0, x->dst[i], x->len);
        op_progress_update(&p, i + 1);
    }
    op_progress_end(&p);
}

static void xfer_free(struct xfer_job *x)
{
    free(x->ids);
    free(x->src);
    free(x->dst);
    free(x);
}

static void xfer_finish_async(struct op_job *j)
{
    struct xfer_job *x = (struct xfer_job *)j;
    if (x->rc != DPU_OK)
        op_set_pending(j->set, x->rc);
    else if (x->untimed)
        op_record_untimed_xfer(j->set, x->t.region, x->len * x->n);
    else
        op_record_xfer(j->set, x->kind, x->to_dpu, x->t.region, x->len, x->n, x->issued_us);
    xfer_free(x);
}

static void xfer_finish_sync(struct op_job *j)
{
    struct xfer_job *x = (struct xfer_job *)j;
    if (x->rc == DPU_OK)
        op_record_xfer(j->set, x->kind, x->to_dpu, x->t.region, x->len, x->n, -1);
}

/* Runs x (synchronously, or in the background with async) and frees it. */
static dpu_error_t xfer_issue(struct xfer_job *x, bool async)
{
    x->job.run = xfer_run;
    if (async) {
        x->job.finish = xfer_finish_async;
        x->issued_us = op_record_host_clock();
        x->untimed = openpim_timing_paused() > 0;
        dpu_error_t rc = op_jobs_submit(&x->job);
        if (rc != DPU_OK)
            xfer_free(x);
        return rc;
    }
    x->job.finish = xfer_finish_sync;
    dpu_error_t rc = op_jobs_run(&x->job);
    if (rc == DPU_OK)
        rc = x->rc;
    xfer_free(x);
    return rc;
}

/* A transfer between every DPU of the set and one host buffer: src to the
 * DPUs, or into dst from the (one) DPU. */
static dpu_error_t one_buffer(struct dpu_set_t set, const struct target *t, size_t len, int to_dpu,
                              enum op_xfer_kind kind, const void *src, void *dst, bool async)
{
    struct xfer_job *x = calloc(1, sizeof *x);
    if (!x || set_ids(set, false, &x->ids, NULL, &x->n) != DPU_OK || !(x->src = malloc(sizeof *x->src)) ||
        !(x->dst = malloc(sizeof *x->dst))) {
        if (x)
            xfer_free(x);
        return DPU_ERR_SYSTEM;
    }
    x->job.set = set;
    x->t = *t;
    x->len = len;
    x->to_dpu = to_dpu;
    x->kind = kind;
    x->src[0] = src;
    x->nsrc = 1;
    x->dst[0] = dst;
    return xfer_issue(x, async);
}

static dpu_error_t copy_to(struct dpu_set_t set, const struct dpu_symbol_t *sym, const char *name, uint32_t off,
                           const void *src, size_t len, bool async)
{
    struct target t;
    dpu_error_t rc = prepare(set, sym, name, off, len, &t);
    if (rc != DPU_OK || len == 0)
        return rc;
    if (!src)
        return DPU_ERR_INVALID_MEMORY_TRANSFER;
    return one_buffer(set, &t, len, 1, set.kind == DPU_SET_DPU ? OP_XFER_SERIAL : OP_XFER_BROADCAST, src, NULL,
                      async);
}

dpu_error_t dpu_copy_to(struct dpu_set_t dpu_set, const char *symbol_name, uint32_t symbol_offset, const void *src,
                        size_t length)
{
    OP_LOCKED_RETURN(copy_to(dpu_set, NULL, symbol_name, symbol_offset, src, length, false));
}

dpu_error_t dpu_copy_to_symbol(struct dpu_set_t dpu_set, struct dpu_symbol_t symbol, uint32_t symbol_offset,
                               const void *src, size_t length)
{
    OP_LOCKED_RETURN(copy_to(dpu_set, &symbol, NULL, symbol_offset, src, length, false));
}

dpu_error_t dpu_broadcast_to(struct dpu_set_t dpu_set, const char *symbol_name, uint32_t symbol_offset,
                             const void *src, size_t length, dpu_xfer_flags_t flags)
{
    OP_LOCKED_RETURN(copy_to(dpu_set, NULL, symbol_name, symbol_offset, src, length, (flags & DPU_XFER_ASYNC) != 0));
}

dpu_error_t dpu_broadcast_to_symbol(struct dpu_set_t dpu_set, struct dpu_symbol_t symbol, uint32_t symbol_offset,
                                    const void *src, size_t length, dpu_xfer_flags_t flags)
{
    OP_LOCKED_RETURN(copy_to(dpu_set, &symbol, NULL, symbol_offset, src, length, (flags & DPU_XFER_ASYNC) != 0));
}

static dpu_error_t copy_from(struct dpu_set_t set, const struct dpu_symbol_t *sym, const char *name, uint32_t off,
                             void *dst, size_t len)
{
    if (set.kind != DPU_SET_DPU)
        return DPU_ERR_INVALID_DPU_SET;
    struct target t;
    dpu_error_t rc = prepare(set, sym, name, off, len, &t);
    if (rc != DPU_OK || len == 0)
        return rc;
    if (!dst)
        return DPU_ERR_INVALID_MEMORY_TRANSFER;
    return one_buffer(set, &t, len, 0, OP_XFER_SERIAL, NULL, dst, false);
}

dpu_error_t dpu_copy_from(struct dpu_set_t dpu_set, const char *symbol_name, uint32_t symbol_offset, void *dst,
                          size_t length)
{
    OP_LOCKED_RETURN(copy_from(dpu_set, NULL, symbol_name, symbol_offset, dst, length));
}

dpu_error_t dpu_copy_from_symbol(struct dpu_set_t dpu_set, struct dpu_symbol_t symbol, uint32_t symbol_offset,
                                 void *dst, size_t length)
{
    OP_LOCKED_RETURN(copy_from(dpu_set, &symbol, NULL, symbol_offset, dst, length));
}

static dpu_error_t dpu_prepare_xfer_locked(struct dpu_set_t dpu_set, void *buffer)
{
    dpu_error_t rc = op_set_check(dpu_set);
    if (rc != DPU_OK)
        return rc;
    struct dpu_t *d;
    OP_SET_FOREACH_DPU(dpu_set, d)
        d->xfer = buffer;
    return DPU_OK;
}

dpu_error_t dpu_prepare_xfer(struct dpu_set_t dpu_set, void *buffer)
{
    OP_LOCKED_RETURN(dpu_prepare_xfer_locked(dpu_set, buffer));
}

static dpu_error_t push(struct dpu_set_t set, dpu_xfer_t xfer, const struct dpu_symbol_t *sym, const char *name,
                        uint32_t off, size_t len, dpu_xfer_flags_t flags)
{
    if (xfer != DPU_XFER_TO_DPU && xfer != DPU_XFER_FROM_DPU)
        return DPU_ERR_INVALID_MEMORY_TRANSFER;
    if (flags & DPU_XFER_PARALLEL) {
        /* the transfer would have to reach memory while the DPUs run: it
         * would wait for the launch instead, and a program counting on the
         * overlap could wait forever */
        op_warn("DPU_XFER_PARALLEL (transfers while the DPUs run) is not supported");
        return DPU_ERR_INVALID_MEMORY_TRANSFER;
    }
    struct target t;
    dpu_error_t rc = prepare(set, sym, name, off, len, &t);
    if (rc != DPU_OK)
        return rc;
    struct xfer_job *x = calloc(1, sizeof *x);
    const void **bufs = NULL;
    if (!x || (rc = set_ids(set, true, &x->ids, &bufs, &x->n)) != DPU_OK) {
        free(x);
        return DPU_ERR_SYSTEM;
    }
    struct dpu_t *d;
    if (!(flags & DPU_XFER_NO_RESET))
        OP_SET_FOREACH_DPU(set, d)
            d->xfer = NULL;
    if (x->n == 0 || len == 0) { /* nothing prepared, or nothing to move */
        free(bufs);
        xfer_free(x);
        return DPU_OK;
    }
    x->job.set = set;
    x->t = t;
    x->len = len;
    x->kind = OP_XFER_PARALLEL;
    x->to_dpu = xfer == DPU_XFER_TO_DPU;
    if (x->to_dpu) {
        x->src = bufs;
        x->nsrc = x->n;
    } else {
        x->dst = (void **)bufs; /* the prepared buffers are the caller's, writable */
    }
    return xfer_issue(x, (flags & DPU_XFER_ASYNC) != 0);
}

dpu_error_t dpu_push_xfer(struct dpu_set_t dpu_set, dpu_xfer_t xfer, const char *symbol_name, uint32_t symbol_offset,
                          size_t length, dpu_xfer_flags_t flags)
{
    OP_LOCKED_RETURN(push(dpu_set, xfer, NULL, symbol_name, symbol_offset, length, flags));
}

dpu_error_t dpu_push_xfer_symbol(struct dpu_set_t dpu_set, dpu_xfer_t xfer, struct dpu_symbol_t symbol,
                                 uint32_t symbol_offset, size_t length, dpu_xfer_flags_t flags)
{
    OP_LOCKED_RETURN(push(dpu_set, xfer, &symbol, NULL, symbol_offset, length, flags));
}

/* sg_walk's work for one DPU (the index-th of the set). */
static dpu_error_t sg_walk_dpu(struct dpu_t *d, uint32_t index, dpu_xfer_t xfer, const struct target *t, size_t len,
                               get_block_t *gb, uint32_t max_blocks, dpu_sg_xfer_flags_t flags, bool copy,
                               uint64_t *total_bytes, uint32_t *n)
{
    size_t done = 0;
    struct sg_block_info blk;
    /* b is 64-bit so that it cannot wrap while max_blocks is UINT32_MAX */
    for (uint64_t b = 0; gb->f(&blk, index, (uint32_t)b, gb->args); b++) {
        if (b >= max_blocks)
            return DPU_ERR_SG_TOO_MANY_BLOCKS;
        if (blk.length > len - done) /* done <= len: cannot wrap */
            return DPU_ERR_SG_LENGTH_MISMATCH;
        if (blk.length && !blk.addr)
            return DPU_ERR_INVALID_MEMORY_TRANSFER;
        if (blk.length == 0)
            continue; /* an empty block may have no address */
        if (copy && xfer == DPU_XFER_TO_DPU) {
            struct target at = {t->region, t->offset + (uint32_t)done};
            const void *src = blk.addr;
            dpu_error_t rc = write_dpus(&d->id, 1, &at, &src, 1, blk.length, NULL);
            if (rc != DPU_OK)
                return rc;
        } else if (copy) {
            dpu_error_t rc = read_dpu(d->id, t, (uint32_t)done, blk.addr, blk.length);
            if (rc != DPU_OK)
                return rc;
        }
        done += blk.length;
    }
    if (done != len && !(flags & DPU_SG_XFER_DISABLE_LENGTH_CHECK))
        return DPU_ERR_SG_LENGTH_MISMATCH;
    *total_bytes += done;
    *n += done > 0;
    return DPU_OK;
}

/* Walks the blocks of every DPU of the set; with copy false it only checks
 * them (block count, lengths, addresses), with copy true it moves the data.
 * *total_bytes and *n (DPUs with data) are set by either pass. */
static dpu_error_t sg_walk(struct dpu_set_t set, dpu_xfer_t xfer, const struct target *t, size_t len,
                           get_block_t *gb, uint32_t max_blocks, dpu_sg_xfer_flags_t flags, bool copy,
                           uint64_t *total_bytes, uint32_t *n)
{
    struct dpu_t *d;
    uint32_t index = 0;
    *total_bytes = 0;
    *n = 0;
    struct op_progress p = {.on = false}; /* the checking pass moves nothing */
    if (copy)
        op_progress_begin(&p, "transfer", op_set_count(set));
    dpu_error_t rc = DPU_OK;
    OP_SET_FOREACH_DPU(set, d) {
        if ((rc = sg_walk_dpu(d, index, xfer, t, len, gb, max_blocks, flags, copy, total_bytes, n)) != DPU_OK)
            break;
        index++;
        if (copy)
            op_progress_update(&p, index);
    }
    op_progress_end(&p);
    return rc;
}

static dpu_error_t sg_push(struct dpu_set_t set, dpu_xfer_t xfer, const struct dpu_symbol_t *sym, const char *name,
                           uint32_t off, size_t len, get_block_t *gb, dpu_sg_xfer_flags_t flags)
{
    uint32_t max_blocks;
    if (!op_sg_enabled(&max_blocks))
        return DPU_ERR_SG_NOT_ACTIVATED;
    if (!gb || !gb->f || (xfer != DPU_XFER_TO_DPU && xfer != DPU_XFER_FROM_DPU))
        return DPU_ERR_INVALID_MEMORY_TRANSFER;
    struct target t;
    dpu_error_t rc = prepare(set, sym, name, off, len, &t);
    if (rc != DPU_OK)
        return rc;
    if (t.region != OP_REGION_MRAM)
        return DPU_ERR_SG_NOT_MRAM_SYMBOL;
    /* get_block runs on this thread with the lock held: not a job, so the
     * ranks' queued work finishes first */
    op_sync_ranks(set);
    if (xfer == DPU_XFER_TO_DPU && len) {
        uint32_t *ids, n;
        if ((rc = set_ids(set, false, &ids, NULL, &n)) != DPU_OK)
            return rc;
        char err[256];
        int room = OP_BACKEND(check_room, ids, n, t.offset, len, err, sizeof err);
        free(ids);
        if (room != 0) {
            op_warn("%s", err);
            return DPU_ERR_SYSTEM;
        }
    }
    /* every block list is checked before any byte moves, so that a refused
     * transfer leaves the DPUs and the host buffers as they were (get_block
     * must give the same answers twice, as it is a description of buffers) */
    uint64_t total_bytes;
    uint32_t n;
    if ((rc = sg_walk(set, xfer, &t, len, gb, max_blocks, flags, false, &total_bytes, &n)) != DPU_OK ||
        (rc = sg_walk(set, xfer, &t, len, gb, max_blocks, flags, true, &total_bytes, &n)) != DPU_OK)
        return rc;
    if (n)
        op_record_xfer(set, OP_XFER_PARALLEL, xfer == DPU_XFER_TO_DPU, t.region, (size_t)(total_bytes / n), n, -1);
    return DPU_OK;
}

dpu_error_t dpu_push_sg_xfer(struct dpu_set_t dpu_set, dpu_xfer_t xfer, const char *symbol_name,
                             uint32_t symbol_offset, size_t length, get_block_t *get_block_info,
                             dpu_sg_xfer_flags_t flags)
{
    OP_LOCKED_RETURN(sg_push(dpu_set, xfer, NULL, symbol_name, symbol_offset, length, get_block_info, flags));
}

dpu_error_t dpu_push_sg_xfer_symbol(struct dpu_set_t dpu_set, dpu_xfer_t xfer, struct dpu_symbol_t symbol,
                                    uint32_t symbol_offset, size_t length, get_block_t *get_block_info,
                                    dpu_sg_xfer_flags_t flags)
{
    OP_LOCKED_RETURN(sg_push(dpu_set, xfer, &symbol, NULL, symbol_offset, length, get_block_info, flags));
}
