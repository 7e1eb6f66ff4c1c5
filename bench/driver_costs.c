/* clreduce-driver-costs: the host time of the OpenCL calls a reduction
 * makes, each alone, on one device. It tells which part of a call's host
 * time is the driver's: clreduce-bench's host_us of a call is these costs
 * plus the library's own work.
 *
 *     clreduce-driver-costs [device]
 *
 * `device`: part of a platform or device name (default: the first GPU, else
 * the first device). The kernel has the arguments of a grid reduction
 * (three buffers, three 64-bit counts) and does nothing; it is launched
 * with 264 work-groups of 512, as the H200's grid for 2^20 floats. Times
 * are means over many calls (medians for the marker-to-end span), in
 * microseconds of the host clock. */
#include <CL/cl.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *source =
    "__kernel void k(__global const float *in, ulong in_off, ulong n, __global float *out,\n"
    "                ulong out_off, __global int *scratch)\n"
    "{\n"
    "    if (get_global_id(0) == 0 && n == 12345)\n"
    "        out[out_off] = in[in_off] + scratch[0];\n"
    "}\n";

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static void check(cl_int err, const char *what)
{
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clreduce-driver-costs: %s failed (%d)\n", what, err);
        exit(1);
    }
}

/* The first device whose platform or device name contains `want`, or the
 * first GPU, else the first device, when `want` is NULL. */
static cl_device_id pick_device(const char *want)
{
    cl_platform_id platforms[16];
    cl_uint np = 0;
    check(clGetPlatformIDs(16, platforms, &np), "clGetPlatformIDs");
    cl_device_id first = NULL, gpu = NULL;
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id devices[16];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 16, devices, &nd) != CL_SUCCESS)
            continue;
        char pname[256] = "";
        clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
        for (cl_uint d = 0; d < nd; d++) {
            char dname[256] = "";
            cl_device_type type = 0;
            clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);
            clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
            if (want && (strstr(pname, want) || strstr(dname, want)))
                return devices[d];
            if (!first)
                first = devices[d];
            if (!gpu && (type & CL_DEVICE_TYPE_GPU))
                gpu = devices[d];
        }
    }
    if (want || !first) {
        fprintf(stderr, "clreduce-driver-costs: no OpenCL device%s%s\n", want ? " matches " : "",
                want ? want : "");
        exit(1);
    }
    return gpu ? gpu : first;
}

typedef struct setup {
    cl_context context;
    cl_command_queue plain, profiling;
    cl_kernel kernel;
    cl_mem in, out, scratch;
} setup;

static void set_args(const setup *s)
{
    cl_ulong zero = 0, n = 1 << 20;
    clSetKernelArg(s->kernel, 0, sizeof s->in, &s->in);
    clSetKernelArg(s->kernel, 1, sizeof zero, &zero);
    clSetKernelArg(s->kernel, 2, sizeof n, &n);
    clSetKernelArg(s->kernel, 3, sizeof s->out, &s->out);
    clSetKernelArg(s->kernel, 4, sizeof zero, &zero);
    clSetKernelArg(s->kernel, 5, sizeof s->scratch, &s->scratch);
}

static const size_t global = 264 * 512, local = 512;

static void launch(const setup *s, cl_command_queue q, int with_event)
{
    cl_event e;
    clEnqueueNDRangeKernel(q, s->kernel, 1, NULL, &global, &local, 0, NULL,
                           with_event ? &e : NULL);
    if (with_event)
        clReleaseEvent(e);
}

static void row(const char *what, double us)
{
    printf("%-58s %9.3f\n", what, us);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    cl_device_id device = pick_device(argc > 1 ? argv[1] : NULL);
    char name[256] = "", driver[256] = "", version[256] = "";
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    clGetDeviceInfo(device, CL_DRIVER_VERSION, sizeof driver - 1, driver, NULL);
    clGetDeviceInfo(device, CL_DEVICE_VERSION, sizeof version - 1, version, NULL);
    time_t t = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    printf("# clreduce-driver-costs, %s (UTC)\n# device: %s | driver: %s | %s\n", date, name,
           driver, version);
    printf("# host time per call, microseconds (mean; the last row a median)\n");

    setup s;
    cl_int err;
    s.context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    check(err, "clCreateContext");
    s.plain = clCreateCommandQueue(s.context, device, 0, &err);
    check(err, "clCreateCommandQueue");
    s.profiling = clCreateCommandQueue(s.context, device, CL_QUEUE_PROFILING_ENABLE, &err);
    check(err, "clCreateCommandQueue");
    cl_program program = clCreateProgramWithSource(s.context, 1, &source, NULL, &err);
    check(err, "clCreateProgramWithSource");
    check(clBuildProgram(program, 1, &device, "", NULL, NULL), "clBuildProgram");
    s.kernel = clCreateKernel(program, "k", &err);
    check(err, "clCreateKernel");
    s.in = clCreateBuffer(s.context, CL_MEM_READ_ONLY, 1 << 22, NULL, &err);
    check(err, "clCreateBuffer");
    s.out = clCreateBuffer(s.context, CL_MEM_READ_WRITE, 1 << 12, NULL, &err);
    check(err, "clCreateBuffer");
    s.scratch = clCreateBuffer(s.context, CL_MEM_READ_WRITE, 1 << 12, NULL, &err);
    check(err, "clCreateBuffer");
    set_args(&s);

    enum { QUERIES = 20000, LAUNCHES = 2000, SPANS = 201 };
    double t0 = now_us();
    for (int i = 0; i < QUERIES; i++)
        clSetKernelArg(s.kernel, 0, sizeof s.in, &s.in);
    row("clSetKernelArg, a buffer", (now_us() - t0) / QUERIES);
    t0 = now_us();
    for (int i = 0; i < QUERIES; i++)
        set_args(&s);
    row("6 x clSetKernelArg (a reduction's arguments)", (now_us() - t0) / QUERIES);
    t0 = now_us();
    for (int i = 0; i < QUERIES; i++) {
        cl_context c;
        cl_device_id d;
        cl_command_queue_properties p;
        clGetCommandQueueInfo(s.plain, CL_QUEUE_CONTEXT, sizeof c, &c, NULL);
        clGetCommandQueueInfo(s.plain, CL_QUEUE_DEVICE, sizeof d, &d, NULL);
        clGetCommandQueueInfo(s.plain, CL_QUEUE_PROPERTIES, sizeof p, &p, NULL);
    }
    row("3 x clGetCommandQueueInfo (context, device, properties)", (now_us() - t0) / QUERIES);
    t0 = now_us();
    for (int i = 0; i < QUERIES; i++) {
        size_t size;
        clGetMemObjectInfo(s.in, CL_MEM_SIZE, sizeof size, &size, NULL);
    }
    row("clGetMemObjectInfo, CL_MEM_SIZE", (now_us() - t0) / QUERIES);
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    t0 = now_us();
    for (int i = 0; i < QUERIES; i++) {
        pthread_mutex_lock(&lock);
        pthread_mutex_unlock(&lock);
    }
    row("pthread mutex lock and unlock (no contention)", (now_us() - t0) / QUERIES);

    struct {
        const char *what;
        cl_command_queue *queue;
        int event;
    } launches[] = {
        {"clEnqueueNDRangeKernel, queue without profiling, no event", &s.plain, 0},
        {"clEnqueueNDRangeKernel, queue without profiling, an event", &s.plain, 1},
        {"clEnqueueNDRangeKernel, profiling queue, an event", &s.profiling, 1},
    };
    for (size_t l = 0; l < sizeof launches / sizeof *launches; l++) {
        clFinish(*launches[l].queue);
        t0 = now_us();
        for (int i = 0; i < LAUNCHES; i++)
            launch(&s, *launches[l].queue, launches[l].event);
        row(launches[l].what, (now_us() - t0) / LAUNCHES);
        clFinish(*launches[l].queue);
    }
    t0 = now_us();
    for (int i = 0; i < LAUNCHES; i++)
        launch(&s, s.plain, 0);
    clFinish(s.plain);
    row("back to back, no event, clFinish included", (now_us() - t0) / LAUNCHES);

    /* What clreduce-bench's call_us measures, for this kernel alone. */
    double spans[SPANS];
    for (int i = 0; i < SPANS; i++) {
        cl_event marker, done;
        cl_ulong from, to;
        clEnqueueMarkerWithWaitList(s.profiling, 0, NULL, &marker);
        clFlush(s.profiling);
        clEnqueueNDRangeKernel(s.profiling, s.kernel, 1, NULL, &global, &local, 0, NULL, &done);
        clWaitForEvents(1, &done);
        clGetEventProfilingInfo(marker, CL_PROFILING_COMMAND_END, sizeof from, &from, NULL);
        clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_END, sizeof to, &to, NULL);
        spans[i] = (double)(to - from) * 1e-3;
        clReleaseEvent(marker);
        clReleaseEvent(done);
    }
    qsort(spans, SPANS, sizeof *spans, by_value);
    row("marker's end to the kernel's end (device clock, median)", spans[SPANS / 2]);

    clReleaseMemObject(s.in);
    clReleaseMemObject(s.out);
    clReleaseMemObject(s.scratch);
    clReleaseKernel(s.kernel);
    clReleaseProgram(program);
    clReleaseCommandQueue(s.plain);
    clReleaseCommandQueue(s.profiling);
    clReleaseContext(s.context);
    return 0;
}
