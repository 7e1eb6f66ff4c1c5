/* Creating and destroying contexts: device capabilities, the sub-group path
 * and the settings are fixed here, once. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "families.h"

void clreduce_default_settings(clreduce_settings *settings)
{
    if (settings)
        memset(settings, 0, sizeof *settings);
}

static int is_pow2(size_t x)
{
    return x && !(x & (x - 1));
}

static clreduce_status check_settings(const clreduce_settings *s, const device_info *info)
{
    if ((unsigned)s->subgroup_path > CLREDUCE_SUBGROUP_PATH_REDUCE)
        return set_error(NULL, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown subgroup_path %d",
                         (int)s->subgroup_path);
    if (s->work_group_size &&
        (!is_pow2(s->work_group_size) || s->work_group_size < 64 ||
         s->work_group_size > info->max_work_group_size))
        return set_error(NULL, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "work_group_size %zu is not a power of two in [64, %zu]",
                         s->work_group_size, info->max_work_group_size);
    if (s->groups_per_compute_unit > 64)
        return set_error(NULL, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "groups_per_compute_unit %u is not in [1, 64]",
                         s->groups_per_compute_unit);
    if (s->loads_per_work_item > 16)
        return set_error(NULL, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "loads_per_work_item %u is not in [1, 16]", s->loads_per_work_item);
    if (s->vector_width && (!is_pow2(s->vector_width) || s->vector_width > 16))
        return set_error(NULL, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "vector_width %u is not 1, 2, 4, 8 or 16", s->vector_width);
    if (s->segment_passes > 2)
        return set_error(NULL, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "segment_passes %u is not 0, 1 or 2", s->segment_passes);
    if (s->reproducible > 1)
        return set_error(NULL, CLREDUCE_ERROR_INVALID_ARGUMENT, "reproducible %u is not 0 or 1",
                         s->reproducible);
    if (s->build_options && strlen(s->build_options) > 1024)
        return set_error(NULL, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "build_options is longer than 1024 characters");
    return CLREDUCE_SUCCESS;
}

static clreduce_subgroup_path best_subgroup_path(const device_info *info)
{
    if (info->vendor == VENDOR_NVIDIA && info->nv_warp_size == 32)
        return CLREDUCE_SUBGROUP_PATH_NV_PTX;
    if (info->has_subgroup_shuffle_relative)
        return CLREDUCE_SUBGROUP_PATH_SHUFFLE_RELATIVE;
    if (info->has_subgroup_shuffle)
        return CLREDUCE_SUBGROUP_PATH_SHUFFLE;
    if (info->has_subgroups)
        return CLREDUCE_SUBGROUP_PATH_REDUCE;
    return CLREDUCE_SUBGROUP_PATH_NONE;
}

int order_kind_for(const device_info *info)
{
    if (info->vendor == VENDOR_NVIDIA)
        return CLR_ORDER_PTX;
    if (info->clc_major == 2)
        return CLR_ORDER_CL20;
    /* OpenCL C 3.0 made the acquire-release orders and the device scope
     * optional; the kernels need both, for atomics and for fences. */
    const cl_bitfield needed = DEVICE_ATOMIC_ORDER_ACQ_REL | DEVICE_ATOMIC_SCOPE_DEVICE;
    if (info->clc_major >= 3 && (info->atomic_memory_caps & needed) == needed &&
        (info->atomic_fence_caps & needed) == needed)
        return CLR_ORDER_CL20;
    return CLR_ORDER_NONE;
}

/* Whether `device` is one of the context's: CLREDUCE_SUCCESS with *found
 * set, or the failure of the query (an invalid context is the caller's
 * error, anything else the runtime's). */
static clreduce_status device_in_context(cl_context context, cl_device_id device, int *found)
{
    size_t size = 0;
    *found = 0;
    cl_int err = clGetContextInfo(context, CL_CONTEXT_DEVICES, 0, NULL, &size);
    cl_device_id *devices = NULL;
    if (err == CL_SUCCESS && size > 0) {
        if (!(devices = malloc(size)))
            return set_error(NULL, CLREDUCE_ERROR_OUT_OF_MEMORY, "out of host memory");
        err = clGetContextInfo(context, CL_CONTEXT_DEVICES, size, devices, NULL);
        for (size_t i = 0; err == CL_SUCCESS && i < size / sizeof *devices; i++)
            *found |= devices[i] == device;
        free(devices);
    }
    if (err == CL_SUCCESS || err == CL_INVALID_CONTEXT)
        return CLREDUCE_SUCCESS;
    return set_error(NULL, status_from_cl(err), "querying the context's devices failed: %s",
                     cl_error_name(err));
}

clreduce_status clreduce_create_with_settings(cl_context context, cl_device_id device,
                                              const clreduce_settings *settings,
                                              clreduce_ctx **out)
{
    clear_error(NULL);
    if (!out)
        return set_error(NULL, CLREDUCE_ERROR_INVALID_ARGUMENT, "out is NULL");
    if (!context || !device)
        return set_error(NULL, CLREDUCE_ERROR_INVALID_ARGUMENT, "%s is NULL",
                         !context ? "context" : "device");
    int found;
    clreduce_status status = device_in_context(context, device, &found);
    if (status != CLREDUCE_SUCCESS)
        return status;
    if (!found)
        return set_error(NULL, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "the device is not a device of the context (or the context is invalid)");

    clreduce_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return set_error(NULL, CLREDUCE_ERROR_OUT_OF_MEMORY, "out of host memory");
    char why[256] = "";
    status = device_info_query(device, &ctx->info, why, sizeof why);
    if (status != CLREDUCE_SUCCESS) {
        free(ctx);
        return set_error(NULL, status, "%s", why);
    }
    clreduce_default_settings(&ctx->settings);
    if (settings)
        ctx->settings = *settings;
    status = check_settings(&ctx->settings, &ctx->info);
    if (status != CLREDUCE_SUCCESS) {
        free(ctx);
        return status;
    }
    if (ctx->settings.build_options &&
        !(ctx->settings.build_options = strdup(ctx->settings.build_options))) {
        free(ctx);
        return set_error(NULL, CLREDUCE_ERROR_OUT_OF_MEMORY, "out of host memory");
    }

    /* Settings are fixed for the context's life, so the tuning is too. */
    tuning_for_device(&ctx->info, 4, &ctx->settings, &ctx->tuning_by_size[0]);
    tuning_for_device(&ctx->info, 8, &ctx->settings, &ctx->tuning_by_size[1]);
    tuning_for_device(&ctx->info, 2, &ctx->settings, &ctx->tuning_by_size[2]);
    ctx->subgroup_path = ctx->settings.subgroup_path == CLREDUCE_SUBGROUP_PATH_AUTO
                             ? best_subgroup_path(&ctx->info)
                             : ctx->settings.subgroup_path;
    ctx->cl_std_option = ctx->info.clc_major >= 3   ? "-cl-std=CL3.0"
                         : ctx->info.clc_major == 2 ? "-cl-std=CL2.0"
                                                    : "";
    ctx->order_kind = order_kind_for(&ctx->info);

    clRetainContext(context);
    clRetainDevice(device);
    ctx->context = context;
    ctx->device = device;
    program_cache_init(&ctx->cache);
    ctx->disk_cache_dir =
        disk_cache_directory(ctx->cache.disk_status, sizeof ctx->cache.disk_status);
    scratch_pool_init(&ctx->scratch);
    pthread_mutex_init(&ctx->queue_lock, NULL);
    pthread_mutex_init(&ctx->storage_lock, NULL);
    held_events_init(&ctx->held);
    *out = ctx;
    return CLREDUCE_SUCCESS;
}

clreduce_status clreduce_create(cl_context context, cl_device_id device, clreduce_ctx **out)
{
    return clreduce_create_with_settings(context, device, NULL, out);
}

void clreduce_destroy(clreduce_ctx *ctx)
{
    if (!ctx)
        return;
    storage_release(ctx); /* operators first, as of any user */
    if (ctx->own_queue)
        clReleaseCommandQueue(ctx->own_queue);
    held_events_clear(&ctx->held);
    scratch_pool_clear(&ctx->scratch);
    program_cache_clear(&ctx->cache);
    free(ctx->disk_cache_dir);
    free((char *)ctx->settings.build_options);
    pthread_mutex_destroy(&ctx->queue_lock);
    clReleaseDevice(ctx->device);
    clReleaseContext(ctx->context);
    free(ctx);
}

int context_keeps_work_groups_running(const clreduce_ctx *ctx)
{
    return ctx->info.vendor == VENDOR_NVIDIA || (ctx->info.type & CL_DEVICE_TYPE_CPU);
}

unsigned context_segment_passes(const clreduce_ctx *ctx)
{
    if (!context_orders_work_groups(ctx) || !context_keeps_work_groups_running(ctx))
        return 2;
    /* Chosen per call on NVIDIA GPUs, where it was timed; elsewhere one
     * launch only where the settings ask for it (PoCL 3.1 took minutes to
     * compile its kernel). */
    if (ctx->settings.segment_passes == 0 &&
        !(ctx->info.vendor == VENDOR_NVIDIA && (ctx->info.type & CL_DEVICE_TYPE_GPU)))
        return 2;
    return ctx->settings.segment_passes;
}

int context_test_switch(const clreduce_ctx *ctx, const char *name)
{
    const char *options = ctx->settings.build_options;
    return options && strstr(options, name) != NULL;
}

unsigned long context_test_value(const clreduce_ctx *ctx, const char *name)
{
    const char *at = ctx->settings.build_options;
    size_t length = strlen(name);
    while (at && (at = strstr(at, name)) != NULL) {
        at += length;
        if (*at == '=' && isdigit((unsigned char)at[1]))
            return strtoul(at + 1, NULL, 10);
    }
    return 0;
}

int context_orders_work_groups(const clreduce_ctx *ctx)
{
    /* Without device-scope ordering, a CPU's coherent caches still make
     * mem_fence and volatile accesses enough. */
    return ctx->order_kind != CLR_ORDER_NONE || (ctx->info.type & CL_DEVICE_TYPE_CPU);
}

clreduce_status context_own_queue(clreduce_ctx *ctx, cl_command_queue *out)
{
    clreduce_status status = CLREDUCE_SUCCESS;
    pthread_mutex_lock(&ctx->queue_lock);
    if (!ctx->own_queue) {
        cl_int err;
        ctx->own_queue = clCreateCommandQueue(ctx->context, ctx->device, 0, &err);
        if (err != CL_SUCCESS) {
            ctx->own_queue = NULL;
            status = set_error(ctx, status_from_cl(err), "clCreateCommandQueue failed: %s",
                               cl_error_name(err));
        }
    }
    *out = ctx->own_queue;
    pthread_mutex_unlock(&ctx->queue_lock);
    return status;
}

cl_context clreduce_get_cl_context(const clreduce_ctx *ctx)
{
    return ctx ? ctx->context : NULL;
}

cl_device_id clreduce_get_cl_device(const clreduce_ctx *ctx)
{
    return ctx ? ctx->device : NULL;
}

clreduce_subgroup_path clreduce_get_subgroup_path(const clreduce_ctx *ctx)
{
    return ctx ? ctx->subgroup_path : CLREDUCE_SUBGROUP_PATH_NONE;
}

clreduce_status clreduce_get_cache_stats(const clreduce_ctx *ctx, clreduce_cache_stats *stats)
{
    if (!ctx || !stats)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "%s is NULL",
                         !ctx ? "ctx" : "stats");
    program_cache *cache = (program_cache *)&ctx->cache;
    /* Every byte defined, so that two snapshots compare with memcmp. */
    memset(stats, 0, sizeof *stats);
    pthread_mutex_lock(&cache->lock);
    stats->programs_built = cache->programs_built;
    stats->programs_loaded = cache->programs_loaded;
    stats->cache_hits = cache->cache_hits;
    /* Every byte written, so that two copies of the same state compare
     * equal as memory. */
    memset(stats->disk_cache_status, 0, sizeof stats->disk_cache_status);
    snprintf(stats->disk_cache_status, sizeof stats->disk_cache_status, "%s", cache->disk_status);
    pthread_mutex_unlock(&cache->lock);
    return CLREDUCE_SUCCESS;
}

clreduce_status clreduce_get_tuning(const clreduce_ctx *ctx, clreduce_type type,
                                    clreduce_settings *out)
{
    if (!ctx || !out)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "%s is NULL", !ctx ? "ctx" : "out");
    size_t size = clreduce_type_size(type);
    if (!size)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown type %d", (int)type);
    const tuning *t = CONTEXT_TUNING(ctx, size);
    *out = ctx->settings;
    out->build_options = NULL;
    out->segment_passes = context_segment_passes(ctx);
    out->work_group_size = t->work_group_size;
    out->groups_per_compute_unit = t->groups_per_compute_unit;
    out->loads_per_work_item = t->loads_per_work_item;
    out->vector_width = t->vector_width;
    return CLREDUCE_SUCCESS;
}

/* ---- clreduce_create_default --------------------------------------------- */

static int contains_ignoring_case(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (; *text; text++) {
        size_t i = 0;
        while (i < n && text[i] &&
               tolower((unsigned char)text[i]) == tolower((unsigned char)word[i]))
            i++;
        if (i == n)
            return 1;
    }
    return n == 0;
}

clreduce_status clreduce_find_device(const char *selector, cl_platform_id *platform_out,
                                     cl_device_id *device_out)
{
    clear_error(NULL);
    if (!platform_out || !device_out)
        return set_error(NULL, CLREDUCE_ERROR_INVALID_ARGUMENT, "%s is NULL",
                         !platform_out ? "platform" : "device");
    cl_uint nplatforms = 0;
    cl_platform_id platforms[32];
    cl_int err = clGetPlatformIDs(32, platforms, &nplatforms);
    if (err != CL_SUCCESS || nplatforms == 0)
        return set_error(NULL, CLREDUCE_ERROR_NO_DEVICE, "no OpenCL platform found (%s)",
                         err == CL_SUCCESS ? "none installed" : cl_error_name(err));
    if (nplatforms > 32)
        nplatforms = 32;

    /* Every device, "P:D name (platform)", for the message when none
     * matches. */
    char known[1024] = "";
    size_t known_len = 0;
    unsigned want_p = 0, want_d = 0;
    char tail;
    int by_index = selector && sscanf(selector, "%u:%u%c", &want_p, &want_d, &tail) == 2;
    for (int pass_gpu = 1; pass_gpu >= 0; pass_gpu--) {
        for (cl_uint p = 0; p < nplatforms; p++) {
            cl_uint ndevices = 0;
            cl_device_id devices[64];
            if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devices, &ndevices) !=
                CL_SUCCESS)
                continue;
            if (ndevices > 64)
                ndevices = 64;
            char platform_name[256] = "", platform_vendor[256] = "";
            clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof platform_name - 1,
                              platform_name, NULL);
            clGetPlatformInfo(platforms[p], CL_PLATFORM_VENDOR, sizeof platform_vendor - 1,
                              platform_vendor, NULL);
            for (cl_uint d = 0; d < ndevices; d++) {
                char name[256] = "";
                cl_device_type type = 0;
                clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof name - 1, name, NULL);
                clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
                if (pass_gpu && known_len < sizeof known - 1) {
                    int n = snprintf(known + known_len, sizeof known - known_len,
                                     "%s%u:%u \"%s\" (%s)", known_len ? ", " : "", p, d, name,
                                     platform_name);
                    known_len = n < 0 ? sizeof known - 1 : known_len + (size_t)n;
                    if (known_len > sizeof known - 1)
                        known_len = sizeof known - 1;
                }
                int match;
                if (by_index)
                    match = p == want_p && d == want_d;
                else if (selector)
                    match = contains_ignoring_case(platform_name, selector) ||
                            contains_ignoring_case(platform_vendor, selector) ||
                            contains_ignoring_case(name, selector);
                else
                    match = pass_gpu ? (type & CL_DEVICE_TYPE_GPU) != 0 : 1;
                if (match) {
                    *platform_out = platforms[p];
                    *device_out = devices[d];
                    return CLREDUCE_SUCCESS;
                }
            }
        }
        if (selector)
            break;
    }
    if (selector)
        return set_error(NULL, CLREDUCE_ERROR_NO_DEVICE,
                         "no OpenCL device matches CLREDUCE_DEVICE=\"%s\" (use \"P:D\" indices "
                         "or part of a platform or device name); the devices: %s",
                         selector, known_len ? known : "none");
    return set_error(NULL, CLREDUCE_ERROR_NO_DEVICE, "no OpenCL device found");
}

clreduce_status clreduce_create_default(clreduce_ctx **out)
{
    clear_error(NULL);
    if (!out)
        return set_error(NULL, CLREDUCE_ERROR_INVALID_ARGUMENT, "out is NULL");
    const char *selector = getenv("CLREDUCE_DEVICE");
    if (selector && !*selector)
        selector = NULL;
    cl_platform_id platform;
    cl_device_id device;
    clreduce_status status = clreduce_find_device(selector, &platform, &device);
    if (status != CLREDUCE_SUCCESS)
        return status;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_int err;
    cl_context context = clCreateContext(props, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return set_error(NULL, status_from_cl(err), "clCreateContext failed: %s",
                         cl_error_name(err));
    status = clreduce_create(context, device, out);
    clReleaseContext(context);
    return status;
}
