/* Failure messages, kept per thread so that threads sharing a context do not
 * overwrite each other's. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define ERROR_TEXT_SIZE 16384

static _Thread_local struct {
    const clreduce_ctx *ctx;
    char text[ERROR_TEXT_SIZE];
} last;

clreduce_status set_error(const clreduce_ctx *ctx, clreduce_status status, const char *fmt, ...)
{
    va_list ap;
    last.ctx = ctx;
    va_start(ap, fmt);
    vsnprintf(last.text, sizeof last.text, fmt, ap);
    va_end(ap);
    return status;
}

void append_error(const char *text)
{
    size_t used = strlen(last.text);
    static const char cut[] = "\n[log truncated]";
    if (used >= sizeof last.text - 1)
        return;
    size_t room = sizeof last.text - 1 - used;
    size_t len = strlen(text);
    if (len <= room) {
        memcpy(last.text + used, text, len + 1);
    } else if (room > sizeof cut) {
        memcpy(last.text + used, text, room - (sizeof cut - 1));
        memcpy(last.text + sizeof last.text - sizeof cut, cut, sizeof cut);
    }
}

void clear_error(const clreduce_ctx *ctx)
{
    last.ctx = ctx;
    last.text[0] = '\0';
}

const char *clreduce_last_error(const clreduce_ctx *ctx)
{
    return last.ctx == ctx ? last.text : "";
}

clreduce_status status_from_cl(cl_int err)
{
    switch (err) {
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_HOST_MEMORY:
    case CL_OUT_OF_RESOURCES:
        return CLREDUCE_ERROR_OUT_OF_MEMORY;
    case CL_BUILD_PROGRAM_FAILURE:
    case CL_COMPILER_NOT_AVAILABLE:
        return CLREDUCE_ERROR_BUILD;
    default:
        return CLREDUCE_ERROR_OPENCL;
    }
}

const char *clreduce_opencl_error_name(cl_int error)
{
    return cl_error_name(error);
}

const char *cl_error_name(cl_int err)
{
    switch (err) {
#define CASE(e) case e: return #e;
    CASE(CL_SUCCESS)
    CASE(CL_DEVICE_NOT_FOUND)
    CASE(CL_DEVICE_NOT_AVAILABLE)
    CASE(CL_COMPILER_NOT_AVAILABLE)
    CASE(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    CASE(CL_OUT_OF_RESOURCES)
    CASE(CL_OUT_OF_HOST_MEMORY)
    CASE(CL_PROFILING_INFO_NOT_AVAILABLE)
    CASE(CL_MEM_COPY_OVERLAP)
    CASE(CL_BUILD_PROGRAM_FAILURE)
    CASE(CL_MAP_FAILURE)
    CASE(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    CASE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    CASE(CL_INVALID_VALUE)
    CASE(CL_INVALID_DEVICE_TYPE)
    CASE(CL_INVALID_PLATFORM)
    CASE(CL_INVALID_DEVICE)
    CASE(CL_INVALID_CONTEXT)
    CASE(CL_INVALID_QUEUE_PROPERTIES)
    CASE(CL_INVALID_COMMAND_QUEUE)
    CASE(CL_INVALID_HOST_PTR)
    CASE(CL_INVALID_MEM_OBJECT)
    CASE(CL_INVALID_BINARY)
    CASE(CL_INVALID_BUILD_OPTIONS)
    CASE(CL_INVALID_PROGRAM)
    CASE(CL_INVALID_PROGRAM_EXECUTABLE)
    CASE(CL_INVALID_KERNEL_NAME)
    CASE(CL_INVALID_KERNEL_DEFINITION)
    CASE(CL_INVALID_KERNEL)
    CASE(CL_INVALID_ARG_INDEX)
    CASE(CL_INVALID_ARG_VALUE)
    CASE(CL_INVALID_ARG_SIZE)
    CASE(CL_INVALID_KERNEL_ARGS)
    CASE(CL_INVALID_WORK_DIMENSION)
    CASE(CL_INVALID_WORK_GROUP_SIZE)
    CASE(CL_INVALID_WORK_ITEM_SIZE)
    CASE(CL_INVALID_GLOBAL_OFFSET)
    CASE(CL_INVALID_EVENT_WAIT_LIST)
    CASE(CL_INVALID_EVENT)
    CASE(CL_INVALID_OPERATION)
    CASE(CL_INVALID_BUFFER_SIZE)
    CASE(CL_INVALID_GLOBAL_WORK_SIZE)
#undef CASE
    default:
        return "unknown OpenCL error";
    }
}
