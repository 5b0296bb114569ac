/* SPDX-License-Identifier: MIT */
/* DPU model tests: hand-derived exact cycle counts, a cycle-by-cycle
 * reference simulator on random traces (checks the analytic jumps and the
 * streaming consumption), determinism, speed. */
#include "timing.h"
#include "check.h"

#include <stdint.h>
#include <string.h>
#include <time.h>

static struct op_machine_desc D;

/* ------------------------------------------------------------------------ */
/* hand-derived cases                                                        */
/* ------------------------------------------------------------------------ */

static struct op_dpu_result run_uniform(unsigned ntasklets, uint64_t n)
{
    struct op_dpu_trace *tr = op_dpu_trace_new();
    struct op_dpu_result r;
    op_dpu_trace_begin(tr, &D, ntasklets);
    for (unsigned t = 0; t < ntasklets; t++) {
        op_dpu_trace_instr(tr, t, n);
        op_dpu_trace_end(tr, t);
    }
    CHECK(op_dpu_model_run(tr, &r) == 0);
    op_dpu_trace_free(tr);
    return r;
}

static void test_pipeline(void)
{
    /* 1 tasklet, N instructions: issues at 0, 11, ..., 11(N-1); ends one cycle later */
    CHECK_EQ_U64(run_uniform(1, 1).cycles, 1);
    CHECK_EQ_U64(run_uniform(1, 2).cycles, 12);
    CHECK_EQ_U64(run_uniform(1, 1000).cycles, 11 * 999 + 1);
    struct op_dpu_result r = run_uniform(1, 1000);
    CHECK_EQ_U64(r.instructions, 1000);
    CHECK(r.ipc > 1000.0 / 10990 - 1e-12 && r.ipc < 1000.0 / 10990 + 1e-12);
    /* k < 11 tasklets: tasklet i issues at i + 11m -> 11(N-1) + k */
    CHECK_EQ_U64(run_uniform(5, 1000).cycles, 11 * 999 + 5);
    CHECK_EQ_U64(run_uniform(10, 7).cycles, 11 * 6 + 10);
    /* k >= 11: the pipeline is full, one instruction per cycle -> k*N */
    CHECK_EQ_U64(run_uniform(11, 1000).cycles, 11 * 1000);
    CHECK_EQ_U64(run_uniform(16, 1000).cycles, 16 * 1000);
    CHECK_EQ_U64(run_uniform(24, 3).cycles, 24 * 3);
    r = run_uniform(16, 1000);
    CHECK_EQ_U64(r.instructions, 16000);
    CHECK(r.ipc == 1.0);
    for (unsigned t = 0; t < 16; t++)
        CHECK_EQ_U64(r.tasklet_end_cycle[t], 16 * 999 + t + 1);
    /* huge segments are computed analytically */
    clock_t c0 = clock();
    CHECK_EQ_U64(run_uniform(16, 100000000ull).cycles, 1600000000ull);
    CHECK_EQ_U64(run_uniform(1, 100000000ull).cycles, 11ull * 99999999ull + 1);
    CHECK_EQ_U64(run_uniform(7, 100000000ull).cycles, 11ull * 99999999ull + 7);
    double ms = 1e3 * (double)(clock() - c0) / CLOCKS_PER_SEC;
    printf("3 launches of 1e8-instruction segments: %.3f ms\n", ms);
    CHECK(ms < 100);
}

static void test_dma(void)
{
    struct op_dpu_trace *tr = op_dpu_trace_new();
    struct op_dpu_result r;

    /* one 2048-B read between two instructions: issue at 0, DMA 0..1101, issue at 1101 */
    op_dpu_trace_begin(tr, &D, 1);
    op_dpu_trace_instr(tr, 0, 1);
    op_dpu_trace_dma(tr, 0, 0, 2048);
    op_dpu_trace_instr(tr, 0, 1);
    op_dpu_trace_end(tr, 0);
    op_dpu_model_run(tr, &r);
    CHECK_EQ_U64(r.cycles, 1 + 77 + 1024);
    CHECK_EQ_U64(r.dma_read_bytes, 2048);
    CHECK_EQ_U64(r.dma_reads, 1);

    /* a instructions, read, b instructions: 11(a-1) + (77+1024) + 11(b-1) + 1 */
    op_dpu_trace_begin(tr, &D, 1);
    op_dpu_trace_instr(tr, 0, 10);
    op_dpu_trace_dma(tr, 0, 0, 2048);
    op_dpu_trace_instr(tr, 0, 20);
    op_dpu_trace_end(tr, 0);
    op_dpu_model_run(tr, &r);
    CHECK_EQ_U64(r.cycles, 11 * 9 + 1101 + 11 * 19 + 1);

    /* write: 61 + 0.5 B; 8-B read: 77 + 4 */
    op_dpu_trace_begin(tr, &D, 1);
    op_dpu_trace_instr(tr, 0, 1);
    op_dpu_trace_dma(tr, 0, 1, 2048);
    op_dpu_trace_instr(tr, 0, 1);
    op_dpu_trace_dma(tr, 0, 0, 8);
    op_dpu_trace_end(tr, 0); /* ends when the last DMA completes */
    op_dpu_model_run(tr, &r);
    CHECK_EQ_U64(r.cycles, 1085 + 81); /* END arrives when the read completes */
    CHECK_EQ_U64(r.dma_write_bytes, 2048);

    /* two tasklets contend for the engine (FIFO): t0 submits at 0 (done 1101),
     * t1 at 1 waits until 1101 (done 2202); each then issues once */
    op_dpu_trace_begin(tr, &D, 2);
    for (unsigned t = 0; t < 2; t++) {
        op_dpu_trace_instr(tr, t, 1);
        op_dpu_trace_dma(tr, t, 0, 2048);
    }
    for (unsigned t = 0; t < 2; t++) {
        op_dpu_trace_instr(tr, t, 1);
        op_dpu_trace_end(tr, t);
    }
    op_dpu_model_run(tr, &r);
    CHECK_EQ_U64(r.tasklet_end_cycle[0], 1102);
    CHECK_EQ_U64(r.tasklet_end_cycle[1], 2203);
    CHECK_EQ_U64(r.cycles, 2203);
    CHECK_EQ_U64(r.dma_busy_cycles, 2202);

    /* 16 tasklets streaming 2048-B reads: the engine is the bottleneck,
     * 1101 cycles per DMA -> about 2048*350e6/1101 = 651 MB/s (calibration-sources §2.2) */
    op_dpu_trace_begin(tr, &D, 16);
    for (int i = 0; i < 100; i++)
        for (unsigned t = 0; t < 16; t++) {
            op_dpu_trace_instr(tr, t, 10);
            op_dpu_trace_dma(tr, t, 0, 2048);
        }
    for (unsigned t = 0; t < 16; t++)
        op_dpu_trace_end(tr, t);
    op_dpu_model_run(tr, &r);
    double mbps = (double)r.dma_read_bytes / r.time_us;
    printf("16 tasklets x 100 x 2048-B reads: %llu cycles, %.1f MB/s\n", (unsigned long long)r.cycles, mbps);
    CHECK(r.cycles >= 1600ull * 1101 && r.cycles < 1600ull * 1101 + 200);
    CHECK(mbps > 640 && mbps < 652);
    op_dpu_trace_free(tr);
}

static void test_sync(void)
{
    struct op_dpu_trace *tr = op_dpu_trace_new();
    struct op_dpu_result r;
    /* block/wake barrier, functional order t0..t3, t3 (40 instr) arrives last.
     * Tasklet i issues at i+11m: t0 blocks at 99, t1 at 210, t2 at 321, t3
     * wakes at 3+11*39 = 432.  t0,t1,t2 resume at 433,434,435 and t3 at 443;
     * 5 more instructions each: t0 477, t1 478, t2 479, t3 487 -> 488 cycles. */
    op_dpu_trace_begin(tr, &D, 4);
    for (unsigned t = 0; t < 3; t++) {
        op_dpu_trace_instr(tr, t, 10 * (t + 1));
        op_dpu_trace_block(tr, t, 0xB);
    }
    op_dpu_trace_instr(tr, 3, 40);
    CHECK(op_dpu_trace_wake(tr, 3, 0xB, 3) == 3);
    for (unsigned t = 0; t < 4; t++) {
        op_dpu_trace_instr(tr, (t + 3) % 4, 5);
        op_dpu_trace_end(tr, (t + 3) % 4);
    }
    op_dpu_model_run(tr, &r);
    CHECK_EQ_U64(r.tasklet_end_cycle[0], 478);
    CHECK_EQ_U64(r.tasklet_end_cycle[1], 479);
    CHECK_EQ_U64(r.tasklet_end_cycle[2], 480);
    CHECK_EQ_U64(r.tasklet_end_cycle[3], 488);
    CHECK_EQ_U64(r.cycles, 488);
    CHECK(!r.deadlock);

    /* the same with the barrier primitive, but the emulator's last arrival
     * (t3, 10 instr) is not the last in modelled time (t0, 40 instr, at 429):
     * everybody waits for 429; t1..t3 resume at 430..432, t0 at 440. */
    op_dpu_trace_begin(tr, &D, 4);
    for (unsigned t = 0; t < 4; t++) {
        op_dpu_trace_instr(tr, t, 40 - 10 * t);
        op_dpu_trace_barrier(tr, t, 0xB, 4);
    }
    for (unsigned t = 0; t < 4; t++) {
        op_dpu_trace_instr(tr, t, 1);
        op_dpu_trace_end(tr, t);
    }
    op_dpu_model_run(tr, &r);
    CHECK_EQ_U64(r.tasklet_end_cycle[1], 431);
    CHECK_EQ_U64(r.tasklet_end_cycle[2], 432);
    CHECK_EQ_U64(r.tasklet_end_cycle[3], 433);
    CHECK_EQ_U64(r.tasklet_end_cycle[0], 441);
    CHECK_EQ_U64(r.cycles, 441);

    /* mutex ordering: t0 holds the lock for 100 instructions; t1 acquires
     * after t0's release (issued at 11*100 = 1100) although it never waited
     * functionally: t1's next instruction issues at 1101. */
    op_dpu_trace_begin(tr, &D, 2);
    op_dpu_trace_instr(tr, 0, 1);
    op_dpu_trace_acquire(tr, 0, 0x77);
    op_dpu_trace_instr(tr, 0, 100);
    op_dpu_trace_release(tr, 0, 0x77);
    op_dpu_trace_instr(tr, 0, 1);
    op_dpu_trace_end(tr, 0);
    op_dpu_trace_instr(tr, 1, 1);
    op_dpu_trace_acquire(tr, 1, 0x77);
    op_dpu_trace_instr(tr, 1, 1);
    op_dpu_trace_end(tr, 1);
    op_dpu_model_run(tr, &r);
    CHECK_EQ_U64(r.tasklet_end_cycle[0], 11 * 101 + 1);
    CHECK_EQ_U64(r.tasklet_end_cycle[1], 1102);

    /* a block nobody wakes: deadlock is reported, not hung */
    op_dpu_trace_begin(tr, &D, 2);
    op_dpu_trace_instr(tr, 0, 3);
    op_dpu_trace_block(tr, 0, 1);
    op_dpu_trace_instr(tr, 1, 3);
    op_dpu_trace_end(tr, 1);
    op_dpu_model_run(tr, &r);
    CHECK(r.deadlock);

    /* misuse is reported, never fatal */
    op_dpu_trace_begin(tr, &D, 2);
    CHECK(op_dpu_trace_instr(tr, 5, 1) < 0);
    op_dpu_trace_end(tr, 0);
    CHECK(op_dpu_trace_instr(tr, 0, 1) < 0);
    op_dpu_trace_end(tr, 1);
    CHECK(op_dpu_model_run(tr, &r) < 0 && r.error);
    op_dpu_trace_free(tr);
}

static void test_tasklet_cycles(void)
{
    struct op_dpu_trace *tr = op_dpu_trace_new();
    op_dpu_trace_begin(tr, &D, 1);
    op_dpu_trace_instr(tr, 0, 100);
    CHECK_EQ_U64(op_dpu_trace_tasklet_cycles(tr, 0), 11 * 99 + 1); /* exact */
    op_dpu_trace_dma(tr, 0, 0, 2048);
    op_dpu_trace_instr(tr, 0, 1);
    CHECK_EQ_U64(op_dpu_trace_tasklet_cycles(tr, 0), 11 * 99 + 1101 + 1);
    op_dpu_trace_end(tr, 0);
    struct op_dpu_result r;
    op_dpu_model_run(tr, &r);
    CHECK_EQ_U64(r.cycles, 11 * 99 + 1101 + 1);
    /* with other tasklets not started yet the value is an estimate, >= exact */
    op_dpu_trace_begin(tr, &D, 4);
    op_dpu_trace_instr(tr, 0, 100);
    uint64_t est = op_dpu_trace_tasklet_cycles(tr, 0);
    CHECK(est >= 11 * 99 + 1);
    for (unsigned t = 0; t < 4; t++)
        op_dpu_trace_end(tr, t);
    op_dpu_model_run(tr, &r);
    CHECK_EQ_U64(r.tasklet_end_cycle[0], 11 * 99 + 1);
    op_dpu_trace_free(tr);
}

/* op_dpu_trace_runtime: charged costs and synchronisation in modelled cycles,
 * derived by hand from the rules in timing.h (revolver 11 cycles, tasklet i
 * alone issues at i, i+11, ...; the costs set below). */
static struct op_dpu_result rt_end(struct op_dpu_trace *tr)
{
    struct op_dpu_result r;
    CHECK(op_dpu_model_run(tr, &r) == 0);
    return r;
}

static void test_runtime(void)
{
    struct op_machine_desc d = D;
    d.rt = (struct op_runtime_costs){.dma_call = 1, .barrier_wait = 20, .barrier_wake_per_tasklet = 2,
                                     .mutex_lock = 3, .mutex_unlock = 2, .sem_take = 8, .sem_give = 8,
                                     .handshake_wait = 12, .handshake_notify = 12, .mem_alloc = 15,
                                     .mem_reset = 4, .perfcounter = 4, .boot = 16};
    struct op_dpu_trace *tr = op_dpu_trace_new();
    struct op_dpu_result r;

    /* barrier, 2 tasklets, t1 arrives last (100 instr): t0's 20 barrier
     * instructions issue at 0..209 and it waits; t1's 120 at 1..1310, then
     * the wake work (2 x 1 waiter) at 1321, 1332.  t0 resumes at 1333
     * (1333..1377, end 1378); t1 goes on at 1343 (..1387, end 1388). */
    op_dpu_trace_begin(tr, &d, 2);
    op_dpu_trace_runtime(tr, 0, OP_RT_BARRIER_WAIT, 0xBA, 2);
    op_dpu_trace_instr(tr, 1, 100);
    op_dpu_trace_runtime(tr, 1, OP_RT_BARRIER_WAIT, 0xBA, 2);
    for (unsigned t = 0; t < 2; t++) {
        op_dpu_trace_instr(tr, t, 5);
        op_dpu_trace_end(tr, t);
    }
    r = rt_end(tr);
    CHECK_EQ_U64(r.tasklet_end_cycle[0], 1378);
    CHECK_EQ_U64(r.tasklet_end_cycle[1], 1388);
    CHECK_EQ_U64(r.instructions, 20 + 5 + 120 + 2 + 5);

    /* the same, but the emulator's last arrival (t1, immediate) is not the
     * last in modelled time: t0 (100 instr) arrives at 1309 and does the wake
     * work (1320, 1331); t1, waiting since 210, resumes at 1332 (end 1377),
     * t0 at 1342 (end 1387).  The old block/wake order let t1 go on at 211. */
    op_dpu_trace_begin(tr, &d, 2);
    op_dpu_trace_instr(tr, 0, 100);
    op_dpu_trace_runtime(tr, 0, OP_RT_BARRIER_WAIT, 0xBA, 2);
    op_dpu_trace_runtime(tr, 1, OP_RT_BARRIER_WAIT, 0xBA, 2);
    for (unsigned t = 0; t < 2; t++) {
        op_dpu_trace_instr(tr, t, 5);
        op_dpu_trace_end(tr, t);
    }
    r = rt_end(tr);
    CHECK_EQ_U64(r.tasklet_end_cycle[1], 1377);
    CHECK_EQ_U64(r.tasklet_end_cycle[0], 1387);
    /* rt_barrier_wait and rt_barrier_wake_per_tasklet move it */
    d.rt.barrier_wait = 21;
    op_dpu_trace_begin(tr, &d, 2);
    op_dpu_trace_instr(tr, 0, 100);
    op_dpu_trace_runtime(tr, 0, OP_RT_BARRIER_WAIT, 0xBA, 2);
    op_dpu_trace_runtime(tr, 1, OP_RT_BARRIER_WAIT, 0xBA, 2);
    op_dpu_trace_end(tr, 0);
    op_dpu_trace_end(tr, 1);
    r = rt_end(tr);
    CHECK_EQ_U64(r.tasklet_end_cycle[1], 1332 + 11); /* one more instruction of t0 before the release */
    d.rt.barrier_wait = 20;

    /* mutex: t0 holds it for 100 instructions.  t0: 1 + 3 (lock) + 100 + 2
     * (unlock) instructions, the release at 11*105 = 1155, 1 more at 1166.
     * t1 locks later in the emulator's order: 1 + 3 at 1, 12, 23, 34, then
     * spins (acquire retries every 11 cycles, at 45 + 11m): the retry at
     * 1156 takes the mutex (102 retries), then its critical section (1 + 2
     * for the unlock: 1167, 1178, 1189 -> end 1190). */
    op_dpu_trace_begin(tr, &d, 2);
    op_dpu_trace_instr(tr, 0, 1);
    op_dpu_trace_runtime(tr, 0, OP_RT_MUTEX_LOCK, 0x77, 1);
    op_dpu_trace_instr(tr, 0, 100);
    op_dpu_trace_runtime(tr, 0, OP_RT_MUTEX_UNLOCK, 0x77, 0);
    op_dpu_trace_instr(tr, 0, 1);
    op_dpu_trace_end(tr, 0);
    op_dpu_trace_instr(tr, 1, 1);
    op_dpu_trace_runtime(tr, 1, OP_RT_MUTEX_LOCK, 0x77, 1);
    op_dpu_trace_instr(tr, 1, 1);
    op_dpu_trace_runtime(tr, 1, OP_RT_MUTEX_UNLOCK, 0x77, 0);
    op_dpu_trace_end(tr, 1);
    r = rt_end(tr);
    CHECK_EQ_U64(r.tasklet_end_cycle[0], 1167);
    CHECK_EQ_U64(r.tasklet_end_cycle[1], 1190);
    CHECK_EQ_U64(r.instructions, 107 + 7);
    CHECK_EQ_U64(r.spin_instructions, 102);
    /* a failed trylock charges rt_mutex_lock and waits for nobody */
    op_dpu_trace_begin(tr, &d, 1);
    op_dpu_trace_runtime(tr, 0, OP_RT_MUTEX_LOCK, 0x77, 0);
    r = rt_end(tr);
    CHECK_EQ_U64(r.instructions, 3);
    CHECK_EQ_U64(r.cycles, 11 * 2 + 1);

    /* semaphore: t1 takes first (5 + 8 instructions, at 1..133) and blocks;
     * t0 gives after 50 (58 instructions, the wake at 627): t1's next
     * instructions issue at 628, 639, 650 -> end 651. */
    op_dpu_trace_begin(tr, &d, 2);
    op_dpu_trace_instr(tr, 1, 5);
    op_dpu_trace_runtime(tr, 1, OP_RT_SEM_TAKE, 0x5E, 1);
    op_dpu_trace_instr(tr, 0, 50);
    op_dpu_trace_runtime(tr, 0, OP_RT_SEM_GIVE, 0x5E, 1);
    op_dpu_trace_end(tr, 0);
    op_dpu_trace_instr(tr, 1, 3);
    op_dpu_trace_end(tr, 1);
    r = rt_end(tr);
    CHECK_EQ_U64(r.tasklet_end_cycle[0], 628);
    CHECK_EQ_U64(r.tasklet_end_cycle[1], 651);

    /* handshake: t1 waits for t0 (12 instructions, at 1..122); t0 notifies
     * after 30 (42 instructions, the last at 451) and goes on (462, 473 ->
     * 474); t1 resumes at 452 (452, 463 -> 464). */
    op_dpu_trace_begin(tr, &d, 2);
    op_dpu_trace_runtime(tr, 1, OP_RT_HANDSHAKE_WAIT, 0, 1);
    op_dpu_trace_instr(tr, 0, 30);
    op_dpu_trace_runtime(tr, 0, OP_RT_HANDSHAKE_NOTIFY, 0, 0);
    for (unsigned t = 0; t < 2; t++) {
        op_dpu_trace_instr(tr, t, 2);
        op_dpu_trace_end(tr, t);
    }
    r = rt_end(tr);
    CHECK_EQ_U64(r.tasklet_end_cycle[0], 474);
    CHECK_EQ_U64(r.tasklet_end_cycle[1], 464);

    /* instruction-only calls: one tasklet, N charged instructions -> 11(N-1)+1 */
    static const struct {
        enum op_rt_op op;
        unsigned cost;
    } only[] = {{OP_RT_MEM_ALLOC, 15}, {OP_RT_MEM_RESET, 4}, {OP_RT_PERFCOUNTER, 4}, {OP_RT_BOOT, 16},
                {OP_RT_DMA_CALL, 1}};
    for (unsigned i = 0; i < sizeof only / sizeof only[0]; i++) {
        op_dpu_trace_begin(tr, &d, 1);
        op_dpu_trace_runtime(tr, 0, only[i].op, 0, 0);
        r = rt_end(tr);
        CHECK_EQ_U64(r.instructions, only[i].cost);
        CHECK_EQ_U64(r.cycles, 11 * (only[i].cost - 1) + 1);
    }
    /* misuse */
    op_dpu_trace_begin(tr, &d, 1);
    CHECK(op_dpu_trace_runtime(tr, 3, OP_RT_BOOT, 0, 0) < 0);
    CHECK(op_dpu_trace_runtime(tr, 0, OP_RT_COUNT, 0, 0) < 0);
    op_dpu_trace_free(tr);
}

/* ------------------------------------------------------------------------ */
/* random traces vs a cycle-by-cycle reference                               */
/* ------------------------------------------------------------------------ */

enum { C_INSTR, C_DMA, C_BLOCK, C_WAKE, C_ACQ, C_REL, C_BAR, C_END, C_RT };
struct call {
    int kind;
    unsigned tid;
    uint64_t a, b, c; /* C_RT: op, key, arg */
};

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static unsigned rndn(unsigned n) { return (unsigned)(rnd() % n); }

#define MAXCALLS 200000
static struct call calls[MAXCALLS];
static size_t ncalls;

static void emit(int kind, unsigned tid, uint64_t a, uint64_t b)
{
    if (ncalls < MAXCALLS)
        calls[ncalls++] = (struct call){kind, tid, a, b, 0};
}

static void emit_rt(unsigned tid, enum op_rt_op op, uint64_t key, unsigned arg)
{
    if (ncalls < MAXCALLS)
        calls[ncalls++] = (struct call){C_RT, tid, (uint64_t)op, key, arg};
}

/* Trace generator variants: DMA-bound code (vector-add-like: DMAs between
 * short and long instruction runs, many tasklets), and synchronisation
 * through op_dpu_trace_runtime (charged runtime costs, barrier wake work). */
static int gen_dma_heavy, gen_rt, gen_rt_mutex; /* gen_rt_mutex: only mutexes through the runtime */

/* Generate a trace by running random tasklet programs under a functional
 * round-robin coroutine scheduler (yield at every DMA/sync call), as the
 * emulator does: phases of random work separated by barriers, with DMAs,
 * mutex-protected sections and empty segments. */
static void gen_trace(unsigned n, int barrier_kind)
{
    enum { A_INSTR, A_DMA, A_LOCK, A_UNLOCK, A_BARRIER, A_END };
    struct act {
        int k;
        uint64_t a, b;
    };
    static struct act prog[OP_TIMING_MAX_TASKLETS][400];
    unsigned len[OP_TIMING_MAX_TASKLETS] = {0}, pc[OP_TIMING_MAX_TASKLETS] = {0};
    unsigned phases = 1 + rndn(3);
    int big = rndn(3) == 0;
    for (unsigned t = 0; t < n; t++) {
        for (unsigned ph = 0; ph < phases; ph++) {
            unsigned steps = gen_dma_heavy ? 20 + rndn(60) : rndn(12);
            for (unsigned s = 0; s < steps && len[t] < 390; s++) {
                unsigned what = gen_dma_heavy ? (rndn(12) < 10 ? 0 : 5 + rndn(5)) : rndn(10);
                uint64_t ni = gen_dma_heavy ? (rndn(3) == 0 ? rndn(800) : rndn(16))
                              : big && rndn(4) == 0 ? 1000 + rndn(20000) : rndn(40);
                if (ni)
                    prog[t][len[t]++] = (struct act){A_INSTR, ni, 0};
                if (what < 5) {
                    prog[t][len[t]++] = (struct act){A_DMA, rndn(2), 8 * (1 + rndn(256))};
                } else if (what < 7) {
                    uint64_t m = rndn(3);
                    prog[t][len[t]++] = (struct act){A_LOCK, m, 0};
                    prog[t][len[t]++] = (struct act){A_INSTR, 1 + rndn(30), 0};
                    prog[t][len[t]++] = (struct act){A_UNLOCK, m, 0};
                }
            }
            if (ph + 1 < phases)
                prog[t][len[t]++] = (struct act){A_BARRIER, ph, 0};
        }
        prog[t][len[t]++] = (struct act){A_END, 0, 0};
    }
    /* functional execution */
    int runnable[OP_TIMING_MAX_TASKLETS], done[OP_TIMING_MAX_TASKLETS] = {0};
    int holder[3] = {-1, -1, -1}, granted[OP_TIMING_MAX_TASKLETS] = {0};
    unsigned bar_arrived = 0;
    int bar_waiting[OP_TIMING_MAX_TASKLETS] = {0};
    for (unsigned t = 0; t < n; t++)
        runnable[t] = 1;
    ncalls = 0;
    unsigned cur = 0, ndone = 0;
    while (ndone < n) {
        unsigned k = 0;
        while (k < n && !runnable[(cur + k) % n])
            k++;
        if (k == n)
            break; /* functional deadlock: cannot happen with these programs */
        cur = (cur + k) % n;
        unsigned t = cur;
        if (granted[t]) { /* resumed with a mutex handed over at unlock */
            if (gen_rt || gen_rt_mutex)
                emit_rt(t, OP_RT_MUTEX_LOCK, (uint64_t)granted[t] - 1, 1);
            else
                emit(C_ACQ, t, granted[t] - 1, 0);
            granted[t] = 0;
        }
        int yield = 0;
        while (!yield) {
            struct act *a = &prog[t][pc[t]++];
            switch (a->k) {
            case A_INSTR:
                emit(C_INSTR, t, a->a, 0);
                break;
            case A_DMA:
                emit(C_DMA, t, a->a, a->b);
                yield = 1;
                break;
            case A_LOCK:
                if (holder[a->a] < 0) {
                    holder[a->a] = (int)t;
                    if (gen_rt || gen_rt_mutex)
                        emit_rt(t, OP_RT_MUTEX_LOCK, a->a, 1);
                    else
                        emit(C_ACQ, t, a->a, 0);
                } else {
                    runnable[t] = 0; /* waits for the unlock */
                    granted[t] = 0;
                }
                yield = 1;
                break;
            case A_UNLOCK: {
                if (gen_rt || gen_rt_mutex)
                    emit_rt(t, OP_RT_MUTEX_UNLOCK, a->a, 0);
                else
                    emit(C_REL, t, a->a, 0);
                holder[a->a] = -1;
                for (unsigned j = 1; j <= n; j++) { /* hand over to the next waiter */
                    unsigned u = (t + j) % n;
                    if (!runnable[u] && !done[u] && !bar_waiting[u] && prog[u][pc[u] - 1].k == A_LOCK &&
                        prog[u][pc[u] - 1].a == a->a) {
                        holder[a->a] = (int)u;
                        runnable[u] = 1;
                        granted[u] = (int)a->a + 1;
                        break;
                    }
                }
                yield = 1;
                break;
            }
            case A_BARRIER:
                bar_arrived++;
                if (gen_rt)
                    emit_rt(t, OP_RT_BARRIER_WAIT, 1000 + a->a, n);
                else if (barrier_kind)
                    emit(C_BAR, t, 1000 + a->a, n);
                if (bar_arrived < n) {
                    if (!barrier_kind && !gen_rt)
                        emit(C_BLOCK, t, 1000 + a->a, 0);
                    runnable[t] = 0;
                    bar_waiting[t] = 1;
                } else {
                    if (!barrier_kind && !gen_rt)
                        emit(C_WAKE, t, 1000 + a->a, n - 1);
                    bar_arrived = 0;
                    for (unsigned u = 0; u < n; u++)
                        if (bar_waiting[u]) {
                            bar_waiting[u] = 0;
                            runnable[u] = 1;
                        }
                }
                yield = 1;
                break;
            case A_END:
                emit(C_END, t, 0, 0);
                done[t] = 1;
                runnable[t] = 0;
                ndone++;
                yield = 1;
                break;
            }
        }
        cur = (t + 1) % n;
    }
}

/* ---- reference: the documented semantics, one cycle at a time ---- */

enum { R_OPEN, R_DMA_R, R_DMA_W, R_BLOCK, R_WAKE, R_BAR, R_LOCK, R_UNLOCK, R_END };
struct rseg {
    uint64_t ninstr;
    int kind;
    long arg;
};
#define RMAXSEG 8000
static struct rseg rsegs[OP_TIMING_MAX_TASKLETS][RMAXSEG];
static unsigned rnseg[OP_TIMING_MAX_TASKLETS];
#define RMAXREC 20000
static uint64_t rec_time[RMAXREC];
static unsigned rec_need[RMAXREC], rec_arr[RMAXREC];
static unsigned nrec;

static void ref_close(unsigned t, int kind, long arg)
{
    if (rnseg[t] && rsegs[t][rnseg[t] - 1].kind == R_OPEN) {
        rsegs[t][rnseg[t] - 1].kind = kind;
        rsegs[t][rnseg[t] - 1].arg = arg;
    } else {
        rsegs[t][rnseg[t]++] = (struct rseg){0, kind, arg};
    }
}

static void ref_build(unsigned n)
{
    memset(rnseg, 0, sizeof rnseg);
    nrec = 0;
    long blk_seg[OP_TIMING_MAX_TASKLETS];
    uint64_t blk_key[OP_TIMING_MAX_TASKLETS];
    long last_rel[64], bar_cur[64];
    for (int i = 0; i < 64; i++)
        last_rel[i] = bar_cur[i] = -1;
    for (unsigned t = 0; t < n; t++)
        blk_seg[t] = -1;
    for (size_t i = 0; i < ncalls; i++) {
        struct call *c = &calls[i];
        unsigned t = c->tid;
        switch (c->kind) {
        case C_INSTR:
            if (rnseg[t] && rsegs[t][rnseg[t] - 1].kind == R_OPEN)
                rsegs[t][rnseg[t] - 1].ninstr += c->a;
            else
                rsegs[t][rnseg[t]++] = (struct rseg){c->a, R_OPEN, 0};
            break;
        case C_DMA:
            ref_close(t, c->a ? R_DMA_W : R_DMA_R, (long)c->b);
            break;
        case C_BLOCK:
            ref_close(t, R_BLOCK, -1);
            blk_seg[t] = rnseg[t] - 1;
            blk_key[t] = c->a;
            break;
        case C_WAKE: {
            long rec = -1;
            unsigned w = 0;
            for (unsigned u = 0; u < n && w < c->b; u++)
                if (u != t && blk_seg[u] >= 0 && blk_key[u] == c->a) {
                    if (rec < 0) {
                        rec = nrec++;
                        rec_time[rec] = UINT64_MAX;
                    }
                    rsegs[u][blk_seg[u]].arg = rec;
                    blk_seg[u] = -1;
                    w++;
                }
            if (rec >= 0)
                ref_close(t, R_WAKE, rec);
            break;
        }
        case C_ACQ:
            if (last_rel[c->a] >= 0)
                ref_close(t, R_BLOCK, last_rel[c->a]);
            break;
        case C_REL:
            last_rel[c->a] = nrec++;
            rec_time[last_rel[c->a]] = UINT64_MAX;
            ref_close(t, R_WAKE, last_rel[c->a]);
            break;
        case C_BAR: {
            long k = (long)(c->a % 64);
            if (bar_cur[k] < 0 || rec_arr[bar_cur[k]] >= rec_need[bar_cur[k]]) {
                bar_cur[k] = nrec++;
                rec_need[bar_cur[k]] = (unsigned)c->b;
                rec_arr[bar_cur[k]] = 0;
            }
            rec_arr[bar_cur[k]]++; /* recorded arrivals; reset below for the run */
            ref_close(t, R_BAR, bar_cur[k]);
            break;
        }
        case C_END:
            ref_close(t, R_END, 0);
            break;
        case C_RT: { /* runtime mutexes only (gen_rt_mutex): charge, then lock/unlock */
            int lock = c->a == OP_RT_MUTEX_LOCK;
            uint64_t ni = lock ? D.rt.mutex_lock : D.rt.mutex_unlock;
            if (ni && rnseg[t] && rsegs[t][rnseg[t] - 1].kind == R_OPEN)
                rsegs[t][rnseg[t] - 1].ninstr += ni;
            else if (ni)
                rsegs[t][rnseg[t]++] = (struct rseg){ni, R_OPEN, 0};
            if (!lock || c->c)
                ref_close(t, lock ? R_LOCK : R_UNLOCK, (long)c->b);
            break;
        }
        }
    }
    for (unsigned i = 0; i < nrec; i++)
        rec_arr[i] = 0;
}

struct rstate {
    unsigned idx;
    uint64_t issued, next_ok, pend, end;
    int state; /* 0 run, 1 blocked, 2 done */
    int pending;
    long dep;
    uint64_t instr;
    int spin;      /* spinning on mutex spin_m: each issue is an acquire retry */
    long spin_m;
    uint64_t spins;
};

static struct rstate rs[OP_TIMING_MAX_TASKLETS];
static uint64_t r_engine, r_busy, r_bytes[2];
static unsigned r_n, r_ndone;
static int r_holder[8]; /* runtime mutexes: holder tid, -1 free */

static void ref_unblock(long rec, uint64_t c)
{
    for (unsigned u = 0; u < r_n; u++)
        if (rs[u].state == 1 && rs[u].dep == rec) {
            rs[u].state = 0;
            rs[u].pending = 1;
            rs[u].pend = c + 1;
            if (rs[u].next_ok < c + 1)
                rs[u].next_ok = c + 1;
        }
}

/* tasklet t is at the end of its segment's instructions at cycle c */
static void ref_process(unsigned t, uint64_t c, int fi)
{
    struct rstate *p = &rs[t];
    for (;;) {
        struct rseg *g = &rsegs[t][p->idx];
        if (g->ninstr > p->issued)
            return;
        p->idx++;
        p->issued = 0;
        switch (g->kind) {
        case R_WAKE:
            rec_time[g->arg] = c;
            ref_unblock(g->arg, c);
            break;
        case R_DMA_R:
        case R_DMA_W: {
            uint64_t lat = (uint64_t)(g->kind == R_DMA_W ? 61 : 77) + (uint64_t)g->arg / 2;
            uint64_t start = c > r_engine ? c : r_engine;
            r_engine = start + lat;
            r_busy += lat;
            r_bytes[g->kind == R_DMA_W] += (uint64_t)g->arg;
            p->pending = 1;
            p->pend = r_engine;
            if (p->next_ok < r_engine)
                p->next_ok = r_engine;
            return;
        }
        case R_BLOCK:
            if (g->arg < 0 || rec_time[g->arg] == UINT64_MAX) {
                p->state = 1;
                p->dep = g->arg;
                return;
            }
            if (p->next_ok < rec_time[g->arg] + 1)
                p->next_ok = rec_time[g->arg] + 1;
            if (rec_time[g->arg] + 1 > c) {
                p->pending = 1;
                p->pend = rec_time[g->arg] + 1;
                return;
            }
            break;
        case R_LOCK: /* the acquire of the lock call: taken if free, else spin */
            if (r_holder[g->arg] < 0) {
                r_holder[g->arg] = (int)t;
                break;
            }
            p->spin = 1;
            p->spin_m = g->arg;
            return;
        case R_UNLOCK:
            r_holder[g->arg] = -1;
            break;
        case R_BAR:
            if (++rec_arr[g->arg] < rec_need[g->arg]) {
                p->state = 1;
                p->dep = g->arg;
                return;
            }
            ref_unblock(g->arg, c);
            break;
        default: /* END */
            p->state = 2;
            p->end = fi ? c + 1 : c;
            r_ndone++;
            return;
        }
    }
}

static void ref_run(unsigned n, struct op_dpu_result *res)
{
    memset(rs, 0, sizeof rs);
    r_n = n;
    r_ndone = 0;
    r_engine = r_busy = r_bytes[0] = r_bytes[1] = 0;
    for (unsigned i = 0; i < 8; i++)
        r_holder[i] = -1;
    for (unsigned t = 0; t < n; t++)
        rs[t].pending = 1; /* arrives at cycle 0 */
    unsigned rr = n - 1;
    uint64_t c;
    int deadlock = 0;
    for (c = 0;; c++) {
        for (unsigned t = 0; t < n; t++)
            if (rs[t].state == 0 && rs[t].pending && rs[t].pend == c) {
                rs[t].pending = 0;
                ref_process(t, c, 0);
            }
        for (unsigned k = 1; k <= n; k++) {
            unsigned t = (rr + k) % n;
            if (rs[t].state == 0 && !rs[t].pending && rs[t].next_ok <= c) {
                if (rs[t].spin) { /* an acquire retry: takes the mutex if free */
                    rs[t].spins++;
                    rs[t].next_ok = c + 11;
                    rr = t;
                    if (r_holder[rs[t].spin_m] < 0) {
                        r_holder[rs[t].spin_m] = (int)t;
                        rs[t].spin = 0;
                        ref_process(t, c, 1);
                    }
                    break;
                }
                rs[t].instr++;
                rs[t].issued++;
                rs[t].next_ok = c + 11;
                rr = t;
                ref_process(t, c, 1);
                break;
            }
        }
        if (r_ndone == n)
            break;
        int alive = 0;
        for (unsigned t = 0; t < n; t++)
            alive |= rs[t].state == 0;
        if (!alive) {
            deadlock = 1;
            break;
        }
    }
    memset(res, 0, sizeof *res);
    for (unsigned t = 0; t < n; t++) {
        res->tasklet_instructions[t] = rs[t].instr;
        res->instructions += rs[t].instr;
        res->spin_instructions += rs[t].spins;
        res->tasklet_end_cycle[t] = rs[t].state == 2 ? rs[t].end : c;
        if (res->tasklet_end_cycle[t] > res->cycles)
            res->cycles = res->tasklet_end_cycle[t];
    }
    res->dma_read_bytes = r_bytes[0];
    res->dma_write_bytes = r_bytes[1];
    res->dma_busy_cycles = r_busy;
    res->deadlock = deadlock;
}

/* Feed the recorded calls to the library; query mode 0: never, 1: after
 * every call, 2: at random points (each query advances the model). */
static void lib_run(struct op_dpu_trace *tr, unsigned n, int qmode, struct op_dpu_result *res)
{
    op_dpu_trace_begin(tr, &D, n);
    for (size_t i = 0; i < ncalls; i++) {
        struct call *c = &calls[i];
        switch (c->kind) {
        case C_INSTR:
            op_dpu_trace_instr(tr, c->tid, c->a);
            break;
        case C_DMA:
            op_dpu_trace_dma(tr, c->tid, (int)c->a, (uint32_t)c->b);
            break;
        case C_BLOCK:
            op_dpu_trace_block(tr, c->tid, (uintptr_t)c->a);
            break;
        case C_WAKE:
            op_dpu_trace_wake(tr, c->tid, (uintptr_t)c->a, (unsigned)c->b);
            break;
        case C_ACQ:
            op_dpu_trace_acquire(tr, c->tid, (uintptr_t)c->a);
            break;
        case C_REL:
            op_dpu_trace_release(tr, c->tid, (uintptr_t)c->a);
            break;
        case C_BAR:
            op_dpu_trace_barrier(tr, c->tid, (uintptr_t)c->a, (unsigned)c->b);
            break;
        case C_END:
            op_dpu_trace_end(tr, c->tid);
            break;
        case C_RT:
            op_dpu_trace_runtime(tr, c->tid, (enum op_rt_op)c->a, (uintptr_t)c->b, (unsigned)c->c);
            break;
        }
        if (qmode == 1 || (qmode == 2 && rndn(7) == 0))
            (void)op_dpu_trace_tasklet_cycles(tr, c->tid);
    }
    CHECK(op_dpu_model_run(tr, res) == 0);
}

static int same(const struct op_dpu_result *a, const struct op_dpu_result *b, unsigned n)
{
    if (a->cycles != b->cycles || a->instructions != b->instructions ||
        a->spin_instructions != b->spin_instructions || a->dma_read_bytes != b->dma_read_bytes ||
        a->dma_write_bytes != b->dma_write_bytes || a->dma_busy_cycles != b->dma_busy_cycles ||
        a->deadlock != b->deadlock)
        return 0;
    for (unsigned t = 0; t < n; t++)
        if (a->tasklet_instructions[t] != b->tasklet_instructions[t] ||
            a->tasklet_end_cycle[t] != b->tasklet_end_cycle[t])
            return 0;
    return 1;
}

static void test_random(void)
{
    struct op_dpu_trace *tr = op_dpu_trace_new();
    unsigned mismatches = 0, runs = 0, nondet = 0;
    for (unsigned iter = 0; iter < 400; iter++) {
        rng_state = 0x9E3779B97F4A7C15ull * (iter + 1);
        unsigned n = 1 + rndn(24);
        if (iter % 5 == 0)
            n = 11 + rndn(14);
        gen_trace(n, (int)(iter & 1));
        ref_build(n);
        struct op_dpu_result ref, lib;
        ref_run(n, &ref);
        /* determinism: a fresh trace object gives a byte-identical result */
        struct op_dpu_trace *fresh = op_dpu_trace_new();
        struct op_dpu_result a, b;
        lib_run(fresh, n, 0, &a);
        op_dpu_trace_free(fresh);
        lib_run(tr, n, 0, &b);
        if (memcmp(&a, &b, sizeof a) != 0)
            nondet++;
        for (int q = 0; q < 3; q++) {
            lib_run(tr, n, q, &lib);
            runs++;
            if (!same(&ref, &lib, n)) {
                if (mismatches++ < 5)
                    fprintf(stderr, "random trace %u (n=%u, qmode %d): lib %llu cycles, ref %llu\n", iter, n, q,
                            (unsigned long long)lib.cycles, (unsigned long long)ref.cycles);
            }
        }
    }
    printf("random traces: %u runs compared with the cycle-by-cycle reference, %u mismatches\n", runs,
           mismatches);
    CHECK(mismatches == 0);
    CHECK(nondet == 0);
    op_dpu_trace_free(tr);
}

/* The analytic jumps against the cycle-by-cycle reference and against the
 * model's own step-by-step path, on DMA-bound traces (where tasklets join
 * and leave the round-robin every few hundred cycles) with blocks/wakes,
 * mutexes and barriers; then traces through op_dpu_trace_runtime (charged
 * runtime costs, barrier wake work) against stepping alone. */
static void test_random_dma(void)
{
    struct op_dpu_trace *tr = op_dpu_trace_new(), *slow = op_dpu_trace_new();
    op_dpu_trace_set_stepping(slow, 1);
    unsigned mism_ref = 0, mism_step = 0, runs = 0;
    uint64_t dmas = 0;
    for (unsigned iter = 0; iter < 160; iter++) {
        rng_state = 0xD1B54A32D192ED03ull * (iter + 7);
        unsigned n = iter % 3 == 0 ? 11 + rndn(14) : 1 + rndn(24);
        gen_dma_heavy = 1;
        gen_rt = iter >= 110;
        gen_trace(n, (int)(iter & 1));
        struct op_dpu_result fast, step, ref;
        lib_run(tr, n, 0, &fast);
        lib_run(slow, n, 0, &step);
        runs++;
        dmas += fast.dma_reads + fast.dma_writes;
        if (!same(&fast, &step, n) && mism_step++ < 5)
            fprintf(stderr, "DMA trace %u (n=%u): jumps %llu cycles, stepping %llu\n", iter, n,
                    (unsigned long long)fast.cycles, (unsigned long long)step.cycles);
        if (!gen_rt) {
            ref_build(n);
            ref_run(n, &ref);
            if (!same(&fast, &ref, n) && mism_ref++ < 5)
                fprintf(stderr, "DMA trace %u (n=%u): lib %llu cycles, ref %llu\n", iter, n,
                        (unsigned long long)fast.cycles, (unsigned long long)ref.cycles);
        }
    }
    gen_dma_heavy = gen_rt = 0;
    printf("DMA-bound random traces: %u runs (%llu DMAs), %u mismatches with the reference, %u with stepping\n",
           runs, (unsigned long long)dmas, mism_ref, mism_step);
    CHECK(mism_ref == 0);
    CHECK(mism_step == 0);
    op_dpu_trace_free(tr);
    op_dpu_trace_free(slow);
}

/* Vector-add-shaped traces (each tasklet: read, read, long compute, write,
 * recorded in the emulator's round-robin order): the full-pipeline ring of
 * dpu_model.c runs them with tasklets leaving at every DMA and joining at
 * every completion, around the revolver's 11 (11..24 tasklets), also when
 * every call advances the model (ring entered and left at each call).
 * Checked against the cycle-by-cycle reference and the stepping path. */
static void test_ring(void)
{
    struct op_dpu_trace *tr = op_dpu_trace_new(), *slow = op_dpu_trace_new();
    op_dpu_trace_set_stepping(slow, 1);
    static const unsigned ns[] = {1, 4, 10, 11, 12, 13, 16, 16, 20, 24};
    unsigned mism = 0, runs = 0;
    for (unsigned iter = 0; iter < 2 * sizeof ns / sizeof ns[0]; iter++) {
        rng_state = 0x2545F4914F6CDD1Dull * (iter + 3);
        unsigned n = ns[iter % (sizeof ns / sizeof ns[0])], chunks = 8 + rndn(16);
        uint64_t compute = iter < sizeof ns / sizeof ns[0] ? 200 + rndn(3000) : 20 + rndn(200);
        uint32_t bytes = 8u << rndn(9); /* 8 .. 2048 */
        ncalls = 0;
        for (unsigned c = 0; c < chunks; c++)
            for (unsigned phase = 0; phase < 3; phase++)
                for (unsigned t = 0; t < n; t++) {
                    uint64_t ni = phase == 2 ? compute + rndn(8) : 1 + rndn(12);
                    emit(C_INSTR, t, ni, 0);
                    emit(C_DMA, t, phase == 2, bytes);
                }
        for (unsigned t = 0; t < n; t++) {
            emit(C_INSTR, t, 1 + rndn(5), 0);
            emit(C_END, t, 0, 0);
        }
        ref_build(n);
        struct op_dpu_result ref, step, lib;
        ref_run(n, &ref);
        lib_run(slow, n, 0, &step);
        runs++;
        if (!same(&ref, &step, n) && mism++ < 5)
            fprintf(stderr, "ring trace %u (n=%u): stepping %llu cycles, ref %llu\n", iter, n,
                    (unsigned long long)step.cycles, (unsigned long long)ref.cycles);
        for (int q = 0; q < 3; q++) {
            lib_run(tr, n, q, &lib);
            runs++;
            if (!same(&ref, &lib, n) && mism++ < 5)
                fprintf(stderr, "ring trace %u (n=%u, qmode %d): lib %llu cycles, ref %llu\n", iter, n, q,
                        (unsigned long long)lib.cycles, (unsigned long long)ref.cycles);
        }
    }
    printf("vector-add-shaped traces: %u runs, %u mismatches with the reference\n", runs, mism);
    CHECK(mism == 0);
    op_dpu_trace_free(tr);
    op_dpu_trace_free(slow);
}

/* Runtime mutexes (spinning waiters) on random traces, plain and DMA-bound,
 * 1..24 tasklets: the library (jumps, ring, every query mode) and its
 * stepping path against the cycle-by-cycle reference. */
static void test_random_mutex(void)
{
    struct op_dpu_trace *tr = op_dpu_trace_new(), *slow = op_dpu_trace_new();
    op_dpu_trace_set_stepping(slow, 1);
    unsigned mism = 0, runs = 0;
    uint64_t spins = 0;
    gen_rt_mutex = 1;
    for (unsigned iter = 0; iter < 120; iter++) {
        rng_state = 0x94D049BB133111EBull * (iter + 11);
        unsigned n = iter % 3 == 0 ? 11 + rndn(14) : 1 + rndn(24);
        if (iter < 60) {
            gen_dma_heavy = iter % 2;
            gen_trace(n, (int)(iter & 2));
        } else { /* contended: every tasklet loops around one or two mutexes,
                    some sections with a DMA inside (as TRNS's done flags) */
            ncalls = 0;
            unsigned iters = 5 + rndn(30), nm = 1 + rndn(2);
            for (unsigned i = 0; i < iters; i++)
                for (unsigned t = 0; t < n; t++) {
                    uint64_t m = rndn(nm);
                    emit(C_INSTR, t, rndn(4) == 0 ? rndn(200) : rndn(8), 0);
                    if (rndn(4) == 0)
                        emit(C_DMA, t, 0, 8u << rndn(8));
                    emit_rt(t, OP_RT_MUTEX_LOCK, m, 1);
                    emit(C_INSTR, t, rndn(10), 0);
                    if (rndn(5) == 0)
                        emit(C_DMA, t, rndn(2), 8);
                    emit(C_INSTR, t, rndn(3), 0);
                    emit_rt(t, OP_RT_MUTEX_UNLOCK, m, 0);
                }
            for (unsigned t = 0; t < n; t++)
                emit(C_END, t, 0, 0);
        }
        ref_build(n);
        struct op_dpu_result ref, res;
        ref_run(n, &ref);
        spins += ref.spin_instructions;
        lib_run(slow, n, 0, &res);
        runs++;
        if (!same(&ref, &res, n) && mism++ < 5)
            fprintf(stderr, "mutex trace %u (n=%u): stepping %llu cycles, ref %llu\n", iter, n,
                    (unsigned long long)res.cycles, (unsigned long long)ref.cycles);
        for (int q = 0; q < 3; q++) {
            lib_run(tr, n, q, &res);
            runs++;
            if (!same(&ref, &res, n) && mism++ < 5)
                fprintf(stderr, "mutex trace %u (n=%u, qmode %d): lib %llu cycles, ref %llu\n", iter, n, q,
                        (unsigned long long)res.cycles, (unsigned long long)ref.cycles);
        }
    }
    gen_rt_mutex = gen_dma_heavy = 0;
    printf("runtime-mutex random traces: %u runs (%llu spin retries), %u mismatches with the reference\n", runs,
           (unsigned long long)spins, mism);
    CHECK(spins > 0);
    CHECK(mism == 0);
    op_dpu_trace_free(tr);
    op_dpu_trace_free(slow);
}

/* k tasklets, each `iters` times: `pre` instructions, lock, `body`
 * instructions, unlock (runtime calls charging nothing), then the end. */
static struct op_dpu_result run_contended(unsigned k, unsigned iters, uint64_t pre, uint64_t body)
{
    struct op_machine_desc d = D;
    d.rt.mutex_lock = d.rt.mutex_unlock = 0;
    struct op_dpu_trace *tr = op_dpu_trace_new();
    struct op_dpu_result r;
    op_dpu_trace_begin(tr, &d, k);
    for (unsigned i = 0; i < iters; i++)
        for (unsigned t = 0; t < k; t++) {
            op_dpu_trace_instr(tr, t, pre);
            op_dpu_trace_runtime(tr, t, OP_RT_MUTEX_LOCK, 0x55, 1);
            op_dpu_trace_instr(tr, t, body);
            op_dpu_trace_runtime(tr, t, OP_RT_MUTEX_UNLOCK, 0x55, 0);
        }
    for (unsigned t = 0; t < k; t++)
        op_dpu_trace_end(tr, t);
    CHECK(op_dpu_model_run(tr, &r) == 0);
    op_dpu_trace_free(tr);
    return r;
}

/* The mechanism of a contended mutex (SDK mutex_lock: an acquire that
 * retries itself while the bit is set): the waiters stay in the pipeline,
 * so with k >= 11 tasklets the holder issues every k cycles, and the first
 * retry after the unlock, one cycle later, takes the mutex.  A critical
 * section of c instructions after the successful retry (the unlock
 * included) thus costs k*c + 1 cycles per update: 16 tasklets, c = 6 ->
 * 97 cycles (the hardware figure of a histogram with a mutex per update,
 * calibration-sources §7).  Blocked waiters (the previous model) gave 11*c + 1. */
static void test_mutex_contention(void)
{
    static const unsigned ks[] = {11, 16, 24};
    for (unsigned i = 0; i < 3; i++) {
        const unsigned k = ks[i];
        for (uint64_t c = 2; c <= 8; c += 2) {
            struct op_dpu_result a = run_contended(k, 30, 1, c), b = run_contended(k, 60, 1, c);
            CHECK_EQ_U64(b.cycles - a.cycles, 30ull * k * (k * c + 1));
            CHECK_EQ_U64(b.instructions - a.instructions, 30ull * k * (c + 1));
            CHECK(b.spin_instructions > a.spin_instructions);
        }
    }
    struct op_dpu_result a = run_contended(16, 30, 1, 6), b = run_contended(16, 60, 1, 6);
    printf("16 tasklets, a 6-instruction critical section: %.1f cycles per update\n",
           (double)(b.cycles - a.cycles) / (30.0 * 16));
    /* no contention: one tasklet never spins */
    a = run_contended(1, 50, 3, 6);
    CHECK_EQ_U64(a.spin_instructions, 0);
    CHECK_EQ_U64(a.cycles, 11 * (50 * 9 - 1) + 1);
    /* a tasklet that ends holding the mutex: the others spin forever on the
     * DPU; the model reports a deadlock instead of hanging */
    struct op_dpu_trace *tr = op_dpu_trace_new();
    struct op_dpu_result r;
    op_dpu_trace_begin(tr, &D, 3);
    for (unsigned t = 0; t < 3; t++) {
        op_dpu_trace_runtime(tr, t, OP_RT_MUTEX_LOCK, 0x66, 1);
        op_dpu_trace_instr(tr, t, 5);
        op_dpu_trace_end(tr, t);
    }
    (void)op_dpu_model_run(tr, &r);
    CHECK(r.deadlock);
    CHECK(r.spin_instructions > 0);
    op_dpu_trace_free(tr);
}

/* The memo (op_dpu_trace_set_memo) against the direct path: on random traces
 * of every kind (through the runtime as the worker records them, and with
 * direct block/wake/barrier calls that end the logging), each run of a trace
 * object with the memo on gives the byte-identical result of a fresh object
 * without it, the second run of the same calls takes the kept result, and
 * tasklet_cycles queries (during a run, after a kept result) answer the same.
 * A different machine description or tasklet count does not take it, nor does
 * a trace longer than the log; misuse is reported in result.error as before. */
static uint64_t memo_queries, memo_query_mism;

static void memo_compare(struct op_dpu_trace *memo, unsigned n, int qmode, const char *what)
{
    struct op_dpu_trace *plain = op_dpu_trace_new();
    struct op_dpu_result a, b;
    uint64_t saved = rng_state;
    lib_run(plain, n, qmode, &a);
    uint64_t after_plain = rng_state;
    rng_state = saved; /* the same query points */
    lib_run(memo, n, qmode, &b);
    CHECK(rng_state == after_plain);
    if (memcmp(&a, &b, sizeof a) != 0) {
        fprintf(stderr, "memo: %s (n=%u, qmode %d): %llu cycles, direct %llu\n", what, n, qmode,
                (unsigned long long)b.cycles, (unsigned long long)a.cycles);
        CHECK(!"memo result differs from the direct path");
    }
    /* after the run, queries see the model's final state either way */
    for (unsigned t = 0; t < n; t++) {
        memo_queries++;
        memo_query_mism += op_dpu_trace_tasklet_cycles(plain, t) != op_dpu_trace_tasklet_cycles(memo, t);
    }
    op_dpu_trace_free(plain);
}

static void test_memo(void)
{
    struct op_dpu_trace *memo = op_dpu_trace_new();
    op_dpu_trace_set_memo(memo, 1);
    unsigned runs = 0;
    for (unsigned iter = 0; iter < 120; iter++) {
        rng_state = 0xA0761D6478BD642Full * (iter + 11);
        unsigned n = iter % 4 == 0 ? 11 + rndn(14) : 1 + rndn(24);
        gen_dma_heavy = iter % 2;
        gen_rt = iter % 3 != 0;       /* the worker's calls: instr, dma, runtime, end */
        gen_rt_mutex = iter % 3 == 0; /* else also block/wake/acquire/release/barrier */
        gen_trace(n, (int)(iter & 1));
        uint64_t h0 = op_dpu_trace_memo_hits(memo);
        memo_compare(memo, n, 0, "first run");
        memo_compare(memo, n, 0, "second run");
        runs += 2;
        int direct = 0; /* calls the log does not take */
        for (size_t i = 0; i < ncalls; i++)
            direct |= calls[i].kind != C_INSTR && calls[i].kind != C_DMA && calls[i].kind != C_RT &&
                      calls[i].kind != C_END;
        /* logged whole: the second run takes the first's result */
        CHECK_EQ_U64(op_dpu_trace_memo_hits(memo) - h0, (uint64_t)!direct);
        h0 = op_dpu_trace_memo_hits(memo);
        memo_compare(memo, n, 2, "queries during the run");
        runs++;
        /* queries end the logging unless none came */
        CHECK(op_dpu_trace_memo_hits(memo) - h0 <= 1);
    }
    gen_dma_heavy = gen_rt = gen_rt_mutex = 0;

    /* another machine description, the same calls: not taken */
    rng_state = 77;
    gen_dma_heavy = gen_rt = 1;
    gen_trace(16, 1);
    memo_compare(memo, 16, 0, "kept");
    uint64_t h0 = op_dpu_trace_memo_hits(memo);
    struct op_machine_desc keep = D;
    D.dma_read_fixed += 1;
    memo_compare(memo, 16, 0, "another description");
    CHECK_EQ_U64(op_dpu_trace_memo_hits(memo), h0);
    D = keep;
    memo_compare(memo, 16, 0, "the first description again");
    CHECK_EQ_U64(op_dpu_trace_memo_hits(memo), h0 + 1);
    /* the same calls with more tasklets (the last ones only end): not taken */
    for (unsigned t = 16; t < 20; t++)
        emit(C_END, t, 0, 0);
    memo_compare(memo, 20, 0, "more tasklets");
    CHECK_EQ_U64(op_dpu_trace_memo_hits(memo), h0 + 1);
    gen_dma_heavy = gen_rt = 0;

    /* longer than the log: replayed on the way, the same result, never kept */
    ncalls = 0;
    for (unsigned i = 0; i < 6000; i++)
        for (unsigned t = 0; t < 16; t++) {
            emit(C_INSTR, t, 20 + (i + t) % 7, 0);
            emit(C_DMA, t, i & 1, 64);
        }
    for (unsigned t = 0; t < 16; t++)
        emit(C_END, t, 0, 0);
    h0 = op_dpu_trace_memo_hits(memo);
    memo_compare(memo, 16, 0, "long trace");
    memo_compare(memo, 16, 0, "long trace again");
    CHECK_EQ_U64(op_dpu_trace_memo_hits(memo), h0);

    /* misuse: a tid out of range, a call after END */
    ncalls = 0;
    emit(C_INSTR, 0, 10, 0);
    emit(C_END, 0, 0, 0);
    emit(C_INSTR, 0, 5, 0);
    emit(C_DMA, 3, 0, 64);
    emit(C_END, 1, 0, 0);
    struct op_dpu_trace *plain = op_dpu_trace_new();
    struct op_dpu_result a, b;
    op_dpu_trace_begin(plain, &D, 2);
    op_dpu_trace_begin(memo, &D, 2);
    for (size_t i = 0; i < ncalls; i++) {
        const struct call *c = &calls[i];
        int ra = c->kind == C_INSTR ? op_dpu_trace_instr(plain, c->tid, c->a)
                 : c->kind == C_DMA ? op_dpu_trace_dma(plain, c->tid, (int)c->a, (uint32_t)c->b)
                                    : op_dpu_trace_end(plain, c->tid);
        int rb = c->kind == C_INSTR ? op_dpu_trace_instr(memo, c->tid, c->a)
                 : c->kind == C_DMA ? op_dpu_trace_dma(memo, c->tid, (int)c->a, (uint32_t)c->b)
                                    : op_dpu_trace_end(memo, c->tid);
        CHECK(rb == ra);
    }
    CHECK(op_dpu_model_run(plain, &a) == -1);
    CHECK(op_dpu_model_run(memo, &b) == -1);
    CHECK(a.error && memcmp(&a, &b, sizeof a) == 0);
    op_dpu_trace_free(plain);

    printf("memo: %u runs identical to the direct path, %llu kept results taken, %llu of %llu queries differ\n",
           runs, (unsigned long long)op_dpu_trace_memo_hits(memo), (unsigned long long)memo_query_mism,
           (unsigned long long)memo_queries);
    CHECK_EQ_U64(memo_query_mism, 0);
    op_dpu_trace_free(memo);
}

static void test_speed(void)
{
    /* event-heavy: 16 tasklets x 20000 x (20 instr + 64-B read) */
    struct op_dpu_trace *tr = op_dpu_trace_new();
    struct op_dpu_result r;
    clock_t c0 = clock();
    op_dpu_trace_begin(tr, &D, 16);
    for (int i = 0; i < 20000; i++)
        for (unsigned t = 0; t < 16; t++) {
            op_dpu_trace_instr(tr, t, 20);
            op_dpu_trace_dma(tr, t, 0, 64);
        }
    for (unsigned t = 0; t < 16; t++)
        op_dpu_trace_end(tr, t);
    op_dpu_model_run(tr, &r);
    double s = (double)(clock() - c0) / CLOCKS_PER_SEC;
    printf("event-heavy trace: %llu events, %llu instructions, %llu cycles (IPC %.3f) in %.3f s = %.0f ns/event\n",
           16ull * 20000, (unsigned long long)r.instructions, (unsigned long long)r.cycles, r.ipc, s,
           s * 1e9 / (16.0 * 20000));
    CHECK_EQ_U64(r.instructions, 16ull * 20000 * 20);
    /* the DMA engine bounds it: 16*20000 DMAs of 77+32 cycles */
    CHECK(r.cycles >= 16ull * 20000 * 109);
    /* compute-heavy segments between events: analytic */
    c0 = clock();
    op_dpu_trace_begin(tr, &D, 16);
    for (int i = 0; i < 2000; i++)
        for (unsigned t = 0; t < 16; t++) {
            op_dpu_trace_instr(tr, t, 100000);
            op_dpu_trace_dma(tr, t, 1, 2048);
        }
    for (unsigned t = 0; t < 16; t++)
        op_dpu_trace_end(tr, t);
    op_dpu_model_run(tr, &r);
    s = (double)(clock() - c0) / CLOCKS_PER_SEC;
    printf("compute-heavy trace: %llu instructions, %llu cycles (IPC %.3f) in %.3f s\n",
           (unsigned long long)r.instructions, (unsigned long long)r.cycles, r.ipc, s);
    CHECK(r.ipc > 0.99);
    op_dpu_trace_free(tr);
}

int main(void)
{
    op_machine_desc_preset("v1A", &D);
    /* The hand derivations below use the round DMA constants of calibration-sources §2.2
       (77 + 0.5 B read, 61 + 0.5 B write): they test the model's mechanics,
       independently of the calibrated v1A values. */
    D.dma_read_fixed = 77;
    D.dma_write_fixed = 61;
    D.dma_cycles_per_byte = 0.5;
    test_pipeline();
    test_dma();
    test_sync();
    test_tasklet_cycles();
    test_random();
    test_random_dma();
    test_ring();
    test_runtime();
    test_random_mutex();
    test_mutex_contention();
    test_memo();
    test_speed();
    return check_done("test_dpu_model");
}
