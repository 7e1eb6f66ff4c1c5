/* The Oclgrind test's flat families: every reduction variant, and every
 * scan variant inclusive and exclusive, each case's result checked against
 * the CPU reference and the sentinels around it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test_oclgrind.h"

/* ---- reductions ----------------------------------------------------------------- */

static clreduce_status reduce_support(const target *t, clreduce_op op, clreduce_type type)
{
    return clreduce_check_support(g_ctx, op, type, (clreduce_variant)t->variant);
}

/* Uploads the data between poisoned elements into a buffer that ends where
 * the data (and its tail) ends, reduces it into a result buffer of sentinel
 * bytes, and reads the result element and its neighbours back. Returns 0,
 * or -1 with c->detail set when an OpenCL call of the harness failed. */
static int reduce_on_device(const target *t, og_case *c, clreduce_status *status, tc_value *got,
                            int *result_untouched, int *neighbours_untouched)
{
    size_t es = clreduce_type_size(c->type);
    size_t rcount = c->result_offset + 2;
    unsigned char host[MAX_COUNT * 8], res[4 * 8];
    tc_value poison;
    tc_poison(c->op, c->type, &poison);
    og_lay_out_input(c, &poison, host);
    memset(res, TC_SENTINEL_BYTE, sizeof res);
    cl_mem in, out;
    if (!og_create_buffers(c, host, res, rcount * es, &in, &out))
        return -1;
    cl_event done = NULL;
    *status = clreduce_reduce(g_ctx, g_queue, c->op, c->type, (clreduce_variant)t->variant, in,
                              c->offset, c->n, out, c->result_offset, 0, NULL, &done);
    cl_int err = og_read_output(out, rcount * es, res, done);
    if (err != CL_SUCCESS) {
        snprintf(c->detail, sizeof c->detail, "reading the result failed: %s",
                 clreduce_opencl_error_name(err));
        return -1;
    }
    memset(got, 0, sizeof *got);
    memcpy(got->bytes, res + c->result_offset * es, es);
    *result_untouched = 1;
    *neighbours_untouched = 1;
    for (size_t i = 0; i < rcount * es; i++) {
        if (res[i] == TC_SENTINEL_BYTE)
            continue;
        if (i / es == c->result_offset)
            *result_untouched = 0;
        else
            *neighbours_untouched = 0;
    }
    return 0;
}

static int run_reduce(const target *t, og_case *c)
{
    tc_value ref, got;
    long double abs_sum;
    tc_reference(c->op, c->type, c->data, c->n, &ref, &abs_sum);
    clreduce_status st = CLREDUCE_ERROR_OPENCL;
    int result_untouched = 0, neighbours_untouched = 0;
    if (reduce_on_device(t, c, &st, &got, &result_untouched, &neighbours_untouched) != 0)
        return 0;
    if (t->expect_unsupported)
        return og_unsupported_as_expected(c, st, result_untouched && neighbours_untouched,
                                          ", result written");
    if (st == CLREDUCE_SUCCESS && neighbours_untouched &&
        tc_matches(c->op, c->type, &got, &ref, abs_sum))
        return 1;
    tc_got_want text = tc_format_got_want(c->type, &got, &ref);
    snprintf(c->detail, sizeof c->detail, "status %s%s%s, got %s, expected %s%s",
             clreduce_status_string(st), st ? ": " : "", st ? clreduce_last_error(g_ctx) : "",
             text.got, text.want,
             neighbours_untouched ? "" : ", elements next to the result changed");
    return 0;
}

/* The single pass hands the partial results of the work-groups to the last
 * one through global memory, ordered by a device-scope fence and an atomic
 * ticket. OpenCL 1.2, which Oclgrind implements, orders nothing between
 * work-groups except atomic operations, so Oclgrind reports every partial
 * read by the last work-group as a race with its writer; the library runs
 * this kernel only where the device orders memory between work-groups (see
 * CLREDUCE_SINGLE_PASS in clreduce.h). */
static const accepted_races single_pass_hand_off = {
    "the single pass's hand-off of partial results between work-groups",
    {{"partials[get_group_id(0)] = r;", "v = clr_op(v, partials[k]);"}}};

/* The reproducible sum's single launch hands the tiles' values to the last
 * work-group the same way; its other operators run as AUTO, the single
 * pass. Sizes past one tile of floats (16384) and of doubles (8192), so
 * that the last work-group reduces a level above the first. */
static const accepted_races fixed_order_hand_off = {
    "the reproducible sum's and the single pass's hand-offs between work-groups",
    {{"values[t] = r;",
      "CLR_FIXED_LANE_AT(clr_fixed_value_lane_at, volatile, CLR_FIXED_VALUE)"},
     {"partials[get_group_id(0)] = r;", "v = clr_op(v, partials[k]);"}}};
const og_size og_fixed_order_sizes[OG_FIXED_ORDER_SIZES] = {
    {1, 0, 0}, {257, 3, 0}, {8193, 1, 2}, {16385, 0, 0}, {33000, 5, 3},
};

/* ---- scans ------------------------------------------------------------------------ */

static clreduce_status scan_support(const target *t, clreduce_op op, clreduce_type type)
{
    return clreduce_check_scan_support(g_ctx, op, type, (clreduce_scan_variant)t->variant);
}

/* x op y as the library defines it (integer wrap-around, NaN first, -0.0
 * below +0.0): the reference of two elements. */
static void combine(clreduce_op op, clreduce_type type, tc_value *acc, const tc_value *x)
{
    unsigned char pair[16];
    long double abs_sum;
    tc_set(type, pair, 0, acc);
    tc_set(type, pair, 1, x);
    tc_reference(op, type, pair, 2, acc, &abs_sum);
}

/* Scans the data (between poisoned elements) into an output buffer of
 * sentinel bytes at c->result_offset, and checks every output element
 * against the CPU reference (floating-point sums: within 1e-5 (float) or
 * 1e-12 (double) times the sum of |x| up to the element, as unit tests of
 * the reductions do) and the elements around the output range. */
static int run_scan(const target *t, og_case *c)
{
    size_t es = clreduce_type_size(c->type);
    size_t out_total = c->result_offset + c->n + 2;
    unsigned char host[MAX_COUNT * 8], res[(MAX_COUNT + 4) * 8];
    tc_value poison;
    tc_poison(c->op, c->type, &poison);
    og_lay_out_input(c, &poison, host);
    memset(res, TC_SENTINEL_BYTE, out_total * es);
    cl_mem in, out;
    if (!og_create_buffers(c, host, res, out_total * es, &in, &out))
        return 0;
    cl_event done = NULL;
    clreduce_status st = clreduce_scan(g_ctx, g_queue, c->op, c->type, (clreduce_scan_kind)t->kind,
                                       (clreduce_scan_variant)t->variant, in, c->offset, c->n,
                                       out, c->result_offset, 0, NULL, &done);
    cl_int err = og_read_output(out, out_total * es, res, done);
    if (err != CL_SUCCESS) {
        snprintf(c->detail, sizeof c->detail, "reading the output failed: %s",
                 clreduce_opencl_error_name(err));
        return 0;
    }
    int outside_untouched = 1, inside_untouched = 1;
    for (size_t i = 0; i < out_total * es; i++) {
        size_t e = i / es;
        int inside = e >= c->result_offset && e < c->result_offset + c->n;
        if (res[i] != TC_SENTINEL_BYTE)
            *(inside ? &inside_untouched : &outside_untouched) = 0;
    }
    if (t->expect_unsupported)
        return og_unsupported_as_expected(c, st, outside_untouched && inside_untouched,
                                          ", output written");
    if (st != CLREDUCE_SUCCESS || !outside_untouched) {
        snprintf(c->detail, sizeof c->detail, "status %s%s%s%s", clreduce_status_string(st),
                 st ? ": " : "", st ? clreduce_last_error(g_ctx) : "",
                 outside_untouched ? "" : ", elements next to the output changed");
        return 0;
    }
    int float_sum = c->op == CLREDUCE_OP_SUM && tc_is_float_type(c->type);
    long double sum = 0, abs_sum = 0;
    tc_value acc;
    tc_identity(c->op, c->type, &acc);
    for (size_t i = 0; i < c->n; i++) {
        tc_value x, got, want;
        tc_get(c->type, c->data, i, &x);
        long double xv = c->type == CLREDUCE_FLOAT    ? (long double)x.f
                         : c->type == CLREDUCE_DOUBLE ? (long double)x.d
                                                      : 0;
        if (t->kind == CLREDUCE_INCLUSIVE) {
            combine(c->op, c->type, &acc, &x);
            sum += xv;
            abs_sum += fabsl(xv);
        }
        want = acc;
        if (float_sum)
            tc_set_double(c->type, want.bytes, 0, (double)sum);
        tc_get(c->type, res, c->result_offset + i, &got);
        if (!tc_matches(c->op, c->type, &got, &want, abs_sum)) {
            tc_got_want text = tc_format_got_want(c->type, &got, &want);
            snprintf(c->detail, sizeof c->detail, "output element %zu: got %s, expected %s", i,
                     text.got, text.want);
            return 0;
        }
        if (t->kind == CLREDUCE_EXCLUSIVE) {
            combine(c->op, c->type, &acc, &x);
            sum += xv;
            abs_sum += fabsl(xv);
        }
    }
    return 1;
}

/* A scan with one of the operators past max (t->only_op): results of
 * clreduce_result_size() bytes at c->result_offset between sentinel bytes,
 * each checked against the reduction of its prefix. */
static int run_scan_operator(const target *t, og_case *c)
{
    size_t rs = clreduce_result_size(c->op, c->type);
    size_t out_total = c->result_offset + c->n + 2;
    unsigned char host[MAX_COUNT * 8], res[260 * 32];
    tc_value poison;
    tc_op_poison(c->op, c->type, &poison);
    og_lay_out_input(c, &poison, host);
    memset(res, TC_SENTINEL_BYTE, out_total * rs);
    cl_mem in, out;
    if (!og_create_buffers(c, host, res, out_total * rs, &in, &out))
        return 0;
    cl_event done = NULL;
    clreduce_status st = clreduce_scan(g_ctx, g_queue, c->op, c->type, (clreduce_scan_kind)t->kind,
                                       (clreduce_scan_variant)t->variant, in, c->offset, c->n,
                                       out, c->result_offset, 0, NULL, &done);
    cl_int err = og_read_output(out, out_total * rs, res, done);
    if (err != CL_SUCCESS) {
        snprintf(c->detail, sizeof c->detail, "reading the output failed: %s",
                 clreduce_opencl_error_name(err));
        return 0;
    }
    size_t changed = tc_first_changed_outside(res, out_total, c->result_offset, c->n, rs);
    if (st != CLREDUCE_SUCCESS || changed != SIZE_MAX) {
        snprintf(c->detail, sizeof c->detail, "status %s%s%s%s", clreduce_status_string(st),
                 st ? ": " : "", st ? clreduce_last_error(g_ctx) : "",
                 changed == SIZE_MAX ? "" : ", results next to the output changed");
        return 0;
    }
    for (size_t j = 0; j < c->n; j++) {
        size_t prefix = t->kind == CLREDUCE_INCLUSIVE ? j + 1 : j;
        char why[400];
        long double var_tol =
            c->op == CLREDUCE_OP_MEAN_VAR ? tc_op_variance_tolerance(c->type) : 0;
        if (!tc_op_check_result(c->op, c->type, c->data, NULL, prefix,
                                res + (c->result_offset + j) * rs, var_tol, why, sizeof why)) {
            snprintf(c->detail, sizeof c->detail, "result %zu: %s", j, why);
            return 0;
        }
    }
    return 1;
}

/* The look-back publishes each tile's aggregate and inclusive prefix
 * (volatile stores) and then its status word (mem_fence, atomic_xchg) for
 * later work-groups, which read the status word and then the value
 * (volatile loads, mem_fence): the hand-off between work-groups that
 * OpenCL 1.2 cannot express, as for the single pass above. The segments'
 * single launch hands its chunks' values over the same way. */
const accepted_races og_look_back_hand_off = {
    "the look-back's hand-off of tile values and status words between work-groups",
    {{"void clr_value_store(global T *p, T v) { *(volatile global T *)p = v; }",
      "T clr_value_load(global T *p) { return *(volatile global T *)p; }"},
     {"atomic_xchg((volatile global uint *)p, v);", "uint v = *(volatile global uint *)p;"}}};

#define REDUCE_TARGET(v, fills, races, subgroups)                                             \
    {.name = "reduce_" #v, .variant = CLREDUCE_##v, .run = run_reduce,                       \
     .support = reduce_support, .fills_part_of_a_buffer = fills, .accepted = races,          \
     .needs_subgroups = subgroups}
#define SCAN_TARGET(v, k, fills, races)                                                       \
    {.name = "scan_" #v "_" #k, .variant = CLREDUCE_SCAN_##v, .kind = CLREDUCE_##k,          \
     .run = run_scan, .support = scan_support, .fills_part_of_a_buffer = fills,              \
     .accepted = races}
/* Scans with the operators past max, on variant auto: reduce-then-scan
 * over their accumulators (scan_operators.cl). */
#define SCAN_OP_TARGET(o, k)                                                                  \
    {.name = "scan_" #o "_" #k, .variant = CLREDUCE_SCAN_AUTO, .kind = CLREDUCE_##k,         \
     .run = run_scan_operator, .support = scan_support, .only_op = CLREDUCE_OP_##o}
target og_flat_targets[] = {
    REDUCE_TARGET(INTERLEAVED, 0, NULL, 0),
    REDUCE_TARGET(SEQUENTIAL, 0, NULL, 0),
    REDUCE_TARGET(FIRST_ADD, 0, NULL, 0),
    REDUCE_TARGET(SUBGROUP_TAIL, 0, NULL, 1),
    REDUCE_TARGET(SUBGROUP, 0, NULL, 1),
    REDUCE_TARGET(UNROLLED, 0, NULL, 0),
    REDUCE_TARGET(GRID_STRIDE, 0, NULL, 0),
    /* The identity is filled into the result element first. */
    REDUCE_TARGET(ATOMIC, 1, NULL, 0),
    /* The ticket at the head of the scratch buffer is zero-filled. */
    REDUCE_TARGET(SINGLE_PASS, 1, &single_pass_hand_off, 0),
    /* AUTO resolves to SINGLE_PASS on Oclgrind's CPU device. */
    REDUCE_TARGET(AUTO, 1, &single_pass_hand_off, 0),
    SCAN_TARGET(HILLIS_STEELE, INCLUSIVE, 0, NULL),
    SCAN_TARGET(HILLIS_STEELE, EXCLUSIVE, 0, NULL),
    SCAN_TARGET(BLELLOCH, INCLUSIVE, 0, NULL),
    SCAN_TARGET(BLELLOCH, EXCLUSIVE, 0, NULL),
    SCAN_TARGET(REDUCE_THEN_SCAN, INCLUSIVE, 0, NULL),
    SCAN_TARGET(REDUCE_THEN_SCAN, EXCLUSIVE, 0, NULL),
    /* The tiles' status words are zero-filled before the first launch. */
    SCAN_TARGET(LOOKBACK, INCLUSIVE, 1, &og_look_back_hand_off),
    SCAN_TARGET(LOOKBACK, EXCLUSIVE, 1, &og_look_back_hand_off),
    /* AUTO resolves to LOOKBACK on Oclgrind's CPU device. */
    SCAN_TARGET(AUTO, INCLUSIVE, 1, &og_look_back_hand_off),
    SCAN_TARGET(AUTO, EXCLUSIVE, 1, &og_look_back_hand_off),
    SCAN_OP_TARGET(ARGMAX, INCLUSIVE),
    SCAN_OP_TARGET(MINMAX, EXCLUSIVE),
    SCAN_OP_TARGET(MEAN_VAR, INCLUSIVE),
    SCAN_OP_TARGET(NORM2, EXCLUSIVE),
};
const size_t og_flat_target_count = ARRAY_SIZE(og_flat_targets);

/* The reproducible sum, a family of its own: its cases are long, and their
 * buffers kept beside the flat family's would overflow the space Oclgrind
 * numbers a process's buffers in. */
target og_fixed_order_targets[] = {
    {.name = "reduce_REPRODUCIBLE", .variant = CLREDUCE_REPRODUCIBLE, .run = run_reduce,
     .support = reduce_support, .fills_part_of_a_buffer = 1, .accepted = &fixed_order_hand_off,
     .sizes = og_fixed_order_sizes, .num_sizes = ARRAY_SIZE(og_fixed_order_sizes)},
    /* The reproducible context's float and double sum scans (variant auto),
     * at the same sizes: tiles of lanes, several tiles at the larger. */
    {.name = "scan_fixed_order_inclusive", .variant = CLREDUCE_SCAN_AUTO,
     .kind = CLREDUCE_INCLUSIVE, .run = run_scan, .support = scan_support, .float_sums = 1,
     .sizes = og_fixed_order_sizes, .num_sizes = ARRAY_SIZE(og_fixed_order_sizes)},
    {.name = "scan_fixed_order_exclusive", .variant = CLREDUCE_SCAN_AUTO,
     .kind = CLREDUCE_EXCLUSIVE, .run = run_scan, .support = scan_support, .float_sums = 1,
     .sizes = og_fixed_order_sizes, .num_sizes = ARRAY_SIZE(og_fixed_order_sizes)},
};
const size_t og_fixed_order_target_count = ARRAY_SIZE(og_fixed_order_targets);
