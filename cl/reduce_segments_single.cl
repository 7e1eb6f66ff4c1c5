/*
 * reduce_segments_single.cl — one reduction per segment of a CSR layout in
 * a single launch (after a small one for many chunks, below), for sum, min
 * and max: segment s is elements [offsets[s], offsets[s + 1]) of the input.
 *
 * The work is cut by elements into chunks as in reduce_segments.cl (chunk
 * g is elements [g * chunk, (g + 1) * chunk), the last one shorter), but
 * each work-group draws its chunk from a ticket, so that a chunk's
 * work-group starts only once the work-groups of every chunk before it
 * have started. A work-group then
 *   - finds its segments: the first offset at or past its first element,
 *     and the first at or past its end, by two searches of the offsets by
 *     the whole work-group (segment_chunks.cl), or with CLR_SEGMENT_STARTS
 *     from starts[g] and starts[g + 1], which a launch of
 *     clr_segment_starts before it wrote (a work-item's binary search a
 *     chunk: for many chunks, that launch costs less than their searches);
 *   - reduces the segments that start in the chunk, by teams, by the spans
 *     of its sub-groups or by runs,
 *     as the second kernel of reduce_segments.cl does: a segment that ends
 *     in the chunk is written there, and the chunk's part of one that runs
 *     on is its carry;
 *   - reduces its head, its elements before its first segment boundary:
 *     the part of a segment begun in an earlier chunk;
 *   - publishes one value in its slot of the look-back scratch
 *     (tile_state.cl): its carry where segments start in it, else its head
 *     (the chunk lies inside one segment), else the identity;
 *   - where its head ends a segment begun in an earlier chunk o, waits for
 *     the values of chunks o .. g - 1, combines them with the work-group in
 *     an order fixed by o and g, and writes that segment's result: the
 *     carry of o, then the chunks in between, then the head.
 * A work-group waits only for chunks before its own, whose work-groups have
 * started and wait for no later chunk, so the launch ends wherever started
 * work-groups keep running (NVIDIA GPUs and CPUs; elsewhere the library
 * takes the two kernels of reduce_segments.cl). Every chunk publishes its
 * value whatever the offsets, so that no wait lasts for ever.
 *
 * Every result is combined in an order fixed by the offsets, the count and
 * the tuning: bitwise the same run to run. Offsets are read clamped to
 * [0, count]. A segment is written by the chunk it starts in where it ends
 * there, else by the chunk it ends in, and that chunk's work-group waits
 * only where the segment starts in an earlier chunk: offsets that decrease
 * give unspecified results (some not written at all), never a read or a
 * write out of bounds, two writes of one result, or a wait without end.
 *
 * Compile-time parameters: those of types.cl, subgroup.cl,
 * workgroup_reduce.cl, team.cl, segment_runs.cl, segment_chunks.cl,
 * device_order.cl, tile_state.cl (its waits without bound) and
 * segment_carries.cl;
 * CLR_SEGMENT_RUNS and CLR_SEGMENT_WARPS as in reduce_segments.cl; and
 * CLR_SEGMENT_STARTS (1: the chunks' starts are read, not searched for).
 *
 * Kernels (offsets and counts 64-bit):
 *   clr_segment_starts(offsets, offsets_off, segments, count, chunk,
 *                      chunks, starts)              a work-item a chunk
 *   clr_reduce_segments_single(in, in_off, count, offsets, offsets_off,
 *                              segments, out, out_off, chunk, scratch,
 *                              epoch, starts)       a work-group a chunk
 * scratch: contract.h's look-back scratch, a slot per chunk; epoch: the
 * launch's, as for the look-back scan; starts: chunks ulongs, read only
 * with CLR_SEGMENT_STARTS (else it may be null).
 */

CLR_KERNEL clr_segment_starts(global const OT *restrict offsets, ulong offsets_off,
                              ulong segments, ulong count, ulong chunk, ulong chunks,
                              global ulong *restrict starts)
{
    ulong g = get_global_id(0);
    if (g < chunks)
        starts[g] = clr_first_offset_from(offsets + offsets_off, segments, g * chunk, count);
}

CLR_KERNEL clr_reduce_segments_single(global const T *restrict in, ulong in_off, ulong count,
                                      global const OT *restrict offsets, ulong offsets_off,
                                      ulong segments, global T *restrict out, ulong out_off,
                                      ulong chunk, global uchar *scratch, uint epoch,
                                      global const ulong *restrict starts)
{
    local T l[CLR_WG];
    local T carry, head_value;
    local uint l_chunk;
#if !CLR_SEGMENT_STARTS
    local uint search;
#endif
#if CLR_SEGMENT_RUNS
    CLR_RUNS_LOCALS
#endif
#if CLR_SEGMENT_WARPS
    CLR_WARPS_LOCALS
#endif
    ulong chunks = get_num_groups(0);
    uint lid = (uint)get_local_id(0);
    clr_tiles d = clr_tiles_at(scratch);
    offsets += offsets_off;
    in += in_off;
    out += out_off;
    if (lid == 0) {
        volatile global uint *counter = (volatile global uint *)scratch;
        uint t = atomic_inc(counter);
        if (t == chunks - 1)
            atomic_xchg(counter, 0u); /* every ticket is drawn */
        l_chunk = t;
        carry = CLR_IDENTITY;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong g = l_chunk;
    ulong lo = g * chunk;
    ulong hi = min(count, lo + chunk);

    /* j: the first offset at or past lo (segments if none); the chunk owns
     * k segments from `first`. */
#if CLR_SEGMENT_STARTS
    /* Clamped as the search's is: read behind a dependency that failed, a
     * runtime may run this launch without the starts launch before it. */
    ulong j = min(starts[g], segments);
    ulong next = g + 1 < chunks ? starts[g + 1] : 0;
#else
    ulong j = min(clr_wg_lower_bound(offsets, 0, segments + 1, lo, count, &search), segments);
    ulong next = g + 1 < chunks
                     ? clr_wg_lower_bound(offsets, j, segments + 1, hi, count, &search)
                     : 0;
#endif
    ulong first, k, last_end;
    clr_chunk_owned(offsets, j, next, g, chunk, chunks, segments, count, &first, &k, &last_end);
    /* The head, [lo, head_end): segment j - 1's part in the chunk, where it
     * began before lo; it ends in this chunk where hb <= hi. */
    ulong hb = clr_offset_at(offsets, j, count);
    ulong head_end = hb > lo ? min(hb, hi) : lo;
    int head = g > 0 && j >= 1 && head_end > lo;

    int by_runs = 0; /* by runs or by the sub-groups' spans, head included */
#if CLR_SEGMENT_WARPS
    if (k > 0)
        by_runs = clr_segments_by_warps(in, offsets, out, g, lo, hi, chunk, chunks, first, k,
                                        count, &carry, head, &head_value, warps_bounds,
                                        warps_tails, warps_throughs, &warps_ok);
#endif
#if CLR_SEGMENT_RUNS
    if (!by_runs && k > 0 && chunk == CLR_RUNS_TILE && k < CLR_RUNS_BOUNDS)
        by_runs = clr_segments_by_runs(in, offsets, out, g, lo, hi, chunk, chunks, first, k,
                                       count, &carry, head, &head_value, tile, bounds, scan,
                                       flags, &ok);
#endif
    if (k > 0 && !by_runs) {
#define CLR_SEGMENT_RANGE(b, e) clr_team_range(in + b, e - b, lid & (team - 1), team)
#define CLR_SEGMENT_STORE(s, v) out[s] = v
        CLR_SEGMENT_ROUNDS(CLR_SEGMENT_ROUND(T, CLR_IDENTITY, CLR_SEGMENT_RANGE,
                                             clr_team_reduce, CLR_SEGMENT_STORE))
#undef CLR_SEGMENT_RANGE
#undef CLR_SEGMENT_STORE
    }
    if (head && !by_runs) {
        T v = clr_team_range(in + lo, head_end - lo, lid, CLR_WG);
        v = clr_team_reduce(l, v, CLR_WG);
        if (clr_wg_is_leader())
            head_value = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0)
        clr_publish(d, g, epoch, CLR_STATUS_INCLUSIVE,
                    k > 0 ? carry : head ? head_value : CLR_IDENTITY);
    if (!head || hb > hi)
        return;
    /* The head ends segment j - 1: it is this chunk's to write where it
     * starts in an earlier one. */
    ulong s = j - 1;
    ulong o = clr_owner(clr_offset_at(offsets, s, count), chunk, chunks);
    if (o >= g)
        return;
    T v = clr_chunks_before(d, o, g, epoch, l);
    if (clr_wg_is_leader())
        out[s] = clr_op(v, head_value);
}
