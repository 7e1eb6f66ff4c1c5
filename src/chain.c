/* Chains of commands: a call's commands run in order, the first after the
 * caller's wait list. On an in-order queue the queue orders them; on an
 * out-of-order queue each waits for the event of the one before. Events
 * are made only where something needs them (an out-of-order queue, or the
 * caller asking for `first` or `done`; on an in-order queue not for a
 * command that chain_intermediate() says another follows), since each
 * costs the driver time. On PoCL, behind a wait list, every command makes
 * one, all kept until the call's last command is over (chain_start()).
 * And the commands themselves: fills, markers, kernel launches, temporary
 * buffers. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void chain_start(chain *c, cl_command_queue queue, int in_order, cl_uint num_wait,
                 const cl_event *wait, int first_wanted, int done_wanted, held_events *hold)
{
    c->queue = queue;
    c->num_wait = num_wait;
    c->wait = wait;
    c->first = c->last = NULL;
    c->count = 0;
    c->in_order = in_order;
    c->events = first_wanted || done_wanted || !in_order || hold;
    c->want_first = first_wanted;
    c->hold = hold;
    c->nkept = 0;
    c->skip_next = 0;
    c->tail_event = 0;
    c->temp_entry = NULL;
    c->temp_pool = NULL;
}

void chain_intermediate(chain *c)
{
    c->skip_next = c->in_order && !c->hold && !(c->count == 0 && c->want_first);
}

cl_event *chain_event_slot(chain *c)
{
    return c->events && !c->skip_next ? &c->next : NULL;
}

void held_events_init(held_events *h)
{
    pthread_mutex_init(&h->lock, NULL);
    h->head = NULL;
}

static void release_group(held_group *g)
{
    for (size_t i = 0; i < g->count; i++)
        clReleaseEvent(g->events[i]);
    clReleaseEvent(g->last);
    free(g->events);
    free(g);
}

void held_events_clear(held_events *h)
{
    while (h->head) {
        held_group *g = h->head;
        h->head = g->next;
        release_group(g);
    }
    pthread_mutex_destroy(&h->lock);
}

static int over(cl_event e)
{
    cl_int status = CL_QUEUED;
    return clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL) !=
               CL_SUCCESS ||
           status <= CL_COMPLETE;
}

/* Keeps the chain's events (and a reference of its last) in c->hold, after
 * releasing the groups of earlier calls that are over. Where no memory is
 * left they are released now. */
static void hold_events(chain *c)
{
    held_events *h = c->hold;
    held_group *g = malloc(sizeof *g);
    cl_event *events = malloc((size_t)c->nkept * sizeof *events);
    pthread_mutex_lock(&h->lock);
    for (held_group **at = &h->head; *at;) {
        held_group *old = *at;
        if (over(old->last)) {
            *at = old->next;
            release_group(old);
        } else {
            at = &old->next;
        }
    }
    if (g && events) {
        memcpy(events, c->kept, (size_t)c->nkept * sizeof *events);
        clRetainEvent(c->last);
        *g = (held_group){events, (size_t)c->nkept, c->last, h->head};
        h->head = g;
        g = NULL;
        events = NULL;
    } else {
        for (int i = 0; i < c->nkept; i++)
            clReleaseEvent(c->kept[i]);
    }
    pthread_mutex_unlock(&h->lock);
    free(g);
    free(events);
    c->nkept = 0;
}

/* Counts a command just enqueued and takes ownership of its event, if it
 * has one. `first` holds a reference of its own, so that it outlives the
 * later commands' events. The command before lets go of its event, or
 * keeps it in the chain where c->hold says so. */
void chain_push(chain *c)
{
    c->tail_event = c->events && !c->skip_next;
    if (c->tail_event) {
        if (c->count == 0) {
            clRetainEvent(c->next);
            c->first = c->next;
        } else if (c->last) {
            if (c->hold && c->nkept < CHAIN_KEPT_MAX)
                c->kept[c->nkept++] = c->last;
            else
                clReleaseEvent(c->last);
        }
        c->last = c->next;
    }
    c->skip_next = 0;
    c->count++;
}

clreduce_status chain_seal(clreduce_ctx *ctx, chain *c)
{
    /* `done` must be the last command's event. A family that marked its
     * last command intermediate left it without one: a marker behind it
     * makes one, rather than hand out an earlier command's. */
    if (c->events && c->count > 0 && !c->tail_event)
        return enqueue_marker(ctx, c);
    return CLREDUCE_SUCCESS;
}

cl_uint chain_wait_count(const chain *c)
{
    if (c->count == 0)
        return c->num_wait;
    return c->in_order ? 0 : 1;
}

const cl_event *chain_wait_list(const chain *c)
{
    if (c->count == 0)
        return c->num_wait ? c->wait : NULL;
    return c->in_order ? NULL : &c->last;
}

void chain_finish(chain *c, cl_event *first, cl_event *done)
{
    if (c->count == 0 || !c->events)
        return;
    if (c->nkept > 0)
        hold_events(c);
    if (done)
        *done = c->last;
    else if (c->last)
        clReleaseEvent(c->last);
    if (first)
        *first = c->first;
    else if (c->first)
        clReleaseEvent(c->first);
}

void chain_abandon(chain *c)
{
    if (c->count == 0)
        return;
    if (c->tail_event)
        clWaitForEvents(1, &c->last);
    else
        clFinish(c->queue);
    chain_finish(c, NULL, NULL);
}

clreduce_status enqueue_fill(clreduce_ctx *ctx, chain *c, cl_mem buffer, const void *pattern,
                                    size_t pattern_size, size_t offset, size_t size)
{
    cl_int err = clEnqueueFillBuffer(c->queue, buffer, pattern, pattern_size, offset, size,
                                     chain_wait_count(c), chain_wait_list(c),
                                     chain_event_slot(c));
    if (err != CL_SUCCESS)
        return set_error(ctx, status_from_cl(err), "clEnqueueFillBuffer failed: %s",
                         cl_error_name(err));
    chain_push(c);
    return CLREDUCE_SUCCESS;
}

clreduce_status enqueue_copy(clreduce_ctx *ctx, chain *c, cl_mem buffer, size_t from, size_t to,
                             size_t size)
{
    cl_int err = clEnqueueCopyBuffer(c->queue, buffer, buffer, from, to, size,
                                     chain_wait_count(c), chain_wait_list(c),
                                     chain_event_slot(c));
    if (err != CL_SUCCESS)
        return set_error(ctx, status_from_cl(err), "clEnqueueCopyBuffer failed: %s",
                         cl_error_name(err));
    chain_push(c);
    return CLREDUCE_SUCCESS;
}

clreduce_status enqueue_marker(clreduce_ctx *ctx, chain *c)
{
    cl_int err = clEnqueueMarkerWithWaitList(c->queue, chain_wait_count(c), chain_wait_list(c),
                                             chain_event_slot(c));
    if (err != CL_SUCCESS)
        return set_error(ctx, status_from_cl(err), "clEnqueueMarkerWithWaitList failed: %s",
                         cl_error_name(err));
    chain_push(c);
    return CLREDUCE_SUCCESS;
}

clreduce_status enqueue_kernel_args(clreduce_ctx *ctx, chain *c, cached_kernel *k, int which,
                                    size_t groups, size_t work_group_size, const kernel_arg *args,
                                    cl_uint nargs)
{
    cl_kernel kernel = k->kernels[which];
    size_t global = groups * work_group_size;
    cl_int err = CL_SUCCESS;
    pthread_mutex_lock(&k->lock);
    for (cl_uint i = 0; i < nargs && err == CL_SUCCESS; i++)
        err = clSetKernelArg(kernel, i, args[i].size, args[i].value);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(c->queue, kernel, 1, NULL, &global, &work_group_size,
                                     chain_wait_count(c), chain_wait_list(c),
                                     chain_event_slot(c));
    pthread_mutex_unlock(&k->lock);
    if (err == CL_INVALID_WORK_GROUP_SIZE)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "the device cannot run this kernel with %zu work-items per work-group: "
                         "choose a smaller work_group_size",
                         work_group_size);
    if (err != CL_SUCCESS)
        return set_error(ctx, status_from_cl(err), "enqueueing kernel %d failed: %s", which,
                         cl_error_name(err));
    chain_push(c);
    return CLREDUCE_SUCCESS;
}
