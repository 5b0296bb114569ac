/* SPDX-License-Identifier: MIT */
/* Tasklets of one DPU as coroutines, run in the order of their modelled time.
 *
 * On the DPU the revolver pipeline issues one instruction per cycle, from the
 * ready tasklets in turn, each at most every revolver_cycles (11) cycles; so
 * tasklets interleave instruction by instruction.  Here each tasklet keeps a
 * modelled clock, the cycle at which its next instruction would issue, and
 * the one with the earliest clock runs (lowest tid on a tie).  It gives way
 * where tasklets can meet:
 *   - at a switch point of its code (timing/op_points.h) once its clock has
 *     passed the next tasklet's: before each access to memory other tasklets
 *     may use that is the same at every iteration of its loop (counters,
 *     flags), so such accesses happen in the order of their modelled cycles;
 *     and at loop back edges QUANTUM_FAR instructions later, so every loop
 *     (a spin-wait included) gives way;
 *   - at every DMA (the tasklet then waits for the engine) and
 *     synchronisation call of the DPU runtime.
 * The clocks follow the timing model's rules (timing/timing.h, section 2):
 * with k tasklets ready, each issues every max(revolver_cycles, k) cycles;
 * a DMA goes through one FIFO engine; a woken tasklet issues no sooner than
 * one cycle after its waker's event.  They only order the emulation: the
 * modelled results come from the timing model, which replays the trace.
 * Runs are deterministic whatever the number of host workers.
 *
 * The image's instruction counter (__op_icount) is kept per tasklet: it holds
 * the running tasklet's count, saved and restored at each switch. */
#ifndef OPENPIM_TASKLETS_H
#define OPENPIM_TASKLETS_H

#include <stdint.h>

#include "../abi/dpu_abi.h"

enum op_tasklet_state { OP_T_RUNNABLE, OP_T_BLOCKED, OP_T_DONE };

struct op_tasklet {
    void *sp;
    enum op_tasklet_state state;
    uintptr_t key;          /* what a blocked tasklet waits for */
    uint64_t instructions;  /* counted so far in this launch */
    uint64_t count;         /* the image's counter, as of its last accounting */
    uint64_t next;          /* modelled cycle of its next instruction, while it does not run */
    uint8_t *stack_lo, *stack_hi;
};

/* Called by the scheduler around every switch, for the timing model. */
struct op_sched_hooks {
    void *ctx;
    /* tasklet `tid` executed `n` instructions, then stopped for `why` */
    void (*ran)(void *ctx, unsigned tid, uint64_t n);
    /* tasklet `tid` returned from main */
    void (*end)(void *ctx, unsigned tid);
};

struct op_sched {
    struct op_tasklet t[OP_MAX_TASKLETS];
    unsigned nr, cur;
    void *sched_sp;
    volatile uint64_t *icount; /* the image's __op_icount */
    volatile uint64_t *limits; /* the image's __op_limits (near, far), or NULL */
    uint64_t period;           /* revolver cycles (set before op_sched_run) */
    /* the running tasklet's clock: its next instruction issues at cycle
     * base_cycle + (count - base_count) * per */
    uint64_t base_cycle, base_count, per;
    /* for the choice: next << 5 | tid of each runnable tasklet (UINT64_MAX
     * otherwise), in a sorted list (link, back: the next and the previous,
     * index OP_MAX_TASKLETS the anchor; tasklets.c), their number, and
     * whether each waits (a DMA, a wake-up) and has not run since */
    uint64_t order[OP_MAX_TASKLETS];
    uint8_t link[OP_MAX_TASKLETS + 1], back[OP_MAX_TASKLETS + 1];
    unsigned nrun;
    uint32_t runmask; /* one bit per tasklet in the order */
    uint32_t waiting; /* one bit per tasklet */
    struct op_sched_hooks hooks;
};

/* Sets up the service stacks (switch.S) of up to max_tasklets tasklets; once
 * per worker.  Returns 0 or -1. */
int op_sched_init(unsigned max_tasklets);

/* Runs `nr` tasklets of the loaded image from entry() until all return, keeping
 * env->tid current.  Returns OP_FAULT_NONE, or OP_FAULT_DEADLOCK when every live
 * tasklet is blocked.  A fault inside a tasklet leaves through the worker's
 * recovery point instead; it then calls op_sched_abandon().  The caller sets
 * each tasklet's stack (stack_lo: its split-stack limit, stack_hi: its top;
 * the native stacks of abi/dpu_abi.h), s->period and s->limits. */
int op_sched_run(struct op_sched *s, unsigned nr, void (*entry)(void), volatile uint64_t *icount,
                 struct op_env *env);
void op_sched_abandon(void);

/* Services for the image (struct op_services); operate on the running scheduler. */
/* Gives way to the tasklet with the earliest clock, if it is not this one. */
void op_sched_yield(void);
/* A switch point was reached (timing/op_points.h): count - back instructions executed. */
void op_sched_point(uint64_t count, uint32_t back);
/* Ends the running tasklet (exit()); never returns. */
void op_sched_exit(void) __attribute__((noreturn));
void op_sched_block(uintptr_t key);
unsigned op_sched_wake(uintptr_t key, unsigned n);
unsigned op_sched_waiters(uintptr_t key);

/* The scheduler currently running (NULL outside a run) and its tasklet. */
struct op_sched *op_sched_current(void);
/* Accounts instructions since the last switch to the running tasklet. */
void op_sched_account(struct op_sched *s);
/* The running tasklet's clock (after op_sched_account): the modelled cycle of
 * its next instruction, and of its last one (the time of an event it makes). */
static inline uint64_t op_sched_next_cycle(const struct op_sched *s)
{
    return s->base_cycle + (s->t[s->cur].count - s->base_count) * s->per;
}

static inline uint64_t op_sched_event_cycle(const struct op_sched *s)
{
    uint64_t next = op_sched_next_cycle(s);
    return next >= s->per ? next - s->per : 0;
}

/* The running tasklet executed n instructions its code did not count (calls
 * of the DPU runtime, charged by the timing model). */
static inline void op_sched_charge(struct op_sched *s, uint64_t n)
{
    s->base_cycle += n * s->per;
}

/* The running tasklet issues no sooner than `cycle` (a DMA completes then). */
static inline void op_sched_hold(struct op_sched *s, uint64_t cycle)
{
    uint64_t next = op_sched_next_cycle(s);
    if (cycle > next) {
        s->base_cycle += cycle - next;
        s->waiting |= 1u << s->cur;
    }
}
/* Stack bottom the running DPU code may not go below (0: none). */
void op_sched_set_stack_limit(uint32_t lo);

#endif
