/* unit.scan_operators: inclusive and exclusive scans with the operators past
 * sum, min and max (argmin, argmax, minmax, sum of squares, sum of absolute
 * values, norm2, mean and variance) on every type each takes, against the
 * CPU references of the reductions (test_common_operators.c) applied to
 * every prefix: the input at an offset between poisoned elements, the
 * results at an offset between sentinels, which must stay; ties and NaN for
 * argmax; 2^20 + 7 elements (a sample of the prefixes checked); the blocking
 * call; scans of no element; bad arguments. The same for the scans of rows
 * (clreduce_scan_rows): pitched rows with poisoned padding, results at a
 * pitch of their own between sentinels, the padding between output rows
 * untouched, every row from its own start.
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
#include "test_common_ops.h"

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;

static const clreduce_op scan_ops[] = {CLREDUCE_OP_ARGMIN,      CLREDUCE_OP_ARGMAX,
                                       CLREDUCE_OP_MINMAX,      CLREDUCE_OP_SUM_SQUARES,
                                       CLREDUCE_OP_SUM_ABS,     CLREDUCE_OP_NORM2,
                                       CLREDUCE_OP_MEAN_VAR};
static const size_t sizes[] = {1, 31, 33, 255, 257, 4097};

#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define LEAD_RESULTS 2 /* sentinel results before the output range */
#define TAIL_RESULTS 1 /* and after it */

/* ---- one scan on the device ------------------------------------------------------ */

/* Scans x[0 .. n) with op, the input after 1 + k % 3 poisoned elements, the
 * results after LEAD_RESULTS - k % 2 sentinel results and before
 * TAIL_RESULTS; returns the call's status, the n results in out (n *
 * result size bytes) and whether the sentinels stayed in *untouched. */
static clreduce_status scan_on_device(clreduce_op op, clreduce_type type,
                                      clreduce_scan_kind kind, const void *x, size_t n, size_t k,
                                      unsigned char *out, int *untouched)
{
    size_t es = tc_elem_size(type), rs = clreduce_result_size(op, type);
    size_t lead = 1 + k % 3, res_lead = LEAD_RESULTS - k % 2;
    size_t total = lead + n + 2, res_total = res_lead + n + TAIL_RESULTS;
    unsigned char *host = malloc(total * es), *res = malloc(res_total * rs);
    assert_true(host && res);
    tc_value poison;
    tc_op_poison(op, type, &poison);
    for (size_t i = 0; i < total; i++)
        tc_set(type, host, i, &poison);
    memcpy(host + lead * es, x, n * es);
    memset(res, TC_SENTINEL_BYTE, res_total * rs);
    cl_mem in = tc_make_buffer(g_ctx, total * es, host);
    cl_mem outb = tc_make_buffer(g_ctx, res_total * rs, res);
    cl_event done = NULL;
    clreduce_status st = clreduce_scan(g_ctx, g_queue, op, type, kind, CLREDUCE_SCAN_AUTO, in,
                                       lead, n, outb, res_lead, 0, NULL, &done);
    if (st == CLREDUCE_SUCCESS) {
        tc_read_buffer(g_queue, outb, res, res_total * rs, 1, &done);
        clReleaseEvent(done);
    }
    assert_int_equal(clFinish(g_queue), CL_SUCCESS);
    *untouched = 1;
    for (size_t i = 0; i < res_total * rs; i++)
        if ((i < res_lead * rs || i >= (res_lead + n) * rs) && res[i] != TC_SENTINEL_BYTE)
            *untouched = 0;
    memcpy(out, res + res_lead * rs, n * rs);
    clReleaseMemObject(in);
    clReleaseMemObject(outb);
    free(host);
    free(res);
    return st;
}

/* The elements result j covers: x[0 .. j] inclusive, x[0 .. j) exclusive. */
static size_t prefix_length(clreduce_scan_kind kind, size_t j)
{
    return kind == CLREDUCE_INCLUSIVE ? j + 1 : j;
}

/* Checks result j of a scan of x against the reduction of its prefix. */
static int check_prefix(tc_suite *s, const char *tag, clreduce_op op, clreduce_type type,
                        clreduce_scan_kind kind, const void *x, size_t n, size_t j,
                        const unsigned char *results)
{
    char why[512];
    size_t rs = clreduce_result_size(op, type);
    long double var_tol = op == CLREDUCE_OP_MEAN_VAR ? tc_op_variance_tolerance(type) : 0;
    if (tc_op_check_result(op, type, x, NULL, prefix_length(kind, j), results + j * rs, var_tol,
                           why, sizeof why))
        return 1;
    tc_ops_report(s, "%s: op=%s type=%s %s n=%zu: result %zu: %s", tag, clreduce_op_name(op),
                  clreduce_type_name(type), clreduce_scan_kind_name(kind), n, j, why);
    return 0;
}

/* Scans x[0 .. n) and checks the results at `checked` positions (every one
 * when positions is NULL). */
static void check_scan(tc_suite *s, const char *tag, clreduce_op op, clreduce_type type,
                       clreduce_scan_kind kind, const void *x, size_t n, const size_t *positions,
                       size_t checked)
{
    size_t rs = clreduce_result_size(op, type);
    unsigned char *results = malloc(n * rs);
    assert_non_null(results);
    int untouched;
    size_t k = s->cases++;
    clreduce_status st = scan_on_device(op, type, kind, x, n, k, results, &untouched);
    if (st != CLREDUCE_SUCCESS || !untouched) {
        tc_ops_report(s, "%s: op=%s type=%s %s n=%zu: %s%s%s", tag, clreduce_op_name(op),
                      clreduce_type_name(type), clreduce_scan_kind_name(kind), n,
                      st != CLREDUCE_SUCCESS ? clreduce_status_string(st) : "",
                      st != CLREDUCE_SUCCESS ? clreduce_last_error(g_ctx) : "",
                      untouched ? "" : " results outside the range written");
        free(results);
        return;
    }
    size_t count = positions ? checked : n;
    for (size_t i = 0; i < count; i++)
        if (!check_prefix(s, tag, op, type, kind, x, n, positions ? positions[i] : i, results))
            break; /* one report a scan */
    free(results);
}

/* ---- tests ----------------------------------------------------------------------- */

/* Every operator, type and kind at the awkward sizes, every result
 * checked. */
static void test_shapes(void **state)
{
    (void)state;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "shapes");
    void *x = malloc(4097 * 8);
    assert_non_null(x);
    for (size_t oi = 0; oi < ARRAY_SIZE(scan_ops); oi++)
        for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
            clreduce_op op = scan_ops[oi];
            clreduce_type type = tc_all_types[ti];
            if (!tc_type_supported(g_ctx, type) || !tc_ops_takes(op, type))
                continue;
            for (size_t si = 0; si < ARRAY_SIZE(sizes); si++)
                for (int kind = CLREDUCE_INCLUSIVE; kind <= CLREDUCE_EXCLUSIVE; kind++) {
                    tc_op_fill(op, type, x, sizes[si]);
                    check_scan(&s, "shapes", op, type, (clreduce_scan_kind)kind, x, sizes[si],
                               NULL, 0);
                }
        }
    free(x);
    tc_ops_finish_suite(&s);
}

/* 2^20 + 7 elements, several work-groups' partials: the first and last 40
 * results and 40 at random, for one operator of each kind of accumulator. */
static void test_large(void **state)
{
    (void)state;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "large");
    static const struct {
        clreduce_op op;
        clreduce_type type;
    } cases[] = {{CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT},    {CLREDUCE_OP_ARGMIN, CLREDUCE_INT64},
                 {CLREDUCE_OP_MINMAX, CLREDUCE_UINT32},   {CLREDUCE_OP_SUM_ABS, CLREDUCE_INT32},
                 {CLREDUCE_OP_NORM2, CLREDUCE_FLOAT},     {CLREDUCE_OP_MEAN_VAR, CLREDUCE_DOUBLE},
                 {CLREDUCE_OP_SUM_SQUARES, CLREDUCE_DOUBLE}};
    const size_t n = TC_LARGE_COUNT;
    void *x = malloc(n * 8);
    size_t positions[120];
    assert_non_null(x);
    for (size_t i = 0; i < 40; i++) {
        positions[i] = i;
        positions[40 + i] = n - 40 + i;
    }
    for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
        if (!tc_type_supported(g_ctx, cases[c].type))
            continue;
        for (size_t i = 80; i < 120; i++)
            positions[i] = tc_rand_below(n);
        tc_op_fill(cases[c].op, cases[c].type, x, n);
        clreduce_scan_kind kind = c % 2 ? CLREDUCE_EXCLUSIVE : CLREDUCE_INCLUSIVE;
        check_scan(&s, "large", cases[c].op, cases[c].type, kind, x, n, positions, 120);
    }
    free(x);
    tc_ops_finish_suite(&s);
}

/* argmax and argmin over few distinct values (ties: the first index wins),
 * with signed zeros, and a NaN from a random place on (its index wins from
 * there). */
static void test_ties_and_nan(void **state)
{
    (void)state;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "ties_and_nan");
    const size_t n = 3001;
    double x[3001];
    float xf[3001];
    static const double values[] = {-0.0, 0.0, 1.0, -1.0, 2.0};
    for (int with_nan = 0; with_nan < 2; with_nan++) {
        for (size_t i = 0; i < n; i++)
            x[i] = values[tc_rand_below(ARRAY_SIZE(values))];
        if (with_nan)
            x[1 + tc_rand_below(n - 2)] = NAN;
        for (size_t i = 0; i < n; i++)
            xf[i] = (float)x[i];
        for (int kind = CLREDUCE_INCLUSIVE; kind <= CLREDUCE_EXCLUSIVE; kind++)
            for (int arg = 0; arg < 2; arg++) {
                clreduce_op op = arg ? CLREDUCE_OP_ARGMAX : CLREDUCE_OP_ARGMIN;
                check_scan(&s, "ties", op, CLREDUCE_FLOAT, (clreduce_scan_kind)kind, xf, n, NULL,
                           0);
                if (tc_type_supported(g_ctx, CLREDUCE_DOUBLE))
                    check_scan(&s, "ties", op, CLREDUCE_DOUBLE, (clreduce_scan_kind)kind, x, n,
                               NULL, 0);
            }
    }
    tc_ops_finish_suite(&s);
}

/* The blocking call, against the enqueueing one's references; a scan of no
 * element writes nothing. */
static void test_host(void **state)
{
    (void)state;
    tc_seed_for("host");
    const size_t n = 1000;
    int32_t x[1000];
    unsigned char out[1000 * 16];
    for (size_t i = 0; i < n; i++)
        x[i] = (int32_t)tc_rand_below(2001) - 1000;
    for (int kind = CLREDUCE_INCLUSIVE; kind <= CLREDUCE_EXCLUSIVE; kind++) {
        memset(out, TC_SENTINEL_BYTE, sizeof out);
        assert_int_equal(clreduce_scan_host(g_ctx, CLREDUCE_OP_ARGMIN, CLREDUCE_INT32,
                                            (clreduce_scan_kind)kind, CLREDUCE_SCAN_AUTO, x, n,
                                            out),
                         CLREDUCE_SUCCESS);
        for (size_t j = 0; j < n; j++) {
            char why[256];
            if (!tc_op_check_result(CLREDUCE_OP_ARGMIN, CLREDUCE_INT32, x, NULL,
                                    prefix_length((clreduce_scan_kind)kind, j), out + 16 * j, 0,
                                    why, sizeof why))
                fail_msg("host scan, %s, result %zu: %s",
                         clreduce_scan_kind_name((clreduce_scan_kind)kind), j, why);
        }
    }
    memset(out, TC_SENTINEL_BYTE, sizeof out);
    assert_int_equal(clreduce_scan_host(g_ctx, CLREDUCE_OP_MINMAX, CLREDUCE_INT32,
                                        CLREDUCE_EXCLUSIVE, CLREDUCE_SCAN_AUTO, x, 0, out),
                     CLREDUCE_SUCCESS);
    assert_int_equal(tc_first_changed_outside(out, sizeof out, 0, 0, 1), SIZE_MAX);
    /* reduce_then_scan by name, as auto */
    assert_int_equal(clreduce_check_scan_support(g_ctx, CLREDUCE_OP_MEAN_VAR, CLREDUCE_FLOAT,
                                                 CLREDUCE_SCAN_REDUCE_THEN_SCAN),
                     CLREDUCE_SUCCESS);
}

/* Requests the operators' scans refuse: a clear status and message, nothing
 * written, nothing built. */
static void test_errors(void **state)
{
    (void)state;
    static float in_data[64];
    static unsigned char out_bytes[64 * 32];
    tc_guarded g;
    tc_make_guarded(g_ctx, g_queue, in_data, 64, out_bytes, sizeof out_bytes, &g);
    const clreduce_type f = CLREDUCE_FLOAT;
    const clreduce_scan_kind inc = CLREDUCE_INCLUSIVE;
    TC_EXPECT_FAILURE(&g, g_ctx, "dot scanned", CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                      WORDS("dot", "two inputs"),
                      clreduce_scan(g_ctx, g_queue, CLREDUCE_OP_DOT, f, inc, CLREDUCE_SCAN_AUTO,
                                    g.input, 0, 8, g.output, 0, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "argmax by look-back", CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                      WORDS("argmax", "lookback"),
                      clreduce_scan(g_ctx, g_queue, CLREDUCE_OP_ARGMAX, f, inc,
                                    CLREDUCE_SCAN_LOOKBACK, g.input, 0, 8, g.output, 0, 0, NULL,
                                    &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "norm2 of int32", CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                      WORDS("norm2", "int32"),
                      clreduce_scan(g_ctx, g_queue, CLREDUCE_OP_NORM2, CLREDUCE_INT32, inc,
                                    CLREDUCE_SCAN_AUTO, g.input, 0, 8, g.output, 0, 0, NULL,
                                    &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "unknown kind", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("kind"),
                      clreduce_scan(g_ctx, g_queue, CLREDUCE_OP_MINMAX, f, (clreduce_scan_kind)7,
                                    CLREDUCE_SCAN_AUTO, g.input, 0, 8, g.output, 0, 0, NULL,
                                    &done));
    /* 8 results of 16 bytes from result 125 pass the output's 64 * 32 bytes */
    TC_EXPECT_FAILURE(&g, g_ctx, "results past the output", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("output", "results", "16 bytes"),
                      clreduce_scan(g_ctx, g_queue, CLREDUCE_OP_ARGMAX, f, inc,
                                    CLREDUCE_SCAN_AUTO, g.input, 0, 8, g.output, 125, 0, NULL,
                                    &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "in place", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("output", "input"),
                      clreduce_scan(g_ctx, g_queue, CLREDUCE_OP_SUM_SQUARES, f, inc,
                                    CLREDUCE_SCAN_AUTO, g.input, 0, 8, g.input, 0, 0, NULL,
                                    &done));
    tc_check_status_and_message("support of argmin by blelloch",
                                clreduce_check_scan_support(g_ctx, CLREDUCE_OP_ARGMIN, f,
                                                            CLREDUCE_SCAN_BLELLOCH),
                                CLREDUCE_ERROR_UNSUPPORTED, g_ctx, WORDS("argmin", "blelloch"));
    /* dot scans through clreduce_dot_scan(), whose support this is. */
    assert_int_equal(clreduce_check_scan_support(g_ctx, CLREDUCE_OP_DOT, f, CLREDUCE_SCAN_AUTO),
                     CLREDUCE_SUCCESS);
    tc_check_status_and_message("support of dot by blelloch",
                                clreduce_check_scan_support(g_ctx, CLREDUCE_OP_DOT, f,
                                                            CLREDUCE_SCAN_BLELLOCH),
                                CLREDUCE_ERROR_UNSUPPORTED, g_ctx, WORDS("dot", "blelloch"));
    tc_release_guarded(&g);
}

/* ---- scans of rows --------------------------------------------------------------- */

static const size_t row_lengths[] = {1, 2, 31, 33, 255, 257, 4097};
static const size_t row_counts[] = {1, 3, 100};

/* A row scan: `rows` rows of `length` elements after `offset` poisoned
 * elements, `pitch` apart (as passed: 0 means the length) with poisoned
 * padding; results from result out_offset, `out_pitch` apart (as passed),
 * in a buffer of sentinel bytes with TAIL_RESULTS more after the last row. */
typedef struct row_scan {
    clreduce_op op;
    clreduce_type type;
    clreduce_scan_kind kind;
    size_t rows, length, pitch, offset, out_pitch, out_offset;
} row_scan;

static size_t span_of(size_t rows, size_t length, size_t pitch)
{
    return rows && length ? (rows - 1) * pitch + length : 0;
}

/* Runs c on the rows of x (packed: rows * length elements). Returns the
 * call's status, the results packed in out (rows * length results) and in
 * *untouched whether the input buffer and every byte of the output buffer
 * outside the output rows (before, between and after them) stayed. */
static clreduce_status rows_on_device(const row_scan *c, const void *x, unsigned char *out,
                                      int *untouched)
{
    size_t es = tc_elem_size(c->type), rs = clreduce_result_size(c->op, c->type);
    size_t pitch = c->pitch ? c->pitch : c->length;
    size_t out_pitch = c->out_pitch ? c->out_pitch : c->length;
    size_t in_total = c->offset + span_of(c->rows, c->length, pitch) + 2;
    size_t out_total = c->out_offset + span_of(c->rows, c->length, out_pitch) + TAIL_RESULTS;
    unsigned char *host = malloc(in_total * es), *back = malloc(in_total * es);
    unsigned char *res = malloc(out_total * rs);
    assert_true(host && back && res);
    tc_value poison;
    tc_op_poison(c->op, c->type, &poison);
    for (size_t i = 0; i < in_total; i++)
        tc_set(c->type, host, i, &poison);
    for (size_t r = 0; r < c->rows; r++)
        memcpy(host + (c->offset + r * pitch) * es, (const unsigned char *)x + r * c->length * es,
               c->length * es);
    memset(res, TC_SENTINEL_BYTE, out_total * rs);
    cl_mem in = tc_make_buffer(g_ctx, in_total * es, host);
    cl_mem outb = tc_make_buffer(g_ctx, out_total * rs, res);
    cl_event done = NULL;
    clreduce_status st = clreduce_scan_rows(g_ctx, g_queue, c->op, c->type, c->kind, in,
                                            c->offset, c->rows, c->length, c->pitch, outb,
                                            c->out_offset, c->out_pitch, 0, NULL, &done);
    if (st == CLREDUCE_SUCCESS) {
        tc_read_buffer(g_queue, outb, res, out_total * rs, 1, &done);
        clReleaseEvent(done);
    }
    assert_int_equal(clFinish(g_queue), CL_SUCCESS);
    tc_read_buffer(g_queue, in, back, in_total * es, 0, NULL);
    *untouched = memcmp(back, host, in_total * es) == 0;
    for (size_t i = 0; i < out_total * rs; i++) {
        size_t at = i / rs, from = at - c->out_offset;
        int in_row = st == CLREDUCE_SUCCESS && at >= c->out_offset &&
                     from / out_pitch < c->rows && from % out_pitch < c->length;
        if (!in_row && res[i] != TC_SENTINEL_BYTE)
            *untouched = 0;
    }
    for (size_t r = 0; r < c->rows && st == CLREDUCE_SUCCESS; r++)
        memcpy(out + r * c->length * rs, res + (c->out_offset + r * out_pitch) * rs,
               c->length * rs);
    clReleaseMemObject(in);
    clReleaseMemObject(outb);
    free(host);
    free(back);
    free(res);
    return st;
}

/* The positions of a row checked: all of them in rows of up to 300
 * elements, else the first 16, the last 8 and 8 at random (each check
 * reduces its prefix again). Returns how many. */
static size_t row_positions(size_t length, size_t positions[300])
{
    size_t k = 0;
    if (length <= 300) {
        for (; k < length; k++)
            positions[k] = k;
        return k;
    }
    for (size_t i = 0; i < 16; i++)
        positions[k++] = i;
    for (size_t i = 0; i < 8; i++)
        positions[k++] = length - 8 + i;
    for (size_t i = 0; i < 8; i++)
        positions[k++] = tc_rand_below(length);
    return k;
}

/* Runs c on the rows of x and checks each row's results against the
 * reductions of that row's prefixes; one report a call. */
static void check_row_scan(tc_suite *s, const char *tag, const row_scan *c, const void *x)
{
    size_t es = tc_elem_size(c->type), rs = clreduce_result_size(c->op, c->type);
    unsigned char *results = malloc(c->rows * c->length * rs + 1);
    assert_non_null(results);
    char where[160];
    snprintf(where, sizeof where, "%s rows=%zu pitch=%zu offset=%zu out_pitch=%zu out_offset=%zu",
             tag, c->rows, c->pitch, c->offset, c->out_pitch, c->out_offset);
    int untouched;
    s->cases++;
    clreduce_status st = rows_on_device(c, x, results, &untouched);
    if (st != CLREDUCE_SUCCESS || !untouched) {
        tc_ops_report(s, "%s: op=%s type=%s %s length=%zu: %s%s%s", where,
                      clreduce_op_name(c->op), clreduce_type_name(c->type),
                      clreduce_scan_kind_name(c->kind), c->length,
                      st != CLREDUCE_SUCCESS ? clreduce_status_string(st) : "",
                      st != CLREDUCE_SUCCESS ? clreduce_last_error(g_ctx) : "",
                      untouched ? "" : " input or bytes outside the output rows changed");
        free(results);
        return;
    }
    size_t positions[300];
    for (size_t r = 0; r < c->rows; r++) {
        size_t count = row_positions(c->length, positions);
        char row_tag[200];
        snprintf(row_tag, sizeof row_tag, "%s row %zu", where, r);
        for (size_t i = 0; i < count; i++)
            if (!check_prefix(s, row_tag, c->op, c->type, c->kind,
                              (const unsigned char *)x + r * c->length * es, c->length,
                              positions[i], results + r * c->length * rs)) {
                free(results);
                return;
            }
    }
    free(results);
}

/* Every operator, type and kind at every row length and count, the input
 * and the output each packed (pitch 0 or the length) or pitched past the
 * length, at offsets, as the case number turns. */
static void test_rows_shapes(void **state)
{
    (void)state;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "rows_shapes");
    void *x = malloc(100 * 4097 * 8);
    assert_non_null(x);
    size_t k = 0;
    for (size_t oi = 0; oi < ARRAY_SIZE(scan_ops); oi++)
        for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
            clreduce_op op = scan_ops[oi];
            clreduce_type type = tc_all_types[ti];
            if (!tc_type_supported(g_ctx, type) || !tc_ops_takes(op, type))
                continue;
            for (size_t li = 0; li < ARRAY_SIZE(row_lengths); li++)
                for (size_t ri = 0; ri < ARRAY_SIZE(row_counts); ri++)
                    for (int kind = CLREDUCE_INCLUSIVE; kind <= CLREDUCE_EXCLUSIVE; kind++, k++) {
                        size_t rows = row_counts[ri], length = row_lengths[li];
                        tc_op_fill(op, type, x, rows * length);
                        row_scan c = {op, type, (clreduce_scan_kind)kind, rows, length,
                                      k % 3 == 0   ? 0
                                      : k % 3 == 1 ? length
                                                   : length + 1 + k % 5,
                                      k % 4,
                                      k % 4 == 1 ? 0 : length + (k % 4 == 2 ? 0 : 1 + k % 3),
                                      LEAD_RESULTS - k % 2};
                        check_row_scan(&s, "rows shapes", &c, x);
                    }
        }
    free(x);
    tc_ops_finish_suite(&s);
}

/* argmin and argmax in rows of few distinct values with signed zeros (ties:
 * the smallest index of the row wins), whole rows of one value, and NaN:
 * none, one at a random place, one first and another later, one last. */
static void test_rows_ties_and_nan(void **state)
{
    (void)state;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "rows_ties_and_nan");
    enum { ROWS = 12, LENGTH = 299 };
    static double x[ROWS * LENGTH];
    static float xf[ROWS * LENGTH];
    static const double values[] = {-0.0, 0.0, 1.0, -1.0, 2.0};
    for (size_t r = 0; r < ROWS; r++) {
        double *row = x + r * LENGTH;
        double one = values[tc_rand_below(ARRAY_SIZE(values))];
        for (size_t i = 0; i < LENGTH; i++)
            row[i] = r % 6 == 5 ? one : values[tc_rand_below(ARRAY_SIZE(values))];
        switch (r % 4) {
        case 1: row[tc_rand_below(LENGTH)] = NAN; break;
        case 2:
            row[0] = NAN;
            row[1 + tc_rand_below(LENGTH - 1)] = NAN;
            break;
        case 3: row[LENGTH - 1] = NAN; break;
        default: break;
        }
    }
    for (size_t i = 0; i < ROWS * LENGTH; i++)
        xf[i] = (float)x[i];
    for (int kind = CLREDUCE_INCLUSIVE; kind <= CLREDUCE_EXCLUSIVE; kind++)
        for (int arg = 0; arg < 2; arg++) {
            clreduce_op op = arg ? CLREDUCE_OP_ARGMAX : CLREDUCE_OP_ARGMIN;
            row_scan c = {op, CLREDUCE_FLOAT, (clreduce_scan_kind)kind, ROWS, LENGTH,
                          LENGTH + 3, 1, LENGTH + 2, 1};
            check_row_scan(&s, "rows ties", &c, xf);
            if (tc_type_supported(g_ctx, CLREDUCE_DOUBLE)) {
                c.type = CLREDUCE_DOUBLE;
                check_row_scan(&s, "rows ties", &c, x);
            }
        }
    tc_ops_finish_suite(&s);
}

/* The blocking call: pitched rows (results at the same pitch, counted in
 * results, the padding between them never written) and packed ones, against
 * the references; rows of nothing or no rows write nothing; an output that
 * overlaps the input, or is the input, is refused with nothing written. */
static void test_rows_host(void **state)
{
    (void)state;
    tc_seed_for("rows_host");
    enum { ROWS = 9, LENGTH = 70, PITCH = 75 };
    static int32_t xi[ROWS * PITCH];
    static float xf[ROWS * PITCH];
    static unsigned char out[ROWS * PITCH * 24];
    for (size_t i = 0; i < ROWS * PITCH; i++) {
        xi[i] = (int32_t)tc_rand_below(201) - 100;
        xf[i] = (float)(3 + tc_rand_unit());
    }
    static const struct {
        clreduce_op op;
        clreduce_type type;
        size_t pitch;
    } cases[] = {{CLREDUCE_OP_ARGMIN, CLREDUCE_INT32, PITCH},
                 {CLREDUCE_OP_MEAN_VAR, CLREDUCE_FLOAT, PITCH},
                 {CLREDUCE_OP_SUM_ABS, CLREDUCE_INT32, 0},
                 {CLREDUCE_OP_MINMAX, CLREDUCE_FLOAT, LENGTH}};
    for (size_t ci = 0; ci < ARRAY_SIZE(cases); ci++)
        for (int kind = CLREDUCE_INCLUSIVE; kind <= CLREDUCE_EXCLUSIVE; kind++) {
            clreduce_op op = cases[ci].op;
            clreduce_type type = cases[ci].type;
            const unsigned char *x =
                type == CLREDUCE_INT32 ? (const void *)xi : (const void *)xf;
            size_t es = tc_elem_size(type), rs = clreduce_result_size(op, type);
            size_t pitch = cases[ci].pitch ? cases[ci].pitch : LENGTH;
            long double var_tol = op == CLREDUCE_OP_MEAN_VAR ? tc_op_variance_tolerance(type) : 0;
            memset(out, TC_SENTINEL_BYTE, sizeof out);
            assert_int_equal(clreduce_scan_rows_host(g_ctx, op, type, (clreduce_scan_kind)kind, x,
                                                     ROWS, LENGTH, cases[ci].pitch, out),
                             CLREDUCE_SUCCESS);
            for (size_t r = 0; r < ROWS; r++)
                for (size_t j = 0; j < LENGTH; j++) {
                    char why[256];
                    if (!tc_op_check_result(op, type, x + r * pitch * es, NULL,
                                            prefix_length((clreduce_scan_kind)kind, j),
                                            out + (r * pitch + j) * rs, var_tol, why, sizeof why))
                        fail_msg("host row scan %s %s %s pitch %zu, row %zu result %zu: %s",
                                 clreduce_op_name(op), clreduce_type_name(type),
                                 clreduce_scan_kind_name((clreduce_scan_kind)kind),
                                 cases[ci].pitch, r, j, why);
                }
            /* the padding between the rows and everything past the last */
            for (size_t i = 0; i < sizeof out / rs; i++)
                if ((i % pitch >= LENGTH || i / pitch >= ROWS) &&
                    tc_first_changed_outside(out + i * rs, 1, 0, 0, rs) != SIZE_MAX)
                    fail_msg("host row scan %s %s: result %zu outside the rows written",
                             clreduce_op_name(op), clreduce_type_name(type), i);
        }
    /* No rows, or rows of nothing: nothing written. */
    memset(out, TC_SENTINEL_BYTE, sizeof out);
    assert_int_equal(clreduce_scan_rows_host(g_ctx, CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT,
                                             CLREDUCE_EXCLUSIVE, xf, 5, 0, 0, out),
                     CLREDUCE_SUCCESS);
    assert_int_equal(clreduce_scan_rows_host(g_ctx, CLREDUCE_OP_MEAN_VAR, CLREDUCE_FLOAT,
                                             CLREDUCE_INCLUSIVE, NULL, 0, 10, 0, NULL),
                     CLREDUCE_SUCCESS);
    assert_int_equal(tc_first_changed_outside(out, sizeof out, 0, 0, 1), SIZE_MAX);
    /* The output overlapping the input, or the input itself: refused. */
    static int32_t before[ROWS * PITCH];
    memcpy(before, xi, sizeof xi);
    assert_int_equal(clreduce_scan_rows_host(g_ctx, CLREDUCE_OP_ARGMIN, CLREDUCE_INT32,
                                             CLREDUCE_INCLUSIVE, xi, 2, 4, 0, xi + 1),
                     CLREDUCE_ERROR_INVALID_ARGUMENT);
    assert_true(tc_contains(clreduce_last_error(g_ctx), "overlap"));
    assert_int_equal(clreduce_scan_rows_host(g_ctx, CLREDUCE_OP_SUM_SQUARES, CLREDUCE_INT32,
                                             CLREDUCE_INCLUSIVE, xi, 2, 4, 0, xi),
                     CLREDUCE_ERROR_INVALID_ARGUMENT);
    assert_memory_equal(xi, before, sizeof xi);
}

/* Row scans the operators refuse: a clear status and message, nothing
 * written, nothing built; then rows of nothing and calls that fit exactly. */
static void test_rows_errors(void **state)
{
    (void)state;
    static float in_data[64];
    static unsigned char out_bytes[64 * 32]; /* 128 argmax results of float */
    tc_guarded g;
    tc_make_guarded(g_ctx, g_queue, in_data, 64, out_bytes, sizeof out_bytes, &g);
    const clreduce_op am = CLREDUCE_OP_ARGMAX;
    const clreduce_type f = CLREDUCE_FLOAT;
    const clreduce_scan_kind inc = CLREDUCE_INCLUSIVE;
#define ROWS_CALL(op, type, kind, in, off, rows, len, pitch, out, out_off, out_pitch)            \
    clreduce_scan_rows(g_ctx, g_queue, op, type, kind, in, off, rows, len, pitch, out, out_off, \
                       out_pitch, 0, NULL, &done)
#define EXPECT(what, want, words, call) TC_EXPECT_FAILURE(&g, g_ctx, what, want, g_ctx, words, call)
    /* 8 floats in, 8 results of 16 bytes out */
    EXPECT("output overlapping the input", CLREDUCE_ERROR_INVALID_ARGUMENT,
           WORDS("output", "input", "overlap"),
           ROWS_CALL(am, f, inc, g.input, 0, 2, 4, 0, g.input, 1, 0));
    EXPECT("output on the input (in place)", CLREDUCE_ERROR_INVALID_ARGUMENT,
           WORDS("output", "input", "overlap"),
           ROWS_CALL(am, f, inc, g.input, 0, 2, 4, 0, g.input, 0, 0));
    /* input rows at bytes [0, 16) and [160, 176); results at [16, 144) */
    EXPECT("output in the padding of the input", CLREDUCE_ERROR_INVALID_ARGUMENT,
           WORDS("overlap"), ROWS_CALL(am, f, inc, g.input, 0, 2, 4, 40, g.input, 1, 0));
    EXPECT("row_pitch below the row length", CLREDUCE_ERROR_INVALID_ARGUMENT,
           WORDS("row_pitch", "row_length"),
           ROWS_CALL(am, f, inc, g.input, 0, 3, 4, 3, g.output, 0, 0));
    EXPECT("output_pitch below the row length", CLREDUCE_ERROR_INVALID_ARGUMENT,
           WORDS("output_pitch", "row_length"),
           ROWS_CALL(am, f, inc, g.input, 0, 3, 4, 0, g.output, 0, 3));
    EXPECT("dot", CLREDUCE_ERROR_UNSUPPORTED, WORDS("dot"),
           ROWS_CALL(CLREDUCE_OP_DOT, f, inc, g.input, 0, 3, 4, 0, g.output, 0, 0));
    EXPECT("norm2 of int32", CLREDUCE_ERROR_UNSUPPORTED, WORDS("norm2", "int32"),
           ROWS_CALL(CLREDUCE_OP_NORM2, CLREDUCE_INT32, inc, g.input, 0, 3, 4, 0, g.output, 0,
                     0));
    EXPECT("unknown kind", CLREDUCE_ERROR_INVALID_ARGUMENT, WORDS("kind"),
           ROWS_CALL(CLREDUCE_OP_MINMAX, f, (clreduce_scan_kind)2, g.input, 0, 3, 4, 0,
                     g.output, 0, 0));
    /* results [60, 130) of 128; as floats they would fit */
    EXPECT("output rows past the output, counted in results", CLREDUCE_ERROR_INVALID_ARGUMENT,
           WORDS("output", "past the end", "results"),
           ROWS_CALL(am, f, inc, g.input, 0, 2, 10, 0, g.output, 60, 60));
    /* SIZE_MAX / 16 + 1 results: their bytes wrap around to 0 */
    EXPECT("output rows whose bytes overflow", CLREDUCE_ERROR_INVALID_ARGUMENT,
           WORDS("output", "past the end", "results"),
           ROWS_CALL(am, f, inc, g.input, 0, 2, 1, 0, g.output, 0, SIZE_MAX / 16));
    EXPECT("output rows whose span overflows", CLREDUCE_ERROR_INVALID_ARGUMENT,
           WORDS("rows", "output_pitch", "results"),
           ROWS_CALL(am, f, inc, g.input, 0, 4, 1, 0, g.output, 0, SIZE_MAX / 2));
    EXPECT("input rows past the input", CLREDUCE_ERROR_INVALID_ARGUMENT,
           WORDS("input", "past the end"),
           ROWS_CALL(am, f, inc, g.input, 1, 7, 10, 0, g.output, 0, 0));
#undef EXPECT
#undef ROWS_CALL
    /* No rows, or rows of nothing: a marker when done is asked, nothing
     * written. */
    static const size_t empty[][2] = {{5, 0}, {0, 7}};
    for (size_t i = 0; i < ARRAY_SIZE(empty); i++) {
        cl_event done = NULL;
        assert_int_equal(clreduce_scan_rows(g_ctx, g_queue, CLREDUCE_OP_MEAN_VAR, f,
                                            CLREDUCE_EXCLUSIVE, g.input, 3, empty[i][0],
                                            empty[i][1], 0, g.output, 5, 0, 0, NULL, &done),
                         CLREDUCE_SUCCESS);
        assert_non_null(done);
        assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
        clReleaseEvent(done);
    }
    assert_int_equal(clFinish(g_queue), CL_SUCCESS);
    tc_check_buffer_unchanged(g_queue, g.output, out_bytes, sizeof out_bytes);
    /* Results up to the output's last byte, and results after the input's
     * rows in its own buffer: both fine. */
    assert_int_equal(clreduce_scan_rows(g_ctx, g_queue, am, f, inc, g.input, 0, 2, 10, 0,
                                        g.output, 58, 60, 0, NULL, NULL),
                     CLREDUCE_SUCCESS);
    assert_int_equal(clreduce_scan_rows(g_ctx, g_queue, am, f, inc, g.input, 0, 2, 4, 0, g.input,
                                        2, 0, 0, NULL, NULL),
                     CLREDUCE_SUCCESS);
    assert_int_equal(clFinish(g_queue), CL_SUCCESS);
    tc_release_guarded(&g);
}

int main(void)
{
    g_ctx = tc_start("unit.scan_operators", &g_queue, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),          cmocka_unit_test(test_large),
        cmocka_unit_test(test_ties_and_nan),    cmocka_unit_test(test_host),
        cmocka_unit_test(test_errors),          cmocka_unit_test(test_rows_shapes),
        cmocka_unit_test(test_rows_ties_and_nan), cmocka_unit_test(test_rows_host),
        cmocka_unit_test(test_rows_errors),
    };
    int failed = tc_run_tests("unit.scan_operators", tests, ARRAY_SIZE(tests));
    return tc_finish(g_ctx, failed, g_queue, NULL);
}
