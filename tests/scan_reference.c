/* CPU reference of the scans (see scan_reference.h). */
#include "scan_reference.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test_common.h"

/* acc = acc op x, as the library defines op (NaN wins min and max, -0.0 is
 * below +0.0; integer sums wrap). */
static void combine(clreduce_op op, clreduce_type type, tc_value *acc, const tc_value *x)
{
    int is_min = op == CLREDUCE_OP_MIN;
    switch (type) {
    case CLREDUCE_FLOAT: {
        float a = acc->f, b = x->f;
        if (op == CLREDUCE_OP_SUM)
            acc->f = a + b;
        else if (isnan(a) || isnan(b))
            acc->f = NAN;
        else if (is_min ? (b < a || (b == a && signbit(b))) : (b > a || (b == a && !signbit(b))))
            acc->f = b;
        break;
    }
    case CLREDUCE_DOUBLE: {
        double a = acc->d, b = x->d;
        if (op == CLREDUCE_OP_SUM)
            acc->d = a + b;
        else if (isnan(a) || isnan(b))
            acc->d = (double)NAN;
        else if (is_min ? (b < a || (b == a && signbit(b))) : (b > a || (b == a && !signbit(b))))
            acc->d = b;
        break;
    }
    case CLREDUCE_INT32:
        if (op == CLREDUCE_OP_SUM)
            acc->u32 += x->u32;
        else if (is_min ? x->i32 < acc->i32 : x->i32 > acc->i32)
            acc->i32 = x->i32;
        break;
    case CLREDUCE_UINT32:
        if (op == CLREDUCE_OP_SUM)
            acc->u32 += x->u32;
        else if (is_min ? x->u32 < acc->u32 : x->u32 > acc->u32)
            acc->u32 = x->u32;
        break;
    case CLREDUCE_INT64:
        if (op == CLREDUCE_OP_SUM)
            acc->u64 += x->u64;
        else if (is_min ? x->i64 < acc->i64 : x->i64 > acc->i64)
            acc->i64 = x->i64;
        break;
    case CLREDUCE_UINT64:
        if (op == CLREDUCE_OP_SUM)
            acc->u64 += x->u64;
        else if (is_min ? x->u64 < acc->u64 : x->u64 > acc->u64)
            acc->u64 = x->u64;
        break;
    }
}

int scan_matches(clreduce_op op, clreduce_type type, clreduce_scan_kind kind, const void *data,
                 size_t n, const void *out, char *why, size_t why_size)
{
    size_t es = clreduce_type_size(type);
    int float_sum = op == CLREDUCE_OP_SUM && tc_is_float_type(type);
    long double tol = type == CLREDUCE_FLOAT ? 1e-5L : 1e-12L;
    tc_value acc, x, got;
    tc_identity(op, type, &acc);
    long double sum = 0, abs_sum = 0; /* float sums: exact prefix, in long double */
    for (size_t i = 0; i < n; i++) {
        tc_value want = acc;
        long double want_sum = sum, want_abs = abs_sum;
        tc_get(type, data, i, &x);
        combine(op, type, &acc, &x);
        if (float_sum) {
            long double v = type == CLREDUCE_FLOAT ? (long double)x.f : (long double)x.d;
            sum += v;
            abs_sum += fabsl(v);
        }
        if (kind == CLREDUCE_INCLUSIVE) {
            want = acc;
            want_sum = sum;
            want_abs = abs_sum;
        }
        tc_get(type, out, i, &got);
        int ok;
        if (float_sum) {
            long double g = type == CLREDUCE_FLOAT ? (long double)got.f : (long double)got.d;
            ok = fabsl(g - want_sum) <= tol * want_abs; /* false for a NaN */
        } else {
            ok = memcmp(got.bytes, want.bytes, es) == 0;
        }
        if (!ok) {
            char g[96], w[96];
            tc_format(type, &got, g, sizeof g);
            if (float_sum)
                snprintf(w, sizeof w, "%.17Lg (within %.3Lg)", want_sum, tol * want_abs);
            else
                tc_format(type, &want, w, sizeof w);
            snprintf(why, why_size, "element %zu of %zu is %s, expected %s", i, n, g, w);
            return 0;
        }
    }
    return 1;
}
