/* Names and sizes of the public enumerations, and the version. */
#include "internal.h"

const char *clreduce_status_string(clreduce_status status)
{
    switch (status) {
#define CLREDUCE_STATUS_CASE_(name, value, text) case name: return text;
        CLREDUCE_STATUS_LIST(CLREDUCE_STATUS_CASE_)
#undef CLREDUCE_STATUS_CASE_
    }
    return "unknown status";
}

const char *clreduce_op_name(clreduce_op op)
{
    static const char *const names[CLREDUCE_OP_COUNT] = {
        "sum", "min", "max", "argmin", "argmax", "minmax", "sum_squares", "sum_abs",
        "norm2", "mean_var", "dot"};
    return (unsigned)op < sizeof names / sizeof names[0] ? names[op] : NULL;
}

const char *clreduce_type_name(clreduce_type type)
{
    static const char *const names[] = {"float", "double", "int32", "uint32",
                                          "int64", "uint64", "half",  "bfloat16"};
    return (unsigned)type < sizeof names / sizeof names[0] ? names[type] : NULL;
}

size_t clreduce_type_size(clreduce_type type)
{
    static const size_t sizes[] = {4, 8, 4, 4, 8, 8, 2, 2};
    return (unsigned)type < sizeof sizes / sizeof sizes[0] ? sizes[type] : 0;
}

const char *clreduce_variant_name(clreduce_variant variant)
{
    static const char *const names[CLREDUCE_VARIANT_COUNT] = {
        "auto", "interleaved", "sequential", "first_add", "subgroup_tail",
        "subgroup", "unrolled", "grid_stride", "atomic", "single_pass", "reproducible"};
    return (unsigned)variant < CLREDUCE_VARIANT_COUNT ? names[variant] : NULL;
}

const char *clreduce_subgroup_path_name(clreduce_subgroup_path path)
{
    static const char *const names[] = {"auto", "none", "nv_ptx", "shuffle_relative",
                                        "shuffle", "reduce"};
    return (unsigned)path < sizeof names / sizeof names[0] ? names[path] : NULL;
}

const char *clreduce_scan_kind_name(clreduce_scan_kind kind)
{
    static const char *const names[] = {"inclusive", "exclusive"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : NULL;
}

const char *clreduce_scan_variant_name(clreduce_scan_variant variant)
{
    static const char *const names[CLREDUCE_SCAN_VARIANT_COUNT] = {
        "auto", "hillis_steele", "blelloch", "reduce_then_scan", "lookback"};
    return (unsigned)variant < CLREDUCE_SCAN_VARIANT_COUNT ? names[variant] : NULL;
}

const char *clreduce_version(void)
{
    return CLREDUCE_VERSION_STRING;
}

unsigned clreduce_version_number(void)
{
    return CLREDUCE_VERSION_NUMBER;
}
