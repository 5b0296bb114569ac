/* SPDX-License-Identifier: MIT */
/* The worker's seccomp filter (worker/sandbox.c) decision by decision, in a
 * child process that installs it: calls from below 4 GB ("DPU code") always
 * trap, even those the worker may make; the worker's own calls are allowed
 * only as listed (no file opened or looked up by path at all: the worker gets
 * its descriptors from the host; no executable memory above 4 GB, tgkill only
 * of itself, no x32 numbers); another ABI kills the process. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "check.h"
#include "sandbox.h"

static volatile sig_atomic_t traps;
static volatile long trapped_nr;
static volatile uintptr_t trapped_pc;

/* Records the refused call and makes it return -ENOSYS. */
static void on_sigsys(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    ucontext_t *uc = ctx;
    traps++;
    trapped_nr = si->si_code == OP_SANDBOX_SI_CODE ? si->si_syscall : -1;
    trapped_pc = (uintptr_t)si->si_call_addr;
    uc->uc_mcontext.gregs[REG_RAX] = -ENOSYS;
}

static int trapped(long nr, int below_4g)
{
    int ok = traps == 1 && trapped_nr == nr && (trapped_pc < OP_SANDBOX_DPU_LIMIT) == below_4g;
    if (!ok)
        fprintf(stderr, "expected a trap of call %ld (%s 4 GB): %d traps, last %ld at %#lx\n", nr,
                below_4g ? "below" : "above", (int)traps, (long)trapped_nr, (unsigned long)trapped_pc);
    traps = 0;
    trapped_nr = 0;
    return ok;
}

/* A libc wrapper's view of the refused call. */
#define REFUSED(call) ((call) == -1 && errno == ENOSYS)

static int not_trapped(void)
{
    int ok = traps == 0;
    traps = 0;
    return ok;
}

/* Runs in the sandboxed child; its exit status says whether a check failed. */
static int sandboxed(const char *dir, pid_t parent)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSYS, &sa, NULL);
    char err[256];
    if (op_sandbox_install(err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    int strict = op_sandbox_worker_strict();
    char file[256];
    snprintf(file, sizeof file, "%s/created", dir);

    /* "DPU code": a call from a page below 4 GB, of getpid, which the
     * worker itself may make */
    uint8_t *low = mmap((void *)0x50000000ul, 4096, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    CHECK(low == (void *)0x50000000ul);
    CHECK(not_trapped());
    static const uint8_t code[] = {0xb8, 39, 0, 0, 0, /* mov $39 (getpid), %eax */
                                   0x0f, 0x05,        /* syscall */
                                   0xc3};             /* ret */
    memcpy(low, code, sizeof code);
    CHECK_EQ(mprotect(low, 4096, PROT_READ | PROT_EXEC), 0); /* executable below 4 GB: allowed */
    CHECK(not_trapped());
    long r = ((long (*)(void))(uintptr_t)low)();
    CHECK_EQ(r, -ENOSYS);
    CHECK(trapped(SYS_getpid, 1));

    /* the worker's own calls */
    CHECK(syscall(SYS_getpid) == getpid());
    CHECK(not_trapped());
    struct stat st;
    CHECK_EQ(syscall(SYS_fstat, 1, &st), 0);
    CHECK(not_trapped());
    void *m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED && not_trapped());
    CHECK_EQ(syscall(SYS_tgkill, getpid(), gettid(), 0), 0);
    CHECK(not_trapped());
    if (strict) {
        CHECK(REFUSED(syscall(SYS_getppid)));
        CHECK(trapped(SYS_getppid, 0));
        /* not even reading: another pool's memory is a file of the host's (/proc/<pid>/fd/N) */
        CHECK(REFUSED(open("/proc/self/status", O_RDONLY | O_CLOEXEC)));
        CHECK(trapped(SYS_openat, 0));
        CHECK(REFUSED(syscall(SYS_openat, AT_FDCWD, "/proc/self/status", O_RDONLY)));
        CHECK(trapped(SYS_openat, 0));
        CHECK(REFUSED(syscall(SYS_newfstatat, AT_FDCWD, "/proc/self/status", &st, 0)));
        CHECK(trapped(SYS_newfstatat, 0));
        CHECK(REFUSED(open(file, O_WRONLY | O_CREAT, 0644)));
        CHECK(trapped(SYS_openat, 0));
        CHECK(REFUSED(open("/proc/self/status", O_RDONLY | O_TRUNC)));
        CHECK(trapped(SYS_openat, 0));
        CHECK(REFUSED(syscall(SYS_openat, AT_FDCWD, dir, 020000000 | O_DIRECTORY | O_RDWR, 0600))); /* O_TMPFILE */
        CHECK(trapped(SYS_openat, 0));
        CHECK(mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED && errno == ENOSYS);
        CHECK(trapped(SYS_mmap, 0));
        CHECK(REFUSED(mprotect(m, 4096, PROT_READ | PROT_EXEC)));
        CHECK(trapped(SYS_mprotect, 0));
        CHECK(REFUSED(syscall(SYS_tgkill, parent, parent, 0)));
        CHECK(trapped(SYS_tgkill, 0));
        CHECK(REFUSED(syscall(SYS_kill, parent, 0)));
        CHECK(trapped(SYS_kill, 0));
        CHECK(REFUSED(syscall(SYS_fork)));
        CHECK(trapped(SYS_fork, 0));
    }
    /* x32 numbers trap wherever they come from */
    CHECK(REFUSED(syscall(0x40000000l | SYS_getpid)));
    CHECK(trapped(0x40000000l | SYS_getpid, 0));
    int rc = check_done("test_filter (sandboxed child)");
    fflush(stdout);
    return rc;
}

int main(void)
{
    char dir[] = "/tmp/openpim-filter-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    pid_t me = getpid(), child = fork();
    if (child == 0)
        _exit(sandboxed(dir, me));
    int st = 0;
    CHECK_EQ(waitpid(child, &st, 0), child);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_EQ(rmdir(dir), 0); /* nothing was created in it */

    /* a call of the i386 ABI (int $0x80) kills the process */
    child = fork();
    if (child == 0) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        char err[256];
        if (op_sandbox_install(err, sizeof err) != 0)
            _exit(3);
        long r;
        __asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) /* i386 getpid */ : "memory");
        _exit(r > 0 ? 4 : 5);
    }
    CHECK_EQ(waitpid(child, &st, 0), child);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS);
    return check_done("test_filter");
}
