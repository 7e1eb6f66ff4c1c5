/* The reproducible order (clreduce.h, CLREDUCE_REPRODUCIBLE) written in C
 * for the tests that compare bits with it (unit.reproducible,
 * unit.reproducible_batches), and data whose sums depend on the order.
 * Included by one test file each, after cmocka.h and test_common.h. */
#ifndef TEST_FIXED_ORDER_H
#define TEST_FIXED_ORDER_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define LANES 256
#define STEPS 16

/* One tile of the order (clreduce.h, CLREDUCE_REPRODUCIBLE): lanes of V
 * accumulators, each adding its elements step by step; a lane's
 * accumulators in pairs; the lanes by the sequential-addressing tree.
 * Elements past n are left out. */
#define FIXED_ORDER(NAME, T)                                                         \
    static inline T NAME##_tile(const T *x, size_t n)                                \
    {                                                                                \
        enum { V = 16 / sizeof(T) };                                                 \
        T lane[LANES];                                                               \
        for (size_t l = 0; l < LANES; l++) {                                         \
            T a[V];                                                                  \
            for (size_t j = 0; j < V; j++)                                           \
                a[j] = 0;                                                            \
            for (size_t k = 0; k < STEPS; k++)                                       \
                for (size_t j = 0; j < V; j++) {                                     \
                    size_t i = (k * LANES + l) * V + j;                              \
                    if (i < n)                                                       \
                        a[j] = a[j] + x[i];                                          \
                }                                                                    \
            lane[l] = V == 4 ? (a[0] + a[1]) + (a[2 % V] + a[3 % V]) : a[0] + a[1];  \
        }                                                                            \
        for (size_t s = LANES / 2; s > 0; s /= 2)                                    \
            for (size_t l = 0; l < s; l++)                                           \
                lane[l] = lane[l] + lane[l + s];                                     \
        return lane[0];                                                              \
    }                                                                                \
    /* The tiles' values are the next level's input, until one is left. */           \
    static inline T NAME(const T *x, size_t n)                                       \
    {                                                                                \
        const size_t tile = (size_t)LANES * STEPS * (16 / sizeof(T));                \
        size_t tiles = n ? (n + tile - 1) / tile : 1;                                \
        T *level = malloc(tiles * sizeof(T));                                        \
        assert_non_null(level);                                                      \
        for (;;) {                                                                   \
            for (size_t t = 0; t < tiles; t++)                                       \
                level[t] = NAME##_tile(x + t * tile, n - t * tile < tile ? n - t * tile \
                                                                         : tile);    \
            if (tiles == 1)                                                          \
                break;                                                               \
            x = level; /* read before written: tile t writes level[t] */             \
            n = tiles;                                                               \
            tiles = (n + tile - 1) / tile;                                           \
        }                                                                            \
        T r = level[0];                                                              \
        free(level);                                                                 \
        return r;                                                                    \
    }

FIXED_ORDER(fixed_sum_float, float)
FIXED_ORDER(fixed_sum_double, double)

/* The reproducible scan (cl/scan_fixed_order.cl): lanes of consecutive
 * elements summed in sequence, the lanes' totals by Hillis-Steele, the
 * tiles' totals in chunks of ceil(tiles / LANES), the chunks' sums by
 * Hillis-Steele; element i is P(t) + (E(l) + run). */
#define FIXED_SCAN(NAME, T)                                                              \
    static inline void NAME##_lanes(T *a) /* Hillis-Steele, inclusive */                \
    {                                                                                    \
        for (size_t s = 1; s < LANES; s *= 2)                                            \
            for (size_t l = LANES; l-- > s;)                                             \
                a[l] = a[l - s] + a[l];                                                  \
    }                                                                                    \
    static inline void NAME(const T *x, size_t n, int exclusive, T *out)                 \
    {                                                                                    \
        const size_t tile = (size_t)LANES * STEPS * (16 / sizeof(T)), lane = tile / LANES; \
        size_t tiles = (n + tile - 1) / tile, chunk = (tiles + LANES - 1) / LANES;       \
        T *tot = malloc((tiles + 1) * sizeof(T)), *pre = malloc((tiles + 1) * sizeof(T)); \
        T (*incl)[LANES] = malloc((tiles + 1) * sizeof *incl), chunks[LANES];            \
        assert_true(tot && pre && incl);                                                 \
        for (size_t t = 0; t < tiles; t++) {                                             \
            for (size_t l = 0; l < LANES; l++) {                                         \
                T s = 0;                                                                 \
                for (size_t m = 0; m < lane; m++)                                        \
                    if (t * tile + l * lane + m < n)                                     \
                        s = s + x[t * tile + l * lane + m];                              \
                incl[t][l] = s;                                                          \
            }                                                                            \
            NAME##_lanes(incl[t]);                                                       \
            tot[t] = incl[t][LANES - 1];                                                 \
        }                                                                                \
        for (size_t c = 0; c < LANES; c++) {                                             \
            chunks[c] = 0;                                                               \
            for (size_t t = c * chunk; t < (c + 1) * chunk && t < tiles; t++)            \
                chunks[c] = chunks[c] + tot[t];                                          \
        }                                                                                \
        NAME##_lanes(chunks);                                                            \
        for (size_t c = 0; c < LANES; c++) {                                             \
            T q = c ? chunks[c - 1] : 0, r = 0;                                          \
            for (size_t t = c * chunk; t < (c + 1) * chunk && t < tiles; t++) {          \
                pre[t] = q + r;                                                          \
                r = r + tot[t];                                                          \
            }                                                                            \
        }                                                                                \
        for (size_t t = 0; t < tiles; t++)                                               \
            for (size_t l = 0; l < LANES; l++) {                                         \
                T e = l ? incl[t][l - 1] : 0, run = 0;                                   \
                for (size_t m = 0; m < lane; m++) {                                      \
                    size_t i = t * tile + l * lane + m;                                  \
                    if (i >= n)                                                          \
                        break;                                                           \
                    T before = run;                                                      \
                    run = run + x[i];                                                    \
                    out[i] = pre[t] + (e + (exclusive ? before : run));                  \
                }                                                                        \
            }                                                                            \
        free(tot);                                                                       \
        free(pre);                                                                       \
        free(incl);                                                                      \
    }

FIXED_SCAN(fixed_scan_float, float)
FIXED_SCAN(fixed_scan_double, double)

/* Magnitudes spread over 2^-20 .. 2^20, random signs: every change of order
 * changes the sum's low bits. */
static inline void fill_wide(clreduce_type type, void *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double m = ldexp(1.0 + tc_rand_unit(), (int)tc_rand_below(41) - 20);
        double x = (tc_rand64() & 1) ? -m : m;
        if (type == CLREDUCE_FLOAT)
            ((float *)data)[i] = (float)x;
        else
            ((double *)data)[i] = x;
    }
}

/* The order's sum of data[0 .. n) of type (float or double) into *out. */
static inline void host_sum(clreduce_type type, const void *data, size_t n, void *out)
{
    if (type == CLREDUCE_FLOAT)
        *(float *)out = fixed_sum_float(data, n);
    else
        *(double *)out = fixed_sum_double(data, n);
}

/* The values a sum of a map adds: x*x (map 1), |x| (2) or x*y (3) of each
 * element of type, rounded to the type (a volatile store: never fused into
 * anything), into out. */
static inline void map_values(clreduce_type type, int map, const void *x, const void *y,
                              size_t n, void *out)
{
    for (size_t i = 0; i < n; i++) {
        double a = tc_get_double(type, x, i), b = map == 3 ? tc_get_double(type, y, i) : 0;
        if (type == CLREDUCE_FLOAT) {
            float fa = (float)a, fb = (float)b;
            volatile float m = map == 1 ? fa * fa : map == 2 ? fabsf(fa) : fa * fb;
            ((float *)out)[i] = m;
        } else {
            volatile double m = map == 1 ? a * a : map == 2 ? fabs(a) : a * b;
            ((double *)out)[i] = m;
        }
    }
}

/* The operator whose sum map_values() maps to: 0 the sum itself, 1 of
 * squares, 2 of absolute values, 3 of products (dot). */
static inline clreduce_op map_op(int map)
{
    static const clreduce_op ops[4] = {CLREDUCE_OP_SUM, CLREDUCE_OP_SUM_SQUARES,
                                       CLREDUCE_OP_SUM_ABS, CLREDUCE_OP_DOT};
    return ops[map & 3];
}

/* A reproducible context on plain's device and OpenCL context; NULL, said
 * on stderr, where it cannot be made. */
static inline clreduce_ctx *reproducible_context(clreduce_ctx *plain)
{
    clreduce_settings s;
    clreduce_default_settings(&s);
    s.reproducible = 1;
    clreduce_ctx *ctx = NULL;
    if (clreduce_create_with_settings(clreduce_get_cl_context(plain),
                                      clreduce_get_cl_device(plain), &s, &ctx) !=
        CLREDUCE_SUCCESS)
        fprintf(stderr, "clreduce_create_with_settings: %s\n", clreduce_last_error(NULL));
    return ctx;
}

#endif /* TEST_FIXED_ORDER_H */
