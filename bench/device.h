/* clreduce-bench: the OpenCL device: listing and choosing devices, opening
 * one (context and queues), what it is, and the memory limits the benchmark
 * keeps to on it. */
#ifndef CLREDUCE_BENCH_DEVICE_H
#define CLREDUCE_BENCH_DEVICE_H

#include <clreduce/clreduce.h>

typedef struct bench_device {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;       /* in-order, profiling enabled */
    cl_command_queue plain_queue; /* in-order, no profiling: back-to-back batches */
    unsigned platform_index, device_index;
    char name[256];
    char vendor[256];
    char driver[128];
    char device_version[128];
    char platform_name[256];
    char platform_version[256];
    cl_device_type type;
    cl_uint compute_units;
    size_t max_work_group_size;
    cl_ulong max_alloc;
    cl_ulong global_mem;
    cl_ulong cache_size; /* CL_DEVICE_GLOBAL_MEM_CACHE_SIZE */
    int is_cpu;
} bench_device;

/* Opens the device `selector` names ("P:D" or part of a platform or device
 * name, as CLREDUCE_DEVICE; NULL: the first GPU, else the first device).
 * Returns 1; 0 when there is no OpenCL device at all, -1 when none
 * matches (the reason on stderr). An OpenCL failure once the device is
 * found is fatal. */
int device_open(const char *selector, bench_device *d);
void device_close(bench_device *d);

/* Prints every device of every platform in clinfo -l order, the default
 * marked. */
void device_list(void);

/* "GPU", "CPU", "accelerator" or "device". */
const char *device_type_name(cl_device_type type);

/* Bytes the benchmark allows itself in one buffer: the device's largest
 * allocation and 40% of its global memory, whichever is less. */
cl_ulong device_buffer_limit(const bench_device *d);

/* Bytes that inputs are rotated over so that a call reads from memory and
 * not from a cache that still holds the last call's input: four times the
 * device's global memory cache, and at least 256 MiB. */
cl_ulong device_working_set(const bench_device *d);

#endif
