/* clreduce-bench: the human tables, CSV and JSON.
 *
 * Reductions and scans share the CSV and JSON columns, which are those of
 * the CUB yardstick (bench/peers): a scan's `op` is "inclusive_scan" or
 * "exclusive_scan" and its operator is in `scan_op`; `peak_kind` says which
 * peak `peak_gbps` and `pct_peak` refer to ("read": the read-only kernel, for
 * reductions; "copy": clEnqueueCopyBuffer, for scans). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

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

static const char *device_type_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU)
        return "GPU";
    if (t & CL_DEVICE_TYPE_CPU)
        return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR)
        return "accelerator";
    return "device";
}

void report_header(const report_meta *m, const char *settings_line)
{
    const bench_device *d = m->device;
    char mem[32];
    bytes_label((double)d->global_mem, mem, sizeof mem);
    printf("# clreduce-bench %s | device: %s (%s, %u compute units, %s) | driver: %s | "
           "platform: %s (%s) | date: %s | runs %d, warm-up %d | ",
           clreduce_version(), d->name, device_type_name(d->type), (unsigned)d->compute_units, mem,
           d->driver, d->platform_name, d->platform_version, m->date, m->runs, m->warmup);
    if (m->peak && m->peak->measured)
        printf("peak: read-only kernel %.1f GB/s, copy %.1f GB/s (read+write bytes); "
               "%%peak is relative to the read-only kernel peak%s\n",
               m->peak->read_gbps, m->peak->copy_gbps,
               m->scans ? " for reductions, to the copy peak for scans" : "");
    else
        printf("peak: not measured (--no-peak)\n");
    if (settings_line && *settings_line)
        printf("%s\n", settings_line);
}

void report_columns(void)
{
    printf("%-18s %-4s %-6s %9s %9s %11s %11s %11s %9s %6s %8s  %s\n", "variant", "op", "type",
           "elements", "bytes", "median_us", "min_us", "e2e_us", "GB/s", "%peak", "speedup",
           "status");
}

void report_scan_columns(const report_meta *m, int in_place)
{
    char checks[256], peak[64] = "not measured";
    scan_check_description(checks, sizeof checks);
    if (m->peak && m->peak->measured)
        snprintf(peak, sizeof peak, "%.1f GB/s", m->peak->copy_gbps);
    printf("# prefix scans, %s | bytes = read + write = 2 x elements x element size | %%peak "
           "against the copy peak (%s) | %s\n",
           in_place ? "in place (each copy of the input restored after every call, untimed)"
                    : "out of place (outputs rotated over copies with the inputs)",
           peak, checks);
    printf("%-22s %-9s %-4s %-6s %9s %9s %11s %11s %11s %9s %6s  %s\n", "variant", "kind", "op",
           "type", "elements", "bytes", "median_us", "min_us", "e2e_us", "GB/s", "%peak",
           "status");
}

static void report_scan_row(const row *r)
{
    char variant[48], elems[32], bytes[32], pct[16];
    if (r->resolved)
        snprintf(variant, sizeof variant, "%s(%s)", r->variant, r->resolved);
    else
        snprintf(variant, sizeof variant, "%s", r->variant);
    size_label(r->elements, elems, sizeof elems);
    bytes_label((double)r->bytes, bytes, sizeof bytes);
    const char *kind = clreduce_scan_kind_name(r->kind), *op = clreduce_op_name(r->op),
               *type = clreduce_type_name(r->type);
    if (isnan(r->median_us)) {
        printf("%-22s %-9s %-4s %-6s %9s %9s %11s %11s %11s %9s %6s  %s\n", variant, kind, op,
               type, elems, bytes, "-", "-", "-", "-", "-", r->status);
        return;
    }
    if (isnan(r->pct_peak))
        snprintf(pct, sizeof pct, "-");
    else
        snprintf(pct, sizeof pct, "%.1f%%", r->pct_peak);
    printf("%-22s %-9s %-4s %-6s %9s %9s %11.2f %11.2f %11.2f %9.1f %6s  %s\n", variant, kind,
           op, type, elems, bytes, r->median_us, r->min_us, r->e2e_median_us, r->gbps, pct,
           r->status);
}

void report_row(const row *r)
{
    if (r->is_scan) {
        report_scan_row(r);
        return;
    }
    char variant[48], elems[32], bytes[32], pct[16], speed[16];
    if (r->resolved)
        snprintf(variant, sizeof variant, "%s(%s)", r->variant, r->resolved);
    else
        snprintf(variant, sizeof variant, "%s", r->variant);
    size_label(r->elements, elems, sizeof elems);
    bytes_label((double)r->bytes, bytes, sizeof bytes);
    if (isnan(r->median_us)) {
        printf("%-18s %-4s %-6s %9s %9s %11s %11s %11s %9s %6s %8s  %s\n", variant,
               clreduce_op_name(r->op), clreduce_type_name(r->type), elems, bytes, "-", "-", "-",
               "-", "-", "-", r->status);
        return;
    }
    if (isnan(r->pct_peak))
        snprintf(pct, sizeof pct, "-");
    else
        snprintf(pct, sizeof pct, "%.1f%%", r->pct_peak);
    if (isnan(r->speedup))
        snprintf(speed, sizeof speed, "-");
    else
        snprintf(speed, sizeof speed, "%.2fx", r->speedup);
    printf("%-18s %-4s %-6s %9s %9s %11.2f %11.2f %11.2f %9.1f %6s %8s  %s\n", variant,
           clreduce_op_name(r->op), clreduce_type_name(r->type), elems, bytes, r->median_us,
           r->min_us, r->e2e_median_us, r->gbps, pct, speed, r->status);
}

/* ---- CSV ------------------------------------------------------------------ */

/* The `op` column: the operator of a reduction, the kind of a scan. */
static const char *row_op(const row *r)
{
    if (!r->is_scan)
        return clreduce_op_name(r->op);
    return r->kind == CLREDUCE_INCLUSIVE ? "inclusive_scan" : "exclusive_scan";
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
    if (!isnan(v))
        fprintf(f, fmt, v);
}

int report_write_csv(const char *path, const report_meta *m, const row_list *rows)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    fputs("device,driver,date,variant,op,type,elements,bytes,median_us,min_us,e2e_median_us,"
          "gbps,pct_peak,peak_gbps,speedup_vs_interleaved,status,scan_op,in_place,peak_kind\n",
          f);
    for (size_t i = 0; i < rows->count; i++) {
        const row *r = &rows->rows[i];
        csv_string(f, m->device->name);
        fputc(',', f);
        csv_string(f, m->device->driver);
        fprintf(f, ",%s,%s,%s,%s,%zu,%zu,", m->date, r->variant, row_op(r),
                clreduce_type_name(r->type), r->elements, r->bytes);
        csv_number(f, "%.3f", r->median_us);
        fputc(',', f);
        csv_number(f, "%.3f", r->min_us);
        fputc(',', f);
        csv_number(f, "%.3f", r->e2e_median_us);
        fputc(',', f);
        csv_number(f, "%.3f", r->gbps);
        fputc(',', f);
        csv_number(f, "%.2f", r->pct_peak);
        fputc(',', f);
        csv_number(f, "%.3f", r->peak_gbps);
        fputc(',', f);
        csv_number(f, "%.4f", r->speedup);
        fputc(',', f);
        csv_string(f, r->status);
        if (r->is_scan)
            fprintf(f, ",%s,%d,", clreduce_op_name(r->op), r->in_place);
        else
            fputs(",,,", f);
        fputs(isnan(r->peak_gbps) ? "" : r->is_scan ? "copy" : "read", f);
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
    fputs("[\n", f);
    for (size_t i = 0; i < rows->count; i++) {
        const row *r = &rows->rows[i];
        fputs("  {\"device\": ", f);
        json_string(f, m->device->name);
        fputs(", \"driver\": ", f);
        json_string(f, m->device->driver);
        fprintf(f, ", \"date\": \"%s\", \"variant\": \"%s\", \"op\": \"%s\", \"type\": \"%s\", "
                   "\"elements\": %zu, \"bytes\": %zu",
                m->date, r->variant, row_op(r), clreduce_type_name(r->type), r->elements,
                r->bytes);
        json_number(f, "median_us", "%.3f", r->median_us);
        json_number(f, "min_us", "%.3f", r->min_us);
        json_number(f, "e2e_median_us", "%.3f", r->e2e_median_us);
        json_number(f, "gbps", "%.3f", r->gbps);
        json_number(f, "pct_peak", "%.2f", r->pct_peak);
        json_number(f, "peak_gbps", "%.3f", r->peak_gbps);
        json_number(f, "speedup_vs_interleaved", "%.4f", r->speedup);
        fputs(", \"status\": ", f);
        json_string(f, r->status);
        if (r->is_scan)
            fprintf(f, ", \"scan_op\": \"%s\", \"in_place\": %s", clreduce_op_name(r->op),
                    r->in_place ? "true" : "false");
        else
            fputs(", \"scan_op\": null, \"in_place\": null", f);
        fprintf(f, ", \"peak_kind\": %s",
                isnan(r->peak_gbps) ? "null" : r->is_scan ? "\"copy\"" : "\"read\"");
        fprintf(f, "}%s\n", i + 1 < rows->count ? "," : "");
    }
    fputs("]\n", f);
    return fclose(f) == 0;
}
