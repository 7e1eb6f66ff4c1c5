/*
 * reduce_segments_multi.cl — several operators over each segment of a CSR
 * layout in one pass: reduce_segments.cl's chunks (segment_chunks.cl), each
 * team walking its segment once and feeding every operator from each vector
 * it loads (multi_walk.cl), each operator then combined over the team as in
 * the rows of reduce_multi.cl (reduce_multi_slot.cl). Two kernels, as
 * reduce_segments.cl's:
 *
 *   clr_segment_heads_multi(in, in_off, count, offsets, offsets_off,
 *                           segments, heads, chunk, starts, starts_off)
 *       chunk g's head (its elements before the first boundary in it) by
 *       every operator, operator k's at CLR_M_PARTIALS(k, chunks) of heads
 *       as the partial of work-group g (element indices counted from the
 *       start of the segment the head belongs to), and starts[g];
 *   clr_reduce_segments_multi(in, in_off, count, offsets, offsets_off,
 *                             segments, out, at, heads, chunk, chunks,
 *                             starts, starts_off)
 *       the records of the segments chunk g owns: segment s's result of
 *       operator k at byte at.at[k] + s * at.record of out (indices from
 *       the segment's start); the last one, when it runs past the chunk,
 *       combined with the heads of the chunks it reaches, in order.
 *
 * Offsets are read clamped, as reduce_segments.cl says, with the same
 * guarantees for offsets that decrease. Counts and offsets are 64-bit.
 *
 * Compile-time parameters: those of reduce_multi.cl's rows
 * (CLR_GRID_PER_GROUP 1) and of segment_chunks.cl.
 */

/* Lane 0's partial of operator k: a chunk's head. */
#define CLR_SM_PUT_HEAD(k) CLR_M(clr_m_put, k)(CLR_M_PARTIALS(k, chunks), (uint)g, r##k);

CLR_KERNEL clr_segment_heads_multi(global const T *restrict input, ulong in_off, ulong count,
                                   global const OT *restrict offsets, ulong offsets_off,
                                   ulong segments, global uchar *partials, ulong chunk,
                                   global ulong *starts, ulong starts_off)
{
    local ulong l[CLR_WG * CLR_M_PARTIAL_BYTES / 8];
    local uint first;
    CLR_HEAD_CHUNK
    ulong g = get_group_id(0), chunks = get_num_groups(0);
    /* The segment the head belongs to starts at offsets[j - 1] < lo. */
    ulong start = j > 0 ? lo - clr_offset_at(offsets, j - 1, count) : 0;
    global const T *restrict in = input + in_off + lo;
    ulong n = head_end - lo;
    uint lane = (uint)get_local_id(0), team = CLR_WG;
    CLR_M_TEAM_RANGE
    if (lane == 0) {
        CLR_M_EACH(CLR_SM_PUT_HEAD)
    }
}

/* The carry of operator k: the value of the chunk's last segment when it
 * runs past the chunk. */
#define CLR_SM_CARRY_DECLARE(k) local CLR_M(clr_m_a, k) carry##k;

/* Lane 0 of a team stores operator k's value of its segment, or keeps it as
 * the carry. */
#define CLR_SM_STORE(k)                                                        \
    if (carried)                                                               \
        carry##k = r##k;                                                       \
    else                                                                       \
        CLR_M(clr_m_store, k)(out + at.at[k] + s * at.record, r##k);

/* A round of segment_chunks.cl's CLR_SEGMENT_ROUNDS: the team walks
 * elements [b, e) of its segment once, every operator fed from each vector,
 * then each operator is combined over the team. */
#define CLR_SM_ROUND                                                           \
    {                                                                          \
        ulong n = mine && b < e ? e - b : 0, start = 0;                        \
        global const T *restrict in = input + in_off + b;                      \
        uint lane = lid & (team - 1);                                          \
        CLR_M_TEAM_RANGE                                                       \
        if (mine && lane == 0) {                                               \
            CLR_M_EACH(CLR_SM_STORE)                                           \
        }                                                                      \
    }

/* Operator k's result of the last segment: the heads of the chunks it
 * reaches after the carry. */
#define CLR_SM_LAST(k)                                                         \
    {                                                                          \
        CLR_M(clr_m_a, k) v;                                                   \
        CLR_M(clr_m_team_partials, k)(&v, CLR_M_PARTIALS(k, chunks) +          \
                                          (g + 1) * sizeof(CLR_M(clr_m_a, k)), \
                                      last_chunk - g, lid, CLR_WG);            \
        CLR_M(clr_m_team, k)(l, &v, CLR_WG);                                   \
        if (lid == 0) {                                                        \
            CLR_M(clr_m_a, k) c = carry##k;                                    \
            CLR_M(clr_m_join, k)(&v, &c);                                      \
            CLR_M(clr_m_store, k)(out + at.at[k] + (first + k_owned - 1) * at.record, v); \
        }                                                                      \
    }

CLR_KERNEL clr_reduce_segments_multi(global const T *restrict input, ulong in_off, ulong count,
                                     global const OT *restrict offsets, ulong offsets_off,
                                     ulong segments, global uchar *restrict out,
                                     clr_m_offsets at, global const uchar *partials, ulong chunk,
                                     ulong chunks, global const ulong *starts, ulong starts_off)
{
    local ulong l[CLR_WG * CLR_M_PARTIAL_BYTES / 8];
    CLR_M_EACH(CLR_SM_CARRY_DECLARE)
    CLR_SEGMENT_CHUNK
    ulong k_owned = k;
    CLR_SEGMENT_ROUNDS(CLR_SM_ROUND)
    if (last_end <= hi)
        return;
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong last_chunk = (last_end - 1) / chunk;
    CLR_M_EACH(CLR_SM_LAST)
}
