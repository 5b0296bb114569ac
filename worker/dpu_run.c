/* SPDX-License-Identifier: MIT */
/* One DPU run inside a worker (see dpu_run.h): the trace for the timing
 * model, and the scheduler's view of the DMA engine. */
#include "dpu_run.h"

#include <stdlib.h>
#include <string.h>

static void on_ran(void *ctx, unsigned tid, uint64_t n)
{
    struct op_dpu_run *r = ctx;
    if (n)
        op_dpu_trace_instr(r->trace, tid, n);
}

static void on_end(void *ctx, unsigned tid)
{
    struct op_dpu_run *r = ctx;
    op_dpu_trace_end(r->trace, tid);
}

void op_dpu_run_begin(struct op_dpu_run *r, struct op_sched *s, const struct op_machine_desc *desc, uint32_t dpu,
                      struct op_dpu_status *res, unsigned nr_tasklets)
{
    if (!r->trace) {
        r->trace = op_dpu_trace_new();
        /* tests: OPENPIM_MODEL_STEPPING=1 simulates every cycle, without the
         * model's analytic jumps (same results, slower) */
        const char *step = getenv("OPENPIM_MODEL_STEPPING");
        op_dpu_trace_set_stepping(r->trace, step && strcmp(step, "1") == 0);
        /* DPUs of one program on data of one shape usually record the same
         * calls: the model then runs once per worker, not once per DPU */
        op_dpu_trace_set_memo(r->trace, 1);
    }
    r->dpu = dpu;
    r->res = res;
    r->desc = desc;
    r->nr_tasklets = nr_tasklets;
    r->engine_free = 0;
    r->lat_bytes[0] = r->lat_bytes[1] = UINT32_MAX;
    s->period = desc->revolver_cycles;
    op_dpu_trace_begin(r->trace, desc, nr_tasklets);
    /* crt0's per-tasklet boot chain, before main() */
    for (unsigned t = 0; t < nr_tasklets; t++)
        op_dpu_trace_runtime(r->trace, t, OP_RT_BOOT, 0, 0);
    s->hooks.ctx = r;
    s->hooks.ran = on_ran;
    s->hooks.end = on_end;
}

void op_dpu_run_dma(struct op_dpu_run *r, struct op_sched *s, uint32_t mram_addr, uint32_t size, int is_write)
{
    (void)mram_addr;
    op_sched_account(s);
    /* the runtime's mram_read/mram_write is not instrumented: charge its sequence */
    op_dpu_trace_runtime(r->trace, s->cur, OP_RT_DMA_CALL, 0, 0);
    op_dpu_trace_dma(r->trace, s->cur, is_write, size);
    /* the scheduler's clock, by the model's rule: one FIFO engine, the
     * tasklet issues again when its DMA is done */
    op_sched_charge(s, op_dpu_runtime_instructions(r->desc, OP_RT_DMA_CALL));
    int w = is_write != 0;
    if (r->lat_bytes[w] != size) { /* DMA sizes repeat */
        r->lat_bytes[w] = size;
        r->lat_cycles[w] = op_dpu_dma_cycles(r->desc, w, size);
    }
    uint64_t lat = r->lat_cycles[w], at = op_sched_event_cycle(s);
    uint64_t done = (at > r->engine_free ? at : r->engine_free) + lat, ovl = (uint64_t)r->desc->dma_overlap_cycles;
    r->engine_free = done - (ovl < lat ? ovl : lat);
    op_sched_hold(s, done);
}

/* Model keys: one namespace per kind of primitive (abi/dpu_abi.h). */
#define KEY(kind, obj) ((uintptr_t)OP_WAIT_KEY(kind, obj))

void op_dpu_run_rt(struct op_dpu_run *r, struct op_sched *s, uint32_t ev, uint32_t obj, uint32_t arg)
{
    enum op_rt_op op;
    uintptr_t key = 0;
    unsigned a = arg != 0;
    switch (ev) { /* DPU code can call this with anything: unknown events are ignored */
    case OP_RTE_BARRIER:
        op = OP_RT_BARRIER_WAIT, key = KEY(OP_WAIT_BARRIER, obj), a = arg > 255 ? 255 : arg;
        break;
    case OP_RTE_MUTEX_LOCK:
        op = OP_RT_MUTEX_LOCK, key = KEY(OP_WAIT_MUTEX, obj);
        break;
    case OP_RTE_MUTEX_UNLOCK:
        op = OP_RT_MUTEX_UNLOCK, key = KEY(OP_WAIT_MUTEX, obj);
        break;
    case OP_RTE_VMUTEX_LOCK:
        op = OP_RT_MUTEX_LOCK, key = KEY(OP_WAIT_VMUTEX, ((uintptr_t)obj << 16) | (arg & 0xffff)), a = 1;
        break;
    case OP_RTE_VMUTEX_UNLOCK:
        op = OP_RT_MUTEX_UNLOCK, key = KEY(OP_WAIT_VMUTEX, ((uintptr_t)obj << 16) | (arg & 0xffff));
        break;
    case OP_RTE_SEM_TAKE:
        op = OP_RT_SEM_TAKE, key = KEY(OP_WAIT_SEM, obj);
        break;
    case OP_RTE_SEM_GIVE:
        op = OP_RT_SEM_GIVE, key = KEY(OP_WAIT_SEM, obj);
        break;
    case OP_RTE_HS_WAIT:
        op = OP_RT_HANDSHAKE_WAIT, key = KEY(OP_WAIT_HS_NOTIFIER, obj);
        break;
    case OP_RTE_HS_NOTIFY:
        op = OP_RT_HANDSHAKE_NOTIFY, key = KEY(OP_WAIT_HS_NOTIFIER, obj);
        break;
    case OP_RTE_MEM_ALLOC:
        op = OP_RT_MEM_ALLOC;
        break;
    case OP_RTE_MEM_RESET:
        op = OP_RT_MEM_RESET;
        break;
    case OP_RTE_PERFCOUNTER:
        op = OP_RT_PERFCOUNTER;
        break;
    default:
        return;
    }
    op_sched_account(s);
    op_dpu_trace_runtime(r->trace, s->cur, op, key, a);
    op_sched_charge(s, op_dpu_runtime_instructions(r->desc, op));
}

uint64_t op_dpu_run_cycles_now(struct op_dpu_run *r, struct op_sched *s)
{
    op_sched_account(s);
    return op_dpu_trace_tasklet_cycles(r->trace, s->cur);
}

void op_dpu_run_end(struct op_dpu_run *r, struct op_sched *s)
{
    (void)s;
    memset(&r->res->model, 0, sizeof r->res->model);
    op_dpu_model_run(r->trace, &r->res->model);
    s->hooks.ran = NULL;
    s->hooks.end = NULL;
}
