/* Prefix scans, as an operation family of the request pipeline
 * (request.c): the plan of a scan (variant, sub-group path, program) and
 * its launches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "families.h"

/* ---- programs ----------------------------------------------------------------- */

#define LAYERS clreduce_cl_contract, clreduce_cl_types

static const char *const ladder_sources[] = {LAYERS, clreduce_cl_workgroup_scan,
                                             clreduce_cl_scan_ladder};
static const char *const rts_sources[] = {LAYERS,
                                          clreduce_cl_subgroup,
                                          clreduce_cl_workgroup_reduce,
                                          clreduce_cl_workgroup_scan,
                                          clreduce_cl_tile,
                                          clreduce_cl_tile_run,
                                          clreduce_cl_scan_rts};
static const char *const lookback_sources[] = {LAYERS, clreduce_cl_subgroup,
                                               clreduce_cl_workgroup_scan, clreduce_cl_tile,
                                               clreduce_cl_device_order, clreduce_cl_tile_state,
                                               clreduce_cl_scan_lookback};

/* Kernels, by their index in a program. */
enum { K_BLOCK = 0, K_ADD = 1 };                            /* the ladder */
enum { K_RTS_REDUCE = 0, K_RTS_SPINE = 1, K_RTS_SCAN = 2 }; /* reduce-then-scan */
enum { K_LOOKBACK = 0 };

static const char *const hillis_steele_kernels[] = {"clr_scan_hillis_steele", "clr_scan_add"};
static const char *const blelloch_kernels[] = {"clr_scan_blelloch", "clr_scan_add"};
static const char *const rts_kernels[] = {"clr_rts_reduce", "clr_rts_spine", "clr_rts_scan"};
static const char *const lookback_kernels[] = {"clr_scan_lookback"};

#define SPEC(sources, kernels, orders)                                                          \
    {sources, sizeof sources / sizeof *sources, kernels, sizeof kernels / sizeof *kernels, orders}

/* By variant (clreduce_scan_variant's values). */
static const program_spec programs[CLREDUCE_SCAN_VARIANT_COUNT] = {
    {NULL, 0, NULL, 0, 0},
    SPEC(ladder_sources, hillis_steele_kernels, 0),
    SPEC(ladder_sources, blelloch_kernels, 0),
    SPEC(rts_sources, rts_kernels, 0),
    SPEC(lookback_sources, lookback_kernels, 1),
};

/* The tiled variants keep tiles of many elements per work-item in
 * registers and use sub-groups where the device has them; the classic
 * ladder works in local memory only. */
static int is_tiled_variant(clreduce_scan_variant v)
{
    return v == CLREDUCE_SCAN_REDUCE_THEN_SCAN || v == CLREDUCE_SCAN_LOOKBACK;
}

/* ---- plan ------------------------------------------------------------------------ */

clreduce_scan_variant clreduce_auto_scan_variant(const clreduce_ctx *ctx, clreduce_type type)
{
    (void)type;
    /* Out of place the look-back cannot hang: where a started work-group
     * may stop running, its waits are bounded (scan_plan, scan_lookback.cl).
     * So it needs only memory ordered between work-groups. */
    if (ctx && context_orders_work_groups(ctx))
        return CLREDUCE_SCAN_LOOKBACK;
    return CLREDUCE_SCAN_REDUCE_THEN_SCAN;
}

/* Polls of a look-back wait before a work-group reduces the tile it waits
 * for itself, where the kernel has the fallback (scan_plan; tests force it
 * on any device). In place, CLR_FOREVER: the tile waited for may have
 * overwritten its input. (2^6 is not tuned on any GPU that needs it.) */
static cl_uint lookback_spins(const plan *p)
{
    return p->in_place ? CL_UINT_MAX : 1u << 6;
}

static clreduce_status scan_plan(clreduce_ctx *ctx, const request *r, plan *p)
{
    if ((unsigned)r->kind > CLREDUCE_EXCLUSIVE)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown scan kind %d", r->kind);
    if ((unsigned)r->variant >= CLREDUCE_SCAN_VARIANT_COUNT)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown scan variant %d",
                         r->variant);
    clreduce_status status = plan_start(ctx, r, p);
    if (status != CLREDUCE_SUCCESS)
        return status;
    if (r->variant == CLREDUCE_SCAN_AUTO && takes_fixed_scan(ctx, r))
        return fixed_scan_plan(ctx, p);
    clreduce_scan_variant v = r->variant == CLREDUCE_SCAN_AUTO
                                  ? clreduce_auto_scan_variant(ctx, p->type)
                                  : (clreduce_scan_variant)r->variant;
    /* In place, a look-back tile must wait for its predecessors' states
     * (lookback_spins), which may hang where work-groups are not kept
     * running. */
    if (r->variant == CLREDUCE_SCAN_AUTO && v == CLREDUCE_SCAN_LOOKBACK &&
        !context_keeps_work_groups_running(ctx) &&
        same_place(ctx, r->input, r->input_offset * p->element_size, r->output,
                   r->output_offset * p->element_size))
        v = CLREDUCE_SCAN_REDUCE_THEN_SCAN;
    if (v == CLREDUCE_SCAN_LOOKBACK && !context_orders_work_groups(ctx))
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "scan variant lookback needs a device that orders memory between "
                         "work-groups (an NVIDIA GPU, OpenCL C 2.0 or 3.0 with device-scope "
                         "acquire/release atomics, or a CPU); device \"%s\" has OpenCL C %u.%u",
                         ctx->info.name, ctx->info.clc_major, ctx->info.clc_minor);
    p->variant = v;
    if (r->variant == CLREDUCE_SCAN_AUTO && v == CLREDUCE_SCAN_LOOKBACK)
        tuning_for_scan(&ctx->info, &ctx->settings, r->op, p->element_size, r->count, &p->t);
    p->work_group_size = p->t.scan_work_group_size;
    p->unroll = p->t.scan_loads;
    p->program = &programs[v];
    const char *lacks;
    p->path = is_tiled_variant(v) && path_usable(&ctx->info, ctx->subgroup_path, &lacks)
                  ? ctx->subgroup_path
                  : CLREDUCE_SUBGROUP_PATH_NONE;
    /* The look-back's bounded waits and fallback only where a started
     * work-group may stop running: they cost the H200 1 to 7%. */
    p->family_defines.count = 0;
    defines_add(&p->family_defines, "CLR_SCAN", (int)v);
    defines_add(&p->family_defines, "CLR_LOOKBACK_FALLBACK",
                v == CLREDUCE_SCAN_LOOKBACK && !context_keeps_work_groups_running(ctx));
    return CLREDUCE_SUCCESS;
}

/* ---- the classic ladder: blocks, then their totals level by level -------------- */

#define MAX_LEVELS 64

static clreduce_status enqueue_ladder(clreduce_ctx *ctx, chain *c, const plan *p,
                                      cached_kernel *k, const request *r, cl_int exclusive)
{
    size_t wg = p->work_group_size;
    size_t block = p->variant == CLREDUCE_SCAN_BLELLOCH ? 2 * wg : wg;
    /* Level 0 is the output; level L + 1 holds the totals of level L's
     * blocks, at temp[offset[L + 1] ..). */
    size_t count[MAX_LEVELS], offset[MAX_LEVELS], levels = 1, temp_count = 0;
    count[0] = r->count;
    offset[0] = r->output_offset;
    while (count[levels - 1] > block) {
        count[levels] = div_up(count[levels - 1], block);
        offset[levels] = temp_count;
        temp_count += count[levels];
        levels++;
    }
    cl_mem temp = NULL;
    clreduce_status status = CLREDUCE_SUCCESS;
    if (temp_count)
        status = create_temp(ctx, c, temp_count * p->element_size, &temp);
    cl_mem none = NULL;
    for (size_t L = 0; L < levels && status == CLREDUCE_SUCCESS; L++) {
        cl_mem src = L ? temp : r->input, dst = L ? temp : r->output;
        cl_ulong src_off = L ? offset[L] : r->input_offset, dst_off = offset[L], cnt = count[L];
        int has_sums = L + 1 < levels;
        cl_ulong sums_off = has_sums ? offset[L + 1] : 0;
        cl_int level_kind = L ? 1 : exclusive;
        kernel_arg sums = has_sums ? (kernel_arg)ARG(temp) : (kernel_arg)ARG(none);
        kernel_arg args[] = {ARG(src),     ARG(src_off), ARG(cnt),      ARG(dst),
                             ARG(dst_off), sums,         ARG(sums_off), ARG(level_kind)};
        if (levels > 1)
            chain_intermediate(c); /* the adds follow */
        status = enqueue_kernel_args(ctx, c, k, K_BLOCK, div_up(count[L], block), wg, args, 8);
    }
    for (size_t L = levels - 1; L-- > 0 && status == CLREDUCE_SUCCESS;) {
        cl_mem data = L ? temp : r->output;
        cl_ulong data_off = offset[L], cnt = count[L], pre_off = offset[L + 1];
        kernel_arg args[] = {ARG(data), ARG(data_off), ARG(cnt), ARG(temp), ARG(pre_off)};
        if (L > 0)
            chain_intermediate(c); /* the next level's add follows */
        status = enqueue_kernel_args(ctx, c, k, K_ADD, div_up(count[L], block) - 1, wg, args, 5);
    }
    if (temp)
        clReleaseMemObject(temp); /* deleted once the commands using it are done */
    return status;
}

/* ---- tiled variants ----------------------------------------------------------------- */

static size_t tile_size(const plan *p)
{
    return p->work_group_size * p->unroll * p->t.vector_width;
}

static clreduce_status enqueue_reduce_then_scan(clreduce_ctx *ctx, chain *c, const plan *p,
                                                cached_kernel *k, const request *r,
                                                cl_int exclusive)
{
    size_t wg = p->work_group_size;
    size_t tiles = div_up(r->count, tile_size(p));
    size_t cap = (size_t)ctx->info.compute_units * p->t.groups_per_compute_unit;
    size_t groups = tiles < cap ? tiles : cap;
    size_t per_group = div_up(tiles, groups);
    groups = div_up(tiles, per_group);
    cl_mem partials;
    clreduce_status status = create_temp(ctx, c, groups * p->element_size, &partials);
    if (status != CLREDUCE_SUCCESS)
        return status;
    cl_ulong in_off64 = r->input_offset, n64 = r->count, out_off64 = r->output_offset,
             per_group64 = per_group, groups64 = groups;
    kernel_arg reduce_args[] = {ARG(r->input), ARG(in_off64), ARG(n64), ARG(partials),
                                ARG(per_group64)};
    kernel_arg spine_args[] = {ARG(partials), ARG(groups64)};
    kernel_arg scan_args[] = {ARG(r->input),  ARG(in_off64), ARG(n64),         ARG(r->output),
                              ARG(out_off64), ARG(partials), ARG(per_group64), ARG(exclusive)};
    chain_intermediate(c); /* the spine and the scan follow */
    status = enqueue_kernel_args(ctx, c, k, K_RTS_REDUCE, groups, wg, reduce_args, 5);
    chain_intermediate(c);
    if (status == CLREDUCE_SUCCESS)
        status = enqueue_kernel_args(ctx, c, k, K_RTS_SPINE, 1, wg, spine_args, 2);
    if (status == CLREDUCE_SUCCESS)
        status = enqueue_kernel_args(ctx, c, k, K_RTS_SCAN, groups, wg, scan_args, 8);
    clReleaseMemObject(partials);
    return status;
}

static clreduce_status enqueue_lookback(clreduce_ctx *ctx, chain *c, const plan *p,
                                        cached_kernel *k, const request *r, int in_order,
                                        cl_int exclusive)
{
    size_t tiles = div_up(r->count, tile_size(p));
    if (tiles > UINT32_MAX)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "%zu elements make more tiles than the look-back counts (2^32)",
                         r->count);
    lookback_lease lease;
    clreduce_status status = lookback_scratch_acquire(ctx, c->queue, in_order,
                                                      lookback_scratch_size(tiles), &lease);
    if (status != CLREDUCE_SUCCESS)
        return status;
    cl_ulong in_off64 = r->input_offset, n64 = r->count, out_off64 = r->output_offset;
    cl_uint epoch = lease.epoch;
    cl_uint spins = lookback_spins(p);
    kernel_arg args[] = {ARG(r->input),  ARG(in_off64),     ARG(n64),      ARG(r->output),
                         ARG(out_off64), ARG(lease.buffer), ARG(epoch),  ARG(exclusive),
                         ARG(spins)};
    status = enqueue_kernel_args(ctx, c, k, K_LOOKBACK, tiles, p->work_group_size, args, 9);
    lookback_scratch_release(&lease);
    return status;
}

static clreduce_status scan_enqueue(clreduce_ctx *ctx, chain *c, const request *r, const plan *p,
                                    cached_kernel *k, int in_order)
{
    cl_int exclusive = r->kind == CLREDUCE_EXCLUSIVE;
    if (is_fixed_scan(p))
        return fixed_scan_enqueue(ctx, c, r, p, k);
    switch (p->variant) {
    case CLREDUCE_SCAN_REDUCE_THEN_SCAN:
        return enqueue_reduce_then_scan(ctx, c, p, k, r, exclusive);
    case CLREDUCE_SCAN_LOOKBACK:
        return enqueue_lookback(ctx, c, p, k, r, in_order, exclusive);
    default:
        return enqueue_ladder(ctx, c, p, k, r, exclusive);
    }
}

static const op_family scans = {
    .output_name = "output", .output_offset_name = "output_offset", .host_input_name = "input",
    .outputs = OUTPUT_PER_ELEMENT, .in_place = 1,
    .plan = scan_plan, .enqueue_empty = enqueue_nothing, .enqueue = scan_enqueue,
    .storage = &custom_scans, .fixed_order = 1,
};

/* ---- API ------------------------------------------------------------------------------ */

/* Sum, min and max scan here; the operators past max through their
 * accumulators (scan_operators.c). */
static const op_family *scan_family(clreduce_op op)
{
    return op_is_extended(op) ? &operator_scans : &scans;
}

clreduce_status clreduce_scan_profiled(clreduce_ctx *ctx, cl_command_queue queue, clreduce_op op,
                                       clreduce_type type, clreduce_scan_kind kind,
                                       clreduce_scan_variant variant, cl_mem input,
                                       size_t input_offset, size_t count, cl_mem output,
                                       size_t output_offset, cl_uint num_wait,
                                       const cl_event *wait, cl_event *first, cl_event *done)
{
    request r = {.queue = queue, .op = op, .type = type, .variant = (int)variant,
                 .kind = (int)kind, .input = input, .input_offset = input_offset, .count = count,
                 .output = output, .output_offset = output_offset, .num_wait = num_wait,
                 .wait = wait};
    return request_enqueue(ctx, scan_family(op), &r, first, done);
}

clreduce_status clreduce_scan(clreduce_ctx *ctx, cl_command_queue queue, clreduce_op op,
                              clreduce_type type, clreduce_scan_kind kind,
                              clreduce_scan_variant variant, cl_mem input, size_t input_offset,
                              size_t count, cl_mem output, size_t output_offset, cl_uint num_wait,
                              const cl_event *wait, cl_event *done)
{
    return clreduce_scan_profiled(ctx, queue, op, type, kind, variant, input, input_offset, count,
                                  output, output_offset, num_wait, wait, NULL, done);
}

clreduce_status clreduce_scan_host(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                                   clreduce_scan_kind kind, clreduce_scan_variant variant,
                                   const void *input, size_t count, void *output)
{
    request r = {.op = op, .type = type, .variant = (int)variant, .kind = (int)kind,
                 .count = count};
    return request_host(ctx, scan_family(op), &r, input, output);
}

clreduce_status clreduce_dot_scan_profiled(clreduce_ctx *ctx, cl_command_queue queue,
                                           clreduce_type type, clreduce_scan_kind kind,
                                           clreduce_scan_variant variant, cl_mem x,
                                           size_t x_offset, cl_mem y, size_t y_offset,
                                           size_t count, cl_mem output, size_t output_offset,
                                           cl_uint num_wait, const cl_event *wait,
                                           cl_event *first, cl_event *done)
{
    request r = {.queue = queue, .op = CLREDUCE_OP_DOT, .type = type, .variant = (int)variant,
                 .kind = (int)kind, .input = x, .input_offset = x_offset, .count = count,
                 .output = output, .output_offset = output_offset, .num_wait = num_wait,
                 .wait = wait, .input2 = y, .input2_offset = y_offset};
    return request_enqueue(ctx, &dot_scans, &r, first, done);
}

clreduce_status clreduce_dot_scan(clreduce_ctx *ctx, cl_command_queue queue, clreduce_type type,
                                  clreduce_scan_kind kind, clreduce_scan_variant variant,
                                  cl_mem x, size_t x_offset, cl_mem y, size_t y_offset,
                                  size_t count, cl_mem output, size_t output_offset,
                                  cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    return clreduce_dot_scan_profiled(ctx, queue, type, kind, variant, x, x_offset, y, y_offset,
                                      count, output, output_offset, num_wait, wait, NULL, done);
}

clreduce_status clreduce_dot_scan_host(clreduce_ctx *ctx, clreduce_type type,
                                       clreduce_scan_kind kind, clreduce_scan_variant variant,
                                       const void *x, const void *y, size_t count, void *output)
{
    request r = {.op = CLREDUCE_OP_DOT, .type = type, .variant = (int)variant, .kind = (int)kind,
                 .count = count};
    return request_host_two(ctx, &dot_scans, &r, x, y, output);
}

clreduce_status clreduce_check_scan_support(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                                            clreduce_scan_variant variant)
{
    return request_check_support(ctx, op == CLREDUCE_OP_DOT ? &dot_scans : scan_family(op), op,
                                 type, (int)variant, CLREDUCE_INCLUSIVE);
}
