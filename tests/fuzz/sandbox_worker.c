/* openpim-worker under a seccomp filter, for fuzzing only.
 *
 * The API fuzzer loads mutated DPU images and launches them; a DPU program is
 * native x86-64 code run by the worker, so a mutated image is arbitrary native
 * code.  libdpu starts this wrapper (OPENPIM_WORKER points at it), which
 * forbids what such code could do to the rest of the system (signal other
 * processes, fork, exec, delete or truncate files, ioctl a terminal, open
 * sockets, ...) and then execs the real worker (OPENPIM_FUZZ_REAL_WORKER) with
 * the same arguments.  Forbidden calls fail with EPERM. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LOAD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define LOAD_ARG0_LO BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]))
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define DENY BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)

static const int denied[] = {
    SYS_fork, SYS_vfork, SYS_clone, SYS_clone3, SYS_execveat, SYS_ptrace, SYS_process_vm_readv,
    SYS_process_vm_writev, SYS_unlink, SYS_unlinkat, SYS_rename, SYS_renameat, SYS_renameat2, SYS_rmdir,
    SYS_truncate, SYS_ftruncate, SYS_fallocate, SYS_chmod, SYS_fchmod, SYS_fchmodat, SYS_chown, SYS_fchown,
    SYS_lchown, SYS_fchownat, SYS_link, SYS_linkat, SYS_symlink, SYS_symlinkat, SYS_mknod, SYS_mknodat,
    SYS_mkdir, SYS_mkdirat, SYS_setpgid, SYS_setsid, SYS_setpriority, SYS_prlimit64, SYS_setrlimit,
    SYS_pidfd_open, SYS_pidfd_send_signal, SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo, SYS_ioctl, SYS_socket,
    SYS_connect, SYS_bind, SYS_listen, SYS_accept, SYS_accept4, SYS_mount, SYS_umount2, SYS_chroot,
    SYS_pivot_root, SYS_kexec_load, SYS_reboot, SYS_bpf, SYS_perf_event_open, SYS_userfaultfd, SYS_keyctl,
    SYS_add_key, SYS_request_key, SYS_unshare, SYS_setns, SYS_io_uring_setup, SYS_memfd_create,
    SYS_sched_setaffinity, SYS_sched_setscheduler, SYS_ioprio_set, SYS_flock, SYS_sendfile, SYS_splice,
};

int main(int argc, char **argv)
{
    (void)argc;
    const char *real = getenv("OPENPIM_FUZZ_REAL_WORKER");
    if (!real || !*real) {
        fprintf(stderr, "sandbox_worker: OPENPIM_FUZZ_REAL_WORKER is not set\n");
        return 2;
    }
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    uint32_t self = (uint32_t)getpid(); /* execve keeps the pid */

    struct sock_filter f[256];
    unsigned n = 0;
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    f[n++] = (struct sock_filter)LOAD_NR;
    /* x32 and other ABIs sharing the arch value */
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
    f[n++] = (struct sock_filter)DENY;
    for (size_t i = 0; i < sizeof denied / sizeof *denied; i++) {
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)denied[i], 0, 1);
        f[n++] = (struct sock_filter)DENY;
    }
    /* execve only of the path string below, at this very address: our own exec */
    uint64_t path = (uint64_t)(uintptr_t)real;
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execve, 0, 6);
    f[n++] = (struct sock_filter)LOAD_ARG0_LO;
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)path, 0, 3);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]) + 4);
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(path >> 32), 0, 1);
    f[n++] = (struct sock_filter)ALLOW;
    f[n++] = (struct sock_filter)DENY;
    /* signals only to ourselves (raise(), abort()) */
    const int signalling[] = {SYS_kill, SYS_tkill, SYS_tgkill};
    for (size_t i = 0; i < 3; i++) {
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)signalling[i], 0, 4);
        f[n++] = (struct sock_filter)LOAD_ARG0_LO;
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, self, 0, 1);
        f[n++] = (struct sock_filter)ALLOW;
        f[n++] = (struct sock_filter)DENY;
    }
    f[n++] = (struct sock_filter)ALLOW;
    struct sock_fprog prog = {.len = (unsigned short)n, .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
        fprintf(stderr, "sandbox_worker: cannot install the seccomp filter: %s\n", strerror(errno));
        return 2;
    }
    execv(real, argv);
    fprintf(stderr, "sandbox_worker: cannot exec %s: %s\n", real, strerror(errno));
    return 2;
}
