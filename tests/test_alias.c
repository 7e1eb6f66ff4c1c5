/* unit.alias: one memory reached through several handles. Two sub-buffers
 * of one buffer, or a sub-buffer and its parent, can share bytes although
 * their cl_mem handles differ; every entry point that takes cl_mem
 * (clreduce_scan, clreduce_scan_profiled, clreduce_reduce,
 * clreduce_reduce_profiled) must compare its ranges where they lie in
 * memory.
 *
 * Each case places the input range and the output range (a scan's output,
 * or a reduction's result element) at byte positions of one root buffer,
 * each reached through the root itself or through a sub-buffer of its own.
 * Partial overlaps (either direction, by one element, by one alignment
 * unit, by one byte where the device's sub-buffer alignment allows such an
 * origin) must fail with CLREDUCE_ERROR_INVALID_ARGUMENT and a message that
 * names the overlap, leave every byte of the root buffer and the event
 * out-parameters as they were, and build no program. The same bytes through
 * two handles are an in-place scan (checked against the CPU reference), and
 * adjacent ranges are allowed, their results checked the same way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Elements in every range: many work-groups and tiles for every variant. */
#define N ((size_t)1000000)

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;
static size_t g_align;         /* CL_DEVICE_MEM_BASE_ADDR_ALIGN, in bytes */
static cl_mem g_root;          /* every case's buffers lie in this one */
static size_t g_root_size;
static unsigned char *g_before; /* the root's bytes before a call */
static unsigned char *g_after;  /* and after it */

typedef enum entry { SCAN, SCAN_PROFILED, REDUCE, REDUCE_PROFILED } entry;

static const char *const entry_names[] = {"clreduce_scan", "clreduce_scan_profiled",
                                          "clreduce_reduce", "clreduce_reduce_profiled"};

/* How a range is reached: through the root buffer itself, or through a
 * sub-buffer created for it. */
typedef enum handle { PARENT, SUB } handle;

/* A byte position in the root buffer, relative to a base position that is
 * a multiple of the alignment: counts * N elements + aligns * the alignment
 * + elems elements + bytes. */
typedef struct pos {
    int counts, aligns, elems, bytes;
} pos;

typedef struct alias_case {
    const char *what;
    handle in_handle;
    pos in;
    handle out_handle;
    pos out;
    int allowed; /* 0: must fail as an overlap */
} alias_case;

#define AT(c, a, e, b) {c, a, e, b}

static size_t root_position(const pos *p, size_t es)
{
    /* Room for a whole range before the base, one after the range at it. */
    size_t base = (N * es + g_align - 1) / g_align * g_align + 4 * g_align;
    ptrdiff_t shift = (ptrdiff_t)p->counts * (ptrdiff_t)(N * es) +
                      (ptrdiff_t)p->aligns * (ptrdiff_t)g_align +
                      (ptrdiff_t)p->elems * (ptrdiff_t)es + p->bytes;
    return (size_t)((ptrdiff_t)base + shift);
}

/* One operand of a call: the handle passed and the element offset in it. */
typedef struct operand {
    cl_mem mem;    /* g_root, or a sub-buffer to release */
    size_t offset; /* in elements */
    size_t at;     /* byte position of the range in the root */
} operand;

/* Makes the operand that reaches `bytes` bytes at root position `at`.
 * Returns 0 when no handle can start a range there: a sub-buffer's origin
 * must be a multiple of the alignment, so the range starts a whole number of
 * elements after the nearest aligned origin below it, or not at all. */
static int make_operand(handle h, size_t at, size_t bytes, size_t es, operand *op)
{
    op->at = at;
    if (h == PARENT) {
        if (at % es != 0)
            return 0;
        op->mem = g_root;
        clRetainMemObject(g_root);
        op->offset = at / es;
        return 1;
    }
    size_t origin = at / g_align * g_align;
    if ((at - origin) % es != 0)
        return 0;
    cl_buffer_region region = {origin, at - origin + bytes};
    cl_int err;
    op->mem = clCreateSubBuffer(g_root, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region,
                                &err);
    if (err != CL_SUCCESS)
        print_error("clCreateSubBuffer(origin %zu, size %zu): %s\n", region.origin, region.size,
                    clreduce_opencl_error_name(err));
    assert_int_equal(err, CL_SUCCESS);
    op->offset = (at - origin) / es;
    return 1;
}

static void upload_root(void)
{
    assert_int_equal(clEnqueueWriteBuffer(g_queue, g_root, CL_TRUE, 0, g_root_size, g_before, 0,
                                          NULL, NULL),
                     CL_SUCCESS);
}

/* Reads the root back into g_after; nothing but [skip_lo, skip_hi) may
 * differ from g_before. */
static void check_root_untouched(const char *what, size_t skip_lo, size_t skip_hi)
{
    assert_int_equal(clFinish(g_queue), CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(g_queue, g_root, CL_TRUE, 0, g_root_size, g_after, 0,
                                         NULL, NULL),
                     CL_SUCCESS);
    for (size_t i = 0; i < g_root_size; i++) {
        if (i >= skip_lo && i < skip_hi)
            continue;
        if (g_after[i] != g_before[i]) {
            print_error("%s: byte %zu of the buffer changed (0x%02x -> 0x%02x)%s\n", what, i,
                        g_before[i], g_after[i],
                        skip_lo < skip_hi ? ", outside the output range" : "");
            fail();
        }
    }
}

/* A copy of `bytes` bytes at p, aligned for any element type (p itself is
 * not, where the device aligns sub-buffers to less than an element). */
static void *copy_of(const void *p, size_t bytes)
{
    void *q = malloc(bytes);
    assert_non_null(q);
    memcpy(q, p, bytes);
    return q;
}

/* The sentinel everywhere, random data of `type` in the input range. */
static void prepare_root(clreduce_type type, size_t in_at)
{
    size_t bytes = N * clreduce_type_size(type);
    void *data = malloc(bytes);
    assert_non_null(data);
    tc_fill_random(type, data, N);
    memset(g_before, TC_SENTINEL_BYTE, g_root_size);
    memcpy(g_before + in_at, data, bytes);
    free(data);
    upload_root();
}

static clreduce_status call(entry e, int variant, clreduce_type type, const operand *in,
                            const operand *out, cl_event *first, cl_event *done)
{
    switch (e) {
    case SCAN:
        return clreduce_scan(g_ctx, g_queue, CLREDUCE_OP_SUM, type, CLREDUCE_INCLUSIVE,
                             (clreduce_scan_variant)variant, in->mem, in->offset, N, out->mem,
                             out->offset, 0, NULL, done);
    case SCAN_PROFILED:
        return clreduce_scan_profiled(g_ctx, g_queue, CLREDUCE_OP_SUM, type, CLREDUCE_EXCLUSIVE,
                                      (clreduce_scan_variant)variant, in->mem, in->offset, N,
                                      out->mem, out->offset, 0, NULL, first, done);
    case REDUCE:
        return clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, type, (clreduce_variant)variant,
                               in->mem, in->offset, N, out->mem, out->offset, 0, NULL, done);
    default:
        return clreduce_reduce_profiled(g_ctx, g_queue, CLREDUCE_OP_SUM, type,
                                        (clreduce_variant)variant, in->mem, in->offset, N,
                                        out->mem, out->offset, 0, NULL, first, done);
    }
}

static int is_scan(entry e)
{
    return e == SCAN || e == SCAN_PROFILED;
}

static int variant_count(entry e)
{
    return is_scan(e) ? CLREDUCE_SCAN_VARIANT_COUNT : CLREDUCE_VARIANT_COUNT;
}

static const char *variant_name(entry e, int v)
{
    return is_scan(e) ? clreduce_scan_variant_name((clreduce_scan_variant)v)
                      : clreduce_variant_name((clreduce_variant)v);
}

/* Whether the device runs variant v for type (an unsupported one fails
 * before its buffers are looked at). */
static int supported(entry e, int v, clreduce_type type)
{
    clreduce_status s =
        is_scan(e) ? clreduce_check_scan_support(g_ctx, CLREDUCE_OP_SUM, type,
                                                 (clreduce_scan_variant)v)
                   : clreduce_check_support(g_ctx, CLREDUCE_OP_SUM, type, (clreduce_variant)v);
    return s == CLREDUCE_SUCCESS;
}

static clreduce_cache_stats cache_stats(void)
{
    clreduce_cache_stats st;
    assert_int_equal(clreduce_get_cache_stats(g_ctx, &st), CLREDUCE_SUCCESS);
    return st;
}

/* Builds the two operands of case c; 0 (with a note) where the device's
 * alignment cannot place them. */
static int make_operands(entry e, const alias_case *c, clreduce_type type, operand *in,
                         operand *out)
{
    size_t es = clreduce_type_size(type);
    size_t in_at = root_position(&c->in, es), out_at = root_position(&c->out, es);
    size_t out_bytes = is_scan(e) ? N * es : es;
    if (!make_operand(c->in_handle, in_at, N * es, es, in)) {
        print_message("  %s, %s: not possible with %zu-byte sub-buffer alignment\n", c->what,
                      clreduce_type_name(type), g_align);
        return 0;
    }
    if (!make_operand(c->out_handle, out_at, out_bytes, es, out)) {
        print_message("  %s, %s: not possible with %zu-byte sub-buffer alignment\n", c->what,
                      clreduce_type_name(type), g_align);
        clReleaseMemObject(in->mem);
        return 0;
    }
    return 1;
}

static void release_operands(operand *in, operand *out)
{
    clReleaseMemObject(in->mem);
    clReleaseMemObject(out->mem);
}

/* Case c must fail on entry e for every variant the device supports. */
static void expect_overlap(entry e, const alias_case *c, clreduce_type type)
{
    operand in, out;
    if (!make_operands(e, c, type, &in, &out))
        return;
    size_t es = clreduce_type_size(type);
    prepare_root(type, in.at);
    clreduce_cache_stats before = cache_stats();
    int tried = 0;
    for (int v = 0; v < variant_count(e); v++) {
        if (!supported(e, v, type))
            continue;
        tried++;
        char what[256];
        snprintf(what, sizeof what, "%s %s %s: %s (input bytes [%zu, +%zu), output [%zu, +%zu))",
                 entry_names[e], variant_name(e, v), clreduce_type_name(type), c->what, in.at,
                 N * es, out.at, is_scan(e) ? N * es : es);
        cl_event first = TC_EVENT_SENTINEL, done = TC_EVENT_SENTINEL;
        clreduce_status s = call(e, v, type, &in, &out, &first, &done);
        const char *msg = clreduce_last_error(g_ctx);
        if (s != CLREDUCE_ERROR_INVALID_ARGUMENT)
            print_error("%s: expected %s, got %s (\"%s\")\n", what,
                        clreduce_status_string(CLREDUCE_ERROR_INVALID_ARGUMENT),
                        clreduce_status_string(s), msg);
        assert_int_equal(s, CLREDUCE_ERROR_INVALID_ARGUMENT);
        if (!tc_contains(msg, "overlap") || !tc_contains(msg, "sub-buffer"))
            print_error("%s: message \"%s\" does not name the overlap through sub-buffers\n",
                        what, msg);
        assert_true(tc_contains(msg, "overlap"));
        assert_true(tc_contains(msg, "sub-buffer"));
        assert_true(done == TC_EVENT_SENTINEL);
        assert_true(first == TC_EVENT_SENTINEL);
        if (v == 0)
            print_message("  %s -> \"%s\"\n", what, msg);
    }
    assert_true(tried > 0);
    clreduce_cache_stats after = cache_stats();
    assert_true(after.programs_built == before.programs_built);
    assert_true(after.programs_loaded == before.programs_loaded);
    assert_true(after.cache_hits == before.cache_hits);
    char what[160];
    snprintf(what, sizeof what, "%s %s: %s", entry_names[e], clreduce_type_name(type), c->what);
    check_root_untouched(what, 0, 0);
    release_operands(&in, &out);
}

/* Case c must succeed on entry e with variant v and give the CPU's result,
 * writing nothing but the output. */
static void expect_result(entry e, const alias_case *c, int v)
{
    const clreduce_type type = CLREDUCE_FLOAT;
    if (!supported(e, v, type)) {
        print_message("  %s %s: not supported here: %s\n", entry_names[e], variant_name(e, v),
                      clreduce_last_error(g_ctx));
        return;
    }
    operand in, out;
    if (!make_operands(e, c, type, &in, &out))
        return;
    size_t es = clreduce_type_size(type);
    size_t out_bytes = is_scan(e) ? N * es : es;
    char what[256];
    snprintf(what, sizeof what, "%s %s: %s (input bytes [%zu, +%zu), output [%zu, +%zu))",
             entry_names[e], variant_name(e, v), c->what, in.at, N * es, out.at, out_bytes);
    prepare_root(type, in.at);
    cl_event first = TC_EVENT_SENTINEL, done = TC_EVENT_SENTINEL;
    clreduce_status s = call(e, v, type, &in, &out, &first, &done);
    if (s != CLREDUCE_SUCCESS)
        print_error("%s: %s: %s\n", what, clreduce_status_string(s),
                    clreduce_last_error(g_ctx));
    assert_int_equal(s, CLREDUCE_SUCCESS);
    assert_true(done != TC_EVENT_SENTINEL && done != NULL);
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    if (e == SCAN_PROFILED || e == REDUCE_PROFILED) {
        assert_true(first != TC_EVENT_SENTINEL && first != NULL);
        clReleaseEvent(first);
    }
    check_root_untouched(what, out.at, out.at + out_bytes);
    void *input = copy_of(g_before + in.at, N * es);
    void *output = copy_of(g_after + out.at, out_bytes);
    if (is_scan(e)) {
        clreduce_scan_kind kind = e == SCAN ? CLREDUCE_INCLUSIVE : CLREDUCE_EXCLUSIVE;
        char why[256];
        int ok = tc_scan_matches(CLREDUCE_OP_SUM, type, kind, input, N, output, why, sizeof why);
        if (!ok)
            print_error("%s: %s\n", what, why);
        assert_true(ok);
    } else {
        tc_value want, got;
        long double abs_sum;
        tc_reference(CLREDUCE_OP_SUM, type, input, N, &want, &abs_sum);
        memcpy(got.bytes, output, es);
        int ok = tc_matches(CLREDUCE_OP_SUM, type, &got, &want, abs_sum);
        if (!ok)
            print_error("%s: got %.9g, expected %.9g\n", what, (double)got.f, (double)want.f);
        assert_true(ok);
    }
    free(input);
    free(output);
    print_message("  %s: right\n", what);
    release_operands(&in, &out);
}

/* ---- scans ---------------------------------------------------------------------- */

static const alias_case scan_overlaps[] = {
    {"output one alignment unit after the input", SUB, AT(0, 0, 0, 0), SUB, AT(0, 1, 0, 0), 0},
    {"output one alignment unit before the input", SUB, AT(0, 1, 0, 0), SUB, AT(0, 0, 0, 0), 0},
    {"output one element after the input", SUB, AT(0, 0, 0, 0), SUB, AT(0, 0, 1, 0), 0},
    {"output one element before the input", SUB, AT(0, 0, 0, 0), SUB, AT(0, 0, -1, 0), 0},
    {"output's first element on the input's last", SUB, AT(0, 0, 0, 0), SUB, AT(1, 0, -1, 0), 0},
    {"output's last element on the input's first", SUB, AT(0, 0, 0, 0), SUB, AT(-1, 0, 1, 0), 0},
    {"output one byte after the input", SUB, AT(0, 0, 0, 0), SUB, AT(0, 0, 0, 1), 0},
    {"output one byte before the input", SUB, AT(0, 0, 0, 1), SUB, AT(0, 0, 0, 0), 0},
    {"input in the parent, output one element after in a sub-buffer", PARENT, AT(0, 0, 0, 0),
     SUB, AT(0, 0, 1, 0), 0},
    {"input in a sub-buffer, output one element before in the parent", SUB, AT(0, 0, 0, 0),
     PARENT, AT(0, 0, -1, 0), 0},
    {"input in the parent, output one alignment unit before in a sub-buffer", PARENT,
     AT(0, 0, 0, 0), SUB, AT(0, -1, 0, 0), 0},
};

static const alias_case scan_allowed[] = {
    {"the same bytes through two sub-buffers", SUB, AT(0, 0, 0, 0), SUB, AT(0, 0, 0, 0), 1},
    {"the same bytes through the parent and a sub-buffer", PARENT, AT(0, 0, 0, 0), SUB,
     AT(0, 0, 0, 0), 1},
    {"the same bytes through a sub-buffer and the parent", SUB, AT(0, 1, 0, 0), PARENT,
     AT(0, 1, 0, 0), 1},
    {"output right after the input, adjacent sub-buffers", SUB, AT(0, 0, 0, 0), SUB,
     AT(1, 0, 0, 0), 1},
    {"output right before the input, adjacent sub-buffers", SUB, AT(0, 0, 0, 0), SUB,
     AT(-1, 0, 0, 0), 1},
    {"output in the parent right after the input's sub-buffer", SUB, AT(0, 0, 0, 0), PARENT,
     AT(1, 0, 0, 0), 1},
};

static void test_scan_overlaps(void **state)
{
    (void)state;
    tc_seed_for("test_scan_overlaps");
    const clreduce_type types[] = {CLREDUCE_FLOAT, CLREDUCE_INT64};
    for (size_t t = 0; t < ARRAY_SIZE(types); t++)
        for (size_t i = 0; i < ARRAY_SIZE(scan_overlaps); i++) {
            expect_overlap(SCAN, &scan_overlaps[i], types[t]);
            expect_overlap(SCAN_PROFILED, &scan_overlaps[i], types[t]);
        }
}

static void test_scan_allowed(void **state)
{
    (void)state;
    tc_seed_for("test_scan_allowed");
    for (int v = 0; v < CLREDUCE_SCAN_VARIANT_COUNT; v++)
        for (size_t i = 0; i < ARRAY_SIZE(scan_allowed); i++) {
            expect_result(SCAN, &scan_allowed[i], v);
            expect_result(SCAN_PROFILED, &scan_allowed[i], v);
        }
}

/* ---- reductions ----------------------------------------------------------------- */

static const alias_case reduce_overlaps[] = {
    {"result on the input's first element", SUB, AT(0, 0, 0, 0), SUB, AT(0, 0, 0, 0), 0},
    {"result on the input's last element", SUB, AT(0, 0, 0, 0), SUB, AT(1, 0, -1, 0), 0},
    {"result one alignment unit into the input", SUB, AT(0, 0, 0, 0), SUB, AT(0, 1, 0, 0), 0},
    {"result straddling the input's end by one byte", SUB, AT(0, 0, 0, 0), SUB, AT(1, 0, 0, -1),
     0},
    {"result straddling the input's start by one byte", SUB, AT(0, 0, 0, 0), SUB,
     AT(0, 0, -1, 1), 0},
    {"input in the parent, result inside it in a sub-buffer", PARENT, AT(0, 0, 0, 0), SUB,
     AT(0, 2, 3, 0), 0},
    {"input in a sub-buffer, result inside it in the parent", SUB, AT(0, 0, 0, 0), PARENT,
     AT(0, 0, 5, 0), 0},
};

static const alias_case reduce_allowed[] = {
    {"result right after the input, adjacent sub-buffers", SUB, AT(0, 0, 0, 0), SUB,
     AT(1, 0, 0, 0), 1},
    {"result right before the input, adjacent sub-buffers", SUB, AT(0, 0, 0, 0), SUB,
     AT(0, 0, -1, 0), 1},
    {"input in the parent, result right after it in a sub-buffer", PARENT, AT(0, 0, 0, 0), SUB,
     AT(1, 0, 0, 0), 1},
    {"input in a sub-buffer, result right before it in the parent", SUB, AT(0, 0, 0, 0), PARENT,
     AT(0, 0, -1, 0), 1},
};

static void test_reduce_overlaps(void **state)
{
    (void)state;
    tc_seed_for("test_reduce_overlaps");
    const clreduce_type types[] = {CLREDUCE_FLOAT, CLREDUCE_INT64};
    for (size_t t = 0; t < ARRAY_SIZE(types); t++)
        for (size_t i = 0; i < ARRAY_SIZE(reduce_overlaps); i++) {
            expect_overlap(REDUCE, &reduce_overlaps[i], types[t]);
            expect_overlap(REDUCE_PROFILED, &reduce_overlaps[i], types[t]);
        }
}

/* A variant of each kind of ending: further passes (SEQUENTIAL), the
 * second launch (GRID_STRIDE), the identity fill and atomics (ATOMIC), and
 * the device's own choice. */
static void test_reduce_allowed(void **state)
{
    (void)state;
    tc_seed_for("test_reduce_allowed");
    const clreduce_variant variants[] = {CLREDUCE_AUTO, CLREDUCE_SEQUENTIAL,
                                         CLREDUCE_GRID_STRIDE, CLREDUCE_ATOMIC};
    for (size_t v = 0; v < ARRAY_SIZE(variants); v++)
        for (size_t i = 0; i < ARRAY_SIZE(reduce_allowed); i++) {
            expect_result(REDUCE, &reduce_allowed[i], variants[v]);
            expect_result(REDUCE_PROFILED, &reduce_allowed[i], variants[v]);
        }
}

int main(void)
{
    tc_init_seed();
    g_ctx = tc_create_default_or_skip("unit.alias");
    g_queue = tc_create_queue(g_ctx, 0);
    if (!g_queue)
        return 1;
    cl_uint align_bits = 0;
    if (clGetDeviceInfo(clreduce_get_cl_device(g_ctx), CL_DEVICE_MEM_BASE_ADDR_ALIGN,
                        sizeof align_bits, &align_bits, NULL) != CL_SUCCESS ||
        align_bits < 8) {
        fprintf(stderr, "unit.alias: cannot read CL_DEVICE_MEM_BASE_ADDR_ALIGN\n");
        return 1;
    }
    g_align = align_bits / 8;
    printf("sub-buffer origins aligned to %zu bytes\n", g_align);
    /* Room for every case of the widest type: a range and some alignment
     * units on either side of a range. */
    pos end = AT(2, 4, 0, 0);
    g_root_size = root_position(&end, sizeof(uint64_t));
    g_before = malloc(g_root_size);
    g_after = malloc(g_root_size);
    cl_int err;
    g_root = clCreateBuffer(clreduce_get_cl_context(g_ctx), CL_MEM_READ_WRITE, g_root_size, NULL,
                            &err);
    if (!g_before || !g_after || err != CL_SUCCESS) {
        fprintf(stderr, "unit.alias: allocating %zu bytes failed\n", g_root_size);
        return 1;
    }

    /* The failures first: they must build nothing. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_overlaps),
        cmocka_unit_test(test_reduce_overlaps),
        cmocka_unit_test(test_scan_allowed),
        cmocka_unit_test(test_reduce_allowed),
    };
    /* CLREDUCE_TEST_FILTER=pattern runs only the matching tests. */
    if (getenv("CLREDUCE_TEST_FILTER"))
        cmocka_set_test_filter(getenv("CLREDUCE_TEST_FILTER"));
    int failed = cmocka_run_group_tests_name("unit.alias", tests, NULL, NULL);

    clReleaseMemObject(g_root);
    clReleaseCommandQueue(g_queue);
    clreduce_destroy(g_ctx);
    free(g_before);
    free(g_after);
    return failed ? 1 : 0;
}
