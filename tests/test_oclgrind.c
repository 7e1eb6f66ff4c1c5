/* oclgrind.kernels, oclgrind.uninitialized: every kernel of the library (each
 * reduction variant, each scan variant inclusive and exclusive) run under
 * Oclgrind, the OpenCL device simulator, with its checks on (see
 * tests/oclgrind.sh and tests/meson.build), for every operator and type at
 * small awkward sizes, every result checked against the CPU reference.
 *
 * Oclgrind writes every problem it finds to its log ($OCLGRIND_LOG, set by
 * the launcher's --log). The log is read after every case, so that a report
 * fails the case that caused it. The only reports accepted are those a
 * target declares as inherent to its design (see `target.accepted`), each
 * matched exactly; what the program has judged it removes from the log at
 * exit, and tests/oclgrind.sh fails the test on anything left there.
 *
 * Kernels are interpreted, so the sizes are small and so is the tuning
 * (work-groups of 64, 2 loads per work-item); the device reports 4 compute
 * units, so the grid-sized variants run up to 4 work-groups and the scans
 * several tiles. Oclgrind runs work-groups in the order they start, so the
 * look-back, which waits only for work-groups that took an earlier ticket,
 * completes.
 *
 * Adding a kernel family is one entry in `targets`: the rows and segments
 * families run through run_batched, the scans of rows through
 * run_scan_rows.
 *
 * CLREDUCE_TEST_SEED=n repeats a run's random data; CLREDUCE_TEST_FILTER=glob
 * runs only the matching tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_common.h"

#define MAX_COUNT 2048 /* elements of the largest case, with its offset and tail */

/* One case: the data and where it lies; `detail` says what went wrong. */
typedef struct og_case {
    clreduce_op op;
    clreduce_type type;
    const void *data;
    size_t n, offset, tail, result_offset;
    char detail[512];
} og_case;

/* Reports that Oclgrind makes of a kernel by design: read-write data races
 * on global memory between two work-groups, each at one of these pairs of
 * source lines (the text of the lines, in either order). */
typedef struct accepted_races {
    const char *why; /* printed with the count of reports accepted */
    const char *lines[4][2]; /* pairs; unused ones NULL */
} accepted_races;

/* What one test runs: one variant (and kind) of one kernel family. */
typedef struct target target;
struct target {
    const char *name;
    int variant; /* the family's variant enum value */
    int kind;    /* scans: clreduce_scan_kind */
    /* Runs one case; returns 1 when the result matched the reference (or
     * the variant was reported unsupported as expected), else 0 with
     * c->detail filled in. */
    int (*run)(const target *t, og_case *c);
    /* Whether the family can run op/type here: CLREDUCE_SUCCESS, or
     * CLREDUCE_ERROR_UNSUPPORTED with the reason in clreduce_last_error. */
    clreduce_status (*support)(const target *t, clreduce_op op, clreduce_type type);
    /* The library fills part of a buffer (clEnqueueFillBuffer) that the
     * kernel then reads; see the uninitialised-value run in main. */
    int fills_part_of_a_buffer;
    const accepted_races *accepted; /* NULL: none */
    /* run_batched: segments (kind: the offsets' type; 2: wild offsets,
     * only checked for what is written), else rows. */
    int segments;
    /* run_batched: one of the operators past max (0: sum, min and max),
     * on the types it takes and the sizes up to 257. */
    clreduce_op only_op;
    /* run_scan_rows: poisoned elements between rows, and whether the scan
     * is in place (else into rows of their own between sentinels). */
    size_t padding;
    int in_place;
    /* Set in main: the device lacks what the variant needs (sub-groups),
     * so every case must report CLREDUCE_ERROR_UNSUPPORTED and write
     * nothing. */
    int expect_unsupported;
};

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;

static const clreduce_op ops[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_MAX};
static const clreduce_type types[] = {CLREDUCE_FLOAT, CLREDUCE_DOUBLE, CLREDUCE_INT32,
                                      CLREDUCE_UINT32, CLREDUCE_INT64, CLREDUCE_UINT64};

/* Sizes and where the range lies. With tail 0 the range ends at the end of
 * its buffer, where Oclgrind sees any read past it; with an offset, a read
 * before the range takes a poisoned element and changes the result. */
typedef struct og_size {
    size_t n, offset, tail;
} og_size;
static const og_size sizes[] = {
    {1, 0, 0}, {31, 0, 0}, {33, 0, 0}, {257, 0, 0}, {1000, 3, 0}, {1031, 0, 5},
};

/* ---- the Oclgrind log ------------------------------------------------------- */

static const char *g_log_path;
static long g_log_seen;       /* bytes of the log already judged */
static int g_checks_races;    /* Oclgrind runs its data-race detector */
static size_t g_accepted;     /* reports accepted so far in this test */

static long log_size(void)
{
    struct stat st;
    if (!g_log_path || stat(g_log_path, &st) != 0)
        return 0;
    return (long)st.st_size;
}

static void trim(char *s)
{
    char *p = s;
    while (*p == ' ' || *p == '\t')
        p++;
    memmove(s, p, strlen(p) + 1);
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
        s[--n] = '\0';
}

/* The file named by the last "At line N of FILE:" of a report. */
static char g_source_file[64];

/* Line `number` of g_source_file in the kernels' source directory
 * (CLREDUCE_CL_DIR) into out; 0 when it cannot be read. */
static int source_line_text(int number, char *out, size_t size)
{
    const char *dir = getenv("CLREDUCE_CL_DIR");
    char path[512];
    if (!dir || !g_source_file[0])
        return 0;
    snprintf(path, sizeof path, "%s/%s", dir, g_source_file);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[512];
    int n = 0, found = 0;
    while (!found && fgets(line, sizeof line, f))
        if (++n == number) {
            size_t len = strcspn(line, "\n");
            if (len >= size)
                len = size - 1;
            memcpy(out, line, len);
            out[len] = '\0';
            found = 1;
        }
    fclose(f);
    return found;
}

/* Whether one report (its lines, the first the heading) is an accepted
 * race of target t: heading, two different work-groups, the two lines. */
static int report_accepted(const target *t, char *report)
{
    static const char heading[] = "Read-write data race at global memory ";
    if (!t || !t->accepted || !g_checks_races ||
        strncmp(report, heading, sizeof heading - 1) != 0)
        return 0;
    char groups[2][48] = {"", ""}, lines[2][160] = {"", ""};
    int ngroups = 0, nlines = 0, next_is_source = 0;
    for (char *line = strtok(report, "\n"); line; line = strtok(NULL, "\n")) {
        if (next_is_source && nlines < 2) {
            /* Oclgrind prints the line's number and file as the #line
             * directives give them, but its text from the program as one
             * string: the text is read from the file itself. */
            if (!source_line_text(next_is_source, lines[nlines], sizeof lines[0]))
                snprintf(lines[nlines], sizeof lines[0], "%s", line);
            trim(lines[nlines++]);
        }
        next_is_source = 0;
        unsigned at = 0, column = 0;
        char file[64];
        if (sscanf(line, " At line %u (column %u) of %63[^:]:", &at, &column, file) == 3) {
            snprintf(g_source_file, sizeof g_source_file, "%s", file);
            next_is_source = (int)at;
        }
        const char *g = strstr(line, " entity:") ? strstr(line, "Group(") : NULL;
        if (g && ngroups < 2)
            snprintf(groups[ngroups++], sizeof groups[0], "%s", g);
    }
    if (ngroups != 2 || nlines != 2 || strcmp(groups[0], groups[1]) == 0)
        return 0;
    for (size_t i = 0; i < ARRAY_SIZE(t->accepted->lines) && t->accepted->lines[i][0]; i++) {
        const char *a = t->accepted->lines[i][0], *b = t->accepted->lines[i][1];
        if ((strcmp(lines[0], a) == 0 && strcmp(lines[1], b) == 0) ||
            (strcmp(lines[0], b) == 0 && strcmp(lines[1], a) == 0))
            return 1;
    }
    return 0;
}

/* Judges what Oclgrind wrote since the last call. Returns 1 when it wrote
 * nothing, or only reports that target t accepts; else prints the reports
 * that are not accepted (the first few kilobytes) and returns 0. */
static int log_clean(const target *t, const char *what)
{
    long size = log_size();
    if (size <= g_log_seen)
        return 1;
    size_t len = (size_t)(size - g_log_seen);
    char *text = malloc(len + 1);
    size_t got = 0;
    FILE *f = fopen(g_log_path, "r");
    if (text && f && fseek(f, g_log_seen, SEEK_SET) == 0)
        got = fread(text, 1, len, f);
    if (f)
        fclose(f);
    g_log_seen = size;
    if (!text || got != len) {
        print_error("FAILED %s: Oclgrind wrote %zu bytes to its log, which could not be read\n",
                    what, len);
        free(text);
        return 0;
    }
    text[len] = '\0';

    /* Reports are separated by blank lines; their lines after the first
     * are indented with tabs. */
    char rejected[8192] = "";
    size_t nrejected = 0;
    char *p = text;
    while (*p) {
        while (*p == '\n')
            p++;
        if (!*p)
            break;
        char *end = p;
        while (*end && !(end[0] == '\n' && end[1] == '\n'))
            end++;
        char saved = *end;
        *end = '\0';
        char *copy = strdup(p);
        int ok = copy && report_accepted(t, copy);
        free(copy);
        if (ok) {
            g_accepted++;
        } else {
            nrejected++;
            size_t used = strlen(rejected);
            if (used + 2 < sizeof rejected)
                snprintf(rejected + used, sizeof rejected - used, "%s\n\n", p);
        }
        *end = saved;
        p = end;
    }
    free(text);
    if (nrejected == 0)
        return 1;
    print_error("FAILED %s: Oclgrind reported %zu problem(s):\n%s", what, nrejected, rejected);
    return 0;
}

/* ---- reductions ----------------------------------------------------------------- */

static clreduce_status reduce_support(const target *t, clreduce_op op, clreduce_type type)
{
    return clreduce_check_support(g_ctx, op, type, (clreduce_variant)t->variant);
}

/* Buffers are kept until the end of the run, not released after each case.
 * Oclgrind 21.10's uninitialised-value checker keeps the state of a released
 * buffer and gives it to the next buffer created in the same slot: a buffer
 * the library creates for partial results, in a slot a smaller buffer had,
 * then reads as uninitialised beyond the old size although the kernel wrote
 * it (docs/RELIABILITY.md shows it without clreduce). Slots are reused
 * first in, first out; as every case creates two buffers before the library
 * creates one, each buffer the library creates takes a fresh slot. */
#define MAX_KEPT 4096
static cl_mem kept[MAX_KEPT];
static size_t n_kept;

static cl_mem keep(cl_mem m)
{
    if (m && n_kept < MAX_KEPT)
        kept[n_kept++] = m;
    else if (m)
        clReleaseMemObject(m);
    return m;
}

static void release_kept(void)
{
    while (n_kept)
        clReleaseMemObject(kept[--n_kept]);
}

/* Uploads the data between poisoned elements into a buffer that ends where
 * the data (and its tail) ends, reduces it into a result buffer of sentinel
 * bytes, and reads the result element and its neighbours back. Returns 0,
 * or -1 with c->detail set when an OpenCL call of the harness failed. */
static int reduce_on_device(const target *t, og_case *c, clreduce_status *status, tc_value *got,
                            int *result_untouched, int *neighbours_untouched)
{
    size_t es = clreduce_type_size(c->type);
    size_t total = c->offset + c->n + c->tail;
    size_t rcount = c->result_offset + 2;
    unsigned char host[MAX_COUNT * 8], res[4 * 8];
    tc_value poison;
    tc_poison(c->op, c->type, &poison);
    for (size_t i = 0; i < total; i++)
        tc_set(c->type, host, i, &poison);
    memcpy(host + c->offset * es, c->data, c->n * es);
    memset(res, TC_SENTINEL_BYTE, sizeof res);
    cl_context cl = clreduce_get_cl_context(g_ctx);
    cl_int err;
    cl_mem in = keep(clCreateBuffer(cl, CL_MEM_READ_WRITE, total * es, NULL, &err));
    cl_mem out = NULL;
    if (err == CL_SUCCESS)
        out = keep(
            clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, rcount * es, res, &err));
    if (err == CL_SUCCESS)
        err = clEnqueueWriteBuffer(g_queue, in, CL_TRUE, 0, total * es, host, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        snprintf(c->detail, sizeof c->detail, "setting up the buffers failed: %s",
                 clreduce_opencl_error_name(err));
        return -1;
    }
    cl_event done = NULL;
    *status = clreduce_reduce(g_ctx, g_queue, c->op, c->type, (clreduce_variant)t->variant, in,
                              c->offset, c->n, out, c->result_offset, 0, NULL, &done);
    err = clEnqueueReadBuffer(g_queue, out, CL_TRUE, 0, rcount * es, res, done ? 1 : 0,
                              done ? &done : NULL, NULL);
    if (done)
        clReleaseEvent(done);
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
    if (t->expect_unsupported) {
        if (st == CLREDUCE_ERROR_UNSUPPORTED && result_untouched && neighbours_untouched)
            return 1;
        snprintf(c->detail, sizeof c->detail,
                 "expected CLREDUCE_ERROR_UNSUPPORTED and no write, got %s%s",
                 clreduce_status_string(st),
                 result_untouched && neighbours_untouched ? "" : ", result written");
        return 0;
    }
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
    size_t total = c->offset + c->n + c->tail;
    size_t out_total = c->result_offset + c->n + 2;
    unsigned char host[MAX_COUNT * 8], res[(MAX_COUNT + 4) * 8];
    tc_value poison;
    tc_poison(c->op, c->type, &poison);
    for (size_t i = 0; i < total; i++)
        tc_set(c->type, host, i, &poison);
    memcpy(host + c->offset * es, c->data, c->n * es);
    memset(res, TC_SENTINEL_BYTE, out_total * es);
    cl_context cl = clreduce_get_cl_context(g_ctx);
    cl_int err;
    cl_mem in = keep(clCreateBuffer(cl, CL_MEM_READ_WRITE, total * es, NULL, &err));
    cl_mem out = NULL;
    if (err == CL_SUCCESS)
        out = keep(clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out_total * es,
                                  res, &err));
    if (err == CL_SUCCESS)
        err = clEnqueueWriteBuffer(g_queue, in, CL_TRUE, 0, total * es, host, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        snprintf(c->detail, sizeof c->detail, "setting up the buffers failed: %s",
                 clreduce_opencl_error_name(err));
        return 0;
    }
    cl_event done = NULL;
    clreduce_status st = clreduce_scan(g_ctx, g_queue, c->op, c->type, (clreduce_scan_kind)t->kind,
                                       (clreduce_scan_variant)t->variant, in, c->offset, c->n,
                                       out, c->result_offset, 0, NULL, &done);
    err = clEnqueueReadBuffer(g_queue, out, CL_TRUE, 0, out_total * es, res, done ? 1 : 0,
                              done ? &done : NULL, NULL);
    if (done)
        clReleaseEvent(done);
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
    if (t->expect_unsupported) {
        if (st == CLREDUCE_ERROR_UNSUPPORTED && outside_untouched && inside_untouched)
            return 1;
        snprintf(c->detail, sizeof c->detail,
                 "expected CLREDUCE_ERROR_UNSUPPORTED and no write, got %s%s",
                 clreduce_status_string(st),
                 outside_untouched && inside_untouched ? "" : ", output written");
        return 0;
    }
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

/* ---- rows and segments ------------------------------------------------------------ */

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
    size_t total = c->offset + c->n + c->tail;
    tc_value poison;
    if (t->only_op)
        tc_op_poison(c->op, c->type, &poison);
    else
        tc_poison(c->op, c->type, &poison);
    for (size_t i = 0; i < total; i++)
        tc_set(c->type, host, i, &poison);
    memcpy(host + c->offset * es, c->data, c->n * es);
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
    cl_context cl = clreduce_get_cl_context(g_ctx);
    cl_int err;
    cl_mem in = keep(clCreateBuffer(cl, CL_MEM_READ_WRITE, total * es, NULL, &err));
    cl_mem out = NULL, ob = NULL;
    if (err == CL_SUCCESS)
        out = keep(clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out_total * rs,
                                  res, &err));
    size_t os = segments ? clreduce_type_size((clreduce_type)t->kind) : 0;
    if (err == CL_SUCCESS && segments) {
        for (size_t i = 0; i <= results; i++) {
            uint32_t v32 = (uint32_t)offsets[i];
            if (os == 4)
                memcpy(offs + i * 4, &v32, 4);
            else
                memcpy(offs + i * 8, &offsets[i], 8);
        }
        ob = keep(clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (results + 1) * os,
                                 offs, &err));
    }
    if (err == CL_SUCCESS)
        err = clEnqueueWriteBuffer(g_queue, in, CL_TRUE, 0, total * es, host, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        snprintf(c->detail, sizeof c->detail, "setting up the buffers failed: %s",
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
    err = clEnqueueReadBuffer(g_queue, out, CL_TRUE, 0, out_total * rs, res, done ? 1 : 0,
                              done ? &done : NULL, NULL);
    if (done)
        clReleaseEvent(done);
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
    cl_mem in = keep(clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, total * es,
                                    host, &err));
    cl_mem out = in;
    if (err == CL_SUCCESS && !t->in_place)
        out = keep(clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out_total * es,
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

/* The look-back publishes each tile's aggregate and inclusive prefix
 * (volatile stores) and then its status word (mem_fence, atomic_xchg) for
 * later work-groups, which read the status word and then the value
 * (volatile loads, mem_fence): the hand-off between work-groups that
 * OpenCL 1.2 cannot express, as for the single pass above. */
static const accepted_races look_back_hand_off = {
    "the look-back's hand-off of tile values and status words between work-groups",
    {{"void clr_value_store(global T *p, T v) { *(volatile global T *)p = v; }",
      "T clr_value_load(global T *p) { return *(volatile global T *)p; }"},
     {"atomic_xchg((volatile global uint *)p, v);", "uint v = *(volatile global uint *)p;"}}};

#define REDUCE_TARGET(v, fills, races)                                                        \
    {.name = "reduce_" #v, .variant = CLREDUCE_##v, .run = run_reduce,                       \
     .support = reduce_support, .fills_part_of_a_buffer = fills, .accepted = races}
#define SCAN_TARGET(v, k, fills, races)                                                       \
    {.name = "scan_" #v "_" #k, .variant = CLREDUCE_SCAN_##v, .kind = CLREDUCE_##k,          \
     .run = run_scan, .support = scan_support, .fills_part_of_a_buffer = fills,              \
     .accepted = races}
#define ROWS_TARGET(n, length, padding)                                                       \
    {.name = n, .variant = length, .kind = padding, .run = run_batched,                       \
     .support = batched_support}
#define SCAN_ROWS_TARGET(n, length, pad, k, place)                                             \
    {.name = n, .variant = length, .kind = CLREDUCE_##k, .run = run_scan_rows,                \
     .support = batched_support, .padding = pad, .in_place = place}
#define SEGMENTS_TARGET(n, offsets_type)                                                      \
    {.name = n, .kind = offsets_type, .run = run_batched, .support = batched_support,         \
     .segments = 1}
static target targets[] = {
    REDUCE_TARGET(INTERLEAVED, 0, NULL),
    REDUCE_TARGET(SEQUENTIAL, 0, NULL),
    REDUCE_TARGET(FIRST_ADD, 0, NULL),
    REDUCE_TARGET(SUBGROUP_TAIL, 0, NULL),
    REDUCE_TARGET(SUBGROUP, 0, NULL),
    REDUCE_TARGET(UNROLLED, 0, NULL),
    REDUCE_TARGET(GRID_STRIDE, 0, NULL),
    /* The identity is filled into the result element first. */
    REDUCE_TARGET(ATOMIC, 1, NULL),
    /* The ticket at the head of the scratch buffer is zero-filled. */
    REDUCE_TARGET(SINGLE_PASS, 1, &single_pass_hand_off),
    /* AUTO resolves to SINGLE_PASS on Oclgrind's CPU device. */
    REDUCE_TARGET(AUTO, 1, &single_pass_hand_off),
    SCAN_TARGET(HILLIS_STEELE, INCLUSIVE, 0, NULL),
    SCAN_TARGET(HILLIS_STEELE, EXCLUSIVE, 0, NULL),
    SCAN_TARGET(BLELLOCH, INCLUSIVE, 0, NULL),
    SCAN_TARGET(BLELLOCH, EXCLUSIVE, 0, NULL),
    SCAN_TARGET(REDUCE_THEN_SCAN, INCLUSIVE, 0, NULL),
    SCAN_TARGET(REDUCE_THEN_SCAN, EXCLUSIVE, 0, NULL),
    /* The tiles' status words are zero-filled before the first launch. */
    SCAN_TARGET(LOOKBACK, INCLUSIVE, 1, &look_back_hand_off),
    SCAN_TARGET(LOOKBACK, EXCLUSIVE, 1, &look_back_hand_off),
    /* AUTO resolves to LOOKBACK on Oclgrind's CPU device. */
    SCAN_TARGET(AUTO, INCLUSIVE, 1, &look_back_hand_off),
    SCAN_TARGET(AUTO, EXCLUSIVE, 1, &look_back_hand_off),
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

/* ---- the test of one target ------------------------------------------------------ */

static int g_checks_uninitialized;

static void test_target(void **state)
{
    const target *t = *state;
    tc_seed_for(t->name);
    if (g_checks_uninitialized && t->fills_part_of_a_buffer) {
        /* Oclgrind 21.10 takes a fill of part of a buffer for the whole
         * buffer's contents: everything else in it then reads as
         * uninitialised (docs/RELIABILITY.md). This variant's kernels run
         * under the other checks in oclgrind.kernels. */
        print_message("note: %s not run under the uninitialised-value check: the library fills "
                      "part of a buffer the kernel reads, which Oclgrind 21.10 misreads\n",
                      t->name);
        skip();
    }
    void *data = malloc(MAX_COUNT * 8);
    assert_non_null(data);
    int failures = 0, cases = 0, combos = 0;
    g_accepted = 0;
    size_t nops = t->only_op ? 1 : ARRAY_SIZE(ops);
    for (size_t oi = 0; oi < nops; oi++) {
        for (size_t ti = 0; ti < ARRAY_SIZE(types); ti++) {
            clreduce_op op = t->only_op ? t->only_op : ops[oi];
            clreduce_type type = types[ti];
            if (!tc_type_supported(g_ctx, type) ||
                (t->only_op && !clreduce_result_size(op, type)))
                continue;
            clreduce_status st = t->support(t, op, type);
            if (t->expect_unsupported != (st == CLREDUCE_ERROR_UNSUPPORTED) ||
                (st != CLREDUCE_SUCCESS && st != CLREDUCE_ERROR_UNSUPPORTED)) {
                print_error("FAILED %s %s %s: support check says %s (%s), expected %s\n",
                            t->name, tc_op_name(op), tc_type_name(type),
                            clreduce_status_string(st), clreduce_last_error(g_ctx),
                            t->expect_unsupported ? "unsupported" : "supported");
                failures++;
                continue;
            }
            combos++;
            for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
                if (t->only_op && sizes[si].n > 257)
                    break;
                og_case c;
                memset(&c, 0, sizeof c);
                c.op = op;
                c.type = type;
                c.data = data;
                c.n = sizes[si].n;
                c.offset = sizes[si].offset;
                c.tail = sizes[si].tail;
                c.result_offset = si & 1;
                if (t->only_op)
                    tc_op_fill(op, type, data, c.n);
                else
                    tc_fill_random(type, data, c.n);
                char what[160];
                snprintf(what, sizeof what, "%s op=%s type=%s size=%zu offset=%zu tail=%zu",
                         t->name, tc_op_name(op), tc_type_name(type), c.n, c.offset, c.tail);
                int ok = t->run(t, &c);
                if (!ok)
                    print_error("FAILED %s: %s\n", what, c.detail);
                if (!log_clean(t, what))
                    ok = 0;
                failures += !ok;
                cases++;
                /* Unsupported: nothing to vary, one case per op/type. */
                if (t->expect_unsupported)
                    break;
            }
        }
    }
    free(data);
    print_message("%s: %d op/type combinations, %d cases, %d failed%s\n", t->name, combos, cases,
                  failures, t->expect_unsupported ? " (all expected unsupported)" : "");
    if (g_accepted)
        print_message("note: %s: %zu Oclgrind reports accepted as %s\n", t->name, g_accepted,
                      t->accepted->why);
    assert_int_equal(failures, 0);
    assert_true(combos > 0);
}

/* ---- set-up ------------------------------------------------------------------------ */

static int platform_is_oclgrind(cl_platform_id platform)
{
    char name[256] = "";
    if (clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name - 1, name, NULL) != CL_SUCCESS)
        return 0;
    return tc_contains(name, "Oclgrind");
}

static int device_has_subgroups(cl_device_id device)
{
    char ext[8192] = "", version[128] = "";
    clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
    clGetDeviceInfo(device, CL_DEVICE_VERSION, sizeof version - 1, version, NULL);
    return strstr(ext, "cl_khr_subgroups") != NULL || strncmp(version, "OpenCL 3", 8) == 0;
}

static int env_is_1(const char *name)
{
    const char *v = getenv(name);
    return v && strcmp(v, "1") == 0;
}

int main(int argc, char **argv)
{
    /* --vector-width=N: elements per vector load (tests/meson.build says
     * which run uses which). */
    unsigned vector_width = 2;
    /* --families=batched: the kernels of rows and segments only; =flat: the
     * others. Oclgrind numbers the buffers of a process in a space of a few
     * thousand, which the buffers kept for all of them would overflow. */
    const char *families = "all";
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--vector-width=", 15) == 0) {
            vector_width = (unsigned)strtoul(argv[i] + 15, NULL, 10);
        } else if (strncmp(argv[i], "--families=", 11) == 0 &&
                   (strcmp(argv[i] + 11, "all") == 0 || strcmp(argv[i] + 11, "batched") == 0 ||
                    strcmp(argv[i] + 11, "flat") == 0)) {
            families = argv[i] + 11;
        } else {
            fprintf(stderr, "usage: %s [--vector-width=N] [--families=all|batched|flat]\n",
                    argv[0]);
            return 1;
        }
    }
    tc_init_seed();
    /* The test means nothing elsewhere: it must run inside Oclgrind, whose
     * launcher names its log and the checks it runs in the environment. */
    g_log_path = getenv("OCLGRIND_LOG");
    if (!g_log_path || !*g_log_path) {
        fprintf(stderr, "OCLGRIND_LOG is not set: run this program through tests/oclgrind.sh "
                        "(oclgrind --log FILE ...)\n");
        return 1;
    }
    g_checks_races = env_is_1("OCLGRIND_DATA_RACES");
    g_checks_uninitialized = env_is_1("OCLGRIND_UNINITIALIZED");
    printf("Oclgrind checks: out-of-bounds accesses%s%s%s\n",
           g_checks_races ? ", data races" : "",
           g_checks_uninitialized ? ", uninitialised values" : "",
           env_is_1("OCLGRIND_CHECK_API") ? ", API errors" : "");

    tc_preload_opencl_runtimes();
    cl_platform_id platform;
    cl_device_id device;
    if (clreduce_find_device(getenv("CLREDUCE_DEVICE"), &platform, &device) !=
            CLREDUCE_SUCCESS ||
        !platform_is_oclgrind(platform)) {
        fprintf(stderr, "Oclgrind's device not found (%s)\n", clreduce_last_error(NULL));
        return 1;
    }
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_context cl = clCreateContext(props, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clCreateContext: %s\n", clreduce_opencl_error_name(err));
        return 1;
    }
    /* Work-groups of 64; 2 loads of `vector_width` elements per work-item,
     * so tiles of 128 or 256 elements; one work-group per compute unit. */
    clreduce_settings settings;
    clreduce_default_settings(&settings);
    settings.work_group_size = 64;
    settings.groups_per_compute_unit = 1;
    settings.loads_per_work_item = 2;
    settings.vector_width = vector_width;
    clreduce_status s = clreduce_create_with_settings(cl, device, &settings, &g_ctx);
    clReleaseContext(cl);
    if (s != CLREDUCE_SUCCESS) {
        fprintf(stderr, "clreduce_create_with_settings: %s: %s\n", clreduce_status_string(s),
                clreduce_last_error(NULL));
        return 1;
    }
    tc_print_device(g_ctx);
    g_queue = tc_create_queue(g_ctx, 0);
    if (!g_queue)
        return 1;
    cl_uint units = 0;
    clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    clreduce_settings t;
    clreduce_get_tuning(g_ctx, CLREDUCE_FLOAT, &t);
    /* The sub-group variants need cl_khr_subgroups (or OpenCL C 3.0's
     * sub-groups), which Oclgrind lacks: asked of the device, not of the
     * library, so that the library's answer is checked. */
    int has_subgroups = device_has_subgroups(device);
    printf("compute units: %u, fp64: %s, sub-groups: %s; tuning for float: work-group %zu, "
           "groups/CU %u, loads %u, vector %u\n",
           units, tc_type_supported(g_ctx, CLREDUCE_DOUBLE) ? "yes" : "no",
           has_subgroups ? "yes" : "no (sub-group variants must be unsupported)",
           t.work_group_size, t.groups_per_compute_unit, t.loads_per_work_item, t.vector_width);
    fflush(stdout);

    int failed = 0;
    if (!log_clean(NULL, "set-up"))
        failed++;
    struct CMUnitTest tests[ARRAY_SIZE(targets)];
    memset(tests, 0, sizeof tests);
    size_t ntests = 0;
    for (size_t i = 0; i < ARRAY_SIZE(targets); i++) {
        int batched = targets[i].run == run_batched || targets[i].run == run_scan_rows;
        if ((batched && strcmp(families, "flat") == 0) ||
            (!batched && strcmp(families, "batched") == 0))
            continue;
        if (targets[i].run == run_reduce && (targets[i].variant == CLREDUCE_SUBGROUP ||
                                             targets[i].variant == CLREDUCE_SUBGROUP_TAIL))
            targets[i].expect_unsupported = !has_subgroups;
        tests[ntests].name = targets[i].name;
        tests[ntests].test_func = test_target;
        tests[ntests].initial_state = &targets[i];
        ntests++;
    }
    if (getenv("CLREDUCE_TEST_FILTER"))
        cmocka_set_test_filter(getenv("CLREDUCE_TEST_FILTER"));
    failed += _cmocka_run_group_tests("oclgrind", tests, ntests, NULL, NULL);

    release_kept();
    clReleaseCommandQueue(g_queue);
    clreduce_destroy(g_ctx);
    if (!log_clean(NULL, "tear-down"))
        failed++;
    /* Everything in the log has been judged: empty it, so that the wrapper
     * finds only what Oclgrind writes after this point. */
    if (truncate(g_log_path, 0) != 0)
        failed++;
    return failed ? 1 : 0;
}
