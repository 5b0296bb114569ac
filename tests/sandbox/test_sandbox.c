/* SPDX-License-Identifier: MIT */
/* DPU code cannot make system calls: each forbidden class (process, file,
 * signal, memory, exec, foreign ABI, and a call the worker itself may make)
 * faults that DPU with "forbidden system call N (name)", the call never
 * happens (no file, no process, no mapping, host alive), the worker survives,
 * the other DPUs of the launch finish correctly and the same DPUs run
 * normally afterwards.  Also: stack frames too large for a tasklet are that
 * tasklet's stack overflow wherever they land. */
#define _GNU_SOURCE
#include <dpu.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "check.h"
#include "procs.h"

#define NR 8
#define VICTIM 5

#include "victim.h"

struct sys_case {
    uint32_t mode;
    const char *expect; /* part of the fault message */
};

static const struct sys_case sys_cases[] = {
    {1, "forbidden system call 57 (fork)"},
    {2, "forbidden system call 58 (vfork)"},
    {3, "forbidden system call 56 (clone)"},
    {4, "forbidden system call 2 (open)"},
    {5, "forbidden system call 257 (openat)"},
    {6, "forbidden system call 85 (creat)"},
    {7, "forbidden system call 62 (kill)"},
    {8, "forbidden system call 110 (getppid)"},
    {9, "forbidden system call 234 (tgkill)"},
    {10, "forbidden system call 9 (mmap)"},
    {11, "forbidden system call 10 (mprotect)"},
    {12, "forbidden system call 12 (brk)"},
    {13, "forbidden system call 59 (execve)"},
    {14, "forbidden system call 1073741863 (x32 ABI)"},
    {15, "forbidden system call 1 (write)"},
};

static char victim_path[128], victim_shell[192];

static struct dpu_set_t victim_of(struct dpu_set_t set)
{
    struct dpu_set_t dpu, v = set;
    uint32_t i;
    DPU_FOREACH(set, dpu, i)
        if (i == VICTIM)
            v = dpu;
    return v;
}

static void check_fault(struct dpu_set_t set, const char *kind, unsigned tasklet, const char *expect)
{
    struct openpim_fault f;
    CHECK_EQ(openpim_get_fault(victim_of(set), &f), DPU_OK);
    CHECK(f.faulted);
    CHECK_EQ(f.tasklet, tasklet);
    if (!f.faulted || strcmp(f.kind, kind) != 0 || !strstr(f.message, expect)) {
        fprintf(stderr, "got %s fault \"%s\", expected %s fault with \"%s\"\n", f.kind, f.message, kind, expect);
        CHECK(0);
    }
}

static long vm_size_kb(pid_t pid)
{
    char path[64], line[256];
    long kb = -1;
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmSize: %ld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

/* The permissions of the worker's mapping that holds the DPU's WRAM. */
static void wram_perms(pid_t pid, char perms[5])
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    strcpy(perms, "none");
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char p[5];
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, p) == 3 && lo <= 0x10000000ul && 0x10000000ul < hi) {
            memcpy(perms, p, 5);
            break;
        }
    }
    if (f)
        fclose(f);
}

int main(void)
{
    CHECK_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
    char dir[] = "/tmp/openpim-sandbox-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    snprintf(victim_path, sizeof victim_path, "%s/escaped", dir);
    snprintf(victim_shell, sizeof victim_shell, ": > %s", victim_path);

    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(NR, "nrRanks=1,nrDpusPerRank=8,workers=2", &set));
    DPU_ASSERT(dpu_load(set, "./dpu_sandbox", NULL));
    uint64_t me = (uint64_t)getpid();
    DPU_ASSERT(dpu_copy_to(set, "host_pid", 0, &me, 8));
    DPU_ASSERT(dpu_copy_to(set, "path", 0, victim_path, sizeof victim_path));
    DPU_ASSERT(dpu_copy_to(set, "shell", 0, victim_shell, sizeof victim_shell));
    set_mode(set, 0);
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    check_results(set, 1);

    struct proc workers[MAX_PROCS];
    int nw = children_of(getpid(), workers, MAX_PROCS);
    CHECK_EQ(nw, 2);
    long vm_before[MAX_PROCS];
    for (int w = 0; w < nw; w++)
        vm_before[w] = vm_size_kb(workers[w].pid);

    for (size_t c = 0; c < sizeof sys_cases / sizeof *sys_cases; c++) {
        const struct sys_case *e = &sys_cases[c];
        set_mode(set, e->mode);
        CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_DPU_FAULT);
        check_fault(set, "syscall", 0, e->expect);
        uint64_t returned = 1;
        CHECK_EQ(dpu_copy_from(victim_of(set), "returned", 0, &returned, 8), DPU_OK);
        CHECK_EQ(returned, 0); /* the call never came back to DPU code */
        check_results(set, 0);
        /* nothing happened: no file, no new process, same workers, no
         * mapping of 1 GB, WRAM not made executable; the host is alive */
        CHECK(access(victim_path, F_OK) != 0 && errno == ENOENT);
        CHECK_EQ(grandchildren(), 0);
        struct proc now[MAX_PROCS];
        CHECK_EQ(children_of(getpid(), now, MAX_PROCS), nw);
        for (int w = 0; w < nw; w++) {
            CHECK(is_child(workers[w].pid));
            long vm = vm_size_kb(workers[w].pid);
            CHECK(vm > 0 && vm < vm_before[w] + (512l << 10));
            char perms[5];
            wram_perms(workers[w].pid, perms);
            CHECK(perms[0] == 'r' && perms[2] == '-'); /* mapped, not executable */
        }
        /* the same DPUs run normally afterwards */
        set_mode(set, 0);
        CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
        check_results(set, 1);
    }

    /* a frame larger than the tasklet's stack (its declared budget in WRAM) */
    struct {
        uint32_t mode;
        unsigned tasklet;
        const char *expect;
    } stack_cases[] = {{18, 0, "stack overflow in tasklet 0"}, {19, 3, "stack overflow in tasklet 3"}};
    for (size_t c = 0; c < 2; c++) {
        set_mode(set, stack_cases[c].mode);
        CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_DPU_FAULT);
        check_fault(set, "stack", stack_cases[c].tasklet, stack_cases[c].expect);
        check_results(set, 0);
        set_mode(set, 0);
        CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
        check_results(set, 1);
    }

    DPU_ASSERT(dpu_free(set));
    CHECK_EQ(rmdir(dir), 0); /* still empty */
    return check_done("test_sandbox");
}
