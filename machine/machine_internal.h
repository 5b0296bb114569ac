/* The machine's host side, inside machine/: the machine object shared by
 * machine.c (creation, programs, workers, launches) and mram.c (MRAM storage,
 * shared chunks). */
#ifndef OPENPIM_MACHINE_INTERNAL_H
#define OPENPIM_MACHINE_INTERNAL_H

#include <pthread.h>

#include "machine.h"

struct worker {
    pid_t pid; /* 0 = not running */
    int sock;
};

/* A launch slot as the host sees it: in use, and the launch's region of the
 * launch list. */
struct slot {
    uint8_t used;
    uint32_t base, count;
};

#define NO_HOME UINT16_MAX /* a DPU no launch has run yet */

struct op_machine {
    struct op_machine_config cfg;
    uint32_t nr_dpus;
    uint64_t mram_size;
    uint32_t wram_size;
    int mram_fd, wram_fd, ctrl_fd;
    uint8_t *mram, *wram;
    struct op_ctrl *ctrl;
    struct op_program **programs; /* per DPU */
    unsigned nr_workers;
    struct worker workers[OP_MAX_WORKERS];
    /* shared MRAM chunks (mram.c): the store, and which of its slots are in
     * use (under store_lock; slot_refs in the control block count holders) */
    int store_fd;
    uint32_t nr_chunks;
    pthread_mutex_t store_lock;
    uint8_t *slot_used;
    uint64_t slot_high; /* slots below it may be in use */
    uint8_t *store;     /* the host's mapping of the store */
    uint32_t *host_gen; /* per DPU: the dpu_gen the host's mapping shows */
    /* What the launches in progress hold (machine.c, "launches"), under `lock`;
     * `changed` tells waiting launches (and destroy) that some was given back. */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    unsigned launches;                   /* running or waiting */
    uint8_t worker_busy[OP_MAX_WORKERS]; /* held by a launch */
    uint8_t *dpu_busy;                   /* per DPU: in a launch */
    uint16_t *home;                      /* per DPU: the worker whose slice had it last */
    struct slot slots[OP_MAX_WORKERS];   /* launch slots (the shared part is in the control block) */
    /* the thread that starts workers, and one request to it at a time */
    pthread_t spawner;
    int has_spawner;
    pthread_mutex_t spawn_lock;
    pthread_cond_t spawn_cond;
    enum { SPAWN_IDLE, SPAWN_ASKED, SPAWN_DONE } spawn_state;
    int spawn_quit, spawn_rc;
    unsigned spawn_index;
    char spawn_err[256];
};

int op_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int op_make_memfd(const char *name, uint64_t size);

/* mram.c */
int op_mram_init(struct op_machine *m, char *err, size_t errlen);
void op_mram_fini(struct op_machine *m);
/* After a launch: frees the store slots that no DPU holds any more. */
void op_mram_reclaim(struct op_machine *m);

#endif
