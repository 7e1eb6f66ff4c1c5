/* clreduce-bench: timing one scan variant on one dataset (measure.h says
 * how), and checking its output against the CPU reference.
 *
 * The reference is the running result of the operator over the input,
 * walked element by element through the dataset's windows (data.h): every
 * element of every output up to DATA_FULL_CHECK_MAX elements, samples
 * beyond. Floating-point sums must lie within reference_tolerance() times
 * the sum of |x| over the same prefix; integer sums (wrapping) and every min
 * and max must match exactly.
 *
 * Out of place, the outputs rotate over as many copies as the inputs do, so
 * that writes too go to memory rather than to a cache that still holds the
 * last output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "timing.h"
#include "util.h"

static const cl_uint poison_word = 0xffffffffu; /* NaN for floats */

void scan_target_create(const bench_device *d, const dataset *ds, int in_place, scan_target *t)
{
    memset(t, 0, sizeof *t);
    t->in_place = in_place;
    cl_int err;
    if (in_place) {
        t->pristine = clCreateBuffer(d->context, CL_MEM_READ_WRITE, ds->count * ds->esize, NULL,
                                     &err);
        check_cl(err, "clCreateBuffer (pristine input for in-place scans)");
        check_cl(clEnqueueCopyBuffer(d->queue, ds->buffer, t->pristine, 0, 0,
                                     ds->count * ds->esize, 0, NULL, NULL),
                 "clEnqueueCopyBuffer (pristine input)");
    } else {
        size_t bytes = 0;
        check_cl(clGetMemObjectInfo(ds->buffer, CL_MEM_SIZE, sizeof bytes, &bytes, NULL),
                 "clGetMemObjectInfo(CL_MEM_SIZE)");
        t->output = clCreateBuffer(d->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
        check_cl(err, "clCreateBuffer (scan output)");
        check_cl(clEnqueueFillBuffer(d->queue, t->output, &poison_word, sizeof poison_word, 0,
                                     bytes, 0, NULL, NULL),
                 "clEnqueueFillBuffer (scan output)");
    }
    size_t elements = 0;
    for (size_t w = 0; w < ds->window_count; w++)
        elements += ds->windows[w].length;
    t->readback = xmalloc(elements * ds->esize);
    check_cl(clFinish(d->queue), "clFinish");
}

void scan_target_release(scan_target *t)
{
    if (t->output)
        clReleaseMemObject(t->output);
    if (t->pristine)
        clReleaseMemObject(t->pristine);
    free(t->readback);
    memset(t, 0, sizeof *t);
}

static cl_mem output_of(const dataset *ds, const scan_target *t)
{
    return t->in_place ? ds->buffer : t->output;
}

/* After a call on the copy at `offset`: restores its input (in place) or
 * poisons its output again (out of place), so that the next call on it
 * starts from the original input and must write every element. Enqueued
 * only. */
static void reset_copy(cl_command_queue queue, const dataset *ds, const scan_target *t,
                       size_t offset)
{
    if (t->in_place)
        check_cl(clEnqueueCopyBuffer(queue, t->pristine, ds->buffer, 0, offset * ds->esize,
                                     ds->count * ds->esize, 0, NULL, NULL),
                 "clEnqueueCopyBuffer (restoring the input)");
    else
        check_cl(clEnqueueFillBuffer(queue, t->output, &poison_word, sizeof poison_word,
                                     offset * ds->esize, ds->count * ds->esize, 0, NULL, NULL),
                 "clEnqueueFillBuffer (poisoning the output)");
}

/* Every copy back to its state before any call, after a failure left some
 * in another. */
static void reset_all(cl_command_queue queue, const dataset *ds, const scan_target *t)
{
    if (!t->in_place) {
        size_t bytes = 0;
        check_cl(clGetMemObjectInfo(t->output, CL_MEM_SIZE, sizeof bytes, &bytes, NULL),
                 "clGetMemObjectInfo(CL_MEM_SIZE)");
        check_cl(clEnqueueFillBuffer(queue, t->output, &poison_word, sizeof poison_word, 0, bytes,
                                     0, NULL, NULL),
                 "clEnqueueFillBuffer (scan output)");
    } else {
        for (size_t c = 0; c < ds->copies; c++)
            reset_copy(queue, ds, t, c * ds->stride);
    }
    check_cl(clFinish(queue), "clFinish (after resetting every copy)");
}

/* Reads the windows of the output at `offset` and walks the reference
 * through them. Returns 1 when every element is right; else 0, with the
 * number wrong and the first of them in msg. */
static int check_output(const bench_device *d, const dataset *ds, const scan_target *t,
                        clreduce_op op, clreduce_scan_kind kind, size_t offset, char *msg,
                        size_t msg_size)
{
    cl_mem out = output_of(ds, t);
    unsigned char *got = t->readback;
    size_t at = 0, checked = 0, wrong = 0;
    for (size_t w = 0; w < ds->window_count; w++) {
        const scan_window *win = &ds->windows[w];
        check_cl(clEnqueueReadBuffer(d->queue, out, CL_FALSE, (offset + win->start) * ds->esize,
                                     win->length * ds->esize, got + at * ds->esize, 0, NULL,
                                     NULL),
                 "clEnqueueReadBuffer (scan output)");
        at += win->length;
    }
    check_cl(clFinish(d->queue), "clFinish (reading the scan output)");

    char first[512] = "";
    long double tol = reference_tolerance(ds->type, 1);
    at = 0;
    for (size_t w = 0; w < ds->window_count; w++) {
        const scan_window *win = &ds->windows[w];
        prefix_state s = win->before;
        const unsigned char *x = win->input;
        for (size_t i = 0; i < win->length; i++, at++) {
            prefix_state before = s;
            prefix_add(ds->type, &s, x + i * ds->esize);
            const prefix_state *want = kind == CLREDUCE_INCLUSIVE ? &s : &before;
            char why[400];
            if (!reference_matches(ds->type, op, want, got + at * ds->esize, tol, why,
                                   sizeof why)) {
                if (!wrong++)
                    snprintf(first, sizeof first, "element %zu = %s", win->start + i, why);
            }
        }
        checked += win->length;
    }
    if (!wrong)
        return 1;
    snprintf(msg, msg_size, "%s %s scan: %zu of %zu checked elements wrong; first: %s",
             clreduce_scan_kind_name(kind), clreduce_op_name(op), wrong, checked, first);
    return 0;
}

/* ---- the timed calls ------------------------------------------------------------- */

typedef struct scan_job {
    const bench_device *d;
    clreduce_ctx *ctx;
    dataset *ds;
    const scan_target *t;
    clreduce_op op;
    clreduce_scan_kind kind;
    clreduce_scan_variant variant;
    size_t *offsets; /* of each call of a back-to-back batch */
} scan_job;

/* A timed call on the copy at `offset`, waited for. */
static clreduce_status timed_scan(scan_job *j, size_t offset, double *call_ns, double *span_ns,
                                  double *host_ns, int *late)
{
    cl_command_queue q = j->d->queue;
    timed_call tc;
    timed_start(q, &tc);
    clreduce_status s = clreduce_scan_profiled(j->ctx, q, j->op, j->ds->type, j->kind, j->variant,
                                               j->ds->buffer, offset, j->ds->count,
                                               output_of(j->ds, j->t), offset, 0, NULL,
                                               &tc.first, &tc.done);
    timed_called(&tc);
    if (s != CLREDUCE_SUCCESS) {
        timed_abandon(&tc);
        clFinish(q);
        return s;
    }
    check_cl(clWaitForEvents(1, &tc.done), "clWaitForEvents (a timed scan)");
    *late = timed_finish(&tc, call_ns, span_ns, host_ns);
    return CLREDUCE_SUCCESS;
}

/* Call `index` of a back-to-back batch, on the queue without profiling. */
static clreduce_status enqueue_plain(void *arg, int index)
{
    scan_job *j = arg;
    size_t offset = dataset_next_offset(j->ds);
    if (index >= 0)
        j->offsets[index] = offset;
    return clreduce_scan(j->ctx, j->d->plain_queue, j->op, j->ds->type, j->kind, j->variant,
                         j->ds->buffer, offset, j->ds->count, output_of(j->ds, j->t), offset, 0,
                         NULL, NULL);
}

/* The back-to-back batches (measure.h says what is checked). Fills m on a
 * failure. */
static void measure_b2b(scan_job *j, const measure_config *c, measurement *m)
{
    int calls = b2b_calls_for(c, m->call_us);
    if (calls <= 0)
        return;
    const bench_device *d = j->d;
    dataset *ds = j->ds;
    /* The last `touched` calls of a batch wrote every copy the batch wrote. */
    size_t touched = (size_t)calls < ds->copies ? (size_t)calls : ds->copies;
    j->offsets = xmalloc((size_t)calls * sizeof *j->offsets);
    double batch_ns[MEASURE_B2B_BATCHES];
    clreduce_status s = CLREDUCE_SUCCESS;
    int wrong = 0;
    for (int w = 0; w < c->warmup && s == CLREDUCE_SUCCESS; w++) {
        size_t offset = ds->cursor * ds->stride;
        s = enqueue_plain(j, -1);
        reset_copy(d->plain_queue, ds, j->t, offset);
    }
    for (int b = 0; b < MEASURE_B2B_BATCHES && s == CLREDUCE_SUCCESS && !wrong; b++) {
        s = b2b_batch(d->plain_queue, calls, enqueue_plain, j, &batch_ns[b]);
        size_t first = (size_t)calls - touched;
        for (size_t i = first; i < (size_t)calls && s == CLREDUCE_SUCCESS && !wrong; i++) {
            char why[sizeof m->message - 64];
            if (!j->t->in_place &&
                !check_output(d, ds, j->t, j->op, j->kind, j->offsets[i], why, sizeof why)) {
                snprintf(m->message, sizeof m->message, "back-to-back batch %d, call %zu: %s",
                         b + 1, i + 1, why);
                m->status = MEASURE_WRONG;
                wrong = 1;
            }
        }
        /* Every copy written back to its state before the batch. */
        if (s == CLREDUCE_SUCCESS)
            for (size_t i = first; i < (size_t)calls; i++)
                reset_copy(d->plain_queue, ds, j->t, j->offsets[i]);
    }
    check_cl(clFinish(d->plain_queue), "clFinish (after the back-to-back batches)");
    free(j->offsets);
    j->offsets = NULL;
    if (s != CLREDUCE_SUCCESS) {
        measurement_fail(m, j->ctx, s);
        reset_all(d->plain_queue, ds, j->t);
    }
    else if (!wrong)
        b2b_record(m, batch_ns, MEASURE_B2B_BATCHES, calls);
}

void measure_scan(const bench_device *d, clreduce_ctx *ctx, dataset *ds, scan_target *t,
                  clreduce_op op, clreduce_scan_kind kind, clreduce_scan_variant variant,
                  const measure_config *c, measurement *m)
{
    measurement_init(m);
    clreduce_status s = clreduce_check_scan_support(ctx, op, ds->type, variant);
    if (s != CLREDUCE_SUCCESS) {
        measurement_fail(m, ctx, s);
        return;
    }
    scan_job j = {d, ctx, ds, t, op, kind, variant, NULL};

    /* The checked first call (it builds the kernels), into a poisoned output
     * (or a fresh input). */
    double call_ns, span_ns, host_ns;
    int late;
    size_t offset = dataset_next_offset(ds);
    s = timed_scan(&j, offset, &call_ns, &span_ns, &host_ns, &late);
    int right = s == CLREDUCE_SUCCESS &&
                check_output(d, ds, t, op, kind, offset, m->message, sizeof m->message);
    reset_copy(d->queue, ds, t, offset);
    check_cl(clFinish(d->queue), "clFinish");
    if (s != CLREDUCE_SUCCESS) {
        measurement_fail(m, ctx, s);
        return;
    }
    if (!right) {
        m->status = MEASURE_WRONG;
        return;
    }

    for (int w = 0; w < c->warmup && s == CLREDUCE_SUCCESS; w++) {
        offset = dataset_next_offset(ds);
        s = clreduce_scan(ctx, d->queue, op, ds->type, kind, variant, ds->buffer, offset,
                          ds->count, output_of(ds, t), offset, 0, NULL, NULL);
        reset_copy(d->queue, ds, t, offset);
    }
    check_cl(clFinish(d->queue), "clFinish (after the warm-up)");
    if (s != CLREDUCE_SUCCESS) {
        measurement_fail(m, ctx, s);
        return;
    }

    run_times times;
    run_times_init(&times, c->runs);
    for (int r = 0; r < c->runs; r++) {
        /* The untimed call before a timed one (measure.h), its copy reset. */
        offset = dataset_next_offset(ds);
        s = clreduce_scan(ctx, d->queue, op, ds->type, kind, variant, ds->buffer, offset,
                          ds->count, output_of(ds, t), offset, 0, NULL, NULL);
        reset_copy(d->queue, ds, t, offset);
        check_cl(clFinish(d->queue), "clFinish (after the call before a timed one)");
        offset = dataset_next_offset(ds);
        if (s == CLREDUCE_SUCCESS)
            s = timed_scan(&j, offset, &call_ns, &span_ns, &host_ns, &late);
        char why[sizeof m->message - 64];
        right = s == CLREDUCE_SUCCESS && check_output(d, ds, t, op, kind, offset, why, sizeof why);
        reset_copy(d->queue, ds, t, offset);
        check_cl(clFinish(d->queue), "clFinish");
        if (s != CLREDUCE_SUCCESS) {
            measurement_fail(m, ctx, s);
            run_times_free(&times);
            return;
        }
        if (!right) {
            snprintf(m->message, sizeof m->message, "timed run %d: %s", r + 1, why);
            m->status = MEASURE_WRONG;
            run_times_free(&times);
            return;
        }
        run_times_add(&times, call_ns, span_ns, host_ns, late);
    }
    run_times_finish(&times, m);
    measure_b2b(&j, c, m);
}
