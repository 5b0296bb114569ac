/* OpenPIM extension API for libraries above the SDK (collectives, HE kernels,
 * daemons): they record the modelled cost of their own work -- a host-side
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

#ifdef __cplusplus
}
#endif

#endif
