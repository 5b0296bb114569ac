/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU runtime: the operation-cost table read by the instruction-
 * accounting pass (timing/op_cost_slots.h).  The worker fills it from the
 * machine description when it loads the image, so costs such as a 32-bit
 * multiply change with the description, not with the program's build.
 * Linked into every image (-Wl,-u,__op_costs in the driver).  Unlike the rest
 * of the scratch section it is written once per image load, not per launch:
 * __op_boot must not clear it. */
#include "rt_internal.h"

#include <op_cost_slots.h>

uint32_t __op_costs[OP_COST_COUNT] __op_scratch;
