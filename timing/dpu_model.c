/* SPDX-License-Identifier: MIT */
/* DPU model: event-driven revolver pipeline + one FIFO DMA engine per DPU.
 *
 * The recorder appends per-tasklet segments {instructions, event}; the
 * simulator consumes them in modelled-time order while they are recorded
 * (it stops, and resumes later, wherever it would need a segment that has not
 * been recorded yet), so memory stays bounded by the skew between tasklets.
 *
 * Simulation state per tasklet: RUN (next issue no sooner than next_ok),
 * BLOCKED (waiting for a wake record), DONE.  A RUN tasklet may be "pending":
 * it reaches its next segment at pend_time (after a DMA or a wake), where a
 * zero-instruction event is processed.  Within one cycle: pending arrivals
 * first (tid order), then at most one issue (round-robin after the last
 * issuer), and the events ending the issuer's segment at that same cycle.
 *
 * Steady phases are skipped analytically (try_jump): when the issue order of
 * the k runnable tasklets is known in closed form until the first of them
 * reaches its segment end or a pending tasklet joins (see try_jump), each
 * issues every max(11,k) cycles; with k >= 11 in tid order the full pipeline
 * runs as a ring that tasklets leave and join without stopping it (ring_run),
 * so DMA-bound kernels cost O(1) per DMA.  Mutexes of op_dpu_trace_runtime are held in
 * modelled time (EV_LOCK/EV_UNLOCK), and a tasklet that finds one taken spins
 * in the pipeline as on the DPU (EV_SPIN); a barrier's last arrival runs its wake-up
 * work as a segment of its own (EV_RELEASE).
 * tests/test_dpu_model.c checks this against a cycle-by-cycle reference and
 * against stepping every cycle.
 */
#include "timing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* EV_RELEASE: end of the last barrier arrival's wake-up work (a segment the
 * model inserts itself, see settle) */
/* EV_SPIN: a tasklet that found its mutex taken spins (SDK mutex_lock is an
 * `acquire` that jumps to itself while the bit is set): a segment of retries
 * that ends at the first retry issued while the mutex is free */
enum { EV_OPEN = 0, EV_NOP, EV_DMA_R, EV_DMA_W, EV_BLOCK, EV_WAKE, EV_BARRIER, EV_RELEASE, EV_LOCK, EV_UNLOCK, EV_SPIN, EV_END };
enum { T_RUN = 0, T_BLOCKED, T_DONE };

#define NONE32 0xffffffffu
#define UNSET64 UINT64_MAX
/* instructions of a spin segment while its mutex is taken: "not before an
 * unlock", far beyond any horizon the model computes */
#define SPIN_INF (1ull << 40)

struct seg {
    uint64_t ninstr;
    uint32_t kind;
    uint32_t arg; /* DMA: bytes; BLOCK/WAKE/BARRIER: record (NONE32: not matched yet) */
};

struct wrec {
    uint64_t time; /* wake/release: its cycle, UNSET64 until simulated; barrier: latest arrival */
    uint32_t refs;
    uint32_t next_free;
    uint32_t need, recorded, arrived; /* barrier rounds */
    uint64_t wake_instr;              /* barrier: run by the last arrival before the others go on */
};

struct tsk {
    /* recording */
    struct seg *segs;
    size_t cap, count, head; /* queue segs[head..count) */
    uint64_t base;           /* absolute index of segs[0] */
    int rec_ended;
    int blk_pending;         /* recorded a block(key) not matched by a wake yet */
    uintptr_t blk_key;
    uint64_t blk_abs;
    /* simulation */
    int state;
    uint64_t issued;         /* instructions issued from segs[head] */
    int64_t last_issue;      /* -1: none yet */
    uint64_t next_ok;
    int pending;
    uint64_t pend_time;
    int starved;             /* needs a segment not recorded yet */
    uint64_t arrive;
    int arrive_fi;
    uint32_t dep;            /* BLOCKED: record waited for */
    uint64_t instr, end_time;
    uint64_t spins;          /* acquire retries issued (not in the recorded instructions) */
};

/* A mutex in modelled time (op_dpu_trace_runtime MUTEX_LOCK/UNLOCK). */
struct mlock {
    int32_t holder;   /* tid, -1: free */
    uint32_t waiters; /* tids spinning on it */
};

struct hent {
    uintptr_t key;
    uint32_t rec;
    uint32_t used;
};

struct kmap {
    struct hent *e;
    size_t cap, used;
};

struct op_dpu_trace {
    const struct op_machine_desc *desc;
    unsigned n;
    struct tsk t[OP_TIMING_MAX_TASKLETS];
    /* next_ok of the RUN tasklets not pending, UNSET64 for the others: the
     * issue choice scans this instead of the tasklet structures */
    uint64_t ready[OP_TIMING_MAX_TASKLETS];
    struct wrec *recs;
    uint32_t nrecs, caprecs, free_head;
    struct kmap locks;    /* key -> last release */
    struct kmap barriers; /* key -> current round */
    struct kmap mutexes;  /* key -> index in mlocks */
    struct mlock *mlocks;
    uint32_t nmlocks, capmlocks;
    /* constants */
    uint64_t period;
    uint64_t dma_ovl;
    /* simulation */
    uint64_t now;
    unsigned rr;
    uint64_t engine_free;
    unsigned ndone;
    int final, finished, deadlock, error;
    uint64_t dma_bytes[2], dma_count[2], dma_busy;
    int stepping;      /* tests only: no analytic jumps */
    /* the last issues, for detecting periodic round-robin phases */
    uint64_t nissue;
    uint64_t hist_cyc[64];
    uint8_t hist_tid[64];
    uint64_t jump_at;  /* no jump attempt before this cycle (speed only) */
    uint64_t pend_min; /* lower bound of the pending tasklets' pend_time */
    uint32_t pendmask; /* the pending tasklets (all RUN) */
    uint32_t lat_bytes[2]; /* the last DMA size of each direction and its latency */
    uint64_t lat_cycles[2];
    /* the full-pipeline ring (ring_run; valid while it runs): visits are
     * keys lap * 32 + tid, in issue order, one per cycle */
    uint32_t ring_m;   /* members */
    unsigned ring_k;   /* their number */
    uint64_t ring_key, ring_entry; /* the last visit; the last one before the ring */
    uint64_t ring_v0[OP_TIMING_MAX_TASKLETS];  /* member's first visit in the ring (since it joined) */
    uint64_t ring_end[OP_TIMING_MAX_TASKLETS]; /* member's visit issuing its segment's last instruction */
    uint64_t ring_fin[OP_TIMING_MAX_TASKLETS]; /* visit at which a tasklet last left the ring */
    int ring_on;       /* ring_run is running (mutex events update spinners' ends) */
    int ring_dirty;    /* a mutex event changed ring_end[] */
    uint32_t spinmask; /* tasklets spinning on a mutex */
    /* auto-advance */
    size_t buffered, advance_at;
    /* memo (see "memo" below): this run's calls while they are logged, and
     * the results of earlier runs */
    int memo;          /* op_dpu_trace_set_memo */
    int logging;       /* this run's calls go to the log, not to the model (yet) */
    int memo_hit;      /* this run's result is an earlier run's (memo_res) */
    uint32_t log_ended; /* tasklets whose END is logged */
    struct lcall *log;
    size_t nlog, caplog;
    struct memo_entry *memo_tab; /* MEMO_ENTRIES */
    uint64_t memo_clock, memo_hits;
    struct op_dpu_result memo_res;
};

/* ------------------------------------------------------------------------ */
/* helpers                                                                   */
/* ------------------------------------------------------------------------ */

static inline uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static uint32_t rec_new(struct op_dpu_trace *tr)
{
    uint32_t id;
    if (tr->free_head != NONE32) {
        id = tr->free_head;
        tr->free_head = tr->recs[id].next_free;
    } else {
        if (tr->nrecs == tr->caprecs) {
            uint32_t nc = tr->caprecs ? tr->caprecs * 2 : 64;
            struct wrec *r = realloc(tr->recs, nc * sizeof *r);
            if (!r) {
                tr->error = 1;
                return NONE32;
            }
            tr->recs = r;
            tr->caprecs = nc;
        }
        id = tr->nrecs++;
    }
    tr->recs[id].time = UNSET64;
    tr->recs[id].refs = 0;
    tr->recs[id].next_free = NONE32;
    tr->recs[id].need = tr->recs[id].recorded = tr->recs[id].arrived = 0;
    tr->recs[id].wake_instr = 0;
    return id;
}

static void rec_unref(struct op_dpu_trace *tr, uint32_t id)
{
    if (id == NONE32 || tr->recs[id].refs == 0)
        return;
    if (--tr->recs[id].refs == 0) {
        tr->recs[id].next_free = tr->free_head;
        tr->free_head = id;
    }
}

/* key -> record (acquire/release, barriers).  Open addressing. */
static size_t khash(uintptr_t key, size_t cap)
{
    return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
}

static struct hent *map_get(struct op_dpu_trace *tr, struct kmap *m, uintptr_t key, int create)
{
    if (m->cap == 0 && !create)
        return NULL;
    if (create && (m->used + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        struct hent *e = calloc(nc, sizeof *e);
        if (!e) {
            tr->error = 1;
            return NULL;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->e[i].used) {
                size_t h = khash(m->e[i].key, nc);
                while (e[h].used)
                    h = (h + 1) & (nc - 1);
                e[h] = m->e[i];
            }
        free(m->e);
        m->e = e;
        m->cap = nc;
    }
    size_t h = khash(key, m->cap);
    while (m->e[h].used) {
        if (m->e[h].key == key)
            return &m->e[h];
        h = (h + 1) & (m->cap - 1);
    }
    if (!create)
        return NULL;
    m->e[h].used = 1;
    m->e[h].key = key;
    m->e[h].rec = NONE32;
    m->used++;
    return &m->e[h];
}

static void map_clear(struct kmap *m)
{
    if (m->e)
        memset(m->e, 0, m->cap * sizeof *m->e);
    m->used = 0;
}

static int push_seg(struct op_dpu_trace *tr, struct tsk *t, uint64_t ninstr, uint32_t kind, uint32_t arg)
{
    if (t->count == t->cap) {
        if (t->head > 0 && t->head * 2 >= t->count) { /* compact */
            memmove(t->segs, t->segs + t->head, (t->count - t->head) * sizeof *t->segs);
            t->base += t->head;
            t->count -= t->head;
            t->head = 0;
        } else {
            size_t nc = t->cap ? t->cap * 2 : 64;
            struct seg *s = realloc(t->segs, nc * sizeof *s);
            if (!s) {
                tr->error = 1;
                return -1;
            }
            t->segs = s;
            t->cap = nc;
        }
    }
    t->segs[t->count].ninstr = ninstr;
    t->segs[t->count].kind = kind;
    t->segs[t->count].arg = arg;
    t->count++;
    tr->buffered++;
    return 0;
}

static inline struct seg *head_seg(struct tsk *t)
{
    return t->head < t->count ? &t->segs[t->head] : NULL;
}

/* Instructions the tasklet issues until its head segment ends: a spinner
 * ends at its next retry if the mutex is free, else SPIN_INF (an unlock is an
 * event of another tasklet, so every horizon stops before it). */
static inline uint64_t seg_left(const struct op_dpu_trace *tr, const struct tsk *t)
{
    const struct seg *s = &t->segs[t->head];
    if (s->kind == EV_SPIN)
        return tr->mlocks[s->arg].holder < 0 ? 1 : SPIN_INF;
    return s->ninstr - t->issued;
}

static void pop_seg(struct op_dpu_trace *tr, struct tsk *t)
{
    t->head++;
    t->issued = 0;
    tr->buffered--;
    if (t->head == t->count) { /* empty queue: restart at the buffer start */
        t->base += t->count;
        t->head = t->count = 0;
    }
}

/* ------------------------------------------------------------------------ */
/* simulation                                                                */
/* ------------------------------------------------------------------------ */

static inline void upd_ready(struct op_dpu_trace *tr, unsigned id)
{
    const struct tsk *t = &tr->t[id];
    tr->ready[id] = t->state == T_RUN && !t->pending ? t->next_ok : UNSET64;
}

static void make_pending(struct op_dpu_trace *tr, struct tsk *t, uint64_t time)
{
    tr->ready[t - tr->t] = UNSET64;
    tr->pendmask |= 1u << (t - tr->t);
    t->pending = 1;
    t->pend_time = time;
    if (time < tr->pend_min)
        tr->pend_min = time;
}

/* The tasklets blocked on record rec issue no sooner than one cycle after
 * `time`; then drops the reference of whoever released them (the wake event,
 * or the tasklet that completed a barrier round). */
static void release_waiters(struct op_dpu_trace *tr, uint32_t rec, uint64_t time)
{
    for (unsigned i = 0; i < tr->n; i++) {
        struct tsk *u = &tr->t[i];
        if (u->state == T_BLOCKED && u->dep == rec) {
            u->state = T_RUN;
            u->dep = NONE32;
            u->next_ok = max64(u->next_ok, time + 1);
            make_pending(tr, u, time + 1);
            rec_unref(tr, rec);
        }
    }
    rec_unref(tr, rec);
}

static void wake_record(struct op_dpu_trace *tr, uint32_t rec, uint64_t time)
{
    if (rec == NONE32)
        return;
    tr->recs[rec].time = time;
    release_waiters(tr, rec, time);
}

/* Puts a segment before the head (the slot of the one just popped, or an
 * empty queue's first). */
static int push_front(struct op_dpu_trace *tr, struct tsk *t, uint64_t ninstr, uint32_t kind, uint32_t arg)
{
    if (t->head == 0)
        return t->count == 0 ? push_seg(tr, t, ninstr, kind, arg) : -1;
    t->head--;
    t->segs[t->head].ninstr = ninstr;
    t->segs[t->head].kind = kind;
    t->segs[t->head].arg = arg;
    t->issued = 0;
    tr->buffered++;
    return 0;
}

static void ring_spinners(struct op_dpu_trace *tr, uint32_t waiters, int freed);

/* Tasklet id reached the end of its head segment's known instructions at
 * `time` (fi: time is one of its issue cycles).  Process closed events.
 * Returns 1 if it needs a segment that has not been recorded yet. */
static int settle_events(struct op_dpu_trace *tr, unsigned id, uint64_t time, int fi);

static int settle(struct op_dpu_trace *tr, unsigned id, uint64_t time, int fi)
{
    int r = settle_events(tr, id, time, fi);
    upd_ready(tr, id);
    return r;
}

static int settle_events(struct op_dpu_trace *tr, unsigned id, uint64_t time, int fi)
{
    struct tsk *t = &tr->t[id];
    for (;;) {
        struct seg *s = head_seg(t);
        if (s && s->ninstr > t->issued)
            return 0;
        if (!s || s->kind == EV_OPEN) {
            t->starved = 1;
            t->arrive = time;
            t->arrive_fi = fi;
            return 1;
        }
        uint32_t kind = s->kind, arg = s->arg;
        uint64_t spun = s->ninstr;
        pop_seg(tr, t);
        switch (kind) {
        case EV_NOP:
            break;
        case EV_WAKE:
            wake_record(tr, arg, time);
            break;
        case EV_DMA_R:
        case EV_DMA_W: {
            int w = kind == EV_DMA_W;
            if (arg != tr->lat_bytes[w]) { /* DMA sizes repeat: compute each once */
                tr->lat_bytes[w] = arg;
                tr->lat_cycles[w] = op_dpu_dma_cycles(tr->desc, w, arg);
            }
            uint64_t lat = tr->lat_cycles[w];
            uint64_t start = max64(time, tr->engine_free);
            uint64_t done = start + lat;
            tr->engine_free = done - min64(tr->dma_ovl, lat);
            tr->dma_busy += tr->engine_free - start;
            tr->dma_bytes[w] += arg;
            tr->dma_count[w]++;
            t->next_ok = max64(t->next_ok, done);
            make_pending(tr, t, done);
            return 0;
        }
        case EV_BLOCK: {
            if (arg == NONE32 || tr->recs[arg].time == UNSET64) {
                t->state = T_BLOCKED;
                t->dep = arg;
                return 0;
            }
            uint64_t w = tr->recs[arg].time;
            rec_unref(tr, arg);
            t->next_ok = max64(t->next_ok, w + 1);
            if (w + 1 > time) {
                make_pending(tr, t, w + 1);
                return 0;
            }
            break;
        }
        case EV_BARRIER: {
            struct wrec *r = &tr->recs[arg];
            r->arrived++;
            r->time = r->arrived == 1 ? time : max64(r->time, time);
            if (r->arrived < r->need) {
                t->state = T_BLOCKED;
                t->dep = arg;
                return 0;
            }
            if (r->wake_instr) {
                /* the last arrival (in modelled time) first runs the wake-up
                 * work, then releases the others: a segment of its own */
                if (push_front(tr, t, r->wake_instr, EV_RELEASE, arg) == 0)
                    break;
                tr->error = 1;
            }
            release_waiters(tr, arg, time);
            break;
        }
        case EV_RELEASE:
            release_waiters(tr, arg, time);
            break;
        case EV_LOCK: {
            /* the lock call's last instruction was an acquire: taken if the
             * mutex is free, else the tasklet retries at each of its issue
             * slots (it stays in the pipeline, as on the DPU) */
            struct mlock *m = &tr->mlocks[arg];
            if (m->holder < 0) {
                m->holder = (int32_t)id;
                if (m->waiters && tr->ring_on) /* freed in this cycle, before their retries */
                    ring_spinners(tr, m->waiters, 0);
                break;
            }
            if (push_front(tr, t, SPIN_INF, EV_SPIN, arg) < 0) {
                tr->error = 1;
                break;
            }
            m->waiters |= 1u << id;
            tr->spinmask |= 1u << id;
            return 0;
        }
        case EV_SPIN: {
            /* a retry issued while the mutex was free: taken; the other
             * spinners go on retrying */
            struct mlock *m = &tr->mlocks[arg];
            t->spins += spun;
            if (m->holder >= 0) { /* cannot happen: retaken before this retry */
                tr->error = 1;
                break;
            }
            m->waiters &= ~(1u << id);
            tr->spinmask &= ~(1u << id);
            m->holder = (int32_t)id;
            if (m->waiters && tr->ring_on)
                ring_spinners(tr, m->waiters, 0);
            break;
        }
        case EV_UNLOCK: {
            /* the first spinner to retry after this cycle takes it */
            struct mlock *m = &tr->mlocks[arg];
            m->holder = -1;
            if (m->waiters && tr->ring_on)
                ring_spinners(tr, m->waiters, 1);
            break;
        }
        case EV_END:
        default:
            t->state = T_DONE;
            t->end_time = fi ? time + 1 : time;
            tr->ndone++;
            return 0;
        }
    }
}

static int issue(struct op_dpu_trace *tr, unsigned id, uint64_t c)
{
    struct tsk *t = &tr->t[id];
    t->instr++;
    t->issued++;
    t->last_issue = (int64_t)c;
    t->next_ok = c + tr->period;
    tr->rr = id;
    tr->hist_cyc[tr->nissue & 63] = c;
    tr->hist_tid[tr->nissue & 63] = (uint8_t)id;
    tr->nissue++;
    struct seg *s = &t->segs[t->head];
    if (t->issued == s->ninstr)
        return settle(tr, id, c, 1);
    if (s->kind == EV_SPIN && tr->mlocks[s->arg].holder < 0) { /* this retry takes it */
        s->ninstr = t->issued;
        return settle(tr, id, c, 1);
    }
    tr->ready[id] = t->next_ok;
    return 0;
}

/* Full pipeline (k > P tasklets in S, none other eligible before the
 * horizon), not in cyclic tid order: S issued once each in [now-k, now-1]
 * (every cycle a distinct member).  The choice at a cycle depends only on the
 * members' relative last issues and on the last issuer, so if
 * [now-2k, now-k-1] held the same sequence with no idle cycle, it repeats
 * with period k.  Fills each member's next issue cycle. */
static int periodic(const struct op_dpu_trace *tr, const unsigned *S, unsigned k, uint64_t *first)
{
    const uint64_t now = tr->now;
    for (unsigned j = 0; j < k; j++) {
        const struct tsk *t = &tr->t[S[j]];
        if (t->last_issue < 0 || t->next_ok != (uint64_t)t->last_issue + tr->period ||
            (uint64_t)t->last_issue + k < now)
            return 0;
        first[j] = (uint64_t)t->last_issue + k;
    }
    if (tr->nissue < 2 * (uint64_t)k)
        return 0;
    for (unsigned j = 0; j < 2 * k; j++)
        if (tr->hist_cyc[(tr->nissue - 1 - j) & 63] != now - 1 - j)
            return 0;
    for (unsigned j = 0; j < k; j++)
        if (tr->hist_tid[(tr->nissue - 1 - j) & 63] != tr->hist_tid[(tr->nissue - 1 - j - k) & 63])
            return 0;
    return 1;
}

/* ------------------------------------------------------------------------ */
/* the full-pipeline ring                                                    */
/* ------------------------------------------------------------------------ */
/* With the runnable tasklets M in cyclic tid order after the last issuer,
 * each eligible by its turn, the member after the last issuer issues at
 * every cycle: a pointer sweeping the tids, visiting the members, one per
 * cycle.  A member visited at c next issues after the other members present
 * at c have each been visited once (they leave only at their own visit), so
 * if |M| >= P at every visit, everyone is eligible at its turn and the sweep
 * goes on however members leave (their segment ends at a visit) and join (a
 * DMA completes: the joiner takes its place in tid order, after checking it
 * is eligible by its first turn).  Issue counts are then functions of the
 * sweep: visit keys lap * 32 + tid grow with time, a member is visited at
 * every lap from its first key, and a segment's end is a key known when the
 * member joins — so a join or a leave costs O(1) plus a scan of 24 keys, not
 * a pass over every tasklet (DMA-bound kernels change M every few hundred
 * cycles).  tests/test_dpu_model.c checks it against a cycle-by-cycle
 * reference. */

#define POP2(n) n, n + 1, n + 1, n + 2
#define POP4(n) POP2(n), POP2(n + 1), POP2(n + 1), POP2(n + 2)
#define POP6(n) POP4(n), POP4(n + 1), POP4(n + 1), POP4(n + 2)
static const uint8_t pop8[256] = {POP6(0), POP6(1), POP6(1), POP6(2)};

/* tids fit in 24 bits: three lookups (without a popcnt instruction,
 * __builtin_popcount is a libgcc call, slower) */
static inline unsigned popc(uint32_t x)
{
#ifdef __POPCNT__
    return (unsigned)__builtin_popcount(x);
#else
    return (unsigned)pop8[x & 255] + pop8[(x >> 8) & 255] + pop8[(x >> 16) & 255];
#endif
}

static inline uint32_t above(unsigned tid) { return ~((2u << tid) - 1); }  /* tids > tid */
static inline uint32_t upto(unsigned tid) { return (2u << tid) - 1; }      /* tids <= tid */

/* member visits with keys in (from, to], M constant */
static uint64_t ring_count(const struct op_dpu_trace *tr, uint64_t from, uint64_t to)
{
    const uint32_t M = tr->ring_m;
    uint64_t lf = from >> 5, lt = to >> 5;
    unsigned rf = (unsigned)(from & 31), rt = (unsigned)(to & 31);
    if (lf == lt)
        return (uint64_t)popc(M & above(rf) & upto(rt));
    return (uint64_t)popc(M & above(rf)) + (lt - lf - 1) * tr->ring_k +
           (uint64_t)popc(M & upto(rt));
}

static unsigned select_bit(uint32_t m, uint64_t i) /* i-th set bit, from 0 */
{
    unsigned base = 0;
    for (unsigned c; i >= (c = pop8[m & 255]); i -= c) /* whole bytes */
        m >>= 8, base += 8;
    for (; i; i--)
        m &= m - 1;
    return base + (unsigned)__builtin_ctz(m);
}

/* key of the d-th (d >= 1) member visit after key `from`, M constant */
static uint64_t ring_seek(const struct op_dpu_trace *tr, uint64_t from, uint64_t d)
{
    const uint32_t M = tr->ring_m, ahead = M & above((unsigned)(from & 31));
    uint64_t lap = from >> 5, a = (uint64_t)popc(ahead);
    if (d <= a)
        return lap * 32 + select_bit(ahead, d - 1);
    d -= a;
    const uint64_t k = tr->ring_k;
    uint64_t laps, rest;
    if (d <= UINT32_MAX) { /* a 32-bit division is faster */
        laps = (uint32_t)(d - 1) / (uint32_t)k;
        rest = (uint32_t)(d - 1) % (uint32_t)k;
    } else {
        laps = (d - 1) / k;
        rest = (d - 1) % k;
    }
    return (lap + 1 + laps) * 32 + select_bit(M, rest);
}

/* tid joins the ring, whose next visit is at tr->now: 0, or -1 if it would
 * not be eligible by its first turn */
static int ring_join(struct op_dpu_trace *tr, unsigned id)
{
    const struct tsk *t = &tr->t[id];
    const uint64_t from = tr->ring_key;
    uint64_t v0 = (from & ~(uint64_t)31) + id;
    if (v0 <= from)
        v0 += 32;
    /* its first visit: after the members' visits in (from, v0), from now on */
    if (t->next_ok > tr->now && t->next_ok > tr->now + ring_count(tr, from, v0))
        return -1;
    tr->ring_m |= 1u << id;
    tr->ring_k++;
    tr->ring_v0[id] = v0;
    const uint64_t left = seg_left(tr, t);
    tr->ring_end[id] = left == SPIN_INF ? UNSET64 : v0 + 32 * (left - 1);
    return 0;
}

/* A mutex event inside the ring: its spinning members end (take it) at their
 * next visit after the current one if it was freed, else never. */
static void ring_spinners(struct op_dpu_trace *tr, uint32_t waiters, int freed)
{
    const uint64_t from = tr->ring_key;
    for (uint32_t w = waiters & tr->ring_m; w; w &= w - 1) {
        unsigned i = (unsigned)__builtin_ctz(w);
        uint64_t v = UNSET64;
        if (freed) {
            v = (from & ~(uint64_t)31) + i;
            if (v <= from)
                v += 32;
            v = max64(v, tr->ring_v0[i]);
        }
        tr->ring_end[i] = v;
    }
    tr->ring_dirty = 1;
}

/* The first segment end among the members: its key and cycle. */
static void ring_next_end(const struct op_dpu_trace *tr, uint64_t *key, uint64_t *cyc)
{
    const unsigned n = tr->n;
    uint64_t a = UNSET64, b = UNSET64; /* two chains: shorter dependencies */
    for (unsigned i = 0; i + 1 < n; i += 2) {
        a = min64(a, tr->ring_end[i]);
        b = min64(b, tr->ring_end[i + 1]);
    }
    if (n & 1)
        a = min64(a, tr->ring_end[n - 1]);
    *key = min64(a, b);
    *cyc = *key == UNSET64 ? UNSET64 : tr->now + ring_count(tr, tr->ring_key, *key) - 1;
}

/* Leave the ring: the members' issues up to the last visit (at tr->now - 1)
 * become their state again. */
static void ring_exit(struct op_dpu_trace *tr)
{
    const uint64_t kp = tr->ring_key, P = tr->period;
    const unsigned n = tr->n;
    uint64_t last[OP_TIMING_MAX_TASKLETS];
    /* the cycles of the visits of the last lap, latest first */
    uint64_t c = tr->now - 1;
    for (uint64_t key = kp; key > tr->ring_entry && key + 32 > kp; key--) {
        unsigned x = (unsigned)(key & 31);
        if (x >= n)
            continue;
        if (((tr->ring_m >> x & 1) && tr->ring_v0[x] <= key) || tr->ring_fin[x] == key)
            last[x] = c--;
    }
    for (uint32_t m = tr->ring_m; m; m &= m - 1) {
        unsigned id = (unsigned)__builtin_ctz(m);
        struct tsk *t = &tr->t[id];
        if (kp < tr->ring_v0[id])
            continue; /* not visited yet */
        uint64_t cnt = (kp - tr->ring_v0[id]) / 32 + 1;
        t->instr += cnt;
        t->issued += cnt;
        t->last_issue = (int64_t)last[id];
        t->next_ok = last[id] + P;
        tr->ready[id] = t->next_ok;
    }
    if (kp != tr->ring_entry)
        tr->rr = (unsigned)(kp & 31);
    tr->ring_m = 0;
    tr->ring_on = 0;
    tr->nissue = 0; /* the issue history misses the ring's */
}

/* Pending arrivals at tj (<= the next segment end), before tj's visit, in
 * tid order as in advance().  They join the ring; -1: one cannot (the ring
 * must stop), 1: one starved, else 0.  e_key/e_cyc (the next segment end)
 * follow the joins. */
static int ring_arrivals(struct op_dpu_trace *tr, uint64_t tj, uint64_t *e_key, uint64_t *e_cyc)
{
    if (tj > tr->now)
        tr->ring_key = ring_seek(tr, tr->ring_key, tj - tr->now);
    tr->now = tj;
    tr->pend_min = UNSET64;
    int ok = 1;
    for (uint32_t pm = tr->pendmask; pm; pm &= pm - 1) {
        unsigned i = (unsigned)__builtin_ctz(pm);
        struct tsk *t = &tr->t[i];
        if (t->pend_time > tj) {
            tr->pend_min = min64(tr->pend_min, t->pend_time);
            continue;
        }
        t->pending = 0;
        tr->pendmask &= ~(1u << i);
        tr->ring_dirty = 0;
        if (settle(tr, i, t->pend_time, 0)) {
            tr->pend_min = 0; /* recompute on resume */
            return 1;
        }
        if (tr->ring_dirty) /* a mutex event moved spinners' ends */
            ring_next_end(tr, e_key, e_cyc);
        if (t->state != T_RUN || t->pending)
            continue;
        if (!ok || ring_join(tr, i) < 0) {
            ok = 0;
            continue;
        }
        /* the joiner's visits before the next end delay it; or it ends first */
        const uint64_t v0 = tr->ring_v0[i], end = tr->ring_end[i];
        if (end < *e_key)
            ring_next_end(tr, e_key, e_cyc);
        else if (*e_key != UNSET64 && v0 < *e_key)
            *e_cyc += (*e_key - v0) / 32 + 1;
    }
    return ok ? 0 : -1;
}

/* Run the ring from tr->now with the members S (cyclic tid order after rr,
 * S[j] eligible by now + j, k >= P) while |M| >= P.  Returns 1 if the model
 * must wait for more recording (a tasklet starved), else 0 (the stepping loop
 * goes on at tr->now). */
static int ring_run(struct op_dpu_trace *tr, const unsigned *S, unsigned k)
{
    const unsigned n = tr->n;
    const uint64_t P = tr->period;
    tr->ring_m = 0;
    tr->ring_k = 0;
    tr->ring_on = 1;
    tr->ring_key = tr->ring_entry = tr->rr;
    for (unsigned i = 0; i < n; i++) {
        tr->ring_end[i] = UNSET64;
        tr->ring_fin[i] = UNSET64;
    }
    for (unsigned j = 0; j < k; j++)
        if (ring_join(tr, S[j]) < 0) { /* the caller checked: cannot happen */
            ring_exit(tr);
            return 0;
        }
    /* pend_min is a lower bound: make it exact; the ring keeps it so
     * (ring_arrivals recomputes it, make_pending lowers it) */
    tr->pend_min = UNSET64;
    for (uint32_t pm = tr->pendmask; pm; pm &= pm - 1)
        tr->pend_min = min64(tr->pend_min, tr->t[__builtin_ctz(pm)].pend_time);
    uint64_t e_key, e_cyc;
    ring_next_end(tr, &e_key, &e_cyc);
    for (;;) {
        if (e_key == UNSET64 && tr->pend_min == UNSET64) { /* only spinners, nobody to unlock */
            ring_exit(tr);
            return 0;
        }
        if (tr->pend_min <= e_cyc) {
            int r = ring_arrivals(tr, tr->pend_min, &e_key, &e_cyc);
            if (r) {
                ring_exit(tr);
                return r > 0;
            }
            continue;
        }
        /* member e issues the last instruction of its segment at e_cyc */
        const unsigned e = (unsigned)(e_key & 31); /* a key holds its tid */
        struct tsk *t = &tr->t[e];
        uint64_t cnt = (e_key - tr->ring_v0[e]) / 32 + 1;
        t->instr += cnt;
        t->issued += cnt;
        if (t->segs[t->head].kind == EV_SPIN) /* the retry that takes the mutex */
            t->segs[t->head].ninstr = t->issued;
        t->last_issue = (int64_t)e_cyc;
        t->next_ok = e_cyc + P;
        tr->ring_key = e_key;
        tr->now = e_cyc + 1;
        tr->ring_m &= ~(1u << e);
        tr->ring_k--;
        tr->ring_end[e] = UNSET64;
        tr->ring_fin[e] = e_key;
        tr->rr = e;
        if (settle(tr, e, e_cyc, 1)) {
            ring_exit(tr);
            return 1;
        }
        if (t->state == T_RUN && !t->pending) { /* its next segment: visited from the next lap */
            tr->ring_m |= 1u << e;
            tr->ring_k++;
            tr->ring_v0[e] = e_key + 32;
            const uint64_t left = seg_left(tr, t);
            tr->ring_end[e] = left == SPIN_INF ? UNSET64 : e_key + 32 * left;
        } else if (tr->ring_k < P) {
            ring_exit(tr);
            return 0;
        }
        ring_next_end(tr, &e_key, &e_cyc);
    }
}

/* Skip a steady round-robin phase analytically (see the file comment): the
 * ring when k >= P tasklets are in cyclic order already, else a jump.
 *
 * E = the runnable tasklets not waiting for a DMA or a wake; nobody else can
 * become eligible before tjoin (the first pending arrival).  Two regimes have
 * a closed form until tjoin or the first segment end:
 *  - |E| = k <= P (revolver): if the first issue cycles s_m = max(now,
 *    next_ok_m) are distinct modulo P, at most one tasklet is eligible at any
 *    cycle, so each issues at s_m, s_m + P, s_m + 2P, ...;
 *  - k > P: order E cyclically in tid order after the last issuer rr; if the
 *    j-th (j = 0..k-1) is eligible by now + j, each issues at now + j, then
 *    every k cycles: at its turn it is the first eligible after rr (tasklets
 *    outside E are not eligible) and, after the first round, it has waited
 *    k > P cycles.
 * Both hold right after a tasklet joins or leaves, so DMA-bound code, where
 * they change every few hundred cycles, is not stepped cycle by cycle.
 * Returns 1 if the model must wait for more recording (from ring_run).
 * tests/test_dpu_model.c checks the result against a cycle-by-cycle
 * reference and against stepping alone (op_dpu_trace_set_stepping). */
/* Steps cycle by cycle exactly as advance() does, but on the few fields an
 * issue changes, while nothing else can happen: it stops before a pending
 * arrival (tjoin), before an issue that would end a segment, and at once if
 * a tasklet spins on a mutex.  After a join the regimes of try_jump need a
 * round of issues (the revolver's residues to spread, the ring's order or
 * periodic()'s history to form); this makes them for the price of a loop
 * over the tasklets per issue.  Returns the number of issues made. */
static unsigned fast_steps(struct op_dpu_trace *tr, uint64_t tjoin, unsigned max)
{
    if (tr->spinmask)
        return 0;
    const unsigned n = tr->n;
    const uint64_t P = tr->period;
    uint64_t c = tr->now;
    unsigned rr = tr->rr, done = 0;
    while (done < max && c < tjoin) {
        unsigned best = NONE32;
        uint64_t soonest = UNSET64;
        for (unsigned k = 1, id = rr; k <= n; k++) { /* the first eligible after rr, as advance() */
            if (++id == n)
                id = 0;
            if (tr->ready[id] <= c) {
                best = id;
                break;
            }
            soonest = min64(soonest, tr->ready[id]);
        }
        if (best == NONE32) { /* idle until the next eligible tasklet */
            if (soonest >= tjoin)
                break;
            c = soonest;
            continue;
        }
        struct tsk *t = &tr->t[best];
        const struct seg *sg = &t->segs[t->head];
        if (sg->kind == EV_SPIN || t->issued + 1 >= sg->ninstr)
            break; /* its segment would end: settle_events' business */
        t->instr++;
        t->issued++;
        t->last_issue = (int64_t)c;
        t->next_ok = c + P;
        tr->ready[best] = t->next_ok;
        tr->hist_cyc[tr->nissue & 63] = c;
        tr->hist_tid[tr->nissue & 63] = (uint8_t)best;
        tr->nissue++;
        rr = best;
        c++;
        done++;
    }
    if (done) {
        tr->now = c;
        tr->rr = rr;
    }
    return done;
}

static int try_jump_from(struct op_dpu_trace *tr, int fast);

static int try_jump(struct op_dpu_trace *tr)
{
    return try_jump_from(tr, 1);
}

/* fast: a failed regime check may take fast_steps() once and try again */
static int try_jump_from(struct op_dpu_trace *tr, int fast)
{
    const uint64_t P = tr->period, now = tr->now;
    if (now < tr->jump_at || tr->stepping)
        return 0;
    unsigned S[OP_TIMING_MAX_TASKLETS], k = 0;
    uint64_t tjoin = UNSET64;
    const unsigned n = tr->n;
    /* the runnable tasklets not pending are those with a ready cycle (upd_ready) */
    for (unsigned c = 0, id = tr->rr; c < n; c++) { /* tid order after rr */
        if (++id == n)
            id = 0;
        if (tr->ready[id] != UNSET64)
            S[k++] = id;
    }
    for (uint32_t pm = tr->pendmask; pm; pm &= pm - 1)
        tjoin = min64(tjoin, tr->t[__builtin_ctz(pm)].pend_time);
    const uint64_t per = k > P ? k : P;
    /* On failure, wait a little before the next attempt: attempts cost a
     * scan; skipping some only means stepping a few more cycles exactly. */
    tr->jump_at = now + per / 2;
    if (k > P) { /* the ring, if S is in cyclic order already (k == P: the revolver jump below, as cheap
                  * and not left at the next leave) */
        unsigned j = 0;
        while (j < k && tr->t[S[j]].next_ok <= now + j)
            j++;
        if (j == k)
            return ring_run(tr, S, k);
    }
    if (k == 0 || tjoin <= now)
        return 0;
    /* candidate first issues and the horizon, before the (costlier) checks
     * that the regime holds: too close a horizon is not worth a jump */
    uint64_t first[OP_TIMING_MAX_TASKLETS];
    uint64_t H = tjoin;
    for (unsigned j = 0; j < k; j++) {
        const struct tsk *t = &tr->t[S[j]];
        first[j] = k > P ? now + j : max64(now, t->next_ok);
        H = min64(H, first[j] + (seg_left(tr, t) - 1) * per);
    }
    if (H > now + SPIN_INF) /* only spinners whose mutexes nobody can unlock */
        return 0;
    if (H < now + 2 * per) {
        tr->jump_at = H; /* the horizon is an event or a join */
        return 0;
    }
    if (k > P) {
        unsigned j = 0;
        while (j < k && tr->t[S[j]].next_ok <= now + j)
            j++;
        if (j < k) {
            if (!periodic(tr, S, k, first)) {
                if (fast && fast_steps(tr, tjoin, 2 * k)) {
                    tr->jump_at = 0;
                    return try_jump_from(tr, 0);
                }
                return 0;
            }
            H = tjoin;
            for (unsigned i = 0; i < k; i++) {
                const struct tsk *t = &tr->t[S[i]];
                H = min64(H, first[i] + (seg_left(tr, t) - 1) * per);
            }
            if (H < now + 2 * per)
                return 0;
        }
    } else {
        uint64_t used = 0; /* residues mod P relative to now, when P <= 64 */
        for (unsigned j = 0; j < k; j++) {
            uint64_t d = first[j] - now, r = d < P ? d : d % P;
            int clash = 0;
            if (P <= 64) {
                clash = used >> r & 1;
                used |= 1ull << r;
            } else {
                for (unsigned i = 0; i < j && !clash; i++)
                    clash = (first[i] - now) % P == r;
            }
            if (clash) { /* a round of issues spreads the residues */
                if (fast && fast_steps(tr, tjoin, k)) {
                    tr->jump_at = 0;
                    return try_jump_from(tr, 0);
                }
                return 0;
            }
        }
    }
    uint64_t lastc = 0;
    unsigned lastid = tr->rr;
    int any = 0;
    /* issues of member j in [now, H-1]: one division for those starting
     * within the first period (all but far-off joiners) */
    const uint64_t span = H - 1 - now, rounds = span / per, extra = span % per;
    for (unsigned j = 0; j < k; j++) {
        struct tsk *t = &tr->t[S[j]];
        uint64_t s = first[j];
        if (s > H - 1)
            continue;
        uint64_t off = s - now;
        uint64_t cnt = off < per ? rounds + (off <= extra) : (H - 1 - s) / per + 1;
        t->instr += cnt;
        t->issued += cnt;
        t->last_issue = (int64_t)(s + (cnt - 1) * per);
        t->next_ok = (uint64_t)t->last_issue + P;
        tr->ready[S[j]] = t->next_ok;
        if (!any || (uint64_t)t->last_issue > lastc) {
            lastc = (uint64_t)t->last_issue;
            lastid = S[j];
            any = 1;
        }
    }
    tr->rr = lastid;
    tr->now = H;
    return 0;
}

/* Every runnable tasklet spins on a taken mutex: nothing can unlock it. */
static int spin_stuck(const struct op_dpu_trace *tr)
{
    for (unsigned i = 0; i < tr->n; i++) {
        const struct tsk *t = &tr->t[i];
        if (t->state != T_RUN)
            continue;
        if (!(tr->spinmask >> i & 1) || tr->mlocks[t->segs[t->head].arg].holder < 0)
            return 0;
    }
    return 1;
}

/* Run as far as the recorded segments allow.  1: finished, 0: needs more. */
static int advance(struct op_dpu_trace *tr)
{
    if (tr->finished)
        return 1;
    for (unsigned i = 0; i < tr->n; i++) {
        struct tsk *t = &tr->t[i];
        if (!t->starved)
            continue;
        struct seg *s = head_seg(t);
        if (!s || (s->ninstr <= t->issued && s->kind == EV_OPEN))
            return 0;
        t->starved = 0;
        if (settle(tr, i, t->arrive, t->arrive_fi))
            return 0;
    }
    const unsigned n = tr->n;
    for (;;) {
        const uint64_t now = tr->now;
        if (tr->pend_min <= now) {
            uint64_t m = UNSET64;
            tr->pend_min = UNSET64; /* settle() may lower it again */
            /* in tid order; settle() touches no other pending tasklet, and
             * those it makes pending lower pend_min */
            for (uint32_t pm = tr->pendmask; pm; pm &= pm - 1) {
                unsigned i = (unsigned)__builtin_ctz(pm);
                struct tsk *t = &tr->t[i];
                if (t->pend_time <= now) {
                    t->pending = 0;
                    tr->pendmask &= ~(1u << i);
                    if (settle(tr, i, t->pend_time, 0)) {
                        tr->pend_min = 0; /* recompute on resume */
                        return 0;
                    }
                } else if (t->pend_time < m) {
                    m = t->pend_time;
                }
            }
            if (m < tr->pend_min)
                tr->pend_min = m;
        }
        if (tr->ndone == n) {
            tr->finished = 1;
            return 1;
        }
        if (tr->spinmask && !tr->pendmask && spin_stuck(tr)) {
            if (!tr->final)
                return 0;
            tr->deadlock = 1; /* would spin forever (a hang on the DPU) */
            tr->finished = 1;
            return 1;
        }
        unsigned best = NONE32;
        for (unsigned k = 1, id = tr->rr; k <= n; k++) {
            if (++id == n)
                id = 0;
            if (tr->ready[id] <= now) {
                best = id;
                break;
            }
        }
        if (best == NONE32) {
            uint64_t next_t = UNSET64;
            for (unsigned i = 0; i < n; i++) {
                const struct tsk *t = &tr->t[i];
                if (t->state == T_RUN)
                    next_t = min64(next_t, t->pending ? t->pend_time : t->next_ok);
            }
            if (next_t == UNSET64) { /* everyone left is blocked */
                if (!tr->final)
                    return 0;
                tr->deadlock = 1;
                tr->finished = 1;
                return 1;
            }
            tr->now = next_t;
            continue;
        }
        int st = issue(tr, best, now);
        tr->now = now + 1;
        if (st || try_jump(tr))
            return 0;
    }
}


/* ------------------------------------------------------------------------ */
/* memo                                                                      */
/* ------------------------------------------------------------------------ */
/* DPUs running the same program on data of the same shape record the same
 * calls (the emulator's order is that of the modelled clocks), and the
 * model's result is a function of the calls, the machine description, the
 * tasklet count and the stepping flag alone.  With the memo on, a run's
 * recording calls (instr, dma, runtime, end) go to a log; at
 * op_dpu_model_run the result of an earlier run with byte-identical inputs is
 * taken (compared whole, not by a hash), else the log is replayed into the
 * model, call by call as it was made, and its result kept.  A call the log
 * does not take (the others, a query of op_dpu_trace_tasklet_cycles, misuse
 * the log cannot judge, a log beyond MEMO_LOG_MAX) first replays the log: the
 * rest of the run goes to the model directly.  Results are those of the
 * direct path, bit for bit (tests/test_dpu_model.c: test_memo). */

#define MEMO_ENTRIES 8
#define MEMO_LOG_MAX ((size_t)1 << 17) /* calls: 2 MB */

enum { L_INSTR = 0, L_DMA, L_RT, L_END };

struct lcall {
    uint8_t kind, tid, op, zero; /* op: the DMA's direction, the runtime's operation */
    uint32_t arg;                /* DMA: bytes; runtime: its arg */
    uint64_t val;                /* instructions; runtime: key */
};
_Static_assert(sizeof(struct lcall) == 16 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "struct lcall: two little-endian words, no padding (memo_log, memo_find)");

struct memo_entry {
    struct lcall *log; /* NULL: free */
    size_t nlog;
    unsigned n;
    int stepping;
    uint64_t used; /* memo_clock of its last hit */
    struct op_machine_desc desc;
    struct op_dpu_result res;
};

/* Replays the log into the model; the run's calls go there from now on (the
 * log stays, for memo_keep). */
static void memo_flush(struct op_dpu_trace *tr)
{
    if (!tr->logging)
        return;
    tr->logging = 0;
    for (size_t i = 0; i < tr->nlog; i++) {
        const struct lcall *c = &tr->log[i];
        switch (c->kind) {
        case L_INSTR:
            op_dpu_trace_instr(tr, c->tid, c->val);
            break;
        case L_DMA:
            op_dpu_trace_dma(tr, c->tid, c->op, c->arg);
            break;
        case L_RT:
            op_dpu_trace_runtime(tr, c->tid, (enum op_rt_op)c->op, (uintptr_t)c->val, c->arg);
            break;
        default:
            op_dpu_trace_end(tr, c->tid);
            break;
        }
    }
}

/* Room for one more call (the log grows up to MEMO_LOG_MAX): 0, else the
 * log is replayed (-1). */
static __attribute__((noinline)) int memo_grow(struct op_dpu_trace *tr)
{
    size_t nc = tr->caplog ? tr->caplog * 2 : 1024;
    struct lcall *l = nc <= MEMO_LOG_MAX ? realloc(tr->log, nc * sizeof *l) : NULL;
    if (!l) {
        memo_flush(tr);
        return -1;
    }
    tr->log = l;
    tr->caplog = nc;
    return 0;
}

/* Logs a call if the log takes it (0); else replays the log (-1: the caller
 * goes on directly).  tid's checks are rec_tsk's.  Every recorded call of a
 * DPU run comes here: the common path is short. */
static inline int memo_log(struct op_dpu_trace *tr, unsigned kind, unsigned tid, unsigned op, uint32_t arg,
                           uint64_t val)
{
    if (tid >= tr->n || (tr->log_ended >> tid & 1)) {
        memo_flush(tr);
        return -1;
    }
    if (kind == L_INSTR) {
        struct lcall *last = tr->nlog ? &tr->log[tr->nlog - 1] : NULL;
        if (val == 0)
            return 0;
        if (last && last->kind == L_INSTR && last->tid == tid && last->val + val >= val) {
            last->val += val; /* instr calls merge, as in the model */
            return 0;
        }
    }
    if (tr->nlog == tr->caplog && memo_grow(tr) < 0)
        return -1;
    /* one 16-byte store: kind, tid, op, zero, arg, val (little-endian) */
    uint64_t w[2] = {kind | tid << 8 | op << 16 | (uint64_t)arg << 32, val};
    memcpy(&tr->log[tr->nlog++], w, sizeof w);
    if (kind == L_END)
        tr->log_ended |= 1u << tid;
    return 0;
}

static struct memo_entry *memo_find(struct op_dpu_trace *tr)
{
    for (unsigned i = 0; tr->memo_tab && i < MEMO_ENTRIES; i++) {
        struct memo_entry *e = &tr->memo_tab[i];
        if (e->log && e->nlog == tr->nlog && e->n == tr->n && e->stepping == tr->stepping &&
            memcmp(e->log, tr->log, tr->nlog * sizeof *tr->log) == 0 &&
            memcmp(&e->desc, tr->desc, sizeof e->desc) == 0)
            return e;
    }
    return NULL;
}

/* Keeps this run's log and result in place of the least recently used entry. */
static void memo_keep(struct op_dpu_trace *tr, const struct op_dpu_result *res)
{
    if (tr->nlog == 0 || res->error)
        return;
    if (!tr->memo_tab && !(tr->memo_tab = calloc(MEMO_ENTRIES, sizeof *tr->memo_tab)))
        return;
    struct memo_entry *e = &tr->memo_tab[0];
    for (unsigned i = 1; i < MEMO_ENTRIES && e->log; i++)
        if (!tr->memo_tab[i].log || tr->memo_tab[i].used < e->used)
            e = &tr->memo_tab[i];
    struct lcall *l = e->nlog >= tr->nlog && e->log ? e->log : realloc(e->log, tr->nlog * sizeof *l);
    if (!l)
        return;
    memcpy(l, tr->log, tr->nlog * sizeof *l);
    e->log = l;
    e->nlog = tr->nlog;
    e->n = tr->n;
    e->stepping = tr->stepping;
    e->used = ++tr->memo_clock;
    memcpy(&e->desc, tr->desc, sizeof e->desc);
    e->res = *res;
}

static void maybe_advance(struct op_dpu_trace *tr)
{
    if (tr->buffered < tr->advance_at)
        return;
    advance(tr);
    /* back off while the model cannot consume (tasklets far apart) */
    tr->advance_at = tr->buffered * 2 > 256 ? tr->buffered * 2 : 256;
}

/* ------------------------------------------------------------------------ */
/* public API                                                                */
/* ------------------------------------------------------------------------ */

struct op_dpu_trace *op_dpu_trace_new(void)
{
    struct op_dpu_trace *tr = calloc(1, sizeof *tr);
    if (tr)
        tr->free_head = NONE32;
    return tr;
}

void op_dpu_trace_free(struct op_dpu_trace *tr)
{
    if (!tr)
        return;
    for (unsigned i = 0; i < OP_TIMING_MAX_TASKLETS; i++)
        free(tr->t[i].segs);
    free(tr->recs);
    for (unsigned i = 0; tr->memo_tab && i < MEMO_ENTRIES; i++)
        free(tr->memo_tab[i].log);
    free(tr->memo_tab);
    free(tr->log);
    free(tr->locks.e);
    free(tr->barriers.e);
    free(tr->mutexes.e);
    free(tr->mlocks);
    free(tr);
}

void op_dpu_trace_set_stepping(struct op_dpu_trace *tr, int on)
{
    if (tr)
        tr->stepping = on != 0;
}

void op_dpu_trace_set_memo(struct op_dpu_trace *tr, int on)
{
    if (tr)
        tr->memo = on != 0;
}

uint64_t op_dpu_trace_memo_hits(const struct op_dpu_trace *tr)
{
    return tr ? tr->memo_hits : 0;
}

int op_dpu_trace_begin(struct op_dpu_trace *tr, const struct op_machine_desc *desc, unsigned nr_tasklets)
{
    if (!tr)
        return -1;
    for (unsigned i = 0; i < OP_TIMING_MAX_TASKLETS; i++) {
        struct tsk *t = &tr->t[i];
        struct seg *segs = t->segs;
        size_t cap = t->cap;
        memset(t, 0, sizeof *t);
        t->segs = segs;
        t->cap = cap;
        t->last_issue = -1;
        t->dep = NONE32;
        t->state = T_RUN;
        t->pending = 1;
        t->pend_time = 0;
        tr->ready[i] = UNSET64;
    }
    tr->pend_min = 0;
    tr->pendmask = 0;
    tr->lat_bytes[0] = tr->lat_bytes[1] = UINT32_MAX;
    tr->nrecs = 0;
    tr->free_head = NONE32;
    map_clear(&tr->locks);
    map_clear(&tr->barriers);
    map_clear(&tr->mutexes);
    tr->nmlocks = 0;
    tr->spinmask = 0;
    tr->ring_on = tr->ring_dirty = 0;
    tr->now = 0;
    tr->engine_free = 0;
    tr->ndone = 0;
    tr->final = tr->finished = tr->deadlock = tr->error = 0;
    tr->dma_bytes[0] = tr->dma_bytes[1] = tr->dma_count[0] = tr->dma_count[1] = tr->dma_busy = 0;
    tr->nissue = 0;
    tr->jump_at = 0;
    tr->buffered = 0;
    tr->advance_at = 256;
    tr->desc = desc;
    tr->logging = tr->memo_hit = 0;
    tr->nlog = 0;
    tr->log_ended = 0;
    if (!desc || nr_tasklets == 0 || nr_tasklets > OP_TIMING_MAX_TASKLETS) {
        tr->n = 1;
        tr->error = 1;
        return -1;
    }
    tr->logging = tr->memo;
    tr->n = nr_tasklets;
    tr->pendmask = (uint32_t)((1ull << nr_tasklets) - 1); /* all start pending at 0 */
    tr->rr = nr_tasklets - 1; /* tasklet 0 issues first */
    tr->period = desc->revolver_cycles ? desc->revolver_cycles : 1;
    tr->dma_ovl = (uint64_t)desc->dma_overlap_cycles;
    return 0;
}

static struct tsk *rec_tsk(struct op_dpu_trace *tr, unsigned tid)
{
    if (!tr)
        return NULL;
    if (tid >= tr->n || tr->t[tid].rec_ended || tr->final) {
        tr->error = 1;
        return NULL;
    }
    return &tr->t[tid];
}

/* Close the open tail segment with an event (or add an empty one). */
static int close_with(struct op_dpu_trace *tr, struct tsk *t, uint32_t kind, uint32_t arg)
{
    if (t->count > t->head && t->segs[t->count - 1].kind == EV_OPEN) {
        t->segs[t->count - 1].kind = kind;
        t->segs[t->count - 1].arg = arg;
        return 0;
    }
    return push_seg(tr, t, 0, kind, arg);
}

/* Recording calls while the run is logged: see "memo". */
#define LOGGED(tr) ((tr) && (tr)->logging && !(tr)->final)

int op_dpu_trace_instr(struct op_dpu_trace *tr, unsigned tid, uint64_t n)
{
    if (LOGGED(tr) && memo_log(tr, L_INSTR, tid, 0, 0, n) == 0)
        return 0;
    struct tsk *t = rec_tsk(tr, tid);
    if (!t)
        return -1;
    if (n == 0)
        return 0;
    if (t->count > t->head && t->segs[t->count - 1].kind == EV_OPEN) {
        t->segs[t->count - 1].ninstr += n;
        return 0;
    }
    return push_seg(tr, t, n, EV_OPEN, 0);
}

int op_dpu_trace_dma(struct op_dpu_trace *tr, unsigned tid, int is_write, uint32_t bytes)
{
    if (LOGGED(tr) && memo_log(tr, L_DMA, tid, is_write != 0, bytes, 0) == 0)
        return 0;
    struct tsk *t = rec_tsk(tr, tid);
    if (!t || close_with(tr, t, is_write ? EV_DMA_W : EV_DMA_R, bytes) < 0)
        return -1;
    maybe_advance(tr);
    return 0;
}

int op_dpu_trace_block(struct op_dpu_trace *tr, unsigned tid, uintptr_t key)
{
    if (LOGGED(tr))
        memo_flush(tr);
    struct tsk *t = rec_tsk(tr, tid);
    if (!t || t->blk_pending || close_with(tr, t, EV_BLOCK, NONE32) < 0) {
        if (tr)
            tr->error = 1;
        return -1;
    }
    t->blk_pending = 1;
    t->blk_key = key;
    t->blk_abs = t->base + t->count - 1;
    maybe_advance(tr);
    return 0;
}

unsigned op_dpu_trace_wake(struct op_dpu_trace *tr, unsigned tid, uintptr_t key, unsigned count)
{
    if (LOGGED(tr))
        memo_flush(tr);
    struct tsk *t = rec_tsk(tr, tid);
    if (!t)
        return 0;
    uint32_t rec = NONE32;
    unsigned woken = 0;
    for (unsigned i = 0; i < tr->n && woken < count; i++) {
        struct tsk *u = &tr->t[i];
        if (i == tid || !u->blk_pending || u->blk_key != key)
            continue;
        if (rec == NONE32) {
            rec = rec_new(tr);
            if (rec == NONE32)
                return woken;
            tr->recs[rec].refs = 1; /* the wake event */
        }
        u->blk_pending = 0;
        tr->recs[rec].refs++;
        if (u->blk_abs >= u->base + u->head)
            u->segs[u->blk_abs - u->base].arg = rec; /* not simulated yet */
        else
            u->dep = rec; /* the model already waits on it */
        woken++;
    }
    if (woken) {
        if (close_with(tr, t, EV_WAKE, rec) < 0)
            return woken;
        maybe_advance(tr);
    }
    return woken;
}

int op_dpu_trace_acquire(struct op_dpu_trace *tr, unsigned tid, uintptr_t key)
{
    if (LOGGED(tr))
        memo_flush(tr);
    struct tsk *t = rec_tsk(tr, tid);
    if (!t)
        return -1;
    struct hent *h = map_get(tr, &tr->locks, key, 0);
    if (!h || h->rec == NONE32)
        return 0; /* first acquisition: nothing to wait for */
    tr->recs[h->rec].refs++;
    if (close_with(tr, t, EV_BLOCK, h->rec) < 0)
        return -1;
    maybe_advance(tr);
    return 0;
}

int op_dpu_trace_release(struct op_dpu_trace *tr, unsigned tid, uintptr_t key)
{
    if (LOGGED(tr))
        memo_flush(tr);
    struct tsk *t = rec_tsk(tr, tid);
    if (!t)
        return -1;
    struct hent *h = map_get(tr, &tr->locks, key, 1);
    if (!h)
        return -1;
    uint32_t rec = rec_new(tr);
    if (rec == NONE32)
        return -1;
    tr->recs[rec].refs = 2; /* the release event + the key map */
    rec_unref(tr, h->rec);
    h->rec = rec;
    if (close_with(tr, t, EV_WAKE, rec) < 0)
        return -1;
    maybe_advance(tr);
    return 0;
}

static int barrier_arrive(struct op_dpu_trace *tr, unsigned tid, uintptr_t key, unsigned count,
                          uint64_t wake_instr)
{
    struct tsk *t = rec_tsk(tr, tid);
    if (!t)
        return -1;
    if (count <= 1)
        return 0;
    struct hent *h = map_get(tr, &tr->barriers, key, 1);
    if (!h)
        return -1;
    if (h->rec == NONE32 || tr->recs[h->rec].recorded >= tr->recs[h->rec].need) { /* new round */
        uint32_t rec = rec_new(tr);
        if (rec == NONE32)
            return -1;
        tr->recs[rec].need = count;
        tr->recs[rec].wake_instr = wake_instr;
        tr->recs[rec].refs = 1; /* the key map */
        rec_unref(tr, h->rec);
        h->rec = rec;
    }
    struct wrec *r = &tr->recs[h->rec];
    r->recorded++;
    r->refs++; /* this arrival */
    if (close_with(tr, t, EV_BARRIER, h->rec) < 0)
        return -1;
    maybe_advance(tr);
    return 0;
}

/* Lock / unlock of a mutex in modelled time: whoever reaches the lock first
 * (in modelled cycles) takes it, whatever the emulator's order was. */
static int mutex_event(struct op_dpu_trace *tr, unsigned tid, uintptr_t key, uint32_t kind)
{
    struct tsk *t = rec_tsk(tr, tid);
    if (!t)
        return -1;
    struct hent *h = map_get(tr, &tr->mutexes, key, 1);
    if (!h)
        return -1;
    if (h->rec == NONE32) {
        if (tr->nmlocks == tr->capmlocks) {
            uint32_t nc = tr->capmlocks ? tr->capmlocks * 2 : 16;
            struct mlock *m = realloc(tr->mlocks, nc * sizeof *m);
            if (!m) {
                tr->error = 1;
                return -1;
            }
            tr->mlocks = m;
            tr->capmlocks = nc;
        }
        h->rec = tr->nmlocks++;
        tr->mlocks[h->rec].holder = -1;
        tr->mlocks[h->rec].waiters = 0;
    }
    if (close_with(tr, t, kind, h->rec) < 0)
        return -1;
    maybe_advance(tr);
    return 0;
}

int op_dpu_trace_barrier(struct op_dpu_trace *tr, unsigned tid, uintptr_t key, unsigned count)
{
    if (LOGGED(tr))
        memo_flush(tr);
    return barrier_arrive(tr, tid, key, count, 0);
}

unsigned op_dpu_runtime_instructions(const struct op_machine_desc *desc, enum op_rt_op op)
{
    const struct op_runtime_costs *c = &desc->rt;
    switch (op) {
    case OP_RT_BARRIER_WAIT: return c->barrier_wait;
    case OP_RT_MUTEX_LOCK: return c->mutex_lock;
    case OP_RT_MUTEX_UNLOCK: return c->mutex_unlock;
    case OP_RT_SEM_TAKE: return c->sem_take;
    case OP_RT_SEM_GIVE: return c->sem_give;
    case OP_RT_HANDSHAKE_WAIT: return c->handshake_wait;
    case OP_RT_HANDSHAKE_NOTIFY: return c->handshake_notify;
    case OP_RT_MEM_ALLOC: return c->mem_alloc;
    case OP_RT_MEM_RESET: return c->mem_reset;
    case OP_RT_PERFCOUNTER: return c->perfcounter;
    case OP_RT_BOOT: return c->boot;
    case OP_RT_DMA_CALL: return c->dma_call;
    case OP_RT_COUNT: break;
    }
    return 0;
}

uint64_t op_dpu_dma_cycles(const struct op_machine_desc *desc, int is_write, uint32_t bytes)
{
    return (uint64_t)ceil((is_write ? desc->dma_write_fixed : desc->dma_read_fixed) +
                          desc->dma_cycles_per_byte * (double)bytes);
}

int op_dpu_trace_runtime(struct op_dpu_trace *tr, unsigned tid, enum op_rt_op op, uintptr_t key, unsigned arg)
{
    if (LOGGED(tr) && (unsigned)op < OP_RT_COUNT && memo_log(tr, L_RT, tid, (unsigned)op, arg, key) == 0)
        return 0;
    if (LOGGED(tr))
        memo_flush(tr);
    if (!tr || !tr->desc || tid >= tr->n || (unsigned)op >= OP_RT_COUNT) {
        if (tr)
            tr->error = 1;
        return -1;
    }
    if (op_dpu_trace_instr(tr, tid, op_dpu_runtime_instructions(tr->desc, op)) < 0)
        return -1;
    switch (op) {
    case OP_RT_BARRIER_WAIT:
        return barrier_arrive(tr, tid, key, arg,
                              arg > 1 ? (uint64_t)tr->desc->rt.barrier_wake_per_tasklet * (arg - 1) : 0);
    case OP_RT_MUTEX_LOCK:
        return arg ? mutex_event(tr, tid, key, EV_LOCK) : 0;
    case OP_RT_MUTEX_UNLOCK:
        return mutex_event(tr, tid, key, EV_UNLOCK);
    case OP_RT_SEM_TAKE:
        return arg ? op_dpu_trace_block(tr, tid, key) : 0;
    case OP_RT_SEM_GIVE:
        if (arg)
            op_dpu_trace_wake(tr, tid, key, 1);
        return 0;
    case OP_RT_HANDSHAKE_WAIT:
        return arg ? barrier_arrive(tr, tid, key, 2, 0) : 0;
    case OP_RT_HANDSHAKE_NOTIFY:
        return barrier_arrive(tr, tid, key, 2, 0);
    default: /* instructions only */
        return 0;
    }
}

int op_dpu_trace_end(struct op_dpu_trace *tr, unsigned tid)
{
    if (LOGGED(tr) && memo_log(tr, L_END, tid, 0, 0, 0) == 0)
        return 0;
    struct tsk *t = rec_tsk(tr, tid);
    if (!t || close_with(tr, t, EV_END, 0) < 0)
        return -1;
    t->rec_ended = 1;
    maybe_advance(tr);
    return 0;
}

static int model_result(struct op_dpu_trace *tr, struct op_dpu_result *res);

uint64_t op_dpu_trace_tasklet_cycles(struct op_dpu_trace *tr, unsigned tid)
{
    if (!tr || tid >= tr->n)
        return 0;
    if (tr->memo_hit) { /* after op_dpu_model_run took a result: the model's state, as if it had run */
        struct op_dpu_result r;
        tr->memo_hit = tr->final = 0;
        memo_flush(tr);
        model_result(tr, &r);
    }
    if (LOGGED(tr))
        memo_flush(tr);
    advance(tr);
    struct tsk *t = &tr->t[tid];
    if (t->state == T_DONE)
        return t->end_time;
    /* what the model has not simulated yet for this tasklet */
    uint64_t unissued = 0, lat = 0;
    int events = 0;
    for (size_t i = t->head; i < t->count; i++) {
        uint32_t k = t->segs[i].kind;
        if (k != EV_SPIN)
            unissued += t->segs[i].ninstr - (i == t->head ? t->issued : 0);
        if (k == EV_DMA_R || k == EV_DMA_W)
            lat += op_dpu_dma_cycles(tr->desc, k == EV_DMA_W, t->segs[i].arg);
        if (k != EV_OPEN)
            events++;
    }
    uint64_t at;
    if (t->starved)
        at = t->arrive + (t->arrive_fi ? 1 : 0);
    else if (t->pending)
        at = t->pend_time;
    else if (t->state == T_BLOCKED)
        at = tr->now;
    else
        at = t->last_issue >= 0 ? (uint64_t)t->last_issue + 1 : 0;
    if (unissued == 0 && events == 0)
        return at;
    unsigned nrun = 0;
    for (unsigned i = 0; i < tr->n; i++)
        nrun += tr->t[i].state == T_RUN;
    uint64_t per = nrun > tr->period ? nrun : tr->period;
    uint64_t start = max64(at, tr->now);
    return start + (unissued ? (unissued - 1) * per + 1 : 0) + lat;
}

int op_dpu_model_run(struct op_dpu_trace *tr, struct op_dpu_result *res)
{
    if (!tr || !res)
        return -1;
    if (tr->memo_hit) {
        *res = tr->memo_res;
        return res->error ? -1 : 0;
    }
    if (!LOGGED(tr))
        return model_result(tr, res);
    struct memo_entry *e = memo_find(tr);
    if (e) {
        e->used = ++tr->memo_clock;
        tr->memo_hits++;
        tr->memo_res = e->res;
        tr->memo_hit = tr->final = 1;
        *res = e->res;
        return res->error ? -1 : 0;
    }
    memo_flush(tr);
    int rc = model_result(tr, res);
    memo_keep(tr, res);
    return rc;
}

static int model_result(struct op_dpu_trace *tr, struct op_dpu_result *res)
{
    memset(res, 0, sizeof *res);
    if (tr->desc && !tr->final) {
        for (unsigned i = 0; i < tr->n; i++)
            if (!tr->t[i].rec_ended) {
                if (close_with(tr, &tr->t[i], EV_END, 0) == 0)
                    tr->t[i].rec_ended = 1;
            }
        tr->final = 1;
        if (!tr->error)
            advance(tr);
    }
    res->nr_tasklets = tr->n;
    uint64_t cycles = 0;
    for (unsigned i = 0; i < tr->n && i < OP_TIMING_MAX_TASKLETS; i++) {
        struct tsk *t = &tr->t[i];
        uint64_t spins = t->spins; /* + a spin left unfinished (deadlock) */
        if (t->state == T_RUN && t->head < t->count && t->segs[t->head].kind == EV_SPIN)
            spins += t->issued;
        res->tasklet_instructions[i] = t->instr - spins;
        res->instructions += t->instr - spins;
        res->spin_instructions += spins;
        uint64_t end = t->state == T_DONE ? t->end_time : tr->now;
        res->tasklet_end_cycle[i] = end;
        cycles = max64(cycles, end);
    }
    res->cycles = cycles;
    res->dma_read_bytes = tr->dma_bytes[0];
    res->dma_write_bytes = tr->dma_bytes[1];
    res->dma_reads = tr->dma_count[0];
    res->dma_writes = tr->dma_count[1];
    res->dma_busy_cycles = tr->dma_busy;
    res->ipc = cycles ? (double)res->instructions / (double)cycles : 0.0;
    res->time_us = tr->desc ? op_cycles_to_us(tr->desc, cycles) : 0.0;
    res->deadlock = tr->deadlock;
    res->error = tr->error || !tr->finished;
    return res->error ? -1 : 0;
}
