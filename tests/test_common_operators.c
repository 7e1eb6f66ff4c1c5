/* CPU references of the operators past sum, min and max (argmin ... dot),
 * shared by the flat reductions' tests and the rows' and segments'. */
#include "test_common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

long double tc_op_worst_m2[2];

/* ---- references ------------------------------------------------------------ */

static long double get_ld(clreduce_type type, const void *d, size_t i)
{
    tc_value v;
    tc_get(type, d, i, &v);
    switch (type) {
    case CLREDUCE_FLOAT: return v.f;
    case CLREDUCE_DOUBLE: return v.d;
    case CLREDUCE_INT32: return v.i32;
    case CLREDUCE_UINT32: return v.u32;
    case CLREDUCE_INT64: return (long double)v.i64;
    default: return (long double)v.u64;
    }
}

/* The bits of element i, zero-extended. */
static uint64_t get_bits(clreduce_type type, const void *d, size_t i)
{
    tc_value v;
    memset(&v, 0, sizeof v);
    tc_get(type, d, i, &v);
    return tc_elem_size(type) == 4 ? v.u32 : v.u64;
}

/* Orders elements i and j as argmin/argmax and min/max do: -0.0 below
 * +0.0; NaN (any NaN) above everything when nan_high, below when not. */
static int compare(clreduce_type type, const void *d, size_t i, size_t j, int nan_high)
{
    tc_value a, b;
    tc_get(type, d, i, &a);
    tc_get(type, d, j, &b);
    switch (type) {
    case CLREDUCE_FLOAT:
    case CLREDUCE_DOUBLE: {
        double x = type == CLREDUCE_FLOAT ? a.f : a.d, y = type == CLREDUCE_FLOAT ? b.f : b.d;
        if (isnan(x) || isnan(y))
            return isnan(x) && isnan(y) ? 0 : (isnan(x) ? 1 : -1) * (nan_high ? 1 : -1);
        if (x == y)
            return (signbit(x) ? 0 : 1) - (signbit(y) ? 0 : 1);
        return x < y ? -1 : 1;
    }
    case CLREDUCE_INT32: return (a.i32 > b.i32) - (a.i32 < b.i32);
    case CLREDUCE_UINT32: return (a.u32 > b.u32) - (a.u32 < b.u32);
    case CLREDUCE_INT64: return (a.i64 > b.i64) - (a.i64 < b.i64);
    default: return (a.u64 > b.u64) - (a.u64 < b.u64);
    }
}

static size_t reference_arg(clreduce_op op, clreduce_type type, const void *d, size_t n)
{
    int want = op == CLREDUCE_OP_ARGMAX ? 1 : -1;
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (compare(type, d, i, best, want > 0) == want)
            best = i;
    return best;
}

/* The exact sum of the terms of op (integers modulo 2^64, as the low bits
 * matter), and the sum of their magnitudes. */
static void reference_sum(clreduce_op op, clreduce_type type, const void *x, const void *y,
                          size_t n, long double *sum, long double *abs_sum, uint64_t *bits)
{
    long double s = 0, a = 0;
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (tc_is_float_type(type)) {
            long double v = get_ld(type, x, i);
            long double t = op == CLREDUCE_OP_DOT ? v * get_ld(type, y, i) : tc_sum_term(op, v);
            s += t;
            a += fabsl(t);
        } else {
            uint64_t v = get_bits(type, x, i);
            int is_signed = type == CLREDUCE_INT32 || type == CLREDUCE_INT64;
            if (type == CLREDUCE_INT32)
                v = (uint64_t)(int64_t)(int32_t)(uint32_t)v;
            if (op == CLREDUCE_OP_SUM_SQUARES) {
                w += v * v;
            } else if (op == CLREDUCE_OP_SUM_ABS) {
                w += is_signed && (int64_t)v < 0 ? 0 - v : v;
            } else {
                uint64_t u = get_bits(type, y, i);
                if (type == CLREDUCE_INT32)
                    u = (uint64_t)(int64_t)(int32_t)(uint32_t)u;
                w += v * u;
            }
        }
    }
    *sum = s;
    *abs_sum = a;
    *bits = tc_elem_size(type) == 4 ? (uint32_t)w : w;
}

/* Two passes in long double: the mean, then the squared deviations. */
static void reference_mean_var(clreduce_type type, const void *x, size_t n, long double *mean,
                               long double *m2, long double *amax)
{
    long double s = 0, a = 0;
    for (size_t i = 0; i < n; i++) {
        s += get_ld(type, x, i);
        if (fabsl(get_ld(type, x, i)) > a)
            a = fabsl(get_ld(type, x, i));
    }
    long double m = n ? s / n : 0, q = 0;
    for (size_t i = 0; i < n; i++) {
        long double d = get_ld(type, x, i) - m;
        q += d * d;
    }
    *mean = m;
    *m2 = q;
    *amax = a;
}

static long double tolerance(clreduce_type type)
{
    return type == CLREDUCE_FLOAT ? 1e-5L : 1e-12L;
}

/* Variance of adversarial data: the bounds clreduce.h states. */
long double tc_op_variance_tolerance(clreduce_type type)
{
    return type == CLREDUCE_FLOAT ? 1e-5L : 1e-12L;
}

static int is_nan_bits(clreduce_type type, uint64_t bits)
{
    if (type == CLREDUCE_FLOAT) {
        float f;
        uint32_t b = (uint32_t)bits;
        memcpy(&f, &b, sizeof f);
        return isnan(f);
    }
    if (type == CLREDUCE_DOUBLE) {
        double d;
        memcpy(&d, &bits, sizeof d);
        return isnan(d);
    }
    return 0;
}

static long double value_of(clreduce_type type, const unsigned char *p)
{
    return get_ld(type, p, 0);
}

/* Whether `got` (the result bytes) is right for op on x (and y); why says
 * what was wrong. var_tol: the error allowed in mean_var's m2, relative. */
int tc_op_check_result(clreduce_op op, clreduce_type type, const void *x, const void *y,
                       size_t n, const unsigned char *got, long double var_tol, char *why,
                       size_t why_size)
{
    size_t es = tc_elem_size(type);
    why[0] = '\0';
    switch (op) {
    case CLREDUCE_OP_ARGMIN:
    case CLREDUCE_OP_ARGMAX: {
        uint64_t value = 0, index, pad = 0;
        memcpy(&value, got, es);
        memcpy(&index, got + 8, 8);
        memcpy(&pad, got + es, 8 - es);
        if (n == 0) {
            unsigned char want[8];
            tc_value id;
            tc_identity(op == CLREDUCE_OP_ARGMIN ? CLREDUCE_OP_MIN : CLREDUCE_OP_MAX, type, &id);
            memcpy(want, id.bytes, 8);
            if (index != UINT64_MAX || memcmp(got, want, es) != 0 || pad) {
                snprintf(why, why_size, "empty: index %llu", (unsigned long long)index);
                return 0;
            }
            return 1;
        }
        size_t want = reference_arg(op, type, x, n);
        uint64_t want_bits = get_bits(type, x, want);
        int value_ok = value == want_bits ||
                       (is_nan_bits(type, want_bits) && is_nan_bits(type, value));
        if (index != want || !value_ok || pad) {
            snprintf(why, why_size, "index %llu value bits %llx padding %llx; expected %zu, %llx",
                     (unsigned long long)index, (unsigned long long)value,
                     (unsigned long long)pad, want, (unsigned long long)want_bits);
            return 0;
        }
        return 1;
    }
    case CLREDUCE_OP_MINMAX: {
        for (int k = 0; k < 2; k++) {
            clreduce_op mop = k ? CLREDUCE_OP_MAX : CLREDUCE_OP_MIN;
            tc_value ref, g;
            long double abs_sum;
            tc_reference(mop, type, x, n, &ref, &abs_sum);
            memset(&g, 0, sizeof g);
            memcpy(g.bytes, got + k * es, es);
            if (!tc_matches(mop, type, &g, &ref, 0)) {
                tc_got_want text = tc_format_got_want(type, &g, &ref);
                snprintf(why, why_size, "%s: got %s, expected %s", k ? "max" : "min", text.got,
                         text.want);
                return 0;
            }
        }
        return 1;
    }
    case CLREDUCE_OP_SUM_SQUARES:
    case CLREDUCE_OP_SUM_ABS:
    case CLREDUCE_OP_DOT: {
        long double s, a;
        uint64_t bits, g = 0;
        reference_sum(op, type, x, y, n, &s, &a, &bits);
        memcpy(&g, got, es);
        if (!tc_is_float_type(type)) {
            if (g != bits) {
                snprintf(why, why_size, "got bits %llx, expected %llx", (unsigned long long)g,
                         (unsigned long long)bits);
                return 0;
            }
            return 1;
        }
        long double v = value_of(type, got);
        long double err = fabsl(v - s), tol = tolerance(type) * a;
        if (!(err <= tol)) {
            snprintf(why, why_size, "got %.17Lg, expected %.17Lg (error %Lg > %Lg)", v, s, err,
                     tol);
            return 0;
        }
        return 1;
    }
    case CLREDUCE_OP_NORM2: {
        long double s, a;
        uint64_t bits;
        reference_sum(CLREDUCE_OP_SUM_SQUARES, type, x, NULL, n, &s, &a, &bits);
        long double want = sqrtl(s), v = value_of(type, got);
        long double max = type == CLREDUCE_FLOAT ? FLT_MAX : DBL_MAX;
        int ok;
        if (isnan(want))
            ok = isnan(v);
        else if (want > max * (1 + tolerance(type)))
            ok = isinf(v) && v > 0;
        else /* a subnormal result rounds to the subnormals' spacing */
            ok = fabsl(v - want) <= tolerance(type) * want +
                                        (type == CLREDUCE_FLOAT ? FLT_TRUE_MIN : DBL_TRUE_MIN) &&
                 !isinf(v);
        if (!ok)
            snprintf(why, why_size, "got %.17Lg, expected %.17Lg", v, want);
        return ok;
    }
    case CLREDUCE_OP_MEAN_VAR: {
        long double mean, m2, amax;
        reference_mean_var(type, x, n, &mean, &m2, &amax);
        long double gm = value_of(type, got), gq = value_of(type, got + es);
        uint64_t count;
        memcpy(&count, got + 2 * es, 8);
        long double tol = tolerance(type);
        int ok = count == n && fabsl(gm - mean) <= tol * amax &&
                 fabsl(gq - m2) <= var_tol * m2;
        if (n == 0)
            ok = count == 0 && gm == 0 && gq == 0;
        if (m2 > 0 && fabsl(gq - m2) / m2 > tc_op_worst_m2[type == CLREDUCE_DOUBLE])
            tc_op_worst_m2[type == CLREDUCE_DOUBLE] = fabsl(gq - m2) / m2;
        if (!ok)
            snprintf(why, why_size,
                     "count %llu mean %.17Lg m2 %.17Lg; expected %zu, %.17Lg, %.17Lg (m2 error "
                     "%Lg relative)",
                     (unsigned long long)count, gm, gq, n, mean, m2,
                     m2 > 0 ? fabsl(gq - m2) / m2 : fabsl(gq));
        return ok;
    }
    default:
        snprintf(why, why_size, "unknown op");
        return 0;
    }
}

/* ---- data ------------------------------------------------------------------------ */

/* Random data for op: tc_fill_random for argmin/argmax/minmax and for the
 * integers of the sums (near their limits, so that they wrap); floats in
 * [-4, 4) for the sums and the norm, 3 + [-1, 1) for mean/var. */
void tc_op_fill(clreduce_op op, clreduce_type type, void *d, size_t n)
{
    if (!tc_is_float_type(type) || op == CLREDUCE_OP_ARGMIN || op == CLREDUCE_OP_ARGMAX ||
        op == CLREDUCE_OP_MINMAX) {
        tc_fill_random(type, d, n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        double u = 2 * tc_rand_unit() - 1;
        tc_set_double(type, d, i, op == CLREDUCE_OP_MEAN_VAR ? 3 + u : 4 * u);
    }
}

/* A value that changes the result if read: NaN for floats; for integers the
 * extreme that would win argmin (argmax, minmax), a large odd value for the
 * sums. */
void tc_op_poison(clreduce_op op, clreduce_type type, tc_value *p)
{
    tc_poison(op == CLREDUCE_OP_ARGMIN ? CLREDUCE_OP_MIN : CLREDUCE_OP_MAX, type, p);
    if (!tc_is_float_type(type) && op != CLREDUCE_OP_ARGMIN && op != CLREDUCE_OP_ARGMAX &&
        op != CLREDUCE_OP_MINMAX)
        tc_poison(CLREDUCE_OP_SUM, type, p);
}

/* tc_op_check_result for the operators past max, tc_matches against
 * tc_reference for sum, min and max. */
int tc_check_any_result(clreduce_op op, clreduce_type type, const void *x, const void *y,
                        size_t n, const unsigned char *got, char *why, size_t why_size)
{
    if (op > CLREDUCE_OP_MAX)
        return tc_op_check_result(op, type, x, y, n, got, tc_op_variance_tolerance(type), why,
                                  why_size);
    tc_value ref, g;
    long double abs_sum;
    tc_reference(op, type, x, n, &ref, &abs_sum);
    memset(&g, 0, sizeof g);
    memcpy(g.bytes, got, tc_elem_size(type));
    if (tc_matches(op, type, &g, &ref, abs_sum))
        return 1;
    tc_got_want text = tc_format_got_want(type, &g, &ref);
    snprintf(why, why_size, "got %s, expected %s", text.got, text.want);
    return 0;
}
