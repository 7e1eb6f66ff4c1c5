/* Helpers shared by the clreduce test programs: device set-up, random data,
 * CPU reference results, one device reduction or scan with its buffers
 * checked around it (test_common.c, test_common_data.c, test_common_run.c). */
#ifndef CLREDUCE_TEST_COMMON_H
#define CLREDUCE_TEST_COMMON_H

#include <clreduce/clreduce.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A monotonic clock, in seconds. */
static inline double tc_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Meson reads this exit status as "skipped". */
#define TC_EXIT_SKIP 77

/* 2^20 + 7: large enough for several work-groups on any device, and odd. */
#define TC_LARGE_COUNT ((size_t)1048583)

/* A value no OpenCL implementation hands out, to see whether an event
 * out-parameter was written. */
#define TC_EVENT_SENTINEL ((cl_event)(uintptr_t)0x5e5e5e5e)

/* Byte the result buffers are filled with before a reduction. */
#define TC_SENTINEL_BYTE 0xA5

/* One element of any clreduce_type. */
typedef union tc_value {
    float f;
    double d;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    unsigned char bytes[8];
} tc_value;

/* ---- random numbers ------------------------------------------------------ */

/* Picks the run's base seed (CLREDUCE_TEST_SEED, else the clock) and prints
 * it, so that a failing run can be repeated. */
void tc_init_seed(void);
/* Reseeds from the base seed and `name` and prints the seed; call at the
 * start of every test, so that each test's data can be reproduced alone. */
void tc_seed_for(const char *name);
uint64_t tc_seed(void);
uint64_t tc_rand64(void);
/* Uniform in [0, 1). */
double tc_rand_unit(void);
/* Uniform in [0, n); n > 0. */
size_t tc_rand_below(size_t n);

/* ---- devices --------------------------------------------------------------- */

/* Loads the installed OpenCL runtimes, and builds a trivial program on the
 * context's device (both called by tc_create_default_or_skip). */
void tc_preload_opencl_runtimes(void);
void tc_warm_up_compiler(const clreduce_ctx *ctx);

/* Creates the context with clreduce_create_default(); exits with
 * TC_EXIT_SKIP when there is no OpenCL device, and with 1 on another error.
 * Prints the device and the sub-group path. */
clreduce_ctx *tc_create_default_or_skip(const char *program);

/* A context of base's OpenCL context and device with `settings`; fails the
 * test where it cannot be made. */
clreduce_ctx *tc_context_like(const clreduce_ctx *base, const clreduce_settings *settings);

/* The start of a test program: picks the run's seed (tc_init_seed), creates
 * the default context (tc_create_default_or_skip) and, for each further
 * argument (a cl_command_queue *) up to a NULL, an in-order queue on it;
 * exits with 1 when one cannot be made. */
clreduce_ctx *tc_start(const char *program, ...)
#ifdef __GNUC__
    __attribute__((sentinel))
#endif
    ;

/* The end of a test program: releases the queues (each further argument, a
 * cl_command_queue, up to a NULL) and the context; returns the program's
 * exit status after `failed` failed tests. */
int tc_finish(clreduce_ctx *ctx, int failed, ...)
#ifdef __GNUC__
    __attribute__((sentinel))
#endif
    ;

/* Prints "device: ..., sub-group path: ..." for ctx. */
void tc_print_device(const clreduce_ctx *ctx);

/* Whether the context's device accepts a queue with these properties. */
int tc_device_supports_queue(const clreduce_ctx *ctx, cl_command_queue_properties props);

/* An in-order (or `props`) queue on the context's device; NULL on failure,
 * with the reason printed. */
cl_command_queue tc_create_queue(const clreduce_ctx *ctx, cl_command_queue_properties props);

size_t tc_device_max_work_group_size(const clreduce_ctx *ctx);
/* CL_DEVICE_TYPE of ctx's device (0 where the query fails). */
cl_device_type tc_device_type(const clreduce_ctx *ctx);
/* Whether ctx's device is an NVIDIA GPU (where the library tunes some
 * operators of their own). */
int tc_is_nvidia_gpu(const clreduce_ctx *ctx);
/* Whether the name of ctx's platform holds `name` ("Portable Computing
 * Language", "Intel(R) OpenCL"): for runtimes whose defects some tests step
 * around, saying so. */
int tc_platform_is(const clreduce_ctx *ctx, const char *name);
#define TC_POCL "Portable Computing Language"
#define TC_INTEL_CPU_RUNTIME "Intel(R) OpenCL"

/* Whether the type can be used on this context (cl_khr_fp64 for double). */
int tc_type_supported(clreduce_ctx *ctx, clreduce_type type);

/* ---- data and references ---------------------------------------------------- */

int tc_is_float_type(clreduce_type type);

/* Whether op sums the elements or a map of them (squares, absolute values):
 * its results are checked as sums are, of the mapped elements. */
int tc_is_sum(clreduce_op op);
/* The term a sum op adds for x: x, x * x or |x|. */
long double tc_sum_term(clreduce_op op, long double x);

/* Fills data[0 .. n) with random values of `type`: mixed signs, never all
 * zero, integers often near the type's limits so that sums overflow. Values
 * never equal the type's extreme values (those are the poison for min and
 * max, see tc_poison). */
void tc_fill_random(clreduce_type type, void *data, size_t n);

/* The unit roundoff u of float or double (2^-24, 2^-53). */
long double tc_unit_roundoff(clreduce_type type);

/* Float or double data that a long chain of additions rounds badly: each
 * run of `length` elements of data[0 .. n) starts with `ones` ones (all of
 * the run where shorter), then holds values just under u, each lost when
 * added alone to a sum of 1 or more. */
void tc_fill_ones_then_tiny(clreduce_type type, void *data, size_t n, size_t length,
                            size_t ones);

/* Random data shaped for an operator (tc_fill_mode). */
typedef enum tc_data_mode {
    TC_DATA_SMALL,   /* sums: small integers, floats in [-1, 1) */
    TC_DATA_FULL,    /* sums: tc_fill_random (integers near the limits, so
                        that prefixes wrap; floats of mixed magnitudes) */
    TC_DATA_UNIFORM, /* min/max: uniform over the type's range, with both
                        extreme values planted */
    TC_DATA_RECORDS  /* min/max: a noisy trend through the whole range, so
                        that the prefix changes every few elements */
} tc_data_mode;

void tc_fill_mode(clreduce_op op, clreduce_type type, tc_data_mode mode, void *data, size_t n);
const char *tc_data_mode_name(tc_data_mode mode);

/* The modes used for op: two per op, alternated from case k to case k + 1. */
tc_data_mode tc_mode_for(clreduce_op op, size_t k);

/* Bytes of one element of `type` (4 for an unknown type). */
size_t tc_elem_size(clreduce_type type);

/* Element i of an array of `type`, and setting it from a double (floats) or
 * from bits (integers: tc_value's u64, truncated). */
void tc_get(clreduce_type type, const void *data, size_t i, tc_value *out);
void tc_set(clreduce_type type, void *data, size_t i, const tc_value *v);
void tc_set_double(clreduce_type type, void *data, size_t i, double v);
/* Element i of an array of float or double, as a double. */
double tc_get_double(clreduce_type type, const void *data, size_t i);

/* The first element of buf[0 .. count) outside [from, from + n) that no
 * longer holds TC_SENTINEL_BYTE in every byte, or SIZE_MAX. */
size_t tc_first_changed_outside(const void *buf, size_t count, size_t from, size_t n,
                                size_t elem_size);

/* A value that changes the result if the kernel reads it by mistake: NaN for
 * floats, the identity's opposite extreme for integer min and max, a large
 * odd value for integer sums. */
void tc_poison(clreduce_op op, clreduce_type type, tc_value *out);

/* The documented identity of op for type (what count == 0 gives). */
void tc_identity(clreduce_op op, clreduce_type type, tc_value *out);

/* CPU reference: float sums in double, double sums in long double (of the
 * squares or absolute values for those sums: floats and doubles only),
 * integer sums with wrap-around, min/max with NaN propagation and -0.0 <
 * +0.0. *abs_sum receives the sum of |x| (0 for integers). */
void tc_reference(clreduce_op op, clreduce_type type, const void *data, size_t n, tc_value *out,
                  long double *abs_sum);

/* Whether `got` is an acceptable result given the reference: floating-point
 * sums (tc_is_sum) within 1e-5 (float) or 1e-12 (double) times sum |x|, NaN for a NaN
 * reference, everything else bit for bit. */
int tc_matches(clreduce_op op, clreduce_type type, const tc_value *got, const tc_value *ref,
               long double abs_sum);

/* ---- batched reductions: rows and segments ------------------------------------ */

/* The longest chain of additions in sequence (m of clreduce.h's bound) in a
 * float sum of n elements, as a family of batched reductions states it. */
typedef size_t (*tc_chain_length_fn)(size_t n, const void *arg);

/* Checks results[0 .. count) of a batched reduction: result i against the
 * CPU reference of data[starts[i] .. starts[i] + lengths[i]) (the identity
 * for an empty range). Integers, min and max bit for bit (any NaN matches a
 * NaN); floating-point sums (tc_is_sum) within (m + ceil(log2 n)) * u *
 * sum|x| of the exact sum (long double, compensated), x the mapped elements,
 * m from chain_length, plus one for the rounding of each square, u the unit
 * roundoff; an infinite or NaN reference must be met exactly. Returns the
 * number of wrong results, the first described in why. *worst receives the
 * largest error of a float sum as a fraction of its bound (0 otherwise). */
size_t tc_check_batched(clreduce_op op, clreduce_type type, const void *data,
                        const size_t *starts, const size_t *lengths, size_t count,
                        const void *results, tc_chain_length_fn chain_length, const void *arg,
                        double *worst, char *why, size_t why_size);

/* ---- prefix scans ------------------------------------------------------------ */

/* Tolerances of floating-point scan sums, relative to sum_{j<=i} |x_j|. */
#define TC_SCAN_TOL_FLOAT 2e-5L
#define TC_SCAN_TOL_DOUBLE 1e-12L

/* Where a scan differs from the CPU reference. */
typedef struct tc_scan_mismatch {
    size_t index;          /* first element that differs */
    size_t wrong;          /* how many elements differ */
    size_t last;           /* last element that differs */
    tc_value got;          /* element `index` of the output */
    tc_value expected;     /* the reference (rounded to the type for float sums) */
    long double exact;     /* float sums: the exact prefix sum at `index` */
    long double tolerance; /* float sums: the error allowed at `index` */
} tc_scan_mismatch;

/* Checks output[0 .. n) against the inclusive or exclusive scan of
 * input[0 .. n) computed on the CPU: integer sums wrap around, min/max
 * propagate NaN from its position on and order -0.0 below +0.0, all bit for
 * bit (any NaN matches a NaN); float sums are compared with the exact prefix
 * (accumulated in long double) within tol * sum_{j<=i} |x_j| plus the
 * smallest normal number, tol TC_SCAN_TOL_FLOAT or TC_SCAN_TOL_DOUBLE; an
 * infinite or NaN prefix must be met exactly. An exclusive scan's element 0
 * must be the identity, bit for bit. Returns 1 when everything matches, else
 * 0 with the details in *m. */
int tc_check_scan(clreduce_op op, clreduce_type type, clreduce_scan_kind kind, const void *input,
                  size_t n, const void *output, tc_scan_mismatch *m);

/* tc_check_scan() with its finding as text in why (for the programs that
 * check scans among other work). */
int tc_scan_matches(clreduce_op op, clreduce_type type, clreduce_scan_kind kind,
                    const void *input, size_t n, const void *output, char *why, size_t why_size);

/* The CPU reference scan itself, in the element type (float sums rounded
 * from the long double prefix); output may be input. */
void tc_reference_scan(clreduce_op op, clreduce_type type, clreduce_scan_kind kind,
                       const void *input, size_t n, void *output);

const char *tc_scan_kind_name(clreduce_scan_kind kind);
const char *tc_scan_variant_name(clreduce_scan_variant v);
/* "auto (lookback)" for CLREDUCE_SCAN_AUTO (what it resolves to for `type`
 * on ctx), else the variant's name; returns buf. */
const char *tc_scan_variant_label(const clreduce_ctx *ctx, clreduce_scan_variant v,
                                  clreduce_type type, char *buf, size_t size);

/* Formats a value of `type` (with its bits for floats). */
void tc_format(clreduce_type type, const tc_value *v, char *buf, size_t size);

/* A result and what it should have been, both formatted by tc_format. */
typedef struct tc_got_want {
    char got[96], want[96];
} tc_got_want;
tc_got_want tc_format_got_want(clreduce_type type, const tc_value *got, const tc_value *want);

/* Case-insensitive substring test. */
int tc_contains(const char *text, const char *word);

/* ---- OpenCL calls that must succeed (cmocka asserts) ------------------------------ */

/* A buffer of the context, initialised from `init` when not NULL. */
cl_mem tc_make_buffer(const clreduce_ctx *ctx, size_t bytes, const void *init);
/* Reads `bytes` from the start of mem on q, blocking, behind the wait list. */
void tc_read_buffer(cl_command_queue q, cl_mem mem, void *out, size_t bytes, cl_uint nwait,
                    const cl_event *wait);
cl_int tc_event_status(cl_event ev);
cl_ulong tc_profiling_time(cl_event ev, cl_profiling_info what);
/* A user event of the context's OpenCL context. */
cl_event tc_user_event(const clreduce_ctx *ctx);

/* A second OpenCL context on the device of ctx, with a queue and two
 * buffers of its own: objects that calls on ctx must refuse. */
typedef struct tc_foreign {
    cl_context context;
    cl_command_queue queue;
    cl_mem input, output;
} tc_foreign;
void tc_make_foreign(const clreduce_ctx *ctx, size_t input_bytes, size_t output_bytes,
                     tc_foreign *f);
void tc_release_foreign(tc_foreign *f);

/* ---- running the tests (cmocka) --------------------------------------------------- */

struct CMUnitTest;

/* Sets tests[*count] to the test `name` (a string that outlives the run)
 * calling fn with `state`, and counts it. */
void tc_add_test(struct CMUnitTest *tests, size_t *count, const char *name,
                 void (*fn)(void **state), void *state);

/* Runs tests[0 .. count) as group `group`, only those whose names match
 * the glob in CLREDUCE_TEST_FILTER when it is set; returns how many
 * failed. */
int tc_run_tests(const char *group, const struct CMUnitTest *tests, size_t count);

/* ---- the test of one variant (cmocka asserts) ------------------------------------- */

/* Every operator and every type, in the order the variant tests take them. */
extern const clreduce_op tc_all_ops[3];
extern const clreduce_type tc_all_types[6];

/* The operator and type combinations of one variant, by what its check of
 * support said. */
typedef struct tc_support_tally {
    const char *variant; /* its name, in messages */
    int supported, unsupported, errors;
    char last_reason[512];
} tc_support_tally;

/* Where the cases of one test run, and how many of them failed. */
typedef struct tc_suite {
    clreduce_ctx *ctx;
    const char *label; /* the context, in messages */
    int failures;
    size_t cases;
} tc_suite;

/* The test of one variant, of reductions or of scans. */
typedef struct tc_variant_test {
    int scan;       /* a variant of scans, else of reductions */
    int variant;    /* its clreduce_scan_variant or clreduce_variant */
    tc_suite suite; /* the cases run */
    void *data;     /* room for TC_LARGE_COUNT elements of 8 bytes */
    tc_support_tally tally;
} tc_variant_test;

/* What a test program runs in the test of one variant. */
typedef struct tc_variant_steps {
    /* Each operator and type the variant does not run (as its check of
     * support says): the call must refuse them too. */
    void (*refused)(tc_variant_test *t, clreduce_op op, clreduce_type type);
    /* Each it runs: its cases. */
    void (*cases)(tc_variant_test *t, clreduce_op op, clreduce_type type);
    /* Then, once: the cases of no single combination (special values). */
    void (*after)(tc_variant_test *t);
} tc_variant_steps;

/* The test "variant_<name>" of one variant (of scans with `scan`) on ctx:
 * seeds its random data by that name, asks clreduce_check_support (or
 * clreduce_check_scan_support) about every operator and type, notes an
 * unsupported combination with its reason (once for combinations in a row
 * with the same reason), runs the steps, and prints how many cases ran and
 * failed. Fails when a case failed or a check of support erred, and skips
 * when the device supports no combination. */
void tc_run_variant_test(clreduce_ctx *ctx, int scan, int variant, const tc_variant_steps *steps);

/* ---- failed calls (cmocka asserts) ------------------------------------------------- */

clreduce_cache_stats tc_cache_stats(const clreduce_ctx *ctx);

/* Prints and checks a failed call: status `want`, and a message of msg_ctx
 * (NULL: of the calling thread's last failed create) that is not empty and
 * contains every word of `words` (NULL-terminated, may be NULL),
 * case-insensitively. */
void tc_check_status_and_message(const char *what, clreduce_status got, clreduce_status want,
                                 const clreduce_ctx *msg_ctx, const char *const *words);

/* Checks that ctx built, loaded from disk or even looked up no program since
 * its counters were *before. */
void tc_check_nothing_built(const char *what, const clreduce_ctx *ctx,
                            const clreduce_cache_stats *before);

/* Checks that the first `size` bytes of mem, read on q, still are `bytes`. */
void tc_check_buffer_unchanged(cl_command_queue q, cl_mem mem, const void *bytes, size_t size);

/* Buffers that the calls expected to fail are given: an input of floats
 * and an output of sentinel bytes, with what they hold. A failed call
 * leaves both as they were. */
typedef struct tc_guarded {
    cl_command_queue queue; /* where they are read */
    cl_mem input, output;
    const float *input_data;
    const unsigned char *output_bytes;
    size_t input_count, output_size;
} tc_guarded;

/* Fills input_data[0 .. input_count) with i - 40.5 and output_bytes[0 ..
 * output_size) with TC_SENTINEL_BYTE, uploads each to a new buffer of ctx
 * and describes both in g; tc_release_guarded releases the buffers. */
void tc_make_guarded(const clreduce_ctx *ctx, cl_command_queue queue, float *input_data,
                     size_t input_count, unsigned char *output_bytes, size_t output_size,
                     tc_guarded *g);
void tc_release_guarded(tc_guarded *g);

/* Checks a failed call: its status and message (tc_check_status_and_message),
 * that nothing was built in stats_ctx since its counters were *before
 * (tc_check_nothing_built; not checked when stats_ctx is NULL), that the
 * queue of g finishes and that g's buffers are as they were. */
void tc_check_failure(const tc_guarded *g, const char *what, clreduce_status got,
                      clreduce_status want, const clreduce_ctx *msg_ctx, const char *const *words,
                      const clreduce_ctx *stats_ctx, const clreduce_cache_stats *before);

/* Runs `call`, which must fail as tc_check_failure checks, with the counters
 * of stats_ctx taken just before it. The call may pass &done and &first,
 * declared here: neither may be written. */
#define TC_EXPECT_FAILURE(g, stats_ctx, what, want, msg_ctx, words, call)                          \
    do {                                                                                           \
        clreduce_cache_stats before_ = tc_cache_stats(stats_ctx);                                  \
        cl_event done = TC_EVENT_SENTINEL, first = TC_EVENT_SENTINEL;                              \
        clreduce_status got_ = (call);                                                             \
        tc_check_failure(g, what, got_, want, msg_ctx, words, stats_ctx, &before_);                \
        assert_true(done == TC_EVENT_SENTINEL);                                                    \
        assert_true(first == TC_EVENT_SENTINEL);                                                   \
    } while (0)

/* ---- one reduction on the device -------------------------------------------- */

typedef struct tc_layout {
    size_t offset;        /* poisoned elements before the range */
    size_t tail;          /* poisoned elements after it */
    size_t result_offset; /* element of the result buffer written */
    int use_wait_list;    /* upload without blocking and pass its event */
    /* Queue the result is read on, waiting only for the done event: a
     * second queue shows a done event that completes too early. NULL: the
     * reduction's queue. */
    cl_command_queue read_queue;
} tc_layout;

typedef struct tc_run {
    clreduce_status status;  /* what clreduce_reduce returned */
    tc_value got;            /* the result element afterwards */
    int result_untouched;    /* the result element still holds the sentinel */
    int neighbours_untouched; /* the elements around it still do */
    char problem[256];       /* a failure of the harness or of the events */
} tc_run;

/* Uploads data[0 .. n) at layout->offset of a fresh buffer between poisoned
 * elements, reduces it into a fresh sentinel-filled result buffer with
 * clreduce_reduce, checks and releases the `done` event, reads the result
 * back. Returns 0, or -1 with run->problem set when something other than the
 * reduction's status went wrong (an OpenCL call of the harness, the done
 * event, or the out-parameter written on error). */
int tc_run_reduce(clreduce_ctx *ctx, cl_command_queue queue, clreduce_op op, clreduce_type type,
                  clreduce_variant variant, const void *data, size_t n, const tc_layout *layout,
                  tc_run *run);

/* ---- one scan on the device ---------------------------------------------------- */

/* Where the input and output ranges of a scan lie. */
typedef enum tc_placement {
    TC_SEPARATE,      /* input and output in two buffers */
    TC_OUTPUT_AFTER,  /* one buffer: the output range after the input range */
    TC_OUTPUT_BEFORE, /* one buffer: the output range before the input range */
    TC_IN_PLACE       /* one buffer, one range */
} tc_placement;

const char *tc_placement_name(tc_placement where);

typedef struct tc_scan_layout {
    tc_placement where;
    size_t lead;       /* elements before the first range */
    size_t gap;        /* elements between the ranges (one buffer, two ranges) */
    size_t tail;       /* elements after the last range (of each buffer) */
    size_t out_lead;   /* TC_SEPARATE: elements before the output range */
    int use_wait_list; /* upload without blocking and pass its event */
    /* Queue the input is uploaded on when use_wait_list is set, so that only
     * the event orders it before the scan; NULL: the scan's queue. */
    cl_command_queue upload_queue;
    /* Queue the buffers are read on, waiting only for the done event; NULL:
     * the scan's queue. */
    cl_command_queue read_queue;
} tc_scan_layout;

typedef struct tc_scan_run {
    clreduce_status status;  /* what clreduce_scan returned */
    size_t in_off, out_off;  /* the offsets passed */
    int ok;                  /* everything was right */
    tc_scan_mismatch mismatch;
    int range_checked;       /* the output range was compared with the reference */
    size_t outside_changed;  /* elements outside the output range that changed */
    size_t first_changed;    /* the first of them, in its buffer */
    int changed_in_input;    /* it was in the input buffer (TC_SEPARATE) */
    char problem[256];       /* the harness, the events, the out-parameter */
    void *output;            /* the output range after the scan (malloc'd) */
} tc_scan_run;

/* Lays out the input and output ranges as `layout` says, with poisoned
 * elements around the input and sentinel bytes around (and in) the output,
 * uploads data[0 .. n), scans with clreduce_scan, checks and releases the
 * `done` event, reads every buffer back: everything outside the output range
 * must be as it was (on failure the output range too), and the output range
 * must match the CPU reference (tc_check_scan). Returns 1 when everything
 * was right, else 0 with run->... saying what went wrong. run->output is
 * left for the caller to free. */
int tc_run_scan(clreduce_ctx *ctx, cl_command_queue queue, clreduce_op op, clreduce_type type,
                clreduce_scan_kind kind, clreduce_scan_variant variant, const void *data,
                size_t n, const tc_scan_layout *layout, tc_scan_run *run);

/* Describes a mismatch of tc_check_scan: the first wrong element, what it
 * should be (with the exact value and the tolerance for float sums), how
 * many are wrong and the last of them. */
void tc_format_scan_mismatch(clreduce_op op, clreduce_type type, const tc_scan_mismatch *m,
                             char *buf, size_t size);

/* A readable name for a variant/op/type/path, "?" for unknown values. */
const char *tc_variant_name(clreduce_variant v);
const char *tc_op_name(clreduce_op op);
const char *tc_type_name(clreduce_type type);

/* ---- the operators past sum, min and max (test_common_operators.c) -------- */

/* The largest relative error of mean_var's m2 that tc_op_check_result has
 * seen, per type (float, double). */
extern long double tc_op_worst_m2[2];
/* The error allowed in mean_var's m2, relative: clreduce.h's bound. */
long double tc_op_variance_tolerance(clreduce_type type);
/* Whether `got` (a result of clreduce_result_size(op, type) bytes) is right
 * for op on x[0 .. n) (and y, dot) against a long double or exact integer
 * reference; argmin/argmax must match index and value bits exactly. var_tol:
 * the error allowed in mean_var's m2, relative. why says what was wrong. */
int tc_op_check_result(clreduce_op op, clreduce_type type, const void *x, const void *y,
                       size_t n, const unsigned char *got, long double var_tol, char *why,
                       size_t why_size);
/* Whether `got` is op's result on x[0 .. n) (and y, dot): every operator,
 * sum, min and max by tc_matches. */
int tc_check_any_result(clreduce_op op, clreduce_type type, const void *x, const void *y,
                        size_t n, const unsigned char *got, char *why, size_t why_size);
/* Random data for op (integers near their limits; floats in [-4, 4), or 3 +
 * [-1, 1) for mean_var). */
void tc_op_fill(clreduce_op op, clreduce_type type, void *d, size_t n);
/* A value that changes op's result if read. */
void tc_op_poison(clreduce_op op, clreduce_type type, tc_value *p);

#endif
