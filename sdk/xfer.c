/* Host <-> DPU transfers by symbol: copy, broadcast, prepared pushes and
 * scatter-gather.  Checks follow the UPMEM SDK: off + length within the symbol
 * (DPU_ERR_INVALID_SYMBOL_ACCESS), WRAM offsets and lengths 4-byte aligned
 * (DPU_ERR_INVALID_WRAM_ACCESS), accesses inside the memory.  A refused
 * transfer changes nothing, on the DPUs or in the host buffers.  Asynchronous
 * flags queue behind pending launches; the copy itself is done at once. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "report.h"
#include "vclock.h"

struct target {
    enum op_region region;
    uint32_t offset; /* in the DPU memory */
};

/* The program all DPUs of the set run. */
static dpu_error_t common_program(struct dpu_set_t set, struct op_program **out)
{
    struct op_program *p = NULL;
    struct dpu_t *d;
    bool any = false;
    OP_SET_FOREACH_DPU(set, d) {
        struct op_program *q = op_machine_program(op_sdk_machine(), d->id);
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

static dpu_error_t resolve(struct dpu_set_t set, const char *name, struct dpu_symbol_t *sym)
{
    if (!name)
        return DPU_ERR_UNKNOWN_SYMBOL;
    struct op_program *p;
    dpu_error_t rc = common_program(set, &p);
    return rc != DPU_OK ? rc : op_symbol_lookup(&p->img, name, sym);
}

/* Every bound is checked as "length fits in what is left", never as
 * "offset + length <= limit": off and len come from the caller and len is a
 * size_t, so the sum can wrap (off 8 + len 2^64 - 8 is 0). */
static dpu_error_t check_access(struct dpu_symbol_t sym, uint32_t off, size_t len, struct target *t)
{
    if (off > sym.size || len > (size_t)(sym.size - off))
        return DPU_ERR_INVALID_SYMBOL_ACCESS;
    /* from here len <= sym.size < 2^32, and addr < 2^33: no sum below wraps */
    uint64_t addr = (uint64_t)sym.address + off;
    struct op_machine *m = op_sdk_machine();
    switch (op_region_of(sym.address)) {
    case OP_REGION_WRAM:
        if ((addr | len) & 3u)
            return DPU_ERR_INVALID_WRAM_ACCESS;
        if (addr < OP_WRAM_START(op_machine_wram_size(m)) || addr > OP_WRAM_END || len > OP_WRAM_END - addr)
            return DPU_ERR_INVALID_WRAM_ACCESS;
        t->region = OP_REGION_WRAM;
        t->offset = (uint32_t)(addr - OP_WRAM_BASE);
        return DPU_OK;
    case OP_REGION_MRAM:
        if (addr - OP_MRAM_BASE > op_machine_mram_size(m) || len > op_machine_mram_size(m) - (addr - OP_MRAM_BASE))
            return DPU_ERR_INVALID_MRAM_ACCESS;
        t->region = OP_REGION_MRAM;
        t->offset = (uint32_t)(addr - OP_MRAM_BASE);
        return DPU_OK;
    case OP_REGION_IRAM:
        return DPU_ERR_INVALID_IRAM_ACCESS;
    default:
        return DPU_ERR_INVALID_SYMBOL_ACCESS;
    }
}

static uint8_t *host_ptr(const struct dpu_t *d, const struct target *t)
{
    struct op_machine *m = op_sdk_machine();
    return (t->region == OP_REGION_WRAM ? op_machine_wram(m, d->id) : op_machine_mram(m, d->id)) + t->offset;
}

/* DPU memory -> host; MRAM never written reads as zeros without costing host memory. */
static void read_dpu(const struct dpu_t *d, const struct target *t, void *dst, size_t len)
{
    if (t->region == OP_REGION_MRAM)
        op_machine_mram_read(op_sdk_machine(), d->id, t->offset, dst, len);
    else
        memcpy(dst, host_ptr(d, t), len);
}

/* Refuses a write to the MRAM of the set's DPUs (those with a prepared buffer
 * if `prepared`) that the host could not back. */
static dpu_error_t check_room(struct dpu_set_t set, const struct target *t, size_t len, bool prepared)
{
    if (t->region != OP_REGION_MRAM || len == 0)
        return DPU_OK;
    uint32_t n = op_set_count(set), k = 0;
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids)
        return DPU_ERR_SYSTEM;
    struct dpu_t *d;
    OP_SET_FOREACH_DPU(set, d)
        if (!prepared || d->xfer)
            ids[k++] = d->id;
    char err[256];
    int rc = op_machine_check_mram_write(op_sdk_machine(), ids, k, t->offset, len, err, sizeof err);
    free(ids);
    if (rc != 0) {
        op_warn("%s", err);
        return DPU_ERR_SYSTEM;
    }
    return DPU_OK;
}

static dpu_error_t prepare(struct dpu_set_t set, const struct dpu_symbol_t *given, const char *name, uint32_t off,
                           size_t len, struct target *t)
{
    dpu_error_t rc = op_set_check(set);
    if (rc != DPU_OK)
        return rc;
    if ((rc = op_sync_ranks(set)) != DPU_OK && rc != DPU_ERR_DPU_FAULT)
        return rc;
    struct dpu_symbol_t sym;
    if (given) {
        struct op_program *p;
        if ((rc = common_program(set, &p)) != DPU_OK)
            return rc;
        sym = *given;
    } else if ((rc = resolve(set, name, &sym)) != DPU_OK) {
        return rc;
    }
    return check_access(sym, off, len, t);
}

static dpu_error_t copy_to(struct dpu_set_t set, const struct dpu_symbol_t *sym, const char *name, uint32_t off,
                           const void *src, size_t len)
{
    double t0 = op_real_now_us();
    struct target t;
    dpu_error_t rc = prepare(set, sym, name, off, len, &t);
    if (rc != DPU_OK || len == 0)
        return rc;
    if (!src)
        return DPU_ERR_INVALID_MEMORY_TRANSFER;
    if ((rc = check_room(set, &t, len, false)) != DPU_OK)
        return rc;
    struct dpu_t *d;
    uint32_t n = 0;
    OP_SET_FOREACH_DPU(set, d) {
        memcpy(host_ptr(d, &t), src, len);
        n++;
    }
    op_record_xfer(set, set.kind == DPU_SET_DPU ? OP_XFER_SERIAL : OP_XFER_BROADCAST, 1, t.region, len, n, t0);
    return DPU_OK;
}

dpu_error_t dpu_copy_to(struct dpu_set_t dpu_set, const char *symbol_name, uint32_t symbol_offset, const void *src,
                        size_t length)
{
    OP_LOCKED_RETURN(copy_to(dpu_set, NULL, symbol_name, symbol_offset, src, length));
}

dpu_error_t dpu_copy_to_symbol(struct dpu_set_t dpu_set, struct dpu_symbol_t symbol, uint32_t symbol_offset,
                               const void *src, size_t length)
{
    OP_LOCKED_RETURN(copy_to(dpu_set, &symbol, NULL, symbol_offset, src, length));
}

dpu_error_t dpu_broadcast_to(struct dpu_set_t dpu_set, const char *symbol_name, uint32_t symbol_offset,
                             const void *src, size_t length, dpu_xfer_flags_t flags)
{
    (void)flags;
    OP_LOCKED_RETURN(copy_to(dpu_set, NULL, symbol_name, symbol_offset, src, length));
}

dpu_error_t dpu_broadcast_to_symbol(struct dpu_set_t dpu_set, struct dpu_symbol_t symbol, uint32_t symbol_offset,
                                    const void *src, size_t length, dpu_xfer_flags_t flags)
{
    (void)flags;
    OP_LOCKED_RETURN(copy_to(dpu_set, &symbol, NULL, symbol_offset, src, length));
}

static dpu_error_t copy_from(struct dpu_set_t set, const struct dpu_symbol_t *sym, const char *name, uint32_t off,
                             void *dst, size_t len)
{
    double t0 = op_real_now_us();
    if (set.kind != DPU_SET_DPU)
        return DPU_ERR_INVALID_DPU_SET;
    struct target t;
    dpu_error_t rc = prepare(set, sym, name, off, len, &t);
    if (rc != DPU_OK || len == 0)
        return rc;
    if (!dst)
        return DPU_ERR_INVALID_MEMORY_TRANSFER;
    read_dpu(set.dpu, &t, dst, len);
    op_record_xfer(set, OP_XFER_SERIAL, 0, t.region, len, 1, t0);
    return DPU_OK;
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
    double t0 = op_real_now_us();
    if (xfer != DPU_XFER_TO_DPU && xfer != DPU_XFER_FROM_DPU)
        return DPU_ERR_INVALID_MEMORY_TRANSFER;
    struct target t;
    dpu_error_t rc = prepare(set, sym, name, off, len, &t);
    if (rc != DPU_OK)
        return rc;
    if (xfer == DPU_XFER_TO_DPU && (rc = check_room(set, &t, len, true)) != DPU_OK)
        return rc;
    struct dpu_t *d;
    uint32_t n = 0;
    OP_SET_FOREACH_DPU(set, d) {
        if (d->xfer && len) {
            if (xfer == DPU_XFER_TO_DPU)
                memcpy(host_ptr(d, &t), d->xfer, len);
            else
                read_dpu(d, &t, d->xfer, len);
            n++;
        }
        if (!(flags & DPU_XFER_NO_RESET))
            d->xfer = NULL;
    }
    if (n)
        op_record_xfer(set, OP_XFER_PARALLEL, xfer == DPU_XFER_TO_DPU, t.region, len, n, t0);
    return DPU_OK;
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
    OP_SET_FOREACH_DPU(set, d) {
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
            if (copy && xfer == DPU_XFER_TO_DPU)
                memcpy(host_ptr(d, t) + done, blk.addr, blk.length);
            else if (copy)
                op_machine_mram_read(op_sdk_machine(), d->id, t->offset + done, blk.addr, blk.length);
            done += blk.length;
        }
        if (done != len && !(flags & DPU_SG_XFER_DISABLE_LENGTH_CHECK))
            return DPU_ERR_SG_LENGTH_MISMATCH;
        *total_bytes += done;
        *n += done > 0;
        index++;
    }
    return DPU_OK;
}

static dpu_error_t sg_push(struct dpu_set_t set, dpu_xfer_t xfer, const struct dpu_symbol_t *sym, const char *name,
                           uint32_t off, size_t len, get_block_t *gb, dpu_sg_xfer_flags_t flags)
{
    double t0 = op_real_now_us();
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
    if (xfer == DPU_XFER_TO_DPU && (rc = check_room(set, &t, len, false)) != DPU_OK)
        return rc;
    /* every block list is checked before any byte moves, so that a refused
     * transfer leaves the DPUs and the host buffers as they were (get_block
     * must give the same answers twice, as it is a description of buffers) */
    uint64_t total_bytes;
    uint32_t n;
    if ((rc = sg_walk(set, xfer, &t, len, gb, max_blocks, flags, false, &total_bytes, &n)) != DPU_OK ||
        (rc = sg_walk(set, xfer, &t, len, gb, max_blocks, flags, true, &total_bytes, &n)) != DPU_OK)
        return rc;
    if (n)
        op_record_xfer(set, OP_XFER_PARALLEL, xfer == DPU_XFER_TO_DPU, t.region, (size_t)(total_bytes / n), n, t0);
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
