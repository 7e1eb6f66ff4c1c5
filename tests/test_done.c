/* unit.done: the `done` event of the calls made of several commands, used
 * the way a caller on another queue uses it:
 *  - segments (a heads kernel, then the segments kernel), one operator and
 *    several;
 *  - a long row cut into parts, then a finish, one operator and several;
 *  - several operators, and argmax, over a grid of work-groups, then a
 *    finish (variant grid_stride);
 *  - a long row scanned in parts (reduce, spine, tiles);
 *  - a user operator's scan (reduce, partials, apply);
 *  - a dot product of two ranges, and a user operator's reduction;
 *  - dot products of segments, of a long row cut into parts, and their
 *    running sum (a dot scan);
 *  - the user operator over segments, over a row cut into parts, and
 *    scanning a row.
 * Each call waits for an upload of its input that a user event holds. Its
 * results are read on a second queue behind `done` alone, enqueued before
 * the user event is set, and finished before the call's own queue is. The
 * results are compared with a CPU reference on exact integer data, and the
 * bytes around them must be untouched. A `done` that stood for an earlier
 * command of the call would let the read run while the last command still
 * ran; whether the read then sees stale results depends on the runtime's
 * timing, so the library also makes sure, where it builds the chain of a
 * call, that `done` is the last command's event.
 * Every call is also made through its `_profiled` twin on a profiling
 * queue, asking for `first` with `done` and without:
 * `first` must be a command of the call (starting after the upload it
 * waits for, ending no later than `done`), and the results right either
 * way; and with nothing to reduce they still give `first`.
 *
 * CLREDUCE_TEST_SEED=n repeats a run's random data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_common.h"

/* Elements of the input: a row long enough to be cut into parts on any
 * device, and segments of 0 to SEGMENT_MAX elements over all of it. */
#define COUNT (((size_t)1 << 21) + 7)
#define SEGMENT_MAX 2000
#define OUT_OFF 3 /* results before the first one written, and after the last */

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;      /* in-order: the calls */
static cl_command_queue g_profiling;  /* in-order, profiling: the calls given `first` */
static cl_command_queue g_call_queue; /* the queue of the call under test */
static cl_command_queue g_read_queue; /* the results are read here */
static uint32_t *g_data;
static uint32_t *g_offsets; /* g_segments + 1 of them */
static size_t g_segments;
static clreduce_operator *g_user_sum;

/* One call: enqueues its commands on g_call_queue, results from result
 * OUT_OFF of `out`; its reference writes `results` results of `size`
 * bytes. */
typedef struct done_case {
    const char *name;
    size_t (*results)(void);
    size_t size;
    clreduce_status (*enqueue)(cl_mem in, cl_mem offsets, cl_mem out, cl_uint nwait,
                               const cl_event *wait, cl_event *done);
    void (*reference)(unsigned char *want);
    /* The same call through its `_profiled` twin. */
    clreduce_status (*enqueue_profiled)(cl_mem in, cl_mem offsets, cl_mem out, cl_uint nwait,
                                        const cl_event *wait, cl_event *first, cl_event *done);
} done_case;

static const clreduce_op sum_max[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MAX};

/* ---- references ------------------------------------------------------------------ */

static void sum_max_of(const uint32_t *x, size_t n, uint32_t *sum, uint32_t *max)
{
    uint32_t s = 0, m = 0; /* the identities of uint32 sum and max */
    for (size_t i = 0; i < n; i++) {
        s += x[i];
        m = x[i] > m ? x[i] : m;
    }
    *sum = s;
    *max = m;
}

static size_t one_result(void)
{
    return 1;
}

static size_t per_segment(void)
{
    return g_segments;
}

static size_t per_element(void)
{
    return COUNT;
}

static void segments_sums(unsigned char *want)
{
    for (size_t i = 0; i < g_segments; i++) {
        uint32_t s, m;
        sum_max_of(g_data + g_offsets[i], g_offsets[i + 1] - g_offsets[i], &s, &m);
        memcpy(want + i * 4, &s, 4);
    }
}

static void segments_records(unsigned char *want)
{
    for (size_t i = 0; i < g_segments; i++) {
        uint32_t r[2];
        sum_max_of(g_data + g_offsets[i], g_offsets[i + 1] - g_offsets[i], &r[0], &r[1]);
        memcpy(want + i * 8, r, 8);
    }
}

static void whole_sum(unsigned char *want)
{
    uint32_t s, m;
    sum_max_of(g_data, COUNT, &s, &m);
    memcpy(want, &s, 4);
}

static void whole_record(unsigned char *want)
{
    uint32_t r[2];
    sum_max_of(g_data, COUNT, &r[0], &r[1]);
    memcpy(want, r, 8);
}

static void whole_argmax(unsigned char *want)
{
    clreduce_arg_uint32 a = {g_data[0], 0, 0};
    for (size_t i = 1; i < COUNT; i++)
        if (g_data[i] > a.value) {
            a.value = g_data[i];
            a.index = i;
        }
    memcpy(want, &a, sizeof a);
}

/* x[i] * x[i + 1] summed (uint32, wrapping), the dot product of the input
 * from element 0 and from element 1. */
static void shifted_dot(unsigned char *want)
{
    uint32_t s = 0;
    for (size_t i = 0; i + 1 < COUNT; i++)
        s += g_data[i] * g_data[i + 1];
    memcpy(want, &s, 4);
}

/* Each segment's x[i] * x[i] summed (uint32, wrapping): the dot product of
 * the input with itself, segment by segment. */
static void segments_squares(unsigned char *want)
{
    for (size_t i = 0; i < g_segments; i++) {
        uint32_t s = 0;
        for (uint32_t k = g_offsets[i]; k < g_offsets[i + 1]; k++)
            s += g_data[k] * g_data[k];
        memcpy(want + i * 4, &s, 4);
    }
}

static void prefix_sums(unsigned char *want)
{
    uint32_t s = 0;
    for (size_t i = 0; i < COUNT; i++) {
        s += g_data[i];
        memcpy(want + i * 4, &s, 4);
    }
}

static void prefix_squares(unsigned char *want)
{
    uint32_t s = 0;
    for (size_t i = 0; i < COUNT; i++) {
        s += g_data[i] * g_data[i];
        memcpy(want + i * 4, &s, 4);
    }
}

/* ---- the calls ------------------------------------------------------------------- */

static clreduce_status enqueue_segments(cl_mem in, cl_mem offsets, cl_mem out, cl_uint nwait,
                                        const cl_event *wait, cl_event *done)
{
    return clreduce_reduce_segments(g_ctx, g_call_queue, CLREDUCE_OP_SUM, CLREDUCE_UINT32, in, 0,
                                    COUNT, offsets, 0, CLREDUCE_UINT32, g_segments, out, OUT_OFF,
                                    nwait, wait, done);
}

static clreduce_status enqueue_segments_profiled(cl_mem in, cl_mem offsets, cl_mem out,
                                                 cl_uint nwait, const cl_event *wait,
                                                 cl_event *first, cl_event *done)
{
    return clreduce_reduce_segments_profiled(g_ctx, g_call_queue, CLREDUCE_OP_SUM,
                                             CLREDUCE_UINT32, in, 0, COUNT, offsets, 0,
                                             CLREDUCE_UINT32, g_segments, out, OUT_OFF, nwait,
                                             wait, first, done);
}

static clreduce_status enqueue_segments_multi(cl_mem in, cl_mem offsets, cl_mem out,
                                              cl_uint nwait, const cl_event *wait,
                                              cl_event *done)
{
    return clreduce_reduce_segments_multi(g_ctx, g_call_queue, sum_max, 2, CLREDUCE_UINT32, in, 0,
                                          COUNT, offsets, 0, CLREDUCE_UINT32, g_segments, out,
                                          OUT_OFF, nwait, wait, done);
}

static clreduce_status enqueue_segments_multi_profiled(cl_mem in, cl_mem offsets, cl_mem out,
                                                       cl_uint nwait, const cl_event *wait,
                                                       cl_event *first, cl_event *done)
{
    return clreduce_reduce_segments_multi_profiled(g_ctx, g_call_queue, sum_max, 2,
                                                   CLREDUCE_UINT32, in, 0, COUNT, offsets, 0,
                                                   CLREDUCE_UINT32, g_segments, out, OUT_OFF,
                                                   nwait, wait, first, done);
}

static clreduce_status enqueue_row(cl_mem in, cl_mem offsets, cl_mem out, cl_uint nwait,
                                   const cl_event *wait, cl_event *done)
{
    (void)offsets;
    return clreduce_reduce_rows(g_ctx, g_call_queue, CLREDUCE_OP_SUM, CLREDUCE_UINT32, in, 0, 1,
                                COUNT, 0, out, OUT_OFF, nwait, wait, done);
}

static clreduce_status enqueue_row_profiled(cl_mem in, cl_mem offsets, cl_mem out,
                                            cl_uint nwait, const cl_event *wait, cl_event *first,
                                            cl_event *done)
{
    (void)offsets;
    return clreduce_reduce_rows_profiled(g_ctx, g_call_queue, CLREDUCE_OP_SUM, CLREDUCE_UINT32,
                                         in, 0, 1, COUNT, 0, out, OUT_OFF, nwait, wait, first,
                                         done);
}

static clreduce_status enqueue_row_multi(cl_mem in, cl_mem offsets, cl_mem out, cl_uint nwait,
                                         const cl_event *wait, cl_event *done)
{
    (void)offsets;
    return clreduce_reduce_rows_multi(g_ctx, g_call_queue, sum_max, 2, CLREDUCE_UINT32, in, 0, 1,
                                      COUNT, 0, out, OUT_OFF, nwait, wait, done);
}

static clreduce_status enqueue_row_multi_profiled(cl_mem in, cl_mem offsets, cl_mem out,
                                                  cl_uint nwait, const cl_event *wait,
                                                  cl_event *first, cl_event *done)
{
    (void)offsets;
    return clreduce_reduce_rows_multi_profiled(g_ctx, g_call_queue, sum_max, 2, CLREDUCE_UINT32,
                                               in, 0, 1, COUNT, 0, out, OUT_OFF, nwait, wait,
                                               first, done);
}

static clreduce_status enqueue_grid_multi(cl_mem in, cl_mem offsets, cl_mem out, cl_uint nwait,
                                          const cl_event *wait, cl_event *done)
{
    (void)offsets;
    const size_t at[] = {OUT_OFF * 8, OUT_OFF * 8 + 4};
    return clreduce_reduce_multi(g_ctx, g_call_queue, sum_max, 2, CLREDUCE_UINT32,
                                 CLREDUCE_GRID_STRIDE, in, 0, COUNT, out, at, nwait, wait, done);
}

static clreduce_status enqueue_grid_multi_profiled(cl_mem in, cl_mem offsets, cl_mem out,
                                                   cl_uint nwait, const cl_event *wait,
                                                   cl_event *first, cl_event *done)
{
    (void)offsets;
    const size_t at[] = {OUT_OFF * 8, OUT_OFF * 8 + 4};
    return clreduce_reduce_multi_profiled(g_ctx, g_call_queue, sum_max, 2, CLREDUCE_UINT32,
                                          CLREDUCE_GRID_STRIDE, in, 0, COUNT, out, at, nwait,
                                          wait, first, done);
}

static clreduce_status enqueue_grid_argmax(cl_mem in, cl_mem offsets, cl_mem out, cl_uint nwait,
                                           const cl_event *wait, cl_event *done)
{
    (void)offsets;
    return clreduce_reduce(g_ctx, g_call_queue, CLREDUCE_OP_ARGMAX, CLREDUCE_UINT32,
                           CLREDUCE_GRID_STRIDE, in, 0, COUNT, out, OUT_OFF, nwait, wait, done);
}

static clreduce_status enqueue_grid_argmax_profiled(cl_mem in, cl_mem offsets, cl_mem out,
                                                    cl_uint nwait, const cl_event *wait,
                                                    cl_event *first, cl_event *done)
{
    (void)offsets;
    return clreduce_reduce_profiled(g_ctx, g_call_queue, CLREDUCE_OP_ARGMAX, CLREDUCE_UINT32,
                                    CLREDUCE_GRID_STRIDE, in, 0, COUNT, out, OUT_OFF, nwait, wait,
                                    first, done);
}

static clreduce_status enqueue_row_scan(cl_mem in, cl_mem offsets, cl_mem out, cl_uint nwait,
                                        const cl_event *wait, cl_event *done)
{
    (void)offsets;
    return clreduce_scan_rows(g_ctx, g_call_queue, CLREDUCE_OP_SUM, CLREDUCE_UINT32,
                              CLREDUCE_INCLUSIVE, in, 0, 1, COUNT, 0, out, OUT_OFF, 0, nwait,
                              wait, done);
}

static clreduce_status enqueue_row_scan_profiled(cl_mem in, cl_mem offsets, cl_mem out,
                                                 cl_uint nwait, const cl_event *wait,
                                                 cl_event *first, cl_event *done)
{
    (void)offsets;
    return clreduce_scan_rows_profiled(g_ctx, g_call_queue, CLREDUCE_OP_SUM, CLREDUCE_UINT32,
                                       CLREDUCE_INCLUSIVE, in, 0, 1, COUNT, 0, out, OUT_OFF, 0,
                                       nwait, wait, first, done);
}

static clreduce_status enqueue_user_scan(cl_mem in, cl_mem offsets, cl_mem out, cl_uint nwait,
                                         const cl_event *wait, cl_event *done)
{
    (void)offsets;
    return clreduce_scan_custom(g_ctx, g_call_queue, g_user_sum, CLREDUCE_INCLUSIVE,
                                CLREDUCE_SCAN_AUTO, in, 0, NULL, 0, COUNT, out, OUT_OFF, nwait,
                                wait, done);
}

static clreduce_status enqueue_dot(cl_mem in, cl_mem offsets, cl_mem out, cl_uint nwait,
                                   const cl_event *wait, cl_event *done)
{
    (void)offsets;
    return clreduce_dot(g_ctx, g_call_queue, CLREDUCE_UINT32, CLREDUCE_AUTO, in, 0, in, 1,
                        COUNT - 1, out, OUT_OFF, nwait, wait, done);
}

static clreduce_status enqueue_dot_profiled(cl_mem in, cl_mem offsets, cl_mem out,
                                            cl_uint nwait, const cl_event *wait, cl_event *first,
                                            cl_event *done)
{
    (void)offsets;
    return clreduce_dot_profiled(g_ctx, g_call_queue, CLREDUCE_UINT32, CLREDUCE_AUTO, in, 0, in,
                                 1, COUNT - 1, out, OUT_OFF, nwait, wait, first, done);
}

static clreduce_status enqueue_user_sum(cl_mem in, cl_mem offsets, cl_mem out, cl_uint nwait,
                                        const cl_event *wait, cl_event *done)
{
    (void)offsets;
    return clreduce_reduce_custom(g_ctx, g_call_queue, g_user_sum, CLREDUCE_AUTO, in, 0, NULL, 0,
                                  COUNT, out, OUT_OFF, nwait, wait, done);
}

static clreduce_status enqueue_user_sum_profiled(cl_mem in, cl_mem offsets, cl_mem out,
                                                 cl_uint nwait, const cl_event *wait,
                                                 cl_event *first, cl_event *done)
{
    (void)offsets;
    return clreduce_reduce_custom_profiled(g_ctx, g_call_queue, g_user_sum, CLREDUCE_AUTO, in, 0,
                                           NULL, 0, COUNT, out, OUT_OFF, nwait, wait, first,
                                           done);
}

static clreduce_status enqueue_dot_segments(cl_mem in, cl_mem offsets, cl_mem out,
                                            cl_uint nwait, const cl_event *wait, cl_event *done)
{
    return clreduce_dot_segments(g_ctx, g_call_queue, CLREDUCE_UINT32, in, 0, in, 0, COUNT,
                                 offsets, 0, CLREDUCE_UINT32, g_segments, out, OUT_OFF, nwait,
                                 wait, done);
}

static clreduce_status enqueue_dot_segments_profiled(cl_mem in, cl_mem offsets, cl_mem out,
                                                     cl_uint nwait, const cl_event *wait,
                                                     cl_event *first, cl_event *done)
{
    return clreduce_dot_segments_profiled(g_ctx, g_call_queue, CLREDUCE_UINT32, in, 0, in, 0,
                                          COUNT, offsets, 0, CLREDUCE_UINT32, g_segments, out,
                                          OUT_OFF, nwait, wait, first, done);
}

/* One row of COUNT - 1 elements, x from element 0 and y from element 1. */
static clreduce_status enqueue_dot_row(cl_mem in, cl_mem offsets, cl_mem out, cl_uint nwait,
                                       const cl_event *wait, cl_event *done)
{
    (void)offsets;
    return clreduce_dot_rows(g_ctx, g_call_queue, CLREDUCE_UINT32, in, 0, in, 1, 1, COUNT - 1,
                             COUNT - 1, out, OUT_OFF, nwait, wait, done);
}

static clreduce_status enqueue_dot_row_profiled(cl_mem in, cl_mem offsets, cl_mem out,
                                                cl_uint nwait, const cl_event *wait,
                                                cl_event *first, cl_event *done)
{
    (void)offsets;
    return clreduce_dot_rows_profiled(g_ctx, g_call_queue, CLREDUCE_UINT32, in, 0, in, 1, 1,
                                      COUNT - 1, COUNT - 1, out, OUT_OFF, nwait, wait, first,
                                      done);
}

static clreduce_status enqueue_user_scan_profiled(cl_mem in, cl_mem offsets, cl_mem out,
                                                  cl_uint nwait, const cl_event *wait,
                                                  cl_event *first, cl_event *done)
{
    (void)offsets;
    return clreduce_scan_custom_profiled(g_ctx, g_call_queue, g_user_sum, CLREDUCE_INCLUSIVE,
                                         CLREDUCE_SCAN_AUTO, in, 0, NULL, 0, COUNT, out, OUT_OFF,
                                         nwait, wait, first, done);
}

/* The running dot product of the input with itself. */
static clreduce_status enqueue_dot_scan_profiled(cl_mem in, cl_mem offsets, cl_mem out,
                                                 cl_uint nwait, const cl_event *wait,
                                                 cl_event *first, cl_event *done)
{
    (void)offsets;
    return clreduce_dot_scan_profiled(g_ctx, g_call_queue, CLREDUCE_UINT32, CLREDUCE_INCLUSIVE,
                                      CLREDUCE_SCAN_AUTO, in, 0, in, 0, COUNT, out, OUT_OFF,
                                      nwait, wait, first, done);
}

static clreduce_status enqueue_dot_scan(cl_mem in, cl_mem offsets, cl_mem out, cl_uint nwait,
                                        const cl_event *wait, cl_event *done)
{
    return enqueue_dot_scan_profiled(in, offsets, out, nwait, wait, NULL, done);
}

/* The user operator over segments, over one row cut into parts, and
 * scanning one row. */
static clreduce_status enqueue_user_segments_profiled(cl_mem in, cl_mem offsets, cl_mem out,
                                                      cl_uint nwait, const cl_event *wait,
                                                      cl_event *first, cl_event *done)
{
    return clreduce_reduce_segments_custom_profiled(
        g_ctx, g_call_queue, g_user_sum, in, 0, NULL, 0, COUNT, offsets, 0, CLREDUCE_UINT32,
        g_segments, out, OUT_OFF, nwait, wait, first, done);
}

static clreduce_status enqueue_user_segments(cl_mem in, cl_mem offsets, cl_mem out,
                                             cl_uint nwait, const cl_event *wait, cl_event *done)
{
    return clreduce_reduce_segments_custom(g_ctx, g_call_queue, g_user_sum, in, 0, NULL, 0,
                                           COUNT, offsets, 0, CLREDUCE_UINT32, g_segments, out,
                                           OUT_OFF, nwait, wait, done);
}

static clreduce_status enqueue_user_row_profiled(cl_mem in, cl_mem offsets, cl_mem out,
                                                 cl_uint nwait, const cl_event *wait,
                                                 cl_event *first, cl_event *done)
{
    (void)offsets;
    return clreduce_reduce_rows_custom_profiled(g_ctx, g_call_queue, g_user_sum, in, 0, NULL, 0,
                                                1, COUNT, COUNT, out, OUT_OFF, nwait, wait,
                                                first, done);
}

static clreduce_status enqueue_user_row(cl_mem in, cl_mem offsets, cl_mem out, cl_uint nwait,
                                        const cl_event *wait, cl_event *done)
{
    (void)offsets;
    return clreduce_reduce_rows_custom(g_ctx, g_call_queue, g_user_sum, in, 0, NULL, 0, 1, COUNT,
                                       COUNT, out, OUT_OFF, nwait, wait, done);
}

static clreduce_status enqueue_user_row_scan_profiled(cl_mem in, cl_mem offsets, cl_mem out,
                                                      cl_uint nwait, const cl_event *wait,
                                                      cl_event *first, cl_event *done)
{
    (void)offsets;
    return clreduce_scan_rows_custom_profiled(g_ctx, g_call_queue, g_user_sum,
                                              CLREDUCE_INCLUSIVE, in, 0, NULL, 0, 1, COUNT, COUNT,
                                              out, OUT_OFF, COUNT, nwait, wait, first, done);
}

static clreduce_status enqueue_user_row_scan(cl_mem in, cl_mem offsets, cl_mem out,
                                             cl_uint nwait, const cl_event *wait, cl_event *done)
{
    (void)offsets;
    return clreduce_scan_rows_custom(g_ctx, g_call_queue, g_user_sum, CLREDUCE_INCLUSIVE, in, 0,
                                     NULL, 0, 1, COUNT, COUNT, out, OUT_OFF, COUNT, nwait, wait,
                                     done);
}

static const done_case cases[] = {
    {"segments", per_segment, 4, enqueue_segments, segments_sums, enqueue_segments_profiled},
    {"segments_multi", per_segment, 8, enqueue_segments_multi, segments_records,
     enqueue_segments_multi_profiled},
    {"row_in_parts", one_result, 4, enqueue_row, whole_sum, enqueue_row_profiled},
    {"row_multi_in_parts", one_result, 8, enqueue_row_multi, whole_record,
     enqueue_row_multi_profiled},
    {"grid_multi", one_result, 8, enqueue_grid_multi, whole_record, enqueue_grid_multi_profiled},
    {"grid_argmax", one_result, sizeof(clreduce_arg_uint32), enqueue_grid_argmax, whole_argmax,
     enqueue_grid_argmax_profiled},
    {"row_scan_in_parts", per_element, 4, enqueue_row_scan, prefix_sums,
     enqueue_row_scan_profiled},
    {"user_scan", per_element, 4, enqueue_user_scan, prefix_sums, enqueue_user_scan_profiled},
    {"dot", one_result, 4, enqueue_dot, shifted_dot, enqueue_dot_profiled},
    {"user_sum", one_result, 4, enqueue_user_sum, whole_sum, enqueue_user_sum_profiled},
    {"dot_segments", per_segment, 4, enqueue_dot_segments, segments_squares,
     enqueue_dot_segments_profiled},
    {"dot_row_in_parts", one_result, 4, enqueue_dot_row, shifted_dot, enqueue_dot_row_profiled},
    {"dot_scan", per_element, 4, enqueue_dot_scan, prefix_squares, enqueue_dot_scan_profiled},
    {"user_segments", per_segment, 4, enqueue_user_segments, segments_sums,
     enqueue_user_segments_profiled},
    {"user_row_in_parts", one_result, 4, enqueue_user_row, whole_sum, enqueue_user_row_profiled},
    {"user_row_scan", per_element, 4, enqueue_user_row_scan, prefix_sums,
     enqueue_user_row_scan_profiled},
};

/* ---- the test -------------------------------------------------------------------- */

/* How a case is called: its plain call with `done`, or its `_profiled` twin
 * on the profiling queue with `first` and `done`, or `first` alone. */
enum { PLAIN, FIRST_AND_DONE, FIRST_ONLY };

/* Checks `first` against the upload it waits for and `done`: a command of
 * the call; returns the failures. */
static int check_first(const char *name, cl_event upload, cl_event first, cl_event done)
{
    cl_ulong uploaded = tc_profiling_time(upload, CL_PROFILING_COMMAND_END);
    cl_ulong start = tc_profiling_time(first, CL_PROFILING_COMMAND_START);
    cl_ulong end = tc_profiling_time(first, CL_PROFILING_COMMAND_END);
    int bad = start < uploaded || end < start;
    if (done)
        bad |= tc_profiling_time(done, CL_PROFILING_COMMAND_START) < start ||
               tc_profiling_time(done, CL_PROFILING_COMMAND_END) < end;
    if (bad)
        print_error("%s: `first` is not a command of the call (start %llu, end %llu, upload's "
                    "end %llu)\n",
                    name, (unsigned long long)start, (unsigned long long)end,
                    (unsigned long long)uploaded);
    return bad;
}

static void run_case(const done_case *t, int how)
{
    tc_seed_for(t->name);
    g_call_queue = how == PLAIN ? g_queue : g_profiling;
    const size_t results = t->results(), bytes = (results + 2 * OUT_OFF) * t->size;
    unsigned char *want = malloc(results * t->size), *got = malloc(bytes);
    unsigned char *sentinels = malloc(bytes);
    uint32_t *zeros = calloc(COUNT, sizeof *zeros);
    assert_true(want && got && sentinels && zeros);
    memset(sentinels, TC_SENTINEL_BYTE, bytes);
    t->reference(want);

    /* The input holds zeros until the upload of the data, held by `gate`. */
    cl_mem in = tc_make_buffer(g_ctx, COUNT * sizeof *g_data, zeros);
    cl_mem offsets = tc_make_buffer(g_ctx, (g_segments + 1) * sizeof *g_offsets, g_offsets);
    cl_mem out = tc_make_buffer(g_ctx, bytes, sentinels);
    cl_event gate = tc_user_event(g_ctx), upload;
    cl_event first = TC_EVENT_SENTINEL, done = TC_EVENT_SENTINEL;
    assert_int_equal(clEnqueueWriteBuffer(g_call_queue, in, CL_FALSE, 0,
                                          COUNT * sizeof *g_data, g_data, 1, &gate, &upload),
                     CL_SUCCESS);
    clreduce_status st =
        how == PLAIN ? t->enqueue(in, offsets, out, 1, &upload, &done)
                     : t->enqueue_profiled(in, offsets, out, 1, &upload, &first,
                                           how == FIRST_AND_DONE ? &done : NULL);
    if (st != CLREDUCE_SUCCESS)
        print_error("%s: %s\n", t->name, clreduce_last_error(g_ctx));
    int has_done = done != NULL && done != TC_EVENT_SENTINEL;
    int has_first = first != NULL && first != TC_EVENT_SENTINEL;
    if (st != CLREDUCE_SUCCESS || has_done != (how != FIRST_ONLY) ||
        (how != PLAIN && !has_first)) {
        /* The gate opens before the test fails, lest the upload it holds
         * keep the queue from finishing for the tests after. */
        print_error("%s: %s`done` %s, `first` %s\n", t->name,
                    st != CLREDUCE_SUCCESS ? "the call failed; " : "",
                    has_done ? "given" : "not given", has_first ? "given" : "not given");
        clSetUserEventStatus(gate, CL_COMPLETE);
        clFinish(g_call_queue);
        fail();
    }
    /* Without `done` the read waits for the call's queue to finish. */
    if (how != FIRST_ONLY)
        assert_int_equal(clEnqueueReadBuffer(g_read_queue, out, CL_FALSE, 0, bytes, got, 1,
                                             &done, NULL),
                         CL_SUCCESS);
    assert_int_equal(clFlush(g_call_queue), CL_SUCCESS);
    assert_int_equal(clFlush(g_read_queue), CL_SUCCESS);
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    int early = tc_event_status(how == FIRST_ONLY ? first : done) == CL_COMPLETE;
    assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    if (how == FIRST_ONLY) {
        assert_int_equal(clFinish(g_call_queue), CL_SUCCESS);
        tc_read_buffer(g_read_queue, out, got, bytes, 0, NULL);
    }
    assert_int_equal(clFinish(g_read_queue), CL_SUCCESS);

    int failures = 0;
    if (early) {
        failures++;
        print_error("%s: the call completed before the input was uploaded\n", t->name);
    }
    for (size_t i = 0; i < results && failures < 5; i++)
        if (memcmp(got + (OUT_OFF + i) * t->size, want + i * t->size, t->size) != 0) {
            failures++;
            print_error("%s: result %zu of %zu differs from the reference (seed %llu)\n",
                        t->name, i, results, (unsigned long long)tc_seed());
        }
    if (memcmp(got, sentinels, OUT_OFF * t->size) != 0 ||
        memcmp(got + (OUT_OFF + results) * t->size, sentinels, OUT_OFF * t->size) != 0) {
        failures++;
        print_error("%s: bytes around the results changed\n", t->name);
    }
    assert_int_equal(clFinish(g_call_queue), CL_SUCCESS);
    if (how != FIRST_ONLY)
        assert_int_equal(tc_event_status(done), CL_COMPLETE);
    if (how != PLAIN) {
        assert_int_equal(tc_event_status(first), CL_COMPLETE);
        failures += check_first(t->name, upload, first, how == FIRST_AND_DONE ? done : NULL);
        clReleaseEvent(first);
    }
    if (how != FIRST_ONLY)
        clReleaseEvent(done);
    clReleaseEvent(upload);
    clReleaseEvent(gate);
    clReleaseMemObject(in);
    clReleaseMemObject(offsets);
    clReleaseMemObject(out);
    free(want);
    free(got);
    free(sentinels);
    free(zeros);
    assert_int_equal(failures, 0);
}

static void test_done_alone(void **state)
{
    run_case(*state, PLAIN);
}

/* The `_profiled` twin, with `first` and `done`, then `first` alone. */
static void test_first(void **state)
{
    if (!g_profiling) {
        print_message("note: the device has no profiling queues: skipped\n");
        skip();
    }
    run_case(*state, FIRST_AND_DONE);
    run_case(*state, FIRST_ONLY);
}

/* Call `call` (of EMPTY_CALLS) of the `_profiled` twins with nothing to
 * reduce: no rows, no segments, no elements. */
#define EMPTY_CALLS 15
static clreduce_status empty_call(int call, cl_mem in, cl_mem offsets, cl_mem out,
                                  cl_event *first, cl_event *done)
{
    const size_t at[] = {0, 4};
    cl_command_queue q = g_profiling;
    const clreduce_type u32 = CLREDUCE_UINT32;
    switch (call) {
    case 0:
        return clreduce_reduce_rows_profiled(g_ctx, q, CLREDUCE_OP_SUM, u32, in, 0, 0, 4, 0, out,
                                             0, 0, NULL, first, done);
    case 1:
        return clreduce_reduce_segments_profiled(g_ctx, q, CLREDUCE_OP_SUM, u32, in, 0, 4,
                                                 offsets, 0, u32, 0, out, 0, 0, NULL, first,
                                                 done);
    case 2:
        return clreduce_scan_rows_profiled(g_ctx, q, CLREDUCE_OP_SUM, u32, CLREDUCE_INCLUSIVE, in,
                                           0, 0, 4, 0, out, 0, 0, 0, NULL, first, done);
    case 3:
        return clreduce_reduce_multi_profiled(g_ctx, q, sum_max, 2, u32, CLREDUCE_AUTO, in, 0, 0,
                                              out, at, 0, NULL, first, done);
    case 4:
        return clreduce_dot_profiled(g_ctx, q, u32, CLREDUCE_AUTO, in, 0, in, 0, 0, out, 0, 0,
                                     NULL, first, done);
    case 5:
        return clreduce_reduce_custom_profiled(g_ctx, q, g_user_sum, CLREDUCE_AUTO, in, 0, NULL,
                                               0, 0, out, 0, 0, NULL, first, done);
    case 6:
        return clreduce_reduce_rows_multi_profiled(g_ctx, q, sum_max, 2, u32, in, 0, 0, 4, 0,
                                                   out, 0, 0, NULL, first, done);
    case 8:
        return clreduce_dot_rows_profiled(g_ctx, q, u32, in, 0, in, 0, 0, 4, 4, out, 0, 0, NULL,
                                          first, done);
    case 9:
        return clreduce_dot_segments_profiled(g_ctx, q, u32, in, 0, in, 0, 4, offsets, 0, u32, 0,
                                              out, 0, 0, NULL, first, done);
    case 10:
        return clreduce_scan_custom_profiled(g_ctx, q, g_user_sum, CLREDUCE_INCLUSIVE,
                                             CLREDUCE_SCAN_AUTO, in, 0, NULL, 0, 0, out, 0, 0,
                                             NULL, first, done);
    case 11:
        return clreduce_dot_scan_profiled(g_ctx, q, u32, CLREDUCE_INCLUSIVE, CLREDUCE_SCAN_AUTO,
                                          in, 0, in, 0, 0, out, 0, 0, NULL, first, done);
    case 12:
        return clreduce_reduce_rows_custom_profiled(g_ctx, q, g_user_sum, in, 0, NULL, 0, 0, 4, 4,
                                                    out, 0, 0, NULL, first, done);
    case 13:
        return clreduce_reduce_segments_custom_profiled(g_ctx, q, g_user_sum, in, 0, NULL, 0, 4,
                                                        offsets, 0, u32, 0, out, 0, 0, NULL,
                                                        first, done);
    case 14:
        return clreduce_scan_rows_custom_profiled(g_ctx, q, g_user_sum, CLREDUCE_INCLUSIVE, in, 0,
                                                  NULL, 0, 0, 4, 4, out, 0, 4, 0, NULL, first,
                                                  done);
    default:
        return clreduce_reduce_segments_multi_profiled(g_ctx, q, sum_max, 2, u32, in, 0, 4,
                                                       offsets, 0, u32, 0, out, 0, 0, NULL,
                                                       first, done);
    }
}

/* The `_profiled` twins of a call with nothing to reduce still hand back
 * `first` where it is asked for, alone or with `done`, complete once the
 * queue is finished. */
static void test_empty_first(void **state)
{
    (void)state;
    if (!g_profiling) {
        print_message("note: the device has no profiling queues: skipped\n");
        skip();
    }
    cl_mem in = tc_make_buffer(g_ctx, 64, NULL), offsets = tc_make_buffer(g_ctx, 64, NULL);
    cl_mem out = tc_make_buffer(g_ctx, 64, NULL);
    for (int with_done = 0; with_done < 2; with_done++)
        for (int call = 0; call < EMPTY_CALLS; call++) {
            cl_event first = TC_EVENT_SENTINEL, done = TC_EVENT_SENTINEL;
            clreduce_status st =
                empty_call(call, in, offsets, out, &first, with_done ? &done : NULL);
            if (st != CLREDUCE_SUCCESS)
                print_error("empty call %d: %s\n", call, clreduce_last_error(g_ctx));
            assert_int_equal(st, CLREDUCE_SUCCESS);
            if (first == NULL || first == TC_EVENT_SENTINEL)
                print_error("empty call %d gave no `first`\n", call);
            assert_true(first != NULL && first != TC_EVENT_SENTINEL);
            assert_true(with_done ? done != NULL && done != TC_EVENT_SENTINEL
                                  : done == TC_EVENT_SENTINEL);
            assert_int_equal(clFinish(g_profiling), CL_SUCCESS);
            assert_int_equal(tc_event_status(first), CL_COMPLETE);
            clReleaseEvent(first);
            if (with_done) {
                assert_int_equal(tc_event_status(done), CL_COMPLETE);
                clReleaseEvent(done);
            }
        }
    clReleaseMemObject(in);
    clReleaseMemObject(offsets);
    clReleaseMemObject(out);
}

/* Random data, and segments of 0 to SEGMENT_MAX elements that cover it. */
static void make_data(void)
{
    tc_seed_for("unit.done");
    g_data = malloc(COUNT * sizeof *g_data);
    g_offsets = malloc((COUNT + 1) * sizeof *g_offsets);
    assert_true(g_data && g_offsets);
    for (size_t i = 0; i < COUNT; i++)
        g_data[i] = (uint32_t)tc_rand64();
    size_t at = 0;
    g_offsets[0] = 0;
    while (at < COUNT) {
        size_t len = tc_rand_below(SEGMENT_MAX + 1);
        at = at + len < COUNT ? at + len : COUNT;
        g_offsets[++g_segments] = (uint32_t)at;
    }
}

int main(void)
{
    g_ctx = tc_start("unit.done", &g_queue, &g_read_queue, NULL);
    make_data();
    const clreduce_operator_desc user_sum = {
        .name = "usum", .input_type = CLREDUCE_UINT32, .inputs = 1, .acc_type = "uint",
        .acc_size = 4, .acc_align = 4, .identity = "0", .map = "x", .combine = "a + b",
        .commutative = 1,
    };
    assert_int_equal(clreduce_operator_create(g_ctx, &user_sum, &g_user_sum), CLREDUCE_SUCCESS);

    if (tc_device_supports_queue(g_ctx, CL_QUEUE_PROFILING_ENABLE))
        g_profiling = tc_create_queue(g_ctx, CL_QUEUE_PROFILING_ENABLE);

    struct CMUnitTest tests[2 * ARRAY_SIZE(cases) + 1];
    static char first_names[ARRAY_SIZE(cases)][64];
    size_t nt = 0;
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        tc_add_test(tests, &nt, cases[i].name, test_done_alone, (void *)&cases[i]);
        snprintf(first_names[i], sizeof first_names[i], "%s_first", cases[i].name);
        tc_add_test(tests, &nt, first_names[i], test_first, (void *)&cases[i]);
    }
    tc_add_test(tests, &nt, "empty_first", test_empty_first, NULL);
    int failed = tc_run_tests("unit.done", tests, nt);

    clreduce_operator_release(g_user_sum);
    if (g_profiling)
        clReleaseCommandQueue(g_profiling);
    free(g_data);
    free(g_offsets);
    return tc_finish(g_ctx, failed, g_read_queue, g_queue, NULL);
}
