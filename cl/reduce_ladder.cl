/*
 * reduce_ladder.cl — the classic reductions: one tree per work-group over
 * CLR_WG (INTERLEAVED, SEQUENTIAL) or 2 * CLR_WG (the others) elements,
 * writing one value per work-group; the host runs the kernel again over the
 * partial results until one value is left. Each variant is a kernel of its
 * own name; a program holds the one CLR_VARIANT names.
 *
 * Compile-time parameters (besides those of types.cl, subgroup.cl and
 * workgroup_reduce.cl):
 *   CLR_VARIANT  CLR_REDUCE_INTERLEAVED ... CLR_REDUCE_UNROLLED (contract.h).
 *
 * Every kernel is `clr_reduce_<variant>(in, in_off, n, out, out_off)`: it
 * reduces in[in_off .. in_off + n) and writes work-group g's value to
 * out[out_off + g]. Offsets and counts are 64-bit.
 */

/* Loads element i of the n at in, or the identity past the end. */
#define CLR_LOAD(in, i, n) ((i) < (n) ? (in)[i] : CLR_IDENTITY)

/* The first add of the variants that read 2 * CLR_WG elements per
 * work-group: this work-item's two elements, CLR_WG apart, combined. */
T clr_first_add(global const T *restrict in, ulong n)
{
    ulong i = (ulong)get_group_id(0) * (2 * CLR_WG) + get_local_id(0);
    return clr_op(CLR_LOAD(in, i, n), CLR_LOAD(in, i + CLR_WG, n));
}

/* clr_first_add() into l[local id], visible to the work-group; returns the
 * local id. */
uint clr_first_add_to_local(local T *l, global const T *restrict in, ulong n)
{
    uint lid = (uint)get_local_id(0);
    l[lid] = clr_first_add(in, n);
    barrier(CLK_LOCAL_MEM_FENCE);
    return lid;
}

#if CLR_VARIANT == CLR_REDUCE_INTERLEAVED
/* Interleaved addressing: work-item lid is active when lid % (2*s) == 0. Half
 * the work-items of every warp idle from the first step on, and the modulo
 * is slow. */
CLR_KERNEL clr_reduce_interleaved(global const T *restrict in, ulong in_off, ulong n,
                                  global T *restrict out, ulong out_off)
{
    local T l[CLR_WG];
    uint lid = (uint)get_local_id(0);
    ulong i = (ulong)get_group_id(0) * CLR_WG + lid;
    l[lid] = CLR_LOAD(in + in_off, i, n);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < CLR_WG; s *= 2) {
        if (lid % (2 * s) == 0)
            l[lid] = clr_op(l[lid], l[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[out_off + get_group_id(0)] = l[0];
}

#elif CLR_VARIANT == CLR_REDUCE_SEQUENTIAL
/* Sequential addressing: the active work-items are the first s, so whole
 * warps retire together and local memory is read without bank conflicts. */
CLR_KERNEL clr_reduce_sequential(global const T *restrict in, ulong in_off, ulong n,
                                 global T *restrict out, ulong out_off)
{
    local T l[CLR_WG];
    ulong i = (ulong)get_group_id(0) * CLR_WG + get_local_id(0);
    T r = clr_wg_reduce_tree(l, CLR_LOAD(in + in_off, i, n));
    if (get_local_id(0) == 0)
        out[out_off + get_group_id(0)] = r;
}

#elif CLR_VARIANT == CLR_REDUCE_FIRST_ADD
/* First add during load: each work-item combines two elements before the
 * tree, so half as many work-groups do the same work. */
CLR_KERNEL clr_reduce_first_add(global const T *restrict in, ulong in_off, ulong n,
                                global T *restrict out, ulong out_off)
{
    local T l[CLR_WG];
    T r = clr_wg_reduce_tree(l, clr_first_add(in + in_off, n));
    if (get_local_id(0) == 0)
        out[out_off + get_group_id(0)] = r;
}

#elif CLR_VARIANT == CLR_REDUCE_SUBGROUP_TAIL && CLR_HAS_SUBGROUPS
/* First add, then the tree in local memory until one sub-group's worth is
 * left, which sub-group 0 finishes with shuffles: no barriers for the last
 * steps, and no `volatile` warp-synchronous trick (a race since Volta). */
CLR_KERNEL clr_reduce_subgroup_tail(global const T *restrict in, ulong in_off, ulong n,
                                    global T *restrict out, ulong out_off)
{
    local T l[CLR_WG];
    uint lid = clr_first_add_to_local(l, in + in_off, n);
    uint s = CLR_WG / 2;
    for (; s > clr_sg_size(); s >>= 1) {
        if (lid < s)
            l[lid] = clr_op(l[lid], l[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    T r = clr_sg_finish(l, 2 * s);
    if (clr_is_sg_leader())
        out[out_off + get_group_id(0)] = r;
}

#elif CLR_VARIANT == CLR_REDUCE_SUBGROUP && CLR_HAS_SUBGROUPS
/* Sub-group shuffles all the way: every sub-group reduces its values with
 * shuffles, one value per sub-group goes through local memory, and sub-group
 * 0 reduces those. One barrier in all. */
CLR_KERNEL clr_reduce_subgroup(global const T *restrict in, ulong in_off, ulong n,
                               global T *restrict out, ulong out_off)
{
    local T l[CLR_WG];
    T r = clr_wg_reduce_subgroups(l, clr_first_add(in + in_off, n));
    if (clr_is_sg_leader())
        out[out_off + get_group_id(0)] = r;
}

#elif CLR_VARIANT == CLR_REDUCE_UNROLLED
/* Complete unrolling: CLR_WG is known to the compiler, so every step of the
 * tree is written out and the loop and its tests disappear. On NVIDIA the
 * last 64 values go to warp 0's shuffles. */
#define CLR_UNROLLED_STEP(s)                                                   \
    if (CLR_WG >= 2 * (s)) {                                                   \
        if (lid < (s))                                                         \
            l[lid] = clr_op(l[lid], l[lid + (s)]);                             \
        barrier(CLK_LOCAL_MEM_FENCE);                                          \
    }

CLR_KERNEL clr_reduce_unrolled(global const T *restrict in, ulong in_off, ulong n,
                               global T *restrict out, ulong out_off)
{
    local T l[CLR_WG];
    uint lid = clr_first_add_to_local(l, in + in_off, n);
    CLR_UNROLLED_STEP(2048)
    CLR_UNROLLED_STEP(1024)
    CLR_UNROLLED_STEP(512)
    CLR_UNROLLED_STEP(256)
    CLR_UNROLLED_STEP(128)
#if CLR_SG_PATH == CLR_SG_NV_PTX && CLR_WARP == 32 && CLR_WG >= 64
    CLR_UNROLLED_STEP(64)
    if (lid < 32) {
        T v = clr_op(l[lid], l[lid + 32]);
        v = clr_sg_reduce(v);
        if (lid == 0)
            out[out_off + get_group_id(0)] = v;
    }
#else
    CLR_UNROLLED_STEP(64)
    CLR_UNROLLED_STEP(32)
    CLR_UNROLLED_STEP(16)
    CLR_UNROLLED_STEP(8)
    CLR_UNROLLED_STEP(4)
    CLR_UNROLLED_STEP(2)
    CLR_UNROLLED_STEP(1)
    if (lid == 0)
        out[out_off + get_group_id(0)] = l[0];
#endif
}
#endif /* CLR_VARIANT */
