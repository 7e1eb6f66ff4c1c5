/* unit.cache: the in-memory program cache builds once per (op, type,
 * variant) and context and serves repeated calls (whatever their data, size
 * and offsets) without building; the disk cache lets a new context load
 * instead of compiling, and a damaged or deleted cache is compiled again. The
 * kernels give correct results either way. Every kind of damage to a cache
 * file (cut short, bytes changed anywhere, another program's file or binary,
 * an older layout, an empty file, a directory in its place) is compiled
 * again, said in disk_cache_status, and the file rewritten good; a cache
 * directory that cannot be made or written is said there too, and nothing
 * fails.
 *
 * Every context here gets its own disk cache directory (or none), through
 * CLREDUCE_CACHE_DIR at its creation, so that nothing left on disk by earlier
 * runs changes the counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_common.h"

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;
static char g_tmp[256]; /* this run's scratch directory */

static clreduce_cache_stats stats_of(const clreduce_ctx *ctx)
{
    clreduce_cache_stats s;
    memset(&s, 0xff, sizeof s);
    assert_int_equal(clreduce_get_cache_stats(ctx, &s), CLREDUCE_SUCCESS);
    assert_non_null(memchr(s.disk_cache_status, '\0', sizeof s.disk_cache_status));
    /* Callers compare stats as memory (unit.errors, unit.scan): whatever
     * the struct held before, the same state gives the same bytes. */
    clreduce_cache_stats again;
    memset(&again, 0, sizeof again);
    assert_int_equal(clreduce_get_cache_stats(ctx, &again), CLREDUCE_SUCCESS);
    assert_memory_equal(&s, &again, sizeof s);
    return s;
}

/* One reduction of fresh random data, checked against the reference. */
static void reduce_checked(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                           clreduce_variant v, size_t n, size_t offset, size_t result_offset)
{
    void *data = malloc(n * 8 + 8);
    assert_non_null(data);
    tc_fill_random(type, data, n);
    tc_layout l = {offset, 7, result_offset, 0, NULL};
    tc_run run;
    tc_value ref;
    long double abs_sum;
    tc_reference(op, type, data, n, &ref, &abs_sum);
    int harness = tc_run_reduce(ctx, g_queue, op, type, v, data, n, &l, &run);
    free(data);
    if (harness != 0 || run.status != CLREDUCE_SUCCESS || !run.neighbours_untouched ||
        !tc_matches(op, type, &run.got, &ref, abs_sum)) {
        tc_got_want text = tc_format_got_want(type, &run.got, &ref);
        print_error("FAILED variant=%s op=%s type=%s size=%zu offset=%zu result_offset=%zu: %s "
                    "(%s) got %s, expected %s %s\n",
                    tc_variant_name(v), tc_op_name(op), tc_type_name(type), n, offset,
                    result_offset, clreduce_status_string(run.status),
                    run.status ? clreduce_last_error(ctx) : "", text.got, text.want, run.problem);
        fail();
    }
}

/* A new context on g_ctx's device whose disk cache is `dir` ("off": none). */
static clreduce_ctx *context_with_disk_cache(const char *dir)
{
    clreduce_ctx *c = NULL;
    assert_int_equal(setenv("CLREDUCE_CACHE_DIR", dir, 1), 0);
    assert_int_equal(clreduce_create(clreduce_get_cl_context(g_ctx),
                                     clreduce_get_cl_device(g_ctx), &c),
                     CLREDUCE_SUCCESS);
    return c;
}

static clreduce_ctx *fresh_context(void)
{
    return context_with_disk_cache("off");
}

static void print_stats(const char *when, clreduce_cache_stats s)
{
    print_message("%-44s programs_built %llu, programs_loaded %llu, cache_hits %llu%s%s\n", when,
                  (unsigned long long)s.programs_built, (unsigned long long)s.programs_loaded,
                  (unsigned long long)s.cache_hits, s.disk_cache_status[0] ? "; disk cache: " : "",
                  s.disk_cache_status);
}

/* ---- files of a cache directory ---------------------------------------- */

typedef enum file_action { COUNT_FILES, CORRUPT_FILES, TRUNCATE_FILES, REMOVE_FILES } file_action;

/* The next regular file of d, the open directory `dir`: its path and what
 * stat says of it; 0 when there are no more. */
static int next_file(DIR *d, const char *dir, char path[1024], struct stat *st)
{
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (snprintf(path, 1024, "%s/%s", dir, e->d_name) < 1024 && stat(path, st) == 0 &&
            S_ISREG(st->st_mode))
            return 1;
    return 0;
}

/* Applies `action` to every regular file of `dir`; returns how many. */
static int for_each_file(const char *dir, file_action action)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    char path[1024];
    struct stat st;
    while (next_file(d, dir, path, &st)) {
        n++;
        if (action == CORRUPT_FILES) {
            /* Same name, same size, other bytes. */
            FILE *f = fopen(path, "r+b");
            assert_non_null(f);
            for (off_t i = 0; i < st.st_size; i++)
                fputc((int)(i * 131 + 7) & 0xff, f);
            fclose(f);
        } else if (action == TRUNCATE_FILES) {
            assert_int_equal(truncate(path, st.st_size / 2), 0);
        } else if (action == REMOVE_FILES) {
            unlink(path);
        }
    }
    closedir(d);
    return n;
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[1024];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path)
            continue;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(path);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

/* One reduction (reduce_checked), then the counters of c, printed. */
static clreduce_cache_stats reduce_and_count(clreduce_ctx *c, clreduce_op op, clreduce_type type,
                                             clreduce_variant v, size_t n, size_t offset,
                                             size_t result_offset)
{
    reduce_checked(c, op, type, v, n, offset, result_offset);
    clreduce_cache_stats s = stats_of(c);
    char when[96];
    snprintf(when, sizeof when, "after %s %s %s:", tc_op_name(op), tc_type_name(type),
             tc_variant_name(v));
    print_stats(when, s);
    return s;
}

static void test_build_once(void **state)
{
    (void)state;
    tc_seed_for("build_once");
    clreduce_ctx *c = fresh_context();
    clreduce_cache_stats s0 = stats_of(c);
    assert_true(s0.programs_built == 0 && s0.programs_loaded == 0 && s0.cache_hits == 0);

    /* Asking whether something is supported builds nothing. */
    assert_int_equal(
        clreduce_check_support(c, CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_GRID_STRIDE),
        CLREDUCE_SUCCESS);
    clreduce_cache_stats s = stats_of(c);
    assert_true(s.programs_built == 0 && s.cache_hits == 0);

    clreduce_cache_stats s1 =
        reduce_and_count(c, CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_GRID_STRIDE, 5000, 3, 1);
    assert_true(s1.programs_built >= 1);

    /* Same op, type and variant; other data, size and offsets. */
    clreduce_cache_stats s2 =
        reduce_and_count(c, CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_GRID_STRIDE, 777, 5, 2);
    assert_true(s2.programs_built == s1.programs_built);
    assert_true(s2.cache_hits > s1.cache_hits);

    clreduce_cache_stats s3 = reduce_and_count(c, CLREDUCE_OP_SUM, CLREDUCE_INT32,
                                               CLREDUCE_GRID_STRIDE, TC_LARGE_COUNT, 1, 0);
    assert_true(s3.programs_built == s1.programs_built);
    assert_true(s3.cache_hits > s2.cache_hits);

    /* Another op, another type, another variant: each a new program. */
    static const struct {
        clreduce_op op;
        clreduce_type type;
        clreduce_variant v;
    } others[] = {{CLREDUCE_OP_MAX, CLREDUCE_INT32, CLREDUCE_GRID_STRIDE},
                  {CLREDUCE_OP_MAX, CLREDUCE_FLOAT, CLREDUCE_GRID_STRIDE},
                  {CLREDUCE_OP_MAX, CLREDUCE_FLOAT, CLREDUCE_SEQUENTIAL}};
    clreduce_cache_stats s6 = s3; /* after the last of them */
    for (size_t i = 0; i < ARRAY_SIZE(others); i++) {
        clreduce_cache_stats before = s6;
        s6 = reduce_and_count(c, others[i].op, others[i].type, others[i].v, 4097, 3, 1);
        assert_true(s6.programs_built > before.programs_built);
    }

    /* All of them again, in another order: nothing new. */
    reduce_checked(c, CLREDUCE_OP_MAX, CLREDUCE_FLOAT, CLREDUCE_SEQUENTIAL, 33, 0, 0);
    reduce_checked(c, CLREDUCE_OP_MAX, CLREDUCE_INT32, CLREDUCE_GRID_STRIDE, 65537, 9, 3);
    reduce_checked(c, CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_GRID_STRIDE, 1, 2, 1);
    reduce_checked(c, CLREDUCE_OP_MAX, CLREDUCE_FLOAT, CLREDUCE_GRID_STRIDE, 300, 4, 0);
    clreduce_cache_stats s7 = stats_of(c);
    print_stats("after repeating all four:", s7);
    assert_true(s7.programs_built == s6.programs_built);
    assert_true(s7.cache_hits >= s6.cache_hits + 4);

    /* clreduce_reduce_host shares the cache. */
    int32_t host[100], got = 0;
    int64_t want = 0;
    for (int i = 0; i < 100; i++) {
        host[i] = i * 37 - 1000;
        want = want > host[i] ? want : host[i];
    }
    assert_int_equal(clreduce_reduce_host(c, CLREDUCE_OP_MAX, CLREDUCE_INT32,
                                          CLREDUCE_GRID_STRIDE, host, 100, &got),
                     CLREDUCE_SUCCESS);
    assert_int_equal(got, want);
    clreduce_cache_stats s8 = stats_of(c);
    print_stats("after reduce_host of a cached kernel:", s8);
    assert_true(s8.programs_built == s7.programs_built);
    assert_true(s8.cache_hits > s7.cache_hits);
    clreduce_destroy(c);
}

/* Each context has its own cache. */
static void test_per_context(void **state)
{
    (void)state;
    tc_seed_for("per_context");
    clreduce_ctx *a = fresh_context();
    reduce_checked(a, CLREDUCE_OP_MIN, CLREDUCE_UINT32, CLREDUCE_SEQUENTIAL, 1000, 3, 1);
    clreduce_cache_stats sa = stats_of(a);
    assert_true(sa.programs_built >= 1);
    clreduce_ctx *b = fresh_context();
    clreduce_cache_stats sb = stats_of(b);
    assert_true(sb.programs_built == 0 && sb.cache_hits == 0);
    reduce_checked(b, CLREDUCE_OP_MIN, CLREDUCE_UINT32, CLREDUCE_SEQUENTIAL, 1000, 5, 2);
    sb = stats_of(b);
    assert_true(sb.programs_built >= 1);
    clreduce_cache_stats sa2 = stats_of(a);
    assert_true(sa2.programs_built == sa.programs_built && sa2.cache_hits == sa.cache_hits);
    clreduce_destroy(b);
    clreduce_destroy(a);
}

/* The disk cache: a second context loads what the first compiled; damaged
 * files and a deleted directory are compiled again; "off" and "" disable it. */
static void check_counts(clreduce_cache_stats s, int built, int loaded)
{
    if (built)
        assert_true(s.programs_built >= 1);
    else
        assert_true(s.programs_built == 0);
    if (loaded)
        assert_true(s.programs_loaded >= 1);
    else
        assert_true(s.programs_loaded == 0);
}

static void use_once(clreduce_ctx *c, size_t n)
{
    reduce_checked(c, CLREDUCE_OP_MIN, CLREDUCE_INT64, CLREDUCE_FIRST_ADD, n, 3, 1);
    reduce_checked(c, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_SINGLE_PASS, n + 1000, 5, 2);
}

/* A new context on the disk cache `dir`, on which `use` runs its programs
 * (with n elements), then is destroyed: returns its counters, printed with
 * `when`. */
static clreduce_cache_stats use_and_count(const char *when, const char *dir,
                                          void (*use)(clreduce_ctx *, size_t), size_t n)
{
    clreduce_ctx *c = context_with_disk_cache(dir);
    use(c, n);
    clreduce_cache_stats s = stats_of(c);
    print_stats(when, s);
    clreduce_destroy(c);
    return s;
}

/* The same, with check_counts. */
static void use_and_check(const char *when, const char *dir, void (*use)(clreduce_ctx *, size_t),
                          size_t n, int built, int loaded)
{
    check_counts(use_and_count(when, dir, use, n), built, loaded);
}

static void test_disk_cache(void **state)
{
    (void)state;
    tc_seed_for("disk_cache");
    char dir[300];
    snprintf(dir, sizeof dir, "%s/disk", g_tmp);

    use_and_check("first context, empty directory:", dir, use_once, 4097, 1, 0);
    int files = for_each_file(dir, COUNT_FILES);
    print_message("%d file(s) in the disk cache\n", files);
    assert_true(files >= 1);

    use_and_check("second context, same directory:", dir, use_once, 65537, 0, 1);

    assert_int_equal(for_each_file(dir, CORRUPT_FILES), files);
    use_and_check("after overwriting the files:", dir, use_once, 1000, 1, 0);

    /* The rebuilt programs were stored again: load them, then cut them. */
    use_and_check("after the rebuild:", dir, use_once, 33, 0, 1);
    assert_true(for_each_file(dir, TRUNCATE_FILES) >= 1);
    use_and_check("after truncating the files:", dir, use_once, 257, 1, 0);

    /* The directory "can be deleted at any time". */
    remove_tree(dir);
    use_and_check("after deleting the directory:", dir, use_once, 4097, 1, 0);
    assert_true(for_each_file(dir, COUNT_FILES) >= 1);

    /* Disabled: compiled every time, nothing written. */
    static const char *const off[] = {"off", ""};
    for (size_t i = 0; i < 2; i++) {
        for_each_file(dir, REMOVE_FILES);
        for (int round = 0; round < 2; round++)
            use_and_check(i ? "CLREDUCE_CACHE_DIR=\"\":" : "CLREDUCE_CACHE_DIR=off:", off[i],
                          use_once, 1000, 1, 0);
        assert_int_equal(for_each_file(dir, COUNT_FILES), 0);
    }
}

/* ---- damaged cache files ------------------------------------------------- */

/* One scan of fresh random data through the host entry point, checked
 * against the reference. */
static void scan_checked(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                         clreduce_scan_variant v, size_t n)
{
    size_t bytes = n * clreduce_type_size(type);
    void *in = malloc(bytes), *out = malloc(bytes);
    assert_true(in && out);
    tc_fill_random(type, in, n);
    char why[512] = "";
    clreduce_status st = clreduce_scan_host(ctx, op, type, CLREDUCE_INCLUSIVE, v, in, n, out);
    int ok = st == CLREDUCE_SUCCESS &&
             tc_scan_matches(op, type, CLREDUCE_INCLUSIVE, in, n, out, why, sizeof why);
    if (!ok)
        print_error("FAILED scan %s %s %s size=%zu: %s (%s) %s\n", tc_scan_variant_name(v),
                    tc_op_name(op), tc_type_name(type), n, clreduce_status_string(st),
                    st ? clreduce_last_error(ctx) : "", why);
    free(in);
    free(out);
    assert_true(ok);
}

/* Two programs whose kernels have other names: a reduction and a scan. */
static void use_two_programs(clreduce_ctx *c, size_t n)
{
    reduce_checked(c, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_SINGLE_PASS, n, 3, 1);
    scan_checked(c, CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_SCAN_REDUCE_THEN_SCAN, n + 5);
}

/* A cache file as src/disk_cache.c lays it out: magic (8 bytes), key size
 * (uint32), key, binary size (uint64), binary, checksum (uint64: 64-bit
 * FNV-1a over every byte before it). */
typedef struct cache_file {
    char path[1024];
    unsigned char *bytes;
    size_t size;
    size_t key_at, key_size;
    size_t binary_at, binary_size;
    size_t end; /* where the checksum starts */
} cache_file;

static uint64_t fnv1a(const unsigned char *p, size_t size)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < size; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Reads and parses a good file: fails the test on one that is not. */
static void read_cache_file(const char *path, cache_file *f)
{
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", path);
    FILE *in = fopen(path, "rb");
    assert_non_null(in);
    struct stat st;
    assert_int_equal(fstat(fileno(in), &st), 0);
    assert_true(S_ISREG(st.st_mode) && st.st_size > 28);
    f->size = (size_t)st.st_size;
    f->bytes = malloc(f->size);
    assert_non_null(f->bytes);
    assert_int_equal(fread(f->bytes, 1, f->size, in), f->size);
    fclose(in);
    assert_memory_equal(f->bytes, "CLRBIN2\n", 8);
    uint32_t key_size;
    uint64_t binary_size, sum;
    memcpy(&key_size, f->bytes + 8, 4);
    f->key_at = 12;
    f->key_size = key_size;
    assert_true(f->key_at + f->key_size + 8 <= f->size);
    memcpy(&binary_size, f->bytes + f->key_at + f->key_size, 8);
    f->binary_at = f->key_at + f->key_size + 8;
    f->binary_size = (size_t)binary_size;
    f->end = f->binary_at + f->binary_size;
    assert_true(f->binary_size >= 32 && f->end + 8 == f->size);
    memcpy(&sum, f->bytes + f->end, 8);
    assert_true(sum == fnv1a(f->bytes, f->end));
}

static void write_file(const char *path, const void *bytes, size_t size)
{
    FILE *out = fopen(path, "wb");
    assert_non_null(out);
    assert_int_equal(fwrite(bytes, 1, size, out), size);
    assert_int_equal(fclose(out), 0);
}

/* Ways to damage a file; each comes with what disk_cache_status must say. */
typedef enum damage {
    EMPTY,
    CUT_IN_HEADER,
    CUT_IN_BINARY,
    CUT_IN_CHECKSUM,
    FLIP_HEADER,      /* 16 bytes of the magic, key size and key */
    FLIP_KEY,         /* 16 bytes in the middle of the key */
    FLIP_BINARY_SIZE,
    FLIP_BINARY,      /* 16 bytes at a tenth, half and nine tenths of the binary */
    FLIP_BINARY_BIT,  /* one bit of the binary */
    FLIP_CHECKSUM,
    TRAILING_BYTES,
    OLDER_LAYOUT,     /* magic CLRBIN1, no checksum */
    OTHER_FILE,       /* the other program's file copied over this one */
    OTHER_BINARY,     /* this key, the other program's binary, a valid checksum */
    DIRECTORY,        /* an empty directory of the file's name */
    DAMAGE_COUNT
} damage;

static const struct {
    const char *name;
    const char *says;
} damages[DAMAGE_COUNT] = {
    [EMPTY] = {"empty file", "empty"},
    [CUT_IN_HEADER] = {"cut in the header", "truncated"},
    [CUT_IN_BINARY] = {"cut in the binary", "truncated"},
    [CUT_IN_CHECKSUM] = {"cut in the checksum", "truncated"},
    [FLIP_HEADER] = {"16 bytes of the header flipped", "not a clreduce cache file"},
    [FLIP_KEY] = {"16 bytes of the key flipped", "checksum"},
    [FLIP_BINARY_SIZE] = {"binary size changed", "binary size"},
    [FLIP_BINARY] = {"16 bytes of the binary flipped", "checksum"},
    [FLIP_BINARY_BIT] = {"one bit of the binary flipped", "checksum"},
    [FLIP_CHECKSUM] = {"checksum flipped", "checksum"},
    [TRAILING_BYTES] = {"bytes after the checksum", "after the checksum"},
    [OLDER_LAYOUT] = {"older layout without checksum", "another layout"},
    [OTHER_FILE] = {"another program's file", "another program"},
    [OTHER_BINARY] = {"another program's binary, valid checksum", "creating kernel"},
    [DIRECTORY] = {"a directory in its place", "not a regular file"},
};

static void flip(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] ^= 0xff;
}

/* Damages file f, `other` being the other program's (good) file. */
static void apply_damage(damage d, const cache_file *f, const cache_file *other)
{
    size_t size = f->size;
    unsigned char *b = malloc(size + other->size + 64);
    assert_non_null(b);
    memcpy(b, f->bytes, size);
    switch (d) {
    case EMPTY: size = 0; break;
    case CUT_IN_HEADER: size = f->key_at + f->key_size / 2; break;
    case CUT_IN_BINARY: size = f->binary_at + f->binary_size / 2; break;
    case CUT_IN_CHECKSUM: size = f->end + 3; break;
    case FLIP_HEADER: flip(b + 4, 16); break;
    case FLIP_KEY: flip(b + f->key_at + f->key_size / 2 - 8, 16); break;
    case FLIP_BINARY_SIZE: flip(b + f->binary_at - 3, 3); break; /* high bytes */
    case FLIP_BINARY:
        /* Where Intel's CPU runtime, given the binary, crashed (a tenth, nine
         * tenths) or did not notice (half). */
        flip(b + f->binary_at + f->binary_size / 10, 16);
        flip(b + f->binary_at + f->binary_size / 2, 16);
        flip(b + f->binary_at + f->binary_size / 10 * 9, 16);
        break;
    case FLIP_BINARY_BIT: b[f->binary_at + f->binary_size / 3] ^= 0x10; break;
    case FLIP_CHECKSUM: flip(b + f->end, 8); break;
    case TRAILING_BYTES: memset(b + size, 0, 16); size += 16; break;
    case OLDER_LAYOUT: b[6] = '1'; size = f->end; break;
    case OTHER_FILE: memcpy(b, other->bytes, other->size); size = other->size; break;
    case OTHER_BINARY: {
        uint64_t binary_size = other->binary_size, sum;
        memcpy(b + f->binary_at - 8, &binary_size, 8);
        memcpy(b + f->binary_at, other->bytes + other->binary_at, other->binary_size);
        size = f->binary_at + other->binary_size;
        sum = fnv1a(b, size);
        memcpy(b + size, &sum, 8);
        size += 8;
        break;
    }
    case DIRECTORY:
    case DAMAGE_COUNT: break;
    }
    if (d == DIRECTORY) {
        assert_int_equal(unlink(f->path), 0);
        assert_int_equal(mkdir(f->path, 0755), 0);
    } else {
        write_file(f->path, b, size);
    }
    free(b);
}

/* The paths of the regular files of dir: returns how many (at most max). */
static int list_files(const char *dir, char paths[][1024], int max)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    char path[1024];
    struct stat st;
    while (next_file(d, dir, path, &st)) {
        assert_true(n < max);
        memcpy(paths[n++], path, sizeof path);
    }
    closedir(d);
    return n;
}

static void test_damaged_files(void **state)
{
    (void)state;
    tc_seed_for("damaged_files");
    char dir[300];
    snprintf(dir, sizeof dir, "%s/damaged", g_tmp);
    clreduce_cache_stats s =
        use_and_count("first context, empty directory:", dir, use_two_programs, 5000);
    uint64_t programs = s.programs_built;
    assert_int_equal(programs, 2);
    assert_string_equal(s.disk_cache_status, "");

    char paths[2][1024];
    assert_int_equal(list_files(dir, paths, 2), 2);
    for (int d = 0; d < DAMAGE_COUNT; d++) {
        cache_file f[2];
        read_cache_file(paths[0], &f[0]);
        read_cache_file(paths[1], &f[1]);
        apply_damage((damage)d, &f[0], &f[1]);
        apply_damage((damage)d, &f[1], &f[0]);

        /* Compiled again, with correct results, and said. */
        s = use_and_count(damages[d].name, dir, use_two_programs, 4097 + (size_t)d * 1001);
        assert_int_equal(s.programs_built, programs);
        assert_int_equal(s.programs_loaded, 0);
        if (!tc_contains(s.disk_cache_status, damages[d].says) ||
            !tc_contains(s.disk_cache_status, ".bin: ") ||
            !tc_contains(s.disk_cache_status, "compiled from source")) {
            print_error("%s: disk_cache_status does not say \"%s\"\n", damages[d].name,
                        damages[d].says);
            fail();
        }

        /* The files were written anew, good: the next context loads them. */
        for (int i = 0; i < 2; i++) {
            cache_file good;
            read_cache_file(f[i].path, &good);
            free(good.bytes);
            free(f[i].bytes);
        }
        s = use_and_count("rewritten, loaded again:", dir, use_two_programs, 999);
        assert_int_equal(s.programs_built, 0);
        assert_int_equal(s.programs_loaded, programs);
        assert_string_equal(s.disk_cache_status, "");
    }
}

/* ---- the cache directory -------------------------------------------------- */

static void test_cache_directory(void **state)
{
    (void)state;
    tc_seed_for("cache_directory");

    /* Three levels that do not exist yet. */
    char dir[300];
    snprintf(dir, sizeof dir, "%s/one/two/three", g_tmp);
    clreduce_cache_stats s = use_and_count("three missing levels:", dir, use_two_programs, 3001);
    check_counts(s, 1, 0);
    assert_string_equal(s.disk_cache_status, "");
    assert_int_equal(for_each_file(dir, COUNT_FILES), 2);
    use_and_check("three levels, second context:", dir, use_two_programs, 3002, 0, 1);

    /* A regular file where a directory should be: above the cache, or the
     * cache directory itself. */
    char file[300];
    snprintf(file, sizeof file, "%s/blocker", g_tmp);
    write_file(file, "x", 1);
    static const char *const below[] = {"/cache", "/a/b", ""};
    for (int i = 0; i < 3; i++) {
        snprintf(dir, sizeof dir, "%s%s", file, below[i]);
        for (int round = 0; round < 2; round++) {
            s = use_and_count(dir + strlen(g_tmp), dir, use_two_programs, 2000 + (size_t)round);
            assert_int_equal(s.programs_built, 2);
            assert_int_equal(s.programs_loaded, 0);
            assert_true(tc_contains(s.disk_cache_status, "blocker"));
            assert_true(tc_contains(s.disk_cache_status, "not a directory"));
        }
    }
    struct stat st;
    assert_int_equal(stat(file, &st), 0);
    assert_true(S_ISREG(st.st_mode) && st.st_size == 1);

    /* A directory the process may not write to (root writes anywhere). */
    if (geteuid() != 0) {
        snprintf(dir, sizeof dir, "%s/read-only", g_tmp);
        assert_int_equal(mkdir(dir, 0555), 0);
        s = use_and_count("read-only directory:", dir, use_two_programs, 1234);
        assert_int_equal(s.programs_built, 2);
        assert_true(tc_contains(s.disk_cache_status, "cannot write"));
        chmod(dir, 0755);
    } else {
        print_message("read-only directory: not tried (running as root)\n");
    }

    /* Nowhere to put it: off, and said. */
    static const char *const vars[] = {"CLREDUCE_CACHE_DIR", "XDG_CACHE_HOME", "HOME"};
    char *saved[3];
    for (int i = 0; i < 3; i++) {
        saved[i] = getenv(vars[i]) ? strdup(getenv(vars[i])) : NULL;
        unsetenv(vars[i]);
    }
    clreduce_ctx *c = NULL;
    assert_int_equal(clreduce_create(clreduce_get_cl_context(g_ctx),
                                     clreduce_get_cl_device(g_ctx), &c),
                     CLREDUCE_SUCCESS);
    for (int i = 0; i < 3; i++) {
        if (saved[i])
            setenv(vars[i], saved[i], 1);
        free(saved[i]);
    }
    use_two_programs(c, 777);
    s = stats_of(c);
    print_stats("no HOME:", s);
    assert_int_equal(s.programs_built, 2);
    assert_true(tc_contains(s.disk_cache_status, "off") &&
                tc_contains(s.disk_cache_status, "HOME"));
    clreduce_destroy(c);

    c = context_with_disk_cache("off");
    s = stats_of(c);
    assert_true(tc_contains(s.disk_cache_status, "off"));
    clreduce_destroy(c);
}

/* Several threads asking for the same new kernel at once: all get correct
 * results, and later calls find it in the cache. */
enum { THREADS = 4, PER_THREAD = 3, THREAD_N = 20000 };

typedef struct worker {
    clreduce_ctx *ctx;
    uint64_t seed;
    int ok;
    char why[256];
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    int64_t *data = malloc(THREAD_N * sizeof *data);
    w->ok = data != NULL;
    uint64_t x = w->seed;
    for (int it = 0; it < PER_THREAD && w->ok; it++) {
        uint64_t want = 0;
        for (int i = 0; i < THREAD_N; i++) {
            x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
            data[i] = (int64_t)(x ^ (x >> 29));
            want += (uint64_t)data[i];
        }
        int64_t got = 0;
        clreduce_status st = clreduce_reduce_host(w->ctx, CLREDUCE_OP_SUM, CLREDUCE_INT64,
                                                  CLREDUCE_FIRST_ADD, data, THREAD_N, &got);
        if (st != CLREDUCE_SUCCESS || (uint64_t)got != want) {
            snprintf(w->why, sizeof w->why, "%s (%s): got %lld, expected %lld",
                     clreduce_status_string(st), clreduce_last_error(w->ctx), (long long)got,
                     (long long)(int64_t)want);
            w->ok = 0;
        }
    }
    free(data);
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    tc_seed_for("threads");
    clreduce_ctx *c = fresh_context();
    pthread_t th[THREADS];
    worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].ctx = c;
        w[i].seed = tc_rand64();
        assert_int_equal(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < THREADS; i++) {
        if (!w[i].ok)
            print_error("thread %d: %s\n", i, w[i].why);
        assert_true(w[i].ok);
    }
    clreduce_cache_stats s1 = stats_of(c);
    print_stats("after 4 threads x 3 calls:", s1);
    assert_true(s1.programs_built >= 1);
    assert_true(s1.programs_built + s1.cache_hits >= THREADS * PER_THREAD);
    reduce_checked(c, CLREDUCE_OP_SUM, CLREDUCE_INT64, CLREDUCE_FIRST_ADD, 999, 3, 1);
    clreduce_cache_stats s2 = stats_of(c);
    assert_true(s2.programs_built == s1.programs_built);
    assert_true(s2.cache_hits > s1.cache_hits);
    clreduce_destroy(c);
}

int main(void)
{
    tc_init_seed();
    g_ctx = tc_create_default_or_skip("unit.cache");
    g_queue = tc_create_queue(g_ctx, 0);
    if (!g_queue)
        return 1;
    snprintf(g_tmp, sizeof g_tmp, "%s/clreduce-unit-cache-XXXXXX",
             getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(g_tmp)) {
        perror("mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_once),
        cmocka_unit_test(test_per_context),
        cmocka_unit_test(test_disk_cache),
        cmocka_unit_test(test_damaged_files),
        cmocka_unit_test(test_cache_directory),
        cmocka_unit_test(test_threads),
    };
    /* CLREDUCE_TEST_FILTER=pattern runs only the matching tests. */
    if (getenv("CLREDUCE_TEST_FILTER"))
        cmocka_set_test_filter(getenv("CLREDUCE_TEST_FILTER"));
    int failed = cmocka_run_group_tests_name("unit.cache", tests, NULL, NULL);
    clReleaseCommandQueue(g_queue);
    clreduce_destroy(g_ctx);
    remove_tree(g_tmp);
    return failed ? 1 : 0;
}
