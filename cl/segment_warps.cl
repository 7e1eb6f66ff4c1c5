/*
 * segment_warps.cl — a work-group's reduction of the segments of one chunk
 * of elements, a few tiles long, read into registers a tile at a time,
 * sub-group by sub-group, for sum, min and max: the layer under the
 * segments kernel where a chunk's segments are long enough that most
 * windows (below) hold no end of one.
 *
 * Sub-group w of the work-group walks its own contiguous span of the chunk
 * in `rounds` rounds (the chunk's tiles), each of CLR_WARPS_STEPS vectors a
 * lane, all in flight at once: step u of round r of lane i is vector
 * (r * CLR_WARPS_STEPS + u) * size + i of the span, so that each step of
 * the sub-group reads one contiguous window of size * CLR_VEC elements. It
 * walks a round's windows in order, then loads the next round. Longer
 * chunks spread the work-group's fixed costs (a ticket, the chunk's starts
 * and offsets, the hand-off of its carry) over more elements. Each lane
 * keeps one partial of the open segment; where a segment ends inside a
 * window, the lanes add their elements below the end, the sub-group
 * reduces the partials (subgroup.cl) and its first lane writes the
 * result. A window without an end costs its adds alone.
 * What a segment holds from earlier spans is joined across the sub-groups
 * once, in local memory, at the end. A segment's result is thus each lane's
 * in-order sum of its elements, combined by fixed trees: bitwise the same
 * for the same chunk and boundaries. Where segment_runs.cl stages a tile
 * in local memory and has each work-item walk a run of it, this keeps the
 * chunk in registers a tile at a time and spends one reduction per segment
 * end.
 *
 * Without sub-groups a work-item is a sub-group of one, by the same rules
 * (what Oclgrind tests; Intel's CPU runtime tests it with its sub-groups).
 *
 * Compile-time parameters: those of types.cl and subgroup.cl, and
 *   CLR_SEGMENT_WARPS   1 compiles this layer, which is empty otherwise
 *                       (tests build it with -DCLR_TEST_SEGMENT_WARPS=1
 *                       where the tuning does not ask for it);
 *   CLR_WARPS_MEAN_MIN  the shortest mean segment of a chunk taken so
 *                       (default 32): it sizes the chunk's bounds;
 *   CLR_WARPS_ROUNDS_MAX  the most tiles a chunk holds (default 2: what
 *                       the test switch's long chunks need; the host sets
 *                       its own).
 *
 * Provides, besides CLR_FETCH_VECTOR and clr_segment_holding() (for
 * segment_runs.cl too):
 *   CLR_WARPS_STEPS, CLR_WARPS_TILE, CLR_WARPS_BOUNDS, CLR_WARPS_GROUPS
 *   (the most sub-groups a work-group holds);
 *   clr_warps_fetch(in, n, x, rounds)  the work-item's vectors of the first
 *                            round of in[0 .. n);
 *   clr_warps_fit()          whether the work-group's sub-groups tile it;
 *   clr_warps_reduce(in, x, n, rounds, bounds, k, out, carry, head,
 *                    head_out, tails, throughs)  the reductions of k
 *                            segments (below).
 */

/* A vector at any element alignment. */
#if CLR_VEC > 1
#define CLR_LOADU(p) CLR_CAT(vload, CLR_VEC)(0, (p))
#else
#define CLR_LOADU(p) (*(p))
#endif

/* x = the vector of in[e .. e + CLR_VEC), each element through MAP (the
 * vector through MAPV), elements at or past n the identity: a vector load
 * where it is whole (aligned where `aligned`, which says in[0] lies on a
 * vector boundary), else element by element, written in place (PoCL 3.1
 * got segments wrong when the vector was built in an array and loaded from
 * it, or returned from a function). CLR_FETCH_VECTOR maps as it reads
 * (clr_map, types.cl); CLR_FETCH_VECTOR_RAW leaves the map to the caller. */
#define CLR_FETCH_VECTOR_WITH(x, in, e, n, aligned, MAP, MAPV)                 \
    if ((e) + CLR_VEC <= (n)) {                                                \
        (x) = MAPV((aligned) ? clr_load_vec((global const VT *)((in) + (e)))   \
                             : CLR_LOADU((in) + (e)));                         \
    } else {                                                                   \
        private T *s_ = (private T *)&(x);                                     \
        for (uint c_ = 0; c_ < CLR_VEC; c_++)                                  \
            s_[c_] = (e) + c_ < (n) ? MAP((in)[(e) + c_]) : CLR_IDENTITY;      \
    }
#define CLR_NO_MAP(x) (x)
#define CLR_FETCH_VECTOR(x, in, e, n, aligned)                                 \
    CLR_FETCH_VECTOR_WITH(x, in, e, n, aligned, clr_map, clr_mapv)
#define CLR_FETCH_VECTOR_RAW(x, in, e, n, aligned)                             \
    CLR_FETCH_VECTOR_WITH(x, in, e, n, aligned, CLR_NO_MAP, CLR_NO_MAP)

/* The segment of k (bounds[0 .. k], not decreasing) that holds element p:
 * the last i with bounds[i] <= p, k after the last, -1 before the first.
 * For segment_runs.cl too. */
int clr_segment_holding(local const uint *bounds, uint k, uint p)
{
    uint lo = 0, hi = k + 1;
    while (lo < hi) {
        uint mid = (lo + hi) / 2;
        if (bounds[mid] > p)
            hi = mid;
        else
            lo = mid + 1;
    }
    return (int)lo - 1;
}

#if defined(CLR_TEST_SEGMENT_WARPS) && !defined(CLR_SEGMENT_WARPS)
#define CLR_SEGMENT_WARPS CLR_TEST_SEGMENT_WARPS
#endif
#if CLR_SEGMENT_WARPS

#ifndef CLR_WARPS_MEAN_MIN
#define CLR_WARPS_MEAN_MIN 32
#endif
#define CLR_WARPS_STEPS 8
#ifndef CLR_WARPS_ROUNDS_MAX
#define CLR_WARPS_ROUNDS_MAX 2
#endif
#define CLR_WARPS_TILE (CLR_WG * CLR_WARPS_STEPS * CLR_VEC)
/* The most segments of a chunk taken so: those of the mean length in the
 * longest chunk, within 16 KiB of local memory (more fall to the caller's
 * other layout). */
#define CLR_WARPS_CHUNK_MAX (CLR_WARPS_TILE * CLR_WARPS_ROUNDS_MAX)
#define CLR_WARPS_BOUNDS_MAX 4096
#define CLR_WARPS_BOUNDS                                                       \
    (CLR_WARPS_CHUNK_MAX / CLR_WARPS_MEAN_MIN < CLR_WARPS_BOUNDS_MAX           \
         ? CLR_WARPS_CHUNK_MAX / CLR_WARPS_MEAN_MIN + 1                        \
         : CLR_WARPS_BOUNDS_MAX + 1)

/* Component c (a constant once unrolled) of a vector. */
#define CLR_AT2(v, c) ((c) == 0 ? (v).s0 : (v).s1)
#define CLR_AT4(v, c) ((c) < 2 ? CLR_AT2((v).lo, (c)) : CLR_AT2((v).hi, (c) - 2))
#define CLR_AT8(v, c) ((c) < 4 ? CLR_AT4((v).lo, (c)) : CLR_AT4((v).hi, (c) - 4))
#define CLR_AT16(v, c) ((c) < 8 ? CLR_AT8((v).lo, (c)) : CLR_AT8((v).hi, (c) - 8))
#if CLR_VEC == 1
#define CLR_AT(v, c) (v)
#else
#define CLR_AT(v, c) CLR_CAT(CLR_AT, CLR_VEC)(v, c)
#endif

/* The sub-group a work-item walks with: its lanes, in local-id order. */
#if CLR_HAS_SUBGROUPS && CLR_SG_PATH == CLR_SG_NV_PTX
#define CLR_WARPS_GROUPS (CLR_WG / CLR_WARP)
uint clr_warps_size(void) { return CLR_WARP; }
#elif CLR_HAS_SUBGROUPS
#define CLR_WARPS_GROUPS CLR_WG
uint clr_warps_size(void) { return get_max_sub_group_size(); }
#else
#define CLR_WARPS_GROUPS CLR_WG
uint clr_warps_size(void) { return 1; }
#endif
#if CLR_HAS_SUBGROUPS
uint clr_warps_lane(void) { return clr_sg_lane(); }
uint clr_warps_id(void) { return clr_sg_id(); }
T clr_warps_combine(T v) { return clr_sg_reduce(v); }
#else
uint clr_warps_lane(void) { return 0; }
uint clr_warps_id(void) { return (uint)get_local_id(0); }
T clr_warps_combine(T v) { return v; }
#endif

/* Whether the work-group splits into sub-groups of one size, so that the
 * spans tile the tile (the same answer for every work-item). */
int clr_warps_fit(void) { return CLR_WG % clr_warps_size() == 0; }

/* No segment of a span's waits for the join (clr_warps_reduce). */
#define CLR_WARPS_NONE (-2)

/* Where a span applies its map (CLR_MAP): at the additions for floats,
 * after a round's loads are all issued; as it reads for doubles. Mapped as
 * they were read, float sums of squares and of absolute values over arrays
 * and segments of 1-1000 took 1.5-1.95x a plain sum's time on an H200 and
 * an H100; mapped at the additions, 0.88-1.04x a plain sum's time.
 * Doubles mapped at the additions took up to 1.31x the time of doubles
 * mapped as read on the H200 (bench/results/h200-2026-12-06-late-map.txt,
 * h100-2026-12-06-late-map.txt). */
#if CLR_T_BYTES == 4
#define CLR_WARPS_FETCH CLR_FETCH_VECTOR_RAW
#define clr_warps_map(x) clr_map(x)
#else
#define CLR_WARPS_FETCH CLR_FETCH_VECTOR
#define clr_warps_map(x) (x)
#endif

/* The work-item's vectors of round r of `rounds` of in[0 .. n): the
 * round's steps of its sub-group's span (the identity past n), mapped
 * here or at the additions (clr_warps_map). */
void clr_warps_fetch_round(global const T *in, uint n, private VT *x, uint r, uint rounds)
{
    uint size = clr_warps_size(), lane = clr_warps_lane();
    uint base = (clr_warps_id() * rounds + r) * CLR_WARPS_STEPS * size * CLR_VEC;
    int aligned = CLR_VEC_ALIGNED(in);
#pragma unroll
    for (uint u = 0; u < CLR_WARPS_STEPS; u++) {
        uint e = base + (u * size + lane) * CLR_VEC;
        CLR_WARPS_FETCH(x[u], in, e, n, aligned)
    }
}

/* The work-item's vectors of the first round. */
void clr_warps_fetch(global const T *in, uint n, private VT *x, uint rounds)
{
    clr_warps_fetch_round(in, n, x, 0, rounds);
}

/* The reductions of segments 0 .. k - 1 of a chunk of n elements, in[0 ..
 * n), of `rounds` tiles, whose first round clr_warps_fetch() read into x
 * (the later ones are read here, into x), with bounds, out, carry, head and
 * head_out as clr_runs_reduce() (segment_runs.cl) takes them: segment i is
 * elements [bounds[i], bounds[i + 1]), bounds[k] = n + 1 for a last
 * segment that runs on past the chunk. The end of a segment at element q
 * (q in 1 .. n) belongs to the span of element q - 1; one at 0 to span 0.
 * tails and throughs (CLR_WARPS_GROUPS each) receive each span's last open
 * partial and whether the span lies inside one segment begun before it.
 * Called by every work-item of the work-group. */
void clr_warps_reduce(global const T *in, private VT *x, uint n, uint rounds,
                      local const uint *bounds, uint k, global T *out, local T *carry, int head,
                      local T *head_out, local T *tails, local uint *throughs)
{
    uint size = clr_warps_size(), lane = clr_warps_lane(), w = clr_warps_id();
    uint window = size * CLR_VEC;
    uint p0 = w * rounds * CLR_WARPS_STEPS * window;
    uint p1 = min(p0 + rounds * CLR_WARPS_STEPS * window, n);
    int active = p0 < n;
    /* The segment that holds element p0, as in clr_runs_reduce(): -1 before
     * the first, k after the last; span 0 starts before the first. */
    int cur = w > 0 && active ? clr_segment_holding(bounds, k, p0) : -1;
    int continued = cur >= 0 ? cur < (int)k && bounds[cur] < p0 : head && p0 > 0;
    int through = continued;
    uint end = cur < (int)k ? bounds[cur + 1] : UINT_MAX;
    T acc = CLR_IDENTITY, open_part = CLR_IDENTITY;
    int open = CLR_WARPS_NONE;
    /* Unrolled to the most rounds, so that every index of x is a
     * constant. */
#pragma unroll
    for (uint r = 0; r < CLR_WARPS_ROUNDS_MAX; r++) {
        if (r >= rounds || !active)
            break;
        if (r > 0)
            clr_warps_fetch_round(in, n, x, r, rounds);
#pragma unroll
        for (uint u = 0; u < CLR_WARPS_STEPS; u++) {
            uint wa = p0 + (r * CLR_WARPS_STEPS + u) * window, wb = min(wa + window, n);
            uint q = wa + lane * CLR_VEC;
            if (end > wb && wa + window <= n) {
#pragma unroll
                for (uint c = 0; c < CLR_VEC; c++)
                    acc = clr_op(acc, clr_warps_map(CLR_AT(x[u], c)));
                continue;
            }
            /* Ends in the window, or its tail past n: the lanes' elements
             * from `from` up to each end, then the sub-group's partial. */
            uint from = wa;
            while (end <= wb) {
#pragma unroll
                for (uint c = 0; c < CLR_VEC; c++)
                    if (q + c >= from && q + c < end)
                        acc = clr_op(acc, clr_warps_map(CLR_AT(x[u], c)));
                T total = clr_warps_combine(acc);
                if (continued)
                    open = cur, open_part = total;
                else if (lane == 0 && cur >= 0)
                    out[cur] = total;
                else if (lane == 0 && head)
                    *head_out = total;
                continued = through = 0;
                acc = CLR_IDENTITY;
                from = end;
                cur++;
                end = cur < (int)k ? bounds[cur + 1] : UINT_MAX;
            }
#pragma unroll
            for (uint c = 0; c < CLR_VEC; c++)
                if (q + c >= from && q + c < wb)
                    acc = clr_op(acc, clr_warps_map(CLR_AT(x[u], c)));
        }
    }
    T tail = clr_warps_combine(acc);
    if (lane == 0) {
        tails[w] = tail;
        throughs[w] = (uint)through;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* A segment this span ends or carries on that began in an earlier span:
     * the tails of the spans back to the one it began in, in order. The
     * span that ends the chunk carries the last segment on: its own tail,
     * after what came before where the span lies inside it. */
    int ends_open = open != CLR_WARPS_NONE;
    int carries = p1 == n && bounds[k] > n;
    if (lane == 0 && active && (ends_open || carries)) {
        T before = CLR_IDENTITY;
        for (int v = (int)w - 1; v >= 0; v--) {
            before = clr_op(tails[v], before);
            if (!throughs[v])
                break;
        }
        if (ends_open && open >= 0)
            out[open] = clr_op(before, open_part);
        else if (ends_open)
            *head_out = clr_op(before, open_part);
        if (carries)
            *carry = through ? clr_op(before, tail) : tail;
    }
}

#endif /* CLR_SEGMENT_WARPS */
