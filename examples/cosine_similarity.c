/* The cosine similarity of pairs of rows (embeddings, queries against
 * keys) on the default OpenCL device (CLREDUCE_DEVICE selects another):
 * x and y are matrices whose rows are padded to a pitch, uploaded once;
 * one call gives the dot product of each pair of rows
 * (clreduce_dot_rows), two more the norm of each row (clreduce_reduce_rows
 * with CLREDUCE_OP_NORM2), all on one in-order queue, read back once.
 * cos = x.y / (|x| |y|), checked against a CPU reference in double.
 *
 *   cc cosine_similarity.c $(pkg-config --cflags --libs clreduce) -lm -o cosine_similarity
 *   ./cosine_similarity [rows [columns]]
 *
 * Exits with 0 when every similarity is within 1e-5 of the reference, 1
 * when not (or on an error), 77 when there is no OpenCL device. */
#include <clreduce/clreduce.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int fail(const clreduce_ctx *ctx, const char *what, clreduce_status status)
{
    fprintf(stderr, "%s: %s: %s\n", what, clreduce_status_string(status),
            clreduce_last_error(ctx));
    return 1;
}

int main(int argc, char **argv)
{
    size_t rows = argc > 1 ? strtoull(argv[1], NULL, 10) : 4096;
    size_t columns = argc > 2 ? strtoull(argv[2], NULL, 10) : 300;
    size_t pitch = columns + 4; /* padding the calls skip */
    size_t n = rows * pitch;
    float *x = malloc((n ? n : 1) * sizeof *x), *y = malloc((n ? n : 1) * sizeof *y);
    float *got = malloc((3 * rows + 1) * sizeof *got); /* x.y, then |x|, then |y| */
    if (!x || !y || !got)
        return 1;
    unsigned seed = 7;
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = (float)((seed >> 8) % 2001) / 1000.0f - 1.0f;
        seed = seed * 1103515245u + 12345u;
        /* y: half x, half noise, so that the similarities spread over (-1, 1) */
        y[i] = 0.5f * x[i] + (float)((seed >> 8) % 2001) / 1000.0f - 1.0f;
        if (i % pitch >= columns)
            x[i] = y[i] = NAN; /* padding: a similarity that read it would be NaN */
    }

    clreduce_ctx *ctx;
    clreduce_status status = clreduce_create_default(&ctx);
    if (status != CLREDUCE_SUCCESS) {
        fprintf(stderr, "clreduce_create_default: %s: %s\n", clreduce_status_string(status),
                clreduce_last_error(NULL));
        return status == CLREDUCE_ERROR_NO_DEVICE ? 77 : 1;
    }
    cl_context cl = clreduce_get_cl_context(ctx);
    cl_int err;
    cl_command_queue queue = clCreateCommandQueue(cl, clreduce_get_cl_device(ctx), 0, &err);
    size_t bytes = (n ? n : 1) * sizeof(float);
    cl_mem dx = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, x, &err);
    cl_mem dy = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, y, &err);
    cl_mem out = clCreateBuffer(cl, CL_MEM_WRITE_ONLY, (3 * rows + 1) * sizeof *got, NULL, &err);
    int failed = !queue || !dx || !dy || !out;
    if (failed)
        fprintf(stderr, "OpenCL set-up failed (%d)\n", err);
    if (!failed && (status = clreduce_dot_rows(ctx, queue, CLREDUCE_FLOAT, dx, 0, dy, 0, rows,
                                               columns, pitch, out, 0, 0, NULL, NULL)) !=
                       CLREDUCE_SUCCESS)
        failed = fail(ctx, "dot products of the rows", status);
    if (!failed && (status = clreduce_reduce_rows(ctx, queue, CLREDUCE_OP_NORM2, CLREDUCE_FLOAT,
                                                  dx, 0, rows, columns, pitch, out, rows, 0,
                                                  NULL, NULL)) != CLREDUCE_SUCCESS)
        failed = fail(ctx, "norms of x's rows", status);
    if (!failed && (status = clreduce_reduce_rows(ctx, queue, CLREDUCE_OP_NORM2, CLREDUCE_FLOAT,
                                                  dy, 0, rows, columns, pitch, out, 2 * rows, 0,
                                                  NULL, NULL)) != CLREDUCE_SUCCESS)
        failed = fail(ctx, "norms of y's rows", status);
    if (!failed && (err = clEnqueueReadBuffer(queue, out, CL_TRUE, 0, 3 * rows * sizeof(float),
                                              got, 0, NULL, NULL)) != CL_SUCCESS) {
        fprintf(stderr, "reading the results failed (%d)\n", err);
        failed = 1;
    }

    double worst = 0;
    for (size_t r = 0; r < rows && !failed; r++) {
        const float *a = x + r * pitch, *b = y + r * pitch;
        double dot = 0, aa = 0, bb = 0;
        for (size_t i = 0; i < columns; i++) {
            dot += (double)a[i] * b[i];
            aa += (double)a[i] * a[i];
            bb += (double)b[i] * b[i];
        }
        if (aa == 0 || bb == 0)
            continue; /* no angle to a zero vector (rows of no column) */
        double want = dot / (sqrt(aa) * sqrt(bb));
        double cosine = got[r] / ((double)got[rows + r] * got[2 * rows + r]);
        double error = fabs(cosine - want);
        worst = error > worst || isnan(error) ? error : worst;
    }
    if (!failed) {
        printf("cosine similarity of %zu pairs of rows of %zu floats (pitch %zu): largest "
               "difference from the CPU %.3g\n",
               rows, columns, pitch, worst);
        if (!(worst <= 1e-5)) {
            fprintf(stderr, "the similarities differ from the CPU reference by %g\n", worst);
            failed = 1;
        }
    }
    if (out)
        clReleaseMemObject(out);
    if (dy)
        clReleaseMemObject(dy);
    if (dx)
        clReleaseMemObject(dx);
    if (queue)
        clReleaseCommandQueue(queue);
    clreduce_destroy(ctx);
    free(x);
    free(y);
    free(got);
    return failed;
}
