/* clreduce-bench: prefix scans, measured the way the reductions are, and
 * checked against a CPU reference after every call.
 *
 * The reference is the running result of the operator over the input,
 * walked element by element through "windows": runs of the input kept on the
 * host with the prefix before each (see data.c). Up to SCAN_FULL_CHECK_MAX
 * elements one window holds the whole input, so every element of every
 * output is checked; beyond that, the windows are both ends, both sides of
 * every power of two and random runs long enough to cross several tile
 * boundaries of any tiling. Floating-point sums must lie within 2e-5 (float)
 * or 1e-12 (double) times the sum of |x| over the same prefix; integer sums
 * (wrapping) and every min and max must match exactly.
 *
 * A scan reads and writes every element, so it is credited with 2 x n x
 * element size bytes and compared with the copy peak. Out of place, the
 * outputs rotate over as many copies as the inputs do, so that writes too go
 * to memory rather than to a cache that still holds the last output. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define END_RUN ((size_t)4096)     /* elements checked at each end */
#define EDGE ((size_t)8)           /* on each side of a power of two */
#define RANDOM_RUNS 8
#define RANDOM_RUN ((size_t)16384) /* elements in each random run */

/* ---- the reference ------------------------------------------------------------ */

void prefix_init(clreduce_type type, prefix_state *s)
{
    memset(s, 0, sizeof *s);
    switch (type) {
    case CLREDUCE_FLOAT: {
        float lo = -INFINITY, hi = INFINITY;
        memcpy(s->min, &hi, sizeof hi);
        memcpy(s->max, &lo, sizeof lo);
        break;
    }
    case CLREDUCE_DOUBLE: {
        double lo = -INFINITY, hi = INFINITY;
        memcpy(s->min, &hi, sizeof hi);
        memcpy(s->max, &lo, sizeof lo);
        break;
    }
    case CLREDUCE_INT32: {
        int32_t lo = INT32_MIN, hi = INT32_MAX;
        memcpy(s->min, &hi, sizeof hi);
        memcpy(s->max, &lo, sizeof lo);
        break;
    }
    case CLREDUCE_UINT32: {
        uint32_t lo = 0, hi = UINT32_MAX;
        memcpy(s->min, &hi, sizeof hi);
        memcpy(s->max, &lo, sizeof lo);
        break;
    }
    case CLREDUCE_INT64: {
        int64_t lo = INT64_MIN, hi = INT64_MAX;
        memcpy(s->min, &hi, sizeof hi);
        memcpy(s->max, &lo, sizeof lo);
        break;
    }
    case CLREDUCE_UINT64: {
        uint64_t lo = 0, hi = UINT64_MAX;
        memcpy(s->min, &hi, sizeof hi);
        memcpy(s->max, &lo, sizeof lo);
        break;
    }
    }
}

#define ADD_MIN_MAX(T, s, v)                                                                       \
    do {                                                                                           \
        T mn_, mx_;                                                                                \
        memcpy(&mn_, (s)->min, sizeof mn_);                                                        \
        memcpy(&mx_, (s)->max, sizeof mx_);                                                        \
        if ((v) < mn_)                                                                             \
            memcpy((s)->min, &(v), sizeof(T));                                                     \
        if ((v) > mx_)                                                                             \
            memcpy((s)->max, &(v), sizeof(T));                                                     \
    } while (0)

/* Extends the prefix by one element. */
static void prefix_add(clreduce_type type, prefix_state *s, const void *x)
{
    switch (type) {
    case CLREDUCE_FLOAT: {
        float v;
        memcpy(&v, x, sizeof v);
        s->sum_fp += v;
        s->abs_sum += fabsl((long double)v);
        ADD_MIN_MAX(float, s, v);
        break;
    }
    case CLREDUCE_DOUBLE: {
        double v;
        memcpy(&v, x, sizeof v);
        s->sum_fp += v;
        s->abs_sum += fabsl((long double)v);
        ADD_MIN_MAX(double, s, v);
        break;
    }
    case CLREDUCE_INT32: {
        int32_t v;
        memcpy(&v, x, sizeof v);
        s->sum_int += (uint64_t)(int64_t)v;
        ADD_MIN_MAX(int32_t, s, v);
        break;
    }
    case CLREDUCE_UINT32: {
        uint32_t v;
        memcpy(&v, x, sizeof v);
        s->sum_int += v;
        ADD_MIN_MAX(uint32_t, s, v);
        break;
    }
    case CLREDUCE_INT64: {
        int64_t v;
        memcpy(&v, x, sizeof v);
        s->sum_int += (uint64_t)v;
        ADD_MIN_MAX(int64_t, s, v);
        break;
    }
    case CLREDUCE_UINT64: {
        uint64_t v;
        memcpy(&v, x, sizeof v);
        s->sum_int += v;
        ADD_MIN_MAX(uint64_t, s, v);
        break;
    }
    }
}

/* Whether `got` is right for `op` over the prefix `want`; if not, why. */
static int prefix_matches(clreduce_type type, clreduce_op op, const prefix_state *want,
                          const void *got, char *why, size_t why_size)
{
    size_t esize = clreduce_type_size(type);
    char g[64], w[64];
    format_value(type, got, g, sizeof g);
    if (op != CLREDUCE_OP_SUM) {
        const unsigned char *ref = op == CLREDUCE_OP_MIN ? want->min : want->max;
        if (memcmp(got, ref, esize) == 0)
            return 1;
        format_value(type, ref, w, sizeof w);
        snprintf(why, why_size, "%s, expected %s", g, w);
        return 0;
    }
    if (type == CLREDUCE_FLOAT || type == CLREDUCE_DOUBLE) {
        long double v;
        if (type == CLREDUCE_FLOAT) {
            float f;
            memcpy(&f, got, sizeof f);
            v = f;
        } else {
            double x;
            memcpy(&x, got, sizeof x);
            v = x;
        }
        long double rel = type == CLREDUCE_FLOAT ? 2e-5L : 1e-12L;
        long double tol = rel * want->abs_sum;
        long double diff = fabsl(v - want->sum_fp);
        if (diff <= tol) /* false for NaN */
            return 1;
        snprintf(why, why_size,
                 "%s, expected %.17Lg (|difference| %.3Lg > tolerance %.0Lg x sum|x| %.6Lg = "
                 "%.3Lg)",
                 g, want->sum_fp, diff, rel, want->abs_sum, tol);
        return 0;
    }
    uint64_t bits = 0, ref = want->sum_int;
    if (esize == 4) {
        uint32_t u;
        memcpy(&u, got, sizeof u);
        bits = u;
        ref = (uint32_t)ref;
    } else {
        memcpy(&bits, got, sizeof bits);
    }
    if (bits == ref)
        return 1;
    unsigned char r[8];
    if (esize == 4) {
        uint32_t u = (uint32_t)ref;
        memcpy(r, &u, sizeof u);
    } else {
        memcpy(r, &ref, sizeof ref);
    }
    format_value(type, r, w, sizeof w);
    snprintf(why, why_size, "%s, expected %s (exact, wrapping)", g, w);
    return 0;
}

/* ---- where the check looks -------------------------------------------------- */

typedef struct span {
    size_t lo, hi;
} span;

static int compare_span(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

static void add_span(span *spans, size_t *n, size_t lo, size_t hi, size_t count)
{
    if (hi > count)
        hi = count;
    if (lo < hi)
        spans[(*n)++] = (span){lo, hi};
}

void scan_windows_choose(size_t count, size_t esize, uint64_t seed, scan_window **windows,
                         size_t *window_count)
{
    span spans[2 + 64 + RANDOM_RUNS];
    size_t n = 0;
    if (count <= SCAN_FULL_CHECK_MAX) {
        add_span(spans, &n, 0, count, count);
    } else {
        add_span(spans, &n, 0, END_RUN, count);
        add_span(spans, &n, count - END_RUN, count, count);
        for (size_t p = 2 * EDGE; p < count && p <= SIZE_MAX / 2; p *= 2)
            add_span(spans, &n, p - EDGE, p + EDGE, count);
        rng r;
        rng_seed(&r, seed ^ 0x5ca9c4ec4ull ^ (uint64_t)count * 0x9e3779b97f4a7c15ull);
        for (int i = 0; i < RANDOM_RUNS; i++) {
            size_t lo = (size_t)(rng_next(&r) % (count - RANDOM_RUN + 1));
            add_span(spans, &n, lo, lo + RANDOM_RUN, count);
        }
    }
    qsort(spans, n, sizeof *spans, compare_span);
    size_t merged = 0;
    for (size_t i = 0; i < n; i++) {
        if (merged && spans[i].lo <= spans[merged - 1].hi) {
            if (spans[i].hi > spans[merged - 1].hi)
                spans[merged - 1].hi = spans[i].hi;
        } else {
            spans[merged++] = spans[i];
        }
    }
    scan_window *w = calloc(merged, sizeof *w);
    if (!w)
        fatal("out of host memory");
    for (size_t i = 0; i < merged; i++) {
        w[i].start = spans[i].lo;
        w[i].length = spans[i].hi - spans[i].lo;
        w[i].input = malloc(w[i].length * esize);
        if (!w[i].input)
            fatal("out of host memory (%zu bytes)", w[i].length * esize);
    }
    *windows = w;
    *window_count = merged;
}

void scan_check_description(char *out, size_t size)
{
    char full[32];
    size_label(SCAN_FULL_CHECK_MAX, full, sizeof full);
    snprintf(out, size,
             "every element of every output checked up to %s elements; beyond, the first and "
             "last %zu, %zu on each side of every power of two and %d random runs of %zu",
             full, END_RUN, EDGE, RANDOM_RUNS, RANDOM_RUN);
}

/* ---- the output side ---------------------------------------------------------- */

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
    t->readback = malloc(elements * ds->esize);
    if (!t->readback)
        fatal("out of host memory (%zu bytes)", elements * ds->esize);
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
static void reset_copy(const bench_device *d, const dataset *ds, const scan_target *t,
                       size_t offset)
{
    if (t->in_place)
        check_cl(clEnqueueCopyBuffer(d->queue, t->pristine, ds->buffer, 0, offset * ds->esize,
                                     ds->count * ds->esize, 0, NULL, NULL),
                 "clEnqueueCopyBuffer (restoring the input)");
    else
        check_cl(clEnqueueFillBuffer(d->queue, t->output, &poison_word, sizeof poison_word,
                                     offset * ds->esize, ds->count * ds->esize, 0, NULL, NULL),
                 "clEnqueueFillBuffer (poisoning the output)");
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
            if (!prefix_matches(ds->type, op, want, got + at * ds->esize, why, sizeof why)) {
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

/* ---- one call, and the whole measurement -------------------------------------- */

/* A scan of the copy at `offset`, timed like a reduction: device time from
 * the first command's start to the last one's end; end-to-end time from
 * before the enqueue to the return of a blocking read of the last output
 * element. */
static clreduce_status timed_scan(const bench_device *d, clreduce_ctx *ctx, const dataset *ds,
                                  const scan_target *t, clreduce_op op, clreduce_scan_kind kind,
                                  clreduce_scan_variant variant, size_t offset, double *device_ns,
                                  double *e2e_ns)
{
    cl_mem out = output_of(ds, t);
    cl_event first = NULL, done = NULL;
    unsigned char last[8];
    double t0 = now_ns();
    clreduce_status s = clreduce_scan_profiled(ctx, d->queue, op, ds->type, kind, variant,
                                               ds->buffer, offset, ds->count, out, offset, 0,
                                               NULL, &first, &done);
    if (s != CLREDUCE_SUCCESS)
        return s;
    finish_timed_call(d->queue, out, (offset + ds->count - 1) * ds->esize, ds->esize, last, first,
                      done, t0, "reading the last scan element or its profiling information",
                      device_ns, e2e_ns);
    return CLREDUCE_SUCCESS;
}

void measure_scan(const bench_device *d, clreduce_ctx *ctx, dataset *ds, scan_target *t,
                  clreduce_op op, clreduce_scan_kind kind, clreduce_scan_variant variant,
                  int warmup, int runs, measurement *m)
{
    memset(m, 0, sizeof *m);
    m->median_us = m->min_us = m->e2e_median_us = NAN;
    clreduce_status s = clreduce_check_scan_support(ctx, op, ds->type, variant);
    if (s != CLREDUCE_SUCCESS) {
        set_failure(m, ctx, s);
        return;
    }

    /* The checked call, into a poisoned output (or a fresh input). */
    double dev_ns, e2e_ns;
    size_t offset = dataset_next_offset(ds);
    s = timed_scan(d, ctx, ds, t, op, kind, variant, offset, &dev_ns, &e2e_ns);
    int right = s == CLREDUCE_SUCCESS &&
                check_output(d, ds, t, op, kind, offset, m->message, sizeof m->message);
    reset_copy(d, ds, t, offset);
    check_cl(clFinish(d->queue), "clFinish");
    if (s != CLREDUCE_SUCCESS) {
        set_failure(m, ctx, s);
        return;
    }
    if (!right) {
        m->status = MEASURE_WRONG;
        return;
    }

    for (int w = 0; w < warmup; w++) {
        offset = dataset_next_offset(ds);
        s = clreduce_scan(ctx, d->queue, op, ds->type, kind, variant, ds->buffer, offset,
                          ds->count, output_of(ds, t), offset, 0, NULL, NULL);
        reset_copy(d, ds, t, offset);
        if (s != CLREDUCE_SUCCESS) {
            set_failure(m, ctx, s);
            clFinish(d->queue);
            return;
        }
    }
    check_cl(clFinish(d->queue), "clFinish");

    double *dev = malloc(2 * (size_t)runs * sizeof *dev);
    if (!dev)
        fatal("out of host memory");
    double *e2e = dev + runs;
    for (int r = 0; r < runs; r++) {
        offset = dataset_next_offset(ds);
        s = timed_scan(d, ctx, ds, t, op, kind, variant, offset, &dev[r], &e2e[r]);
        char why[sizeof m->message - 64];
        right = s == CLREDUCE_SUCCESS &&
                check_output(d, ds, t, op, kind, offset, why, sizeof why);
        reset_copy(d, ds, t, offset);
        check_cl(clFinish(d->queue), "clFinish");
        if (s != CLREDUCE_SUCCESS) {
            set_failure(m, ctx, s);
            free(dev);
            return;
        }
        if (!right) {
            snprintf(m->message, sizeof m->message, "timed run %d: %s", r + 1, why);
            m->status = MEASURE_WRONG;
            free(dev);
            return;
        }
    }
    m->min_us = min_of(dev, (size_t)runs) / 1e3;
    m->median_us = median_of(dev, (size_t)runs) / 1e3;
    m->e2e_median_us = median_of(e2e, (size_t)runs) / 1e3;
    m->status = MEASURE_OK;
    free(dev);
}
