/* SPDX-License-Identifier: MIT */
/* Mutexes are keyed by the pointer value, NULL included (HST-L never
 * initialises its mutex_id_t array), and give real exclusion even when the
 * critical section yields (a DMA inside it). */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <mutex.h>
#include <stdint.h>

#define ROUNDS 50

mutex_id_t never_set[2]; /* both NULL */
MUTEX_INIT(named);
BARRIER_INIT(all, NR_TASKLETS);

__host uint32_t counter;
__host uint32_t named_counter;
__host uint32_t trylock_results[4];
__mram_noinit uint64_t scratch[NR_TASKLETS];

int main(void)
{
    uint64_t v = me();
    if (me() == 0) {
        counter = 0;
        named_counter = 0;
        /* not recursive: a held NULL mutex cannot be taken again */
        mutex_lock(never_set[0]);
        trylock_results[0] = mutex_trylock(never_set[1]);      /* same key: false */
        trylock_results[1] = mutex_trylock((mutex_id_t)1);     /* another key: true */
        trylock_results[2] = mutex_trylock(MUTEX_GET(named));  /* true */
        mutex_unlock((mutex_id_t)1);
        mutex_unlock(named);
        mutex_unlock(never_set[0]);
        trylock_results[3] = mutex_trylock(never_set[0]);      /* free again: true */
        mutex_unlock(never_set[0]);
    }
    barrier_wait(&all);
    for (int r = 0; r < ROUNDS; r++) {
        mutex_lock(never_set[me() & 1]); /* every tasklet uses the same NULL key */
        uint32_t seen = counter;
        mram_write(&v, &scratch[me()], 8); /* yields inside the critical section */
        counter = seen + 1;
        mutex_unlock(never_set[me() & 1]);

        mutex_lock(named);
        uint32_t n = named_counter;
        mram_read(&scratch[me()], &v, 8);
        named_counter = n + 1;
        mutex_unlock(named);
    }
    return 0;
}
