/*
 * reduce_grid.cl — the grid-sized reductions: a grid that fills the device
 * walks the input with vector loads, CLR_UNROLL of them in flight per
 * work-item, then each work-group reduces its work-items' values. Each
 * variant is a kernel of its own name; a program holds the one CLR_VARIANT
 * names:
 *   clr_reduce_grid_stride  one value per work-group; run again with one
 *                           work-group over them;
 *   clr_reduce_atomic       one atomic per work-group into the result, which
 *                           the host has set to the identity;
 *   clr_reduce_single_pass  the last work-group to finish combines the
 *                           others' values (device_order.cl orders them).
 *
 * Compile-time parameters (besides those of types.cl, subgroup.cl,
 * workgroup_reduce.cl and, for the single pass, device_order.cl):
 *   CLR_VARIANT    CLR_REDUCE_GRID_STRIDE, _ATOMIC or _SINGLE_PASS.
 *   CLR_UNROLL     independent vector loads in flight per work-item.
 *   CLR_SEGMENTED  1: each work-group reads one contiguous run of the input;
 *                  0: the whole grid strides over it together.
 *   CLR_NV_LOAD    1: 16-byte loads through PTX ld.global.nc (types.cl).
 *   CLR_ATOMIC     how the atomic variant combines: a CLR_ATOMIC_* code.
 *
 * Kernels: `(in, in_off, n, out, out_off[, scratch])`, reducing
 * in[in_off .. in_off + n); offsets and counts are 64-bit.
 */

#ifndef CLR_UNROLL
#define CLR_UNROLL 1
#endif

/* Many elements per work-item: a grid sized to fill the device walks the
 * input with vector loads, CLR_UNROLL of them in flight per work-item. */

/* This work-item's share of in[0 .. n), reduced to one value. Element k of
 * the range always lands in the same work-item and the same place in the
 * combination, whatever the range's address: the last n % CLR_VEC elements
 * are read one by one, the rest as vectors. vloadN reads vectors at any
 * element alignment; CPUs load them as fast as aligned ones, but NVIDIA's
 * compiler splits them into scalar loads, so there (CLR_NV_LOAD) a range that
 * starts on a vector boundary takes aligned ld.global.nc loads instead. The
 * result is the same at every offset. */
#define CLR_BULK_LOOP(LOAD)                                                    \
    for (; i + (CLR_UNROLL - 1) * CLR_WG < nv; i += stride) {                  \
        VT v[CLR_UNROLL];                                                      \
        _Pragma("unroll") for (uint u = 0; u < CLR_UNROLL; u++)                \
            v[u] = LOAD(i + u * CLR_WG);                                       \
        _Pragma("unroll") for (uint u = 0; u < CLR_UNROLL; u++)                \
            acc = clr_acc_add(acc, v[u]);                                      \
    }                                                                          \
    for (uint u = 0; u < CLR_UNROLL; u++)                                      \
        if (i + u * CLR_WG < nv)                                               \
            acc = clr_acc_add(acc, LOAD(i + u * CLR_WG));

#define CLR_LOAD_ALIGNED(k) clr_load_vec((global const VT *)in + (k))
#if CLR_VEC > 1
#define CLR_LOAD_ANY(k) CLR_CAT(vload, CLR_VEC)((k), in)
#else
#define CLR_LOAD_ANY(k) in[k]
#endif

T clr_thread_reduce(global const T *restrict in, ulong n)
{
    T s = CLR_IDENTITY;
    ulong nv = n / CLR_VEC;
#if CLR_VEC > 1
    ulong tail = nv * CLR_VEC, gid = get_global_id(0);
    if (gid < n - tail)
        s = in[tail + gid];
#endif
    clr_acc acc = clr_acc_init();
    const ulong step = (ulong)CLR_WG * CLR_UNROLL;
#if CLR_SEGMENTED
    /* Each work-group walks its own contiguous run of whole tiles. */
    ulong tiles = (nv + step - 1) / step;
    ulong per_group = (tiles + get_num_groups(0) - 1) / get_num_groups(0) * step;
    ulong i = (ulong)get_group_id(0) * per_group + get_local_id(0);
    ulong end = min(nv, (ulong)(get_group_id(0) + 1) * per_group);
    const ulong stride = step;
    nv = end;
#else
    ulong i = (ulong)get_group_id(0) * step + get_local_id(0);
    const ulong stride = (ulong)get_num_groups(0) * step;
#endif
#if CLR_NV_LOAD && CLR_VEC > 1
    if ((ulong)(uintptr_t)in % (CLR_VEC * sizeof(T)) == 0) {
        CLR_BULK_LOOP(CLR_LOAD_ALIGNED)
    } else
#endif
    {
        CLR_BULK_LOOP(CLR_LOAD_ANY)
    }
    return clr_op(s, clr_acc_result(acc));
}

#if CLR_VARIANT == CLR_REDUCE_GRID_STRIDE
/* Run twice: over the input with a grid from the tuning table, then with one
 * work-group over the partial results. */
CLR_KERNEL clr_reduce_grid_stride(global const T *restrict in, ulong in_off, ulong n,
                                  global T *restrict out, ulong out_off)
{
    local T l[CLR_WG];
    T r = clr_wg_reduce(l, clr_thread_reduce(in + in_off, n));
    if (clr_wg_is_leader())
        out[out_off + get_group_id(0)] = r;
}

#elif CLR_VARIANT == CLR_REDUCE_ATOMIC
/* One atomic per work-group into out[out_off], which the host has set to the
 * identity. */
#if CLR_IS_64
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define CLR_BITS ulong
#define CLR_AS_BITS as_ulong
#define CLR_CAS(p, e, d) atom_cmpxchg((volatile global ulong *)(p), e, d)
#else
#define CLR_BITS uint
#define CLR_AS_BITS as_uint
#define CLR_CAS(p, e, d) atomic_cmpxchg((volatile global uint *)(p), e, d)
#endif

void clr_atomic_combine(global T *p, T v)
{
#if CLR_ATOMIC == CLR_ATOMIC_NV_FLOAT && CLR_IS_64
    asm volatile("red.global.add.f64 [%0], %1;" ::"l"(p), "d"(v) : "memory");
#elif CLR_ATOMIC == CLR_ATOMIC_NV_FLOAT
    asm volatile("red.global.add.f32 [%0], %1;" ::"l"(p), "f"(v) : "memory");
#elif CLR_ATOMIC == CLR_ATOMIC_BUILTIN && CLR_IS_64 && CLR_OP == CLR_OP_SUM
    atom_add((volatile global T *)p, v);
#elif CLR_ATOMIC == CLR_ATOMIC_BUILTIN && !CLR_IS_64 && CLR_OP == CLR_OP_SUM
    atomic_add((volatile global T *)p, v);
#elif CLR_ATOMIC == CLR_ATOMIC_BUILTIN && !CLR_IS_64 && CLR_OP == CLR_OP_MIN
    atomic_min((volatile global T *)p, v);
#elif CLR_ATOMIC == CLR_ATOMIC_BUILTIN && !CLR_IS_64 && CLR_OP == CLR_OP_MAX
    atomic_max((volatile global T *)p, v);
#else
    /* Compare-and-swap on the bits. The first attempt guesses that the
     * identity is stored, so that the stored value is only ever read by a
     * compare-and-swap (a plain read would race with the other work-groups'
     * atomics); a failed attempt returns what is stored, and the loop stops
     * as soon as that already absorbs v (min/max). */
    CLR_BITS old = CLR_AS_BITS(CLR_IDENTITY);
    for (;;) {
        CLR_BITS desired = CLR_AS_BITS(clr_op(CLR_AS_T(old), v));
        if (desired == old)
            return;
        CLR_BITS seen = CLR_CAS(p, old, desired);
        if (seen == old)
            return;
        old = seen;
    }
#endif
}

CLR_KERNEL clr_reduce_atomic(global const T *restrict in, ulong in_off, ulong n,
                             global T *out, ulong out_off)
{
    local T l[CLR_WG];
    T r = clr_wg_reduce(l, clr_thread_reduce(in + in_off, n));
    if (clr_wg_is_leader())
        clr_atomic_combine(out + out_off, r);
}

#elif CLR_VARIANT == CLR_REDUCE_SINGLE_PASS
/* Single pass: every work-group writes its partial result to scratch and
 * takes a ticket; the work-group that draws the last ticket has seen every
 * other partial published, reduces them in group order (deterministic) and
 * writes the result, then resets the ticket for the next launch. Nothing
 * waits on another work-group, so no forward-progress guarantee is needed.
 * scratch: a uint ticket at byte 0 (zero between launches), partials from
 * byte CLR_SCRATCH_HEADER. */
CLR_KERNEL clr_reduce_single_pass(global const T *restrict in, ulong in_off, ulong n,
                                  global T *restrict out, ulong out_off, global uchar *scratch)
{
    local T l[CLR_WG];
    local int is_last;
    volatile global uint *ticket = (volatile global uint *)scratch;
    volatile global T *partials = (volatile global T *)(scratch + CLR_SCRATCH_HEADER);
    uint groups = (uint)get_num_groups(0);

    T r = clr_wg_reduce(l, clr_thread_reduce(in + in_off, n));
    if (clr_wg_is_leader()) {
        partials[get_group_id(0)] = r;
        clr_fence_device();
        is_last = atomic_inc(ticket) == groups - 1;
    }
    /* The global fence too: the leader's own partial is read below by
     * another work-item of this work-group. */
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (is_last) {
        clr_fence_device();
        T v = CLR_IDENTITY;
        for (uint k = (uint)get_local_id(0); k < groups; k += CLR_WG)
            v = clr_op(v, partials[k]);
        barrier(CLK_LOCAL_MEM_FENCE);
        r = clr_wg_reduce(l, v);
        if (clr_wg_is_leader()) {
            out[out_off] = r;
            atomic_xchg(ticket, 0); /* every other access to it is atomic */
        }
    }
}
#endif /* CLR_VARIANT */
