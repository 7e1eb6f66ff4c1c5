/*
 * team.cl — teams of work-items that reduce one range of global memory
 * together: the layer under the rows and segments kernels.
 *
 * A team is either `size` consecutive work-items of the work-group (size a
 * power of two from 1 to CLR_WG, the same for the whole work-group, which
 * then holds CLR_WG / size teams), reducing through local memory, or one
 * sub-group, reducing by shuffles (subgroup.cl).
 *
 * Compile-time parameters: those of types.cl, subgroup.cl and
 * workgroup_reduce.cl.
 *
 * Provides:
 *   clr_team_range(in, n, lane, size)  lane's share of in[0 .. n): vectors
 *                  lane, lane + size, ... (vloadN, any alignment), the last
 *                  n % CLR_VEC elements in the same turns; the combination order
 *                  depends only on n, size and CLR_VEC.
 *   clr_team_reduce(l, v, size)  the reduction of v over each team of `size`
 *                  work-items, valid where clr_team_is_leader(size); called
 *                  by every work-item of the work-group, l of CLR_WG
 *                  elements (reusable right after the call).
 */

#if CLR_VEC > 1
#define CLR_TEAM_LOAD(in, k) CLR_CAT(vload, CLR_VEC)((k), (in))
#else
#define CLR_TEAM_LOAD(in, k) (in)[k]
#endif

T clr_team_range(global const T *in, ulong n, uint lane, uint size)
{
    T s = CLR_IDENTITY;
    ulong nv = n / CLR_VEC;
#if CLR_VEC > 1
    for (ulong i = nv * CLR_VEC + lane; i < n; i += size)
        s = clr_op(s, in[i]);
#endif
    clr_acc acc = clr_acc_init();
    for (ulong i = lane; i < nv; i += size)
        acc = clr_acc_add(acc, CLR_TEAM_LOAD(in, i));
    return clr_op(s, clr_acc_result(acc));
}

int clr_team_is_leader(uint size)
{
    if (size == CLR_WG)
        return clr_wg_is_leader();
    return (get_local_id(0) & (size - 1)) == 0;
}

T clr_team_reduce(local T *l, T v, uint size)
{
    if (size == 1)
        return v;
    /* l may still be read by the previous call. */
    barrier(CLK_LOCAL_MEM_FENCE);
    if (size == CLR_WG)
        return clr_wg_reduce(l, v);
    uint lid = (uint)get_local_id(0);
    l[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = size / 2; s > 0; s >>= 1) {
        if ((lid & (size - 1)) < s)
            l[lid] = clr_op(l[lid], l[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return l[lid];
}
