/* clreduce-bench: listing, choosing and opening the OpenCL device, and the
 * memory limits the benchmark keeps to on it. The device is chosen as
 * clreduce_create_default() chooses it (clreduce_find_device()). */
#include <stdio.h>
#include <string.h>

#include "device.h"
#include "util.h"

#define PLATFORM_NOT_FOUND_KHR (-1001) /* clGetPlatformIDs through the ICD loader */
#define MAX_DEVICES 256

typedef struct device_ref {
    cl_platform_id platform;
    cl_device_id device;
    unsigned p, d;
    char platform_name[256], name[256];
    cl_device_type type;
} device_ref;

/* Every device of every platform, in clinfo -l order. */
static size_t enumerate_devices(device_ref *out, size_t max)
{
    cl_uint nplatforms = 0;
    cl_platform_id platforms[32];
    cl_int err = clGetPlatformIDs(32, platforms, &nplatforms);
    if (err == PLATFORM_NOT_FOUND_KHR || nplatforms == 0)
        return 0;
    check_cl(err, "clGetPlatformIDs");
    if (nplatforms > 32)
        nplatforms = 32;
    size_t count = 0;
    for (cl_uint p = 0; p < nplatforms; p++) {
        cl_uint ndevices = 0;
        cl_device_id devices[64];
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devices, &ndevices) !=
            CL_SUCCESS)
            continue;
        if (ndevices > 64)
            ndevices = 64;
        for (cl_uint d = 0; d < ndevices && count < max; d++) {
            device_ref *r = &out[count++];
            memset(r, 0, sizeof *r);
            r->platform = platforms[p];
            r->device = devices[d];
            r->p = p;
            r->d = d;
            clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof r->platform_name - 1,
                              r->platform_name, NULL);
            clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof r->name - 1, r->name, NULL);
            clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof r->type, &r->type, NULL);
        }
    }
    return count;
}

/* The index in refs of the device `selector` names (NULL: first GPU, else
 * first device), as the library chooses it; -1 if none. */
static long select_device(const device_ref *refs, size_t n, const char *selector)
{
    cl_platform_id platform;
    cl_device_id device;
    if (clreduce_find_device(selector, &platform, &device) != CLREDUCE_SUCCESS)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (refs[i].device == device)
            return (long)i;
    return -1;
}

static void print_devices(const device_ref *refs, size_t n)
{
    if (n == 0) {
        printf("no OpenCL device found\n");
        return;
    }
    long def = select_device(refs, n, NULL);
    for (size_t i = 0; i < n; i++)
        printf("%c %u:%u  %s / %s (%s)\n", (long)i == def ? '*' : ' ', refs[i].p, refs[i].d,
               refs[i].platform_name, refs[i].name, device_type_name(refs[i].type));
    printf("(* the default when neither --device nor CLREDUCE_DEVICE is given)\n");
}

static void open_ref(const device_ref *ref, bench_device *d)
{
    memset(d, 0, sizeof *d);
    d->platform = ref->platform;
    d->device = ref->device;
    d->platform_index = ref->p;
    d->device_index = ref->d;
    snprintf(d->platform_name, sizeof d->platform_name, "%s", ref->platform_name);
    check_cl(clGetDeviceInfo(d->device, CL_DEVICE_NAME, sizeof d->name - 1, d->name, NULL),
             "clGetDeviceInfo(CL_DEVICE_NAME)");
    check_cl(clGetDeviceInfo(d->device, CL_DEVICE_VENDOR, sizeof d->vendor - 1, d->vendor, NULL),
             "clGetDeviceInfo(CL_DEVICE_VENDOR)");
    check_cl(clGetDeviceInfo(d->device, CL_DRIVER_VERSION, sizeof d->driver - 1, d->driver, NULL),
             "clGetDeviceInfo(CL_DRIVER_VERSION)");
    check_cl(clGetDeviceInfo(d->device, CL_DEVICE_VERSION, sizeof d->device_version - 1,
                             d->device_version, NULL),
             "clGetDeviceInfo(CL_DEVICE_VERSION)");
    check_cl(clGetPlatformInfo(d->platform, CL_PLATFORM_VERSION, sizeof d->platform_version - 1,
                               d->platform_version, NULL),
             "clGetPlatformInfo(CL_PLATFORM_VERSION)");
    check_cl(clGetDeviceInfo(d->device, CL_DEVICE_TYPE, sizeof d->type, &d->type, NULL),
             "clGetDeviceInfo(CL_DEVICE_TYPE)");
    check_cl(clGetDeviceInfo(d->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof d->compute_units,
                             &d->compute_units, NULL),
             "clGetDeviceInfo(CL_DEVICE_MAX_COMPUTE_UNITS)");
    check_cl(clGetDeviceInfo(d->device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                             sizeof d->max_work_group_size, &d->max_work_group_size, NULL),
             "clGetDeviceInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE)");
    check_cl(clGetDeviceInfo(d->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof d->max_alloc,
                             &d->max_alloc, NULL),
             "clGetDeviceInfo(CL_DEVICE_MAX_MEM_ALLOC_SIZE)");
    check_cl(clGetDeviceInfo(d->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof d->global_mem,
                             &d->global_mem, NULL),
             "clGetDeviceInfo(CL_DEVICE_GLOBAL_MEM_SIZE)");
    check_cl(clGetDeviceInfo(d->device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof d->cache_size,
                             &d->cache_size, NULL),
             "clGetDeviceInfo(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE)");
    d->is_cpu = (d->type & CL_DEVICE_TYPE_CPU) != 0;
    if (d->compute_units == 0)
        d->compute_units = 1;

    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d->platform, 0};
    cl_int err;
    d->context = clCreateContext(props, 1, &d->device, NULL, NULL, &err);
    check_cl(err, "clCreateContext");
    d->queue = clCreateCommandQueue(d->context, d->device, CL_QUEUE_PROFILING_ENABLE, &err);
    check_cl(err, "clCreateCommandQueue (with profiling)");
    d->plain_queue = clCreateCommandQueue(d->context, d->device, 0, &err);
    check_cl(err, "clCreateCommandQueue (without profiling)");
}

void device_close(bench_device *d)
{
    if (d->plain_queue)
        clReleaseCommandQueue(d->plain_queue);
    if (d->queue)
        clReleaseCommandQueue(d->queue);
    if (d->context)
        clReleaseContext(d->context);
    memset(d, 0, sizeof *d);
}

int device_open(const char *selector, bench_device *d)
{
    static device_ref refs[MAX_DEVICES];
    size_t n = enumerate_devices(refs, MAX_DEVICES);
    if (n == 0) {
        fprintf(stderr, "clreduce-bench: no OpenCL device found\n");
        return 0;
    }
    long pick = select_device(refs, n, selector);
    if (pick < 0) {
        fprintf(stderr,
                "clreduce-bench: no OpenCL device matches \"%s\" (use \"P:D\" indices or part of "
                "a platform or device name; --list-devices shows them)\n",
                selector ? selector : "");
        return -1;
    }
    open_ref(&refs[pick], d);
    return 1;
}

void device_list(void)
{
    static device_ref refs[MAX_DEVICES];
    print_devices(refs, enumerate_devices(refs, MAX_DEVICES));
}

const char *device_type_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU)
        return "GPU";
    if (t & CL_DEVICE_TYPE_CPU)
        return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR)
        return "accelerator";
    return "device";
}

cl_ulong device_buffer_limit(const bench_device *d)
{
    cl_ulong limit = d->global_mem / 10 * 4;
    return d->max_alloc < limit ? d->max_alloc : limit;
}

cl_ulong device_working_set(const bench_device *d)
{
    cl_ulong target = 4 * d->cache_size;
    cl_ulong floor_bytes = (cl_ulong)256 << 20;
    return target > floor_bytes ? target : floor_bytes;
}
