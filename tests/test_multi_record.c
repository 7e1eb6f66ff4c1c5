/* unit.multi_record: clreduce_multi_record(), the layout of a record of
 * several operators' results: offsets and sizes against offsetof() and
 * sizeof() of the C structures they stand for, padding inside and at the
 * end included, and the sets that clreduce_reduce_multi() refuses, which
 * give 0 and a message. No device is needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include <clreduce/clreduce.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Bytes of the largest record unit.rows_multi keeps room for. */
#define RECORD_MAX 128

/* clreduce_multi_record lays the results out as the members of a C
 * structure of them: offsets and sizes against offsetof and sizeof; sets
 * that clreduce_reduce_multi refuses give 0 and a message. */
static void test_layout(void **state)
{
    (void)state;
    size_t at[CLREDUCE_MULTI_MAX];
#define CHECK_RECORD(type, record, ...)                                                           \
    do {                                                                                          \
        const clreduce_op ops_[] = {__VA_ARGS__};                                                 \
        memset(at, 0xff, sizeof at);                                                              \
        assert_int_equal(clreduce_multi_record(ops_, ARRAY_SIZE(ops_), type, at), sizeof(record)); \
        assert_int_equal(clreduce_multi_record(ops_, ARRAY_SIZE(ops_), type, NULL),               \
                         sizeof(record));                                                         \
    } while (0)

    struct sum_max_argmax {
        float sum, max;
        clreduce_arg_float argmax;
    };
    CHECK_RECORD(CLREDUCE_FLOAT, struct sum_max_argmax, CLREDUCE_OP_SUM, CLREDUCE_OP_MAX,
                 CLREDUCE_OP_ARGMAX);
    assert_int_equal(at[0], offsetof(struct sum_max_argmax, sum));
    assert_int_equal(at[1], offsetof(struct sum_max_argmax, max));
    assert_int_equal(at[2], offsetof(struct sum_max_argmax, argmax));
    /* By hand too: 0, 4, 8, and 24 bytes in all. */
    assert_int_equal(at[1], 4);
    assert_int_equal(at[2], 8);
    assert_int_equal(sizeof(struct sum_max_argmax), 24);

    struct mean_var_double {
        clreduce_mean_var_double mv;
    };
    CHECK_RECORD(CLREDUCE_DOUBLE, struct mean_var_double, CLREDUCE_OP_MEAN_VAR);
    assert_int_equal(at[0], 0);

    /* multi.h's example: the statistics of a LayerNorm row and its
     * extremes. */
    struct layer_norm {
        clreduce_mean_var_float mv;
        clreduce_arg_float amax;
    };
    CHECK_RECORD(CLREDUCE_FLOAT, struct layer_norm, CLREDUCE_OP_MEAN_VAR, CLREDUCE_OP_ARGMAX);
    assert_int_equal(at[1], offsetof(struct layer_norm, amax));

    /* Padding at the end: the size a multiple of the largest alignment. */
    struct argmin_min {
        clreduce_arg_float argmin;
        float min;
    };
    CHECK_RECORD(CLREDUCE_FLOAT, struct argmin_min, CLREDUCE_OP_ARGMIN, CLREDUCE_OP_MIN);
    assert_int_equal(at[1], offsetof(struct argmin_min, min));
    assert_int_equal(sizeof(struct argmin_min), 24);

    /* Padding inside: an 8-byte result after a 4-byte one. */
    struct sum_argmax_int32 {
        int32_t sum;
        clreduce_arg_int32 argmax;
    };
    CHECK_RECORD(CLREDUCE_INT32, struct sum_argmax_int32, CLREDUCE_OP_SUM, CLREDUCE_OP_ARGMAX);
    assert_int_equal(at[1], offsetof(struct sum_argmax_int32, argmax));

    /* A minmax is aligned as its elements, not as its size. */
    struct min_minmax_sum {
        float min;
        clreduce_minmax_float minmax;
        float sum;
    };
    CHECK_RECORD(CLREDUCE_FLOAT, struct min_minmax_sum, CLREDUCE_OP_MIN, CLREDUCE_OP_MINMAX,
                 CLREDUCE_OP_SUM);
    assert_int_equal(at[1], offsetof(struct min_minmax_sum, minmax));
    assert_int_equal(at[2], offsetof(struct min_minmax_sum, sum));

    struct min_sum_uint32 {
        uint32_t min, sum;
    };
    CHECK_RECORD(CLREDUCE_UINT32, struct min_sum_uint32, CLREDUCE_OP_MIN, CLREDUCE_OP_SUM);
    assert_int_equal(at[1], 4);

    struct int64_set {
        int64_t sum;
        clreduce_minmax_int64 minmax;
        clreduce_arg_int64 argmax;
        int64_t sum_abs;
    };
    CHECK_RECORD(CLREDUCE_INT64, struct int64_set, CLREDUCE_OP_SUM, CLREDUCE_OP_MINMAX,
                 CLREDUCE_OP_ARGMAX, CLREDUCE_OP_SUM_ABS);
    assert_int_equal(at[1], offsetof(struct int64_set, minmax));
    assert_int_equal(at[2], offsetof(struct int64_set, argmax));
    assert_int_equal(at[3], offsetof(struct int64_set, sum_abs));

    /* Every operator of float, in the order of clreduce_op. */
    struct all_float {
        float sum, min, max;
        clreduce_arg_float argmin, argmax;
        clreduce_minmax_float minmax;
        float sum_squares, sum_abs, norm2;
        clreduce_mean_var_float mean_var;
    };
    CHECK_RECORD(CLREDUCE_FLOAT, struct all_float, CLREDUCE_OP_SUM, CLREDUCE_OP_MIN,
                 CLREDUCE_OP_MAX, CLREDUCE_OP_ARGMIN, CLREDUCE_OP_ARGMAX, CLREDUCE_OP_MINMAX,
                 CLREDUCE_OP_SUM_SQUARES, CLREDUCE_OP_SUM_ABS, CLREDUCE_OP_NORM2,
                 CLREDUCE_OP_MEAN_VAR);
    static const size_t all_float_at[] = {
        offsetof(struct all_float, sum),         offsetof(struct all_float, min),
        offsetof(struct all_float, max),         offsetof(struct all_float, argmin),
        offsetof(struct all_float, argmax),      offsetof(struct all_float, minmax),
        offsetof(struct all_float, sum_squares), offsetof(struct all_float, sum_abs),
        offsetof(struct all_float, norm2),       offsetof(struct all_float, mean_var)};
    for (size_t j = 0; j < ARRAY_SIZE(all_float_at); j++)
        assert_int_equal(at[j], all_float_at[j]);
    assert_int_equal(sizeof(struct all_float), 88);

    /* The same in reverse order on double: the largest record. */
    struct all_double_reversed {
        clreduce_mean_var_double mean_var;
        double norm2, sum_abs, sum_squares;
        clreduce_minmax_double minmax;
        clreduce_arg_double argmax, argmin;
        double max, min, sum;
    };
    CHECK_RECORD(CLREDUCE_DOUBLE, struct all_double_reversed, CLREDUCE_OP_MEAN_VAR,
                 CLREDUCE_OP_NORM2, CLREDUCE_OP_SUM_ABS, CLREDUCE_OP_SUM_SQUARES,
                 CLREDUCE_OP_MINMAX, CLREDUCE_OP_ARGMAX, CLREDUCE_OP_ARGMIN, CLREDUCE_OP_MAX,
                 CLREDUCE_OP_MIN, CLREDUCE_OP_SUM);
    assert_int_equal(at[4], offsetof(struct all_double_reversed, minmax));
    assert_int_equal(at[5], offsetof(struct all_double_reversed, argmax));
    assert_int_equal(at[9], offsetof(struct all_double_reversed, sum));
    assert_true(sizeof(struct all_double_reversed) <= RECORD_MAX);
#undef CHECK_RECORD

    /* Sets clreduce_reduce_multi refuses: 0, with the reason. */
    static const clreduce_op twice[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_SUM};
    static const clreduce_op with_dot[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_DOT};
    static const clreduce_op dot[] = {CLREDUCE_OP_DOT};
    static const clreduce_op norm2[] = {CLREDUCE_OP_MIN, CLREDUCE_OP_NORM2};
    static const clreduce_op unknown[] = {CLREDUCE_OP_SUM, (clreduce_op)99};
    static const clreduce_op eleven[11] = {CLREDUCE_OP_SUM};
    static const clreduce_op sum[] = {CLREDUCE_OP_SUM};
    static const struct {
        const char *what;
        const clreduce_op *ops;
        size_t k;
        clreduce_type type;
    } refused[] = {
        {"an operator twice", twice, 3, CLREDUCE_FLOAT},
        {"dot among others", with_dot, 2, CLREDUCE_FLOAT},
        {"dot alone", dot, 1, CLREDUCE_INT32},
        {"norm2 of int32", norm2, 2, CLREDUCE_INT32},
        {"an unknown operator", unknown, 2, CLREDUCE_FLOAT},
        {"eleven operators", eleven, 11, CLREDUCE_FLOAT},
        {"no operator", sum, 0, CLREDUCE_FLOAT},
        {"NULL ops", NULL, 1, CLREDUCE_FLOAT},
        {"an unknown type", sum, 1, (clreduce_type)9},
    };
    for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
        size_t size = clreduce_multi_record(refused[i].ops, refused[i].k, refused[i].type, at);
        const char *why = clreduce_last_error(NULL);
        print_message("%-32s -> %zu: \"%s\"\n", refused[i].what, size, why ? why : "(null)");
        if (size != 0)
            fail_msg("%s: record of %zu bytes, expected 0", refused[i].what, size);
        assert_non_null(why);
        assert_true(why[0] != '\0');
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_layout)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
