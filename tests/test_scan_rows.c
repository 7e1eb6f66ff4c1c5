/* unit.scan_rows: clreduce_scan_rows and clreduce_scan_rows_host against a
 * CPU reference, for every operator, type and kind, at row lengths from 0
 * to past a million and row counts from 1 to 10^5 (so that every kernel
 * shape runs: a work-item, a team or a sub-group per row, a work-group per
 * row, several work-groups per row), pitched rows with poisoned padding,
 * the output in a buffer of its own (at another pitch, between sentinels),
 * in place, or after the input in the same buffer; float sums against
 * batched.h's bound; NaN, infinities and signed zeros; determinism;
 * out-of-order queues; every bad argument refused with nothing written.
 *
 * CLREDUCE_TEST_SEED=n repeats a run's random data; CLREDUCE_TEST_FILTER=glob
 * runs only the matching tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common_rows.h"

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;

/* Elements of input a case may use: keeps the suite quick on two CPU cores. */
#define MAX_ELEMENTS ((size_t)2 << 20)
/* The loads per work-item the context is made with, so that the bound's
 * elements per work-item of a scan tile are known. */
#define LOADS 4

/* ---- the bound of float sums ------------------------------------------------------ */

/* The terms of batched.h's bound, k <= i / (s v) + 2 e + 4, for float and
 * double. */
typedef struct bound_terms {
    size_t s, v, e;
} bound_terms;
static bound_terms g_terms[2];

/* The smallest sub-group the device may compile, where the library uses
 * sub-groups: the device's list of sizes (cl_intel_required_subgroup_size)
 * or NVIDIA's warp; 1 when the device names neither. Without sub-groups,
 * the work-group size. */
static size_t smallest_subgroup(clreduce_ctx *ctx, size_t work_group_size)
{
    if (clreduce_get_subgroup_path(ctx) == CLREDUCE_SUBGROUP_PATH_NONE)
        return work_group_size;
    cl_device_id device = clreduce_get_cl_device(ctx);
    size_t sizes[16], bytes = 0, least = 0;
    if (clGetDeviceInfo(device, 0x4108 /* CL_DEVICE_SUB_GROUP_SIZES_INTEL */, sizeof sizes,
                        sizes, &bytes) == CL_SUCCESS)
        for (size_t i = 0; i < bytes / sizeof *sizes; i++)
            if (sizes[i] && (!least || sizes[i] < least))
                least = sizes[i];
    cl_uint warp = 0;
    if (!least && clGetDeviceInfo(device, 0x4003 /* CL_DEVICE_WARP_SIZE_NV */, sizeof warp,
                                  &warp, NULL) == CL_SUCCESS)
        least = warp;
    return least ? least : 1;
}

static unsigned ceil_log2(size_t n)
{
    unsigned k = 0;
    while (((size_t)1 << k) < n)
        k++;
    return k;
}

static long double element(clreduce_type type, const void *data, size_t i)
{
    return type == CLREDUCE_FLOAT ? (long double)((const float *)data)[i]
                                  : (long double)((const double *)data)[i];
}

/* The exact prefix of the finite values (Neumaier's compensated sum in long
 * double), the sum of their magnitudes, and the sum of the infinities and
 * NaN apart, which decides the result alone once it is not zero. */
typedef struct exact_sum {
    long double s, c, a, special;
} exact_sum;

static void exact_add(exact_sum *e, long double x)
{
    if (!isfinite(x)) {
        e->special += x;
        return;
    }
    long double t = e->s + x;
    e->c += fabsl(e->s) >= fabsl(x) ? (e->s - t) + x : (x - t) + e->s;
    e->s = t;
    e->a += fabsl(x);
}

/* Checks a float sum scan of one row against the bound, element by
 * element; *worst keeps the largest error as a fraction of its bound. */
static int check_float_sum_row(clreduce_type type, clreduce_scan_kind kind, const void *in,
                               const void *out, size_t n, double *worst, char *why, size_t size)
{
    exact_sum e = {0, 0, 0, 0};
    const bound_terms *b = &g_terms[type == CLREDUCE_DOUBLE];
    long double u = tc_unit_roundoff(type);
    unsigned depth = ceil_log2(n);
    for (size_t i = 0; i < n; i++) {
        if (kind == CLREDUCE_INCLUSIVE)
            exact_add(&e, element(type, in, i));
        long double got = element(type, out, i);
        if (kind == CLREDUCE_EXCLUSIVE && i == 0) {
            if (got != 0 || signbit(got)) {
                snprintf(why, size, "element 0 of an exclusive scan is %Lg, not +0", got);
                return 0;
            }
        } else if (e.special != 0) { /* NaN too */
            if (isnan(e.special) ? !isnan(got) : got != e.special) {
                snprintf(why, size, "element %zu: got %Lg, expected %Lg", i, got, e.special);
                return 0;
            }
        } else {
            long double exact = e.s + e.c;
            size_t k = i / (b->s * b->v) + 2 * b->e + 4;
            long double bound = (long double)(k + depth) * u * e.a;
            long double err = fabsl(got - exact);
            double ratio = bound > 0 ? (double)(err / bound) : (err == 0 ? 0.0 : INFINITY);
            if (ratio > *worst)
                *worst = ratio;
            if (!(err <= bound)) {
                snprintf(why, size, "element %zu: got %.17Lg, exact %.21Lg, error %.3Lg past the "
                         "bound %.3Lg", i, got, exact, err, bound);
                return 0;
            }
        }
        if (kind == CLREDUCE_EXCLUSIVE)
            exact_add(&e, element(type, in, i));
    }
    return 1;
}

/* One row: float sums against the bound, everything else bit for bit. */
static int check_row(clreduce_op op, clreduce_type type, clreduce_scan_kind kind, const void *in,
                     const void *out, size_t n, double *worst, char *why, size_t size)
{
    if (op == CLREDUCE_OP_SUM && tc_is_float_type(type))
        return check_float_sum_row(type, kind, in, out, n, worst, why, size);
    return tc_scan_matches(op, type, kind, in, n, out, why, size);
}

/* ---- one call -------------------------------------------------------------------- */

/* Where the output rows lie. */
typedef enum placement {
    SEPARATE, /* a buffer of their own, out_offset sentinel elements in */
    IN_PLACE, /* the input rows themselves */
    AFTER     /* the input's buffer, out_offset elements past its last row */
} placement;

static const char *const placement_names[] = {"separate", "in place", "after the input"};

typedef struct rows_case {
    clreduce_op op;
    clreduce_type type;
    clreduce_scan_kind kind;
    size_t rows, length, pitch; /* pitch: as passed (0 means length) */
    size_t offset;              /* poisoned elements before the first row */
    placement where;
    size_t out_pitch;           /* as passed; not IN_PLACE */
    size_t out_offset;
    cl_command_queue queue;     /* NULL: g_queue */
} rows_case;

/* Lays the rows out at c->offset of a buffer whose every element that is
 * not part of a row is poisoned, places the output as c->where says (its
 * buffer's other elements sentinels), scans, and checks every output row
 * against the reference of its input row and every other element of the
 * buffers against what it held. `data` holds rows * pitch elements as laid
 * out (padding included: overwritten with poison here). o->results holds
 * the output rows, packed; o->wrong counts the wrong rows. */
static void run_rows(const rows_case *c, void *data, tcr_outcome *o)
{
    memset(o, 0, sizeof *o);
    size_t es = clreduce_type_size(c->type);
    size_t pitch = c->pitch ? c->pitch : c->length;
    size_t out_pitch = c->where == IN_PLACE ? pitch : c->out_pitch ? c->out_pitch : c->length;
    size_t in_span = tcr_span(c->rows, c->length, pitch);
    size_t out_span = tcr_span(c->rows, c->length, out_pitch);
    size_t out_first = c->where == SEPARATE ? c->out_offset
                       : c->where == IN_PLACE ? c->offset
                                              : c->offset + in_span + c->out_offset;
    size_t in_total = c->offset + in_span + 3;
    size_t total = c->where == AFTER ? out_first + out_span + 2 : in_total;
    size_t out_total = c->where == SEPARATE ? out_first + out_span + 2 : total;
    unsigned char *before = tcr_poisoned_buffer(c->op, c->type, total);
    unsigned char *after = malloc(total * es);
    unsigned char *out_before = malloc(out_total * es), *out_after = malloc(out_total * es);
    unsigned char *outside = calloc(out_total ? out_total : 1, 1); /* 1: not an output row */
    assert_true(after && out_before && out_after && outside);
    memset(before + in_total * es, TC_SENTINEL_BYTE, (total - in_total) * es);
    tcr_copy_rows(before + c->offset * es, data, c->rows, c->length, pitch, es);
    if (c->where == SEPARATE)
        memset(out_before, TC_SENTINEL_BYTE, out_total * es);
    else
        memcpy(out_before, before, total * es);
    memset(outside, 1, out_total);
    for (size_t r = 0; r < c->rows; r++)
        memset(outside + out_first + r * out_pitch, 0, c->length);

    cl_mem in = tc_make_buffer(g_ctx, total * es, before);
    cl_mem out = c->where == SEPARATE ? tc_make_buffer(g_ctx, out_total * es, out_before) : in;
    cl_command_queue q = c->queue ? c->queue : g_queue;
    cl_event done = NULL;
    o->status = clreduce_scan_rows(g_ctx, q, c->op, c->type, c->kind, in, c->offset, c->rows,
                                   c->length, c->pitch, out, out_first,
                                   c->where == IN_PLACE ? c->pitch : c->out_pitch, 0, NULL,
                                   &done);
    tcr_read_back(o, g_ctx, q, out, out_after, out_total * es, done);
    if (o->status != CLREDUCE_SUCCESS)
        tc_read_buffer(q, out, out_after, out_total * es, 0, NULL);
    if (c->where == SEPARATE) {
        tc_read_buffer(q, in, after, total * es, 0, NULL);
        o->changed += memcmp(after, before, total * es) != 0;
    }
    for (size_t i = 0; i < out_total; i++)
        if (outside[i] || o->status != CLREDUCE_SUCCESS)
            o->changed += memcmp(out_after + i * es, out_before + i * es, es) != 0;
    o->results = malloc((c->rows && c->length ? c->rows * c->length : 1) * es);
    assert_non_null(o->results);
    for (size_t r = 0; r < c->rows && o->status == CLREDUCE_SUCCESS; r++) {
        unsigned char *row = (unsigned char *)o->results + r * c->length * es;
        memcpy(row, out_after + (out_first + r * out_pitch) * es, c->length * es);
        char why[320];
        if (!check_row(c->op, c->type, c->kind, before + (c->offset + r * pitch) * es, row,
                       c->length, &o->worst, why, sizeof why) &&
            o->wrong++ == 0)
            snprintf(o->why, sizeof o->why, "row %zu: %s", r, why);
    }
    if (c->where == SEPARATE)
        clReleaseMemObject(out);
    clReleaseMemObject(in);
    free(before);
    free(after);
    free(out_before);
    free(out_after);
    free(outside);
}

/* Runs a case and reports it; returns 1 when it passed. */
static int check_rows(const char *tag, const rows_case *c, void *data)
{
    tcr_outcome o;
    run_rows(c, data, &o);
    return tcr_report(tag, &o, "op=%s type=%s %s rows=%zu length=%zu pitch=%zu offset=%zu output "
                      "%s (pitch %zu, offset %zu)", tc_op_name(c->op), tc_type_name(c->type),
                      tc_scan_kind_name(c->kind), c->rows, c->length, c->pitch, c->offset,
                      placement_names[c->where], c->out_pitch, c->out_offset);
}

/* ---- tests -------------------------------------------------------------------------- */

static const size_t lengths[] = {0, 1, 2, 3, 31, 32, 33, 255, 1023, 1025, 4097, 100003};
static const size_t row_counts[] = {1, 7, 64, 1000};

/* Case k of the shapes test: placements, pitches, offsets and kinds turn
 * with k. */
static int shapes_case(clreduce_op op, clreduce_type type, size_t rows, size_t length, size_t pad,
                       size_t k, void *data)
{
    rows_case c = {op, type, (clreduce_scan_kind)(k % 2), rows, length, pad ? length + pad : 0,
                   k % 5, (placement)(k % 3), 0, 0, NULL};
    if (c.where != IN_PLACE) {
        c.out_pitch = k % 4 == 0 ? 0 : length + (k % 4 == 1 ? 0 : 1 + k % 3);
        c.out_offset = k % 3 == 0 ? 2 : 1 + k % 2;
    }
    return check_rows("shapes", &c, data);
}

/* Every type, operator and kind at every row length, with the row counts
 * that fit MAX_ELEMENTS (the longest rows with fewer types), pitched or
 * not, the output in each placement. */
static void test_shapes(void **state)
{
    (void)state;
    tcr_test_shapes(g_ctx, lengths, ARRAY_SIZE(lengths), row_counts, ARRAY_SIZE(row_counts),
                    MAX_ELEMENTS, shapes_case);
}

/* One row of more than a million elements: several work-groups per row. */
static void test_long_row(void **state)
{
    (void)state;
    tc_seed_for("long_row");
    const size_t length = TC_LARGE_COUNT;
    void *data = malloc(length * 8);
    assert_non_null(data);
    static const struct {
        clreduce_op op;
        clreduce_type type;
        clreduce_scan_kind kind;
        placement where;
    } cases[] = {
        {CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_INCLUSIVE, IN_PLACE},
        {CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_EXCLUSIVE, SEPARATE},
        {CLREDUCE_OP_MAX, CLREDUCE_DOUBLE, CLREDUCE_INCLUSIVE, AFTER},
        {CLREDUCE_OP_MIN, CLREDUCE_UINT64, CLREDUCE_EXCLUSIVE, IN_PLACE},
    };
    int failures = 0;
    tcr_reset_reports();
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        if (!tc_type_supported(g_ctx, cases[i].type))
            continue;
        tcr_fill_for_op(cases[i].op, cases[i].type, data, length, i);
        rows_case c = {cases[i].op, cases[i].type, cases[i].kind, 1, length, 0, 3,
                       cases[i].where, 0, 1, NULL};
        failures += !check_rows("long row", &c, data);
    }
    free(data);
    assert_int_equal(failures, 0);
}

/* Float sums of adversarial data against the bound; prints the largest
 * error as a fraction of it. A single one a row, then values under u: each
 * lost where it is added to a prefix of 1 alone, so that the longest chain
 * of additions shows (many ones share the loss among lanes). */
static void fill_one_then_tiny(clreduce_type type, void *data, size_t n, size_t length)
{
    tc_fill_ones_then_tiny(type, data, n, length, 1);
}

static void fill_magnitudes(clreduce_type type, void *data, size_t n, size_t length)
{
    (void)length;
    for (size_t i = 0; i < n; i++) {
        double sign = (tc_rand64() & 1) ? -1.0 : 1.0;
        tc_set_double(type, data, i,
                      sign * ldexp(1.0 + tc_rand_unit(), (int)tc_rand_below(81) - 40));
    }
}

static void test_float_bound(void **state)
{
    (void)state;
    tc_seed_for("float_bound");
    static const size_t shapes[][2] = {{1, TC_LARGE_COUNT}, {3, 100003}, {200, 1025},
                                       {2000, 33}, {1000, 255}};
    static void (*const fills[])(clreduce_type, void *, size_t, size_t) = {fill_one_then_tiny,
                                                                           fill_magnitudes};
    void *data = malloc(TC_LARGE_COUNT * 8);
    assert_non_null(data);
    int failures = 0;
    tcr_reset_reports();
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = ti ? CLREDUCE_DOUBLE : CLREDUCE_FLOAT;
        if (!tc_type_supported(g_ctx, type))
            continue;
        for (size_t si = 0; si < ARRAY_SIZE(shapes); si++)
            for (size_t fi = 0; fi < ARRAY_SIZE(fills); fi++) {
                size_t rows = shapes[si][0], length = shapes[si][1];
                fills[fi](type, data, rows * length, length);
                clreduce_scan_kind kind = (clreduce_scan_kind)((si + fi) % 2);
                rows_case c = {CLREDUCE_OP_SUM, type, kind, rows, length, 0, 1, SEPARATE,
                               0, 0, NULL};
                tcr_outcome o;
                run_rows(&c, data, &o);
                failures += !tcr_report_bound(&o, "%-6s %s rows=%zu length=%zu %s",
                                              tc_type_name(type), tc_scan_kind_name(kind), rows,
                                              length, fi ? "magnitudes 2^-40..2^40"
                                                         : "a one, then values under u");
            }
    }
    free(data);
    assert_int_equal(failures, 0);
}

/* NaN, infinities and signed zeros, row by row: each row gets its own
 * special values at its own places, for every operator and both kinds. */
static void test_special_values(void **state)
{
    (void)state;
    tc_seed_for("special_values");
    static const size_t shapes[][2] = {{200, 3}, {50, 33}, {20, 1025}, {2, 70001}};
    void *data = malloc(2 * 70001 * 8);
    assert_non_null(data);
    int failures = 0;
    tcr_reset_reports();
    size_t k = 0;
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = ti ? CLREDUCE_DOUBLE : CLREDUCE_FLOAT;
        if (!tc_type_supported(g_ctx, type))
            continue;
        for (size_t si = 0; si < ARRAY_SIZE(shapes); si++) {
            size_t rows = shapes[si][0], length = shapes[si][1];
            for (size_t oi = 0; oi < ARRAY_SIZE(tc_all_ops); oi++, k++) {
                tc_fill_random(type, data, rows * length);
                for (size_t r = 0; r < rows; r++) {
                    size_t first = r * length, at = first + tc_rand_below(length);
                    switch (r % 5) {
                    case 0: tc_set_double(type, data, at, (double)NAN); break;
                    case 1: tc_set_double(type, data, first + length - 1, (double)NAN); break;
                    case 2:
                        tc_set_double(type, data, at, (double)INFINITY);
                        tc_set_double(type, data, first, -(double)INFINITY);
                        break;
                    case 3:
                        /* zeros of both signs only, -0.0 first */
                        for (size_t i = 0; i < length; i++)
                            tc_set_double(type, data, first + i, (tc_rand64() & 1) ? -0.0 : 0.0);
                        tc_set_double(type, data, first, -0.0);
                        break;
                    default: break;
                    }
                }
                for (size_t kind = 0; kind < 2; kind++) {
                    rows_case c = {tc_all_ops[oi], type, (clreduce_scan_kind)kind, rows, length,
                                   0, 1, (placement)((k + kind) % 3), 0, 2, NULL};
                    failures += !check_rows("special values", &c, data);
                }
            }
        }
    }
    free(data);
    assert_int_equal(failures, 0);
}

/* Integer sums wrap around: rows of the type's largest values. */
static void test_wrap_around(void **state)
{
    (void)state;
    tc_seed_for("wrap_around");
    const size_t rows = 40, length = 333;
    uint64_t data[40 * 333];
    int failures = 0;
    tcr_reset_reports();
    for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
        clreduce_type type = tc_all_types[ti];
        if (tc_is_float_type(type))
            continue;
        /* the type's largest value, or nearly: tc_set truncates the bits */
        int is_signed = type == CLREDUCE_INT32 || type == CLREDUCE_INT64;
        uint64_t largest = clreduce_type_size(type) == 4 ? UINT32_MAX : UINT64_MAX;
        if (is_signed)
            largest >>= 1;
        for (size_t i = 0; i < rows * length; i++) {
            tc_value v;
            v.u64 = largest - tc_rand_below(3);
            tc_set(type, data, i, &v);
        }
        for (size_t kind = 0; kind < 2; kind++) {
            rows_case c = {CLREDUCE_OP_SUM, type, (clreduce_scan_kind)kind, rows, length, 0, 0,
                           (placement)(ti % 3), 0, 1, NULL};
            failures += !check_rows("wrap-around", &c, data);
        }
    }
    assert_int_equal(failures, 0);
}

/* A case of the determinism test: the same rows twice, and again in place
 * at another address. */
static void determinism_case(size_t rows, size_t length, void *data)
{
    rows_case c = {CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_INCLUSIVE, rows, length, 0, 0,
                   SEPARATE, 0, 0, NULL};
    tcr_outcome runs[3];
    run_rows(&c, data, &runs[0]);
    run_rows(&c, data, &runs[1]);
    c.offset = 3; /* another address: the same order of combination */
    c.where = IN_PLACE;
    run_rows(&c, data, &runs[2]);
    tcr_assert_same_results(runs, 3, rows * length * 4, "rows=%zu length=%zu", rows, length);
}

/* The same rows twice, and again at another alignment, give the same bits,
 * for every kernel shape. */
static void test_determinism(void **state)
{
    (void)state;
    tcr_test_determinism(determinism_case);
}

/* The shapes of the out-of-order test: the split shape (three launches),
 * teams, tiles. */
static const size_t queue_shapes[][2] = {{1, 500001}, {2, 200003}, {20000, 17}, {77, 2999}};

static int out_of_order_case(cl_command_queue q, int round, size_t i, void *data)
{
    tc_fill_random(CLREDUCE_INT32, data, queue_shapes[i][0] * queue_shapes[i][1]);
    rows_case c = {CLREDUCE_OP_SUM, CLREDUCE_INT32, (clreduce_scan_kind)(round % 2),
                   queue_shapes[i][0], queue_shapes[i][1], 0, 3, (placement)(i % 3), 0, 1, q};
    return check_rows("out-of-order queue", &c, data);
}

/* An out-of-order queue, called again and again with fresh data. */
static void test_out_of_order(void **state)
{
    (void)state;
    tcr_test_out_of_order(g_ctx, 3, ARRAY_SIZE(queue_shapes), MAX_ELEMENTS * 4,
                          out_of_order_case);
}

/* The blocking call: pitched rows of every type, operator and kind, the
 * output's padding untouched; in place; its empty cases and refusals. */
static void test_host(void **state)
{
    (void)state;
    tc_seed_for("host");
    enum { ROWS = 37, LENGTH = 1500, PITCH = 1503 };
    unsigned char *data = malloc(ROWS * PITCH * 8), *out = malloc(ROWS * PITCH * 8);
    unsigned char *copy = malloc(ROWS * PITCH * 8);
    assert_true(data && out && copy);
    char why[320];
    for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
        clreduce_type type = tc_all_types[ti];
        size_t es = clreduce_type_size(type);
        if (!tc_type_supported(g_ctx, type))
            continue;
        for (size_t oi = 0; oi < ARRAY_SIZE(tc_all_ops); oi++) {
            clreduce_op op = tc_all_ops[oi];
            clreduce_scan_kind kind = (clreduce_scan_kind)((ti + oi) % 2);
            int in_place = oi == 1;
            tcr_fill_for_op(op, type, data, ROWS * PITCH, ti + oi);
            memcpy(copy, data, ROWS * PITCH * es);
            unsigned char *target = in_place ? data : out;
            if (!in_place)
                memset(out, TC_SENTINEL_BYTE, ROWS * PITCH * es);
            assert_int_equal(clreduce_scan_rows_host(g_ctx, op, type, kind, data, ROWS, LENGTH,
                                                     PITCH, target),
                             CLREDUCE_SUCCESS);
            double worst = 0;
            for (size_t r = 0; r < ROWS; r++) {
                if (!check_row(op, type, kind, copy + r * PITCH * es, target + r * PITCH * es,
                               LENGTH, &worst, why, sizeof why))
                    fail_msg("host %s %s %s%s row %zu: %s", tc_op_name(op), tc_type_name(type),
                             tc_scan_kind_name(kind), in_place ? " in place" : "", r, why);
                /* the padding: the input's in place, else never written */
                for (size_t i = LENGTH; i < PITCH && r + 1 < ROWS; i++) {
                    const unsigned char *pad = target + (r * PITCH + i) * es;
                    for (size_t b = 0; b < es; b++)
                        if (pad[b] != (in_place ? copy[(r * PITCH + i) * es + b]
                                                : TC_SENTINEL_BYTE))
                            fail_msg("host %s %s: padding of row %zu written", tc_op_name(op),
                                     tc_type_name(type), r);
                }
            }
        }
    }
    /* No rows, or rows of nothing: nothing written. */
    memset(out, TC_SENTINEL_BYTE, 64);
    assert_int_equal(clreduce_scan_rows_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_INT64,
                                             CLREDUCE_EXCLUSIVE, data, 5, 0, 0, out),
                     CLREDUCE_SUCCESS);
    assert_int_equal(clreduce_scan_rows_host(g_ctx, CLREDUCE_OP_MIN, CLREDUCE_FLOAT,
                                             CLREDUCE_INCLUSIVE, NULL, 0, 10, 0, NULL),
                     CLREDUCE_SUCCESS);
    for (size_t i = 0; i < 64; i++)
        assert_int_equal(out[i], TC_SENTINEL_BYTE);
    /* Refusals: output untouched. */
    float in4[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, res[12];
    memset(res, TC_SENTINEL_BYTE, sizeof res);
    assert_int_equal(clreduce_scan_rows_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                             CLREDUCE_INCLUSIVE, NULL, 3, 4, 0, res),
                     CLREDUCE_ERROR_INVALID_ARGUMENT);
    assert_true(tc_contains(clreduce_last_error(g_ctx), "data"));
    assert_int_equal(clreduce_scan_rows_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                             CLREDUCE_INCLUSIVE, in4, 3, 4, 0, NULL),
                     CLREDUCE_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clreduce_scan_rows_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                             CLREDUCE_INCLUSIVE, in4, 3, 4, 3, res),
                     CLREDUCE_ERROR_INVALID_ARGUMENT);
    assert_true(tc_contains(clreduce_last_error(g_ctx), "row_pitch"));
    assert_int_equal(clreduce_scan_rows_host(g_ctx, CLREDUCE_OP_MEAN_VAR, CLREDUCE_INT32,
                                             CLREDUCE_INCLUSIVE, in4, 3, 4, 0, res),
                     CLREDUCE_ERROR_UNSUPPORTED);
    assert_int_equal(clreduce_scan_rows_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                             (clreduce_scan_kind)2, in4, 3, 4, 0, res),
                     CLREDUCE_ERROR_INVALID_ARGUMENT);
    for (size_t i = 0; i < 12; i++)
        assert_int_equal(((unsigned char *)res)[i * 4], TC_SENTINEL_BYTE);
    /* Overlapping without being the same array: refused, nothing written. */
    float before[12];
    memcpy(before, in4, sizeof in4);
    assert_int_equal(clreduce_scan_rows_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                             CLREDUCE_INCLUSIVE, in4, 2, 4, 0, in4 + 1),
                     CLREDUCE_ERROR_INVALID_ARGUMENT);
    assert_true(tc_contains(clreduce_last_error(g_ctx), "overlap"));
    assert_memory_equal(in4, before, sizeof in4);
    free(data);
    free(out);
    free(copy);
}

/* rows 0 or row_length 0: a marker when done is asked, nothing otherwise,
 * nothing written. */
static void test_empty(void **state)
{
    (void)state;
    unsigned char sentinel[32];
    memset(sentinel, TC_SENTINEL_BYTE, sizeof sentinel);
    cl_mem in = tc_make_buffer(g_ctx, 16 * sizeof(float), NULL);
    cl_mem out = tc_make_buffer(g_ctx, sizeof sentinel, sentinel);
    static const size_t shapes[][2] = {{5, 0}, {0, 7}};
    for (size_t si = 0; si < ARRAY_SIZE(shapes); si++) {
        cl_event done = NULL;
        assert_int_equal(clreduce_scan_rows(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                            CLREDUCE_EXCLUSIVE, in, 16, shapes[si][0],
                                            shapes[si][1], 0, out, 8, 0, 0, NULL, &done),
                         CLREDUCE_SUCCESS);
        assert_non_null(done);
        assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
        clReleaseEvent(done);
        assert_int_equal(clreduce_scan_rows(g_ctx, g_queue, CLREDUCE_OP_MAX, CLREDUCE_FLOAT,
                                            CLREDUCE_INCLUSIVE, in, 0, shapes[si][0],
                                            shapes[si][1], 0, out, 0, 0, 0, NULL, NULL),
                         CLREDUCE_SUCCESS);
    }
    assert_int_equal(clFinish(g_queue), CL_SUCCESS);
    tc_check_buffer_unchanged(g_queue, out, sentinel, sizeof sentinel);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
}

/* ---- bad arguments ----------------------------------------------------------------- */

static void test_bad_arguments(void **state)
{
    (void)state;
    float input_data[100];
    unsigned char output_bytes[64 * sizeof(float)];
    tc_guarded g;
    tc_make_guarded(g_ctx, g_queue, input_data, ARRAY_SIZE(input_data), output_bytes,
                    sizeof output_bytes, &g);
    const clreduce_op sum = CLREDUCE_OP_SUM;
    const clreduce_type f = CLREDUCE_FLOAT;
    const clreduce_scan_kind inc = CLREDUCE_INCLUSIVE;
#define SCAN_ROWS(op, type, kind, in, off, rows, len, pitch, out, out_off, out_pitch)            \
    clreduce_scan_rows(g_ctx, g_queue, op, type, kind, in, off, rows, len, pitch, out, out_off, \
                       out_pitch, 0, NULL, &done)
#define EXPECT(what, want, words, call)                                                         \
    TC_EXPECT_FAILURE(&g, g_ctx, what, want, g_ctx, words, call)
    static const char *const pitch_words[] = {"row_pitch", "row_length", NULL};
    EXPECT("row_pitch below the row length", CLREDUCE_ERROR_INVALID_ARGUMENT, pitch_words,
           SCAN_ROWS(sum, f, inc, g.input, 0, 3, 10, 9, g.output, 0, 0));
    static const char *const out_pitch_words[] = {"output_pitch", "row_length", NULL};
    EXPECT("output_pitch below the row length", CLREDUCE_ERROR_INVALID_ARGUMENT,
           out_pitch_words, SCAN_ROWS(sum, f, inc, g.input, 0, 3, 10, 0, g.output, 0, 7));
    static const char *const overflow_words[] = {"rows", "pitch", NULL};
    EXPECT("rows * pitch overflows", CLREDUCE_ERROR_INVALID_ARGUMENT, overflow_words,
           SCAN_ROWS(sum, f, inc, g.input, 0, SIZE_MAX / 2, 4, 8, g.output, 0, 0));
    EXPECT("output rows * pitch overflow", CLREDUCE_ERROR_INVALID_ARGUMENT, overflow_words,
           SCAN_ROWS(sum, f, inc, g.input, 0, SIZE_MAX / 2, 1, 1, g.output, 0, 8));
    static const char *const input_words[] = {"input", "past the end", NULL};
    EXPECT("last row past the input", CLREDUCE_ERROR_INVALID_ARGUMENT, input_words,
           SCAN_ROWS(sum, f, inc, g.input, 1, 10, 10, 11, g.output, 0, 0));
    EXPECT("a span whose bytes overflow", CLREDUCE_ERROR_INVALID_ARGUMENT, input_words,
           SCAN_ROWS(sum, f, inc, g.input, 0, SIZE_MAX / 8, 4, 4, g.output, 0, 0));
    static const char *const output_words[] = {"output", "past the end", NULL};
    EXPECT("output rows past the output buffer", CLREDUCE_ERROR_INVALID_ARGUMENT, output_words,
           SCAN_ROWS(sum, f, inc, g.input, 0, 6, 10, 0, g.output, 2, 11));
    static const char *const overlap_words[] = {"overlap", NULL};
    EXPECT("output shifted by one in the same buffer", CLREDUCE_ERROR_INVALID_ARGUMENT,
           overlap_words, SCAN_ROWS(sum, f, inc, g.input, 0, 4, 5, 10, g.input, 1, 10));
    EXPECT("the same offset at another pitch", CLREDUCE_ERROR_INVALID_ARGUMENT, overlap_words,
           SCAN_ROWS(sum, f, inc, g.input, 0, 4, 5, 10, g.input, 0, 11));
    EXPECT("output padding interleaved with the rows", CLREDUCE_ERROR_INVALID_ARGUMENT,
           overlap_words, SCAN_ROWS(sum, f, inc, g.input, 0, 4, 5, 10, g.input, 5, 10));
    static const char *const op_words[] = {"norm2", "int32", NULL};
    EXPECT("norm2 of int32", CLREDUCE_ERROR_UNSUPPORTED, op_words,
           SCAN_ROWS(CLREDUCE_OP_NORM2, CLREDUCE_INT32, inc, g.input, 0, 3, 3, 0, g.output, 0,
                     0));
    static const char *const dot_words[] = {"dot", NULL};
    EXPECT("dot", CLREDUCE_ERROR_UNSUPPORTED, dot_words,
           SCAN_ROWS(CLREDUCE_OP_DOT, f, inc, g.input, 0, 3, 3, 0, g.output, 0, 0));
    static const char *const unknown_op_words[] = {"op", NULL};
    EXPECT("unknown op", CLREDUCE_ERROR_INVALID_ARGUMENT, unknown_op_words,
           SCAN_ROWS((clreduce_op)CLREDUCE_OP_COUNT, f, inc, g.input, 0, 3, 3, 0, g.output, 0,
                     0));
    static const char *const kind_words[] = {"kind", NULL};
    EXPECT("unknown kind", CLREDUCE_ERROR_INVALID_ARGUMENT, kind_words,
           SCAN_ROWS(sum, f, (clreduce_scan_kind)7, g.input, 0, 3, 3, 0, g.output, 0, 0));
    static const char *const type_words[] = {"type", NULL};
    EXPECT("unknown type", CLREDUCE_ERROR_INVALID_ARGUMENT, type_words,
           SCAN_ROWS(sum, (clreduce_type)9, inc, g.input, 0, 3, 3, 0, g.output, 0, 0));
    static const char *const null_words[] = {"NULL", NULL};
    EXPECT("NULL input", CLREDUCE_ERROR_INVALID_ARGUMENT, null_words,
           SCAN_ROWS(sum, f, inc, NULL, 0, 3, 3, 0, g.output, 0, 0));
    EXPECT("NULL output", CLREDUCE_ERROR_INVALID_ARGUMENT, null_words,
           SCAN_ROWS(sum, f, inc, g.input, 0, 3, 3, 0, NULL, 0, 0));
    static const char *const wait_words[] = {"num_wait", NULL};
    EXPECT("num_wait without a list", CLREDUCE_ERROR_INVALID_ARGUMENT, wait_words,
           clreduce_scan_rows(g_ctx, g_queue, sum, f, inc, g.input, 0, 3, 3, 0, g.output, 0, 0,
                              1, NULL, &done));
#undef EXPECT
#undef SCAN_ROWS
    /* In place (the same offset and pitch), and output rows in the input's
     * padding past its last row: both fine. */
    cl_event done = NULL;
    assert_int_equal(clreduce_scan_rows(g_ctx, g_queue, sum, f, inc, g.input, 2, 4, 5, 10,
                                        g.input, 2, 10, 0, NULL, &done),
                     CLREDUCE_SUCCESS);
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    assert_int_equal(clreduce_scan_rows(g_ctx, g_queue, sum, f, inc, g.input, 0, 4, 5, 10,
                                        g.input, 35, 5, 0, NULL, NULL),
                     CLREDUCE_SUCCESS);
    assert_int_equal(clFinish(g_queue), CL_SUCCESS);
    tc_release_guarded(&g);
}

int main(void)
{
    tc_init_seed();
    clreduce_ctx *probe = tc_create_default_or_skip("unit.scan_rows");
    /* The scans' loads per work-item set, so that the bound's terms are
     * known; the rest as the library tunes it. */
    clreduce_settings settings;
    clreduce_default_settings(&settings);
    settings.loads_per_work_item = LOADS;
    clreduce_status st = clreduce_create_with_settings(
        clreduce_get_cl_context(probe), clreduce_get_cl_device(probe), &settings, &g_ctx);
    clreduce_destroy(probe);
    if (st != CLREDUCE_SUCCESS) {
        fprintf(stderr, "unit.scan_rows: %s\n", clreduce_last_error(NULL));
        return 1;
    }
    g_queue = tc_create_queue(g_ctx, 0);
    if (!g_queue)
        return 1;
    for (int d = 0; d < 2; d++) {
        clreduce_settings t;
        clreduce_get_tuning(g_ctx, d ? CLREDUCE_DOUBLE : CLREDUCE_FLOAT, &t);
        bound_terms *b = &g_terms[d];
        b->v = t.vector_width;
        b->e = (size_t)LOADS * t.vector_width;
        b->s = smallest_subgroup(g_ctx, t.work_group_size);
        printf("bound of %s sums: s = %zu, v = %zu, e = %zu\n", d ? "double" : "float", b->s,
               b->v, b->e);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_arguments), cmocka_unit_test(test_empty),
        cmocka_unit_test(test_host),          cmocka_unit_test(test_special_values),
        cmocka_unit_test(test_wrap_around),   cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_float_bound),   cmocka_unit_test(test_out_of_order),
        cmocka_unit_test(test_long_row),      cmocka_unit_test(test_shapes),
    };
    int failed = tc_run_tests("unit.scan_rows", tests, ARRAY_SIZE(tests));
    return tc_finish(g_ctx, failed, g_queue, NULL);
}
