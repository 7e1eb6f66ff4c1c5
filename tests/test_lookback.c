/* The look-back scan without forward progress between work-groups: a wait
 * for a predecessor's state is bounded, and a work-group whose predecessor
 * does not answer reduces that tile itself from the input, publishes its
 * aggregate and looks further back (cl/scan_lookback.cl). In place it must
 * not: the tile it waits for may already have overwritten its input.
 *
 * The kernels' test-only options force that path on any device: with
 * CLR_TEST_LOOKBACK_SPINS=0 a wait gives up at its first poll, and with
 * CLR_TEST_LOOKBACK_HIDE=1 tiles 0, 3, 6, ... never answer a bounded wait, as
 * if their work-groups had stalled. Every type, operator and kind is then
 * checked against the CPU reference, out of place and in place (through one
 * handle and through two sub-buffers of one buffer), on tiles of 64 elements
 * so that a few thousand elements make many tiles. CLR_TEST_LOOKBACK_HIDE=2
 * makes the fallback count the tile it reduced twice: the check must see
 * that, or these tests could not fail.
 *
 * CLR_PACKED=1 runs here the tile states NVIDIA uses, a value travelling
 * with its status word (an 8-byte value's halves in two words that a
 * reader must find agreeing), with and without the fallback. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "test_common.h"

#define WG 64 /* work-items per work-group, one element each: tiles of 64 */
#define IN_OFF 3
#define OUT_OFF 5

static clreduce_ctx *g_base;
static cl_command_queue g_queue;

/* The contexts of the forced fallback: waits that give up at once, and
 * those with tiles 0, 3, 6, ... hidden too; the hidden mode with a wrong
 * fallback, for the check of the check. */
static clreduce_ctx *g_spin0, *g_hide, *g_broken;
/* Packed tile states, waiting as long as it takes and hidden as above. */
static clreduce_ctx *g_packed, *g_packed_hide;

static clreduce_ctx *new_context(const char *build_options)
{
    clreduce_settings settings;
    clreduce_default_settings(&settings);
    settings.work_group_size = WG;
    settings.loads_per_work_item = 1;
    settings.vector_width = 1;
    settings.build_options = build_options;
    clreduce_ctx *ctx = NULL;
    clreduce_status s = clreduce_create_with_settings(
        clreduce_get_cl_context(g_base), clreduce_get_cl_device(g_base), &settings, &ctx);
    if (s != CLREDUCE_SUCCESS) {
        fprintf(stderr, "create (%s): %s: %s\n", build_options, clreduce_status_string(s),
                clreduce_last_error(NULL));
        exit(1);
    }
    return ctx;
}

/* Random data for op, with two NaNs of other bits planted in every other
 * float min/max case (the outputs must keep one of them bit for bit, also
 * where a tile reduces a stalled predecessor's tile itself): a quiet NaN
 * with a payload and a negative one with all bits set. */
static void fill(clreduce_op op, clreduce_type type, void *data, size_t n, size_t k)
{
    tc_fill_mode(op, type, tc_mode_for(op, k), data, n);
    if (op != CLREDUCE_OP_SUM && tc_is_float_type(type) && k % 2 && n > IN_OFF) {
        tc_value nan[2];
        memset(nan, 0, sizeof nan);
        if (type == CLREDUCE_FLOAT) {
            nan[0].u32 = 0x7fc01234u;
            nan[1].u32 = 0xffffffffu;
        } else {
            nan[0].u64 = 0x7ff8000000001234u;
            nan[1].u64 = 0xffffffffffffffffu;
        }
        for (int j = 0; j < 2; j++)
            tc_set(type, data, IN_OFF + tc_rand_below(n - IN_OFF), &nan[j]);
    }
}

/* One LOOKBACK scan of `n` elements on ctx, into its own buffer (offsets
 * IN_OFF and OUT_OFF) or in place (in one buffer, or `via_subbuffers`:
 * through two sub-buffers over the same bytes); returns whether the output
 * matches the reference and the bytes around it are untouched. */
static int scan_case(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                     clreduce_scan_kind kind, size_t n, int in_place, int via_subbuffers,
                     size_t k)
{
    size_t es = tc_elem_size(type), total = IN_OFF + n + OUT_OFF + 2;
    unsigned char *data = malloc(total * es), *got = malloc(total * es);
    assert_true(data && got);
    fill(op, type, data, total, k);
    cl_mem in = tc_make_buffer(ctx, total * es, data);
    cl_mem out = in, sub_in = NULL, sub_out = NULL;
    size_t in_off = IN_OFF, out_off = in_place ? IN_OFF : OUT_OFF;
    if (!in_place) {
        memset(got, TC_SENTINEL_BYTE, total * es);
        out = tc_make_buffer(ctx, total * es, got);
    } else if (via_subbuffers) {
        /* Both sub-buffers start at byte 0 of the parent: any alignment the
         * device asks of a sub-buffer's origin is met. */
        cl_buffer_region region = {0, total * es};
        cl_int err;
        sub_in = clCreateSubBuffer(in, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region,
                                   &err);
        assert_int_equal(err, CL_SUCCESS);
        sub_out = clCreateSubBuffer(in, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region,
                                    &err);
        assert_int_equal(err, CL_SUCCESS);
    }
    cl_event done = NULL;
    clreduce_status st = clreduce_scan(ctx, g_queue, op, type, kind, CLREDUCE_SCAN_LOOKBACK,
                                       sub_in ? sub_in : in, in_off, n, sub_out ? sub_out : out,
                                       out_off, 0, NULL, &done);
    if (st != CLREDUCE_SUCCESS)
        print_error("scan: %s: %s\n", clreduce_status_string(st), clreduce_last_error(ctx));
    assert_int_equal(st, CLREDUCE_SUCCESS);
    tc_read_buffer(g_queue, out, got, total * es, 1, &done);
    clReleaseEvent(done);

    tc_scan_mismatch m;
    int ok = tc_check_scan(op, type, kind, data + in_off * es, n, got + out_off * es, &m);
    /* The bytes around the output: the input's own where in place, else the
     * sentinel. */
    size_t changed = SIZE_MAX;
    for (size_t i = 0; i < total && changed == SIZE_MAX; i++) {
        if (i >= out_off && i < out_off + n)
            continue;
        for (size_t b = 0; b < es; b++)
            if (got[i * es + b] != (in_place ? data[i * es + b] : TC_SENTINEL_BYTE))
                changed = i;
    }
    if (changed != SIZE_MAX) {
        print_error("element %zu outside the output changed\n", changed);
        ok = 0;
    }
    if (!ok && changed == SIZE_MAX) {
        tc_got_want gw = tc_format_got_want(type, &m.got, &m.expected);
        print_error("%s %s %s n=%zu%s: element %zu (of %zu differing, last %zu): got %s, want "
                    "%s\n",
                    tc_op_name(op), tc_type_name(type), tc_scan_kind_name(kind), n,
                    in_place ? (via_subbuffers ? " in place (sub-buffers)" : " in place") : "",
                    m.index, m.wrong, m.last, gw.got, gw.want);
    }
    if (sub_in) {
        clReleaseMemObject(sub_in);
        clReleaseMemObject(sub_out);
    }
    if (out != in)
        clReleaseMemObject(out);
    clReleaseMemObject(in);
    free(data);
    free(got);
    return ok;
}

static const size_t sizes[] = {1, 63, 64, 65, 193, 4097, TC_LARGE_COUNT};

/* Every operator, kind and size through ctx, for every type or (`some`)
 * float, double and int32; sizes over `max_n` skipped. Returns the
 * failures. */
static int run_all(clreduce_ctx *ctx, int some, int in_place, int via_subbuffers, size_t max_n)
{
    int failures = 0, cases = 0;
    for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
        clreduce_type type = tc_all_types[ti];
        if (!tc_type_supported(ctx, type) ||
            (some && type != CLREDUCE_FLOAT && type != CLREDUCE_DOUBLE && type != CLREDUCE_INT32))
            continue;
        for (size_t oi = 0; oi < ARRAY_SIZE(tc_all_ops); oi++)
            for (int kind = 0; kind < 2; kind++)
                for (size_t si = 0; si < ARRAY_SIZE(sizes) && sizes[si] <= max_n; si++) {
                    cases++;
                    failures += !scan_case(ctx, tc_all_ops[oi], type, (clreduce_scan_kind)kind,
                                           sizes[si], in_place, via_subbuffers,
                                           (size_t)cases);
                }
    }
    print_message("%d cases, %d failed\n", cases, failures);
    return failures;
}

/* Waits that give up at the first poll: whatever the runtime's schedule,
 * a tile whose predecessor has not answered yet reduces it itself. (Three
 * types: the hidden tiles below take every type through the fallback.) */
static void test_give_up_at_once(void **state)
{
    (void)state;
    tc_seed_for("give_up_at_once");
    assert_int_equal(run_all(g_spin0, 1, 0, 0, TC_LARGE_COUNT), 0);
}

/* Tiles 0, 3, 6, ... never answer: every tile after one of them reduces it,
 * tile 0 included, and goes on looking back past it. */
static void test_stalled_tiles(void **state)
{
    (void)state;
    tc_seed_for("stalled_tiles");
    assert_int_equal(run_all(g_hide, 0, 0, 0, TC_LARGE_COUNT), 0);
}

/* In place the look-back waits as long as it takes, the hidden tiles
 * included (they do answer such a wait): a fallback would read elements
 * their tile may already have scanned. Through one handle, and through two
 * sub-buffers of one buffer, which only where they lie tells apart. */
static void test_in_place_waits(void **state)
{
    (void)state;
    tc_seed_for("in_place_waits");
    assert_int_equal(run_all(g_hide, 0, 1, 0, 4097), 0);
    assert_int_equal(run_all(g_hide, 0, 1, 1, 4097), 0);
}

/* The check of the check: a fallback that counts its tile twice gives wrong
 * integer sums out of place, and changes nothing in place, where there is
 * no fallback. */
static void test_broken_fallback_is_seen(void **state)
{
    (void)state;
    tc_seed_for("broken_fallback_is_seen");
    print_message("two mismatches are expected here:\n");
    for (int kind = 0; kind < 2; kind++) {
        assert_false(scan_case(g_broken, CLREDUCE_OP_SUM, CLREDUCE_INT32,
                               (clreduce_scan_kind)kind, 4097, 0, 0, 0));
        assert_true(scan_case(g_broken, CLREDUCE_OP_SUM, CLREDUCE_INT32,
                              (clreduce_scan_kind)kind, 4097, 1, 1, 0));
    }
}

/* The packed states: every type, out of place and in place; the fallback
 * with them for three types. */
static void test_packed_states(void **state)
{
    (void)state;
    tc_seed_for("packed_states");
    assert_int_equal(run_all(g_packed, 0, 0, 0, TC_LARGE_COUNT), 0);
    assert_int_equal(run_all(g_packed, 0, 1, 0, 4097), 0);
    assert_int_equal(run_all(g_packed_hide, 1, 0, 0, TC_LARGE_COUNT), 0);
}

/* Calls of every size, in place and not, one after another on one context:
 * the epochs of the tiles' states keep each call's apart. */
static void test_calls_in_turn(void **state)
{
    (void)state;
    tc_seed_for("calls_in_turn");
    int failures = 0;
    for (size_t k = 0; k < 24; k++) {
        size_t n = sizes[k % ARRAY_SIZE(sizes)];
        failures += !scan_case(g_hide, tc_all_ops[k % 3], CLREDUCE_UINT32,
                               (clreduce_scan_kind)(k / 3 % 2), n, (int)(k % 4 == 1),
                               (int)(k % 8 == 5), k);
    }
    assert_int_equal(failures, 0);
}

int main(void)
{
    g_base = tc_start("lookback", &g_queue, NULL);
    if (clreduce_check_scan_support(g_base, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                    CLREDUCE_SCAN_LOOKBACK) != CLREDUCE_SUCCESS) {
        printf("skipped: %s\n", clreduce_last_error(g_base));
        tc_finish(g_base, 0, g_queue, NULL);
        return TC_EXIT_SKIP;
    }
    g_spin0 = new_context("-DCLR_TEST_LOOKBACK_SPINS=0");
    g_hide = new_context("-DCLR_TEST_LOOKBACK_SPINS=0 -DCLR_TEST_LOOKBACK_HIDE=1");
    g_broken = new_context("-DCLR_TEST_LOOKBACK_SPINS=0 -DCLR_TEST_LOOKBACK_HIDE=2");
    g_packed = new_context("-DCLR_PACKED=1");
    g_packed_hide =
        new_context("-DCLR_PACKED=1 -DCLR_TEST_LOOKBACK_SPINS=0 -DCLR_TEST_LOOKBACK_HIDE=1");
    struct CMUnitTest tests[8];
    size_t count = 0;
    tc_add_test(tests, &count, "give_up_at_once", test_give_up_at_once, NULL);
    tc_add_test(tests, &count, "stalled_tiles", test_stalled_tiles, NULL);
    tc_add_test(tests, &count, "in_place_waits", test_in_place_waits, NULL);
    tc_add_test(tests, &count, "broken_fallback_is_seen", test_broken_fallback_is_seen, NULL);
    tc_add_test(tests, &count, "packed_states", test_packed_states, NULL);
    tc_add_test(tests, &count, "calls_in_turn", test_calls_in_turn, NULL);
    int failed = tc_run_tests("lookback", tests, count);
    clreduce_destroy(g_spin0);
    clreduce_destroy(g_hide);
    clreduce_destroy(g_broken);
    clreduce_destroy(g_packed);
    clreduce_destroy(g_packed_hide);
    return tc_finish(g_base, failed, g_queue, NULL);
}
