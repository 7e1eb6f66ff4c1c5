/* unit.huge (meson test suite "huge", not "device": it needs about 20 GB of
 * device memory): reductions of more than 2^32 elements.
 *
 * Fills one device buffer with CLREDUCE_HUGE_COUNT int32 elements (default
 * 5e9, 20 GB; "4294967296+1000" and "1e7" are accepted) from a generator
 * over the 64-bit index, in chunks through one reused host chunk, while the
 * CPU computes the exact expected sum (wrapping modulo 2^32, as the library
 * defines int32 sums), minimum and maximum of the whole buffer and of its
 * tail from an offset beyond 2^32 (count/3 when the count is smaller). The
 * extreme values are planted where an index that lost its high bits would
 * miss them: beyond 2^32, on the tail's first element and on the element
 * just before it. Then sum, min and max run with the AUTO,
 * SINGLE_PASS and GRID_STRIDE variants over both ranges, each compared with
 * the expected value and timed.
 *
 * Before that, cheap checks that need no memory: counts whose bytes exceed
 * the device's largest allocation get CLREDUCE_ERROR_OUT_OF_MEMORY from the
 * host entry points, and absurd counts (SIZE_MAX, SIZE_MAX/4 + 1, offset +
 * count past SIZE_MAX) get CLREDUCE_ERROR_INVALID_ARGUMENT from the cl_mem
 * ones, never a wrap-around.
 *
 * Exits 77 (skipped) when the device cannot hold the buffer: the count's
 * bytes above CL_DEVICE_MAX_MEM_ALLOC_SIZE, or above its global memory less
 * 256 MiB. Prints what a record of the run needs: device, driver, count,
 * bytes, every result with its expected value and time, PASS or FAIL. */
#include <clreduce/clreduce.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "test_common.h"

#define SKIP 77
#define DEFAULT_COUNT UINT64_C(5000000000)
#define CHUNK_ELEMENTS ((size_t)64 << 20) /* 256 MiB of int32 */
#define TWO_32 (UINT64_C(1) << 32)

static int g_failures;

static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints one line of the record, with PASS or FAIL. */
static void check(int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s  ", ok ? "PASS" : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    va_end(ap);
    if (!ok)
        g_failures++;
}

/* "5e9", "10000000", "4294967296+1000": a sum of terms, each an integer or
 * a number in exponent notation that is a whole number. */
static int parse_count(const char *text, uint64_t *out)
{
    uint64_t total = 0;
    const char *p = text;
    for (;;) {
        char *end;
        errno = 0;
        double d = strtod(p, &end);
        if (end == p || errno || d < 0 || d >= 18446744073709551616.0)
            return -1;
        uint64_t term = (uint64_t)d;
        if ((double)term != d)
            return -1;
        /* Exact for integers written out in full, beyond double's 2^53. */
        if (strspn(p, "0123456789") == (size_t)(end - p))
            term = strtoull(p, NULL, 10);
        if (term > UINT64_MAX - total)
            return -1;
        total += term;
        if (*end == '\0')
            break;
        if (*end != '+')
            return -1;
        p = end + 1;
    }
    *out = total;
    return 0;
}

/* ---- the data ------------------------------------------------------------------ */

typedef struct layout {
    uint64_t count;
    uint64_t offset;     /* the tail is [offset, count) */
    uint64_t plant[5];   /* indices of the planted values */
    int32_t planted[5];
} layout;

static void make_layout(uint64_t count, layout *l)
{
    l->count = count;
    l->offset = count > TWO_32 + (1u << 20) ? TWO_32 + 17 : count / 3;
    /* The whole buffer's max and min a little before the tail (its min on
     * the last element before it), the tail's max on its first element and
     * its min further on, and a value on the last element: with more than
     * 2^32 + 2^20 elements, all of them beyond 2^32. */
    l->plant[0] = l->offset - 12;
    l->planted[0] = INT32_MAX - 1;
    l->plant[1] = l->offset - 1;
    l->planted[1] = INT32_MIN + 1;
    l->plant[2] = l->offset;
    l->planted[2] = INT32_MAX - 2;
    l->plant[3] = count > TWO_32 + (1u << 20) ? TWO_32 + 777777 : count - count / 5;
    l->planted[3] = INT32_MIN + 2;
    l->plant[4] = count - 1;
    l->planted[4] = INT32_MAX - 3;
}

/* Element i: in [-10^9, 10^9], or a planted value. */
static int32_t element(const layout *l, uint64_t i)
{
    for (int k = 0; k < 5; k++)
        if (i == l->plant[k])
            return l->planted[k];
    uint64_t z = i + UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    z ^= z >> 31;
    return (int32_t)(z % 2000000001u) - 1000000000;
}

typedef struct expected {
    uint32_t sum; /* int32 sums wrap modulo 2^32 */
    int32_t min, max;
} expected;

static void expect_init(expected *e)
{
    e->sum = 0;
    e->min = INT32_MAX;
    e->max = INT32_MIN;
}

static void expect_add(expected *e, int32_t v)
{
    e->sum += (uint32_t)v;
    if (v < e->min)
        e->min = v;
    if (v > e->max)
        e->max = v;
}

/* ---- checks without memory ----------------------------------------------------------- */

/* Counts past the device's largest allocation, and absurd ones. */
static void check_count_limits(clreduce_ctx *ctx, cl_ulong max_alloc)
{
    int32_t result = 0x5a5a5a5a;
    int32_t small[16] = {0};
    clreduce_status s;

    /* A real host array one element larger than the device can allocate:
     * reserved address space, never touched. */
    size_t over = (size_t)(max_alloc / 4) + 1;
    void *big = mmap(NULL, over * 4, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
    if (big != MAP_FAILED) {
        s = clreduce_reduce_host(ctx, CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_AUTO, big, over,
                                 &result);
        check(s == CLREDUCE_ERROR_OUT_OF_MEMORY && result == 0x5a5a5a5a &&
                  strstr(clreduce_last_error(ctx), "CL_DEVICE_MAX_MEM_ALLOC_SIZE"),
              "reduce_host of %zu int32 (%zu bytes, 4 more than the largest allocation): %s: %s",
              over, over * 4, clreduce_status_string(s), clreduce_last_error(ctx));
        s = clreduce_scan_host(ctx, CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_INCLUSIVE,
                               CLREDUCE_SCAN_AUTO, big, over, big);
        check(s == CLREDUCE_ERROR_OUT_OF_MEMORY &&
                  strstr(clreduce_last_error(ctx), "CL_DEVICE_MAX_MEM_ALLOC_SIZE"),
              "scan_host of %zu int32 in place: %s: %s", over, clreduce_status_string(s),
              clreduce_last_error(ctx));
        munmap(big, over * 4);
    } else {
        printf("note: could not reserve %zu bytes of address space: the largest-allocation "
               "check of reduce_host is left out\n",
               over * 4);
    }
    /* Counts whose bytes wrap around size_t: the library must not compute
     * them. The array is small; nothing may read past it. */
    const size_t absurd[] = {SIZE_MAX, SIZE_MAX / 4 + 1, SIZE_MAX / 2 + 1};
    for (size_t i = 0; i < sizeof absurd / sizeof absurd[0]; i++) {
        s = clreduce_reduce_host(ctx, CLREDUCE_OP_MAX, CLREDUCE_INT32, CLREDUCE_AUTO, small,
                                 absurd[i], &result);
        check(s == CLREDUCE_ERROR_OUT_OF_MEMORY && result == 0x5a5a5a5a,
              "reduce_host, count %zu: %s: %s", absurd[i], clreduce_status_string(s),
              clreduce_last_error(ctx));
    }

    cl_int err;
    cl_context cl = clreduce_get_cl_context(ctx);
    cl_command_queue q = clCreateCommandQueue(cl, clreduce_get_cl_device(ctx), 0, &err);
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof small, small,
                               &err);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof small, NULL, &err);
    if (!q || !in || !out) {
        check(0, "setting up buffers for the cl_mem checks: %d", (int)err);
        return;
    }
    const struct {
        size_t offset, count;
    } ranges[] = {{0, SIZE_MAX}, {0, SIZE_MAX / 4 + 1}, {4, SIZE_MAX / 4}, {SIZE_MAX - 5, 10},
                  {SIZE_MAX / 4 + 1, 1}, {1, SIZE_MAX}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        cl_event done = (cl_event)(uintptr_t)0x5e5e5e5e;
        s = clreduce_reduce(ctx, q, CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_AUTO, in,
                            ranges[i].offset, ranges[i].count, out, 0, 0, NULL, &done);
        check(s == CLREDUCE_ERROR_INVALID_ARGUMENT && done == (cl_event)(uintptr_t)0x5e5e5e5e,
              "reduce of 16 int32, offset %zu, count %zu: %s: %s", ranges[i].offset,
              ranges[i].count, clreduce_status_string(s), clreduce_last_error(ctx));
        s = clreduce_scan(ctx, q, CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_INCLUSIVE,
                          CLREDUCE_SCAN_AUTO, in, ranges[i].offset, ranges[i].count, out, 0, 0,
                          NULL, &done);
        check(s == CLREDUCE_ERROR_INVALID_ARGUMENT && done == (cl_event)(uintptr_t)0x5e5e5e5e,
              "scan of 16 int32, offset %zu, count %zu: %s: %s", ranges[i].offset,
              ranges[i].count, clreduce_status_string(s), clreduce_last_error(ctx));
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseCommandQueue(q);
}

/* ---- filling the device buffer ------------------------------------------------------- */

/* One thread's share of a chunk: the elements and what they add to the
 * expected values. */
typedef struct part {
    const layout *l;
    uint64_t start; /* index of dst[0] */
    size_t n;
    int32_t *dst;
    expected all, tail;
} part;

static void *generate_part(void *arg)
{
    part *p = arg;
    expect_init(&p->all);
    expect_init(&p->tail);
    for (size_t j = 0; j < p->n; j++) {
        int32_t v = element(p->l, p->start + j);
        p->dst[j] = v;
        expect_add(&p->all, v);
        if (p->start + j >= p->l->offset)
            expect_add(&p->tail, v);
    }
    return NULL;
}

static void expect_merge(expected *e, const expected *share)
{
    e->sum += share->sum;
    if (share->min < e->min)
        e->min = share->min;
    if (share->max > e->max)
        e->max = share->max;
}

#define MAX_THREADS 16

/* Generates elements [start, start + n) into dst on the CPU's cores. */
static void generate(const layout *l, uint64_t start, size_t n, int32_t *dst, expected *all,
                     expected *tail)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nthreads = cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : (size_t)cores;
    part parts[MAX_THREADS];
    pthread_t threads[MAX_THREADS];
    int started[MAX_THREADS];
    size_t per = (n + nthreads - 1) / nthreads;
    for (size_t t = 0; t < nthreads; t++) {
        size_t from = t * per < n ? t * per : n;
        size_t to = from + per < n ? from + per : n;
        parts[t] = (part){l, start + from, to - from, dst + from, {0, 0, 0}, {0, 0, 0}};
        started[t] = pthread_create(&threads[t], NULL, generate_part, &parts[t]) == 0;
        if (!started[t])
            generate_part(&parts[t]);
    }
    for (size_t t = 0; t < nthreads; t++) {
        if (started[t])
            pthread_join(threads[t], NULL);
        expect_merge(all, &parts[t].all);
        expect_merge(tail, &parts[t].tail);
    }
}

/* Writes element(l, i) for every i to `buffer` through two host chunks in
 * turn (one filled while the other is written), and computes what the
 * reductions must give over the whole buffer and over its tail. */
static int fill(cl_command_queue q, cl_mem buffer, const layout *l, expected *all,
                expected *tail)
{
    int32_t *chunk[2];
    cl_event written[2] = {NULL, NULL};
    chunk[0] = malloc(CHUNK_ELEMENTS * sizeof(int32_t));
    chunk[1] = malloc(CHUNK_ELEMENTS * sizeof(int32_t));
    if (!chunk[0] || !chunk[1]) {
        fprintf(stderr, "out of host memory for two chunks of %zu bytes\n",
                CHUNK_ELEMENTS * sizeof(int32_t));
        free(chunk[0]);
        free(chunk[1]);
        return -1;
    }
    expect_init(all);
    expect_init(tail);
    int ok = 0;
    int c = 0;
    for (uint64_t start = 0; start < l->count; start += CHUNK_ELEMENTS, c ^= 1) {
        size_t n = l->count - start < CHUNK_ELEMENTS ? (size_t)(l->count - start) : CHUNK_ELEMENTS;
        if (written[c]) { /* the chunk's previous write must be done */
            clWaitForEvents(1, &written[c]);
            clReleaseEvent(written[c]);
            written[c] = NULL;
        }
        generate(l, start, n, chunk[c], all, tail);
        cl_int err = clEnqueueWriteBuffer(q, buffer, CL_FALSE, (size_t)start * sizeof(int32_t),
                                          n * sizeof(int32_t), chunk[c], 0, NULL, &written[c]);
        if (err != CL_SUCCESS) {
            fprintf(stderr, "clEnqueueWriteBuffer at element %" PRIu64 " failed: %s\n", start,
                    clreduce_opencl_error_name(err));
            ok = -1;
            break;
        }
        clFlush(q);
    }
    clFinish(q);
    for (int i = 0; i < 2; i++)
        if (written[i])
            clReleaseEvent(written[i]);
    free(chunk[0]);
    free(chunk[1]);
    return ok;
}

/* ---- the reductions ---------------------------------------------------------------- */

static void run_reduction(clreduce_ctx *ctx, cl_command_queue q, cl_mem buffer, cl_mem result,
                          clreduce_op op, clreduce_variant variant, uint64_t offset,
                          uint64_t count, const expected *e)
{
    const char *range = offset ? "tail" : "all ";
    if (clreduce_check_support(ctx, op, CLREDUCE_INT32, variant) != CLREDUCE_SUCCESS) {
        printf("SKIP  %-3s %-11s %s: %s\n", clreduce_op_name(op), clreduce_variant_name(variant),
               range, clreduce_last_error(ctx));
        return;
    }
    int32_t want = op == CLREDUCE_OP_SUM ? (int32_t)e->sum
                   : op == CLREDUCE_OP_MIN ? e->min
                                           : e->max;
    /* The kernel is built by a call over a few elements first, so that the
     * time is the reduction's alone. */
    cl_event first = NULL, done = NULL;
    clreduce_status s = clreduce_reduce(ctx, q, op, CLREDUCE_INT32, variant, buffer, 0, 1000,
                                        result, 0, 0, NULL, &done);
    if (s == CLREDUCE_SUCCESS) {
        clWaitForEvents(1, &done);
        clReleaseEvent(done);
    }
    double t0 = tc_now_seconds();
    if (s == CLREDUCE_SUCCESS)
        s = clreduce_reduce_profiled(ctx, q, op, CLREDUCE_INT32, variant, buffer, (size_t)offset,
                                     (size_t)(count - offset), result, 0, 0, NULL, &first, &done);
    int32_t got = 0;
    double seconds = 0, device_seconds = 0;
    if (s == CLREDUCE_SUCCESS) {
        clWaitForEvents(1, &done);
        seconds = tc_now_seconds() - t0;
        cl_ulong start = 0, end = 0;
        if (clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof start, &start,
                                    NULL) == CL_SUCCESS &&
            clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) ==
                CL_SUCCESS &&
            end > start)
            device_seconds = (double)(end - start) * 1e-9;
        clReleaseEvent(first);
        clReleaseEvent(done);
        if (clEnqueueReadBuffer(q, result, CL_TRUE, 0, sizeof got, &got, 0, NULL, NULL) !=
            CL_SUCCESS)
            s = CLREDUCE_ERROR_OPENCL;
    }
    double gb = (double)(count - offset) * 4 / 1e9;
    if (s != CLREDUCE_SUCCESS) {
        check(0, "%-3s %-11s %s [%" PRIu64 ", %" PRIu64 "): %s: %s", clreduce_op_name(op),
              clreduce_variant_name(variant), range, offset, count, clreduce_status_string(s),
              clreduce_last_error(ctx));
        return;
    }
    check(got == want,
          "%-3s %-11s %s [%" PRIu64 ", %" PRIu64 "): got %" PRId32 ", expected %" PRId32
          "; %.3f s wall, %.3f s device, %.1f GB/s",
          clreduce_op_name(op), clreduce_variant_name(variant), range, offset, count, got, want,
          seconds, device_seconds, device_seconds > 0 ? gb / device_seconds : gb / seconds);
}

static void print_device(clreduce_ctx *ctx, cl_ulong *max_alloc, cl_ulong *global)
{
    cl_device_id d = clreduce_get_cl_device(ctx);
    char name[256] = "?", driver[256] = "?", version[256] = "?", platform_name[256] = "?";
    cl_platform_id platform = NULL;
    clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    clGetDeviceInfo(d, CL_DRIVER_VERSION, sizeof driver - 1, driver, NULL);
    clGetDeviceInfo(d, CL_DEVICE_VERSION, sizeof version - 1, version, NULL);
    clGetDeviceInfo(d, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
    clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof platform_name - 1, platform_name, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof *max_alloc, max_alloc, NULL);
    clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof *global, global, NULL);
    printf("device: %s\nplatform: %s\nversion: %s\ndriver: %s\nclreduce: %s\n", name,
           platform_name, version, driver, clreduce_version());
    printf("global memory: %llu bytes; largest allocation: %llu bytes\n",
           (unsigned long long)*global, (unsigned long long)*max_alloc);
}

int main(void)
{
    uint64_t count = DEFAULT_COUNT;
    const char *env = getenv("CLREDUCE_HUGE_COUNT");
    if (env && *env && parse_count(env, &count) != 0) {
        fprintf(stderr, "CLREDUCE_HUGE_COUNT=\"%s\" is not a count (e.g. 5e9, 10000000, "
                        "4294967296+1000)\n",
                env);
        return 2;
    }
    if (count < 1000) {
        fprintf(stderr, "CLREDUCE_HUGE_COUNT must be at least 1000\n");
        return 2;
    }

    clreduce_ctx *ctx = NULL;
    clreduce_status s = clreduce_create_default(&ctx);
    if (s == CLREDUCE_ERROR_NO_DEVICE) {
        printf("SKIP: no OpenCL device: %s\n", clreduce_last_error(NULL));
        return SKIP;
    }
    if (s != CLREDUCE_SUCCESS) {
        fprintf(stderr, "clreduce_create_default: %s: %s\n", clreduce_status_string(s),
                clreduce_last_error(NULL));
        return 1;
    }
    cl_ulong max_alloc = 0, global = 0;
    print_device(ctx, &max_alloc, &global);

    check_count_limits(ctx, max_alloc);

    uint64_t bytes = count * 4;
    printf("count: %" PRIu64 " int32 elements (%s 2^32), %" PRIu64 " bytes\n", count,
           count > TWO_32 ? "more than" : "not more than", bytes);
    if (count > SIZE_MAX / 4 || bytes > max_alloc || bytes + (256u << 20) > global) {
        printf("SKIP: %" PRIu64 " bytes do not fit the device (largest allocation %llu, global "
               "memory %llu less 256 MiB); set CLREDUCE_HUGE_COUNT lower\n",
               bytes, (unsigned long long)max_alloc, (unsigned long long)global);
        clreduce_destroy(ctx);
        return g_failures ? 1 : SKIP;
    }

    cl_int err;
    cl_context cl = clreduce_get_cl_context(ctx);
    cl_command_queue q = clCreateCommandQueue(cl, clreduce_get_cl_device(ctx),
                                              CL_QUEUE_PROFILING_ENABLE, &err);
    cl_mem buffer = err == CL_SUCCESS ? clCreateBuffer(cl, CL_MEM_READ_ONLY, (size_t)bytes, NULL,
                                                       &err)
                                      : NULL;
    cl_mem result = err == CL_SUCCESS ? clCreateBuffer(cl, CL_MEM_READ_WRITE, 16, NULL, &err)
                                      : NULL;
    if (err != CL_SUCCESS) {
        check(0, "allocating %" PRIu64 " bytes on the device: %s", bytes,
              clreduce_opencl_error_name(err));
        return 1;
    }

    layout l;
    make_layout(count, &l);
    expected all, tail;
    double t0 = tc_now_seconds();
    if (fill(q, buffer, &l, &all, &tail) != 0)
        return 1;
    printf("filled in %.1f s; tail from offset %" PRIu64 " (%s 2^32); planted at %" PRIu64
           ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 "\n",
           tc_now_seconds() - t0, l.offset, l.offset >= TWO_32 ? "beyond" : "below", l.plant[0],
           l.plant[1], l.plant[2], l.plant[3], l.plant[4]);
    printf("expected: all sum %" PRId32 " min %" PRId32 " max %" PRId32 "; tail sum %" PRId32
           " min %" PRId32 " max %" PRId32 "\n",
           (int32_t)all.sum, all.min, all.max, (int32_t)tail.sum, tail.min, tail.max);

    const clreduce_op ops[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_MAX};
    const clreduce_variant variants[] = {CLREDUCE_AUTO, CLREDUCE_SINGLE_PASS,
                                         CLREDUCE_GRID_STRIDE};
    printf("auto is %s on this device\n",
           clreduce_variant_name(clreduce_auto_variant(ctx, CLREDUCE_INT32)));
    for (size_t v = 0; v < 3; v++)
        for (size_t o = 0; o < 3; o++) {
            run_reduction(ctx, q, buffer, result, ops[o], variants[v], 0, count, &all);
            run_reduction(ctx, q, buffer, result, ops[o], variants[v], l.offset, count, &tail);
        }

    clReleaseMemObject(result);
    clReleaseMemObject(buffer);
    clReleaseCommandQueue(q);
    clreduce_destroy(ctx);
    printf("huge: %s (%d failed)\n", g_failures ? "FAIL" : "PASS", g_failures);
    return g_failures ? 1 : 0;
}
