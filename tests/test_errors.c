/* unit.errors: every documented failure returns its exact status and a
 * message that names the problem, writes nothing (neither the result buffer
 * nor the event out-parameters) and builds no program.
 *
 * Not covered: CLREDUCE_ERROR_BUILD. The kernels are embedded in the library
 * and there is no public way to hand it source that fails to compile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "test_common.h"

enum { INPUT_COUNT = 100, RESULT_COUNT = 4 };

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;
static cl_mem g_input;  /* INPUT_COUNT floats */
static cl_mem g_result; /* RESULT_COUNT floats of sentinel bytes */
static float g_input_data[INPUT_COUNT];
static unsigned char g_sentinel[RESULT_COUNT * sizeof(float)];
static tc_guarded g_guarded; /* the two buffers above */

/* Checks a failed call (tc_check_failure) of a function that builds nothing
 * whatever it is given (creates, getters): no context's counters are
 * compared. `msg_ctx` is the context passed to the call (NULL for create
 * functions and a NULL ctx); every word of `words` (up to 3,
 * NULL-terminated) must appear in the message, case-insensitively. */
static void check_failure(const char *what, clreduce_status got, clreduce_status want,
                          const clreduce_ctx *msg_ctx, const char *const *words)
{
    tc_check_failure(&g_guarded, what, got, want, msg_ctx, words, NULL, NULL);
}

#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* A call that must fail, building nothing in g_ctx; done (and first) must
 * stay untouched. */
#define EXPECT_REDUCE_FAILURE(what, want, msg_ctx, words, call)                                    \
    TC_EXPECT_FAILURE(&g_guarded, g_ctx, what, want, msg_ctx, words, call)

static void test_null_arguments(void **state)
{
    (void)state;
    EXPECT_REDUCE_FAILURE("NULL ctx", CLREDUCE_ERROR_INVALID_ARGUMENT, NULL, WORDS("ctx"),
                          clreduce_reduce(NULL, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                          CLREDUCE_AUTO, g_input, 0, 10, g_result, 0, 0, NULL,
                                          &done));
    EXPECT_REDUCE_FAILURE("NULL queue", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("queue"),
                          clreduce_reduce(g_ctx, NULL, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                          CLREDUCE_AUTO, g_input, 0, 10, g_result, 0, 0, NULL,
                                          &done));
    EXPECT_REDUCE_FAILURE("NULL input", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("input"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                          CLREDUCE_AUTO, NULL, 0, 10, g_result, 0, 0, NULL,
                                          &done));
    EXPECT_REDUCE_FAILURE("NULL result", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("result"),
                          clreduce_reduce_profiled(g_ctx, g_queue, CLREDUCE_OP_SUM,
                                                   CLREDUCE_FLOAT, CLREDUCE_AUTO, g_input, 0, 10,
                                                   NULL, 0, 0, NULL, &first, &done));
    EXPECT_REDUCE_FAILURE("check_support with NULL ctx", CLREDUCE_ERROR_INVALID_ARGUMENT, NULL,
                          WORDS("ctx"),
                          clreduce_check_support(NULL, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                                 CLREDUCE_AUTO));
}

static void test_ranges(void **state)
{
    (void)state;
    EXPECT_REDUCE_FAILURE("offset past the end", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                          WORDS("past the end", "input"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                          CLREDUCE_SEQUENTIAL, g_input, INPUT_COUNT + 1, 0,
                                          g_result, 1, 0, NULL, &done));
    EXPECT_REDUCE_FAILURE("offset at the end, count 1", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                          WORDS("past the end", "input"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                          CLREDUCE_SEQUENTIAL, g_input, INPUT_COUNT, 1,
                                          g_result, 1, 0, NULL, &done));
    EXPECT_REDUCE_FAILURE("offset + count one past the end", CLREDUCE_ERROR_INVALID_ARGUMENT,
                          g_ctx, WORDS("past the end", "input"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                          CLREDUCE_SEQUENTIAL, g_input, 50, INPUT_COUNT - 49,
                                          g_result, 1, 0, NULL, &done));
    EXPECT_REDUCE_FAILURE("offset 1, count SIZE_MAX (overflow)", CLREDUCE_ERROR_INVALID_ARGUMENT,
                          g_ctx, WORDS("past the end"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                          CLREDUCE_SEQUENTIAL, g_input, 1, SIZE_MAX, g_result, 1,
                                          0, NULL, &done));
    EXPECT_REDUCE_FAILURE("offset SIZE_MAX, count 2 (overflow)", CLREDUCE_ERROR_INVALID_ARGUMENT,
                          g_ctx, WORDS("past the end"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                          CLREDUCE_SEQUENTIAL, g_input, SIZE_MAX, 2, g_result, 1,
                                          0, NULL, &done));
    /* 100 floats are 50 doubles: the element size counts. */
    EXPECT_REDUCE_FAILURE("count in elements of an 8-byte type", CLREDUCE_ERROR_INVALID_ARGUMENT,
                          g_ctx, WORDS("past the end"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_UINT64,
                                          CLREDUCE_SEQUENTIAL, g_input, 0, INPUT_COUNT / 2 + 1,
                                          g_result, 0, 0, NULL, &done));
    EXPECT_REDUCE_FAILURE("result_offset past the result", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                          WORDS("result_offset"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                          CLREDUCE_SEQUENTIAL, g_input, 0, 10, g_result,
                                          RESULT_COUNT, 0, NULL, &done));
    EXPECT_REDUCE_FAILURE("result_offset SIZE_MAX", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                          WORDS("result_offset"),
                          clreduce_reduce_profiled(g_ctx, g_queue, CLREDUCE_OP_SUM,
                                                   CLREDUCE_FLOAT, CLREDUCE_SEQUENTIAL, g_input,
                                                   0, 10, g_result, SIZE_MAX, 0, NULL, &first,
                                                   &done));
    EXPECT_REDUCE_FAILURE("result_offset past the result, count 0",
                          CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("result_offset"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_MIN, CLREDUCE_FLOAT,
                                          CLREDUCE_SEQUENTIAL, g_input, 0, 0, g_result,
                                          RESULT_COUNT, 0, NULL, &done));
}

/* The host entry points cannot know the array's size: given more floats
 * than the device can allocate, clreduce_reduce_host (or, with `scan`,
 * clreduce_scan_host) is out of memory and leaves the result alone. */
static void expect_host_too_big(int scan, const float *data, size_t n)
{
    char what[96];
    float r = 3.25f;
    snprintf(what, sizeof what, "%s, count %zu", scan ? "scan_host" : "reduce_host", n);
    EXPECT_REDUCE_FAILURE(
        what, CLREDUCE_ERROR_OUT_OF_MEMORY, g_ctx, WORDS("CL_DEVICE_MAX_MEM_ALLOC_SIZE"),
        scan ? clreduce_scan_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_EXCLUSIVE,
                                  CLREDUCE_SCAN_AUTO, data, n, &r)
             : clreduce_reduce_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_AUTO, data, n,
                                    &r));
    assert_true(r == 3.25f);
}

/* Counts whose size in bytes wraps around size_t, or exceeds what the
 * device can allocate: a clear error, never a wrapped size. */
static void test_absurd_counts(void **state)
{
    (void)state;
    static const size_t counts[] = {SIZE_MAX, SIZE_MAX / 2 + 1, SIZE_MAX / 4 + 1,
                                    SIZE_MAX / 8 + 1};
    /* Elements of 4 and of 8 bytes. */
    static const struct {
        clreduce_op op;
        clreduce_type type;
    } kinds[] = {{CLREDUCE_OP_SUM, CLREDUCE_FLOAT}, {CLREDUCE_OP_MAX, CLREDUCE_UINT64}};
    char what[96];
    for (size_t i = 0; i < ARRAY_SIZE(counts); i++) {
        size_t n = counts[i];
        for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
            snprintf(what, sizeof what, "count %zu of %s at offset 0", n,
                     tc_type_name(kinds[k].type));
            EXPECT_REDUCE_FAILURE(
                what, CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("past the end"),
                clreduce_reduce(g_ctx, g_queue, kinds[k].op, kinds[k].type, CLREDUCE_AUTO, g_input,
                                0, n, g_result, 1, 0, NULL, &done));
        }
        snprintf(what, sizeof what, "scan, count %zu", n);
        EXPECT_REDUCE_FAILURE(what, CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                              WORDS("past the end"),
                              clreduce_scan(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                            CLREDUCE_INCLUSIVE, CLREDUCE_SCAN_AUTO, g_input, 0,
                                            n, g_result, 0, 0, NULL, &done));
        expect_host_too_big(0, g_input_data, n);
        expect_host_too_big(1, g_input_data, n);
    }
    EXPECT_REDUCE_FAILURE("offset SIZE_MAX - 5, count 10 (overflow)",
                          CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("past the end"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                          CLREDUCE_AUTO, g_input, SIZE_MAX - 5, 10, g_result, 1,
                                          0, NULL, &done));
    EXPECT_REDUCE_FAILURE("offset SIZE_MAX / 4 + 1, count 1", CLREDUCE_ERROR_INVALID_ARGUMENT,
                          g_ctx, WORDS("past the end"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                          CLREDUCE_AUTO, g_input, SIZE_MAX / 4 + 1, 1, g_result,
                                          1, 0, NULL, &done));
    EXPECT_REDUCE_FAILURE("scan output offset SIZE_MAX - 5, count 10 (overflow)",
                          CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("past the end", "output"),
                          clreduce_scan(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                        CLREDUCE_INCLUSIVE, CLREDUCE_SCAN_AUTO, g_input, 0, 10,
                                        g_result, SIZE_MAX - 5, 0, NULL, &done));

    /* One element more than the largest allocation, in a real host array:
     * reserved address space that is never read. */
    cl_ulong max_alloc = 0;
    assert_int_equal(clGetDeviceInfo(clreduce_get_cl_device(g_ctx), CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                                     sizeof max_alloc, &max_alloc, NULL),
                     CL_SUCCESS);
    size_t over = (size_t)(max_alloc / sizeof(float)) + 1;
    void *big = mmap(NULL, over * sizeof(float), PROT_READ,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (big == MAP_FAILED) {
        print_message("note: %zu bytes of address space could not be reserved: the largest "
                      "allocation plus one element is not tried\n",
                      over * sizeof(float));
        return;
    }
    expect_host_too_big(0, big, over);
    munmap(big, over * sizeof(float));
}

static void test_unknown_enums(void **state)
{
    (void)state;
    EXPECT_REDUCE_FAILURE("op 11", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("op", "11"),
                          clreduce_reduce(g_ctx, g_queue, (clreduce_op)11, CLREDUCE_FLOAT,
                                          CLREDUCE_SEQUENTIAL, g_input, 0, 10, g_result, 1, 0,
                                          NULL, &done));
    EXPECT_REDUCE_FAILURE("op -1", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("op"),
                          clreduce_reduce(g_ctx, g_queue, (clreduce_op)-1, CLREDUCE_FLOAT,
                                          CLREDUCE_SEQUENTIAL, g_input, 0, 10, g_result, 1, 0,
                                          NULL, &done));
    EXPECT_REDUCE_FAILURE("type -1", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("type"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, (clreduce_type)-1,
                                          CLREDUCE_SEQUENTIAL, g_input, 0, 10, g_result, 1, 0,
                                          NULL, &done));
    EXPECT_REDUCE_FAILURE("type 8", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("type", "8"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, (clreduce_type)8,
                                          CLREDUCE_SEQUENTIAL, g_input, 0, 10, g_result, 1, 0,
                                          NULL, &done));
    EXPECT_REDUCE_FAILURE("argmax of half", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                          WORDS("half", "storage type", "argmax", "user-defined operators"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_ARGMAX, CLREDUCE_HALF,
                                          CLREDUCE_AUTO, g_input, 0, 10, g_result, 1, 0, NULL,
                                          &done));
    EXPECT_REDUCE_FAILURE("sum of half, sequential", CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                          WORDS("sequential"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_HALF,
                                          CLREDUCE_SEQUENTIAL, g_input, 0, 10, g_result, 1, 0,
                                          NULL, &done));
    EXPECT_REDUCE_FAILURE("variant 99", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                          WORDS("variant", "99"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                          (clreduce_variant)99, g_input, 0, 10, g_result, 1, 0,
                                          NULL, &done));
    EXPECT_REDUCE_FAILURE("variant CLREDUCE_VARIANT_COUNT", CLREDUCE_ERROR_INVALID_ARGUMENT,
                          g_ctx, WORDS("variant"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                          (clreduce_variant)CLREDUCE_VARIANT_COUNT, g_input, 0,
                                          10, g_result, 1, 0, NULL, &done));
    EXPECT_REDUCE_FAILURE("unknown op with count 0", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                          WORDS("op"),
                          clreduce_reduce(g_ctx, g_queue, (clreduce_op)CLREDUCE_OP_COUNT,
                                          CLREDUCE_FLOAT, CLREDUCE_SEQUENTIAL, g_input, 0, 0,
                                          g_result, 1, 0, NULL, &done));
    EXPECT_REDUCE_FAILURE("check_support, variant 99", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                          WORDS("variant"),
                          clreduce_check_support(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                                 (clreduce_variant)99));
}

static void test_wait_list(void **state)
{
    (void)state;
    cl_event ev = tc_user_event(g_ctx);
    EXPECT_REDUCE_FAILURE("num_wait 2, wait NULL", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                          WORDS("wait"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                          CLREDUCE_SEQUENTIAL, g_input, 0, 10, g_result, 1, 2,
                                          NULL, &done));
    EXPECT_REDUCE_FAILURE("num_wait 0, wait not NULL", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                          WORDS("wait"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                          CLREDUCE_SEQUENTIAL, g_input, 0, 10, g_result, 1, 0,
                                          &ev, &done));
    assert_int_equal(clSetUserEventStatus(ev, CL_COMPLETE), CL_SUCCESS);
    clReleaseEvent(ev);
}

/* A second OpenCL context on the same device: its queue and its buffers
 * cannot be used with g_ctx. */
static void test_foreign_objects(void **state)
{
    (void)state;
    cl_device_id dev = clreduce_get_cl_device(g_ctx);
    tc_foreign other;
    tc_make_foreign(g_ctx, sizeof g_input_data, sizeof g_sentinel, &other);

    EXPECT_REDUCE_FAILURE(
        "queue of another context", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("queue"),
        clreduce_reduce(g_ctx, other.queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_SEQUENTIAL,
                        g_input, 0, 10, g_result, 1, 0, NULL, &done));
    EXPECT_REDUCE_FAILURE("input of another context", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                          WORDS("input", "context"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                          CLREDUCE_SEQUENTIAL, other.input, 0, 10, g_result, 1, 0,
                                          NULL, &done));
    EXPECT_REDUCE_FAILURE("result of another context", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                          WORDS("result", "context"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                          CLREDUCE_SEQUENTIAL, g_input, 0, 10, other.output, 1, 0,
                                          NULL, &done));
    EXPECT_REDUCE_FAILURE("count 0 into a result of another context",
                          CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("result", "context"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                          CLREDUCE_SEQUENTIAL, g_input, 0, 0, other.output, 1, 0,
                                          NULL, &done));

    /* A device that is not in g_ctx's OpenCL context: any other device of
     * any platform. */
    cl_platform_id platforms[16];
    cl_uint np = 0;
    cl_device_id stranger = NULL;
    if (clGetPlatformIDs(16, platforms, &np) == CL_SUCCESS) {
        for (cl_uint p = 0; p < np && p < 16 && !stranger; p++) {
            cl_device_id devs[16];
            cl_uint nd = 0;
            if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 16, devs, &nd) != CL_SUCCESS)
                continue;
            for (cl_uint d = 0; d < nd && d < 16; d++)
                if (devs[d] != dev) {
                    stranger = devs[d];
                    break;
                }
        }
    }
    if (stranger) {
        clreduce_ctx *out = (clreduce_ctx *)g_sentinel;
        clreduce_status st = clreduce_create(other.context, stranger, &out);
        check_failure("clreduce_create, device not in the context", st,
                      CLREDUCE_ERROR_INVALID_ARGUMENT, NULL, WORDS("device", "context"));
        assert_ptr_equal(out, (clreduce_ctx *)g_sentinel);
    } else {
        print_message("note: only one OpenCL device here: 'device not in the context' not "
                      "exercised\n");
    }

    tc_release_foreign(&other);
}

static void test_overlap(void **state)
{
    (void)state;
    EXPECT_REDUCE_FAILURE("result inside the input range", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                          WORDS("result", "input"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                          CLREDUCE_SEQUENTIAL, g_input, 10, 20, g_input, 15, 0,
                                          NULL, &done));
    EXPECT_REDUCE_FAILURE("result on the first input element", CLREDUCE_ERROR_INVALID_ARGUMENT,
                          g_ctx, WORDS("result", "input"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_MAX, CLREDUCE_FLOAT,
                                          CLREDUCE_SEQUENTIAL, g_input, 10, 20, g_input, 10, 0,
                                          NULL, &done));
    EXPECT_REDUCE_FAILURE("result on the last input element", CLREDUCE_ERROR_INVALID_ARGUMENT,
                          g_ctx, WORDS("result", "input"),
                          clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_MIN, CLREDUCE_FLOAT,
                                          CLREDUCE_SEQUENTIAL, g_input, 10, 20, g_input, 29, 0,
                                          NULL, &done));
}

/* Elements just outside the input range are fair game for the result. Runs
 * last among the reduce tests: it builds a program. */
static void test_adjacent_result_is_allowed(void **state)
{
    (void)state;
    cl_int err;
    float data[40];
    for (int i = 0; i < 40; i++)
        data[i] = (float)(i % 7) - 2.5f;
    cl_mem buf = clCreateBuffer(clreduce_get_cl_context(g_ctx),
                                CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
    assert_int_equal(err, CL_SUCCESS);
    float want = 0;
    for (int i = 10; i < 30; i++)
        want += data[i];
    const size_t targets[] = {9, 30};
    for (size_t t = 0; t < 2; t++) {
        cl_event done = NULL;
        clreduce_status st =
            clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_SEQUENTIAL,
                            buf, 10, 20, buf, targets[t], 0, NULL, &done);
        if (st != CLREDUCE_SUCCESS)
            print_error("result next to the input range (element %zu): %s\n", targets[t],
                        clreduce_last_error(g_ctx));
        assert_int_equal(st, CLREDUCE_SUCCESS);
        assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
        clReleaseEvent(done);
        float got[40];
        assert_int_equal(clEnqueueReadBuffer(g_queue, buf, CL_TRUE, 0, sizeof got, got, 0, NULL,
                                             NULL),
                         CL_SUCCESS);
        assert_true(got[targets[t]] == want);
        for (int i = 0; i < 40; i++)
            if ((size_t)i != targets[t] && (size_t)i != targets[0])
                assert_true(got[i] == data[i]);
    }
    clReleaseMemObject(buf);
}

/* Unsupported requests: double without fp64, sub-group variants without
 * sub-groups (or with a forced path the device lacks). */
static void test_unsupported(void **state)
{
    (void)state;
    if (clreduce_check_support(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_DOUBLE, CLREDUCE_SEQUENTIAL) ==
        CLREDUCE_ERROR_UNSUPPORTED) {
        EXPECT_REDUCE_FAILURE("double without fp64", CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                              WORDS("fp64"),
                              clreduce_reduce(g_ctx, g_queue, CLREDUCE_OP_SUM, CLREDUCE_DOUBLE,
                                              CLREDUCE_SEQUENTIAL, g_input, 0, 10, g_result, 1,
                                              0, NULL, &done));
        double r = 1.5;
        EXPECT_REDUCE_FAILURE("reduce_host, double without fp64", CLREDUCE_ERROR_UNSUPPORTED,
                              g_ctx, WORDS("fp64"),
                              clreduce_reduce_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_DOUBLE,
                                                   CLREDUCE_AUTO, &r, 1, &r));
        assert_true(r == 1.5);
    } else {
        print_message("note: the device has fp64: 'double without fp64' not exercised\n");
    }

    /* The default context if it has no sub-groups, else one forced onto a
     * path the device lacks. */
    clreduce_ctx *c = NULL;
    const char *lacking = NULL;
    if (clreduce_check_support(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_SUBGROUP) ==
        CLREDUCE_ERROR_UNSUPPORTED) {
        c = g_ctx;
        lacking = "sub-group";
    } else {
        static const clreduce_subgroup_path paths[] = {
            CLREDUCE_SUBGROUP_PATH_NV_PTX, CLREDUCE_SUBGROUP_PATH_SHUFFLE_RELATIVE,
            CLREDUCE_SUBGROUP_PATH_SHUFFLE, CLREDUCE_SUBGROUP_PATH_REDUCE};
        for (size_t i = 0; i < ARRAY_SIZE(paths) && !c; i++) {
            clreduce_settings s;
            clreduce_default_settings(&s);
            s.subgroup_path = paths[i];
            clreduce_ctx *f = NULL;
            assert_int_equal(clreduce_create_with_settings(clreduce_get_cl_context(g_ctx),
                                                           clreduce_get_cl_device(g_ctx), &s, &f),
                             CLREDUCE_SUCCESS);
            if (clreduce_check_support(f, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_SUBGROUP) ==
                CLREDUCE_ERROR_UNSUPPORTED) {
                c = f;
                lacking = clreduce_subgroup_path_name(paths[i]);
            } else {
                clreduce_destroy(f);
            }
        }
    }
    if (!c) {
        print_message("note: every sub-group path works here: 'sub-group variant without "
                      "sub-groups' not exercised\n");
        return;
    }
    print_message("sub-group variants on a context with path %s\n",
                  clreduce_subgroup_path_name(clreduce_get_subgroup_path(c)));
    static const clreduce_variant sg[] = {CLREDUCE_SUBGROUP, CLREDUCE_SUBGROUP_TAIL};
    for (size_t i = 0; i < ARRAY_SIZE(sg); i++) {
        TC_EXPECT_FAILURE(&g_guarded, c, "check_support, sub-group variant",
                          CLREDUCE_ERROR_UNSUPPORTED, c, WORDS("lacks", lacking),
                          clreduce_check_support(c, CLREDUCE_OP_MIN, CLREDUCE_INT32, sg[i]));
        TC_EXPECT_FAILURE(&g_guarded, c, "sub-group variant without the path",
                          CLREDUCE_ERROR_UNSUPPORTED, c,
                          WORDS("lacks", lacking, tc_variant_name(sg[i])),
                          clreduce_reduce(c, g_queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, sg[i],
                                          g_input, 0, 10, g_result, 1, 0, NULL, &done));
        float r = 7.0f, data[3] = {1, 2, 3};
        TC_EXPECT_FAILURE(
            &g_guarded, c, "reduce_host, sub-group variant", CLREDUCE_ERROR_UNSUPPORTED, c,
            WORDS("lacks", lacking),
            clreduce_reduce_host(c, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, sg[i], data, 3, &r));
        assert_true(r == 7.0f);
    }
    if (c != g_ctx)
        clreduce_destroy(c);
}

static void test_reduce_host_errors(void **state)
{
    (void)state;
    float r = 3.25f, data[4] = {1, 2, 3, 4};
    EXPECT_REDUCE_FAILURE("reduce_host, NULL data, count 4", CLREDUCE_ERROR_INVALID_ARGUMENT,
                          g_ctx, WORDS("data"),
                          clreduce_reduce_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                               CLREDUCE_AUTO, NULL, 4, &r));
    assert_true(r == 3.25f);
    EXPECT_REDUCE_FAILURE("reduce_host, NULL result", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                          WORDS("result"),
                          clreduce_reduce_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                               CLREDUCE_AUTO, data, 4, NULL));
    EXPECT_REDUCE_FAILURE("reduce_host, NULL ctx", CLREDUCE_ERROR_INVALID_ARGUMENT, NULL,
                          WORDS("ctx"),
                          clreduce_reduce_host(NULL, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                               CLREDUCE_AUTO, data, 4, &r));
    EXPECT_REDUCE_FAILURE("reduce_host, op 11", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                          WORDS("op", "11"),
                          clreduce_reduce_host(g_ctx, (clreduce_op)11, CLREDUCE_FLOAT,
                                               CLREDUCE_AUTO, data, 4, &r));
    EXPECT_REDUCE_FAILURE("reduce_host, type -1, count 0", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                          WORDS("type"),
                          clreduce_reduce_host(g_ctx, CLREDUCE_OP_SUM, (clreduce_type)-1,
                                               CLREDUCE_AUTO, data, 0, &r));
    EXPECT_REDUCE_FAILURE("reduce_host, variant 99", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                          WORDS("variant", "99"),
                          clreduce_reduce_host(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                               (clreduce_variant)99, data, 4, &r));
    assert_true(r == 3.25f);
}

static void test_create_errors(void **state)
{
    (void)state;
    cl_context cl = clreduce_get_cl_context(g_ctx);
    cl_device_id dev = clreduce_get_cl_device(g_ctx);
    clreduce_ctx *const marker = (clreduce_ctx *)g_sentinel;
    clreduce_ctx *out = marker;
    clreduce_settings s;
    clreduce_default_settings(&s);

    check_failure("create, NULL context", clreduce_create(NULL, dev, &out),
                  CLREDUCE_ERROR_INVALID_ARGUMENT, NULL, WORDS("context"));
    assert_ptr_equal(out, marker);
    check_failure("create, NULL device", clreduce_create(cl, NULL, &out),
                  CLREDUCE_ERROR_INVALID_ARGUMENT, NULL, WORDS("device"));
    assert_ptr_equal(out, marker);
    check_failure("create, NULL out", clreduce_create(cl, dev, NULL),
                  CLREDUCE_ERROR_INVALID_ARGUMENT, NULL, WORDS("out"));
    check_failure("create_with_settings, NULL context",
                  clreduce_create_with_settings(NULL, dev, &s, &out),
                  CLREDUCE_ERROR_INVALID_ARGUMENT, NULL, WORDS("context"));
    assert_ptr_equal(out, marker);
    check_failure("create_with_settings, NULL device",
                  clreduce_create_with_settings(cl, NULL, &s, &out),
                  CLREDUCE_ERROR_INVALID_ARGUMENT, NULL, WORDS("device"));
    assert_ptr_equal(out, marker);
    check_failure("create_with_settings, NULL out",
                  clreduce_create_with_settings(cl, dev, &s, NULL), CLREDUCE_ERROR_INVALID_ARGUMENT,
                  NULL, WORDS("out"));
    check_failure("create_default, NULL out", clreduce_create_default(NULL),
                  CLREDUCE_ERROR_INVALID_ARGUMENT, NULL, WORDS("out"));

    static const struct {
        const char *what;
        const char *field;
        size_t work_group_size;
        unsigned groups, loads, vector;
        int path;
        unsigned passes;
    } bad[] = {
        {"work_group_size 100", "work_group_size", 100, 0, 0, 0, 0, 0},
        {"work_group_size 32 (below 64)", "work_group_size", 32, 0, 0, 0, 0, 0},
        {"work_group_size 3 (not a power of two)", "work_group_size", 3, 0, 0, 0, 0, 0},
        {"work_group_size 2^40", "work_group_size", (size_t)1 << 40, 0, 0, 0, 0, 0},
        {"vector_width 3", "vector_width", 0, 0, 0, 3, 0, 0},
        {"vector_width 32", "vector_width", 0, 0, 0, 32, 0, 0},
        {"loads_per_work_item 17", "loads_per_work_item", 0, 0, 17, 0, 0, 0},
        {"groups_per_compute_unit 65", "groups_per_compute_unit", 0, 65, 0, 0, 0, 0},
        {"subgroup_path 42", "subgroup_path", 0, 0, 0, 0, 42, 0},
        {"subgroup_path -1", "subgroup_path", 0, 0, 0, 0, -1, 0},
        {"segment_passes 3", "segment_passes", 0, 0, 0, 0, 0, 3},
    };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        clreduce_default_settings(&s);
        s.work_group_size = bad[i].work_group_size;
        s.groups_per_compute_unit = bad[i].groups;
        s.loads_per_work_item = bad[i].loads;
        s.vector_width = bad[i].vector;
        s.subgroup_path = (clreduce_subgroup_path)bad[i].path;
        s.segment_passes = bad[i].passes;
        out = marker;
        char what[96];
        snprintf(what, sizeof what, "settings: %s", bad[i].what);
        check_failure(what, clreduce_create_with_settings(cl, dev, &s, &out),
                      CLREDUCE_ERROR_INVALID_ARGUMENT, NULL, WORDS(bad[i].field));
        assert_ptr_equal(out, marker);
    }

    /* After a failed create, clreduce_last_error(NULL) still tells why. */
    assert_true(clreduce_last_error(NULL)[0] != '\0');
    clreduce_destroy(NULL); /* a no-op: nothing to crash on */
}

/* Valid settings at their documented limits are accepted. */
static void test_settings_limits(void **state)
{
    (void)state;
    cl_context cl = clreduce_get_cl_context(g_ctx);
    cl_device_id dev = clreduce_get_cl_device(g_ctx);
    size_t max_wg = tc_device_max_work_group_size(g_ctx), top = 1;
    while (top * 2 <= max_wg)
        top *= 2;
    struct {
        const char *what;
        clreduce_settings s;
    } ok[8];
    size_t n = 0;
    memset(ok, 0, sizeof ok);
    ok[n].what = "largest power-of-two work_group_size";
    ok[n++].s.work_group_size = top;
    ok[n].what = "work_group_size 64";
    ok[n++].s.work_group_size = 64;
    ok[n].what = "groups_per_compute_unit 64";
    ok[n++].s.groups_per_compute_unit = 64;
    ok[n].what = "loads_per_work_item 16";
    ok[n++].s.loads_per_work_item = 16;
    ok[n].what = "vector_width 16";
    ok[n++].s.vector_width = 16;
    ok[n].what = "subgroup_path none";
    ok[n++].s.subgroup_path = CLREDUCE_SUBGROUP_PATH_NONE;
    ok[n].what = "segment_passes 1";
    ok[n++].s.segment_passes = 1;
    ok[n].what = "segment_passes 2";
    ok[n++].s.segment_passes = 2;
    for (size_t i = 0; i < n; i++) {
        clreduce_ctx *c = NULL;
        clreduce_status st = clreduce_create_with_settings(cl, dev, &ok[i].s, &c);
        print_message("%-46s -> %s %s\n", ok[i].what, clreduce_status_string(st),
                      st ? clreduce_last_error(NULL) : "");
        if (st != CLREDUCE_SUCCESS)
            print_error("settings with %s rejected: %s\n", ok[i].what,
                        clreduce_last_error(NULL));
        assert_int_equal(st, CLREDUCE_SUCCESS);
        clreduce_destroy(c);
    }
}

static char *saved_env;
static int env_changed; /* restore_env() runs from the test and its teardown */

static void restore_env(void)
{
    if (!env_changed)
        return;
    env_changed = 0;
    if (saved_env) {
        setenv("CLREDUCE_DEVICE", saved_env, 1);
        free(saved_env);
        saved_env = NULL;
    } else {
        unsetenv("CLREDUCE_DEVICE");
    }
}

static int env_teardown(void **state)
{
    (void)state;
    restore_env();
    return 0;
}

static void test_no_device(void **state)
{
    (void)state;
    const char *cur = getenv("CLREDUCE_DEVICE");
    saved_env = cur ? strdup(cur) : NULL;
    env_changed = 1;
    static const char *const selectors[] = {"99:99", "no-such-device"};
    for (size_t i = 0; i < ARRAY_SIZE(selectors); i++) {
        assert_int_equal(setenv("CLREDUCE_DEVICE", selectors[i], 1), 0);
        clreduce_ctx *const marker = (clreduce_ctx *)g_sentinel;
        clreduce_ctx *out = marker;
        char what[64];
        snprintf(what, sizeof what, "CLREDUCE_DEVICE=%s", selectors[i]);
        check_failure(what, clreduce_create_default(&out), CLREDUCE_ERROR_NO_DEVICE, NULL,
                      WORDS(selectors[i]));
        assert_ptr_equal(out, marker);
    }
    restore_env();
    /* The real device is found again. */
    clreduce_ctx *c = NULL;
    assert_int_equal(clreduce_create_default(&c), CLREDUCE_SUCCESS);
    clreduce_destroy(c);
}

/* clreduce_find_device agrees with the context's device and fails cleanly. */
static void test_find_device(void **state)
{
    (void)state;
    cl_platform_id platform = NULL;
    cl_device_id device = NULL;
    const char *selector = getenv("CLREDUCE_DEVICE");
    if (selector && !*selector)
        selector = NULL;
    assert_int_equal(clreduce_find_device(selector, &platform, &device), CLREDUCE_SUCCESS);
    assert_non_null(platform);
    /* The same device, though some runtimes hand out different handles for
     * one device or platform: compare names, not pointers. */
    cl_device_id mine = clreduce_get_cl_device(g_ctx);
    cl_platform_id my_platform = NULL;
    char my_name[256] = "", its_name[256] = "", my_pname[256] = "", its_pname[256] = "";
    clGetDeviceInfo(mine, CL_DEVICE_PLATFORM, sizeof my_platform, &my_platform, NULL);
    clGetDeviceInfo(mine, CL_DEVICE_NAME, sizeof my_name - 1, my_name, NULL);
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof its_name - 1, its_name, NULL);
    clGetPlatformInfo(my_platform, CL_PLATFORM_NAME, sizeof my_pname - 1, my_pname, NULL);
    clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof its_pname - 1, its_pname, NULL);
    assert_string_equal(my_name, its_name);
    assert_string_equal(my_pname, its_pname);

    device = (cl_device_id)(uintptr_t)0x5e5e;
    assert_int_equal(clreduce_find_device("99:99", &platform, &device), CLREDUCE_ERROR_NO_DEVICE);
    assert_true(tc_contains(clreduce_last_error(NULL), "99:99"));
    assert_ptr_equal(device, (cl_device_id)(uintptr_t)0x5e5e);
    assert_int_equal(clreduce_find_device("no-such-device-anywhere", &platform, &device),
                     CLREDUCE_ERROR_NO_DEVICE);
    /* The message lists the devices there are, with their indices. */
    assert_true(tc_contains(clreduce_last_error(NULL), "0:0"));
    assert_int_equal(clreduce_find_device(NULL, NULL, &device), CLREDUCE_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clreduce_find_device(NULL, &platform, NULL), CLREDUCE_ERROR_INVALID_ARGUMENT);
}

static void test_misc_null(void **state)
{
    (void)state;
    clreduce_cache_stats st;
    clreduce_settings t;
    check_failure("get_cache_stats, NULL ctx", clreduce_get_cache_stats(NULL, &st),
                  CLREDUCE_ERROR_INVALID_ARGUMENT, NULL, WORDS("ctx"));
    check_failure("get_cache_stats, NULL stats", clreduce_get_cache_stats(g_ctx, NULL),
                  CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("stats"));
    check_failure("get_tuning, unknown type", clreduce_get_tuning(g_ctx, (clreduce_type)9, &t),
                  CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("type"));
    check_failure("get_tuning, NULL out", clreduce_get_tuning(g_ctx, CLREDUCE_FLOAT, NULL),
                  CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("out"));
    const clreduce_op ops[] = {CLREDUCE_OP_SUM, (clreduce_op)99};
    check_failure("get_operators_tuning, NULL ops",
                  clreduce_get_operators_tuning(g_ctx, NULL, 1, CLREDUCE_FLOAT, &t),
                  CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("ops"));
    check_failure("get_operators_tuning, no operator",
                  clreduce_get_operators_tuning(g_ctx, ops, 0, CLREDUCE_FLOAT, &t),
                  CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("num_ops"));
    check_failure("get_operators_tuning, eleven operators",
                  clreduce_get_operators_tuning(g_ctx, ops, CLREDUCE_MULTI_MAX + 1, CLREDUCE_FLOAT,
                                                &t),
                  CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("num_ops"));
    memset(&t, 0xa5, sizeof t);
    clreduce_settings before = t;
    check_failure("get_operators_tuning, unknown op",
                  clreduce_get_operators_tuning(g_ctx, ops, 2, CLREDUCE_FLOAT, &t),
                  CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("ops[1]"));
    assert_memory_equal(&t, &before, sizeof t); /* nothing written */
    const clreduce_op twice[] = {CLREDUCE_OP_MIN, CLREDUCE_OP_MIN};
    check_failure("get_operators_tuning, an operator twice",
                  clreduce_get_operators_tuning(g_ctx, twice, 2, CLREDUCE_FLOAT, &t),
                  CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("both"));
    const clreduce_op dot_and_sum[] = {CLREDUCE_OP_DOT, CLREDUCE_OP_SUM};
    check_failure("get_operators_tuning, dot among several",
                  clreduce_get_operators_tuning(g_ctx, dot_and_sum, 2, CLREDUCE_FLOAT, &t),
                  CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("dot"));
    assert_memory_equal(&t, &before, sizeof t);
    check_failure("get_operators_tuning, unknown type",
                  clreduce_get_operators_tuning(g_ctx, ops, 1, (clreduce_type)9, &t),
                  CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("type"));
    check_failure("get_operators_tuning, NULL out",
                  clreduce_get_operators_tuning(g_ctx, ops, 1, CLREDUCE_FLOAT, NULL),
                  CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("out"));
}

int main(void)
{
    g_ctx = tc_start("unit.errors", &g_queue, NULL);
    tc_make_guarded(g_ctx, g_queue, g_input_data, INPUT_COUNT, g_sentinel, sizeof g_sentinel,
                    &g_guarded);
    g_input = g_guarded.input;
    g_result = g_guarded.output;

    /* Programs are counted from here: the failures below must build none
     * (until test_adjacent_result_is_allowed, which runs last). */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_absurd_counts),
        cmocka_unit_test(test_unknown_enums),
        cmocka_unit_test(test_wait_list),
        cmocka_unit_test(test_foreign_objects),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_unsupported),
        cmocka_unit_test(test_reduce_host_errors),
        cmocka_unit_test(test_create_errors),
        cmocka_unit_test(test_settings_limits),
        cmocka_unit_test_teardown(test_no_device, env_teardown),
        cmocka_unit_test(test_misc_null),
        cmocka_unit_test(test_find_device),
        cmocka_unit_test(test_adjacent_result_is_allowed),
    };
    /* CLREDUCE_TEST_FILTER=pattern runs only the matching tests. */
    int failed = tc_run_tests("unit.errors", tests, ARRAY_SIZE(tests));

    tc_release_guarded(&g_guarded);
    return tc_finish(g_ctx, failed, g_queue, NULL);
}
