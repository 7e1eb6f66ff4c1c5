/* clreduce-bench: the command line: parsing, defaults and the help text.
 * Nothing here measures; main.c hands the result to the parts that do. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "measure.h"
#include "util.h"

static void usage(FILE *f)
{
    fputs(
        "usage: clreduce-bench [options]\n"
        "\n"
        "Times clreduce's reductions and prefix scans, variant by variant, on one\n"
        "OpenCL device, checks every result against a CPU reference, and compares\n"
        "their bandwidth with a ceiling measured on the same device. It prints a\n"
        "header (version, date, command, device, driver, platform, method), the\n"
        "driver's floor, a table of reductions and a table of scans.\n"
        "\n"
        "Device\n"
        "  --device SEL        \"P:D\" (platform and device index) or part of a platform\n"
        "                      or device name, as CLREDUCE_DEVICE (which applies when\n"
        "                      --device is absent); default: the first GPU, else the\n"
        "                      first device\n"
        "  --list-devices      list the OpenCL devices and exit\n"
        "\n"
        "What to measure (comma-separated lists)\n"
        "  --variants LIST     reductions: auto, interleaved, sequential, first_add,\n"
        "                      subgroup_tail, subgroup, unrolled, grid_stride, atomic,\n"
        "                      single_pass, reproducible, all or none (default: all)\n"
        "  --ops LIST          sum, min, max or all (those three), for reductions and\n"
        "                      scans; for reductions also argmin, argmax, minmax,\n"
        "                      sum_squares, sum_abs, norm2, mean_var and dot (scans\n"
        "                      and --shapes skip them) (default: sum)\n"
        "  --multi LIST        also one clreduce_reduce_multi() call of these operators\n"
        "                      (of one input, or all), a reduction row of its own per\n"
        "                      variant, and with --shapes one of\n"
        "                      clreduce_reduce_rows_multi() per rows shape and of\n"
        "                      clreduce_reduce_segments_multi() per segments shape:\n"
        "                      e.g. --multi sum,min,max,argmax\n"
        "  --types LIST        float, double, int32, uint32, int64, uint64 or all (those\n"
        "                      six), half, bfloat16: of these two storage types only sum\n"
        "                      is timed, in the row --user-sum adds, with or without it\n"
        "                      (default: float)\n"
        "  --sizes LIST        element counts: 1048576, 2^20, 2^20+1, 1e8, 64Mi (default:\n"
        "                      2^10, 2^12, ..., 2^30; sizes over the device's largest\n"
        "                      allocation or 40% of its memory are skipped)\n"
        "  --quick             sizes 2^10, 2^16, 2^20, 2^22, warm-up 2, 20 runs (the\n"
        "                      default on a CPU device)\n"
        "  --full              the GPU defaults on a CPU device too\n"
        "  --runs N            timed calls per measurement, each right after an untimed\n"
        "                      one; their medians are call_us and span_us (default 40,\n"
        "                      quick 20)\n"
        "  --warmup N          untimed calls before them (default 5, quick 2)\n"
        "  --b2b-calls N       calls per back-to-back batch, or auto (the default: as\n"
        "                      many as take 20 ms by call_us, 10 to 2000), or 0 (no\n"
        "                      b2b_us)\n"
        "  --seed N            seed of the random input (default 1)\n"
        "  --user-sum          where --ops has sum, also time it written as a user-defined\n"
        "                      operator (map x, combine a + b; variant auto; accumulator\n"
        "                      the element type, float for half and bfloat16), in a row\n"
        "                      of variant \"user\" under the built-in ones\n"
        "\n"
        "Prefix scans (a second table; sizes whose input and output together exceed\n"
        "the limit above are skipped)\n"
        "  --scan-variants LIST\n"
        "                      auto, hillis_steele, blelloch, reduce_then_scan,\n"
        "                      lookback, all or none (default: auto)\n"
        "  --scan-kinds LIST   inclusive, exclusive or all (default: inclusive)\n"
        "  --in-place          scan every input in place (default: into a second buffer)\n"
        "\n"
        "Rows and segments (a third table: one reduction per row or segment, --sizes\n"
        "elements in all, every --types and --ops; alone unless --variants or\n"
        "--scan-variants is given too)\n"
        "  --shapes LIST       rowsN (rows of N elements), scanrowsN (rows of N, each\n"
        "                      scanned, inclusive), randomN (segments of lengths\n"
        "                      uniform in [1, N], by offsets), fixedN (segments of N, by\n"
        "                      offsets), halfN (segments of N, and one of half the input\n"
        "                      among them, by offsets), one (one segment of everything),\n"
        "                      or all: rows32,\n"
        "                      rows512, rows4096, rows65536, random10, random1e3,\n"
        "                      random1e5, random1e7, one, fixed1000\n"
        "\n"
        "Tuning overrides (0 or absent: the library's table)\n"
        "  --wg N              work-items per work-group\n"
        "  --loads N           vector loads in flight per work-item\n"
        "  --vec N             elements per vector load\n"
        "  --gpcu N            work-groups per compute unit\n"
        "  --subgroup-path P   auto, none, nv_ptx, shuffle_relative, shuffle, reduce\n"
        "  --build-options S   appended to every kernel build (settings.build_options),\n"
        "                      e.g. \"-cl-nv-maxrregcount=32\" on NVIDIA\n"
        "  --segment-passes N  launches of a segments reduction: 1 or 2\n"
        "  --reproducible      a reproducible context (settings.reproducible): float sums\n"
        "                      of rows and segments, and AUTO's, in the fixed order\n"
        "\n"
        "Bandwidth ceiling and floors\n"
        "  --no-peak           do not measure it (no %peak column)\n"
        "  --peak-only         measure and print it, nothing else\n"
        "  --no-read-floor     no read_kernel row: by default the reductions' table has\n"
        "                      one per type and size, the fastest of a few grids of the\n"
        "                      ceiling's read kernel over the same input, timed as a\n"
        "                      call (the least a one-pass reduction can take)\n"
        "\n"
        "Output (the tables on stdout in any case)\n"
        "  --csv FILE          also write the rows as CSV, the header as # lines first\n"
        "  --json FILE         also write the header and the rows as JSON\n"
        "  --progress          progress lines on stderr even when it is not a terminal\n"
        "\n"
        "Other modes\n"
        "  --tune              search the tuning space for the first of --types and --ops\n"
        "                      (default float sum) with variant single_pass (or\n"
        "                      --variants) over --sizes (default 2^20, 2^24, 2^28; 2^20\n"
        "                      on a CPU), 10 runs each, scored by call_us; prints the\n"
        "                      best settings and a line for the library's tuning table.\n"
        "                      --wg, --loads, --vec and --gpcu pin a dimension.\n"
        "  --tune-quick        as --tune, over a small grid\n"
        "  --cold              time the first call (context creation and kernel build\n"
        "                      included) against the second, on 2^20 floats\n"
        "  --help              this text\n"
        "\n"
        "Columns (bench/README.md says more)\n"
        "  call_us   the headline, the column to compare with a peer such as CUB (whose\n"
        "            CUDA events around a call measure the same): the median over the\n"
        "            timed calls of the device time from the end of a marker enqueued\n"
        "            and flushed just before the call to the end of the call's last\n"
        "            command. The library's enqueueing and the launch latency are in.\n"
        "  b2b_us    back-to-back throughput: calls enqueued one after another between\n"
        "            two clFinish on a queue without profiling, no events asked for;\n"
        "            host time divided by the calls, median of 3 batches.\n"
        "  span_us   the median time from the call's first command's start to its last\n"
        "            command's end: the device busy with the call.\n"
        "  copies    copies of the input the calls rotate over, so that a small input\n"
        "            is read from memory each time, not from a cache.\n"
        "  bytes     read (reductions), read + written (scans: 2 x elements x size).\n"
        "  GB/s      bytes / call_us (1 GB = 1e9 bytes).\n"
        "  %peak     GB/s against the read-only kernel peak (reductions) or the copy\n"
        "            peak (scans) measured at the start.\n"
        "  status    ok; unsupported: why; WRONG RESULT: what; error: what.\n"
        "  empty_kernel  the driver's floor: an empty kernel of one work-group timed\n"
        "            the same way; no call can take less.\n"
        "\n"
        "Exit status: 0 success; 1 an OpenCL or clreduce failure or a wrong result;\n"
        "2 bad usage (including a device that does not exist).\n",
        f);
}

/* The command line as typed, each argument quoted where the shell would
 * need it, after CLREDUCE_DEVICE=... when that is set. */
static char *command_line(int argc, char **argv)
{
    size_t cap = 64;
    for (int i = 0; i < argc; i++)
        cap += 4 * strlen(argv[i]) + 3;
    const char *env = getenv("CLREDUCE_DEVICE");
    if (env)
        cap += 4 * strlen(env) + 24;
    char *out = xmalloc(cap), *p = out;
    *p = '\0';
    for (int i = -1; i < argc; i++) {
        const char *a = i < 0 ? env : argv[i];
        if (!a)
            continue;
        if (p != out)
            *p++ = ' ';
        if (i < 0)
            p += sprintf(p, "CLREDUCE_DEVICE=");
        int plain = *a != '\0';
        for (const char *c = a; *c; c++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                        "-_./=:,^+@%",
                        *c))
                plain = 0;
        if (plain) {
            p += sprintf(p, "%s", a);
            continue;
        }
        *p++ = '\'';
        for (const char *c = a; *c; c++) {
            if (*c == '\'')
                p += sprintf(p, "'\\''");
            else
                *p++ = *c;
        }
        *p++ = '\'';
        *p = '\0';
    }
    return out;
}

static _Noreturn void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static _Noreturn void usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("clreduce-bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (see --help)\n", stderr);
    va_end(ap);
    exit(EXIT_USAGE);
}

/* ---- option parsing --------------------------------------------------------- */

/* Calls fn on every comma-separated item of list. */
static void for_each_item(const char *list, const char *what, void (*fn)(const char *, void *),
                          void *arg)
{
    char item[128];
    const char *p = list;
    if (!*p)
        usage_error("empty list for %s", what);
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n == 0 || n >= sizeof item)
            usage_error("bad item in %s \"%s\"", what, list);
        memcpy(item, p, n);
        item[n] = '\0';
        fn(item, arg);
        p += n + (comma != NULL);
    }
}

/* Appends to list[0 .. n) the values of the enum T that the list item
 * `name` names among the `count` values name_of() names: one, or every one
 * in order for "all"; each value once in the list. Any other name is a
 * usage error: unknown <what> "<name>"<hint>. */
#define ADD_NAMED(T, list, n, count, name_of, name, what, hint)                                    \
    do {                                                                                           \
        int all_ = strcmp((name), "all") == 0, found_ = 0;                                         \
        for (int v_ = 0; v_ < (count); v_++) {                                                     \
            if (!all_ && strcmp((name), name_of((T)v_)) != 0)                                      \
                continue;                                                                          \
            found_ = 1;                                                                            \
            size_t j_ = 0;                                                                         \
            while (j_ < (n) && (list)[j_] != (T)v_)                                                \
                j_++;                                                                              \
            if (j_ == (n))                                                                         \
                (list)[(n)++] = (T)v_;                                                             \
        }                                                                                          \
        if (!found_)                                                                               \
            usage_error("unknown %s \"%s\"%s", (what), (name), (hint));                            \
    } while (0)

static void add_variant(const char *name, void *arg)
{
    options *o = arg;
    if (strcmp(name, "none") == 0)
        o->no_variants = 1;
    else
        ADD_NAMED(clreduce_variant, o->variant_list, o->variant_count, CLREDUCE_VARIANT_COUNT,
                  clreduce_variant_name, name, "variant", "");
}

static void add_scan_variant(const char *name, void *arg)
{
    options *o = arg;
    if (strcmp(name, "none") == 0)
        o->no_scan_variants = 1;
    else
        ADD_NAMED(clreduce_scan_variant, o->scan_variant_list, o->scan_variant_count,
                  CLREDUCE_SCAN_VARIANT_COUNT, clreduce_scan_variant_name, name, "scan variant",
                  "");
}

static void add_scan_kind(const char *name, void *arg)
{
    options *o = arg;
    ADD_NAMED(clreduce_scan_kind, o->kind_list, o->kind_count, CLREDUCE_EXCLUSIVE + 1,
              clreduce_scan_kind_name, name, "scan kind", " (inclusive, exclusive or all)");
}

/* "all" keeps its first meaning, sum, min and max (the operators that also
 * scan); the others are named one by one. */
static void add_op(const char *name, void *arg)
{
    options *o = arg;
    if (strcmp(name, "all") == 0) {
        for (int op = CLREDUCE_OP_SUM; op <= CLREDUCE_OP_MAX; op++)
            add_op(clreduce_op_name((clreduce_op)op), arg);
        return;
    }
    ADD_NAMED(clreduce_op, o->op_list, o->op_count, BENCH_NUM_OPS, clreduce_op_name, name, "op",
              "");
}

/* "all": every operator of one input. */
static void add_multi_op(const char *name, void *arg)
{
    options *o = arg;
    if (strcmp(name, "all") == 0) {
        for (int op = 0; op < CLREDUCE_OP_COUNT; op++)
            if (op != CLREDUCE_OP_DOT)
                add_multi_op(clreduce_op_name((clreduce_op)op), arg);
        return;
    }
    if (strcmp(name, "dot") == 0)
        usage_error("--multi takes operators of one input, not dot");
    ADD_NAMED(clreduce_op, o->multi_list, o->multi_count, CLREDUCE_OP_COUNT, clreduce_op_name,
              name, "op", "");
}

/* "all": the types the built-in operators take; the storage types are
 * named one by one, since only their sum is timed. */
static void add_type(const char *name, void *arg)
{
    options *o = arg;
    if (strcmp(name, "all") == 0) {
        for (int t = 0; t < BENCH_NUM_TYPES; t++)
            if (!storage_type((clreduce_type)t))
                add_type(clreduce_type_name((clreduce_type)t), arg);
        return;
    }
    ADD_NAMED(clreduce_type, o->type_list, o->type_count, BENCH_NUM_TYPES, clreduce_type_name,
              name, "type", "");
}

static void add_size(const char *text, void *arg)
{
    options *o = arg;
    size_t n;
    if (!parse_count(text, &n))
        usage_error("bad size \"%s\" (use a count such as 1048576, 2^20, 1e8 or 64Mi)", text);
    if (o->size_count == BENCH_MAX_SIZES)
        usage_error("more than %d sizes", BENCH_MAX_SIZES);
    o->sizes[o->size_count++] = n;
}

static void add_shape(const char *text, void *arg)
{
    options *o = arg;
    if (strcmp(text, "all") == 0) {
        static const char *const all[] = {"rows32",    "rows512",   "rows4096",
                                          "rows65536", "random10",  "random1e3",
                                          "random1e5", "random1e7", "one",
                                          "fixed1000"};
        for (size_t i = 0; i < sizeof all / sizeof *all; i++)
            add_shape(all[i], o);
        return;
    }
    if (o->shape_count == BENCH_MAX_SHAPES)
        usage_error("more than %d shapes", BENCH_MAX_SHAPES);
    if (!shape_parse(text, &o->shape_list[o->shape_count]))
        usage_error("bad shape \"%s\" (rowsN, randomN, fixedN, halfN, one or all)", text);
    o->shape_count++;
}

static unsigned long parse_number(const char *opt, const char *text, unsigned long max)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (!*text || *end || errno || text[0] == '-' || v > max)
        usage_error("%s wants a whole number up to %lu, not \"%s\"", opt, max, text);
    return v;
}

void cli_parse(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->runs = o->warmup = -1;
    o->b2b_calls = MEASURE_B2B_AUTO;
    o->seed = 1;
    clreduce_default_settings(&o->settings);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        char name[64];
        const char *value = NULL;
        const char *eq = strchr(arg, '=');
        if (strncmp(arg, "--", 2) == 0 && eq && (size_t)(eq - arg) < sizeof name) {
            memcpy(name, arg, (size_t)(eq - arg));
            name[eq - arg] = '\0';
            value = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", arg);
        }
#define FLAG(s) (strcmp(name, s) == 0 && !value)
#define VALUE(s)                                                                                   \
    (strcmp(name, s) == 0 &&                                                                       \
     (value || (i + 1 < argc ? (value = argv[++i], 1) : (usage_error("%s needs a value", s), 0))))
        if (FLAG("--help") || FLAG("-h")) {
            usage(stdout);
            exit(0);
        } else if (FLAG("--list-devices")) {
            o->list_devices = 1;
        } else if (VALUE("--device")) {
            o->device = value;
        } else if (VALUE("--variants")) {
            o->variants_given = 1;
            for_each_item(value, "--variants", add_variant, o);
        } else if (VALUE("--scan-variants")) {
            o->scan_variants_given = 1;
            for_each_item(value, "--scan-variants", add_scan_variant, o);
        } else if (VALUE("--scan-kinds")) {
            for_each_item(value, "--scan-kinds", add_scan_kind, o);
        } else if (FLAG("--in-place")) {
            o->in_place = 1;
        } else if (FLAG("--user-sum")) {
            o->user_sum = 1;
        } else if (VALUE("--ops")) {
            for_each_item(value, "--ops", add_op, o);
        } else if (VALUE("--multi")) {
            for_each_item(value, "--multi", add_multi_op, o);
        } else if (VALUE("--types")) {
            for_each_item(value, "--types", add_type, o);
        } else if (VALUE("--shapes")) {
            for_each_item(value, "--shapes", add_shape, o);
        } else if (VALUE("--sizes")) {
            for_each_item(value, "--sizes", add_size, o);
        } else if (FLAG("--quick")) {
            o->quick = 1;
        } else if (FLAG("--full")) {
            o->full = 1;
        } else if (VALUE("--runs")) {
            o->runs = (int)parse_number("--runs", value, 1000000);
            if (o->runs < 1)
                usage_error("--runs must be at least 1");
        } else if (VALUE("--warmup")) {
            o->warmup = (int)parse_number("--warmup", value, 1000000);
        } else if (VALUE("--b2b-calls")) {
            if (strcmp(value, "auto") == 0)
                o->b2b_calls = MEASURE_B2B_AUTO;
            else
                o->b2b_calls =
                    (int)parse_number("--b2b-calls", value, MEASURE_B2B_MAX_CALLS);
        } else if (VALUE("--seed")) {
            o->seed = parse_number("--seed", value, ~0ul);
        } else if (VALUE("--wg")) {
            o->settings.work_group_size = parse_number("--wg", value, 1u << 16);
        } else if (VALUE("--loads")) {
            o->settings.loads_per_work_item = (unsigned)parse_number("--loads", value, 1024);
        } else if (VALUE("--vec")) {
            o->settings.vector_width = (unsigned)parse_number("--vec", value, 1024);
        } else if (VALUE("--gpcu")) {
            o->settings.groups_per_compute_unit = (unsigned)parse_number("--gpcu", value, 1024);
        } else if (VALUE("--build-options")) {
            o->settings.build_options = value;
        } else if (VALUE("--segment-passes")) {
            o->settings.segment_passes = (unsigned)parse_number("--segment-passes", value, 2);
        } else if (FLAG("--reproducible")) {
            o->settings.reproducible = 1;
        } else if (VALUE("--subgroup-path")) {
            int found = 0;
            for (int p = 0; p <= CLREDUCE_SUBGROUP_PATH_REDUCE; p++) {
                if (strcmp(value, clreduce_subgroup_path_name((clreduce_subgroup_path)p)) == 0) {
                    o->settings.subgroup_path = (clreduce_subgroup_path)p;
                    found = 1;
                }
            }
            if (!found)
                usage_error("unknown sub-group path \"%s\"", value);
        } else if (FLAG("--no-read-floor")) {
            o->no_read_floor = 1;
        } else if (FLAG("--no-peak")) {
            o->no_peak = 1;
        } else if (FLAG("--peak-only")) {
            o->peak_only = 1;
        } else if (VALUE("--csv")) {
            o->csv = value;
        } else if (VALUE("--json")) {
            o->json = value;
        } else if (FLAG("--progress")) {
            o->progress = 1;
        } else if (FLAG("--tune")) {
            o->tune = 1;
        } else if (FLAG("--tune-quick")) {
            o->tune = o->tune_quick = 1;
        } else if (FLAG("--cold")) {
            o->cold = 1;
        } else {
            usage_error("unknown option \"%s\"", arg);
        }
#undef FLAG
#undef VALUE
    }
    if (o->no_variants && o->variant_count)
        usage_error("--variants none excludes every other variant");
    if (o->no_scan_variants && o->scan_variant_count)
        usage_error("--scan-variants none excludes every other scan variant");
    if (o->no_peak && o->peak_only)
        usage_error("--no-peak and --peak-only contradict each other");
    if (o->tune + o->cold + o->peak_only > 1)
        usage_error("choose one of --tune, --cold and --peak-only");
    if (o->tune && o->op_count && o->op_list[0] > CLREDUCE_OP_MAX)
        usage_error("--tune takes sum, min or max as the first of --ops");
    if (!o->device) {
        const char *env = getenv("CLREDUCE_DEVICE");
        if (env && *env)
            o->device = env;
    }
    if (o->tune && o->type_count && storage_type(o->type_list[0]))
        usage_error("--tune takes a type of the built-in operators as the first of --types, "
                    "not %s", clreduce_type_name(o->type_list[0]));
    if (o->type_count == 0)
        o->type_list[o->type_count++] = CLREDUCE_FLOAT;
    if (o->op_count == 0)
        o->op_list[o->op_count++] = CLREDUCE_OP_SUM;
    o->command = command_line(argc, argv);
}

void cli_apply_defaults(options *o, int device_is_cpu)
{
    o->quick = o->quick || (device_is_cpu && !o->full);
    if (o->runs < 0)
        o->runs = o->quick ? 20 : 40;
    if (o->warmup < 0)
        o->warmup = o->quick ? 2 : 5;
    if (!o->variants_given && !o->shape_count)
        add_variant("all", o);
    if (!o->scan_variants_given && !o->shape_count)
        add_scan_variant("auto", o);
    if (o->kind_count == 0)
        o->kind_list[o->kind_count++] = CLREDUCE_INCLUSIVE;
    if (o->size_count == 0) {
        if (o->quick) {
            static const int exps[] = {10, 16, 20, 22};
            for (size_t i = 0; i < sizeof exps / sizeof *exps; i++)
                o->sizes[o->size_count++] = (size_t)1 << exps[i];
        } else {
            for (int e = 10; e <= 30; e += 2)
                o->sizes[o->size_count++] = (size_t)1 << e;
        }
    }
}

void cli_free(options *o)
{
    free(o->command);
    o->command = NULL;
}
