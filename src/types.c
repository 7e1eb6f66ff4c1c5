/* Element types as the kernels see them: which kernel type runs an
 * operator on a type, and each operator's identity. The public enums that
 * share codes with the kernels (cl/contract.h) are pinned here. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "internal.h"

_Static_assert(CLREDUCE_FLOAT == CLR_TYPE_FLOAT && CLREDUCE_DOUBLE == CLR_TYPE_DOUBLE &&
                   CLREDUCE_INT32 == CLR_TYPE_INT && CLREDUCE_UINT32 == CLR_TYPE_UINT &&
                   CLREDUCE_INT64 == CLR_TYPE_LONG && CLREDUCE_UINT64 == CLR_TYPE_ULONG &&
                   CLREDUCE_HALF == CLR_TYPE_HALF && CLREDUCE_BFLOAT16 == CLR_TYPE_BFLOAT16,
               "clreduce_type and CLR_TYPE_* share their values");
_Static_assert(CLREDUCE_OP_SUM == CLR_OP_SUM && CLREDUCE_OP_MIN == CLR_OP_MIN &&
                   CLREDUCE_OP_MAX == CLR_OP_MAX,
               "clreduce_op and CLR_OP_* share their values");
_Static_assert(CLREDUCE_OP_ARGMIN == CLR_OP_ARGMIN && CLREDUCE_OP_ARGMAX == CLR_OP_ARGMAX &&
                   CLREDUCE_OP_MINMAX == CLR_OP_MINMAX &&
                   CLREDUCE_OP_SUM_SQUARES == CLR_OP_SUM_SQUARES &&
                   CLREDUCE_OP_SUM_ABS == CLR_OP_SUM_ABS && CLREDUCE_OP_NORM2 == CLR_OP_NORM2 &&
                   CLREDUCE_OP_MEAN_VAR == CLR_OP_MEAN_VAR && CLREDUCE_OP_DOT == CLR_OP_DOT,
               "clreduce_op and operators.cl's CLR_OP_* share their values");
_Static_assert(CLREDUCE_SUBGROUP_PATH_NONE == CLR_SG_NONE &&
                   CLREDUCE_SUBGROUP_PATH_NV_PTX == CLR_SG_NV_PTX &&
                   CLREDUCE_SUBGROUP_PATH_SHUFFLE_RELATIVE == CLR_SG_SHUFFLE_RELATIVE &&
                   CLREDUCE_SUBGROUP_PATH_SHUFFLE == CLR_SG_SHUFFLE &&
                   CLREDUCE_SUBGROUP_PATH_REDUCE == CLR_SG_REDUCE,
               "clreduce_subgroup_path and CLR_SG_* share their values");
_Static_assert(CLREDUCE_INTERLEAVED == CLR_REDUCE_INTERLEAVED &&
                   CLREDUCE_SEQUENTIAL == CLR_REDUCE_SEQUENTIAL &&
                   CLREDUCE_FIRST_ADD == CLR_REDUCE_FIRST_ADD &&
                   CLREDUCE_SUBGROUP_TAIL == CLR_REDUCE_SUBGROUP_TAIL &&
                   CLREDUCE_SUBGROUP == CLR_REDUCE_SUBGROUP &&
                   CLREDUCE_UNROLLED == CLR_REDUCE_UNROLLED &&
                   CLREDUCE_GRID_STRIDE == CLR_REDUCE_GRID_STRIDE &&
                   CLREDUCE_ATOMIC == CLR_REDUCE_ATOMIC &&
                   CLREDUCE_SINGLE_PASS == CLR_REDUCE_SINGLE_PASS &&
                   CLREDUCE_REPRODUCIBLE == CLR_REDUCE_REPRODUCIBLE,
               "clreduce_variant and CLR_REDUCE_* share their values");
_Static_assert(CLREDUCE_SCAN_HILLIS_STEELE == CLR_SCAN_HILLIS_STEELE &&
                   CLREDUCE_SCAN_BLELLOCH == CLR_SCAN_BLELLOCH &&
                   CLREDUCE_SCAN_REDUCE_THEN_SCAN == CLR_SCAN_REDUCE_THEN_SCAN &&
                   CLREDUCE_SCAN_LOOKBACK == CLR_SCAN_LOOKBACK,
               "clreduce_scan_variant and CLR_SCAN_* share their values");

/* The kernel's element type: signed sums run as unsigned ones (same bits,
 * wrap-around without undefined behaviour). Values are CLR_TYPE's. */
int kernel_type(clreduce_op op, clreduce_type type)
{
    if (op == CLREDUCE_OP_SUM && type == CLREDUCE_INT32)
        return CLREDUCE_UINT32;
    if (op == CLREDUCE_OP_SUM && type == CLREDUCE_INT64)
        return CLREDUCE_UINT64;
    return type;
}

/* Writes the identity of op for type into out (clreduce_type_size bytes). */
void identity_value(clreduce_op op, clreduce_type type, void *out)
{
#define STORE(T, value)                                                                         \
    do {                                                                                        \
        T value_ = (value);                                                                     \
        memcpy(out, &value_, sizeof value_);                                                    \
    } while (0)
    int lo = op == CLREDUCE_OP_MAX; /* max starts from the lowest value */
    if (op == CLREDUCE_OP_SUM) {
        memset(out, 0, clreduce_type_size(type));
        return;
    }
    switch (type) {
    case CLREDUCE_FLOAT: STORE(float, lo ? -HUGE_VALF : HUGE_VALF); break;
    case CLREDUCE_DOUBLE: STORE(double, lo ? -HUGE_VAL : HUGE_VAL); break;
    case CLREDUCE_INT32: STORE(int32_t, lo ? INT32_MIN : INT32_MAX); break;
    case CLREDUCE_UINT32: STORE(uint32_t, lo ? 0 : UINT32_MAX); break;
    case CLREDUCE_INT64: STORE(int64_t, lo ? INT64_MIN : INT64_MAX); break;
    case CLREDUCE_UINT64: STORE(uint64_t, lo ? 0 : UINT64_MAX); break;
    /* Storage types reach a plan only as a user-defined operator's input,
     * whose identity is the operator's own. */
    case CLREDUCE_HALF:
    case CLREDUCE_BFLOAT16: memset(out, 0, clreduce_type_size(type)); break;
    }
#undef STORE
}
