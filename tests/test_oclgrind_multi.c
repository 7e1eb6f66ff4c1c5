/* The Oclgrind test's family of several operators in one pass
 * (clreduce_reduce_multi) on both its variants, over rows
 * (clreduce_reduce_rows_multi) and over segments
 * (clreduce_reduce_segments_multi): every operator the type takes in one call,
 * each result checked against the CPU reference and the sentinels between
 * and past the results. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "test_oclgrind.h"

static clreduce_status multi_support(const target *t, clreduce_op op, clreduce_type type)
{
    (void)op;
    return clreduce_check_support(g_ctx, CLREDUCE_OP_ARGMAX, type, (clreduce_variant)t->variant);
}

/* Whether result j of the set (at got) matches the CPU reference. */
static int multi_result_matches(const og_case *c, clreduce_op op, const unsigned char *got,
                                char *why, size_t size)
{
    if (op > CLREDUCE_OP_MAX)
        return tc_op_check_result(op, c->type, c->data, NULL, c->n, got,
                                  tc_op_variance_tolerance(c->type), why, size);
    tc_value ref, g;
    long double abs_sum;
    tc_reference(op, c->type, c->data, c->n, &ref, &abs_sum);
    memset(&g, 0, sizeof g);
    memcpy(g.bytes, got, clreduce_type_size(c->type));
    if (tc_matches(op, c->type, &g, &ref, abs_sum))
        return 1;
    tc_got_want text = tc_format_got_want(c->type, &g, &ref);
    snprintf(why, size, "got %s, expected %s", text.got, text.want);
    return 0;
}

/* Every one-input operator the type takes, into set (MEAN_VAR first, so
 * that smaller results follow a larger one); returns how many. */
static size_t operators_of(clreduce_type type, clreduce_op *set)
{
    static const clreduce_op all[] = {
        CLREDUCE_OP_MEAN_VAR, CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_MAX,
        CLREDUCE_OP_ARGMIN, CLREDUCE_OP_ARGMAX, CLREDUCE_OP_MINMAX, CLREDUCE_OP_SUM_SQUARES,
        CLREDUCE_OP_SUM_ABS, CLREDUCE_OP_NORM2};
    size_t k = 0;
    for (size_t i = 0; i < ARRAY_SIZE(all); i++)
        if (clreduce_result_size(all[i], type))
            set[k++] = all[i];
    return k;
}

/* The case's input laid out between poison, and `bytes` of sentinels for
 * the results: both buffers created. Returns 1, or 0 with c->detail set. */
static int prepare(og_case *c, unsigned char *res, size_t bytes, cl_mem *in, cl_mem *out)
{
    static unsigned char host[MAX_COUNT * 8];
    tc_value poison;
    tc_poison(CLREDUCE_OP_MAX, c->type, &poison);
    og_lay_out_input(c, &poison, host);
    memset(res, TC_SENTINEL_BYTE, bytes);
    return og_create_buffers(c, host, res, bytes, in, out);
}

/* 1 when the call returned success and its results were read, else 0 with
 * c->detail set. */
static int call_succeeded(og_case *c, clreduce_status st, cl_int err)
{
    if (err == CL_SUCCESS && st == CLREDUCE_SUCCESS)
        return 1;
    snprintf(c->detail, sizeof c->detail, "status %s%s%s, reading the results: %s",
             clreduce_status_string(st), st ? ": " : "", st ? clreduce_last_error(g_ctx) : "",
             clreduce_opencl_error_name(err));
    return 0;
}

/* Every one-input operator the type takes, the results packed at their
 * alignments from byte 8 of a buffer of sentinels, each checked against the
 * CPU reference, the bytes between them untouched. */
static int run_multi(const target *t, og_case *c)
{
    clreduce_op set[CLREDUCE_MULTI_MAX];
    size_t offsets[CLREDUCE_MULTI_MAX], k = operators_of(c->type, set), at = 8;
    for (size_t i = 0; i < k; i++) {
        size_t align = set[i] == CLREDUCE_OP_ARGMIN || set[i] == CLREDUCE_OP_ARGMAX ||
                               set[i] == CLREDUCE_OP_MEAN_VAR
                           ? 8
                           : clreduce_type_size(c->type);
        at = (at + align - 1) / align * align;
        offsets[i] = at;
        at += clreduce_result_size(set[i], c->type);
    }
    size_t bytes = at + 8;
    static unsigned char res[CLREDUCE_MULTI_MAX * 24 + 64];
    cl_mem in, out;
    if (!prepare(c, res, bytes, &in, &out))
        return 0;
    cl_event done = NULL;
    clreduce_status st = clreduce_reduce_multi(g_ctx, g_queue, set, k, c->type,
                                               (clreduce_variant)t->variant, in, c->offset, c->n,
                                               out, offsets, 0, NULL, &done);
    if (!call_succeeded(c, st, og_read_output(out, bytes, res, done)))
        return 0;
    for (size_t j = 0; j < k; j++) {
        char why[256] = "";
        if (!multi_result_matches(c, set[j], res + offsets[j], why, sizeof why)) {
            snprintf(c->detail, sizeof c->detail, "%s: %s", tc_op_name(set[j]), why);
            return 0;
        }
    }
    for (size_t i = 0; i < bytes; i++) {
        int inside = 0;
        for (size_t j = 0; j < k; j++)
            inside |= i >= offsets[j] && i < offsets[j] + clreduce_result_size(set[j], c->type);
        if (!inside && res[i] != TC_SENTINEL_BYTE) {
            snprintf(c->detail, sizeof c->detail, "byte %zu beside the results changed", i);
            return 0;
        }
    }
    return 1;
}

/* Every one-input operator past max the type takes, one call each, its
 * result in element 1 of a buffer of sentinels three results long, checked
 * against the CPU reference, the bytes beside it untouched: the flat
 * operators' kernels (reduce_operators.cl). Sum, min and max have targets
 * of their own (test_oclgrind_flat.c). */
static int run_operators(const target *t, og_case *c)
{
    clreduce_op set[CLREDUCE_MULTI_MAX];
    size_t k = operators_of(c->type, set);
    for (size_t j = 0; j < k; j++) {
        if (set[j] == CLREDUCE_OP_SUM || set[j] == CLREDUCE_OP_MIN || set[j] == CLREDUCE_OP_MAX)
            continue;
        size_t size = clreduce_result_size(set[j], c->type), bytes = 3 * size;
        static unsigned char res[3 * 32];
        cl_mem in, out;
        if (!prepare(c, res, bytes, &in, &out))
            return 0;
        cl_event done = NULL;
        clreduce_status st =
            clreduce_reduce(g_ctx, g_queue, set[j], c->type, (clreduce_variant)t->variant, in,
                            c->offset, c->n, out, 1, 0, NULL, &done);
        if (!call_succeeded(c, st, og_read_output(out, bytes, res, done))) {
            char detail[sizeof c->detail];
            snprintf(detail, sizeof detail, "%s", c->detail);
            snprintf(c->detail, sizeof c->detail, "%s: %.400s", tc_op_name(set[j]), detail);
            return 0;
        }
        char why[256] = "";
        if (!multi_result_matches(c, set[j], res + size, why, sizeof why)) {
            snprintf(c->detail, sizeof c->detail, "%s: %s", tc_op_name(set[j]), why);
            return 0;
        }
        for (size_t i = 0; i < bytes; i++)
            if ((i < size || i >= 2 * size) && res[i] != TC_SENTINEL_BYTE) {
                snprintf(c->detail, sizeof c->detail, "%s: byte %zu beside the result changed",
                         tc_op_name(set[j]), i);
                return 0;
            }
    }
    return 1;
}

/* The records of `count` ranges of the case's elements (range r from
 * element starts[r], lengths[r] long) at res, each checked against the CPU
 * reference of its range, and the bytes past `written` records up to
 * `bytes` untouched.
 * Returns 1, or 0 with c->detail set. */
static int records_match(og_case *c, const clreduce_op *set, size_t k, const unsigned char *res,
                         size_t bytes, const size_t *starts, const size_t *lengths, size_t count,
                         size_t written)
{
    size_t at[CLREDUCE_MULTI_MAX];
    size_t record = clreduce_multi_record(set, k, c->type, at);
    size_t es = clreduce_type_size(c->type);
    for (size_t r = 0; r < count; r++) {
        og_case range = *c;
        range.data = (const unsigned char *)c->data + starts[r] * es;
        range.n = lengths[r];
        for (size_t j = 0; j < k; j++) {
            char why[256] = "";
            if (!multi_result_matches(&range, set[j], res + r * record + at[j], why,
                                      sizeof why)) {
                snprintf(c->detail, sizeof c->detail, "record %zu of %zu (%zu elements), %s: %s",
                         r, count, lengths[r], tc_op_name(set[j]), why);
                return 0;
            }
        }
    }
    for (size_t i = written * record; i < bytes; i++)
        if (res[i] != TC_SENTINEL_BYTE) {
            snprintf(c->detail, sizeof c->detail, "byte %zu past the records changed", i);
            return 0;
        }
    return 1;
}

/* Every one-input operator the type takes over each of up to three rows of
 * the case's elements (clreduce_reduce_rows_multi). */
static int run_rows_multi(const target *t, og_case *c)
{
    (void)t;
    clreduce_op set[CLREDUCE_MULTI_MAX];
    size_t k = operators_of(c->type, set);
    size_t record = clreduce_multi_record(set, k, c->type, NULL);
    size_t rows = c->n < 3 ? 1 : 3, length = c->n / rows;
    size_t bytes = rows * record + 64;
    static unsigned char res[3 * CLREDUCE_MULTI_MAX * 24 + 64];
    cl_mem in, out;
    if (!prepare(c, res, bytes, &in, &out))
        return 0;
    cl_event done = NULL;
    clreduce_status st = clreduce_reduce_rows_multi(g_ctx, g_queue, set, k, c->type, in,
                                                    c->offset, rows, length, 0, out, 0, 0, NULL,
                                                    &done);
    if (!call_succeeded(c, st, og_read_output(out, bytes, res, done)))
        return 0;
    size_t starts[3], lengths[3];
    for (size_t r = 0; r < rows; r++) {
        starts[r] = r * length;
        lengths[r] = length;
    }
    return records_match(c, set, k, res, bytes, starts, lengths, rows, rows);
}

/* The same over three segments of the case's elements
 * (clreduce_reduce_segments_multi): the first fifth, an empty one and the
 * rest; or (t->segments, wild offsets) offsets past the count, decreasing
 * and huge, whose results are unspecified but must cause no access out of
 * bounds (which Oclgrind reports) and no write past the records. */
static int run_segments_multi(const target *t, og_case *c)
{
    clreduce_op set[CLREDUCE_MULTI_MAX];
    size_t k = operators_of(c->type, set);
    size_t record = clreduce_multi_record(set, k, c->type, NULL);
    size_t bytes = 3 * record + 64;
    static unsigned char res[3 * CLREDUCE_MULTI_MAX * 24 + 64];
    cl_ulong bounds[4] = {0, c->n / 5, c->n / 5, c->n};
    if (t->segments) {
        bounds[0] = c->n + 7;
        bounds[1] = c->n / 2;
        bounds[2] = UINT64_MAX - 3;
        bounds[3] = c->n / 3;
    }
    cl_mem in, out, offsets;
    if (!prepare(c, res, bytes, &in, &out))
        return 0;
    cl_int err;
    offsets = og_keep(clCreateBuffer(clreduce_get_cl_context(g_ctx),
                                     CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof bounds,
                                     bounds, &err));
    if (err != CL_SUCCESS)
        return call_succeeded(c, CLREDUCE_SUCCESS, err);
    cl_event done = NULL;
    clreduce_status st = clreduce_reduce_segments_multi(
        g_ctx, g_queue, set, k, c->type, in, c->offset, c->n, offsets, 0, CLREDUCE_UINT64, 3, out,
        0, 0, NULL, &done);
    if (!call_succeeded(c, st, og_read_output(out, bytes, res, done)))
        return 0;
    size_t starts[3] = {0, c->n / 5, c->n / 5};
    size_t lengths[3] = {c->n / 5, 0, c->n - c->n / 5};
    return records_match(c, set, k, res, bytes, starts, lengths, t->segments ? 0 : 3, 3);
}

/* The single pass of several operators hands each operator's partials to
 * the last work-group as the single pass of one does: a float sum's as
 * reduce_grid.cl, the others' as accumulators. */
static const accepted_races multi_hand_off = {
    "the single pass's hand-off of partial results between work-groups",
    {{"((volatile global T *)partials)[group] = v;", "v = clr_op(v, p[k]);"},
     {"((volatile global clr_a *)partials)[group] = v;", "clr_a p = partials[k];"}}};

target og_multi_targets[] = {
    {.name = "multi_grid_stride", .variant = CLREDUCE_GRID_STRIDE, .run = run_multi,
     .support = multi_support, .multi = 1},
    /* The single pass's ticket is zero-filled. */
    {.name = "multi_single_pass", .variant = CLREDUCE_SINGLE_PASS, .run = run_multi,
     .support = multi_support, .fills_part_of_a_buffer = 1, .accepted = &multi_hand_off,
     .multi = 1},
    /* One operator a call: argmin and argmax load a vector again at the
     * end of a work-item's walk (grid_accumulators.cl), which the single
     * pass shares. */
    {.name = "operators_grid_stride", .variant = CLREDUCE_GRID_STRIDE, .run = run_operators,
     .support = multi_support, .multi = 1},
    {.name = "multi_rows", .variant = CLREDUCE_GRID_STRIDE, .run = run_rows_multi,
     .support = multi_support, .multi = 1},
    {.name = "multi_segments", .variant = CLREDUCE_GRID_STRIDE, .run = run_segments_multi,
     .support = multi_support, .multi = 1},
    {.name = "multi_segments_wild_offsets", .variant = CLREDUCE_GRID_STRIDE,
     .run = run_segments_multi, .support = multi_support, .multi = 1, .segments = 1},
};
const size_t og_multi_target_count = ARRAY_SIZE(og_multi_targets);
