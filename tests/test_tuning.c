/* unit.tuning: the tuning rules for devices this machine may not have, as
 * clreduce.h documents them for clreduce_get_operators_tuning(): described
 * devices (an NVIDIA GPU, CPUs of Intel's runtime and of PoCL, another
 * vendor's GPU) through the table and the rules of src/tuning.c. Each rule
 * at its bounds (rows of 8 and 9 elements, segments of a mean of 7 and 8,
 * 6 and 7 (several operators of doubles) and 127 to 513, flat ranges of
 * 2^18, 2^20 or 2^22 elements and one fewer, scans of 2^26 and one more),
 * for the operators and types it names and for some it leaves alone, and under
 * settings that fix the field, which it must not touch. No device is
 * needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "internal.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof *(a))

static device_info described(device_vendor vendor, cl_device_type type)
{
    device_info info;
    memset(&info, 0, sizeof info);
    info.vendor = vendor;
    info.type = type;
    info.compute_units = 132;
    info.max_work_group_size = 1024;
    info.local_mem_size = 48 * 1024;
    info.has_fp64 = 1;
    return info;
}

/* The device's tuning for `type`, then the rule of rows (row_length > 0)
 * or of segments (mean > 0) for op under `settings`. */
static tuning tuned(const device_info *info, const clreduce_settings *settings, clreduce_op op,
                    clreduce_type type, size_t row_length, size_t mean)
{
    tuning t;
    tuning_for_device(info, clreduce_type_size(type), settings, &t);
    if (row_length)
        tuning_for_row_operator(info, settings, op, type, row_length, &t);
    else
        tuning_for_segment_operator(info, settings, op, type, mean, &t);
    return t;
}

/* The table's tuning for `type`, no settings. */
static tuning table_tuning(const device_info *info, clreduce_type type)
{
    clreduce_settings s;
    clreduce_default_settings(&s);
    tuning t;
    tuning_for_device(info, clreduce_type_size(type), &s, &t);
    return t;
}

static unsigned table_width(const device_info *info, clreduce_type type)
{
    return table_tuning(info, type).vector_width;
}

static void test_nvidia_rows(void **state)
{
    (void)state;
    device_info nv = described(VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU);
    clreduce_settings s;
    clreduce_default_settings(&s);
    assert_true(table_width(&nv, CLREDUCE_FLOAT) > 1);
    static const clreduce_op scalar_ops[] = {CLREDUCE_OP_ARGMIN, CLREDUCE_OP_ARGMAX,
                                             CLREDUCE_OP_MINMAX, CLREDUCE_OP_MEAN_VAR};
    for (size_t i = 0; i < sizeof scalar_ops / sizeof *scalar_ops; i++) {
        for (int d = 0; d < 2; d++) {
            clreduce_type type = d ? CLREDUCE_DOUBLE : CLREDUCE_FLOAT;
            assert_int_equal(tuned(&nv, &s, scalar_ops[i], type, 1, 0).vector_width, 1);
            assert_int_equal(tuned(&nv, &s, scalar_ops[i], type, 8, 0).vector_width, 1);
            assert_int_equal(tuned(&nv, &s, scalar_ops[i], type, 9, 0).vector_width,
                             table_width(&nv, type));
        }
    }
    /* Dot keeps its vectors, and so do the types the rule does not name. */
    assert_int_equal(tuned(&nv, &s, CLREDUCE_OP_DOT, CLREDUCE_FLOAT, 4, 0).vector_width,
                     table_width(&nv, CLREDUCE_FLOAT));
    assert_int_equal(tuned(&nv, &s, CLREDUCE_OP_ARGMAX, CLREDUCE_INT32, 4, 0).vector_width,
                     table_width(&nv, CLREDUCE_INT32));
    /* Float minmax over rows of any length: work-groups of 512. */
    assert_int_equal(tuned(&nv, &s, CLREDUCE_OP_MINMAX, CLREDUCE_FLOAT, 4096, 0).work_group_size,
                     512);
    assert_int_equal(tuned(&nv, &s, CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT, 4096, 0).work_group_size,
                     256);
    /* Settings that fix a field keep it. */
    s.vector_width = 2;
    s.work_group_size = 128;
    tuning t = tuned(&nv, &s, CLREDUCE_OP_MINMAX, CLREDUCE_FLOAT, 4, 0);
    assert_int_equal(t.vector_width, 2);
    assert_int_equal(t.work_group_size, 128);
}

static void test_nvidia_segments(void **state)
{
    (void)state;
    device_info nv = described(VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU);
    clreduce_settings s;
    clreduce_default_settings(&s);
    /* Every operator segment_layouts.c asks for, any type: a mean under 8. */
    static const clreduce_op ops[] = {CLREDUCE_OP_ARGMAX, CLREDUCE_OP_NORM2, CLREDUCE_OP_DOT,
                                      CLREDUCE_OP_SUM_SQUARES};
    static const clreduce_type types[] = {CLREDUCE_FLOAT, CLREDUCE_DOUBLE, CLREDUCE_INT32};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        for (size_t j = 0; j < sizeof types / sizeof *types; j++) {
            assert_int_equal(tuned(&nv, &s, ops[i], types[j], 0, 7).vector_width, 1);
            assert_int_equal(tuned(&nv, &s, ops[i], types[j], 0, 8).vector_width,
                             table_width(&nv, types[j]));
        }
    }
    /* Sums, minima and maxima of 4-byte types alone: a mean under 8 too;
     * of 8-byte types, and over rows, the table's. */
    static const clreduce_op plain[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_MAX};
    static const clreduce_type narrow[] = {CLREDUCE_FLOAT, CLREDUCE_INT32, CLREDUCE_UINT32};
    static const clreduce_type wide[] = {CLREDUCE_DOUBLE, CLREDUCE_INT64, CLREDUCE_UINT64};
    for (size_t i = 0; i < ARRAY_SIZE(plain); i++) {
        for (size_t j = 0; j < ARRAY_SIZE(narrow); j++) {
            assert_int_equal(tuned(&nv, &s, plain[i], narrow[j], 0, 1).vector_width, 1);
            assert_int_equal(tuned(&nv, &s, plain[i], narrow[j], 0, 7).vector_width, 1);
            assert_int_equal(tuned(&nv, &s, plain[i], narrow[j], 0, 8).vector_width,
                             table_width(&nv, narrow[j]));
            assert_int_equal(tuned(&nv, &s, plain[i], narrow[j], 4, 0).vector_width,
                             table_width(&nv, narrow[j]));
            assert_int_equal(tuned(&nv, &s, plain[i], wide[j], 0, 1).vector_width,
                             table_width(&nv, wide[j]));
        }
    }
    /* Sums of 8-byte types alone over segments of a mean of 128 to 512:
     * a width of 1; their minima and maxima, and 4-byte sums, the table's. */
    for (size_t j = 0; j < ARRAY_SIZE(wide); j++) {
        unsigned w = table_width(&nv, wide[j]);
        assert_int_equal(tuned(&nv, &s, CLREDUCE_OP_SUM, wide[j], 0, 127).vector_width, w);
        assert_int_equal(tuned(&nv, &s, CLREDUCE_OP_SUM, wide[j], 0, 128).vector_width, 1);
        assert_int_equal(tuned(&nv, &s, CLREDUCE_OP_SUM, wide[j], 0, 512).vector_width, 1);
        assert_int_equal(tuned(&nv, &s, CLREDUCE_OP_SUM, wide[j], 0, 513).vector_width, w);
        assert_int_equal(tuned(&nv, &s, CLREDUCE_OP_MIN, wide[j], 0, 256).vector_width, w);
        assert_int_equal(tuned(&nv, &s, CLREDUCE_OP_MAX, wide[j], 0, 256).vector_width, w);
    }
    assert_int_equal(tuned(&nv, &s, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, 0, 256).vector_width,
                     table_width(&nv, CLREDUCE_FLOAT));
    s.vector_width = 4;
    assert_int_equal(tuned(&nv, &s, CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT, 0, 1).vector_width, 4);
    assert_int_equal(tuned(&nv, &s, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, 0, 1).vector_width, 4);
    s.vector_width = 2;
    assert_int_equal(tuned(&nv, &s, CLREDUCE_OP_SUM, CLREDUCE_DOUBLE, 0, 256).vector_width, 2);
}

/* The benchmark's trials of a rule's constant: NAME=N among the build
 * options, and nothing for a longer name, a missing or empty value. */
static void test_switch_values(void **state)
{
    (void)state;
    struct clreduce_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    static const struct {
        const char *options;
        unsigned long value;
    } cases[] = {
        {NULL, 0},
        {"", 0},
        {"-DCLR_TEST_LANES_VECTORS=8", 8},
        {"-DX=1 -DCLR_TEST_LANES_VECTORS=16 -DY=2", 16},
        {"-DCLR_TEST_LANES_VECTORS", 0},
        {"-DCLR_TEST_LANES_VECTORS=", 0},
        {"-DCLR_TEST_LANES_VECTORS=x", 0},
        {"-DCLR_TEST_LANES_VECTORS_WIDE=8", 0},
        {"-DCLR_TEST_LANES_VECTORS_WIDE=8 -DCLR_TEST_LANES_VECTORS=2", 2},
        {"-DCLR_TEST_LANES_VECTORS=-3", 0},
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        ctx.settings.build_options = cases[i].options;
        assert_int_equal(context_test_value(&ctx, "CLR_TEST_LANES_VECTORS"), cases[i].value);
        assert_int_equal(context_test_switch(&ctx, "CLR_TEST_LANES_VECTORS"), i >= 2);
    }
}

/* The vector width of `count` operators of `type` in one call over
 * segments of a mean of `mean` elements under `settings`: the device's
 * tuning, then the rule. */
static unsigned several_width(const device_info *info, const clreduce_settings *settings,
                              size_t count, clreduce_type type, size_t mean)
{
    tuning t;
    tuning_for_device(info, clreduce_type_size(type), settings, &t);
    tuning_for_segment_operators(info, settings, count, type, mean, &t);
    return t.vector_width;
}

static void test_nvidia_several(void **state)
{
    (void)state;
    device_info nv = described(VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU);
    clreduce_settings s;
    clreduce_default_settings(&s);
    static const clreduce_type integers[] = {CLREDUCE_INT64, CLREDUCE_UINT64};
    static const size_t means[] = {0, 1, 6, 7, 8, 1000, 100000};
    for (size_t j = 0; j < ARRAY_SIZE(integers); j++) {
        clreduce_type type = integers[j];
        assert_true(table_width(&nv, type) > 1);
        for (size_t m = 0; m < ARRAY_SIZE(means); m++) {
            assert_int_equal(several_width(&nv, &s, 2, type, means[m]), 1);
            assert_int_equal(several_width(&nv, &s, 4, type, means[m]), 1);
        }
        /* One operator is not several. */
        assert_int_equal(several_width(&nv, &s, 1, type, 5), table_width(&nv, type));
    }
    /* Doubles: short segments alone. */
    unsigned dw = table_width(&nv, CLREDUCE_DOUBLE);
    assert_true(dw > 1);
    assert_int_equal(several_width(&nv, &s, 2, CLREDUCE_DOUBLE, 0), 1);
    assert_int_equal(several_width(&nv, &s, 4, CLREDUCE_DOUBLE, 6), 1);
    assert_int_equal(several_width(&nv, &s, 4, CLREDUCE_DOUBLE, 7), dw);
    assert_int_equal(several_width(&nv, &s, 2, CLREDUCE_DOUBLE, 1000), dw);
    assert_int_equal(several_width(&nv, &s, 1, CLREDUCE_DOUBLE, 5), dw);
    /* 4-byte types, other devices and a fixed width keep theirs. */
    assert_int_equal(several_width(&nv, &s, 4, CLREDUCE_FLOAT, 5),
                     table_width(&nv, CLREDUCE_FLOAT));
    assert_int_equal(several_width(&nv, &s, 4, CLREDUCE_INT32, 5),
                     table_width(&nv, CLREDUCE_INT32));
    device_info cpu = described(VENDOR_INTEL, CL_DEVICE_TYPE_CPU);
    assert_int_equal(several_width(&cpu, &s, 4, CLREDUCE_INT64, 5),
                     table_width(&cpu, CLREDUCE_INT64));
    device_info gpu = described(VENDOR_AMD, CL_DEVICE_TYPE_GPU);
    assert_int_equal(several_width(&gpu, &s, 4, CLREDUCE_DOUBLE, 5),
                     table_width(&gpu, CLREDUCE_DOUBLE));
    s.vector_width = 2;
    assert_int_equal(several_width(&nv, &s, 4, CLREDUCE_DOUBLE, 5), 2);
    assert_int_equal(several_width(&nv, &s, 4, CLREDUCE_INT64, 5), 2);
}

static void test_cpu(void **state)
{
    (void)state;
    device_info cpu = described(VENDOR_INTEL, CL_DEVICE_TYPE_CPU);
    clreduce_settings s;
    clreduce_default_settings(&s);
    unsigned fw = table_width(&cpu, CLREDUCE_FLOAT), dw = table_width(&cpu, CLREDUCE_DOUBLE);
    assert_true(fw > 1);
    for (int seg = 0; seg < 2; seg++) {
        size_t rows = seg ? 0 : 8, mean = seg ? 7 : 0, past_rows = seg ? 0 : 9;
        size_t past_mean = seg ? 8 : 0;
        assert_int_equal(tuned(&cpu, &s, CLREDUCE_OP_ARGMIN, CLREDUCE_FLOAT, rows, mean)
                             .vector_width, 1);
        assert_int_equal(tuned(&cpu, &s, CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT, rows, mean)
                             .vector_width, 1);
        assert_int_equal(tuned(&cpu, &s, CLREDUCE_OP_MEAN_VAR, CLREDUCE_DOUBLE, rows, mean)
                             .vector_width, 1);
        assert_int_equal(tuned(&cpu, &s, CLREDUCE_OP_MEAN_VAR, CLREDUCE_FLOAT, past_rows,
                               past_mean).vector_width, fw);
        /* What went either way on CPU runtimes keeps its vectors. */
        assert_int_equal(tuned(&cpu, &s, CLREDUCE_OP_ARGMAX, CLREDUCE_DOUBLE, rows, mean)
                             .vector_width, dw);
        assert_int_equal(tuned(&cpu, &s, CLREDUCE_OP_MINMAX, CLREDUCE_FLOAT, rows, mean)
                             .vector_width, fw);
        assert_int_equal(tuned(&cpu, &s, CLREDUCE_OP_DOT, CLREDUCE_FLOAT, rows, mean)
                             .vector_width, fw);
        assert_int_equal(tuned(&cpu, &s, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, rows, mean)
                             .vector_width, fw);
        assert_int_equal(tuned(&cpu, &s, CLREDUCE_OP_SUM, CLREDUCE_DOUBLE, 0, 256).vector_width,
                         dw);
    }
    /* No work-group rule off NVIDIA. */
    assert_int_equal(tuned(&cpu, &s, CLREDUCE_OP_MINMAX, CLREDUCE_FLOAT, 4096, 0).work_group_size,
                     table_tuning(&cpu, CLREDUCE_FLOAT).work_group_size);
}

static void test_other_gpu(void **state)
{
    (void)state;
    device_info gpu = described(VENDOR_AMD, CL_DEVICE_TYPE_GPU);
    clreduce_settings s;
    clreduce_default_settings(&s);
    unsigned fw = table_width(&gpu, CLREDUCE_FLOAT);
    assert_int_equal(tuned(&gpu, &s, CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT, 4, 0).vector_width, fw);
    assert_int_equal(tuned(&gpu, &s, CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT, 0, 2).vector_width, fw);
}

/* The tuning of a flat op of `count` elements of `type` on the device
 * under `settings`: the device's, then the flat rules. */
static tuning flat_tuned(const device_info *info, const clreduce_settings *settings,
                         clreduce_op op, clreduce_type type, size_t count)
{
    tuning t;
    tuning_for_device(info, clreduce_type_size(type), settings, &t);
    tuning_for_flat_range(info, settings, op, type, count, &t);
    return t;
}

static unsigned flat_width(const device_info *info, const clreduce_settings *settings,
                           clreduce_op op, clreduce_type type, size_t count)
{
    return flat_tuned(info, settings, op, type, count).vector_width;
}

static unsigned flat_groups(const device_info *info, const clreduce_settings *settings,
                            clreduce_op op, clreduce_type type, size_t count)
{
    return flat_tuned(info, settings, op, type, count).groups_per_compute_unit;
}

/* The scan tile (work-items x vectors each) of `count` elements of `type`
 * by op on the device under `settings`: the device's, then the scan rule. */
static size_t scan_tile_wg(const device_info *info, const clreduce_settings *settings,
                           clreduce_op op, clreduce_type type, size_t count, unsigned *loads)
{
    tuning t;
    size_t es = clreduce_type_size(type);
    tuning_for_device(info, es, settings, &t);
    tuning_for_scan(info, settings, op, es, count, &t);
    *loads = t.scan_loads;
    return t.scan_work_group_size;
}

static void test_nvidia_scan(void **state)
{
    (void)state;
    const size_t bound = (size_t)1 << 26;
    device_info gpu = described(VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU);
    device_info cpu = described(VENDOR_OTHER, CL_DEVICE_TYPE_CPU);
    clreduce_settings s;
    clreduce_default_settings(&s);
    unsigned loads, table_loads;
    size_t table_wg = scan_tile_wg(&gpu, &s, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, 4 * bound,
                                   &table_loads);
    assert_int_equal(table_wg, 512);
    /* Up to the bound: 256 work-items, the table's loads; 4-byte types by
     * every operator, 8-byte ones by min and max. */
    assert_int_equal(scan_tile_wg(&gpu, &s, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, bound, &loads), 256);
    assert_int_equal(loads, table_loads);
    assert_int_equal(scan_tile_wg(&gpu, &s, CLREDUCE_OP_MAX, CLREDUCE_FLOAT, 1, &loads), 256);
    assert_int_equal(scan_tile_wg(&gpu, &s, CLREDUCE_OP_SUM, CLREDUCE_INT32, bound, &loads), 256);
    assert_int_equal(scan_tile_wg(&gpu, &s, CLREDUCE_OP_MIN, CLREDUCE_DOUBLE, bound, &loads),
                     256);
    assert_int_equal(scan_tile_wg(&gpu, &s, CLREDUCE_OP_MAX, CLREDUCE_UINT64, bound, &loads),
                     256);
    /* Past it, 8-byte sums, operators past max, other devices, or settings
     * that fix the tile: the table's (or the settings'). */
    assert_int_equal(scan_tile_wg(&gpu, &s, CLREDUCE_OP_MAX, CLREDUCE_FLOAT, bound + 1, &loads),
                     table_wg);
    assert_int_equal(scan_tile_wg(&gpu, &s, CLREDUCE_OP_SUM, CLREDUCE_DOUBLE, bound, &loads),
                     table_wg);
    assert_int_equal(scan_tile_wg(&gpu, &s, CLREDUCE_OP_SUM, CLREDUCE_INT64, bound, &loads),
                     table_wg);
    assert_int_equal(scan_tile_wg(&gpu, &s, CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT, bound, &loads),
                     table_wg);
    size_t cpu_wg = scan_tile_wg(&cpu, &s, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, 4 * bound, &loads);
    assert_int_equal(scan_tile_wg(&cpu, &s, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, bound, &loads),
                     cpu_wg);
    s.work_group_size = 1024;
    assert_int_equal(scan_tile_wg(&gpu, &s, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, bound, &loads),
                     1024);
    s.work_group_size = 0;
    s.loads_per_work_item = 8;
    assert_int_equal(scan_tile_wg(&gpu, &s, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, bound, &loads),
                     table_wg);
    assert_int_equal(loads, 8);
}

/* A CPU of `vendor` whose native float width is 16 (AVX-512). */
static device_info avx512_cpu(device_vendor vendor)
{
    device_info info = described(vendor, CL_DEVICE_TYPE_CPU);
    info.native_float_width = 16;
    return info;
}

static void test_pocl_flat(void **state)
{
    (void)state;
    const size_t bound = (size_t)1 << 20;
    device_info pocl = avx512_cpu(VENDOR_POCL), intel = avx512_cpu(VENDOR_INTEL);
    clreduce_settings s;
    clreduce_default_settings(&s);
    unsigned fw = table_width(&pocl, CLREDUCE_FLOAT), dw = table_width(&pocl, CLREDUCE_DOUBLE);
    assert_true(fw < 16);
    assert_int_equal(flat_width(&pocl, &s, CLREDUCE_OP_MIN, CLREDUCE_FLOAT, bound), 16);
    assert_int_equal(flat_width(&pocl, &s, CLREDUCE_OP_SUM, CLREDUCE_INT32, 4 * bound), 16);
    /* Below the bound, 8-byte types, another runtime, a width the device
     * does not give as a power of two up to 16, or settings that fix it:
     * the table's. */
    assert_int_equal(flat_width(&pocl, &s, CLREDUCE_OP_MAX, CLREDUCE_FLOAT, bound - 1), fw);
    assert_int_equal(flat_width(&pocl, &s, CLREDUCE_OP_SUM, CLREDUCE_DOUBLE, 4 * bound), dw);
    assert_int_equal(flat_width(&intel, &s, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, 4 * bound),
                     table_width(&intel, CLREDUCE_FLOAT));
    pocl.native_float_width = 32;
    assert_int_equal(flat_width(&pocl, &s, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, 4 * bound), fw);
    pocl.native_float_width = 16;
    /* Float minmax and mean_var alone from the same bound; not argmin,
     * argmax or doubles. */
    assert_int_equal(flat_width(&pocl, &s, CLREDUCE_OP_MINMAX, CLREDUCE_FLOAT, bound), 16);
    assert_int_equal(flat_width(&pocl, &s, CLREDUCE_OP_MEAN_VAR, CLREDUCE_FLOAT, bound), 16);
    assert_int_equal(flat_width(&pocl, &s, CLREDUCE_OP_MEAN_VAR, CLREDUCE_FLOAT, bound - 1), fw);
    assert_int_equal(flat_width(&pocl, &s, CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT, 4 * bound), fw);
    assert_int_equal(flat_width(&pocl, &s, CLREDUCE_OP_MINMAX, CLREDUCE_DOUBLE, 4 * bound), dw);
    s.vector_width = 2;
    assert_int_equal(flat_width(&pocl, &s, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, 4 * bound), 2);
    assert_int_equal(flat_width(&pocl, &s, CLREDUCE_OP_MINMAX, CLREDUCE_FLOAT, 4 * bound), 2);
}

static void test_intel_flat(void **state)
{
    (void)state;
    const size_t bound = (size_t)1 << 18;
    device_info intel = avx512_cpu(VENDOR_INTEL);
    clreduce_settings s;
    clreduce_default_settings(&s);
    unsigned fw = table_width(&intel, CLREDUCE_FLOAT), dw = table_width(&intel, CLREDUCE_DOUBLE);
    assert_true(fw < 16);
    /* Float argmin, argmax, minmax and mean_var alone from 2^18 elements. */
    static const clreduce_op wide_ops[] = {CLREDUCE_OP_ARGMIN, CLREDUCE_OP_ARGMAX,
                                           CLREDUCE_OP_MINMAX, CLREDUCE_OP_MEAN_VAR};
    for (size_t i = 0; i < ARRAY_SIZE(wide_ops); i++) {
        assert_int_equal(flat_width(&intel, &s, wide_ops[i], CLREDUCE_FLOAT, bound), 16);
        assert_int_equal(flat_width(&intel, &s, wide_ops[i], CLREDUCE_FLOAT, bound - 1), fw);
        assert_int_equal(flat_width(&intel, &s, wide_ops[i], CLREDUCE_DOUBLE, 4 * bound), dw);
    }
    /* Not sums, minima, maxima or norms, not on a GPU, not past a
     * setting. */
    assert_int_equal(flat_width(&intel, &s, CLREDUCE_OP_MAX, CLREDUCE_FLOAT, 4 * bound), fw);
    assert_int_equal(flat_width(&intel, &s, CLREDUCE_OP_NORM2, CLREDUCE_FLOAT, 4 * bound), fw);
    device_info gpu = described(VENDOR_INTEL, CL_DEVICE_TYPE_GPU);
    gpu.native_float_width = 16;
    assert_int_equal(flat_width(&gpu, &s, CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT, 4 * bound),
                     table_width(&gpu, CLREDUCE_FLOAT));
    s.vector_width = 2;
    assert_int_equal(flat_width(&intel, &s, CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT, 4 * bound), 2);

    /* Double argmin, argmax, minmax and mean_var alone from 2^22 elements:
     * 16 work-groups per compute unit; not sums, floats, PoCL or a set
     * value. */
    clreduce_default_settings(&s);
    const size_t groups_bound = (size_t)1 << 22;
    unsigned table_groups = table_tuning(&intel, CLREDUCE_DOUBLE).groups_per_compute_unit;
    assert_true(table_groups != 16);
    for (size_t i = 0; i < ARRAY_SIZE(wide_ops); i++) {
        assert_int_equal(flat_groups(&intel, &s, wide_ops[i], CLREDUCE_DOUBLE, groups_bound), 16);
        assert_int_equal(flat_groups(&intel, &s, wide_ops[i], CLREDUCE_DOUBLE, groups_bound - 1),
                         table_groups);
        assert_int_equal(flat_groups(&intel, &s, wide_ops[i], CLREDUCE_FLOAT, groups_bound),
                         table_tuning(&intel, CLREDUCE_FLOAT).groups_per_compute_unit);
    }
    assert_int_equal(flat_groups(&intel, &s, CLREDUCE_OP_SUM, CLREDUCE_DOUBLE, groups_bound),
                     table_groups);
    device_info pocl = avx512_cpu(VENDOR_POCL);
    assert_int_equal(flat_groups(&pocl, &s, CLREDUCE_OP_ARGMAX, CLREDUCE_DOUBLE, groups_bound),
                     table_tuning(&pocl, CLREDUCE_DOUBLE).groups_per_compute_unit);
    s.groups_per_compute_unit = 2;
    assert_int_equal(flat_groups(&intel, &s, CLREDUCE_OP_MINMAX, CLREDUCE_DOUBLE, groups_bound),
                     2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvidia_rows),
        cmocka_unit_test(test_nvidia_segments),
        cmocka_unit_test(test_nvidia_several),
        cmocka_unit_test(test_switch_values),
        cmocka_unit_test(test_cpu),
        cmocka_unit_test(test_other_gpu),
        cmocka_unit_test(test_pocl_flat),
        cmocka_unit_test(test_intel_flat),
        cmocka_unit_test(test_nvidia_scan),
    };
    return cmocka_run_group_tests_name("unit.tuning", tests, NULL, NULL);
}
