/* unit.multi: clreduce_reduce_multi(_host). Every result must have the bits
 * of clreduce_reduce() with its operator alone and the same variant (but
 * where multi.h says otherwise) and pass the CPU reference: every type, sets
 * of 1 to 10 operators in varied orders, both variants, sizes 1 to 2^20 + 7
 * between poisoned elements, results at aligned offsets between sentinels;
 * NaN, signed zeros and infinities first, in the bulk and in the tail; count
 * 0; host calls with results anywhere; results beside the input,
 * sub-buffers, an out-of-order queue, a wait list; other tunings; bad
 * arguments, which leave everything untouched. CLREDUCE_TEST_SEED=n repeats
 * a run's random data; CLREDUCE_TEST_FILTER=glob runs the matching tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "test_common_ops.h"

static clreduce_ctx *g_ctx;
static cl_command_queue g_queue;
static cl_command_queue g_read_queue;

#define RESULT_MAX 24
#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})

static const size_t all_sizes[] = {1, 31, 33, 255, 257, 4097, TC_LARGE_COUNT};

/* Sets in orders of their own; the operators a type does not take are left
 * out of them. */
typedef struct op_set {
    const char *name;
    clreduce_op ops[CLREDUCE_MULTI_MAX];
    size_t count;
} op_set;

static const op_set mixed_sets[] = {
    {"sum_min_max_argmax",
     {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_MAX, CLREDUCE_OP_ARGMAX}, 4},
    {"max_sum", {CLREDUCE_OP_MAX, CLREDUCE_OP_SUM}, 2},
    {"argmin_min_sum_abs", {CLREDUCE_OP_ARGMIN, CLREDUCE_OP_MIN, CLREDUCE_OP_SUM_ABS}, 3},
    {"moments",
     {CLREDUCE_OP_MEAN_VAR, CLREDUCE_OP_NORM2, CLREDUCE_OP_SUM, CLREDUCE_OP_ARGMAX,
      CLREDUCE_OP_MINMAX},
     5},
    {"seven",
     {CLREDUCE_OP_SUM_SQUARES, CLREDUCE_OP_MAX, CLREDUCE_OP_ARGMAX, CLREDUCE_OP_MIN,
      CLREDUCE_OP_ARGMIN, CLREDUCE_OP_SUM, CLREDUCE_OP_MINMAX},
     7},
    {"all_reversed",
     {CLREDUCE_OP_MEAN_VAR, CLREDUCE_OP_NORM2, CLREDUCE_OP_SUM_ABS, CLREDUCE_OP_SUM_SQUARES,
      CLREDUCE_OP_MINMAX, CLREDUCE_OP_ARGMAX, CLREDUCE_OP_ARGMIN, CLREDUCE_OP_MAX,
      CLREDUCE_OP_MIN, CLREDUCE_OP_SUM},
     10},
};

/* The operators of ops[0 .. count) that the type takes, into out. */
static size_t ops_for_type(const clreduce_op *ops, size_t count, clreduce_type type,
                           clreduce_op *out)
{
    size_t k = 0;
    for (size_t i = 0; i < count; i++)
        if (tc_ops_takes(ops[i], type))
            out[k++] = ops[i];
    return k;
}

/* The alignment multi.h asks of a result's offset. */
static size_t result_alignment(clreduce_op op, clreduce_type type)
{
    if (op == CLREDUCE_OP_ARGMIN || op == CLREDUCE_OP_ARGMAX || op == CLREDUCE_OP_MEAN_VAR)
        return 8;
    return tc_elem_size(type);
}

/* Places the results from byte `first` on, the last operator's first, each
 * at its alignment after `gap` bytes; returns the bytes they need. */
static size_t place_results(const clreduce_op *ops, size_t k, clreduce_type type, size_t first,
                            size_t gap, size_t *offsets)
{
    size_t at = first;
    for (size_t j = k; j-- > 0;) {
        size_t align = result_alignment(ops[j], type);
        at = (at + align - 1) / align * align;
        offsets[j] = at;
        at += clreduce_result_size(ops[j], type) + gap;
    }
    return at + 8;
}

/* Random data for a set: integers near their limits; floats in [-4, 4)
 * or, on odd cases, 3 + [-1, 1) (the references of norm2 and mean_var hold
 * on both). */
static void fill_for_set(clreduce_type type, void *data, size_t n, size_t k)
{
    tc_op_fill((k & 1) ? CLREDUCE_OP_MEAN_VAR : CLREDUCE_OP_SUM_SQUARES, type, data, n);
}

static void format_bytes(const unsigned char *p, size_t n, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used + 3 < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%02x", p[i]);
}

/* ---- one call and its checks ------------------------------------------------------ */

/* What a case varies besides its data. */
typedef struct case_shape {
    size_t lead, tail;  /* poisoned elements around the input range */
    size_t first, gap;  /* where the results start, bytes between them */
    int use_wait;       /* upload without blocking, its event in the wait list */
    int specials;       /* the data holds NaN or infinities */
} case_shape;

static case_shape shape_of_case(size_t k)
{
    case_shape c = {1 + k % 5, (k % 3) ? 13 : 0, 8 * (k % 3), (k & 1) ? 8 : 4, (k % 4) == 3, 0};
    return c;
}

/* multi.h's fifth case: on PoCL a float SUM or MEAN_VAR alone of 2^20
 * elements or more, on Intel's CPU runtime a float MEAN_VAR of 2^18 or more
 * and a double MEAN_VAR of 2^22 or more take a tuning of their own. */
static int cpu_alone_tuned(const clreduce_ctx *ctx, clreduce_op op, clreduce_type element,
                           size_t n)
{
    if (!(tc_device_type(ctx) & CL_DEVICE_TYPE_CPU))
        return 0;
    if (tc_platform_is(ctx, TC_POCL))
        return element == CLREDUCE_FLOAT && n >= ((size_t)1 << 20) &&
               (op == CLREDUCE_OP_SUM || op == CLREDUCE_OP_MEAN_VAR);
    if (tc_platform_is(ctx, TC_INTEL_CPU_RUNTIME))
        return op == CLREDUCE_OP_MEAN_VAR &&
               n >= ((size_t)1 << (element == CLREDUCE_FLOAT ? 18 : 22));
    return 0;
}

/* Whether multi.h lets a floating-point result of op on ctx differ in its
 * last bits from the call alone over n elements: a SUM on a CPU device
 * whose sub-groups come from cl_khr_subgroups; any sum-like operator (float
 * or double) on an NVIDIA GPU whose work-group size, loads and groups per
 * compute unit the context's settings leave to the library (g_ctx; the
 * tuned contexts pin them); with g_ctx, the sums and means whose call alone
 * takes a CPU runtime's tuning of its own (cpu_alone_tuned). The CPU
 * reference checks those results then. */
static int float_result_may_differ(const clreduce_ctx *ctx, clreduce_op op,
                                   clreduce_type element, size_t n)
{
    int sum_like = op == CLREDUCE_OP_SUM || op == CLREDUCE_OP_SUM_ABS ||
                   op == CLREDUCE_OP_SUM_SQUARES || op == CLREDUCE_OP_NORM2 ||
                   op == CLREDUCE_OP_MEAN_VAR;
    if (!sum_like)
        return 0;
    cl_device_type type = tc_device_type(ctx);
    clreduce_subgroup_path path = clreduce_get_subgroup_path(ctx);
    int khr_cpu = (type & CL_DEVICE_TYPE_CPU) && path != CLREDUCE_SUBGROUP_PATH_NONE &&
                  path != CLREDUCE_SUBGROUP_PATH_NV_PTX;
    int tuned_per_operator = tc_is_nvidia_gpu(ctx) && ctx == g_ctx;
    return (khr_cpu && op == CLREDUCE_OP_SUM) || tuned_per_operator ||
           (ctx == g_ctx && cpu_alone_tuned(ctx, op, element, n));
}

/* Whether `got` and `alone` are NaN of type. */
static int both_nan(clreduce_type type, const unsigned char *got, const unsigned char *alone)
{
    tc_value a, b;
    memcpy(a.bytes, got, 8);
    memcpy(b.bytes, alone, 8);
    return type == CLREDUCE_FLOAT ? isnan(a.f) && isnan(b.f) : isnan(a.d) && isnan(b.d);
}

/* Runs ops[0 .. k) on data[0 .. n) with clreduce_reduce_multi on `queue`
 * of ctx as c lays it out, then each operator alone with clreduce_reduce on
 * the same range, and checks every result: the same bits as alone (but
 * where multi.h lets them differ: min or max of floats where NaN, float
 * sums and means where a tuning differs, which the reference checks then),
 * the CPU reference (of sum, min, max, argmin, argmax and minmax only where
 * the data holds NaN or infinities, the only references that take them),
 * the bytes around the results untouched, a done event. */
static void run_set(tc_suite *s, cl_command_queue queue, const clreduce_op *ops, size_t k,
                    clreduce_type type, clreduce_variant v, const void *data, size_t n,
                    const case_shape *c)
{
    clreduce_ctx *ctx = s->ctx;
    size_t es = tc_elem_size(type), total = c->lead + n + c->tail;
    unsigned char *host = malloc((total ? total : 1) * es);
    /* Poison that changes min, max or a sum, in turns. */
    static const clreduce_op poisons[] = {CLREDUCE_OP_MIN, CLREDUCE_OP_MAX, CLREDUCE_OP_SUM};
    for (size_t i = 0; i < total; i++) {
        tc_value p;
        tc_poison(poisons[i % 3], type, &p);
        tc_set(type, host, i, &p);
    }
    if (n)
        memcpy(host + c->lead * es, data, n * es);
    size_t offsets[CLREDUCE_MULTI_MAX];
    size_t bytes = place_results(ops, k, type, c->first, c->gap, offsets);
    unsigned char *res = malloc(bytes), *alone = malloc(bytes);
    memset(res, TC_SENTINEL_BYTE, bytes);
    cl_mem in = tc_make_buffer(ctx, (total ? total : 1) * es, c->use_wait ? NULL : host);
    cl_mem out = tc_make_buffer(ctx, bytes, res);
    cl_mem single = tc_make_buffer(ctx, RESULT_MAX, NULL);
    cl_event upload = NULL, done = TC_EVENT_SENTINEL;
    if (c->use_wait)
        assert_int_equal(clEnqueueWriteBuffer(queue, in, CL_FALSE, 0, total * es, host, 0, NULL,
                                              &upload),
                         CL_SUCCESS);
    size_t case_index = s->cases++;
    char what[160];
    snprintf(what, sizeof what, "%zu operators (%s first) on %s, %s, n=%zu case=%zu", k,
             clreduce_op_name(ops[0]), clreduce_type_name(type), clreduce_variant_name(v), n,
             case_index);
    clreduce_status st = clreduce_reduce_multi(ctx, queue, ops, k, type, v, in, c->lead, n, out,
                                               offsets, upload ? 1 : 0, upload ? &upload : NULL,
                                               &done);
    if (st != CLREDUCE_SUCCESS || done == TC_EVENT_SENTINEL) {
        tc_ops_report(s, "%s: %s (%s)%s", what, clreduce_status_string(st),
                      clreduce_last_error(ctx), st == CLREDUCE_SUCCESS ? ", no done event" : "");
        assert_int_equal(clFinish(queue), CL_SUCCESS);
        goto out;
    }
    /* Read on another queue behind `done` alone: a done event that
     * completes too early shows there. */
    tc_read_buffer(g_read_queue, out, res, bytes, 1, &done);
    clReleaseEvent(done);
    for (size_t i = 0; i < bytes; i++) {
        int inside = 0;
        for (size_t j = 0; j < k; j++)
            inside |= i >= offsets[j] && i < offsets[j] + clreduce_result_size(ops[j], type);
        if (!inside && res[i] != TC_SENTINEL_BYTE) {
            tc_ops_report(s, "%s: byte %zu outside the results written", what, i);
            break;
        }
    }
    for (size_t j = 0; j < k; j++) {
        size_t rs = clreduce_result_size(ops[j], type);
        const unsigned char *got = res + offsets[j];
        cl_event alone_done;
        st = clreduce_reduce(ctx, queue, ops[j], type, v, in, c->lead, n, single, 0, 0, NULL,
                             &alone_done);
        if (st != CLREDUCE_SUCCESS) {
            tc_ops_report(s, "%s: %s alone: %s (%s)", what, clreduce_op_name(ops[j]),
                          clreduce_status_string(st), clreduce_last_error(ctx));
            continue;
        }
        tc_read_buffer(queue, single, alone, rs, 1, &alone_done);
        clReleaseEvent(alone_done);
        char why[512] = "";
        int same = memcmp(got, alone, rs) == 0;
        if (!same && tc_is_float_type(type) &&
            (ops[j] == CLREDUCE_OP_MIN || ops[j] == CLREDUCE_OP_MAX))
            same = both_nan(type, got, alone);
        if (!same && tc_is_float_type(type))
            same = float_result_may_differ(ctx, ops[j], type, n);
        int referenced = !c->specials || ops[j] <= CLREDUCE_OP_MINMAX;
        if (!same) {
            char g[80], a[80];
            format_bytes(got, rs, g, sizeof g);
            format_bytes(alone, rs, a, sizeof a);
            tc_ops_report(s, "%s: %s gave bytes %s, alone %s", what, clreduce_op_name(ops[j]),
                          g, a);
        } else if (referenced &&
                   !tc_check_any_result(ops[j], type, data, NULL, n, got, why, sizeof why)) {
            tc_ops_report(s, "%s: %s: %s", what, clreduce_op_name(ops[j]), why);
        }
    }
out:
    if (upload) {
        clWaitForEvents(1, &upload);
        clReleaseEvent(upload);
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseMemObject(single);
    free(host);
    free(res);
    free(alone);
}

/* ---- tests ---------------------------------------------------------------------------- */

/* The variants a test runs: AUTO's, and the other one. */
static clreduce_variant other_variant(void)
{
    return clreduce_auto_variant(g_ctx, CLREDUCE_FLOAT) == CLREDUCE_SINGLE_PASS
               ? CLREDUCE_GRID_STRIDE
               : CLREDUCE_SINGLE_PASS;
}

/* Every one-input operator at once on every type and size; two of the
 * mixed sets on each type (one on the other variant), each set on two
 * types at least; each operator alone through the multi call, on one type
 * or two. */
static void test_sets(void **state)
{
    int other = *(const int *)*state;
    clreduce_variant v = other ? other_variant() : CLREDUCE_AUTO;
    char label[64];
    snprintf(label, sizeof label, "sets_%s", clreduce_variant_name(v));
    tc_suite s = tc_ops_seeded_suite(g_ctx, label);
    void *data = malloc(TC_LARGE_COUNT * 8);
    for (tc_type_ops t = {0}; tc_next_type_ops(g_ctx, &t, ARRAY_SIZE(tc_all_types)); t.index++) {
        clreduce_type type = t.type;
        size_t ti = t.index;
        for (size_t si = 0; si < ARRAY_SIZE(all_sizes); si++) {
            size_t n = all_sizes[si];
            fill_for_set(type, data, n, s.cases);
            case_shape c = shape_of_case(s.cases);
            run_set(&s, g_queue, t.ops, t.k, type, v, data, n, &c);
        }
        for (size_t j = 0; j < (other ? 1u : 2u); j++) {
            const op_set *set = &mixed_sets[(2 * ti + j) % ARRAY_SIZE(mixed_sets)];
            clreduce_op ops[CLREDUCE_MULTI_MAX];
            size_t k = ops_for_type(set->ops, set->count, type, ops);
            size_t n = (ti + j) & 1 ? TC_LARGE_COUNT : all_sizes[(ti + j) % 6];
            fill_for_set(type, data, n, s.cases);
            case_shape c = shape_of_case(s.cases);
            run_set(&s, g_queue, ops, k, type, v, data, n, &c);
        }
        for (size_t oi = 0; oi < ARRAY_SIZE(tc_one_input_ops) && !other; oi++) {
            clreduce_op op = tc_one_input_ops[oi];
            if ((oi % ARRAY_SIZE(tc_all_types) != ti && type != CLREDUCE_FLOAT) ||
                !tc_ops_takes(op, type))
                continue;
            size_t n = all_sizes[(oi + ti) % ARRAY_SIZE(all_sizes)];
            fill_for_set(type, data, n, s.cases);
            case_shape c = shape_of_case(s.cases);
            run_set(&s, g_queue, &tc_one_input_ops[oi], 1, type, v, data, n, &c);
        }
    }
    free(data);
    tc_ops_finish_suite(&s);
}

/* Special values where each part of the kernel meets them: NaN, infinities
 * and signed zeros first, in the bulk, in the last n % vector width, and
 * several at once; a NaN of other bits than the device's. */
static void test_special_values(void **state)
{
    (void)state;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "special_values");
    static const size_t sizes[] = {1, 33, 4099, TC_LARGE_COUNT};
    void *data = malloc(TC_LARGE_COUNT * 8);
    for (tc_type_ops t = {0}; tc_next_type_ops(g_ctx, &t, 2); t.index++) {
        clreduce_type type = t.type;
        for (int vi = 0; vi < 2; vi++) {
            clreduce_variant v = vi ? other_variant() : CLREDUCE_AUTO;
            for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
                size_t n = sizes[si];
                for (int pattern = 0; pattern < 7; pattern++) {
                    fill_for_set(type, data, n, (size_t)pattern);
                    size_t last = n - 1, mid = n / 2;
                    switch (pattern) {
                    case 0: tc_set_double(type, data, 0, NAN); break;
                    case 1: tc_set_double(type, data, last, NAN); break;
                    case 2: /* two NaNs: the first in the bulk */
                        tc_set_double(type, data, mid, NAN);
                        tc_set_double(type, data, last, NAN);
                        break;
                    case 3: /* infinities of both signs: NaN sums */
                        tc_set_double(type, data, mid, INFINITY);
                        tc_set_double(type, data, last, -INFINITY);
                        break;
                    case 4: /* an infinity and ties of the extremes */
                        tc_set_double(type, data, 0, -INFINITY);
                        tc_set_double(type, data, mid, -INFINITY);
                        break;
                    case 5: /* signed zeros only */
                        for (size_t i = 0; i < n; i++)
                            tc_set_double(type, data, i, (i * 7) % 3 ? 0.0 : -0.0);
                        break;
                    default: /* a NaN with the sign bit and a payload, last */
                        if (type == CLREDUCE_FLOAT) {
                            uint32_t bits = 0xffc00123u;
                            memcpy((float *)data + last, &bits, 4);
                        } else {
                            uint64_t bits = 0xfff8000000000123ull;
                            memcpy((double *)data + last, &bits, 8);
                        }
                        break;
                    }
                    case_shape c = shape_of_case(s.cases);
                    c.specials = pattern != 5;
                    run_set(&s, g_queue, t.ops, t.k, type, v, data, n, &c);
                }
            }
        }
    }
    free(data);
    tc_ops_finish_suite(&s);
}

/* count 0: each operator's result of no element, as the operator alone
 * gives it, at offsets that are aligned but not multiples of the result's
 * size; device and host. */
static void test_empty(void **state)
{
    (void)state;
    tc_suite s = {g_ctx, "empty", 0, 0};
    for (tc_type_ops t = {0}; tc_next_type_ops(g_ctx, &t, ARRAY_SIZE(tc_all_types)); t.index++) {
        clreduce_type type = t.type;
        for (int vi = 0; vi < 2; vi++) {
            case_shape c = shape_of_case(s.cases);
            c.first = tc_elem_size(type);
            run_set(&s, g_queue, t.ops, t.k, type, vi ? other_variant() : CLREDUCE_AUTO, NULL,
                    0, &c);
        }
        unsigned char got[CLREDUCE_MULTI_MAX][RESULT_MAX], alone[RESULT_MAX];
        void *results[CLREDUCE_MULTI_MAX];
        for (size_t j = 0; j < t.k; j++)
            results[j] = got[j];
        clreduce_status st =
            clreduce_reduce_multi_host(g_ctx, t.ops, t.k, type, CLREDUCE_AUTO, NULL, 0, results);
        s.cases++;
        if (st != CLREDUCE_SUCCESS) {
            tc_ops_report(&s, "host, %s: %s (%s)", clreduce_type_name(type),
                          clreduce_status_string(st), clreduce_last_error(g_ctx));
            continue;
        }
        for (size_t j = 0; j < t.k; j++) {
            assert_int_equal(clreduce_reduce_host(g_ctx, t.ops[j], type, CLREDUCE_AUTO, NULL, 0,
                                                  alone),
                             CLREDUCE_SUCCESS);
            if (memcmp(got[j], alone, clreduce_result_size(t.ops[j], type)) != 0)
                tc_ops_report(&s, "host, %s, %s: not the result of no element",
                              clreduce_type_name(type), clreduce_op_name(t.ops[j]));
        }
    }
    tc_ops_finish_suite(&s);
}

/* Host calls: results anywhere (unaligned, in a structure), the same bits
 * as the host calls of each operator alone, nothing past them written. */
static void test_host(void **state)
{
    (void)state;
    tc_suite s = tc_ops_seeded_suite(g_ctx, "host");
    static const size_t sizes[] = {1, 257, 4097, 65539};
    void *data = malloc(65539 * 8);
    for (tc_type_ops t = {0}; tc_next_type_ops(g_ctx, &t, ARRAY_SIZE(tc_all_types)); t.index++) {
        clreduce_type type = t.type;
        for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
            size_t n = sizes[si];
            fill_for_set(type, data, n, si);
            /* Results one after another from an odd address. */
            unsigned char block[CLREDUCE_MULTI_MAX * RESULT_MAX + 8], alone[RESULT_MAX];
            memset(block, TC_SENTINEL_BYTE, sizeof block);
            void *results[CLREDUCE_MULTI_MAX];
            size_t at = 1;
            for (size_t j = 0; j < t.k; j++) {
                results[j] = block + at;
                at += clreduce_result_size(t.ops[j], type);
            }
            clreduce_status st = clreduce_reduce_multi_host(g_ctx, t.ops, t.k, type, CLREDUCE_AUTO,
                                                            data, n, results);
            s.cases++;
            if (st != CLREDUCE_SUCCESS) {
                tc_ops_report(&s, "%s n=%zu: %s (%s)", clreduce_type_name(type), n,
                              clreduce_status_string(st), clreduce_last_error(g_ctx));
                continue;
            }
            if (block[0] != TC_SENTINEL_BYTE || block[at] != TC_SENTINEL_BYTE)
                tc_ops_report(&s, "%s n=%zu: bytes beside the results written",
                              clreduce_type_name(type), n);
            for (size_t j = 0; j < t.k; j++) {
                size_t rs = clreduce_result_size(t.ops[j], type);
                assert_int_equal(clreduce_reduce_host(g_ctx, t.ops[j], type, CLREDUCE_AUTO, data,
                                                      n, alone),
                                 CLREDUCE_SUCCESS);
                char why[512];
                int may_differ = tc_is_float_type(type) &&
                                 float_result_may_differ(g_ctx, t.ops[j], type, n);
                if (!may_differ && memcmp(results[j], alone, rs) != 0)
                    tc_ops_report(&s, "%s n=%zu: %s differs from the call alone",
                                  clreduce_type_name(type), n, clreduce_op_name(t.ops[j]));
                else if (!tc_check_any_result(t.ops[j], type, data, NULL, n, results[j], why,
                                              sizeof why))
                    tc_ops_report(&s, "%s n=%zu: %s: %s", clreduce_type_name(type), n,
                                  clreduce_op_name(t.ops[j]), why);
            }
        }
    }
    /* The example of multi.h: a structure of results. */
    float x[1000];
    for (int i = 0; i < 1000; i++)
        x[i] = (float)((i * 37) % 1000) - 500.0f;
    const clreduce_op ops[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_MAX,
                               CLREDUCE_OP_ARGMAX};
    struct {
        float sum, min, max;
        clreduce_arg_float argmax;
    } r;
    void *const results[] = {&r.sum, &r.min, &r.max, &r.argmax};
    assert_int_equal(
        clreduce_reduce_multi_host(g_ctx, ops, 4, CLREDUCE_FLOAT, CLREDUCE_AUTO, x, 1000, results),
        CLREDUCE_SUCCESS);
    assert_true(r.sum == -500.0f && r.min == -500.0f && r.max == 499.0f);
    assert_true(r.argmax.value == 499.0f && r.argmax.index == 27);
    free(data);
    tc_ops_finish_suite(&s);
}

/* Results in the input's own buffer beside its range, in a sub-buffer of
 * it; an out-of-order queue; a wait list held back by a user event. */
static void test_layouts(void **state)
{
    (void)state;
    tc_seed_for("layouts");
    const size_t n = 4099, lead = 64;
    float data[4099];
    tc_op_fill(CLREDUCE_OP_SUM_SQUARES, CLREDUCE_FLOAT, data, n);
    const clreduce_op ops[] = {CLREDUCE_OP_ARGMIN, CLREDUCE_OP_SUM, CLREDUCE_OP_MINMAX,
                               CLREDUCE_OP_MEAN_VAR};
    unsigned char want[4][RESULT_MAX];
    void *wants[4] = {want[0], want[1], want[2], want[3]};
    assert_int_equal(
        clreduce_reduce_multi_host(g_ctx, ops, 4, CLREDUCE_FLOAT, CLREDUCE_AUTO, data, n, wants),
        CLREDUCE_SUCCESS);

    /* One buffer: results before and after the input range. */
    size_t bytes = (lead + n + 128) * 4;
    unsigned char *host = malloc(bytes), *back = malloc(bytes);
    memset(host, TC_SENTINEL_BYTE, bytes);
    memcpy(host + lead * 4, data, n * 4);
    cl_mem buf = tc_make_buffer(g_ctx, bytes, host);
    size_t end = (lead + n) * 4, after = (end + 7) / 8 * 8;
    const size_t at[4] = {8, 32, after + 8, after + 24};
    cl_event user = tc_user_event(g_ctx), done = NULL;
    assert_int_equal(clreduce_reduce_multi(g_ctx, g_queue, ops, 4, CLREDUCE_FLOAT, CLREDUCE_AUTO,
                                           buf, lead, n, buf, at, 1, &user, &done),
                     CLREDUCE_SUCCESS);
    /* Nothing may run before the user event completes. */
    assert_int_not_equal(tc_event_status(done), CL_COMPLETE);
    assert_int_equal(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    tc_read_buffer(g_read_queue, buf, back, bytes, 1, &done);
    clReleaseEvent(done);
    clReleaseEvent(user);
    for (size_t j = 0; j < 4; j++) {
        size_t rs = clreduce_result_size(ops[j], CLREDUCE_FLOAT);
        assert_memory_equal(back + at[j], want[j], rs);
        memcpy(host + at[j], want[j], rs);
    }
    assert_memory_equal(back, host, bytes); /* the input and the gaps as they were */

    /* The results in a sub-buffer after the input range. */
    cl_buffer_region region = {(end + 127) / 128 * 128, 128};
    cl_int err;
    if (region.origin + region.size <= bytes) {
        cl_mem sub = clCreateSubBuffer(buf, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                       &region, &err);
        if (err == CL_SUCCESS) {
            const size_t sub_at[4] = {0, 16, 24, 40};
            unsigned char got[128];
            assert_int_equal(clreduce_reduce_multi(g_ctx, g_queue, ops, 4, CLREDUCE_FLOAT,
                                                   CLREDUCE_AUTO, buf, lead, n, sub, sub_at, 0,
                                                   NULL, NULL),
                             CLREDUCE_SUCCESS);
            tc_read_buffer(g_queue, sub, got, sizeof got, 0, NULL);
            for (size_t j = 0; j < 4; j++)
                assert_memory_equal(got + sub_at[j], want[j],
                                    clreduce_result_size(ops[j], CLREDUCE_FLOAT));
            clReleaseMemObject(sub);
        } else {
            printf("the device aligns sub-buffers to more than 128 bytes: sub-buffer case "
                   "skipped\n");
        }
    }
    clReleaseMemObject(buf);

    /* An out-of-order queue. */
    if (tc_device_supports_queue(g_ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
        cl_command_queue q = tc_create_queue(g_ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
        assert_non_null(q);
        tc_suite s = {g_ctx, "layouts_out_of_order", 0, 0};
        for (int vi = 0; vi < 2; vi++) {
            case_shape c = shape_of_case(3); /* with a wait list */
            run_set(&s, q, ops, 4, CLREDUCE_FLOAT, vi ? other_variant() : CLREDUCE_AUTO, data,
                    n, &c);
        }
        clReleaseCommandQueue(q);
        tc_ops_finish_suite(&s);
    }
    free(host);
    free(back);
}

/* The cases of each tuning: one set of operators on float and int32
 * (tuning 0) or on float (tuning 1), at three sizes. */
static void tuning_cases(tc_suite *s, size_t tuning)
{
    static const size_t sizes[] = {33, 4097, 65539};
    static const clreduce_type types[] = {CLREDUCE_FLOAT, CLREDUCE_INT32};
    static const clreduce_op some[] = {CLREDUCE_OP_ARGMAX, CLREDUCE_OP_SUM, CLREDUCE_OP_NORM2,
                                       CLREDUCE_OP_MIN, CLREDUCE_OP_MEAN_VAR};
    void *data = malloc(65539 * 8);
    for (size_t ti = 0; ti < (tuning ? 1u : 2u); ti++) {
        clreduce_op ops[CLREDUCE_MULTI_MAX];
        size_t k = ops_for_type(some, ARRAY_SIZE(some), types[ti], ops);
        for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
            fill_for_set(types[ti], data, sizes[si], si);
            case_shape c = shape_of_case(s->cases);
            run_set(s, g_queue, ops, k, types[ti], CLREDUCE_AUTO, data, sizes[si], &c);
        }
    }
    free(data);
}

/* Other tunings change the grid (scalar loads and one load per work-item;
 * vectors of 8 and 3 loads): the multi call follows each operator's own
 * reduction there too. */
static const tc_ops_tunings tunings = {&g_ctx, {1, 3}, tuning_cases};

/* Bad arguments: refused with their status and a message, nothing
 * enqueued, built or written. */
static void test_errors(void **state)
{
    (void)state;
    tc_guarded g = tc_ops_guarded(g_ctx, g_queue);
    const clreduce_op four[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_MAX,
                                CLREDUCE_OP_ARGMAX};
    const size_t at[] = {0, 4, 8, 16};
    const clreduce_op eleven[11] = {CLREDUCE_OP_SUM};
    const clreduce_op with_dot[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_DOT};
    const clreduce_op twice[] = {CLREDUCE_OP_SUM, CLREDUCE_OP_MIN, CLREDUCE_OP_SUM};
    const clreduce_op unknown[] = {CLREDUCE_OP_SUM, (clreduce_op)99};
    const clreduce_op norm2[] = {CLREDUCE_OP_MIN, CLREDUCE_OP_NORM2};
    const clreduce_op mean_var[] = {CLREDUCE_OP_MEAN_VAR};

#define MULTI(ops, k, type, variant, input, offset, count, result, offsets, nwait, wait)        \
    clreduce_reduce_multi(g_ctx, g_queue, ops, k, type, variant, input, offset, count, result, \
                          offsets, nwait, wait, &done)

    TC_EXPECT_FAILURE(&g, g_ctx, "NULL ops", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("ops"),
                      MULTI(NULL, 4, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 0, 8, g.output, at,
                            0, NULL));
    TC_EXPECT_FAILURE(&g, g_ctx, "no operator", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("num_ops", "0"),
                      MULTI(four, 0, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 0, 8, g.output, at,
                            0, NULL));
    TC_EXPECT_FAILURE(&g, g_ctx, "eleven operators", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("num_ops", "11"),
                      MULTI(eleven, 11, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 0, 8, g.output,
                            at, 0, NULL));
    TC_EXPECT_FAILURE(&g, g_ctx, "dot", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("ops[1]", "dot", "clreduce_dot"),
                      MULTI(with_dot, 2, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 0, 8, g.output,
                            at, 0, NULL));
    TC_EXPECT_FAILURE(&g, g_ctx, "an operator twice", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("ops[0]", "ops[2]", "sum"),
                      MULTI(twice, 3, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 0, 8, g.output, at,
                            0, NULL));
    TC_EXPECT_FAILURE(&g, g_ctx, "unknown op", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("ops[1]", "unknown", "99"),
                      MULTI(unknown, 2, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 0, 8, g.output,
                            at, 0, NULL));
    TC_EXPECT_FAILURE(&g, g_ctx, "unknown type", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("type"),
                      MULTI(four, 4, (clreduce_type)9, CLREDUCE_AUTO, g.input, 0, 8, g.output,
                            at, 0, NULL));
    TC_EXPECT_FAILURE(&g, g_ctx, "norm2 of int32", CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                      WORDS("ops[1]", "norm2", "int32"),
                      MULTI(norm2, 2, CLREDUCE_INT32, CLREDUCE_AUTO, g.input, 0, 8, g.output, at,
                            0, NULL));
    TC_EXPECT_FAILURE(&g, g_ctx, "mean_var of uint64", CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                      WORDS("mean_var", "uint64"),
                      MULTI(mean_var, 1, CLREDUCE_UINT64, CLREDUCE_AUTO, g.input, 0, 4, g.output,
                            at, 0, NULL));
    TC_EXPECT_FAILURE(&g, g_ctx, "variant sequential", CLREDUCE_ERROR_UNSUPPORTED, g_ctx,
                      WORDS("sequential"),
                      MULTI(four, 4, CLREDUCE_FLOAT, CLREDUCE_SEQUENTIAL, g.input, 0, 8,
                            g.output, at, 0, NULL));
    TC_EXPECT_FAILURE(&g, g_ctx, "unknown variant", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("variant"),
                      MULTI(four, 4, CLREDUCE_FLOAT, (clreduce_variant)42, g.input, 0, 8,
                            g.output, at, 0, NULL));
    TC_EXPECT_FAILURE(&g, g_ctx, "NULL result_offsets", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("result_offsets"),
                      MULTI(four, 4, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 0, 8, g.output,
                            NULL, 0, NULL));
    TC_EXPECT_FAILURE(&g, g_ctx, "NULL queue", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("queue"),
                      clreduce_reduce_multi(g_ctx, NULL, four, 4, CLREDUCE_FLOAT, CLREDUCE_AUTO,
                                            g.input, 0, 8, g.output, at, 0, NULL, &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "NULL input", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("input"),
                      MULTI(four, 4, CLREDUCE_FLOAT, CLREDUCE_AUTO, NULL, 0, 8, g.output, at, 0,
                            NULL));
    TC_EXPECT_FAILURE(&g, g_ctx, "NULL result", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("result"),
                      MULTI(four, 4, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 0, 8, NULL, at, 0,
                            NULL));
    TC_EXPECT_FAILURE(&g, g_ctx, "num_wait without a list", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("num_wait"),
                      MULTI(four, 4, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 0, 8, g.output, at,
                            1, NULL));
    TC_EXPECT_FAILURE(&g, g_ctx, "input past its end", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("input"),
                      MULTI(four, 4, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 60, 8, g.output, at,
                            0, NULL));
    const size_t misaligned[] = {0, 4, 8, 20};
    TC_EXPECT_FAILURE(&g, g_ctx, "argmax at byte 20", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("result_offsets[3]", "20", "multiple of 8"),
                      MULTI(four, 4, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 0, 8, g.output,
                            misaligned, 0, NULL));
    const size_t past[] = {0, 4, 8, 56};
    TC_EXPECT_FAILURE(&g, g_ctx, "argmax past the end", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("result_offsets[3]", "past the end"),
                      MULTI(four, 4, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 0, 8, g.output, past,
                            0, NULL));
    const size_t huge[] = {0, 4, 8, SIZE_MAX - 7};
    TC_EXPECT_FAILURE(&g, g_ctx, "an offset near SIZE_MAX", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("result_offsets[3]", "past the end"),
                      MULTI(four, 4, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 0, 8, g.output, huge,
                            0, NULL));
    const size_t same[] = {0, 4, 4, 16};
    TC_EXPECT_FAILURE(&g, g_ctx, "min and max in one place", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("ops[2]", "ops[1]", "overlap"),
                      MULTI(four, 4, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 0, 8, g.output, same,
                            0, NULL));
    const size_t inside[] = {0, 4, 24, 16}; /* max inside argmax's 16 bytes */
    TC_EXPECT_FAILURE(&g, g_ctx, "max inside argmax", CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                      WORDS("ops[3]", "ops[2]", "overlap"),
                      MULTI(four, 4, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 0, 8, g.output,
                            inside, 0, NULL));
    /* Results in the input's buffer: argmax's bytes [64, 80) lie on input
     * elements [16, 20). */
    const size_t on_input[] = {0, 4, 8, 64};
    TC_EXPECT_FAILURE(&g, g_ctx, "argmax over the input", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("ops[3]", "input", "overlap"),
                      MULTI(four, 4, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 10, 30, g.input,
                            on_input, 0, NULL));
    /* The same through a sub-buffer of the input's buffer. */
    cl_buffer_region region = {128, 128};
    cl_int err;
    cl_mem sub = clCreateSubBuffer(g.input, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                   &region, &err);
    if (err == CL_SUCCESS) {
        TC_EXPECT_FAILURE(&g, g_ctx, "results in a sub-buffer over the input",
                          CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                          WORDS("ops[0]", "input", "sub-buffers"),
                          MULTI(four, 4, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 32, 16, sub, at,
                                0, NULL));
        clReleaseMemObject(sub);
    } else {
        printf("the device aligns sub-buffers to more than 128 bytes: sub-buffer case "
               "skipped\n");
    }
    tc_foreign other;
    tc_make_foreign(g_ctx, 256, 64, &other);
    TC_EXPECT_FAILURE(&g, g_ctx, "a queue of another context", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("queue"),
                      clreduce_reduce_multi(g_ctx, other.queue, four, 4, CLREDUCE_FLOAT,
                                            CLREDUCE_AUTO, g.input, 0, 8, g.output, at, 0, NULL,
                                            &done));
    TC_EXPECT_FAILURE(&g, g_ctx, "a result of another context", CLREDUCE_ERROR_INVALID_ARGUMENT,
                      g_ctx, WORDS("result"),
                      MULTI(four, 4, CLREDUCE_FLOAT, CLREDUCE_AUTO, g.input, 0, 8, other.output,
                            at, 0, NULL));
    tc_release_foreign(&other);
    tc_check_status_and_message("NULL ctx",
                                clreduce_reduce_multi(NULL, g_queue, four, 4, CLREDUCE_FLOAT,
                                                      CLREDUCE_AUTO, g.input, 0, 8, g.output, at,
                                                      0, NULL, NULL),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, NULL, WORDS("ctx"));
#undef MULTI

    /* Host calls write no result on error. */
    float data[16] = {1, 2, 3};
    unsigned char res[4][RESULT_MAX];
    memset(res, TC_SENTINEL_BYTE, sizeof res);
    void *results[4] = {res[0], res[1], res[2], res[3]};
    void *with_null[4] = {res[0], NULL, res[2], res[3]};
    void *sharing[4] = {res[0], res[1], res[1] + 2, res[3]};
    void *on_data[4] = {res[0], res[1], &data[15], res[3]};
#define HOST(ops, k, type, d, count, r)                                                           \
    clreduce_reduce_multi_host(g_ctx, ops, k, type, CLREDUCE_AUTO, d, count, r)
    tc_check_status_and_message("host: NULL results",
                                HOST(four, 4, CLREDUCE_FLOAT, data, 16, NULL),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("results"));
    tc_check_status_and_message("host: a NULL result",
                                HOST(four, 4, CLREDUCE_FLOAT, data, 16, with_null),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("results[1]"));
    tc_check_status_and_message("host: results sharing bytes",
                                HOST(four, 4, CLREDUCE_FLOAT, data, 16, sharing),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                                WORDS("results[2]", "results[1]", "overlap"));
    tc_check_status_and_message("host: a result on the data",
                                HOST(four, 4, CLREDUCE_FLOAT, data, 16, on_data),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx,
                                WORDS("results[2]", "data"));
    tc_check_status_and_message("host: NULL data", HOST(four, 4, CLREDUCE_FLOAT, NULL, 16,
                                                        results),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("data"));
    tc_check_status_and_message("host: dot", HOST(with_dot, 2, CLREDUCE_FLOAT, data, 16, results),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx, WORDS("dot"));
    tc_check_status_and_message("host: norm2 of int32",
                                HOST(norm2, 2, CLREDUCE_INT32, data, 16, results),
                                CLREDUCE_ERROR_UNSUPPORTED, g_ctx, WORDS("norm2", "int32"));
    tc_check_status_and_message("host: NULL ctx",
                                clreduce_reduce_multi_host(NULL, four, 4, CLREDUCE_FLOAT,
                                                           CLREDUCE_AUTO, data, 16, results),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, NULL, WORDS("ctx"));
#undef HOST
    for (size_t i = 0; i < sizeof res; i++)
        assert_int_equal(res[i / RESULT_MAX][i % RESULT_MAX], TC_SENTINEL_BYTE);
    tc_release_guarded(&g);
}

int main(void)
{
    g_ctx = tc_start("unit.multi", &g_queue, &g_read_queue, NULL);
    static const int auto_variant = 0, other = 1;
    struct CMUnitTest tests[12];
    static char names[2][48];
    size_t nt = 0;
    tc_add_test(tests, &nt, "errors", test_errors, NULL);
    snprintf(names[0], sizeof names[0], "sets_auto");
    tc_add_test(tests, &nt, names[0], test_sets, (void *)&auto_variant);
    snprintf(names[1], sizeof names[1], "sets_%s", clreduce_variant_name(other_variant()));
    tc_add_test(tests, &nt, names[1], test_sets, (void *)&other);
    tc_add_test(tests, &nt, "special_values", test_special_values, NULL);
    tc_add_test(tests, &nt, "empty", test_empty, NULL);
    tc_add_test(tests, &nt, "host", test_host, NULL);
    tc_add_test(tests, &nt, "layouts", test_layouts, NULL);
    tc_add_test(tests, &nt, "tunings", tc_ops_test_tunings, (void *)&tunings);
    int failed = tc_run_tests("unit.multi", tests, nt);
    return tc_finish(g_ctx, failed, g_queue, g_read_queue, NULL);
}
