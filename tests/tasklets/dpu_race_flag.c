/* SPDX-License-Identifier: MIT */
/* Data behind a volatile spin flag: tasklet 0 fills the payload, then sets
 * the flag; tasklet 1 waits for the flag, then reads the payload.  The flag
 * is the program's own signal (not reported); nothing orders the payload's
 * accesses (the compiler may move them across the volatile ones). */
#include <defs.h>
#include <stdint.h>

__host volatile uint32_t ready;
__host uint32_t payload, got;

int main(void)
{
    if (me() == 0) {
        payload = 42; /* RACE_W */
        ready = 1;
    } else if (me() == 1) {
        while (!ready)
            ;
        got = payload; /* RACE_R */
    }
    return 0;
}
