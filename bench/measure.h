/* clreduce-bench: timing one reduction, one scan or the empty kernel, the
 * same way for each (timing.c holds the method):
 *
 *  call_us  the headline: the median over the timed calls of the device
 *           time from the end of a marker enqueued (and flushed) just before
 *           the call to the end of the call's last command
 *           (CL_PROFILING_COMMAND_END of the marker to that of `done`). On
 *           an in-order queue the call's first command cannot start before
 *           the marker ends, so nothing of the call is left out; the host's
 *           enqueueing of the call and the launch latency are in.
 *  span_us  the median of the call's first command's start to its last
 *           command's end: the device busy with the call, launches between
 *           its commands included, the first launch not.
 *  host_us  the median host time inside the timed calls (the library's
 *           checks, kernel lookup, argument setting and enqueueing, the
 *           driver's enqueue included).
 *  b2b_us   back-to-back throughput: a batch of calls enqueued one after
 *           another between two clFinish on a queue without profiling, no
 *           event asked for, host time divided by the calls; the median of
 *           MEASURE_B2B_BATCHES batches.
 *
 * Every timed call follows one untimed call of the same operation on
 * another copy of the input, waited for. Between two timed calls the host
 * checks a result, which for a large output takes it milliseconds, and a
 * call made right after such a pause was measured slower, its launch paying
 * for what the pause let go cold; the call before makes each timed call one
 * that follows another, as in an application's loop.
 *
 * Every call's result is checked against the CPU reference: the first call,
 * every timed call, and every back-to-back call (scans: the last output
 * written to each copy, see measure_scan()). */
#ifndef CLREDUCE_BENCH_MEASURE_H
#define CLREDUCE_BENCH_MEASURE_H

#include "data.h"
#include "device.h"
#include "shapes.h"

/* Back-to-back batches: MEASURE_B2B_BATCHES of them; with
 * MEASURE_B2B_AUTO calls each, as many as take MEASURE_B2B_TARGET_MS by the
 * call_us median, within [MEASURE_B2B_MIN_CALLS, MEASURE_B2B_MAX_CALLS]. */
#define MEASURE_B2B_AUTO (-1)
#define MEASURE_B2B_BATCHES 3
#define MEASURE_B2B_TARGET_MS 20.0
#define MEASURE_B2B_MIN_CALLS 10
#define MEASURE_B2B_MAX_CALLS 2000

typedef struct measure_config {
    int runs;      /* timed calls; their medians are call_us and span_us */
    int warmup;    /* untimed calls before them (and before the batches) */
    int b2b_calls; /* calls per back-to-back batch: MEASURE_B2B_AUTO, 0 for no
                      batches, or up to MEASURE_B2B_MAX_CALLS */
} measure_config;

typedef enum measure_status {
    MEASURE_OK = 0,
    MEASURE_UNSUPPORTED,
    MEASURE_WRONG,
    MEASURE_ERROR
} measure_status;

typedef struct measurement {
    double call_us, span_us, b2b_us; /* NAN when not measured */
    double host_us; /* median host time inside the timed calls */
    int b2b_calls;                   /* calls per batch; 0 when not measured */
    int marker_late; /* timed calls whose marker ended after the call's first
                        command started (a driver's clock at fault) */
    measure_status status;
    char message[1024]; /* reason for a status other than OK */
} measurement;

/* A measurement with nothing measured yet (times NAN, status OK). */
void measurement_init(measurement *m);

/* Fills m with the status of a failed library call (unsupported or an
 * error) and the reason from clreduce_last_error(). */
void measurement_fail(measurement *m, clreduce_ctx *ctx, clreduce_status s);

/* A reduction of one copy of the input per call into a result buffer of its
 * own slots, poisoned beforehand. */
void measure_reduction(const bench_device *d, clreduce_ctx *ctx, dataset *ds, clreduce_op op,
                       clreduce_variant variant, const measure_config *c, measurement *m);

/* The same for a user-defined operator that computes `op` (its results
 * checked as op's): calls clreduce_reduce_custom(), timed through
 * clreduce_reduce_custom_profiled(). */
void measure_user_reduction(const bench_device *d, clreduce_ctx *ctx, dataset *ds,
                            clreduce_op op, clreduce_operator *user, const measure_config *c,
                            measurement *m);

/* As measure_reduction(), of one clreduce_reduce_multi() call of ops[0 ..
 * nops) per copy, every result checked. */
void measure_multi(const bench_device *d, clreduce_ctx *ctx, dataset *ds, const clreduce_op *ops,
                   size_t nops, clreduce_variant variant, const measure_config *c, measurement *m);

/* Where scans of a dataset write: a second buffer as large as the input's
 * copies (rotated with them, poisoned again after every timed call), or the
 * input itself (each copy restored from a pristine one after every timed
 * call). */
typedef struct scan_target {
    int in_place;
    cl_mem output;   /* out of place */
    cl_mem pristine; /* in place: one copy of the input */
    void *readback;  /* host room for the windows of one output */
} scan_target;

void scan_target_create(const bench_device *d, const dataset *ds, int in_place, scan_target *t);
void scan_target_release(scan_target *t);

/* A scan of one copy of the input per call. Every timed call's output is
 * checked at the dataset's windows. Out of place, the whole output is
 * poisoned before each back-to-back batch and the last output written to
 * each copy is checked after it; in place, a copy's second scan in a batch
 * reads the first one's output, so the batches' outputs are not checked
 * (the copies are restored after each batch). */
void measure_scan(const bench_device *d, clreduce_ctx *ctx, dataset *ds, scan_target *t,
                  clreduce_op op, clreduce_scan_kind kind, clreduce_scan_variant variant,
                  const measure_config *c, measurement *m);

/* What many reductions of one dataset in one shape share, whatever the
 * operator: the segment offsets on the device (none for rows), a result
 * buffer of one element per segment, and the reference of the segments a
 * check reads, computed from the input's first copy. */
typedef struct segments_setup {
    const shape *shape;
    size_t segments;
    cl_mem offsets; /* NULL for rows */
    clreduce_type offsets_type;
    cl_mem results;
    size_t *checked; /* shape_checked() */
    size_t nchecked;
    prefix_state *want; /* of each checked segment */
    /* Rows or segments by several operators at once
     * (clreduce_reduce_rows_multi, clreduce_reduce_segments_multi): the
     * operators (nmulti 0: one operator a call), the record and each
     * result's place in it. */
    const clreduce_op *multi;
    size_t nmulti, record, at[CLREDUCE_MULTI_MAX];
    /* Whether the operators past CLREDUCE_OP_MAX are measured (alone or
     * among several), and then their reference of each checked row or
     * segment. */
    int operators;
    operator_reference *want_ops;
} segments_setup;

/* The setup of shape sh over ds; for rows and segments, by the operators
 * multi[0 .. nmulti) in one call each when nmulti is not 0, or with room
 * and references for the operators past CLREDUCE_OP_MAX alone where
 * `operators` is not 0. */
void segments_setup_create(const bench_device *d, const dataset *ds, const shape *sh,
                           uint64_t seed, const clreduce_op *multi, size_t nmulti, int operators,
                           segments_setup *s);
void segments_setup_release(segments_setup *s);

/* Many reductions in one call (clreduce_reduce_rows or _segments, or with
 * the setup's operators their _multi forms, op unused) over one
 * copy of the input per call. Every timed call and every back-to-back
 * batch is checked. Every call is timed through its _profiled twin. */
void measure_segments(const bench_device *d, clreduce_ctx *ctx, dataset *ds,
                      const segments_setup *s, clreduce_op op, const measure_config *c,
                      measurement *m);

/* The driver's floor: an empty kernel of one work-group of one work-item,
 * timed as a call is (its span is its own start to end). */
void measure_empty_kernel(const bench_device *d, const measure_config *c, measurement *m);

/* The memory's floor at ds's size: one launch of peak.c's streaming read
 * kernel over the next copy of ds's input, timed as a call is, in the grid
 * (of a few tried) with the least call_us, which `grid` names; b2b_us of
 * that grid. */
void measure_read_kernel(const bench_device *d, dataset *ds, const measure_config *c,
                         measurement *m, char *grid, size_t grid_size);

#endif
