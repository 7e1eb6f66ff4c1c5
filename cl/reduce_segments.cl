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
 *                        when a boundary opens the chunk: nobody reads it),
 *                        and starts[g], the first segment that starts at or
 *                        after the chunk's first element (a search of the
 *                        offsets by the whole work-group, CLR_WG probes a
 *                        round);
 *   clr_reduce_segments  chunk g owns the segments from starts[g] to
 *                        starts[g + 1] and reduces
 *                        their parts in the chunk, by teams of work-items
 *                        sized from the chunk's mean segment length, or
 *                        all at once, by the spans of its sub-groups
 *                        (CLR_SEGMENT_WARPS, segment_warps.cl) or by runs
 *                        of elements (CLR_SEGMENT_RUNS, segment_runs.cl); the
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
 * workgroup_reduce.cl, team.cl and segment_chunks.cl, and
 *   CLR_SEGMENT_RUNS  1 (sum, min and max; segment_runs.cl, which also
 *                     sets it for its test switch): chunks of
 *                     CLR_RUNS_TILE elements have their segments taken by
 *                     runs when they are four elements long or more on
 *                     average and their offsets do not decrease;
 *   CLR_SEGMENT_WARPS 1 (sum, min and max; segment_warps.cl, which also
 *                     sets it for its test switch; the library sets it
 *                     where the device has sub-groups, segment_layouts.c):
 *                     the same chunks by the sub-groups' spans, before
 *                     runs, when their segments are CLR_WARPS_MEAN_MIN
 *                     elements long or more on average and their offsets
 *                     do not decrease.
 *
 * Kernels (offsets and counts 64-bit):
 *   clr_segment_heads(in, in_off, count, offsets, offsets_off, segments,
 *                     heads, chunk, starts, starts_off)
 *   clr_reduce_segments(in, in_off, count, offsets, offsets_off, segments,
 *                       out, out_off, heads, chunk, chunks, starts,
 *                       starts_off)
 * starts (chunks ulongs from element starts_off) may lie in the buffer of
 * heads, past them.
 *
 * For the operators of operators.cl (CLR_OP past CLR_OP_MAX; no sub-groups)
 * the same kernels, with heads of clr_a (element indices counted from the
 * start of the segment the head belongs to) and out a byte buffer of
 * results of CLR_RESULT_SIZE bytes (indices from the segment's start),
 * result out_off + s for segment s; they take in2 and in2_off last
 * (team.cl's CLR_TEAM_IN2_PARAMS: dot's second input, laid out as the
 * first).
 */

#if CLR_OP <= CLR_OP_MAX

CLR_KERNEL clr_segment_heads(global const T *restrict in, ulong in_off, ulong count,
                             global const OT *restrict offsets, ulong offsets_off,
                             ulong segments, global T *heads, ulong chunk,
                             global ulong *starts, ulong starts_off)
{
    local T l[CLR_WG];
    local uint first;
    CLR_HEAD_CHUNK
    T v = clr_team_range(in + in_off + lo, head_end - lo, (uint)get_local_id(0), CLR_WG);
    v = clr_wg_reduce(l, v);
    if (clr_wg_is_leader())
        heads[get_group_id(0)] = v;
}

CLR_KERNEL clr_reduce_segments(global const T *restrict in, ulong in_off, ulong count,
                               global const OT *restrict offsets, ulong offsets_off,
                               ulong segments, global T *restrict out, ulong out_off,
                               global const T *heads, ulong chunk, ulong chunks,
                               global const ulong *starts, ulong starts_off)
{
    local T l[CLR_WG];
    local T carry;
#if CLR_SEGMENT_RUNS
    CLR_RUNS_LOCALS
#endif
#if CLR_SEGMENT_WARPS
    CLR_WARPS_LOCALS
#endif
    CLR_SEGMENT_CHUNK
#if CLR_SEGMENT_WARPS
    if (!clr_segments_by_warps(in + in_off, offsets, out + out_off, g, lo, hi, chunk, chunks, first,
                               k, count, &carry, 0, &carry, warps_bounds, warps_tails,
                               warps_throughs, &warps_ok))
#endif
#if CLR_SEGMENT_RUNS
    if (chunk != CLR_RUNS_TILE || k >= CLR_RUNS_BOUNDS ||
        !clr_segments_by_runs(in + in_off, offsets, out + out_off, g, lo, hi, chunk, chunks,
                              first, k, count, &carry, 0, &carry, tile, bounds, scan, flags,
                              &ok))
#endif
    {
#define CLR_SEGMENT_RANGE(b, e) clr_team_range(in + in_off + b, e - b, lid & (team - 1), team)
#define CLR_SEGMENT_STORE(s, v) out[out_off + s] = v
        CLR_SEGMENT_ROUNDS(CLR_SEGMENT_ROUND(T, CLR_IDENTITY, CLR_SEGMENT_RANGE,
                                             clr_team_reduce, CLR_SEGMENT_STORE))
#undef CLR_SEGMENT_RANGE
#undef CLR_SEGMENT_STORE
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
                             ulong segments, global clr_a *heads, ulong chunk,
                             global ulong *starts, ulong starts_off CLR_TEAM_IN2_PARAMS)
{
    local clr_a l[CLR_WG];
    local uint first;
    CLR_HEAD_CHUNK
    /* The segment the head belongs to starts at offsets[j - 1] < lo. */
    ulong head_base = j > 0 ? lo - clr_offset_at(offsets, j - 1, count) : 0;
    uint lid = (uint)get_local_id(0);
    clr_a v = clr_team_range_a(CLR_TEAM_INPUTS(lo), head_end - lo, head_base, lid, CLR_WG);
    v = clr_team_reduce_a(l, v, CLR_WG);
    if (lid == 0)
        heads[get_group_id(0)] = v;
}

CLR_KERNEL clr_reduce_segments(global const T *restrict in, ulong in_off, ulong count,
                               global const OT *restrict offsets, ulong offsets_off,
                               ulong segments, global uchar *restrict out, ulong out_off,
                               global const clr_a *heads, ulong chunk, ulong chunks,
                               global const ulong *starts, ulong starts_off CLR_TEAM_IN2_PARAMS)
{
    local clr_a l[CLR_WG];
    local clr_a carry;
    CLR_SEGMENT_CHUNK
#define CLR_SEGMENT_RANGE(b, e)                                                \
    clr_team_range_a(CLR_TEAM_INPUTS(b), e - b, 0, lid & (team - 1), team)
#define CLR_SEGMENT_STORE(s, v) clr_a_store(out + (out_off + s) * CLR_RESULT_SIZE, v)
    CLR_SEGMENT_ROUNDS(CLR_SEGMENT_ROUND(clr_a, clr_a_identity(), CLR_SEGMENT_RANGE,
                                         clr_team_reduce_a, CLR_SEGMENT_STORE))
#undef CLR_SEGMENT_RANGE
#undef CLR_SEGMENT_STORE
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
