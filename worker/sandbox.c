/* SPDX-License-Identifier: MIT */
/* The worker's seccomp filter, a classic BPF program built by hand (see
 * sandbox.h for the policy).  Order of the checks:
 *   1. a system call of another ABI (i386 through int 0x80) kills the worker:
 *      its numbers mean other calls, nothing below may judge it;
 *   2. a call made from below 4 GB (DPU code) traps;
 *   3. a call number with the x32 bit traps (the worker is x86-64 code);
 *   4. the worker's own calls: allowed if listed (with mmap and mprotect of
 *      executable memory only below 4 GB, tgkill only of itself), trapped
 *      otherwise; no call that opens a file is among them. */
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define X32_SYSCALL_BIT 0x40000000u

/* What the worker itself calls once serving (found by tracing the test
 * suite), each with its reason.  Nothing here opens a file: the worker gets
 * every descriptor it needs from the host (its pool's memories when it is
 * started, programs with each launch), so that no call it may make reaches
 * anything but what its pool was given.  clock_gettime is normally the
 * vDSO's. */
static const struct {
    int nr;
    const char *why;
} allowed[] = {
    {SYS_recvfrom, "commands from the host on its socket"},
    {SYS_recvmsg, "a launch's messages, with the programs' memfds (SCM_RIGHTS) from the host"},
    {SYS_sendto, "answers to the host"},
    {SYS_close, "the programs' memfds after a launch"},
    {SYS_munmap, "unmapping a program's file after parsing it; malloc"},
    {SYS_mremap, "realloc of large blocks"},
    {SYS_madvise, "malloc giving memory back"},
    {SYS_mincore, "copying a shared MRAM chunk on its first write: only its written pages"},
    {SYS_brk, "malloc"},
    {SYS_fstat, "a program's size; the memory-limit check (st_blocks of the pool's memfds)"},
    {SYS_setitimer, "the launch budget's timer"},
    {SYS_rt_sigprocmask, "restoring the signal mask when a fault leaves DPU code (siglongjmp)"},
    {SYS_rt_sigreturn, "returning from the fault handler (a shared chunk copied, an MRAM alias mapped, a native stack page made accessible)"},
    {SYS_clock_gettime, "the start of each DPU's run, when the vDSO is not used"},
    {SYS_arch_prctl, "the GS base (the running DPU's MRAM) where FSGSBASE is missing"},
    {SYS_write, "the message of a worker that dies (stderr)"},
    {SYS_rt_sigaction, "dying by its own signal (a bug of the worker itself), so that the host names it"},
    {SYS_getpid, "raise(), as above"},
    {SYS_gettid, "raise(), as above"},
    {SYS_exit_group, "exit"},
};

/* In sanitized builds (ASan, UBSan) the runtimes make calls of their own
 * (LeakSanitizer's tracer thread at exit, ...): there the worker's own
 * unlisted calls are let through; DPU code stays confined. */
#if defined(__SANITIZE_ADDRESS__)
#define WORKER_DEFAULT SECCOMP_RET_ALLOW
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WORKER_DEFAULT SECCOMP_RET_ALLOW
#endif
#endif
#ifndef WORKER_DEFAULT
#define WORKER_DEFAULT SECCOMP_RET_TRAP
#endif

#define MAX_INSNS 128

struct prog {
    struct sock_filter f[MAX_INSNS];
    unsigned n;
};

static void emit(struct prog *p, struct sock_filter insn)
{
    if (p->n < MAX_INSNS)
        p->f[p->n] = insn;
    p->n++; /* counted past the end: install refuses an overflowing program */
}

static void load(struct prog *p, uint32_t offset)
{
    emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset));
}

static void ret(struct prog *p, uint32_t action)
{
    emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action));
}

static void jump(struct prog *p, uint16_t op, uint32_t k, uint8_t jt, uint8_t jf)
{
    emit(p, (struct sock_filter)BPF_JUMP(op, k, jt, jf));
}

/* if (A == k) return action; */
static void ret_if_eq(struct prog *p, uint32_t k, uint32_t action)
{
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 1));
    ret(p, action);
}

int op_sandbox_worker_strict(void)
{
    return WORKER_DEFAULT == SECCOMP_RET_TRAP;
}

int op_sandbox_install(char *err, size_t errlen)
{
    struct prog p = {.n = 0};
    const uint32_t ip_hi = offsetof(struct seccomp_data, instruction_pointer) + 4; /* little-endian */
    load(&p, offsetof(struct seccomp_data, arch));
    emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0));
    ret(&p, SECCOMP_RET_KILL_PROCESS);
    load(&p, ip_hi);
    ret_if_eq(&p, 0, SECCOMP_RET_TRAP);
    load(&p, offsetof(struct seccomp_data, nr));
    emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, X32_SYSCALL_BIT, 0, 1));
    ret(&p, SECCOMP_RET_TRAP);
    for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++)
        ret_if_eq(&p, (uint32_t)allowed[i].nr, SECCOMP_RET_ALLOW);
    /* Executable memory only below 4 GB (the program's code, mapped at its
     * fixed link address), so that no new code appears among the worker's.
     * Offsets: jumps count the instructions they skip. */
    const uint32_t arg0_hi = offsetof(struct seccomp_data, args[0]) + 4;
    jump(&p, BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 0, 8);
    load(&p, offsetof(struct seccomp_data, args[2]));                   /* prot */
    jump(&p, BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 4);               /* not executable: allow */
    load(&p, offsetof(struct seccomp_data, args[3]));                   /* flags */
    jump(&p, BPF_JMP | BPF_JSET | BPF_K, MAP_FIXED | MAP_FIXED_NOREPLACE, 0, 3);
    load(&p, arg0_hi);
    jump(&p, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
    ret(&p, SECCOMP_RET_ALLOW);
    ret(&p, WORKER_DEFAULT);
    load(&p, offsetof(struct seccomp_data, nr));
    jump(&p, BPF_JMP | BPF_JEQ | BPF_K, SYS_mprotect, 0, 6);
    load(&p, offsetof(struct seccomp_data, args[2]));
    jump(&p, BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 2);
    load(&p, arg0_hi);
    jump(&p, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
    ret(&p, SECCOMP_RET_ALLOW);
    ret(&p, WORKER_DEFAULT);
    /* tgkill only to this process: raise(), abort() */
    load(&p, offsetof(struct seccomp_data, nr));
    jump(&p, BPF_JMP | BPF_JEQ | BPF_K, SYS_tgkill, 0, 3);
    load(&p, offsetof(struct seccomp_data, args[0]));
    ret_if_eq(&p, (uint32_t)getpid(), SECCOMP_RET_ALLOW);
    ret(&p, WORKER_DEFAULT); /* any other call, and tgkill of another process */
    if (p.n > MAX_INSNS) {
        snprintf(err, errlen, "seccomp filter too long (%u instructions)", p.n);
        return -1;
    }
    struct sock_fprog prog = {.len = (unsigned short)p.n, .filter = p.f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        snprintf(err, errlen, "prctl(PR_SET_NO_NEW_PRIVS): %s", strerror(errno));
        return -1;
    }
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) {
        snprintf(err, errlen, "cannot install the seccomp filter: %s", strerror(errno));
        return -1;
    }
    return 0;
}

#define N(name) {SYS_##name, #name}
static const struct {
    int nr;
    const char *name;
} names[] = {
    N(read), N(write), N(open), N(close), N(stat), N(fstat), N(lstat), N(poll), N(lseek), N(mmap),
    N(mprotect), N(munmap), N(brk), N(rt_sigaction), N(rt_sigprocmask), N(rt_sigreturn), N(ioctl),
    N(pread64), N(pwrite64), N(readv), N(writev), N(access), N(pipe), N(select), N(sched_yield),
    N(mremap), N(msync), N(mincore), N(madvise), N(shmget), N(shmat), N(shmctl), N(dup), N(dup2),
    N(pause), N(nanosleep), N(getitimer), N(alarm), N(setitimer), N(getpid), N(sendfile), N(socket),
    N(connect), N(accept), N(sendto), N(recvfrom), N(sendmsg), N(recvmsg), N(shutdown), N(bind),
    N(listen), N(socketpair), N(clone), N(fork), N(vfork), N(execve), N(exit), N(wait4), N(kill),
    N(uname), N(fcntl), N(flock), N(fsync), N(truncate), N(ftruncate), N(getdents), N(getcwd),
    N(chdir), N(rename), N(mkdir), N(rmdir), N(creat), N(link), N(unlink), N(symlink), N(readlink),
    N(chmod), N(chown), N(umask), N(gettimeofday), N(getrlimit), N(getrusage), N(sysinfo), N(ptrace),
    N(getuid), N(getgid), N(setuid), N(setgid), N(geteuid), N(getppid), N(setsid), N(sigaltstack),
    N(mknod), N(personality), N(prctl), N(arch_prctl), N(setrlimit), N(chroot), N(sync), N(mount),
    N(umount2), N(reboot), N(gettid), N(tkill), N(futex), N(sched_setaffinity), N(getdents64),
    N(set_tid_address), N(restart_syscall), N(clock_gettime), N(clock_nanosleep), N(exit_group),
    N(tgkill), N(openat), N(mkdirat), N(unlinkat), N(renameat), N(newfstatat), N(pipe2), N(dup3),
    N(prlimit64), N(memfd_create), N(execveat), N(bpf), N(userfaultfd), N(pkey_mprotect),
    N(io_uring_setup), N(pidfd_open), N(pidfd_send_signal), N(clone3), N(process_vm_readv),
    N(process_vm_writev), N(seccomp), N(getrandom), N(fallocate), N(unshare), N(setns),
};
#undef N

const char *op_sandbox_syscall_name(long nr)
{
    if (nr & X32_SYSCALL_BIT)
        return "x32 ABI";
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].nr == nr)
            return names[i].name;
    return "?";
}
