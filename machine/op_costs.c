/* The machine description's operation costs -> the cost table that the
 * instruction-accounting pass reads at run time (see op_cost_slots.h). */
#include "op_costs.h"

#include "timing.h"

void op_fill_costs(uint32_t *slots, const struct op_op_costs *c)
{
    slots[OP_COST_MUL8] = c->mul8;
    slots[OP_COST_INT32_MUL_BASE] = c->int32_mul_base;
    slots[OP_COST_INT32_MUL_PER_BIT] = c->int32_mul_per_bit;
    slots[OP_COST_INT32_DIV_BASE] = c->int32_div_base;
    slots[OP_COST_INT32_DIV_PER_STEP] = c->int32_div_per_step;
    slots[OP_COST_INT32_DIV_SIGNED_EXTRA] = c->int32_div_signed_extra;
    slots[OP_COST_INT64_MUL] = c->int64_mul;
    slots[OP_COST_INT64_DIV] = c->int64_div;
    slots[OP_COST_FLOAT_ADD] = c->float_add;
    slots[OP_COST_FLOAT_MUL] = c->float_mul;
    slots[OP_COST_FLOAT_DIV] = c->float_div;
    slots[OP_COST_DOUBLE_ADD] = c->double_add;
    slots[OP_COST_DOUBLE_MUL] = c->double_mul;
    slots[OP_COST_DOUBLE_DIV] = c->double_div;
    slots[OP_COST_CONVERSION] = c->conversion;
    slots[OP_COST_FP_COMPARE] = c->fp_compare;
    /* The description has one compare cost (float, __cmpsf2 20 instructions,
     * ref §1.2); __cmpdf2 is taken as 1.5x that (30 for v1A), the estimate the
     * accounting pass used as a constant before. */
    slots[OP_COST_DOUBLE_COMPARE] = c->fp_compare + c->fp_compare / 2;
}
