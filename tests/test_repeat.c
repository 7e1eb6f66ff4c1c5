/* Repeated runs: every reduction and scan variant the device supports runs
 * many times over the same input, large enough for many waves of
 * work-groups. A race between work-items or work-groups shows as a result
 * that is wrong or that changes from one run to the next, so every run is
 * checked against a CPU reference, and the variants that promise bitwise
 * reproducibility must give the same bits every time. This is the race check
 * for the kernels that Oclgrind cannot run (sub-groups, and the NVIDIA paths
 * with inline PTX).
 *
 * CLREDUCE_TEST_REPEAT=n runs each case n times (default 8);
 * CLREDUCE_TEST_REPEAT_COUNT=n sets the element count (default 3 * 2^20 + 17).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_common.h"

typedef struct fixture {
    clreduce_ctx *ctx;
    cl_command_queue queue;
    unsigned repeat;
    size_t count;
} fixture;

static size_t env_size(const char *name, size_t fallback)
{
    const char *v = getenv(name);
    return v && *v ? (size_t)strtoull(v, NULL, 0) : fallback;
}

static int setup(void **state)
{
    static fixture f;
    f.ctx = tc_create_default_or_skip("unit.repeat");
    f.queue = tc_create_queue(f.ctx, 0);
    if (!f.queue)
        return -1;
    f.repeat = (unsigned)env_size("CLREDUCE_TEST_REPEAT", 8);
    f.count = env_size("CLREDUCE_TEST_REPEAT_COUNT", 3 * ((size_t)1 << 20) + 17);
    if (f.repeat < 2)
        f.repeat = 2;
    printf("repeat: %u runs per case, %zu elements\n", f.repeat, f.count);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    clReleaseCommandQueue(f->queue);
    clreduce_destroy(f->ctx);
    return 0;
}

static cl_mem upload(fixture *f, const void *data, size_t bytes)
{
    cl_int err;
    cl_mem m = clCreateBuffer(clreduce_get_cl_context(f->ctx),
                              CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)data, &err);
    assert_int_equal(err, CL_SUCCESS);
    return m;
}

static cl_mem device_buffer(fixture *f, size_t bytes)
{
    cl_int err;
    cl_mem m =
        clCreateBuffer(clreduce_get_cl_context(f->ctx), CL_MEM_READ_WRITE, bytes, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    return m;
}

/* ---- reductions ---------------------------------------------------------- */

typedef struct reduce_case {
    clreduce_op op;
    clreduce_type type;
} reduce_case;

static const reduce_case reduce_cases[] = {
    {CLREDUCE_OP_SUM, CLREDUCE_INT32},
    {CLREDUCE_OP_SUM, CLREDUCE_FLOAT},
    {CLREDUCE_OP_MAX, CLREDUCE_FLOAT},
    {CLREDUCE_OP_MIN, CLREDUCE_UINT64},
};

static void test_reduce_repeat(void **state)
{
    fixture *f = *state;
    tc_seed_for("reduce_repeat");
    unsigned checked = 0;
    for (size_t c = 0; c < sizeof reduce_cases / sizeof reduce_cases[0]; c++) {
        clreduce_op op = reduce_cases[c].op;
        clreduce_type type = reduce_cases[c].type;
        size_t size = clreduce_type_size(type), n = f->count;
        void *data = malloc(n * size);
        assert_non_null(data);
        tc_fill_random(type, data, n);
        tc_value ref;
        long double abs_sum;
        tc_reference(op, type, data, n, &ref, &abs_sum);
        cl_mem in = upload(f, data, n * size), out = device_buffer(f, size);
        for (int v = 1; v < CLREDUCE_VARIANT_COUNT; v++) {
            if (clreduce_check_support(f->ctx, op, type, (clreduce_variant)v) != CLREDUCE_SUCCESS)
                continue;
            /* Only the atomic variant's float sums may change between runs. */
            int reproducible = !(v == CLREDUCE_ATOMIC && tc_is_float_type(type));
            tc_value first;
            for (unsigned r = 0; r < f->repeat; r++) {
                assert_int_equal(clreduce_reduce(f->ctx, f->queue, op, type, (clreduce_variant)v,
                                                 in, 0, n, out, 0, 0, NULL, NULL),
                                 CLREDUCE_SUCCESS);
                tc_value got;
                memset(&got, 0, sizeof got);
                assert_int_equal(clEnqueueReadBuffer(f->queue, out, CL_TRUE, 0, size, got.bytes,
                                                     0, NULL, NULL),
                                 CL_SUCCESS);
                if (!tc_matches(op, type, &got, &ref, abs_sum) ||
                    (r > 0 && reproducible && memcmp(got.bytes, first.bytes, size) != 0)) {
                    char a[96], b[96], e[96];
                    tc_format(type, &got, a, sizeof a);
                    tc_format(type, &first, b, sizeof b);
                    tc_format(type, &ref, e, sizeof e);
                    fail_msg("%s %s %s, n %zu, run %u: got %s, first run %s, expected %s",
                             tc_variant_name((clreduce_variant)v), tc_op_name(op),
                             tc_type_name(type), n, r, a, r ? b : "-", e);
                }
                if (r == 0)
                    first = got;
                checked++;
            }
        }
        clReleaseMemObject(in);
        clReleaseMemObject(out);
        free(data);
    }
    printf("reduce: %u runs checked\n", checked);
    assert_true(checked > 0);
}

/* ---- scans ----------------------------------------------------------------- */

static void test_scan_repeat(void **state)
{
    fixture *f = *state;
    tc_seed_for("scan_repeat");
    static const reduce_case cases[] = {
        {CLREDUCE_OP_SUM, CLREDUCE_INT32},
        {CLREDUCE_OP_SUM, CLREDUCE_FLOAT},
        {CLREDUCE_OP_MAX, CLREDUCE_FLOAT},
    };
    unsigned checked = 0;
    size_t n = f->count;
    void *data = malloc(n * 4), *got = malloc(n * 4), *first = malloc(n * 4);
    assert_true(data && got && first);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        clreduce_op op = cases[c].op;
        clreduce_type type = cases[c].type;
        if (type == CLREDUCE_FLOAT) {
            for (size_t i = 0; i < n; i++)
                ((float *)data)[i] = (float)(2 * tc_rand_unit() - 1);
        } else {
            tc_fill_random(type, data, n);
        }
        cl_mem in = upload(f, data, n * 4), out = device_buffer(f, n * 4);
        for (int v = 1; v < CLREDUCE_SCAN_VARIANT_COUNT; v++) {
            if (clreduce_check_scan_support(f->ctx, op, type, (clreduce_scan_variant)v) !=
                CLREDUCE_SUCCESS)
                continue;
            int reproducible = !(v == CLREDUCE_SCAN_LOOKBACK && type == CLREDUCE_FLOAT &&
                                 op == CLREDUCE_OP_SUM);
            for (unsigned r = 0; r < f->repeat; r++) {
                assert_int_equal(clreduce_scan(f->ctx, f->queue, op, type, CLREDUCE_INCLUSIVE,
                                               (clreduce_scan_variant)v, in, 0, n, out, 0, 0,
                                               NULL, NULL),
                                 CLREDUCE_SUCCESS);
                assert_int_equal(
                    clEnqueueReadBuffer(f->queue, out, CL_TRUE, 0, n * 4, got, 0, NULL, NULL),
                    CL_SUCCESS);
                char why[256];
                if (!tc_scan_matches(op, type, CLREDUCE_INCLUSIVE, data, n, got, why, sizeof why))
                    fail_msg("%s %s %s, n %zu, run %u: %s",
                             clreduce_scan_variant_name((clreduce_scan_variant)v),
                             tc_op_name(op), tc_type_name(type), n, r, why);
                if (r > 0 && reproducible && memcmp(got, first, n * 4) != 0)
                    fail_msg("%s %s %s, n %zu: run %u differs from the first",
                             clreduce_scan_variant_name((clreduce_scan_variant)v), tc_op_name(op),
                             tc_type_name(type), n, r);
                if (r == 0)
                    memcpy(first, got, n * 4);
                checked++;
            }
        }
        clReleaseMemObject(in);
        clReleaseMemObject(out);
    }
    free(data);
    free(got);
    free(first);
    printf("scan: %u runs checked\n", checked);
    assert_true(checked > 0);
}

int main(void)
{
    tc_init_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_repeat),
        cmocka_unit_test(test_scan_repeat),
    };
    if (getenv("CLREDUCE_TEST_FILTER"))
        cmocka_set_test_filter(getenv("CLREDUCE_TEST_FILTER"));
    return cmocka_run_group_tests(tests, setup, teardown);
}
