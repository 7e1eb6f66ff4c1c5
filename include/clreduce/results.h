/*
 * clreduce/results.h: the result layouts of the operators past CLREDUCE_OP_MAX.
 * Included by clreduce/clreduce.h; include that header, not this one.
 */
#ifndef CLREDUCE_RESULTS_H
#define CLREDUCE_RESULTS_H

#include "clreduce/clreduce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Result layouts of the operators past CLREDUCE_OP_MAX, as written to device
 * memory and to host memory by the *_host calls. Host and device agree on
 * them byte for byte (the sizes and offsets are checked below where the
 * compiler can): values at the offsets given, in the device's byte order,
 * padding written as zeros. Results of SUM_SQUARES, SUM_ABS, NORM2 and DOT
 * are one element of the type.
 * ------------------------------------------------------------------------- */

/* ARGMIN, ARGMAX: 16 bytes for every type, the value at byte 0 and the
 * index at byte 8 (8-byte aligned in device memory, where result_offset
 * counts whole results). */
typedef struct clreduce_arg_float {
    float value;
    uint32_t padding;
    uint64_t index;
} clreduce_arg_float;
typedef struct clreduce_arg_double {
    double value;
    uint64_t index;
} clreduce_arg_double;
typedef struct clreduce_arg_int32 {
    int32_t value;
    uint32_t padding;
    uint64_t index;
} clreduce_arg_int32;
typedef struct clreduce_arg_uint32 {
    uint32_t value;
    uint32_t padding;
    uint64_t index;
} clreduce_arg_uint32;
typedef struct clreduce_arg_int64 {
    int64_t value;
    uint64_t index;
} clreduce_arg_int64;
typedef struct clreduce_arg_uint64 {
    uint64_t value;
    uint64_t index;
} clreduce_arg_uint64;

/* MINMAX: two elements of the type, the minimum first (8 or 16 bytes). */
typedef struct clreduce_minmax_float {
    float min, max;
} clreduce_minmax_float;
typedef struct clreduce_minmax_double {
    double min, max;
} clreduce_minmax_double;
typedef struct clreduce_minmax_int32 {
    int32_t min, max;
} clreduce_minmax_int32;
typedef struct clreduce_minmax_uint32 {
    uint32_t min, max;
} clreduce_minmax_uint32;
typedef struct clreduce_minmax_int64 {
    int64_t min, max;
} clreduce_minmax_int64;
typedef struct clreduce_minmax_uint64 {
    uint64_t min, max;
} clreduce_minmax_uint64;

/* MEAN_VAR: mean and m2 in the type, then the count: 16 bytes for float,
 * 24 for double, 8-byte aligned. Two results of disjoint data merge as
 * n = n_a + n_b, d = mean_b - mean_a, mean = mean_a + d * n_b / n,
 * m2 = m2_a + m2_b + d * d * n_a * n_b / n. */
typedef struct clreduce_mean_var_float {
    float mean;
    float m2;
    uint64_t count;
} clreduce_mean_var_float;
typedef struct clreduce_mean_var_double {
    double mean;
    double m2;
    uint64_t count;
} clreduce_mean_var_double;

#if defined(__cplusplus) && __cplusplus >= 201103L
#define CLREDUCE_LAYOUT_CHECK_(cond, text) static_assert(cond, text);
#elif !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define CLREDUCE_LAYOUT_CHECK_(cond, text) _Static_assert(cond, text);
#else
#define CLREDUCE_LAYOUT_CHECK_(cond, text)
#endif
CLREDUCE_LAYOUT_CHECK_(sizeof(clreduce_arg_float) == 16 &&
                           offsetof(clreduce_arg_float, index) == 8 &&
                           sizeof(clreduce_arg_double) == 16 &&
                           offsetof(clreduce_arg_double, index) == 8 &&
                           sizeof(clreduce_arg_int32) == 16 &&
                           offsetof(clreduce_arg_int32, index) == 8 &&
                           sizeof(clreduce_arg_uint32) == 16 &&
                           offsetof(clreduce_arg_uint32, index) == 8 &&
                           sizeof(clreduce_arg_int64) == 16 &&
                           offsetof(clreduce_arg_int64, index) == 8 &&
                           sizeof(clreduce_arg_uint64) == 16 &&
                           offsetof(clreduce_arg_uint64, index) == 8,
                       "argmin/argmax results: 16 bytes, the index at byte 8")
CLREDUCE_LAYOUT_CHECK_(sizeof(clreduce_minmax_float) == 8 &&
                           sizeof(clreduce_minmax_double) == 16 &&
                           sizeof(clreduce_minmax_int32) == 8 &&
                           sizeof(clreduce_minmax_uint32) == 8 &&
                           sizeof(clreduce_minmax_int64) == 16 &&
                           sizeof(clreduce_minmax_uint64) == 16,
                       "minmax results: two elements")
CLREDUCE_LAYOUT_CHECK_(sizeof(clreduce_mean_var_float) == 16 &&
                           offsetof(clreduce_mean_var_float, m2) == 4 &&
                           offsetof(clreduce_mean_var_float, count) == 8 &&
                           sizeof(clreduce_mean_var_double) == 24 &&
                           offsetof(clreduce_mean_var_double, m2) == 8 &&
                           offsetof(clreduce_mean_var_double, count) == 16,
                       "mean_var results: mean, m2, then the count")
#undef CLREDUCE_LAYOUT_CHECK_

#ifdef __cplusplus
}
#endif

#endif /* CLREDUCE_RESULTS_H */
