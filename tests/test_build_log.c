/* unit.build_log: a build log whose positions count lines across all the
 * strings of a program ("<kernel>:489:", as NVIDIA's compiler writes them,
 * ignoring #line) is rewritten to name the file and line of the embedded
 * source, as a compiler that honours #line would have. No device is needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Three sources as the library embeds them: a #line directive, then the
 * file. a.cl has 3 lines (program lines 2-4), b.cl 1 (line 6), c.cl 2
 * (lines 8-9). */
static const char *const sources[] = {
    "#line 1 \"a.cl\"\nfirst\nsecond\nthird\n",
    "#line 1 \"b.cl\"\nonly\n",
    "#line 1 \"c.cl\"\none\ntwo\n",
};
#define NSOURCES (sizeof sources / sizeof *sources)

static void expect_mapped(const char *log, const char *want)
{
    char *got = build_log_map_positions(log, sources, NSOURCES);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_positions_map_to_file_and_line(void **state)
{
    (void)state;
    expect_mapped("<kernel>:2:5: error: x", "a.cl:1:5: error: x");
    expect_mapped("<kernel>:4:1: warning", "a.cl:3:1: warning");
    expect_mapped("<kernel>:6:9: error", "b.cl:1:9: error");
    expect_mapped("<kernel>:9:2: error", "c.cl:2:2: error");
    /* Other names of the same kind, and several positions in one log. */
    expect_mapped("<source>:3:1: note\n<kernel>:8:7: error\n",
                  "a.cl:2:1: note\nc.cl:1:7: error\n");
}

static void test_positions_left_alone(void **state)
{
    (void)state;
    /* Already named by file, on a #line directive, past the end, malformed. */
    expect_mapped("subgroup.cl:137:2: error", "subgroup.cl:137:2: error");
    expect_mapped("<kernel>:1:1: error", "<kernel>:1:1: error");
    expect_mapped("<kernel>:5:1: error", "<kernel>:5:1: error");
    expect_mapped("<kernel>:10:1: error", "<kernel>:10:1: error");
    expect_mapped("<kernel>:99999999999999999999999:1:", "<kernel>:99999999999999999999999:1:");
    expect_mapped("<kernel>:x:1: <kernel>: <> <kernel>:3", "<kernel>:x:1: <kernel>: <> <kernel>:3");
    expect_mapped("", "");
}

static void test_sources_without_directive(void **state)
{
    (void)state;
    static const char *const plain[] = {"no directive\nline\n", "#line 1 \"d.cl\"\nx\n"};
    char *got = build_log_map_positions("<kernel>:1:1: a <kernel>:4:2: b", plain, 2);
    assert_non_null(got);
    assert_string_equal(got, "<kernel>:1:1: a d.cl:1:2: b");
    free(got);
}

/* A user-defined operator's pieces (src/custom.c): each its own string,
 * so that a position in `combine` names it whatever the driver does with
 * #line. */
static void test_operator_pieces(void **state)
{
    (void)state;
    static const char *const pieces[] = {
        "#line 1 \"op\"\n#define A 1\nclr_u f(clr_u a, clr_u b) { return (\n",
        "#line 1 \"op.combine\"\na +\n    zz * b\n",
        "#line 1 \"op\"\n); }\n",
    };
    char *got = build_log_map_positions("<kernel>:6:5: error: use of undeclared identifier 'zz'",
                                        pieces, 3);
    assert_non_null(got);
    assert_string_equal(got, "op.combine:2:5: error: use of undeclared identifier 'zz'");
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_positions_map_to_file_and_line),
        cmocka_unit_test(test_positions_left_alone),
        cmocka_unit_test(test_sources_without_directive),
        cmocka_unit_test(test_operator_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
