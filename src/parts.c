/* One reduction over parts of an array on several devices or processes
 * (clreduce/parts.h): each part's partial results by the public calls on
 * its own context and queue (all parts enqueued before any is waited for,
 * where one call takes them all), then their combination on the host --
 * or, for the sums of a reproducible context, on a device, in the order's
 * next levels. This file stands above the request pipeline: it calls the
 * library as a caller would. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* What one part contributes: its results' buffer, read back into `host`,
 * and the event of that read. */
typedef struct part_work {
    cl_mem partials;
    cl_event read;
    size_t count; /* partial results: 1, or the part's tiles */
} part_work;

static int fixed_order_sum(clreduce_op op, clreduce_type type)
{
    return (op == CLREDUCE_OP_SUM || op == CLREDUCE_OP_SUM_SQUARES ||
            op == CLREDUCE_OP_SUM_ABS || op == CLREDUCE_OP_DOT) &&
           is_float_type(type);
}

/* The checks of a call on op, type and variant, for parts of counts[0 ..
 * n) elements (NULL: unknown yet); *tiles: whether the parts' partial
 * results are the values of their tiles in the fixed order. */
static clreduce_status check_split(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                                   clreduce_variant variant, const size_t *counts, size_t n,
                                   int *tiles)
{
    if ((unsigned)op >= CLREDUCE_OP_COUNT)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown op %d", (int)op);
    if ((unsigned)type > CLREDUCE_UINT64)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "the reductions of parts take no type %d", (int)type);
    *tiles = ctx->settings.reproducible && fixed_order_sum(op, type);
    if (!*tiles) {
        if (variant == CLREDUCE_REPRODUCIBLE && fixed_order_sum(op, type))
            return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                             "variant reproducible over parts would give bits that depend on the "
                             "split; contexts created reproducible (clreduce_settings) give the "
                             "bits of one device");
        return CLREDUCE_SUCCESS;
    }
    if (variant != CLREDUCE_AUTO && variant != CLREDUCE_REPRODUCIBLE)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "a reproducible context sums parts by variant auto or reproducible "
                         "only, not %s",
                         clreduce_variant_name(variant));
    const size_t tile = CLREDUCE_REPRODUCIBLE_TILE_BYTES / clreduce_type_size(type);
    size_t last = counts ? n : 0;
    while (last > 0 && counts[last - 1] == 0)
        last--;
    for (size_t i = 0; i + 1 < last; i++)
        if (counts[i] % tile)
            return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                             "part %zu holds %zu elements, not whole tiles of the reproducible "
                             "order (%zu elements of %s): only the last part that holds elements "
                             "may end inside a tile",
                             i, counts[i], tile, clreduce_type_name(type));
    return CLREDUCE_SUCCESS;
}

/* Whether a part's range lies in its buffer: checked before anything is
 * sized by its count (the calls on it check the rest). */
static clreduce_status part_in_buffer(const clreduce_part *part, clreduce_type type)
{
    size_t bytes = 0;
    cl_int err = part->input ? clGetMemObjectInfo(part->input, CL_MEM_SIZE, sizeof bytes, &bytes,
                                                  NULL)
                             : CL_INVALID_MEM_OBJECT;
    if (err != CL_SUCCESS)
        return set_error(part->ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "input is not a buffer (%s)",
                         cl_error_name(err));
    const size_t elements = bytes / clreduce_type_size(type);
    if (part->offset > elements || part->count > elements - part->offset)
        return set_error(part->ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "elements [%zu, %zu + %zu) lie past the end of input (%zu elements of "
                         "%s)",
                         part->offset, part->offset, part->count, elements,
                         clreduce_type_name(type));
    return CLREDUCE_SUCCESS;
}

/* Enqueues the values of `rows` rows of `length` elements (whole tiles, or
 * the part's last piece of one) of a part, from its element `first` (a
 * tile's start) on, into partials from the result of that tile: in a
 * reproducible context each row is summed in the fixed order of that range
 * alone, which for a tile is its value in the order of the whole. */
static clreduce_status enqueue_tiles(const clreduce_part *part, clreduce_op op,
                                     clreduce_type type, size_t first, size_t rows,
                                     size_t length, cl_mem partials, cl_event *done)
{
    const size_t at = first / (CLREDUCE_REPRODUCIBLE_TILE_BYTES / clreduce_type_size(type));
    if (op == CLREDUCE_OP_DOT)
        return clreduce_dot_rows(part->ctx, part->queue, type, part->input, part->offset + first,
                                 part->input2, part->offset2 + first, rows, length, length,
                                 partials, at, 0, NULL, done);
    return clreduce_reduce_rows(part->ctx, part->queue, op, type, part->input,
                                part->offset + first, rows, length, length, partials, at, 0,
                                NULL, done);
}

/* Enqueues the partial results of a part that holds elements into
 * w->partials, and their read into host: a result, or the values of its
 * tiles (its whole tiles as rows of one tile, then the rest as one row,
 * each row in the fixed order). */
static clreduce_status enqueue_part(const clreduce_part *part, clreduce_op op,
                                    clreduce_type type, clreduce_variant variant, int tiles,
                                    part_work *w, void *host)
{
    const size_t size = clreduce_result_size(op, type);
    const size_t tile = CLREDUCE_REPRODUCIBLE_TILE_BYTES / clreduce_type_size(type);
    const size_t whole = part->count / tile, rest = part->count % tile;
    w->count = tiles ? whole + (rest != 0) : 1;
    cl_int err;
    w->partials = clCreateBuffer(clreduce_get_cl_context(part->ctx), CL_MEM_READ_WRITE,
                                 w->count * size, NULL, &err);
    if (err != CL_SUCCESS)
        return set_error(part->ctx, status_from_cl(err), "clCreateBuffer: %s", cl_error_name(err));
    cl_event done[2];
    cl_uint events = 0;
    clreduce_status status = CLREDUCE_SUCCESS;
    if (op == CLREDUCE_OP_DOT && !tiles)
        status = clreduce_dot(part->ctx, part->queue, type, variant, part->input, part->offset,
                              part->input2, part->offset2, part->count, w->partials, 0, 0, NULL,
                              &done[events]);
    else if (!tiles)
        status = clreduce_reduce(part->ctx, part->queue, op, type, variant, part->input,
                                 part->offset, part->count, w->partials, 0, 0, NULL,
                                 &done[events]);
    else if (whole)
        status = enqueue_tiles(part, op, type, 0, whole, tile, w->partials, &done[events]);
    events += status == CLREDUCE_SUCCESS && (!tiles || whole);
    if (status == CLREDUCE_SUCCESS && tiles && rest) {
        status = enqueue_tiles(part, op, type, whole * tile, 1, rest, w->partials,
                               &done[events]);
        events += status == CLREDUCE_SUCCESS;
    }
    if (status == CLREDUCE_SUCCESS) {
        err = clEnqueueReadBuffer(part->queue, w->partials, CL_FALSE, 0, w->count * size, host,
                                  events, done, &w->read);
        if (err == CL_SUCCESS)
            err = clFlush(part->queue);
        if (err != CL_SUCCESS)
            status = set_error(part->ctx, status_from_cl(err), "reading the results back: %s",
                               cl_error_name(err));
    }
    if (status != CLREDUCE_SUCCESS && events)
        clWaitForEvents(events, done); /* before the buffer is released */
    for (cl_uint e = 0; e < events; e++)
        clReleaseEvent(done[e]);
    return status;
}

/* ---- the combination on the host --------------------------------------------------- */

/* a before b in the order of MIN and MAX: -0.0 below +0.0 (NaN apart). */
#define BEFORE(a, b) ((a) < (b) || ((a) == (b) && signbit((double)(a)) && !signbit((double)(b))))

/* Combines n parts' results in part order: the first, then each next one
 * into it (argmin/argmax's index moved by where its part starts). */
#define COMBINE(NAME, T, FLOAT, UT)                                                           \
    static void NAME(clreduce_op op, const unsigned char *p, size_t size, size_t n,           \
                     const size_t *starts, void *out)                                         \
    {                                                                                         \
        const int arg = op == CLREDUCE_OP_ARGMIN || op == CLREDUCE_OP_ARGMAX;                 \
        const int minmax = op == CLREDUCE_OP_MINMAX;                                          \
        T a, b, c = 0, d = 0;                                                                 \
        uint64_t index = 0;                                                                   \
        memcpy(&a, p, sizeof a);                                                              \
        if (minmax)                                                                           \
            memcpy(&c, p + sizeof(T), sizeof c);                                              \
        if (arg)                                                                              \
            memcpy(&index, p + 8, sizeof index), index += starts[0];                          \
        for (size_t i = 1; i < n; i++) {                                                      \
            const unsigned char *q = p + i * size;                                            \
            memcpy(&b, q, sizeof b);                                                          \
            if (minmax)                                                                       \
                memcpy(&d, q + sizeof(T), sizeof d);                                          \
            const int a_nan = FLOAT && isnan((double)a), b_nan = FLOAT && isnan((double)b);   \
            int take = 0;                                                                     \
            switch (op) {                                                                     \
            case CLREDUCE_OP_MIN:                                                             \
            case CLREDUCE_OP_ARGMIN:                                                          \
            case CLREDUCE_OP_MINMAX: take = !a_nan && (b_nan || BEFORE(b, a)); break;        \
            case CLREDUCE_OP_MAX:                                                             \
            case CLREDUCE_OP_ARGMAX: take = !a_nan && (b_nan || BEFORE(a, b)); break;        \
            default: /* the sums: integers wrap around */                                    \
                a = FLOAT ? (T)(a + b) : (T)(UT)((UT)a + (UT)b);                              \
            }                                                                                 \
            if (take)                                                                         \
                a = b;                                                                        \
            if (take && arg)                                                                  \
                memcpy(&index, q + 8, sizeof index), index += starts[i];                      \
            if (minmax && !(FLOAT && isnan((double)c)) &&                                     \
                ((FLOAT && isnan((double)d)) || BEFORE(c, d)))                                \
                c = d;                                                                        \
        }                                                                                     \
        memcpy(out, p, size); /* the layout, padding included */                             \
        memcpy(out, &a, sizeof a);                                                            \
        if (minmax)                                                                           \
            memcpy((unsigned char *)out + sizeof(T), &c, sizeof c);                           \
        if (arg)                                                                              \
            memcpy((unsigned char *)out + 8, &index, sizeof index);                           \
    }

COMBINE(combine_float, float, 1, float)
COMBINE(combine_double, double, 1, double)
COMBINE(combine_int32, int32_t, 0, uint32_t)
COMBINE(combine_uint32, uint32_t, 0, uint32_t)
COMBINE(combine_int64, int64_t, 0, uint64_t)
COMBINE(combine_uint64, uint64_t, 0, uint64_t)

/* NORM2: a NaN gives NaN, else an infinity +inf, else hypot() of the
 * norms in turn; MEAN_VAR: Chan et al.'s merge, in double. */
static void combine_floating(clreduce_op op, clreduce_type type, const unsigned char *p,
                             size_t size, size_t n, void *out)
{
    double mean = 0, m2 = 0, norm = 0;
    uint64_t count = 0;
    int nan = 0, inf = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *q = p + i * size;
        /* NORM2's one value, or MEAN_VAR's mean and m2 */
        double v[2] = {0, 0};
        for (int k = 0; k < (op == CLREDUCE_OP_MEAN_VAR ? 2 : 1); k++) {
            float f;
            if (type == CLREDUCE_FLOAT)
                memcpy(&f, q + 4 * k, sizeof f), v[k] = f;
            else
                memcpy(&v[k], q + 8 * k, sizeof v[k]);
        }
        const double x = v[0], y = v[1];
        if (op == CLREDUCE_OP_NORM2) {
            nan |= isnan(x), inf |= isinf(x);
            norm = hypot(norm, x);
            continue;
        }
        uint64_t k;
        memcpy(&k, q + 2 * clreduce_type_size(type), sizeof k);
        if (!k)
            continue;
        double delta = x - mean, total = (double)count + (double)k;
        mean += delta * ((double)k / total);
        m2 += y + delta * delta * ((double)count * (double)k / total);
        count += k;
    }
    if (op == CLREDUCE_OP_NORM2) {
        norm = nan ? NAN : inf ? INFINITY : norm;
        mean = norm;
    }
    if (type == CLREDUCE_FLOAT) {
        float f[2] = {(float)mean, (float)m2};
        memcpy(out, f, op == CLREDUCE_OP_NORM2 ? sizeof f[0] : sizeof f);
    } else {
        memcpy(out, &mean, sizeof mean);
        if (op == CLREDUCE_OP_MEAN_VAR)
            memcpy((unsigned char *)out + 8, &m2, sizeof m2);
    }
    if (op == CLREDUCE_OP_MEAN_VAR)
        memcpy((unsigned char *)out + 2 * clreduce_type_size(type), &count, sizeof count);
}

static void combine(clreduce_op op, clreduce_type type, const unsigned char *p, size_t n,
                    const size_t *starts, void *out)
{
    const size_t size = clreduce_result_size(op, type);
    if (op == CLREDUCE_OP_NORM2 || op == CLREDUCE_OP_MEAN_VAR) {
        combine_floating(op, type, p, size, n, out);
        return;
    }
    switch (type) {
    case CLREDUCE_FLOAT: combine_float(op, p, size, n, starts, out); break;
    case CLREDUCE_DOUBLE: combine_double(op, p, size, n, starts, out); break;
    case CLREDUCE_INT32: combine_int32(op, p, size, n, starts, out); break;
    case CLREDUCE_UINT32: combine_uint32(op, p, size, n, starts, out); break;
    case CLREDUCE_INT64: combine_int64(op, p, size, n, starts, out); break;
    default: combine_uint64(op, p, size, n, starts, out); break;
    }
}

/* ---- the calls ---------------------------------------------------------------------- */

size_t clreduce_partials_count(const clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                               size_t count)
{
    if (!ctx || (unsigned)op >= CLREDUCE_OP_COUNT || (unsigned)type > CLREDUCE_UINT64 || !count)
        return 0;
    if (ctx->settings.reproducible && fixed_order_sum(op, type))
        return div_up(count, CLREDUCE_REPRODUCIBLE_TILE_BYTES / clreduce_type_size(type));
    return 1;
}

/* Combines the partial results of parts of counts[0 .. n) elements, those
 * of the parts that hold elements one after another in `partials`. */
static clreduce_status combine_partials(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                                        clreduce_variant variant, int tiles,
                                        const unsigned char *partials, const size_t *counts,
                                        size_t n, void *result)
{
    size_t at = 0, kept = 0, start = 0;
    size_t *starts = malloc((n ? n : 1) * sizeof *starts);
    if (!starts)
        return set_error(ctx, CLREDUCE_ERROR_OUT_OF_MEMORY, "out of host memory");
    for (size_t i = 0; i < n; i++) {
        if (counts[i])
            starts[kept++] = start;
        at += clreduce_partials_count(ctx, op, type, counts[i]);
        start += counts[i];
    }
    clreduce_status status = CLREDUCE_SUCCESS;
    if (at == 0 && op == CLREDUCE_OP_DOT) {
        status = clreduce_dot_host(ctx, type, variant, NULL, NULL, 0, result);
    } else if (at == 0 || (tiles && at > 1)) {
        /* Of no element, what one call gives; in the fixed order, the
         * tiles' values are the next level's input (clreduce.h). */
        status = at ? clreduce_reduce_host(ctx, CLREDUCE_OP_SUM, type, CLREDUCE_REPRODUCIBLE,
                                           partials, at, result)
                    : clreduce_reduce_host(ctx, op, type, variant, NULL, 0, result);
    } else if (tiles) {
        memcpy(result, partials, clreduce_result_size(op, type)); /* one tile in all */
    } else {
        combine(op, type, partials, kept, starts, result);
    }
    free(starts);
    return status;
}

clreduce_status clreduce_combine_partials(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                                          clreduce_variant variant, const void *partials,
                                          const size_t *counts, size_t num_parts, void *result)
{
    if (!ctx)
        return CLREDUCE_ERROR_INVALID_ARGUMENT;
    clear_error(ctx);
    if (!result || (num_parts && !counts))
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "%s is NULL",
                         result ? "counts" : "result");
    int tiles = 0;
    clreduce_status status = check_split(ctx, op, type, variant, counts, num_parts, &tiles);
    size_t total = 0;
    for (size_t i = 0; i < num_parts; i++)
        total += clreduce_partials_count(ctx, op, type, counts[i]);
    if (status == CLREDUCE_SUCCESS && total && !partials)
        status = set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "partials is NULL");
    if (status != CLREDUCE_SUCCESS)
        return status;
    return combine_partials(ctx, op, type, variant, tiles, partials, counts, num_parts, result);
}

/* Waits for the reads enqueued, releases them and the parts' buffers;
 * the first read that failed gives the status. */
static clreduce_status finish_parts(clreduce_ctx *ctx, part_work *w, size_t n)
{
    clreduce_status status = CLREDUCE_SUCCESS;
    for (size_t i = 0; i < n; i++) {
        if (w[i].read) {
            cl_int err = clWaitForEvents(1, &w[i].read);
            if (err != CL_SUCCESS && status == CLREDUCE_SUCCESS)
                status = set_error(ctx, status_from_cl(err), "part %zu: reading its results: %s",
                                   i, cl_error_name(err));
            clReleaseEvent(w[i].read);
        }
        if (w[i].partials)
            clReleaseMemObject(w[i].partials);
    }
    return status;
}

/* The message of part i's failure, moved to ctx. */
static clreduce_status part_failed(clreduce_ctx *ctx, size_t i, clreduce_ctx *part_ctx,
                                   clreduce_status status)
{
    char text[512];
    snprintf(text, sizeof text, "%s", clreduce_last_error(part_ctx));
    return set_error(ctx, status, "part %zu: %s", i, text);
}

/* Enqueues the parts' partial results, one part after another into host,
 * and waits for them all. */
static clreduce_status gather_partials(clreduce_ctx *ctx, const clreduce_part *parts, size_t n,
                                       clreduce_op op, clreduce_type type,
                                       clreduce_variant variant, int tiles, unsigned char *host)
{
    const size_t size = clreduce_result_size(op, type);
    part_work *w = calloc(n, sizeof *w);
    if (!w)
        return set_error(ctx, CLREDUCE_ERROR_OUT_OF_MEMORY, "out of host memory");
    clreduce_status status = CLREDUCE_SUCCESS;
    for (size_t i = 0, at = 0; i < n && status == CLREDUCE_SUCCESS; i++) {
        if (!parts[i].count)
            continue;
        if ((status = enqueue_part(&parts[i], op, type, variant, tiles, &w[i],
                                   host + at * size)) != CLREDUCE_SUCCESS)
            status = part_failed(ctx, i, parts[i].ctx, status);
        at += w[i].count;
    }
    clreduce_status waited = finish_parts(ctx, w, n);
    free(w);
    return status != CLREDUCE_SUCCESS ? status : waited;
}

clreduce_status clreduce_partials(const clreduce_part *part, clreduce_op op, clreduce_type type,
                                  clreduce_variant variant, void *partials)
{
    if (!part || !part->ctx)
        return CLREDUCE_ERROR_INVALID_ARGUMENT;
    clreduce_ctx *ctx = part->ctx;
    clear_error(ctx);
    int tiles = 0;
    clreduce_status status = check_split(ctx, op, type, variant, NULL, 0, &tiles);
    if (status == CLREDUCE_SUCCESS && part->count && !partials)
        status = set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "partials is NULL");
    if (status != CLREDUCE_SUCCESS || !part->count)
        return status;
    if ((status = part_in_buffer(part, type)) != CLREDUCE_SUCCESS)
        return status;
    part_work w = {0};
    status = enqueue_part(part, op, type, variant, tiles, &w, partials);
    clreduce_status waited = finish_parts(ctx, &w, 1);
    return status != CLREDUCE_SUCCESS ? status : waited;
}

clreduce_status clreduce_reduce_parts(const clreduce_part *parts, size_t num_parts,
                                      clreduce_op op, clreduce_type type,
                                      clreduce_variant variant, void *result)
{
    if (!parts || !num_parts || !parts[0].ctx)
        return CLREDUCE_ERROR_INVALID_ARGUMENT;
    clreduce_ctx *ctx = parts[0].ctx;
    clear_error(ctx);
    if (!result)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "result is NULL");
    size_t *counts = malloc(num_parts * sizeof *counts);
    if (!counts)
        return set_error(ctx, CLREDUCE_ERROR_OUT_OF_MEMORY, "out of host memory");
    clreduce_status status = CLREDUCE_SUCCESS;
    size_t total = 0;
    for (size_t i = 0; i < num_parts && status == CLREDUCE_SUCCESS; i++) {
        counts[i] = parts[i].count;
        if (!parts[i].ctx)
            status = set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "part %zu has no context", i);
        else if (!parts[i].ctx->settings.reproducible != !ctx->settings.reproducible)
            status = set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                               "part %zu's context is %sreproducible, part 0's is %s: the "
                               "parts' contexts must agree",
                               i, parts[i].ctx->settings.reproducible ? "" : "not ",
                               ctx->settings.reproducible ? "" : "not");
        else if (parts[i].count && (unsigned)type <= CLREDUCE_UINT64 &&
                 (status = part_in_buffer(&parts[i], type)) != CLREDUCE_SUCCESS)
            status = part_failed(ctx, i, parts[i].ctx, status);
        else
            total += clreduce_partials_count(ctx, op, type, parts[i].count);
    }
    int tiles = 0;
    if (status == CLREDUCE_SUCCESS)
        status = check_split(ctx, op, type, variant, counts, num_parts, &tiles);
    unsigned char *host = NULL;
    if (status == CLREDUCE_SUCCESS &&
        !(host = malloc((total ? total : 1) * clreduce_result_size(op, type))))
        status = set_error(ctx, CLREDUCE_ERROR_OUT_OF_MEMORY, "out of host memory");
    if (status == CLREDUCE_SUCCESS)
        status = gather_partials(ctx, parts, num_parts, op, type, variant, tiles, host);
    if (status == CLREDUCE_SUCCESS &&
        (status = combine_partials(ctx, op, type, variant, tiles, host, counts, num_parts,
                                   result)) != CLREDUCE_SUCCESS)
        status = part_failed(ctx, 0, ctx, status);
    free(counts), free(host);
    return status;
}
