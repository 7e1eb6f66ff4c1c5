/*
 * scan_lookback.cl — the single-pass scan with decoupled look-back: each
 * work-group draws a tile from a ticket, scans it (tile.cl), and takes the
 * combination of the tiles before it from their published states
 * (tile_state.cl).
 *
 * Compile-time parameters: those of types.cl, subgroup.cl, workgroup_scan.cl,
 * tile.cl, device_order.cl and tile_state.cl. The kernel takes `exclusive`
 * (0 or 1) at run time; input and output may be the same range.
 */

/* Tiles in the order work-groups start: a tile waits only for tiles whose
 * work-groups are already running, so no work-group waits for one that may
 * never be scheduled. (Drawing a second ticket ahead, for a work-group to
 * take when done, made the H200 slower: a tile claimed early holds up every
 * later tile's look-back until its work-group gets to it.) */
CLR_KERNEL clr_scan_lookback(global const T *in, ulong in_off, ulong n, global T *out,
                             ulong out_off, global uchar *scratch, uint capacity,
                             uint epoch, int exclusive)
{
    local T l[2 * CLR_WG + 1];
    local uint l_tile;
    local T l_prefix;
    uint tiles = (uint)get_num_groups(0);
    volatile global uint *counter = (volatile global uint *)scratch;
    clr_tiles d = clr_tiles_at(scratch, capacity);
    uint lid = (uint)get_local_id(0);
    in += in_off;
    out += out_off;

    if (lid == 0) {
        uint t = atomic_inc(counter);
        if (t == tiles - 1)
            atomic_xchg(counter, 0u); /* every ticket is drawn */
        l_tile = t;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong tile = l_tile;
    ulong base = tile * CLR_TILE;
    int fast = clr_tile_fast(in, out, base, n);
    T x[CLR_ITEMS], pre[CLR_UNROLL], total;
    clr_tile_load(in, base, n, fast, x);
    T before = clr_tile_scan(l, x, pre, &total);

    if (tile == 0) {
        if (lid == 0) {
            clr_publish(d, 0, epoch, CLR_STATUS_INCLUSIVE, total);
            l_prefix = CLR_IDENTITY;
        }
    } else {
        if (lid == 0)
            clr_publish(d, tile, epoch, CLR_STATUS_AGGREGATE, total);
#if CLR_HAS_SUBGROUPS
        if (clr_sg_id() == 0) {
#else
        if (lid == 0) {
#endif
            T prefix = clr_look_back(d, tile, epoch);
            if (lid == 0) {
                clr_publish(d, tile, epoch, CLR_STATUS_INCLUSIVE, clr_op(prefix, total));
                l_prefix = prefix;
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    clr_tile_store(out, base, n, fast, x, pre, clr_op(l_prefix, before), exclusive);
}
