/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU runtime: private glue between the syslib headers and the worker.
 * Not an UPMEM header; DPU programs have no reason to include it directly.
 *
 * The worker owns every tasklet switch: the image reaches it only through
 * __op_env->svc (see abi/dpu_abi.h).  Tasklets are coroutines, so runtime
 * code is atomic between two calls that may switch (yield, block).
 */
#ifndef OPENPIM_RT_H
#define OPENPIM_RT_H

#include <stdint.h>
#include <dpu_abi.h>

extern struct op_env *__op_env;
extern uint64_t __op_icount;

#define __OP_SVC (__op_env->svc)

/* Keys passed to svc->block/wake (abi/dpu_abi.h, op_wait_kind). */
#define __OP_KEY_MUTEX(p) OP_WAIT_KEY(OP_WAIT_MUTEX, (uintptr_t)(p))
#define __OP_KEY_BARRIER(p) OP_WAIT_KEY(OP_WAIT_BARRIER, (uintptr_t)(p))
#define __OP_KEY_SEM(p) OP_WAIT_KEY(OP_WAIT_SEM, (uintptr_t)(p))
#define __OP_KEY_HS_NOTIFIER(t) OP_WAIT_KEY(OP_WAIT_HS_NOTIFIER, (t))
#define __OP_KEY_HS_WAITER(t) OP_WAIT_KEY(OP_WAIT_HS_WAITER, (t))
#define __OP_KEY_VMUTEX(p, id) OP_WAIT_KEY(OP_WAIT_VMUTEX, ((uint64_t)(uintptr_t)(p) << 16) | (uint64_t)(id))

/* Stop the DPU with a fault (message copied by the worker). */
_Noreturn void __op_fault(enum op_fault why, const char *msg);
/* Like __op_fault with a formatted message: %s (const char *), %u (uint64_t,
 * decimal), %x (uint64_t, as 0x%08x). */
_Noreturn void __op_faultf(enum op_fault why, const char *fmt, ...);

/* Linker-script symbols (toolchain/dpu.lds). */
extern uint8_t __op_wram_start[];
extern uint8_t __op_wram_end[];
extern uint8_t __op_heap_start[];
extern uint8_t __op_heap_end[];

#endif
