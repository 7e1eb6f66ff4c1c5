/* unit.rows_multi: clreduce_reduce_rows_multi(_host) (the record layout
 * itself: unit.multi_record). Every type with sets of one to ten operators,
 * row lengths 0 to 4097 and row counts 1 to 1000, pitched rows with
 * poisoned padding, the input at an offset between poisoned elements and
 * the records between sentinels:
 * every result of every row against the CPU reference of that row alone;
 * one long row; the results of each operator alone (bit for bit but for
 * float sums), NaN, infinities and signed zeros included; bad arguments,
 * which leave everything untouched; empty rows and no rows.
 * CLREDUCE_TEST_SEED=n repeats a run's random data; CLREDUCE_TEST_FILTER=glob
 * runs the matching tests. */
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
static cl_command_queue g_read_queue;

#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Bytes of the largest record: all ten operators on double take 120. */
#define RECORD_MAX 128
/* Bytes of the largest result of one operator. */
#define RESULT_MAX 24
/* Elements of input (rows and padding) a case may span: keeps the suite
 * quick on two CPU cores. */
#define MAX_ELEMENTS ((size_t)2 << 20)

/* "min+sum": the operators of a set, for messages. */
static const char *set_name(const clreduce_op *ops, size_t k, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t j = 0; j < k && used < size; j++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", j ? "+" : "",
                                 clreduce_op_name(ops[j]));
    return buf;
}

/* Whether the set holds op. */
static int set_has(const clreduce_op *ops, size_t k, clreduce_op op)
{
    for (size_t j = 0; j < k; j++)
        if (ops[j] == op)
            return 1;
    return 0;
}

/* Whether op's result is a choice among the elements (min, max, argmin,
 * argmax, minmax) rather than a sum of them. */
static int is_selection(clreduce_op op)
{
    return op == CLREDUCE_OP_MIN || op == CLREDUCE_OP_MAX || op == CLREDUCE_OP_ARGMIN ||
           op == CLREDUCE_OP_ARGMAX || op == CLREDUCE_OP_MINMAX;
}

/* ---- the reference ------------------------------------------------------------------ */

/* m of batched.h's bound for a row of n elements: n / w + 4 v + 2. */
static size_t row_chain_length(size_t n, const void *arg)
{
    const clreduce_settings *t = arg;
    return n / t->work_group_size + 4 * t->vector_width + 2;
}

/* The tuning the set runs with, for the bound of its float sums. */
static clreduce_settings set_tuning(const clreduce_op *ops, size_t k, clreduce_type type)
{
    clreduce_settings t;
    assert_int_equal(clreduce_get_operators_tuning(g_ctx, ops, k, type, &t), CLREDUCE_SUCCESS);
    return t;
}

/* Whether `got`, op's result on the row x[0 .. n), is right against the CPU
 * reference: sum, min and max as tc_check_batched checks a row (a float
 * sum within batched.h's bound of tuning t), the other operators as
 * tc_op_check_result checks them. */
static int check_result(clreduce_op op, clreduce_type type, const void *x, size_t n,
                        const unsigned char *got, const clreduce_settings *t, char *why,
                        size_t size)
{
    if (op <= CLREDUCE_OP_MAX) {
        size_t start = 0;
        double worst;
        return tc_check_batched(op, type, x, &start, &n, 1, got, row_chain_length, t, &worst, why,
                                size) == 0;
    }
    return tc_op_check_result(op, type, x, NULL, n, got, tc_op_variance_tolerance(type), why,
                              size);
}

static void format_bytes(const unsigned char *p, size_t n, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used + 3 < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%02x", p[i]);
}

/* ---- data ----------------------------------------------------------------------------- */

/* Random data for a set, in one of three modes: tc_fill_random (integers
 * near their limits, floats of mixed magnitudes), floats in [-4, 4), or
 * small values (integers in a range of 2001: ties for min, max and their
 * indices). Sets with a float MEAN_VAR take floats in [-4, 4) or 3 +
 * [-1, 1), the data its reference holds on. */
static void fill_for_set(const clreduce_op *ops, size_t k, clreduce_type type, void *data,
                         size_t n, size_t mode)
{
    if (tc_is_float_type(type) && set_has(ops, k, CLREDUCE_OP_MEAN_VAR)) {
        tc_op_fill((mode & 1) ? CLREDUCE_OP_MEAN_VAR : CLREDUCE_OP_SUM_SQUARES, type, data, n);
        return;
    }
    switch (mode % 3) {
    case 0: tc_fill_random(type, data, n); break;
    case 1: tc_op_fill(CLREDUCE_OP_SUM_SQUARES, type, data, n); break;
    default: tc_fill_mode(CLREDUCE_OP_SUM, type, TC_DATA_SMALL, data, n); break;
    }
}

/* Element i of the input that no row holds: a poison that changes min,
 * max or a sum if read, in turns (NaN for floats). */
static void poison_at(clreduce_type type, void *data, size_t i)
{
    static const clreduce_op poisons[] = {CLREDUCE_OP_MIN, CLREDUCE_OP_MAX, CLREDUCE_OP_SUM};
    tc_value p;
    tc_poison(poisons[i % 3], type, &p);
    tc_set(type, data, i, &p);
}

/* ---- one call and its checks ------------------------------------------------------ */

/* One call: its operators, shape and form. */
typedef struct rows_case {
    const clreduce_op *ops;
    size_t k;
    clreduce_type type;
    size_t rows, length, pitch; /* pitch as passed: 0 means length */
    int host;                   /* the blocking form, else the enqueueing form */
    size_t offset;              /* enqueueing form: poisoned elements before row 0 */
    size_t result_offset;       /* enqueueing form: records before row 0's */
    int use_wait;               /* enqueueing form: upload without blocking, its event waited */
    size_t mode;                /* data mode of fill_for_set */
} rows_case;

/* Lays out c's rows on fresh random data with every element that no row
 * holds poisoned (before, in the padding, after), runs the call into
 * sentinel-filled records, and checks: every result of every row against
 * the CPU reference of that row alone; the bytes outside the written
 * records untouched; a done event. */
static void run_case(tc_suite *s, const rows_case *c)
{
    clreduce_type type = c->type;
    size_t es = tc_elem_size(type), pitch = c->pitch ? c->pitch : c->length;
    size_t span = c->rows && c->length ? (c->rows - 1) * pitch + c->length : 0;
    size_t offset = c->host ? 0 : c->offset, tail = 3, total = offset + span + tail;
    unsigned char *host = malloc(total * es);
    assert_non_null(host);
    if (span)
        fill_for_set(c->ops, c->k, type, host + offset * es, span, c->mode);
    for (size_t i = 0; i < total; i++)
        if (i < offset || i - offset >= span || (i - offset) % pitch >= c->length)
            poison_at(type, host, i);
    size_t offsets[CLREDUCE_MULTI_MAX];
    size_t rs = clreduce_multi_record(c->ops, c->k, type, offsets);
    assert_true(rs > 0 && rs <= RECORD_MAX);
    size_t first = c->host ? 1 : c->result_offset, nrec = first + c->rows + 1;
    unsigned char *res = malloc(nrec * rs);
    assert_non_null(res);
    memset(res, TC_SENTINEL_BYTE, nrec * rs);

    size_t case_index = s->cases++;
    char names[160], what[320];
    snprintf(what, sizeof what, "%s on %s, %s form, rows=%zu length=%zu pitch=%zu offset=%zu "
             "result_offset=%zu case=%zu", set_name(c->ops, c->k, names, sizeof names),
             clreduce_type_name(type), c->host ? "host" : "enqueueing", c->rows, c->length,
             c->pitch, offset, first, case_index);
    clreduce_status st;
    if (c->host) {
        st = clreduce_reduce_rows_multi_host(g_ctx, c->ops, c->k, type, host, c->rows, c->length,
                                             c->pitch, res + rs);
    } else {
        cl_mem in = tc_make_buffer(g_ctx, total * es, c->use_wait ? NULL : host);
        cl_mem out = tc_make_buffer(g_ctx, nrec * rs, res);
        cl_event upload = NULL, done = TC_EVENT_SENTINEL;
        if (c->use_wait)
            assert_int_equal(clEnqueueWriteBuffer(g_queue, in, CL_FALSE, 0, total * es, host, 0,
                                                  NULL, &upload),
                             CL_SUCCESS);
        st = clreduce_reduce_rows_multi(g_ctx, g_queue, c->ops, c->k, type, in, offset, c->rows,
                                        c->length, c->pitch, out, first, upload ? 1 : 0,
                                        upload ? &upload : NULL, &done);
        if (st == CLREDUCE_SUCCESS && (done == TC_EVENT_SENTINEL || done == NULL)) {
            tc_ops_report(s, "%s: no done event", what);
            tc_read_buffer(g_queue, out, res, nrec * rs, 0, NULL);
        } else if (st == CLREDUCE_SUCCESS) {
            /* Read on another queue behind `done` alone: a done event that
             * completes too early shows there. */
            tc_read_buffer(g_read_queue, out, res, nrec * rs, 1, &done);
            clReleaseEvent(done);
        }
        if (upload) {
            clWaitForEvents(1, &upload);
            clReleaseEvent(upload);
        }
        clReleaseMemObject(in);
        clReleaseMemObject(out);
    }
    if (st != CLREDUCE_SUCCESS) {
        tc_ops_report(s, "%s: %s (%s)", what, clreduce_status_string(st),
                      clreduce_last_error(g_ctx));
        goto out;
    }
    for (size_t i = 0; i < nrec * rs; i++) {
        if ((i < first * rs || i >= (first + c->rows) * rs) && res[i] != TC_SENTINEL_BYTE) {
            tc_ops_report(s, "%s: byte %zu outside the records written (records [%zu, %zu) of "
                          "%zu bytes)", what, i, first, first + c->rows, rs);
            break;
        }
    }
    clreduce_settings t = set_tuning(c->ops, c->k, type);
    size_t wrong = 0;
    char why[512], first_wrong[768] = "";
    for (size_t r = 0; r < c->rows; r++) {
        const unsigned char *row = host + (offset + r * pitch) * es;
        const unsigned char *rec = res + (first + r) * rs;
        for (size_t j = 0; j < c->k; j++) {
            if (check_result(c->ops[j], type, row, c->length, rec + offsets[j], &t, why,
                             sizeof why))
                continue;
            if (wrong++ == 0)
                snprintf(first_wrong, sizeof first_wrong, "row %zu, %s: %s", r,
                         clreduce_op_name(c->ops[j]), why);
        }
    }
    if (wrong)
        tc_ops_report(s, "%s: %zu results wrong, the first %s", what, wrong, first_wrong);
out:
    free(host);
    free(res);
}

/* ---- tests ---------------------------------------------------------------------------- */

/* The row lengths and counts of the shapes test. */
static const size_t shape_lengths[] = {0, 1, 2, 31, 33, 255, 257, 1025, 4097};
static const size_t shape_rows[] = {1, 3, 64, 1000};

/* One operator alone per type (in the order of tc_all_types), through the
 * rows call of several. */
static const clreduce_op single_op[] = {CLREDUCE_OP_ARGMIN, CLREDUCE_OP_NORM2,
                                        CLREDUCE_OP_SUM_ABS, CLREDUCE_OP_MINMAX,
                                        CLREDUCE_OP_MAX,    CLREDUCE_OP_SUM_SQUARES};

/* Every type with every operator it takes at once, {MIN, SUM}, {ARGMAX,
 * MEAN_VAR} (floats) and one operator alone, at every row length (the first
 * set; lengths 0, 33 and 1025 the others) and count whose rows fit
 * MAX_ELEMENTS, unpitched and pitched (3 elements of
 * padding): a third of the cases through the host form, the rest through
 * the enqueueing form at input offsets and result offsets of 1 or 2. */
static void test_shapes(void **state)
{
    (void)state;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "shapes");
    static const clreduce_op min_sum[] = {CLREDUCE_OP_MIN, CLREDUCE_OP_SUM};
    static const clreduce_op argmax_mean_var[] = {CLREDUCE_OP_ARGMAX, CLREDUCE_OP_MEAN_VAR};
    for (tc_type_ops t = {0}; tc_next_type_ops(g_ctx, &t, ARRAY_SIZE(tc_all_types)); t.index++) {
        struct {
            const clreduce_op *ops;
            size_t k;
        } sets[] = {{t.ops, t.k},
                    {min_sum, 2},
                    {argmax_mean_var, tc_is_float_type(t.type) ? 2 : 0},
                    {&single_op[t.index], 1}};
        for (size_t si = 0; si < ARRAY_SIZE(sets); si++) {
            if (sets[si].k == 0)
                continue;
            for (size_t li = 0; li < ARRAY_SIZE(shape_lengths); li++) {
                /* Each row length may take a team size of its own: every
                 * length for the first set, a few for the others. */
                if (si > 0 && shape_lengths[li] != 0 && shape_lengths[li] != 33 &&
                    shape_lengths[li] != 1025)
                    continue;
                for (size_t ri = 0; ri < ARRAY_SIZE(shape_rows); ri++) {
                    for (size_t pad = 0; pad <= 3; pad += 3) {
                        size_t length = shape_lengths[li], rows = shape_rows[ri];
                        if (rows * (length + pad) > MAX_ELEMENTS)
                            continue;
                        size_t k = s.cases;
                        rows_case c = {sets[si].ops, sets[si].k, t.type, rows, length,
                                       pad ? length + pad : 0, k % 3 == 2, 1 + k % 2,
                                       1 + (k / 2) % 2, k % 5 == 4, (k / 3) % 3};
                        run_case(&s, &c);
                    }
                }
            }
        }
    }
    tc_ops_finish_suite(&s);
}

/* A single row of 2^20 + 7 floats (one work-group takes it all): sum, min,
 * max and argmax against the reference, the maximum planted twice so that
 * the first of the two must win; both forms. */
static void test_one_long_row(void **state)
{
    (void)state;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "one_long_row");
    static const clreduce_op ops[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_MAX,
                                      CLREDUCE_OP_ARGMAX};
    const size_t n = TC_LARGE_COUNT, lead = 2;
    float *data = malloc((lead + n) * sizeof *data);
    assert_non_null(data);
    float *row = data + lead;
    tc_fill_random(CLREDUCE_FLOAT, row, n);
    float top = 0;
    for (size_t i = 0; i < n; i++)
        top = fabsf(row[i]) > top ? fabsf(row[i]) : top;
    size_t p = n / 2 + tc_rand_below(n / 4), q = p + 1 + tc_rand_below(n - p - 1);
    row[p] = row[q] = 2 * top + 1;
    data[0] = data[1] = NAN; /* before the row: read by mistake, NaN everywhere */
    size_t at[4];
    size_t rs = clreduce_multi_record(ops, 4, CLREDUCE_FLOAT, at);
    assert_int_equal(rs, 32);
    clreduce_settings t = set_tuning(ops, 4, CLREDUCE_FLOAT);
    for (int host = 0; host < 2; host++) {
        unsigned char rec[3 * 32];
        memset(rec, TC_SENTINEL_BYTE, sizeof rec);
        clreduce_status st;
        if (host) {
            st = clreduce_reduce_rows_multi_host(g_ctx, ops, 4, CLREDUCE_FLOAT, row, 1, n, 0,
                                                 rec + rs);
        } else {
            cl_mem in = tc_make_buffer(g_ctx, (lead + n) * sizeof *data, data);
            cl_mem out = tc_make_buffer(g_ctx, sizeof rec, rec);
            cl_event done = NULL;
            st = clreduce_reduce_rows_multi(g_ctx, g_queue, ops, 4, CLREDUCE_FLOAT, in, lead, 1,
                                            n, n, out, 1, 0, NULL, &done);
            if (st == CLREDUCE_SUCCESS) {
                assert_non_null(done);
                tc_read_buffer(g_read_queue, out, rec, sizeof rec, 1, &done);
                clReleaseEvent(done);
            }
            clReleaseMemObject(in);
            clReleaseMemObject(out);
        }
        s.cases++;
        const char *form = host ? "host" : "enqueueing";
        if (st != CLREDUCE_SUCCESS) {
            tc_ops_report(&s, "%s form: %s (%s)", form, clreduce_status_string(st),
                          clreduce_last_error(g_ctx));
            continue;
        }
        for (size_t i = 0; i < rs; i++)
            if (rec[i] != TC_SENTINEL_BYTE || rec[2 * rs + i] != TC_SENTINEL_BYTE) {
                tc_ops_report(&s, "%s form: bytes beside the record written", form);
                break;
            }
        for (size_t j = 0; j < 4; j++) {
            char why[512];
            if (!check_result(ops[j], CLREDUCE_FLOAT, row, n, rec + rs + at[j], &t, why,
                              sizeof why))
                tc_ops_report(&s, "%s form, %s: %s", form, clreduce_op_name(ops[j]), why);
        }
        clreduce_arg_float amax;
        memcpy(&amax, rec + rs + at[3], sizeof amax);
        if (amax.index != p || amax.value != 2 * top + 1)
            tc_ops_report(&s, "%s form: argmax {%g, %llu}, expected {%g, %zu} (a tie at %zu)",
                          form, (double)amax.value, (unsigned long long)amax.index,
                          (double)(2 * top + 1), p, q);
    }
    free(data);
    tc_ops_finish_suite(&s);
}

/* The shapes of the test against the operators alone: rows, length,
 * pitch as passed. */
static const size_t alone_shapes[][3] = {
    {1, 4097, 0}, {3, 1025, 1030}, {64, 257, 0}, {1000, 33, 36}, {500, 2, 0}, {2, 100003, 0}};

/* Puts NaN, infinities or signed zeros into some rows of floats: a NaN
 * (row r % 4 == 0), an infinity of each sign (1) or zeros of both signs
 * only (2); special[r] says which rows hold NaN or infinities. */
static void plant_specials(clreduce_type type, void *data, size_t rows, size_t length,
                           size_t pitch, unsigned char *special)
{
    for (size_t r = 0; r < rows; r++) {
        size_t base = r * pitch, at = base + tc_rand_below(length);
        special[r] = r % 4 < 2;
        switch (r % 4) {
        case 0: tc_set_double(type, data, at, (double)NAN); break;
        case 1:
            tc_set_double(type, data, at, (double)INFINITY);
            tc_set_double(type, data, base + (at - base + 1) % length, -(double)INFINITY);
            break;
        case 2:
            for (size_t i = 0; i < length; i++)
                tc_set_double(type, data, base + i, (tc_rand64() & 1) ? -0.0 : 0.0);
            break;
        default: break;
        }
    }
}

/* Whether a and b (results of op on a float type) are the same but for the
 * bits of a NaN min or max, which multi.h lets differ. */
static int same_but_nan(clreduce_op op, clreduce_type type, const unsigned char *a,
                        const unsigned char *b)
{
    size_t es = tc_elem_size(type);
    size_t parts = op == CLREDUCE_OP_MINMAX ? 2 : 1;
    if (op != CLREDUCE_OP_MIN && op != CLREDUCE_OP_MAX && op != CLREDUCE_OP_MINMAX)
        return 0;
    for (size_t i = 0; i < parts; i++) {
        double x = tc_get_double(type, a, i), y = tc_get_double(type, b, i);
        if (memcmp(a + i * es, b + i * es, es) != 0 && !(isnan(x) && isnan(y)))
            return 0;
    }
    return 1;
}

/* Every type with every operator it takes, in several shapes: each result
 * must have the bits of clreduce_reduce_rows_host with its operator alone
 * (but for the bits of a NaN min or max of floats), where float sums must
 * pass the CPU reference instead; floats with NaN, infinities and signed
 * zeros in some rows (their sums are not checked). */
static void test_against_alone(void **state)
{
    (void)state;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "against_alone");
    size_t most = 0;
    for (size_t i = 0; i < ARRAY_SIZE(alone_shapes); i++) {
        size_t pitch = alone_shapes[i][2] ? alone_shapes[i][2] : alone_shapes[i][1];
        most = alone_shapes[i][0] * pitch > most ? alone_shapes[i][0] * pitch : most;
    }
    unsigned char *data = malloc(most * 8), *recs = malloc(1000 * RECORD_MAX);
    unsigned char *alone = malloc(1000 * RESULT_MAX), *special = malloc(1000);
    assert_true(data && recs && alone && special);
    for (tc_type_ops t = {0}; tc_next_type_ops(g_ctx, &t, ARRAY_SIZE(tc_all_types)); t.index++) {
        clreduce_type type = t.type;
        size_t es = tc_elem_size(type), at[CLREDUCE_MULTI_MAX];
        size_t rs = clreduce_multi_record(t.ops, t.k, type, at);
        clreduce_settings tuning = set_tuning(t.ops, t.k, type);
        for (size_t si = 0; si < ARRAY_SIZE(alone_shapes); si++) {
            size_t rows = alone_shapes[si][0], length = alone_shapes[si][1];
            size_t pitch = alone_shapes[si][2] ? alone_shapes[si][2] : length;
            int specials = tc_is_float_type(type) && si % 2 == 1;
            fill_for_set(t.ops, t.k, type, data, rows * pitch, si);
            memset(special, 0, rows);
            if (specials)
                plant_specials(type, data, rows, length, pitch, special);
            for (size_t r = 0; r < rows; r++)
                for (size_t i = length; i < pitch; i++)
                    poison_at(type, data, r * pitch + i);
            size_t case_index = s.cases++;
            char what[160];
            snprintf(what, sizeof what, "%s rows=%zu length=%zu pitch=%zu%s case=%zu",
                     clreduce_type_name(type), rows, length, alone_shapes[si][2],
                     specials ? " with special values" : "", case_index);
            clreduce_status st = clreduce_reduce_rows_multi_host(g_ctx, t.ops, t.k, type, data,
                                                                 rows, length,
                                                                 alone_shapes[si][2], recs);
            if (st != CLREDUCE_SUCCESS) {
                tc_ops_report(&s, "%s: %s (%s)", what, clreduce_status_string(st),
                              clreduce_last_error(g_ctx));
                continue;
            }
            for (size_t j = 0; j < t.k; j++) {
                clreduce_op op = t.ops[j];
                size_t size = clreduce_result_size(op, type);
                st = clreduce_reduce_rows_host(g_ctx, op, type, data, rows, length,
                                               alone_shapes[si][2], alone);
                if (st != CLREDUCE_SUCCESS) {
                    tc_ops_report(&s, "%s: %s alone: %s (%s)", what, clreduce_op_name(op),
                                  clreduce_status_string(st), clreduce_last_error(g_ctx));
                    continue;
                }
                int exact = !tc_is_float_type(type) || is_selection(op);
                for (size_t r = 0; r < rows; r++) {
                    const unsigned char *got = recs + r * rs + at[j];
                    const unsigned char *want = alone + r * size;
                    char why[512] = "";
                    if (exact) {
                        if (memcmp(got, want, size) == 0 ||
                            (tc_is_float_type(type) && same_but_nan(op, type, got, want)))
                            continue;
                        char g[80], a[80];
                        format_bytes(got, size, g, sizeof g);
                        format_bytes(want, size, a, sizeof a);
                        tc_ops_report(&s, "%s: row %zu, %s gave bytes %s, alone %s", what, r,
                                      clreduce_op_name(op), g, a);
                        break;
                    }
                    if (!special[r] && !check_result(op, type, data + r * pitch * es, length, got,
                                                     &tuning, why, sizeof why)) {
                        tc_ops_report(&s, "%s: row %zu, %s: %s", what, r, clreduce_op_name(op),
                                      why);
                        break;
                    }
                }
                /* The exact results against the reference as well, NaN included. */
                for (size_t r = 0; r < rows && exact; r++) {
                    char why[512];
                    if (!check_result(op, type, data + r * pitch * es, length,
                                      recs + r * rs + at[j], &tuning, why, sizeof why)) {
                        tc_ops_report(&s, "%s: row %zu, %s: %s", what, r, clreduce_op_name(op),
                                      why);
                        break;
                    }
                }
            }
        }
    }
    free(data);
    free(recs);
    free(alone);
    free(special);
    tc_ops_finish_suite(&s);
}

/* Bad arguments: refused with their status and a message, nothing
 * enqueued, built or written; the limits themselves accepted. */
static void test_errors(void **state)
{
    (void)state;
    tc_guarded g = tc_ops_guarded(g_ctx, g_queue); /* 64 floats, 64 bytes */
    const clreduce_op three[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MAX, CLREDUCE_OP_ARGMAX};
    const clreduce_op eleven[11] = {CLREDUCE_OP_SUM};
    const clreduce_op twice[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_SUM};
    const clreduce_op with_dot[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_DOT};
    const clreduce_op norm2[] = {CLREDUCE_OP_MIN, CLREDUCE_OP_NORM2};
    const clreduce_type f = CLREDUCE_FLOAT;
    /* three on float: records of 24 bytes, two fit the 64 bytes of g.output. */
    assert_int_equal(clreduce_multi_record(three, 3, f, NULL), 24);

#define ROWS_MULTI(ops, k, type, input, offset, rows, length, pitch, result, result_offset)    \
    clreduce_reduce_rows_multi(g_ctx, g_queue, ops, k, type, input, offset, rows, length, pitch, \
                               result, result_offset, 0, NULL, &done)

    TC_EXPECT_FAILURE(&g, g_ctx, "NULL ops", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("ops"), ROWS_MULTI(NULL, 3, f, g.input, 0, 2, 8, 0, g.output, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "no operator", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("num_ops", "0"),
                      ROWS_MULTI(three, 0, f, g.input, 0, 2, 8, 0, g.output, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "eleven operators", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("num_ops", "11"),
                      ROWS_MULTI(eleven, 11, f, g.input, 0, 2, 8, 0, g.output, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "an operator twice", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("sum"), ROWS_MULTI(twice, 3, f, g.input, 0, 2, 8, 0, g.output, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "dot", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("dot"),
                      ROWS_MULTI(with_dot, 2, f, g.input, 0, 2, 8, 0, g.output, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "norm2 of int32", CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                      WORDS("norm2", "int32"),
                      ROWS_MULTI(norm2, 2, CLREDUCE_INT32, g.input, 0, 2, 8, 0, g.output, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "unknown type", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("type"),
                      ROWS_MULTI(three, 3, (clreduce_type)9, g.input, 0, 2, 8, 0, g.output, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "row_pitch below row_length", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("row_pitch"),
                      ROWS_MULTI(three, 3, f, g.input, 0, 2, 8, 7, g.output, 0));
    /* Rows 13 apart: 4 * 13 + 10 = 62 elements, which fit 64 from offset 2
     * (accepted below) but not from offset 3. */
    TC_EXPECT_FAILURE(&g, g_ctx, "last row past the input", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("input"),
                      ROWS_MULTI(three, 3, f, g.input, 3, 5, 10, 13, g.output, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "rows * pitch overflows", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, NULL,
                      ROWS_MULTI(three, 3, f, g.input, 0, SIZE_MAX / 2, 4, 8, g.output, 0));
    /* Records of 24 bytes: two fit the 64 bytes of g.output, not three. */
    TC_EXPECT_FAILURE(&g, g_ctx, "records past the result", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("result"),
                      ROWS_MULTI(three, 3, f, g.input, 0, 3, 8, 0, g.output, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "records from result_offset 1 past the result",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("result"),
                      ROWS_MULTI(three, 3, f, g.input, 0, 2, 8, 0, g.output, 1));
    TC_EXPECT_FAILURE(&g, g_ctx, "result_offset near SIZE_MAX", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("result"),
                      ROWS_MULTI(three, 3, f, g.input, 0, 2, 8, 0, g.output, SIZE_MAX / 16));
    /* The rows' span is elements [10, 18) of g.input, bytes [40, 72): the
     * second record, bytes [24, 48), reaches into it; records from 2 on lie
     * in it. (Records from 3 on lie right after it: accepted below.) */
    TC_EXPECT_FAILURE(&g, g_ctx, "the last record overlapping the rows",
                      CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("overlap"),
                      ROWS_MULTI(three, 3, f, g.input, 10, 2, 4, 0, g.input, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "records inside the rows", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("overlap"),
                      ROWS_MULTI(three, 3, f, g.input, 10, 2, 4, 0, g.input, 2));
    TC_EXPECT_FAILURE(&g, g_ctx, "NULL input", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("input"), ROWS_MULTI(three, 3, f, NULL, 0, 2, 8, 0, g.output, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "NULL result", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("result"), ROWS_MULTI(three, 3, f, g.input, 0, 2, 8, 0, NULL, 0));
    TC_EXPECT_FAILURE(&g, g_ctx, "NULL queue", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("queue"),
                      clreduce_reduce_rows_multi(g_ctx, NULL, three, 3, f, g.input, 0, 2, 8, 0,
                                                 g.output, 0, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "num_wait without a list", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("num_wait"),
                      clreduce_reduce_rows_multi(g_ctx, g_queue, three, 3, f, g.input, 0, 2, 8, 0,
                                                 g.output, 0, 1, NULL, &done));
    tc_check_status_and_message("NULL ctx",
                                clreduce_reduce_rows_multi(NULL, g_queue, three, 3, f, g.input, 0,
                                                           2, 8, 0, g.output, 0, 0, NULL, NULL),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, NULL, WORDS("ctx"));
#undef ROWS_MULTI
    tc_release_guarded(&g);

    /* The limits themselves: the last row ending at the input's last
     * element and the last record at the result's last byte; records right
     * after the rows' span in the same buffer. */
    float input[64];
    for (size_t i = 0; i < 64; i++)
        input[i] = (float)i - 20.5f;
    unsigned char out_bytes[5 * 24];
    memset(out_bytes, TC_SENTINEL_BYTE, sizeof out_bytes);
    cl_mem in = tc_make_buffer(g_ctx, sizeof input, input);
    cl_mem out = tc_make_buffer(g_ctx, sizeof out_bytes, out_bytes);
    assert_int_equal(clreduce_reduce_rows_multi(g_ctx, g_queue, three, 3, f, in, 2, 5, 10, 13,
                                                out, 0, 0, NULL, NULL),
                     CLREDUCE_SUCCESS);
    /* Record 4 again: the sum of elements [0, 8). */
    assert_int_equal(clreduce_reduce_rows_multi(g_ctx, g_queue, three, 3, f, in, 0, 1, 8, 0, out,
                                                4, 0, NULL, NULL),
                     CLREDUCE_SUCCESS);
    assert_int_equal(clreduce_reduce_rows_multi(g_ctx, g_queue, three, 3, f, in, 10, 2, 4, 0, in,
                                                3, 0, NULL, NULL),
                     CLREDUCE_SUCCESS);
    unsigned char back[sizeof out_bytes];
    tc_read_buffer(g_queue, out, back, sizeof back, 0, NULL);
    float want = 0, got;
    for (size_t i = 2; i < 12; i++) /* row 0 of the first call */
        want += input[i];
    memcpy(&got, back, sizeof got);
    assert_true(got == want);
    want = 0;
    for (size_t i = 0; i < 8; i++)
        want += input[i];
    memcpy(&got, back + 4 * 24, sizeof got);
    assert_true(got == want);
    float in_back[64];
    tc_read_buffer(g_queue, in, in_back, sizeof in_back, 0, NULL);
    assert_memory_equal(in_back, input, 72); /* the rows and what precedes them */
    memcpy(&got, (unsigned char *)in_back + 72, sizeof got);
    assert_true(got == input[10] + input[11] + input[12] + input[13]);
    clReleaseMemObject(in);
    clReleaseMemObject(out);

    /* The host form: the same checks, and the results untouched. */
    unsigned char res[3 * 24];
    memset(res, TC_SENTINEL_BYTE, sizeof res);
#define HOST(ops, k, type, data, rows, length, pitch, results)                                    \
    clreduce_reduce_rows_multi_host(g_ctx, ops, k, type, data, rows, length, pitch, results)
    tc_check_status_and_message("host: NULL results", HOST(three, 3, f, input, 2, 8, 0, NULL),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("result"));
    tc_check_status_and_message("host: NULL data", HOST(three, 3, f, NULL, 2, 8, 0, res),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("data"));
    tc_check_status_and_message("host: row_pitch below row_length",
                                HOST(three, 3, f, input, 2, 8, 7, res),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("row_pitch"));
    tc_check_status_and_message("host: an operator twice", HOST(twice, 3, f, input, 2, 8, 0, res),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, NULL);
    tc_check_status_and_message("host: dot", HOST(with_dot, 2, f, input, 2, 8, 0, res),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("dot"));
    tc_check_status_and_message("host: norm2 of int32",
                                HOST(norm2, 2, CLREDUCE_INT32, input, 2, 8, 0, res),
                                CLREDUCE_ERROR_UNSUPPORTED, g_ctx, WORDS("norm2", "int32"));
    tc_check_status_and_message("host: eleven operators",
                                HOST(eleven, 11, f, input, 2, 8, 0, res),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("num_ops"));
    tc_check_status_and_message("host: NULL ctx",
                                clreduce_reduce_rows_multi_host(NULL, three, 3, f, input, 2, 8, 0,
                                                                res),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, NULL, WORDS("ctx"));
#undef HOST
    for (size_t i = 0; i < sizeof res; i++)
        assert_int_equal(res[i], TC_SENTINEL_BYTE);
}

/* row_length 0: every record holds each operator's result of no element,
 * as clreduce_reduce_rows_host with that operator alone gives it and as
 * the reference says, on every type, both forms; rows 0 writes nothing
 * (and gives a done event when asked). */
static void test_empty(void **state)
{
    (void)state;
    tc_suite s = {g_ctx, "empty", 0, 0};
    const size_t rows = 5, first = 2;
    for (tc_type_ops t = {0}; tc_next_type_ops(g_ctx, &t, ARRAY_SIZE(tc_all_types)); t.index++) {
        clreduce_type type = t.type;
        size_t at[CLREDUCE_MULTI_MAX];
        size_t rs = clreduce_multi_record(t.ops, t.k, type, at);
        clreduce_settings tuning = set_tuning(t.ops, t.k, type);
        unsigned char want[CLREDUCE_MULTI_MAX][RESULT_MAX * 5], dummy[8] = {0};
        for (size_t j = 0; j < t.k; j++)
            assert_int_equal(clreduce_reduce_rows_host(g_ctx, t.ops[j], type, dummy, rows, 0, 0,
                                                       want[j]),
                             CLREDUCE_SUCCESS);
        cl_mem in = tc_make_buffer(g_ctx, 16 * 8, NULL);
        for (int host = 0; host < 2; host++) {
            size_t nrec = first + rows + 1;
            unsigned char res[(2 + 5 + 1) * RECORD_MAX];
            memset(res, TC_SENTINEL_BYTE, sizeof res);
            clreduce_status st;
            if (host) {
                st = clreduce_reduce_rows_multi_host(g_ctx, t.ops, t.k, type, dummy, rows, 0, 0,
                                                     res + first * rs);
            } else {
                cl_mem out = tc_make_buffer(g_ctx, nrec * rs, res);
                cl_event done = NULL;
                st = clreduce_reduce_rows_multi(g_ctx, g_queue, t.ops, t.k, type, in, 3, rows, 0,
                                                0, out, first, 0, NULL, &done);
                if (st == CLREDUCE_SUCCESS) {
                    assert_non_null(done);
                    tc_read_buffer(g_read_queue, out, res, nrec * rs, 1, &done);
                    clReleaseEvent(done);
                }
                clReleaseMemObject(out);
            }
            s.cases++;
            const char *form = host ? "host" : "enqueueing";
            if (st != CLREDUCE_SUCCESS) {
                tc_ops_report(&s, "%s, %s form: %s (%s)", clreduce_type_name(type), form,
                              clreduce_status_string(st), clreduce_last_error(g_ctx));
                continue;
            }
            for (size_t i = 0; i < nrec * rs; i++)
                if ((i < first * rs || i >= (first + rows) * rs) && res[i] != TC_SENTINEL_BYTE) {
                    tc_ops_report(&s, "%s, %s form: byte %zu outside the records written",
                                  clreduce_type_name(type), form, i);
                    break;
                }
            for (size_t r = 0; r < rows; r++)
                for (size_t j = 0; j < t.k; j++) {
                    size_t size = clreduce_result_size(t.ops[j], type);
                    const unsigned char *got = res + (first + r) * rs + at[j];
                    char why[512];
                    if (memcmp(got, want[j] + r * size, size) != 0)
                        tc_ops_report(&s, "%s, %s form, row %zu: %s is not its result of no "
                                      "element", clreduce_type_name(type), form, r,
                                      clreduce_op_name(t.ops[j]));
                    else if (!check_result(t.ops[j], type, dummy, 0, got, &tuning, why,
                                           sizeof why))
                        tc_ops_report(&s, "%s, %s form, row %zu: %s: %s",
                                      clreduce_type_name(type), form, r,
                                      clreduce_op_name(t.ops[j]), why);
                }
        }

        /* No rows: nothing written, a marker when done is asked. */
        unsigned char res[2 * RECORD_MAX];
        memset(res, TC_SENTINEL_BYTE, sizeof res);
        cl_mem out = tc_make_buffer(g_ctx, sizeof res, res);
        cl_event done = NULL;
        assert_int_equal(clreduce_reduce_rows_multi(g_ctx, g_queue, t.ops, t.k, type, in, 0, 0,
                                                    7, 0, out, 0, 0, NULL, &done),
                         CLREDUCE_SUCCESS);
        assert_non_null(done);
        assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
        clReleaseEvent(done);
        assert_int_equal(clreduce_reduce_rows_multi(g_ctx, g_queue, t.ops, t.k, type, in, 0, 0,
                                                    7, 0, out, 1, 0, NULL, NULL),
                         CLREDUCE_SUCCESS);
        unsigned char back[sizeof res];
        tc_read_buffer(g_queue, out, back, sizeof back, 0, NULL);
        assert_memory_equal(back, res, sizeof res);
        assert_int_equal(clreduce_reduce_rows_multi_host(g_ctx, t.ops, t.k, type, dummy, 0, 7, 0,
                                                         back),
                         CLREDUCE_SUCCESS);
        assert_memory_equal(back, res, sizeof res);
        s.cases += 3;
        clReleaseMemObject(out);
        clReleaseMemObject(in);
    }
    tc_ops_finish_suite(&s);
}

int main(void)
{
    g_ctx = tc_start("unit.rows_multi", &g_queue, &g_read_queue, NULL);
    struct CMUnitTest tests[8];
    size_t nt = 0;
    tc_add_test(tests, &nt, "errors", test_errors, NULL);
    tc_add_test(tests, &nt, "empty", test_empty, NULL);
    tc_add_test(tests, &nt, "one_long_row", test_one_long_row, NULL);
    tc_add_test(tests, &nt, "against_alone", test_against_alone, NULL);
    tc_add_test(tests, &nt, "shapes", test_shapes, NULL);
    int failed = tc_run_tests("unit.rows_multi", tests, nt);
    return tc_finish(g_ctx, failed, g_queue, g_read_queue, NULL);
}
