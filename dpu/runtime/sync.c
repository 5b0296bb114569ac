/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU runtime: mutexes, virtual mutexes, semaphores, barriers and
 * handshakes.
 *
 * The runtime is not instrumented: tasklets switch inside it only in
 * svc->yield and svc->block, so each function here is atomic up to its first
 * such call.  Waiting is always svc->block on a key (never spinning); every
 * call yields (the worker then runs the tasklet whose modelled clock is
 * earliest, which may be the caller) or blocks at least once, except
 * handshake_notify when its waiter is already there (see Handshakes).
 *
 * Each operation also tells the worker what it did (svc->rt_event), once, at
 * the point where it takes effect: the timing model charges the call's
 * instructions there and times the synchronisation in modelled cycles
 * (timing.h, op_dpu_trace_runtime); block/wake only order the emulation.
 */
#include "rt_internal.h"

#include <barrier.h>
#include <errno.h>
#include <handshake.h>
#include <mutex.h>
#include <sem.h>
#include <stdbool.h>
#include <vmutex.h>

static inline void __op_rt_event(uint32_t ev, uintptr_t obj, uint32_t arg)
{
    __OP_SVC->rt_event(ev, (uint32_t)obj, arg);
}

/* ---- Mutexes: the set of held keys (pointer values), per launch ----------- */

#define MUTEX_SLOTS 512u       /* power of two */
#define MUTEX_MAX_HELD 256u    /* as many as the DPU's atomic bits */

static uintptr_t __op_held_key[MUTEX_SLOTS] __op_scratch;
static uint8_t __op_held_used[MUTEX_SLOTS] __op_scratch;
static uint32_t __op_held_count __op_scratch;

/* Handshakes: waiting tasklet + 1 per notifier, and notifiers waiting. */
static uint8_t __op_hs_waiter[OP_MAX_TASKLETS] __op_scratch;
static uint8_t __op_hs_notifying[OP_MAX_TASKLETS] __op_scratch;

void __op_sync_reset(void)
{
    for (uint32_t i = 0; i < MUTEX_SLOTS; i++) {
        __op_held_key[i] = 0;
        __op_held_used[i] = 0;
    }
    __op_held_count = 0;
    for (uint32_t i = 0; i < OP_MAX_TASKLETS; i++) {
        __op_hs_waiter[i] = 0;
        __op_hs_notifying[i] = 0;
    }
}

static uint32_t __op_slot_of(uintptr_t key)
{
    uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 40) & (MUTEX_SLOTS - 1);
}

/* Slot holding key, or the empty slot where it would go. */
static uint32_t __op_find_slot(uintptr_t key)
{
    uint32_t i = __op_slot_of(key);
    while (__op_held_used[i] && __op_held_key[i] != key)
        i = (i + 1) & (MUTEX_SLOTS - 1);
    return i;
}

static bool __op_is_held(uintptr_t key)
{
    return __op_held_used[__op_find_slot(key)];
}

static void __op_hold(uintptr_t key)
{
    if (__op_held_count >= MUTEX_MAX_HELD)
        __op_faultf(OP_FAULT_RUNTIME, "mutex_lock: more than %u mutexes held at once", (uint64_t)MUTEX_MAX_HELD);
    uint32_t i = __op_find_slot(key);
    __op_held_used[i] = 1;
    __op_held_key[i] = key;
    __op_held_count++;
}

static void __op_release(uintptr_t key)
{
    uint32_t i = __op_find_slot(key);
    if (!__op_held_used[i])
        return;
    __op_held_used[i] = 0;
    __op_held_count--;
    /* Backward-shift deletion keeps every probe chain unbroken. */
    uint32_t hole = i;
    for (uint32_t j = (i + 1) & (MUTEX_SLOTS - 1); __op_held_used[j]; j = (j + 1) & (MUTEX_SLOTS - 1)) {
        uint32_t home = __op_slot_of(__op_held_key[j]);
        /* Move j into the hole unless its home lies cyclically in (hole, j]. */
        bool stays = (hole <= j) ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!stays) {
            __op_held_key[hole] = __op_held_key[j];
            __op_held_used[hole] = 1;
            __op_held_used[j] = 0;
            hole = j;
        }
    }
}

void mutex_lock(mutex_id_t mutex)
{
    uintptr_t key = (uintptr_t)mutex;
    while (__op_is_held(key))
        __OP_SVC->block(__OP_KEY_MUTEX(key));
    __op_hold(key);
    __op_rt_event(OP_RTE_MUTEX_LOCK, key, 1);
    __op_yield();
}

bool mutex_trylock(mutex_id_t mutex)
{
    uintptr_t key = (uintptr_t)mutex;
    bool taken = !__op_is_held(key);
    if (taken)
        __op_hold(key);
    __op_rt_event(OP_RTE_MUTEX_LOCK, key, taken);
    __op_yield();
    return taken;
}

void mutex_unlock(mutex_id_t mutex)
{
    uintptr_t key = (uintptr_t)mutex;
    __op_release(key);
    __op_rt_event(OP_RTE_MUTEX_UNLOCK, key, 0);
    __OP_SVC->wake(__OP_KEY_MUTEX(key), 1);
    __op_yield();
}

/* ---- Virtual mutexes: state bits in the program's WRAM -------------------- */

void __op_vmutex_lock(uint8_t *bits, uint16_t id)
{
    uint8_t mask = (uint8_t)(1u << (id & 7));
    while (bits[id >> 3] & mask)
        __OP_SVC->block(__OP_KEY_VMUTEX(bits, id));
    bits[id >> 3] |= mask;
    __op_rt_event(OP_RTE_VMUTEX_LOCK, (uintptr_t)bits, id);
    __op_yield();
}

void __op_vmutex_unlock(uint8_t *bits, uint16_t id)
{
    bits[id >> 3] &= (uint8_t)~(1u << (id & 7));
    __op_rt_event(OP_RTE_VMUTEX_UNLOCK, (uintptr_t)bits, id);
    __OP_SVC->wake(__OP_KEY_VMUTEX(bits, id), 1);
    __op_yield();
}

/* ---- Semaphores ----------------------------------------------------------- */

void sem_take(sem_t *sem)
{
    int8_t count = (int8_t)(sem->count - 1);
    sem->count = (uint8_t)count;
    __op_rt_event(OP_RTE_SEM_TAKE, (uintptr_t)sem, count < 0);
    if (count < 0)
        __OP_SVC->block(__OP_KEY_SEM(sem)); /* sem_give hands its unit over */
    else
        __op_yield();
}

void sem_give(sem_t *sem)
{
    int8_t count = (int8_t)(sem->count + 1);
    sem->count = (uint8_t)count;
    __op_rt_event(OP_RTE_SEM_GIVE, (uintptr_t)sem, count <= 0);
    if (count <= 0)
        __OP_SVC->wake(__OP_KEY_SEM(sem), 1);
    __op_yield();
}

/* ---- Barriers ------------------------------------------------------------- */

void barrier_wait(barrier_t *barrier)
{
    uint8_t count = barrier->count;
    __op_rt_event(OP_RTE_BARRIER, (uintptr_t)barrier, barrier->initial_count);
    if (count <= 1) {
        barrier->count = barrier->initial_count;
        __OP_SVC->wake(__OP_KEY_BARRIER(barrier), OP_MAX_TASKLETS);
        __op_yield();
    } else {
        barrier->count = (uint8_t)(count - 1);
        __OP_SVC->block(__OP_KEY_BARRIER(barrier));
    }
}

/* ---- Handshakes -----------------------------------------------------------
 *
 * On the DPU a resumed tasklet restarts a few cycles after the one that
 * resumed it, and both then progress at the same rate.  In a chain
 * (k waits for k-1, then notifies k+1: SEL, UNI, SCAN) tasklet k therefore
 * reaches its next DMA before k+1 does, and UNI relies on that order (each
 * tasklet's mram_write overlaps the first element the next one writes).
 * So whichever side is ahead keeps going first:
 *   - a notifier that finds its waiter already waiting wakes it and carries
 *     on without yielding (the waiter has the longer way to go);
 *   - a waiter that finds the notifier already blocked wakes it and yields,
 *     so that the notifier runs before the waiter moves on.
 */

void handshake_notify(void)
{
    uint32_t self = __op_env->tid;
    __op_rt_event(OP_RTE_HS_NOTIFY, self, 0);
    if (__op_hs_waiter[self] != 0) {
        __op_hs_waiter[self] = 0;
        __OP_SVC->wake(__OP_KEY_HS_WAITER(self), 1);
    } else {
        __op_hs_notifying[self] = 1;
        __OP_SVC->block(__OP_KEY_HS_NOTIFIER(self));
    }
}

int handshake_wait_for(sysname_t notifier)
{
    if (notifier >= OP_MAX_TASKLETS)
        __op_faultf(OP_FAULT_RUNTIME, "handshake_wait_for: no tasklet %u", (uint64_t)notifier);
    if (__op_hs_waiter[notifier] != 0) {
        __op_rt_event(OP_RTE_HS_WAIT, notifier, 0);
        errno = EALREADY;
        __op_yield();
        return EALREADY;
    }
    __op_rt_event(OP_RTE_HS_WAIT, notifier, 1);
    if (__op_hs_notifying[notifier]) {
        __op_hs_notifying[notifier] = 0;
        __OP_SVC->wake(__OP_KEY_HS_NOTIFIER(notifier), 1);
        __op_yield();
        return 0;
    }
    __op_hs_waiter[notifier] = (uint8_t)(__op_env->tid + 1);
    __OP_SVC->block(__OP_KEY_HS_WAITER(notifier));
    return 0;
}
