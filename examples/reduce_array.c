/* Sums, and finds the smallest and largest of, an array of floats on the
 * default OpenCL device (CLREDUCE_DEVICE selects another).
 *
 *   cc reduce_array.c $(pkg-config --cflags --libs clreduce) -o reduce_array
 *   ./reduce_array [count]
 */
#include <clreduce/clreduce.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    size_t count = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    float *data = malloc((count ? count : 1) * sizeof *data);
    if (!data)
        return 1;
    double expected = 0;
    for (size_t i = 0; i < count; i++) {
        data[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
        expected += data[i];
    }

    clreduce_ctx *ctx;
    clreduce_status status = clreduce_create_default(&ctx);
    if (status != CLREDUCE_SUCCESS) {
        fprintf(stderr, "clreduce_create_default: %s: %s\n", clreduce_status_string(status),
                clreduce_last_error(NULL));
        free(data);
        return 1;
    }

    float sum, lo, hi;
    const char *failed = NULL;
    if ((status = clreduce_reduce_host(ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_AUTO, data,
                                       count, &sum)) != CLREDUCE_SUCCESS)
        failed = "sum";
    else if ((status = clreduce_reduce_host(ctx, CLREDUCE_OP_MIN, CLREDUCE_FLOAT, CLREDUCE_AUTO,
                                            data, count, &lo)) != CLREDUCE_SUCCESS)
        failed = "min";
    else if ((status = clreduce_reduce_host(ctx, CLREDUCE_OP_MAX, CLREDUCE_FLOAT, CLREDUCE_AUTO,
                                            data, count, &hi)) != CLREDUCE_SUCCESS)
        failed = "max";

    if (failed)
        fprintf(stderr, "%s: %s: %s\n", failed, clreduce_status_string(status),
                clreduce_last_error(ctx));
    else
        printf("%zu floats: sum %.6g (double-precision host sum %.6g), min %g, max %g\n", count,
               sum, expected, lo, hi);
    clreduce_destroy(ctx);
    free(data);
    return failed ? 1 : 0;
}
