/* unit.faults: every OpenCL call the library makes can fail, and each
 * failure leaves the caller with a clear status, no leaked OpenCL object,
 * the output as clreduce.h promises and a context that still works.
 *
 * The program is linked with the library's static archive and with
 * fault_shim.c, which stands between the library and the OpenCL runtime.
 * For each scenario (a reduction, a scan or a reduction of segments of one
 * kind: variant, entry point, queue, count, in place or not, state of the
 * caches, launches of the segments) the test first
 * runs the call once and counts its OpenCL calls, N. Then, for every k in
 * 1..N, it makes call k fail the way a runtime would (on a fresh context for
 * a first call, which builds; over and over on one context for a call that
 * finds its program cached), and also each call made only on the way out
 * of that failure (waiting for the commands already enqueued, reading the
 * build log, asking again for memory) as a second failure. After each it
 * checks:
 *  - the status is the one for the error (status_from_cl in src/error.c:
 *    CLREDUCE_ERROR_OUT_OF_MEMORY for allocation failures, _BUILD for a
 *    failed build, _OPENCL otherwise) and the message names the error;
 *  - the done event is not returned, nothing around the output is written,
 *    and neither is the output (the result element, or the scan's range)
 *    except where clreduce.h says a runtime failure after the first command
 *    may leave it written: the atomic reduction's identity fill, the
 *    classic scans' blocks (the segments' results, never);
 *  - no event is left alive by the failed call;
 *  - a call without a fault on the same context gives the right result on
 *    fresh random data, after which the OpenCL objects alive are exactly
 *    those of a context that never saw a fault, and destroying the context
 *    leaves exactly those alive before it was created.
 * The only calls whose failure does not fail the operation are those of the
 * disk cache of program binaries (a binary that does not load, or whose
 * kernels cannot be created, is compiled from source; one that cannot be
 * read back is not stored) and the growth
 * of the look-back's scratch (twice the old size is asked first, then what
 * is needed). There the call must succeed with the right result.
 *
 * clreduce_create() and clreduce_create_default() are failed at every call
 * as well: an error with a message, or a context that works; nothing leaks.
 *
 * The scenarios are listed in test_faults_scenarios.c, the create functions'
 * faults run in test_faults_create.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_faults.h"

cl_context g_cl;
cl_device_id g_device;
static cl_command_queue g_queue;     /* in-order; also reads the results */
static cl_command_queue g_ooo_queue; /* out-of-order, or NULL */
char g_cache_dir[4096];

/* Totals over the run, printed at the end. */
#define MAX_SITES 1024
static const void *g_sites[MAX_SITES];
static size_t g_nsites;
unsigned long g_faults;                   /* calls failed alone (k values) */
static unsigned long g_second_faults;     /* and a second on the way out */
static unsigned long g_fallbacks;         /* disk cache failures that fell back */
static unsigned long g_retries;           /* allocations asked again for less */
static unsigned long g_written;           /* documented partial writes */

void note_failed_sites(const unsigned *fail, size_t n)
{
    const fault_call *calls;
    size_t m = fault_trace(&calls);
    for (size_t i = 0; i < n; i++) {
        if (fail[i] == 0 || fail[i] > m)
            continue;
        const void *site = calls[fail[i] - 1].site;
        size_t j = 0;
        while (j < g_nsites && g_sites[j] != site)
            j++;
        if (j == g_nsites && g_nsites < MAX_SITES)
            g_sites[g_nsites++] = site;
    }
}

/* The mapping that docs/RELIABILITY.md guarantees ("Fault injection"),
 * written out here rather than taken from status_from_cl in src/error.c:
 * it is what the library's mapping is checked against. */
clreduce_status expected_status(cl_int err)
{
    switch (err) {
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_HOST_MEMORY:
    case CL_OUT_OF_RESOURCES:
        return CLREDUCE_ERROR_OUT_OF_MEMORY;
    case CL_BUILD_PROGRAM_FAILURE:
        return CLREDUCE_ERROR_BUILD;
    default:
        return CLREDUCE_ERROR_OPENCL;
    }
}

/* Whether call k (from 1) of a trace belongs to the disk cache of program
 * binaries, whose failures fall back instead of failing: loading a binary
 * (clCreateProgramWithBinary, the clBuildProgram right after it, and the
 * clCreateKernel calls of the loaded program) and reading one back to store
 * it (clGetProgramInfo). */
static int is_disk_cache_call(const fault_call *calls, size_t n, unsigned k)
{
    const char *f = calls[k - 1].function;
    if (strcmp(f, "clCreateProgramWithBinary") == 0 || strcmp(f, "clGetProgramInfo") == 0)
        return 1;
    if (strcmp(f, "clBuildProgram") == 0)
        return k >= 2 && k - 2 < n &&
               strcmp(calls[k - 2].function, "clCreateProgramWithBinary") == 0;
    if (strcmp(f, "clCreateKernel") != 0)
        return 0;
    for (unsigned i = k - 1; i >= 1 && i <= n; i--) {
        const char *g = calls[i - 1].function;
        if (strcmp(g, "clCreateKernel") != 0 && strcmp(g, "clBuildProgram") != 0)
            return strcmp(g, "clCreateProgramWithBinary") == 0;
    }
    return 0;
}

void assert_live_equal(const char *what, const fault_objects *got, const fault_objects *want)
{
    if (memcmp(got, want, sizeof *got) != 0)
        print_error("%s: OpenCL objects alive (mem, event, kernel, program, queue, context): "
                    "%ld %ld %ld %ld %ld %ld, expected %ld %ld %ld %ld %ld %ld\n",
                    what, got->mem, got->event, got->kernel, got->program, got->queue,
                    got->context, want->mem, want->event, want->kernel, want->program,
                    want->queue, want->context);
    assert_memory_equal(got, want, sizeof *got);
}

static void empty_cache_dir(void)
{
    DIR *d = opendir(g_cache_dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4400];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", g_cache_dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}

/* ---- one call of a scenario -------------------------------------------------------- */

/* What a scenario's calls share: its buffers and host arrays. The output
 * region is what the call may write: the result buffer (reductions), the
 * output buffer, the input buffer (in-place scans) or the host array. */
typedef struct run_state {
    const scenario *s;
    size_t es;
    cl_command_queue queue;
    cl_mem input;         /* ENTRY_MEM: offset + count + 3 elements */
    cl_mem output;        /* ENTRY_MEM: the input for in-place scans */
    size_t region_count;  /* elements of the output region */
    size_t range;         /* where in it the call writes: [range, range + range_count) */
    size_t range_count;
    unsigned char *before; /* the region before a call */
    unsigned char *after;  /* and after it */
    void *data;            /* the input range, fresh for every call */
    tc_value poison;
    /* Segments: segments + 1 offsets into the input range, the same for
     * every call, on the host and (ENTRY_MEM) in a buffer from element
     * OFFSETS_AT. */
    uint32_t *offs;
    size_t segments;
    cl_mem offsets;
} run_state;

#define OFFSETS_AT 2

/* Segments of 0 to 400 elements, with one in sixteen of up to 5000 that
 * spans chunks, over the scenario's count. */
static void lay_out_segments(run_state *st, size_t count)
{
    st->offs = malloc((count + 2) * sizeof *st->offs);
    assert_non_null(st->offs);
    size_t at = 0;
    st->segments = 0;
    st->offs[0] = 0;
    while (at < count) {
        size_t len = tc_rand_below(16) == 0 ? tc_rand_below(5000) : tc_rand_below(401);
        at = len < count - at ? at + len : count;
        st->offs[++st->segments] = (uint32_t)at;
    }
}

typedef struct call_outcome {
    clreduce_status status;
    char message[512];
    int range_untouched;   /* the range holds what it held before */
    int margins_untouched; /* everything around it too */
    int correct;           /* the range holds the right result */
    char wrong[256];       /* if not, what is wrong */
    tc_value got;          /* reductions: the result element */
    int done_written;
    unsigned calls;           /* OpenCL calls counted */
    fault_objects live_after; /* right after the call, before its done is released */
} call_outcome;

/* How a call of the scenario is watched. */
typedef struct call_faults {
    int counted;                        /* count its OpenCL calls */
    unsigned fail[FAULT_MAX_FAILURES];  /* and fail these of them */
    size_t nfail;
} call_faults;

static const call_faults NOT_COUNTED = {0, {0}, 0};
static const call_faults COUNTED = {1, {0}, 0};

static void run_state_init(run_state *st, const scenario *s)
{
    memset(st, 0, sizeof *st);
    st->s = s;
    st->es = clreduce_type_size(s->type);
    tc_poison(s->op, s->type, &st->poison);
    if (s->operation == SEGMENTS) {
        lay_out_segments(st, s->count);
        st->region_count = s->entry == ENTRY_MEM ? s->result_offset + st->segments + 3
                                                 : st->segments + 2;
        st->range = s->entry == ENTRY_MEM ? s->result_offset : 1;
        st->range_count = st->segments;
    } else if (s->operation == REDUCE) {
        st->region_count = s->entry == ENTRY_MEM ? s->result_offset + 3 : 3;
        st->range = s->entry == ENTRY_MEM ? s->result_offset : 1;
        st->range_count = 1;
    } else if (s->entry == ENTRY_HOST) {
        st->region_count = s->count + 2;
        st->range = 1;
        st->range_count = s->count;
    } else if (s->in_place) {
        st->region_count = s->offset + s->count + 3;
        st->range = s->offset;
        st->range_count = s->count;
    } else {
        st->region_count = s->result_offset + s->count + 3;
        st->range = s->result_offset;
        st->range_count = s->count;
    }
    size_t bytes = st->region_count * st->es;
    st->before = malloc(bytes);
    st->after = malloc(bytes);
    st->data = malloc((s->count ? s->count : 1) * st->es);
    assert_non_null(st->before);
    assert_non_null(st->after);
    assert_non_null(st->data);

    if (s->entry == ENTRY_HOST)
        return;
    /* The input range sits between poisoned elements. */
    size_t total = s->offset + s->count + 3;
    unsigned char *poison = malloc(total * st->es);
    assert_non_null(poison);
    for (size_t i = 0; i < total; i++)
        tc_set(s->type, poison, i, &st->poison);
    cl_int err;
    st->input = clCreateBuffer(g_cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, total * st->es,
                               poison, &err);
    free(poison);
    assert_int_equal(err, CL_SUCCESS);
    if (s->operation == SEGMENTS) {
        size_t n = OFFSETS_AT + st->segments + 1;
        uint32_t *offs = malloc(n * sizeof *offs);
        assert_non_null(offs);
        for (size_t i = 0; i < n; i++)
            offs[i] = i < OFFSETS_AT ? UINT32_MAX : st->offs[i - OFFSETS_AT];
        st->offsets = clCreateBuffer(g_cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                     n * sizeof *offs, offs, &err);
        free(offs);
        assert_int_equal(err, CL_SUCCESS);
    }
    if (s->operation == SCAN && s->in_place) {
        st->output = st->input;
        clRetainMemObject(st->output);
    } else {
        st->output = clCreateBuffer(g_cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
    }
}

static void run_state_free(run_state *st)
{
    if (st->input)
        clReleaseMemObject(st->input);
    if (st->output)
        clReleaseMemObject(st->output);
    if (st->offsets)
        clReleaseMemObject(st->offsets);
    free(st->offs);
    free(st->before);
    free(st->after);
    free(st->data);
}

static int ranges_equal(const run_state *st, size_t from, size_t to)
{
    return memcmp(st->before + from * st->es, st->after + from * st->es, (to - from) * st->es) ==
           0;
}

/* One call of the scenario, on fresh random data unless `count` is not the
 * scenario's (a warm-up of another size). */
static void do_call_count(clreduce_ctx *ctx, run_state *st, const call_faults *f, size_t count,
                          call_outcome *out)
{
    const scenario *s = st->s;
    size_t es = st->es;
    memset(out, 0, sizeof *out);
    tc_fill_random(s->type, st->data, count);

    /* The region before the call: sentinel bytes, or for an in-place scan
     * the poisoned margins around the data. */
    size_t bytes = st->region_count * es;
    memset(st->before, TC_SENTINEL_BYTE, bytes);
    size_t range_count = s->operation == SCAN ? count : st->range_count;
    if (s->operation == SCAN && s->in_place) {
        if (s->entry == ENTRY_MEM)
            for (size_t i = 0; i < st->region_count; i++)
                tc_set(s->type, st->before, i, &st->poison);
        memcpy(st->before + st->range * es, st->data, count * es);
    }
    memcpy(st->after, st->before, bytes);

    cl_event done = TC_EVENT_SENTINEL;
    if (s->entry == ENTRY_MEM) {
        assert_int_equal(clEnqueueWriteBuffer(g_queue, st->output, CL_TRUE, 0, bytes, st->before,
                                              0, NULL, NULL),
                         CL_SUCCESS);
        if (count && !(s->operation == SCAN && s->in_place))
            assert_int_equal(clEnqueueWriteBuffer(g_queue, st->input, CL_TRUE, s->offset * es,
                                                  count * es, st->data, 0, NULL, NULL),
                             CL_SUCCESS);
        /* A blocking write only frees the host memory: the call may run on
         * another queue, so wait for the writes themselves. */
        assert_int_equal(clFinish(g_queue), CL_SUCCESS);
    }

    if (f->counted)
        fault_start_many(f->fail, f->nfail);
    unsigned char *host_range = st->after + st->range * es;
    if (s->operation == SEGMENTS && s->entry == ENTRY_HOST)
        out->status = clreduce_reduce_segments_host(ctx, s->op, s->type, st->data, count,
                                                    st->offs, CLREDUCE_UINT32, st->segments,
                                                    host_range);
    else if (s->operation == SEGMENTS)
        out->status = clreduce_reduce_segments(ctx, st->queue, s->op, s->type, st->input,
                                               s->offset, count, st->offsets, OFFSETS_AT,
                                               CLREDUCE_UINT32, st->segments, st->output,
                                               s->result_offset, 0, NULL, &done);
    else if (s->operation == REDUCE && s->entry == ENTRY_HOST)
        out->status = clreduce_reduce_host(ctx, s->op, s->type, (clreduce_variant)s->variant,
                                           st->data, count, host_range);
    else if (s->operation == REDUCE)
        out->status = clreduce_reduce(ctx, st->queue, s->op, s->type,
                                      (clreduce_variant)s->variant, st->input, s->offset, count,
                                      st->output, s->result_offset, 0, NULL, &done);
    else if (s->entry == ENTRY_HOST)
        out->status = clreduce_scan_host(ctx, s->op, s->type, s->kind,
                                         (clreduce_scan_variant)s->variant,
                                         s->in_place ? host_range : st->data, count, host_range);
    else
        out->status = clreduce_scan(ctx, st->queue, s->op, s->type, s->kind,
                                    (clreduce_scan_variant)s->variant, st->input, s->offset,
                                    count, st->output, s->in_place ? s->offset : s->result_offset,
                                    0, NULL, &done);
    if (f->counted)
        out->calls = fault_stop();
    snprintf(out->message, sizeof out->message, "%s", clreduce_last_error(ctx));
    fault_live(&out->live_after);
    out->done_written = done != TC_EVENT_SENTINEL;

    if (s->entry == ENTRY_MEM) {
        if (out->status == CLREDUCE_SUCCESS) {
            assert_true(out->done_written && done != NULL);
            assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
            assert_int_equal(clReleaseEvent(done), CL_SUCCESS);
        } else if (f->nfail > 1) {
            /* A second failure may have been of clWaitForEvents, on the way
             * out of the first: the commands enqueued before it may still
             * run. */
            assert_int_equal(clFinish(st->queue), CL_SUCCESS);
        }
        assert_int_equal(clEnqueueReadBuffer(g_queue, st->output, CL_TRUE, 0, bytes, st->after, 0,
                                             NULL, NULL),
                         CL_SUCCESS);
    }

    out->range_untouched = ranges_equal(st, st->range, st->range + range_count);
    out->margins_untouched = ranges_equal(st, 0, st->range) &&
                             ranges_equal(st, st->range + range_count, st->region_count);
    if (s->operation == SEGMENTS) {
        out->correct = 1;
        for (size_t i = 0; i < st->segments && out->correct; i++) {
            tc_value ref;
            long double abs_sum;
            size_t from = st->offs[i], n = st->offs[i + 1] - from;
            tc_reference(s->op, s->type, (const unsigned char *)st->data + from * es, n, &ref,
                         &abs_sum);
            tc_get(s->type, st->after, st->range + i, &out->got);
            out->correct = tc_matches(s->op, s->type, &out->got, &ref, abs_sum);
            if (!out->correct) {
                tc_got_want text = tc_format_got_want(s->type, &out->got, &ref);
                snprintf(out->wrong, sizeof out->wrong, "segment %zu of %zu: got %s, expected %s",
                         i, st->segments, text.got, text.want);
            }
        }
    } else if (s->operation == REDUCE) {
        tc_value ref;
        long double abs_sum;
        tc_reference(s->op, s->type, st->data, count, &ref, &abs_sum);
        tc_get(s->type, st->after, st->range, &out->got);
        out->correct = tc_matches(s->op, s->type, &out->got, &ref, abs_sum);
        if (!out->correct) {
            tc_got_want text = tc_format_got_want(s->type, &out->got, &ref);
            snprintf(out->wrong, sizeof out->wrong, "got %s, expected %s", text.got, text.want);
        }
    } else {
        out->correct = tc_scan_matches(s->op, s->type, s->kind, st->data, count, host_range,
                                    out->wrong, sizeof out->wrong);
    }
}

static void do_call(clreduce_ctx *ctx, run_state *st, const call_faults *f, call_outcome *out)
{
    do_call_count(ctx, st, f, st->s->count, out);
}

static void assert_correct(const call_outcome *o, const char *what)
{
    if (o->status != CLREDUCE_SUCCESS)
        print_error("%s: %s: %s\n", what, clreduce_status_string(o->status), o->message);
    assert_int_equal(o->status, CLREDUCE_SUCCESS);
    if (!o->correct)
        print_error("%s: %s\n", what, o->wrong);
    assert_true(o->correct);
    if (!o->margins_untouched)
        print_error("%s: elements around the output were written\n", what);
    assert_true(o->margins_untouched);
}

/* A context for the scenario: the default one, or one with its settings. */
static clreduce_ctx *new_context(const scenario *s)
{
    clreduce_ctx *ctx = NULL;
    if (!s->segment_passes) {
        assert_int_equal(clreduce_create(g_cl, g_device, &ctx), CLREDUCE_SUCCESS);
        return ctx;
    }
    clreduce_settings settings;
    clreduce_default_settings(&settings);
    settings.segment_passes = s->segment_passes;
    if (s->segment_passes == 1) {
        settings.work_group_size = 64;
        settings.vector_width = 1;
    }
    assert_int_equal(clreduce_create_with_settings(g_cl, g_device, &settings, &ctx),
                     CLREDUCE_SUCCESS);
    return ctx;
}

static clreduce_ctx *fresh_context(run_state *st)
{
    if (st->s->disk == DISK_COLD)
        empty_cache_dir();
    clreduce_ctx *ctx = new_context(st->s);
    if (st->s->warm) {
        call_outcome o;
        do_call_count(ctx, st, &NOT_COUNTED, st->s->warm_count ? st->s->warm_count : st->s->count,
                      &o);
        assert_correct(&o, "warm-up call");
    }
    return ctx;
}

void print_trace(const char *name, unsigned n)
{
    const fault_call *calls;
    size_t m = fault_trace(&calls);
    char line[8192];
    size_t used = 0;
    line[0] = '\0';
    for (size_t i = 0; i < m && used < sizeof line - 64; i++) {
        /* Runs of the same function as "name xN". */
        size_t j = i;
        while (j + 1 < m && strcmp(calls[j + 1].function, calls[i].function) == 0)
            j++;
        if (j > i)
            used += (size_t)snprintf(line + used, sizeof line - used, "%s%s x%zu",
                                     used ? ", " : "", calls[i].function, j - i + 1);
        else
            used += (size_t)snprintf(line + used, sizeof line - used, "%s%s", used ? ", " : "",
                                     calls[i].function);
        i = j;
    }
    print_message("%s: %u OpenCL calls: %s\n", name, n, line);
}

/* A failure the library gets over, so that the call succeeds. */
typedef enum recovery {
    RECOVERS_NOT,
    RECOVERS_DISK_CACHE, /* see is_disk_cache_call */
    RECOVERS_RETRY       /* an allocation asked again, for less */
} recovery;

/* How the call that failed call k recovered, judging by the calls it made
 * next (`run`, m of them). */
static recovery recovery_of(const fault_call *trace, unsigned n, unsigned k,
                            const fault_call *run, size_t m)
{
    if (is_disk_cache_call(trace, n, k))
        return RECOVERS_DISK_CACHE;
    if (strcmp(trace[k - 1].function, "clCreateBuffer") == 0 && k < m &&
        strcmp(run[k].function, "clCreateBuffer") == 0 && run[k].size < run[k - 1].size)
        return RECOVERS_RETRY;
    return RECOVERS_NOT;
}

/* Whether a command that writes the output range was enqueued before call
 * k failed, and the variant is one that clreduce.h allows to leave it
 * written then: the atomic reduction's identity fill, the two classic
 * scans' scans of single blocks. */
static int may_leave_range_written(const run_state *st, clreduce_ctx *ctx, const fault_call *run,
                                   unsigned k)
{
    const scenario *s = st->s;
    const char *writer = NULL;
    if (s->operation == REDUCE) {
        clreduce_variant v = s->variant == CLREDUCE_AUTO ? clreduce_auto_variant(ctx, s->type)
                                                        : (clreduce_variant)s->variant;
        if (v == CLREDUCE_ATOMIC)
            writer = "clEnqueueFillBuffer"; /* the identity fill */
    } else if (s->operation == SCAN && s->entry == ENTRY_MEM) {
        clreduce_scan_variant v = s->variant == CLREDUCE_SCAN_AUTO
                                      ? clreduce_auto_scan_variant(ctx, s->type)
                                      : (clreduce_scan_variant)s->variant;
        if (v == CLREDUCE_SCAN_HILLIS_STEELE || v == CLREDUCE_SCAN_BLELLOCH)
            writer = "clEnqueueNDRangeKernel"; /* the scans of single blocks */
    }
    if (!writer)
        return 0;
    for (unsigned i = 0; i + 1 < k; i++)
        if (strcmp(run[i].function, writer) == 0)
            return 1;
    return 0;
}

typedef struct tallies {
    unsigned fallbacks; /* disk cache failures that fell back */
    unsigned retries;   /* allocations asked again for less */
    unsigned written;   /* documented partial writes of the output */
    unsigned second;    /* runs with a second failure on the way out */
} tallies;

/* Runs the call with the failures of `f` on `shared`, or on a fresh context
 * in the scenario's state, and checks everything the file's header lists.
 * Returns the number of OpenCL calls the failing call made, and in *how how
 * it recovered. */
static unsigned fault_once(run_state *st, clreduce_ctx *shared, const fault_call *trace,
                           unsigned n, const call_faults *f, const fault_objects *reference,
                           const fault_objects *before, tallies *t, recovery *how)
{
    const scenario *s = st->s;
    unsigned k = f->fail[0];
    char what[320];
    if (f->nfail > 1)
        snprintf(what, sizeof what, "%s, call %u of %u (%s), then call %u", s->name, k, n,
                 trace[k - 1].function, f->fail[1]);
    else
        snprintf(what, sizeof what, "%s, call %u of %u (%s)", s->name, k, n,
                 trace[k - 1].function);
    clreduce_ctx *ctx = shared ? shared : fresh_context(st);
    fault_objects start, now;
    fault_live(&start);
    call_outcome o;
    do_call(ctx, st, f, &o);
    note_failed_sites(f->fail, f->nfail);
    fault_call run[FAULT_TRACE_MAX];
    const fault_call *calls;
    size_t m = fault_trace(&calls);
    memcpy(run, calls, m * sizeof *run);

    fault_call failed;
    cl_int injected = CL_SUCCESS;
    if (!fault_injected(&failed, &injected))
        print_error("%s: the call was not reached\n", what);
    assert_true(fault_injected(&failed, &injected));
    assert_string_equal(failed.function, trace[k - 1].function);
    assert_int_equal(fault_failures(), f->nfail);

    *how = recovery_of(trace, n, k, run, m);
    if (*how == RECOVERS_DISK_CACHE || (*how == RECOVERS_RETRY && f->nfail == 1)) {
        /* Compiled from source, not stored, or allocated again. */
        assert_correct(&o, what);
        if (*how == RECOVERS_DISK_CACHE)
            t->fallbacks++;
        else
            t->retries++;
    } else {
        clreduce_status want = expected_status(injected);
        if (o.status != want)
            print_error("%s: injected %s, expected %s, got %s: \"%s\"\n", what,
                        clreduce_opencl_error_name(injected), clreduce_status_string(want),
                        clreduce_status_string(o.status), o.message);
        assert_int_equal(o.status, want);
        if (!tc_contains(o.message, clreduce_opencl_error_name(injected)))
            print_error("%s: message \"%s\" does not name %s\n", what, o.message,
                        clreduce_opencl_error_name(injected));
        assert_true(tc_contains(o.message, clreduce_opencl_error_name(injected)));
        assert_false(o.done_written);
        if (!o.margins_untouched)
            print_error("%s: elements around the output were written\n", what);
        assert_true(o.margins_untouched);
        /* No event outlives a failed call. */
        if (o.live_after.event != start.event)
            print_error("%s: %ld events alive before the call, %ld after\n", what, start.event,
                        o.live_after.event);
        assert_int_equal(o.live_after.event, start.event);
        if (!o.range_untouched) {
            if (!may_leave_range_written(st, ctx, run, k))
                print_error("%s: the output was written\n", what);
            assert_true(may_leave_range_written(st, ctx, run, k));
            if (s->operation == REDUCE) {
                /* What the identity fill left, and nothing else. */
                tc_value id;
                tc_identity(s->op, s->type, &id);
                assert_memory_equal(o.got.bytes, id.bytes, st->es);
            }
            if (f->nfail == 1)
                t->written++;
        }
    }
    unsigned made = o.calls;
    /* The context still works, and holds what it would have without the
     * fault. */
    do_call(ctx, st, &NOT_COUNTED, &o);
    assert_correct(&o, what);
    fault_live(&now);
    assert_live_equal(what, &now, reference);
    if (!shared) {
        clreduce_destroy(ctx);
        fault_live(&now);
        assert_live_equal(what, &now, before);
    }
    if (f->nfail > 1) {
        t->second++;
        g_second_faults++;
    } else {
        g_faults++;
    }
    return made;
}

static void test_scenario(void **state)
{
    const scenario *s = *state;
    tc_seed_for(s->name);

    /* A context only to ask whether the device can run this at all. */
    clreduce_ctx *probe = new_context(s);
    clreduce_status support =
        s->operation == SCAN
            ? clreduce_check_scan_support(probe, s->op, s->type,
                                          (clreduce_scan_variant)s->variant)
            : clreduce_check_support(probe, s->op, s->type, (clreduce_variant)s->variant);
    if (support != CLREDUCE_SUCCESS)
        print_message("%s: skipped: %s\n", s->name, clreduce_last_error(probe));
    clreduce_destroy(probe);
    if (support != CLREDUCE_SUCCESS)
        skip();
    if (s->out_of_order && !g_ooo_queue) {
        print_message("%s: skipped: the device has no out-of-order queues\n", s->name);
        skip();
    }
    setenv("CLREDUCE_CACHE_DIR", s->disk == DISK_OFF ? "off" : g_cache_dir, 1);
    empty_cache_dir();

    run_state st;
    run_state_init(&st, s);
    st.queue = s->out_of_order ? g_ooo_queue : g_queue;
    call_outcome o;
    if (s->disk == DISK_WARM) {
        /* A first context compiles and stores the binary the others load. */
        clreduce_ctx *ctx = new_context(s);
        do_call(ctx, &st, &NOT_COUNTED, &o);
        assert_correct(&o, "storing the binary");
        clreduce_destroy(ctx);
    }

    fault_objects before, reference, now;
    fault_live(&before);

    /* The call without a fault: its OpenCL calls, and the objects alive
     * once it and a second call are done. */
    clreduce_ctx *ctx = fresh_context(&st);
    do_call(ctx, &st, &COUNTED, &o);
    unsigned n = o.calls;
    assert_correct(&o, "call without a fault");
    fault_call trace[FAULT_TRACE_MAX];
    const fault_call *calls;
    size_t ntrace = fault_trace(&calls);
    assert_true(n == ntrace);
    memcpy(trace, calls, ntrace * sizeof *trace);
    print_trace(s->name, n);
    do_call(ctx, &st, &NOT_COUNTED, &o);
    assert_correct(&o, "second call without a fault");
    fault_live(&reference);
    clreduce_destroy(ctx);
    fault_live(&now);
    assert_live_equal("after destroying the context", &now, &before);

    /* A call that finds its program cached fails on one context again and
     * again: nothing may pile up in it. A first call needs a fresh one, as
     * does a call whose warm-up was of another size. */
    clreduce_ctx *shared = s->warm && !s->warm_count ? fresh_context(&st) : NULL;
    tallies t = {0, 0, 0, 0};
    for (unsigned k = 1; k <= n; k++) {
        call_faults f = {1, {k}, 1};
        recovery how;
        unsigned made = fault_once(&st, shared, trace, n, &f, &reference, &before, &t, &how);
        /* The calls made on the way out of the failure (waiting for the
         * commands already enqueued, reading the build log, asking again
         * for less memory) fail too. A disk cache failure has no way out:
         * the call carries on. */
        unsigned last = how == RECOVERS_NOT ? made : how == RECOVERS_RETRY ? k + 1 : k;
        for (unsigned j = k + 1; j <= last; j++) {
            call_faults f2 = {1, {k, j}, 2};
            fault_once(&st, shared, trace, n, &f2, &reference, &before, &t, &how);
        }
    }
    if (shared) {
        clreduce_destroy(shared);
        fault_live(&now);
        assert_live_equal("after destroying the context", &now, &before);
    }
    g_fallbacks += t.fallbacks;
    g_retries += t.retries;
    g_written += t.written;
    print_message("%s: %u calls failed one at a time, %u more on the way out of a failure; %u "
                  "fell back (disk cache), %u allocated again, %u left the output written as "
                  "documented\n",
                  s->name, n, t.second, t.fallbacks, t.retries, t.written);
    run_state_free(&st);
}

int main(void)
{
    tc_init_seed();
    clreduce_ctx *host = tc_create_default_or_skip("unit.faults");
    g_cl = clreduce_get_cl_context(host);
    g_device = clreduce_get_cl_device(host);
    clRetainContext(g_cl);
    g_queue = tc_create_queue(host, 0);
    if (!g_queue)
        return 1;
    if (tc_device_supports_queue(host, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
        g_ooo_queue = tc_create_queue(host, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    clreduce_destroy(host);

    const char *tmp = getenv("TMPDIR");
    snprintf(g_cache_dir, sizeof g_cache_dir, "%s/clreduce-faults-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_cache_dir)) {
        perror("mkdtemp");
        return 1;
    }
    const char *saved_cache_env = getenv("CLREDUCE_CACHE_DIR");
    char *saved_cache = saved_cache_env ? strdup(saved_cache_env) : NULL;

    struct CMUnitTest *tests = calloc(scenario_count + 2, sizeof *tests);
    if (!tests)
        return 1;
    size_t nt = 0;
    for (size_t i = 0; i < scenario_count; i++)
        tc_add_test(tests, &nt, scenarios[i].name, test_scenario, (void *)&scenarios[i]);
    tc_add_test(tests, &nt, "test_create_faults", test_create_faults, NULL);
    tc_add_test(tests, &nt, "test_create_default_faults", test_create_default_faults, NULL);
    int failed = tc_run_tests("unit.faults", tests, nt);
    free(tests);

    printf("fault injection: %lu runs with one call failed (k values) and %lu with a second "
           "failure on the way out of the first, at %zu distinct call sites; %lu disk cache "
           "failures fell back, %lu allocations were asked again, %lu left the output written "
           "as documented\n",
           g_faults, g_second_faults, g_nsites, g_fallbacks, g_retries, g_written);

    /* For addr2line -e unit_faults: where the failed calls are. */
    printf("call sites:");
    for (size_t i = 0; i < g_nsites; i++) {
        Dl_info info;
        if (dladdr(g_sites[i], &info) && info.dli_fbase)
            printf(" 0x%zx", (size_t)((const char *)g_sites[i] - (const char *)info.dli_fbase));
    }
    printf("\n");

    if (saved_cache)
        setenv("CLREDUCE_CACHE_DIR", saved_cache, 1);
    free(saved_cache);
    empty_cache_dir();
    rmdir(g_cache_dir);
    if (g_ooo_queue)
        clReleaseCommandQueue(g_ooo_queue);
    clReleaseCommandQueue(g_queue);
    clReleaseContext(g_cl);
    return failed ? 1 : 0;
}
