/*
 * grid_accumulators.cl — the pieces of a grid-sized reduction over one of
 * operators.cl's accumulators, below the kernels (reduce_operators.cl,
 * reduce_multi.cl): a work-item's share of the input as an accumulator,
 * the work-group's reduction of those, and the combination of the
 * work-groups' partial accumulators.
 *
 * Compile-time parameters: those of types.cl, operators.cl and grid_walk.cl.
 *
 * Provides:
 *   clr_item_tail(in, in2, n)     the work-item's element of the last
 *                                 n % CLR_VEC of in[0 .. n), as an
 *                                 accumulator (the identity for most)
 *   clr_item_result(acc, any, in, in2, share)
 *                                 the accumulator of what the vector
 *                                 accumulator acc took on the work-item's
 *                                 walk of `share` (norm2 walks it again
 *                                 where its squares need scaling)
 *   clr_thread_reduce(in, in2, n) the work-item's whole share of in[0 .. n)
 *                                 (argmin and argmax: through clr_w, one
 *                                 key a work-item, not operators.cl's clr_v)
 *   clr_wg_reduce_a(l, v)         the work-group's reduction of v (l: local
 *                                 room for CLR_WG accumulators); the result
 *                                 in every work-item
 *   clr_combine_partials(l, partials, count)
 *                                 one work-group's reduction of the
 *                                 accumulators partials[0 .. count)
 * in a fixed order of combination, so that a result is the same bits every
 * time: a tree in local memory, its nodes combining l[i] with l[i + s].
 *
 * A user-defined operator that is not commutative keeps the order of
 * elements instead (CLR_ORDERED): each work-item combines a contiguous run
 * of elements in order, and work-items and partials are combined in the
 * order of their runs.
 *
 * reduce_multi.cl includes this file once per operator, after operators.cl;
 * then (CLR_X_SLOT defined) its names are renamed as operators.cl's are.
 */

#ifdef CLR_X_SLOT
#define clr_item_tail CLR_X_SLOT(clr_item_tail)
#define clr_item_result CLR_X_SLOT(clr_item_result)
#define clr_thread_reduce CLR_X_SLOT(clr_thread_reduce)
#define clr_wg_reduce_a CLR_X_SLOT(clr_wg_reduce_a)
#define clr_combine_partials CLR_X_SLOT(clr_combine_partials)
#define clr_w CLR_X_SLOT(clr_w)
#define clr_w_best CLR_X_SLOT(clr_w_best)
#define clr_w_init CLR_X_SLOT(clr_w_init)
#define clr_w_add CLR_X_SLOT(clr_w_add)
#define clr_w_vector CLR_X_SLOT(clr_w_vector)
#define clr_w_result CLR_X_SLOT(clr_w_result)
#endif

#if CLR_X_TWO_INPUTS
#define CLR_ITEM_OF(in, in2, i) clr_a_of((in)[i], (in2)[i], (i))
#else
#define CLR_ITEM_OF(in, in2, i) clr_a_of((in)[i], (in)[i], (i))
#endif

#if CLR_ORDERED && CLR_GRID_PER_GROUP
#error "an ordered walk covers the whole grid"
#endif

#if CLR_ORDERED
/* This work-item's share of in[0 .. n) (and in2[0 .. n)): a run of
 * elements, the runs of the grid's work-items in the order of their global
 * ids, combined in order. */
clr_a clr_thread_reduce(global const T *restrict in, global const T *restrict in2, ulong n)
{
    ulong items = get_global_size(0);
    ulong per = n / items + (n % items != 0);
    ulong begin = min(n, (ulong)get_global_id(0) * per), end = min(n, begin + per);
    clr_a a = clr_a_identity();
    for (ulong i = begin; i < end; i++)
        a = clr_a_combine(a, CLR_ITEM_OF(in, in2, i));
    return a;
}

/* Work-group reduction of the work-items' accumulators in the order of
 * their local ids: a tree in local memory whose every node combines a left
 * neighbour with the one on its right; the result in every work-item. */
clr_a clr_wg_reduce_a(local clr_a *l, clr_a v)
{
    uint lid = (uint)get_local_id(0);
    l[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < CLR_WG; s <<= 1) {
        if (lid % (2 * s) == 0)
            l[lid] = clr_a_combine(l[lid], l[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return l[0];
}

/* One work-group combines partials[0 .. count) in order: each work-item a
 * run of them, then the runs. */
clr_a clr_combine_partials(local clr_a *l, volatile global clr_a *partials, uint count)
{
    uint per = count / CLR_WG + (count % CLR_WG != 0);
    uint begin = min(count, (uint)get_local_id(0) * per), end = min(count, begin + per);
    clr_a v = clr_a_identity();
    for (uint k = begin; k < end; k++) {
        clr_a p = partials[k];
        v = clr_a_combine(v, p);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return clr_wg_reduce_a(l, v);
}

#else /* CLR_ORDERED */

clr_a clr_item_tail(global const T *restrict in, global const T *restrict in2, ulong n)
{
    clr_a tail = clr_a_identity();
#if CLR_VEC > 1
    ulong first = n / CLR_VEC * CLR_VEC, gid = clr_grid_id();
    if (gid < n - first)
        tail = CLR_ITEM_OF(in, in2, first + gid);
#endif
    return tail;
}

#define CLR_ADD_SCALED(x, y, t, k) scaled = clr_x_norm_add_scaled(scaled, (x), e);

clr_a clr_item_result(clr_v acc, int any, global const T *restrict in,
                      global const T *restrict in2, clr_share share)
{
    clr_a a = clr_v_result(acc, any, share.first, share.stride);
#if CLR_OP == CLR_OP_NORM2
    int e = any ? clr_x_norm_exponent(clr_x_norm_amax(acc), a.q) : 0;
    if (e != 0) {
        VT scaled = (VT)0;
        CLR_WALK_ALL(CLR_ADD_SCALED, share)
        a = clr_x_norm_scaled_result(scaled, e);
    }
#endif
    return a;
}

#if CLR_OP == CLR_OP_CUSTOM
#define CLR_ADD(x, y, t, k) acc = clr_v_add_at(acc, (x), (y), (k));
#else
#define CLR_ADD(x, y, t, k) acc = clr_v_add(acc, (x), (y), (t));
#endif

#if CLR_X_IS_ARG
/* A work-item's accumulator of argmin or argmax over its walk: one key,
 * the best of the vectors' best lanes, and the tag of the add that brought
 * it (the first of equal keys); the lane is found at the end, in that
 * vector loaded again (clr_w_result). Per element it takes a key and a
 * share of a tree over the vector's lanes, where clr_v takes a key, a
 * comparison and two selections. The same result as clr_v's: the best key,
 * the smallest index among its elements. */
typedef struct clr_w {
    KT key;
    TG tag;
} clr_w;

KT clr_w_best(KVT k)
{
#if CLR_VEC == 1
    return k;
#else
    KT l[CLR_VEC];
    CLR_X_VSTORE(k, l);
    for (uint w = CLR_VEC / 2; w > 0; w >>= 1)
        for (uint j = 0; j < w; j++)
            l[j] = CLR_X_BETTER(l[j + w], l[j]) ? l[j + w] : l[j];
    return l[0];
#endif
}

/* Through a pointer rather than by value: Oclgrind 21.10 could not run the
 * kernel where a function returning this struct was inlined (LLVM's
 * noalias.scope.decl, which it does not know). */
void clr_w_init(clr_w *w, VT first)
{
    w->key = clr_w_best(clr_x_keyv(first));
    w->tag = 0;
}

void clr_w_add(clr_w *w, VT x, TG tag)
{
    KT k = clr_w_best(clr_x_keyv(x));
    if (CLR_X_BETTER(k, w->key)) {
        w->key = k;
        w->tag = tag;
    }
}

/* The element vector of w's tag, as clr_v_result() finds it. */
ulong clr_w_vector(clr_w w, ulong first, ulong stride)
{
    return first + (ulong)(w.tag / CLR_UNROLL) * stride + (ulong)(w.tag % CLR_UNROLL) * CLR_WG;
}

/* The result of w, of one add or more: `again` is the element vector
 * `vector` of its tag, loaded again. */
clr_a clr_w_result(clr_w w, VT again, ulong vector)
{
    KT l[CLR_VEC];
    CLR_X_VSTORE(clr_x_keyv(again), l);
    uint lane = 0;
    for (uint j = CLR_VEC; j-- > 0;)
        if (l[j] == w.key)
            lane = j;
    clr_a a = {.key = w.key, .index = vector * CLR_VEC + lane};
    return a;
}

/* argmin and argmax keep clr_w rather than operators.cl's clr_v, and load
 * the vector of its best key again at the end. On the H200 (2^28
 * elements, h200-2026-12-04-g.md) the argmax of floats took 254-256 us
 * rather than 259-265 with a key and a tag a lane (a max: 249), of
 * doubles 489 rather than 570 (a max: 483); argmin 1-2% less. Beside
 * other operators (reduce_multi_slot.cl) and in the team walks of rows
 * and segments it was up to 24% slower, in all shapes timed but one
 * (h200-2026-12-04-h.md): those keep clr_v. */
#define CLR_ADD_W(x, y, t, k) clr_w_add(&w, (x), (t));

/* This work-item's share of in[0 .. n) as an accumulator: the bulk as
 * vectors, the last n % CLR_VEC elements one per work-item. */
clr_a clr_thread_reduce(global const T *restrict in, global const T *restrict in2, ulong n)
{
    clr_share share = clr_grid_share(n / CLR_VEC);
    int any = share.first < share.end;
    clr_w w;
    clr_w_init(&w, any ? CLR_LOAD_ANY(in, share.first) : (VT)0);
    CLR_WALK_ALL(CLR_ADD_W, share)
    clr_a a = clr_a_identity();
    if (any) {
        ulong vector = clr_w_vector(w, share.first, share.stride);
        a = clr_w_result(w, CLR_LOAD_ANY(in, vector), vector);
    }
    return clr_a_combine(a, clr_item_tail(in, in2, n));
}
#undef CLR_ADD_W
#else
/* This work-item's share of in[0 .. n) (and in2[0 .. n)) as an accumulator:
 * the bulk as vectors, the last n % CLR_VEC elements one per work-item. */
clr_a clr_thread_reduce(global const T *restrict in, global const T *restrict in2, ulong n)
{
    clr_share share = clr_grid_share(n / CLR_VEC);
    int any = share.first < share.end;
    clr_v acc = clr_v_init(any ? CLR_LOAD_ANY(in, share.first) : (VT)0);
    CLR_WALK_ALL(CLR_ADD, share)
    return clr_a_combine(clr_item_result(acc, any, in, in2, share), clr_item_tail(in, in2, n));
}
#endif

/* Work-group reduction of the work-items' accumulators: a tree in local
 * memory; the result in every work-item. */
clr_a clr_wg_reduce_a(local clr_a *l, clr_a v)
{
    uint lid = (uint)get_local_id(0);
    l[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = CLR_WG / 2; s > 0; s >>= 1) {
        if (lid < s)
            l[lid] = clr_a_combine(l[lid], l[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return l[0];
}

/* One work-group combines partials[0 .. count) in a fixed order. */
clr_a clr_combine_partials(local clr_a *l, volatile global clr_a *partials, uint count)
{
    clr_a v = clr_a_identity();
    for (uint k = (uint)get_local_id(0); k < count; k += CLR_WG) {
        clr_a p = partials[k];
        v = clr_a_combine(v, p);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return clr_wg_reduce_a(l, v);
}
#endif /* CLR_ORDERED */

#undef CLR_ITEM_OF
