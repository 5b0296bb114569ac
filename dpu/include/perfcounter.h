/* OpenPIM DPU syslib: <perfcounter.h>, the DPU performance counter.
 *
 * One counter per DPU, counting cycles (the default at each launch, from 0) or
 * instructions as modelled by the emulator.  As on hardware, values have a
 * 16-unit granularity and wrap at 2^36.
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
} perfcounter_config_t;

/* The DPU clock frequency (cycles per second). */
extern const volatile uint32_t CLOCKS_PER_SEC;

/* Sets the counting mode (and zeroes the counter if reset_value); returns the
 * counter's value before the change. */
perfcounter_t perfcounter_config(perfcounter_config_t config, bool reset_value);
/* The counter's current value. */
perfcounter_t perfcounter_get(void);

#endif
