/* State the library keeps between calls — the single-pass reduction's and
 * the look-back scan's per-queue scratch, which the segments' single launch
 * shares — tested as a hostile caller would use it:
 *   - data whose bits mimic the look-back's tile status words, left behind
 *     by one scan for the next scan or segments launch;
 *   - a first call whose wait list fails, or completes only after later
 *     calls were enqueued;
 *   - many queues created, used and released;
 *   - buffers and sub-buffers released and others created, perhaps under
 *     the same handles, and a context destroyed before its buffers.
 * Linked with fault_shim.c (which counts the OpenCL objects alive) and the
 * library's static archive, as unit.faults is; no call is failed here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault_shim.h"
#include "test_common.h"

static clreduce_ctx *g_ctx;
/* A context whose segments take one launch, with work-groups of 64 and
 * scalar loads (chunks of 512): from 32 chunks a compute unit the launch
 * that finds the chunks' starts comes first. NULL where the device cannot
 * take one launch. */
static clreduce_ctx *g_seg_ctx;

/* Runs an inclusive scan of data[0 .. n) on q in ctx and checks it against
 * the CPU reference; returns 1 when it matched. */
static int scan_and_check(clreduce_ctx *ctx, cl_command_queue q, clreduce_op op,
                          clreduce_type type, const void *data, size_t n, const char *what)
{
    size_t bytes = n * clreduce_type_size(type);
    cl_mem in = tc_make_buffer(ctx, bytes, data), out = tc_make_buffer(ctx, bytes, NULL);
    clreduce_status s = clreduce_scan(ctx, q, op, type, CLREDUCE_INCLUSIVE,
                                      CLREDUCE_SCAN_LOOKBACK, in, 0, n, out, 0, 0, NULL, NULL);
    if (s != CLREDUCE_SUCCESS)
        fail_msg("%s: %s", what, clreduce_last_error(ctx));
    void *got = malloc(bytes);
    assert_non_null(got);
    tc_read_buffer(q, out, got, bytes, 0, NULL);
    char why[512];
    int ok = tc_scan_matches(op, type, CLREDUCE_INCLUSIVE, data, n, got, why, sizeof why);
    if (!ok)
        print_message("%s (%s %s, %zu elements): %s\n", what, tc_op_name(op), tc_type_name(type),
                      n, why);
    free(got);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    return ok;
}

/* Segments here are arrays of SEGMENT_LENGTH elements, the last shorter. */
#define SEGMENT_LENGTH 1000

static size_t arrays_in(size_t n)
{
    return (n + SEGMENT_LENGTH - 1) / SEGMENT_LENGTH;
}

/* Enqueues the sums of the arrays of in[0 .. n) in g_seg_ctx on q into out
 * (a result per array), behind `wait`. */
static clreduce_status enqueue_segments(cl_command_queue q, clreduce_type type, cl_mem in,
                                        size_t n, cl_mem out, cl_uint num_wait,
                                        const cl_event *wait, cl_event *done)
{
    size_t segments = arrays_in(n);
    uint32_t *offs = malloc((segments + 1) * sizeof *offs);
    assert_non_null(offs);
    for (size_t i = 0; i <= segments; i++)
        offs[i] = (uint32_t)(i * SEGMENT_LENGTH < n ? i * SEGMENT_LENGTH : n);
    cl_mem offsets = tc_make_buffer(g_seg_ctx, (segments + 1) * sizeof *offs, offs);
    free(offs);
    clreduce_status s = clreduce_reduce_segments(g_seg_ctx, q, CLREDUCE_OP_SUM, type, in, 0, n,
                                                 offsets, 0, CLREDUCE_UINT32, segments, out, 0,
                                                 num_wait, wait, done);
    clReleaseMemObject(offsets); /* kept by the runtime until the commands end */
    return s;
}

/* Whether out holds each array's length times `value` (all exact). */
static int segments_right(cl_command_queue q, clreduce_type type, cl_mem out, size_t n,
                          double value)
{
    size_t segments = arrays_in(n), es = clreduce_type_size(type);
    void *got = malloc(segments * es);
    assert_non_null(got);
    tc_read_buffer(q, out, got, segments * es, 0, NULL);
    int ok = 1;
    for (size_t i = 0; i < segments && ok; i++) {
        size_t length = n - i * SEGMENT_LENGTH < SEGMENT_LENGTH ? n - i * SEGMENT_LENGTH
                                                                : SEGMENT_LENGTH;
        unsigned char want[8];
        tc_set_double(type, want, 0, value * (double)length);
        ok = memcmp((unsigned char *)got + i * es, want, es) == 0;
        if (!ok)
            print_message("array %zu of %zu: not %g\n", i, segments, value * (double)length);
    }
    free(got);
    return ok;
}

static int lookback_supported(clreduce_op op, clreduce_type type)
{
    return clreduce_check_scan_support(g_ctx, op, type, CLREDUCE_SCAN_LOOKBACK) ==
           CLREDUCE_SUCCESS;
}

/* ---- data that looks like a tile status word ------------------------------ */

/* Element bits whose low 32 bits read as "inclusive prefix published" in
 * launch `epoch` ((epoch << 2) | 2); for 8-byte types the high bits make a
 * finite double. */
static void forged_status(clreduce_type type, uint32_t epoch, tc_value *v)
{
    uint32_t word = (epoch << 2) | 2u;
    memset(v, 0, sizeof *v);
    if (clreduce_type_size(type) == 4)
        v->u32 = word;
    else
        v->u64 = ((uint64_t)0x3ff00000u << 32) | word;
}

/* Scans in ctx on q, and checks, n elements (room in `forged`) whose every
 * prefix under op, and the first tile's aggregate, is the forged status
 * word for launch `epoch`: the forged value first, then the identity. */
static int forging_scan(clreduce_ctx *ctx, cl_command_queue q, clreduce_op op,
                        clreduce_type type, uint32_t epoch, void *forged, size_t n)
{
    tc_value v, id;
    forged_status(type, epoch, &v);
    tc_identity(op, type, &id);
    tc_set(type, forged, 0, &v);
    for (size_t i = 1; i < n; i++)
        tc_set(type, forged, i, &id);
    return scan_and_check(ctx, q, op, type, forged, n, "forging scan");
}

/* A small scan whose every tile aggregate and inclusive prefix is a forged
 * status word for the next launch, then a large scan on the same queue that
 * must not take them for its predecessors' statuses. The large scan comes
 * first once, so that the queue's scratch is large and never grows (or is
 * created zeroed) again. Epochs count the look-back launches on the queue. */
static void test_forged_status_words(void **state)
{
    (void)state;
    const size_t small = 20000, large = TC_LARGE_COUNT, rounds = 8;
    for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
        clreduce_type type = tc_all_types[ti];
        if (!tc_type_supported(g_ctx, type))
            continue;
        size_t size = clreduce_type_size(type);
        void *ones = malloc(large * size), *forged = malloc(small * size);
        assert_non_null(ones);
        assert_non_null(forged);
        for (size_t oi = 0; oi < ARRAY_SIZE(tc_all_ops); oi++) {
            clreduce_op op = tc_all_ops[oi];
            if (!lookback_supported(op, type) || !lookback_supported(CLREDUCE_OP_SUM, type))
                continue;
            cl_command_queue q = tc_create_queue(g_ctx, 0);
            assert_non_null(q);
            uint32_t launches = 0;
            for (size_t i = 0; i < large; i++)
                tc_set_double(type, ones, i, 1.0);
            assert_true(
                scan_and_check(g_ctx, q, CLREDUCE_OP_SUM, type, ones, large, "first large scan"));
            launches++;
            int wrong = 0;
            for (size_t r = 0; r < rounds; r++) {
                assert_true(forging_scan(g_ctx, q, op, type, launches + 2, forged, small));
                launches++;
                /* Another constant each round (sums exact in float), so
                 * that no prefix left by an earlier launch is right. */
                for (size_t i = 0; i < large; i++)
                    tc_set_double(type, ones, i, (double)(r + 2));
                wrong +=
                    !scan_and_check(g_ctx, q, CLREDUCE_OP_SUM, type, ones, large, "large scan");
                launches++;
            }
            assert_int_equal(wrong, 0);
            clReleaseCommandQueue(q);
        }
        free(ones);
        free(forged);
    }
}

/* The same forgery before the segments' single launch, which takes its
 * epochs from the scan's scratch of the queue: each round a forging scan,
 * then the sums of arrays of a constant that changes each round, both in
 * g_seg_ctx on one queue, so that every slot the segments launch reads
 * holds a forged word for its epoch unless its own. int32 and double: 4-
 * and 8-byte values. */
static void test_forged_status_words_before_segments(void **state)
{
    (void)state;
    if (!g_seg_ctx) {
        print_message("skipped: the device takes segments in two launches\n");
        skip();
    }
    static const clreduce_type types[] = {CLREDUCE_INT32, CLREDUCE_DOUBLE};
    const size_t small = 20000, large = TC_LARGE_COUNT, rounds = 8;
    for (size_t ti = 0; ti < ARRAY_SIZE(types); ti++) {
        clreduce_type type = types[ti];
        if (!tc_type_supported(g_seg_ctx, type))
            continue;
        size_t size = clreduce_type_size(type);
        void *values = malloc(large * size), *forged = malloc(small * size);
        assert_non_null(values);
        assert_non_null(forged);
        cl_command_queue q = tc_create_queue(g_ctx, 0);
        assert_non_null(q);
        cl_mem in = tc_make_buffer(g_ctx, large * size, NULL);
        cl_mem out = tc_make_buffer(g_ctx, arrays_in(large) * size, NULL);
        uint32_t launches = 0;
        int wrong = 0;
        for (size_t r = 0; r <= rounds; r++) {
            if (r > 0) {
                assert_true(forging_scan(g_seg_ctx, q, CLREDUCE_OP_SUM, type, launches + 2,
                                         forged, small));
                launches++;
            }
            /* Round 0 makes the queue's scratch as large as it gets. */
            for (size_t i = 0; i < large; i++)
                tc_set_double(type, values, i, (double)(r + 1));
            assert_int_equal(clEnqueueWriteBuffer(q, in, CL_TRUE, 0, large * size, values, 0,
                                                  NULL, NULL),
                             CL_SUCCESS);
            assert_int_equal(enqueue_segments(q, type, in, large, out, 0, NULL, NULL),
                             CLREDUCE_SUCCESS);
            wrong += !segments_right(q, type, out, large, (double)(r + 1));
            launches++;
        }
        assert_int_equal(wrong, 0);
        clReleaseMemObject(in);
        clReleaseMemObject(out);
        clReleaseCommandQueue(q);
        free(values);
        free(forged);
    }
}

/* ---- wait lists that fail or complete late --------------------------------- */

/* One call of an entry point that keeps scratch per queue, on int32 ones. */
typedef enum call_kind { CALL_REDUCE, CALL_SCAN, CALL_SEGMENTS } call_kind;

typedef struct stateful_call {
    const char *name;
    call_kind kind;
    clreduce_variant variant;
    clreduce_scan_variant scan_variant;
} stateful_call;

static const stateful_call stateful_calls[] = {
    {"single_pass reduction", CALL_REDUCE, CLREDUCE_SINGLE_PASS, CLREDUCE_SCAN_AUTO},
    {"look-back scan", CALL_SCAN, CLREDUCE_AUTO, CLREDUCE_SCAN_LOOKBACK},
    {"segments in one launch", CALL_SEGMENTS, CLREDUCE_AUTO, CLREDUCE_SCAN_AUTO},
};

static int call_supported(const stateful_call *c)
{
    switch (c->kind) {
    case CALL_SCAN:
        return lookback_supported(CLREDUCE_OP_SUM, CLREDUCE_INT32);
    case CALL_SEGMENTS:
        return g_seg_ctx != NULL;
    default:
        return clreduce_check_support(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_INT32, c->variant) ==
               CLREDUCE_SUCCESS;
    }
}

static clreduce_status enqueue_call(const stateful_call *c, cl_command_queue q, cl_mem in, size_t n,
                                    cl_mem out, cl_uint num_wait, const cl_event *wait,
                                    cl_event *done)
{
    if (c->kind == CALL_SEGMENTS)
        return enqueue_segments(q, CLREDUCE_INT32, in, n, out, num_wait, wait, done);
    if (c->kind == CALL_SCAN)
        return clreduce_scan(g_ctx, q, CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_INCLUSIVE,
                             c->scan_variant, in, 0, n, out, 0, num_wait, wait, done);
    return clreduce_reduce(g_ctx, q, CLREDUCE_OP_SUM, CLREDUCE_INT32, c->variant, in, 0, n, out, 0,
                           num_wait, wait, done);
}

/* Whether out holds the call's right answer for n ones. */
static int call_result_right(const stateful_call *c, cl_command_queue q, cl_mem out, size_t n)
{
    if (c->kind == CALL_SEGMENTS)
        return segments_right(q, CLREDUCE_INT32, out, n, 1.0);
    size_t results = c->kind == CALL_SCAN ? n : 1;
    int32_t *got = malloc(results * sizeof *got);
    assert_non_null(got);
    tc_read_buffer(q, out, got, results * sizeof *got, 0, NULL);
    int ok = 1;
    for (size_t i = 0; i < results && ok; i++)
        ok = got[i] == (int32_t)(c->kind == CALL_SCAN ? i + 1 : n);
    free(got);
    return ok;
}

/* A buffer of n int32 ones. */
static cl_mem ones_buffer(size_t n)
{
    int32_t *ones = malloc(n * sizeof *ones);
    assert_non_null(ones);
    for (size_t i = 0; i < n; i++)
        ones[i] = 1;
    cl_mem m = tc_make_buffer(g_ctx, n * sizeof *ones, ones);
    free(ones);
    return m;
}

/* Runs `test` for each stateful call the device supports, each on a fresh
 * queue, released after it. */
static void on_fresh_queues(void (*test)(const stateful_call *c, cl_command_queue q, cl_mem in,
                                         cl_mem out, size_t n),
                            cl_mem in, cl_mem out, size_t n)
{
    for (size_t k = 0; k < ARRAY_SIZE(stateful_calls); k++) {
        const stateful_call *c = &stateful_calls[k];
        if (!call_supported(c))
            continue;
        cl_command_queue q = tc_create_queue(g_ctx, 0);
        assert_non_null(q);
        test(c, q, in, out, n);
        clReleaseCommandQueue(q);
    }
}

/* A fresh queue's first call waits for a user event that then fails, so its
 * commands never run; the calls after it on that queue must still be right
 * and must not hang, whether or not the runtime runs commands queued behind
 * a failed one. */
static void failed_first_dependency(const stateful_call *c, cl_command_queue q, cl_mem in,
                                    cl_mem out, size_t n)
{
    cl_event user = tc_user_event(g_ctx);
    assert_int_equal(enqueue_call(c, q, in, n, out, 1, &user, NULL), CLREDUCE_SUCCESS);
    assert_int_equal(clSetUserEventStatus(user, -1), CL_SUCCESS);
    clReleaseEvent(user);
    clFinish(q); /* its status may be an error: what matters is what follows */
    for (int r = 0; r < 3; r++) {
        cl_event done = NULL;
        assert_int_equal(enqueue_call(c, q, in, n, out, 0, NULL, &done), CLREDUCE_SUCCESS);
        assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
        cl_int exec = tc_event_status(done);
        clReleaseEvent(done);
        assert_int_equal(exec, CL_COMPLETE);
        if (!call_result_right(c, q, out, n))
            fail_msg("%s after a failed first dependency: wrong result in call %d", c->name, r + 1);
    }
}

static void test_failed_first_dependency(void **state)
{
    (void)state;
    const size_t n = TC_LARGE_COUNT;
    cl_mem in = ones_buffer(n), out = tc_make_buffer(g_ctx, n * sizeof(int32_t), NULL);
    on_fresh_queues(failed_first_dependency, in, out, n);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
}

/* A fresh queue's first call waits for a user event that completes only
 * after two more calls were enqueued behind it: all three must be right. */
static void late_first_dependency(const stateful_call *c, cl_command_queue q, cl_mem in,
                                  cl_mem unused, size_t n)
{
    (void)unused;
    cl_event user = tc_user_event(g_ctx);
    cl_mem out[3];
    for (int r = 0; r < 3; r++) {
        out[r] = tc_make_buffer(g_ctx, n * sizeof(int32_t), NULL);
        assert_int_equal(enqueue_call(c, q, in, n, out[r], r == 0, r == 0 ? &user : NULL, NULL),
                         CLREDUCE_SUCCESS);
    }
    clFlush(q);
    usleep(20000);
    assert_int_equal(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    clReleaseEvent(user);
    for (int r = 0; r < 3; r++) {
        if (!call_result_right(c, q, out[r], n))
            fail_msg("%s behind a late first dependency: wrong result in call %d", c->name, r + 1);
        clReleaseMemObject(out[r]);
    }
}

static void test_late_first_dependency(void **state)
{
    (void)state;
    const size_t n = TC_LARGE_COUNT;
    cl_mem in = ones_buffer(n);
    on_fresh_queues(late_first_dependency, in, NULL, n);
    clReleaseMemObject(in);
}

/* ---- queues that come and go ------------------------------------------------ */

/* Uses `count` fresh queues with every stateful call, releasing each. */
static void churn_queues(cl_mem in, cl_mem out, size_t n, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        cl_command_queue q = tc_create_queue(g_ctx, 0);
        assert_non_null(q);
        for (size_t k = 0; k < ARRAY_SIZE(stateful_calls); k++) {
            const stateful_call *c = &stateful_calls[k];
            /* The segments' launch shares the scan's scratch; at this
             * size it searches, a program PoCL 3.1 takes minutes to build. */
            if (!call_supported(c) || c->kind == CALL_SEGMENTS)
                continue;
            assert_int_equal(enqueue_call(c, q, in, n, out, 0, NULL, NULL), CLREDUCE_SUCCESS);
            assert_true(call_result_right(c, q, out, n));
        }
        clReleaseCommandQueue(q);
    }
}

/* Queues created, used and released: the library holds none of them, and
 * the scratch it keeps stops growing however many come and go. */
static void test_released_queues_are_freed(void **state)
{
    (void)state;
    const size_t n = 4099;
    cl_mem in = ones_buffer(n), out = tc_make_buffer(g_ctx, n * sizeof(int32_t), NULL);
    fault_objects before, middle, after;
    fault_live(&before);
    churn_queues(in, out, n, 100);
    fault_live(&middle);
    churn_queues(in, out, n, 100);
    fault_live(&after);
    print_message("after 100 and 200 queues: %ld and %ld queue references, %ld and %ld more "
                  "buffer references held\n",
                  middle.queue - before.queue, after.queue - before.queue,
                  middle.mem - before.mem, after.mem - before.mem);
    assert_int_equal(middle.queue, before.queue);
    assert_int_equal(after.queue, before.queue);
    assert_true(after.mem <= middle.mem);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
}

/* ---- buffers that come and go ----------------------------------------------- */

/* The sum of in[0 .. n) (int32 ones) into out[0] on q: the status, and
 * through *sum the result when the call succeeded. */
static clreduce_status sum_ones(cl_command_queue q, clreduce_ctx *ctx, cl_mem in, size_t n,
                                cl_mem out, int32_t *sum)
{
    clreduce_status s = clreduce_reduce(ctx, q, CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_AUTO,
                                        in, 0, n, out, 0, 0, NULL, NULL);
    if (s == CLREDUCE_SUCCESS)
        tc_read_buffer(q, out, sum, sizeof *sum, 0, NULL);
    return s;
}

/* Buffers of ever other sizes, each used and released, whose handles the
 * runtime may give out again: every call sees the size of the buffer it is
 * given, not of an earlier one under the same handle, so one element past
 * the end is always refused. */
static void test_released_buffers_are_forgotten(void **state)
{
    (void)state;
    cl_command_queue q = tc_create_queue(g_ctx, 0);
    assert_non_null(q);
    cl_mem out = tc_make_buffer(g_ctx, sizeof(int32_t), NULL);
    cl_mem seen[200];
    size_t reused = 0;
    for (size_t i = 0; i < ARRAY_SIZE(seen); i++) {
        size_t n = 1 + tc_rand_below(5000);
        cl_mem in = ones_buffer(n);
        for (size_t j = 0; j < i; j++)
            if (seen[j] == in) {
                reused++;
                break;
            }
        seen[i] = in;
        int32_t sum = 0;
        assert_int_equal(sum_ones(q, g_ctx, in, n, out, &sum), CLREDUCE_SUCCESS);
        assert_int_equal(sum, (int32_t)n);
        assert_int_equal(sum_ones(q, g_ctx, in, n + 1, out, &sum),
                         CLREDUCE_ERROR_INVALID_ARGUMENT);
        clReleaseMemObject(in);
    }
    print_message("%zu of %zu buffers came back under an earlier buffer's handle\n", reused,
                  ARRAY_SIZE(seen));
    clReleaseMemObject(out);
    clReleaseCommandQueue(q);
}

/* Sub-buffers of one buffer at ever other origins, each released: the
 * result element of the parent that a sub-buffer covers is refused as
 * overlapping its input, the element just before it is not. */
static void test_released_subbuffers_are_forgotten(void **state)
{
    (void)state;
    cl_uint align_bits = 0;
    assert_int_equal(clGetDeviceInfo(clreduce_get_cl_device(g_ctx), CL_DEVICE_MEM_BASE_ADDR_ALIGN,
                                     sizeof align_bits, &align_bits, NULL),
                     CL_SUCCESS);
    size_t align = align_bits / 8 < sizeof(int32_t) ? sizeof(int32_t) : align_bits / 8;
    const size_t n = 64, slots = 16;
    cl_command_queue q = tc_create_queue(g_ctx, 0);
    assert_non_null(q);
    cl_mem parent = ones_buffer((slots + 1) * align / sizeof(int32_t) + n);
    for (size_t i = 0; i < 100; i++) {
        size_t origin = (1 + tc_rand_below(slots)) * align;
        cl_buffer_region region = {origin, n * sizeof(int32_t)};
        cl_int err;
        cl_mem sub = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                       &region, &err);
        assert_int_equal(err, CL_SUCCESS);
        size_t inside = origin / sizeof(int32_t) + tc_rand_below(n);
        clreduce_status s = clreduce_reduce(g_ctx, q, CLREDUCE_OP_SUM, CLREDUCE_INT32,
                                            CLREDUCE_AUTO, sub, 0, n, parent, inside, 0, NULL,
                                            NULL);
        assert_int_equal(s, CLREDUCE_ERROR_INVALID_ARGUMENT);
        s = clreduce_reduce(g_ctx, q, CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_AUTO, sub, 0, n,
                            parent, origin / sizeof(int32_t) - 1, 0, NULL, NULL);
        assert_int_equal(s, CLREDUCE_SUCCESS);
        int32_t sum = 0;
        assert_int_equal(clEnqueueReadBuffer(q, parent, CL_TRUE, origin - sizeof sum, sizeof sum,
                                             &sum, 0, NULL, NULL),
                         CL_SUCCESS);
        assert_int_equal(sum, (int32_t)n);
        clReleaseMemObject(sub);
        /* Ones again where the result went. */
        int32_t one = 1;
        assert_int_equal(clEnqueueWriteBuffer(q, parent, CL_TRUE,
                                              origin - sizeof(int32_t), sizeof one, &one, 0,
                                              NULL, NULL),
                         CL_SUCCESS);
    }
    clReleaseMemObject(parent);
    clReleaseCommandQueue(q);
}

/* Many buffers used in turn, twice over, give right results; and a
 * context destroyed before the caller's buffers leaves them usable and
 * releasable (the sanitizers and Valgrind see the rest). */
static void test_many_buffers(void **state)
{
    (void)state;
    cl_command_queue q = tc_create_queue(g_ctx, 0);
    assert_non_null(q);
    clreduce_ctx *ctx = NULL;
    assert_int_equal(clreduce_create(clreduce_get_cl_context(g_ctx),
                                     clreduce_get_cl_device(g_ctx), &ctx),
                     CLREDUCE_SUCCESS);
    enum { BUFFERS = 100 };
    cl_mem in[BUFFERS], out = tc_make_buffer(g_ctx, sizeof(int32_t), NULL);
    for (size_t i = 0; i < BUFFERS; i++)
        in[i] = ones_buffer(100 + i);
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < BUFFERS; i++) {
            int32_t sum = 0;
            assert_int_equal(sum_ones(q, ctx, in[i], 100 + i, out, &sum), CLREDUCE_SUCCESS);
            assert_int_equal(sum, (int32_t)(100 + i));
        }
    clreduce_destroy(ctx);
    int32_t sum = 0, ones[100];
    for (size_t i = 0; i < 100; i++)
        ones[i] = 1;
    assert_int_equal(clEnqueueWriteBuffer(q, in[0], CL_TRUE, 0, sizeof ones, ones, 0, NULL, NULL),
                     CL_SUCCESS);
    tc_read_buffer(q, in[0], &sum, sizeof sum, 0, NULL);
    assert_int_equal(sum, 1);
    for (size_t i = 0; i < BUFFERS; i++)
        clReleaseMemObject(in[i]);
    clReleaseMemObject(out);
    clReleaseCommandQueue(q);
}

int main(void)
{
    tc_init_seed();
    g_ctx = tc_create_default_or_skip("unit.state");
    clreduce_settings settings;
    clreduce_default_settings(&settings);
    settings.segment_passes = 1;
    settings.work_group_size = 64;
    settings.vector_width = 1;
    clreduce_settings got;
    if (clreduce_create_with_settings(clreduce_get_cl_context(g_ctx),
                                      clreduce_get_cl_device(g_ctx), &settings,
                                      &g_seg_ctx) != CLREDUCE_SUCCESS ||
        clreduce_get_tuning(g_seg_ctx, CLREDUCE_INT32, &got) != CLREDUCE_SUCCESS ||
        got.segment_passes != 1) {
        clreduce_destroy(g_seg_ctx);
        g_seg_ctx = NULL;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forged_status_words),
        cmocka_unit_test(test_forged_status_words_before_segments),
        cmocka_unit_test(test_failed_first_dependency),
        cmocka_unit_test(test_late_first_dependency),
        cmocka_unit_test(test_released_queues_are_freed),
        cmocka_unit_test(test_released_buffers_are_forgotten),
        cmocka_unit_test(test_released_subbuffers_are_forgotten),
        cmocka_unit_test(test_many_buffers),
    };
    int failed = cmocka_run_group_tests_name("unit.state", tests, NULL, NULL);
    clreduce_destroy(g_seg_ctx);
    clreduce_destroy(g_ctx);
    return failed;
}
