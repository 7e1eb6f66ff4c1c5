/* Helpers shared by the tests of rows and segments (unit.rows, unit.scan_rows
 * and unit.segments; test_common_rows.c): the buffers around one call, what
 * it did and its report, its results against the CPU reference, repeated
 * calls compared bit for bit, and three tests whole but for their cases:
 * the shapes test, the determinism test of rows and the test of an
 * out-of-order queue. */
#ifndef CLREDUCE_TEST_COMMON_ROWS_H
#define CLREDUCE_TEST_COMMON_ROWS_H

#include "test_common.h"

/* ---- data ------------------------------------------------------------------------ */

/* Random data for op: tc_fill_random for sums, else case k's mode of
 * tc_mode_for. */
void tcr_fill_for_op(clreduce_op op, clreduce_type type, void *data, size_t n, size_t k);

/* Floating-point values of mixed magnitudes and signs: +-(1 + u) 2^e, u in
 * [0, 1), e in [-20, 20). */
void tcr_fill_mixed_magnitudes(clreduce_type type, void *data, size_t n);

/* ---- buffers around one call ------------------------------------------------------- */

/* Elements from the start of the first of `rows` rows `pitch` apart to the
 * end of the last (0 when there are none, or they are empty). */
size_t tcr_span(size_t rows, size_t length, size_t pitch);

/* `count` elements of `type`, each the poison of op (tc_poison); malloc'd. */
unsigned char *tcr_poisoned_buffer(clreduce_op op, clreduce_type type, size_t count);

/* `bytes` bytes of TC_SENTINEL_BYTE; malloc'd. */
unsigned char *tcr_sentinel_buffer(size_t bytes);

/* Copies `rows` rows of `length` elements of elem_size bytes, `pitch`
 * elements apart, from src to the same places of dst; what lies between
 * them in dst is left as it is. */
void tcr_copy_rows(void *dst, const void *src, size_t rows, size_t length, size_t pitch,
                   size_t elem_size);

/* ---- what one call did ------------------------------------------------------------- */

typedef struct tcr_outcome {
    clreduce_status status;
    size_t wrong;   /* results that differ from the reference (scans: rows) */
    size_t changed; /* elements outside the results that changed */
    double worst;   /* float sums: the largest error as a fraction of the bound */
    char why[384];  /* the first problem found */
    void *results;  /* the results read back, packed (malloc'd) */
} tcr_outcome;

/* After a call that returned o->status and, on success, its `done` event:
 * on success, reads the first `bytes` of mem on q into buf behind done and
 * releases done; on failure, writes the status and ctx's last error to
 * o->why. */
void tcr_read_back(tcr_outcome *o, const clreduce_ctx *ctx, cl_command_queue q, cl_mem mem,
                   void *buf, size_t bytes, cl_event done);

/* Copies the results buf[first .. first + n) of elem_size bytes each to
 * o->results (malloc'd), and counts in o->changed the other elements of
 * buf[0 .. count) that no longer hold TC_SENTINEL_BYTE in every byte. */
void tcr_take_results(tcr_outcome *o, const void *buf, size_t count, size_t first, size_t n,
                      size_t elem_size);

/* Checks o->results, the results of op on the `count` ranges data[starts[i]
 * .. starts[i] + lengths[i]), against the CPU reference (tc_check_batched,
 * the bound's m from chain_length of ctx's tuning for type): sets o->wrong,
 * o->worst and, when a result is wrong, o->why. */
void tcr_check_results(tcr_outcome *o, const clreduce_ctx *ctx, clreduce_op op,
                       clreduce_type type, const void *data, const size_t *starts,
                       const size_t *lengths, size_t count, tc_chain_length_fn chain_length);

/* The same check of results[0 .. count), a blocking call's: fails the test
 * when a result is wrong. */
void tcr_assert_results(const clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                        const void *data, const size_t *starts, const size_t *lengths,
                        size_t count, const void *results, tc_chain_length_fn chain_length);

/* Whether the call succeeded with every result right and nothing else
 * written. */
int tcr_passed(const tcr_outcome *o);

/* ---- reports ----------------------------------------------------------------------- */

/* Failed cases tcr_report prints since the last tcr_reset_reports(). */
#define TCR_MAX_REPORTS 20

void tcr_reset_reports(void);

/* Returns whether the case whose call did o passed (tcr_passed). When it did
 * not, prints "FAILED tag: " with the case (printf-style), what was wrong
 * and o->why, unless TCR_MAX_REPORTS failed cases have been printed since
 * the last tcr_reset_reports(). Frees o->results. */
int tcr_report(const char *tag, tcr_outcome *o, const char *format, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Prints the case (printf-style) with o->worst, the largest error of its
 * float sums as a fraction of their bound, and what was wrong when it did
 * not pass. Frees o->results; returns whether it passed (tcr_passed). */
int tcr_report_bound(tcr_outcome *o, const char *format, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Checks the calls runs[0 .. count) of one case (in other layouts): each
 * must have succeeded, and the first `bytes` of every call's results must
 * be the same bits as the first call's; else fails the test, naming the
 * case (printf-style). Frees their results. */
void tcr_assert_same_results(tcr_outcome *runs, size_t count, size_t bytes, const char *format,
                             ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* ---- tests whole but for their cases ------------------------------------------------ */

/* Runs case k of the shapes test: op on `rows` rows of `length` elements of
 * type, each followed by `pad` elements of padding (0: the rows are not
 * pitched), filled in data (tcr_fill_for_op); returns 1 when it passed. */
typedef int (*tcr_shape_case_fn)(clreduce_op op, clreduce_type type, size_t rows, size_t length,
                                 size_t pad, size_t k, void *data);

/* The shapes test, its data seeded by "shapes": every operator and type at
 * every row length of lengths[0 .. nlengths) with every count of
 * row_counts[0 .. ncounts) whose rows fit max_elements, past 10^5 elements a
 * row only float, double and one integer type of each width; two shapes in
 * three pitched, with 1 to 7 elements of padding. Reports failed cases
 * afresh (tcr_reset_reports), prints how many cases ran and failed, and
 * fails the test when one failed. */
void tcr_test_shapes(clreduce_ctx *ctx, const size_t *lengths, size_t nlengths,
                     const size_t *row_counts, size_t ncounts, size_t max_elements,
                     tcr_shape_case_fn run_case);

/* Runs a case of the determinism test of rows: float sums of `rows` rows of
 * `length` elements, packed in data, called in several layouts and compared
 * (tcr_assert_same_results). */
typedef void (*tcr_determinism_case_fn)(size_t rows, size_t length, void *data);

/* The determinism test of rows, its data seeded by "determinism": runs
 * run_case on random floats in one shape of each kind of kernel, from 10^5
 * rows of 5 elements to one row of a million. */
void tcr_test_determinism(tcr_determinism_case_fn run_case);

/* Runs case i of the test of an out-of-order queue, in round `round`, on q,
 * with `data` the test's buffer for its input; returns 1 when it passed. */
typedef int (*tcr_queue_case_fn)(cl_command_queue q, int round, size_t i, void *data);

/* The test of an out-of-order queue, its data seeded by "out_of_order":
 * skips the test where the context's device has no such queue; else runs
 * cases 0 .. count - 1, `rounds` times over, on one with a buffer of
 * `bytes`, reports failed cases afresh (tcr_reset_reports) and fails the
 * test when one failed. */
void tcr_test_out_of_order(const clreduce_ctx *ctx, int rounds, size_t count, size_t bytes,
                           tcr_queue_case_fn run_case);

#endif
