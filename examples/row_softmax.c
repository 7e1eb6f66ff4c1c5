/* Softmax of every row of a matrix on the default OpenCL device
 * (CLREDUCE_DEVICE selects another), with data that stays on the device:
 * the maximum of each row (clreduce_reduce_rows), exp(x - max) by a small
 * kernel of this example, the sum of each row (clreduce_reduce_rows again),
 * and the division by it. Checked against a CPU softmax in double.
 *
 *   cc row_softmax.c $(pkg-config --cflags --libs clreduce) -lm -o row_softmax
 *   ./row_softmax [rows [columns]]
 *
 * Exits with 0 when every value is within 1e-5 of the reference, 1 when
 * not (or on an error), 77 when there is no OpenCL device. */
#include <clreduce/clreduce.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *kernel_source =
    "kernel void exp_minus_max(global const float *x, global const float *row_max,\n"
    "                          global float *y, uint columns)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    y[i] = exp(x[i] - row_max[i / columns]);\n"
    "}\n"
    "kernel void divide_by_sum(global float *y, global const float *row_sum, uint columns)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    y[i] /= row_sum[i / columns];\n"
    "}\n";

static int cl_failed(cl_int err, const char *what)
{
    if (err == CL_SUCCESS)
        return 0;
    fprintf(stderr, "%s: %s\n", what, clreduce_opencl_error_name(err));
    return 1;
}

int main(int argc, char **argv)
{
    size_t rows = argc > 1 ? strtoull(argv[1], NULL, 10) : 300;
    size_t columns = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000;
    size_t n = rows * columns;
    if (n == 0)
        return 0;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    if (!x || !y)
        return 1;
    unsigned seed = 12345;
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = (float)((seed >> 8) % 20000) / 1000.0f - 10.0f; /* [-10, 10) */
    }

    clreduce_ctx *ctx;
    clreduce_status status = clreduce_create_default(&ctx);
    if (status != CLREDUCE_SUCCESS) {
        fprintf(stderr, "clreduce_create_default: %s: %s\n", clreduce_status_string(status),
                clreduce_last_error(NULL));
        free(x);
        free(y);
        return status == CLREDUCE_ERROR_NO_DEVICE ? 77 : 1;
    }
    cl_context cl = clreduce_get_cl_context(ctx);
    cl_device_id device = clreduce_get_cl_device(ctx);
    cl_int err;
    cl_command_queue queue = clCreateCommandQueue(cl, device, 0, &err);
    int failed = cl_failed(err, "clCreateCommandQueue");
    cl_mem xb = NULL, yb = NULL, maxb = NULL, sumb = NULL;
    cl_program program = NULL;
    cl_kernel exp_kernel = NULL, divide_kernel = NULL;
    if (!failed) {
        xb = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *x, x, &err);
        failed = cl_failed(err, "clCreateBuffer");
    }
    if (!failed) {
        yb = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * sizeof *y, NULL, &err);
        failed = cl_failed(err, "clCreateBuffer");
    }
    if (!failed) {
        maxb = clCreateBuffer(cl, CL_MEM_READ_WRITE, rows * sizeof(float), NULL, &err);
        failed = cl_failed(err, "clCreateBuffer");
    }
    if (!failed) {
        sumb = clCreateBuffer(cl, CL_MEM_READ_WRITE, rows * sizeof(float), NULL, &err);
        failed = cl_failed(err, "clCreateBuffer");
    }
    if (!failed) {
        program = clCreateProgramWithSource(cl, 1, &kernel_source, NULL, &err);
        failed = cl_failed(err, "clCreateProgramWithSource") ||
                 cl_failed(clBuildProgram(program, 1, &device, "", NULL, NULL), "clBuildProgram");
    }
    if (!failed) {
        exp_kernel = clCreateKernel(program, "exp_minus_max", &err);
        failed = cl_failed(err, "clCreateKernel");
    }
    if (!failed) {
        divide_kernel = clCreateKernel(program, "divide_by_sum", &err);
        failed = cl_failed(err, "clCreateKernel");
    }

    /* max per row, exp(x - max), sum per row, divide: one in-order queue. */
    if (!failed) {
        status = clreduce_reduce_rows(ctx, queue, CLREDUCE_OP_MAX, CLREDUCE_FLOAT, xb, 0, rows,
                                      columns, 0, maxb, 0, 0, NULL, NULL);
        if (status != CLREDUCE_SUCCESS) {
            fprintf(stderr, "max per row: %s: %s\n", clreduce_status_string(status),
                    clreduce_last_error(ctx));
            failed = 1;
        }
    }
    cl_uint cols = (cl_uint)columns;
    if (!failed) {
        clSetKernelArg(exp_kernel, 0, sizeof xb, &xb);
        clSetKernelArg(exp_kernel, 1, sizeof maxb, &maxb);
        clSetKernelArg(exp_kernel, 2, sizeof yb, &yb);
        clSetKernelArg(exp_kernel, 3, sizeof cols, &cols);
        failed = cl_failed(clEnqueueNDRangeKernel(queue, exp_kernel, 1, NULL, &n, NULL, 0, NULL,
                                                  NULL),
                           "exp_minus_max");
    }
    if (!failed) {
        status = clreduce_reduce_rows(ctx, queue, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, yb, 0, rows,
                                      columns, 0, sumb, 0, 0, NULL, NULL);
        if (status != CLREDUCE_SUCCESS) {
            fprintf(stderr, "sum per row: %s: %s\n", clreduce_status_string(status),
                    clreduce_last_error(ctx));
            failed = 1;
        }
    }
    if (!failed) {
        clSetKernelArg(divide_kernel, 0, sizeof yb, &yb);
        clSetKernelArg(divide_kernel, 1, sizeof sumb, &sumb);
        clSetKernelArg(divide_kernel, 2, sizeof cols, &cols);
        failed = cl_failed(clEnqueueNDRangeKernel(queue, divide_kernel, 1, NULL, &n, NULL, 0,
                                                  NULL, NULL),
                           "divide_by_sum") ||
                 cl_failed(clEnqueueReadBuffer(queue, yb, CL_TRUE, 0, n * sizeof *y, y, 0, NULL,
                                               NULL),
                           "clEnqueueReadBuffer");
    }

    /* The CPU reference, in double. */
    double worst = 0;
    for (size_t r = 0; r < rows && !failed; r++) {
        const float *row = x + r * columns;
        double m = row[0], s = 0;
        for (size_t i = 1; i < columns; i++)
            m = row[i] > m ? row[i] : m;
        for (size_t i = 0; i < columns; i++)
            s += exp((double)row[i] - m);
        for (size_t i = 0; i < columns; i++) {
            double want = exp((double)row[i] - m) / s;
            double error = fabs((double)y[r * columns + i] - want);
            worst = error > worst ? error : worst;
        }
    }
    if (!failed) {
        printf("softmax of %zu rows of %zu floats: largest difference from the CPU %.3g\n", rows,
               columns, worst);
        if (!(worst <= 1e-5)) {
            fprintf(stderr, "the softmax differs from the CPU reference by %g\n", worst);
            failed = 1;
        }
    }

    if (divide_kernel)
        clReleaseKernel(divide_kernel);
    if (exp_kernel)
        clReleaseKernel(exp_kernel);
    if (program)
        clReleaseProgram(program);
    cl_mem buffers[] = {xb, yb, maxb, sumb};
    for (size_t i = 0; i < 4; i++)
        if (buffers[i])
            clReleaseMemObject(buffers[i]);
    if (queue)
        clReleaseCommandQueue(queue);
    clreduce_destroy(ctx);
    free(x);
    free(y);
    return failed;
}
