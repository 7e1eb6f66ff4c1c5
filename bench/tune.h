/* clreduce-bench: the tuning search (--tune). */
#ifndef CLREDUCE_BENCH_TUNE_H
#define CLREDUCE_BENCH_TUNE_H

#include <stddef.h>
#include <stdint.h>

#include "device.h"

#define TUNE_MAX_SIZES 64

typedef struct tune_options {
    clreduce_type type;
    clreduce_op op;
    const clreduce_variant *variants;
    size_t variant_count;
    const size_t *sizes;
    size_t size_count; /* up to TUNE_MAX_SIZES */
    int runs, warmup;
    int quick;                      /* a small grid */
    const clreduce_settings *fixed; /* non-zero fields pin a dimension */
    uint64_t seed;
} tune_options;

/* Measures every candidate and prints the best ten, the library's own
 * choice and a line for its tuning table. Returns 0, or 1 when a candidate
 * failed its check or none ran. */
int run_tune(const bench_device *d, const tune_options *o);

#endif
