/*
 * clreduce/multi.h: several operators over one input in one pass.
 * Included by clreduce/clreduce.h; include that header, not this one.
 *
 * A program that needs the sum, the minimum, the maximum and the index of
 * the maximum of one array can make four calls, which read the array four
 * times, or one call to clreduce_reduce_multi(), which reads it once and
 * writes the four results, each where the caller asks (and likewise for
 * each row of a matrix, and each segment of a CSR layout, further down):
 *
 *     const clreduce_op ops[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN,
 *                                CLREDUCE_OP_MAX, CLREDUCE_OP_ARGMAX};
 *     struct { float sum, min, max; clreduce_arg_float argmax; } r;
 *     void *const results[] = {&r.sum, &r.min, &r.max, &r.argmax};
 *     clreduce_reduce_multi_host(ctx, ops, 4, CLREDUCE_FLOAT, CLREDUCE_AUTO, data, n,
 *                                results);
 *
 * Every result has the bits clreduce_reduce() with that operator alone and
 * the same variant gives on the same device (the kernel feeds each operator
 * the same elements, and combines them in the same order, as the
 * operator's own reduction), but for five cases:
 *  - where MIN or MAX of floats is a NaN, its bits may differ: the call
 *    alone may return a NaN of the input bit for bit (one among its last
 *    count % vector width elements), where the multi call returns the
 *    device's NAN; every other result, NaN or not, is the same;
 *  - where the operators past CLREDUCE_OP_MAX run smaller work-groups than
 *    sum, min and max (their 32 bytes a work-item exceed half the device's
 *    local memory: below 16 KiB of it with the default 256 work-items, or
 *    a work_group_size setting of 1024 with 48 KiB), the multi call takes
 *    theirs, and a floating-point SUM may differ in its last bits (within
 *    the numerical contract of clreduce.h);
 *  - on NVIDIA GPUs, operators take tunings of their own where the
 *    context's settings leave work_group_size, loads_per_work_item and
 *    groups_per_compute_unit to the library: several operators in one pass
 *    one shape for 4-byte types and another for 8-byte types (over rows
 *    and segments, for float only), float MEAN_VAR alone another (they ran
 *    faster so), so a float or double SUM, SUM_ABS, SUM_SQUARES, NORM2 or
 *    MEAN_VAR may differ in its last bits from the call alone (within the
 *    numerical contract of clreduce.h); a context that sets all three gets
 *    the same bits;
 *  - on a CPU device whose sub-groups come from cl_khr_subgroups (Intel's
 *    CPU runtime), a floating-point SUM is combined over each work-group by
 *    a tree in local memory where the call alone uses sub-group shuffles
 *    (that runtime's compiler fails on some kernels of several operators
 *    with shuffles): its last bits may differ, within the same contract;
 *  - on CPU devices, where the context's settings leave vector_width and
 *    groups_per_compute_unit to the library, CLREDUCE_AUTO alone reads a
 *    float SUM (PoCL, from 2^20 elements) and a float MEAN_VAR (PoCL from
 *    2^20, Intel's CPU runtime from 2^18) in vectors of the device's native
 *    width, and runs a double MEAN_VAR on Intel's CPU runtime (from 2^22)
 *    in more work-groups (they ran faster so): those results may differ in
 *    their last bits from the multi call's, within the same contract.
 */
#ifndef CLREDUCE_MULTI_H
#define CLREDUCE_MULTI_H

#include "clreduce/clreduce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most operators one call takes: each one-input operator once. */
#define CLREDUCE_MULTI_MAX 10

/* Enqueues the reductions of elements [offset, offset + count) of `input`
 * (in elements of `type`) by each operator of ops[0 .. num_ops), in one
 * pass over the input: the result of ops[i] (clreduce_result_size(ops[i],
 * type) bytes, laid out as clreduce.h says) goes to byte result_offsets[i]
 * of `result`.
 *  - ops: 1 to CLREDUCE_MULTI_MAX operators of one input, in any order,
 *    each at most once (every clreduce_op but CLREDUCE_OP_DOT; NORM2 and
 *    MEAN_VAR for float and double only).
 *  - result_offsets: byte offsets, one per operator, each a multiple of its
 *    result's alignment (8 for ARGMIN, ARGMAX and MEAN_VAR; the element
 *    size of `type` for the others), so that a C structure of the results
 *    maps to offsetof() of its members. No two results may share a byte,
 *    and none may overlap the input range (judged where they lie in
 *    memory, as clreduce_reduce() does).
 * variant: CLREDUCE_AUTO, CLREDUCE_GRID_STRIDE or CLREDUCE_SINGLE_PASS, as
 * for the operators past CLREDUCE_OP_MAX. The call is asynchronous as
 * clreduce_reduce() is, with its wait list and completion event, on an
 * in-order or out-of-order queue of the context's device. count == 0
 * writes each operator's result of no element.
 * Returns:
 *   CLREDUCE_SUCCESS;
 *   CLREDUCE_ERROR_INVALID_ARGUMENT  NULL ctx, queue, input, result, ops
 *       or result_offsets; num_ops 0 or above CLREDUCE_MULTI_MAX; an unknown
 *       op, type or variant; CLREDUCE_OP_DOT; an operator given twice; a
 *       result offset not aligned, or whose result ends past the end of
 *       `result`; two results that share a byte; a result overlapping the
 *       input range; a range past the end of `input`; a queue of another
 *       context or device; num_wait and wait disagree;
 *   CLREDUCE_ERROR_UNSUPPORTED  double without fp64; NORM2 or MEAN_VAR of
 *       an integer type; a variant other than the three above;
 *   CLREDUCE_ERROR_BUILD, CLREDUCE_ERROR_OPENCL, CLREDUCE_ERROR_OUT_OF_MEMORY.
 * On any error found before enqueueing (every one above, except a failure
 * of the OpenCL runtime itself) nothing has been enqueued, *done is
 * untouched and `result` is not written. If the runtime fails after the
 * first command was enqueued, the call waits for the commands already
 * enqueued before it returns the error (of a count of 0, whose results are
 * filled one command each, those filled before the failure are written). */
CLREDUCE_API clreduce_status clreduce_reduce_multi(clreduce_ctx *ctx, cl_command_queue queue,
                                                   const clreduce_op *ops, size_t num_ops,
                                                   clreduce_type type, clreduce_variant variant,
                                                   cl_mem input, size_t offset, size_t count,
                                                   cl_mem result, const size_t *result_offsets,
                                                   cl_uint num_wait, const cl_event *wait,
                                                   cl_event *done);

/* As clreduce_reduce_multi(), and if `first` is not NULL *first receives an
 * event of the call's first command, as clreduce_reduce_profiled() gives
 * it. */
CLREDUCE_API clreduce_status clreduce_reduce_multi_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, const clreduce_op *ops, size_t num_ops,
    clreduce_type type, clreduce_variant variant, cl_mem input, size_t offset, size_t count,
    cl_mem result, const size_t *result_offsets, cl_uint num_wait, const cl_event *wait,
    cl_event *first, cl_event *done);

/* Blocking convenience: the reductions of `count` elements of host memory
 * `data` by each operator of ops[0 .. num_ops) (as clreduce_reduce_multi()
 * takes them), the result of ops[i] written to results[i]
 * (clreduce_result_size(ops[i], type) bytes; any alignment), on a queue
 * owned by the context. count == 0 writes the results of no element.
 * Returns the codes of clreduce_reduce_multi(); INVALID_ARGUMENT also for a
 * NULL `results`, a NULL results[i], two results that share a byte, or a
 * result overlapping `data`. On error no result is written. */
CLREDUCE_API clreduce_status clreduce_reduce_multi_host(clreduce_ctx *ctx, const clreduce_op *ops,
                                                        size_t num_ops, clreduce_type type,
                                                        clreduce_variant variant, const void *data,
                                                        size_t count, void *const *results);

/* ---------------------------------------------------------------------------
 * Several operators over each row of a matrix
 *
 * One call reduces every row by every operator of a set, reading each row
 * once, and writes one record per row: the results of ops[0 .. num_ops) in
 * order, laid out as the members of a C structure would be (each at the
 * next multiple of its alignment, 8 for ARGMIN, ARGMAX and MEAN_VAR and the
 * element size for the others; the record's size a multiple of its largest
 * alignment). So the statistics of a LayerNorm row and its extremes, say:
 *
 *     const clreduce_op ops[] = {CLREDUCE_OP_MEAN_VAR, CLREDUCE_OP_ARGMAX};
 *     struct { clreduce_mean_var_float mv; clreduce_arg_float amax; } r[ROWS];
 *     clreduce_reduce_rows_multi_host(ctx, ops, 2, CLREDUCE_FLOAT, data, ROWS,
 *                                     LENGTH, 0, r);
 *
 * Each result is the operator's result on the row alone, as
 * clreduce_reduce_rows() gives it (argmin and argmax count from the start
 * of the row), within the numerical contract of clreduce.h with the bound
 * of batched.h for a row; a floating-point SUM (and the sums inside
 * SUM_ABS, SUM_SQUARES, NORM2 and MEAN_VAR) may differ in its last bits from
 * clreduce_reduce_rows() with that operator alone, which combines in
 * another order. The same input gives the same bits every time on the
 * same device and tuning. Padding bytes of a record are unspecified.
 *
 * A team of work-items reduces each row: a power of two of them, up to a
 * work-group, chosen from the row length (so the order of a float sum's
 * additions depends on the row length too), several teams to a work-group
 * for short rows; where the rows are too few to fill the device that way
 * and long enough, each row is cut into parts of several work-groups,
 * whose results a second launch combines in order (as
 * clreduce_reduce_rows() cuts rows).
 * ------------------------------------------------------------------------- */

/* The size of a record of the results of ops[0 .. num_ops) on `type`, as
 * above; offsets (when not NULL, num_ops entries) receives the byte offset
 * of each result in it. Returns 0 for an operator set that
 * clreduce_reduce_multi() refuses (clreduce_last_error(NULL) says why). */
CLREDUCE_API size_t clreduce_multi_record(const clreduce_op *ops, size_t num_ops,
                                          clreduce_type type, size_t *offsets);

/* Enqueues the reductions of each of `rows` rows, laid out as for
 * clreduce_reduce_rows() (row r at element offset + r * row_pitch of
 * `input`, row_length elements; a pitch of 0 means row_length), by each
 * operator of ops[0 .. num_ops) as clreduce_reduce_multi() takes them:
 * row r's record goes to record result_offset + r of `result` (at byte
 * (result_offset + r) * clreduce_multi_record(ops, num_ops, type, NULL)).
 * row_length 0 writes every record's results of no element; rows 0
 * enqueues nothing but a marker when done is asked. Asynchronous as
 * clreduce_reduce_rows() is; the records must share no byte with the rows'
 * span.
 * Returns the codes of clreduce_reduce_rows() and, for the operator set,
 * of clreduce_reduce_multi(). On any error found before enqueueing nothing
 * is enqueued, *done is untouched and no record is written. */
CLREDUCE_API clreduce_status clreduce_reduce_rows_multi(
    clreduce_ctx *ctx, cl_command_queue queue, const clreduce_op *ops, size_t num_ops,
    clreduce_type type, cl_mem input, size_t offset, size_t rows, size_t row_length,
    size_t row_pitch, cl_mem result, size_t result_offset, cl_uint num_wait, const cl_event *wait,
    cl_event *done);

/* As clreduce_reduce_rows_multi(), and if `first` is not NULL *first
 * receives an event of the call's first command, as
 * clreduce_reduce_profiled() gives it. */
CLREDUCE_API clreduce_status clreduce_reduce_rows_multi_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, const clreduce_op *ops, size_t num_ops,
    clreduce_type type, cl_mem input, size_t offset, size_t rows, size_t row_length,
    size_t row_pitch, cl_mem result, size_t result_offset, cl_uint num_wait, const cl_event *wait,
    cl_event *first, cl_event *done);

/* Blocking convenience: the records of the rows of host memory `data`
 * (laid out as for clreduce_reduce_rows_multi() from element 0) into
 * records 0 .. rows - 1 of `results`, on a queue owned by the context.
 * Returns the codes of clreduce_reduce_rows_multi(); on error `results` is
 * untouched. */
CLREDUCE_API clreduce_status clreduce_reduce_rows_multi_host(clreduce_ctx *ctx,
                                                             const clreduce_op *ops,
                                                             size_t num_ops, clreduce_type type,
                                                             const void *data, size_t rows,
                                                             size_t row_length, size_t row_pitch,
                                                             void *results);

/* ---------------------------------------------------------------------------
 * Several operators over each segment of a CSR layout
 *
 * The same records, one per segment of clreduce_reduce_segments()'s layout
 * (segment i is elements [offset + offsets[i], offset + offsets[i+1]) of
 * the input), each segment read once. An empty segment's record holds each
 * operator's result of no element. Each result is the operator's result on
 * the segment alone, as clreduce_reduce_segments() gives it (argmin and
 * argmax count from the start of the segment), within the numerical
 * contract of clreduce.h with the bound of batched.h for a segment; a
 * floating-point SUM (and the sums inside SUM_ABS, SUM_SQUARES, NORM2 and
 * MEAN_VAR) may differ in its last bits from clreduce_reduce_segments()
 * with that operator alone. The same input and offsets give the same bits
 * every time on the same device and tuning.
 *
 * The work is cut by elements, not by segments, as for one operator off
 * NVIDIA GPUs: a work-group takes a chunk of elements, whose segments its teams of
 * work-items reduce (sized from the chunk's mean segment length), and a
 * segment longer than a chunk is combined from the chunks it spans.
 * ------------------------------------------------------------------------- */

/* Enqueues the records of each of `segments` segments of `input`, laid out
 * and delimited as for clreduce_reduce_segments() (offsets of offsets_type,
 * CLREDUCE_UINT32 or CLREDUCE_UINT64, segments + 1 of them from element
 * offsets_offset of `offsets`), by each operator of ops[0 .. num_ops) as
 * clreduce_reduce_multi() takes them: segment i's record goes to record
 * result_offset + i of `result` (at byte (result_offset + i) *
 * clreduce_multi_record(ops, num_ops, type, NULL)). count 0 writes every
 * record's results of no element; segments 0 enqueues nothing but a marker
 * when done is asked. The offsets are read on the device as
 * clreduce_reduce_segments() reads them, with the same guarantees for bad
 * ones. Asynchronous as clreduce_reduce_segments() is; the records must
 * share no byte with the input range or the offsets.
 * Returns the codes of clreduce_reduce_segments() and, for the operator
 * set, of clreduce_reduce_multi(). On any error found before enqueueing
 * nothing is enqueued, *done is untouched and no record is written. */
CLREDUCE_API clreduce_status clreduce_reduce_segments_multi(
    clreduce_ctx *ctx, cl_command_queue queue, const clreduce_op *ops, size_t num_ops,
    clreduce_type type, cl_mem input, size_t offset, size_t count, cl_mem offsets,
    size_t offsets_offset, clreduce_type offsets_type, size_t segments, cl_mem result,
    size_t result_offset, cl_uint num_wait, const cl_event *wait, cl_event *done);

/* As clreduce_reduce_segments_multi(), and if `first` is not NULL *first
 * receives an event of the call's first command, as
 * clreduce_reduce_profiled() gives it. */
CLREDUCE_API clreduce_status clreduce_reduce_segments_multi_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, const clreduce_op *ops, size_t num_ops,
    clreduce_type type, cl_mem input, size_t offset, size_t count, cl_mem offsets,
    size_t offsets_offset, clreduce_type offsets_type, size_t segments, cl_mem result,
    size_t result_offset, cl_uint num_wait, const cl_event *wait, cl_event *first,
    cl_event *done);

/* Blocking convenience: the records of the segments of host memory
 * data[0 .. count) that host memory offsets[0 .. segments] delimit into
 * records 0 .. segments - 1 of `results`, on a queue owned by the context.
 * Checks the offsets first, as clreduce_reduce_segments_host() does.
 * Returns the codes of clreduce_reduce_segments_multi(); on error `results`
 * is untouched. */
CLREDUCE_API clreduce_status clreduce_reduce_segments_multi_host(
    clreduce_ctx *ctx, const clreduce_op *ops, size_t num_ops, clreduce_type type,
    const void *data, size_t count, const void *offsets, clreduce_type offsets_type,
    size_t segments, void *results);

#ifdef __cplusplus
}
#endif

#endif /* CLREDUCE_MULTI_H */
