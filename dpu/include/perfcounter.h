/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <perfcounter.h>, the DPU performance counter.
 *
 * One counter per DPU, counting cycles (the default at each launch, from 0) or
 * instructions as modelled by the emulator.  As on hardware, values have a
 * 16-unit granularity and wrap at 2^36.  v1B DPUs count both at once
 * (COUNT_ENABLE_BOTH, perfcounter_get_both); on v1A that is a build error, or
 * a fault for a v1A program that asks perfcounter_config for it anyway.
 */
#ifndef DPUSYSCORE_PERFCOUNTER_H
#define DPUSYSCORE_PERFCOUNTER_H

#include <stdint.h>
#include <stdbool.h>

/* A counter value. */
typedef uint64_t perfcounter_t;

/* What the counter counts. */
typedef enum _perfcounter_config_t {
    COUNT_SAME = 0,         /* keep the current mode */
    COUNT_CYCLES = 1,       /* clock cycles */
    COUNT_INSTRUCTIONS = 2, /* executed instructions */
    COUNT_NOTHING = 3,      /* stop counting */
    COUNT_DISABLE_BOTH = 6, /* v1B: stop both counters */
    COUNT_ENABLE_BOTH = 7,  /* v1B: count cycles and instructions */
} perfcounter_config_t;

/* The DPU clock frequency (cycles per second). */
extern const volatile uint32_t CLOCKS_PER_SEC;

/* Sets the counting mode (and zeroes the counter if reset_value); returns the
 * counter's value before the change. */
perfcounter_t perfcounter_config(perfcounter_config_t config, bool reset_value);
/* The counter's current value (cycles while both are counted). */
perfcounter_t perfcounter_get(void);

#ifdef __dpu_v1B__
typedef struct {
    perfcounter_t cycles;
    perfcounter_t instr;
} perfcounter_pair_t;
/* Both counters (COUNT_ENABLE_BOTH), and zeroes them if should_reset. */
perfcounter_pair_t perfcounter_get_both(bool should_reset);
#else
#define perfcounter_get_both(should_reset)                                                                             \
    do {                                                                                                               \
        _Static_assert(0, "perfcounter_get_both is only available on v1B DPUs (-mcpu=v1B)");                           \
    } while (0)
#endif

#endif
