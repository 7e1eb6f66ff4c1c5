/*
 * workgroup_scan.cl — the work-group ("block") scan in local memory, built
 * on types.cl.
 *
 * Compile-time parameters:
 *   CLR_WG  work-group size, a power of two.
 *
 * Provides:
 *   clr_team_scan_hs(l, x, size, &src)  Hillis-Steele inclusive scan of one
 *                               value per work-item over each team of `size`
 *                               consecutive work-items (a power of two up to
 *                               CLR_WG; the double buffer l holds 2 * CLR_WG
 *                               elements)
 *   clr_wg_scan_hs(l, x, &src)  the same over the whole work-group
 *   CLR_TEAM_SCAN_HS(name, op)  clr_team_scan_hs for another operator
 *   clr_wg_scan_exclusive_array(l, a, count)  a[0 .. count) in global
 *                               memory turned into its exclusive prefixes
 */

/* Hillis-Steele inclusive scan of one value per work-item over each team of
 * `size` work-items, in the double buffer l (2 * CLR_WG elements): log2(size)
 * steps, each combining every element with the one d places before it in
 * its team. Returns the calling work-item's inclusive prefix; the scanned
 * values stay in l[*src * CLR_WG ..] until the next barrier, for the
 * exclusive prefix (the element before) and the team's total (its last).
 * Called by every work-item of the work-group with the same size. A
 * generator, for tile.cl's scan of keys too: NAME is the function, OP(T, T)
 * the operator. */
#define CLR_TEAM_SCAN_HS(NAME, OP)                                             \
    T NAME(local T *l, T x, uint size, uint *src_out)                          \
    {                                                                          \
        uint lid = (uint)get_local_id(0);                                      \
        uint lane = lid & (size - 1);                                          \
        uint src = 0;                                                          \
        l[lid] = x;                                                            \
        barrier(CLK_LOCAL_MEM_FENCE);                                          \
        for (uint d = 1; d < size; d <<= 1) {                                  \
            T v = l[src * CLR_WG + lid];                                       \
            if (lane >= d)                                                     \
                v = OP(l[src * CLR_WG + lid - d], v);                          \
            l[(src ^ 1) * CLR_WG + lid] = v;                                   \
            src ^= 1;                                                          \
            barrier(CLK_LOCAL_MEM_FENCE);                                      \
        }                                                                      \
        *src_out = src;                                                        \
        return l[src * CLR_WG + lid];                                          \
    }

CLR_TEAM_SCAN_HS(clr_team_scan_hs, clr_op)

T clr_wg_scan_hs(local T *l, T x, uint *src_out)
{
    return clr_team_scan_hs(l, x, CLR_WG, src_out);
}

/* Turns a[0 .. count) into its exclusive prefixes, in place, CLR_WG
 * elements at a time, each block scanned by clr_wg_scan_hs and combined
 * after the total of the blocks before it. Called by every work-item; l
 * holds 2 * CLR_WG elements. */
void clr_wg_scan_exclusive_array(local T *l, global T *a, ulong count)
{
    uint lid = (uint)get_local_id(0);
    T carry = CLR_IDENTITY;
    for (ulong base = 0; base < count; base += CLR_WG) {
        ulong i = base + lid;
        uint src;
        clr_wg_scan_hs(l, i < count ? a[i] : CLR_IDENTITY, &src);
        T excl = lid ? l[src * CLR_WG + lid - 1] : CLR_IDENTITY;
        T total = l[src * CLR_WG + CLR_WG - 1];
        if (i < count)
            a[i] = clr_op(carry, excl);
        carry = clr_op(carry, total);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
