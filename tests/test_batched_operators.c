/* unit.batched_operators: clreduce_reduce_rows and clreduce_reduce_segments
 * (and their _host forms) with the operators past sum, min and max: argmin,
 * argmax, minmax, sum of squares, sum of absolute values on every type,
 * norm2 and mean_var on float and double, each result checked against the
 * CPU references of the flat reductions' tests (test_common_operators.c).
 *
 * Row lengths 0, 1, 31, 33, 257, 4097 and 100003 (several work-groups per
 * row), pitched rows with poisoned padding; segment layouts empty, tiny,
 * short (then one long) and huge mixed, with 32- and 64-bit offsets; ties,
 * NaN and signed zeros for argmin/argmax within rows; mean_var of rows of
 * mean 10^6 and spread 1.
 * Every case: the input between poisoned elements, the results at an offset
 * between sentinels (untouched), a second run bitwise the same, and the
 * _host form bitwise the same as the enqueueing one. Bad arguments: results
 * counted in whole results for the range and overlap checks, operators a
 * type does not take, dot.
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

#include "test_common.h"

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;

static const clreduce_op batched_ops[] = {CLREDUCE_OP_ARGMIN,      CLREDUCE_OP_ARGMAX,
                                          CLREDUCE_OP_MINMAX,      CLREDUCE_OP_SUM_SQUARES,
                                          CLREDUCE_OP_SUM_ABS,     CLREDUCE_OP_NORM2,
                                          CLREDUCE_OP_MEAN_VAR};

#define MAX_REPORTS 20
#define IN_OFFSET 3     /* poisoned elements before the data */
#define RESULT_OFFSET 1 /* sentinel results before the first result */
#define INDEX_OFFSET 2  /* poisoned offsets before the segments' offsets */

static int g_reports;

/* ---- one batch ------------------------------------------------------------------ */

typedef enum shape_kind { ROWS, SEGMENTS } shape_kind;

/* Rows: `items` rows of `length` at `pitch` (0: length), data holding the
 * span. Segments: `items` segments at offsets[0 .. items] of `offsets_type`
 * into data[0 .. count). */
typedef struct batch {
    shape_kind kind;
    clreduce_op op;
    clreduce_type type;
    size_t items, count;
    size_t length, pitch;
    const uint64_t *offsets;
    clreduce_type offsets_type;
    long double var_tol; /* mean_var's m2, relative */
} batch;

static size_t item_start(const batch *b, size_t i)
{
    return b->kind == ROWS ? i * (b->pitch ? b->pitch : b->length) : (size_t)b->offsets[i];
}

static size_t item_length(const batch *b, size_t i)
{
    return b->kind == ROWS ? b->length : (size_t)(b->offsets[i + 1] - b->offsets[i]);
}

static void *make_offsets(const batch *b, size_t lead)
{
    size_t os = tc_elem_size(b->offsets_type);
    unsigned char *o = malloc((lead + b->items + 1) * os);
    assert_non_null(o);
    memset(o, 0xFF, lead * os);
    for (size_t i = 0; i <= b->items; i++) {
        if (os == 4) {
            uint32_t v = (uint32_t)b->offsets[i];
            memcpy(o + (lead + i) * os, &v, 4);
        } else {
            memcpy(o + (lead + i) * os, &b->offsets[i], 8);
        }
    }
    return o;
}

static clreduce_status enqueue_batch(const batch *b, cl_mem in, cl_mem offsets, cl_mem out,
                                     cl_event *done)
{
    if (b->kind == ROWS)
        return clreduce_reduce_rows(g_ctx, g_queue, b->op, b->type, in, IN_OFFSET, b->items,
                                    b->length, b->pitch, out, RESULT_OFFSET, 0, NULL, done);
    return clreduce_reduce_segments(g_ctx, g_queue, b->op, b->type, in, IN_OFFSET, b->count,
                                    offsets, INDEX_OFFSET, b->offsets_type, b->items, out,
                                    RESULT_OFFSET, 0, NULL, done);
}

/* Runs the batch twice on the device and once through the _host form and
 * checks every result; data[0 .. count) is the input (rows: padding is
 * poisoned here). Returns the number of problems. */
static size_t run_batch(const char *tag, const batch *b, void *data)
{
    size_t es = tc_elem_size(b->type), rs = clreduce_result_size(b->op, b->type);
    assert_true(rs > 0);
    tc_value poison;
    tc_op_poison(b->op, b->type, &poison);
    if (b->kind == ROWS && b->pitch > b->length)
        for (size_t r = 0; r < b->items; r++)
            for (size_t j = b->length; j < b->pitch && r * b->pitch + j < b->count; j++)
                tc_set(b->type, data, r * b->pitch + j, &poison);
    size_t total = IN_OFFSET + b->count + 2;
    unsigned char *host = malloc(total * es);
    assert_non_null(host);
    for (size_t i = 0; i < total; i++)
        tc_set(b->type, host, i, &poison);
    memcpy(host + IN_OFFSET * es, data, b->count * es);
    size_t rcount = RESULT_OFFSET + b->items + 2;
    unsigned char *res[2], *host_res = malloc((b->items ? b->items : 1) * rs);
    assert_non_null(host_res);
    cl_mem in = tc_make_buffer(g_ctx, total * es, host);
    cl_mem offsets = NULL;
    void *offsets_host = NULL;
    if (b->kind == SEGMENTS) {
        offsets_host = make_offsets(b, INDEX_OFFSET);
        offsets = tc_make_buffer(g_ctx, (INDEX_OFFSET + b->items + 1) *
                                            tc_elem_size(b->offsets_type),
                                 offsets_host);
    }
    size_t problems = 0;
    char why[512];
    for (int run = 0; run < 2; run++) {
        res[run] = malloc(rcount * rs);
        assert_non_null(res[run]);
        memset(res[run], TC_SENTINEL_BYTE, rcount * rs);
        cl_mem out = tc_make_buffer(g_ctx, rcount * rs, res[run]);
        cl_event done = NULL;
        clreduce_status st = enqueue_batch(b, in, offsets, out, &done);
        if (st != CLREDUCE_SUCCESS) {
            print_message("%s: %s: %s\n", tag, clreduce_status_string(st),
                          clreduce_last_error(g_ctx));
            clReleaseMemObject(out);
            problems++;
            continue;
        }
        tc_read_buffer(g_queue, out, res[run], rcount * rs, 1, &done);
        clReleaseEvent(done);
        clReleaseMemObject(out);
        size_t changed = tc_first_changed_outside(res[run], rcount, RESULT_OFFSET, b->items, rs);
        if (changed != SIZE_MAX) {
            print_message("%s: result %zu outside the results changed\n", tag, changed);
            problems++;
        }
    }
    clReleaseMemObject(in);
    if (offsets)
        clReleaseMemObject(offsets);
    if (problems == 0) {
        size_t wrong = 0;
        for (size_t i = 0; i < b->items; i++) {
            const unsigned char *got = res[0] + (RESULT_OFFSET + i) * rs;
            if (!tc_op_check_result(b->op, b->type, (unsigned char *)data + item_start(b, i) * es,
                                    NULL, item_length(b, i), got, b->var_tol, why,
                                    sizeof why)) {
                if (wrong++ < 3 && g_reports++ < MAX_REPORTS)
                    print_message("%s: item %zu of %zu (length %zu): %s\n", tag, i, b->items,
                                  item_length(b, i), why);
            }
        }
        if (wrong)
            print_message("%s: %zu of %zu results wrong\n", tag, wrong, b->items);
        problems += wrong;
        if (memcmp(res[0], res[1], rcount * rs) != 0) {
            print_message("%s: a second run gave other bits\n", tag);
            problems++;
        }
    }
    /* The blocking form: the same bits (the data alone, no poison around). */
    clreduce_status st;
    if (b->kind == ROWS) {
        st = clreduce_reduce_rows_host(g_ctx, b->op, b->type, b->count ? data : NULL, b->items,
                                       b->length, b->pitch, host_res);
    } else {
        st = clreduce_reduce_segments_host(
            g_ctx, b->op, b->type, b->count ? data : NULL, b->count,
            (unsigned char *)offsets_host + INDEX_OFFSET * tc_elem_size(b->offsets_type),
            b->offsets_type, b->items, host_res);
    }
    if (st != CLREDUCE_SUCCESS) {
        print_message("%s: host form: %s: %s\n", tag, clreduce_status_string(st),
                      clreduce_last_error(g_ctx));
        problems++;
    } else if (problems == 0 && memcmp(host_res, res[0] + RESULT_OFFSET * rs, b->items * rs)) {
        print_message("%s: the host form gave other bits\n", tag);
        problems++;
    }
    free(res[0]);
    free(res[1]);
    free(host_res);
    free(host);
    free(offsets_host);
    return problems;
}

static int takes(clreduce_op op, clreduce_type type)
{
    return tc_type_supported(g_ctx, type) && clreduce_result_size(op, type) != 0;
}

/* ---- rows ------------------------------------------------------------------------ */

/* Lengths and row counts: every kernel shape (many rows per work-group, a
 * work-group per row, several per row) on a few hundred thousand elements. */
static const size_t row_lengths[] = {0, 1, 31, 33, 257, 4097, 100003};
static const size_t row_counts[] = {5, 100, 100, 64, 40, 8, 2};

static void test_rows_shapes(void **state)
{
    (void)state;
    size_t failed = 0;
    for (size_t oi = 0; oi < ARRAY_SIZE(batched_ops); oi++) {
        for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
            clreduce_op op = batched_ops[oi];
            clreduce_type type = tc_all_types[ti];
            if (!takes(op, type))
                continue;
            for (size_t li = 0; li < ARRAY_SIZE(row_lengths); li++) {
                size_t length = row_lengths[li], rows = row_counts[li];
                /* Odd lengths pitched, with padding the kernels must skip. */
                size_t pitch = length % 2 ? length + 3 : 0;
                size_t span = length ? (rows - 1) * (pitch ? pitch : length) + length : 0;
                void *data = malloc((span ? span : 1) * tc_elem_size(type));
                assert_non_null(data);
                tc_op_fill(op, type, data, span);
                batch b = {ROWS, op, type, rows, span, length, pitch, NULL, CLREDUCE_UINT32,
                           tc_op_variance_tolerance(type)};
                char tag[128];
                snprintf(tag, sizeof tag, "rows %s %s %zu x %zu pitch %zu",
                         clreduce_op_name(op), clreduce_type_name(type), rows, length, pitch);
                failed += run_batch(tag, &b, data);
                free(data);
            }
        }
    }
    assert_int_equal(failed, 0);
}

/* Rows of few distinct values (ties everywhere), NaN at the first, the
 * last, a middle and several places, all NaN, signed zeros only: the first
 * of equal keys wins, NaN beats everything. */
static void fill_arg_special(clreduce_type type, void *data, size_t rows, size_t length)
{
    int is_float = tc_is_float_type(type);
    for (size_t r = 0; r < rows; r++) {
        unsigned char *row = (unsigned char *)data + r * length * tc_elem_size(type);
        for (size_t j = 0; j < length; j++) {
            if (is_float) {
                tc_set_double(type, row, j, (double)tc_rand_below(4) - 1);
            } else {
                tc_value v;
                memset(&v, 0, sizeof v);
                v.u64 = tc_rand_below(3);
                tc_set(type, row, j, &v);
            }
        }
        if (!is_float || length == 0)
            continue;
        size_t mid = (r * 7919) % length;
        switch (r % 7) {
        case 1: tc_set_double(type, row, 0, NAN); break;
        case 2: tc_set_double(type, row, length - 1, NAN); break;
        case 3:
            tc_set_double(type, row, mid, NAN);
            tc_set_double(type, row, length - 1 - mid / 2, -NAN);
            break;
        case 4:
            for (size_t j = 0; j < length; j++)
                tc_set_double(type, row, j, NAN);
            break;
        case 5:
            for (size_t j = 0; j < length; j++)
                tc_set_double(type, row, j, j % 3 == 1 ? -0.0 : 0.0);
            break;
        case 6:
            tc_set_double(type, row, mid, -INFINITY);
            tc_set_double(type, row, length - 1, INFINITY);
            break;
        default: break;
        }
    }
}

static void test_rows_arg_special(void **state)
{
    (void)state;
    static const size_t lengths[] = {1, 7, 33, 4097, 100003};
    static const size_t counts[] = {14, 70, 70, 14, 2};
    size_t failed = 0;
    for (int k = 0; k < 2; k++) {
        clreduce_op op = k ? CLREDUCE_OP_ARGMAX : CLREDUCE_OP_ARGMIN;
        for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
            clreduce_type type = tc_all_types[ti];
            if (!takes(op, type))
                continue;
            for (size_t li = 0; li < ARRAY_SIZE(lengths); li++) {
                size_t length = lengths[li], rows = counts[li];
                void *data = malloc(rows * length * tc_elem_size(type));
                assert_non_null(data);
                fill_arg_special(type, data, rows, length);
                batch b = {ROWS, op, type, rows, rows * length, length, 0, NULL,
                           CLREDUCE_UINT32, 0};
                char tag[128];
                snprintf(tag, sizeof tag, "special rows %s %s %zu x %zu", clreduce_op_name(op),
                         clreduce_type_name(type), rows, length);
                failed += run_batch(tag, &b, data);
                free(data);
            }
        }
    }
    assert_int_equal(failed, 0);
}

/* LayerNorm-like rows: mean 10^6, spread 1 (the variance must keep the
 * precision of the spread, not of the mean). */
static void test_rows_mean_var_offset(void **state)
{
    (void)state;
    static const size_t lengths[] = {33, 4097, 100003};
    static const size_t counts[] = {50, 10, 2};
    size_t failed = 0;
    for (int k = 0; k < 2; k++) {
        clreduce_type type = k ? CLREDUCE_DOUBLE : CLREDUCE_FLOAT;
        if (!tc_type_supported(g_ctx, type))
            continue;
        for (size_t li = 0; li < ARRAY_SIZE(lengths); li++) {
            size_t length = lengths[li], rows = counts[li];
            void *data = malloc(rows * length * tc_elem_size(type));
            assert_non_null(data);
            for (size_t i = 0; i < rows * length; i++)
                tc_set_double(type, data, i, 1e6 + (2 * tc_rand_unit() - 1));
            batch b = {ROWS, CLREDUCE_OP_MEAN_VAR, type, rows, rows * length, length, 0, NULL,
                       CLREDUCE_UINT32, tc_op_variance_tolerance(type)};
            char tag[128];
            snprintf(tag, sizeof tag, "mean 1e6 rows %s %zu x %zu", clreduce_type_name(type),
                     rows, length);
            failed += run_batch(tag, &b, data);
            free(data);
        }
    }
    printf("mean_var of rows of mean 1e6: m2 relative error at most %Lg (float), %Lg (double)\n",
           tc_op_worst_m2[0], tc_op_worst_m2[1]);
    assert_int_equal(failed, 0);
}

/* ---- segments --------------------------------------------------------------------- */

typedef struct layout {
    const char *name;
    size_t segments, count;
    uint64_t *offsets;
} layout;

/* Lengths appended to o[*n]: each one's segment follows the last. */
static void push_segment(uint64_t *o, size_t *n, size_t length)
{
    o[*n + 1] = o[*n] + length;
    (*n)++;
}

/* `name`: n segments of lengths uniform in [0, below) from element `start`,
 * then one of `tail` elements where tail > 0; the input ends with the last. */
static void random_layout(layout *l, const char *name, uint64_t start, size_t n, size_t below,
                          size_t tail)
{
    l->name = name;
    l->offsets = malloc((n + 2) * sizeof(uint64_t));
    assert_non_null(l->offsets);
    l->offsets[0] = start;
    l->segments = 0;
    for (size_t i = 0; i < n; i++)
        push_segment(l->offsets, &l->segments, tc_rand_below(below));
    if (tail)
        push_segment(l->offsets, &l->segments, tail);
    l->count = (size_t)l->offsets[l->segments];
}

static void make_layouts(layout *l, size_t *count)
{
    size_t k = 0;
    /* Every segment empty, with elements around them. */
    l[k].name = "all empty";
    l[k].offsets = malloc(6 * sizeof(uint64_t));
    for (size_t i = 0; i < 6; i++)
        l[k].offsets[i] = 4;
    l[k].segments = 5;
    l[k].count = 10;
    k++;
    /* No elements at all: every result the empty one. */
    l[k].name = "no elements";
    l[k].offsets = calloc(4, sizeof(uint64_t));
    l[k].segments = 3;
    l[k].count = 0;
    k++;
    /* Thousands of segments of 0 to 5 elements. */
    random_layout(&l[k++], "tiny", 0, 3000, 6, 0);
    /* Long segments among empty and tiny ones, starting past element 0. */
    l[k].name = "huge mixed";
    static const size_t fixed[] = {0, 1, 100003, 0, 31, 33, 257, 4097, 0, 2, 70001, 1};
    l[k].offsets = malloc((ARRAY_SIZE(fixed) + 2001) * sizeof(uint64_t));
    l[k].offsets[0] = 7;
    l[k].segments = 0;
    for (size_t i = 0; i < ARRAY_SIZE(fixed); i++) {
        push_segment(l[k].offsets, &l[k].segments, fixed[i]);
        if (i == 5)
            for (size_t j = 0; j < 2000; j++)
                push_segment(l[k].offsets, &l[k].segments, tc_rand_below(41));
    }
    l[k].count = (size_t)l[k].offsets[l[k].segments] + 5;
    k++;
    /* Short segments, a mean of 8 elements, some empty, starting off a
     * vector boundary, then one that spans many work-groups' chunks. */
    random_layout(&l[k++], "short", 2, 6000, 17, 50001);
    /* A mean past the operators' chunk, which decides how their teams
     * walk on NVIDIA GPUs (segment_layouts.c): one long segment after an empty
     * one. */
    l[k].name = "one long";
    l[k].offsets = malloc(3 * sizeof(uint64_t));
    assert_non_null(l[k].offsets);
    l[k].offsets[0] = l[k].offsets[1] = 5;
    l[k].offsets[2] = 100006;
    l[k].segments = 2;
    l[k].count = 100006;
    k++;
    for (size_t i = 0; i < k; i++)
        assert_non_null(l[i].offsets);
    *count = k;
}

/* One call over the segments of layout l in data; returns its failures. */
static size_t layout_failures(const char *tag, clreduce_op op, clreduce_type type,
                              const layout *l, clreduce_type offsets_type, void *data)
{
    batch b = {SEGMENTS, op, type, l->segments, l->count, 0, 0, l->offsets, offsets_type,
               tc_op_variance_tolerance(type)};
    return run_batch(tag, &b, data);
}

static void test_segments_layouts(void **state)
{
    (void)state;
    layout layouts[6];
    size_t nl;
    make_layouts(layouts, &nl);
    size_t failed = 0;
    for (size_t oi = 0; oi < ARRAY_SIZE(batched_ops); oi++) {
        for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
            clreduce_op op = batched_ops[oi];
            clreduce_type type = tc_all_types[ti];
            if (!takes(op, type))
                continue;
            /* 64-bit offsets on a few types: each offsets type is a
             * program of its own. */
            int wide = type == CLREDUCE_FLOAT || type == CLREDUCE_DOUBLE ||
                       type == CLREDUCE_INT64;
            for (int w = 0; w <= wide; w++) {
                for (size_t li = 0; li < nl; li++) {
                    const layout *l = &layouts[li];
                    void *data = malloc((l->count ? l->count : 1) * tc_elem_size(type));
                    assert_non_null(data);
                    tc_op_fill(op, type, data, l->count);
                    char tag[128];
                    snprintf(tag, sizeof tag, "segments %s %s %s, %s offsets",
                             clreduce_op_name(op), clreduce_type_name(type), l->name,
                             w ? "64-bit" : "32-bit");
                    failed += layout_failures(tag, op, type, l,
                                              w ? CLREDUCE_UINT64 : CLREDUCE_UINT32, data);
                    free(data);
                }
            }
        }
    }
    for (size_t i = 0; i < nl; i++)
        free(layouts[i].offsets);
    assert_int_equal(failed, 0);
}

/* A plateau after each segment's first element, for argmin (first 2, then
 * 1s) or argmax (first 1, then 2s): the answer is index 1 in a segment of
 * two or more, and a piece of a long segment that counted its indices from
 * its own start would offer a smaller one. */
static void fill_plateaus(clreduce_op op, clreduce_type type, void *data, const layout *l)
{
    double first = op == CLREDUCE_OP_ARGMIN ? 2 : 1, rest = 3 - first;
    for (size_t i = 0; i < l->count; i++)
        tc_set_double(type, data, i, rest);
    for (size_t s = 0; s < l->segments; s++)
        if (l->offsets[s] < l->offsets[s + 1])
            tc_set_double(type, data, (size_t)l->offsets[s], first);
}

/* The walks NVIDIA GPUs' teams take over segments (segment_layouts.c: the vloadN
 * walk alone, or a range's head element by element and then aligned loads)
 * on any device, by the tests' switch, over the layouts whose segments
 * start off vector boundaries: argmin, argmax, minmax and mean_var of
 * random data, and argmin and argmax of plateaus; returns the failures. */
static size_t gpu_walks_failures(const char *options)
{
    static const clreduce_op ops[] = {CLREDUCE_OP_ARGMIN, CLREDUCE_OP_ARGMAX, CLREDUCE_OP_MINMAX,
                                      CLREDUCE_OP_MEAN_VAR};
    clreduce_settings settings;
    clreduce_default_settings(&settings);
    settings.build_options = options;
    clreduce_ctx *base = g_ctx, *walks = tc_context_like(base, &settings);
    g_ctx = walks;
    layout layouts[6];
    size_t nl, failed = 0;
    make_layouts(layouts, &nl);
    for (size_t oi = 0; oi < ARRAY_SIZE(ops); oi++) {
        for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
            clreduce_op op = ops[oi];
            clreduce_type type = tc_all_types[ti];
            if (!takes(op, type))
                continue;
            int plateaus = op == CLREDUCE_OP_ARGMIN || op == CLREDUCE_OP_ARGMAX;
            for (size_t li = 0; li < nl; li++) {
                const layout *l = &layouts[li];
                if (l->count < 1000)
                    continue;
                void *data = malloc(l->count * tc_elem_size(type));
                assert_non_null(data);
                for (int k = 0; k <= plateaus; k++) {
                    if (k)
                        fill_plateaus(op, type, data, l);
                    else
                        tc_op_fill(op, type, data, l->count);
                    char tag[128];
                    snprintf(tag, sizeof tag, "segments by GPU walks (%s) %s %s %s%s", options,
                             clreduce_op_name(op), clreduce_type_name(type), l->name,
                             k ? ", plateaus" : "");
                    failed += layout_failures(tag, op, type, l, CLREDUCE_UINT32, data);
                }
                free(data);
            }
        }
    }
    for (size_t i = 0; i < nl; i++)
        free(layouts[i].offsets);
    g_ctx = base;
    clreduce_destroy(walks);
    return failed;
}

static void test_segments_gpu_walks(void **state)
{
    (void)state;
    /* NVIDIA's rules; then the peeled walk for argmin and argmax too. */
    size_t failed = gpu_walks_failures("-DCLR_TEST_TEAM_WALKS=1");
    failed += gpu_walks_failures("-DCLR_TEST_TEAM_WALKS=1 -DCLR_TEST_TEAM_PEEL=1");
    assert_int_equal(failed, 0);
}

/* Argmin/argmax within segments: indices from each segment's start, ties
 * and NaN as for rows. */
static void test_segments_arg_special(void **state)
{
    (void)state;
    size_t failed = 0;
    uint64_t offsets[64];
    size_t segments = 0;
    offsets[0] = 0;
    static const size_t lengths[] = {5, 0, 33, 1, 4097, 3, 70001, 64, 2};
    for (size_t i = 0; i < ARRAY_SIZE(lengths); i++)
        push_segment(offsets, &segments, lengths[i]);
    size_t count = (size_t)offsets[segments];
    for (int k = 0; k < 2; k++) {
        clreduce_op op = k ? CLREDUCE_OP_ARGMAX : CLREDUCE_OP_ARGMIN;
        for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
            clreduce_type type = tc_all_types[ti];
            if (!takes(op, type))
                continue;
            size_t es = tc_elem_size(type);
            unsigned char *data = malloc(count * es);
            assert_non_null(data);
            /* Each segment is a "row" of the special fills, its own case. */
            for (size_t s = 0; s < segments; s++) {
                size_t len = (size_t)(offsets[s + 1] - offsets[s]);
                unsigned char *tmp = malloc((len ? len : 1) * 7 * es);
                assert_non_null(tmp);
                fill_arg_special(type, tmp, 7, len);
                memcpy(data + offsets[s] * es, tmp + (s % 7) * len * es, len * es);
                free(tmp);
            }
            batch b = {SEGMENTS, op, type, segments, count, 0, 0, offsets, CLREDUCE_UINT32, 0};
            char tag[128];
            snprintf(tag, sizeof tag, "special segments %s %s", clreduce_op_name(op),
                     clreduce_type_name(type));
            failed += run_batch(tag, &b, data);
            free(data);
        }
    }
    assert_int_equal(failed, 0);
}

/* ---- bad arguments ------------------------------------------------------------------ */

static void test_bad_arguments(void **state)
{
    (void)state;
    float input_data[100];
    unsigned char output_bytes[4 * 16]; /* four argmax results of float */
    tc_guarded g;
    tc_make_guarded(g_ctx, g_queue, input_data, ARRAY_SIZE(input_data), output_bytes,
                    sizeof output_bytes, &g);
    const clreduce_type f = CLREDUCE_FLOAT, u32 = CLREDUCE_UINT32;
    const clreduce_op argmax = CLREDUCE_OP_ARGMAX;
    static const char *const norm_words[] = {"norm2", "int32", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: norm2 of int32", CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                      norm_words,
                      clreduce_reduce_rows(g_ctx, g_queue, CLREDUCE_OP_NORM2, CLREDUCE_INT32,
                                           g.input, 0, 3, 3, 0, g.output, 0, 0, NULL, &done));
    static const char *const mean_words[] = {"mean_var", "uint64", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "segments: mean_var of uint64", CLREDUCE_ERROR_UNSUPPORTED,
                      g_ctx, mean_words,
                      clreduce_reduce_segments(g_ctx, g_queue, CLREDUCE_OP_MEAN_VAR,
                                               CLREDUCE_UINT64, g.input, 0, 10, g.input, 40, u32,
                                               2, g.output, 0, 0, NULL, &done));
    /* 16 floats would hold 3 results at offset 2; 4 argmax results do not. */
    static const char *const past_words[] = {"result", "past the end", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: argmax results past the buffer",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, past_words,
                      clreduce_reduce_rows(g_ctx, g_queue, argmax, f, g.input, 0, 3, 5, 0,
                                           g.output, 2, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "segments: argmax results past the buffer",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, past_words,
                      clreduce_reduce_segments(g_ctx, g_queue, argmax, f, g.input, 0, 10, g.input,
                                               40, u32, 3, g.output, 2, 0, NULL, &done));
    /* Rows of 2 x 8 floats (bytes 0 to 64); result 3 starts at byte 48. */
    static const char *const overlap_words[] = {"overlap", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: results overlapping the rows",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, overlap_words,
                      clreduce_reduce_rows(g_ctx, g_queue, argmax, f, g.input, 0, 2, 8, 0, g.input,
                                           3, 0, NULL, &done));
    /* Offsets at elements 40 .. 43 (bytes 160 .. 176); results 9 .. 11 are
     * bytes 144 .. 192 (as elements they would end at byte 48). */
    TC_EXPECT_FAILURE(&g, g_ctx, "segments: results overlapping the offsets",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, overlap_words,
                      clreduce_reduce_segments(g_ctx, g_queue, argmax, f, g.input, 0, 10, g.input,
                                               40, u32, 3, g.input, 9, 0, NULL, &done));
    tc_release_guarded(&g);

    /* Results right after the rows, and right before the offsets, are fine. */
    float buffer[100];
    for (size_t i = 0; i < 100; i++)
        buffer[i] = (float)i;
    uint32_t offs[4] = {0, 3, 3, 10};
    memcpy(&buffer[40], offs, sizeof offs);
    cl_mem mem = tc_make_buffer(g_ctx, sizeof buffer, buffer);
    cl_event done = NULL;
    assert_int_equal(clreduce_reduce_rows(g_ctx, g_queue, argmax, f, mem, 0, 2, 8, 0, mem, 4, 0,
                                          NULL, &done),
                     CLREDUCE_SUCCESS);
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
    assert_int_equal(clreduce_reduce_segments(g_ctx, g_queue, argmax, f, mem, 0, 10, mem, 40, u32,
                                              3, mem, 7, 0, NULL, &done),
                     CLREDUCE_SUCCESS);
    unsigned char got[sizeof buffer];
    tc_read_buffer(g_queue, mem, got, sizeof got, 1, &done);
    clReleaseEvent(done);
    clReleaseMemObject(mem);
    uint64_t index;
    memcpy(&index, got + 4 * 16 + 8, 8); /* row 0: 0 .. 7, the max at 7 */
    assert_int_equal(index, 7);
    memcpy(&index, got + 5 * 16 + 8, 8); /* row 1: 8 .. 15 */
    assert_int_equal(index, 7);
    memcpy(&index, got + 7 * 16 + 8, 8); /* segment 0: 0 .. 2 */
    assert_int_equal(index, 2);
    memcpy(&index, got + 8 * 16 + 8, 8); /* segment 1: empty */
    assert_true(index == UINT64_MAX);
    memcpy(&index, got + 9 * 16 + 8, 8); /* segment 2: 3 .. 9, the max at 9 */
    assert_int_equal(index, 6);

    /* The blocking forms: the same checks, results untouched. */
    uint64_t results_store[9];
    unsigned char *results = (unsigned char *)results_store;
    memset(results, TC_SENTINEL_BYTE, sizeof results_store);
    assert_int_equal(clreduce_reduce_rows_host(g_ctx, CLREDUCE_OP_MEAN_VAR, CLREDUCE_INT32,
                                               input_data, 3, 3, 0, results),
                     CLREDUCE_ERROR_UNSUPPORTED);
    assert_int_equal(clreduce_reduce_rows_host(g_ctx, CLREDUCE_OP_DOT, f, input_data, 3, 3, 0,
                                               results),
                     CLREDUCE_ERROR_UNSUPPORTED);
    assert_true(tc_contains(clreduce_last_error(g_ctx), "dot"));
    /* A result that overlaps the input by its width (bytes 0 .. 16 against
     * 12 .. 20), not by an element's. */
    assert_int_equal(clreduce_reduce_rows_host(g_ctx, argmax, f, (float *)(results + 12), 1, 2,
                                               0, results),
                     CLREDUCE_ERROR_INVALID_ARGUMENT);
    for (size_t i = 0; i < sizeof results_store; i++)
        assert_int_equal(results[i], TC_SENTINEL_BYTE);
    /* Rows of nothing on the host: the result of no element in each. */
    assert_int_equal(clreduce_reduce_rows_host(g_ctx, argmax, f, NULL, 3, 0, 0, results),
                     CLREDUCE_SUCCESS);
    for (int r = 0; r < 3; r++) {
        memcpy(&index, results + r * 16 + 8, 8);
        assert_true(index == UINT64_MAX);
    }
}

int main(void)
{
    g_ctx = tc_start("unit.batched_operators", &g_queue, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_arguments),       cmocka_unit_test(test_rows_arg_special),
        cmocka_unit_test(test_rows_mean_var_offset), cmocka_unit_test(test_segments_arg_special),
        cmocka_unit_test(test_rows_shapes),         cmocka_unit_test(test_segments_layouts),
        cmocka_unit_test(test_segments_gpu_walks),
    };
    int failed = tc_run_tests("unit.batched_operators", tests, ARRAY_SIZE(tests));
    return tc_finish(g_ctx, failed, g_queue, NULL);
}
