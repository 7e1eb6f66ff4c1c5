/* clreduce-bench: the benchmark run: the header, the driver's floor, then
 * for every type and size one dataset, its reductions (one table) and its
 * scans (a second table, printed after the reductions' when both run), and
 * at the end the CSV and JSON files. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "measure.h"
#include "report.h"
#include "run.h"
#include "util.h"

/* Times, bandwidth against `peak_gbps` (NAN: not measured) and status. */
static void fill_measurement(row *r, const measurement *m, double peak_gbps)
{
    r->call_us = m->call_us;
    r->b2b_us = m->b2b_us;
    r->span_us = m->span_us;
    r->host_us = m->host_us;
    r->b2b_calls = m->b2b_calls;
    r->gbps = m->status == MEASURE_OK ? (double)r->bytes / (m->call_us * 1e3) : NAN;
    r->peak_gbps = peak_gbps;
    r->pct_peak = 100.0 * r->gbps / peak_gbps;
    switch (m->status) {
    case MEASURE_OK:
        if (m->marker_late)
            r->status = dup_printf("ok (in %d timed calls the marker ended after the call's "
                                   "first command started)",
                                   m->marker_late);
        else
            r->status = dup_printf("ok");
        break;
    case MEASURE_UNSUPPORTED: r->status = dup_printf("unsupported: %s", m->message); break;
    case MEASURE_WRONG: r->status = dup_printf("WRONG RESULT: %s", m->message); break;
    case MEASURE_ERROR: r->status = dup_printf("error: %s", m->message); break;
    }
    /* One line per row: a build log's line breaks become spaces. */
    for (char *c = r->status; *c; c++)
        if (*c == '\n' || *c == '\r' || *c == '\t')
            *c = ' ';
}

/* Whether a reproducible context takes a fixed order for op on type:
 * float and double sums, and sums of a map where `maps` (not scans). */
static int takes_fixed_order(const clreduce_ctx *ctx, clreduce_op op, clreduce_type type, int maps)
{
    clreduce_settings s;
    int floating = type == CLREDUCE_FLOAT || type == CLREDUCE_DOUBLE;
    int summed = op == CLREDUCE_OP_SUM ||
                 (maps && (op == CLREDUCE_OP_SUM_SQUARES || op == CLREDUCE_OP_SUM_ABS ||
                           op == CLREDUCE_OP_DOT));
    return floating && summed && clreduce_get_tuning(ctx, type, &s) == CLREDUCE_SUCCESS &&
           s.reproducible;
}

static void fill_row(row *r, clreduce_ctx *ctx, clreduce_variant v, clreduce_op op,
                     const dataset *ds, const measurement *m, const peak_result *peak)
{
    r->kind = ROW_REDUCTION;
    r->variant = clreduce_variant_name(v);
    r->resolved = v != CLREDUCE_AUTO ? NULL
                  : takes_fixed_order(ctx, op, ds->type, 1)
                      ? clreduce_variant_name(CLREDUCE_REPRODUCIBLE)
                      : clreduce_variant_name(clreduce_auto_variant(ctx, ds->type));
    r->op = op;
    r->type = ds->type;
    r->elements = ds->count;
    r->bytes = ds->count * ds->esize * (op == CLREDUCE_OP_DOT ? 2 : 1); /* dot reads x and y */
    r->copies = ds->copies;
    fill_measurement(r, m, peak->measured ? peak->read_gbps : NAN);
}

/* A scan reads and writes every element: its bytes count both, against the
 * copy peak. */
static void fill_scan_row(row *r, clreduce_ctx *ctx, clreduce_scan_variant v, clreduce_op op,
                          clreduce_scan_kind kind, int in_place, const dataset *ds,
                          const measurement *m, const peak_result *peak)
{
    r->kind = ROW_SCAN;
    r->variant = clreduce_scan_variant_name(v);
    r->resolved = v != CLREDUCE_SCAN_AUTO ? NULL
                  : takes_fixed_order(ctx, op, ds->type, 0)
                      ? "fixed_order"
                      : clreduce_scan_variant_name(clreduce_auto_scan_variant(ctx, ds->type));
    r->scan_kind = kind;
    r->in_place = in_place;
    r->op = op;
    r->type = ds->type;
    r->elements = ds->count;
    r->bytes = 2 * ds->count * ds->esize;
    r->copies = ds->copies;
    fill_measurement(r, m, peak->measured ? peak->copy_gbps : NAN);
}

/* A wrong result or an error goes to stderr at once, besides the table. */
static void announce_failure(const measurement *m, const char *what)
{
    if (m->status != MEASURE_WRONG && m->status != MEASURE_ERROR)
        return;
    progress_done();
    fprintf(stderr, "clreduce-bench: %s: %s: %s\n",
            m->status == MEASURE_WRONG ? "WRONG RESULT" : "error", what, m->message);
}

/* The tuning in effect for every type, and the sub-group path. */
static char *tuning_line(clreduce_ctx *ctx, const options *o)
{
    char line[1024] = "";
    size_t len = 0;
    for (size_t t = 0; t < o->type_count && len < sizeof line; t++) {
        clreduce_settings eff;
        if (clreduce_get_tuning(ctx, o->type_list[t], &eff) != CLREDUCE_SUCCESS)
            continue;
        len += (size_t)snprintf(line + len, sizeof line - len,
                                "%s%s: wg %zu, groups/CU %u, loads %u, vec %u",
                                t ? "; " : "tuning ", clreduce_type_name(o->type_list[t]),
                                eff.work_group_size, eff.groups_per_compute_unit,
                                eff.loads_per_work_item, eff.vector_width);
    }
    /* Operators that run with tunings of their own, and several at once:
     * over a range (rows may differ: clreduce_get_operators_tuning()). */
    for (size_t t = 0; t < o->type_count && len < sizeof line; t++) {
        clreduce_settings table, own;
        if (clreduce_get_tuning(ctx, o->type_list[t], &table) != CLREDUCE_SUCCESS)
            continue;
        for (size_t i = 0; i <= o->op_count && len < sizeof line; i++) {
            const clreduce_op *ops = i < o->op_count ? &o->op_list[i] : o->multi_list;
            size_t n = i < o->op_count ? 1 : o->multi_count;
            if (n == 0 ||
                clreduce_get_operators_tuning(ctx, ops, n, o->type_list[t], &own) !=
                    CLREDUCE_SUCCESS ||
                (own.work_group_size == table.work_group_size &&
                 own.groups_per_compute_unit == table.groups_per_compute_unit &&
                 own.loads_per_work_item == table.loads_per_work_item))
                continue;
            len += (size_t)snprintf(line + len, sizeof line - len,
                                    "; %s %s (flat): wg %zu, groups/CU %u, loads %u",
                                    clreduce_type_name(o->type_list[t]),
                                    n > 1 ? "several operators" : clreduce_op_name(ops[0]),
                                    own.work_group_size, own.groups_per_compute_unit,
                                    own.loads_per_work_item);
        }
    }
    clreduce_settings eff;
    if (len < sizeof line && o->type_count &&
        clreduce_get_tuning(ctx, o->type_list[0], &eff) == CLREDUCE_SUCCESS)
        len += (size_t)snprintf(line + len, sizeof line - len, " | segment passes %u%s",
                                eff.segment_passes, eff.reproducible ? " | reproducible" : "");
    if (len < sizeof line)
        snprintf(line + len, sizeof line - len, " | sub-group path %s",
                 clreduce_subgroup_path_name(clreduce_get_subgroup_path(ctx)));
    return dup_printf("%s", line);
}

/* Which of the dataset's parts can run: reductions, scans. */
typedef struct size_plan {
    int reduce_fits, scan_fits; /* within the device's limits */
    int any, any_scan;          /* some variant supports the type */
} size_plan;

static void skip_line(const char *what, const char *label, clreduce_type type, double bytes,
                      cl_ulong limit)
{
    char b[32], l[32];
    bytes_label(bytes, b, sizeof b);
    bytes_label((double)limit, l, sizeof l);
    progress_done();
    printf("# skipped %s%s %s (%s): more than %s, the lesser of the largest allocation and 40%% "
           "of the device's memory\n",
           what, label, clreduce_type_name(type), b, l);
}

/* The line that says what of a storage type is left out, and why. */
static void storage_line(const char *what, clreduce_type type)
{
    progress_done();
    printf("# skipped %s of %s: of a storage type only the sum is timed, as a user-defined "
           "operator (the built-in sum's kernels)\n",
           what, clreduce_type_name(type));
}

/* Operators past CLREDUCE_OP_MAX reduce only: scans skip them. */
static int scans_op(clreduce_op op)
{
    return op <= CLREDUCE_OP_MAX;
}

static size_t scan_op_count(const options *o)
{
    size_t n = 0;
    for (size_t oi = 0; oi < o->op_count; oi++)
        n += scans_op(o->op_list[oi]);
    return n;
}

/* Whether the rows-and-segments table measures op for shape sh: every
 * operator over rows and segments (dot with a second input), sum, min and
 * max over scanned rows. */
static int shape_op(const shape *sh, clreduce_op op)
{
    return sh->kind == SHAPE_SCAN_ROWS ? scans_op(op) : 1;
}

/* Whether the single operators of --ops hold one past CLREDUCE_OP_MAX
 * that shape sh measures. */
static int shape_wants_operators(const options *o, const shape *sh)
{
    for (size_t oi = 0; oi < o->op_count; oi++)
        if (!scans_op(o->op_list[oi]) && shape_op(sh, o->op_list[oi]))
            return 1;
    return 0;
}

/* The rows-and-segments table's measurements of one type and size. */
static size_t shape_op_count(const options *o)
{
    size_t n = 0;
    for (size_t hi = 0; hi < o->shape_count; hi++)
        for (size_t oi = 0; oi < o->op_count; oi++)
            n += shape_op(&o->shape_list[hi], o->op_list[oi]);
    return n;
}

/* Whether --ops or --multi names an operator past CLREDUCE_OP_MAX (*dot:
 * dot itself). */
static int wants_operators(const options *o, int *dot)
{
    int any = 0;
    *dot = 0;
    for (size_t oi = 0; oi < o->op_count; oi++) {
        any |= !scans_op(o->op_list[oi]);
        *dot |= o->op_list[oi] == CLREDUCE_OP_DOT;
    }
    for (size_t oi = 0; oi < o->multi_count; oi++)
        any |= !scans_op(o->multi_list[oi]);
    return any;
}

/* Whether sum, where --ops has it, gets a row as a user-defined operator
 * too: with --user-sum, and always for a storage type, whose only row it is;
 * a row of the reductions' table, so only where that has variants. */
static int user_sum_for(const options *o, clreduce_type type)
{
    return o->variant_count && (o->user_sum || storage_type(type));
}

/* The rows of one size of `type` in the reductions' table, and in the
 * scans' (*scans). A storage type has no other row than its user-defined
 * sum. */
static size_t rows_per_size(const options *o, clreduce_type type, size_t *scans)
{
    int builtin = !storage_type(type);
    size_t n = builtin ? (o->op_count + (o->multi_count > 0)) * o->variant_count : 0;
    n += o->variant_count > 0 && !o->no_read_floor;
    for (size_t oi = 0; oi < o->op_count; oi++)
        n += user_sum_for(o, type) && o->op_list[oi] == CLREDUCE_OP_SUM;
    *scans = builtin ? scan_op_count(o) * o->kind_count * o->scan_variant_count : 0;
    return n;
}

static size_plan plan_size(const bench_device *d, clreduce_ctx *ctx, const options *o,
                           clreduce_type type, size_t count)
{
    size_plan p;
    cl_ulong limit = device_buffer_limit(d);
    size_t esize = clreduce_type_size(type);
    char label[32];
    size_label(count, label, sizeof label);
    p.reduce_fits = (cl_ulong)count * esize <= limit;
    p.scan_fits = (cl_ulong)count * esize <= limit / 2;
    size_t scans, rows = rows_per_size(o, type, &scans);
    if (rows && !p.reduce_fits)
        skip_line("", label, type, (double)count * (double)esize, limit);
    if (o->scan_variant_count && !storage_type(type) && !p.scan_fits)
        skip_line("scans of ", label, type, 2.0 * (double)count * (double)esize, limit);
    p.any = p.any_scan = 0;
    if (storage_type(type)) {
        p.any = p.reduce_fits && rows; /* the user-defined sum */
        return p;
    }
    for (size_t oi = 0; oi < o->multi_count; oi++)
        for (size_t vi = 0; vi < o->variant_count && p.reduce_fits; vi++)
            p.any |= clreduce_check_support(ctx, o->multi_list[oi], type, o->variant_list[vi]) ==
                     CLREDUCE_SUCCESS;
    for (size_t oi = 0; oi < o->op_count; oi++) {
        for (size_t vi = 0; vi < o->variant_count && p.reduce_fits; vi++)
            p.any |= clreduce_check_support(ctx, o->op_list[oi], type, o->variant_list[vi]) ==
                     CLREDUCE_SUCCESS;
        for (size_t vi = 0; vi < o->scan_variant_count && p.scan_fits && scans_op(o->op_list[oi]);
             vi++)
            p.any_scan |= clreduce_check_scan_support(ctx, o->op_list[oi], type,
                                                      o->scan_variant_list[vi]) ==
                          CLREDUCE_SUCCESS;
    }
    return p;
}

typedef struct run_state {
    const bench_device *d;
    clreduce_ctx *ctx;
    const options *o;
    const peak_result *peak;
    measure_config config;
    row_list rows, scan_rows;
    size_t done, total;
    int failed;
    int defer_scans; /* the scans' table follows the reductions' at the end */
    char multi_label[160]; /* --multi's operators: "sum+min+max" */
} run_state;

/* Sum written as a user-defined operator over `type` (the accumulator the
 * element type itself, or a float for a storage type: sum_type()), or NULL
 * with why in *m. */
static clreduce_operator *user_sum(clreduce_ctx *ctx, clreduce_type type, measurement *m)
{
    static const char *const cl_names[] = {"float", "double", "int", "uint", "long", "ulong"};
    clreduce_type acc = sum_type(type);
    size_t size = clreduce_type_size(acc);
    clreduce_operator_desc desc = {
        .name = "user_sum", .input_type = type, .inputs = 1, .acc_type = cl_names[acc],
        .acc_size = size, .acc_align = size, .identity = "0", .map = "x", .combine = "a + b",
        .commutative = 1,
    };
    clreduce_operator *op = NULL;
    clreduce_status s = clreduce_operator_create(ctx, &desc, &op);
    if (s != CLREDUCE_SUCCESS)
        measurement_fail(m, ctx, s);
    return op;
}

/* The row of sum as a user-defined operator (user_sum_for()). */
static void run_user_sum(run_state *st, dataset *ds, int supported, const char *label)
{
    char what[128];
    snprintf(what, sizeof what, "user %s sum %s", clreduce_type_name(ds->type), label);
    progress("[%zu/%zu] %s", ++st->done, st->total, what);
    measurement m;
    measurement_init(&m);
    clreduce_operator *op = supported ? user_sum(st->ctx, ds->type, &m) : NULL;
    if (op)
        measure_user_reduction(st->d, st->ctx, ds, CLREDUCE_OP_SUM, op, &st->config, &m);
    else if (!supported)
        measurement_fail(&m, st->ctx,
                         clreduce_check_support(st->ctx, CLREDUCE_OP_SUM, ds->type, CLREDUCE_AUTO));
    clreduce_operator_release(op);
    st->failed |= m.status == MEASURE_WRONG || m.status == MEASURE_ERROR;
    announce_failure(&m, what);
    row *r = row_list_add(&st->rows);
    fill_row(r, st->ctx, CLREDUCE_AUTO, CLREDUCE_OP_SUM, ds, &m, st->peak);
    r->variant = "user";
    progress_done();
    report_row(r);
    fflush(stdout);
}

/* The row of --multi's call on variant v. */
static void run_multi(run_state *st, dataset *ds, int supported, const char *label,
                      clreduce_variant v)
{
    const options *o = st->o;
    char what[256];
    snprintf(what, sizeof what, "%s %s %s %s", clreduce_variant_name(v),
             clreduce_type_name(ds->type), st->multi_label, label);
    progress("[%zu/%zu] %s", ++st->done, st->total, what);
    measurement m;
    if (supported) {
        measure_multi(st->d, st->ctx, ds, o->multi_list, o->multi_count, v, &st->config, &m);
    } else {
        measurement_init(&m);
        measurement_fail(&m, st->ctx,
                         clreduce_check_support(st->ctx, o->multi_list[0], ds->type, v));
    }
    st->failed |= m.status == MEASURE_WRONG || m.status == MEASURE_ERROR;
    announce_failure(&m, what);
    row *r = row_list_add(&st->rows);
    fill_row(r, st->ctx, v, o->multi_list[0], ds, &m, st->peak);
    r->op_label = st->multi_label;
    progress_done();
    report_row(r);
    fflush(stdout);
}

/* A storage type's only row is its user-defined sum. */
/* The memory's floor at this size (measure_read_kernel()), a row of the
 * reductions' table with variant "read_kernel" and op "read". */
static void run_read_floor(run_state *st, dataset *ds, const char *label)
{
    progress("[%zu/%zu] read kernel %s %s", ++st->done, st->total, clreduce_type_name(ds->type),
             label);
    measurement m;
    char grid[96] = "";
    measure_read_kernel(st->d, ds, &st->config, &m, grid, sizeof grid);
    row *r = row_list_add(&st->rows);
    r->kind = ROW_REDUCTION;
    r->variant = "read_kernel";
    r->op_label = "read";
    r->type = ds->type;
    r->elements = ds->count;
    r->bytes = ds->count * ds->esize;
    r->copies = ds->copies;
    fill_measurement(r, &m, st->peak->measured ? st->peak->read_gbps : NAN);
    char *status = dup_printf("%s (%s)", r->status, grid);
    free(r->status);
    r->status = status;
    progress_done();
    report_row(r);
    fflush(stdout);
}

static void run_reductions(run_state *st, dataset *ds, int supported, const char *label)
{
    const options *o = st->o;
    int builtin = !storage_type(ds->type);
    if (o->variant_count && !o->no_read_floor)
        run_read_floor(st, ds, label);
    for (size_t oi = 0; oi < o->op_count; oi++) {
        clreduce_op op = o->op_list[oi];
        for (size_t vi = 0; builtin && vi < o->variant_count; vi++) {
            clreduce_variant v = o->variant_list[vi];
            char what[128];
            snprintf(what, sizeof what, "%s %s %s %s", clreduce_variant_name(v),
                     clreduce_type_name(ds->type), clreduce_op_name(op), label);
            progress("[%zu/%zu] %s", ++st->done, st->total, what);
            measurement m;
            if (supported) {
                measure_reduction(st->d, st->ctx, ds, op, v, &st->config, &m);
            } else {
                measurement_init(&m);
                measurement_fail(&m, st->ctx, clreduce_check_support(st->ctx, op, ds->type, v));
            }
            st->failed |= m.status == MEASURE_WRONG || m.status == MEASURE_ERROR;
            announce_failure(&m, what);
            row *r = row_list_add(&st->rows);
            fill_row(r, st->ctx, v, op, ds, &m, st->peak);
            progress_done();
            report_row(r);
            fflush(stdout);
        }
        if (op == CLREDUCE_OP_SUM && user_sum_for(o, ds->type))
            run_user_sum(st, ds, supported, label);
    }
    for (size_t vi = 0; builtin && vi < o->variant_count && o->multi_count; vi++)
        run_multi(st, ds, supported, label, o->variant_list[vi]);
}

static void run_scans(run_state *st, dataset *ds, int supported, const char *label)
{
    const options *o = st->o;
    scan_target target;
    memset(&target, 0, sizeof target);
    if (supported)
        scan_target_create(st->d, ds, o->in_place, &target);
    for (size_t oi = 0; oi < o->op_count; oi++) {
        if (!scans_op(o->op_list[oi]))
            continue;
        for (size_t ki = 0; ki < o->kind_count; ki++) {
            for (size_t vi = 0; vi < o->scan_variant_count; vi++) {
                clreduce_op op = o->op_list[oi];
                clreduce_scan_kind kind = o->kind_list[ki];
                clreduce_scan_variant v = o->scan_variant_list[vi];
                char what[160];
                snprintf(what, sizeof what, "%s %s scan %s %s %s%s",
                         clreduce_scan_variant_name(v), clreduce_scan_kind_name(kind),
                         clreduce_type_name(ds->type), clreduce_op_name(op), label,
                         o->in_place ? " in place" : "");
                progress("[%zu/%zu] %s", ++st->done, st->total, what);
                measurement m;
                if (supported) {
                    measure_scan(st->d, st->ctx, ds, &target, op, kind, v, &st->config, &m);
                } else {
                    measurement_init(&m);
                    measurement_fail(&m, st->ctx,
                                     clreduce_check_scan_support(st->ctx, op, ds->type, v));
                }
                st->failed |= m.status == MEASURE_WRONG || m.status == MEASURE_ERROR;
                announce_failure(&m, what);
                row *r = row_list_add(&st->scan_rows);
                fill_scan_row(r, st->ctx, v, op, kind, o->in_place, ds, &m, st->peak);
                if (!st->defer_scans) {
                    progress_done();
                    report_row(r);
                    fflush(stdout);
                }
            }
        }
    }
    if (supported)
        scan_target_release(&target);
}

static void fill_segments_row(row *r, clreduce_op op, const dataset *ds,
                              const segments_setup *s, const measurement *m,
                              const peak_result *peak)
{
    r->kind = ROW_SEGMENTS;
    r->variant = "auto";
    r->shape = s->shape->label;
    r->segments = s->segments;
    r->op = op;
    r->type = ds->type;
    r->elements = shape_is_rows(s->shape) ? s->segments * s->shape->length : ds->count;
    /* scanned rows are read and written, dot reads x and y */
    r->bytes = r->elements * ds->esize *
               (s->shape->kind == SHAPE_SCAN_ROWS || op == CLREDUCE_OP_DOT ? 2 : 1);
    r->copies = ds->copies;
    fill_measurement(r, m, peak->measured ? peak->read_gbps : NAN);
}

/* The row of --multi's call over the rows or segments of shape sh. */
static void run_shape_multi(run_state *st, dataset *ds, const shape *sh, const char *label)
{
    const options *o = st->o;
    for (size_t i = 0; i < o->multi_count; i++)
        if (!clreduce_result_size(o->multi_list[i], ds->type))
            return; /* an operator the type does not take */
    segments_setup setup;
    segments_setup_create(st->d, ds, sh, o->seed, o->multi_list, o->multi_count, 0, &setup);
    char what[256];
    snprintf(what, sizeof what, "%s %s %s %s", sh->label, clreduce_type_name(ds->type),
             st->multi_label, label);
    progress("%s", what);
    measurement m;
    measure_segments(st->d, st->ctx, ds, &setup, o->multi_list[0], &st->config, &m);
    st->failed |= m.status == MEASURE_WRONG || m.status == MEASURE_ERROR;
    announce_failure(&m, what);
    row *r = row_list_add(&st->rows);
    fill_segments_row(r, o->multi_list[0], ds, &setup, &m, st->peak);
    r->op_label = st->multi_label;
    progress_done();
    report_row(r);
    fflush(stdout);
    segments_setup_release(&setup);
}

/* The rows-and-segments table: for every type and size one dataset, and
 * for every shape its segments, measured for every operator. */
static void run_shapes(run_state *st)
{
    const options *o = st->o;
    cl_ulong limit = device_buffer_limit(st->d);
    size_t types = 0, done = 0;
    for (size_t ti = 0; ti < o->type_count; ti++)
        types += !storage_type(o->type_list[ti]);
    size_t total = types * o->size_count * shape_op_count(o);
    report_segments_columns();
    for (size_t ti = 0; ti < o->type_count; ti++) {
        clreduce_type type = o->type_list[ti];
        if (storage_type(type)) {
            storage_line("rows and segments", type);
            continue;
        }
        for (size_t si = 0; si < o->size_count; si++) {
            size_t count = o->sizes[si];
            char label[32];
            size_label(count, label, sizeof label);
            if ((cl_ulong)count * clreduce_type_size(type) > limit) {
                skip_line("rows and segments of ", label, type,
                          (double)count * (double)clreduce_type_size(type), limit);
                done += shape_op_count(o);
                continue;
            }
            progress("[%zu/%zu] preparing %s %s", done, total, clreduce_type_name(type), label);
            /* dot's second input takes as much room as the first */
            int dot, operators = wants_operators(o, &dot);
            int second = dot && (cl_ulong)count * clreduce_type_size(type) <= limit / 2;
            dataset ds;
            dataset_create(st->d, type, count, o->seed, dot ? limit / 2 : limit, 0, &ds);
            if (operators && second)
                dataset_add_operators(st->d, &ds, o->seed, 1);
            for (size_t hi = 0; hi < o->shape_count; hi++) {
                const shape *sh = &o->shape_list[hi];
                segments_setup setup;
                progress("[%zu/%zu] preparing %s %s %s", done, total, sh->label,
                         clreduce_type_name(type), label);
                segments_setup_create(st->d, &ds, sh, o->seed, NULL, 0,
                                      shape_wants_operators(o, sh), &setup);
                for (size_t oi = 0; oi < o->op_count; oi++) {
                    clreduce_op op = o->op_list[oi];
                    if (!shape_op(sh, op))
                        continue;
                    char what[160];
                    snprintf(what, sizeof what, "%s %s %s %s", sh->label,
                             clreduce_type_name(type), clreduce_op_name(op), label);
                    progress("[%zu/%zu] %s", ++done, total, what);
                    measurement m;
                    measure_segments(st->d, st->ctx, &ds, &setup, op, &st->config, &m);
                    st->failed |= m.status == MEASURE_WRONG || m.status == MEASURE_ERROR;
                    announce_failure(&m, what);
                    row *r = row_list_add(&st->rows);
                    fill_segments_row(r, op, &ds, &setup, &m, st->peak);
                    progress_done();
                    report_row(r);
                    fflush(stdout);
                }
                segments_setup_release(&setup);
                if (o->multi_count && sh->kind != SHAPE_SCAN_ROWS)
                    run_shape_multi(st, &ds, sh, label);
            }
            dataset_release(&ds);
        }
    }
    progress_done();
}

static void run_floor(run_state *st)
{
    progress("timing an empty kernel");
    measurement m;
    measure_empty_kernel(st->d, &st->config, &m);
    row *r = row_list_add(&st->rows);
    r->kind = ROW_FLOOR;
    r->variant = "empty_kernel";
    fill_measurement(r, &m, NAN);
    r->gbps = r->pct_peak = NAN; /* it moves no bytes */
    progress_done();
    report_floor(r);
    printf("\n");
    fflush(stdout);
}

int run_benchmark(const bench_device *d, clreduce_ctx *ctx, const options *o,
                  const peak_result *peak)
{
    run_state st;
    memset(&st, 0, sizeof st);
    st.d = d;
    st.ctx = ctx;
    st.o = o;
    st.peak = peak;
    st.config = (measure_config){o->runs, o->warmup, o->b2b_calls};
    st.defer_scans = o->variant_count > 0;

    char *tuning = tuning_line(ctx, o);
    report_meta meta;
    memset(&meta, 0, sizeof meta);
    meta.device = d;
    utc_date(meta.date, sizeof meta.date);
    meta.command = o->command;
    meta.tuning = tuning;
    meta.peak = peak;
    meta.config = &st.config;
    meta.in_place = o->in_place;
    report_header(&meta);
    run_floor(&st);
    if (o->variant_count)
        report_columns(o->type_list, o->type_count);
    else if (o->scan_variant_count)
        report_scan_columns(&meta);
    /* (the rows-and-segments table prints its own columns, last) */
    fflush(stdout);

    for (size_t ti = 0; ti < o->type_count; ti++) {
        size_t scans, rows = rows_per_size(o, o->type_list[ti], &scans);
        st.total += o->size_count * (rows + scans);
    }
    for (size_t i = 0; i < o->multi_count; i++) {
        size_t used = strlen(st.multi_label);
        snprintf(st.multi_label + used, sizeof st.multi_label - used, "%s%s", i ? "+" : "",
                 clreduce_op_name(o->multi_list[i]));
    }
    int dot, operators = wants_operators(o, &dot);
    cl_ulong limit = device_buffer_limit(d);
    for (size_t ti = 0; ti < o->type_count; ti++) {
        clreduce_type type = o->type_list[ti];
        size_t per_size_scans, per_size = rows_per_size(o, type, &per_size_scans);
        int builtin = !storage_type(type);
        if (!builtin && (o->variant_count || o->scan_variant_count))
            storage_line("the built-in operators and scans", type);
        for (size_t si = 0; si < o->size_count; si++) {
            size_t count = o->sizes[si];
            char label[32];
            size_label(count, label, sizeof label);
            size_plan p = plan_size(d, ctx, o, type, count);
            if (!p.reduce_fits)
                st.done += per_size;
            if (!p.scan_fits)
                st.done += per_size_scans;
            dataset ds;
            memset(&ds, 0, sizeof ds);
            ds.type = type;
            ds.count = count;
            ds.esize = clreduce_type_size(type);
            if (p.any || p.any_scan) {
                progress("[%zu/%zu] preparing %s %s", st.done, st.total,
                         clreduce_type_name(type), label);
                /* dot's second input takes as much room as the first */
                dataset_create(d, type, count, o->seed,
                               p.any_scan || (dot && builtin) ? limit / 2 : limit, p.any_scan,
                               &ds);
            }
            if (p.any && operators && builtin)
                dataset_add_operators(d, &ds, o->seed,
                                      dot && (cl_ulong)count * ds.esize <= limit / 2);
            if (p.reduce_fits)
                run_reductions(&st, &ds, p.any, label);
            if (p.scan_fits && per_size_scans)
                run_scans(&st, &ds, p.any_scan, label);
            if (p.any || p.any_scan)
                dataset_release(&ds);
        }
    }
    progress_done();
    if (st.defer_scans && st.scan_rows.count) {
        printf("\n");
        report_scan_columns(&meta);
        for (size_t i = 0; i < st.scan_rows.count; i++)
            report_row(&st.scan_rows.rows[i]);
        fflush(stdout);
    }
    /* One list for the files: the floor, the reductions, then the scans. */
    for (size_t i = 0; i < st.scan_rows.count; i++)
        *row_list_add(&st.rows) = st.scan_rows.rows[i];
    free(st.scan_rows.rows);
    if (o->shape_count) {
        if (o->variant_count || o->scan_variant_count)
            printf("\n");
        run_shapes(&st);
    }

    if (o->csv && !report_write_csv(o->csv, &meta, &st.rows)) {
        fprintf(stderr, "clreduce-bench: writing %s failed: %s\n", o->csv, strerror(errno));
        st.failed = 1;
    }
    if (o->json && !report_write_json(o->json, &meta, &st.rows)) {
        fprintf(stderr, "clreduce-bench: writing %s failed: %s\n", o->json, strerror(errno));
        st.failed = 1;
    }
    size_t wrong = 0;
    for (size_t i = 0; i < st.rows.count; i++)
        wrong += strncmp(st.rows.rows[i].status, "WRONG", 5) == 0;
    if (wrong)
        fprintf(stderr, "clreduce-bench: %zu measurement(s) gave a WRONG RESULT\n", wrong);
    row_list_free(&st.rows);
    free(tuning);
    return st.failed;
}
