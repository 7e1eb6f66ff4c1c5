/*
 * segment_runs.cl — a work-group's reduction of the short segments of one
 * tile of elements, for sum, min and max: the layer under the segments
 * kernel when the mean segment is shorter than a few tiles.
 *
 * The tile (n <= CLR_RUNS_TILE elements) is read once, with vector loads
 * spread over the work-group, into local memory. Work-item t then walks
 * its run, elements [t * CLR_RUN, (t + 1) * CLR_RUN), in order, and ends
 * each segment whose end falls in it. What a segment holds before a run
 * comes from a segmented scan of the runs' open partials across the
 * work-group. A segment's result is thus the in-order sum of its part of
 * each run, combined across runs by a fixed tree: bitwise the same for the
 * same tile and boundaries. The work-group takes all of the tile's segments
 * at once, however short, with a single pass over global memory, where a
 * team per segment waits on its segment's reads before the next.
 *
 * Compile-time parameters: those of types.cl and subgroup.cl (with
 * segment_warps.cl below it, for the fetch and the search it shares), and
 *   CLR_SEGMENT_RUNS  1 compiles this layer, which is empty otherwise
 *                     (tests build it with -DCLR_TEST_SEGMENT_RUNS=1 where
 *                     the tuning does not ask for it);
 *   CLR_RUNS_SG_SCAN  0 scans the runs' partials by a tree in local memory
 *                     where sub-group shuffles would take them (the
 *                     default: by shuffles where the device has them, for
 *                     4-byte types).
 *
 * Provides:
 *   CLR_RUN, CLR_RUNS_TILE, CLR_RUNS_LOCAL (elements of the tile's local
 *   copy, padded so that the runs' reads do not conflict);
 *   clr_runs_fetch(in, n, x)   work-item's share of in[0 .. n) into x, in
 *                              flight: CLR_RUN / CLR_VEC vectors;
 *   clr_runs_stage(x, n, tile) that share into the local copy;
 *   clr_runs_reduce(tile, n, bounds, k, out, carry, head, scan, flags)
 *                              the reductions of k segments (below).
 */

#if defined(CLR_TEST_SEGMENT_RUNS) && !defined(CLR_SEGMENT_RUNS)
#define CLR_SEGMENT_RUNS CLR_TEST_SEGMENT_RUNS
#endif
#if CLR_SEGMENT_RUNS

/* Elements in a work-item's run; a tile holds a run per work-item. */
#define CLR_RUN (8 * CLR_VEC)
#define CLR_RUNS_TILE (CLR_WG * CLR_RUN)
/* Element e of the tile in the local copy: a gap after each run, so that
 * the runs' elements i (at stride CLR_RUN + 1) lie in different banks. */
#define CLR_RUNS_SLOT(e) ((e) + (e) / CLR_RUN)
#define CLR_RUNS_LOCAL (CLR_WG * (CLR_RUN + 1))

/* The scan of the runs' partials: by sub-group shuffles where the device
 * has them (a value and a flag per sub-group in local memory), else by a
 * tree in local memory (two of each per work-item). On the H200 the
 * shuffles took float sums of segments 3-5% faster at 2^26 elements, int32
 * sums 10-12%, but doubles 13-20% slower: 8-byte types keep the tree. */
#ifndef CLR_RUNS_SG_SCAN
#define CLR_RUNS_SG_SCAN (CLR_HAS_SUBGROUPS && CLR_SG_PATH != CLR_SG_REDUCE && !CLR_IS_64)
#endif
#if CLR_RUNS_SG_SCAN && CLR_SG_PATH == CLR_SG_NV_PTX
#define CLR_RUNS_SCAN_ITEMS (CLR_WG / CLR_WARP)
#elif CLR_RUNS_SG_SCAN
#define CLR_RUNS_SCAN_ITEMS CLR_WG
#else
#define CLR_RUNS_SCAN_ITEMS (2 * CLR_WG)
#endif

/* No segment of a run's waits for the scan (clr_runs_reduce). */
#define CLR_RUNS_NONE (-2)

#if CLR_VEC > 1
#define CLR_RUNS_STORE(x, p) CLR_CAT(vstore, CLR_VEC)((x), 0, (p))
#else
#define CLR_RUNS_STORE(x, p) (*(p) = (x))
#endif

/* Vectors v * CLR_WG + lid of in[0 .. n) (CLR_FETCH_VECTOR,
 * segment_warps.cl). */
void clr_runs_fetch(global const T *in, uint n, private VT *x)
{
    uint lid = (uint)get_local_id(0);
    int aligned = CLR_VEC_ALIGNED(in);
#pragma unroll
    for (uint v = 0; v < CLR_RUN / CLR_VEC; v++) {
        uint e = (v * CLR_WG + lid) * CLR_VEC;
        CLR_FETCH_VECTOR(x[v], in, e, n, aligned)
    }
}

/* The fetched vectors into the local copy (a vector's elements never
 * straddle a gap: CLR_RUN is a multiple of CLR_VEC). */
void clr_runs_stage(private const VT *x, uint n, local T *tile)
{
    uint lid = (uint)get_local_id(0);
#pragma unroll
    for (uint v = 0; v < CLR_RUN / CLR_VEC; v++) {
        uint e = (v * CLR_WG + lid) * CLR_VEC;
        if (e < n)
            CLR_RUNS_STORE(x[v], tile + CLR_RUNS_SLOT(e));
    }
}

/* The reductions of segments 0 .. k - 1 of the staged tile of n elements:
 * segment i is elements [bounds[i], bounds[i + 1]); bounds (k + 1 of them,
 * in local memory) do not decrease, are at most n, except bounds[k] = n + 1
 * for a last segment that runs on past the tile. Elements from bounds[k] on
 * belong to no segment here, nor do those before bounds[0] unless `head`:
 * then they are the tile's part of a segment begun before it, and *head
 * receives their reduction. out[i] receives the result of each segment that
 * ends in the tile; *carry the last one's partial when it runs on. Called by
 * every work-item of the work-group; scan and flags hold CLR_RUNS_SCAN_ITEMS
 * items each. The end of a segment at element q (q in 1 .. n) belongs to
 * the run of element q - 1; one at 0, of an empty segment, to run 0. */
void clr_runs_reduce(local const T *tile, uint n, local const uint *bounds, uint k,
                     global T *out, local T *carry, int head, local T *head_out, local T *scan,
                     local uint *flags)
{
    uint lid = (uint)get_local_id(0);
    uint p0 = lid * CLR_RUN;
    uint p1 = min(p0 + CLR_RUN, n);
    int active = p0 < n;
    /* The segment that holds element p0 (bounds[cur] <= p0 < bounds[cur +
     * 1]): -1 before the first, k after the last. Run 0 starts before the
     * first, so that it ends the segments that end at 0. */
    int cur = lid > 0 && active ? clr_segment_holding(bounds, k, p0) : -1;
    /* Whether the segment began in an earlier run: its result then waits
     * for the scan (open, open_part). With `head`, the elements before
     * bounds[0] are segment -1, begun before run 0. */
    int continued = cur >= 0 ? cur < (int)k && bounds[cur] < p0 : head && p0 > 0;
    int through = continued;
    uint end = cur < (int)k ? bounds[cur + 1] : UINT_MAX;
    T acc = CLR_IDENTITY, open_part = CLR_IDENTITY;
    int open = CLR_RUNS_NONE;
#define CLR_RUNS_END                                                           \
    {                                                                          \
        if (continued)                                                         \
            open = cur, open_part = acc;                                       \
        else if (cur >= 0)                                                     \
            out[cur] = acc;                                                    \
        else if (head)                                                         \
            *head_out = acc;                                                   \
        continued = through = 0;                                               \
        acc = CLR_IDENTITY;                                                    \
        cur++;                                                                 \
        end = cur < (int)k ? bounds[cur + 1] : UINT_MAX;                       \
    }
    if (active) {
        for (uint p = p0; p < p1; p++) {
            while (end <= p)
                CLR_RUNS_END
            acc = clr_op(acc, tile[CLR_RUNS_SLOT(p)]);
        }
        while (end <= p1)
            CLR_RUNS_END
    }
#undef CLR_RUNS_END
    /* Segmented inclusive scan of the open partials: a run that ended no
     * segment, in one begun before it, passes its predecessors' partial on.
     * `prev` is the scan's value of the run before. */
    T v = acc, prev;
    uint f = !through;
#if CLR_RUNS_SG_SCAN
    /* By shuffles in each sub-group, then across the sub-groups' totals. */
    uint lane = clr_sg_lane(), size = clr_sg_size(), sg = clr_sg_id();
    for (uint d = 1; d < size; d <<= 1) {
        T pv = clr_shfl_up(v, d);
        uint pf = clr_shfl_up_uint(f, d);
        if (lane >= d && !f) {
            v = clr_op(pv, v);
            f = pf;
        }
    }
    if (lane == size - 1) {
        scan[sg] = v;
        flags[sg] = f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The scan's value at the last run of the sub-group before. */
    T before = CLR_IDENTITY;
    if (sg > 0) {
        uint w = sg - 1;
        before = scan[w];
        while (!flags[w] && w > 0) {
            w--;
            before = clr_op(scan[w], before);
        }
        if (!f)
            v = clr_op(before, v);
    }
    prev = clr_shfl_up(v, 1);
    if (lane == 0)
        prev = before;
#else
    uint src = 0;
    scan[lid] = v;
    flags[lid] = f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < CLR_WG; d <<= 1) {
        T x = scan[src + lid];
        uint xf = flags[src + lid];
        if (lid >= d && !xf) {
            x = clr_op(scan[src + lid - d], x);
            xf = flags[src + lid - d];
        }
        src ^= CLR_WG;
        scan[src + lid] = x;
        flags[src + lid] = xf;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    v = scan[src + lid];
    prev = lid > 0 ? scan[src + lid - 1] : CLR_IDENTITY;
#endif
    if (open >= 0)
        out[open] = clr_op(prev, open_part);
    else if (open == -1)
        *head_out = clr_op(prev, open_part);
    if (active && p1 == n && bounds[k] > n)
        *carry = v;
}

#endif /* CLR_SEGMENT_RUNS */
