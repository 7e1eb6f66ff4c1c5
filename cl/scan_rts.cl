/*
 * scan_rts.cl — reduce, then scan: three kernels over tiles (tile.cl).
 * Work-group g owns tiles [g * per_group, (g + 1) * per_group):
 *   clr_rts_reduce  each work-group's total;
 *   clr_rts_spine   one work-group turns the totals into exclusive prefixes;
 *   clr_rts_scan    each work-group scans its tiles in order from its prefix.
 *
 * Compile-time parameters: those of types.cl, subgroup.cl,
 * workgroup_reduce.cl, workgroup_scan.cl, tile.cl and tile_run.cl.
 * clr_rts_scan takes `exclusive` (0 or 1) at run time; input and output may
 * be the same range.
 */

/* Phase 1: the total of each work-group's run of tiles (tile_run.cl says
 * in which order). */
CLR_KERNEL clr_rts_reduce(global const T *in, ulong in_off, ulong n, global T *partials,
                          ulong per_group)
{
    local T l[CLR_WG];
    ulong first = (ulong)get_group_id(0) * per_group;
    T acc = clr_tile_run_total(l, in + in_off, n, first, first + per_group);
    if (clr_wg_is_leader())
        partials[get_group_id(0)] = acc;
}

/* Phase 2: one work-group turns the totals into exclusive prefixes. */
CLR_KERNEL clr_rts_spine(global T *partials, ulong count)
{
    local T l[2 * CLR_WG];
    clr_wg_scan_exclusive_array(l, partials, count);
}

/* Phase 3: every work-group scans its tiles in order from its prefix. */
CLR_KERNEL clr_rts_scan(global const T *in, ulong in_off, ulong n, global T *out,
                        ulong out_off, global const T *partials, ulong per_group,
                        int exclusive)
{
    local T l[2 * CLR_WG + 1];
    ulong first = (ulong)get_group_id(0) * per_group;
    clr_tile_run_scan(l, in + in_off, out + out_off, n, first, first + per_group,
                      partials[get_group_id(0)], exclusive);
}
