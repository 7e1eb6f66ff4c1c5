/* Program builds: a failed build reports its log and leaves the context
 * usable; a disk cache directory that cannot be created, or a disabled disk
 * cache, costs a compile and nothing else. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <dirent.h>
#include <unistd.h>

#include "test_common.h"

#define COUNT 4099

static clreduce_ctx *base; /* the device under test */
static char cache_dir[64];
static float data[COUNT];
static double expected, abs_sum;

static void fresh_data(void)
{
    expected = abs_sum = 0;
    for (size_t i = 0; i < COUNT; i++) {
        data[i] = (float)(tc_rand_unit() * 2 - 1);
        expected += data[i];
        abs_sum += data[i] < 0 ? -(double)data[i] : data[i];
    }
}

static clreduce_ctx *new_context(const char *build_options)
{
    clreduce_settings settings;
    clreduce_default_settings(&settings);
    settings.build_options = build_options;
    clreduce_ctx *ctx = NULL;
    clreduce_status s = clreduce_create_with_settings(
        clreduce_get_cl_context(base), clreduce_get_cl_device(base), &settings, &ctx);
    if (s != CLREDUCE_SUCCESS)
        print_error("create: %s: %s\n", clreduce_status_string(s), clreduce_last_error(NULL));
    assert_int_equal(s, CLREDUCE_SUCCESS);
    return ctx;
}

/* One float sum through ctx; checks the result and returns the counters. */
static clreduce_cache_stats sum_once(clreduce_ctx *ctx)
{
    float got = -12345.0f;
    clreduce_status s = clreduce_reduce_host(ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                             CLREDUCE_SINGLE_PASS, data, COUNT, &got);
    if (s != CLREDUCE_SUCCESS)
        print_error("reduce: %s: %s\n", clreduce_status_string(s), clreduce_last_error(ctx));
    assert_int_equal(s, CLREDUCE_SUCCESS);
    double err = got - expected;
    if (err < 0)
        err = -err;
    if (!(err <= 1e-5 * abs_sum))
        print_error("sum %.9g, expected %.9g\n", (double)got, expected);
    assert_true(err <= 1e-5 * abs_sum);
    clreduce_cache_stats stats;
    assert_int_equal(clreduce_get_cache_stats(ctx, &stats), CLREDUCE_SUCCESS);
    return stats;
}

/* The cache files, for damaging them. */
static int list_cache_files(char names[][320], int max)
{
    int n = 0;
    DIR *d = opendir(cache_dir);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < max)
        if (strstr(e->d_name, ".bin") && !strstr(e->d_name, ".tmp"))
            snprintf(names[n++], 320, "%s/%s", cache_dir, e->d_name);
    closedir(d);
    return n;
}

static void empty_cache_dir(void)
{
    char names[64][320];
    int n = list_cache_files(names, 64);
    for (int i = 0; i < n; i++)
        unlink(names[i]);
}

static void test_build_failure_reports_log(void **state)
{
    (void)state;
    /* The kernels stop with #error for an unknown element type: a genuine
     * compiler failure, through the documented extra build options. */
    clreduce_ctx *ctx = new_context("-DCLR_TYPE=42");
    float got = -1.0f;
    clreduce_status s = clreduce_reduce_host(ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_AUTO,
                                             data, COUNT, &got);
    assert_int_equal(s, CLREDUCE_ERROR_BUILD);
    assert_true(got == -1.0f);
    const char *msg = clreduce_last_error(ctx);
    printf("build failure message (first line): %.*s\n", (int)strcspn(msg, "\n"), msg);
    assert_non_null(strstr(msg, "clBuildProgram"));
    /* The log names the failing check; some compilers print the #error text,
     * all print the word error. */
    assert_true(tc_contains(msg, "build log") && tc_contains(msg, "error"));
    clreduce_cache_stats stats;
    assert_int_equal(clreduce_get_cache_stats(ctx, &stats), CLREDUCE_SUCCESS);
    assert_int_equal(stats.programs_built, 0);
    /* Still usable: the same failure again, not a crash or a stale entry. */
    assert_int_equal(clreduce_reduce_host(ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_AUTO,
                                          data, COUNT, &got),
                     CLREDUCE_ERROR_BUILD);
    clreduce_destroy(ctx);
}

/* The line of cl/<file> that holds `text`, or 0. CLREDUCE_CL_DIR names the
 * kernels' source directory. */
static unsigned source_line(const char *file, const char *text)
{
    const char *dir = getenv("CLREDUCE_CL_DIR");
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "cl", file);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[512];
    unsigned n = 0, found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        n++;
        if (strstr(line, text))
            found = n;
    }
    fclose(f);
    return found;
}

/* Every embedded source starts with #line, so a compiler's message names
 * the source file and its own line, not a line counted across every source
 * of the program. */
static void test_build_error_names_file_and_line(void **state)
{
    (void)state;
    /* subgroup.cl comes after other sources in every program. */
    unsigned line = source_line("subgroup.cl", "#error \"CLR_SG_PATH must be");
    if (!line)
        fail_msg("cl/subgroup.cl not found: set CLREDUCE_CL_DIR");
    clreduce_ctx *ctx = new_context("-DCLR_SG_PATH=42");
    float got = -1.0f;
    assert_int_equal(clreduce_reduce_host(ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_AUTO,
                                          data, COUNT, &got),
                     CLREDUCE_ERROR_BUILD);
    const char *msg = clreduce_last_error(ctx);
    /* Clang-based compilers write "subgroup.cl:N:", others "subgroup.cl",
     * line N. */
    char clang[64], edg[64];
    snprintf(clang, sizeof clang, "subgroup.cl:%u:", line);
    snprintf(edg, sizeof edg, "\"subgroup.cl\", line %u", line);
    if (!strstr(msg, clang) && !strstr(msg, edg))
        fail_msg("the build log does not name subgroup.cl:%u:\n%s", line, msg);
    clreduce_destroy(ctx);
}

static void test_disk_cache_unusable_or_disabled(void **state)
{
    (void)state;
    /* A directory that cannot be made (a file stands in its parent's place). */
    char blocker[96];
    snprintf(blocker, sizeof blocker, "%s/not-a-dir", cache_dir);
    FILE *f = fopen(blocker, "w");
    assert_non_null(f);
    fclose(f);
    char inside[160];
    snprintf(inside, sizeof inside, "%s/sub/cache", blocker);
    setenv("CLREDUCE_CACHE_DIR", inside, 1);
    fresh_data();
    clreduce_ctx *a = new_context(NULL);
    clreduce_cache_stats s = sum_once(a);
    assert_int_equal(s.programs_built, 1);
    clreduce_destroy(a);
    unlink(blocker);

    /* Disabled: nothing written, every new context compiles. */
    setenv("CLREDUCE_CACHE_DIR", "off", 1);
    empty_cache_dir();
    for (int i = 0; i < 2; i++) {
        clreduce_ctx *b = new_context(NULL);
        s = sum_once(b);
        assert_int_equal(s.programs_built, 1);
        assert_int_equal(s.programs_loaded, 0);
        clreduce_destroy(b);
    }
    char names[8][320];
    assert_int_equal(list_cache_files(names, 8), 0);
}

int main(void)
{
    tc_init_seed();
    base = tc_create_default_or_skip("unit.build");
    snprintf(cache_dir, sizeof cache_dir, "/tmp/clreduce-test-cache.XXXXXX");
    if (!mkdtemp(cache_dir)) {
        fprintf(stderr, "cannot create a temporary directory\n");
        return 1;
    }
    fresh_data();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_failure_reports_log),
        cmocka_unit_test(test_build_error_names_file_and_line),
        cmocka_unit_test(test_disk_cache_unusable_or_disabled),
    };
    int failed = cmocka_run_group_tests_name("build", tests, NULL, NULL);
    empty_cache_dir();
    rmdir(cache_dir);
    clreduce_destroy(base);
    return failed;
}
