/* unit.custom_rows: rows and segments reduced with user-defined operators
 * (clreduce_reduce_rows_custom, clreduce_reduce_segments_custom and their _host
 * forms) against a CPU reference, every result compared bit for bit: a struct
 * accumulator of 12 bytes (min, max, count of floats), an index sum
 * (commutative, reads i), a 2x2 integer matrix product that reads i and an
 * affine map of two inputs (neither commutes: the order of elements is
 * checked), a weighted sum of two inputs, and "first element" (no identity),
 * all in test_common_custom.c. Rows of 1 to 10^5 + 3 elements, pitched rows
 * with poisoned padding, rows long enough to be cut into parts, segments of
 * awkward lengths mixed with empty and tiny ones, 32- and 64-bit offsets at an
 * offset; the inputs at offsets between poisoned elements and the results
 * between sentinels. Empty rows and segments (the identity, filled or copied,
 * on in-order and out-of-order queues; zero bytes or a refusal without
 * identity), and bad arguments refused with nothing written. The row scans of
 * the same operators are unit.custom_scan_rows.
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

#include "test_common_custom.h"

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;

#define OFFSETS_OFFSET 1
/* Elements of one case at most: keeps the suite quick on two CPU cores. */
#define MAX_ELEMENTS ((size_t)3 << 20)

/* ---- one call --------------------------------------------------------------------------- */

/* Compares results[0 .. count) with the reference; prints the first few
 * wrong ones and fails. */
static void check_results(const char *what, const tcc_op *h, const tcc_batch *b,
                          const unsigned char *x, const unsigned char *y,
                          const unsigned char *results)
{
    size_t as = h->desc.acc_size, wrong = 0;
    unsigned char want[TCC_MAX_ACC];
    for (size_t r = 0; r < tcc_results_of(b); r++) {
        size_t start, n;
        tcc_range_of(b, r, &start, &n);
        tcc_reference(h, x + start * h->es, y ? y + start * h->es : NULL, n, want);
        if (memcmp(results + r * as, want, as) == 0)
            continue;
        if (wrong++ < 5) {
            char got_hex[2 * TCC_MAX_ACC + 1], want_hex[2 * TCC_MAX_ACC + 1];
            for (size_t k = 0; k < as; k++) {
                snprintf(got_hex + 2 * k, 3, "%02x", results[r * as + k]);
                snprintf(want_hex + 2 * k, 3, "%02x", want[k]);
            }
            print_error("%s: %s result %zu (%zu elements from %zu): %s, want %s\n", what,
                        h->desc.name, r, n, start, got_hex, want_hex);
        }
    }
    if (wrong)
        print_error("%s: %s: %zu of %zu results wrong\n", what, h->desc.name, wrong,
                    tcc_results_of(b));
    assert_int_equal(wrong, 0);
}

/* Runs the batch on the device, the input(s) at offsets between poison,
 * the offsets at OFFSETS_OFFSET, the results at TCC_RESULT_OFFSET between
 * sentinels, and checks every result and sentinel. */
static void run_device(const char *what, const tcc_op *h, clreduce_operator *op,
                       const tcc_batch *b, const unsigned char *x, const unsigned char *y)
{
    size_t as = h->desc.acc_size, count = tcc_results_of(b);
    size_t rtotal = TCC_RESULT_OFFSET + count + 2;
    unsigned char *res = malloc(rtotal * as);
    assert_non_null(res);
    memset(res, TC_SENTINEL_BYTE, rtotal * as);
    cl_mem in = tcc_input_buffer(g_ctx, h, b, x, TCC_IN_OFFSET);
    cl_mem in2 = y ? tcc_input_buffer(g_ctx, h, b, y, TCC_IN2_OFFSET) : NULL;
    cl_mem out = tc_make_buffer(g_ctx, rtotal * as, res);
    cl_mem ob = NULL;
    cl_event done = NULL;
    cl_command_queue q = b->queue ? b->queue : g_queue;
    clreduce_status st;
    if (b->offsets) {
        size_t os = clreduce_type_size(b->offsets_type), ototal = OFFSETS_OFFSET + count + 2;
        unsigned char *offs = malloc(ototal * os);
        assert_non_null(offs);
        memset(offs, 0xee, ototal * os);
        for (size_t i = 0; i <= count; i++) {
            uint32_t v32 = (uint32_t)b->offsets[i];
            memcpy(offs + (OFFSETS_OFFSET + i) * os,
                   os == 4 ? (void *)&v32 : (void *)&b->offsets[i], os);
        }
        ob = tc_make_buffer(g_ctx, ototal * os, offs);
        free(offs);
        st = clreduce_reduce_segments_custom(g_ctx, q, op, in, TCC_IN_OFFSET, in2, TCC_IN2_OFFSET,
                                             b->span, ob, OFFSETS_OFFSET, b->offsets_type, count,
                                             out, TCC_RESULT_OFFSET, 0, NULL, &done);
    } else {
        st = clreduce_reduce_rows_custom(g_ctx, q, op, in, TCC_IN_OFFSET, in2, TCC_IN2_OFFSET,
                                         b->rows, b->length, b->pitch, out, TCC_RESULT_OFFSET, 0,
                                         NULL, &done);
    }
    if (st != CLREDUCE_SUCCESS)
        print_error("%s: %s: %s: %s\n", what, h->desc.name, clreduce_status_string(st),
                    clreduce_last_error(g_ctx));
    assert_int_equal(st, CLREDUCE_SUCCESS);
    tc_read_buffer(q, out, res, rtotal * as, 1, &done);
    clReleaseEvent(done);
    size_t changed = tc_first_changed_outside(res, rtotal, TCC_RESULT_OFFSET, count, as);
    if (changed != SIZE_MAX)
        print_error("%s: %s: result buffer element %zu outside the results changed\n", what,
                    h->desc.name, changed);
    assert_true(changed == SIZE_MAX);
    check_results(what, h, b, x, y, res + TCC_RESULT_OFFSET * as);
    if (ob)
        clReleaseMemObject(ob);
    clReleaseMemObject(out);
    if (in2)
        clReleaseMemObject(in2);
    clReleaseMemObject(in);
    free(res);
}

/* Runs the batch through the _host form (inputs dense from element 0). */
static void run_host(const char *what, const tcc_op *h, clreduce_operator *op, const tcc_batch *b,
                     const unsigned char *x, const unsigned char *y)
{
    size_t as = h->desc.acc_size, count = tcc_results_of(b);
    unsigned char *res = malloc((count + 1) * as);
    assert_non_null(res);
    clreduce_status st;
    if (b->offsets) {
        uint32_t *o32 = malloc((count + 1) * sizeof *o32);
        assert_non_null(o32);
        for (size_t i = 0; i <= count; i++)
            o32[i] = (uint32_t)b->offsets[i];
        st = clreduce_reduce_segments_custom_host(
            g_ctx, op, x, y, b->span,
            b->offsets_type == CLREDUCE_UINT32 ? (const void *)o32 : (const void *)b->offsets,
            b->offsets_type, count, res);
        free(o32);
    } else {
        st = clreduce_reduce_rows_custom_host(g_ctx, op, x, y, b->rows, b->length, b->pitch, res);
    }
    if (st != CLREDUCE_SUCCESS)
        print_error("%s (host): %s: %s: %s\n", what, h->desc.name, clreduce_status_string(st),
                    clreduce_last_error(g_ctx));
    assert_int_equal(st, CLREDUCE_SUCCESS);
    check_results(what, h, b, x, y, res);
    free(res);
}

/* ---- rows ---------------------------------------------------------------------------- */

static const size_t row_lengths[] = {1, 31, 33, 255, 257, 4097, 100003};
static const size_t row_counts[] = {1, 7, 300};

static void rows_of(const tcc_op *h, int host_too)
{
    clreduce_operator *op = tcc_create_or_fail(g_ctx, h);
    size_t cases = 0;
    for (size_t li = 0; li < ARRAY_SIZE(row_lengths); li++) {
        for (size_t ri = 0; ri < ARRAY_SIZE(row_counts); ri++) {
            size_t length = row_lengths[li], rows = row_counts[ri];
            size_t pitch = (li + ri) % 2 ? length + 3 : 0;
            size_t span = (rows - 1) * (pitch ? pitch : length) + length;
            if (span > MAX_ELEMENTS)
                continue;
            tcc_batch b = {.rows = rows, .length = length, .pitch = pitch, .span = span};
            unsigned char *x, *y;
            tcc_make_inputs(h, span, &x, &y);
            char what[96];
            snprintf(what, sizeof what, "%zu rows of %zu, pitch %zu", rows, length, pitch);
            run_device(what, h, op, &b, x, y);
            if (host_too && rows * length < 20000)
                run_host(what, h, op, &b, x, y);
            free(y);
            free(x);
            cases++;
        }
    }
    /* Two long rows: several work-groups per row, their parts' accumulators
     * combined by a second launch. */
    tcc_batch b = {.rows = 2, .length = TC_LARGE_COUNT, .pitch = TC_LARGE_COUNT + 1,
               .span = 2 * TC_LARGE_COUNT + 1};
    unsigned char *x, *y;
    tcc_make_inputs(h, b.span, &x, &y);
    run_device("2 rows of 2^20 + 7", h, op, &b, x, y);
    free(y);
    free(x);
    print_message("%s: %zu row shapes and two long rows\n", h->desc.name, cases);
    clreduce_operator_release(op);
}

static void test_rows_struct(void **state)
{
    (void)state;
    tc_seed_for("rows_struct");
    rows_of(&tcc_op_stats, 1);
}

static void test_rows_index_sum(void **state)
{
    (void)state;
    tc_seed_for("rows_index_sum");
    rows_of(&tcc_op_isum, 0);
}

static void test_rows_matrix_product(void **state)
{
    (void)state;
    tc_seed_for("rows_matrix_product");
    rows_of(&tcc_op_mat, 1);
}

static void test_rows_affine(void **state)
{
    (void)state;
    tc_seed_for("rows_affine");
    rows_of(&tcc_op_affine, 1);
}

static void test_rows_weighted(void **state)
{
    (void)state;
    tc_seed_for("rows_weighted");
    rows_of(&tcc_op_wdot, 0);
}

static void test_rows_first(void **state)
{
    (void)state;
    tc_seed_for("rows_first");
    rows_of(&tcc_op_first, 1);
}

/* ---- segments ------------------------------------------------------------------------ */

static const size_t segment_lengths[] = {0, 1, 31, 33, 255, 257, 4097, 100003};

typedef enum layout_kind { MIXED, TINY, ONE_LONG, LONG_AMONG_TINY, LAYOUTS } layout_kind;
static const char *const layout_names[] = {"mixed", "tiny", "one long", "long among tiny"};

/* Offsets of a layout (segments + 1 of them) into *offsets (malloc'd);
 * returns the count of elements, a few past the last segment's end. */
static size_t make_layout(layout_kind kind, int empty_ok, uint64_t **offsets, size_t *segments)
{
    size_t n = kind == MIXED ? 120 : kind == TINY ? 5000 : kind == ONE_LONG ? 1 : 3001;
    uint64_t *o = malloc((n + 1) * sizeof *o);
    assert_non_null(o);
    o[0] = kind == ONE_LONG ? 0 : 7; /* elements before the first segment */
    for (size_t i = 0; i < n; i++) {
        size_t len;
        if (kind == MIXED)
            len = segment_lengths[tc_rand_below(ARRAY_SIZE(segment_lengths))];
        else if (kind == ONE_LONG || (kind == LONG_AMONG_TINY && i == 1500))
            len = 100003;
        else
            len = tc_rand_below(4);
        if (len == 0 && !empty_ok)
            len = 1;
        o[i + 1] = o[i] + len;
    }
    *offsets = o;
    *segments = n;
    return (size_t)o[n] + 2;
}

static void segments_of(const tcc_op *h, int host_too)
{
    clreduce_operator *op = tcc_create_or_fail(g_ctx, h);
    for (layout_kind kind = 0; kind < LAYOUTS; kind++) {
        for (int wide = 0; wide < 2; wide++) {
            uint64_t *offsets;
            size_t segments;
            size_t count = make_layout(kind, h->identity != NULL, &offsets, &segments);
            tcc_batch b = {.offsets = offsets, .segments = segments,
                       .offsets_type = wide ? CLREDUCE_UINT64 : CLREDUCE_UINT32, .span = count};
            unsigned char *x, *y;
            tcc_make_inputs(h, count, &x, &y);
            char what[96];
            snprintf(what, sizeof what, "%zu segments (%s) of %zu elements, %s offsets",
                     segments, layout_names[kind], count, wide ? "64-bit" : "32-bit");
            run_device(what, h, op, &b, x, y);
            if (host_too && (kind == MIXED || kind == TINY))
                run_host(what, h, op, &b, x, y);
            free(y);
            free(x);
            free(offsets);
        }
    }
    clreduce_operator_release(op);
}

static void test_segments_struct(void **state)
{
    (void)state;
    tc_seed_for("segments_struct");
    segments_of(&tcc_op_stats, 1);
}

static void test_segments_index_sum(void **state)
{
    (void)state;
    tc_seed_for("segments_index_sum");
    segments_of(&tcc_op_isum, 0);
}

static void test_segments_matrix_product(void **state)
{
    (void)state;
    tc_seed_for("segments_matrix_product");
    segments_of(&tcc_op_mat, 1);
}

static void test_segments_affine(void **state)
{
    (void)state;
    tc_seed_for("segments_affine");
    segments_of(&tcc_op_affine, 1);
}

static void test_segments_weighted(void **state)
{
    (void)state;
    tc_seed_for("segments_weighted");
    segments_of(&tcc_op_wdot, 0);
}

static void test_segments_first(void **state)
{
    (void)state;
    tc_seed_for("segments_first");
    segments_of(&tcc_op_first, 1);
}

/* ---- empty rows and segments --------------------------------------------------------------- */

/* Every result of no element: the identity, written by a fill (16 bytes)
 * or by a fill and copies (12 bytes, which no fill pattern repeats), on an
 * in-order queue and, where the device has them, an out-of-order one
 * (where events order the copies). */
static void test_empty(void **state)
{
    (void)state;
    tc_seed_for("empty");
    const tcc_op *ops[] = {&tcc_op_stats, &tcc_op_mat};
    static const size_t counts[] = {1, 5, 1000};
    unsigned char x[64];
    memset(x, 0, sizeof x);
    cl_command_queue ooo = NULL;
    if (tc_device_supports_queue(g_ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
        ooo = tc_create_queue(g_ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    for (size_t oi = 0; oi < ARRAY_SIZE(ops); oi++) {
        clreduce_operator *op = tcc_create_or_fail(g_ctx, ops[oi]);
        for (size_t ci = 0; ci < ARRAY_SIZE(counts); ci++) {
            size_t n = counts[ci];
            uint64_t *zeros = calloc(n + 1, sizeof *zeros);
            assert_non_null(zeros);
            tcc_batch rows = {.rows = n, .length = 0, .span = 1};
            tcc_batch segs = {.offsets = zeros, .segments = n, .offsets_type = CLREDUCE_UINT64,
                          .span = 0};
            run_device("rows of no element", ops[oi], op, &rows, x, NULL);
            run_host("rows of no element", ops[oi], op, &rows, x, NULL);
            run_device("segments of no element", ops[oi], op, &segs, x, NULL);
            run_host("segments of no element", ops[oi], op, &segs, x, NULL);
            rows.queue = segs.queue = ooo;
            if (ooo) {
                run_device("rows of no element, out-of-order", ops[oi], op, &rows, x, NULL);
                run_device("segments of no element, out-of-order", ops[oi], op, &segs, x, NULL);
            }
            free(zeros);
        }
        clreduce_operator_release(op);
    }
    if (ooo)
        clReleaseCommandQueue(ooo);
    else
        print_message("no out-of-order queues on this device: those cases not run\n");
}

/* Without identity: rows of nothing and a count of 0 refused, empty
 * segments zero bytes on the device and refused by the host form. */
static void test_no_identity(void **state)
{
    (void)state;
    tc_seed_for("no_identity");
    clreduce_operator *op = tcc_create_or_fail(g_ctx, &tcc_op_first);
    int32_t data[16];
    for (int i = 0; i < 16; i++)
        data[i] = 1000 + i;
    unsigned char res[8 * 4];
    memset(res, TC_SENTINEL_BYTE, sizeof res);
    cl_mem in = tc_make_buffer(g_ctx, sizeof data, data);
    cl_mem out = tc_make_buffer(g_ctx, sizeof res, res);
    uint32_t offs[] = {0, 3, 3, 10, 10};
    cl_mem ob = tc_make_buffer(g_ctx, sizeof offs, offs);
    const char *const words[] = {"first", "identity", NULL};
    cl_event done = TC_EVENT_SENTINEL;
    tc_check_status_and_message("rows of no element",
                                clreduce_reduce_rows_custom(g_ctx, g_queue, op, in, 0, NULL, 0, 4,
                                                            0, 0, out, 0, 0, NULL, &done),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, words);
    tc_check_status_and_message("segments of a count of 0",
                                clreduce_reduce_segments_custom(g_ctx, g_queue, op, in, 0, NULL, 0,
                                                                0, ob, 0, CLREDUCE_UINT32, 4, out,
                                                                0, 0, NULL, &done),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, words);
    int32_t host_res[4] = {7, 7, 7, 7};
    tc_check_status_and_message("host rows of no element",
                                clreduce_reduce_rows_custom_host(g_ctx, op, data, NULL, 4, 0, 0,
                                                                 host_res),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, words);
    tc_check_status_and_message("host segments with an empty one",
                                clreduce_reduce_segments_custom_host(g_ctx, op, data, NULL, 16,
                                                                     offs, CLREDUCE_UINT32, 4,
                                                                     host_res),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                                (const char *const[]){"segment 1", "empty", "identity", NULL});
    assert_true(host_res[0] == 7 && host_res[3] == 7);
    assert_true(done == TC_EVENT_SENTINEL);
    tc_check_buffer_unchanged(g_queue, out, res, sizeof res);
    /* No rows at all: nothing to refuse. */
    assert_int_equal(clreduce_reduce_rows_custom_host(g_ctx, op, data, NULL, 0, 0, 0, host_res),
                     CLREDUCE_SUCCESS);
    /* On the device, the empty segments get zero bytes. */
    assert_int_equal(clreduce_reduce_segments_custom(g_ctx, g_queue, op, in, 2, NULL, 0, 14, ob, 0,
                                                     CLREDUCE_UINT32, 4, out, 1, 0, NULL, &done),
                     CLREDUCE_SUCCESS);
    tc_read_buffer(g_queue, out, res, sizeof res, 1, &done);
    clReleaseEvent(done);
    int32_t got[4];
    memcpy(got, res + 4, sizeof got);
    assert_int_equal(got[0], data[2]);
    assert_int_equal(got[1], 0);
    assert_int_equal(got[2], data[5]);
    assert_int_equal(got[3], 0);
    assert_int_equal(res[0], TC_SENTINEL_BYTE);
    assert_int_equal(res[20], TC_SENTINEL_BYTE);
    clReleaseMemObject(ob);
    clReleaseMemObject(out);
    clReleaseMemObject(in);
    clreduce_operator_release(op);
}

/* ---- bad arguments ---------------------------------------------------------------------- */

static void test_bad_arguments(void **state)
{
    (void)state;
    clreduce_operator *one = tcc_create_or_fail(g_ctx, &tcc_op_isum),
                      *two = tcc_create_or_fail(g_ctx, &tcc_op_affine);
    clreduce_ctx *other_ctx = NULL;
    assert_int_equal(clreduce_create_default(&other_ctx), CLREDUCE_SUCCESS);
    clreduce_operator *stranger = NULL;
    assert_int_equal(clreduce_operator_create(other_ctx, &tcc_op_isum.desc, &stranger),
                     CLREDUCE_SUCCESS);
    float in_data[64];
    unsigned char out_bytes[64];
    tc_guarded g;
    tc_make_guarded(g_ctx, g_queue, in_data, 64, out_bytes, sizeof out_bytes, &g);
    cl_mem in = g.input, out = g.output;
    uint32_t offs[] = {0, 5, 9};
    cl_mem ob = tc_make_buffer(g_ctx, sizeof offs, offs), spare = tc_make_buffer(g_ctx, 256, NULL);
#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define ROWS(op_, in2_, rows_, len_, pitch_, out_off_)                                          \
    clreduce_reduce_rows_custom(g_ctx, g_queue, op_, in, 1, in2_, 0, rows_, len_, pitch_, out,  \
                                out_off_, 0, NULL, &done)
#define SEGS(op_, in2_, count_, out_off_)                                                       \
    clreduce_reduce_segments_custom(g_ctx, g_queue, op_, in, 0, in2_, 0, count_, ob, 0,        \
                                    CLREDUCE_UINT32, 2, out, out_off_, 0, NULL, &done)
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: NULL op", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("op"), ROWS(NULL, NULL, 2, 4, 0, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "segments: NULL op", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("op"), SEGS(NULL, NULL, 9, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: operator of another context",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("another context"),
                      ROWS(stranger, NULL, 2, 4, 0, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "segments: operator of another context",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("another context"),
                      SEGS(stranger, NULL, 9, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: input2 for one input", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("input2"), ROWS(one, in, 2, 4, 0, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: no input2 for two", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("input2"), ROWS(two, NULL, 2, 4, 0, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "segments: no input2 for two", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("input2"), SEGS(two, NULL, 9, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: pitch below length", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("row_pitch"), ROWS(one, NULL, 2, 4, 3, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: past the input's end", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, NULL, ROWS(one, NULL, 9, 8, 0, 0));
    /* out holds 64 bytes: 8 results of isum's 8 bytes. */
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: results past the end", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("result"), ROWS(one, NULL, 2, 4, 0, 7));
    TC_EXPECT_FAILURE(&g, g_ctx, "segments: results past the end",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("result"),
                      SEGS(one, NULL, 9, 7));
    TC_EXPECT_FAILURE(&g, g_ctx, "segments: bad offsets type", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("offsets_type"),
                      clreduce_reduce_segments_custom(g_ctx, g_queue, one, in, 0, NULL, 0, 9, ob,
                                                      0, CLREDUCE_FLOAT, 2, out, 0, 0, NULL,
                                                      &done));
    /* The results overlap the rows' span (in the input buffer itself), and
     * the second input's range. */
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: results over the rows", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("overlap"),
                      clreduce_reduce_rows_custom(g_ctx, g_queue, one, in, 0, NULL, 0, 4, 4, 0, in,
                                                  2, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: results over input2", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("input2"),
                      clreduce_reduce_rows_custom(g_ctx, g_queue, two, out, 0, in, 0, 2, 4, 0, in,
                                                  1, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "segments: results over input2",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("input2"),
                      clreduce_reduce_segments_custom(g_ctx, g_queue, two, out, 0, in, 0, 8, ob,
                                                      0, CLREDUCE_UINT32, 2, in, 1, 0, NULL,
                                                      &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: input2 past its end", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("input2"),
                      clreduce_reduce_rows_custom(g_ctx, g_queue, two, in, 0, out, 6, 2, 4, 0,
                                                  spare, 0, 0, NULL, &done));
    /* Host forms: bad offsets, a second input for an operator of one. */
    uint64_t values[16] = {0};
    unsigned char host_res[64];
    memset(host_res, TC_SENTINEL_BYTE, sizeof host_res);
    uint32_t bad_offs[] = {0, 5, 4};
    tc_check_status_and_message("host segments: offsets that decrease",
                                clreduce_reduce_segments_custom_host(g_ctx, one, values, NULL, 8,
                                                                     bad_offs, CLREDUCE_UINT32, 2,
                                                                     host_res),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("offsets[2]"));
    tc_check_status_and_message("host rows: data2 for one input",
                                clreduce_reduce_rows_custom_host(g_ctx, one, values, values, 2, 4,
                                                                 0, host_res),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("data2"));
    tc_check_status_and_message("host rows: no data2 for two",
                                clreduce_reduce_rows_custom_host(g_ctx, two, values, NULL, 2, 4,
                                                                 0, host_res),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("input2"));
    tc_check_status_and_message("host rows: results over the data",
                                clreduce_reduce_rows_custom_host(g_ctx, one, values, NULL, 2, 4, 0,
                                                                 values + 1),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("overlap"));
    for (size_t k = 0; k < sizeof host_res; k++)
        assert_int_equal(host_res[k], TC_SENTINEL_BYTE);
#undef SEGS
#undef ROWS
#undef WORDS
    clReleaseMemObject(spare);
    clReleaseMemObject(ob);
    tc_release_guarded(&g);
    clreduce_operator_release(stranger);
    clreduce_destroy(other_ctx);
    clreduce_operator_release(two);
    clreduce_operator_release(one);
}

int main(void)
{
    g_ctx = tc_start("unit.custom_rows", &g_queue, NULL);
    struct CMUnitTest tests[15];
    size_t nt = 0;
    tc_add_test(tests, &nt, "bad_arguments", test_bad_arguments, NULL);
    tc_add_test(tests, &nt, "empty", test_empty, NULL);
    tc_add_test(tests, &nt, "no_identity", test_no_identity, NULL);
    tc_add_test(tests, &nt, "rows_struct", test_rows_struct, NULL);
    tc_add_test(tests, &nt, "rows_index_sum", test_rows_index_sum, NULL);
    tc_add_test(tests, &nt, "rows_matrix_product", test_rows_matrix_product, NULL);
    tc_add_test(tests, &nt, "rows_affine", test_rows_affine, NULL);
    tc_add_test(tests, &nt, "rows_weighted", test_rows_weighted, NULL);
    tc_add_test(tests, &nt, "rows_first", test_rows_first, NULL);
    tc_add_test(tests, &nt, "segments_struct", test_segments_struct, NULL);
    tc_add_test(tests, &nt, "segments_index_sum", test_segments_index_sum, NULL);
    tc_add_test(tests, &nt, "segments_matrix_product", test_segments_matrix_product, NULL);
    tc_add_test(tests, &nt, "segments_affine", test_segments_affine, NULL);
    tc_add_test(tests, &nt, "segments_weighted", test_segments_weighted, NULL);
    tc_add_test(tests, &nt, "segments_first", test_segments_first, NULL);
    int failed = tc_run_tests("unit.custom_rows", tests, nt);
    return tc_finish(g_ctx, failed, g_queue, NULL);
}
