#include "dpu_run.h"

#include <string.h>

/* First-order DPU time until the event model is wired in: the revolver issues at
 * most one instruction per cycle and a tasklet at most one per 11 cycles. */
static uint64_t first_order_cycles(const struct op_sched *s, unsigned nr, uint64_t dma_cycles)
{
    uint64_t sum = 0, max = 0;
    for (unsigned i = 0; i < nr; i++) {
        sum += s->t[i].instructions;
        if (s->t[i].instructions > max)
            max = s->t[i].instructions;
    }
    uint64_t c = 11 * max > sum ? 11 * max : sum;
    return c > dma_cycles ? c : dma_cycles;
}

void op_dpu_run_begin(struct op_dpu_run *r, struct op_sched *s, uint32_t dpu, struct op_dpu_status *res,
                      unsigned nr_tasklets)
{
    memset(r, 0, sizeof *r);
    r->dpu = dpu;
    r->res = res;
    r->nr_tasklets = nr_tasklets;
    memset(&s->hooks, 0, sizeof s->hooks);
    for (unsigned i = 0; i < OP_MAX_TASKLETS; i++)
        s->t[i].instructions = 0;
}

void op_dpu_run_dma(struct op_dpu_run *r, struct op_sched *s, uint32_t mram_addr, uint32_t size, int is_write)
{
    (void)s;
    (void)mram_addr;
    if (is_write) {
        r->res->dma_writes++;
        r->res->dma_write_bytes += size;
        r->dma_cycles += 61 + size / 2;
    } else {
        r->res->dma_reads++;
        r->res->dma_read_bytes += size;
        r->dma_cycles += 77 + size / 2;
    }
}

void op_dpu_run_sync(struct op_dpu_run *r, struct op_sched *s, int is_block)
{
    (void)r;
    (void)s;
    (void)is_block;
}

uint64_t op_dpu_run_cycles_now(struct op_dpu_run *r, struct op_sched *s)
{
    op_sched_account(s);
    return first_order_cycles(s, r->nr_tasklets, r->dma_cycles);
}

void op_dpu_run_end(struct op_dpu_run *r, struct op_sched *s)
{
    struct op_dpu_status *res = r->res;
    res->instructions = 0;
    for (unsigned i = 0; i < r->nr_tasklets; i++) {
        res->tasklet_instructions[i] = s->t[i].instructions;
        res->instructions += s->t[i].instructions;
    }
    res->cycles = first_order_cycles(s, r->nr_tasklets, r->dma_cycles);
}
