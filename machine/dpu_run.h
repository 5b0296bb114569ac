/* Bookkeeping of one DPU run inside a worker: instruction counts, DMA traffic
 * and the modelled cycles reported in struct op_dpu_status. */
#ifndef OPENPIM_DPU_RUN_H
#define OPENPIM_DPU_RUN_H

#include <stdint.h>

#include "shared.h"
#include "tasklets.h"

struct op_dpu_run {
    uint32_t dpu;
    unsigned nr_tasklets;
    struct op_dpu_status *res;
    uint64_t dma_cycles; /* DMA engine busy time */
};

void op_dpu_run_begin(struct op_dpu_run *r, struct op_sched *s, uint32_t dpu, struct op_dpu_status *res,
                      unsigned nr_tasklets);
void op_dpu_run_dma(struct op_dpu_run *r, struct op_sched *s, uint32_t mram_addr, uint32_t size, int is_write);
void op_dpu_run_sync(struct op_dpu_run *r, struct op_sched *s, int is_block);
uint64_t op_dpu_run_cycles_now(struct op_dpu_run *r, struct op_sched *s);
void op_dpu_run_end(struct op_dpu_run *r, struct op_sched *s);

#endif
