/* SPDX-License-Identifier: MIT */
/* The contract between a DPU image (compiled DPU program + dpu/runtime) and the
 * worker process that runs it.  Both sides include this file; nothing else is
 * shared between them.
 *
 * A DPU image is a non-PIE x86-64 ELF executable linked by the toolchain's
 * dpu.lds.  Its address map mirrors the DPU:
 *   - WRAM (rodata, data, bss, tasklet stacks, heap): wram_size bytes ending at
 *     OP_WRAM_END; one copy per emulated DPU, swapped in by the worker;
 *   - MRAM variables (__mram, __mram_noinit) at OP_MRAM_BASE; they are never
 *     mapped at that address, code reaches them through %gs (see mram.h), and the
 *     worker points GS at "current DPU's MRAM - OP_MRAM_BASE";
 *   - code (IRAM) at OP_TEXT_BASE, plus the runtime's per-launch scratch (.opbss).
 * The image is ELF32 x86-64 code of the ILP32 (x32) ABI, the DPU's data model:
 * every address it forms is 32 bits wide and wraps as on the DPU.
 */
#ifndef OPENPIM_DPU_ABI_H
#define OPENPIM_DPU_ABI_H

#include <stdint.h>

#define OP_ABI_VERSION 4u

#define OP_MRAM_BASE 0x08000000u
#define OP_WRAM_BASE 0x10000000u /* the WRAM window: 64 KB, the largest WRAM */
#define OP_WRAM_END 0x10010000u
/* A chip's WRAM ends at OP_WRAM_END (a page boundary, so that an access past
 * its end faults whatever its size: v1B has 62 KB) and starts wram_size below. */
#define OP_WRAM_START(wram_size) (OP_WRAM_END - (uint32_t)(wram_size))
#define OP_TEXT_BASE 0x20000000u

#define OP_MAX_TASKLETS 24

/* Tasklet stacks.  On the DPU, tasklet t's stack is STACK_SIZE_TASKLET_t bytes
 * of WRAM (the image reserves them there, __op_stacks_start, so that the heap
 * and globals get exactly what the chip leaves them).  Its frames here are x86
 * frames, larger than the DPU compiler's, so they run on a native stack of
 * their own outside WRAM, still below 4 GB (pointers to locals stay 32-bit and
 * work across tasklets), and the DPU budget is enforced in DPU terms: every
 * function of the image subtracts its DPU frame (toolchain/llvm/DpuFrame.cpp)
 * from its tasklet's `struct op_dstack` on entry, faulting when it does not
 * fit, and gives it back on return.
 *
 * Native stack slots, one per tasklet, OP_NSTACK_SLOT bytes each (a power of
 * two: code finds its slot's record from the stack pointer alone):
 *
 *     offset                              contents
 *     0 .. OP_NSTACK_GUARD                guard page (inaccessible)
 *     OP_NSTACK_GUARD .. OP_NSTACK_TOP    the tasklet's x86 stack, growing down
 *                                         (split-stack prologues check its low end)
 *     OP_NSTACK_SLOT - 16 .. SLOT         struct op_dstack
 */
#define OP_NSTACK_BASE 0x40000000u
#define OP_NSTACK_SLOT (512u << 10)
#define OP_NSTACK_GUARD 4096u
#define OP_NSTACK_TOP (OP_NSTACK_SLOT - 64u) /* offset of the initial stack pointer */
/* Between the guard page and the split-stack limit: LLVM's x86 prologue checks
 * a frame under 256 bytes by the stack pointer alone, counting on this much
 * room below the limit; variadic functions' frames are not checked at all. */
#define OP_NSTACK_SLACK 256u

/* The DPU-stack account of one tasklet, written by the worker before each run. */
struct op_dstack {
    uint32_t remaining; /* DPU stack bytes not used by the active calls (unsigned: never below 0) */
    uint32_t budget;    /* STACK_SIZE_TASKLET_t */
    uint32_t fn;        /* on overflow: the function whose frame did not fit (its address) */
    uint32_t need;      /* and its DPU frame in bytes */
};
#define OP_DSTACK_OFFSET (OP_NSTACK_SLOT - (uint32_t)sizeof(struct op_dstack))

/* Whether [addr, addr + size) lies inside the usable native stack of one of
 * the first nr_tasklets tasklets (WRAM for the DPU program: DMA may use it). */
static inline int op_nstack_contains(uint64_t addr, uint64_t size, uint32_t nr_tasklets)
{
    if (addr < OP_NSTACK_BASE)
        return 0;
    uint64_t t = (addr - OP_NSTACK_BASE) / OP_NSTACK_SLOT;
    uint64_t lo = OP_NSTACK_BASE + t * OP_NSTACK_SLOT + OP_NSTACK_GUARD;
    uint64_t hi = OP_NSTACK_BASE + t * OP_NSTACK_SLOT + OP_DSTACK_OFFSET;
    return t < nr_tasklets && addr >= lo && addr <= hi && size <= hi - addr;
}

/* Why a DPU stopped abnormally (also reported to the host): the one list of
 * fault kinds, with the name the host API reports (openpim_get_fault). */
#define OP_FAULT_KINDS(X)                                                                      \
    X(NONE, "none")                /* no fault */                                          \
    X(HALT, "halt")                /* halt() */                                            \
    X(ASSERT, "assert")            /* assert() failed */                                   \
    X(MEMORY, "memory")            /* access outside WRAM/MRAM */                          \
    X(DMA, "dma")                  /* bad mram_read/mram_write arguments */                \
    X(HEAP, "heap")                /* mem_alloc beyond the WRAM heap */                    \
    X(STACK, "stack")              /* a tasklet's frame does not fit its stack */          \
    X(DEADLOCK, "deadlock")        /* every live tasklet is blocked */                     \
    X(TIMEOUT, "timeout")          /* the launch budget ran out */                         \
    X(ILLEGAL, "illegal")          /* illegal instruction, FP trap, ... */                 \
    X(RUNTIME, "runtime")          /* misuse of a runtime primitive */                     \
    X(HOST_MEMORY, "host-memory")  /* host cannot back more emulated memory */             \
    X(DIV_ZERO, "divide-by-zero")  /* integer division by zero (the DPU's "fault 2") */    \
    X(SYSCALL, "syscall")          /* DPU code made a system call (refused by the sandbox) */ \
    X(WORKER, "worker")            /* the worker running the DPU died (killed, crashed, exited) */ \
    X(RACE, "race")                /* a data race, with OPENPIM_RACECHECK=fault */

#define OP_FAULT_ENUM_(kind, name) OP_FAULT_##kind,
enum op_fault { OP_FAULT_KINDS(OP_FAULT_ENUM_) OP_FAULT_COUNT };
#undef OP_FAULT_ENUM_

/* The image is ILP32 (x32) code, the worker LP64: the structures below use
 * only fixed-width fields, and what the image sees as a pointer the worker
 * sees as the 32-bit address it is (OP_IMG_PTR, OP_IMG_FN).  Function
 * "pointers" of the services are addresses of trampolines the worker places
 * below 4 GB (OP_ENV_BASE) that jump to its own code. */
#if __SIZEOF_POINTER__ == 4
#define OP_IMG_PTR(type, name) type *name
#define OP_IMG_FN(ret, name, params) ret(*name) params
#else
#define OP_IMG_PTR(type, name) uint32_t name
#define OP_IMG_FN(ret, name, params) uint32_t name
#endif

/* Where the worker maps the environment page (struct op_env, the services
 * table and its trampolines) in every image's address space. */
#define OP_ENV_BASE 0x30000000u

/* Keys of block/wake: what a tasklet waits for, one namespace per primitive
 * in the top byte (DPU addresses are 32-bit).  An unlock hands a mutex to the
 * waiter that has waited longest, as spinning retries share the pipeline
 * (worker/tasklets.c, op_sched_wake). */
enum op_wait_kind {
    OP_WAIT_MUTEX = 1,
    OP_WAIT_BARRIER = 2,
    OP_WAIT_SEM = 3,
    OP_WAIT_HS_NOTIFIER = 4,
    OP_WAIT_HS_WAITER = 5,
    OP_WAIT_VMUTEX = 6,
};
#define OP_WAIT_KIND_SHIFT 56
#define OP_WAIT_KEY(kind, low) (((uint64_t)(kind) << OP_WAIT_KIND_SHIFT) | (uint64_t)(low))

/* Services the worker offers to the image.  All calls are made by the tasklet
 * currently running; tasklets are coroutines, so the image's runtime code is
 * atomic between calls that switch (yield, block).  The worker checks every
 * argument: DPU code can call these directly. */
struct op_services {
    /* Give way to the tasklet whose modelled clock is earliest, if it is not
     * this one (worker/tasklets.h). */
    OP_IMG_FN(void, yield, (void));
    /* Block the current tasklet until another calls wake() with the same key. */
    OP_IMG_FN(void, block, (uint64_t key));
    /* Make up to n tasklets blocked on key runnable (lowest tid first; a
     * mutex's: the longest waiting); returns how many. */
    OP_IMG_FN(uint32_t, wake, (uint64_t key, uint32_t n));
    /* Number of tasklets currently blocked on key. */
    OP_IMG_FN(uint32_t, waiters, (uint64_t key));
    /* Stop the whole DPU with a fault (msg: a NUL-terminated WRAM string); never returns. */
    OP_IMG_FN(void, fault, (uint32_t why, const char *msg));
    /* One DMA of `size` bytes between MRAM address `mram` and WRAM address
     * `wram` (flags: OP_DMA_WRITE for WRAM -> MRAM; OP_DMA_COPY to move the
     * bytes, at most 2048, both ranges checked again by the worker; without it
     * the DMA is only recorded for the timing model). */
    OP_IMG_FN(void, dma, (uint32_t mram, uint32_t wram, uint32_t size, uint32_t flags));
    /* Ends the current tasklet (exit(), or main() returned); never returns. */
    OP_IMG_FN(void, exit, (void));
    /* Modelled counters of the running tasklet; the timing layer keeps them
     * exact, they are plain instruction counts when timing is off. */
    OP_IMG_FN(uint64_t, cycles, (void));
    OP_IMG_FN(uint64_t, instructions, (void));
    /* A DPU runtime call (ev: OP_RTE_*, obj/arg: see there), for the timing
     * model: charges the call's instructions and times its synchronisation. */
    OP_IMG_FN(void, rt_event, (uint32_t ev, uint32_t obj, uint32_t arg));
    /* A switch point of the image's code was reached (timing/op_points.h:
     * the image calls it through __op_sched_fn, which __op_boot sets). */
    OP_IMG_FN(void, sched_point, (uint64_t count, uint32_t back));
    /* An access of a race-checked image (timing/op_points.h, __op_race_fn). */
    OP_IMG_FN(void, race_access, (uint64_t address, uint64_t bytes, uint32_t flags, uint32_t site));
};
/* ev of svc->rt_event: obj, arg */
#define OP_RTE_BARRIER 0u       /* barrier_wait: barrier address, participants */
#define OP_RTE_MUTEX_LOCK 1u    /* mutex_lock/trylock: mutex, 1 granted / 0 trylock failed */
#define OP_RTE_MUTEX_UNLOCK 2u  /* mutex_unlock: mutex, 0 */
#define OP_RTE_SEM_TAKE 3u      /* sem_take: semaphore address, 1 if it blocks */
#define OP_RTE_SEM_GIVE 4u      /* sem_give: semaphore address, 1 if it wakes a taker */
#define OP_RTE_HS_WAIT 5u       /* handshake_wait_for: notifier, 1 / 0 on EALREADY */
#define OP_RTE_HS_NOTIFY 6u     /* handshake_notify: notifier (the caller), 0 */
#define OP_RTE_MEM_ALLOC 7u     /* mem_alloc: 0, 0 */
#define OP_RTE_MEM_RESET 8u     /* mem_reset: 0, 0 */
#define OP_RTE_PERFCOUNTER 9u   /* perfcounter_get/config: 0, 0 */
#define OP_RTE_VMUTEX_LOCK 10u  /* vmutex_lock: state bits address, mutex number */
#define OP_RTE_VMUTEX_UNLOCK 11u
/* flags of svc->dma */
#define OP_DMA_WRITE 1u /* WRAM -> MRAM (else MRAM -> WRAM) */
#define OP_DMA_COPY 2u  /* move the bytes; without it the call only records the DMA for the timing model */
#define OP_DMA_YIELD 4u /* then yield (the tasklet waits for the engine), in the same call */
#define OP_NR_SERVICES (sizeof(struct op_services) / sizeof(uint32_t))
/* The index of the exit service (a tasklet whose main returns calls it). */
#define OP_SERVICE_EXIT (__builtin_offsetof(struct op_services, exit) / sizeof(uint32_t))

/* Per-worker environment, at OP_ENV_BASE; the image holds a pointer to it in
 * __op_env.  The worker rewrites it before each DPU run and at each switch, and
 * never trusts what the image may have written into it. */
struct op_env {
    uint32_t abi_version;
    uint32_t tid;          /* me() of the running tasklet */
    uint32_t nr_tasklets;  /* tasklets booted by this launch */
    uint32_t dpu_index;    /* index of the DPU in the machine (debug/printf only) */
    uint32_t wram_size;    /* bytes of WRAM (64 KiB on v1A) */
    uint32_t mram_size;    /* bytes of MRAM (64 MiB) */
    uint32_t perf_mode;    /* last perfcounter_config mode */
    uint64_t perf_base;    /* counter value at the last reset (cycles in COUNT_ENABLE_BOTH) */
    uint64_t perf_base_instr; /* COUNT_ENABLE_BOTH (v1B): the instruction counter's */
    OP_IMG_PTR(const struct op_services, svc);
};

/* Symbols every image defines (dpu/runtime/crt.c):
 *   struct op_env *__op_env;      set by the worker after loading
 *   void __op_boot(void);         called once per DPU per launch, before the tasklets
 *   void __op_tasklet_main(void); body of every tasklet; returns when main() returns
 *   uint64_t __op_icount;         instruction counter incremented by the accounting pass
 * and, in .opbss, the globals of timing/op_points.h (__op_limits, which the
 * worker writes, and the service pointers __op_sched_fn, __op_race_fn).
 */

#endif
