/* clreduce-bench: the benchmark itself: the driver's floor, then every
 * type, size, operator and variant the options name, reductions and scans,
 * printed and written as they are measured. */
#ifndef CLREDUCE_BENCH_RUN_H
#define CLREDUCE_BENCH_RUN_H

#include "cli.h"
#include "device.h"
#include "peak.h"

/* Returns 0, or 1 when a result was wrong, a call failed or a file could
 * not be written. */
int run_benchmark(const bench_device *d, clreduce_ctx *ctx, const options *o,
                  const peak_result *peak);

#endif
