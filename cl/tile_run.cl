/*
 * tile_run.cl — one work-group's run of consecutive tiles (tile.cl) of a
 * range: its total, and its scan from a prefix. The layer under the
 * reduce-then-scan kernels of a flat range (scan_rts.cl) and of rows
 * (scan_rows.cl).
 *
 * Compile-time parameters: those of types.cl, subgroup.cl,
 * workgroup_reduce.cl, workgroup_scan.cl and tile.cl.
 *
 * Provides:
 *   clr_tile_run_total(l, in, n, first, last)  the total of tiles [first,
 *                  last) of in[0 .. n), valid where clr_wg_is_leader();
 *                  l holds CLR_WG elements.
 *   clr_tile_run_scan(l, in, out, n, first, last, prefix, exclusive)
 *                  scans those tiles into out[0 .. n) from prefix; l holds
 *                  2 * CLR_WG + 1 elements. in and out may be the same.
 * Tiles at or past n are empty. Both are called by every work-item.
 */

/* Tile by tile, as clr_tile_run_scan meets them: each tile's total is a
 * work-item's items in sequence then a tree over the work-group, and the
 * tiles' totals are combined in order. So every partial is grouped as the
 * scan groups its prefixes, and the scans' error bound (tiles before an
 * element plus the elements of one work-item) holds; a work-item adding its
 * strided share of the whole run in sequence would not. */
T clr_tile_run_total(local T *l, global const T *in, ulong n, ulong first, ulong last)
{
    T acc = CLR_IDENTITY;
    for (ulong t = first; t < last && t * CLR_TILE < n; t++) {
        ulong base = t * CLR_TILE;
        T x[CLR_ITEMS];
        clr_tile_load(in, base, n, clr_tile_fast(in, in, base, n), x);
        T s = x[0];
#pragma unroll
        for (uint k = 1; k < CLR_ITEMS; k++)
            s = clr_tile_op(s, x[k]);
        T total = clr_wg_reduce(l, clr_tile_item_total(in, base, x, s));
        if (clr_wg_is_leader())
            acc = clr_op(acc, total);
        barrier(CLK_LOCAL_MEM_FENCE); /* l is read until here */
    }
    return acc;
}

void clr_tile_run_scan(local T *l, global const T *in, global T *out, ulong n, ulong first,
                       ulong last, T prefix, int exclusive)
{
    for (ulong t = first; t < last && t * CLR_TILE < n; t++) {
        ulong base = t * CLR_TILE;
        int fast = clr_tile_fast(in, out, base, n);
        T x[CLR_ITEMS], pre[CLR_UNROLL], total;
        uint nan_at;
        clr_tile_load(in, base, n, fast, x);
        T before = clr_tile_scan(l, x, pre, &total);
        total = clr_tile_total(l, in, base, x, total, &nan_at);
        clr_tile_store(out, base, n, fast, x, pre, prefix, before, nan_at, total, exclusive);
        prefix = clr_op(prefix, total);
    }
}
