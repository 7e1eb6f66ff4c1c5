/*
 * reduce_segments_groups.cl — one reduction per segment of a CSR layout, a
 * work-group, a sub-group or a work-item per segment, in a single launch,
 * for sum, min and max: segment s is elements [offsets[s], offsets[s + 1])
 * of the input.
 *
 * Where segments are a few thousand elements long, a work-group that reads
 * one segment whole, with nothing to find and nothing to hand on, keeps
 * more loads in flight than chunks of elements cut across segments
 * (reduce_segments_single.cl); where they are a few dozen, a work-item
 * that reads one whole does (clr_reduce_segment_items), and in between a
 * sub-group or a team of lanes (clr_reduce_segment_lanes). But one
 * work-group must never be left crawling through a segment of millions,
 * which the host cannot rule out where it does not read the offsets. So
 * each launch has two kinds of work-groups:
 *   - segment groups, the first ones: in clr_reduce_segment_groups, group
 *     s reduces segment s; in clr_reduce_segment_items, group g's
 *     work-items reduce segments g * CLR_WG .. g * CLR_WG + CLR_WG - 1, one
 *     each, where it holds CLR_ITEM_MAX elements or fewer, and the
 *     work-group reduces the others of them one after the other; in
 *     clr_reduce_segment_lanes, likewise with a sub-group or a team of a
 *     warp's lanes each (a lane's share as a work-group's) for segments
 *     g * CLR_LANES_PER_GROUP .. g * CLR_LANES_PER_GROUP +
 *     CLR_LANES_PER_GROUP - 1 of CLR_LANES_MAX elements or fewer. Each
 *     leaves a segment longer than `piece` elements;
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
 * the tuning: bitwise the same run to run. A work-item adds its segment's
 * elements in order (CLR_ITEM_MAX of them at most). Offsets are read
 * clamped to [0, count], and a segment that ends before it starts is
 * empty. A segment is written by its segment group where it is short, else
 * by the piece its last element lies in: offsets that decrease give
 * unspecified results (some not written at all), never a read or a write
 * out of bounds, two writes of one result, or a wait without end (every
 * piece publishes whatever the offsets).
 *
 * Compile-time parameters: those of types.cl, subgroup.cl,
 * workgroup_reduce.cl, team.cl, segment_chunks.cl, device_order.cl,
 * tile_state.cl and segment_carries.cl; for clr_reduce_segment_items,
 * CLR_ITEM_MAX (elements of a segment a work-item reduces alone) and
 * CLR_ITEM_LOADS (its vector loads in flight), defined for it alone; for
 * clr_reduce_segment_lanes, CLR_LANES_PER_GROUP (segments of a work-group),
 * CLR_LANES_MAX (elements of a segment a sub-group reduces alone) and
 * CLR_LANES_TEAM (0: a sub-group a segment; else lanes of one warp a
 * segment, on NVIDIA GPUs).
 *
 * Kernels (offsets and counts 64-bit), the same arguments:
 *   clr_reduce_segment_groups(in, in_off, count, offsets, offsets_off,
 *                             segments, out, out_off, piece, scratch, epoch)
 * launched with segments + ceil(count / piece) work-groups, and
 *   clr_reduce_segment_items(...)
 * with ceil(segments / CLR_WG) + ceil(count / piece),
 *   clr_reduce_segment_lanes(...)
 * with ceil(segments / CLR_LANES_PER_GROUP) + ceil(count / piece);
 * scratch: contract.h's look-back scratch, a slot per piece; epoch: the
 * launch's.
 */

/* Segment s's elements [*b, *e), clamped; e == b where it is empty. */
void clr_segment_range(global const OT *offsets, ulong s, ulong count, ulong *b, ulong *e)
{
    *b = clr_offset_at(offsets, s, count);
    *e = max(*b, clr_offset_at(offsets, s + 1, count));
}

/* Where a work-item's vector i of a range lies (its vectors are i = first,
 * first + stride, ...): CLR_UNROLL of them are loaded at once, each load
 * guarded (the identity past the range), and added in order. A walk whose
 * last loads ran in a loop of their own, one at a time, left short
 * segments waiting on one load after another. */
#define CLR_RANGE_WALK(LOAD, first, stride)                                    \
    for (ulong i_ = (first); i_ < nv; i_ += CLR_UNROLL * (ulong)(stride)) {    \
        VT x_[CLR_UNROLL];                                                     \
        _Pragma("unroll") for (uint u_ = 0; u_ < CLR_UNROLL; u_++) {           \
            ulong k_ = i_ + u_ * (ulong)(stride);                              \
            x_[u_] = k_ < nv ? clr_mapv(LOAD(p, k_)) : (VT)(CLR_IDENTITY);     \
        }                                                                      \
        _Pragma("unroll") for (uint u_ = 0; u_ < CLR_UNROLL; u_++)             \
            acc = clr_acc_add(acc, x_[u_]);                                    \
    }

/* Lane `lane` of `size`'s share of in[b .. e): its elements of the
 * range's last incomplete vector, then its vectors in order; the same
 * order as clr_team_range() over a team of `size`, whatever the range's
 * alignment. */
T clr_share_range(global const T *in, ulong b, ulong e, uint lane, uint size)
{
    global const T *p = in + b;
    ulong n = e - b, nv = n / CLR_VEC;
    T s = CLR_IDENTITY;
#if CLR_VEC > 1
    for (ulong i = nv * CLR_VEC + lane; i < n; i += size)
        s = clr_op(s, clr_map(p[i]));
#endif
    clr_acc acc = clr_acc_init();
#if CLR_VEC > 1
    if (CLR_VEC_ALIGNED(p))
        CLR_RANGE_WALK(CLR_TEAM_LOAD_ALIGNED, lane, size)
    else
#endif
        CLR_RANGE_WALK(CLR_TEAM_LOAD, lane, size)
    return clr_op(s, clr_acc_result(acc));
}

/* The work-group's reduction of in[b .. e), valid in the leader. */
T clr_group_range(global const T *in, ulong b, ulong e, local T *l)
{
    return clr_team_reduce(l, clr_share_range(in, b, e, (uint)get_local_id(0), CLR_WG), CLR_WG);
}

/* Segments first + list[0 .. m) of a work-group's own, too long for its
 * work-items (or teams) alone and no longer than a piece: each reduced by
 * the whole work-group in turn. */
void clr_group_list(global const T *in, ulong count, global const OT *offsets, global T *out,
                    ulong first, local const uint *list, uint m, local T *l)
{
    for (uint k = 0; k < m; k++) {
        ulong t = first + list[k], b, e;
        clr_segment_range(offsets, t, count, &b, &e);
        T v = clr_group_range(in, b, e, l);
        if (clr_wg_is_leader())
            out[t] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* The part of a piece group, h its ticket of `pieces`: elements [h *
 * piece, (h + 1) * piece) of the input, as the head of this file says. */
void clr_segment_piece(global const T *in, ulong count, global const OT *offsets, ulong segments,
                       global T *out, ulong piece, ulong pieces, global uchar *scratch,
                       uint epoch, local T *l, local uint *l_piece, local uint *search)
{
    ulong b, e;
    if (get_local_id(0) == 0) {
        volatile global uint *counter = (volatile global uint *)scratch;
        uint t = atomic_inc(counter);
        if (t == pieces - 1)
            atomic_xchg(counter, 0u); /* every ticket is drawn */
        *l_piece = t;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong h = *l_piece;
    ulong lo = h * piece;
    ulong hi = min(count, lo + piece);
    clr_tiles d = clr_tiles_at(scratch);

    /* Segment j - 1 holds element lo (offset j is the first past lo). */
    ulong j = clr_wg_lower_bound(offsets, 0, segments + 1, lo + 1, count, search);
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
    if (group < segments) {
        ulong b, e;
        clr_segment_range(offsets, group, count, &b, &e);
        if (e - b > piece)
            return; /* the pieces take it */
        T v = clr_group_range(in, b, e, l);
        /* Volatile, so that the compiler cannot merge it with the piece
         * groups' store of a result into one block that both kinds of
         * work-group reach behind different barriers: PoCL 3.1 (LLVM 15)
         * compiled that shared tail into a tree loop without exit
         * (clr_group_range's), and the launch ran without end. */
        if (clr_wg_is_leader())
            ((volatile global T *)out)[group] = v;
        return;
    }
    clr_segment_piece(in, count, offsets, segments, out, piece, get_num_groups(0) - segments,
                      scratch, epoch, l, &l_piece, &search);
}

#ifdef CLR_ITEM_MAX
/* a combined with the elements of x in order, as one at a time. */
#if CLR_VEC >= 2
T clr_fold2(T a, CLR_CAT(T, 2) x) { return clr_op(clr_op(a, x.s0), x.s1); }
#endif
#if CLR_VEC >= 4
T clr_fold4(T a, CLR_CAT(T, 4) x) { return clr_fold2(clr_fold2(a, x.lo), x.hi); }
#endif
#if CLR_VEC >= 8
T clr_fold8(T a, CLR_CAT(T, 8) x) { return clr_fold4(clr_fold4(a, x.lo), x.hi); }
#endif
#if CLR_VEC >= 16
T clr_fold16(T a, CLR_CAT(T, 16) x) { return clr_fold8(clr_fold8(a, x.lo), x.hi); }
#endif
#define clr_fold CLR_CAT(clr_fold, CLR_VEC)

/* The reduction of in[b .. e) by one work-item, its elements combined one
 * after the other in order, whatever the range's alignment: loaded as the
 * elements up to the first vector boundary, the vectors, then the elements
 * after the last whole vector. The first CLR_ITEM_LOADS vectors are loaded
 * with the elements on either side, each load guarded (the identity past
 * the range), so that a short segment waits for one round of loads; the
 * vectors past them CLR_ITEM_LOADS at a time. Vectors rather than
 * elements: with a work-item's elements loaded one at a time, arrays of
 * 32, 64 and 128 floats took twice as long as arrays of 100 on the H200. */
T clr_item_range(global const T *in, ulong b, ulong e)
{
    global const T *p = in + b;
    ulong n = e - b;
    T a = CLR_IDENTITY;
#if CLR_VEC > 1
    uint lead = (uint)(((ulong)p & (sizeof(VT) - 1)) / sizeof(T));
    ulong h = min(n, (ulong)((CLR_VEC - lead) & (CLR_VEC - 1)));
    ulong nv = (n - h) / CLR_VEC, t = h + nv * CLR_VEC;
    global const VT *v = (global const VT *)(p + h);
    T x0[CLR_VEC - 1], x1[CLR_VEC - 1];
    VT x[CLR_ITEM_LOADS];
    _Pragma("unroll") for (uint u = 0; u < CLR_VEC - 1; u++)
        x0[u] = u < h ? clr_map(p[u]) : (T)(CLR_IDENTITY);
    _Pragma("unroll") for (uint u = 0; u < CLR_ITEM_LOADS; u++)
        x[u] = u < nv ? clr_mapv(clr_load_vec(v + u)) : (VT)(CLR_IDENTITY);
    _Pragma("unroll") for (uint u = 0; u < CLR_VEC - 1; u++)
        x1[u] = t + u < n ? clr_map(p[t + u]) : (T)(CLR_IDENTITY);
    _Pragma("unroll") for (uint u = 0; u < CLR_VEC - 1; u++)
        a = clr_op(a, x0[u]);
    _Pragma("unroll") for (uint u = 0; u < CLR_ITEM_LOADS; u++)
        a = clr_fold(a, x[u]);
    for (ulong k = CLR_ITEM_LOADS; k < nv; k += CLR_ITEM_LOADS) {
        _Pragma("unroll") for (uint u = 0; u < CLR_ITEM_LOADS; u++)
            x[u] = k + u < nv ? clr_mapv(clr_load_vec(v + k + u)) : (VT)(CLR_IDENTITY);
        _Pragma("unroll") for (uint u = 0; u < CLR_ITEM_LOADS; u++)
            a = clr_fold(a, x[u]);
    }
    _Pragma("unroll") for (uint u = 0; u < CLR_VEC - 1; u++)
        a = clr_op(a, x1[u]);
#else
    for (ulong i = 0; i < n; i += CLR_ITEM_LOADS) {
        T x[CLR_ITEM_LOADS];
        _Pragma("unroll") for (uint u = 0; u < CLR_ITEM_LOADS; u++)
            x[u] = i + u < n ? clr_map(p[i + u]) : (T)(CLR_IDENTITY);
        _Pragma("unroll") for (uint u = 0; u < CLR_ITEM_LOADS; u++)
            a = clr_op(a, x[u]);
    }
#endif
    return a;
}

CLR_KERNEL clr_reduce_segment_items(global const T *restrict in, ulong in_off, ulong count,
                                    global const OT *restrict offsets, ulong offsets_off,
                                    ulong segments, global T *restrict out, ulong out_off,
                                    ulong piece, global uchar *scratch, uint epoch)
{
    local T l[CLR_WG];
    local uint l_piece, search, l_count, l_list[CLR_WG];
    in += in_off;
    offsets += offsets_off;
    out += out_off;
    ulong group = get_group_id(0), item_groups = (segments + CLR_WG - 1) / CLR_WG;
    if (group < item_groups) {
        uint lid = (uint)get_local_id(0);
        ulong s = group * CLR_WG + lid, b, e;
        ulong item_max = min((ulong)CLR_ITEM_MAX, piece);
        if (lid == 0)
            l_count = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (s < segments) {
            clr_segment_range(offsets, s, count, &b, &e);
            if (e - b <= item_max)
                out[s] = clr_item_range(in, b, e);
            else if (e - b <= piece)
                l_list[atomic_inc(&l_count)] = lid; /* the work-group's, below */
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        clr_group_list(in, count, offsets, out, group * CLR_WG, l_list, l_count, l);
        return;
    }
    clr_segment_piece(in, count, offsets, segments, out, piece, get_num_groups(0) - item_groups,
                      scratch, epoch, l, &l_piece, &search);
}
#endif /* CLR_ITEM_MAX */

#ifdef CLR_LANES_PER_GROUP
/* A team of lanes a segment: CLR_LANES_TEAM lanes of one warp where the
 * host gives a team size (NVIDIA GPUs: the warp's lanes are consecutive
 * local ids), else a whole sub-group; without sub-groups a work-item is a
 * sub-group of one, by the same code (what Oclgrind tests). */
#ifndef CLR_LANES_TEAM
#define CLR_LANES_TEAM 0
#endif
#if CLR_LANES_TEAM > 0 && CLR_SG_PATH == CLR_SG_NV_PTX
#define CLR_LANE ((uint)get_local_id(0) & (CLR_LANES_TEAM - 1))
#define CLR_LANES ((uint)CLR_LANES_TEAM)
#define CLR_LANES_ID ((uint)get_local_id(0) / CLR_LANES_TEAM)
#define CLR_LANES_COUNT ((uint)(CLR_WG / CLR_LANES_TEAM))
/* Lane 0's reduction over its team, in the tree of clr_team_reduce(). */
T clr_lanes_reduce(T v)
{
    for (uint d = CLR_LANES_TEAM / 2; d > 0; d >>= 1)
        v = clr_op(v, clr_shfl_down(v, d));
    return v;
}
#define CLR_LANES_REDUCE(v) clr_lanes_reduce(v)
#elif CLR_LANES_TEAM > 0
#error "teams of lanes need NVIDIA's warps"
#elif CLR_HAS_SUBGROUPS
#define CLR_LANE clr_sg_lane()
#define CLR_LANES clr_sg_size()
#define CLR_LANES_ID clr_sg_id()
#define CLR_LANES_COUNT clr_sg_count()
#define CLR_LANES_REDUCE(v) clr_sg_reduce(v)
#else
#define CLR_LANE 0u
#define CLR_LANES 1u
#define CLR_LANES_ID ((uint)get_local_id(0))
#define CLR_LANES_COUNT ((uint)CLR_WG)
#define CLR_LANES_REDUCE(v) (v)
#endif

CLR_KERNEL clr_reduce_segment_lanes(global const T *restrict in, ulong in_off, ulong count,
                                    global const OT *restrict offsets, ulong offsets_off,
                                    ulong segments, global T *restrict out, ulong out_off,
                                    ulong piece, global uchar *scratch, uint epoch)
{
    local T l[CLR_WG];
    local uint l_piece, search, l_count, l_list[CLR_LANES_PER_GROUP];
    in += in_off;
    offsets += offsets_off;
    out += out_off;
    ulong group = get_group_id(0);
    ulong lane_groups = (segments + CLR_LANES_PER_GROUP - 1) / CLR_LANES_PER_GROUP;
    if (group < lane_groups) {
        ulong lanes_max = min((ulong)CLR_LANES_MAX, piece);
        if (get_local_id(0) == 0)
            l_count = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        /* Teams take the work-group's segments in turn; every lane of a
         * sub-group reaches its reduction together (a team of lanes takes
         * one segment, all of a sub-group's teams in the same turn). */
        for (uint j = CLR_LANES_ID; j < CLR_LANES_PER_GROUP; j += CLR_LANES_COUNT) {
            ulong s = group * CLR_LANES_PER_GROUP + j, b = 0, e = 0;
            if (s < segments)
                clr_segment_range(offsets, s, count, &b, &e);
            int alone = s < segments && e - b <= lanes_max;
            T v = CLR_LANES_REDUCE(alone ? clr_share_range(in, b, e, CLR_LANE, CLR_LANES)
                                         : (T)(CLR_IDENTITY));
            if (alone && CLR_LANE == 0)
                out[s] = v;
            else if (s < segments && !alone && e - b <= piece && CLR_LANE == 0)
                l_list[atomic_inc(&l_count)] = j; /* the work-group's, below */
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        clr_group_list(in, count, offsets, out, group * CLR_LANES_PER_GROUP, l_list, l_count,
                       l);
        return;
    }
    clr_segment_piece(in, count, offsets, segments, out, piece, get_num_groups(0) - lane_groups,
                      scratch, epoch, l, &l_piece, &search);
}
#endif /* CLR_LANES_PER_GROUP */
