/* Helpers shared by the clreduce test programs (see test_common.h). */
#include "test_common.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- random numbers: splitmix64, small and good enough for test data ---- */

static uint64_t base_seed;
static uint64_t test_seed;
static uint64_t rng_state;

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void tc_init_seed(void)
{
    const char *env = getenv("CLREDUCE_TEST_SEED");
    if (env && *env) {
        base_seed = strtoull(env, NULL, 0);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        base_seed = (uint64_t)ts.tv_sec * UINT64_C(1000000007) ^ (uint64_t)ts.tv_nsec ^
                    ((uint64_t)getpid() << 32);
    }
    printf("random seed: CLREDUCE_TEST_SEED=%" PRIu64 " repeats this run's data\n", base_seed);
    rng_state = base_seed;
    test_seed = base_seed;
}

void tc_seed_for(const char *name)
{
    /* FNV-1a of the name, so each test's data depends on the base seed and
     * on nothing that ran before it. */
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * UINT64_C(0x100000001b3);
    test_seed = base_seed ^ h;
    rng_state = test_seed;
    printf("[ seed     ] %s: CLREDUCE_TEST_SEED=%" PRIu64 "\n", name, base_seed);
    fflush(stdout);
}

uint64_t tc_seed(void)
{
    return base_seed;
}

uint64_t tc_rand64(void)
{
    return splitmix64(&rng_state);
}

double tc_rand_unit(void)
{
    return (double)(tc_rand64() >> 11) * (1.0 / 9007199254740992.0);
}

size_t tc_rand_below(size_t n)
{
    return (size_t)(tc_rand64() % (uint64_t)n);
}

/* ---- devices ----------------------------------------------------------------- */

static void device_string(cl_device_id device, cl_device_info what, char *buf, size_t size)
{
    buf[0] = '\0';
    if (clGetDeviceInfo(device, what, size - 1, buf, NULL) != CL_SUCCESS)
        snprintf(buf, size, "?");
    buf[size - 1] = '\0';
}

void tc_print_device(const clreduce_ctx *ctx)
{
    cl_device_id device = clreduce_get_cl_device(ctx);
    char name[256], version[256], driver[256], platform_name[256] = "?";
    cl_platform_id platform = NULL;
    device_string(device, CL_DEVICE_NAME, name, sizeof name);
    device_string(device, CL_DEVICE_VERSION, version, sizeof version);
    device_string(device, CL_DRIVER_VERSION, driver, sizeof driver);
    if (clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL) ==
        CL_SUCCESS)
        clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof platform_name - 1, platform_name,
                          NULL);
    platform_name[sizeof platform_name - 1] = '\0';
    printf("device: %s [%s, %s, driver %s], sub-group path: %s\n", name, platform_name, version,
           driver, clreduce_subgroup_path_name(clreduce_get_subgroup_path(ctx)));
    fflush(stdout);
}

/* Loads the OpenCL runtimes from the test program itself, before any
 * clreduce call: their start-up allocations live as long as the process, and
 * valgrind.supp names this function to ignore them without ignoring anything
 * allocated under libclreduce. */
#ifdef __GNUC__
__attribute__((noinline)) /* its name must stay on the stack */
#endif
void tc_preload_opencl_runtimes(void)
{
    cl_uint n = 0;
    cl_platform_id platforms[16];
    if (clGetPlatformIDs(16, platforms, &n) != CL_SUCCESS)
        return;
    for (cl_uint p = 0; p < n && p < 16; p++) {
        cl_uint nd = 0;
        clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
    }
}

/* Builds a trivial kernel on the context's device and reads its binary, from
 * the test program itself: a runtime that compiles with LLVM (PoCL) sets up
 * its compiler once per process, and valgrind.supp names this function to
 * ignore that set-up without ignoring anything allocated under libclreduce. */
#ifdef __GNUC__
__attribute__((noinline)) /* its name must stay on the stack */
#endif
void tc_warm_up_compiler(const clreduce_ctx *ctx)
{
    static const char *const source =
        "kernel void tc_warm_up(global int *p) { p[get_global_id(0)] += 1; }\n";
    cl_device_id device = clreduce_get_cl_device(ctx);
    cl_int err;
    cl_program program =
        clCreateProgramWithSource(clreduce_get_cl_context(ctx), 1, (const char **)&source, NULL,
                                  &err);
    if (err != CL_SUCCESS)
        return;
    size_t size = 0;
    if (clBuildProgram(program, 1, &device, "", NULL, NULL) == CL_SUCCESS &&
        clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) ==
            CL_SUCCESS &&
        size > 0) {
        unsigned char *binary = malloc(size);
        if (binary)
            clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL);
        free(binary);
    }
    clReleaseProgram(program);
}

clreduce_ctx *tc_context_like(const clreduce_ctx *base, const clreduce_settings *settings)
{
    clreduce_ctx *ctx = NULL;
    assert_int_equal(clreduce_create_with_settings(clreduce_get_cl_context(base),
                                                   clreduce_get_cl_device(base), settings, &ctx),
                     CLREDUCE_SUCCESS);
    return ctx;
}

clreduce_ctx *tc_create_default_or_skip(const char *program)
{
    clreduce_ctx *ctx = NULL;
    tc_preload_opencl_runtimes();
    clreduce_status s = clreduce_create_default(&ctx);
    if (s == CLREDUCE_ERROR_NO_DEVICE) {
        printf("%s: SKIP: no OpenCL device (%s); set CLREDUCE_DEVICE to choose one\n", program,
               clreduce_last_error(NULL));
        fflush(stdout);
        exit(TC_EXIT_SKIP);
    }
    if (s != CLREDUCE_SUCCESS || !ctx) {
        fprintf(stderr, "%s: clreduce_create_default failed: %s: %s\n", program,
                clreduce_status_string(s), clreduce_last_error(NULL));
        exit(1);
    }
    tc_print_device(ctx);
    tc_warm_up_compiler(ctx);
    return ctx;
}

clreduce_ctx *tc_start(const char *program, ...)
{
    tc_init_seed();
    clreduce_ctx *ctx = tc_create_default_or_skip(program);
    va_list ap;
    va_start(ap, program);
    for (cl_command_queue *q = va_arg(ap, cl_command_queue *); q;
         q = va_arg(ap, cl_command_queue *)) {
        *q = tc_create_queue(ctx, 0);
        if (!*q)
            exit(1);
    }
    va_end(ap);
    return ctx;
}

int tc_finish(clreduce_ctx *ctx, int failed, ...)
{
    va_list ap;
    va_start(ap, failed);
    for (cl_command_queue q = va_arg(ap, cl_command_queue); q; q = va_arg(ap, cl_command_queue))
        clReleaseCommandQueue(q);
    va_end(ap);
    clreduce_destroy(ctx);
    return failed ? 1 : 0;
}

int tc_device_supports_queue(const clreduce_ctx *ctx, cl_command_queue_properties props)
{
    cl_command_queue_properties have = 0;
    if (clGetDeviceInfo(clreduce_get_cl_device(ctx), CL_DEVICE_QUEUE_PROPERTIES, sizeof have,
                        &have, NULL) != CL_SUCCESS)
        return 0;
    return (have & props) == props;
}

cl_command_queue tc_create_queue(const clreduce_ctx *ctx, cl_command_queue_properties props)
{
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(clreduce_get_cl_context(ctx),
                                              clreduce_get_cl_device(ctx), props, &err);
    if (err != CL_SUCCESS) {
        printf("clCreateCommandQueue(properties 0x%llx) failed: %d\n", (unsigned long long)props,
               (int)err);
        return NULL;
    }
    return q;
}

cl_device_type tc_device_type(const clreduce_ctx *ctx)
{
    cl_device_type type = 0;
    if (clGetDeviceInfo(clreduce_get_cl_device(ctx), CL_DEVICE_TYPE, sizeof type, &type, NULL) !=
        CL_SUCCESS)
        return 0;
    return type;
}

int tc_is_nvidia_gpu(const clreduce_ctx *ctx)
{
    char vendor[256] = "";
    clGetDeviceInfo(clreduce_get_cl_device(ctx), CL_DEVICE_VENDOR, sizeof vendor - 1, vendor,
                    NULL);
    return strstr(vendor, "NVIDIA") && (tc_device_type(ctx) & CL_DEVICE_TYPE_GPU);
}

int tc_platform_is(const clreduce_ctx *ctx, const char *name)
{
    cl_platform_id id = NULL;
    char platform[256] = "";
    if (clGetDeviceInfo(clreduce_get_cl_device(ctx), CL_DEVICE_PLATFORM, sizeof id, &id, NULL) ==
        CL_SUCCESS)
        clGetPlatformInfo(id, CL_PLATFORM_NAME, sizeof platform - 1, platform, NULL);
    return strstr(platform, name) != NULL;
}

size_t tc_device_max_work_group_size(const clreduce_ctx *ctx)
{
    size_t wg = 0;
    clGetDeviceInfo(clreduce_get_cl_device(ctx), CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg,
                    NULL);
    return wg;
}

int tc_type_supported(clreduce_ctx *ctx, clreduce_type type)
{
    /* Asked with max, which every context runs by every variant (a
     * reproducible one refuses float sums by this one). */
    return clreduce_check_support(ctx, CLREDUCE_OP_MAX, type, CLREDUCE_SEQUENTIAL) ==
           CLREDUCE_SUCCESS;
}

void tc_format(clreduce_type type, const tc_value *v, char *buf, size_t size)
{
    switch (type) {
    case CLREDUCE_FLOAT: {
        uint32_t bits;
        memcpy(&bits, &v->f, sizeof bits);
        snprintf(buf, size, "%.9g (0x%08" PRIx32 ")", (double)v->f, bits);
        break;
    }
    case CLREDUCE_DOUBLE:
        snprintf(buf, size, "%.17g (0x%016" PRIx64 ")", v->d, v->u64);
        break;
    case CLREDUCE_INT32: snprintf(buf, size, "%" PRId32, v->i32); break;
    case CLREDUCE_UINT32: snprintf(buf, size, "%" PRIu32, v->u32); break;
    case CLREDUCE_INT64: snprintf(buf, size, "%" PRId64, v->i64); break;
    case CLREDUCE_UINT64: snprintf(buf, size, "%" PRIu64, v->u64); break;
    default: snprintf(buf, size, "0x%016" PRIx64, v->u64); break;
    }
}

tc_got_want tc_format_got_want(clreduce_type type, const tc_value *got, const tc_value *want)
{
    tc_got_want t;
    tc_format(type, got, t.got, sizeof t.got);
    tc_format(type, want, t.want, sizeof t.want);
    return t;
}

int tc_contains(const char *text, const char *word)
{
    if (!text || !word)
        return 0;
    size_t n = strlen(word);
    for (; *text; text++) {
        size_t i = 0;
        while (i < n && text[i] &&
               tolower((unsigned char)text[i]) == tolower((unsigned char)word[i]))
            i++;
        if (i == n)
            return 1;
    }
    return n == 0;
}

static const char *or_unknown(const char *name)
{
    return name ? name : "?";
}

const char *tc_variant_name(clreduce_variant v) { return or_unknown(clreduce_variant_name(v)); }
const char *tc_op_name(clreduce_op op) { return or_unknown(clreduce_op_name(op)); }
const char *tc_type_name(clreduce_type type) { return or_unknown(clreduce_type_name(type)); }

const char *tc_scan_kind_name(clreduce_scan_kind kind)
{
    return or_unknown(clreduce_scan_kind_name(kind));
}

const char *tc_scan_variant_name(clreduce_scan_variant v)
{
    return or_unknown(clreduce_scan_variant_name(v));
}

const char *tc_scan_variant_label(const clreduce_ctx *ctx, clreduce_scan_variant v,
                                  clreduce_type type, char *buf, size_t size)
{
    if (v == CLREDUCE_SCAN_AUTO)
        snprintf(buf, size, "auto (%s)",
                 tc_scan_variant_name(clreduce_auto_scan_variant(ctx, type)));
    else
        snprintf(buf, size, "%s", tc_scan_variant_name(v));
    return buf;
}

/* ---- OpenCL calls that must succeed --------------------------------------------- */

cl_mem tc_make_buffer(const clreduce_ctx *ctx, size_t bytes, const void *init)
{
    cl_int err;
    cl_mem m = clCreateBuffer(clreduce_get_cl_context(ctx),
                              CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              (void *)init, &err);
    assert_int_equal(err, CL_SUCCESS);
    return m;
}

void tc_read_buffer(cl_command_queue q, cl_mem mem, void *out, size_t bytes, cl_uint nwait,
                    const cl_event *wait)
{
    assert_int_equal(clEnqueueReadBuffer(q, mem, CL_TRUE, 0, bytes, out, nwait, wait, NULL),
                     CL_SUCCESS);
}

cl_int tc_event_status(cl_event ev)
{
    cl_int st = CL_QUEUED;
    assert_int_equal(
        clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL), CL_SUCCESS);
    return st;
}

cl_event tc_user_event(const clreduce_ctx *ctx)
{
    cl_int err;
    cl_event ev = clCreateUserEvent(clreduce_get_cl_context(ctx), &err);
    assert_int_equal(err, CL_SUCCESS);
    return ev;
}

void tc_make_foreign(const clreduce_ctx *ctx, size_t input_bytes, size_t output_bytes,
                     tc_foreign *f)
{
    cl_int err;
    cl_device_id dev = clreduce_get_cl_device(ctx);
    f->context = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    f->queue = clCreateCommandQueue(f->context, dev, 0, &err);
    assert_int_equal(err, CL_SUCCESS);
    f->input = clCreateBuffer(f->context, CL_MEM_READ_WRITE, input_bytes, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    f->output = clCreateBuffer(f->context, CL_MEM_READ_WRITE, output_bytes, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
}

void tc_release_foreign(tc_foreign *f)
{
    clReleaseMemObject(f->input);
    clReleaseMemObject(f->output);
    clReleaseCommandQueue(f->queue);
    clReleaseContext(f->context);
}

cl_ulong tc_profiling_time(cl_event ev, cl_profiling_info what)
{
    cl_ulong t = 0;
    cl_int err = clGetEventProfilingInfo(ev, what, sizeof t, &t, NULL);
    if (err != CL_SUCCESS)
        print_error("clGetEventProfilingInfo: %s\n", clreduce_opencl_error_name(err));
    assert_int_equal(err, CL_SUCCESS);
    return t;
}

/* ---- running the tests --------------------------------------------------------------- */

void tc_add_test(struct CMUnitTest *tests, size_t *count, const char *name,
                 void (*fn)(void **state), void *state)
{
    struct CMUnitTest *t = &tests[(*count)++];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->test_func = fn;
    t->initial_state = state;
}

int tc_run_tests(const char *group, const struct CMUnitTest *tests, size_t count)
{
    const char *filter = getenv("CLREDUCE_TEST_FILTER");
    if (filter)
        cmocka_set_test_filter(filter);
    return _cmocka_run_group_tests(group, tests, count, NULL, NULL);
}

/* ---- the test of one variant ---------------------------------------------------- */

const clreduce_op tc_all_ops[3] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_MAX};
const clreduce_type tc_all_types[6] = {CLREDUCE_FLOAT,  CLREDUCE_DOUBLE, CLREDUCE_INT32,
                                       CLREDUCE_UINT32, CLREDUCE_INT64,  CLREDUCE_UINT64};

/* Counts st, what the check of support said of op and type, and returns it:
 * an unsupported combination is noted with its reason (once for
 * combinations in a row with the same reason), any status other than
 * success printed as an error. */
static clreduce_status tally_support(tc_support_tally *t, const clreduce_ctx *ctx, clreduce_op op,
                                     clreduce_type type, clreduce_status st)
{
    const char *why = clreduce_last_error(ctx);
    if (st == CLREDUCE_SUCCESS) {
        t->supported++;
    } else if (st == CLREDUCE_ERROR_UNSUPPORTED) {
        t->unsupported++;
        if (strcmp(why, t->last_reason) != 0) {
            print_message("note: %s %s %s not supported here, not run (nor the combinations "
                          "after it with the same reason): %s\n",
                          t->variant, tc_op_name(op), tc_type_name(type), why);
            snprintf(t->last_reason, sizeof t->last_reason, "%s", why);
        }
    } else {
        t->errors++;
        print_error("checking the support of %s %s %s: %s: %s\n", t->variant, tc_op_name(op),
                    tc_type_name(type), clreduce_status_string(st), why);
    }
    return st;
}

void tc_run_variant_test(clreduce_ctx *ctx, int scan, int variant, const tc_variant_steps *steps)
{
    tc_variant_test t;
    memset(&t, 0, sizeof t);
    t.scan = scan;
    t.variant = variant;
    t.tally.variant = scan ? tc_scan_variant_name((clreduce_scan_variant)variant)
                           : tc_variant_name((clreduce_variant)variant);
    char name[64];
    snprintf(name, sizeof name, "variant_%s", t.tally.variant);
    tc_seed_for(name);
    double t0 = tc_now_seconds();
    t.suite.ctx = ctx;
    t.suite.label = "default context";
    t.data = malloc(TC_LARGE_COUNT * 8);
    assert_non_null(t.data);
    for (size_t oi = 0; oi < ARRAY_SIZE(tc_all_ops); oi++) {
        for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
            clreduce_op op = tc_all_ops[oi];
            clreduce_type type = tc_all_types[ti];
            clreduce_status st =
                scan ? clreduce_check_scan_support(ctx, op, type, (clreduce_scan_variant)variant)
                     : clreduce_check_support(ctx, op, type, (clreduce_variant)variant);
            st = tally_support(&t.tally, ctx, op, type, st);
            if (st == CLREDUCE_ERROR_UNSUPPORTED)
                steps->refused(&t, op, type);
            if (st == CLREDUCE_SUCCESS)
                steps->cases(&t, op, type);
        }
    }
    steps->after(&t);
    free(t.data);
    int failures = t.suite.failures + t.tally.errors;
    print_message("%s: %zu cases, %d failed, %d op/type combinations unsupported, %.1f s\n", name,
                  t.suite.cases, failures, t.tally.unsupported, tc_now_seconds() - t0);
    assert_int_equal(failures, 0);
    if (!t.tally.supported) {
        print_message("note: variant %s is not supported by this device: skipped\n",
                      t.tally.variant);
        skip();
    }
}

/* ---- failed calls ------------------------------------------------------------------ */

clreduce_cache_stats tc_cache_stats(const clreduce_ctx *ctx)
{
    clreduce_cache_stats st;
    assert_int_equal(clreduce_get_cache_stats(ctx, &st), CLREDUCE_SUCCESS);
    return st;
}

void tc_check_status_and_message(const char *what, clreduce_status got, clreduce_status want,
                                 const clreduce_ctx *msg_ctx, const char *const *words)
{
    char msg[1024];
    const char *m = clreduce_last_error(msg_ctx);
    assert_non_null(m);
    snprintf(msg, sizeof msg, "%s", m);
    print_message("%-52s -> %s: \"%s\"\n", what, clreduce_status_string(got), msg);
    if (got != want)
        print_error("%s: expected %s, got %s\n", what, clreduce_status_string(want),
                    clreduce_status_string(got));
    assert_int_equal(got, want);
    if (!msg[0])
        print_error("%s: clreduce_last_error is empty\n", what);
    assert_true(msg[0] != '\0');
    for (size_t i = 0; words && words[i]; i++) {
        if (!tc_contains(msg, words[i]))
            print_error("%s: message \"%s\" does not mention \"%s\"\n", what, msg, words[i]);
        assert_true(tc_contains(msg, words[i]));
    }
}

void tc_check_nothing_built(const char *what, const clreduce_ctx *ctx,
                            const clreduce_cache_stats *before)
{
    clreduce_cache_stats after = tc_cache_stats(ctx);
    if (memcmp(&after, before, sizeof after) != 0)
        print_error("%s: programs_built %llu -> %llu, programs_loaded %llu -> %llu, cache_hits "
                    "%llu -> %llu\n",
                    what, (unsigned long long)before->programs_built,
                    (unsigned long long)after.programs_built,
                    (unsigned long long)before->programs_loaded,
                    (unsigned long long)after.programs_loaded,
                    (unsigned long long)before->cache_hits, (unsigned long long)after.cache_hits);
    assert_true(after.programs_built == before->programs_built);
    assert_true(after.programs_loaded == before->programs_loaded);
    assert_true(after.cache_hits == before->cache_hits);
}

void tc_check_buffer_unchanged(cl_command_queue q, cl_mem mem, const void *bytes, size_t size)
{
    unsigned char *now = malloc(size);
    assert_non_null(now);
    tc_read_buffer(q, mem, now, size, 0, NULL);
    assert_memory_equal(now, bytes, size);
    free(now);
}

void tc_make_guarded(const clreduce_ctx *ctx, cl_command_queue queue, float *input_data,
                     size_t input_count, unsigned char *output_bytes, size_t output_size,
                     tc_guarded *g)
{
    for (size_t i = 0; i < input_count; i++)
        input_data[i] = (float)i - 40.5f;
    memset(output_bytes, TC_SENTINEL_BYTE, output_size);
    g->queue = queue;
    g->input = tc_make_buffer(ctx, input_count * sizeof *input_data, input_data);
    g->output = tc_make_buffer(ctx, output_size, output_bytes);
    g->input_data = input_data;
    g->output_bytes = output_bytes;
    g->input_count = input_count;
    g->output_size = output_size;
}

void tc_release_guarded(tc_guarded *g)
{
    clReleaseMemObject(g->input);
    clReleaseMemObject(g->output);
}

void tc_check_failure(const tc_guarded *g, const char *what, clreduce_status got,
                      clreduce_status want, const clreduce_ctx *msg_ctx, const char *const *words,
                      const clreduce_ctx *stats_ctx, const clreduce_cache_stats *before)
{
    tc_check_status_and_message(what, got, want, msg_ctx, words);
    if (stats_ctx) /* no program built, loaded from disk or even looked up */
        tc_check_nothing_built(what, stats_ctx, before);
    assert_int_equal(clFinish(g->queue), CL_SUCCESS);
    tc_check_buffer_unchanged(g->queue, g->output, g->output_bytes, g->output_size);
    tc_check_buffer_unchanged(g->queue, g->input, g->input_data,
                              g->input_count * sizeof *g->input_data);
}
