/* clreduce-bench: timing many reductions in one call, rows or segments,
 * or many scans, of rows (measure.h says how). The results are poisoned
 * before every checked call, so that a call that writes nothing cannot
 * pass for one that wrote the right values; the check reads the segments
 * shape_checked() picks (of a scanned row, its last element: the row's
 * reduction). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "timing.h"
#include "util.h"

static const cl_uint poison_word = 0xffffffffu; /* NaN for floats */

/* Elements of the results: one per segment, or every element of scanned
 * rows. */
static size_t result_count(const segments_setup *s)
{
    size_t n = s->shape->kind == SHAPE_SCAN_ROWS ? s->segments * s->shape->length : s->segments;
    return n ? n : 1;
}

/* Bytes of one result of op: an element for sum, min and max, else the
 * layout of clreduce.h. */
static size_t result_size(clreduce_op op, clreduce_type type)
{
    return op <= CLREDUCE_OP_MAX ? clreduce_type_size(type) : clreduce_result_size(op, type);
}

/* Bytes of the results: one of op's a segment (or every element of scanned
 * rows), or a record per row. */
static size_t result_bytes(const segments_setup *s, clreduce_op op, clreduce_type type)
{
    return s->nmulti ? (s->segments ? s->segments : 1) * s->record
                     : result_count(s) * result_size(op, type);
}

/* Where segment i's result lies among them. */
static size_t result_index(const segments_setup *s, size_t i)
{
    return s->shape->kind == SHAPE_SCAN_ROWS ? (i + 1) * s->shape->length - 1 : i;
}

void segments_setup_create(const bench_device *d, const dataset *ds, const shape *sh,
                           uint64_t seed, const clreduce_op *multi, size_t nmulti, int operators,
                           segments_setup *s)
{
    memset(s, 0, sizeof *s);
    s->shape = sh;
    s->operators = (operators || nmulti) && sh->kind != SHAPE_SCAN_ROWS;
    if (nmulti && sh->kind != SHAPE_SCAN_ROWS) {
        s->multi = multi;
        s->nmulti = nmulti;
        s->record = clreduce_multi_record(multi, nmulti, ds->type, s->at);
        if (!s->record)
            fatal("--multi: %s", clreduce_last_error(NULL));
    }
    uint64_t *offsets;
    shape_segments(sh, ds->count, seed, &offsets, &s->segments);
    cl_int err;
    if (!shape_is_rows(sh)) {
        /* 32-bit offsets where they fit, as most callers would pass them. */
        int wide = offsets[s->segments] > UINT32_MAX;
        s->offsets_type = wide ? CLREDUCE_UINT64 : CLREDUCE_UINT32;
        size_t osize = wide ? 8 : 4, n = s->segments + 1;
        void *packed = offsets;
        if (!wide) {
            uint32_t *narrow = xmalloc(n * sizeof *narrow);
            for (size_t i = 0; i < n; i++)
                narrow[i] = (uint32_t)offsets[i];
            packed = narrow;
        }
        s->offsets = clCreateBuffer(d->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                    n * osize, packed, &err);
        check_cl(err, "clCreateBuffer (segment offsets)");
        if (packed != offsets)
            free(packed);
    }
    /* Room for the widest result of any operator. */
    size_t widest = ds->esize;
    for (int op = 0; s->operators && op < CLREDUCE_OP_COUNT; op++)
        if (result_size((clreduce_op)op, ds->type) > widest)
            widest = result_size((clreduce_op)op, ds->type);
    s->results = clCreateBuffer(d->context, CL_MEM_READ_WRITE,
                                s->nmulti ? result_bytes(s, CLREDUCE_OP_SUM, ds->type)
                                          : result_count(s) * widest,
                                NULL, &err);
    check_cl(err, "clCreateBuffer (results)");

    /* The reference of every checked segment, from the input's first copy. */
    s->checked = shape_checked(s->segments, seed, &s->nchecked);
    s->want = xmalloc((s->nchecked ? s->nchecked : 1) * sizeof *s->want);
    if (s->operators)
        s->want_ops = xmalloc((s->nchecked ? s->nchecked : 1) * sizeof *s->want_ops);
    unsigned char *input = xmalloc(ds->count * ds->esize), *second = NULL;
    check_cl(clEnqueueReadBuffer(d->queue, ds->buffer, CL_TRUE, 0, ds->count * ds->esize, input,
                                 0, NULL, NULL),
             "clEnqueueReadBuffer (the input, for the reference)");
    if (s->operators && ds->second) { /* dot's y */
        second = xmalloc(ds->count * ds->esize);
        check_cl(clEnqueueReadBuffer(d->queue, ds->second, CL_TRUE, 0, ds->count * ds->esize,
                                     second, 0, NULL, NULL),
                 "clEnqueueReadBuffer (dot's second input, for the reference)");
    }
    for (size_t k = 0; k < s->nchecked; k++) {
        size_t i = s->checked[k];
        size_t begin = shape_is_rows(sh) ? i * sh->length : (size_t)offsets[i];
        size_t end = shape_is_rows(sh) ? begin + sh->length : (size_t)offsets[i + 1];
        prefix_init(ds->type, &s->want[k]);
        for (size_t e = begin; e < end; e++)
            prefix_add(ds->type, &s->want[k], input + e * ds->esize);
        if (s->operators) {
            /* Indices count from the row's or segment's start. */
            operator_reference_init(ds->type, &s->want_ops[k]);
            operator_reference_add(ds->type, &s->want_ops[k], input + begin * ds->esize,
                                   second ? second + begin * ds->esize : NULL, end - begin, 0);
        }
    }
    free(input);
    free(second);
    free(offsets);
}

void segments_setup_release(segments_setup *s)
{
    if (s->offsets)
        clReleaseMemObject(s->offsets);
    if (s->results)
        clReleaseMemObject(s->results);
    free(s->checked);
    free(s->want);
    free(s->want_ops);
    memset(s, 0, sizeof *s);
}

typedef struct segments_job {
    const bench_device *d;
    clreduce_ctx *ctx;
    dataset *ds;
    const segments_setup *s;
    clreduce_op op;
    unsigned char *values; /* room for every segment's result */
} segments_job;

/* Enqueues one call through its `_profiled` twin; `first` NULL: not
 * asked. */
static clreduce_status enqueue_call(segments_job *j, cl_command_queue queue, cl_event *first,
                                    cl_event *done)
{
    const segments_setup *s = j->s;
    size_t offset = dataset_next_offset(j->ds);
    if (j->op == CLREDUCE_OP_DOT && s->shape->kind == SHAPE_ROWS)
        return clreduce_dot_rows_profiled(j->ctx, queue, j->ds->type, j->ds->buffer, offset,
                                          j->ds->second, offset, s->segments, s->shape->length,
                                          s->shape->length, s->results, 0, 0, NULL, first, done);
    if (j->op == CLREDUCE_OP_DOT)
        return clreduce_dot_segments_profiled(j->ctx, queue, j->ds->type, j->ds->buffer, offset,
                                              j->ds->second, offset, j->ds->count, s->offsets, 0,
                                              s->offsets_type, s->segments, s->results, 0, 0,
                                              NULL, first, done);
    if (s->shape->kind == SHAPE_SCAN_ROWS)
        return clreduce_scan_rows_profiled(j->ctx, queue, j->op, j->ds->type,
                                           CLREDUCE_INCLUSIVE, j->ds->buffer, offset,
                                           s->segments, s->shape->length, 0, s->results, 0, 0,
                                           0, NULL, first, done);
    if (s->nmulti && s->shape->kind == SHAPE_ROWS)
        return clreduce_reduce_rows_multi_profiled(j->ctx, queue, s->multi, s->nmulti,
                                                   j->ds->type, j->ds->buffer, offset,
                                                   s->segments, s->shape->length,
                                                   s->shape->length, s->results, 0, 0, NULL,
                                                   first, done);
    if (s->nmulti)
        return clreduce_reduce_segments_multi_profiled(j->ctx, queue, s->multi, s->nmulti,
                                                       j->ds->type, j->ds->buffer, offset,
                                                       j->ds->count, s->offsets, 0,
                                                       s->offsets_type, s->segments, s->results,
                                                       0, 0, NULL, first, done);
    if (s->shape->kind == SHAPE_ROWS)
        return clreduce_reduce_rows_profiled(j->ctx, queue, j->op, j->ds->type, j->ds->buffer,
                                             offset, s->segments, s->shape->length,
                                             s->shape->length, s->results, 0, 0, NULL, first,
                                             done);
    return clreduce_reduce_segments_profiled(j->ctx, queue, j->op, j->ds->type, j->ds->buffer,
                                             offset, j->ds->count, s->offsets, 0,
                                             s->offsets_type, s->segments, s->results, 0, 0,
                                             NULL, first, done);
}

static clreduce_status enqueue_plain(void *arg, int index)
{
    (void)index;
    segments_job *j = arg;
    return enqueue_call(j, j->d->plain_queue, NULL, NULL);
}

static void poison(cl_command_queue queue, const segments_job *j)
{
    size_t bytes = result_bytes(j->s, j->op, j->ds->type);
    check_cl(clEnqueueFillBuffer(queue, j->s->results, &poison_word, sizeof poison_word, 0, bytes,
                                 0, NULL, NULL),
             "clEnqueueFillBuffer (poisoning the results)");
}

/* Reads the results written on `queue` and checks the picked segments;
 * 1 when right, else 0 with why. */
static int check_results(segments_job *j, cl_command_queue queue, char *why, size_t size)
{
    const segments_setup *s = j->s;
    size_t rsize = result_size(j->op, j->ds->type);
    if (s->segments)
        check_cl(clEnqueueReadBuffer(queue, s->results, CL_TRUE, 0,
                                     result_bytes(s, j->op, j->ds->type), j->values, 0, NULL,
                                     NULL),
                 "clEnqueueReadBuffer (results)");
    long double tol = reference_tolerance(j->ds->type, s->shape->kind == SHAPE_SCAN_ROWS);
    for (size_t k = 0; k < s->nchecked; k++) {
        char detail[512];
        size_t i = s->checked[k];
        for (size_t o = 0; o < s->nmulti; o++) {
            clreduce_op op = s->multi[o];
            const unsigned char *got = j->values + i * s->record + s->at[o];
            int ok = op <= CLREDUCE_OP_MAX
                         ? reference_matches(j->ds->type, op, &s->want[k], got, tol, detail,
                                             sizeof detail)
                         : operator_matches(j->ds->type, op, &s->want_ops[k], got, detail,
                                            sizeof detail);
            if (!ok) {
                snprintf(why, size, "%s %zu of %zu, %s: %s",
                         s->shape->kind == SHAPE_ROWS ? "row" : "segment", i, s->segments,
                         clreduce_op_name(op), detail);
                return 0;
            }
        }
        if (s->nmulti)
            continue;
        const unsigned char *got = j->values + result_index(s, i) * rsize;
        int ok = j->op <= CLREDUCE_OP_MAX
                     ? reference_matches(j->ds->type, j->op, &s->want[k], got, tol, detail,
                                         sizeof detail)
                     : operator_matches(j->ds->type, j->op, &s->want_ops[k], got, detail,
                                        sizeof detail);
        if (!ok) {
            snprintf(why, size, "segment %zu of %zu: %s", i, s->segments, detail);
            return 0;
        }
    }
    return 1;
}

/* One timed call after the results were poisoned; checked. */
static clreduce_status timed_segments(segments_job *j, double *call_ns, double *span_ns,
                                      double *host_ns, int *late, int *right, char *why,
                                      size_t size)
{
    cl_command_queue q = j->d->queue;
    poison(q, j);
    timed_call t;
    timed_start(q, &t);
    clreduce_status st = enqueue_call(j, q, &t.first, &t.done);
    timed_called(&t);
    if (st != CLREDUCE_SUCCESS) {
        timed_abandon(&t);
        clFinish(q);
        return st;
    }
    check_cl(clWaitForEvents(1, &t.done), "clWaitForEvents (done)");
    *late = timed_finish(&t, call_ns, span_ns, host_ns);
    *right = check_results(j, q, why, size);
    return CLREDUCE_SUCCESS;
}

static void measure_b2b(segments_job *j, const measure_config *c, measurement *m)
{
    int calls = b2b_calls_for(c, m->call_us);
    if (calls <= 0)
        return;
    double batch_ns[MEASURE_B2B_BATCHES];
    clreduce_status st = CLREDUCE_SUCCESS;
    for (int w = 0; w < c->warmup && st == CLREDUCE_SUCCESS; w++)
        st = enqueue_plain(j, -1);
    for (int b = 0; b < MEASURE_B2B_BATCHES && st == CLREDUCE_SUCCESS; b++) {
        poison(j->d->plain_queue, j);
        st = b2b_batch(j->d->plain_queue, calls, enqueue_plain, j, &batch_ns[b]);
        if (st != CLREDUCE_SUCCESS)
            break;
        char why[sizeof m->message - 64];
        if (!check_results(j, j->d->plain_queue, why, sizeof why)) {
            snprintf(m->message, sizeof m->message, "back-to-back batch %d: %s", b + 1, why);
            m->status = MEASURE_WRONG;
            return;
        }
    }
    if (st != CLREDUCE_SUCCESS) {
        clFinish(j->d->plain_queue);
        measurement_fail(m, j->ctx, st);
        return;
    }
    b2b_record(m, batch_ns, MEASURE_B2B_BATCHES, calls);
}

void measure_segments(const bench_device *d, clreduce_ctx *ctx, dataset *ds,
                      const segments_setup *s, clreduce_op op, const measure_config *c,
                      measurement *m)
{
    measurement_init(m);
    if (op == CLREDUCE_OP_DOT && !ds->second) {
        m->status = MEASURE_UNSUPPORTED;
        snprintf(m->message, sizeof m->message, "no room for dot's second input");
        return;
    }
    segments_job j = {d, ctx, ds, s, op, xmalloc(result_bytes(s, op, ds->type))};
    double call_ns, span_ns, host_ns;
    int late, right;
    run_times times;
    run_times_init(&times, c->runs);
    char why[sizeof m->message - 64];

    /* The checked first call (it builds the kernels). */
    clreduce_status st =
        timed_segments(&j, &call_ns, &span_ns, &host_ns, &late, &right, why, sizeof why);
    if (st != CLREDUCE_SUCCESS) {
        measurement_fail(m, ctx, st);
        goto out;
    }
    if (!right) {
        snprintf(m->message, sizeof m->message, "first call: %s", why);
        m->status = MEASURE_WRONG;
        goto out;
    }
    for (int w = 0; w < c->warmup && st == CLREDUCE_SUCCESS; w++)
        st = enqueue_call(&j, d->queue, NULL, NULL);
    check_cl(clFinish(d->queue), "clFinish (after the warm-up)");
    for (int r = 0; r < c->runs && st == CLREDUCE_SUCCESS; r++) {
        /* The untimed call before a timed one (measure.h). */
        st = enqueue_call(&j, d->queue, NULL, NULL);
        check_cl(clFinish(d->queue), "clFinish (after the call before a timed one)");
        if (st == CLREDUCE_SUCCESS)
            st = timed_segments(&j, &call_ns, &span_ns, &host_ns, &late, &right, why, sizeof why);
        if (st == CLREDUCE_SUCCESS && !right) {
            snprintf(m->message, sizeof m->message, "timed run %d: %s", r + 1, why);
            m->status = MEASURE_WRONG;
            goto out;
        }
        if (st == CLREDUCE_SUCCESS)
            run_times_add(&times, call_ns, span_ns, host_ns, late);
    }
    if (st != CLREDUCE_SUCCESS) {
        measurement_fail(m, ctx, st);
        goto out;
    }
    run_times_finish(&times, m);
    measure_b2b(&j, c, m);
out:
    run_times_free(&times);
    free(j.values);
}
