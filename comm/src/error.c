/* SPDX-License-Identifier: MIT */
/* The thread's last error message and the names of the status codes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

static _Thread_local char message[256];

openpim_comm_status comm_fail(openpim_comm_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return status;
}

void comm_clear_error(void)
{
    message[0] = 0;
}

openpim_comm_status comm_dpu_fail(dpu_error_t rc, const char *what)
{
    char *s = dpu_error_to_string(rc);
    openpim_comm_status st = comm_fail(OPENPIM_COMM_ERR_DPU, "%s: %s", what, s ? s : "DPU error");
    free(s);
    return st;
}

const char *openpim_comm_last_error(void)
{
    return message;
}

const char *openpim_comm_status_name(openpim_comm_status status)
{
    switch (status) {
    case OPENPIM_COMM_OK: return "ok";
    case OPENPIM_COMM_ERR_ARGUMENT: return "bad argument";
    case OPENPIM_COMM_ERR_SHAPE: return "shape does not match the DPU set";
    case OPENPIM_COMM_ERR_SIZE: return "bad size";
    case OPENPIM_COMM_ERR_RANGE: return "past the end of MRAM";
    case OPENPIM_COMM_ERR_OVERLAP: return "source and destination overlap";
    case OPENPIM_COMM_ERR_TYPE_OP: return "unsupported type or operation";
    case OPENPIM_COMM_ERR_DPU: return "DPU error";
    case OPENPIM_COMM_ERR_NOMEM: return "out of host memory";
    }
    return "unknown status";
}
