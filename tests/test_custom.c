/* unit.custom: user-defined operators (clreduce_operator_create) against
 * CPU references at awkward sizes, with the inputs at offsets between
 * poisoned elements and the result at an offset between sentinels: a float
 * sum beside the built-in one, a struct accumulator (min, max, count), a
 * two-input weighted sum, a non-commutative 2x2 integer matrix product
 * (exact), operators without identity (first element, max); build errors
 * that name the user's piece and line; release while a call is in flight;
 * many operators made and dropped; bad descriptions. Scans: inclusive and
 * exclusive matrix-product scans (exact, order-sensitive), an affine-map
 * scan of two inputs, an operator without identity (inclusive only).
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
#include "test_common_custom.h"

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;

static const size_t sizes[] = {1, 31, 33, 255, 257, 4097, TC_LARGE_COUNT};
static const clreduce_variant variants[] = {CLREDUCE_AUTO, CLREDUCE_GRID_STRIDE,
                                            CLREDUCE_SINGLE_PASS};

#define IN_OFFSET 3
#define IN2_OFFSET 5
#define RESULT_OFFSET 2
#define RESULTS 4

/* ---- running one reduction ---------------------------------------------------- */

static clreduce_operator *create_or_fail(const clreduce_operator_desc *d)
{
    clreduce_operator *op = NULL;
    clreduce_status st = clreduce_operator_create(g_ctx, d, &op);
    if (st != CLREDUCE_SUCCESS)
        print_error("creating operator %s: %s: %s\n", d->name, clreduce_status_string(st),
                    clreduce_last_error(g_ctx));
    assert_int_equal(st, CLREDUCE_SUCCESS);
    assert_non_null(op);
    return op;
}

/* Reduces n elements of `data` (and `data2`) of `es` bytes with op on the
 * device, the inputs at offsets between poison and the result at an offset
 * between sentinels (checked unchanged), into out. */
static void run_device(clreduce_operator *op, clreduce_variant v, const void *data,
                       const void *data2, size_t n, size_t es, void *out)
{
    size_t rs = clreduce_operator_result_size(op);
    unsigned char *in = malloc((n + IN_OFFSET + 2) * es);
    unsigned char *in2 = malloc((n + IN2_OFFSET + 2) * es);
    unsigned char res[RESULTS * CLREDUCE_OPERATOR_ACC_MAX];
    assert_non_null(in);
    assert_non_null(in2);
    memset(in, 0x7f, (n + IN_OFFSET + 2) * es);
    memset(in2, 0x7f, (n + IN2_OFFSET + 2) * es);
    memcpy(in + IN_OFFSET * es, data, n * es);
    if (data2)
        memcpy(in2 + IN2_OFFSET * es, data2, n * es);
    memset(res, TC_SENTINEL_BYTE, sizeof res);
    cl_mem bin = tc_make_buffer(g_ctx, (n + IN_OFFSET + 2) * es, in);
    cl_mem bin2 = data2 ? tc_make_buffer(g_ctx, (n + IN2_OFFSET + 2) * es, in2) : NULL;
    cl_mem bout = tc_make_buffer(g_ctx, RESULTS * rs, res);
    cl_event done = NULL;
    clreduce_status st = clreduce_reduce_custom(g_ctx, g_queue, op, v, bin, IN_OFFSET, bin2,
                                                IN2_OFFSET, n, bout, RESULT_OFFSET, 0, NULL,
                                                &done);
    if (st != CLREDUCE_SUCCESS)
        print_error("n=%zu %s: %s: %s\n", n, clreduce_variant_name(v),
                    clreduce_status_string(st), clreduce_last_error(g_ctx));
    assert_int_equal(st, CLREDUCE_SUCCESS);
    tc_read_buffer(g_queue, bout, res, RESULTS * rs, 1, &done);
    clReleaseEvent(done);
    for (size_t k = 0; k < RESULTS * rs; k++)
        if (k / rs != RESULT_OFFSET && res[k] != TC_SENTINEL_BYTE) {
            print_error("n=%zu: byte %zu outside the result changed\n", n, k);
            fail();
        }
    memcpy(out, res + RESULT_OFFSET * rs, rs);
    clReleaseMemObject(bout);
    if (bin2)
        clReleaseMemObject(bin2);
    clReleaseMemObject(bin);
    free(in2);
    free(in);
}

/* ---- float sum beside the built-in sum ----------------------------------------------- */

static const clreduce_operator_desc fsum_desc = {
    .name = "fsum", .input_type = CLREDUCE_FLOAT, .inputs = 1,
    .acc_type = "float", .acc_size = sizeof(float), .acc_align = _Alignof(float),
    .identity = "0.0f", .map = "x", .combine = "a + b", .commutative = 1,
};

static void test_float_sum(void **state)
{
    (void)state;
    tc_seed_for("float_sum");
    clreduce_operator *op = create_or_fail(&fsum_desc);
    float *data = malloc(TC_LARGE_COUNT * sizeof *data);
    assert_non_null(data);
    int same_bits = 0, cases = 0;
    for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
        size_t n = sizes[s];
        double abs_sum = 0;
        for (size_t i = 0; i < n; i++) {
            data[i] = (float)(2 * tc_rand_unit() - 1);
            abs_sum += fabs(data[i]);
        }
        for (size_t vi = 0; vi < ARRAY_SIZE(variants); vi++) {
            float got, want;
            run_device(op, variants[vi], data, NULL, n, sizeof(float), &got);
            assert_int_equal(clreduce_reduce_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                                  variants[vi], data, n, &want),
                             CLREDUCE_SUCCESS);
            /* Both sum in float, grouped by work-items and work-groups. */
            double bound = 2 * (log2((double)n) + 64) * 0x1p-24 * abs_sum;
            if (!(fabs((double)got - (double)want) <= bound))
                print_error("n=%zu %s: user sum %.9g, built-in %.9g (bound %.3g)\n", n,
                            clreduce_variant_name(variants[vi]), got, want, bound);
            assert_true(fabs((double)got - (double)want) <= bound);
            same_bits += memcmp(&got, &want, sizeof got) == 0;
            cases++;
        }
    }
    print_message("user float sum: the built-in's bits in %d of %d cases\n", same_bits, cases);
    float host;
    assert_int_equal(clreduce_reduce_custom_host(g_ctx, op, CLREDUCE_AUTO, data, NULL, 4097, &host),
                     CLREDUCE_SUCCESS);
    free(data);
    clreduce_operator_release(op);
}

/* ---- a struct accumulator: min, max and count ---------------------------------------- */

typedef struct stats {
    float lo, hi;
    uint32_t count;
} stats;

static const clreduce_operator_desc stats_desc = {
    .name = "stats", .input_type = CLREDUCE_FLOAT, .inputs = 1,
    .acc_type = "stats",
    .acc_source = "typedef struct {\n    float lo, hi;\n    uint count;\n} stats;\n",
    .acc_size = sizeof(stats), .acc_align = _Alignof(stats),
    .identity = "(stats){INFINITY, -INFINITY, 0}",
    .map = "(stats){x, x, 1}",
    .combine = "(stats){fmin(a.lo, b.lo), fmax(a.hi, b.hi), a.count + b.count}",
    .commutative = 1,
};

static void test_struct(void **state)
{
    (void)state;
    tc_seed_for("struct");
    clreduce_operator *op = create_or_fail(&stats_desc);
    float *data = malloc(TC_LARGE_COUNT * sizeof *data);
    assert_non_null(data);
    for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
        size_t n = sizes[s];
        stats want = {INFINITY, -INFINITY, 0};
        for (size_t i = 0; i < n; i++) {
            data[i] = (float)(1000 * tc_rand_unit() - 500);
            want.lo = fminf(want.lo, data[i]);
            want.hi = fmaxf(want.hi, data[i]);
            want.count++;
        }
        for (size_t vi = 0; vi < ARRAY_SIZE(variants); vi++) {
            stats got;
            run_device(op, variants[vi], data, NULL, n, sizeof(float), &got);
            if (got.lo != want.lo || got.hi != want.hi || got.count != want.count)
                print_error("n=%zu %s: {%g, %g, %u}, want {%g, %g, %u}\n", n,
                            clreduce_variant_name(variants[vi]), got.lo, got.hi, got.count,
                            want.lo, want.hi, want.count);
            assert_true(got.lo == want.lo && got.hi == want.hi && got.count == want.count);
        }
    }
    /* No element: the identity. */
    stats empty;
    memset(&empty, 0, sizeof empty);
    assert_int_equal(clreduce_reduce_custom_host(g_ctx, op, CLREDUCE_AUTO, data, NULL, 0, &empty),
                     CLREDUCE_SUCCESS);
    assert_true(isinf(empty.lo) && empty.lo > 0 && isinf(empty.hi) && empty.hi < 0 &&
                empty.count == 0);
    unsigned char res[RESULTS * sizeof(stats)];
    memset(res, TC_SENTINEL_BYTE, sizeof res);
    cl_mem in = tc_make_buffer(g_ctx, 16, data), out = tc_make_buffer(g_ctx, sizeof res, res);
    cl_event done;
    assert_int_equal(clreduce_reduce_custom(g_ctx, g_queue, op, CLREDUCE_AUTO, in, 1, NULL, 0, 0,
                                            out, 1, 0, NULL, &done),
                     CLREDUCE_SUCCESS);
    tc_read_buffer(g_queue, out, res, sizeof res, 1, &done);
    clReleaseEvent(done);
    assert_memory_equal(res + sizeof(stats), &empty, sizeof empty);
    for (size_t k = 0; k < sizeof res; k++)
        if (k / sizeof(stats) != 1)
            assert_int_equal(res[k], TC_SENTINEL_BYTE);
    clReleaseMemObject(out);
    clReleaseMemObject(in);
    free(data);
    clreduce_operator_release(op);
}

/* ---- two inputs: a weighted sum --------------------------------------------------------- */

static const clreduce_operator_desc wsum_desc = {
    .name = "wsum", .input_type = CLREDUCE_INT64, .inputs = 2,
    .acc_type = "long", .acc_size = sizeof(int64_t), .acc_align = _Alignof(int64_t),
    .identity = "0", .map = "x * y + (long)(i & 1)", .combine = "a + b", .commutative = 1,
};

static void test_two_inputs(void **state)
{
    (void)state;
    tc_seed_for("two_inputs");
    clreduce_operator *op = create_or_fail(&wsum_desc);
    int64_t *x = malloc(TC_LARGE_COUNT * sizeof *x), *w = malloc(TC_LARGE_COUNT * sizeof *w);
    assert_non_null(x);
    assert_non_null(w);
    for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
        size_t n = sizes[s];
        uint64_t want = 0;
        for (size_t i = 0; i < n; i++) {
            x[i] = (int64_t)(tc_rand64() >> 1) - (INT64_MAX / 2);
            w[i] = (int64_t)tc_rand_below(1000) - 500;
            want += (uint64_t)x[i] * (uint64_t)w[i] + (i & 1);
        }
        for (size_t vi = 0; vi < ARRAY_SIZE(variants); vi++) {
            int64_t got;
            run_device(op, variants[vi], x, w, n, sizeof(int64_t), &got);
            if ((uint64_t)got != want)
                print_error("n=%zu %s: %lld, want %lld\n", n, clreduce_variant_name(variants[vi]),
                            (long long)got, (long long)want);
            assert_true((uint64_t)got == want);
        }
    }
    /* The host call, and its refusal of a missing second input. */
    int64_t got;
    assert_int_equal(clreduce_reduce_custom_host(g_ctx, op, CLREDUCE_AUTO, x, w, 257, &got),
                     CLREDUCE_SUCCESS);
    tc_check_status_and_message("host call without data2",
                                clreduce_reduce_custom_host(g_ctx, op, CLREDUCE_AUTO, x, NULL, 5,
                                                            &got),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                                (const char *const[]){"input2", NULL});
    free(w);
    free(x);
    clreduce_operator_release(op);
}

/* ---- non-commutative: 2x2 matrix product ------------------------------------------------ */

typedef struct mat {
    uint32_t a, b, c, d;
} mat;

static const clreduce_operator_desc mat_desc = {
    .name = "matprod", .input_type = CLREDUCE_UINT32, .inputs = 1,
    .acc_type = "mat",
    .acc_source = TCC_MAT_SOURCE,
    .acc_size = sizeof(mat), .acc_align = _Alignof(mat),
    .identity = "(mat){1, 0, 0, 1}",
    /* [[1 + p q, p], [q, 1]] = [[1, p], [0, 1]] [[1, 0], [q, 1]]: of
     * determinant 1, so that products never collapse to 0 mod 2^32. */
    .map = "(mat){1 + (x & 255) * (x >> 8 & 255), x & 255, x >> 8 & 255, 1}",
    .combine = "mat_mul(a, b)",
};

static mat host_of(uint32_t x)
{
    uint32_t p = x & 255, q = x >> 8 & 255;
    return (mat){1 + p * q, p, q, 1};
}

static mat host_mul(mat p, mat q)
{
    return (mat){p.a * q.a + p.b * q.c, p.a * q.b + p.b * q.d, p.c * q.a + p.d * q.c,
                 p.c * q.b + p.d * q.d};
}

static void test_matrix_product(void **state)
{
    (void)state;
    tc_seed_for("matrix_product");
    clreduce_operator *op = create_or_fail(&mat_desc);
    uint32_t *data = malloc(TC_LARGE_COUNT * sizeof *data);
    assert_non_null(data);
    for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
        size_t n = sizes[s];
        mat want = {1, 0, 0, 1}, reversed = {1, 0, 0, 1};
        for (size_t i = 0; i < n; i++) {
            data[i] = (uint32_t)tc_rand64();
            want = host_mul(want, host_of(data[i]));
            reversed = host_mul(host_of(data[i]), reversed);
        }
        /* The order matters: the same product reversed differs. */
        if (n > 2)
            assert_memory_not_equal(&want, &reversed, sizeof want);
        for (size_t vi = 0; vi < ARRAY_SIZE(variants); vi++) {
            mat got;
            run_device(op, variants[vi], data, NULL, n, sizeof(uint32_t), &got);
            if (memcmp(&got, &want, sizeof got) != 0)
                print_error("n=%zu %s: {%u %u %u %u}, want {%u %u %u %u}\n", n,
                            clreduce_variant_name(variants[vi]), got.a, got.b, got.c, got.d,
                            want.a, want.b, want.c, want.d);
            assert_memory_equal(&got, &want, sizeof got);
        }
    }
    free(data);
    clreduce_operator_release(op);
}

/* ---- no identity ------------------------------------------------------------------- */

static void test_no_identity(void **state)
{
    (void)state;
    tc_seed_for("no_identity");
    /* The first element: associative, not commutative, no identity. */
    clreduce_operator_desc first_desc = {
        .name = "first", .input_type = CLREDUCE_INT32, .inputs = 1,
        .acc_type = "int", .acc_size = 4, .acc_align = 4, .map = "x", .combine = "a",
    };
    clreduce_operator_desc max_desc = {
        .name = "fmaximum", .input_type = CLREDUCE_DOUBLE, .inputs = 1,
        .acc_type = "double", .acc_size = 8, .acc_align = 8, .map = "x",
        .combine = "fmax(a, b)", .commutative = 1,
    };
    int has_double = tc_type_supported(g_ctx, CLREDUCE_DOUBLE);
    clreduce_operator *first = create_or_fail(&first_desc);
    clreduce_operator *maximum = has_double ? create_or_fail(&max_desc) : NULL;
    int32_t *ints = malloc(TC_LARGE_COUNT * sizeof *ints);
    double *doubles = malloc(TC_LARGE_COUNT * sizeof *doubles);
    assert_non_null(ints);
    assert_non_null(doubles);
    for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
        size_t n = sizes[s];
        double want_max = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            ints[i] = (int32_t)tc_rand64();
            doubles[i] = tc_rand_unit() * 1e6 - 2e6;
            want_max = fmax(want_max, doubles[i]);
        }
        for (size_t vi = 0; vi < ARRAY_SIZE(variants); vi++) {
            int32_t got;
            run_device(first, variants[vi], ints, NULL, n, 4, &got);
            assert_int_equal(got, ints[0]);
            if (maximum) {
                double gd;
                run_device(maximum, variants[vi], doubles, NULL, n, 8, &gd);
                assert_true(gd == want_max);
            }
        }
    }
    /* Nothing to reduce: refused, result untouched. */
    int32_t r = 12345;
    tc_check_status_and_message("host reduction of nothing without identity",
                                clreduce_reduce_custom_host(g_ctx, first, CLREDUCE_AUTO, ints,
                                                            NULL, 0, &r),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                                (const char *const[]){"first", "identity", NULL});
    assert_int_equal(r, 12345);
    cl_mem in = tc_make_buffer(g_ctx, 16, ints), out = tc_make_buffer(g_ctx, 16, NULL);
    cl_event done = TC_EVENT_SENTINEL;
    tc_check_status_and_message("reduction of nothing without identity",
                                clreduce_reduce_custom(g_ctx, g_queue, first, CLREDUCE_AUTO, in, 0,
                                                       NULL, 0, 0, out, 0, 0, NULL, &done),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                                (const char *const[]){"identity", NULL});
    assert_true(done == TC_EVENT_SENTINEL);
    clReleaseMemObject(out);
    clReleaseMemObject(in);
    free(doubles);
    free(ints);
    clreduce_operator_release(maximum);
    clreduce_operator_release(first);
}

/* ---- build errors name the user's text ------------------------------------------------ */

static void check_build_error(const clreduce_operator_desc *d, const char *where)
{
    clreduce_operator *op = (clreduce_operator *)(uintptr_t)1;
    clreduce_status st = clreduce_operator_create(g_ctx, d, &op);
    const char *m = clreduce_last_error(g_ctx);
    print_message("%s -> %s:\n%s\n", where, clreduce_status_string(st), m);
    assert_int_equal(st, CLREDUCE_ERROR_BUILD);
    assert_null(op);
    if (!strstr(m, where))
        print_error("the message does not name %s\n", where);
    assert_non_null(strstr(m, where));
}

static void test_build_errors(void **state)
{
    (void)state;
    clreduce_operator_desc d = fsum_desc;
    d.name = "broken";
    d.combine = "a +\n    no_such_name * b";
    check_build_error(&d, "broken.combine:2:");
    d = stats_desc;
    d.name = "broken_map";
    d.map = "(stats){x, x,\n 1,\n nothing_here}";
    check_build_error(&d, "broken_map.map:3:");
    d = stats_desc;
    d.name = "broken_source";
    d.acc_source = "typedef struct {\n    float lo, hi;\n    unit count;\n} stats;\n";
    check_build_error(&d, "broken_source.acc_source:3:");
    d = fsum_desc;
    d.name = "broken_identity";
    d.identity = "zero";
    check_build_error(&d, "broken_identity.identity:1:");
}

/* ---- release while a call is in flight ---------------------------------------------- */

static void test_release_in_flight(void **state)
{
    (void)state;
    tc_seed_for("release_in_flight");
    size_t n = 100003;
    float *data = malloc(n * sizeof *data);
    assert_non_null(data);
    for (size_t i = 0; i < n; i++)
        data[i] = (float)tc_rand_below(100);
    clreduce_operator_desc d = fsum_desc;
    d.name = "in_flight";
    clreduce_operator *op = create_or_fail(&d);
    cl_mem in = tc_make_buffer(g_ctx, n * sizeof *data, data), out = tc_make_buffer(g_ctx, 4, NULL);
    cl_event gate = tc_user_event(g_ctx), done;
    assert_int_equal(clreduce_reduce_custom(g_ctx, g_queue, op, CLREDUCE_AUTO, in, 0, NULL, 0, n,
                                            out, 0, 1, &gate, &done),
                     CLREDUCE_SUCCESS);
    clreduce_operator_release(op); /* its last reference: programs dropped */
    clFlush(g_queue);
    assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    float got;
    tc_read_buffer(g_queue, out, &got, sizeof got, 1, &done);
    double want = 0;
    for (size_t i = 0; i < n; i++)
        want += data[i];
    assert_true((double)got == want); /* small integers: exact */
    clReleaseEvent(done);
    clReleaseEvent(gate);
    clReleaseMemObject(out);
    clReleaseMemObject(in);
    free(data);
}

/* ---- many operators ------------------------------------------------------------------ */

static void test_many_operators(void **state)
{
    (void)state;
    int32_t data[1000];
    int64_t want = 0;
    for (int i = 0; i < 1000; i++) {
        data[i] = i - 300;
        want += data[i];
    }
    clreduce_operator_desc d = {
        .name = "again", .input_type = CLREDUCE_INT32, .inputs = 1,
        .acc_type = "long", .acc_size = 8, .acc_align = 8,
        .identity = "0", .map = "(long)x", .combine = "a + b", .commutative = 1,
    };
    /* The same text made again after its release: its program was dropped
     * with it, so each round builds or loads it again (from disk) rather
     * than finding it in memory. */
    for (int round = 0; round < 12; round++) {
        clreduce_operator *op = create_or_fail(&d);
        clreduce_cache_stats before = tc_cache_stats(g_ctx);
        int64_t got;
        assert_int_equal(clreduce_reduce_custom_host(g_ctx, op, CLREDUCE_AUTO, data, NULL, 1000,
                                                     &got),
                         CLREDUCE_SUCCESS);
        assert_true(got == want);
        clreduce_cache_stats after = tc_cache_stats(g_ctx);
        assert_true(after.programs_built + after.programs_loaded ==
                    before.programs_built + before.programs_loaded + 1);
        clreduce_operator_release(op);
    }
    /* Operators of one name and different text keep their own programs (in
     * memory and on disk), alive at once. */
    clreduce_operator_desc p = d;
    p.combine = "a * b";
    p.identity = "1";
    p.map = "(long)(x % 3 + 3)";
    clreduce_operator *sum = create_or_fail(&d), *prod = create_or_fail(&p);
    int64_t got_sum, got_prod;
    int64_t want_prod = 1;
    for (int i = 0; i < 20; i++)
        want_prod *= data[i] % 3 + 3;
    assert_int_equal(clreduce_reduce_custom_host(g_ctx, sum, CLREDUCE_AUTO, data, NULL, 1000,
                                                 &got_sum),
                     CLREDUCE_SUCCESS);
    assert_int_equal(clreduce_reduce_custom_host(g_ctx, prod, CLREDUCE_AUTO, data, NULL, 20,
                                                 &got_prod),
                     CLREDUCE_SUCCESS);
    assert_true(got_sum == want);
    assert_true(got_prod == want_prod);
    /* A retained operator outlives one release. */
    clreduce_operator_retain(sum);
    clreduce_operator_release(sum);
    assert_int_equal(clreduce_reduce_custom_host(g_ctx, sum, CLREDUCE_AUTO, data, NULL, 1000,
                                                 &got_sum),
                     CLREDUCE_SUCCESS);
    clreduce_operator_release(prod);
    clreduce_operator_release(sum);
    clreduce_operator_release(NULL);
}

/* ---- bad descriptions and calls ------------------------------------------------------ */

static void expect_refused(const char *what, const clreduce_operator_desc *d,
                           clreduce_status want, const char *word)
{
    clreduce_operator *op = (clreduce_operator *)(uintptr_t)1;
    clreduce_status st = clreduce_operator_create(g_ctx, d, &op);
    tc_check_status_and_message(what, st, want, g_ctx, (const char *const[]){word, NULL});
    assert_null(op);
}

static void test_bad_descriptions(void **state)
{
    (void)state;
    clreduce_operator *op = NULL;
    assert_int_equal(clreduce_operator_create(NULL, &fsum_desc, &op),
                     CLREDUCE_ERROR_INVALID_ARGUMENT);
    tc_check_status_and_message("NULL desc", clreduce_operator_create(g_ctx, NULL, &op),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                                (const char *const[]){"desc", NULL});
    tc_check_status_and_message("NULL out", clreduce_operator_create(g_ctx, &fsum_desc, NULL),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                                (const char *const[]){"out", NULL});
    clreduce_operator_desc d;
#define BAD(what, field, value, status, word)                                                  \
    do {                                                                                       \
        d = fsum_desc;                                                                         \
        d.field = value;                                                                       \
        expect_refused(what, &d, status, word);                                                \
    } while (0)
    BAD("NULL name", name, NULL, CLREDUCE_ERROR_INVALID_ARGUMENT, "name");
    BAD("empty name", name, "", CLREDUCE_ERROR_INVALID_ARGUMENT, "name");
    BAD("name with a space", name, "my sum", CLREDUCE_ERROR_INVALID_ARGUMENT, "identifier");
    BAD("name starting with a digit", name, "1sum", CLREDUCE_ERROR_INVALID_ARGUMENT, "1sum");
    BAD("name too long", name,
        "a234567890123456789012345678901234567890123456789012345678901234567890",
        CLREDUCE_ERROR_INVALID_ARGUMENT, "64");
    BAD("unknown type", input_type, (clreduce_type)42, CLREDUCE_ERROR_INVALID_ARGUMENT,
        "input_type");
    BAD("inputs 0", inputs, 0, CLREDUCE_ERROR_INVALID_ARGUMENT, "inputs");
    BAD("inputs 3", inputs, 3, CLREDUCE_ERROR_INVALID_ARGUMENT, "inputs");
    BAD("NULL acc_type", acc_type, NULL, CLREDUCE_ERROR_INVALID_ARGUMENT, "acc_type");
    BAD("NULL map", map, NULL, CLREDUCE_ERROR_INVALID_ARGUMENT, "map");
    BAD("NULL combine", combine, NULL, CLREDUCE_ERROR_INVALID_ARGUMENT, "combine");
    BAD("empty combine", combine, "", CLREDUCE_ERROR_INVALID_ARGUMENT, "combine");
    BAD("empty identity", identity, "", CLREDUCE_ERROR_INVALID_ARGUMENT, "identity");
    BAD("acc_size 0", acc_size, 0, CLREDUCE_ERROR_INVALID_ARGUMENT, "acc_size");
    BAD("acc_size too large", acc_size, 40, CLREDUCE_ERROR_INVALID_ARGUMENT, "acc_size");
    BAD("acc_align 0", acc_align, 0, CLREDUCE_ERROR_INVALID_ARGUMENT, "acc_align");
    BAD("acc_align 3", acc_align, 3, CLREDUCE_ERROR_INVALID_ARGUMENT, "acc_align");
    BAD("acc_size unlike the device's", acc_size, 8, CLREDUCE_ERROR_INVALID_ARGUMENT, "sizeof");
    BAD("acc_align unlike the device's", acc_align, 2, CLREDUCE_ERROR_INVALID_ARGUMENT,
        "acc_align");
#undef BAD
    d = fsum_desc;
    d.identity = NULL;
    d.acc_type = "ulong4";
    d.acc_size = 32;
    d.acc_align = 32;
    d.map = "(ulong4)(x)";
    expect_refused("no identity and the largest accumulator", &d,
                   CLREDUCE_ERROR_INVALID_ARGUMENT, "identity");

    /* Calls: NULL op, a second input for an operator of one, an unsupported
     * variant. */
    clreduce_operator *sum = create_or_fail(&fsum_desc);
    float data[4] = {1, 2, 3, 4}, r;
    cl_mem in = tc_make_buffer(g_ctx, sizeof data, data), out = tc_make_buffer(g_ctx, 16, NULL);
    tc_check_status_and_message("NULL op",
                                clreduce_reduce_custom(g_ctx, g_queue, NULL, CLREDUCE_AUTO, in, 0,
                                                       NULL, 0, 4, out, 0, 0, NULL, NULL),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                                (const char *const[]){"op", NULL});
    tc_check_status_and_message("input2 for one input",
                                clreduce_reduce_custom(g_ctx, g_queue, sum, CLREDUCE_AUTO, in, 0,
                                                       in, 0, 4, out, 0, 0, NULL, NULL),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                                (const char *const[]){"input2", NULL});
    tc_check_status_and_message("range past the end",
                                clreduce_reduce_custom(g_ctx, g_queue, sum, CLREDUCE_AUTO, in, 1,
                                                       NULL, 0, 4, out, 0, 0, NULL, NULL),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, NULL);
    tc_check_status_and_message("result past the end",
                                clreduce_reduce_custom(g_ctx, g_queue, sum, CLREDUCE_AUTO, in, 0,
                                                       NULL, 0, 4, out, 4, 0, NULL, NULL),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, NULL);
    tc_check_status_and_message("sequential variant",
                                clreduce_reduce_custom_host(g_ctx, sum, CLREDUCE_SEQUENTIAL, data,
                                                            NULL, 4, &r),
                                CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                                (const char *const[]){"fsum", NULL});
    assert_int_equal(clreduce_reduce_custom_host(g_ctx, sum, CLREDUCE_AUTO, data, NULL, 4, &r),
                     CLREDUCE_SUCCESS);
    assert_true(r == 10.0f);
    clReleaseMemObject(out);
    clReleaseMemObject(in);
    clreduce_operator_release(sum);
}

/* ---- scans ----------------------------------------------------------------------- */

/* Scans n elements of `data` (and `data2`) with op on the device into out
 * (n accumulators), the inputs at offsets between poison and the outputs at
 * RESULT_OFFSET between sentinels (checked unchanged). */
static void run_scan(clreduce_operator *op, clreduce_scan_kind kind, const void *data,
                     const void *data2, size_t n, size_t es, void *out)
{
    size_t rs = clreduce_operator_result_size(op);
    size_t in_bytes = (n + IN_OFFSET + 2) * es, out_bytes = (n + RESULT_OFFSET + 2) * rs;
    unsigned char *in = malloc(in_bytes), *in2 = malloc(in_bytes + 2 * es);
    unsigned char *res = malloc(out_bytes);
    assert_non_null(in);
    assert_non_null(in2);
    assert_non_null(res);
    memset(in, 0x7f, in_bytes);
    memset(in2, 0x7f, in_bytes + 2 * es);
    memcpy(in + IN_OFFSET * es, data, n * es);
    if (data2)
        memcpy(in2 + IN2_OFFSET * es, data2, n * es);
    memset(res, TC_SENTINEL_BYTE, out_bytes);
    cl_mem bin = tc_make_buffer(g_ctx, in_bytes, in);
    cl_mem bin2 = data2 ? tc_make_buffer(g_ctx, in_bytes + 2 * es, in2) : NULL;
    cl_mem bout = tc_make_buffer(g_ctx, out_bytes, res);
    cl_event done = NULL;
    clreduce_status st = clreduce_scan_custom(g_ctx, g_queue, op, kind, CLREDUCE_SCAN_AUTO, bin,
                                              IN_OFFSET, bin2, IN2_OFFSET, n, bout,
                                              RESULT_OFFSET, 0, NULL, &done);
    if (st != CLREDUCE_SUCCESS)
        print_error("scan n=%zu: %s: %s\n", n, clreduce_status_string(st),
                    clreduce_last_error(g_ctx));
    assert_int_equal(st, CLREDUCE_SUCCESS);
    tc_read_buffer(g_queue, bout, res, out_bytes, 1, &done);
    clReleaseEvent(done);
    for (size_t k = 0; k < out_bytes; k++)
        if ((k / rs < RESULT_OFFSET || k / rs >= RESULT_OFFSET + n) && res[k] != TC_SENTINEL_BYTE) {
            print_error("scan n=%zu: byte %zu outside the output changed\n", n, k);
            fail();
        }
    memcpy(out, res + RESULT_OFFSET * rs, n * rs);
    clReleaseMemObject(bout);
    if (bin2)
        clReleaseMemObject(bin2);
    clReleaseMemObject(bin);
    free(res);
    free(in2);
    free(in);
}

static void test_scan_matrix_product(void **state)
{
    (void)state;
    tc_seed_for("scan_matrix_product");
    clreduce_operator *op = create_or_fail(&mat_desc);
    uint32_t *data = malloc(TC_LARGE_COUNT * sizeof *data);
    mat *got = malloc(TC_LARGE_COUNT * sizeof *got);
    assert_non_null(data);
    assert_non_null(got);
    for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
        size_t n = sizes[s];
        for (size_t i = 0; i < n; i++)
            data[i] = (uint32_t)tc_rand64();
        for (int kind = 0; kind < 2; kind++) {
            run_scan(op, (clreduce_scan_kind)kind, data, NULL, n, sizeof(uint32_t), got);
            mat acc = {1, 0, 0, 1};
            for (size_t i = 0; i < n; i++) {
                mat next = host_mul(acc, host_of(data[i]));
                mat want = kind == CLREDUCE_EXCLUSIVE ? acc : next;
                if (memcmp(&got[i], &want, sizeof want) != 0) {
                    print_error("n=%zu %s: element %zu {%u %u %u %u}, want {%u %u %u %u}\n", n,
                                kind ? "exclusive" : "inclusive", i, got[i].a, got[i].b,
                                got[i].c, got[i].d, want.a, want.b, want.c, want.d);
                    fail();
                }
                acc = next;
            }
        }
    }
    /* The host call. */
    mat few[5];
    assert_int_equal(clreduce_scan_custom_host(g_ctx, op, CLREDUCE_INCLUSIVE, CLREDUCE_SCAN_AUTO,
                                               data, NULL, 5, few),
                     CLREDUCE_SUCCESS);
    mat acc = {1, 0, 0, 1};
    for (size_t i = 0; i < 5; i++) {
        acc = host_mul(acc, host_of(data[i]));
        assert_memory_equal(&few[i], &acc, sizeof acc);
    }
    tc_check_status_and_message("lookback variant",
                                clreduce_scan_custom_host(g_ctx, op, CLREDUCE_INCLUSIVE,
                                                          CLREDUCE_SCAN_LOOKBACK, data, NULL, 5,
                                                          few),
                                CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                                (const char *const[]){"matprod", NULL});
    free(got);
    free(data);
    clreduce_operator_release(op);
}

/* Affine maps v -> a v + c (mod 2^64) from two inputs, composed in order:
 * the prefixes of the recurrence v[i+1] = a[i] v[i] + c[i]. */
static void test_scan_affine(void **state)
{
    (void)state;
    tc_seed_for("scan_affine");
    typedef struct affine {
        uint64_t a, c;
    } affine;
    clreduce_operator_desc d = {
        .name = "affine", .input_type = CLREDUCE_UINT64, .inputs = 2,
        .acc_type = "affine", .acc_source = "typedef struct { ulong a, c; } affine;",
        .acc_size = sizeof(affine), .acc_align = _Alignof(affine),
        .identity = "(affine){1, 0}", .map = "(affine){x, y}",
        .combine = "(affine){b.a * a.a, b.a * a.c + b.c}",
    };
    clreduce_operator *op = create_or_fail(&d);
    size_t n = 4097;
    uint64_t *a = malloc(n * sizeof *a), *c = malloc(n * sizeof *c);
    affine *got = malloc(n * sizeof *got);
    assert_non_null(a);
    assert_non_null(c);
    assert_non_null(got);
    for (size_t i = 0; i < n; i++) {
        a[i] = tc_rand64() | 1;
        c[i] = tc_rand64();
    }
    run_scan(op, CLREDUCE_INCLUSIVE, a, c, n, sizeof(uint64_t), got);
    uint64_t v0 = 7, v = v0;
    for (size_t i = 0; i < n; i++) {
        v = a[i] * v + c[i];
        if (got[i].a * v0 + got[i].c != v) {
            print_error("element %zu: %llu, want %llu\n", i,
                        (unsigned long long)(got[i].a * v0 + got[i].c), (unsigned long long)v);
            fail();
        }
    }
    free(got);
    free(c);
    free(a);
    clreduce_operator_release(op);
}

static void test_scan_no_identity(void **state)
{
    (void)state;
    tc_seed_for("scan_no_identity");
    clreduce_operator_desc d = {
        .name = "first", .input_type = CLREDUCE_INT32, .inputs = 1,
        .acc_type = "int", .acc_size = 4, .acc_align = 4, .map = "x", .combine = "a",
    };
    clreduce_operator *op = create_or_fail(&d);
    size_t n = 4097;
    int32_t *data = malloc(n * sizeof *data), *got = malloc(n * sizeof *got);
    assert_non_null(data);
    assert_non_null(got);
    for (size_t i = 0; i < n; i++)
        data[i] = (int32_t)tc_rand64();
    run_scan(op, CLREDUCE_INCLUSIVE, data, NULL, n, 4, got);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(got[i], data[0]);
    got[0] = 99;
    tc_check_status_and_message("exclusive scan without identity",
                                clreduce_scan_custom_host(g_ctx, op, CLREDUCE_EXCLUSIVE,
                                                          CLREDUCE_SCAN_AUTO, data, NULL, n, got),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                                (const char *const[]){"identity", NULL});
    assert_int_equal(got[0], 99);
    free(got);
    free(data);
    clreduce_operator_release(op);
}

int main(void)
{
    g_ctx = tc_start("unit.custom", &g_queue, NULL);
    struct CMUnitTest tests[16];
    size_t nt = 0;
    tc_add_test(tests, &nt, "bad_descriptions", test_bad_descriptions, NULL);
    tc_add_test(tests, &nt, "build_errors", test_build_errors, NULL);
    tc_add_test(tests, &nt, "float_sum", test_float_sum, NULL);
    tc_add_test(tests, &nt, "struct", test_struct, NULL);
    tc_add_test(tests, &nt, "two_inputs", test_two_inputs, NULL);
    tc_add_test(tests, &nt, "matrix_product", test_matrix_product, NULL);
    tc_add_test(tests, &nt, "no_identity", test_no_identity, NULL);
    tc_add_test(tests, &nt, "release_in_flight", test_release_in_flight, NULL);
    tc_add_test(tests, &nt, "many_operators", test_many_operators, NULL);
    tc_add_test(tests, &nt, "scan_matrix_product", test_scan_matrix_product, NULL);
    tc_add_test(tests, &nt, "scan_affine", test_scan_affine, NULL);
    tc_add_test(tests, &nt, "scan_no_identity", test_scan_no_identity, NULL);
    int failed = tc_run_tests("unit.custom", tests, nt);
    return tc_finish(g_ctx, failed, g_queue, NULL);
}
