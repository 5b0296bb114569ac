/* SPDX-License-Identifier: MIT */
/* State of the host library behind dpu.h. */
#ifndef OPENPIM_SDK_INTERNAL_H
#define OPENPIM_SDK_INTERNAL_H

#include <stdio.h>

#include <dpu.h>

#include "../backend/backend.h"

/* A program as dpu_load returns it: the parsed image (symbols, layout) and
 * the backend's copy, shared by the DPUs it was loaded on. */
struct dpu_program_t {
    struct op_image img;
    struct op_backend_program *bp;
    unsigned refs; /* DPUs loaded through this handle */
};
/* Drops one DPU's reference to a handle (NULL: none); the last one frees it. */
void op_program_drop(struct dpu_program_t *p);

struct dpu_t {
    struct dpu_rank_t *rank;
    uint32_t id;         /* index in the machine */
    uint8_t slice, member;
    bool enabled;
    void *xfer;          /* prepared buffer of the next push */
    struct dpu_program_t *program; /* handle returned by dpu_load, shared by the DPUs it loaded */
};

struct dpu_rank_t {
    uint32_t index;      /* rank number in the machine */
    uint32_t nr_dpus;    /* DPUs of the rank (enabled or not) */
    struct dpu_t *dpus;
    bool allocated;
    /* jobs.c's queue (under its mutex): tickets issued and done, and
     * nonblocking callbacks still running */
    uint64_t issued, done;
    unsigned detached;
    dpu_error_t pending; /* error of asynchronous jobs, reported by dpu_sync */
};

/* Parsed profile (see profile.c). */
struct op_profile {
    struct op_machine_config machine; /* machine.remote: the openpimd socket with backend=remote */
    bool remote;                      /* backend=remote */
    int8_t batch, prefetch;           /* remoteBatch, remotePrefetch: -1 unset, the environment decides */
    bool sg_enabled;
    uint32_t sg_max_blocks;
};
dpu_error_t op_profile_parse(const char *profile, struct op_profile *out, char *err, size_t errlen);

/* ---- Threads ----------------------------------------------------------------
 * The host API may be called from several threads at once on distinct sets,
 * as with the UPMEM SDK.  The rule, for now: one lock for the whole library.
 * Every public entry point that reads or writes shared state (the machine and
 * its ranks, the rank lists of alloc.c, the run report of report.c, a DPU's
 * program handle) runs under op_sdk_lock(), mostly whole through
 * OP_LOCKED_RETURN (dpu_load reads and parses the file before it takes the
 * lock); internal functions (op_*) assume the caller holds it.  The lock counts
 * re-entries per thread, so an entry point may call another, and so may a
 * scatter-gather get_block function on the calling thread.  User callbacks of
 * dpu_callback run with the lock released (op_sdk_suspend/op_sdk_resume), so
 * a callback that calls the API, or waits for a thread that does, cannot
 * deadlock.  Entry points that only read the caller's own set (iteration,
 * dpu_set_rank, dpu_from_set, slice/member ids) and dpu_error_to_string take
 * no lock.  Launches, DPU_ASYNCHRONOUS ones included, run to completion under
 * the lock: the machine runs one launch at a time.  The virtual clock
 * (vclock.c) reads the modelled time through an atomic, never the lock, since
 * a program's own clock_gettime may run anywhere.  A later step replaces this
 * with per-rank job queues: keep the lock here, in lock.c and the macro. */
void op_sdk_lock(void);
void op_sdk_unlock(void);
/* The virtual clock's host time is the program's time outside SDK calls:
 * the lock measures each outermost call of a program's thread while it holds
 * the lock, and op_record_sdk_time takes that time out.  Not the jobs'
 * background threads (op_sdk_background: the program goes on meanwhile), nor
 * the program's own functions a call runs on the thread (dpu_callback's,
 * between op_sdk_user_begin and op_sdk_user_end), but their SDK calls. */
void op_sdk_background(void);
double op_sdk_user_begin(void);
void op_sdk_user_end(double begun);
/* Releases the lock however often this thread holds it; returns that count
 * for op_sdk_resume (0 if the thread did not hold it). */
unsigned op_sdk_suspend(void);
void op_sdk_resume(unsigned held);
/* Evaluates a dpu_error_t expression under the lock and returns its value. */
#define OP_LOCKED_RETURN(expr)                 \
    do {                                       \
        op_sdk_lock();                         \
        dpu_error_t op_locked_rc_ = (expr);    \
        op_sdk_unlock();                       \
        return op_locked_rc_;                  \
    } while (0)

/* ---- Sessions ---------------------------------------------------------------
 * A session is one client's state: its machine (a backend, shared with the
 * other sessions of the process that asked for the same machine; ranks are
 * claimed from it), its ranks and sets, its run report.  Each thread works in
 * its current session: the process's default one unless openpim_session_use
 * (openpim_ext.h) chose another.  A set belongs to the session that allocated
 * it and is only valid while that session is current. */
struct rank_list;
struct op_report_ev;
/* The run report's state (report.c). */
struct op_report_state {
    struct op_report_ev *v;
    size_t n, cap;
    double model_us;   /* the host's modelled clock: end of the work it has waited for */
    double *busy_us;   /* per rank: end of the work issued to it */
    size_t nr_busy;
    double real_us;    /* measured host time of the same work */
    double start_real; /* first event */
    struct op_mram_side mram; /* which side holds each rank's MRAM (timing.h) */
    int registered;
    uint64_t peak_memory;        /* host bytes backing MRAM/WRAM, sampled after each event */
    FILE *dpu_csv;               /* OPENPIM_REPORT_DPUS */
    unsigned launches;
    unsigned unaccounted_launches; /* launches of programs built without instruction accounting */
    uint64_t untimed_xfers, untimed_bytes, untimed_events; /* left uncharged by openpim_timing_pause */
};
struct op_session {
    struct op_backend *backend; /* NULL until the first allocation */
    struct op_backend_info info;
    struct op_profile profile;  /* the one the machine was opened from */
    struct dpu_rank_t *ranks;   /* every rank of the machine, as this session sees it */
    uint32_t nr_ranks;
    struct rank_list *lists;    /* alloc.c */
    uint32_t nr_lists;
    struct op_report_state report;
    bool is_default;
};
/* The calling thread's current session. */
struct op_session *op_session(void);
/* The process's backends, shared by the sessions that open the same machine. */
struct op_backend *op_backend_get(const struct op_machine_config *cfg, char *err, size_t errlen);
void op_backend_put(struct op_backend *b);
/* Ends a session's use of its machine: its sets are freed, its ranks released (alloc.c). */
void op_session_release(struct op_session *s);
/* Frees a session's report state (report.c). */
void op_report_state_free(struct op_session *s);

/* The current session's machine, opened by its first allocation, and its facts. */
struct op_backend *op_sdk_backend(void);
const struct op_backend_info *op_sdk_info(void);
/* Calls a backend operation: OP_BACKEND(op, args...) is op_sdk_backend()->ops->op(op_sdk_backend(), args...). */
#define OP_BACKEND(op, ...) (op_sdk_backend()->ops->op(op_sdk_backend(), __VA_ARGS__))

/* Iterates the DPUs of a set that are enabled. */
uint32_t op_set_count(struct dpu_set_t set);
dpu_error_t op_set_check(struct dpu_set_t set);
/* Waits for asynchronous work on the set's ranks (jobs.c); always DPU_OK. */
dpu_error_t op_sync_ranks(struct dpu_set_t set);

/* ---- Jobs (jobs.c) --------------------------------------------------------------
 * A launch, transfer or callback on a set, run in its ranks' queues.  Embed
 * struct op_job first in a job of your own and fill set, run, finish. */
struct op_job {
    struct dpu_set_t set;
    void (*run)(struct op_job *j);    /* the work, without the library lock */
    /* with the lock, after run and before the ranks' next job: records, errors;
     * frees an asynchronous job; optional for a synchronous one */
    void (*finish)(struct op_job *j);
    bool nonblocking;                 /* let the ranks' next jobs start while it runs */
    /* jobs.c's */
    struct op_session *session;
    uint64_t *tickets; /* per rank of the set */
};
/* Issues j in the background and returns (lock held); j->finish runs later
 * and must free j.  An error (and j->finish left unset) if j cannot be run. */
dpu_error_t op_jobs_submit(struct op_job *j);
/* Runs j (and j->finish, if set) on this thread once its ranks are free (lock
 * held; released while j->run works).  An error if j cannot be run. */
dpu_error_t op_jobs_run(struct op_job *j);
int op_jobs_busy(struct dpu_set_t set);
/* Waits for the set's ranks' jobs (lock held, released while waiting). */
void op_jobs_wait(struct dpu_set_t set);
/* Waits for every asynchronous job of the process. */
void op_jobs_drain(void);
/* Concludes a launch of the set's DPUs (launch.c): report, fault messages, and
 * the error of the launch (kept for dpu_sync when asynchronous). */
dpu_error_t op_launch_done(struct dpu_set_t set, int machine_rc, const char *err, int async, double issued_us);
/* Keeps the first error of an asynchronous job on the set's ranks, for dpu_sync. */
void op_set_pending(struct dpu_set_t set, dpu_error_t rc);

/* Prints one line about an error on stderr and keeps it as the thread's
 * openpim_last_error() (error.c). */
void op_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void op_clear_last_error(void);

/* Resolves a symbol of a loaded image (the MRAM heap pseudo-symbol spans the rest of MRAM). */
dpu_error_t op_symbol_lookup(const struct op_image *img, const char *name, struct dpu_symbol_t *out);
/* Where a fault at code address pc of program p lies (fault_source.c): its
 * source file and line from the DWARF of a -g build ("" and 0 otherwise) and
 * its function ("" if none); op_fault_location writes that as the suffix of
 * a fault line ("" for pc 0). */
void op_fault_source(const struct dpu_program_t *p, uint32_t pc, char *file, size_t filelen, uint32_t *line,
                     char *function, size_t fnlen);
void op_fault_location(const struct dpu_program_t *p, uint32_t pc, char *out, size_t outlen);

/* Scatter-gather settings of the current profile. */
bool op_sg_enabled(uint32_t *max_blocks);

/* Iterates the enabled DPUs of a set as struct dpu_t pointers. */
bool op_iter_next_dpu(struct dpu_set_iterator_t *it, struct dpu_t **dpu);
#define OP_SET_FOREACH_DPU(set, d) \
    for (struct dpu_set_iterator_t __it = dpu_set_iterator_begin(set); op_iter_next_dpu(&__it, &(d));)

#endif
