/* unit.reproducible_scan: the float and double sum scans of a reproducible
 * context (clreduce_settings.reproducible), flat and of rows, give, bit
 * for bit, the scan that their documented order gives on the host
 * (test_fixed_order.h): inclusive and exclusive, at sizes around a lane, a
 * tile and more tiles than a work-group has lanes (chunks of tiles), at
 * offsets between poisoned elements, pitched rows, in place, on an
 * out-of-order queue; and the scans such a context refuses or runs as any
 * other.
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

#include "clreduce/clreduce.h"
#include "test_common.h"
#include "test_fixed_order.h"

static clreduce_ctx *g_plain, *g_ctx;
static cl_command_queue g_queue;

#define POISON 0x7f
#define PAD 3 /* poisoned elements before and after the output */

static const clreduce_type float_types[] = {CLREDUCE_FLOAT, CLREDUCE_DOUBLE};

static void host_scan(clreduce_type type, const void *x, size_t n, int exclusive, void *out)
{
    if (type == CLREDUCE_FLOAT)
        fixed_scan_float(x, n, exclusive, out);
    else
        fixed_scan_double(x, n, exclusive, out);
}

/* Scans data[in_off .. in_off + n) on queue q into a buffer of poisoned
 * elements at out_off (or in place, over the input's own range), checks
 * the bits against the order and the poison around them. */
static void expect_scan(cl_command_queue q, clreduce_type type, const void *data, size_t n,
                        size_t in_off, int exclusive, int in_place)
{
    size_t es = clreduce_type_size(type), out_off = in_place ? in_off : PAD;
    size_t total = (in_place ? in_off + n : n + 2 * PAD) + PAD;
    unsigned char *want = malloc(n * es + 1), *got = malloc(total * es),
                  *init = malloc(total * es);
    assert_true(want && got && init);
    host_scan(type, (const unsigned char *)data + in_off * es, n, exclusive, want);
    memset(init, POISON, total * es);
    if (in_place)
        memcpy(init, data, (in_off + n) * es);
    cl_mem in = in_place ? NULL : tc_make_buffer(g_ctx, (in_off + n) * es, data);
    cl_mem out = tc_make_buffer(g_ctx, total * es, init);
    cl_event done = NULL;
    clreduce_status st = clreduce_scan(g_ctx, q, CLREDUCE_OP_SUM, type,
                                       exclusive ? CLREDUCE_EXCLUSIVE : CLREDUCE_INCLUSIVE,
                                       CLREDUCE_SCAN_AUTO, in_place ? out : in, in_off, n, out,
                                       out_off, 0, NULL, &done);
    if (st != CLREDUCE_SUCCESS)
        print_error("clreduce_scan: %s\n", clreduce_last_error(g_ctx));
    assert_int_equal(st, CLREDUCE_SUCCESS);
    tc_read_buffer(q, out, got, total * es, done ? 1 : 0, done ? &done : NULL);
    if (done)
        clReleaseEvent(done);
    for (size_t i = 0; i < total; i++) {
        int inside = i >= out_off && i < out_off + n;
        const unsigned char *expect = inside ? want + (i - out_off) * es : init + i * es;
        if (memcmp(got + i * es, expect, es) != 0) {
            print_error("%s %s scan n=%zu offset=%zu%s: element %zu%s: got %.17g, want %.17g\n",
                        tc_type_name(type), exclusive ? "exclusive" : "inclusive", n, in_off,
                        in_place ? " in place" : "", inside ? i - out_off : i,
                        inside ? "" : " (outside the output)", tc_get_double(type, got, i),
                        tc_get_double(type, expect, 0));
            fail();
        }
    }
    if (in)
        clReleaseMemObject(in);
    clReleaseMemObject(out);
    free(want);
    free(got);
    free(init);
}

static void run_sizes(cl_command_queue q, int many_tiles)
{
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = float_types[ti];
        if (!tc_type_supported(g_ctx, type))
            continue;
        size_t es = clreduce_type_size(type), tile = (size_t)LANES * STEPS * (16 / es);
        size_t lane = tile / LANES;
        const size_t sizes[] = {1,        2,        lane - 1,     lane,         lane + 1,
                                4097,     tile - 1, tile,         tile + 1,     3 * tile + 7,
                                300 * tile + 5};
        size_t largest = 300 * tile + 5 + 8;
        void *data = malloc(largest * es);
        assert_non_null(data);
        fill_wide(type, data, largest);
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            if ((sizes[si] > 3 * tile + 7) != many_tiles)
                continue;
            for (int exclusive = 0; exclusive < 2; exclusive++) {
                expect_scan(q, type, data, sizes[si], 0, exclusive, 0);
                expect_scan(q, type, data, sizes[si], 5, exclusive, 0);
                expect_scan(q, type, data, sizes[si], 2, exclusive, 1);
            }
        }
        free(data);
    }
}

/* ---- tests -------------------------------------------------------------------------------- */

static void test_sizes(void **state)
{
    (void)state;
    run_sizes(g_queue, 0);
}

/* 300 tiles and a few elements: more tiles than the prefixes' work-group
 * has lanes, so that each lane sums a chunk of two. */
static void test_many_tiles(void **state)
{
    (void)state;
    run_sizes(g_queue, 1);
}

static void test_out_of_order(void **state)
{
    (void)state;
    if (!tc_device_supports_queue(g_ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
        print_message("note: the device has no out-of-order queues; not run\n");
        return;
    }
    cl_command_queue q = tc_create_queue(g_ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    assert_non_null(q);
    run_sizes(q, 0);
    clReleaseCommandQueue(q);
}

/* Rows scanned each on its own, pitched, into rows of another pitch
 * between poisoned elements, or in place: every element's bits those of
 * the order on its row. */
static void expect_rows(clreduce_type type, size_t rows, size_t length, int exclusive,
                        int in_place)
{
    size_t es = clreduce_type_size(type), pitch = length + 3, out_pitch = in_place ? pitch
                                                                                  : length + 2;
    size_t offset = 2, out_offset = in_place ? offset : 1;
    size_t in_n = offset + (rows - 1) * pitch + length;
    size_t out_n = out_offset + (rows - 1) * out_pitch + length + PAD;
    if (in_place && out_n < in_n + PAD)
        out_n = in_n + PAD;
    unsigned char *data = malloc(in_n * es), *init = malloc(out_n * es),
                  *got = malloc(out_n * es), *want = malloc(out_n * es);
    assert_true(data && init && got && want);
    fill_wide(type, data, in_n);
    memset(init, POISON, out_n * es);
    if (in_place)
        memcpy(init, data, in_n * es);
    memcpy(want, init, out_n * es);
    for (size_t r = 0; r < rows; r++)
        host_scan(type, data + (offset + r * pitch) * es, length, exclusive,
                  want + (out_offset + r * out_pitch) * es);
    cl_mem in = in_place ? NULL : tc_make_buffer(g_ctx, in_n * es, data);
    cl_mem out = tc_make_buffer(g_ctx, out_n * es, init);
    cl_event done = NULL;
    clreduce_status st = clreduce_scan_rows(
        g_ctx, g_queue, CLREDUCE_OP_SUM, type, exclusive ? CLREDUCE_EXCLUSIVE : CLREDUCE_INCLUSIVE,
        in_place ? out : in, offset, rows, length, pitch, out, out_offset, out_pitch, 0, NULL,
        &done);
    if (st != CLREDUCE_SUCCESS)
        print_error("clreduce_scan_rows: %s\n", clreduce_last_error(g_ctx));
    assert_int_equal(st, CLREDUCE_SUCCESS);
    tc_read_buffer(g_queue, out, got, out_n * es, done ? 1 : 0, done ? &done : NULL);
    if (done)
        clReleaseEvent(done);
    for (size_t i = 0; i < out_n; i++)
        if (memcmp(got + i * es, want + i * es, es) != 0) {
            print_error("%s rows %zu x %zu%s %s: element %zu: got %.17g, want %.17g\n",
                        tc_type_name(type), rows, length, in_place ? " in place" : "",
                        exclusive ? "exclusive" : "inclusive", i, tc_get_double(type, got, i),
                        tc_get_double(type, want, i));
            fail();
        }
    if (in)
        clReleaseMemObject(in);
    clReleaseMemObject(out);
    free(data);
    free(init);
    free(got);
    free(want);
}

/* Rows of one lane (a work-item each), of one tile (a launch), of several
 * tiles (three launches, a prefixes work-group per row). */
static void test_rows(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = float_types[ti];
        if (!tc_type_supported(g_ctx, type))
            continue;
        size_t tile = (size_t)LANES * STEPS * (16 / clreduce_type_size(type)), lane = tile / LANES;
        const size_t lengths[] = {1, lane, lane + 1, 300, tile - 1, tile + 1, 2 * tile + 5};
        const size_t counts[] = {1, 5};
        for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++)
            for (size_t ci = 0; ci < 2; ci++)
                for (int exclusive = 0; exclusive < 2; exclusive++)
                    for (int in_place = 0; in_place < 2; in_place++)
                        expect_rows(type, counts[ci], lengths[li], exclusive, in_place);
    }
}

/* Infinities and NaN stay; a scan of -0.0 gives +0.0, every sum of the
 * order starting from +0.0. */
static void test_special(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = float_types[ti];
        if (!tc_type_supported(g_ctx, type))
            continue;
        size_t n = 5000, es = clreduce_type_size(type);
        unsigned char *x = malloc(n * es), *got = malloc(n * es);
        assert_true(x && got);
        for (size_t i = 0; i < n; i++)
            tc_set_double(type, x, i, -0.0);
        assert_int_equal(clreduce_scan_host(g_ctx, CLREDUCE_OP_SUM, type, CLREDUCE_INCLUSIVE,
                                            CLREDUCE_SCAN_AUTO, x, n, got),
                         CLREDUCE_SUCCESS);
        for (size_t i = 0; i < n; i++)
            assert_false(signbit(tc_get_double(type, got, i)));
        tc_set_double(type, x, 100, INFINITY);
        tc_set_double(type, x, 3000, NAN);
        assert_int_equal(clreduce_scan_host(g_ctx, CLREDUCE_OP_SUM, type, CLREDUCE_INCLUSIVE,
                                            CLREDUCE_SCAN_AUTO, x, n, got),
                         CLREDUCE_SUCCESS);
        assert_true(tc_get_double(type, got, 99) == 0.0);
        assert_true(tc_get_double(type, got, 100) == INFINITY);
        assert_true(tc_get_double(type, got, 2999) == INFINITY);
        assert_true(isnan(tc_get_double(type, got, 3000)));
        assert_true(isnan(tc_get_double(type, got, n - 1)));
        free(x);
        free(got);
    }
}

/* Other scan variants of float sums are refused; min and max scans, and
 * integer sum scans, are those of a plain context. */
static void test_others(void **state)
{
    (void)state;
    float f[3000], got[3000], want[3000];
    for (size_t i = 0; i < 3000; i++)
        f[i] = (float)(i % 11) - 5.25f;
    clreduce_status st = clreduce_scan_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                            CLREDUCE_INCLUSIVE, CLREDUCE_SCAN_REDUCE_THEN_SCAN, f,
                                            3000, got);
    const char *const words[] = {"reproducible", "reduce_then_scan", NULL};
    tc_check_status_and_message("reduce_then_scan", st, CLREDUCE_ERROR_UNSUPPORTED, g_ctx, words);
    const clreduce_op ops[] = {CLREDUCE_OP_MIN, CLREDUCE_OP_MAX};
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(clreduce_scan_host(g_ctx, ops[i], CLREDUCE_FLOAT, CLREDUCE_EXCLUSIVE,
                                            CLREDUCE_SCAN_AUTO, f, 3000, got),
                         CLREDUCE_SUCCESS);
        assert_int_equal(clreduce_scan_host(g_plain, ops[i], CLREDUCE_FLOAT, CLREDUCE_EXCLUSIVE,
                                            CLREDUCE_SCAN_AUTO, f, 3000, want),
                         CLREDUCE_SUCCESS);
        assert_memory_equal(got, want, sizeof got);
    }
    int32_t ints[3000], igot[3000], iwant[3000];
    for (size_t i = 0; i < 3000; i++)
        ints[i] = (int32_t)(i * 2654435761u);
    assert_int_equal(clreduce_scan_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_INCLUSIVE,
                                        CLREDUCE_SCAN_AUTO, ints, 3000, igot),
                     CLREDUCE_SUCCESS);
    assert_int_equal(clreduce_scan_host(g_plain, CLREDUCE_OP_SUM, CLREDUCE_INT32,
                                        CLREDUCE_INCLUSIVE, CLREDUCE_SCAN_AUTO, ints, 3000, iwant),
                     CLREDUCE_SUCCESS);
    assert_memory_equal(igot, iwant, sizeof igot);
}

int main(void)
{
    g_plain = tc_start("unit.reproducible_scan", &g_queue, NULL);
    if (!(g_ctx = reproducible_context(g_plain)))
        return 1;
    struct CMUnitTest tests[6];
    size_t nt = 0;
    tc_add_test(tests, &nt, "sizes", test_sizes, NULL);
    tc_add_test(tests, &nt, "many_tiles", test_many_tiles, NULL);
    tc_add_test(tests, &nt, "rows", test_rows, NULL);
    tc_add_test(tests, &nt, "out_of_order", test_out_of_order, NULL);
    tc_add_test(tests, &nt, "special", test_special, NULL);
    tc_add_test(tests, &nt, "others", test_others, NULL);
    int failed = tc_run_tests("unit.reproducible_scan", tests, nt);
    clreduce_destroy(g_ctx);
    return tc_finish(g_plain, failed, g_queue, NULL);
}
