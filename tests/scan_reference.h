/* A scan's output checked against a CPU reference, for the test programs
 * that mix scans with other work (unit.faults, unit.threads). */
#ifndef CLREDUCE_SCAN_REFERENCE_H
#define CLREDUCE_SCAN_REFERENCE_H

#include <clreduce/clreduce.h>

#include <stddef.h>

/* Whether out[0 .. n) is the `kind` scan by `op` of data[0 .. n) (arrays
 * of `type`): integers and min/max bit for bit (integer sums wrap around),
 * floating-point sums within 1e-5 (float) or 1e-12 (double) times the sum
 * of |x| over the prefix. If not, `why` tells the first wrong element. */
int scan_matches(clreduce_op op, clreduce_type type, clreduce_scan_kind kind, const void *data,
                 size_t n, const void *out, char *why, size_t why_size);

#endif
