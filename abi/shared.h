/* Memory shared between the host process and its worker processes.
 *
 * Four memfds back the emulated machine: MRAM (nr_dpus x mram_size, sparse),
 * the store of shared MRAM chunks (same size, sparse), WRAM (nr_dpus x
 * OP_WRAM_STRIDE) and this control block.  Workers are separate processes, so
 * a faulting DPU program can never corrupt the host.
 *
 * Shared MRAM (copy-on-write).  A DPU's MRAM is OP_MRAM_CHUNK-sized chunks
 * (a tail shorter than a chunk is always its own).  A chunk is either the
 * DPU's own (its bytes in the MRAM memfd at dpu * mram_size + offset) or a
 * slot of the store, shared with every DPU that holds the same slot: a
 * broadcast stores its whole chunks once.  A process maps a shared chunk
 * read-only; the first write to it, by the host or by DPU code, copies the
 * slot into the DPU's own chunk (the worker does it in its fault handler) and
 * maps that instead.  chunk_ref says which (0: own, s + 1: slot s); slot_refs
 * counts the DPUs holding a slot (the host frees a slot no DPU holds);
 * dpu_gen changes whenever a DPU's chunk_ref changes, so that a process
 * remaps a DPU it mapped before.  Only one process changes a DPU's chunks at a
 * time: the host while no launch runs the DPU, the worker running it. */
#ifndef OPENPIM_SHARED_H
#define OPENPIM_SHARED_H

#include <stdatomic.h>
#include <stdint.h>

#include "../timing/timing.h"
#include "dpu_abi.h"

#define OP_WRAM_STRIDE 65536u /* WRAM bytes reserved per DPU (the largest chip's WRAM) */
#define OP_FAULT_MSG 192
#define OP_MAX_WORKERS 256
#define OP_MRAM_CHUNK (1u << 20) /* unit of MRAM sharing */
#define OP_RACE_SEEN 1024        /* pairs of racing sites reported once per machine */

/* What one DPU reports after a launch. */
struct op_dpu_status {
    uint32_t fault;         /* enum op_fault */
    uint32_t fault_tasklet;
    uint32_t fault_pc; /* DPU code address of the fault, 0 if outside the image's code */
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
    /* op_raw_monotonic_ns() when current_dpu started (written before it): the
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
    _Atomic uint32_t done; /* DPUs of the launch its workers finished (the host's progress line) */
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
    int32_t store_fd;         /* the shared MRAM chunks (see above) */
    uint32_t nr_chunks;       /* whole chunks per DPU: mram_size / OP_MRAM_CHUNK */
    uint64_t budget_ns;      /* wall-clock budget per DPU, 0 = none */
    uint64_t memory_limit;   /* host bytes the MRAM+WRAM memfds may use */
    uint32_t nr_workers;
    struct op_machine_desc desc; /* timing model constants for the workers */
    struct op_worker_slot workers[OP_MAX_WORKERS];
    /* the launches in progress: at most one per worker */
    struct op_launch_slot slots[OP_MAX_WORKERS];
    /* the race detector's reported pairs of sites (worker/racecheck.h), 0 = free:
     * any worker inserts, so that each pair is reported once per machine */
    _Atomic uint64_t race_seen[OP_RACE_SEEN];
    /* followed by: struct op_dpu_program prog[nr_dpus]; struct op_dpu_status res[nr_dpus];
       uint32_t launch_list[nr_dpus] (each launch in progress uses its own region of it:
       disjoint launches list nr_dpus DPUs at most together);
       _Atomic uint32_t dpu_gen[nr_dpus], chunk_ref[nr_dpus * nr_chunks],
       slot_refs[nr_dpus * nr_chunks] (shared MRAM, see above) */
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
static inline _Atomic uint32_t *op_ctrl_gen(struct op_ctrl *c)
{
    return (_Atomic uint32_t *)(op_ctrl_list(c) + c->nr_dpus);
}
/* The chunk map of one DPU: nr_chunks entries. */
static inline _Atomic uint32_t *op_ctrl_chunks(struct op_ctrl *c, uint32_t dpu)
{
    return op_ctrl_gen(c) + c->nr_dpus + (uint64_t)dpu * c->nr_chunks;
}
static inline _Atomic uint32_t *op_ctrl_slot_refs(struct op_ctrl *c)
{
    return op_ctrl_gen(c) + c->nr_dpus + (uint64_t)c->nr_dpus * c->nr_chunks;
}
static inline uint64_t op_ctrl_size(uint32_t nr_dpus, uint32_t nr_chunks)
{
    return sizeof(struct op_ctrl) +
           (uint64_t)nr_dpus * (sizeof(struct op_dpu_program) + sizeof(struct op_dpu_status) + 2 * sizeof(uint32_t)) +
           (uint64_t)nr_dpus * nr_chunks * 2 * sizeof(uint32_t);
}

/* The end of the run of chunks that starts at chunk c of a chunk map (at most
 * end): chunks that one mapping covers -- own chunks in a row, or slots
 * s, s + 1, ... in a row. */
static inline uint32_t op_chunk_run(_Atomic uint32_t *map, uint32_t c, uint32_t end)
{
    uint32_t r = atomic_load_explicit(&map[c], memory_order_relaxed), e = c + 1;
    while (e < end && atomic_load_explicit(&map[e], memory_order_relaxed) == (r ? r + (e - c) : 0))
        e++;
    return e;
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
