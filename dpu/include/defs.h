/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <defs.h>, tasklet identity and halting. */
#ifndef DPUSYSCORE_DEFS_H
#define DPUSYSCORE_DEFS_H

#include <sysdef.h>
#include <macro_utils.h>
#include <attributes.h>
#include <openpim_rt.h>

#define __ATTRIBUTE_NO_RETURN__ _Noreturn

/* The running tasklet's number. */
static inline sysname_t me(void)
{
    return __op_env->tid;
}

/* Stops the whole DPU with a fault (OP_FAULT_HALT): dpu_launch reports a DPU fault. */
_Noreturn void halt(void);

/* Free space left in the running tasklet's stack, in 32-bit words; negative
 * means overflow.  Counted in DPU frames (the toolchain's estimate of what
 * UPMEM's compiler makes, README "Tasklet stacks"); a frame that would
 * overflow the stack faults instead, so it is never negative here. */
int check_stack(void);

#endif
