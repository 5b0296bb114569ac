/* The contract between a DPU image (compiled DPU program + dpu/runtime) and the
 * worker process that runs it.  Both sides include this file; nothing else is
 * shared between them.
 *
 * A DPU image is a non-PIE x86-64 ELF executable linked by the toolchain's
 * dpu.lds.  Its address map mirrors the DPU:
 *   - WRAM (rodata, data, bss, heap, DPU stack budget) at OP_WRAM_BASE,
 *     at most wram_size bytes: one copy per emulated DPU, swapped in by the worker;
 *   - MRAM variables (__mram, __mram_noinit) at OP_MRAM_BASE; they are never
 *     mapped at that address, code reaches them through %gs (see mram.h), and the
 *     worker points GS at "current DPU's MRAM - OP_MRAM_BASE";
 *   - code (IRAM) at OP_TEXT_BASE, plus the runtime's per-launch scratch (.opbss).
 * Everything lies below 4 GB, so WRAM and MRAM addresses survive uint32_t casts.
 */
#ifndef OPENPIM_DPU_ABI_H
#define OPENPIM_DPU_ABI_H

#include <stdint.h>

#define OP_ABI_VERSION 1u

#define OP_MRAM_BASE 0x08000000u
#define OP_WRAM_BASE 0x10000000u
#define OP_TEXT_BASE 0x20000000u
#define OP_STACK_BASE 0x40000000u /* worker-owned native tasklet stacks */

#define OP_MAX_TASKLETS 24

/* Why a DPU stopped abnormally (also reported to the host). */
enum op_fault {
    OP_FAULT_NONE = 0,
    OP_FAULT_HALT,         /* halt() */
    OP_FAULT_ASSERT,       /* assert() failed */
    OP_FAULT_MEMORY,       /* access outside WRAM/MRAM */
    OP_FAULT_DMA,          /* bad mram_read/mram_write arguments */
    OP_FAULT_HEAP,         /* mem_alloc beyond the WRAM heap */
    OP_FAULT_STACK,        /* tasklet stack overflow */
    OP_FAULT_DEADLOCK,     /* every live tasklet is blocked */
    OP_FAULT_TIMEOUT,      /* the launch budget ran out */
    OP_FAULT_ILLEGAL,      /* illegal instruction, FP trap, ... */
    OP_FAULT_RUNTIME,      /* misuse of a runtime primitive */
    OP_FAULT_HOST_MEMORY,  /* host cannot back more emulated memory */
    OP_FAULT_DIV_ZERO,     /* integer division by zero (the DPU's "fault 2") */
};

/* Services the worker offers to the image.  All calls are made by the tasklet
 * currently running; tasklets are coroutines, so the image's runtime code is
 * atomic between calls that switch (yield, block). */
struct op_services {
    /* Round-robin to the next runnable tasklet (tid order). */
    void (*yield)(void);
    /* Block the current tasklet until another calls wake() with the same key. */
    void (*block)(uintptr_t key);
    /* Make up to n tasklets blocked on key runnable (lowest tid first); returns how many. */
    unsigned (*wake)(uintptr_t key, unsigned n);
    /* Number of tasklets currently blocked on key. */
    unsigned (*waiters)(uintptr_t key);
    /* Stop the whole DPU with a fault; never returns. */
    void (*fault)(enum op_fault why, const char *msg) __attribute__((noreturn));
    /* A DMA of `size` bytes was performed (is_write: WRAM->MRAM); for the timing model. */
    void (*dma_event)(uint32_t mram_addr, uint32_t size, int is_write);
};

/* Per-worker environment; the image holds a pointer to it in __op_env.  The
 * worker updates the fields below before each DPU run and at each switch. */
struct op_env {
    uint32_t abi_version;
    uint32_t tid;          /* me() of the running tasklet */
    uint32_t nr_tasklets;  /* tasklets booted by this launch */
    uint32_t dpu_index;    /* index of the DPU in the machine (debug/printf only) */
    uint32_t wram_size;    /* bytes of WRAM (64 KiB on v1A) */
    uint32_t mram_size;    /* bytes of MRAM (64 MiB) */
    uint32_t perf_mode;    /* last perfcounter_config mode */
    uint64_t perf_base;    /* counter value at the last reset */
    uint8_t *mram_host;    /* host address of the running DPU's MRAM byte 0 (DPU address OP_MRAM_BASE) */
    uintptr_t stacks_lo;   /* native tasklet stacks: WRAM pointers to locals fall in here */
    uintptr_t stacks_hi;
    /* Modelled counters of the running tasklet; the timing layer keeps them
     * exact, they are plain instruction counts when timing is off. */
    uint64_t (*cycles)(void);
    uint64_t (*instructions)(void);
    const struct op_services *svc;
};

/* Symbols every image defines (dpu/runtime/crt.c):
 *   struct op_env *__op_env;      set by the worker after loading
 *   void __op_boot(void);         called once per DPU per launch, before the tasklets
 *   void __op_tasklet_main(void); body of every tasklet; returns when main() returns
 *   uint64_t __op_icount;         instruction counter incremented by the accounting pass
 */

#endif
