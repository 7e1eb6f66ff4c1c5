/* unit.reduce: every variant, operator, type and size against a CPU
 * reference, with the input at an offset between poisoned elements and the
 * result at an offset between sentinels; special values, empty ranges,
 * determinism, sub-buffers, sub-group paths and tuning. Events and queues
 * are in unit.events.
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

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;      /* in-order, profiling disabled */
static cl_command_queue g_read_queue; /* results are read here, behind `done` only */

static const size_t all_sizes[] = {1, 2, 31, 32, 33, 255, 256, 257, 1000, 4097, 65537,
                                   TC_LARGE_COUNT};
#define N_SIZES (sizeof all_sizes / sizeof all_sizes[0])
static const size_t special_sizes[] = {1, 2, 33, 257, 4097, 65537};

#define MAX_REPORTS 25

/* Offsets vary from case to case: input at element 3 or 5, with or without
 * 17 poisoned elements after it, result at element 1 or 2, upload blocking
 * or through the wait list. */
static tc_layout layout_for(size_t k)
{
    tc_layout l;
    l.offset = (k & 1) ? 5 : 3;
    l.tail = (k % 3) ? 17 : 0;
    l.result_offset = 1 + ((k >> 1) & 1);
    l.use_wait_list = (int)((k >> 2) & 1);
    l.read_queue = g_read_queue;
    return l;
}

/* zero_sign: -1 or +1 when the result must be -0.0 or +0.0 (checked with
 * signbit, besides the reference). */
static int check_case(tc_suite *s, const char *tag, clreduce_op op, clreduce_type type,
                      clreduce_variant v, const void *data, size_t n, int zero_sign)
{
    tc_layout l = layout_for(s->cases++);
    tc_value ref;
    long double abs_sum;
    tc_reference(op, type, data, n, &ref, &abs_sum);
    tc_run run;
    int harness = tc_run_reduce(s->ctx, g_queue, op, type, v, data, n, &l, &run);
    const char *msg = run.status == CLREDUCE_SUCCESS ? "" : clreduce_last_error(s->ctx);
    int ok = harness == 0 && run.status == CLREDUCE_SUCCESS && run.neighbours_untouched &&
             tc_matches(op, type, &run.got, &ref, abs_sum);
    if (ok && zero_sign) {
        double g = type == CLREDUCE_FLOAT ? (double)run.got.f : run.got.d;
        ok = g == 0.0 && (signbit(g) != 0) == (zero_sign < 0);
    }
    if (!ok) {
        s->failures++;
        if (s->failures <= MAX_REPORTS) {
            tc_got_want text = tc_format_got_want(type, &run.got, &ref);
            print_error("FAILED [%s] %s: variant=%s op=%s type=%s size=%zu offset=%zu tail=%zu "
                        "result_offset=%zu wait_list=%d: got %s, expected %s%s (tolerance %Lg)"
                        "%s%s%s%s%s%s\n",
                        s->label, tag, tc_variant_name(v), tc_op_name(op), tc_type_name(type), n,
                        l.offset, l.tail, l.result_offset, l.use_wait_list, text.got, text.want,
                        zero_sign < 0 ? " (-0.0)" : zero_sign > 0 ? " (+0.0)" : "",
                        (op == CLREDUCE_OP_SUM && tc_is_float_type(type))
                            ? (type == CLREDUCE_FLOAT ? 1e-5L : 1e-12L) * abs_sum
                            : 0.0L,
                        run.status != CLREDUCE_SUCCESS ? "; status " : "",
                        run.status != CLREDUCE_SUCCESS ? clreduce_status_string(run.status) : "",
                        msg[0] ? ": " : "", msg,
                        run.neighbours_untouched ? "" : "; elements next to the result changed",
                        run.problem[0] ? run.problem : "");
        }
    }
    return ok;
}

/* A variant the device cannot run must say so in clreduce_reduce too, and
 * write nothing. */
static void check_unsupported(tc_suite *s, clreduce_op op, clreduce_type type, clreduce_variant v,
                              void *data)
{
    const size_t n = 1000;
    tc_fill_random(type, data, n);
    tc_layout l = layout_for(s->cases++);
    tc_run run;
    int harness = tc_run_reduce(s->ctx, g_queue, op, type, v, data, n, &l, &run);
    const char *msg = clreduce_last_error(s->ctx);
    if (harness != 0 || run.status != CLREDUCE_ERROR_UNSUPPORTED || !run.result_untouched ||
        !run.neighbours_untouched || !msg[0]) {
        s->failures++;
        print_error("FAILED [%s] variant=%s op=%s type=%s: check_support says unsupported, "
                    "clreduce_reduce returned %s (%s)%s%s %s\n",
                    s->label, tc_variant_name(v), tc_op_name(op), tc_type_name(type),
                    clreduce_status_string(run.status), msg,
                    run.result_untouched && run.neighbours_untouched ? ""
                                                                     : "; result buffer written",
                    msg[0] ? "" : "; no message", run.problem);
    }
}

static void set_float(clreduce_type type, void *data, size_t i, double x)
{
    tc_set_double(type, data, i, x);
}

/* NaN, infinities and signed zeros for min and max (and an infinity in a
 * sum) of a floating-point type. */
static void special_cases(tc_suite *s, clreduce_variant v, clreduce_type type, const size_t *sizes,
                          size_t nsizes, void *data)
{
    for (size_t oi = 1; oi < ARRAY_SIZE(tc_all_ops); oi++) {
        clreduce_op op = tc_all_ops[oi];
        if (clreduce_check_support(s->ctx, op, type, v) != CLREDUCE_SUCCESS)
            continue;
        for (size_t si = 0; si < nsizes; si++) {
            size_t n = sizes[si];
            tc_fill_random(type, data, n);
            size_t nans = 1 + tc_rand_below(3);
            for (size_t j = 0; j < nans; j++)
                set_float(type, data, tc_rand_below(n), (double)NAN);
            check_case(s, "NaN at random positions", op, type, v, data, n, 0);
            if (n >= 2) {
                tc_fill_random(type, data, n);
                set_float(type, data, 0, (double)NAN);
                check_case(s, "NaN first", op, type, v, data, n, 0);
                tc_fill_random(type, data, n);
                set_float(type, data, n - 1, (double)NAN);
                check_case(s, "NaN last", op, type, v, data, n, 0);
            }

            tc_fill_random(type, data, n);
            set_float(type, data, tc_rand_below(n), (double)INFINITY);
            if (n >= 2)
                set_float(type, data, tc_rand_below(n), -(double)INFINITY);
            check_case(s, "+inf and -inf", op, type, v, data, n, 0);
            for (size_t i = 0; i < n; i++)
                set_float(type, data, i, op == CLREDUCE_OP_MIN ? (double)INFINITY
                                                               : -(double)INFINITY);
            check_case(s, "only the identity's infinity", op, type, v, data, n, 0);

            if (n >= 2) {
                /* Zeros only, of both signs (at least one of each). */
                for (size_t i = 0; i < n; i++)
                    set_float(type, data, i, (tc_rand64() & 1) ? -0.0 : 0.0);
                size_t neg = tc_rand_below(n), pos = (neg + 1 + tc_rand_below(n - 1)) % n;
                set_float(type, data, neg, -0.0);
                set_float(type, data, pos, 0.0);
                check_case(s, "zeros of both signs", op, type, v, data, n,
                           op == CLREDUCE_OP_MIN ? -1 : 1);
                /* Zeros are the extreme: among positives for min, among
                 * negatives for max. */
                tc_fill_random(type, data, n);
                for (size_t i = 0; i < n; i++) {
                    tc_value x;
                    tc_get(type, data, i, &x);
                    double d = fabs(type == CLREDUCE_FLOAT ? (double)x.f : x.d);
                    set_float(type, data, i, op == CLREDUCE_OP_MIN ? d : -d);
                }
                set_float(type, data, neg, -0.0);
                set_float(type, data, pos, 0.0);
                check_case(s, "zeros of both signs among other numbers", op, type, v, data, n,
                           op == CLREDUCE_OP_MIN ? -1 : 1);
            }
        }
    }
    if (clreduce_check_support(s->ctx, CLREDUCE_OP_SUM, type, v) == CLREDUCE_SUCCESS) {
        size_t n = 4097;
        tc_fill_random(type, data, n);
        set_float(type, data, tc_rand_below(n), (double)INFINITY);
        check_case(s, "+inf in a sum", CLREDUCE_OP_SUM, type, v, data, n, 0);
    }
}

/* count == 0: the identity, through clreduce_reduce (also with the offset at
 * the very end of the buffer) and clreduce_reduce_host. */
static void empty_cases(tc_suite *s, clreduce_variant v, clreduce_op op, clreduce_type type)
{
    tc_value want, got;
    tc_identity(op, type, &want);
    for (int at_end = 0; at_end < 2; at_end++) {
        tc_layout l = layout_for(s->cases++);
        l.tail = at_end ? 0 : l.tail;
        tc_run run;
        int harness = tc_run_reduce(s->ctx, g_queue, op, type, v, NULL, 0, &l, &run);
        if (harness != 0 || run.status != CLREDUCE_SUCCESS || !run.neighbours_untouched ||
            memcmp(run.got.bytes, want.bytes, clreduce_type_size(type)) != 0) {
            tc_got_want text = tc_format_got_want(type, &run.got, &want);
            s->failures++;
            print_error("FAILED [%s] count 0: variant=%s op=%s type=%s offset=%zu tail=%zu "
                        "result_offset=%zu: %s, got %s, expected the identity %s %s\n",
                        s->label, tc_variant_name(v), tc_op_name(op), tc_type_name(type), l.offset,
                        l.tail, l.result_offset, clreduce_status_string(run.status), text.got,
                        text.want, run.problem);
        }
    }
    float dummy = 1.0f;
    memset(&got, TC_SENTINEL_BYTE, sizeof got);
    clreduce_status st = clreduce_reduce_host(s->ctx, op, type, v, &dummy, 0, &got);
    if (st != CLREDUCE_SUCCESS || memcmp(got.bytes, want.bytes, clreduce_type_size(type)) != 0) {
        tc_got_want text = tc_format_got_want(type, &got, &want);
        s->failures++;
        print_error("FAILED [%s] clreduce_reduce_host count 0: variant=%s op=%s type=%s: %s, got "
                    "%s, expected %s\n",
                    s->label, tc_variant_name(v), tc_op_name(op), tc_type_name(type),
                    clreduce_status_string(st), text.got, text.want);
    }
}

/* Reduces the same floats twice (same layout) and compares the bits. */
static void determinism_case(tc_suite *s, clreduce_variant v, void *data)
{
    const size_t n = TC_LARGE_COUNT;
    tc_fill_random(CLREDUCE_FLOAT, data, n);
    tc_layout l = layout_for(s->cases++);
    tc_run a, b;
    tc_value ref;
    long double abs_sum;
    tc_reference(CLREDUCE_OP_SUM, CLREDUCE_FLOAT, data, n, &ref, &abs_sum);
    int ha = tc_run_reduce(s->ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, v, data, n, &l, &a);
    int hb = tc_run_reduce(s->ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, v, data, n, &l, &b);
    int ok = ha == 0 && hb == 0 && a.status == CLREDUCE_SUCCESS &&
             b.status == CLREDUCE_SUCCESS && memcmp(&a.got.f, &b.got.f, sizeof(float)) == 0 &&
             tc_matches(CLREDUCE_OP_SUM, CLREDUCE_FLOAT, &a.got, &ref, abs_sum);
    if (!ok) {
        char ga[96], gb[96], w[96];
        tc_format(CLREDUCE_FLOAT, &a.got, ga, sizeof ga);
        tc_format(CLREDUCE_FLOAT, &b.got, gb, sizeof gb);
        tc_format(CLREDUCE_FLOAT, &ref, w, sizeof w);
        s->failures++;
        print_error("FAILED [%s] determinism: variant=%s op=sum type=float size=%zu offset=%zu: "
                    "first %s, second %s (must be bitwise equal), reference %s %s %s\n",
                    s->label, tc_variant_name(v), n, l.offset, ga, gb, w, a.problem, b.problem);
    }
}

/* The steps of the test of every variant (tc_run_variant_test). An
 * unsupported combination must be refused by clreduce_reduce too. */
static void variant_refused(tc_variant_test *t, clreduce_op op, clreduce_type type)
{
    check_unsupported(&t->suite, op, type, (clreduce_variant)t->variant, t->data);
}

/* Random data at every size, and count 0. */
static void variant_cases(tc_variant_test *t, clreduce_op op, clreduce_type type)
{
    clreduce_variant v = (clreduce_variant)t->variant;
    for (size_t si = 0; si < N_SIZES; si++) {
        tc_fill_random(type, t->data, all_sizes[si]);
        check_case(&t->suite, "random", op, type, v, t->data, all_sizes[si], 0);
    }
    empty_cases(&t->suite, v, op, type);
}

/* Special values of both floating-point types, and determinism. */
static void variant_after(tc_variant_test *t)
{
    clreduce_variant v = (clreduce_variant)t->variant;
    tc_suite *s = &t->suite;
    special_cases(s, v, CLREDUCE_FLOAT, special_sizes, ARRAY_SIZE(special_sizes), t->data);
    if (tc_type_supported(g_ctx, CLREDUCE_DOUBLE))
        special_cases(s, v, CLREDUCE_DOUBLE, special_sizes, ARRAY_SIZE(special_sizes), t->data);
    if (v == CLREDUCE_ATOMIC)
        print_message("note: determinism not checked for atomic (documented as not bitwise "
                      "reproducible)\n");
    else if (clreduce_check_support(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, v) ==
             CLREDUCE_SUCCESS)
        determinism_case(s, v, t->data);
}

static void test_variant(void **state)
{
    static const tc_variant_steps steps = {variant_refused, variant_cases, variant_after};
    tc_run_variant_test(g_ctx, 0, *(const int *)*state, &steps);
}

/* The header fixes the order of combination by "the count, the device and
 * the tuning": the same floats placed at other element offsets of a buffer
 * must then give the same bits too. */
static void test_determinism_across_offsets(void **state)
{
    (void)state;
    tc_seed_for("determinism_across_offsets");
    const size_t n = TC_LARGE_COUNT, pad = 8;
    float *data = malloc(n * sizeof *data), *buf = malloc((n + pad) * sizeof *buf);
    assert_true(data && buf);
    tc_fill_random(CLREDUCE_FLOAT, data, n);
    cl_int err;
    int failures = 0;
    for (int v = CLREDUCE_AUTO; v < CLREDUCE_VARIANT_COUNT; v++) {
        clreduce_variant variant = (clreduce_variant)v;
        if (variant == CLREDUCE_ATOMIC ||
            clreduce_check_support(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, variant) !=
                CLREDUCE_SUCCESS)
            continue;
        uint32_t first_bits = 0;
        for (size_t off = 0; off < pad; off++) {
            memset(buf, 0, (n + pad) * sizeof *buf);
            memcpy(buf + off, data, n * sizeof *data);
            cl_mem in = clCreateBuffer(clreduce_get_cl_context(g_ctx),
                                       CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                       (n + pad) * sizeof *buf, buf, &err);
            assert_int_equal(err, CL_SUCCESS);
            cl_mem out = clCreateBuffer(clreduce_get_cl_context(g_ctx), CL_MEM_READ_WRITE,
                                        sizeof(float), NULL, &err);
            assert_int_equal(err, CL_SUCCESS);
            assert_int_equal(clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                             variant, in, off, n, out, 0, 0, NULL, NULL),
                             CLREDUCE_SUCCESS);
            float got;
            assert_int_equal(clEnqueueReadBuffer(g_queue, out, CL_TRUE, 0, sizeof got, &got, 0,
                                                 NULL, NULL),
                             CL_SUCCESS);
            clReleaseMemObject(in);
            clReleaseMemObject(out);
            uint32_t bits;
            memcpy(&bits, &got, sizeof bits);
            if (off == 0) {
                first_bits = bits;
            } else if (bits != first_bits) {
                failures++;
                print_error("FAILED determinism across offsets: variant=%s op=sum type=float "
                            "size=%zu: offset 0 gives 0x%08x, offset %zu gives 0x%08x (%.9g)\n",
                            tc_variant_name(variant), n, first_bits, off, bits, (double)got);
                break;
            }
        }
    }
    free(data);
    free(buf);
    assert_int_equal(failures, 0);
}

/* Input and result as sub-buffers: offsets and sizes are the sub-buffers'
 * own, and the parent buffers' other elements are left alone. */
static void test_sub_buffers(void **state)
{
    (void)state;
    tc_seed_for("sub_buffers");
    cl_uint align_bits = 0;
    assert_int_equal(clGetDeviceInfo(clreduce_get_cl_device(g_ctx), CL_DEVICE_MEM_BASE_ADDR_ALIGN,
                                     sizeof align_bits, &align_bits, NULL),
                     CL_SUCCESS);
    const size_t align = align_bits / 8 ? align_bits / 8 : 128;
    const size_t n = 65537, off = 3, tail = 17;
    cl_context cl = clreduce_get_cl_context(g_ctx);
    int failures = 0;
    static const struct {
        clreduce_op op;
        clreduce_type type;
    } kinds[] = {{CLREDUCE_OP_SUM, CLREDUCE_FLOAT}, {CLREDUCE_OP_MAX, CLREDUCE_INT32}};
    for (size_t ki = 0; ki < ARRAY_SIZE(kinds); ki++) {
        clreduce_op op = kinds[ki].op;
        clreduce_type type = kinds[ki].type;
        size_t es = clreduce_type_size(type);
        size_t parent_in = align + (off + n + tail) * es + align;
        size_t parent_out = 3 * align;
        unsigned char *host = malloc(parent_in), *res = malloc(parent_out);
        assert_true(host && res);
        for (int v = CLREDUCE_AUTO; v < CLREDUCE_VARIANT_COUNT; v++) {
            clreduce_variant variant = (clreduce_variant)v;
            if (clreduce_check_support(g_ctx, op, type, variant) != CLREDUCE_SUCCESS)
                continue;
            /* Poison everywhere but the range itself. */
            tc_value poison;
            tc_poison(op, type, &poison);
            for (size_t i = 0; i < parent_in / es; i++)
                tc_set(type, host, i, &poison);
            unsigned char *range = host + align + off * es;
            tc_fill_random(type, range, n);
            memset(res, TC_SENTINEL_BYTE, parent_out);
            cl_int err;
            cl_mem pin = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, parent_in,
                                        host, &err);
            assert_int_equal(err, CL_SUCCESS);
            cl_mem pout = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                         parent_out, res, &err);
            assert_int_equal(err, CL_SUCCESS);
            cl_buffer_region rin = {align, (off + n + tail) * es};
            cl_buffer_region rout = {align, align};
            cl_mem in = clCreateSubBuffer(pin, 0, CL_BUFFER_CREATE_TYPE_REGION, &rin, &err);
            assert_int_equal(err, CL_SUCCESS);
            cl_mem out = clCreateSubBuffer(pout, 0, CL_BUFFER_CREATE_TYPE_REGION, &rout, &err);
            assert_int_equal(err, CL_SUCCESS);
            cl_event done = NULL;
            clreduce_status st = clreduce_reduce(g_ctx, g_queue, op, type, variant, in, off, n,
                                                 out, 1, 0, NULL, &done);
            if (st != CLREDUCE_SUCCESS)
                print_error("sub-buffers, %s: %s\n", tc_variant_name(variant),
                            clreduce_last_error(g_ctx));
            assert_int_equal(st, CLREDUCE_SUCCESS);
            assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
            clReleaseEvent(done);
            assert_int_equal(clEnqueueReadBuffer(g_queue, pout, CL_TRUE, 0, parent_out, res, 0,
                                                 NULL, NULL),
                             CL_SUCCESS);
            tc_value ref, got;
            long double abs_sum;
            tc_reference(op, type, range, n, &ref, &abs_sum);
            tc_get(type, res + align, 1, &got);
            int ok = tc_matches(op, type, &got, &ref, abs_sum);
            for (size_t i = 0; i < parent_out && ok; i++)
                if ((i < align + es || i >= align + 2 * es) && res[i] != TC_SENTINEL_BYTE)
                    ok = 0;
            if (!ok) {
                tc_got_want text = tc_format_got_want(type, &got, &ref);
                failures++;
                print_error("FAILED sub-buffers: variant=%s op=%s type=%s size=%zu offset=%zu "
                            "(sub-buffer at byte %zu): got %s, expected %s, or elements around "
                            "the result changed\n",
                            tc_variant_name(variant), tc_op_name(op), tc_type_name(type), n, off,
                            align, text.got, text.want);
            }
            clReleaseMemObject(in);
            clReleaseMemObject(out);
            clReleaseMemObject(pin);
            clReleaseMemObject(pout);
        }
        free(host);
        free(res);
    }
    assert_int_equal(failures, 0);
}

static void test_auto_variant(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
        clreduce_type type = tc_all_types[ti];
        clreduce_variant v = clreduce_auto_variant(g_ctx, type);
        print_message("auto for %s: %s\n", tc_type_name(type), tc_variant_name(v));
        assert_true(v > CLREDUCE_AUTO && (int)v < CLREDUCE_VARIANT_COUNT);
        if (tc_type_supported(g_ctx, type))
            for (size_t oi = 0; oi < ARRAY_SIZE(tc_all_ops); oi++)
                assert_int_equal(clreduce_check_support(g_ctx, tc_all_ops[oi], type, v),
                                 CLREDUCE_SUCCESS);
    }
}

static void test_reduce_host(void **state)
{
    (void)state;
    tc_seed_for("reduce_host");
    static const size_t sizes[] = {1, 257, 65537, TC_LARGE_COUNT};
    static const clreduce_type types[] = {CLREDUCE_FLOAT, CLREDUCE_DOUBLE, CLREDUCE_INT32,
                                          CLREDUCE_UINT64};
    static const clreduce_variant variants[] = {CLREDUCE_AUTO, CLREDUCE_SEQUENTIAL,
                                                CLREDUCE_GRID_STRIDE};
    void *data = malloc(TC_LARGE_COUNT * 8);
    assert_non_null(data);
    int failures = 0;
    for (size_t vi = 0; vi < ARRAY_SIZE(variants); vi++)
        for (size_t ti = 0; ti < ARRAY_SIZE(types); ti++) {
            if (!tc_type_supported(g_ctx, types[ti]))
                continue;
            for (size_t oi = 0; oi < ARRAY_SIZE(tc_all_ops); oi++)
                for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
                    clreduce_type type = types[ti];
                    clreduce_op op = tc_all_ops[oi];
                    size_t n = sizes[si];
                    tc_fill_random(type, data, n);
                    tc_value ref, got;
                    long double abs_sum;
                    tc_reference(op, type, data, n, &ref, &abs_sum);
                    memset(&got, TC_SENTINEL_BYTE, sizeof got);
                    clreduce_status st =
                        clreduce_reduce_host(g_ctx, op, type, variants[vi], data, n, &got);
                    /* Only the element's bytes are written. */
                    int ok = st == CLREDUCE_SUCCESS &&
                             tc_matches(op, type, &got, &ref, abs_sum) &&
                             (clreduce_type_size(type) == 8 ||
                              got.bytes[4] == TC_SENTINEL_BYTE);
                    if (!ok) {
                        tc_got_want text = tc_format_got_want(type, &got, &ref);
                        failures++;
                        print_error("FAILED reduce_host: variant=%s op=%s type=%s size=%zu: %s "
                                    "(%s), got %s, expected %s\n",
                                    tc_variant_name(variants[vi]), tc_op_name(op),
                                    tc_type_name(type), n, clreduce_status_string(st),
                                    clreduce_last_error(g_ctx), text.got, text.want);
                    }
                }
        }
    free(data);
    assert_int_equal(failures, 0);
}

static clreduce_ctx *create_with(const clreduce_settings *settings)
{
    clreduce_ctx *c = NULL;
    clreduce_status st = clreduce_create_with_settings(
        clreduce_get_cl_context(g_ctx), clreduce_get_cl_device(g_ctx), settings, &c);
    if (st != CLREDUCE_SUCCESS)
        print_error("clreduce_create_with_settings: %s: %s\n", clreduce_status_string(st),
                    clreduce_last_error(NULL));
    assert_int_equal(st, CLREDUCE_SUCCESS);
    assert_non_null(c);
    return c;
}

/* Every sub-group path the device offers, forced through the settings; the
 * others must make the sub-group variants unsupported. */
static void test_subgroup_paths(void **state)
{
    (void)state;
    tc_seed_for("subgroup_paths");
    static const clreduce_subgroup_path paths[] = {
        CLREDUCE_SUBGROUP_PATH_NV_PTX, CLREDUCE_SUBGROUP_PATH_SHUFFLE_RELATIVE,
        CLREDUCE_SUBGROUP_PATH_SHUFFLE, CLREDUCE_SUBGROUP_PATH_REDUCE};
    static const clreduce_variant variants[] = {CLREDUCE_SUBGROUP_TAIL, CLREDUCE_SUBGROUP,
                                                CLREDUCE_SINGLE_PASS};
    static const size_t sizes[] = {1, 33, 257, 4097, 65537};
    static const size_t nan_sizes[] = {33, 4097};
    clreduce_type types[4] = {CLREDUCE_FLOAT, CLREDUCE_INT32, CLREDUCE_INT64, CLREDUCE_DOUBLE};
    size_t ntypes = tc_type_supported(g_ctx, CLREDUCE_DOUBLE) ? 4 : 3;
    void *data = malloc(65537 * 8);
    assert_non_null(data);
    int failures = 0, offered = 0;
    char list[256] = "";

    for (size_t pi = 0; pi < ARRAY_SIZE(paths); pi++) {
        clreduce_settings settings;
        clreduce_default_settings(&settings);
        settings.subgroup_path = paths[pi];
        clreduce_ctx *c = create_with(&settings);
        const char *pname = clreduce_subgroup_path_name(paths[pi]);
        char label[64];
        snprintf(label, sizeof label, "path %s", pname);
        tc_suite s = {c, label, 0, 0};
        assert_int_equal(clreduce_get_subgroup_path(c), paths[pi]);
        clreduce_status sup =
            clreduce_check_support(c, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_SUBGROUP);
        if (sup == CLREDUCE_ERROR_UNSUPPORTED) {
            print_message("note: path %s not offered: %s\n", pname, clreduce_last_error(c));
            check_unsupported(&s, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_SUBGROUP, data);
            check_unsupported(&s, CLREDUCE_OP_MAX, CLREDUCE_INT32, CLREDUCE_SUBGROUP_TAIL, data);
            /* The other variants do not depend on the path. */
            tc_fill_random(CLREDUCE_FLOAT, data, 4097);
            check_case(&s, "non-sub-group variant", CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                       CLREDUCE_SEQUENTIAL, data, 4097, 0);
        } else if (sup != CLREDUCE_SUCCESS) {
            print_error("check_support on path %s: %s: %s\n", pname, clreduce_status_string(sup),
                        clreduce_last_error(c));
            s.failures++;
        } else {
            offered++;
            snprintf(list + strlen(list), sizeof list - strlen(list), " %s", pname);
            for (size_t vi = 0; vi < ARRAY_SIZE(variants); vi++) {
                for (size_t oi = 0; oi < ARRAY_SIZE(tc_all_ops); oi++)
                    for (size_t ti = 0; ti < ntypes; ti++) {
                        clreduce_status st =
                            clreduce_check_support(c, tc_all_ops[oi], types[ti], variants[vi]);
                        if (st != CLREDUCE_SUCCESS) {
                            print_error("path %s: %s %s %s: %s: %s\n", pname,
                                        tc_variant_name(variants[vi]), tc_op_name(tc_all_ops[oi]),
                                        tc_type_name(types[ti]), clreduce_status_string(st),
                                        clreduce_last_error(c));
                            s.failures++;
                            continue;
                        }
                        for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
                            tc_fill_random(types[ti], data, sizes[si]);
                            check_case(&s, "random", tc_all_ops[oi], types[ti], variants[vi], data,
                                       sizes[si], 0);
                        }
                    }
                special_cases(&s, variants[vi], CLREDUCE_FLOAT, nan_sizes,
                              ARRAY_SIZE(nan_sizes), data);
                if (ntypes == 4)
                    special_cases(&s, variants[vi], CLREDUCE_DOUBLE, nan_sizes,
                                  ARRAY_SIZE(nan_sizes), data);
            }
        }
        print_message("path %s: %zu cases, %d failed\n", pname, s.cases, s.failures);
        failures += s.failures;
        clreduce_destroy(c);
    }
    print_message("sub-group paths offered by the device:%s\n", offered ? list : " none");
    free(data);
    assert_int_equal(failures, 0);
}

/* Non-default tuning: the smallest work-groups with scalar single loads, and
 * large ones with wide vectors, many loads in flight and few groups. */
static void assert_same_tuning(const clreduce_settings *a, const clreduce_settings *b)
{
    assert_int_equal(a->work_group_size, b->work_group_size);
    assert_int_equal(a->groups_per_compute_unit, b->groups_per_compute_unit);
    assert_int_equal(a->loads_per_work_item, b->loads_per_work_item);
    assert_int_equal(a->vector_width, b->vector_width);
}

/* The tuning a set of operators runs with: the sum alone always the
 * type's; on devices other than NVIDIA GPUs every set the type's; values
 * the settings pin stay pinned for every set. */
static void test_operators_tuning(void **state)
{
    (void)state;
    static const clreduce_op sum[] = {CLREDUCE_OP_SUM};
    static const clreduce_op four[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_MAX,
                                       CLREDUCE_OP_ARGMAX};
    static const clreduce_op each[] = {CLREDUCE_OP_MIN, CLREDUCE_OP_MAX, CLREDUCE_OP_MINMAX,
                                       CLREDUCE_OP_DOT, CLREDUCE_OP_MEAN_VAR, CLREDUCE_OP_ARGMAX};
    int nvidia_gpu = tc_is_nvidia_gpu(g_ctx);
    clreduce_settings pinned;
    clreduce_default_settings(&pinned);
    pinned.work_group_size = 64;
    pinned.loads_per_work_item = 2;
    pinned.groups_per_compute_unit = 3;
    pinned.vector_width = 1;
    clreduce_ctx *pinned_ctx = create_with(&pinned);
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type t = ti ? CLREDUCE_DOUBLE : CLREDUCE_FLOAT;
        clreduce_settings table, got;
        assert_int_equal(clreduce_get_tuning(g_ctx, t, &table), CLREDUCE_SUCCESS);
        assert_int_equal(clreduce_get_operators_tuning(g_ctx, sum, 1, t, &got), CLREDUCE_SUCCESS);
        assert_same_tuning(&got, &table);
        for (size_t k = 0; k <= ARRAY_SIZE(each); k++) {
            const clreduce_op *ops = k < ARRAY_SIZE(each) ? &each[k] : four;
            size_t n = k < ARRAY_SIZE(each) ? 1 : 4;
            assert_int_equal(clreduce_get_operators_tuning(g_ctx, ops, n, t, &got),
                             CLREDUCE_SUCCESS);
            print_message("%s %s%s: wg %zu, groups/CU %u, loads %u, vector %u\n",
                          clreduce_type_name(t), clreduce_op_name(ops[0]),
                          n > 1 ? " and 3 more" : "",
                          got.work_group_size, got.groups_per_compute_unit,
                          got.loads_per_work_item, got.vector_width);
            if (!nvidia_gpu)
                assert_same_tuning(&got, &table);
            assert_int_equal(got.vector_width, table.vector_width);
            assert_int_equal(clreduce_get_operators_tuning(pinned_ctx, ops, n, t, &got),
                             CLREDUCE_SUCCESS);
            assert_int_equal(got.work_group_size, 64);
            assert_int_equal(got.loads_per_work_item, 2);
            assert_int_equal(got.groups_per_compute_unit, 3);
            assert_int_equal(got.vector_width, 1);
        }
    }
    clreduce_destroy(pinned_ctx);
}

static void test_tuning(void **state)
{
    (void)state;
    tc_seed_for("tuning");
    static const clreduce_variant variants[] = {CLREDUCE_GRID_STRIDE, CLREDUCE_SINGLE_PASS,
                                                CLREDUCE_ATOMIC, CLREDUCE_UNROLLED,
                                                CLREDUCE_SEQUENTIAL};
    static const size_t sizes[] = {1, 255, 4097, TC_LARGE_COUNT};
    size_t max_wg = tc_device_max_work_group_size(g_ctx);
    size_t big_wg = 512;
    while (big_wg > max_wg)
        big_wg /= 2;
    clreduce_settings small, big;
    clreduce_default_settings(&small);
    small.work_group_size = 64;
    small.loads_per_work_item = 1;
    small.vector_width = 1;
    clreduce_default_settings(&big);
    big.work_group_size = big_wg;
    big.vector_width = 4;
    big.loads_per_work_item = 8;
    big.groups_per_compute_unit = 2;
    const clreduce_settings *configs[] = {&small, &big};
    const char *labels[] = {"wg 64, 1 load, vector 1", "wg big, 8 loads, vector 4, 2 groups/CU"};
    void *data = malloc(TC_LARGE_COUNT * 8);
    assert_non_null(data);
    int failures = 0;
    for (size_t ci = 0; ci < 2; ci++) {
        clreduce_ctx *c = create_with(configs[ci]);
        clreduce_settings t;
        assert_int_equal(clreduce_get_tuning(c, CLREDUCE_FLOAT, &t), CLREDUCE_SUCCESS);
        print_message("%s: work_group_size %zu, groups/CU %u, loads %u, vector %u\n", labels[ci],
                      t.work_group_size, t.groups_per_compute_unit, t.loads_per_work_item,
                      t.vector_width);
        assert_int_equal(t.work_group_size, configs[ci]->work_group_size);
        assert_int_equal(t.loads_per_work_item, configs[ci]->loads_per_work_item);
        assert_int_equal(t.vector_width, configs[ci]->vector_width);
        if (configs[ci]->groups_per_compute_unit)
            assert_int_equal(t.groups_per_compute_unit, configs[ci]->groups_per_compute_unit);
        if (tc_type_supported(c, CLREDUCE_DOUBLE)) {
            /* At most 16 bytes a load for 8-byte types. */
            assert_int_equal(clreduce_get_tuning(c, CLREDUCE_DOUBLE, &t), CLREDUCE_SUCCESS);
            assert_true(t.vector_width >= 1 && t.vector_width * 8 <= 16);
        }
        tc_suite s = {c, labels[ci], 0, 0};
        for (size_t vi = 0; vi < ARRAY_SIZE(variants); vi++)
            for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
                tc_fill_random(CLREDUCE_FLOAT, data, sizes[si]);
                check_case(&s, "tuning", CLREDUCE_OP_SUM, CLREDUCE_FLOAT, variants[vi], data,
                           sizes[si], 0);
                tc_fill_random(CLREDUCE_INT32, data, sizes[si]);
                check_case(&s, "tuning", CLREDUCE_OP_MAX, CLREDUCE_INT32, variants[vi], data,
                           sizes[si], 0);
            }
        failures += s.failures;
        clreduce_destroy(c);
    }
    free(data);
    assert_int_equal(failures, 0);
}

int main(void)
{
    g_ctx = tc_start("unit.reduce", &g_queue, &g_read_queue, NULL);

    static int variants[CLREDUCE_VARIANT_COUNT];
    static char names[CLREDUCE_VARIANT_COUNT][40];
    struct CMUnitTest tests[CLREDUCE_VARIANT_COUNT + 8];
    size_t nt = 0;
    for (int v = 0; v < CLREDUCE_VARIANT_COUNT; v++) {
        variants[v] = v;
        snprintf(names[v], sizeof names[v], "variant_%s", tc_variant_name((clreduce_variant)v));
        tc_add_test(tests, &nt, names[v], test_variant, &variants[v]);
    }
    const struct CMUnitTest others[] = {
        cmocka_unit_test(test_auto_variant),     cmocka_unit_test(test_reduce_host),
        cmocka_unit_test(test_subgroup_paths),   cmocka_unit_test(test_tuning),
        cmocka_unit_test(test_operators_tuning),
        cmocka_unit_test(test_sub_buffers),      cmocka_unit_test(test_determinism_across_offsets),
    };
    for (size_t i = 0; i < ARRAY_SIZE(others); i++)
        tests[nt++] = others[i];

    int failed = tc_run_tests("unit.reduce", tests, nt);

    return tc_finish(g_ctx, failed, g_read_queue, g_queue, NULL);
}
