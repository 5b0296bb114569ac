/* SPDX-License-Identifier: MIT */
/* openpim-worker: the process that plays DPUs.  The host spawns up to one per
 * host core for each pool of ranks (abi/shared.h); each maps its pool's
 * control block and the memories of its pool's ranks (the only ones whose
 * descriptors it holds), loads DPU images at their link addresses and runs the
 * DPUs it pulls from the current launch.  A DPU fault (signal or runtime
 * check) ends that DPU's run, is reported in its result and leaves the worker
 * ready for the next DPU. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <immintrin.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <asm/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../abi/dpu_abi.h"
#include "../abi/image.h"
#include "../abi/raw_clock.h"
#include "../abi/shared.h"
#include "tasklets.h"
#include "dpu_run.h"
#include "op_costs.h"
#include "racecheck.h"
#include "sandbox.h"

#define WINDOW (1ull << 32) /* per-DPU slice of address space: any 32-bit MRAM pointer stays inside */
#define LOW_START 0x10000ull   /* vm.mmap_min_addr */
#define LOW_END (1ull << 32)
/* DPU code's fixed regions (abi/dpu_abi.h) all lie below: the tasklets' stacks end last */
#define DPU_SPACE_END ((uint64_t)OP_NSTACK_BASE + (uint64_t)OP_MAX_TASKLETS * OP_NSTACK_SLOT)
#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE (1 << 1)
#endif

static struct op_ctrl *ctrl;
static uint32_t nr_ranks;      /* of the machine */
static int *rank_fd;           /* per rank: its memfd if it is one of the pool's, else -1 */
static uint8_t **rank_wram;    /* per rank of the pool: the WRAM of its DPUs, mapped */
static int store_fd;
static uint8_t *windows;       /* nr_dpus x WINDOW, PROT_NONE except mapped MRAM */
static uint8_t *window_mapped; /* per DPU: MRAM mapped into its window */
static uint32_t *window_gen;   /* per DPU: the dpu_gen its window shows (abi/shared.h, "Shared MRAM") */
static uint64_t *alias_blocks; /* per DPU: the window's blocks other than OP_MRAM_BASE that map its MRAM */
static int have_fsgsbase;

static struct op_image img;
static uint64_t img_id;

/* The programs of the current launch: their ids and memfds (struct op_launch_cmd). */
static uint64_t *prog_ids;
static int *prog_fds;
static uint32_t nr_progs, cap_progs;

static struct op_env *env; /* at OP_ENV_BASE, where the image's 32-bit code reaches it */
static uint32_t cost_slots[OP_COST_COUNT]; /* the machine description's operation costs, filled once */
static struct op_sched sched;
static struct op_dpu_run run;  /* the DPU being run */
static sigjmp_buf recover;
static volatile sig_atomic_t in_dpu;

static _Noreturn void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "openpim-worker: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

/* fstat without the C library, whose fstat is newfstatat: a call with a path
 * the sandbox does not allow. */
static int fd_stat(int fd, struct stat *st)
{
    return (int)syscall(SYS_fstat, fd, st);
}

/* The memfd of the DPU's rank and where its MRAM lies in it; -1 if the rank
 * is not one of this worker's pool. */
static int mram_file(uint32_t dpu, uint64_t *off)
{
    uint32_t per = ctrl->dpus_per_rank, r = dpu / per;
    *off = op_rank_mram_offset(per, dpu % per, ctrl->mram_size);
    return r < nr_ranks ? rank_fd[r] : -1;
}

static void set_gs(uint8_t *base)
{
    if (have_fsgsbase)
        _writegsbase_u64((unsigned long long)(uintptr_t)base);
    else if (syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)(uintptr_t)base) != 0)
        die("cannot set GS base: %s", strerror(errno));
}

/* ---- faults ------------------------------------------------------------ */

static _Noreturn void leave_dpu(void)
{
    in_dpu = 0;
    op_sched_abandon();
    siglongjmp(recover, 1);
}

extern uintptr_t op_service_sp; /* tasklets.c: the running tasklet's service stack */

/* Whether pc lies in one of the runtime's internal helpers (__op_*: its fault
 * and check functions), which a fault is not blamed on: their caller is. */
static int in_runtime_helper(uint32_t pc)
{
    for (size_t i = 0; i < img.nr_syms; i++) {
        const struct op_symbol *s = &img.syms[i];
        if (pc >= s->addr && pc - s->addr < s->size && op_region_of(s->addr) == OP_REGION_IRAM)
            return strncmp(s->name, "__op_", 5) == 0 || strcmp(s->name, "__morestack") == 0;
    }
    return 0;
}

/* The image's code address a fault is blamed on: pc if it lies in the code,
 * else the nearest return address into the code on the running tasklet's
 * stack at or above sp, less one so that it lies in the call instruction,
 * outside the runtime's internal helpers (a fault found by a service);
 * 0 if there is none. */
__attribute__((no_sanitize_address)) static uint32_t dpu_pc(uintptr_t pc, uintptr_t sp)
{
    uintptr_t lo = img.text_addr, hi = lo + img.text_len;
    if (pc >= lo && pc < hi)
        return (uint32_t)pc;
    if (op_sched_current() != &sched || sched.cur >= sched.nr)
        return 0;
    uintptr_t top = (uintptr_t)sched.t[sched.cur].stack_hi;
    if (sp < (uintptr_t)sched.t[sched.cur].stack_lo || sp >= top)
        return 0;
    for (uintptr_t a = sp & ~(uintptr_t)7; a + 8 <= top; a += 8) {
        uint64_t v = *(const uint64_t *)a;
        if (v > lo && v <= hi && !in_runtime_helper((uint32_t)v - 1)) /* a return address: blame the call */
            return (uint32_t)v - 1;
    }
    return 0;
}

static void record_fault(enum op_fault why, unsigned tid, const char *msg, uint32_t pc)
{
    if (run.res->fault != OP_FAULT_NONE)
        return;
    run.res->fault = why;
    run.res->fault_tasklet = tid;
    run.res->fault_pc = pc;
    snprintf(run.res->fault_msg, sizeof run.res->fault_msg, "%s", msg);
}

__attribute__((noreturn)) static void svc_fault(enum op_fault why, const char *msg)
{
    op_sched_account(&sched);
    /* services run on their own stack; op_service_entry (switch.S) left the
     * DPU code's stack pointer at its top, where the call's return address lies */
    record_fault(why, sched.cur, msg ? msg : "fault", dpu_pc(0, *(const uintptr_t *)(op_service_sp - 8)));
    leave_dpu();
}

/* A system call the sandbox refused from the worker's own code: a bug of the
 * worker (or a call missing from sandbox.c's list).  Says which, then dies by
 * the same signal so that the host names it. */
static void worker_syscall_bug(const siginfo_t *si)
{
    char line[160];
    int n = snprintf(line, sizeof line,
                     "openpim-worker: forbidden system call %d (%s) at pc %p in the worker itself\n",
                     si->si_syscall, op_sandbox_syscall_name(si->si_syscall), si->si_call_addr);
    if (n > 0) {
        ssize_t w = write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)w; /* dying anyway */
    }
}

/* A fault with the stack pointer below the running tasklet's native stack
 * limit (a frame the split-stack prologues do not check, or DPU code that
 * moved the stack pointer itself) is that tasklet's native stack overflow,
 * whatever address it hit. */
static int stack_overflow(const ucontext_t *uc, unsigned *tid)
{
    if (op_sched_current() != &sched || sched.cur >= sched.nr)
        return 0;
    uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
    uintptr_t slot = OP_NSTACK_BASE + (uintptr_t)sched.cur * OP_NSTACK_SLOT;
    if (sp >= (uintptr_t)sched.t[sched.cur].stack_lo || sp + OP_NSTACK_SLOT < slot)
        return 0;
    *tid = sched.cur;
    return 1;
}

/* The native stack of tasklet t (abi/dpu_abi.h) and its DPU-stack account. */
static uint8_t *nstack_slot(unsigned t)
{
    return (uint8_t *)(uintptr_t)(OP_NSTACK_BASE + (uint64_t)t * OP_NSTACK_SLOT);
}

static struct op_dstack *dstack_of(unsigned t)
{
    return (struct op_dstack *)(nstack_slot(t) + OP_DSTACK_OFFSET);
}

/* The message of a stack overflow in the running tasklet: its DPU budget
 * (a frame in DPU terms that does not fit what its callers left), or the
 * native stack the emulator gives its x86 frames. */
static void stack_message(char *buf, size_t len, int native)
{
    unsigned t = sched.cur;
    const struct op_dstack *d = dstack_of(t); /* DPU code may have written it: numbers only */
    uint32_t budget = img.stack_size[t], used = budget - (d->remaining < budget ? d->remaining : budget);
    if (native) {
        snprintf(buf, len, "native stack overflow in tasklet %u: its x86 frames need more than the %u KB the "
                 "emulator gives each tasklet outside WRAM (its DPU stack, %u of %u bytes in use, is not the limit)",
                 t, (OP_NSTACK_TOP - OP_NSTACK_GUARD - OP_NSTACK_SLACK) >> 10, used, budget);
        return;
    }
    const struct op_symbol *fn = NULL;
    for (size_t i = 0; i < img.nr_syms; i++)
        if (img.syms[i].addr <= d->fn && d->fn - img.syms[i].addr < img.syms[i].size &&
            op_region_of(img.syms[i].addr) == OP_REGION_IRAM && (!fn || img.syms[i].global > fn->global))
            fn = &img.syms[i];
    char where[64];
    if (fn)
        snprintf(where, sizeof where, "%s", fn->name);
    else
        snprintf(where, sizeof where, "the function at 0x%x", d->fn);
    int n = snprintf(buf, len, "stack overflow in tasklet %u: %s needs %u bytes of DPU stack, its callers use %u "
                     "of its %u (STACK_SIZE_TASKLET_%u)", t, where, d->need, used, budget, t);
    (void)n; /* a long function name may cut the end */
}

/* Maps the DPU's MRAM at `at` as its chunk map says: its own chunks
 * read-write, chunks it shares read-only from the store. */
static int map_mram(uint32_t dpu, uint8_t *at)
{
    _Atomic uint32_t *map = op_ctrl_chunks(ctrl, dpu);
    uint64_t size = ctrl->mram_size, whole = (uint64_t)ctrl->nr_chunks * OP_MRAM_CHUNK, own;
    int fd = mram_file(dpu, &own);
    if (fd < 0 || mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, (off_t)own) == MAP_FAILED)
        return -1;
    for (uint32_t c = 0, e; (uint64_t)c * OP_MRAM_CHUNK < whole; c = e) {
        e = op_chunk_run(map, c, ctrl->nr_chunks);
        uint32_t r = atomic_load(&map[c]);
        if (r && mmap(at + (uint64_t)c * OP_MRAM_CHUNK, (size_t)(e - c) * OP_MRAM_CHUNK, PROT_READ,
                      MAP_SHARED | MAP_FIXED, store_fd, (off_t)(r - 1) * OP_MRAM_CHUNK) == MAP_FAILED)
            return -1;
    }
    return 0;
}

/* Gives the DPU's window back its inaccessible alias blocks (they map again on
 * the next access, as the chunk map is then). */
static void drop_aliases(uint32_t dpu)
{
    uint8_t *win = windows + (uint64_t)dpu * WINDOW;
    for (unsigned b = 0; alias_blocks[dpu] && b < 64; b++)
        if (alias_blocks[dpu] >> b & 1)
            mmap(win + (uint64_t)b * ctrl->mram_size, ctrl->mram_size, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    alias_blocks[dpu] = 0;
}

/* The DPU decodes only the offset of an address inside its MRAM: a 32-bit MRAM
 * address wraps inside the DPU's own MRAM, whatever arithmetic made it.  The
 * window maps the MRAM once at OP_MRAM_BASE; an access elsewhere in the window
 * maps the MRAM there too (same pages) and is retried.  Returns 1 if it did. */
static int mram_alias(uintptr_t a)
{
    uint8_t *win = windows + (uint64_t)run.dpu * WINDOW;
    uint64_t size = ctrl->mram_size;
    if (a < (uintptr_t)win || a - (uintptr_t)win >= WINDOW || size == 0 || WINDOW % size || OP_MRAM_BASE % size ||
        WINDOW / size > 64)
        return 0;
    uint64_t block = (a - (uintptr_t)win) / size * size;
    if (block == OP_MRAM_BASE)
        return 0; /* the MRAM itself: a real fault (host memory, ...) */
    if (map_mram(run.dpu, win + block) != 0)
        return 0;
    alias_blocks[run.dpu] |= 1ull << (block / size);
    return 1;
}

/* A write of the running DPU to a chunk it shares: the chunk becomes its own
 * (a copy of the shared bytes) and the write is retried.  Returns 1 if so. */
static int own_shared_chunk(uintptr_t a)
{
    uint32_t dpu = run.dpu;
    uint8_t *win = windows + (uint64_t)dpu * WINDOW;
    uint64_t size = ctrl->mram_size;
    if (a < (uintptr_t)win || a - (uintptr_t)win >= WINDOW || !window_mapped[dpu])
        return 0;
    uint64_t c = (a - (uintptr_t)win) % size / OP_MRAM_CHUNK; /* the same chunk in an alias block */
    _Atomic uint32_t *map = op_ctrl_chunks(ctrl, dpu);
    uint32_t r = c < ctrl->nr_chunks ? atomic_load(&map[c]) : 0;
    if (!r)
        return 0;
    uint64_t base;
    int fd = mram_file(dpu, &base);
    off_t own = (off_t)(base + c * OP_MRAM_CHUNK);
    uint8_t *at = win + OP_MRAM_BASE + c * OP_MRAM_CHUNK; /* shows the shared bytes */
    void *copy = fd < 0 ? MAP_FAILED : mmap(NULL, OP_MRAM_CHUNK, PROT_READ | PROT_WRITE, MAP_SHARED, fd, own);
    unsigned char vec[OP_MRAM_CHUNK / 4096];
    if (copy == MAP_FAILED)
        return 0;
    if (mincore(at, OP_MRAM_CHUNK, vec) != 0)
        memset(vec, 1, sizeof vec);
    for (size_t p = 0; p < sizeof vec; p++) /* pages never written stay unbacked */
        if (vec[p] & 1)
            memcpy((uint8_t *)copy + p * 4096, at + p * 4096, 4096);
    munmap(copy, OP_MRAM_CHUNK);
    if (mmap(at, OP_MRAM_CHUNK, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, own) == MAP_FAILED)
        return 0;
    atomic_store(&map[c], 0);
    atomic_fetch_sub(&op_ctrl_slot_refs(ctrl)[r - 1], 1);
    window_gen[dpu] = atomic_fetch_add(&op_ctrl_gen(ctrl)[dpu], 1) + 1;
    drop_aliases(dpu);
    return 1;
}

static int nstack_page_in(uintptr_t a);

/* Faults this close to WRAM's ends are reported as WRAM accesses out of bounds. */
#define WRAM_NEAR 0x01000000u

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    if (sig == SIGSEGV && si->si_code == SEGV_ACCERR && nstack_page_in((uintptr_t)si->si_addr))
        return;
    if (in_dpu && sig == SIGSEGV && si->si_code == SEGV_ACCERR && own_shared_chunk((uintptr_t)si->si_addr))
        return;
    if (in_dpu && sig == SIGSEGV && mram_alias((uintptr_t)si->si_addr))
        return;
    int dpu_syscall = sig == SIGSYS && si->si_code == OP_SANDBOX_SI_CODE &&
                      (uintptr_t)si->si_call_addr < OP_SANDBOX_DPU_LIMIT;
    if (!in_dpu || (sig == SIGSYS && !dpu_syscall)) {
        /* a bug in the worker itself: die loudly, the host reports it */
        if (sig == SIGSYS)
            worker_syscall_bug(si);
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    char msg[OP_FAULT_MSG];
    uintptr_t a = (uintptr_t)si->si_addr;
    unsigned tid = sched.cur, gtid;
    enum op_fault why = OP_FAULT_MEMORY;
    uint8_t *win = windows + (uint64_t)run.dpu * WINDOW;
    if (sig == SIGSYS) { /* refused by the sandbox: the call never happened */
        why = OP_FAULT_SYSCALL;
        snprintf(msg, sizeof msg, "forbidden system call %d (%s) at pc %p", si->si_syscall,
                 op_sandbox_syscall_name(si->si_syscall), si->si_call_addr);
    } else if (sig == SIGALRM) {
        why = OP_FAULT_TIMEOUT;
        snprintf(msg, sizeof msg, "launch exceeded its time budget of %.3f s", ctrl->budget_ns / 1e9);
    } else if (sig == SIGFPE && si->si_code == FPE_INTDIV) { /* code built without the accounting pass */
        why = OP_FAULT_DIV_ZERO;
        snprintf(msg, sizeof msg, "integer division by zero at pc %p", si->si_addr);
    } else if (sig == SIGFPE) {
        why = OP_FAULT_ILLEGAL;
        snprintf(msg, sizeof msg, "arithmetic trap at pc %p", si->si_addr);
    } else if (sig == SIGILL) {
        why = OP_FAULT_ILLEGAL;
        snprintf(msg, sizeof msg, "illegal instruction at %p", si->si_addr);
    } else if (stack_overflow(uc, &gtid)) {
        why = OP_FAULT_STACK;
        tid = gtid;
        stack_message(msg, sizeof msg, 1);
    } else if (a >= (uintptr_t)win && a < (uintptr_t)win + WINDOW) {
        snprintf(msg, sizeof msg, "MRAM access out of bounds at address 0x%08llx",
                 (unsigned long long)(a - (uintptr_t)win));
    } else if (a >= OP_WRAM_END && a < OP_WRAM_END + WRAM_NEAR) {
        snprintf(msg, sizeof msg, "WRAM access out of bounds at address 0x%08x: %u bytes past WRAM's end 0x%08x",
                 (uint32_t)a, (uint32_t)(a - OP_WRAM_END), OP_WRAM_END);
    } else if (a < OP_WRAM_START(ctrl->wram_size) && a + WRAM_NEAR >= OP_WRAM_START(ctrl->wram_size)) {
        /* in the words of dpu/runtime's __op_wram_low, which faults those in WRAM's first page */
        snprintf(msg, sizeof msg, "WRAM access out of bounds at address 0x%08x: %u bytes below WRAM's first byte 0x%08x",
                 (uint32_t)a, (uint32_t)(OP_WRAM_START(ctrl->wram_size) - a), OP_WRAM_START(ctrl->wram_size));
    } else {
        snprintf(msg, sizeof msg, "invalid memory access at address 0x%llx", (unsigned long long)a);
    }
    /* no accounting here: a timeout signal may interrupt the trace recorder */
    const mcontext_t *mc = &((const ucontext_t *)uc)->uc_mcontext;
    record_fault(why, tid, msg, dpu_pc((uintptr_t)mc->gregs[REG_RIP], (uintptr_t)mc->gregs[REG_RSP]));
    leave_dpu();
}

static void install_handlers(void)
{
    static uint8_t altstack[64 << 10];
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
    if (sigaltstack(&ss, NULL) != 0)
        die("sigaltstack: %s", strerror(errno));
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGALRM, SIGSYS};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &sa, NULL);
}

/* ---- images ------------------------------------------------------------ */

/* Reserves, inaccessible, every part of the low 4 GB that nothing occupies.
 * In a normal build that is all of it; a sanitizer build keeps its own shadow
 * memory there (AddressSanitizer's low shadow starts at 2 GB), which DPU code
 * could then reach: sanitizer builds are for testing OpenPIM, not for hostile
 * DPU code.  The DPU regions (below DPU_SPACE_END) must be free. */
static void reserve_low_gaps(void)
{
    uint64_t at = LOW_START;
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512];
    while (at < LOW_END) {
        uint64_t lo = LOW_END, hi = LOW_END;
        while (maps && fgets(line, sizeof line, maps)) {
            unsigned long long a, b;
            if (sscanf(line, "%llx-%llx", &a, &b) == 2 && b > at) {
                lo = a < LOW_END ? a : LOW_END;
                hi = b;
                break;
            }
        }
        if (lo > at && mmap((void *)at, lo - at, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
                            MAP_FIXED_NOREPLACE, -1, 0) == MAP_FAILED)
            die("cannot reserve the low 4 GB of address space for DPU code: %s", strerror(errno));
        if (lo < DPU_SPACE_END && lo < LOW_END)
            die("the address space DPU code needs (below 0x%llx) is in use at 0x%llx",
                (unsigned long long)DPU_SPACE_END, (unsigned long long)lo);
        at = hi;
        if (!maps)
            break;
    }
    if (maps)
        fclose(maps);
}

/* Gives [p, p+len) of the low 4 GB back to the inaccessible reservation. */
static void reserve_low(void *p, uint64_t len)
{
    if (mmap(p, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
        die("cannot release program memory: %s", strerror(errno));
}

static int load_program(const struct op_dpu_program *p, char *err, size_t errlen)
{
    if (img_id == p->id)
        return 0;
    if (img_id) {
        reserve_low((void *)(uintptr_t)img.iram_lo, img.iram_hi - img.iram_lo);
        op_image_free(&img);
        img_id = 0;
    }
    int fd = -1;
    for (uint32_t k = 0; k < nr_progs && fd < 0; k++)
        if (prog_ids[k] == p->id)
            fd = prog_fds[k];
    struct stat st;
    if (fd < 0 || fd_stat(fd, &st) != 0) {
        snprintf(err, errlen, "the program of this DPU did not come with the launch");
        return -1;
    }
    void *bytes = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (bytes == MAP_FAILED) {
        snprintf(err, errlen, "cannot map the program: %s", strerror(errno));
        return -1;
    }
    int rc = op_image_parse(bytes, (size_t)st.st_size, &img, err, errlen);
    munmap(bytes, (size_t)st.st_size);
    if (rc != 0)
        return -1;
    uint64_t lo = img.iram_lo & ~0xfffull, hi = (img.iram_hi + 0xfffull) & ~0xfffull;
    img.iram_lo = (uint32_t)lo;
    img.iram_hi = (uint32_t)hi;
    void *m = mmap((void *)(uintptr_t)lo, hi - lo, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (m == MAP_FAILED) {
        snprintf(err, errlen, "cannot map the program's code: %s", strerror(errno));
        op_image_free(&img);
        return -1;
    }
    memcpy((void *)(uintptr_t)img.text_addr, img.text, img.text_len);
    uint64_t tlo = img.text_addr & ~0xfffull, thi = ((uint64_t)img.text_addr + img.text_len + 0xfff) & ~0xfffull;
    mprotect((void *)(uintptr_t)tlo, thi - tlo, PROT_READ | PROT_EXEC);
    img_id = p->id;
    return 0;
}

#define ENV_PAGE 4096u
#define TRAMPOLINE 32u

/* The image address of the trampoline of the service at `offset` in struct
 * op_services (map_env). */
static uint32_t trampoline(size_t offset)
{
    return OP_ENV_BASE + ENV_PAGE + (uint32_t)(offset / sizeof(uint32_t)) * TRAMPOLINE;
}

/* The runtime's scratch (.opbss) starts each DPU run as the worker sets it:
 * zeroed, with __op_env and the operation costs written; nothing of the
 * previous DPU's run remains for this one to read. */
static void reset_scratch(void)
{
    memset((void *)(uintptr_t)img.opbss_addr, 0, img.opbss_len);
    *(uint32_t *)(uintptr_t)img.sym_env = OP_ENV_BASE; /* checked to lie in .opbss by op_image_parse */
    if (img.sym_sched_fn) { /* the services of the pass's switch points and race checks */
        *(uint32_t *)(uintptr_t)img.sym_sched_fn = trampoline(offsetof(struct op_services, sched_point));
        *(uint32_t *)(uintptr_t)img.sym_race_fn = trampoline(offsetof(struct op_services, race_access));
    }
    if (img.sym_costs) /* operation costs of the machine description, read by the accounting pass */
        memcpy((void *)(uintptr_t)img.sym_costs, cost_slots,
               sizeof *cost_slots * (img.nr_costs < OP_COST_COUNT ? img.nr_costs : OP_COST_COUNT));
}

static uint8_t *mram_of(uint32_t dpu)
{
    uint8_t *w = windows + (uint64_t)dpu * WINDOW;
    uint32_t gen = atomic_load(&op_ctrl_gen(ctrl)[dpu]);
    if (!window_mapped[dpu] || window_gen[dpu] != gen) { /* first run here, or its chunks changed since */
        if (map_mram(dpu, w + OP_MRAM_BASE) != 0)
            die("cannot map the MRAM of DPU %u: %s", dpu, strerror(errno));
        drop_aliases(dpu);
        window_mapped[dpu] = 1;
        window_gen[dpu] = gen;
    }
    return w;
}

/* ---- services offered to the image --------------------------------------- */

/* DPU code may call any service with any arguments: each checks them. */
static void svc_fault_img(uint32_t why, uint32_t msg)
{
    char buf[OP_FAULT_MSG];
    const char *from = (const char *)(uintptr_t)msg; /* a 32-bit image address: cannot leave the low 4 GB */
    size_t n = 0;
    while (n + 1 < sizeof buf && msg + n < (1ull << 32) && from[n])
        buf[n] = from[n], n++;
    buf[n] = 0;
    if (why == OP_FAULT_NONE || why > OP_FAULT_DIV_ZERO) /* kinds the runtime raises */
        why = OP_FAULT_RUNTIME;
    if (why == OP_FAULT_STACK && sched.cur < sched.nr) /* the runtime says which: "native" or "dpu" */
        stack_message(buf, sizeof buf, strcmp(buf, "native") == 0);
    svc_fault((enum op_fault)why, buf[0] ? buf : "fault");
}

/* WRAM as the DPU program sees it: the chip's WRAM, and its tasklets' stacks. */
static int in_wram(uint64_t lo, uint64_t size)
{
    return (lo >= OP_WRAM_START(ctrl->wram_size) && lo + size <= OP_WRAM_END) ||
           op_nstack_contains(lo, size, sched.nr);
}

static void svc_dma(uint32_t mram, uint32_t wram, uint32_t size, uint32_t flags)
{
    if (flags & OP_DMA_COPY) {
        char msg[OP_FAULT_MSG];
        if (size > 2048 || mram < OP_MRAM_BASE || (uint64_t)mram + size > (uint64_t)OP_MRAM_BASE + ctrl->mram_size ||
            !in_wram(wram, size)) {
            snprintf(msg, sizeof msg, "DMA of %u bytes between MRAM 0x%08x and WRAM 0x%08x outside the DPU's memories",
                     size, mram, wram);
            svc_fault(OP_FAULT_DMA, msg);
        }
        uint8_t *m = windows + (uint64_t)run.dpu * WINDOW + mram, *w = (uint8_t *)(uintptr_t)wram;
        if (flags & OP_DMA_WRITE)
            memcpy(m, w, size);
        else
            memcpy(w, m, size);
    }
    char msg[OP_FAULT_MSG];
    if (op_race_dma(sched.cur, mram, wram, size, flags, msg, sizeof msg))
        svc_fault(OP_FAULT_RACE, msg);
    op_dpu_run_dma(&run, &sched, mram, size, (flags & OP_DMA_WRITE) != 0);
    if (flags & OP_DMA_YIELD)
        op_sched_yield();
}

static uint64_t svc_cycles(void)
{
    return op_dpu_run_cycles_now(&run, &sched);
}

/* The DPU's counter counts the instructions of all its tasklets. */
static uint64_t svc_instructions(void)
{
    op_sched_account(&sched);
    uint64_t n = 0;
    for (unsigned i = 0; i < sched.nr; i++)
        n += sched.t[i].instructions;
    return n;
}

static void svc_rt_event(uint32_t ev, uint32_t obj, uint32_t arg)
{
    op_dpu_run_rt(&run, &sched, ev, obj, arg);
    op_race_sync(sched.cur, ev, obj, arg);
}

static void svc_race_access(uint64_t address, uint64_t bytes, uint32_t flags, uint32_t site)
{
    char msg[OP_FAULT_MSG];
    if (op_race_access(sched.cur, address, bytes, flags, site, msg, sizeof msg))
        svc_fault(OP_FAULT_RACE, msg);
}

/* The services, in the field order of struct op_services.  The image calls
 * them through trampolines in the read-only, executable half of the
 * environment page.  A trampoline holds no address of the worker (DPU code
 * can read it): "mov $i, %r11d; jmp *%fs:OFF", where OFF is where the
 * thread's TLS keeps the entry's address: op_service_entry for C calls,
 * op_service_entry_all for the preserve_most calls of the accounting pass's
 * switch points and race checks (switch.S: either checks i and calls
 * op_service_table[i] on the tasklet's service stack; r11 and rax carry no
 * arguments in either ABI; 32-bit arguments arrive zero-extended, as x32
 * passes them). */
void (*const op_service_table[])(void) = {
    (void (*)(void))op_sched_yield, (void (*)(void))op_sched_block, (void (*)(void))op_sched_wake,
    (void (*)(void))op_sched_waiters, (void (*)(void))svc_fault_img, (void (*)(void))svc_dma,
    (void (*)(void))op_sched_exit,  (void (*)(void))svc_cycles,  (void (*)(void))svc_instructions,
    (void (*)(void))svc_rt_event,   (void (*)(void))op_sched_point, (void (*)(void))svc_race_access,
};
_Static_assert(sizeof op_service_table / sizeof *op_service_table == OP_NR_SERVICES, "one worker function per service");
const uint64_t op_service_count = OP_NR_SERVICES; /* switch.S checks indices against it */

#define ENV_PAGE 4096u
#define TRAMPOLINE 32u
void op_service_entry(void);     /* switch.S */
void op_service_entry_all(void); /* the same, saving every general register but r11 */
void op_call_on_stack(void (*fn)(void), void *sp); /* switch.S */
/* what the trampolines jump to, through %fs */
static __thread void (*service_entry_tls)(void), (*service_entry_all_tls)(void);

/* A service index DPU code made up (it may jump into op_service_entry with
 * any r11): that tasklet's fault. */
void op_service_bad(void)
{
    svc_fault(OP_FAULT_RUNTIME, "a call to a worker service that does not exist");
}

/* Maps the environment page pair at OP_ENV_BASE: op_env (read-write, the image
 * updates perf_mode/perf_base), then the services table and trampolines
 * (read-execute: DPU code cannot redirect a service). */
static void map_env(void)
{
    uint8_t *p = mmap((void *)(uintptr_t)OP_ENV_BASE, 2 * ENV_PAGE, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p == MAP_FAILED)
        die("cannot map the environment page: %s", strerror(errno));
    env = (struct op_env *)p;
    service_entry_tls = op_service_entry;
    service_entry_all_tls = op_service_entry_all;
    uintptr_t tp;
    __asm__("movq %%fs:0, %0" : "=r"(tp)); /* the thread pointer (x86-64 TLS: the TCB points at itself) */
    int64_t off = (int64_t)((uintptr_t)&service_entry_tls - tp);
    int64_t off_all = (int64_t)((uintptr_t)&service_entry_all_tls - tp);
    if (off < INT32_MIN || off > INT32_MAX || off_all < INT32_MIN || off_all > INT32_MAX)
        die("the worker's TLS is out of a 32-bit displacement's reach");
    int32_t disp = (int32_t)off, disp_all = (int32_t)off_all;
    uint8_t *code = p + ENV_PAGE;
    uint32_t *table = (uint32_t *)(code + ENV_PAGE - sizeof(struct op_services));
    for (unsigned i = 0; i < OP_NR_SERVICES; i++) {
        uint8_t *t = code + i * TRAMPOLINE;
        int all = op_service_table[i] == (void (*)(void))op_sched_point ||
                  op_service_table[i] == (void (*)(void))svc_race_access;
        memset(t, 0xcc, TRAMPOLINE); /* int3 */
        t[0] = 0x41, t[1] = 0xbb; /* mov $i, %r11d */
        uint32_t idx = i;
        memcpy(t + 2, &idx, 4);
        t[6] = 0x64, t[7] = 0xff, t[8] = 0x24, t[9] = 0x25; /* jmp *%fs:disp32 */
        memcpy(t + 10, all ? &disp_all : &disp, 4);
        table[i] = OP_ENV_BASE + ENV_PAGE + i * TRAMPOLINE;
    }
    env->svc = (uint32_t)(OP_ENV_BASE + (uint32_t)((uint8_t *)table - p));
    if (mprotect(code, ENV_PAGE, PROT_READ | PROT_EXEC) != 0)
        die("cannot protect the services: %s", strerror(errno));
}

/* ---- running one DPU ------------------------------------------------------- */

/* The pages of the tasklets' native stacks a run may have touched: those
 * made accessible (one bit per page of each slot).  The others stay
 * inaccessible until the first access, which nstack_page_in() grants. */
#define NSTACK_PAGES (OP_NSTACK_SLOT / 4096u)
static uint64_t nstack_live[OP_MAX_TASKLETS][NSTACK_PAGES / 64];

static int nstack_grant(unsigned t, unsigned pg)
{
    if (mprotect(nstack_slot(t) + (uint64_t)pg * 4096u, 4096u, PROT_READ | PROT_WRITE) != 0)
        return -1;
    nstack_live[t][pg / 64] |= 1ull << (pg % 64);
    return 0;
}

/* Maps the tasklets' native stacks (abi/dpu_abi.h), once per worker:
 * inaccessible but for each slot's top page (its struct op_dstack, the first
 * frames). */
static void map_native_stacks(void)
{
    uint8_t *p = mmap((void *)(uintptr_t)OP_NSTACK_BASE, (uint64_t)OP_MAX_TASKLETS * OP_NSTACK_SLOT, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    if (p == MAP_FAILED)
        die("cannot map the tasklet stacks at 0x%x: %s", OP_NSTACK_BASE, strerror(errno));
    for (unsigned t = 0; t < OP_MAX_TASKLETS; t++)
        if (nstack_grant(t, NSTACK_PAGES - 1) != 0)
            die("cannot map a tasklet stack's top page: %s", strerror(errno));
}

/* A fault on a native stack page not accessible yet, the guard page
 * excepted: it becomes accessible (zeros) and the access is retried.
 * Returns 1 if so. */
static int nstack_page_in(uintptr_t a)
{
    if (a < OP_NSTACK_BASE || a - OP_NSTACK_BASE >= (uint64_t)OP_MAX_TASKLETS * OP_NSTACK_SLOT)
        return 0;
    unsigned t = (unsigned)((a - OP_NSTACK_BASE) / OP_NSTACK_SLOT);
    unsigned pg = (unsigned)((a - OP_NSTACK_BASE) % OP_NSTACK_SLOT / 4096u);
    if (pg < OP_NSTACK_GUARD / 4096u || (nstack_live[t][pg / 64] >> (pg % 64) & 1))
        return 0;
    return nstack_grant(t, pg) == 0;
}

/* Before each DPU run: the first nr tasklets' native stacks hold nothing of
 * an earlier run (of this worker's previous DPU: results must not depend on
 * which DPU ran before, nor may one program read another's).  Only the pages
 * an earlier run could touch are cleared: the accessible ones, usually one
 * or two per tasklet. */
static void clear_native_stacks(unsigned nr)
{
    for (unsigned t = 0; t < nr; t++)
        for (unsigned w = 0; w < NSTACK_PAGES / 64; w++)
            for (uint64_t m = nstack_live[t][w]; m; m &= m - 1)
                memset(nstack_slot(t) + ((uint64_t)w * 64 + (unsigned)__builtin_ctzll(m)) * 4096u, 0, 4096u);
}

/* Tasklets' stacks for the scheduler, and their DPU-stack accounts: each its
 * full budget, or `budget` if not 0. */
static void set_stack_accounts(unsigned nr, uint32_t budget)
{
    for (unsigned t = 0; t < nr; t++) {
        sched.t[t].stack_lo = nstack_slot(t) + OP_NSTACK_GUARD + OP_NSTACK_SLACK;
        sched.t[t].stack_hi = nstack_slot(t) + OP_NSTACK_TOP;
        uint32_t b = budget ? budget : img.stack_size[t];
        *dstack_of(t) = (struct op_dstack){.remaining = b, .budget = b};
    }
}

/* The pool's memories (its ranks' memfds and its store) as this worker last
 * measured them, and runs_started then; none (UINT64_MAX) at the start of
 * each launch: the host may have written in between. */
static uint64_t pool_seen, pool_seen_runs = UINT64_MAX;

/* A DPU can back at most its whole MRAM and WRAM while it runs; refuse to
 * start one that could push the emulated memories over the host memory limit
 * rather than let the kernel's OOM killer end the host program.  Measuring
 * takes a system call per rank, so a run compares a bound first: since the
 * last measurement, at most the runs under way then (one per worker, this
 * one's included) and those begun since can have backed more. */
static int memory_would_overflow(char *msg, size_t len)
{
    uint64_t run = atomic_fetch_add(&ctrl->runs_started, 1), workers = ctrl->nr_workers ? ctrl->nr_workers : 1;
    uint64_t used = atomic_load(&ctrl->memory_elsewhere), margin = ctrl->mram_size * workers;
    if (pool_seen_runs != UINT64_MAX && run >= pool_seen_runs &&
        used + pool_seen + (run - pool_seen_runs + 1 + workers) * (ctrl->mram_size + OP_WRAM_STRIDE) + margin <=
            ctrl->memory_limit)
        return 0;
    pool_seen_runs = atomic_load(&ctrl->runs_started);
    pool_seen = 0;
    struct stat st;
    for (uint32_t r = 0; r < nr_ranks; r++)
        if (rank_fd[r] >= 0 && fd_stat(rank_fd[r], &st) == 0)
            pool_seen += (uint64_t)st.st_blocks * 512u;
    if (fd_stat(store_fd, &st) == 0)
        pool_seen += (uint64_t)st.st_blocks * 512u;
    used += pool_seen;
    if (used + margin <= ctrl->memory_limit)
        return 0;
    snprintf(msg, len, "host memory limit reached: emulated memories use %llu MB of the %llu MB limit "
             "(profile key hostMemoryLimitMB)", (unsigned long long)(used >> 20),
             (unsigned long long)(ctrl->memory_limit >> 20));
    return 1;
}

/* Below a WRAM smaller than the window (v1B: 62 KB ending at OP_WRAM_END)
 * lie off bytes of the window's first page that the page protection cannot
 * take away (WRAM's first byte is not on a page boundary).  Code built with
 * the accounting pass checks its loads and stores there before they happen
 * (its -openpim-wram-start, dpu/runtime's __op_wram_low).  Against other code
 * (the runtime, libc, assembly) the bytes are filled before each run and
 * checked after it: a store there is a memory fault, as one past WRAM's end
 * is; a load of such code reads the fill. */
#define BELOW_WRAM_FILL 0xd5
static void below_wram_written(uint32_t off)
{
    const uint8_t *lo = (const uint8_t *)(uintptr_t)OP_WRAM_BASE;
    for (uint32_t i = 0; i < off; i++)
        if (lo[i] != BELOW_WRAM_FILL) {
            char msg[OP_FAULT_MSG];
            snprintf(msg, sizeof msg, "WRAM access out of bounds at address 0x%08x: a store %u bytes below WRAM's "
                     "first byte 0x%08x", OP_WRAM_BASE + i, off - i, OP_WRAM_BASE + off);
            record_fault(OP_FAULT_MEMORY, 0, msg, 0);
            return;
        }
}

static void run_dpu(uint32_t dpu)
{
    struct op_dpu_status *res = &op_ctrl_status(ctrl)[dpu];
    const struct op_dpu_program *p = &op_ctrl_prog(ctrl)[dpu];
    memset(res, 0, sizeof *res);
    char err[OP_FAULT_MSG];
    if (p->id == 0 || load_program(p, err, sizeof err) != 0) {
        res->fault = OP_FAULT_RUNTIME;
        snprintf(res->fault_msg, sizeof res->fault_msg, "%s", p->id ? err : "no program loaded");
        return;
    }
    if (memory_would_overflow(err, sizeof err)) {
        res->fault = OP_FAULT_HOST_MEMORY;
        snprintf(res->fault_msg, sizeof res->fault_msg, "%s", err);
        return;
    }
    uint32_t per = ctrl->dpus_per_rank;
    if (dpu / per >= nr_ranks || !rank_wram[dpu / per]) { /* the launch list is the pool's: cannot happen */
        res->fault = OP_FAULT_RUNTIME;
        snprintf(res->fault_msg, sizeof res->fault_msg, "DPU %u is not one of this worker's pool", dpu);
        return;
    }
    uint8_t *wram = rank_wram[dpu / per] + op_rank_wram_offset(dpu % per);
    uint32_t wram_off = OP_WRAM_START(ctrl->wram_size) - OP_WRAM_BASE; /* its place in the window */
    memcpy((void *)(uintptr_t)(OP_WRAM_BASE + wram_off), wram + wram_off, ctrl->wram_size);
    memset((void *)(uintptr_t)OP_WRAM_BASE, BELOW_WRAM_FILL, wram_off); /* see below_wram_written */
    uint8_t *win = mram_of(dpu);
    set_gs(win);
    reset_scratch();
    /* every field, each run: the previous DPU could write its environment */
    env->abi_version = OP_ABI_VERSION;
    env->tid = 0;
    env->nr_tasklets = p->nr_tasklets;
    env->dpu_index = dpu;
    env->wram_size = ctrl->wram_size;
    env->mram_size = (uint32_t)ctrl->mram_size;
    env->perf_mode = 0;
    env->perf_base = 0;
    env->perf_base_instr = 0;
    unsigned nr = p->nr_tasklets < OP_MAX_TASKLETS ? p->nr_tasklets : OP_MAX_TASKLETS;
    clear_native_stacks(nr);
    set_stack_accounts(nr, UINT32_MAX); /* __op_boot's own frames are not the program's */
    sched.limits = img.sym_limits ? (volatile uint64_t *)(uintptr_t)img.sym_limits : NULL;
    op_dpu_run_begin(&run, &sched, &ctrl->desc, dpu, res, p->nr_tasklets);
    op_race_begin(&img, p->id, dpu, p->nr_tasklets, ctrl->mram_size);

    if (sigsetjmp(recover, 1) == 0) {
        if (ctrl->budget_ns) {
            struct itimerval it = {{0, 0}, {(time_t)(ctrl->budget_ns / 1000000000u),
                                            (suseconds_t)(ctrl->budget_ns % 1000000000u / 1000)}};
            if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
                it.it_value.tv_usec = 1;
            setitimer(ITIMER_REAL, &it, NULL);
        }
        in_dpu = 1;
        /* __op_boot on tasklet 0's stack (DPU code finds its stack account
         * from the stack pointer; its few frames lie in the slot's top page),
         * then that stack as new */
        op_sched_set_stack_limit((uint32_t)(uintptr_t)sched.t[0].stack_lo);
        op_call_on_stack((void (*)(void))(uintptr_t)img.sym_boot, sched.t[0].stack_hi);
        memset(nstack_slot(0) + OP_NSTACK_SLOT - 4096u, 0, 4096u);
        set_stack_accounts(nr, 0);
        int rc = op_sched_run(&sched, p->nr_tasklets, (void (*)(void))(uintptr_t)img.sym_tasklet_main,
                              (volatile uint64_t *)(uintptr_t)img.sym_icount, env);
        in_dpu = 0;
        if (rc == OP_FAULT_DEADLOCK) {
            char msg[OP_FAULT_MSG];
            snprintf(msg, sizeof msg, "deadlock: every live tasklet is blocked (barrier, mutex, semaphore or handshake)");
            record_fault(OP_FAULT_DEADLOCK, 0, msg, 0);
        }
    }
    in_dpu = 0;
    if (ctrl->budget_ns) {
        struct itimerval off = {{0, 0}, {0, 0}};
        setitimer(ITIMER_REAL, &off, NULL);
    }
    set_gs(NULL);
    below_wram_written(wram_off);
    op_dpu_run_end(&run, &sched);
    memcpy(wram + (OP_WRAM_START(ctrl->wram_size) - OP_WRAM_BASE), (void *)(uintptr_t)OP_WRAM_START(ctrl->wram_size),
           ctrl->wram_size);
}

/* Next entry of the launch list for this worker: its own slice of its
 * launch's slot first, then what is left of the others' in that slot. */
static int take(struct op_launch_slot *slot, unsigned index, uint32_t *item)
{
    unsigned n = ctrl->nr_workers;
    for (unsigned k = 0; k < n; k++) {
        struct op_chunk *c = &slot->chunks[(index + k) % n];
        if (atomic_load(&c->next) >= c->end)
            continue;
        uint32_t i = atomic_fetch_add(&c->next, 1);
        if (i < c->end) {
            *item = i;
            return 1;
        }
    }
    return 0;
}

/* Receives one message of a launch (struct op_launch_cmd) and the program
 * descriptors that come with it; its command word, 0 when the host closed
 * the socket. */
static uint32_t receive_launch(int sock)
{
    struct op_launch_cmd cmd;
    union {
        char buf[CMSG_SPACE(OP_CMD_MAX_PROGRAMS * sizeof(int))];
        struct cmsghdr align;
    } ctl;
    for (;;) {
        struct iovec iov = {&cmd, sizeof cmd};
        struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
        ssize_t n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
        if (n == 0)
            return 0;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < (ssize_t)offsetof(struct op_launch_cmd, ids) || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
            die("bad command");
        uint32_t k = 0;
        int fds[OP_CMD_MAX_PROGRAMS];
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
                for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int) && k < OP_CMD_MAX_PROGRAMS; i++)
                    memcpy(&fds[k++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        if (cmd.nr_programs != k || (size_t)n != offsetof(struct op_launch_cmd, ids) + k * sizeof cmd.ids[0])
            die("a launch message with %u programs and %u descriptors", cmd.nr_programs, k);
        if (nr_progs + k > cap_progs) {
            cap_progs = (nr_progs + k) * 2;
            prog_ids = realloc(prog_ids, cap_progs * sizeof *prog_ids);
            prog_fds = realloc(prog_fds, cap_progs * sizeof *prog_fds);
            if (!prog_ids || !prog_fds)
                die("out of memory");
        }
        for (uint32_t i = 0; i < k; i++) {
            prog_ids[nr_progs] = cmd.ids[i];
            prog_fds[nr_progs++] = fds[i];
        }
        return cmd.cmd;
    }
}

static void serve(int sock, unsigned index)
{
    struct op_worker_slot *slot = &ctrl->workers[index];
    for (;;) {
        uint32_t cmd = receive_launch(sock);
        if (cmd == 0)
            exit(0); /* host closed the socket */
        if ((cmd & OP_CMD_MASK) == OP_CMD_PROGRAMS)
            continue; /* more of the launch's programs follow */
        uint32_t at = cmd >> OP_CMD_SLOT_SHIFT;
        pool_seen_runs = UINT64_MAX; /* measure the memories again (memory_would_overflow) */
        if ((cmd & OP_CMD_MASK) != OP_CMD_LAUNCH || at >= OP_MAX_WORKERS || ctrl->nr_workers > OP_MAX_WORKERS)
            die("unknown command 0x%x", cmd);
        for (uint32_t i; take(&ctrl->slots[at], index, &i);) {
            uint32_t dpu = op_ctrl_list(ctrl)[i];
            /* the host's deadline for this DPU counts from here */
            atomic_store(&slot->started_ns, op_raw_monotonic_ns());
            atomic_store(&slot->current_dpu, (int32_t)dpu);
            if (dpu < ctrl->nr_dpus)
                run_dpu(dpu);
            atomic_fetch_add(&ctrl->slots[at].done, 1);
        }
        atomic_store(&slot->current_dpu, -1);
        for (uint32_t k = 0; k < nr_progs; k++) /* the loaded image stays mapped; its bytes are not needed */
            close(prog_fds[k]);
        nr_progs = 0;
        uint32_t done = OP_CMD_DONE;
        if (send(sock, &done, sizeof done, MSG_NOSIGNAL) != (ssize_t)sizeof done)
            exit(0);
    }
}

/* A descriptor the host passed, checked to be a file of at least `size` bytes. */
static int passed_fd(int fd, uint64_t size, const char *what)
{
    struct stat st;
    if (fd_stat(fd, &st) != 0 || (uint64_t)st.st_size < size)
        die("%s: descriptor %d is not the %llu-byte file it should be (started by libdpu?)", what, fd,
            (unsigned long long)size);
    return fd;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        die("usage: openpim-worker INDEX RANK... (started by libdpu, abi/shared.h)");
    char *end;
    unsigned long index = strtoul(argv[1], &end, 10);
    if (*end || index >= OP_MAX_WORKERS)
        die("worker index %s", argv[1]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    have_fsgsbase = (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) != 0;

    struct stat st;
    if (fd_stat(OP_WORKER_FD_CTRL, &st) != 0)
        die("no control block at descriptor %d: %s", OP_WORKER_FD_CTRL, strerror(errno));
    ctrl = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, OP_WORKER_FD_CTRL, 0);
    close(OP_WORKER_FD_CTRL);
    if (ctrl == MAP_FAILED || (size_t)st.st_size < sizeof *ctrl)
        die("cannot map the control block");
    if (ctrl->magic != OP_CTRL_MAGIC || ctrl->layout != OP_CTRL_LAYOUT)
        die("this worker and libdpu come from different OpenPIM builds (rebuild, or set OPENPIM_WORKER)");
    char why[160];
    if (op_race_init(ctrl, why, sizeof why) != 0)
        die("%s", why);
    uint32_t per = ctrl->dpus_per_rank;
    if (per == 0 || ctrl->nr_dpus % per || (uint64_t)st.st_size < op_ctrl_size(ctrl->nr_dpus, ctrl->nr_chunks))
        die("an inconsistent control block");
    nr_ranks = ctrl->nr_dpus / per;
    store_fd = passed_fd(OP_WORKER_FD_STORE, (uint64_t)ctrl->nr_dpus * ctrl->nr_chunks * OP_MRAM_CHUNK, "store");
    rank_fd = malloc(nr_ranks * sizeof *rank_fd);
    rank_wram = calloc(nr_ranks, sizeof *rank_wram);
    if (!rank_fd || !rank_wram)
        die("out of memory");
    for (uint32_t r = 0; r < nr_ranks; r++)
        rank_fd[r] = -1;
    for (int a = 2; a < argc; a++) {
        unsigned long r = strtoul(argv[a], &end, 10);
        if (*end || r >= nr_ranks || rank_fd[r] >= 0)
            die("rank %s", argv[a]);
        int fd = passed_fd(OP_WORKER_FD_RANKS + a - 2, op_rank_memfd_size(per, ctrl->mram_size), "rank memory");
        rank_fd[r] = fd;
        rank_wram[r] = mmap(NULL, (size_t)per * OP_WRAM_STRIDE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (rank_wram[r] == MAP_FAILED)
            die("cannot map the WRAM of rank %lu: %s", r, strerror(errno));
    }
    windows = mmap(NULL, (uint64_t)ctrl->nr_dpus * WINDOW, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    window_mapped = calloc(ctrl->nr_dpus, 1);
    window_gen = calloc(ctrl->nr_dpus, sizeof *window_gen);
    alias_blocks = calloc(ctrl->nr_dpus, sizeof *alias_blocks);
    if (windows == MAP_FAILED || !window_mapped || !window_gen || !alias_blocks)
        die("cannot reserve address space for %u DPUs: %s", ctrl->nr_dpus, strerror(errno));
    /* DPU code forms only 32-bit addresses: the low 4 GB hold nothing but the
     * running DPU's WRAM, its tasklets' stacks, its program and the
     * environment page; everything else there is reserved inaccessible. */
    reserve_low_gaps();
    if (mmap((void *)(uintptr_t)OP_WRAM_BASE, OP_WRAM_STRIDE, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
        die("cannot map WRAM at 0x%x: %s", OP_WRAM_BASE, strerror(errno));
    map_native_stacks();
    if (op_sched_init(OP_MAX_TASKLETS) != 0)
        die("cannot map the service stacks: %s", strerror(errno));
    map_env();
    op_fill_costs(cost_slots, &ctrl->desc.ops);
    install_handlers();
    /* from here on, DPU code cannot make system calls (sandbox.h) */
    char err[256];
    if (op_sandbox_install(err, sizeof err) != 0)
        die("%s", err);
    serve(OP_WORKER_FD_SOCKET, (unsigned)index);
}
