/* SPDX-License-Identifier: MIT */
/* The host never waits on a worker without a deadline.  A DPU that spins
 * (no system call) with timeoutMs=300 is stopped by its worker's timer; when
 * the worker cannot act on it (here: stopped with SIGSTOP while its DPU
 * spins, as a stuck or frozen worker would be), the host kills and reaps it
 * after the budget plus a grace: DPU_ERR_TIMEOUT for that DPU within three
 * budgets, the other DPUs' results intact, and the machine runs the next
 * launch correctly with a new worker.  A worker stuck outside any DPU is
 * given up after a deadline too. */
#define _GNU_SOURCE
#include <dpu.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "check.h"
#include "procs.h"

#define NR 8
#define VICTIM 5

#include "victim.h"
#define BUDGET_S 0.3

int main(void)
{
    CHECK_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(NR, "nrRanks=1,nrDpusPerRank=8,workers=2,timeoutMs=300", &set));
    DPU_ASSERT(dpu_load(set, "./dpu_sandbox", NULL));
    set_mode(set, 0);
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    check_results(set, 1);
    struct proc workers[MAX_PROCS];
    CHECK_EQ(children_of(getpid(), workers, MAX_PROCS), 2);

    /* the worker's own timer: the worker stays */
    set_mode(set, 17);
    double t0 = now_s();
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_TIMEOUT);
    double took = now_s() - t0;
    struct openpim_fault f = victim_fault(set);
    CHECK(f.faulted && strcmp(f.kind, "timeout") == 0 && strstr(f.message, "time budget of 0.300 s") &&
          !strstr(f.message, "killed"));
    CHECK(took >= BUDGET_S && took < 3 * BUDGET_S);
    check_results(set, 0);
    CHECK(is_child(workers[0].pid) && is_child(workers[1].pid));

    /* a worker that cannot stop its DPU: the host's deadline.  The helper
     * must stop the worker before its timer fires; on a loaded host it may be
     * late (the worker's timer then ends the DPU): try again. */
    pid_t stopped = 0;
    for (int attempt = 0;; attempt++) {
        set_mode(set, 17);
        struct spinner helper;
        CHECK_EQ(spinner_start(&helper, SIGSTOP), 0);
        t0 = now_s();
        CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_TIMEOUT);
        took = now_s() - t0;
        stopped = spinner_finish(&helper);
        f = victim_fault(set);
        if (strstr(f.message, "killed") || attempt == 4)
            break;
        printf("attempt %d: the worker's timer stopped the DPU first (%s)\n", attempt, f.message);
        if (stopped) /* stopped too late: let it go on */
            kill(stopped, SIGCONT);
    }
    CHECK(stopped != 0);
    if (!f.faulted || strcmp(f.kind, "timeout") != 0 || !strstr(f.message, "DPU 5 ran past its time budget") ||
        !strstr(f.message, "its worker was killed")) {
        fprintf(stderr, "got %s fault \"%s\"\n", f.kind, f.message);
        CHECK(0);
    }
    printf("host deadline: launch returned after %.3f s (budget %.3f s)\n", took, BUDGET_S);
    CHECK(took >= BUDGET_S && took < 3 * BUDGET_S);
    check_results(set, 0);
    CHECK(!is_child(stopped)); /* killed and reaped */
    CHECK_EQ(grandchildren(), 0);

    /* the machine is intact: the same DPUs, a new worker */
    set_mode(set, 0);
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    check_results(set, 1);
    struct proc now[MAX_PROCS];
    CHECK_EQ(children_of(getpid(), now, MAX_PROCS), 2);

    /* a worker stuck outside any DPU (stopped while idle): the other worker
     * runs every DPU, and the host gives up on the stuck one after its
     * deadline (10 s) instead of waiting for it for ever */
    CHECK_EQ(kill(now[0].pid, SIGSTOP), 0);
    set_mode(set, 0);
    t0 = now_s();
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    took = now_s() - t0;
    printf("stuck worker: launch returned after %.3f s\n", took);
    CHECK(took >= 10 && took < 20);
    check_results(set, 1);
    CHECK(!is_child(now[0].pid));
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    check_results(set, 1);
    DPU_ASSERT(dpu_free(set));
    return check_done("test_deadline");
}
