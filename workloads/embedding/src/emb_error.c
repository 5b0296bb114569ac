/* SPDX-License-Identifier: MIT */
/* Errors: a thread-local message for openpim_emb_last_error(). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#include "openpim_ext.h"

static _Thread_local char last_error[512];

openpim_emb_status emb_fail(openpim_emb_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

openpim_emb_status emb_dpu_fail(dpu_error_t rc, const char *what)
{
    char *s = dpu_error_to_string(rc);
    const char *why = openpim_last_error();
    openpim_emb_status st = emb_fail(OPENPIM_EMB_ERR_DPU, "%s: %s%s%s", what, s ? s : "DPU error",
                                     why && *why ? ": " : "", why ? why : "");
    free(s);
    return st;
}

openpim_emb_status emb_comm_fail(openpim_comm_status rc, const char *what)
{
    return emb_fail(OPENPIM_EMB_ERR_DPU, "%s: %s: %s", what, openpim_comm_status_name(rc), openpim_comm_last_error());
}

void emb_clear_error(void)
{
    last_error[0] = '\0';
}

const char *openpim_emb_last_error(void)
{
    return last_error;
}

const char *openpim_emb_status_name(openpim_emb_status status)
{
    switch (status) {
    case OPENPIM_EMB_OK: return "OPENPIM_EMB_OK";
    case OPENPIM_EMB_ERR_ARGUMENT: return "OPENPIM_EMB_ERR_ARGUMENT";
    case OPENPIM_EMB_ERR_PLAN: return "OPENPIM_EMB_ERR_PLAN";
    case OPENPIM_EMB_ERR_CAPACITY: return "OPENPIM_EMB_ERR_CAPACITY";
    case OPENPIM_EMB_ERR_INDEX: return "OPENPIM_EMB_ERR_INDEX";
    case OPENPIM_EMB_ERR_DPU: return "OPENPIM_EMB_ERR_DPU";
    case OPENPIM_EMB_ERR_NOMEM: return "OPENPIM_EMB_ERR_NOMEM";
    }
    return "unknown status";
}
