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
 * there); a worker whose slice is done takes from the others' in its slot. */
struct op_chunk {
    _Atomic uint32_t next;
    uint32_t end;
};

/* One launch in progress.  Launches on disjoint DPU sets run at once, each in
 * its own slot with its own workers and its own region of launch_list.
 * chunks[w] is worker w's slice; empty (next == end) for the workers the
 * launch does not use, so a worker steals only within its launch. */
struct op_launch_slot {
    struct op_chunk chunks[OP_MAX_WORKERS];
};

/* Identifies the layout below: libdpu and openpim-worker of different builds refuse each other. */
#define OP_CTRL_MAGIC 0x4f50494du /* "OPIM" */
#define OP_CTRL_LAYOUT                                                                                     \
    ((uint32_t)(sizeof(struct op_ctrl) * 131u + sizeof(struct op_dpu_status) * 7u + sizeof(struct op_dpu_program) + \
                sizeof(struct op_launch_slot) * 17u + OP_CMD_PROTOCOL * 65537u + OP_ABI_VERSION * 1000003u))

struct op_ctrl {
    uint32_t magic, layout;
    uint32_t nr_dpus;
    uint32_t wram_size;
    uint64_t mram_size;
    int32_t host_pid;
    int32_t mram_fd, wram_fd; /* host fds, reopened through /proc by workers */
    uint64_t budget_ns;      /* wall-clock budget per DPU, 0 = none */
    uint64_t memory_limit;   /* host bytes the MRAM+WRAM memfds may use */
    uint32_t nr_workers;
    struct op_machine_desc desc; /* timing model constants for the workers */
    struct op_worker_slot workers[OP_MAX_WORKERS];
    /* the launches in progress: at most one per worker */
    struct op_launch_slot slots[OP_MAX_WORKERS];
    /* followed by: struct op_dpu_program prog[nr_dpus]; struct op_dpu_status res[nr_dpus];
       uint32_t launch_list[nr_dpus] (each launch in progress uses its own region of it:
       disjoint launches list nr_dpus DPUs at most together) */
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

/* Commands on the host<->worker socket, one 32-bit word each: the host sends
 * OP_CMD_LAUNCH with a slot number in the bits above OP_CMD_SLOT_SHIFT, the
 * worker pulls DPUs from that slot's chunks until none is left and answers
 * OP_CMD_DONE. */
enum { OP_CMD_LAUNCH = 1, OP_CMD_DONE = 2 };
#define OP_CMD_MASK 0xffu
#define OP_CMD_SLOT_SHIFT 8
#define OP_CMD_PROTOCOL 2 /* changes with the command words' meaning (part of OP_CTRL_LAYOUT) */

#endif
