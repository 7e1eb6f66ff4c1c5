/*
 * reduce_operators.cl — reductions with the operators of operators.cl, in
 * the grid shape of reduce_grid.cl: a grid that fills the device walks the
 * input with vector loads, CLR_UNROLL of them in flight per work-item, and
 * elements land in work-items exactly as there; each work-group reduces its
 * work-items' accumulators in local memory. Kernels:
 *   clr_reduce_op         CLR_VARIANT CLR_REDUCE_SINGLE_PASS: the last
 *                         work-group to finish combines the others'
 *                         accumulators in group order and stores the result
 *                         (as reduce_grid.cl's single pass);
 *                         CLR_REDUCE_GRID_STRIDE: one accumulator per
 *                         work-group into `scratch` (the result itself when
 *                         there is one work-group), then
 *   clr_reduce_op_finish  one work-group over those accumulators.
 *
 * Compile-time parameters (besides those of types.cl, operators.cl and, for
 * the single pass, device_order.cl): CLR_VARIANT, CLR_UNROLL, CLR_SEGMENTED
 * and CLR_NV_LOAD as in reduce_grid.cl.
 *
 * A user-defined operator (CLR_OP_CUSTOM) names the kernels CLR_U_KERNEL and
 * CLR_U_FINISH_KERNEL; unless it is commutative (CLR_U_COMMUTATIVE), the
 * kernels keep the order of elements (CLR_ORDERED): each work-item combines
 * a contiguous run of elements in order, and work-items, work-groups and
 * partials are combined in the order of their runs.
 *
 * clr_reduce_op(in, in_off, n, out, out_off, scratch, in2, in2_off) reduces
 * in[in_off .. in_off + n) (with in2[in2_off ..] for dot; other operators
 * ignore in2) into the result at byte out_off of out; offsets and counts are
 * 64-bit. clr_reduce_op_finish(partials, count, out, out_off).
 */

#if CLR_OP == CLR_OP_CUSTOM
#define CLR_REDUCE_KERNEL CLR_U_KERNEL
#define CLR_FINISH_KERNEL CLR_U_FINISH_KERNEL
#else
#define CLR_REDUCE_KERNEL clr_reduce_op
#define CLR_FINISH_KERNEL clr_reduce_op_finish
#endif

/* The host keeps 32 bytes per accumulator in scratch and partials
 * (src/operators.c's ACCUMULATOR_MAX). */
typedef char clr_accumulator_fits_32_bytes[sizeof(clr_a) <= 32 ? 1 : -1];

#if CLR_VEC > 1
#define CLR_LOAD_ANY(p, k) CLR_CAT(vload, CLR_VEC)((k), (p))
#else
#define CLR_LOAD_ANY(p, k) (p)[k]
#endif
#define CLR_LOAD_ALIGNED(p, k) clr_load_vec((global const VT *)(p) + (k))

#if CLR_X_TWO_INPUTS
#define CLR_SECOND(LOAD, k) LOAD(in2, k)
#else
#define CLR_SECOND(LOAD, k) ((VT)0)
#endif

/* The work-item's vectors in order, vector k read by LOAD(pointer, k), each
 * passed to ADD(x, y, tag, k) with tags 0, 1, 2, ... */
#define CLR_WALK(LOAD, ADD)                                                    \
    {                                                                          \
        ulong i = first;                                                       \
        CLR_X_TAG tag = 0;                                                     \
        for (; i + (CLR_UNROLL - 1) * CLR_WG < nv; i += stride, tag += CLR_UNROLL) { \
            VT x[CLR_UNROLL], y[CLR_UNROLL];                                   \
            _Pragma("unroll") for (uint u = 0; u < CLR_UNROLL; u++) {          \
                x[u] = LOAD(in, i + u * CLR_WG);                               \
                y[u] = CLR_SECOND(LOAD, i + u * CLR_WG);                       \
            }                                                                  \
            _Pragma("unroll") for (uint u = 0; u < CLR_UNROLL; u++)            \
                ADD(x[u], y[u], tag + u, i + u * CLR_WG);                      \
        }                                                                      \
        for (uint u = 0; u < CLR_UNROLL; u++)                                  \
            if (i + u * CLR_WG < nv)                                           \
                ADD(LOAD(in, i + u * CLR_WG), CLR_SECOND(LOAD, i + u * CLR_WG), tag + u, \
                    i + u * CLR_WG);                                           \
    }

/* As reduce_grid.cl: aligned ld.global.nc loads on NVIDIA where the range
 * (both ranges, for dot) starts on a vector boundary, vloadN elsewhere; the
 * result is the same at every offset. */
#if CLR_NV_LOAD && CLR_VEC > 1
#if CLR_X_TWO_INPUTS
#define CLR_ALIGNED(p) (((ulong)(uintptr_t)in | (ulong)(uintptr_t)in2) % (CLR_VEC * sizeof(T)) == 0)
#else
#define CLR_ALIGNED(p) ((ulong)(uintptr_t)in % (CLR_VEC * sizeof(T)) == 0)
#endif
#define CLR_WALK_ALL(ADD)                                                      \
    if (CLR_ALIGNED(in)) {                                                     \
        CLR_WALK(CLR_LOAD_ALIGNED, ADD)                                        \
    } else {                                                                   \
        CLR_WALK(CLR_LOAD_ANY, ADD)                                            \
    }
#else
#define CLR_WALK_ALL(ADD) CLR_WALK(CLR_LOAD_ANY, ADD)
#endif

#if CLR_OP == CLR_OP_CUSTOM
#define CLR_ADD(x, y, t, k) acc = clr_v_add_at(acc, (x), (y), (k));
#else
#define CLR_ADD(x, y, t, k) acc = clr_v_add(acc, (x), (y), (t));
#endif
#define CLR_ADD_SCALED(x, y, t, k) scaled = clr_x_norm_add_scaled(scaled, (x), e);

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
#if CLR_X_TWO_INPUTS
        a = clr_a_combine(a, clr_a_of(in[i], in2[i], i));
#else
        a = clr_a_combine(a, clr_a_of(in[i], in[i], i));
#endif
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

/* This work-item's share of in[0 .. n) (and in2[0 .. n)) as an accumulator:
 * the bulk as vectors, the last n % CLR_VEC elements one per work-item. */
clr_a clr_thread_reduce(global const T *restrict in, global const T *restrict in2, ulong n)
{
    clr_a tail_a = clr_a_identity();
    ulong nv = n / CLR_VEC;
#if CLR_VEC > 1
    ulong tail = nv * CLR_VEC, gid = get_global_id(0);
    if (gid < n - tail) {
#if CLR_X_TWO_INPUTS
        tail_a = clr_a_of(in[tail + gid], in2[tail + gid], tail + gid);
#else
        tail_a = clr_a_of(in[tail + gid], in[tail + gid], tail + gid);
#endif
    }
#endif
    const ulong step = (ulong)CLR_WG * CLR_UNROLL;
#if CLR_SEGMENTED
    ulong tiles = (nv + step - 1) / step;
    ulong per_group = (tiles + get_num_groups(0) - 1) / get_num_groups(0) * step;
    ulong first = (ulong)get_group_id(0) * per_group + get_local_id(0);
    nv = min(nv, (ulong)(get_group_id(0) + 1) * per_group);
    const ulong stride = step;
#else
    ulong first = (ulong)get_group_id(0) * step + get_local_id(0);
    const ulong stride = (ulong)get_num_groups(0) * step;
#endif
    int any = first < nv;
    clr_v acc = clr_v_init(any ? CLR_LOAD_ANY(in, first) : (VT)0);
    CLR_WALK_ALL(CLR_ADD)
    clr_a a = clr_v_result(acc, any, first, stride);
#if CLR_OP == CLR_OP_NORM2
    int e = any ? clr_x_norm_exponent(clr_x_norm_amax(acc), a.q) : 0;
    if (e != 0) {
        VT scaled = (VT)0;
        CLR_WALK_ALL(CLR_ADD_SCALED)
        a = clr_x_norm_scaled_result(scaled, e);
    }
#endif
    return clr_a_combine(a, tail_a);
}

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

#if CLR_VARIANT == CLR_REDUCE_SINGLE_PASS
/* scratch: a uint ticket at byte 0 (zero between launches), accumulators
 * from byte CLR_SCRATCH_HEADER; reduce_grid.cl's single pass says why this
 * needs no work-group to wait for another. */
CLR_KERNEL CLR_REDUCE_KERNEL(global const T *restrict in, ulong in_off, ulong n,
                         global uchar *restrict out, ulong out_off, global uchar *scratch,
                         global const T *restrict in2, ulong in2_off)
{
    local clr_a l[CLR_WG];
    local int is_last;
    volatile global uint *ticket = (volatile global uint *)scratch;
    volatile global clr_a *partials = (volatile global clr_a *)(scratch + CLR_SCRATCH_HEADER);
    uint groups = (uint)get_num_groups(0);

    clr_a r = clr_wg_reduce_a(l, clr_thread_reduce(in + in_off, in2 + in2_off, n));
    if (get_local_id(0) == 0) {
        partials[get_group_id(0)] = r;
        clr_fence_device();
        is_last = atomic_inc(ticket) == groups - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (is_last) {
        clr_fence_device();
        r = clr_combine_partials(l, partials, groups);
        if (get_local_id(0) == 0) {
            clr_a_store(out + out_off, r);
            atomic_xchg(ticket, 0);
        }
    }
}

#elif CLR_VARIANT == CLR_REDUCE_GRID_STRIDE
CLR_KERNEL CLR_REDUCE_KERNEL(global const T *restrict in, ulong in_off, ulong n,
                         global uchar *restrict out, ulong out_off, global uchar *scratch,
                         global const T *restrict in2, ulong in2_off)
{
    local clr_a l[CLR_WG];
    clr_a r = clr_wg_reduce_a(l, clr_thread_reduce(in + in_off, in2 + in2_off, n));
    if (get_local_id(0) == 0) {
        if (get_num_groups(0) == 1)
            clr_a_store(out + out_off, r);
        else
            ((global clr_a *)scratch)[get_group_id(0)] = r;
    }
}

CLR_KERNEL CLR_FINISH_KERNEL(global uchar *partials, ulong count,
                                global uchar *restrict out, ulong out_off)
{
    local clr_a l[CLR_WG];
    clr_a r = clr_combine_partials(l, (volatile global clr_a *)partials, (uint)count);
    if (get_local_id(0) == 0)
        clr_a_store(out + out_off, r);
}
#endif /* CLR_VARIANT */
