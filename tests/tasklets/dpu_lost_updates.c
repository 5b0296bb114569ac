/* SPDX-License-Identifier: MIT */
/* counter++ on one WRAM word by every tasklet, without a mutex.  On the DPU
 * the tasklets start one cycle apart and the revolver pipeline issues them in
 * turn, so each round of the loop every tasklet loads the word before any of
 * them stores it back: the round adds 1, whatever the number of tasklets
 * (the load-to-store distance, two instructions at max(11, tasklets) cycles
 * each, exceeds the spread of the loads, tasklets - 1 cycles). */
#include <defs.h>
#include <stdint.h>

__host uint32_t iterations;
__host volatile uint32_t counter;

int main(void)
{
    for (uint32_t i = 0; i < iterations; i++)
        counter++;
    return 0;
}
