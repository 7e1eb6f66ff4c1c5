/* clreduce-bench: the shapes of many reductions in one call: fixed rows,
 * segments of random or fixed length given by offsets, one segment of the
 * whole input; their segment boundaries, and which segments a check reads. */
#ifndef CLREDUCE_BENCH_SHAPES_H
#define CLREDUCE_BENCH_SHAPES_H

#include <stddef.h>
#include <stdint.h>

typedef enum shape_kind {
    SHAPE_ROWS,   /* rows of `length` elements (clreduce_reduce_rows) */
    SHAPE_SCAN_ROWS, /* rows of `length` elements, each scanned, inclusive
                        (clreduce_scan_rows) */
    SHAPE_RANDOM, /* segments of lengths uniform in [1, length] (offsets) */
    SHAPE_FIXED,  /* segments of exactly `length` elements (offsets) */
    SHAPE_HALF,   /* segments of `length` elements, and from a quarter of the
                   * input on one of half of it (offsets) */
    SHAPE_ONE     /* one segment of the whole input (offsets) */
} shape_kind;

typedef struct shape {
    shape_kind kind;
    size_t length;
    char label[48]; /* "rows:512", "scanrows:512", "random:[1,1000]", "fixed:1000",
                       "one" */
} shape;

/* Whether shape s is rows (of `length` elements each, one after another). */
int shape_is_rows(const shape *s);

/* Parses "rowsN", "scanrowsN", "randomN", "fixedN" or "one" (N a count as --sizes takes
 * it: 512, 1e3, 2^16). 0 when the text is none of them. */
int shape_parse(const char *text, shape *out);

/* The segments of `total` elements in shape s: *segments of them, their
 * boundaries in (*offsets)[0 .. *segments] (malloc'd; offsets[0] = 0,
 * offsets[*segments] = the elements they cover, at most total). Rows and
 * fixed segments cover total rounded down to whole ones; random lengths
 * are drawn from `seed`, the last one cut to fit. */
void shape_segments(const shape *s, size_t total, uint64_t seed, uint64_t **offsets,
                    size_t *segments);

/* The segments a check reads (sorted, distinct, malloc'd, count in *n):
 * all of them up to SHAPE_CHECK_ALL; beyond, the first and last 64 and
 * SHAPE_CHECK_RANDOM drawn from `seed`. */
#define SHAPE_CHECK_ALL ((size_t)1 << 16)
#define SHAPE_CHECK_RANDOM 4096
size_t *shape_checked(size_t segments, uint64_t seed, size_t *n);

#endif
