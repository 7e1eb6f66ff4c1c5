/* Pieces shared by the reductions and the scans: element types, the
 * sub-group paths a device can run, checks of the caller's queue and
 * buffers, and chains of commands ordered by events. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* The kernel's element type: signed sums run as unsigned ones (same bits,
 * wrap-around without undefined behaviour). Values are CLR_TYPE's. */
int kernel_type(clreduce_op op, clreduce_type type)
{
    if (op == CLREDUCE_OP_SUM && type == CLREDUCE_INT32)
        return CLREDUCE_UINT32;
    if (op == CLREDUCE_OP_SUM && type == CLREDUCE_INT64)
        return CLREDUCE_UINT64;
    return type;
}

/* Writes the identity of op for type into out (clreduce_type_size bytes). */
void identity_value(clreduce_op op, clreduce_type type, void *out)
{
    union {
        float f;
        double d;
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
    } v;
    memset(&v, 0, sizeof v);
    int lo = op == CLREDUCE_OP_MAX; /* max starts from the lowest value */
    if (op != CLREDUCE_OP_SUM) {
        switch (type) {
        case CLREDUCE_FLOAT: v.f = lo ? -HUGE_VALF : HUGE_VALF; break;
        case CLREDUCE_DOUBLE: v.d = lo ? -HUGE_VAL : HUGE_VAL; break;
        case CLREDUCE_INT32: v.i32 = lo ? INT32_MIN : INT32_MAX; break;
        case CLREDUCE_UINT32: v.u32 = lo ? 0 : UINT32_MAX; break;
        case CLREDUCE_INT64: v.i64 = lo ? INT64_MIN : INT64_MAX; break;
        case CLREDUCE_UINT64: v.u64 = lo ? 0 : UINT64_MAX; break;
        }
    }
    memcpy(out, &v, clreduce_type_size(type));
}

int path_usable(const clreduce_ctx *ctx, clreduce_subgroup_path path, const char **lacks)
{
    const device_info *info = &ctx->info;
    switch (path) {
    case CLREDUCE_SUBGROUP_PATH_NV_PTX:
        *lacks = "an NVIDIA device with 32-wide warps (CL_DEVICE_WARP_SIZE_NV) for inline PTX shfl.sync";
        return info->vendor == VENDOR_NVIDIA && info->nv_warp_size == 32;
    case CLREDUCE_SUBGROUP_PATH_SHUFFLE_RELATIVE:
        *lacks = "cl_khr_subgroup_shuffle_relative";
        return info->has_subgroup_shuffle_relative;
    case CLREDUCE_SUBGROUP_PATH_SHUFFLE:
        *lacks = "cl_khr_subgroup_shuffle";
        return info->has_subgroup_shuffle;
    case CLREDUCE_SUBGROUP_PATH_REDUCE:
        *lacks = "cl_khr_subgroups (or the OpenCL C 3.0 feature __opencl_c_subgroups)";
        return info->has_subgroups;
    default:
        *lacks = "sub-group support (no cl_khr_subgroups, no __opencl_c_subgroups, not an NVIDIA GPU)";
        return 0;
    }
}

size_t div_up(size_t a, size_t b)
{
    return a / b + (a % b != 0);
}


/* Takes ownership of the event of a command just enqueued. `first` holds a
 * reference of its own, so that it outlives the later commands' events. */
void chain_push(chain *c, cl_event ev)
{
    if (c->count == 0) {
        clRetainEvent(ev);
        c->first = ev;
    } else {
        clReleaseEvent(c->last);
    }
    c->last = ev;
    c->count++;
}

cl_uint chain_wait_count(const chain *c)
{
    return c->count ? 1 : c->num_wait;
}

const cl_event *chain_wait_list(const chain *c)
{
    return c->count ? &c->last : (c->num_wait ? c->wait : NULL);
}

/* Hands the events to the caller, or releases them. */
void chain_finish(chain *c, cl_event *first, cl_event *done)
{
    if (c->count == 0)
        return;
    if (done)
        *done = c->last;
    else
        clReleaseEvent(c->last);
    if (first)
        *first = c->first;
    else
        clReleaseEvent(c->first);
}

clreduce_status enqueue_fill(clreduce_ctx *ctx, chain *c, cl_mem buffer, const void *pattern,
                                    size_t pattern_size, size_t offset, size_t size)
{
    cl_event ev;
    cl_int err = clEnqueueFillBuffer(c->queue, buffer, pattern, pattern_size, offset, size,
                                     chain_wait_count(c), chain_wait_list(c), &ev);
    if (err != CL_SUCCESS)
        return set_error(ctx, status_from_cl(err), "clEnqueueFillBuffer failed: %s",
                         cl_error_name(err));
    chain_push(c, ev);
    return CLREDUCE_SUCCESS;
}

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

clreduce_status check_range(clreduce_ctx *ctx, const char *what, size_t offset, size_t count,
                            size_t elems, clreduce_type type)
{
    if (offset > elems || count > elems - offset)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "elements [%zu, %zu + %zu) lie past the end of %s (%zu elements of %s)",
                         offset, offset, count, what, elems, clreduce_type_name(type));
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

clreduce_status check_overlap(clreduce_ctx *ctx, cl_mem input, size_t in_offset, size_t in_count,
                              cl_mem output, const char *output_name, size_t out_offset,
                              size_t out_count, size_t element_size, int allow_same)
{
    if (in_count == 0 || out_count == 0)
        return CLREDUCE_SUCCESS;
    /* One handle needs no query: both ranges are relative to the same
     * origin. */
    size_t in_base = 0, out_base = 0;
    if (input != output) {
        cl_mem in_root, out_root;
        clreduce_status status;
        if ((status = mem_origin(ctx, input, "input", &in_root, &in_base)) != CLREDUCE_SUCCESS ||
            (status = mem_origin(ctx, output, output_name, &out_root, &out_base)) !=
                CLREDUCE_SUCCESS)
            return status;
        if (in_root != out_root)
            return CLREDUCE_SUCCESS;
    }
    /* The ranges lie inside their buffers (check_range), and those inside
     * their root buffer, so none of these sums overflows. */
    size_t in_lo = in_base + in_offset * element_size, in_hi = in_lo + in_count * element_size;
    size_t out_lo = out_base + out_offset * element_size,
           out_hi = out_lo + out_count * element_size;
    if (in_lo >= out_hi || out_lo >= in_hi)
        return CLREDUCE_SUCCESS;
    if (allow_same && in_lo == out_lo && in_hi == out_hi)
        return CLREDUCE_SUCCESS;
    char where[160] = "";
    if (input != output)
        snprintf(where, sizeof where,
                 " (through sub-buffers: bytes [%zu, %zu) and [%zu, %zu) of one buffer)", in_lo,
                 in_hi, out_lo, out_hi);
    if (out_count == 1 && !allow_same)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "%s element %zu overlaps the input range [%zu, +%zu)%s", output_name,
                         out_offset, in_offset, in_count, where);
    return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                     "input [%zu, +%zu) and %s [%zu, +%zu) overlap%s%s", in_offset, in_count,
                     output_name, out_offset, out_count,
                     allow_same ? " without being the same range" : "", where);
}

clreduce_status enqueue_kernel_args(clreduce_ctx *ctx, chain *c, cached_kernel *k, int which,
                                    size_t groups, size_t work_group_size, const kernel_arg *args,
                                    cl_uint nargs)
{
    cl_kernel kernel = k->kernels[which];
    size_t global = groups * work_group_size;
    cl_event ev;
    cl_int err = CL_SUCCESS;
    pthread_mutex_lock(&k->lock);
    for (cl_uint i = 0; i < nargs && err == CL_SUCCESS; i++)
        err = clSetKernelArg(kernel, i, args[i].size, args[i].value);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(c->queue, kernel, 1, NULL, &global, &work_group_size,
                                     chain_wait_count(c), chain_wait_list(c), &ev);
    pthread_mutex_unlock(&k->lock);
    if (err == CL_INVALID_WORK_GROUP_SIZE)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "the device cannot run this kernel with %zu work-items per work-group: "
                         "choose a smaller work_group_size",
                         work_group_size);
    if (err != CL_SUCCESS)
        return set_error(ctx, status_from_cl(err), "enqueueing kernel %d failed: %s", which,
                         cl_error_name(err));
    chain_push(c, ev);
    return CLREDUCE_SUCCESS;
}
