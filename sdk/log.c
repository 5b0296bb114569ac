/* dpu_log_read: prints what a DPU's printf() calls recorded in its MRAM log
 * buffer (__stdout_buffer) during the last launch. */
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
    struct op_machine *m = op_sdk_machine();
    struct op_program *p = op_machine_program(m, dpu_set.dpu->id);
    if (!p)
        return DPU_ERR_NO_PROGRAM_LOADED;
    const struct op_symbol *buf = op_image_symbol(&p->img, "__stdout_buffer");
    const struct op_symbol *st = op_image_symbol(&p->img, "__stdout_buffer_state");
    if (!buf || !st)
        return DPU_OK; /* the program never calls printf */
    if (op_region_of(buf->addr) != OP_REGION_MRAM || op_region_of(st->addr) != OP_REGION_WRAM ||
        buf->addr - OP_MRAM_BASE + (uint64_t)buf->size > op_machine_mram_size(m) || st->size > 8 ||
        st->addr < OP_WRAM_START(op_machine_wram_size(m)) || (uint64_t)st->addr + st->size > OP_WRAM_END)
        return DPU_ERR_LOG_CONTEXT_MISSING;
    uint64_t state = 0;
    memcpy(&state, op_machine_wram(m, dpu_set.dpu->id) + (st->addr - OP_WRAM_BASE), st->size);
    if (op_log_format(op_machine_mram(m, dpu_set.dpu->id) + (buf->addr - OP_MRAM_BASE), buf->size, state, stream) != 0)
        return DPU_ERR_LOG_FORMAT;
    return DPU_OK;
}

dpu_error_t dpu_log_read(struct dpu_set_t dpu_set, FILE *stream)
{
    OP_LOCKED_RETURN(dpu_log_read_locked(dpu_set, stream));
}
