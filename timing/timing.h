/* SPDX-License-Identifier: MIT */
/* OpenPIM timing model: what a run would cost on a real UPMEM server.
 *
 * A self-contained C11 library (libc + libm).  It never changes functional
 * results: the emulator reports events to it and asks it for times.
 * Calibration sources are cited as "calibration-sources §N" = docs/calibration-sources.md.
 *
 *   machine_desc.c  every hardware/timing constant (struct op_machine_desc),
 *                   presets, the text-file and profile-string parsers
 *   dpu_model.c     per-DPU, per-launch event-driven pipeline + DMA model
 *   xfer_model.c    host<->DPU transfers and launch overhead
 *   report.c        run totals by category, per-launch stats, text report,
 *                   Chrome/Perfetto trace JSON
 *
 * Thread safety: no global mutable state.  A description is read-only once
 * built and may be shared; each trace / report object belongs to one thread.
 */
#ifndef OPENPIM_TIMING_H
#define OPENPIM_TIMING_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "op_cost_slots.h" /* OP_OP_COST_LIST */

#ifdef __cplusplus
extern "C" {
#endif

#define OP_TIMING_MAX_TASKLETS 24   /* v1A hardware threads (calibration-sources §1.1) */
#define OP_TIMING_MAX_RANKS 256     /* ranks a description can list */
#define OP_TIMING_MAX_POINTS 8      /* points of a calibration curve */

/* ------------------------------------------------------------------------ */
/* 1. Machine description                                                    */
/* ------------------------------------------------------------------------ */

/* Dynamic DPU instructions charged per C operation (the LLVM pass's table,
 * calibration-sources §1.2 and §6).  Data-dependent 32-bit mul/div: base + per_bit * bitlen
 * (mul: bitlen of the smaller operand; div: clz(d)-clz(n)+1 steps).  ALU
 * operations (1 per 32-bit word) are constants of the pass, not of the
 * description (timing/llvm/op_costs.def). */
#define OP_OP_COST_FIELD_(slot, field, source) unsigned field;
struct op_op_costs {
    OP_OP_COST_LIST(OP_OP_COST_FIELD_) /* timing/op_cost_slots.h */
};
#undef OP_OP_COST_FIELD_

/* Instructions of DPU runtime calls, charged where the call happens
 * (op_dpu_trace_runtime).  ESTIMATES (no published measurement): see machine_desc.c. */
struct op_runtime_costs {
    unsigned dma_call;             /* mram_read/mram_write incl. ldma/sdma */
    unsigned barrier_wait;         /* per arriving tasklet */
    unsigned barrier_wake_per_tasklet; /* extra for the last arrival, per waiter */
    unsigned mutex_lock, mutex_unlock;
    unsigned sem_take, sem_give;
    unsigned handshake_wait, handshake_notify;
    unsigned mem_alloc, mem_reset;
    unsigned perfcounter;          /* perfcounter_get/config */
    unsigned boot;                 /* crt0 work per tasklet before main() */
};

/* Host<->DPU transfer constants for one direction (calibration-sources §3.3, §3.4, §3.7). */
struct op_xfer_dir_params {
    double fixed_us[OP_TIMING_MAX_POINTS];   /* per call, at xfer_fixed_ranks[] */
    double rank_gbps[OP_TIMING_MAX_POINTS];  /* one rank alone on its channel, at xfer_size[] */
    double chan_gbps[OP_TIMING_MAX_POINTS];  /* channel throughput when >=2 ranks share it */
    double contention[OP_TIMING_MAX_POINTS]; /* host slowdown: x(1 + c*log2(active channels)) */
    double cap_gbps[OP_TIMING_MAX_POINTS];   /* host aggregate cap, 0 = none */
    double bcast_speedup;                    /* broadcast vs parallel (h2d only: d2h has no broadcast, keeps 1) */
    double serial_call_us, serial_gbps;      /* dpu_copy_to/from on one DPU */
    double direct_call_us;                   /* per call of the direct interface (OP_XFER_DIRECT) */
    double direct_speedup;                   /* its bandwidth against a parallel push's */
    double wram_fixed_us;                    /* WRAM (__host) push, 1 rank */
    double wram_fixed_us_per_doubling;       /* + per doubling of ranks */
    double wram_ns_per_byte[OP_TIMING_MAX_POINTS];      /* per byte per DPU within a rank, at xfer_wram_size[] */
    double wram_channel_slowdown[OP_TIMING_MAX_POINTS]; /* x(1 + s*(ranks per channel - 1)), at xfer_wram_size[] */
    double wram_bcast_factor;                /* WRAM broadcast = factor x the MRAM broadcast (h2d; 0 = off:
                                                as a parallel WRAM push) */
};

struct op_machine_desc {
    char name[32];
    char server[32];               /* server preset (timing/presets/server-<name>.desc), "cloud2024" by default */
    /* DPU chip (calibration-sources §1.1) */
    double freq_mhz;
    unsigned nr_tasklets;          /* hardware threads */
    uint32_t mram_bytes, wram_bytes;
    /* topology */
    unsigned nr_ranks, channels, ranks_per_channel; /* ranks_per_channel: the most on one channel */
    unsigned ranks_per_dimm, chips_per_rank, dpus_per_chip;
    uint16_t rank_channel[OP_TIMING_MAX_RANKS];     /* allocation order: rank i -> channel */
    /* pipeline (calibration-sources §1.1) */
    unsigned revolver_cycles;      /* a tasklet issues at most once per this many cycles */
    /* MRAM<->WRAM DMA (calibration-sources §2.2): latency = fixed + per_byte * bytes */
    double dma_read_fixed, dma_write_fixed, dma_cycles_per_byte;
    double dma_overlap_cycles;     /* fixed cycles of a DMA that overlap the next one (0 = FIFO) */
    struct op_op_costs ops;
    struct op_runtime_costs rt;
    /* host transfers (calibration-sources §3) */
    unsigned xfer_npoints;         /* points in xfer_size[] and the per-size curves */
    double xfer_size[OP_TIMING_MAX_POINTS];        /* bytes per DPU, increasing */
    unsigned xfer_nfixed;
    double xfer_fixed_ranks[OP_TIMING_MAX_POINTS]; /* rank counts of fixed_us[], increasing */
    unsigned xfer_wram_npoints;
    double xfer_wram_size[OP_TIMING_MAX_POINTS];   /* bytes per DPU of the WRAM curves, increasing */
    unsigned xfer_threads;         /* host threads on one rank's DPU indices (SDK thread pool, calibration-sources §3.1) */
    double host_llc_bytes;         /* host last-level cache: a broadcast block up to it stays cached (0: none) */
    struct op_xfer_dir_params h2d, d2h;
    /* launch (calibration-sources §3.5) */
    double launch_base_us;         /* per dpu_launch(SYNC) */
    double launch_mux_us;          /* MRAM mux hand-over, per rank, serial within a channel */
    double launch_mux_back_us;     /* mux back to the host on the first access after a launch */
};

/* Load preset "v1A" or "v1B" (case-insensitive).  0 on success, -1 unknown.
 * Both sit in the default server, "cloud2024". */
int op_machine_desc_preset(const char *name, struct op_machine_desc *desc);

/* Server presets (timing/presets/server-<name>.desc, compiled in): a server is
 * the topology, host-transfer and launch keys ("server keys": the topology keys
 * and those named xfer_*, h2d_*, d2h_*, launch_*, host_*); the chip keys stay.
 * op_machine_desc_server resets every server key to the default server's, then
 * applies the named file.  0 on success; -1 with a message in errbuf for an
 * unknown name (listing the known ones), desc then unchanged.  Also reachable
 * as "server=NAME" in profile strings and "server = NAME" in .desc files. */
int op_machine_desc_server(struct op_machine_desc *desc, const char *name, char *errbuf, size_t errlen);
/* The same with the text of a server file given (tools, tests): it may set
 * server keys only; name (< 32 chars) labels messages and desc->server. */
int op_machine_desc_server_text(struct op_machine_desc *desc, const char *name, const char *text,
                                char *errbuf, size_t errlen);
/* Names of the server presets, i < op_machine_server_count(); NULL past the end. */
unsigned op_machine_server_count(void);
const char *op_machine_server_name(unsigned i);
/* 1 when key is a server key (see above), 0 for a chip key or an unknown one. */
int op_machine_desc_is_server_key(const char *key);

/* Parse a description file: "key = value" lines, '#' comments, lists as
 * "a, b, c".  Starts from the v1A preset; a "preset = NAME" line reloads a
 * preset (put it first).  Unknown key / bad value -> -1 with "path:line: why"
 * in errbuf.  The result is validated. */
int op_machine_desc_load(const char *path, struct op_machine_desc *desc,
                         char *errbuf, size_t errlen);

/* Apply a UPMEM-style profile string "key=value,key=value" (the same keys).
 * Unknown keys are ignored (as the SDK does); list values use ':' between
 * items; "preset=NAME" and "desc_file=PATH" replace the whole description
 * (keys after them modify it).  Returns the number of keys applied, -1 on a
 * bad value for a known key or an invalid result (desc then unchanged). */
int op_machine_desc_apply(struct op_machine_desc *desc, const char *profile);

/* 0 if consistent, else -1 with a reason. */
int op_machine_desc_validate(const struct op_machine_desc *desc, char *errbuf, size_t errlen);

/* The keys of the description format, in file order (for tools and tests):
 * i < op_machine_desc_key_count(); NULL past the end.  Every key changes some
 * modelled result (tests/timing/test_desc_sweep.c checks each one). */
unsigned op_machine_desc_key_count(void);
const char *op_machine_desc_key_name(unsigned i);

/* Write every key in file format (loadable by op_machine_desc_load). */
int op_machine_desc_write(FILE *f, const struct op_machine_desc *desc);

/* Channel of a rank in allocation order (0 if rank >= nr_ranks). */
unsigned op_machine_rank_channel(const struct op_machine_desc *desc, unsigned rank);

static inline double op_cycles_to_us(const struct op_machine_desc *d, uint64_t cycles)
{
    return (double)cycles / d->freq_mhz;
}

/* ------------------------------------------------------------------------ */
/* 2. DPU model                                                              */
/* ------------------------------------------------------------------------ */
/* Semantics (one DPU, one launch):
 *  - each tasklet's trace is a list of segments {n instructions, then an event};
 *  - at most one instruction issues per cycle; a tasklet issues again no sooner
 *    than revolver_cycles after its previous issue; among eligible tasklets
 *    the next after the last issuer in tid order issues (round-robin);
 *  - cycle numbering starts at 0 with all tasklets eligible; an event happens
 *    at the cycle of the last instruction before it (or when the tasklet
 *    becomes runnable if the segment has no instructions);
 *  - DMA: one engine, FIFO; done = max(submit, engine free) + fixed + per_byte*B;
 *    the tasklet issues again no sooner than `done`;
 *  - BLOCK/WAKE, ACQUIRE/RELEASE: a blocked tasklet issues no sooner than one
 *    cycle after the releasing wake/release event (pairs are matched in the
 *    emulator's functional order);
 *  - runtime calls (op_dpu_trace_runtime): their desc->rt.* instructions,
 *    then the synchronisation rules listed there;
 *  - BARRIER(key, n): the tasklets arriving at the same barrier round wait
 *    until the n-th arrival in modelled time; the last one goes on, the others
 *    issue no sooner than one cycle after it;
 *  - a tasklet's end time is its last issue + 1 (or its DMA completion);
 *    the DPU's cycles = the latest tasklet end.
 *  So 1 tasklet of N instructions takes 11(N-1)+1 cycles, k >= 11 tasklets of
 *  N instructions take k*N, and k < 11 take 11(N-1)+k.
 * Steady round-robin phases are computed analytically, also while tasklets
 * wait for DMAs (see try_jump and ring_run in dpu_model.c: O(1) per DMA with a
 * full pipeline); the trace is consumed while it
 * is recorded, so memory stays bounded by the tasklets' skew. */

struct op_dpu_trace;

struct op_dpu_result {
    uint64_t cycles;                 /* launch duration of this DPU */
    uint64_t instructions;           /* recorded (the program's), without spin retries */
    uint64_t spin_instructions;      /* acquire retries of tasklets spinning on a taken mutex */
    uint64_t tasklet_instructions[OP_TIMING_MAX_TASKLETS];
    uint64_t tasklet_end_cycle[OP_TIMING_MAX_TASKLETS];
    uint64_t dma_read_bytes, dma_write_bytes;
    uint64_t dma_reads, dma_writes;
    uint64_t dma_busy_cycles;        /* engine occupancy */
    double ipc;                      /* instructions / cycles */
    double time_us;                  /* cycles / freq */
    unsigned nr_tasklets;
    int deadlock;                    /* tasklets left blocked at the end */
    int error;                       /* recording misuse or out of memory */
};

struct op_dpu_trace *op_dpu_trace_new(void);
void op_dpu_trace_free(struct op_dpu_trace *tr);

/* Start a launch (reuses buffers).  desc must stay valid until op_dpu_model_run. */
int op_dpu_trace_begin(struct op_dpu_trace *tr, const struct op_machine_desc *desc,
                       unsigned nr_tasklets);
/* Recorders (tid < nr_tasklets; call in the emulator's execution order).
 * Before each event, report the tasklet's instructions since its previous
 * event (instr calls merge; runtime-call costs desc->rt.* are the emulator's
 * to add).  Return 0, or -1 on misuse (recorded in result.error). */
int op_dpu_trace_instr(struct op_dpu_trace *tr, unsigned tid, uint64_t n);
/* bytes: the effective DMA size (8..2048; the ISA turns size 0 into 2048). */
int op_dpu_trace_dma(struct op_dpu_trace *tr, unsigned tid, int is_write, uint32_t bytes);
/* tid blocks on key until a later op_dpu_trace_wake on the same key picks it. */
int op_dpu_trace_block(struct op_dpu_trace *tr, unsigned tid, uintptr_t key);
/* Releases up to count tasklets blocked on key, lowest tid first (as
 * op_services.wake); returns how many. */
unsigned op_dpu_trace_wake(struct op_dpu_trace *tr, unsigned tid, uintptr_t key, unsigned count);
/* Mutex ordering (optional, instead of block/wake for mutexes): call when the
 * emulator grants the lock / at unlock; acquisitions of key then follow the
 * previous release in modelled time even when nobody waited functionally. */
int op_dpu_trace_acquire(struct op_dpu_trace *tr, unsigned tid, uintptr_t key);
int op_dpu_trace_release(struct op_dpu_trace *tr, unsigned tid, uintptr_t key);
/* Rendezvous of count tasklets (every arrival calls it, the last one too):
 * barrier_wait (count = participants) or a handshake pair (count = 2).
 * Preferred over block/wake there: the model then waits for the last arrival
 * in modelled time, not in the emulator's execution order. */
int op_dpu_trace_barrier(struct op_dpu_trace *tr, unsigned tid, uintptr_t key, unsigned count);

/* DPU runtime calls: charge desc->rt.* instructions to tid, then record the
 * call's synchronisation.  The emulator calls it where the runtime performs
 * the operation; keys must differ between kinds of primitive.  Rules
 * ("event" = the cycle of the tasklet's last instruction before it):
 *  BARRIER_WAIT(key = barrier, arg = participants): rt.barrier_wait, then a
 *    rendezvous of arg tasklets in modelled time; the last arrival runs
 *    rt.barrier_wake_per_tasklet x (arg - 1) more instructions, and the
 *    others issue no sooner than one cycle after its last one;
 *  MUTEX_LOCK(key, arg = 1 granted / 0 trylock failed): rt.mutex_lock (the
 *    SDK's inline `acquire`), then, if granted, the lock event: the mutex is
 *    taken if free in modelled time, else the tasklet SPINS as on the DPU
 *    (the acquire retries itself): it stays runnable and each of its issue
 *    slots is a retry (res.spin_instructions, not in .instructions); the
 *    first retry issued after the unlock event takes the mutex, and the
 *    critical section follows from its next slot;
 *  MUTEX_UNLOCK(key): rt.mutex_unlock (`release`), then the unlock event.
 *    The order of the critical sections is thus the modelled one, not the
 *    emulator's (a program taking mutexes in inconsistent orders may then
 *    deadlock in the model only; tasklets left spinning with nobody able to
 *    unlock end the run with res.deadlock instead of spinning forever);
 *  SEM_TAKE(key, arg = 1 if it blocks): rt.sem_take, then, if it blocks, no
 *    issue before one cycle after the SEM_GIVE that hands it a unit;
 *  SEM_GIVE(key, arg = 1 if it hands a unit to a blocked taker): rt.sem_give;
 *  HANDSHAKE_WAIT(key = notifier, arg = 1 / 0 when refused with EALREADY)
 *    and HANDSHAKE_NOTIFY(key = notifier): rt.handshake_wait / _notify, then
 *    a rendezvous of the pair (the later arrival goes on, the earlier issues
 *    no sooner than one cycle after it);
 *  MEM_ALLOC, MEM_RESET, PERFCOUNTER, BOOT, DMA_CALL: rt.* instructions only. */
enum op_rt_op {
    OP_RT_BARRIER_WAIT = 0,
    OP_RT_MUTEX_LOCK,
    OP_RT_MUTEX_UNLOCK,
    OP_RT_SEM_TAKE,
    OP_RT_SEM_GIVE,
    OP_RT_HANDSHAKE_WAIT,
    OP_RT_HANDSHAKE_NOTIFY,
    OP_RT_MEM_ALLOC,
    OP_RT_MEM_RESET,
    OP_RT_PERFCOUNTER,
    OP_RT_BOOT,
    OP_RT_DMA_CALL,
    OP_RT_COUNT
};
int op_dpu_trace_runtime(struct op_dpu_trace *tr, unsigned tid, enum op_rt_op op, uintptr_t key, unsigned arg);
/* The desc->rt.* instructions op_dpu_trace_runtime charges for op (before its
 * synchronisation; without a barrier's wake-up work). */
unsigned op_dpu_runtime_instructions(const struct op_machine_desc *desc, enum op_rt_op op);
/* Latency of one DMA of `bytes` bytes: fixed + per_byte * bytes, rounded up. */
uint64_t op_dpu_dma_cycles(const struct op_machine_desc *desc, int is_write, uint32_t bytes);
int op_dpu_trace_end(struct op_dpu_trace *tr, unsigned tid);

/* Modelled cycle count of tid at its latest recorded point (for perfcounter):
 * exact when the model has already simulated that far, otherwise an estimate
 * (remaining instructions at max(11, runnable tasklets) cycles each + DMA
 * latencies).  Deterministic for a deterministic recording order. */
uint64_t op_dpu_trace_tasklet_cycles(struct op_dpu_trace *tr, unsigned tid);

/* Tests only: 1 = simulate every issue cycle (no analytic jumps; same
 * results, slower), kept across launches.  Default 0. */
void op_dpu_trace_set_stepping(struct op_dpu_trace *tr, int on);

/* 1 = memoise runs (the worker's setting; dpu_model.c, "memo"): a run whose
 * recording calls (instr, dma, runtime, end), machine description, tasklet
 * count and stepping flag equal an earlier run's takes that run's result,
 * bit for bit what the model would give, without replaying it.  While a run
 * is logged, those four recorders check only the tid and the order of END;
 * misuse only the model can tell makes them return 0, and result.error says
 * it as before.  Kept across launches.  Default 0. */
void op_dpu_trace_set_memo(struct op_dpu_trace *tr, int on);
/* Runs that took an earlier run's result (tests). */
uint64_t op_dpu_trace_memo_hits(const struct op_dpu_trace *tr);

/* Finish the launch (tasklets without an END end now) and fill *res.
 * Returns 0, or -1 if the trace had errors (res still filled). */
int op_dpu_model_run(struct op_dpu_trace *tr, struct op_dpu_result *res);

/* ------------------------------------------------------------------------ */
/* 3. Host transfers and launch                                              */
/* ------------------------------------------------------------------------ */

enum op_xfer_dir { OP_XFER_TO_DPU = 0, OP_XFER_FROM_DPU = 1 };
enum op_xfer_kind {
    OP_XFER_PARALLEL = 0,  /* dpu_prepare_xfer + dpu_push_xfer */
    OP_XFER_BROADCAST,     /* dpu_broadcast_to (to DPU only; else = parallel) */
    OP_XFER_SERIAL,        /* dpu_copy_to/from, one call per DPU */
    OP_XFER_DIRECT         /* the rank's physical view (openpim_rank_view_*): the bytes of a parallel
                              push, through the direct interface without the SDK's per-call preparation */
};
enum op_xfer_target { OP_XFER_MRAM = 0, OP_XFER_WRAM };

#define OP_XFER_CHANNEL_AUTO 0xffffffffu

struct op_xfer_rank {
    unsigned rank;         /* machine rank index */
    unsigned channel;      /* its channel, or OP_XFER_CHANNEL_AUTO: from desc */
    unsigned nr_dpus;      /* DPUs of this rank taking part (0: skip) */
};

struct op_xfer_desc {
    enum op_xfer_dir dir;
    enum op_xfer_kind kind;
    enum op_xfer_target target;
    uint64_t bytes_per_dpu;
    unsigned nr_ranks;
    const struct op_xfer_rank *ranks;
    int after_launch;      /* the ranks' MRAM is on the DPUs' side (no MRAM access
                              since their last launch): an MRAM access switches it back */
};

/* Modelled duration of one SDK transfer call, in microseconds. */
double op_xfer_time_us(const struct op_machine_desc *desc, const struct op_xfer_desc *x);

/* Which side holds each rank's MRAM multiplexer.  UPMEM's host library hands
 * a rank's MRAM to the DPUs for a launch and back to the host for its next
 * MRAM access, and does neither when the multiplexer already points the right
 * way (calibration-sources §3.1); WRAM goes through the control interface and
 * leaves it alone.  Zeroed, every rank is on the host's side (nothing launched
 * yet).  The SDK's run report and bench/calibration/xfer_replay.c keep one. */
struct op_mram_side {
    uint8_t dpus[OP_TIMING_MAX_RANKS]; /* per rank: the DPUs hold its MRAM */
};
/* Whether the DPUs hold the MRAM of any of these ranks (an MRAM access now
 * pays the hand-back: op_xfer_desc.after_launch). */
int op_mram_side_dpus(const struct op_mram_side *s, const struct op_xfer_rank *ranks, unsigned n);
/* An MRAM access to these ranks: returns op_mram_side_dpus before it; the host holds them after. */
int op_mram_side_take(struct op_mram_side *s, const struct op_xfer_rank *ranks, unsigned n);
/* The ranks of `ranks` whose MRAM the host holds, into held; their number. */
unsigned op_mram_side_held(const struct op_mram_side *s, const struct op_xfer_rank *ranks, unsigned n,
                           struct op_xfer_rank *held);
/* A launch on these ranks: op_mram_side_held (those that hand their MRAM over); the DPUs hold all after. */
unsigned op_mram_side_launch(struct op_mram_side *s, const struct op_xfer_rank *ranks, unsigned n,
                             struct op_xfer_rank *held);

/* Host-side overhead of dpu_launch(SYNC) on these ranks (kernel time not
 * included: add op_cycles_to_us(slowest DPU's cycles)): launch_base_us, plus
 * launch_mux_us for each rank of `handover` (the ranks whose MRAM the host
 * holds: an MRAM access since their last launch), those of one channel in
 * turn.  UPMEM's host library records which side holds each rank's MRAM
 * multiplexer and switches it only when it points the wrong way
 * (calibration-sources §3.1): a launch after WRAM accesses alone, or after
 * none, hands nothing over. */
double op_launch_overhead_us(const struct op_machine_desc *desc, const struct op_xfer_rank *ranks,
                             unsigned nr_ranks, const struct op_xfer_rank *handover, unsigned nr_handover);

/* ------------------------------------------------------------------------ */
/* 4. Run report                                                             */
/* ------------------------------------------------------------------------ */

enum op_category {
    OP_CAT_CPU_DPU = 0, OP_CAT_DPU_KERNEL, OP_CAT_INTER_DPU, OP_CAT_DPU_CPU,
    OP_CAT_INTER_HOST, OP_CAT_OTHER, OP_CAT_COUNT
};
const char *op_category_name(enum op_category cat); /* "CPU-DPU", "DPU kernel", ... */

/* Per-launch statistics over the DPUs of one launch. */
struct op_launch_stats {
    unsigned nr_dpus;
    uint64_t max_cycles, min_cycles, sum_cycles;
    unsigned slowest_dpu;
    uint64_t instructions;
    uint64_t dma_read_bytes, dma_write_bytes;
    unsigned deadlocks, errors;
};
void op_launch_stats_init(struct op_launch_stats *s);
void op_launch_stats_add(struct op_launch_stats *s, unsigned dpu, const struct op_dpu_result *r);

/* One timed event on a range of rank tracks (nr_ranks 0: the host track). */
struct op_trace_event {
    const char *name;
    enum op_category cat;
    double start_us, dur_us;
    unsigned first_rank, nr_ranks;
};
/* Chrome/Perfetto JSON ({"traceEvents":[...]}), one track per rank. */
int op_trace_write_json(FILE *f, const struct op_trace_event *ev, size_t n);

struct op_report;
struct op_report *op_report_new(const struct op_machine_desc *desc);
void op_report_free(struct op_report *r);
/* Add an event of dur_us at start_us (start_us < 0: at the report's clock,
 * which then advances to the end of the event).  Returns its start. */
double op_report_event(struct op_report *r, enum op_category cat, const char *name,
                       double start_us, double dur_us, unsigned first_rank, unsigned nr_ranks);
/* Add a launch: overhead_us + slowest DPU's kernel time, in category cat
 * (normally OP_CAT_DPU_KERNEL).  Returns its start. */
double op_report_launch(struct op_report *r, enum op_category cat, const char *name,
                        double start_us, double overhead_us, const struct op_launch_stats *s,
                        unsigned first_rank, unsigned nr_ranks);
double op_report_total_us(const struct op_report *r, enum op_category cat); /* COUNT: all */
double op_report_clock_us(const struct op_report *r);
void op_report_write_text(const struct op_report *r, FILE *f);
int op_report_write_trace(const struct op_report *r, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* OPENPIM_TIMING_H */
