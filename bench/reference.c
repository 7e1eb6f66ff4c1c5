/* clreduce-bench: the CPU reference of every operator over a prefix of the
 * input, and the check of a device result against it. Floating-point sums
 * are compared within a tolerance relative to the sum of |x| over the same
 * elements (reference_tolerance()); integer sums (wrapping), min and max
 * must match exactly. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reference.h"

int storage_type(clreduce_type type)
{
    switch (type) {
    case CLREDUCE_FLOAT:
    case CLREDUCE_DOUBLE:
    case CLREDUCE_INT32:
    case CLREDUCE_UINT32:
    case CLREDUCE_INT64:
    case CLREDUCE_UINT64: return 0;
    case CLREDUCE_HALF:
    case CLREDUCE_BFLOAT16: return 1;
    }
    return 0;
}

clreduce_type sum_type(clreduce_type type)
{
    return storage_type(type) ? CLREDUCE_FLOAT : type;
}

/* The empty prefix's min and max of a T: the largest value and the smallest. */
#define INIT_MIN_MAX(T, s, lowest, highest)                                                        \
    do {                                                                                           \
        T lo_ = (lowest), hi_ = (highest);                                                         \
        memcpy((s)->min, &hi_, sizeof hi_);                                                        \
        memcpy((s)->max, &lo_, sizeof lo_);                                                        \
    } while (0)

void prefix_init(clreduce_type type, prefix_state *s)
{
    memset(s, 0, sizeof *s);
    switch (type) {
    case CLREDUCE_FLOAT: INIT_MIN_MAX(float, s, -INFINITY, INFINITY); break;
    case CLREDUCE_DOUBLE: INIT_MIN_MAX(double, s, -INFINITY, INFINITY); break;
    case CLREDUCE_INT32: INIT_MIN_MAX(int32_t, s, INT32_MIN, INT32_MAX); break;
    case CLREDUCE_UINT32: INIT_MIN_MAX(uint32_t, s, 0, UINT32_MAX); break;
    case CLREDUCE_INT64: INIT_MIN_MAX(int64_t, s, INT64_MIN, INT64_MAX); break;
    case CLREDUCE_UINT64: INIT_MIN_MAX(uint64_t, s, 0, UINT64_MAX); break;
    case CLREDUCE_HALF: /* storage types: no min, max or scan of them is timed */
    case CLREDUCE_BFLOAT16: break;
    }
}

#define ADD_MIN_MAX(T, s, v)                                                                       \
    do {                                                                                           \
        T mn_, mx_;                                                                                \
        memcpy(&mn_, (s)->min, sizeof mn_);                                                        \
        memcpy(&mx_, (s)->max, sizeof mx_);                                                        \
        if ((v) < mn_)                                                                             \
            memcpy((s)->min, &(v), sizeof(T));                                                     \
        if ((v) > mx_)                                                                             \
            memcpy((s)->max, &(v), sizeof(T));                                                     \
    } while (0)

/* Extends the prefix by the floating-point T at x. */
#define ADD_FP(T, s, x)                                                                            \
    do {                                                                                           \
        T v_;                                                                                      \
        memcpy(&v_, (x), sizeof v_);                                                               \
        (s)->sum_fp += v_;                                                                         \
        (s)->abs_sum += fabsl((long double)v_);                                                    \
        ADD_MIN_MAX(T, s, v_);                                                                     \
    } while (0)

/* Extends the prefix by the integer T at x. The conversion to uint64_t is
 * modulo 2^64, so a negative value adds as its sign extension would. */
#define ADD_INT(T, s, x)                                                                           \
    do {                                                                                           \
        T v_;                                                                                      \
        memcpy(&v_, (x), sizeof v_);                                                               \
        (s)->sum_int += (uint64_t)v_;                                                              \
        ADD_MIN_MAX(T, s, v_);                                                                     \
    } while (0)

/* Extends the prefix by one element. */
void prefix_add(clreduce_type type, prefix_state *s, const void *x)
{
    switch (type) {
    case CLREDUCE_FLOAT: ADD_FP(float, s, x); break;
    case CLREDUCE_DOUBLE: ADD_FP(double, s, x); break;
    case CLREDUCE_INT32: ADD_INT(int32_t, s, x); break;
    case CLREDUCE_UINT32: ADD_INT(uint32_t, s, x); break;
    case CLREDUCE_INT64: ADD_INT(int64_t, s, x); break;
    case CLREDUCE_UINT64: ADD_INT(uint64_t, s, x); break;
    case CLREDUCE_HALF: /* storage types: no min, max or scan of them is timed */
    case CLREDUCE_BFLOAT16: break;
    }
}

long double reference_tolerance(clreduce_type type, int scan)
{
    if (type == CLREDUCE_FLOAT)
        return scan ? 2e-5L : 1e-5L;
    return 1e-12L;
}

int reference_matches(clreduce_type type, clreduce_op op, const prefix_state *want,
                      const void *got, long double rel_tol, char *why, size_t why_size)
{
    size_t esize = clreduce_type_size(type);
    char g[64], w[64];
    if (op != CLREDUCE_OP_SUM) {
        const unsigned char *ref = op == CLREDUCE_OP_MIN ? want->min : want->max;
        if (memcmp(got, ref, esize) == 0)
            return 1;
        format_value(type, got, g, sizeof g);
        format_value(type, ref, w, sizeof w);
        snprintf(why, why_size, "%s, expected %s", g, w);
        return 0;
    }
    if (type == CLREDUCE_FLOAT || type == CLREDUCE_DOUBLE) {
        long double v;
        if (type == CLREDUCE_FLOAT) {
            float f;
            memcpy(&f, got, sizeof f);
            v = f;
        } else {
            double x;
            memcpy(&x, got, sizeof x);
            v = x;
        }
        long double tol = rel_tol * want->abs_sum;
        long double diff = fabsl(v - want->sum_fp);
        if (diff <= tol) /* false for NaN */
            return 1;
        format_value(type, got, g, sizeof g);
        snprintf(why, why_size,
                 "%s, expected %.17Lg (|difference| %.3Lg > tolerance %.0Lg x sum|x| %.6Lg = "
                 "%.3Lg)",
                 g, want->sum_fp, diff, rel_tol, want->abs_sum, tol);
        return 0;
    }
    uint64_t bits = 0, ref = want->sum_int;
    if (esize == 4) {
        uint32_t u;
        memcpy(&u, got, sizeof u);
        bits = u;
        ref = (uint32_t)ref;
    } else {
        memcpy(&bits, got, sizeof bits);
    }
    if (bits == ref)
        return 1;
    unsigned char r[8];
    if (esize == 4) {
        uint32_t u = (uint32_t)ref;
        memcpy(r, &u, sizeof u);
    } else {
        memcpy(r, &ref, sizeof ref);
    }
    format_value(type, got, g, sizeof g);
    format_value(type, r, w, sizeof w);
    snprintf(why, why_size, "%s, expected %s (exact, wrapping)", g, w);
    return 0;
}

void format_value(clreduce_type type, const void *v, char *out, size_t size)
{
    switch (type) {
    case CLREDUCE_FLOAT: snprintf(out, size, "%.9g", (double)*(const float *)v); break;
    case CLREDUCE_DOUBLE: snprintf(out, size, "%.17g", *(const double *)v); break;
    case CLREDUCE_INT32: snprintf(out, size, "%d", (int)*(const int32_t *)v); break;
    case CLREDUCE_UINT32: snprintf(out, size, "%u", (unsigned)*(const uint32_t *)v); break;
    case CLREDUCE_INT64:
        snprintf(out, size, "%lld", (long long)*(const int64_t *)v);
        break;
    case CLREDUCE_UINT64:
        snprintf(out, size, "%llu", (unsigned long long)*(const uint64_t *)v);
        break;
    case CLREDUCE_HALF: /* storage types: their sums are checked as floats (sum_type) */
    case CLREDUCE_BFLOAT16: break;
    }
}
