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
        clReleaseMemObject(s->buffer);
        clReleaseCommandQueue(s->queue);
        free(s);
        s = next;
    }
    pool->head = NULL;
    pthread_mutex_destroy(&pool->lock);
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
    queue_scratch *s = pool->head;
    while (s && s->queue != queue)
        s = s->next;
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s) {
            pthread_mutex_unlock(&pool->lock);
            return set_error(ctx, CLREDUCE_ERROR_OUT_OF_MEMORY, "out of host memory");
        }
        clRetainCommandQueue(queue);
        s->queue = queue;
        s->next = pool->head;
        pool->head = s;
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
