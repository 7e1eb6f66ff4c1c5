/* Reductions: check the request, plan the launches, build (or find) the
 * kernels, then enqueue them as one chain of events. Everything that can fail
 * for a reason other than the OpenCL runtime is checked before the first
 * command is enqueued. */
#include <float.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"




/* Everything a call needs to know, decided before anything is enqueued. */
typedef struct plan {
    clreduce_op op;
    clreduce_type type;
    clreduce_variant variant; /* resolved, never AUTO */
    size_t element_size;
    tuning t;
    clreduce_subgroup_path path; /* used by this variant's kernel */
    int atomic_kind;
} plan;

static clreduce_status make_plan(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                                 clreduce_variant variant, plan *p)
{
    if ((unsigned)op > CLREDUCE_OP_MAX)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown op %d", (int)op);
    if ((unsigned)type > CLREDUCE_UINT64)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown type %d", (int)type);
    if ((unsigned)variant >= CLREDUCE_VARIANT_COUNT)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown variant %d", (int)variant);
    if (type == CLREDUCE_DOUBLE && !ctx->info.has_fp64)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "double needs cl_khr_fp64, which device \"%s\" lacks", ctx->info.name);

    memset(p, 0, sizeof *p);
    p->op = op;
    p->type = type;
    p->variant = variant == CLREDUCE_AUTO ? clreduce_auto_variant(ctx, type) : variant;
    p->element_size = clreduce_type_size(type);
    p->t = *CONTEXT_TUNING(ctx, p->element_size);

    const char *lacks = "";
    int usable = path_usable(ctx, ctx->subgroup_path, &lacks);
    switch (p->variant) {
    case CLREDUCE_SUBGROUP_TAIL:
    case CLREDUCE_SUBGROUP:
        if (!usable)
            return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                             "variant %s needs sub-groups (path %s): device \"%s\" lacks %s",
                             clreduce_variant_name(p->variant),
                             clreduce_subgroup_path_name(ctx->subgroup_path), ctx->info.name,
                             lacks);
        p->path = ctx->subgroup_path;
        break;
    case CLREDUCE_UNROLLED:
        p->path = usable && ctx->subgroup_path == CLREDUCE_SUBGROUP_PATH_NV_PTX
                      ? CLREDUCE_SUBGROUP_PATH_NV_PTX
                      : CLREDUCE_SUBGROUP_PATH_NONE;
        break;
    case CLREDUCE_GRID_STRIDE:
    case CLREDUCE_ATOMIC:
    case CLREDUCE_SINGLE_PASS:
        p->path = usable ? ctx->subgroup_path : CLREDUCE_SUBGROUP_PATH_NONE;
        break;
    default:
        p->path = CLREDUCE_SUBGROUP_PATH_NONE;
        break;
    }

    if (p->variant == CLREDUCE_ATOMIC) {
        int is64 = p->element_size == 8;
        int is_float = type == CLREDUCE_FLOAT || type == CLREDUCE_DOUBLE;
        if (is64 && !ctx->info.has_int64_atomics && !(is_float && op == CLREDUCE_OP_SUM &&
                                                     ctx->info.vendor == VENDOR_NVIDIA))
            return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                             "variant atomic on %s needs cl_khr_int64_base_atomics, which device "
                             "\"%s\" lacks",
                             clreduce_type_name(type), ctx->info.name);
        if (is_float && op == CLREDUCE_OP_SUM && ctx->info.vendor == VENDOR_NVIDIA)
            p->atomic_kind = 2;
        else if (!is_float && (!is64 || op == CLREDUCE_OP_SUM))
            p->atomic_kind = 1;
        else
            p->atomic_kind = 0;
    }
    return CLREDUCE_SUCCESS;
}

clreduce_variant clreduce_auto_variant(const clreduce_ctx *ctx, clreduce_type type)
{
    (void)type;
    if (!ctx)
        return CLREDUCE_GRID_STRIDE;
    /* The single pass needs stores of one work-group to be visible to another
     * after a fence: NVIDIA (PTX membar.gl), CPUs (coherent caches), and
     * devices with device-scope acquire-release fences (OpenCL C 2.0, or 3.0
     * where the device has them). Others take the two-launch grid stride. */
    if (ctx->fence_kind != 0 || (ctx->info.type & CL_DEVICE_TYPE_CPU))
        return CLREDUCE_SINGLE_PASS;
    return CLREDUCE_GRID_STRIDE;
}

clreduce_status clreduce_check_support(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                                       clreduce_variant variant)
{
    clear_error(ctx);
    if (!ctx)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "ctx is NULL");
    plan p;
    return make_plan(ctx, op, type, variant, &p);
}

/* Build options for the kernel of plan p; the program cache's key. */
static void kernel_options(const clreduce_ctx *ctx, const plan *p, char *out, size_t size)
{
    int khr = p->path >= CLREDUCE_SUBGROUP_PATH_SHUFFLE_RELATIVE;
    int needs_std = khr || (p->variant == CLREDUCE_SINGLE_PASS && ctx->fence_kind == 1);
    snprintf(out, size,
             "-DCLR_TYPE=%d -DCLR_OP=%d -DCLR_VARIANT=%d -DCLR_WG=%zu -DCLR_SG_PATH=%d "
             "-DCLR_WARP=%u -DCLR_VEC=%u -DCLR_UNROLL=%u -DCLR_SEGMENTED=%d -DCLR_NV_LOAD=%d "
             "-DCLR_FENCE=%d -DCLR_ATOMIC=%d %s %s",
             kernel_type(p->op, p->type), (int)p->op, (int)p->variant, p->t.work_group_size,
             (int)p->path, ctx->info.nv_warp_size ? ctx->info.nv_warp_size : 32,
             p->t.vector_width, p->t.loads_per_work_item, p->t.segmented,
             p->t.nv_load, ctx->fence_kind,
             p->atomic_kind, needs_std ? ctx->cl_std_option : "",
             ctx->settings.build_options ? ctx->settings.build_options : "");
}


/* Work-groups for the grid-sized variants: enough to cover n once with every
 * load of every work-item, at most the tuning's groups per compute unit. */
static size_t grid_groups(const clreduce_ctx *ctx, const plan *p, size_t n)
{
    size_t per_group = p->t.work_group_size * p->t.vector_width * p->t.loads_per_work_item;
    size_t cap = (size_t)ctx->info.compute_units * p->t.groups_per_compute_unit;
    size_t groups = div_up(n, per_group);
    if (groups > cap)
        groups = cap;
    return groups ? groups : 1;
}

static size_t single_pass_scratch_size(const clreduce_ctx *ctx)
{
    /* Enough partials for the largest grid any setting allows (64 groups per
     * compute unit) of the widest type, so the size never changes. */
    return CLREDUCE_SINGLE_PASS_SCRATCH_HEADER + (size_t)ctx->info.compute_units * 64 * 8;
}







/* Sets the result element to the operator's identity (count 0, and the
 * starting value of the atomic variant). */
static clreduce_status enqueue_identity(clreduce_ctx *ctx, chain *c, const plan *p, cl_mem result,
                                        size_t result_offset)
{
    unsigned char identity[8];
    identity_value(p->op, p->type, identity);
    return enqueue_fill(ctx, c, result, identity, p->element_size,
                        result_offset * p->element_size, p->element_size);
}

static clreduce_status enqueue_kernel(clreduce_ctx *ctx, chain *c, cached_kernel *k,
                                      size_t work_group_size, size_t groups, cl_mem in,
                                      size_t in_off, size_t n, cl_mem out, size_t out_off,
                                      cl_mem scratch)
{
    cl_ulong in_off64 = in_off, n64 = n, out_off64 = out_off;
    kernel_arg args[] = {ARG(in), ARG(in_off64), ARG(n64), ARG(out), ARG(out_off64),
                         ARG(scratch)};
    return enqueue_kernel_args(ctx, c, k, 0, groups, work_group_size, args, scratch ? 6 : 5);
}

static clreduce_status get_kernel(clreduce_ctx *ctx, const plan *p, cached_kernel **k)
{
    char options[1536];
    kernel_options(ctx, p, options, sizeof options);
    /* No check of CL_KERNEL_WORK_GROUP_SIZE: NVIDIA reports 256 for kernels
     * whose reqd_work_group_size is 512 or 1024, and runs them; a size the
     * device cannot run fails at enqueue with CL_INVALID_WORK_GROUP_SIZE. */
    static const char *const name = "clr_reduce";
    return program_cache_get(ctx, options, &name, 1, k);
}



/* Variants 1 to 6: passes of the same kernel until one value is left. The
 * partial results of every pass but the last share one temporary buffer. */
static clreduce_status enqueue_multi_pass(clreduce_ctx *ctx, chain *c, const plan *p,
                                          cached_kernel *k, cl_mem input, size_t offset,
                                          size_t count, cl_mem result, size_t result_offset)
{
    size_t wg = p->t.work_group_size;
    size_t per_group = p->variant <= CLREDUCE_SEQUENTIAL ? wg : 2 * wg;
    size_t temp_count = 0;
    for (size_t n = div_up(count, per_group); n > 1; n = div_up(n, per_group))
        temp_count += n;

    cl_mem temp = NULL;
    if (temp_count) {
        cl_int err;
        temp = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, temp_count * p->element_size, NULL,
                              &err);
        if (err != CL_SUCCESS)
            return set_error(ctx, status_from_cl(err),
                             "allocating %zu bytes for partial results failed: %s",
                             temp_count * p->element_size, cl_error_name(err));
    }
    clreduce_status status = CLREDUCE_SUCCESS;
    cl_mem in = input;
    size_t in_off = offset, n = count, temp_used = 0;
    for (;;) {
        size_t groups = div_up(n, per_group);
        int last = groups == 1;
        cl_mem out = last ? result : temp;
        size_t out_off = last ? result_offset : temp_used;
        status = enqueue_kernel(ctx, c, k, wg, groups, in, in_off, n, out, out_off, NULL);
        if (status != CLREDUCE_SUCCESS || last)
            break;
        in = temp;
        in_off = temp_used;
        n = groups;
        temp_used += groups;
    }
    /* Deleted once the commands that use it have completed. */
    if (temp)
        clReleaseMemObject(temp);
    return status;
}

static clreduce_status enqueue_grid(clreduce_ctx *ctx, chain *c, const plan *p, cached_kernel *k,
                                    int in_order, cl_mem input, size_t offset, size_t count,
                                    cl_mem result, size_t result_offset)
{
    size_t wg = p->t.work_group_size;
    size_t groups = grid_groups(ctx, p, count);
    clreduce_status status;
    cl_int err;

    if (p->variant == CLREDUCE_ATOMIC) {
        status = enqueue_identity(ctx, c, p, result, result_offset);
        if (status == CLREDUCE_SUCCESS)
            status = enqueue_kernel(ctx, c, k, wg, groups, input, offset, count, result,
                                    result_offset, NULL);
        return status;
    }

    if (p->variant == CLREDUCE_SINGLE_PASS) {
        cl_mem scratch;
        int needs_zero;
        status = scratch_for_queue(ctx, c->queue, in_order, single_pass_scratch_size(ctx),
                                   &scratch, &needs_zero);
        if (status != CLREDUCE_SUCCESS)
            return status;
        if (needs_zero) {
            cl_uint zero = 0;
            status = enqueue_fill(ctx, c, scratch, &zero, sizeof zero, 0,
                                  CLREDUCE_SINGLE_PASS_SCRATCH_HEADER);
            if (status == CLREDUCE_SUCCESS && in_order)
                scratch_mark_zeroed(ctx, c->queue);
        }
        if (status == CLREDUCE_SUCCESS)
            status = enqueue_kernel(ctx, c, k, wg, groups, input, offset, count, result,
                                    result_offset, scratch);
        clReleaseMemObject(scratch);
        return status;
    }

    /* GRID_STRIDE: partial results, then one work-group over them. */
    if (groups == 1)
        return enqueue_kernel(ctx, c, k, wg, 1, input, offset, count, result, result_offset, NULL);
    cl_mem temp = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, groups * p->element_size, NULL,
                                 &err);
    if (err != CL_SUCCESS)
        return set_error(ctx, status_from_cl(err), "allocating partial results failed: %s",
                         cl_error_name(err));
    status = enqueue_kernel(ctx, c, k, wg, groups, input, offset, count, temp, 0, NULL);
    if (status == CLREDUCE_SUCCESS)
        status = enqueue_kernel(ctx, c, k, wg, 1, temp, 0, groups, result, result_offset, NULL);
    clReleaseMemObject(temp);
    return status;
}

clreduce_status clreduce_reduce_profiled(clreduce_ctx *ctx, cl_command_queue queue,
                                         clreduce_op op, clreduce_type type,
                                         clreduce_variant variant, cl_mem input, size_t offset,
                                         size_t count, cl_mem result, size_t result_offset,
                                         cl_uint num_wait, const cl_event *wait, cl_event *first,
                                         cl_event *done)
{
    clear_error(ctx);
    if (!ctx)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "ctx is NULL");
    clreduce_status status = check_call(ctx, queue, input, result, "result", num_wait, wait);
    if (status != CLREDUCE_SUCCESS)
        return status;
    plan p;
    if ((status = make_plan(ctx, op, type, variant, &p)) != CLREDUCE_SUCCESS)
        return status;

    int in_order = 1;
    size_t in_elems, out_elems;
    if ((status = check_buffers(ctx, queue, input, result, "result", p.element_size, &in_order,
                                &in_elems, &out_elems)) != CLREDUCE_SUCCESS ||
        (status = check_range(ctx, "input", offset, count, in_elems, type)) != CLREDUCE_SUCCESS)
        return status;
    if (result_offset >= out_elems)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "result_offset %zu lies past the end of result (%zu elements of %s)",
                         result_offset, out_elems, clreduce_type_name(type));
    if (input == result && count > 0 && result_offset >= offset && result_offset - offset < count)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "result element %zu lies inside the input range", result_offset);

    chain c = {queue, num_wait, wait, NULL, NULL, 0};
    if (count == 0) {
        status = enqueue_identity(ctx, &c, &p, result, result_offset);
    } else {
        cached_kernel *k;
        status = get_kernel(ctx, &p, &k);
        if (status != CLREDUCE_SUCCESS)
            return status;
        if (p.variant >= CLREDUCE_GRID_STRIDE)
            status = enqueue_grid(ctx, &c, &p, k, in_order, input, offset, count, result,
                                  result_offset);
        else
            status = enqueue_multi_pass(ctx, &c, &p, k, input, offset, count, result,
                                        result_offset);
    }
    if (status != CLREDUCE_SUCCESS) {
        /* A command already enqueued runs regardless; wait for it so that no
         * work of this call is left behind, then drop its events. */
        if (c.count)
            clWaitForEvents(1, &c.last);
        chain_finish(&c, NULL, NULL);
        return status;
    }
    chain_finish(&c, first, done);
    return CLREDUCE_SUCCESS;
}

clreduce_status clreduce_reduce(clreduce_ctx *ctx, cl_command_queue queue, clreduce_op op,
                                clreduce_type type, clreduce_variant variant, cl_mem input,
                                size_t offset, size_t count, cl_mem result, size_t result_offset,
                                cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    return clreduce_reduce_profiled(ctx, queue, op, type, variant, input, offset, count, result,
                                    result_offset, num_wait, wait, NULL, done);
}

clreduce_status clreduce_reduce_host(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                                     clreduce_variant variant, const void *data, size_t count,
                                     void *result)
{
    clear_error(ctx);
    if (!ctx)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "ctx is NULL");
    if (!result || (!data && count > 0))
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "%s is NULL",
                         !result ? "result" : "data");
    plan p;
    clreduce_status status = make_plan(ctx, op, type, variant, &p);
    if (status != CLREDUCE_SUCCESS)
        return status;
    if (count == 0) {
        identity_value(op, type, result);
        return CLREDUCE_SUCCESS;
    }
    if (count > ctx->info.max_alloc_size / p.element_size)
        return set_error(ctx, CLREDUCE_ERROR_OUT_OF_MEMORY,
                         "%zu elements of %s exceed the device's largest allocation "
                         "(CL_DEVICE_MAX_MEM_ALLOC_SIZE = %llu bytes)",
                         count, clreduce_type_name(type),
                         (unsigned long long)ctx->info.max_alloc_size);

    cl_command_queue queue;
    if ((status = context_own_queue(ctx, &queue)) != CLREDUCE_SUCCESS)
        return status;
    cl_int err;
    cl_mem in = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               count * p.element_size, (void *)data, &err);
    if (err != CL_SUCCESS)
        return set_error(ctx, status_from_cl(err), "allocating the input buffer failed: %s",
                         cl_error_name(err));
    cl_mem out = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, p.element_size, NULL, &err);
    if (err != CL_SUCCESS) {
        clReleaseMemObject(in);
        return set_error(ctx, status_from_cl(err), "allocating the result buffer failed: %s",
                         cl_error_name(err));
    }
    cl_event done = NULL;
    status = clreduce_reduce(ctx, queue, op, type, variant, in, 0, count, out, 0, 0, NULL, &done);
    if (status == CLREDUCE_SUCCESS) {
        unsigned char value[8];
        err = clEnqueueReadBuffer(queue, out, CL_TRUE, 0, p.element_size, value, 1, &done, NULL);
        clReleaseEvent(done);
        if (err == CL_SUCCESS)
            memcpy(result, value, p.element_size);
        else
            status = set_error(ctx, status_from_cl(err), "reading the result failed: %s",
                               cl_error_name(err));
    }
    clReleaseMemObject(out);
    clReleaseMemObject(in);
    return status;
}
