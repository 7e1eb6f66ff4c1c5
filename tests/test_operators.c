/* unit.operators: the operators past sum, min and max (argmin, argmax,
 * minmax, sum of squares, sum of absolute values, norm2, mean and variance,
 * dot) on every type they take and on the variants that run them, against
 * CPU references (long double, exact integers), with the input at an offset
 * between poisoned elements and the result at an offset between sentinels;
 * ties, NaN and signed zeros for argmin/argmax; norms near the largest
 * float; variance of data of mean 10^6 and spread 1; dot with one buffer for
 * both inputs; results of no element; bad arguments.
 *
 * Types: argmin, argmax, minmax, sum_squares, sum_abs and dot on all six;
 * norm2 and mean_var on float and double (integers are refused).
 *
 * CLREDUCE_TEST_SEED=n repeats a run's random data; CLREDUCE_TEST_FILTER=glob
 * runs only the matching tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "test_common_ops.h"

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;
static cl_command_queue g_read_queue;

static const size_t all_sizes[] = {1, 31, 33, 255, 257, 4097, TC_LARGE_COUNT};

static const clreduce_op all_ops[] = {CLREDUCE_OP_ARGMIN,      CLREDUCE_OP_ARGMAX,
                                      CLREDUCE_OP_MINMAX,      CLREDUCE_OP_SUM_SQUARES,
                                      CLREDUCE_OP_SUM_ABS,     CLREDUCE_OP_NORM2,
                                      CLREDUCE_OP_MEAN_VAR,    CLREDUCE_OP_DOT};

#define RESULT_MAX 32
#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ---- one reduction on the device ---------------------------------------------- */

/* Where the ranges lie in case k: the input after 3 or 5 poisoned elements,
 * 0 or 17 after it; y (dot) in its own buffer after 7, or x's range itself;
 * the result at 1 or 2 of 4 results; the upload through the wait list or
 * blocking. */
typedef enum alias_mode { SEPARATE_Y, SAME_RANGE } alias_mode;

typedef struct device_run {
    clreduce_status status;
    unsigned char result[RESULT_MAX];
    int neighbours_untouched;
    char problem[160];
} device_run;


static void run_on_device(clreduce_ctx *ctx, cl_command_queue queue, clreduce_op op,
                          clreduce_type type, clreduce_variant variant, const void *x,
                          const void *y, size_t n, size_t k, alias_mode alias, device_run *run)
{
    memset(run, 0, sizeof *run);
    size_t es = tc_elem_size(type), rs = clreduce_result_size(op, type);
    size_t lead = (k & 1) ? 5 : 3, tail = (k % 3) ? 17 : 0, res_off = 1 + ((k >> 1) & 1);
    int use_wait = (int)((k >> 2) & 1);
    size_t total = lead + n + tail;
    unsigned char *host = malloc(total * es), *yhost = NULL;
    unsigned char res[4 * RESULT_MAX];
    tc_value poison;
    tc_op_poison(op, type, &poison);
    for (size_t i = 0; i < total; i++)
        tc_set(type, host, i, &poison);
    if (n)
        memcpy(host + lead * es, x, n * es);
    size_t ylead = 7, ytotal = ylead + n + tail;
    if (op == CLREDUCE_OP_DOT && alias == SEPARATE_Y) {
        yhost = malloc(ytotal * es);
        for (size_t i = 0; i < ytotal; i++)
            tc_set(type, yhost, i, &poison);
        if (n)
            memcpy(yhost + ylead * es, y, n * es);
    }
    memset(res, TC_SENTINEL_BYTE, sizeof res);
    cl_mem in = tc_make_buffer(ctx, total * es, use_wait ? NULL : host);
    cl_mem yb = yhost ? tc_make_buffer(ctx, ytotal * es, yhost) : NULL;
    cl_mem out = tc_make_buffer(ctx, 4 * rs, res);
    cl_event upload = NULL, done = TC_EVENT_SENTINEL;
    if (use_wait)
        assert_int_equal(clEnqueueWriteBuffer(queue, in, CL_FALSE, 0, total * es, host, 0, NULL,
                                              &upload),
                         CL_SUCCESS);
    if (op == CLREDUCE_OP_DOT) {
        cl_mem ybuf = yb ? yb : in;
        size_t yoff = yb ? ylead : lead;
        run->status = clreduce_dot(ctx, queue, type, variant, in, lead, ybuf, yoff, n, out,
                                   res_off, upload ? 1 : 0, upload ? &upload : NULL, &done);
    } else {
        run->status = clreduce_reduce(ctx, queue, op, type, variant, in, lead, n, out, res_off,
                                      upload ? 1 : 0, upload ? &upload : NULL, &done);
    }
    int have_done = run->status == CLREDUCE_SUCCESS;
    if (have_done && done == TC_EVENT_SENTINEL)
        snprintf(run->problem, sizeof run->problem, "no done event");
    if (!have_done && done != TC_EVENT_SENTINEL)
        snprintf(run->problem, sizeof run->problem, "done written on error");
    have_done = have_done && done != TC_EVENT_SENTINEL;
    tc_read_buffer(have_done ? g_read_queue : queue, out, res, 4 * rs, have_done ? 1 : 0,
                   have_done ? &done : NULL);
    if (have_done)
        clReleaseEvent(done);
    assert_int_equal(clFinish(queue), CL_SUCCESS);
    memcpy(run->result, res + res_off * rs, rs);
    run->neighbours_untouched = 1;
    for (size_t i = 0; i < 4 * rs; i++)
        if ((i < res_off * rs || i >= (res_off + 1) * rs) && res[i] != TC_SENTINEL_BYTE)
            run->neighbours_untouched = 0;
    if (upload) {
        clWaitForEvents(1, &upload);
        clReleaseEvent(upload);
    }
    clReleaseMemObject(in);
    if (yb)
        clReleaseMemObject(yb);
    clReleaseMemObject(out);
    free(host);
    free(yhost);
}

/* Runs op on x (y) and checks the result against the reference. */
static int check_case(tc_suite *s, const char *tag, clreduce_op op, clreduce_type type,
                      clreduce_variant v, const void *x, const void *y, size_t n, alias_mode alias,
                      long double var_tol)
{
    device_run run;
    size_t k = s->cases++;
    run_on_device(s->ctx, g_queue, op, type, v, x, alias == SEPARATE_Y ? y : x, n, k, alias,
                  &run);
    char why[512] = "";
    const void *yref = op != CLREDUCE_OP_DOT ? NULL : alias == SEPARATE_Y ? y : x;
    int ok = run.status == CLREDUCE_SUCCESS && run.neighbours_untouched && !run.problem[0];
    if (ok)
        ok = tc_op_check_result(op, type, x, yref, n, run.result, var_tol, why, sizeof why);
    if (!ok)
        tc_ops_report(s, "%s: op=%s type=%s variant=%s n=%zu case=%zu: %s%s%s%s%s%s", tag,
                      clreduce_op_name(op), clreduce_type_name(type), clreduce_variant_name(v), n,
                      k, why,
                      run.status != CLREDUCE_SUCCESS ? clreduce_status_string(run.status) : "",
                      run.status != CLREDUCE_SUCCESS ? ": " : "",
                      run.status != CLREDUCE_SUCCESS ? clreduce_last_error(s->ctx) : "",
                      run.neighbours_untouched ? "" : " (results next to it written)",
                      run.problem);
    return ok;
}

/* check_case of op on x alone (no y), with mean_var's m2 exact. */
static void check_x(tc_suite *s, const char *tag, clreduce_op op, clreduce_type type,
                    clreduce_variant v, const void *x, size_t n)
{
    check_case(s, tag, op, type, v, x, NULL, n, SEPARATE_Y, 0);
}

/* ---- tests ------------------------------------------------------------------------ */

/* The suite of test `name` on variant v, labelled name_<variant> in label,
 * its data seeded by that label. */
static tc_suite variant_suite(const char *name, clreduce_variant v, char label[64])
{
    snprintf(label, 64, "%s_%s", name, clreduce_variant_name(v));
    return tc_ops_seeded_suite(g_ctx, label);
}

/* An operator and a type it takes. */
typedef struct op_type {
    clreduce_op op;
    clreduce_type type;
} op_type;

#define MAX_OP_TYPES (ARRAY_SIZE(all_ops) * ARRAY_SIZE(tc_all_types))

/* Every operator of all_ops with each type that it and the device take,
 * operator by operator, into pairs; returns how many. */
static size_t op_types(op_type *pairs)
{
    size_t count = 0;
    for (size_t oi = 0; oi < ARRAY_SIZE(all_ops); oi++)
        for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
            op_type p = {all_ops[oi], tc_all_types[ti]};
            if (tc_type_supported(g_ctx, p.type) && tc_ops_takes(p.op, p.type))
                pairs[count++] = p;
        }
    return count;
}

/* The cases of a test on float and double at one size n, on x (room for
 * TC_LARGE_COUNT elements). */
typedef void (*float_cases)(tc_suite *s, clreduce_type type, void *x, size_t n);

/* Runs `cases` on float, then on double where the device has it, at each of
 * sizes[0 .. 4), as the suite `label`, its data seeded by that name;
 * returns the suite, for tc_ops_finish_suite. */
static tc_suite run_float_cases(const char *label, const size_t sizes[4], float_cases cases)
{
    tc_suite s = tc_ops_seeded_suite(g_ctx, label);
    void *x = malloc(TC_LARGE_COUNT * 8);
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = ti ? CLREDUCE_DOUBLE : CLREDUCE_FLOAT;
        if (!tc_type_supported(g_ctx, type))
            continue;
        for (size_t si = 0; si < 4; si++)
            cases(&s, type, x, sizes[si]);
    }
    free(x);
    return s;
}

/* A test of run_float_cases: its name (the suite's), sizes and cases. */
typedef struct float_test {
    const char *name;
    size_t sizes[4];
    float_cases cases;
} float_test;

/* The test *state, a float_test. */
static void test_float_cases(void **state)
{
    const float_test *t = *state;
    tc_suite s = run_float_cases(t->name, t->sizes, t->cases);
    tc_ops_finish_suite(&s);
}

/* Every operator, type and size against the reference, on one variant. */
static void test_random(void **state)
{
    clreduce_variant v = *(const clreduce_variant *)*state;
    char label[64];
    tc_suite s = variant_suite("random", v, label);
    void *x = malloc(TC_LARGE_COUNT * 8), *y = malloc(TC_LARGE_COUNT * 8);
    op_type pairs[MAX_OP_TYPES];
    for (size_t pi = 0, count = op_types(pairs); pi < count; pi++) {
        clreduce_op op = pairs[pi].op;
        clreduce_type type = pairs[pi].type;
        assert_int_equal(clreduce_check_support(g_ctx, op, type, v), CLREDUCE_SUCCESS);
        for (size_t si = 0; si < ARRAY_SIZE(all_sizes); si++) {
            size_t n = all_sizes[si];
            tc_op_fill(op, type, x, n);
            tc_op_fill(op, type, y, n);
            check_case(&s, "random", op, type, v, x, y, n, SEPARATE_Y,
                       tc_op_variance_tolerance(type));
        }
    }
    free(x);
    free(y);
    tc_ops_finish_suite(&s);
}

/* The unsupported variants say so, in check_support and in the call, and
 * write nothing. */
static void test_unsupported_variants(void **state)
{
    (void)state;
    for (int v = 0; v < CLREDUCE_VARIANT_COUNT; v++) {
        for (size_t oi = 0; oi < ARRAY_SIZE(all_ops); oi++) {
            /* The reproducible variant fixes the order of the sums of a
             * map, and runs those whose bits have no order as auto; it
             * refuses norm2 and mean_var. */
            clreduce_op op = all_ops[oi];
            int runs = v == CLREDUCE_AUTO || v == CLREDUCE_GRID_STRIDE ||
                       v == CLREDUCE_SINGLE_PASS ||
                       (v == CLREDUCE_REPRODUCIBLE && op != CLREDUCE_OP_NORM2 &&
                        op != CLREDUCE_OP_MEAN_VAR);
            clreduce_status st = clreduce_check_support(g_ctx, all_ops[oi], CLREDUCE_FLOAT,
                                                        (clreduce_variant)v);
            if (runs)
                assert_int_equal(st, CLREDUCE_SUCCESS);
            else
                tc_check_status_and_message(clreduce_variant_name((clreduce_variant)v), st,
                                            CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                                            WORDS(clreduce_op_name(all_ops[oi]),
                                                  clreduce_variant_name((clreduce_variant)v)));
        }
    }
}

/* argmin/argmax: ties, NaN where it wins, signed zeros, the identity's
 * value itself; on floats, and ties and extremes on integers. */
static void test_arg_special(void **state)
{
    clreduce_variant v = *(const clreduce_variant *)*state;
    char label[64];
    tc_suite s = variant_suite("arg_special", v, label);
    void *x = malloc(TC_LARGE_COUNT * 8);
    static const size_t sizes[] = {1, 2, 31, 33, 257, 4097, TC_LARGE_COUNT};
    for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
        clreduce_type type = tc_all_types[ti];
        if (!tc_type_supported(g_ctx, type))
            continue;
        int fl = tc_is_float_type(type);
        for (int a = 0; a < 2; a++) {
            clreduce_op op = a ? CLREDUCE_OP_ARGMAX : CLREDUCE_OP_ARGMIN;
            for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
                size_t n = sizes[si];
                /* Ties: few distinct values, the extreme at several places. */
                for (size_t i = 0; i < n; i++) {
                    tc_value val;
                    memset(&val, 0, sizeof val);
                    if (fl)
                        tc_set_double(type, x, i, (double)tc_rand_below(10));
                    else {
                        val.u64 = tc_rand_below(10);
                        tc_set(type, x, i, &val);
                    }
                }
                check_x(&s, "ties", op, type, v, x, n);
                /* Every element equal to the identity's extreme value. */
                tc_value id;
                tc_identity(a ? CLREDUCE_OP_MAX : CLREDUCE_OP_MIN, type, &id);
                for (size_t i = 0; i < n; i++)
                    tc_set(type, x, i, &id);
                check_x(&s, "all the identity's value", op, type, v, x, n);
                if (!fl)
                    continue;
                tc_fill_random(type, x, n);
                tc_set_double(type, x, 0, NAN);
                check_x(&s, "NaN first", op, type, v, x, n);
                tc_fill_random(type, x, n);
                tc_set_double(type, x, n - 1, NAN);
                check_x(&s, "NaN last", op, type, v, x, n);
                tc_fill_random(type, x, n);
                for (int j = 0; j < 3; j++)
                    tc_set_double(type, x, tc_rand_below(n), j == 1 ? -NAN : NAN);
                check_x(&s, "NaN at random places", op, type, v, x, n);
                for (size_t i = 0; i < n; i++)
                    tc_set_double(type, x, i, (tc_rand64() & 1) ? -NAN : NAN);
                check_x(&s, "all NaN", op, type, v, x, n);
                for (size_t i = 0; i < n; i++)
                    tc_set_double(type, x, i, (tc_rand64() & 1) ? -0.0 : 0.0);
                check_x(&s, "zeros of both signs", op, type, v, x, n);
                for (size_t i = 0; i < n; i++)
                    tc_set_double(type, x, i, 0.0);
                tc_set_double(type, x, n - 1, -0.0);
                check_x(&s, "-0.0 last among +0.0", op, type, v, x, n);
                for (size_t i = 0; i < n; i++)
                    tc_set_double(type, x, i, a ? -INFINITY : INFINITY);
                tc_set_double(type, x, n / 2, a ? INFINITY : -INFINITY);
                check_x(&s, "one opposite infinity", op, type, v, x, n);
            }
        }
    }
    free(x);
    tc_ops_finish_suite(&s);
}

/* minmax of special values: NaN, infinities, signed zeros. */
static void minmax_special_cases(tc_suite *s, clreduce_type type, void *x, size_t n)
{
    tc_fill_random(type, x, n);
    tc_set_double(type, x, tc_rand_below(n), (tc_rand64() & 1) ? -NAN : NAN);
    check_x(s, "a NaN", CLREDUCE_OP_MINMAX, type, CLREDUCE_AUTO, x, n);
    for (size_t i = 0; i < n; i++)
        tc_set_double(type, x, i, (tc_rand64() & 1) ? -0.0 : 0.0);
    check_x(s, "zeros", CLREDUCE_OP_MINMAX, type, CLREDUCE_AUTO, x, n);
    tc_fill_random(type, x, n);
    tc_set_double(type, x, tc_rand_below(n), INFINITY);
    tc_set_double(type, x, tc_rand_below(n), -INFINITY);
    check_x(s, "infinities", CLREDUCE_OP_MINMAX, type, CLREDUCE_AUTO, x, n);
}

static const float_test minmax_special = {"minmax_special", {1, 33, 4097, TC_LARGE_COUNT},
                                          minmax_special_cases};

/* norm2 where the squares overflow or underflow the type, but the norm
 * does not; where the norm itself overflows; NaN and infinities. */
static void norm_extremes_cases(tc_suite *s, clreduce_type type, void *x, size_t n)
{
    int dbl = type == CLREDUCE_DOUBLE;
    double big = dbl ? DBL_MAX : FLT_MAX, tiny = dbl ? 0x1p-1070 : 0x1p-145;
    /* Near the largest value, the norm below it: |x| <= max/sqrt(2n). */
    double scale = big / sqrt(2.0 * (double)n);
    for (size_t i = 0; i < n; i++)
        tc_set_double(type, x, i, scale * (2 * tc_rand_unit() - 1));
    tc_set_double(type, x, tc_rand_below(n), scale);
    check_x(s, "near the largest value", CLREDUCE_OP_NORM2, type, CLREDUCE_AUTO, x, n);
    check_x(s, "near the largest value", CLREDUCE_OP_NORM2, type, CLREDUCE_GRID_STRIDE, x, n);
    /* Every element the largest value over sqrt(n) (norm ~ max). */
    for (size_t i = 0; i < n; i++)
        tc_set_double(type, x, i, (i & 1 ? -1 : 1) * big / sqrt((double)n) * 0.999);
    check_x(s, "norm just below the largest value", CLREDUCE_OP_NORM2, type, CLREDUCE_AUTO, x,
            n);
    /* The norm overflows: +inf. */
    for (size_t i = 0; i < n; i++)
        tc_set_double(type, x, i, big * 0.75);
    if (n > 1)
        check_x(s, "norm past the largest value", CLREDUCE_OP_NORM2, type, CLREDUCE_AUTO, x, n);
    /* Subnormals and values whose squares underflow. */
    for (size_t i = 0; i < n; i++)
        tc_set_double(type, x, i, tiny * (double)(1 + tc_rand_below(1000)));
    check_x(s, "squares below the smallest value", CLREDUCE_OP_NORM2, type, CLREDUCE_AUTO, x,
            n);
    /* Mixed: one huge, the rest tiny or ordinary. */
    for (size_t i = 0; i < n; i++)
        tc_set_double(type, x, i, (tc_rand64() & 1) ? tiny * 3 : 2 * tc_rand_unit() - 1);
    tc_set_double(type, x, tc_rand_below(n), big / 4);
    check_x(s, "one huge among small ones", CLREDUCE_OP_NORM2, type, CLREDUCE_AUTO, x, n);
    tc_fill_random(type, x, n);
    tc_set_double(type, x, tc_rand_below(n), INFINITY);
    check_x(s, "an infinity", CLREDUCE_OP_NORM2, type, CLREDUCE_AUTO, x, n);
    tc_set_double(type, x, tc_rand_below(n), NAN);
    check_x(s, "a NaN", CLREDUCE_OP_NORM2, type, CLREDUCE_AUTO, x, n);
    for (size_t i = 0; i < n; i++)
        tc_set_double(type, x, i, 0.0);
    check_x(s, "zeros", CLREDUCE_OP_NORM2, type, CLREDUCE_AUTO, x, n);
}

static const float_test norm_extremes = {"norm_extremes", {1, 33, 4097, TC_LARGE_COUNT},
                                         norm_extremes_cases};

/* Mean 10^6 and spread 1, compared with a two-pass reference, within the
 * bound clreduce.h states; also with the spread's sign pattern ordered
 * (a rising ramp) and with every value equal. */
static void variance_adversarial_cases(tc_suite *s, clreduce_type type, void *x, size_t n)
{
    for (int vi = 0; vi < 2; vi++) {
        clreduce_variant v = vi ? CLREDUCE_GRID_STRIDE : CLREDUCE_AUTO;
        for (size_t i = 0; i < n; i++)
            tc_set_double(type, x, i, 1e6 + (2 * tc_rand_unit() - 1) * sqrt(3.0));
        check_case(s, "mean 1e6, spread 1", CLREDUCE_OP_MEAN_VAR, type, v, x, NULL, n,
                   SEPARATE_Y, tc_op_variance_tolerance(type));
        for (size_t i = 0; i < n; i++)
            tc_set_double(type, x, i, 1e6 + 2.0 * (double)i / (double)n - 1.0);
        check_case(s, "mean 1e6, a ramp of width 2", CLREDUCE_OP_MEAN_VAR, type, v, x, NULL, n,
                   SEPARATE_Y, tc_op_variance_tolerance(type));
        for (size_t i = 0; i < n; i++)
            tc_set_double(type, x, i, 1e6 + 0.5);
        check_x(s, "all equal", CLREDUCE_OP_MEAN_VAR, type, v, x, n);
    }
}

/* variance_adversarial_cases, then the largest error of m2 they met. */
static void test_variance_adversarial(void **state)
{
    (void)state;
    static const size_t sizes[4] = {2, 33, 4097, TC_LARGE_COUNT};
    tc_op_worst_m2[0] = tc_op_worst_m2[1] = 0;
    tc_suite s = run_float_cases("variance_adversarial", sizes, variance_adversarial_cases);
    printf("largest relative error of m2: float %.3Lg (allowed %.3Lg), double %.3Lg (allowed "
           "%.3Lg)\n",
           tc_op_worst_m2[0], tc_op_variance_tolerance(CLREDUCE_FLOAT), tc_op_worst_m2[1],
           tc_op_variance_tolerance(CLREDUCE_DOUBLE));
    tc_ops_finish_suite(&s);
}

/* argmin, argmax, minmax and mean_var of float and double over 2^22 + 3
 * elements, AUTO: past the sizes at which CPU runtimes take wider vectors
 * (float) or more work-groups (double, Intel's runtime; src/tuning.c). */
static void test_large(void **state)
{
    (void)state;
    static const clreduce_op ops[] = {CLREDUCE_OP_ARGMIN, CLREDUCE_OP_ARGMAX,
                                      CLREDUCE_OP_MINMAX, CLREDUCE_OP_MEAN_VAR};
    static const clreduce_type types[] = {CLREDUCE_FLOAT, CLREDUCE_DOUBLE};
    const size_t n = ((size_t)1 << 22) + 3;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "large");
    void *x = malloc(n * 8);
    assert_non_null(x);
    for (size_t ti = 0; ti < ARRAY_SIZE(types); ti++) {
        if (!tc_type_supported(g_ctx, types[ti]))
            continue;
        for (size_t oi = 0; oi < ARRAY_SIZE(ops); oi++) {
            tc_op_fill(ops[oi], types[ti], x, n);
            check_case(&s, "large", ops[oi], types[ti], CLREDUCE_AUTO, x, NULL, n, SEPARATE_Y,
                       tc_op_variance_tolerance(types[ti]));
        }
    }
    free(x);
    tc_ops_finish_suite(&s);
}

/* dot with one buffer for both inputs: the same range, and ranges that
 * overlap; the result overlapping either input is refused. */
static void test_dot_alias(void **state)
{
    (void)state;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "dot_alias");
    void *x = malloc((TC_LARGE_COUNT + 2) * 8);
    static const size_t sizes[] = {1, 33, 4097, TC_LARGE_COUNT};
    for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
        clreduce_type type = tc_all_types[ti];
        if (!tc_type_supported(g_ctx, type))
            continue;
        for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
            size_t n = sizes[si];
            tc_op_fill(CLREDUCE_OP_DOT, type, x, n);
            check_case(&s, "x and y the same range", CLREDUCE_OP_DOT, type, CLREDUCE_AUTO, x,
                       NULL, n, SAME_RANGE, 0);
        }
    }
    /* Overlapping ranges of one buffer: y = x + 2. */
    for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
        size_t n = sizes[si];
        float *f = x;
        for (size_t i = 0; i < n + 2; i++)
            f[i] = (float)(2 * tc_rand_unit() - 1);
        cl_mem in = tc_make_buffer(g_ctx, (n + 2) * 4, f);
        cl_mem out = tc_make_buffer(g_ctx, 4, NULL);
        float got = 0;
        assert_int_equal(clreduce_dot(g_ctx, g_queue, CLREDUCE_FLOAT, CLREDUCE_AUTO, in, 0, in, 2,
                                      n, out, 0, 0, NULL, NULL),
                         CLREDUCE_SUCCESS);
        tc_read_buffer(g_queue, out, &got, 4, 0, NULL);
        long double want = 0, a = 0;
        for (size_t i = 0; i < n; i++) {
            want += (long double)f[i] * f[i + 2];
            a += fabsl((long double)f[i] * f[i + 2]);
        }
        s.cases++;
        if (!(fabsl(got - want) <= 1e-5L * a))
            tc_ops_report(&s, "dot of overlapping ranges, n=%zu: got %g, expected %Lg", n,
                          (double)got, want);
        clReleaseMemObject(in);
        clReleaseMemObject(out);
    }
    free(x);
    tc_ops_finish_suite(&s);
}

/* Host calls: every operator through clreduce_reduce_host and
 * clreduce_dot_host, including count 0. */
static void test_host(void **state)
{
    (void)state;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "host");
    static const size_t sizes[] = {0, 1, 257, 4097};
    double x[4097], y[4097];
    op_type pairs[MAX_OP_TYPES];
    for (size_t pi = 0, count = op_types(pairs); pi < count; pi++) {
        clreduce_op op = pairs[pi].op;
        clreduce_type type = pairs[pi].type;
        for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
            size_t n = sizes[si], rs = clreduce_result_size(op, type);
            tc_op_fill(op, type, x, n);
            tc_op_fill(op, type, y, n);
            unsigned char got[RESULT_MAX + 8];
            memset(got, TC_SENTINEL_BYTE, sizeof got);
            clreduce_status st =
                op == CLREDUCE_OP_DOT
                    ? clreduce_dot_host(g_ctx, type, CLREDUCE_AUTO, x, y, n, got)
                    : clreduce_reduce_host(g_ctx, op, type, CLREDUCE_AUTO, x, n, got);
            char why[512] = "";
            int ok = st == CLREDUCE_SUCCESS && got[rs] == TC_SENTINEL_BYTE &&
                     tc_op_check_result(op, type, x, y, n, got, tc_op_variance_tolerance(type),
                                        why, sizeof why);
            s.cases++;
            if (!ok)
                tc_ops_report(&s, "op=%s type=%s n=%zu: %s %s %s", clreduce_op_name(op),
                              clreduce_type_name(type), n, why, clreduce_status_string(st),
                              clreduce_last_error(g_ctx));
        }
    }
    tc_ops_finish_suite(&s);
}

/* count 0 on the device: the result of no element, written at the offset,
 * nothing else. */
static void test_empty(void **state)
{
    (void)state;
    tc_suite s = {g_ctx, "empty", 0, 0};
    op_type pairs[MAX_OP_TYPES];
    for (size_t pi = 0, count = op_types(pairs); pi < count; pi++)
        for (int vi = 0; vi < 2; vi++)
            check_case(&s, "count 0", pairs[pi].op, pairs[pi].type,
                       vi ? CLREDUCE_GRID_STRIDE : CLREDUCE_AUTO, NULL, NULL, 0, SEPARATE_Y, 0);
    tc_ops_finish_suite(&s);
}

/* The same input gives the same bits, run after run. */
static void test_deterministic(void **state)
{
    (void)state;
    tc_seed_for("deterministic");
    size_t n = TC_LARGE_COUNT;
    float *x = malloc(n * 4), *y = malloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)(1e3 * (2 * tc_rand_unit() - 1));
        y[i] = (float)(2 * tc_rand_unit() - 1);
    }
    for (size_t oi = 0; oi < ARRAY_SIZE(all_ops); oi++) {
        clreduce_op op = all_ops[oi];
        unsigned char first[RESULT_MAX], again[RESULT_MAX];
        size_t rs = clreduce_result_size(op, CLREDUCE_FLOAT);
        for (int r = 0; r < 3; r++) {
            unsigned char *into = r ? again : first;
            clreduce_status st =
                op == CLREDUCE_OP_DOT
                    ? clreduce_dot_host(g_ctx, CLREDUCE_FLOAT, CLREDUCE_AUTO, x, y, n, into)
                    : clreduce_reduce_host(g_ctx, op, CLREDUCE_FLOAT, CLREDUCE_AUTO, x, n, into);
            assert_int_equal(st, CLREDUCE_SUCCESS);
            if (r && memcmp(first, again, rs) != 0) {
                print_error("op %s: run %d differs from the first\n", clreduce_op_name(op), r);
                fail();
            }
        }
    }
    free(x);
    free(y);
}

/* Back to back on one queue without waiting: a classic single pass (sum)
 * and the operators share the queue's scratch, each leaving its ticket at
 * zero for the next; then the same on an out-of-order queue, ordered by
 * events only. */
static void test_back_to_back(void **state)
{
    (void)state;
    tc_seed_for("back_to_back");
    size_t n = 65539;
    float *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(2 * tc_rand_unit() - 1);
    x[n / 3] = 7;
    for (int ooo = 0; ooo < 2; ooo++) {
        cl_command_queue q = g_queue;
        if (ooo) {
            if (!tc_device_supports_queue(g_ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
                printf("no out-of-order queues on this device: that half skipped\n");
                break;
            }
            q = tc_create_queue(g_ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
            assert_non_null(q);
        }
        cl_mem in = tc_make_buffer(g_ctx, n * sizeof *x, x);
        cl_mem out = tc_make_buffer(g_ctx, 64, NULL);
        cl_event ev[4];
        /* sum at byte 0, argmax at 16, mean_var at 32, dot at 48 */
        assert_int_equal(clreduce_reduce(g_ctx, q, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                         CLREDUCE_SINGLE_PASS, in, 0, n, out, 0, 0, NULL, &ev[0]),
                         CLREDUCE_SUCCESS);
        assert_int_equal(clreduce_reduce(g_ctx, q, CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT,
                                         CLREDUCE_SINGLE_PASS, in, 0, n, out, 1, 1, &ev[0],
                                         &ev[1]),
                         CLREDUCE_SUCCESS);
        assert_int_equal(clreduce_reduce(g_ctx, q, CLREDUCE_OP_MEAN_VAR, CLREDUCE_FLOAT,
                                         CLREDUCE_SINGLE_PASS, in, 0, n, out, 2, 1, &ev[1],
                                         &ev[2]),
                         CLREDUCE_SUCCESS);
        assert_int_equal(clreduce_dot(g_ctx, q, CLREDUCE_FLOAT, CLREDUCE_SINGLE_PASS, in, 0, in,
                                      0, n, out, 12, 1, &ev[2], &ev[3]),
                         CLREDUCE_SUCCESS);
        unsigned char res[64];
        tc_read_buffer(q, out, res, sizeof res, 1, &ev[3]);
        for (int k = 0; k < 4; k++)
            clReleaseEvent(ev[k]);
        char why[512];
        tc_value ref, got;
        long double abs_sum;
        tc_reference(CLREDUCE_OP_SUM, CLREDUCE_FLOAT, x, n, &ref, &abs_sum);
        memcpy(&got.f, res, 4);
        assert_true(tc_matches(CLREDUCE_OP_SUM, CLREDUCE_FLOAT, &got, &ref, abs_sum));
        if (!tc_op_check_result(CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT, x, NULL, n, res + 16, 0, why,
                                sizeof why) ||
            !tc_op_check_result(CLREDUCE_OP_MEAN_VAR, CLREDUCE_FLOAT, x, NULL, n, res + 32,
                                tc_op_variance_tolerance(CLREDUCE_FLOAT), why, sizeof why) ||
            !tc_op_check_result(CLREDUCE_OP_DOT, CLREDUCE_FLOAT, x, x, n, res + 48, 0, why,
                                sizeof why)) {
            print_error("back to back%s: %s\n", ooo ? " (out of order)" : "", why);
            fail();
        }
        clReleaseMemObject(in);
        clReleaseMemObject(out);
        if (ooo)
            clReleaseCommandQueue(q);
    }
    free(x);
}

/* The cases of each tuning: every operator on float and double at three
 * sizes, argmin and argmax on data with ties. */
static void tuning_cases(tc_suite *s, size_t tuning)
{
    (void)tuning;
    static const size_t sizes[] = {33, 4097, 65539};
    void *x = malloc(TC_LARGE_COUNT * 8), *y = malloc(TC_LARGE_COUNT * 8);
    for (size_t oi = 0; oi < ARRAY_SIZE(all_ops); oi++)
        for (int ti = 0; ti < 2; ti++) {
            clreduce_op op = all_ops[oi];
            clreduce_type type = ti ? CLREDUCE_DOUBLE : CLREDUCE_FLOAT;
            if (!tc_type_supported(s->ctx, type))
                continue;
            for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
                size_t n = sizes[si];
                tc_op_fill(op, type, x, n);
                tc_op_fill(op, type, y, n);
                if (op == CLREDUCE_OP_ARGMAX || op == CLREDUCE_OP_ARGMIN)
                    for (size_t i = 0; i < n; i++)
                        tc_set_double(type, x, i, (double)tc_rand_below(50));
                check_case(s, "tuning", op, type, CLREDUCE_AUTO, x, y, n, SEPARATE_Y,
                           tc_op_variance_tolerance(type));
            }
        }
    free(x);
    free(y);
}

/* Other tunings on a context of their own: one element per load (no
 * vectors), three loads in flight, small work-groups; and 8-wide vectors. */
static const tc_ops_tunings tunings = {&g_ctx, {3, 3}, tuning_cases};

/* Bad arguments: each refused with its status and a message, nothing
 * enqueued, built or written. */
static void test_errors(void **state)
{
    (void)state;
    tc_guarded g = tc_ops_guarded(g_ctx, g_queue);

    TC_EXPECT_FAILURE(&g, g_ctx, "dot through clreduce_reduce", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("dot", "clreduce_dot"),
                      clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_DOT, CLREDUCE_FLOAT,
                                      CLREDUCE_AUTO, g.input, 0, 8, g.output, 0, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "unknown op", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("op"),
                      clreduce_reduce(g_ctx, g_queue, (clreduce_op)CLREDUCE_OP_COUNT,
                                      CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 0, 8, g.output, 0,
                                      0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "norm2 of int32", CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                      WORDS("norm2", "int32"),
                      clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_NORM2, CLREDUCE_INT32,
                                      CLREDUCE_AUTO, g.input, 0, 8, g.output, 0, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "mean_var of uint64", CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                      WORDS("mean_var", "uint64"),
                      clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_MEAN_VAR, CLREDUCE_UINT64,
                                      CLREDUCE_AUTO, g.input, 0, 4, g.output, 0, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "argmax on variant sequential", CLREDUCE_ERROR_UNSUPPORTED,
                      g_ctx, WORDS("argmax", "sequential"),
                      clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT,
                                      CLREDUCE_SEQUENTIAL, g.input, 0, 8, g.output, 0, 0, NULL,
                                      &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "argmax result past the end", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("result_offset", "result"),
                      clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT,
                                      CLREDUCE_AUTO, g.input, 0, 8, g.output, 4, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "mean_var result past the end",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("result_offset"),
                      clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_MEAN_VAR, CLREDUCE_FLOAT,
                                      CLREDUCE_AUTO, g.input, 0, 8, g.output, 4, 0, NULL, &done));
    /* The result (16 bytes at byte 16) overlaps input elements [4, 8). */
    TC_EXPECT_FAILURE(&g, g_ctx, "argmin result over the input", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("result", "input"),
                      clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_ARGMIN, CLREDUCE_FLOAT,
                                      CLREDUCE_AUTO, g.input, 7, 20, g.input, 1, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "dot result over x", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("result", "input"),
                      clreduce_dot(g_ctx, g_queue, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 0,
                                   g.output, 0, 8, g.input, 3, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "dot result over y", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("result", "input2"),
                      clreduce_dot(g_ctx, g_queue, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.output, 0,
                                   g.input, 10, 8, g.input, 12, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "dot with a NULL y", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("input2"),
                      clreduce_dot(g_ctx, g_queue, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 0,
                                   NULL, 0, 8, g.output, 0, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "dot with y past its end", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("input2"),
                      clreduce_dot(g_ctx, g_queue, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 0,
                                   g.input, 60, 8, g.output, 0, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "dot on variant atomic", CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                      WORDS("dot", "atomic"),
                      clreduce_dot(g_ctx, g_queue, CLREDUCE_FLOAT, CLREDUCE_ATOMIC, g.input, 0,
                                   g.input, 0, 8, g.output, 0, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan with argmax by look-back", CLREDUCE_ERROR_UNSUPPORTED,
                      g_ctx, WORDS("argmax", "lookback"),
                      clreduce_scan(g_ctx, g_queue, CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT,
                                    CLREDUCE_INCLUSIVE, CLREDUCE_SCAN_LOOKBACK, g.input, 0, 8,
                                    g.output, 0, 0, NULL, &done));

    /* Through sub-buffers: y in one, the result in another of one buffer. */
    cl_buffer_region r1 = {0, 128}, r2 = {128, 128};
    cl_int err;
    cl_mem parent = tc_make_buffer(g_ctx, 256, NULL);
    cl_mem a = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r1,
                                 &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem b = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r2,
                                 &err);
    if (err == CL_SUCCESS) {
        clreduce_status st = clreduce_dot(g_ctx, g_queue, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input,
                                          0, parent, 30, 8, b, 1, 0, NULL, NULL);
        tc_check_status_and_message("dot result in a sub-buffer over y", st,
                                    CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                                    WORDS("input2", "sub-buffers"));
        int has_double = tc_type_supported(g_ctx, CLREDUCE_DOUBLE);
        st = clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_MINMAX, CLREDUCE_DOUBLE, CLREDUCE_AUTO,
                             parent, 10, 10, b, 0, 0, NULL, NULL);
        if (has_double)
            tc_check_status_and_message("minmax result in a sub-buffer over the input", st,
                                        CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                                        WORDS("result", "input"));
        clReleaseMemObject(b);
    } else {
        printf("the device aligns sub-buffers to more than 128 bytes: sub-buffer cases skipped\n");
    }
    clReleaseMemObject(a);
    clReleaseMemObject(parent);

    /* Host calls: overlap and NULL arguments leave the result untouched. */
    float data[16] = {1, 2, 3};
    unsigned char res[32];
    memset(res, TC_SENTINEL_BYTE, sizeof res);
    tc_check_status_and_message(
        "dot_host result over y", clreduce_dot_host(g_ctx, CLREDUCE_FLOAT, CLREDUCE_AUTO,
                                                    g.input_data, data, 16, &data[15]),
        CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("input2", "result"));
    tc_check_status_and_message(
        "dot_host NULL y", clreduce_dot_host(g_ctx, CLREDUCE_FLOAT, CLREDUCE_AUTO, data, NULL, 4,
                                             res),
        CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("input2"));
    tc_check_status_and_message(
        "argmax_host result over the data",
        clreduce_reduce_host(g_ctx, CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT, CLREDUCE_AUTO, data, 16,
                             &data[12]),
        CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("result"));
    for (size_t i = 0; i < sizeof res; i++)
        assert_int_equal(res[i], TC_SENTINEL_BYTE);
    tc_release_guarded(&g);
}

/* clreduce_result_size and the names. */
static void test_sizes_and_names(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
        clreduce_type t = tc_all_types[ti];
        size_t es = clreduce_type_size(t);
        int fl = tc_is_float_type(t);
        assert_int_equal(clreduce_result_size(CLREDUCE_OP_SUM, t), es);
        assert_int_equal(clreduce_result_size(CLREDUCE_OP_ARGMIN, t), 16);
        assert_int_equal(clreduce_result_size(CLREDUCE_OP_ARGMAX, t), 16);
        assert_int_equal(clreduce_result_size(CLREDUCE_OP_MINMAX, t), 2 * es);
        assert_int_equal(clreduce_result_size(CLREDUCE_OP_SUM_SQUARES, t), es);
        assert_int_equal(clreduce_result_size(CLREDUCE_OP_SUM_ABS, t), es);
        assert_int_equal(clreduce_result_size(CLREDUCE_OP_DOT, t), es);
        assert_int_equal(clreduce_result_size(CLREDUCE_OP_NORM2, t), fl ? es : 0);
        assert_int_equal(clreduce_result_size(CLREDUCE_OP_MEAN_VAR, t), fl ? 2 * es + 8 : 0);
    }
    assert_int_equal(clreduce_result_size(CLREDUCE_OP_COUNT, CLREDUCE_FLOAT), 0);
    assert_int_equal(clreduce_result_size(CLREDUCE_OP_SUM, (clreduce_type)8), 0);
    assert_int_equal(sizeof(clreduce_mean_var_double), 24);
    assert_int_equal(sizeof(clreduce_arg_float), 16);
    assert_string_equal(clreduce_op_name(CLREDUCE_OP_MEAN_VAR), "mean_var");
}

int main(void)
{
    g_ctx = tc_start("unit.operators", &g_queue, &g_read_queue, NULL);
    static clreduce_variant variants[3] = {CLREDUCE_AUTO, CLREDUCE_GRID_STRIDE,
                                           CLREDUCE_SINGLE_PASS};
    /* AUTO is one of the two others: run that one once. */
    clreduce_variant resolved = clreduce_auto_variant(g_ctx, CLREDUCE_FLOAT);
    struct CMUnitTest tests[24];
    static char names[2][3][48];
    size_t nt = 0;
    tc_add_test(tests, &nt, "sizes_and_names", test_sizes_and_names, NULL);
    tc_add_test(tests, &nt, "errors", test_errors, NULL);
    tc_add_test(tests, &nt, "unsupported_variants", test_unsupported_variants, NULL);
    for (int i = 0; i < 3; i++) {
        if (i > 0 && variants[i] == resolved)
            continue;
        snprintf(names[0][i], sizeof names[0][i], "random_%s",
                 clreduce_variant_name(variants[i]));
        tc_add_test(tests, &nt, names[0][i], test_random, &variants[i]);
        snprintf(names[1][i], sizeof names[1][i], "arg_special_%s",
                 clreduce_variant_name(variants[i]));
        tc_add_test(tests, &nt, names[1][i], test_arg_special, &variants[i]);
    }
    tc_add_test(tests, &nt, minmax_special.name, test_float_cases, (void *)&minmax_special);
    tc_add_test(tests, &nt, norm_extremes.name, test_float_cases, (void *)&norm_extremes);
    tc_add_test(tests, &nt, "variance_adversarial", test_variance_adversarial, NULL);
    tc_add_test(tests, &nt, "large", test_large, NULL);
    tc_add_test(tests, &nt, "dot_alias", test_dot_alias, NULL);
    tc_add_test(tests, &nt, "host", test_host, NULL);
    tc_add_test(tests, &nt, "empty", test_empty, NULL);
    tc_add_test(tests, &nt, "deterministic", test_deterministic, NULL);
    tc_add_test(tests, &nt, "back_to_back", test_back_to_back, NULL);
    tc_add_test(tests, &nt, "tunings", tc_ops_test_tunings, (void *)&tunings);
    int failed = tc_run_tests("unit.operators", tests, nt);
    return tc_finish(g_ctx, failed, g_queue, g_read_queue, NULL);
}
