/*
 * segment_carries.cl — the parts of a segment that spans chunks, handed from
 * chunk to chunk within one launch (reduce_segments_single.cl and
 * reduce_segments_groups.cl): every chunk publishes one value in its slot of
 * the look-back scratch (tile_state.cl), and the chunk a spanning segment
 * ends in gathers the values of the chunks before it, back to the one the
 * segment starts in, in an order fixed by the two.
 *
 * A work-group waits only for chunks whose tickets were drawn before its
 * own: their work-groups have started and wait for no later chunk, so the
 * waits end wherever started work-groups keep running (NVIDIA GPUs and
 * CPUs).
 *
 * Compile-time parameters: those of types.cl, team.cl and tile_state.cl.
 */

/* Slots a work-item reads at once in clr_chunks_before(). */
#define CLR_POLLS 8

/* The values of chunks o .. g - 1, combined in the order fixed by o and g:
 * each work-item its chunks o + lid, o + lid + CLR_WG, ... in turn, then
 * the work-group's tree; valid in the leader. Reads CLR_POLLS slots at a
 * time, then waits for those whose value had not come. */
T clr_chunks_before(clr_tiles d, ulong o, ulong g, uint epoch, local T *l)
{
    T v = CLR_IDENTITY;
    for (ulong p0 = o + get_local_id(0); p0 < g; p0 += CLR_POLLS * CLR_WG) {
        T x[CLR_POLLS];
        uint got[CLR_POLLS];
#pragma unroll
        for (uint u = 0; u < CLR_POLLS; u++) {
            ulong p = p0 + u * CLR_WG;
            x[u] = CLR_IDENTITY;
            got[u] = p < g ? clr_read_status(d, p, epoch, &x[u]) : CLR_STATUS_INCLUSIVE;
        }
#pragma unroll
        for (uint u = 0; u < CLR_POLLS; u++) {
            if (got[u] == CLR_STATUS_NONE)
                clr_wait_status(d, p0 + u * CLR_WG, epoch, CLR_FOREVER, &x[u]);
            v = clr_op(v, x[u]);
        }
    }
    return clr_team_reduce(l, v, CLR_WG);
}
