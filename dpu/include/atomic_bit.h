/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <atomic_bit.h>, named hardware atomic bits.
 *
 * An atomic bit is a byte in section .atomic; its address is what mutexes and
 * barriers use as an identifier (see mutex.h).  The emulator keeps the lock
 * states elsewhere (per launch, all released at boot), so the byte's value is
 * never used.  ATOMIC_BIT_INIT(name)[N]; declares an array of N bits.
 */
#ifndef DPUSYSCORE_ATOMIC_BIT_H
#define DPUSYSCORE_ATOMIC_BIT_H

#include <stdint.h>
#include <attributes.h>
#include <macro_utils.h>

/* Defines the atomic bit `name`. */
#define ATOMIC_BIT_INIT(_name) uint8_t __atomic_bit __CONCAT(__atomic_bit_, _name)
/* Declares the atomic bit `name` defined in another file. */
#define ATOMIC_BIT_EXTERN(_name) extern ATOMIC_BIT_INIT(_name)
/* The atomic bit `name` (an lvalue; take its address for mutex.h). */
#define ATOMIC_BIT_GET(_name) __CONCAT(__atomic_bit_, _name)

/* Take / release the bit as a lock (same semantics as mutex_lock/mutex_unlock). */
void mutex_lock(uint8_t *mutex);
void mutex_unlock(uint8_t *mutex);
#define ATOMIC_BIT_ACQUIRE(_name) mutex_lock(&ATOMIC_BIT_GET(_name))
#define ATOMIC_BIT_RELEASE(_name) mutex_unlock(&ATOMIC_BIT_GET(_name))

#endif
