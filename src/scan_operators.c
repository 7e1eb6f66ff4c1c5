/* Scans over cl/operators.cl's accumulators (cl/scan_operators.cl): the
 * operators past max of one input (argmin, argmax, minmax, sums of squares
 * and of absolute values, the Euclidean norm, mean and variance) as two
 * operation families of the request pipeline, flat scans and scans of rows
 * (scan_rows.c's calls with those operators), a third for the flat scan of
 * dot products (two inputs), and the launches that
 * user-defined operators' scans (custom.c, custom_batched.c) share: reduce,
 * scan the groups' aggregates, scan again from them, each range in the
 * elements' order; and a work-group per row for rows. */
#include <stdio.h>

#include "families.h"

/* ---- program ------------------------------------------------------------------- */

/* The flat scan's kernels first, then the rows'. The row kernel shares
 * the program of the flat scan, so that a flat scan and a row scan of one
 * operator, type and kind build it once (a user-defined operator's too). */
const char *const operator_scan_kernels[4] = {"clr_scan_op_reduce", "clr_scan_op_partials",
                                              "clr_scan_op_apply", "clr_scan_op_rows"};
enum { K_REDUCE = 0, K_PARTIALS = 1, K_APPLY = 2, K_ROWS = 3 };

static const char *const scan_sources[] = {clreduce_cl_contract, clreduce_cl_types,
                                           clreduce_cl_operators, clreduce_cl_scan_operators};
static const program_spec scan_program = {
    scan_sources, sizeof scan_sources / sizeof *scan_sources, operator_scan_kernels, 4, 0};

/* ---- plan ------------------------------------------------------------------------ */

clreduce_status operator_scan_check(clreduce_ctx *ctx, const request *r, const char *name)
{
    if ((unsigned)r->variant >= CLREDUCE_SCAN_VARIANT_COUNT)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown scan variant %d",
                         r->variant);
    if (r->kind != CLREDUCE_INCLUSIVE && r->kind != CLREDUCE_EXCLUSIVE)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown scan kind %d", r->kind);
    if (r->variant != CLREDUCE_SCAN_AUTO && r->variant != CLREDUCE_SCAN_REDUCE_THEN_SCAN)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "operator %s scans on variants auto and reduce_then_scan, not %s", name,
                         clreduce_scan_variant_name((clreduce_scan_variant)r->variant));
    return CLREDUCE_SUCCESS;
}

void operator_scan_finish_plan(const clreduce_ctx *ctx, const request *r, plan *p)
{
    p->variant = CLREDUCE_SCAN_REDUCE_THEN_SCAN;
    fit_accumulators(ctx, p);
    p->work_group_size = p->t.work_group_size;
    p->unroll = 1;
    /* Accumulators are combined in local memory: no sub-group layer. */
    p->path = CLREDUCE_SUBGROUP_PATH_NONE;
    defines_add(&p->family_defines, "CLR_SCAN_EXCLUSIVE", r->kind == CLREDUCE_EXCLUSIVE);
}

/* The plan of a scan of one input, or of dot's two (dot_scans). */
static clreduce_status plan_operator_scan(clreduce_ctx *ctx, const request *r, plan *p)
{
    const char *name = clreduce_op_name(r->op) ? clreduce_op_name(r->op) : "unknown";
    clreduce_status status = operator_scan_check(ctx, r, name);
    if (status == CLREDUCE_SUCCESS)
        status = plan_start(ctx, r, p);
    if (status != CLREDUCE_SUCCESS)
        return status;
    if (!op_is_extended(r->op))
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "op %s is not one of the operators past max", name);
    if ((status = plan_operator(ctx, r, p, "scans: ")) != CLREDUCE_SUCCESS)
        return status;
    p->program = &scan_program;
    operator_scan_finish_plan(ctx, r, p);
    return CLREDUCE_SUCCESS;
}

static clreduce_status plan_scan(clreduce_ctx *ctx, const request *r, plan *p)
{
    if (r->op == CLREDUCE_OP_DOT)
        return refuse_dot(ctx, "scans", "clreduce_dot_scan");
    return plan_operator_scan(ctx, r, p);
}

/* ---- launches ------------------------------------------------------------------- */

clreduce_status operator_scan_enqueue(clreduce_ctx *ctx, chain *c, const request *r,
                                      const plan *p, cached_kernel *k, int in_order)
{
    (void)in_order;
    size_t wg = p->work_group_size;
    size_t groups = grid_groups(ctx, p, r->count);
    cl_mem partials;
    clreduce_status status = create_temp(ctx, c, groups * ACCUMULATOR_MAX, &partials);
    if (status != CLREDUCE_SUCCESS)
        return status;
    cl_ulong in_off = r->input_offset, n = r->count, count = groups;
    cl_ulong out_off = (cl_ulong)r->output_offset * p->output_size;
    /* An operator of one input reads its input again as the second. */
    cl_mem in2 = r->input2 ? r->input2 : r->input;
    cl_ulong in2_off = r->input2 ? r->input2_offset : 0;
    kernel_arg reduce_args[] = {ARG(r->input), ARG(in_off), ARG(n), ARG(partials), ARG(in2),
                                ARG(in2_off)};
    kernel_arg partials_args[] = {ARG(partials), ARG(count)};
    kernel_arg apply_args[] = {ARG(r->input), ARG(in_off),   ARG(n),   ARG(r->output),
                               ARG(out_off),  ARG(partials), ARG(in2), ARG(in2_off)};
    /* The partials' scan and the apply follow the first two. */
    chain_intermediate(c);
    status = enqueue_kernel_args(ctx, c, k, K_REDUCE, groups, wg, reduce_args, 6);
    chain_intermediate(c);
    if (status == CLREDUCE_SUCCESS)
        status = enqueue_kernel_args(ctx, c, k, K_PARTIALS, 1, wg, partials_args, 2);
    if (status == CLREDUCE_SUCCESS)
        status = enqueue_kernel_args(ctx, c, k, K_APPLY, groups, wg, apply_args, 8);
    clReleaseMemObject(partials);
    return status;
}

/* Not in place: a result is not an element. */
const op_family operator_scans = {
    .output_name = "output", .output_offset_name = "output_offset", .host_input_name = "input",
    .outputs = OUTPUT_PER_ELEMENT, .in_place = 0, .two_inputs = 0,
    .plan = plan_scan, .enqueue_empty = enqueue_nothing,
    .enqueue = operator_scan_enqueue,
};

/* Running dot products: x the input, y input2; the output overlaps
 * neither. */
const op_family dot_scans = {
    .output_name = "output", .output_offset_name = "output_offset", .host_input_name = "x",
    .outputs = OUTPUT_PER_ELEMENT, .in_place = 0, .two_inputs = 1,
    .plan = plan_operator_scan, .enqueue_empty = enqueue_nothing,
    .enqueue = operator_scan_enqueue,
};

/* ---- rows ------------------------------------------------------------------------ */

clreduce_status operator_row_scan_check_pitches(clreduce_ctx *ctx, const request *r)
{
    clreduce_status status = rows_check_pitch(ctx, r->rows, r->row_length, r->row_pitch,
                                              "row_pitch", "elements");
    if (status == CLREDUCE_SUCCESS)
        status = rows_check_pitch(ctx, r->rows, r->row_length, r->output_pitch, "output_pitch",
                                  "results");
    return status;
}

/* The flat scan's plan (one program serves both), with dot refused first
 * as unsupported, as the flat scan and the rows' reductions refuse it, and
 * both pitches checked after: the input's in elements, the output's in
 * results. */
static clreduce_status plan_row_scan(clreduce_ctx *ctx, const request *r, plan *p)
{
    if (r->op == CLREDUCE_OP_DOT)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "row scans take one input; op dot has two");
    clreduce_status status = plan_scan(ctx, r, p);
    if (status == CLREDUCE_SUCCESS)
        status = operator_row_scan_check_pitches(ctx, r);
    return status;
}

/* One launch: a work-group per row up to the grid of a flat scan, each
 * taking every groups-th row from its own. */
clreduce_status operator_row_scan_enqueue(clreduce_ctx *ctx, chain *c, const request *r,
                                          const plan *p, cached_kernel *k, int in_order)
{
    (void)in_order;
    size_t cap = (size_t)ctx->info.compute_units * p->t.groups_per_compute_unit;
    size_t groups = r->rows < cap ? r->rows : cap;
    cl_ulong in_off = r->input_offset, rows = r->rows, len = r->row_length,
             pitch = request_input_pitch(r), out_off = r->output_offset,
             out_pitch = request_output_pitch(r);
    /* An operator of one input reads its input again as the second; the
     * second input of one of two has its rows at the first's pitch. */
    cl_mem in2 = r->input2 ? r->input2 : r->input;
    cl_ulong in2_off = r->input2 ? r->input2_offset : in_off;
    kernel_arg args[] = {ARG(r->input), ARG(in_off),    ARG(rows),    ARG(len),
                         ARG(pitch),    ARG(r->output), ARG(out_off), ARG(out_pitch),
                         ARG(in2),      ARG(in2_off)};
    return enqueue_kernel_args(ctx, c, k, K_ROWS, groups, p->work_group_size, args,
                               sizeof args / sizeof *args);
}

/* Not in place, as the flat scan: output_offset and output_pitch count
 * results (the pipeline's OUTPUT_ROWS range, in output_size units). */
const op_family operator_row_scans = {
    .output_name = "output", .output_offset_name = "output_offset", .host_input_name = "data",
    .outputs = OUTPUT_ROWS, .in_place = 0, .two_inputs = 0,
    .plan = plan_row_scan, .enqueue_empty = enqueue_nothing,
    .enqueue = operator_row_scan_enqueue,
};
