/* clreduce-bench: the timing method's parts, shared by the measure_*.c
 * files (measure.h says what is measured and why). */
#ifndef CLREDUCE_BENCH_TIMING_H
#define CLREDUCE_BENCH_TIMING_H

#include "measure.h"

/* The events of one timed call. */
typedef struct timed_call {
    cl_event marker; /* enqueued just before the call */
    cl_event first;  /* the call's first command; NULL where the API gives none */
    cl_event done;   /* its last command */
    double host_start, host_ns; /* host clock at the call and time inside it */
} timed_call;

/* Enqueues the marker that starts a timed call on `queue` (profiling
 * enabled, in-order, nothing pending) and flushes it to the device. */
void timed_start(cl_command_queue queue, timed_call *t);

/* Stamps the host time the call took, right after it returned. */
void timed_called(timed_call *t);

/* Once t->done has completed: the call's time from the marker's end to
 * done's end and its span from first's start to done's end, in
 * nanoseconds (the span NAN without t->first); releases the events.
 * Returns 1 when the marker ended after the first command started, else 0. */
int timed_finish(timed_call *t, double *call_ns, double *span_ns, double *host_ns);

/* Releases what a failed call left of t (the marker; first and done when
 * set). */
void timed_abandon(timed_call *t);

/* The timed calls of one measurement: call and span times in ns. */
typedef struct run_times {
    double *call, *span, *host;
    int count, late;
} run_times;

void run_times_init(run_times *r, int capacity);
void run_times_add(run_times *r, double call_ns, double span_ns, double host_ns, int late);
/* Their medians into m (in µs), status OK; frees the arrays. */
void run_times_finish(run_times *r, measurement *m);
void run_times_free(run_times *r);

/* Calls per back-to-back batch for config c, given the call_us median. */
int b2b_calls_for(const measure_config *c, double call_us);

/* Enqueues call `index` (0 .. calls - 1) of a batch; returns
 * CLREDUCE_SUCCESS or the library's status. */
typedef clreduce_status (*b2b_enqueue)(void *arg, int index);

/* One batch on `queue`: clFinish, `calls` calls of fn enqueued back to back,
 * clFinish; *ns_per_call is the host time between the two clFinish divided
 * by the calls. Returns the first failing call's status (after a clFinish),
 * else CLREDUCE_SUCCESS. */
clreduce_status b2b_batch(cl_command_queue queue, int calls, b2b_enqueue fn, void *arg,
                          double *ns_per_call);

/* m->b2b_us = the median of the batches' ns per call, in µs;
 * m->b2b_calls = calls. */
void b2b_record(measurement *m, double *batch_ns, int batches, int calls);

#endif
