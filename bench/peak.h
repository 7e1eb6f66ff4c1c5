/* clreduce-bench: the device's memory bandwidth ceiling, measured on the
 * device itself. */
#ifndef CLREDUCE_BENCH_PEAK_H
#define CLREDUCE_BENCH_PEAK_H

#include <stddef.h>

#include "device.h"

typedef struct peak_result {
    int measured;
    double copy_gbps;  /* clEnqueueCopyBuffer, read + write bytes */
    double read_gbps;  /* read-only streaming kernel, read bytes */
    size_t copy_bytes; /* size of the buffer copied / read */
} peak_result;

/* The streaming read kernels, peak_read(in, first, n, out) and
 * peak_read_blocked (same arguments: n float4 vectors of `in` from vector
 * `first` on; `out` is never written), built with PEAK_UNROLL=unroll. */
cl_program peak_program(const bench_device *d, unsigned unroll);

/* Measures both peaks (best of `runs` after a warm-up each). */
void peak_measure(const bench_device *d, int runs, peak_result *out);

#endif
