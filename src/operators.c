/* Reductions with the operators past max (cl/operators.cl): argmin, argmax,
 * minmax, sums of squares and of absolute values, the Euclidean norm, mean
 * and variance, and dot products, as two operation families of the request
 * pipeline (one input; two for dot) that share their plan and launches. They
 * run the grid shape of reduce.c's GRID_STRIDE and SINGLE_PASS variants
 * (cl/reduce_operators.cl); results are written in the layouts of
 * clreduce.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "families.h"

/* ---- programs ---------------------------------------------------------------- */

#define LAYERS clreduce_cl_contract, clreduce_cl_types, clreduce_cl_operators, \
               clreduce_cl_grid_walk, clreduce_cl_grid_accumulators

static const char *const grid_sources[] = {LAYERS, clreduce_cl_reduce_operators};
static const char *const ordered_sources[] = {LAYERS, clreduce_cl_device_order,
                                              clreduce_cl_reduce_operators};
static const char *const grid_kernels[] = {"clr_reduce_op", "clr_reduce_op_finish"};

static const program_spec grid_program = {grid_sources, 6, grid_kernels, 2, 0};
static const program_spec single_pass_program = {ordered_sources, 7, grid_kernels, 1, 1};

/* ---- operators ----------------------------------------------------------------- */

size_t clreduce_result_size(clreduce_op op, clreduce_type type)
{
    size_t size = clreduce_type_size(type);
    if (!size || (unsigned)op >= CLREDUCE_OP_COUNT)
        return 0;
    if (is_storage_type(type)) /* sum, min and max only, of floats */
        return op <= CLREDUCE_OP_MAX ? sizeof(float) : 0;
    switch (op) {
    case CLREDUCE_OP_ARGMIN:
    case CLREDUCE_OP_ARGMAX:
        return 16;
    case CLREDUCE_OP_MINMAX:
        return 2 * size;
    case CLREDUCE_OP_NORM2:
        return is_float_type(type) ? size : 0;
    case CLREDUCE_OP_MEAN_VAR:
        return is_float_type(type) ? 2 * size + 8 : 0;
    default:
        return size;
    }
}

/* What a reduction of no element writes (clreduce.h): identities of min and
 * max where the result holds them (index UINT64_MAX for argmin/argmax),
 * zeros elsewhere. */
void operator_empty_result(clreduce_op op, clreduce_type type, unsigned char *out)
{
    size_t size = clreduce_type_size(type);
    memset(out, 0, clreduce_result_size(op, type));
    switch (op) {
    case CLREDUCE_OP_ARGMIN:
    case CLREDUCE_OP_ARGMAX: {
        uint64_t none = UINT64_MAX;
        identity_value(op == CLREDUCE_OP_ARGMIN ? CLREDUCE_OP_MIN : CLREDUCE_OP_MAX, type, out);
        memcpy(out + 8, &none, sizeof none);
        break;
    }
    case CLREDUCE_OP_MINMAX:
        identity_value(CLREDUCE_OP_MIN, type, out);
        identity_value(CLREDUCE_OP_MAX, type, out + size);
        break;
    default:
        break;
    }
}

/* ---- plan ------------------------------------------------------------------------ */

void fit_accumulators(const clreduce_ctx *ctx, plan *p)
{
    /* Work-groups reduce their accumulators (up to ACCUMULATOR_MAX bytes) in
     * local memory: keep them to half of it, as tuning.c does for
     * elements. */
    while (p->t.work_group_size > 64 &&
           p->t.work_group_size * ACCUMULATOR_MAX > ctx->info.local_mem_size / 2)
        p->t.work_group_size /= 2;
}

clreduce_status plan_operator(clreduce_ctx *ctx, const request *r, plan *p, const char *family)
{
    if (clreduce_result_size(r->op, r->type) == 0)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "%sop %s is defined for float and double only, not %s", family,
                         clreduce_op_name(r->op), clreduce_type_name(r->type));
    fit_accumulators(ctx, p);
    p->output_size = clreduce_result_size(r->op, r->type);
    operator_empty_result(r->op, r->type, p->empty_output);
    defines_add(&p->family_defines, "CLR_RESULT_SIZE", (long long)p->output_size);
    return CLREDUCE_SUCCESS;
}

clreduce_status refuse_dot(clreduce_ctx *ctx, const char *family, const char *call)
{
    return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                     "%s take one input; op dot has two inputs: call %s()", family, call);
}

static clreduce_status operator_plan(clreduce_ctx *ctx, const request *r, plan *p)
{
    if ((unsigned)r->variant >= CLREDUCE_VARIANT_COUNT)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown variant %d", r->variant);
    clreduce_status status = plan_start(ctx, r, p);
    if (status != CLREDUCE_SUCCESS)
        return status;
    if (!op_is_extended(r->op))
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "op %s is not one of the operators past max", clreduce_op_name(r->op));
    if (clreduce_result_size(r->op, r->type) == 0)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "op %s is defined for float and double only, not %s",
                         clreduce_op_name(r->op), clreduce_type_name(r->type));
    clreduce_variant v = (clreduce_variant)r->variant;
    if (v == CLREDUCE_AUTO && ctx->settings.reproducible && has_fixed_order(r->op, p->type))
        v = CLREDUCE_REPRODUCIBLE;
    if (v == CLREDUCE_REPRODUCIBLE && has_fixed_order(r->op, p->type))
        return fixed_batches_plan(ctx, r, p, 0, "variant reproducible");
    if (v == CLREDUCE_REPRODUCIBLE && !op_depends_on_order(r->op, p->type))
        v = CLREDUCE_AUTO; /* the same bits in every variant */
    if (v == CLREDUCE_REPRODUCIBLE)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "variant reproducible has no fixed order for %s of %s (sums, sums of "
                         "squares and of absolute values and dot products of float and double "
                         "have one)",
                         clreduce_op_name(r->op), clreduce_type_name(r->type));
    if (v == CLREDUCE_AUTO)
        v = clreduce_auto_variant(ctx, p->type);
    if (v != CLREDUCE_GRID_STRIDE && v != CLREDUCE_SINGLE_PASS)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "op %s runs on variants auto, grid_stride and single_pass, not %s",
                         clreduce_op_name(r->op), clreduce_variant_name(v));
    p->variant = v;
    grid_defines(p, v);
    if ((status = plan_operator(ctx, r, p, "")) != CLREDUCE_SUCCESS)
        return status;
    tuning_for_operators(&ctx->info, &ctx->settings, &r->op, 1, p->type, 0, &p->t);
    if (r->variant == CLREDUCE_AUTO)
        tuning_for_flat_range(&ctx->info, &ctx->settings, r->op, p->type, r->count, &p->t);
    p->work_group_size = p->t.work_group_size;
    p->unroll = p->t.loads_per_work_item;
    p->program = v == CLREDUCE_SINGLE_PASS ? &single_pass_program : &grid_program;
    /* Work-groups reduce their accumulators in local memory: no sub-group
     * layer (its shuffles move one element, not a structure). */
    p->path = CLREDUCE_SUBGROUP_PATH_NONE;
    return CLREDUCE_SUCCESS;
}

clreduce_status plan_teams(clreduce_ctx *ctx, const request *r, plan *p, const char *family,
                           const program_spec *plain, const program_spec *operators)
{
    if (r->custom) {
        clreduce_status status = plan_custom_teams(ctx, r, p, family, operators);
        if (status != CLREDUCE_SUCCESS)
            return status;
    } else if (op_is_extended(r->op)) {
        /* Teams reduce accumulators in local memory: no sub-groups (their
         * shuffles move one element, not a structure). */
        clreduce_status status = plan_operator(ctx, r, p, family);
        if (status != CLREDUCE_SUCCESS)
            return status;
        p->program = operators;
        p->path = CLREDUCE_SUBGROUP_PATH_NONE;
    } else {
        const char *lacks;
        p->program = plain;
        p->path = path_usable(&ctx->info, ctx->subgroup_path, &lacks)
                      ? ctx->subgroup_path
                      : CLREDUCE_SUBGROUP_PATH_NONE;
    }
    p->work_group_size = p->t.work_group_size;
    p->unroll = p->t.loads_per_work_item;
    defines_add(&p->family_defines, "CLR_NV_LOAD", p->t.nv_load);
    return CLREDUCE_SUCCESS;
}

static clreduce_status reduction_plan(clreduce_ctx *ctx, const request *r, plan *p)
{
    if (r->op == CLREDUCE_OP_DOT)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "op dot has two inputs: call clreduce_dot()");
    return operator_plan(ctx, r, p);
}

static clreduce_status dot_plan(clreduce_ctx *ctx, const request *r, plan *p)
{
    return operator_plan(ctx, r, p);
}

/* ---- launches --------------------------------------------------------------------- */

static clreduce_status enqueue_op_kernel(clreduce_ctx *ctx, chain *c, cached_kernel *k,
                                         size_t work_group_size, size_t groups, const request *r,
                                         size_t out_byte, cl_mem out, cl_mem scratch)
{
    cl_ulong in_off = r->input_offset, n = r->count, out_off = out_byte;
    cl_mem in2 = r->input2 ? r->input2 : r->input;
    cl_ulong in2_off = r->input2 ? r->input2_offset : 0;
    kernel_arg args[] = {ARG(r->input), ARG(in_off), ARG(n),   ARG(out),
                         ARG(out_off),  ARG(scratch), ARG(in2), ARG(in2_off)};
    return enqueue_kernel_args(ctx, c, k, 0, groups, work_group_size, args, 8);
}

clreduce_status operator_enqueue(clreduce_ctx *ctx, chain *c, const request *r, const plan *p,
                                 cached_kernel *k, int in_order)
{
    if (p->variant == CLREDUCE_REPRODUCIBLE)
        return fixed_flat_enqueue(ctx, c, r, p, k);
    size_t wg = p->t.work_group_size;
    size_t groups = grid_groups(ctx, p, r->count);
    size_t out_byte = r->output_offset * p->output_size;
    clreduce_status status;
    cl_mem scratch = NULL;

    if (p->variant == CLREDUCE_SINGLE_PASS) {
        status = scratch_for_queue(ctx, c->queue, in_order, single_pass_scratch_size(ctx),
                                   &scratch);
        if (status != CLREDUCE_SUCCESS)
            return status;
        status = enqueue_op_kernel(ctx, c, k, wg, groups, r, out_byte, r->output, scratch);
        clReleaseMemObject(scratch);
        return status;
    }

    /* GRID_STRIDE: accumulators per work-group, then one work-group over
     * them (one work-group writes the result itself). */
    if (groups > 1 &&
        (status = create_temp(ctx, c, groups * ACCUMULATOR_MAX, &scratch)) != CLREDUCE_SUCCESS)
        return status;
    if (groups > 1)
        chain_intermediate(c); /* the finish follows */
    status = enqueue_op_kernel(ctx, c, k, wg, groups, r, out_byte, r->output, scratch);
    if (status == CLREDUCE_SUCCESS && groups > 1) {
        cl_ulong count = groups, out_off = out_byte;
        kernel_arg args[] = {ARG(scratch), ARG(count), ARG(r->output), ARG(out_off)};
        status = enqueue_kernel_args(ctx, c, k, 1, 1, wg, args, 4);
    }
    if (scratch)
        clReleaseMemObject(scratch);
    return status;
}

clreduce_status enqueue_empty_results(clreduce_ctx *ctx, chain *c, cl_mem out, const plan *p,
                                      size_t first, size_t count)
{
    size_t size = p->output_size;
    int power_of_two = (size & (size - 1)) == 0, zero_bytes = 1;
    for (size_t i = 0; i < size; i++)
        zero_bytes &= p->empty_output[i] == 0;
    static const unsigned char zero = 0;
    if (power_of_two || zero_bytes)
        return enqueue_fill(ctx, c, out, power_of_two ? p->empty_output : &zero,
                            power_of_two ? size : 1, first * size, count * size);
    /* A pattern no fill repeats (a user's identity of 12 bytes): the first
     * result by fills of the largest power of two that divides its size,
     * then copies that double the results written. */
    size_t chunk = size & (~size + 1), at = first * size;
    clreduce_status status = CLREDUCE_SUCCESS;
    for (size_t i = 0; i < size && status == CLREDUCE_SUCCESS; i += chunk)
        status = enqueue_fill(ctx, c, out, p->empty_output + i, chunk, at + i, chunk);
    for (size_t done = 1; done < count && status == CLREDUCE_SUCCESS; done *= 2) {
        size_t more = done < count - done ? done : count - done;
        status = enqueue_copy(ctx, c, out, at, at + done * size, more * size);
    }
    return status;
}

clreduce_status enqueue_empty_rows(clreduce_ctx *ctx, chain *c, const request *r, const plan *p,
                                   int wants_event)
{
    if (r->rows == 0)
        return wants_event ? enqueue_marker(ctx, c) : CLREDUCE_SUCCESS;
    return enqueue_empty_results(ctx, c, r->output, p, r->output_offset, r->rows);
}

/* A reduction of nothing writes the result of no element. */
static clreduce_status operator_enqueue_empty(clreduce_ctx *ctx, chain *c, const request *r,
                                              const plan *p, int wants_event)
{
    (void)wants_event;
    return enqueue_empty_results(ctx, c, r->output, p, r->output_offset, 1);
}

const op_family operator_reductions = {
    .output_name = "result", .output_offset_name = "result_offset", .host_input_name = "data",
    .outputs = OUTPUT_ONE, .in_place = 0, .two_inputs = 0,
    .plan = reduction_plan, .enqueue_empty = operator_enqueue_empty,
    .enqueue = operator_enqueue, .fixed_order = 1,
};

const op_family dot_products = {
    .output_name = "result", .output_offset_name = "result_offset", .host_input_name = "x",
    .outputs = OUTPUT_ONE, .in_place = 0, .two_inputs = 1,
    .plan = dot_plan, .enqueue_empty = operator_enqueue_empty, .enqueue = operator_enqueue,
    .fixed_order = 1,
};

/* ---- API -------------------------------------------------------------------------- */

clreduce_status clreduce_dot_profiled(clreduce_ctx *ctx, cl_command_queue queue,
                                      clreduce_type type, clreduce_variant variant, cl_mem x,
                                      size_t x_offset, cl_mem y, size_t y_offset, size_t count,
                                      cl_mem result, size_t result_offset, cl_uint num_wait,
                                      const cl_event *wait, cl_event *first, cl_event *done)
{
    request r = {.queue = queue, .op = CLREDUCE_OP_DOT, .type = type, .variant = (int)variant,
                 .input = x, .input_offset = x_offset, .count = count, .output = result,
                 .output_offset = result_offset, .num_wait = num_wait, .wait = wait,
                 .input2 = y, .input2_offset = y_offset};
    return request_enqueue(ctx, &dot_products, &r, first, done);
}

clreduce_status clreduce_dot(clreduce_ctx *ctx, cl_command_queue queue, clreduce_type type,
                             clreduce_variant variant, cl_mem x, size_t x_offset, cl_mem y,
                             size_t y_offset, size_t count, cl_mem result, size_t result_offset,
                             cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    return clreduce_dot_profiled(ctx, queue, type, variant, x, x_offset, y, y_offset, count,
                                 result, result_offset, num_wait, wait, NULL, done);
}

clreduce_status clreduce_dot_host(clreduce_ctx *ctx, clreduce_type type,
                                  clreduce_variant variant, const void *x, const void *y,
                                  size_t count, void *result)
{
    request r = {.op = CLREDUCE_OP_DOT, .type = type, .variant = (int)variant, .count = count};
    return request_host_two(ctx, &dot_products, &r, x, y, result);
}
