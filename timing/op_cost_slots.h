/* SPDX-License-Identifier: MIT */
/* Slots of the DPU operation-cost table `uint32_t __op_costs[OP_COST_COUNT]`.
 *
 * One header, three users:
 *  - the instruction-accounting pass (timing/llvm/OpenPIMCount.cpp, C++) loads
 *    these slots at run time wherever an operation's cost belongs to the
 *    machine description, instead of baking a constant into the program;
 *  - the DPU runtime (dpu/runtime/costs.c) defines the table (section .opbss);
 *  - the worker fills it from the machine description (struct op_op_costs,
 *    timing/timing.h) when it loads an image: op_fill_costs, worker/op_costs.c.
 * So a what-if such as "one-cycle 32-bit multiplier" is a change of the
 * description file only; DPU programs are not rebuilt.
 *
 * The order is an ABI between compiled DPU programs and the worker: append new
 * slots before OP_COST_COUNT, never reorder.  Values are DPU instructions.
 * Ordinary ALU instructions (int32/int64 add, logic, shifts, compares, branches)
 * are not in the table: the pass keeps them as static constants. */
#ifndef OPENPIM_OP_COST_SLOTS_H
#define OPENPIM_OP_COST_SLOTS_H

/* The machine description's operation costs, in slot order: X(slot, field of
 * struct op_op_costs and description key op_<field>, source of the default).
 * The one list: the slots below, the description's fields and keys
 * (timing/timing.h, timing/machine_desc.c) and the worker's fill
 * (worker/op_costs.c) are generated from it. */
#define OP_OP_COST_LIST(X)                                                                                                   \
    X(OP_COST_MUL8, mul8, "calibration-sources §1.2: native 8x8->16 multiply 1")                                             \
    X(OP_COST_INT32_MUL_BASE, int32_mul_base, "calibration-sources §6: __mulsi3 ~6 + bitlen(min) + ~2 call/ret")             \
    X(OP_COST_INT32_MUL_PER_BIT, int32_mul_per_bit, "calibration-sources §1.2: one mul_step per bit of the smaller operand") \
    X(OP_COST_INT32_DIV_BASE, int32_div_base, "calibration-sources §6: udiv 6 + steps (+~2 call/ret)")                       \
    X(OP_COST_INT32_DIV_PER_STEP, int32_div_per_step, "calibration-sources §1.2: one div_step per quotient bit")             \
    X(OP_COST_INT32_DIV_SIGNED_EXTRA, int32_div_signed_extra, "calibration-sources §6: ~6 for signed division")              \
    X(OP_COST_INT64_MUL, int64_mul, "calibration-sources §6: ~125 (__muldi3; PrIM 137 cyc/op - loop)")                       \
    X(OP_COST_INT64_DIV, int64_div, "calibration-sources §6: ~240 (PrIM 250 cyc/op - loop)")                                 \
    X(OP_COST_FLOAT_ADD, float_add, "calibration-sources §6: ~65 (PrIM 71 cyc/op - loop)")                                   \
    X(OP_COST_FLOAT_MUL, float_mul, "calibration-sources §6: ~178 (PrIM 183)")                                               \
    X(OP_COST_FLOAT_DIV, float_div, "calibration-sources §6: ~1025 (PrIM 1030)")                                             \
    X(OP_COST_DOUBLE_ADD, double_add, "calibration-sources §6: ~100 (PrIM 105)")                                             \
    X(OP_COST_DOUBLE_MUL, double_mul, "calibration-sources §6: ~655 (PrIM 660)")                                             \
    X(OP_COST_DOUBLE_DIV, double_div, "calibration-sources §6: ~2185 (PrIM 2190)")                                           \
    X(OP_COST_CONVERSION, conversion, "calibration-sources §1.2: __floatsisf 30 / __fixsfsi 27 instr")                       \
    X(OP_COST_FP_COMPARE, fp_compare, "calibration-sources §1.2: __cmpsf2 20 instr")

#define OP_COST_SLOT_(slot, field, source) slot,
enum op_cost_slot {
    OP_OP_COST_LIST(OP_COST_SLOT_)
    OP_COST_DOUBLE_COMPARE, /* double compare: derived from fp_compare (op_fill_costs), no key of its own */
    OP_COST_COUNT
};
#undef OP_COST_SLOT_

/* Name of the table's symbol in a DPU image. */
#define OP_COSTS_SYMBOL "__op_costs"

#endif
