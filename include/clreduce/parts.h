/*
 * clreduce/parts.h: one reduction over an array spread across devices.
 * Included by clreduce/clreduce.h; include that header, not this one.
 *
 * An array too large for one GPU, or split to use several, lies in parts:
 * a buffer per device, each in that device's context. clreduce_reduce_parts()
 * reduces every part on its own device, all of them at once, and combines
 * their results into the reduction of the parts laid end to end, in order:
 *
 *     clreduce_part parts[2] = {
 *         {.ctx = ctx_gpu0, .queue = queue_gpu0, .input = buffer_gpu0, .count = n0},
 *         {.ctx = ctx_gpu1, .queue = queue_gpu1, .input = buffer_gpu1, .count = n1},
 *     };
 *     float sum;
 *     clreduce_reduce_parts(parts, 2, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_AUTO, &sum);
 *
 * The contexts may belong to different platforms (a GPU and a CPU), or be
 * several contexts, or one, of the same device.
 *
 * Results:
 *  - MIN, MAX, MINMAX, ARGMIN, ARGMAX and integer sums are what one call on
 *    the whole array gives (ARGMIN/ARGMAX: indices into the whole array,
 *    the first part's element winning a tie, as the smaller index does),
 *    but for the bits of a NaN;
 *  - floating-point SUM, SUM_SQUARES, SUM_ABS: each part's result on its
 *    device, then the parts' results added in part order on the host;
 *    NORM2: the parts' norms combined as hypot() does; MEAN_VAR: the parts'
 *    (mean, m2, count) merged in part order (Chan et al.), in double. These
 *    are within the numerical contract of clreduce.h, and on the same
 *    devices with the same split give the same bits from call to call;
 *  - in reproducible contexts (clreduce_settings.reproducible: every part's
 *    context, or none), a float or double SUM, SUM_SQUARES, SUM_ABS or DOT
 *    has the bits of the reproducible sum of the whole array on one device,
 *    whatever the devices: each part reduces its tiles of the order
 *    (clreduce.h, CLREDUCE_REPRODUCIBLE) and the first part's device sums
 *    the tiles' values in the order's next levels. For that, every part but
 *    the last that holds elements must hold whole tiles: a multiple of
 *    CLREDUCE_REPRODUCIBLE_TILE_BYTES / clreduce_type_size(type) elements.
 *
 * DOT takes a second input per part (clreduce_part's input2), its
 * partial results added in part order as the sums' are (in reproducible
 * contexts, for float and double, by the tiles above: each part's tiles
 * through clreduce_dot_rows()).
 */
#ifndef CLREDUCE_PARTS_H
#define CLREDUCE_PARTS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The bytes of elements in a tile of the reproducible order: 64 KiB. */
#define CLREDUCE_REPRODUCIBLE_TILE_BYTES 65536

/* Elements [offset, offset + count) of `input`, a buffer of ctx's
 * OpenCL context, reduced on `queue`, a queue of ctx's device. For
 * CLREDUCE_OP_DOT, elements [offset2, offset2 + count) of `input2` (a
 * buffer of the same context) are the second input; other operators
 * leave input2 and offset2 unread. */
typedef struct clreduce_part {
    clreduce_ctx *ctx;
    cl_command_queue queue;
    cl_mem input;
    size_t offset;
    size_t count;
    cl_mem input2;
    size_t offset2;
} clreduce_part;

/* Reduces parts[0 .. num_parts) as one array, parts in order, into host
 * memory `result` (clreduce_result_size(op, type) bytes). Every part's
 * work is enqueued on its queue and flushed before the call waits for any;
 * it returns when all are done, and leaves nothing on the queues. There is
 * no wait list: on an in-order queue a part's work follows what was
 * enqueued before it; on an out-of-order queue, or where another queue
 * writes the part, finish that first. A part of no element adds nothing
 * (its buffer is not read); of none at all the result is the operator's
 * identity, as clreduce_reduce() gives.
 *
 * Statuses are those of clreduce_reduce() for each part's call, whose
 * message (prefixed by the part's number) is in
 * clreduce_last_error(parts[0].ctx), and:
 *   CLREDUCE_ERROR_INVALID_ARGUMENT  parts or result NULL, num_parts 0, a
 *       part without context, contexts that differ in their reproducible
 *       setting (no message can be left where parts[0].ctx is NULL);
 *   CLREDUCE_ERROR_UNSUPPORTED  in reproducible contexts, a part of
 *       elements not all in whole tiles before another part's elements, a
 *       variant of the sums other than AUTO and REPRODUCIBLE; in other
 *       contexts, CLREDUCE_REPRODUCIBLE for a
 *       floating-point sum or dot product (its bits would depend on the
 *       split).
 * On any error `result` is not written; parts whose work was enqueued are
 * waited for before the call returns. */
CLREDUCE_API clreduce_status clreduce_reduce_parts(const clreduce_part *parts, size_t num_parts,
                                                   clreduce_op op, clreduce_type type,
                                                   clreduce_variant variant, void *result);

/* The same in two steps, for parts in other processes or on other hosts,
 * whose results travel by a transport of the caller's own (MPI, NCCL,
 * sockets; clreduce/mpi.h is one): clreduce_partials() on each part gives
 * clreduce_partials_count() partial results of clreduce_result_size(op,
 * type) bytes each, into host memory; laid one part after another, in
 * part order, they go to clreduce_combine_partials() with every part's
 * element count, which gives the result clreduce_reduce_parts() gives.
 * Contexts alike in their reproducible setting must make and combine them
 * (the partials differ). */

/* Partial results of a part of `count` elements: 0 of none, the tiles of
 * the reproducible order for a sum or dot of float or double in a
 * reproducible context, else 1; 0 for an unknown operator or type. */
CLREDUCE_API size_t clreduce_partials_count(const clreduce_ctx *ctx, clreduce_op op,
                                            clreduce_type type, size_t count);

/* Writes part's partial results to host memory `partials`; blocking,
 * nothing left on part->queue. Statuses as clreduce_reduce_parts(), the
 * message in clreduce_last_error(part->ctx). */
CLREDUCE_API clreduce_status clreduce_partials(const clreduce_part *part, clreduce_op op,
                                               clreduce_type type, clreduce_variant variant,
                                               void *partials);

/* Combines the partial results of parts of counts[0 .. num_parts) elements
 * into `result` (on ctx's device for the sums of a reproducible context).
 * Every caller that gives it the same partials and counts gets the same
 * bits, on any device. Statuses as clreduce_reduce_parts(). */
CLREDUCE_API clreduce_status clreduce_combine_partials(clreduce_ctx *ctx, clreduce_op op,
                                                       clreduce_type type,
                                                       clreduce_variant variant,
                                                       const void *partials,
                                                       const size_t *counts, size_t num_parts,
                                                       void *result);

#ifdef __cplusplus
}
#endif

#endif /* CLREDUCE_PARTS_H */
