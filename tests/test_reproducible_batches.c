/* unit.reproducible_batches: a reproducible context (clreduce_settings'
 * reproducible). Every row and every segment of a float or double sum has,
 * bit for bit, the sum that the reproducible order gives on that range
 * alone, written in C (test_fixed_order.h): rows of lengths around the
 * kernels' limits (one work-item per row up to 16 lanes of a step, a
 * work-group per tile, levels of tiles), pitched, at offsets, between
 * poisoned results; CSR segments that mix empty, short, one-tile and
 * many-tile ones, several starting in one tile, with 32- and 64-bit
 * offsets; 20000 short ones; sums of squares and of absolute values; signed zeros; offsets
 * that decrease (nothing written outside the results); an out-of-order
 * queue. The flat reductions with AUTO take the order too. Refused,
 * with a message and nothing written: what the context cannot make
 * reproducible. Allowed and unchanged: min, max, argmax and integer sums.
 *
 * CLREDUCE_TEST_SEED=n repeats a run's random data; CLREDUCE_TEST_FILTER=glob
 * runs only the matching tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clreduce/clreduce.h"
#include "test_common.h"
#include "test_fixed_order.h"

static clreduce_ctx *g_plain; /* the default context */
static clreduce_ctx *g_ctx;   /* a reproducible one on the same device */
static cl_command_queue g_queue;
static cl_command_queue g_use; /* the queue the calls take: g_queue, or an out-of-order one */

#define RESULT_OFFSET 2
#define POISON 0x7f

static const clreduce_type float_types[] = {CLREDUCE_FLOAT, CLREDUCE_DOUBLE};

static size_t tile_of(clreduce_type type)
{
    return (size_t)LANES * STEPS * (16 / clreduce_type_size(type));
}

/* Elements a work-item sums alone: 16 lanes of 16 bytes. */
static size_t short_of(clreduce_type type)
{
    return 16 * (16 / clreduce_type_size(type));
}

/* Whether the reproducible context sums type here; says why not. */
static int takes(clreduce_type type)
{
    if (!tc_type_supported(g_ctx, type))
        return 0;
    clreduce_status st = clreduce_check_support(g_ctx, CLREDUCE_OP_SUM, type, CLREDUCE_AUTO);
    if (st == CLREDUCE_SUCCESS)
        return 1;
    print_message("note: reproducible %s sums not run here: %s\n", tc_type_name(type),
                  clreduce_last_error(g_ctx));
    assert_int_equal(st, CLREDUCE_ERROR_UNSUPPORTED);
    return 0;
}

/* Checks results [RESULT_OFFSET, RESULT_OFFSET + count) of `got` against the
 * order's sums of the ranges [begin[i], begin[i] + length[i]) of data, and
 * the poisoned results around them. */
static void expect_ranges(clreduce_type type, const void *data, const size_t *begin,
                          const size_t *length, size_t count, const unsigned char *got,
                          const char *what)
{
    size_t es = clreduce_type_size(type);
    unsigned char want[8], poison[8];
    memset(poison, POISON, sizeof poison);
    for (size_t i = 0; i < RESULT_OFFSET; i++)
        assert_memory_equal(got + i * es, poison, es);
    assert_memory_equal(got + (RESULT_OFFSET + count) * es, poison, es);
    for (size_t i = 0; i < count; i++) {
        host_sum(type, (const unsigned char *)data + begin[i] * es, length[i], want);
        if (memcmp(got + (RESULT_OFFSET + i) * es, want, es) != 0) {
            print_error("%s %s range %zu of %zu (%zu elements at %zu): got %.17g, the order "
                        "gives %.17g\n",
                        what, tc_type_name(type), i, count, length[i], begin[i],
                        tc_get_double(type, got + RESULT_OFFSET * es, i),
                        tc_get_double(type, want, 0));
            fail();
        }
    }
}

/* The rows of data (n elements) at `offset`, into `got` (rows + RESULT_OFFSET
 * + 1 results, poisoned first). */
static clreduce_status run_rows(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                                const void *data, size_t n, size_t offset, size_t rows,
                                size_t length, size_t pitch, unsigned char *got)
{
    size_t rs = clreduce_result_size(op, type), slots = rows + RESULT_OFFSET + 1;
    memset(got, POISON, slots * rs);
    cl_mem in = tc_make_buffer(ctx, n * clreduce_type_size(type), data);
    cl_mem res = tc_make_buffer(ctx, slots * rs, got);
    cl_event done = NULL;
    clreduce_status st = clreduce_reduce_rows(ctx, g_use, op, type, in, offset, rows, length,
                                              pitch, res, RESULT_OFFSET, 0, NULL, &done);
    tc_read_buffer(g_use, res, got, slots * rs, done ? 1 : 0, done ? &done : NULL);
    if (done)
        clReleaseEvent(done);
    clReleaseMemObject(in);
    clReleaseMemObject(res);
    return st;
}

/* The segments of data (n elements from `offset`) that offsets[1 ..
 * segments + 1] delimit (offsets_type, offsets_offset 1), into `got`. */
static clreduce_status run_segments(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                                    const void *data, size_t n, size_t offset,
                                    const uint64_t *offsets, size_t segments,
                                    clreduce_type offsets_type, unsigned char *got)
{
    size_t rs = clreduce_result_size(op, type), slots = segments + RESULT_OFFSET + 1;
    size_t os = clreduce_type_size(offsets_type);
    unsigned char *packed = malloc((segments + 2) * os);
    assert_non_null(packed);
    for (size_t i = 0; i <= segments; i++)
        if (os == 4)
            ((uint32_t *)packed)[i + 1] = (uint32_t)offsets[i];
        else
            ((uint64_t *)packed)[i + 1] = offsets[i];
    memset(packed, 0xff, os); /* before the offsets: never read */
    memset(got, POISON, slots * rs);
    cl_mem in = tc_make_buffer(ctx, (offset + n) * clreduce_type_size(type), NULL);
    if (offset + n)
        assert_int_equal(clEnqueueWriteBuffer(g_use, in, CL_TRUE, 0,
                                              (offset + n) * clreduce_type_size(type), data, 0,
                                              NULL, NULL),
                         CL_SUCCESS);
    cl_mem offs = tc_make_buffer(ctx, (segments + 2) * os, packed);
    cl_mem res = tc_make_buffer(ctx, slots * rs, got);
    cl_event done = NULL;
    clreduce_status st = clreduce_reduce_segments(ctx, g_use, op, type, in, offset, n, offs, 1,
                                                  offsets_type, segments, res, RESULT_OFFSET, 0,
                                                  NULL, &done);
    tc_read_buffer(g_use, res, got, slots * rs, done ? 1 : 0, done ? &done : NULL);
    if (done)
        clReleaseEvent(done);
    clReleaseMemObject(in);
    clReleaseMemObject(offs);
    clReleaseMemObject(res);
    free(packed);
    return st;
}

/* ---- tests -------------------------------------------------------------------------------- */

/* Rows of every length around the kernels' limits, several counts of rows,
 * a pitch past the length and an offset. */
static void test_rows(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = float_types[ti];
        if (!takes(type))
            continue;
        size_t tile = tile_of(type), sm = short_of(type), es = clreduce_type_size(type);
        size_t step = tile / 16; /* a step of the order's lanes */
        /* every squad size and count of lanes a work-item, one step and
         * past it, one tile and past it */
        const size_t lengths[] = {1,        2,        3,    5,        13,       29,
                                  sm - 1,   sm,       sm + 1, 255,    511,      step - 1,
                                  step,     step + 1, tile - 1, tile, tile + 1, 3 * tile + 7};
        /* rows longer than a step: a work-group a tile for 1 and 3, squads
         * for 37 */
        const size_t row_counts[] = {1, 3, 37};
        for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++)
            for (size_t ri = 0; ri < 3; ri++) {
                size_t length = lengths[li], rows = row_counts[ri], pitch = length + 3;
                size_t offset = 5, n = offset + (rows - 1) * pitch + length;
                if (length > tile && rows > 3)
                    continue; /* long rows: few are enough */
                void *data = malloc(n * es);
                unsigned char *got = malloc((rows + RESULT_OFFSET + 1) * es);
                size_t *begin = malloc(rows * sizeof *begin), *len = malloc(rows * sizeof *len);
                assert_true(data && got && begin && len);
                fill_wide(type, data, n);
                for (size_t r = 0; r < rows; r++) {
                    begin[r] = offset + r * pitch;
                    len[r] = length;
                }
                assert_int_equal(run_rows(g_ctx, CLREDUCE_OP_SUM, type, data, n, offset, rows,
                                          length, pitch, got),
                                 CLREDUCE_SUCCESS);
                expect_ranges(type, data, begin, len, rows, got, "rows");
                free(data);
                free(got);
                free(begin);
                free(len);
            }
    }
}

/* A row of 70 tiles and a few: a second level of several tiles, reduced in
 * place by one work-group. */
static void test_long_rows(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = float_types[ti];
        if (!takes(type))
            continue;
        size_t length = 70 * tile_of(type) + 5, rows = 2, n = rows * length,
               es = clreduce_type_size(type);
        void *data = malloc(n * es);
        unsigned char got[(2 + RESULT_OFFSET + 1) * 8];
        assert_non_null(data);
        fill_wide(type, data, n);
        size_t begin[2] = {0, length}, len[2] = {length, length};
        assert_int_equal(run_rows(g_ctx, CLREDUCE_OP_SUM, type, data, n, 0, rows, length, 0, got),
                         CLREDUCE_SUCCESS);
        expect_ranges(type, data, begin, len, rows, got, "long rows");
        free(data);
    }
}

/* Segment lengths: empty, short, at the limits, one tile, many tiles; a
 * many-tile segment after short ones that start in the same tile, and two
 * many-tile segments in a row. */
static size_t segment_length(clreduce_type type, size_t i)
{
    size_t tile = tile_of(type), sm = short_of(type);
    const size_t fixed[] = {0,       1,        sm,       sm + 1,       0,
                            7,       2 * tile, 3,        tile,         tile + 1,
                            5,       9,        4 * tile + 17, 3 * tile - 2, 0};
    if (i < sizeof fixed / sizeof *fixed)
        return fixed[i];
    switch (tc_rand_below(6)) {
    case 0: return 0;
    case 1: return 1 + tc_rand_below(sm);
    case 2: return sm + 1 + tc_rand_below(tile);
    case 3: return tile + tc_rand_below(3 * tile);
    default: return tc_rand_below(40);
    }
}

static void test_segments(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = float_types[ti];
        if (!takes(type))
            continue;
        for (int wide = 0; wide < 2; wide++) {
            size_t segments = 200, es = clreduce_type_size(type), offset = 3;
            uint64_t *offsets = malloc((segments + 1) * sizeof *offsets);
            size_t *begin = malloc(segments * sizeof *begin), *len = malloc(segments * sizeof *len);
            assert_true(offsets && begin && len);
            offsets[0] = 0;
            for (size_t s = 0; s < segments; s++) {
                len[s] = segment_length(type, s);
                offsets[s + 1] = offsets[s] + len[s];
                begin[s] = offset + offsets[s];
            }
            size_t n = (size_t)offsets[segments];
            void *data = malloc((offset + n) * es);
            unsigned char *got = malloc((segments + RESULT_OFFSET + 1) * es);
            assert_true(data && got);
            fill_wide(type, data, offset + n);
            assert_int_equal(run_segments(g_ctx, CLREDUCE_OP_SUM, type, data, n, offset, offsets,
                                          segments, wide ? CLREDUCE_UINT64 : CLREDUCE_UINT32,
                                          got),
                             CLREDUCE_SUCCESS);
            expect_ranges(type, data, begin, len, segments, got, "segments");
            free(offsets);
            free(begin);
            free(len);
            free(data);
            free(got);
        }
    }
}

/* Sums of squares and of absolute values of rows and segments, and the
 * flat ones (AUTO, and dot), in the order: the bits of the order's sum of
 * the mapped values. */
static void test_maps(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = float_types[ti];
        if (!takes(type))
            continue;
        size_t tile = tile_of(type), es = clreduce_type_size(type);
        size_t length = 2 * tile + 9, rows = 3, n = rows * length;
        unsigned char *x = malloc(n * es), *mapped = malloc(n * es), *y = malloc(n * es);
        unsigned char got[(3 + RESULT_OFFSET + 1) * 8], want[8];
        assert_true(x && mapped && y);
        fill_wide(type, x, n);
        fill_wide(type, y, n);
        for (int abs = 0; abs < 2; abs++) {
            clreduce_op op = abs ? CLREDUCE_OP_SUM_ABS : CLREDUCE_OP_SUM_SQUARES;
            map_values(type, abs ? 2 : 1, x, NULL, n, mapped);
            size_t begin[3] = {0, length, 2 * length}, len[3] = {length, 40, length - 1};
            /* Rows of several tiles each; segments of several tiles, of 40
             * (one work-item) and of several tiles again. */
            assert_int_equal(run_rows(g_ctx, op, type, x, n, 0, rows, length, 0, got),
                             CLREDUCE_SUCCESS);
            size_t full[3] = {length, length, length};
            expect_ranges(type, mapped, begin, full, rows, got, clreduce_op_name(op));
            uint64_t offsets[4] = {0, length, length + 40, n - 1};
            assert_int_equal(run_segments(g_ctx, op, type, x, n, 0, offsets, 3, CLREDUCE_UINT64,
                                          got),
                             CLREDUCE_SUCCESS);
            size_t seg_begin[3] = {0, length, length + 40};
            len[2] = n - 1 - (length + 40);
            expect_ranges(type, mapped, seg_begin, len, 3, got, clreduce_op_name(op));
            assert_int_equal(clreduce_reduce_host(g_ctx, op, type, CLREDUCE_AUTO, x, n, got),
                             CLREDUCE_SUCCESS);
            host_sum(type, mapped, n, want);
            assert_memory_equal(got, want, es);
        }
        map_values(type, 3, x, y, n, mapped);
        assert_int_equal(clreduce_dot_host(g_ctx, type, CLREDUCE_AUTO, x, y, n, got),
                         CLREDUCE_SUCCESS);
        host_sum(type, mapped, n, want);
        assert_memory_equal(got, want, es);
        free(x);
        free(y);
        free(mapped);
    }
}

/* 20000 segments of 0 to 100 elements: rounds of a work-group's segments,
 * most of them short (a work-item each), a third of them not. */
static void test_many_segments(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = float_types[ti];
        if (!takes(type))
            continue;
        size_t segments = 20000, es = clreduce_type_size(type);
        uint64_t *offsets = malloc((segments + 1) * sizeof *offsets);
        size_t *begin = malloc(segments * sizeof *begin), *len = malloc(segments * sizeof *len);
        assert_true(offsets && begin && len);
        offsets[0] = 0;
        for (size_t s = 0; s < segments; s++) {
            len[s] = tc_rand_below(101);
            begin[s] = (size_t)offsets[s];
            offsets[s + 1] = offsets[s] + len[s];
        }
        size_t n = (size_t)offsets[segments];
        void *data = malloc(n * es);
        unsigned char *got = malloc((segments + RESULT_OFFSET + 1) * es);
        assert_true(data && got);
        fill_wide(type, data, n);
        assert_int_equal(run_segments(g_ctx, CLREDUCE_OP_SUM, type, data, n, 0, offsets, segments,
                                      CLREDUCE_UINT32, got),
                         CLREDUCE_SUCCESS);
        expect_ranges(type, data, begin, len, segments, got, "many segments");
        free(offsets);
        free(begin);
        free(len);
        free(data);
        free(got);
    }
}

/* One segment of everything, and the flat reduction (AUTO) of the same:
 * the same bits, those of the order. */
static void test_one_segment_and_flat(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = float_types[ti];
        if (!takes(type))
            continue;
        size_t n = 5 * tile_of(type) + 11, es = clreduce_type_size(type);
        void *data = malloc(n * es);
        unsigned char got[(1 + RESULT_OFFSET + 1) * 8], flat[8], want[8];
        assert_non_null(data);
        fill_wide(type, data, n);
        uint64_t offsets[2] = {0, n};
        size_t begin = 0;
        assert_int_equal(run_segments(g_ctx, CLREDUCE_OP_SUM, type, data, n, 0, offsets, 1,
                                      CLREDUCE_UINT64, got),
                         CLREDUCE_SUCCESS);
        expect_ranges(type, data, &begin, &n, 1, got, "one segment");
        assert_int_equal(clreduce_reduce_host(g_ctx, CLREDUCE_OP_SUM, type, CLREDUCE_AUTO, data, n,
                                              flat),
                         CLREDUCE_SUCCESS);
        host_sum(type, data, n, want);
        assert_memory_equal(flat, want, es);
        free(data);
    }
}

/* Rows and segments of -0.0 sum to +0.0, as the order's accumulators,
 * which start from +0.0, give; +-inf and NaN stay. */
static void test_signed_zeros(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < 2; ti++) {
        clreduce_type type = float_types[ti];
        if (!takes(type))
            continue;
        size_t length = 1100, rows = 3, es = clreduce_type_size(type);
        void *data = malloc(rows * length * es);
        unsigned char got[(3 + RESULT_OFFSET + 1) * 8];
        assert_non_null(data);
        for (size_t i = 0; i < rows * length; i++)
            tc_set_double(type, data, i, -0.0);
        tc_set_double(type, data, length + 7, INFINITY);
        tc_set_double(type, data, 2 * length + 1, NAN);
        size_t begin[3] = {0, length, 2 * length}, len[3] = {length, length, length};
        assert_int_equal(run_rows(g_ctx, CLREDUCE_OP_SUM, type, data, rows * length, 0, rows,
                                  length, 0, got),
                         CLREDUCE_SUCCESS);
        /* Rows 0 and 1 by their bits (the poison check falls on row 2, whose
         * NaN's payload is the device's); row 2 a NaN. */
        assert_true(isnan(tc_get_double(type, got + RESULT_OFFSET * es, 2)));
        memset(got + (RESULT_OFFSET + 2) * es, POISON, es);
        expect_ranges(type, data, begin, len, 2, got, "zeros");
        assert_true(tc_get_double(type, got + RESULT_OFFSET * es, 0) == 0.0);
        assert_false(signbit(tc_get_double(type, got + RESULT_OFFSET * es, 0)));
        assert_true(tc_get_double(type, got + RESULT_OFFSET * es, 1) == INFINITY);
        /* A short row of -0.0, two whole vectors: one work-item, whose
         * accumulators start from +0.0 too. */
        size_t two = 2 * (16 / es);
        assert_int_equal(run_rows(g_ctx, CLREDUCE_OP_SUM, type, data, two, 0, 1, two, 0, got),
                         CLREDUCE_SUCCESS);
        assert_true(tc_get_double(type, got + RESULT_OFFSET * es, 0) == 0.0);
        assert_false(signbit(tc_get_double(type, got + RESULT_OFFSET * es, 0)));
        free(data);
    }
}

/* Offsets that decrease or pass the count: results unspecified, but
 * nothing is written outside them and nothing is read out of bounds. */
static void test_bad_offsets(void **state)
{
    (void)state;
    clreduce_type type = CLREDUCE_FLOAT;
    if (!takes(type))
        return;
    size_t tile = tile_of(type), n = 6 * tile;
    float *data = malloc(n * sizeof *data);
    unsigned char got[(5 + RESULT_OFFSET + 1) * 4], poison[4];
    assert_non_null(data);
    fill_wide(type, data, n);
    memset(poison, POISON, sizeof poison);
    uint64_t offsets[6] = {4 * tile + 3, 5 * tile, 1, 3 * tile, 2 * tile + 1, 100 * tile};
    assert_int_equal(run_segments(g_ctx, CLREDUCE_OP_SUM, type, data, n, 0, offsets, 5,
                                  CLREDUCE_UINT64, got),
                     CLREDUCE_SUCCESS);
    for (size_t i = 0; i < RESULT_OFFSET; i++)
        assert_memory_equal(got + i * 4, poison, 4);
    assert_memory_equal(got + (RESULT_OFFSET + 5) * 4, poison, 4);
    free(data);
}

/* A refusal: UNSUPPORTED, with "reproducible" and `word` in the message. */
static void refused(const char *what, clreduce_status st, const char *word)
{
    const char *const words[] = {"reproducible", word, NULL};
    tc_check_status_and_message(what, st, CLREDUCE_ERROR_UNSUPPORTED, g_ctx, words);
}

/* What the context cannot make reproducible is refused, with a message and
 * nothing written; min, max, argmax and integer sums run and give what a
 * plain context gives. */
static void test_refusals(void **state)
{
    (void)state;
    float f[64];
    for (size_t i = 0; i < 64; i++)
        f[i] = (float)(i % 7) - 2.5f;
    unsigned char got[64 * 16], want[64 * 16];
    const struct {
        clreduce_op op;
        clreduce_type type;
        clreduce_variant variant;
        const char *word;
    } flat[] = {
        {CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_GRID_STRIDE, "grid_stride"},
        {CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_ATOMIC, "atomic"},
        {CLREDUCE_OP_SUM_SQUARES, CLREDUCE_FLOAT, CLREDUCE_GRID_STRIDE, "grid_stride"},
        {CLREDUCE_OP_MEAN_VAR, CLREDUCE_FLOAT, CLREDUCE_AUTO, "mean_var"},
        {CLREDUCE_OP_NORM2, CLREDUCE_DOUBLE, CLREDUCE_AUTO, "norm2"},
        {CLREDUCE_OP_SUM, CLREDUCE_HALF, CLREDUCE_AUTO, "half"},
    };
    for (size_t i = 0; i < sizeof flat / sizeof *flat; i++) {
        memset(got, POISON, sizeof got);
        memcpy(want, got, sizeof got);
        refused(flat[i].word,
                clreduce_reduce_host(g_ctx, flat[i].op, flat[i].type, flat[i].variant, f, 16,
                                     got),
                flat[i].word);
        assert_memory_equal(got, want, sizeof got);
    }
    refused("dot", clreduce_dot_host(g_ctx, CLREDUCE_FLOAT, CLREDUCE_SINGLE_PASS, f, f, 64, got),
            "single_pass");
    refused("scan of sum_squares",
            clreduce_scan_host(g_ctx, CLREDUCE_OP_SUM_SQUARES, CLREDUCE_FLOAT, CLREDUCE_INCLUSIVE,
                               CLREDUCE_SCAN_AUTO, f, 64, got),
            "sum_squares");
    refused("scan rows of sum_abs",
            clreduce_scan_rows_host(g_ctx, CLREDUCE_OP_SUM_ABS, CLREDUCE_FLOAT,
                                    CLREDUCE_INCLUSIVE, f, 4, 16, 0, got),
            "sum_abs");
    refused("rows of norm2",
            clreduce_reduce_rows_host(g_ctx, CLREDUCE_OP_NORM2, CLREDUCE_FLOAT, f, 4, 16, 0, got),
            "norm2");
    const clreduce_op ops[2] = {CLREDUCE_OP_MAX, CLREDUCE_OP_SUM};
    void *const results[2] = {got, got + 16};
    refused("multi",
            clreduce_reduce_multi_host(g_ctx, ops, 2, CLREDUCE_FLOAT, CLREDUCE_AUTO, f, 64,
                                       results),
            "several operators");
    clreduce_operator_desc d = {.name = "fsum", .input_type = CLREDUCE_FLOAT, .inputs = 1,
                                .acc_type = "float", .acc_size = sizeof(float),
                                .acc_align = sizeof(float), .identity = "0.0f", .map = "x",
                                .combine = "a + b", .commutative = 1};
    clreduce_operator *op = NULL;
    assert_int_equal(clreduce_operator_create(g_ctx, &d, &op), CLREDUCE_SUCCESS);
    refused("custom", clreduce_reduce_custom_host(g_ctx, op, CLREDUCE_AUTO, f, NULL, 64, got),
            "user-defined");
    clreduce_operator_release(op);

    /* Allowed: the same results as a plain context. */
    const struct {
        clreduce_op op;
        clreduce_type type;
    } ok[] = {{CLREDUCE_OP_MAX, CLREDUCE_FLOAT},
              {CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT},
              {CLREDUCE_OP_MINMAX, CLREDUCE_FLOAT},
              {CLREDUCE_OP_SUM, CLREDUCE_INT32},
              {CLREDUCE_OP_MIN, CLREDUCE_HALF}};
    int32_t ints[64];
    for (size_t i = 0; i < 64; i++)
        ints[i] = (int32_t)(i * 2654435761u);
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        const void *in = ok[i].type == CLREDUCE_INT32 ? (const void *)ints : (const void *)f;
        size_t rs = clreduce_result_size(ok[i].op, ok[i].type);
        clreduce_status st = clreduce_reduce_rows_host(g_ctx, ok[i].op, ok[i].type, in, 4, 16, 0,
                                                       got);
        if (st != CLREDUCE_SUCCESS)
            print_error("%s of %s: %s\n", clreduce_op_name(ok[i].op), tc_type_name(ok[i].type),
                        clreduce_last_error(g_ctx));
        assert_int_equal(st, CLREDUCE_SUCCESS);
        assert_int_equal(clreduce_reduce_rows_host(g_plain, ok[i].op, ok[i].type, in, 4, 16, 0,
                                                   want),
                         CLREDUCE_SUCCESS);
        assert_memory_equal(got, want, 4 * rs);
    }
    assert_int_equal(clreduce_scan_host(g_ctx, CLREDUCE_OP_MAX, CLREDUCE_FLOAT, CLREDUCE_INCLUSIVE,
                                        CLREDUCE_SCAN_AUTO, f, 64, got),
                     CLREDUCE_SUCCESS);
}

/* Rows, long rows and segments again on an out-of-order queue, where every
 * launch of a call waits for the one before by its event and each call
 * takes temporary buffers of its own. */
static void test_out_of_order(void **state)
{
    if (!tc_device_supports_queue(g_ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
        print_message("note: the device has no out-of-order queues; not run\n");
        return;
    }
    g_use = tc_create_queue(g_ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    assert_non_null(g_use);
    test_long_rows(state);
    test_segments(state);
    test_maps(state);
    clReleaseCommandQueue(g_use);
    g_use = g_queue;
}

/* The setting takes 0 or 1; with build options that relax the math, a
 * context of it refuses its float sums. */
static void test_setting(void **state)
{
    (void)state;
    clreduce_settings s;
    clreduce_default_settings(&s);
    assert_int_equal(s.reproducible, 0);
    s.reproducible = 2;
    clreduce_ctx *c = NULL;
    assert_int_equal(clreduce_create_with_settings(clreduce_get_cl_context(g_plain),
                                                   clreduce_get_cl_device(g_plain), &s, &c),
                     CLREDUCE_ERROR_INVALID_ARGUMENT);
    assert_null(c);
    assert_true(tc_contains(clreduce_last_error(NULL), "reproducible"));
    clreduce_settings got;
    assert_int_equal(clreduce_get_tuning(g_ctx, CLREDUCE_FLOAT, &got), CLREDUCE_SUCCESS);
    assert_int_equal(got.reproducible, 1);

    /* Build options that let the compiler reorder: the context's float
     * sums are refused, with the option named; its max is not. */
    s.reproducible = 1;
    s.build_options = "-cl-unsafe-math-optimizations";
    assert_int_equal(clreduce_create_with_settings(clreduce_get_cl_context(g_plain),
                                                   clreduce_get_cl_device(g_plain), &s, &c),
                     CLREDUCE_SUCCESS);
    float f[64] = {1.0f}, res[4];
    const char *const words[] = {"reproducible", "-cl-unsafe-math-optimizations", NULL};
    tc_check_status_and_message("relaxed rows",
                                clreduce_reduce_rows_host(c, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, f, 4,
                                                          16, 0, res),
                                CLREDUCE_ERROR_UNSUPPORTED, c, words);
    assert_int_equal(
        clreduce_reduce_rows_host(c, CLREDUCE_OP_MAX, CLREDUCE_FLOAT, f, 4, 16, 0, res),
        CLREDUCE_SUCCESS);
    assert_true(res[0] == 1.0f && res[1] == 0.0f);
    clreduce_destroy(c);
}

int main(void)
{
    g_plain = tc_start("unit.reproducible_batches", &g_queue, NULL);
    g_use = g_queue;
    if (!(g_ctx = reproducible_context(g_plain)))
        return 1;
    struct CMUnitTest tests[11];
    size_t nt = 0;
    tc_add_test(tests, &nt, "rows", test_rows, NULL);
    tc_add_test(tests, &nt, "long_rows", test_long_rows, NULL);
    tc_add_test(tests, &nt, "segments", test_segments, NULL);
    tc_add_test(tests, &nt, "many_segments", test_many_segments, NULL);
    tc_add_test(tests, &nt, "one_segment_and_flat", test_one_segment_and_flat, NULL);
    tc_add_test(tests, &nt, "maps", test_maps, NULL);
    tc_add_test(tests, &nt, "signed_zeros", test_signed_zeros, NULL);
    tc_add_test(tests, &nt, "bad_offsets", test_bad_offsets, NULL);
    tc_add_test(tests, &nt, "out_of_order", test_out_of_order, NULL);
    tc_add_test(tests, &nt, "refusals", test_refusals, NULL);
    tc_add_test(tests, &nt, "setting", test_setting, NULL);
    int failed = tc_run_tests("unit.reproducible_batches", tests, nt);
    clreduce_destroy(g_ctx);
    return tc_finish(g_plain, failed, g_queue, NULL);
}
