/*
 * reduce_fixed_order_rows.cl — the reproducible reduction of every row of a
 * matrix or every segment of a CSR layout: each range summed in the order
 * of fixed_order.cl alone, so that its result has the bits of the
 * reproducible reduction of that range by itself.
 *
 * Compile-time parameters: those of fixed_order.cl (CLR_FIXED_MAP: a
 * product reads in2, a second input laid out as the first: the rows' or
 * the segments' `in`); for segments,
 * CLR_OFFSETS_TYPE (CLR_TYPE_UINT or CLR_TYPE_ULONG). Segment s is
 * elements [offsets[s], offsets[s + 1]) read clamped to [0, count], empty
 * where it would end before it starts.
 *
 * Kernels, in the order of their launches (each over whole ranges):
 *   clr_fixed_rows_squads: a squad of up to CLR_FIXED_SQUAD work-items a
 *       row (clr_fixed_squad_sum), for rows of at most one tile (many of
 *       them, where they are longer than one step);
 *   clr_fixed_segments_short: a work-item per segment of at most
 *       CLR_FIXED_SHORT_MAX elements;
 *   clr_fixed_rows_tiles: a work-group per tile of every row, the value of
 *       a row of one tile into its result, of longer rows into `levels`,
 *       tiles_per_row values a row;
 *   clr_fixed_segments_tiles: a work-group per tile of the segments of more
 *       than one tile, into `levels`: a segment starting in tile j of the
 *       input (j = offset / CLR_FIXED_TILE) keeps its values from slot 2j
 *       on. Such a segment is the last to start in tile j, and the slots of
 *       two of them never overlap (the second starts at least
 *       floor(length / CLR_FIXED_TILE) tiles after the first, so 2j grows
 *       by at least the first's tiles), so slot k belongs to the last
 *       segment whose 2j <= k, if to any; a launch of
 *       2 * ceil(count / CLR_FIXED_TILE) + 1 slots covers every segment
 *       (and, for offsets that decrease, keeps every access in bounds);
 *   clr_fixed_rows_levels, clr_fixed_segments_levels: a work-group per
 *       range of more than one tile reduces its values in `levels`
 *       (clr_fixed_levels); for segments it also sums those of one tile
 *       and more than CLR_FIXED_SHORT_MAX elements (by squads), and takes
 *       CLR_WG segments a round, skipping the short ones together.
 */

#define CLR_LID get_local_id(0)

/* ---- rows: row r is in[in_off + r * pitch ..][0 .. length) ---------------- */

/* Rows of at most one tile, a squad of work-items a row
 * (clr_fixed_squad_sum): `team` is the row's lanes rounded up to a power
 * of two, every lane of a tile for a row past one step. Every squad of the
 * work-group runs the tree, those past the last row too. */
CLR_KERNEL clr_fixed_rows_squads(global const T *restrict in, ulong in_off, ulong rows,
                                 ulong length, ulong pitch, global T *restrict out,
                                 ulong out_off, global const T *restrict in2, ulong in2_off,
                                 uint team)
{
    local T l[CLR_WG];
    const uint squad = min(team, (uint)CLR_FIXED_SQUAD);
    const uint per_group = CLR_WG / squad, t = (uint)CLR_LID & (squad - 1);
    in += in_off;
    in2 += in2_off;
    for (ulong first = get_group_id(0) * per_group; first < rows;
         first += get_num_groups(0) * per_group) {
        const ulong r = first + CLR_LID / squad;
        const T v = clr_fixed_squad_sum(l, in + r * pitch, in2 + r * pitch, (uint)length,
                                        r < rows, team);
        if (r < rows && t == 0)
            out[out_off + r] = v;
    }
}

CLR_KERNEL clr_fixed_rows_tiles(global const T *restrict in, ulong in_off, ulong rows,
                                ulong length, ulong pitch, ulong tiles, global T *restrict out,
                                ulong out_off, global T *restrict levels,
                                global const T *restrict in2, ulong in2_off)
{
    local T l[CLR_WG];
    in += in_off;
    in2 += in2_off;
    for (ulong g = get_group_id(0); g < rows * tiles; g += get_num_groups(0)) {
        const ulong r = g / tiles, t = g - r * tiles;
        T v = clr_wg_reduce_tree(
            l, clr_fixed_lane(in + r * pitch, in2 + r * pitch, length, t * CLR_FIXED_TILE));
        if (CLR_LID == 0) {
            if (tiles == 1)
                out[out_off + r] = v;
            else
                levels[g] = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* l[0] read by all before it is written again */
    }
}

CLR_KERNEL clr_fixed_rows_levels(global T *levels, ulong rows, ulong tiles, global T *out,
                                 ulong out_off)
{
    local T l[CLR_WG];
    for (ulong r = get_group_id(0); r < rows; r += get_num_groups(0))
        clr_fixed_levels(l, levels + r * tiles, tiles, out + out_off + r);
}

/* ---- segments --------------------------------------------------------------------- */

#ifdef CLR_OFFSETS_TYPE
#if CLR_OFFSETS_TYPE == CLR_TYPE_UINT
typedef uint OT;
#else
typedef ulong OT;
#endif

/* Segment s's first element and length, clamped (the end raised to the
 * start by max, not a conditional subtraction: compilers turn that into a
 * saturating one, which Oclgrind 21.10 cannot run). */
void clr_fixed_segment(global const OT *offsets, ulong s, ulong count, ulong *begin,
                       ulong *length)
{
    const ulong b = min((ulong)offsets[s], count);
    *begin = b;
    *length = max(b, min((ulong)offsets[s + 1], count)) - b;
}

CLR_KERNEL clr_fixed_segments_short(global const T *restrict in, ulong in_off, ulong count,
                                    global const OT *restrict offsets, ulong offsets_off,
                                    ulong segments, global T *restrict out, ulong out_off,
                                    global const T *restrict in2, ulong in2_off)
{
    in += in_off;
    in2 += in2_off;
    offsets += offsets_off;
    for (ulong s = get_global_id(0); s < segments; s += get_global_size(0)) {
        ulong b, n;
        clr_fixed_segment(offsets, s, count, &b, &n);
        if (n <= CLR_FIXED_SHORT_MAX)
            out[out_off + s] = clr_fixed_short(in + b, in2 + b, (uint)n);
    }
}

CLR_KERNEL clr_fixed_segments_tiles(global const T *restrict in, ulong in_off, ulong count,
                                    global const OT *restrict offsets, ulong offsets_off,
                                    ulong segments, ulong slots, global T *restrict levels,
                                    global const T *restrict in2, ulong in2_off)
{
    local T l[CLR_WG];
    in += in_off;
    in2 += in2_off;
    offsets += offsets_off;
    for (ulong k = get_group_id(0); k < slots; k += get_num_groups(0)) {
        /* The last segment starting before tile k / 2 + 1, by bisection
         * (every work-item alike: the same reads, the same answer). */
        const ulong x = (k / 2 + 1) * CLR_FIXED_TILE;
        ulong lo = 0, hi = segments;
        while (lo < hi) {
            const ulong mid = lo + (hi - lo) / 2;
            if (min((ulong)offsets[mid], count) >= x)
                hi = mid;
            else
                lo = mid + 1;
        }
        if (lo == 0)
            continue;
        ulong b, n;
        clr_fixed_segment(offsets, lo - 1, count, &b, &n);
        const ulong first = 2 * (b / CLR_FIXED_TILE);
        const ulong tiles = (n + CLR_FIXED_TILE - 1) / CLR_FIXED_TILE;
        if (tiles < 2 || k < first || k - first >= tiles)
            continue;
        T v = clr_wg_reduce_tree(
            l, clr_fixed_lane(in + b, in2 + b, n, (k - first) * CLR_FIXED_TILE));
        if (CLR_LID == 0)
            levels[k] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* CLR_WG segments a round: the work-items list those past
 * CLR_FIXED_SHORT_MAX (in any order: each segment's sum is its own), those
 * of at most one tile from the front of the list, longer ones from its
 * back; then the work-group's squads sum the first kind, eight at a time,
 * and the whole work-group the second, one after another, so that a round
 * of short segments costs one read of their offsets. (Those of one tile
 * and more than two steps summed by the whole work-group instead took
 * segments of 1-10^5 floats 11% less time on H100s, but those of 1-1000
 * and of 1000 11-13% more: bench/results/h100-2026-12-05-b.md.) */
CLR_KERNEL clr_fixed_segments_levels(global const T *restrict in, ulong in_off, ulong count,
                                     global const OT *restrict offsets, ulong offsets_off,
                                     ulong segments, global T *levels, global T *restrict out,
                                     ulong out_off, global const T *restrict in2, ulong in2_off)
{
    local T l[CLR_WG];
    local uint listed[CLR_WG], one_tile, longer;
    in += in_off;
    in2 += in2_off;
    offsets += offsets_off;
    for (ulong first = get_group_id(0) * CLR_WG; first < segments;
         first += get_num_groups(0) * CLR_WG) {
        if (CLR_LID == 0)
            one_tile = longer = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        ulong b, n;
        if (first + CLR_LID < segments) {
            clr_fixed_segment(offsets, first + CLR_LID, count, &b, &n);
            if (n > CLR_FIXED_TILE)
                listed[CLR_WG - 1 - atomic_inc(&longer)] = (uint)CLR_LID;
            else if (n > CLR_FIXED_SHORT_MAX)
                listed[atomic_inc(&one_tile)] = (uint)CLR_LID;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint k = one_tile, m = longer;
        /* Those of at most one tile, a squad each (every lane of a tile,
         * past the end +0.0, which changes no value). */
        const uint squads = CLR_WG / CLR_FIXED_SQUAD, q = (uint)CLR_LID / CLR_FIXED_SQUAD;
        for (uint i0 = 0; i0 < k; i0 += squads) {
            const int mine = i0 + q < k;
            const ulong s = first + (mine ? listed[i0 + q] : 0);
            b = n = 0;
            if (mine)
                clr_fixed_segment(offsets, s, count, &b, &n);
            const T v = clr_fixed_squad_sum(l, in + b, in2 + b, (uint)n, mine, CLR_FIXED_LANES);
            if (mine && CLR_LID % CLR_FIXED_SQUAD == 0)
                out[out_off + s] = v;
        }
        /* Those of several tiles, the work-group each. */
        for (uint i = 0; i < m; i++) {
            const ulong s = first + listed[CLR_WG - 1 - i];
            clr_fixed_segment(offsets, s, count, &b, &n);
            clr_fixed_levels(l, levels + 2 * (b / CLR_FIXED_TILE),
                             (n + CLR_FIXED_TILE - 1) / CLR_FIXED_TILE, out + out_off + s);
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* the list read by all before the next round */
    }
}
#endif
