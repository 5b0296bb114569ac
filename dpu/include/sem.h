/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <sem.h>, counting semaphores.
 *
 * sem_take decrements the counter and blocks the tasklet while it is negative;
 * sem_give increments it and, if a tasklet was waiting, resumes the first one
 * (lowest tasklet id).  The counter lives in the object (WRAM), so it persists
 * across launches like any global.  Every call may give way to another tasklet.
 */
#ifndef DPUSYSCORE_SEM_H
#define DPUSYSCORE_SEM_H

#include <stdint.h>
#include <attributes.h>

/* A semaphore, as declared by SEMAPHORE_INIT; `count` is a signed 8-bit value. */
typedef struct sem_t {
    uint8_t wait_queue;
    uint8_t count;
    uint8_t initial_count;
    uint8_t lock;
} sem_t;

/* Defines the semaphore `name` with its counter at `counter`; ends with its
 * own `;`, as the SDK's (the macro is written with or without one). */
#define SEMAPHORE_INIT(_name, _counter)                                                                                \
    _Static_assert((_counter) < 128 && (_counter) >= -127, "semaphore counter must be encoded on a byte");           \
    sem_t _name = { .wait_queue = 0xff, .count = (_counter), .initial_count = (_counter), .lock = 0 };

/* Takes one unit, waiting while none is available. */
void sem_take(sem_t *sem);
/* Gives one unit back. */
void sem_give(sem_t *sem);

#endif
