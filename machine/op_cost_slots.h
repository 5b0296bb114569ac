/* Slots of the DPU operation-cost table `uint32_t __op_costs[OP_COST_COUNT]`.
 *
 * One header, three users:
 *  - the instruction-accounting pass (timing/llvm/OpenPIMCount.cpp, C++) loads
 *    these slots at run time wherever an operation's cost belongs to the
 *    machine description, instead of baking a constant into the program;
 *  - the DPU runtime (dpu/runtime/costs.c) defines the table (section .opbss);
 *  - the worker fills it from the machine description (struct op_op_costs,
 *    timing/timing.h) when it loads an image: op_fill_costs, machine/op_costs.c.
 * So a what-if such as "one-cycle 32-bit multiplier" is a change of the
 * description file only; DPU programs are not rebuilt.
 *
 * The order is an ABI between compiled DPU programs and the worker: append new
 * slots before OP_COST_COUNT, never reorder.  Values are DPU instructions.
 * Ordinary ALU instructions (int32/int64 add, logic, shifts, compares, branches)
 * are not in the table: the pass keeps them as static constants. */
#ifndef OPENPIM_OP_COST_SLOTS_H
#define OPENPIM_OP_COST_SLOTS_H

enum op_cost_slot {
    OP_COST_MUL8 = 0,               /* native 8x8->16 multiply (mul_ul_ul) */
    OP_COST_INT32_MUL_BASE,         /* 32-bit multiply: base + per_bit * bitlen(min(ua, ub)) */
    OP_COST_INT32_MUL_PER_BIT,
    OP_COST_INT32_DIV_BASE,         /* 32-bit division: base + per_step * steps */
    OP_COST_INT32_DIV_PER_STEP,
    OP_COST_INT32_DIV_SIGNED_EXTRA, /* + this for sdiv/srem */
    OP_COST_INT64_MUL,
    OP_COST_INT64_DIV,
    OP_COST_FLOAT_ADD,              /* also sub */
    OP_COST_FLOAT_MUL,
    OP_COST_FLOAT_DIV,
    OP_COST_DOUBLE_ADD,
    OP_COST_DOUBLE_MUL,
    OP_COST_DOUBLE_DIV,
    OP_COST_CONVERSION,             /* int<->float/double, float<->double */
    OP_COST_FP_COMPARE,             /* float compare */
    OP_COST_DOUBLE_COMPARE,         /* double compare (derived from fp_compare, see op_fill_costs) */
    OP_COST_COUNT
};

/* Name of the table's symbol in a DPU image. */
#define OP_COSTS_SYMBOL "__op_costs"

#endif
