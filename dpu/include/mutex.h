/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <mutex.h>, mutual exclusion.
 *
 * A mutex is identified by the VALUE of its mutex_id_t pointer, whatever it
 * points to: any value is accepted, NULL included, and equal values are the
 * same mutex.  Lock states belong to the launch: all mutexes are free when a
 * launch starts.  A tasklet that finds the mutex taken is blocked (it does not
 * spin) until an unlock; every call may give way to another tasklet.  As on the
 * DPU, a mutex has no owner: any tasklet may unlock it.
 */
#ifndef DPUSYSCORE_MUTEX_H
#define DPUSYSCORE_MUTEX_H

#include <stdint.h>
#include <stdbool.h>
#include <sysdef.h>
#include <atomic_bit.h>

/* A mutex reference, as declared by MUTEX_INIT. */
typedef uint8_t *mutex_id_t;

/* The mutex declared by MUTEX_INIT(name). */
#define MUTEX_GET(_name) _name
/* Defines a mutex `name` (backed by an atomic bit). */
#define MUTEX_INIT(_name)                                                                                              \
    ATOMIC_BIT_INIT(__CONCAT(mutex_, _name));                                                                          \
    const mutex_id_t MUTEX_GET(_name) = &ATOMIC_BIT_GET(__CONCAT(mutex_, _name))
/* Declares a mutex defined with MUTEX_INIT in another file. */
#define MUTEX_EXTERN(_name) extern const mutex_id_t MUTEX_GET(_name)

/* Takes the mutex, waiting (blocked) while another holds it. */
void mutex_lock(mutex_id_t mutex);
/* Takes the mutex if it is free; returns whether it was taken. */
bool mutex_trylock(mutex_id_t mutex);
/* Releases the mutex and lets the first waiter (lowest tasklet id) retry. */
void mutex_unlock(mutex_id_t mutex);

#endif
