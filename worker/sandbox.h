/* SPDX-License-Identifier: MIT */
/* The worker's seccomp sandbox.  DPU code runs natively inside the worker and
 * is linked below 4 GB; the worker's own code (a PIE) and its libraries lie
 * above.  The filter tells them apart by the address of the system call
 * instruction: every system call made from below 4 GB is trapped (SIGSYS), so
 * the worker faults that DPU; the worker's own calls are limited to the short
 * list it needs, anything else is trapped as a bug of the worker. */
#ifndef OPENPIM_SANDBOX_H
#define OPENPIM_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

/* System calls whose instruction lies below this address are DPU code's. */
#define OP_SANDBOX_DPU_LIMIT (1ull << 32)

/* si_code of a SIGSYS sent by seccomp (SYS_SECCOMP in the kernel's
 * asm-generic/siginfo.h, which glibc's headers do not export). */
#define OP_SANDBOX_SI_CODE 1

/* Installs the filter on the calling process (no_new_privs + seccomp); the
 * worker calls it once its setup is done.  Returns 0, or -1 with err filled. */
int op_sandbox_install(char *err, size_t errlen);

/* Whether the worker's own unlisted calls trap (1), or are let through
 * because a sanitizer runtime needs them (0, ASan builds). */
int op_sandbox_worker_strict(void);

/* Name of an x86-64 system call for messages ("?" when not listed). */
const char *op_sandbox_syscall_name(long nr);

#endif
