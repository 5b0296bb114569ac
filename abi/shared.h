/* SPDX-License-Identifier: MIT */
/* Memory shared between the host process and its worker processes.
 *
 * The emulated memories live in one memfd per rank: the WRAM of its DPUs
 * (dpus_per_rank x OP_WRAM_STRIDE), then their MRAM (dpus_per_rank x
 * mram_size, sparse); see op_rank_wram_offset, op_rank_mram_offset.  Workers
 * run in pools: a pool is a set of ranks, a control block (this file's struct
 * op_ctrl), a store of shared MRAM chunks and the worker processes that run the
 * DPU code of those ranks and of no others.  A worker holds the descriptors of
 * its pool's ranks only, passed when it is started (OP_WORKER_FD_*), never one
 * of another pool: what DPU code can reach in its worker is its own pool's.
 * A pool whose set of ranks changes has its workers ended first.  Workers are
 * separate processes, so a faulting DPU program can never corrupt the host;
 * the host reads what workers write here (results, chunk maps, progress)
 * as untrusted values and checks them before using them.
 *
 * Shared MRAM (copy-on-write).  A DPU's MRAM is OP_MRAM_CHUNK-sized chunks
 * (a tail shorter than a chunk is always its own).  A chunk is either the
 * DPU's own (its bytes in its rank's memfd) or a slot of its pool's store,
 * shared with every DPU of the pool that holds the same slot: a broadcast
 * stores its whole chunks once.  A process maps a shared chunk read-only; the
 * first write to it, by the host or by DPU code, copies the slot into the
 * DPU's own chunk (the worker does it in its fault handler) and maps that
 * instead.  chunk_ref says which (0: own, s + 1: slot s); slot_refs counts the
 * DPUs holding a slot (the host frees a slot no DPU holds); dpu_gen changes
 * whenever a DPU's chunk_ref changes, so that a process remaps a DPU it mapped
 * before.  Only one process changes a DPU's chunks at a time: the host while
 * no launch runs the DPU, the worker running it. */
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

/* Which program each DPU runs; its bytes come with the launch (struct
 * op_launch_cmd). */
struct op_dpu_program {
    uint64_t id; /* unique per loaded image; 0 = none */
    uint32_t nr_tasklets;
    uint32_t pad;
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
    uint32_t nr_dpus;         /* of the whole machine: the arrays below have an entry per DPU */
    uint32_t wram_size;
    uint64_t mram_size;
    uint32_t dpus_per_rank;
    uint32_t nr_chunks;       /* whole chunks per DPU: mram_size / OP_MRAM_CHUNK */
    uint64_t budget_ns;      /* wall-clock budget per DPU, 0 = none */
    uint64_t memory_limit;   /* host bytes the emulated memories may use (all pools) */
    _Atomic uint64_t memory_elsewhere; /* of those, what other pools use: the host sets it before each launch */
    _Atomic uint64_t runs_started;     /* DPU runs the pool's workers began: bounds what the pool's memories
                                          can have grown since a worker measured them (worker.c) */
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

/* Where a rank's memories lie in its memfd. */
static inline uint64_t op_rank_wram_offset(uint32_t local)
{
    return (uint64_t)local * OP_WRAM_STRIDE;
}
static inline uint64_t op_rank_mram_offset(uint32_t dpus_per_rank, uint32_t local, uint64_t mram_size)
{
    return (uint64_t)dpus_per_rank * OP_WRAM_STRIDE + (uint64_t)local * mram_size;
}
static inline uint64_t op_rank_memfd_size(uint32_t dpus_per_rank, uint64_t mram_size)
{
    return op_rank_mram_offset(dpus_per_rank, dpus_per_rank, mram_size);
}

/* A worker starts as "openpim-worker INDEX RANK..." with these descriptors
 * open: its socket to the host, its pool's control block and store, and the
 * memfd of the i-th RANK of its command line at OP_WORKER_FD_RANKS + i. */
#define OP_WORKER_FD_SOCKET 3
#define OP_WORKER_FD_CTRL 4
#define OP_WORKER_FD_STORE 5
#define OP_WORKER_FD_RANKS 6

/* Messages on the host<->worker socket (SOCK_SEQPACKET).  The host sends a
 * launch as struct op_launch_cmd messages: OP_CMD_PROGRAMS while more of the
 * launch's programs follow, then OP_CMD_LAUNCH, each with nr_programs program
 * ids and as many memfds (SCM_RIGHTS) holding their ELF bytes, and the launch
 * slot in the bits above OP_CMD_SLOT_SHIFT.  The worker pulls DPUs from that
 * slot's chunks until none is left, closes the programs' descriptors and
 * answers the word OP_CMD_DONE. */
enum { OP_CMD_LAUNCH = 1, OP_CMD_DONE = 2, OP_CMD_PROGRAMS = 3 };
#define OP_CMD_MASK 0xffu
#define OP_CMD_SLOT_SHIFT 8
#define OP_CMD_MAX_PROGRAMS 64 /* per message */
struct op_launch_cmd {
    uint32_t cmd;
    uint32_t nr_programs;
    uint64_t ids[OP_CMD_MAX_PROGRAMS];
};
#define OP_CMD_PROTOCOL 3 /* changes with the messages' meaning (part of OP_CTRL_LAYOUT) */

#endif
