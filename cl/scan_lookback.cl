/*
 * scan_lookback.cl — the single-pass scan with decoupled look-back and
 * decoupled fallback: each work-group draws a tile from a ticket, scans it
 * (tile.cl), and takes the combination of the tiles before it from their
 * published states (tile_state.cl); where a predecessor has published
 * nothing after a bounded number of polls, the work-group reduces that
 * tile's input itself and looks further back, so that no work-group ever
 * waits for another to make progress.
 *
 * Compile-time parameters: those of types.cl, subgroup.cl, workgroup_scan.cl,
 * tile.cl, device_order.cl and tile_state.cl, and
 *   CLR_LOOKBACK_MODE  a CLR_LOOKBACK_* code of contract.h (default TRUST).
 * The kernel takes `exclusive` (0 or 1) at run time; input and output may
 * be the same range.
 */

#ifndef CLR_LOOKBACK_MODE
#define CLR_LOOKBACK_MODE CLR_LOOKBACK_TRUST
#endif

/* Whether this work-item takes part in the look-back. */
#if CLR_HAS_SUBGROUPS
#define CLR_LOOKS_BACK() (clr_sg_id() == 0)
#else
#define CLR_LOOKS_BACK() (get_local_id(0) == 0)
#endif

/* On NVIDIA the fallback is a call, so that what it needs of the registers
 * is saved around it when it runs, not taken from the common path: clang
 * and ptxas (sm_90, 128 registers a work-item) spilled none of the 4-byte
 * types' registers so, and spilled them when it was inlined. */
#if CLR_ORDER == CLR_ORDER_PTX
#define CLR_SLOW_PATH __attribute__((noinline))
#else
#define CLR_SLOW_PATH
#endif

/* The fallback, run by the whole work-group once the look-back found tile
 * *l_stuck with nothing published in time; *l_prefix combines the tiles
 * after it, up to `tile`. Reduces that tile's
 * input (clr_tile_total: the bits its owner finds), takes its state
 * (clr_settle), and looks back further, reducing each tile found stalled
 * the same way, until an inclusive prefix or tile 0; then publishes this
 * tile's inclusive prefix (`total` its aggregate) and leaves its exclusive
 * prefix in *l_prefix. */
CLR_SLOW_PATH void clr_fall_back(local T *l, local T *l_prefix, local ulong *l_stuck, local T *l_taken,
                   local uint *l_done, clr_tiles d, global const T *in, global const T *out,
                   ulong n, ulong tile, uint epoch, T total)
{
    uint lid = (uint)get_local_id(0);
    T prefix = *l_prefix;
    for (ulong q = *l_stuck;;) {
        ulong base = q * CLR_TILE;
        T agg = clr_tile_total(l, in, base, n, clr_tile_fast(in, out, base, n));
        /* Every work-item's loads of tile q come before the look at its
         * status: a scan in place overwrites q's input only after its owner
         * has published. */
        clr_fence_device();
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            /* Under CLR_LOOKBACK_STALLED the predecessor's published state
             * is ignored, so that the output shows the fallback's own
             * result; not in place, where the input may be gone. */
            int trust = CLR_LOOKBACK_MODE != CLR_LOOKBACK_STALLED || q + 1 != tile ||
                        (global const T *)out == in;
            T v;
            *l_done = clr_settle(d, q, epoch, agg, trust, &v) == CLR_STATUS_INCLUSIVE;
            *l_taken = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        prefix = clr_op(*l_taken, prefix);
        ulong stuck = CLR_NO_TILE;
        if (!*l_done && CLR_LOOKS_BACK())
            stuck = clr_look_back(d, q, epoch, &prefix);
        if (lid == 0) {
            if (stuck == CLR_NO_TILE)
                clr_publish(d, tile, epoch, CLR_STATUS_INCLUSIVE, clr_op(prefix, total));
            *l_prefix = prefix;
            *l_stuck = stuck;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        q = *l_stuck;
        if (q == CLR_NO_TILE)
            return;
    }
}

/* Tiles in the order work-groups start: a tile's look-back first waits only
 * for tiles whose work-groups are already running (and only so long, since
 * a device need not keep a started work-group running while others wait).
 * (Drawing a second ticket ahead, for a work-group to take when done, made
 * the H200 slower: a tile claimed early holds up every later tile's
 * look-back until its work-group gets to it.) */
CLR_KERNEL clr_scan_lookback(global const T *in, ulong in_off, ulong n, global T *out,
                             ulong out_off, global uchar *scratch, uint capacity,
                             uint epoch, int exclusive)
{
    local T l[2 * CLR_WG + 1];
    local uint l_tile, l_done;
    local ulong l_stuck;
    local T l_prefix, l_taken;
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
            l_stuck = CLR_NO_TILE;
        }
    } else {
        if (lid == 0)
            clr_publish(d, tile, epoch, CLR_STATUS_AGGREGATE, total);
        if (CLR_LOOKS_BACK()) {
            T prefix = CLR_IDENTITY;
#if CLR_LOOKBACK_MODE == CLR_LOOKBACK_STALLED
            ulong stuck = tile - 1;
#else
            ulong stuck = clr_look_back(d, tile, epoch, &prefix);
#endif
            if (lid == 0) {
                if (stuck == CLR_NO_TILE)
                    clr_publish(d, tile, epoch, CLR_STATUS_INCLUSIVE, clr_op(prefix, total));
                l_prefix = prefix;
                l_stuck = stuck;
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The tile's items stay in registers through a fallback: loading and
     * scanning the tile again after it, for fewer registers live across it,
     * made clang and ptxas spill more on sm_90 for 8-byte types, not less. */
    if (l_stuck != CLR_NO_TILE)
        clr_fall_back(l, &l_prefix, &l_stuck, &l_taken, &l_done, d, in, out, n, tile, epoch,
                      total);
    clr_tile_store(out, base, n, fast, x, pre, clr_op(l_prefix, before), exclusive);
}
