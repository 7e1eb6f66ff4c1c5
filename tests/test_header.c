/* unit.header: <clreduce/clreduce.h> compiles on its own, first in a file.
 * This file is compiled twice: as the C11 test program, and as a C99
 * library with -Wall -Wextra -Werror -pedantic (TEST_HEADER_C99) whose
 * function the program calls. */
#include <clreduce/clreduce.h>

#ifdef TEST_HEADER_C99
#define CHECK_FUNCTION test_header_check_c99
#else
#define CHECK_FUNCTION test_header_check_c11
#endif

int test_header_check_c99(void);
int test_header_check_c11(void);

/* Uses every type, macro and function the header declares: a missing
 * declaration or include is a compile error. Returns the number of
 * mismatches found. */
int CHECK_FUNCTION(void)
{
    int bad = 0;
    clreduce_status st = CLREDUCE_SUCCESS;
    clreduce_op op = CLREDUCE_OP_MAX;
    clreduce_type type = CLREDUCE_UINT64;
    clreduce_variant v = CLREDUCE_REPRODUCIBLE;
    clreduce_subgroup_path path = CLREDUCE_SUBGROUP_PATH_REDUCE;
    clreduce_scan_kind kind = CLREDUCE_EXCLUSIVE;
    clreduce_scan_variant scan_variant = CLREDUCE_SCAN_LOOKBACK;
    clreduce_settings settings;
    clreduce_cache_stats stats;
    clreduce_ctx *ctx = NULL;
    cl_event ev = NULL;
    size_t size = sizeof(cl_mem) + sizeof(cl_command_queue) + sizeof(uint64_t);
    void (*fns[])(void) = {
        (void (*)(void))clreduce_default_settings,
        (void (*)(void))clreduce_create,
        (void (*)(void))clreduce_create_with_settings,
        (void (*)(void))clreduce_create_default,
        (void (*)(void))clreduce_find_device,
        (void (*)(void))clreduce_destroy,
        (void (*)(void))clreduce_get_cl_context,
        (void (*)(void))clreduce_get_cl_device,
        (void (*)(void))clreduce_reduce_host,
        (void (*)(void))clreduce_reduce,
        (void (*)(void))clreduce_reduce_profiled,
        (void (*)(void))clreduce_check_support,
        (void (*)(void))clreduce_dot,
        (void (*)(void))clreduce_dot_profiled,
        (void (*)(void))clreduce_dot_host,
        (void (*)(void))clreduce_result_size,
        (void (*)(void))clreduce_scan_host,
        (void (*)(void))clreduce_scan,
        (void (*)(void))clreduce_scan_profiled,
        (void (*)(void))clreduce_check_scan_support,
        (void (*)(void))clreduce_reduce_rows,
        (void (*)(void))clreduce_reduce_rows_profiled,
        (void (*)(void))clreduce_reduce_rows_host,
        (void (*)(void))clreduce_reduce_segments,
        (void (*)(void))clreduce_reduce_segments_profiled,
        (void (*)(void))clreduce_reduce_segments_host,
        (void (*)(void))clreduce_scan_rows,
        (void (*)(void))clreduce_scan_rows_profiled,
        (void (*)(void))clreduce_scan_rows_host,
        (void (*)(void))clreduce_dot_rows,
        (void (*)(void))clreduce_dot_rows_profiled,
        (void (*)(void))clreduce_dot_rows_host,
        (void (*)(void))clreduce_dot_segments,
        (void (*)(void))clreduce_dot_segments_profiled,
        (void (*)(void))clreduce_dot_segments_host,
        (void (*)(void))clreduce_dot_scan,
        (void (*)(void))clreduce_dot_scan_profiled,
        (void (*)(void))clreduce_dot_scan_host,
        (void (*)(void))clreduce_reduce_multi,
        (void (*)(void))clreduce_reduce_multi_profiled,
        (void (*)(void))clreduce_reduce_multi_host,
        (void (*)(void))clreduce_multi_record,
        (void (*)(void))clreduce_reduce_rows_multi,
        (void (*)(void))clreduce_reduce_rows_multi_profiled,
        (void (*)(void))clreduce_reduce_rows_multi_host,
        (void (*)(void))clreduce_reduce_segments_multi,
        (void (*)(void))clreduce_reduce_segments_multi_profiled,
        (void (*)(void))clreduce_reduce_segments_multi_host,
        (void (*)(void))clreduce_auto_scan_variant,
        (void (*)(void))clreduce_status_string,
        (void (*)(void))clreduce_last_error,
        (void (*)(void))clreduce_op_name,
        (void (*)(void))clreduce_type_name,
        (void (*)(void))clreduce_variant_name,
        (void (*)(void))clreduce_subgroup_path_name,
        (void (*)(void))clreduce_scan_kind_name,
        (void (*)(void))clreduce_scan_variant_name,
        (void (*)(void))clreduce_opencl_error_name,
        (void (*)(void))clreduce_type_size,
        (void (*)(void))clreduce_auto_variant,
        (void (*)(void))clreduce_get_subgroup_path,
        (void (*)(void))clreduce_get_tuning,
        (void (*)(void))clreduce_get_operators_tuning,
        (void (*)(void))clreduce_get_cache_stats,
        (void (*)(void))clreduce_version,
        (void (*)(void))clreduce_version_number,
        (void (*)(void))clreduce_operator_create,
        (void (*)(void))clreduce_operator_retain,
        (void (*)(void))clreduce_operator_release,
        (void (*)(void))clreduce_operator_result_size,
        (void (*)(void))clreduce_reduce_custom,
        (void (*)(void))clreduce_reduce_custom_profiled,
        (void (*)(void))clreduce_reduce_custom_host,
        (void (*)(void))clreduce_scan_custom,
        (void (*)(void))clreduce_scan_custom_profiled,
        (void (*)(void))clreduce_scan_custom_host,
        (void (*)(void))clreduce_reduce_rows_custom,
        (void (*)(void))clreduce_reduce_rows_custom_profiled,
        (void (*)(void))clreduce_reduce_rows_custom_host,
        (void (*)(void))clreduce_reduce_segments_custom,
        (void (*)(void))clreduce_reduce_segments_custom_profiled,
        (void (*)(void))clreduce_reduce_segments_custom_host,
        (void (*)(void))clreduce_scan_rows_custom,
        (void (*)(void))clreduce_scan_rows_custom_profiled,
        (void (*)(void))clreduce_scan_rows_custom_host,
        (void (*)(void))clreduce_reduce_parts,
        (void (*)(void))clreduce_partials_count,
        (void (*)(void))clreduce_partials,
        (void (*)(void))clreduce_combine_partials,
    };
    unsigned i;
    for (i = 0; i < sizeof fns / sizeof fns[0]; i++)
        bad += fns[i] == NULL;
    clreduce_default_settings(&settings);
    stats.programs_built = 0;
    stats.cache_hits = 0;
    stats.disk_cache_status[0] = '\0';
    bad += st != 0 || op != 2 || type != 5 || v != 10 || path != 5;
    bad += CLREDUCE_VARIANT_COUNT != 11 || CLREDUCE_MULTI_MAX != 10;
    bad += kind != 1 || scan_variant != 4 || CLREDUCE_SCAN_VARIANT_COUNT != 5;
    bad += settings.work_group_size != 0 || stats.cache_hits != 0;
    bad += sizeof stats.disk_cache_status != 256 || stats.disk_cache_status[0] != '\0';
    bad += ctx != NULL || ev != NULL || size == 0;
    bad += clreduce_version_number() != CLREDUCE_VERSION_NUMBER;
    bad += clreduce_type_size(CLREDUCE_DOUBLE) != sizeof(double);
    return bad;
}

#ifndef TEST_HEADER_C99
#include <stdio.h>

int main(void)
{
    int bad = test_header_check_c11() + test_header_check_c99();
    printf("header checks (C11 and C99 -pedantic): %d mismatches\n", bad);
    return bad != 0;
}
#endif
