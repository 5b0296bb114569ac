/* SPDX-License-Identifier: MIT */
/* Launching DPUs: synchronous and asynchronous launches, status, sync and
 * callbacks.  An asynchronous launch is queued (jobs.c) and runs in the
 * background in issue order, as the SDK's rank job queues; its error is kept
 * for dpu_sync.  In modelled time it runs on its ranks' timelines while the
 * host goes on (report.c). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "openpim_ext.h"
#include "progress.h"
#include "report.h"

static const char *fault_kind(uint32_t f)
{
#define OP_FAULT_NAME_(kind, name) name,
    static const char *const names[] = {OP_FAULT_KINDS(OP_FAULT_NAME_)};
#undef OP_FAULT_NAME_
    return f < OP_FAULT_COUNT ? names[f] : "unknown";
}

dpu_error_t op_sync_ranks(struct dpu_set_t set)
{
    op_jobs_wait(set);
    return DPU_OK;
}

/* The machine indexes of the set's DPUs, each with a program loaded. */
static dpu_error_t collect(struct dpu_set_t set, uint32_t **ids_out, uint32_t *n_out)
{
    uint32_t n = op_set_count(set);
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids)
        return DPU_ERR_SYSTEM;
    struct dpu_t *d;
    uint32_t i = 0;
    OP_SET_FOREACH_DPU(set, d) {
        if (!d->program) {
            free(ids);
            return DPU_ERR_NO_PROGRAM_LOADED;
        }
        ids[i++] = d->id;
    }
    *ids_out = ids;
    *n_out = n;
    return DPU_OK;
}

dpu_error_t op_launch_done(struct dpu_set_t set, int machine_rc, const char *err, int async, double issued_us)
{
    if (machine_rc != 0) {
        op_warn("launch failed: %s", err);
        return DPU_ERR_SYSTEM;
    }
    op_record_launch(set, async, issued_us);
    dpu_error_t out = DPU_OK;
    unsigned shown = 0, faulted = 0, index = 0;
    struct dpu_t *d;
    /* a DPU is named by its index in the set first (as DPU_FOREACH counts),
     * then by where it is in the machine */
    OP_SET_FOREACH_DPU(set, d) {
        unsigned i = index++;
        struct op_dpu_status r;
        OP_BACKEND(result, d->id, &r);
        if (r.fault == OP_FAULT_NONE)
            continue;
        faulted++;
        if (out == DPU_OK || r.fault != OP_FAULT_TIMEOUT)
            out = r.fault == OP_FAULT_TIMEOUT ? DPU_ERR_TIMEOUT : DPU_ERR_DPU_FAULT;
        if (shown < 4) {
            shown++;
            char where[256];
            op_fault_location(d->program, r.fault_pc, where, sizeof where);
            op_warn("DPU %u of the set (machine DPU %u: rank %u, chip %u, dpu %u) tasklet %u: %s fault: %s%s", i,
                    d->id, d->rank->index, d->slice, d->member, r.fault_tasklet, fault_kind(r.fault), r.fault_msg,
                    where);
        }
    }
    if (shown < faulted)
        op_warn("... and %u more faulting DPUs", faulted - shown);
    if (async)
        op_set_pending(set, out);
    return out;
}

/* Records an asynchronous job's error on the set's ranks, for dpu_sync. */
void op_set_pending(struct dpu_set_t set, dpu_error_t rc)
{
    for (uint32_t i = 0; set.kind == DPU_SET_RANKS && i < set.list.nr_ranks; i++)
        if (set.list.ranks[i]->pending == DPU_OK)
            set.list.ranks[i]->pending = rc;
    if (set.kind == DPU_SET_DPU && set.dpu->rank->pending == DPU_OK)
        set.dpu->rank->pending = rc;
}

struct launch_job {
    struct op_job job;
    uint32_t *ids, n;
    double issued_us; /* the host's modelled clock when it was issued; < 0: synchronous */
    int rc;
    dpu_error_t out; /* a synchronous launch's result */
    char err[256];
};

static void launch_watch(void *arg, uint32_t done)
{
    op_progress_update(arg, done);
}

/* The launch, watched for the progress line when that is on and the backend
 * can count finished DPUs (the embedded machine; not openpimd's). */
static void launch_run(struct op_job *j)
{
    struct launch_job *l = (struct launch_job *)j;
    struct op_progress p;
    op_progress_begin(&p, "launch", l->n);
    if (p.on && op_sdk_backend()->ops->launch_watched)
        l->rc = OP_BACKEND(launch_watched, l->ids, l->n, launch_watch, &p, l->err, sizeof l->err);
    else
        l->rc = OP_BACKEND(launch, l->ids, l->n, l->err, sizeof l->err);
    op_progress_end(&p);
}

/* Concludes an asynchronous launch: the host did not wait for it. */
static void launch_finish_async(struct op_job *j)
{
    struct launch_job *l = (struct launch_job *)j;
    op_launch_done(j->set, l->rc, l->err, 1, l->issued_us);
    free(l->ids);
    free(l);
}

/* Concludes a synchronous launch: the host waited for it. */
static void launch_finish_sync(struct op_job *j)
{
    struct launch_job *l = (struct launch_job *)j;
    l->out = op_launch_done(j->set, l->rc, l->err, 0, -1);
}

static dpu_error_t dpu_launch_locked(struct dpu_set_t dpu_set, dpu_launch_policy_t policy)
{
    dpu_error_t rc = op_set_check(dpu_set);
    if (rc != DPU_OK)
        return rc;
    if (policy != DPU_SYNCHRONOUS && policy != DPU_ASYNCHRONOUS)
        return DPU_ERR_INVALID_LAUNCH_POLICY;
    if (openpim_timing_paused()) { /* a kernel is computation the what-if must not hide (openpim_ext.h) */
        op_warn("dpu_launch while modelled timing is paused (openpim_timing_pause): resume first");
        return DPU_ERR_UNSUPPORTED;
    }
    uint32_t *ids, n;
    if ((rc = collect(dpu_set, &ids, &n)) != DPU_OK)
        return rc;
    if (policy == DPU_ASYNCHRONOUS) { /* queued behind the ranks' earlier jobs; the host goes on */
        struct launch_job *l = calloc(1, sizeof *l);
        if (!l) {
            free(ids);
            return DPU_ERR_SYSTEM;
        }
        *l = (struct launch_job){.job = {.set = dpu_set, .run = launch_run, .finish = launch_finish_async},
                                 .ids = ids, .n = n, .issued_us = op_record_host_clock()};
        if ((rc = op_jobs_submit(&l->job)) != DPU_OK) {
            free(ids);
            free(l);
        }
        return rc;
    }
    struct launch_job l = {.job = {.set = dpu_set, .run = launch_run, .finish = launch_finish_sync},
                           .ids = ids, .n = n, .issued_us = -1};
    rc = op_jobs_run(&l.job);
    free(ids);
    return rc != DPU_OK ? rc : l.out;
}

dpu_error_t dpu_launch(struct dpu_set_t dpu_set, dpu_launch_policy_t policy)
{
    OP_LOCKED_RETURN(dpu_launch_locked(dpu_set, policy));
}

static dpu_error_t dpu_status_locked(struct dpu_set_t dpu_set, bool *done, bool *fault)
{
    dpu_error_t rc = op_set_check(dpu_set);
    if (rc != DPU_OK)
        return rc;
    if (op_jobs_busy(dpu_set)) {
        if (done)
            *done = false;
        if (fault)
            *fault = false;
        return DPU_OK;
    }
    bool any_fault = false;
    struct dpu_t *d;
    OP_SET_FOREACH_DPU(dpu_set, d) {
        struct op_dpu_status r;
        OP_BACKEND(result, d->id, &r);
        any_fault |= r.fault != OP_FAULT_NONE && d->program != NULL;
    }
    if (done)
        *done = true;
    if (fault)
        *fault = any_fault;
    return DPU_OK;
}

dpu_error_t dpu_status(struct dpu_set_t dpu_set, bool *done, bool *fault)
{
    OP_LOCKED_RETURN(dpu_status_locked(dpu_set, done, fault));
}

static dpu_error_t take_pending(struct dpu_set_t set)
{
    dpu_error_t rc = DPU_OK;
    if (set.kind == DPU_SET_DPU) {
        rc = set.dpu->rank->pending;
        set.dpu->rank->pending = DPU_OK;
        return rc;
    }
    for (uint32_t i = 0; i < set.list.nr_ranks; i++) {
        if (rc == DPU_OK)
            rc = set.list.ranks[i]->pending;
        set.list.ranks[i]->pending = DPU_OK;
    }
    return rc;
}

static dpu_error_t dpu_sync_locked(struct dpu_set_t dpu_set)
{
    dpu_error_t rc = op_set_check(dpu_set);
    if (rc != DPU_OK)
        return rc;
    op_jobs_wait(dpu_set);
    op_record_sync(dpu_set);
    return take_pending(dpu_set);
}

dpu_error_t dpu_sync(struct dpu_set_t dpu_set)
{
    OP_LOCKED_RETURN(dpu_sync_locked(dpu_set));
}

/* A callback as a job: called once for its set (a rank, or the whole set
 * with DPU_CALLBACK_SINGLE_CALL) with the index the SDK gives it. */
struct callback_job {
    struct op_job job;
    dpu_error_t (*fn)(struct dpu_set_t, uint32_t, void *);
    void *args;
    uint32_t index;
    dpu_error_t rc;
};

static void callback_run(struct op_job *j)
{
    struct callback_job *c = (struct callback_job *)j;
    double begun = op_sdk_user_begin(); /* the program's own work, inside dpu_callback */
    c->rc = c->fn(j->set, c->index, c->args);
    op_sdk_user_end(begun);
}

/* An asynchronous callback's error surfaces at dpu_sync, if its set is still
 * allocated (the callback may have freed it). */
static void callback_finish_async(struct op_job *j)
{
    struct callback_job *c = (struct callback_job *)j;
    if (c->rc != DPU_OK && op_set_check(j->set) == DPU_OK)
        op_set_pending(j->set, c->rc);
    free(c);
}

/* DPU_CALLBACK_DEFAULT: the callback runs on the calling thread, after the
 * ranks' pending jobs, once per rank in rank order (or once with
 * DPU_CALLBACK_SINGLE_CALL); the first error is returned.  DPU_CALLBACK_ASYNC:
 * each call is a job in its ranks' queues (their later jobs wait for it, unless
 * DPU_CALLBACK_NONBLOCKING) and dpu_callback returns at once; errors surface at
 * dpu_sync.  The user's function always runs without the library lock: it may
 * call the API, or wait for another thread that does. */
static dpu_error_t callback_locked(struct dpu_set_t set, dpu_error_t (*fn)(struct dpu_set_t, uint32_t, void *),
                                   void *args, dpu_callback_flags_t flags)
{
    dpu_error_t rc = op_set_check(set);
    if (rc == DPU_OK && !fn)
        rc = DPU_ERR_INVALID_DPU_SET;
    if (rc != DPU_OK)
        return rc;
    bool single = (flags & DPU_CALLBACK_SINGLE_CALL) || set.kind == DPU_SET_DPU;
    uint32_t calls = single ? 1 : set.list.nr_ranks;
    dpu_error_t out = DPU_OK;
    for (uint32_t i = 0; i < calls; i++) {
        struct dpu_set_t target = single ? set : dpu_set_rank(set, i);
        if (flags & DPU_CALLBACK_ASYNC) {
            struct callback_job *c = calloc(1, sizeof *c);
            if (!c)
                return DPU_ERR_SYSTEM;
            *c = (struct callback_job){
                .job = {.set = target, .run = callback_run, .finish = callback_finish_async,
                        .nonblocking = (flags & DPU_CALLBACK_NONBLOCKING) != 0},
                .fn = fn, .args = args, .index = i};
            if ((rc = op_jobs_submit(&c->job)) != DPU_OK) {
                free(c);
                return rc;
            }
            continue;
        }
        struct callback_job c = {.job = {.set = target, .run = callback_run}, .fn = fn, .args = args, .index = i};
        if ((rc = op_jobs_run(&c.job)) != DPU_OK)
            return rc;
        if (out == DPU_OK)
            out = c.rc;
        /* the callback may have freed the set: stop calling if so */
        if (i + 1 < calls && op_set_check(set) != DPU_OK)
            break;
    }
    return out;
}

dpu_error_t dpu_callback(struct dpu_set_t dpu_set, dpu_error_t (*callback)(struct dpu_set_t, uint32_t, void *),
                         void *args, dpu_callback_flags_t flags)
{
    OP_LOCKED_RETURN(callback_locked(dpu_set, callback, args, flags));
}

static dpu_error_t openpim_get_dpu_stats_locked(struct dpu_set_t dpu, struct openpim_dpu_stats *stats)
{
    dpu_error_t rc = op_set_check(dpu);
    if (rc != DPU_OK)
        return rc;
    if (dpu.kind != DPU_SET_DPU || !stats)
        return DPU_ERR_INVALID_DPU_SET;
    op_jobs_wait(dpu);
    struct op_dpu_status st;
    OP_BACKEND(result, dpu.dpu->id, &st);
    const struct op_dpu_result *m = &st.model;
    memset(stats, 0, sizeof *stats);
    stats->cycles = m->cycles;
    stats->instructions = m->instructions;
    for (unsigned t = 0; t < 24 && t < OP_TIMING_MAX_TASKLETS; t++)
        stats->tasklet_instructions[t] = m->tasklet_instructions[t];
    stats->dma_read_bytes = m->dma_read_bytes;
    stats->dma_write_bytes = m->dma_write_bytes;
    stats->spin_instructions = m->spin_instructions;
    stats->time_us = op_cycles_to_us(&op_sdk_info()->desc, m->cycles);
    return DPU_OK;
}

dpu_error_t openpim_get_dpu_stats(struct dpu_set_t dpu, struct openpim_dpu_stats *stats)
{
    OP_LOCKED_RETURN(openpim_get_dpu_stats_locked(dpu, stats));
}

static dpu_error_t openpim_get_fault_locked(struct dpu_set_t dpu, struct openpim_fault *info)
{
    dpu_error_t rc = op_set_check(dpu);
    if (rc != DPU_OK)
        return rc;
    if (dpu.kind != DPU_SET_DPU || !info)
        return DPU_ERR_INVALID_DPU_SET;
    op_jobs_wait(dpu);
    struct op_dpu_status st;
    const struct op_dpu_status *r = &st;
    OP_BACKEND(result, dpu.dpu->id, &st);
    memset(info, 0, sizeof *info);
    info->faulted = r->fault != OP_FAULT_NONE;
    info->tasklet = r->fault_tasklet;
    info->kind = fault_kind(r->fault);
    info->pc = r->fault_pc;
    if (info->faulted)
        op_fault_source(dpu.dpu->program, r->fault_pc, info->file, sizeof info->file, &info->line, info->function,
                        sizeof info->function);
    memcpy(info->message, r->fault_msg, sizeof info->message < sizeof r->fault_msg ? sizeof info->message : sizeof r->fault_msg);
    info->message[sizeof info->message - 1] = 0;
    return DPU_OK;
}

dpu_error_t openpim_get_fault(struct dpu_set_t dpu, struct openpim_fault *info)
{
    OP_LOCKED_RETURN(openpim_get_fault_locked(dpu, info));
}
