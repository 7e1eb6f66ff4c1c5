/* unit.dot_batches: clreduce_dot_rows, clreduce_dot_segments and
 * clreduce_dot_scan (and their _host forms), many dot products in one call, on
 * every type against the CPU reference of the flat dot's tests
 * (test_common_operators.c):
 *  - rows of 0 to 10^6 + 3 elements (one work-item, a team, a work-group,
 *    several work-groups a row), pitched rows whose padding would change a
 *    result if read, x and y at offsets that put either, both or neither on
 *    a vector boundary, and y the same buffer and range as x;
 *  - segments of the CSR layouts of unit.segments (empty, tiny and huge
 *    mixed, one over the whole input, ...) with 32- and 64-bit offsets;
 *  - every case: the results at an offset between sentinels (untouched), a
 *    second run and the _host form bitwise the same;
 *  - in a reproducible context, float and double results bit for bit
 *    clreduce_dot() of each range alone in that context;
 *  - clreduce_dot_scan, the running dot product, as the sum scan of the
 *    products on every type and kind, sizes 1 to 2^20 + 7;
 *  - bad arguments: a status, a message, nothing written.
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

#include "test_common.h"
#include "test_common_rows.h"
#include "test_fixed_order.h"
#include "test_segments_layouts.h"

static clreduce_ctx *g_ctx, *g_repro;
static cl_command_queue g_queue;

#define TAIL 2          /* poisoned elements after x and y */
#define RESULT_OFFSET 1 /* sentinel results before the first result */
#define INDEX_OFFSET 2  /* offsets before the segments' own */
#define MAX_REPORTS 20

static int g_reports;

/* Rows: `items` rows of `length` at `pitch` (0: length). Segments: `items`
 * segments at offsets[0 .. items] of offsets_type. Both over count
 * elements of x and y. */
typedef struct batch {
    int segments;
    clreduce_type type;
    size_t items, count, length, pitch;
    const uint64_t *offsets;
    clreduce_type offsets_type;
    int same_y; /* y is x's buffer and range */
    size_t x_lead, y_lead; /* poisoned elements before x and y */
} batch;

static size_t item_start(const batch *b, size_t i)
{
    return b->segments ? (size_t)b->offsets[i] : i * (b->pitch ? b->pitch : b->length);
}

static size_t item_length(const batch *b, size_t i)
{
    return b->segments ? (size_t)(b->offsets[i + 1] - b->offsets[i]) : b->length;
}

/* `count` elements with `lead` poisoned ones before and TAIL after. */
static unsigned char *poisoned_copy(clreduce_type type, const void *data, size_t count,
                                    size_t lead)
{
    size_t es = tc_elem_size(type);
    unsigned char *buf = malloc((lead + count + TAIL) * es);
    assert_non_null(buf);
    tc_value p;
    tc_op_poison(CLREDUCE_OP_DOT, type, &p);
    for (size_t i = 0; i < lead + count + TAIL; i++)
        tc_set(type, buf, i, &p);
    if (count)
        memcpy(buf + lead * es, data, count * es);
    return buf;
}

/* The offsets as offsets_type, INDEX_OFFSET entries of 0 before them. */
static void *offsets_as(const batch *b)
{
    size_t w = clreduce_type_size(b->offsets_type), n = INDEX_OFFSET + b->items + 1;
    unsigned char *o = calloc(n, w);
    assert_non_null(o);
    for (size_t i = 0; i <= b->items; i++) {
        uint64_t v = b->offsets[i];
        uint32_t v32 = (uint32_t)v;
        memcpy(o + (INDEX_OFFSET + i) * w, w == 4 ? (void *)&v32 : (void *)&v, w);
    }
    return o;
}

/* Enqueues b on x and y (laid out from element 0), reads the results into
 * out (b->items elements) and checks that no other result changed. */
static clreduce_status enqueue_batch(clreduce_ctx *ctx, const batch *b, const void *x,
                                     const void *y, void *out)
{
    size_t es = tc_elem_size(b->type), nres = RESULT_OFFSET + b->items + 1;
    unsigned char *hx = poisoned_copy(b->type, x, b->count, b->x_lead);
    unsigned char *hy = poisoned_copy(b->type, y, b->count, b->y_lead);
    unsigned char *res = malloc(nres * es);
    assert_non_null(res);
    memset(res, TC_SENTINEL_BYTE, nres * es);
    cl_mem mx = tc_make_buffer(ctx, (b->x_lead + b->count + TAIL) * es, hx);
    cl_mem my = b->same_y ? mx : tc_make_buffer(ctx, (b->y_lead + b->count + TAIL) * es, hy);
    size_t y_off = b->same_y ? b->x_lead : b->y_lead;
    cl_mem mr = tc_make_buffer(ctx, nres * es, res);
    cl_mem mo = NULL;
    cl_event done = NULL;
    clreduce_status status;
    if (b->segments) {
        void *o = offsets_as(b);
        size_t w = clreduce_type_size(b->offsets_type);
        mo = tc_make_buffer(ctx, (INDEX_OFFSET + b->items + 1) * w, o);
        free(o);
        status = clreduce_dot_segments(ctx, g_queue, b->type, mx, b->x_lead, my, y_off, b->count,
                                       mo, INDEX_OFFSET, b->offsets_type, b->items, mr,
                                       RESULT_OFFSET, 0, NULL, &done);
    } else {
        status = clreduce_dot_rows(ctx, g_queue, b->type, mx, b->x_lead, my, y_off, b->items,
                                   b->length, b->pitch, mr, RESULT_OFFSET, 0, NULL, &done);
    }
    if (status == CLREDUCE_SUCCESS) {
        tc_read_buffer(g_queue, mr, res, nres * es, 1, &done);
        clReleaseEvent(done);
        size_t changed = tc_first_changed_outside(res, nres, RESULT_OFFSET, b->items, es);
        if (changed != SIZE_MAX)
            fail_msg("result %zu outside the results was written", changed);
        memcpy(out, res + RESULT_OFFSET * es, b->items * es);
    }
    if (mo)
        clReleaseMemObject(mo);
    if (my != mx)
        clReleaseMemObject(my);
    clReleaseMemObject(mx);
    clReleaseMemObject(mr);
    free(hx);
    free(hy);
    free(res);
    return status;
}

static clreduce_status host_batch(clreduce_ctx *ctx, const batch *b, const void *x,
                                  const void *y, void *out)
{
    if (!b->segments)
        return clreduce_dot_rows_host(ctx, b->type, x, y, b->items, b->length, b->pitch, out);
    void *o = offsets_as(b);
    size_t w = clreduce_type_size(b->offsets_type);
    clreduce_status status =
        clreduce_dot_segments_host(ctx, b->type, x, y, b->count,
                                   (unsigned char *)o + INDEX_OFFSET * w, b->offsets_type,
                                   b->items, out);
    free(o);
    return status;
}

static void report(const batch *b, const char *what)
{
    if (g_reports++ < MAX_REPORTS)
        printf("FAILED %s of %zu %s of %s (length %zu, pitch %zu, x and y from %zu and %zu%s): "
               "%s\n",
               b->segments ? "segments" : "rows", b->items, b->segments ? "segments" : "rows",
               tc_type_name(b->type), b->length, b->pitch, b->x_lead, b->y_lead,
               b->same_y ? ", y = x" : "", what);
}

/* One batch on random data: returns 1 when every check passed. */
static int run_batch(const batch *b, void *x, void *y)
{
    size_t es = tc_elem_size(b->type);
    tc_op_fill(CLREDUCE_OP_DOT, b->type, x, b->count);
    tc_op_fill(CLREDUCE_OP_DOT, b->type, y, b->count);
    if (!b->segments && b->pitch > b->length) { /* padding that changes a result if read */
        tc_value p;
        tc_op_poison(CLREDUCE_OP_DOT, b->type, &p);
        for (size_t i = 0; i < b->count; i++)
            if (i % b->pitch >= b->length) {
                tc_set(b->type, x, i, &p);
                tc_set(b->type, y, i, &p);
            }
    }
    const void *yy = b->same_y ? x : y;
    size_t bytes = (b->items ? b->items : 1) * es;
    unsigned char *got = malloc(bytes), *again = malloc(bytes), *host = malloc(bytes);
    assert_true(got && again && host);
    char why[256] = "";
    int ok = 1;
    clreduce_status s = enqueue_batch(g_ctx, b, x, yy, got);
    if (s != CLREDUCE_SUCCESS) {
        snprintf(why, sizeof why, "status %s: %s", clreduce_status_string(s),
                 clreduce_last_error(g_ctx));
        ok = 0;
    }
    for (size_t i = 0; ok && i < b->items; i++) {
        const unsigned char *xi = (const unsigned char *)x + item_start(b, i) * es;
        const unsigned char *yi = (const unsigned char *)yy + item_start(b, i) * es;
        char w[200];
        if (!tc_op_check_result(CLREDUCE_OP_DOT, b->type, xi, yi, item_length(b, i),
                                got + i * es, 0, w, sizeof w)) {
            snprintf(why, sizeof why, "result %zu (%zu elements): %s", i, item_length(b, i), w);
            ok = 0;
        }
    }
    if (ok && (enqueue_batch(g_ctx, b, x, yy, again) != CLREDUCE_SUCCESS ||
               memcmp(got, again, b->items * es) != 0)) {
        snprintf(why, sizeof why, "a second run differs");
        ok = 0;
    }
    if (ok && (host_batch(g_ctx, b, x, yy, host) != CLREDUCE_SUCCESS ||
               memcmp(got, host, b->items * es) != 0)) {
        snprintf(why, sizeof why, "the _host form differs: %s", clreduce_last_error(g_ctx));
        ok = 0;
    }
    if (!ok)
        report(b, why);
    free(got);
    free(again);
    free(host);
    return ok;
}

/* Poisoned elements before x and y: both ranges on a vector boundary (the
 * kernels' aligned loads), x alone, y alone, neither. */
static const size_t leads[4][2] = {{8, 4}, {4, 3}, {3, 8}, {3, 6}};

/* ---- rows ------------------------------------------------------------------------ */

static void test_rows(void **state)
{
    (void)state;
    tc_seed_for("dot_rows");
    /* On GPUs, teams of every size up to 32 for the shortest rows (a lane
     * of two vectors or fewer); parts for the longest. */
    static const size_t lengths[] = {0,   1,   2,    15,   31,   32,   33,
                                     127, 255, 1023, 1025, 4097, 100003, 1000003};
    static const size_t counts[] = {1, 7, 300, 5000};
    const size_t max_elements = (size_t)3 << 20;
    void *x = malloc(max_elements * 8 + 64), *y = malloc(max_elements * 8 + 64);
    assert_true(x && y);
    size_t cases = 0, failed = 0;
    g_reports = 0;
    for (size_t t = 0; t < 6; t++) {
        clreduce_type type = tc_all_types[t];
        if (!tc_type_supported(g_ctx, type))
            continue;
        for (size_t li = 0; li < ARRAY_SIZE(lengths); li++)
            for (size_t ci = 0; ci < ARRAY_SIZE(counts); ci++) {
                size_t length = lengths[li], rows = counts[ci];
                size_t pad = (li + ci + t) % 3 == 0 ? 0 : 1 + tc_rand_below(7);
                size_t pitch = pad ? length + pad : 0;
                size_t span = rows ? (rows - 1) * (pitch ? pitch : length) + length : 0;
                if (span > max_elements || (length > 100003 && t > 2))
                    continue;
                batch b = {0, type, rows, span, length, pitch, NULL, CLREDUCE_UINT32,
                           (li + ci) % 5 == 4, leads[ci % 4][0], leads[ci % 4][1]};
                cases++;
                failed += !run_batch(&b, x, y);
            }
    }
    printf("dot_rows: %zu cases, %zu failed\n", cases, failed);
    free(x);
    free(y);
    assert_int_equal(failed, 0);
}

/* ---- segments -------------------------------------------------------------------- */

static void test_segments(void **state)
{
    (void)state;
    tc_seed_for("dot_segments");
    const size_t count = 300000;
    uint64_t *offsets = malloc((TSL_MAX_SEGMENTS + 1) * sizeof *offsets);
    void *x = malloc(count * 8 + 64), *y = malloc(count * 8 + 64);
    assert_true(offsets && x && y);
    size_t cases = 0, failed = 0;
    g_reports = 0;
    for (size_t t = 0; t < 6; t++) {
        clreduce_type type = tc_all_types[t];
        if (!tc_type_supported(g_ctx, type))
            continue;
        for (int kind = 0; kind < LAYOUT_COUNT; kind++) {
            size_t segments;
            size_t reach = tsl_make_layout((layout_kind)kind, count, offsets, &segments);
            batch b = {1, type, segments, reach, 0, 0, offsets,
                       (kind + (int)t) % 2 ? CLREDUCE_UINT64 : CLREDUCE_UINT32, kind % 4 == 3,
                       leads[kind % 4][0], leads[kind % 4][1]};
            cases++;
            if (!run_batch(&b, x, y)) {
                failed++;
                printf("  (layout %s)\n", tsl_layout_names[kind]);
            }
        }
    }
    printf("dot_segments: %zu cases, %zu failed\n", cases, failed);
    free(offsets);
    free(x);
    free(y);
    assert_int_equal(failed, 0);
}

/* ---- a reproducible context --------------------------------------------------------- */

/* Each result of b in g_repro bit for bit clreduce_dot() of its range alone
 * there; returns the number of results that differ. */
static size_t g_compared;

static size_t reproducible_mismatches(const batch *b, const void *x, const void *y)
{
    size_t es = tc_elem_size(b->type), wrong = 0;
    unsigned char *got = malloc((b->items ? b->items : 1) * es);
    assert_non_null(got);
    clreduce_status s = enqueue_batch(g_repro, b, x, y, got);
    if (s != CLREDUCE_SUCCESS)
        fail_msg("reproducible %s: %s", b->segments ? "segments" : "rows",
                 clreduce_last_error(g_repro));
    for (size_t i = 0; i < b->items; i++) {
        unsigned char want[8];
        const unsigned char *xi = (const unsigned char *)x + item_start(b, i) * es;
        const unsigned char *yi = (const unsigned char *)y + item_start(b, i) * es;
        assert_int_equal(clreduce_dot_host(g_repro, b->type, CLREDUCE_AUTO, xi, yi,
                                           item_length(b, i), want),
                         CLREDUCE_SUCCESS);
        g_compared++;
        if (memcmp(want, got + i * es, es) != 0 && wrong++ < 3)
            printf("FAILED reproducible %s %zu of %zu (%zu elements) of %s\n",
                   b->segments ? "segment" : "row", i, b->items, item_length(b, i),
                   tc_type_name(b->type));
    }
    free(got);
    return wrong;
}

static void test_reproducible(void **state)
{
    (void)state;
    if (!g_repro) {
        printf("no reproducible context: skipped\n");
        skip();
    }
    tc_seed_for("dot_reproducible");
    static const size_t lengths[] = {1, 33, 700, 16384, 40000};
    const size_t count = 200000;
    uint64_t *offsets = malloc((TSL_MAX_SEGMENTS + 1) * sizeof *offsets);
    void *x = malloc(count * 8), *y = malloc(count * 8);
    assert_true(offsets && x && y);
    size_t wrong = 0;
    for (int t = 0; t < 2; t++) {
        clreduce_type type = t ? CLREDUCE_DOUBLE : CLREDUCE_FLOAT;
        if (!tc_type_supported(g_ctx, type) ||
            clreduce_check_support(g_repro, CLREDUCE_OP_DOT, type, CLREDUCE_REPRODUCIBLE) !=
                CLREDUCE_SUCCESS)
            continue;
        tcr_fill_mixed_magnitudes(type, x, count);
        tcr_fill_mixed_magnitudes(type, y, count);
        for (size_t li = 0; li < ARRAY_SIZE(lengths); li++) {
            size_t rows = count / (lengths[li] + 3) < 40 ? count / (lengths[li] + 3) : 40;
            batch b = {0, type, rows, (rows - 1) * (lengths[li] + 3) + lengths[li], lengths[li],
                       lengths[li] + 3, NULL, CLREDUCE_UINT32, 0, 3, 6};
            wrong += reproducible_mismatches(&b, x, y);
        }
        static const layout_kind kinds[] = {LAYOUT_MIXED, LAYOUT_WHOLE, LAYOUT_HUGE_TINY,
                                            LAYOUT_LONG};
        for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
            size_t segments, reach = tsl_make_layout(kinds[k], count, offsets, &segments);
            if (segments > 2000) /* one clreduce_dot_host a segment */
                segments = 2000, reach = (size_t)offsets[segments];
            batch b = {1, type, segments, reach, 0, 0, offsets, CLREDUCE_UINT64, 0, 3, 6};
            wrong += reproducible_mismatches(&b, x, y);
        }
    }
    printf("reproducible: %zu results compared, %zu differ\n", g_compared, wrong);
    free(offsets);
    free(x);
    free(y);
    assert_int_equal(wrong, 0);
}

/* ---- running dot products ----------------------------------------------------------- */

/* The products x[i] * y[i] rounded to the type (integers wrapped), whose
 * sum scan a dot scan is. */
static void products(clreduce_type type, const void *x, const void *y, size_t n, void *out)
{
    for (size_t i = 0; i < n; i++) {
        if (type == CLREDUCE_FLOAT) {
            volatile float p = ((const float *)x)[i] * ((const float *)y)[i];
            ((float *)out)[i] = p;
        } else if (type == CLREDUCE_DOUBLE) {
            volatile double p = ((const double *)x)[i] * ((const double *)y)[i];
            ((double *)out)[i] = p;
        } else if (tc_elem_size(type) == 4) {
            ((uint32_t *)out)[i] = ((const uint32_t *)x)[i] * ((const uint32_t *)y)[i];
        } else {
            ((uint64_t *)out)[i] = ((const uint64_t *)x)[i] * ((const uint64_t *)y)[i];
        }
    }
}

/* clreduce_dot_scan on every type and kind at awkward sizes, x and y at
 * offsets of their buffers (or y = x), the output between sentinels, and
 * the _host form bitwise the same. */
static void test_scan(void **state)
{
    (void)state;
    tc_seed_for("dot_scan");
    static const size_t sizes[] = {1, 31, 33, 257, 4097, TC_LARGE_COUNT};
    const size_t most = TC_LARGE_COUNT;
    unsigned char *x = malloc(most * 8), *y = malloc(most * 8), *p = malloc(most * 8);
    unsigned char *out = malloc((most + 3) * 8), *host = malloc(most * 8);
    assert_true(x && y && p && out && host);
    size_t cases = 0, failed = 0;
    for (size_t t = 0; t < 6; t++) {
        clreduce_type type = tc_all_types[t];
        if (!tc_type_supported(g_ctx, type))
            continue;
        const size_t es = tc_elem_size(type);
        for (size_t si = 0; si < ARRAY_SIZE(sizes); si++)
            for (int k = 0; k < 2; k++) {
                clreduce_scan_kind kind = k ? CLREDUCE_EXCLUSIVE : CLREDUCE_INCLUSIVE;
                size_t n = sizes[si];
                int same = (si + (size_t)k) % 3 == 2;
                tc_op_fill(CLREDUCE_OP_DOT, type, x, n);
                tc_op_fill(CLREDUCE_OP_DOT, type, y, n);
                const void *yy = same ? x : y;
                products(type, x, yy, n, p);
                unsigned char *hx = poisoned_copy(type, x, n, 3);
                unsigned char *hy = poisoned_copy(type, yy, n, 5);
                cl_mem mx = tc_make_buffer(g_ctx, (n + 3 + TAIL) * es, hx);
                cl_mem my = same ? mx : tc_make_buffer(g_ctx, (n + 5 + TAIL) * es, hy);
                memset(out, TC_SENTINEL_BYTE, (n + 3) * es);
                cl_mem mo = tc_make_buffer(g_ctx, (n + 3) * es, out);
                cl_event done = NULL;
                clreduce_status st = clreduce_dot_scan(g_ctx, g_queue, type, kind,
                                                       CLREDUCE_SCAN_AUTO, mx, 3, my,
                                                       same ? 3 : 5, n, mo, 2, 0, NULL, &done);
                char why[300] = "";
                int ok = st == CLREDUCE_SUCCESS;
                if (ok) {
                    tc_read_buffer(g_queue, mo, out, (n + 3) * es, 1, &done);
                    clReleaseEvent(done);
                    ok = tc_scan_matches(CLREDUCE_OP_SUM, type, kind, p, n, out + 2 * es, why,
                                         sizeof why) &&
                         tc_first_changed_outside(out, n + 3, 2, n, es) == SIZE_MAX;
                    if (ok && (clreduce_dot_scan_host(g_ctx, type, kind, CLREDUCE_SCAN_AUTO, x,
                                                      yy, n, host) != CLREDUCE_SUCCESS ||
                               memcmp(host, out + 2 * es, n * es) != 0)) {
                        snprintf(why, sizeof why, "the _host form differs");
                        ok = 0;
                    }
                } else {
                    snprintf(why, sizeof why, "%s", clreduce_last_error(g_ctx));
                }
                cases++;
                if (!ok && failed++ < MAX_REPORTS)
                    printf("FAILED dot scan %s %s n=%zu%s: %s %s\n", tc_type_name(type),
                           tc_scan_kind_name(kind), n, same ? " y = x" : "",
                           clreduce_status_string(st), why);
                clReleaseMemObject(mo);
                if (my != mx)
                    clReleaseMemObject(my);
                clReleaseMemObject(mx);
                free(hx);
                free(hy);
            }
    }
    printf("dot scans: %zu cases, %zu failed\n", cases, failed);
    free(x), free(y), free(p), free(out), free(host);
    assert_int_equal(failed, 0);
}

/* ---- bad arguments ------------------------------------------------------------------ */

static void test_bad_arguments(void **state)
{
    (void)state;
    const clreduce_type f = CLREDUCE_FLOAT;
    float input_data[64];
    unsigned char output_bytes[64];
    tc_guarded g;
    tc_make_guarded(g_ctx, g_queue, input_data, 64, output_bytes, sizeof output_bytes, &g);
    uint32_t offsets[4] = {0, 3, 3, 9};
    cl_mem mo = tc_make_buffer(g_ctx, sizeof offsets, offsets);
    cl_mem small = tc_make_buffer(g_ctx, 8 * sizeof(float), NULL);

    static const char *const y_words[] = {"input2", "NULL", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "rows without y", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      y_words,
                      clreduce_dot_rows(g_ctx, g_queue, f, g.input, 0, NULL, 0, 3, 3, 0,
                                        g.output, 0, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "segments without y", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      y_words,
                      clreduce_dot_segments(g_ctx, g_queue, f, g.input, 0, NULL, 0, 9, mo, 0,
                                            CLREDUCE_UINT32, 3, g.output, 0, 0, NULL, &done));
    static const char *const past_words[] = {"input2", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "rows of y past its buffer", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, past_words,
                      clreduce_dot_rows(g_ctx, g_queue, f, g.input, 0, small, 0, 3, 3, 0,
                                        g.output, 0, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "y past its buffer by its offset",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, past_words,
                      clreduce_dot_segments(g_ctx, g_queue, f, g.input, 0, small, 1, 8, mo, 0,
                                            CLREDUCE_UINT32, 2, g.output, 0, 0, NULL, &done));
    static const char *const overlap_words[] = {"overlap", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "results over y", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      overlap_words,
                      clreduce_dot_rows(g_ctx, g_queue, f, g.input, 0, g.output, 0, 3, 3, 0,
                                        g.output, 2, 0, NULL, &done));
    static const char *const pitch_words[] = {"row_pitch", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "pitch below the length", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, pitch_words,
                      clreduce_dot_rows(g_ctx, g_queue, f, g.input, 0, g.input, 0, 3, 3, 2,
                                        g.output, 0, 0, NULL, &done));
    static const char *const half_words[] = {"half", "dot", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "half", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, half_words,
                      clreduce_dot_rows(g_ctx, g_queue, CLREDUCE_HALF, g.input, 0, g.input, 0, 3,
                                        3, 0, g.output, 0, 0, NULL, &done));
    static const char *const offsets_words[] = {"offsets", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "no offsets", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      offsets_words,
                      clreduce_dot_segments(g_ctx, g_queue, f, g.input, 0, g.input, 0, 9, NULL,
                                            0, CLREDUCE_UINT32, 3, g.output, 0, 0, NULL, &done));
    static const char *const call_words[] = {"clreduce_dot_rows", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "dot through the rows of one input", CLREDUCE_ERROR_UNSUPPORTED,
                      g_ctx, call_words,
                      clreduce_reduce_rows(g_ctx, g_queue, CLREDUCE_OP_DOT, f, g.input, 0, 3, 3,
                                           0, g.output, 0, 0, NULL, &done));
    static const char *const scan_call_words[] = {"clreduce_dot_scan", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "dot through the scan of one input", CLREDUCE_ERROR_UNSUPPORTED,
                      g_ctx, scan_call_words,
                      clreduce_scan(g_ctx, g_queue, CLREDUCE_OP_DOT, f, CLREDUCE_INCLUSIVE,
                                    CLREDUCE_SCAN_AUTO, g.input, 0, 9, g.output, 0, 0, NULL,
                                    &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan without y", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      y_words,
                      clreduce_dot_scan(g_ctx, g_queue, f, CLREDUCE_INCLUSIVE,
                                        CLREDUCE_SCAN_AUTO, g.input, 0, NULL, 0, 9, g.output, 0,
                                        0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan output over y", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      overlap_words,
                      clreduce_dot_scan(g_ctx, g_queue, f, CLREDUCE_INCLUSIVE,
                                        CLREDUCE_SCAN_AUTO, g.input, 0, g.output, 0, 9, g.output,
                                        4, 0, NULL, &done));
    static const char *const variant_words[] = {"lookback", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "scan by look-back", CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                      variant_words,
                      clreduce_dot_scan(g_ctx, g_queue, f, CLREDUCE_INCLUSIVE,
                                        CLREDUCE_SCAN_LOOKBACK, g.input, 0, g.input, 0, 9,
                                        g.output, 0, 0, NULL, &done));
    assert_int_equal(clreduce_check_scan_support(g_ctx, CLREDUCE_OP_DOT, f, CLREDUCE_SCAN_AUTO),
                     CLREDUCE_SUCCESS);
    if (g_repro) {
        static const char *const repro_words[] = {"reproducible", NULL};
        tc_check_status_and_message(
            "float scan in a reproducible context",
            clreduce_check_scan_support(g_repro, CLREDUCE_OP_DOT, f, CLREDUCE_SCAN_AUTO),
            CLREDUCE_ERROR_UNSUPPORTED, g_repro, repro_words);
        assert_int_equal(clreduce_check_scan_support(g_repro, CLREDUCE_OP_DOT, CLREDUCE_INT32,
                                                     CLREDUCE_SCAN_AUTO),
                         CLREDUCE_SUCCESS);
    }
    static const char *const seg_call_words[] = {"clreduce_dot_segments", NULL};
    TC_EXPECT_FAILURE(&g, g_ctx, "dot through the segments of one input",
                      CLREDUCE_ERROR_UNSUPPORTED, g_ctx, seg_call_words,
                      clreduce_reduce_segments(g_ctx, g_queue, CLREDUCE_OP_DOT, f, g.input, 0, 9,
                                               mo, 0, CLREDUCE_UINT32, 3, g.output, 0, 0, NULL,
                                               &done));

    /* The blocking forms: a status, a message, the results untouched. */
    float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, results[3] = {-1, -1, -1};
    uint32_t bad_offsets[4] = {0, 5, 4, 9};
    clreduce_status s = clreduce_dot_rows_host(g_ctx, f, x, NULL, 3, 3, 0, results);
    tc_check_status_and_message("host rows without y", s, CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                                y_words);
    s = clreduce_dot_rows_host(g_ctx, f, x, x, 3, 3, 0, (float *)x + 1);
    tc_check_status_and_message("host results over x", s, CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                                overlap_words);
    static const char *const decrease_words[] = {"offsets[2]", "decrease", NULL};
    s = clreduce_dot_segments_host(g_ctx, f, x, x, 9, bad_offsets, CLREDUCE_UINT32, 3, results);
    tc_check_status_and_message("host offsets that decrease", s,
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, decrease_words);
    for (int i = 0; i < 3; i++)
        assert_true(results[i] == -1);
    assert_true(x[1] == 2);
    /* Nothing to multiply: 0 in every result, x and y may then be NULL. */
    assert_int_equal(clreduce_dot_rows_host(g_ctx, f, NULL, NULL, 3, 0, 0, results),
                     CLREDUCE_SUCCESS);
    for (int i = 0; i < 3; i++)
        assert_true(results[i] == 0 && !signbit(results[i]));
    /* y the same array as x: squares. */
    assert_int_equal(clreduce_dot_segments_host(g_ctx, f, x, x, 9, offsets, CLREDUCE_UINT32, 3,
                                                results),
                     CLREDUCE_SUCCESS);
    assert_true(results[0] == 14 && results[1] == 0 && results[2] == 16 + 25 + 36 + 49 + 64 + 81);
    clReleaseMemObject(mo);
    clReleaseMemObject(small);
    tc_release_guarded(&g);
}

int main(void)
{
    g_ctx = tc_start("unit.dot_batches", &g_queue, NULL);
    g_repro = reproducible_context(g_ctx);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_arguments), cmocka_unit_test(test_rows),
        cmocka_unit_test(test_segments), cmocka_unit_test(test_reproducible),
        cmocka_unit_test(test_scan),
    };
    int failed = tc_run_tests("unit.dot_batches", tests, ARRAY_SIZE(tests));
    if (g_repro)
        clreduce_destroy(g_repro);
    return tc_finish(g_ctx, failed, g_queue, NULL);
}
