/* SPDX-License-Identifier: MIT */
/* Barriers whose fields are written at run time (as HST-L does), used by two
 * groups of tasklets; nobody runs ahead: after each barrier every member has
 * arrived, and every member leaves once per round (each takes the next slot
 * of its group's list under a mutex: the members leave together, as from the
 * DPU's barrier, and an unlocked left[g]++ would lose slots as on the DPU). */
#include <atomic_bit.h>
#include <barrier.h>
#include <defs.h>
#include <mutex.h>
#include <stdint.h>

#define GROUPS 2
#define ROUNDS 10
#define PER_GROUP (NR_TASKLETS / GROUPS)

ATOMIC_BIT_INIT(barrier_bits)[GROUPS];
barrier_t groups[GROUPS];
BARRIER_INIT(start, NR_TASKLETS);
MUTEX_INIT(slot_lock);

__host uint32_t errors;
__host uint32_t leave_order[ROUNDS][NR_TASKLETS];
__host uint32_t counts_after[GROUPS];
static uint32_t arrived[NR_TASKLETS];
static uint32_t left[GROUPS];

int main(void)
{
    uint32_t tid = me(), g = tid % GROUPS;
    if (tid == 0) {
        errors = 0;
        for (int i = 0; i < GROUPS; i++) {
            groups[i].wait_queue = 0xff;
            groups[i].count = PER_GROUP;
            groups[i].initial_count = PER_GROUP;
            groups[i].lock = (uint8_t)(uintptr_t)&ATOMIC_BIT_GET(barrier_bits)[i];
        }
        for (int i = 0; i < NR_TASKLETS; i++)
            arrived[i] = 0;
    }
    barrier_wait(&start);
    for (uint32_t r = 1; r <= ROUNDS; r++) {
        if (tid < GROUPS)
            left[g] = 0;
        arrived[tid] = r;
        barrier_wait(&groups[g]);
        for (uint32_t m = g; m < NR_TASKLETS; m += GROUPS)
            if (arrived[m] < r)
                errors++;
        mutex_lock(slot_lock);
        leave_order[r - 1][g * PER_GROUP + left[g]++] = tid;
        mutex_unlock(slot_lock);
        barrier_wait(&groups[g]);
    }
    if (tid < GROUPS)
        counts_after[tid] = groups[tid].count;
    return 0;
}
