/* SPDX-License-Identifier: MIT */
/* Decoding and checking of openpimd requests (protocol.h).  Pure functions of
 * their arguments: the fuzz harness (daemon/tests/fuzz_decoder.c) drives them
 * with arbitrary bytes. */
#include "../backend/remote_protocol.h"
#include "fail.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const names[OPD_OP_END] = {
    [OPD_HELLO] = "HELLO",           [OPD_CLAIM] = "CLAIM",           [OPD_RELEASE] = "RELEASE",
    [OPD_PROGRAM_OPEN] = "PROGRAM_OPEN", [OPD_PROGRAM_CLOSE] = "PROGRAM_CLOSE", [OPD_LOAD] = "LOAD",
    [OPD_WRITE] = "WRITE",           [OPD_CHECK_ROOM] = "CHECK_ROOM", [OPD_READ] = "READ",
    [OPD_VIEW_WRITE] = "VIEW_WRITE", [OPD_VIEW_READ] = "VIEW_READ",   [OPD_LAUNCH] = "LAUNCH",
    [OPD_RESULT] = "RESULT",         [OPD_MEMORY] = "MEMORY",         [OPD_SHM_ATTACH] = "SHM_ATTACH",
    [OPD_READ_GATHER] = "READ_GATHER", [OPD_WRITE_BATCH] = "WRITE_BATCH", [OPD_STATUS] = "STATUS",
    [OPD_DRAIN] = "DRAIN",           [OPD_WINDOW_PUT] = "WINDOW_PUT", [OPD_WINDOW_GET] = "WINDOW_GET",
};

const char *opd_op_name(unsigned op)
{
    return op > 0 && op < OPD_OP_END ? names[op] : "?";
}

int opd_check_header(const struct opd_header *h, char *err, size_t errlen)
{
    if (h->magic != OPD_MAGIC)
        return fail(err, errlen, "not an openpimd request (magic 0x%08x)", h->magic);
    if (h->version != OPD_VERSION)
        return fail(err, errlen, "protocol version %u is not supported (openpimd speaks version %u)", h->version,
                    OPD_VERSION);
    if (h->op == 0 || h->op >= OPD_OP_END)
        return fail(err, errlen, "unknown request %u", h->op);
    if (h->status != 0)
        return fail(err, errlen, "a request carries status 0, not %u", h->status);
    if (h->len > OPD_MAX_PAYLOAD)
        return fail(err, errlen, "%s: payload of %llu bytes is over the limit of %u", opd_op_name(h->op),
                    (unsigned long long)h->len, OPD_MAX_PAYLOAD);
    return 0;
}

/* The fixed part of each request (0: none). */
static size_t fixed_size(unsigned op)
{
    switch (op) {
    case OPD_HELLO: return sizeof(struct opd_hello);
    case OPD_CLAIM: return sizeof(struct opd_claim);
    case OPD_RELEASE: return sizeof(struct opd_rank);
    case OPD_PROGRAM_OPEN: return sizeof(struct opd_program);
    case OPD_PROGRAM_CLOSE: return sizeof(struct opd_handle);
    case OPD_LOAD: return sizeof(struct opd_load);
    case OPD_WRITE: return sizeof(struct opd_write);
    case OPD_CHECK_ROOM: return sizeof(struct opd_room);
    case OPD_READ: return sizeof(struct opd_read);
    case OPD_VIEW_WRITE:
    case OPD_VIEW_READ: return sizeof(struct opd_view);
    case OPD_LAUNCH: return sizeof(struct opd_count);
    case OPD_RESULT: return sizeof(struct opd_dpu);
    case OPD_MEMORY: return 0;
    case OPD_SHM_ATTACH: return sizeof(struct opd_shm);
    case OPD_READ_GATHER: return sizeof(struct opd_gather);
    case OPD_WRITE_BATCH: return sizeof(struct opd_batch);
    case OPD_DRAIN: return sizeof(struct opd_drain);
    case OPD_WINDOW_PUT:
    case OPD_WINDOW_GET: return sizeof(struct opd_window_io);
    default: return 0;
    }
}

/* Bulk data of `bytes` bytes described by d: inline (then exactly `rest`
 * bytes follow) or in the window (then none do). */
static int take_data(const struct opd_data *d, uint64_t bytes, uint64_t rest, int inbound, char *err, size_t errlen)
{
    if (d->where == OPD_INLINE) {
        if (bytes > OPD_INLINE_MAX)
            return fail(err, errlen, "%llu bytes of inline data: over %u, use the shared-memory window",
                        (unsigned long long)bytes, OPD_INLINE_MAX);
        if (inbound && rest != bytes)
            return fail(err, errlen, "the request carries %llu bytes of data, its header says %llu",
                        (unsigned long long)rest, (unsigned long long)bytes);
    } else if (d->where == OPD_SHM) {
        if (d->pad)
            return fail(err, errlen, "nonzero padding");
    } else {
        return fail(err, errlen, "data location %u is neither inline nor shared memory", d->where);
    }
    if (!inbound || d->where == OPD_SHM) {
        if (rest != 0)
            return fail(err, errlen, "%llu stray bytes after the request", (unsigned long long)rest);
    }
    return 0;
}

int opd_decode(const struct opd_header *h, const uint8_t *payload, struct opd_request *out, char *err,
               size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->op = h->op;
    out->seq = h->seq;
    size_t fixed = fixed_size(h->op);
    if (h->len < fixed)
        return fail(err, errlen, "%s: %llu payload bytes, the request needs %zu", opd_op_name(h->op),
                    (unsigned long long)h->len, fixed);
    memcpy(&out->u, payload, fixed);
    uint64_t rest = h->len - fixed;
    const uint8_t *p = payload + fixed;
    uint32_t n = 0;
    int has_list = 0;
    switch (h->op) {
    case OPD_LOAD: n = out->u.load.n, has_list = 1; break;
    case OPD_WRITE: n = out->u.write.n, has_list = 1; break;
    case OPD_CHECK_ROOM: n = out->u.room.n, has_list = 1; break;
    case OPD_LAUNCH: n = out->u.count.n, has_list = 1; break;
    case OPD_READ_GATHER: n = out->u.gather.n, has_list = 1; break;
    default: break;
    }
    if (has_list) {
        if (n > OPD_MAX_DPUS)
            return fail(err, errlen, "%s: %u DPUs, more than %u", opd_op_name(h->op), n, OPD_MAX_DPUS);
        if (rest < (uint64_t)n * 4)
            return fail(err, errlen, "%s: the list of %u DPUs is truncated", opd_op_name(h->op), n);
        out->dpus = (const uint32_t *)p; /* the payload buffer is malloc'd and fixed parts are multiples of 8 */
        out->n = n;
        p += (size_t)n * 4;
        rest -= (uint64_t)n * 4;
    }
    switch (h->op) {
    case OPD_PROGRAM_OPEN:
        if (out->u.program.len == 0)
            return fail(err, errlen, "PROGRAM_OPEN: an empty program");
        if (out->u.program.len > OPD_PROGRAM_MAX) /* before a byte of it is read */
            return fail(err, errlen, "PROGRAM_OPEN: a program of %llu bytes, over the %llu MB one may have",
                        (unsigned long long)out->u.program.len, OPD_PROGRAM_MAX >> 20);
        out->data = &out->u.program.data;
        out->data_len = out->u.program.len;
        if (take_data(out->data, out->data_len, rest, 1, err, errlen) != 0)
            return -1;
        break;
    case OPD_WRITE: {
        struct opd_write *w = &out->u.write;
        if (w->nsrc != 1 && w->nsrc != w->n)
            return fail(err, errlen, "WRITE: %u sources for %u DPUs", w->nsrc, w->n);
        if (w->len > UINT32_MAX)
            return fail(err, errlen, "WRITE: %llu bytes per DPU", (unsigned long long)w->len);
        out->data = &w->data;
        out->data_len = (uint64_t)w->nsrc * w->len; /* < 2^48: no overflow */
        if (take_data(out->data, out->data_len, rest, 1, err, errlen) != 0)
            return -1;
        break;
    }
    case OPD_READ:
        if (out->u.read.len > UINT32_MAX)
            return fail(err, errlen, "READ: %llu bytes", (unsigned long long)out->u.read.len);
        out->data = &out->u.read.data;
        out->data_len = out->u.read.len;
        if (take_data(out->data, out->data_len, rest, 0, err, errlen) != 0)
            return -1;
        break;
    case OPD_READ_GATHER:
        if (out->u.gather.len > UINT32_MAX)
            return fail(err, errlen, "READ_GATHER: %llu bytes per DPU", (unsigned long long)out->u.gather.len);
        out->data = &out->u.gather.data;
        out->data_len = (uint64_t)out->u.gather.n * out->u.gather.len; /* < 2^49 */
        if (take_data(out->data, out->data_len, rest, 0, err, errlen) != 0)
            return -1;
        break;
    case OPD_WRITE_BATCH: {
        uint32_t count = out->u.batch.count;
        if (count == 0 || count > OPD_BATCH_MAX)
            return fail(err, errlen, "WRITE_BATCH: %u entries (1 to %u)", count, OPD_BATCH_MAX);
        out->inline_data = p;
        out->data_len = rest;
        uint64_t pos = 0;
        for (uint32_t i = 0; i < count; i++) { /* the framing: exactly count entries fill the rest */
            uint64_t len;
            if (rest - pos < sizeof len)
                return fail(err, errlen, "WRITE_BATCH: entry %u is truncated", i);
            memcpy(&len, p + pos, sizeof len);
            if (len > rest - pos - sizeof len)
                return fail(err, errlen, "WRITE_BATCH: entry %u of %llu bytes is truncated", i,
                            (unsigned long long)len);
            pos += sizeof len + (len + 7) / 8 * 8;
            if (pos > rest)
                return fail(err, errlen, "WRITE_BATCH: entry %u is truncated", i);
        }
        if (pos != rest)
            return fail(err, errlen, "WRITE_BATCH: %llu stray bytes after %u entries",
                        (unsigned long long)(rest - pos), count);
        return 0;
    }
    case OPD_WINDOW_PUT:
    case OPD_WINDOW_GET: {
        if (out->u.window.data.where != OPD_SHM || out->u.window.data.pad)
            return fail(err, errlen, "%s: the data lies in the window (where %u, padding %u)", opd_op_name(h->op),
                        out->u.window.data.where, out->u.window.data.pad);
        if (out->u.window.len > OPD_INLINE_MAX)
            return fail(err, errlen, "%s: %llu bytes, more than %u at once", opd_op_name(h->op),
                        (unsigned long long)out->u.window.len, OPD_INLINE_MAX);
        if (h->op == OPD_WINDOW_PUT && rest != out->u.window.len)
            return fail(err, errlen, "WINDOW_PUT carries %llu bytes of data, its header says %llu",
                        (unsigned long long)rest, (unsigned long long)out->u.window.len);
        if (h->op == OPD_WINDOW_GET && rest != 0)
            return fail(err, errlen, "WINDOW_GET: %llu stray bytes after the request", (unsigned long long)rest);
        out->inline_data = h->op == OPD_WINDOW_PUT ? p : NULL;
        out->data = &out->u.window.data;
        out->data_len = out->u.window.len;
        return 0;
    }
    case OPD_VIEW_WRITE:
    case OPD_VIEW_READ:
        if (out->u.view.size > (1ull << 40))
            return fail(err, errlen, "%s: %llu bytes", opd_op_name(h->op), (unsigned long long)out->u.view.size);
        out->data = &out->u.view.data;
        out->data_len = out->u.view.size;
        if (take_data(out->data, out->data_len, rest, h->op == OPD_VIEW_WRITE, err, errlen) != 0)
            return -1;
        break;
    default:
        if (rest != 0)
            return fail(err, errlen, "%s: %llu stray bytes after the request", opd_op_name(h->op),
                        (unsigned long long)rest);
        break;
    }
    if (out->data && out->data->where == OPD_INLINE && (h->op == OPD_PROGRAM_OPEN || h->op == OPD_WRITE ||
                                                        h->op == OPD_VIEW_WRITE))
        out->inline_data = p;
    return 0;
}

int opd_batch_next(const struct opd_request *batch, uint64_t *pos, struct opd_request *out, char *err,
                   size_t errlen)
{
    uint64_t len;
    if (batch->op != OPD_WRITE_BATCH || batch->data_len - *pos < sizeof len)
        return fail(err, errlen, "WRITE_BATCH: no more entries");
    memcpy(&len, batch->inline_data + *pos, sizeof len);
    if (len > batch->data_len - *pos - sizeof len) /* opd_decode checked the framing: cannot happen */
        return fail(err, errlen, "WRITE_BATCH: a truncated entry");
    struct opd_header h = {.magic = OPD_MAGIC, .version = OPD_VERSION, .op = OPD_WRITE, .seq = batch->seq,
                           .len = len};
    const uint8_t *entry = batch->inline_data + *pos + sizeof len;
    *pos += sizeof len + (len + 7) / 8 * 8;
    if (opd_decode(&h, entry, out, err, errlen) != 0)
        return -1;
    if (out->u.write.data.where != OPD_INLINE)
        return fail(err, errlen, "WRITE_BATCH: a batched write carries its data inline");
    return 0;
}

/* Every DPU of the list exists, lies in one of the sender's ranks and is
 * named once. */
static int check_dpus(const struct opd_context *c, const uint32_t *dpus, uint32_t n, const char *what, char *err,
                      size_t errlen)
{
    int rc = 0;
    uint32_t i = 0;
    for (; i < n; i++) {
        uint32_t d = dpus[i];
        if (d >= c->nr_dpus) {
            rc = fail(err, errlen, "%s: no DPU %u (the machine has %u)", what, d, c->nr_dpus);
            break;
        }
        if (!c->owns(c->ctx, d / c->dpus_per_rank)) {
            rc = fail(err, errlen, "%s: DPU %u is in rank %u, which is not yours", what, d, d / c->dpus_per_rank);
            break;
        }
        if (c->seen[d]) {
            rc = fail(err, errlen, "%s: DPU %u is named twice", what, d);
            break;
        }
        c->seen[d] = 1;
    }
    for (uint32_t k = 0; k < i; k++) /* leave the scratch zero */
        c->seen[dpus[k]] = 0;
    return rc;
}

static int check_range(uint64_t off, uint64_t len, uint64_t size, const char *what, char *err, size_t errlen)
{
    if (off > size || len > size - off)
        return fail(err, errlen, "%s: %llu bytes at offset %llu are outside the %llu-byte memory", what,
                    (unsigned long long)len, (unsigned long long)off, (unsigned long long)size);
    return 0;
}

static int check_window(const struct opd_context *c, const struct opd_request *r, char *err, size_t errlen)
{
    if (!r->data || r->data->where != OPD_SHM)
        return 0;
    if (!c->shm_size)
        return fail(err, errlen, "%s: data in shared memory, but no window is attached", opd_op_name(r->op));
    return check_range(r->data->shm_off, r->data_len, c->shm_size, "shared-memory window", err, errlen);
}

static uint64_t region_size(const struct opd_context *c, uint32_t region)
{
    return region == OP_REGION_MRAM ? c->mram_size : region == OP_REGION_WRAM ? c->wram_size : 0;
}

int opd_check(const struct opd_context *c, const struct opd_request *r, char *err, size_t errlen)
{
    const char *what = opd_op_name(r->op);
    if (check_window(c, r, err, errlen) != 0)
        return -1;
    switch (r->op) {
    case OPD_CLAIM: {
        const struct opd_claim *cl = &r->u.claim;
        uint32_t nr_ranks = c->nr_dpus / c->dpus_per_rank;
        if (cl->min == 0 || cl->min > cl->count || cl->pad)
            return fail(err, errlen, "CLAIM: between %u and %u ranks", cl->min, cl->count);
        if (cl->count > nr_ranks)
            return fail(err, errlen, "CLAIM: %u ranks asked for, the machine has %u", cl->count, nr_ranks);
        return 0;
    }
    case OPD_RELEASE:
        if (r->u.rank.rank >= c->nr_dpus / c->dpus_per_rank || !c->owns(c->ctx, r->u.rank.rank))
            return fail(err, errlen, "RELEASE: rank %u is not yours", r->u.rank.rank);
        return 0;
    case OPD_DRAIN:
        if (r->u.drain.rank >= c->nr_dpus / c->dpus_per_rank)
            return fail(err, errlen, "DRAIN: no rank %u (the machine has %u)", r->u.drain.rank,
                        c->nr_dpus / c->dpus_per_rank);
        if (r->u.drain.on > 1)
            return fail(err, errlen, "DRAIN: 'on' is 0 or 1, not %u", r->u.drain.on);
        return 0;
    case OPD_PROGRAM_CLOSE:
        if (!c->has_program(c->ctx, r->u.handle.handle))
            return fail(err, errlen, "PROGRAM_CLOSE: no program %u", r->u.handle.handle);
        return 0;
    case OPD_LOAD:
        if (!c->has_program(c->ctx, r->u.load.handle))
            return fail(err, errlen, "LOAD: no program %u", r->u.load.handle);
        return check_dpus(c, r->dpus, r->n, what, err, errlen);
    case OPD_WRITE: {
        uint64_t size = region_size(c, r->u.write.region);
        if (!size)
            return fail(err, errlen, "WRITE: region %u cannot be written by the host", r->u.write.region);
        if (check_range(r->u.write.off, r->u.write.len, size, what, err, errlen) != 0)
            return -1;
        return check_dpus(c, r->dpus, r->n, what, err, errlen);
    }
    case OPD_CHECK_ROOM:
        if (check_range(r->u.room.off, r->u.room.len, c->mram_size, what, err, errlen) != 0)
            return -1;
        return check_dpus(c, r->dpus, r->n, what, err, errlen);
    case OPD_READ: {
        uint64_t size = region_size(c, r->u.read.region);
        if (!size)
            return fail(err, errlen, "READ: region %u cannot be read by the host", r->u.read.region);
        if (check_range(r->u.read.off, r->u.read.len, size, what, err, errlen) != 0)
            return -1;
        return check_dpus(c, &r->u.read.dpu, 1, what, err, errlen);
    }
    case OPD_READ_GATHER: {
        uint64_t size = region_size(c, r->u.gather.region);
        if (!size)
            return fail(err, errlen, "READ_GATHER: region %u cannot be read by the host", r->u.gather.region);
        if (check_range(r->u.gather.off, r->u.gather.len, size, what, err, errlen) != 0)
            return -1;
        return check_dpus(c, r->dpus, r->n, what, err, errlen);
    }
    case OPD_VIEW_WRITE:
    case OPD_VIEW_READ:
        if (r->u.view.off % 8 || r->u.view.size % 64 ||
            check_range(r->u.view.off, r->u.view.size / 8, c->mram_size, what, err, errlen) != 0)
            return fail(err, errlen, "%s: %llu bytes at MRAM offset %llu are not whole lines inside MRAM", what,
                        (unsigned long long)r->u.view.size, (unsigned long long)r->u.view.off);
        return check_dpus(c, r->u.view.dpus, 8, what, err, errlen);
    case OPD_LAUNCH:
        return check_dpus(c, r->dpus, r->n, what, err, errlen);
    case OPD_RESULT:
        return check_dpus(c, &r->u.dpu.dpu, 1, what, err, errlen);
    case OPD_SHM_ATTACH:
        if (r->u.shm.kind != OPD_WINDOW_MEMFD && r->u.shm.kind != OPD_WINDOW_DAEMON)
            return fail(err, errlen, "SHM_ATTACH: window kind %u is neither a memfd (0) nor the daemon's (1)",
                        r->u.shm.kind);
        if (r->u.shm.size == 0 || r->u.shm.size > OPD_SHM_MAX)
            return fail(err, errlen, "SHM_ATTACH: a window of %llu bytes", (unsigned long long)r->u.shm.size);
        if (r->u.shm.kind == OPD_WINDOW_DAEMON && r->u.shm.size > OPD_DAEMON_WINDOW_MAX)
            return fail(err, errlen, "SHM_ATTACH: a window of %llu bytes in the daemon's memory, more than %llu",
                        (unsigned long long)r->u.shm.size, OPD_DAEMON_WINDOW_MAX);
        return 0;
    default:
        return 0;
    }
}
