/* clreduce-bench: two floors, each timed as a call is (measure.h):
 *  - the driver's: an empty kernel of one work-group of one work-item; no
 *    call can take less on the device's timeline than this launch;
 *  - the memory's, size by size: one launch of the streaming read kernel of
 *    peak.c over a copy of the dataset's input, rotated as a reduction's
 *    calls are, and writing nothing; a reduction of one pass reads as much
 *    and launches at least once, so this is as fast as one can be. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "peak.h"
#include "timing.h"
#include "util.h"

/* ---- one bare launch, timed as a call ---------------------------------------------------- */

/* A kernel launched alone: the empty kernel, or the read kernel over the
 * next copy of a dataset's input (its argument 1, the first vector). */
typedef struct launch_job {
    cl_command_queue queue;
    cl_kernel kernel;
    dataset *ds; /* NULL: no argument to set */
    size_t global, local;
} launch_job;

/* One launch on j->queue; `done` may be NULL. */
static void enqueue_launch(launch_job *j, cl_event *done)
{
    if (j->ds) {
        cl_ulong first = dataset_next_offset(j->ds) * j->ds->esize / 16;
        check_cl(clSetKernelArg(j->kernel, 1, sizeof first, &first),
                 "clSetKernelArg (read kernel)");
    }
    check_cl(clEnqueueNDRangeKernel(j->queue, j->kernel, 1, NULL, &j->global, &j->local, 0, NULL,
                                    done),
             "clEnqueueNDRangeKernel (a floor's kernel)");
}

static clreduce_status enqueue_launch_plain(void *arg, int index)
{
    (void)index;
    enqueue_launch(arg, NULL);
    return CLREDUCE_SUCCESS;
}

/* The warm-up, then the timed launches into m (call, span, host), each
 * right after an untimed one (measure.h). */
static void time_launches(launch_job *j, const measure_config *c, measurement *m)
{
    measurement_init(m);
    for (int w = 0; w < c->warmup + 1; w++)
        enqueue_launch(j, NULL);
    check_cl(clFinish(j->queue), "clFinish (after the warm-up)");
    run_times times;
    run_times_init(&times, c->runs);
    for (int r = 0; r < c->runs; r++) {
        enqueue_launch(j, NULL); /* the call before */
        check_cl(clFinish(j->queue), "clFinish (after the call before a timed one)");
        timed_call t;
        timed_start(j->queue, &t);
        enqueue_launch(j, &t.done);
        timed_called(&t);
        check_cl(clRetainEvent(t.done), "clRetainEvent");
        t.first = t.done;
        check_cl(clWaitForEvents(1, &t.done), "clWaitForEvents (a floor's kernel)");
        double call_ns, span_ns, host_ns;
        int late = timed_finish(&t, &call_ns, &span_ns, &host_ns);
        run_times_add(&times, call_ns, span_ns, host_ns, late);
    }
    run_times_finish(&times, m);
}

/* Batches of the launch back to back on the queue without profiling. */
static void b2b_launches(const bench_device *d, launch_job j, const measure_config *c,
                         measurement *m)
{
    int calls = b2b_calls_for(c, m->call_us);
    if (calls <= 0)
        return;
    double batch_ns[MEASURE_B2B_BATCHES];
    j.queue = d->plain_queue;
    for (int w = 0; w < c->warmup; w++)
        enqueue_launch(&j, NULL);
    for (int b = 0; b < MEASURE_B2B_BATCHES; b++)
        b2b_batch(d->plain_queue, calls, enqueue_launch_plain, &j, &batch_ns[b]);
    b2b_record(m, batch_ns, MEASURE_B2B_BATCHES, calls);
}

/* ---- the driver's floor ------------------------------------------------------------------ */

static const char empty_source[] = "kernel void empty_kernel(void) {}\n";

void measure_empty_kernel(const bench_device *d, const measure_config *c, measurement *m)
{
    cl_int err;
    const char *src = empty_source;
    cl_program program = clCreateProgramWithSource(d->context, 1, &src, NULL, &err);
    check_cl(err, "clCreateProgramWithSource (empty kernel)");
    check_cl(clBuildProgram(program, 1, &d->device, "", NULL, NULL),
             "clBuildProgram (empty kernel)");
    cl_kernel kernel = clCreateKernel(program, "empty_kernel", &err);
    check_cl(err, "clCreateKernel (empty kernel)");
    launch_job j = {d->queue, kernel, NULL, 1, 1};
    time_launches(&j, c, m);
    b2b_launches(d, j, c, m);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
}

/* ---- the memory's floor ------------------------------------------------------------------ */

/* The grids tried, as (unroll, work-groups a compute unit) of 256 work-items:
 * few groups that loop, or enough groups to read each vector once. The
 * fastest by call_us is the floor. */
static const unsigned read_unrolls[] = {1, 4};
static const unsigned read_groups[] = {1, 2, 4, 8, 16};

void measure_read_kernel(const bench_device *d, dataset *ds, const measure_config *c,
                         measurement *m, char *grid, size_t grid_size)
{
    measurement_init(m);
    cl_int err;
    cl_mem out = clCreateBuffer(d->context, CL_MEM_WRITE_ONLY, sizeof(float), NULL, &err);
    check_cl(err, "clCreateBuffer (read kernel's output)");
    /* The copies lie 512 bytes apart or more (data.c), so reading a last
     * partial vector stays in the buffer. */
    cl_ulong n4 = (ds->count * ds->esize + 15) / 16;
    cl_kernel best_kernel = NULL;
    cl_program best_program = NULL;
    launch_job best = {0};
    for (size_t u = 0; u < sizeof read_unrolls / sizeof *read_unrolls; u++) {
        cl_program program = peak_program(d, read_unrolls[u]);
        cl_kernel kernel = clCreateKernel(program, "peak_read", &err);
        check_cl(err, "clCreateKernel (read kernel)");
        check_cl(clSetKernelArg(kernel, 0, sizeof ds->buffer, &ds->buffer), "clSetKernelArg");
        check_cl(clSetKernelArg(kernel, 2, sizeof n4, &n4), "clSetKernelArg");
        check_cl(clSetKernelArg(kernel, 3, sizeof out, &out), "clSetKernelArg");
        size_t kernel_max = 0;
        check_cl(clGetKernelWorkGroupInfo(kernel, d->device, CL_KERNEL_WORK_GROUP_SIZE,
                                          sizeof kernel_max, &kernel_max, NULL),
                 "clGetKernelWorkGroupInfo");
        size_t local = 256;
        while (local > kernel_max && local > 1)
            local /= 2;
        int kept = 0;
        for (size_t g = 0; g < sizeof read_groups / sizeof *read_groups; g++) {
            launch_job j = {d->queue, kernel, ds,
                            (size_t)d->compute_units * read_groups[g] * local, local};
            measurement trial;
            time_launches(&j, c, &trial);
            if (isnan(m->call_us) || trial.call_us < m->call_us) {
                *m = trial;
                best = j;
                kept = 1;
                snprintf(grid, grid_size, "unroll %u, %u work-groups of %zu a compute unit",
                         read_unrolls[u], read_groups[g], local);
            }
        }
        if (kept) {
            if (best_kernel) {
                clReleaseKernel(best_kernel);
                clReleaseProgram(best_program);
            }
            best_kernel = kernel;
            best_program = program;
        } else {
            clReleaseKernel(kernel);
            clReleaseProgram(program);
        }
    }
    b2b_launches(d, best, c, m);
    clReleaseKernel(best_kernel);
    clReleaseProgram(best_program);
    clReleaseMemObject(out);
}
