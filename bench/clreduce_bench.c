/* clreduce-bench: memory bandwidth of clreduce's reductions and prefix scans,
 * variant by variant, against the device's own measured bandwidth ceiling.
 *
 * For every element type and size the input is filled with random data and
 * its reference results computed once; then for every operator and variant a
 * first call is checked against the reference, the variant is warmed up, and
 * --runs calls are timed: device time from the profiling events of the
 * first and last command of the call, end-to-end time on the host clock from
 * just before the enqueue to the return of a blocking read of the result.
 * Small inputs are rotated over copies that together exceed the device's
 * cache, so that every call reads from memory. The scans of the same inputs
 * follow (scan.c) and are printed as a second table. Run with --help for the
 * options. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#define EXIT_USAGE 2
#define PLATFORM_NOT_FOUND_KHR (-1001) /* clGetPlatformIDs through the ICD loader */

typedef struct options {
    const char *device;
    int list_devices;
    int variants[CLREDUCE_VARIANT_COUNT];
    clreduce_variant variant_list[CLREDUCE_VARIANT_COUNT];
    size_t variant_count;
    int variants_given, no_variants;
    int scan_variants[CLREDUCE_SCAN_VARIANT_COUNT];
    clreduce_scan_variant scan_variant_list[CLREDUCE_SCAN_VARIANT_COUNT];
    size_t scan_variant_count;
    int scan_variants_given, no_scan_variants;
    clreduce_scan_kind kind_list[2];
    size_t kind_count;
    int in_place;
    clreduce_op op_list[BENCH_NUM_OPS];
    size_t op_count;
    clreduce_type type_list[BENCH_NUM_TYPES];
    size_t type_count;
    size_t sizes[BENCH_MAX_SIZES];
    size_t size_count;
    int quick, full;
    int runs, warmup; /* -1: default */
    clreduce_settings settings;
    int no_peak, peak_only;
    const char *csv, *json;
    int progress;
    int tune, tune_quick;
    int cold;
    uint64_t seed;
} options;

static void usage(FILE *f)
{
    fputs(
        "usage: clreduce-bench [options]\n"
        "\n"
        "Measures the memory bandwidth of clreduce's reductions, variant by variant,\n"
        "against the bandwidth ceiling the benchmark measures on the same device.\n"
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
        "                      single_pass, all or none (default: all)\n"
        "  --ops LIST          sum, min, max or all, for reductions and scans\n"
        "                      (default: sum)\n"
        "  --types LIST        float, double, int32, uint32, int64, uint64 or all\n"
        "                      (default: float)\n"
        "  --sizes LIST        element counts: 1048576, 2^20, 2^20+1, 1e8, 64Mi (default:\n"
        "                      2^10, 2^12, ..., 2^30; sizes over the device's largest\n"
        "                      allocation or 40% of its memory are skipped)\n"
        "  --quick             sizes 2^10, 2^16, 2^20, 2^22, warm-up 2, 5 runs (the\n"
        "                      default on a CPU device)\n"
        "  --full              the GPU defaults on a CPU device too\n"
        "  --runs N            timed runs per measurement (default 20, quick 5)\n"
        "  --warmup N          untimed runs before them (default 5, quick 2)\n"
        "  --seed N            seed of the random input (default 1)\n"
        "\n"
        "Prefix scans (a second table: bytes are read + written, 2 x elements x size,\n"
        "and %peak is against the copy peak; sizes whose input and output together\n"
        "exceed the limit above are skipped)\n"
        "  --scan-variants LIST\n"
        "                      auto, hillis_steele, blelloch, reduce_then_scan,\n"
        "                      lookback, all or none (default: auto)\n"
        "  --scan-kinds LIST   inclusive, exclusive or all (default: inclusive)\n"
        "  --in-place          scan every input in place (default: into a second buffer)\n"
        "\n"
        "Tuning overrides (0 or absent: the library's table)\n"
        "  --wg N              work-items per work-group\n"
        "  --loads N           vector loads in flight per work-item\n"
        "  --vec N             elements per vector load\n"
        "  --gpcu N            work-groups per compute unit\n"
        "  --subgroup-path P   auto, none, nv_ptx, shuffle_relative, shuffle, reduce\n"
        "\n"
        "Bandwidth ceiling\n"
        "  --no-peak           do not measure it (no %peak column)\n"
        "  --peak-only         measure and print it, nothing else\n"
        "\n"
        "Output (a table on stdout in any case)\n"
        "  --csv FILE          also write the rows as CSV\n"
        "  --json FILE         also write the rows as JSON\n"
        "  --progress          progress lines on stderr even when it is not a terminal\n"
        "\n"
        "Other modes\n"
        "  --tune              search the tuning space for the first of --types and --ops\n"
        "                      (default float sum) with variant single_pass (or\n"
        "                      --variants) over --sizes (default 2^20, 2^24, 2^28; 2^20\n"
        "                      on a CPU), 10 runs each; prints the best settings and a\n"
        "                      line for the library's tuning table. --wg, --loads, --vec\n"
        "                      and --gpcu pin a dimension.\n"
        "  --tune-quick        as --tune, over a small grid\n"
        "  --cold              time the first call (context creation and kernel build\n"
        "                      included) against the second, on 2^20 floats\n"
        "  --help              this text\n"
        "\n"
        "Exit status: 0 success; 1 an OpenCL or clreduce failure or a wrong result;\n"
        "2 bad usage (including a device that does not exist).\n",
        f);
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

static void add_variant(const char *name, void *arg)
{
    options *o = arg;
    if (strcmp(name, "none") == 0) {
        o->no_variants = 1;
        return;
    }
    if (strcmp(name, "all") == 0) {
        for (int v = 0; v < CLREDUCE_VARIANT_COUNT; v++)
            add_variant(clreduce_variant_name((clreduce_variant)v), arg);
        return;
    }
    for (int v = 0; v < CLREDUCE_VARIANT_COUNT; v++) {
        if (strcmp(name, clreduce_variant_name((clreduce_variant)v)) == 0) {
            if (!o->variants[v]) {
                o->variants[v] = 1;
                o->variant_list[o->variant_count++] = (clreduce_variant)v;
            }
            return;
        }
    }
    usage_error("unknown variant \"%s\"", name);
}

static void add_scan_variant(const char *name, void *arg)
{
    options *o = arg;
    if (strcmp(name, "none") == 0) {
        o->no_scan_variants = 1;
        return;
    }
    if (strcmp(name, "all") == 0) {
        for (int v = 0; v < CLREDUCE_SCAN_VARIANT_COUNT; v++)
            add_scan_variant(clreduce_scan_variant_name((clreduce_scan_variant)v), arg);
        return;
    }
    for (int v = 0; v < CLREDUCE_SCAN_VARIANT_COUNT; v++) {
        if (strcmp(name, clreduce_scan_variant_name((clreduce_scan_variant)v)) == 0) {
            if (!o->scan_variants[v]) {
                o->scan_variants[v] = 1;
                o->scan_variant_list[o->scan_variant_count++] = (clreduce_scan_variant)v;
            }
            return;
        }
    }
    usage_error("unknown scan variant \"%s\"", name);
}

static void add_scan_kind(const char *name, void *arg)
{
    options *o = arg;
    if (strcmp(name, "all") == 0) {
        add_scan_kind("inclusive", arg);
        add_scan_kind("exclusive", arg);
        return;
    }
    for (int k = 0; k <= CLREDUCE_EXCLUSIVE; k++) {
        if (strcmp(name, clreduce_scan_kind_name((clreduce_scan_kind)k)) == 0) {
            for (size_t i = 0; i < o->kind_count; i++)
                if (o->kind_list[i] == (clreduce_scan_kind)k)
                    return;
            o->kind_list[o->kind_count++] = (clreduce_scan_kind)k;
            return;
        }
    }
    usage_error("unknown scan kind \"%s\" (inclusive, exclusive or all)", name);
}

static void add_op(const char *name, void *arg)
{
    options *o = arg;
    if (strcmp(name, "all") == 0) {
        for (int v = 0; v < BENCH_NUM_OPS; v++)
            add_op(clreduce_op_name((clreduce_op)v), arg);
        return;
    }
    for (int v = 0; v < BENCH_NUM_OPS; v++) {
        if (strcmp(name, clreduce_op_name((clreduce_op)v)) == 0) {
            for (size_t i = 0; i < o->op_count; i++)
                if (o->op_list[i] == (clreduce_op)v)
                    return;
            o->op_list[o->op_count++] = (clreduce_op)v;
            return;
        }
    }
    usage_error("unknown op \"%s\"", name);
}

static void add_type(const char *name, void *arg)
{
    options *o = arg;
    if (strcmp(name, "all") == 0) {
        for (int v = 0; v < BENCH_NUM_TYPES; v++)
            add_type(clreduce_type_name((clreduce_type)v), arg);
        return;
    }
    for (int v = 0; v < BENCH_NUM_TYPES; v++) {
        if (strcmp(name, clreduce_type_name((clreduce_type)v)) == 0) {
            for (size_t i = 0; i < o->type_count; i++)
                if (o->type_list[i] == (clreduce_type)v)
                    return;
            o->type_list[o->type_count++] = (clreduce_type)v;
            return;
        }
    }
    usage_error("unknown type \"%s\"", name);
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

static unsigned long parse_number(const char *opt, const char *text, unsigned long max)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (!*text || *end || errno || text[0] == '-' || v > max)
        usage_error("%s wants a whole number up to %lu, not \"%s\"", opt, max, text);
    return v;
}

static void parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->runs = o->warmup = -1;
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
        } else if (VALUE("--ops")) {
            for_each_item(value, "--ops", add_op, o);
        } else if (VALUE("--types")) {
            for_each_item(value, "--types", add_type, o);
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
}

/* ---- devices -------------------------------------------------------------- */

typedef struct device_ref {
    cl_platform_id platform;
    cl_device_id device;
    unsigned p, d;
    char platform_name[256], name[256];
    cl_device_type type;
} device_ref;

/* Every device of every platform, in clinfo -l order. */
static size_t enumerate_devices(device_ref *out, size_t max)
{
    cl_uint nplatforms = 0;
    cl_platform_id platforms[32];
    cl_int err = clGetPlatformIDs(32, platforms, &nplatforms);
    if (err == PLATFORM_NOT_FOUND_KHR || nplatforms == 0)
        return 0;
    check_cl(err, "clGetPlatformIDs");
    if (nplatforms > 32)
        nplatforms = 32;
    size_t count = 0;
    for (cl_uint p = 0; p < nplatforms; p++) {
        cl_uint ndevices = 0;
        cl_device_id devices[64];
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devices, &ndevices) !=
            CL_SUCCESS)
            continue;
        if (ndevices > 64)
            ndevices = 64;
        for (cl_uint d = 0; d < ndevices && count < max; d++) {
            device_ref *r = &out[count++];
            memset(r, 0, sizeof *r);
            r->platform = platforms[p];
            r->device = devices[d];
            r->p = p;
            r->d = d;
            clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof r->platform_name - 1,
                              r->platform_name, NULL);
            clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof r->name - 1, r->name, NULL);
            clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof r->type, &r->type, NULL);
        }
    }
    return count;
}

/* The index in refs of the device `selector` names (NULL: first GPU, else
 * first device), as the library chooses it; -1 if none. */
static long select_device(const device_ref *refs, size_t n, const char *selector)
{
    cl_platform_id platform;
    cl_device_id device;
    if (clreduce_find_device(selector, &platform, &device) != CLREDUCE_SUCCESS)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (refs[i].device == device)
            return (long)i;
    return -1;
}

static const char *type_word(cl_device_type t)
{
    return t & CL_DEVICE_TYPE_GPU ? "GPU" : t & CL_DEVICE_TYPE_CPU ? "CPU"
                                      : t & CL_DEVICE_TYPE_ACCELERATOR ? "accelerator"
                                                                       : "other";
}

static void list_devices(const device_ref *refs, size_t n)
{
    if (n == 0) {
        printf("no OpenCL device found\n");
        return;
    }
    long def = select_device(refs, n, NULL);
    for (size_t i = 0; i < n; i++)
        printf("%c %u:%u  %s / %s (%s)\n", (long)i == def ? '*' : ' ', refs[i].p, refs[i].d,
               refs[i].platform_name, refs[i].name, type_word(refs[i].type));
    printf("(* the default when neither --device nor CLREDUCE_DEVICE is given)\n");
}

static void open_device(const device_ref *ref, bench_device *d)
{
    memset(d, 0, sizeof *d);
    d->platform = ref->platform;
    d->device = ref->device;
    d->platform_index = ref->p;
    d->device_index = ref->d;
    snprintf(d->platform_name, sizeof d->platform_name, "%s", ref->platform_name);
    check_cl(clGetDeviceInfo(d->device, CL_DEVICE_NAME, sizeof d->name - 1, d->name, NULL),
             "clGetDeviceInfo(CL_DEVICE_NAME)");
    check_cl(clGetDeviceInfo(d->device, CL_DEVICE_VENDOR, sizeof d->vendor - 1, d->vendor, NULL),
             "clGetDeviceInfo(CL_DEVICE_VENDOR)");
    check_cl(clGetDeviceInfo(d->device, CL_DRIVER_VERSION, sizeof d->driver - 1, d->driver, NULL),
             "clGetDeviceInfo(CL_DRIVER_VERSION)");
    check_cl(clGetDeviceInfo(d->device, CL_DEVICE_VERSION, sizeof d->device_version - 1,
                             d->device_version, NULL),
             "clGetDeviceInfo(CL_DEVICE_VERSION)");
    check_cl(clGetPlatformInfo(d->platform, CL_PLATFORM_VERSION, sizeof d->platform_version - 1,
                               d->platform_version, NULL),
             "clGetPlatformInfo(CL_PLATFORM_VERSION)");
    check_cl(clGetDeviceInfo(d->device, CL_DEVICE_TYPE, sizeof d->type, &d->type, NULL),
             "clGetDeviceInfo(CL_DEVICE_TYPE)");
    check_cl(clGetDeviceInfo(d->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof d->compute_units,
                             &d->compute_units, NULL),
             "clGetDeviceInfo(CL_DEVICE_MAX_COMPUTE_UNITS)");
    check_cl(clGetDeviceInfo(d->device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                             sizeof d->max_work_group_size, &d->max_work_group_size, NULL),
             "clGetDeviceInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE)");
    check_cl(clGetDeviceInfo(d->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof d->max_alloc,
                             &d->max_alloc, NULL),
             "clGetDeviceInfo(CL_DEVICE_MAX_MEM_ALLOC_SIZE)");
    check_cl(clGetDeviceInfo(d->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof d->global_mem,
                             &d->global_mem, NULL),
             "clGetDeviceInfo(CL_DEVICE_GLOBAL_MEM_SIZE)");
    check_cl(clGetDeviceInfo(d->device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof d->cache_size,
                             &d->cache_size, NULL),
             "clGetDeviceInfo(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE)");
    d->is_cpu = (d->type & CL_DEVICE_TYPE_CPU) != 0;
    if (d->compute_units == 0)
        d->compute_units = 1;

    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d->platform, 0};
    cl_int err;
    d->context = clCreateContext(props, 1, &d->device, NULL, NULL, &err);
    check_cl(err, "clCreateContext");
    d->queue = clCreateCommandQueue(d->context, d->device, CL_QUEUE_PROFILING_ENABLE, &err);
    check_cl(err, "clCreateCommandQueue (with profiling)");
}

static void close_device(bench_device *d)
{
    if (d->queue)
        clReleaseCommandQueue(d->queue);
    if (d->context)
        clReleaseContext(d->context);
    memset(d, 0, sizeof *d);
}

/* ---- measuring one variant ------------------------------------------------ */

/* One call: returns the library's status; OpenCL failures of the benchmark's
 * own commands are fatal. */
static clreduce_status one_call(const bench_device *d, clreduce_ctx *ctx, dataset *ds,
                                clreduce_op op, clreduce_variant variant, void *value,
                                double *device_ns, double *e2e_ns)
{
    size_t offset = dataset_next_offset(ds);
    cl_event first = NULL, done = NULL;
    double t0 = now_ns();
    clreduce_status s = clreduce_reduce_profiled(ctx, d->queue, op, ds->type, variant, ds->buffer,
                                                 offset, ds->count, ds->result, 0, 0, NULL,
                                                 &first, &done);
    if (s != CLREDUCE_SUCCESS)
        return s;
    finish_timed_call(d->queue, ds->result, 0, ds->esize, value, first, done, t0,
                      "reading the result or its profiling information", device_ns, e2e_ns);
    return CLREDUCE_SUCCESS;
}

void set_failure(measurement *m, clreduce_ctx *ctx, clreduce_status s)
{
    m->status = s == CLREDUCE_ERROR_UNSUPPORTED ? MEASURE_UNSUPPORTED : MEASURE_ERROR;
    const char *why = clreduce_last_error(ctx);
    if (m->status == MEASURE_UNSUPPORTED)
        snprintf(m->message, sizeof m->message, "%s", *why ? why : clreduce_status_string(s));
    else
        snprintf(m->message, sizeof m->message, "%s: %s", clreduce_status_string(s), why);
}

void measure_variant(const bench_device *d, clreduce_ctx *ctx, dataset *ds, clreduce_op op,
                     clreduce_variant variant, int warmup, int runs, measurement *m)
{
    memset(m, 0, sizeof *m);
    m->median_us = m->min_us = m->e2e_median_us = NAN;
    clreduce_status s = clreduce_check_support(ctx, op, ds->type, variant);
    if (s != CLREDUCE_SUCCESS) {
        set_failure(m, ctx, s);
        return;
    }

    /* The checked call, into a result poisoned beforehand. */
    unsigned char value[8], poison[8];
    memset(poison, 0xff, sizeof poison);
    check_cl(clEnqueueWriteBuffer(d->queue, ds->result, CL_TRUE, 0, ds->esize, poison, 0, NULL,
                                  NULL),
             "clEnqueueWriteBuffer (result)");
    double dev_ns, e2e_ns;
    s = one_call(d, ctx, ds, op, variant, value, &dev_ns, &e2e_ns);
    if (s != CLREDUCE_SUCCESS) {
        set_failure(m, ctx, s);
        return;
    }
    if (!dataset_check(ds, op, value, m->message, sizeof m->message)) {
        m->status = MEASURE_WRONG;
        return;
    }

    for (int w = 0; w < warmup; w++) {
        s = clreduce_reduce(ctx, d->queue, op, ds->type, variant, ds->buffer,
                            dataset_next_offset(ds), ds->count, ds->result, 0, 0, NULL, NULL);
        if (s != CLREDUCE_SUCCESS) {
            set_failure(m, ctx, s);
            clFinish(d->queue);
            return;
        }
    }
    check_cl(clFinish(d->queue), "clFinish");

    double *dev = malloc(2 * (size_t)runs * sizeof *dev);
    if (!dev)
        fatal("out of host memory");
    double *e2e = dev + runs;
    for (int r = 0; r < runs; r++) {
        s = one_call(d, ctx, ds, op, variant, value, &dev[r], &e2e[r]);
        if (s != CLREDUCE_SUCCESS) {
            set_failure(m, ctx, s);
            free(dev);
            return;
        }
        char why[sizeof m->message - 64];
        if (!dataset_check(ds, op, value, why, sizeof why)) {
            snprintf(m->message, sizeof m->message, "timed run %d: %s", r + 1, why);
            m->status = MEASURE_WRONG;
            free(dev);
            return;
        }
    }
    m->min_us = min_of(dev, (size_t)runs) / 1e3;
    m->median_us = median_of(dev, (size_t)runs) / 1e3;
    m->e2e_median_us = median_of(e2e, (size_t)runs) / 1e3;
    m->status = MEASURE_OK;
    free(dev);
}

/* ---- the main benchmark ------------------------------------------------------ */

static char *dup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *dup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    if (!s)
        fatal("out of host memory");
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* Timings, bandwidth against `peak_gbps` (NAN: not measured) and status. */
static void fill_measurement(row *r, const measurement *m, double peak_gbps)
{
    r->median_us = m->median_us;
    r->min_us = m->min_us;
    r->e2e_median_us = m->e2e_median_us;
    r->gbps = m->status == MEASURE_OK ? (double)r->bytes / (m->median_us * 1e3) : NAN;
    r->peak_gbps = peak_gbps;
    r->pct_peak = 100.0 * r->gbps / peak_gbps;
    r->speedup = NAN;
    switch (m->status) {
    case MEASURE_OK: r->status = dup_printf("ok"); break;
    case MEASURE_UNSUPPORTED: r->status = dup_printf("unsupported: %s", m->message); break;
    case MEASURE_WRONG: r->status = dup_printf("WRONG RESULT: %s", m->message); break;
    case MEASURE_ERROR: r->status = dup_printf("error: %s", m->message); break;
    }
    /* One line per row: a build log's line breaks become spaces. */
    for (char *c = r->status; *c; c++)
        if (*c == '\n' || *c == '\r' || *c == '\t')
            *c = ' ';
}

static void fill_row(row *r, clreduce_ctx *ctx, clreduce_variant v, clreduce_op op,
                     clreduce_type type, size_t count, const measurement *m,
                     const peak_result *peak)
{
    r->variant = clreduce_variant_name(v);
    r->resolved = v == CLREDUCE_AUTO ? clreduce_variant_name(clreduce_auto_variant(ctx, type))
                                     : NULL;
    r->op = op;
    r->type = type;
    r->elements = count;
    r->bytes = count * clreduce_type_size(type);
    fill_measurement(r, m, peak->measured ? peak->read_gbps : NAN);
}

/* A scan reads and writes every element: its bytes count both, against the
 * copy peak. */
static void fill_scan_row(row *r, clreduce_ctx *ctx, clreduce_scan_variant v, clreduce_op op,
                          clreduce_scan_kind kind, int in_place, clreduce_type type,
                          size_t count, const measurement *m, const peak_result *peak)
{
    r->variant = clreduce_scan_variant_name(v);
    r->resolved = v == CLREDUCE_SCAN_AUTO
                      ? clreduce_scan_variant_name(clreduce_auto_scan_variant(ctx, type))
                      : NULL;
    r->is_scan = 1;
    r->kind = kind;
    r->in_place = in_place;
    r->op = op;
    r->type = type;
    r->elements = count;
    r->bytes = 2 * count * clreduce_type_size(type);
    fill_measurement(r, m, peak->measured ? peak->copy_gbps : NAN);
}

/* A wrong result or an error goes to stderr at once, besides the table. */
static void announce_failure(const measurement *m, const char *what)
{
    if (m->status != MEASURE_WRONG && m->status != MEASURE_ERROR)
        return;
    progress_done();
    fprintf(stderr, "clreduce-bench: %s: %s: %s\n",
            m->status == MEASURE_WRONG ? "WRONG RESULT" : "error", what, m->message);
}

static void format_date(char *out, size_t size)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int run_benchmark(const bench_device *d, clreduce_ctx *ctx, const options *o,
                         const peak_result *peak, int runs, int warmup)
{
    report_meta meta;
    memset(&meta, 0, sizeof meta);
    meta.device = d;
    format_date(meta.date, sizeof meta.date);
    meta.peak = peak;
    meta.runs = runs;
    meta.warmup = warmup;
    meta.scans = o->scan_variant_count > 0;

    /* A second header line: the tuning in effect and the rotation. */
    char settings[1024] = "";
    size_t len = 0;
    for (size_t t = 0; t < o->type_count && len < sizeof settings; t++) {
        clreduce_settings eff;
        if (clreduce_get_tuning(ctx, o->type_list[t], &eff) != CLREDUCE_SUCCESS)
            continue;
        len += (size_t)snprintf(settings + len, sizeof settings - len,
                                "%s%s: wg %zu, groups/CU %u, loads %u, vec %u",
                                t ? "; " : "# tuning ", clreduce_type_name(o->type_list[t]),
                                eff.work_group_size, eff.groups_per_compute_unit,
                                eff.loads_per_work_item, eff.vector_width);
    }
    if (len < sizeof settings) {
        char ws[32];
        bytes_label((double)working_set_target(d), ws, sizeof ws);
        snprintf(settings + len, sizeof settings - len,
                 " | sub-group path %s | inputs smaller than %s are rotated over copies",
                 clreduce_subgroup_path_name(clreduce_get_subgroup_path(ctx)), ws);
    }
    report_header(&meta, settings);
    /* The scans' table follows the reductions' at the end, or stands alone. */
    int defer_scans = o->variant_count > 0;
    if (o->variant_count)
        report_columns();
    else if (meta.scans)
        report_scan_columns(&meta, o->in_place);
    fflush(stdout);

    row_list rows, scan_rows;
    memset(&rows, 0, sizeof rows);
    memset(&scan_rows, 0, sizeof scan_rows);
    int failed = 0;
    size_t per_size = o->op_count * o->variant_count;
    size_t per_size_scans = o->op_count * o->kind_count * o->scan_variant_count;
    size_t total = o->type_count * o->size_count * (per_size + per_size_scans), done = 0;
    cl_ulong limit = device_buffer_limit(d);

    for (size_t ti = 0; ti < o->type_count; ti++) {
        clreduce_type type = o->type_list[ti];
        size_t esize = clreduce_type_size(type);
        for (size_t si = 0; si < o->size_count; si++) {
            size_t count = o->sizes[si];
            char label[32];
            size_label(count, label, sizeof label);
            int reduce_fits = (cl_ulong)count * esize <= limit;
            int scan_fits = (cl_ulong)count * esize <= limit / 2;
            if (per_size && !reduce_fits) {
                char b[32], l[32];
                bytes_label((double)count * (double)esize, b, sizeof b);
                bytes_label((double)limit, l, sizeof l);
                progress_done();
                printf("# skipped %s %s (%s): more than %s, the lesser of the largest allocation "
                       "and 40%% of the device's memory\n",
                       label, clreduce_type_name(type), b, l);
                done += per_size;
            }
            if (per_size_scans && !scan_fits) {
                char b[32], l[32];
                bytes_label(2.0 * (double)count * (double)esize, b, sizeof b);
                bytes_label((double)limit, l, sizeof l);
                progress_done();
                printf("# skipped scans of %s %s (%s for input and output): more than %s, the "
                       "lesser of the largest allocation and 40%% of the device's memory\n",
                       label, clreduce_type_name(type), b, l);
                done += per_size_scans;
            }
            /* Nothing to prepare if no variant can run this type. */
            int any = 0, any_scan = 0;
            for (size_t oi = 0; oi < o->op_count; oi++) {
                for (size_t vi = 0; vi < o->variant_count && reduce_fits; vi++)
                    any |= clreduce_check_support(ctx, o->op_list[oi], type,
                                                  o->variant_list[vi]) == CLREDUCE_SUCCESS;
                for (size_t vi = 0; vi < o->scan_variant_count && scan_fits && o->kind_count;
                     vi++)
                    any_scan |= clreduce_check_scan_support(ctx, o->op_list[oi], type,
                                                            o->scan_variant_list[vi]) ==
                                CLREDUCE_SUCCESS;
            }
            dataset ds;
            memset(&ds, 0, sizeof ds);
            if (any || any_scan) {
                progress("[%zu/%zu] preparing %s %s", done, total, clreduce_type_name(type),
                         label);
                scan_window *windows = NULL;
                size_t window_count = 0;
                if (any_scan)
                    scan_windows_choose(count, esize, o->seed, &windows, &window_count);
                dataset_create_with_windows(d, type, count, o->seed, working_set_target(d),
                                            any_scan ? limit / 2 : limit, windows,
                                            window_count, &ds);
            }
            for (size_t oi = 0; oi < o->op_count && reduce_fits; oi++) {
                clreduce_op op = o->op_list[oi];
                size_t group = rows.count;
                for (size_t vi = 0; vi < o->variant_count; vi++) {
                    clreduce_variant v = o->variant_list[vi];
                    char what[128];
                    snprintf(what, sizeof what, "%s %s %s %s", clreduce_variant_name(v),
                             clreduce_type_name(type), clreduce_op_name(op), label);
                    progress("[%zu/%zu] %s", ++done, total, what);
                    measurement m;
                    if (any) {
                        measure_variant(d, ctx, &ds, op, v, warmup, runs, &m);
                    } else {
                        memset(&m, 0, sizeof m);
                        m.median_us = m.min_us = m.e2e_median_us = NAN;
                        clreduce_status s = clreduce_check_support(ctx, op, type, v);
                        set_failure(&m, ctx, s);
                    }
                    if (m.status == MEASURE_WRONG || m.status == MEASURE_ERROR)
                        failed = 1;
                    announce_failure(&m, what);
                    fill_row(row_list_add(&rows), ctx, v, op, type, count, &m, peak);
                }
                /* Speed-ups over interleaved within the group. */
                double base = NAN;
                for (size_t i = group; i < rows.count; i++)
                    if (strcmp(rows.rows[i].variant, "interleaved") == 0)
                        base = rows.rows[i].median_us;
                progress_done();
                for (size_t i = group; i < rows.count; i++) {
                    rows.rows[i].speedup = base / rows.rows[i].median_us;
                    report_row(&rows.rows[i]);
                }
                fflush(stdout);
            }
            scan_target target;
            memset(&target, 0, sizeof target);
            if (any_scan)
                scan_target_create(d, &ds, o->in_place, &target);
            for (size_t oi = 0; oi < o->op_count && scan_fits; oi++) {
                for (size_t ki = 0; ki < o->kind_count; ki++) {
                    for (size_t vi = 0; vi < o->scan_variant_count; vi++) {
                        clreduce_op op = o->op_list[oi];
                        clreduce_scan_kind kind = o->kind_list[ki];
                        clreduce_scan_variant v = o->scan_variant_list[vi];
                        char what[160];
                        snprintf(what, sizeof what, "%s %s scan %s %s %s%s",
                                 clreduce_scan_variant_name(v), clreduce_scan_kind_name(kind),
                                 clreduce_type_name(type), clreduce_op_name(op), label,
                                 o->in_place ? " in place" : "");
                        progress("[%zu/%zu] %s", ++done, total, what);
                        measurement m;
                        if (any_scan) {
                            measure_scan(d, ctx, &ds, &target, op, kind, v, warmup, runs, &m);
                        } else {
                            memset(&m, 0, sizeof m);
                            m.median_us = m.min_us = m.e2e_median_us = NAN;
                            clreduce_status s = clreduce_check_scan_support(ctx, op, type, v);
                            set_failure(&m, ctx, s);
                        }
                        if (m.status == MEASURE_WRONG || m.status == MEASURE_ERROR)
                            failed = 1;
                        announce_failure(&m, what);
                        row *r = row_list_add(&scan_rows);
                        fill_scan_row(r, ctx, v, op, kind, o->in_place, type, count, &m, peak);
                        if (!defer_scans) {
                            progress_done();
                            report_row(r);
                            fflush(stdout);
                        }
                    }
                }
            }
            if (any_scan)
                scan_target_release(&target);
            if (any || any_scan)
                dataset_release(&ds);
        }
    }
    progress_done();
    if (defer_scans && meta.scans) {
        printf("\n");
        report_scan_columns(&meta, o->in_place);
        for (size_t i = 0; i < scan_rows.count; i++)
            report_row(&scan_rows.rows[i]);
        fflush(stdout);
    }
    /* One list for the files: the reductions, then the scans. */
    for (size_t i = 0; i < scan_rows.count; i++)
        *row_list_add(&rows) = scan_rows.rows[i];
    free(scan_rows.rows);

    if (o->csv && !report_write_csv(o->csv, &meta, &rows)) {
        fprintf(stderr, "clreduce-bench: writing %s failed: %s\n", o->csv, strerror(errno));
        failed = 1;
    }
    if (o->json && !report_write_json(o->json, &meta, &rows)) {
        fprintf(stderr, "clreduce-bench: writing %s failed: %s\n", o->json, strerror(errno));
        failed = 1;
    }
    size_t wrong = 0;
    for (size_t i = 0; i < rows.count; i++)
        wrong += strncmp(rows.rows[i].status, "WRONG", 5) == 0;
    if (wrong)
        fprintf(stderr, "clreduce-bench: %zu measurement(s) gave a WRONG RESULT\n", wrong);
    row_list_free(&rows);
    return failed;
}

static void print_peak(const bench_device *d, const peak_result *p)
{
    char b[32];
    bytes_label((double)p->copy_bytes, b, sizeof b);
    printf("# peak on %s: read-only kernel %.1f GB/s (read bytes), clEnqueueCopyBuffer %.1f GB/s "
           "(read+write bytes), buffers of %s\n",
           d->name, p->read_gbps, p->copy_gbps, b);
}

int main(int argc, char **argv)
{
    options o;
    parse_options(argc, argv, &o);
    progress_enable(o.progress);

    device_ref refs[256];
    size_t nrefs = enumerate_devices(refs, sizeof refs / sizeof refs[0]);
    if (o.list_devices) {
        list_devices(refs, nrefs);
        return 0;
    }
    const char *selector = o.device;
    if (!selector) {
        selector = getenv("CLREDUCE_DEVICE");
        if (selector && !*selector)
            selector = NULL;
    }
    if (nrefs == 0) {
        fprintf(stderr, "clreduce-bench: no OpenCL device found\n");
        return 1;
    }
    long pick = select_device(refs, nrefs, selector);
    if (pick < 0) {
        fprintf(stderr,
                "clreduce-bench: no OpenCL device matches \"%s\" (use \"P:D\" indices or part of "
                "a platform or device name; --list-devices shows them)\n",
                selector);
        return EXIT_USAGE;
    }
    bench_device dev;
    open_device(&refs[pick], &dev);

    if (o.cold) {
        int rc = run_cold(&dev, &o.settings);
        close_device(&dev);
        return rc;
    }

    int quick = o.quick || (dev.is_cpu && !o.full);
    int runs = o.runs > 0 ? o.runs : quick ? 5 : 20;
    int warmup = o.warmup >= 0 ? o.warmup : quick ? 2 : 5;
    if (o.type_count == 0)
        o.type_list[o.type_count++] = CLREDUCE_FLOAT;
    if (o.op_count == 0)
        o.op_list[o.op_count++] = CLREDUCE_OP_SUM;

    if (o.tune) {
        clreduce_variant sp = CLREDUCE_SINGLE_PASS;
        tune_options t;
        memset(&t, 0, sizeof t);
        t.type = o.type_list[0];
        t.op = o.op_list[0];
        t.variants = o.variant_count ? o.variant_list : &sp;
        t.variant_count = o.variant_count ? o.variant_count : 1;
        size_t tune_sizes[3] = {(size_t)1 << 20, (size_t)1 << 24, (size_t)1 << 28};
        t.sizes = o.size_count ? o.sizes : tune_sizes;
        t.size_count = o.size_count ? o.size_count : dev.is_cpu ? 1 : 3;
        t.runs = o.runs > 0 ? o.runs : 10;
        t.warmup = o.warmup >= 0 ? o.warmup : 2;
        t.quick = o.tune_quick;
        t.fixed = &o.settings;
        t.seed = o.seed;
        int rc = run_tune(&dev, &t);
        close_device(&dev);
        return rc;
    }

    if (!o.variants_given)
        add_variant("all", &o);
    if (!o.scan_variants_given)
        add_scan_variant("auto", &o);
    if (o.kind_count == 0)
        o.kind_list[o.kind_count++] = CLREDUCE_INCLUSIVE;
    if (o.size_count == 0) {
        if (quick) {
            static const int exps[] = {10, 16, 20, 22};
            for (size_t i = 0; i < sizeof exps / sizeof *exps; i++)
                o.sizes[o.size_count++] = (size_t)1 << exps[i];
        } else {
            for (int e = 10; e <= 30; e += 2)
                o.sizes[o.size_count++] = (size_t)1 << e;
        }
    }

    clreduce_ctx *ctx = NULL;
    clreduce_status s = clreduce_create_with_settings(dev.context, dev.device, &o.settings, &ctx);
    if (s != CLREDUCE_SUCCESS) {
        fprintf(stderr, "clreduce-bench: clreduce_create_with_settings failed: %s: %s\n",
                clreduce_status_string(s), clreduce_last_error(NULL));
        close_device(&dev);
        return s == CLREDUCE_ERROR_INVALID_ARGUMENT ? EXIT_USAGE : 1;
    }

    peak_result peak;
    memset(&peak, 0, sizeof peak);
    if (!o.no_peak) {
        progress("measuring the bandwidth ceiling");
        peak_measure(&dev, quick ? 5 : 10, &peak);
        progress_done();
    }
    int rc;
    if (o.peak_only) {
        print_peak(&dev, &peak);
        rc = 0;
    } else {
        rc = run_benchmark(&dev, ctx, &o, &peak, runs, warmup);
    }
    clreduce_destroy(ctx);
    close_device(&dev);
    return rc;
}
