/* SPDX-License-Identifier: MIT */
/* dpu_error_to_string, the error messages (op_warn, openpim_last_error) and
 * the energy probes the emulator does not have. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpu_probe.h>

#include "internal.h"
#include "openpim_ext.h"
#include "progress.h"

static const char *describe(dpu_error_t e)
{
    switch (e) {
    case DPU_OK: return "success";
    case DPU_ERR_INTERNAL: return "internal error";
    case DPU_ERR_SYSTEM: return "system error";
    case DPU_ERR_DRIVER: return "driver error";
    case DPU_ERR_ALLOCATION: return "allocation error";
    case DPU_ERR_INVALID_DPU_SET: return "invalid DPU set";
    case DPU_ERR_INVALID_THREAD_ID: return "invalid thread id";
    case DPU_ERR_INVALID_NOTIFY_ID: return "invalid notify id";
    case DPU_ERR_INVALID_WRAM_ACCESS: return "invalid WRAM access";
    case DPU_ERR_INVALID_IRAM_ACCESS: return "invalid IRAM access";
    case DPU_ERR_INVALID_MRAM_ACCESS: return "invalid MRAM access";
    case DPU_ERR_INVALID_SYMBOL_ACCESS: return "invalid symbol access";
    case DPU_ERR_MRAM_BUSY: return "MRAM is busy";
    case DPU_ERR_TRANSFER_ALREADY_SET: return "transfer already set";
    case DPU_ERR_DIFFERENT_DPU_PROGRAMS: return "different DPU programs";
    case DPU_ERR_CORRUPTED_MEMORY: return "corrupted memory";
    case DPU_ERR_DPU_DISABLED: return "DPU is disabled";
    case DPU_ERR_DPU_ALREADY_RUNNING: return "DPU is already running";
    case DPU_ERR_INVALID_MEMORY_TRANSFER: return "invalid memory transfer";
    case DPU_ERR_INVALID_LAUNCH_POLICY: return "invalid launch policy";
    case DPU_ERR_DPU_FAULT: return "DPU is in fault";
    case DPU_ERR_ELF_INVALID_FILE: return "invalid ELF file";
    case DPU_ERR_ELF_NO_SUCH_FILE: return "no such ELF file";
    case DPU_ERR_ELF_NO_SUCH_SECTION: return "no such ELF section";
    case DPU_ERR_TIMEOUT: return "timeout";
    case DPU_ERR_INVALID_PROFILE: return "invalid profile";
    case DPU_ERR_UNKNOWN_SYMBOL: return "unknown symbol";
    case DPU_ERR_LOG_FORMAT: return "log format error";
    case DPU_ERR_LOG_CONTEXT_MISSING: return "log context missing";
    case DPU_ERR_LOG_BUFFER_TOO_SMALL: return "log buffer too small";
    case DPU_ERR_VPD_INVALID_FILE: return "invalid VPD file";
    case DPU_ERR_VPD_NO_REPAIR: return "no repair in VPD";
    case DPU_ERR_NO_PROGRAM_LOADED: return "no program loaded";
    case DPU_ERR_INVALID_PARALLEL_MEMORY_TRANSFER: return "invalid parallel memory transfer";
    case DPU_ERR_WRAM_FIFO_FULL: return "WRAM FIFO full";
    case DPU_ERR_SG_TOO_MANY_BLOCKS: return "too many blocks in scatter-gather transfer";
    case DPU_ERR_SG_LENGTH_MISMATCH: return "scatter-gather block lengths do not add up to the transfer length";
    case DPU_ERR_SG_NOT_ACTIVATED: return "scatter-gather transfers not enabled (profile sgXferEnable=true)";
    case DPU_ERR_SG_NOT_MRAM_SYMBOL: return "scatter-gather transfer to a non-MRAM symbol";
    case DPU_ERR_UNSUPPORTED: return "not supported by the OpenPIM emulator";
    case DPU_ERR_ASYNC_JOBS: return "asynchronous job error";
    }
    return NULL;
}

char *dpu_error_to_string(dpu_error_t status)
{
    const char *s = describe(status);
    char *out = NULL;
    if (s)
        return strdup(s);
    if (asprintf(&out, "unknown error (%u)", (unsigned)status) < 0)
        return NULL;
    return out;
}

dpu_error_t dpu_probe_init(const char *device_name, struct dpu_probe_t *probe)
{
    (void)device_name;
    (void)probe;
    op_warn("energy probes (dpu_probe_*) are not available: OpenPIM models time, not energy");
    return DPU_ERR_UNSUPPORTED;
}
dpu_error_t dpu_probe_deinit(struct dpu_probe_t *probe)
{
    (void)probe;
    return DPU_ERR_UNSUPPORTED;
}
dpu_error_t dpu_probe_start(struct dpu_probe_t *probe)
{
    (void)probe;
    return DPU_ERR_UNSUPPORTED;
}
dpu_error_t dpu_probe_stop(struct dpu_probe_t *probe)
{
    (void)probe;
    return DPU_ERR_UNSUPPORTED;
}
dpu_error_t dpu_probe_get(struct dpu_probe_t *probe, dpu_probe_option_t option, dpu_probe_scale_t scale,
                          double *value)
{
    (void)probe;
    (void)option;
    (void)scale;
    if (value)
        *value = 0;
    return DPU_ERR_UNSUPPORTED;
}

/* The message of the calling thread's last failing call (see openpim_ext.h):
 * kept by op_warn, cleared when the thread enters the library (op_sdk_lock). */
static _Thread_local char last_error[512];

void op_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    op_progress_break(); /* a message never lands at the end of the progress line */
    fprintf(stderr, "openpim: %s\n", last_error);
}

void op_clear_last_error(void)
{
    last_error[0] = 0;
}

const char *openpim_last_error(void)
{
    return last_error;
}
