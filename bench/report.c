/* clreduce-bench: the header, the tables on stdout, the CSV and the JSON.
 *
 * Reductions, scans and the empty kernel share the CSV and JSON columns,
 * which are those of the CUB yardstick (bench/peers): a scan's `op` is
 * "inclusive_scan" or "exclusive_scan" and its operator is in `scan_op`; the
 * empty kernel's variant is "empty_kernel", with no op, type or size;
 * `peak_kind` says which peak `peak_gbps` and `pct_peak` refer to ("read":
 * the read-only kernel, for reductions; "copy": clEnqueueCopyBuffer, for
 * scans). bench/README.md explains every column. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"

row *row_list_add(row_list *list)
{
    if (list->count == list->capacity) {
        size_t cap = list->capacity ? 2 * list->capacity : 64;
        row *rows = realloc(list->rows, cap * sizeof *rows);
        if (!rows)
            fatal("out of host memory");
        list->rows = rows;
        list->capacity = cap;
    }
    row *r = &list->rows[list->count++];
    memset(r, 0, sizeof *r);
    return r;
}

void row_list_free(row_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->rows[i].status);
    free(list->rows);
    memset(list, 0, sizeof *list);
}

/* ---- the header -------------------------------------------------------------- */

static void b2b_description(const measure_config *c, char *out, size_t size)
{
    if (c->b2b_calls == 0)
        snprintf(out, size, "not measured (--b2b-calls 0)");
    else if (c->b2b_calls == MEASURE_B2B_AUTO)
        snprintf(out, size,
                 "host time of a batch of calls enqueued back to back between two clFinish on a "
                 "queue without profiling, no events asked for, divided by the calls; batches "
                 "of as many calls as take %.0f ms by call_us (%d to %d, b2b_calls in the CSV), "
                 "median of %d batches",
                 MEASURE_B2B_TARGET_MS, MEASURE_B2B_MIN_CALLS, MEASURE_B2B_MAX_CALLS,
                 MEASURE_B2B_BATCHES);
    else
        snprintf(out, size,
                 "host time of a batch of %d calls enqueued back to back between two clFinish "
                 "on a queue without profiling, no events asked for, divided by the calls; "
                 "median of %d batches",
                 c->b2b_calls, MEASURE_B2B_BATCHES);
}

/* Every header line, each as "# ...\n", to f. */
static void header_lines(FILE *f, const report_meta *m)
{
    const bench_device *d = m->device;
    const measure_config *c = m->config;
    char mem[32], ws[32], b2b[512];
    bytes_label((double)d->global_mem, mem, sizeof mem);
    bytes_label((double)device_working_set(d), ws, sizeof ws);
    b2b_description(c, b2b, sizeof b2b);
    fprintf(f, "# clreduce-bench, clreduce %s, %s (UTC)\n", clreduce_version(), m->date);
    fprintf(f, "# command: %s\n", m->command);
    fprintf(f, "# device: %s (%s, %u compute units, %s, %s) | driver: %s | platform: %s (%s)\n",
            d->name, device_type_name(d->type), (unsigned)d->compute_units, mem,
            d->device_version, d->driver, d->platform_name, d->platform_version);
    if (m->tuning && *m->tuning)
        fprintf(f, "# %s\n", m->tuning);
    fprintf(f,
            "# method: %d timed calls after %d warm-up calls, each right after an untimed "
            "call, every result checked against a CPU reference. call_us (the headline, to "
            "compare with a peer): median device time from the end of a marker enqueued and "
            "flushed just before the call to the end of its last command. span_us: median of "
            "the call's first command's start to its last command's end. host_us: median host "
           "time inside the timed calls. "
            "b2b_us: %s. GB/s and %%peak from call_us\n",
            c->runs, c->warmup, b2b);
    fprintf(f,
            "# rotation: inputs smaller than %s are copied until their copies fill it, and "
            "calls rotate over the copies (column copies), so that each call reads its input "
            "from memory rather than from a cache\n",
            ws);
    if (m->peak && m->peak->measured)
        fprintf(f,
                "# peak: read-only kernel %.1f GB/s, copy %.1f GB/s (read+write bytes); %%peak "
                "is against the read-only kernel for reductions, against the copy for scans\n",
                m->peak->read_gbps, m->peak->copy_gbps);
    else
        fprintf(f, "# peak: not measured (--no-peak)\n");
}

void report_header(const report_meta *m)
{
    header_lines(stdout, m);
}

/* ---- the tables ---------------------------------------------------------------- */

static void time_cell(char *out, size_t size, double us)
{
    if (isnan(us))
        snprintf(out, size, "-");
    else
        snprintf(out, size, "%.2f", us);
}

void report_floor(const row *r)
{
    char call[32], b2b[32], span[32], host[32];
    time_cell(call, sizeof call, r->call_us);
    time_cell(b2b, sizeof b2b, r->b2b_us);
    time_cell(span, sizeof span, r->span_us);
    time_cell(host, sizeof host, r->host_us);
    printf("# driver floor: an empty kernel, one work-group of one work-item, timed as a call "
           "(host_us: clEnqueueNDRangeKernel alone)\n");
    printf("%-18s %10s %10s %10s %9s  %s\n", "variant", "call_us", "b2b_us", "span_us", "host_us",
           "status");
    printf("%-18s %10s %10s %10s %9s  %s\n", r->variant, call, b2b, span, host, r->status);
}

#define REDUCE_FORMAT "%-18s %-11s %-*s %9s %9s %6s %10s %10s %10s %9s %9s %6s  %s\n"
#define SCAN_FORMAT "%-22s %-9s %-4s %-6s %9s %9s %6s %10s %10s %10s %9s %9s %6s  %s\n"
#define SEGMENTS_FORMAT "%-18s %10s %-4s %-6s %9s %9s %6s %10s %10s %10s %9s %9s %6s  %s\n"

/* The reductions' type column: 6 ("double"), wider only for a longer name,
 * so that a table of the six built-in types keeps its layout. */
static int reduce_type_width = 6;

void report_columns(const clreduce_type *types, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        int len = (int)strlen(clreduce_type_name(types[i]));
        if (len > reduce_type_width)
            reduce_type_width = len;
    }
    printf(REDUCE_FORMAT, "variant", "op", reduce_type_width, "type", "elements", "bytes",
           "copies", "call_us", "b2b_us", "span_us", "host_us", "GB/s", "%peak", "status");
}

void report_scan_columns(const report_meta *m)
{
    char checks[256];
    dataset_window_description(checks, sizeof checks);
    printf("# prefix scans, %s | bytes = read + write = 2 x elements x element size | %s\n",
           m->in_place ? "in place (each copy of the input restored after every timed call, "
                         "untimed)"
                       : "out of place (outputs rotated over copies with the inputs)",
           checks);
    printf(SCAN_FORMAT, "variant", "kind", "op", "type", "elements", "bytes", "copies",
           "call_us", "b2b_us", "span_us", "host_us", "GB/s", "%peak", "status");
}

void report_segments_columns(void)
{
    printf("# rows and segments: one reduction per row or segment in one call "
           "(clreduce_reduce_rows_profiled or _segments_profiled; op dot: clreduce_dot_rows or "
           "_segments; several ops: the _multi_profiled forms; scanrows shapes: "
           "clreduce_scan_rows_profiled; 32-bit offsets below 2^32 elements) | bytes = elements "
           "read (dot: of both inputs; scanrows: read + written) | every segment checked up to "
           "%zu segments; "
           "beyond, the first and last 64 and %d at random\n",
           SHAPE_CHECK_ALL, SHAPE_CHECK_RANDOM);
    printf(SEGMENTS_FORMAT, "shape", "segments", "op", "type", "elements", "bytes", "copies",
           "call_us", "b2b_us", "span_us", "host_us", "GB/s", "%peak", "status");
}

void report_row(const row *r)
{
    if (r->kind == ROW_FLOOR) {
        report_floor(r);
        return;
    }
    char variant[48], elems[32], bytes[32], copies[32], call[32], b2b[32], span[32], host[32],
        gbps[32],
        pct[16];
    if (r->resolved)
        snprintf(variant, sizeof variant, "%s(%s)", r->variant, r->resolved);
    else
        snprintf(variant, sizeof variant, "%s", r->variant);
    size_label(r->elements, elems, sizeof elems);
    bytes_label((double)r->bytes, bytes, sizeof bytes);
    snprintf(copies, sizeof copies, "%zu", r->copies);
    time_cell(call, sizeof call, r->call_us);
    time_cell(b2b, sizeof b2b, r->b2b_us);
    time_cell(span, sizeof span, r->span_us);
    time_cell(host, sizeof host, r->host_us);
    if (isnan(r->gbps))
        snprintf(gbps, sizeof gbps, "-");
    else
        snprintf(gbps, sizeof gbps, "%.1f", r->gbps);
    if (isnan(r->pct_peak))
        snprintf(pct, sizeof pct, "-");
    else
        snprintf(pct, sizeof pct, "%.1f%%", r->pct_peak);
    const char *op = r->op_label ? r->op_label : clreduce_op_name(r->op);
    const char *type = clreduce_type_name(r->type);
    if (r->kind == ROW_SEGMENTS) {
        char segs[32];
        size_label(r->segments, segs, sizeof segs);
        printf(SEGMENTS_FORMAT, r->shape, segs, op, type, elems, bytes, copies, call, b2b, span,
               host, gbps, pct, r->status);
    } else if (r->kind == ROW_SCAN)
        printf(SCAN_FORMAT, variant, clreduce_scan_kind_name(r->scan_kind), op, type, elems,
               bytes, copies, call, b2b, span, host, gbps, pct, r->status);
    else
        printf(REDUCE_FORMAT, variant, op, reduce_type_width, type, elems, bytes, copies, call,
               b2b, span, host, gbps, pct, r->status);
}

/* ---- CSV ------------------------------------------------------------------ */

/* The `op` column: the operator of a reduction, the kind of a scan. */
static const char *row_op(const row *r)
{
    switch (r->kind) {
    case ROW_REDUCTION:
    case ROW_SEGMENTS: return r->op_label ? r->op_label : clreduce_op_name(r->op);
    case ROW_SCAN: return r->scan_kind == CLREDUCE_INCLUSIVE ? "inclusive_scan" : "exclusive_scan";
    case ROW_FLOOR: break;
    }
    return "";
}

static const char *row_type(const row *r)
{
    return r->kind == ROW_FLOOR ? "" : clreduce_type_name(r->type);
}

static const char *row_peak_kind(const row *r)
{
    if (isnan(r->peak_gbps))
        return "";
    return r->kind == ROW_SCAN ? "copy" : "read";
}

static void csv_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static void csv_number(FILE *f, const char *fmt, double v)
{
    fputc(',', f);
    if (!isnan(v))
        fprintf(f, fmt, v);
}

int report_write_csv(const char *path, const report_meta *m, const row_list *rows)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    header_lines(f, m);
    fputs("device,driver,date,variant,op,type,elements,bytes,copies,call_us,b2b_us,span_us,"
          "b2b_calls,gbps,pct_peak,peak_gbps,status,scan_op,in_place,peak_kind,shape,segments,"
          "host_us\n",
          f);
    for (size_t i = 0; i < rows->count; i++) {
        const row *r = &rows->rows[i];
        csv_string(f, m->device->name);
        fputc(',', f);
        csv_string(f, m->device->driver);
        fprintf(f, ",%s,%s,%s,%s,%zu,%zu,%zu", m->date, r->variant, row_op(r), row_type(r),
                r->elements, r->bytes, r->copies);
        csv_number(f, "%.3f", r->call_us);
        csv_number(f, "%.3f", r->b2b_us);
        csv_number(f, "%.3f", r->span_us);
        fputc(',', f);
        if (r->b2b_calls)
            fprintf(f, "%d", r->b2b_calls);
        csv_number(f, "%.3f", r->gbps);
        csv_number(f, "%.2f", r->pct_peak);
        csv_number(f, "%.3f", r->peak_gbps);
        fputc(',', f);
        csv_string(f, r->status);
        if (r->kind == ROW_SCAN)
            fprintf(f, ",%s,%d,", clreduce_op_name(r->op), r->in_place);
        else
            fputs(",,,", f);
        fprintf(f, "%s,", row_peak_kind(r));
        if (r->kind == ROW_SEGMENTS) {
            csv_string(f, r->shape); /* "random:[1,10]" holds a comma */
            fprintf(f, ",%zu", r->segments);
        } else
            fputs(",", f);
        csv_number(f, "%.3f", r->host_us);
        fputc('\n', f);
    }
    return fclose(f) == 0;
}

/* ---- JSON ----------------------------------------------------------------- */

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_field(FILE *f, const char *key, const char *value)
{
    fprintf(f, ", \"%s\": ", key);
    json_string(f, value);
}

static void json_number(FILE *f, const char *key, const char *fmt, double v)
{
    fprintf(f, ", \"%s\": ", key);
    if (isnan(v) || isinf(v))
        fputs("null", f);
    else
        fprintf(f, fmt, v);
}

int report_write_json(const char *path, const report_meta *m, const row_list *rows)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    const bench_device *d = m->device;
    fputs("{\"meta\": {\"program\": \"clreduce-bench\"", f);
    json_field(f, "library_version", clreduce_version());
    json_field(f, "date", m->date);
    json_field(f, "command", m->command);
    json_field(f, "device", d->name);
    json_field(f, "device_version", d->device_version);
    json_field(f, "driver", d->driver);
    json_field(f, "platform", d->platform_name);
    json_field(f, "platform_version", d->platform_version);
    json_field(f, "tuning", m->tuning ? m->tuning : "");
    fprintf(f, ", \"runs\": %d, \"warmup\": %d", m->config->runs, m->config->warmup);
    if (m->config->b2b_calls == MEASURE_B2B_AUTO)
        fputs(", \"b2b_calls\": \"auto\"", f);
    else
        fprintf(f, ", \"b2b_calls\": %d", m->config->b2b_calls);
    fprintf(f, ", \"working_set_bytes\": %llu", (unsigned long long)device_working_set(d));
    json_number(f, "peak_read_gbps", "%.3f", m->peak && m->peak->measured ? m->peak->read_gbps
                                                                           : NAN);
    json_number(f, "peak_copy_gbps", "%.3f", m->peak && m->peak->measured ? m->peak->copy_gbps
                                                                           : NAN);
    fputs("},\n \"rows\": [\n", f);
    for (size_t i = 0; i < rows->count; i++) {
        const row *r = &rows->rows[i];
        fputs("  {\"device\": ", f);
        json_string(f, d->name);
        json_field(f, "driver", d->driver);
        json_field(f, "date", m->date);
        json_field(f, "variant", r->variant);
        json_field(f, "op", row_op(r));
        json_field(f, "type", row_type(r));
        fprintf(f, ", \"elements\": %zu, \"bytes\": %zu, \"copies\": %zu", r->elements, r->bytes,
                r->copies);
        json_number(f, "call_us", "%.3f", r->call_us);
        json_number(f, "b2b_us", "%.3f", r->b2b_us);
        json_number(f, "span_us", "%.3f", r->span_us);
        json_number(f, "host_us", "%.3f", r->host_us);
        fprintf(f, ", \"b2b_calls\": %d", r->b2b_calls);
        json_number(f, "gbps", "%.3f", r->gbps);
        json_number(f, "pct_peak", "%.2f", r->pct_peak);
        json_number(f, "peak_gbps", "%.3f", r->peak_gbps);
        json_field(f, "status", r->status);
        if (r->kind == ROW_SCAN)
            fprintf(f, ", \"scan_op\": \"%s\", \"in_place\": %s", clreduce_op_name(r->op),
                    r->in_place ? "true" : "false");
        else
            fputs(", \"scan_op\": null, \"in_place\": null", f);
        if (*row_peak_kind(r))
            fprintf(f, ", \"peak_kind\": \"%s\"", row_peak_kind(r));
        else
            fputs(", \"peak_kind\": null", f);
        if (r->kind == ROW_SEGMENTS) {
            json_field(f, "shape", r->shape);
            fprintf(f, ", \"segments\": %zu", r->segments);
        }
        fprintf(f, "}%s\n", i + 1 < rows->count ? "," : "");
    }
    fputs(" ]}\n", f);
    return fclose(f) == 0;
}
