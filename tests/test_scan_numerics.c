/* unit.scan_numerics: the scans' numerical contract of clreduce.h on
 * adversarial data, for every scan variant, both kinds, float and double.
 *
 * Every element i of a float sum scan must meet
 *   |out[i] - exact_i| <= (k_i + ceil(log2 n)) * u * sum_{j<=i} |x_j|
 * with u the unit roundoff and k_i the tiles before element i plus the
 * elements per work-item (for the exclusive scan, the same for the prefix
 * of i elements). The context is made with explicit tuning, so that the
 * tile is known here: work_group_size * loads_per_work_item * vector_width
 * elements for REDUCE_THEN_SCAN and LOOKBACK, a block of work_group_size
 * (HILLIS_STEELE) or twice that (BLELLOCH) elements of 1 or 2 per
 * work-item for the classic ladder. The exact prefixes are accumulated on
 * the CPU in long double with Neumaier's compensation.
 *
 * The data: a run of ones followed by values just under u (each rounds away
 * when added to the running sum one at a time, but not when added to each
 * other first), magnitudes 2^-40 to 2^40 with random signs, and huge values
 * with their negatives among ones. */
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

/* 2^21 + 3: many tiles per work-group for REDUCE_THEN_SCAN on any device. */
#define COUNT (((size_t)1 << 21) + 3)

static clreduce_ctx *g_ctx;

static const clreduce_type float_types[] = {CLREDUCE_FLOAT, CLREDUCE_DOUBLE};
static const clreduce_scan_kind kinds[] = {CLREDUCE_INCLUSIVE, CLREDUCE_EXCLUSIVE};

/* ---- data ------------------------------------------------------------------------ */

typedef struct dataset {
    const char *name;
    void (*fill)(clreduce_type type, void *data, size_t n);
} dataset;

static void fill_ones_then_tiny(clreduce_type type, void *data, size_t n)
{
    tc_fill_ones_then_tiny(type, data, n, n, 256);
}

static void fill_magnitudes(clreduce_type type, void *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double sign = (tc_rand64() & 1) ? -1.0 : 1.0;
        tc_set_double(type, data, i,
                      sign * ldexp(1.0 + tc_rand_unit(), (int)tc_rand_below(81) - 40));
    }
}

static void fill_huge_and_ones(clreduce_type type, void *data, size_t n)
{
    static const double pattern[] = {1e30, 1.0, -1e30, 1.0};
    for (size_t i = 0; i < n; i++)
        tc_set_double(type, data, i, pattern[i % 4]);
}

static const dataset datasets[] = {
    {"256 ones, then values just under u", fill_ones_then_tiny},
    {"magnitudes 2^-40..2^40, random signs", fill_magnitudes},
    {"1e30, 1, -1e30, 1, ...", fill_huge_and_ones},
};

/* ---- the bound ------------------------------------------------------------------- */

static unsigned ceil_log2(size_t n)
{
    unsigned k = 0;
    while (((size_t)1 << k) < n)
        k++;
    return k;
}

static long double element(clreduce_type type, const void *data, size_t i)
{
    return type == CLREDUCE_FLOAT ? (long double)((const float *)data)[i]
                                  : (long double)((const double *)data)[i];
}

/* Elements of one tile (block) and elements per work-item, as the variant
 * groups its additions with this context's tuning. */
static void grouping(clreduce_scan_variant v, clreduce_type type, size_t *tile, size_t *items)
{
    clreduce_settings t;
    assert_int_equal(clreduce_get_tuning(g_ctx, type, &t), CLREDUCE_SUCCESS);
    if (v == CLREDUCE_SCAN_HILLIS_STEELE || v == CLREDUCE_SCAN_BLELLOCH) {
        *items = 2;
        *tile = v == CLREDUCE_SCAN_BLELLOCH ? 2 * t.work_group_size : t.work_group_size;
    } else {
        *items = (size_t)t.loads_per_work_item * t.vector_width;
        *tile = t.work_group_size * *items;
    }
}

/* Checks every element of out against the bound; returns the largest
 * error as a fraction of its bound, and counts the elements past it. */
static double check_bound(clreduce_scan_variant v, clreduce_type type, clreduce_scan_kind kind,
                          const void *in, const void *out, size_t n, size_t *bad, size_t *first)
{
    size_t tile, items;
    grouping(v, type, &tile, &items);
    long double u = tc_unit_roundoff(type), s = 0, c = 0, a = 0;
    unsigned depth = ceil_log2(n);
    double worst = 0;
    *bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (kind == CLREDUCE_INCLUSIVE) {
            long double x = element(type, in, i), t = s + x;
            c += fabsl(s) >= fabsl(x) ? (s - t) + x : (x - t) + s;
            s = t;
            a += fabsl(x);
        }
        long double exact = s + c;
        long double bound = (long double)(i / tile + items + depth) * u * a;
        long double err = fabsl(element(type, out, i) - exact);
        double ratio = bound > 0 ? (double)(err / bound) : (err == 0 ? 0.0 : INFINITY);
        if (ratio > worst)
            worst = ratio;
        if (!(err <= bound) && (*bad)++ == 0)
            *first = i;
        if (kind == CLREDUCE_EXCLUSIVE) {
            long double x = element(type, in, i), t = s + x;
            c += fabsl(s) >= fabsl(x) ? (s - t) + x : (x - t) + s;
            s = t;
            a += fabsl(x);
        }
    }
    return worst;
}

/* ---- tests ------------------------------------------------------------------------- */

static void test_scan_sum_bound(void **state)
{
    clreduce_scan_variant v = *(const clreduce_scan_variant *)*state;
    char name[64];
    snprintf(name, sizeof name, "scan_sum_%s", tc_scan_variant_name(v));
    tc_seed_for(name);
    void *in = malloc(COUNT * sizeof(double)), *out = malloc(COUNT * sizeof(double));
    assert_non_null(in);
    assert_non_null(out);
    int ran = 0, failures = 0;
    for (size_t ti = 0; ti < sizeof float_types / sizeof *float_types; ti++) {
        clreduce_type type = float_types[ti];
        if (!tc_type_supported(g_ctx, type) ||
            clreduce_check_scan_support(g_ctx, CLREDUCE_OP_SUM, type, v) != CLREDUCE_SUCCESS)
            continue;
        ran = 1;
        for (size_t di = 0; di < sizeof datasets / sizeof *datasets; di++) {
            datasets[di].fill(type, in, COUNT);
            for (size_t ki = 0; ki < sizeof kinds / sizeof *kinds; ki++) {
                clreduce_status st = clreduce_scan_host(g_ctx, CLREDUCE_OP_SUM, type, kinds[ki], v,
                                                        in, COUNT, out);
                if (st != CLREDUCE_SUCCESS)
                    fail_msg("%s: %s", name, clreduce_last_error(g_ctx));
                size_t bad = 0, first = 0;
                double worst = check_bound(v, type, kinds[ki], in, out, COUNT, &bad, &first);
                print_message("%-16s %-6s %-9s %-38s largest error %.3g of the bound\n",
                              tc_scan_variant_name(v), tc_type_name(type),
                              tc_scan_kind_name(kinds[ki]), datasets[di].name, worst);
                if (bad) {
                    print_message("  %zu elements past the bound, the first at %zu\n", bad, first);
                    failures++;
                }
            }
        }
    }
    free(in);
    free(out);
    assert_int_equal(failures, 0);
    if (!ran)
        skip();
}

int main(void)
{
    tc_init_seed();
    clreduce_ctx *probe = tc_create_default_or_skip("unit.scan_numerics");
    /* Explicit tuning, so that the tile sizes of the bound are known. */
    clreduce_settings settings;
    clreduce_default_settings(&settings);
    settings.work_group_size = 128;
    settings.loads_per_work_item = 4;
    settings.vector_width = 4;
    clreduce_status st = clreduce_create_with_settings(
        clreduce_get_cl_context(probe), clreduce_get_cl_device(probe), &settings, &g_ctx);
    if (st != CLREDUCE_SUCCESS) {
        fprintf(stderr, "unit.scan_numerics: %s\n", clreduce_last_error(NULL));
        return 1;
    }
    clreduce_destroy(probe);

    static clreduce_scan_variant variants[CLREDUCE_SCAN_VARIANT_COUNT - 1];
    static char names[CLREDUCE_SCAN_VARIANT_COUNT - 1][48];
    struct CMUnitTest tests[CLREDUCE_SCAN_VARIANT_COUNT - 1];
    memset(tests, 0, sizeof tests);
    for (int i = 0; i < CLREDUCE_SCAN_VARIANT_COUNT - 1; i++) {
        variants[i] = (clreduce_scan_variant)(i + 1); /* every variant but AUTO */
        snprintf(names[i], sizeof names[i], "scan_sum_%s", tc_scan_variant_name(variants[i]));
        tests[i].name = names[i];
        tests[i].test_func = test_scan_sum_bound;
        tests[i].initial_state = &variants[i];
    }
    if (getenv("CLREDUCE_TEST_FILTER"))
        cmocka_set_test_filter(getenv("CLREDUCE_TEST_FILTER"));
    int failed = _cmocka_run_group_tests("unit.scan_numerics", tests,
                                         CLREDUCE_SCAN_VARIANT_COUNT - 1, NULL, NULL);
    clreduce_destroy(g_ctx);
    return failed ? 1 : 0;
}
