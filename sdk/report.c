/* SPDX-License-Identifier: MIT */
/* Run report: each transfer and launch is costed by the timing model when it
 * happens; the events are kept and classified when the report is written.
 * Classification of transfers (the standard PrIM breakdown): before the first
 * launch, CPU-DPU; after the last launch, DPU-CPU; between two launches,
 * Inter-DPU.  A run without launches classifies by direction.
 *
 * Modelled time keeps one timeline per rank and one for the host (the calling
 * program): an event on a set of ranks starts when the host and those ranks
 * are free; a synchronous one moves the host to its end, an asynchronous one
 * (DPU_ASYNCHRONOUS launch, an extension event marked so) leaves the host where
 * it is, so work on different ranks overlaps; dpu_sync moves the host to the
 * end of its ranks' work.  Libraries above the SDK add events through
 * openpim_ext.h. */
#define _GNU_SOURCE
#include "report.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vclock.h"
#include "openpim_ext.h"

enum ev_type { EV_TO_DPU, EV_FROM_DPU, EV_LAUNCH, EV_EXT };

struct op_report_ev {
    enum ev_type type;
    enum op_category cat; /* EV_EXT: given by the library */
    char name[64];
    double start_us, dur_us, overhead_us;
    unsigned first_rank, nr_ranks;
    struct op_launch_stats stats;
};


/* Modelled minus measured time of the SDK work so far (ns), published for the
 * virtual clock, which may read it from any thread without the lock. */
static _Atomic long long shift_ns;

static const struct op_machine_desc *desc(void)
{
    return &op_sdk_info()->desc;
}

static void write_report(void);

static struct op_report_ev *push(enum ev_type type)
{
    struct op_report_state *R = &op_session()->report;
    if (!R->registered) {
        R->registered = 1;
        R->start_real = op_real_now_us();
        if (op_session()->is_default && (getenv("OPENPIM_REPORT") || getenv("OPENPIM_TRACE")))
            atexit(write_report);
    }
    if (R->n == R->cap) {
        size_t cap = R->cap ? R->cap * 2 : 256;
        struct op_report_ev *v = realloc(R->v, cap * sizeof *v);
        if (!v)
            return NULL;
        R->v = v;
        R->cap = cap;
    }
    struct op_report_ev *e = &R->v[R->n++];
    memset(e, 0, sizeof *e);
    e->type = type;
    return e;
}

/* Ranks of a set (at most max) with the number of its enabled DPUs in each. */
static unsigned set_ranks(struct dpu_set_t set, struct op_xfer_rank *out, unsigned max)
{
    unsigned n = 0;
    if (set.kind == DPU_SET_DPU) {
        out[0].rank = set.dpu->rank->index;
        out[0].channel = OP_XFER_CHANNEL_AUTO;
        out[0].nr_dpus = 1;
        return 1;
    }
    for (uint32_t i = 0; i < set.list.nr_ranks && n < max; i++) {
        struct dpu_rank_t *r = set.list.ranks[i];
        unsigned enabled = 0;
        for (uint32_t k = 0; k < r->nr_dpus; k++)
            enabled += r->dpus[k].enabled;
        out[n].rank = r->index;
        out[n].channel = OP_XFER_CHANNEL_AUTO;
        out[n].nr_dpus = enabled;
        n++;
    }
    return n;
}

/* Places an event of dur_us on the given ranks (none: the host alone) and
 * returns its start; a synchronous event moves the host clock to its end. */
static double place(const struct op_xfer_rank *ranks, unsigned n, double dur_us, int async, double earliest_us)
{
    struct op_report_state *R = &op_session()->report;
    size_t want = desc()->nr_ranks;
    if (R->nr_busy < want) {
        double *b = realloc(R->busy_us, want * sizeof *b);
        if (b) {
            for (size_t i = R->nr_busy; i < want; i++)
                b[i] = 0;
            R->busy_us = b;
            R->nr_busy = want;
        }
    }
    double start = earliest_us < 0 ? R->model_us : earliest_us;
    for (unsigned i = 0; i < n; i++)
        if (ranks[i].rank < R->nr_busy && R->busy_us[ranks[i].rank] > start)
            start = R->busy_us[ranks[i].rank];
    double end = start + dur_us;
    for (unsigned i = 0; i < n; i++)
        if (ranks[i].rank < R->nr_busy)
            R->busy_us[ranks[i].rank] = end;
    if (!async)
        R->model_us = end;
    return start;
}

/* Publishes the host clock: modelled minus measured SDK time. */
static void publish(void)
{
    struct op_report_state *R = &op_session()->report;
    /* a double past the range of long long does not convert: clamp (31 years) */
    double shift = (R->model_us - R->real_us) * 1e3;
    shift = shift > 1e18 ? 1e18 : shift < -1e18 ? -1e18 : shift;
    if (op_session()->is_default) /* the program's own clock follows the default session */
        atomic_store_explicit(&shift_ns, (long long)shift, memory_order_relaxed);
}

/* After one record: the host clock and the peak memory.  The record's real
 * time is its call's, taken out when the call returns (op_record_sdk_time). */
static void account(void)
{
    struct op_report_state *R = &op_session()->report;
    publish();
    uint64_t used = 0;
    if (op_sdk_backend()) /* dpu_sync of an empty set may come before any machine */
        OP_BACKEND(memory, &used, NULL);
    if (used > R->peak_memory)
        R->peak_memory = used;
}

void op_record_sdk_time(double sdk_us)
{
    op_session()->report.real_us += sdk_us;
    publish();
}

static void span(const struct op_xfer_rank *ranks, unsigned n, unsigned *first, unsigned *count)
{
    unsigned lo = ~0u, hi = 0;
    for (unsigned i = 0; i < n; i++) {
        if (ranks[i].rank < lo)
            lo = ranks[i].rank;
        if (ranks[i].rank > hi)
            hi = ranks[i].rank;
    }
    *first = n ? lo : 0;
    *count = n ? hi - lo + 1 : 0;
}

/* ---- Untimed work (openpim_timing_pause) -------------------------------------
 * The depth is the thread's own (no lock); it is mirrored in a pthread key
 * whose destructor reports a thread that ends paused, and an exit handler
 * reports the exiting thread. */
static _Thread_local unsigned pause_depth;
static pthread_key_t pause_key;
static pthread_once_t pause_once = PTHREAD_ONCE_INIT;

static void ended_paused(void *depth)
{
    op_warn("a thread ended with modelled timing paused (%u openpim_timing_pause without resume): "
            "its transfers were not charged", (unsigned)(uintptr_t)depth);
}

static void exit_paused(void)
{
    if (pause_depth)
        op_warn("exit with modelled timing paused (%u openpim_timing_pause without resume): "
                "the thread's transfers were not charged", pause_depth);
}

static void pause_init(void)
{
    pthread_key_create(&pause_key, ended_paused);
    atexit(exit_paused);
}

unsigned openpim_timing_paused(void)
{
    return pause_depth;
}

dpu_error_t openpim_timing_pause(void)
{
    pthread_once(&pause_once, pause_init);
    if (pause_depth == UINT_MAX) {
        op_warn("openpim_timing_pause: nested too deep");
        return DPU_ERR_UNSUPPORTED;
    }
    pause_depth++;
    pthread_setspecific(pause_key, (void *)(uintptr_t)pause_depth);
    return DPU_OK;
}

dpu_error_t openpim_timing_resume(void)
{
    op_clear_last_error();
    if (pause_depth == 0) {
        op_warn("openpim_timing_resume without openpim_timing_pause on this thread");
        return DPU_ERR_UNSUPPORTED;
    }
    pause_depth--;
    pthread_setspecific(pause_key, pause_depth ? (void *)(uintptr_t)pause_depth : NULL);
    return DPU_OK;
}

void op_record_untimed_xfer(struct dpu_set_t set, enum op_region region, size_t bytes)
{
    struct op_report_state *R = &op_session()->report;
    if (region != OP_REGION_WRAM) {
        struct op_xfer_rank ranks[OP_TIMING_MAX_RANKS];
        unsigned n = set_ranks(set, ranks, OP_TIMING_MAX_RANKS);
        op_mram_side_take(&R->mram, ranks, n);
    }
    R->untimed_xfers++;
    R->untimed_bytes += bytes;
    account();
}

void op_record_xfer(struct dpu_set_t set, enum op_xfer_kind kind, int to_dpu, enum op_region region,
                    size_t bytes_per_dpu, uint32_t nr_dpus, double issued_us)
{
    if (issued_us < 0 && pause_depth) {
        op_record_untimed_xfer(set, region, bytes_per_dpu * nr_dpus);
        return;
    }
    struct op_xfer_rank ranks[OP_TIMING_MAX_RANKS];
    unsigned n = set_ranks(set, ranks, OP_TIMING_MAX_RANKS);
    struct op_mram_side *side = &op_session()->report.mram;
    struct op_xfer_desc x = {
        .dir = to_dpu ? OP_XFER_TO_DPU : OP_XFER_FROM_DPU,
        .kind = kind,
        .target = region == OP_REGION_WRAM ? OP_XFER_WRAM : OP_XFER_MRAM,
        .bytes_per_dpu = bytes_per_dpu,
        .nr_ranks = n,
        .ranks = ranks,
        .after_launch = region != OP_REGION_WRAM && op_mram_side_take(side, ranks, n),
    };
    double us = op_xfer_time_us(desc(), &x);
    double start = place(ranks, n, us, issued_us >= 0, issued_us);
    struct op_report_ev *e = push(to_dpu ? EV_TO_DPU : EV_FROM_DPU);
    if (e) {
        static const char *kinds[] = {"push", "broadcast", "copy", "view"};
        snprintf(e->name, sizeof e->name, "%s %s %zu B x %u DPUs (%s)", to_dpu ? "to" : "from",
                 kinds[kind], bytes_per_dpu, nr_dpus, region == OP_REGION_WRAM ? "WRAM" : "MRAM");
        e->start_us = start;
        e->dur_us = us;
        span(ranks, n, &e->first_rank, &e->nr_ranks);
    }
    account();
}

/* ---- dpu_load -------------------------------------------------------------------
 * A program load in modelled time, an estimate (no measurement of UPMEM's
 * dpu_load is published): the loader writes the image through the control
 * interface, the path of WRAM (__host) transfers (calibration-sources §3.4),
 * the same bytes for every DPU of a rank, which one command stream addresses
 * at once: per rank one DPU's WRAM write of the image (the WRAM push model
 * with one DPU per rank: its fixed cost, its ns per byte, the ranks of a
 * channel in turn); initialised MRAM variables are an MRAM broadcast.  The
 * image: the code as compiled for this host (x86-64 instructions, 1-15 bytes,
 * against the DPU's 6 stored in 8: the same order of size) and the WRAM image
 * (data, and the .bss this machine zeroes).  An event of the "Other"
 * category, so that the PrIM-style breakdowns keep their meaning. */
static double load_us(struct dpu_set_t set, size_t iram_wram, size_t mram)
{
    struct op_xfer_rank ranks[OP_TIMING_MAX_RANKS];
    unsigned n = set_ranks(set, ranks, OP_TIMING_MAX_RANKS);
    struct op_xfer_desc x = {.dir = OP_XFER_TO_DPU, .kind = OP_XFER_BROADCAST, .target = OP_XFER_MRAM,
                             .bytes_per_dpu = mram, .nr_ranks = n, .ranks = ranks};
    double us = mram ? op_xfer_time_us(desc(), &x) : 0;
    for (unsigned i = 0; i < n; i++)
        ranks[i].nr_dpus = ranks[i].nr_dpus ? 1 : 0;
    x.kind = OP_XFER_PARALLEL;
    x.target = OP_XFER_WRAM;
    x.bytes_per_dpu = iram_wram;
    return us + op_xfer_time_us(desc(), &x);
}

static size_t image_bytes(const struct op_image *img)
{
    return (size_t)img->text_len + img->wram_init_len;
}

void op_record_load(struct dpu_set_t set, const struct op_image *img)
{
    if (pause_depth) {
        op_session()->report.untimed_events++;
        account();
        return;
    }
    struct op_xfer_rank ranks[OP_TIMING_MAX_RANKS];
    unsigned n = set_ranks(set, ranks, OP_TIMING_MAX_RANKS);
    if (img->mram_init_len) /* the loader writes the initialised MRAM variables */
        op_mram_side_take(&op_session()->report.mram, ranks, n);
    double us = load_us(set, image_bytes(img), img->mram_init_len), start = place(ranks, n, us, 0, -1);
    struct op_report_ev *e = push(EV_EXT);
    if (e) {
        e->cat = OP_CAT_OTHER;
        snprintf(e->name, sizeof e->name, "load program (%zu B per DPU)", image_bytes(img) + img->mram_init_len);
        e->start_us = start;
        e->dur_us = us;
        span(ranks, n, &e->first_rank, &e->nr_ranks);
    }
    account();
}

/* ---- Estimates (openpim_ext.h) --------------------------------------------------- */

static dpu_error_t estimate(struct dpu_set_t set, enum openpim_estimate_kind kind, dpu_xfer_t dir, size_t bytes,
                            enum openpim_estimate_when when, double *us)
{
    if (!us)
        return DPU_ERR_UNSUPPORTED;
    *us = 0;
    dpu_error_t rc = op_set_check(set);
    if (rc != DPU_OK)
        return rc;
    if ((unsigned)kind > OPENPIM_ESTIMATE_LAUNCH || (dir != DPU_XFER_TO_DPU && dir != DPU_XFER_FROM_DPU) ||
        (unsigned)when > OPENPIM_ESTIMATE_HOST_SIDE)
        return DPU_ERR_UNSUPPORTED;
    struct op_xfer_rank ranks[OP_TIMING_MAX_RANKS];
    unsigned n = set_ranks(set, ranks, OP_TIMING_MAX_RANKS);
    const struct op_mram_side *side = &op_session()->report.mram;
    if (kind == OPENPIM_ESTIMATE_LAUNCH) {
        /* now: the ranks the host holds hand their MRAM over; right after a kernel: none; host side: all */
        struct op_xfer_rank held[OP_TIMING_MAX_RANKS];
        const struct op_xfer_rank *handover = held;
        unsigned nh = 0;
        if (when == OPENPIM_ESTIMATE_NOW)
            nh = op_mram_side_held(side, ranks, n, held);
        else if (when == OPENPIM_ESTIMATE_HOST_SIDE) {
            handover = ranks;
            nh = n;
        }
        *us = op_launch_overhead_us(desc(), ranks, n, handover, nh);
        return DPU_OK;
    }
    struct op_xfer_desc x = {
        .dir = dir == DPU_XFER_TO_DPU ? OP_XFER_TO_DPU : OP_XFER_FROM_DPU,
        .kind = kind == OPENPIM_ESTIMATE_VIEW ? OP_XFER_DIRECT : OP_XFER_PARALLEL,
        .target = kind == OPENPIM_ESTIMATE_WRAM ? OP_XFER_WRAM : OP_XFER_MRAM,
        .bytes_per_dpu = bytes,
        .nr_ranks = n,
        .ranks = ranks,
        .after_launch = when == OPENPIM_ESTIMATE_AFTER_LAUNCH || (when == OPENPIM_ESTIMATE_NOW && op_mram_side_dpus(side, ranks, n)),
    };
    *us = op_xfer_time_us(desc(), &x);
    return DPU_OK;
}

dpu_error_t openpim_estimate_us(struct dpu_set_t set, enum openpim_estimate_kind kind, dpu_xfer_t dir,
                                size_t bytes_per_dpu, enum openpim_estimate_when when, double *us)
{
    OP_LOCKED_RETURN(estimate(set, kind, dir, bytes_per_dpu, when, us));
}

static dpu_error_t estimate_load(struct dpu_set_t set, const void *program, size_t size, double *us)
{
    if (!us)
        return DPU_ERR_UNSUPPORTED;
    *us = 0;
    dpu_error_t rc = op_set_check(set);
    if (rc != DPU_OK)
        return rc;
    if (!program)
        return DPU_ERR_ELF_INVALID_FILE;
    struct op_image img;
    char err[256];
    if (op_image_parse(program, size, &img, err, sizeof err) != 0)
        return DPU_ERR_ELF_INVALID_FILE;
    *us = load_us(set, image_bytes(&img), img.mram_init_len);
    op_image_free(&img);
    return DPU_OK;
}

dpu_error_t openpim_estimate_load_us(struct dpu_set_t set, const void *program, size_t size, double *us)
{
    OP_LOCKED_RETURN(estimate_load(set, program, size, us));
}

/* One CSV row per DPU of a launch, when OPENPIM_REPORT_DPUS names a file. */
static void write_dpu_rows(struct dpu_set_t set)
{
    struct op_report_state *R = &op_session()->report;
    static int opened;
    if (!opened && op_session()->is_default) { /* the file describes the default session */
        opened = 1;
        const char *path = getenv("OPENPIM_REPORT_DPUS");
        if (path && *path && (R->dpu_csv = fopen(path, "w")))
            fprintf(R->dpu_csv, "launch,dpu,rank,cycles,instructions,ipc,dma_read_bytes,dma_write_bytes,fault\n");
    }
    if (!R->dpu_csv)
        return;
    struct dpu_t *d;
    OP_SET_FOREACH_DPU(set, d) {
        struct op_dpu_status status;
        const struct op_dpu_status *st = &status;
        OP_BACKEND(result, d->id, &status);
        const struct op_dpu_result *m = &st->model;
        fprintf(R->dpu_csv, "%u,%u,%u,%llu,%llu,%.4f,%llu,%llu,%u\n", R->launches, d->id, d->rank->index,
                (unsigned long long)m->cycles, (unsigned long long)m->instructions,
                m->cycles ? (double)m->instructions / (double)m->cycles : 0.0, (unsigned long long)m->dma_read_bytes,
                (unsigned long long)m->dma_write_bytes, st->fault);
    }
    fflush(R->dpu_csv);
}

double op_record_host_clock(void)
{
    struct op_report_state *R = &op_session()->report;
    return R->model_us;
}

void op_record_launch(struct dpu_set_t set, int async, double issued_us)
{
    struct op_report_state *R = &op_session()->report;
    struct op_xfer_rank ranks[OP_TIMING_MAX_RANKS];
    unsigned n = set_ranks(set, ranks, OP_TIMING_MAX_RANKS);
    struct op_xfer_rank held[OP_TIMING_MAX_RANKS];
    unsigned nh = op_mram_side_launch(&R->mram, ranks, n, held);
    struct op_report_ev *e = push(EV_LAUNCH);
    struct op_launch_stats st;
    op_launch_stats_init(&st);
    struct dpu_t *d;
    bool unaccounted = false;
    OP_SET_FOREACH_DPU(set, d) {
        struct op_dpu_status status;
        OP_BACKEND(result, d->id, &status);
        op_launch_stats_add(&st, d->id, &status.model);
        unaccounted |= d->program && !d->program->img.accounting;
    }
    R->unaccounted_launches += unaccounted;
    write_dpu_rows(set);
    R->launches++;
    double overhead = op_launch_overhead_us(desc(), ranks, n, held, nh);
    double us = overhead + op_cycles_to_us(desc(), st.max_cycles);
    double start = place(ranks, n, us, async, issued_us);
    if (e) {
        snprintf(e->name, sizeof e->name, "launch %u DPUs", st.nr_dpus);
        e->start_us = start;
        e->dur_us = us;
        e->overhead_us = overhead;
        e->stats = st;
        span(ranks, n, &e->first_rank, &e->nr_ranks);
    }
    account();
}

void op_record_sync(struct dpu_set_t set)
{
    struct op_xfer_rank ranks[OP_TIMING_MAX_RANKS];
    unsigned n = set_ranks(set, ranks, OP_TIMING_MAX_RANKS);
    place(ranks, n, 0, 0, -1);
    account();
}

static const enum op_category cats[] = {
    [OPENPIM_EVENT_CPU_DPU] = OP_CAT_CPU_DPU,     [OPENPIM_EVENT_DPU_KERNEL] = OP_CAT_DPU_KERNEL,
    [OPENPIM_EVENT_INTER_DPU] = OP_CAT_INTER_DPU, [OPENPIM_EVENT_DPU_CPU] = OP_CAT_DPU_CPU,
    [OPENPIM_EVENT_INTER_HOST] = OP_CAT_INTER_HOST, [OPENPIM_EVENT_HOST] = OP_CAT_OTHER,
};

static dpu_error_t record_ext(struct dpu_set_t *set, enum openpim_event_category category, const char *name,
                              double modelled_us, bool asynchronous)
{
    if (!name || (unsigned)category >= sizeof cats / sizeof *cats || !(modelled_us >= 0) || modelled_us > 1e15)
        return DPU_ERR_UNSUPPORTED;
    if (!op_sdk_backend())
        return DPU_ERR_INVALID_DPU_SET; /* nothing allocated yet: no machine to place the event on */
    struct op_xfer_rank ranks[OP_TIMING_MAX_RANKS] = {{0, 0, 0}};
    unsigned n = 0;
    if (set) {
        dpu_error_t rc = op_set_check(*set);
        if (rc != DPU_OK)
            return rc;
        n = set_ranks(*set, ranks, OP_TIMING_MAX_RANKS);
    }
    if (pause_depth) {
        op_session()->report.untimed_events++;
        return DPU_OK;
    }
    double start = place(ranks, n, modelled_us, asynchronous, -1);
    struct op_report_ev *e = push(EV_EXT);
    if (e) {
        e->cat = cats[category];
        snprintf(e->name, sizeof e->name, "%s", name);
        e->start_us = start;
        e->dur_us = modelled_us;
        span(ranks, n, &e->first_rank, &e->nr_ranks);
    }
    account();
    return DPU_OK;
}

dpu_error_t openpim_record_event(struct dpu_set_t set, enum openpim_event_category category, const char *name,
                                 double modelled_us, bool asynchronous)
{
    OP_LOCKED_RETURN(record_ext(&set, category, name, modelled_us, asynchronous));
}

dpu_error_t openpim_record_host_event(enum openpim_event_category category, const char *name, double modelled_us)
{
    OP_LOCKED_RETURN(record_ext(NULL, category, name, modelled_us, false));
}

double openpim_modelled_time_us(void)
{
    struct op_report_state *R = &op_session()->report;
    op_sdk_lock();
    double us = R->model_us;
    op_sdk_unlock();
    return us;
}

long long op_record_shift_ns(void)
{
    return atomic_load_explicit(&shift_ns, memory_order_relaxed);
}

static enum op_category classify(size_t i, size_t first_launch, size_t last_launch, int any_launch)
{
    struct op_report_state *R = &op_session()->report;
    const struct op_report_ev *e = &R->v[i];
    if (e->type == EV_EXT)
        return e->cat;
    if (e->type == EV_LAUNCH)
        return OP_CAT_DPU_KERNEL;
    if (!any_launch || i < first_launch)
        return e->type == EV_TO_DPU ? OP_CAT_CPU_DPU : OP_CAT_DPU_CPU;
    if (i > last_launch)
        return e->type == EV_FROM_DPU ? OP_CAT_DPU_CPU : OP_CAT_CPU_DPU;
    return OP_CAT_INTER_DPU;
}

static void write_report_locked(void);

/* At exit; a thread still inside an SDK call finishes it first. */
static void write_report(void)
{
    op_jobs_drain(); /* asynchronous launches still queued finish first */
    op_sdk_lock();
    openpim_session_use(NULL); /* the report is the default session's */
    write_report_locked();
    op_sdk_unlock();
}

/* The current session's events as a timing-model report (NULL: out of memory). */
static struct op_report *build_report(void)
{
    struct op_report_state *R = &op_session()->report;
    struct op_report *rep = op_report_new(desc());
    if (!rep)
        return NULL;
    size_t first = 0, last = 0;
    int any = 0;
    for (size_t i = 0; i < R->n; i++)
        if (R->v[i].type == EV_LAUNCH) {
            if (!any)
                first = i;
            last = i;
            any = 1;
        }
    for (size_t i = 0; i < R->n; i++) {
        const struct op_report_ev *e = &R->v[i];
        if (e->type == EV_LAUNCH)
            op_report_launch(rep, OP_CAT_DPU_KERNEL, e->name, e->start_us, e->overhead_us, &e->stats, e->first_rank,
                             e->nr_ranks);
        else
            op_report_event(rep, classify(i, first, last, any), e->name, e->start_us, e->dur_us, e->first_rank,
                            e->nr_ranks);
    }
    return rep;
}

static dpu_error_t category_time(enum openpim_event_category category, double *us)
{
    if (!us || (unsigned)category >= sizeof cats / sizeof *cats)
        return DPU_ERR_UNSUPPORTED;
    *us = 0;
    if (!op_sdk_backend() || op_session()->report.n == 0)
        return DPU_OK;
    struct op_report *rep = build_report();
    if (!rep)
        return DPU_ERR_SYSTEM;
    *us = op_report_total_us(rep, cats[category]);
    op_report_free(rep);
    return DPU_OK;
}

dpu_error_t openpim_category_time_us(enum openpim_event_category category, double *us)
{
    OP_LOCKED_RETURN(category_time(category, us));
}

static void write_report_locked(void)
{
    struct op_report_state *R = &op_session()->report;
    if (!op_sdk_backend() || R->n == 0)
        return;
    struct op_report *rep = build_report();
    if (!rep)
        return;
    const char *path = getenv("OPENPIM_REPORT");
    if (path && *path) {
        FILE *f = strcmp(path, "1") == 0 ? stderr : fopen(path, "w");
        if (f) {
            fprintf(f, "== OpenPIM run report (modelled on %s: %u ranks, %.0f MHz) ==\n", desc()->name,
                    desc()->nr_ranks, desc()->freq_mhz);
            fprintf(f, "measured on this host: %.3f ms inside SDK calls, %.3f ms since the first SDK call\n",
                    R->real_us / 1e3, (op_real_now_us() - R->start_real) / 1e3);
            uint64_t limit;
            OP_BACKEND(memory, NULL, &limit);
            fprintf(f, "host memory backing the emulated MRAM/WRAM: peak %.1f MB (limit %.0f MB)\n",
                    R->peak_memory / 1048576.0, limit / 1048576.0);
            if (R->unaccounted_launches)
                fprintf(f, "WARNING: %u launch(es) ran a DPU program built without instruction accounting "
                           "(no clang-14 plugin): their kernel times count DMA and runtime calls only\n",
                        R->unaccounted_launches);
            if (R->untimed_xfers || R->untimed_events)
                fprintf(f, "untimed (openpim_timing_pause): %llu transfer(s), %.1f MB, and %llu library event(s) "
                           "not charged\n",
                        (unsigned long long)R->untimed_xfers, R->untimed_bytes / 1048576.0,
                        (unsigned long long)R->untimed_events);
            op_report_write_text(rep, f);
            if (f != stderr)
                fclose(f);
        }
    }
    const char *trace = getenv("OPENPIM_TRACE");
    if (trace && *trace) {
        FILE *f = fopen(trace, "w");
        if (f) {
            op_report_write_trace(rep, f);
            fclose(f);
        }
    }
    op_report_free(rep);
}

void op_report_state_free(struct op_session *s)
{
    struct op_report_state *R = &s->report;
    free(R->v);
    free(R->busy_us);
    memset(R, 0, sizeof *R);
}
