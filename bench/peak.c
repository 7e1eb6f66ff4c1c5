/* clreduce-bench: the device's memory bandwidth ceiling, measured on the
 * device itself.
 *  (a) clEnqueueCopyBuffer of a large buffer: read + write bytes;
 *  (b) a read-only streaming kernel (below): read bytes only. This is the
 *      ceiling for a reduction, which reads its input once and writes almost
 *      nothing; the table's "% of peak" is relative to it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak.h"
#include "util.h"

/* Each work-item reads float4s and writes only under a condition that never
 * holds for the data (all ones), which the compiler cannot know: the reads
 * stay. Two access patterns:
 *  - peak_read, grid-stride: each work-group reads PEAK_UNROLL runs of
 *    neighbouring vectors per step (what GPUs coalesce), loads issued before
 *    they are added; built for several PEAK_UNROLL;
 *  - peak_read_blocked: each work-item walks a contiguous range (what CPU
 *    implementations that run one work-item's loop to its end stream best).
 * Both read n vectors from vector `first` on. The ceiling is the best of
 * all. */
static const char peak_source[] =
    "#define PEAK_END(out, acc)                           \\\n"
    "    float s = (acc.x + acc.y) + (acc.z + acc.w);    \\\n"
    "    if (s == -1.2345f)                              \\\n"
    "        out[0] = s;\n"
    "kernel void peak_read(global const float4 *restrict in, ulong first, ulong n,\n"
    "                      global float *restrict out)\n"
    "{\n"
    "    in += first;\n"
    "    ulong wg = get_local_size(0);\n"
    "    ulong i = get_group_id(0) * PEAK_UNROLL * wg + get_local_id(0);\n"
    "    ulong stride = get_num_groups(0) * PEAK_UNROLL * wg;\n"
    "    float4 acc = (float4)(0.0f);\n"
    "    for (; i + (PEAK_UNROLL - 1) * wg < n; i += stride) {\n"
    "        float4 v[PEAK_UNROLL];\n"
    "        for (uint u = 0; u < PEAK_UNROLL; u++)\n"
    "            v[u] = in[i + u * wg];\n"
    "        for (uint u = 0; u < PEAK_UNROLL; u++)\n"
    "            acc += v[u];\n"
    "    }\n"
    "    for (uint u = 0; u < PEAK_UNROLL; u++, i += wg)\n"
    "        if (i < n)\n"
    "            acc += in[i];\n"
    "    PEAK_END(out, acc)\n"
    "}\n"
    "kernel void peak_read_blocked(global const float4 *restrict in, ulong first, ulong n,\n"
    "                              global float *restrict out)\n"
    "{\n"
    "    in += first;\n"
    "    ulong items = get_global_size(0);\n"
    "    ulong per = (n + items - 1) / items;\n"
    "    ulong i = get_global_id(0) * per;\n"
    "    ulong end = min(i + per, n);\n"
    "    float4 a0 = (float4)(0.0f), a1 = (float4)(0.0f);\n"
    "    for (; i + 1 < end; i += 2) {\n"
    "        a0 += in[i];\n"
    "        a1 += in[i + 1];\n"
    "    }\n"
    "    if (i < end)\n"
    "        a0 += in[i];\n"
    "    float4 acc = a0 + a1;\n"
    "    PEAK_END(out, acc)\n"
    "}\n";

static double event_ns(cl_event ev)
{
    cl_ulong start = 0, end = 0;
    check_cl(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL),
             "clGetEventProfilingInfo");
    check_cl(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL),
             "clGetEventProfilingInfo");
    return end > start ? (double)(end - start) : 1.0;
}

cl_program peak_program(const bench_device *d, unsigned unroll)
{
    char options[64];
    snprintf(options, sizeof options, "-DPEAK_UNROLL=%u", unroll);
    cl_int err;
    const char *src = peak_source;
    cl_program program = clCreateProgramWithSource(d->context, 1, &src, NULL, &err);
    check_cl(err, "clCreateProgramWithSource (peak kernels)");
    err = clBuildProgram(program, 1, &d->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(program, d->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        fatal("building the peak kernels failed: %s\n%s", clreduce_opencl_error_name(err), log);
    }
    return program;
}

/* Best GB/s of kernel `name` over a few grid sizes. */
static double best_read_kernel(const bench_device *d, cl_program program, const char *name,
                               cl_mem src, cl_mem out, size_t bytes, int runs)
{
    cl_int err;
    cl_kernel kernel = clCreateKernel(program, name, &err);
    check_cl(err, "clCreateKernel (peak kernel)");
    size_t local = 256, kernel_max = 0;
    check_cl(clGetKernelWorkGroupInfo(kernel, d->device, CL_KERNEL_WORK_GROUP_SIZE,
                                      sizeof kernel_max, &kernel_max, NULL),
             "clGetKernelWorkGroupInfo");
    while (local > kernel_max && local > 1)
        local /= 2;
    cl_ulong first = 0, n4 = bytes / 16;
    check_cl(clSetKernelArg(kernel, 0, sizeof src, &src), "clSetKernelArg");
    check_cl(clSetKernelArg(kernel, 1, sizeof first, &first), "clSetKernelArg");
    check_cl(clSetKernelArg(kernel, 2, sizeof n4, &n4), "clSetKernelArg");
    check_cl(clSetKernelArg(kernel, 3, sizeof out, &out), "clSetKernelArg");
    static const unsigned gpu_groups[] = {4, 8, 16, 32};
    static const unsigned cpu_groups[] = {1, 4, 16};
    const unsigned *groups = d->is_cpu ? cpu_groups : gpu_groups;
    size_t ngroups = d->is_cpu ? sizeof cpu_groups / sizeof *cpu_groups
                               : sizeof gpu_groups / sizeof *gpu_groups;
    double best = 0;
    for (size_t g = 0; g < ngroups; g++) {
        size_t global = (size_t)d->compute_units * groups[g] * local;
        for (int r = 0; r <= runs; r++) { /* the first run is a warm-up */
            cl_event ev;
            check_cl(clEnqueueNDRangeKernel(d->queue, kernel, 1, NULL, &global, &local, 0, NULL,
                                            &ev),
                     "clEnqueueNDRangeKernel (peak kernel)");
            check_cl(clWaitForEvents(1, &ev), "clWaitForEvents");
            double gbps = (double)bytes / event_ns(ev);
            clReleaseEvent(ev);
            if (r > 0 && gbps > best)
                best = gbps;
        }
    }
    clReleaseKernel(kernel);
    return best;
}

void peak_measure(const bench_device *d, int runs, peak_result *out)
{
    memset(out, 0, sizeof *out);
    if (runs < 1)
        runs = 1;
    /* 1 GiB on a GPU, 256 MiB on a CPU (beyond its last-level cache), within
     * the limits for two buffers. */
    cl_ulong size = d->is_cpu ? (cl_ulong)256 << 20 : (cl_ulong)1 << 30;
    cl_ulong limit = device_buffer_limit(d) / 2;
    while (size > limit && size > ((cl_ulong)1 << 20))
        size /= 2;
    size_t bytes = (size_t)size;

    cl_int err;
    cl_mem src = clCreateBuffer(d->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    check_cl(err, "clCreateBuffer (peak source)");
    cl_mem dst = clCreateBuffer(d->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    check_cl(err, "clCreateBuffer (peak destination)");
    float one = 1.0f;
    check_cl(clEnqueueFillBuffer(d->queue, src, &one, sizeof one, 0, bytes, 0, NULL, NULL),
             "clEnqueueFillBuffer");
    check_cl(clEnqueueFillBuffer(d->queue, dst, &one, sizeof one, 0, bytes, 0, NULL, NULL),
             "clEnqueueFillBuffer");
    check_cl(clFinish(d->queue), "clFinish");

    /* (a) copy; the first run is a warm-up. */
    double best = 0;
    for (int r = 0; r <= runs; r++) {
        cl_event ev;
        check_cl(clEnqueueCopyBuffer(d->queue, src, dst, 0, 0, bytes, 0, NULL, &ev),
                 "clEnqueueCopyBuffer");
        check_cl(clWaitForEvents(1, &ev), "clWaitForEvents");
        double gbps = 2.0 * (double)bytes / event_ns(ev);
        clReleaseEvent(ev);
        if (r > 0 && gbps > best)
            best = gbps;
    }
    out->copy_gbps = best;

    /* (b) read-only kernels. */
    static const unsigned unrolls[] = {1, 2, 4, 8};
    best = 0;
    for (size_t u = 0; u < sizeof unrolls / sizeof *unrolls; u++) {
        cl_program program = peak_program(d, unrolls[u]);
        double gbps = best_read_kernel(d, program, "peak_read", src, dst, bytes, runs);
        if (gbps > best)
            best = gbps;
        if (u == 0) {
            gbps = best_read_kernel(d, program, "peak_read_blocked", src, dst, bytes, runs);
            if (gbps > best)
                best = gbps;
        }
        clReleaseProgram(program);
    }
    out->read_gbps = best;
    out->copy_bytes = bytes;
    out->measured = 1;

    clReleaseMemObject(dst);
    clReleaseMemObject(src);
}
