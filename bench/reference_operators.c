/* clreduce-bench: the CPU reference of the operators past sum, min and max
 * (argmin, argmax, minmax, sum_squares, sum_abs, norm2, mean_var, dot),
 * built in one pass over a host copy of the input, and the check of a
 * device result against it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reference.h"

void operator_reference_init(clreduce_type type, operator_reference *r)
{
    memset(r, 0, sizeof *r);
    prefix_state p;
    prefix_init(type, &p);
    memcpy(r->argmin, p.min, sizeof r->argmin);
    memcpy(r->argmax, p.max, sizeof r->argmax);
    r->argmin_index = r->argmax_index = UINT64_MAX;
}

/* The argmin and argmax of the T v at index g: strict comparisons keep the
 * first index of equal values. */
#define ARG(T, r, v, g)                                                                            \
    do {                                                                                           \
        T mn_, mx_;                                                                                \
        memcpy(&mn_, (r)->argmin, sizeof mn_);                                                     \
        memcpy(&mx_, (r)->argmax, sizeof mx_);                                                     \
        if ((r)->argmin_index == UINT64_MAX || (v) < mn_) {                                        \
            memcpy((r)->argmin, &(v), sizeof(T));                                                  \
            (r)->argmin_index = (g);                                                               \
        }                                                                                          \
        if ((r)->argmax_index == UINT64_MAX || (v) > mx_) {                                        \
            memcpy((r)->argmax, &(v), sizeof(T));                                                  \
            (r)->argmax_index = (g);                                                               \
        }                                                                                          \
    } while (0)

#define ADD_FP(T)                                                                                  \
    do {                                                                                           \
        for (size_t i = 0; i < n; i++) {                                                           \
            T v = ((const T *)x)[i];                                                               \
            long double l = v;                                                                     \
            ARG(T, r, v, base + i);                                                                \
            r->sum += l;                                                                           \
            r->sum_sq += l * l;                                                                    \
            r->abs_sum += fabsl(l);                                                                \
            if (y) {                                                                               \
                long double p = l * (long double)((const T *)y)[i];                                \
                r->dot += p;                                                                       \
                r->dot_abs += fabsl(p);                                                            \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* Integers: products and sums modulo 2^64 (the low bits of the type's
 * wrapping results); ABS is |v| from u = v modulo 2^64: a signed v's
 * magnitude as unsigned. */
#define ADD_INT(T, ABS)                                                                            \
    do {                                                                                           \
        for (size_t i = 0; i < n; i++) {                                                           \
            T v = ((const T *)x)[i];                                                               \
            uint64_t u = (uint64_t)v;                                                              \
            ARG(T, r, v, base + i);                                                                \
            r->isum_sq += u * u;                                                                   \
            r->isum_abs += ABS;                                                                    \
            if (y)                                                                                 \
                r->idot += u * (uint64_t)((const T *)y)[i];                                        \
        }                                                                                          \
    } while (0)

void operator_reference_add(clreduce_type type, operator_reference *r, const void *x,
                            const void *y, size_t n, uint64_t base)
{
    switch (type) {
    case CLREDUCE_FLOAT: ADD_FP(float); break;
    case CLREDUCE_DOUBLE: ADD_FP(double); break;
    case CLREDUCE_INT32: ADD_INT(int32_t, v < 0 ? (uint64_t)0 - u : u); break;
    case CLREDUCE_UINT32: ADD_INT(uint32_t, u); break;
    case CLREDUCE_INT64: ADD_INT(int64_t, v < 0 ? (uint64_t)0 - u : u); break;
    case CLREDUCE_UINT64: ADD_INT(uint64_t, u); break;
    case CLREDUCE_HALF: /* storage types: no built-in operator takes them */
    case CLREDUCE_BFLOAT16: break;
    }
    r->count += n;
    r->has_dot |= y != NULL;
}

static int is_fp(clreduce_type type)
{
    return type == CLREDUCE_FLOAT || type == CLREDUCE_DOUBLE;
}

/* The floating-point element at p as a long double. */
static long double fp_at(clreduce_type type, const unsigned char *p)
{
    if (type == CLREDUCE_FLOAT) {
        float f;
        memcpy(&f, p, sizeof f);
        return f;
    }
    double d;
    memcpy(&d, p, sizeof d);
    return d;
}

/* The integer element at p as its bits, zero-extended. */
static uint64_t int_at(size_t esize, const unsigned char *p)
{
    if (esize == 4) {
        uint32_t u;
        memcpy(&u, p, sizeof u);
        return u;
    }
    uint64_t u;
    memcpy(&u, p, sizeof u);
    return u;
}

static int check_arg(clreduce_type type, const unsigned char *got,
                     const unsigned char *value, uint64_t index, char *why, size_t why_size)
{
    size_t esize = clreduce_type_size(type);
    uint64_t got_index;
    memcpy(&got_index, got + 8, sizeof got_index);
    if (memcmp(got, value, esize) == 0 && got_index == index)
        return 1;
    char g[64], w[64];
    format_value(type, got, g, sizeof g);
    format_value(type, value, w, sizeof w);
    snprintf(why, why_size, "%s at index %llu, expected %s at index %llu (exact)", g,
             (unsigned long long)got_index, w, (unsigned long long)index);
    return 0;
}

/* A floating-point sum `got` against `want` within tol x scale. */
static int check_fp(const char *what, long double got, long double want, long double tol,
                    long double scale, char *why, size_t why_size)
{
    long double diff = fabsl(got - want);
    if (diff <= tol * scale) /* false for NaN */
        return 1;
    snprintf(why, why_size,
             "%s%.17Lg, expected %.17Lg (|difference| %.3Lg > tolerance %.0Lg x %.6Lg = %.3Lg)",
             what, got, want, diff, tol, scale, tol * scale);
    return 0;
}

/* An integer result (its bits at got) against the wrapping sum want. */
static int check_int(clreduce_type type, const unsigned char *got, uint64_t want, char *why,
                     size_t why_size)
{
    size_t esize = clreduce_type_size(type);
    uint64_t bits = int_at(esize, got);
    if (esize == 4)
        want = (uint32_t)want;
    if (bits == want)
        return 1;
    snprintf(why, why_size, "bits 0x%llx, expected 0x%llx (exact, wrapping)",
             (unsigned long long)bits, (unsigned long long)want);
    return 0;
}

int operator_matches(clreduce_type type, clreduce_op op, const operator_reference *want,
                     const void *result, char *why, size_t why_size)
{
    const unsigned char *got = result;
    size_t esize = clreduce_type_size(type);
    long double tol = reference_tolerance(type, 0);
    switch (op) {
    case CLREDUCE_OP_ARGMIN:
        return check_arg(type, got, want->argmin, want->argmin_index, why, why_size);
    case CLREDUCE_OP_ARGMAX:
        return check_arg(type, got, want->argmax, want->argmax_index, why, why_size);
    case CLREDUCE_OP_MINMAX:
        if (memcmp(got, want->argmin, esize) == 0 && memcmp(got + esize, want->argmax, esize) == 0)
            return 1;
        {
            char g0[64], g1[64], w0[64], w1[64];
            format_value(type, got, g0, sizeof g0);
            format_value(type, got + esize, g1, sizeof g1);
            format_value(type, want->argmin, w0, sizeof w0);
            format_value(type, want->argmax, w1, sizeof w1);
            snprintf(why, why_size, "{%s, %s}, expected {%s, %s} (exact)", g0, g1, w0, w1);
        }
        return 0;
    case CLREDUCE_OP_SUM_SQUARES:
        if (!is_fp(type))
            return check_int(type, got, want->isum_sq, why, why_size);
        return check_fp("", fp_at(type, got), want->sum_sq, tol, want->sum_sq, why, why_size);
    case CLREDUCE_OP_SUM_ABS:
        if (!is_fp(type))
            return check_int(type, got, want->isum_abs, why, why_size);
        return check_fp("", fp_at(type, got), want->abs_sum, tol, want->abs_sum, why, why_size);
    case CLREDUCE_OP_DOT:
        if (!want->has_dot) {
            snprintf(why, why_size, "no reference of the dot product");
            return 0;
        }
        if (!is_fp(type))
            return check_int(type, got, want->idot, why, why_size);
        return check_fp("", fp_at(type, got), want->dot, tol, want->dot_abs, why, why_size);
    case CLREDUCE_OP_NORM2: {
        long double norm = sqrtl(want->sum_sq);
        return check_fp("", fp_at(type, got), norm, type == CLREDUCE_FLOAT ? 1e-5L : 1e-12L,
                        norm, why, why_size);
    }
    case CLREDUCE_OP_MEAN_VAR: {
        uint64_t count;
        memcpy(&count, got + 2 * esize, sizeof count);
        if (count != want->count) {
            snprintf(why, why_size, "count %llu, expected %llu (exact)",
                     (unsigned long long)count, (unsigned long long)want->count);
            return 0;
        }
        long double n = want->count ? (long double)want->count : 1.0L;
        long double mean = want->sum / n;
        long double m2 = want->sum_sq - want->sum * want->sum / n;
        if (m2 < 0)
            m2 = 0;
        return check_fp("mean ", fp_at(type, got), mean, tol, want->abs_sum / n, why,
                        why_size) &&
               check_fp("m2 ", fp_at(type, got + esize), m2,
                        type == CLREDUCE_FLOAT ? 1e-3L : 1e-9L, m2, why, why_size);
    }
    default: snprintf(why, why_size, "no reference for this operator"); return 0;
    }
}
