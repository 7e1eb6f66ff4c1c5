/* Prefix scans: check the request, plan the launches, build (or find) the
 * program, then enqueue its kernels as one chain of events. As for the
 * reductions, everything that can fail for a reason other than the OpenCL
 * runtime is checked before the first command is enqueued. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Everything a call needs to know, decided before anything is enqueued. */
typedef struct scan_plan {
    clreduce_op op;
    clreduce_type type;
    clreduce_scan_variant variant; /* resolved, never AUTO */
    size_t element_size;
    tuning t;
    clreduce_subgroup_path path;
} scan_plan;

/* The look-back needs stores of one work-group to become visible to another
 * in order: NVIDIA (PTX release/acquire), OpenCL C 2.0 atomics or 3.0 ones
 * with acquire-release at device scope, or a CPU. */
static int lookback_usable(const clreduce_ctx *ctx)
{
    return ctx->fence_kind != 0 || (ctx->info.type & CL_DEVICE_TYPE_CPU);
}

clreduce_scan_variant clreduce_auto_scan_variant(const clreduce_ctx *ctx, clreduce_type type)
{
    (void)type;
    if (ctx && lookback_usable(ctx))
        return CLREDUCE_SCAN_LOOKBACK;
    return CLREDUCE_SCAN_REDUCE_THEN_SCAN;
}

static clreduce_status make_scan_plan(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                                      clreduce_scan_variant variant, scan_plan *p)
{
    if ((unsigned)op > CLREDUCE_OP_MAX)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown op %d", (int)op);
    if ((unsigned)type > CLREDUCE_UINT64)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown type %d", (int)type);
    if ((unsigned)variant >= CLREDUCE_SCAN_VARIANT_COUNT)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown scan variant %d",
                         (int)variant);
    if (type == CLREDUCE_DOUBLE && !ctx->info.has_fp64)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "double needs cl_khr_fp64, which device \"%s\" lacks", ctx->info.name);
    memset(p, 0, sizeof *p);
    p->op = op;
    p->type = type;
    p->variant = variant == CLREDUCE_SCAN_AUTO ? clreduce_auto_scan_variant(ctx, type) : variant;
    p->element_size = clreduce_type_size(type);
    p->t = *CONTEXT_TUNING(ctx, p->element_size);
    if (p->variant == CLREDUCE_SCAN_LOOKBACK && !lookback_usable(ctx))
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "scan variant lookback needs a device that orders memory between "
                         "work-groups (an NVIDIA GPU, OpenCL C 2.0, OpenCL C 3.0 with "
                         "acquire-release atomics at device scope, or a CPU); device \"%s\" "
                         "has OpenCL C %u.%u",
                         ctx->info.name, ctx->info.clc_major, ctx->info.clc_minor);
    /* The tiled variants use sub-groups where the device has them; the two
     * classics work in local memory only. */
    const char *lacks;
    if (p->variant >= CLREDUCE_SCAN_REDUCE_THEN_SCAN && path_usable(ctx, ctx->subgroup_path, &lacks))
        p->path = ctx->subgroup_path;
    else
        p->path = CLREDUCE_SUBGROUP_PATH_NONE;
    return CLREDUCE_SUCCESS;
}

clreduce_status clreduce_check_scan_support(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                                            clreduce_scan_variant variant)
{
    clear_error(ctx);
    if (!ctx)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "ctx is NULL");
    scan_plan p;
    return make_scan_plan(ctx, op, type, variant, &p);
}

/* ---- kernels ----------------------------------------------------------------- */

enum { K_BLOCK = 0, K_ADD = 1 };                           /* Hillis-Steele, Blelloch */
enum { K_RTS_REDUCE = 0, K_RTS_SPINE = 1, K_RTS_SCAN = 2 }; /* reduce-then-scan */
enum { K_LOOKBACK = 0 };

static clreduce_status get_scan_program(clreduce_ctx *ctx, const scan_plan *p, cached_kernel **k)
{
    static const char *const ladder[] = {"clr_scan_block", "clr_scan_add"};
    static const char *const rts[] = {"clr_rts_reduce", "clr_rts_spine", "clr_rts_scan"};
    static const char *const lookback[] = {"clr_scan_lookback"};
    const char *const *names = ladder;
    size_t count = 2;
    if (p->variant == CLREDUCE_SCAN_REDUCE_THEN_SCAN) {
        names = rts;
        count = 3;
    } else if (p->variant == CLREDUCE_SCAN_LOOKBACK) {
        names = lookback;
        count = 1;
    }
    int khr = p->path >= CLREDUCE_SUBGROUP_PATH_SHUFFLE_RELATIVE;
    int needs_std = khr || (p->variant == CLREDUCE_SCAN_LOOKBACK && ctx->fence_kind == 1);
    char options[1536];
    snprintf(options, sizeof options,
             "-DCLR_SCAN=%d -DCLR_TYPE=%d -DCLR_OP=%d -DCLR_WG=%zu -DCLR_SG_PATH=%d "
             "-DCLR_WARP=%u -DCLR_VEC=%u -DCLR_UNROLL=%u -DCLR_FENCE=%d %s %s",
             (int)p->variant, kernel_type(p->op, p->type), (int)p->op, p->t.scan_work_group_size,
             (int)p->path, ctx->info.nv_warp_size ? ctx->info.nv_warp_size : 32,
             p->t.vector_width, p->t.scan_loads, ctx->fence_kind,
             needs_std ? ctx->cl_std_option : "",
             ctx->settings.build_options ? ctx->settings.build_options : "");
    return program_cache_get(ctx, options, names, count, k);
}

static clreduce_status create_temp(clreduce_ctx *ctx, size_t bytes, cl_mem *out)
{
    cl_int err;
    *out = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        *out = NULL;
        return set_error(ctx, status_from_cl(err), "allocating %zu bytes of scan scratch failed: %s",
                         bytes, cl_error_name(err));
    }
    return CLREDUCE_SUCCESS;
}

/* ---- Hillis-Steele and Blelloch: blocks, then their totals level by level -- */

#define MAX_LEVELS 64

static clreduce_status enqueue_ladder(clreduce_ctx *ctx, chain *c, const scan_plan *p,
                                      cached_kernel *k, cl_mem in, size_t in_off, size_t n,
                                      cl_mem out, size_t out_off, int exclusive)
{
    size_t wg = p->t.scan_work_group_size;
    size_t block = p->variant == CLREDUCE_SCAN_BLELLOCH ? 2 * wg : wg;
    /* Level 0 is the output; level L + 1 holds the totals of level L's
     * blocks, at temp[offset[L + 1] ..). */
    size_t count[MAX_LEVELS], offset[MAX_LEVELS], levels = 1, temp_count = 0;
    count[0] = n;
    offset[0] = out_off;
    while (count[levels - 1] > block) {
        count[levels] = div_up(count[levels - 1], block);
        offset[levels] = temp_count;
        temp_count += count[levels];
        levels++;
    }
    cl_mem temp = NULL;
    clreduce_status status = CLREDUCE_SUCCESS;
    if (temp_count)
        status = create_temp(ctx, temp_count * p->element_size, &temp);
    cl_mem none = NULL;
    cl_int kind = exclusive;
    for (size_t L = 0; L < levels && status == CLREDUCE_SUCCESS; L++) {
        cl_mem src = L ? temp : in, dst = L ? temp : out;
        cl_ulong src_off = L ? offset[L] : in_off, dst_off = offset[L], cnt = count[L];
        int has_sums = L + 1 < levels;
        cl_ulong sums_off = has_sums ? offset[L + 1] : 0;
        cl_int level_kind = L ? 1 : kind;
        kernel_arg args[] = {ARG(src), ARG(src_off), ARG(cnt), ARG(dst), ARG(dst_off),
                      has_sums ? (kernel_arg)ARG(temp) : (kernel_arg)ARG(none), ARG(sums_off),
                      ARG(level_kind)};
        status = enqueue_kernel_args(ctx, c, k, K_BLOCK, div_up(count[L], block), wg, args, 8);
    }
    for (size_t L = levels - 1; L-- > 0 && status == CLREDUCE_SUCCESS;) {
        cl_mem data = L ? temp : out;
        cl_ulong data_off = offset[L], cnt = count[L], pre_off = offset[L + 1];
        kernel_arg args[] = {ARG(data), ARG(data_off), ARG(cnt), ARG(temp), ARG(pre_off)};
        status = enqueue_kernel_args(ctx, c, k, K_ADD, div_up(count[L], block) - 1, wg, args, 5);
    }
    if (temp)
        clReleaseMemObject(temp); /* deleted once the commands using it are done */
    return status;
}

/* ---- Tiled variants ------------------------------------------------------------ */

static size_t tile_size(const scan_plan *p)
{
    return p->t.scan_work_group_size * p->t.scan_loads * p->t.vector_width;
}

static clreduce_status enqueue_reduce_then_scan(clreduce_ctx *ctx, chain *c, const scan_plan *p,
                                                cached_kernel *k, cl_mem in, size_t in_off,
                                                size_t n, cl_mem out, size_t out_off,
                                                int exclusive)
{
    size_t wg = p->t.scan_work_group_size;
    size_t tiles = div_up(n, tile_size(p));
    size_t cap = (size_t)ctx->info.compute_units * p->t.groups_per_compute_unit;
    size_t groups = tiles < cap ? tiles : cap;
    size_t per_group = div_up(tiles, groups);
    groups = div_up(tiles, per_group);
    cl_mem partials;
    clreduce_status status = create_temp(ctx, groups * p->element_size, &partials);
    if (status != CLREDUCE_SUCCESS)
        return status;
    cl_ulong in_off64 = in_off, n64 = n, out_off64 = out_off, per_group64 = per_group,
             groups64 = groups;
    cl_int kind = exclusive;
    kernel_arg reduce_args[] = {ARG(in), ARG(in_off64), ARG(n64), ARG(partials), ARG(per_group64)};
    kernel_arg spine_args[] = {ARG(partials), ARG(groups64)};
    kernel_arg scan_args[] = {ARG(in), ARG(in_off64), ARG(n64), ARG(out), ARG(out_off64),
                       ARG(partials), ARG(per_group64), ARG(kind)};
    status = enqueue_kernel_args(ctx, c, k, K_RTS_REDUCE, groups, wg, reduce_args, 5);
    if (status == CLREDUCE_SUCCESS)
        status = enqueue_kernel_args(ctx, c, k, K_RTS_SPINE, 1, wg, spine_args, 2);
    if (status == CLREDUCE_SUCCESS)
        status = enqueue_kernel_args(ctx, c, k, K_RTS_SCAN, groups, wg, scan_args, 8);
    clReleaseMemObject(partials);
    return status;
}

/* Bytes of look-back scratch for `tiles` tiles: the ticket, one status word
 * per tile, and two values per tile (the kernel computes the same layout). */
static size_t lookback_scratch_size(size_t tiles, size_t element_size)
{
    return 128 + div_up(tiles * 4, 128) * 128 + 2 * tiles * element_size;
}

static clreduce_status enqueue_lookback(clreduce_ctx *ctx, chain *c, const scan_plan *p,
                                        cached_kernel *k, int in_order, cl_mem in, size_t in_off,
                                        size_t n, cl_mem out, size_t out_off, int exclusive)
{
    size_t wg = p->t.scan_work_group_size;
    size_t tiles = div_up(n, tile_size(p));
    if (tiles > UINT32_MAX)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "%zu elements make more tiles than the look-back counts (2^32)", n);
    size_t size = lookback_scratch_size(tiles, p->element_size);
    scan_scratch_lease lease;
    clreduce_status status = scan_scratch_acquire(ctx, c->queue, in_order, size, &lease);
    if (status != CLREDUCE_SUCCESS)
        return status;
    if (lease.needs_zero) {
        cl_uint zero = 0;
        status = enqueue_fill(ctx, c, lease.buffer, &zero, sizeof zero, 0, lease.size);
    }
    if (status == CLREDUCE_SUCCESS) {
        cl_ulong in_off64 = in_off, n64 = n, out_off64 = out_off;
        cl_uint epoch = lease.epoch;
        cl_int kind = exclusive;
        kernel_arg args[] = {ARG(in),        ARG(in_off64),     ARG(n64),   ARG(out),
                      ARG(out_off64), ARG(lease.buffer), ARG(epoch), ARG(kind)};
        status = enqueue_kernel_args(ctx, c, k, K_LOOKBACK, tiles, wg, args, 8);
    }
    scan_scratch_release(&lease, status == CLREDUCE_SUCCESS);
    return status;
}

/* ---- API ------------------------------------------------------------------------ */

clreduce_status clreduce_scan_profiled(clreduce_ctx *ctx, cl_command_queue queue, clreduce_op op,
                                       clreduce_type type, clreduce_scan_kind kind,
                                       clreduce_scan_variant variant, cl_mem input,
                                       size_t input_offset, size_t count, cl_mem output,
                                       size_t output_offset, cl_uint num_wait,
                                       const cl_event *wait, cl_event *first, cl_event *done)
{
    clear_error(ctx);
    if (!ctx)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "ctx is NULL");
    clreduce_status status = check_call(ctx, queue, input, output, "output", num_wait, wait);
    if (status != CLREDUCE_SUCCESS)
        return status;
    if ((unsigned)kind > CLREDUCE_EXCLUSIVE)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown scan kind %d", (int)kind);
    scan_plan p;
    if ((status = make_scan_plan(ctx, op, type, variant, &p)) != CLREDUCE_SUCCESS)
        return status;

    int in_order = 1;
    size_t in_elems, out_elems;
    if ((status = check_buffers(ctx, queue, input, output, "output", p.element_size, &in_order,
                                &in_elems, &out_elems)) != CLREDUCE_SUCCESS ||
        (status = check_range(ctx, "input", input_offset, count, in_elems, type)) !=
            CLREDUCE_SUCCESS ||
        (status = check_range(ctx, "output", output_offset, count, out_elems, type)) !=
            CLREDUCE_SUCCESS)
        return status;
    if (input == output && count > 0 && input_offset != output_offset &&
        input_offset < output_offset + count && output_offset < input_offset + count)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "input [%zu, +%zu) and output [%zu, +%zu) overlap without being the "
                         "same range",
                         input_offset, count, output_offset, count);

    chain c = {queue, num_wait, wait, NULL, NULL, 0};
    if (count == 0) {
        if (first || done) {
            cl_event ev;
            cl_int err = clEnqueueMarkerWithWaitList(queue, num_wait, wait, &ev);
            if (err != CL_SUCCESS)
                return set_error(ctx, status_from_cl(err), "clEnqueueMarkerWithWaitList failed: %s",
                                 cl_error_name(err));
            chain_push(&c, ev);
        }
    } else {
        cached_kernel *k;
        status = get_scan_program(ctx, &p, &k);
        if (status != CLREDUCE_SUCCESS)
            return status;
        int exclusive = kind == CLREDUCE_EXCLUSIVE;
        switch (p.variant) {
        case CLREDUCE_SCAN_REDUCE_THEN_SCAN:
            status = enqueue_reduce_then_scan(ctx, &c, &p, k, input, input_offset, count, output,
                                              output_offset, exclusive);
            break;
        case CLREDUCE_SCAN_LOOKBACK:
            status = enqueue_lookback(ctx, &c, &p, k, in_order, input, input_offset, count,
                                      output, output_offset, exclusive);
            break;
        default:
            status = enqueue_ladder(ctx, &c, &p, k, input, input_offset, count, output,
                                    output_offset, exclusive);
            break;
        }
    }
    if (status != CLREDUCE_SUCCESS) {
        if (c.count)
            clWaitForEvents(1, &c.last);
        chain_finish(&c, NULL, NULL);
        return status;
    }
    chain_finish(&c, first, done);
    return CLREDUCE_SUCCESS;
}

clreduce_status clreduce_scan(clreduce_ctx *ctx, cl_command_queue queue, clreduce_op op,
                              clreduce_type type, clreduce_scan_kind kind,
                              clreduce_scan_variant variant, cl_mem input, size_t input_offset,
                              size_t count, cl_mem output, size_t output_offset, cl_uint num_wait,
                              const cl_event *wait, cl_event *done)
{
    return clreduce_scan_profiled(ctx, queue, op, type, kind, variant, input, input_offset, count,
                                  output, output_offset, num_wait, wait, NULL, done);
}

clreduce_status clreduce_scan_host(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                                   clreduce_scan_kind kind, clreduce_scan_variant variant,
                                   const void *input, size_t count, void *output)
{
    clear_error(ctx);
    if (!ctx)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "ctx is NULL");
    if (count > 0 && (!input || !output))
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "%s is NULL",
                         !input ? "input" : "output");
    if ((unsigned)kind > CLREDUCE_EXCLUSIVE)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown scan kind %d", (int)kind);
    scan_plan p;
    clreduce_status status = make_scan_plan(ctx, op, type, variant, &p);
    if (status != CLREDUCE_SUCCESS || count == 0)
        return status;
    if (count > ctx->info.max_alloc_size / p.element_size)
        return set_error(ctx, CLREDUCE_ERROR_OUT_OF_MEMORY,
                         "%zu elements of %s exceed the device's largest allocation "
                         "(CL_DEVICE_MAX_MEM_ALLOC_SIZE = %llu bytes)",
                         count, clreduce_type_name(type),
                         (unsigned long long)ctx->info.max_alloc_size);
    size_t bytes = count * p.element_size;
    const unsigned char *in_bytes = input, *out_bytes = output;
    if (in_bytes != out_bytes && in_bytes < out_bytes + bytes && out_bytes < in_bytes + bytes)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "input and output overlap without being the same array");

    cl_command_queue queue;
    if ((status = context_own_queue(ctx, &queue)) != CLREDUCE_SUCCESS)
        return status;
    /* One buffer, scanned in place on the device. */
    cl_int err;
    cl_mem buffer = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                                   (void *)input, &err);
    if (err != CL_SUCCESS)
        return set_error(ctx, status_from_cl(err), "allocating the device buffer failed: %s",
                         cl_error_name(err));
    cl_event done = NULL;
    status = clreduce_scan(ctx, queue, op, type, kind, variant, buffer, 0, count, buffer, 0, 0,
                           NULL, &done);
    if (status == CLREDUCE_SUCCESS) {
        err = clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, bytes, output, 1, &done, NULL);
        clReleaseEvent(done);
        if (err != CL_SUCCESS)
            status = set_error(ctx, status_from_cl(err), "reading the result failed: %s",
                               cl_error_name(err));
    }
    clReleaseMemObject(buffer);
    return status;
}
