/* SPDX-License-Identifier: MIT */
/* The tasklet scheduler of a worker (see tasklets.h): coroutine switches
 * (switch.S), the tasklets' modelled clocks, and the choice of the tasklet
 * that runs next.
 *
 *   service stacks      op_sched_init, enter
 *   clocks and limits   op_sched_next_cycle ... set_limits
 *   choosing            first_two, give_way, op_sched_yield, op_sched_point
 *   block, wake, exit   op_sched_block, op_sched_wake, op_sched_exit
 *   a launch            op_sched_run
 */
#define _GNU_SOURCE
#include "tasklets.h"

#include <stddef.h>
#include <sys/mman.h>

/* Under AddressSanitizer, a launch that ended with tasklets stopped inside a
 * service (a fault, a deadline) leaves the redzones of their frames marked on
 * the service stacks; the next launch clears them before it builds its first
 * frames there. */
#if defined(__SANITIZE_ADDRESS__)
#define OP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OP_ASAN 1
#endif
#endif
#ifdef OP_ASAN
#include <sanitizer/asan_interface.h>
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

void op_switch(void **save_sp, void *next_sp);
void op_tasklet_start(void);

#define GUARD 4096u

/* Instructions a tasklet may run past the next tasklet's clock in code that
 * has no switch point per access (loops over arrays), before its loop's back
 * edge gives way: larger saves switches, smaller follows the pipeline more
 * closely there (bench/emulation_speed and bench/scale measure the cost). */
#define QUANTUM_FAR 4096u

static struct op_sched *running;
static struct op_env *running_env;

/* Service stacks (switch.S): one per tasklet, in the worker's own memory
 * above 4 GB; op_service_sp is the running tasklet's. */
#define SERVICE_STACK (128u << 10)
uintptr_t op_service_sp;
static uint8_t *service_stacks;

int op_sched_init(unsigned max_tasklets)
{
    void *p = mmap(NULL, (uint64_t)(SERVICE_STACK + GUARD) * max_tasklets, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED || (uintptr_t)p < ((uint64_t)1 << 32))
        return -1;
    service_stacks = p;
    for (unsigned i = 0; i < max_tasklets; i++)
        if (mprotect(service_stacks + (uint64_t)i * (SERVICE_STACK + GUARD), GUARD, PROT_NONE) != 0)
            return -1;
    return 0;
}

/* DPU code is compiled with split-stack prologues (x32: they compare the
 * stack pointer with %fs:0x40, a word of the thread control block glibc leaves
 * unused) and calls __morestack, the runtime's stack-overflow fault, when a
 * frame would not fit above `lo`. */
void op_sched_set_stack_limit(uint32_t lo)
{
    __asm__ volatile("movq %0, %%fs:0x40" : : "r"((uint64_t)lo) : "memory");
}

struct op_sched *op_sched_current(void)
{
    return running;
}

void op_sched_account(struct op_sched *s)
{
    struct op_tasklet *t = &s->t[s->cur];
    uint64_t now = *s->icount, n = now - t->count;
    if (!n)
        return;
    t->count = now;
    t->instructions += n;
    if (s->hooks.ran)
        s->hooks.ran(s->hooks.ctx, s->cur, n);
}

/* ---- clocks and limits ---------------------------------------------------- */

/* op_sched_next_cycle, _event_cycle, _charge, _hold: tasklets.h (inline, at every DMA) */

/* The order is a list of the runnable tasklets sorted by key (link: next
 * and previous of each, NIL the anchor): a clock that jumps after a DMA
 * usually goes to the end, one that moves a little stays near the front, so
 * keeping it sorted costs a few predictable steps rather than a pass over
 * every tasklet at each DMA. */
#define NIL OP_MAX_TASKLETS

static void unlink_tasklet(struct op_sched *s, unsigned i)
{
    s->link[s->back[i]] = s->link[i];
    s->back[s->link[i]] = s->back[i];
    s->nrun--;
    s->runmask &= ~(1u << i);
}

/* i goes before x (x may be NIL: at the end) */
static void link_before(struct op_sched *s, unsigned i, unsigned x)
{
    s->link[i] = (uint8_t)x;
    s->back[i] = s->back[x];
    s->link[s->back[x]] = (uint8_t)i;
    s->back[x] = (uint8_t)i;
    s->nrun++;
    s->runmask |= 1u << i;
}

/* Tasklet i's clock or state changed: its place in the order (the earlier
 * clock first, the lower tid on a tie). */
static void reorder(struct op_sched *s, unsigned i)
{
    if (s->order[i] != UINT64_MAX)
        unlink_tasklet(s, i);
    uint64_t key = s->t[i].state == OP_T_RUNNABLE ? s->t[i].next << 5 | i : UINT64_MAX;
    s->order[i] = key;
    if (key == UINT64_MAX)
        return;
    unsigned x = s->back[NIL];
    if (x == NIL || s->order[x] < key) {
        link_before(s, i, NIL);
        return;
    }
    for (x = s->link[NIL]; s->order[x] < key; x = s->link[x])
        ;
    link_before(s, i, x);
}

/* The first two of the order (UINT64_MAX: none). */
static void first_two(const struct op_sched *s, uint64_t *one, uint64_t *two)
{
    unsigned a = s->link[NIL];
    *one = a == NIL ? UINT64_MAX : s->order[a];
    *two = a == NIL || s->link[a] == NIL ? UINT64_MAX : s->order[s->link[a]];
}

/* Division by per (set_limits, at every switch) as a multiplication:
 * m = ceil(2^64 / p) gives (d * m) >> 64 = d / p exactly for every d < 2^32
 * and 2 <= p < 2^32 (the error d (m p - 2^64) / (p 2^64) stays below 1/p).
 * Per is at most max(revolver cycles, tasklets). */
#define RECIPROCALS 64u
static uint64_t reciprocals[RECIPROCALS];

static inline uint64_t reciprocal(uint64_t p) /* 2 <= p < RECIPROCALS */
{
    if (!reciprocals[p])
        reciprocals[p] = UINT64_MAX / p + 1; /* ceil(2^64 / p), a power of two or not */
    return reciprocals[p];
}

static inline unsigned popcount32(uint32_t x) /* without a popcnt instruction in the baseline ISA */
{
    x -= (x >> 1) & 0x55555555u;
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (x * 0x01010101u) >> 24;
}

/* The running tasklet (just dispatched, the earliest) may run until its next
 * instruction would issue after the next tasklet's: its clock advances by
 * `per` cycles an instruction, per = max(revolver, tasklets in the pipeline:
 * runnable and not waiting for a DMA or a wake-up beyond a revolver period
 * from now), and the image's checks compare its count with the limits. */
static void set_limits(struct op_sched *s, uint64_t other)
{
    const unsigned r = s->cur;
    const uint64_t v0 = s->t[r].next, soon = v0 + s->period;
    /* out of the pipeline: the tasklets waiting (a DMA, a wake-up) whose
     * clock is beyond soon, at the end of the order; those that ran since
     * they joined, joined before v0 (the earliest runs).  So the ready ones
     * are the runnable ones not waiting, and the waiting ones of the order's
     * head up to soon (DMA-bound code: a few, where most wait far ahead). */
    uint64_t ready = popcount32(s->runmask & ~s->waiting);
    for (unsigned x = s->link[NIL]; x != NIL && (s->order[x] >> 5) <= soon; x = s->link[x])
        ready += s->waiting >> x & 1;
    s->per = ready > s->period ? ready : s->period;
    s->base_cycle = v0;
    s->base_count = s->t[r].count;
    if (!s->limits)
        return;
    if (other == UINT64_MAX) { /* alone: nothing to give way to */
        s->limits[0] = s->limits[1] = UINT64_MAX;
        return;
    }
    /* instructions j = 0, 1, ... issue at v0 + j * per: those before the other's next */
    uint64_t d = (other >> 5) - v0, tie = r < (other & 31);
    uint64_t budget;
    if (d < s->per) {
        budget = d || tie;
    } else if (d <= UINT32_MAX && s->per >= 2 && s->per < RECIPROCALS) { /* a multiplication: several times faster */
        uint64_t q = (uint64_t)(((unsigned __int128)d * reciprocal(s->per)) >> 64);
        budget = q + (d - q * s->per != 0 || tie);
    } else if (d <= UINT32_MAX) { /* a 32-bit division is faster than a 64-bit one */
        budget = (uint32_t)d / (uint32_t)s->per + ((uint32_t)d % (uint32_t)s->per || tie);
    } else
        budget = d / s->per + (d % s->per || tie);
    uint64_t near = s->t[r].count + budget;
    if (near < budget)
        near = UINT64_MAX;
    s->limits[0] = near;
    s->limits[1] = near + QUANTUM_FAR < near ? UINT64_MAX : near + QUANTUM_FAR;
}

/* ---- choosing --------------------------------------------------------------- */

static void to_scheduler(struct op_sched *s)
{
    op_switch(&s->t[s->cur].sp, s->sched_sp);
}

/* Makes tid the running tasklet (its service stack, stack limit, env, counter
 * and clock); `other`: the order's first after it. */
static void enter(struct op_sched *s, unsigned tid, uint64_t other)
{
    s->cur = tid;
    s->waiting &= ~(1u << tid);
    running_env->tid = tid;
    op_service_sp = (uintptr_t)service_stacks + (uint64_t)(tid + 1) * (SERVICE_STACK + GUARD);
    op_sched_set_stack_limit((uint32_t)(uintptr_t)s->t[tid].stack_lo);
    *s->icount = s->t[tid].count;
    set_limits(s, other);
}

/* Stops the running tasklet's clock where it is. */
static void stop_clock(struct op_sched *s)
{
    op_sched_account(s);
    s->t[s->cur].next = op_sched_next_cycle(s);
    reorder(s, s->cur);
}

/* The running tasklet (clock stopped, still runnable) gives way to the
 * earliest tasklet, switching to it directly, or goes on with new limits. */
static void give_way(struct op_sched *s)
{
    uint64_t one, two;
    first_two(s, &one, &two);
    unsigned cur = s->cur, tid = (unsigned)(one & 31); /* cur is runnable: one is someone */
    if (tid == cur) {
        set_limits(s, two);
        return;
    }
    enter(s, tid, two);
    op_switch(&s->t[cur].sp, s->t[tid].sp);
}

void op_sched_yield(void)
{
    struct op_sched *s = running;
    stop_clock(s);
    give_way(s);
}

void op_sched_point(uint64_t count, uint32_t back)
{
    struct op_sched *s = running;
    /* count - back: what the tasklet executed before the access (the image
     * may hold the counter in a register, so memory is stale); count: what
     * its code holds when it goes on */
    uint64_t before_access = count - back;
    if (back > count || before_access < s->t[s->cur].count)
        before_access = s->t[s->cur].count; /* not from the pass: ignore */
    *s->icount = before_access;
    stop_clock(s);
    give_way(s);
    *s->icount = count;
}

/* ---- block, wake, exit ---------------------------------------------------------- */

static void tasklet_exit(void)
{
    struct op_sched *s = running;
    op_sched_account(s);
    if (s->hooks.end)
        s->hooks.end(s->hooks.ctx, s->cur);
    s->t[s->cur].state = OP_T_DONE;
    reorder(s, s->cur);
    to_scheduler(s);
}

void op_sched_exit(void)
{
    tasklet_exit();
    __builtin_unreachable();
}

void op_sched_block(uintptr_t key)
{
    struct op_sched *s = running;
    stop_clock(s);
    s->t[s->cur].state = OP_T_BLOCKED;
    s->t[s->cur].key = key;
    reorder(s, s->cur);
    to_scheduler(s);
}

/* Woken tasklets issue no sooner than one cycle after the waker's event, one a
 * cycle, as the pipeline takes them in: the lowest tid first, except on a
 * mutex.  A mutex's waiters spin on the DPU (the SDK's mutex_lock is an
 * `acquire` that jumps to itself while the bit is set) and the pipeline
 * issues their retries in turn, so no tid is favoured: an unlock hands the
 * mutex to the waiter that has waited longest (the earliest clock, then the
 * lowest tid).  Lowest-tid-first let the low tids take a contended mutex
 * again and again, so the program's data gave them all the work that the
 * pipeline shares among all tasklets (PrIM's TRNS: 3 tasklets of 16 made 96 %
 * of the tile moves, and its modelled time was 1.4x the hardware's). */
static int spins(uint64_t key)
{
    unsigned kind = (unsigned)(key >> OP_WAIT_KIND_SHIFT);
    return kind == OP_WAIT_MUTEX || kind == OP_WAIT_VMUTEX;
}

/* The waiter on key to wake next (s->nr: none). */
static unsigned next_waiter(const struct op_sched *s, uint64_t key)
{
    unsigned w = s->nr;
    for (unsigned i = 0; i < s->nr; i++)
        if (s->t[i].state == OP_T_BLOCKED && s->t[i].key == key) {
            if (!spins(key))
                return i;
            if (w == s->nr || s->t[i].next < s->t[w].next)
                w = i;
        }
    return w;
}

unsigned op_sched_wake(uintptr_t key, unsigned n)
{
    struct op_sched *s = running;
    op_sched_account(s);
    uint64_t at = op_sched_event_cycle(s) + 1;
    unsigned woken = 0;
    for (unsigned w; woken < n && (w = next_waiter(s, key)) < s->nr; woken++) {
        s->t[w].state = OP_T_RUNNABLE;
        if (s->t[w].next < at + woken)
            s->t[w].next = at + woken;
        s->waiting |= 1u << w;
        reorder(s, w);
    }
    return woken;
}

unsigned op_sched_waiters(uintptr_t key)
{
    struct op_sched *s = running;
    unsigned n = 0;
    for (unsigned i = 0; i < s->nr; i++)
        n += s->t[i].state == OP_T_BLOCKED && s->t[i].key == key;
    return n;
}

/* ---- a launch ---------------------------------------------------------------- */

int op_sched_run(struct op_sched *s, unsigned nr, void (*entry)(void), volatile uint64_t *icount,
                 struct op_env *env)
{
    s->nr = nr;
    s->icount = icount;
    for (unsigned i = 0; i < nr; i++) {
        struct op_tasklet *t = &s->t[i];
        /* the first frame lies on its service stack, not in WRAM (switch.S) */
        uint64_t *sp = (uint64_t *)(service_stacks + (uint64_t)(i + 1) * (SERVICE_STACK + GUARD)) - 8;
        UNPOISON(service_stacks + (uint64_t)i * (SERVICE_STACK + GUARD) + GUARD, SERVICE_STACK);
        sp[0] = 0;                                   /* r15 */
        sp[1] = ((uintptr_t)t->stack_hi & ~(uintptr_t)15) - 8; /* r14: its WRAM stack (16-byte aligned at entry) */
        sp[2] = OP_SERVICE_EXIT;                     /* r13 */
        sp[3] = (uint64_t)(uintptr_t)entry;          /* r12 */
        sp[4] = 0;                                   /* rbx */
        sp[5] = 0;                                   /* rbp */
        sp[6] = (uint64_t)(uintptr_t)op_tasklet_start;
        t->sp = sp;
        t->state = OP_T_RUNNABLE;
        t->key = 0;
        t->instructions = 0;
        t->count = *icount;
        t->next = i; /* boot order: tasklet 0 issues first, then one a cycle */
        s->order[i] = UINT64_MAX;
    }
    s->link[NIL] = s->back[NIL] = NIL;
    s->nrun = 0;
    s->runmask = 0;
    s->waiting = nr < 32 ? (1u << nr) - 1 : UINT32_MAX;
    for (unsigned i = 0; i < nr; i++)
        reorder(s, i);
    if (s->period == 0)
        s->period = 1;
    s->per = s->period;
    running = s;
    running_env = env;
    for (;;) {
        uint64_t one, two;
        first_two(s, &one, &two);
        unsigned tid = one == UINT64_MAX ? nr : (unsigned)(one & 31);
        if (tid == nr) {
            unsigned live = 0;
            for (unsigned i = 0; i < nr; i++)
                live += s->t[i].state != OP_T_DONE;
            running = NULL;
            return live ? OP_FAULT_DEADLOCK : OP_FAULT_NONE;
        }
        enter(s, tid, two);
        op_switch(&s->sched_sp, s->t[tid].sp);
        /* back when the running tasklet (s->cur, not necessarily tid: yields
         * switch between tasklets directly) ended or blocked */
    }
}

void op_sched_abandon(void)
{
    running = NULL;
}
