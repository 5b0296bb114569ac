/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <barrier.h>, tasklet barriers.
 *
 * The fields are public, as in the SDK: programs may fill a barrier_t at run
 * time (wait_queue = 0xff, count = initial_count = number of tasklets, lock =
 * any byte).  barrier_wait decrements `count`; the last arrival resets it to
 * `initial_count` and wakes all the waiters.  Every caller, the last one too,
 * then yields: no tasklet runs ahead of the others past a barrier.
 */
#ifndef DPUSYSCORE_BARRIER_H
#define DPUSYSCORE_BARRIER_H

#include <stdint.h>
#include <attributes.h>
#include <atomic_bit.h>

/* A barrier, as declared by BARRIER_INIT. */
typedef struct barrier_t {
    uint8_t wait_queue;
    uint8_t count;
    uint8_t initial_count;
    uint8_t lock;
} barrier_t;

/* Defines the barrier `name` for `counter` tasklets (at most 127).  The
 * definition ends with its own `;`, as the SDK's: programs write the macro
 * with or without one. */
#define BARRIER_INIT(_name, _counter)                                                                                  \
    _Static_assert((_counter) < 128 && (_counter) >= -127, "barrier counter must be encoded on a byte");             \
    barrier_t _name = { .wait_queue = 0xff, .count = (_counter), .initial_count = (_counter), .lock = 0 };

/* Waits until `count` tasklets have called barrier_wait on this barrier. */
void barrier_wait(barrier_t *barrier);

#endif
