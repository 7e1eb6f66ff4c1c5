/* Compiled kernels, one per program spec and set of build options, kept
 * for the context's lifetime so that a repeated call builds nothing; a
 * program not yet in memory comes from the disk cache where it can. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void program_cache_init(program_cache *cache)
{
    memset(cache, 0, sizeof *cache);
    pthread_mutex_init(&cache->lock, NULL);
}

static void free_entry(cached_kernel *entry)
{
    for (size_t i = 0; i < CACHED_KERNELS_MAX; i++)
        if (entry->kernels[i])
            clReleaseKernel(entry->kernels[i]);
    if (entry->program)
        clReleaseProgram(entry->program);
    pthread_mutex_destroy(&entry->lock);
    free(entry->options);
    free(entry);
}

void program_cache_clear(program_cache *cache)
{
    cached_kernel *entry = cache->head;
    while (entry) {
        cached_kernel *next = entry->next;
        free_entry(entry);
        entry = next;
    }
    cache->head = NULL;
    pthread_mutex_destroy(&cache->lock);
}

/* Creates the spec's kernels of the entry's program. On failure the
 * kernels made are released, *failed names the one that failed, and the
 * OpenCL error is returned. */
static cl_int create_kernels(cached_kernel *entry, const char **failed)
{
    const char *const *names = entry->spec->kernels;
    size_t count = entry->spec->nkernels;
    for (size_t i = 0; i < count; i++) {
        cl_int err;
        entry->kernels[i] = clCreateKernel(entry->program, names[i], &err);
        if (err != CL_SUCCESS) {
            entry->kernels[i] = NULL;
            for (size_t j = 0; j < i; j++) {
                clReleaseKernel(entry->kernels[j]);
                entry->kernels[j] = NULL;
            }
            *failed = names[i];
            return err;
        }
    }
    return CL_SUCCESS;
}

/* The program from the disk cache with all its kernels, or 0 with nothing
 * kept. A binary that loads but lacks a kernel (another program's, stored
 * under this key) is as stale as one that fails to load: the caller builds
 * from source, which replaces the file. */
static int load_entry(clreduce_ctx *ctx, cached_kernel *entry)
{
    const program_spec *spec = entry->spec;
    entry->program = disk_cache_load(ctx, entry->options, spec->sources, spec->nsources);
    if (!entry->program)
        return 0;
    const char *failed = NULL;
    cl_int err = create_kernels(entry, &failed);
    if (err == CL_SUCCESS)
        return 1;
    char why[256];
    snprintf(why, sizeof why, "creating kernel %s of the binary failed (%s)", failed,
             cl_error_name(err));
    disk_cache_reject(ctx, entry->options, spec->sources, spec->nsources, why);
    clReleaseProgram(entry->program);
    entry->program = NULL;
    return 0;
}

static clreduce_status build_entry(clreduce_ctx *ctx, const program_spec *spec,
                                   const defines *defs, int needs_std, cached_kernel **out)
{
    cl_int err;
    char options[2048]; /* room for every plan and 1024 bytes of the caller's */
    if (defines_write(defs, needs_std ? ctx->cl_std_option : NULL, ctx->settings.build_options,
                      options, sizeof options) >= sizeof options)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "build options too long");
    cached_kernel *entry = calloc(1, sizeof *entry);
    if (!entry || !(entry->options = strdup(options))) {
        free(entry);
        return set_error(ctx, CLREDUCE_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    entry->spec = spec;
    entry->defs = *defs;
    entry->needs_std = needs_std;
    pthread_mutex_init(&entry->lock, NULL);

    if (load_entry(ctx, entry)) {
        ctx->cache.programs_loaded++;
        *out = entry;
        return CLREDUCE_SUCCESS;
    }

    entry->program = clCreateProgramWithSource(ctx->context, (cl_uint)spec->nsources,
                                               (const char **)spec->sources, NULL, &err);
    if (err != CL_SUCCESS) {
        entry->program = NULL;
        free_entry(entry);
        return set_error(ctx, status_from_cl(err), "clCreateProgramWithSource failed: %s",
                         cl_error_name(err));
    }
    err = clBuildProgram(entry->program, 1, &ctx->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        clreduce_status status = err == CL_BUILD_PROGRAM_FAILURE ? CLREDUCE_ERROR_BUILD
                                                                 : status_from_cl(err);
        set_error(ctx, status, "clBuildProgram failed (%s) with options \"%s\"",
                  cl_error_name(err), options);
        append_build_log(ctx, entry->program, spec->sources, spec->nsources);
        free_entry(entry);
        return status;
    }
    ctx->cache.programs_built++;
    const char *failed = NULL;
    err = create_kernels(entry, &failed);
    if (err != CL_SUCCESS) {
        free_entry(entry);
        return set_error(ctx, status_from_cl(err), "creating kernel %s failed: %s", failed,
                         cl_error_name(err));
    }
    /* Stored once its kernels exist, so that the disk never holds a binary
     * this library could not use. */
    disk_cache_store(ctx, options, spec->sources, spec->nsources, entry->program);
    *out = entry;
    return CLREDUCE_SUCCESS;
}

clreduce_status program_cache_get(clreduce_ctx *ctx, const program_spec *spec,
                                  const defines *defs, int needs_std, cached_kernel **out)
{
    program_cache *cache = &ctx->cache;
    clreduce_status status = CLREDUCE_SUCCESS;
    pthread_mutex_lock(&cache->lock);
    cached_kernel *entry = cache->head;
    while (entry && (entry->spec != spec || entry->needs_std != needs_std ||
                     !defines_equal(&entry->defs, defs)))
        entry = entry->next;
    if (entry) {
        cache->cache_hits++;
    } else {
        /* Built under the lock: two threads asking for the same kernel get
         * one build, and builds are rare. */
        status = build_entry(ctx, spec, defs, needs_std, &entry);
        if (status == CLREDUCE_SUCCESS) {
            entry->next = cache->head;
            cache->head = entry;
        }
    }
    pthread_mutex_unlock(&cache->lock);
    *out = entry;
    return status;
}

void program_cache_drop(clreduce_ctx *ctx, const program_spec *spec)
{
    program_cache *cache = &ctx->cache;
    pthread_mutex_lock(&cache->lock);
    cached_kernel **link = &cache->head;
    while (*link) {
        cached_kernel *entry = *link;
        if (entry->spec == spec) {
            *link = entry->next;
            free_entry(entry);
        } else {
            link = &entry->next;
        }
    }
    pthread_mutex_unlock(&cache->lock);
}
