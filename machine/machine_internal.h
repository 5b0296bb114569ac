/* SPDX-License-Identifier: MIT */
/* The machine's host side, inside machine/: the machine object shared by
 * machine.c (creation, programs, pools, workers, launches) and mram.c (MRAM
 * storage, shared chunks).  Memories are per rank (one memfd each); a pool
 * (struct op_pool) is the unit of isolation: its control block, its store of
 * shared chunks and its workers serve its ranks only (abi/shared.h). */
#ifndef OPENPIM_MACHINE_INTERNAL_H
#define OPENPIM_MACHINE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "machine.h"

struct worker {
    pid_t pid; /* 0 = not running */
    int sock;
    uint32_t ranks_gen; /* its pool's ranks_gen when it started: an older one is restarted before use */
};

/* A launch slot as the host sees it: in use, and the launch's region of the
 * launch list. */
struct slot {
    uint8_t used;
    uint32_t base, count;
};

#define NO_HOME UINT16_MAX /* a DPU no launch has run yet */

/* A pool: what its workers share with the host, and the host's bookkeeping
 * of their launches (under the machine's lock, except the store's). */
struct op_pool {
    struct op_machine *m;
    struct op_pool *next; /* the machine's list */
    int ctrl_fd;
    struct op_ctrl *ctrl;
    /* shared MRAM chunks (mram.c): the store, and which of its slots are in
     * use (under store_lock; slot_refs in the control block count holders) */
    int store_fd;
    pthread_mutex_t store_lock;
    uint8_t *slot_used;
    uint64_t slot_high; /* slots below it may be in use */
    uint8_t *store;     /* the host's mapping of the store */
    struct worker workers[OP_MAX_WORKERS];
    uint8_t worker_busy[OP_MAX_WORKERS]; /* held by a launch */
    struct slot slots[OP_MAX_WORKERS];   /* launch slots (the shared part is in the control block) */
    unsigned launches;                   /* running or waiting */
    uint32_t ranks_gen;                  /* changes with its set of ranks */
    int wake_fd;                         /* an eventfd: cancel wakes the launches that watch their workers */
    char cancelled[160];                 /* non-empty: its launches end (and later ones fail) with this */
};

struct op_machine {
    struct op_machine_config cfg;
    pid_t host_pid; /* the process that made it (a fork cannot run its launches) */
    uint32_t nr_dpus, nr_ranks, per_rank;
    uint64_t mram_size;
    uint32_t wram_size;
    uint32_t nr_chunks; /* whole chunks per DPU */
    int *rank_fd;         /* per rank: its memfd (WRAM, then MRAM) */
    uint8_t *mram, *wram; /* the host's view of every DPU's memories, rank memfds mapped side by side */
    uint64_t memory_limit;
    struct op_program **programs; /* per DPU */
    unsigned nr_workers;          /* per pool, at most */
    uint32_t *host_gen;           /* per DPU: the dpu_gen the host's mapping shows */
    _Atomic uint32_t *no_chunks;  /* the chunk map of a DPU of no pool: all its own */
    /* Pools and launches, under `lock`; `changed` tells waiting launches (and
     * destroy and rebinding) that something was given back. */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    struct op_pool *pools;        /* every pool, the default one first */
    _Atomic(struct op_pool *) *pool_of; /* per rank (NULL: none); written under `lock` */
    unsigned launches;            /* running or waiting, all pools */
    uint8_t *dpu_busy;            /* per DPU: in a launch */
    uint16_t *home;               /* per DPU: the worker (of its pool) whose slice had it last */
    /* the thread that starts workers, and one request to it at a time */
    pthread_t spawner;
    int has_spawner;
    pthread_mutex_t spawn_lock;
    pthread_cond_t spawn_cond;
    enum { SPAWN_IDLE, SPAWN_ASKED, SPAWN_DONE } spawn_state;
    int spawn_quit, spawn_rc;
    struct op_pool *spawn_pool;
    unsigned spawn_index;
    char spawn_err[256];
};

/* The pool of a DPU's rank (NULL: none) and its control block. */
static inline struct op_pool *op_pool_of(const struct op_machine *m, uint32_t dpu)
{
    return atomic_load_explicit(&m->pool_of[dpu / m->per_rank], memory_order_relaxed);
}

int op_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int op_make_memfd(const char *name, uint64_t size);

/* mram.c */
int op_mram_init(struct op_machine *m, char *err, size_t errlen);
void op_mram_fini(struct op_machine *m);
int op_store_init(struct op_pool *p, char *err, size_t errlen);
void op_store_fini(struct op_pool *p);
/* After a launch: frees the store slots that no DPU of the pool holds any more. */
void op_mram_reclaim(struct op_pool *p);
/* A rank leaves its pool: its DPUs give their shared chunks back (their MRAM
 * there reads as zeros) and their entries of the pool's control block are
 * cleared; the host maps their MRAM plainly again. */
void op_mram_leave_pool(struct op_machine *m, uint32_t rank);
/* What the memories of every pool but p use (under the machine's lock). */
uint64_t op_machine_memory_elsewhere(const struct op_machine *m, const struct op_pool *p);
/* The rank's memfd and the offset of the DPU's MRAM in it. */
int op_mram_file(const struct op_machine *m, uint32_t dpu, uint64_t *off);

#endif
