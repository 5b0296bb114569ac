/* SPDX-License-Identifier: MIT */
/* The machine description's operation costs -> the cost table that the
 * instruction-accounting pass reads at run time (see op_cost_slots.h). */
#include "op_costs.h"

#include "../timing/timing.h"

void op_fill_costs(uint32_t *slots, const struct op_op_costs *c)
{
#define OP_FILL_(slot, field, source) slots[slot] = c->field;
    OP_OP_COST_LIST(OP_FILL_)
#undef OP_FILL_
    /* The description has one compare cost (float, __cmpsf2 20 instructions,
     * calibration-sources §1.2); __cmpdf2 is taken as 1.5x that (30 for v1A), the estimate the
     * accounting pass used as a constant before. */
    slots[OP_COST_DOUBLE_COMPARE] = c->fp_compare + c->fp_compare / 2;
}
