/* The request pipeline every operation family goes through, written once:
 *
 *   validate  the caller's arguments, queue and buffers, ranges and overlap;
 *   plan      the family's decisions (variant, tuning, kernels), before
 *             anything is enqueued, so that every failure not the runtime's
 *             is found first;
 *   program   the plan's program, from the context's cache or built;
 *   enqueue   the family's launches, in order (chain.c);
 *   unwind    on a failure after the first command, wait for what was
 *             enqueued and drop its events; else hand the events out.
 *
 * A family (reduce.c, scan.c, rows.c, segments.c) supplies only its plan
 * and its launches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "families.h"

/* Elements a call writes. */
static size_t output_count(const op_family *f, const request *r)
{
    switch (f->outputs) {
    case OUTPUT_ONE: return 1;
    case OUTPUT_PER_ELEMENT: return r->count;
    case OUTPUT_ROWS: {
        /* the span of the output's rows; 0 when it overflows, which the
         * family's plan reports */
        int overflow;
        return rows_span(r->rows, r->row_length, request_output_pitch(r), &overflow);
    }
    default: return r->rows;
    }
}

/* ---- program -------------------------------------------------------------- */

/* The -D options of a plan's program: the parameters every layer reads
 * (types.cl, subgroup.cl, the work-group and tile layers, device_order.cl),
 * then the family's own. */
static void program_defines(const clreduce_ctx *ctx, const plan *p, defines *d)
{
    d->count = 0;
    defines_add(d, "CLR_TYPE", kernel_type(p->op, p->type));
    defines_add(d, "CLR_OP", (int)p->op);
    defines_add(d, "CLR_WG", (long long)p->work_group_size);
    defines_add(d, "CLR_SG_PATH", (int)p->path);
    defines_add(d, "CLR_WARP", ctx->info.nv_warp_size ? ctx->info.nv_warp_size : 32);
    defines_add(d, "CLR_VEC", p->t.vector_width);
    defines_add(d, "CLR_UNROLL", p->unroll);
    defines_add(d, "CLR_ORDER", ctx->order_kind);
    defines_append(d, &p->family_defines);
}

/* ---- plan ------------------------------------------------------------------- */

clreduce_status plan_start(clreduce_ctx *ctx, const request *r, plan *p)
{
    if ((unsigned)r->op >= CLREDUCE_OP_COUNT)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown op %d", (int)r->op);
    if ((unsigned)r->type > CLREDUCE_BFLOAT16)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown type %d", (int)r->type);
    if (r->type > CLREDUCE_UINT64 && !r->custom)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "%s is a storage type: the built-in operators take it for sum, min "
                         "and max (float results), not %s; user-defined operators for any",
                         clreduce_type_name(r->type), clreduce_op_name(r->op));
    if (r->type == CLREDUCE_DOUBLE && !ctx->info.has_fp64)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "double needs cl_khr_fp64, which device \"%s\" lacks", ctx->info.name);
    memset(p, 0, sizeof *p);
    p->op = r->op;
    p->type = r->type;
    p->element_size = clreduce_type_size(r->type);
    p->t = *CONTEXT_TUNING(ctx, p->element_size);
    p->output_size = p->element_size;
    identity_value(p->op, p->type, p->empty_output);
    return CLREDUCE_SUCCESS;
}

/* ---- the pipeline ----------------------------------------------------------- */

/* The family's index array (the offsets of segments): rows + 1 elements of
 * its type inside its buffer, sharing no byte with the output. */
static clreduce_status validate_index(clreduce_ctx *ctx, const op_family *f, const request *r,
                                      const plan *p, size_t out_count)
{
    size_t size, index_size = clreduce_type_size(r->index_type);
    clreduce_status status = mem_size(ctx, r->index, f->index_name, &size);
    if (status != CLREDUCE_SUCCESS)
        return status;
    char offset_name[64];
    snprintf(offset_name, sizeof offset_name, "%s_offset", f->index_name);
    if (r->rows == SIZE_MAX)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "%zu rows need %zu + 1 %s: more than a size_t counts", r->rows, r->rows,
                         f->index_name);
    if ((status = check_range(ctx, f->index_name, offset_name, r->index_offset, r->rows + 1,
                              size / index_size, r->index_type)) != CLREDUCE_SUCCESS)
        return status;
    return check_disjoint(ctx, r->index, f->index_name, r->index_offset * index_size,
                          (r->rows + 1) * index_size, r->output, f->output_name,
                          r->output_offset * p->output_size, out_count * p->output_size);
}

/* Checks the request against the queue and its buffers: sizes, ranges,
 * overlap; sets p->in_place. */
static clreduce_status validate_buffers(clreduce_ctx *ctx, const op_family *f, const request *r,
                                        plan *p, int *in_order)
{
    size_t in_elems, out_elems;
    clreduce_status status;
    size_t out_count = output_count(f, r);
    if ((status = check_buffers(ctx, r->queue, r->input, r->output, f->output_name,
                                p->element_size, in_order, &in_elems, &out_elems)) !=
            CLREDUCE_SUCCESS ||
        (status = check_range(ctx, "input", "input offset", r->input_offset, r->count, in_elems,
                              p->type)) != CLREDUCE_SUCCESS)
        return status;
    if (f->check_outputs) {
        status = f->check_outputs(ctx, r, p);
        if (status == CLREDUCE_SUCCESS && f->index_name)
            status = validate_index(ctx, f, r, p, out_count);
        return status;
    }
    /* Output elements of the built-in operators are whole multiples of
     * input elements (counting the buffer in those first loses nothing); a
     * user-defined operator's may be any size (a buffer's bytes past its
     * last whole input element are not counted). The outputs of the
     * operators that keep accumulators are results, and counted so. */
    out_elems = out_elems * p->element_size / p->output_size;
    if (op_keeps_accumulators(p->op))
        status = check_result_range(ctx, f->output_name, f->output_offset_name, r->output_offset,
                                    out_count, out_elems, p->output_size);
    else
        status = check_range(ctx, f->output_name, f->output_offset_name, r->output_offset,
                             out_count, out_elems, p->type);
    if (status != CLREDUCE_SUCCESS)
        return status;
    if (f->index_name && (status = validate_index(ctx, f, r, p, out_count)) != CLREDUCE_SUCCESS)
        return status;
    if ((status = check_overlap(ctx, r->input, "input", r->input_offset, r->count,
                                p->element_size, r->output, f->output_name, r->output_offset,
                                out_count, p->output_size,
                                f->in_place ? &p->in_place : NULL)) != CLREDUCE_SUCCESS)
        return status;
    if (!f->two_inputs)
        return CLREDUCE_SUCCESS;
    /* The second input may share bytes with the first (both are read), not
     * with the output. */
    size_t in2_size;
    if ((status = mem_size(ctx, r->input2, "input2", &in2_size)) != CLREDUCE_SUCCESS ||
        (status = check_range(ctx, "input2", "input2 offset", r->input2_offset, r->count,
                              in2_size / p->element_size, p->type)) != CLREDUCE_SUCCESS)
        return status;
    return check_overlap(ctx, r->input2, "input2", r->input2_offset, r->count, p->element_size,
                         r->output, f->output_name, r->output_offset, out_count, p->output_size,
                         NULL);
}

clreduce_status request_enqueue(clreduce_ctx *ctx, const op_family *f, const request *r,
                                cl_event *first, cl_event *done)
{
    clear_error(ctx);
    if (!ctx)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "ctx is NULL");
    clreduce_status status = check_call(ctx, r->queue, r->input, r->output, f->output_name,
                                        r->num_wait, r->wait);
    if (status != CLREDUCE_SUCCESS)
        return status;
    request routed;
    if ((status = reproducible_check(ctx, f, r)) != CLREDUCE_SUCCESS ||
        (status = storage_route(ctx, &f, &r, &routed)) != CLREDUCE_SUCCESS)
        return status;
    if (f->index_name && !r->index)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "%s is NULL", f->index_name);
    if (f->two_inputs && !r->input2)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "input2 is NULL");
    plan p;
    if ((status = f->plan(ctx, r, &p)) != CLREDUCE_SUCCESS)
        return status;
    int in_order = 1;
    if ((status = validate_buffers(ctx, f, r, &p, &in_order)) != CLREDUCE_SUCCESS)
        return status;

    chain c;
    chain_start(&c, r->queue, in_order, r->num_wait, r->wait, first != NULL, done != NULL,
                r->num_wait > 0 && ctx->info.vendor == VENDOR_POCL ? &ctx->held : NULL);
    if (r->count == 0 || output_count(f, r) == 0) {
        status = f->enqueue_empty(ctx, &c, r, &p, first || done);
    } else {
        defines defs;
        program_defines(ctx, &p, &defs);
        int needs_std = path_needs_cl_std(p.path) ||
                        (p.program->orders_device && ctx->order_kind == CLR_ORDER_CL20);
        cached_kernel *k;
        status = program_cache_get(ctx, p.program, &defs, needs_std, &k);
        if (status != CLREDUCE_SUCCESS)
            return status;
        status = f->enqueue(ctx, &c, r, &p, k, in_order);
    }
    if (status == CLREDUCE_SUCCESS)
        status = chain_seal(ctx, &c);
    if (status != CLREDUCE_SUCCESS) {
        /* A command already enqueued runs regardless: no work of this call
         * is left behind. */
        chain_abandon(&c);
        temp_release(&c);
        return status;
    }
    chain_finish(&c, first, done);
    temp_release(&c);
    return CLREDUCE_SUCCESS;
}

clreduce_status request_check_support(clreduce_ctx *ctx, const op_family *f, clreduce_op op,
                                      clreduce_type type, int variant, int kind)
{
    clear_error(ctx);
    if (!ctx)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "ctx is NULL");
    request q, routed;
    memset(&q, 0, sizeof q);
    q.op = op;
    q.type = type;
    q.variant = variant;
    q.kind = kind;
    const request *r = &q;
    clreduce_status status = reproducible_check(ctx, f, r);
    if (status == CLREDUCE_SUCCESS)
        status = storage_route(ctx, &f, &r, &routed);
    if (status != CLREDUCE_SUCCESS)
        return status;
    plan p;
    return f->plan(ctx, r, &p);
}

/* ---- host memory --------------------------------------------------------------- */

clreduce_status request_host(clreduce_ctx *ctx, const op_family *f, request *r, const void *input,
                             void *output)
{
    return request_host_two(ctx, f, r, input, NULL, output);
}

/* Reads the output rows of r (output_pitch apart, in output elements of
 * `size` bytes) into host memory `out` at the same pitch, after `done`,
 * blocking. All rows but the last go as one rectangle and the last alone:
 * NVIDIA's driver (580) refuses a rectangle whose last row's pitch runs
 * past the buffer, although the row itself does not. */
static cl_int read_rows(const request *r, size_t size, void *out, cl_event done)
{
    size_t origin[3] = {0, 0, 0};
    size_t region[3] = {r->row_length * size, r->rows - 1, 1};
    size_t pitch = r->output_pitch * size, last = (r->rows - 1) * pitch;
    cl_int err = CL_SUCCESS;
    if (r->rows > 1)
        err = clEnqueueReadBufferRect(r->queue, r->output, CL_FALSE, origin, origin, region,
                                      pitch, 0, pitch, 0, out, 1, &done, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(r->queue, r->output, CL_TRUE, last, region[0],
                                  (unsigned char *)out + last, 1, &done, NULL);
    if (err != CL_SUCCESS)
        clFinish(r->queue); /* nothing may still write into out */
    return err;
}

/* Whether host arrays [a, a + a_bytes) and [b, b + b_bytes) share a byte. */
static int host_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes)
{
    const unsigned char *pa = a, *pb = b;
    return pa < pb + b_bytes && pb < pa + a_bytes;
}

clreduce_status request_host_two(clreduce_ctx *ctx, const op_family *f, request *r,
                                 const void *input, const void *input2, void *output)
{
    clear_error(ctx);
    if (!ctx)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "ctx is NULL");
    request routed;
    const request *q = r;
    clreduce_status status = reproducible_check(ctx, f, r);
    if (status == CLREDUCE_SUCCESS)
        status = storage_route(ctx, &f, &q, &routed);
    if (status != CLREDUCE_SUCCESS)
        return status;
    if (q == &routed)
        r = &routed;
    size_t out_count = output_count(f, r);
    if ((out_count > 0 && !output) || (r->count > 0 && !input))
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "%s is NULL",
                         out_count > 0 && !output ? f->output_name : f->host_input_name);
    if (f->index_name && !r->host_index)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "%s is NULL", f->index_name);
    if (f->two_inputs && r->count > 0 && !input2)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "input2 is NULL");
    plan p;
    if ((status = f->plan(ctx, r, &p)) != CLREDUCE_SUCCESS)
        return status;
    if (r->count == 0 || out_count == 0) {
        for (size_t i = 0; i < out_count; i++)
            memcpy((unsigned char *)output + i * p.output_size, p.empty_output, p.output_size);
        return CLREDUCE_SUCCESS;
    }
    if (r->count > ctx->info.max_alloc_size / p.element_size)
        return set_error(ctx, CLREDUCE_ERROR_OUT_OF_MEMORY,
                         "%zu elements of %s exceed the device's largest allocation "
                         "(CL_DEVICE_MAX_MEM_ALLOC_SIZE = %llu bytes)",
                         r->count, clreduce_type_name(p.type),
                         (unsigned long long)ctx->info.max_alloc_size);
    size_t in_bytes = r->count * p.element_size, out_bytes = out_count * p.output_size;
    int in_place = f->in_place && input == output && in_bytes == out_bytes;
    if (!in_place && host_overlap(input, in_bytes, output, out_bytes))
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "input and %s overlap without being the same array", f->output_name);
    if (f->two_inputs && host_overlap(input2, in_bytes, output, out_bytes))
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "input2 and %s overlap",
                         f->output_name);

    if ((status = context_own_queue(ctx, &r->queue)) != CLREDUCE_SUCCESS)
        return status;
    /* The input is uploaded with the buffer; a family that works in place
     * reads its output back from the same buffer. */
    cl_int err;
    r->input = clCreateBuffer(ctx->context,
                              (f->in_place ? CL_MEM_READ_WRITE : CL_MEM_READ_ONLY) |
                                  CL_MEM_COPY_HOST_PTR,
                              in_bytes, (void *)input, &err);
    if (err != CL_SUCCESS)
        return set_error(ctx, status_from_cl(err), "allocating the input buffer failed: %s",
                         cl_error_name(err));
    r->input2 = NULL;
    if (f->two_inputs) {
        r->input2 = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   in_bytes, (void *)input2, &err);
        if (err != CL_SUCCESS) {
            clReleaseMemObject(r->input);
            return set_error(ctx, status_from_cl(err), "allocating the input2 buffer failed: %s",
                             cl_error_name(err));
        }
    }
    r->output = r->input;
    r->index = NULL;
    if (f->index_name) {
        /* rows + 1 fits: plan checked it */
        r->index = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                  (r->rows + 1) * clreduce_type_size(r->index_type),
                                  (void *)r->host_index, &err);
        if (err != CL_SUCCESS) {
            clReleaseMemObject(r->input);
            return set_error(ctx, status_from_cl(err), "allocating the %s buffer failed: %s",
                             f->index_name, cl_error_name(err));
        }
    }
    if (!f->in_place) {
        r->output = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, out_bytes, NULL, &err);
        if (err != CL_SUCCESS) {
            if (r->index)
                clReleaseMemObject(r->index);
            clReleaseMemObject(r->input);
            if (r->input2)
                clReleaseMemObject(r->input2);
            return set_error(ctx, status_from_cl(err), "allocating the %s buffer failed: %s",
                             f->output_name, cl_error_name(err));
        }
    }
    r->input_offset = r->output_offset = r->index_offset = r->input2_offset = 0;
    r->num_wait = 0;
    r->wait = NULL;
    cl_event done = NULL;
    status = request_enqueue(ctx, f, r, NULL, &done);
    if (status == CLREDUCE_SUCCESS) {
        /* A single result goes through a copy, so that a failed read leaves
         * the caller's untouched. */
        unsigned char one[PLAN_OUTPUT_MAX];
        void *into = out_bytes <= sizeof one ? one : output;
        if (f->outputs == OUTPUT_ROWS && r->rows > 1 && r->output_pitch > r->row_length) {
            /* The rows alone: the padding between them is the caller's. */
            into = output;
            err = read_rows(r, p.output_size, output, done);
        } else {
            err = clEnqueueReadBuffer(r->queue, r->output, CL_TRUE, 0, out_bytes, into, 1, &done,
                                      NULL);
        }
        clReleaseEvent(done);
        if (err == CL_SUCCESS && into == one)
            memcpy(output, one, out_bytes);
        else if (err != CL_SUCCESS)
            status = set_error(ctx, status_from_cl(err), "reading the %s failed: %s",
                               f->output_name, cl_error_name(err));
    }
    if (r->output != r->input)
        clReleaseMemObject(r->output);
    if (r->index)
        clReleaseMemObject(r->index);
    if (r->input2)
        clReleaseMemObject(r->input2);
    clReleaseMemObject(r->input);
    return status;
}

clreduce_status enqueue_nothing(clreduce_ctx *ctx, chain *c, const request *r, const plan *p,
                                int wants_event)
{
    (void)r;
    (void)p;
    return wants_event ? enqueue_marker(ctx, c) : CLREDUCE_SUCCESS;
}
