/*
 * reduce_segments_groups.cl — one reduction per segment of a CSR layout, a
 * work-group per segment, in a single launch, for sum, min and max: segment
 * s is elements [offsets[s], offsets[s + 1]) of the input.
 *
 * Where segments are a few thousand elements long, a work-group that reads
 * one segment whole, with nothing to find and nothing to hand on, keeps
 * more loads in flight than chunks of elements cut across segments
 * (reduce_segments_single.cl). But one work-group must never be left
 * crawling through a segment of millions, which the host cannot rule out
 * where it does not read the offsets. So the launch has two kinds of
 * work-groups:
 *   - segment groups, the first `segments` work-groups: group s reduces
 *     segment s where it is `piece` elements long or shorter, and leaves
 *     it otherwise;
 *   - piece groups, the others: piece h is elements [h * piece, (h + 1) *
 *     piece) of the input, and its work-group finds the segment that holds
 *     the piece's first element. Where that segment is long (longer than a
 *     piece), the work-group reduces the segment's part in the piece and
 *     publishes it in its slot of the look-back scratch
 *     (segment_carries.cl), else it publishes the identity. The piece a
 *     long segment ends in writes it: its part in the piece it starts in
 *     (read again there unless the segment starts on that piece's first
 *     element), the parts the pieces after that one published, then its
 *     own part.
 * Piece groups draw tickets, so that a piece waits only for pieces whose
 * work-groups have started (NVIDIA GPUs and CPUs; the library takes this
 * launch only where reduce_segments_single.cl may run). Segment groups
 * wait for nothing.
 *
 * Every result is combined in an order fixed by the offsets, the count and
 * the tuning: bitwise the same run to run. Offsets are read clamped to
 * [0, count], and a segment that ends before it starts is empty. A
 * segment is written by its segment group where it is short, else by the
 * piece its last element lies in: offsets that decrease give unspecified
 * results (some not written at all), never a read or a write out of
 * bounds, two writes of one result, or a wait without end (every piece
 * publishes whatever the offsets).
 *
 * Compile-time parameters: those of types.cl, subgroup.cl,
 * workgroup_reduce.cl, team.cl, segment_chunks.cl, device_order.cl,
 * tile_state.cl and segment_carries.cl.
 *
 * Kernel (offsets and counts 64-bit):
 *   clr_reduce_segment_groups(in, in_off, count, offsets, offsets_off,
 *                             segments, out, out_off, piece, scratch, epoch)
 * launched with segments + ceil(count / piece) work-groups; scratch:
 * contract.h's look-back scratch, a slot per piece; epoch: the launch's.
 */

/* Segment s's elements [*b, *e), clamped; e == b where it is empty. */
void clr_segment_range(global const OT *offsets, ulong s, ulong count, ulong *b, ulong *e)
{
    *b = clr_offset_at(offsets, s, count);
    *e = max(*b, clr_offset_at(offsets, s + 1, count));
}

/* Where a work-item's vector i of a range lies (its vectors are i = lane,
 * lane + CLR_WG, ...): CLR_UNROLL of them are loaded at once, each load
 * guarded (the identity past the range), and added in order. A walk whose
 * last loads ran in a loop of their own, one at a time, left short
 * segments waiting on one load after another. */
#define CLR_GROUP_WALK(LOAD)                                                   \
    for (ulong i_ = lid; i_ < nv; i_ += CLR_UNROLL * (ulong)CLR_WG) {          \
        VT x_[CLR_UNROLL];                                                     \
        _Pragma("unroll") for (uint u_ = 0; u_ < CLR_UNROLL; u_++) {           \
            ulong k_ = i_ + u_ * (ulong)CLR_WG;                                \
            x_[u_] = k_ < nv ? LOAD(p, k_) : (VT)(CLR_IDENTITY);               \
        }                                                                      \
        _Pragma("unroll") for (uint u_ = 0; u_ < CLR_UNROLL; u_++)             \
            acc = clr_acc_add(acc, x_[u_]);                                    \
    }

/* The work-group's reduction of in[b .. e), valid in the leader: each
 * work-item's vectors of the range in order, after its element of the
 * range's last incomplete vector; the same order as clr_team_range() over
 * the work-group. */
T clr_group_range(global const T *in, ulong b, ulong e, local T *l)
{
    uint lid = (uint)get_local_id(0);
    global const T *p = in + b;
    ulong n = e - b, nv = n / CLR_VEC;
    T s = CLR_IDENTITY;
#if CLR_VEC > 1
    if (nv * CLR_VEC + lid < n)
        s = p[nv * CLR_VEC + lid];
#endif
    clr_acc acc = clr_acc_init();
#if CLR_VEC > 1
    if (CLR_VEC_ALIGNED(p))
        CLR_GROUP_WALK(CLR_TEAM_LOAD_ALIGNED)
    else
#endif
        CLR_GROUP_WALK(CLR_TEAM_LOAD)
    return clr_team_reduce(l, clr_op(s, clr_acc_result(acc)), CLR_WG);
}

CLR_KERNEL clr_reduce_segment_groups(global const T *restrict in, ulong in_off, ulong count,
                                     global const OT *restrict offsets, ulong offsets_off,
                                     ulong segments, global T *restrict out, ulong out_off,
                                     ulong piece, global uchar *scratch, uint epoch)
{
    local T l[CLR_WG];
    local uint l_piece, search;
    in += in_off;
    offsets += offsets_off;
    out += out_off;
    ulong group = get_group_id(0);
    ulong b, e;
    if (group < segments) {
        clr_segment_range(offsets, group, count, &b, &e);
        if (e - b > piece)
            return; /* the pieces take it */
        T v = clr_group_range(in, b, e, l);
        if (clr_wg_is_leader())
            out[group] = v;
        return;
    }

    ulong pieces = get_num_groups(0) - segments;
    if (get_local_id(0) == 0) {
        volatile global uint *counter = (volatile global uint *)scratch;
        uint t = atomic_inc(counter);
        if (t == pieces - 1)
            atomic_xchg(counter, 0u); /* every ticket is drawn */
        l_piece = t;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong h = l_piece;
    ulong lo = h * piece;
    ulong hi = min(count, lo + piece);
    clr_tiles d = clr_tiles_at(scratch);

    /* Segment j - 1 holds element lo (offset j is the first past lo). */
    ulong j = clr_wg_lower_bound(offsets, 0, segments + 1, lo + 1, count, &search);
    int long_one = 0;
    if (j >= 1 && j - 1 < segments) {
        clr_segment_range(offsets, j - 1, count, &b, &e);
        long_one = b <= lo && e > lo && e - b > piece;
    }
    T part = CLR_IDENTITY;
    if (long_one)
        part = clr_group_range(in, lo, min(e, hi), l);
    if (clr_wg_is_leader())
        clr_publish(d, h, epoch, CLR_STATUS_INCLUSIVE, part);
    if (!long_one || e > hi)
        return; /* no long segment ends in this piece */
    /* Segment j - 1 ends here: its part in the piece o it starts in, the
     * parts of the pieces after o, then this piece's. */
    ulong o = clr_owner(b, piece, pieces);
    T first = CLR_IDENTITY;
    if (b > o * piece) {
        first = clr_group_range(in, b, (o + 1) * piece, l);
        o++;
    }
    T before = clr_chunks_before(d, o, h, epoch, l);
    if (clr_wg_is_leader())
        out[j - 1] = clr_op(clr_op(first, before), part);
}
