/* SPDX-License-Identifier: MIT */
/* A worker that dies mid-launch (here SIGKILLed from outside while its DPU
 * spins) gives that DPU a "worker" fault naming the DPU and the cause; the
 * DPUs it had not started run elsewhere, the other DPUs' results are intact,
 * and the next launch works on a new worker. */
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
#define VICTIM 2 /* early in its worker's slice: DPUs 3 (at least) are still to run */

#include "victim.h"

int main(void)
{
    CHECK_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
    struct dpu_set_t set, dpu;
    uint32_t i;
    /* the budget only bounds the test if the kill never comes */
    DPU_ASSERT(dpu_alloc(NR, "nrRanks=1,nrDpusPerRank=8,workers=2,timeoutMs=5000", &set));
    DPU_ASSERT(dpu_load(set, "./dpu_sandbox", NULL));
    set_mode(set, 0);
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    check_results(set, 1);

    for (int round = 0; round < 2; round++) { /* the machine recovers, more than once */
        set_mode(set, 17);
        struct spinner helper;
        CHECK_EQ(spinner_start(&helper, SIGKILL), 0);
        CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_DPU_FAULT);
        pid_t killed = spinner_finish(&helper);
        CHECK(killed != 0);
        DPU_FOREACH(set, dpu, i) {
            if (i != VICTIM)
                continue;
            struct openpim_fault f;
            CHECK_EQ(openpim_get_fault(dpu, &f), DPU_OK);
            if (!f.faulted || strcmp(f.kind, "worker") != 0 ||
                strcmp(f.message, "the worker running DPU 2 died: signal 9 (Killed)") != 0) {
                fprintf(stderr, "got %s fault \"%s\"\n", f.kind, f.message);
                CHECK(0);
            }
        }
        check_results(set, 0);
        CHECK(!is_child(killed));
        CHECK_EQ(grandchildren(), 0);

        set_mode(set, 0);
        CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
        check_results(set, 1);
        struct proc now[MAX_PROCS];
        CHECK_EQ(children_of(getpid(), now, MAX_PROCS), 2);
    }
    DPU_ASSERT(dpu_free(set));
    return check_done("test_worker_death");
}
