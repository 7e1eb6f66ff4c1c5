/* unit.storage: the storage types CLREDUCE_HALF and CLREDUCE_BFLOAT16 as the
 * inputs of user-defined operators, against CPU references: every one of
 * the 65536 bit patterns of each widened to float (an inclusive scan that
 * keeps the last element), exact float sums at awkward sizes with the input
 * at an offset between poisoned elements, a struct accumulator (min, max,
 * count), a dot product of two inputs, rows with a pitch, CSR segments, an
 * exclusive scan; and the built-in operators refusing the storage types.
 *
 * CLREDUCE_TEST_SEED=n repeats a run's random data; CLREDUCE_TEST_FILTER=glob
 * runs only the matching tests; CLREDUCE_TEST_MAX_COUNT=n leaves out calls
 * of more than n elements (and reads the first n bit patterns), for runs
 * under Oclgrind. */
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

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;

static const clreduce_type storage_types[] = {CLREDUCE_HALF, CLREDUCE_BFLOAT16};
static const size_t sizes[] = {1, 31, 33, 255, 257, 4097, TC_LARGE_COUNT};
static const clreduce_variant variants[] = {CLREDUCE_AUTO, CLREDUCE_GRID_STRIDE,
                                            CLREDUCE_SINGLE_PASS};

#define IN_OFFSET 3
#define RESULT_OFFSET 2
#define RESULTS 4
/* A half and a bfloat16 that are NaN: any sum they enter is wrong. */
#define POISON_BITS 0x7e00u

/* The most elements a call may have in this run. */
static size_t max_count(void)
{
    const char *env = getenv("CLREDUCE_TEST_MAX_COUNT");
    return env && *env ? (size_t)strtoull(env, NULL, 10) : SIZE_MAX;
}

/* ---- the two encodings on the host ---------------------------------------------------- */

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* IEEE binary16 to float, from the fields. */
static float half_value(uint16_t h)
{
    int sign = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v;
    if (e == 0x1f)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexpf((float)m, -24);
    else
        v = ldexpf((float)(m | 0x400), e - 25);
    return sign ? -v : v;
}

static float storage_value(clreduce_type type, uint16_t bits)
{
    return type == CLREDUCE_HALF ? half_value(bits) : from_bits((uint32_t)bits << 16);
}

/* The bits of f in `type`, where f is a normal number or zero that the type
 * holds exactly (k / 4 for |k| < 2^8; in half, for |k| < 2^11). */
static uint16_t storage_bits(clreduce_type type, float f)
{
    uint32_t u = float_bits(f);
    if (type == CLREDUCE_BFLOAT16) {
        assert_int_equal(u & 0xffff, 0);
        return (uint16_t)(u >> 16);
    }
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    if (f == 0)
        return sign;
    int e = (int)((u >> 23) & 0xff) - 127 + 15;
    assert_true(e > 0 && e < 31 && (u & 0x1fff) == 0);
    uint16_t h = (uint16_t)(sign | (e << 10) | ((u >> 13) & 0x3ff));
    assert_true(half_value(h) == f);
    return h;
}

/* n elements of `type` of value k / 4 for random k in [-range, range]; their
 * exact sum in *sum (a float holds it while range * n < 2^24). */
static void fill_quarters(clreduce_type type, uint16_t *data, size_t n, int range, double *sum)
{
    *sum = 0;
    for (size_t i = 0; i < n; i++) {
        int k = (int)tc_rand_below((size_t)(2 * range + 1)) - range;
        data[i] = storage_bits(type, (float)k / 4);
        *sum += (double)k / 4;
    }
}

/* ---- operators --------------------------------------------------------------------------- */

static clreduce_operator *create_or_fail(clreduce_operator_desc d, clreduce_type type)
{
    d.input_type = type;
    clreduce_operator *op = NULL;
    clreduce_status st = clreduce_operator_create(g_ctx, &d, &op);
    if (st != CLREDUCE_SUCCESS)
        print_error("creating operator %s for %s: %s: %s\n", d.name, clreduce_type_name(type),
                    clreduce_status_string(st), clreduce_last_error(g_ctx));
    assert_int_equal(st, CLREDUCE_SUCCESS);
    return op;
}

static const clreduce_operator_desc sum_desc = {
    .name = "storage_sum", .inputs = 1, .acc_type = "float", .acc_size = sizeof(float),
    .acc_align = _Alignof(float), .identity = "0.0f", .map = "x", .combine = "a + b",
    .commutative = 1,
};

/* The last element so far: an inclusive scan with it writes each element.
 * (Its flag gives it an identity, which Oclgrind 21.10 needs: it cannot
 * create the scan kernels of an operator without one.) */
typedef struct last {
    float value;
    uint32_t has;
} last;

static const clreduce_operator_desc last_desc = {
    .name = "storage_last", .inputs = 1, .acc_type = "last",
    .acc_source = "typedef struct {\n    float value;\n    uint has;\n} last;\n",
    .acc_size = sizeof(last), .acc_align = _Alignof(last), .identity = "(last){0.0f, 0}",
    .map = "(last){x, 1}", .combine = "b.has ? b : a",
};

typedef struct stats {
    float lo, hi;
    uint32_t count;
} stats;

static const clreduce_operator_desc stats_desc = {
    .name = "storage_stats", .inputs = 1, .acc_type = "stats",
    .acc_source = "typedef struct {\n    float lo, hi;\n    uint count;\n} stats;\n",
    .acc_size = sizeof(stats), .acc_align = _Alignof(stats),
    .identity = "(stats){INFINITY, -INFINITY, 0}", .map = "(stats){x, x, 1}",
    .combine = "(stats){fmin(a.lo, b.lo), fmax(a.hi, b.hi), a.count + b.count}",
    .commutative = 1,
};

static const clreduce_operator_desc dot_desc = {
    .name = "storage_dot", .inputs = 2, .acc_type = "float", .acc_size = sizeof(float),
    .acc_align = _Alignof(float), .identity = "0.0f", .map = "x * y", .combine = "a + b",
    .commutative = 1,
};

/* ---- every bit pattern ------------------------------------------------------------------ */

static void test_all_bits(void **state)
{
    (void)state;
    size_t n = max_count() < 65536 ? max_count() : 65536;
    uint16_t *bits = malloc(n * sizeof *bits);
    last *got = malloc(n * sizeof *got);
    assert_non_null(bits);
    assert_non_null(got);
    for (size_t i = 0; i < n; i++)
        bits[i] = (uint16_t)i;
    for (size_t t = 0; t < ARRAY_SIZE(storage_types); t++) {
        clreduce_type type = storage_types[t];
        clreduce_operator *op = create_or_fail(last_desc, type);
        assert_int_equal(clreduce_scan_custom_host(g_ctx, op, CLREDUCE_INCLUSIVE,
                                                   CLREDUCE_SCAN_AUTO, bits, NULL, n, got),
                         CLREDUCE_SUCCESS);
        size_t wrong = 0;
        for (size_t i = 0; i < n; i++) {
            float want = storage_value(type, (uint16_t)i), v = got[i].value;
            int same = isnan(want) ? isnan(v) && signbit(v) == signbit(want)
                                   : float_bits(v) == float_bits(want);
            if ((!same || got[i].has != 1) && wrong++ < 5)
                print_error("%s 0x%04zx: got %a (0x%08x, flag %u), want %a\n",
                            clreduce_type_name(type), i, v, float_bits(v), got[i].has, want);
        }
        assert_int_equal(wrong, 0);
        clreduce_operator_release(op);
    }
    free(bits);
    free(got);
}

/* ---- flat reductions -------------------------------------------------------------------- */

/* Reduces n elements with op (NULL: with the built-in operator built_in on
 * type) on g_queue, the input at IN_OFFSET between poisoned elements, the
 * result at RESULT_OFFSET between sentinels. */
static void run_flat(clreduce_operator *op, clreduce_op built_in, clreduce_type type,
                     clreduce_variant v, const uint16_t *data, const uint16_t *data2, size_t n,
                     void *out)
{
    size_t rs = op ? clreduce_operator_result_size(op) : clreduce_result_size(built_in, type);
    size_t total = n + IN_OFFSET + 2;
    uint16_t *in = malloc(total * sizeof *in), *in2 = malloc(total * sizeof *in2);
    unsigned char res[RESULTS * 16];
    assert_non_null(in);
    assert_non_null(in2);
    for (size_t i = 0; i < total; i++)
        in[i] = in2[i] = POISON_BITS;
    memcpy(in + IN_OFFSET, data, n * sizeof *in);
    if (data2)
        memcpy(in2 + IN_OFFSET, data2, n * sizeof *in2);
    memset(res, TC_SENTINEL_BYTE, sizeof res);
    cl_mem bin = tc_make_buffer(g_ctx, total * sizeof *in, in);
    cl_mem bin2 = data2 ? tc_make_buffer(g_ctx, total * sizeof *in2, in2) : NULL;
    cl_mem bout = tc_make_buffer(g_ctx, RESULTS * rs, res);
    cl_event done = NULL;
    clreduce_status st =
        op ? clreduce_reduce_custom(g_ctx, g_queue, op, v, bin, IN_OFFSET, bin2, IN_OFFSET, n,
                                    bout, RESULT_OFFSET, 0, NULL, &done)
           : clreduce_reduce(g_ctx, g_queue, built_in, type, v, bin, IN_OFFSET, n, bout,
                             RESULT_OFFSET, 0, NULL, &done);
    if (st != CLREDUCE_SUCCESS)
        print_error("n=%zu %s: %s: %s\n", n, clreduce_variant_name(v), clreduce_status_string(st),
                    clreduce_last_error(g_ctx));
    assert_int_equal(st, CLREDUCE_SUCCESS);
    tc_read_buffer(g_queue, bout, res, RESULTS * rs, 1, &done);
    clReleaseEvent(done);
    for (size_t i = 0; i < RESULTS * rs; i++)
        if (i / rs != RESULT_OFFSET)
            assert_int_equal(res[i], TC_SENTINEL_BYTE);
    memcpy(out, res + RESULT_OFFSET * rs, rs);
    clReleaseMemObject(bin);
    if (bin2)
        clReleaseMemObject(bin2);
    clReleaseMemObject(bout);
    free(in);
    free(in2);
}

static void test_sum(void **state)
{
    (void)state;
    uint16_t *data = malloc(TC_LARGE_COUNT * sizeof *data);
    assert_non_null(data);
    for (size_t t = 0; t < ARRAY_SIZE(storage_types); t++) {
        clreduce_type type = storage_types[t];
        clreduce_operator *op = create_or_fail(sum_desc, type);
        for (size_t s = 0; s < ARRAY_SIZE(sizes) && sizes[s] <= max_count(); s++) {
            double want;
            fill_quarters(type, data, sizes[s], 15, &want);
            for (size_t vi = 0; vi < ARRAY_SIZE(variants); vi++) {
                float got;
                run_flat(op, 0, 0, variants[vi], data, NULL, sizes[s], &got);
                if ((double)got != want)
                    print_error("%s n=%zu %s: got %.9g, want %.9g\n", clreduce_type_name(type),
                                sizes[s], clreduce_variant_name(variants[vi]), got, want);
                assert_true((double)got == want);
            }
        }
        clreduce_operator_release(op);
    }
    free(data);
}

static void test_stats(void **state)
{
    (void)state;
    uint16_t *data = malloc(TC_LARGE_COUNT * sizeof *data);
    assert_non_null(data);
    for (size_t t = 0; t < ARRAY_SIZE(storage_types); t++) {
        clreduce_type type = storage_types[t];
        clreduce_operator *op = create_or_fail(stats_desc, type);
        for (size_t s = 0; s < ARRAY_SIZE(sizes) && sizes[s] <= max_count(); s++) {
            size_t n = sizes[s];
            double unused;
            fill_quarters(type, data, n, 255, &unused);
            stats want = {INFINITY, -INFINITY, (uint32_t)n}, got;
            for (size_t i = 0; i < n; i++) {
                want.lo = fminf(want.lo, storage_value(type, data[i]));
                want.hi = fmaxf(want.hi, storage_value(type, data[i]));
            }
            run_flat(op, 0, 0, CLREDUCE_AUTO, data, NULL, n, &got);
            if (got.lo != want.lo || got.hi != want.hi || got.count != want.count)
                print_error("%s n=%zu: got {%g, %g, %u}, want {%g, %g, %u}\n",
                            clreduce_type_name(type), n, got.lo, got.hi, got.count, want.lo,
                            want.hi, want.count);
            assert_true(got.lo == want.lo && got.hi == want.hi && got.count == want.count);
        }
        clreduce_operator_release(op);
    }
    free(data);
}

static void test_dot(void **state)
{
    (void)state;
    uint16_t *x = malloc(TC_LARGE_COUNT * sizeof *x), *y = malloc(TC_LARGE_COUNT * sizeof *y);
    assert_non_null(x);
    assert_non_null(y);
    for (size_t t = 0; t < ARRAY_SIZE(storage_types); t++) {
        clreduce_type type = storage_types[t];
        clreduce_operator *op = create_or_fail(dot_desc, type);
        for (size_t s = 0; s < ARRAY_SIZE(sizes) && sizes[s] <= max_count(); s++) {
            size_t n = sizes[s];
            double unused, want = 0; /* products of quarters of |k| <= 3: exact */
            fill_quarters(type, x, n, 3, &unused);
            fill_quarters(type, y, n, 3, &unused);
            for (size_t i = 0; i < n; i++)
                want += (double)storage_value(type, x[i]) * storage_value(type, y[i]);
            float got;
            run_flat(op, 0, 0, CLREDUCE_AUTO, x, y, n, &got);
            if ((double)got != want)
                print_error("%s n=%zu: got %.9g, want %.9g\n", clreduce_type_name(type), n, got,
                            want);
            assert_true((double)got == want);
        }
        clreduce_operator_release(op);
    }
    free(x);
    free(y);
}

/* ---- rows, segments, scans ------------------------------------------------------------- */

static void test_rows(void **state)
{
    (void)state;
    static const size_t lengths[] = {0, 1, 31, 33, 1025, 4097};
    for (size_t t = 0; t < ARRAY_SIZE(storage_types); t++) {
        clreduce_type type = storage_types[t];
        clreduce_operator *op = create_or_fail(sum_desc, type);
        for (size_t l = 0; l < ARRAY_SIZE(lengths) && 37 * lengths[l] <= max_count(); l++) {
            size_t rows = 37, length = lengths[l], pitch = length + 3, span = rows * pitch;
            uint16_t *data = malloc(span * sizeof *data);
            float *got = malloc(rows * sizeof *got);
            assert_non_null(data);
            assert_non_null(got);
            double unused;
            fill_quarters(type, data, span, 15, &unused);
            for (size_t r = 0; r < rows; r++)
                for (size_t i = length; i < pitch; i++)
                    data[r * pitch + i] = POISON_BITS;
            assert_int_equal(clreduce_reduce_rows_custom_host(g_ctx, op, data, NULL, rows, length,
                                                              pitch, got),
                             CLREDUCE_SUCCESS);
            for (size_t r = 0; r < rows; r++) {
                double want = 0;
                for (size_t i = 0; i < length; i++)
                    want += storage_value(type, data[r * pitch + i]);
                if ((double)got[r] != want)
                    print_error("%s row %zu of %zu: got %.9g, want %.9g\n",
                                clreduce_type_name(type), r, length, got[r], want);
                assert_true((double)got[r] == want);
            }
            free(data);
            free(got);
        }
        clreduce_operator_release(op);
    }
}

static void test_segments(void **state)
{
    (void)state;
    size_t segments = 500, count = 0;
    uint32_t *offsets = malloc((segments + 1) * sizeof *offsets);
    assert_non_null(offsets);
    offsets[0] = 0;
    for (size_t s = 0; s < segments; s++) {
        size_t k = tc_rand_below(8);
        count += k == 0 ? 0 : k < 6 ? tc_rand_below(40) : tc_rand_below(20000);
        if (count > max_count())
            count = max_count();
        offsets[s + 1] = (uint32_t)count;
    }
    uint16_t *data = malloc((count + 1) * sizeof *data);
    float *got = malloc(segments * sizeof *got);
    assert_non_null(data);
    assert_non_null(got);
    for (size_t t = 0; t < ARRAY_SIZE(storage_types); t++) {
        clreduce_type type = storage_types[t];
        clreduce_operator *op = create_or_fail(sum_desc, type);
        double unused;
        fill_quarters(type, data, count, 15, &unused);
        assert_int_equal(clreduce_reduce_segments_custom_host(g_ctx, op, data, NULL, count,
                                                              offsets, CLREDUCE_UINT32, segments,
                                                              got),
                         CLREDUCE_SUCCESS);
        for (size_t s = 0; s < segments; s++) {
            double want = 0;
            for (size_t i = offsets[s]; i < offsets[s + 1]; i++)
                want += storage_value(type, data[i]);
            if ((double)got[s] != want)
                print_error("%s segment %zu [%u, %u): got %.9g, want %.9g\n",
                            clreduce_type_name(type), s, offsets[s], offsets[s + 1], got[s], want);
            assert_true((double)got[s] == want);
        }
        clreduce_operator_release(op);
    }
    free(offsets);
    free(data);
    free(got);
}

static void test_scan(void **state)
{
    (void)state;
    static const size_t counts[] = {1, 257, 4097, TC_LARGE_COUNT};
    uint16_t *data = malloc(TC_LARGE_COUNT * sizeof *data);
    float *got = malloc(TC_LARGE_COUNT * sizeof *got);
    assert_non_null(data);
    assert_non_null(got);
    for (size_t t = 0; t < ARRAY_SIZE(storage_types); t++) {
        clreduce_type type = storage_types[t];
        clreduce_operator *op = create_or_fail(sum_desc, type);
        for (size_t c = 0; c < ARRAY_SIZE(counts) && counts[c] <= max_count(); c++) {
            size_t n = counts[c];
            double unused, want = 0;
            fill_quarters(type, data, n, 15, &unused);
            assert_int_equal(clreduce_scan_custom_host(g_ctx, op, CLREDUCE_EXCLUSIVE,
                                                       CLREDUCE_SCAN_AUTO, data, NULL, n, got),
                             CLREDUCE_SUCCESS);
            for (size_t i = 0; i < n; i++) {
                if ((double)got[i] != want)
                    print_error("%s n=%zu: element %zu: got %.9g, want %.9g\n",
                                clreduce_type_name(type), n, i, got[i], want);
                assert_true((double)got[i] == want);
                want += storage_value(type, data[i]);
            }
        }
        clreduce_operator_release(op);
    }
    free(data);
    free(got);
}

/* ---- the built-in sum, min and max --------------------------------------------------- */

static const clreduce_op built_in_ops[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_MAX};

/* types.cl's float min and max: NaN propagates, -0.0 orders below +0.0. */
static float combine(clreduce_op op, float a, float b)
{
    if (op == CLREDUCE_OP_SUM)
        return a + b;
    int a_first = op == CLREDUCE_OP_MIN ? a < b || (a == b && signbit(a))
                                        : a > b || (a == b && !signbit(a));
    return isnan(a) || a_first ? a : b;
}

static float identity(clreduce_op op)
{
    return op == CLREDUCE_OP_SUM ? 0.0f : op == CLREDUCE_OP_MIN ? INFINITY : -INFINITY;
}

/* The reduction of n elements by op (sums of quarters of |k| <= 15 are
 * exact in float, in any order). */
static float reference(clreduce_op op, clreduce_type type, const uint16_t *x, size_t n)
{
    float acc = identity(op);
    for (size_t i = 0; i < n; i++)
        acc = combine(op, acc, storage_value(type, x[i]));
    return acc;
}

/* Same value, and for min and max the same bits (any NaN for a NaN). */
static int same_result(clreduce_op op, float got, float want)
{
    if (isnan(want))
        return isnan(got);
    return op == CLREDUCE_OP_SUM ? got == want : float_bits(got) == float_bits(want);
}

/* Quarters for op (|k| <= 15 for sums, 255 else), some of them -0.0 and,
 * where `nan` says, one NaN. */
static void fill_for(clreduce_op op, clreduce_type type, uint16_t *data, size_t n, int nan)
{
    double unused;
    fill_quarters(type, data, n, op == CLREDUCE_OP_SUM ? 15 : 255, &unused);
    for (size_t i = 0; i < n / 16 + 1; i++)
        data[tc_rand_below(n)] = 0x8000;
    if (nan)
        data[tc_rand_below(n)] = type == CLREDUCE_HALF ? 0x7e00 : 0x7fc0;
}

static void test_built_in_flat(void **state)
{
    (void)state;
    uint16_t *data = malloc(TC_LARGE_COUNT * sizeof *data);
    assert_non_null(data);
    for (size_t t = 0; t < ARRAY_SIZE(storage_types); t++) {
        clreduce_type type = storage_types[t];
        for (size_t o = 0; o < ARRAY_SIZE(built_in_ops); o++) {
            clreduce_op op = built_in_ops[o];
            assert_int_equal(clreduce_result_size(op, type), sizeof(float));
            for (size_t s = 0; s < ARRAY_SIZE(sizes) && sizes[s] <= max_count(); s++) {
                size_t n = sizes[s];
                fill_for(op, type, data, n, op != CLREDUCE_OP_SUM && s % 2);
                float want = reference(op, type, data, n), got;
                for (size_t vi = 0; vi < ARRAY_SIZE(variants); vi++) {
                    run_flat(NULL, op, type, variants[vi], data, NULL, n, &got);
                    if (!same_result(op, got, want))
                        print_error("%s %s n=%zu %s: got %a, want %a\n", clreduce_op_name(op),
                                    clreduce_type_name(type), n,
                                    clreduce_variant_name(variants[vi]), got, want);
                    assert_true(same_result(op, got, want));
                }
                assert_int_equal(clreduce_reduce_host(g_ctx, op, type, CLREDUCE_AUTO, data, n,
                                                      &got),
                                 CLREDUCE_SUCCESS);
                assert_true(same_result(op, got, want));
            }
            /* Zeros of both signs: min -0.0, max +0.0. */
            for (size_t i = 0; i < 4097; i++)
                data[i] = (uint16_t)(tc_rand_below(2) << 15);
            float got;
            assert_int_equal(clreduce_reduce_host(g_ctx, op, type, CLREDUCE_AUTO, data, 4097,
                                                  &got),
                             CLREDUCE_SUCCESS);
            assert_true(same_result(op, got, reference(op, type, data, 4097)));
        }
    }
    free(data);
}

static void test_built_in_batched(void **state)
{
    (void)state;
    size_t rows = 23, length = 1025, pitch = 1031, span = rows * pitch;
    uint16_t *data = malloc(span * sizeof *data);
    float *got = malloc(span * sizeof *got);
    uint32_t offsets[] = {0, 0, 1, 33, 33, 1057, 5000, (uint32_t)span};
    size_t segments = ARRAY_SIZE(offsets) - 1;
    assert_non_null(data);
    assert_non_null(got);
    for (size_t t = 0; t < ARRAY_SIZE(storage_types); t++) {
        clreduce_type type = storage_types[t];
        for (size_t o = 0; o < ARRAY_SIZE(built_in_ops); o++) {
            clreduce_op op = built_in_ops[o];
            const char *what = clreduce_op_name(op);
            fill_for(op, type, data, span, op != CLREDUCE_OP_SUM);
            assert_int_equal(clreduce_reduce_rows_host(g_ctx, op, type, data, rows, length, pitch,
                                                       got),
                             CLREDUCE_SUCCESS);
            for (size_t r = 0; r < rows; r++)
                assert_true(same_result(op, got[r], reference(op, type, data + r * pitch, length)));
            assert_int_equal(clreduce_reduce_segments_host(g_ctx, op, type, data, span, offsets,
                                                           CLREDUCE_UINT32, segments, got),
                             CLREDUCE_SUCCESS);
            for (size_t g = 0; g < segments; g++)
                assert_true(same_result(op, got[g], reference(op, type, data + offsets[g],
                                                               offsets[g + 1] - offsets[g])));
            for (int kind = CLREDUCE_INCLUSIVE; kind <= CLREDUCE_EXCLUSIVE; kind++) {
                assert_int_equal(clreduce_scan_host(g_ctx, op, type, (clreduce_scan_kind)kind,
                                                    CLREDUCE_SCAN_AUTO, data, span, got),
                                 CLREDUCE_SUCCESS);
                float acc = identity(op);
                for (size_t i = 0; i < span; i++) {
                    float next = combine(op, acc, storage_value(type, data[i]));
                    float want = kind == CLREDUCE_INCLUSIVE ? next : acc;
                    if (!same_result(op, got[i], want))
                        print_error("%s %s scan: element %zu: got %a, want %a\n", what,
                                    clreduce_type_name(type), i, got[i], want);
                    assert_true(same_result(op, got[i], want));
                    acc = next;
                }
                /* Rows of floats at the input's pitch, in elements. */
                memset(got, TC_SENTINEL_BYTE, span * sizeof *got);
                assert_int_equal(clreduce_scan_rows_host(g_ctx, op, type,
                                                         (clreduce_scan_kind)kind, data, rows,
                                                         length, pitch, got),
                                 CLREDUCE_SUCCESS);
                for (size_t r = 0; r < rows; r++) {
                    acc = identity(op);
                    for (size_t i = 0; i < length; i++) {
                        float next = combine(op, acc, storage_value(type, data[r * pitch + i]));
                        assert_true(same_result(op, got[r * pitch + i],
                                                kind == CLREDUCE_INCLUSIVE ? next : acc));
                        acc = next;
                    }
                }
            }
        }
    }
    free(data);
    free(got);
}

/* ---- what the built-in operators refuse --------------------------------------------------- */

static void test_refusals(void **state)
{
    (void)state;
    uint16_t data[16] = {0};
    for (size_t t = 0; t < ARRAY_SIZE(storage_types); t++) {
        clreduce_type type = storage_types[t];
        assert_int_equal(clreduce_type_size(type), 2);
        assert_non_null(clreduce_type_name(type));
        assert_int_equal(clreduce_result_size(CLREDUCE_OP_ARGMAX, type), 0);
        assert_int_equal(clreduce_result_size(CLREDUCE_OP_MEAN_VAR, type), 0);
        unsigned char out[32];
        memset(out, TC_SENTINEL_BYTE, sizeof out);
        assert_int_equal(clreduce_reduce_host(g_ctx, CLREDUCE_OP_ARGMAX, type, CLREDUCE_AUTO,
                                              data, 16, out),
                         CLREDUCE_ERROR_INVALID_ARGUMENT);
        assert_true(tc_contains(clreduce_last_error(g_ctx), "storage type"));
        assert_int_equal(clreduce_scan_host(g_ctx, CLREDUCE_OP_MINMAX, type, CLREDUCE_INCLUSIVE,
                                            CLREDUCE_SCAN_AUTO, data, 16, out),
                         CLREDUCE_ERROR_INVALID_ARGUMENT);
        assert_int_equal(clreduce_reduce_host(g_ctx, CLREDUCE_OP_SUM, type, CLREDUCE_SEQUENTIAL,
                                              data, 16, out),
                         CLREDUCE_ERROR_UNSUPPORTED);
        assert_int_equal(clreduce_check_support(g_ctx, CLREDUCE_OP_MAX, type, CLREDUCE_AUTO),
                         CLREDUCE_SUCCESS);
        clreduce_op ops[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MAX};
        void *const results[] = {out, out + 8};
        assert_int_equal(clreduce_reduce_multi_host(g_ctx, ops, 2, type, CLREDUCE_AUTO, data, 16,
                                                    results),
                         CLREDUCE_ERROR_INVALID_ARGUMENT);
        assert_true(tc_contains(clreduce_last_error(g_ctx), "storage type"));
        for (size_t i = 0; i < sizeof out; i++)
            assert_int_equal(out[i], TC_SENTINEL_BYTE);
    }
    /* Past the last type. */
    assert_int_equal(clreduce_type_size((clreduce_type)(CLREDUCE_BFLOAT16 + 1)), 0);
    clreduce_operator_desc d = sum_desc;
    d.input_type = (clreduce_type)(CLREDUCE_BFLOAT16 + 1);
    clreduce_operator *op = (clreduce_operator *)&d;
    assert_int_equal(clreduce_operator_create(g_ctx, &d, &op), CLREDUCE_ERROR_INVALID_ARGUMENT);
    assert_null(op);
}

int main(void)
{
    g_ctx = tc_start("unit.storage", &g_queue, NULL);
    struct CMUnitTest tests[10];
    size_t nt = 0;
    tc_add_test(tests, &nt, "refusals", test_refusals, NULL);
    tc_add_test(tests, &nt, "built_in_flat", test_built_in_flat, NULL);
    tc_add_test(tests, &nt, "built_in_batched", test_built_in_batched, NULL);
    tc_add_test(tests, &nt, "all_bits", test_all_bits, NULL);
    tc_add_test(tests, &nt, "sum", test_sum, NULL);
    tc_add_test(tests, &nt, "stats", test_stats, NULL);
    tc_add_test(tests, &nt, "dot", test_dot, NULL);
    tc_add_test(tests, &nt, "rows", test_rows, NULL);
    tc_add_test(tests, &nt, "segments", test_segments, NULL);
    tc_add_test(tests, &nt, "scan", test_scan, NULL);
    int failed = tc_run_tests("unit.storage", tests, nt);
    return tc_finish(g_ctx, failed, g_queue, NULL);
}
