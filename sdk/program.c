/* SPDX-License-Identifier: MIT */
/* Loading DPU programs and looking up their symbols. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "report.h"
#include "vclock.h"

void op_program_drop(struct dpu_program_t *p)
{
    if (!p || !p->refs || --p->refs)
        return;
    op_sdk_backend()->ops->program_close(op_sdk_backend(), p->bp);
    op_image_free(&p->img);
    free(p);
}

/* A handle for the image bytes: parsed here (for symbols) and given to the
 * backend.  NULL with a warning if the image is not valid. */
static struct dpu_program_t *open_program(const void *bytes, size_t len, const char *what)
{
    struct dpu_program_t *h = calloc(1, sizeof *h);
    char err[256];
    if (!h) {
        op_warn("out of memory");
        return NULL;
    }
    if (op_image_parse(bytes, len, &h->img, err, sizeof err) != 0) {
        op_warn("%s is not a valid DPU program: %s", what, err);
        free(h);
        return NULL;
    }
    return h;
}

/* Loads the parsed program onto the set (under the lock); the DPUs share h. */
static dpu_error_t load_image(struct dpu_set_t set, struct dpu_program_t *h, struct dpu_program_t **program)
{
    char err[256];
    op_sync_ranks(set);
    uint32_t n = op_set_count(set), k = 0;
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    h->bp = ids ? OP_BACKEND(program_open, h->img.bytes, h->img.len, err, sizeof err) : NULL;
    dpu_error_t rc = DPU_OK;
    if (!ids) {
        rc = DPU_ERR_SYSTEM;
    } else if (!h->bp) {
        op_warn("cannot load the program: %s", err);
        rc = DPU_ERR_ELF_INVALID_FILE;
    } else {
        struct dpu_t *d;
        OP_SET_FOREACH_DPU(set, d)
            ids[k++] = d->id;
        if (OP_BACKEND(load, ids, k, h->bp, err, sizeof err) != 0) {
            op_warn("cannot load the program: %s", err);
            rc = DPU_ERR_ELF_INVALID_FILE;
        } else {
            OP_SET_FOREACH_DPU(set, d) {
                op_program_drop(d->program);
                d->program = h;
                h->refs++;
            }
        }
    }
    free(ids);
    if (h->refs == 0) {
        if (h->bp)
            OP_BACKEND(program_close, h->bp);
        op_image_free(&h->img);
        free(h);
        h = NULL;
    }
    if (program)
        *program = rc == DPU_OK ? h : NULL;
    return rc;
}

/* Reading and parsing a program need no lock (they touch no shared state): a
 * slow file, or a FIFO that never ends, stalls only its caller.  The set is
 * checked before (for the error the SDK gives first) and again under the lock
 * that loads it. */
static dpu_error_t check_set(struct dpu_set_t set)
{
    op_sdk_lock();
    dpu_error_t rc = op_set_check(set);
    op_sdk_unlock();
    return rc;
}

/* began: when the call started reading and parsing the program, unlocked
 * (SDK time for the virtual clock). */
static dpu_error_t load_parsed(struct dpu_set_t set, struct dpu_program_t *h, struct dpu_program_t **program,
                               double began)
{
    op_sdk_lock();
    op_record_sdk_time(op_real_now_us() - began);
    dpu_error_t rc = op_set_check(set);
    if (rc == DPU_OK) {
        struct op_image img = h->img; /* h may be freed by a failed load: its sizes, for the report */
        rc = load_image(set, h, program);
        if (rc == DPU_OK)
            op_record_load(set, &img);
    } else {
        op_image_free(&h->img);
        free(h);
    }
    op_sdk_unlock();
    return rc;
}

dpu_error_t dpu_load_from_memory(struct dpu_set_t dpu_set, const void *buffer, size_t buffer_size,
                                 struct dpu_program_t **program)
{
    dpu_error_t rc = check_set(dpu_set);
    if (rc != DPU_OK)
        return rc;
    if (!buffer)
        return DPU_ERR_ELF_INVALID_FILE;
    double began = op_real_now_us();
    struct dpu_program_t *h = open_program(buffer, buffer_size, "the buffer");
    return h ? load_parsed(dpu_set, h, program, began) : DPU_ERR_ELF_INVALID_FILE;
}

dpu_error_t dpu_load(struct dpu_set_t dpu_set, const char *binary_path, struct dpu_program_t **program)
{
    dpu_error_t rc = check_set(dpu_set);
    if (rc != DPU_OK)
        return rc;
    if (!binary_path)
        return DPU_ERR_ELF_NO_SUCH_FILE;
    double began = op_real_now_us();
    FILE *f = fopen(binary_path, "rb");
    if (!f) {
        op_warn("cannot open DPU program '%s': %s", binary_path, strerror(errno));
        return DPU_ERR_ELF_NO_SUCH_FILE;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) {
        /* a device such as /dev/zero would be read until memory runs out */
        op_warn("DPU program '%s' is not a file", binary_path);
        fclose(f);
        return DPU_ERR_ELF_INVALID_FILE;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    for (size_t n; buf && (n = fread(buf + len, 1, cap - len, f)) > 0;) {
        len += n;
        if (len == cap) {
            /* a FIFO may never end: stop before the doubling wraps */
            uint8_t *bigger = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    int read_error = ferror(f);
    fclose(f);
    if (!buf || read_error) {
        free(buf);
        return DPU_ERR_SYSTEM;
    }
    char what[PATH_MAX + 2];
    snprintf(what, sizeof what, "'%s'", binary_path);
    struct dpu_program_t *h = open_program(buf, len, what);
    free(buf);
    return h ? load_parsed(dpu_set, h, program, began) : DPU_ERR_ELF_INVALID_FILE;
}

dpu_error_t dpu_load_from_incbin(struct dpu_set_t dpu_set, struct dpu_incbin_t *incbin,
                                 struct dpu_program_t **program)
{
    if (!incbin)
        return DPU_ERR_ELF_INVALID_FILE;
    return dpu_load_from_memory(dpu_set, incbin->buffer, incbin->size, program);
}

static dpu_error_t dpu_get_symbol_locked(struct dpu_program_t *program, const char *symbol_name,
                                         struct dpu_symbol_t *symbol)
{
    if (!program || !symbol_name || !symbol)
        return DPU_ERR_INVALID_SYMBOL_ACCESS;
    return op_symbol_lookup(&program->img, symbol_name, symbol);
}

dpu_error_t dpu_get_symbol(struct dpu_program_t *program, const char *symbol_name, struct dpu_symbol_t *symbol)
{
    OP_LOCKED_RETURN(dpu_get_symbol_locked(program, symbol_name, symbol));
}

dpu_error_t op_symbol_lookup(const struct op_image *img, const char *name, struct dpu_symbol_t *out)
{
    const struct op_symbol *s = op_image_symbol(img, name);
    if (!s)
        return DPU_ERR_UNKNOWN_SYMBOL;
    out->address = s->addr;
    out->size = s->size;
    if (strcmp(name, DPU_MRAM_HEAP_POINTER_NAME) == 0) {
        /* the rest of MRAM; an image whose heap start lies outside MRAM gets an
         * empty heap, not a size that wrapped around */
        uint64_t mram = op_sdk_info()->mram_size;
        bool inside = s->addr >= OP_MRAM_BASE && s->addr - OP_MRAM_BASE <= mram;
        out->size = inside ? (uint32_t)(mram - (s->addr - OP_MRAM_BASE)) : 0;
    }
    return DPU_OK;
}
