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
 *   clr_fixed_scan_apply: the scan, tile by tile (in place too: a tile
 *       is read whole before it is written);
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

/* Staging. A lane's elements are consecutive, so the lanes' vectors of one
 * step lie CLR_FIXED_LANE_VECTORS vectors apart, and reading or writing
 * them lane by lane leaves most of each memory transaction unused. A tile
 * moves through local memory instead, a part of CLR_FIXED_STAGE_LANES lanes
 * at a time: the work-group reads or writes the part's vectors in order
 * (work-item w takes vectors w, w + CLR_WG, ...), the part's lanes take or
 * leave theirs in local memory. A lane's row there is padded by one vector,
 * so that the lanes' k-th vectors fall in different banks. Staging moves
 * values only: the order of operations is the one above. */
#define CLR_FIXED_STAGE_LANES 64
#define CLR_FIXED_STAGE_ROW (CLR_FIXED_LANE_VECTORS + 1)
#define CLR_FIXED_STAGE_VECTORS (CLR_FIXED_STAGE_LANES * CLR_FIXED_LANE_VECTORS)
#define CLR_FIXED_STAGE_SIZE (CLR_FIXED_STAGE_LANES * CLR_FIXED_STAGE_ROW)
#if CLR_FIXED_LANES % CLR_FIXED_STAGE_LANES
#error "a tile's lanes must fall into whole parts"
#endif

/* Where vector v of a part is kept in the stage. */
uint clr_fixed_stage_at(uint v)
{
    return v / CLR_FIXED_LANE_VECTORS * CLR_FIXED_STAGE_ROW + v % CLR_FIXED_LANE_VECTORS;
}

/* This work-item's lane of the tile at element `base`: its elements into
 * x (+0.0 past the end), their total returned. */
T clr_fixed_scan_lane(global const T *in, ulong n, ulong base, VT *x, local VT *stage)
{
    const uint lid = (uint)get_local_id(0);
    for (uint part = 0; part < CLR_FIXED_LANES / CLR_FIXED_STAGE_LANES; part++) {
        const ulong part_base = base + (ulong)part * CLR_FIXED_STAGE_VECTORS * CLR_VEC;
        for (uint v = lid; v < CLR_FIXED_STAGE_VECTORS; v += CLR_WG) {
            const ulong at = part_base + (ulong)v * CLR_VEC;
            VT value;
            if (at + CLR_VEC <= n) {
                value = CLR_FIXED_LOAD_ANY(0, in + at);
            } else {
                T e[CLR_VEC];
                for (uint j = 0; j < CLR_VEC; j++)
                    e[j] = at + j < n ? in[at + j] : CLR_IDENTITY;
                value = CLR_FIXED_LOAD_ANY(0, e);
            }
            stage[clr_fixed_stage_at(v)] = value;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid / CLR_FIXED_STAGE_LANES == part) {
            const uint row = lid % CLR_FIXED_STAGE_LANES * CLR_FIXED_STAGE_ROW;
            _Pragma("unroll") for (uint k = 0; k < CLR_FIXED_LANE_VECTORS; k++)
                x[k] = stage[row + k];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    T total = CLR_IDENTITY;
    _Pragma("unroll") for (uint k = 0; k < CLR_FIXED_LANE_VECTORS; k++) {
        T s[CLR_VEC];
        CLR_FIXED_STORE_ANY(x[k], s);
        for (uint j = 0; j < CLR_VEC; j++)
            total = clr_op(total, s[j]);
    }
    return total;
}

/* The tile at element `base` from its lanes' x, elements past n left
 * unwritten. */
void clr_fixed_scan_store(global T *out, ulong n, ulong base, const VT *x, local VT *stage)
{
    const uint lid = (uint)get_local_id(0);
    for (uint part = 0; part < CLR_FIXED_LANES / CLR_FIXED_STAGE_LANES; part++) {
        const ulong part_base = base + (ulong)part * CLR_FIXED_STAGE_VECTORS * CLR_VEC;
        if (lid / CLR_FIXED_STAGE_LANES == part) {
            const uint row = lid % CLR_FIXED_STAGE_LANES * CLR_FIXED_STAGE_ROW;
            _Pragma("unroll") for (uint k = 0; k < CLR_FIXED_LANE_VECTORS; k++)
                stage[row + k] = x[k];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint v = lid; v < CLR_FIXED_STAGE_VECTORS; v += CLR_WG) {
            const ulong at = part_base + (ulong)v * CLR_VEC;
            const VT value = stage[clr_fixed_stage_at(v)];
            if (at + CLR_VEC <= n) {
                CLR_FIXED_STORE_ANY(value, out + at);
            } else {
                T s[CLR_VEC];
                CLR_FIXED_STORE_ANY(value, s);
                for (uint j = 0; j < CLR_VEC; j++)
                    if (at + j < n)
                        out[at + j] = s[j];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Rows: row r is in[in_off + r * pitch ..][0 .. n), its scan goes to
 * out[out_off + r * out_pitch ..]; `tiles` tiles a row, and a row's values
 * (its tiles' totals, then their P(t)) at values[r * 2 * tiles ..]. A flat
 * scan is one row. */

CLR_KERNEL clr_fixed_scan_totals(global const T *restrict in, ulong in_off, ulong rows, ulong n,
                                 ulong pitch, ulong tiles, global T *restrict values)
{
    local T l[CLR_WG];
    local VT stage[CLR_FIXED_STAGE_SIZE];
    VT x[CLR_FIXED_LANE_VECTORS];
    in += in_off;
    for (ulong g = get_group_id(0); g < rows * tiles; g += get_num_groups(0)) {
        const ulong r = g / tiles, t = g - r * tiles;
        T before, all = clr_fixed_lanes_scan(
            l, clr_fixed_scan_lane(in + r * pitch, n, t * CLR_FIXED_TILE, x, stage), &before);
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
    local VT stage[CLR_FIXED_STAGE_SIZE];
    VT x[CLR_FIXED_LANE_VECTORS];
    in += in_off;
    out += out_off;
    for (ulong g = get_group_id(0); g < rows * tiles; g += get_num_groups(0)) {
        const ulong r = g / tiles, t = g - r * tiles;
        T e;
        clr_fixed_lanes_scan(
            l, clr_fixed_scan_lane(in + r * pitch, n, t * CLR_FIXED_TILE, x, stage), &e);
        const T p = tiles > 1 ? values[r * 2 * tiles + tiles + t] : CLR_IDENTITY;
        T run = CLR_IDENTITY;
        _Pragma("unroll") for (uint k = 0; k < CLR_FIXED_LANE_VECTORS; k++) {
            T s[CLR_VEC];
            CLR_FIXED_STORE_ANY(x[k], s);
            for (uint j = 0; j < CLR_VEC; j++) {
                const T before = run;
                run = clr_op(run, s[j]);
                s[j] = clr_op(p, clr_op(e, exclusive ? before : run));
            }
            x[k] = CLR_FIXED_LOAD_ANY(0, s);
        }
        clr_fixed_scan_store(out + r * out_pitch, n, t * CLR_FIXED_TILE, x, stage);
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
