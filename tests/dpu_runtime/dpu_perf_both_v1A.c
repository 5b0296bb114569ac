/* SPDX-License-Identifier: MIT */
/* A program built for v1A that asks for both counters anyway (by value: the
 * v1A header does not offer them): the DPU faults, as a v1A DPU does. */
#include <perfcounter.h>

int main(void)
{
    perfcounter_config((perfcounter_config_t)7 /* COUNT_ENABLE_BOTH */, true);
    return 0;
}
