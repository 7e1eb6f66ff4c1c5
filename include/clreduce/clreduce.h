/*
 * clreduce — parallel reductions and prefix scans on OpenCL devices.
 *
 * clreduce reduces a buffer of numbers to one value (sum, minimum or maximum),
 * every row of a matrix or every segment of a CSR layout to one value each,
 * or scans a buffer into the running sums, minima or maxima of its prefixes,
 * on any OpenCL 1.2+ device. Further reductions give a small structure
 * instead of one value: the index of the minimum or maximum, both extremes at
 * once, sums of squares and of absolute values, the Euclidean norm, the mean
 * and variance, and the dot product of two buffers (see clreduce_op); any
 * set of the one-input operators can share one pass over a buffer
 * (clreduce/multi.h). Its kernels are OpenCL C compiled at run time for the
 * device at hand; on NVIDIA GPUs they use the warp shuffle instructions
 * through inline PTX, elsewhere the device's sub-group extensions where it
 * has them. Compiled programs are cached inside the context, so only the
 * first call with a given operator, type and variant pays for a build.
 *
 * Minimal example (error checks trimmed):
 *
 *     #include <clreduce/clreduce.h>
 *
 *     clreduce_ctx *ctx;
 *     if (clreduce_create_default(&ctx) != CLREDUCE_SUCCESS) return 1;
 *     float data[1000], sum;
 *     for (int i = 0; i < 1000; i++) data[i] = (float)i;
 *     clreduce_status s = clreduce_reduce_host(ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
 *                                              CLREDUCE_AUTO, data, 1000, &sum);
 *     if (s != CLREDUCE_SUCCESS) fprintf(stderr, "%s\n", clreduce_last_error(ctx));
 *     clreduce_destroy(ctx);
 *
 * For data already on the device, clreduce_reduce() enqueues the reduction
 * of a cl_mem range into one element of another cl_mem, asynchronously, with
 * an event wait list and a completion event like any clEnqueue* call.
 *
 * Numerical contract
 *  - Integer sums wrap around modulo 2^32 or 2^64 (two's complement), with no
 *    undefined behaviour.
 *  - Floating-point sums are evaluated in the element type: each work-item
 *    adds its share of the elements in sequence (m of them: n divided by
 *    the number of work-items times the vector width, a few thousand at most
 *    for 2^30 elements on a GPU, 1 or 2 for the classic variants), then the
 *    work-item results are added as a pairwise tree. So
 *    |result - exact| <= (m + ceil(log2 n)) * u * sum(|x_i|), u the unit
 *    roundoff (2^-24 for float, 2^-53 for double); random rounding errors
 *    grow like the square root of that in practice. The test suite checks
 *    1e-5 * sum(|x_i|) for float and 1e-12 * sum(|x_i|) for double up to
 *    2^20 + 7 elements. Overflow gives +/-inf as in IEEE 754.
 *  - Every variant except CLREDUCE_ATOMIC combines the elements in an order
 *    fixed by the count, the device and the tuning, so the same input gives
 *    bitwise the same result every time on the same device. CLREDUCE_ATOMIC
 *    combines work-group partials in arrival order: its float sums may differ
 *    in the last bits from run to run. On NVIDIA it adds float partials with
 *    the hardware's float atomic (PTX red.add.f32), which flushes subnormal
 *    operands and results to zero: up to FLT_MIN (2^-126) more error per
 *    work-group, beyond the bound above.
 *  - min and max propagate NaN: if any element is NaN the result is a NaN.
 *    They order -0.0 below +0.0 (min of {-0.0, +0.0} is -0.0, max is +0.0), so
 *    their result is the same whatever the order of combination.
 *  - A count of 0 gives the operator's identity: 0 for sum; for min +inf
 *    (floats) or the type's largest value (integers); for max -inf or the
 *    type's smallest value.
 *  - Sums of squares, of absolute values and dot products follow the rule
 *    of sums with the sum of their terms' magnitudes: |result - exact| <=
 *    (m + ceil(log2 n)) * u * sum(|t_i|), t_i = x_i^2, |x_i| or x_i*y_i (a
 *    product and its sum may be fused, which only lowers the error).
 *  - The Euclidean norm is never overflowed nor flushed by its squares: it
 *    is finite whenever the exact norm is at most FLT_MAX (DBL_MAX), and
 *    |result - norm| <= ((m + ceil(log2 n)) / 2 + 4) * u * norm (plus the
 *    rounding of a subnormal result). Each work-item adds plain squares and
 *    tracks its largest |x|; one whose largest |x| lies outside [2^-40,
 *    2^50] (float) or [2^-450, 2^450] (double) reads its share again scaled
 *    by a power of two (exact), and the work-items' (sum, exponent) pairs
 *    merge as LAPACK's scaled sums of squares do, so only data with such
 *    values pay a second read. A NaN gives NaN, else an infinity gives +inf.
 *  - Mean and variance are merged pairwise as Chan, Golub and LeVeque's
 *    update of (count, mean, m2), with each mean kept as an element of the
 *    data plus a small offset, so that the difference of two means keeps
 *    the precision of the spread, not of the mean. Each work-item sums its
 *    share shifted by the first values it reads, which keeps the
 *    cancellation of m2 small where those lie within a few standard
 *    deviations of the mean: to first order |m2 - M2| <= (m + ceil(log2 n)
 *    + 4) * u * sum((x_i - c_i)^2), c_i the shift of x_i, and the mean is
 *    within (m + ceil(log2 n) + 2) * u * max|x_i|. As each shift is one of
 *    the values it is subtracted from, sum((x_i - c_i)^2) <= (m + 1) * M2
 *    whatever the data. The test suite checks data of mean 10^6 and spread
 *    1 (uniform, and a ramp) against a two-pass reference: m2 within 1e-5
 *    (float) and 1e-12 (double) relative.
 *  - argmin, argmax, minmax, sums of squares, of absolute values and dot
 *    products of integers are exact (integer sums modulo 2^32 or 2^64).
 *
 * Program caches: a context keeps every program it builds for its lifetime.
 * Programs are also kept on disk as device binaries, so that a new process
 * does not compile again: in $CLREDUCE_CACHE_DIR if set ("" or "off"
 * disables the disk cache), else $XDG_CACHE_HOME/clreduce, else
 * ~/.cache/clreduce; missing directories are created, at any depth. Every
 * file carries a checksum of its binary and of the program's identity, which
 * is verified before the binary reaches the OpenCL runtime. A file that is
 * missing, stale, damaged, unreadable, of another program, or whose binary
 * the runtime refuses or lacks a kernel of, is compiled again from source and
 * the file written anew (to a temporary name, then renamed); the directory
 * can be deleted at any time. A disk cache that cannot be used never fails a
 * call: clreduce_get_cache_stats() says why in disk_cache_status.
 *
 * Threads: a clreduce_ctx may be used from several threads at once.
 * clreduce_last_error() reports the calling thread's last failure.
 *
 * The library never prints and never exits; every failure is a status code
 * and a message from clreduce_last_error().
 */
#ifndef CLREDUCE_CLREDUCE_H
#define CLREDUCE_CLREDUCE_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stddef.h>
#include <stdint.h>

#include "clreduce/version.h"

#ifndef CLREDUCE_API
#if defined(_WIN32)
#define CLREDUCE_API
#elif defined(__GNUC__)
#define CLREDUCE_API __attribute__((visibility("default")))
#else
#define CLREDUCE_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Status codes. 0 is success, every error is negative. The values are fixed.
 * ------------------------------------------------------------------------- */
#define CLREDUCE_STATUS_LIST(X)                                                  \
    X(CLREDUCE_SUCCESS, 0, "success")                                            \
    X(CLREDUCE_ERROR_INVALID_ARGUMENT, -1, "invalid argument")                   \
    X(CLREDUCE_ERROR_UNSUPPORTED, -2, "not supported by this device")            \
    X(CLREDUCE_ERROR_BUILD, -3, "OpenCL program build failed")                   \
    X(CLREDUCE_ERROR_OPENCL, -4, "OpenCL call failed")                           \
    X(CLREDUCE_ERROR_OUT_OF_MEMORY, -5, "out of memory")                         \
    X(CLREDUCE_ERROR_NO_DEVICE, -6, "no OpenCL device found")

typedef enum clreduce_status {
#define CLREDUCE_STATUS_ENUM_(name, value, text) name = value,
    CLREDUCE_STATUS_LIST(CLREDUCE_STATUS_ENUM_)
#undef CLREDUCE_STATUS_ENUM_
} clreduce_status;

/* Reduction operators. SUM, MIN and MAX reduce to one element of the type.
 * The others reduce to a result of clreduce_result_size(op, type) bytes
 * laid out as the structures below, on CLREDUCE_AUTO, CLREDUCE_GRID_STRIDE
 * and CLREDUCE_SINGLE_PASS (other variants: CLREDUCE_ERROR_UNSUPPORTED).
 * Every operator but DOT also scans (clreduce/scan.h). The numerical
 * contract above says how accurate each is. */
typedef enum clreduce_op {
    CLREDUCE_OP_SUM = 0,
    CLREDUCE_OP_MIN = 1,
    CLREDUCE_OP_MAX = 2,
    /* The smallest (largest) element and its index, counted from the start
     * of the range (of the row, of the segment), as a clreduce_arg_<type>;
     * every type. Among equal values
     * the smallest index wins. NaN wins as it does for min and max: the
     * value is a NaN and the index that of the first NaN. -0.0 orders below
     * +0.0. Of no element: min's (max's) identity and index UINT64_MAX. */
    CLREDUCE_OP_ARGMIN = 3,
    CLREDUCE_OP_ARGMAX = 4,
    /* Minimum and maximum in one pass, as a clreduce_minmax_<type>; every
     * type. Each as CLREDUCE_OP_MIN and _MAX give it (a NaN anywhere makes
     * both NaN); of no element {+inf, -inf} (floats) or {largest, smallest}
     * (integers). */
    CLREDUCE_OP_MINMAX = 5,
    /* Sum of x*x, one element of the type; every type (integers wrap
     * around as sums do). */
    CLREDUCE_OP_SUM_SQUARES = 6,
    /* Sum of |x|, one element of the type; every type. A signed integer's
     * |x| is taken as unsigned (|INT32_MIN| is 2^31) and the sum wraps
     * modulo 2^32 or 2^64: read the result's bits as uint32_t or uint64_t. */
    CLREDUCE_OP_SUM_ABS = 7,
    /* Euclidean norm sqrt(sum of x*x), one element; float and double only. */
    CLREDUCE_OP_NORM2 = 8,
    /* Count, mean and m2 = sum of (x - mean)^2, as a
     * clreduce_mean_var_<type>; float and double only. The population
     * variance is m2 / count, the sample variance m2 / (count - 1). Of no
     * element: all zero. */
    CLREDUCE_OP_MEAN_VAR = 9,
    /* Sum of x[i] * y[i] over two inputs, one element of the type; every
     * type (integers wrap around). Through clreduce_dot() only:
     * clreduce_reduce() refuses it, the scans and the rows and segments
     * calls answer CLREDUCE_ERROR_UNSUPPORTED; clreduce_check_support() and
     * clreduce_result_size() take it. */
    CLREDUCE_OP_DOT = 10
} clreduce_op;

#define CLREDUCE_OP_COUNT 11

/* Element types. CLREDUCE_DOUBLE needs a device with cl_khr_fp64.
 *
 * CLREDUCE_HALF and CLREDUCE_BFLOAT16 are storage types: elements of 2 bytes
 * (their bits in a uint16_t on the host) that widen exactly to float. Sum,
 * min and max take them in every call of one operator (flat, rows,
 * segments, scans, row scans) and give floats: each result, and each
 * element a scan writes, is a float of 4 bytes, accumulated in float, and
 * output offsets and pitches count floats. min and max follow the float
 * rules below. Variants: AUTO, GRID_STRIDE and SINGLE_PASS for reductions,
 * SCAN_AUTO and SCAN_REDUCE_THEN_SCAN for scans (others:
 * CLREDUCE_ERROR_UNSUPPORTED); scans never in place. The operators past max
 * and several operators in one call refuse them
 * (CLREDUCE_ERROR_INVALID_ARGUMENT). User-defined operators take them as
 * input types (clreduce/operator.h), their map seeing each element as a
 * float. */
typedef enum clreduce_type {
    CLREDUCE_FLOAT = 0,   /* float,    4 bytes */
    CLREDUCE_DOUBLE = 1,  /* double,   8 bytes */
    CLREDUCE_INT32 = 2,   /* int32_t,  4 bytes */
    CLREDUCE_UINT32 = 3,  /* uint32_t, 4 bytes */
    CLREDUCE_INT64 = 4,   /* int64_t,  8 bytes */
    CLREDUCE_UINT64 = 5,  /* uint64_t, 8 bytes */
    CLREDUCE_HALF = 6,    /* IEEE 754 binary16, 2 bytes */
    CLREDUCE_BFLOAT16 = 7 /* bfloat16 (a float's upper 16 bits), 2 bytes */
} clreduce_type;

/* Kernel variants: the classic optimisation ladder, each selectable by name.
 * All but CLREDUCE_ATOMIC finish with further passes of the same kernel over
 * the per-work-group partial results, or in a single pass where noted. */
typedef enum clreduce_variant {
    /* The library's choice for the device: the fastest variant it can run. */
    CLREDUCE_AUTO = 0,
    /* Interleaved-addressing tree whose active work-items are chosen by
     * lid % (2*stride) == 0: divergent branches, the ladder's first rung. */
    CLREDUCE_INTERLEAVED = 1,
    /* Sequential addressing: the active work-items are contiguous. */
    CLREDUCE_SEQUENTIAL = 2,
    /* Each work-item adds two elements while loading to local memory. */
    CLREDUCE_FIRST_ADD = 3,
    /* As FIRST_ADD, with the last sub-group reduced by shuffles instead of
     * local memory and barriers. Needs sub-group support. */
    CLREDUCE_SUBGROUP_TAIL = 4,
    /* Shuffle reduction in every sub-group, one value per sub-group through
     * local memory, then a shuffle reduction of those. Needs sub-groups. */
    CLREDUCE_SUBGROUP = 5,
    /* Work-group size fixed at compile time and every step of the tree
     * unrolled (the last warp by shuffles on NVIDIA). */
    CLREDUCE_UNROLLED = 6,
    /* Many elements per work-item: a grid sized to the device, vector loads,
     * several loads in flight per work-item; a second launch finishes. */
    CLREDUCE_GRID_STRIDE = 7,
    /* As GRID_STRIDE, but every work-group combines its partial result into
     * the result with one atomic operation. One launch plus a fill of the
     * result. Float sums are not bitwise reproducible run to run. */
    CLREDUCE_ATOMIC = 8,
    /* As GRID_STRIDE in one launch: the work-group that finishes last (an
     * atomic ticket behind a device-scope fence) reduces the partial results
     * in a fixed order. Deterministic. What AUTO picks where the device
     * orders memory between work-groups. */
    CLREDUCE_SINGLE_PASS = 9,
    /* Float and double sums in an order of operations that depends on the
     * element count alone, so that every device, driver and setting gives
     * the same bits (but for the bits of a NaN): tiles of 64 KiB, 256 lanes
     * each adding 16 vectors of 16 bytes in sequence, their vector
     * components added in pairs, the lanes by a tree of pairs, and the
     * tiles' sums reduced the same way until one is left (docs/USING.md
     * spells it out). Sums of squares and of absolute values, and dot
     * products (clreduce_dot()), of float and double take it too: each
     * element is mapped (x*x, |x|, x*y, rounded to the type and never
     * fused into the addition), then summed in that order, in two launches.
     * Min, max, argmin, argmax, minmax and every integer operator are the
     * same bits in every variant already; this variant runs them as AUTO
     * does. Refused (CLREDUCE_ERROR_UNSUPPORTED) by norm2 and mean_var, for
     * the storage types, where the device flushes float subnormals to zero
     * or allows no work-group of 256, and where the settings' build_options
     * relax the math. Settings do not change its order: its work-group
     * size and vector width are fixed. */
    CLREDUCE_REPRODUCIBLE = 10
} clreduce_variant;

#define CLREDUCE_VARIANT_COUNT 11

/* How sub-group ("warp") operations are carried out on the device. */
typedef enum clreduce_subgroup_path {
    CLREDUCE_SUBGROUP_PATH_AUTO = 0,             /* best the device offers */
    CLREDUCE_SUBGROUP_PATH_NONE = 1,             /* no sub-group variants  */
    CLREDUCE_SUBGROUP_PATH_NV_PTX = 2,           /* inline PTX shfl.sync   */
    CLREDUCE_SUBGROUP_PATH_SHUFFLE_RELATIVE = 3, /* sub_group_shuffle_down */
    CLREDUCE_SUBGROUP_PATH_SHUFFLE = 4,          /* sub_group_shuffle      */
    CLREDUCE_SUBGROUP_PATH_REDUCE = 5            /* sub_group_reduce_*     */
} clreduce_subgroup_path;

/* Opaque context: one OpenCL context and device, their capabilities, the
 * cache of compiled programs, and scratch memory. */
typedef struct clreduce_ctx clreduce_ctx;

/* Opaque user-defined operator, compiled for one context and reference
 * counted (clreduce/operator.h). */
typedef struct clreduce_operator clreduce_operator;

/* ---------------------------------------------------------------------------
 * Contexts
 * ------------------------------------------------------------------------- */

/* Options for clreduce_create_with_settings(). Initialise with
 * clreduce_default_settings() so that fields added later keep a default. */
typedef struct clreduce_settings {
    /* Force a sub-group implementation. A path the device cannot run makes
     * the sub-group variants report CLREDUCE_ERROR_UNSUPPORTED. */
    clreduce_subgroup_path subgroup_path;
    /* Tuning overrides; 0 takes the value of the library's per-device table
     * (which has its own values for the scans).
     * work_group_size: work-items per work-group for every variant and every
     *     scan, a power of two from 64 up to what the device allows;
     * groups_per_compute_unit: work-groups per compute unit for the
     *     grid-sized variants (GRID_STRIDE, ATOMIC, AUTO) and for
     *     REDUCE_THEN_SCAN, 1 to 64;
     * loads_per_work_item: independent vector loads each work-item has in
     *     flight per loop step of those variants, and vectors per work-item
     *     in a tile of REDUCE_THEN_SCAN and LOOKBACK, 1 to 16;
     * vector_width: elements per vector load, 1, 2, 4, 8 or 16 (capped at
     *     16 bytes a load for 8-byte types). */
    size_t work_group_size;
    unsigned groups_per_compute_unit;
    unsigned loads_per_work_item;
    unsigned vector_width;
    /* Extra options appended to every clBuildProgram call (NULL: none),
     * e.g. "-cl-nv-verbose". Copied by the create function. */
    const char *build_options;
    /* Launches of a segments reduction of sum, min or max
     * (clreduce/batched.h): 1, a single kernel, where the device keeps
     * started work-groups running and orders memory between them (NVIDIA
     * GPUs and CPUs; elsewhere as 2); 2, a kernel for the heads of the
     * chunks the input is cut into, then one for the segments; 0 (the
     * default), the library's choice per call: on NVIDIA GPUs 1 where the
     * input is short (a few chunks a compute unit), elsewhere 2. The results
     * are the same but for the order in which a float sum combines the
     * parts of a segment that spans several chunks. clreduce_get_tuning()
     * reports 2 where the library never takes a single kernel by itself. */
    unsigned segment_passes;
    /* 1: a reproducible context. Every float and double sum it computes
     * (of the elements, of their squares or absolute values, of products)
     * follows the order of CLREDUCE_REPRODUCIBLE, so that every device,
     * driver and setting gives the same bits: clreduce_reduce() and
     * clreduce_dot() with AUTO take that variant, and every row or segment
     * of the rows and segments reductions (clreduce/batched.h) has the
     * bits that clreduce_reduce() with it gives on that row or segment
     * alone. Sum scans, flat and of rows, on CLREDUCE_SCAN_AUTO take an
     * order of their own (clreduce/scan.h). A call whose result depends on
     * an order this cannot fix returns CLREDUCE_ERROR_UNSUPPORTED: those
     * sums by the other variants (scan variants too), the scans of the
     * float operators past minmax, norm2 and mean_var, sums of the storage
     * types, several operators in one pass that include an order-dependent
     * one, and every user-defined operator; so do the conditions of
     * CLREDUCE_REPRODUCIBLE (float subnormals, work-groups of 256, build
     * options that relax the math).
     * Min, max, argmin, argmax, minmax and every integer operator run as
     * in any context (their bits do not depend on the order).
     * 0 (the default): no such rule. */
    unsigned reproducible;
} clreduce_settings;

/* Fills *settings with the defaults (everything chosen by the library). */
CLREDUCE_API void clreduce_default_settings(clreduce_settings *settings);

/* Creates a context for reductions on `device` within `context`. The OpenCL
 * context is retained (and released by clreduce_destroy). No program is built
 * until the first reduction that needs it.
 * Returns CLREDUCE_SUCCESS, CLREDUCE_ERROR_INVALID_ARGUMENT (NULL argument,
 * device not in context), CLREDUCE_ERROR_OPENCL, CLREDUCE_ERROR_OUT_OF_MEMORY. */
CLREDUCE_API clreduce_status clreduce_create(cl_context context, cl_device_id device,
                                             clreduce_ctx **out);

/* As clreduce_create(), with settings (NULL means the defaults). Also returns
 * CLREDUCE_ERROR_INVALID_ARGUMENT for a bad setting. */
CLREDUCE_API clreduce_status clreduce_create_with_settings(cl_context context,
                                                           cl_device_id device,
                                                           const clreduce_settings *settings,
                                                           clreduce_ctx **out);

/* Creates an OpenCL context on a device picked from the environment and a
 * clreduce context on it. CLREDUCE_DEVICE selects the device:
 *   "P:D"   device D of platform P (indices from 0, as clinfo -l lists them);
 *   "text"  the first device whose platform name, platform vendor or device
 *           name contains text (case-insensitive), e.g. "pocl", "NVIDIA";
 * unset: the first GPU of any platform, else the first device.
 * Returns CLREDUCE_ERROR_NO_DEVICE when nothing matches, besides the codes of
 * clreduce_create(). */
CLREDUCE_API clreduce_status clreduce_create_default(clreduce_ctx **out);

/* The device clreduce_create_default() would use for `selector` (the syntax
 * of CLREDUCE_DEVICE; NULL: the first GPU, else the first device), without
 * creating anything. Returns CLREDUCE_ERROR_NO_DEVICE when nothing matches
 * (the reason in clreduce_last_error(NULL)). */
CLREDUCE_API clreduce_status clreduce_find_device(const char *selector, cl_platform_id *platform,
                                                  cl_device_id *device);

/* Destroys the context: releases its programs, scratch memory and OpenCL
 * objects. Commands already enqueued complete normally. NULL is a no-op. */
CLREDUCE_API void clreduce_destroy(clreduce_ctx *ctx);

/* The OpenCL context and device the clreduce context works on (not retained
 * for the caller). */
CLREDUCE_API cl_context clreduce_get_cl_context(const clreduce_ctx *ctx);
CLREDUCE_API cl_device_id clreduce_get_cl_device(const clreduce_ctx *ctx);

/* ---------------------------------------------------------------------------
 * Reductions
 * ------------------------------------------------------------------------- */

/* Blocking convenience: reduces `count` elements of host memory `data` and
 * writes the result (clreduce_result_size(op, type) bytes: one element of
 * `type` for sum, min and max) to `result`. Uses a queue owned by the
 * context. count == 0 writes the identity (the operator's result of no
 * element).
 * Returns CLREDUCE_SUCCESS or any error code; on error *result is untouched. */
CLREDUCE_API clreduce_status clreduce_reduce_host(clreduce_ctx *ctx, clreduce_op op,
                                                  clreduce_type type,
                                                  clreduce_variant variant,
                                                  const void *data, size_t count,
                                                  void *result);

/* Enqueues the reduction of elements [offset, offset + count) of `input`
 * (offsets and counts in elements of `type`) into element `result_offset` of
 * `result`, an array of results of clreduce_result_size(op, type) bytes (an
 * element of `type` for sum, min and max): the result lies at byte
 * result_offset * clreduce_result_size(op, type). Asynchronous: the
 * commands wait for the `num_wait` events of `wait` and, if `done` is not
 * NULL, *done receives an event that completes when the result is written
 * (release it with clReleaseEvent). The queue may be in-order or
 * out-of-order; it must belong to the context's OpenCL context and device.
 * The result element must not overlap the input range, compared where they
 * lie in memory: through two sub-buffers of one buffer, or a sub-buffer and
 * its parent, they overlap where they share bytes.
 * Returns:
 *   CLREDUCE_SUCCESS;
 *   CLREDUCE_ERROR_INVALID_ARGUMENT  NULL ctx, queue or buffer; unknown op,
 *       type or variant; CLREDUCE_OP_DOT (clreduce_dot() takes two inputs);
 *       range past the end of a buffer; a queue of another context or
 *       device; num_wait and wait disagree; the result element overlapping
 *       the input range;
 *   CLREDUCE_ERROR_UNSUPPORTED  double without fp64; a sub-group variant on a
 *       device without sub-groups; an atomic the device lacks; an operator
 *       past CLREDUCE_OP_MAX on a variant other than AUTO, GRID_STRIDE and
 *       SINGLE_PASS, or NORM2 and MEAN_VAR on an integer type;
 *   CLREDUCE_ERROR_BUILD  the kernel did not compile (the build log is in
 *       clreduce_last_error());
 *   CLREDUCE_ERROR_OPENCL, CLREDUCE_ERROR_OUT_OF_MEMORY.
 * On any error found before enqueueing (every one above, except a failure
 * of the OpenCL runtime itself) nothing has been enqueued, *done is
 * untouched and `result` is not written. If the runtime fails after the
 * first command of a call was enqueued, the call waits for the commands
 * already enqueued before it returns the error; CLREDUCE_ATOMIC may then
 * have set `result` to the operator's identity, the other variants leave it
 * untouched. */
CLREDUCE_API clreduce_status clreduce_reduce(clreduce_ctx *ctx, cl_command_queue queue,
                                             clreduce_op op, clreduce_type type,
                                             clreduce_variant variant, cl_mem input,
                                             size_t offset, size_t count, cl_mem result,
                                             size_t result_offset, cl_uint num_wait,
                                             const cl_event *wait, cl_event *done);

/* As clreduce_reduce(), and if `first` is not NULL *first receives an event
 * of the first command enqueued (the same command as *done when there is only
 * one; release both). On a queue with CL_QUEUE_PROFILING_ENABLE, the span from
 * CL_PROFILING_COMMAND_START of *first to CL_PROFILING_COMMAND_END of *done
 * is the device time of the whole operation. */
CLREDUCE_API clreduce_status clreduce_reduce_profiled(clreduce_ctx *ctx, cl_command_queue queue,
                                                      clreduce_op op, clreduce_type type,
                                                      clreduce_variant variant, cl_mem input,
                                                      size_t offset, size_t count,
                                                      cl_mem result, size_t result_offset,
                                                      cl_uint num_wait, const cl_event *wait,
                                                      cl_event *first, cl_event *done);

/* Whether `variant` can run for `type` on the context's device: returns
 * CLREDUCE_SUCCESS, or the status clreduce_reduce() would return with the
 * reason in clreduce_last_error() (for CLREDUCE_OP_DOT: clreduce_dot()).
 * Builds nothing. */
CLREDUCE_API clreduce_status clreduce_check_support(clreduce_ctx *ctx, clreduce_op op,
                                                    clreduce_type type,
                                                    clreduce_variant variant);

/* Bytes of one result of `op` on `type`: 16 for ARGMIN and ARGMAX, two
 * elements for MINMAX, 16 (float) or 24 (double) for MEAN_VAR, one element
 * otherwise, but 4 (a float) for SUM, MIN and MAX on HALF and BFLOAT16. 0
 * for an unknown op or type, for the other operators on HALF and BFLOAT16,
 * and for NORM2 and MEAN_VAR on an integer type. */
CLREDUCE_API size_t clreduce_result_size(clreduce_op op, clreduce_type type);

/* Enqueues the dot product sum of x[i] * y[i] of elements [x_offset,
 * x_offset + count) of `x` and [y_offset, y_offset + count) of `y` (same
 * type and count; offsets in elements) into element `result_offset` of
 * `result` (one element of `type`). x and y may be the same buffer and may
 * overlap (both are only read); the result must overlap neither, judged
 * where they lie in memory as clreduce_reduce() does. Asynchronous, with a
 * wait list and a completion event, as clreduce_reduce(); variants AUTO,
 * GRID_STRIDE and SINGLE_PASS. count == 0 writes 0.
 * Returns the codes of clreduce_reduce() (INVALID_ARGUMENT also for a NULL
 * y or a y range past its buffer's end; messages call x "input" and y
 * "input2"); on any error found before enqueueing nothing has been
 * enqueued and `result` is not written. */
CLREDUCE_API clreduce_status clreduce_dot(clreduce_ctx *ctx, cl_command_queue queue,
                                          clreduce_type type, clreduce_variant variant, cl_mem x,
                                          size_t x_offset, cl_mem y, size_t y_offset,
                                          size_t count, cl_mem result, size_t result_offset,
                                          cl_uint num_wait, const cl_event *wait,
                                          cl_event *done);

/* As clreduce_dot(), and if `first` is not NULL *first receives an event of
 * the call's first command, as clreduce_reduce_profiled() gives it. */
CLREDUCE_API clreduce_status clreduce_dot_profiled(clreduce_ctx *ctx, cl_command_queue queue,
                                                   clreduce_type type, clreduce_variant variant,
                                                   cl_mem x, size_t x_offset, cl_mem y,
                                                   size_t y_offset, size_t count, cl_mem result,
                                                   size_t result_offset, cl_uint num_wait,
                                                   const cl_event *wait, cl_event *first,
                                                   cl_event *done);

/* Blocking convenience: the dot product of `count` elements of host arrays
 * x and y (which may be the same array) into *result (one element of
 * `type`), on a queue owned by the context. count == 0 writes 0.
 * Returns CLREDUCE_SUCCESS or any error code; on error *result is untouched
 * (also when result overlaps x or y: CLREDUCE_ERROR_INVALID_ARGUMENT). */
CLREDUCE_API clreduce_status clreduce_dot_host(clreduce_ctx *ctx, clreduce_type type,
                                               clreduce_variant variant, const void *x,
                                               const void *y, size_t count, void *result);

/* ---------------------------------------------------------------------------
 * Names, messages, statistics
 * ------------------------------------------------------------------------- */

/* A short English description of a status ("invalid argument"); never NULL. */
CLREDUCE_API const char *clreduce_status_string(clreduce_status status);

/* The detail of the calling thread's last failure in `ctx` (NULL: of the last
 * failed create): what was wrong, and the build log after a build failure.
 * "" when there was none. Valid until the thread's next clreduce call. */
CLREDUCE_API const char *clreduce_last_error(const clreduce_ctx *ctx);

/* Names as used in the documentation and the benchmark ("sum", "float",
 * "grid_stride", "nv_ptx"; the scan names are in clreduce/scan.h); NULL for an unknown
 * value. */
CLREDUCE_API const char *clreduce_op_name(clreduce_op op);
CLREDUCE_API const char *clreduce_type_name(clreduce_type type);
CLREDUCE_API const char *clreduce_variant_name(clreduce_variant variant);
CLREDUCE_API const char *clreduce_subgroup_path_name(clreduce_subgroup_path path);

/* The name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), for messages
 * about the caller's own OpenCL calls; never NULL. */
CLREDUCE_API const char *clreduce_opencl_error_name(cl_int error);

/* Size in bytes of one element of `type`; 0 for an unknown type. */
CLREDUCE_API size_t clreduce_type_size(clreduce_type type);

/* The variant CLREDUCE_AUTO resolves to for `type` on this context's device. */
CLREDUCE_API clreduce_variant clreduce_auto_variant(const clreduce_ctx *ctx, clreduce_type type);

/* The sub-group path in use on this context (never _AUTO). */
CLREDUCE_API clreduce_subgroup_path clreduce_get_subgroup_path(const clreduce_ctx *ctx);

/* The tuning values in effect for `type` (after the table and the
 * settings): fills the tuning fields of *out. */
CLREDUCE_API clreduce_status clreduce_get_tuning(const clreduce_ctx *ctx, clreduce_type type,
                                                 clreduce_settings *out);

/* The tuning values a flat reduction by ops[0 .. num_ops) of `type` runs
 * with: one operator (dot included) as clreduce_reduce() and its kin, or 2
 * to CLREDUCE_MULTI_MAX as clreduce_reduce_multi() takes them (of one
 * input, none twice, each defined for the type). They are those of
 * clreduce_get_tuning() but where the library tunes operators of their own
 * on this device and the settings leave the value to it (on NVIDIA GPUs:
 * alone, float min, max, minmax and dot take 4 work-groups per compute
 * unit, float mean_var 16 loads; several operators of a 4-byte type 512
 * work-items x 16 loads x 2 work-groups, of an 8-byte type 256 x 8 x 4;
 * over rows, rather than a range, float minmax alone takes 512 work-items;
 * float and double argmin, argmax, minmax and mean_var alone over rows of 8
 * elements or fewer, and each built-in operator past max alone, and sums,
 * minima and maxima of 4-byte types, over segments of a mean under 8
 * elements, sums of 8-byte types alone over segments of a mean of 128 to
 * 512, several operators of int64 or uint64 over segments of any length
 * and of doubles over segments of a mean under 7, a vector width of 1; on
 * CPU devices, float argmin and argmax and float and double mean_var alone
 * over such rows and segments, a vector width of 1; where AUTO chose the
 * variant, the device's native float width where it is wider: on PoCL's
 * CPU devices for a sum, min or max of 4-byte elements and float minmax
 * and mean_var alone, of 2^20 elements or more, on Intel's CPU runtime for
 * float argmin, argmax, minmax and mean_var alone of 2^18 or more; there
 * too the same four of doubles, of 2^22 elements or more, 16 work-groups
 * per compute unit). A
 * call whose operators' accumulators do not fit the device's local memory
 * at that work-group size takes a smaller one. */
CLREDUCE_API clreduce_status clreduce_get_operators_tuning(const clreduce_ctx *ctx,
                                                           const clreduce_op *ops, size_t num_ops,
                                                           clreduce_type type,
                                                           clreduce_settings *out);

/* Counters of the context's program caches, and the state of its disk
 * cache. */
typedef struct clreduce_cache_stats {
    uint64_t programs_built;  /* programs compiled from source            */
    uint64_t programs_loaded; /* programs loaded from the disk cache      */
    uint64_t cache_hits;      /* kernel requests served from memory       */
    /* "" while the disk cache has met no problem. Otherwise, in words and
     * truncated to fit, why it is off ("off: CLREDUCE_CACHE_DIR is \"off\"",
     * "off: none of CLREDUCE_CACHE_DIR, XDG_CACHE_HOME and HOME is set") or
     * the latest problem it met in this context: a directory it cannot
     * create or write ("cannot create directory /a/b: Not a directory"), or
     * a file it did not use ("0123456789abcdef.bin: damaged (checksum
     * mismatch); compiled from source"). None of these fails a call. */
    char disk_cache_status[256];
} clreduce_cache_stats;

/* Copies the counters and the disk cache's state into *stats. Returns
 * CLREDUCE_ERROR_INVALID_ARGUMENT for a NULL argument. */
CLREDUCE_API clreduce_status clreduce_get_cache_stats(const clreduce_ctx *ctx,
                                                      clreduce_cache_stats *stats);

/* The library's version as "MAJOR.MINOR.PATCH", and as a number
 * (CLREDUCE_VERSION_NUMBER: MAJOR*10000 + MINOR*100 + PATCH). */
CLREDUCE_API const char *clreduce_version(void);
CLREDUCE_API unsigned clreduce_version_number(void);

#ifdef __cplusplus
}
#endif

/* The rest of the API, by subject. */
#include "clreduce/results.h"
#include "clreduce/operator.h"
#include "clreduce/scan.h"
#include "clreduce/batched.h"
#include "clreduce/multi.h"
#include "clreduce/parts.h"

#endif /* CLREDUCE_CLREDUCE_H */