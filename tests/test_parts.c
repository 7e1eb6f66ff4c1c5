/* unit.parts: clreduce_reduce_parts() over an array cut into parts, each in
 * a context of its own: the device under test twice (two OpenCL contexts)
 * and, where another platform has a device, that one too. Random cuts into
 * 1 to 5 parts, empty ones among them, at offsets into buffers whose other
 * elements would change the result if read:
 *  - every operator on every type against a CPU reference, argmin
 *    and argmax with ties and NaNs across parts (the first part's index);
 *  - floating-point sums bit for bit the parts' own results added in part
 *    order, as clreduce/parts.h says;
 *  - in reproducible contexts, parts of whole tiles: the sums' bits those
 *    of the order written in C over the whole array;
 *  - the two steps (each part's partial results, then their combination
 *    on another context) give the same bits;
 *  - of no element, what one call gives; refusals with a message and the
 *    result untouched; a part whose range is past its buffer.
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

#include "clreduce/clreduce.h"
#include "test_common.h"
#include "test_fixed_order.h"

#define CONTEXTS 3
#define MAX_PARTS 5

static clreduce_ctx *g_ctx[CONTEXTS];  /* the default context, then two more */
static clreduce_ctx *g_repro[CONTEXTS]; /* reproducible ones on the same OpenCL contexts */
static cl_command_queue g_queue[CONTEXTS];
static cl_context g_own[CONTEXTS]; /* OpenCL contexts made here (1 and 2) */

/* A device of another platform than ctx's, or ctx's own. */
static cl_device_id other_device(const clreduce_ctx *ctx)
{
    cl_device_id mine = clreduce_get_cl_device(ctx), found = mine;
    cl_platform_id my_platform, platforms[8];
    cl_uint n = 0;
    clGetDeviceInfo(mine, CL_DEVICE_PLATFORM, sizeof my_platform, &my_platform, NULL);
    if (clGetPlatformIDs(8, platforms, &n) != CL_SUCCESS)
        return mine;
    for (cl_uint i = 0; i < n && i < 8 && found == mine; i++) {
        cl_device_id d;
        cl_uint nd = 0;
        if (platforms[i] != my_platform &&
            clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, &d, &nd) == CL_SUCCESS && nd)
            found = d;
    }
    return found;
}

static int set_up_contexts(void)
{
    g_ctx[0] = tc_start("unit.parts", &g_queue[0], NULL);
    cl_device_id devices[CONTEXTS] = {clreduce_get_cl_device(g_ctx[0]),
                                      clreduce_get_cl_device(g_ctx[0]), other_device(g_ctx[0])};
    for (int i = 1; i < CONTEXTS; i++) {
        cl_int err;
        g_own[i] = clCreateContext(NULL, 1, &devices[i], NULL, NULL, &err);
        if (err != CL_SUCCESS ||
            clreduce_create(g_own[i], devices[i], &g_ctx[i]) != CLREDUCE_SUCCESS)
            return 0;
        g_queue[i] = clCreateCommandQueue(g_own[i], devices[i], 0, &err);
        if (err != CL_SUCCESS)
            return 0;
    }
    for (int i = 0; i < CONTEXTS; i++)
        if (!(g_repro[i] = reproducible_context(g_ctx[i])))
            return 0;
    char name[256] = "";
    clGetDeviceInfo(devices[2], CL_DEVICE_NAME, sizeof name, name, NULL);
    printf("# third part's device: %s%s\n", name, devices[2] == devices[0] ? " (the same)" : "");
    return 1;
}

/* Parts of data[0 .. n) cut at cuts[0 .. k - 1] (k parts), part i in
 * context (i % CONTEXTS) of ctxs, at a random offset in a buffer of its
 * elements between poison. */
typedef struct cut {
    size_t k;
    clreduce_part parts[MAX_PARTS];
} cut;

static void make_parts2(cut *c, clreduce_ctx **ctxs, clreduce_type type, const tc_value *poison,
                        const void *data, const void *data2, const size_t *ends, size_t k)
{
    const size_t es = tc_elem_size(type);
    c->k = k;
    for (size_t i = 0, start = 0; i < k; i++) {
        size_t count = ends[i] - start, offset = tc_rand_below(5), total = offset + count + 3;
        unsigned char *buf = malloc(total * es);
        assert_non_null(buf);
        int at = (int)(i % CONTEXTS);
        cl_mem mem[2] = {NULL, NULL};
        for (int input = 0; input < 1 + (data2 != NULL); input++) {
            const void *from = input ? data2 : data;
            for (size_t j = 0; j < total; j++)
                memcpy(buf + j * es, poison->bytes, es);
            if (count)
                memcpy(buf + offset * es, (const unsigned char *)from + start * es, count * es);
            mem[input] = tc_make_buffer(ctxs[at], total * es, buf);
        }
        c->parts[i] = (clreduce_part){ctxs[at], g_queue[at], mem[0], offset, count, mem[1], offset};
        free(buf);
        start = ends[i];
    }
}

static void make_parts(cut *c, clreduce_ctx **ctxs, clreduce_type type, const tc_value *poison,
                       const void *data, const size_t *ends, size_t k)
{
    make_parts2(c, ctxs, type, poison, data, NULL, ends, k);
}

static void free_parts(cut *c)
{
    for (size_t i = 0; i < c->k; i++) {
        clReleaseMemObject(c->parts[i].input);
        if (c->parts[i].input2)
            clReleaseMemObject(c->parts[i].input2);
    }
}

/* k random cuts of n (some parts empty), ends[k - 1] == n. */
static size_t random_ends(size_t n, size_t *ends)
{
    size_t k = 1 + tc_rand_below(MAX_PARTS);
    for (size_t i = 0; i + 1 < k; i++)
        ends[i] = tc_rand_below(4) == 0 ? 0 : tc_rand_below(n + 1);
    ends[k - 1] = n;
    for (size_t i = 1; i < k; i++) /* sorted: insertion */
        for (size_t j = i; j > 0 && ends[j - 1] > ends[j]; j--) {
            size_t t = ends[j];
            ends[j] = ends[j - 1], ends[j - 1] = t;
        }
    return k;
}

static const clreduce_type k_types[] = {CLREDUCE_FLOAT, CLREDUCE_DOUBLE, CLREDUCE_INT32,
                                        CLREDUCE_UINT32, CLREDUCE_INT64, CLREDUCE_UINT64};
static const size_t k_sizes[] = {1, 31, 33, 257, 4097, (1u << 20) + 7};

static int op_takes(clreduce_op op, clreduce_type type)
{
    return tc_is_float_type(type) || (op != CLREDUCE_OP_NORM2 && op != CLREDUCE_OP_MEAN_VAR);
}

/* Every operator and type against the CPU reference. */
static void test_operators(void **state)
{
    (void)state;
    size_t failures = 0, cases = 0;
    for (size_t t = 0; t < sizeof k_types / sizeof *k_types; t++) {
        clreduce_type type = k_types[t];
        if (!tc_type_supported(g_ctx[0], type) || !tc_type_supported(g_ctx[2], type))
            continue;
        for (int op = 0; op < CLREDUCE_OP_COUNT; op++) {
            if (!op_takes((clreduce_op)op, type))
                continue;
            for (size_t s = 0; s < sizeof k_sizes / sizeof *k_sizes; s++) {
                size_t n = k_sizes[s], ends[MAX_PARTS], k = random_ends(n, ends);
                void *data = malloc(n * tc_elem_size(type)), *y = NULL;
                assert_non_null(data);
                tc_op_fill((clreduce_op)op, type, data, n);
                if (op == CLREDUCE_OP_DOT) {
                    assert_non_null(y = malloc(n * tc_elem_size(type)));
                    tc_op_fill((clreduce_op)op, type, y, n);
                }
                /* Ties across parts: a copy of the first elements at the end. */
                if ((op == CLREDUCE_OP_ARGMIN || op == CLREDUCE_OP_ARGMAX) && s % 2)
                    memmove((unsigned char *)data + (n / 2) * tc_elem_size(type), data,
                           (n - n / 2) * tc_elem_size(type));
                tc_value poison;
                tc_op_poison((clreduce_op)op, type, &poison);
                cut c;
                make_parts2(&c, g_ctx, type, &poison, data, y, ends, k);
                unsigned char got[32] = {0}, why[256];
                clreduce_status st = clreduce_reduce_parts(c.parts, k, (clreduce_op)op, type,
                                                           CLREDUCE_AUTO, got);
                cases++;
                if (st != CLREDUCE_SUCCESS ||
                    !tc_check_any_result((clreduce_op)op, type, data, y, n, got, (char *)why,
                                  sizeof why)) {
                    if (failures++ < 8)
                        print_error("%s %s n=%zu parts=%zu: %s %s\n",
                                    clreduce_op_name((clreduce_op)op), clreduce_type_name(type),
                                    n, k, clreduce_status_string(st),
                                    st ? clreduce_last_error(g_ctx[0]) : (char *)why);
                }
                free_parts(&c);
                free(data), free(y);
            }
        }
    }
    printf("# %zu cases\n", cases);
    assert_int_equal(failures, 0);
}

/* ARGMIN/ARGMAX with a NaN in a later part and equal values in several:
 * the first NaN's index, else the first part's. */
static void test_ties_and_nans(void **state)
{
    (void)state;
    const size_t n = 3000;
    float *data = malloc(n * sizeof *data);
    assert_non_null(data);
    size_t failures = 0;
    for (int round = 0; round < 40; round++) {
        for (size_t i = 0; i < n; i++)
            data[i] = (float)(tc_rand_below(5)) - 2.0f; /* ties everywhere */
        if (round % 4 == 3)
            data[tc_rand_below(n)] = -0.0f;
        size_t ends[MAX_PARTS], k = random_ends(n, ends);
        /* NaNs in several parts: the first part's comes first. */
        for (size_t i = 0, start = 0; i < k && round % 2; start = ends[i++])
            if (ends[i] > start && tc_rand_below(3))
                data[start + tc_rand_below(ends[i] - start)] = NAN;
        for (int op = CLREDUCE_OP_MIN; op <= CLREDUCE_OP_MINMAX; op++) {
            tc_value poison;
            tc_op_poison((clreduce_op)op, CLREDUCE_FLOAT, &poison);
            cut c;
            make_parts(&c, g_ctx, CLREDUCE_FLOAT, &poison, data, ends, k);
            unsigned char got[32], why[256];
            clreduce_status st =
                clreduce_reduce_parts(c.parts, k, (clreduce_op)op, CLREDUCE_FLOAT, CLREDUCE_AUTO,
                                      got);
            if ((st != CLREDUCE_SUCCESS ||
                 !tc_check_any_result((clreduce_op)op, CLREDUCE_FLOAT, data, NULL, n, got,
                               (char *)why, sizeof why)) &&
                failures++ < 8)
                print_error("round %d %s parts=%zu: %s %s\n", round,
                            clreduce_op_name((clreduce_op)op), k, clreduce_status_string(st),
                            (char *)why);
            free_parts(&c);
        }
    }
    free(data);
    assert_int_equal(failures, 0);
}

/* Floating-point sums: the parts' own results added in part order. */
static void test_sum_order(void **state)
{
    (void)state;
    size_t failures = 0;
    for (int round = 0; round < 24; round++) {
        clreduce_type type = round % 2 ? CLREDUCE_DOUBLE : CLREDUCE_FLOAT;
        clreduce_op op = (clreduce_op)(round % 3 == 0   ? CLREDUCE_OP_SUM
                                       : round % 3 == 1 ? CLREDUCE_OP_SUM_SQUARES
                                                        : CLREDUCE_OP_SUM_ABS);
        if (!tc_type_supported(g_ctx[0], type) || !tc_type_supported(g_ctx[2], type))
            continue;
        const size_t n = 100000 + tc_rand_below(100000), es = tc_elem_size(type);
        void *data = malloc(n * es);
        assert_non_null(data);
        fill_wide(type, data, n);
        size_t ends[MAX_PARTS], k = random_ends(n, ends);
        tc_value poison;
        tc_op_poison(op, type, &poison);
        cut c;
        make_parts(&c, g_ctx, type, &poison, data, ends, k);
        double want = 0;
        float want_f = 0;
        int first = 1;
        for (size_t i = 0, start = 0; i < k; start = ends[i++]) {
            if (ends[i] == start)
                continue;
            unsigned char r[8];
            assert_int_equal(clreduce_reduce_host(c.parts[i].ctx, op, type, CLREDUCE_AUTO,
                                                  (unsigned char *)data + start * es,
                                                  ends[i] - start, r),
                             CLREDUCE_SUCCESS);
            double d;
            float f;
            memcpy(&d, r, 8), memcpy(&f, r, 4);
            want = first ? d : want + d;
            want_f = first ? f : want_f + f;
            first = 0;
        }
        unsigned char got[8];
        assert_int_equal(clreduce_reduce_parts(c.parts, k, op, type, CLREDUCE_AUTO, got),
                         CLREDUCE_SUCCESS);
        if (memcmp(got, type == CLREDUCE_FLOAT ? (void *)&want_f : (void *)&want, es) &&
            failures++ < 8)
            print_error("%s %s n=%zu parts=%zu: not the parts' results in order\n",
                        clreduce_op_name(op), clreduce_type_name(type), n, k);
        free_parts(&c);
        free(data);
    }
    assert_int_equal(failures, 0);
}

/* Reproducible contexts: parts of whole tiles give the order's bits over
 * the whole array, whatever the cut and the devices. */
static void test_reproducible(void **state)
{
    (void)state;
    size_t failures = 0, checked = 0;
    for (int round = 0; round < 40; round++) {
        clreduce_type type = round % 2 ? CLREDUCE_DOUBLE : CLREDUCE_FLOAT;
        int map = round / 2 % 4; /* sum, squares, absolute values, products */
        clreduce_op op = map_op(map);
        if (!tc_type_supported(g_ctx[0], type) || !tc_type_supported(g_ctx[2], type))
            continue;
        const size_t es = tc_elem_size(type), tile = CLREDUCE_REPRODUCIBLE_TILE_BYTES / es;
        size_t ends[MAX_PARTS], k = 1 + tc_rand_below(MAX_PARTS), n = 0;
        for (size_t i = 0; i < k; i++)
            ends[i] = n += (i + 1 < k ? tc_rand_below(4) * tile : tc_rand_below(2 * tile + 2));
        void *data = malloc((n ? n : 1) * es), *mapped = malloc((n ? n : 1) * es);
        void *y = malloc((n ? n : 1) * es);
        assert_true(data && mapped && y);
        fill_wide(type, data, n);
        fill_wide(type, y, n);
        if (map)
            map_values(type, map, data, y, n, mapped);
        else
            memcpy(mapped, data, n * es);
        tc_value poison;
        tc_op_poison(op, type, &poison);
        cut c;
        make_parts2(&c, g_repro, type, &poison, data, op == CLREDUCE_OP_DOT ? y : NULL, ends, k);
        unsigned char got[8] = {0}, want[8] = {0}, one[8] = {0};
        host_sum(type, mapped, n, want);
        clreduce_status st = clreduce_reduce_parts(c.parts, k, op, type, CLREDUCE_AUTO, got);
        assert_int_equal(op == CLREDUCE_OP_DOT
                             ? clreduce_dot_host(g_repro[0], type, CLREDUCE_AUTO, data, y, n, one)
                             : clreduce_reduce_host(g_repro[0], op, type, CLREDUCE_AUTO, data, n,
                                                    one),
                         CLREDUCE_SUCCESS);
        checked++;
        if ((st != CLREDUCE_SUCCESS || memcmp(got, want, es) || memcmp(one, want, es)) &&
            failures++ < 8)
            print_error("%s %s n=%zu (%zu tiles) parts=%zu: %s %s\n", clreduce_op_name(op),
                        clreduce_type_name(type), n, (n + tile - 1) / tile, k,
                        clreduce_status_string(st),
                        st ? clreduce_last_error(g_repro[0]) : "bits differ");
        free_parts(&c);
        free(data), free(mapped), free(y);
    }
    printf("# %zu reproducible cases\n", checked);
    assert_int_equal(failures, 0);
}

/* The two steps (clreduce_partials, then clreduce_combine_partials on
 * another context) give clreduce_reduce_parts()'s bits. */
static void test_two_steps(void **state)
{
    (void)state;
    size_t failures = 0;
    for (int round = 0; round < 40; round++) {
        int repro = round % 2;
        clreduce_ctx **ctxs = repro ? g_repro : g_ctx;
        clreduce_type type = k_types[tc_rand_below(6)];
        clreduce_op op = (clreduce_op)tc_rand_below(CLREDUCE_OP_COUNT);
        if (!op_takes(op, type) || !tc_type_supported(g_ctx[0], type) ||
            !tc_type_supported(g_ctx[2], type) ||
            (repro && (op == CLREDUCE_OP_NORM2 || op == CLREDUCE_OP_MEAN_VAR)))
            continue;
        const size_t es = tc_elem_size(type), tile = CLREDUCE_REPRODUCIBLE_TILE_BYTES / es;
        size_t ends[MAX_PARTS], k = 1 + tc_rand_below(MAX_PARTS), n = 0, counts[MAX_PARTS];
        for (size_t i = 0; i < k; i++)
            ends[i] = n += counts[i] =
                tc_rand_below(3) * tile + (i + 1 < k ? 0 : tc_rand_below(999));
        void *data = malloc((n ? n : 1) * es);
        assert_non_null(data);
        tc_op_fill(op, type, data, n);
        tc_value poison;
        tc_op_poison(op, type, &poison);
        cut c;
        make_parts2(&c, ctxs, type, &poison, data, op == CLREDUCE_OP_DOT ? data : NULL, ends, k);
        size_t total = 0, size = clreduce_result_size(op, type);
        for (size_t i = 0; i < k; i++)
            total += clreduce_partials_count(ctxs[0], op, type, counts[i]);
        unsigned char *partials = malloc((total + 1) * size), got[32], want[32];
        assert_non_null(partials);
        memset(got, 0, sizeof got), memset(want, 0, sizeof want);
        for (size_t i = 0, at = 0; i < k; i++) {
            assert_int_equal(clreduce_partials(&c.parts[i], op, type, CLREDUCE_AUTO,
                                               partials + at * size),
                             CLREDUCE_SUCCESS);
            at += clreduce_partials_count(ctxs[i % CONTEXTS], op, type, counts[i]);
        }
        assert_int_equal(clreduce_combine_partials(ctxs[2], op, type, CLREDUCE_AUTO, partials,
                                                   counts, k, got),
                         CLREDUCE_SUCCESS);
        assert_int_equal(clreduce_reduce_parts(c.parts, k, op, type, CLREDUCE_AUTO, want),
                         CLREDUCE_SUCCESS);
        if (memcmp(got, want, size) && failures++ < 8)
            print_error("%s %s n=%zu parts=%zu%s: the two steps differ\n", clreduce_op_name(op),
                        clreduce_type_name(type), n, k, repro ? " reproducible" : "");
        free_parts(&c);
        free(partials), free(data);
    }
    /* Refused: counts that leave a tile open before the last part, no
     * counts, no partials. */
    size_t counts[2] = {5, 5};
    float partials[2] = {1, 2}, r = 7;
    const char *words[] = {"tiles", NULL}, *null_words[] = {"NULL", NULL};
    tc_check_status_and_message("open tile",
                                clreduce_combine_partials(g_repro[0], CLREDUCE_OP_SUM,
                                                          CLREDUCE_FLOAT, CLREDUCE_AUTO, partials,
                                                          counts, 2, &r),
                                CLREDUCE_ERROR_UNSUPPORTED, g_repro[0], words);
    tc_check_status_and_message("no counts",
                                clreduce_combine_partials(g_ctx[0], CLREDUCE_OP_SUM,
                                                          CLREDUCE_FLOAT, CLREDUCE_AUTO, partials,
                                                          NULL, 2, &r),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx[0], null_words);
    tc_check_status_and_message("no partials",
                                clreduce_combine_partials(g_ctx[0], CLREDUCE_OP_SUM,
                                                          CLREDUCE_FLOAT, CLREDUCE_AUTO, NULL,
                                                          counts, 2, &r),
                                CLREDUCE_ERROR_INVALID_ARGUMENT, g_ctx[0], null_words);
    assert_true(r == 7);
    assert_int_equal(failures, 0);
}

/* Of no element in any part: what one call of no element gives (or its
 * refusal: a reproducible context refuses norm2 and mean_var). */
static void test_empty(void **state)
{
    (void)state;
    for (int op = 0; op < CLREDUCE_OP_COUNT; op++) {
        if (!op_takes((clreduce_op)op, CLREDUCE_FLOAT))
            continue;
        size_t ends[3] = {0, 0, 0};
        tc_value poison;
        tc_op_poison((clreduce_op)op, CLREDUCE_FLOAT, &poison);
        for (int repro = 0; repro < 2; repro++) {
            clreduce_ctx **ctxs = repro ? g_repro : g_ctx;
            cut c;
            make_parts(&c, ctxs, CLREDUCE_FLOAT, &poison, NULL, ends, 3);
            unsigned char got[32], want[32];
            memset(got, 0x5a, sizeof got);
            memset(want, 0x5a, sizeof want);
            clreduce_status st = clreduce_reduce_parts(c.parts, 3, (clreduce_op)op,
                                                       CLREDUCE_FLOAT, CLREDUCE_AUTO, got);
            clreduce_status one =
                op == CLREDUCE_OP_DOT
                    ? clreduce_dot_host(ctxs[0], CLREDUCE_FLOAT, CLREDUCE_AUTO, NULL, NULL, 0, want)
                    : clreduce_reduce_host(ctxs[0], (clreduce_op)op, CLREDUCE_FLOAT,
                                           CLREDUCE_AUTO, NULL, 0, want);
            if (st != one)
                print_error("%s: %s\n", clreduce_op_name((clreduce_op)op),
                            clreduce_last_error(c.parts[0].ctx));
            assert_int_equal(st, one);
            assert_int_equal(st == CLREDUCE_SUCCESS,
                             !repro || (op != CLREDUCE_OP_NORM2 && op != CLREDUCE_OP_MEAN_VAR));
            assert_memory_equal(got, want, sizeof got);
            free_parts(&c);
        }
    }
}

/* A refused call: the status, a message naming the reason, result
 * untouched. */
static void refused(const clreduce_part *parts, size_t k, clreduce_op op, clreduce_type type,
                    clreduce_variant variant, clreduce_status want, const char *word)
{
    unsigned char got[32];
    memset(got, 0xa5, sizeof got);
    clreduce_status st = clreduce_reduce_parts(parts, k, op, type, variant, got);
    const char *words[] = {word, NULL};
    if (parts && k) /* else no context to leave a message in */
        tc_check_status_and_message(word, st, want, parts[0].ctx, words);
    else
        assert_int_equal(st, want);
    for (size_t i = 0; i < sizeof got; i++)
        assert_int_equal(got[i], 0xa5);
}

static void test_refusals(void **state)
{
    (void)state;
    const size_t tile = CLREDUCE_REPRODUCIBLE_TILE_BYTES / sizeof(float), n = 2 * tile + 5;
    float *data = malloc(n * sizeof *data);
    assert_non_null(data);
    fill_wide(CLREDUCE_FLOAT, data, n);
    tc_value poison;
    tc_op_poison(CLREDUCE_OP_SUM, CLREDUCE_FLOAT, &poison);
    size_t aligned[2] = {tile, n}, unaligned[3] = {tile + 1, tile + 1, n};
    cut a, u, p;
    make_parts(&a, g_repro, CLREDUCE_FLOAT, &poison, data, aligned, 2);
    make_parts(&u, g_repro, CLREDUCE_FLOAT, &poison, data, unaligned, 3);
    make_parts(&p, g_ctx, CLREDUCE_FLOAT, &poison, data, aligned, 2);
    refused(NULL, 2, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_AUTO,
            CLREDUCE_ERROR_INVALID_ARGUMENT, "");
    refused(p.parts, 0, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_AUTO,
            CLREDUCE_ERROR_INVALID_ARGUMENT, "");
    /* A part whose elements end inside a tile before the last part's. */
    refused(u.parts, 3, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_AUTO,
            CLREDUCE_ERROR_UNSUPPORTED, "tiles");
    /* ... which min takes: its result does not depend on the order. */
    float m, want = data[0];
    for (size_t i = 1; i < n; i++)
        want = data[i] < want ? data[i] : want;
    assert_int_equal(clreduce_reduce_parts(u.parts, 3, CLREDUCE_OP_MIN, CLREDUCE_FLOAT,
                                           CLREDUCE_AUTO, &m),
                     CLREDUCE_SUCCESS);
    assert_true(m == want);
    refused(a.parts, 2, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_GRID_STRIDE,
            CLREDUCE_ERROR_UNSUPPORTED, "reproducible");
    refused(p.parts, 2, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_REPRODUCIBLE,
            CLREDUCE_ERROR_UNSUPPORTED, "split");
    refused(p.parts, 2, CLREDUCE_OP_DOT, CLREDUCE_FLOAT, CLREDUCE_AUTO,
            CLREDUCE_ERROR_INVALID_ARGUMENT, "input2");
    /* Contexts that disagree. */
    clreduce_part mixed[2] = {p.parts[0], a.parts[1]};
    refused(mixed, 2, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_AUTO,
            CLREDUCE_ERROR_INVALID_ARGUMENT, "reproducible");
    clreduce_part none[2] = {p.parts[0], p.parts[1]};
    none[1].ctx = NULL;
    refused(none, 2, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_AUTO,
            CLREDUCE_ERROR_INVALID_ARGUMENT, "context");
    /* A range past the second part's buffer: its call's error, named. */
    clreduce_part past[2] = {p.parts[0], p.parts[1]};
    past[1].count += 1000;
    refused(past, 2, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_AUTO,
            CLREDUCE_ERROR_INVALID_ARGUMENT, "part 1");
    /* A part that fails once the one before it is enqueued: that one is
     * waited for, and its buffers released (Valgrind and ASan runs). */
    clreduce_part no_queue[2] = {p.parts[0], p.parts[1]};
    no_queue[1].queue = NULL;
    refused(no_queue, 2, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_AUTO,
            CLREDUCE_ERROR_INVALID_ARGUMENT, "part 1");
    /* ... and in a reproducible context, where the tiles' values would
     * take a buffer of that count's size; and no buffer at all. */
    clreduce_part huge[2] = {a.parts[0], a.parts[1]};
    huge[1].count = SIZE_MAX / 8;
    refused(huge, 2, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_AUTO,
            CLREDUCE_ERROR_INVALID_ARGUMENT, "past the end");
    huge[1].input = NULL;
    refused(huge, 2, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_AUTO,
            CLREDUCE_ERROR_INVALID_ARGUMENT, "buffer");
    refused(p.parts, 2, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, (clreduce_variant)(CLREDUCE_AUTO + 99),
            CLREDUCE_ERROR_INVALID_ARGUMENT, "part 0");
    /* The parts' queues are empty and the calls still work. */
    float s;
    assert_int_equal(clreduce_reduce_parts(a.parts, 2, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                           CLREDUCE_AUTO, &s),
                     CLREDUCE_SUCCESS);
    free_parts(&a), free_parts(&u), free_parts(&p);
    free(data);
}

int main(void)
{
    if (!set_up_contexts())
        return 1;
    struct CMUnitTest tests[7];
    size_t nt = 0;
    tc_add_test(tests, &nt, "operators", test_operators, NULL);
    tc_add_test(tests, &nt, "ties_and_nans", test_ties_and_nans, NULL);
    tc_add_test(tests, &nt, "sum_order", test_sum_order, NULL);
    tc_add_test(tests, &nt, "reproducible", test_reproducible, NULL);
    tc_add_test(tests, &nt, "two_steps", test_two_steps, NULL);
    tc_add_test(tests, &nt, "empty", test_empty, NULL);
    tc_add_test(tests, &nt, "refusals", test_refusals, NULL);
    int failed = tc_run_tests("unit.parts", tests, nt);
    for (int i = 0; i < CONTEXTS; i++)
        clreduce_destroy(g_repro[i]);
    for (int i = 1; i < CONTEXTS; i++) {
        clReleaseCommandQueue(g_queue[i]);
        clreduce_destroy(g_ctx[i]);
        clReleaseContext(g_own[i]);
    }
    return tc_finish(g_ctx[0], failed, g_queue[0], NULL);
}
