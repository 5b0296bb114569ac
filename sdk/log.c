/* SPDX-License-Identifier: MIT */
/* dpu_log_read: prints what a DPU's printf() calls recorded in its MRAM log
 * buffer (__stdout_buffer) during the last launch. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "log_format.h"

dpu_error_t dpulog_read_for_dpu(struct dpu_t *dpu, FILE *stream)
{
    return dpu_log_read(dpu_set_from_dpu(dpu), stream);
}

static dpu_error_t dpu_log_read_locked(struct dpu_set_t dpu_set, FILE *stream)
{
    dpu_error_t rc = op_set_check(dpu_set);
    if (rc != DPU_OK)
        return rc;
    if (dpu_set.kind != DPU_SET_DPU || !stream)
        return DPU_ERR_INVALID_DPU_SET;
    op_sync_ranks(dpu_set); /* the log of a running launch is not complete */
    const struct dpu_program_t *p = dpu_set.dpu->program;
    if (!p)
        return DPU_ERR_NO_PROGRAM_LOADED;
    const struct op_symbol *buf = op_image_symbol(&p->img, "__stdout_buffer");
    const struct op_symbol *st = op_image_symbol(&p->img, "__stdout_buffer_state");
    if (!buf || !st)
        return DPU_OK; /* the program never calls printf */
    const struct op_backend_info *m = op_sdk_info();
    if (op_region_of(buf->addr) != OP_REGION_MRAM || op_region_of(st->addr) != OP_REGION_WRAM ||
        buf->addr - OP_MRAM_BASE + (uint64_t)buf->size > m->mram_size || st->size > 8 ||
        st->addr < OP_WRAM_START(m->wram_size) || (uint64_t)st->addr + st->size > OP_WRAM_END)
        return DPU_ERR_LOG_CONTEXT_MISSING;
    uint64_t state = 0;
    uint8_t *text = malloc(buf->size ? buf->size : 1);
    if (!text)
        return DPU_ERR_SYSTEM;
    char err[256];
    uint32_t id = dpu_set.dpu->id;
    if (OP_BACKEND(read, id, OP_REGION_WRAM, st->addr - OP_WRAM_BASE, &state, st->size, err, sizeof err) != 0 ||
        OP_BACKEND(read, id, OP_REGION_MRAM, buf->addr - OP_MRAM_BASE, text, buf->size, err, sizeof err) != 0) {
        op_warn("%s", err);
        rc = DPU_ERR_SYSTEM;
    } else if (op_log_format(text, buf->size, state, stream) != 0) {
        rc = DPU_ERR_LOG_FORMAT;
    }
    free(text);
    return rc;
}

dpu_error_t dpu_log_read(struct dpu_set_t dpu_set, FILE *stream)
{
    OP_LOCKED_RETURN(dpu_log_read_locked(dpu_set, stream));
}
