/* What validation asks of a caller's buffer (its size, that it belongs to
 * the context, where its bytes lie), asked of the runtime once per buffer:
 * the answers are kept until the runtime destroys the buffer, which runs a
 * destructor callback that drops them. A buffer's handle cannot name
 * another buffer before that, so a kept answer is never stale.
 *
 * The callbacks may run on any thread, and after clreduce_destroy() while
 * the caller still holds buffers: the cache is freed by whichever comes
 * last, its context's release or the last callback it registered. */
#include <stdlib.h>

#include "internal.h"

/* Buffers kept at most: a lookup walks them all, and the callbacks
 * registered (one per kept buffer) stay bounded. Past it, buffers are
 * asked about on every call. */
#define MEM_INFO_CAPACITY 64

typedef struct mem_entry {
    cl_mem mem;
    mem_info info;
} mem_entry;

struct mem_info_cache {
    pthread_mutex_t lock;
    mem_entry entries[MEM_INFO_CAPACITY];
    size_t count;
    size_t pending; /* callbacks registered that have not run */
    int released;   /* the context is gone: the last callback frees it */
};

mem_info_cache *mem_info_cache_create(void)
{
    mem_info_cache *c = calloc(1, sizeof *c);
    if (c && pthread_mutex_init(&c->lock, NULL) != 0) {
        free(c);
        return NULL;
    }
    return c;
}

static void cache_free(mem_info_cache *c)
{
    pthread_mutex_destroy(&c->lock);
    free(c);
}

void mem_info_cache_release(mem_info_cache *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    c->released = 1;
    int last = c->pending == 0;
    pthread_mutex_unlock(&c->lock);
    if (last)
        cache_free(c);
}

static int find(const mem_info_cache *c, cl_mem mem, mem_info *out)
{
    for (size_t i = 0; i < c->count; i++) {
        if (c->entries[i].mem == mem) {
            *out = c->entries[i].info;
            return 1;
        }
    }
    return 0;
}

/* The runtime destroys `mem`: its answers go. */
static void CL_CALLBACK forget(cl_mem mem, void *user_data)
{
    mem_info_cache *c = user_data;
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < c->count; i++) {
        if (c->entries[i].mem == mem) {
            c->entries[i] = c->entries[--c->count];
            break;
        }
    }
    c->pending--;
    int last = c->released && c->pending == 0;
    pthread_mutex_unlock(&c->lock);
    if (last)
        cache_free(c);
}

/* Keeps the answers about mem, where there is room and the runtime takes
 * the callback; otherwise they are asked again next time. The callback is
 * registered outside the lock: the runtime may hold its own locks while it
 * runs callbacks. */
static void keep(mem_info_cache *c, cl_mem mem, const mem_info *info)
{
    pthread_mutex_lock(&c->lock);
    mem_info known;
    int room = c->count < MEM_INFO_CAPACITY && !find(c, mem, &known);
    if (room)
        c->pending++;
    pthread_mutex_unlock(&c->lock);
    if (!room)
        return;
    cl_int err = clSetMemObjectDestructorCallback(mem, forget, c);
    pthread_mutex_lock(&c->lock);
    if (err != CL_SUCCESS)
        c->pending--;
    else if (c->count < MEM_INFO_CAPACITY && !find(c, mem, &known))
        c->entries[c->count++] = (mem_entry){mem, *info};
    pthread_mutex_unlock(&c->lock);
}

/* The answers, from the runtime. A sub-buffer's bytes are those of its
 * parent from its origin on; OpenCL allows no sub-buffer of a sub-buffer,
 * but following the whole chain does not rely on that. */
static clreduce_status ask(clreduce_ctx *ctx, cl_mem mem, const char *what, mem_info *out)
{
    cl_context owner = NULL;
    cl_int err = clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof out->size, &out->size, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    if (err != CL_SUCCESS)
        return query_failed(ctx, err, CL_INVALID_MEM_OBJECT, what, "buffer");
    if (owner != ctx->context)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "%s belongs to another OpenCL context", what);
    out->root = mem;
    out->base = 0;
    for (;;) {
        cl_mem parent = NULL;
        size_t origin = 0;
        err = clGetMemObjectInfo(out->root, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent,
                                 NULL);
        if (err == CL_SUCCESS && parent)
            err = clGetMemObjectInfo(out->root, CL_MEM_OFFSET, sizeof origin, &origin, NULL);
        if (err != CL_SUCCESS)
            return query_failed(ctx, err, CL_INVALID_MEM_OBJECT, what, "buffer");
        if (!parent)
            return CLREDUCE_SUCCESS;
        out->base += origin;
        out->root = parent;
    }
}

clreduce_status mem_info_of(clreduce_ctx *ctx, cl_mem mem, const char *what, mem_info *out)
{
    mem_info_cache *c = ctx->mem_info;
    pthread_mutex_lock(&c->lock);
    int known = find(c, mem, out);
    pthread_mutex_unlock(&c->lock);
    if (known)
        return CLREDUCE_SUCCESS;
    clreduce_status status = ask(ctx, mem, what, out);
    if (status == CLREDUCE_SUCCESS)
        keep(c, mem, out);
    return status;
}
