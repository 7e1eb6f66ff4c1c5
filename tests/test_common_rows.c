/* Helpers shared by the tests of rows and segments (see
 * test_common_rows.h). */
#include "test_common_rows.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- data ------------------------------------------------------------------------ */

void tcr_fill_for_op(clreduce_op op, clreduce_type type, void *data, size_t n, size_t k)
{
    if (tc_is_sum(op))
        tc_fill_random(type, data, n);
    else
        tc_fill_mode(op, type, tc_mode_for(op, k), data, n);
}

void tcr_fill_mixed_magnitudes(clreduce_type type, void *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double mag = ldexp(1.0, (int)tc_rand_below(40) - 20);
        tc_set_double(type, data, i, (tc_rand64() & 1 ? -1 : 1) * mag * (1 + tc_rand_unit()));
    }
}

/* ---- buffers around one call ------------------------------------------------------- */

size_t tcr_span(size_t rows, size_t length, size_t pitch)
{
    return rows && length ? (rows - 1) * pitch + length : 0;
}

unsigned char *tcr_poisoned_buffer(clreduce_op op, clreduce_type type, size_t count)
{
    tc_value poison;
    tc_poison(op, type, &poison);
    unsigned char *buf = malloc((count ? count : 1) * clreduce_type_size(type));
    assert_non_null(buf);
    for (size_t i = 0; i < count; i++)
        tc_set(type, buf, i, &poison);
    return buf;
}

unsigned char *tcr_sentinel_buffer(size_t bytes)
{
    unsigned char *buf = malloc(bytes ? bytes : 1);
    assert_non_null(buf);
    memset(buf, TC_SENTINEL_BYTE, bytes);
    return buf;
}

void tcr_copy_rows(void *dst, const void *src, size_t rows, size_t length, size_t pitch,
                   size_t elem_size)
{
    for (size_t r = 0; r < rows; r++)
        memcpy((unsigned char *)dst + r * pitch * elem_size,
               (const unsigned char *)src + r * pitch * elem_size, length * elem_size);
}

/* ---- what one call did ------------------------------------------------------------- */

void tcr_read_back(tcr_outcome *o, const clreduce_ctx *ctx, cl_command_queue q, cl_mem mem,
                   void *buf, size_t bytes, cl_event done)
{
    if (o->status == CLREDUCE_SUCCESS) {
        tc_read_buffer(q, mem, buf, bytes, 1, &done);
        clReleaseEvent(done);
    } else {
        snprintf(o->why, sizeof o->why, "%s: %s", clreduce_status_string(o->status),
                 clreduce_last_error(ctx));
    }
}

void tcr_take_results(tcr_outcome *o, const void *buf, size_t count, size_t first, size_t n,
                      size_t elem_size)
{
    const unsigned char *bytes = buf;
    o->results = malloc((n ? n : 1) * elem_size);
    assert_non_null(o->results);
    memcpy(o->results, bytes + first * elem_size, n * elem_size);
    o->changed = 0;
    for (size_t i = 0; i < count; i++) {
        if (i >= first && i - first < n)
            continue;
        for (size_t b = 0; b < elem_size; b++)
            if (bytes[i * elem_size + b] != TC_SENTINEL_BYTE) {
                o->changed++;
                break;
            }
    }
}

/* tc_check_batched with ctx's tuning for type as chain_length's argument. */
static size_t wrong_results(const clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                            const void *data, const size_t *starts, const size_t *lengths,
                            size_t count, const void *results, tc_chain_length_fn chain_length,
                            double *worst, char *why, size_t why_size)
{
    clreduce_settings t;
    assert_int_equal(clreduce_get_tuning(ctx, type, &t), CLREDUCE_SUCCESS);
    return tc_check_batched(op, type, data, starts, lengths, count, results, chain_length, &t,
                            worst, why, why_size);
}

void tcr_check_results(tcr_outcome *o, const clreduce_ctx *ctx, clreduce_op op,
                       clreduce_type type, const void *data, const size_t *starts,
                       const size_t *lengths, size_t count, tc_chain_length_fn chain_length)
{
    o->wrong = wrong_results(ctx, op, type, data, starts, lengths, count, o->results,
                             chain_length, &o->worst, o->why, sizeof o->why);
}

void tcr_assert_results(const clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                        const void *data, const size_t *starts, const size_t *lengths,
                        size_t count, const void *results, tc_chain_length_fn chain_length)
{
    double worst;
    char why[384];
    size_t wrong = wrong_results(ctx, op, type, data, starts, lengths, count, results,
                                 chain_length, &worst, why, sizeof why);
    if (wrong)
        fail_msg("%s %s: %zu of %zu results wrong: %s", tc_op_name(op), tc_type_name(type), wrong,
                 count, why);
}

int tcr_passed(const tcr_outcome *o)
{
    return o->status == CLREDUCE_SUCCESS && o->wrong == 0 && o->changed == 0;
}

/* ---- reports ----------------------------------------------------------------------- */

static int g_reports;

void tcr_reset_reports(void)
{
    g_reports = 0;
}

/* What was wrong in o, after ": FAILED " in a report. */
static void describe_failure(const tcr_outcome *o, char *buf, size_t size)
{
    snprintf(buf, size, "%zu wrong, %zu elements outside the results changed; %s", o->wrong,
             o->changed, o->why);
}

int tcr_report(const char *tag, tcr_outcome *o, const char *format, ...)
{
    int ok = tcr_passed(o);
    if (!ok && g_reports++ < TCR_MAX_REPORTS) {
        char what[512], failure[512];
        va_list args;
        va_start(args, format);
        vsnprintf(what, sizeof what, format, args);
        va_end(args);
        describe_failure(o, failure, sizeof failure);
        print_error("FAILED %s: %s: %s\n", tag, what, failure);
    }
    free(o->results);
    o->results = NULL;
    return ok;
}

int tcr_report_bound(tcr_outcome *o, const char *format, ...)
{
    int ok = tcr_passed(o);
    char what[512], failure[512] = "";
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    if (!ok)
        describe_failure(o, failure, sizeof failure);
    print_message("%s: largest error %.3g of the bound%s%s\n", what, o->worst,
                  ok ? "" : ": FAILED: ", failure);
    free(o->results);
    o->results = NULL;
    return ok;
}

void tcr_assert_same_results(tcr_outcome *runs, size_t count, size_t bytes, const char *format,
                             ...)
{
    int same = 1;
    for (size_t i = 0; i < count; i++)
        assert_int_equal(runs[i].status, CLREDUCE_SUCCESS);
    for (size_t i = 1; i < count; i++)
        same = same && memcmp(runs[i].results, runs[0].results, bytes) == 0;
    for (size_t i = 0; i < count; i++) {
        free(runs[i].results);
        runs[i].results = NULL;
    }
    if (!same) {
        char what[512];
        va_list args;
        va_start(args, format);
        vsnprintf(what, sizeof what, format, args);
        va_end(args);
        fail_msg("%s: results differ between runs", what);
    }
}

/* ---- tests whole but for their cases ------------------------------------------------ */

void tcr_test_shapes(clreduce_ctx *ctx, const size_t *lengths, size_t nlengths,
                     const size_t *row_counts, size_t ncounts, size_t max_elements,
                     tcr_shape_case_fn run_case)
{
    tc_seed_for("shapes");
    void *data = malloc(max_elements * 8 + 64);
    assert_non_null(data);
    int failures = 0;
    size_t cases = 0;
    tcr_reset_reports();
    for (size_t li = 0; li < nlengths; li++) {
        size_t length = lengths[li];
        for (size_t ri = 0; ri < ncounts; ri++) {
            size_t rows = row_counts[ri];
            size_t pad = (li + ri) % 3 == 0 ? 0 : 1 + tc_rand_below(7);
            size_t pitch = length + pad;
            if (rows * (pitch ? pitch : 1) > max_elements)
                continue;
            for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
                clreduce_type type = tc_all_types[ti];
                if (!tc_type_supported(ctx, type))
                    continue;
                /* Past 10^5 elements a row: float, double and one integer
                 * type of each width. */
                if (length >= 100000 && (type == CLREDUCE_UINT32 || type == CLREDUCE_INT64))
                    continue;
                for (size_t oi = 0; oi < ARRAY_SIZE(tc_all_ops); oi++) {
                    tcr_fill_for_op(tc_all_ops[oi], type, data, rows * pitch, cases);
                    failures += !run_case(tc_all_ops[oi], type, rows, length, pad, cases, data);
                    cases++;
                }
            }
        }
    }
    print_message("%zu cases, %d failed\n", cases, failures);
    free(data);
    assert_int_equal(failures, 0);
}

void tcr_test_determinism(tcr_determinism_case_fn run_case)
{
    static const size_t shapes[][2] = {{100000, 5}, {5000, 300}, {300, 5000}, {1, 1000003},
                                       {3, 300007}};
    tc_seed_for("determinism");
    size_t most = 0;
    for (size_t si = 0; si < ARRAY_SIZE(shapes); si++)
        if (shapes[si][0] * shapes[si][1] > most)
            most = shapes[si][0] * shapes[si][1];
    float *data = malloc(most * sizeof *data);
    assert_non_null(data);
    for (size_t si = 0; si < ARRAY_SIZE(shapes); si++) {
        size_t rows = shapes[si][0], length = shapes[si][1];
        tc_fill_random(CLREDUCE_FLOAT, data, rows * length);
        run_case(rows, length, data);
    }
    free(data);
}

void tcr_test_out_of_order(const clreduce_ctx *ctx, int rounds, size_t count, size_t bytes,
                           tcr_queue_case_fn run_case)
{
    tc_seed_for("out_of_order");
    if (!tc_device_supports_queue(ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
        skip();
    cl_command_queue q = tc_create_queue(ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    assert_non_null(q);
    void *data = malloc(bytes);
    assert_non_null(data);
    int failures = 0;
    tcr_reset_reports();
    for (int round = 0; round < rounds; round++)
        for (size_t i = 0; i < count; i++)
            failures += !run_case(q, round, i, data);
    free(data);
    clReleaseCommandQueue(q);
    assert_int_equal(failures, 0);
}
