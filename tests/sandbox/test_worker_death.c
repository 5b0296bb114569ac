/* A worker that dies mid-launch (here SIGKILLed from outside while its DPU
 * spins) gives that DPU a "worker" fault naming the DPU and the cause; the
 * DPUs it had not started run elsewhere, the other DPUs' results are intact,
 * and the next launch works on a new worker. */
#define _GNU_SOURCE
#include <dpu.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "check.h"
#include "procs.h"

#define NR 8
#define VICTIM 2 /* early in its worker's slice: DPUs 3 (at least) are still to run */

static void set_mode(struct dpu_set_t set, uint32_t victim_mode)
{
    struct dpu_set_t dpu;
    uint32_t i, zero = 0;
    uint64_t zero64 = 0;
    DPU_ASSERT(dpu_copy_to(set, "result", 0, &zero64, 8));
    DPU_FOREACH(set, dpu, i)
        DPU_ASSERT(dpu_copy_to(dpu, "mode", 0, i == VICTIM ? &victim_mode : &zero, 4));
}

static void check_results(struct dpu_set_t set, int with_victim)
{
    struct dpu_set_t dpu;
    uint32_t i;
    DPU_FOREACH(set, dpu, i) {
        if (!with_victim && i == VICTIM)
            continue;
        uint64_t r, m[4];
        CHECK_EQ(dpu_copy_from(dpu, "result", 0, &r, 8), DPU_OK);
        CHECK_EQ(r, 42);
        CHECK_EQ(dpu_copy_from(dpu, "mram_out", 0, m, sizeof m), DPU_OK);
        for (uint64_t t = 0; t < 4; t++)
            CHECK_EQ(m[t], t * 1000 + 7);
        struct openpim_fault f;
        CHECK_EQ(openpim_get_fault(dpu, &f), DPU_OK);
        CHECK(!f.faulted);
    }
}

static pid_t killed;
static atomic_int launch_over;

static void *kill_spinning_worker(void *arg)
{
    (void)arg;
    killed = find_spinning_worker(&launch_over);
    if (killed)
        kill(killed, SIGKILL);
    return NULL;
}

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
        pthread_t helper;
        atomic_store(&launch_over, 0);
        CHECK_EQ(pthread_create(&helper, NULL, kill_spinning_worker, NULL), 0);
        CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_DPU_FAULT);
        atomic_store(&launch_over, 1);
        pthread_join(helper, NULL);
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
