/* clreduce-bench: the command line: the options, their parsing, the
 * defaults that depend on the device, and the help text. */
#ifndef CLREDUCE_BENCH_CLI_H
#define CLREDUCE_BENCH_CLI_H

#include <stddef.h>
#include <stdint.h>

#include <clreduce/clreduce.h>

#include "shapes.h"

#define BENCH_MAX_SIZES 64
#define BENCH_MAX_SHAPES 32
#define BENCH_NUM_OPS CLREDUCE_OP_COUNT
#define BENCH_NUM_TYPES 8 /* the six of the built-in operators, half and bfloat16 */
#define EXIT_USAGE 2

typedef struct options {
    const char *device; /* --device, else CLREDUCE_DEVICE, else NULL */
    int list_devices;
    clreduce_variant variant_list[CLREDUCE_VARIANT_COUNT];
    size_t variant_count;
    int variants_given, no_variants;
    clreduce_scan_variant scan_variant_list[CLREDUCE_SCAN_VARIANT_COUNT];
    size_t scan_variant_count;
    int scan_variants_given, no_scan_variants;
    clreduce_scan_kind kind_list[2];
    size_t kind_count;
    int in_place;
    int user_sum; /* also time sum as a user-defined operator */
    clreduce_op op_list[BENCH_NUM_OPS];
    size_t op_count;
    clreduce_op multi_list[CLREDUCE_MULTI_MAX]; /* --multi: one call's operators */
    size_t multi_count;
    clreduce_type type_list[BENCH_NUM_TYPES];
    size_t type_count;
    shape shape_list[BENCH_MAX_SHAPES];
    size_t shape_count;
    size_t sizes[BENCH_MAX_SIZES];
    size_t size_count;
    int quick, full;
    int runs, warmup; /* -1: default */
    int b2b_calls;    /* MEASURE_B2B_AUTO (the default), 0, or a number */
    clreduce_settings settings;
    int no_peak, peak_only;
    int no_read_floor; /* no read_kernel row per size in the reductions' table */
    const char *csv, *json;
    int progress;
    int tune, tune_quick;
    int cold;
    uint64_t seed;
    char *command; /* the command line as typed (cli_free) */
} options;

/* Parses the command line into o. --help prints the help and exits with 0;
 * a bad option prints why and exits with EXIT_USAGE. */
void cli_parse(int argc, char **argv, options *o);

/* Fills in what was not given, for the benchmark (not for --tune): quick
 * mode on a CPU device unless --full, runs, warm-up, sizes, variants, scan
 * variant and kind, type and operator. */
void cli_apply_defaults(options *o, int device_is_cpu);

void cli_free(options *o);

#endif
