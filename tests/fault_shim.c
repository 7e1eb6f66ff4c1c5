/* The OpenCL layer of the fault-injection test (see fault_shim.h). Every
 * function here has the signature of the OpenCL function of the same name,
 * so that the library's calls, linked statically into the test program,
 * resolve to it; the real function is found with dlsym(RTLD_NEXT). The
 * definitions are hidden (the project builds with -fvisibility=hidden), so
 * they replace nothing inside the OpenCL runtime itself.
 *
 * tests/check_fault_shim.sh checks that every OpenCL function called in
 * src/ is defined here. */
#include "fault_shim.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    int counting;
    unsigned count;
    unsigned fail_at[FAULT_MAX_FAILURES];
    size_t nfail;
    unsigned failures;
    int injected;
    fault_call failed;
    cl_int error;
    fault_call trace[FAULT_TRACE_MAX];
} state;

static struct {
    atomic_long mem, event, kernel, program, queue, context;
} live;

void fault_start_many(const unsigned *fail_at, size_t n)
{
    if (n > FAULT_MAX_FAILURES) {
        fprintf(stderr, "fault_shim: at most %d failures per call\n", FAULT_MAX_FAILURES);
        abort();
    }
    state.counting = 1;
    state.count = 0;
    for (size_t i = 0; i < n; i++)
        state.fail_at[i] = fail_at[i];
    state.nfail = n;
    state.failures = 0;
    state.injected = 0;
    state.failed.function = NULL;
    state.failed.site = NULL;
    state.error = CL_SUCCESS;
}

void fault_start(unsigned fail_at)
{
    fault_start_many(&fail_at, fail_at ? 1 : 0);
}

unsigned fault_stop(void)
{
    state.counting = 0;
    state.nfail = 0;
    return state.count;
}

unsigned fault_failures(void)
{
    return state.failures;
}

size_t fault_trace(const fault_call **calls)
{
    *calls = state.trace;
    return state.count < FAULT_TRACE_MAX ? state.count : FAULT_TRACE_MAX;
}

int fault_injected(fault_call *call, cl_int *error)
{
    if (state.injected) {
        *call = state.failed;
        *error = state.error;
    }
    return state.injected;
}

void fault_live(fault_objects *out)
{
    out->mem = atomic_load(&live.mem);
    out->event = atomic_load(&live.event);
    out->kernel = atomic_load(&live.kernel);
    out->program = atomic_load(&live.program);
    out->queue = atomic_load(&live.queue);
    out->context = atomic_load(&live.context);
}

/* What a runtime returns when it runs out of something at that call, or,
 * for the calls that wait on earlier commands, when one of those failed. */
cl_int fault_error_of(const char *function)
{
    static const struct {
        const char *function;
        cl_int error;
    } table[] = {
        {"clCreateBuffer", CL_MEM_OBJECT_ALLOCATION_FAILURE},
        {"clBuildProgram", CL_BUILD_PROGRAM_FAILURE},
        {"clCreateProgramWithBinary", CL_INVALID_BINARY},
        {"clCreateKernel", CL_OUT_OF_RESOURCES},
        {"clSetKernelArg", CL_OUT_OF_RESOURCES},
        {"clEnqueueReadBuffer", CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST},
        {"clEnqueueReadBufferRect", CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST},
        {"clWaitForEvents", CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST},
        {"clFinish", CL_OUT_OF_RESOURCES},
        {"clFlush", CL_OUT_OF_RESOURCES},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(function, table[i].function) == 0)
            return table[i].error;
    if (strncmp(function, "clEnqueue", 9) == 0)
        return CL_OUT_OF_RESOURCES;
    /* clGet*Info, clCreateContext, clCreateCommandQueue, clCreateProgram-
     * WithSource, clGetPlatformIDs, clGetDeviceIDs, clCreateUserEvent. */
    return CL_OUT_OF_HOST_MEMORY;
}

/* Counts a call; true when it is the one to fail. Only counts between
 * fault_start() and fault_stop(). */
static int should_fail(const char *function, const void *site)
{
    if (!state.counting)
        return 0;
    unsigned n = ++state.count;
    if (n <= FAULT_TRACE_MAX) {
        state.trace[n - 1].function = function;
        state.trace[n - 1].site = site;
        state.trace[n - 1].size = 0;
    }
    size_t i = 0;
    while (i < state.nfail && state.fail_at[i] != n)
        i++;
    if (i == state.nfail)
        return 0;
    state.failures++;
    if (!state.injected) {
        state.injected = 1;
        state.failed.function = function;
        state.failed.site = site;
        state.error = fault_error_of(function);
    }
    return 1;
}

/* The real function: the next definition after this program's, or, where
 * the linker dropped the OpenCL library because this file defines all that
 * the program uses of it, the one in the OpenCL library loaded here. */
static void *resolve(const char *function)
{
    static void *opencl;
    void *p = dlsym(RTLD_NEXT, function);
    if (!p) {
        if (!opencl)
            opencl = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
        if (opencl)
            p = dlsym(opencl, function);
    }
    if (!p) {
        fprintf(stderr, "fault_shim: %s not found in the OpenCL library: %s\n", function,
                dlerror());
        abort();
    }
    return p;
}

#define REAL(fn) ((__typeof__(&fn))resolve(#fn))
#define SITE __builtin_return_address(0)
/* Fails the call with the function's error through errcode_ret. */
#define FAIL_CREATE(fn, errcode_ret)                                                         \
    do {                                                                                     \
        if (should_fail(#fn, SITE)) {                                                        \
            if (errcode_ret)                                                                 \
                *(errcode_ret) = fault_error_of(#fn);                                        \
            return NULL;                                                                     \
        }                                                                                    \
    } while (0)
/* Fails the call with the function's error as its return value. */
#define FAIL_STATUS(fn)                                                                      \
    do {                                                                                     \
        if (should_fail(#fn, SITE))                                                          \
            return fault_error_of(#fn);                                                      \
    } while (0)

/* Returns the object a create function made, counted if there is one. */
static void *count_created(atomic_long *counter, void *object)
{
    if (object)
        atomic_fetch_add(counter, 1);
    return object;
}

static cl_int count_change(atomic_long *counter, cl_int err, long by)
{
    if (err == CL_SUCCESS)
        atomic_fetch_add(counter, by);
    return err;
}

static cl_int count_event(cl_int err, const cl_event *event)
{
    if (err == CL_SUCCESS && event)
        atomic_fetch_add(&live.event, 1);
    return err;
}

/* Wrappers of whole families of functions. Every definition below names
 * its OpenCL function on its first line, where tests/check_fault_shim.sh
 * looks for it. */

/* cl_int fn(object, param_name, param_value_size, param_value,
 * param_value_size_ret): a clGet*Info function, failed as FAIL_STATUS says. */
#define INFO_FUNCTION(fn, object_type, info_type)                                            \
    cl_int fn(object_type object, info_type param_name, size_t param_value_size,             \
              void *param_value, size_t *param_value_size_ret)                               \
    {                                                                                        \
        FAIL_STATUS(fn);                                                                     \
        return REAL(fn)(object, param_name, param_value_size, param_value,                   \
                        param_value_size_ret);                                               \
    }

/* The same for the clGet*Info functions that ask about an object on a
 * device: fn(object, device, param_name, ...). */
#define DEVICE_INFO_FUNCTION(fn, object_type, info_type)                                     \
    cl_int fn(object_type object, cl_device_id device, info_type param_name,                 \
              size_t param_value_size, void *param_value, size_t *param_value_size_ret)      \
    {                                                                                        \
        FAIL_STATUS(fn);                                                                     \
        return REAL(fn)(object, device, param_name, param_value_size, param_value,           \
                        param_value_size_ret);                                               \
    }

/* cl_int retain(object) and cl_int release(object), counted in
 * live.counter when they succeed; never failed. */
#define REFERENCE_FUNCTIONS(retain, release, object_type, counter)                           \
    cl_int retain(object_type object)                                                        \
    {                                                                                        \
        return count_change(&live.counter, REAL(retain)(object), 1);                         \
    }                                                                                        \
    cl_int release(object_type object)                                                       \
    {                                                                                        \
        return count_change(&live.counter, REAL(release)(object), -1);                       \
    }

/* cl_int fn(params..., num_events_in_wait_list, event_wait_list, event): an
 * enqueue function, failed as FAIL_STATUS says; the event it makes is
 * counted. `params` are the parameters before the wait list, in
 * parentheses, and `args` their names. */
#define ENQUEUE_FUNCTION(fn, params, args)                                                   \
    cl_int fn(SPLICE params, cl_uint num_events_in_wait_list,                                \
              const cl_event *event_wait_list, cl_event *event)                              \
    {                                                                                        \
        FAIL_STATUS(fn);                                                                     \
        return count_event(                                                                  \
            REAL(fn)(SPLICE args, num_events_in_wait_list, event_wait_list, event), event);  \
    }
#define SPLICE(...) __VA_ARGS__

/* ---- platforms, devices, contexts ---------------------------------------- */

cl_int clGetPlatformIDs(cl_uint num_entries, cl_platform_id *platforms, cl_uint *num_platforms)
{
    FAIL_STATUS(clGetPlatformIDs);
    return REAL(clGetPlatformIDs)(num_entries, platforms, num_platforms);
}

INFO_FUNCTION(clGetPlatformInfo, cl_platform_id, cl_platform_info)

cl_int clGetDeviceIDs(cl_platform_id platform, cl_device_type device_type, cl_uint num_entries,
                      cl_device_id *devices, cl_uint *num_devices)
{
    FAIL_STATUS(clGetDeviceIDs);
    return REAL(clGetDeviceIDs)(platform, device_type, num_entries, devices, num_devices);
}

INFO_FUNCTION(clGetDeviceInfo, cl_device_id, cl_device_info)

cl_int clRetainDevice(cl_device_id device)
{
    return REAL(clRetainDevice)(device);
}

cl_int clReleaseDevice(cl_device_id device)
{
    return REAL(clReleaseDevice)(device);
}

cl_context clCreateContext(const cl_context_properties *properties, cl_uint num_devices,
                           const cl_device_id *devices,
                           void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t,
                                                         void *),
                           void *user_data, cl_int *errcode_ret)
{
    FAIL_CREATE(clCreateContext, errcode_ret);
    return count_created(&live.context, REAL(clCreateContext)(properties, num_devices, devices,
                                                              pfn_notify, user_data, errcode_ret));
}

INFO_FUNCTION(clGetContextInfo, cl_context, cl_context_info)

REFERENCE_FUNCTIONS(clRetainContext, clReleaseContext, cl_context, context)

/* ---- queues ---------------------------------------------------------------- */

cl_command_queue clCreateCommandQueue(cl_context context, cl_device_id device,
                                      cl_command_queue_properties properties,
                                      cl_int *errcode_ret)
{
    FAIL_CREATE(clCreateCommandQueue, errcode_ret);
    return count_created(&live.queue,
                         REAL(clCreateCommandQueue)(context, device, properties, errcode_ret));
}

INFO_FUNCTION(clGetCommandQueueInfo, cl_command_queue, cl_command_queue_info)

REFERENCE_FUNCTIONS(clRetainCommandQueue, clReleaseCommandQueue, cl_command_queue, queue)

cl_int clFlush(cl_command_queue command_queue)
{
    FAIL_STATUS(clFlush);
    return REAL(clFlush)(command_queue);
}

cl_int clFinish(cl_command_queue command_queue)
{
    FAIL_STATUS(clFinish);
    return REAL(clFinish)(command_queue);
}

/* ---- memory objects -------------------------------------------------------- */

cl_mem clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void *host_ptr,
                      cl_int *errcode_ret)
{
    unsigned n = state.count + 1;
    int fail = should_fail("clCreateBuffer", SITE);
    if (state.counting && n <= FAULT_TRACE_MAX)
        state.trace[n - 1].size = size;
    if (fail) {
        if (errcode_ret)
            *errcode_ret = fault_error_of("clCreateBuffer");
        return NULL;
    }
    return count_created(&live.mem,
                         REAL(clCreateBuffer)(context, flags, size, host_ptr, errcode_ret));
}

cl_mem clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags, cl_buffer_create_type type,
                         const void *info, cl_int *errcode_ret)
{
    FAIL_CREATE(clCreateSubBuffer, errcode_ret);
    return count_created(&live.mem,
                         REAL(clCreateSubBuffer)(buffer, flags, type, info, errcode_ret));
}

INFO_FUNCTION(clGetMemObjectInfo, cl_mem, cl_mem_info)

REFERENCE_FUNCTIONS(clRetainMemObject, clReleaseMemObject, cl_mem, mem)

/* ---- programs and kernels ---------------------------------------------------- */

cl_program clCreateProgramWithSource(cl_context context, cl_uint count, const char **strings,
                                     const size_t *lengths, cl_int *errcode_ret)
{
    FAIL_CREATE(clCreateProgramWithSource, errcode_ret);
    return count_created(&live.program, REAL(clCreateProgramWithSource)(context, count, strings,
                                                                        lengths, errcode_ret));
}

cl_program clCreateProgramWithBinary(cl_context context, cl_uint num_devices,
                                     const cl_device_id *device_list, const size_t *lengths,
                                     const unsigned char **binaries, cl_int *binary_status,
                                     cl_int *errcode_ret)
{
    if (should_fail("clCreateProgramWithBinary", SITE)) {
        for (cl_uint i = 0; binary_status && i < num_devices; i++)
            binary_status[i] = CL_INVALID_BINARY;
        if (errcode_ret)
            *errcode_ret = fault_error_of("clCreateProgramWithBinary");
        return NULL;
    }
    return count_created(&live.program,
                         REAL(clCreateProgramWithBinary)(context, num_devices, device_list, lengths,
                                                         binaries, binary_status, errcode_ret));
}

cl_int clBuildProgram(cl_program program, cl_uint num_devices, const cl_device_id *device_list,
                      const char *options,
                      void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data)
{
    FAIL_STATUS(clBuildProgram);
    return REAL(clBuildProgram)(program, num_devices, device_list, options, pfn_notify,
                                user_data);
}

INFO_FUNCTION(clGetProgramInfo, cl_program, cl_program_info)

DEVICE_INFO_FUNCTION(clGetProgramBuildInfo, cl_program, cl_program_build_info)

REFERENCE_FUNCTIONS(clRetainProgram, clReleaseProgram, cl_program, program)

cl_kernel clCreateKernel(cl_program program, const char *kernel_name, cl_int *errcode_ret)
{
    FAIL_CREATE(clCreateKernel, errcode_ret);
    return count_created(&live.kernel, REAL(clCreateKernel)(program, kernel_name, errcode_ret));
}

cl_int clSetKernelArg(cl_kernel kernel, cl_uint arg_index, size_t arg_size,
                      const void *arg_value)
{
    FAIL_STATUS(clSetKernelArg);
    return REAL(clSetKernelArg)(kernel, arg_index, arg_size, arg_value);
}

INFO_FUNCTION(clGetKernelInfo, cl_kernel, cl_kernel_info)

DEVICE_INFO_FUNCTION(clGetKernelWorkGroupInfo, cl_kernel, cl_kernel_work_group_info)

REFERENCE_FUNCTIONS(clRetainKernel, clReleaseKernel, cl_kernel, kernel)

/* ---- events ------------------------------------------------------------------ */

cl_int clWaitForEvents(cl_uint num_events, const cl_event *event_list)
{
    FAIL_STATUS(clWaitForEvents);
    return REAL(clWaitForEvents)(num_events, event_list);
}

INFO_FUNCTION(clGetEventInfo, cl_event, cl_event_info)

INFO_FUNCTION(clGetEventProfilingInfo, cl_event, cl_profiling_info)

cl_event clCreateUserEvent(cl_context context, cl_int *errcode_ret)
{
    FAIL_CREATE(clCreateUserEvent, errcode_ret);
    return count_created(&live.event, REAL(clCreateUserEvent)(context, errcode_ret));
}

cl_int clSetUserEventStatus(cl_event event, cl_int execution_status)
{
    FAIL_STATUS(clSetUserEventStatus);
    return REAL(clSetUserEventStatus)(event, execution_status);
}

REFERENCE_FUNCTIONS(clRetainEvent, clReleaseEvent, cl_event, event)

/* ---- commands ------------------------------------------------------------------ */

ENQUEUE_FUNCTION(clEnqueueReadBuffer,
                 (cl_command_queue command_queue, cl_mem buffer, cl_bool blocking_read,
                  size_t offset, size_t size, void *ptr),
                 (command_queue, buffer, blocking_read, offset, size, ptr))

ENQUEUE_FUNCTION(clEnqueueReadBufferRect,
                 (cl_command_queue command_queue, cl_mem buffer, cl_bool blocking_read,
                  const size_t *buffer_origin, const size_t *host_origin, const size_t *region,
                  size_t buffer_row_pitch, size_t buffer_slice_pitch, size_t host_row_pitch,
                  size_t host_slice_pitch, void *ptr),
                 (command_queue, buffer, blocking_read, buffer_origin, host_origin, region,
                  buffer_row_pitch, buffer_slice_pitch, host_row_pitch, host_slice_pitch, ptr))

ENQUEUE_FUNCTION(clEnqueueWriteBuffer,
                 (cl_command_queue command_queue, cl_mem buffer, cl_bool blocking_write,
                  size_t offset, size_t size, const void *ptr),
                 (command_queue, buffer, blocking_write, offset, size, ptr))

ENQUEUE_FUNCTION(clEnqueueCopyBuffer,
                 (cl_command_queue command_queue, cl_mem src_buffer, cl_mem dst_buffer,
                  size_t src_offset, size_t dst_offset, size_t size),
                 (command_queue, src_buffer, dst_buffer, src_offset, dst_offset, size))

ENQUEUE_FUNCTION(clEnqueueFillBuffer,
                 (cl_command_queue command_queue, cl_mem buffer, const void *pattern,
                  size_t pattern_size, size_t offset, size_t size),
                 (command_queue, buffer, pattern, pattern_size, offset, size))

ENQUEUE_FUNCTION(clEnqueueNDRangeKernel,
                 (cl_command_queue command_queue, cl_kernel kernel, cl_uint work_dim,
                  const size_t *global_work_offset, const size_t *global_work_size,
                  const size_t *local_work_size),
                 (command_queue, kernel, work_dim, global_work_offset, global_work_size,
                  local_work_size))

ENQUEUE_FUNCTION(clEnqueueMarkerWithWaitList, (cl_command_queue command_queue), (command_queue))

ENQUEUE_FUNCTION(clEnqueueBarrierWithWaitList, (cl_command_queue command_queue), (command_queue))
