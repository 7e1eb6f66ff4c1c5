/* unit.custom_rows: rows and segments reduced and rows scanned with
 * user-defined operators (clreduce_reduce_rows_custom,
 * clreduce_reduce_segments_custom, clreduce_scan_rows_custom and their
 * _host forms) against a CPU reference, every result compared bit for bit:
 * a struct accumulator of 12 bytes (min, max, count of floats), an index
 * sum (commutative, reads i), a 2x2 integer matrix product that reads i
 * and an affine map of two inputs (neither commutes: the order of elements
 * is checked), a weighted sum of two inputs, and "first element" (no
 * identity). Rows of 1 to 10^5 + 3 elements, pitched rows with poisoned
 * padding, rows long enough to be cut into parts, segments of awkward
 * lengths mixed with empty and tiny ones, 32- and 64-bit offsets at an
 * offset; the inputs at offsets between poisoned elements and the results
 * between sentinels. Empty rows and segments (the identity, filled or
 * copied, on in-order and out-of-order queues; zero bytes or a refusal
 * without identity), and bad arguments refused with nothing written. Rows
 * of 1 to 4097 elements scanned inclusive and, with an identity, exclusive
 * (each prefix compared), the output's rows pitched with their padding and
 * the results around them checked untouched.
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

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;

#define IN_OFFSET 5
#define IN2_OFFSET 2
#define RESULT_OFFSET 3
#define OFFSETS_OFFSET 1
#define MAX_ACC 32
/* Elements of one case at most: keeps the suite quick on two CPU cores. */
#define MAX_ELEMENTS ((size_t)3 << 20)

/* ---- the operators and their CPU references ----------------------------------------- */

/* An operator under test: its description and the same on the host, with
 * accumulators as bytes of the device's layout. */
typedef struct host_op {
    clreduce_operator_desc desc;
    size_t es; /* bytes of an input element */
    void (*fill)(void *data, size_t n);
    void (*identity)(void *acc); /* NULL: none */
    void (*map)(const void *x, const void *y, uint64_t i, void *acc);
    void (*combine)(void *a, const void *b); /* a = combine(a, b) */
    uint64_t poison;                         /* an element that changes any result */
} host_op;

typedef struct stats {
    float lo, hi;
    uint32_t count;
} stats;

static void stats_fill(void *data, size_t n)
{
    float *x = data;
    for (size_t i = 0; i < n; i++)
        x[i] = (float)tc_rand_below(4000) * 0.25f - 499.875f; /* never zero */
}
static void stats_identity(void *acc) { *(stats *)acc = (stats){INFINITY, -INFINITY, 0}; }
static void stats_map(const void *x, const void *y, uint64_t i, void *acc)
{
    (void)y;
    (void)i;
    float v = *(const float *)x;
    *(stats *)acc = (stats){v, v, 1};
}
static void stats_combine(void *a, const void *b)
{
    stats *p = a;
    const stats *q = b;
    *p = (stats){fminf(p->lo, q->lo), fmaxf(p->hi, q->hi), p->count + q->count};
}

static void ints_fill(void *data, size_t n)
{
    uint32_t *x = data;
    for (size_t i = 0; i < n; i++)
        x[i] = (uint32_t)tc_rand64();
}
static void longs_fill(void *data, size_t n)
{
    uint64_t *x = data;
    for (size_t i = 0; i < n; i++)
        x[i] = tc_rand64();
}

static void isum_identity(void *acc) { *(uint64_t *)acc = 0; }
static void isum_map(const void *x, const void *y, uint64_t i, void *acc)
{
    (void)y;
    *(uint64_t *)acc = (uint64_t)*(const uint32_t *)x * (i + 1);
}
static void sum_combine(void *a, const void *b) { *(uint64_t *)a += *(const uint64_t *)b; }

typedef struct mat {
    uint32_t a, b, c, d;
} mat;

static void mat_identity(void *acc) { *(mat *)acc = (mat){1, 0, 0, 1}; }
/* [[1 + p q, p], [q, 1]]: determinant 1, so that products never collapse. */
static void mat_map(const void *x, const void *y, uint64_t i, void *acc)
{
    (void)y;
    uint32_t v = *(const uint32_t *)x, p = v & 255, q = (v >> 8 & 255) + (uint32_t)i;
    *(mat *)acc = (mat){1 + p * q, p, q, 1};
}
static void mat_combine(void *a, const void *b)
{
    mat p = *(mat *)a, q = *(const mat *)b;
    *(mat *)a = (mat){p.a * q.a + p.b * q.c, p.a * q.b + p.b * q.d, p.c * q.a + p.d * q.c,
                      p.c * q.b + p.d * q.d};
}

typedef struct affine {
    uint64_t a, c;
} affine;

static void affine_identity(void *acc) { *(affine *)acc = (affine){1, 0}; }
static void affine_map(const void *x, const void *y, uint64_t i, void *acc)
{
    (void)i;
    *(affine *)acc = (affine){*(const uint64_t *)x | 1, *(const uint64_t *)y};
}
/* v -> a v + c, then b's map. */
static void affine_combine(void *a, const void *b)
{
    affine p = *(affine *)a, q = *(const affine *)b;
    *(affine *)a = (affine){q.a * p.a, q.a * p.c + q.c};
}

static void wdot_map(const void *x, const void *y, uint64_t i, void *acc)
{
    *(uint64_t *)acc = *(const uint64_t *)x * *(const uint64_t *)y + i;
}

static void first_map(const void *x, const void *y, uint64_t i, void *acc)
{
    (void)y;
    (void)i;
    *(int32_t *)acc = *(const int32_t *)x;
}
static void first_combine(void *a, const void *b)
{
    (void)a;
    (void)b;
}

static const host_op op_stats = {
    {.name = "stats", .input_type = CLREDUCE_FLOAT, .inputs = 1, .acc_type = "stats",
     .acc_source = "typedef struct { float lo, hi; uint count; } stats;",
     .acc_size = sizeof(stats), .acc_align = _Alignof(stats),
     .identity = "(stats){INFINITY, -INFINITY, 0}", .map = "(stats){x, x, 1}",
     .combine = "(stats){fmin(a.lo, b.lo), fmax(a.hi, b.hi), a.count + b.count}",
     .commutative = 1},
    4, stats_fill, stats_identity, stats_map, stats_combine, 0x7149f2cau /* 1e30f */};

static const host_op op_isum = {
    {.name = "isum", .input_type = CLREDUCE_UINT32, .inputs = 1, .acc_type = "ulong",
     .acc_size = 8, .acc_align = 8, .identity = "0", .map = "(ulong)x * (i + 1)",
     .combine = "a + b", .commutative = 1},
    4, ints_fill, isum_identity, isum_map, sum_combine, 0x7f7f7f7fu};

static const host_op op_mat = {
    {.name = "matprod", .input_type = CLREDUCE_UINT32, .inputs = 1, .acc_type = "mat",
     .acc_source = "typedef struct { uint a, b, c, d; } mat;\n"
                   "mat mat_mul(mat p, mat q)\n"
                   "{\n"
                   "    return (mat){p.a * q.a + p.b * q.c, p.a * q.b + p.b * q.d,\n"
                   "                 p.c * q.a + p.d * q.c, p.c * q.b + p.d * q.d};\n"
                   "}\n",
     .acc_size = sizeof(mat), .acc_align = _Alignof(mat), .identity = "(mat){1, 0, 0, 1}",
     .map = "(mat){1 + (x & 255) * ((x >> 8 & 255) + (uint)i), x & 255,\n"
            "      (x >> 8 & 255) + (uint)i, 1}",
     .combine = "mat_mul(a, b)"},
    4, ints_fill, mat_identity, mat_map, mat_combine, 0x7f7f7f7fu};

static const host_op op_affine = {
    {.name = "affine", .input_type = CLREDUCE_UINT64, .inputs = 2, .acc_type = "affine",
     .acc_source = "typedef struct { ulong a, c; } affine;", .acc_size = sizeof(affine),
     .acc_align = _Alignof(affine), .identity = "(affine){1, 0}", .map = "(affine){x | 1, y}",
     .combine = "(affine){b.a * a.a, b.a * a.c + b.c}"},
    8, longs_fill, affine_identity, affine_map, affine_combine, UINT64_C(0x7f7f7f7f7f7f7f7f)};

static const host_op op_wdot = {
    {.name = "wdot", .input_type = CLREDUCE_UINT64, .inputs = 2, .acc_type = "ulong",
     .acc_size = 8, .acc_align = 8, .identity = "0", .map = "x * y + i", .combine = "a + b",
     .commutative = 1},
    8, longs_fill, isum_identity, wdot_map, sum_combine, UINT64_C(0x7f7f7f7f7f7f7f7f)};

static const host_op op_first = {
    {.name = "first", .input_type = CLREDUCE_INT32, .inputs = 1, .acc_type = "int",
     .acc_size = 4, .acc_align = 4, .map = "x", .combine = "a"},
    4, ints_fill, NULL, first_map, first_combine, 0x7f7f7f7fu};

/* The reduction of n elements of x (and y) into acc; what the device writes
 * for no element: the identity, or zero bytes without one. */
static void reference(const host_op *h, const unsigned char *x, const unsigned char *y, size_t n,
                      void *acc)
{
    memset(acc, 0, h->desc.acc_size);
    if (n == 0) {
        if (h->identity)
            h->identity(acc);
        return;
    }
    h->map(x, y, 0, acc);
    unsigned char next[MAX_ACC];
    for (size_t i = 1; i < n; i++) {
        h->map(x + i * h->es, y ? y + i * h->es : NULL, i, next);
        h->combine(acc, next);
    }
}

static clreduce_operator *create_or_fail(const host_op *h)
{
    clreduce_operator *op = NULL;
    clreduce_status st = clreduce_operator_create(g_ctx, &h->desc, &op);
    if (st != CLREDUCE_SUCCESS)
        print_error("creating operator %s: %s: %s\n", h->desc.name, clreduce_status_string(st),
                    clreduce_last_error(g_ctx));
    assert_int_equal(st, CLREDUCE_SUCCESS);
    return op;
}

/* ---- one call --------------------------------------------------------------------------- */

/* A batched call: rows (offsets NULL) or segments. The inputs x (and y)
 * hold `span` elements as laid out from element 0 (padding included). */
typedef struct batch {
    size_t rows, length, pitch;   /* rows; pitch as passed (0: length) */
    const uint64_t *offsets;      /* segments: segments + 1, or NULL */
    size_t segments;
    clreduce_type offsets_type;
    size_t span;                  /* elements of the input(s) */
    cl_command_queue queue;       /* NULL: g_queue */
} batch;

static size_t results_of(const batch *b) { return b->offsets ? b->segments : b->rows; }

/* Where result r's elements lie in x: from *start, *n of them. */
static void range_of(const batch *b, size_t r, size_t *start, size_t *n)
{
    if (b->offsets) {
        *start = (size_t)b->offsets[r];
        *n = (size_t)(b->offsets[r + 1] - b->offsets[r]);
    } else {
        *start = r * (b->pitch ? b->pitch : b->length);
        *n = b->length;
    }
}

/* A buffer of `lead` poisoned elements, then the elements of data that lie
 * in the batch's ranges (every other one poisoned), then three more. */
static cl_mem input_buffer(const host_op *h, const batch *b, const unsigned char *data,
                           size_t lead)
{
    size_t total = lead + b->span + 3, es = h->es;
    unsigned char *host = malloc(total * es);
    assert_non_null(host);
    for (size_t i = 0; i < total; i++)
        memcpy(host + i * es, &h->poison, es);
    for (size_t r = 0; r < results_of(b); r++) {
        size_t start, n;
        range_of(b, r, &start, &n);
        memcpy(host + (lead + start) * es, data + start * es, n * es);
    }
    cl_mem m = tc_make_buffer(g_ctx, total * es, host);
    free(host);
    return m;
}

/* Compares results[0 .. count) with the reference; prints the first few
 * wrong ones and fails. */
static void check_results(const char *what, const host_op *h, const batch *b,
                          const unsigned char *x, const unsigned char *y,
                          const unsigned char *results)
{
    size_t as = h->desc.acc_size, wrong = 0;
    unsigned char want[MAX_ACC];
    for (size_t r = 0; r < results_of(b); r++) {
        size_t start, n;
        range_of(b, r, &start, &n);
        reference(h, x + start * h->es, y ? y + start * h->es : NULL, n, want);
        if (memcmp(results + r * as, want, as) == 0)
            continue;
        if (wrong++ < 5) {
            char got_hex[2 * MAX_ACC + 1], want_hex[2 * MAX_ACC + 1];
            for (size_t k = 0; k < as; k++) {
                snprintf(got_hex + 2 * k, 3, "%02x", results[r * as + k]);
                snprintf(want_hex + 2 * k, 3, "%02x", want[k]);
            }
            print_error("%s: %s result %zu (%zu elements from %zu): %s, want %s\n", what,
                        h->desc.name, r, n, start, got_hex, want_hex);
        }
    }
    if (wrong)
        print_error("%s: %s: %zu of %zu results wrong\n", what, h->desc.name, wrong,
                    results_of(b));
    assert_int_equal(wrong, 0);
}

/* Runs the batch on the device, the input(s) at offsets between poison,
 * the offsets at OFFSETS_OFFSET, the results at RESULT_OFFSET between
 * sentinels, and checks every result and sentinel. */
static void run_device(const char *what, const host_op *h, clreduce_operator *op, const batch *b,
                       const unsigned char *x, const unsigned char *y)
{
    size_t as = h->desc.acc_size, count = results_of(b);
    size_t rtotal = RESULT_OFFSET + count + 2;
    unsigned char *res = malloc(rtotal * as);
    assert_non_null(res);
    memset(res, TC_SENTINEL_BYTE, rtotal * as);
    cl_mem in = input_buffer(h, b, x, IN_OFFSET);
    cl_mem in2 = y ? input_buffer(h, b, y, IN2_OFFSET) : NULL;
    cl_mem out = tc_make_buffer(g_ctx, rtotal * as, res);
    cl_mem ob = NULL;
    cl_event done = NULL;
    cl_command_queue q = b->queue ? b->queue : g_queue;
    clreduce_status st;
    if (b->offsets) {
        size_t os = clreduce_type_size(b->offsets_type), ototal = OFFSETS_OFFSET + count + 2;
        unsigned char *offs = malloc(ototal * os);
        assert_non_null(offs);
        memset(offs, 0xee, ototal * os);
        for (size_t i = 0; i <= count; i++) {
            uint32_t v32 = (uint32_t)b->offsets[i];
            memcpy(offs + (OFFSETS_OFFSET + i) * os, os == 4 ? (void *)&v32 : (void *)&b->offsets[i],
                   os);
        }
        ob = tc_make_buffer(g_ctx, ototal * os, offs);
        free(offs);
        st = clreduce_reduce_segments_custom(g_ctx, q, op, in, IN_OFFSET, in2, IN2_OFFSET,
                                             b->span, ob, OFFSETS_OFFSET, b->offsets_type, count,
                                             out, RESULT_OFFSET, 0, NULL, &done);
    } else {
        st = clreduce_reduce_rows_custom(g_ctx, q, op, in, IN_OFFSET, in2, IN2_OFFSET, b->rows,
                                         b->length, b->pitch, out, RESULT_OFFSET, 0, NULL, &done);
    }
    if (st != CLREDUCE_SUCCESS)
        print_error("%s: %s: %s: %s\n", what, h->desc.name, clreduce_status_string(st),
                    clreduce_last_error(g_ctx));
    assert_int_equal(st, CLREDUCE_SUCCESS);
    tc_read_buffer(q, out, res, rtotal * as, 1, &done);
    clReleaseEvent(done);
    size_t changed = tc_first_changed_outside(res, rtotal, RESULT_OFFSET, count, as);
    if (changed != SIZE_MAX)
        print_error("%s: %s: result buffer element %zu outside the results changed\n", what,
                    h->desc.name, changed);
    assert_true(changed == SIZE_MAX);
    check_results(what, h, b, x, y, res + RESULT_OFFSET * as);
    if (ob)
        clReleaseMemObject(ob);
    clReleaseMemObject(out);
    if (in2)
        clReleaseMemObject(in2);
    clReleaseMemObject(in);
    free(res);
}

/* Runs the batch through the _host form (inputs dense from element 0). */
static void run_host(const char *what, const host_op *h, clreduce_operator *op, const batch *b,
                     const unsigned char *x, const unsigned char *y)
{
    size_t as = h->desc.acc_size, count = results_of(b);
    unsigned char *res = malloc((count + 1) * as);
    assert_non_null(res);
    clreduce_status st;
    if (b->offsets) {
        uint32_t *o32 = malloc((count + 1) * sizeof *o32);
        assert_non_null(o32);
        for (size_t i = 0; i <= count; i++)
            o32[i] = (uint32_t)b->offsets[i];
        st = clreduce_reduce_segments_custom_host(
            g_ctx, op, x, y, b->span,
            b->offsets_type == CLREDUCE_UINT32 ? (const void *)o32 : (const void *)b->offsets,
            b->offsets_type, count, res);
        free(o32);
    } else {
        st = clreduce_reduce_rows_custom_host(g_ctx, op, x, y, b->rows, b->length, b->pitch, res);
    }
    if (st != CLREDUCE_SUCCESS)
        print_error("%s (host): %s: %s: %s\n", what, h->desc.name, clreduce_status_string(st),
                    clreduce_last_error(g_ctx));
    assert_int_equal(st, CLREDUCE_SUCCESS);
    check_results(what, h, b, x, y, res);
    free(res);
}

/* Random inputs of n elements for h (y NULL for one input). */
static void make_inputs(const host_op *h, size_t n, unsigned char **x, unsigned char **y)
{
    *x = malloc((n ? n : 1) * h->es);
    assert_non_null(*x);
    h->fill(*x, n);
    *y = NULL;
    if (h->desc.inputs == 2) {
        *y = malloc((n ? n : 1) * h->es);
        assert_non_null(*y);
        h->fill(*y, n);
    }
}

/* ---- rows ---------------------------------------------------------------------------- */

static const size_t row_lengths[] = {1, 31, 33, 255, 257, 4097, 100003};
static const size_t row_counts[] = {1, 7, 300};

static void rows_of(const host_op *h, int host_too)
{
    clreduce_operator *op = create_or_fail(h);
    size_t cases = 0;
    for (size_t li = 0; li < ARRAY_SIZE(row_lengths); li++) {
        for (size_t ri = 0; ri < ARRAY_SIZE(row_counts); ri++) {
            size_t length = row_lengths[li], rows = row_counts[ri];
            size_t pitch = (li + ri) % 2 ? length + 3 : 0;
            size_t span = (rows - 1) * (pitch ? pitch : length) + length;
            if (span > MAX_ELEMENTS)
                continue;
            batch b = {.rows = rows, .length = length, .pitch = pitch, .span = span};
            unsigned char *x, *y;
            make_inputs(h, span, &x, &y);
            char what[96];
            snprintf(what, sizeof what, "%zu rows of %zu, pitch %zu", rows, length, pitch);
            run_device(what, h, op, &b, x, y);
            if (host_too && rows * length < 20000)
                run_host(what, h, op, &b, x, y);
            free(y);
            free(x);
            cases++;
        }
    }
    /* Two long rows: several work-groups per row, their parts' accumulators
     * combined by a second launch. */
    batch b = {.rows = 2, .length = TC_LARGE_COUNT, .pitch = TC_LARGE_COUNT + 1,
               .span = 2 * TC_LARGE_COUNT + 1};
    unsigned char *x, *y;
    make_inputs(h, b.span, &x, &y);
    run_device("2 rows of 2^20 + 7", h, op, &b, x, y);
    free(y);
    free(x);
    print_message("%s: %zu row shapes and two long rows\n", h->desc.name, cases);
    clreduce_operator_release(op);
}

static void test_rows_struct(void **state)
{
    (void)state;
    tc_seed_for("rows_struct");
    rows_of(&op_stats, 1);
}

static void test_rows_index_sum(void **state)
{
    (void)state;
    tc_seed_for("rows_index_sum");
    rows_of(&op_isum, 0);
}

static void test_rows_matrix_product(void **state)
{
    (void)state;
    tc_seed_for("rows_matrix_product");
    rows_of(&op_mat, 1);
}

static void test_rows_affine(void **state)
{
    (void)state;
    tc_seed_for("rows_affine");
    rows_of(&op_affine, 1);
}

static void test_rows_weighted(void **state)
{
    (void)state;
    tc_seed_for("rows_weighted");
    rows_of(&op_wdot, 0);
}

static void test_rows_first(void **state)
{
    (void)state;
    tc_seed_for("rows_first");
    rows_of(&op_first, 1);
}

/* ---- segments ------------------------------------------------------------------------ */

static const size_t segment_lengths[] = {0, 1, 31, 33, 255, 257, 4097, 100003};

typedef enum layout_kind { MIXED, TINY, ONE_LONG, LONG_AMONG_TINY, LAYOUTS } layout_kind;
static const char *const layout_names[] = {"mixed", "tiny", "one long", "long among tiny"};

/* Offsets of a layout (segments + 1 of them) into *offsets (malloc'd);
 * returns the count of elements, a few past the last segment's end. */
static size_t make_layout(layout_kind kind, int empty_ok, uint64_t **offsets, size_t *segments)
{
    size_t n = kind == MIXED ? 120 : kind == TINY ? 5000 : kind == ONE_LONG ? 1 : 3001;
    uint64_t *o = malloc((n + 1) * sizeof *o);
    assert_non_null(o);
    o[0] = kind == ONE_LONG ? 0 : 7; /* elements before the first segment */
    for (size_t i = 0; i < n; i++) {
        size_t len;
        if (kind == MIXED)
            len = segment_lengths[tc_rand_below(ARRAY_SIZE(segment_lengths))];
        else if (kind == ONE_LONG || (kind == LONG_AMONG_TINY && i == 1500))
            len = 100003;
        else
            len = tc_rand_below(4);
        if (len == 0 && !empty_ok)
            len = 1;
        o[i + 1] = o[i] + len;
    }
    *offsets = o;
    *segments = n;
    return (size_t)o[n] + 2;
}

static void segments_of(const host_op *h, int host_too)
{
    clreduce_operator *op = create_or_fail(h);
    for (layout_kind kind = 0; kind < LAYOUTS; kind++) {
        for (int wide = 0; wide < 2; wide++) {
            uint64_t *offsets;
            size_t segments;
            size_t count = make_layout(kind, h->identity != NULL, &offsets, &segments);
            batch b = {.offsets = offsets, .segments = segments,
                       .offsets_type = wide ? CLREDUCE_UINT64 : CLREDUCE_UINT32, .span = count};
            unsigned char *x, *y;
            make_inputs(h, count, &x, &y);
            char what[96];
            snprintf(what, sizeof what, "%zu segments (%s) of %zu elements, %s offsets",
                     segments, layout_names[kind], count, wide ? "64-bit" : "32-bit");
            run_device(what, h, op, &b, x, y);
            if (host_too && (kind == MIXED || kind == TINY))
                run_host(what, h, op, &b, x, y);
            free(y);
            free(x);
            free(offsets);
        }
    }
    clreduce_operator_release(op);
}

static void test_segments_struct(void **state)
{
    (void)state;
    tc_seed_for("segments_struct");
    segments_of(&op_stats, 1);
}

static void test_segments_index_sum(void **state)
{
    (void)state;
    tc_seed_for("segments_index_sum");
    segments_of(&op_isum, 0);
}

static void test_segments_matrix_product(void **state)
{
    (void)state;
    tc_seed_for("segments_matrix_product");
    segments_of(&op_mat, 1);
}

static void test_segments_affine(void **state)
{
    (void)state;
    tc_seed_for("segments_affine");
    segments_of(&op_affine, 1);
}

static void test_segments_weighted(void **state)
{
    (void)state;
    tc_seed_for("segments_weighted");
    segments_of(&op_wdot, 0);
}

static void test_segments_first(void **state)
{
    (void)state;
    tc_seed_for("segments_first");
    segments_of(&op_first, 1);
}

/* ---- empty rows and segments --------------------------------------------------------------- */

/* Every result of no element: the identity, written by a fill (16 bytes)
 * or by a fill and copies (12 bytes, which no fill pattern repeats), on an
 * in-order queue and, where the device has them, an out-of-order one
 * (where events order the copies). */
static void test_empty(void **state)
{
    (void)state;
    tc_seed_for("empty");
    const host_op *ops[] = {&op_stats, &op_mat};
    static const size_t counts[] = {1, 5, 1000};
    unsigned char x[64];
    memset(x, 0, sizeof x);
    cl_command_queue ooo = NULL;
    if (tc_device_supports_queue(g_ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
        ooo = tc_create_queue(g_ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    for (size_t oi = 0; oi < ARRAY_SIZE(ops); oi++) {
        clreduce_operator *op = create_or_fail(ops[oi]);
        for (size_t ci = 0; ci < ARRAY_SIZE(counts); ci++) {
            size_t n = counts[ci];
            uint64_t *zeros = calloc(n + 1, sizeof *zeros);
            assert_non_null(zeros);
            batch rows = {.rows = n, .length = 0, .span = 1};
            batch segs = {.offsets = zeros, .segments = n, .offsets_type = CLREDUCE_UINT64,
                          .span = 0};
            run_device("rows of no element", ops[oi], op, &rows, x, NULL);
            run_host("rows of no element", ops[oi], op, &rows, x, NULL);
            run_device("segments of no element", ops[oi], op, &segs, x, NULL);
            run_host("segments of no element", ops[oi], op, &segs, x, NULL);
            rows.queue = segs.queue = ooo;
            if (ooo) {
                run_device("rows of no element, out-of-order", ops[oi], op, &rows, x, NULL);
                run_device("segments of no element, out-of-order", ops[oi], op, &segs, x, NULL);
            }
            free(zeros);
        }
        clreduce_operator_release(op);
    }
    if (ooo)
        clReleaseCommandQueue(ooo);
    else
        print_message("no out-of-order queues on this device: those cases not run\n");
}

/* Without identity: rows of nothing and a count of 0 refused, empty
 * segments zero bytes on the device and refused by the host form. */
static void test_no_identity(void **state)
{
    (void)state;
    tc_seed_for("no_identity");
    clreduce_operator *op = create_or_fail(&op_first);
    int32_t data[16];
    for (int i = 0; i < 16; i++)
        data[i] = 1000 + i;
    unsigned char res[8 * 4];
    memset(res, TC_SENTINEL_BYTE, sizeof res);
    cl_mem in = tc_make_buffer(g_ctx, sizeof data, data), out = tc_make_buffer(g_ctx, sizeof res, res);
    uint32_t offs[] = {0, 3, 3, 10, 10};
    cl_mem ob = tc_make_buffer(g_ctx, sizeof offs, offs);
    const char *const words[] = {"first", "identity", NULL};
    cl_event done = TC_EVENT_SENTINEL;
    tc_check_status_and_message("rows of no element",
                                clreduce_reduce_rows_custom(g_ctx, g_queue, op, in, 0, NULL, 0, 4,
                                                            0, 0, out, 0, 0, NULL, &done),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, words);
    tc_check_status_and_message("segments of a count of 0",
                                clreduce_reduce_segments_custom(g_ctx, g_queue, op, in, 0, NULL, 0,
                                                                0, ob, 0, CLREDUCE_UINT32, 4, out,
                                                                0, 0, NULL, &done),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, words);
    int32_t host_res[4] = {7, 7, 7, 7};
    tc_check_status_and_message("host rows of no element",
                                clreduce_reduce_rows_custom_host(g_ctx, op, data, NULL, 4, 0, 0,
                                                                 host_res),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, words);
    tc_check_status_and_message("host segments with an empty one",
                                clreduce_reduce_segments_custom_host(g_ctx, op, data, NULL, 16,
                                                                     offs, CLREDUCE_UINT32, 4,
                                                                     host_res),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                                (const char *const[]){"segment 1", "empty", "identity", NULL});
    assert_true(host_res[0] == 7 && host_res[3] == 7);
    assert_true(done == TC_EVENT_SENTINEL);
    tc_check_buffer_unchanged(g_queue, out, res, sizeof res);
    /* No rows at all: nothing to refuse. */
    assert_int_equal(clreduce_reduce_rows_custom_host(g_ctx, op, data, NULL, 0, 0, 0, host_res),
                     CLREDUCE_SUCCESS);
    /* On the device, the empty segments get zero bytes. */
    assert_int_equal(clreduce_reduce_segments_custom(g_ctx, g_queue, op, in, 2, NULL, 0, 14, ob, 0,
                                                     CLREDUCE_UINT32, 4, out, 1, 0, NULL, &done),
                     CLREDUCE_SUCCESS);
    tc_read_buffer(g_queue, out, res, sizeof res, 1, &done);
    clReleaseEvent(done);
    int32_t got[4];
    memcpy(got, res + 4, sizeof got);
    assert_int_equal(got[0], data[2]);
    assert_int_equal(got[1], 0);
    assert_int_equal(got[2], data[5]);
    assert_int_equal(got[3], 0);
    assert_int_equal(res[0], TC_SENTINEL_BYTE);
    assert_int_equal(res[20], TC_SENTINEL_BYTE);
    clReleaseMemObject(ob);
    clReleaseMemObject(out);
    clReleaseMemObject(in);
    clreduce_operator_release(op);
}

/* ---- row scans ------------------------------------------------------------------------- */

static const size_t scan_lengths[] = {1, 31, 33, 255, 257, 4097};
static const size_t scan_row_counts[] = {1, 3, 100};

/* The expected output of a row scan of b: `total` results of sentinel
 * bytes, row r's prefixes from result lead + r * out_pitch. */
static unsigned char *scan_expected(const host_op *h, const batch *b, clreduce_scan_kind kind,
                                    size_t out_pitch, size_t lead, size_t total,
                                    const unsigned char *x, const unsigned char *y)
{
    size_t as = h->desc.acc_size, es = h->es;
    unsigned char *want = malloc(total * as), acc[MAX_ACC], next[MAX_ACC];
    assert_non_null(want);
    memset(want, TC_SENTINEL_BYTE, total * as);
    for (size_t r = 0; r < b->rows; r++) {
        size_t start, n;
        range_of(b, r, &start, &n);
        unsigned char *o = want + (lead + r * out_pitch) * as;
        for (size_t j = 0; j < n; j++) {
            const unsigned char *xj = x + (start + j) * es, *yj = y ? y + (start + j) * es : NULL;
            h->map(xj, yj, j, next);
            if (kind == CLREDUCE_EXCLUSIVE) {
                if (j == 0)
                    h->identity(acc);
                memcpy(o + j * as, acc, as);
                h->combine(acc, next);
            } else {
                if (j == 0)
                    memcpy(acc, next, as);
                else
                    h->combine(acc, next);
                memcpy(o + j * as, acc, as);
            }
        }
    }
    return want;
}

/* Compares `total` results with the expected ones, padding and sentinels
 * included; prints the first few that differ and fails. */
static void check_scan(const char *what, const host_op *h, const unsigned char *got,
                       const unsigned char *want, size_t total)
{
    size_t as = h->desc.acc_size, wrong = 0;
    for (size_t k = 0; k < total; k++) {
        if (memcmp(got + k * as, want + k * as, as) == 0)
            continue;
        if (wrong++ < 5)
            print_error("%s: %s: result %zu of the buffer differs (first bytes %02x, want "
                        "%02x)\n",
                        what, h->desc.name, k, got[k * as], want[k * as]);
    }
    if (wrong)
        print_error("%s: %s: %zu of %zu results wrong\n", what, h->desc.name, wrong, total);
    assert_int_equal(wrong, 0);
}

/* Scans the rows of b with op on the device (the inputs between poison at
 * IN_OFFSET and IN2_OFFSET, the output at RESULT_OFFSET between sentinels,
 * rows out_pitch results apart) and through the _host form when host_too,
 * and checks every result and every byte around them. */
static void run_scan(const char *what, const host_op *h, clreduce_operator *op, const batch *b,
                     clreduce_scan_kind kind, size_t out_pitch, int host_too,
                     const unsigned char *x, const unsigned char *y)
{
    size_t as = h->desc.acc_size, opitch = out_pitch ? out_pitch : b->length;
    size_t out_span = (b->rows - 1) * opitch + b->length, total = RESULT_OFFSET + out_span + 2;
    unsigned char *want = scan_expected(h, b, kind, opitch, RESULT_OFFSET, total, x, y);
    unsigned char *got = malloc(total * as);
    assert_non_null(got);
    memset(got, TC_SENTINEL_BYTE, total * as);
    cl_mem in = input_buffer(h, b, x, IN_OFFSET);
    cl_mem in2 = y ? input_buffer(h, b, y, IN2_OFFSET) : NULL;
    cl_mem out = tc_make_buffer(g_ctx, total * as, got);
    cl_event done = NULL;
    clreduce_status st = clreduce_scan_rows_custom(g_ctx, g_queue, op, kind, in, IN_OFFSET, in2,
                                                   IN2_OFFSET, b->rows, b->length, b->pitch,
                                                   out, RESULT_OFFSET, out_pitch, 0, NULL,
                                                   &done);
    if (st != CLREDUCE_SUCCESS)
        print_error("%s: %s: %s: %s\n", what, h->desc.name, clreduce_status_string(st),
                    clreduce_last_error(g_ctx));
    assert_int_equal(st, CLREDUCE_SUCCESS);
    tc_read_buffer(g_queue, out, got, total * as, 1, &done);
    clReleaseEvent(done);
    check_scan(what, h, got, want, total);
    if (host_too) {
        /* The same rows dense from element 0, the output from result 0. */
        memset(got, TC_SENTINEL_BYTE, total * as);
        st = clreduce_scan_rows_custom_host(g_ctx, op, kind, x, y, b->rows, b->length, b->pitch,
                                            out_pitch, got);
        if (st != CLREDUCE_SUCCESS)
            print_error("%s (host): %s: %s: %s\n", what, h->desc.name,
                        clreduce_status_string(st), clreduce_last_error(g_ctx));
        assert_int_equal(st, CLREDUCE_SUCCESS);
        check_scan(what, h, got, want + RESULT_OFFSET * as, out_span + 2);
    }
    clReleaseMemObject(out);
    if (in2)
        clReleaseMemObject(in2);
    clReleaseMemObject(in);
    free(got);
    free(want);
}

/* Every shape of scan_lengths and scan_row_counts, inclusive and (with an
 * identity) exclusive, the pitches padded or dense by turns. */
static void scan_rows_of(const host_op *h)
{
    clreduce_operator *op = create_or_fail(h);
    size_t cases = 0;
    for (size_t li = 0; li < ARRAY_SIZE(scan_lengths); li++) {
        for (size_t ri = 0; ri < ARRAY_SIZE(scan_row_counts); ri++) {
            size_t length = scan_lengths[li], rows = scan_row_counts[ri];
            size_t pitch = (li + ri) % 2 ? length + 3 : 0;
            size_t out_pitch = (li + ri) % 3 ? length + 2 : 0;
            size_t span = (rows - 1) * (pitch ? pitch : length) + length;
            batch b = {.rows = rows, .length = length, .pitch = pitch, .span = span};
            unsigned char *x, *y;
            make_inputs(h, span, &x, &y);
            for (int kind = 0; kind < 2; kind++) {
                if (kind == CLREDUCE_EXCLUSIVE && !h->identity)
                    continue;
                char what[128];
                snprintf(what, sizeof what, "%s scan of %zu rows of %zu, pitches %zu and %zu",
                         clreduce_scan_kind_name((clreduce_scan_kind)kind), rows, length, pitch,
                         out_pitch);
                run_scan(what, h, op, &b, (clreduce_scan_kind)kind, out_pitch,
                         rows * length < 20000, x, y);
                cases++;
            }
            free(y);
            free(x);
        }
    }
    print_message("%s: %zu row scans\n", h->desc.name, cases);
    clreduce_operator_release(op);
}

static void test_scan_rows_struct(void **state)
{
    (void)state;
    tc_seed_for("scan_rows_struct");
    scan_rows_of(&op_stats);
}

static void test_scan_rows_matrix_product(void **state)
{
    (void)state;
    tc_seed_for("scan_rows_matrix_product");
    scan_rows_of(&op_mat);
}

static void test_scan_rows_affine(void **state)
{
    (void)state;
    tc_seed_for("scan_rows_affine");
    scan_rows_of(&op_affine);
}

static void test_scan_rows_weighted(void **state)
{
    (void)state;
    tc_seed_for("scan_rows_weighted");
    scan_rows_of(&op_wdot);
}

static void test_scan_rows_first(void **state)
{
    (void)state;
    tc_seed_for("scan_rows_first");
    scan_rows_of(&op_first);
}

/* ---- bad arguments ---------------------------------------------------------------------- */

static void test_bad_arguments(void **state)
{
    (void)state;
    clreduce_operator *one = create_or_fail(&op_isum), *two = create_or_fail(&op_affine);
    clreduce_ctx *other_ctx = NULL;
    assert_int_equal(clreduce_create_default(&other_ctx), CLREDUCE_SUCCESS);
    clreduce_operator *stranger = NULL;
    assert_int_equal(clreduce_operator_create(other_ctx, &op_isum.desc, &stranger),
                     CLREDUCE_SUCCESS);
    float in_data[64];
    unsigned char out_bytes[64];
    tc_guarded g;
    tc_make_guarded(g_ctx, g_queue, in_data, 64, out_bytes, sizeof out_bytes, &g);
    cl_mem in = g.input, out = g.output;
    uint32_t offs[] = {0, 5, 9};
    cl_mem ob = tc_make_buffer(g_ctx, sizeof offs, offs), spare = tc_make_buffer(g_ctx, 256, NULL);
#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define ROWS(op_, in2_, rows_, len_, pitch_, out_off_)                                          \
    clreduce_reduce_rows_custom(g_ctx, g_queue, op_, in, 1, in2_, 0, rows_, len_, pitch_, out,  \
                                out_off_, 0, NULL, &done)
#define SEGS(op_, in2_, count_, out_off_)                                                       \
    clreduce_reduce_segments_custom(g_ctx, g_queue, op_, in, 0, in2_, 0, count_, ob, 0,        \
                                    CLREDUCE_UINT32, 2, out, out_off_, 0, NULL, &done)
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: NULL op", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("op"), ROWS(NULL, NULL, 2, 4, 0, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "segments: NULL op", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("op"), SEGS(NULL, NULL, 9, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: operator of another context",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("another context"),
                      ROWS(stranger, NULL, 2, 4, 0, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "segments: operator of another context",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("another context"),
                      SEGS(stranger, NULL, 9, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: input2 for one input", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("input2"), ROWS(one, in, 2, 4, 0, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: no input2 for two", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("input2"), ROWS(two, NULL, 2, 4, 0, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "segments: no input2 for two", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("input2"), SEGS(two, NULL, 9, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: pitch below length", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("row_pitch"), ROWS(one, NULL, 2, 4, 3, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: past the input's end", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, NULL, ROWS(one, NULL, 9, 8, 0, 0));
    /* out holds 64 bytes: 8 results of isum's 8 bytes. */
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: results past the end", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("result"), ROWS(one, NULL, 2, 4, 0, 7));
    TC_EXPECT_FAILURE(&g, g_ctx, "segments: results past the end",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("result"), SEGS(one, NULL, 9, 7));
    TC_EXPECT_FAILURE(&g, g_ctx, "segments: bad offsets type", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("offsets_type"),
                      clreduce_reduce_segments_custom(g_ctx, g_queue, one, in, 0, NULL, 0, 9, ob,
                                                      0, CLREDUCE_FLOAT, 2, out, 0, 0, NULL,
                                                      &done));
    /* The results overlap the rows' span (in the input buffer itself), and
     * the second input's range. */
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: results over the rows", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("overlap"),
                      clreduce_reduce_rows_custom(g_ctx, g_queue, one, in, 0, NULL, 0, 4, 4, 0, in,
                                                  2, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: results over input2", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("input2"),
                      clreduce_reduce_rows_custom(g_ctx, g_queue, two, out, 0, in, 0, 2, 4, 0, in,
                                                  1, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "segments: results over input2",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("input2"),
                      clreduce_reduce_segments_custom(g_ctx, g_queue, two, out, 0, in, 0, 8, ob,
                                                      0, CLREDUCE_UINT32, 2, in, 1, 0, NULL,
                                                      &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "rows: input2 past its end", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("input2"),
                      clreduce_reduce_rows_custom(g_ctx, g_queue, two, in, 0, out, 6, 2, 4, 0,
                                                  spare, 0, 0, NULL, &done));
    /* Host forms: bad offsets, a second input for an operator of one. */
    uint64_t values[16] = {0};
    unsigned char host_res[64];
    memset(host_res, TC_SENTINEL_BYTE, sizeof host_res);
    uint32_t bad_offs[] = {0, 5, 4};
    tc_check_status_and_message("host segments: offsets that decrease",
                                clreduce_reduce_segments_custom_host(g_ctx, one, values, NULL, 8,
                                                                     bad_offs, CLREDUCE_UINT32, 2,
                                                                     host_res),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("offsets[2]"));
    tc_check_status_and_message("host rows: data2 for one input",
                                clreduce_reduce_rows_custom_host(g_ctx, one, values, values, 2, 4,
                                                                 0, host_res),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("data2"));
    tc_check_status_and_message("host rows: no data2 for two",
                                clreduce_reduce_rows_custom_host(g_ctx, two, values, NULL, 2, 4,
                                                                 0, host_res),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("input2"));
    tc_check_status_and_message("host rows: results over the data",
                                clreduce_reduce_rows_custom_host(g_ctx, one, values, NULL, 2, 4, 0,
                                                                 values + 1),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("overlap"));
    for (size_t k = 0; k < sizeof host_res; k++)
        assert_int_equal(host_res[k], TC_SENTINEL_BYTE);
#undef SEGS
#undef ROWS
#undef WORDS
    clReleaseMemObject(spare);
    clReleaseMemObject(ob);
    tc_release_guarded(&g);
    clreduce_operator_release(stranger);
    clreduce_destroy(other_ctx);
    clreduce_operator_release(two);
    clreduce_operator_release(one);
}

/* Row scans refused with nothing written: no operator, no identity for an
 * exclusive scan, the output over the input (no scan is in place), pitches
 * below the row length, results past the output's end, the inputs of the
 * wrong operator, and the same checks of the host form. */
static void test_scan_rows_errors(void **state)
{
    (void)state;
    clreduce_operator *one = create_or_fail(&op_isum), *two = create_or_fail(&op_affine),
                      *none = create_or_fail(&op_first);
    float in_data[64];
    unsigned char out_bytes[64];
    tc_guarded g;
    tc_make_guarded(g_ctx, g_queue, in_data, 64, out_bytes, sizeof out_bytes, &g);
    cl_mem in = g.input, out = g.output;
#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define SCAN(op_, kind_, in2_, rows_, len_, pitch_, out_, out_off_, out_pitch_)                 \
    clreduce_scan_rows_custom(g_ctx, g_queue, op_, kind_, in, 1, in2_, 0, rows_, len_, pitch_,  \
                              out_, out_off_, out_pitch_, 0, NULL, &done)
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: NULL op", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("op"), SCAN(NULL, CLREDUCE_INCLUSIVE, NULL, 2, 4, 0, out, 0, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: exclusive without identity",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("identity"),
                      SCAN(none, CLREDUCE_EXCLUSIVE, NULL, 2, 4, 0, out, 0, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: unknown kind", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("kind"), SCAN(one, (clreduce_scan_kind)7, NULL, 2, 4, 0, out,
                                                 0, 0));
    /* The output in the input buffer: over the rows, or the same range. */
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: output over the rows",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("overlap"),
                      SCAN(one, CLREDUCE_INCLUSIVE, NULL, 2, 4, 0, in, 2, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: in place", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("overlap"),
                      clreduce_scan_rows_custom(g_ctx, g_queue, one, CLREDUCE_INCLUSIVE, in, 0,
                                                NULL, 0, 2, 4, 0, in, 0, 0, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: row_pitch below length",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("row_pitch"),
                      SCAN(one, CLREDUCE_INCLUSIVE, NULL, 2, 4, 3, out, 0, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: output_pitch below length",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("output_pitch"),
                      SCAN(one, CLREDUCE_INCLUSIVE, NULL, 2, 4, 0, out, 0, 3));
    /* out holds 64 bytes: 8 results of isum's 8 bytes; 2 rows of 4 from
     * result 1 end at result 9. */
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: results past the end",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("results"),
                      SCAN(one, CLREDUCE_INCLUSIVE, NULL, 2, 4, 0, out, 1, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: output pitch past the end",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("results"),
                      SCAN(one, CLREDUCE_INCLUSIVE, NULL, 2, 3, 0, out, 0, 6));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: past the input's end",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("input"),
                      SCAN(one, CLREDUCE_INCLUSIVE, NULL, 9, 8, 0, out, 0, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: input2 for one input",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("input2"),
                      SCAN(one, CLREDUCE_INCLUSIVE, in, 2, 4, 0, out, 0, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: no input2 for two", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("input2"),
                      SCAN(two, CLREDUCE_INCLUSIVE, NULL, 2, 2, 0, out, 0, 0));
    /* affine's elements are 8 bytes: in holds 32, and 2 rows of 2 at pitch
     * 14 from element 20 of input2 end at element 36. */
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: input2 past its end",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("input2"),
                      clreduce_scan_rows_custom(g_ctx, g_queue, two, CLREDUCE_INCLUSIVE, in, 0,
                                                in, 20, 2, 2, 14, out, 0, 0, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "scan rows: output over input2",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("input2"),
                      clreduce_scan_rows_custom(g_ctx, g_queue, two, CLREDUCE_INCLUSIVE, out, 0,
                                                in, 0, 1, 2, 0, in, 0, 0, 0, NULL, &done));
    /* Host forms. */
    uint64_t values[16] = {0};
    unsigned char host_out[64];
    memset(host_out, TC_SENTINEL_BYTE, sizeof host_out);
    tc_check_status_and_message("host scan rows: NULL op",
                                clreduce_scan_rows_custom_host(g_ctx, NULL, CLREDUCE_INCLUSIVE,
                                                               values, NULL, 2, 4, 0, 0,
                                                               host_out),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("op"));
    tc_check_status_and_message("host scan rows: exclusive without identity",
                                clreduce_scan_rows_custom_host(g_ctx, none, CLREDUCE_EXCLUSIVE,
                                                               values, NULL, 2, 4, 0, 0,
                                                               host_out),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("identity"));
    tc_check_status_and_message("host scan rows: output over the input",
                                clreduce_scan_rows_custom_host(g_ctx, one, CLREDUCE_INCLUSIVE,
                                                               values, NULL, 2, 4, 0, 0, values),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("overlap"));
    tc_check_status_and_message("host scan rows: output_pitch below length",
                                clreduce_scan_rows_custom_host(g_ctx, one, CLREDUCE_INCLUSIVE,
                                                               values, NULL, 2, 4, 0, 2,
                                                               host_out),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("output_pitch"));
    tc_check_status_and_message("host scan rows: no input2 for two",
                                clreduce_scan_rows_custom_host(g_ctx, two, CLREDUCE_INCLUSIVE,
                                                               values, NULL, 2, 2, 0, 0,
                                                               host_out),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("input2"));
    for (size_t k = 0; k < sizeof host_out; k++)
        assert_int_equal(host_out[k], TC_SENTINEL_BYTE);
#undef SCAN
#undef WORDS
    tc_release_guarded(&g);
    clreduce_operator_release(none);
    clreduce_operator_release(two);
    clreduce_operator_release(one);
}

int main(void)
{
    g_ctx = tc_start("unit.custom_rows", &g_queue, NULL);
    struct CMUnitTest tests[24];
    size_t nt = 0;
    tc_add_test(tests, &nt, "bad_arguments", test_bad_arguments, NULL);
    tc_add_test(tests, &nt, "empty", test_empty, NULL);
    tc_add_test(tests, &nt, "no_identity", test_no_identity, NULL);
    tc_add_test(tests, &nt, "rows_struct", test_rows_struct, NULL);
    tc_add_test(tests, &nt, "rows_index_sum", test_rows_index_sum, NULL);
    tc_add_test(tests, &nt, "rows_matrix_product", test_rows_matrix_product, NULL);
    tc_add_test(tests, &nt, "rows_affine", test_rows_affine, NULL);
    tc_add_test(tests, &nt, "rows_weighted", test_rows_weighted, NULL);
    tc_add_test(tests, &nt, "rows_first", test_rows_first, NULL);
    tc_add_test(tests, &nt, "segments_struct", test_segments_struct, NULL);
    tc_add_test(tests, &nt, "segments_index_sum", test_segments_index_sum, NULL);
    tc_add_test(tests, &nt, "segments_matrix_product", test_segments_matrix_product, NULL);
    tc_add_test(tests, &nt, "segments_affine", test_segments_affine, NULL);
    tc_add_test(tests, &nt, "segments_weighted", test_segments_weighted, NULL);
    tc_add_test(tests, &nt, "segments_first", test_segments_first, NULL);
    tc_add_test(tests, &nt, "scan_rows_struct", test_scan_rows_struct, NULL);
    tc_add_test(tests, &nt, "scan_rows_matrix_product", test_scan_rows_matrix_product, NULL);
    tc_add_test(tests, &nt, "scan_rows_affine", test_scan_rows_affine, NULL);
    tc_add_test(tests, &nt, "scan_rows_weighted", test_scan_rows_weighted, NULL);
    tc_add_test(tests, &nt, "scan_rows_first", test_scan_rows_first, NULL);
    tc_add_test(tests, &nt, "scan_rows_errors", test_scan_rows_errors, NULL);
    int failed = tc_run_tests("unit.custom_rows", tests, nt);
    return tc_finish(g_ctx, failed, g_queue, NULL);
}
