/* User-defined operators on the default OpenCL device (CLREDUCE_DEVICE
 * selects another), each written as a few OpenCL C expressions:
 *
 *   - a weighted mean with the range of the values: two inputs (values and
 *     weights), a struct accumulator, commutative;
 *   - the linear recurrence v[i+1] = a[i] * v[i] + c[i] (mod 2^64) run over
 *     the whole array at once: each element is the affine map v -> a v + c,
 *     and maps compose associatively but not commutatively, so the library
 *     keeps their order.
 *
 * Both are checked against a CPU loop.
 *
 *   cc custom_operator.c $(pkg-config --cflags --libs clreduce) -lm -o custom_operator
 *   ./custom_operator [count]
 *
 * Exits with 0 when both agree with the reference, 1 when not (or on an
 * error), 77 when there is no OpenCL device. */
#include <clreduce/clreduce.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The host's mirrors of the accumulators: the library checks that sizeof
 * and alignment agree with the device's. */
typedef struct weighted {
    float sum, weight, lo, hi;
} weighted;

typedef struct affine {
    uint64_t a, c; /* v -> a v + c */
} affine;

static const clreduce_operator_desc weighted_desc = {
    .name = "weighted_mean",
    .input_type = CLREDUCE_FLOAT,
    .inputs = 2, /* x: a value, y: its weight */
    .acc_type = "weighted",
    .acc_source = "typedef struct { float sum, weight, lo, hi; } weighted;",
    .acc_size = sizeof(weighted),
    .acc_align = _Alignof(weighted),
    .identity = "(weighted){0.0f, 0.0f, INFINITY, -INFINITY}",
    .map = "(weighted){x * y, y, x, x}",
    .combine = "(weighted){a.sum + b.sum, a.weight + b.weight, fmin(a.lo, b.lo), "
               "fmax(a.hi, b.hi)}",
    .commutative = 1,
};

static const clreduce_operator_desc recurrence_desc = {
    .name = "recurrence",
    .input_type = CLREDUCE_UINT64,
    .inputs = 2, /* x: the factor a[i], y: the term c[i] */
    .acc_type = "affine",
    .acc_source = "typedef struct { ulong a, c; } affine;",
    .acc_size = sizeof(affine),
    .acc_align = _Alignof(affine),
    .identity = "(affine){1, 0}",
    .map = "(affine){x, y}",
    /* a first, then b: v -> b.a (a.a v + a.c) + b.c */
    .combine = "(affine){b.a * a.a, b.a * a.c + b.c}",
};

static int report(clreduce_ctx *ctx, const char *what, clreduce_status status)
{
    fprintf(stderr, "%s: %s: %s\n", what, clreduce_status_string(status),
            clreduce_last_error(ctx));
    return 1;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000003;
    float *x = malloc((n ? n : 1) * sizeof *x), *w = malloc((n ? n : 1) * sizeof *w);
    uint64_t *a = malloc((n ? n : 1) * sizeof *a), *c = malloc((n ? n : 1) * sizeof *c);
    if (!x || !w || !a || !c)
        return 1;
    uint64_t seed = 2024;
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        x[i] = (float)(seed >> 40) / (float)(1 << 24) * 100.0f - 50.0f;
        w[i] = (float)(seed >> 20 & 0xff) / 255.0f;
        a[i] = seed | 1;
        c[i] = seed >> 17;
    }

    clreduce_ctx *ctx;
    clreduce_status status = clreduce_create_default(&ctx);
    if (status != CLREDUCE_SUCCESS) {
        fprintf(stderr, "clreduce_create_default: %s: %s\n", clreduce_status_string(status),
                clreduce_last_error(NULL));
        return status == CLREDUCE_ERROR_NO_DEVICE ? 77 : 1;
    }
    int failed = 0;
    clreduce_operator *weighted_op = NULL, *recurrence_op = NULL;
    weighted got_w;
    affine got_r;
    if ((status = clreduce_operator_create(ctx, &weighted_desc, &weighted_op)) !=
        CLREDUCE_SUCCESS)
        failed = report(ctx, "creating weighted_mean", status);
    else if ((status = clreduce_operator_create(ctx, &recurrence_desc, &recurrence_op)) !=
             CLREDUCE_SUCCESS)
        failed = report(ctx, "creating recurrence", status);
    else if ((status = clreduce_reduce_custom_host(ctx, weighted_op, CLREDUCE_AUTO, x, w, n,
                                                   &got_w)) != CLREDUCE_SUCCESS)
        failed = report(ctx, "weighted_mean", status);
    else if ((status = clreduce_reduce_custom_host(ctx, recurrence_op, CLREDUCE_AUTO, a, c, n,
                                                   &got_r)) != CLREDUCE_SUCCESS)
        failed = report(ctx, "recurrence", status);
    clreduce_operator_release(recurrence_op);
    clreduce_operator_release(weighted_op);
    clreduce_destroy(ctx);

    if (!failed) {
        double sum = 0, weight = 0;
        float lo = INFINITY, hi = -INFINITY;
        uint64_t v0 = 12345, v = v0;
        for (size_t i = 0; i < n; i++) {
            sum += (double)x[i] * w[i];
            weight += w[i];
            lo = fminf(lo, x[i]);
            hi = fmaxf(hi, x[i]);
            v = a[i] * v + c[i];
        }
        double mean = got_w.sum / got_w.weight, want_mean = sum / weight;
        printf("weighted mean %.6f (reference %.6f), range [%g, %g]\n", mean, want_mean,
               got_w.lo, got_w.hi);
        printf("recurrence from %llu after %zu steps: %llu (reference %llu)\n",
               (unsigned long long)v0, n, (unsigned long long)(got_r.a * v0 + got_r.c),
               (unsigned long long)v);
        if (fabs(mean - want_mean) > 1e-3 * (1 + fabs(want_mean)) || got_w.lo != lo ||
            got_w.hi != hi || got_r.a * v0 + got_r.c != v)
            failed = 1;
    }
    free(c);
    free(a);
    free(w);
    free(x);
    return failed;
}
