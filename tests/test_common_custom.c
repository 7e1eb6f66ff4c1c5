/* Helpers shared by the tests of user-defined operators on rows and
 * segments (see test_common_custom.h). */
#include "test_common_custom.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the operators and their CPU references ----------------------------------------- */

typedef struct stats {
    float lo, hi;
    uint32_t count;
} stats;

static void stats_fill(void *data, size_t n)
{
    float *x = data;
    for (size_t i = 0; i < n; i++)
        x[i] = (float)tc_rand_below(4000) * 0.25f - 499.875f; /* never zero */
}
static void stats_identity(void *acc) { *(stats *)acc = (stats){INFINITY, -INFINITY, 0}; }
static void stats_map(const void *x, const void *y, uint64_t i, void *acc)
{
    (void)y;
    (void)i;
    float v = *(const float *)x;
    *(stats *)acc = (stats){v, v, 1};
}
static void stats_combine(void *a, const void *b)
{
    stats *p = a;
    const stats *q = b;
    *p = (stats){fminf(p->lo, q->lo), fmaxf(p->hi, q->hi), p->count + q->count};
}

static void ints_fill(void *data, size_t n)
{
    uint32_t *x = data;
    for (size_t i = 0; i < n; i++)
        x[i] = (uint32_t)tc_rand64();
}
static void longs_fill(void *data, size_t n)
{
    uint64_t *x = data;
    for (size_t i = 0; i < n; i++)
        x[i] = tc_rand64();
}

static void isum_identity(void *acc) { *(uint64_t *)acc = 0; }
static void isum_map(const void *x, const void *y, uint64_t i, void *acc)
{
    (void)y;
    *(uint64_t *)acc = (uint64_t)*(const uint32_t *)x * (i + 1);
}
static void sum_combine(void *a, const void *b) { *(uint64_t *)a += *(const uint64_t *)b; }

typedef struct mat {
    uint32_t a, b, c, d;
} mat;

static void mat_identity(void *acc) { *(mat *)acc = (mat){1, 0, 0, 1}; }
/* [[1 + p q, p], [q, 1]]: determinant 1, so that products never collapse. */
static void mat_map(const void *x, const void *y, uint64_t i, void *acc)
{
    (void)y;
    uint32_t v = *(const uint32_t *)x, p = v & 255, q = (v >> 8 & 255) + (uint32_t)i;
    *(mat *)acc = (mat){1 + p * q, p, q, 1};
}
static void mat_combine(void *a, const void *b)
{
    mat p = *(mat *)a, q = *(const mat *)b;
    *(mat *)a = (mat){p.a * q.a + p.b * q.c, p.a * q.b + p.b * q.d, p.c * q.a + p.d * q.c,
                      p.c * q.b + p.d * q.d};
}

typedef struct affine {
    uint64_t a, c;
} affine;

static void affine_identity(void *acc) { *(affine *)acc = (affine){1, 0}; }
static void affine_map(const void *x, const void *y, uint64_t i, void *acc)
{
    (void)i;
    *(affine *)acc = (affine){*(const uint64_t *)x | 1, *(const uint64_t *)y};
}
/* v -> a v + c, then b's map. */
static void affine_combine(void *a, const void *b)
{
    affine p = *(affine *)a, q = *(const affine *)b;
    *(affine *)a = (affine){q.a * p.a, q.a * p.c + q.c};
}

static void wdot_map(const void *x, const void *y, uint64_t i, void *acc)
{
    *(uint64_t *)acc = *(const uint64_t *)x * *(const uint64_t *)y + i;
}

static void first_map(const void *x, const void *y, uint64_t i, void *acc)
{
    (void)y;
    (void)i;
    *(int32_t *)acc = *(const int32_t *)x;
}
static void first_combine(void *a, const void *b)
{
    (void)a;
    (void)b;
}

const tcc_op tcc_op_stats = {
    {.name = "stats", .input_type = CLREDUCE_FLOAT, .inputs = 1, .acc_type = "stats",
     .acc_source = "typedef struct { float lo, hi; uint count; } stats;",
     .acc_size = sizeof(stats), .acc_align = _Alignof(stats),
     .identity = "(stats){INFINITY, -INFINITY, 0}", .map = "(stats){x, x, 1}",
     .combine = "(stats){fmin(a.lo, b.lo), fmax(a.hi, b.hi), a.count + b.count}",
     .commutative = 1},
    4, stats_fill, stats_identity, stats_map, stats_combine, 0x7149f2cau /* 1e30f */};

const tcc_op tcc_op_isum = {
    {.name = "isum", .input_type = CLREDUCE_UINT32, .inputs = 1, .acc_type = "ulong",
     .acc_size = 8, .acc_align = 8, .identity = "0", .map = "(ulong)x * (i + 1)",
     .combine = "a + b", .commutative = 1},
    4, ints_fill, isum_identity, isum_map, sum_combine, 0x7f7f7f7fu};

const tcc_op tcc_op_mat = {
    {.name = "matprod", .input_type = CLREDUCE_UINT32, .inputs = 1, .acc_type = "mat",
     .acc_source = TCC_MAT_SOURCE,
     .acc_size = sizeof(mat), .acc_align = _Alignof(mat), .identity = "(mat){1, 0, 0, 1}",
     .map = "(mat){1 + (x & 255) * ((x >> 8 & 255) + (uint)i), x & 255,\n"
            "      (x >> 8 & 255) + (uint)i, 1}",
     .combine = "mat_mul(a, b)"},
    4, ints_fill, mat_identity, mat_map, mat_combine, 0x7f7f7f7fu};

const tcc_op tcc_op_affine = {
    {.name = "affine", .input_type = CLREDUCE_UINT64, .inputs = 2, .acc_type = "affine",
     .acc_source = "typedef struct { ulong a, c; } affine;", .acc_size = sizeof(affine),
     .acc_align = _Alignof(affine), .identity = "(affine){1, 0}", .map = "(affine){x | 1, y}",
     .combine = "(affine){b.a * a.a, b.a * a.c + b.c}"},
    8, longs_fill, affine_identity, affine_map, affine_combine, UINT64_C(0x7f7f7f7f7f7f7f7f)};

const tcc_op tcc_op_wdot = {
    {.name = "wdot", .input_type = CLREDUCE_UINT64, .inputs = 2, .acc_type = "ulong",
     .acc_size = 8, .acc_align = 8, .identity = "0", .map = "x * y + i", .combine = "a + b",
     .commutative = 1},
    8, longs_fill, isum_identity, wdot_map, sum_combine, UINT64_C(0x7f7f7f7f7f7f7f7f)};

const tcc_op tcc_op_first = {
    {.name = "first", .input_type = CLREDUCE_INT32, .inputs = 1, .acc_type = "int",
     .acc_size = 4, .acc_align = 4, .map = "x", .combine = "a"},
    4, ints_fill, NULL, first_map, first_combine, 0x7f7f7f7fu};

void tcc_reference(const tcc_op *h, const unsigned char *x, const unsigned char *y, size_t n,
                   void *acc)
{
    memset(acc, 0, h->desc.acc_size);
    if (n == 0) {
        if (h->identity)
            h->identity(acc);
        return;
    }
    h->map(x, y, 0, acc);
    unsigned char next[TCC_MAX_ACC];
    for (size_t i = 1; i < n; i++) {
        h->map(x + i * h->es, y ? y + i * h->es : NULL, i, next);
        h->combine(acc, next);
    }
}

clreduce_operator *tcc_create_or_fail(clreduce_ctx *ctx, const tcc_op *h)
{
    clreduce_operator *op = NULL;
    clreduce_status st = clreduce_operator_create(ctx, &h->desc, &op);
    if (st != CLREDUCE_SUCCESS)
        print_error("creating operator %s: %s: %s\n", h->desc.name, clreduce_status_string(st),
                    clreduce_last_error(ctx));
    assert_int_equal(st, CLREDUCE_SUCCESS);
    return op;
}

/* ---- one call --------------------------------------------------------------------------- */

size_t tcc_results_of(const tcc_batch *b) { return b->offsets ? b->segments : b->rows; }

void tcc_range_of(const tcc_batch *b, size_t r, size_t *start, size_t *n)
{
    if (b->offsets) {
        *start = (size_t)b->offsets[r];
        *n = (size_t)(b->offsets[r + 1] - b->offsets[r]);
    } else {
        *start = r * (b->pitch ? b->pitch : b->length);
        *n = b->length;
    }
}

cl_mem tcc_input_buffer(const clreduce_ctx *ctx, const tcc_op *h, const tcc_batch *b,
                        const unsigned char *data, size_t lead)
{
    size_t total = lead + b->span + 3, es = h->es;
    unsigned char *host = malloc(total * es);
    assert_non_null(host);
    for (size_t i = 0; i < total; i++)
        memcpy(host + i * es, &h->poison, es);
    for (size_t r = 0; r < tcc_results_of(b); r++) {
        size_t start, n;
        tcc_range_of(b, r, &start, &n);
        memcpy(host + (lead + start) * es, data + start * es, n * es);
    }
    cl_mem m = tc_make_buffer(ctx, total * es, host);
    free(host);
    return m;
}

void tcc_make_inputs(const tcc_op *h, size_t n, unsigned char **x, unsigned char **y)
{
    *x = malloc((n ? n : 1) * h->es);
    assert_non_null(*x);
    h->fill(*x, n);
    *y = NULL;
    if (h->desc.inputs == 2) {
        *y = malloc((n ? n : 1) * h->es);
        assert_non_null(*y);
        h->fill(*y, n);
    }
}
