/* unit.scan_operators: inclusive and exclusive scans with the operators past
 * sum, min and max (argmin, argmax, minmax, sum of squares, sum of absolute
 * values, norm2, mean and variance) on every type each takes, against the
 * CPU references of the reductions (test_common_operators.c) applied to
 * every prefix: the input at an offset between poisoned elements, the
 * results at an offset between sentinels, which must stay; ties and NaN for
 * argmax; 2^20 + 7 elements (a sample of the prefixes checked); the blocking
 * call; scans of no element; bad arguments.
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
#include "test_common_ops.h"

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;

static const clreduce_op scan_ops[] = {CLREDUCE_OP_ARGMIN,      CLREDUCE_OP_ARGMAX,
                                       CLREDUCE_OP_MINMAX,      CLREDUCE_OP_SUM_SQUARES,
                                       CLREDUCE_OP_SUM_ABS,     CLREDUCE_OP_NORM2,
                                       CLREDUCE_OP_MEAN_VAR};
static const size_t sizes[] = {1, 31, 33, 255, 257, 4097};

#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define LEAD_RESULTS 2 /* sentinel results before the output range */
#define TAIL_RESULTS 1 /* and after it */

/* ---- one scan on the device ------------------------------------------------------ */

/* Scans x[0 .. n) with op, the input after 1 + k % 3 poisoned elements, the
 * results after LEAD_RESULTS - k % 2 sentinel results and before
 * TAIL_RESULTS; returns the call's status, the n results in out (n *
 * result size bytes) and whether the sentinels stayed in *untouched. */
static clreduce_status scan_on_device(clreduce_op op, clreduce_type type,
                                      clreduce_scan_kind kind, const void *x, size_t n, size_t k,
                                      unsigned char *out, int *untouched)
{
    size_t es = tc_elem_size(type), rs = clreduce_result_size(op, type);
    size_t lead = 1 + k % 3, res_lead = LEAD_RESULTS - k % 2;
    size_t total = lead + n + 2, res_total = res_lead + n + TAIL_RESULTS;
    unsigned char *host = malloc(total * es), *res = malloc(res_total * rs);
    assert_true(host && res);
    tc_value poison;
    tc_op_poison(op, type, &poison);
    for (size_t i = 0; i < total; i++)
        tc_set(type, host, i, &poison);
    memcpy(host + lead * es, x, n * es);
    memset(res, TC_SENTINEL_BYTE, res_total * rs);
    cl_mem in = tc_make_buffer(g_ctx, total * es, host);
    cl_mem outb = tc_make_buffer(g_ctx, res_total * rs, res);
    cl_event done = NULL;
    clreduce_status st = clreduce_scan(g_ctx, g_queue, op, type, kind, CLREDUCE_SCAN_AUTO, in,
                                       lead, n, outb, res_lead, 0, NULL, &done);
    if (st == CLREDUCE_SUCCESS) {
        tc_read_buffer(g_queue, outb, res, res_total * rs, 1, &done);
        clReleaseEvent(done);
    }
    assert_int_equal(clFinish(g_queue), CL_SUCCESS);
    *untouched = 1;
    for (size_t i = 0; i < res_total * rs; i++)
        if ((i < res_lead * rs || i >= (res_lead + n) * rs) && res[i] != TC_SENTINEL_BYTE)
            *untouched = 0;
    memcpy(out, res + res_lead * rs, n * rs);
    clReleaseMemObject(in);
    clReleaseMemObject(outb);
    free(host);
    free(res);
    return st;
}

/* The elements result j covers: x[0 .. j] inclusive, x[0 .. j) exclusive. */
static size_t prefix_length(clreduce_scan_kind kind, size_t j)
{
    return kind == CLREDUCE_INCLUSIVE ? j + 1 : j;
}

/* Checks result j of a scan of x against the reduction of its prefix. */
static int check_prefix(tc_suite *s, const char *tag, clreduce_op op, clreduce_type type,
                        clreduce_scan_kind kind, const void *x, size_t n, size_t j,
                        const unsigned char *results)
{
    char why[512];
    size_t rs = clreduce_result_size(op, type);
    long double var_tol = op == CLREDUCE_OP_MEAN_VAR ? tc_op_variance_tolerance(type) : 0;
    if (tc_op_check_result(op, type, x, NULL, prefix_length(kind, j), results + j * rs, var_tol,
                           why, sizeof why))
        return 1;
    tc_ops_report(s, "%s: op=%s type=%s %s n=%zu: result %zu: %s", tag, clreduce_op_name(op),
                  clreduce_type_name(type), clreduce_scan_kind_name(kind), n, j, why);
    return 0;
}

/* Scans x[0 .. n) and checks the results at `checked` positions (every one
 * when positions is NULL). */
static void check_scan(tc_suite *s, const char *tag, clreduce_op op, clreduce_type type,
                       clreduce_scan_kind kind, const void *x, size_t n, const size_t *positions,
                       size_t checked)
{
    size_t rs = clreduce_result_size(op, type);
    unsigned char *results = malloc(n * rs);
    assert_non_null(results);
    int untouched;
    size_t k = s->cases++;
    clreduce_status st = scan_on_device(op, type, kind, x, n, k, results, &untouched);
    if (st != CLREDUCE_SUCCESS || !untouched) {
        tc_ops_report(s, "%s: op=%s type=%s %s n=%zu: %s%s%s", tag, clreduce_op_name(op),
                      clreduce_type_name(type), clreduce_scan_kind_name(kind), n,
                      st != CLREDUCE_SUCCESS ? clreduce_status_string(st) : "",
                      st != CLREDUCE_SUCCESS ? clreduce_last_error(g_ctx) : "",
                      untouched ? "" : " results outside the range written");
        free(results);
        return;
    }
    size_t count = positions ? checked : n;
    for (size_t i = 0; i < count; i++)
        if (!check_prefix(s, tag, op, type, kind, x, n, positions ? positions[i] : i, results))
            break; /* one report a scan */
    free(results);
}

/* ---- tests ----------------------------------------------------------------------- */

/* Every operator, type and kind at the awkward sizes, every result
 * checked. */
static void test_shapes(void **state)
{
    (void)state;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "shapes");
    void *x = malloc(4097 * 8);
    assert_non_null(x);
    for (size_t oi = 0; oi < ARRAY_SIZE(scan_ops); oi++)
        for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
            clreduce_op op = scan_ops[oi];
            clreduce_type type = tc_all_types[ti];
            if (!tc_type_supported(g_ctx, type) || !tc_ops_takes(op, type))
                continue;
            for (size_t si = 0; si < ARRAY_SIZE(sizes); si++)
                for (int kind = CLREDUCE_INCLUSIVE; kind <= CLREDUCE_EXCLUSIVE; kind++) {
                    tc_op_fill(op, type, x, sizes[si]);
                    check_scan(&s, "shapes", op, type, (clreduce_scan_kind)kind, x, sizes[si],
                               NULL, 0);
                }
        }
    free(x);
    tc_ops_finish_suite(&s);
}

/* 2^20 + 7 elements, several work-groups' partials: the first and last 40
 * results and 40 at random, for one operator of each kind of accumulator. */
static void test_large(void **state)
{
    (void)state;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "large");
    static const struct {
        clreduce_op op;
        clreduce_type type;
    } cases[] = {{CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT},    {CLREDUCE_OP_ARGMIN, CLREDUCE_INT64},
                 {CLREDUCE_OP_MINMAX, CLREDUCE_UINT32},   {CLREDUCE_OP_SUM_ABS, CLREDUCE_INT32},
                 {CLREDUCE_OP_NORM2, CLREDUCE_FLOAT},     {CLREDUCE_OP_MEAN_VAR, CLREDUCE_DOUBLE},
                 {CLREDUCE_OP_SUM_SQUARES, CLREDUCE_DOUBLE}};
    const size_t n = TC_LARGE_COUNT;
    void *x = malloc(n * 8);
    size_t positions[120];
    assert_non_null(x);
    for (size_t i = 0; i < 40; i++) {
        positions[i] = i;
        positions[40 + i] = n - 40 + i;
    }
    for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
        if (!tc_type_supported(g_ctx, cases[c].type))
            continue;
        for (size_t i = 80; i < 120; i++)
            positions[i] = tc_rand_below(n);
        tc_op_fill(cases[c].op, cases[c].type, x, n);
        clreduce_scan_kind kind = c % 2 ? CLREDUCE_EXCLUSIVE : CLREDUCE_INCLUSIVE;
        check_scan(&s, "large", cases[c].op, cases[c].type, kind, x, n, positions, 120);
    }
    free(x);
    tc_ops_finish_suite(&s);
}

/* argmax and argmin over few distinct values (ties: the first index wins),
 * with signed zeros, and a NaN from a random place on (its index wins from
 * there). */
static void test_ties_and_nan(void **state)
{
    (void)state;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "ties_and_nan");
    const size_t n = 3001;
    double x[3001];
    float xf[3001];
    static const double values[] = {-0.0, 0.0, 1.0, -1.0, 2.0};
    for (int with_nan = 0; with_nan < 2; with_nan++) {
        for (size_t i = 0; i < n; i++)
            x[i] = values[tc_rand_below(ARRAY_SIZE(values))];
        if (with_nan)
            x[1 + tc_rand_below(n - 2)] = NAN;
        for (size_t i = 0; i < n; i++)
            xf[i] = (float)x[i];
        for (int kind = CLREDUCE_INCLUSIVE; kind <= CLREDUCE_EXCLUSIVE; kind++)
            for (int arg = 0; arg < 2; arg++) {
                clreduce_op op = arg ? CLREDUCE_OP_ARGMAX : CLREDUCE_OP_ARGMIN;
                check_scan(&s, "ties", op, CLREDUCE_FLOAT, (clreduce_scan_kind)kind, xf, n, NULL,
                           0);
                if (tc_type_supported(g_ctx, CLREDUCE_DOUBLE))
                    check_scan(&s, "ties", op, CLREDUCE_DOUBLE, (clreduce_scan_kind)kind, x, n,
                               NULL, 0);
            }
    }
    tc_ops_finish_suite(&s);
}

/* The blocking call, against the enqueueing one's references; a scan of no
 * element writes nothing. */
static void test_host(void **state)
{
    (void)state;
    tc_seed_for("host");
    const size_t n = 1000;
    int32_t x[1000];
    unsigned char out[1000 * 16];
    for (size_t i = 0; i < n; i++)
        x[i] = (int32_t)tc_rand_below(2001) - 1000;
    for (int kind = CLREDUCE_INCLUSIVE; kind <= CLREDUCE_EXCLUSIVE; kind++) {
        memset(out, TC_SENTINEL_BYTE, sizeof out);
        assert_int_equal(clreduce_scan_host(g_ctx, CLREDUCE_OP_ARGMIN, CLREDUCE_INT32,
                                            (clreduce_scan_kind)kind, CLREDUCE_SCAN_AUTO, x, n,
                                            out),
                         CLREDUCE_SUCCESS);
        for (size_t j = 0; j < n; j++) {
            char why[256];
            if (!tc_op_check_result(CLREDUCE_OP_ARGMIN, CLREDUCE_INT32, x, NULL,
                                    prefix_length((clreduce_scan_kind)kind, j), out + 16 * j, 0,
                                    why, sizeof why))
                fail_msg("host scan, %s, result %zu: %s",
                         clreduce_scan_kind_name((clreduce_scan_kind)kind), j, why);
        }
    }
    memset(out, TC_SENTINEL_BYTE, sizeof out);
    assert_int_equal(clreduce_scan_host(g_ctx, CLREDUCE_OP_MINMAX, CLREDUCE_INT32,
                                        CLREDUCE_EXCLUSIVE, CLREDUCE_SCAN_AUTO, x, 0, out),
                     CLREDUCE_SUCCESS);
    assert_int_equal(tc_first_changed_outside(out, sizeof out, 0, 0, 1), SIZE_MAX);
    /* reduce_then_scan by name, as auto */
    assert_int_equal(clreduce_check_scan_support(g_ctx, CLREDUCE_OP_MEAN_VAR, CLREDUCE_FLOAT,
                                                 CLREDUCE_SCAN_REDUCE_THEN_SCAN),
                     CLREDUCE_SUCCESS);
}

/* Requests the operators' scans refuse: a clear status and message, nothing
 * written, nothing built. */
static void test_errors(void **state)
{
    (void)state;
    static float in_data[64];
    static unsigned char out_bytes[64 * 32];
    tc_guarded g;
    tc_make_guarded(g_ctx, g_queue, in_data, 64, out_bytes, sizeof out_bytes, &g);
    const clreduce_type f = CLREDUCE_FLOAT;
    const clreduce_scan_kind inc = CLREDUCE_INCLUSIVE;
    TC_EXPECT_FAILURE(&g, g_ctx, "dot scanned", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("dot", "two inputs"),
                      clreduce_scan(g_ctx, g_queue, CLREDUCE_OP_DOT, f, inc, CLREDUCE_SCAN_AUTO,
                                    g.input, 0, 8, g.output, 0, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "argmax by look-back", CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                      WORDS("argmax", "lookback"),
                      clreduce_scan(g_ctx, g_queue, CLREDUCE_OP_ARGMAX, f, inc,
                                    CLREDUCE_SCAN_LOOKBACK, g.input, 0, 8, g.output, 0, 0, NULL,
                                    &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "norm2 of int32", CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                      WORDS("norm2", "int32"),
                      clreduce_scan(g_ctx, g_queue, CLREDUCE_OP_NORM2, CLREDUCE_INT32, inc,
                                    CLREDUCE_SCAN_AUTO, g.input, 0, 8, g.output, 0, 0, NULL,
                                    &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "unknown kind", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("kind"),
                      clreduce_scan(g_ctx, g_queue, CLREDUCE_OP_MINMAX, f, (clreduce_scan_kind)7,
                                    CLREDUCE_SCAN_AUTO, g.input, 0, 8, g.output, 0, 0, NULL,
                                    &done));
    /* 8 results of 16 bytes from result 125 pass the output's 64 * 32 bytes */
    TC_EXPECT_FAILURE(&g, g_ctx, "results past the output", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("output"),
                      clreduce_scan(g_ctx, g_queue, CLREDUCE_OP_ARGMAX, f, inc,
                                    CLREDUCE_SCAN_AUTO, g.input, 0, 8, g.output, 125, 0, NULL,
                                    &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "in place", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("output", "input"),
                      clreduce_scan(g_ctx, g_queue, CLREDUCE_OP_SUM_SQUARES, f, inc,
                                    CLREDUCE_SCAN_AUTO, g.input, 0, 8, g.input, 0, 0, NULL,
                                    &done));
    tc_check_status_and_message("support of argmin by blelloch",
                                clreduce_check_scan_support(g_ctx, CLREDUCE_OP_ARGMIN, f,
                                                            CLREDUCE_SCAN_BLELLOCH),
                                CLREDUCE_ERROR_UNSUPPORTED, g_ctx, WORDS("argmin", "blelloch"));
    tc_release_guarded(&g);
}

int main(void)
{
    g_ctx = tc_start("unit.scan_operators", &g_queue, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),       cmocka_unit_test(test_large),
        cmocka_unit_test(test_ties_and_nan), cmocka_unit_test(test_host),
        cmocka_unit_test(test_errors),
    };
    int failed = tc_run_tests("unit.scan_operators", tests, ARRAY_SIZE(tests));
    return tc_finish(g_ctx, failed, g_queue, NULL);
}
