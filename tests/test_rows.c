/* unit.rows: clreduce_reduce_rows and clreduce_reduce_rows_host against a
 * CPU reference, for every operator and type, at row lengths from 0 to past
 * a million and row counts from 1 to 10^5 (so that every kernel shape runs:
 * many rows per work-group, a sub-group or a work-group per row, several
 * work-groups per row; on CPU devices, which give rows a work-item each,
 * again with the teams), pitched rows with poisoned padding, the input at an
 * offset between poisoned elements and the results between sentinels;
 * float sums against clreduce.h's bound; NaN and signed zeros; determinism;
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
#define MAX_ELEMENTS ((size_t)4 << 20)

/* ---- the bound ---------------------------------------------------------------- */

/* m of batched.h for a row of n elements: n / w + 4 v + 2 for sum, 64 more
 * for the operators past max. */
static size_t row_chain_length(size_t n, const void *arg)
{
    const clreduce_settings *t = arg;
    return n / t->work_group_size + 4 * t->vector_width + 2;
}

static size_t operator_row_chain_length(size_t n, const void *arg)
{
    return row_chain_length(n, arg) + 64;
}

/* ---- one call -------------------------------------------------------------------- */

typedef struct rows_case {
    clreduce_op op;
    clreduce_type type;
    size_t rows, length, pitch; /* pitch: as passed (0 means length) */
    size_t offset;              /* poisoned elements before the first row */
    size_t result_offset;       /* sentinels before the first result */
    cl_command_queue queue;     /* NULL: g_queue */
} rows_case;

/* Lays the rows out at c->offset of a buffer with every element that is not
 * part of a row (before, between in the padding, after) poisoned, reduces
 * them into a sentinel-filled result buffer, and checks every result and
 * the sentinels around them. `data` holds rows * pitch elements as laid out
 * (padding included: it is overwritten with poison here). */
static void run_rows(const rows_case *c, void *data, tcr_outcome *o)
{
    memset(o, 0, sizeof *o);
    size_t es = clreduce_type_size(c->type);
    size_t pitch = c->pitch ? c->pitch : c->length;
    size_t total = c->offset + tcr_span(c->rows, c->length, pitch) + 3;
    unsigned char *host = tcr_poisoned_buffer(c->op, c->type, total);
    tcr_copy_rows(host + c->offset * es, data, c->rows, c->length, pitch, es);
    size_t rcount = c->result_offset + c->rows + 2;
    unsigned char *res = tcr_sentinel_buffer(rcount * es);
    cl_mem in = tc_make_buffer(g_ctx, total * es, host);
    cl_mem out = tc_make_buffer(g_ctx, rcount * es, res);
    cl_command_queue q = c->queue ? c->queue : g_queue;
    cl_event done = NULL;
    o->status = clreduce_reduce_rows(g_ctx, q, c->op, c->type, in, c->offset, c->rows, c->length,
                                     c->pitch, out, c->result_offset, 0, NULL, &done);
    tcr_read_back(o, g_ctx, q, out, res, rcount * es, done);
    tcr_take_results(o, res, rcount, c->result_offset, c->rows, es);
    if (o->status == CLREDUCE_SUCCESS) {
        size_t *starts = malloc((c->rows ? c->rows : 1) * sizeof *starts);
        size_t *lengths = malloc((c->rows ? c->rows : 1) * sizeof *lengths);
        assert_true(starts && lengths);
        for (size_t r = 0; r < c->rows; r++) {
            starts[r] = r * pitch;
            lengths[r] = c->length;
        }
        /* The reference reads the rows where they lie in `host`. */
        tcr_check_results(o, g_ctx, c->op, c->type, host + c->offset * es, starts, lengths,
                          c->rows,
                          c->op > CLREDUCE_OP_MAX ? operator_row_chain_length : row_chain_length);
        free(starts);
        free(lengths);
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    free(host);
    free(res);
}

/* Runs a case and reports it; returns 1 when it passed. */
static int check_rows(const char *tag, const rows_case *c, void *data)
{
    tcr_outcome o;
    run_rows(c, data, &o);
    return tcr_report(tag, &o, "op=%s type=%s rows=%zu length=%zu pitch=%zu offset=%zu "
                      "result_offset=%zu", tc_op_name(c->op), tc_type_name(c->type), c->rows,
                      c->length, c->pitch, c->offset, c->result_offset);
}

/* ---- tests -------------------------------------------------------------------------- */

static const size_t lengths[] = {0, 1, 2, 31, 32, 33, 255, 1023, 1025, 4097, 100000, 1000003};
static const size_t row_counts[] = {1, 3, 64, 1000, 100000};

/* Case k of the shapes test: the offsets turn with k. */
static int shapes_case(clreduce_op op, clreduce_type type, size_t rows, size_t length, size_t pad,
                       size_t k, void *data)
{
    rows_case c = {op, type, rows, length, pad ? length + pad : 0, k % 5, 1 + k % 2, NULL};
    return check_rows("shapes", &c, data);
}

/* Every type and operator at every row length, with the row counts that fit
 * MAX_ELEMENTS (the longest rows with fewer types), pitched or not. */
static void test_shapes(void **state)
{
    (void)state;
    tcr_test_shapes(g_ctx, lengths, ARRAY_SIZE(lengths), row_counts, ARRAY_SIZE(row_counts),
                    MAX_ELEMENTS, shapes_case);
}

/* The shapes test again on a CPU device, in a context whose build options
 * carry the switch that keeps the teams of sum, min and max there (a
 * sub-group, or work-items in local memory, per row); without it, rows of
 * those operators are a work-item's each on CPU devices. */
static void test_shapes_teams(void **state)
{
    (void)state;
    if (!(tc_device_type(g_ctx) & CL_DEVICE_TYPE_CPU)) {
        print_message("note: the teams are the default shapes on this device\n");
        skip();
    }
    clreduce_settings settings;
    clreduce_default_settings(&settings);
    settings.build_options = "-DCLR_TEST_ROWS_TEAMS=1";
    clreduce_ctx *base = g_ctx, *teams = tc_context_like(base, &settings);
    g_ctx = teams;
    tcr_test_shapes(g_ctx, lengths, ARRAY_SIZE(lengths), row_counts, ARRAY_SIZE(row_counts),
                    MAX_ELEMENTS, shapes_case);
    g_ctx = base;
    clreduce_destroy(teams);
}

/* Rows of up to a warp's vectors by teams of lanes of one warp, several
 * rows a team, reduced by shuffles (src/rows.c's rows_by_lanes()), which
 * only NVIDIA GPUs' inline PTX shuffles run: every length up to 128
 * elements at which the team or the elements after the last whole vector
 * change, with the switch that takes them at any such length. */
static void test_shapes_lanes(void **state)
{
    (void)state;
    if (!tc_is_nvidia_gpu(g_ctx)) {
        print_message("note: teams of lanes run on NVIDIA GPUs only\n");
        skip();
    }
    static const size_t short_lengths[] = {1,  2,  3,  4,  5,  7,  8,   9,   15,  16,
                                           17, 31, 32, 33, 63, 64, 65, 127, 128};
    clreduce_settings settings;
    clreduce_default_settings(&settings);
    settings.build_options = "-DCLR_TEST_ROWS_LANES=1";
    clreduce_ctx *base = g_ctx, *lanes = tc_context_like(base, &settings);
    g_ctx = lanes;
    tcr_test_shapes(g_ctx, short_lengths, ARRAY_SIZE(short_lengths), row_counts,
                    ARRAY_SIZE(row_counts), MAX_ELEMENTS, shapes_case);
    g_ctx = base;
    clreduce_destroy(lanes);
}

/* Float sums (and sums of absolute values, whose teams are the
 * operators') of long rows against the bound, of values of mixed
 * magnitudes, and of a one then values just under u in each row (lost
 * where a lane adds them to the one in a long chain); prints the largest
 * error as a fraction of the bound. */
static void test_float_bound(void **state)
{
    (void)state;
    tc_seed_for("float_bound");
    static const size_t shapes[][2] = {{1, 1000003}, {4, 262147}, {3000, 1025}, {100000, 33},
                                       {30000, 64},  {500, 2048},  {200, 8192}};
    static const clreduce_op ops[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_SUM_ABS};
    void *data = malloc(MAX_ELEMENTS * 8);
    assert_non_null(data);
    int failures = 0;
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = ti ? CLREDUCE_DOUBLE : CLREDUCE_FLOAT;
        if (!tc_type_supported(g_ctx, type))
            continue;
        for (size_t si = 0; si < ARRAY_SIZE(shapes); si++)
            for (size_t k = 0; k < 2 * ARRAY_SIZE(ops); k++) {
                size_t rows = shapes[si][0], length = shapes[si][1];
                int tiny = k % 2;
                if (tiny)
                    tc_fill_ones_then_tiny(type, data, rows * length, length, 1);
                else
                    tcr_fill_mixed_magnitudes(type, data, rows * length);
                rows_case c = {ops[k / 2], type, rows, length, 0, 2, 1, NULL};
                tcr_outcome o;
                run_rows(&c, data, &o);
                failures += !tcr_report_bound(&o, "%s %s rows=%zu length=%zu %s",
                                              clreduce_op_name(c.op), tc_type_name(type), rows,
                                              length, tiny ? "a one, then values under u"
                                                           : "mixed magnitudes");
            }
    }
    free(data);
    assert_int_equal(failures, 0);
}

/* NaN, infinities and signed zeros in min and max (and inf in sums), row by
 * row: each row gets its own special values at its own places. */
static void test_special_values(void **state)
{
    (void)state;
    tc_seed_for("special_values");
    static const size_t shapes[][2] = {{200, 3}, {50, 33}, {20, 1025}, {2, 70001}};
    void *data = malloc(MAX_ELEMENTS * 8);
    assert_non_null(data);
    int failures = 0;
    tcr_reset_reports();
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = ti ? CLREDUCE_DOUBLE : CLREDUCE_FLOAT;
        if (!tc_type_supported(g_ctx, type))
            continue;
        for (size_t si = 0; si < ARRAY_SIZE(shapes); si++) {
            size_t rows = shapes[si][0], length = shapes[si][1];
            for (size_t oi = 0; oi < ARRAY_SIZE(tc_all_ops); oi++) {
                clreduce_op op = tc_all_ops[oi];
                tc_fill_random(type, data, rows * length);
                for (size_t r = 0; r < rows; r++) {
                    size_t at = r * length + tc_rand_below(length);
                    switch (r % 5) {
                    case 0: tc_set_double(type, data, at, (double)NAN); break;
                    case 1: tc_set_double(type, data, r * length + length - 1, (double)NAN); break;
                    case 2:
                        tc_set_double(type, data, at, (double)INFINITY);
                        tc_set_double(type, data, r * length, -(double)INFINITY);
                        break;
                    case 3:
                        /* zeros of both signs only */
                        for (size_t i = 0; i < length; i++)
                            tc_set_double(type, data, r * length + i,
                                          (tc_rand64() & 1) ? -0.0 : 0.0);
                        tc_set_double(type, data, at, -0.0);
                        tc_set_double(type, data, r * length + (at - r * length + 1) % length,
                                      0.0);
                        break;
                    default: break;
                    }
                }
                rows_case c = {op, type, rows, length, 0, 1, 0, NULL};
                failures += !check_rows("special values", &c, data);
            }
        }
    }
    free(data);
    assert_int_equal(failures, 0);
}

/* Zeros of both signs: min gives -0.0 and max +0.0, whatever the shape. */
static void test_signed_zeros(void **state)
{
    (void)state;
    tc_seed_for("signed_zeros");
    static const size_t shapes[][2] = {{300, 2}, {64, 100}, {8, 3000}, {1, 300000}};
    float *data = malloc(300000 * sizeof *data);
    float got[300];
    assert_non_null(data);
    for (size_t si = 0; si < ARRAY_SIZE(shapes); si++) {
        size_t rows = shapes[si][0], length = shapes[si][1];
        for (size_t i = 0; i < rows * length; i++)
            data[i] = (tc_rand64() & 1) ? -0.0f : 0.0f;
        for (size_t r = 0; r < rows; r++) {
            data[r * length + tc_rand_below(length)] = -0.0f;
            data[r * length + tc_rand_below(length)] = 0.0f;
        }
        /* make sure each row has both signs */
        for (size_t r = 0; r < rows; r++) {
            data[r * length] = -0.0f;
            data[r * length + length - 1] = 0.0f;
        }
        for (int op = CLREDUCE_OP_MIN; op <= CLREDUCE_OP_MAX; op++) {
            assert_int_equal(clreduce_reduce_rows_host(g_ctx, (clreduce_op)op, CLREDUCE_FLOAT,
                                                       data, rows, length, 0, got),
                             CLREDUCE_SUCCESS);
            for (size_t r = 0; r < rows; r++) {
                if (got[r] != 0.0f || (signbit(got[r]) != 0) != (op == CLREDUCE_OP_MIN))
                    fail_msg("rows=%zu length=%zu %s row %zu: got %g (sign %d)", rows, length,
                             tc_op_name((clreduce_op)op), r, (double)got[r],
                             signbit(got[r]) != 0);
            }
        }
    }
    free(data);
}

/* The blocking call: pitched rows, every type, and its empty cases. */
static void test_host(void **state)
{
    (void)state;
    tc_seed_for("host");
    const size_t rows = 77, length = 1500, pitch = 1503;
    void *data = malloc(rows * pitch * 8);
    void *got = malloc(rows * 8);
    assert_true(data && got);
    for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
        clreduce_type type = tc_all_types[ti];
        if (!tc_type_supported(g_ctx, type))
            continue;
        for (size_t oi = 0; oi < ARRAY_SIZE(tc_all_ops); oi++) {
            clreduce_op op = tc_all_ops[oi];
            tcr_fill_for_op(op, type, data, rows * pitch, ti + oi);
            assert_int_equal(clreduce_reduce_rows_host(g_ctx, op, type, data, rows, length, pitch,
                                                       got),
                             CLREDUCE_SUCCESS);
            size_t starts[77], lens[77];
            for (size_t r = 0; r < rows; r++) {
                starts[r] = r * pitch;
                lens[r] = length;
            }
            tcr_assert_results(g_ctx, op, type, data, starts, lens, rows, got, row_chain_length);
        }
    }
    /* Rows of nothing: the identity in every result; no rows: nothing. */
    for (size_t oi = 0; oi < ARRAY_SIZE(tc_all_ops); oi++) {
        tc_value want;
        tc_identity(tc_all_ops[oi], CLREDUCE_INT64, &want);
        memset(got, TC_SENTINEL_BYTE, rows * 8);
        assert_int_equal(clreduce_reduce_rows_host(g_ctx, tc_all_ops[oi], CLREDUCE_INT64, data,
                                                   5, 0, 0, got),
                         CLREDUCE_SUCCESS);
        for (size_t r = 0; r < 5; r++)
            assert_memory_equal((unsigned char *)got + r * 8, want.bytes, 8);
        assert_int_equal(((unsigned char *)got)[5 * 8], TC_SENTINEL_BYTE);
        assert_int_equal(clreduce_reduce_rows_host(g_ctx, tc_all_ops[oi], CLREDUCE_INT64, NULL,
                                                   0, 10, 0, NULL),
                         CLREDUCE_SUCCESS);
    }
    free(data);
    free(got);
}

/* Length 0 writes the identity to every result (through a fill), rows 0
 * enqueues a marker when done is asked and nothing otherwise. */
static void test_empty(void **state)
{
    (void)state;
    float sentinel[8];
    memset(sentinel, TC_SENTINEL_BYTE, sizeof sentinel);
    cl_mem in = tc_make_buffer(g_ctx, 16 * sizeof(float), NULL);
    cl_mem out = tc_make_buffer(g_ctx, sizeof sentinel, sentinel);
    for (size_t oi = 0; oi < ARRAY_SIZE(tc_all_ops); oi++) {
        cl_event done = NULL;
        assert_int_equal(clreduce_reduce_rows(g_ctx, g_queue, tc_all_ops[oi], CLREDUCE_FLOAT, in,
                                              16, 5, 0, 0, out, 2, 0, NULL, &done),
                         CLREDUCE_SUCCESS);
        assert_non_null(done);
        float got[8];
        tc_read_buffer(g_queue, out, got, sizeof got, 1, &done);
        clReleaseEvent(done);
        tc_value want;
        tc_identity(tc_all_ops[oi], CLREDUCE_FLOAT, &want);
        for (size_t i = 0; i < 8; i++) {
            if (i >= 2 && i < 7)
                assert_memory_equal(&got[i], want.bytes, 4);
            else
                assert_memory_equal(&got[i], &sentinel[i], 4);
        }
    }
    cl_event done = NULL;
    assert_int_equal(clreduce_reduce_rows(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, in, 0,
                                          0, 7, 0, out, 0, 0, NULL, &done),
                     CLREDUCE_SUCCESS);
    assert_non_null(done);
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    assert_int_equal(clreduce_reduce_rows(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, in, 0,
                                          0, 7, 0, out, 0, 0, NULL, NULL),
                     CLREDUCE_SUCCESS);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
}

/* A case of the determinism test: the same rows at two addresses. */
static void determinism_case(size_t rows, size_t length, void *data)
{
    rows_case c = {CLREDUCE_OP_SUM, CLREDUCE_FLOAT, rows, length, 0, 1, 1, NULL};
    tcr_outcome runs[2];
    run_rows(&c, data, &runs[0]);
    c.offset = 4; /* another address: the same order of combination */
    run_rows(&c, data, &runs[1]);
    tcr_assert_same_results(runs, 2, rows * 4, "rows=%zu length=%zu", rows, length);
}

/* The same rows twice give the same bits, for every kernel shape. */
static void test_determinism(void **state)
{
    (void)state;
    tcr_test_determinism(determinism_case);
}

/* The shapes of the out-of-order test: a split shape (two launches) and
 * many rows. */
static const size_t queue_shapes[][2] = {{1, 500001}, {2, 200003}, {20000, 17}, {777, 999}};

static int out_of_order_case(cl_command_queue q, int round, size_t i, void *data)
{
    (void)round;
    tc_fill_random(CLREDUCE_INT32, data, queue_shapes[i][0] * queue_shapes[i][1]);
    rows_case c = {CLREDUCE_OP_SUM, CLREDUCE_INT32, queue_shapes[i][0], queue_shapes[i][1], 0, 3,
                   1, q};
    return check_rows("out-of-order queue", &c, data);
}

/* An out-of-order queue, called again and again with fresh data. */
static void test_out_of_order(void **state)
{
    (void)state;
    tcr_test_out_of_order(g_ctx, 3, ARRAY_SIZE(queue_shapes), MAX_ELEMENTS * 4,
                          out_of_order_case);
}

/* ---- bad arguments ----------------------------------------------------------------- */

static void test_bad_arguments(void **state)
{
    (void)state;
    float input_data[100];
    unsigned char output_bytes[16 * sizeof(float)];
    tc_guarded g;
    tc_make_guarded(g_ctx, g_queue, input_data, ARRAY_SIZE(input_data), output_bytes,
                    sizeof output_bytes, &g);
    const clreduce_op sum = CLREDUCE_OP_SUM;
    const clreduce_type f = CLREDUCE_FLOAT;
    static const char *const pitch_words[] = {"row_pitch", "row_length", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "pitch below the row length", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, pitch_words,
                      clreduce_reduce_rows(g_ctx, g_queue, sum, f, g.input, 0, 3, 10, 9, g.output,
                                           0, 0, NULL, &done));
    static const char *const overflow_words[] = {"rows", "pitch", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "rows * pitch overflows", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, overflow_words,
                      clreduce_reduce_rows(g_ctx, g_queue, sum, f, g.input, 0, SIZE_MAX / 2, 4, 8,
                                           g.output, 0, 0, NULL, &done));
    static const char *const input_words[] = {"input", "past the end", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "last row past the input", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, input_words,
                      clreduce_reduce_rows(g_ctx, g_queue, sum, f, g.input, 1, 10, 10, 11,
                                           g.output, 0, 0, NULL, &done));
    static const char *const result_words[] = {"result", "past the end", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "results past the result buffer",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, result_words,
                      clreduce_reduce_rows(g_ctx, g_queue, sum, f, g.input, 0, 10, 5, 0, g.output,
                                           7, 0, NULL, &done));
    static const char *const overlap_words[] = {"overlap", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "results overlapping the rows", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, overlap_words,
                      clreduce_reduce_rows(g_ctx, g_queue, sum, f, g.input, 0, 10, 5, 6, g.input,
                                           40, 0, NULL, &done));
    /* The padding of the last row is not part of the span: results right
     * after the last row's end are fine; one element into it is not. */
    TC_EXPECT_FAILURE(&g, g_ctx, "results overlapping the last row",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, overlap_words,
                      clreduce_reduce_rows(g_ctx, g_queue, sum, f, g.input, 0, 4, 5, 10, g.input,
                                           34, 0, NULL, &done));
    static const char *const op_words[] = {"op", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "unknown op", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, op_words,
                      clreduce_reduce_rows(g_ctx, g_queue, (clreduce_op)CLREDUCE_OP_COUNT, f,
                                           g.input, 0, 3, 3, 0, g.output, 0, 0, NULL, &done));
    static const char *const dot_words[] = {"dot", "two inputs", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "dot (two inputs)", CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                      dot_words,
                      clreduce_reduce_rows(g_ctx, g_queue, CLREDUCE_OP_DOT, f, g.input, 0, 3, 3,
                                           0, g.output, 0, 0, NULL, &done));
    static const char *const type_words[] = {"type", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "unknown type", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      type_words,
                      clreduce_reduce_rows(g_ctx, g_queue, sum, (clreduce_type)9, g.input, 0, 3,
                                           3, 0, g.output, 0, 0, NULL, &done));
    static const char *const null_words[] = {"NULL", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "NULL input", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      null_words,
                      clreduce_reduce_rows(g_ctx, g_queue, sum, f, NULL, 0, 3, 3, 0, g.output, 0,
                                           0, NULL, &done));
    /* The blocking call: the same checks, and results untouched. */
    float results[4] = {1, 2, 3, 4};
    assert_int_equal(clreduce_reduce_rows_host(g_ctx, sum, f, input_data, 3, 10, 9, results),
                     CLREDUCE_ERROR_INVALID_ARGUMENT);
    assert_true(tc_contains(clreduce_last_error(g_ctx), "row_pitch"));
    assert_int_equal(clreduce_reduce_rows_host(g_ctx, sum, f, NULL, 3, 10, 0, results),
                     CLREDUCE_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clreduce_reduce_rows_host(g_ctx, sum, f, input_data, 3, 10, 0, NULL),
                     CLREDUCE_ERROR_INVALID_ARGUMENT);
    assert_true(results[0] == 1 && results[3] == 4);
    /* Results right after the last row's end (in its would-be padding). */
    cl_event done = NULL;
    assert_int_equal(clreduce_reduce_rows(g_ctx, g_queue, sum, f, g.input, 0, 4, 5, 10, g.input,
                                          35, 0, NULL, &done),
                     CLREDUCE_SUCCESS);
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
    tc_release_guarded(&g);
}

int main(void)
{
    g_ctx = tc_start("unit.rows", &g_queue, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_arguments), cmocka_unit_test(test_empty),
        cmocka_unit_test(test_host),          cmocka_unit_test(test_signed_zeros),
        cmocka_unit_test(test_special_values), cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_float_bound),   cmocka_unit_test(test_out_of_order),
        cmocka_unit_test(test_shapes),        cmocka_unit_test(test_shapes_teams),
        cmocka_unit_test(test_shapes_lanes),
    };
    int failed = tc_run_tests("unit.rows", tests, ARRAY_SIZE(tests));
    return tc_finish(g_ctx, failed, g_queue, NULL);
}
