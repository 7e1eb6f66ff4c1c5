/* unit.numerics: the numerical contract of clreduce.h, on adversarial data,
 * for every variant.
 *
 * Floating-point sums: |result - exact| <= (m + ceil(log2 n)) * u * sum|x_i|
 * with u the unit roundoff and m the elements each work-item adds in
 * sequence, computed here from clreduce_get_tuning() and the device's
 * compute units (see sum_chain_length). The exact sum is computed on the CPU
 * in long double with compensated (Neumaier) summation. The data: huge and
 * tiny values alternating (1e30, 1, -1e30, 1, ...), all-equal values at
 * counts past 2^24 (where a float accumulator that adds one element at a
 * time stops growing), magnitudes 2^-40 to 2^40 in random order, values and
 * their negatives shuffled (the exact sum is 0), and subnormals alone and
 * among normal numbers. The sum of |x_i| stays finite in the element type:
 * the bound presumes no overflow. Overflow itself gives +-inf.
 *
 * min and max: a NaN anywhere (first, last, in the scalar tail, quiet or
 * signalling, either sign) gives a NaN; -0.0 orders below +0.0; +-inf and
 * subnormals are returned bit for bit.
 *
 * Each case prints the error it measured as a fraction of its bound.
 *
 * CLREDUCE_TEST_SEED=n repeats a run's random data; CLREDUCE_TEST_FILTER=glob
 * runs only the matching tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"

/* Counts: one past 2^24 and a few more, where a float sum that adds one
 * element at a time is wrong; odd counts elsewhere. */
#define BIG_COUNT ((size_t)(1u << 24) + 1)
#define MAX_COUNT ((size_t)(1u << 24) + 7)

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;
static cl_uint g_compute_units;
static int g_denormals[2]; /* [0] float, [1] double: CL_FP_DENORM */
static int g_nvidia;       /* the atomic variant's float adds flush subnormals */

/* ---- exact reference and the bound --------------------------------------------- */

static long double element(clreduce_type type, const void *data, size_t i)
{
    return type == CLREDUCE_FLOAT ? (long double)((const float *)data)[i]
                                  : (long double)((const double *)data)[i];
}

/* Neumaier's compensated sum in long double: exact to a few units of
 * long double's 2^-64 for all the data here, far below the bounds checked. */
static long double exact_sum(clreduce_type type, const void *data, size_t n,
                             long double *abs_sum)
{
    long double s = 0, c = 0, a = 0;
    for (size_t i = 0; i < n; i++) {
        long double x = element(type, data, i);
        long double t = s + x;
        c += fabsl(s) >= fabsl(x) ? (s - t) + x : (x - t) + s;
        s = t;
        a += fabsl(x);
    }
    *abs_sum = a;
    return s + c;
}

static size_t div_up(size_t a, size_t b)
{
    return a / b + (a % b != 0);
}

static unsigned ceil_log2(size_t n)
{
    unsigned k = 0;
    while (((size_t)1 << k) < n)
        k++;
    return k;
}

/* m of the contract for a sum of n elements: the longest chain of additions
 * in sequence. The classic variants add 1 or 2 elements per work-item before
 * their trees (2 here). The grid-sized ones: each work-item adds its share
 * of the vectors of its work-group's run (in steps of `loads` vectors) and
 * the scalar tail element; then the partial results of the work-groups are
 * added in sequence: by one work-item in turn for the second pass and the
 * single pass (groups / work-group size of them), by atomics in arrival
 * order for ATOMIC (all of them). Trees add ceil(log2 n) at most. */
static size_t sum_chain_length(clreduce_variant v, clreduce_type type, size_t n)
{
    if (v == CLREDUCE_AUTO)
        v = clreduce_auto_variant(g_ctx, type);
    if (v < CLREDUCE_GRID_STRIDE)
        return 2;
    if (v == CLREDUCE_REPRODUCIBLE) {
        /* Per level of tiles, 16 steps in a row in each lane; trees above. */
        size_t tile = (size_t)65536 / clreduce_type_size(type), levels = 1;
        for (size_t t = div_up(n, tile); t > 1; t = div_up(t, tile))
            levels++;
        return 16 * levels;
    }
    clreduce_settings t;
    assert_int_equal(clreduce_get_tuning(g_ctx, type, &t), CLREDUCE_SUCCESS);
    size_t wg = t.work_group_size, vec = t.vector_width, loads = t.loads_per_work_item;
    size_t groups = div_up(n, wg * vec * loads);
    size_t cap = (size_t)g_compute_units * t.groups_per_compute_unit;
    if (groups > cap)
        groups = cap;
    if (groups < 1)
        groups = 1;
    size_t per_item = div_up(div_up(n, vec), wg * groups);
    per_item = div_up(per_item, loads) * loads + loads; /* whole steps, and a run's rounding */
    size_t across = v == CLREDUCE_ATOMIC ? groups : div_up(groups, wg) + 1;
    return per_item + 1 + across;
}

/* ---- data ---------------------------------------------------------------------------- */

static void set(clreduce_type type, void *data, size_t i, double x)
{
    tc_set_double(type, data, i, x);
}

static double random_sign(void)
{
    return (tc_rand64() & 1) ? -1.0 : 1.0;
}

static void shuffle(clreduce_type type, void *data, size_t n)
{
    size_t es = clreduce_type_size(type);
    unsigned char tmp[8];
    for (size_t i = n; i > 1; i--) {
        size_t j = tc_rand_below(i);
        unsigned char *a = (unsigned char *)data + (i - 1) * es;
        unsigned char *b = (unsigned char *)data + j * es;
        memcpy(tmp, a, es);
        memcpy(a, b, es);
        memcpy(b, tmp, es);
    }
}

/* The largest "huge" value whose n-fold sum stays finite: 1e30 for float
 * and 1e290 for double, as the contract's bound presumes no overflow. */
static double huge_value(clreduce_type type)
{
    return type == CLREDUCE_FLOAT ? 1e30 : 1e290;
}

/* 1e30, 1, -1e30, 1, ...: the exact sum is the count of ones; every huge
 * value cancels another, wherever the order puts them. */
static void fill_huge_tiny(clreduce_type type, void *data, size_t n)
{
    double h = huge_value(type);
    for (size_t i = 0; i < n; i++)
        set(type, data, i, (i & 1) ? 1.0 : ((i & 2) ? -h : h));
}

/* The same, shuffled. */
static void fill_huge_tiny_shuffled(clreduce_type type, void *data, size_t n)
{
    fill_huge_tiny(type, data, n);
    shuffle(type, data, n);
}

static void fill_ones(clreduce_type type, void *data, size_t n)
{
    for (size_t i = 0; i < n; i++)
        set(type, data, i, 1.0);
}

/* 0.1 is not a binary fraction: every partial sum rounds. */
static void fill_tenths(clreduce_type type, void *data, size_t n)
{
    for (size_t i = 0; i < n; i++)
        set(type, data, i, 0.1);
}

/* Magnitudes 2^-40 to 2^40 (float) or 2^-200 to 2^200 (double), both
 * signs, random order. */
static void fill_wild(clreduce_type type, void *data, size_t n)
{
    int span = type == CLREDUCE_FLOAT ? 40 : 200;
    for (size_t i = 0; i < n; i++) {
        int e = (int)tc_rand_below((size_t)(2 * span + 1)) - span;
        set(type, data, i, random_sign() * ldexp(1.0 + tc_rand_unit(), e));
    }
}

/* Values and their negatives, shuffled: the exact sum is 0, every digit of
 * the result is rounding error. */
static void fill_cancelling(clreduce_type type, void *data, size_t n)
{
    size_t half = n / 2;
    for (size_t i = 0; i < half; i++) {
        double x = random_sign() * ldexp(1.0 + tc_rand_unit(), (int)tc_rand_below(41) - 20);
        set(type, data, i, x);
        set(type, data, half + i, -x);
    }
    if (n & 1)
        set(type, data, n - 1, 0.0);
    shuffle(type, data, n);
}

/* Subnormals only, both signs: their sums are exact (until they reach the
 * normal range, which they do here), so a device that keeps subnormals
 * returns the exact sum within the bound. */
static void fill_subnormal(clreduce_type type, void *data, size_t n)
{
    int min_exp = type == CLREDUCE_FLOAT ? -149 : -1074;
    int width = type == CLREDUCE_FLOAT ? 23 : 52;
    for (size_t i = 0; i < n; i++) {
        /* 1 to 2^width - 1 units of the smallest subnormal. */
        double units = (double)(1 + tc_rand_below(((size_t)1 << (width > 40 ? 40 : width)) - 1));
        set(type, data, i, random_sign() * ldexp(units, min_exp));
    }
}

/* Subnormals among values near 1. */
static void fill_subnormal_mixed(clreduce_type type, void *data, size_t n)
{
    fill_subnormal(type, data, n);
    for (size_t i = 0; i < n; i += 3)
        set(type, data, i, random_sign() * (0.5 + tc_rand_unit()));
}

typedef struct dataset {
    const char *name;
    void (*fill)(clreduce_type type, void *data, size_t n);
    size_t n;
    int subnormal; /* depends on the device keeping subnormals */
} dataset;

static const dataset sum_data[] = {
    {"huge and tiny alternating", fill_huge_tiny, 1048583, 0},
    {"huge and tiny shuffled", fill_huge_tiny_shuffled, 1048583, 0},
    {"ones, 2^24 + 1", fill_ones, BIG_COUNT, 0},
    {"ones, 2^24 + 7", fill_ones, MAX_COUNT, 0},
    {"tenths, 2^24 + 1", fill_tenths, BIG_COUNT, 0},
    {"magnitudes 2^-40..2^40 (double 2^-200..2^200)", fill_wild, 1048583, 0},
    {"magnitudes, small count", fill_wild, 4099, 0},
    {"values and their negatives", fill_cancelling, 1048583, 0},
    {"subnormals", fill_subnormal, 65537, 1},
    {"subnormals among normal numbers", fill_subnormal_mixed, 65537, 1},
};

/* ---- running a case ----------------------------------------------------------------- */

/* Reduces data[0 .. n) at element offset 1 of a buffer (a poisoned element
 * on each side) into element 1 of the result buffer. */
static clreduce_status reduce(clreduce_op op, clreduce_type type, clreduce_variant v,
                              const void *data, size_t n, tc_value *got, char *problem,
                              size_t problem_size)
{
    tc_layout layout;
    memset(&layout, 0, sizeof layout);
    layout.offset = 1;
    layout.tail = 1;
    layout.result_offset = 1;
    tc_run run;
    if (tc_run_reduce(g_ctx, g_queue, op, type, v, data, n, &layout, &run) != 0)
        snprintf(problem, problem_size, "%s", run.problem);
    else if (!run.neighbours_untouched)
        snprintf(problem, problem_size, "elements next to the result changed");
    *got = run.got;
    return run.status;
}

typedef struct tally {
    int cases, failures;
    double worst; /* largest error / bound seen */
} tally;

static void sum_case(tally *tl, clreduce_variant v, clreduce_type type, const dataset *d,
                     void *data)
{
    int ti = type == CLREDUCE_DOUBLE;
    d->fill(type, data, d->n);
    long double abs_sum, exact = exact_sum(type, data, d->n, &abs_sum);
    tc_value got;
    char problem[256] = "";
    clreduce_status st = reduce(CLREDUCE_OP_SUM, type, v, data, d->n, &got, problem,
                                sizeof problem);
    tl->cases++;
    long double u = type == CLREDUCE_FLOAT ? ldexpl(1, -24) : ldexpl(1, -53);
    size_t m = sum_chain_length(v, type, d->n);
    long double bound = (long double)(m + ceil_log2(d->n)) * u * abs_sum;
    if (v == CLREDUCE_ATOMIC && type == CLREDUCE_FLOAT && g_nvidia)
        /* The header's exception: NVIDIA's float atomic add flushes subnormal
         * operands and results, at most FLT_MIN per work-group's partial
         * (at most 64 work-groups per compute unit). */
        bound += (long double)g_compute_units * 64 * ldexpl(1, -126);
    long double g = type == CLREDUCE_FLOAT ? (long double)got.f : (long double)got.d;
    long double err = fabsl(g - exact);
    int ok = st == CLREDUCE_SUCCESS && !problem[0] && err <= bound;
    double ratio = bound > 0 ? (double)(err / bound) : (err == 0 ? 0.0 : INFINITY);
    if (d->subnormal && !g_denormals[ti]) {
        /* A device without CL_FP_DENORM may flush them: the sum is then that
         * of the normal values only, or 0; accepted, and said. */
        print_message("note: %s %s \"%s\": the device flushes subnormals "
                      "(no CL_FP_DENORM); got %.9Lg, exact %.9Lg, not checked\n",
                      tc_variant_name(v), tc_type_name(type), d->name, g, exact);
        ok = st == CLREDUCE_SUCCESS && !problem[0] && isfinite(g);
        ratio = 0;
    }
    if (ok && ratio > tl->worst)
        tl->worst = ratio;
    print_message("%-12s %-6s %-47s n=%-9zu m=%-5zu error %.3Lg, bound %.3Lg (%.2g of it)\n",
                  tc_variant_name(v), tc_type_name(type), d->name, d->n, m, err, bound, ratio);
    if (!ok) {
        tl->failures++;
        print_error("FAILED sum %s %s \"%s\" n=%zu: %s%s%s got %.21Lg, exact %.21Lg, error "
                    "%.6Lg > bound %.6Lg = (m %zu + ceil(log2 n) %u) * u * sum|x| %.6Lg\n",
                    tc_variant_name(v), tc_type_name(type), d->name, d->n,
                    st != CLREDUCE_SUCCESS ? clreduce_status_string(st) : "",
                    st != CLREDUCE_SUCCESS ? ": " : "", problem, g, exact, err, bound, m,
                    ceil_log2(d->n), abs_sum);
    }
}

/* One sum of data[0 .. n), a case of the tally: returns the result as a
 * double. why[256] receives the status and anything else that went wrong,
 * or "" when nothing did. */
static double special_sum(tally *tl, clreduce_variant v, clreduce_type type, const void *data,
                          size_t n, char *why)
{
    tc_value got;
    char problem[256] = "";
    clreduce_status st = reduce(CLREDUCE_OP_SUM, type, v, data, n, &got, problem, sizeof problem);
    tl->cases++;
    why[0] = '\0';
    if (st != CLREDUCE_SUCCESS || problem[0])
        snprintf(why, 256, "%s %s", clreduce_status_string(st), problem);
    return type == CLREDUCE_FLOAT ? (double)got.f : got.d;
}

/* Sums that overflow whatever the order: n copies of max/4 (and of -max/4)
 * give +inf (-inf); +inf with -inf gives NaN; NaN gives NaN. */
static void sum_special_cases(tally *tl, clreduce_variant v, clreduce_type type, void *data)
{
    static const size_t sizes[] = {5, 4099};
    double big = type == CLREDUCE_FLOAT ? (double)FLT_MAX / 4 : DBL_MAX / 4;
    for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
        size_t n = sizes[si];
        for (int sign = -1; sign <= 1; sign += 2) {
            for (size_t i = 0; i < n; i++)
                set(type, data, i, sign * big);
            double want = sign * (double)INFINITY;
            char why[256];
            double g = special_sum(tl, v, type, data, n, why);
            if (why[0] || g != want) {
                tl->failures++;
                print_error("FAILED sum %s %s: %zu copies of %g: got %g, expected %g %s\n",
                            tc_variant_name(v), tc_type_name(type), n, sign * big, g, want, why);
            }
        }
        tc_fill_random(type, data, n);
        set(type, data, 0, (double)INFINITY);
        set(type, data, 1 + tc_rand_below(n - 1), -(double)INFINITY);
        for (int k = 0; k < 2; k++) {
            if (k == 1) {
                tc_fill_random(type, data, n);
                set(type, data, tc_rand_below(n), (double)NAN);
            }
            char why[256];
            double g = special_sum(tl, v, type, data, n, why);
            if (why[0] || !isnan(g)) {
                tl->failures++;
                print_error("FAILED sum %s %s %s n=%zu: got %g, expected NaN %s\n",
                            tc_variant_name(v), tc_type_name(type),
                            k ? "with a NaN" : "with +inf and -inf", n, g, why);
            }
        }
    }
}

/* ---- min and max edge cases ---------------------------------------------------------- */

static void set_bits(clreduce_type type, void *data, size_t i, uint64_t bits)
{
    tc_value v;
    memset(&v, 0, sizeof v);
    if (type == CLREDUCE_FLOAT)
        v.u32 = (uint32_t)bits;
    else
        v.u64 = bits;
    tc_set(type, data, i, &v);
}

/* Quiet and signalling NaNs of both signs. */
static uint64_t nan_bits(clreduce_type type, unsigned which)
{
    static const uint32_t f[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff812345u};
    static const uint64_t d[] = {UINT64_C(0x7ff8000000000000), UINT64_C(0xfff8000000000000),
                                 UINT64_C(0x7ff0000000000001), UINT64_C(0xfff0000000abcdef)};
    return type == CLREDUCE_FLOAT ? f[which % 4] : d[which % 4];
}

static void minmax_check(tally *tl, clreduce_op op, clreduce_type type, clreduce_variant v,
                         const void *data, size_t n, const char *what)
{
    tc_value ref, got;
    long double abs_sum;
    tc_reference(op, type, data, n, &ref, &abs_sum);
    char problem[256] = "";
    clreduce_status st = reduce(op, type, v, data, n, &got, problem, sizeof problem);
    tl->cases++;
    if (st == CLREDUCE_SUCCESS && !problem[0] && tc_matches(op, type, &got, &ref, abs_sum))
        return;
    tc_got_want text = tc_format_got_want(type, &got, &ref);
    tl->failures++;
    print_error("FAILED %s %s %s \"%s\" n=%zu: got %s, expected %s %s %s\n", tc_op_name(op),
                tc_variant_name(v), tc_type_name(type), what, n, text.got, text.want,
                st != CLREDUCE_SUCCESS ? clreduce_status_string(st) : "", problem);
}

/* Random values of one sign, so that zeros are the extreme of the other. */
static void fill_one_sign(clreduce_type type, void *data, size_t n, double sign)
{
    tc_fill_random(type, data, n);
    for (size_t i = 0; i < n; i++) {
        tc_value x;
        tc_get(type, data, i, &x);
        double d = type == CLREDUCE_FLOAT ? (double)x.f : x.d;
        set(type, data, i, sign * fabs(d));
    }
}

static void minmax_cases(tally *tl, clreduce_op op, clreduce_type type, clreduce_variant v,
                         void *data)
{
    /* 4099 and 65539 leave a scalar tail after every vector width. */
    static const size_t sizes[] = {1, 2, 33, 4099, 65539};
    uint64_t neg_zero = type == CLREDUCE_FLOAT ? 0x80000000u : UINT64_C(0x8000000000000000);
    int ti = type == CLREDUCE_DOUBLE;
    for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
        size_t n = sizes[si];
        /* A NaN anywhere: first, last, at random, of every kind. */
        size_t where[] = {0, n - 1, tc_rand_below(n), n / 2};
        for (unsigned k = 0; k < ARRAY_SIZE(where); k++) {
            tc_fill_random(type, data, n);
            set_bits(type, data, where[k], nan_bits(type, k));
            minmax_check(tl, op, type, v, data, n, "one NaN");
        }
        tc_fill_random(type, data, n);
        set(type, data, tc_rand_below(n), (double)INFINITY);
        set(type, data, tc_rand_below(n), -(double)INFINITY);
        set_bits(type, data, tc_rand_below(n), nan_bits(type, 3));
        minmax_check(tl, op, type, v, data, n, "NaN with +inf and -inf");
        for (size_t i = 0; i < n; i++)
            set_bits(type, data, i, nan_bits(type, (unsigned)i));
        minmax_check(tl, op, type, v, data, n, "NaNs only");

        /* Signed zeros: alone, of one sign, mixed, and as the extreme. */
        for (size_t i = 0; i < n; i++)
            set_bits(type, data, i, neg_zero);
        minmax_check(tl, op, type, v, data, n, "-0.0 only");
        for (size_t i = 0; i < n; i++)
            set(type, data, i, 0.0);
        minmax_check(tl, op, type, v, data, n, "+0.0 only");
        if (n >= 2) {
            for (size_t i = 0; i < n; i++)
                set(type, data, i, (tc_rand64() & 1) ? -0.0 : 0.0);
            set_bits(type, data, 0, neg_zero);
            set(type, data, n - 1, 0.0);
            minmax_check(tl, op, type, v, data, n, "zeros of both signs");
            fill_one_sign(type, data, n, op == CLREDUCE_OP_MIN ? 1.0 : -1.0);
            set_bits(type, data, tc_rand_below(n), neg_zero);
            set(type, data, tc_rand_below(n), 0.0);
            minmax_check(tl, op, type, v, data, n, "zeros of both signs as the extreme");
        }

        /* Infinities. */
        tc_fill_random(type, data, n);
        set(type, data, tc_rand_below(n), (double)INFINITY);
        set(type, data, tc_rand_below(n), -(double)INFINITY);
        minmax_check(tl, op, type, v, data, n, "+inf and -inf among numbers");
        for (int sign = -1; sign <= 1; sign += 2) {
            for (size_t i = 0; i < n; i++)
                set(type, data, i, sign * (double)INFINITY);
            minmax_check(tl, op, type, v, data, n, sign > 0 ? "+inf only" : "-inf only");
        }
        /* The largest finite values next to the infinities' neighbours. */
        double max = type == CLREDUCE_FLOAT ? (double)FLT_MAX : DBL_MAX;
        tc_fill_random(type, data, n);
        set(type, data, tc_rand_below(n), max);
        set(type, data, tc_rand_below(n), -max);
        minmax_check(tl, op, type, v, data, n, "largest finite values");

        /* Subnormals, bit for bit, next to zeros of both signs. */
        if (g_denormals[ti]) {
            fill_subnormal(type, data, n);
            minmax_check(tl, op, type, v, data, n, "subnormals");
            fill_subnormal(type, data, n);
            set_bits(type, data, tc_rand_below(n), neg_zero);
            set(type, data, tc_rand_below(n), 0.0);
            minmax_check(tl, op, type, v, data, n, "subnormals and zeros");
        }
    }
    if (!g_denormals[ti])
        print_message("note: %s %s: the device flushes subnormals (no CL_FP_DENORM): "
                      "subnormal min/max not checked\n",
                      tc_op_name(op), tc_type_name(type));
}

/* ---- tests ------------------------------------------------------------------------ */

static const clreduce_type float_types[] = {CLREDUCE_FLOAT, CLREDUCE_DOUBLE};

/* Whether the variant runs op on type here; says why not, once per test. */
static int variant_runs(clreduce_variant v, clreduce_op op, clreduce_type type, int *said)
{
    clreduce_status st = clreduce_check_support(g_ctx, op, type, v);
    if (st == CLREDUCE_SUCCESS)
        return 1;
    if (st != CLREDUCE_ERROR_UNSUPPORTED)
        fail_msg("check_support(%s %s %s): %s: %s", tc_op_name(op), tc_type_name(type),
                 tc_variant_name(v), clreduce_status_string(st), clreduce_last_error(g_ctx));
    if (!*said)
        print_message("note: %s not supported here: %s\n", tc_variant_name(v),
                      clreduce_last_error(g_ctx));
    *said = 1;
    return 0;
}

static void test_sum(void **state)
{
    clreduce_variant v = *(const clreduce_variant *)*state;
    char name[64];
    snprintf(name, sizeof name, "sum_%s", tc_variant_name(v));
    tc_seed_for(name);
    void *data = malloc(MAX_COUNT * sizeof(double));
    assert_non_null(data);
    tally tl = {0, 0, 0.0};
    int ran = 0, said = 0;
    for (size_t ti = 0; ti < ARRAY_SIZE(float_types); ti++) {
        clreduce_type type = float_types[ti];
        if (!tc_type_supported(g_ctx, type) || !variant_runs(v, CLREDUCE_OP_SUM, type, &said))
            continue;
        ran = 1;
        for (size_t di = 0; di < ARRAY_SIZE(sum_data); di++)
            sum_case(&tl, v, type, &sum_data[di], data);
        sum_special_cases(&tl, v, type, data);
    }
    free(data);
    print_message("%s: %d cases, %d failed; largest error %.2g of the bound\n", name, tl.cases,
                  tl.failures, tl.worst);
    assert_int_equal(tl.failures, 0);
    if (!ran)
        skip();
}

static void test_minmax(void **state)
{
    clreduce_variant v = *(const clreduce_variant *)*state;
    char name[64];
    snprintf(name, sizeof name, "minmax_%s", tc_variant_name(v));
    tc_seed_for(name);
    void *data = malloc(65539 * sizeof(double));
    assert_non_null(data);
    tally tl = {0, 0, 0.0};
    int ran = 0, said = 0;
    static const clreduce_op ops[] = {CLREDUCE_OP_MIN, CLREDUCE_OP_MAX};
    for (size_t oi = 0; oi < ARRAY_SIZE(ops); oi++)
        for (size_t ti = 0; ti < ARRAY_SIZE(float_types); ti++) {
            clreduce_type type = float_types[ti];
            if (!tc_type_supported(g_ctx, type) || !variant_runs(v, ops[oi], type, &said))
                continue;
            ran = 1;
            minmax_cases(&tl, ops[oi], type, v, data);
        }
    free(data);
    print_message("%s: %d cases, %d failed\n", name, tl.cases, tl.failures);
    assert_int_equal(tl.failures, 0);
    if (!ran)
        skip();
}

int main(void)
{
    g_ctx = tc_start("unit.numerics", &g_queue, NULL);
    cl_device_id device = clreduce_get_cl_device(g_ctx);
    cl_device_fp_config fp[2] = {0, 0};
    clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof g_compute_units,
                    &g_compute_units, NULL);
    clGetDeviceInfo(device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp[0], &fp[0], NULL);
    if (tc_type_supported(g_ctx, CLREDUCE_DOUBLE))
        clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp[1], &fp[1], NULL);
    char vendor[256] = "";
    clGetDeviceInfo(device, CL_DEVICE_VENDOR, sizeof vendor, vendor, NULL);
    g_nvidia = tc_contains(vendor, "NVIDIA");
    g_denormals[0] = (fp[0] & CL_FP_DENORM) != 0;
    g_denormals[1] = (fp[1] & CL_FP_DENORM) != 0;
    printf("compute units: %u; subnormals: float %s, double %s\n", g_compute_units,
           g_denormals[0] ? "kept" : "may be flushed (no CL_FP_DENORM)",
           !tc_type_supported(g_ctx, CLREDUCE_DOUBLE) ? "n/a"
           : g_denormals[1]                         ? "kept"
                                                    : "may be flushed (no CL_FP_DENORM)");
    fflush(stdout);

    static clreduce_variant variants[CLREDUCE_VARIANT_COUNT];
    static char names[2][CLREDUCE_VARIANT_COUNT][40];
    struct CMUnitTest tests[2 * CLREDUCE_VARIANT_COUNT];
    size_t nt = 0;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < CLREDUCE_VARIANT_COUNT; i++) {
            variants[i] = (clreduce_variant)i;
            snprintf(names[k][i], sizeof names[k][i], "%s_%s", k ? "minmax" : "sum",
                     tc_variant_name(variants[i]));
            tc_add_test(tests, &nt, names[k][i], k ? test_minmax : test_sum, &variants[i]);
        }
    int failed = tc_run_tests("unit.numerics", tests, nt);

    return tc_finish(g_ctx, failed, g_queue, NULL);
}
