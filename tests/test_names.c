/* unit.names: status strings, enumeration names, type sizes, default
 * settings and the version. Needs no OpenCL device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "test_common.h"

/* The status list of the header, expanded here independently of the
 * library's own table. */
static const struct {
    clreduce_status status;
    int value;
    const char *text;
} statuses[] = {
#define STATUS_ROW(name, value, text) {name, value, text},
    CLREDUCE_STATUS_LIST(STATUS_ROW)
#undef STATUS_ROW
};

static void test_status_strings(void **state)
{
    (void)state;
    assert_true(ARRAY_SIZE(statuses) >= 7);
    for (size_t i = 0; i < ARRAY_SIZE(statuses); i++) {
        const char *s = clreduce_status_string(statuses[i].status);
        assert_non_null(s);
        assert_string_equal(s, statuses[i].text);
        assert_int_equal((int)statuses[i].status, statuses[i].value);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(s, clreduce_status_string(statuses[j].status));
    }
    /* The documented values. */
    assert_int_equal(CLREDUCE_SUCCESS, 0);
    assert_int_equal(CLREDUCE_ERROR_INVALID_ARGUMENT, -1);
    assert_int_equal(CLREDUCE_ERROR_UNSUPPORTED, -2);
    assert_int_equal(CLREDUCE_ERROR_BUILD, -3);
    assert_int_equal(CLREDUCE_ERROR_OPENCL, -4);
    assert_int_equal(CLREDUCE_ERROR_OUT_OF_MEMORY, -5);
    assert_int_equal(CLREDUCE_ERROR_NO_DEVICE, -6);
    assert_string_equal(clreduce_status_string(CLREDUCE_SUCCESS), "success");
    assert_string_equal(clreduce_status_string(CLREDUCE_ERROR_INVALID_ARGUMENT),
                        "invalid argument");
    /* Never NULL, even for values that are not statuses. */
    static const int unknown[] = {1, -7, 42, -1000, 0x7fffffff};
    for (size_t i = 0; i < ARRAY_SIZE(unknown); i++) {
        const char *s = clreduce_status_string((clreduce_status)unknown[i]);
        assert_non_null(s);
        assert_true(s[0] != '\0');
    }
}

/* A name is lower-case letters, digits and underscores. */
static void check_name_shape(const char *name)
{
    assert_non_null(name);
    assert_true(name[0] != '\0');
    for (const char *p = name; *p; p++)
        assert_true(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_');
}

static void test_opencl_error_names(void **state)
{
    (void)state;
    assert_string_equal(clreduce_opencl_error_name(CL_SUCCESS), "CL_SUCCESS");
    assert_string_equal(clreduce_opencl_error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
    assert_string_equal(clreduce_opencl_error_name(CL_INVALID_WORK_GROUP_SIZE),
                        "CL_INVALID_WORK_GROUP_SIZE");
    assert_string_equal(clreduce_opencl_error_name(-12345), "unknown OpenCL error");
}

static void test_op_names(void **state)
{
    (void)state;
    static const char *const want[CLREDUCE_OP_COUNT] = {
        "sum", "min", "max", "argmin", "argmax", "minmax", "sum_squares", "sum_abs",
        "norm2", "mean_var", "dot"};
    for (int i = 0; i < CLREDUCE_OP_COUNT; i++) {
        check_name_shape(clreduce_op_name((clreduce_op)i));
        assert_string_equal(clreduce_op_name((clreduce_op)i), want[i]);
    }
    assert_int_equal(CLREDUCE_OP_SUM, 0);
    assert_int_equal(CLREDUCE_OP_MAX, 2);
    assert_int_equal(CLREDUCE_OP_DOT, 10);
    assert_int_equal(CLREDUCE_OP_COUNT, 11);
    assert_null(clreduce_op_name((clreduce_op)CLREDUCE_OP_COUNT));
    assert_null(clreduce_op_name((clreduce_op)100));
    assert_null(clreduce_op_name((clreduce_op)-1));
}

static void test_type_names_and_sizes(void **state)
{
    (void)state;
    static const struct {
        clreduce_type type;
        const char *name;
        size_t size;
    } types[] = {
        {CLREDUCE_FLOAT, "float", sizeof(float)},     {CLREDUCE_DOUBLE, "double", sizeof(double)},
        {CLREDUCE_INT32, "int32", sizeof(int32_t)},   {CLREDUCE_UINT32, "uint32", sizeof(uint32_t)},
        {CLREDUCE_INT64, "int64", sizeof(int64_t)},   {CLREDUCE_UINT64, "uint64", sizeof(uint64_t)},
        {CLREDUCE_HALF, "half", 2},                   {CLREDUCE_BFLOAT16, "bfloat16", 2},
    };
    for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
        assert_int_equal((int)types[i].type, (int)i);
        check_name_shape(clreduce_type_name(types[i].type));
        assert_string_equal(clreduce_type_name(types[i].type), types[i].name);
        assert_int_equal(clreduce_type_size(types[i].type), types[i].size);
    }
    assert_int_equal(clreduce_type_size(CLREDUCE_FLOAT), 4);
    assert_int_equal(clreduce_type_size(CLREDUCE_DOUBLE), 8);
    static const int unknown[] = {8, 100, -1};
    for (size_t i = 0; i < ARRAY_SIZE(unknown); i++) {
        assert_null(clreduce_type_name((clreduce_type)unknown[i]));
        assert_int_equal(clreduce_type_size((clreduce_type)unknown[i]), 0);
    }
}

static void test_variant_names(void **state)
{
    (void)state;
    static const char *const want[] = {"auto",        "interleaved",   "sequential",
                                       "first_add",   "subgroup_tail", "subgroup",
                                       "unrolled",    "grid_stride",   "atomic",
                                       "single_pass", "reproducible"};
    assert_int_equal(ARRAY_SIZE(want), CLREDUCE_VARIANT_COUNT);
    assert_int_equal(CLREDUCE_REPRODUCIBLE + 1, CLREDUCE_VARIANT_COUNT);
    for (int i = 0; i < CLREDUCE_VARIANT_COUNT; i++) {
        const char *name = clreduce_variant_name((clreduce_variant)i);
        check_name_shape(name);
        assert_string_equal(name, want[i]);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(name, clreduce_variant_name((clreduce_variant)j));
    }
    assert_null(clreduce_variant_name((clreduce_variant)CLREDUCE_VARIANT_COUNT));
    assert_null(clreduce_variant_name((clreduce_variant)99));
    assert_null(clreduce_variant_name((clreduce_variant)-1));
}

static void test_subgroup_path_names(void **state)
{
    (void)state;
    static const char *const want[] = {"auto",    "none",   "nv_ptx", "shuffle_relative",
                                       "shuffle", "reduce"};
    for (int i = 0; i < (int)ARRAY_SIZE(want); i++) {
        const char *name = clreduce_subgroup_path_name((clreduce_subgroup_path)i);
        check_name_shape(name);
        assert_string_equal(name, want[i]);
    }
    assert_int_equal(CLREDUCE_SUBGROUP_PATH_REDUCE, 5);
    assert_null(clreduce_subgroup_path_name((clreduce_subgroup_path)6));
    assert_null(clreduce_subgroup_path_name((clreduce_subgroup_path)42));
    assert_null(clreduce_subgroup_path_name((clreduce_subgroup_path)-1));
}

static void test_scan_kind_names(void **state)
{
    (void)state;
    static const char *const want[] = {"inclusive", "exclusive"};
    assert_int_equal(CLREDUCE_INCLUSIVE, 0);
    assert_int_equal(CLREDUCE_EXCLUSIVE, 1);
    for (int i = 0; i < (int)ARRAY_SIZE(want); i++) {
        const char *name = clreduce_scan_kind_name((clreduce_scan_kind)i);
        check_name_shape(name);
        assert_string_equal(name, want[i]);
    }
    assert_null(clreduce_scan_kind_name((clreduce_scan_kind)2));
    assert_null(clreduce_scan_kind_name((clreduce_scan_kind)99));
    assert_null(clreduce_scan_kind_name((clreduce_scan_kind)-1));
}

static void test_scan_variant_names(void **state)
{
    (void)state;
    static const char *const want[] = {"auto", "hillis_steele", "blelloch", "reduce_then_scan",
                                       "lookback"};
    assert_int_equal(ARRAY_SIZE(want), CLREDUCE_SCAN_VARIANT_COUNT);
    assert_int_equal(CLREDUCE_SCAN_AUTO, 0);
    assert_int_equal(CLREDUCE_SCAN_LOOKBACK + 1, CLREDUCE_SCAN_VARIANT_COUNT);
    for (int i = 0; i < CLREDUCE_SCAN_VARIANT_COUNT; i++) {
        const char *name = clreduce_scan_variant_name((clreduce_scan_variant)i);
        check_name_shape(name);
        assert_string_equal(name, want[i]);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(name, clreduce_scan_variant_name((clreduce_scan_variant)j));
    }
    assert_null(clreduce_scan_variant_name((clreduce_scan_variant)CLREDUCE_SCAN_VARIANT_COUNT));
    assert_null(clreduce_scan_variant_name((clreduce_scan_variant)99));
    assert_null(clreduce_scan_variant_name((clreduce_scan_variant)-1));
}

static void test_version(void **state)
{
    (void)state;
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", CLREDUCE_VERSION_MAJOR, CLREDUCE_VERSION_MINOR,
             CLREDUCE_VERSION_PATCH);
    assert_non_null(clreduce_version());
    assert_string_equal(clreduce_version(), want);
    assert_string_equal(clreduce_version(), CLREDUCE_VERSION_STRING);
    assert_int_equal(clreduce_version_number(), CLREDUCE_VERSION_NUMBER);
    assert_int_equal(CLREDUCE_VERSION_NUMBER, CLREDUCE_VERSION_MAJOR * 10000 +
                                                  CLREDUCE_VERSION_MINOR * 100 +
                                                  CLREDUCE_VERSION_PATCH);
    assert_true(CLREDUCE_VERSION_MINOR < 100 && CLREDUCE_VERSION_PATCH < 100);
}

static void test_default_settings(void **state)
{
    (void)state;
    clreduce_settings s;
    memset(&s, 0x5a, sizeof s);
    clreduce_default_settings(&s);
    assert_int_equal(s.subgroup_path, CLREDUCE_SUBGROUP_PATH_AUTO);
    assert_int_equal(s.work_group_size, 0);
    assert_int_equal(s.groups_per_compute_unit, 0);
    assert_int_equal(s.loads_per_work_item, 0);
    assert_int_equal(s.vector_width, 0);
}

/* No failure yet: the message is empty; a NULL-argument failure that needs
 * no device fills it. */
static void test_last_error_without_device(void **state)
{
    (void)state;
    assert_non_null(clreduce_last_error(NULL));
    assert_string_equal(clreduce_last_error(NULL), "");
    clreduce_cache_stats st;
    assert_int_equal(clreduce_get_cache_stats(NULL, &st), CLREDUCE_ERROR_INVALID_ARGUMENT);
    assert_true(clreduce_last_error(NULL)[0] != '\0');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_last_error_without_device),
        cmocka_unit_test(test_status_strings),
        cmocka_unit_test(test_opencl_error_names),
        cmocka_unit_test(test_op_names),
        cmocka_unit_test(test_type_names_and_sizes),
        cmocka_unit_test(test_variant_names),
        cmocka_unit_test(test_subgroup_path_names),
        cmocka_unit_test(test_scan_kind_names),
        cmocka_unit_test(test_scan_variant_names),
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_default_settings),
    };
    return cmocka_run_group_tests_name("unit.names", tests, NULL, NULL) ? 1 : 0;
}
