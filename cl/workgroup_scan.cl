/*
 * workgroup_scan.cl — the work-group ("block") scan in local memory, built
 * on types.cl.
 *
 * Compile-time parameters:
 *   CLR_WG  work-group size, a power of two.
 *
 * Provides:
 *   clr_wg_scan_hs(l, x, &src)  Hillis-Steele inclusive scan of one value per
 *                               work-item (the double buffer l holds
 *                               2 * CLR_WG elements)
 */

/* Hillis-Steele inclusive scan of one value per work-item over the
 * work-group, in the double buffer l (2 * CLR_WG elements): log2(CLR_WG)
 * steps, each combining every element with the one d places before it.
 * Returns the calling work-item's inclusive prefix; the scanned values stay
 * in l[*src * CLR_WG ..] until the next barrier, for the exclusive prefix
 * (the element before) and the total (the last). */
T clr_wg_scan_hs(local T *l, T x, uint *src_out)
{
    uint lid = (uint)get_local_id(0);
    uint src = 0;
    l[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < CLR_WG; d <<= 1) {
        T v = l[src * CLR_WG + lid];
        if (lid >= d)
            v = clr_op(l[src * CLR_WG + lid - d], v);
        l[(src ^ 1) * CLR_WG + lid] = v;
        src ^= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    *src_out = src;
    return l[src * CLR_WG + lid];
}
