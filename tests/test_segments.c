/* unit.segments: clreduce_reduce_segments and clreduce_reduce_segments_host
 * against a CPU reference, for every operator and type, on random CSR
 * layouts that mix empty, tiny and huge segments, 32- and 64-bit offsets at
 * an offset between poisoned entries, the input at an offset with every
 * element outside the segments poisoned, the results between sentinels;
 * one segment over the whole input, 10^5 tiny ones, elements before the
 * first and after the last segment, boundaries on the kernels' run edges,
 * each layout also with short segments taken by runs and by sub-groups'
 * spans (the kernels' test switches) and in one launch and in two as the
 * settings fix, sums of squares and of absolute values of floats and
 * doubles (sums of a map) among them; float sums against clreduce.h's bound;
 * NaN and signed zeros; determinism; out-of-order queues; offsets that
 * decrease or pass the count (no access out of bounds, nothing written
 * outside the results); every bad argument refused with nothing written.
 *
 * CLREDUCE_TEST_SEED=n repeats a run's random data; CLREDUCE_TEST_FILTER=glob
 * runs only the matching tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common_rows.h"
#include "test_segments_layouts.h"

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;

#define MAX_ELEMENTS ((size_t)2 << 20)
#define MAX_SEGMENTS TSL_MAX_SEGMENTS
#define OFFSETS_POISON UINT64_C(0xFFFFFFFFFFFFFFF0)

/* m of clreduce/batched.h for a segment of n elements:
 * min(n, 16 v w) + n / (4 v w^2) + 2. */
static size_t segment_chain_length(size_t n, const void *arg)
{
    const clreduce_settings *t = arg;
    size_t chunk = 4 * t->vector_width * t->work_group_size;
    return (n < 4 * chunk ? n : 4 * chunk) + n / (chunk * t->work_group_size) + 2;
}

/* ---- one call -------------------------------------------------------------------- */

typedef struct seg_case {
    clreduce_op op;
    clreduce_type type;
    size_t count;            /* input elements the segments may reach */
    const uint64_t *offsets; /* segments + 1 */
    size_t segments;
    clreduce_type offsets_type;
    size_t offset, offsets_offset, result_offset;
    cl_command_queue queue; /* NULL: g_queue */
    int check_values;       /* 0: bad offsets, only the results' neighbours */
} seg_case;

/* Elements of data[0 .. count) inside no segment are poisoned, so that a
 * read of one by mistake changes a result. */
static void poison_outside(const seg_case *c, void *data)
{
    tc_value poison;
    tc_poison(c->op, c->type, &poison);
    size_t first = c->offsets[0] < c->count ? (size_t)c->offsets[0] : c->count;
    size_t last = c->offsets[c->segments] < c->count ? (size_t)c->offsets[c->segments] : c->count;
    for (size_t i = 0; i < first; i++)
        tc_set(c->type, data, i, &poison);
    for (size_t i = last; i < c->count; i++)
        tc_set(c->type, data, i, &poison);
}

static void run_segments(const seg_case *c, const void *data, tcr_outcome *o)
{
    memset(o, 0, sizeof *o);
    size_t es = clreduce_type_size(c->type), os = clreduce_type_size(c->offsets_type);
    size_t total = c->offset + c->count + 3;
    unsigned char *host = tcr_poisoned_buffer(c->op, c->type, total);
    memcpy(host + c->offset * es, data, c->count * es);
    size_t ototal = c->offsets_offset + c->segments + 1 + 2;
    unsigned char *offs = malloc(ototal * os);
    assert_non_null(offs);
    for (size_t i = 0; i < ototal; i++) {
        uint64_t v = i >= c->offsets_offset && i - c->offsets_offset <= c->segments
                         ? c->offsets[i - c->offsets_offset]
                         : OFFSETS_POISON;
        if (os == 4) {
            uint32_t v32 = (uint32_t)v;
            memcpy(offs + i * 4, &v32, 4);
        } else {
            memcpy(offs + i * 8, &v, 8);
        }
    }
    size_t rcount = c->result_offset + c->segments + 2;
    unsigned char *res = tcr_sentinel_buffer(rcount * es);
    cl_mem in = tc_make_buffer(g_ctx, total * es, host);
    cl_mem ob = tc_make_buffer(g_ctx, ototal * os, offs);
    cl_mem out = tc_make_buffer(g_ctx, rcount * es, res);
    cl_command_queue q = c->queue ? c->queue : g_queue;
    cl_event done = NULL;
    o->status = clreduce_reduce_segments(g_ctx, q, c->op, c->type, in, c->offset, c->count, ob,
                                         c->offsets_offset, c->offsets_type, c->segments, out,
                                         c->result_offset, 0, NULL, &done);
    tcr_read_back(o, g_ctx, q, out, res, rcount * es, done);
    tcr_take_results(o, res, rcount, c->result_offset, c->segments, es);
    if (o->status == CLREDUCE_SUCCESS && c->check_values) {
        size_t n = c->segments ? c->segments : 1;
        size_t *starts = malloc(n * sizeof *starts), *lengths = malloc(n * sizeof *lengths);
        assert_true(starts && lengths);
        for (size_t s = 0; s < c->segments; s++) {
            starts[s] = (size_t)c->offsets[s];
            lengths[s] = (size_t)(c->offsets[s + 1] - c->offsets[s]);
        }
        tcr_check_results(o, g_ctx, c->op, c->type, data, starts, lengths, c->segments,
                          segment_chain_length);
        free(starts);
        free(lengths);
    }
    clReleaseMemObject(in);
    clReleaseMemObject(ob);
    clReleaseMemObject(out);
    free(host);
    free(offs);
    free(res);
}

/* Runs a case and reports it; returns 1 when it passed. */
static int check_segments(const char *tag, const seg_case *c, const void *data)
{
    tcr_outcome o;
    run_segments(c, data, &o);
    return tcr_report(tag, &o, "op=%s type=%s count=%zu segments=%zu offsets=%s offset=%zu "
                      "offsets_offset=%zu result_offset=%zu", tc_op_name(c->op),
                      tc_type_name(c->type), c->count, c->segments, tc_type_name(c->offsets_type),
                      c->offset, c->offsets_offset, c->result_offset);
}

/* ---- tests ------------------------------------------------------------------------------ */

/* Sums of squares and of absolute values, which floats and doubles take
 * through the sums' kernels (CLR_MAP): one of the two per layout, count and
 * type. */
static const clreduce_op mapped_sums[] = {CLREDUCE_OP_SUM_SQUARES, CLREDUCE_OP_SUM_ABS};

/* The types of a layouts test. */
typedef enum {
    ALL_TYPES,
    FLOAT_AND_DOUBLE,
    SCALAR_RULES /* every operator of 4-byte types, sums of 8-byte types */
} layout_types;

/* Every layout and operator, with 32- and 64-bit offsets, in g_ctx, for
 * the types and operators `which` names; returns the failures. */
static int layouts_failures(layout_types which)
{
    void *data = malloc(MAX_ELEMENTS * 8);
    uint64_t *offsets = malloc((MAX_SEGMENTS + 1) * sizeof *offsets);
    assert_true(data && offsets);
    int failures = 0, cases = 0;
    tcr_reset_reports();
    static const size_t counts[] = {1000, 300007, 1000003};
    for (int kind = 0; kind < LAYOUT_COUNT; kind++) {
        for (size_t ci = 0; ci < ARRAY_SIZE(counts); ci++) {
            size_t segments, count = tsl_make_layout((layout_kind)kind, counts[ci], offsets,
                                                 &segments);
            for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
                clreduce_type type = tc_all_types[ti];
                if (!tc_type_supported(g_ctx, type))
                    continue;
                if (which == FLOAT_AND_DOUBLE && type != CLREDUCE_FLOAT &&
                    type != CLREDUCE_DOUBLE)
                    continue;
                int sums_only = which == SCALAR_RULES && clreduce_type_size(type) == 8;
                if (count > 500000 && (type == CLREDUCE_UINT32 || type == CLREDUCE_INT64))
                    continue;
                size_t ops = ARRAY_SIZE(tc_all_ops) + tc_is_float_type(type);
                for (size_t oi = 0; oi < ops; oi++) {
                    clreduce_op op = oi < ARRAY_SIZE(tc_all_ops)
                                         ? tc_all_ops[oi]
                                         : mapped_sums[((size_t)kind + ci) % 2];
                    if (sums_only && op != CLREDUCE_OP_SUM)
                        continue;
                    seg_case c = {op, type, count, offsets, segments,
                                  cases & 1 ? CLREDUCE_UINT64 : CLREDUCE_UINT32,
                                  (size_t)cases % 4, (size_t)cases % 3, 1 + (size_t)cases % 2,
                                  NULL, 1};
                    tcr_fill_for_op(op, type, data, count, (size_t)cases);
                    poison_outside(&c, data);
                    char tag[64];
                    snprintf(tag, sizeof tag, "layout %s", tsl_layout_names[kind]);
                    failures += !check_segments(tag, &c, data);
                    cases++;
                }
            }
        }
    }
    print_message("%d cases, %d failed\n", cases, failures);
    free(data);
    free(offsets);
    return failures;
}

static void test_layouts(void **state)
{
    (void)state;
    tc_seed_for("layouts");
    /* NVIDIA GPUs choose the launches per call; other devices take two. */
    clreduce_settings got;
    assert_int_equal(clreduce_get_tuning(g_ctx, CLREDUCE_FLOAT, &got), CLREDUCE_SUCCESS);
    assert_int_equal(got.segment_passes, tc_is_nvidia_gpu(g_ctx) ? 0 : 2);
    assert_int_equal(layouts_failures(ALL_TYPES), 0);
}

/* The layouts of 4-byte types, and the sums of 8-byte types, in a context
 * that reads an element at a time (a vector width of 1), as NVIDIA GPUs
 * read the sums, minima and maxima of 4-byte types over segments of a mean
 * under 8 elements and the sums of 8-byte types over segments of a mean of
 * a few hundred (src/tuning.c), where other devices read vectors. */
static void test_layouts_scalar(void **state)
{
    (void)state;
    tc_seed_for("layouts_scalar");
    clreduce_settings settings;
    clreduce_default_settings(&settings);
    settings.vector_width = 1;
    clreduce_ctx *base = g_ctx, *scalar = tc_context_like(base, &settings);
    g_ctx = scalar;
    int failures = layouts_failures(SCALAR_RULES);
    g_ctx = base;
    clreduce_destroy(scalar);
    assert_int_equal(failures, 0);
}

/* The layouts again, for float and double, in a context whose settings
 * fix the launches (clreduce_settings' segment_passes): `passes` 1, a
 * single kernel where the device allows it, or 2, a kernel for the chunks'
 * heads and one for the segments; the library's own choice (the layouts
 * test) takes the single kernel only on NVIDIA GPUs, for inputs of a few
 * chunks a compute unit. With the kernels' test switches in `options`,
 * short segments are taken by runs of elements (cl/segment_runs.cl), or
 * chunks of segments two elements long or more on average by the spans of
 * the sub-groups (cl/segment_warps.cl; a work-item is a sub-group of one
 * where the device has none), which the tuning gives NVIDIA GPUs only; the
 * switches also keep short segments from a work-item each (src/segment_layouts.c),
 * which the single launch gives them otherwise. Every context here carries
 * the switch (MAPS) that gives sums of squares and of absolute values the
 * sums' kernels on a CPU too, as GPUs take them.
 * Float runs scan their partials by sub-group shuffles where the device
 * has them (Intel's CPU runtime), doubles in local memory. Every program here is built for
 * its test alone (on PoCL from a cold cache three types took 143 s by
 * runs), so int32, whose runs are float's code with an exact sum, is left
 * to the layouts test on NVIDIA. */
#define RUNS "-DCLR_TEST_SEGMENT_RUNS=1"
#define WARPS "-DCLR_TEST_SEGMENT_WARPS=1 -DCLR_WARPS_MEAN_MIN=2"
#define LANES "-DCLR_TEST_SEGMENT_LANES=1"
#define MAPS " -DCLR_TEST_SUM_MAPS=1"

/* Segments of an input of no element, each a sum's 0 (the call writes
 * them without a kernel), for sums, of squares and of absolute values of
 * floats and doubles; returns the failures. */
static int no_element_failures(void)
{
    static const uint64_t offsets[4] = {0, 0, 0, 0};
    static const clreduce_op ops[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_SUM_SQUARES,
                                      CLREDUCE_OP_SUM_ABS};
    static const clreduce_type types[] = {CLREDUCE_FLOAT, CLREDUCE_DOUBLE};
    uint64_t unused = 0;
    int failures = 0;
    for (size_t ti = 0; ti < ARRAY_SIZE(types); ti++) {
        if (!tc_type_supported(g_ctx, types[ti]))
            continue;
        for (size_t oi = 0; oi < ARRAY_SIZE(ops); oi++) {
            seg_case c = {ops[oi], types[ti], 0, offsets, 3, CLREDUCE_UINT32, 1, 1, 1, NULL, 1};
            failures += !check_segments("no elements", &c, &unused);
        }
    }
    return failures;
}

static void layouts_in_passes(unsigned passes, const char *options)
{
    int pocl = tc_platform_is(g_ctx, TC_POCL);
    if (passes == 1 && pocl) {
        /* PoCL 3.1 took 2-5 minutes to compile each single-launch program
         * (its barriers in branches), where the two-pass ones, runs
         * included, took seconds. */
        print_message("note: PoCL: the single launch is left to Intel's runtime, Oclgrind and "
                      "the GPU\n");
        skip();
    }
    if (options && strcmp(options, WARPS) == 0 && pocl) {
        /* PoCL 3.1's optimiser loses the spans' join (segment_warps.cl):
         * results of segments that cross spans are left unwritten, and
         * they are right with -cl-opt-disable, under Oclgrind and on
         * Intel's runtime. */
        print_message("note: PoCL: the spans of sub-groups are left to Intel's runtime, Oclgrind "
                      "and the GPU\n");
        skip();
    }
    char all_options[128];
    snprintf(all_options, sizeof all_options, "%s%s", options ? options : "", MAPS);
    clreduce_settings settings;
    clreduce_default_settings(&settings);
    settings.segment_passes = passes;
    settings.build_options = all_options;
    clreduce_ctx *base = g_ctx, *fixed = tc_context_like(base, &settings);
    clreduce_settings got;
    assert_int_equal(clreduce_get_tuning(fixed, CLREDUCE_FLOAT, &got), CLREDUCE_SUCCESS);
    if (passes == 2 || (tc_device_type(g_ctx) & CL_DEVICE_TYPE_CPU) || tc_is_nvidia_gpu(g_ctx))
        assert_int_equal(got.segment_passes, passes);
    g_ctx = fixed;
    int failures = layouts_failures(FLOAT_AND_DOUBLE) + no_element_failures();
    g_ctx = base;
    clreduce_destroy(fixed);
    assert_int_equal(failures, 0);
}

static void test_layouts_by_runs(void **state)
{
    (void)state;
    tc_seed_for("layouts_by_runs");
    layouts_in_passes(2, RUNS);
}

static void test_layouts_by_runs_one_pass(void **state)
{
    (void)state;
    tc_seed_for("layouts_by_runs_one_pass");
    layouts_in_passes(1, RUNS);
}

static void test_layouts_by_warps(void **state)
{
    (void)state;
    tc_seed_for("layouts_by_warps");
    layouts_in_passes(2, WARPS);
}

static void test_layouts_by_warps_one_pass(void **state)
{
    (void)state;
    tc_seed_for("layouts_by_warps_one_pass");
    layouts_in_passes(1, WARPS);
}

/* A sub-group a segment (clr_reduce_segment_lanes), forced at every mean
 * by its test switch: the longer segments by the work-group and by pieces,
 * in the one launch it takes. */
static void test_layouts_by_lanes_one_pass(void **state)
{
    (void)state;
    tc_seed_for("layouts_by_lanes_one_pass");
    layouts_in_passes(1, LANES);
}

static void test_layouts_one_pass(void **state)
{
    (void)state;
    tc_seed_for("layouts_one_pass");
    layouts_in_passes(1, NULL);
}

static void test_layouts_two_passes(void **state)
{
    (void)state;
    tc_seed_for("layouts_two_passes");
    layouts_in_passes(2, NULL);
}

/* An operator and a type of a large layout's cases. */
typedef struct {
    clreduce_op op;
    clreduce_type type;
} op_type;

/* Each case of `cases` over the same segments of count elements (data: a
 * buffer of count elements of 8 bytes), in g_ctx, with offsets types and
 * offsets that vary by case; returns the failures. */
static int large_layout_failures(const char *tag, const op_type *cases, size_t ncases,
                                 size_t count, const uint64_t *offsets, size_t segments,
                                 void *data)
{
    int failures = 0;
    for (size_t i = 0; i < ncases; i++) {
        if (!tc_type_supported(g_ctx, cases[i].type))
            continue;
        seg_case c = {cases[i].op, cases[i].type, count, offsets, segments,
                      i & 1 ? CLREDUCE_UINT64 : CLREDUCE_UINT32, i % 3, i % 2, 1 + i % 2, NULL,
                      1};
        tcr_fill_for_op(c.op, c.type, data, count, i);
        failures += !check_segments(tag, &c, data);
    }
    return failures;
}

/* Short segments of a large input on a GPU. NVIDIA GPUs take a mean of
 * 512 bytes or less (3 KB for double min and max) a work-item a segment,
 * and with the tests' switch of the chunks (CLR_TEST_SEGMENT_CHUNKS),
 * where the tuning takes segments by runs, a mean of 16 elements or less
 * in an input of 8 wide chunks a compute unit or more by teams in wide
 * chunks
 * (src/segment_layouts.c): both, which the layouts above are too small to reach.
 * Segments of 0 to 16 elements over 2^26 + 5 elements: float, int32 and
 * double. Skipped on other devices, which take neither by themselves (on
 * PoCL the test took 21 s). */
static void test_wide_chunks(void **state)
{
    (void)state;
    tc_seed_for("wide_chunks");
    if (!(tc_device_type(g_ctx) & CL_DEVICE_TYPE_GPU)) {
        print_message("note: not a GPU: skipped\n");
        skip();
    }
    const size_t count = ((size_t)1 << 26) + 5;
    void *data = malloc(count * 8);
    uint64_t *offsets = malloc((count + 1) * sizeof *offsets);
    assert_true(data && offsets);
    size_t segments = 0, at = 0;
    offsets[0] = 0;
    while (at < count) {
        size_t len = tc_rand_below(17);
        at = at + len < count ? at + len : count;
        offsets[++segments] = at;
    }
    static const op_type cases[] = {
        {CLREDUCE_OP_SUM, CLREDUCE_FLOAT}, {CLREDUCE_OP_MIN, CLREDUCE_FLOAT},
        {CLREDUCE_OP_MAX, CLREDUCE_FLOAT}, {CLREDUCE_OP_SUM, CLREDUCE_INT32},
        {CLREDUCE_OP_SUM, CLREDUCE_DOUBLE}, {CLREDUCE_OP_MAX, CLREDUCE_DOUBLE}};
    int failures = large_layout_failures("short segments", cases, ARRAY_SIZE(cases), count,
                                         offsets, segments, data);
    clreduce_settings settings;
    clreduce_default_settings(&settings);
    settings.build_options = "-DCLR_TEST_SEGMENT_CHUNKS=1";
    clreduce_ctx *base = g_ctx, *chunks = tc_context_like(base, &settings);
    g_ctx = chunks;
    failures += large_layout_failures("wide chunks", cases, ARRAY_SIZE(cases), count, offsets,
                                      segments, data);
    g_ctx = base;
    clreduce_destroy(chunks);
    free(data);
    free(offsets);
    assert_int_equal(failures, 0);
}

/* The single launch over many chunks: from 32 chunks a compute unit on, a
 * launch of the chunks' starts precedes it, and its work-groups read their
 * segments from there rather than search for them (src/segment_layouts.c), which
 * the layouts above are too small to reach. 40 chunks a compute unit of
 * the longest chunks of the tuning, in a context that fixes one launch:
 * segments of 0 to 3000 elements, one in fifty of up to three such chunks,
 * the first from a few elements in, the last short of the end; the
 * kernels built with `options`. */
static int many_chunks_failures(const char *options)
{
    cl_uint units = 0;
    assert_int_equal(clGetDeviceInfo(clreduce_get_cl_device(g_ctx), CL_DEVICE_MAX_COMPUTE_UNITS,
                                     sizeof units, &units, NULL),
                     CL_SUCCESS);
    clreduce_settings settings, got;
    clreduce_default_settings(&settings);
    settings.segment_passes = 1;
    settings.build_options = options;
    clreduce_ctx *base = g_ctx, *fixed = tc_context_like(base, &settings);
    assert_int_equal(clreduce_get_tuning(fixed, CLREDUCE_FLOAT, &got), CLREDUCE_SUCCESS);
    size_t chunk = got.work_group_size * 32 * got.vector_width;
    size_t count = (size_t)units * 40 * chunk + 3;
    void *data = malloc(count * 8);
    uint64_t *offsets = malloc((count / 2 + 2) * sizeof *offsets);
    assert_true(data && offsets);
    size_t segments = 0, at = 1 + tc_rand_below(7);
    offsets[0] = at;
    while (at + 3 * chunk + 100 < count) {
        at += tc_rand_below(50) == 0 ? tc_rand_below(3 * chunk) : tc_rand_below(3001);
        offsets[++segments] = at;
    }
    static const op_type cases[] = {
        {CLREDUCE_OP_SUM, CLREDUCE_FLOAT}, {CLREDUCE_OP_MAX, CLREDUCE_FLOAT},
        {CLREDUCE_OP_SUM, CLREDUCE_INT32}, {CLREDUCE_OP_SUM, CLREDUCE_DOUBLE},
        {CLREDUCE_OP_MIN, CLREDUCE_DOUBLE}};
    g_ctx = fixed;
    int failures = large_layout_failures("many chunks", cases, ARRAY_SIZE(cases), count,
                                         offsets, segments, data);
    g_ctx = base;
    clreduce_destroy(fixed);
    free(data);
    free(offsets);
    return failures;
}

/* Skipped where the layouts' single launch is (PoCL). */
static void test_many_chunks(void **state)
{
    (void)state;
    tc_seed_for("many_chunks");
    if (tc_platform_is(g_ctx, TC_POCL)) {
        print_message("note: PoCL: the single launch is left to Intel's runtime, Oclgrind and "
                      "the GPU\n");
        skip();
    }
    /* The tuning's own layouts, then the sums by the spans of sub-groups
     * after the starts launch, which the tuning gives NVIDIA GPUs alone. */
    int failures = many_chunks_failures(NULL);
    failures += many_chunks_failures(WARPS);
    assert_int_equal(failures, 0);
}

/* Float sums of segments of values of mixed magnitudes, against the bound. */
static void test_float_bound(void **state)
{
    (void)state;
    tc_seed_for("float_bound");
    size_t count = 1000003;
    void *data = malloc(count * 8);
    uint64_t *offsets = malloc((MAX_SEGMENTS + 1) * sizeof *offsets);
    assert_true(data && offsets);
    int failures = 0;
    for (int kind = LAYOUT_MIXED; kind <= LAYOUT_HUGE_TINY; kind++)
        for (size_t ti = 0; ti < 2; ti++) {
            clreduce_type type = ti ? CLREDUCE_DOUBLE : CLREDUCE_FLOAT;
            if (!tc_type_supported(g_ctx, type))
                continue;
            size_t segments;
            tsl_make_layout((layout_kind)kind, count, offsets, &segments);
            tcr_fill_mixed_magnitudes(type, data, count);
            seg_case c = {CLREDUCE_OP_SUM, type, count, offsets, segments, CLREDUCE_UINT64,
                          1, 0, 0, NULL, 1};
            tcr_outcome o;
            run_segments(&c, data, &o);
            failures += !tcr_report_bound(&o, "%s %s, %zu segments", tc_type_name(type),
                                          tsl_layout_names[kind], segments);
        }
    free(data);
    free(offsets);
    assert_int_equal(failures, 0);
}

/* NaN, infinities and zeros of both signs, segment by segment. */
static void test_special_values(void **state)
{
    (void)state;
    tc_seed_for("special_values");
    size_t count = 200003;
    void *data = malloc(count * 8);
    uint64_t *offsets = malloc((MAX_SEGMENTS + 1) * sizeof *offsets);
    assert_true(data && offsets);
    int failures = 0;
    tcr_reset_reports();
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = ti ? CLREDUCE_DOUBLE : CLREDUCE_FLOAT;
        if (!tc_type_supported(g_ctx, type))
            continue;
        size_t segments;
        tsl_make_layout(LAYOUT_MIXED, count, offsets, &segments);
        for (size_t oi = 0; oi < ARRAY_SIZE(tc_all_ops); oi++) {
            clreduce_op op = tc_all_ops[oi];
            tc_fill_random(type, data, count);
            for (size_t s = 0; s < segments; s++) {
                size_t b = (size_t)offsets[s], n = (size_t)(offsets[s + 1] - offsets[s]);
                if (n == 0)
                    continue;
                switch (s % 5) {
                case 0: tc_set_double(type, data, b + tc_rand_below(n), (double)NAN); break;
                case 1: tc_set_double(type, data, b + n - 1, (double)NAN); break;
                case 2:
                    tc_set_double(type, data, b + tc_rand_below(n), (double)INFINITY);
                    tc_set_double(type, data, b, -(double)INFINITY);
                    break;
                case 3:
                    for (size_t i = 0; i < n; i++)
                        tc_set_double(type, data, b + i, (tc_rand64() & 1) ? -0.0 : 0.0);
                    break;
                default: break;
                }
            }
            seg_case c = {op, type, count, offsets, segments, CLREDUCE_UINT32, 0, 1, 1, NULL, 1};
            poison_outside(&c, data);
            failures += !check_segments("special values", &c, data);
        }
    }
    free(data);
    free(offsets);
    assert_int_equal(failures, 0);
}

/* The blocking call, and its check of the offsets. */
static void test_host(void **state)
{
    (void)state;
    tc_seed_for("host");
    size_t count = 100000;
    int32_t *data = malloc(count * sizeof *data);
    uint64_t *offsets = malloc((MAX_SEGMENTS + 1) * sizeof *offsets);
    uint32_t *offsets32 = malloc((MAX_SEGMENTS + 1) * sizeof *offsets32);
    int32_t *got = malloc(MAX_SEGMENTS * sizeof *got);
    assert_true(data && offsets && offsets32 && got);
    size_t segments;
    tsl_make_layout(LAYOUT_MIXED, count, offsets, &segments);
    for (size_t i = 0; i <= segments; i++)
        offsets32[i] = (uint32_t)offsets[i];
    tc_fill_random(CLREDUCE_INT32, data, count);
    size_t *starts = malloc(MAX_SEGMENTS * sizeof *starts);
    size_t *lengths = malloc(MAX_SEGMENTS * sizeof *lengths);
    assert_true(starts && lengths);
    for (size_t s = 0; s < segments; s++) {
        starts[s] = (size_t)offsets[s];
        lengths[s] = (size_t)(offsets[s + 1] - offsets[s]);
    }
    for (size_t oi = 0; oi < ARRAY_SIZE(tc_all_ops); oi++) {
        for (int wide = 0; wide < 2; wide++) {
            assert_int_equal(clreduce_reduce_segments_host(
                                 g_ctx, tc_all_ops[oi], CLREDUCE_INT32, data, count,
                                 wide ? (const void *)offsets : (const void *)offsets32,
                                 wide ? CLREDUCE_UINT64 : CLREDUCE_UINT32, segments, got),
                             CLREDUCE_SUCCESS);
            tcr_assert_results(g_ctx, tc_all_ops[oi], CLREDUCE_INT32, data, starts, lengths,
                               segments, got, segment_chain_length);
        }
    }
    /* count 0: the identity everywhere; no segments: nothing. */
    uint32_t zeros[4] = {0, 0, 0, 0};
    memset(got, TC_SENTINEL_BYTE, 4 * sizeof *got);
    assert_int_equal(clreduce_reduce_segments_host(g_ctx, CLREDUCE_OP_MAX, CLREDUCE_INT32, NULL,
                                                   0, zeros, CLREDUCE_UINT32, 3, got),
                     CLREDUCE_SUCCESS);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(got[i], INT32_MIN);
    assert_int_equal(clreduce_reduce_segments_host(g_ctx, CLREDUCE_OP_MAX, CLREDUCE_INT32, data,
                                                   count, zeros, CLREDUCE_UINT32, 0, NULL),
                     CLREDUCE_SUCCESS);

    /* Bad offsets: the first bad index is named, nothing is written. */
    int32_t keep[3] = {7, 8, 9};
    uint32_t decreasing[] = {0, 5, 9, 4, 10};
    assert_int_equal(clreduce_reduce_segments_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_INT32, data,
                                                   count, decreasing, CLREDUCE_UINT32, 4, keep),
                     CLREDUCE_ERROR_INVALID_ARGUMENT);
    print_message("decreasing: %s\n", clreduce_last_error(g_ctx));
    assert_true(tc_contains(clreduce_last_error(g_ctx), "offsets[3]"));
    uint64_t past[] = {0, 5, 100001};
    assert_int_equal(clreduce_reduce_segments_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_INT32, data,
                                                   count, past, CLREDUCE_UINT64, 2, keep),
                     CLREDUCE_ERROR_INVALID_ARGUMENT);
    print_message("past count: %s\n", clreduce_last_error(g_ctx));
    assert_true(tc_contains(clreduce_last_error(g_ctx), "offsets[2]"));
    assert_int_equal(clreduce_reduce_segments_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_INT32, data,
                                                   count, past, CLREDUCE_FLOAT, 2, keep),
                     CLREDUCE_ERROR_INVALID_ARGUMENT);
    assert_true(tc_contains(clreduce_last_error(g_ctx), "offsets_type"));
    assert_int_equal(clreduce_reduce_segments_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_INT32, data,
                                                   count, NULL, CLREDUCE_UINT32, 2, keep),
                     CLREDUCE_ERROR_INVALID_ARGUMENT);
    assert_true(keep[0] == 7 && keep[1] == 8 && keep[2] == 9);
    free(data);
    free(offsets);
    free(offsets32);
    free(got);
    free(starts);
    free(lengths);
}

/* The same segments twice give the same bits. */
/* The same input at two offsets of the buffers gives the same bits, in
 * g_ctx and, but on PoCL, in a context that asks for one launch, where a
 * work-item reads a short segment from its first vector boundary on. */
static void determinism_in(clreduce_ctx *ctx)
{
    static const layout_kind kinds[] = {LAYOUT_MIXED,     LAYOUT_TINY,  LAYOUT_WHOLE,
                                        LAYOUT_HUGE_TINY, LAYOUT_ITEMS, LAYOUT_HUNDREDS};
    size_t count = 1000003;
    float *data = malloc(count * sizeof *data);
    uint64_t *offsets = malloc((MAX_SEGMENTS + 1) * sizeof *offsets);
    assert_true(data && offsets);
    clreduce_ctx *base = g_ctx;
    g_ctx = ctx;
    for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
        size_t segments;
        tsl_make_layout(kinds[k], count, offsets, &segments);
        tc_fill_random(CLREDUCE_FLOAT, data, count);
        seg_case c = {CLREDUCE_OP_SUM, CLREDUCE_FLOAT, count, offsets, segments,
                      CLREDUCE_UINT32, 0, 0, 0, NULL, 1};
        tcr_outcome runs[2];
        run_segments(&c, data, &runs[0]);
        c.offset = 3;
        c.offsets_offset = 2;
        run_segments(&c, data, &runs[1]);
        tcr_assert_same_results(runs, 2, segments * sizeof(float), "%s",
                                tsl_layout_names[kinds[k]]);
    }
    g_ctx = base;
    free(data);
    free(offsets);
}

static void test_determinism(void **state)
{
    (void)state;
    tc_seed_for("determinism");
    determinism_in(g_ctx);
    if (tc_platform_is(g_ctx, TC_POCL))
        return; /* PoCL's single launches compile for minutes */
    clreduce_settings settings;
    clreduce_default_settings(&settings);
    settings.segment_passes = 1;
    clreduce_ctx *one = tc_context_like(g_ctx, &settings);
    determinism_in(one);
    clreduce_destroy(one);
}

/* The elements of the out-of-order test's cases. */
#define QUEUE_COUNT ((size_t)300007)

/* Case i of the out-of-order test: layout i (mixed to huge among tiny) of
 * fresh data. */
static int out_of_order_case(cl_command_queue q, int round, size_t i, void *data)
{
    (void)round;
    uint64_t *offsets = malloc((MAX_SEGMENTS + 1) * sizeof *offsets);
    assert_non_null(offsets);
    size_t segments;
    tsl_make_layout((layout_kind)i, QUEUE_COUNT, offsets, &segments);
    tc_fill_random(CLREDUCE_INT64, data, QUEUE_COUNT);
    seg_case c = {CLREDUCE_OP_SUM, CLREDUCE_INT64, QUEUE_COUNT, offsets, segments,
                  CLREDUCE_UINT64, 1, 1, 1, q, 1};
    poison_outside(&c, data);
    int ok = check_segments("out-of-order queue", &c, data);
    free(offsets);
    return ok;
}

/* An out-of-order queue, called again and again. */
static void test_out_of_order(void **state)
{
    (void)state;
    tcr_test_out_of_order(g_ctx, 2, (size_t)LAYOUT_HUGE_TINY + 1, QUEUE_COUNT * sizeof(int64_t),
                          out_of_order_case);
}

/* Offsets the enqueueing call cannot check: decreasing, past the count,
 * past the buffer's end. The kernels clamp them: the call completes, and
 * nothing around the results is written. */
static void test_bad_offsets_on_device(void **state)
{
    (void)state;
    tc_seed_for("bad_offsets_on_device");
    size_t count = 50000;
    float *data = malloc(count * sizeof *data);
    uint64_t *offsets = malloc((MAX_SEGMENTS + 1) * sizeof *offsets);
    assert_true(data && offsets);
    tc_fill_random(CLREDUCE_FLOAT, data, count);
    size_t segments;
    for (int variant = 0; variant < 4; variant++) {
        tsl_make_layout(LAYOUT_MIXED, count, offsets, &segments);
        for (size_t s = 0; s <= segments; s++) {
            switch (variant) {
            case 0: offsets[s] = (s * 7919) % (count + 1000); break; /* wild, some past count */
            case 1: offsets[s] = count - (size_t)offsets[s]; break;   /* decreasing */
            case 2: offsets[s] = UINT64_MAX - s; break;               /* huge */
            default:
                if (s % 3 == 0)
                    offsets[s] = count + 5;
                break;
            }
        }
        for (int wide = 0; wide < 2; wide++) {
            seg_case c = {CLREDUCE_OP_SUM, CLREDUCE_FLOAT, count, offsets, segments,
                          wide ? CLREDUCE_UINT64 : CLREDUCE_UINT32, 2, 1, 1, NULL, 0};
            tcr_outcome o;
            run_segments(&c, data, &o);
            assert_int_equal(o.status, CLREDUCE_SUCCESS);
            assert_int_equal(o.changed, 0);
            free(o.results);
        }
    }
    free(data);
    free(offsets);
}

/* ---- bad arguments ----------------------------------------------------------------- */

static void test_bad_arguments(void **state)
{
    (void)state;
    float input_data[100];
    unsigned char output_bytes[16 * sizeof(float)];
    tc_guarded g;
    tc_make_guarded(g_ctx, g_queue, input_data, ARRAY_SIZE(input_data), output_bytes,
                    sizeof output_bytes, &g);
    uint32_t offs[12] = {0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 0};
    cl_mem ob = tc_make_buffer(g_ctx, sizeof offs, offs);
    const clreduce_op sum = CLREDUCE_OP_SUM;
    const clreduce_type f = CLREDUCE_FLOAT, u32 = CLREDUCE_UINT32;
    static const char *const type_words[] = {"offsets_type", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "offsets of type float", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      type_words,
                      clreduce_reduce_segments(g_ctx, g_queue, sum, f, g.input, 0, 100, ob, 0,
                                               CLREDUCE_FLOAT, 10, g.output, 0, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "offsets of type int32", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      type_words,
                      clreduce_reduce_segments(g_ctx, g_queue, sum, f, g.input, 0, 100, ob, 0,
                                               CLREDUCE_INT32, 10, g.output, 0, 0, NULL, &done));
    static const char *const offsets_words[] = {"offsets", "past the end", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "offsets past their buffer", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, offsets_words,
                      clreduce_reduce_segments(g_ctx, g_queue, sum, f, g.input, 0, 100, ob, 2, u32,
                                               10, g.output, 0, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "64-bit offsets past their buffer",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, offsets_words,
                      clreduce_reduce_segments(g_ctx, g_queue, sum, f, g.input, 0, 100, ob, 0,
                                               CLREDUCE_UINT64, 10, g.output, 0, 0, NULL, &done));
    static const char *const input_words[] = {"input", "past the end", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "count past the input", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      input_words,
                      clreduce_reduce_segments(g_ctx, g_queue, sum, f, g.input, 1, 100, ob, 0, u32,
                                               10, g.output, 0, 0, NULL, &done));
    static const char *const result_words[] = {"result", "past the end", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "results past their buffer", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, result_words,
                      clreduce_reduce_segments(g_ctx, g_queue, sum, f, g.input, 0, 100, ob, 0, u32,
                                               10, g.output, 7, 0, NULL, &done));
    static const char *const overlap_words[] = {"overlap", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "results overlapping the input", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, overlap_words,
                      clreduce_reduce_segments(g_ctx, g_queue, sum, f, g.input, 0, 50, ob, 0, u32,
                                               5, g.input, 45, 0, NULL, &done));
    /* The offsets' own buffer as the results: they must not share a byte. */
    static const char *const offsets_overlap_words[] = {"offsets", "overlap", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "results overlapping the offsets",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, offsets_overlap_words,
                      clreduce_reduce_segments(g_ctx, g_queue, sum, f, g.input, 0, 100, g.output,
                                               0, u32, 5, g.output, 5, 0, NULL, &done));
    static const char *const null_words[] = {"offsets", "NULL", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "NULL offsets", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      null_words,
                      clreduce_reduce_segments(g_ctx, g_queue, sum, f, g.input, 0, 100, NULL, 0,
                                               u32, 10, g.output, 0, 0, NULL, &done));
    static const char *const op_words[] = {"op", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "unknown op", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, op_words,
                      clreduce_reduce_segments(g_ctx, g_queue, (clreduce_op)CLREDUCE_OP_COUNT, f,
                                               g.input, 0, 100, ob, 0, u32, 10, g.output, 0, 0,
                                               NULL, &done));
    static const char *const dot_words[] = {"dot", "two inputs", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "dot (two inputs)", CLREDUCE_ERROR_UNSUPPORTED, g_ctx, dot_words,
                      clreduce_reduce_segments(g_ctx, g_queue, CLREDUCE_OP_DOT, f, g.input, 0,
                                               100, ob, 0, u32, 10, g.output, 0, 0, NULL, &done));
    /* Results right after the offsets in the same buffer are fine. */
    cl_event done = NULL;
    assert_int_equal(clreduce_reduce_segments(g_ctx, g_queue, sum, f, g.input, 0, 100, g.output,
                                              0, u32, 5, g.output, 6, 0, NULL, &done),
                     CLREDUCE_SUCCESS);
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
    /* No segments: a marker when done is asked. */
    done = NULL;
    assert_int_equal(clreduce_reduce_segments(g_ctx, g_queue, sum, f, g.input, 0, 100, ob, 0, u32,
                                              0, g.output, 0, 0, NULL, &done),
                     CLREDUCE_SUCCESS);
    assert_non_null(done);
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
    clReleaseMemObject(ob);
    tc_release_guarded(&g);
}

int main(void)
{
    g_ctx = tc_start("unit.segments", &g_queue, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_arguments),   cmocka_unit_test(test_host),
        cmocka_unit_test(test_special_values),  cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_float_bound),     cmocka_unit_test(test_out_of_order),
        cmocka_unit_test(test_bad_offsets_on_device), cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_layouts_scalar),
        cmocka_unit_test(test_layouts_by_runs), cmocka_unit_test(test_layouts_by_runs_one_pass),
        cmocka_unit_test(test_layouts_by_warps),
        cmocka_unit_test(test_layouts_by_warps_one_pass),
        cmocka_unit_test(test_layouts_by_lanes_one_pass),
        cmocka_unit_test(test_layouts_one_pass), cmocka_unit_test(test_layouts_two_passes),
        cmocka_unit_test(test_wide_chunks),
        cmocka_unit_test(test_many_chunks),
    };
    int failed = tc_run_tests("unit.segments", tests, ARRAY_SIZE(tests));
    return tc_finish(g_ctx, failed, g_queue, NULL);
}
