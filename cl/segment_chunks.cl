/*
 * segment_chunks.cl — the chunks the segments of a CSR layout are cut into
 * (reduce_segments.cl says how): the layer under the kernels of one
 * operator per segment (reduce_segments.cl) and of several
 * (reduce_segments_multi.cl). Segment s is elements [offsets[s],
 * offsets[s + 1]) of the input, offsets read clamped to [0, count].
 *
 * Compile-time parameters: CLR_WG, CLR_VEC, CLR_OFFSETS_TYPE
 * (CLR_TYPE_UINT or CLR_TYPE_ULONG: the offsets' type, OT) and
 * CLR_LANE_ELEMENTS (below).
 *
 * Provides the team size of a chunk (clr_segment_team), the searches of
 * the heads kernels (clr_chunk_start) and of one work-item
 * (clr_first_offset_from), the segments a chunk owns
 * (clr_chunk_owned), the openings and rounds of the kernels
 * (CLR_HEAD_CHUNK, CLR_SEGMENT_CHUNK, CLR_SEGMENT_ROUNDS, and a round of one
 * operator, CLR_SEGMENT_ROUND), and where
 * CLR_SEGMENT_RUNS is set, a chunk's segments by runs
 * (clr_segments_by_runs).
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
#ifndef CLR_LANE_ELEMENTS
#define CLR_LANE_ELEMENTS (4 * CLR_VEC)
#endif

/* The team size for k segments in elements [lo, hi): a segment of their
 * mean length gives each lane CLR_LANE_ELEMENTS to twice that, rounded
 * down, so that the work-group's teams take all of the chunk's segments at
 * once when they are that long; and no smaller than the work-group shared
 * by the k segments (a power of two, rounded down), so that when a chunk
 * holds fewer segments than that gives teams, its work-items are not left
 * idle (4 segments of 1000 in a chunk of 4096 kept 12 of 16 teams idle). */
uint clr_segment_team(ulong lo, ulong hi, ulong k)
{
    ulong mean = (hi - lo) / k;
    uint team = 1;
    while (team < CLR_WG && ((ulong)team * 2 * CLR_LANE_ELEMENTS <= mean ||
                             (ulong)team * 2 * k <= CLR_WG))
        team <<= 1;
    return team;
}

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

/* Probe `lane` of CLR_WG over [lo, hi): lo + floor((hi - lo) * lane / CLR_WG),
 * without overflow. Probes increase with the lane, and probe 0 is lo. */
ulong clr_probe(ulong lo, ulong hi, uint lane)
{
    ulong n = hi - lo;
    return lo + (n / CLR_WG) * lane + (n % CLR_WG) * lane / CLR_WG;
}

/* The first s in [lo, hi) whose clamped offset is at least x, or hi, for
 * offsets that do not decrease; called by every work-item of the
 * work-group, all with the same arguments, and the same result for all.
 * Each round every work-item reads one probe, and the first probe at or
 * past x (local atomic minimum, `first` reusable after the call) leaves a
 * range CLR_WG times smaller: a few rounds where a binary search by one
 * work-item waits on some twenty reads in a row. For offsets that decrease
 * the result is some index in [lo, hi]. */
ulong clr_wg_lower_bound(global const OT *offsets, ulong lo, ulong hi, ulong x, ulong count,
                         local uint *first)
{
    uint lid = (uint)get_local_id(0);
    while (lo < hi) {
        if (lid == 0)
            *first = CLR_WG;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (clr_offset_at(offsets, clr_probe(lo, hi, lid), count) >= x)
            atomic_min(first, lid);
        barrier(CLK_LOCAL_MEM_FENCE);
        uint f = *first;
        barrier(CLK_LOCAL_MEM_FENCE);
        /* Probe f - 1 is below x, probe f (or hi) at or past it; f == 0
         * ends the search at lo. No return inside the loop: a second exit
         * from a loop with barriers made PoCL 3.1 compile the single
         * launch several times longer. */
        ulong next_hi = f == 0 ? lo : f < CLR_WG ? clr_probe(lo, hi, f) : hi;
        lo = f == 0 ? lo : clr_probe(lo, hi, f - 1) + 1;
        hi = next_hi;
    }
    return lo;
}

/* The first s in [0, segments] whose clamped offset is at least x
 * (segments where none is), by one work-item: a binary search of the
 * offsets, for offsets that do not decrease; some index in [0, segments]
 * for offsets that do. */
ulong clr_first_offset_from(global const OT *offsets, ulong segments, ulong x, ulong count)
{
    ulong lo = 0, hi = segments;
    while (lo < hi) {
        ulong mid = lo + (hi - lo) / 2;
        if (clr_offset_at(offsets, mid, count) >= x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The segments chunk g owns, from the starts of chunks g and g + 1 (the
 * first offset index at or past each chunk's first element; `next` is not
 * read for the last chunk): the first, how many, and where the last ends
 * when the chunk owns it (else 0). The same for every work-item. */
void clr_chunk_owned(global const OT *offsets, ulong start, ulong next, ulong g, ulong chunk,
                     ulong chunks, ulong segments, ulong count, ulong *first, ulong *k,
                     ulong *last_end)
{
    ulong f = g == 0 ? 0 : min(start, segments);
    ulong end = g + 1 == chunks ? segments : clamp(next, f, segments);
    *first = f;
    *k = end - f;
    *last_end = 0;
    if (end > f) {
        ulong b = clr_offset_at(offsets, end - 1, count);
        if (clr_owner(b, chunk, chunks) == g)
            *last_end = max(b, clr_offset_at(offsets, end, count));
    }
}

/* The heads kernel's search: j, the first offset index in [0, segments]
 * at or past lo (segments + 1 if none), and starts[g]. */
ulong clr_chunk_start(global const OT *offsets, ulong segments, ulong lo, ulong count,
                      global ulong *starts, local uint *first)
{
    ulong j = clr_wg_lower_bound(offsets, 0, segments + 1, lo, count, first);
    if (get_local_id(0) == 0)
        starts[get_group_id(0)] = min(j, segments);
    return j;
}

/* The start of clr_segment_heads, either form: chunk g's elements [lo, hi),
 * j the first offset at or past lo (starts[g] stored), and head_end, where
 * the chunk's head ends: lo when no boundary follows lo (no segment reaches
 * into this chunk from an earlier one). */
#define CLR_HEAD_CHUNK                                                         \
    offsets += offsets_off;                                                    \
    ulong lo = (ulong)get_group_id(0) * chunk;                                 \
    ulong hi = min(count, lo + chunk);                                         \
    ulong j = clr_chunk_start(offsets, segments, lo, count, starts + starts_off, &first); \
    ulong b = j <= segments ? clr_offset_at(offsets, j, count) : lo;           \
    ulong head_end = b > lo ? min(b, hi) : lo;

/* The start of clr_reduce_segments, either form: chunk g's elements [lo,
 * hi) and the k segments from `first` it owns (none: nothing to do). */
#define CLR_SEGMENT_CHUNK                                                      \
    offsets += offsets_off;                                                    \
    ulong g = get_group_id(0);                                                 \
    ulong lo = g * chunk;                                                      \
    ulong hi = min(count, lo + chunk);                                         \
    uint lid = (uint)get_local_id(0);                                          \
    ulong first, k, last_end;                                                  \
    starts += starts_off;                                                      \
    clr_chunk_owned(offsets, starts[g], g + 1 < chunks ? starts[g + 1] : 0, g, chunk, chunks,  \
                    segments, count, &first, &k, &last_end);                   \
    if (k == 0)                                                                \
        return;

/* The rounds in which the chunk's teams reduce the segments it owns: each
 * round, team t (work-items lid / team == t) takes segment s = first + j,
 * elements [b, e) of it in this chunk, and ROUND runs in every work-item
 * with `team`, `s`, `b`, `e`, `mine` (the chunk owns the segment: only then
 * are b and e set) and `carried` (the segment runs past the chunk: its
 * value goes to the carry, to be combined with the heads of the chunks it
 * reaches). Only the last can run past the chunk: one before it that does
 * (offsets that decrease) is not the chunk's to write, since the chunk it
 * ends in may write it (reduce_segments_single.cl). A segment is empty when
 * the offsets decrease (written so that no saturating subtraction comes of
 * it, which Oclgrind cannot run). */
#define CLR_SEGMENT_ROUNDS(ROUND)                                              \
    uint team = clr_segment_team(lo, hi, k);                                   \
    uint teams = CLR_WG / team;                                                \
    ulong rounds = (k + teams - 1) / teams;                                    \
    for (ulong r = 0; r < rounds; r++) {                                       \
        ulong j = r * teams + lid / team;                                      \
        ulong s = first + j, b = 0, e = 0;                                     \
        int mine = 0;                                                          \
        if (j < k) {                                                           \
            b = clr_offset_at(offsets, s, count);                              \
            ulong e_ = clr_offset_at(offsets, s + 1, count);                   \
            e = min(e_, hi);                                                   \
            mine = clr_owner(b, chunk, chunks) == g && (e_ <= hi || j + 1 == k); \
        }                                                                      \
        int carried = j + 1 == k && last_end > hi;                             \
        ROUND                                                                  \
    }

/* A round of one operator (CLR_SEGMENT_ROUNDS): ACC the
 * accumulator, IDENTITY its empty value, RANGE(b, e) a team's reduction of
 * elements [b, e), REDUCE the teams' combination, STORE(s, v) the result of
 * segment s. */
#define CLR_SEGMENT_ROUND(ACC, IDENTITY, RANGE, REDUCE, STORE)                 \
    {                                                                          \
        ACC v = IDENTITY;                                                      \
        if (mine && b < e)                                                     \
            v = RANGE(b, e);                                                   \
        v = REDUCE(l, v, team);                                                \
        if (mine && clr_team_is_leader(team)) {                                \
            if (carried)                                                       \
                carry = v;                                                     \
            else                                                               \
                STORE(s, v);                                                   \
        }                                                                      \
    }

#if CLR_SEGMENT_RUNS || CLR_SEGMENT_WARPS
/* bounds[i] = offsets[first + i] - lo for i in 0 .. k (n + 1 where past hi,
 * n = hi - lo), chunk g's k segments from `first` in its elements [lo, hi);
 * *ok cleared where they decrease or the first or last is not the chunk's
 * to write. By the work-items of the work-group in turn, after a barrier
 * that follows *ok set. */
void clr_chunk_bounds(global const OT *offsets, ulong g, ulong lo, ulong hi, ulong chunk,
                      ulong chunks, ulong first, ulong k, ulong count, local uint *bounds,
                      local int *ok)
{
    uint n = (uint)(hi - lo);
    for (ulong i = get_local_id(0); i <= k; i += CLR_WG) {
        ulong b = clr_offset_at(offsets, first + i, count);
        int bad = i > 0 && b < clr_offset_at(offsets, first + i - 1, count);
        if (i == 0 || i + 1 == k)
            bad |= clr_owner(b, chunk, chunks) != g;
        if (bad)
            atomic_xchg(ok, 0);
        bounds[i] = b > hi ? n + 1 : (uint)(b - lo);
    }
}
#endif

#if CLR_SEGMENT_WARPS
/* The local memory of clr_segments_by_warps(), declared in a kernel. */
#define CLR_WARPS_LOCALS                                                       \
    local uint warps_bounds[CLR_WARPS_BOUNDS];                                 \
    local T warps_tails[CLR_WARPS_GROUPS];                                     \
    local uint warps_throughs[CLR_WARPS_GROUPS];                               \
    local int warps_ok;

/* Chunk g's k segments from `first`, elements [lo, hi) of `in`, by the
 * sub-groups' spans (segment_warps.cl), when the chunk is a whole number of
 * their tiles, CLR_WARPS_ROUNDS_MAX or fewer (the rounds of each span), in
 * a work-group of sub-groups of one size, and its offsets, read into
 * local memory, neither decrease nor leave the chunk's segments (else 0,
 * nothing written: the caller takes them otherwise). With `head`,
 * *head_out also receives the chunk's elements before its first segment.
 * The same answer for every work-item. */
int clr_segments_by_warps(global const T *in, global const OT *offsets, global T *out, ulong g,
                          ulong lo, ulong hi, ulong chunk, ulong chunks, ulong first, ulong k,
                          ulong count, local T *carry, int head, local T *head_out,
                          local uint *bounds, local T *tails, local uint *throughs,
                          local int *ok)
{
    uint rounds = (uint)(chunk / CLR_WARPS_TILE);
    if (chunk % CLR_WARPS_TILE || rounds > CLR_WARPS_ROUNDS_MAX || k >= CLR_WARPS_BOUNDS ||
        !clr_warps_fit())
        return 0;
    uint n = (uint)(hi - lo);
    VT x[CLR_WARPS_STEPS];
    if (get_local_id(0) == 0)
        *ok = 1;
    clr_warps_fetch(in + lo, n, x, rounds);
    barrier(CLK_LOCAL_MEM_FENCE);
    clr_chunk_bounds(offsets, g, lo, hi, chunk, chunks, first, k, count, bounds, ok);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!*ok)
        return 0;
    clr_warps_reduce(in + lo, x, n, rounds, bounds, (uint)k, out + first, carry, head, head_out,
                     tails, throughs);
    return 1;
}
#endif

#if CLR_SEGMENT_RUNS
/* Bounds of the segments a chunk may take by runs (segment_runs.cl): a
 * mean of four elements or more. */
#define CLR_RUNS_BOUNDS (CLR_RUNS_TILE / 4 + 1)

/* The local memory of clr_segments_by_runs(), declared in a kernel. */
#define CLR_RUNS_LOCALS                                                        \
    local T tile[CLR_RUNS_LOCAL];                                              \
    local uint bounds[CLR_RUNS_BOUNDS];                                        \
    local T scan[CLR_RUNS_SCAN_ITEMS];                                         \
    local uint flags[CLR_RUNS_SCAN_ITEMS];                                     \
    local int ok;

/* Chunk g's k segments from `first`, elements [lo, hi) of `in`, by runs,
 * when the chunk is one tile of runs and its offsets, read into local
 * memory, neither decrease nor leave the chunk's segments (else 0, nothing
 * written: the rounds take them). With `head`, *head_out also receives the
 * chunk's elements before its first segment, as clr_runs_reduce() says.
 * The same answer for every work-item. */
int clr_segments_by_runs(global const T *in, global const OT *offsets, global T *out, ulong g,
                         ulong lo, ulong hi, ulong chunk, ulong chunks, ulong first, ulong k,
                         ulong count, local T *carry, int head, local T *head_out,
                         local T *tile, local uint *bounds, local T *scan, local uint *flags,
                         local int *ok)
{
    uint lid = (uint)get_local_id(0);
    uint n = (uint)(hi - lo);
    VT x[CLR_RUN / CLR_VEC];
    if (lid == 0)
        *ok = 1;
    clr_runs_fetch(in + lo, n, x);
    barrier(CLK_LOCAL_MEM_FENCE);
    clr_chunk_bounds(offsets, g, lo, hi, chunk, chunks, first, k, count, bounds, ok);
    clr_runs_stage(x, n, tile);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!*ok)
        return 0;
    clr_runs_reduce(tile, n, bounds, (uint)k, out + first, carry, head, head_out, scan, flags);
    return 1;
}
#endif
