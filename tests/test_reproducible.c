/* unit.reproducible: CLREDUCE_REPRODUCIBLE gives, bit for bit, the sum that
 * its documented order of operations gives on the host, so the same bits on
 * every device: float and double sums of data whose sums depend strongly on
 * the order (magnitudes over forty binades, both signs) at awkward sizes and
 * at sizes of one, two and three levels of tiles; at unaligned offsets with
 * the result between poisoned slots; under settings that change the grid,
 * the work-group size and the vector width of the other variants; in the
 * launch-per-level form of devices that do not order memory between
 * work-groups; subnormals; infinities and NaN; min, max and integer sums, which must
 * match AUTO's bits; and the refusals.
 *
 * CLREDUCE_TEST_SEED=n repeats a run's random data; CLREDUCE_TEST_FILTER=glob
 * runs only the matching tests; CLREDUCE_TEST_MAX_COUNT=n leaves out calls
 * of more than n elements, for runs under Oclgrind; CLREDUCE_FULL_TESTS=1
 * adds a float sum of three levels (2^28 + 5 elements, 1 GiB). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test_common.h"
#include "test_fixed_order.h"

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;

#define RESULT_OFFSET 2
#define RESULTS 5

static size_t max_count(void)
{
    const char *env = getenv("CLREDUCE_TEST_MAX_COUNT");
    return env && *env ? (size_t)strtoull(env, NULL, 10) : SIZE_MAX;
}

/* ---- calls -------------------------------------------------------------------------------- */

/* Runs op over data[offset .. offset + n) on ctx with variant v into slot
 * RESULT_OFFSET of RESULTS poisoned slots, checks that the others stay
 * poisoned, and leaves the result in *out. */
static clreduce_status run(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                           clreduce_variant v, const void *data, size_t offset, size_t n,
                           void *out)
{
    size_t es = clreduce_type_size(type);
    unsigned char poison[RESULTS * 8], got[RESULTS * 8];
    memset(poison, 0x7f, sizeof poison);
    cl_mem in = tc_make_buffer(ctx, (offset + n) * es + 1, NULL);
    cl_mem res = tc_make_buffer(ctx, RESULTS * es, poison);
    if (n)
        assert_int_equal(clEnqueueWriteBuffer(g_queue, in, CL_TRUE, 0, (offset + n) * es, data,
                                              0, NULL, NULL),
                         CL_SUCCESS);
    cl_event done = NULL;
    clreduce_status st = clreduce_reduce(ctx, g_queue, op, type, v, in, offset, n, res,
                                         RESULT_OFFSET, 0, NULL, &done);
    tc_read_buffer(g_queue, res, got, RESULTS * es, done ? 1 : 0, done ? &done : NULL);
    if (done)
        clReleaseEvent(done);
    for (size_t i = 0; i < RESULTS; i++)
        if (i != RESULT_OFFSET || st != CLREDUCE_SUCCESS)
            assert_memory_equal(got + i * es, poison + i * es, es);
    if (st == CLREDUCE_SUCCESS)
        memcpy(out, got + RESULT_OFFSET * es, es);
    clReleaseMemObject(in);
    clReleaseMemObject(res);
    return st;
}

/* Whether the device takes the variant for sums of type; says why once. */
static int takes(clreduce_ctx *ctx, clreduce_type type)
{
    if (!tc_type_supported(ctx, type))
        return 0;
    clreduce_status st = clreduce_check_support(ctx, CLREDUCE_OP_SUM, type, CLREDUCE_REPRODUCIBLE);
    if (st == CLREDUCE_SUCCESS)
        return 1;
    print_message("note: reproducible %s sums not run here: %s\n", tc_type_name(type),
                  clreduce_last_error(ctx));
    assert_int_equal(st, CLREDUCE_ERROR_UNSUPPORTED);
    return 0;
}

static void expect_bits(clreduce_ctx *ctx, clreduce_type type, const void *data, size_t offset,
                        size_t n, const char *what)
{
    size_t es = clreduce_type_size(type);
    unsigned char got[8], want[8];
    host_sum(type, (const unsigned char *)data + offset * es, n, want);
    assert_int_equal(run(ctx, CLREDUCE_OP_SUM, type, CLREDUCE_REPRODUCIBLE, data, offset, n, got),
                     CLREDUCE_SUCCESS);
    if (memcmp(got, want, es) != 0) {
        double g = type == CLREDUCE_FLOAT ? *(float *)got : *(double *)got;
        double w = type == CLREDUCE_FLOAT ? *(float *)want : *(double *)want;
        print_error("%s %s n=%zu offset=%zu: got %.17g, the order gives %.17g\n", what,
                    tc_type_name(type), n, offset, g, w);
        fail();
    }
}

static const clreduce_type float_types[] = {CLREDUCE_FLOAT, CLREDUCE_DOUBLE};

/* ---- tests -------------------------------------------------------------------------------- */

static void test_order(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = float_types[ti];
        if (!takes(g_ctx, type))
            continue;
        size_t es = clreduce_type_size(type), tile = (size_t)LANES * STEPS * (16 / es);
        /* One tile, whole and partial; two levels; a second level of many tiles. */
        const size_t sizes[] = {1,        2,        31,       33,       255,      257,
                                4097,     tile - 1, tile,     tile + 1, 2 * tile, 3 * tile + 7,
                                TC_LARGE_COUNT, 70 * tile + 5};
        size_t largest = 70 * tile + 5 > TC_LARGE_COUNT ? 70 * tile + 5 : TC_LARGE_COUNT;
        void *data = malloc(largest * es);
        assert_non_null(data);
        fill_wide(type, data, largest);
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            if (sizes[i] <= max_count())
                expect_bits(g_ctx, type, data, 0, sizes[i], "order");
        free(data);
    }
}

static void test_offsets(void **state)
{
    (void)state;
    const size_t offsets[] = {1, 2, 3, 5, 8};
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = float_types[ti];
        if (!takes(g_ctx, type))
            continue;
        size_t n = 3 * (size_t)LANES * STEPS + 11;
        if (n + 8 > max_count())
            n = max_count() > 8 ? max_count() - 8 : 1;
        void *data = malloc((n + 8) * clreduce_type_size(type));
        assert_non_null(data);
        fill_wide(type, data, n + 8);
        for (size_t i = 0; i < sizeof offsets / sizeof *offsets; i++)
            expect_bits(g_ctx, type, data, offsets[i], n, "offset");
        free(data);
    }
}

static clreduce_ctx *create_with(const clreduce_settings *s)
{
    clreduce_ctx *c = NULL;
    clreduce_status st = clreduce_create_with_settings(clreduce_get_cl_context(g_ctx),
                                                       clreduce_get_cl_device(g_ctx), s, &c);
    if (st != CLREDUCE_SUCCESS)
        print_error("clreduce_create_with_settings: %s\n", clreduce_last_error(NULL));
    assert_int_equal(st, CLREDUCE_SUCCESS);
    return c;
}

/* What the other variants tune does not move the order: the grid (one
 * work-group per compute unit, or 64), the work-group size and the vector
 * width. */
static void test_settings(void **state)
{
    (void)state;
    clreduce_settings s[3];
    for (int i = 0; i < 3; i++)
        clreduce_default_settings(&s[i]);
    s[0].groups_per_compute_unit = 1;
    s[1].groups_per_compute_unit = 64;
    s[1].loads_per_work_item = 1;
    s[2].work_group_size = 64;
    s[2].vector_width = 1;
    for (int i = 0; i < 3; i++) {
        clreduce_ctx *c = create_with(&s[i]);
        for (size_t ti = 0; ti < 2; ti++) {
            clreduce_type type = float_types[ti];
            if (!takes(c, type))
                continue;
            size_t n = 9 * (size_t)LANES * STEPS * (16 / clreduce_type_size(type)) + 3;
            if (n > max_count())
                n = max_count();
            void *data = malloc(n * clreduce_type_size(type));
            assert_non_null(data);
            fill_wide(type, data, n);
            expect_bits(c, type, data, 0, n, "settings");
            free(data);
        }
        clreduce_destroy(c);
    }
}

/* Subnormal elements and sums: a device that flushed them would lose them. */
static void test_subnormals(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = float_types[ti];
        if (!takes(g_ctx, type))
            continue;
        size_t n = 4097;
        double tiny = type == CLREDUCE_FLOAT ? 0x1p-149 : 0x1p-1074;
        void *data = malloc(n * clreduce_type_size(type));
        assert_non_null(data);
        for (size_t i = 0; i < n; i++) {
            double x = tiny * (double)(1 + tc_rand_below(1000)) * ((tc_rand64() & 1) ? -1 : 1);
            if (i % 97 == 5)
                x = (type == CLREDUCE_FLOAT ? 0x1p-120 : 0x1p-1015) * (1 + tc_rand_unit());
            tc_set_double(type, data, i, x);
        }
        expect_bits(g_ctx, type, data, 0, n, "subnormals");
        free(data);
    }
}

/* Infinities stay; NaN and inf - inf give a NaN; a count of 0 gives +0. */
static void test_special(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = float_types[ti];
        if (!takes(g_ctx, type))
            continue;
        size_t n = 5000, es = clreduce_type_size(type);
        void *data = malloc(n * es);
        unsigned char got[8];
        assert_non_null(data);
        fill_wide(type, data, n);
        tc_set_double(type, data, 4321, INFINITY);
        assert_int_equal(run(g_ctx, CLREDUCE_OP_SUM, type, CLREDUCE_REPRODUCIBLE, data, 0, n, got),
                         CLREDUCE_SUCCESS);
        assert_true(tc_get_double(type, got, 0) == INFINITY);
        tc_set_double(type, data, 17, -INFINITY);
        assert_int_equal(run(g_ctx, CLREDUCE_OP_SUM, type, CLREDUCE_REPRODUCIBLE, data, 0, n, got),
                         CLREDUCE_SUCCESS);
        assert_true(isnan(tc_get_double(type, got, 0)));
        fill_wide(type, data, n);
        tc_set_double(type, data, n - 1, NAN);
        assert_int_equal(run(g_ctx, CLREDUCE_OP_SUM, type, CLREDUCE_REPRODUCIBLE, data, 0, n, got),
                         CLREDUCE_SUCCESS);
        assert_true(isnan(tc_get_double(type, got, 0)));
        assert_int_equal(run(g_ctx, CLREDUCE_OP_SUM, type, CLREDUCE_REPRODUCIBLE, data, 0, 0, got),
                         CLREDUCE_SUCCESS);
        unsigned char zero[8] = {0};
        assert_memory_equal(got, zero, es);
        free(data);
    }
}

/* Min, max and integer sums are the same bits in every variant: the
 * reproducible variant gives AUTO's, which match the CPU reference. */
static void test_other_operators(void **state)
{
    (void)state;
    static const clreduce_op ops[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_MAX};
    size_t n = 3 * (size_t)LANES * STEPS + 7;
    unsigned char *data = malloc(n * 8);
    assert_non_null(data);
    for (int type = CLREDUCE_FLOAT; type <= CLREDUCE_UINT64; type++) {
        if (!tc_type_supported(g_ctx, (clreduce_type)type))
            continue;
        for (size_t oi = 0; oi < 3; oi++) {
            if (ops[oi] == CLREDUCE_OP_SUM && tc_is_float_type((clreduce_type)type))
                continue;
            tc_fill_random((clreduce_type)type, data, n);
            size_t es = clreduce_type_size((clreduce_type)type);
            unsigned char got[8], want[8];
            tc_value ref;
            long double abs_sum;
            tc_reference(ops[oi], (clreduce_type)type, data, n, &ref, &abs_sum);
            assert_int_equal(run(g_ctx, ops[oi], (clreduce_type)type, CLREDUCE_REPRODUCIBLE, data,
                                 0, n, got),
                             CLREDUCE_SUCCESS);
            assert_int_equal(run(g_ctx, ops[oi], (clreduce_type)type, CLREDUCE_AUTO, data, 0, n,
                                 want),
                             CLREDUCE_SUCCESS);
            assert_memory_equal(got, want, es);
            assert_memory_equal(got, &ref, es);
        }
    }
    free(data);
}

/* Refused, with a message and nothing written: the storage types, norm2
 * and mean_var, and a context whose build options relax the math. */
static void test_refusals(void **state)
{
    (void)state;
    unsigned char got[8];
    uint16_t half[4] = {0x3c00, 0x3c00, 0x3c00, 0x3c00};
    assert_int_equal(run(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_HALF, CLREDUCE_REPRODUCIBLE, half, 0, 4,
                         got),
                     CLREDUCE_ERROR_UNSUPPORTED);
    assert_true(tc_contains(clreduce_last_error(g_ctx), "reproducible"));
    float f[4] = {1, 2, 3, 4};
    static const clreduce_op unfixed[] = {CLREDUCE_OP_NORM2, CLREDUCE_OP_MEAN_VAR};
    for (size_t i = 0; i < 2; i++) {
        clreduce_status st =
            clreduce_check_support(g_ctx, unfixed[i], CLREDUCE_FLOAT, CLREDUCE_REPRODUCIBLE);
        assert_int_equal(st, CLREDUCE_ERROR_UNSUPPORTED);
        assert_true(tc_contains(clreduce_last_error(g_ctx), clreduce_op_name(unfixed[i])));
    }

    clreduce_settings s;
    clreduce_default_settings(&s);
    s.build_options = "-cl-fast-relaxed-math";
    clreduce_ctx *c = create_with(&s);
    assert_int_equal(run(c, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_REPRODUCIBLE, f, 0, 4, got),
                     CLREDUCE_ERROR_UNSUPPORTED);
    assert_true(tc_contains(clreduce_last_error(c), "-cl-fast-relaxed-math"));
    clreduce_destroy(c);
}

/* Sums of a map, by clreduce_reduce() and clreduce_dot(): x*x, |x| and
 * x*y rounded to the type (never fused into the addition), then summed in
 * the order, in two launches (the tiles, then their levels). */
static void test_maps(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = float_types[ti];
        if (!takes(g_ctx, type))
            continue;
        size_t es = clreduce_type_size(type), tile = (size_t)LANES * STEPS * (16 / es);
        const size_t sizes[] = {1, 33, 64, 65, 4097, tile + 1, 3 * tile + 7};
        size_t largest = 3 * tile + 7;
        if (largest > max_count())
            largest = max_count();
        unsigned char *x = malloc(largest * es), *y = malloc(largest * es),
                      *mapped = malloc(largest * es);
        assert_true(x && y && mapped);
        fill_wide(type, x, largest);
        fill_wide(type, y, largest);
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes && sizes[si] <= largest; si++) {
            size_t n = sizes[si];
            for (int map = 1; map <= 3; map++) {
                map_values(type, map, x, y, n, mapped);
                unsigned char got[8], want[8];
                host_sum(type, mapped, n, want);
                clreduce_status st =
                    map == 3 ? clreduce_dot_host(g_ctx, type, CLREDUCE_REPRODUCIBLE, x, y, n, got)
                             : clreduce_reduce_host(g_ctx, map_op(map), type,
                                                    CLREDUCE_REPRODUCIBLE, x, n, got);
                assert_int_equal(st, CLREDUCE_SUCCESS);
                if (memcmp(got, want, es) != 0) {
                    print_error("%s %s n=%zu: got %.17g, the order gives %.17g\n",
                                clreduce_op_name(map_op(map)),
                                tc_type_name(type), n, tc_get_double(type, got, 0),
                                tc_get_double(type, want, 0));
                    fail();
                }
            }
        }
        free(x);
        free(y);
        free(mapped);
    }
}

/* The form of devices that do not order memory between work-groups, a
 * launch per level of tiles, on this device: its context is told that its
 * device does not (a GPU without ordering). The same bits. */
static void test_two_launches(void **state)
{
    (void)state;
    clreduce_settings s;
    clreduce_default_settings(&s);
    clreduce_ctx *c = create_with(&s);
    c->order_kind = CLR_ORDER_NONE;
    c->info.type = CL_DEVICE_TYPE_GPU;
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = float_types[ti];
        if (!takes(c, type))
            continue;
        size_t tile = (size_t)LANES * STEPS * (16 / clreduce_type_size(type));
        const size_t sizes[] = {1, tile - 1, tile + 1, 5 * tile + 3, 70 * tile + 5};
        void *data = malloc((sizes[4] + 3) * clreduce_type_size(type));
        assert_non_null(data);
        fill_wide(type, data, sizes[4] + 3);
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            if (sizes[i] + 3 <= max_count()) {
                expect_bits(c, type, data, 0, sizes[i], "two launches");
                expect_bits(c, type, data, 3, sizes[i], "two launches");
            }
        free(data);
    }
    clreduce_destroy(c);
}

/* Three levels of tiles: 2^28 + 5 floats (1 GiB), with CLREDUCE_FULL_TESTS=1. */
static void test_three_levels(void **state)
{
    (void)state;
    const char *full = getenv("CLREDUCE_FULL_TESTS");
    size_t n = ((size_t)1 << 28) + 5;
    if (!full || strcmp(full, "1") != 0 || n > max_count() || !takes(g_ctx, CLREDUCE_FLOAT)) {
        print_message("note: three levels need CLREDUCE_FULL_TESTS=1 (1 GiB); not run\n");
        return;
    }
    float *data = malloc(n * sizeof *data);
    if (!data) {
        print_message("note: no memory for three levels; not run\n");
        return;
    }
    fill_wide(CLREDUCE_FLOAT, data, n);
    expect_bits(g_ctx, CLREDUCE_FLOAT, data, 0, n, "three levels");
    free(data);
}

int main(void)
{
    g_ctx = tc_start("unit.reproducible", &g_queue, NULL);
    struct CMUnitTest tests[10];
    size_t nt = 0;
    tc_add_test(tests, &nt, "order", test_order, NULL);
    tc_add_test(tests, &nt, "offsets", test_offsets, NULL);
    tc_add_test(tests, &nt, "settings", test_settings, NULL);
    tc_add_test(tests, &nt, "two_launches", test_two_launches, NULL);
    tc_add_test(tests, &nt, "subnormals", test_subnormals, NULL);
    tc_add_test(tests, &nt, "special", test_special, NULL);
    tc_add_test(tests, &nt, "other_operators", test_other_operators, NULL);
    tc_add_test(tests, &nt, "maps", test_maps, NULL);
    tc_add_test(tests, &nt, "refusals", test_refusals, NULL);
    tc_add_test(tests, &nt, "three_levels", test_three_levels, NULL);
    int failed = tc_run_tests("unit.reproducible", tests, nt);
    return tc_finish(g_ctx, failed, g_queue, NULL);
}
