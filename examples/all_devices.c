/* One sum over every OpenCL device of the machine at once: the array is cut
 * into as many parts as there are devices (of any platforms: GPUs and
 * CPUs together), each part copied to its device, and
 * clreduce_reduce_parts() reduces them all in one call.
 *
 * In reproducible contexts, with every part but the last cut at whole
 * tiles of the order, the split sum has the bits of the same sum on one
 * device alone: the program checks that against the first device, and
 * the plain contexts' sum against a CPU sum in long double.
 *
 *   cc all_devices.c $(pkg-config --cflags --libs clreduce) -o all_devices
 *   ./all_devices [count]
 *
 * Exits with 0 when the checks pass, 1 when not (or on an error), 77 when
 * there is no OpenCL device. */
#include <clreduce/clreduce.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_DEVICES 16

typedef struct device {
    cl_context context;
    cl_command_queue queue;
    clreduce_ctx *plain, *reproducible;
    cl_mem part;
} device;

/* Every device of every platform, a context and a queue each. */
static int open_devices(device *d)
{
    cl_platform_id platforms[8];
    cl_uint np = 0;
    int n = 0;
    if (clGetPlatformIDs(8, platforms, &np) != CL_SUCCESS)
        return 0;
    for (cl_uint p = 0; p < np && p < 8; p++) {
        cl_device_id ids[MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, ids, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint i = 0; i < nd && i < MAX_DEVICES && n < MAX_DEVICES; i++) {
            cl_int err;
            d[n] = (device){0}; /* nothing left of a device skipped before */
            clreduce_settings s;
            clreduce_default_settings(&s);
            s.reproducible = 1;
            d[n].context = clCreateContext(NULL, 1, &ids[i], NULL, NULL, &err);
            if (err != CL_SUCCESS)
                continue;
            d[n].queue = clCreateCommandQueue(d[n].context, ids[i], 0, &err);
            if (err != CL_SUCCESS ||
                clreduce_create(d[n].context, ids[i], &d[n].plain) != CLREDUCE_SUCCESS ||
                clreduce_create_with_settings(d[n].context, ids[i], &s, &d[n].reproducible) !=
                    CLREDUCE_SUCCESS) {
                fprintf(stderr, "skipping a device: %s\n", clreduce_last_error(NULL));
                clreduce_destroy(d[n].plain);
                if (d[n].queue)
                    clReleaseCommandQueue(d[n].queue);
                clReleaseContext(d[n].context);
                continue;
            }
            char name[128] = "";
            clGetDeviceInfo(ids[i], CL_DEVICE_NAME, sizeof name, name, NULL);
            printf("device %d: %s\n", n, name);
            n++;
        }
    }
    return n;
}

int main(int argc, char **argv)
{
    size_t count = argc > 1 ? strtoull(argv[1], NULL, 0) : 3000000;
    device d[MAX_DEVICES] = {0};
    int n = open_devices(d);
    if (n == 0) {
        fprintf(stderr, "no OpenCL device\n");
        return 77;
    }
    float *x = malloc((count ? count : 1) * sizeof *x);
    if (!x)
        return 1;
    long double exact = 0;
    for (size_t i = 0; i < count; i++) {
        x[i] = (float)((double)rand() / RAND_MAX - 0.3) * (float)(1 + i % 1000);
        exact += x[i];
    }
    /* Equal parts, each but the last rounded down to whole tiles. */
    const size_t tile = CLREDUCE_REPRODUCIBLE_TILE_BYTES / sizeof(float);
    clreduce_part plain[MAX_DEVICES], reproducible[MAX_DEVICES];
    size_t start = 0;
    int failed = 0;
    for (int i = 0; i < n; i++) {
        size_t size = i + 1 < n ? count / n / tile * tile : count - start;
        cl_int err;
        d[i].part = clCreateBuffer(d[i].context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   (size ? size : 1) * sizeof *x, x + start, &err);
        if (err != CL_SUCCESS) {
            fprintf(stderr, "device %d: clCreateBuffer failed (%d)\n", i, err);
            return 1;
        }
        plain[i] = (clreduce_part){.ctx = d[i].plain, .queue = d[i].queue, .input = d[i].part,
                                   .count = size};
        reproducible[i] = plain[i];
        reproducible[i].ctx = d[i].reproducible;
        printf("part %d: elements %zu .. %zu\n", i, start, start + size);
        start += size;
    }
    float sum, split, one;
    clreduce_status s = clreduce_reduce_parts(plain, n, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                              CLREDUCE_AUTO, &sum);
    if (s == CLREDUCE_SUCCESS)
        s = clreduce_reduce_parts(reproducible, n, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                  CLREDUCE_AUTO, &split);
    if (s == CLREDUCE_SUCCESS)
        s = clreduce_reduce_host(d[0].reproducible, CLREDUCE_OP_SUM, CLREDUCE_FLOAT,
                                 CLREDUCE_AUTO, x, count, &one);
    if (s != CLREDUCE_SUCCESS) {
        fprintf(stderr, "%s: %s\n", clreduce_status_string(s),
                clreduce_last_error(d[0].plain)[0] ? clreduce_last_error(d[0].plain)
                                                   : clreduce_last_error(d[0].reproducible));
        failed = 1;
    } else {
        long double abs_bound = 0;
        for (size_t i = 0; i < count; i++)
            abs_bound += fabsl((long double)x[i]);
        printf("sum over %d devices: %.9g (CPU, long double: %.9Lg)\n", n, sum, exact);
        printf("reproducible, split: %a; on device 0 alone: %a\n", split, one);
        if (fabsl((long double)sum - exact) > 1e-5L * abs_bound) {
            fprintf(stderr, "the sum is off by more than 1e-5 of the sum of |x|\n");
            failed = 1;
        }
        if (split != one) {
            fprintf(stderr, "the reproducible sums differ\n");
            failed = 1;
        }
    }
    for (int i = 0; i < n; i++) {
        clReleaseMemObject(d[i].part);
        clreduce_destroy(d[i].reproducible);
        clreduce_destroy(d[i].plain);
        clReleaseCommandQueue(d[i].queue);
        clReleaseContext(d[i].context);
    }
    free(x);
    return failed;
}
