/* clreduce-bench: the first-call latency (--cold). */
#ifndef CLREDUCE_BENCH_COLD_H
#define CLREDUCE_BENCH_COLD_H

#include "device.h"

/* Prints the times of context creation and of the first call from source,
 * from the disk cache and from memory. Returns 0, 1 on a failure or a wrong
 * result, 2 for settings the library refuses. */
int run_cold(const bench_device *d, const clreduce_settings *settings);

#endif
