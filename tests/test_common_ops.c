/* Helpers shared by unit.operators and unit.multi (see test_common_ops.h). */
#include "test_common_ops.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>

/* The failures of a suite printed in full; the rest are only counted. */
#define MAX_REPORTS 20

int tc_ops_takes(clreduce_op op, clreduce_type type)
{
    return clreduce_result_size(op, type) != 0;
}

const clreduce_op tc_one_input_ops[10] = {
    CLREDUCE_OP_SUM,    CLREDUCE_OP_MIN,     CLREDUCE_OP_MAX,         CLREDUCE_OP_ARGMIN,
    CLREDUCE_OP_ARGMAX, CLREDUCE_OP_MINMAX,  CLREDUCE_OP_SUM_SQUARES, CLREDUCE_OP_SUM_ABS,
    CLREDUCE_OP_NORM2,  CLREDUCE_OP_MEAN_VAR};

int tc_next_type_ops(clreduce_ctx *ctx, tc_type_ops *t, size_t end)
{
    for (; t->index < end; t->index++) {
        t->type = tc_all_types[t->index];
        if (!tc_type_supported(ctx, t->type))
            continue;
        t->k = 0;
        for (size_t i = 0; i < ARRAY_SIZE(tc_one_input_ops); i++)
            if (tc_ops_takes(tc_one_input_ops[i], t->type))
                t->ops[t->k++] = tc_one_input_ops[i];
        return 1;
    }
    return 0;
}

void tc_ops_report(tc_suite *s, const char *fmt, ...)
{
    s->failures++;
    if (s->failures > MAX_REPORTS)
        return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    print_error("FAILED [%s] %s\n", s->label, text);
}

tc_suite tc_ops_seeded_suite(clreduce_ctx *ctx, const char *label)
{
    tc_seed_for(label);
    tc_suite s = {ctx, label, 0, 0};
    return s;
}

void tc_ops_finish_suite(const tc_suite *s)
{
    printf("[%s] %zu cases, %d failed\n", s->label, s->cases, s->failures);
    fflush(stdout);
    assert_int_equal(s->failures, 0);
}

/* A context on the device of ctx with its default settings but these two,
 * work-groups of 64 and 3 groups per compute unit. */
static clreduce_ctx *tuned_context(const clreduce_ctx *ctx, unsigned vector_width,
                                   unsigned loads_per_work_item)
{
    clreduce_settings settings;
    clreduce_default_settings(&settings);
    settings.vector_width = vector_width;
    settings.loads_per_work_item = loads_per_work_item;
    settings.work_group_size = 64;
    settings.groups_per_compute_unit = 3;
    clreduce_ctx *tuned;
    assert_int_equal(clreduce_create_with_settings(clreduce_get_cl_context(ctx),
                                                   clreduce_get_cl_device(ctx), &settings, &tuned),
                     CLREDUCE_SUCCESS);
    return tuned;
}

void tc_ops_test_tunings(void **state)
{
    const tc_ops_tunings *t = *state;
    static const unsigned widths[2] = {1, 8};
    tc_seed_for("tunings");
    for (size_t wi = 0; wi < 2; wi++) {
        clreduce_ctx *tuned = tuned_context(*t->ctx, widths[wi], t->loads_per_work_item[wi]);
        char label[64];
        snprintf(label, sizeof label, "tuning_vector_width_%u", widths[wi]);
        tc_suite s = {tuned, label, 0, 0};
        t->cases(&s, wi);
        clreduce_destroy(tuned);
        tc_ops_finish_suite(&s);
    }
}

tc_guarded tc_ops_guarded(const clreduce_ctx *ctx, cl_command_queue queue)
{
    static float input[64];
    static unsigned char output[64];
    tc_guarded g;
    tc_make_guarded(ctx, queue, input, 64, output, sizeof output, &g);
    return g;
}
