/* SPDX-License-Identifier: MIT */
/* The SDK's per-rank job queues.  A job (a launch, a transfer, a callback)
 * takes a ticket on each rank of its set when it is issued and starts when
 * every one of those ranks has finished its earlier jobs, so a rank's jobs run
 * in issue order and jobs on different ranks run at the same time.  Tickets of
 * one job are taken together under jobs_mutex, which orders all jobs one
 * global way: no two jobs can wait for each other.
 *
 * An asynchronous job runs on a thread of its own; a synchronous one on the
 * caller's thread.  Either way its work (job->run) runs without the library
 * lock, so other threads, and the program, go on; job->finish runs with it.
 * A call that touches a rank with unfinished jobs waits for them first
 * (op_jobs_wait). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"
#include "openpim_ext.h"

/* jobs_mutex guards every rank's issued/done/detached counts and outstanding. */
static pthread_mutex_t jobs_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static unsigned outstanding; /* asynchronous jobs not finished */

/* The job whose work this thread is doing (a callback's): its ranks are this
 * thread's until it ends, so what the callback does on them neither waits for
 * it nor queues behind it (it would wait for itself). */
static _Thread_local struct op_job *inside;
#define OWN UINT64_MAX /* a ticket not taken: the rank is the caller's own */

static uint32_t ranks_of(struct dpu_set_t set, struct dpu_rank_t *const **list, struct dpu_rank_t **one);

static int owned(const struct dpu_rank_t *r)
{
    if (!inside)
        return 0;
    struct dpu_rank_t *const *ranks, *one;
    uint32_t n = ranks_of(inside->set, &ranks, &one);
    for (uint32_t i = 0; i < n; i++)
        if (ranks[i] == r)
            return 1;
    return 0;
}

/* The ranks of a set: the rank of a DPU, or the set's list. */
static uint32_t ranks_of(struct dpu_set_t set, struct dpu_rank_t *const **list, struct dpu_rank_t **one)
{
    if (set.kind == DPU_SET_DPU) {
        *one = set.dpu->rank;
        *list = one;
        return 1;
    }
    *list = set.list.ranks;
    return set.list.nr_ranks;
}

/* Allocates j's tickets (before jobs_mutex is taken); 0 or -1. */
static int alloc_tickets(struct op_job *j)
{
    struct dpu_rank_t *const *ranks, *one;
    uint32_t n = ranks_of(j->set, &ranks, &one);
    j->tickets = malloc((n ? n : 1) * sizeof *j->tickets);
    if (!j->tickets)
        op_warn("out of memory");
    return j->tickets ? 0 : -1;
}

static void take_tickets(struct op_job *j)
{
    struct dpu_rank_t *const *ranks, *one;
    uint32_t n = ranks_of(j->set, &ranks, &one);
    for (uint32_t i = 0; i < n; i++)
        j->tickets[i] = owned(ranks[i]) ? OWN : ranks[i]->issued++;
}

static int ready(const struct op_job *j)
{
    struct dpu_rank_t *const *ranks, *one;
    uint32_t n = ranks_of(j->set, &ranks, &one);
    for (uint32_t i = 0; i < n; i++)
        if (j->tickets[i] != OWN && ranks[i]->done != j->tickets[i])
            return 0;
    return 1;
}

/* Lets the ranks' next jobs start (under jobs_mutex). */
static void pass_tickets(struct dpu_set_t set, const uint64_t *tickets)
{
    struct dpu_rank_t *const *ranks, *one;
    uint32_t n = ranks_of(set, &ranks, &one);
    for (uint32_t i = 0; i < n; i++)
        if (tickets[i] != OWN)
            ranks[i]->done++;
    pthread_cond_broadcast(&changed);
}

static void detached(struct dpu_set_t set, const uint64_t *tickets, int d)
{
    struct dpu_rank_t *const *ranks, *one;
    uint32_t n = ranks_of(set, &ranks, &one);
    for (uint32_t i = 0; i < n; i++)
        if (tickets[i] != OWN)
            ranks[i]->detached += d;
    if (d < 0)
        pthread_cond_broadcast(&changed);
}

/* Runs j once its ranks are free: its work without the library lock, then
 * finish with it, before the ranks' next job starts (finish reads what the
 * work left on the DPUs: a launch's cycles, its faults).  Called with the lock
 * held (held times); j may be freed by finish. */
static void execute(struct op_job *j)
{
    unsigned held = op_sdk_suspend();
    pthread_mutex_lock(&jobs_mutex);
    while (!ready(j))
        pthread_cond_wait(&changed, &jobs_mutex);
    struct dpu_set_t set = j->set;
    uint64_t *tickets = j->tickets;
    bool nonblocking = j->nonblocking;
    if (nonblocking) { /* the ranks' queues go on while it runs */
        detached(set, tickets, 1);
        pass_tickets(set, tickets);
    }
    pthread_mutex_unlock(&jobs_mutex);
    struct op_job *outer = inside;
    inside = j;
    j->run(j);
    inside = outer;
    op_sdk_resume(held);
    if (j->finish)
        j->finish(j);
    pthread_mutex_lock(&jobs_mutex);
    if (nonblocking)
        detached(set, tickets, -1);
    else
        pass_tickets(set, tickets);
    pthread_mutex_unlock(&jobs_mutex);
    free(tickets);
}

static void *background(void *arg)
{
    struct op_job *j = arg;
    openpim_session_use((struct openpim_session *)j->session);
    op_sdk_background();
    op_sdk_lock();
    execute(j); /* j->finish frees j */
    pthread_mutex_lock(&jobs_mutex);
    outstanding--;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&jobs_mutex);
    op_sdk_unlock();
    return NULL;
}

dpu_error_t op_jobs_submit(struct op_job *j)
{
    if (alloc_tickets(j) != 0)
        return DPU_ERR_SYSTEM;
    struct dpu_rank_t *const *ranks, *one;
    if (ranks_of(j->set, &ranks, &one) == 0) {
        /* no rank to queue on, so nothing dpu_sync could wait for: run it now */
        j->session = op_session();
        execute(j);
        return DPU_OK;
    }
    j->session = op_session();
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_mutex_lock(&jobs_mutex);
    take_tickets(j);
    outstanding++;
    pthread_t t;
    int started = pthread_create(&t, &a, background, j) == 0;
    if (!started)
        outstanding--;
    pthread_mutex_unlock(&jobs_mutex);
    pthread_attr_destroy(&a);
    if (!started) /* run it here instead: the same order, only not in the background */
        execute(j);
    return DPU_OK;
}

dpu_error_t op_jobs_run(struct op_job *j)
{
    if (alloc_tickets(j) != 0)
        return DPU_ERR_SYSTEM;
    j->session = op_session();
    pthread_mutex_lock(&jobs_mutex);
    take_tickets(j);
    pthread_mutex_unlock(&jobs_mutex);
    execute(j);
    return DPU_OK;
}

static int busy_locked(struct dpu_set_t set)
{
    struct dpu_rank_t *const *ranks, *one;
    uint32_t n = ranks_of(set, &ranks, &one);
    for (uint32_t i = 0; i < n; i++)
        if (!owned(ranks[i]) && (ranks[i]->issued != ranks[i]->done || ranks[i]->detached))
            return 1;
    return 0;
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
    unsigned held = op_sdk_suspend(); /* the jobs need the lock to finish */
    pthread_mutex_lock(&jobs_mutex);
    while (busy_locked(set))
        pthread_cond_wait(&changed, &jobs_mutex);
    pthread_mutex_unlock(&jobs_mutex);
    op_sdk_resume(held);
}

void op_jobs_drain(void)
{
    unsigned held = op_sdk_suspend();
    pthread_mutex_lock(&jobs_mutex);
    while (outstanding)
        pthread_cond_wait(&changed, &jobs_mutex);
    pthread_mutex_unlock(&jobs_mutex);
    op_sdk_resume(held);
}
