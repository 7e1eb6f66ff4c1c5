/* The CSR layouts the segments tests draw (unit.segments;
 * test_segments_layouts.c): kinds of segment lengths, each meant to reach
 * one of the library's launches, and the offsets of one of them. */
#ifndef CLREDUCE_TEST_SEGMENTS_LAYOUTS_H
#define CLREDUCE_TEST_SEGMENTS_LAYOUTS_H

#include <stddef.h>
#include <stdint.h>

/* Segments a layout holds at most. */
#define TSL_MAX_SEGMENTS ((size_t)200000)

typedef enum layout_kind {
    LAYOUT_MIXED,      /* empty, tiny, medium and huge segments mixed */
    LAYOUT_TINY,       /* 0 to 3 elements each */
    LAYOUT_WHOLE,      /* one segment over the whole input */
    LAYOUT_HUGE_TINY,  /* one huge segment among tiny ones */
    LAYOUT_MARGINS,    /* elements before the first and after the last segment */
    LAYOUT_EMPTY,      /* every segment empty */
    LAYOUT_MEDIUM,     /* 300 to 3000 elements each: a few segments per chunk */
    LAYOUT_THOUSANDS,  /* 1000 to 7000 elements each, one in 40 of 20000 to
                        * 150000: a work-group a segment, the long ones by
                        * pieces (cl/reduce_segments_groups.cl) */
    LAYOUT_EDGES,      /* 0 or 4 to 64 elements each: boundaries on the edges of
                        * the kernels' runs of 4 vectors */
    LAYOUT_LONG,       /* 30000 to 64000 elements each: past the long chunks,
                        * a work-group a segment on NVIDIA GPUs in float */
    LAYOUT_ITEMS,      /* 0 to 40 elements each, one in 100 of 257 to 2000 and
                        * one in 5000 of 5000 to 100000: a work-item a
                        * segment, its work-group the longer ones, the
                        * pieces those longer than a piece */
    LAYOUT_HUNDREDS,   /* 0 to 400 elements each, one in 100 of 1025 to 3000:
                        * a work-item a segment for double min and max */
    LAYOUT_COUNT
} layout_kind;

/* The kinds' names, for messages. */
extern const char *const tsl_layout_names[LAYOUT_COUNT];

/* Fills offsets[0 .. *segments] (TSL_MAX_SEGMENTS + 1 at most) for about
 * `count` elements of layout `kind`, from the tests' random numbers;
 * returns the count the segments may reach. */
size_t tsl_make_layout(layout_kind kind, size_t count, uint64_t *offsets, size_t *segments);

#endif
