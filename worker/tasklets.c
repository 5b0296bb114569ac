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
    uint64_t now = *s->icount, n = now - s->icount_mark;
    s->icount_mark = now;
    s->t[s->cur].instructions += n;
    if (s->hooks.ran)
        s->hooks.ran(s->hooks.ctx, s->cur, n);
}

static void to_scheduler(struct op_sched *s)
{
    op_switch(&s->t[s->cur].sp, s->sched_sp);
}

static void tasklet_exit(void)
{
    struct op_sched *s = running;
    op_sched_account(s);
    if (s->hooks.end)
        s->hooks.end(s->hooks.ctx, s->cur);
    s->t[s->cur].state = OP_T_DONE;
    to_scheduler(s);
}

void op_sched_exit(void)
{
    tasklet_exit();
    __builtin_unreachable();
}

/* The next runnable tasklet after `from` in cyclic tid order (from itself
 * last), or s->nr if none. */
static unsigned next_runnable(const struct op_sched *s, unsigned from)
{
    unsigned tid = from;
    for (unsigned k = 0; k < s->nr; k++) {
        if (++tid == s->nr)
            tid = 0;
        if (s->t[tid].state == OP_T_RUNNABLE)
            return tid;
    }
    return s->nr;
}

/* Makes tid the running tasklet (its service stack, stack limit, env). */
static void enter(struct op_sched *s, unsigned tid)
{
    s->cur = tid;
    running_env->tid = tid;
    op_service_sp = (uintptr_t)service_stacks + (uint64_t)(tid + 1) * (SERVICE_STACK + GUARD);
    op_sched_set_stack_limit((uint32_t)(uintptr_t)s->t[tid].stack_lo);
}

/* Switches straight to the next runnable tasklet, the one the scheduler
 * would pick (tasklets yield at every DMA: this saves a switch each time). */
void op_sched_yield(void)
{
    struct op_sched *s = running;
    op_sched_account(s);
    unsigned cur = s->cur, tid = next_runnable(s, cur);
    if (tid == cur || tid == s->nr)
        return;
    enter(s, tid);
    op_switch(&s->t[cur].sp, s->t[tid].sp);
}

void op_sched_block(uintptr_t key)
{
    struct op_sched *s = running;
    s->t[s->cur].state = OP_T_BLOCKED;
    s->t[s->cur].key = key;
    to_scheduler(s);
}

unsigned op_sched_wake(uintptr_t key, unsigned n)
{
    struct op_sched *s = running;
    unsigned woken = 0;
    for (unsigned i = 0; i < s->nr && woken < n; i++)
        if (s->t[i].state == OP_T_BLOCKED && s->t[i].key == key) {
            s->t[i].state = OP_T_RUNNABLE;
            woken++;
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

int op_sched_run(struct op_sched *s, unsigned nr, void (*entry)(void), volatile uint64_t *icount,
                 struct op_env *env)
{
    s->nr = nr;
    s->icount = icount;
    s->icount_mark = *icount;
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
    }
    running = s;
    running_env = env;
    unsigned last = nr - 1; /* tasklet 0 first */
    for (;;) {
        unsigned tid = next_runnable(s, last);
        if (tid == nr) {
            unsigned live = 0;
            for (unsigned i = 0; i < nr; i++)
                live += s->t[i].state != OP_T_DONE;
            running = NULL;
            return live ? OP_FAULT_DEADLOCK : OP_FAULT_NONE;
        }
        enter(s, tid);
        op_switch(&s->sched_sp, s->t[tid].sp);
        /* back when the running tasklet (s->cur, not necessarily tid: yields
         * switch between tasklets directly) ended or blocked */
        op_sched_account(s);
        last = s->cur;
    }
}

void op_sched_abandon(void)
{
    running = NULL;
}
