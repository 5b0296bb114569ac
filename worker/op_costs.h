/* SPDX-License-Identifier: MIT */
/* Fills a DPU image's operation-cost table (__op_costs, timing/op_cost_slots.h)
 * from the machine description's operation costs. */
#ifndef OPENPIM_OP_COSTS_H
#define OPENPIM_OP_COSTS_H

#include <stdint.h>

#include "../timing/op_cost_slots.h"

struct op_op_costs;

/* slots: OP_COST_COUNT entries. */
void op_fill_costs(uint32_t *slots, const struct op_op_costs *c);

#endif
