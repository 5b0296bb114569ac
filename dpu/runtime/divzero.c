/* SPDX-License-Identifier: MIT */
/* Integer division by zero.  The DPU's division routines execute "fault 2"
 * for a zero divisor; the accounting pass guards every division and calls this
 * hook instead of letting x86 trap. */
#include "rt_internal.h"

void __op_div_by_zero(void)
{
    __op_env->svc->fault(OP_FAULT_DIV_ZERO, "integer division by zero (DPU fault 2)");
}
