/* OpenPIM DPU runtime: the performance counter (perfcounter.h).
 *
 * The counter's state lives in the worker's op_env (perf_mode, perf_base),
 * which __op_boot sets to "counting cycles from 0" at each launch.  While
 * counting, value = counter(mode) - perf_base; while stopped (COUNT_NOTHING),
 * perf_base holds the frozen value.  __op_env->cycles()/instructions() count
 * from the start of the launch.
 */
#include "rt_internal.h"

#include <perfcounter.h>

const volatile uint32_t CLOCKS_PER_SEC = 350000000u; /* v1A DPU clock */

static uint64_t __op_raw(uint32_t mode)
{
    if (mode == COUNT_CYCLES)
        return __OP_SVC->cycles();
    if (mode == COUNT_INSTRUCTIONS)
        return __OP_SVC->instructions();
    return 0;
}

static uint64_t __op_current(void)
{
    uint32_t mode = __op_env->perf_mode;
    if (mode != COUNT_CYCLES && mode != COUNT_INSTRUCTIONS)
        return __op_env->perf_base;
    return __op_raw(mode) - __op_env->perf_base;
}

/* The DPU counter is 36 bits wide and read without its 4 low bits. */
static perfcounter_t __op_as_read(uint64_t v)
{
    return v & 0xffffffff0ull;
}

perfcounter_t perfcounter_get(void)
{
    __OP_SVC->rt_event(OP_RTE_PERFCOUNTER, 0, 0); /* charged before the read: the value includes it */
    return __op_as_read(__op_current());
}

perfcounter_t perfcounter_config(perfcounter_config_t config, bool reset_value)
{
    __OP_SVC->rt_event(OP_RTE_PERFCOUNTER, 0, 0);
    uint64_t before = __op_current();
    uint32_t mode = config == COUNT_SAME ? __op_env->perf_mode : (uint32_t)config;
    uint64_t value = reset_value ? 0 : before;
    if (mode == COUNT_CYCLES || mode == COUNT_INSTRUCTIONS)
        __op_env->perf_base = __op_raw(mode) - value;
    else
        __op_env->perf_base = value;
    __op_env->perf_mode = mode;
    return __op_as_read(before);
}
