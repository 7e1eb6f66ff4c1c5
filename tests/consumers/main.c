/* A program built against an installed clreduce, through CMake's
 * find_package (cmake/CMakeLists.txt) and through pkg-config: it sums small
 * arrays on the default device (CLREDUCE_DEVICE selects another) and checks
 * the sums against the CPU's.
 * Exit status: 0 right, 1 wrong or failed, 77 no OpenCL device. */
#include <clreduce/clreduce.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define COUNT 1000

int main(void)
{
    /* The header and the library must come from the same install. */
    if (strcmp(clreduce_version(), CLREDUCE_VERSION_STRING) != 0) {
        fprintf(stderr, "library %s, header %s\n", clreduce_version(), CLREDUCE_VERSION_STRING);
        return 1;
    }

    clreduce_ctx *ctx;
    clreduce_status status = clreduce_create_default(&ctx);
    if (status == CLREDUCE_ERROR_NO_DEVICE) {
        printf("skipped: %s\n", clreduce_last_error(NULL));
        return 77;
    }
    if (status != CLREDUCE_SUCCESS) {
        fprintf(stderr, "clreduce_create_default: %s: %s\n", clreduce_status_string(status),
                clreduce_last_error(NULL));
        return 1;
    }

    static int32_t ints[COUNT];
    static float floats[COUNT];
    int32_t int_expected = 0;
    double float_expected = 0, float_abs = 0;
    for (int i = 0; i < COUNT; i++) {
        ints[i] = (i * 7919) % 2001 - 1000;
        floats[i] = (float)ints[i] / 7.0f;
        int_expected += ints[i];
        float_expected += floats[i];
        float_abs += fabs(floats[i]);
    }

    int32_t int_sum = 0;
    float float_sum = 0;
    int failed = 0;
    if ((status = clreduce_reduce_host(ctx, CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_AUTO, ints,
                                       COUNT, &int_sum)) != CLREDUCE_SUCCESS ||
        (status = clreduce_reduce_host(ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_AUTO,
                                       floats, COUNT, &float_sum)) != CLREDUCE_SUCCESS) {
        fprintf(stderr, "clreduce_reduce_host: %s: %s\n", clreduce_status_string(status),
                clreduce_last_error(ctx));
        failed = 1;
    } else if (int_sum != int_expected) {
        fprintf(stderr, "int32 sum %d, expected %d\n", int_sum, int_expected);
        failed = 1;
    } else if (fabs(float_sum - float_expected) > 1e-5 * float_abs) {
        fprintf(stderr, "float sum %.9g, expected %.9g\n", float_sum, float_expected);
        failed = 1;
    } else {
        printf("clreduce %s: int32 sum %d and float sum %.7g of %d elements match the CPU\n",
               clreduce_version(), int_sum, float_sum, COUNT);
    }
    clreduce_destroy(ctx);
    return failed;
}
