/* Reductions, as an operation family of the request pipeline (request.c):
 * the plan of a reduction (variant, sub-group path, atomic kind, program)
 * and its launches. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "families.h"

/* ---- programs -------------------------------------------------------------- */

#define LAYERS clreduce_cl_contract, clreduce_cl_types, clreduce_cl_subgroup, \
               clreduce_cl_workgroup_reduce

static const char *const ladder_sources[] = {LAYERS, clreduce_cl_reduce_ladder};
static const char *const grid_sources[] = {LAYERS, clreduce_cl_reduce_grid};
static const char *const ordered_grid_sources[] = {LAYERS, clreduce_cl_device_order,
                                                   clreduce_cl_reduce_grid};
static const char *const fixed_order_sources[] = {LAYERS, clreduce_cl_fixed_order,
                                                  clreduce_cl_reduce_fixed_order};
static const char *const ordered_fixed_order_sources[] = {
    LAYERS, clreduce_cl_device_order, clreduce_cl_fixed_order, clreduce_cl_reduce_fixed_order};

/* Kernel names, by variant (clreduce_variant's values). */
static const char *const kernel_names[CLREDUCE_VARIANT_COUNT] = {
    NULL,
    "clr_reduce_interleaved",
    "clr_reduce_sequential",
    "clr_reduce_first_add",
    "clr_reduce_subgroup_tail",
    "clr_reduce_subgroup",
    "clr_reduce_unrolled",
    "clr_reduce_grid_stride",
    "clr_reduce_atomic",
    "clr_reduce_single_pass",
    "clr_reduce_fixed_order",
};

#define SPEC(sources, variant, orders)                                                          \
    {sources, sizeof sources / sizeof *sources, &kernel_names[variant], 1, orders}

static const program_spec programs[CLREDUCE_VARIANT_COUNT] = {
    {NULL, 0, NULL, 0, 0},
    SPEC(ladder_sources, CLREDUCE_INTERLEAVED, 0),
    SPEC(ladder_sources, CLREDUCE_SEQUENTIAL, 0),
    SPEC(ladder_sources, CLREDUCE_FIRST_ADD, 0),
    SPEC(ladder_sources, CLREDUCE_SUBGROUP_TAIL, 0),
    SPEC(ladder_sources, CLREDUCE_SUBGROUP, 0),
    SPEC(ladder_sources, CLREDUCE_UNROLLED, 0),
    SPEC(grid_sources, CLREDUCE_GRID_STRIDE, 0),
    SPEC(grid_sources, CLREDUCE_ATOMIC, 0),
    SPEC(ordered_grid_sources, CLREDUCE_SINGLE_PASS, 1),
    SPEC(fixed_order_sources, CLREDUCE_REPRODUCIBLE, 0),
};

/* The reproducible order in one launch, where work-groups order memory. */
static const program_spec fixed_order_in_one_launch =
    SPEC(ordered_fixed_order_sources, CLREDUCE_REPRODUCIBLE, 1);

/* The grid-sized variants walk the input with a grid that fills the device;
 * the others (the classic ladder) run one tree per work-group, pass after
 * pass. */
static int is_grid_variant(clreduce_variant v)
{
    return v == CLREDUCE_GRID_STRIDE || v == CLREDUCE_ATOMIC || v == CLREDUCE_SINGLE_PASS;
}

/* Classic variants whose work-items read one element, not two. */
static int reads_one_per_item(clreduce_variant v)
{
    return v == CLREDUCE_INTERLEAVED || v == CLREDUCE_SEQUENTIAL;
}

/* ---- plan ---------------------------------------------------------------------- */

clreduce_variant clreduce_auto_variant(const clreduce_ctx *ctx, clreduce_type type)
{
    (void)type;
    if (!ctx)
        return CLREDUCE_GRID_STRIDE;
    /* The single pass needs one work-group's stores to be visible to another
     * after a fence (device_order.cl); others take the two-launch grid
     * stride. */
    return context_orders_work_groups(ctx) ? CLREDUCE_SINGLE_PASS : CLREDUCE_GRID_STRIDE;
}

/* How the atomic variant combines work-group results on this device, or -1
 * when it cannot. */
static int atomic_kind(const clreduce_ctx *ctx, clreduce_op op, clreduce_type type)
{
    int is64 = clreduce_type_size(type) == 8;
    int is_float = is_float_type(type);
    if (is_float && op == CLREDUCE_OP_SUM && ctx->info.vendor == VENDOR_NVIDIA)
        return CLR_ATOMIC_NV_FLOAT;
    if (is64 && !ctx->info.has_int64_atomics)
        return -1;
    if (!is_float && (!is64 || op == CLREDUCE_OP_SUM))
        return CLR_ATOMIC_BUILTIN;
    return CLR_ATOMIC_CAS;
}

void grid_defines(plan *p, clreduce_variant v)
{
    p->family_defines.count = 0;
    defines_add(&p->family_defines, "CLR_VARIANT", (int)v);
    defines_add(&p->family_defines, "CLR_SEGMENTED", p->t.segmented);
    defines_add(&p->family_defines, "CLR_NV_LOAD", p->t.nv_load);
}

/* The reproducible order fixes the work-group (its lanes) and the vector
 * (16 bytes); only the number of work-groups is left to the tuning. */
static clreduce_status fixed_order_plan(clreduce_ctx *ctx, plan *p)
{
    clreduce_status status = fixed_order_check(ctx, p, "variant reproducible");
    if (status != CLREDUCE_SUCCESS)
        return status;
    int one_launch = context_orders_work_groups(ctx);
    if (one_launch)
        p->program = &fixed_order_in_one_launch;
    p->family_defines.count = 0;
    defines_add(&p->family_defines, "CLR_VARIANT", CLREDUCE_REPRODUCIBLE);
    defines_add(&p->family_defines, "CLR_NV_LOAD", p->t.nv_load);
    defines_add(&p->family_defines, "CLR_FIXED_FINISH", one_launch);
    return CLREDUCE_SUCCESS;
}

static clreduce_status reduce_plan(clreduce_ctx *ctx, const request *r, plan *p)
{
    if ((unsigned)r->variant >= CLREDUCE_VARIANT_COUNT)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown variant %d", r->variant);
    clreduce_status status = plan_start(ctx, r, p);
    if (status != CLREDUCE_SUCCESS)
        return status;
    clreduce_variant v = (clreduce_variant)r->variant;
    if (v == CLREDUCE_AUTO && ctx->settings.reproducible && has_fixed_order(r->op, p->type))
        v = CLREDUCE_REPRODUCIBLE;
    if (v == CLREDUCE_REPRODUCIBLE && !has_fixed_order(r->op, p->type))
        v = CLREDUCE_AUTO; /* the same bits in every variant */
    if (v == CLREDUCE_AUTO)
        v = clreduce_auto_variant(ctx, p->type);
    p->variant = v;
    tuning_for_operators(&ctx->info, &ctx->settings, &r->op, 1, p->type, 0, &p->t);
    if (r->variant == CLREDUCE_AUTO && v != CLREDUCE_REPRODUCIBLE)
        tuning_for_flat_range(&ctx->info, &ctx->settings, r->op, p->type, r->count, &p->t);
    p->work_group_size = p->t.work_group_size;
    p->unroll = p->t.loads_per_work_item;
    p->program = &programs[v];
    if (v == CLREDUCE_REPRODUCIBLE)
        return fixed_order_plan(ctx, p);

    const char *lacks = "";
    int usable = path_usable(&ctx->info, ctx->subgroup_path, &lacks);
    switch (v) {
    case CLREDUCE_SUBGROUP_TAIL:
    case CLREDUCE_SUBGROUP:
        if (!usable)
            return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                             "variant %s needs sub-groups (path %s): device \"%s\" lacks %s",
                             clreduce_variant_name(v),
                             clreduce_subgroup_path_name(ctx->subgroup_path), ctx->info.name,
                             lacks);
        p->path = ctx->subgroup_path;
        break;
    case CLREDUCE_UNROLLED:
        p->path = usable && ctx->subgroup_path == CLREDUCE_SUBGROUP_PATH_NV_PTX
                      ? CLREDUCE_SUBGROUP_PATH_NV_PTX
                      : CLREDUCE_SUBGROUP_PATH_NONE;
        break;
    default:
        p->path = is_grid_variant(v) && usable ? ctx->subgroup_path : CLREDUCE_SUBGROUP_PATH_NONE;
        break;
    }

    int atomic = CLR_ATOMIC_CAS;
    if (v == CLREDUCE_ATOMIC && (atomic = atomic_kind(ctx, r->op, p->type)) < 0)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "variant atomic on %s needs cl_khr_int64_base_atomics, which device "
                         "\"%s\" lacks",
                         clreduce_type_name(p->type), ctx->info.name);
    grid_defines(p, v);
    defines_add(&p->family_defines, "CLR_ATOMIC", atomic);
    return CLREDUCE_SUCCESS;
}

/* ---- launches -------------------------------------------------------------------- */

/* Work-groups for the grid-sized variants: enough to cover n once with every
 * load of every work-item, at most the tuning's groups per compute unit. */
size_t grid_groups(const clreduce_ctx *ctx, const plan *p, size_t n)
{
    size_t per_group = p->t.work_group_size * p->t.vector_width * p->t.loads_per_work_item;
    size_t cap = (size_t)ctx->info.compute_units * p->t.groups_per_compute_unit;
    size_t groups = div_up(n, per_group);
    if (groups > cap)
        groups = cap;
    return groups ? groups : 1;
}

size_t single_pass_scratch_size(const clreduce_ctx *ctx)
{
    /* Enough partials for the largest grid any setting allows (64 groups per
     * compute unit) of the widest accumulator (operators.c's, up to 32
     * bytes), so the size never changes. */
    return CLR_SCRATCH_HEADER + (size_t)ctx->info.compute_units * 64 * 32;
}

/* Sets the result element to the operator's identity (count 0, and the
 * starting value of the atomic variant). */
static clreduce_status enqueue_identity(clreduce_ctx *ctx, chain *c, const plan *p, cl_mem result,
                                        size_t result_offset)
{
    unsigned char identity[8];
    identity_value(p->op, p->type, identity);
    return enqueue_fill(ctx, c, result, identity, p->element_size,
                        result_offset * p->element_size, p->element_size);
}

static clreduce_status enqueue_kernel(clreduce_ctx *ctx, chain *c, cached_kernel *k,
                                      size_t work_group_size, size_t groups, cl_mem in,
                                      size_t in_off, size_t n, cl_mem out, size_t out_off,
                                      cl_mem scratch)
{
    cl_ulong in_off64 = in_off, n64 = n, out_off64 = out_off;
    kernel_arg args[] = {ARG(in), ARG(in_off64), ARG(n64), ARG(out), ARG(out_off64),
                         ARG(scratch)};
    return enqueue_kernel_args(ctx, c, k, 0, groups, work_group_size, args, scratch ? 6 : 5);
}

/* Values a run of passes leaves between its passes: each pass reduces its
 * input to one value per `per_value` elements, until one is left. */
static size_t values_between_passes(size_t n, size_t per_value)
{
    size_t count = 0;
    for (size_t m = div_up(n, per_value); m > 1; m = div_up(m, per_value))
        count += m;
    return count;
}

/* Passes of one kernel until one value is left, each of as many
 * work-groups as it writes values (at most `cap`). The values of every pass
 * but the last share one temporary buffer, one pass's after another's. */
static clreduce_status enqueue_passes(clreduce_ctx *ctx, chain *c, const plan *p, cached_kernel *k,
                                      const request *r, size_t wg, size_t per_value, size_t cap)
{
    size_t temp_count = values_between_passes(r->count, per_value);
    cl_mem temp = NULL;
    clreduce_status status = CLREDUCE_SUCCESS;
    if (temp_count && (status = create_temp(ctx, c, temp_count * p->element_size, &temp)) !=
                          CLREDUCE_SUCCESS)
        return status;
    cl_mem in = r->input;
    size_t in_off = r->input_offset, n = r->count, temp_used = 0;
    for (;;) {
        size_t values = div_up(n, per_value);
        int last = values == 1;
        cl_mem out = last ? r->output : temp;
        size_t out_off = last ? r->output_offset : temp_used;
        status = enqueue_kernel(ctx, c, k, wg, values < cap ? values : cap, in, in_off, n, out,
                                out_off, NULL);
        if (status != CLREDUCE_SUCCESS || last)
            break;
        in = temp;
        in_off = temp_used;
        n = values;
        temp_used += values;
    }
    if (temp)
        clReleaseMemObject(temp); /* deleted once the commands using it are done */
    return status;
}

/* The classic variants: a work-group reduces 1 or 2 elements per work-item
 * to one value, pass after pass. */
static clreduce_status enqueue_multi_pass(clreduce_ctx *ctx, chain *c, const plan *p,
                                          cached_kernel *k, const request *r)
{
    size_t wg = p->t.work_group_size;
    return enqueue_passes(ctx, c, p, k, r, wg, reads_one_per_item(p->variant) ? wg : 2 * wg,
                          SIZE_MAX);
}

static clreduce_status enqueue_grid(clreduce_ctx *ctx, chain *c, const plan *p, cached_kernel *k,
                                    const request *r, int in_order)
{
    size_t wg = p->t.work_group_size;
    size_t groups = grid_groups(ctx, p, r->count);
    clreduce_status status;

    if (p->variant == CLREDUCE_ATOMIC) {
        status = enqueue_identity(ctx, c, p, r->output, r->output_offset);
        if (status == CLREDUCE_SUCCESS)
            status = enqueue_kernel(ctx, c, k, wg, groups, r->input, r->input_offset, r->count,
                                    r->output, r->output_offset, NULL);
        return status;
    }

    if (p->variant == CLREDUCE_SINGLE_PASS) {
        cl_mem scratch;
        status = scratch_for_queue(ctx, c->queue, in_order, single_pass_scratch_size(ctx),
                                   &scratch);
        if (status != CLREDUCE_SUCCESS)
            return status;
        status = enqueue_kernel(ctx, c, k, wg, groups, r->input, r->input_offset, r->count,
                                r->output, r->output_offset, scratch);
        clReleaseMemObject(scratch);
        return status;
    }

    /* GRID_STRIDE: partial results, then one work-group over them. */
    if (groups == 1)
        return enqueue_kernel(ctx, c, k, wg, 1, r->input, r->input_offset, r->count, r->output,
                              r->output_offset, NULL);
    cl_mem temp;
    if ((status = create_temp(ctx, c, groups * p->element_size, &temp)) != CLREDUCE_SUCCESS)
        return status;
    status = enqueue_kernel(ctx, c, k, wg, groups, r->input, r->input_offset, r->count, temp, 0,
                            NULL);
    if (status == CLREDUCE_SUCCESS)
        status = enqueue_kernel(ctx, c, k, wg, 1, temp, 0, groups, r->output, r->output_offset,
                                NULL);
    clReleaseMemObject(temp);
    return status;
}

/* The reproducible order: a launch per level of tiles, each reducing its
 * input's tiles to one value apiece, until one is left; or, where
 * work-groups order memory, one launch whose last work-group reduces the
 * levels above the first, in a temporary buffer. */
static clreduce_status enqueue_fixed_order(clreduce_ctx *ctx, chain *c, const plan *p,
                                           cached_kernel *k, const request *r, int in_order)
{
    const size_t tile = CLR_FIXED_TILE_BYTES / p->element_size;
    const size_t cap = (size_t)ctx->info.compute_units * p->t.groups_per_compute_unit;
    if (p->program != &fixed_order_in_one_launch)
        return enqueue_passes(ctx, c, p, k, r, CLR_FIXED_LANES, tile, cap);

    size_t tiles = div_up(r->count, tile), levels = values_between_passes(r->count, tile);
    cl_mem temp = NULL, scratch = NULL;
    clreduce_status status = CLREDUCE_SUCCESS;
    if (levels && (status = create_temp(ctx, c, levels * p->element_size, &temp)) !=
                      CLREDUCE_SUCCESS)
        return status;
    status = scratch_for_queue(ctx, c->queue, in_order, single_pass_scratch_size(ctx), &scratch);
    if (status == CLREDUCE_SUCCESS) {
        cl_ulong in_off = r->input_offset, n = r->count, out_off = r->output_offset;
        cl_mem values = temp ? temp : scratch; /* not read for one tile */
        kernel_arg args[] = {ARG(r->input), ARG(in_off), ARG(n), ARG(r->output), ARG(out_off),
                             ARG(scratch), ARG(values)};
        status = enqueue_kernel_args(ctx, c, k, 0, tiles < cap ? tiles : cap, CLR_FIXED_LANES,
                                     args, 7);
        clReleaseMemObject(scratch);
    }
    if (temp)
        clReleaseMemObject(temp);
    return status;
}

static clreduce_status reduce_enqueue(clreduce_ctx *ctx, chain *c, const request *r,
                                      const plan *p, cached_kernel *k, int in_order)
{
    if (p->variant == CLREDUCE_REPRODUCIBLE)
        return enqueue_fixed_order(ctx, c, p, k, r, in_order);
    if (is_grid_variant(p->variant))
        return enqueue_grid(ctx, c, p, k, r, in_order);
    return enqueue_multi_pass(ctx, c, p, k, r);
}

/* A reduction of nothing writes the identity. */
static clreduce_status reduce_enqueue_empty(clreduce_ctx *ctx, chain *c, const request *r,
                                            const plan *p, int wants_event)
{
    (void)wants_event;
    return enqueue_identity(ctx, c, p, r->output, r->output_offset);
}

static const op_family reductions = {
    .output_name = "result", .output_offset_name = "result_offset", .host_input_name = "data",
    .outputs = OUTPUT_ONE, .in_place = 0,
    .plan = reduce_plan, .enqueue_empty = reduce_enqueue_empty, .enqueue = reduce_enqueue,
    .storage = &custom_reductions, .fixed_order = 1,
};

/* ---- API ------------------------------------------------------------------------------ */

/* The operators past max have a family of their own (operators.c). */
static const op_family *family_of(clreduce_op op)
{
    return op_is_extended(op) ? &operator_reductions : &reductions;
}

clreduce_status clreduce_check_support(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                                       clreduce_variant variant)
{
    return request_check_support(ctx, op == CLREDUCE_OP_DOT ? &dot_products : family_of(op), op,
                                 type, (int)variant, 0);
}

clreduce_status clreduce_reduce_profiled(clreduce_ctx *ctx, cl_command_queue queue,
                                         clreduce_op op, clreduce_type type,
                                         clreduce_variant variant, cl_mem input, size_t offset,
                                         size_t count, cl_mem result, size_t result_offset,
                                         cl_uint num_wait, const cl_event *wait, cl_event *first,
                                         cl_event *done)
{
    request r = {.queue = queue, .op = op, .type = type, .variant = (int)variant,
                 .input = input, .input_offset = offset, .count = count, .output = result,
                 .output_offset = result_offset, .num_wait = num_wait, .wait = wait};
    return request_enqueue(ctx, family_of(op), &r, first, done);
}

clreduce_status clreduce_reduce(clreduce_ctx *ctx, cl_command_queue queue, clreduce_op op,
                                clreduce_type type, clreduce_variant variant, cl_mem input,
                                size_t offset, size_t count, cl_mem result, size_t result_offset,
                                cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    return clreduce_reduce_profiled(ctx, queue, op, type, variant, input, offset, count, result,
                                    result_offset, num_wait, wait, NULL, done);
}

clreduce_status clreduce_reduce_host(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                                     clreduce_variant variant, const void *data, size_t count,
                                     void *result)
{
    request r = {.op = op, .type = type, .variant = (int)variant, .count = count};
    return request_host(ctx, family_of(op), &r, data, result);
}
