/* SPDX-License-Identifier: MIT */
/* This host's core clock while SEAL is timed beside the modelled DPU figures
 * (bench/he/seal_bench.py relates one SEAL thread here to one on DRAMatic's
 * Xeon by it): GHz by a chain of dependent adds, best of `reps` runs of
 * 160 million adds.
 *   host_clock [reps] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "../bench.h"

int main(int argc, char **argv)
{
    int reps = argc > 1 ? (int)bench_parse_u64("reps", argv[1], 0, 1u << 20) : 20;
    if (reps < 1) {
        fprintf(stderr, "usage: host_clock [reps >= 1]\n");
        return 2;
    }
    printf("%.3f\n", bench_clock_hz(20000000, reps) / 1e9);
    return 0;
}
