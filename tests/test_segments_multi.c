/* unit.segments_multi: clreduce_reduce_segments_multi(_host). Every type
 * with sets of one to ten operators on CSR layouts that mix empty, tiny,
 * medium and long segments, 32- and 64-bit offsets, both forms (the
 * enqueueing one with the input, the offsets and the records at offsets
 * between poison and sentinels): every result of every segment against the
 * CPU reference of that segment alone (argmin and argmax from the
 * segment's start, the first of ties), empty segments' against each
 * operator's result of no element; long segments; the results of each
 * operator alone (bit for bit but for float sums and NaN bits of min and
 * max), NaN, infinities and signed zeros included; the same bits every
 * time; count 0, no segments; bad arguments, which change nothing.
 * CLREDUCE_TEST_SEED=n repeats a run's random data; CLREDUCE_TEST_FILTER=glob
 * runs the matching tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "test_common_ops.h"

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;
static cl_command_queue g_read_queue;

#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Bytes of the largest result of one operator. */
#define RESULT_MAX 24
/* The most segments of a layout, and the poison around a call's offsets. */
#define MAX_SEGMENTS ((size_t)30000)
#define OFFSETS_POISON UINT64_C(0xFFFFFFFFFFFFFFF0)

/* ---- operator sets and the reference ---------------------------------------------- */

/* "min+sum": the operators of a set, for messages. */
static const char *set_name(const clreduce_op *ops, size_t k, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t j = 0; j < k && used < size; j++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", j ? "+" : "",
                                 clreduce_op_name(ops[j]));
    return buf;
}

/* Whether op's result is a choice among the elements rather than a sum. */
static int is_selection(clreduce_op op)
{
    return op == CLREDUCE_OP_MIN || op == CLREDUCE_OP_MAX || op == CLREDUCE_OP_ARGMIN ||
           op == CLREDUCE_OP_ARGMAX || op == CLREDUCE_OP_MINMAX;
}

/* m of batched.h's bound for a segment of n: min(n, 16 v w) + n / (4 v w^2) + 2. */
static size_t segment_chain_length(size_t n, const void *arg)
{
    const clreduce_settings *t = arg;
    size_t vw = (size_t)t->vector_width * t->work_group_size;
    return (n < 16 * vw ? n : 16 * vw) + n / (4 * vw * t->work_group_size) + 2;
}

/* Whether `got`, op's result on the segment x[0 .. n), is right against
 * the CPU reference: sum, min and max as tc_check_batched checks a segment
 * (a float sum within batched.h's bound of the set's tuning t), the other
 * operators as tc_op_check_result checks them. */
static int check_result(clreduce_op op, clreduce_type type, const void *x, size_t n,
                        const unsigned char *got, const clreduce_settings *t, char *why,
                        size_t size)
{
    if (op <= CLREDUCE_OP_MAX) {
        size_t start = 0;
        double worst;
        return tc_check_batched(op, type, x, &start, &n, 1, got, segment_chain_length, t, &worst,
                                why, size) == 0;
    }
    return tc_op_check_result(op, type, x, NULL, n, got, tc_op_variance_tolerance(type), why,
                              size);
}

/* Whether a and b, results of op on a float type, differ only in the bits
 * of a NaN min or max (which multi.h lets differ). */
static int same_but_nan(clreduce_op op, clreduce_type type, const unsigned char *a,
                        const unsigned char *b)
{
    size_t es = tc_elem_size(type), parts = op == CLREDUCE_OP_MINMAX ? 2 : 1;
    if (!tc_is_float_type(type) ||
        (op != CLREDUCE_OP_MIN && op != CLREDUCE_OP_MAX && op != CLREDUCE_OP_MINMAX))
        return 0;
    for (size_t i = 0; i < parts; i++)
        if (memcmp(a + i * es, b + i * es, es) != 0 &&
            !(isnan(tc_get_double(type, a, i)) && isnan(tc_get_double(type, b, i))))
            return 0;
    return 1;
}

/* ---- data and layouts ------------------------------------------------------------- */

/* Random data for a set, in one of three modes: tc_fill_random (integers
 * near their limits, floats of mixed magnitudes; with a float MEAN_VAR, the
 * data its reference holds on: [-4, 4)), tc_op_fill's ([-4, 4), or 3 +
 * [-1, 1) with MEAN_VAR), or few values (integers in [-20, 20], 1 to 41
 * unsigned; floats their quarters): ties for min, max and their indices. */
static void fill_for_set(const clreduce_op *ops, size_t k, clreduce_type type, void *data,
                         size_t n, size_t mode)
{
    int mean_var = 0;
    for (size_t j = 0; j < k; j++)
        mean_var |= tc_is_float_type(type) && ops[j] == CLREDUCE_OP_MEAN_VAR;
    if (mode % 3 == 2) {
        int is_unsigned = type == CLREDUCE_UINT32 || type == CLREDUCE_UINT64;
        for (size_t i = 0; i < n; i++) {
            double v = (double)tc_rand_below(41) + (is_unsigned ? 1 : -20);
            tc_set_double(type, data, i, tc_is_float_type(type) ? v / 4 : v);
        }
    } else if (mean_var) {
        tc_op_fill(mode % 3 ? CLREDUCE_OP_MEAN_VAR : CLREDUCE_OP_SUM_SQUARES, type, data, n);
    } else if (mode % 3 == 0) {
        tc_fill_random(type, data, n);
    } else {
        tc_op_fill(CLREDUCE_OP_SUM_SQUARES, type, data, n);
    }
}

/* Element i of the input that no segment holds: a poison that changes min,
 * max or a sum if read, by turns (NaN for floats). */
static void poison_at(clreduce_type type, void *data, size_t i)
{
    static const clreduce_op poisons[] = {CLREDUCE_OP_MIN, CLREDUCE_OP_MAX, CLREDUCE_OP_SUM};
    tc_value p;
    tc_poison(poisons[i % 3], type, &p);
    tc_set(type, data, i, &p);
}

typedef enum layout_kind {
    LAYOUT_MIXED,     /* lengths of mixed_lengths, now and then a long one */
    LAYOUT_TINY,      /* 0 to 3 elements each */
    LAYOUT_HUGE_TINY, /* one segment of half the count among tiny ones */
    LAYOUT_MARGINS,   /* mixed, with elements before the first and after the last */
    LAYOUT_WHOLE,     /* one segment over the whole input */
    LAYOUT_EMPTY,     /* 200 empty segments in the middle of the input */
    LAYOUT_COUNT
} layout_kind;

static const char *const layout_names[] = {"mixed",   "tiny",        "huge among tiny",
                                           "margins", "whole input", "all empty"};

/* Segment lengths of the mixed layouts: empty ones often, single elements,
 * about a vector of a team's lanes, a few hundred, and a chunk's worth. */
static const size_t mixed_lengths[] = {0, 0, 0, 0, 1, 1, 2, 3, 31, 33, 64, 255, 257, 4097};

/* Fills offsets[0 .. segments] with a layout of `kind` within count
 * elements (count >= 16); returns segments. */
static size_t make_layout(layout_kind kind, size_t count, uint64_t *offsets)
{
    if (kind == LAYOUT_WHOLE || kind == LAYOUT_EMPTY) {
        size_t n = kind == LAYOUT_WHOLE ? 1 : 200;
        for (size_t i = 0; i <= n; i++)
            offsets[i] = kind == LAYOUT_EMPTY ? count / 2 : i ? count : 0;
        return n;
    }
    size_t s = 0, at = 0, end = count, huge_at = count / 8 < 1000 ? count / 8 : 1000;
    if (kind == LAYOUT_MARGINS) {
        at = 1 + tc_rand_below(count / 8);
        end = count - 1 - tc_rand_below(count / 8);
    }
    offsets[0] = at;
    int huge_done = 0;
    while (s + 1 < MAX_SEGMENTS) {
        size_t len;
        if (kind == LAYOUT_HUGE_TINY && !huge_done && at >= huge_at) {
            len = count / 2;
            huge_done = 1;
        } else if (kind == LAYOUT_TINY || kind == LAYOUT_HUGE_TINY) {
            len = tc_rand_below(4);
        } else if (tc_rand_below(25) == 0) {
            len = count / 16 + tc_rand_below(count / 8);
        } else {
            len = mixed_lengths[tc_rand_below(ARRAY_SIZE(mixed_lengths))];
        }
        if (at + len > end)
            break;
        at += len;
        offsets[++s] = at;
    }
    return s;
}

/* ---- one call and its checks -------------------------------------------------------- */

/* One call: its operators, layout and form. */
typedef struct seg_case {
    const clreduce_op *ops;
    size_t k;
    clreduce_type type;
    layout_kind layout;
    size_t count;          /* input elements the segments may reach */
    int wide;              /* 64-bit offsets, else 32-bit */
    int host;              /* the blocking form, else the enqueueing form */
    size_t offset;         /* enqueueing form: poisoned elements before the input */
    size_t offsets_offset; /* enqueueing form: poisoned offsets before offsets[0] */
    size_t result_offset;  /* enqueueing form: records before segment 0's */
    size_t mode;           /* data mode of fill_for_set */
} seg_case;

/* What a call wrote: nrec records of rs bytes, first filled with the
 * sentinel, of which [first, first + segments) are the call's; at[j]: where
 * ops[j]'s result lies in a record. */
typedef struct records {
    unsigned char *bytes;
    size_t rs, first, nrec, at[CLREDUCE_MULTI_MAX];
} records;

/* A fresh layout of c on fresh data, every element of data[0 .. count)
 * that no segment holds poisoned; returns segments. */
static size_t prepare(const seg_case *c, void *data, uint64_t *offsets)
{
    size_t segments = make_layout(c->layout, c->count, offsets);
    fill_for_set(c->ops, c->k, c->type, data, c->count, c->mode);
    for (size_t i = 0; i < c->count; i++)
        if (i < offsets[0] || i >= offsets[segments])
            poison_at(c->type, data, i);
    return segments;
}

/* Runs c's call into sentinel-filled records (out->bytes, malloc'd): the
 * host form on data itself, the enqueueing form on copies between poison,
 * its records read on another queue behind its done event alone (one that
 * completes too early shows there). Returns the call's status. */
static clreduce_status call_segments(const seg_case *c, const void *data,
                                     const uint64_t *offsets, size_t segments, records *out)
{
    clreduce_type type = c->type, ot = c->wide ? CLREDUCE_UINT64 : CLREDUCE_UINT32;
    size_t es = tc_elem_size(type), os = c->wide ? 8 : 4;
    size_t oo = c->host ? 0 : c->offsets_offset, ototal = oo + segments + 3;
    unsigned char *offs = malloc(ototal * os);
    assert_non_null(offs);
    for (size_t i = 0; i < ototal; i++) {
        uint64_t v = i >= oo && i - oo <= segments ? offsets[i - oo] : OFFSETS_POISON;
        uint32_t v32 = (uint32_t)v;
        memcpy(offs + i * os, c->wide ? (const void *)&v : (const void *)&v32, os);
    }
    out->rs = clreduce_multi_record(c->ops, c->k, type, out->at);
    assert_true(out->rs > 0);
    out->first = c->host ? 1 : c->result_offset;
    out->nrec = out->first + segments + 1;
    size_t bytes = out->nrec * out->rs;
    out->bytes = malloc(bytes);
    assert_non_null(out->bytes);
    memset(out->bytes, TC_SENTINEL_BYTE, bytes);
    clreduce_status st;
    if (c->host) {
        st = clreduce_reduce_segments_multi_host(g_ctx, c->ops, c->k, type, data, c->count, offs,
                                                 ot, segments, out->bytes + out->rs);
    } else {
        size_t total = c->offset + c->count + 3;
        unsigned char *host = malloc(total * es);
        assert_non_null(host);
        for (size_t i = 0; i < total; i++)
            poison_at(type, host, i);
        if (c->count)
            memcpy(host + c->offset * es, data, c->count * es);
        cl_mem in = tc_make_buffer(g_ctx, total * es, host);
        cl_mem ob = tc_make_buffer(g_ctx, ototal * os, offs);
        cl_mem res = tc_make_buffer(g_ctx, bytes, out->bytes);
        cl_event done = TC_EVENT_SENTINEL;
        st = clreduce_reduce_segments_multi(g_ctx, g_queue, c->ops, c->k, type, in, c->offset,
                                            c->count, ob, oo, ot, segments, res, out->first,
                                            0, NULL, &done);
        assert_true(st == CLREDUCE_SUCCESS ? done != TC_EVENT_SENTINEL && done != NULL
                                           : done == TC_EVENT_SENTINEL);
        if (st == CLREDUCE_SUCCESS) {
            tc_read_buffer(g_read_queue, res, out->bytes, bytes, 1, &done);
            clReleaseEvent(done);
        }
        clReleaseMemObject(in);
        clReleaseMemObject(ob);
        clReleaseMemObject(res);
        free(host);
    }
    free(offs);
    return st;
}

/* Checks c's records: nothing written outside them; every result against
 * the reference of its segment alone (but the sums of segments marked
 * special); an empty segment's the bits of each operator's alone. */
static void check_records(tc_suite *s, const char *what, const seg_case *c, const void *data,
                          const uint64_t *offsets, size_t segments, const records *out,
                          const unsigned char *special)
{
    clreduce_type type = c->type;
    size_t es = tc_elem_size(type), rs = out->rs;
    for (size_t i = 0; i < out->nrec * rs; i++)
        if ((i < out->first * rs || i >= (out->first + segments) * rs) &&
            out->bytes[i] != TC_SENTINEL_BYTE) {
            tc_ops_report(s, "%s: byte %zu outside the records written (records [%zu, %zu) of "
                          "%zu bytes)", what, i, out->first, out->first + segments, rs);
            break;
        }
    /* Each operator's result on an empty segment, alone. */
    static const uint64_t empty_offsets[3] = {0, 0, 1};
    static const unsigned char one[8];
    unsigned char empty[CLREDUCE_MULTI_MAX][2 * RESULT_MAX];
    for (size_t j = 0; j < c->k; j++)
        assert_int_equal(clreduce_reduce_segments_host(g_ctx, c->ops[j], type, one, 1,
                                                       empty_offsets, CLREDUCE_UINT64, 2,
                                                       empty[j]),
                         CLREDUCE_SUCCESS);
    clreduce_settings t;
    assert_int_equal(clreduce_get_operators_tuning(g_ctx, c->ops, c->k, type, &t),
                     CLREDUCE_SUCCESS);
    size_t wrong = 0;
    char why[512], first_wrong[768] = "";
    for (size_t i = 0; i < segments; i++) {
        size_t start = (size_t)offsets[i], n = (size_t)(offsets[i + 1] - offsets[i]);
        const unsigned char *rec = out->bytes + (out->first + i) * rs;
        for (size_t j = 0; j < c->k; j++) {
            clreduce_op op = c->ops[j];
            const unsigned char *got = rec + out->at[j];
            if (special && special[i] && !is_selection(op))
                continue;
            int ok = check_result(op, type, (const unsigned char *)data + start * es, n, got, &t,
                                  why, sizeof why);
            if (ok && n == 0 && memcmp(got, empty[j], clreduce_result_size(op, type)) != 0) {
                snprintf(why, sizeof why, "not the bits of its result of no element alone");
                ok = 0;
            }
            if (!ok && wrong++ == 0)
                snprintf(first_wrong, sizeof first_wrong, "segment %zu (elements [%zu, %zu)), "
                         "%s: %s", i, start, start + n, clreduce_op_name(op), why);
        }
    }
    if (wrong)
        tc_ops_report(s, "%s: %zu results wrong, the first %s", what, wrong, first_wrong);
}

/* Runs c's call on data and offsets laid out by `prepare` and checks its
 * records (check_records); returns them, bytes NULL when the call failed,
 * with the case described in what[512]. */
static records run_prepared(tc_suite *s, const seg_case *c, const void *data,
                            const uint64_t *offsets, size_t segments,
                            const unsigned char *special, char *what)
{
    char names[160];
    snprintf(what, 512, "%s on %s, %s form, layout %s: count=%zu segments=%zu offsets=%s "
             "offset=%zu offsets_offset=%zu result_offset=%zu mode=%zu case=%zu",
             set_name(c->ops, c->k, names, sizeof names), clreduce_type_name(c->type),
             c->host ? "host" : "enqueueing", layout_names[c->layout], c->count, segments,
             c->wide ? "uint64" : "uint32", c->host ? 0 : c->offset,
             c->host ? 0 : c->offsets_offset, c->host ? 1 : c->result_offset, c->mode % 3,
             s->cases++);
    records out;
    clreduce_status st = call_segments(c, data, offsets, segments, &out);
    if (st == CLREDUCE_SUCCESS) {
        check_records(s, what, c, data, offsets, segments, &out, special);
        return out;
    }
    tc_ops_report(s, "%s: %s (%s)", what, clreduce_status_string(st), clreduce_last_error(g_ctx));
    free(out.bytes);
    out.bytes = NULL;
    return out;
}

/* ---- tests ---------------------------------------------------------------------------- */

/* Every type with every operator it takes at once, {SUM, MIN, MAX,
 * ARGMAX}, one operator alone ({SUM} or {ARGMAX}, by turns) and {MEAN_VAR,
 * ARGMIN} (floats): the first set on every layout of 4099 and 65537
 * elements, the others on the mixed, margins and huge-among-tiny layouts
 * of 20011; 32- and 64-bit offsets by turns of set and type (each program
 * a slow build); by turns the host and the enqueueing form, input offsets
 * 1 to 3, offsets at 1 or 2, records from 1 or 2, the data modes. */
static void test_layouts(void **state)
{
    (void)state;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "layouts");
    char what[512];
    static const clreduce_op four[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_MAX,
                                       CLREDUCE_OP_ARGMAX};
    static const clreduce_op single[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_ARGMAX};
    static const clreduce_op mean_var_argmin[] = {CLREDUCE_OP_MEAN_VAR, CLREDUCE_OP_ARGMIN};
    void *data = malloc(65537 * 8);
    uint64_t *offsets = malloc((MAX_SEGMENTS + 1) * sizeof *offsets);
    assert_true(data && offsets);
    for (tc_type_ops t = {0}; tc_next_type_ops(g_ctx, &t, ARRAY_SIZE(tc_all_types)); t.index++) {
        const struct {
            const clreduce_op *ops;
            size_t k;
        } sets[] = {{t.ops, t.k}, {four, 4}, {&single[t.index % 2], 1},
                    {mean_var_argmin, tc_is_float_type(t.type) ? 2 : 0}};
        for (size_t si = 0; si < ARRAY_SIZE(sets); si++) {
            for (int kind = 0; kind < LAYOUT_COUNT && sets[si].k; kind++) {
                if (si > 0 && (kind == LAYOUT_TINY || kind >= LAYOUT_WHOLE))
                    continue;
                for (size_t ci = 0; ci < (si ? 1u : 2u); ci++) {
                    size_t k = s.cases, count = si ? 20011 : ci ? 65537 : 4099;
                    seg_case c = {sets[si].ops, sets[si].k, t.type, (layout_kind)kind, count,
                                  (int)(si + t.index) % 2, k % 2 == 1, 1 + k % 3,
                                  1 + (k / 2) % 2,
                                  1 + (k / 3) % 2, k % 3};
                    size_t segments = prepare(&c, data, offsets);
                    free(run_prepared(&s, &c, data, offsets, segments, NULL, what).bytes);
                }
            }
        }
    }
    free(data);
    free(offsets);
    tc_ops_finish_suite(&s);
}

/* Sum, min, max and argmax of the 8-byte types on every layout of 4099
 * elements in a context that reads an element at a time (a vector width
 * of 1), as NVIDIA GPUs read several operators of those types over
 * segments (src/tuning.c), where other devices read vectors; 32- and
 * 64-bit offsets, the two forms, offsets and data modes by turns. */
static void test_layouts_scalar(void **state)
{
    (void)state;
    static const clreduce_op four[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_MAX,
                                       CLREDUCE_OP_ARGMAX};
    static const clreduce_type wide[] = {CLREDUCE_DOUBLE, CLREDUCE_INT64, CLREDUCE_UINT64};
    clreduce_settings settings;
    clreduce_default_settings(&settings);
    settings.vector_width = 1;
    clreduce_ctx *base = g_ctx, *scalar = tc_context_like(base, &settings);
    g_ctx = scalar;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "layouts_scalar");
    char what[512];
    void *data = malloc(4099 * 8);
    uint64_t *offsets = malloc((MAX_SEGMENTS + 1) * sizeof *offsets);
    assert_true(data && offsets);
    for (size_t ti = 0; ti < ARRAY_SIZE(wide); ti++) {
        if (!tc_type_supported(g_ctx, wide[ti]))
            continue;
        for (int kind = 0; kind < LAYOUT_COUNT; kind++) {
            size_t k = s.cases;
            seg_case c = {four, 4, wide[ti], (layout_kind)kind, 4099, (int)k % 2, k % 3 == 1,
                          1 + k % 3, 1 + (k / 2) % 2, 1 + (k / 3) % 2, k % 3};
            size_t segments = prepare(&c, data, offsets);
            free(run_prepared(&s, &c, data, offsets, segments, NULL, what).bytes);
        }
    }
    free(data);
    free(offsets);
    g_ctx = base;
    clreduce_destroy(scalar);
    tc_ops_finish_suite(&s);
}

/* 2^20 + 7 elements: float sum, min, max and argmax with a segment of 2^19
 * + 3 among tiny ones, its maximum and minimum planted twice (the first must
 * win), both forms; every operator of double (float without fp64), and
 * uint32's four of few values, on the mixed layout's long segments. */
static void test_long_segments(void **state)
{
    (void)state;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "long_segments");
    char what[512];
    static const clreduce_op four[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_MAX,
                                       CLREDUCE_OP_ARGMAX};
    const size_t n = TC_LARGE_COUNT;
    void *data = malloc(n * 8);
    uint64_t *offsets = malloc((MAX_SEGMENTS + 1) * sizeof *offsets);
    assert_true(data && offsets);
    for (int host = 0; host < 2; host++) {
        seg_case c = {four, 4, CLREDUCE_FLOAT, LAYOUT_HUGE_TINY, n, 1, host, 2, 1, 1, 0};
        size_t segments = prepare(&c, data, offsets), l = 0, len = n / 2;
        while (offsets[l + 1] - offsets[l] != len)
            l++;
        float *seg = (float *)data + offsets[l], top = 0;
        for (size_t i = 0; i < len; i++)
            top = fabsf(seg[i]) > top ? fabsf(seg[i]) : top;
        size_t p = len / 2 + tc_rand_below(len / 4), q = p + 1 + tc_rand_below(len - p - 1);
        seg[p] = seg[q] = 2 * top + 1;
        seg[tc_rand_below(len / 2)] = seg[len - 1] = -(2 * top + 1);
        free(run_prepared(&s, &c, data, offsets, segments, NULL, what).bytes);
    }
    clreduce_type d = tc_type_supported(g_ctx, CLREDUCE_DOUBLE) ? CLREDUCE_DOUBLE : CLREDUCE_FLOAT;
    seg_case all = {tc_one_input_ops, 10, d, LAYOUT_MIXED, n, d == CLREDUCE_DOUBLE, 0, 3, 2, 2, 0};
    seg_case few = {four, 4, CLREDUCE_UINT32, LAYOUT_MIXED, n, 0, 1, 0, 0, 0, 2};
    size_t segments = prepare(&all, data, offsets);
    free(run_prepared(&s, &all, data, offsets, segments, NULL, what).bytes);
    segments = prepare(&few, data, offsets);
    free(run_prepared(&s, &few, data, offsets, segments, NULL, what).bytes);
    free(data);
    free(offsets);
    tc_ops_finish_suite(&s);
}

/* Puts NaN, infinities of both signs or zeros of both signs only into the
 * segments of floats by turns; special[i] says which hold NaN or an
 * infinity. */
static void plant_specials(clreduce_type type, void *data, const uint64_t *offsets,
                           size_t segments, unsigned char *special)
{
    for (size_t i = 0; i < segments; i++) {
        size_t b = (size_t)offsets[i], n = (size_t)(offsets[i + 1] - offsets[i]);
        special[i] = n > 0 && i % 4 < 2;
        if (special[i])
            tc_set_double(type, data, b + tc_rand_below(n), i % 4 ? INFINITY : NAN);
        if (special[i] && i % 4 == 1)
            tc_set_double(type, data, b, -(double)INFINITY);
        for (size_t e = 0; e < n && i % 4 == 2; e++)
            tc_set_double(type, data, b + e, (tc_rand64() & 1) ? -0.0 : 0.0);
    }
}

/* Every type with every operator it takes (32- or 64-bit offsets, as in the
 * layouts test), on the mixed layout of 40009 elements of few values (host
 * form) and huge among tiny of 100003 random ones (enqueueing form; NaN,
 * infinities and signed zeros): each result must have the bits of
 * clreduce_reduce_segments_host with its operator alone (a NaN min or max
 * of floats any NaN), float sums pass the reference instead (but with NaN
 * or infinities); the same call again must give the same bytes. */
static void test_against_alone(void **state)
{
    (void)state;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "against_alone");
    void *data = malloc(100003 * 8);
    uint64_t *offsets = malloc((MAX_SEGMENTS + 1) * sizeof *offsets);
    unsigned char *alone = malloc(MAX_SEGMENTS * RESULT_MAX), *special = malloc(MAX_SEGMENTS);
    assert_true(data && offsets && alone && special);
    for (tc_type_ops t = {0}; tc_next_type_ops(g_ctx, &t, ARRAY_SIZE(tc_all_types)); t.index++) {
        for (int si = 0; si < 2; si++) {
            seg_case c = {t.ops, t.k, t.type, si ? LAYOUT_HUGE_TINY : LAYOUT_MIXED,
                          si ? 100003 : 40009, (int)t.index % 2, !si, 2, 1, 1, si ? 0 : 2};
            size_t segments = prepare(&c, data, offsets);
            memset(special, 0, MAX_SEGMENTS);
            if (si && tc_is_float_type(t.type))
                plant_specials(t.type, data, offsets, segments, special);
            char what[512];
            records again, out = run_prepared(&s, &c, data, offsets, segments, special, what);
            if (!out.bytes)
                continue;
            clreduce_status st = call_segments(&c, data, offsets, segments, &again);
            if (st != CLREDUCE_SUCCESS) {
                tc_ops_report(&s, "%s: called again: %s (%s)", what, clreduce_status_string(st),
                              clreduce_last_error(g_ctx));
                segments = 0;
            }
            for (size_t j = 0; j < t.k && segments; j++) {
                clreduce_op op = t.ops[j];
                size_t size = clreduce_result_size(op, t.type);
                int exact = !tc_is_float_type(t.type) || is_selection(op);
                if (exact && (st = clreduce_reduce_segments_host(g_ctx, op, t.type, data, c.count,
                                                                 offsets, CLREDUCE_UINT64,
                                                                 segments, alone)) !=
                                 CLREDUCE_SUCCESS) {
                    tc_ops_report(&s, "%s: %s alone: %s (%s)", what, clreduce_op_name(op),
                                  clreduce_status_string(st), clreduce_last_error(g_ctx));
                    continue;
                }
                for (size_t i = 0; i < segments; i++) {
                    size_t at = (out.first + i) * out.rs + out.at[j];
                    const unsigned char *got = out.bytes + at, *want = alone + i * size;
                    if (memcmp(got, again.bytes + at, size) != 0) {
                        tc_ops_report(&s, "%s: segment %zu, %s differs from one call to the "
                                      "next", what, i, clreduce_op_name(op));
                        break;
                    }
                    if (!exact || memcmp(got, want, size) == 0 ||
                        same_but_nan(op, t.type, got, want))
                        continue;
                    uint64_t g[3] = {0, 0, 0}, a[3] = {0, 0, 0}; /* little-endian words */
                    memcpy(g, got, size);
                    memcpy(a, want, size);
                    tc_ops_report(&s, "%s: segment %zu, %s gave %llx:%llx, alone %llx:%llx", what,
                                  i, clreduce_op_name(op), (unsigned long long)g[0],
                                  (unsigned long long)g[1], (unsigned long long)a[0],
                                  (unsigned long long)a[1]);
                    break;
                }
            }
            free(out.bytes);
            free(again.bytes);
        }
    }
    free(data);
    free(offsets);
    free(alone);
    free(special);
    tc_ops_finish_suite(&s);
}

/* count 0 (5 segments) and no segments, every type with every operator it
 * takes, both forms: each result that of no element (check_records); no
 * segments succeeds, with a done event, and writes nothing. */
static void test_empty(void **state)
{
    (void)state;
    tc_suite s = {g_ctx, "empty", 0, 0};
    char what[512];
    static const uint64_t zeros[6] = {0};
    static const unsigned char dummy[8];
    for (tc_type_ops t = {0}; tc_next_type_ops(g_ctx, &t, ARRAY_SIZE(tc_all_types)); t.index++)
        for (int form = 0; form < 4; form++) {
            seg_case c = {t.ops, t.k, t.type, LAYOUT_EMPTY, 0, form % 2, form % 2, 3, 1, 2, 0};
            free(run_prepared(&s, &c, dummy, zeros, form < 2 ? 5 : 0, NULL, what).bytes);
        }
    tc_ops_finish_suite(&s);
}

/* Bad arguments: refused with their status and a message, nothing
 * enqueued, built or written; the limits themselves accepted. */
static void test_errors(void **state)
{
    (void)state;
    tc_guarded g = tc_ops_guarded(g_ctx, g_queue); /* 64 floats, 64 bytes */
    const clreduce_op three[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MAX, CLREDUCE_OP_ARGMAX};
    const clreduce_op eleven[11] = {CLREDUCE_OP_SUM};
    const clreduce_op twice[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_SUM};
    const clreduce_op with_dot[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_DOT};
    const clreduce_op mean_var[] = {CLREDUCE_OP_MIN, CLREDUCE_OP_MEAN_VAR};
    const clreduce_type f = CLREDUCE_FLOAT, u32 = CLREDUCE_UINT32, u64 = CLREDUCE_UINT64;
    const clreduce_status bad = CLREDUCE_ERROR_INVALID_ARGUMENT;
    /* three on float: records of 24 bytes, two fit the 64 bytes of g.output. */
    assert_int_equal(clreduce_multi_record(three, 3, f, NULL), 24);
    const uint32_t offs[12] = {0, 5, 9, 9, 20, 33, 40, 50, 60, 64, 64, 64};
    cl_mem ob = tc_make_buffer(g_ctx, sizeof offs, offs);

#define SEG(ops, k, type, input, offset, count, offsets, ooff, otype, segments, result, roff)  \
    clreduce_reduce_segments_multi(g_ctx, g_queue, ops, k, type, input, offset, count, offsets, \
                                   ooff, otype, segments, result, roff, 0, NULL, &done)
#define FAILS(what, want, words, call) TC_EXPECT_FAILURE(&g, g_ctx, what, want, g_ctx, words, call)
    FAILS("NULL ops", bad, WORDS("ops"),
          SEG(NULL, 3, f, g.input, 0, 64, ob, 0, u32, 2, g.output, 0));
    FAILS("no operator", bad, WORDS("num_ops", "0"),
          SEG(three, 0, f, g.input, 0, 64, ob, 0, u32, 2, g.output, 0));
    FAILS("eleven operators", bad, WORDS("num_ops", "11"),
          SEG(eleven, 11, f, g.input, 0, 64, ob, 0, u32, 2, g.output, 0));
    FAILS("an operator twice", bad, WORDS("sum"),
          SEG(twice, 3, f, g.input, 0, 64, ob, 0, u32, 2, g.output, 0));
    FAILS("dot", bad, WORDS("dot"),
          SEG(with_dot, 2, f, g.input, 0, 64, ob, 0, u32, 2, g.output, 0));
    FAILS("mean_var of int32", CLREDUCE_ERROR_UNSUPPORTED, WORDS("mean_var", "int32"),
          SEG(mean_var, 2, CLREDUCE_INT32, g.input, 0, 64, ob, 0, u32, 2, g.output, 0));
    FAILS("NULL offsets", bad, WORDS("offsets", "NULL"),
          SEG(three, 3, f, g.input, 0, 64, NULL, 0, u32, 2, g.output, 0));
    FAILS("offsets of type float", bad, WORDS("offsets_type"),
          SEG(three, 3, f, g.input, 0, 64, ob, 0, f, 2, g.output, 0));
    FAILS("offsets past their buffer", bad, WORDS("offsets"),
          SEG(three, 3, f, g.input, 0, 64, ob, 11, u32, 1, g.output, 0));
    FAILS("64-bit offsets past their buffer", bad, WORDS("offsets"),
          SEG(three, 3, f, g.input, 0, 64, ob, 5, u64, 1, g.output, 0));
    FAILS("count past the input", bad, WORDS("input"),
          SEG(three, 3, f, g.input, 1, 64, ob, 0, u32, 2, g.output, 0));
    FAILS("records past the result", bad, WORDS("result"),
          SEG(three, 3, f, g.input, 0, 64, ob, 0, u32, 3, g.output, 0));
    FAILS("records from result_offset 1 past the result", bad, WORDS("result"),
          SEG(three, 3, f, g.input, 0, 64, ob, 0, u32, 2, g.output, 1));
    /* The input range is elements [10, 30) of g.input, bytes [40, 120):
     * record 1, bytes [24, 48), reaches into it. */
    FAILS("a record overlapping the input", bad, WORDS("overlap"),
          SEG(three, 3, f, g.input, 10, 20, ob, 0, u32, 1, g.input, 1));
    FAILS("records overlapping the offsets", bad, WORDS("offsets", "overlap"),
          SEG(three, 3, f, g.input, 0, 64, g.output, 0, u32, 2, g.output, 0));
#undef FAILS
    tc_release_guarded(&g);
    tc_check_buffer_unchanged(g_queue, ob, offs, sizeof offs);

    /* The limit: records right after the input range in its own buffer. */
    float input[64], back[16];
    for (size_t i = 0; i < 64; i++)
        input[i] = (float)i - 20.5f;
    cl_mem in = tc_make_buffer(g_ctx, sizeof input, input);
    cl_event done = NULL;
    assert_int_equal(SEG(three, 3, f, in, 10, 20, ob, 0, u32, 2, in, 5), CLREDUCE_SUCCESS);
#undef SEG
    tc_read_buffer(g_queue, in, input, sizeof input, 1, &done);
    clReleaseEvent(done);
    clReleaseMemObject(in);
    clReleaseMemObject(ob);
    memcpy(back, input + 30, sizeof back); /* the records of [10, 15) and [15, 19) */
    assert_true(back[0] == -42.5f && back[1] == -6.5f && back[6] == -16.0f && back[7] == -2.5f);
    clreduce_arg_float amax;
    memcpy(&amax, back + 8, sizeof amax);
    assert_true(amax.index == 3 && amax.value == -2.5f);
    for (size_t i = 0; i < 30; i++)
        assert_true(input[i] == (float)i - 20.5f);

    /* The host form: its checks of the offsets too, the results untouched. */
    unsigned char res[3 * 24];
    memset(res, TC_SENTINEL_BYTE, sizeof res);
    const uint32_t decreasing[] = {0, 5, 9, 4, 10};
    const uint64_t past[] = {0, 5, 65};
#define HOST_FAILS(what, want, words, ops, k, type, data, offsets, otype, segments, results)     \
    tc_check_status_and_message("host: " what,                                                  \
                                clreduce_reduce_segments_multi_host(g_ctx, ops, k, type, data,  \
                                                                    64, offsets, otype,         \
                                                                    segments, results),         \
                                want, g_ctx, words)
    HOST_FAILS("decreasing offsets", bad, WORDS("offsets[3]", "decrease"), three, 3, f, input,
               decreasing, u32, 4, res);
    HOST_FAILS("offsets past count", bad, WORDS("offsets[2]", "count"), three, 3, f, input, past,
               u64, 2, res);
    HOST_FAILS("NULL offsets", bad, WORDS("offsets"), three, 3, f, input, NULL, u32, 2, res);
    HOST_FAILS("offsets of type float", bad, WORDS("offsets_type"), three, 3, f, input, offs, f,
               2, res);
    HOST_FAILS("NULL results", bad, WORDS("result"), three, 3, f, input, offs, u32, 2, NULL);
    HOST_FAILS("NULL data", bad, WORDS("data"), three, 3, f, NULL, offs, u32, 2, res);
    HOST_FAILS("an operator twice", bad, WORDS("sum"), twice, 3, f, input, offs, u32, 2, res);
    HOST_FAILS("dot", bad, WORDS("dot"), with_dot, 2, f, input, offs, u32, 2, res);
    HOST_FAILS("no operator", bad, WORDS("num_ops"), three, 0, f, input, offs, u32, 2, res);
    HOST_FAILS("eleven operators", bad, WORDS("num_ops"), eleven, 11, f, input, offs, u32, 2,
               res);
    HOST_FAILS("mean_var of int32", CLREDUCE_ERROR_UNSUPPORTED, WORDS("mean_var", "int32"),
               mean_var, 2, CLREDUCE_INT32, input, offs, u32, 2, res);
#undef HOST_FAILS
    tc_check_status_and_message("NULL ctx",
                                clreduce_reduce_segments_multi_host(NULL, three, 3, f, input, 64,
                                                                    offs, u32, 2, res),
                                bad, NULL, WORDS("ctx"));
    for (size_t i = 0; i < sizeof res; i++)
        assert_int_equal(res[i], TC_SENTINEL_BYTE);
}

int main(void)
{
    g_ctx = tc_start("unit.segments_multi", &g_queue, &g_read_queue, NULL);
    struct CMUnitTest tests[8];
    size_t nt = 0;
    tc_add_test(tests, &nt, "errors", test_errors, NULL);
    tc_add_test(tests, &nt, "empty", test_empty, NULL);
    tc_add_test(tests, &nt, "long_segments", test_long_segments, NULL);
    tc_add_test(tests, &nt, "against_alone", test_against_alone, NULL);
    tc_add_test(tests, &nt, "layouts", test_layouts, NULL);
    tc_add_test(tests, &nt, "layouts_scalar", test_layouts_scalar, NULL);
    int failed = tc_run_tests("unit.segments_multi", tests, nt);
    return tc_finish(g_ctx, failed, g_queue, g_read_queue, NULL);
}
