/* SPDX-License-Identifier: MIT */
/* Bookkeeping of one DPU run inside a worker: the scheduler's switches, DMAs
 * and synchronisation become a trace for the timing model, whose result is
 * reported in struct op_dpu_status. */
#ifndef OPENPIM_DPU_RUN_H
#define OPENPIM_DPU_RUN_H

#include <stdint.h>

#include "../timing/timing.h"
#include "../abi/shared.h"
#include "tasklets.h"

struct op_dpu_run {
    uint32_t dpu;
    unsigned nr_tasklets;
    struct op_dpu_status *res;
    const struct op_machine_desc *desc;
    struct op_dpu_trace *trace; /* reused across runs */
    uint64_t engine_free;       /* the scheduler's view of the DMA engine (tasklets.h): free from this cycle */
    uint32_t lat_bytes[2];      /* the last DMA size of each direction, and its latency */
    uint64_t lat_cycles[2];
};

void op_dpu_run_begin(struct op_dpu_run *r, struct op_sched *s, const struct op_machine_desc *desc, uint32_t dpu,
                      struct op_dpu_status *res, unsigned nr_tasklets);
void op_dpu_run_dma(struct op_dpu_run *r, struct op_sched *s, uint32_t mram_addr, uint32_t size, int is_write);
/* The running tasklet made a DPU runtime call (svc->rt_event: OP_RTE_*): the
 * model learns synchronisation from these, not from the scheduler's block and
 * wake, whose order is the emulator's. */
void op_dpu_run_rt(struct op_dpu_run *r, struct op_sched *s, uint32_t ev, uint32_t obj, uint32_t arg);
/* Modelled cycles of the running tasklet so far (perfcounter). */
uint64_t op_dpu_run_cycles_now(struct op_dpu_run *r, struct op_sched *s);
void op_dpu_run_end(struct op_dpu_run *r, struct op_sched *s);

#endif
