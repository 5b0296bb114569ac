/* Asynchronous launches: the SDK's rank job queues.  dpu_launch(DPU_ASYNCHRONOUS)
 * checks the set, queues the launch and returns; one background thread runs the
 * queue in issue order (so a rank's jobs keep their order) without the library
 * lock, so the program and its other threads go on meanwhile.  A call that
 * touches a rank with queued work waits for it first (op_jobs_wait); dpu_status
 * reports it as running. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"
#include "report.h"
#include "vclock.h"

struct job {
    struct job *next;
    struct dpu_set_t set;
    uint32_t *ids, n;
    double issued_us; /* the host's modelled clock when it was issued */
};

/* jobs_mutex guards the queue and every rank's `jobs` count. */
static pthread_mutex_t jobs_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queued = PTHREAD_COND_INITIALIZER, finished = PTHREAD_COND_INITIALIZER;
static struct job *head, *tail;
static unsigned outstanding; /* queued or running */
static int started;

/* Adds d to the set's ranks' job counts (under jobs_mutex). */
static void count(struct dpu_set_t set, int d)
{
    if (set.kind == DPU_SET_DPU) {
        set.dpu->rank->jobs += d;
        return;
    }
    for (uint32_t i = 0; i < set.list.nr_ranks; i++)
        set.list.ranks[i]->jobs += d;
}

static int busy_locked(struct dpu_set_t set)
{
    if (set.kind == DPU_SET_DPU)
        return set.dpu->rank->jobs != 0;
    for (uint32_t i = 0; i < set.list.nr_ranks; i++)
        if (set.list.ranks[i]->jobs)
            return 1;
    return 0;
}

static void *executor(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&jobs_mutex);
        while (!head)
            pthread_cond_wait(&queued, &jobs_mutex);
        struct job *j = head;
        head = j->next;
        if (!head)
            tail = NULL;
        pthread_mutex_unlock(&jobs_mutex);

        char err[256];
        int rc = op_machine_launch(op_sdk_machine(), j->ids, j->n, err, sizeof err);
        op_sdk_lock();
        op_launch_done(j->set, rc, err, 1, j->issued_us, op_real_now_us()); /* the host did not wait */
        pthread_mutex_lock(&jobs_mutex);
        count(j->set, -1);
        outstanding--;
        pthread_cond_broadcast(&finished);
        pthread_mutex_unlock(&jobs_mutex);
        op_sdk_unlock();
        free(j->ids);
        free(j);
    }
    return NULL;
}

dpu_error_t op_jobs_submit(struct dpu_set_t set, uint32_t *ids, uint32_t n, double issued_us)
{
    struct job *j = calloc(1, sizeof *j);
    if (!j) {
        free(ids);
        return DPU_ERR_SYSTEM;
    }
    *j = (struct job){.set = set, .ids = ids, .n = n, .issued_us = issued_us};
    pthread_mutex_lock(&jobs_mutex);
    if (!started) {
        pthread_t t;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        int rc = pthread_create(&t, &a, executor, NULL);
        pthread_attr_destroy(&a);
        if (rc != 0) {
            pthread_mutex_unlock(&jobs_mutex);
            free(ids);
            free(j);
            op_warn("cannot start the thread that runs asynchronous launches");
            return DPU_ERR_SYSTEM;
        }
        started = 1;
    }
    count(set, 1);
    outstanding++;
    if (tail)
        tail->next = j;
    else
        head = j;
    tail = j;
    pthread_cond_signal(&queued);
    pthread_mutex_unlock(&jobs_mutex);
    return DPU_OK;
}

int op_jobs_busy(struct dpu_set_t set)
{
    pthread_mutex_lock(&jobs_mutex);
    int b = busy_locked(set);
    pthread_mutex_unlock(&jobs_mutex);
    return b;
}

void op_jobs_wait(struct dpu_set_t set)
{
    if (!op_jobs_busy(set))
        return;
    unsigned held = op_sdk_suspend(); /* the executor needs the lock to finish */
    pthread_mutex_lock(&jobs_mutex);
    while (busy_locked(set))
        pthread_cond_wait(&finished, &jobs_mutex);
    pthread_mutex_unlock(&jobs_mutex);
    op_sdk_resume(held);
}

void op_jobs_drain(void)
{
    unsigned held = op_sdk_suspend();
    pthread_mutex_lock(&jobs_mutex);
    while (outstanding)
        pthread_cond_wait(&finished, &jobs_mutex);
    pthread_mutex_unlock(&jobs_mutex);
    op_sdk_resume(held);
}
