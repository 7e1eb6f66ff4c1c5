/* A test-only layer between clreduce and the OpenCL runtime: fault_shim.c
 * defines every OpenCL function the library (and the test harness) calls.
 * A program linked with it and with the library's static archive sends all
 * its OpenCL calls through it. Each call either goes on to the real function
 * of the installed OpenCL library, or, when it is the call chosen by
 * fault_start(), fails as a real runtime would, without calling anything.
 *
 * The layer also counts the OpenCL objects alive (created or retained, less
 * released) of each kind, so that a test can see that nothing leaked.
 *
 * Retain and release calls are counted as objects but never failed and do
 * not count as calls: the specification lets them fail only for an invalid
 * handle, and a caller cannot do anything about a failed release.
 *
 * Single-threaded use: the call counter and the trace are not locked. */
#ifndef CLREDUCE_FAULT_SHIM_H
#define CLREDUCE_FAULT_SHIM_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stddef.h>

/* OpenCL objects alive, by kind, as the API sees them (references). */
typedef struct fault_objects {
    long mem, event, kernel, program, queue, context;
} fault_objects;

/* One counted call: the function and the address it returns to (the call
 * site, distinct for every place in the code that calls it). */
typedef struct fault_call {
    const char *function;
    const void *site;
    size_t size; /* bytes asked for, for clCreateBuffer; else 0 */
} fault_call;

#define FAULT_TRACE_MAX 4096

/* Starts counting calls from 1; call number `fail_at` fails (0: none). */
void fault_start(unsigned fail_at);

/* As fault_start(), failing each of the `n` calls numbered in `fail_at`
 * (at most FAULT_MAX_FAILURES): a later one can be a call that the library
 * makes only on its way out of an earlier failure. */
#define FAULT_MAX_FAILURES 4
void fault_start_many(const unsigned *fail_at, size_t n);

/* Stops counting and returns how many calls were counted. */
unsigned fault_stop(void);

/* How many of the chosen calls were reached (and failed). */
unsigned fault_failures(void);

/* The calls counted since fault_start(), in order (at most
 * FAULT_TRACE_MAX); returns their number. */
size_t fault_trace(const fault_call **calls);

/* Whether the (first) chosen call was reached and failed; if so, which one
 * and the error it returned. */
int fault_injected(fault_call *call, cl_int *error);

/* The OpenCL objects alive now. */
void fault_live(fault_objects *out);

/* The error the layer makes `function` return when it fails it. */
cl_int fault_error_of(const char *function);

#endif
