/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU runtime: the image's entry points (see abi/dpu_abi.h). */
#include "rt_internal.h"

#include <perfcounter.h>

struct op_env *__op_env __op_scratch;
uint64_t __op_icount __op_scratch;
/* Switch points and race checks of the accounting pass (timing/op_points.h):
 * the worker writes the limits before each tasklet runs, the service
 * pointers before each DPU run. */
uint64_t __op_limits[2] __op_scratch __attribute__((aligned(8)));
void (*__op_sched_fn)(uint64_t, uint32_t, uint64_t *) __op_scratch;
void (*__op_race_fn)(uint64_t, uint64_t, uint32_t, const void *) __op_scratch;

/* Defined by stdio.c, which is linked only when the program prints. */
extern uint64_t __stdout_buffer_state __attribute__((weak));

int main(void);

/* Once per DPU and launch, before the tasklets: what the DPU's crt0 resets at
 * boot (stdout log, all atomic bits / mutexes), plus our per-launch scratch.
 * WRAM globals, the heap pointer included, are left as they are. */
void __op_boot(void)
{
    __op_sync_reset();
    __op_misc_reset();
    if (&__stdout_buffer_state != NULL)
        __stdout_buffer_state = 0;
    __op_env->perf_mode = COUNT_CYCLES;
    __op_env->perf_base = 0;
    __op_env->perf_base_instr = 0;
}

/* The body of every tasklet: main() (exit() ends the tasklet in the worker). */
void __op_tasklet_main(void)
{
    main();
}
