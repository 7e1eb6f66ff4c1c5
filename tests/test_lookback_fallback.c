/* unit.lookback_fallback: the look-back scan's fallback, forced. Two
 * contexts on the default context's device are made with the testing knobs
 * of docs/RELIABILITY.md:
 *
 *   stalled  CLREDUCE_LOOKBACK_STALL=1 and CLREDUCE_LOOKBACK_SPIN=0: every
 *            tile reduces its predecessor's input itself and uses that
 *            aggregate (out of place), and falls back at once on any tile
 *            it finds with nothing published;
 *   spin 0   CLREDUCE_LOOKBACK_SPIN=0 alone: tiles fall back wherever the
 *            first poll finds nothing, as the scheduling has it.
 *
 * Every type, operator and kind, out of place and in place, at awkward
 * sizes and offsets: each result must match the CPU reference and be, bit
 * for bit, what the context without knobs gives for the same input
 * (floating-point sums on data whose every prefix is exact, where any order
 * gives the same bits; on random floats the error bound alone holds, as for
 * the look-back without knobs). Also: the knobs' programs are cached under
 * keys of their own, in memory and on disk.
 *
 * CLREDUCE_TEST_SEED=n repeats a run's random data; CLREDUCE_TEST_FILTER=glob
 * runs only the matching tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <unistd.h>

#include "test_common.h"

#define MAX_REPORTS 25

static clreduce_ctx *g_plain;   /* no knobs */
static clreduce_ctx *g_stalled; /* CLREDUCE_LOOKBACK_STALL=1, CLREDUCE_LOOKBACK_SPIN=0 */
static clreduce_ctx *g_spin0;   /* CLREDUCE_LOOKBACK_SPIN=0 */
static cl_command_queue g_queue;

static const size_t sizes[] = {1, 31, 33, 255, 257, 4097, 12289, TC_LARGE_COUNT};

/* A context on g_plain's OpenCL context and device, created with the
 * knobs given (NULL: unset). */
static clreduce_ctx *create_with_knobs(const char *stall, const char *spin)
{
    if (stall)
        setenv("CLREDUCE_LOOKBACK_STALL", stall, 1);
    if (spin)
        setenv("CLREDUCE_LOOKBACK_SPIN", spin, 1);
    clreduce_ctx *ctx = NULL;
    clreduce_status st = clreduce_create(clreduce_get_cl_context(g_plain),
                                         clreduce_get_cl_device(g_plain), &ctx);
    unsetenv("CLREDUCE_LOOKBACK_STALL");
    unsetenv("CLREDUCE_LOOKBACK_SPIN");
    if (st != CLREDUCE_SUCCESS) {
        fprintf(stderr, "clreduce_create failed: %s: %s\n", clreduce_status_string(st),
                clreduce_last_error(NULL));
        exit(1);
    }
    return ctx;
}

/* Data for op on type: for floating-point sums, small integers (every
 * prefix of TC_LARGE_COUNT of them is exact in float) when `exact`, else
 * random floats; otherwise the operator's random data. */
static void fill(clreduce_op op, clreduce_type type, int exact, size_t k, void *data, size_t n)
{
    if (op == CLREDUCE_OP_SUM && tc_is_float_type(type) && exact) {
        for (size_t i = 0; i < n; i++)
            tc_set_double(type, data, i, (double)((int)tc_rand_below(17) - 8));
        return;
    }
    tc_fill_mode(op, type, tc_mode_for(op, k), data, n);
}

/* Offsets that alternate between vector-aligned ones (whole tiles take the
 * vector loads) and odd ones (element by element). */
static tc_scan_layout layout_for(size_t k, int in_place)
{
    tc_scan_layout l;
    memset(&l, 0, sizeof l);
    l.where = in_place ? TC_IN_PLACE : TC_SEPARATE;
    l.lead = (k & 1) ? 3 : 16;
    l.out_lead = (k & 1) ? 5 : 16;
    l.tail = (k % 3) ? 17 : 0;
    return l;
}

typedef struct tally {
    int cases, failures, compared;
} tally;

/* One case on ctx: the CPU reference's check (tc_run_scan), then, where
 * `plain` (g_plain's output for the same input) is given, the same bits. */
static void run_case(tally *t, const char *label, clreduce_ctx *ctx, clreduce_op op,
                     clreduce_type type, clreduce_scan_kind kind, const void *data, size_t n,
                     const tc_scan_layout *layout, const char *data_name, const void *plain,
                     void **output)
{
    tc_scan_run r;
    int ok = tc_run_scan(ctx, g_queue, op, type, kind, CLREDUCE_SCAN_LOOKBACK, data, n, layout,
                         &r);
    t->cases++;
    char why[640] = "";
    size_t es = tc_elem_size(type), differs = SIZE_MAX;
    if (!ok) {
        if (r.status != CLREDUCE_SUCCESS)
            snprintf(why, sizeof why, "status %s: %s", clreduce_status_string(r.status),
                     clreduce_last_error(ctx));
        else if (r.range_checked && r.mismatch.wrong)
            tc_format_scan_mismatch(op, type, &r.mismatch, why, sizeof why);
        else
            snprintf(why, sizeof why, "%zu element(s) outside the range changed%s%s",
                     r.outside_changed, r.problem[0] ? "; " : "", r.problem);
    } else if (plain) {
        t->compared++;
        for (size_t i = 0; i < n && differs == SIZE_MAX; i++)
            if (memcmp((const unsigned char *)r.output + i * es,
                       (const unsigned char *)plain + i * es, es) != 0)
                differs = i;
        if (differs != SIZE_MAX) {
            tc_value got, want;
            tc_get(type, r.output, differs, &got);
            tc_get(type, plain, differs, &want);
            tc_got_want gw = tc_format_got_want(type, &got, &want);
            snprintf(why, sizeof why,
                     "element %zu differs from the look-back without knobs: %s, there %s",
                     differs, gw.got, gw.want);
            ok = 0;
        }
    }
    if (!ok && ++t->failures <= MAX_REPORTS)
        print_error("FAILED [%s] kind=%s op=%s type=%s size=%zu data=%s layout=%s "
                    "input_offset=%zu output_offset=%zu seed=%" PRIu64 ": %s\n",
                    label, tc_scan_kind_name(kind), tc_op_name(op), tc_type_name(type), n,
                    data_name, tc_placement_name(layout->where), r.in_off, r.out_off, tc_seed(),
                    why);
    if (output)
        *output = r.output;
    else
        free(r.output);
}

/* Every operator, type, kind, size, and placement on `ctx` against the
 * reference and against g_plain. */
static void check_context(clreduce_ctx *ctx, const char *label)
{
    clreduce_status st = clreduce_check_scan_support(ctx, CLREDUCE_OP_SUM, CLREDUCE_INT32,
                                                     CLREDUCE_SCAN_LOOKBACK);
    if (st == CLREDUCE_ERROR_UNSUPPORTED) {
        print_message("note: lookback not supported here: %s\n", clreduce_last_error(ctx));
        skip();
    }
    assert_int_equal(st, CLREDUCE_SUCCESS);
    unsigned char *data = malloc(TC_LARGE_COUNT * 8);
    assert_non_null(data);
    tally t = {0, 0, 0};
    size_t k = 0;
    double t0 = tc_now_seconds();
    for (size_t ti = 0; ti < ARRAY_SIZE(tc_all_types); ti++) {
        clreduce_type type = tc_all_types[ti];
        if (!tc_type_supported(ctx, type))
            continue;
        for (size_t oi = 0; oi < ARRAY_SIZE(tc_all_ops); oi++) {
            clreduce_op op = tc_all_ops[oi];
            int float_sum = op == CLREDUCE_OP_SUM && tc_is_float_type(type);
            for (size_t si = 0; si < ARRAY_SIZE(sizes); si++)
                for (int kind = 0; kind < 2; kind++)
                    for (int in_place = 0; in_place < 2; in_place++, k++)
                        for (int exact = 1; exact >= !float_sum; exact--) {
                            size_t n = sizes[si];
                            const char *name = float_sum ? (exact ? "exact" : "random")
                                                         : tc_data_mode_name(tc_mode_for(op, k));
                            fill(op, type, exact, k, data, n);
                            tc_scan_layout l = layout_for(k, in_place);
                            void *plain = NULL;
                            tally ignored = {0, 0, 0};
                            run_case(&ignored, "without knobs", g_plain, op, type,
                                     (clreduce_scan_kind)kind, data, n, &l, name, NULL,
                                     exact ? &plain : NULL);
                            t.failures += ignored.failures;
                            run_case(&t, label, ctx, op, type, (clreduce_scan_kind)kind, data, n,
                                     &l, name, ignored.failures ? NULL : plain, NULL);
                            free(plain);
                        }
        }
    }
    print_message("[%s] %d cases, %d compared bit for bit with the look-back without knobs, "
                  "%d failed, %.1f s\n",
                  label, t.cases, t.compared, t.failures, tc_now_seconds() - t0);
    free(data);
    assert_int_equal(t.failures, 0);
}

static void test_stalled(void **state)
{
    (void)state;
    tc_seed_for("stalled");
    check_context(g_stalled, "stalled");
}

static void test_spin_zero(void **state)
{
    (void)state;
    tc_seed_for("spin_zero");
    check_context(g_spin0, "spin 0");
}

/* Removes the files of a flat directory, then the directory. */
static void remove_flat_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[1024];
        while ((e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
                snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
                unlink(path);
        closedir(d);
    }
    rmdir(dir);
}

/* The knobs' programs are their own: a context with knobs builds (not
 * loads) what a context without them stored in the same disk cache, and a
 * second context with the same knobs loads it. */
static void test_cache_keys(void **state)
{
    (void)state;
    tc_seed_for("cache_keys");
    char dir[] = "/tmp/clreduce-fallback-XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *old = getenv("CLREDUCE_CACHE_DIR");
    char *saved = old ? strdup(old) : NULL;
    setenv("CLREDUCE_CACHE_DIR", dir, 1);
    clreduce_ctx *ctxs[3] = {create_with_knobs(NULL, NULL), create_with_knobs("1", "0"),
                             create_with_knobs("1", "0")};
    if (saved)
        setenv("CLREDUCE_CACHE_DIR", saved, 1);
    else
        unsetenv("CLREDUCE_CACHE_DIR");
    free(saved);
    static const char *const names[] = {"without knobs", "stalled", "stalled again"};
    static const uint64_t built[] = {1, 1, 0}, loaded[] = {0, 0, 1};
    int32_t data[4097];
    for (size_t i = 0; i < ARRAY_SIZE(data); i++)
        data[i] = (int32_t)tc_rand_below(1000) - 500;
    int32_t out[ARRAY_SIZE(data)];
    for (size_t c = 0; c < ARRAY_SIZE(ctxs); c++) {
        assert_int_equal(clreduce_scan_host(ctxs[c], CLREDUCE_OP_SUM, CLREDUCE_INT32,
                                            CLREDUCE_INCLUSIVE, CLREDUCE_SCAN_LOOKBACK, data,
                                            ARRAY_SIZE(data), out),
                         CLREDUCE_SUCCESS);
        char why[256];
        assert_true(tc_scan_matches(CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_INCLUSIVE, data,
                                    ARRAY_SIZE(data), out, why, sizeof why));
        clreduce_cache_stats s = tc_cache_stats(ctxs[c]);
        print_message("%s: %" PRIu64 " built, %" PRIu64 " loaded (%s)\n", names[c],
                      s.programs_built, s.programs_loaded, s.disk_cache_status);
        assert_int_equal(s.programs_built, built[c]);
        assert_int_equal(s.programs_loaded, loaded[c]);
    }
    for (size_t c = 0; c < ARRAY_SIZE(ctxs); c++)
        clreduce_destroy(ctxs[c]);
    remove_flat_dir(dir);
}

int main(void)
{
    unsetenv("CLREDUCE_LOOKBACK_STALL");
    unsetenv("CLREDUCE_LOOKBACK_SPIN");
    g_plain = tc_start("unit.lookback_fallback", &g_queue, NULL);
    g_stalled = create_with_knobs("1", "0");
    g_spin0 = create_with_knobs(NULL, "0");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache_keys),
        cmocka_unit_test(test_stalled),
        cmocka_unit_test(test_spin_zero),
    };
    int failed = tc_run_tests("unit.lookback_fallback", tests, ARRAY_SIZE(tests));
    clreduce_destroy(g_spin0);
    clreduce_destroy(g_stalled);
    return tc_finish(g_plain, failed, g_queue, NULL);
}
