/* unit.custom_scan_rows: rows scanned with user-defined operators
 * (clreduce_scan_rows_custom and its _host form) against a CPU reference, every
 * result compared bit for bit: a struct accumulator of 12 bytes (min, max,
 * count of floats), a 2x2 integer matrix product that reads i and an affine map
 * of two inputs (neither commutes: the order of elements is checked), a
 * weighted sum of two inputs, and "first element" (no identity), all in
 * test_common_custom.c. Rows of 1 to 4097 elements scanned inclusive and, with
 * an identity, exclusive (each prefix compared), the inputs' rows pitched with
 * poisoned padding, the output's rows pitched with their padding and the
 * results around them checked untouched; bad arguments refused with nothing
 * written. The reductions of the same operators are unit.custom_rows.
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

/* ---- row scans ------------------------------------------------------------------------- */

static const size_t scan_lengths[] = {1, 31, 33, 255, 257, 4097};
static const size_t scan_row_counts[] = {1, 3, 100};

/* The expected output of a row scan of b: `total` results of sentinel
 * bytes, row r's prefixes from result lead + r * out_pitch. */
static unsigned char *scan_expected(const tcc_op *h, const tcc_batch *b, clreduce_scan_kind kind,
                                    size_t out_pitch, size_t lead, size_t total,
                                    const unsigned char *x, const unsigned char *y)
{
    size_t as = h->desc.acc_size, es = h->es;
    unsigned char *want = malloc(total * as), acc[TCC_MAX_ACC], next[TCC_MAX_ACC];
    assert_non_null(want);
    memset(want, TC_SENTINEL_BYTE, total * as);
    for (size_t r = 0; r < b->rows; r++) {
        size_t start, n;
        tcc_range_of(b, r, &start, &n);
        unsigned char *o = want + (lead + r * out_pitch) * as;
        for (size_t j = 0; j < n; j++) {
            const unsigned char *xj = x + (start + j) * es, *yj = y ? y + (start + j) * es : NULL;
            h->map(xj, yj, j, next);
            if (kind == CLREDUCE_EXCLUSIVE) {
                if (j == 0)
                    h->identity(acc);
                memcpy(o + j * as, acc, as);
                h->combine(acc, next);
            } else {
                if (j == 0)
                    memcpy(acc, next, as);
                else
                    h->combine(acc, next);
                memcpy(o + j * as, acc, as);
            }
        }
    }
    return want;
}

/* Compares `total` results with the expected ones, padding and sentinels
 * included; prints the first few that differ and fails. */
static void check_scan(const char *what, const tcc_op *h, const unsigned char *got,
                       const unsigned char *want, size_t total)
{
    size_t as = h->desc.acc_size, wrong = 0;
    for (size_t k = 0; k < total; k++) {
        if (memcmp(got + k * as, want + k * as, as) == 0)
            continue;
        if (wrong++ < 5)
            print_error("%s: %s: result %zu of the buffer differs (first bytes %02x, want "
                        "%02x)\n",
                        what, h->desc.name, k, got[k * as], want[k * as]);
    }
    if (wrong)
        print_error("%s: %s: %zu of %zu results wrong\n", what, h->desc.name, wrong, total);
    assert_int_equal(wrong, 0);
}

/* Scans the rows of b with op on the device (the inputs between poison at
 * TCC_IN_OFFSET and TCC_IN2_OFFSET, the output at TCC_RESULT_OFFSET between
 * sentinels, rows out_pitch results apart) and through the _host form when
 * host_too, and checks every result and every byte around them. */
static void run_scan(const char *what, const tcc_op *h, clreduce_operator *op, const tcc_batch *b,
                     clreduce_scan_kind kind, size_t out_pitch, int host_too,
                     const unsigned char *x, const unsigned char *y)
{
    size_t as = h->desc.acc_size, opitch = out_pitch ? out_pitch : b->length;
    size_t out_span = (b->rows - 1) * opitch + b->length, total = TCC_RESULT_OFFSET + out_span + 2;
    unsigned char *want = scan_expected(h, b, kind, opitch, TCC_RESULT_OFFSET, total, x, y);
    unsigned char *got = malloc(total * as);
    assert_non_null(got);
    memset(got, TC_SENTINEL_BYTE, total * as);
    cl_mem in = tcc_input_buffer(g_ctx, h, b, x, TCC_IN_OFFSET);
    cl_mem in2 = y ? tcc_input_buffer(g_ctx, h, b, y, TCC_IN2_OFFSET) : NULL;
    cl_mem out = tc_make_buffer(g_ctx, total * as, got);
    cl_event done = NULL;
    clreduce_status st = clreduce_scan_rows_custom(g_ctx, g_queue, op, kind, in, TCC_IN_OFFSET,
                                                   in2, TCC_IN2_OFFSET, b->rows, b->length,
                                                   b->pitch, out, TCC_RESULT_OFFSET, out_pitch, 0,
                                                   NULL, &done);
    if (st != CLREDUCE_SUCCESS)
        print_error("%s: %s: %s: %s\n", what, h->desc.name, clreduce_status_string(st),
                    clreduce_last_error(g_ctx));
    assert_int_equal(st, CLREDUCE_SUCCESS);
    tc_read_buffer(g_queue, out, got, total * as, 1, &done);
    clReleaseEvent(done);
    check_scan(what, h, got, want, total);
    if (host_too) {
        /* The same rows dense from element 0, the output from result 0. */
        memset(got, TC_SENTINEL_BYTE, total * as);
        st = clreduce_scan_rows_custom_host(g_ctx, op, kind, x, y, b->rows, b->length, b->pitch,
                                            out_pitch, got);
        if (st != CLREDUCE_SUCCESS)
            print_error("%s (host): %s: %s: %s\n", what, h->desc.name,
                        clreduce_status_string(st), clreduce_last_error(g_ctx));
        assert_int_equal(st, CLREDUCE_SUCCESS);
        check_scan(what, h, got, want + TCC_RESULT_OFFSET * as, out_span + 2);
    }
    clReleaseMemObject(out);
    if (in2)
        clReleaseMemObject(in2);
    clReleaseMemObject(in);
    free(got);
    free(want);
}

/* Every shape of scan_lengths and scan_row_counts, inclusive and (with an
 * identity) exclusive, the pitches padded or dense by turns. */
static void scan_rows_of(const tcc_op *h)
{
    clreduce_operator *op = tcc_create_or_fail(g_ctx, h);
    size_t cases = 0;
    for (size_t li = 0; li < ARRAY_SIZE(scan_lengths); li++) {
        for (size_t ri = 0; ri < ARRAY_SIZE(scan_row_counts); ri++) {
            size_t length = scan_lengths[li], rows = scan_row_counts[ri];
            size_t pitch = (li + ri) % 2 ? length + 3 : 0;
            size_t out_pitch = (li + ri) % 3 ? length + 2 : 0;
            size_t span = (rows - 1) * (pitch ? pitch : length) + length;
            tcc_batch b = {.rows = rows, .length = length, .pitch = pitch, .span = span};
            unsigned char *x, *y;
            tcc_make_inputs(h, span, &x, &y);
            for (int kind = 0; kind < 2; kind++) {
                if (kind == CLREDUCE_EXCLUSIVE && !h->identity)
                    continue;
                char what[128];
                snprintf(what, sizeof what, "%s scan of %zu rows of %zu, pitches %zu and %zu",
                         clreduce_scan_kind_name((clreduce_scan_kind)kind), rows, length, pitch,
                         out_pitch);
                run_scan(what, h, op, &b, (clreduce_scan_kind)kind, out_pitch,
                         rows * length < 20000, x, y);
                cases++;
            }
            free(y);
            free(x);
        }
    }
    print_message("%s: %zu row scans\n", h->desc.name, cases);
    clreduce_operator_release(op);
}

static void test_scan_rows_struct(void **state)
{
    (void)state;
    tc_seed_for("scan_rows_struct");
    scan_rows_of(&tcc_op_stats);
}

static void test_scan_rows_matrix_product(void **state)
{
    (void)state;
    tc_seed_for("scan_rows_matrix_product");
    scan_rows_of(&tcc_op_mat);
}

static void test_scan_rows_affine(void **state)
{
    (void)state;
    tc_seed_for("scan_rows_affine");
    scan_rows_of(&tcc_op_affine);
}

static void test_scan_rows_weighted(void **state)
{
    (void)state;
    tc_seed_for("scan_rows_weighted");
    scan_rows_of(&tcc_op_wdot);
}

static void test_scan_rows_first(void **state)
{
    (void)state;
    tc_seed_for("scan_rows_first");
    scan_rows_of(&tcc_op_first);
}

/* ---- bad arguments ---------------------------------------------------------------------- */

/* Row scans refused with nothing written: no operator, no identity for an
 * exclusive scan, the output over the input (no scan is in place), pitches
 * below the row length, results past the output's end, the inputs of the
 * wrong operator, and the same checks of the host form. */
static void test_scan_rows_errors(void **state)
{
    (void)state;
    clreduce_operator *one = tcc_create_or_fail(g_ctx, &tcc_op_isum),
                      *two = tcc_create_or_fail(g_ctx, &tcc_op_affine),
                      *none = tcc_create_or_fail(g_ctx, &tcc_op_first);
    float in_data[64];
    unsigned char out_bytes[64];
    tc_guarded g;
    tc_make_guarded(g_ctx, g_queue, in_data, 64, out_bytes, sizeof out_bytes, &g);
    cl_mem in = g.input, out = g.output;
#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define SCAN(op_, kind_, in2_, rows_, len_, pitch_, out_, out_off_, out_pitch_)                 \
    clreduce_scan_rows_custom(g_ctx, g_queue, op_, kind_, in, 1, in2_, 0, rows_, len_, pitch_,  \
                              out_, out_off_, out_pitch_, 0, NULL, &done)
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: NULL op", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("op"), SCAN(NULL, CLREDUCE_INCLUSIVE, NULL, 2, 4, 0, out, 0, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: exclusive without identity",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("identity"),
                      SCAN(none, CLREDUCE_EXCLUSIVE, NULL, 2, 4, 0, out, 0, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: unknown kind", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("kind"), SCAN(one, (clreduce_scan_kind)7, NULL, 2, 4, 0, out,
                                                 0, 0));
    /* The output in the input buffer: over the rows, or the same range. */
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: output over the rows",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("overlap"),
                      SCAN(one, CLREDUCE_INCLUSIVE, NULL, 2, 4, 0, in, 2, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: in place", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("overlap"),
                      clreduce_scan_rows_custom(g_ctx, g_queue, one, CLREDUCE_INCLUSIVE, in, 0,
                                                NULL, 0, 2, 4, 0, in, 0, 0, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: row_pitch below length",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("row_pitch"),
                      SCAN(one, CLREDUCE_INCLUSIVE, NULL, 2, 4, 3, out, 0, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: output_pitch below length",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("output_pitch"),
                      SCAN(one, CLREDUCE_INCLUSIVE, NULL, 2, 4, 0, out, 0, 3));
    /* out holds 64 bytes: 8 results of isum's 8 bytes; 2 rows of 4 from
     * result 1 end at result 9. */
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: results past the end",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("results"),
                      SCAN(one, CLREDUCE_INCLUSIVE, NULL, 2, 4, 0, out, 1, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: output pitch past the end",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("results"),
                      SCAN(one, CLREDUCE_INCLUSIVE, NULL, 2, 3, 0, out, 0, 6));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: past the input's end",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("input"),
                      SCAN(one, CLREDUCE_INCLUSIVE, NULL, 9, 8, 0, out, 0, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: input2 for one input",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("input2"),
                      SCAN(one, CLREDUCE_INCLUSIVE, in, 2, 4, 0, out, 0, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: no input2 for two", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("input2"),
                      SCAN(two, CLREDUCE_INCLUSIVE, NULL, 2, 2, 0, out, 0, 0));
    /* affine's elements are 8 bytes: in holds 32, and 2 rows of 2 at pitch
     * 14 from element 20 of input2 end at element 36. */
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: input2 past its end",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("input2"),
                      clreduce_scan_rows_custom(g_ctx, g_queue, two, CLREDUCE_INCLUSIVE, in, 0,
                                                in, 20, 2, 2, 14, out, 0, 0, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: output over input2",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("input2"),
                      clreduce_scan_rows_custom(g_ctx, g_queue, two, CLREDUCE_INCLUSIVE, out, 0,
                                                in, 0, 1, 2, 0, in, 0, 0, 0, NULL, &done));
    /* Host forms. */
    uint64_t values[16] = {0};
    unsigned char host_out[64];
    memset(host_out, TC_SENTINEL_BYTE, sizeof host_out);
    tc_check_status_and_message("host scan rows: NULL op",
                                clreduce_scan_rows_custom_host(g_ctx, NULL, CLREDUCE_INCLUSIVE,
                                                               values, NULL, 2, 4, 0, 0,
                                                               host_out),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("op"));
    tc_check_status_and_message("host scan rows: exclusive without identity",
                                clreduce_scan_rows_custom_host(g_ctx, none, CLREDUCE_EXCLUSIVE,
                                                               values, NULL, 2, 4, 0, 0,
                                                               host_out),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("identity"));
    tc_check_status_and_message("host scan rows: output over the input",
                                clreduce_scan_rows_custom_host(g_ctx, one, CLREDUCE_INCLUSIVE,
                                                               values, NULL, 2, 4, 0, 0, values),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("overlap"));
    tc_check_status_and_message("host scan rows: output_pitch below length",
                                clreduce_scan_rows_custom_host(g_ctx, one, CLREDUCE_INCLUSIVE,
                                                               values, NULL, 2, 4, 0, 2,
                                                               host_out),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("output_pitch"));
    tc_check_status_and_message("host scan rows: no input2 for two",
                                clreduce_scan_rows_custom_host(g_ctx, two, CLREDUCE_INCLUSIVE,
                                                               values, NULL, 2, 2, 0, 0,
                                                               host_out),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("input2"));
    for (size_t k = 0; k < sizeof host_out; k++)
        assert_int_equal(host_out[k], TC_SENTINEL_BYTE);
#undef SCAN
#undef WORDS
    tc_release_guarded(&g);
    clreduce_operator_release(none);
    clreduce_operator_release(two);
    clreduce_operator_release(one);
}

int main(void)
{
    g_ctx = tc_start("unit.custom_scan_rows", &g_queue, NULL);
    struct CMUnitTest tests[6];
    size_t nt = 0;
    tc_add_test(tests, &nt, "scan_rows_struct", test_scan_rows_struct, NULL);
    tc_add_test(tests, &nt, "scan_rows_matrix_product", test_scan_rows_matrix_product, NULL);
    tc_add_test(tests, &nt, "scan_rows_affine", test_scan_rows_affine, NULL);
    tc_add_test(tests, &nt, "scan_rows_weighted", test_scan_rows_weighted, NULL);
    tc_add_test(tests, &nt, "scan_rows_first", test_scan_rows_first, NULL);
    tc_add_test(tests, &nt, "scan_rows_errors", test_scan_rows_errors, NULL);
    int failed = tc_run_tests("unit.custom_scan_rows", tests, nt);
    return tc_finish(g_ctx, failed, g_queue, NULL);
}
