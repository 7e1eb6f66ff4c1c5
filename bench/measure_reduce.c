/* clreduce-bench: timing one reduction variant on one dataset (measure.h
 * says how). Each call reduces the next copy of the input into a slot of
 * its own (clreduce_result_size() bytes) in a result buffer poisoned
 * beforehand, so that a call that writes nothing cannot pass for one that
 * wrote the right value; a multi call's results lie in its slot packed at
 * their alignments. Dot reads the same copy of the dataset's second input
 * as of the first. Timed calls go through the _profiled twins, whose
 * `first` event gives span_us. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "timing.h"
#include "util.h"

typedef struct reduce_job {
    const bench_device *d;
    clreduce_ctx *ctx;
    dataset *ds;
    clreduce_op op;
    clreduce_variant variant;
    clreduce_operator *user; /* NULL: the built-in op */
    size_t rsize;   /* bytes of one slot */
    cl_mem results; /* slot 0: untimed calls; 1 ..: timed and back-to-back calls */
    const clreduce_op *multi; /* a multi call's operators (nmulti of them), else NULL */
    size_t nmulti;
    size_t at[CLREDUCE_MULTI_MAX]; /* where each one's result lies in a slot */
} reduce_job;

/* The most bytes a slot takes: every one-input operator's result. */
#define SLOT_MAX 256

/* A multi call's results packed in a slot, each at its alignment. */
static void place_multi_results(reduce_job *j)
{
    size_t at = 0;
    for (size_t i = 0; i < j->nmulti; i++) {
        clreduce_op op = j->multi[i];
        size_t align = op == CLREDUCE_OP_ARGMIN || op == CLREDUCE_OP_ARGMAX ||
                               op == CLREDUCE_OP_MEAN_VAR
                           ? 8
                           : j->ds->esize;
        at = (at + align - 1) / align * align;
        j->at[i] = at;
        at += clreduce_result_size(op, j->ds->type);
    }
    j->rsize = (at + 7) / 8 * 8;
}

/* Whether a slot holds the reference's result(s); msg says what differs. */
static int check_slot(const reduce_job *j, const unsigned char *slot, char *msg, size_t size)
{
    if (!j->multi)
        return dataset_check(j->ds, j->op, slot, msg, size);
    for (size_t i = 0; i < j->nmulti; i++)
        if (!dataset_check(j->ds, j->multi[i], slot + j->at[i], msg, size))
            return 0;
    return 1;
}

static const cl_uint poison_word = 0xffffffffu; /* NaN for floats */

static void poison_slots(cl_command_queue queue, const reduce_job *j, size_t slots)
{
    check_cl(clEnqueueFillBuffer(queue, j->results, &poison_word, sizeof poison_word, 0,
                                 slots * j->rsize, 0, NULL, NULL),
             "clEnqueueFillBuffer (poisoning the results)");
}

/* One call on `queue` into slot `slot`, of the next copy of the input. */
static clreduce_status reduce_call(reduce_job *j, cl_command_queue queue, size_t slot,
                                   cl_event *first, cl_event *done)
{
    size_t offset = dataset_next_offset(j->ds);
    if (j->multi) {
        size_t at[CLREDUCE_MULTI_MAX];
        for (size_t i = 0; i < j->nmulti; i++)
            at[i] = slot * j->rsize + j->at[i];
        return clreduce_reduce_multi_profiled(j->ctx, queue, j->multi, j->nmulti, j->ds->type,
                                              j->variant, j->ds->buffer, offset, j->ds->count,
                                              j->results, at, 0, NULL, first, done);
    }
    if (j->user && first)
        return clreduce_reduce_custom_profiled(j->ctx, queue, j->user, j->variant,
                                               j->ds->buffer, offset, NULL, 0, j->ds->count,
                                               j->results, slot, 0, NULL, first, done);
    if (j->user)
        return clreduce_reduce_custom(j->ctx, queue, j->user, j->variant, j->ds->buffer, offset,
                                      NULL, 0, j->ds->count, j->results, slot, 0, NULL, done);
    if (j->op == CLREDUCE_OP_DOT && first)
        return clreduce_dot_profiled(j->ctx, queue, j->ds->type, j->variant, j->ds->buffer,
                                     offset, j->ds->second, offset, j->ds->count, j->results,
                                     slot, 0, NULL, first, done);
    if (j->op == CLREDUCE_OP_DOT)
        return clreduce_dot(j->ctx, queue, j->ds->type, j->variant, j->ds->buffer, offset,
                            j->ds->second, offset, j->ds->count, j->results, slot, 0, NULL,
                            done);
    if (first)
        return clreduce_reduce_profiled(j->ctx, queue, j->op, j->ds->type, j->variant,
                                        j->ds->buffer, offset, j->ds->count, j->results, slot,
                                        0, NULL, first, done);
    return clreduce_reduce(j->ctx, queue, j->op, j->ds->type, j->variant, j->ds->buffer, offset,
                           j->ds->count, j->results, slot, 0, NULL, done);
}

/* Untimed call `index` of a back-to-back batch, on the queue without
 * profiling, into slot index + 1 (index -1: slot 0, a warm-up). */
static clreduce_status enqueue_plain(void *arg, int index)
{
    reduce_job *j = arg;
    return reduce_call(j, j->d->plain_queue, (size_t)(index + 1), NULL, NULL);
}

/* A timed call into `slot`, its result read into value. */
static clreduce_status timed_reduce(reduce_job *j, size_t slot, void *value, double *call_ns,
                                    double *span_ns, double *host_ns, int *late)
{
    cl_command_queue q = j->d->queue;
    timed_call t;
    timed_start(q, &t);
    clreduce_status s = reduce_call(j, q, slot, &t.first, &t.done);
    timed_called(&t);
    if (s != CLREDUCE_SUCCESS) {
        timed_abandon(&t);
        clFinish(q);
        return s;
    }
    check_cl(clEnqueueReadBuffer(q, j->results, CL_TRUE, slot * j->rsize, j->rsize, value, 1,
                                 &t.done, NULL),
             "clEnqueueReadBuffer (result)");
    *late = timed_finish(&t, call_ns, span_ns, host_ns);
    return CLREDUCE_SUCCESS;
}

/* The back-to-back batches: returns 0 when they ran and every result was
 * right, else fills m. */
static int measure_b2b(reduce_job *j, const measure_config *c, measurement *m)
{
    int calls = b2b_calls_for(c, m->call_us);
    if (calls <= 0)
        return 0;
    size_t esize = j->rsize;
    unsigned char *values = xmalloc((size_t)calls * esize);
    double batch_ns[MEASURE_B2B_BATCHES];
    clreduce_status s = CLREDUCE_SUCCESS;
    for (int w = 0; w < c->warmup && s == CLREDUCE_SUCCESS; w++)
        s = enqueue_plain(j, -1);
    for (int b = 0; b < MEASURE_B2B_BATCHES && s == CLREDUCE_SUCCESS; b++) {
        poison_slots(j->d->plain_queue, j, (size_t)calls + 1);
        s = b2b_batch(j->d->plain_queue, calls, enqueue_plain, j, &batch_ns[b]);
        if (s != CLREDUCE_SUCCESS)
            break;
        check_cl(clEnqueueReadBuffer(j->d->plain_queue, j->results, CL_TRUE, esize,
                                     (size_t)calls * esize, values, 0, NULL, NULL),
                 "clEnqueueReadBuffer (back-to-back results)");
        for (int i = 0; i < calls; i++) {
            char why[sizeof m->message - 64];
            if (!check_slot(j, values + (size_t)i * esize, why, sizeof why)) {
                snprintf(m->message, sizeof m->message, "back-to-back batch %d, call %d: %s",
                         b + 1, i + 1, why);
                m->status = MEASURE_WRONG;
                free(values);
                return 1;
            }
        }
    }
    free(values);
    if (s != CLREDUCE_SUCCESS) {
        clFinish(j->d->plain_queue);
        measurement_fail(m, j->ctx, s);
        return 1;
    }
    b2b_record(m, batch_ns, MEASURE_B2B_BATCHES, calls);
    return 0;
}

static void measure_job(reduce_job *job, const measure_config *c, measurement *m);

void measure_reduction(const bench_device *d, clreduce_ctx *ctx, dataset *ds, clreduce_op op,
                       clreduce_variant variant, const measure_config *c, measurement *m)
{
    measurement_init(m);
    clreduce_status s = clreduce_check_support(ctx, op, ds->type, variant);
    if (s != CLREDUCE_SUCCESS) {
        measurement_fail(m, ctx, s);
        return;
    }
    if (op == CLREDUCE_OP_DOT && !ds->second) {
        m->status = MEASURE_UNSUPPORTED;
        snprintf(m->message, sizeof m->message, "no room for dot's second input");
        return;
    }
    reduce_job j = {.d = d, .ctx = ctx, .ds = ds, .op = op, .variant = variant,
                    .rsize = clreduce_result_size(op, ds->type)};
    measure_job(&j, c, m);
}

void measure_user_reduction(const bench_device *d, clreduce_ctx *ctx, dataset *ds,
                            clreduce_op op, clreduce_operator *user, const measure_config *c,
                            measurement *m)
{
    measurement_init(m);
    reduce_job j = {.d = d, .ctx = ctx, .ds = ds, .op = op, .variant = CLREDUCE_AUTO,
                    .user = user, .rsize = clreduce_operator_result_size(user)};
    measure_job(&j, c, m);
}

void measure_multi(const bench_device *d, clreduce_ctx *ctx, dataset *ds, const clreduce_op *ops,
                   size_t nops, clreduce_variant variant, const measure_config *c, measurement *m)
{
    measurement_init(m);
    reduce_job j = {.d = d, .ctx = ctx, .ds = ds, .variant = variant, .multi = ops,
                    .nmulti = nops};
    place_multi_results(&j);
    measure_job(&j, c, m);
}

static void measure_job(reduce_job *job, const measure_config *c, measurement *m)
{
    reduce_job j = *job;
    const bench_device *d = j.d;
    clreduce_ctx *ctx = j.ctx;
    clreduce_status s;
    int most = c->runs > MEASURE_B2B_MAX_CALLS ? c->runs : MEASURE_B2B_MAX_CALLS;
    size_t slots = (size_t)most + 1;
    cl_int err;
    j.results = clCreateBuffer(d->context, CL_MEM_READ_WRITE, slots * j.rsize, NULL, &err);
    check_cl(err, "clCreateBuffer (results)");
    poison_slots(d->queue, &j, slots);
    check_cl(clFinish(d->queue), "clFinish (after poisoning the results)");

    /* The checked first call (it builds the kernel). */
    unsigned char value[SLOT_MAX];
    double call_ns, span_ns, host_ns;
    int late;
    run_times times;
    run_times_init(&times, c->runs);
    s = timed_reduce(&j, 0, value, &call_ns, &span_ns, &host_ns, &late);
    if (s != CLREDUCE_SUCCESS) {
        measurement_fail(m, ctx, s);
        goto out;
    }
    if (!check_slot(&j, value, m->message, sizeof m->message)) {
        m->status = MEASURE_WRONG;
        goto out;
    }

    for (int w = 0; w < c->warmup && s == CLREDUCE_SUCCESS; w++)
        s = reduce_call(&j, d->queue, 0, NULL, NULL);
    check_cl(clFinish(d->queue), "clFinish (after the warm-up)");
    if (s != CLREDUCE_SUCCESS) {
        measurement_fail(m, ctx, s);
        goto out;
    }

    for (int r = 0; r < c->runs; r++) {
        /* The untimed call before a timed one (measure.h). */
        s = reduce_call(&j, d->queue, 0, NULL, NULL);
        check_cl(clFinish(d->queue), "clFinish (after the call before a timed one)");
        if (s == CLREDUCE_SUCCESS)
            s = timed_reduce(&j, (size_t)r + 1, value, &call_ns, &span_ns, &host_ns, &late);
        if (s != CLREDUCE_SUCCESS) {
            measurement_fail(m, ctx, s);
            goto out;
        }
        char why[sizeof m->message - 64];
        if (!check_slot(&j, value, why, sizeof why)) {
            snprintf(m->message, sizeof m->message, "timed run %d: %s", r + 1, why);
            m->status = MEASURE_WRONG;
            goto out;
        }
        run_times_add(&times, call_ns, span_ns, host_ns, late);
    }
    run_times_finish(&times, m);
    measure_b2b(&j, c, m);
out:
    run_times_free(&times);
    clReleaseMemObject(j.results);
}
