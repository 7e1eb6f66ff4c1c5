/*
 * clreduce/batched.h: reductions of rows and segments, scans of rows.
 * Included by clreduce/clreduce.h; include that header, not this one.
 */
#ifndef CLREDUCE_BATCHED_H
#define CLREDUCE_BATCHED_H

#include "clreduce/clreduce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Rows and segments
 *
 * Many reductions in one call: one per row of a matrix, or one per segment
 * of a CSR layout, for the operators and types of clreduce_reduce() (dot,
 * of two inputs, through clreduce_dot_rows() and clreduce_dot_segments())
 * with the same rules for integer wrap-around, NaN, signed zeros and empty
 * ranges (the identity, or the operator's result of no element). Results
 * are those of clreduce_reduce() on each row or segment alone, in the same
 * layouts: an array of results of clreduce_result_size(op, type) bytes,
 * result_offset counting whole results; argmin and argmax count their
 * index from the start of the row or segment (the argmax of the logits of
 * each row, mean and m2 per row for a layer norm, the norm of each row).
 * The library picks the kernels from the shape of
 * each call: several rows per work-group for short rows, one sub-group or
 * one work-group per row as rows grow, several work-groups per row when the
 * rows are too few to fill the device; segments are cut into equal chunks
 * of elements, whatever their lengths, or on NVIDIA GPUs, where their mean
 * length is short or a few thousand elements, given a work-item or a
 * work-group each, the longest read by equal pieces of the input: so that
 * neither a single huge segment nor millions of tiny ones leave most of
 * the device idle (their speeds, measured, are in bench/results/).
 *
 * Every result is combined in an order fixed by the shape (row length and
 * count, or the offsets), the device and the tuning: the same input gives
 * bitwise the same results every time on the same device. Floating-point
 * sums of n elements are evaluated in the element type with
 * |result - exact| <= (m + ceil(log2 n)) * u * sum(|x_i|), u the unit
 * roundoff; with v the vector width and w the work-group size of
 * clreduce_get_tuning(), m <= n / w + 4 v + 2 for a row, and
 * m <= min(n, 16 v w) + n / (4 v w^2) + 2 for a segment. The operators past
 * CLREDUCE_OP_MAX (and several in one pass, and a user's) keep the bounds
 * of the numerical contract above with that m for a segment, and with
 * m <= n / w + 4 v + 66 for a row: a work-item adds up to 64 vectors of a
 * row in sequence before its team combines. In a reproducible context
 * (clreduce_settings.reproducible) a float or double sum of each row or
 * segment follows the order of CLREDUCE_REPRODUCIBLE instead, on that
 * range alone: the same bits on every device, with that variant's bound.
 *
 * The enqueueing calls are asynchronous like clreduce_reduce(): they wait
 * for the `num_wait` events of `wait`, *done (when not NULL) receives an
 * event that completes when every result is written, the queue may be
 * in-order or out-of-order, and the results must share no byte with the
 * input range (or the offsets), compared where they lie in memory. They
 * return the codes of clreduce_reduce() (with the failures named below) and
 * fail as it does: on any error found before enqueueing nothing is
 * enqueued, *done is untouched and no result is written.
 * ------------------------------------------------------------------------- */

/* Enqueues one reduction per row: `rows` rows of `row_length` elements; row
 * r starts at element offset + r * row_pitch of `input` (row_pitch >=
 * row_length, in elements; a pitch of 0 means row_length). Result r goes to
 * result result_offset + r of `result` (at byte (result_offset + r) *
 * clreduce_result_size(op, type)). row_length 0 writes the identity (the
 * result of no element) to every row's result; rows 0 enqueues nothing but
 * a marker when done is asked.
 * Returns CLREDUCE_ERROR_INVALID_ARGUMENT, besides the cases of
 * clreduce_reduce(), for a row_pitch below row_length, rows whose span
 * ((rows - 1) * pitch + row_length elements) overflows or ends past the end
 * of `input`, results past the end of `result`, and results that overlap
 * the rows' span (results and ranges measured in whole results); and
 * CLREDUCE_ERROR_UNSUPPORTED for CLREDUCE_OP_DOT (clreduce_dot_rows()) and
 * for norm2 and mean_var of integers. */
CLREDUCE_API clreduce_status clreduce_reduce_rows(clreduce_ctx *ctx, cl_command_queue queue,
                                                  clreduce_op op, clreduce_type type,
                                                  cl_mem input, size_t offset, size_t rows,
                                                  size_t row_length, size_t row_pitch,
                                                  cl_mem result, size_t result_offset,
                                                  cl_uint num_wait, const cl_event *wait,
                                                  cl_event *done);

/* As clreduce_reduce_rows(), and if `first` is not NULL *first receives an
 * event of the call's first command, as clreduce_reduce_profiled() gives
 * it. */
CLREDUCE_API clreduce_status clreduce_reduce_rows_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, clreduce_op op, clreduce_type type, cl_mem input,
    size_t offset, size_t rows, size_t row_length, size_t row_pitch, cl_mem result,
    size_t result_offset, cl_uint num_wait, const cl_event *wait, cl_event *first,
    cl_event *done);

/* Blocking convenience: reduces the rows of host memory `data` (laid out as
 * for clreduce_reduce_rows() from element 0) into results 0 .. rows - 1 of
 * `results` (rows * clreduce_result_size(op, type) bytes). Uses
 * a queue owned by the context.
 * Returns CLREDUCE_SUCCESS or any error code; on error `results` is
 * untouched. */
CLREDUCE_API clreduce_status clreduce_reduce_rows_host(clreduce_ctx *ctx, clreduce_op op,
                                                       clreduce_type type, const void *data,
                                                       size_t rows, size_t row_length,
                                                       size_t row_pitch, void *results);

/* Segment i is elements [offset + offsets[i], offset + offsets[i+1]) of
 * `input`; `offsets` holds segments + 1 entries of offsets_type
 * (CLREDUCE_UINT32 or CLREDUCE_UINT64) starting at element offsets_offset
 * of the cl_mem `offsets`; `count` is the number of input elements from
 * `offset` the segments may reach. Empty segments give the identity (the
 * result of no element). Result i goes to result result_offset + i of
 * `result` (at byte (result_offset + i) * clreduce_result_size(op, type)).
 * count 0 writes the identity to every result; segments 0 enqueues nothing
 * but a marker when done is asked.
 * The offsets must not decrease and must not pass count. This call cannot
 * read them (they are on the device, perhaps not yet written): it does not
 * check them, and its kernels read them clamped to [0, count], a segment
 * that would end before it starts being empty, so that bad offsets never
 * make it read or write out of bounds, nor write outside the results; the
 * results of the segments around them are then unspecified (some may be
 * left unwritten). clreduce_reduce_segments_host() checks them.
 * Returns CLREDUCE_ERROR_INVALID_ARGUMENT, besides the cases of
 * clreduce_reduce(), for a NULL offsets buffer, an offsets_type other than
 * CLREDUCE_UINT32 and CLREDUCE_UINT64, offsets past the end of their
 * buffer, [offset, offset + count) past the end of `input`, results past
 * the end of `result`, and results that overlap the input range or the
 * offsets (results measured in whole results); and
 * CLREDUCE_ERROR_UNSUPPORTED for CLREDUCE_OP_DOT (clreduce_dot_segments())
 * and for norm2 and mean_var of integers. */
CLREDUCE_API clreduce_status clreduce_reduce_segments(clreduce_ctx *ctx, cl_command_queue queue,
                                                      clreduce_op op, clreduce_type type,
                                                      cl_mem input, size_t offset, size_t count,
                                                      cl_mem offsets, size_t offsets_offset,
                                                      clreduce_type offsets_type,
                                                      size_t segments, cl_mem result,
                                                      size_t result_offset, cl_uint num_wait,
                                                      const cl_event *wait, cl_event *done);

/* As clreduce_reduce_segments(), and if `first` is not NULL *first receives
 * an event of the call's first command, as clreduce_reduce_profiled() gives
 * it. */
CLREDUCE_API clreduce_status clreduce_reduce_segments_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, clreduce_op op, clreduce_type type, cl_mem input,
    size_t offset, size_t count, cl_mem offsets, size_t offsets_offset,
    clreduce_type offsets_type, size_t segments, cl_mem result, size_t result_offset,
    cl_uint num_wait, const cl_event *wait, cl_event *first, cl_event *done);

/* Blocking convenience: reduces the segments of host memory data[0 ..
 * count) that host memory offsets[0 .. segments] delimit into results 0 ..
 * segments - 1 of `results` (segments * clreduce_result_size(op, type)
 * bytes). Uses a queue owned by the context. Checks the offsets first:
 * CLREDUCE_ERROR_INVALID_ARGUMENT, naming the first bad index, where they
 * decrease or pass count.
 * Returns CLREDUCE_SUCCESS or any error code; on error `results` is
 * untouched. */
CLREDUCE_API clreduce_status clreduce_reduce_segments_host(clreduce_ctx *ctx, clreduce_op op,
                                                           clreduce_type type, const void *data,
                                                           size_t count, const void *offsets,
                                                           clreduce_type offsets_type,
                                                           size_t segments, void *results);

/* Enqueues one dot product per row: result r is the sum of x[i] * y[i]
 * over row r of x (`rows` rows of `row_length` elements from element
 * x_offset of `x`, row_pitch apart; a pitch of 0 means row_length) and the
 * same row of y (from element y_offset of `y`, at the same pitch), one
 * element of `type` at element result_offset + r of `result`, with the
 * bounds above for a sum of the products (in a reproducible context, for
 * float and double, clreduce_dot()'s bits for that row alone in that
 * context): the cosine similarities of pairs of rows, a batch of small dot
 * products. x and y may be one buffer and may overlap (both are only
 * read); the results may overlap neither span. row_length 0 writes 0 to
 * every result.
 * Returns the codes of clreduce_reduce_rows() (messages call x "input" and
 * y "input2"), and CLREDUCE_ERROR_INVALID_ARGUMENT also for a NULL y, a span
 * of y past its buffer's end and the storage types (as clreduce_dot()). */
CLREDUCE_API clreduce_status clreduce_dot_rows(clreduce_ctx *ctx, cl_command_queue queue,
                                               clreduce_type type, cl_mem x, size_t x_offset,
                                               cl_mem y, size_t y_offset, size_t rows,
                                               size_t row_length, size_t row_pitch,
                                               cl_mem result, size_t result_offset,
                                               cl_uint num_wait, const cl_event *wait,
                                               cl_event *done);

/* As clreduce_dot_rows(), and if `first` is not NULL *first receives an
 * event of the call's first command, as clreduce_reduce_profiled() gives
 * it. */
CLREDUCE_API clreduce_status clreduce_dot_rows_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, clreduce_type type, cl_mem x, size_t x_offset,
    cl_mem y, size_t y_offset, size_t rows, size_t row_length, size_t row_pitch, cl_mem result,
    size_t result_offset, cl_uint num_wait, const cl_event *wait, cl_event *first,
    cl_event *done);

/* Blocking convenience: the dot products of the rows of host memory x and
 * y (laid out as for clreduce_dot_rows() from element 0, at one pitch) into
 * results 0 .. rows - 1 of `results` (rows elements of `type`), on a queue
 * owned by the context. On error `results` is untouched. */
CLREDUCE_API clreduce_status clreduce_dot_rows_host(clreduce_ctx *ctx, clreduce_type type,
                                                    const void *x, const void *y, size_t rows,
                                                    size_t row_length, size_t row_pitch,
                                                    void *results);

/* Enqueues one dot product per segment: result s is the sum of x[i] * y[i]
 * over segment s, elements [offsets[s], offsets[s+1]) of both [x_offset,
 * x_offset + count) of `x` and [y_offset, y_offset + count) of `y`, with
 * the offsets of clreduce_reduce_segments() (unchecked here, read clamped
 * to [0, count] by the kernels), one element of `type` at element
 * result_offset + s of `result`. Empty segments give 0. x and y may be one
 * buffer and may overlap; the results may overlap neither range nor the
 * offsets.
 * Returns the codes of clreduce_reduce_segments(), and also
 * CLREDUCE_ERROR_INVALID_ARGUMENT for a NULL y, a y range past its buffer's
 * end and the storage types (as clreduce_dot()). */
CLREDUCE_API clreduce_status clreduce_dot_segments(clreduce_ctx *ctx, cl_command_queue queue,
                                                   clreduce_type type, cl_mem x,
                                                   size_t x_offset, cl_mem y, size_t y_offset,
                                                   size_t count, cl_mem offsets,
                                                   size_t offsets_offset,
                                                   clreduce_type offsets_type, size_t segments,
                                                   cl_mem result, size_t result_offset,
                                                   cl_uint num_wait, const cl_event *wait,
                                                   cl_event *done);

/* As clreduce_dot_segments(), and if `first` is not NULL *first receives an
 * event of the call's first command, as clreduce_reduce_profiled() gives
 * it. */
CLREDUCE_API clreduce_status clreduce_dot_segments_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, clreduce_type type, cl_mem x, size_t x_offset,
    cl_mem y, size_t y_offset, size_t count, cl_mem offsets, size_t offsets_offset,
    clreduce_type offsets_type, size_t segments, cl_mem result, size_t result_offset,
    cl_uint num_wait, const cl_event *wait, cl_event *first, cl_event *done);

/* Blocking convenience: the dot products of the segments of host memory
 * x[0 .. count) and y[0 .. count) that host memory offsets[0 .. segments]
 * delimit into results 0 .. segments - 1 of `results` (segments elements
 * of `type`), on a queue owned by the context, the offsets checked first
 * as clreduce_reduce_segments_host() does. On error `results` is
 * untouched. */
CLREDUCE_API clreduce_status clreduce_dot_segments_host(clreduce_ctx *ctx, clreduce_type type,
                                                        const void *x, const void *y,
                                                        size_t count, const void *offsets,
                                                        clreduce_type offsets_type,
                                                        size_t segments, void *results);

/* ---------------------------------------------------------------------------
 * Scans of rows
 *
 * One inclusive or exclusive scan per row of a matrix in one call (the
 * cumulative sum of each row, the running maximum of each series, the
 * running argmax or mean and variance of each), for the operators and
 * types of clreduce_scan() but dot, with its rules for integer
 * wrap-around, NaN and signed zeros: row r's output is what clreduce_scan()
 * writes for that row alone (an exclusive scan starts every row from the
 * identity, or from the result of no element). For sum, min and max the
 * library picks the kernels from the row length: several rows per
 * work-group (a work-item, a few work-items or one sub-group per row) for
 * short rows, a work-group per row for longer ones, and several
 * work-groups per long row (a reduce-then-scan of its parts, which reads
 * the row twice) when the rows are too few to fill the device.
 *
 * The operators past CLREDUCE_OP_MAX of one input (argmin, argmax, minmax,
 * sum_squares, sum_abs, norm2, mean_var) write, for every element of a
 * row, the result the reduction of the row's prefix gives, in its layout
 * of clreduce_result_size(op, type) bytes (clreduce/results.h): output
 * offsets and pitches then count results, an argmin's or argmax's index
 * counts from the start of its row, and element 0 of an exclusive scan is
 * the result of no element. A work-group scans a row at a time in one
 * launch, each work-item a run of the row, combining the elements strictly
 * in their order, with the accuracy that clreduce_scan() gives them; the
 * output is never the input (no byte in common).
 *
 * Every output is combined in an order fixed by the row length, the row
 * count, the device and the tuning: the same input gives bitwise the same
 * outputs every time on the same device. Floating-point sums are evaluated
 * in the element type with the bound of clreduce_scan(): for element i of
 * a row of n, |out[i] - exact_i| <= (k + ceil(log2 n)) * u * sum_{j<=i}
 * |x_j|, where k counts the blocks of the row before element i plus twice
 * the elements a work-item takes from a block. A block is a scan tile of
 * clreduce_scan() or, in short rows, one vector per work-item of a team; it
 * holds at least s * v elements unless the row has at most 4 of them, so
 * that k <= i / (s * v) + 2 * e + 4, with v the vector width of
 * clreduce_get_tuning(), e the elements per work-item of a scan tile, and
 * s the sub-group size where the library uses sub-groups
 * (clreduce_get_subgroup_path()), the work-group size of
 * clreduce_get_tuning() elsewhere.
 *
 * The enqueueing call is asynchronous like clreduce_scan() (wait list,
 * *done, in-order or out-of-order queues). The output rows of sum, min and
 * max may be the input rows themselves (the same buffer, offset and pitch,
 * or sub-buffers that reach the same bytes: an in-place scan) or share no
 * byte with them; those of the other operators must share no byte with
 * them. Either range is taken as the whole span of its rows, padding
 * between rows included. On any error found before enqueueing nothing is
 * enqueued, *done is untouched and no output is written.
 * ------------------------------------------------------------------------- */

/* Enqueues the scan of each of `rows` rows of `row_length` elements: row r
 * starts at element offset + r * row_pitch of `input`, and its scan goes to
 * elements output_offset + r * output_pitch .. + row_length - 1 of `output`
 * (offsets and pitches in elements of `type`; a pitch of 0 means
 * row_length). For the operators past CLREDUCE_OP_MAX, output_offset and
 * output_pitch count results instead: row r's results are results
 * output_offset + r * output_pitch .. + row_length - 1 of `output`, result
 * j at byte j * clreduce_result_size(op, type). The padding between rows is
 * neither read nor written. rows 0 or row_length 0 enqueues nothing but a
 * marker when done is asked.
 * Returns the codes of clreduce_scan(), with
 * CLREDUCE_ERROR_INVALID_ARGUMENT also for an unknown kind, a row_pitch or
 * output_pitch below row_length, rows whose span ((rows - 1) * pitch +
 * row_length elements, or results) overflows or ends past the end of its
 * buffer, output rows that overlap the input rows without being the same,
 * and output rows of the operators past CLREDUCE_OP_MAX that overlap the
 * input rows at all; and CLREDUCE_ERROR_UNSUPPORTED for CLREDUCE_OP_DOT
 * and for norm2 and mean_var of integers. If the runtime fails after the
 * first command was enqueued, the call waits for the commands already
 * enqueued before it returns the error; the output may then be partly
 * written (and an in-place scan's input lost). */
CLREDUCE_API clreduce_status clreduce_scan_rows(clreduce_ctx *ctx, cl_command_queue queue,
                                                clreduce_op op, clreduce_type type,
                                                clreduce_scan_kind kind, cl_mem input,
                                                size_t offset, size_t rows, size_t row_length,
                                                size_t row_pitch, cl_mem output,
                                                size_t output_offset, size_t output_pitch,
                                                cl_uint num_wait, const cl_event *wait,
                                                cl_event *done);

/* As clreduce_scan_rows(), and if `first` is not NULL *first receives an
 * event of the call's first command, as clreduce_reduce_profiled() gives
 * it. */
CLREDUCE_API clreduce_status clreduce_scan_rows_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, clreduce_op op, clreduce_type type,
    clreduce_scan_kind kind, cl_mem input, size_t offset, size_t rows, size_t row_length,
    size_t row_pitch, cl_mem output, size_t output_offset, size_t output_pitch,
    cl_uint num_wait, const cl_event *wait, cl_event *first, cl_event *done);

/* Blocking convenience: scans the rows of host memory `data` (laid out as
 * for clreduce_scan_rows() from element 0) into `output`, laid out the same
 * way (the same pitch; for the operators past CLREDUCE_OP_MAX, counted in
 * results: (rows - 1) * row_pitch + row_length results of
 * clreduce_result_size(op, type) bytes); the padding of `output` is not
 * written. output == data scans sum, min and max in place; otherwise their
 * spans must not overlap. Uses a queue owned by the context. rows 0 or
 * row_length 0 does nothing.
 * Returns CLREDUCE_SUCCESS or any error code; on error `output` is
 * untouched. */
CLREDUCE_API clreduce_status clreduce_scan_rows_host(clreduce_ctx *ctx, clreduce_op op,
                                                     clreduce_type type,
                                                     clreduce_scan_kind kind, const void *data,
                                                     size_t rows, size_t row_length,
                                                     size_t row_pitch, void *output);

/* Enqueues the inclusive or exclusive scan of each of `rows` rows with the
 * user-defined operator `op` (clreduce/operator.h): row r is `row_length`
 * elements of op's input_type from element input_offset + r * row_pitch of
 * `input` and, for an operator of two inputs, the same elements of input2
 * from input2_offset (its rows at the same row_pitch; NULL for an operator
 * of one). Its results, accumulators of acc_size bytes as the device lays
 * out acc_type, are results output_offset + r * output_pitch .. +
 * row_length - 1 of `output`, result j at byte j * acc_size:
 *   inclusive: map(x[0], 0) combine ... combine map(x[j], j)
 *   exclusive: the identity for j == 0, else the inclusive result of j - 1
 * with the index i of map counting from the row's start, combined strictly
 * in the elements' order, so that operators that do not commute scan
 * correctly. Offsets and row_pitch count elements, output_offset and
 * output_pitch results; a pitch of 0 means row_length. Not in place: the
 * output rows share no byte with either input's rows; the inputs may
 * overlap each other. The padding between rows is neither read nor
 * written. rows 0 or row_length 0 enqueues nothing but a marker when done
 * is asked. Asynchronous, with a wait list and a completion event, as
 * clreduce_scan_rows(); op may be released as soon as this returns.
 * Returns the codes of clreduce_scan_custom() (no variant: one launch scans
 * each row in a work-group), with CLREDUCE_ERROR_INVALID_ARGUMENT also for
 * a NULL op, an operator of another context, input2 NULL for an operator of
 * two inputs or not NULL for one of one, an unknown kind, an exclusive scan
 * with an operator without identity, a row_pitch or output_pitch below
 * row_length, and rows whose span ((rows - 1) * pitch + row_length elements
 * or results) overflows, ends past the end of its buffer or overlaps the
 * output rows; CLREDUCE_ERROR_BUILD where the kernels do not compile (the
 * build log in clreduce_last_error()). On any error found before
 * enqueueing nothing is enqueued and no output is written. */
CLREDUCE_API clreduce_status clreduce_scan_rows_custom(clreduce_ctx *ctx, cl_command_queue queue,
                                                       clreduce_operator *op,
                                                       clreduce_scan_kind kind, cl_mem input,
                                                       size_t input_offset, cl_mem input2,
                                                       size_t input2_offset, size_t rows,
                                                       size_t row_length, size_t row_pitch,
                                                       cl_mem output, size_t output_offset,
                                                       size_t output_pitch, cl_uint num_wait,
                                                       const cl_event *wait, cl_event *done);

/* As clreduce_scan_rows_custom(), and if `first` is not NULL *first receives an
 * event of the call's first command, as clreduce_reduce_profiled() gives
 * it. */
CLREDUCE_API clreduce_status clreduce_scan_rows_custom_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, clreduce_operator *op, clreduce_scan_kind kind,
    cl_mem input, size_t input_offset, cl_mem input2, size_t input2_offset, size_t rows,
    size_t row_length, size_t row_pitch, cl_mem output, size_t output_offset,
    size_t output_pitch, cl_uint num_wait, const cl_event *wait, cl_event *first, cl_event *done);

/* Blocking convenience: scans the rows of host memory `input` (and
 * `input2`, for an operator of two inputs; NULL for one), laid out as for
 * clreduce_scan_rows_custom() from element 0, into `output`, whose rows
 * are output_pitch results apart from result 0 ((rows - 1) * output_pitch +
 * row_length results of acc_size bytes; output_pitch 0: row_length); the
 * padding of `output` is not written, and its span shares no byte with the
 * inputs'. Uses a queue owned by the context. rows 0 or row_length 0 does
 * nothing.
 * Returns the codes of clreduce_scan_rows_custom(); on error `output` is
 * untouched. */
CLREDUCE_API clreduce_status clreduce_scan_rows_custom_host(clreduce_ctx *ctx,
                                                            clreduce_operator *op,
                                                            clreduce_scan_kind kind,
                                                            const void *input,
                                                            const void *input2, size_t rows,
                                                            size_t row_length, size_t row_pitch,
                                                            size_t output_pitch, void *output);

#ifdef __cplusplus
}
#endif

#endif /* CLREDUCE_BATCHED_H */
