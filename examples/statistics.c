/* Mean, variance, the largest value and where it is, the Euclidean norm
 * and a dot product of float buffers on the default OpenCL device
 * (CLREDUCE_DEVICE selects another): four reductions enqueued on one queue
 * into one result buffer, read back once.
 *
 *   cc statistics.c $(pkg-config --cflags --libs clreduce) -o statistics
 *   ./statistics [count]
 */
#include <clreduce/clreduce.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    size_t count = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    float *x = malloc((count ? count : 1) * sizeof *x);
    float *y = malloc((count ? count : 1) * sizeof *y);
    if (!x || !y)
        return 1;
    for (size_t i = 0; i < count; i++) {
        x[i] = 1e6f + (float)((i * 7919) % 1000) / 500.0f - 1.0f; /* mean 1e6, spread ~0.6 */
        y[i] = (float)(i % 3) - 1.0f;
    }

    clreduce_ctx *ctx;
    clreduce_status status = clreduce_create_default(&ctx);
    if (status != CLREDUCE_SUCCESS) {
        fprintf(stderr, "clreduce_create_default: %s\n", clreduce_last_error(NULL));
        return 1;
    }
    cl_context cl = clreduce_get_cl_context(ctx);
    cl_int err;
    cl_command_queue queue = clCreateCommandQueue(cl, clreduce_get_cl_device(ctx), 0, &err);
    size_t bytes = (count ? count : 1) * sizeof(float);
    cl_mem xb = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, x, &err);
    cl_mem yb = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, y, &err);

    /* One buffer of 16-byte slots: result_offset counts whole results, so
     * each result takes the slot of its own size (16 bytes for mean_var and
     * argmax of floats, 4 for norm2 and dot: slot k of 4-byte results is at
     * byte 4k). */
    struct {
        clreduce_mean_var_float mv; /* bytes 0-15 */
        clreduce_arg_float top;     /* bytes 16-31 */
        float norm, dot;            /* bytes 32-35, 36-39 */
    } r;
    cl_mem rb = clCreateBuffer(cl, CL_MEM_WRITE_ONLY, sizeof r, NULL, &err);
    cl_event done;
    if ((status = clreduce_reduce(ctx, queue, CLREDUCE_OP_MEAN_VAR, CLREDUCE_FLOAT, CLREDUCE_AUTO,
                                  xb, 0, count, rb, 0, 0, NULL, NULL)) != CLREDUCE_SUCCESS ||
        (status = clreduce_reduce(ctx, queue, CLREDUCE_OP_ARGMAX, CLREDUCE_FLOAT, CLREDUCE_AUTO,
                                  xb, 0, count, rb, 1, 0, NULL, NULL)) != CLREDUCE_SUCCESS ||
        (status = clreduce_reduce(ctx, queue, CLREDUCE_OP_NORM2, CLREDUCE_FLOAT, CLREDUCE_AUTO,
                                  yb, 0, count, rb, 8, 0, NULL, NULL)) != CLREDUCE_SUCCESS ||
        (status = clreduce_dot(ctx, queue, CLREDUCE_FLOAT, CLREDUCE_AUTO, xb, 0, yb, 0, count,
                               rb, 9, 0, NULL, &done)) != CLREDUCE_SUCCESS) {
        fprintf(stderr, "%s: %s\n", clreduce_status_string(status), clreduce_last_error(ctx));
        return 1;
    }
    clEnqueueReadBuffer(queue, rb, CL_TRUE, 0, sizeof r, &r, 1, &done, NULL);
    clReleaseEvent(done);
    printf("%llu floats: mean %.7g, sample variance %.6g; largest %.7g at %llu; |y| %.6g; "
           "x.y %.6g\n",
           (unsigned long long)r.mv.count, r.mv.mean,
           r.mv.count > 1 ? r.mv.m2 / (double)(r.mv.count - 1) : 0.0, r.top.value,
           (unsigned long long)r.top.index, r.norm, r.dot);

    clReleaseMemObject(rb);
    clReleaseMemObject(yb);
    clReleaseMemObject(xb);
    clReleaseCommandQueue(queue);
    clreduce_destroy(ctx);
    free(x);
    free(y);
    return 0;
}
