/*
 * reduce_segments.cl — one reduction per segment of a CSR layout: segment s
 * is elements [offsets[s], offsets[s + 1]) of the input.
 *
 * The work is cut by elements, not by segments: chunk g is elements
 * [g * chunk, (g + 1) * chunk) of the input (the last one shorter), one
 * work-group each, whatever the segments' lengths. Two kernels:
 *
 *   clr_segment_heads    the head of every chunk: its elements before the
 *                        first segment boundary in it, the part of a
 *                        segment that started in an earlier chunk (identity
 *                        when a boundary opens the chunk: nobody reads it);
 *   clr_reduce_segments  chunk g owns the segments that start in it (found
 *                        by binary search over the offsets) and reduces
 *                        their parts in the chunk, by teams of work-items
 *                        sized from the chunk's mean segment length; the
 *                        last one, when it runs past the chunk, adds the
 *                        heads of the chunks it reaches, in order.
 *
 * Every result is combined in an order fixed by the offsets, the count and
 * the tuning: bitwise the same run to run. Offsets are read clamped to
 * [0, count], a segment that ends before it starts is empty, and each
 * result is written only by the chunk its segment starts in: offsets that
 * decrease give unspecified results (some not written at all), never a
 * read or a write out of bounds, nor two writes of one result.
 *
 * Compile-time parameters: those of types.cl, subgroup.cl,
 * workgroup_reduce.cl and team.cl, and
 *   CLR_OFFSETS_TYPE  CLR_TYPE_UINT or CLR_TYPE_ULONG: the offsets' type.
 *
 * Kernels (offsets and counts 64-bit):
 *   clr_segment_heads(in, in_off, count, offsets, offsets_off, segments,
 *                     heads, chunk)
 *   clr_reduce_segments(in, in_off, count, offsets, offsets_off, segments,
 *                       out, out_off, heads, chunk, chunks)
 *
 * For the operators of operators.cl (CLR_OP past CLR_OP_MAX; no sub-groups)
 * the same kernels, with heads of clr_a (element indices counted from the
 * start of the segment the head belongs to) and out a byte buffer of
 * results of CLR_RESULT_SIZE bytes (indices from the segment's start),
 * result out_off + s for segment s.
 */

#if CLR_OFFSETS_TYPE == CLR_TYPE_UINT
#define OT uint
#elif CLR_OFFSETS_TYPE == CLR_TYPE_ULONG
#define OT ulong
#else
#error "CLR_OFFSETS_TYPE must be CLR_TYPE_UINT or CLR_TYPE_ULONG"
#endif

/* Elements a lane of a team takes in a chunk, when the chunk's segments are
 * of the mean length: the team's size is chosen from it. */
#define CLR_LANE_ELEMENTS (4 * CLR_VEC)

ulong clr_offset_at(global const OT *offsets, ulong s, ulong count)
{
    return min((ulong)offsets[s], count);
}

/* The chunk that owns a segment starting at clamped offset b. A segment is
 * written by its owner only, so that offsets that decrease (for which the
 * binary searches below give overlapping ranges) never make two work-groups
 * write one result. */
ulong clr_owner(ulong b, ulong chunk, ulong chunks)
{
    return min(b / chunk, chunks - 1);
}

/* The first s in [lo, hi) whose clamped offset is at least x, or hi. */
ulong clr_lower_bound(global const OT *offsets, ulong lo, ulong hi, ulong x, ulong count)
{
    while (lo < hi) {
        ulong mid = lo + (hi - lo) / 2;
        if (clr_offset_at(offsets, mid, count) < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#if CLR_OP <= CLR_OP_MAX

CLR_KERNEL clr_segment_heads(global const T *restrict in, ulong in_off, ulong count,
                             global const OT *restrict offsets, ulong offsets_off,
                             ulong segments, global T *restrict heads, ulong chunk)
{
    local T l[CLR_WG];
    local ulong head_end;
    offsets += offsets_off;
    ulong lo = (ulong)get_group_id(0) * chunk;
    ulong hi = min(count, lo + chunk);
    if (get_local_id(0) == 0) {
        ulong j = clr_lower_bound(offsets, 0, segments + 1, lo, count);
        ulong b = j <= segments ? clr_offset_at(offsets, j, count) : lo;
        /* No boundary after lo: no segment reaches into this chunk from an
         * earlier one. */
        head_end = b > lo ? min(b, hi) : lo;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    T v = clr_team_range(in + in_off + lo, head_end - lo, (uint)get_local_id(0), CLR_WG);
    v = clr_wg_reduce(l, v);
    if (clr_wg_is_leader())
        heads[get_group_id(0)] = v;
}

CLR_KERNEL clr_reduce_segments(global const T *restrict in, ulong in_off, ulong count,
                               global const OT *restrict offsets, ulong offsets_off,
                               ulong segments, global T *restrict out, ulong out_off,
                               global const T *restrict heads, ulong chunk, ulong chunks)
{
    local T l[CLR_WG];
    local ulong owned[3]; /* first segment, segments, end of the last one */
    local T carry;
    offsets += offsets_off;
    ulong g = get_group_id(0);
    ulong lo = g * chunk;
    ulong hi = min(count, lo + chunk);
    uint lid = (uint)get_local_id(0);
    if (lid == 0) {
        ulong first = g == 0 ? 0 : clr_lower_bound(offsets, 0, segments, lo, count);
        ulong end = g + 1 == chunks ? segments : clr_lower_bound(offsets, first, segments, hi,
                                                                 count);
        owned[0] = first; /* end >= first: the search starts there */
        owned[1] = end - first;
        owned[2] = 0;
        if (end > first) {
            ulong b = clr_offset_at(offsets, end - 1, count);
            if (clr_owner(b, chunk, chunks) == g)
                owned[2] = max(b, clr_offset_at(offsets, end, count));
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong first = owned[0], k = owned[1], last_end = owned[2];
    if (k == 0)
        return;

    /* Teams sized so that a segment of the chunk's mean length gives each
     * lane CLR_LANE_ELEMENTS to twice that: rounded down, so that the
     * work-group's teams take all of the chunk's segments at once when
     * they are that long. */
    ulong mean = (hi - lo) / k;
    uint team = 1;
    while (team < CLR_WG && (ulong)team * 2 * CLR_LANE_ELEMENTS <= mean)
        team <<= 1;
    uint teams = CLR_WG / team;
    ulong rounds = (k + teams - 1) / teams;
    for (ulong r = 0; r < rounds; r++) {
        ulong j = r * teams + lid / team;
        ulong s = first + j;
        T v = CLR_IDENTITY;
        int mine = 0;
        if (j < k) {
            /* Empty when the offsets decrease (written so that no saturating
             * subtraction comes of it, which Oclgrind cannot run). */
            ulong b = clr_offset_at(offsets, s, count);
            ulong e = min(clr_offset_at(offsets, s + 1, count), hi);
            mine = clr_owner(b, chunk, chunks) == g;
            if (mine && b < e)
                v = clr_team_range(in + in_off + b, e - b, lid & (team - 1), team);
        }
        v = clr_team_reduce(l, v, team);
        if (mine && clr_team_is_leader(team)) {
            if (j + 1 == k && last_end > hi)
                carry = v;
            else
                out[out_off + s] = v;
        }
    }
    if (last_end <= hi)
        return;
    /* The last segment runs on: the heads of the chunks it reaches. */
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong last_chunk = (last_end - 1) / chunk;
    T v = CLR_IDENTITY;
    for (ulong h = g + 1 + lid; h <= last_chunk; h += CLR_WG)
        v = clr_op(v, heads[h]);
    v = clr_wg_reduce(l, v);
    if (clr_wg_is_leader())
        out[out_off + first + k - 1] = clr_op(carry, v);
}

#else /* the operators of operators.cl */

CLR_KERNEL clr_segment_heads(global const T *restrict in, ulong in_off, ulong count,
                             global const OT *restrict offsets, ulong offsets_off,
                             ulong segments, global clr_a *restrict heads, ulong chunk)
{
    local clr_a l[CLR_WG];
    local ulong head[2]; /* end of the head, index of its first element */
    offsets += offsets_off;
    ulong lo = (ulong)get_group_id(0) * chunk;
    ulong hi = min(count, lo + chunk);
    if (get_local_id(0) == 0) {
        ulong j = clr_lower_bound(offsets, 0, segments + 1, lo, count);
        ulong b = j <= segments ? clr_offset_at(offsets, j, count) : lo;
        head[0] = b > lo ? min(b, hi) : lo;
        /* The segment the head belongs to starts at offsets[j - 1] < lo. */
        head[1] = j > 0 ? lo - clr_offset_at(offsets, j - 1, count) : 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint lid = (uint)get_local_id(0);
    clr_a v = clr_team_range_a(in + in_off + lo, head[0] - lo, head[1], lid, CLR_WG);
    v = clr_team_reduce_a(l, v, CLR_WG);
    if (lid == 0)
        heads[get_group_id(0)] = v;
}

CLR_KERNEL clr_reduce_segments(global const T *restrict in, ulong in_off, ulong count,
                               global const OT *restrict offsets, ulong offsets_off,
                               ulong segments, global uchar *restrict out, ulong out_off,
                               global const clr_a *restrict heads, ulong chunk, ulong chunks)
{
    local clr_a l[CLR_WG];
    local ulong owned[3]; /* first segment, segments, end of the last one */
    local clr_a carry;
    offsets += offsets_off;
    ulong g = get_group_id(0);
    ulong lo = g * chunk;
    ulong hi = min(count, lo + chunk);
    uint lid = (uint)get_local_id(0);
    if (lid == 0) {
        ulong first = g == 0 ? 0 : clr_lower_bound(offsets, 0, segments, lo, count);
        ulong end = g + 1 == chunks ? segments : clr_lower_bound(offsets, first, segments, hi,
                                                                 count);
        owned[0] = first;
        owned[1] = end - first;
        owned[2] = 0;
        if (end > first) {
            ulong b = clr_offset_at(offsets, end - 1, count);
            if (clr_owner(b, chunk, chunks) == g)
                owned[2] = max(b, clr_offset_at(offsets, end, count));
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong first = owned[0], k = owned[1], last_end = owned[2];
    if (k == 0)
        return;

    /* Teams as for sum, min and max. */
    ulong mean = (hi - lo) / k;
    uint team = 1;
    while (team < CLR_WG && (ulong)team * 2 * CLR_LANE_ELEMENTS <= mean)
        team <<= 1;
    uint teams = CLR_WG / team;
    ulong rounds = (k + teams - 1) / teams;
    for (ulong r = 0; r < rounds; r++) {
        ulong j = r * teams + lid / team;
        ulong s = first + j;
        clr_a v = clr_a_identity();
        int mine = 0;
        if (j < k) {
            ulong b = clr_offset_at(offsets, s, count);
            ulong e = min(clr_offset_at(offsets, s + 1, count), hi);
            mine = clr_owner(b, chunk, chunks) == g;
            if (mine && b < e)
                v = clr_team_range_a(in + in_off + b, e - b, 0, lid & (team - 1), team);
        }
        v = clr_team_reduce_a(l, v, team);
        if (mine && clr_team_is_leader(team)) {
            if (j + 1 == k && last_end > hi)
                carry = v;
            else
                clr_a_store(out + (out_off + s) * CLR_RESULT_SIZE, v);
        }
    }
    if (last_end <= hi)
        return;
    /* The last segment runs on: the heads of the chunks it reaches, in
     * order. The total is read from l[0], not from the reduction's return
     * value: PoCL 3.1 was seen running the store below once per work-item,
     * each with local id 0 and its own v (for minmax of floats, after the
     * rounds above ran without a barrier, teams of one). */
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong last_chunk = (last_end - 1) / chunk;
    clr_a v = clr_team_accumulators(heads + g + 1, last_chunk - g, lid, CLR_WG);
    v = clr_team_reduce_a(l, v, CLR_WG);
    if (lid == 0)
        clr_a_store(out + (out_off + first + k - 1) * CLR_RESULT_SIZE,
                    clr_a_combine(carry, l[0]));
}

#endif
