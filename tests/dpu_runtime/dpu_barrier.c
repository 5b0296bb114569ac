/* Barriers whose fields are written at run time (as HST-L does), used by two
 * groups of tasklets; nobody runs ahead: after each barrier every member has
 * arrived, and the members leave in tasklet order (the last arrival yields). */
#include <atomic_bit.h>
#include <barrier.h>
#include <defs.h>
#include <stdint.h>

#define GROUPS 2
#define ROUNDS 10
#define PER_GROUP (NR_TASKLETS / GROUPS)

ATOMIC_BIT_INIT(barrier_bits)[GROUPS];
barrier_t groups[GROUPS];
BARRIER_INIT(start, NR_TASKLETS);

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
        leave_order[r - 1][g * PER_GROUP + left[g]++] = tid;
        barrier_wait(&groups[g]);
    }
    if (tid < GROUPS)
        counts_after[tid] = groups[tid].count;
    return 0;
}
