/* Launching DPUs: synchronous and asynchronous launches, status, sync and
 * callbacks.  An asynchronous launch is queued (jobs.c) and runs in the
 * background in issue order, as the SDK's rank job queues; its error is kept
 * for dpu_sync.  In modelled time it runs on its ranks' timelines while the
 * host goes on (report.c). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "report.h"
#include "vclock.h"

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
    struct op_machine *m = op_sdk_machine();
    uint32_t n = op_set_count(set);
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids)
        return DPU_ERR_SYSTEM;
    struct dpu_t *d;
    uint32_t i = 0;
    OP_SET_FOREACH_DPU(set, d) {
        if (!op_machine_program(m, d->id)) {
            free(ids);
            return DPU_ERR_NO_PROGRAM_LOADED;
        }
        ids[i++] = d->id;
    }
    *ids_out = ids;
    *n_out = n;
    return DPU_OK;
}

dpu_error_t op_launch_done(struct dpu_set_t set, int machine_rc, const char *err, int async, double issued_us,
                           double real_start_us)
{
    if (machine_rc != 0) {
        op_warn("launch failed: %s", err);
        return DPU_ERR_SYSTEM;
    }
    struct op_machine *m = op_sdk_machine();
    op_record_launch(set, async, issued_us, real_start_us);
    dpu_error_t out = DPU_OK;
    unsigned shown = 0, faulted = 0;
    struct dpu_t *d;
    OP_SET_FOREACH_DPU(set, d) {
        const struct op_dpu_status *r = op_machine_result(m, d->id);
        if (r->fault == OP_FAULT_NONE)
            continue;
        faulted++;
        if (out == DPU_OK || r->fault != OP_FAULT_TIMEOUT)
            out = r->fault == OP_FAULT_TIMEOUT ? DPU_ERR_TIMEOUT : DPU_ERR_DPU_FAULT;
        if (shown++ < 4)
            /* bounded: the message lives in memory a worker writes */
            op_warn("DPU %u (rank %u, chip %u, dpu %u) tasklet %u: %s fault: %.*s", d->id, d->rank->index, d->slice,
                    d->member, r->fault_tasklet, fault_kind(r->fault), (int)sizeof r->fault_msg, r->fault_msg);
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

static dpu_error_t dpu_launch_locked(struct dpu_set_t dpu_set, dpu_launch_policy_t policy)
{
    dpu_error_t rc = op_set_check(dpu_set);
    if (rc != DPU_OK)
        return rc;
    if (policy != DPU_SYNCHRONOUS && policy != DPU_ASYNCHRONOUS)
        return DPU_ERR_INVALID_LAUNCH_POLICY;
    uint32_t *ids, n;
    if ((rc = collect(dpu_set, &ids, &n)) != DPU_OK)
        return rc;
    if (policy == DPU_ASYNCHRONOUS) /* queued behind the ranks' earlier jobs; the host goes on */
        return op_jobs_submit(dpu_set, ids, n, op_record_host_clock());
    op_jobs_wait(dpu_set);
    char err[256];
    double t0 = op_real_now_us();
    int mrc = op_machine_launch(op_sdk_machine(), ids, n, err, sizeof err);
    free(ids);
    return op_launch_done(dpu_set, mrc, err, 0, -1, t0);
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
        const struct op_dpu_status *r = op_machine_result(op_sdk_machine(), d->id);
        any_fault |= r->fault != OP_FAULT_NONE && op_machine_program(op_sdk_machine(), d->id) != NULL;
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

dpu_error_t dpu_callback(struct dpu_set_t dpu_set, dpu_error_t (*callback)(struct dpu_set_t, uint32_t, void *),
                         void *args, dpu_callback_flags_t flags)
{
    op_sdk_lock();
    dpu_error_t rc = op_set_check(dpu_set);
    if (rc == DPU_OK && !callback)
        rc = DPU_ERR_INVALID_DPU_SET;
    if (rc != DPU_OK) {
        op_sdk_unlock();
        return rc;
    }
    /* the user's function runs without the lock: it may call the API, or wait
     * for another thread that does */
    unsigned held = op_sdk_suspend();
    dpu_error_t out = DPU_OK;
    if ((flags & DPU_CALLBACK_SINGLE_CALL) || dpu_set.kind == DPU_SET_DPU) {
        out = callback(dpu_set, 0, args);
    } else {
        for (uint32_t i = 0; i < dpu_set.list.nr_ranks; i++) {
            dpu_error_t e = callback(dpu_set_rank(dpu_set, i), i, args);
            if (out == DPU_OK)
                out = e;
        }
    }
    op_sdk_resume(held);
    if (!(flags & DPU_CALLBACK_ASYNC) || out == DPU_OK) {
        op_sdk_unlock();
        return out;
    }
    /* an asynchronous callback's error surfaces at dpu_sync, if the set is
     * still allocated (the callback may have freed it) */
    if (op_set_check(dpu_set) == DPU_OK)
        op_set_pending(dpu_set, out);
    op_sdk_unlock();
    return DPU_OK;
}

static dpu_error_t openpim_get_dpu_stats_locked(struct dpu_set_t dpu, struct openpim_dpu_stats *stats)
{
    dpu_error_t rc = op_set_check(dpu);
    if (rc != DPU_OK)
        return rc;
    if (dpu.kind != DPU_SET_DPU || !stats)
        return DPU_ERR_INVALID_DPU_SET;
    op_jobs_wait(dpu);
    const struct op_dpu_result *m = &op_machine_result(op_sdk_machine(), dpu.dpu->id)->model;
    memset(stats, 0, sizeof *stats);
    stats->cycles = m->cycles;
    stats->instructions = m->instructions;
    for (unsigned t = 0; t < 24 && t < OP_TIMING_MAX_TASKLETS; t++)
        stats->tasklet_instructions[t] = m->tasklet_instructions[t];
    stats->dma_read_bytes = m->dma_read_bytes;
    stats->dma_write_bytes = m->dma_write_bytes;
    stats->time_us = op_cycles_to_us(&op_machine_config(op_sdk_machine())->desc, m->cycles);
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
    const struct op_dpu_status *r = op_machine_result(op_sdk_machine(), dpu.dpu->id);
    memset(info, 0, sizeof *info);
    info->faulted = r->fault != OP_FAULT_NONE;
    info->tasklet = r->fault_tasklet;
    info->kind = fault_kind(r->fault);
    memcpy(info->message, r->fault_msg, sizeof info->message < sizeof r->fault_msg ? sizeof info->message : sizeof r->fault_msg);
    info->message[sizeof info->message - 1] = 0;
    return DPU_OK;
}

dpu_error_t openpim_get_fault(struct dpu_set_t dpu, struct openpim_fault *info)
{
    OP_LOCKED_RETURN(openpim_get_fault_locked(dpu, info));
}
