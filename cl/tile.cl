/*
 * tile.cl — a tile of the tiled scans: how its elements are laid out over
 * the work-items, and its load, work-group scan and store. Built on
 * types.cl, subgroup.cl and workgroup_scan.cl.
 *
 * Compile-time parameters:
 *   CLR_UNROLL  vectors per work-item in a tile.
 *   CLR_VEC     elements per vector.
 *   CLR_WG      work-group size.
 *
 * A tile is loaded into registers in the tile's domain (below) and scanned
 * there; what leaves it, its total and its outputs, is exact in T:
 *   clr_tile_load(in, base, n, fast, x)     x: the work-item's items
 *   clr_tile_scan(l, x, pre, &total)        the work-group's scan
 *   clr_tile_total(l, in, base, x, total, &nan_at)  the total as an element
 *   clr_tile_item_total(in, base, x, s)     one work-item's share of it
 *   clr_tile_store(out, base, n, fast, x, pre, prefix, before, nan_at,
 *                  total, exclusive)        the outputs
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

/* ---- the tile's domain -------------------------------------------------------
 *
 * Float min and max scan their tiles as integer min and max of keys: the
 * bits of x with the magnitude bits flipped when x is negative (types.cl's
 * clr_key), which order as clr_op orders floats, -0.0 below +0.0, and every
 * NaN as CLR_TILE_NAN, a key past all others. Each step of a scan's
 * dependent chain is then one integer instruction, where clr_op's tests for
 * NaN and the sign of zero take several. A tile holding a NaN finds its
 * first one and reads it again (clr_tile_total), so that its outputs from
 * there on are that NaN bit for bit, as clr_op keeps it. Sums and integers
 * scan their elements as they are. */
#define CLR_TILE_KEYS (CLR_IS_FLOAT && CLR_OP != CLR_OP_SUM)
#define CLR_NO_NAN UINT_MAX /* no NaN in the tile */

#if CLR_TILE_KEYS

#if CLR_OP == CLR_OP_MAX && CLR_IS_64
#define CLR_TILE_NAN LONG_MAX
#elif CLR_OP == CLR_OP_MAX
#define CLR_TILE_NAN INT_MAX
#elif CLR_IS_64
#define CLR_TILE_NAN LONG_MIN
#else
#define CLR_TILE_NAN INT_MIN
#endif
#define CLR_AS_KT CLR_CAT(as_, KT)
#define CLR_AS_KVT CLR_CAT(as_, KVT)
#define CLR_AS_VT CLR_CAT(as_, VT)

/* Keys travel in T's registers, shuffles and local memory, bits unchanged. */
T clr_tile_op(T a, T b) { return CLR_AS_T(CLR_KEY_BEST(CLR_AS_KT(a), CLR_AS_KT(b))); }
#define CLR_TILE_IDENTITY CLR_AS_T((KT)CLR_KEY_START)

T clr_tile_in(T x)
{
    KT k = CLR_AS_KT(x);
    return CLR_AS_T(isnan(x) ? (KT)CLR_TILE_NAN : CLR_KEY_FLIP(k));
}

VT clr_tile_in_vec(VT v) { return CLR_AS_VT(isnan(v) ? (KVT)CLR_TILE_NAN : clr_key(v)); }

/* The element of a key other than CLR_TILE_NAN. */
VT clr_tile_out_vec(VT k)
{
    KVT b = CLR_AS_KVT(k);
    return CLR_AS_VT(CLR_KEY_FLIP(b));
}

T clr_tile_out(T k)
{
    KT b = CLR_AS_KT(k);
    return CLR_AS_T(CLR_KEY_FLIP(b));
}

int clr_tile_is_nan(T k) { return CLR_AS_KT(k) == (KT)CLR_TILE_NAN; }

#if CLR_HAS_SUBGROUPS && CLR_SG_PATH == CLR_SG_REDUCE
/* The built-in integer scan: lane 0 gets the type's extreme, which every
 * key beats, so it acts as the identity. */
T clr_tile_sg_scan_exclusive(T v)
{
    return CLR_AS_T(CLR_CAT(sub_group_scan_exclusive_, CLR_KEY_BEST)(CLR_AS_KT(v)));
}
#elif CLR_HAS_SUBGROUPS
CLR_SG_SCAN_LADDER(clr_tile_sg_scan_inclusive, clr_tile_sg_scan_exclusive, clr_tile_op,
                   CLR_TILE_IDENTITY, 1)
#else
CLR_TEAM_SCAN_HS(clr_tile_team_scan_hs, clr_tile_op)
#endif

#else

#define clr_tile_op clr_op
#define CLR_TILE_IDENTITY CLR_IDENTITY
#define clr_tile_in(x) (x)
#define clr_tile_in_vec(v) (v)
#define clr_tile_out_vec(v) (v)
#define clr_tile_out(x) (x)
#define clr_tile_sg_scan_inclusive clr_sg_scan_inclusive
#define clr_tile_sg_scan_exclusive clr_sg_scan_exclusive
#define clr_tile_team_scan_hs clr_team_scan_hs

#endif

/* Where the operator is exact (all but float sums) and the lanes scan by
 * shuffles, a row's exclusive scan is its inclusive scan shifted up a lane
 * and its total the last lane's inclusive scan, rather than the exclusive
 * scan combined with the row's values once more; a float sum keeps that
 * order of operations. (With the unguarded ladder of subgroup.cl, on the
 * H200, inclusive and exclusive max scans of 2^24 to 2^28 floats and
 * doubles took 1.5-2.8% less time, medians of three turns with the old
 * build alternating; sums, whose code is unchanged, moved within the
 * turns' spread.) */
#if CLR_HAS_SUBGROUPS && CLR_SG_PATH != CLR_SG_REDUCE && (!CLR_IS_FLOAT || CLR_OP != CLR_OP_SUM)
#define CLR_TILE_ROW_FROM_INCLUSIVE 1
#else
#define CLR_TILE_ROW_FROM_INCLUSIVE 0
#endif

/* Loads this work-item's items of the tile at in[base ..] into x, in the
 * tile's domain, the identity past n. `fast`: the tile is whole and in is
 * vector-aligned. (On the H200, loads through the read-only path and
 * streaming stores ran no faster than plain ones here.) */
void clr_tile_load(global const T *in, ulong base, ulong n, int fast, private T *x)
{
    if (fast) {
#pragma unroll
        for (uint u = 0; u < CLR_UNROLL; u++) {
            VT v = *(global const VT *)(in + base + clr_item_index(u));
            CLR_VSTORE(clr_tile_in_vec(v), u, x);
        }
    } else {
#pragma unroll
        for (uint u = 0; u < CLR_UNROLL; u++)
#pragma unroll
            for (uint k = 0; k < CLR_VEC; k++) {
                ulong i = base + clr_item_index(u) + k;
                x[u * CLR_VEC + k] = i < n ? clr_tile_in(in[i]) : CLR_TILE_IDENTITY;
            }
    }
}

/* Writes this work-item's items, scanned from `prefix`, the exact
 * combination of everything before the tile: its vector u's outputs start
 * from prefix, then before and pre[u] (clr_tile_scan). nan_at and total
 * are clr_tile_total's. */
void clr_tile_store(global T *out, ulong base, ulong n, int fast, const private T *x,
                    const private T *pre, T prefix, T before, uint nan_at, T total,
                    int exclusive)
{
    T start = clr_tile_op(clr_tile_in(prefix), before);
#if CLR_TILE_KEYS
    /* From here on the outputs are one NaN: the prefix's, else the tile's
     * first (after it when exclusive). */
    uint nan_from = CLR_NO_NAN;
    T nan = prefix;
    if (isnan(prefix)) {
        nan_from = 0;
    } else if (nan_at != CLR_NO_NAN) {
        nan_from = nan_at + (exclusive ? 1 : 0);
        nan = total;
    }
#endif
#pragma unroll
    for (uint u = 0; u < CLR_UNROLL; u++) {
        T run = clr_tile_op(start, pre[u]);
        T y[CLR_VEC];
#pragma unroll
        for (uint k = 0; k < CLR_VEC; k++) {
            T next = clr_tile_op(run, x[u * CLR_VEC + k]);
            y[k] = exclusive ? run : next;
            run = next;
        }
        CLR_VSTORE(clr_tile_out_vec(CLR_VLOAD(0, y)), 0, y);
#if CLR_TILE_KEYS
        if (nan_from != CLR_NO_NAN) {
#pragma unroll
            for (uint k = 0; k < CLR_VEC; k++)
                if (clr_item_index(u) + k >= nan_from)
                    y[k] = nan;
        }
#endif
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

/* Scans the work-item's items within the tile, in the tile's domain:
 * pre[u] receives the combination of the tile's elements before vector u
 * that precede it in its segment, and the returned value is the
 * combination of everything in the tile before the work-item's segment.
 * *total receives the tile's total.
 * Called by every work-item; l holds 2 * CLR_WG + 1 elements. */
T clr_tile_scan(local T *l, const private T *x, private T *pre, T *total)
{
    T t[CLR_UNROLL];
#pragma unroll
    for (uint u = 0; u < CLR_UNROLL; u++) {
        T s = x[u * CLR_VEC];
#pragma unroll
        for (uint k = 1; k < CLR_VEC; k++)
            s = clr_tile_op(s, x[u * CLR_VEC + k]);
        t[u] = s;
    }
#if CLR_HAS_SUBGROUPS
    /* Row by row across the lanes, carrying each row's total to the next. */
    uint last = clr_sg_size() - 1;
    T carry = CLR_TILE_IDENTITY;
#pragma unroll
    for (uint u = 0; u < CLR_UNROLL; u++) {
#if CLR_TILE_ROW_FROM_INCLUSIVE
        T i = clr_tile_sg_scan_inclusive(t[u]);
        T e = clr_sg_shift_up(i, CLR_TILE_IDENTITY);
        T row = clr_sg_broadcast(i, last);
#else
        T e = clr_tile_sg_scan_exclusive(t[u]);
        T row = clr_sg_broadcast(clr_tile_op(e, t[u]), last);
#endif
        pre[u] = u ? clr_tile_op(carry, e) : e;
        carry = u ? clr_tile_op(carry, row) : row;
    }
    /* Segment totals, scanned by sub-group 0 in rows of its size. */
    uint sg = clr_sg_id(), lane = clr_sg_lane(), size = clr_sg_size();
    if (lane == last)
        l[sg] = carry;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (sg == 0) {
        T run = CLR_TILE_IDENTITY;
        for (uint base = 0; base < CLR_SEGMENTS; base += size) {
            T v = base + lane < CLR_SEGMENTS ? l[base + lane] : CLR_TILE_IDENTITY;
            T e = clr_tile_sg_scan_exclusive(v);
            T row = clr_sg_broadcast(clr_tile_op(e, v), last);
            if (base + lane < CLR_SEGMENTS)
                l[CLR_WG + base + lane] = clr_tile_op(run, e);
            run = clr_tile_op(run, row);
        }
        if (lane == 0)
            l[2 * CLR_WG] = run;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    *total = l[2 * CLR_WG];
    T before = l[CLR_WG + sg];
#else
    T run = CLR_TILE_IDENTITY;
#pragma unroll
    for (uint u = 0; u < CLR_UNROLL; u++) {
        pre[u] = run;
        run = clr_tile_op(run, t[u]);
    }
    uint src;
    uint lid = (uint)get_local_id(0);
    clr_tile_team_scan_hs(l, run, CLR_WG, &src);
    T before = lid ? l[src * CLR_WG + lid - 1] : CLR_TILE_IDENTITY;
    *total = l[src * CLR_WG + CLR_WG - 1];
#endif
    barrier(CLK_LOCAL_MEM_FENCE); /* l is free again */
    return before;
}

/* The tile's total as an element, from clr_tile_scan's *total; *nan_at
 * receives the position in the tile of its first NaN, or CLR_NO_NAN. A
 * tile with a NaN (rarely) reads that NaN again from in, so call it before
 * the tile's outputs are written: in and out may be the same. Called by
 * every work-item after clr_tile_scan; l as for it. */
T clr_tile_total(local T *l, global const T *in, ulong base, const private T *x, T total,
                 uint *nan_at)
{
    *nan_at = CLR_NO_NAN;
#if CLR_TILE_KEYS
    if (clr_tile_is_nan(total)) {
        volatile local uint *first = (volatile local uint *)l;
        if (get_local_id(0) == 0)
            *first = CLR_NO_NAN;
        barrier(CLK_LOCAL_MEM_FENCE);
        uint mine = CLR_NO_NAN;
#pragma unroll
        for (uint u = 0; u < CLR_UNROLL; u++)
#pragma unroll
            for (uint k = 0; k < CLR_VEC; k++)
                if (clr_tile_is_nan(x[u * CLR_VEC + k]))
                    mine = min(mine, clr_item_index(u) + k);
        if (mine != CLR_NO_NAN)
            atomic_min(first, mine);
        barrier(CLK_LOCAL_MEM_FENCE);
        *nan_at = *first;
        T nan = in[base + *nan_at];
        /* Every work-item has read it before any output is written (a
         * global fence: in and out may be the same), and l is free again. */
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        return nan;
    }
    return clr_tile_out(total);
#else
    return total;
#endif
}

/* The combination of this work-item's items x, s in the tile's domain, as
 * an element: its first NaN, read again from in, when it has one. */
T clr_tile_item_total(global const T *in, ulong base, const private T *x, T s)
{
#if CLR_TILE_KEYS
    if (clr_tile_is_nan(s)) {
        uint at = CLR_NO_NAN;
#pragma unroll
        for (uint u = 0; u < CLR_UNROLL; u++)
#pragma unroll
            for (uint k = 0; k < CLR_VEC; k++)
                if (at == CLR_NO_NAN && clr_tile_is_nan(x[u * CLR_VEC + k]))
                    at = clr_item_index(u) + k;
        return in[base + at];
    }
#endif
    return clr_tile_out(s);
}

/* Whether the tile at base is whole and both ends are vector-aligned. */
int clr_tile_fast(global const T *in, global const T *out, ulong base, ulong n)
{
    ulong align = CLR_VEC * sizeof(T);
    return base + CLR_TILE <= n && (ulong)(uintptr_t)in % align == 0 &&
           (ulong)(uintptr_t)out % align == 0;
}
