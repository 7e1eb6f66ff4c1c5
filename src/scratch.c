/* Scratch memory kept between calls: the single-pass reduction's (ticket +
 * partials) and the look-back's of the scan and of the segments' single
 * pass (ticket + status words + values).
 * On an in-order queue the calls run one after another, so one buffer per
 * queue serves them all; an out-of-order queue gets fresh buffers per call.
 *
 * Every buffer is zero from its creation: written from host memory by
 * clCreateBuffer itself rather than by an enqueued fill. A fill would wait
 * for the caller's wait list, and if one of those events failed it would
 * never run, leaving the buffer unzeroed for every later call on the queue.
 *
 * Entries are found by the queue's handle and do not retain the queue, so
 * that a caller's release frees it. A released queue is deleted only once
 * its commands have finished, so a later queue that gets the same handle
 * finds scratch that no running command uses, zeroed or left as a finished
 * launch leaves it: as good as its own. The pool keeps the most recently
 * used SCRATCH_QUEUES_MAX entries, so that memory stays bounded however many
 * queues come and go; a queue whose entry was dropped gets a fresh one. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void scratch_pool_init(scratch_pool *pool)
{
    memset(pool, 0, sizeof *pool);
    pthread_mutex_init(&pool->lock, NULL);
}

#define SCRATCH_QUEUES_MAX 64

static void free_entry(queue_scratch *s)
{
    if (s->buffer)
        clReleaseMemObject(s->buffer);
    if (s->lookback_buffer)
        clReleaseMemObject(s->lookback_buffer);
    if (s->temp_buffer)
        clReleaseMemObject(s->temp_buffer);
    pthread_mutex_destroy(&s->lookback_lock);
    pthread_mutex_destroy(&s->temp_lock);
    free(s);
}

void scratch_pool_clear(scratch_pool *pool)
{
    for (queue_scratch *s = pool->head, *next; s; s = next) {
        next = s->next;
        free_entry(s);
    }
    pool->head = NULL;
    pthread_mutex_destroy(&pool->lock);
}

/* The entry of `queue`, created on first use, moved to the front of the
 * list (most recently used first); beyond SCRATCH_QUEUES_MAX entries the
 * least recently used one that no lease holds is freed. The pool's lock is
 * held. Commands still running keep their buffers alive in the runtime. */
static queue_scratch *find_entry(scratch_pool *pool, cl_command_queue queue)
{
    queue_scratch **link = &pool->head, *s;
    size_t count = 0;
    while ((s = *link) && s->queue != queue) {
        link = &s->next;
        count++;
    }
    if (s) {
        *link = s->next;
    } else {
        if (count >= SCRATCH_QUEUES_MAX) {
            queue_scratch **victim = NULL;
            for (link = &pool->head; *link; link = &(*link)->next)
                if (!(*link)->leases)
                    victim = link;
            if (victim) {
                queue_scratch *v = *victim;
                *victim = v->next;
                free_entry(v);
            }
        }
        s = calloc(1, sizeof *s);
        if (!s)
            return NULL;
        pthread_mutex_init(&s->lookback_lock, NULL);
        pthread_mutex_init(&s->temp_lock, NULL);
        s->queue = queue;
    }
    s->next = pool->head;
    pool->head = s;
    return s;
}

/* A buffer of `size` bytes, all zero, in *out. */
static clreduce_status create_zeroed(clreduce_ctx *ctx, size_t size, const char *what,
                                     cl_mem *out)
{
    *out = NULL;
    void *zeros = calloc(1, size);
    if (!zeros)
        return set_error(ctx, CLREDUCE_ERROR_OUT_OF_MEMORY,
                         "out of host memory for %zu bytes of %s", size, what);
    cl_int err;
    cl_mem buffer = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, size,
                                   zeros, &err);
    free(zeros);
    if (err != CL_SUCCESS)
        return set_error(ctx, status_from_cl(err), "allocating %zu bytes of %s failed: %s", size,
                         what, cl_error_name(err));
    *out = buffer;
    return CLREDUCE_SUCCESS;
}

clreduce_status scratch_for_queue(clreduce_ctx *ctx, cl_command_queue queue, int in_order,
                                  size_t size, cl_mem *buffer)
{
    static const char what[] = "scratch";
    if (!in_order)
        return create_zeroed(ctx, size, what, buffer);
    scratch_pool *pool = &ctx->scratch;
    clreduce_status status = CLREDUCE_SUCCESS;
    pthread_mutex_lock(&pool->lock);
    queue_scratch *s = find_entry(pool, queue);
    if (!s)
        status = set_error(ctx, CLREDUCE_ERROR_OUT_OF_MEMORY, "out of host memory");
    else if (!s->buffer)
        status = create_zeroed(ctx, size, what, &s->buffer);
    if (status == CLREDUCE_SUCCESS) {
        clRetainMemObject(s->buffer);
        *buffer = s->buffer;
    }
    pthread_mutex_unlock(&pool->lock);
    return status;
}

size_t lookback_scratch_size(size_t tiles)
{
    return CLR_SCRATCH_HEADER + tiles * CLR_LOOKBACK_SLOT_BYTES;
}

/* Epochs fill a status word's bits above its state (cl/contract.h); after
 * the last one the queue gets a fresh buffer and they start over. */
clreduce_status lookback_scratch_acquire(clreduce_ctx *ctx, cl_command_queue queue,
                                         int in_order, size_t size, lookback_lease *lease)
{
    static const char what[] = "look-back scratch";
    memset(lease, 0, sizeof *lease);
    if (!in_order) {
        lease->size = size;
        lease->epoch = 1;
        return create_zeroed(ctx, size, what, &lease->buffer);
    }
    scratch_pool *pool = &ctx->scratch;
    pthread_mutex_lock(&pool->lock);
    queue_scratch *s = find_entry(pool, queue);
    if (s)
        s->leases++;
    pthread_mutex_unlock(&pool->lock);
    if (!s)
        return set_error(ctx, CLREDUCE_ERROR_OUT_OF_MEMORY, "out of host memory");
    pthread_mutex_lock(&s->lookback_lock);
    if (s->lookback_size < size || s->lookback_epoch + 1 >= CLR_EPOCH_LIMIT) {
        /* Grow geometrically, so that rising counts reallocate rarely. The
         * old buffer lives on until the commands that use it complete. */
        size_t grown = s->lookback_size * 2 > size ? s->lookback_size * 2 : size;
        cl_mem buffer;
        clreduce_status status = create_zeroed(ctx, grown, what, &buffer);
        if (status != CLREDUCE_SUCCESS && grown > size)
            status = create_zeroed(ctx, grown = size, what, &buffer);
        if (status != CLREDUCE_SUCCESS) {
            lease->entry = s;
            lease->pool = pool;
            lookback_scratch_release(lease);
            return status;
        }
        if (s->lookback_buffer)
            clReleaseMemObject(s->lookback_buffer);
        s->lookback_buffer = buffer;
        s->lookback_size = grown;
        s->lookback_epoch = 0;
    }
    clRetainMemObject(s->lookback_buffer);
    lease->buffer = s->lookback_buffer;
    lease->size = s->lookback_size;
    lease->epoch = ++s->lookback_epoch;
    lease->entry = s;
    lease->pool = pool;
    return CLREDUCE_SUCCESS;
}

void lookback_scratch_release(lookback_lease *lease)
{
    if (lease->entry) {
        pthread_mutex_unlock(&lease->entry->lookback_lock);
        pthread_mutex_lock(&lease->pool->lock);
        lease->entry->leases--;
        pthread_mutex_unlock(&lease->pool->lock);
        lease->entry = NULL;
    }
    if (lease->buffer)
        clReleaseMemObject(lease->buffer);
    lease->buffer = NULL;
}

/* ---- temporary results ------------------------------------------------------ */

static clreduce_status create_plain(clreduce_ctx *ctx, size_t bytes, cl_mem *out)
{
    cl_int err;
    *out = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        *out = NULL;
        return set_error(ctx, status_from_cl(err), "allocating %zu bytes of temporary results "
                         "failed: %s", bytes, cl_error_name(err));
    }
    return CLREDUCE_SUCCESS;
}

clreduce_status create_temp(clreduce_ctx *ctx, chain *c, size_t bytes, cl_mem *out)
{
    *out = NULL;
    if (!c->in_order || c->temp_entry)
        return create_plain(ctx, bytes, out);
    scratch_pool *pool = &ctx->scratch;
    pthread_mutex_lock(&pool->lock);
    queue_scratch *s = find_entry(pool, c->queue);
    if (s)
        s->leases++;
    pthread_mutex_unlock(&pool->lock);
    if (!s)
        return set_error(ctx, CLREDUCE_ERROR_OUT_OF_MEMORY, "out of host memory");
    pthread_mutex_lock(&s->temp_lock);
    c->temp_entry = s;
    c->temp_pool = pool;
    if (s->temp_size < bytes) {
        /* Grown geometrically, so that rising sizes reallocate rarely; the
         * old buffer lives on until the commands that use it complete. */
        size_t grown = s->temp_size * 2 > bytes ? s->temp_size * 2 : bytes;
        cl_mem buffer;
        clreduce_status status = create_plain(ctx, grown, &buffer);
        if (status != CLREDUCE_SUCCESS && grown > bytes)
            status = create_plain(ctx, grown = bytes, &buffer);
        if (status != CLREDUCE_SUCCESS) {
            temp_release(c);
            return status;
        }
        if (s->temp_buffer)
            clReleaseMemObject(s->temp_buffer);
        s->temp_buffer = buffer;
        s->temp_size = grown;
    }
    clRetainMemObject(s->temp_buffer);
    *out = s->temp_buffer;
    return CLREDUCE_SUCCESS;
}

void temp_release(chain *c)
{
    queue_scratch *s = c->temp_entry;
    if (!s)
        return;
    pthread_mutex_unlock(&s->temp_lock);
    pthread_mutex_lock(&c->temp_pool->lock);
    s->leases--;
    pthread_mutex_unlock(&c->temp_pool->lock);
    c->temp_entry = NULL;
}
