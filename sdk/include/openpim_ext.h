/* SPDX-License-Identifier: MIT */
/* OpenPIM extension API for libraries above the SDK (collectives, HE kernels,
 * daemons): sessions (below), and modelled events: libraries record the modelled cost of their own work -- a host-side
 * shuffle, an inter-host message, a kernel they time themselves -- in the run
 * report and the Perfetto trace, next to the SDK's transfers and launches.
 * Not part of the UPMEM SDK; include it after <dpu.h>.
 *
 * Modelled time has one timeline per rank and one for the host (the calling
 * thread): an event on a set of ranks starts when the host and those ranks
 * are free.  A synchronous event moves the host to its end; an asynchronous
 * one leaves the host where it is (work on other ranks, or on the host, then
 * overlaps it), as a DPU_ASYNCHRONOUS launch does; dpu_sync() on the set waits
 * for it.  Thread-safe like the rest of the API. */
#ifndef OPENPIM_EXT_H
#define OPENPIM_EXT_H

#include <stdbool.h>

#include <dpu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where the report counts an event. */
enum openpim_event_category {
    OPENPIM_EVENT_CPU_DPU,    /* moving inputs to the DPUs */
    OPENPIM_EVENT_DPU_KERNEL, /* DPU computation */
    OPENPIM_EVENT_INTER_DPU,  /* data exchanged between DPUs (through the host) */
    OPENPIM_EVENT_DPU_CPU,    /* moving results back */
    OPENPIM_EVENT_INTER_HOST, /* messages between hosts (MPI) */
    OPENPIM_EVENT_HOST,       /* host work of the library ("Other" in the report) */
};

/* Records `name` lasting modelled_us on the ranks of `set` (a set from
 * dpu_alloc, a rank or a DPU).  Returns DPU_OK; DPU_ERR_INVALID_DPU_SET for a
 * set that is not allocated; DPU_ERR_UNSUPPORTED for an unknown category, a
 * NULL name, or a duration that is negative, NaN or over 10^15 us.  The name
 * is cut to 63 bytes. */
dpu_error_t openpim_record_event(struct dpu_set_t set, enum openpim_event_category category, const char *name,
                                 double modelled_us, bool asynchronous);

/* Records host-only work (no rank is busy): the host's clock moves by
 * modelled_us.  DPU_ERR_INVALID_DPU_SET before any dpu_alloc. */
dpu_error_t openpim_record_host_event(enum openpim_event_category category, const char *name, double modelled_us);

/* Modelled microseconds of the current session's work so far in one category,
 * as the run report counts it (transfers between launches are Inter-DPU, see
 * the report); what the report would print if the run ended now.
 * DPU_ERR_UNSUPPORTED for an unknown category or a NULL us. */
dpu_error_t openpim_category_time_us(enum openpim_event_category category, double *us);

/* ---- Estimates -----------------------------------------------------------------
 * The modelled cost an SDK call on `set` would be charged, without making it
 * (nothing is recorded): for libraries that choose between two ways of doing
 * the same work (comm picks its collectives' paths by them).  `when` places
 * the call: now, right after a kernel (the ranks' first MRAM access then
 * hands the memory back to the host; WRAM needs no hand-back; a launch hands
 * nothing over), or with the memory on the host side (an MRAM access since
 * the last launch: a launch hands every rank's MRAM to its DPUs).
 * DPU_ERR_UNSUPPORTED for an unknown kind, direction or `when`, or a NULL us;
 * the set is checked as the call itself would check it. */
enum openpim_estimate_kind {
    OPENPIM_ESTIMATE_PUSH,   /* dpu_push_xfer of bytes per DPU between MRAM and the host (dir) */
    OPENPIM_ESTIMATE_VIEW,   /* openpim_rank_view_push of bytes per DPU (the lines of every group) */
    OPENPIM_ESTIMATE_WRAM,   /* dpu_push_xfer of bytes per DPU to or from a __host (WRAM) symbol */
    OPENPIM_ESTIMATE_LAUNCH, /* dpu_launch(DPU_SYNCHRONOUS)'s host overhead; not the kernel's own cycles */
};
enum openpim_estimate_when {
    OPENPIM_ESTIMATE_NOW,
    OPENPIM_ESTIMATE_AFTER_LAUNCH,
    OPENPIM_ESTIMATE_HOST_SIDE,
};
dpu_error_t openpim_estimate_us(struct dpu_set_t set, enum openpim_estimate_kind kind, dpu_xfer_t dir,
                                size_t bytes_per_dpu, enum openpim_estimate_when when, double *us);
/* dpu_load_from_memory(set, program, size): what loading that image would
 * cost (DPU_ERR_ELF_INVALID_FILE if it is not one).  A load is charged as
 * an "Other" event on the set's ranks: the image (code and WRAM data) written
 * once per rank at the control interface's WRAM rate, an estimate (no
 * measurement of UPMEM's dpu_load is published). */
dpu_error_t openpim_estimate_load_us(struct dpu_set_t set, const void *program, size_t size, double *us);

/* ---- Untimed work -----------------------------------------------------------
 * A library modelling a data path the hardware lacks (comm's PIM-interconnect
 * what-if: direct DPU-to-DPU links) still moves the bytes through the host.
 * Between openpim_timing_pause() and openpim_timing_resume() the calling
 * thread's transfers (dpu_copy_to/from, dpu_push_xfer, broadcasts,
 * scatter-gather, rank-view transfers) and its openpim_record_* events do
 * their work but charge no modelled time and leave no event in the report or
 * trace; the library then records what its modelled path costs with
 * openpim_record_event.  Per thread: other threads are charged as usual.
 * Pauses nest: each pause needs its resume.  While paused:
 *   - dpu_launch is refused (DPU_ERR_UNSUPPORTED): kernels are never hidden;
 *   - dpu_sync still moves the host's clock to the end of its ranks' work;
 *   - dpu_alloc and dpu_free work as usual (they charge nothing), and so
 *     does dpu_load, which then charges nothing either;
 *   - an asynchronous transfer issued while paused stays untimed wherever it
 *     completes (and one issued before the pause stays timed).
 * The run report counts the untimed transfers and events, and a thread that
 * ends (or a program that exits) still paused is reported on stderr. */
dpu_error_t openpim_timing_pause(void);
/* DPU_ERR_UNSUPPORTED, with a message, when the thread is not paused. */
dpu_error_t openpim_timing_resume(void);
/* The calling thread's pause depth: 0 when its work is timed. */
unsigned openpim_timing_paused(void);

/* The message libdpu printed (on stderr, "openpim: ...") about the calling
 * thread's last failing call, e.g. why a program file was refused; "" if that
 * call printed none.  Valid until the thread's next call into libdpu. */
const char *openpim_last_error(void);

/* ---- Sessions ---------------------------------------------------------------
 * A session holds one client's state: its ranks and sets, its run report and
 * modelled clocks.  A program starts in the default session (what the UPMEM
 * API alone uses); a process serving several clients gives each its own.
 * Sessions that ask for the same machine (profile) share it: a rank allocated
 * in one is not available to another, and a released rank is reset before
 * anyone gets it.  Each thread calls the API in its current session; a set is
 * only valid while the session that allocated it is current
 * (DPU_ERR_INVALID_DPU_SET otherwise).  The report and trace files written at
 * exit (OPENPIM_REPORT, OPENPIM_TRACE) describe the default session. */
struct openpim_session;

/* A new, empty session; NULL when out of memory. */
struct openpim_session *openpim_session_create(void);

/* Makes `session` the calling thread's current session (NULL: the default
 * one) and returns the previous one (NULL: the default). */
struct openpim_session *openpim_session_use(struct openpim_session *session);

/* Frees every set of the session (waiting for its asynchronous work), gives
 * its ranks back and frees it.  No thread may use it afterwards; the threads
 * for which it was current go back to the default session only if it was the
 * caller's.  DPU_ERR_INVALID_DPU_SET for NULL or the default session. */
dpu_error_t openpim_session_destroy(struct openpim_session *session);

#ifdef __cplusplus
}
#endif

#endif
