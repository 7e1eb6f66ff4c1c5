/* clreduce-bench: the timing method (measure.h): a marker before a call and
 * the profiling times of the marker and of the call's first and last
 * commands; medians of the timed calls; back-to-back batches on the host
 * clock. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"
#include "util.h"

void measurement_init(measurement *m)
{
    memset(m, 0, sizeof *m);
    m->call_us = m->span_us = m->b2b_us = m->host_us = NAN;
    m->status = MEASURE_OK;
}

void measurement_fail(measurement *m, clreduce_ctx *ctx, clreduce_status s)
{
    m->status = s == CLREDUCE_ERROR_UNSUPPORTED ? MEASURE_UNSUPPORTED : MEASURE_ERROR;
    const char *why = clreduce_last_error(ctx);
    if (m->status == MEASURE_UNSUPPORTED)
        snprintf(m->message, sizeof m->message, "%s", *why ? why : clreduce_status_string(s));
    else
        snprintf(m->message, sizeof m->message, "%s: %s", clreduce_status_string(s), why);
}

/* ---- one timed call ------------------------------------------------------------ */

void timed_start(cl_command_queue queue, timed_call *t)
{
    memset(t, 0, sizeof *t);
    check_cl(clEnqueueMarkerWithWaitList(queue, 0, NULL, &t->marker),
             "clEnqueueMarkerWithWaitList");
    /* On the device before the call's commands are enqueued, as
     * cudaEventRecord is before a CUDA call's launches. */
    check_cl(clFlush(queue), "clFlush (after the marker)");
    t->host_start = now_ns();
}

void timed_called(timed_call *t)
{
    t->host_ns = now_ns() - t->host_start;
}

static cl_ulong profiling_time(cl_event e, cl_profiling_info what, const char *name)
{
    cl_ulong t = 0;
    cl_int err = clGetEventProfilingInfo(e, what, sizeof t, &t, NULL);
    if (err != CL_SUCCESS)
        fatal("clGetEventProfilingInfo(%s) failed: %s (%d)", name,
              clreduce_opencl_error_name(err), (int)err);
    return t;
}

int timed_finish(timed_call *t, double *call_ns, double *span_ns, double *host_ns)
{
    *host_ns = t->host_ns;
    cl_ulong marker_end = profiling_time(t->marker, CL_PROFILING_COMMAND_END, "marker, END");
    cl_ulong done_end = profiling_time(t->done, CL_PROFILING_COMMAND_END, "done, END");
    *call_ns = done_end > marker_end ? (double)(done_end - marker_end) : 0.0;
    if (!t->first) {
        timed_abandon(t);
        *span_ns = NAN;
        return 0;
    }
    cl_ulong first_start = profiling_time(t->first, CL_PROFILING_COMMAND_START, "first, START");
    timed_abandon(t);
    *span_ns = done_end > first_start ? (double)(done_end - first_start) : 0.0;
    return marker_end > first_start;
}

void timed_abandon(timed_call *t)
{
    if (t->marker)
        clReleaseEvent(t->marker);
    if (t->first)
        clReleaseEvent(t->first);
    if (t->done)
        clReleaseEvent(t->done);
    memset(t, 0, sizeof *t);
}

/* ---- the timed calls of one measurement ---------------------------------------- */

void run_times_init(run_times *r, int capacity)
{
    memset(r, 0, sizeof *r);
    size_t n = capacity > 0 ? (size_t)capacity : 1;
    r->call = xmalloc(3 * n * sizeof *r->call);
    r->span = r->call + n;
    r->host = r->span + n;
}

void run_times_add(run_times *r, double call_ns, double span_ns, double host_ns, int late)
{
    r->call[r->count] = call_ns;
    r->span[r->count] = span_ns;
    r->host[r->count] = host_ns;
    r->count++;
    r->late += late;
}

void run_times_finish(run_times *r, measurement *m)
{
    m->call_us = median_of(r->call, (size_t)r->count) / 1e3;
    m->span_us = median_of(r->span, (size_t)r->count) / 1e3;
    m->host_us = median_of(r->host, (size_t)r->count) / 1e3;
    m->marker_late = r->late;
    m->status = MEASURE_OK;
    run_times_free(r);
}

void run_times_free(run_times *r)
{
    free(r->call);
    memset(r, 0, sizeof *r);
}

/* ---- back-to-back batches ------------------------------------------------------ */

int b2b_calls_for(const measure_config *c, double call_us)
{
    if (c->b2b_calls != MEASURE_B2B_AUTO)
        return c->b2b_calls;
    double want = MEASURE_B2B_TARGET_MS * 1e3 / call_us;
    if (!(want >= MEASURE_B2B_MIN_CALLS)) /* also NaN */
        return MEASURE_B2B_MIN_CALLS;
    if (want >= MEASURE_B2B_MAX_CALLS)
        return MEASURE_B2B_MAX_CALLS;
    return (int)ceil(want);
}

clreduce_status b2b_batch(cl_command_queue queue, int calls, b2b_enqueue fn, void *arg,
                          double *ns_per_call)
{
    check_cl(clFinish(queue), "clFinish (before a back-to-back batch)");
    double t0 = now_ns();
    for (int i = 0; i < calls; i++) {
        clreduce_status s = fn(arg, i);
        if (s != CLREDUCE_SUCCESS) {
            clFinish(queue);
            return s;
        }
    }
    check_cl(clFinish(queue), "clFinish (after a back-to-back batch)");
    *ns_per_call = (now_ns() - t0) / calls;
    return CLREDUCE_SUCCESS;
}

void b2b_record(measurement *m, double *batch_ns, int batches, int calls)
{
    m->b2b_us = median_of(batch_ns, (size_t)batches) / 1e3;
    m->b2b_calls = calls;
}
