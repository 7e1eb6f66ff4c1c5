/* clreduce-bench: the driver's floor, an empty kernel of one work-group of
 * one work-item timed as a call is (measure.h): no call can take less on
 * the device's timeline than this launch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "timing.h"
#include "util.h"

static const char empty_source[] = "kernel void empty_kernel(void) {}\n";

typedef struct floor_job {
    cl_command_queue queue;
    cl_kernel kernel;
} floor_job;

static const size_t one = 1;

static clreduce_status enqueue_plain(void *arg, int index)
{
    (void)index;
    floor_job *j = arg;
    check_cl(clEnqueueNDRangeKernel(j->queue, j->kernel, 1, NULL, &one, &one, 0, NULL, NULL),
             "clEnqueueNDRangeKernel (empty kernel)");
    return CLREDUCE_SUCCESS;
}

static int timed_empty(cl_command_queue queue, cl_kernel kernel, double *call_ns,
                       double *span_ns, double *host_ns)
{
    timed_call t;
    timed_start(queue, &t);
    check_cl(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &one, &one, 0, NULL, &t.done),
             "clEnqueueNDRangeKernel (empty kernel)");
    timed_called(&t);
    check_cl(clRetainEvent(t.done), "clRetainEvent");
    t.first = t.done;
    check_cl(clWaitForEvents(1, &t.done), "clWaitForEvents (empty kernel)");
    return timed_finish(&t, call_ns, span_ns, host_ns);
}

void measure_empty_kernel(const bench_device *d, const measure_config *c, measurement *m)
{
    measurement_init(m);
    cl_int err;
    const char *src = empty_source;
    cl_program program = clCreateProgramWithSource(d->context, 1, &src, NULL, &err);
    check_cl(err, "clCreateProgramWithSource (empty kernel)");
    check_cl(clBuildProgram(program, 1, &d->device, "", NULL, NULL),
             "clBuildProgram (empty kernel)");
    cl_kernel kernel = clCreateKernel(program, "empty_kernel", &err);
    check_cl(err, "clCreateKernel (empty kernel)");

    double call_ns, span_ns, host_ns;
    floor_job j = {d->queue, kernel};
    for (int w = 0; w < c->warmup + 1; w++)
        enqueue_plain(&j, -1);
    check_cl(clFinish(d->queue), "clFinish (after the warm-up)");
    run_times times;
    run_times_init(&times, c->runs);
    for (int r = 0; r < c->runs; r++) {
        enqueue_plain(&j, -1); /* the call before (measure.h) */
        check_cl(clFinish(d->queue), "clFinish (after the call before a timed one)");
        int late = timed_empty(d->queue, kernel, &call_ns, &span_ns, &host_ns);
        run_times_add(&times, call_ns, span_ns, host_ns, late);
    }
    run_times_finish(&times, m);

    int calls = b2b_calls_for(c, m->call_us);
    if (calls > 0) {
        double batch_ns[MEASURE_B2B_BATCHES];
        j.queue = d->plain_queue;
        for (int w = 0; w < c->warmup; w++)
            enqueue_plain(&j, -1);
        for (int b = 0; b < MEASURE_B2B_BATCHES; b++)
            b2b_batch(d->plain_queue, calls, enqueue_plain, &j, &batch_ns[b]);
        b2b_record(m, batch_ns, MEASURE_B2B_BATCHES, calls);
    }
    clReleaseKernel(kernel);
    clReleaseProgram(program);
}
