/* SPDX-License-Identifier: MIT */
/* Sum of every tasklet's `mine` (all tasklets must call it). */
#include <stdint.h>
uint64_t reduce_sum(uint64_t mine);
