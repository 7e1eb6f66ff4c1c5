/* clreduce-bench: the results: the header every output starts with, the
 * tables on stdout, the CSV and the JSON. bench/README.md explains every
 * column. */
#ifndef CLREDUCE_BENCH_REPORT_H
#define CLREDUCE_BENCH_REPORT_H

#include <stddef.h>

#include "device.h"
#include "measure.h"
#include "peak.h"

typedef enum row_kind {
    ROW_REDUCTION,
    ROW_SCAN,
    ROW_SEGMENTS, /* many reductions in one call: rows or segments */
    ROW_FLOOR     /* the empty kernel */
} row_kind;

typedef struct row {
    row_kind kind;
    const char *variant;     /* static name ("empty_kernel" for the floor) */
    const char *resolved;    /* for auto: the variant it runs; else NULL */
    clreduce_scan_kind scan_kind; /* scans only */
    int in_place;                 /* scans only */
    const char *shape;            /* segments only: shape.label */
    size_t segments;              /* segments only */
    clreduce_op op;
    const char *op_label; /* a multi call's operators ("sum+min+max"), else NULL */
    clreduce_type type;
    size_t elements;
    size_t bytes;  /* read (reductions), read + written (scans) */
    size_t copies; /* of the input, rotated over */
    double call_us, b2b_us, span_us; /* NAN when not measured */
    double host_us;                  /* host time inside the timed calls */
    int b2b_calls;                   /* calls per back-to-back batch; 0: none */
    double gbps, pct_peak, peak_gbps; /* from call_us; NAN when not measured */
    char *status; /* "ok", "unsupported: ...", "WRONG RESULT: ...", "error: ..." */
} row;

typedef struct row_list {
    row *rows;
    size_t count, capacity;
} row_list;

/* A new zeroed row at the end of the list. */
row *row_list_add(row_list *list);
/* Frees the rows' status strings and the list. */
void row_list_free(row_list *list);

typedef struct report_meta {
    const bench_device *device;
    char date[64];          /* UTC */
    const char *command;    /* the command line, as typed */
    const char *tuning;     /* the tuning in effect and the sub-group path */
    const peak_result *peak;
    const measure_config *config;
    int in_place; /* scans */
} report_meta;

/* The header lines ("# ..."): version, date, command, device, driver,
 * platform, tuning, method, rotation, peak. On stdout. */
void report_header(const report_meta *meta);

/* The floor's own small table. */
void report_floor(const row *r);

/* The reductions' column names, the type column as wide as the longest
 * name among types[0 .. count) (the rows that follow keep that width); the
 * scans' line on what is measured and their column names. */
void report_columns(const clreduce_type *types, size_t count);
void report_scan_columns(const report_meta *meta);

/* The line on what the rows-and-segments table measures, and its column
 * names. */
void report_segments_columns(void);

/* One row of any table. */
void report_row(const row *r);

/* The header lines as comments, then one line per row. Return 0 on a
 * failure (errno says why). */
int report_write_csv(const char *path, const report_meta *meta, const row_list *rows);
/* {"meta": {...}, "rows": [...]}. */
int report_write_json(const char *path, const report_meta *meta, const row_list *rows);

#endif
