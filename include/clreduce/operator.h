/*
 * clreduce/operator.h: user-defined operators.
 * Included by clreduce/clreduce.h; include that header, not this one.
 */
#ifndef CLREDUCE_OPERATOR_H
#define CLREDUCE_OPERATOR_H

#include "clreduce/clreduce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * User-defined operators
 *
 * An operator written in OpenCL C, compiled into the same reduction kernels
 * as the built-in operators (vector loads, a grid that fills the device, a
 * deterministic final combine). It reduces a range of elements of one type
 * (or two ranges, elementwise) to one accumulator of the user's type:
 *
 *     result = combine(... combine(map(x[0], 0), map(x[1], 1)) ..., map(x[n-1], n-1))
 *
 * grouped as the kernels choose: combine must be associative. A float sum:
 *
 *     clreduce_operator_desc d = {
 *         .name = "fsum", .input_type = CLREDUCE_FLOAT, .inputs = 1,
 *         .acc_type = "float", .acc_size = sizeof(float), .acc_align = _Alignof(float),
 *         .identity = "0.0f", .map = "x", .combine = "a + b", .commutative = 1,
 *     };
 *     clreduce_operator *op;
 *     if (clreduce_operator_create(ctx, &d, &op) == CLREDUCE_SUCCESS) {
 *         float sum;
 *         clreduce_reduce_custom_host(ctx, op, CLREDUCE_AUTO, data, NULL, count, &sum);
 *         clreduce_operator_release(op);
 *     }
 *
 * clreduce_scan_custom() scans with it (in the Prefix scans section).
 *
 * A struct accumulator is defined in acc_source and mirrored on the host:
 *
 *     .acc_type = "stats",
 *     .acc_source = "typedef struct { float lo, hi; uint count; } stats;",
 *     .acc_size = sizeof(struct stats), .acc_align = _Alignof(struct stats),
 *     .identity = "(stats){INFINITY, -INFINITY, 0}",
 *     .map = "(stats){x, x, 1}",
 *     .combine = "(stats){fmin(a.lo, b.lo), fmax(a.hi, b.hi), a.count + b.count}",
 *
 * Names the user's text must leave alone: those starting with clr_ or CLR_.
 * The text sees OpenCL C and its built-ins, cl_khr_fp64 where the device has
 * it, and its own acc_source; nothing else of the library's. The library's
 * kernels follow acc_source in one program: #undef its macros at its end
 * (a macro named like one of their variables, n or x, would change them).
 * ------------------------------------------------------------------------- */

/* Largest accumulator, in bytes (without an identity the kernels keep a
 * flag beside it, which must fit too: at most 24 bytes of 8-byte alignment,
 * 28 of 4). */
#define CLREDUCE_OPERATOR_ACC_MAX 32
/* Longest operator name. */
#define CLREDUCE_OPERATOR_NAME_MAX 64

/* clreduce_operator, an operator compiled for one context (reference
 * counted), is declared in clreduce/clreduce.h. */

/* What an operator is. acc_source and identity may be NULL and commutative
 * 0; every other field must be set. */
typedef struct clreduce_operator_desc {
    /* An identifier ([A-Za-z_][A-Za-z0-9_]*, at most
     * CLREDUCE_OPERATOR_NAME_MAX characters): in messages, in the positions
     * of build errors ("<name>.combine:1:7: error: ..."), and in the kernels'
     * names (clr_reduce_<name>, clr_reduce_<name>_finish). */
    const char *name;
    /* The element type of the input(s): x (and y) in map. The storage types
     * CLREDUCE_HALF and CLREDUCE_BFLOAT16 are read as 2 bytes an element
     * and widened exactly to float: x (and y) are then floats. */
    clreduce_type input_type;
    /* 1, or 2: map reads x from the first input and y from the second. */
    unsigned inputs;
    /* The accumulator's OpenCL C type: "float", "long2", or a name that
     * acc_source defines. */
    const char *acc_type;
    /* OpenCL C before everything else: the accumulator's typedef, helper
     * functions, macros. NULL for none. */
    const char *acc_source;
    /* sizeof and alignment of acc_type on the device, in bytes (a host
     * mirror's sizeof and _Alignof): checked when the operator is created,
     * the size of one result. At most CLREDUCE_OPERATOR_ACC_MAX. */
    size_t acc_size;
    size_t acc_align;
    /* An expression of acc_type that combines with anything to leave it
     * unchanged: what a reduction of no element writes. NULL: none (a
     * reduction of no element and an exclusive scan are then refused). */
    const char *identity;
    /* An expression of acc_type from element x (and y, with two inputs) and
     * i, its index in the range (ulong, 0 for the first element). */
    const char *map;
    /* An expression of acc_type from accumulators a and b (a holding earlier
     * elements than b); must be associative. */
    const char *combine;
    /* Non-zero if combine is also commutative: the kernels may then combine
     * in any order they like (lane by lane of vector loads, work-items
     * interleaved), with the built-in sum's loads and grid (its speed
     * against the built-in sum is not yet measured on a GPU: clreduce-bench
     * --user-sum times it). Zero (the default) keeps
     * the elements' order, for operators such as matrix products: each
     * work-item then walks a run of its own, which costs bandwidth on GPUs. */
    int commutative;
} clreduce_operator_desc;

/* Compiles an operator for the context's device and checks it: the pieces
 * of the description are compiled (a syntax error is reported at once) and
 * acc_size and acc_align compared with the device's. The reductions' kernels
 * are built on first use, once per context (and kept in the disk cache,
 * keyed by the operator's text like any program).
 * Returns:
 *   CLREDUCE_SUCCESS and *out, an operator to release with
 *       clreduce_operator_release();
 *   CLREDUCE_ERROR_INVALID_ARGUMENT  NULL ctx, desc or out; a NULL or bad
 *       name; an unknown input_type; inputs not 1 or 2; a NULL or empty
 *       acc_type, map or combine, or an empty identity; acc_size 0 or past
 *       CLREDUCE_OPERATOR_ACC_MAX; acc_align not a power of two dividing
 *       acc_size; acc_size or acc_align unlike the device's;
 *   CLREDUCE_ERROR_UNSUPPORTED  a double input without cl_khr_fp64;
 *   CLREDUCE_ERROR_BUILD  the text did not compile: clreduce_last_error()
 *       holds the build log, whose positions name the pieces of the
 *       description: "<name>.acc_source", "<name>.acc_type",
 *       "<name>.identity", "<name>.map", "<name>.combine" (line 1 is the
 *       first line of each);
 *   CLREDUCE_ERROR_OPENCL, CLREDUCE_ERROR_OUT_OF_MEMORY.
 * On error *out is NULL (where out is not NULL). */
CLREDUCE_API clreduce_status clreduce_operator_create(clreduce_ctx *ctx,
                                                      const clreduce_operator_desc *desc,
                                                      clreduce_operator **out);

/* Takes one more reference to op; returns op. */
CLREDUCE_API clreduce_operator *clreduce_operator_retain(clreduce_operator *op);

/* Drops a reference to op (NULL: nothing). At the last one the operator and
 * its compiled programs are freed; commands already enqueued with it run to
 * completion, and a call in progress on another thread holds a reference of
 * its own. Release every operator before destroying its context. */
CLREDUCE_API void clreduce_operator_release(clreduce_operator *op);

/* Bytes of one result of op (its acc_size); 0 for NULL. */
CLREDUCE_API size_t clreduce_operator_result_size(const clreduce_operator *op);

/* Enqueues the reduction with `op` of elements [offset, offset + count) of
 * `input` (and, for an operator of two inputs, [offset2, offset2 + count)
 * of `input2`; NULL for one input) into element `result_offset` of
 * `result`, an array of accumulators: the result lies at byte
 * result_offset * acc_size, as the device lays out acc_type. Offsets and
 * counts in elements of the operator's input_type. Variants AUTO,
 * GRID_STRIDE and SINGLE_PASS. count == 0 writes the identity. The inputs
 * may overlap each other, not the result. Asynchronous, with a wait list and
 * a completion event, as clreduce_reduce(); op may be released as soon as
 * this returns.
 * Returns the codes of clreduce_reduce(), and INVALID_ARGUMENT also for a
 * NULL op, an operator of another context, input2 NULL for an operator of
 * two inputs or not NULL for one of one, and count == 0 for an operator
 * without identity; BUILD where the reduction's kernels do not compile (the
 * build log in clreduce_last_error()). On any error found before
 * enqueueing nothing has been enqueued and `result` is not written. */
CLREDUCE_API clreduce_status clreduce_reduce_custom(clreduce_ctx *ctx, cl_command_queue queue,
                                                    clreduce_operator *op,
                                                    clreduce_variant variant, cl_mem input,
                                                    size_t offset, cl_mem input2,
                                                    size_t offset2, size_t count, cl_mem result,
                                                    size_t result_offset, cl_uint num_wait,
                                                    const cl_event *wait, cl_event *done);

/* As clreduce_reduce_custom(), and if `first` is not NULL *first receives an
 * event of the call's first command, as clreduce_reduce_profiled() gives
 * it. */
CLREDUCE_API clreduce_status clreduce_reduce_custom_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, clreduce_operator *op, clreduce_variant variant,
    cl_mem input, size_t offset, cl_mem input2, size_t offset2, size_t count, cl_mem result,
    size_t result_offset, cl_uint num_wait, const cl_event *wait, cl_event *first,
    cl_event *done);

/* Blocking convenience: the reduction with `op` of `count` elements of host
 * array `data` (and `data2`, for an operator of two inputs; NULL for one)
 * into *result (acc_size bytes), on a queue owned by the context.
 * Returns the codes of clreduce_reduce_custom(); on error *result is
 * untouched. */
CLREDUCE_API clreduce_status clreduce_reduce_custom_host(clreduce_ctx *ctx, clreduce_operator *op,
                                                         clreduce_variant variant,
                                                         const void *data, const void *data2,
                                                         size_t count, void *result);

/* ---------------------------------------------------------------------------
 * Rows and segments with a user-defined operator
 *
 * One reduction with `op` per row or per segment, laid out as for
 * clreduce_reduce_rows() and clreduce_reduce_segments() (clreduce/batched.h):
 * result r is one accumulator of acc_size bytes at byte (result_offset + r) *
 * acc_size of `result`, and i in map counts from the start of the row or
 * segment (0 for its first element). The second input of an operator of two
 * inputs (input2, NULL for one) has the layout of the first from its own
 * offset: row r at element offset2 + r * row_pitch, segment s at elements
 * [offset2 + offsets[s], offset2 + offsets[s+1]). The inputs may overlap
 * each other, not the results.
 *
 * A commutative operator runs in the shapes of the built-in operators past
 * max (vector loads, lanes interleaved). One that is not keeps every result
 * in the elements' order: each work-item of a team walks a contiguous run
 * of its row or segment, and the team combines the runs in order, which on
 * GPUs costs bandwidth beside the interleaved vector loads of a commutative
 * operator (as the flat reduction's ordered path does).
 *
 * Empty rows and segments give the identity. An operator without identity
 * refuses what the host can see to be empty (row_length 0, count 0) with
 * CLREDUCE_ERROR_INVALID_ARGUMENT; an empty segment it cannot see (the
 * offsets are on the device) gets a result of zero bytes, and
 * clreduce_reduce_segments_custom_host() refuses empty segments, naming the
 * first.
 *
 * Asynchronous, with a wait list and a completion event, as the calls of
 * clreduce/batched.h; op may be released as soon as the call returns.
 * Returns their codes, and also CLREDUCE_ERROR_INVALID_ARGUMENT for a NULL
 * op, an operator of another context, input2 NULL for an operator of two
 * inputs or not NULL for one of one, a second input whose span (that of the
 * rows, or [offset2, offset2 + count)) passes the end of input2 or overlaps
 * the results, and empty results without identity as above;
 * CLREDUCE_ERROR_BUILD where the kernels do not compile (the build log in
 * clreduce_last_error()). On any error found before enqueueing nothing is
 * enqueued and no result is written.
 *
 * clreduce_scan_rows_custom() scans rows with an operator (in
 * clreduce/batched.h, after clreduce_scan_rows()).
 * ------------------------------------------------------------------------- */

/* Enqueues one reduction with op per row: `rows` rows of `row_length`
 * elements of op's input_type, row r from element offset + r * row_pitch of
 * `input` (row_pitch 0: row_length), as clreduce_reduce_rows(). */
CLREDUCE_API clreduce_status clreduce_reduce_rows_custom(clreduce_ctx *ctx, cl_command_queue queue,
                                                         clreduce_operator *op, cl_mem input,
                                                         size_t offset, cl_mem input2,
                                                         size_t offset2, size_t rows,
                                                         size_t row_length, size_t row_pitch,
                                                         cl_mem result, size_t result_offset,
                                                         cl_uint num_wait, const cl_event *wait,
                                                         cl_event *done);

/* As clreduce_reduce_rows_custom(), and if `first` is not NULL *first receives an
 * event of the call's first command, as clreduce_reduce_profiled() gives
 * it. */
CLREDUCE_API clreduce_status clreduce_reduce_rows_custom_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, clreduce_operator *op, cl_mem input, size_t offset,
    cl_mem input2, size_t offset2, size_t rows, size_t row_length, size_t row_pitch,
    cl_mem result, size_t result_offset, cl_uint num_wait, const cl_event *wait, cl_event *first,
    cl_event *done);

/* Blocking convenience: the rows of host memory `data` (and `data2`, for an
 * operator of two inputs; NULL for one), laid out from element 0, into
 * results 0 .. rows - 1 of `results` (rows * acc_size bytes), on a queue
 * owned by the context. On error `results` is untouched. */
CLREDUCE_API clreduce_status clreduce_reduce_rows_custom_host(clreduce_ctx *ctx,
                                                              clreduce_operator *op,
                                                              const void *data, const void *data2,
                                                              size_t rows, size_t row_length,
                                                              size_t row_pitch, void *results);

/* Enqueues one reduction with op per segment: segment s is elements
 * [offset + offsets[s], offset + offsets[s+1]) of `input`, with the offsets
 * (segments + 1 of offsets_type, CLREDUCE_UINT32 or CLREDUCE_UINT64, from
 * element offsets_offset of the cl_mem `offsets`) unchecked and clamped to
 * [0, count] by the kernels, as clreduce_reduce_segments(). */
CLREDUCE_API clreduce_status clreduce_reduce_segments_custom(clreduce_ctx *ctx,
                                                             cl_command_queue queue,
                                                             clreduce_operator *op, cl_mem input,
                                                             size_t offset, cl_mem input2,
                                                             size_t offset2, size_t count,
                                                             cl_mem offsets, size_t offsets_offset,
                                                             clreduce_type offsets_type,
                                                             size_t segments, cl_mem result,
                                                             size_t result_offset,
                                                             cl_uint num_wait,
                                                             const cl_event *wait,
                                                             cl_event *done);

/* As clreduce_reduce_segments_custom(), and if `first` is not NULL *first receives an
 * event of the call's first command, as clreduce_reduce_profiled() gives
 * it. */
CLREDUCE_API clreduce_status clreduce_reduce_segments_custom_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, clreduce_operator *op, cl_mem input, size_t offset,
    cl_mem input2, size_t offset2, size_t count, cl_mem offsets, size_t offsets_offset,
    clreduce_type offsets_type, size_t segments, cl_mem result, size_t result_offset,
    cl_uint num_wait, const cl_event *wait, cl_event *first, cl_event *done);

/* Blocking convenience: the segments of host memory data[0 .. count) (and
 * data2[0 .. count), for an operator of two inputs; NULL for one) that host
 * memory offsets[0 .. segments] delimit into results 0 .. segments - 1 of
 * `results` (segments * acc_size bytes), on a queue owned by the context.
 * Checks the offsets first, as clreduce_reduce_segments_host() does, and for
 * an operator without identity refuses an empty segment:
 * CLREDUCE_ERROR_INVALID_ARGUMENT, naming the first bad index. On error
 * `results` is untouched. */
CLREDUCE_API clreduce_status clreduce_reduce_segments_custom_host(clreduce_ctx *ctx,
                                                                  clreduce_operator *op,
                                                                  const void *data,
                                                                  const void *data2, size_t count,
                                                                  const void *offsets,
                                                                  clreduce_type offsets_type,
                                                                  size_t segments, void *results);

#ifdef __cplusplus
}
#endif

#endif /* CLREDUCE_OPERATOR_H */
