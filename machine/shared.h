/* Memory shared between the host process and its worker processes.
 *
 * Three memfds back the emulated machine: MRAM (nr_dpus x mram_size, sparse),
 * WRAM (nr_dpus x OP_WRAM_STRIDE) and this control block.  Workers are separate
 * processes, so a faulting DPU program can never corrupt the host. */
#ifndef OPENPIM_SHARED_H
#define OPENPIM_SHARED_H

#include <stdatomic.h>
#include <stdint.h>

#include "../timing/timing.h"
#include "dpu_abi.h"

#define OP_WRAM_STRIDE 65536u /* WRAM bytes reserved per DPU (the largest chip's WRAM) */
#define OP_FAULT_MSG 192
#define OP_MAX_WORKERS 256

/* What one DPU reports after a launch. */
struct op_dpu_status {
    uint32_t fault;         /* enum op_fault */
    uint32_t fault_tasklet;
    char fault_msg[OP_FAULT_MSG];
    struct op_dpu_result model; /* modelled cycles, instructions, DMA traffic (timing/timing.h) */
};

/* Which program each DPU runs: the worker opens /proc/<host_pid>/fd/<fd>. */
struct op_dpu_program {
    uint64_t id; /* unique per loaded image; 0 = none */
    int32_t fd;
    uint32_t nr_tasklets;
};

struct op_worker_slot {
    _Atomic int32_t current_dpu; /* -1 when idle */
    int32_t pid;
    /* CLOCK_MONOTONIC ns when current_dpu started (written before it): the
     * host kills a worker whose DPU overruns the budget plus a grace */
    _Atomic uint64_t started_ns;
};

/* Work of one worker in a launch: a contiguous slice of launch_list, so that a
 * DPU runs on the same worker launch after launch (its MRAM pages stay mapped
 * there); a worker whose slice is done takes from the others'. */
struct op_chunk {
    _Atomic uint32_t next;
    uint32_t end;
};

/* Identifies the layout below: libdpu and openpim-worker of different builds refuse each other. */
#define OP_CTRL_MAGIC 0x4f50494du /* "OPIM" */
#define OP_CTRL_LAYOUT                                                                                     \
    ((uint32_t)(sizeof(struct op_ctrl) * 131u + sizeof(struct op_dpu_status) * 7u + sizeof(struct op_dpu_program) + \
                OP_ABI_VERSION * 1000003u))

struct op_ctrl {
    uint32_t magic, layout;
    uint32_t nr_dpus;
    uint32_t wram_size;
    uint64_t mram_size;
    int32_t host_pid;
    int32_t mram_fd, wram_fd; /* host fds, reopened through /proc by workers */
    /* the launch in progress */
    uint32_t launch_count;   /* DPUs in launch_list */
    uint32_t nr_chunks;
    struct op_chunk chunks[OP_MAX_WORKERS];
    uint64_t budget_ns;      /* wall-clock budget per DPU, 0 = none */
    uint64_t memory_limit;   /* host bytes the MRAM+WRAM memfds may use */
    uint32_t nr_workers;
    struct op_machine_desc desc; /* timing model constants for the workers */
    struct op_worker_slot workers[OP_MAX_WORKERS];
    /* followed by: struct op_dpu_program prog[nr_dpus]; struct op_dpu_status res[nr_dpus];
       uint32_t launch_list[nr_dpus]; */
};

static inline struct op_dpu_program *op_ctrl_prog(struct op_ctrl *c)
{
    return (struct op_dpu_program *)(c + 1);
}
static inline struct op_dpu_status *op_ctrl_status(struct op_ctrl *c)
{
    return (struct op_dpu_status *)(op_ctrl_prog(c) + c->nr_dpus);
}
static inline uint32_t *op_ctrl_list(struct op_ctrl *c)
{
    return (uint32_t *)(op_ctrl_status(c) + c->nr_dpus);
}
static inline uint64_t op_ctrl_size(uint32_t nr_dpus)
{
    return sizeof(struct op_ctrl) +
           (uint64_t)nr_dpus * (sizeof(struct op_dpu_program) + sizeof(struct op_dpu_status) + sizeof(uint32_t));
}

/* Commands on the host<->worker socket: the host sends OP_CMD_LAUNCH, the worker
 * pulls DPUs from launch_list until none is left and answers OP_CMD_DONE. */
enum { OP_CMD_LAUNCH = 1, OP_CMD_DONE = 2 };

#endif
