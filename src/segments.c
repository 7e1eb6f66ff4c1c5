/* Reductions of the segments of a CSR layout, as an operation family of the
 * request pipeline (request.c): the launches of the plan that
 * segment_layouts.c makes, and the API. The blocking call checks the
 * offsets on the host; the enqueueing call cannot read them, and its
 * kernels clamp them instead (reduce_segments.cl). */

#include "families.h"

static clreduce_status segments_plan(clreduce_ctx *ctx, const request *r, plan *p)
{
    if (r->op == CLREDUCE_OP_DOT)
        return refuse_dot(ctx, "segments", "clreduce_dot_segments");
    return segment_layouts_plan(ctx, r, p);
}

/* ---- launches ------------------------------------------------------------------------ */

/* The single launch: with a ticket and a slot per chunk in the queue's
 * look-back scratch, after the chunks' starts (a temporary buffer) where
 * segment_takes_starts() says so. */
static clreduce_status enqueue_single(clreduce_ctx *ctx, chain *c, const request *r,
                                      const plan *p, cached_kernel *k, int in_order)
{
    size_t chunk = segment_chunk_elements(ctx, p, r), chunks = div_up(r->count, chunk);
    cl_mem starts = NULL;
    int read_starts = segment_takes_starts(ctx, p, r);
    clreduce_status status = CLREDUCE_SUCCESS;
    if (read_starts)
        status = create_temp(ctx, c, chunks * sizeof(cl_ulong), &starts);
    if (status != CLREDUCE_SUCCESS)
        return status;
    lookback_lease lease;
    status = lookback_scratch_acquire(ctx, c->queue, in_order, lookback_scratch_size(chunks),
                                      &lease);
    if (status != CLREDUCE_SUCCESS) {
        if (starts)
            clReleaseMemObject(starts);
        return status;
    }
    cl_ulong in_off = r->input_offset, count = r->count, offsets_off = r->index_offset,
             segments = r->rows, out_off = r->output_offset, chunk64 = chunk, chunks64 = chunks;
    cl_uint epoch = lease.epoch;
    kernel_arg start_args[] = {ARG(r->index), ARG(offsets_off), ARG(segments), ARG(count),
                               ARG(chunk64),  ARG(chunks64),    ARG(starts)};
    kernel_arg args[] = {ARG(r->input),    ARG(in_off),   ARG(count),     ARG(r->index),
                         ARG(offsets_off), ARG(segments), ARG(r->output), ARG(out_off),
                         ARG(chunk64),     ARG(lease.buffer), ARG(epoch), ARG(starts)};
    if (read_starts) {
        chain_intermediate(c); /* the segments kernel follows */
        status = enqueue_kernel_args(ctx, c, k, SEGMENTS_K_STARTS,
                                     div_up(chunks, p->work_group_size), p->work_group_size,
                                     start_args, sizeof start_args / sizeof *start_args);
    }
    if (status == CLREDUCE_SUCCESS)
        status = enqueue_kernel_args(ctx, c, k, SEGMENTS_K_SINGLE, chunks, p->work_group_size, args,
                                     sizeof args / sizeof *args);
    lookback_scratch_release(&lease);
    if (starts)
        clReleaseMemObject(starts); /* deleted once the commands using it are done */
    return status;
}

/* The launch of a work-group a segment (or of work-groups of a work-item
 * or of a sub-group a segment) and a work-group a piece, with a ticket and
 * a slot per piece in the queue's look-back scratch. */
static clreduce_status enqueue_groups(clreduce_ctx *ctx, chain *c, const request *r,
                                      const plan *p, cached_kernel *k, int in_order,
                                      segment_launch launch)
{
    /* At most PIECES_PER_UNIT pieces a compute unit, and a segment a
     * GROUPS_MEAN_MIN elements or more, or 2^32 segments at most: the
     * grid's size fits. */
    size_t piece = segment_piece_elements(ctx, r), pieces = div_up(r->count, piece);
    size_t segment_groups = launch == SEGMENT_LAUNCH_ITEMS
                                ? div_up(r->rows, p->work_group_size)
                                : launch == SEGMENT_LAUNCH_LANES
                                ? div_up(r->rows, segment_lanes_per_group(ctx, p, r))
                                : r->rows;
    lookback_lease lease;
    clreduce_status status = lookback_scratch_acquire(ctx, c->queue, in_order,
                                                      lookback_scratch_size(pieces), &lease);
    if (status != CLREDUCE_SUCCESS)
        return status;
    cl_ulong in_off = r->input_offset, count = r->count, offsets_off = r->index_offset,
             segments = r->rows, out_off = r->output_offset, piece64 = piece;
    cl_uint epoch = lease.epoch;
    kernel_arg args[] = {ARG(r->input),    ARG(in_off),   ARG(count),     ARG(r->index),
                         ARG(offsets_off), ARG(segments), ARG(r->output), ARG(out_off),
                         ARG(piece64),     ARG(lease.buffer), ARG(epoch)};
    status = enqueue_kernel_args(ctx, c, k, 0, segment_groups + pieces, p->work_group_size, args,
                                 sizeof args / sizeof *args);
    lookback_scratch_release(&lease);
    return status;
}

static clreduce_status segments_enqueue(clreduce_ctx *ctx, chain *c, const request *r,
                                        const plan *p, cached_kernel *k, int in_order)
{
    if (p->variant == CLREDUCE_REPRODUCIBLE)
        return fixed_segments_enqueue(ctx, c, r, p, k);
    segment_launch launch = segment_launch_of(p);
    if (launch == SEGMENT_LAUNCH_GROUPS || launch == SEGMENT_LAUNCH_ITEMS ||
        launch == SEGMENT_LAUNCH_LANES)
        return enqueue_groups(ctx, c, r, p, k, in_order, launch);
    if (launch == SEGMENT_LAUNCH_SINGLE)
        return enqueue_single(ctx, c, r, p, k, in_order);
    size_t chunk = segment_chunk_elements(ctx, p, r), chunks = div_up(r->count, chunk);
    /* One temporary buffer: the chunks' heads, then the chunks' first
     * segments (64-bit, from element starts_off). */
    cl_mem heads;
    size_t head_size = op_keeps_accumulators(p->op) ? ACCUMULATOR_MAX : p->element_size;
    size_t starts_off = div_up(chunks * head_size, sizeof(cl_ulong));
    clreduce_status status =
        create_temp(ctx, c, (starts_off + chunks) * sizeof(cl_ulong), &heads);
    if (status != CLREDUCE_SUCCESS)
        return status;
    cl_ulong in_off = r->input_offset, count = r->count, offsets_off = r->index_offset,
             segments = r->rows, out_off = r->output_offset, chunk64 = chunk, chunks64 = chunks,
             starts_off64 = starts_off;
    /* The accumulators' kernels read a second input too: dot's or a
     * user-defined operator's, else the first again, unread. */
    cl_mem in2 = r->input2 ? r->input2 : r->input;
    cl_ulong in2_off = r->input2 ? r->input2_offset : r->input_offset;
    cl_uint second = op_keeps_accumulators(p->op) ? 0 : 2;
    kernel_arg head_args[] = {ARG(r->input),  ARG(in_off),   ARG(count), ARG(r->index),
                              ARG(offsets_off), ARG(segments), ARG(heads), ARG(chunk64),
                              ARG(heads),     ARG(starts_off64), ARG(in2), ARG(in2_off)};
    kernel_arg segment_args[] = {ARG(r->input),  ARG(in_off),   ARG(count),  ARG(r->index),
                                 ARG(offsets_off), ARG(segments), ARG(r->output), ARG(out_off),
                                 ARG(heads),     ARG(chunk64),  ARG(chunks64), ARG(heads),
                                 ARG(starts_off64), ARG(in2), ARG(in2_off)};
    chain_intermediate(c); /* the segments kernel follows */
    status = enqueue_kernel_args(ctx, c, k, SEGMENTS_K_HEADS, chunks, p->work_group_size, head_args,
                                 sizeof head_args / sizeof *head_args - second);
    if (status == CLREDUCE_SUCCESS)
        status = enqueue_kernel_args(ctx, c, k, SEGMENTS_K_SEGMENTS, chunks, p->work_group_size,
                                     segment_args,
                                     sizeof segment_args / sizeof *segment_args - second);
    clReleaseMemObject(heads); /* deleted once the commands using it are done */
    return status;
}

const op_family segments_family = {
    .output_name = "result", .output_offset_name = "result_offset", .host_input_name = "data",
    .index_name = "offsets", .outputs = OUTPUT_PER_ROW, .in_place = 0,
    .plan = segments_plan, .enqueue_empty = enqueue_empty_rows, .enqueue = segments_enqueue,
    .storage = &segments_family, /* reads r->custom itself */
    .fixed_order = 1,
};

/* Dot products of segments: x the input, y input2, the same offsets. */
static const op_family dot_segments_family = {
    .output_name = "result", .output_offset_name = "result_offset", .host_input_name = "x",
    .index_name = "offsets", .outputs = OUTPUT_PER_ROW, .in_place = 0, .two_inputs = 1,
    .plan = segment_layouts_plan, .enqueue_empty = enqueue_empty_rows, .enqueue = segments_enqueue,
    .fixed_order = 1,
};

/* ---- API ------------------------------------------------------------------------------ */

clreduce_status clreduce_reduce_segments_profiled(clreduce_ctx *ctx, cl_command_queue queue,
                                                  clreduce_op op, clreduce_type type,
                                                  cl_mem input, size_t offset, size_t count,
                                                  cl_mem offsets, size_t offsets_offset,
                                                  clreduce_type offsets_type, size_t segments,
                                                  cl_mem result, size_t result_offset,
                                                  cl_uint num_wait, const cl_event *wait,
                                                  cl_event *first, cl_event *done)
{
    request r = segments_request(queue, op, type, input, offset, count, offsets, offsets_offset,
                                 offsets_type, segments, result, result_offset, num_wait, wait);
    return request_enqueue(ctx, &segments_family, &r, first, done);
}

clreduce_status clreduce_reduce_segments(clreduce_ctx *ctx, cl_command_queue queue,
                                         clreduce_op op, clreduce_type type, cl_mem input,
                                         size_t offset, size_t count, cl_mem offsets,
                                         size_t offsets_offset, clreduce_type offsets_type,
                                         size_t segments, cl_mem result, size_t result_offset,
                                         cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    return clreduce_reduce_segments_profiled(ctx, queue, op, type, input, offset, count,
                                             offsets, offsets_offset, offsets_type, segments,
                                             result, result_offset, num_wait, wait, NULL, done);
}

clreduce_status clreduce_reduce_segments_host(clreduce_ctx *ctx, clreduce_op op,
                                              clreduce_type type, const void *data, size_t count,
                                              const void *offsets, clreduce_type offsets_type,
                                              size_t segments, void *results)
{
    clear_error(ctx);
    if (!ctx)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "ctx is NULL");
    request r = segments_request(NULL, op, type, NULL, 0, count, NULL, 0, offsets_type, segments,
                                 NULL, 0, 0, NULL);
    return segments_host(ctx, &segments_family, &r, data, NULL, offsets, NULL, results);
}

clreduce_status clreduce_dot_segments_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, clreduce_type type, cl_mem x, size_t x_offset,
    cl_mem y, size_t y_offset, size_t count, cl_mem offsets, size_t offsets_offset,
    clreduce_type offsets_type, size_t segments, cl_mem result, size_t result_offset,
    cl_uint num_wait, const cl_event *wait, cl_event *first, cl_event *done)
{
    request r = segments_request(queue, CLREDUCE_OP_DOT, type, x, x_offset, count, offsets,
                                 offsets_offset, offsets_type, segments, result, result_offset,
                                 num_wait, wait);
    r.input2 = y;
    r.input2_offset = y_offset;
    return request_enqueue(ctx, &dot_segments_family, &r, first, done);
}

clreduce_status clreduce_dot_segments(clreduce_ctx *ctx, cl_command_queue queue,
                                      clreduce_type type, cl_mem x, size_t x_offset, cl_mem y,
                                      size_t y_offset, size_t count, cl_mem offsets,
                                      size_t offsets_offset, clreduce_type offsets_type,
                                      size_t segments, cl_mem result, size_t result_offset,
                                      cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    return clreduce_dot_segments_profiled(ctx, queue, type, x, x_offset, y, y_offset, count,
                                          offsets, offsets_offset, offsets_type, segments, result,
                                          result_offset, num_wait, wait, NULL, done);
}

clreduce_status clreduce_dot_segments_host(clreduce_ctx *ctx, clreduce_type type, const void *x,
                                           const void *y, size_t count, const void *offsets,
                                           clreduce_type offsets_type, size_t segments,
                                           void *results)
{
    clear_error(ctx);
    if (!ctx)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "ctx is NULL");
    request r = segments_request(NULL, CLREDUCE_OP_DOT, type, NULL, 0, count, NULL, 0,
                                 offsets_type, segments, NULL, 0, 0, NULL);
    return segments_host(ctx, &dot_segments_family, &r, x, y, offsets, NULL, results);
}
