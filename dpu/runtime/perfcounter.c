/* SPDX-License-Identifier: MIT */
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

static int __op_both(uint32_t mode)
{
    return mode == COUNT_ENABLE_BOTH;
}

static uint64_t __op_current(void)
{
    uint32_t mode = __op_env->perf_mode;
    if (__op_both(mode))
        return __OP_SVC->cycles() - __op_env->perf_base;
    if (mode != COUNT_CYCLES && mode != COUNT_INSTRUCTIONS)
        return __op_env->perf_base;
    return __op_raw(mode) - __op_env->perf_base;
}

static uint64_t __op_current_instr(void)
{
    if (__op_both(__op_env->perf_mode))
        return __OP_SVC->instructions() - __op_env->perf_base_instr;
    return __op_env->perf_base_instr; /* frozen by COUNT_DISABLE_BOTH, or 0 */
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

/* v1A DPUs (64 KB of WRAM) have one counter: asking for both faults, as there. */
static void __op_need_v1B(perfcounter_config_t config)
{
    if ((config == COUNT_ENABLE_BOTH || config == COUNT_DISABLE_BOTH) && __op_env->wram_size >= 65536u)
        __op_faultf(OP_FAULT_RUNTIME, "perfcounter_config: counting cycles and instructions together "
                                      "(COUNT_ENABLE_BOTH/COUNT_DISABLE_BOTH) needs a v1B DPU (config %u)", (uint64_t)config);
}

perfcounter_t perfcounter_config(perfcounter_config_t config, bool reset_value)
{
    __OP_SVC->rt_event(OP_RTE_PERFCOUNTER, 0, 0);
    __op_need_v1B(config);
    uint64_t before = __op_current(), before_instr = __op_current_instr();
    uint32_t mode = config == COUNT_SAME ? __op_env->perf_mode : (uint32_t)config;
    uint64_t value = reset_value ? 0 : before, value_instr = reset_value ? 0 : before_instr;
    if (__op_both(mode)) {
        __op_env->perf_base = __OP_SVC->cycles() - value;
        __op_env->perf_base_instr = __OP_SVC->instructions() - value_instr;
    } else if (mode == COUNT_CYCLES || mode == COUNT_INSTRUCTIONS) {
        __op_env->perf_base = __op_raw(mode) - value;
    } else {
        __op_env->perf_base = value; /* stopped: the frozen values */
        __op_env->perf_base_instr = value_instr;
    }
    __op_env->perf_mode = mode;
    return __op_as_read(before);
}

/* perfcounter_get_both (v1B; the header declares it only there, and this
 * runtime is built for v1A), full precision: both values as counted since
 * COUNT_ENABLE_BOTH.  The pair has perfcounter_pair_t's layout. */
#undef perfcounter_get_both
struct __op_perf_pair {
    perfcounter_t cycles, instr;
};
struct __op_perf_pair perfcounter_get_both(bool should_reset);
struct __op_perf_pair perfcounter_get_both(bool should_reset)
{
    __OP_SVC->rt_event(OP_RTE_PERFCOUNTER, 0, 0);
    struct __op_perf_pair p = {__op_current(), __op_current_instr()};
    if (should_reset && __op_both(__op_env->perf_mode)) {
        __op_env->perf_base = __OP_SVC->cycles();
        __op_env->perf_base_instr = __OP_SVC->instructions();
    } else if (should_reset) {
        __op_env->perf_base = __op_env->perf_base_instr = 0;
    }
    return p;
}
