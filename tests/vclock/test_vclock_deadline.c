/* SPDX-License-Identifier: MIT */
/* Deadlines read the real clock.  With OPENPIM_VIRTUAL_CLOCK=1 the program's
 * clock_gettime runs ahead of real time by what the SDK's calls model beyond
 * what they took (here seconds: a one-tasklet loop the host runs far faster
 * than a DPU would).  A launch budget (timeoutMs=300) and the host's grace
 * kill must behave as without it: a short launch finishes, a spinning DPU is
 * stopped by its worker's timer after the budget, and a worker that cannot
 * stop it is killed after the budget plus the grace.  ctest runs this with and
 * without the variable.  Durations are taken with the raw system call, which
 * the virtual clock does not move. */
#define _GNU_SOURCE
#include <dpu.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "procs.h"

#define NR 8
#define VICTIM 5
#define BUDGET_S 0.3

#include "victim.h"

static double raw_s(void)
{
    struct timespec t;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* How far the program's clock runs ahead of the real one, in seconds. */
static double clock_ahead_s(void)
{
    return now_s() - raw_s();
}

int main(void)
{
    const char *vc = getenv("OPENPIM_VIRTUAL_CLOCK");
    int virtual_clock = vc && *vc && strcmp(vc, "0") != 0;
    CHECK_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);

    /* seconds of modelled DPU time the host computes in a fraction of one */
    struct dpu_set_t slow;
    DPU_ASSERT(dpu_alloc(1, NULL, &slow));
    DPU_ASSERT(dpu_load(slow, "../timing/dpu_timing_t1", NULL));
    uint32_t mode = 1, n = 20000000;
    DPU_ASSERT(dpu_broadcast_to(slow, "mode", 0, &mode, 4, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_broadcast_to(slow, "n", 0, &n, 4, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_launch(slow, DPU_SYNCHRONOUS));
    DPU_ASSERT(dpu_free(slow)); /* the next machine has a budget */
    double ahead = clock_ahead_s();
    printf("virtual clock %s: the program's clock is %.3f s ahead of the real one\n", virtual_clock ? "on" : "off",
           ahead);
    if (virtual_clock)
        CHECK(ahead > 3 * BUDGET_S); /* else this test would not test anything */
    else
        CHECK(ahead < 0.01 && ahead > -0.01);

    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(NR, "nrRanks=1,nrDpusPerRank=8,workers=2,timeoutMs=300", &set));
    DPU_ASSERT(dpu_load(set, "../sandbox/dpu_sandbox", NULL));

    /* a launch well within the budget finishes */
    set_mode(set, 0);
    double t0 = raw_s();
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    CHECK(raw_s() - t0 < BUDGET_S);
    check_results(set, 1);

    /* a spinning DPU: its worker's timer stops it after the budget */
    set_mode(set, 17);
    t0 = raw_s();
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_TIMEOUT);
    double took = raw_s() - t0;
    struct openpim_fault f = victim_fault(set);
    printf("worker's timer: launch returned after %.3f s (%s)\n", took, f.message);
    CHECK(f.faulted && strcmp(f.kind, "timeout") == 0 && !strstr(f.message, "killed"));
    CHECK(took >= BUDGET_S && took < 3 * BUDGET_S);
    check_results(set, 0);

    /* a worker that cannot stop it (stopped while its DPU spins): the host
     * kills it after the budget plus the grace, not before and not never.
     * On a loaded host the helper may stop the worker late: try again. */
    pid_t stopped = 0;
    for (int attempt = 0;; attempt++) {
        set_mode(set, 17);
        struct spinner helper;
        CHECK_EQ(spinner_start(&helper, SIGSTOP), 0);
        t0 = raw_s();
        CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_TIMEOUT);
        took = raw_s() - t0;
        stopped = spinner_finish(&helper);
        f = victim_fault(set);
        if (strstr(f.message, "killed") || attempt == 4)
            break;
        if (stopped)
            kill(stopped, SIGCONT);
    }
    printf("host's grace kill: launch returned after %.3f s (%s)\n", took, f.message);
    CHECK(stopped != 0 && strstr(f.message, "DPU 5 ran past its time budget") && strstr(f.message, "killed"));
    /* the grace is max(budget, 0.2 s): the kill comes at 0.6 s */
    CHECK(took >= 2 * BUDGET_S && took < 3 * BUDGET_S + 0.5);
    check_results(set, 0);

    set_mode(set, 0);
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    check_results(set, 1);
    DPU_ASSERT(dpu_free(set));
    return check_done("test_vclock_deadline");
}
