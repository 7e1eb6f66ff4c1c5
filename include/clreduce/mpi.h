/*
 * clreduce/mpi.h: a reduction over the parts of an array held by the ranks
 * of an MPI communicator, each on its own device. Include it after mpi.h
 * and clreduce/clreduce.h; it is written in terms of both (static inline,
 * so that the library itself needs no MPI), and compiles with the MPI
 * compiler wrapper as any MPI program does.
 *
 *     float sum;
 *     clreduce_mpi_allreduce(ctx, queue, MPI_COMM_WORLD, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
 *                            CLREDUCE_AUTO, buffer, 0, my_count, &sum);
 *
 * Collective: every rank calls it, with its own part; ranks in order are
 * parts in order (clreduce/parts.h). Every rank gets the same result, bit
 * for bit: the partial results travel (a result per rank, or for the sums
 * of reproducible contexts the values of the rank's tiles, 1/16384 of its
 * floats), and every rank combines the same partials the same way. With
 * reproducible contexts on every rank and parts of whole tiles, the sums
 * have the bits one device gives over the whole array, whatever the ranks'
 * devices and their number.
 *
 * Statuses are those of clreduce_reduce_parts(), the message in
 * clreduce_last_error(ctx). If a rank fails before the exchange, every
 * rank returns an error and none writes `result`: the failing rank its own
 * status and message, the others the lowest failing status and no message;
 * no rank is left waiting in a collective. Ranks that disagree on the
 * operator, the type, the variant or their contexts' reproducible setting
 * all fail with CLREDUCE_ERROR_INVALID_ARGUMENT (no message). Where MPI
 * returns an error rather than aborting the job (its default handler), the
 * call returns CLREDUCE_ERROR_INVALID_ARGUMENT without a message; a rank
 * that cannot allocate a few words per rank returns
 * CLREDUCE_ERROR_OUT_OF_MEMORY at once, before any collective.
 */
#ifndef CLREDUCE_MPI_H
#define CLREDUCE_MPI_H

#include <limits.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The reduction of every rank's `part` (its part of the array, as
 * clreduce_reduce_parts() takes parts), ranks in order, into `result`. */
static inline clreduce_status clreduce_mpi_reduce_part(MPI_Comm comm, const clreduce_part *part,
                                                       clreduce_op op, clreduce_type type,
                                                       clreduce_variant variant, void *result)
{
    int ranks = 0, rank = 0;
    if (MPI_Comm_size(comm, &ranks) != MPI_SUCCESS || MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
        return CLREDUCE_ERROR_INVALID_ARGUMENT;
    /* A rank without a part takes part in every collective, and fails. */
    clreduce_ctx *ctx = part ? part->ctx : NULL;
    const size_t size = clreduce_result_size(op, type);
    /* Every rank's count, with what must agree between ranks: the
     * operator, type, variant and the context's reproducible setting (else
     * every rank fails). */
    clreduce_settings settings = {0};
    if (ctx)
        clreduce_get_tuning(ctx, CLREDUCE_FLOAT, &settings);
    enum { WORDS = 4 };
    const unsigned long long mine[WORDS] = {
        part ? part->count : 0, (unsigned long long)op,
        (unsigned long long)type * 64 + (unsigned long long)variant, settings.reproducible};
    unsigned long long *all = (unsigned long long *)malloc(WORDS * (size_t)ranks * sizeof *all);
    size_t *counts = (size_t *)malloc(ranks * sizeof *counts);
    int *bytes = (int *)malloc(ranks * sizeof *bytes), *at = (int *)malloc(ranks * sizeof *at);
    unsigned char *partials = NULL;
    if (!all || !counts || !bytes || !at) {
        free(all), free(counts), free(bytes), free(at);
        return CLREDUCE_ERROR_OUT_OF_MEMORY;
    }
    int status = CLREDUCE_SUCCESS;
    if (MPI_Allgather((void *)mine, WORDS, MPI_UNSIGNED_LONG_LONG, all, WORDS,
                      MPI_UNSIGNED_LONG_LONG, comm) != MPI_SUCCESS)
        status = CLREDUCE_ERROR_INVALID_ARGUMENT;
    for (int r = 0; status == CLREDUCE_SUCCESS && r < ranks; r++)
        for (int w = 1; w < WORDS; w++)
            if (all[WORDS * r + w] != mine[w])
                status = CLREDUCE_ERROR_INVALID_ARGUMENT; /* ranks that disagree */
    size_t total = 0;
    for (int r = 0; status == CLREDUCE_SUCCESS && r < ranks; r++) {
        counts[r] = (size_t)all[WORDS * r];
        size_t n = clreduce_partials_count(ctx, op, type, counts[r]) * size;
        if (n > (size_t)INT_MAX - total)
            status = CLREDUCE_ERROR_INVALID_ARGUMENT; /* past MPI's int counts */
        bytes[r] = (int)n, at[r] = (int)total;
        total += n;
    }
    if (status == CLREDUCE_SUCCESS && !(partials = (unsigned char *)malloc(total ? total : 1)))
        status = CLREDUCE_ERROR_OUT_OF_MEMORY;
    if (status == CLREDUCE_SUCCESS)
        status = part ? clreduce_partials(part, op, type, variant, partials + at[rank])
                      : CLREDUCE_ERROR_INVALID_ARGUMENT;
    /* No rank goes on to the exchange unless all can: the worst status. */
    int worst = status;
    if (MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        worst = CLREDUCE_ERROR_INVALID_ARGUMENT;
    if (worst == CLREDUCE_SUCCESS &&
        MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, partials, bytes, at, MPI_BYTE, comm) !=
            MPI_SUCCESS)
        worst = CLREDUCE_ERROR_INVALID_ARGUMENT;
    if (worst == CLREDUCE_SUCCESS)
        status = clreduce_combine_partials(ctx, op, type, variant, partials, counts,
                                           (size_t)ranks, result);
    else if (status == CLREDUCE_SUCCESS)
        status = worst; /* another rank's failure */
    free(all), free(counts), free(bytes), free(at), free(partials);
    return (clreduce_status)status;
}


/* One input: elements [offset, offset + count) of `input` on this rank. */
static inline clreduce_status clreduce_mpi_allreduce(clreduce_ctx *ctx, cl_command_queue queue,
                                                     MPI_Comm comm, clreduce_op op,
                                                     clreduce_type type,
                                                     clreduce_variant variant, cl_mem input,
                                                     size_t offset, size_t count, void *result)
{
    const clreduce_part part = {ctx, queue, input, offset, count, NULL, 0};
    return clreduce_mpi_reduce_part(comm, &part, op, type, variant, result);
}

/* The dot product of x and y, `count` elements of each on this rank (a
 * conjugate gradient's dot products over ranks); in reproducible contexts,
 * for float and double, the bits of one device's call over all the ranks'
 * elements, as the sums (clreduce/parts.h). */
static inline clreduce_status clreduce_mpi_dot(clreduce_ctx *ctx, cl_command_queue queue,
                                               MPI_Comm comm, clreduce_type type,
                                               clreduce_variant variant, cl_mem x,
                                               size_t x_offset, cl_mem y, size_t y_offset,
                                               size_t count, void *result)
{
    const clreduce_part part = {ctx, queue, x, x_offset, count, y, y_offset};
    return clreduce_mpi_reduce_part(comm, &part, CLREDUCE_OP_DOT, type, variant, result);
}

#ifdef __cplusplus
}
#endif

#endif /* CLREDUCE_MPI_H */
