/* oclgrind.kernels, oclgrind.uninitialized: every kernel of the library (each
 * reduction variant, each scan variant inclusive and exclusive, several
 * operators in one pass on both its variants) run under
 * Oclgrind, the OpenCL device simulator, with its checks on (see
 * tests/oclgrind.sh and tests/meson.build), for every operator and type at
 * small awkward sizes, every result checked against the CPU reference.
 *
 * Oclgrind writes every problem it finds to its log ($OCLGRIND_LOG, set by
 * the launcher's --log). The log is read after every case, so that a report
 * fails the case that caused it. The only reports accepted are those a
 * target declares as inherent to its design (see `target.accepted`), each
 * matched exactly; what the program has judged it removes from the log at
 * exit, and tests/oclgrind.sh fails the test on anything left there.
 *
 * Kernels are interpreted, so the sizes are small and so is the tuning
 * (work-groups of 64, 2 loads per work-item); the device reports 4 compute
 * units, so the grid-sized variants run up to 4 work-groups and the scans
 * several tiles. Oclgrind runs work-groups in the order they start, so the
 * look-back, which waits only for work-groups that took an earlier ticket,
 * completes.
 *
 * Adding a variant is one entry in a family's targets (og_flat_targets in
 * test_oclgrind_flat.c, og_batched_targets in test_oclgrind_batched.c);
 * test_oclgrind.h says which file does what.
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

#include "test_oclgrind.h"

clreduce_ctx *g_ctx;
cl_command_queue g_queue;

static const clreduce_op ops[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_MAX};
static const clreduce_type types[] = {CLREDUCE_FLOAT, CLREDUCE_DOUBLE, CLREDUCE_INT32,
                                      CLREDUCE_UINT32, CLREDUCE_INT64, CLREDUCE_UINT64};

/* The sizes of a target's cases, unless it names its own. */
static const og_size sizes[] = {
    {1, 0, 0}, {31, 0, 0}, {33, 0, 0}, {257, 0, 0}, {1000, 3, 0}, {1031, 0, 5},
};

/* ---- buffers ---------------------------------------------------------------------- */

/* Buffers are kept until the end of the run, not released after each case.
 * Oclgrind 21.10's uninitialised-value checker keeps the state of a released
 * buffer and gives it to the next buffer created in the same slot: a buffer
 * the library creates for partial results, in a slot a smaller buffer had,
 * then reads as uninitialised beyond the old size although the kernel wrote
 * it (docs/RELIABILITY.md shows it without clreduce). Slots are reused
 * first in, first out; as every case creates two buffers before the library
 * creates one, each buffer the library creates takes a fresh slot. */
#define MAX_KEPT 4096
static cl_mem kept[MAX_KEPT];
static size_t n_kept;

cl_mem og_keep(cl_mem m)
{
    if (m && n_kept < MAX_KEPT)
        kept[n_kept++] = m;
    else if (m)
        clReleaseMemObject(m);
    return m;
}

static void release_kept(void)
{
    while (n_kept)
        clReleaseMemObject(kept[--n_kept]);
}

void og_lay_out_input(const og_case *c, const tc_value *poison, unsigned char *host)
{
    size_t es = clreduce_type_size(c->type);
    for (size_t i = 0; i < c->offset + c->n + c->tail; i++)
        tc_set(c->type, host, i, poison);
    memcpy(host + c->offset * es, c->data, c->n * es);
}

int og_create_buffers(og_case *c, const unsigned char *host, const void *out_host,
                      size_t out_bytes, cl_mem *in, cl_mem *out)
{
    size_t in_bytes = (c->offset + c->n + c->tail) * clreduce_type_size(c->type);
    cl_context cl = clreduce_get_cl_context(g_ctx);
    cl_int err;
    *out = NULL;
    *in = og_keep(clCreateBuffer(cl, CL_MEM_READ_WRITE, in_bytes, NULL, &err));
    if (err == CL_SUCCESS)
        *out = og_keep(clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out_bytes,
                                      (void *)out_host, &err));
    if (err == CL_SUCCESS)
        err = clEnqueueWriteBuffer(g_queue, *in, CL_TRUE, 0, in_bytes, host, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        snprintf(c->detail, sizeof c->detail, "setting up the buffers failed: %s",
                 clreduce_opencl_error_name(err));
        return 0;
    }
    return 1;
}

cl_int og_read_output(cl_mem out, size_t out_bytes, void *out_host, cl_event done)
{
    cl_int err = clEnqueueReadBuffer(g_queue, out, CL_TRUE, 0, out_bytes, out_host,
                                     done ? 1 : 0, done ? &done : NULL, NULL);
    if (done)
        clReleaseEvent(done);
    return err;
}

int og_unsupported_as_expected(og_case *c, clreduce_status st, int untouched,
                               const char *written)
{
    if (st == CLREDUCE_ERROR_UNSUPPORTED && untouched)
        return 1;
    snprintf(c->detail, sizeof c->detail,
             "expected CLREDUCE_ERROR_UNSUPPORTED and no write, got %s%s",
             clreduce_status_string(st), untouched ? "" : written);
    return 0;
}

/* ---- the test of one target ------------------------------------------------------ */

static int g_checks_uninitialized;

static void test_target(void **state)
{
    const target *t = *state;
    tc_seed_for(t->name);
    if (g_checks_uninitialized && t->fills_part_of_a_buffer) {
        /* Oclgrind 21.10 takes a fill of part of a buffer for the whole
         * buffer's contents: everything else in it then reads as
         * uninitialised (docs/RELIABILITY.md). This variant's kernels run
         * under the other checks in oclgrind.kernels. */
        print_message("note: %s not run under the uninitialised-value check: the library fills "
                      "part of a buffer the kernel reads, which Oclgrind 21.10 misreads\n",
                      t->name);
        skip();
    }
    void *data = malloc(MAX_COUNT * 8);
    assert_non_null(data);
    int failures = 0, cases = 0, combos = 0;
    g_accepted = 0;
    size_t nops = t->only_op || t->multi ? 1 : ARRAY_SIZE(ops);
    for (size_t oi = 0; oi < nops; oi++) {
        for (size_t ti = 0; ti < ARRAY_SIZE(types); ti++) {
            clreduce_op op = t->only_op ? t->only_op : ops[oi];
            clreduce_type type = types[ti];
            if (!tc_type_supported(g_ctx, type) ||
                (t->only_op && !clreduce_result_size(op, type)) ||
                (t->float_sums && ((op != CLREDUCE_OP_SUM && op != t->only_op) ||
                                   (type != CLREDUCE_FLOAT && type != CLREDUCE_DOUBLE))))
                continue;
            clreduce_status st = t->support(t, op, type);
            if (t->expect_unsupported != (st == CLREDUCE_ERROR_UNSUPPORTED) ||
                (st != CLREDUCE_SUCCESS && st != CLREDUCE_ERROR_UNSUPPORTED)) {
                print_error("FAILED %s %s %s: support check says %s (%s), expected %s\n",
                            t->name, tc_op_name(op), tc_type_name(type),
                            clreduce_status_string(st), clreduce_last_error(g_ctx),
                            t->expect_unsupported ? "unsupported" : "supported");
                failures++;
                continue;
            }
            combos++;
            const og_size *sz = t->sizes ? t->sizes : sizes;
            size_t num_sizes = t->sizes ? t->num_sizes : ARRAY_SIZE(sizes);
            for (size_t si = 0; si < num_sizes; si++) {
                if (t->only_op && !t->float_sums && sz[si].n > 257)
                    break;
                og_case c;
                memset(&c, 0, sizeof c);
                c.op = op;
                c.type = type;
                c.data = data;
                c.n = sz[si].n;
                c.offset = sz[si].offset;
                c.tail = sz[si].tail;
                c.result_offset = si & 1;
                if (t->only_op)
                    tc_op_fill(op, type, data, c.n);
                else if (t->multi)
                    tc_op_fill(CLREDUCE_OP_SUM_SQUARES, type, data, c.n);
                else
                    tc_fill_random(type, data, c.n);
                /* Every other float min/max case holds a NaN: the kernels'
                 * rarely taken NaN paths run under the checks too. */
                int nan = !t->only_op && !t->multi && op != CLREDUCE_OP_SUM &&
                          tc_is_float_type(type) && (si & 1);
                if (nan)
                    tc_set_double(type, data, c.n / 2, (double)NAN);
                char what[160];
                snprintf(what, sizeof what, "%s op=%s type=%s size=%zu offset=%zu tail=%zu%s",
                         t->name, tc_op_name(op), tc_type_name(type), c.n, c.offset, c.tail,
                         nan ? " (a NaN)" : "");
                int ok = t->run(t, &c);
                if (!ok)
                    print_error("FAILED %s: %s\n", what, c.detail);
                if (!og_log_clean(t, what))
                    ok = 0;
                failures += !ok;
                cases++;
                /* Unsupported: nothing to vary, one case per op/type. */
                if (t->expect_unsupported)
                    break;
            }
        }
    }
    free(data);
    print_message("%s: %d op/type combinations, %d cases, %d failed%s\n", t->name, combos, cases,
                  failures, t->expect_unsupported ? " (all expected unsupported)" : "");
    if (g_accepted)
        print_message("note: %s: %zu Oclgrind reports accepted as %s\n", t->name, g_accepted,
                      t->accepted->why);
    assert_int_equal(failures, 0);
    assert_true(combos > 0);
}

/* ---- set-up ------------------------------------------------------------------------ */

static int platform_is_oclgrind(cl_platform_id platform)
{
    char name[256] = "";
    if (clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name - 1, name, NULL) != CL_SUCCESS)
        return 0;
    return tc_contains(name, "Oclgrind");
}

static int device_has_subgroups(cl_device_id device)
{
    char ext[8192] = "", version[128] = "";
    clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
    clGetDeviceInfo(device, CL_DEVICE_VERSION, sizeof version - 1, version, NULL);
    return strstr(ext, "cl_khr_subgroups") != NULL || strncmp(version, "OpenCL 3", 8) == 0;
}

static int env_is_1(const char *name)
{
    const char *v = getenv(name);
    return v && strcmp(v, "1") == 0;
}

int main(int argc, char **argv)
{
    /* --vector-width=N: elements per vector load (tests/meson.build says
     * which run uses which). */
    unsigned vector_width = 2;
    /* --families=batched: the rows and segments kernels only; =multi: those
     * of several operators in one pass; =flat: the others; =large: the
     * segments kernels on cases of their own, long enough to reach what
     * the library takes only for large inputs (not part of "all": they
     * mean something only in the settings of their run, tests/meson.build);
     * =reproducible: the reproducible sum (not part of "all" either).
     * Oclgrind numbers the buffers of a process in a space of a few
     * thousand, which the buffers kept for all of them would overflow. */
    const char *families = "all";
    /* --build-options=TEXT: the context's extra build options (the forced
     * look-back fallback's test options); --segment-passes=N: the launches
     * of a segments reduction (clreduce_settings); --work-group-size=N:
     * work-groups of N rather than 64 (small ones make the many chunks of
     * large inputs out of the cases' few elements); --only=GLOB: the targets
     * whose names match. */
    const char *build_options = NULL, *only = getenv("CLREDUCE_TEST_FILTER");
    unsigned segment_passes = 0, work_group_size = 64;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--vector-width=", 15) == 0) {
            vector_width = (unsigned)strtoul(argv[i] + 15, NULL, 10);
        } else if (strncmp(argv[i], "--families=", 11) == 0 &&
                   (strcmp(argv[i] + 11, "all") == 0 || strcmp(argv[i] + 11, "batched") == 0 ||
                    strcmp(argv[i] + 11, "flat") == 0 || strcmp(argv[i] + 11, "multi") == 0 ||
                    strcmp(argv[i] + 11, "large") == 0 ||
                    strcmp(argv[i] + 11, "reproducible") == 0)) {
            families = argv[i] + 11;
        } else if (strncmp(argv[i], "--build-options=", 16) == 0) {
            build_options = argv[i] + 16;
        } else if (strncmp(argv[i], "--segment-passes=", 17) == 0) {
            segment_passes = (unsigned)strtoul(argv[i] + 17, NULL, 10);
        } else if (strncmp(argv[i], "--work-group-size=", 18) == 0) {
            work_group_size = (unsigned)strtoul(argv[i] + 18, NULL, 10);
        } else if (strncmp(argv[i], "--only=", 7) == 0) {
            only = argv[i] + 7;
        } else {
            fprintf(stderr,
                    "usage: %s [--vector-width=N] "
                    "[--families=all|batched|flat|multi|large|reproducible] "
                    "[--build-options=TEXT] [--segment-passes=N] [--work-group-size=N] "
                    "[--only=GLOB]\n",
                    argv[0]);
            return 1;
        }
    }
    tc_init_seed();
    /* The test means nothing elsewhere: it must run inside Oclgrind, whose
     * launcher names its log and the checks it runs in the environment. */
    const char *log_path = getenv("OCLGRIND_LOG");
    if (!log_path || !*log_path) {
        fprintf(stderr, "OCLGRIND_LOG is not set: run this program through tests/oclgrind.sh "
                        "(oclgrind --log FILE ...)\n");
        return 1;
    }
    int checks_races = env_is_1("OCLGRIND_DATA_RACES");
    og_log_start(log_path, checks_races);
    g_checks_uninitialized = env_is_1("OCLGRIND_UNINITIALIZED");
    printf("Oclgrind checks: out-of-bounds accesses%s%s%s\n",
           checks_races ? ", data races" : "",
           g_checks_uninitialized ? ", uninitialised values" : "",
           env_is_1("OCLGRIND_CHECK_API") ? ", API errors" : "");

    tc_preload_opencl_runtimes();
    cl_platform_id platform;
    cl_device_id device;
    if (clreduce_find_device(getenv("CLREDUCE_DEVICE"), &platform, &device) !=
            CLREDUCE_SUCCESS ||
        !platform_is_oclgrind(platform)) {
        fprintf(stderr, "Oclgrind's device not found (%s)\n", clreduce_last_error(NULL));
        return 1;
    }
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_context cl = clCreateContext(props, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clCreateContext: %s\n", clreduce_opencl_error_name(err));
        return 1;
    }
    /* Work-groups of 64 unless asked otherwise; 2 loads of `vector_width`
     * elements per work-item, so tiles of 128 or 256 elements; one
     * work-group per compute unit. */
    clreduce_settings settings;
    clreduce_default_settings(&settings);
    settings.work_group_size = work_group_size;
    settings.groups_per_compute_unit = 1;
    settings.loads_per_work_item = 2;
    settings.vector_width = vector_width;
    settings.build_options = build_options;
    settings.segment_passes = segment_passes;
    /* The reproducible family runs in a reproducible context, whose rows
     * and segments take the fixed order. */
    settings.reproducible = strcmp(families, "reproducible") == 0;
    clreduce_status s = clreduce_create_with_settings(cl, device, &settings, &g_ctx);
    clReleaseContext(cl);
    if (s != CLREDUCE_SUCCESS) {
        fprintf(stderr, "clreduce_create_with_settings: %s: %s\n", clreduce_status_string(s),
                clreduce_last_error(NULL));
        return 1;
    }
    tc_print_device(g_ctx);
    g_queue = tc_create_queue(g_ctx, 0);
    if (!g_queue)
        return 1;
    cl_uint units = 0;
    clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    clreduce_settings t;
    clreduce_get_tuning(g_ctx, CLREDUCE_FLOAT, &t);
    /* The sub-group variants need cl_khr_subgroups (or OpenCL C 3.0's
     * sub-groups), which Oclgrind lacks: asked of the device, not of the
     * library, so that the library's answer is checked. */
    int has_subgroups = device_has_subgroups(device);
    printf("compute units: %u, fp64: %s, sub-groups: %s; tuning for float: work-group %zu, "
           "groups/CU %u, loads %u, vector %u\n",
           units, tc_type_supported(g_ctx, CLREDUCE_DOUBLE) ? "yes" : "no",
           has_subgroups ? "yes" : "no (sub-group variants must be unsupported)",
           t.work_group_size, t.groups_per_compute_unit, t.loads_per_work_item, t.vector_width);
    fflush(stdout);

    int failed = 0;
    if (!og_log_clean(NULL, "set-up"))
        failed++;
    /* The flat families, the batched ones, then several operators, as
     * --families asks ("all" but the large ones and the reproducible sum). */
    struct {
        target *targets;
        size_t count;
        const char *family;
    } families_run[] = {{og_flat_targets, og_flat_target_count, "flat"},
                        {og_batched_targets, og_batched_target_count, "batched"},
                        {og_multi_targets, og_multi_target_count, "multi"},
                        {og_large_targets, og_large_target_count, "large"},
                        {og_fixed_order_targets, og_fixed_order_target_count, "reproducible"},
                        {og_fixed_order_batched_targets, og_fixed_order_batched_target_count,
                         "reproducible"}};
    struct CMUnitTest *tests = calloc(
        og_flat_target_count + og_batched_target_count + og_multi_target_count +
            og_large_target_count + og_fixed_order_target_count +
            og_fixed_order_batched_target_count,
        sizeof *tests);
    if (!tests)
        return 1;
    size_t ntests = 0;
    for (size_t f = 0; f < ARRAY_SIZE(families_run); f++) {
        if (strcmp(families, families_run[f].family) != 0 &&
            (strcmp(families, "all") != 0 || strcmp(families_run[f].family, "large") == 0 ||
             strcmp(families_run[f].family, "reproducible") == 0))
            continue;
        for (size_t i = 0; i < families_run[f].count; i++) {
            target *entry = &families_run[f].targets[i];
            if (entry->needs_subgroups)
                entry->expect_unsupported = !has_subgroups;
            tests[ntests].name = entry->name;
            tests[ntests].test_func = test_target;
            tests[ntests].initial_state = entry;
            ntests++;
        }
    }
    if (only)
        cmocka_set_test_filter(only);
    failed += _cmocka_run_group_tests("oclgrind", tests, ntests, NULL, NULL);
    free(tests);

    release_kept();
    clReleaseCommandQueue(g_queue);
    clreduce_destroy(g_ctx);
    if (!og_log_clean(NULL, "tear-down"))
        failed++;
    /* Everything in the log has been judged: empty it, so that the wrapper
     * finds only what Oclgrind writes after this point. */
    if (og_log_truncate() != 0)
        failed++;
    return failed ? 1 : 0;
}
