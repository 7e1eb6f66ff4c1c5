/* clreduce-bench: random input on the device, its reference results, and the
 * check of a result against them.
 *
 * The data are generated on the host in chunks (never the whole array at
 * once), written to the first copy in the device buffer, and the references
 * accumulated on the way. One element is set to a value below the range of
 * the others and another to a value above it, at random positions, so that a
 * min or max that skips elements is caught.
 *
 * For scans, the input of a few windows is kept on the host too, with the
 * prefix of every operator before each window, so that a scan's output can
 * be checked there without the whole input on the host: the whole input up
 * to DATA_FULL_CHECK_MAX elements; beyond, the first and last END_RUN
 * elements, EDGE on each side of every power of two and RANDOM_RUNS random
 * runs of RANDOM_RUN elements, longer than a tile of any scan variant.
 *
 * Small inputs are copied until the copies fill device_working_set(), so
 * that calls rotating over them read from memory, not from a cache that
 * still holds the input of the call before.
 *
 * Ranges: float and double uniform in [-1, 1); int32 in [-1000, 1000];
 * uint32 in [1, 2000]; int64 in [-10^6, 10^6]; uint64 in [1, 2*10^6]. Integer
 * sums may wrap around; the reference wraps the same way. Half and bfloat16:
 * multiples of 1/4 in [-4, 4], which both hold exactly, so that their float
 * sum is exact while sum|x| stays within 2^22 (sum_tolerance()); nothing is
 * planted in them, since only their sum is timed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "util.h"

#define CHUNK ((size_t)1 << 22)
#define ALIGN_BYTES 512
#define END_RUN ((size_t)4096)     /* elements checked at each end */
#define EDGE ((size_t)8)           /* on each side of a power of two */
#define RANDOM_RUNS 8
#define RANDOM_RUN ((size_t)16384) /* elements in each random run */

typedef struct accum {
    long double sum, comp, abs_sum;
    double block_sum, block_abs; /* float, half, bfloat16: blocks of 4096 in double */
    size_t block_n;
    uint64_t isum;
} accum;

static void accum_fp_long(accum *a, long double x)
{
    /* Neumaier's compensated sum in extended precision. */
    long double t = a->sum + x;
    if (fabsl(a->sum) >= fabsl(x))
        a->comp += (a->sum - t) + x;
    else
        a->comp += (x - t) + a->sum;
    a->sum = t;
    a->abs_sum += fabsl(x);
}

static void accum_flush_blocks(accum *a)
{
    a->sum += a->block_sum;
    a->abs_sum += a->block_abs;
    a->block_sum = a->block_abs = 0;
    a->block_n = 0;
}

static void accum_fp_float(accum *a, float x)
{
    a->block_sum += x;
    a->block_abs += fabs((double)x);
    if (++a->block_n == 4096)
        accum_flush_blocks(a);
}

static void accum_int(accum *a, uint64_t x)
{
    a->isum += x; /* a negative x arrives modulo 2^64: the sum wraps */
}

/* The bits of v as a half, for a v that a half holds exactly and that is 0
 * or normal: the float's exponent rebiased, its significand cut to 10 bits. */
static uint16_t half_bits(float v)
{
    uint32_t f;
    memcpy(&f, &v, sizeof f);
    uint32_t sign = (f >> 16) & 0x8000u, magnitude = f & 0x7fffffffu;
    if (magnitude == 0)
        return (uint16_t)sign;
    uint32_t exponent = (magnitude >> 23) - 127 + 15, significand = (magnitude >> 13) & 0x3ffu;
    return (uint16_t)(sign | (exponent << 10) | significand);
}

/* Element i of a storage type: k / 4 for k uniform in [-16, 16] (data.c's
 * header says why), as the bits of a half or a bfloat16 (a float's upper
 * half), added to the sums as the float it widens to. */
static void put_storage(clreduce_type type, void *host, size_t i, uint64_t x, accum *a)
{
    float v = (float)((int)((x >> 32) % 33) - 16) * 0.25f;
    uint32_t f;
    memcpy(&f, &v, sizeof f);
    ((uint16_t *)host)[i] = type == CLREDUCE_HALF ? half_bits(v) : (uint16_t)(f >> 16);
    accum_fp_float(a, v);
}

/* Element i of `host`, of C type T: `value`, or `low` or `high` where one
 * of them is planted; added to the sums by `add` and to the min and max. */
#define PUT(T, value, low, high, add)                                                              \
    do {                                                                                           \
        T v = hi ? (high) : lo ? (low) : (value);                                                  \
        ((T *)host)[i] = v;                                                                        \
        add(a, v);                                                                                 \
        if (g == 0 || v < *(T *)mn)                                                                \
            *(T *)mn = v;                                                                          \
        if (g == 0 || v > *(T *)mx)                                                                \
            *(T *)mx = v;                                                                          \
    } while (0)

/* Fills n elements starting at global index `base`. */
static void generate(clreduce_type type, void *host, size_t n, size_t base, rng *r,
                     size_t plant_min, size_t plant_max, int plant, accum *a, void *mn, void *mx)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t x = rng_next(r);
        size_t g = base + i;
        int lo = plant && g == plant_min, hi = plant && g == plant_max;
        switch (type) {
        case CLREDUCE_FLOAT:
            PUT(float, (float)((int32_t)(x >> 40) - (1 << 23)) * 0x1p-23f, -1.5f, 1.5f,
                accum_fp_float);
            break;
        case CLREDUCE_DOUBLE:
            PUT(double, (double)((int64_t)(x >> 11) - ((int64_t)1 << 52)) * 0x1p-52, -1.5, 1.5,
                accum_fp_long);
            break;
        case CLREDUCE_INT32:
            PUT(int32_t, (int32_t)((x >> 32) % 2001) - 1000, -1001, 1001, accum_int);
            break;
        case CLREDUCE_UINT32:
            PUT(uint32_t, (uint32_t)((x >> 32) % 2000) + 1, 0, 2001, accum_int);
            break;
        case CLREDUCE_INT64:
            PUT(int64_t, (int64_t)((x >> 16) % 2000001) - 1000000, -1000001, 1000001, accum_int);
            break;
        case CLREDUCE_UINT64:
            PUT(uint64_t, (x >> 16) % 2000000 + 1, 0, 2000001, accum_int);
            break;
        case CLREDUCE_HALF:
        case CLREDUCE_BFLOAT16: put_storage(type, host, i, x, a); break;
        }
    }
}

/* The prefix of the input before global index g, from the accumulators. */
static void take_prefix(clreduce_type type, const accum *a, size_t g, const dataset *ds,
                        prefix_state *out)
{
    prefix_init(type, out);
    out->sum_fp = a->sum + a->comp + (long double)a->block_sum;
    out->abs_sum = a->abs_sum + (long double)a->block_abs;
    out->sum_int = a->isum;
    if (g > 0) {
        memcpy(out->min, ds->total.min, ds->esize);
        memcpy(out->max, ds->total.max, ds->esize);
    }
}

/* ---- the windows a scan's check reads ----------------------------------------- */

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

static void choose_windows(size_t count, size_t esize, uint64_t seed, scan_window **windows,
                           size_t *window_count)
{
    span spans[2 + 64 + RANDOM_RUNS];
    size_t n = 0;
    if (count <= DATA_FULL_CHECK_MAX) {
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
    scan_window *w = xmalloc(merged * sizeof *w);
    memset(w, 0, merged * sizeof *w);
    for (size_t i = 0; i < merged; i++) {
        w[i].start = spans[i].lo;
        w[i].length = spans[i].hi - spans[i].lo;
        w[i].input = xmalloc(w[i].length * esize);
    }
    *windows = w;
    *window_count = merged;
}

void dataset_window_description(char *out, size_t size)
{
    char full[32];
    size_label(DATA_FULL_CHECK_MAX, full, sizeof full);
    snprintf(out, size,
             "every element of every output checked up to %s elements; beyond, the first and "
             "last %zu, %zu on each side of every power of two and %d random runs of %zu",
             full, END_RUN, EDGE, RANDOM_RUNS, RANDOM_RUN);
}

/* ---- the dataset ----------------------------------------------------------------- */

void dataset_create(const bench_device *d, clreduce_type type, size_t count, uint64_t seed,
                    cl_ulong max_bytes, int for_scans, dataset *ds)
{
    memset(ds, 0, sizeof *ds);
    ds->type = type;
    ds->count = count;
    ds->esize = clreduce_type_size(type);
    if (for_scans)
        choose_windows(count, ds->esize, seed, &ds->windows, &ds->window_count);
    scan_window *windows = ds->windows;
    size_t window_count = ds->window_count;
    cl_ulong min_working_set = device_working_set(d);
    size_t bytes = count * ds->esize;
    size_t stride_bytes = (bytes + ALIGN_BYTES - 1) / ALIGN_BYTES * ALIGN_BYTES;
    ds->stride = stride_bytes / ds->esize;
    ds->copies = 1;
    if (stride_bytes < min_working_set)
        ds->copies = (size_t)((min_working_set + stride_bytes - 1) / stride_bytes);
    if ((cl_ulong)ds->copies * stride_bytes > max_bytes)
        ds->copies = (size_t)(max_bytes / stride_bytes);
    if (ds->copies < 1)
        ds->copies = 1;
    size_t total = ds->copies == 1 ? bytes : ds->copies * stride_bytes;

    cl_int err;
    ds->buffer = clCreateBuffer(d->context, CL_MEM_READ_WRITE, total, NULL, &err);
    check_cl(err, "clCreateBuffer (input data)");

    size_t chunk = count < CHUNK ? count : CHUNK;
    void *host = xmalloc(chunk * ds->esize);
    rng r;
    rng_seed(&r, seed ^ ((uint64_t)type << 56) ^ (uint64_t)count * 0x9e3779b97f4a7c15ull);
    size_t plant_min = (size_t)(rng_next(&r) % count);
    size_t plant_max = (size_t)(rng_next(&r) % count);
    if (plant_max == plant_min)
        plant_max = (plant_min + 1) % count;
    int plant = count > 1;
    accum a;
    memset(&a, 0, sizeof a);
    size_t snap = 0, keep = 0; /* next window to take the prefix of, to copy into */
    for (size_t base = 0; base < count; base += chunk) {
        size_t n = count - base < chunk ? count - base : chunk;
        /* Generated in pieces that stop at the start of each window, where
         * the prefix is taken. */
        for (size_t i = 0; i < n;) {
            if (snap < window_count && windows[snap].start == base + i)
                take_prefix(type, &a, base + i, ds, &windows[snap++].before);
            size_t end = n;
            if (snap < window_count && windows[snap].start < base + n)
                end = windows[snap].start - base;
            generate(type, (unsigned char *)host + i * ds->esize, end - i, base + i, &r,
                     plant_min, plant_max, plant, &a, ds->total.min, ds->total.max);
            i = end;
        }
        while (keep < window_count && windows[keep].start + windows[keep].length <= base)
            keep++;
        for (size_t w = keep; w < window_count && windows[w].start < base + n; w++) {
            size_t lo = windows[w].start > base ? windows[w].start : base;
            size_t hi = windows[w].start + windows[w].length;
            if (hi > base + n)
                hi = base + n;
            if (lo < hi)
                memcpy((unsigned char *)windows[w].input + (lo - windows[w].start) * ds->esize,
                       (unsigned char *)host + (lo - base) * ds->esize, (hi - lo) * ds->esize);
        }
        check_cl(clEnqueueWriteBuffer(d->queue, ds->buffer, CL_TRUE, base * ds->esize,
                                      n * ds->esize, host, 0, NULL, NULL),
                 "clEnqueueWriteBuffer (input data)");
    }
    free(host);
    accum_flush_blocks(&a);
    ds->total.sum_fp = a.sum + a.comp;
    ds->total.abs_sum = a.abs_sum;
    ds->total.sum_int = a.isum;

    /* The other copies, doubling the filled region each time. */
    for (size_t have = 1; have < ds->copies;) {
        size_t n = ds->copies - have < have ? ds->copies - have : have;
        check_cl(clEnqueueCopyBuffer(d->queue, ds->buffer, ds->buffer, 0, have * stride_bytes,
                                     n * stride_bytes, 0, NULL, NULL),
                 "clEnqueueCopyBuffer (copies of the input)");
        have += n;
    }
    check_cl(clFinish(d->queue), "clFinish");
}

void dataset_add_operators(const bench_device *d, dataset *ds, uint64_t seed, int second)
{
    size_t count = ds->count, esize = ds->esize;
    size_t stride_bytes = ds->stride * esize;
    size_t total = ds->copies == 1 ? count * esize : ds->copies * stride_bytes;
    cl_int err;
    if (second) {
        ds->second = clCreateBuffer(d->context, CL_MEM_READ_ONLY, total, NULL, &err);
        check_cl(err, "clCreateBuffer (dot's second input)");
    }
    size_t chunk = count < CHUNK ? count : CHUNK;
    void *x = xmalloc(chunk * esize), *y = second ? xmalloc(chunk * esize) : NULL;
    rng r;
    rng_seed(&r, (seed ^ 0xd07d07d07ull) ^ ((uint64_t)ds->type << 56) ^
                     (uint64_t)count * 0x9e3779b97f4a7c15ull);
    accum unused;
    unsigned char mn[8], mx[8];
    memset(&unused, 0, sizeof unused);
    operator_reference_init(ds->type, &ds->operators);
    for (size_t base = 0; base < count; base += chunk) {
        size_t n = count - base < chunk ? count - base : chunk;
        check_cl(clEnqueueReadBuffer(d->queue, ds->buffer, CL_TRUE, base * esize, n * esize, x,
                                     0, NULL, NULL),
                 "clEnqueueReadBuffer (the input, for the reference)");
        if (y) {
            generate(ds->type, y, n, base, &r, 0, 0, 0, &unused, mn, mx);
            check_cl(clEnqueueWriteBuffer(d->queue, ds->second, CL_TRUE, base * esize,
                                          n * esize, y, 0, NULL, NULL),
                     "clEnqueueWriteBuffer (dot's second input)");
        }
        operator_reference_add(ds->type, &ds->operators, x, y, n, base);
    }
    free(x);
    free(y);
    for (size_t have = 1; second && have < ds->copies;) {
        size_t n = ds->copies - have < have ? ds->copies - have : have;
        check_cl(clEnqueueCopyBuffer(d->queue, ds->second, ds->second, 0, have * stride_bytes,
                                     n * stride_bytes, 0, NULL, NULL),
                 "clEnqueueCopyBuffer (copies of dot's second input)");
        have += n;
    }
    check_cl(clFinish(d->queue), "clFinish");
    ds->has_operators = 1;
}

void dataset_release(dataset *ds)
{
    if (ds->buffer)
        clReleaseMemObject(ds->buffer);
    if (ds->second)
        clReleaseMemObject(ds->second);
    for (size_t w = 0; w < ds->window_count; w++)
        free(ds->windows[w].input);
    free(ds->windows);
    memset(ds, 0, sizeof *ds);
}

size_t dataset_next_offset(dataset *ds)
{
    size_t offset = ds->cursor * ds->stride;
    ds->cursor = (ds->cursor + 1) % ds->copies;
    return offset;
}

/* The tolerance of a sum. A storage type's sum is a float, and its elements
 * are multiples of 1/4: while sum|x| is at most 2^22, every partial sum, in
 * whatever order it is taken, is a multiple of 1/4 of at most 2^22, which a
 * float holds exactly, so the sum must be exact; beyond, a float sum's
 * tolerance. */
static long double sum_tolerance(const dataset *ds)
{
    if (storage_type(ds->type) && ds->total.abs_sum <= 0x1p22L)
        return 0;
    return reference_tolerance(sum_type(ds->type), 0);
}

int dataset_check(const dataset *ds, clreduce_op op, const void *value, char *msg,
                  size_t msg_size)
{
    char why[512];
    if (op > CLREDUCE_OP_MAX) {
        if (!ds->has_operators)
            snprintf(why, sizeof why, "no reference computed");
        else if (operator_matches(ds->type, op, &ds->operators, value, why, sizeof why))
            return 1;
        snprintf(msg, msg_size, "%s = %s", clreduce_op_name(op), why);
        return 0;
    }
    if (reference_matches(sum_type(ds->type), op, &ds->total, value, sum_tolerance(ds), why,
                          sizeof why))
        return 1;
    snprintf(msg, msg_size, "%s = %s", clreduce_op_name(op), why);
    return 0;
}
