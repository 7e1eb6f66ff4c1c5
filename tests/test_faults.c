/* unit.faults: every OpenCL call the library makes can fail, and each
 * failure leaves the caller with a clear status, no leaked OpenCL object,
 * an unwritten result and a context that still works.
 *
 * The program is linked with the library's static archive and with
 * fault_shim.c, which stands between the library and the OpenCL runtime.
 * For each scenario (a call of one kind: variant, entry point, queue, count,
 * state of the caches) the test first runs the call once and counts its
 * OpenCL calls, N. Then, for every k in 1..N, it makes call k fail the way
 * a runtime would (on a fresh context for a first call, which builds; over
 * and over on one context for a call that finds its program cached), and
 * also each call made only on the way out of that failure (waiting for the
 * commands already enqueued, reading the build log) as a second failure.
 * After each it checks:
 *  - the status is the one for the error (status_from_cl in src/error.c:
 *    CLREDUCE_ERROR_OUT_OF_MEMORY for allocation failures, _BUILD for a
 *    failed build, _OPENCL otherwise) and the message names the error;
 *  - the result is not written and the done event not returned, except
 *    where clreduce.h says otherwise (the atomic variant's identity fill);
 *  - no event is left alive by the failed call;
 *  - a call without a fault on the same context gives the right result on
 *    fresh random data, after which the OpenCL objects alive are exactly
 *    those of a context that never saw a fault, and destroying the context
 *    leaves exactly those alive before it was created.
 * The only calls whose failure does not fail the operation are those of the
 * disk cache of program binaries: a binary that does not load is compiled
 * from source, a binary that cannot be read back is not stored. There the
 * call must succeed with the right result.
 *
 * clreduce_create() and clreduce_create_default() are failed at every call
 * as well: an error with a message, or a context that works; nothing leaks. */
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

#include "fault_shim.h"
#include "test_common.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Any context handle a create function could hand out is not this. */
#define CTX_SENTINEL ((clreduce_ctx *)(uintptr_t)0x5e5e5e5e)

static cl_context g_cl;
static cl_device_id g_device;
static cl_command_queue g_queue;     /* in-order; also reads the results */
static cl_command_queue g_ooo_queue; /* out-of-order, or NULL */
static char g_cache_dir[4096];       /* the disk cache of the scenarios that use it */

/* Totals over the run, printed at the end. */
#define MAX_SITES 1024
static const void *g_sites[MAX_SITES];
static size_t g_nsites;
static unsigned long g_faults;            /* calls failed alone (k values) */
static unsigned long g_second_faults;     /* and a second on the way out */
static unsigned long g_fallbacks;         /* disk cache failures that fell back */
static unsigned long g_identity_written;  /* atomic variant, documented case */

/* Notes the call sites of the calls numbered in fail[0 .. n) of the last
 * trace: the places in the library whose failure has been seen. */
static void note_failed_sites(const unsigned *fail, size_t n)
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

static clreduce_status expected_status(cl_int err)
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
 * (clCreateProgramWithBinary and the clBuildProgram right after it) and
 * reading one back to store it (clGetProgramInfo). */
static int is_disk_cache_call(const fault_call *calls, size_t n, unsigned k)
{
    const char *f = calls[k - 1].function;
    if (strcmp(f, "clCreateProgramWithBinary") == 0 || strcmp(f, "clGetProgramInfo") == 0)
        return 1;
    return strcmp(f, "clBuildProgram") == 0 && k >= 2 && k - 2 < n &&
           strcmp(calls[k - 2].function, "clCreateProgramWithBinary") == 0;
}

static void assert_live_equal(const char *what, const fault_objects *got,
                              const fault_objects *want)
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

/* ---- scenarios ---------------------------------------------------------------- */

typedef enum entry_point { ENTRY_MEM, ENTRY_HOST } entry_point;

typedef enum disk_mode {
    DISK_OFF,  /* CLREDUCE_CACHE_DIR=off */
    DISK_COLD, /* an empty cache: build from source, then store the binary */
    DISK_WARM  /* the binary is on disk: load it */
} disk_mode;

typedef struct scenario {
    const char *name;
    entry_point entry;
    clreduce_op op;
    clreduce_type type;
    clreduce_variant variant;
    size_t count;
    size_t offset;        /* ENTRY_MEM: elements before the range */
    size_t result_offset; /* ENTRY_MEM */
    int out_of_order;
    int warm;             /* one successful call first: the program is cached */
    disk_mode disk;
} scenario;

#define S(name, entry, op, type, variant, count, offset, roff, ooo, warm, disk)                 \
    {name, entry, CLREDUCE_OP_##op, CLREDUCE_##type, CLREDUCE_##variant, count, offset, roff,  \
     ooo, warm, disk}

static const scenario scenarios[] = {
    /* Every variant's first call (it builds) and a later one (cache hit). */
    S("interleaved, first call", ENTRY_MEM, SUM, FLOAT, INTERLEAVED, 100003, 5, 1, 0, 0, DISK_OFF),
    S("interleaved, cached", ENTRY_MEM, SUM, FLOAT, INTERLEAVED, 100003, 5, 1, 0, 1, DISK_OFF),
    S("sequential, first call", ENTRY_MEM, MAX, INT32, SEQUENTIAL, 70001, 3, 2, 0, 0, DISK_OFF),
    S("sequential, cached", ENTRY_MEM, MAX, INT32, SEQUENTIAL, 70001, 3, 2, 0, 1, DISK_OFF),
    S("first_add, first call", ENTRY_MEM, MIN, DOUBLE, FIRST_ADD, 300007, 7, 0, 0, 0, DISK_OFF),
    S("first_add, cached", ENTRY_MEM, MIN, DOUBLE, FIRST_ADD, 300007, 7, 0, 0, 1, DISK_OFF),
    S("subgroup_tail, first call", ENTRY_MEM, SUM, UINT32, SUBGROUP_TAIL, 100003, 1, 1, 0, 0, DISK_OFF),
    S("subgroup_tail, cached", ENTRY_MEM, SUM, UINT32, SUBGROUP_TAIL, 100003, 1, 1, 0, 1, DISK_OFF),
    S("subgroup, first call", ENTRY_MEM, MAX, FLOAT, SUBGROUP, 100003, 2, 1, 0, 0, DISK_OFF),
    S("subgroup, cached", ENTRY_MEM, MAX, FLOAT, SUBGROUP, 100003, 2, 1, 0, 1, DISK_OFF),
    S("unrolled, first call", ENTRY_MEM, SUM, INT64, UNROLLED, 100003, 9, 1, 0, 0, DISK_OFF),
    S("unrolled, cached", ENTRY_MEM, SUM, INT64, UNROLLED, 100003, 9, 1, 0, 1, DISK_OFF),
    S("grid_stride, first call", ENTRY_MEM, MIN, UINT64, GRID_STRIDE, 100003, 4, 2, 0, 0, DISK_OFF),
    S("grid_stride, cached", ENTRY_MEM, MIN, UINT64, GRID_STRIDE, 100003, 4, 2, 0, 1, DISK_OFF),
    S("atomic, first call", ENTRY_MEM, SUM, INT32, ATOMIC, 100003, 6, 1, 0, 0, DISK_OFF),
    S("atomic, cached", ENTRY_MEM, MAX, UINT32, ATOMIC, 100003, 6, 1, 0, 1, DISK_OFF),
    S("single_pass, first call", ENTRY_MEM, SUM, DOUBLE, SINGLE_PASS, 100003, 3, 1, 0, 0, DISK_OFF),
    S("single_pass, cached", ENTRY_MEM, SUM, DOUBLE, SINGLE_PASS, 100003, 3, 1, 0, 1, DISK_OFF),
    S("auto, first call", ENTRY_MEM, MAX, INT64, AUTO, 100003, 8, 1, 0, 0, DISK_OFF),
    S("auto, cached", ENTRY_MEM, MAX, INT64, AUTO, 100003, 8, 1, 0, 1, DISK_OFF),
    /* Out-of-order queues: a fresh scratch buffer per single-pass call. */
    S("single_pass, out-of-order, first call", ENTRY_MEM, MIN, FLOAT, SINGLE_PASS, 100003, 2, 1, 1, 0, DISK_OFF),
    S("single_pass, out-of-order, cached", ENTRY_MEM, MIN, FLOAT, SINGLE_PASS, 100003, 2, 1, 1, 1, DISK_OFF),
    S("sequential, out-of-order, cached", ENTRY_MEM, SUM, UINT64, SEQUENTIAL, 100003, 2, 1, 1, 1, DISK_OFF),
    S("atomic, out-of-order, cached", ENTRY_MEM, SUM, UINT32, ATOMIC, 100003, 2, 1, 1, 1, DISK_OFF),
    /* The host entry point: its own queue, buffers and read-back. */
    S("host, auto, first call", ENTRY_HOST, SUM, FLOAT, AUTO, 100003, 0, 0, 0, 0, DISK_OFF),
    S("host, auto, cached", ENTRY_HOST, SUM, FLOAT, AUTO, 100003, 0, 0, 0, 1, DISK_OFF),
    S("host, sequential, cached", ENTRY_HOST, MIN, INT64, SEQUENTIAL, 70001, 0, 0, 0, 1, DISK_OFF),
    S("host, atomic, cached", ENTRY_HOST, MAX, INT32, ATOMIC, 70001, 0, 0, 0, 1, DISK_OFF),
    /* Count 0: only the identity fill (none at all from the host). */
    S("count 0, in-order", ENTRY_MEM, MIN, DOUBLE, SEQUENTIAL, 0, 3, 1, 0, 0, DISK_OFF),
    S("count 0, out-of-order", ENTRY_MEM, MAX, UINT32, AUTO, 0, 3, 2, 1, 0, DISK_OFF),
    S("count 0, host", ENTRY_HOST, SUM, INT32, AUTO, 0, 0, 0, 0, 0, DISK_OFF),
    /* The disk cache: storing a binary after a build, and loading one. */
    S("disk cache cold, auto, first call", ENTRY_MEM, SUM, INT32, AUTO, 100003, 5, 1, 0, 0, DISK_COLD),
    S("disk cache warm, auto, first call", ENTRY_MEM, SUM, INT32, AUTO, 100003, 5, 1, 0, 0, DISK_WARM),
    S("disk cache warm, host, grid_stride", ENTRY_HOST, MAX, FLOAT, GRID_STRIDE, 70001, 0, 0, 0, 0, DISK_WARM),
};

/* What a scenario's calls share: its buffers and the data of its last call. */
typedef struct run_state {
    const scenario *s;
    size_t es;
    cl_command_queue queue;
    cl_mem input;  /* ENTRY_MEM: offset + count + 3 elements */
    cl_mem result; /* ENTRY_MEM: result_offset + 3 elements */
    size_t result_count;
    void *data;    /* the range's elements, fresh for every call */
    tc_value ref;
    long double abs_sum;
} run_state;

typedef struct call_outcome {
    clreduce_status status;
    char message[512];
    tc_value got;
    int result_untouched;
    int neighbours_untouched;
    int done_written;
    unsigned calls;           /* OpenCL calls counted */
    fault_objects live_after; /* right after the call, before its done is released */
} call_outcome;

static int all_bytes(const unsigned char *p, size_t n, unsigned char b)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != b)
            return 0;
    return 1;
}

/* How a call of the scenario is watched. */
typedef struct call_faults {
    int counted;                        /* count its OpenCL calls */
    unsigned fail[FAULT_MAX_FAILURES];  /* and fail these of them */
    size_t nfail;
} call_faults;

static const call_faults NOT_COUNTED = {0, {0}, 0};
static const call_faults COUNTED = {1, {0}, 0};

/* One call of the scenario on fresh random data. */
static void do_call(clreduce_ctx *ctx, run_state *st, const call_faults *f, call_outcome *out)
{
    const scenario *s = st->s;
    size_t es = st->es;
    memset(out, 0, sizeof *out);
    tc_fill_random(s->type, st->data, s->count);
    tc_reference(s->op, s->type, st->data, s->count, &st->ref, &st->abs_sum);

    if (s->entry == ENTRY_HOST) {
        unsigned char res[3 * 8];
        memset(res, TC_SENTINEL_BYTE, sizeof res);
        if (f->counted)
            fault_start_many(f->fail, f->nfail);
        out->status = clreduce_reduce_host(ctx, s->op, s->type, s->variant, st->data, s->count,
                                           res + es);
        if (f->counted)
            out->calls = fault_stop();
        snprintf(out->message, sizeof out->message, "%s", clreduce_last_error(ctx));
        fault_live(&out->live_after);
        memcpy(out->got.bytes, res + es, es);
        out->result_untouched = all_bytes(res + es, es, TC_SENTINEL_BYTE);
        out->neighbours_untouched = all_bytes(res, es, TC_SENTINEL_BYTE) &&
                                    all_bytes(res + 2 * es, es, TC_SENTINEL_BYTE);
        return;
    }

    unsigned char res[8 * 8];
    assert_true(st->result_count * es <= sizeof res);
    memset(res, TC_SENTINEL_BYTE, sizeof res);
    assert_int_equal(clEnqueueWriteBuffer(g_queue, st->result, CL_TRUE, 0,
                                          st->result_count * es, res, 0, NULL, NULL),
                     CL_SUCCESS);
    if (s->count)
        assert_int_equal(clEnqueueWriteBuffer(g_queue, st->input, CL_TRUE, s->offset * es,
                                              s->count * es, st->data, 0, NULL, NULL),
                         CL_SUCCESS);
    /* A blocking write only frees the host memory: the reduction may run
     * on another queue, so wait for the writes themselves. */
    assert_int_equal(clFinish(g_queue), CL_SUCCESS);
    cl_event done = TC_EVENT_SENTINEL;
    if (f->counted)
        fault_start_many(f->fail, f->nfail);
    out->status = clreduce_reduce(ctx, st->queue, s->op, s->type, s->variant, st->input,
                                  s->offset, s->count, st->result, s->result_offset, 0, NULL,
                                  &done);
    if (f->counted)
        out->calls = fault_stop();
    snprintf(out->message, sizeof out->message, "%s", clreduce_last_error(ctx));
    fault_live(&out->live_after);
    out->done_written = done != TC_EVENT_SENTINEL;
    if (out->status == CLREDUCE_SUCCESS) {
        assert_true(out->done_written && done != NULL);
        assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
        assert_int_equal(clReleaseEvent(done), CL_SUCCESS);
    } else if (f->nfail > 1) {
        /* A second failure may have been of clWaitForEvents, on the way out
         * of the first: the commands enqueued before it may still run. */
        assert_int_equal(clFinish(st->queue), CL_SUCCESS);
    }
    assert_int_equal(clEnqueueReadBuffer(g_queue, st->result, CL_TRUE, 0, st->result_count * es,
                                         res, 0, NULL, NULL),
                     CL_SUCCESS);
    size_t r = s->result_offset * es;
    memcpy(out->got.bytes, res + r, es);
    out->result_untouched = all_bytes(res + r, es, TC_SENTINEL_BYTE);
    out->neighbours_untouched = all_bytes(res, r, TC_SENTINEL_BYTE) &&
                                all_bytes(res + r + es, st->result_count * es - r - es,
                                          TC_SENTINEL_BYTE);
}

static void assert_correct(const run_state *st, const call_outcome *o, const char *what)
{
    if (o->status != CLREDUCE_SUCCESS)
        print_error("%s: %s: %s\n", what, clreduce_status_string(o->status), o->message);
    assert_int_equal(o->status, CLREDUCE_SUCCESS);
    if (!tc_matches(st->s->op, st->s->type, &o->got, &st->ref, st->abs_sum)) {
        char got[96], want[96];
        tc_format(st->s->type, &o->got, got, sizeof got);
        tc_format(st->s->type, &st->ref, want, sizeof want);
        print_error("%s: got %s, expected %s\n", what, got, want);
    }
    assert_true(tc_matches(st->s->op, st->s->type, &o->got, &st->ref, st->abs_sum));
    assert_true(o->neighbours_untouched);
}

static clreduce_ctx *fresh_context(const run_state *st)
{
    if (st->s->disk == DISK_COLD)
        empty_cache_dir();
    clreduce_ctx *ctx = NULL;
    assert_int_equal(clreduce_create(g_cl, g_device, &ctx), CLREDUCE_SUCCESS);
    if (st->s->warm) {
        call_outcome o;
        do_call(ctx, (run_state *)st, &NOT_COUNTED, &o);
        assert_correct(st, &o, "warm-up call");
    }
    return ctx;
}

static void print_trace(const char *name, unsigned n)
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

typedef struct tallies {
    unsigned fallbacks; /* disk cache failures that fell back */
    unsigned identity;  /* atomic variant: identity left in the result */
    unsigned second;    /* runs with a second failure on the way out */
} tallies;

/* Runs the call with the failures of `f` on `shared`, or on a fresh context
 * in the scenario's state, and checks everything the file's header lists.
 * Returns the number of OpenCL calls the failing call made. */
static unsigned fault_once(run_state *st, clreduce_ctx *shared, const fault_call *trace,
                           unsigned n, const call_faults *f, const fault_objects *reference,
                           const fault_objects *before, tallies *t)
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

    fault_call failed;
    cl_int injected = CL_SUCCESS;
    if (!fault_injected(&failed, &injected))
        print_error("%s: the call was not reached\n", what);
    assert_true(fault_injected(&failed, &injected));
    assert_string_equal(failed.function, trace[k - 1].function);
    assert_int_equal(fault_failures(), f->nfail);

    if (is_disk_cache_call(trace, n, k)) {
        /* Falls back: compiles from source, or does not store. */
        assert_correct(st, &o, what);
        if (f->nfail == 1)
            t->fallbacks++;
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
        assert_true(o.neighbours_untouched);
        /* No event outlives a failed call. */
        if (o.live_after.event != start.event)
            print_error("%s: %ld events alive before the call, %ld after\n", what, start.event,
                        o.live_after.event);
        assert_int_equal(o.live_after.event, start.event);
        if (!o.result_untouched) {
            /* clreduce.h: the atomic variant's identity fill may have run
             * when a later command fails to enqueue. */
            clreduce_variant v = s->variant == CLREDUCE_AUTO ? clreduce_auto_variant(ctx, s->type)
                                                            : s->variant;
            tc_value id;
            tc_identity(s->op, s->type, &id);
            if (v != CLREDUCE_ATOMIC || memcmp(o.got.bytes, id.bytes, st->es) != 0 ||
                (strcmp(failed.function, "clSetKernelArg") != 0 &&
                 strcmp(failed.function, "clEnqueueNDRangeKernel") != 0))
                print_error("%s: the result was written\n", what);
            assert_int_equal(v, CLREDUCE_ATOMIC);
            assert_memory_equal(o.got.bytes, id.bytes, st->es);
            assert_true(strcmp(failed.function, "clSetKernelArg") == 0 ||
                        strcmp(failed.function, "clEnqueueNDRangeKernel") == 0);
            if (f->nfail == 1)
                t->identity++;
        }
    }
    unsigned made = o.calls;
    /* The context still works, and holds what it would have without the
     * fault. */
    do_call(ctx, st, &NOT_COUNTED, &o);
    assert_correct(st, &o, what);
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
    run_state st;
    memset(&st, 0, sizeof st);
    st.s = s;
    st.es = clreduce_type_size(s->type);

    /* A context only to ask whether the device can run this at all. */
    clreduce_ctx *probe = NULL;
    assert_int_equal(clreduce_create(g_cl, g_device, &probe), CLREDUCE_SUCCESS);
    clreduce_status support = clreduce_check_support(probe, s->op, s->type, s->variant);
    if (support != CLREDUCE_SUCCESS)
        print_message("%s: skipped: %s\n", s->name, clreduce_last_error(probe));
    clreduce_destroy(probe);
    if (support != CLREDUCE_SUCCESS)
        skip();
    st.queue = s->out_of_order ? g_ooo_queue : g_queue;
    if (!st.queue) {
        print_message("%s: skipped: the device has no out-of-order queues\n", s->name);
        skip();
    }
    setenv("CLREDUCE_CACHE_DIR", s->disk == DISK_OFF ? "off" : g_cache_dir, 1);
    empty_cache_dir();

    cl_int err = CL_SUCCESS;
    if (s->entry == ENTRY_MEM) {
        size_t total = s->offset + s->count + 3;
        unsigned char *poison = malloc(total * st.es);
        assert_non_null(poison);
        tc_value p;
        tc_poison(s->op, s->type, &p);
        for (size_t i = 0; i < total; i++)
            tc_set(s->type, poison, i, &p);
        st.input = clCreateBuffer(g_cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, total * st.es,
                                  poison, &err);
        free(poison);
        assert_int_equal(err, CL_SUCCESS);
        st.result_count = s->result_offset + 3;
        st.result = clCreateBuffer(g_cl, CL_MEM_READ_WRITE, st.result_count * st.es, NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
    }
    st.data = malloc((s->count ? s->count : 1) * st.es);
    assert_non_null(st.data);

    if (s->disk == DISK_WARM) {
        /* A first context compiles and stores the binary the others load. */
        clreduce_ctx *ctx = NULL;
        call_outcome o;
        assert_int_equal(clreduce_create(g_cl, g_device, &ctx), CLREDUCE_SUCCESS);
        do_call(ctx, &st, &NOT_COUNTED, &o);
        assert_correct(&st, &o, "storing the binary");
        clreduce_destroy(ctx);
    }

    fault_objects before, reference, now;
    fault_live(&before);

    /* The call without a fault: its OpenCL calls, and the objects alive
     * once it and a second call are done. */
    clreduce_ctx *ctx = fresh_context(&st);
    call_outcome o;
    do_call(ctx, &st, &COUNTED, &o);
    unsigned n = o.calls;
    assert_correct(&st, &o, "call without a fault");
    fault_call trace[FAULT_TRACE_MAX];
    const fault_call *calls;
    size_t ntrace = fault_trace(&calls);
    assert_true(n == ntrace);
    memcpy(trace, calls, ntrace * sizeof *trace);
    print_trace(s->name, n);
    do_call(ctx, &st, &NOT_COUNTED, &o);
    assert_correct(&st, &o, "second call without a fault");
    fault_live(&reference);
    clreduce_destroy(ctx);
    fault_live(&now);
    assert_live_equal("after destroying the context", &now, &before);

    /* A call that finds its program cached fails on one context again and
     * again: nothing may pile up in it. A first call needs a fresh one. */
    clreduce_ctx *shared = s->warm ? fresh_context(&st) : NULL;
    tallies t = {0, 0, 0};
    for (unsigned k = 1; k <= n; k++) {
        call_faults f = {1, {k}, 1};
        unsigned made = fault_once(&st, shared, trace, n, &f, &reference, &before, &t);
        /* The calls made on the way out of the failure (waiting for the
         * commands already enqueued, reading the build log) fail too. A
         * disk cache failure has no way out: the call carries on. */
        for (unsigned j = k + 1; j <= made && !is_disk_cache_call(trace, n, k); j++) {
            call_faults f2 = {1, {k, j}, 2};
            fault_once(&st, shared, trace, n, &f2, &reference, &before, &t);
        }
    }
    if (shared) {
        clreduce_destroy(shared);
        fault_live(&now);
        assert_live_equal("after destroying the context", &now, &before);
    }
    g_fallbacks += t.fallbacks;
    g_identity_written += t.identity;
    print_message("%s: %u calls failed one at a time, %u more on the way out of a failure; %u "
                  "fell back (disk cache), %u left the atomic identity in the result\n",
                  s->name, n, t.second, t.fallbacks, t.identity);

    if (st.input)
        clReleaseMemObject(st.input);
    if (st.result)
        clReleaseMemObject(st.result);
    free(st.data);
}

/* ---- creating contexts ----------------------------------------------------------- */

/* A context that came out of a create despite a fault must work. */
static void check_context_works(clreduce_ctx *ctx, const char *what)
{
    int data[1001];
    int64_t want = 0;
    for (int i = 0; i < 1001; i++) {
        data[i] = (int)(tc_rand64() % 2001) - 1000;
        want += data[i];
    }
    int got = 0;
    clreduce_status s = clreduce_reduce_host(ctx, CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_AUTO,
                                             data, 1001, &got);
    if (s != CLREDUCE_SUCCESS)
        print_error("%s: %s: %s\n", what, clreduce_status_string(s), clreduce_last_error(ctx));
    assert_int_equal(s, CLREDUCE_SUCCESS);
    assert_int_equal(got, (int)want);
}

typedef clreduce_status (*create_fn)(clreduce_ctx **out);

static clreduce_status create_on_shared(clreduce_ctx **out)
{
    return clreduce_create(g_cl, g_device, out);
}

static clreduce_status create_default(clreduce_ctx **out)
{
    return clreduce_create_default(out);
}

/* Whether the call is one of clreduce_find_device's (those before the first
 * clCreateContext of a create_default trace, if there is one). */
static int before_context(const fault_call *calls, size_t n, unsigned k)
{
    for (size_t i = 0; i < n && i < k - 1; i++)
        if (strcmp(calls[i].function, "clCreateContext") == 0)
            return 0;
    for (size_t i = k - 1; i < n; i++)
        if (strcmp(calls[i].function, "clCreateContext") == 0)
            return 1;
    return 0;
}

static void run_create_faults(const char *name, create_fn create)
{
    tc_seed_for(name);
    setenv("CLREDUCE_CACHE_DIR", g_cache_dir, 1);
    fault_objects before, now;
    fault_live(&before);
    clreduce_ctx *ctx = NULL;
    fault_start(0);
    clreduce_status s = create(&ctx);
    unsigned n = fault_stop();
    assert_int_equal(s, CLREDUCE_SUCCESS);
    fault_call trace[FAULT_TRACE_MAX];
    const fault_call *calls;
    size_t ntrace = fault_trace(&calls);
    memcpy(trace, calls, ntrace * sizeof *trace);
    print_trace(name, n);
    check_context_works(ctx, name);
    clreduce_destroy(ctx);
    fault_live(&now);
    assert_live_equal(name, &now, &before);

    unsigned failures = 0, tolerated = 0;
    for (unsigned k = 1; k <= n; k++) {
        char what[256];
        snprintf(what, sizeof what, "%s, call %u of %u (%s)", name, k, n, trace[k - 1].function);
        ctx = CTX_SENTINEL;
        fault_start(k);
        s = create(&ctx);
        fault_stop();
        note_failed_sites(&k, 1);
        fault_call failed;
        cl_int injected = CL_SUCCESS;
        assert_true(fault_injected(&failed, &injected));
        assert_string_equal(failed.function, trace[k - 1].function);
        if (s == CLREDUCE_SUCCESS) {
            /* An optional query (a capability assumed absent) or, while
             * looking for the device, a platform or device skipped. */
            assert_true(ctx != CTX_SENTINEL && ctx != NULL);
            print_message("%s: no error, a working context\n", what);
            check_context_works(ctx, what);
            clreduce_destroy(ctx);
            tolerated++;
        } else {
            const char *msg = clreduce_last_error(NULL);
            clreduce_status want = expected_status(injected);
            int ok = s == want ||
                     (s == CLREDUCE_ERROR_NO_DEVICE && before_context(trace, n, k));
            if (!ok || !msg[0])
                print_error("%s: injected %s, got %s: \"%s\"\n", what,
                            clreduce_opencl_error_name(injected), clreduce_status_string(s), msg);
            assert_true(ok);
            assert_true(msg[0] != '\0');
            assert_true(ctx == CTX_SENTINEL);
            failures++;
        }
        fault_live(&now);
        assert_live_equal(what, &now, &before);
        g_faults++;
    }
    print_message("%s: %u calls failed one at a time: %u errors, %u still gave a working "
                  "context\n",
                  name, n, failures, tolerated);
}

static void test_create_faults(void **state)
{
    (void)state;
    run_create_faults("clreduce_create", create_on_shared);
}

static void test_create_default_faults(void **state)
{
    (void)state;
    run_create_faults("clreduce_create_default", create_default);
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

    struct CMUnitTest tests[ARRAY_SIZE(scenarios) + 2];
    for (size_t i = 0; i < ARRAY_SIZE(scenarios); i++) {
        tests[i].name = scenarios[i].name;
        tests[i].test_func = test_scenario;
        tests[i].setup_func = NULL;
        tests[i].teardown_func = NULL;
        tests[i].initial_state = (void *)&scenarios[i];
    }
    tests[ARRAY_SIZE(scenarios)] =
        (struct CMUnitTest)cmocka_unit_test(test_create_faults);
    tests[ARRAY_SIZE(scenarios) + 1] =
        (struct CMUnitTest)cmocka_unit_test(test_create_default_faults);
    /* CLREDUCE_TEST_FILTER=pattern runs only the matching tests. */
    if (getenv("CLREDUCE_TEST_FILTER"))
        cmocka_set_test_filter(getenv("CLREDUCE_TEST_FILTER"));
    int failed = cmocka_run_group_tests_name("unit.faults", tests, NULL, NULL);

    printf("fault injection: %lu runs with one call failed (k values) and %lu with a second "
           "failure on the way out of the first, at %zu distinct call sites; %lu disk cache "
           "failures fell back, %lu left the atomic identity\n",
           g_faults, g_second_faults, g_nsites, g_fallbacks, g_identity_written);

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
