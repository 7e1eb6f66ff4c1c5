/* Rows and segments reduced with a user-defined operator: each call is a
 * request of the rows or segments family (rows.c, segments.c) that names
 * the operator, whose plan then takes the operator's own build of the
 * family's kernels (plan_teams() calls custom.c's plan_custom_teams()).
 * Rows scanned with one are a family of their own: the plan of its flat
 * scan (custom.c) and the row launch of the operators past max
 * (scan_operators.c), from the operator's scan program. */
#include <stdio.h>
#include <string.h>

#include "families.h"

/* What a call with op runs: `base` with op's second input, if it has one. */
static op_family family_for(const op_family *base, const custom_facts *facts)
{
    op_family f = *base;
    f.two_inputs = facts->two_inputs;
    return f;
}

/* The request's operator is op (clreduce_op SUM only passes plan_start(),
 * which checks the type; the plan replaces it): held for the call, so that
 * a release from another thread waits for the programs' last use. */
static clreduce_status enqueue_with(clreduce_ctx *ctx, clreduce_operator *op,
                                    const op_family *base, const custom_facts *facts,
                                    request *r, cl_event *first, cl_event *done)
{
    op_family f = family_for(base, facts);
    r->custom = op;
    clreduce_operator_retain(op);
    clreduce_status status = request_enqueue(ctx, &f, r, first, done);
    clreduce_operator_release(op);
    return status;
}

clreduce_status clreduce_reduce_rows_custom_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, clreduce_operator *op, cl_mem input, size_t offset,
    cl_mem input2, size_t offset2, size_t rows, size_t row_length, size_t row_pitch,
    cl_mem result, size_t result_offset, cl_uint num_wait, const cl_event *wait, cl_event *first,
    cl_event *done)
{
    custom_facts facts;
    clreduce_status status = custom_check_operator(ctx, op, input2 != NULL, "input2", &facts);
    if (status != CLREDUCE_SUCCESS)
        return status;
    request r = rows_request(queue, CLREDUCE_OP_SUM, facts.type, input, offset, rows, row_length,
                             row_pitch, result, result_offset, num_wait, wait);
    r.input2 = input2;
    r.input2_offset = offset2;
    return enqueue_with(ctx, op, &rows_family, &facts, &r, first, done);
}

clreduce_status clreduce_reduce_rows_custom(clreduce_ctx *ctx, cl_command_queue queue,
                                            clreduce_operator *op, cl_mem input, size_t offset,
                                            cl_mem input2, size_t offset2, size_t rows,
                                            size_t row_length, size_t row_pitch, cl_mem result,
                                            size_t result_offset, cl_uint num_wait,
                                            const cl_event *wait, cl_event *done)
{
    return clreduce_reduce_rows_custom_profiled(ctx, queue, op, input, offset, input2, offset2,
                                                rows, row_length, row_pitch, result,
                                                result_offset, num_wait, wait, NULL, done);
}

clreduce_status clreduce_reduce_rows_custom_host(clreduce_ctx *ctx, clreduce_operator *op,
                                                 const void *data, const void *data2,
                                                 size_t rows, size_t row_length,
                                                 size_t row_pitch, void *results)
{
    custom_facts facts;
    clreduce_status status = custom_check_operator(ctx, op, data2 != NULL, "data2", &facts);
    if (status != CLREDUCE_SUCCESS)
        return status;
    request r = rows_request(NULL, CLREDUCE_OP_SUM, facts.type, NULL, 0, rows, row_length,
                             row_pitch, NULL, 0, 0, NULL);
    r.custom = op;
    op_family f = family_for(&rows_family, &facts);
    clreduce_operator_retain(op);
    status = request_host_two(ctx, &f, &r, data, data2, results);
    clreduce_operator_release(op);
    return status;
}

clreduce_status clreduce_reduce_segments_custom_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, clreduce_operator *op, cl_mem input, size_t offset,
    cl_mem input2, size_t offset2, size_t count, cl_mem offsets, size_t offsets_offset,
    clreduce_type offsets_type, size_t segments, cl_mem result, size_t result_offset,
    cl_uint num_wait, const cl_event *wait, cl_event *first, cl_event *done)
{
    custom_facts facts;
    clreduce_status status = custom_check_operator(ctx, op, input2 != NULL, "input2", &facts);
    if (status != CLREDUCE_SUCCESS)
        return status;
    request r = segments_request(queue, CLREDUCE_OP_SUM, facts.type, input, offset, count,
                                 offsets, offsets_offset, offsets_type, segments, result,
                                 result_offset, num_wait, wait);
    r.input2 = input2;
    r.input2_offset = offset2;
    return enqueue_with(ctx, op, &segments_family, &facts, &r, first, done);
}

clreduce_status clreduce_reduce_segments_custom(clreduce_ctx *ctx, cl_command_queue queue,
                                                clreduce_operator *op, cl_mem input,
                                                size_t offset, cl_mem input2, size_t offset2,
                                                size_t count, cl_mem offsets,
                                                size_t offsets_offset, clreduce_type offsets_type,
                                                size_t segments, cl_mem result,
                                                size_t result_offset, cl_uint num_wait,
                                                const cl_event *wait, cl_event *done)
{
    return clreduce_reduce_segments_custom_profiled(
        ctx, queue, op, input, offset, input2, offset2, count, offsets, offsets_offset,
        offsets_type, segments, result, result_offset, num_wait, wait, NULL, done);
}

clreduce_status clreduce_reduce_segments_custom_host(clreduce_ctx *ctx, clreduce_operator *op,
                                                     const void *data, const void *data2,
                                                     size_t count, const void *offsets,
                                                     clreduce_type offsets_type, size_t segments,
                                                     void *results)
{
    custom_facts facts;
    clreduce_status status = custom_check_operator(ctx, op, data2 != NULL, "data2", &facts);
    if (status != CLREDUCE_SUCCESS)
        return status;
    request r = segments_request(NULL, CLREDUCE_OP_SUM, facts.type, NULL, 0, count, NULL, 0,
                                 offsets_type, segments, NULL, 0, 0, NULL);
    r.custom = op;
    char no_identity[CLREDUCE_OPERATOR_NAME_MAX + 40];
    snprintf(no_identity, sizeof no_identity, "operator %s has no identity", facts.name);
    op_family f = family_for(&segments_family, &facts);
    clreduce_operator_retain(op);
    status = segments_host(ctx, &f, &r, data, data2, offsets,
                           facts.has_identity ? NULL : no_identity, results);
    clreduce_operator_release(op);
    return status;
}

/* ---- row scans ------------------------------------------------------------------ */

/* The flat scan's plan (the operator's scan program holds the row kernel),
 * then both pitches: the input's in elements, the output's in results. */
static clreduce_status plan_custom_row_scan(clreduce_ctx *ctx, const request *r, plan *p)
{
    clreduce_status status = custom_scan_plan(ctx, r, p);
    if (status == CLREDUCE_SUCCESS)
        status = operator_row_scan_check_pitches(ctx, r);
    return status;
}

/* Not in place, as the flat scan: output_offset and output_pitch count
 * results (the pipeline's OUTPUT_ROWS range, in acc_size units). */
const op_family custom_row_scans = {
    .output_name = "output", .output_offset_name = "output_offset", .host_input_name = "input",
    .outputs = OUTPUT_ROWS, .in_place = 0, .two_inputs = 0,
    .plan = plan_custom_row_scan, .enqueue_empty = enqueue_nothing,
    .enqueue = operator_row_scan_enqueue,
};

clreduce_status clreduce_scan_rows_custom_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, clreduce_operator *op, clreduce_scan_kind kind,
    cl_mem input, size_t input_offset, cl_mem input2, size_t input2_offset, size_t rows,
    size_t row_length, size_t row_pitch, cl_mem output, size_t output_offset,
    size_t output_pitch, cl_uint num_wait, const cl_event *wait, cl_event *first, cl_event *done)
{
    custom_facts facts;
    clreduce_status status = custom_check_operator(ctx, op, input2 != NULL, "input2", &facts);
    if (status != CLREDUCE_SUCCESS)
        return status;
    request r = scan_rows_request(queue, CLREDUCE_OP_SUM, facts.type, kind, input, input_offset,
                                  rows, row_length, row_pitch, output, output_offset,
                                  output_pitch, num_wait, wait);
    r.input2 = input2;
    r.input2_offset = input2_offset;
    return enqueue_with(ctx, op, &custom_row_scans, &facts, &r, first, done);
}

clreduce_status clreduce_scan_rows_custom(clreduce_ctx *ctx, cl_command_queue queue,
                                          clreduce_operator *op, clreduce_scan_kind kind,
                                          cl_mem input, size_t input_offset, cl_mem input2,
                                          size_t input2_offset, size_t rows, size_t row_length,
                                          size_t row_pitch, cl_mem output, size_t output_offset,
                                          size_t output_pitch, cl_uint num_wait,
                                          const cl_event *wait, cl_event *done)
{
    return clreduce_scan_rows_custom_profiled(ctx, queue, op, kind, input, input_offset, input2,
                                              input2_offset, rows, row_length, row_pitch, output,
                                              output_offset, output_pitch, num_wait, wait, NULL,
                                              done);
}

clreduce_status clreduce_scan_rows_custom_host(clreduce_ctx *ctx, clreduce_operator *op,
                                               clreduce_scan_kind kind, const void *input,
                                               const void *input2, size_t rows,
                                               size_t row_length, size_t row_pitch,
                                               size_t output_pitch, void *output)
{
    custom_facts facts;
    clreduce_status status = custom_check_operator(ctx, op, input2 != NULL, "input2", &facts);
    if (status != CLREDUCE_SUCCESS)
        return status;
    request r = scan_rows_request(NULL, CLREDUCE_OP_SUM, facts.type, kind, NULL, 0, rows,
                                  row_length, row_pitch, NULL, 0, output_pitch, 0, NULL);
    r.custom = op;
    op_family f = family_for(&custom_row_scans, &facts);
    clreduce_operator_retain(op);
    status = request_host_two(ctx, &f, &r, input, input2, output);
    clreduce_operator_release(op);
    return status;
}
