/* Helpers shared by unit.operators and unit.multi (test_common_ops.c): the
 * suite of a test and its failures, the test of other tunings, and the
 * buffers of a test of bad arguments. */
#ifndef CLREDUCE_TEST_COMMON_OPS_H
#define CLREDUCE_TEST_COMMON_OPS_H

#include "test_common.h"

/* Whether op takes type (it has a result on it). */
int tc_ops_takes(clreduce_op op, clreduce_type type);

/* Every operator of one input, in the order of clreduce_op. */
extern const clreduce_op tc_one_input_ops[10];

/* A type of tc_all_types that a context supports, with the operators of
 * tc_one_input_ops that it takes. */
typedef struct tc_type_ops {
    size_t index; /* in tc_all_types */
    clreduce_type type;
    clreduce_op ops[CLREDUCE_MULTI_MAX];
    size_t k;
} tc_type_ops;

/* Sets t to the first type of tc_all_types[t->index .. end) that ctx
 * supports, with its operators; returns 0 when there is none. A loop steps
 * t->index past it for the next:
 *     for (tc_type_ops t = {0}; tc_next_type_ops(ctx, &t, end); t.index++) */
int tc_next_type_ops(clreduce_ctx *ctx, tc_type_ops *t, size_t end);

/* Counts a failed case of s and prints it as "FAILED [label] ...", the
 * first 20 of a suite only. */
void tc_ops_report(tc_suite *s, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The suite `label` of a test on ctx, no case run yet, with the test's
 * random data seeded by that name (tc_seed_for). */
tc_suite tc_ops_seeded_suite(clreduce_ctx *ctx, const char *label);

/* Prints how many cases of s ran and failed; fails the test when one did. */
void tc_ops_finish_suite(const tc_suite *s);

/* The test of other tunings of a program: its context, the loads per
 * work-item of each tuning, and its cases on one (tuning 0: scalar loads;
 * 1: vectors of 8). */
typedef struct tc_ops_tunings {
    clreduce_ctx *const *ctx;
    unsigned loads_per_work_item[2];
    void (*cases)(tc_suite *s, size_t tuning);
} tc_ops_tunings;

/* The test of tunings, *state a tc_ops_tunings: seeds the data by the name
 * "tunings", then runs the cases of each tuning on a context of its own on
 * the device of *ctx, as the suite "tuning_vector_width_<width>" finished
 * after them: vector width 1 with loads_per_work_item[0] loads per
 * work-item, then 8 with loads_per_work_item[1]; both with work-groups of 64
 * and 3 groups per compute unit. */
void tc_ops_test_tunings(void **state);

/* Buffers for the calls of a test of bad arguments (tc_make_guarded): 64
 * floats and 64 bytes, whose host copies are static, so one set at a
 * time. */
tc_guarded tc_ops_guarded(const clreduce_ctx *ctx, cl_command_queue queue);

#endif
