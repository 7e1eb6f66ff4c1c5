/* unit.scan: inclusive and exclusive prefix scans, every variant, operator
 * and type, against a CPU reference on fresh random data at awkward sizes;
 * input and output at offsets between poisoned and sentinel elements, in
 * separate buffers, in one buffer and in place, the input uploaded behind a
 * wait list one time in two; special values; count 0; determinism and
 * repeated look-back runs; clreduce_scan_host. Bad input is in
 * unit.scan_errors, events and queues in unit.events.
 *
 * CLREDUCE_TEST_SEED=n repeats a run's random data; CLREDUCE_TEST_FILTER=glob
 * runs only the matching tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"

#define MAX_REPORTS 25

/* 3 * 2^20 + 1: many more tiles than TC_LARGE_COUNT, for the look-back. */
#define HUGE_COUNT ((size_t)3145729)

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;        /* in-order: the scans run here */
static cl_command_queue g_upload_queue; /* inputs are uploaded here, behind events */
static cl_command_queue g_read_queue;   /* results are read here, behind `done` only */

static const size_t all_sizes[] = {1, 31, 32, 33, 255, 257, 1000, 4097, 65539, TC_LARGE_COUNT};
static const size_t in_place_sizes[] = {1, 33, 4097, 65539};
static const size_t special_sizes[] = {1, 2, 33, 257, 4097, 65539};
static const clreduce_scan_kind all_kinds[] = {CLREDUCE_INCLUSIVE, CLREDUCE_EXCLUSIVE};

/* ---- cases: where their ranges lie, what a failure prints (tc_run_scan runs them) */

/* Offsets vary from case to case, never zero and never equal for input and
 * output; one case in two uses a wait list, uploading on another queue. */
static tc_scan_layout layout_for(size_t k, tc_placement where)
{
    tc_scan_layout l;
    l.where = where;
    l.lead = (k & 1) ? 5 : 3;
    l.out_lead = 1 + (k >> 1) % 3 + ((k >> 1) % 3 == 2); /* 1, 2 or 4 */
    l.gap = ((k >> 2) & 1) ? 0 : 7;                      /* 0: the ranges touch */
    l.tail = (k % 3) ? 17 : 0;
    l.use_wait_list = (int)((k >> 1) & 1);
    l.upload_queue = g_upload_queue;
    l.read_queue = g_read_queue;
    return l;
}

/* Rotates over the placements with TC_SEPARATE in every other case. */
static tc_placement placement_for(size_t k)
{
    static const tc_placement order[] = {TC_SEPARATE, TC_OUTPUT_AFTER, TC_SEPARATE,
                                         TC_OUTPUT_BEFORE};
    return order[k % 4];
}

typedef struct scan_case {
    clreduce_ctx *ctx;
    cl_command_queue queue;
    clreduce_op op;
    clreduce_type type;
    clreduce_scan_kind kind;
    clreduce_scan_variant variant;
    size_t n;
    const void *data; /* the input range */
    tc_scan_layout layout;
    const char *tag;  /* what the data is, in messages */
} scan_case;

static int run_case(const scan_case *c, tc_scan_run *r)
{
    return tc_run_scan(c->ctx, c->queue, c->op, c->type, c->kind, c->variant, c->data, c->n,
                       &c->layout, r);
}

/* Prints what went wrong in one case. */
static void report(const char *label, const scan_case *c, const tc_scan_run *r)
{
    char vname[64];
    const char *msg = r->status == CLREDUCE_SUCCESS ? "" : clreduce_last_error(c->ctx);
    tc_scan_variant_label(c->ctx, c->variant, c->type, vname, sizeof vname);
    char where[640] = "";
    if (r->status != CLREDUCE_SUCCESS)
        snprintf(where, sizeof where, "status %s: %s", clreduce_status_string(r->status), msg);
    else if (r->range_checked && r->mismatch.wrong)
        tc_format_scan_mismatch(c->op, c->type, &r->mismatch, where, sizeof where);
    char outside[160] = "";
    if (r->outside_changed)
        snprintf(outside, sizeof outside,
                 "; %zu element(s) outside the output range changed, the first at element %zu "
                 "of the %s buffer",
                 r->outside_changed, r->first_changed,
                 r->changed_in_input ? "input" : "output");
    print_error("FAILED [%s] %s: variant=%s kind=%s op=%s type=%s size=%zu layout=%s "
                "input_offset=%zu output_offset=%zu wait_list=%d seed=%" PRIu64 ": %s%s%s%s\n",
                label, c->tag, vname, tc_scan_kind_name(c->kind), tc_op_name(c->op),
                tc_type_name(c->type), c->n, tc_placement_name(c->layout.where), r->in_off,
                r->out_off, c->layout.use_wait_list, tc_seed(), where, outside,
                r->problem[0] ? "; " : "", r->problem);
}

/* Runs one case; its layout comes from the suite's case counter. */
static int check_case(tc_suite *s, const char *tag, clreduce_op op, clreduce_type type,
                      clreduce_scan_kind kind, clreduce_scan_variant v, const void *data, size_t n,
                      int in_place)
{
    size_t k = s->cases++;
    scan_case c = {s->ctx, g_queue, op, type, kind, v, n, data,
                   layout_for(k, in_place ? TC_IN_PLACE : placement_for(k)), tag};
    tc_scan_run r;
    int ok = run_case(&c, &r);
    if (!ok && ++s->failures <= MAX_REPORTS)
        report(s->label, &c, &r);
    free(r.output);
    return ok;
}

/* A combination check_scan_support calls unsupported must be refused by
 * clreduce_scan too, with nothing written and no event. */
static void check_unsupported(tc_suite *s, clreduce_op op, clreduce_type type,
                              clreduce_scan_variant v, void *data)
{
    const size_t n = 1000;
    tc_fill_mode(op, type, TC_DATA_FULL, data, n);
    size_t k = s->cases++;
    scan_case c = {s->ctx, g_queue, op, type, CLREDUCE_INCLUSIVE, v, n, data,
                   layout_for(k, TC_SEPARATE), "unsupported"};
    tc_scan_run r;
    run_case(&c, &r);
    const char *msg = clreduce_last_error(s->ctx);
    if (r.status != CLREDUCE_ERROR_UNSUPPORTED || r.outside_changed || r.problem[0] || !msg[0]) {
        s->failures++;
        print_error("FAILED [%s] variant=%s op=%s type=%s: check_scan_support says unsupported, "
                    "clreduce_scan returned %s (\"%s\")%s %s\n",
                    s->label, tc_scan_variant_name(v), tc_op_name(op), tc_type_name(type),
                    clreduce_status_string(r.status), msg,
                    r.outside_changed ? "; buffers written" : "", r.problem);
    }
    free(r.output);
}

/* ---- special floating-point values -------------------------------------------- */

/* Writes at data[i] the NaN `which` (mod 6) of a list of both signs and
 * several payloads: among them the bits of a NaN's key in the tiled scans
 * (all ones, with either sign) and a signalling NaN. */
static void set_nan_bits(clreduce_type type, void *data, size_t i, size_t which)
{
    static const uint32_t f[] = {0x7fffffffu, 0xffffffffu, 0xffc00000u,
                                 0x7f800001u, 0xff812345u, 0x7fc00001u};
    static const uint64_t d[] = {0x7fffffffffffffffu, 0xffffffffffffffffu,
                                 0xfff8000000000000u, 0x7ff0000000000001u,
                                 0xfff0000000abcdefu, 0x7ff8000000000001u};
    tc_value v;
    memset(&v, 0, sizeof v);
    if (type == CLREDUCE_FLOAT)
        v.u32 = f[which % ARRAY_SIZE(f)];
    else
        v.u64 = d[which % ARRAY_SIZE(d)];
    tc_set(type, data, i, &v);
}

/* NaN, infinities and signed zeros in min and max, and infinities in sums,
 * for one floating-point type, both kinds. */
static void special_cases(tc_suite *s, clreduce_scan_variant v, clreduce_type type, void *data)
{
    for (size_t oi = 1; oi < ARRAY_SIZE(tc_all_ops); oi++) {
        clreduce_op op = tc_all_ops[oi];
        if (clreduce_check_scan_support(s->ctx, op, type, v) != CLREDUCE_SUCCESS)
            continue;
        for (size_t si = 0; si < ARRAY_SIZE(special_sizes); si++) {
            size_t n = special_sizes[si];
            for (size_t ki = 0; ki < ARRAY_SIZE(all_kinds); ki++) {
                clreduce_scan_kind kind = all_kinds[ki];
                tc_fill_mode(op, type, tc_mode_for(op, si + ki), data, n);
                size_t nans = 1 + tc_rand_below(3);
                for (size_t j = 0; j < nans; j++)
                    tc_set_double(type, data, tc_rand_below(n), (double)NAN);
                check_case(s, "NaN at random positions", op, type, kind, v, data, n, 0);
                if (n >= 2) {
                    tc_fill_mode(op, type, TC_DATA_RECORDS, data, n);
                    tc_set_double(type, data, n / 2 + tc_rand_below(n - n / 2), (double)NAN);
                    check_case(s, "NaN in the second half", op, type, kind, v, data, n, 0);
                    tc_fill_mode(op, type, TC_DATA_UNIFORM, data, n);
                    tc_set_double(type, data, 0, (double)NAN);
                    check_case(s, "NaN first", op, type, kind, v, data, n, 0);
                    tc_fill_mode(op, type, TC_DATA_RECORDS, data, n);
                    tc_set_double(type, data, n - 1, (double)NAN);
                    check_case(s, "NaN last", op, type, kind, v, data, n, 0);
                }
                /* Every output from the first NaN on is one of the NaNs
                 * before it, bit for bit (tc_check_scan), whatever their
                 * bits. */
                tc_fill_mode(op, type, TC_DATA_RECORDS, data, n);
                for (size_t j = 0; j < 3; j++)
                    set_nan_bits(type, data, tc_rand_below(n), si + ki + j);
                check_case(s, "NaNs of several bits", op, type, kind, v, data, n, 0);
                check_case(s, "NaNs of several bits, in place", op, type, kind, v, data, n, 1);

                tc_fill_mode(op, type, TC_DATA_RECORDS, data, n);
                tc_set_double(type, data, tc_rand_below(n), (double)INFINITY);
                if (n >= 2)
                    tc_set_double(type, data, tc_rand_below(n), -(double)INFINITY);
                check_case(s, "+inf and -inf", op, type, kind, v, data, n, 0);
                for (size_t i = 0; i < n; i++)
                    tc_set_double(type, data, i,
                                  op == CLREDUCE_OP_MIN ? (double)INFINITY : -(double)INFINITY);
                check_case(s, "only the identity's infinity", op, type, kind, v, data, n, 0);

                if (n >= 2) {
                    /* Zeros only, of both signs, at least one of each. */
                    for (size_t i = 0; i < n; i++)
                        tc_set_double(type, data, i, (tc_rand64() & 1) ? -0.0 : 0.0);
                    size_t neg = tc_rand_below(n), pos = (neg + 1 + tc_rand_below(n - 1)) % n;
                    tc_set_double(type, data, neg, -0.0);
                    tc_set_double(type, data, pos, 0.0);
                    check_case(s, "zeros of both signs", op, type, kind, v, data, n, 0);
                    /* +0.0 first, -0.0 later (min), the reverse for max: the
                     * prefix must switch at the later zero. */
                    tc_fill_mode(op, type, TC_DATA_UNIFORM, data, n);
                    for (size_t i = 0; i < n; i++) {
                        double d = fabs(tc_get_double(type, data, i)) + 0.001;
                        tc_set_double(type, data, i, op == CLREDUCE_OP_MIN ? d : -d);
                    }
                    size_t first = tc_rand_below(n - 1);
                    size_t later = first + 1 + tc_rand_below(n - first - 1);
                    tc_set_double(type, data, first, op == CLREDUCE_OP_MIN ? 0.0 : -0.0);
                    tc_set_double(type, data, later, op == CLREDUCE_OP_MIN ? -0.0 : 0.0);
                    check_case(s, "zeros of both signs among other numbers", op, type, kind, v,
                               data, n, 0);
                }
            }
        }
    }
    if (clreduce_check_scan_support(s->ctx, CLREDUCE_OP_SUM, type, v) == CLREDUCE_SUCCESS) {
        const size_t n = 4097;
        for (size_t ki = 0; ki < ARRAY_SIZE(all_kinds); ki++) {
            tc_fill_mode(CLREDUCE_OP_SUM, type, TC_DATA_SMALL, data, n);
            tc_set_double(type, data, 1000 + tc_rand_below(1000), (double)INFINITY);
            check_case(s, "+inf in a sum", CLREDUCE_OP_SUM, type, all_kinds[ki], v, data, n, 0);
            tc_set_double(type, data, 2500 + tc_rand_below(1000), -(double)INFINITY);
            check_case(s, "+inf, later -inf in a sum", CLREDUCE_OP_SUM, type, all_kinds[ki], v,
                       data, n, 0);
        }
    }
}

/* ---- every variant ------------------------------------------------------------- */

static void variant_refused(tc_variant_test *t, clreduce_op op, clreduce_type type)
{
    check_unsupported(&t->suite, op, type, (clreduce_scan_variant)t->variant, t->data);
}

/* Both kinds at every size, then in place at a few; the data's mode
 * alternates from case to case. */
static void variant_cases(tc_variant_test *t, clreduce_op op, clreduce_type type)
{
    clreduce_scan_variant v = (clreduce_scan_variant)t->variant;
    for (size_t si = 0; si < ARRAY_SIZE(all_sizes); si++)
        for (size_t ki = 0; ki < ARRAY_SIZE(all_kinds); ki++) {
            size_t n = all_sizes[si];
            tc_data_mode mode = tc_mode_for(op, si + ki);
            tc_fill_mode(op, type, mode, t->data, n);
            check_case(&t->suite, tc_data_mode_name(mode), op, type, all_kinds[ki], v, t->data, n,
                       0);
        }
    for (size_t si = 0; si < ARRAY_SIZE(in_place_sizes); si++)
        for (size_t ki = 0; ki < ARRAY_SIZE(all_kinds); ki++) {
            size_t n = in_place_sizes[si];
            tc_data_mode mode = tc_mode_for(op, si + ki + 1);
            tc_fill_mode(op, type, mode, t->data, n);
            check_case(&t->suite, tc_data_mode_name(mode), op, type, all_kinds[ki], v, t->data, n,
                       1);
        }
}

/* Special values of both floating-point types. */
static void variant_after(tc_variant_test *t)
{
    clreduce_scan_variant v = (clreduce_scan_variant)t->variant;
    special_cases(&t->suite, v, CLREDUCE_FLOAT, t->data);
    if (clreduce_check_scan_support(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_DOUBLE, v) ==
        CLREDUCE_SUCCESS)
        special_cases(&t->suite, v, CLREDUCE_DOUBLE, t->data);
}

static void test_variant(void **state)
{
    static const tc_variant_steps steps = {variant_refused, variant_cases, variant_after};
    tc_run_variant_test(g_ctx, 1, *(const int *)*state, &steps);
}

/* AUTO resolves to LOOKBACK where the device can run it, else to
 * REDUCE_THEN_SCAN, and to something check_scan_support accepts. */
static void test_auto_scan_variant(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
        clreduce_type type = tc_all_types[ti];
        clreduce_scan_variant v = clreduce_auto_scan_variant(g_ctx, type);
        print_message("auto scan for %s: %s\n", tc_type_name(type), tc_scan_variant_name(v));
        assert_true(v == CLREDUCE_SCAN_LOOKBACK || v == CLREDUCE_SCAN_REDUCE_THEN_SCAN);
        if (clreduce_check_scan_support(g_ctx, CLREDUCE_OP_SUM, type,
                                        CLREDUCE_SCAN_REDUCE_THEN_SCAN) != CLREDUCE_SUCCESS)
            continue; /* the type itself is unsupported (double without fp64) */
        int lookback = clreduce_check_scan_support(g_ctx, CLREDUCE_OP_SUM, type,
                                                   CLREDUCE_SCAN_LOOKBACK) == CLREDUCE_SUCCESS;
        assert_int_equal(v, lookback ? CLREDUCE_SCAN_LOOKBACK : CLREDUCE_SCAN_REDUCE_THEN_SCAN);
        for (size_t oi = 0; oi < ARRAY_SIZE(tc_all_ops); oi++) {
            assert_int_equal(clreduce_check_scan_support(g_ctx, tc_all_ops[oi], type, v),
                             CLREDUCE_SUCCESS);
            assert_int_equal(
                clreduce_check_scan_support(g_ctx, tc_all_ops[oi], type, CLREDUCE_SCAN_AUTO),
                CLREDUCE_SUCCESS);
        }
    }
}

/* ---- clreduce_scan_host ------------------------------------------------------------ */

static void test_scan_host(void **state)
{
    (void)state;
    tc_seed_for("scan_host");
    static const size_t sizes[] = {1, 33, 4097, TC_LARGE_COUNT};
    /* Every type once and every operator at least once. */
    static const struct {
        clreduce_op op;
        clreduce_type type;
    } combos[] = {{CLREDUCE_OP_SUM, CLREDUCE_FLOAT},  {CLREDUCE_OP_MAX, CLREDUCE_DOUBLE},
                  {CLREDUCE_OP_MIN, CLREDUCE_INT32},  {CLREDUCE_OP_SUM, CLREDUCE_UINT32},
                  {CLREDUCE_OP_SUM, CLREDUCE_INT64},  {CLREDUCE_OP_MAX, CLREDUCE_UINT64}};
    const size_t pad = 9;
    unsigned char *data = malloc(TC_LARGE_COUNT * 8);
    unsigned char *copy = malloc(TC_LARGE_COUNT * 8);
    unsigned char *buf = malloc((TC_LARGE_COUNT + 2 * pad) * 8);
    unsigned char *sentinel = malloc((TC_LARGE_COUNT + 2 * pad) * 8);
    assert_true(data && copy && buf && sentinel);
    memset(sentinel, TC_SENTINEL_BYTE, (TC_LARGE_COUNT + 2 * pad) * 8);
    int failures = 0;
    size_t cases = 0;
    for (int vi = 0; vi < CLREDUCE_SCAN_VARIANT_COUNT; vi++) {
        clreduce_scan_variant v = (clreduce_scan_variant)vi;
        for (size_t ci = 0; ci < ARRAY_SIZE(combos); ci++) {
            clreduce_op op = combos[ci].op;
            clreduce_type type = combos[ci].type;
            size_t es = tc_elem_size(type);
            if (clreduce_check_scan_support(g_ctx, op, type, v) != CLREDUCE_SUCCESS)
                continue;
            for (size_t si = 0; si < ARRAY_SIZE(sizes); si++)
                for (size_t ki = 0; ki < ARRAY_SIZE(all_kinds); ki++)
                    for (int in_place = 0; in_place < 2; in_place++) {
                        clreduce_scan_kind kind = all_kinds[ki];
                        size_t n = sizes[si];
                        tc_data_mode mode = tc_mode_for(op, si + ki + (size_t)in_place);
                        tc_fill_mode(op, type, mode, data, n);
                        memcpy(copy, data, n * es);
                        /* The output between sentinel elements; in place the
                         * data sits there. */
                        memset(buf, TC_SENTINEL_BYTE, (n + 2 * pad) * es);
                        unsigned char *out = buf + pad * es;
                        if (in_place)
                            memcpy(out, data, n * es);
                        clreduce_status st =
                            clreduce_scan_host(g_ctx, op, type, kind, v, in_place ? out : data,
                                               n, out);
                        cases++;
                        tc_scan_mismatch m;
                        int range_ok = st == CLREDUCE_SUCCESS &&
                                       tc_check_scan(op, type, kind, copy, n, out, &m);
                        int pads_ok = memcmp(buf, sentinel, pad * es) == 0 &&
                                      memcmp(out + n * es, sentinel, pad * es) == 0;
                        int input_ok = in_place || memcmp(data, copy, n * es) == 0;
                        if (range_ok && pads_ok && input_ok)
                            continue;
                        if (++failures > MAX_REPORTS)
                            continue;
                        char vname[64], detail[320] = "";
                        tc_scan_variant_label(g_ctx, v, type, vname, sizeof vname);
                        if (st != CLREDUCE_SUCCESS)
                            snprintf(detail, sizeof detail, "status %s: %s",
                                     clreduce_status_string(st), clreduce_last_error(g_ctx));
                        else if (!range_ok)
                            tc_format_scan_mismatch(op, type, &m, detail, sizeof detail);
                        print_error("FAILED scan_host %s: variant=%s kind=%s op=%s type=%s "
                                    "size=%zu %s seed=%" PRIu64 ": %s%s%s\n",
                                    tc_data_mode_name(mode), vname, tc_scan_kind_name(kind),
                                    tc_op_name(op), tc_type_name(type), n,
                                    in_place ? "in place (output == input)" : "output != input",
                                    tc_seed(), detail,
                                    pads_ok ? "" : "; elements next to the output changed",
                                    input_ok ? "" : "; the input changed");
                    }
        }
    }
    print_message("scan_host: %zu cases, %d failed\n", cases, failures);
    free(data);
    free(copy);
    free(buf);
    free(sentinel);
    assert_int_equal(failures, 0);
}

/* ---- count 0 ---------------------------------------------------------------------- */

/* Nothing is written; with a done event asked for it completes, behind the
 * wait list; the offsets may be at the very end of the buffers. */
static void test_count_zero(void **state)
{
    (void)state;
    enum { COUNT = 64 };
    int32_t init_in[COUNT];
    unsigned char sentinel[COUNT * 8], after[COUNT * 8];
    for (int i = 0; i < COUNT; i++)
        init_in[i] = 1000 + i;
    memset(sentinel, TC_SENTINEL_BYTE, sizeof sentinel);
    cl_mem in = tc_make_buffer(g_ctx, sizeof init_in, init_in);
    cl_mem out = tc_make_buffer(g_ctx, sizeof sentinel, sentinel);
    for (int vi = 0; vi < CLREDUCE_SCAN_VARIANT_COUNT; vi++) {
        clreduce_scan_variant v = (clreduce_scan_variant)vi;
        clreduce_op op = tc_all_ops[vi % 3];
        if (clreduce_check_scan_support(g_ctx, op, CLREDUCE_INT32, v) != CLREDUCE_SUCCESS) {
            print_message("note: %s int32 not supported here\n", tc_scan_variant_name(v));
            continue;
        }
        static const struct {
            size_t in_off, out_off;
        } offsets[] = {{3, 5}, {COUNT, 2 * COUNT}, {10, 10}};
        for (size_t oi = 0; oi < ARRAY_SIZE(offsets); oi++)
            for (size_t ki = 0; ki < ARRAY_SIZE(all_kinds); ki++)
                for (int with_done = 0; with_done < 3; with_done++) {
                    /* 0: no event; 1: done; 2: done behind a user event. */
                    cl_event done = TC_EVENT_SENTINEL;
                    cl_event gate = with_done == 2 ? tc_user_event(g_ctx) : NULL;
                    cl_mem dst = oi == 2 ? in : out; /* in place on the input */
                    clreduce_status st = clreduce_scan(
                        g_ctx, g_queue, op, CLREDUCE_INT32, all_kinds[ki], v, in,
                        offsets[oi].in_off, 0, dst, offsets[oi].out_off, gate ? 1 : 0,
                        gate ? &gate : NULL, with_done ? &done : NULL);
                    if (st != CLREDUCE_SUCCESS)
                        print_error("count 0, %s %s, offsets %zu/%zu: %s: %s\n",
                                    tc_scan_variant_name(v), tc_scan_kind_name(all_kinds[ki]),
                                    offsets[oi].in_off, offsets[oi].out_off,
                                    clreduce_status_string(st), clreduce_last_error(g_ctx));
                    assert_int_equal(st, CLREDUCE_SUCCESS);
                    if (with_done) {
                        assert_true(done != NULL && done != TC_EVENT_SENTINEL);
                        if (gate) {
                            if (tc_event_status(done) == CL_COMPLETE)
                                print_error("count 0, %s: done complete before its wait list\n",
                                            tc_scan_variant_name(v));
                            assert_int_not_equal(tc_event_status(done), CL_COMPLETE);
                            assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE),
                                             CL_SUCCESS);
                        }
                        assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
                        assert_int_equal(tc_event_status(done), CL_COMPLETE);
                        assert_int_equal(clReleaseEvent(done), CL_SUCCESS);
                    }
                    if (gate)
                        clReleaseEvent(gate);
                    assert_int_equal(clFinish(g_queue), CL_SUCCESS);
                    tc_read_buffer(g_queue, in, after, sizeof init_in, 0, NULL);
                    assert_memory_equal(after, init_in, sizeof init_in);
                    tc_read_buffer(g_queue, out, after, sizeof sentinel, 0, NULL);
                    assert_memory_equal(after, sentinel, sizeof sentinel);
                }
        /* The host entry point. */
        int32_t src[4] = {1, 2, 3, 4}, dst[4] = {7, 7, 7, 7};
        assert_int_equal(clreduce_scan_host(g_ctx, op, CLREDUCE_INT32, CLREDUCE_EXCLUSIVE, v,
                                            src, 0, dst),
                         CLREDUCE_SUCCESS);
        assert_true(dst[0] == 7 && dst[3] == 7 && src[0] == 1 && src[3] == 4);
        assert_int_equal(clreduce_scan_host(g_ctx, op, CLREDUCE_INT32, CLREDUCE_INCLUSIVE, v,
                                            src, 0, src),
                         CLREDUCE_SUCCESS);
        assert_true(src[0] == 1 && src[3] == 4);
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
}

/* ---- determinism and races ---------------------------------------------------------- */

/* Scans into `out` (sentinel bytes written over the whole buffer first) and
 * reads the whole buffer back into host_out; returns the status. */
static clreduce_status scan_and_read(clreduce_ctx *ctx, cl_command_queue q, clreduce_op op,
                                     clreduce_type type, clreduce_scan_kind kind,
                                     clreduce_scan_variant v, cl_mem in, size_t in_off, size_t n,
                                     cl_mem out, size_t out_off, size_t out_count, void *host_out)
{
    const unsigned char pattern = TC_SENTINEL_BYTE;
    size_t bytes = out_count * tc_elem_size(type);
    assert_int_equal(clEnqueueFillBuffer(q, out, &pattern, 1, 0, bytes, 0, NULL, NULL),
                     CL_SUCCESS);
    cl_event done = NULL;
    clreduce_status st =
        clreduce_scan(ctx, q, op, type, kind, v, in, in_off, n, out, out_off, 0, NULL, &done);
    if (st != CLREDUCE_SUCCESS) {
        print_error("%s %s %s %s size %zu: %s: %s\n", tc_scan_variant_name(v),
                    tc_scan_kind_name(kind), tc_op_name(op), tc_type_name(type), n,
                    clreduce_status_string(st), clreduce_last_error(ctx));
        return st;
    }
    tc_read_buffer(g_read_queue, out, host_out, bytes, 1, &done);
    clReleaseEvent(done);
    return st;
}

/* HILLIS_STEELE, BLELLOCH and REDUCE_THEN_SCAN (and AUTO where it resolves to
 * one of them) give the same bits for the same floats every time. */
static void test_determinism(void **state)
{
    (void)state;
    tc_seed_for("determinism");
    static const size_t sizes[] = {4097, 65539, TC_LARGE_COUNT};
    const size_t in_off = 3, out_off = 1, max_n = TC_LARGE_COUNT, out_count = out_off + max_n + 2;
    unsigned char *data = malloc((in_off + max_n) * 8);
    unsigned char *a = malloc(out_count * 8), *b = malloc(out_count * 8);
    assert_true(data && a && b);
    cl_mem in = tc_make_buffer(g_ctx, (in_off + max_n) * 8, NULL);
    cl_mem out = tc_make_buffer(g_ctx, out_count * 8, NULL);
    int failures = 0, checked = 0;
    for (int vi = 0; vi < CLREDUCE_SCAN_VARIANT_COUNT; vi++) {
        clreduce_scan_variant v = (clreduce_scan_variant)vi;
        if (v == CLREDUCE_SCAN_LOOKBACK ||
            (v == CLREDUCE_SCAN_AUTO &&
             clreduce_auto_scan_variant(g_ctx, CLREDUCE_FLOAT) == CLREDUCE_SCAN_LOOKBACK))
            continue; /* documented as not bitwise reproducible for float sums */
        for (int ti = 0; ti < 2; ti++) {
            clreduce_type type = ti ? CLREDUCE_DOUBLE : CLREDUCE_FLOAT;
            size_t es = tc_elem_size(type);
            if (clreduce_check_scan_support(g_ctx, CLREDUCE_OP_SUM, type, v) != CLREDUCE_SUCCESS)
                continue;
            for (size_t si = 0; si < ARRAY_SIZE(sizes); si++)
                for (size_t ki = 0; ki < ARRAY_SIZE(all_kinds); ki++) {
                    size_t n = sizes[si];
                    clreduce_scan_kind kind = all_kinds[ki];
                    tc_fill_mode(CLREDUCE_OP_SUM, type, TC_DATA_FULL, data, in_off + n);
                    assert_int_equal(clEnqueueWriteBuffer(g_queue, in, CL_TRUE, 0,
                                                          (in_off + n) * es, data, 0, NULL,
                                                          NULL),
                                     CL_SUCCESS);
                    size_t oc = out_off + n + 2;
                    assert_int_equal(scan_and_read(g_ctx, g_queue, CLREDUCE_OP_SUM, type, kind,
                                                   v, in, in_off, n, out, out_off, oc, a),
                                     CLREDUCE_SUCCESS);
                    assert_int_equal(scan_and_read(g_ctx, g_queue, CLREDUCE_OP_SUM, type, kind,
                                                   v, in, in_off, n, out, out_off, oc, b),
                                     CLREDUCE_SUCCESS);
                    checked++;
                    tc_scan_mismatch m;
                    int right = tc_check_scan(CLREDUCE_OP_SUM, type, kind, data + in_off * es, n,
                                              a + out_off * es, &m);
                    size_t diff = SIZE_MAX;
                    for (size_t i = 0; i < oc && diff == SIZE_MAX; i++)
                        if (memcmp(a + i * es, b + i * es, es) != 0)
                            diff = i;
                    if (right && diff == SIZE_MAX)
                        continue;
                    char vname[64], ga[96], gb[96];
                    tc_value va, vb;
                    failures++;
                    if (diff != SIZE_MAX) {
                        tc_get(type, a, diff, &va);
                        tc_get(type, b, diff, &vb);
                        tc_format(type, &va, ga, sizeof ga);
                        tc_format(type, &vb, gb, sizeof gb);
                        print_error("FAILED determinism: variant=%s kind=%s op=sum type=%s "
                                    "size=%zu input_offset=%zu output_offset=%zu seed=%" PRIu64
                                    ": element %zu of the range differs between two runs: %s, "
                                    "then %s\n",
                                    tc_scan_variant_label(g_ctx, v, type, vname, sizeof vname),
                                    tc_scan_kind_name(kind), tc_type_name(type), n, in_off,
                                    out_off, tc_seed(), diff - out_off, ga, gb);
                    }
                    if (!right) {
                        char why[320];
                        tc_format_scan_mismatch(CLREDUCE_OP_SUM, type, &m, why, sizeof why);
                        print_error("FAILED determinism: variant=%s kind=%s op=sum type=%s "
                                    "size=%zu seed=%" PRIu64 ": %s\n",
                                    tc_scan_variant_label(g_ctx, v, type, vname, sizeof vname),
                                    tc_scan_kind_name(kind), tc_type_name(type), n, tc_seed(),
                                    why);
                    }
                }
        }
    }
    print_message("determinism: %d pairs of runs compared, %d failed\n", checked, failures);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    free(data);
    free(a);
    free(b);
    assert_int_equal(failures, 0);
    assert_true(checked > 0);
}

/* LOOKBACK many times over many tiles on one queue: a race between
 * work-groups, or state left behind by the previous run, shows as a wrong
 * element in some run. Integer sums, so every run must be exact. */
static int repeated_lookback(clreduce_ctx *ctx, const char *label, clreduce_type type, size_t n,
                             int runs)
{
    const size_t in_off = 1, out_off = 3, out_count = out_off + n + 5, es = tc_elem_size(type);
    unsigned char *data = malloc((in_off + n) * es), *res = malloc(out_count * es);
    assert_true(data && res);
    tc_fill_mode(CLREDUCE_OP_SUM, type, TC_DATA_FULL, data, in_off + n);
    cl_mem in = tc_make_buffer(g_ctx, (in_off + n) * es, data);
    cl_mem out = tc_make_buffer(g_ctx, out_count * es, NULL);
    int failures = 0;
    double t0 = tc_now_seconds();
    for (int r = 0; r < runs; r++) {
        clreduce_scan_kind kind = (r % 4 == 3) ? CLREDUCE_EXCLUSIVE : CLREDUCE_INCLUSIVE;
        assert_int_equal(scan_and_read(ctx, g_queue, CLREDUCE_OP_SUM, type, kind,
                                       CLREDUCE_SCAN_LOOKBACK, in, in_off, n, out, out_off,
                                       out_count, res),
                         CLREDUCE_SUCCESS);
        tc_scan_mismatch m;
        size_t outside = tc_first_changed_outside(res, out_count, out_off, n, es);
        if (tc_check_scan(CLREDUCE_OP_SUM, type, kind, data + in_off * es, n, res + out_off * es,
                          &m) &&
            outside == SIZE_MAX)
            continue;
        char why[320];
        tc_format_scan_mismatch(CLREDUCE_OP_SUM, type, &m, why, sizeof why);
        if (++failures <= MAX_REPORTS)
            print_error("FAILED [%s] lookback run %d of %d: kind=%s op=sum type=%s size=%zu "
                        "input_offset=%zu output_offset=%zu seed=%" PRIu64 ": %s%s\n",
                        label, r + 1, runs, tc_scan_kind_name(kind), tc_type_name(type), n,
                        in_off, out_off, tc_seed(), m.wrong ? why : "the range is right",
                        outside == SIZE_MAX ? "" : "; elements outside the range changed");
    }
    print_message("[%s] lookback sum %s n=%zu: %d runs, %d wrong, %.1f s\n", label,
                  tc_type_name(type), n, runs, failures, tc_now_seconds() - t0);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    free(data);
    free(res);
    return failures;
}

static void test_lookback_repeated(void **state)
{
    (void)state;
    tc_seed_for("lookback_repeated");
    clreduce_status st = clreduce_check_scan_support(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_INT32,
                                                     CLREDUCE_SCAN_LOOKBACK);
    if (st == CLREDUCE_ERROR_UNSUPPORTED) {
        print_message("note: lookback not supported here: %s\n", clreduce_last_error(g_ctx));
        skip();
    }
    assert_int_equal(st, CLREDUCE_SUCCESS);
    int failures = 0;
    failures += repeated_lookback(g_ctx, "default context", CLREDUCE_INT32, TC_LARGE_COUNT, 20);
    failures += repeated_lookback(g_ctx, "default context", CLREDUCE_INT32, HUGE_COUNT, 20);
    failures += repeated_lookback(g_ctx, "default context", CLREDUCE_UINT64, TC_LARGE_COUNT, 20);
    failures += repeated_lookback(g_ctx, "default context", CLREDUCE_UINT64, HUGE_COUNT, 20);
    assert_int_equal(failures, 0);
}

/* The smallest work-groups and tiles (one scalar load per work-item) and
 * the most work-groups per compute unit: many more blocks, levels and tiles
 * for the same sizes (tens of thousands of look-back tiles), more
 * reduce-then-scan groups than one work-group has work-items, sizes on and
 * around block and tile boundaries. */
static void test_small_work_groups(void **state)
{
    (void)state;
    tc_seed_for("small_work_groups");
    clreduce_settings settings;
    clreduce_default_settings(&settings);
    settings.work_group_size = 64;
    settings.groups_per_compute_unit = 64;
    settings.loads_per_work_item = 1;
    settings.vector_width = 1;
    clreduce_ctx *c = NULL;
    clreduce_status st = clreduce_create_with_settings(
        clreduce_get_cl_context(g_ctx), clreduce_get_cl_device(g_ctx), &settings, &c);
    if (st != CLREDUCE_SUCCESS)
        print_error("clreduce_create_with_settings: %s\n", clreduce_last_error(NULL));
    assert_int_equal(st, CLREDUCE_SUCCESS);
    static const size_t sizes[] = {1,   63,   64,   65,    127,   129,           511,
                                   512, 513,  4096, 65536, 65537, TC_LARGE_COUNT};
    static const struct {
        clreduce_op op;
        clreduce_type type;
    } combos[] = {{CLREDUCE_OP_SUM, CLREDUCE_INT32},
                  {CLREDUCE_OP_MAX, CLREDUCE_FLOAT},
                  {CLREDUCE_OP_MIN, CLREDUCE_UINT64}};
    void *data = malloc(TC_LARGE_COUNT * 8);
    assert_non_null(data);
    tc_suite s = {c, "work_group_size 64, 1 scalar load, 64 groups per compute unit", 0, 0};
    for (int vi = 1; vi < CLREDUCE_SCAN_VARIANT_COUNT; vi++) {
        clreduce_scan_variant v = (clreduce_scan_variant)vi;
        for (size_t ci = 0; ci < ARRAY_SIZE(combos); ci++) {
            if (clreduce_check_scan_support(c, combos[ci].op, combos[ci].type, v) !=
                CLREDUCE_SUCCESS)
                continue;
            for (size_t si = 0; si < ARRAY_SIZE(sizes); si++)
                for (size_t ki = 0; ki < ARRAY_SIZE(all_kinds); ki++) {
                    tc_data_mode mode = tc_mode_for(combos[ci].op, si + ki);
                    tc_fill_mode(combos[ci].op, combos[ci].type, mode, data, sizes[si]);
                    check_case(&s, tc_data_mode_name(mode), combos[ci].op, combos[ci].type,
                               all_kinds[ki], v, data, sizes[si], si % 4 == 3);
                }
        }
    }
    int failures = s.failures;
    if (clreduce_check_scan_support(c, CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_SCAN_LOOKBACK) ==
        CLREDUCE_SUCCESS)
        failures += repeated_lookback(c, s.label, CLREDUCE_INT32, HUGE_COUNT, 10);
    print_message("%s: %zu cases, %d failed\n", s.label, s.cases, failures);
    free(data);
    clreduce_destroy(c);
    assert_int_equal(failures, 0);
}

int main(void)
{
    g_ctx = tc_start("unit.scan", &g_queue, &g_upload_queue, &g_read_queue, NULL);

    static int variants[CLREDUCE_SCAN_VARIANT_COUNT];
    static char names[CLREDUCE_SCAN_VARIANT_COUNT][48];
    const struct CMUnitTest first[] = {
        cmocka_unit_test(test_auto_scan_variant),
    };
    const struct CMUnitTest last[] = {
        cmocka_unit_test(test_scan_host),         cmocka_unit_test(test_count_zero),
        cmocka_unit_test(test_determinism),       cmocka_unit_test(test_lookback_repeated),
        cmocka_unit_test(test_small_work_groups),
    };
    struct CMUnitTest tests[ARRAY_SIZE(first) + CLREDUCE_SCAN_VARIANT_COUNT + ARRAY_SIZE(last)];
    size_t nt = 0;
    for (size_t i = 0; i < ARRAY_SIZE(first); i++)
        tests[nt++] = first[i];
    for (int v = 0; v < CLREDUCE_SCAN_VARIANT_COUNT; v++) {
        variants[v] = v;
        snprintf(names[v], sizeof names[v], "variant_%s",
                 tc_scan_variant_name((clreduce_scan_variant)v));
        tc_add_test(tests, &nt, names[v], test_variant, &variants[v]);
    }
    for (size_t i = 0; i < ARRAY_SIZE(last); i++)
        tests[nt++] = last[i];
    int failed = tc_run_tests("unit.scan", tests, nt);

    return tc_finish(g_ctx, failed, g_read_queue, g_upload_queue, g_queue, NULL);
}
