/* Random data and CPU references of the clreduce test programs (see
 * test_common.h). */
#include "test_common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- data and references ------------------------------------------------------ */

int tc_is_float_type(clreduce_type type)
{
    return type == CLREDUCE_FLOAT || type == CLREDUCE_DOUBLE;
}

int tc_is_sum(clreduce_op op)
{
    return op == CLREDUCE_OP_SUM || op == CLREDUCE_OP_SUM_SQUARES || op == CLREDUCE_OP_SUM_ABS;
}

long double tc_sum_term(clreduce_op op, long double x)
{
    return op == CLREDUCE_OP_SUM_SQUARES ? x * x : op == CLREDUCE_OP_SUM_ABS ? fabsl(x) : x;
}

size_t tc_elem_size(clreduce_type type)
{
    size_t s = clreduce_type_size(type);
    return s ? s : 4;
}

void tc_get(clreduce_type type, const void *data, size_t i, tc_value *out)
{
    size_t s = tc_elem_size(type);
    memset(out, 0, sizeof *out);
    memcpy(out->bytes, (const unsigned char *)data + i * s, s);
}

void tc_set(clreduce_type type, void *data, size_t i, const tc_value *v)
{
    size_t s = tc_elem_size(type);
    memcpy((unsigned char *)data + i * s, v->bytes, s);
}

void tc_set_double(clreduce_type type, void *data, size_t i, double x)
{
    tc_value v;
    memset(&v, 0, sizeof v);
    switch (type) {
    case CLREDUCE_FLOAT: v.f = (float)x; break;
    case CLREDUCE_DOUBLE: v.d = x; break;
    case CLREDUCE_INT32: v.i32 = (int32_t)x; break;
    case CLREDUCE_UINT32: v.u32 = (uint32_t)x; break;
    case CLREDUCE_INT64: v.i64 = (int64_t)x; break;
    case CLREDUCE_UINT64: v.u64 = (uint64_t)x; break;
    case CLREDUCE_HALF: /* storage types: their tests set the bits themselves */
    case CLREDUCE_BFLOAT16: break;
    }
    tc_set(type, data, i, &v);
}

long double tc_unit_roundoff(clreduce_type type)
{
    return type == CLREDUCE_FLOAT ? ldexpl(1, -24) : ldexpl(1, -53);
}

void tc_fill_ones_then_tiny(clreduce_type type, void *data, size_t n, size_t length,
                            size_t ones)
{
    double tiny = (double)(tc_unit_roundoff(type) * (1 - ldexpl(1, -8)));
    for (size_t i = 0; i < n; i++)
        tc_set_double(type, data, i, i % length < ones ? 1.0 : tiny);
}

double tc_get_double(clreduce_type type, const void *data, size_t i)
{
    tc_value v;
    tc_get(type, data, i, &v);
    return type == CLREDUCE_FLOAT ? (double)v.f : v.d;
}

/* Near the limits (so that sums overflow) one time in two, but never on them. */
static uint64_t random_bits(unsigned bits, int is_signed)
{
    uint64_t r = tc_rand64();
    uint64_t near = (r >> 40) % 1024 + 1;
    uint64_t mask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    uint64_t top = is_signed ? mask >> 1 : mask;          /* largest value */
    uint64_t bottom = is_signed ? (top + 1) & mask : 0;   /* smallest value's bits */
    uint64_t v;
    switch (r & 3) {
    case 0: v = top - near; break;
    case 1: v = (bottom + near) & mask; break;
    default: v = tc_rand64() & mask; break;
    }
    if (v == top || v == bottom || v == 0)
        v = 12345;
    return v;
}

void tc_fill_random(clreduce_type type, void *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        tc_value v;
        memset(&v, 0, sizeof v);
        if (tc_is_float_type(type)) {
            /* Magnitudes from 1/8 to 1024, both signs. */
            double mag = ldexp(1.0, (int)tc_rand_below(14) - 3);
            double x = (2.0 * tc_rand_unit() - 1.0) * mag;
            if (x == 0.0)
                x = 0.75;
            tc_set_double(type, data, i, x);
            continue;
        }
        switch (type) {
        case CLREDUCE_INT32: v.u32 = (uint32_t)random_bits(32, 1); break;
        case CLREDUCE_UINT32: v.u32 = (uint32_t)random_bits(32, 0); break;
        case CLREDUCE_INT64: v.u64 = random_bits(64, 1); break;
        default: v.u64 = random_bits(64, 0); break;
        }
        tc_set(type, data, i, &v);
    }
}

void tc_identity(clreduce_op op, clreduce_type type, tc_value *out)
{
    memset(out, 0, sizeof *out);
    if (tc_is_sum(op))
        return;
    int lo = op == CLREDUCE_OP_MAX;
    switch (type) {
    case CLREDUCE_FLOAT: out->f = lo ? -INFINITY : INFINITY; break;
    case CLREDUCE_DOUBLE: out->d = lo ? -(double)INFINITY : (double)INFINITY; break;
    case CLREDUCE_INT32: out->i32 = lo ? INT32_MIN : INT32_MAX; break;
    case CLREDUCE_UINT32: out->u32 = lo ? 0 : UINT32_MAX; break;
    case CLREDUCE_INT64: out->i64 = lo ? INT64_MIN : INT64_MAX; break;
    case CLREDUCE_UINT64: out->u64 = lo ? 0 : UINT64_MAX; break;
    case CLREDUCE_HALF: /* no built-in operator takes the storage types */
    case CLREDUCE_BFLOAT16: break;
    }
}

void tc_poison(clreduce_op op, clreduce_type type, tc_value *out)
{
    memset(out, 0, sizeof *out);
    if (type == CLREDUCE_FLOAT) {
        out->f = NAN;
    } else if (type == CLREDUCE_DOUBLE) {
        out->d = (double)NAN;
    } else if (op == CLREDUCE_OP_SUM) {
        out->u64 = UINT64_C(0x5BD1E9955BD1E995);
    } else {
        /* The extreme min/max would reach: the opposite of the identity. */
        tc_identity(op == CLREDUCE_OP_MIN ? CLREDUCE_OP_MAX : CLREDUCE_OP_MIN, type, out);
    }
}

/* min/max as the library defines them: NaN wins, -0.0 < +0.0. */
static int float_better(clreduce_op op, long double x, long double r)
{
    if (op == CLREDUCE_OP_MIN)
        return x < r || (x == r && signbit(x) && !signbit(r));
    return x > r || (x == r && !signbit(x) && signbit(r));
}

/* *acc = *acc op *x for an integer type: sums wrap around, min and max
 * compare values. */
static void int_combine(clreduce_op op, clreduce_type type, tc_value *acc, const tc_value *x)
{
    if (op == CLREDUCE_OP_SUM) {
        if (type == CLREDUCE_INT32 || type == CLREDUCE_UINT32)
            acc->u32 += x->u32; /* wrap-around modulo 2^32 */
        else
            acc->u64 += x->u64;
        return;
    }
    int mn = op == CLREDUCE_OP_MIN;
    switch (type) {
    case CLREDUCE_INT32:
        if (mn ? x->i32 < acc->i32 : x->i32 > acc->i32) acc->i32 = x->i32;
        break;
    case CLREDUCE_UINT32:
        if (mn ? x->u32 < acc->u32 : x->u32 > acc->u32) acc->u32 = x->u32;
        break;
    case CLREDUCE_INT64:
        if (mn ? x->i64 < acc->i64 : x->i64 > acc->i64) acc->i64 = x->i64;
        break;
    default:
        if (mn ? x->u64 < acc->u64 : x->u64 > acc->u64) acc->u64 = x->u64;
        break;
    }
}

void tc_reference(clreduce_op op, clreduce_type type, const void *data, size_t n, tc_value *out,
                  long double *abs_sum)
{
    tc_identity(op, type, out);
    *abs_sum = 0;
    if (tc_is_float_type(type)) {
        int is_float = type == CLREDUCE_FLOAT;
        double sum_d = 0, abs_d = 0;
        long double sum_ld = 0, abs_ld = 0;
        long double r = is_float ? (long double)out->f : (long double)out->d;
        int nan = 0;
        for (size_t i = 0; i < n; i++) {
            tc_value v;
            tc_get(type, data, i, &v);
            long double x = is_float ? (long double)v.f : (long double)v.d;
            if (tc_is_sum(op)) {
                x = tc_sum_term(op, x);
                if (is_float) {
                    sum_d += (double)x;
                    abs_d += fabs((double)x);
                } else {
                    sum_ld += x;
                    abs_ld += fabsl(x);
                }
            } else if (isnan(x)) {
                nan = 1;
            } else if (float_better(op, x, r)) {
                r = x;
            }
        }
        if (tc_is_sum(op)) {
            r = is_float ? (long double)sum_d : sum_ld;
            *abs_sum = is_float ? (long double)abs_d : abs_ld;
        } else if (nan) {
            r = NAN;
        }
        if (is_float)
            out->f = (float)r;
        else
            out->d = (double)r;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        tc_value v;
        tc_get(type, data, i, &v);
        int_combine(op, type, out, &v);
    }
}

int tc_matches(clreduce_op op, clreduce_type type, const tc_value *got, const tc_value *ref,
               long double abs_sum)
{
    size_t s = tc_elem_size(type);
    if (!tc_is_float_type(type))
        return memcmp(got->bytes, ref->bytes, s) == 0;
    int is_float = type == CLREDUCE_FLOAT;
    long double g = is_float ? (long double)got->f : (long double)got->d;
    long double r = is_float ? (long double)ref->f : (long double)ref->d;
    if (isnan(r))
        return isnan(g);
    if (!tc_is_sum(op) || isinf(r))
        return memcmp(got->bytes, ref->bytes, s) == 0;
    long double tol = (is_float ? 1e-5L : 1e-12L) * abs_sum;
    return fabsl(g - r) <= tol; /* false for a NaN */
}

/* ---- data shaped for an operator ------------------------------------------------- */

static const char *const data_mode_names[] = {"small", "full range", "uniform", "records"};

const char *tc_data_mode_name(tc_data_mode mode)
{
    return (unsigned)mode < ARRAY_SIZE(data_mode_names) ? data_mode_names[mode] : "?";
}

tc_data_mode tc_mode_for(clreduce_op op, size_t k)
{
    if (op == CLREDUCE_OP_SUM)
        return (k & 1) ? TC_DATA_FULL : TC_DATA_SMALL;
    return (k & 1) ? TC_DATA_RECORDS : TC_DATA_UNIFORM;
}

static unsigned type_bits(clreduce_type type)
{
    return (unsigned)tc_elem_size(type) * 8;
}

static int type_signed(clreduce_type type)
{
    return type == CLREDUCE_INT32 || type == CLREDUCE_INT64;
}

/* An integer element from a key in [0, 2^bits) that orders like the value. */
static void set_from_key(clreduce_type type, void *data, size_t i, uint64_t key)
{
    tc_value v;
    memset(&v, 0, sizeof v);
    unsigned bits = type_bits(type);
    if (type_signed(type))
        key ^= UINT64_C(1) << (bits - 1);
    if (bits == 32)
        v.u32 = (uint32_t)key;
    else
        v.u64 = key;
    tc_set(type, data, i, &v);
}

static uint64_t key_mask(clreduce_type type)
{
    return type_bits(type) == 64 ? UINT64_MAX : (UINT64_C(1) << type_bits(type)) - 1;
}

/* t in [0, 1) to a key, with random low bits. */
static uint64_t key_from_unit(clreduce_type type, double t)
{
    unsigned bits = type_bits(type);
    double top = ldexp(1.0, (int)bits);
    double k = t * top;
    uint64_t key = k >= top ? key_mask(type) : (uint64_t)k;
    if (bits == 64)
        key ^= tc_rand64() & 0x7ff; /* below the double's precision */
    return key & key_mask(type);
}

void tc_fill_mode(clreduce_op op, clreduce_type type, tc_data_mode mode, void *data, size_t n)
{
    int is_float = tc_is_float_type(type);
    int down = op == CLREDUCE_OP_MIN; /* records fall for min, rise for max */
    switch (mode) {
    case TC_DATA_SMALL:
        for (size_t i = 0; i < n; i++) {
            if (is_float) {
                tc_set_double(type, data, i, 2.0 * tc_rand_unit() - 1.0);
            } else {
                tc_value v;
                memset(&v, 0, sizeof v);
                int64_t x = (int64_t)tc_rand_below(2001) - (type_signed(type) ? 1000 : 0);
                if (type_bits(type) == 32)
                    v.u32 = (uint32_t)x;
                else
                    v.u64 = (uint64_t)x;
                tc_set(type, data, i, &v);
            }
        }
        break;
    case TC_DATA_FULL:
        tc_fill_random(type, data, n);
        break;
    case TC_DATA_UNIFORM:
        for (size_t i = 0; i < n; i++) {
            if (is_float)
                tc_set_double(type, data, i, 2.0 * tc_rand_unit() - 1.0);
            else
                set_from_key(type, data, i, tc_rand64() & key_mask(type));
        }
        if (!is_float && n >= 4) {
            /* The identity's value and its opposite extreme. */
            set_from_key(type, data, tc_rand_below(n), 0);
            set_from_key(type, data, tc_rand_below(n), key_mask(type));
        }
        break;
    case TC_DATA_RECORDS:
        for (size_t i = 0; i < n; i++) {
            /* Rises through [0, 1) with noise of about 16 elements' worth. */
            double t = ((double)i + 16.0 * tc_rand_unit()) / ((double)n + 16.0);
            if (down)
                t = 1.0 - t;
            if (t >= 1.0)
                t = 0.9999999;
            if (t < 0.0)
                t = 0.0;
            if (is_float)
                tc_set_double(type, data, i, 2.0 * t - 1.0);
            else
                set_from_key(type, data, i, key_from_unit(type, t));
        }
        break;
    }
}
/* ---- prefix scans --------------------------------------------------------------- */

/* The running state of the reference scan after some prefix of the input. */
typedef struct scan_state {
    tc_value v;         /* integers: the exact result, in the element's bits */
    long double r;      /* floats: min/max so far, or the sum */
    long double abs;    /* float sums: sum of |x| */
    int nan;            /* float min/max: a NaN has been seen */
    tc_value nans[8];   /* the bits of the first distinct NaNs seen */
    size_t nan_count;   /* how many (past 8: more, any NaN will do) */
} scan_state;

static void scan_start(clreduce_op op, clreduce_type type, scan_state *st)
{
    memset(st, 0, sizeof *st);
    tc_identity(op, type, &st->v);
    if (type == CLREDUCE_FLOAT)
        st->r = op == CLREDUCE_OP_SUM ? 0.0L : (long double)st->v.f;
    else if (type == CLREDUCE_DOUBLE)
        st->r = op == CLREDUCE_OP_SUM ? 0.0L : (long double)st->v.d;
}

static void scan_add(clreduce_op op, clreduce_type type, scan_state *st, const tc_value *x)
{
    if (tc_is_float_type(type)) {
        long double v = type == CLREDUCE_FLOAT ? (long double)x->f : (long double)x->d;
        if (op == CLREDUCE_OP_SUM) {
            st->r += v;
            st->abs += fabsl(v);
        } else if (isnan(v)) {
            size_t es = tc_elem_size(type), k = 0;
            while (k < st->nan_count && k < 8 && memcmp(st->nans[k].bytes, x->bytes, es) != 0)
                k++;
            if (k == st->nan_count) {
                if (k < 8)
                    st->nans[k] = *x;
                st->nan_count++;
            }
            st->nan = 1;
        } else if (float_better(op, v, st->r)) {
            st->r = v;
        }
        return;
    }
    int_combine(op, type, &st->v, x);
}

/* The state's value in the element type. */
static void scan_value(clreduce_op op, clreduce_type type, const scan_state *st, tc_value *out)
{
    if (!tc_is_float_type(type)) {
        *out = st->v;
        return;
    }
    if (op != CLREDUCE_OP_SUM && st->nan) {
        *out = st->nans[0];
        return;
    }
    memset(out, 0, sizeof *out);
    long double r = st->r;
    if (type == CLREDUCE_FLOAT)
        out->f = (float)r;
    else
        out->d = (double)r;
}

/* Whether `got` is right for the state; *tolerance receives the error
 * allowed (float sums, else 0). */
static int scan_element_ok(clreduce_op op, clreduce_type type, const scan_state *st,
                           const tc_value *got, const tc_value *expected, int exact_bits,
                           long double *tolerance)
{
    size_t s = tc_elem_size(type);
    *tolerance = 0;
    if (!tc_is_float_type(type) || exact_bits)
        return memcmp(got->bytes, expected->bytes, s) == 0;
    int is_float = type == CLREDUCE_FLOAT;
    long double g = is_float ? (long double)got->f : (long double)got->d;
    if (op != CLREDUCE_OP_SUM) {
        if (st->nan) { /* one of the NaNs so far, bit for bit */
            if (st->nan_count > 8)
                return isnan(g);
            for (size_t k = 0; k < st->nan_count; k++)
                if (memcmp(got->bytes, st->nans[k].bytes, s) == 0)
                    return 1;
            return 0;
        }
        return memcmp(got->bytes, expected->bytes, s) == 0;
    }
    if (isnan(st->r))
        return isnan(g);
    if (isinf(st->r))
        return g == st->r;
    *tolerance = (is_float ? TC_SCAN_TOL_FLOAT : TC_SCAN_TOL_DOUBLE) * st->abs +
                 (is_float ? (long double)FLT_MIN : (long double)DBL_MIN);
    return fabsl(g - st->r) <= *tolerance; /* false for a NaN */
}

int tc_check_scan(clreduce_op op, clreduce_type type, clreduce_scan_kind kind, const void *input,
                  size_t n, const void *output, tc_scan_mismatch *m)
{
    memset(m, 0, sizeof *m);
    scan_state st;
    scan_start(op, type, &st);
    for (size_t i = 0; i < n; i++) {
        tc_value x, got, want;
        tc_get(type, input, i, &x);
        tc_get(type, output, i, &got);
        if (kind == CLREDUCE_INCLUSIVE)
            scan_add(op, type, &st, &x);
        scan_value(op, type, &st, &want);
        /* The exclusive scan's first element is the identity itself. */
        int exact_bits = kind == CLREDUCE_EXCLUSIVE && i == 0;
        long double tolerance;
        if (!scan_element_ok(op, type, &st, &got, &want, exact_bits, &tolerance)) {
            if (m->wrong == 0) {
                m->index = i;
                m->got = got;
                m->expected = want;
                m->exact = tc_is_float_type(type) ? st.r : 0.0L;
                m->tolerance = tolerance;
            }
            m->wrong++;
            m->last = i;
        }
        if (kind == CLREDUCE_EXCLUSIVE)
            scan_add(op, type, &st, &x);
    }
    return m->wrong == 0;
}

void tc_reference_scan(clreduce_op op, clreduce_type type, clreduce_scan_kind kind,
                       const void *input, size_t n, void *output)
{
    scan_state st;
    scan_start(op, type, &st);
    for (size_t i = 0; i < n; i++) {
        tc_value x, want;
        tc_get(type, input, i, &x);
        if (kind == CLREDUCE_INCLUSIVE)
            scan_add(op, type, &st, &x);
        scan_value(op, type, &st, &want);
        tc_set(type, output, i, &want);
        if (kind == CLREDUCE_EXCLUSIVE)
            scan_add(op, type, &st, &x);
    }
}

void tc_format_scan_mismatch(clreduce_op op, clreduce_type type, const tc_scan_mismatch *m,
                             char *buf, size_t size)
{
    char got[96], want[96], exact[96] = "";
    tc_format(type, &m->got, got, sizeof got);
    tc_format(type, &m->expected, want, sizeof want);
    if (op == CLREDUCE_OP_SUM && tc_is_float_type(type))
        snprintf(exact, sizeof exact, " (exact %.21Lg, tolerance %.3Lg)", m->exact,
                 m->tolerance);
    snprintf(buf, size, "element %zu: got %s, expected %s%s; %zu element(s) wrong, the last at %zu",
             m->index, got, want, exact, m->wrong, m->last);
}

int tc_scan_matches(clreduce_op op, clreduce_type type, clreduce_scan_kind kind,
                    const void *input, size_t n, const void *output, char *why, size_t why_size)
{
    tc_scan_mismatch m;
    if (tc_check_scan(op, type, kind, input, n, output, &m))
        return 1;
    tc_format_scan_mismatch(op, type, &m, why, why_size);
    return 0;
}

size_t tc_first_changed_outside(const void *buf, size_t count, size_t from, size_t n,
                                size_t elem_size)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < count; i++) {
        if (i >= from && i < from + n)
            continue;
        for (size_t b = 0; b < elem_size; b++)
            if (p[i * elem_size + b] != TC_SENTINEL_BYTE)
                return i;
    }
    return SIZE_MAX;
}

/* ---- batched reductions ------------------------------------------------------------ */

static unsigned ceil_log2_size(size_t n)
{
    unsigned k = 0;
    while (k < 63 && ((size_t)1 << k) < n)
        k++;
    return k;
}

/* A float sum (op) of data[0 .. n): 1 when it meets the bound, with the
 * error as a fraction of it in *ratio; -1 when the exact sum is not finite
 * (the caller compares with the reference). */
static int float_sum_within_bound(clreduce_op op, clreduce_type type, const void *data,
                                  size_t n, const tc_value *got, size_t m, double *ratio)
{
    long double s = 0, c = 0, a = 0;
    if (op == CLREDUCE_OP_SUM_SQUARES)
        m++;
    for (size_t i = 0; i < n; i++) {
        long double x = tc_sum_term(op, (long double)tc_get_double(type, data, i));
        if (!isfinite(x))
            return -1;
        long double t = s + x;
        c += fabsl(s) >= fabsl(x) ? (s - t) + x : (x - t) + s;
        s = t;
        a += fabsl(x);
    }
    long double exact = s + c;
    long double u = tc_unit_roundoff(type);
    long double bound = (long double)(m + ceil_log2_size(n)) * u * a;
    long double g = type == CLREDUCE_FLOAT ? (long double)got->f : (long double)got->d;
    long double err = fabsl(g - exact);
    if (type == CLREDUCE_FLOAT && fabsl(exact) > FLT_MAX)
        return -1;
    *ratio = bound > 0 ? (double)(err / bound) : (err == 0 ? 0.0 : INFINITY);
    return err <= bound; /* false for a NaN */
}

size_t tc_check_batched(clreduce_op op, clreduce_type type, const void *data,
                        const size_t *starts, const size_t *lengths, size_t count,
                        const void *results, tc_chain_length_fn chain_length, const void *arg,
                        double *worst, char *why, size_t why_size)
{
    size_t es = tc_elem_size(type), wrong = 0;
    *worst = 0;
    if (why_size)
        why[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        const void *row = (const unsigned char *)data + starts[i] * es;
        tc_value got, ref;
        long double abs_sum;
        tc_get(type, results, i, &got);
        tc_reference(op, type, row, lengths[i], &ref, &abs_sum);
        int ok = -1;
        double ratio = 0;
        if (tc_is_sum(op) && tc_is_float_type(type) && lengths[i] > 0)
            ok = float_sum_within_bound(op, type, row, lengths[i], &got,
                                        chain_length(lengths[i], arg), &ratio);
        if (ok < 0)
            ok = tc_is_float_type(type) && tc_is_sum(op) && lengths[i] > 0
                     ? tc_matches(op, type, &got, &ref, 0)
                     : tc_matches(op, type, &got, &ref, abs_sum);
        if (ratio > *worst)
            *worst = ratio;
        if (!ok && wrong++ == 0 && why_size) {
            tc_got_want text = tc_format_got_want(type, &got, &ref);
            snprintf(why, why_size,
                     "result %zu (elements [%zu, +%zu)): got %s, expected %s%s", i, starts[i],
                     lengths[i], text.got, text.want,
                     ratio > 1 ? " (float sum past the bound)" : "");
        }
    }
    return wrong;
}
