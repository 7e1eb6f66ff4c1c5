/* The Oclgrind test's batched families: the rows and segments kernels, for
 * sum, min and max and for the operators' branch of the same kernels, and
 * the scans of rows, each
 * result checked against the CPU reference and the sentinels around the
 * results. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "test_oclgrind.h"

/* The case's n elements as rows (target variant: the row length, 0 for one
 * row of all; kind: the padding of a row, poisoned) or as segments (kind:
 * the offsets' type) of random lengths, empty, tiny and long mixed. Every
 * result is checked against the CPU reference, and the sentinels around
 * the results. */
static int run_batched(const target *t, og_case *c)
{
    static size_t starts[MAX_COUNT + 1], lengths[MAX_COUNT + 1];
    static uint64_t offsets[MAX_COUNT + 2];
    static unsigned char host[MAX_COUNT * 8], res[(MAX_COUNT + 4) * 32],
        offs[(MAX_COUNT + 2) * 8];
    int segments = t->segments;
    size_t es = clreduce_type_size(c->type);
    size_t rs = clreduce_result_size(c->op, c->type); /* bytes of a result */
    tc_value poison;
    if (t->only_op)
        tc_op_poison(c->op, c->type, &poison);
    else
        tc_poison(c->op, c->type, &poison);
    og_lay_out_input(c, &poison, host);
    size_t results = 0, length = 0, pitch = 0;
    if (!segments) {
        length = t->variant && (size_t)t->variant < c->n ? (size_t)t->variant : c->n;
        pitch = length + (size_t)t->kind;
        results = (c->n + (size_t)t->kind) / pitch;
        for (size_t r = 0; r < results; r++) {
            starts[r] = r * pitch;
            lengths[r] = length;
            for (size_t i = length; i < pitch && r * pitch + i < c->n; i++)
                tc_set(c->type, host, c->offset + r * pitch + i, &poison);
        }
    } else {
        size_t at = 0;
        offsets[0] = 0;
        while (at < c->n) {
            size_t k = tc_rand_below(8), len = k < 3 ? 0 : k < 6 ? 1 + tc_rand_below(4)
                                                         : tc_rand_below(c->n / 2 + 1);
            if (at + len > c->n)
                len = c->n - at;
            starts[results] = at;
            lengths[results] = len;
            at += len;
            offsets[++results] = at;
        }
        if (t->segments == 2) /* wild: decreasing, past the count, huge */
            for (size_t i = 0; i <= results; i++)
                offsets[i] = i % 3 == 0   ? c->n + 1 + tc_rand_below(1000)
                             : i % 3 == 1 ? tc_rand_below(c->n + 1)
                                          : UINT64_MAX - tc_rand_below(1000);
    }
    size_t out_total = c->result_offset + results + 2;
    memset(res, TC_SENTINEL_BYTE, out_total * rs);
    cl_mem in, out, ob = NULL;
    if (!og_create_buffers(c, host, res, out_total * rs, &in, &out))
        return 0;
    cl_int err = CL_SUCCESS;
    size_t os = segments ? clreduce_type_size((clreduce_type)t->kind) : 0;
    if (segments) {
        for (size_t i = 0; i <= results; i++) {
            uint32_t v32 = (uint32_t)offsets[i];
            if (os == 4)
                memcpy(offs + i * 4, &v32, 4);
            else
                memcpy(offs + i * 8, &offsets[i], 8);
        }
        ob = og_keep(clCreateBuffer(clreduce_get_cl_context(g_ctx),
                                    CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (results + 1) * os,
                                    offs, &err));
    }
    if (err != CL_SUCCESS) {
        snprintf(c->detail, sizeof c->detail, "setting up the offsets failed: %s",
                 clreduce_opencl_error_name(err));
        return 0;
    }
    cl_event done = NULL;
    clreduce_status st =
        segments ? clreduce_reduce_segments(g_ctx, g_queue, c->op, c->type, in, c->offset, c->n,
                                            ob, 0, (clreduce_type)t->kind, results, out,
                                            c->result_offset, 0, NULL, &done)
                 : clreduce_reduce_rows(g_ctx, g_queue, c->op, c->type, in, c->offset, results,
                                        length, t->kind ? pitch : 0, out, c->result_offset, 0,
                                        NULL, &done);
    err = og_read_output(out, out_total * rs, res, done);
    if (err != CL_SUCCESS || st != CLREDUCE_SUCCESS) {
        snprintf(c->detail, sizeof c->detail, "status %s%s%s, reading the results: %s",
                 clreduce_status_string(st), st ? ": " : "", st ? clreduce_last_error(g_ctx) : "",
                 clreduce_opencl_error_name(err));
        return 0;
    }
    if (tc_first_changed_outside(res, out_total, c->result_offset, results, rs) != SIZE_MAX) {
        snprintf(c->detail, sizeof c->detail, "elements next to the results changed");
        return 0;
    }
    /* Wild offsets: results unspecified, but no access out of bounds (which
     * Oclgrind would report) and nothing written around them. */
    for (size_t r = 0; r < results && t->segments != 2 && t->only_op; r++) {
        char why[256];
        if (!tc_op_check_result(c->op, c->type, host + (c->offset + starts[r]) * es, NULL,
                                lengths[r], res + (c->result_offset + r) * rs,
                                tc_op_variance_tolerance(c->type), why, sizeof why)) {
            snprintf(c->detail, sizeof c->detail, "result %zu of %zu (elements [%zu, +%zu)): %s",
                     r, results, starts[r], lengths[r], why);
            return 0;
        }
    }
    for (size_t r = 0; r < results && t->segments != 2 && !t->only_op; r++) {
        tc_value ref, got;
        long double abs_sum;
        tc_reference(c->op, c->type, host + (c->offset + starts[r]) * es, lengths[r], &ref,
                     &abs_sum);
        tc_get(c->type, res, c->result_offset + r, &got);
        if (!tc_matches(c->op, c->type, &got, &ref, abs_sum)) {
            tc_got_want text = tc_format_got_want(c->type, &got, &ref);
            snprintf(c->detail, sizeof c->detail,
                     "result %zu of %zu (elements [%zu, +%zu)): got %s, expected %s", r, results,
                     starts[r], lengths[r], text.got, text.want);
            return 0;
        }
    }
    return 1;
}

/* The case's n elements as rows of t->variant elements (0: one row of
 * all), t->padding poisoned elements apart, scanned (t->kind) in place or
 * into rows of their own; every row checked against the CPU reference, and
 * every element around the output rows. */
static int run_scan_rows(const target *t, og_case *c)
{
    static unsigned char host[MAX_COUNT * 8], res[(MAX_COUNT + 4) * 8], back[MAX_COUNT * 8];
    size_t es = clreduce_type_size(c->type), total = c->offset + c->n + c->tail;
    size_t length = t->variant && (size_t)t->variant < c->n ? (size_t)t->variant : c->n;
    size_t pitch = length + t->padding, rows = (c->n + t->padding) / pitch;
    tc_value poison;
    tc_poison(c->op, c->type, &poison);
    for (size_t i = 0; i < total; i++)
        if (i < c->offset || i - c->offset >= rows * pitch || (i - c->offset) % pitch >= length)
            tc_set(c->type, host, i, &poison);
        else
            memcpy(host + i * es, (const unsigned char *)c->data + (i - c->offset) * es, es);
    size_t out_total = c->result_offset + rows * length + 2;
    memset(res, TC_SENTINEL_BYTE, out_total * es);
    cl_context cl = clreduce_get_cl_context(g_ctx);
    cl_int err;
    cl_mem in = og_keep(clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, total * es,
                                    host, &err));
    cl_mem out = in;
    if (err == CL_SUCCESS && !t->in_place)
        out = og_keep(clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out_total * es,
                                  res, &err));
    if (err != CL_SUCCESS) {
        snprintf(c->detail, sizeof c->detail, "setting up the buffers failed: %s",
                 clreduce_opencl_error_name(err));
        return 0;
    }
    size_t out_first = t->in_place ? c->offset : c->result_offset;
    size_t out_pitch = t->in_place ? pitch : length, read = t->in_place ? total : out_total;
    cl_event done = NULL;
    clreduce_status st = clreduce_scan_rows(g_ctx, g_queue, c->op, c->type,
                                            (clreduce_scan_kind)t->kind, in, c->offset, rows,
                                            length, pitch, out, out_first, out_pitch, 0, NULL,
                                            &done);
    err = clEnqueueReadBuffer(g_queue, out, CL_TRUE, 0, read * es, back, done ? 1 : 0,
                              done ? &done : NULL, NULL);
    if (done)
        clReleaseEvent(done);
    if (err != CL_SUCCESS || st != CLREDUCE_SUCCESS) {
        snprintf(c->detail, sizeof c->detail, "status %s%s%s, reading the output: %s",
                 clreduce_status_string(st), st ? ": " : "", st ? clreduce_last_error(g_ctx) : "",
                 clreduce_opencl_error_name(err));
        return 0;
    }
    const unsigned char *was = t->in_place ? host : res;
    for (size_t i = 0; i < read; i++) {
        int in_row = i >= out_first && i - out_first < rows * out_pitch &&
                     (i - out_first) % out_pitch < length;
        if (!in_row && memcmp(back + i * es, was + i * es, es) != 0) {
            snprintf(c->detail, sizeof c->detail, "element %zu outside the output rows changed",
                     i);
            return 0;
        }
    }
    for (size_t r = 0; r < rows; r++) {
        char why[256];
        if (!tc_scan_matches(c->op, c->type, (clreduce_scan_kind)t->kind,
                             host + (c->offset + r * pitch) * es, length,
                             back + (out_first + r * out_pitch) * es, why, sizeof why)) {
            snprintf(c->detail, sizeof c->detail, "row %zu of %zu (%zu elements): %s", r, rows,
                     length, why);
            return 0;
        }
    }
    return 1;
}

static clreduce_status batched_support(const target *t, clreduce_op op, clreduce_type type)
{
    (void)t;
    return clreduce_result_size(op, type) ? CLREDUCE_SUCCESS : CLREDUCE_ERROR_UNSUPPORTED;
}

#define ROWS_TARGET(n, length, padding)                                                       \
    {.name = n, .variant = length, .kind = padding, .run = run_batched,                       \
     .support = batched_support}
#define SCAN_ROWS_TARGET(n, length, pad, k, place)                                             \
    {.name = n, .variant = length, .kind = CLREDUCE_##k, .run = run_scan_rows,                \
     .support = batched_support, .padding = pad, .in_place = place}
#define SEGMENTS_TARGET(n, offsets_type)                                                      \
    {.name = n, .kind = offsets_type, .run = run_batched, .support = batched_support,         \
     .segments = 1}
target og_batched_targets[] = {
    /* Rows: a work-item per row (length 3), teams (33), pitched rows with
     * poisoned padding, and one row of all (several work-groups per row at
     * the larger sizes: the device's 4 compute units are too few rows). */
    ROWS_TARGET("rows_tiny", 3, 0),
    ROWS_TARGET("rows_team", 33, 0),
    ROWS_TARGET("rows_pitched", 10, 3),
    ROWS_TARGET("rows_one_long_row", 0, 0),
    SEGMENTS_TARGET("segments_uint32", CLREDUCE_UINT32),
    SEGMENTS_TARGET("segments_uint64", CLREDUCE_UINT64),
    {.name = "segments_wild_offsets", .kind = CLREDUCE_UINT64, .run = run_batched,
     .support = batched_support, .segments = 2},
    /* The operators' branch of the same kernels: argmax in pitched rows of
     * teams, mean/var in segments (with the chunk heads of long ones). */
    {.name = "rows_argmax", .variant = 33, .kind = 3, .run = run_batched,
     .support = batched_support, .only_op = CLREDUCE_OP_ARGMAX},
    {.name = "segments_mean_var", .kind = CLREDUCE_UINT32, .run = run_batched,
     .support = batched_support, .segments = 1, .only_op = CLREDUCE_OP_MEAN_VAR},
    /* Scans of rows: a work-item per row (length 3), teams (33), pitched
     * rows in place, a work-group per row over tiles (300), and one row of
     * all in place (cut into parts at the larger sizes). */
    SCAN_ROWS_TARGET("scan_rows_tiny", 3, 0, EXCLUSIVE, 0),
    SCAN_ROWS_TARGET("scan_rows_team", 33, 0, INCLUSIVE, 0),
    SCAN_ROWS_TARGET("scan_rows_pitched_in_place", 10, 3, EXCLUSIVE, 1),
    SCAN_ROWS_TARGET("scan_rows_tiles", 300, 2, INCLUSIVE, 0),
    SCAN_ROWS_TARGET("scan_rows_one_long_row", 0, 0, EXCLUSIVE, 1),
};
const size_t og_batched_target_count = ARRAY_SIZE(og_batched_targets);
