/* unit.scan_errors: bad input to the scans (clreduce_scan, clreduce_scan_profiled,
 * clreduce_scan_host, clreduce_check_scan_support) returns its exact status
 * and a message that names the problem, writes nothing (neither the
 * buffers nor the event out-parameters) and builds no program. The
 * reductions' bad input is in unit.errors.
 *
 * CLREDUCE_TEST_FILTER=glob runs only the matching tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;

static const clreduce_op all_ops[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_MAX};
static const clreduce_type all_types[] = {CLREDUCE_FLOAT, CLREDUCE_DOUBLE, CLREDUCE_INT32,
                                          CLREDUCE_UINT32, CLREDUCE_INT64, CLREDUCE_UINT64};

enum { ERR_COUNT = 100 };
static cl_mem g_err_in;  /* ERR_COUNT floats */
static cl_mem g_err_out; /* ERR_COUNT floats of sentinel bytes */
static float g_err_in_data[ERR_COUNT];
static unsigned char g_err_sentinel[ERR_COUNT * sizeof(float)];
static tc_guarded g_guarded; /* the two buffers above */

#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define NO_WORDS ((const char *const *)NULL)

/* A call that must fail: its status, a message containing every word of
 * `words` (NULL-terminated), no program built, loaded or looked up in
 * g_ctx, both buffers as they were; `done` and `first` must stay
 * untouched. */
#define EXPECT_FAILURE(what, want, msg_ctx, words, call)                                           \
    TC_EXPECT_FAILURE(&g_guarded, g_ctx, what, want, msg_ctx, words, call)

#define SCAN(ctx, q, op, type, kind, v, in, in_off, n, out, out_off, nw, w)                    \
    clreduce_scan(ctx, q, op, type, kind, v, in, in_off, n, out, out_off, nw, w, &done)
#define SCAN_PROFILED(ctx, q, op, type, kind, v, in, in_off, n, out, out_off, nw, w)           \
    clreduce_scan_profiled(ctx, q, op, type, kind, v, in, in_off, n, out, out_off, nw, w,      \
                           &first, &done)

#define F CLREDUCE_FLOAT
#define SUM CLREDUCE_OP_SUM
#define INCL CLREDUCE_INCLUSIVE
#define EXCL CLREDUCE_EXCLUSIVE
#define RTS CLREDUCE_SCAN_REDUCE_THEN_SCAN

static void test_errors_null(void **state)
{
    (void)state;
    EXPECT_FAILURE("NULL ctx", CLREDUCE_ERROR_INVALID_ARGUMENT, NULL, WORDS("ctx"),
                   SCAN(NULL, g_queue, SUM, F, INCL, RTS, g_err_in, 0, 10, g_err_out, 0, 0,
                        NULL));
    EXPECT_FAILURE("scan_profiled, NULL ctx", CLREDUCE_ERROR_INVALID_ARGUMENT, NULL,
                   WORDS("ctx"),
                   SCAN_PROFILED(NULL, g_queue, SUM, F, INCL, RTS, g_err_in, 0, 10, g_err_out, 0,
                                 0, NULL));
    EXPECT_FAILURE("NULL queue", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("queue"),
                   SCAN(g_ctx, NULL, SUM, F, INCL, RTS, g_err_in, 0, 10, g_err_out, 0, 0, NULL));
    EXPECT_FAILURE("NULL input", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("input"),
                   SCAN(g_ctx, g_queue, SUM, F, EXCL, RTS, NULL, 0, 10, g_err_out, 0, 0, NULL));
    EXPECT_FAILURE("NULL output", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("output"),
                   SCAN(g_ctx, g_queue, SUM, F, INCL, RTS, g_err_in, 0, 10, NULL, 0, 0, NULL));
    EXPECT_FAILURE("scan_profiled, NULL output", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                   WORDS("output"),
                   SCAN_PROFILED(g_ctx, g_queue, SUM, F, INCL, RTS, g_err_in, 0, 10, NULL, 0, 0,
                                 NULL));
    EXPECT_FAILURE("NULL output, count 0", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                   WORDS("output"),
                   SCAN(g_ctx, g_queue, SUM, F, INCL, RTS, g_err_in, 0, 0, NULL, 0, 0, NULL));
    EXPECT_FAILURE("check_scan_support, NULL ctx", CLREDUCE_ERROR_INVALID_ARGUMENT, NULL,
                   WORDS("ctx"), clreduce_check_scan_support(NULL, SUM, F, RTS));
}

static void test_errors_ranges(void **state)
{
    (void)state;
    EXPECT_FAILURE("input_offset past the end, count 0", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                   WORDS("input"),
                   SCAN(g_ctx, g_queue, SUM, F, INCL, RTS, g_err_in, ERR_COUNT + 1, 0, g_err_out,
                        0, 0, NULL));
    EXPECT_FAILURE("input_offset at the end, count 1", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                   WORDS("input"),
                   SCAN(g_ctx, g_queue, SUM, F, INCL, RTS, g_err_in, ERR_COUNT, 1, g_err_out, 0,
                        0, NULL));
    EXPECT_FAILURE("input range one past the end", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                   WORDS("input"),
                   SCAN(g_ctx, g_queue, SUM, F, EXCL, RTS, g_err_in, 50, ERR_COUNT - 49,
                        g_err_out, 0, 0, NULL));
    EXPECT_FAILURE("input_offset SIZE_MAX, count 2 (overflow)", CLREDUCE_ERROR_INVALID_ARGUMENT,
                   g_ctx, WORDS("input"),
                   SCAN(g_ctx, g_queue, SUM, F, INCL, RTS, g_err_in, SIZE_MAX, 2, g_err_out, 0,
                        0, NULL));
    EXPECT_FAILURE("offsets 1, count SIZE_MAX (overflow)", CLREDUCE_ERROR_INVALID_ARGUMENT,
                   g_ctx, NO_WORDS,
                   SCAN(g_ctx, g_queue, SUM, F, INCL, RTS, g_err_in, 1, SIZE_MAX, g_err_out, 1,
                        0, NULL));
    EXPECT_FAILURE("output range one past the end", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                   WORDS("output"),
                   SCAN(g_ctx, g_queue, SUM, F, INCL, RTS, g_err_in, 0, 10, g_err_out,
                        ERR_COUNT - 9, 0, NULL));
    EXPECT_FAILURE("output_offset past the end, count 0", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                   WORDS("output"),
                   SCAN(g_ctx, g_queue, SUM, F, INCL, RTS, g_err_in, 0, 0, g_err_out,
                        ERR_COUNT + 1, 0, NULL));
    EXPECT_FAILURE("output_offset SIZE_MAX, count 1 (overflow)", CLREDUCE_ERROR_INVALID_ARGUMENT,
                   g_ctx, WORDS("output"),
                   SCAN_PROFILED(g_ctx, g_queue, SUM, F, INCL, RTS, g_err_in, 0, 1, g_err_out,
                                 SIZE_MAX, 0, NULL));
    /* 100 floats are 50 eight-byte elements: the element size counts. */
    EXPECT_FAILURE("input range of an 8-byte type", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                   WORDS("input"),
                   SCAN(g_ctx, g_queue, SUM, CLREDUCE_UINT64, INCL, RTS, g_err_in, 1,
                        ERR_COUNT / 2, g_err_out, 0, 0, NULL));
    EXPECT_FAILURE("output range of an 8-byte type", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                   WORDS("output"),
                   SCAN(g_ctx, g_queue, CLREDUCE_OP_MAX, CLREDUCE_INT64, EXCL, RTS, g_err_in, 0,
                        ERR_COUNT / 2, g_err_out, 1, 0, NULL));
}

static void test_errors_unknown_enums(void **state)
{
    (void)state;
    static const struct {
        const char *what;
        int op, type, kind, variant;
        const char *word;
        size_t count;
    } bad[] = {
        {"op 11", 11, F, INCL, RTS, "op", 10},
        {"op 99", 99, F, INCL, RTS, "op", 10},
        {"op -1", -1, F, INCL, RTS, "op", 10},
        {"op 11, count 0", 11, F, INCL, RTS, "op", 0},
        {"type 8", SUM, 8, INCL, RTS, "type", 10},
        {"type -1", SUM, -1, EXCL, RTS, "type", 10},
        {"type 8, count 0", SUM, 8, INCL, RTS, "type", 0},
        {"argmax of half", CLREDUCE_OP_ARGMAX, CLREDUCE_HALF, INCL, RTS, "storage type", 10},
        {"kind 2", SUM, F, 2, RTS, "kind", 10},
        {"kind -1", SUM, F, -1, RTS, "kind", 10},
        {"kind 99, count 0", SUM, F, 99, RTS, "kind", 0},
        {"variant CLREDUCE_SCAN_VARIANT_COUNT", SUM, F, INCL, CLREDUCE_SCAN_VARIANT_COUNT,
         "variant", 10},
        {"variant 99", SUM, F, EXCL, 99, "variant", 10},
        {"variant -1", SUM, F, INCL, -1, "variant", 10},
        {"variant 99, count 0", SUM, F, INCL, 99, "variant", 0},
    };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        char what[96];
        clreduce_op op = (clreduce_op)bad[i].op;
        clreduce_type type = (clreduce_type)bad[i].type;
        clreduce_scan_kind kind = (clreduce_scan_kind)bad[i].kind;
        clreduce_scan_variant v = (clreduce_scan_variant)bad[i].variant;
        snprintf(what, sizeof what, "%s", bad[i].what);
        EXPECT_FAILURE(what, CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS(bad[i].word),
                       SCAN(g_ctx, g_queue, op, type, kind, v, g_err_in, 0, bad[i].count,
                            g_err_out, 0, 0, NULL));
        snprintf(what, sizeof what, "scan_profiled, %s", bad[i].what);
        EXPECT_FAILURE(what, CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS(bad[i].word),
                       SCAN_PROFILED(g_ctx, g_queue, op, type, kind, v, g_err_in, 0,
                                     bad[i].count, g_err_out, 0, 0, NULL));
        float host_in[4] = {1, 2, 3, 4}, host_out[4] = {9, 9, 9, 9};
        snprintf(what, sizeof what, "scan_host, %s", bad[i].what);
        EXPECT_FAILURE(what, CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS(bad[i].word),
                       clreduce_scan_host(g_ctx, op, type, kind, v, host_in,
                                          bad[i].count ? 4 : 0, host_out));
        assert_true(host_out[0] == 9 && host_out[3] == 9);
        if ((bad[i].kind == INCL || bad[i].kind == EXCL) && bad[i].count) {
            /* check_scan_support agrees (it has no kind). */
            snprintf(what, sizeof what, "check_scan_support, %s", bad[i].what);
            EXPECT_FAILURE(what, CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS(bad[i].word),
                           clreduce_check_scan_support(g_ctx, op, type, v));
        }
    }
}

/* Ranges in one buffer that share some elements but are not the same. */
static void test_errors_overlap(void **state)
{
    (void)state;
    static const struct {
        size_t in_off, out_off, count;
    } cases[] = {
        {10, 15, 20}, /* output starts inside the input   */
        {15, 10, 20}, /* output ends inside the input     */
        {10, 11, 20}, /* by one element, after            */
        {11, 10, 20}, /* by one element, before           */
        {10, 29, 20}, /* on the input's last element      */
        {29, 10, 20}, /* on the input's first element     */
        {0, 1, ERR_COUNT - 1},
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        char what[96];
        snprintf(what, sizeof what, "input [%zu, %zu), output [%zu, %zu) of one buffer",
                 cases[i].in_off, cases[i].in_off + cases[i].count, cases[i].out_off,
                 cases[i].out_off + cases[i].count);
        EXPECT_FAILURE(what, CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("overlap"),
                       SCAN(g_ctx, g_queue, (clreduce_op)(i % 3), F, (clreduce_scan_kind)(i % 2),
                            (clreduce_scan_variant)(i % CLREDUCE_SCAN_VARIANT_COUNT), g_err_in,
                            cases[i].in_off, cases[i].count, g_err_in, cases[i].out_off, 0,
                            NULL));
    }
    /* The host entry point: output inside the input, not equal to it. */
    float host[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const float copy[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    EXPECT_FAILURE("scan_host, output = input + 1", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                   WORDS("overlap"),
                   clreduce_scan_host(g_ctx, SUM, F, INCL, CLREDUCE_SCAN_AUTO, host, 4,
                                      host + 1));
    EXPECT_FAILURE("scan_host, output = input - 3", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                   WORDS("overlap"),
                   clreduce_scan_host(g_ctx, SUM, F, EXCL, CLREDUCE_SCAN_AUTO, host + 3, 4,
                                      host));
    assert_memory_equal(host, copy, sizeof host);
}

static void test_errors_foreign_objects(void **state)
{
    (void)state;
    tc_foreign other;
    tc_make_foreign(g_ctx, sizeof g_err_in_data, sizeof g_err_in_data, &other);
    EXPECT_FAILURE(
        "queue of another context", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("queue"),
        SCAN(g_ctx, other.queue, SUM, F, INCL, RTS, g_err_in, 0, 10, g_err_out, 0, 0, NULL));
    EXPECT_FAILURE(
        "input of another context", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
        WORDS("input", "context"),
        SCAN(g_ctx, g_queue, SUM, F, INCL, RTS, other.input, 0, 10, g_err_out, 0, 0, NULL));
    EXPECT_FAILURE(
        "output of another context", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
        WORDS("output", "context"),
        SCAN(g_ctx, g_queue, SUM, F, INCL, RTS, g_err_in, 0, 10, other.output, 0, 0, NULL));
    EXPECT_FAILURE(
        "count 0 into an output of another context", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
        WORDS("output", "context"),
        SCAN(g_ctx, g_queue, SUM, F, INCL, RTS, g_err_in, 0, 0, other.output, 0, 0, NULL));
    tc_release_foreign(&other);
}

static void test_errors_wait_list(void **state)
{
    (void)state;
    cl_event ev = tc_user_event(g_ctx);
    EXPECT_FAILURE("num_wait 2, wait NULL", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                   WORDS("wait"),
                   SCAN(g_ctx, g_queue, SUM, F, INCL, RTS, g_err_in, 0, 10, g_err_out, 0, 2,
                        NULL));
    EXPECT_FAILURE("num_wait 0, wait not NULL", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                   WORDS("wait"),
                   SCAN(g_ctx, g_queue, SUM, F, INCL, RTS, g_err_in, 0, 10, g_err_out, 0, 0,
                        &ev));
    EXPECT_FAILURE("num_wait 2, wait NULL, count 0", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                   WORDS("wait"),
                   SCAN_PROFILED(g_ctx, g_queue, SUM, F, INCL, RTS, g_err_in, 0, 0, g_err_out, 0,
                                 2, NULL));
    assert_int_equal(clSetUserEventStatus(ev, CL_COMPLETE), CL_SUCCESS);
    clReleaseEvent(ev);
}

static void test_errors_scan_host(void **state)
{
    (void)state;
    float in[4] = {1, 2, 3, 4}, out[4] = {9, 9, 9, 9};
    EXPECT_FAILURE("scan_host, NULL ctx", CLREDUCE_ERROR_INVALID_ARGUMENT, NULL, WORDS("ctx"),
                   clreduce_scan_host(NULL, SUM, F, INCL, RTS, in, 4, out));
    EXPECT_FAILURE("scan_host, NULL input, count 4", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                   WORDS("input"), clreduce_scan_host(g_ctx, SUM, F, INCL, RTS, NULL, 4, out));
    EXPECT_FAILURE("scan_host, NULL output, count 4", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                   WORDS("output"), clreduce_scan_host(g_ctx, SUM, F, EXCL, RTS, in, 4, NULL));
    assert_true(out[0] == 9 && out[1] == 9 && out[2] == 9 && out[3] == 9);
    assert_true(in[0] == 1 && in[3] == 4);
}

/* double without fp64 and LOOKBACK without ordering between work-groups,
 * where this device lacks them; check_scan_support and clreduce_scan agree. */
static void test_errors_unsupported(void **state)
{
    (void)state;
    int seen = 0;
    for (int vi = 0; vi < CLREDUCE_SCAN_VARIANT_COUNT; vi++)
        for (size_t ti = 0; ti < ARRAY_SIZE(all_types); ti++)
            for (size_t oi = 0; oi < ARRAY_SIZE(all_ops); oi++) {
                clreduce_scan_variant v = (clreduce_scan_variant)vi;
                clreduce_type type = all_types[ti];
                clreduce_op op = all_ops[oi];
                clreduce_cache_stats before = tc_cache_stats(g_ctx);
                clreduce_status st = clreduce_check_scan_support(g_ctx, op, type, v);
                clreduce_cache_stats after = tc_cache_stats(g_ctx);
                assert_memory_equal(&after, &before, sizeof after); /* builds nothing */
                if (st == CLREDUCE_SUCCESS)
                    continue;
                assert_int_equal(st, CLREDUCE_ERROR_UNSUPPORTED);
                seen++;
                const char *word = type == CLREDUCE_DOUBLE &&
                                           clreduce_check_scan_support(g_ctx, op, type, RTS) !=
                                               CLREDUCE_SUCCESS
                                       ? "fp64"
                                       : NULL;
                char what[96];
                snprintf(what, sizeof what, "unsupported: %s %s %s", tc_scan_variant_name(v),
                         tc_op_name(op), tc_type_name(type));
                EXPECT_FAILURE(what, CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                               word ? WORDS(word) : NO_WORDS,
                               SCAN(g_ctx, g_queue, op, type, INCL, v, g_err_in, 0, 10,
                                    g_err_out, 0, 0, NULL));
                double host[4] = {1, 2, 3, 4}, host_out[4] = {9, 9, 9, 9};
                snprintf(what, sizeof what, "scan_host, unsupported: %s %s %s",
                         tc_scan_variant_name(v), tc_op_name(op), tc_type_name(type));
                EXPECT_FAILURE(what, CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                               word ? WORDS(word) : NO_WORDS,
                               clreduce_scan_host(g_ctx, op, type, EXCL, v, host, 4, host_out));
                assert_true(host_out[0] == 9 && host_out[3] == 9);
            }
    if (!seen)
        print_message("note: every scan variant, operator and type runs here: unsupported "
                      "requests not exercised\n");
}

#undef F
#undef SUM
#undef INCL
#undef EXCL
#undef RTS

int main(void)
{
    g_ctx = tc_start("unit.scan_errors", &g_queue, NULL);
    tc_make_guarded(g_ctx, g_queue, g_err_in_data, ERR_COUNT, g_err_sentinel, sizeof g_err_sentinel,
                    &g_guarded);
    g_err_in = g_guarded.input;
    g_err_out = g_guarded.output;

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors_null),
        cmocka_unit_test(test_errors_ranges),
        cmocka_unit_test(test_errors_unknown_enums),
        cmocka_unit_test(test_errors_overlap),
        cmocka_unit_test(test_errors_foreign_objects),
        cmocka_unit_test(test_errors_wait_list),
        cmocka_unit_test(test_errors_scan_host),
        cmocka_unit_test(test_errors_unsupported),
    };
    int failed = tc_run_tests("unit.scan_errors", tests, ARRAY_SIZE(tests));

    tc_release_guarded(&g_guarded);
    return tc_finish(g_ctx, failed, g_queue, NULL);
}
