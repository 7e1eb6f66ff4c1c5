/*
 * scan_lookback.cl — the single-pass scan with decoupled look-back: each
 * work-group draws a tile from a ticket, scans it (tile.cl), and takes the
 * combination of the tiles before it from their published states
 * (tile_state.cl).
 *
 * Compile-time parameters: those of types.cl, subgroup.cl, workgroup_scan.cl,
 * tile.cl, device_order.cl and tile_state.cl. The kernel takes `exclusive`
 * (0 or 1) and `spins` at run time; input and output may be the same range.
 */

#if CLR_LOOKBACK_FALLBACK
/* The rest of the look-back once the state of tile *l_stalled has not come,
 * *l_prefix holding the tiles after it: the work-group reduces that tile
 * itself, from the input, with the code its own work-group runs (so to the
 * same bits), and looks further back, as often as it takes. (It publishes
 * nothing for that tile: a store could land after the tile's own inclusive
 * prefix and hide it, and later look-backs would walk further.) Then it
 * publishes its own inclusive prefix, leaves the prefix in *l_prefix, and x,
 * pre and the returned value as clr_tile_scan() gives them for its own tile,
 * whose registers held the other tiles meanwhile. Called by every
 * work-item, rarely: kept apart from the common path, whose registers it
 * does not add to. */
T clr_fall_back(global const T *in, global T *out, ulong n, clr_tiles d, uint epoch, uint spins,
                ulong tile, local T *l, local ulong *l_stalled, local T *l_prefix,
                private T *x, private T *pre)
{
    uint lid = (uint)get_local_id(0);
    ulong q = *l_stalled;
    T prefix = *l_prefix;
    for (;;) {
        ulong q_base = q * CLR_TILE;
        T q_total;
        uint q_nan_at;
        clr_tile_load(in, q_base, n, clr_tile_fast(in, out, q_base, n), x);
        clr_tile_scan(l, x, pre, &q_total);
        q_total = clr_tile_total(l, in, q_base, x, q_total, &q_nan_at);
        prefix = clr_op(q_total, prefix);
#if CLR_TEST_LOOKBACK_HIDE == 2
        prefix = clr_op(q_total, prefix); /* a wrong fallback, for tests of the tests */
#endif
        /* The loop's one way out is after the barrier: PoCL 3.1 loops for
         * ever on a loop with a barrier that work-groups may also leave
         * before it. */
        if (clr_is_looker()) {
            ulong stalled = q ? clr_look_back(d, q, epoch, spins, &prefix) : CLR_NO_TILE;
            if (lid == 0) {
                *l_stalled = stalled;
                *l_prefix = prefix;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        q = *l_stalled;
        prefix = *l_prefix;
        if (q == CLR_NO_TILE)
            break;
    }
    ulong base = tile * CLR_TILE;
    T total;
    uint nan_at;
    clr_tile_load(in, base, n, clr_tile_fast(in, out, base, n), x);
    T before = clr_tile_scan(l, x, pre, &total);
    total = clr_tile_total(l, in, base, x, total, &nan_at);
    if (lid == 0) {
        clr_publish(d, tile, epoch, CLR_STATUS_INCLUSIVE, clr_op(prefix, total));
        *l_prefix = prefix;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return before;
}
#endif

/* Tiles in the order work-groups start: a tile waits only for tiles whose
 * work-groups are already running. (Drawing a second ticket ahead, for a
 * work-group to take when done, made the H200 slower: a tile claimed early
 * holds up every later tile's look-back until its work-group gets to it.)
 *
 * With CLR_LOOKBACK_FALLBACK (tile_state.cl) not even that wait is needed
 * for the scan to finish: `spins` bounds each wait for a predecessor's state
 * (CLR_FOREVER: unbounded), and when one does not come, the work-group
 * reduces that tile itself (clr_fall_back). A
 * device that stops scheduling a started work-group (no forward progress
 * between work-groups) then costs time, never a hang. The fallback reads the
 * predecessor's input, so the caller passes CLR_FOREVER where input and
 * output are the same range: that tile may already have written its output
 * there. */
CLR_KERNEL clr_scan_lookback(global const T *in, ulong in_off, ulong n, global T *out,
                             ulong out_off, global uchar *scratch,
                             uint epoch, int exclusive, uint spins)
{
    local T l[2 * CLR_WG + 1];
    local uint l_tile;
    local ulong l_stalled;
    local T l_prefix;
    uint tiles = (uint)get_num_groups(0);
    volatile global uint *counter = (volatile global uint *)scratch;
    clr_tiles d = clr_tiles_at(scratch);
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
    uint nan_at;
    clr_tile_load(in, base, n, fast, x);
    T before = clr_tile_scan(l, x, pre, &total);
    total = clr_tile_total(l, in, base, x, total, &nan_at);

    if (tile == 0) {
        if (lid == 0) {
            clr_publish(d, 0, epoch, CLR_STATUS_INCLUSIVE, total);
            l_prefix = CLR_IDENTITY;
            l_stalled = CLR_NO_TILE;
        }
    } else {
        if (lid == 0)
            clr_publish(d, tile, epoch, CLR_STATUS_AGGREGATE, total);
        if (clr_is_looker()) {
            T prefix = CLR_IDENTITY;
            ulong stalled = clr_look_back(d, tile, epoch, spins, &prefix);
            if (lid == 0) {
                if (stalled == CLR_NO_TILE)
                    clr_publish(d, tile, epoch, CLR_STATUS_INCLUSIVE, clr_op(prefix, total));
                l_prefix = prefix;
                l_stalled = stalled;
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#if CLR_LOOKBACK_FALLBACK
    if (l_stalled != CLR_NO_TILE)
        before = clr_fall_back(in, out, n, d, epoch, spins, tile, l, &l_stalled, &l_prefix, x, pre);
#endif
    clr_tile_store(out, base, n, fast, x, pre, l_prefix, before, nan_at, total, exclusive);
}
