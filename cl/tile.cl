/*
 * tile.cl — a tile of the tiled scans: how its elements are laid out over
 * the work-items, and its load, work-group scan and store. Built on
 * types.cl, subgroup.cl and workgroup_scan.cl.
 *
 * Compile-time parameters:
 *   CLR_UNROLL  vectors per work-item in a tile.
 *   CLR_VEC     elements per vector.
 *   CLR_WG      work-group size.
 */

#ifndef CLR_UNROLL
#define CLR_UNROLL 1
#endif

/* Tiles of CLR_TILE elements: each work-item holds CLR_ITEMS of them in
 * registers. With sub-groups, sub-group s owns the contiguous segment
 * [s * S * CLR_ITEMS, (s + 1) * S * CLR_ITEMS) of the tile (S its size) and
 * reads it as CLR_UNROLL rows of S vectors, lane l taking vector l of each
 * row: every load of the sub-group is one contiguous, aligned run. Without
 * sub-groups, work-item t owns elements [t * CLR_ITEMS, (t + 1) *
 * CLR_ITEMS). */

#define CLR_ITEMS (CLR_UNROLL * CLR_VEC)
#define CLR_TILE ((ulong)CLR_WG * CLR_ITEMS)

#if CLR_HAS_SUBGROUPS
#define CLR_SEGMENTS (CLR_WG / clr_sg_size())
#else
#define CLR_SEGMENTS CLR_WG
#endif

/* Position in the tile of the first element of this work-item's vector u. */
uint clr_item_index(uint u)
{
#if CLR_HAS_SUBGROUPS
    uint s = clr_sg_size();
    return clr_sg_id() * s * CLR_ITEMS + (u * s + clr_sg_lane()) * CLR_VEC;
#else
    return (uint)get_local_id(0) * CLR_ITEMS + u * CLR_VEC;
#endif
}

#if CLR_VEC > 1
#define CLR_VLOAD(k, p) CLR_CAT(vload, CLR_VEC)(k, p)
#define CLR_VSTORE(v, k, p) CLR_CAT(vstore, CLR_VEC)(v, k, p)
#else
#define CLR_VLOAD(k, p) ((p)[k])
#define CLR_VSTORE(v, k, p) ((p)[k] = (v))
#endif

/* Loads this work-item's items of the tile at in[base ..], the identity past
 * n, into x. `fast`: the tile is whole and in is vector-aligned. (On the
 * H200, loads through the read-only path and streaming stores ran no faster
 * than plain ones here.) */
void clr_tile_load(global const T *in, ulong base, ulong n, int fast, private T *x)
{
    if (fast) {
#pragma unroll
        for (uint u = 0; u < CLR_UNROLL; u++) {
            VT v = *(global const VT *)(in + base + clr_item_index(u));
            CLR_VSTORE(v, u, x);
        }
    } else {
#pragma unroll
        for (uint u = 0; u < CLR_UNROLL; u++)
#pragma unroll
            for (uint k = 0; k < CLR_VEC; k++) {
                ulong i = base + clr_item_index(u) + k;
                x[u * CLR_VEC + k] = i < n ? in[i] : CLR_IDENTITY;
            }
    }
}

/* Writes this work-item's items, scanned from `prefix` (the combination of
 * everything before its vector u is prefix combined with pre[u]). */
void clr_tile_store(global T *out, ulong base, ulong n, int fast, const private T *x,
                    const private T *pre, T prefix, int exclusive)
{
#pragma unroll
    for (uint u = 0; u < CLR_UNROLL; u++) {
        T run = clr_op(prefix, pre[u]);
        T y[CLR_VEC];
#pragma unroll
        for (uint k = 0; k < CLR_VEC; k++) {
            T next = clr_op(run, x[u * CLR_VEC + k]);
            y[k] = exclusive ? run : next;
            run = next;
        }
        if (fast) {
            *(global VT *)(out + base + clr_item_index(u)) = CLR_VLOAD(0, y);
        } else {
#pragma unroll
            for (uint k = 0; k < CLR_VEC; k++) {
                ulong i = base + clr_item_index(u) + k;
                if (i < n)
                    out[i] = y[k];
            }
        }
    }
}

/* Scans the work-item's items within the tile: pre[u] receives the
 * combination of the tile's elements before vector u that precede it in its
 * segment, and the returned value is the combination of everything in the
 * tile before the work-item's segment. *total receives the tile's total.
 * Called by every work-item; l holds 2 * CLR_WG + 1 elements. */
T clr_tile_scan(local T *l, const private T *x, private T *pre, T *total)
{
    T t[CLR_UNROLL];
#pragma unroll
    for (uint u = 0; u < CLR_UNROLL; u++) {
        T s = x[u * CLR_VEC];
#pragma unroll
        for (uint k = 1; k < CLR_VEC; k++)
            s = clr_op(s, x[u * CLR_VEC + k]);
        t[u] = s;
    }
#if CLR_HAS_SUBGROUPS
    /* Row by row across the lanes, carrying each row's total to the next. */
    uint last = clr_sg_size() - 1;
    T carry = CLR_IDENTITY;
#pragma unroll
    for (uint u = 0; u < CLR_UNROLL; u++) {
        T e = clr_sg_scan_exclusive(t[u]);
        pre[u] = u ? clr_op(carry, e) : e;
        T row = clr_sg_broadcast(clr_op(e, t[u]), last);
        carry = u ? clr_op(carry, row) : row;
    }
    /* Segment totals, scanned by sub-group 0 in rows of its size. */
    uint sg = clr_sg_id(), lane = clr_sg_lane(), size = clr_sg_size();
    if (lane == last)
        l[sg] = carry;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (sg == 0) {
        T run = CLR_IDENTITY;
        for (uint base = 0; base < CLR_SEGMENTS; base += size) {
            T v = base + lane < CLR_SEGMENTS ? l[base + lane] : CLR_IDENTITY;
            T e = clr_sg_scan_exclusive(v);
            T row = clr_sg_broadcast(clr_op(e, v), last);
            if (base + lane < CLR_SEGMENTS)
                l[CLR_WG + base + lane] = clr_op(run, e);
            run = clr_op(run, row);
        }
        if (lane == 0)
            l[2 * CLR_WG] = run;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    *total = l[2 * CLR_WG];
    T before = l[CLR_WG + sg];
#else
    T run = CLR_IDENTITY;
#pragma unroll
    for (uint u = 0; u < CLR_UNROLL; u++) {
        pre[u] = run;
        run = clr_op(run, t[u]);
    }
    uint src;
    uint lid = (uint)get_local_id(0);
    clr_wg_scan_hs(l, run, &src);
    T before = lid ? l[src * CLR_WG + lid - 1] : CLR_IDENTITY;
    *total = l[src * CLR_WG + CLR_WG - 1];
#endif
    barrier(CLK_LOCAL_MEM_FENCE); /* l is free again */
    return before;
}

/* Whether the tile at base is whole and both ends are vector-aligned. */
int clr_tile_fast(global const T *in, global const T *out, ulong base, ulong n)
{
    ulong align = CLR_VEC * sizeof(T);
    return base + CLR_TILE <= n && (ulong)(uintptr_t)in % align == 0 &&
           (ulong)(uintptr_t)out % align == 0;
}
