/* Checks of the caller's arguments that need the OpenCL runtime: the queue
 * and buffers belong to this context, ranges lie inside their buffers, and
 * input and output overlap only where the operation allows it. */
#include <stdio.h>

#include "internal.h"

/* A failed query about one of the caller's objects: an invalid handle is
 * the caller's error, anything else (the runtime out of memory) the
 * runtime's. */
static clreduce_status query_failed(clreduce_ctx *ctx, cl_int err, cl_int invalid_handle,
                                    const char *what, const char *kind)
{
    if (err == invalid_handle)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "%s is not a valid %s (%s)", what,
                         kind, cl_error_name(err));
    return set_error(ctx, status_from_cl(err), "querying %s failed: %s", what,
                     cl_error_name(err));
}

/* What is asked about a caller's buffer here is asked on every call, never
 * kept: a handle may name another buffer once the caller has released it,
 * and on NVIDIA's driver a destructor callback cannot be relied on to have run
 * before that. The queries cost nanoseconds there. */
clreduce_status mem_size(clreduce_ctx *ctx, cl_mem mem, const char *what, size_t *size)
{
    cl_context owner = NULL;
    cl_int err = clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof *size, size, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    if (err != CL_SUCCESS)
        return query_failed(ctx, err, CL_INVALID_MEM_OBJECT, what, "buffer");
    if (owner != ctx->context)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "%s belongs to another OpenCL context", what);
    return CLREDUCE_SUCCESS;
}

clreduce_status check_queue(clreduce_ctx *ctx, cl_command_queue queue, int *in_order)
{
    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    cl_command_queue_properties props = 0;
    cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    if (err != CL_SUCCESS)
        return query_failed(ctx, err, CL_INVALID_COMMAND_QUEUE, "queue", "queue");
    if (qctx != ctx->context || qdev != ctx->device)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "queue belongs to another context or device than ctx");
    *in_order = !(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    return CLREDUCE_SUCCESS;
}

clreduce_status check_call(clreduce_ctx *ctx, cl_command_queue queue, cl_mem input, cl_mem output,
                           const char *output_name, cl_uint num_wait, const cl_event *wait)
{
    if (!queue || !input || !output)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "%s is NULL",
                         !queue ? "queue" : !input ? "input" : output_name);
    if ((num_wait > 0) != (wait != NULL))
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "num_wait is %u but wait is %s",
                         num_wait, wait ? "not NULL" : "NULL");
    return CLREDUCE_SUCCESS;
}

clreduce_status check_buffers(clreduce_ctx *ctx, cl_command_queue queue, cl_mem input,
                              cl_mem output, const char *output_name, size_t element_size,
                              int *in_order, size_t *in_elems, size_t *out_elems)
{
    size_t in_size, out_size;
    clreduce_status status;
    if ((status = check_queue(ctx, queue, in_order)) != CLREDUCE_SUCCESS ||
        (status = mem_size(ctx, input, "input", &in_size)) != CLREDUCE_SUCCESS ||
        (status = mem_size(ctx, output, output_name, &out_size)) != CLREDUCE_SUCCESS)
        return status;
    *in_elems = in_size / element_size;
    *out_elems = out_size / element_size;
    return CLREDUCE_SUCCESS;
}

clreduce_status check_range(clreduce_ctx *ctx, const char *what, const char *offset_name,
                            size_t offset, size_t count, size_t elems, clreduce_type type)
{
    if (offset > elems || count > elems - offset)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "%s %zu: elements [%zu, %zu + %zu) lie past the end of %s (%zu elements "
                         "of %s)",
                         offset_name, offset, offset, offset, count, what, elems,
                         clreduce_type_name(type));
    return CLREDUCE_SUCCESS;
}

clreduce_status check_result_range(clreduce_ctx *ctx, const char *what, const char *offset_name,
                                   size_t offset, size_t count, size_t results,
                                   size_t result_size)
{
    if (offset > results || count > results - offset)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "%s %zu: results [%zu, %zu + %zu) lie past the end of %s (%zu results "
                         "of %zu bytes)",
                         offset_name, offset, offset, offset, count, what, results, result_size);
    return CLREDUCE_SUCCESS;
}

/* Where a caller's buffer lies: the buffer that holds its storage and the
 * byte offset of its first byte there. Buffers are compared this way
 * because two handles (a sub-buffer and its parent, two sub-buffers of one
 * buffer) can reach the same bytes. OpenCL allows no sub-buffer of a
 * sub-buffer, but following the whole chain does not rely on that. */
static clreduce_status mem_origin(clreduce_ctx *ctx, cl_mem mem, const char *what, cl_mem *root,
                                  size_t *offset)
{
    size_t total = 0;
    for (;;) {
        cl_mem parent = NULL;
        size_t origin = 0;
        cl_int err = clGetMemObjectInfo(mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent,
                                        NULL);
        if (err == CL_SUCCESS && parent)
            err = clGetMemObjectInfo(mem, CL_MEM_OFFSET, sizeof origin, &origin, NULL);
        if (err != CL_SUCCESS)
            return query_failed(ctx, err, CL_INVALID_MEM_OBJECT, what, "buffer");
        if (!parent)
            break;
        total += origin;
        mem = parent;
    }
    *root = mem;
    *offset = total;
    return CLREDUCE_SUCCESS;
}

int same_place(clreduce_ctx *ctx, cl_mem a, size_t a_at, cl_mem b, size_t b_at)
{
    if (a == b)
        return a_at == b_at;
    cl_mem a_root, b_root;
    size_t a_base, b_base;
    if (mem_origin(ctx, a, "a", &a_root, &a_base) != CLREDUCE_SUCCESS ||
        mem_origin(ctx, b, "b", &b_root, &b_base) != CLREDUCE_SUCCESS) {
        clear_error(ctx);
        return 1;
    }
    return a_root == b_root && a_base + a_at == b_base + b_at;
}

clreduce_status check_overlap(clreduce_ctx *ctx, cl_mem input, const char *input_name,
                              size_t in_offset, size_t in_count, size_t in_size, cl_mem output,
                              const char *output_name, size_t out_offset, size_t out_count,
                              size_t out_size, int *same)
{
    int allow_same = same != NULL;
    if (same)
        *same = 0;
    if (in_count == 0 || out_count == 0)
        return CLREDUCE_SUCCESS;
    /* One handle needs no query: both ranges are relative to the same
     * origin. */
    size_t in_base = 0, out_base = 0;
    if (input != output) {
        cl_mem in_root, out_root;
        clreduce_status status;
        if ((status = mem_origin(ctx, input, input_name, &in_root, &in_base)) !=
                CLREDUCE_SUCCESS ||
            (status = mem_origin(ctx, output, output_name, &out_root, &out_base)) !=
                CLREDUCE_SUCCESS)
            return status;
        if (in_root != out_root)
            return CLREDUCE_SUCCESS;
    }
    /* The ranges lie inside their buffers (check_range), and those inside
     * their root buffer, so none of these sums overflows. */
    size_t in_lo = in_base + in_offset * in_size, in_hi = in_lo + in_count * in_size;
    size_t out_lo = out_base + out_offset * out_size, out_hi = out_lo + out_count * out_size;
    if (in_lo >= out_hi || out_lo >= in_hi)
        return CLREDUCE_SUCCESS;
    if (allow_same && in_lo == out_lo && in_hi == out_hi) {
        *same = 1;
        return CLREDUCE_SUCCESS;
    }
    char where[160] = "";
    if (input != output)
        snprintf(where, sizeof where,
                 " (through sub-buffers: bytes [%zu, %zu) and [%zu, %zu) of one buffer)", in_lo,
                 in_hi, out_lo, out_hi);
    if (out_count == 1 && !allow_same)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "%s element %zu overlaps the %s range [%zu, +%zu)%s", output_name,
                         out_offset, input_name, in_offset, in_count, where);
    return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                     "%s [%zu, +%zu) and %s [%zu, +%zu) overlap%s%s", input_name, in_offset,
                     in_count, output_name, out_offset, out_count,
                     allow_same ? " without being the same range" : "", where);
}

clreduce_status check_disjoint(clreduce_ctx *ctx, cl_mem a, const char *a_name, size_t a_at,
                               size_t a_bytes, cl_mem b, const char *b_name, size_t b_at,
                               size_t b_bytes)
{
    if (a_bytes == 0 || b_bytes == 0)
        return CLREDUCE_SUCCESS;
    size_t a_base = 0, b_base = 0;
    if (a != b) {
        cl_mem a_root, b_root;
        clreduce_status status;
        if ((status = mem_origin(ctx, a, a_name, &a_root, &a_base)) != CLREDUCE_SUCCESS ||
            (status = mem_origin(ctx, b, b_name, &b_root, &b_base)) != CLREDUCE_SUCCESS)
            return status;
        if (a_root != b_root)
            return CLREDUCE_SUCCESS;
    }
    size_t a_lo = a_base + a_at, a_hi = a_lo + a_bytes;
    size_t b_lo = b_base + b_at, b_hi = b_lo + b_bytes;
    if (a_lo >= b_hi || b_lo >= a_hi)
        return CLREDUCE_SUCCESS;
    return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                     "%s (bytes [%zu, %zu)) and %s (bytes [%zu, %zu)) overlap%s", a_name, a_at,
                     a_at + a_bytes, b_name, b_at, b_at + b_bytes,
                     a != b ? " where they lie in memory (through sub-buffers)" : "");
}
