/* SPDX-License-Identifier: MIT */
/* A machine on which loading a program, pushing its arguments and launching it
 * cost nothing (profile keys of the timing model): the optimised AlltoAll and
 * AllGather along dimension 0 then take their kernel path at every size (the
 * general path wins at small sizes on a real machine: comm/src/optimised.c,
 * "the kernel paths' size threshold"), so that tests see that path at their
 * small sizes. */
#ifndef COMM_FREE_KERNELS_H
#define COMM_FREE_KERNELS_H

#define COMM_TEST_FREE_KERNELS                                                                                         \
    "h2d_wram_fixed_us=0,h2d_wram_fixed_us_per_doubling=0,h2d_wram_ns_per_byte=0:0:0:0,launch_base_us=0,"             \
    "launch_mux_us=0,launch_mux_back_us=0"

#endif
