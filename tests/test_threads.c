/* unit.threads: one clreduce_ctx shared by several threads, each with its
 * own queue (one of them out-of-order where the device has such queues).
 *  - A mix of reductions and scans (operators, types, variants, awkward
 *    sizes, the host entry points and cl_mem ranges at offsets, scans in
 *    place) runs for a bounded time; every result is checked in its thread
 *    against a CPU reference.
 *  - Scans of every variant and both kinds, of 65539 and about a million
 *    elements, from every thread at once, the first two threads sharing
 *    one queue.
 *  - Buffers created, summed and released in every thread at once: what the
 *    context keeps about buffers is never another buffer's.
 *  - clreduce_last_error() is per thread: threads fail at the same moments
 *    with messages of their own, and each reads back its own, never another
 *    thread's; a success clears only the caller's message.
 *  - Threads asking at once for a kernel no one has built yet get one build.
 * Threads cannot use cmocka's asserts; each keeps its first failure, and the
 * main thread asserts once they are joined.
 *
 * CLREDUCE_TEST_THREADS (default 8) and CLREDUCE_TEST_SECONDS (default 3)
 * set the number of threads and the duration of the mixed run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_common.h"

#define MAX_THREADS 64
#define MAX_COUNT ((size_t)262147)
#define MAX_OFFSET 17

static clreduce_ctx *g_ctx;
static int g_nthreads = 8;
static double g_seconds = 3.0;
static int g_have_ooo;

/* The mix: every variant, every type, every operator at least once; kept
 * short because each entry is a program to build (seconds each on PoCL
 * with a cold kernel cache). */
typedef struct combo {
    int scan;
    clreduce_op op;
    clreduce_type type;
    int variant; /* a clreduce_variant, or a clreduce_scan_variant */
    clreduce_scan_kind kind;
} combo;

#define RED(op, type, variant) {0, CLREDUCE_OP_##op, CLREDUCE_##type, CLREDUCE_##variant, 0}
#define SCN(op, type, kind, variant)                                                          \
    {1, CLREDUCE_OP_##op, CLREDUCE_##type, CLREDUCE_SCAN_##variant, CLREDUCE_##kind}

static const combo mix[] = {
    RED(SUM, FLOAT, AUTO),
    RED(SUM, INT32, AUTO),
    RED(MAX, DOUBLE, AUTO),
    RED(MIN, UINT64, GRID_STRIDE),
    RED(SUM, INT64, SINGLE_PASS),
    RED(MAX, UINT32, ATOMIC),
    RED(SUM, FLOAT, SEQUENTIAL),
    RED(MIN, INT32, INTERLEAVED),
    RED(SUM, DOUBLE, FIRST_ADD),
    RED(MAX, INT64, UNROLLED),
    RED(SUM, UINT32, SUBGROUP),
    RED(MIN, FLOAT, SUBGROUP_TAIL),
    SCN(SUM, INT32, INCLUSIVE, AUTO),
    SCN(SUM, FLOAT, EXCLUSIVE, HILLIS_STEELE),
    SCN(MAX, DOUBLE, INCLUSIVE, BLELLOCH),
    SCN(MIN, UINT64, EXCLUSIVE, REDUCE_THEN_SCAN),
    SCN(SUM, INT64, INCLUSIVE, LOOKBACK),
};

static const size_t sizes[] = {1, 2, 3, 255, 256, 257, 1000, 4097, 65537, 100003, MAX_COUNT};

/* ---- per-thread state ------------------------------------------------------------ */

typedef struct worker {
    int id;
    uint64_t rng;
    cl_command_queue queue;
    int out_of_order;
    cl_mem input;  /* MAX_OFFSET + MAX_COUNT + 1 elements of 8 bytes */
    cl_mem result; /* 4 elements of 8 bytes */
    cl_mem output; /* as input: scan outputs */
    unsigned char *data, *out;
    clreduce_ctx *ctx; /* first_call_worker: the context it calls */
    /* Results. */
    unsigned long calls, host_calls, mem_calls, scans, error_checks, skipped;
    unsigned long per_combo[ARRAY_SIZE(mix)];
    int failed;
    char failure[1024];
    /* Read by the main thread's watchdog: whether the thread is done, and
     * the call it is in (an index into mix plus one; 0 between calls). */
    void *(*fn)(void *);
    atomic_int finished;
    atomic_int doing;
    atomic_size_t doing_count;
} worker;

static uint64_t next_random(worker *w)
{
    uint64_t z = (w->rng += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static void record_failure(worker *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void record_failure(worker *w, const char *fmt, ...)
{
    if (w->failed++)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->failure, sizeof w->failure, fmt, ap);
    va_end(ap);
}

/* Random data as tc_fill_random makes it, from the thread's own generator:
 * integers often near their limits, floats of both signs. */
static void fill_random(worker *w, clreduce_type type, void *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next_random(w);
        tc_value v;
        memset(&v, 0, sizeof v);
        switch (type) {
        case CLREDUCE_FLOAT: /* in (-1024, 1024) */
            v.f = (float)((double)(int64_t)r * 0x1p-53);
            break;
        case CLREDUCE_DOUBLE:
            v.d = (double)(int64_t)r * 0x1p-53;
            break;
        case CLREDUCE_INT32:
        case CLREDUCE_UINT32:
            v.u32 = (uint32_t)r;
            /* Never the extreme values: those are min's and max's identities. */
            if (v.u32 == 0 || v.u32 == UINT32_MAX || v.u32 == 0x7fffffffu || v.u32 == 0x80000000u)
                v.u32 = 12345;
            break;
        default:
            v.u64 = r;
            if (v.u64 == 0 || v.u64 == UINT64_MAX || v.u64 == (UINT64_MAX >> 1) ||
                v.u64 == (UINT64_MAX >> 1) + 1)
                v.u64 = 12345;
            break;
        }
        tc_set(type, data, i, &v);
    }
}

static const char *combo_variant_name(const combo *c)
{
    const char *name = c->scan ? clreduce_scan_variant_name((clreduce_scan_variant)c->variant)
                               : clreduce_variant_name((clreduce_variant)c->variant);
    return name ? name : "?";
}

static void check_value(worker *w, const combo *c, size_t n, const char *entry, const void *data,
                        const tc_value *got)
{
    tc_value ref;
    long double abs_sum;
    tc_reference(c->op, c->type, data, n, &ref, &abs_sum);
    if (!tc_matches(c->op, c->type, got, &ref, abs_sum)) {
        tc_got_want text = tc_format_got_want(c->type, got, &ref);
        record_failure(w, "thread %d: %s %s %s %s, %zu elements: got %s, expected %s", w->id, entry,
                       tc_op_name(c->op), tc_type_name(c->type), combo_variant_name(c), n, text.got,
                       text.want);
    }
}

static void check_scan(worker *w, const combo *c, size_t n, const char *entry, const void *out)
{
    char why[256];
    if (!tc_scan_matches(c->op, c->type, c->kind, w->data, n, out, why, sizeof why))
        record_failure(w, "thread %d: %s %s %s %s %s, %zu elements: %s", w->id, entry,
                       clreduce_scan_kind_name(c->kind), tc_op_name(c->op), tc_type_name(c->type),
                       combo_variant_name(c), n, why);
}

/* A reduction or a scan of host memory; a scan in place one time in two. */
static void call_host(worker *w, const combo *c, size_t n)
{
    size_t es = clreduce_type_size(c->type);
    int in_place = c->scan && next_random(w) % 2 == 0;
    if (in_place)
        memcpy(w->out, w->data, n * es);
    tc_value got;
    memset(&got, 0, sizeof got);
    clreduce_status s =
        c->scan
            ? clreduce_scan_host(g_ctx, c->op, c->type, c->kind, (clreduce_scan_variant)c->variant,
                                 in_place ? w->out : w->data, n, w->out)
            : clreduce_reduce_host(g_ctx, c->op, c->type, (clreduce_variant)c->variant, w->data, n,
                                   got.bytes);
    const char *entry = c->scan ? "scan_host" : "reduce_host";
    if (s != CLREDUCE_SUCCESS) {
        record_failure(w, "thread %d: %s %s %s %s, %zu elements: %s: %s", w->id, entry,
                       tc_op_name(c->op), tc_type_name(c->type), combo_variant_name(c), n,
                       clreduce_status_string(s), clreduce_last_error(g_ctx));
        return;
    }
    if (clreduce_last_error(g_ctx)[0])
        record_failure(w, "thread %d: a success left the message \"%s\"", w->id,
                       clreduce_last_error(g_ctx));
    if (c->scan) {
        check_scan(w, c, n, in_place ? "scan_host in place" : entry, w->out);
        w->scans++;
    } else {
        check_value(w, c, n, entry, w->data, &got);
    }
    w->host_calls++;
}

/* A reduction into element 0 to 2 of the result buffer, or a scan into
 * another buffer or, one time in three, in place, of a cl_mem range at an
 * offset. The range is uploaded without blocking: the call waits for the
 * upload's event. */
static void call_mem(worker *w, const combo *c, size_t n)
{
    size_t es = clreduce_type_size(c->type);
    size_t offset = (size_t)(next_random(w) % MAX_OFFSET);
    int in_place = c->scan && next_random(w) % 3 == 0;
    size_t out_offset = !c->scan   ? (size_t)(next_random(w) % 3)
                        : in_place ? offset
                                   : (size_t)(next_random(w) % MAX_OFFSET);
    cl_mem output = !c->scan ? w->result : in_place ? w->input : w->output;
    size_t written_count = c->scan ? n : 1;
    cl_event written = NULL, done = NULL;
    cl_int err = clEnqueueWriteBuffer(w->queue, w->input, CL_FALSE, offset * es, n * es, w->data,
                                      0, NULL, &written);
    if (err != CL_SUCCESS) {
        record_failure(w, "thread %d: clEnqueueWriteBuffer: %s", w->id,
                       clreduce_opencl_error_name(err));
        return;
    }
    clreduce_status s =
        c->scan ? clreduce_scan(g_ctx, w->queue, c->op, c->type, c->kind,
                                (clreduce_scan_variant)c->variant, w->input, offset, n, output,
                                out_offset, 1, &written, &done)
                : clreduce_reduce(g_ctx, w->queue, c->op, c->type, (clreduce_variant)c->variant,
                                  w->input, offset, n, output, out_offset, 1, &written, &done);
    if (s == CLREDUCE_SUCCESS) {
        err = clEnqueueReadBuffer(w->queue, output, CL_TRUE, out_offset * es, written_count * es,
                                  w->out, 1, &done, NULL);
        clReleaseEvent(done);
    }
    clWaitForEvents(1, &written);
    clReleaseEvent(written);
    const char *entry = c->scan ? "scan" : "reduce";
    if (s != CLREDUCE_SUCCESS) {
        record_failure(w, "thread %d: %s %s %s %s, %zu elements at %zu: %s: %s", w->id, entry,
                       tc_op_name(c->op), tc_type_name(c->type), combo_variant_name(c), n, offset,
                       clreduce_status_string(s), clreduce_last_error(g_ctx));
        return;
    }
    if (err != CL_SUCCESS) {
        record_failure(w, "thread %d: clEnqueueReadBuffer: %s", w->id,
                       clreduce_opencl_error_name(err));
        return;
    }
    if (c->scan) {
        check_scan(w, c, n, in_place ? "scan in place" : entry, w->out);
        w->scans++;
    } else {
        tc_value got;
        memset(&got, 0, sizeof got);
        memcpy(got.bytes, w->out, es);
        check_value(w, c, n, entry, w->data, &got);
    }
    w->mem_calls++;
}

/* Fails a call with a message only this thread makes: an unknown variant
 * whose number names the thread and the round. want[64] receives the
 * message. */
static void fail_own_call(worker *w, unsigned round, char *want)
{
    int variant = 1000 + w->id * 100 + (int)(round % 100);
    snprintf(want, 64, "unknown variant %d", variant);
    float x = 1.0f, r = 0.0f;
    clreduce_status s = clreduce_reduce_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                             (clreduce_variant)variant, &x, 1, &r);
    if (s != CLREDUCE_ERROR_INVALID_ARGUMENT)
        record_failure(w, "thread %d: variant %d gave %s", w->id, variant,
                       clreduce_status_string(s));
}

/* Fails a call of its own, lets the others run, and reads the message
 * back. */
static void check_own_error(worker *w, unsigned round)
{
    char want[64];
    fail_own_call(w, round, want);
    usleep((useconds_t)(next_random(w) % 2000));
    const char *msg = clreduce_last_error(g_ctx);
    if (strcmp(msg, want) != 0)
        record_failure(w, "thread %d: clreduce_last_error is \"%s\", expected \"%s\"", w->id,
                       msg, want);
    w->error_checks++;
}

static int combo_supported(const combo *c)
{
    clreduce_status s =
        c->scan ? clreduce_check_scan_support(g_ctx, c->op, c->type,
                                              (clreduce_scan_variant)c->variant)
                : clreduce_check_support(g_ctx, c->op, c->type, (clreduce_variant)c->variant);
    return s == CLREDUCE_SUCCESS;
}

static void *mixed_worker(void *arg)
{
    worker *w = arg;
    double deadline = tc_now_seconds() + g_seconds;
    unsigned round = 0;
    while ((tc_now_seconds() < deadline || round < 4) && !w->failed) {
        const combo *c = &mix[next_random(w) % ARRAY_SIZE(mix)];
        if (!combo_supported(c)) {
            w->skipped++;
            continue;
        }
        size_t n = sizes[next_random(w) % ARRAY_SIZE(sizes)];
        int host = next_random(w) % 3 == 0;
        atomic_store(&w->doing_count, n);
        atomic_store(&w->doing, (int)(c - mix) + 1);
        fill_random(w, c->type, w->data, n);
        if (host)
            call_host(w, c, n);
        else
            call_mem(w, c, n);
        atomic_store(&w->doing, 0);
        w->per_combo[c - mix]++;
        w->calls++;
        if (++round % 4 == 0)
            check_own_error(w, round);
    }
    return NULL;
}

/* Buffers for calls of up to `capacity` elements; the thread's own queue,
 * or `shared` (another thread's) when not NULL. */
static int worker_setup(worker *w, int id, size_t capacity, cl_command_queue shared)
{
    memset(w, 0, sizeof *w);
    w->id = id;
    w->rng = tc_seed() ^ ((uint64_t)(id + 1) * UINT64_C(0xD1B54A32D192ED03));
    if (shared) {
        w->queue = shared;
        clRetainCommandQueue(shared);
    } else {
        /* The last thread's queue is out-of-order where the device allows it. */
        w->out_of_order = g_have_ooo && id == g_nthreads - 1;
        w->queue = tc_create_queue(g_ctx,
                                   w->out_of_order ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0);
    }
    if (!w->queue)
        return -1;
    cl_int err;
    cl_context cl = clreduce_get_cl_context(g_ctx);
    w->input = clCreateBuffer(cl, CL_MEM_READ_WRITE, (MAX_OFFSET + capacity + 1) * 8, NULL, &err);
    if (err != CL_SUCCESS)
        return -1;
    w->result = clCreateBuffer(cl, CL_MEM_READ_WRITE, 4 * 8, NULL, &err);
    if (err != CL_SUCCESS)
        return -1;
    w->output = clCreateBuffer(cl, CL_MEM_READ_WRITE, (MAX_OFFSET + capacity + 1) * 8, NULL,
                               &err);
    if (err != CL_SUCCESS)
        return -1;
    w->data = malloc(capacity * 8);
    w->out = malloc(capacity * 8);
    return w->data && w->out ? 0 : -1;
}

static void worker_teardown(worker *w)
{
    if (w->queue) {
        clFinish(w->queue);
        clReleaseCommandQueue(w->queue);
    }
    if (w->input)
        clReleaseMemObject(w->input);
    if (w->result)
        clReleaseMemObject(w->result);
    if (w->output)
        clReleaseMemObject(w->output);
    free(w->data);
    free(w->out);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    w->fn(w);
    atomic_store(&w->finished, 1);
    return NULL;
}

/* Runs fn in every worker's thread and joins them. A thread that has not
 * returned WATCHDOG_SECONDS after the run's end fails the program at once,
 * saying where it is, rather than at the test's timeout: once, on a
 * two-core machine loaded by other work, Intel's CPU runtime never returned
 * from two blocking clEnqueueReadBuffer calls (its task scheduler waiting
 * on itself, with no work left). */
#define WATCHDOG_SECONDS 300

static void run_workers(worker *workers, void *(*fn)(void *))
{
    pthread_t threads[MAX_THREADS];
    for (int i = 0; i < g_nthreads; i++) {
        workers[i].fn = fn;
        atomic_init(&workers[i].finished, 0);
        atomic_init(&workers[i].doing, 0);
        atomic_init(&workers[i].doing_count, 0);
        assert_int_equal(pthread_create(&threads[i], NULL, worker_main, &workers[i]), 0);
    }
    double limit = tc_now_seconds() + g_seconds + WATCHDOG_SECONDS;
    for (;;) {
        int running = 0;
        for (int i = 0; i < g_nthreads; i++)
            running += !atomic_load(&workers[i].finished);
        if (!running)
            break;
        if (tc_now_seconds() > limit) {
            for (int i = 0; i < g_nthreads; i++) {
                int doing = atomic_load(&workers[i].doing);
                if (atomic_load(&workers[i].finished))
                    continue;
                if (doing)
                    fprintf(stderr, "thread %d has not returned from %s%s %s %s, %zu elements\n",
                            i, mix[doing - 1].scan ? "a scan " : "a reduction ",
                            tc_op_name(mix[doing - 1].op), tc_type_name(mix[doing - 1].type),
                            combo_variant_name(&mix[doing - 1]),
                            atomic_load(&workers[i].doing_count));
                else
                    fprintf(stderr, "thread %d has not finished\n", i);
            }
            fprintf(stderr, "no progress %d s after the end of the run: giving up\n",
                    WATCHDOG_SECONDS);
            fflush(stderr);
            _exit(1);
        }
        usleep(50000);
    }
    for (int i = 0; i < g_nthreads; i++)
        assert_int_equal(pthread_join(threads[i], NULL), 0);
    for (int i = 0; i < g_nthreads; i++)
        if (workers[i].failed)
            print_error("%s (%d failures in that thread)\n", workers[i].failure,
                        workers[i].failed);
    for (int i = 0; i < g_nthreads; i++)
        assert_int_equal(workers[i].failed, 0);
}

/* Each thread creates an input of a random size, sums it (int32 ones),
 * asks one element past its end (refused), and releases it, for the run's
 * time: buffers come and go in every thread at once, so the answers the
 * context keeps about buffers are looked up, added and dropped (by the
 * runtime's destructor callbacks) concurrently, and a handle another
 * thread's released buffer had must never bring its size along. */
static void *buffers_worker(void *arg)
{
    worker *w = arg;
    cl_context cl = clreduce_get_cl_context(g_ctx);
    double deadline = tc_now_seconds() + g_seconds;
    int32_t *ones = (int32_t *)w->data;
    for (size_t i = 0; i < 5000; i++)
        ones[i] = 1;
    unsigned round = 0;
    while ((tc_now_seconds() < deadline || round < 4) && !w->failed) {
        size_t n = 1 + (size_t)(next_random(w) % 5000);
        cl_int err;
        cl_mem in = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                   n * sizeof *ones, ones, &err);
        if (err != CL_SUCCESS) {
            record_failure(w, "thread %d: clCreateBuffer: %s", w->id,
                           clreduce_opencl_error_name(err));
            break;
        }
        int32_t sum = -1;
        cl_event done = NULL;
        clreduce_status s = clreduce_reduce(g_ctx, w->queue, CLREDUCE_OP_SUM, CLREDUCE_INT32,
                                            CLREDUCE_AUTO, in, 0, n, w->result, 0, 0, NULL,
                                            &done);
        if (s == CLREDUCE_SUCCESS) {
            err = clEnqueueReadBuffer(w->queue, w->result, CL_TRUE, 0, sizeof sum, &sum, 1,
                                      &done, NULL);
            clReleaseEvent(done);
        }
        clreduce_status past = clreduce_reduce(g_ctx, w->queue, CLREDUCE_OP_SUM, CLREDUCE_INT32,
                                               CLREDUCE_AUTO, in, 0, n + 1, w->result, 0, 0,
                                               NULL, NULL);
        clFinish(w->queue);
        clReleaseMemObject(in);
        if (s != CLREDUCE_SUCCESS || err != CL_SUCCESS || sum != (int32_t)n)
            record_failure(w, "thread %d: sum of %zu ones: %s, %d", w->id, n,
                           clreduce_status_string(s), (int)sum);
        else if (past != CLREDUCE_ERROR_INVALID_ARGUMENT)
            record_failure(w, "thread %d: %zu + 1 elements of a buffer of %zu: %s", w->id, n, n,
                           clreduce_status_string(past));
        w->calls++;
        round++;
    }
    return NULL;
}

static void test_buffers_come_and_go(void **state)
{
    (void)state;
    tc_seed_for("buffers_come_and_go");
    worker workers[MAX_THREADS];
    for (int i = 0; i < g_nthreads; i++)
        assert_int_equal(worker_setup(&workers[i], i, 5000, NULL), 0);
    run_workers(workers, buffers_worker);
    unsigned long calls = 0;
    for (int i = 0; i < g_nthreads; i++) {
        calls += workers[i].calls;
        worker_teardown(&workers[i]);
    }
    print_message("%d threads: %lu buffers created, summed and released\n", g_nthreads, calls);
}

static void test_mixed(void **state)
{
    (void)state;
    tc_seed_for("mixed");
    worker workers[MAX_THREADS];
    for (int i = 0; i < g_nthreads; i++)
        assert_int_equal(worker_setup(&workers[i], i, MAX_COUNT, NULL), 0);
    double t0 = tc_now_seconds();
    run_workers(workers, mixed_worker);
    double elapsed = tc_now_seconds() - t0;

    unsigned long calls = 0, host = 0, mem = 0, scans = 0, errors = 0;
    unsigned long per_combo[ARRAY_SIZE(mix)] = {0};
    for (int i = 0; i < g_nthreads; i++) {
        worker *w = &workers[i];
        print_message("thread %d (%s queue): %lu calls (%lu scans; %lu host, %lu cl_mem), %lu "
                      "error checks\n",
                      i, w->out_of_order ? "out-of-order" : "in-order", w->calls, w->scans,
                      w->host_calls, w->mem_calls, w->error_checks);
        calls += w->calls;
        scans += w->scans;
        host += w->host_calls;
        mem += w->mem_calls;
        errors += w->error_checks;
        for (size_t c = 0; c < ARRAY_SIZE(mix); c++)
            per_combo[c] += w->per_combo[c];
        /* Every thread got work done: no thread starved behind a lock. */
        assert_true(w->calls >= 4);
    }
    for (size_t c = 0; c < ARRAY_SIZE(mix); c++)
        print_message("  %s%s %s %s %s: %lu\n", mix[c].scan ? "scan " : "",
                      mix[c].scan ? clreduce_scan_kind_name(mix[c].kind) : "reduce",
                      tc_op_name(mix[c].op), tc_type_name(mix[c].type),
                      combo_variant_name(&mix[c]), per_combo[c]);
    print_message("%d threads, %.1f s: %lu calls checked (%lu reductions, %lu scans; %lu host, "
                  "%lu cl_mem), %lu per-thread error checks\n",
                  g_nthreads, elapsed, calls, calls - scans, scans, host, mem, errors);
    for (int i = 0; i < g_nthreads; i++)
        worker_teardown(&workers[i]);
}

/* ---- scans, two threads on one queue ------------------------------------------------------ */

enum { SCAN_RUNS = 12 };

/* Every scan variant in turn, both kinds: int32 sums of random bits and
 * int64 minima of a falling trend (a new minimum at every element), at 65539
 * and TC_LARGE_COUNT elements, each checked in its thread. */
static void *scan_worker(void *arg)
{
    worker *w = arg;
    for (int r = 0; r < SCAN_RUNS; r++) {
        int sum = r % 2 == 0;
        combo c = {1, sum ? CLREDUCE_OP_SUM : CLREDUCE_OP_MIN,
                   sum ? CLREDUCE_INT32 : CLREDUCE_INT64, (w->id + r) % CLREDUCE_SCAN_VARIANT_COUNT,
                   (r / 2) % 2 ? CLREDUCE_EXCLUSIVE : CLREDUCE_INCLUSIVE};
        size_t n = r % 3 == 2 ? TC_LARGE_COUNT : 65539;
        if (!combo_supported(&c)) {
            w->skipped++;
            continue;
        }
        atomic_store(&w->doing_count, n);
        if (sum) {
            fill_random(w, c.type, w->data, n);
        } else {
            for (size_t i = 0; i < n; i++) {
                tc_value x;
                memset(&x, 0, sizeof x);
                x.i64 = INT64_MAX - (int64_t)(i * (UINT64_C(1) << 40)) -
                        (int64_t)(next_random(w) >> 20);
                tc_set(c.type, w->data, i, &x);
            }
        }
        call_mem(w, &c, n);
    }
    return NULL;
}

/* Scans on one context from every thread at once, the first two threads on
 * one queue. */
static void test_scans_sharing_a_queue(void **state)
{
    (void)state;
    tc_seed_for("scans sharing a queue");
    worker workers[MAX_THREADS];
    for (int i = 0; i < g_nthreads; i++)
        assert_int_equal(
            worker_setup(&workers[i], i, TC_LARGE_COUNT, i == 1 ? workers[0].queue : NULL), 0);
    run_workers(workers, scan_worker);
    unsigned long scans = 0, skipped = 0;
    for (int i = 0; i < g_nthreads; i++) {
        scans += workers[i].scans;
        skipped += workers[i].skipped;
    }
    print_message("%lu scans checked in %d threads (two on one queue), %lu not supported here\n",
                  scans, g_nthreads, skipped);
    for (int i = 0; i < g_nthreads; i++)
        worker_teardown(&workers[i]);
}

/* ---- messages stay in their thread ------------------------------------------------------- */

static pthread_barrier_t g_barrier;

/* A message is valid until the thread's next clreduce call (clreduce.h), so
 * every check comes before the thread's next call, after all the others'. */
static void *error_worker(void *arg)
{
    worker *w = arg;
    for (unsigned round = 0; round < 40; round++) {
        /* Everyone fails at once, each with its own message... */
        pthread_barrier_wait(&g_barrier);
        char want[64];
        fail_own_call(w, round, want);
        pthread_barrier_wait(&g_barrier);
        /* ...and reads back its own once everyone has failed. */
        if (strcmp(clreduce_last_error(g_ctx), want) != 0)
            record_failure(w, "thread %d, round %u: clreduce_last_error(ctx) is \"%s\", "
                           "expected \"%s\"",
                           w->id, round, clreduce_last_error(g_ctx), want);
        pthread_barrier_wait(&g_barrier);

        /* The same for failed creates, with a setting that names the thread. */
        clreduce_settings settings;
        clreduce_default_settings(&settings);
        settings.vector_width = 100 + (unsigned)w->id;
        clreduce_ctx *other = NULL;
        clreduce_status s = clreduce_create_with_settings(
            clreduce_get_cl_context(g_ctx), clreduce_get_cl_device(g_ctx), &settings, &other);
        if (s != CLREDUCE_ERROR_INVALID_ARGUMENT)
            record_failure(w, "thread %d: vector_width %u gave %s", w->id, settings.vector_width,
                           clreduce_status_string(s));
        pthread_barrier_wait(&g_barrier);
        char want_create[64];
        snprintf(want_create, sizeof want_create, "vector_width %u ", settings.vector_width);
        if (strncmp(clreduce_last_error(NULL), want_create, strlen(want_create)) != 0)
            record_failure(w, "thread %d, round %u: clreduce_last_error(NULL) is \"%s\", "
                           "expected \"%s...\"",
                           w->id, round, clreduce_last_error(NULL), want_create);
        pthread_barrier_wait(&g_barrier);

        /* Half the threads succeed: only their own messages clear. */
        int succeeds = (w->id + (int)round) % 2 == 0;
        if (succeeds) {
            float data[3] = {1.0f, -2.0f, 4.0f}, r = 0.0f;
            s = clreduce_reduce_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_AUTO, data,
                                     3, &r);
            if (s != CLREDUCE_SUCCESS || r != 3.0f)
                record_failure(w, "thread %d: a sum of 3 floats gave %s, %g", w->id,
                               clreduce_status_string(s), (double)r);
        }
        pthread_barrier_wait(&g_barrier);
        if (succeeds && clreduce_last_error(g_ctx)[0] != '\0')
            record_failure(w, "thread %d, round %u: after a success, clreduce_last_error(ctx) "
                           "is \"%s\"",
                           w->id, round, clreduce_last_error(g_ctx));
        if (!succeeds &&
            strncmp(clreduce_last_error(NULL), want_create, strlen(want_create)) != 0)
            record_failure(w, "thread %d, round %u: after the others' successes, "
                           "clreduce_last_error(NULL) is \"%s\"",
                           w->id, round, clreduce_last_error(NULL));
        w->error_checks++;
    }
    return NULL;
}

static void test_errors_stay_in_their_thread(void **state)
{
    (void)state;
    tc_seed_for("errors stay in their thread");
    worker workers[MAX_THREADS];
    for (int i = 0; i < g_nthreads; i++) {
        memset(&workers[i], 0, sizeof workers[i]);
        workers[i].id = i;
    }
    assert_int_equal(pthread_barrier_init(&g_barrier, NULL, (unsigned)g_nthreads), 0);
    /* A thread that fails stops early; the barrier must not hang the others,
     * so a failure is only reported, and every thread runs all rounds. */
    run_workers(workers, error_worker);
    pthread_barrier_destroy(&g_barrier);
    print_message("%d threads x %lu rounds of simultaneous failures\n", g_nthreads,
                  workers[0].error_checks);
}

/* ---- one build for many askers ---------------------------------------------------------- */

static void *first_call_worker(void *arg)
{
    worker *w = arg;
    int64_t data[1000], want = 0, got = 0;
    for (int i = 0; i < 1000; i++) {
        data[i] = (int64_t)(next_random(w) % 2000001) - 1000000;
        want += data[i];
    }
    pthread_barrier_wait(&g_barrier);
    clreduce_status s = clreduce_reduce_host(w->ctx, CLREDUCE_OP_SUM, CLREDUCE_INT64,
                                             CLREDUCE_GRID_STRIDE, data, 1000, &got);
    if (s != CLREDUCE_SUCCESS)
        record_failure(w, "thread %d: %s: %s", w->id, clreduce_status_string(s),
                       clreduce_last_error(w->ctx));
    else if (got != want)
        record_failure(w, "thread %d: got %" PRId64 ", expected %" PRId64, w->id, got, want);
    return NULL;
}

static void test_one_build_for_many(void **state)
{
    (void)state;
    tc_seed_for("one build for many");
    /* Without the disk cache, so that the one program is compiled while the
     * others wait (no other thread runs while the environment changes). */
    const char *env = getenv("CLREDUCE_CACHE_DIR");
    char *saved = env ? strdup(env) : NULL;
    setenv("CLREDUCE_CACHE_DIR", "off", 1);
    clreduce_ctx *ctx = NULL;
    clreduce_status created = clreduce_create(clreduce_get_cl_context(g_ctx),
                                              clreduce_get_cl_device(g_ctx), &ctx);
    if (saved)
        setenv("CLREDUCE_CACHE_DIR", saved, 1);
    else
        unsetenv("CLREDUCE_CACHE_DIR");
    free(saved);
    assert_int_equal(created, CLREDUCE_SUCCESS);
    worker workers[MAX_THREADS];
    for (int i = 0; i < g_nthreads; i++) {
        memset(&workers[i], 0, sizeof workers[i]);
        workers[i].id = i;
        workers[i].rng = tc_seed() ^ (uint64_t)(i + 1);
        workers[i].ctx = ctx;
    }
    assert_int_equal(pthread_barrier_init(&g_barrier, NULL, (unsigned)g_nthreads), 0);
    run_workers(workers, first_call_worker);
    pthread_barrier_destroy(&g_barrier);
    clreduce_cache_stats st;
    assert_int_equal(clreduce_get_cache_stats(ctx, &st), CLREDUCE_SUCCESS);
    print_message("%d threads, one kernel: %llu built, %llu cache hits\n", g_nthreads,
                  (unsigned long long)st.programs_built, (unsigned long long)st.cache_hits);
    assert_int_equal(st.programs_built, 1);
    assert_int_equal(st.programs_loaded, 0);
    assert_int_equal(st.cache_hits, (uint64_t)g_nthreads - 1);
    clreduce_destroy(ctx);
}

int main(void)
{
    tc_init_seed();
    const char *env = getenv("CLREDUCE_TEST_THREADS");
    if (env && *env)
        g_nthreads = atoi(env);
    if (g_nthreads < 2 || g_nthreads > MAX_THREADS) {
        fprintf(stderr, "CLREDUCE_TEST_THREADS must be 2 to %d\n", MAX_THREADS);
        return 1;
    }
    env = getenv("CLREDUCE_TEST_SECONDS");
    if (env && *env)
        g_seconds = atof(env);
    g_ctx = tc_create_default_or_skip("unit.threads");
    g_have_ooo = tc_device_supports_queue(g_ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    printf("%d threads for %.1f s; out-of-order queue: %s\n", g_nthreads, g_seconds,
           g_have_ooo ? "yes (last thread)" : "not supported");

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_build_for_many),
        cmocka_unit_test(test_errors_stay_in_their_thread),
        cmocka_unit_test(test_mixed),
        cmocka_unit_test(test_buffers_come_and_go),
        cmocka_unit_test(test_scans_sharing_a_queue),
    };
    int failed = tc_run_tests("unit.threads", tests, ARRAY_SIZE(tests));
    clreduce_destroy(g_ctx);
    return failed ? 1 : 0;
}
