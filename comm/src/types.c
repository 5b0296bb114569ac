/* SPDX-License-Identifier: MIT */
/* Element types and reduction operations: which combinations exist. */
#include "internal.h"

static const size_t sizes[OPENPIM_NR_TYPES] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
static const char *const type_names[OPENPIM_NR_TYPES] = {"int8", "uint8", "int16", "uint16", "int32",
                                                         "uint32", "int64", "uint64", "float", "double"};
static const char *const op_names[OPENPIM_NR_OPS] = {"sum", "min", "max", "and", "or", "xor"};

size_t openpim_comm_type_size(openpim_comm_type type)
{
    return (unsigned)type < OPENPIM_NR_TYPES ? sizes[type] : 0;
}

static bool is_float(openpim_comm_type type)
{
    return type == OPENPIM_FLOAT || type == OPENPIM_DOUBLE;
}

bool comm_type_op_ok(openpim_comm_type type, openpim_comm_op op)
{
    if ((unsigned)type >= OPENPIM_NR_TYPES || (unsigned)op >= OPENPIM_NR_OPS)
        return false;
    return !is_float(type) || op == OPENPIM_SUM || op == OPENPIM_MIN || op == OPENPIM_MAX;
}

openpim_comm_status comm_check_type_op(openpim_comm_type type, openpim_comm_op op)
{
    if ((unsigned)type >= OPENPIM_NR_TYPES)
        return comm_fail(OPENPIM_COMM_ERR_TYPE_OP, "unknown element type %d", (int)type);
    if ((unsigned)op >= OPENPIM_NR_OPS)
        return comm_fail(OPENPIM_COMM_ERR_TYPE_OP, "unknown operation %d", (int)op);
    if (!comm_type_op_ok(type, op))
        return comm_fail(OPENPIM_COMM_ERR_TYPE_OP, "operation %s is not defined on %s (floats: sum, min, max)",
                         op_names[op], type_names[type]);
    return OPENPIM_COMM_OK;
}

bool comm_bytewise(openpim_comm_type type, openpim_comm_op op)
{
    return op == OPENPIM_AND || op == OPENPIM_OR || op == OPENPIM_XOR || type == OPENPIM_INT8 ||
           type == OPENPIM_UINT8;
}
