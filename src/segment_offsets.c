/* What every family of segments shares (segments.c, multi.c,
 * custom_batched.c): the request of a segments call, and its offsets'
 * checks, on the device's side (their type and count, and the define that
 * gives the kernels their type) and on the host's (every offset, before a
 * blocking call runs). */
#include <stdint.h>

#include "families.h"

request segments_request(cl_command_queue queue, clreduce_op op, clreduce_type type,
                         cl_mem input, size_t offset, size_t count, cl_mem offsets,
                         size_t offsets_offset, clreduce_type offsets_type, size_t segments,
                         cl_mem result, size_t result_offset, cl_uint num_wait,
                         const cl_event *wait)
{
    request r = {.queue = queue, .op = op, .type = type, .input = input, .input_offset = offset,
                 .count = count, .output = result, .output_offset = result_offset,
                 .num_wait = num_wait, .wait = wait, .rows = segments, .index = offsets,
                 .index_offset = offsets_offset, .index_type = offsets_type};
    return r;
}

/* What both sides check first: the offsets' type, and that the segments'
 * offsets can be counted. */
static clreduce_status check_offsets(clreduce_ctx *ctx, clreduce_type type, size_t segments)
{
    if (type != CLREDUCE_UINT32 && type != CLREDUCE_UINT64)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "offsets_type %d (%s) is not CLREDUCE_UINT32 or CLREDUCE_UINT64",
                         (int)type, clreduce_type_name(type) ? clreduce_type_name(type)
                                                             : "unknown");
    if (segments == SIZE_MAX)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "%zu segments need %zu + 1 offsets: more than a size_t counts", segments,
                         segments);
    return CLREDUCE_SUCCESS;
}

clreduce_status segments_plan_offsets(clreduce_ctx *ctx, const request *r, plan *p)
{
    clreduce_status status = check_offsets(ctx, r->index_type, r->rows);
    if (status != CLREDUCE_SUCCESS)
        return status;
    defines_add(&p->family_defines, "CLR_OFFSETS_TYPE",
                r->index_type == CLREDUCE_UINT32 ? CLR_TYPE_UINT : CLR_TYPE_ULONG);
    return CLREDUCE_SUCCESS;
}

/* The first index at which the offsets decrease or pass count (or, with
 * `strict`, do not increase), or SIZE_MAX. */
static size_t first_bad_offset(const void *offsets, clreduce_type type, size_t segments,
                               size_t count, int strict, uint64_t *value, uint64_t *previous)
{
    uint64_t prev = 0;
    for (size_t i = 0; i <= segments; i++) {
        uint64_t v = type == CLREDUCE_UINT32 ? ((const uint32_t *)offsets)[i]
                                             : ((const uint64_t *)offsets)[i];
        if (v < prev || v > count || (strict && i > 0 && v == prev)) {
            *value = v;
            *previous = prev;
            return i;
        }
        prev = v;
    }
    return SIZE_MAX;
}

clreduce_status segments_host(clreduce_ctx *ctx, const op_family *f, request *r,
                              const void *data, const void *data2, const void *offsets,
                              const char *empty_refused, void *results)
{
    if (!offsets)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "offsets is NULL");
    clreduce_status status = check_offsets(ctx, r->index_type, r->rows);
    if (status != CLREDUCE_SUCCESS)
        return status;
    uint64_t value = 0, previous = 0;
    size_t bad = first_bad_offset(offsets, r->index_type, r->rows, r->count,
                                  empty_refused != NULL, &value, &previous);
    if (bad != SIZE_MAX) {
        if (value > r->count)
            return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                             "offsets[%zu] = %llu is past count %zu", bad,
                             (unsigned long long)value, r->count);
        if (value == previous)
            return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                             "offsets[%zu] = offsets[%zu] = %llu: segment %zu is empty, and %s",
                             bad - 1, bad, (unsigned long long)value, bad - 1, empty_refused);
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "offsets[%zu] = %llu is smaller than offsets[%zu] = %llu: offsets must "
                         "not decrease",
                         bad, (unsigned long long)value, bad - 1, (unsigned long long)previous);
    }
    r->host_index = offsets;
    return request_host_two(ctx, f, r, data, data2, results);
}
