/*
 * workgroup.cl — work-group ("block") reductions built on types.cl and
 * subgroup.cl.
 *
 * Compile-time parameters:
 *   CLR_WG  work-group size, a power of two (every kernel is compiled for
 *           exactly this size).
 *
 * Provides:
 *   clr_wg_reduce_tree(l, v)       sequential-addressing tree in local memory
 *   clr_sg_finish(l, count)        sub-group 0 reduces l[0 .. count)
 *   clr_wg_reduce_subgroups(l, v)  shuffles in every sub-group, then sub-group 0
 *   clr_wg_reduce(l, v)            the better of the two for the device
 *   clr_wg_is_leader()             whether this work-item holds clr_wg_reduce's result
 * Each takes the calling work-item's value v and local scratch l of CLR_WG
 * elements, is called by every work-item of the work-group, and returns the
 * result in one work-item (other work-items get an unspecified value): local
 * id 0 for the tree, lane 0 of sub-group 0 for the sub-group forms (which
 * need not be local id 0 outside NVIDIA). The combination order depends only
 * on CLR_WG and the sub-group size.
 */

T clr_wg_reduce_tree(local T *l, T v)
{
    uint lid = (uint)get_local_id(0);
    l[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = CLR_WG / 2; s > 0; s >>= 1) {
        if (lid < s)
            l[lid] = clr_op(l[lid], l[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return l[0];
}

#if CLR_HAS_SUBGROUPS

/* Sub-group 0 reduces l[0 .. count), striding by its size, then shuffles.
 * Called by every work-item; l must be visible (after a barrier). */
T clr_sg_finish(local T *l, uint count)
{
    T t = CLR_IDENTITY;
    if (clr_sg_id() == 0) {
        uint n = clr_sg_size();
        for (uint k = clr_sg_lane(); k < count; k += n)
            t = clr_op(t, l[k]);
        t = clr_sg_reduce(t);
    }
    return t;
}

T clr_wg_reduce_subgroups(local T *l, T v)
{
    v = clr_sg_reduce(v);
    if (clr_sg_lane() == 0)
        l[clr_sg_id()] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    return clr_sg_finish(l, clr_sg_count());
}

int clr_is_sg_leader(void) { return clr_sg_id() == 0 && clr_sg_lane() == 0; }

#define clr_wg_reduce clr_wg_reduce_subgroups
#define clr_wg_is_leader clr_is_sg_leader
#else
#define clr_wg_reduce clr_wg_reduce_tree
#define clr_wg_is_leader() (get_local_id(0) == 0)
#endif
