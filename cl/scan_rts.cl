/*
 * scan_rts.cl — reduce, then scan: three kernels over tiles (tile.cl).
 * Work-group g owns tiles [g * per_group, (g + 1) * per_group):
 *   clr_rts_reduce  each work-group's total;
 *   clr_rts_spine   one work-group turns the totals into exclusive prefixes;
 *   clr_rts_scan    each work-group scans its tiles in order from its prefix.
 *
 * Compile-time parameters: those of types.cl, subgroup.cl,
 * workgroup_reduce.cl, workgroup_scan.cl and tile.cl. clr_rts_scan takes
 * `exclusive` (0 or 1) at run time; input and output may be the same range.
 */

/* Phase 1: the total of each work-group's run of tiles, tile by tile as
 * phase 3 meets them: each tile's total is a work-item's items in sequence
 * then a tree over the work-group, and the tiles' totals are combined in
 * order. So every partial is grouped as phase 3 groups the prefixes, and
 * the scans' error bound (tiles before an element plus the elements of one
 * work-item) holds; a work-item adding its strided share of the whole run
 * in sequence would not. */
CLR_KERNEL clr_rts_reduce(global const T *in, ulong in_off, ulong n, global T *partials,
                          ulong per_group)
{
    local T l[CLR_WG];
    in += in_off;
    ulong first = (ulong)get_group_id(0) * per_group;
    T acc = CLR_IDENTITY;
    for (ulong t = first; t < first + per_group && t * CLR_TILE < n; t++) {
        ulong base = t * CLR_TILE;
        T x[CLR_ITEMS];
        clr_tile_load(in, base, n, clr_tile_fast(in, in, base, n), x);
        T s = x[0];
#pragma unroll
        for (uint k = 1; k < CLR_ITEMS; k++)
            s = clr_op(s, x[k]);
        T total = clr_wg_reduce(l, s);
        if (clr_wg_is_leader())
            acc = clr_op(acc, total);
        barrier(CLK_LOCAL_MEM_FENCE); /* l is read until here */
    }
    if (clr_wg_is_leader())
        partials[get_group_id(0)] = acc;
}

/* Phase 2: one work-group turns the totals into exclusive prefixes. */
CLR_KERNEL clr_rts_spine(global T *partials, ulong count)
{
    local T l[2 * CLR_WG];
    uint lid = (uint)get_local_id(0);
    T carry = CLR_IDENTITY;
    for (ulong base = 0; base < count; base += CLR_WG) {
        ulong i = base + lid;
        uint src;
        clr_wg_scan_hs(l, i < count ? partials[i] : CLR_IDENTITY, &src);
        T excl = lid ? l[src * CLR_WG + lid - 1] : CLR_IDENTITY;
        T total = l[src * CLR_WG + CLR_WG - 1];
        if (i < count)
            partials[i] = clr_op(carry, excl);
        carry = clr_op(carry, total);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Phase 3: every work-group scans its tiles in order from its prefix. */
CLR_KERNEL clr_rts_scan(global const T *in, ulong in_off, ulong n, global T *out,
                        ulong out_off, global const T *partials, ulong per_group,
                        int exclusive)
{
    local T l[2 * CLR_WG + 1];
    in += in_off;
    out += out_off;
    ulong first = (ulong)get_group_id(0) * per_group;
    T prefix = partials[get_group_id(0)];
    for (ulong t = first; t < first + per_group && t * CLR_TILE < n; t++) {
        ulong base = t * CLR_TILE;
        int fast = clr_tile_fast(in, out, base, n);
        T x[CLR_ITEMS], pre[CLR_UNROLL], total;
        clr_tile_load(in, base, n, fast, x);
        T before = clr_tile_scan(l, x, pre, &total);
        clr_tile_store(out, base, n, fast, x, pre, clr_op(prefix, before), exclusive);
        prefix = clr_op(prefix, total);
    }
}
