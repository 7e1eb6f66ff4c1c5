/* unit.mpi: clreduce_mpi_allreduce() (clreduce/mpi.h) over the ranks of
 * MPI_COMM_WORLD, run by mpirun with several ranks, each with a context of
 * its own on the default device. Every rank builds the same random arrays
 * from one seed and holds a random part of it (empty parts among them) at
 * an offset between poison. Checked on every rank: every operator (dot
 * through clreduce_mpi_dot) on every type against the CPU reference; in reproducible contexts with
 * parts of whole tiles, the sums' bits those of the order written in C
 * over the whole array; every rank the same bits as rank 0; a rank whose
 * range lies past its buffer fails with its message, the others with its
 * status, and no rank hangs.
 *
 * CLREDUCE_TEST_SEED=n repeats a run's random data. */
#include <mpi.h>

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
#include "clreduce/mpi.h"
#include "test_common.h"
#include "test_fixed_order.h"

static int g_rank, g_ranks;
static clreduce_ctx *g_ctx, *g_repro;
static cl_command_queue g_queue;
static int g_failures;

static void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void report(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "rank %d: ", g_rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    g_failures++;
}

/* Every rank's counts: random (some 0), or whole tiles but the last's. */
static void random_counts(size_t *counts, size_t n, size_t tile)
{
    for (int r = 0; r < g_ranks; r++)
        counts[r] = tile ? (r + 1 < g_ranks ? tc_rand_below(3) * tile : tc_rand_below(2 * tile))
                         : (tc_rand_below(4) ? tc_rand_below(n / g_ranks + 1) : 0);
}

/* This rank's part of data (and of y, for dot), at an offset between
 * poison, reduced by all. */
static clreduce_status allreduce(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                                 const void *data, const void *y, const size_t *counts,
                                 size_t extra, void *result)
{
    const size_t es = tc_elem_size(type);
    size_t start = 0, offset = 1 + tc_rand_below(4);
    for (int r = 0; r < g_rank; r++)
        start += counts[r];
    size_t total = offset + counts[g_rank] + 2;
    unsigned char *buf = malloc(total * es);
    tc_value poison;
    tc_op_poison(op, type, &poison);
    cl_mem mem[2] = {NULL, NULL};
    for (int input = 0; input < 1 + (y != NULL); input++) {
        for (size_t i = 0; i < total; i++)
            memcpy(buf + i * es, poison.bytes, es);
        if (counts[g_rank])
            memcpy(buf + offset * es, (const unsigned char *)(input ? y : data) + start * es,
                   counts[g_rank] * es);
        mem[input] = tc_make_buffer(ctx, total * es, buf);
    }
    clreduce_status st =
        op == CLREDUCE_OP_DOT
            ? clreduce_mpi_dot(ctx, g_queue, MPI_COMM_WORLD, type, CLREDUCE_AUTO, mem[0], offset,
                               mem[1], offset, counts[g_rank] + extra, result)
            : clreduce_mpi_allreduce(ctx, g_queue, MPI_COMM_WORLD, op, type, CLREDUCE_AUTO,
                                     mem[0], offset, counts[g_rank] + extra, result);
    clReleaseMemObject(mem[0]);
    if (mem[1])
        clReleaseMemObject(mem[1]);
    free(buf);
    return st;
}

/* Whether every rank has rank 0's bytes. */
static int same_everywhere(const void *result, size_t size)
{
    unsigned char mine[32] = {0}, first[32];
    memcpy(mine, result, size);
    memcpy(first, mine, sizeof first);
    MPI_Bcast(first, sizeof first, MPI_BYTE, 0, MPI_COMM_WORLD);
    return memcmp(first, mine, sizeof first) == 0;
}

static const clreduce_type k_types[] = {CLREDUCE_FLOAT, CLREDUCE_DOUBLE, CLREDUCE_INT32,
                                        CLREDUCE_UINT32, CLREDUCE_INT64, CLREDUCE_UINT64};

static void test_operators(void)
{
    for (size_t t = 0; t < 6; t++) {
        clreduce_type type = k_types[t];
        if (!tc_type_supported(g_ctx, type))
            continue;
        for (int op = 0; op < CLREDUCE_OP_COUNT; op++) {
            if (!tc_is_float_type(type) && (op == CLREDUCE_OP_NORM2 || op == CLREDUCE_OP_MEAN_VAR))
                continue;
            size_t counts[64], n = 0;
            random_counts(counts, 3000 + tc_rand_below(30000), 0);
            for (int r = 0; r < g_ranks; r++)
                n += counts[r];
            void *data = malloc((n ? n : 1) * tc_elem_size(type)), *y = NULL;
            tc_op_fill((clreduce_op)op, type, data, n);
            if (op == CLREDUCE_OP_DOT)
                tc_op_fill((clreduce_op)op, type, y = malloc((n ? n : 1) * tc_elem_size(type)), n);
            unsigned char got[32] = {0};
            char why[256] = "";
            clreduce_status st = allreduce(g_ctx, (clreduce_op)op, type, data, y, counts, 0, got);
            int ok = st == CLREDUCE_SUCCESS &&
                     tc_check_any_result((clreduce_op)op, type, data, y, n, got, why, sizeof why);
            if (!ok)
                report("%s %s n=%zu: %s %s %s", clreduce_op_name((clreduce_op)op),
                     clreduce_type_name(type), n, clreduce_status_string(st),
                     clreduce_last_error(g_ctx), why);
            if (!same_everywhere(got, clreduce_result_size((clreduce_op)op, type)))
                report("%s %s: not rank 0's bits", clreduce_op_name((clreduce_op)op),
                     clreduce_type_name(type));
            free(data), free(y);
        }
    }
}

static void test_reproducible(void)
{
    for (int round = 0; round < 16; round++) {
        clreduce_type type = round % 2 ? CLREDUCE_DOUBLE : CLREDUCE_FLOAT;
        int map = round / 2 % 4; /* sum, squares, absolute values, products */
        clreduce_op op = map_op(map);
        if (!tc_type_supported(g_ctx, type))
            continue;
        const size_t es = tc_elem_size(type);
        size_t counts[64], n = 0;
        random_counts(counts, 0, CLREDUCE_REPRODUCIBLE_TILE_BYTES / es);
        for (int r = 0; r < g_ranks; r++)
            n += counts[r];
        void *data = malloc((n ? n : 1) * es), *mapped = malloc((n ? n : 1) * es);
        void *y = malloc((n ? n : 1) * es);
        fill_wide(type, data, n);
        fill_wide(type, y, n);
        if (map)
            map_values(type, map, data, y, n, mapped);
        else
            memcpy(mapped, data, n * es);
        unsigned char got[8] = {0}, want[8] = {0};
        host_sum(type, mapped, n, want);
        clreduce_status st = allreduce(g_repro, op, type, data, op == CLREDUCE_OP_DOT ? y : NULL,
                                       counts, 0, got);
        if (st != CLREDUCE_SUCCESS || memcmp(got, want, es))
            report("reproducible %s %s n=%zu: %s %s", clreduce_op_name(op),
                 clreduce_type_name(type), n, clreduce_status_string(st),
                 st ? clreduce_last_error(g_repro) : "bits differ from the order");
        free(data), free(mapped), free(y);
    }
}

/* The last rank's range lies past its buffer: it fails with its message,
 * every rank fails with its status, nobody writes a result or hangs. */
static void test_failure(void)
{
    size_t counts[64];
    for (int r = 0; r < g_ranks; r++)
        counts[r] = 100;
    float data[64 * 100];
    tc_op_fill(CLREDUCE_OP_SUM, CLREDUCE_FLOAT, data, 100 * (size_t)g_ranks);
    float got = 7;
    clreduce_status st = allreduce(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, data, NULL, counts,
                                   g_rank == g_ranks - 1 ? 1000 : 0, &got);
    if (st != CLREDUCE_ERROR_INVALID_ARGUMENT || got != 7)
        report("a failing rank: %s, result %g", clreduce_status_string(st), got);
    if (g_rank == g_ranks - 1 && !strstr(clreduce_last_error(g_ctx), "past the end"))
        report("the failing rank's message: \"%s\"", clreduce_last_error(g_ctx));
    /* The last rank's context reproducible, the others' not: all fail. */
    got = 7;
    st = allreduce(g_rank == g_ranks - 1 ? g_repro : g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, data,
                   NULL, counts, 0, &got);
    if (g_ranks > 1 && (st != CLREDUCE_ERROR_INVALID_ARGUMENT || got != 7))
        report("contexts of different settings: %s, result %g", clreduce_status_string(st), got);
    /* and the next call works */
    st = allreduce(g_ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, data, NULL, counts, 0, &got);
    if (st != CLREDUCE_SUCCESS)
        report("after a failure: %s", clreduce_status_string(st));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_ranks);
    if (g_ranks > 64) {
        MPI_Finalize();
        return 1;
    }
    /* One seed for all: rank 0's. */
    unsigned long long seed = 0;
    if (g_rank == 0)
        tc_init_seed(), seed = tc_seed();
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    char text[32];
    snprintf(text, sizeof text, "%llu", seed);
    setenv("CLREDUCE_TEST_SEED", text, 1);
    if (g_rank != 0)
        tc_init_seed();
    int have = clreduce_create_default(&g_ctx) == CLREDUCE_SUCCESS, all = 0;
    MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (g_rank == 0)
            printf("no OpenCL device on some rank: skipped\n");
        clreduce_destroy(g_ctx);
        MPI_Finalize();
        return 77;
    }
    g_repro = reproducible_context(g_ctx);
    g_queue = tc_create_queue(g_ctx, 0);
    if (g_rank == 0)
        printf("%d ranks, seed %llu\n", g_ranks, seed);
    test_operators();
    test_reproducible();
    test_failure();
    int failures = 0;
    MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (g_rank == 0)
        printf("%s: %d failures\n", failures ? "FAILED" : "passed", failures);
    clReleaseCommandQueue(g_queue);
    clreduce_destroy(g_repro);
    clreduce_destroy(g_ctx);
    MPI_Finalize();
    return failures != 0;
}
