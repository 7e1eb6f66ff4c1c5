/* clreduce-bench: random input on the device, its reference results, and the
 * check of a result against them.
 *
 * The data are generated on the host in chunks (never the whole array at
 * once), written to the first copy in the device buffer, and the references
 * accumulated on the way. One element is set to a value below the range of
 * the others and another to a value above it, at random positions, so that a
 * min or max that skips elements is caught.
 *
 * For scans, the input of a few windows (scan.c chooses them) is kept on the
 * host too, with the prefix of every operator before each window, so that a
 * scan's output can be checked there without the whole input on the host.
 *
 * Ranges: float and double uniform in [-1, 1); int32 in [-1000, 1000];
 * uint32 in [1, 2000]; int64 in [-10^6, 10^6]; uint64 in [1, 2*10^6]. Integer
 * sums may wrap around; the reference wraps the same way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define CHUNK ((size_t)1 << 22)
#define ALIGN_BYTES 512

cl_ulong device_buffer_limit(const bench_device *d)
{
    cl_ulong limit = d->global_mem / 10 * 4;
    return d->max_alloc < limit ? d->max_alloc : limit;
}

cl_ulong working_set_target(const bench_device *d)
{
    cl_ulong target = 4 * d->cache_size;
    cl_ulong floor_bytes = (cl_ulong)256 << 20;
    return target > floor_bytes ? target : floor_bytes;
}

typedef struct accum {
    long double sum, comp, abs_sum;
    double block_sum, block_abs; /* float: blocks of 4096 in double */
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

/* Fills n elements starting at global index `base`. */
static void generate(clreduce_type type, void *host, size_t n, size_t base, rng *r,
                     size_t plant_min, size_t plant_max, int plant, accum *a, void *mn, void *mx)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t x = rng_next(r);
        size_t g = base + i;
        int lo = plant && g == plant_min, hi = plant && g == plant_max;
        switch (type) {
        case CLREDUCE_FLOAT: {
            float v = (float)((int32_t)(x >> 40) - (1 << 23)) * 0x1p-23f;
            if (lo)
                v = -1.5f;
            if (hi)
                v = 1.5f;
            ((float *)host)[i] = v;
            accum_fp_float(a, v);
            if (g == 0 || v < *(float *)mn)
                *(float *)mn = v;
            if (g == 0 || v > *(float *)mx)
                *(float *)mx = v;
            break;
        }
        case CLREDUCE_DOUBLE: {
            double v = (double)((int64_t)(x >> 11) - ((int64_t)1 << 52)) * 0x1p-52;
            if (lo)
                v = -1.5;
            if (hi)
                v = 1.5;
            ((double *)host)[i] = v;
            accum_fp_long(a, v);
            if (g == 0 || v < *(double *)mn)
                *(double *)mn = v;
            if (g == 0 || v > *(double *)mx)
                *(double *)mx = v;
            break;
        }
        case CLREDUCE_INT32: {
            int32_t v = (int32_t)((x >> 32) % 2001) - 1000;
            if (lo)
                v = -1001;
            if (hi)
                v = 1001;
            ((int32_t *)host)[i] = v;
            a->isum += (uint64_t)(int64_t)v;
            if (g == 0 || v < *(int32_t *)mn)
                *(int32_t *)mn = v;
            if (g == 0 || v > *(int32_t *)mx)
                *(int32_t *)mx = v;
            break;
        }
        case CLREDUCE_UINT32: {
            uint32_t v = (uint32_t)((x >> 32) % 2000) + 1;
            if (lo)
                v = 0;
            if (hi)
                v = 2001;
            ((uint32_t *)host)[i] = v;
            a->isum += v;
            if (g == 0 || v < *(uint32_t *)mn)
                *(uint32_t *)mn = v;
            if (g == 0 || v > *(uint32_t *)mx)
                *(uint32_t *)mx = v;
            break;
        }
        case CLREDUCE_INT64: {
            int64_t v = (int64_t)((x >> 16) % 2000001) - 1000000;
            if (lo)
                v = -1000001;
            if (hi)
                v = 1000001;
            ((int64_t *)host)[i] = v;
            a->isum += (uint64_t)v;
            if (g == 0 || v < *(int64_t *)mn)
                *(int64_t *)mn = v;
            if (g == 0 || v > *(int64_t *)mx)
                *(int64_t *)mx = v;
            break;
        }
        case CLREDUCE_UINT64: {
            uint64_t v = (x >> 16) % 2000000 + 1;
            if (lo)
                v = 0;
            if (hi)
                v = 2000001;
            ((uint64_t *)host)[i] = v;
            a->isum += v;
            if (g == 0 || v < *(uint64_t *)mn)
                *(uint64_t *)mn = v;
            if (g == 0 || v > *(uint64_t *)mx)
                *(uint64_t *)mx = v;
            break;
        }
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
        memcpy(out->min, ds->ref_min, ds->esize);
        memcpy(out->max, ds->ref_max, ds->esize);
    }
}

void dataset_create(const bench_device *d, clreduce_type type, size_t count, uint64_t seed,
                    cl_ulong min_working_set, dataset *ds)
{
    dataset_create_with_windows(d, type, count, seed, min_working_set, device_buffer_limit(d),
                                NULL, 0, ds);
}

void dataset_create_with_windows(const bench_device *d, clreduce_type type, size_t count,
                                 uint64_t seed, cl_ulong min_working_set, cl_ulong max_bytes,
                                 scan_window *windows, size_t window_count, dataset *ds)
{
    memset(ds, 0, sizeof *ds);
    ds->windows = windows;
    ds->window_count = window_count;
    ds->type = type;
    ds->count = count;
    ds->esize = clreduce_type_size(type);
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
    ds->result = clCreateBuffer(d->context, CL_MEM_READ_WRITE, 8, NULL, &err);
    check_cl(err, "clCreateBuffer (result)");

    size_t chunk = count < CHUNK ? count : CHUNK;
    void *host = malloc(chunk * ds->esize);
    if (!host)
        fatal("out of host memory (%zu bytes)", chunk * ds->esize);
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
                     plant_min, plant_max, plant, &a, ds->ref_min, ds->ref_max);
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
    ds->ref_sum_fp = a.sum + a.comp;
    ds->abs_sum = a.abs_sum;
    ds->ref_sum_int = ds->esize == 4 ? (uint32_t)a.isum : a.isum;

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

void dataset_release(dataset *ds)
{
    if (ds->buffer)
        clReleaseMemObject(ds->buffer);
    if (ds->result)
        clReleaseMemObject(ds->result);
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

void format_value(clreduce_type type, const void *v, char *out, size_t size)
{
    switch (type) {
    case CLREDUCE_FLOAT: snprintf(out, size, "%.9g", (double)*(const float *)v); break;
    case CLREDUCE_DOUBLE: snprintf(out, size, "%.17g", *(const double *)v); break;
    case CLREDUCE_INT32: snprintf(out, size, "%d", (int)*(const int32_t *)v); break;
    case CLREDUCE_UINT32: snprintf(out, size, "%u", (unsigned)*(const uint32_t *)v); break;
    case CLREDUCE_INT64:
        snprintf(out, size, "%lld", (long long)*(const int64_t *)v);
        break;
    case CLREDUCE_UINT64:
        snprintf(out, size, "%llu", (unsigned long long)*(const uint64_t *)v);
        break;
    }
}

int dataset_check(const dataset *ds, clreduce_op op, const void *value, char *msg,
                  size_t msg_size)
{
    char got[64], want[64];
    format_value(ds->type, value, got, sizeof got);
    if (op != CLREDUCE_OP_SUM) {
        const void *ref = op == CLREDUCE_OP_MIN ? ds->ref_min : ds->ref_max;
        if (memcmp(value, ref, ds->esize) == 0)
            return 1;
        format_value(ds->type, ref, want, sizeof want);
        snprintf(msg, msg_size, "%s = %s, expected %s", clreduce_op_name(op), got, want);
        return 0;
    }
    if (ds->type == CLREDUCE_FLOAT || ds->type == CLREDUCE_DOUBLE) {
        long double v = ds->type == CLREDUCE_FLOAT ? (long double)*(const float *)value
                                                   : (long double)*(const double *)value;
        long double tol = (ds->type == CLREDUCE_FLOAT ? 1e-5L : 1e-12L) * ds->abs_sum;
        long double diff = fabsl(v - ds->ref_sum_fp);
        if (diff <= tol) /* false for NaN */
            return 1;
        snprintf(msg, msg_size, "sum = %s, expected %.17Lg (|difference| %.3Lg > tolerance %.3Lg)",
                 got, ds->ref_sum_fp, diff, tol);
        return 0;
    }
    uint64_t bits = 0;
    if (ds->esize == 4) {
        uint32_t u;
        memcpy(&u, value, 4);
        bits = u;
    } else {
        memcpy(&bits, value, 8);
    }
    if (bits == ds->ref_sum_int)
        return 1;
    unsigned char ref[8];
    if (ds->esize == 4) {
        uint32_t u = (uint32_t)ds->ref_sum_int;
        memcpy(ref, &u, 4);
    } else {
        memcpy(ref, &ds->ref_sum_int, 8);
    }
    format_value(ds->type, ref, want, sizeof want);
    snprintf(msg, msg_size, "sum = %s, expected %s (exact, wrapping)", got, want);
    return 0;
}
