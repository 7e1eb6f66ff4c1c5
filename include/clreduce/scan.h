/*
 * clreduce/scan.h: prefix scans.
 * Included by clreduce/clreduce.h; include that header, not this one.
 */
#ifndef CLREDUCE_SCAN_H
#define CLREDUCE_SCAN_H

#include "clreduce/clreduce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Prefix scans
 *
 * A scan writes, for every element i of a range, the operator applied to the
 * elements before it (exclusive) or up to and including it (inclusive):
 *   inclusive: out[i] = x[0] op x[1] op ... op x[i]
 *   exclusive: out[0] = identity, out[i] = x[0] op ... op x[i-1]
 * for sum, min and max and the types of the reductions, with the same rules
 * for integer wrap-around, NaN and signed zeros.
 *
 * The operators past CLREDUCE_OP_MAX of one input (argmin, argmax, minmax,
 * sum_squares, sum_abs, norm2, mean_var; not dot) scan too, each on the
 * types it reduces: out[i] is then the result the reduction of x[0 .. i]
 * (inclusive) or x[0 .. i) (exclusive) gives, in its layout of
 * clreduce_result_size(op, type) bytes (clreduce/results.h), an argmin's or
 * argmax's index counted from the start of the range; out[0] of an
 * exclusive scan is the result of no element. Each out[i] is combined
 * strictly in the elements' order from its work-item's run and the runs
 * and groups before it, with the accuracy the reductions state; variants
 * AUTO and REDUCE_THEN_SCAN (three launches, the input read twice), not in
 * place.
 *
 * Numerical contract of floating-point sums: out[i] is evaluated in the
 * element type as a sum of x[0..i] grouped by work-item, sub-group,
 * work-group and tile; |out[i] - exact_i| <= (k + ceil(log2 n)) * u *
 * sum_{j<=i} |x_j|, with u the unit roundoff and k the number of tiles before
 * element i plus the elements per work-item (a tile is a few thousand
 * elements). HILLIS_STEELE, BLELLOCH and REDUCE_THEN_SCAN are bitwise
 * reproducible run to run on the same device; LOOKBACK combines the
 * aggregates of earlier tiles in an order that depends on timing, so its
 * float sums may differ in the last bits between runs (its integer results,
 * and its min and max, never do).
 *
 * In a reproducible context (clreduce_settings.reproducible) a float or
 * double sum scan on CLREDUCE_SCAN_AUTO follows an order fixed by the count
 * alone, the same bits on every device (docs/USING.md spells it out): tiles
 * of 64 KiB, 256 lanes of consecutive elements each added in sequence, the
 * lanes' and then the tiles' totals scanned in fixed patterns; three
 * launches. Then k above is the elements of a lane (64 floats, 32 doubles)
 * plus 2 * ceil(tiles / 256), plus 18 (each value passes through at most
 * that many additions in a row). The other variants are refused there for
 * these sums. Each row of clreduce_scan_rows() (clreduce/batched.h) is
 * scanned in that order on its own.
 * ------------------------------------------------------------------------- */

/* Inclusive or exclusive scan. */
typedef enum clreduce_scan_kind {
    CLREDUCE_INCLUSIVE = 0,
    CLREDUCE_EXCLUSIVE = 1
} clreduce_scan_kind;

/* Scan algorithms, each selectable by name. */
typedef enum clreduce_scan_variant {
    /* The library's choice for the device: LOOKBACK wherever the device
     * orders memory between work-groups (see LOOKBACK), except an in-place
     * scan on a GPU other than NVIDIA's, which gets REDUCE_THEN_SCAN;
     * REDUCE_THEN_SCAN elsewhere. */
    CLREDUCE_SCAN_AUTO = 0,
    /* Hillis-Steele: log2(block) steps in local memory in which every
     * element adds the one 2^k before it (O(n log n) work); block totals are
     * scanned the same way, level by level, and added back. */
    CLREDUCE_SCAN_HILLIS_STEELE = 1,
    /* Blelloch: work-efficient up-sweep and down-sweep over a balanced tree
     * in local memory (O(n) work); block totals as above. */
    CLREDUCE_SCAN_BLELLOCH = 2,
    /* Three phases: a grid sized to the device reduces one run of tiles per
     * work-group, one work-group scans those totals, then every work-group
     * scans its run again starting from its prefix. Reads the input twice. */
    CLREDUCE_SCAN_REDUCE_THEN_SCAN = 3,
    /* Single pass with decoupled look-back (Merrill and Garland): each
     * work-group takes a tile number from an atomic ticket, publishes its
     * tile's total and then its inclusive prefix behind device-scope fences,
     * and finds its own prefix by looking back over its predecessors. Reads
     * and writes every element once. Needs a device that orders memory
     * between work-groups (NVIDIA through PTX fences, OpenCL C 2.0 devices,
     * OpenCL C 3.0 devices with acquire-release atomics and fences at device
     * scope, CPUs). On NVIDIA GPUs and CPUs, which keep a started
     * work-group running while others wait for it, a tile waits for its
     * predecessors' states as long as it takes. Elsewhere (ARM Mali and
     * Apple GPUs, for two, do not promise that) a wait is bounded, and a
     * tile whose predecessor does not answer reduces that tile itself from
     * the input (the decoupled fallback of Smith, Levien and Owens, SPAA
     * 2025). In place that input may already be overwritten, so an in-place
     * LOOKBACK waits as long as it takes, and can hang on such a GPU (AUTO
     * does not choose it there). */
    CLREDUCE_SCAN_LOOKBACK = 4
} clreduce_scan_variant;

#define CLREDUCE_SCAN_VARIANT_COUNT 5

/* Blocking convenience: scans `count` elements of host memory `input` into
 * host memory `output` (count elements of `type`; output == input scans in
 * place; otherwise the two must not overlap). Uses a queue owned by the
 * context. count == 0 does nothing.
 * Returns CLREDUCE_SUCCESS or any error code; on error `output` is
 * untouched. */
CLREDUCE_API clreduce_status clreduce_scan_host(clreduce_ctx *ctx, clreduce_op op,
                                                clreduce_type type, clreduce_scan_kind kind,
                                                clreduce_scan_variant variant,
                                                const void *input, size_t count, void *output);

/* Enqueues the scan of elements [input_offset, input_offset + count) of
 * `input` into elements [output_offset, output_offset + count) of `output`
 * (offsets and counts in elements of `type`; for the operators past
 * CLREDUCE_OP_MAX, output_offset and the output range count results of
 * clreduce_result_size(op, type) bytes, and the ranges share no byte). The
 * ranges must be the same
 * bytes (an in-place scan: input == output and input_offset ==
 * output_offset, or two sub-buffers, or a sub-buffer and its parent, that
 * reach the same bytes) or share no byte at all. Asynchronous, with a wait
 * list and a completion event, on an in-order or out-of-order queue, as
 * clreduce_reduce(). count == 0 enqueues only a marker when `done` is asked
 * for.
 * Returns the codes of clreduce_reduce(), with CLREDUCE_ERROR_INVALID_ARGUMENT
 * also for an unknown kind or scan variant and for partly overlapping ranges,
 * and CLREDUCE_ERROR_UNSUPPORTED for CLREDUCE_OP_DOT (two inputs:
 * clreduce_dot_scan(); clreduce_reduce() answers INVALID_ARGUMENT) and for
 * LOOKBACK on a device that cannot order memory between work-groups. On any
 * error found before enqueueing nothing has been enqueued and `output` is
 * not written. If the runtime fails after the first command of a call was
 * enqueued, the call waits for the commands already enqueued before it
 * returns the error; HILLIS_STEELE and BLELLOCH may then have left the
 * output range scanned block by block (an in-place scan has then lost its
 * input), the other variants leave it untouched. */
CLREDUCE_API clreduce_status clreduce_scan(clreduce_ctx *ctx, cl_command_queue queue,
                                           clreduce_op op, clreduce_type type,
                                           clreduce_scan_kind kind,
                                           clreduce_scan_variant variant, cl_mem input,
                                           size_t input_offset, size_t count, cl_mem output,
                                           size_t output_offset, cl_uint num_wait,
                                           const cl_event *wait, cl_event *done);

/* As clreduce_scan(), with the event of the first command in *first (see
 * clreduce_reduce_profiled()). */
CLREDUCE_API clreduce_status clreduce_scan_profiled(clreduce_ctx *ctx, cl_command_queue queue,
                                                    clreduce_op op, clreduce_type type,
                                                    clreduce_scan_kind kind,
                                                    clreduce_scan_variant variant, cl_mem input,
                                                    size_t input_offset, size_t count,
                                                    cl_mem output, size_t output_offset,
                                                    cl_uint num_wait, const cl_event *wait,
                                                    cl_event *first, cl_event *done);

/* Enqueues the inclusive or exclusive scan with `op` of elements
 * [input_offset, input_offset + count) of `input` (and of input2 from
 * input2_offset, for an operator of two inputs; NULL for one): output
 * element j, at byte (output_offset + j) * acc_size of `output`, receives
 *   inclusive: map(x[0], 0) combine ... combine map(x[j], j)
 *   exclusive: the identity for j == 0, else the inclusive result of j - 1
 * combined strictly in the elements' order, so that operators that do not
 * commute scan correctly. Variants CLREDUCE_SCAN_AUTO and
 * CLREDUCE_SCAN_REDUCE_THEN_SCAN (three launches, each a contiguous range
 * per work-group and per work-item); not in place. count == 0 writes
 * nothing. Asynchronous, with a wait list and a completion event, as
 * clreduce_scan().
 * Returns the codes of clreduce_reduce_custom(); INVALID_ARGUMENT also for
 * an unknown kind and for an exclusive scan with an operator without
 * identity; UNSUPPORTED for another variant. On any error found before
 * enqueueing nothing has been enqueued and `output` is not written. */
CLREDUCE_API clreduce_status clreduce_scan_custom(clreduce_ctx *ctx, cl_command_queue queue,
                                                  clreduce_operator *op,
                                                  clreduce_scan_kind kind,
                                                  clreduce_scan_variant variant, cl_mem input,
                                                  size_t input_offset, cl_mem input2,
                                                  size_t input2_offset, size_t count,
                                                  cl_mem output, size_t output_offset,
                                                  cl_uint num_wait, const cl_event *wait,
                                                  cl_event *done);

/* As clreduce_scan_custom(), and if `first` is not NULL *first receives an
 * event of the call's first command, as clreduce_reduce_profiled() gives
 * it. */
CLREDUCE_API clreduce_status clreduce_scan_custom_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, clreduce_operator *op, clreduce_scan_kind kind,
    clreduce_scan_variant variant, cl_mem input, size_t input_offset, cl_mem input2,
    size_t input2_offset, size_t count, cl_mem output, size_t output_offset, cl_uint num_wait,
    const cl_event *wait, cl_event *first, cl_event *done);

/* Blocking convenience: the scan with `op` of `count` elements of host
 * array `input` (and `input2`; NULL for one input) into `output` (count
 * accumulators of acc_size bytes), on a queue owned by the context.
 * Returns the codes of clreduce_scan_custom(); on error `output` is
 * untouched. */
CLREDUCE_API clreduce_status clreduce_scan_custom_host(clreduce_ctx *ctx, clreduce_operator *op,
                                                       clreduce_scan_kind kind,
                                                       clreduce_scan_variant variant,
                                                       const void *input, const void *input2,
                                                       size_t count, void *output);

/* Enqueues the running dot product of x and y: output element i (from
 * output_offset, in elements of `type`) is the sum of x[k] * y[k] for k
 * from 0 to i (inclusive) or to i - 1 (exclusive, 0 for i = 0), over
 * elements [x_offset, x_offset + count) of `x` and [y_offset, y_offset +
 * count) of `y`: the scan of CLREDUCE_OP_DOT, the products' prefix sums
 * with the accuracy the operators' scans give sums of squares (a product
 * rounded to `type`, then added in the elements' order). Variants AUTO
 * and REDUCE_THEN_SCAN. x and y may be one buffer and may overlap; the
 * output overlaps neither. Asynchronous, with a wait list and a completion
 * event, as clreduce_scan().
 * Returns the codes of clreduce_scan(), and CLREDUCE_ERROR_INVALID_ARGUMENT
 * also for a NULL y, a y range past its buffer's end and an output that
 * shares a byte with x or y; in a reproducible context float and double
 * are refused (CLREDUCE_ERROR_UNSUPPORTED), as the operators' scans are. */
CLREDUCE_API clreduce_status clreduce_dot_scan(clreduce_ctx *ctx, cl_command_queue queue,
                                               clreduce_type type, clreduce_scan_kind kind,
                                               clreduce_scan_variant variant, cl_mem x,
                                               size_t x_offset, cl_mem y, size_t y_offset,
                                               size_t count, cl_mem output, size_t output_offset,
                                               cl_uint num_wait, const cl_event *wait,
                                               cl_event *done);

/* As clreduce_dot_scan(), and if `first` is not NULL *first receives an
 * event of the call's first command, as clreduce_reduce_profiled() gives
 * it. */
CLREDUCE_API clreduce_status clreduce_dot_scan_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, clreduce_type type, clreduce_scan_kind kind,
    clreduce_scan_variant variant, cl_mem x, size_t x_offset, cl_mem y, size_t y_offset,
    size_t count, cl_mem output, size_t output_offset, cl_uint num_wait, const cl_event *wait,
    cl_event *first, cl_event *done);

/* Blocking convenience: the running dot product of `count` elements of
 * host arrays x and y into `output` (count elements of `type`, sharing no
 * byte with x or y), on a queue owned by the context. count == 0 does
 * nothing. On error `output` is untouched. */
CLREDUCE_API clreduce_status clreduce_dot_scan_host(clreduce_ctx *ctx, clreduce_type type,
                                                    clreduce_scan_kind kind,
                                                    clreduce_scan_variant variant,
                                                    const void *x, const void *y, size_t count,
                                                    void *output);

/* Whether scan `variant` can run for `type` on the context's device: returns
 * CLREDUCE_SUCCESS or the status clreduce_scan() would return (for
 * CLREDUCE_OP_DOT: clreduce_dot_scan()), with the reason in
 * clreduce_last_error(). Builds nothing. */
CLREDUCE_API clreduce_status clreduce_check_scan_support(clreduce_ctx *ctx, clreduce_op op,
                                                         clreduce_type type,
                                                         clreduce_scan_variant variant);

/* Names as used in the documentation and the benchmark ("inclusive",
 * "lookback"); NULL for an unknown value. */
CLREDUCE_API const char *clreduce_scan_kind_name(clreduce_scan_kind kind);
CLREDUCE_API const char *clreduce_scan_variant_name(clreduce_scan_variant variant);

/* The variant CLREDUCE_SCAN_AUTO resolves to for `type` on this device. */
CLREDUCE_API clreduce_scan_variant clreduce_auto_scan_variant(const clreduce_ctx *ctx,
                                                              clreduce_type type);

#ifdef __cplusplus
}
#endif

#endif /* CLREDUCE_SCAN_H */
