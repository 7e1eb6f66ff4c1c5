/* unit.events: the events and queues of every entry point that enqueues
 * work (clreduce_reduce, clreduce_reduce_profiled, clreduce_scan,
 * clreduce_scan_profiled), each test run once per entry point of one table:
 *  - first_and_done: every variant, with `first` and `done` each asked for
 *    or not (`first` only where the entry point has it), on a profiling
 *    queue: the events are returned, complete, carry profiling times that
 *    span the operation, and the result is right and nothing around it
 *    written whichever events were asked for;
 *  - out_of_order_queue: every variant on one out-of-order queue, each into
 *    its own range, behind an upload that waits for a user event, and a
 *    further call chained on one of them by its done event: nothing may run
 *    (nor read the stale input) before the user event is set;
 *  - event_chain: the input is uploaded on another queue behind a user
 *    event, the call waits for the upload's event only; a second call, on
 *    the upload queue, works on the first one's output behind its done
 *    event; the results are read on a third queue behind the done events;
 *  - failed_wait: every variant, on an in-order and an out-of-order queue,
 *    with `done` asked for or not, behind a user event that then fails:
 *    nothing crashes or hangs, and the same call right after it on that
 *    queue is right.
 * Wait lists are also passed by the harness of unit.reduce and unit.scan.
 *
 * CLREDUCE_TEST_SEED=n repeats a run's random data; CLREDUCE_TEST_FILTER=glob
 * runs only the matching tests ("*_scan_profiled", "out_of_order_queue_*"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_common.h"

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;        /* in-order */
static cl_command_queue g_upload_queue; /* event_chain: uploads and the second call */
static cl_command_queue g_read_queue;   /* event_chain: results are read here */

/* ---- the entry points ---------------------------------------------------------- */

/* What one call computes; `kind` is for scans only, `variant` a
 * clreduce_variant or a clreduce_scan_variant. */
typedef struct call {
    clreduce_op op;
    clreduce_type type;
    clreduce_scan_kind kind;
    int variant;
} call;

/* Reductions or scans: what their entry points share. */
typedef struct family {
    int variants; /* CLREDUCE_VARIANT_COUNT or CLREDUCE_SCAN_VARIANT_COUNT */
    size_t count; /* elements of a call in out_of_order_queue and event_chain */
    clreduce_status (*support)(const call *c);
    const char *(*variant_name)(const call *c, char *buf, size_t size);
    /* Elements one call of n elements writes: 1 or n. */
    size_t (*written)(size_t n);
    /* Random data for the call, the k-th of a test. */
    void (*fill)(const call *c, size_t k, void *data, size_t n);
    /* The CPU reference of a call, and whether out[0 .. written(n)) is
     * right for in[0 .. n) (if not, why). */
    void (*reference)(const call *c, const void *in, size_t n, void *out);
    int (*check)(const call *c, const void *in, size_t n, const void *out, char *why,
                 size_t size);
} family;

typedef struct entry {
    const char *name;
    const family *fam;
    int profiled; /* takes `first` */
    /* Enqueues one call on q: elements [in_off, in_off + n) of in into out
     * from out_off, behind the wait list; first (profiled entry points
     * only) and done may be NULL. */
    clreduce_status (*enqueue)(const call *c, cl_command_queue q, cl_mem in, size_t in_off,
                               size_t n, cl_mem out, size_t out_off, cl_uint nwait,
                               const cl_event *wait, cl_event *first, cl_event *done);
} entry;

static clreduce_status reduce_support(const call *c)
{
    return clreduce_check_support(g_ctx, c->op, c->type, (clreduce_variant)c->variant);
}

static const char *reduce_variant_name(const call *c, char *buf, size_t size)
{
    snprintf(buf, size, "%s", tc_variant_name((clreduce_variant)c->variant));
    return buf;
}

static size_t reduce_written(size_t n)
{
    (void)n;
    return 1;
}

static void reduce_fill(const call *c, size_t k, void *data, size_t n)
{
    (void)k;
    tc_fill_random(c->type, data, n);
}

static void reduce_reference(const call *c, const void *in, size_t n, void *out)
{
    tc_value ref;
    long double abs_sum;
    tc_reference(c->op, c->type, in, n, &ref, &abs_sum);
    tc_set(c->type, out, 0, &ref);
}

/* The reference within tc_matches' tolerance; a reduction of one element
 * is that element, exactly. */
static int reduce_check(const call *c, const void *in, size_t n, const void *out, char *why,
                        size_t size)
{
    tc_value ref, got;
    long double abs_sum;
    tc_reference(c->op, c->type, in, n, &ref, &abs_sum);
    tc_get(c->type, out, 0, &got);
    int ok = tc_matches(c->op, c->type, &got, &ref, abs_sum);
    if (ok && n == 1 && tc_is_float_type(c->type))
        ok = tc_get_double(c->type, out, 0) == tc_get_double(c->type, in, 0);
    if (!ok) {
        tc_got_want text = tc_format_got_want(c->type, &got, &ref);
        snprintf(why, size, "got %s, expected %s", text.got, text.want);
    }
    return ok;
}

static clreduce_status scan_support(const call *c)
{
    return clreduce_check_scan_support(g_ctx, c->op, c->type, (clreduce_scan_variant)c->variant);
}

static const char *scan_variant_name(const call *c, char *buf, size_t size)
{
    return tc_scan_variant_label(g_ctx, (clreduce_scan_variant)c->variant, c->type, buf, size);
}

static size_t scan_written(size_t n)
{
    return n;
}

static void scan_fill(const call *c, size_t k, void *data, size_t n)
{
    tc_fill_mode(c->op, c->type, tc_mode_for(c->op, k), data, n);
}

static void scan_reference(const call *c, const void *in, size_t n, void *out)
{
    tc_reference_scan(c->op, c->type, c->kind, in, n, out);
}

static int scan_check(const call *c, const void *in, size_t n, const void *out, char *why,
                      size_t size)
{
    return tc_scan_matches(c->op, c->type, c->kind, in, n, out, why, size);
}

static const family reductions = {CLREDUCE_VARIANT_COUNT, 65537, reduce_support,
                                  reduce_variant_name, reduce_written, reduce_fill,
                                  reduce_reference, reduce_check};
static const family scans = {CLREDUCE_SCAN_VARIANT_COUNT, 65539, scan_support,
                             scan_variant_name, scan_written, scan_fill,
                             scan_reference, scan_check};

static clreduce_status enqueue_reduce(const call *c, cl_command_queue q, cl_mem in,
                                      size_t in_off, size_t n, cl_mem out, size_t out_off,
                                      cl_uint nwait, const cl_event *wait, cl_event *first,
                                      cl_event *done)
{
    assert_null(first);
    return clreduce_reduce(g_ctx, q, c->op, c->type, (clreduce_variant)c->variant, in, in_off, n,
                           out, out_off, nwait, wait, done);
}

static clreduce_status enqueue_reduce_profiled(const call *c, cl_command_queue q, cl_mem in,
                                               size_t in_off, size_t n, cl_mem out,
                                               size_t out_off, cl_uint nwait,
                                               const cl_event *wait, cl_event *first,
                                               cl_event *done)
{
    return clreduce_reduce_profiled(g_ctx, q, c->op, c->type, (clreduce_variant)c->variant, in,
                                    in_off, n, out, out_off, nwait, wait, first, done);
}

static clreduce_status enqueue_scan(const call *c, cl_command_queue q, cl_mem in, size_t in_off,
                                    size_t n, cl_mem out, size_t out_off, cl_uint nwait,
                                    const cl_event *wait, cl_event *first, cl_event *done)
{
    assert_null(first);
    return clreduce_scan(g_ctx, q, c->op, c->type, c->kind, (clreduce_scan_variant)c->variant,
                         in, in_off, n, out, out_off, nwait, wait, done);
}

static clreduce_status enqueue_scan_profiled(const call *c, cl_command_queue q, cl_mem in,
                                             size_t in_off, size_t n, cl_mem out,
                                             size_t out_off, cl_uint nwait, const cl_event *wait,
                                             cl_event *first, cl_event *done)
{
    return clreduce_scan_profiled(g_ctx, q, c->op, c->type, c->kind,
                                  (clreduce_scan_variant)c->variant, in, in_off, n, out, out_off,
                                  nwait, wait, first, done);
}

static const entry entries[] = {
    {"reduce", &reductions, 0, enqueue_reduce},
    {"reduce_profiled", &reductions, 1, enqueue_reduce_profiled},
    {"scan", &scans, 0, enqueue_scan},
    {"scan_profiled", &scans, 1, enqueue_scan_profiled},
};

/* "variant=... kind=... op=... type=... size=..." of a call, in messages. */
static const char *describe(const entry *e, const call *c, size_t n, char *buf, size_t size)
{
    char vname[64];
    snprintf(buf, size, "%s: variant=%s%s%s op=%s type=%s size=%zu seed=%" PRIu64, e->name,
             e->fam->variant_name(c, vname, sizeof vname), e->fam == &scans ? " kind=" : "",
             e->fam == &scans ? tc_scan_kind_name(c->kind) : "", tc_op_name(c->op),
             tc_type_name(c->type), n, tc_seed());
    return buf;
}

/* One test: an event test of one entry point. */
typedef struct event_test {
    const entry *e;
    char name[64];
} event_test;

/* The test's entry point, after seeding its data from its name. */
static const entry *begin(void **state)
{
    const event_test *t = *state;
    tc_seed_for(t->name);
    return t->e;
}

/* A queue with these properties, or the test skipped where the device has
 * none (`what` says which). */
static cl_command_queue queue_or_skip(cl_command_queue_properties props, const char *what)
{
    if (!tc_device_supports_queue(g_ctx, props)) {
        print_message("note: the device has no %s queues: skipped\n", what);
        skip();
    }
    cl_command_queue q = tc_create_queue(g_ctx, props);
    assert_non_null(q);
    return q;
}

/* Uploads `bytes` of host into mem on q behind a new user event, *gate,
 * that holds it (and everything waiting for it) until it is set; *upload
 * receives the upload's event. */
static void upload_behind_gate(cl_command_queue q, cl_mem mem, const void *host, size_t bytes,
                               cl_event *gate, cl_event *upload)
{
    *gate = tc_user_event(g_ctx);
    assert_int_equal(clEnqueueWriteBuffer(q, mem, CL_FALSE, 0, bytes, host, 1, gate, upload),
                     CL_SUCCESS);
}

/* Lets the runtime run whatever it would run before a user event is set. */
static void let_runtime_run(void)
{
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
}

/* ---- first and done ------------------------------------------------------------ */

static void test_first_and_done(void **state)
{
    const entry *e = begin(state);
    const family *f = e->fam;
    cl_command_queue q = queue_or_skip(CL_QUEUE_PROFILING_ENABLE, "profiling");
    static const size_t sizes[] = {100, 1000, 4097, 65537, TC_LARGE_COUNT, 0};
    static const call combos[] = {{CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_INCLUSIVE, 0},
                                  {CLREDUCE_OP_MAX, CLREDUCE_UINT64, CLREDUCE_EXCLUSIVE, 0}};
    const size_t in_off = 2, out_off = 5, max_n = TC_LARGE_COUNT;
    const size_t out_count = out_off + f->written(max_n) + 3;
    unsigned char *data = malloc((in_off + max_n) * 8), *res = malloc(out_count * 8);
    assert_true(data && res);
    cl_mem in = tc_make_buffer(g_ctx, (in_off + max_n) * 8, NULL);
    cl_mem out = tc_make_buffer(g_ctx, out_count * 8, NULL);
    int failures = 0;
    for (int vi = 0; vi < f->variants; vi++) {
        for (size_t ci = 0; ci < ARRAY_SIZE(combos); ci++) {
            call c = combos[ci];
            c.variant = vi;
            size_t es = tc_elem_size(c.type);
            if (f->support(&c) != CLREDUCE_SUCCESS)
                continue;
            for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
                size_t n = sizes[si], len = f->written(n);
                char what[256];
                describe(e, &c, n, what, sizeof what);
                f->fill(&c, si, data, in_off + max_n);
                assert_int_equal(clEnqueueWriteBuffer(q, in, CL_TRUE, 0, (in_off + max_n) * es,
                                                      data, 0, NULL, NULL),
                                 CL_SUCCESS);
                /* 3: first and done; 2: done; 1: first; 0: neither. */
                for (int which = 3; which >= 0; which--) {
                    if ((which & 1) && !e->profiled)
                        continue;
                    const unsigned char pattern = TC_SENTINEL_BYTE;
                    assert_int_equal(clEnqueueFillBuffer(q, out, &pattern, 1, 0, out_count * es,
                                                         0, NULL, NULL),
                                     CL_SUCCESS);
                    assert_int_equal(clFinish(q), CL_SUCCESS);
                    cl_event first = TC_EVENT_SENTINEL, done = TC_EVENT_SENTINEL;
                    clreduce_status st = e->enqueue(&c, q, in, in_off, n, out, out_off, 0, NULL,
                                                    (which & 1) ? &first : NULL,
                                                    (which & 2) ? &done : NULL);
                    if (st != CLREDUCE_SUCCESS)
                        print_error("%s: %s\n", what, clreduce_last_error(g_ctx));
                    assert_int_equal(st, CLREDUCE_SUCCESS);
                    if (which & 1)
                        assert_true(first != NULL && first != TC_EVENT_SENTINEL);
                    if (which & 2)
                        assert_true(done != NULL && done != TC_EVENT_SENTINEL);
                    if (which & 2) {
                        assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
                        assert_int_equal(tc_event_status(done), CL_COMPLETE);
                    }
                    if (which & 1) {
                        assert_int_equal(clWaitForEvents(1, &first), CL_SUCCESS);
                        assert_int_equal(tc_event_status(first), CL_COMPLETE);
                    }
                    if (which == 3) {
                        cl_ulong start = tc_profiling_time(first, CL_PROFILING_COMMAND_START);
                        cl_ulong first_end = tc_profiling_time(first, CL_PROFILING_COMMAND_END);
                        cl_ulong done_start = tc_profiling_time(done, CL_PROFILING_COMMAND_START);
                        cl_ulong end = tc_profiling_time(done, CL_PROFILING_COMMAND_END);
                        if (n == max_n || n == 0)
                            print_message("%s: %s, %.3f ms\n", what,
                                          first == done ? "one command" : "several commands",
                                          (double)(end - start) * 1e-6);
                        assert_true(start <= first_end);
                        assert_true(start <= done_start);
                        assert_true(done_start <= end);
                        assert_true(first_end <= end);
                        assert_true(start <= end);
                    }
                    if (which & 1)
                        assert_int_equal(clReleaseEvent(first), CL_SUCCESS);
                    if (which & 2)
                        assert_int_equal(clReleaseEvent(done), CL_SUCCESS);
                    /* Without `done`, the queue's end is the call's end. */
                    assert_int_equal(clFinish(q), CL_SUCCESS);
                    tc_read_buffer(q, out, res, out_count * es, 0, NULL);
                    char why[320] = "the result is right";
                    int right = f->check(&c, data + in_off * es, n, res + out_off * es, why,
                                         sizeof why);
                    size_t outside = tc_first_changed_outside(res, out_count, out_off, len, es);
                    if (!right || outside != SIZE_MAX) {
                        failures++;
                        print_error("FAILED %s, input_offset=%zu output_offset=%zu, events %d: "
                                    "%s; outside the output: %s\n",
                                    what, in_off, out_off, which, why,
                                    outside == SIZE_MAX ? "untouched" : "changed");
                    }
                }
            }
        }
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseCommandQueue(q);
    free(data);
    free(res);
    assert_int_equal(failures, 0);
}

/* ---- a wait list that fails ---------------------------------------------------- */

static void test_failed_wait(void **state)
{
    const entry *e = begin(state);
    const family *f = e->fam;
    cl_command_queue queues[2] = {g_queue, NULL};
    if (tc_platform_is(g_ctx, TC_INTEL_CPU_RUNTIME))
        /* Intel's CPU runtime 2026.2 crashes in clFinish (or never
         * returns) on an out-of-order queue whose kernel waited on a user
         * event that failed, clreduce or not (docs/RELIABILITY.md). */
        print_message("note: no out-of-order queue on Intel's CPU runtime\n");
    else if (tc_device_supports_queue(g_ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
        queues[1] = tc_create_queue(g_ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    static const call combos[] = {{CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_EXCLUSIVE, 0},
                                  {CLREDUCE_OP_MIN, CLREDUCE_DOUBLE, CLREDUCE_INCLUSIVE, 0}};
    const size_t n = f->count, in_off = 1, out_off = 3, out_count = out_off + f->written(n) + 2;
    unsigned char *data = malloc((in_off + n) * 8), *res = malloc(out_count * 8);
    assert_true(data && res);
    cl_mem in = tc_make_buffer(g_ctx, (in_off + n) * 8, NULL);
    cl_mem out = tc_make_buffer(g_ctx, out_count * 8, NULL);
    int failures = 0, calls = 0;
    for (int vi = 0; vi < f->variants; vi++) {
        for (size_t ci = 0; ci < ARRAY_SIZE(combos); ci++) {
            call c = combos[ci];
            c.variant = vi;
            size_t es = tc_elem_size(c.type);
            if (f->support(&c) != CLREDUCE_SUCCESS)
                continue;
            f->fill(&c, (size_t)vi, data, in_off + n);
            assert_int_equal(clEnqueueWriteBuffer(g_queue, in, CL_TRUE, 0, (in_off + n) * es, data,
                                                  0, NULL, NULL),
                             CL_SUCCESS);
            for (size_t qi = 0; qi < ARRAY_SIZE(queues) && queues[qi]; qi++) {
                cl_command_queue q = queues[qi];
                /* 1: done asked for; 0: not. */
                for (int which = 0; which < 2; which++) {
                    char what[256];
                    describe(e, &c, n, what, sizeof what);
                    cl_event gate = tc_user_event(g_ctx), done = NULL;
                    assert_int_equal(e->enqueue(&c, q, in, in_off, n, out, out_off, 1, &gate,
                                                NULL, which ? &done : NULL),
                                     CLREDUCE_SUCCESS);
                    clFlush(q);
                    assert_int_equal(clSetUserEventStatus(gate, -1), CL_SUCCESS);
                    clReleaseEvent(gate);
                    /* Whether the commands behind a failed event fail or
                     * run is the runtime's (PoCL fails them, Intel's
                     * runtime runs them): the waits must end, and what
                     * follows must be right. */
                    if (done) {
                        clWaitForEvents(1, &done);
                        clReleaseEvent(done);
                    }
                    clFinish(q);
                    assert_int_equal(e->enqueue(&c, q, in, in_off, n, out, out_off, 0, NULL,
                                                NULL, NULL),
                                     CLREDUCE_SUCCESS);
                    assert_int_equal(clFinish(q), CL_SUCCESS);
                    tc_read_buffer(g_queue, out, res, out_count * es, 0, NULL);
                    char why[320] = "the result is right";
                    if (!f->check(&c, data + in_off * es, n, res + out_off * es, why,
                                  sizeof why)) {
                        failures++;
                        print_error("FAILED %s, %s queue, done %s, after a failed wait: %s\n",
                                    what, qi ? "out-of-order" : "in-order",
                                    which ? "asked for" : "not asked for", why);
                    }
                    calls++;
                }
            }
        }
    }
    print_message("%s: %d calls behind a failed event, each followed by a right one\n", e->name,
                  calls);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    if (queues[1])
        clReleaseCommandQueue(queues[1]);
    free(data);
    free(res);
    assert_int_equal(failures, 0);
}

/* ---- an out-of-order queue ----------------------------------------------------- */

static void test_out_of_order_queue(void **state)
{
    const entry *e = begin(state);
    const family *f = e->fam;
    cl_command_queue q = queue_or_skip(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, "out-of-order");
    /* Each with the operator of the chained call, which has the other kind
     * and runs with AUTO on the AUTO call's output. */
    static const struct {
        call c;
        clreduce_op chain_op;
    } combos[] = {
        {{CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_INCLUSIVE, 0}, CLREDUCE_OP_SUM},
        {{CLREDUCE_OP_MAX, CLREDUCE_INT32, CLREDUCE_EXCLUSIVE, 0}, CLREDUCE_OP_MAX},
        {{CLREDUCE_OP_SUM, CLREDUCE_INT64, CLREDUCE_EXCLUSIVE, 0}, CLREDUCE_OP_SUM},
        {{CLREDUCE_OP_MIN, CLREDUCE_FLOAT, CLREDUCE_INCLUSIVE, 0}, CLREDUCE_OP_SUM},
    };
    enum { MAX_VARIANTS = CLREDUCE_VARIANT_COUNT };
    const int nv = f->variants;
    const size_t n = f->count, len = f->written(n), in_off = 5, gap = 3;
    const size_t out_count = gap + (size_t)nv * (len + gap), out2_count = len + 2 * gap;
    int failures = 0;
    for (size_t ci = 0; ci < ARRAY_SIZE(combos); ci++) {
        call c = combos[ci].c;
        call chain = c;
        chain.op = combos[ci].chain_op;
        chain.kind = c.kind == CLREDUCE_INCLUSIVE ? CLREDUCE_EXCLUSIVE : CLREDUCE_INCLUSIVE;
        chain.variant = 0; /* AUTO */
        size_t es = tc_elem_size(c.type);
        unsigned char *stale = malloc((n + in_off) * es), *fresh = malloc((n + in_off) * es);
        unsigned char *res = malloc(out_count * es), *res2 = malloc(out2_count * es);
        assert_true(stale && fresh && res && res2);
        f->fill(&c, 0, stale, n + in_off);
        f->fill(&c, 1, fresh, n + in_off);
        memset(res, TC_SENTINEL_BYTE, out_count * es);
        memset(res2, TC_SENTINEL_BYTE, out2_count * es);
        cl_mem in = tc_make_buffer(g_ctx, (n + in_off) * es, stale);
        cl_mem out = tc_make_buffer(g_ctx, out_count * es, res);
        cl_mem out2 = tc_make_buffer(g_ctx, out2_count * es, res2);
        cl_event gate, upload;
        upload_behind_gate(q, in, fresh, (n + in_off) * es, &gate, &upload);
        cl_event done[MAX_VARIANTS + 1];
        int ran[MAX_VARIANTS];
        cl_uint ndone = 0;
        char what[256];
        for (int vi = 0; vi < nv; vi++) {
            c.variant = vi;
            ran[vi] = f->support(&c) == CLREDUCE_SUCCESS;
            if (!ran[vi])
                continue;
            clreduce_status st = e->enqueue(&c, q, in, in_off, n, out,
                                            gap + (size_t)vi * (len + gap), 1, &upload, NULL,
                                            &done[ndone++]);
            if (st != CLREDUCE_SUCCESS)
                print_error("out-of-order %s: %s\n", describe(e, &c, n, what, sizeof what),
                            clreduce_last_error(g_ctx));
            assert_int_equal(st, CLREDUCE_SUCCESS);
        }
        assert_true(ran[0]); /* AUTO, whose done is done[0] */
        clreduce_status st = e->enqueue(&chain, q, out, gap, len, out2, gap, 1, &done[0], NULL,
                                        &done[ndone]);
        assert_int_equal(st, CLREDUCE_SUCCESS);
        clFlush(q);
        let_runtime_run();
        for (cl_uint i = 0; i <= ndone; i++)
            if (tc_event_status(done[i]) == CL_COMPLETE) {
                print_error("out-of-order %s: call %u completed before its wait list\n", e->name,
                            i);
                failures++;
            }
        assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
        tc_read_buffer(q, out, res, out_count * es, ndone, done);
        tc_read_buffer(q, out2, res2, out2_count * es, 1, &done[ndone]);

        for (int vi = 0; vi < nv; vi++) {
            size_t from = gap + (size_t)vi * (len + gap);
            char why[320] = "written, though not supported";
            c.variant = vi;
            int ok = ran[vi] ? f->check(&c, fresh + in_off * es, n, res + from * es, why,
                                        sizeof why)
                             : tc_first_changed_outside(res + from * es, len, 0, 0, es) ==
                                   SIZE_MAX;
            if (!ok) {
                failures++;
                print_error("FAILED out-of-order %s, input_offset=%zu output_offset=%zu: %s\n",
                            describe(e, &c, n, what, sizeof what), in_off, from, why);
            }
            /* The gap before each range, and after the last. */
            if (tc_first_changed_outside(res + (from - gap) * es, gap, 0, 0, es) != SIZE_MAX ||
                (vi == nv - 1 &&
                 tc_first_changed_outside(res + (from + len) * es, gap, 0, 0, es) != SIZE_MAX)) {
                failures++;
                print_error("FAILED out-of-order %s: elements next to output range %d changed\n",
                            e->name, vi);
            }
        }
        char why[320] = "the result is right";
        if (!f->check(&chain, res + gap * es, len, res2 + gap * es, why, sizeof why) ||
            tc_first_changed_outside(res2, out2_count, gap, len, es) != SIZE_MAX) {
            failures++;
            print_error("FAILED out-of-order chained call %s: %s (or elements around the output "
                        "changed)\n",
                        describe(e, &chain, len, what, sizeof what), why);
        }
        for (cl_uint i = 0; i <= ndone; i++)
            clReleaseEvent(done[i]);
        clReleaseEvent(upload);
        clReleaseEvent(gate);
        clReleaseMemObject(in);
        clReleaseMemObject(out);
        clReleaseMemObject(out2);
        free(stale);
        free(fresh);
        free(res);
        free(res2);
    }
    assert_int_equal(clFinish(q), CL_SUCCESS);
    clReleaseCommandQueue(q);
    assert_int_equal(failures, 0);
}

/* ---- a chain of events over three queues --------------------------------------- */

static void test_event_chain(void **state)
{
    const entry *e = begin(state);
    const family *f = e->fam;
    const size_t n = f->count, len = f->written(n), in_off = 7, out_off = 3, tail = 2;
    const size_t out_count = out_off + len + tail;
    call first = {CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_INCLUSIVE, 0};
    call second = {CLREDUCE_OP_MAX, CLREDUCE_INT32, CLREDUCE_EXCLUSIVE, 0};
    const size_t es = sizeof(int32_t);
    unsigned char *stale = malloc((n + in_off) * es), *fresh = malloc((n + in_off) * es);
    unsigned char *mid = malloc(out_count * es), *fin = malloc(out_count * es);
    unsigned char *want = malloc(len * es);
    assert_true(stale && fresh && mid && fin && want);
    int failures = 0;
    for (int vi = 0; vi < f->variants; vi++) {
        first.variant = second.variant = vi;
        if (f->support(&first) != CLREDUCE_SUCCESS || f->support(&second) != CLREDUCE_SUCCESS)
            continue;
        f->fill(&first, 1, stale, n + in_off);
        f->fill(&first, 1, fresh, n + in_off);
        memset(mid, TC_SENTINEL_BYTE, out_count * es);
        cl_mem in = tc_make_buffer(g_ctx, (n + in_off) * es, stale);
        cl_mem m1 = tc_make_buffer(g_ctx, out_count * es, mid);
        cl_mem m2 = tc_make_buffer(g_ctx, out_count * es, mid);
        /* The done events of the first call and of the second. */
        cl_event gate, upload, done[2] = {TC_EVENT_SENTINEL, TC_EVENT_SENTINEL};
        upload_behind_gate(g_upload_queue, in, fresh, (n + in_off) * es, &gate, &upload);
        char what[256];
        describe(e, &first, n, what, sizeof what);
        clreduce_status st =
            e->enqueue(&first, g_queue, in, in_off, n, m1, out_off, 1, &upload, NULL, &done[0]);
        if (st != CLREDUCE_SUCCESS)
            print_error("event chain %s: %s\n", what, clreduce_last_error(g_ctx));
        assert_int_equal(st, CLREDUCE_SUCCESS);
        st = e->enqueue(&second, g_upload_queue, m1, out_off, len, m2, out_off, 1, &done[0], NULL,
                        &done[1]);
        assert_int_equal(st, CLREDUCE_SUCCESS);
        assert_true(done[0] != TC_EVENT_SENTINEL && done[1] != TC_EVENT_SENTINEL);
        clFlush(g_queue);
        clFlush(g_upload_queue);
        let_runtime_run();
        if (tc_event_status(done[0]) == CL_COMPLETE || tc_event_status(done[1]) == CL_COMPLETE) {
            print_error("event chain %s: a call completed before its wait list\n", what);
            failures++;
        }
        assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
        tc_read_buffer(g_read_queue, m1, mid, out_count * es, 1, &done[0]);
        tc_read_buffer(g_read_queue, m2, fin, out_count * es, 1, &done[1]);
        char why[320];
        if (!f->check(&first, fresh + in_off * es, n, mid + out_off * es, why, sizeof why)) {
            failures++;
            print_error("FAILED event chain, first call %s, input_offset=%zu output_offset=%zu: "
                        "%s\n",
                        what, in_off, out_off, why);
        }
        f->reference(&first, fresh + in_off * es, n, want);
        if (!f->check(&second, want, len, fin + out_off * es, why, sizeof why)) {
            failures++;
            print_error("FAILED event chain, second call %s, offset=%zu: %s\n",
                        describe(e, &second, len, what, sizeof what), out_off, why);
        }
        if (tc_first_changed_outside(mid, out_count, out_off, len, es) != SIZE_MAX ||
            tc_first_changed_outside(fin, out_count, out_off, len, es) != SIZE_MAX) {
            failures++;
            print_error("event chain %s: elements around the output range changed\n", what);
        }
        for (int i = 0; i < 2; i++) {
            assert_int_equal(tc_event_status(done[i]), CL_COMPLETE);
            clReleaseEvent(done[i]);
        }
        clReleaseEvent(upload);
        clReleaseEvent(gate);
        clReleaseMemObject(in);
        clReleaseMemObject(m1);
        clReleaseMemObject(m2);
    }
    assert_int_equal(clFinish(g_queue), CL_SUCCESS);
    assert_int_equal(clFinish(g_upload_queue), CL_SUCCESS);
    free(stale);
    free(fresh);
    free(mid);
    free(fin);
    free(want);
    assert_int_equal(failures, 0);
}

int main(void)
{
    g_ctx = tc_start("unit.events", &g_queue, &g_upload_queue, &g_read_queue, NULL);

    static const struct {
        const char *name;
        CMUnitTestFunction fn;
    } drivers[] = {{"first_and_done", test_first_and_done},
                   {"out_of_order_queue", test_out_of_order_queue},
                   {"event_chain", test_event_chain},
                   {"failed_wait", test_failed_wait}};
    static event_test cases[ARRAY_SIZE(drivers) * ARRAY_SIZE(entries)];
    struct CMUnitTest tests[ARRAY_SIZE(cases)];
    size_t nt = 0;
    for (size_t d = 0; d < ARRAY_SIZE(drivers); d++)
        for (size_t i = 0; i < ARRAY_SIZE(entries); i++) {
            event_test *t = &cases[nt];
            t->e = &entries[i];
            snprintf(t->name, sizeof t->name, "%s_%s", drivers[d].name, entries[i].name);
            tc_add_test(tests, &nt, t->name, drivers[d].fn, t);
        }
    int failed = tc_run_tests("unit.events", tests, nt);

    return tc_finish(g_ctx, failed, g_read_queue, g_upload_queue, g_queue, NULL);
}
