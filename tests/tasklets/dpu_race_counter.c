/* SPDX-License-Identifier: MIT */
/* The counter race: every tasklet adds to a shared word without a mutex. */
#include <defs.h>
#include <stdint.h>

__host uint32_t counter;

int main(void)
{
    counter += me() + 1; /* RACE: read and written by every tasklet */
    return 0;
}
