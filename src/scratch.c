/* Scratch memory for the single-pass kernel. On an in-order queue the calls
 * run one after another, so one buffer per queue serves them all: it is
 * zeroed once and every launch leaves its ticket at zero. The queue is
 * retained while its scratch lives, so that its handle is not reused for
 * another queue. An out-of-order queue gets a fresh buffer per call. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void scratch_pool_init(scratch_pool *pool)
{
    memset(pool, 0, sizeof *pool);
    pthread_mutex_init(&pool->lock, NULL);
}

void scratch_pool_clear(scratch_pool *pool)
{
    queue_scratch *s = pool->head;
    while (s) {
        queue_scratch *next = s->next;
        if (s->buffer)
            clReleaseMemObject(s->buffer);
        if (s->scan_buffer)
            clReleaseMemObject(s->scan_buffer);
        pthread_mutex_destroy(&s->scan_lock);
        clReleaseCommandQueue(s->queue);
        free(s);
        s = next;
    }
    pool->head = NULL;
    pthread_mutex_destroy(&pool->lock);
}

/* The entry of `queue`, created on first use; the pool's lock is held. */
static queue_scratch *find_entry(clreduce_ctx *ctx, cl_command_queue queue)
{
    scratch_pool *pool = &ctx->scratch;
    queue_scratch *s = pool->head;
    while (s && s->queue != queue)
        s = s->next;
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s)
            return NULL;
        pthread_mutex_init(&s->scan_lock, NULL);
        clRetainCommandQueue(queue);
        s->queue = queue;
        s->next = pool->head;
        pool->head = s;
    }
    return s;
}

clreduce_status scratch_for_queue(clreduce_ctx *ctx, cl_command_queue queue, int in_order,
                                  size_t size, cl_mem *buffer, int *needs_zero)
{
    cl_int err;
    if (!in_order) {
        *buffer = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, size, NULL, &err);
        *needs_zero = 1;
        return err == CL_SUCCESS ? CLREDUCE_SUCCESS
                                 : set_error(ctx, status_from_cl(err),
                                             "allocating %zu bytes of scratch failed: %s", size,
                                             cl_error_name(err));
    }
    scratch_pool *pool = &ctx->scratch;
    clreduce_status status = CLREDUCE_SUCCESS;
    pthread_mutex_lock(&pool->lock);
    queue_scratch *s = find_entry(ctx, queue);
    if (!s) {
        pthread_mutex_unlock(&pool->lock);
        return set_error(ctx, CLREDUCE_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    if (!s->buffer) {
        s->buffer = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, size, NULL, &err);
        if (err != CL_SUCCESS) {
            s->buffer = NULL;
            status = set_error(ctx, status_from_cl(err), "allocating %zu bytes of scratch failed: %s",
                               size, cl_error_name(err));
        }
        s->zeroed = 0;
    }
    if (status == CLREDUCE_SUCCESS) {
        clRetainMemObject(s->buffer);
        *buffer = s->buffer;
        *needs_zero = !s->zeroed;
    }
    pthread_mutex_unlock(&pool->lock);
    return status;
}

void scratch_mark_zeroed(clreduce_ctx *ctx, cl_command_queue queue)
{
    pthread_mutex_lock(&ctx->scratch.lock);
    for (queue_scratch *s = ctx->scratch.head; s; s = s->next)
        if (s->queue == queue)
            s->zeroed = 1;
    pthread_mutex_unlock(&ctx->scratch.lock);
}

/* Epochs use 30 bits of a status word; after the last one the buffer is
 * zeroed again and they start over. */
#define SCAN_EPOCH_LIMIT (1u << 30)

clreduce_status scan_scratch_acquire(clreduce_ctx *ctx, cl_command_queue queue, int in_order,
                                     size_t size, scan_scratch_lease *lease)
{
    cl_int err;
    memset(lease, 0, sizeof *lease);
    if (!in_order) {
        lease->buffer = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, size, NULL, &err);
        if (err != CL_SUCCESS) {
            lease->buffer = NULL;
            return set_error(ctx, status_from_cl(err),
                             "allocating %zu bytes of scan scratch failed: %s", size,
                             cl_error_name(err));
        }
        lease->size = size;
        lease->epoch = 1;
        lease->needs_zero = 1;
        return CLREDUCE_SUCCESS;
    }
    scratch_pool *pool = &ctx->scratch;
    pthread_mutex_lock(&pool->lock);
    queue_scratch *s = find_entry(ctx, queue);
    pthread_mutex_unlock(&pool->lock);
    if (!s)
        return set_error(ctx, CLREDUCE_ERROR_OUT_OF_MEMORY, "out of host memory");
    pthread_mutex_lock(&s->scan_lock);
    if (s->scan_size < size) {
        /* Grow geometrically, so that rising counts reallocate rarely. The
         * old buffer lives on until the commands that use it complete. */
        size_t grown = s->scan_size * 2 > size ? s->scan_size * 2 : size;
        cl_mem buffer = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, grown, NULL, &err);
        if (err != CL_SUCCESS && grown > size)
            buffer = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, grown = size, NULL, &err);
        if (err != CL_SUCCESS) {
            pthread_mutex_unlock(&s->scan_lock);
            return set_error(ctx, status_from_cl(err),
                             "allocating %zu bytes of scan scratch failed: %s", size,
                             cl_error_name(err));
        }
        if (s->scan_buffer)
            clReleaseMemObject(s->scan_buffer);
        s->scan_buffer = buffer;
        s->scan_size = grown;
        s->scan_zeroed = 0;
    }
    if (++s->scan_epoch >= SCAN_EPOCH_LIMIT || !s->scan_zeroed) {
        s->scan_epoch = 1;
        s->scan_zeroed = 0;
    }
    clRetainMemObject(s->scan_buffer);
    lease->buffer = s->scan_buffer;
    lease->size = s->scan_size;
    lease->epoch = s->scan_epoch;
    lease->needs_zero = !s->scan_zeroed;
    lease->entry = s;
    return CLREDUCE_SUCCESS;
}

void scan_scratch_release(scan_scratch_lease *lease, int enqueued)
{
    queue_scratch *s = lease->entry;
    if (s) {
        if (enqueued)
            s->scan_zeroed = 1;
        pthread_mutex_unlock(&s->scan_lock);
    }
    if (lease->buffer)
        clReleaseMemObject(lease->buffer);
    lease->buffer = NULL;
}
