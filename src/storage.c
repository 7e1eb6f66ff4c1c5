/* Sum, min and max of the storage types (half, bfloat16): each is a
 * user-defined operator of the context's own over the elements widened to
 * float, created on first use, so that the built-in calls take these types
 * through the kernels of user-defined operators (operators.cl), with float
 * results. */
#include <stdio.h>

#include "families.h"

/* The operators in OpenCL C, named "<type>_<op>" (in messages, and in the
 * kernels' names). min and max follow types.cl's float rules: NaN
 * propagates, -0.0 orders below +0.0. */
static const clreduce_operator_desc storage_descs[STORAGE_OPS] = {
#define STORAGE_DESC(identity_, combine_)                                                      \
    {.inputs = 1, .acc_type = "float", .acc_size = sizeof(float), .acc_align = sizeof(float),  \
     .identity = identity_, .map = "x", .combine = combine_, .commutative = 1}
    [CLREDUCE_OP_SUM] = STORAGE_DESC("0.0f", "a + b"),
    [CLREDUCE_OP_MIN] = STORAGE_DESC("INFINITY",
                                     "(isnan(a) || a < b || (a == b && signbit(a))) ? a : b"),
    [CLREDUCE_OP_MAX] = STORAGE_DESC("-INFINITY",
                                     "(isnan(a) || a > b || (a == b && !signbit(a))) ? a : b"),
#undef STORAGE_DESC
};

/* The context's operator for op on type, created on first use. */
static clreduce_status storage_operator(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                                        clreduce_operator **out)
{
    clreduce_operator **slot = &ctx->storage_ops[type == CLREDUCE_BFLOAT16][op];
    clreduce_status status = CLREDUCE_SUCCESS;
    pthread_mutex_lock(&ctx->storage_lock);
    if (!*slot) {
        char name[32];
        snprintf(name, sizeof name, "%s_%s", clreduce_type_name(type), clreduce_op_name(op));
        clreduce_operator_desc d = storage_descs[op];
        d.name = name;
        d.input_type = type;
        status = clreduce_operator_create(ctx, &d, slot);
    }
    *out = *slot;
    pthread_mutex_unlock(&ctx->storage_lock);
    return status;
}

clreduce_status storage_route(clreduce_ctx *ctx, const op_family **f, const request **r,
                              request *routed)
{
    const request *q = *r;
    if (q->custom || !is_storage_type(q->type) || !(*f)->storage ||
        (unsigned)q->op > CLREDUCE_OP_MAX)
        return CLREDUCE_SUCCESS; /* plan_start() refuses what is left */
    clreduce_operator *op;
    clreduce_status status = storage_operator(ctx, q->op, q->type, &op);
    if (status != CLREDUCE_SUCCESS)
        return status;
    *routed = *q;
    routed->custom = op;
    routed->op = CLREDUCE_OP_SUM; /* the operator's plan replaces it */
    routed->routed = 1;
    *f = (*f)->storage;
    *r = routed;
    return CLREDUCE_SUCCESS;
}

void storage_release(clreduce_ctx *ctx)
{
    for (size_t t = 0; t < 2; t++)
        for (size_t op = 0; op < STORAGE_OPS; op++)
            clreduce_operator_release(ctx->storage_ops[t][op]);
    pthread_mutex_destroy(&ctx->storage_lock);
}
