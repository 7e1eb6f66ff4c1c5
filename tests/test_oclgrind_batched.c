/* The Oclgrind test's batched families: the rows and segments kernels, for
 * sum, min and max, for the operators' branch of the same kernels and for
 * user-defined operators, and the scans of rows (the operators' too), each
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

/* Where a case's results come from: `results` rows (length elements,
 * pitch apart) or segments (the offsets in the kept buffer `offsets`), the
 * elements of result r from starts[r], lengths[r] of them. */
typedef struct og_batch {
    size_t results, length, pitch;
    cl_mem offsets;
    size_t starts[MAX_COUNT + 1], lengths[MAX_COUNT + 1];
} og_batch;

/* Lays out the case's n elements in host (with poison around them) as rows
 * (target variant: the row length, 0 for one row of all; kind: the padding
 * of a row, poisoned) or as segments (kind: the offsets' type) of random
 * lengths, empty, tiny and long mixed, with their offsets in a buffer.
 * Returns 1, or 0 with c->detail set. */
static int lay_out_batch(const target *t, og_case *c, const tc_value *poison,
                         unsigned char *host, og_batch *b)
{
    static uint64_t offsets[MAX_COUNT + 2];
    static unsigned char offs[(MAX_COUNT + 2) * 8];
    og_lay_out_input(c, poison, host);
    b->results = b->length = b->pitch = 0;
    b->offsets = NULL;
    if (!t->segments) {
        b->length = t->variant && (size_t)t->variant < c->n ? (size_t)t->variant : c->n;
        b->pitch = b->length + (size_t)t->kind;
        b->results = (c->n + (size_t)t->kind) / b->pitch;
        for (size_t r = 0; r < b->results; r++) {
            b->starts[r] = r * b->pitch;
            b->lengths[r] = b->length;
            for (size_t i = b->length; i < b->pitch && r * b->pitch + i < c->n; i++)
                tc_set(c->type, host, c->offset + r * b->pitch + i, poison);
        }
        return 1;
    }
    size_t at = 0, longest = t->longest ? t->longest : c->n / 2;
    offsets[0] = 0;
    while (at < c->n) {
        size_t k = tc_rand_below(8), len = k < 3 ? 0 : k < 6 ? 1 + tc_rand_below(4)
                                                     : tc_rand_below(longest + 1);
        if (at + len > c->n)
            len = c->n - at;
        b->starts[b->results] = at;
        b->lengths[b->results] = len;
        at += len;
        offsets[++b->results] = at;
    }
    if (t->segments == 2) /* wild: decreasing, past the count, huge */
        for (size_t i = 0; i <= b->results; i++)
            offsets[i] = i % 3 == 0   ? c->n + 1 + tc_rand_below(1000)
                         : i % 3 == 1 ? tc_rand_below(c->n + 1)
                                      : UINT64_MAX - tc_rand_below(1000);
    size_t os = clreduce_type_size((clreduce_type)t->kind);
    for (size_t i = 0; i <= b->results; i++) {
        uint32_t v32 = (uint32_t)offsets[i];
        if (os == 4)
            memcpy(offs + i * 4, &v32, 4);
        else
            memcpy(offs + i * 8, &offsets[i], 8);
    }
    cl_int err;
    b->offsets = og_keep(clCreateBuffer(clreduce_get_cl_context(g_ctx),
                                        CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                        (b->results + 1) * os, offs, &err));
    if (err != CL_SUCCESS) {
        snprintf(c->detail, sizeof c->detail, "setting up the offsets failed: %s",
                 clreduce_opencl_error_name(err));
        return 0;
    }
    return 1;
}

/* Reads the results back once `done` completes (res: out_total results of
 * rs bytes) and checks the call's status and the sentinels around them.
 * Returns 1, or 0 with c->detail set. */
static int read_batch(og_case *c, clreduce_status st, cl_mem out, size_t out_total, size_t rs,
                      size_t results, unsigned char *res, cl_event done)
{
    cl_int err = og_read_output(out, out_total * rs, res, done);
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
    return 1;
}

/* The case as rows or segments (lay_out_batch), every result checked
 * against the CPU reference, and the sentinels around the results. */
static int run_batched(const target *t, og_case *c)
{
    static og_batch b;
    static unsigned char host[MAX_COUNT * 8], res[(MAX_COUNT + 4) * 32];
    size_t es = clreduce_type_size(c->type);
    size_t rs = clreduce_result_size(c->op, c->type); /* bytes of a result */
    tc_value poison;
    if (t->only_op)
        tc_op_poison(c->op, c->type, &poison);
    else
        tc_poison(c->op, c->type, &poison);
    if (!lay_out_batch(t, c, &poison, host, &b))
        return 0;
    size_t out_total = c->result_offset + b.results + 2;
    memset(res, TC_SENTINEL_BYTE, out_total * rs);
    cl_mem in, out;
    if (!og_create_buffers(c, host, res, out_total * rs, &in, &out))
        return 0;
    cl_event done = NULL;
    clreduce_status st;
    /* Dot products: of the input with itself, read through both inputs. */
    const int dot = c->op == CLREDUCE_OP_DOT;
    if (dot && t->segments)
        st = clreduce_dot_segments(g_ctx, g_queue, c->type, in, c->offset, in, c->offset, c->n,
                                   b.offsets, 0, (clreduce_type)t->kind, b.results, out,
                                   c->result_offset, 0, NULL, &done);
    else if (dot)
        st = clreduce_dot_rows(g_ctx, g_queue, c->type, in, c->offset, in, c->offset, b.results,
                               b.length, t->kind ? b.pitch : 0, out, c->result_offset, 0, NULL,
                               &done);
    else if (t->segments)
        st = clreduce_reduce_segments(g_ctx, g_queue, c->op, c->type, in, c->offset, c->n,
                                      b.offsets, 0, (clreduce_type)t->kind, b.results, out,
                                      c->result_offset, 0, NULL, &done);
    else
        st = clreduce_reduce_rows(g_ctx, g_queue, c->op, c->type, in, c->offset, b.results,
                                  b.length, t->kind ? b.pitch : 0, out, c->result_offset, 0,
                                  NULL, &done);
    if (!read_batch(c, st, out, out_total, rs, b.results, res, done))
        return 0;
    /* Wild offsets: results unspecified, but no access out of bounds (which
     * Oclgrind would report) and nothing written around them. */
    for (size_t r = 0; r < b.results && t->segments != 2 && t->only_op; r++) {
        char why[256];
        const unsigned char *x = host + (c->offset + b.starts[r]) * es;
        if (!tc_op_check_result(c->op, c->type, x, dot ? x : NULL,
                                b.lengths[r], res + (c->result_offset + r) * rs,
                                tc_op_variance_tolerance(c->type), why, sizeof why)) {
            snprintf(c->detail, sizeof c->detail, "result %zu of %zu (elements [%zu, +%zu)): %s",
                     r, b.results, b.starts[r], b.lengths[r], why);
            return 0;
        }
    }
    for (size_t r = 0; r < b.results && t->segments != 2 && !t->only_op; r++) {
        tc_value ref, got;
        long double abs_sum;
        tc_reference(c->op, c->type, host + (c->offset + b.starts[r]) * es, b.lengths[r], &ref,
                     &abs_sum);
        tc_get(c->type, res, c->result_offset + r, &got);
        if (!tc_matches(c->op, c->type, &got, &ref, abs_sum)) {
            tc_got_want text = tc_format_got_want(c->type, &got, &ref);
            snprintf(c->detail, sizeof c->detail,
                     "result %zu of %zu (elements [%zu, +%zu)): got %s, expected %s", r,
                     b.results, b.starts[r], b.lengths[r], text.got, text.want);
            return 0;
        }
    }
    return 1;
}

/* ---- user-defined operators ------------------------------------------------------ */

/* On the bits of the elements, so that one operator serves a type and its
 * kin: for 4-byte types a product of 2x2 integer matrices that reads the
 * index (t->custom 1: not commutative) or a sum of the bits weighted by the
 * index (2: commutative); for 8-byte types an affine map of two inputs (1)
 * or a weighted sum of their products (2). */
typedef struct og_mat {
    uint32_t a, b, c, d;
} og_mat;

static const clreduce_operator_desc custom_descs[2][2] = {
    {{.name = "og_matprod", .inputs = 1, .acc_type = "mat",
      .acc_source = "typedef struct { uint a, b, c, d; } mat;", .acc_size = 16, .acc_align = 4,
      .identity = "(mat){1, 0, 0, 1}",
      .map = "(mat){1 + (as_uint(x) & 255) * ((as_uint(x) >> 8 & 255) + (uint)i),\n"
             "      as_uint(x) & 255, (as_uint(x) >> 8 & 255) + (uint)i, 1}",
      .combine = "(mat){a.a * b.a + a.b * b.c, a.a * b.b + a.b * b.d,\n"
                 "      a.c * b.a + a.d * b.c, a.c * b.b + a.d * b.d}"},
     {.name = "og_isum", .inputs = 1, .acc_type = "ulong", .acc_size = 8, .acc_align = 8,
      .identity = "0", .map = "(ulong)as_uint(x) * (i + 1)", .combine = "a + b",
      .commutative = 1}},
    {{.name = "og_affine", .inputs = 2, .acc_type = "affine",
      .acc_source = "typedef struct { ulong a, c; } affine;", .acc_size = 16, .acc_align = 8,
      .identity = "(affine){1, 0}", .map = "(affine){as_ulong(x) | 1, as_ulong(y) + i}",
      .combine = "(affine){b.a * a.a, b.a * a.c + b.c}"},
     {.name = "og_wdot", .inputs = 2, .acc_type = "ulong", .acc_size = 8, .acc_align = 8,
      .identity = "0", .map = "as_ulong(x) * as_ulong(y) + i", .combine = "a + b",
      .commutative = 1}},
};

/* The reference of n elements of x (and y) into out, as the operators
 * above compute it. */
static void custom_reference(size_t es, int commutative, const unsigned char *x,
                             const unsigned char *y, size_t n, unsigned char *out)
{
    og_mat m = {1, 0, 0, 1};
    uint64_t sum = 0, fa = 1, fc = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t v;
        uint64_t p, q;
        if (es == 4) {
            memcpy(&v, x + i * 4, 4);
            uint32_t a = v & 255, c = (v >> 8 & 255) + (uint32_t)i;
            og_mat e = {1 + a * c, a, c, 1};
            sum += (uint64_t)v * (i + 1);
            m = (og_mat){m.a * e.a + m.b * e.c, m.a * e.b + m.b * e.d, m.c * e.a + m.d * e.c,
                         m.c * e.b + m.d * e.d};
        } else {
            memcpy(&p, x + i * 8, 8);
            memcpy(&q, y + i * 8, 8);
            sum += p * q + i;
            fc = (p | 1) * fc + q + i;
            fa = (p | 1) * fa;
        }
    }
    if (commutative)
        memcpy(out, &sum, 8);
    else if (es == 4)
        memcpy(out, &m, 16);
    else
        memcpy(out, (uint64_t[2]){fa, fc}, 16);
}

/* The case as rows or segments with the operator of its type's size (the
 * second input of 8-byte types: the first's elements reversed, at the same
 * offset), every result checked against custom_reference. */
/* The case's operator (custom_descs, by its element size and t->custom;
 * its description in *d), or NULL with c->detail set. Created before the
 * case's buffers: its creation creates and releases two buffers, whose
 * slots the case's buffers then take, not one the library creates and a
 * kernel writes (see og_keep). */
static clreduce_operator *create_case_operator(const target *t, og_case *c,
                                               clreduce_operator_desc *d)
{
    size_t es = clreduce_type_size(c->type);
    *d = custom_descs[es == 8][t->custom == 2];
    d->input_type = c->type;
    clreduce_operator *op = NULL;
    clreduce_status st = clreduce_operator_create(g_ctx, d, &op);
    if (st != CLREDUCE_SUCCESS) {
        snprintf(c->detail, sizeof c->detail, "creating %s: %s: %s", d->name,
                 clreduce_status_string(st), clreduce_last_error(g_ctx));
        return NULL;
    }
    return op;
}

static int run_custom(const target *t, og_case *c)
{
    static og_batch b;
    static unsigned char host[MAX_COUNT * 8], host2[MAX_COUNT * 8],
        res[(MAX_COUNT + 4) * 16];
    size_t es = clreduce_type_size(c->type);
    clreduce_operator_desc d;
    clreduce_operator *op = create_case_operator(t, c, &d);
    if (!op)
        return 0;
    size_t rs = d.acc_size;
    clreduce_status st;
    tc_value poison;
    poison.u64 = UINT64_C(0x7f7f7f7f7f7f7f7f);
    int ok = lay_out_batch(t, c, &poison, host, &b);
    for (size_t i = 0; i < c->offset + c->n + c->tail; i++)
        memcpy(host2 + i * es, host + (c->offset + c->n + c->tail - 1 - i) * es, es);
    size_t out_total = c->result_offset + b.results + 2;
    memset(res, TC_SENTINEL_BYTE, out_total * rs);
    cl_mem in = NULL, out = NULL, in2 = NULL;
    ok = ok && og_create_buffers(c, host, res, out_total * rs, &in, &out);
    cl_int err = CL_SUCCESS;
    if (ok && d.inputs == 2)
        in2 = og_keep(clCreateBuffer(clreduce_get_cl_context(g_ctx),
                                     CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                     (c->offset + c->n + c->tail) * es, host2, &err));
    if (!ok || err != CL_SUCCESS) {
        clreduce_operator_release(op);
        if (ok)
            snprintf(c->detail, sizeof c->detail, "creating input2 failed: %s",
                     clreduce_opencl_error_name(err));
        return 0;
    }
    cl_event done = NULL;
    st = t->segments ? clreduce_reduce_segments_custom(
                           g_ctx, g_queue, op, in, c->offset, in2, c->offset, c->n, b.offsets, 0,
                           (clreduce_type)t->kind, b.results, out, c->result_offset, 0, NULL,
                           &done)
                     : clreduce_reduce_rows_custom(g_ctx, g_queue, op, in, c->offset, in2,
                                                   c->offset, b.results, b.length,
                                                   t->kind ? b.pitch : 0, out, c->result_offset,
                                                   0, NULL, &done);
    clreduce_operator_release(op);
    if (!read_batch(c, st, out, out_total, rs, b.results, res, done))
        return 0;
    for (size_t r = 0; r < b.results; r++) {
        unsigned char want[16];
        size_t at = (c->offset + b.starts[r]) * es;
        custom_reference(es, t->custom == 2, host + at, host2 + at, b.lengths[r], want);
        if (memcmp(res + (c->result_offset + r) * rs, want, rs) != 0) {
            snprintf(c->detail, sizeof c->detail,
                     "%s: result %zu of %zu (elements [%zu, +%zu)) differs from the reference",
                     d.name, r, b.results, b.starts[r], b.lengths[r]);
            return 0;
        }
    }
    return 1;
}

/* The case's n elements as rows of t->variant elements, t->padding
 * poisoned elements apart (and input2 the same of run_custom's reversed
 * elements), scanned (t->kind) with the operator of its type's size into
 * rows of one result more between sentinels; every prefix checked against
 * custom_reference, and every result around the output rows. */
static int run_custom_scan_rows(const target *t, og_case *c)
{
    static unsigned char host[MAX_COUNT * 8], host2[MAX_COUNT * 8], res[(MAX_COUNT + 4) * 32];
    size_t es = clreduce_type_size(c->type), total = c->offset + c->n + c->tail;
    clreduce_operator_desc d;
    clreduce_operator *op = create_case_operator(t, c, &d);
    if (!op)
        return 0;
    size_t rs = d.acc_size;
    size_t length = (size_t)t->variant < c->n ? (size_t)t->variant : c->n;
    size_t pitch = length + t->padding, rows = (c->n + t->padding) / pitch;
    size_t out_pitch = length + 1, out_total = c->result_offset + rows * out_pitch + 2;
    clreduce_status st;
    tc_value poison;
    poison.u64 = UINT64_C(0x7f7f7f7f7f7f7f7f);
    og_lay_out_input(c, &poison, host);
    for (size_t i = c->offset; i < c->offset + c->n; i++)
        if ((i - c->offset) % pitch >= length)
            memcpy(host + i * es, &poison, es);
    for (size_t i = 0; i < total; i++)
        memcpy(host2 + i * es, host + (total - 1 - i) * es, es);
    memset(res, TC_SENTINEL_BYTE, out_total * rs);
    cl_mem in = NULL, out = NULL, in2 = NULL;
    int ok = og_create_buffers(c, host, res, out_total * rs, &in, &out);
    cl_int err = CL_SUCCESS;
    if (ok && d.inputs == 2)
        in2 = og_keep(clCreateBuffer(clreduce_get_cl_context(g_ctx),
                                     CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, total * es, host2,
                                     &err));
    if (!ok || err != CL_SUCCESS) {
        clreduce_operator_release(op);
        if (ok)
            snprintf(c->detail, sizeof c->detail, "creating input2 failed: %s",
                     clreduce_opencl_error_name(err));
        return 0;
    }
    cl_event done = NULL;
    st = clreduce_scan_rows_custom(g_ctx, g_queue, op, (clreduce_scan_kind)t->kind, in,
                                   c->offset, in2, c->offset, rows, length, pitch, out,
                                   c->result_offset, out_pitch, 0, NULL, &done);
    clreduce_operator_release(op);
    err = og_read_output(out, out_total * rs, res, done);
    if (err != CL_SUCCESS || st != CLREDUCE_SUCCESS) {
        snprintf(c->detail, sizeof c->detail, "status %s%s%s, reading the output: %s",
                 clreduce_status_string(st), st ? ": " : "", st ? clreduce_last_error(g_ctx) : "",
                 clreduce_opencl_error_name(err));
        return 0;
    }
    for (size_t at = 0; at < out_total; at++) {
        int in_row = at >= c->result_offset && (at - c->result_offset) / out_pitch < rows &&
                     (at - c->result_offset) % out_pitch < length;
        for (size_t k = 0; !in_row && k < rs; k++)
            if (res[at * rs + k] != TC_SENTINEL_BYTE) {
                snprintf(c->detail, sizeof c->detail,
                         "result %zu outside the output rows changed", at);
                return 0;
            }
    }
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < length; j++) {
            unsigned char want[16];
            size_t at = (c->offset + r * pitch) * es;
            custom_reference(es, t->custom == 2, host + at, host2 + at,
                             t->kind == CLREDUCE_INCLUSIVE ? j + 1 : j, want);
            if (memcmp(res + (c->result_offset + r * out_pitch + j) * rs, want, rs) != 0) {
                snprintf(c->detail, sizeof c->detail,
                         "%s: row %zu of %zu, result %zu differs from the reference", d.name, r,
                         rows, j);
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

/* The same with one of the operators past max (t->only_op): rows of
 * t->variant elements (fewer when n is), t->padding poisoned elements
 * apart, scanned into results at a pitch of one more than the row length
 * from result c->result_offset, between sentinel bytes; every result
 * checked against the reduction of its row's prefix, every byte outside
 * the output rows against the sentinel. */
static int run_scan_rows_operator(const target *t, og_case *c)
{
    size_t es = clreduce_type_size(c->type), rs = clreduce_result_size(c->op, c->type);
    size_t length = (size_t)t->variant < c->n ? (size_t)t->variant : c->n;
    size_t pitch = length + t->padding, rows = (c->n + t->padding) / pitch;
    size_t out_pitch = length + 1, out_total = c->result_offset + rows * out_pitch + 2;
    static unsigned char host[MAX_COUNT * 8], res[300 * 32];
    tc_value poison;
    tc_op_poison(c->op, c->type, &poison);
    og_lay_out_input(c, &poison, host);
    for (size_t i = c->offset; i < c->offset + c->n; i++)
        if ((i - c->offset) % pitch >= length)
            tc_set(c->type, host, i, &poison);
    memset(res, TC_SENTINEL_BYTE, out_total * rs);
    cl_mem in, out;
    if (!og_create_buffers(c, host, res, out_total * rs, &in, &out))
        return 0;
    cl_event done = NULL;
    clreduce_status st = clreduce_scan_rows(g_ctx, g_queue, c->op, c->type,
                                            (clreduce_scan_kind)t->kind, in, c->offset, rows,
                                            length, pitch, out, c->result_offset, out_pitch, 0,
                                            NULL, &done);
    cl_int err = og_read_output(out, out_total * rs, res, done);
    if (err != CL_SUCCESS || st != CLREDUCE_SUCCESS) {
        snprintf(c->detail, sizeof c->detail, "status %s%s%s, reading the output: %s",
                 clreduce_status_string(st), st ? ": " : "", st ? clreduce_last_error(g_ctx) : "",
                 clreduce_opencl_error_name(err));
        return 0;
    }
    for (size_t i = 0; i < out_total * rs; i++) {
        size_t at = i / rs;
        int in_row = at >= c->result_offset && (at - c->result_offset) / out_pitch < rows &&
                     (at - c->result_offset) % out_pitch < length;
        if (!in_row && res[i] != TC_SENTINEL_BYTE) {
            snprintf(c->detail, sizeof c->detail, "result %zu outside the output rows changed",
                     at);
            return 0;
        }
    }
    long double var_tol = c->op == CLREDUCE_OP_MEAN_VAR ? tc_op_variance_tolerance(c->type) : 0;
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < length; j++) {
            size_t prefix = t->kind == CLREDUCE_INCLUSIVE ? j + 1 : j;
            char why[400];
            if (!tc_op_check_result(c->op, c->type, host + (c->offset + r * pitch) * es, NULL,
                                    prefix, res + (c->result_offset + r * out_pitch + j) * rs,
                                    var_tol, why, sizeof why)) {
                snprintf(c->detail, sizeof c->detail, "row %zu of %zu, result %zu: %s", r, rows,
                         j, why);
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
/* Segments of sum, min and max may run in one launch (--segment-passes),
 * whose chunks hand values over as the look-back does. */
#define SEGMENTS_TARGET(n, offsets_type)                                                      \
    {.name = n, .kind = offsets_type, .run = run_batched, .support = batched_support,         \
     .segments = 1, .accepted = &og_look_back_hand_off}
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
     .support = batched_support, .segments = 2, .accepted = &og_look_back_hand_off},
    /* The operators' branch of the same kernels: argmax in pitched rows of
     * teams; mean/var, argmin and minmax in segments (with the chunk heads of
     * long ones), which start anywhere in a vector. */
    {.name = "rows_argmax", .variant = 33, .kind = 3, .run = run_batched,
     .support = batched_support, .only_op = CLREDUCE_OP_ARGMAX},
    {.name = "segments_mean_var", .kind = CLREDUCE_UINT32, .run = run_batched,
     .support = batched_support, .segments = 1, .only_op = CLREDUCE_OP_MEAN_VAR},
    {.name = "segments_argmin", .kind = CLREDUCE_UINT32, .run = run_batched,
     .support = batched_support, .segments = 1, .only_op = CLREDUCE_OP_ARGMIN},
    {.name = "segments_minmax", .kind = CLREDUCE_UINT64, .run = run_batched,
     .support = batched_support, .segments = 1, .only_op = CLREDUCE_OP_MINMAX},
    /* Dot products (two inputs, here one buffer): pitched rows of teams,
     * segments. */
    {.name = "rows_dot", .variant = 33, .kind = 3, .run = run_batched,
     .support = batched_support, .only_op = CLREDUCE_OP_DOT},
    {.name = "segments_dot", .kind = CLREDUCE_UINT64, .run = run_batched,
     .support = batched_support, .segments = 1, .only_op = CLREDUCE_OP_DOT},
    /* Scans of rows: a work-item per row (length 3), teams (33), pitched
     * rows in place, a work-group per row over tiles (300), and one row of
     * all in place (cut into parts at the larger sizes). */
    SCAN_ROWS_TARGET("scan_rows_tiny", 3, 0, EXCLUSIVE, 0),
    SCAN_ROWS_TARGET("scan_rows_team", 33, 0, INCLUSIVE, 0),
    SCAN_ROWS_TARGET("scan_rows_pitched_in_place", 10, 3, EXCLUSIVE, 1),
    SCAN_ROWS_TARGET("scan_rows_tiles", 300, 2, INCLUSIVE, 0),
    SCAN_ROWS_TARGET("scan_rows_one_long_row", 0, 0, EXCLUSIVE, 1),
    /* The operators' scan of rows (one launch, a work-group per row in
     * turn): 20 rows of 10 at the largest size, so that each of the 4
     * work-groups scans several. */
    {.name = "scan_rows_argmin", .variant = 10, .kind = CLREDUCE_EXCLUSIVE,
     .run = run_scan_rows_operator, .support = batched_support,
     .only_op = CLREDUCE_OP_ARGMIN, .padding = 3},
    /* User-defined operators on every type (sum_abs takes them all: one
     * pass per type): in order, and commutative, in pitched rows of teams
     * and in segments. */
    {.name = "rows_custom_ordered", .variant = 33, .kind = 3, .run = run_custom,
     .support = batched_support, .only_op = CLREDUCE_OP_SUM_ABS, .custom = 1},
    {.name = "rows_custom_commutative", .variant = 33, .kind = 3, .run = run_custom,
     .support = batched_support, .only_op = CLREDUCE_OP_SUM_ABS, .custom = 2},
    {.name = "segments_custom_ordered", .kind = CLREDUCE_UINT64, .run = run_custom,
     .support = batched_support, .segments = 1, .only_op = CLREDUCE_OP_SUM_ABS, .custom = 1},
    {.name = "segments_custom_commutative", .kind = CLREDUCE_UINT32, .run = run_custom,
     .support = batched_support, .segments = 1, .only_op = CLREDUCE_OP_SUM_ABS, .custom = 2},
    /* Their scans of rows (the operators' row launch): exclusive in order,
     * inclusive commutative, 20 rows of 10 at the largest size. */
    {.name = "scan_rows_custom_ordered", .variant = 10, .kind = CLREDUCE_EXCLUSIVE,
     .run = run_custom_scan_rows, .support = batched_support, .only_op = CLREDUCE_OP_SUM_ABS,
     .padding = 3, .custom = 1},
    {.name = "scan_rows_custom_commutative", .variant = 10, .kind = CLREDUCE_INCLUSIVE,
     .run = run_custom_scan_rows, .support = batched_support, .only_op = CLREDUCE_OP_SUM_ABS,
     .padding = 3, .custom = 2},
};
const size_t og_batched_target_count = ARRAY_SIZE(og_batched_targets);

/* The reproducible context's float and double sums of rows and segments
 * (reduce_fixed_order_rows.cl): rows of a squad of one work-item (3), of
 * a squad of 32 (300, pitched), of two steps (2000, pitched: a squad each
 * where there are 8 rows or more, else a work-group), one row of all
 * (several tiles at the larger sizes, their levels in place); segments up
 * to several tiles long, and wild offsets. */
#define FIXED_ORDER_SIZES .sizes = og_fixed_order_sizes, .num_sizes = OG_FIXED_ORDER_SIZES
target og_fixed_order_batched_targets[] = {
    {.name = "rows_fixed_order_short", .variant = 3, .run = run_batched,
     .support = batched_support, .float_sums = 1, FIXED_ORDER_SIZES},
    {.name = "rows_fixed_order_pitched", .variant = 300, .kind = 3, .run = run_batched,
     .support = batched_support, .float_sums = 1, FIXED_ORDER_SIZES},
    {.name = "rows_fixed_order_steps", .variant = 2000, .kind = 3, .run = run_batched,
     .support = batched_support, .float_sums = 1, FIXED_ORDER_SIZES},
    {.name = "rows_fixed_order_one_row", .run = run_batched, .support = batched_support,
     .float_sums = 1, FIXED_ORDER_SIZES},
    {.name = "segments_fixed_order_uint32", .kind = CLREDUCE_UINT32, .run = run_batched,
     .support = batched_support, .segments = 1, .longest = 20000, .float_sums = 1,
     FIXED_ORDER_SIZES},
    {.name = "segments_fixed_order_uint64", .kind = CLREDUCE_UINT64, .run = run_batched,
     .support = batched_support, .segments = 1, .float_sums = 1, FIXED_ORDER_SIZES},
    {.name = "segments_fixed_order_wild", .kind = CLREDUCE_UINT64, .run = run_batched,
     .support = batched_support, .segments = 2, .float_sums = 1, FIXED_ORDER_SIZES},
    {.name = "segments_fixed_order_dot", .kind = CLREDUCE_UINT32, .run = run_batched,
     .support = batched_support, .segments = 1, .float_sums = 1, .only_op = CLREDUCE_OP_DOT,
     FIXED_ORDER_SIZES},
    /* Their sum scans of rows: rows of 40 (a work-item each), of 300 (a
     * launch of one tile each), one row of all in place (several tiles at
     * the larger sizes: three launches). */
    {.name = "scan_rows_fixed_order_short", .variant = 40, .kind = CLREDUCE_INCLUSIVE,
     .run = run_scan_rows, .support = batched_support, .padding = 2, .float_sums = 1,
     FIXED_ORDER_SIZES},
    {.name = "scan_rows_fixed_order_tile", .variant = 300, .kind = CLREDUCE_EXCLUSIVE,
     .run = run_scan_rows, .support = batched_support, .padding = 3, .float_sums = 1,
     FIXED_ORDER_SIZES},
    {.name = "scan_rows_fixed_order_one_row", .kind = CLREDUCE_INCLUSIVE, .run = run_scan_rows,
     .support = batched_support, .in_place = 1, .float_sums = 1, FIXED_ORDER_SIZES},
};
const size_t og_fixed_order_batched_target_count = ARRAY_SIZE(og_fixed_order_batched_targets);

/* Segments in enough chunks for the single launch to read its chunks' first
 * segments from a launch of their own (clr_segment_starts), which it takes
 * from 32 chunks a compute unit: run with one compute unit and chunks of 512
 * (work-groups of 64, scalar loads), 16000 elements are 32 chunks. Segments
 * of up to 1000 elements, so that the chunks keep their usual length; and
 * wild offsets, whose searches give starts out of order. */
static const og_size many_chunks_sizes[] = {{16000, 5, 3}};
/* Long segments (a mean of thousands of elements: four chunks or more)
 * take chunks of two tiles (src/segment_layouts.c's long chunks), which the spans
 * of sub-groups, forced by their test switch, walk in two rounds. */
static const og_size long_chunks_sizes[] = {{40000, 5, 3}};
/* Segments of a mean of thousands of elements, shorter than the long
 * chunks (run with work-groups of 256 and vectors of 2), take a work-group
 * each in one launch (cl/reduce_segments_groups.cl); with one compute unit
 * a piece is 8192 elements, so the longer ones are read by pieces. */
static const og_size groups_sizes[] = {{40000, 5, 3}, {33000, 0, 1}};
/* Segments of a mean of a few dozen elements take a work-item each in one
 * launch (clr_reduce_segment_items), those of 257 to 400 elements its
 * work-group; with wild offsets, pieces take the long ones. */
static const og_size items_sizes[] = {{20000, 5, 3}};
#define LARGE_TARGET(n, offsets_type, how, most, size_list)                                   \
    {.name = n, .kind = offsets_type, .run = run_batched, .support = batched_support,         \
     .segments = how, .accepted = &og_look_back_hand_off, .longest = most,                    \
     .sizes = size_list, .num_sizes = ARRAY_SIZE(size_list)}
target og_large_targets[] = {
    LARGE_TARGET("segments_many_chunks", CLREDUCE_UINT32, 1, 1000, many_chunks_sizes),
    LARGE_TARGET("segments_many_chunks_wild_offsets", CLREDUCE_UINT64, 2, 1000,
                 many_chunks_sizes),
    LARGE_TARGET("segments_long_chunks", CLREDUCE_UINT32, 1, 40000, long_chunks_sizes),
    LARGE_TARGET("segments_long_chunks_wild_offsets", CLREDUCE_UINT64, 2, 40000,
                 long_chunks_sizes),
    LARGE_TARGET("segments_groups", CLREDUCE_UINT32, 1, 24000, groups_sizes),
    LARGE_TARGET("segments_groups_wild_offsets", CLREDUCE_UINT64, 2, 24000, groups_sizes),
    LARGE_TARGET("segments_items", CLREDUCE_UINT32, 1, 400, items_sizes),
    LARGE_TARGET("segments_items_wild_offsets", CLREDUCE_UINT64, 2, 400, items_sizes),
};
const size_t og_large_target_count = ARRAY_SIZE(og_large_targets);
