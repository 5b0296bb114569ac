/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU runtime: halt, assert, abort, exit, errno, check_stack. */
#include "rt_internal.h"

#include <assert.h>
#include <defs.h>
#include <errno.h>
#include <stdlib.h>

/* Per-tasklet errno (per launch). */
static int __op_errno_of[OP_MAX_TASKLETS] __op_scratch;

void __op_misc_reset(void)
{
    for (uint32_t i = 0; i < OP_MAX_TASKLETS; i++)
        __op_errno_of[i] = 0;
}

int *__op_errno_location(void)
{
    return &__op_errno_of[__op_env->tid];
}

_Noreturn void halt(void)
{
    __op_fault(OP_FAULT_HALT, "halt() called");
}

_Noreturn void abort(void)
{
    __op_fault(OP_FAULT_HALT, "abort() called");
}

_Noreturn void __op_assert_fail(const char *msg)
{
    __op_fault(OP_FAULT_ASSERT, msg);
}

_Noreturn void exit(int status)
{
    (void)status;
    /* The tasklet ends as if main() had returned. */
    __OP_SVC->exit();
    __builtin_unreachable();
}

/* What the DPU frames of the active calls (check_stack's own included) leave
 * of the tasklet's stack, in 32-bit words; a frame that would overflow it
 * faults before, so the result is never negative here. */
int check_stack(void)
{
    return (int)(__op_dstack()->remaining / 4);
}
