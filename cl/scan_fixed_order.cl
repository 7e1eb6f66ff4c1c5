/*
 * scan_fixed_order.cl — the reproducible scan of a float or double sum: an
 * order of operations that depends on the element count alone.
 *
 * The order. The input is cut into tiles of CLR_FIXED_TILE elements (as
 * fixed_order.cl's), a tile into CLR_FIXED_LANES lanes of CLR_FIXED_LANE
 * consecutive elements. Each lane's elements are added in sequence from
 * +0.0: run(i), the lane's sum up to element i, and its total L; the lanes'
 * totals are scanned by the Hillis-Steele pattern (lane l takes lane
 * l - s, s = 1, 2, ... CLR_FIXED_LANES / 2), E(l) the sum of the lanes
 * before l (+0.0 for lane 0), and the tile's total is the scan's last.
 * The tiles' totals are scanned by one work-group: lane c of it adds the
 * totals of tiles [c * C, (c + 1) * C), C = ceil(tiles / CLR_FIXED_LANES),
 * in sequence from +0.0, the chunks' sums are scanned as above, Q(c) the
 * sum of the chunks before c, and tile t of chunk c gets
 * P(t) = Q(c) + R(t), R(t) the chunk's sum of the tiles before t (from
 * +0.0). Element i of tile t, lane l, is then P(t) + (E(l) + run(i)), or
 * for an exclusive scan P(t) + (E(l) + run(i - 1)), run(i - 1) being +0.0
 * for a lane's first element. No value is ever -0.0 (every sum starts from
 * +0.0), so adding +0.0 for elements past the end changes nothing.
 *
 * Compile-time parameters: those of fixed_order.cl.
 *
 * Kernels, in the order of their launches, over `values`: the tiles'
 * totals, then their P(t), `tiles` of each per row:
 *   clr_fixed_scan_totals: each tile's total;
 *   clr_fixed_scan_prefixes: P(t) of every tile of a row, a work-group
 *       per row;
 *   clr_fixed_scan_apply: the scan, tile by tile (in place too: a lane
 *       reads its elements before it writes them);
 *   clr_fixed_scan_short: rows of one lane at most, alone.
 */

#define CLR_FIXED_LANE (CLR_FIXED_TILE / CLR_FIXED_LANES)
#define CLR_FIXED_LANE_VECTORS (CLR_FIXED_LANE / CLR_VEC)

/* The Hillis-Steele scan of the work-group's values, inclusive; the value
 * of work-item lid - 1 (+0.0 for the first), the exclusive one, goes to
 * *before. */
T clr_fixed_lanes_scan(local T *l, T v, T *before)
{
    const uint lid = (uint)get_local_id(0);
    l[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < CLR_FIXED_LANES; s <<= 1) {
        T other = lid >= s ? l[lid - s] : CLR_IDENTITY;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid >= s)
            l[lid] = clr_op(other, l[lid]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    T inclusive = l[lid];
    *before = lid ? l[lid - 1] : CLR_IDENTITY;
    barrier(CLK_LOCAL_MEM_FENCE); /* l read by all before it is written again */
    return inclusive;
}

/* This work-item's lane of the tile at element `base`: its elements into
 * x (+0.0 past the end), their total returned. */
T clr_fixed_scan_lane(global const T *in, ulong n, ulong base, VT *x)
{
    const ulong first = base + (ulong)get_local_id(0) * CLR_FIXED_LANE;
    T total = CLR_IDENTITY;
    for (uint k = 0; k < CLR_FIXED_LANE_VECTORS; k++) {
        const ulong at = first + (ulong)k * CLR_VEC;
        if (at + CLR_VEC <= n) {
            x[k] = CLR_FIXED_LOAD_ANY(0, in + at);
        } else {
            T e[CLR_VEC];
            for (uint j = 0; j < CLR_VEC; j++)
                e[j] = at + j < n ? in[at + j] : CLR_IDENTITY;
#if CLR_VEC > 1
            x[k] = CLR_CAT(vload, CLR_VEC)(0, e);
#else
            x[k] = e[0];
#endif
        }
        const T *s = (const T *)&x[k];
        for (uint j = 0; j < CLR_VEC; j++)
            total = clr_op(total, s[j]);
    }
    return total;
}

/* Rows: row r is in[in_off + r * pitch ..][0 .. n), its scan goes to
 * out[out_off + r * out_pitch ..]; `tiles` tiles a row, and a row's values
 * (its tiles' totals, then their P(t)) at values[r * 2 * tiles ..]. A flat
 * scan is one row. */

CLR_KERNEL clr_fixed_scan_totals(global const T *restrict in, ulong in_off, ulong rows, ulong n,
                                 ulong pitch, ulong tiles, global T *restrict values)
{
    local T l[CLR_WG];
    VT x[CLR_FIXED_LANE_VECTORS];
    in += in_off;
    for (ulong g = get_group_id(0); g < rows * tiles; g += get_num_groups(0)) {
        const ulong r = g / tiles, t = g - r * tiles;
        T before, all = clr_fixed_lanes_scan(
            l, clr_fixed_scan_lane(in + r * pitch, n, t * CLR_FIXED_TILE, x), &before);
        if (get_local_id(0) == CLR_FIXED_LANES - 1)
            values[r * 2 * tiles + t] = all;
    }
}

/* A work-group per row. */
CLR_KERNEL clr_fixed_scan_prefixes(global T *values, ulong rows, ulong tiles)
{
    local T l[CLR_WG];
    const ulong chunk = (tiles + CLR_FIXED_LANES - 1) / CLR_FIXED_LANES;
    const ulong first = get_local_id(0) * chunk, end = min(first + chunk, tiles);
    for (ulong row = get_group_id(0); row < rows; row += get_num_groups(0)) {
        global const T *totals = values + row * 2 * tiles;
        global T *prefixes = values + row * 2 * tiles + tiles;
        T sum = CLR_IDENTITY;
        for (ulong t = first; t < end; t++)
            sum = clr_op(sum, totals[t]);
        T q;
        clr_fixed_lanes_scan(l, sum, &q);
        T r = CLR_IDENTITY;
        for (ulong t = first; t < end; t++) {
            prefixes[t] = clr_op(q, r);
            r = clr_op(r, totals[t]);
        }
    }
}

/* A row of one tile has P(0) = +0.0 and no values: the host launches this
 * one kernel alone. */
CLR_KERNEL clr_fixed_scan_apply(global const T *in, ulong in_off, ulong rows, ulong n,
                                ulong pitch, ulong tiles, global const T *restrict values,
                                global T *out, ulong out_off, ulong out_pitch, uint exclusive)
{
    local T l[CLR_WG];
    VT x[CLR_FIXED_LANE_VECTORS];
    in += in_off;
    out += out_off;
    for (ulong g = get_group_id(0); g < rows * tiles; g += get_num_groups(0)) {
        const ulong r = g / tiles, t = g - r * tiles;
        const ulong first = t * CLR_FIXED_TILE + (ulong)get_local_id(0) * CLR_FIXED_LANE;
        T e;
        clr_fixed_lanes_scan(l, clr_fixed_scan_lane(in + r * pitch, n, t * CLR_FIXED_TILE, x),
                             &e);
        const T p = tiles > 1 ? values[r * 2 * tiles + tiles + t] : CLR_IDENTITY;
        T run = CLR_IDENTITY;
        global T *row_out = out + r * out_pitch;
        for (uint k = 0; k < CLR_FIXED_LANE_VECTORS; k++) {
            const T *s = (const T *)&x[k];
            for (uint j = 0; j < CLR_VEC; j++) {
                const ulong at = first + (ulong)k * CLR_VEC + j;
                const T before = run;
                run = clr_op(run, s[j]);
                if (at < n)
                    row_out[at] = clr_op(p, clr_op(e, exclusive ? before : run));
            }
        }
    }
}

/* Rows of one lane at most (n <= CLR_FIXED_LANE): E(0) and P(0) are +0.0,
 * so an element is its lane's sum so far; a work-item per row. */
CLR_KERNEL clr_fixed_scan_short(global const T *in, ulong in_off, ulong rows, ulong n,
                                ulong pitch, global T *out, ulong out_off, ulong out_pitch,
                                uint exclusive)
{
    in += in_off;
    out += out_off;
    for (ulong r = get_global_id(0); r < rows; r += get_global_size(0)) {
        T run = CLR_IDENTITY;
        for (uint i = 0; i < (uint)n; i++) {
            const T x = in[r * pitch + i], before = run;
            run = clr_op(run, x);
            out[r * out_pitch + i] = exclusive ? before : run;
        }
    }
}
