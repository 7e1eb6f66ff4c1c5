/* Shared by the files of the Oclgrind test (oclgrind_kernels): a case, a
 * target (one variant of one kernel family) and the harness the families'
 * runs call: the context, the buffers kept, the log of Oclgrind's reports.
 *
 *   test_oclgrind.c          set-up, buffers, the test of one target, main
 *   test_oclgrind_log.c      Oclgrind's log: reports read, judged, accepted
 *   test_oclgrind_flat.c     reductions and scans: their runs and targets
 *   test_oclgrind_batched.c  rows and segments: their runs and targets (the
 *                            large ones too)
 *   test_oclgrind_multi.c    several operators in one pass: its run and targets */
#ifndef CLREDUCE_TEST_OCLGRIND_H
#define CLREDUCE_TEST_OCLGRIND_H

#include "test_common.h"

#define MAX_COUNT 40100 /* elements of the largest case, with its offset and tail */

/* A case's size and where the range lies. With tail 0 the range ends at the
 * end of its buffer, where Oclgrind sees any read past it; with an offset, a
 * read before the range takes a poisoned element and changes the result. */
typedef struct og_size {
    size_t n, offset, tail;
} og_size;

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
    /* The variant needs sub-groups, which Oclgrind lacks: main then sets
     * expect_unsupported. */
    int needs_subgroups;
    /* run_batched: segments (kind: the offsets' type; 2: wild offsets,
     * only checked for what is written), else rows. */
    int segments;
    /* run_batched: the longest of the random segments (0: half the case). */
    size_t longest;
    /* The sizes of the cases, where not the harness's own (NULL). */
    const og_size *sizes;
    size_t num_sizes;
    /* run_batched: one of the operators past max (0: sum, min and max),
     * on the types it takes and the sizes up to 257. */
    clreduce_op only_op;
    /* run_multi: every one-input operator the type takes at once (the
     * case's op is unused). */
    int multi;
    /* run_scan_rows: poisoned elements between rows, and whether the scan
     * is in place (else into rows of their own between sentinels). */
    size_t padding;
    int in_place;
    /* run_custom: a user-defined operator that does not commute (1) or
     * does (2). */
    int custom;
    /* Float and double sums only (the reproducible context's rows and
     * segments: its other operators run the batched family's kernels). */
    int float_sums;
    /* Set in main: the device lacks what the variant needs (sub-groups),
     * so every case must report CLREDUCE_ERROR_UNSUPPORTED and write
     * nothing. */
    int expect_unsupported;
};

/* The families' targets, in the order their tests run. */
/* The look-back's hand-off between work-groups (the scan's, and that of the
 * segments' single launch): the reports it makes under --data-races. */
extern const accepted_races og_look_back_hand_off;

extern target og_flat_targets[];
extern const size_t og_flat_target_count;
extern target og_batched_targets[];
extern const size_t og_batched_target_count;
extern target og_multi_targets[];
extern const size_t og_multi_target_count;
extern target og_large_targets[];
extern const size_t og_large_target_count;
extern target og_fixed_order_targets[];
extern const size_t og_fixed_order_target_count;
extern target og_fixed_order_batched_targets[];
extern const size_t og_fixed_order_batched_target_count;
/* The sizes of the reproducible family's cases: up to a few tiles. */
#define OG_FIXED_ORDER_SIZES 5
extern const og_size og_fixed_order_sizes[OG_FIXED_ORDER_SIZES];

/* ---- test_oclgrind.c: the context and the buffers ------------------------- */

extern clreduce_ctx *g_ctx;
extern cl_command_queue g_queue;

/* Keeps m until the end of the run (see test_oclgrind.c); returns m. */
cl_mem og_keep(cl_mem m);

/* Lays out the case's input in host: its elements from c->offset, poison
 * around them, offset + n + tail elements in all. */
void og_lay_out_input(const og_case *c, const tc_value *poison, unsigned char *host);

/* Creates the input buffer (offset + n + tail elements, written from host)
 * and the output buffer (out_bytes, copied from out_host), both kept.
 * Returns 1, or 0 with c->detail set. */
int og_create_buffers(og_case *c, const unsigned char *host, const void *out_host,
                      size_t out_bytes, cl_mem *in, cl_mem *out);

/* Reads out_bytes of out into out_host once `done` (if any) completes, and
 * releases done. */
cl_int og_read_output(cl_mem out, size_t out_bytes, void *out_host, cl_event done);

/* The case of an unsupported variant: 1 when the call said
 * CLREDUCE_ERROR_UNSUPPORTED and wrote nothing, else 0 with c->detail set. */
int og_unsupported_as_expected(og_case *c, clreduce_status st, int untouched,
                               const char *written);

/* ---- test_oclgrind_log.c: Oclgrind's log ---------------------------------- */

/* Where Oclgrind writes its reports, and whether it checks data races. */
void og_log_start(const char *path, int checks_races);

/* Reports accepted (as target.accepted allows) since the count was reset. */
extern size_t g_accepted;

/* Judges what Oclgrind wrote since the last call. Returns 1 when it wrote
 * nothing, or only reports that target t accepts; else prints the reports
 * that are not accepted (the first few kilobytes) and returns 0. */
int og_log_clean(const target *t, const char *what);

/* Empties the log once everything in it is judged; 0 on success. */
int og_log_truncate(void);

#endif /* CLREDUCE_TEST_OCLGRIND_H */
