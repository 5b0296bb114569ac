/* Tasklets of one DPU as coroutines, run round-robin in tasklet-id order with a
 * switch at every DMA and synchronisation call (DESIGN.md technique 4): runs are
 * deterministic whatever the number of host workers. */
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
    uint64_t icount_mark;
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
 * the native stacks of abi/dpu_abi.h). */
int op_sched_run(struct op_sched *s, unsigned nr, void (*entry)(void), volatile uint64_t *icount,
                 struct op_env *env);
void op_sched_abandon(void);

/* Services for the image (struct op_services); operate on the running scheduler. */
void op_sched_yield(void);
/* Ends the running tasklet (exit()); never returns. */
void op_sched_exit(void) __attribute__((noreturn));
void op_sched_block(uintptr_t key);
unsigned op_sched_wake(uintptr_t key, unsigned n);
unsigned op_sched_waiters(uintptr_t key);

/* The scheduler currently running (NULL outside a run) and its tasklet. */
struct op_sched *op_sched_current(void);
/* Accounts instructions since the last switch to the running tasklet. */
void op_sched_account(struct op_sched *s);
/* Stack bottom the running DPU code may not go below (0: none). */
void op_sched_set_stack_limit(uint32_t lo);

#endif
