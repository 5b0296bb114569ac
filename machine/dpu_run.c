#include "dpu_run.h"

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
    if (!r->trace)
        r->trace = op_dpu_trace_new();
    r->dpu = dpu;
    r->res = res;
    r->desc = desc;
    r->nr_tasklets = nr_tasklets;
    op_dpu_trace_begin(r->trace, desc, nr_tasklets);
    s->hooks.ctx = r;
    s->hooks.ran = on_ran;
    s->hooks.end = on_end;
}

void op_dpu_run_dma(struct op_dpu_run *r, struct op_sched *s, uint32_t mram_addr, uint32_t size, int is_write)
{
    (void)mram_addr;
    op_sched_account(s);
    /* the runtime's mram_read/mram_write is not instrumented: charge its sequence */
    op_dpu_trace_instr(r->trace, s->cur, r->desc->rt.dma_call);
    op_dpu_trace_dma(r->trace, s->cur, is_write, size);
}

void op_dpu_run_block(struct op_dpu_run *r, struct op_sched *s, uintptr_t key)
{
    op_sched_account(s);
    op_dpu_trace_block(r->trace, s->cur, key);
}

void op_dpu_run_wake(struct op_dpu_run *r, struct op_sched *s, uintptr_t key, unsigned woken)
{
    op_sched_account(s);
    if (woken)
        op_dpu_trace_wake(r->trace, s->cur, key, woken);
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
