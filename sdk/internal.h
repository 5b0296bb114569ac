/* State of the host library behind dpu.h. */
#ifndef OPENPIM_SDK_INTERNAL_H
#define OPENPIM_SDK_INTERNAL_H

#include <dpu.h>

#include "../machine/machine.h"

struct dpu_program_t {
    struct op_program *prog;
    unsigned refs; /* DPUs loaded through this handle */
};

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
    unsigned jobs;       /* asynchronous launches queued or running (jobs.c's lock) */
    dpu_error_t pending; /* error of asynchronous jobs, reported by dpu_sync */
};

/* Parsed profile (see profile.c). */
struct op_profile {
    struct op_machine_config machine;
    bool sg_enabled;
    uint32_t sg_max_blocks;
    bool disable_reset;
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

/* The machine, created by the first allocation. */
struct op_machine *op_sdk_machine(void);

/* Iterates the DPUs of a set that are enabled. */
uint32_t op_set_count(struct dpu_set_t set);
dpu_error_t op_set_check(struct dpu_set_t set);
/* Waits for asynchronous work on the set's ranks (jobs.c); always DPU_OK. */
dpu_error_t op_sync_ranks(struct dpu_set_t set);

/* Asynchronous launches (jobs.c).  Called with the lock held; op_jobs_wait
 * and op_jobs_drain release it while they wait. */
dpu_error_t op_jobs_submit(struct dpu_set_t set, uint32_t *ids, uint32_t n, double issued_us);
int op_jobs_busy(struct dpu_set_t set);
void op_jobs_wait(struct dpu_set_t set);
void op_jobs_drain(void);
/* Concludes a launch of the set's DPUs (launch.c): report, fault messages, and
 * the error of the launch (kept for dpu_sync when asynchronous). */
dpu_error_t op_launch_done(struct dpu_set_t set, int machine_rc, const char *err, int async, double issued_us,
                           double real_start_us);
/* Keeps the first error of an asynchronous job on the set's ranks, for dpu_sync. */
void op_set_pending(struct dpu_set_t set, dpu_error_t rc);

/* Prints one line about an error of the emulator itself. */
void op_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Resolves a symbol of a loaded image (the MRAM heap pseudo-symbol spans the rest of MRAM). */
dpu_error_t op_symbol_lookup(const struct op_image *img, const char *name, struct dpu_symbol_t *out);

/* Scatter-gather settings of the current profile. */
bool op_sg_enabled(uint32_t *max_blocks);

/* Iterates the enabled DPUs of a set as struct dpu_t pointers. */
bool op_iter_next_dpu(struct dpu_set_iterator_t *it, struct dpu_t **dpu);
#define OP_SET_FOREACH_DPU(set, d) \
    for (struct dpu_set_iterator_t __it = dpu_set_iterator_begin(set); op_iter_next_dpu(&__it, &(d));)

#endif
