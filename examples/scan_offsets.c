/* Stream compaction's first step on the default OpenCL device
 * (CLREDUCE_DEVICE selects another): an exclusive sum scan of 0/1 flags
 * gives every kept element its place in the compacted output, computed on
 * device buffers with clreduce_scan() and an event.
 *
 *   cc scan_offsets.c $(pkg-config --cflags --libs clreduce) -o scan_offsets
 *   ./scan_offsets [count]
 */
#include <clreduce/clreduce.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    size_t count = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    if (count == 0)
        return 0;
    uint32_t *flags = malloc(count * sizeof *flags), *offsets = malloc(count * sizeof *offsets);
    if (!flags || !offsets)
        return 1;
    for (size_t i = 0; i < count; i++)
        flags[i] = (i * 2654435761u >> 7) % 3 == 0; /* keep about a third */

    clreduce_ctx *ctx;
    clreduce_status status = clreduce_create_default(&ctx);
    if (status != CLREDUCE_SUCCESS) {
        fprintf(stderr, "clreduce_create_default: %s: %s\n", clreduce_status_string(status),
                clreduce_last_error(NULL));
        return 1;
    }
    cl_context context = clreduce_get_cl_context(ctx);
    cl_device_id device = clreduce_get_cl_device(ctx);
    cl_int err;
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    cl_mem in = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               count * sizeof *flags, flags, &err);
    cl_mem out = clCreateBuffer(context, CL_MEM_READ_WRITE, count * sizeof *offsets, NULL, &err);

    cl_event done = NULL;
    status = clreduce_scan(ctx, queue, CLREDUCE_OP_SUM, CLREDUCE_UINT32, CLREDUCE_EXCLUSIVE,
                           CLREDUCE_SCAN_AUTO, in, 0, count, out, 0, 0, NULL, &done);
    int failed = status != CLREDUCE_SUCCESS;
    if (failed) {
        fprintf(stderr, "clreduce_scan: %s: %s\n", clreduce_status_string(status),
                clreduce_last_error(ctx));
    } else {
        clEnqueueReadBuffer(queue, out, CL_TRUE, 0, count * sizeof *offsets, offsets, 1, &done,
                            NULL);
        clReleaseEvent(done);
        uint32_t kept = 0;
        for (size_t i = 0; i < count && !failed; i++) {
            failed = offsets[i] != kept;
            kept += flags[i];
        }
        printf("%zu flags, %u kept; offsets %s the host's\n", count, kept,
               failed ? "DIFFER from" : "match");
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseCommandQueue(queue);
    clreduce_destroy(ctx);
    free(flags);
    free(offsets);
    return failed;
}
