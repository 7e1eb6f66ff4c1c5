/* clreduce-bench: the CPU reference: every operator's running result over
 * a prefix of an input, and the check of a device result against it. */
#ifndef CLREDUCE_BENCH_REFERENCE_H
#define CLREDUCE_BENCH_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include <clreduce/clreduce.h>

/* Whether `type` is a storage type (half, bfloat16): the benchmark times
 * only its sum, as a user-defined operator whose accumulator, and so whose
 * result, is a float (the library's built-in sum of it runs the same
 * kernels). */
int storage_type(clreduce_type type);

/* The type of the benchmark's sum of elements of `type`: `type` itself, or
 * float for a storage type. */
clreduce_type sum_type(clreduce_type type);

/* Every operator's result over a prefix of the input: the sum (floating
 * point in extended precision; integers wrapping modulo 2^64, truncated to
 * the type when compared), the sum of |x|, the minimum and the maximum (the
 * identities for the empty prefix). */
typedef struct prefix_state {
    long double sum_fp, abs_sum;
    uint64_t sum_int;
    unsigned char min[8], max[8];
} prefix_state;

/* The empty prefix: sums 0, min and max the identities of `type`. */
void prefix_init(clreduce_type type, prefix_state *s);

/* Extends the prefix by the element at x (one element of `type`). */
void prefix_add(clreduce_type type, prefix_state *s, const void *x);

/* Tolerance of floating-point sums, relative to the sum of |x| over the
 * same elements: 1e-5 (float) or 1e-12 (double) for a reduction, 2e-5 or
 * 1e-12 for an element of a scan. Other results must match exactly. */
long double reference_tolerance(clreduce_type type, int scan);

/* Whether `got` (one element of `type`) is right for `op` over the prefix
 * `want`, floating-point sums within `rel_tol` x sum|x|; if not, why. */
int reference_matches(clreduce_type type, clreduce_op op, const prefix_state *want,
                      const void *got, long double rel_tol, char *why, size_t why_size);

/* The CPU reference of the operators past CLREDUCE_OP_MAX over a whole
 * input x (and, for dot, a second input y), built in one pass
 * (reference_operators.c). Floating-point sums in extended precision,
 * integer sums wrapping modulo 2^64 (truncated to the type when compared);
 * the argmin and argmax keep the first index of their value. */
typedef struct operator_reference {
    unsigned char argmin[8], argmax[8];
    uint64_t argmin_index, argmax_index;
    long double sum, sum_sq, abs_sum, dot, dot_abs;
    uint64_t isum_sq, isum_abs, idot; /* |x| of a signed integer as unsigned */
    uint64_t count;
    int has_dot;
} operator_reference;

/* Nothing seen yet. */
void operator_reference_init(clreduce_type type, operator_reference *r);

/* Adds n elements of x (and of y, NULL when there is none) that start at
 * global index `base`; elements must come in order of their index. */
void operator_reference_add(clreduce_type type, operator_reference *r, const void *x,
                            const void *y, size_t n, uint64_t base);

/* Whether `got` (clreduce_result_size(op, type) bytes) is right for `op`
 * past CLREDUCE_OP_MAX: argmin, argmax and minmax exactly; sum_squares,
 * sum_abs and dot exactly for integers, within reference_tolerance() x the
 * sum of |terms| for floating point; norm2 within 1e-5 (float) or 1e-12
 * (double) of sqrt(sum of squares); mean_var's mean within the tolerance x
 * sum|x| / count, its m2 within 1e-3 (float) or 1e-9 (double) relative and
 * its count exactly. If not, why. */
int operator_matches(clreduce_type type, clreduce_op op, const operator_reference *want,
                     const void *got, char *why, size_t why_size);

/* One element of `type` as text (every digit a float or double needs). */
void format_value(clreduce_type type, const void *v, char *out, size_t size);

#endif
