/*
 * scan_rows.cl — an inclusive or exclusive scan of every row of a pitched
 * matrix.
 *
 * Compile-time parameters: those of types.cl, subgroup.cl,
 * workgroup_reduce.cl, workgroup_scan.cl, tile.cl and tile_run.cl.
 *
 * Row r is elements [0, len) of in[in_off + r * pitch ..]; its scan goes to
 * out[out_off + r * out_pitch ..]. Offsets and counts are 64-bit;
 * `exclusive` is 0 or 1. Input and output may be the same rows (same
 * offset, same pitch): every element is read by the work-item that writes
 * it, before it writes it, and by no other.
 *
 * Short rows:
 *   clr_scan_rows_team(in, in_off, rows, len, pitch, out, out_off,
 *                      out_pitch, team, per_group, exclusive)
 * Work-group g takes rows [g * per_group, (g + 1) * per_group), one per
 * team of `team` work-items (a power of two below CLR_WG, scanning through
 * local memory) or one per sub-group when team is CLR_TEAM_SUBGROUP. A team
 * walks its row in blocks of one vector of CLR_VEC elements per lane, lane
 * j taking the block's vector j (consecutive lanes, consecutive vectors):
 * each lane combines its vector in sequence, the team scans the lanes'
 * totals, and the block's total carries to the next block.
 *
 * Longer rows, by tiles (tile.cl) in runs (tile_run.cl): work-group g scans
 * tiles [p * per_part, (p + 1) * per_part) of row g / parts, p = g % parts:
 *   clr_scan_rows_tiles(in, in_off, len, pitch, out, out_off, out_pitch,
 *                       parts, per_part, partials, exclusive)
 * from the identity when parts is 1 (a work-group per row), else from
 * partials[g]. With several parts per row, two launches before it give
 * those prefixes (reduce, then scan, as scan_rts.cl does for one range):
 *   clr_scan_rows_reduce(in, in_off, len, pitch, parts, per_part, partials)
 *                       the total of each part into partials[g];
 *   clr_scan_rows_spine(partials, parts)
 *                       work-group r turns row r's parts' totals,
 *                       partials[r * parts ..], into exclusive prefixes.
 */

/* ---- a lane's vector of a row ------------------------------------------------ */

/* Whether whole vectors at in and out can be read and written as VT. */
int clr_rows_aligned(global const T *in, global const T *out)
{
    ulong align = CLR_VEC * sizeof(T);
    return (ulong)(uintptr_t)in % align == 0 && (ulong)(uintptr_t)out % align == 0;
}

/* Elements [k, k + CLR_VEC) of in[0 .. n) into x, the identity past n;
 * returns their combination in sequence. */
T clr_rows_load(global const T *in, ulong k, ulong n, int aligned, private T *x)
{
    if (k + CLR_VEC <= n) {
        VT v = aligned ? *(global const VT *)(in + k) : CLR_VLOAD(0, in + k);
        CLR_VSTORE(v, 0, x);
    } else {
#pragma unroll
        for (uint j = 0; j < CLR_VEC; j++)
            x[j] = k + j < n ? in[k + j] : CLR_IDENTITY;
    }
    T s = x[0];
#pragma unroll
    for (uint j = 1; j < CLR_VEC; j++)
        s = clr_op(s, x[j]);
    return s;
}

/* Writes x scanned from `prefix` (the combination of everything in the row
 * before element k) to out[k ..], up to n. */
void clr_rows_store(global T *out, ulong k, ulong n, int aligned, const private T *x, T prefix,
                    int exclusive)
{
    T y[CLR_VEC];
    T run = prefix;
#pragma unroll
    for (uint j = 0; j < CLR_VEC; j++) {
        T next = clr_op(run, x[j]);
        y[j] = exclusive ? run : next;
        run = next;
    }
    if (k + CLR_VEC <= n) {
        if (aligned)
            *(global VT *)(out + k) = CLR_VLOAD(0, y);
        else
            CLR_VSTORE(CLR_VLOAD(0, y), 0, out + k);
    } else {
#pragma unroll
        for (uint j = 0; j < CLR_VEC; j++)
            if (k + j < n)
                out[k + j] = y[j];
    }
}

/* ---- short rows: teams ------------------------------------------------------- */

#if CLR_HAS_SUBGROUPS
/* One row by the calling sub-group, in blocks of a vector per lane, the
 * lanes' totals scanned by shuffles. Every lane calls it with the same row. */
void clr_scan_row_subgroup(global const T *in, global T *out, ulong n, int exclusive)
{
    uint lane = clr_sg_lane(), last = clr_sg_size() - 1;
    ulong block = (ulong)clr_sg_size() * CLR_VEC;
    int aligned = clr_rows_aligned(in, out);
    T carry = CLR_IDENTITY;
    for (ulong base = 0; base < n; base += block) {
        ulong k = base + (ulong)lane * CLR_VEC;
        T x[CLR_VEC];
        T s = clr_rows_load(in, k, n, aligned, x);
        T e = clr_sg_scan_exclusive(s);
        T total = clr_sg_broadcast(clr_op(e, s), last);
        clr_rows_store(out, k, n, aligned, x, clr_op(carry, e), exclusive);
        carry = clr_op(carry, total);
    }
}
#endif

/* The exclusive prefix of v over its team of `size` work-items, and in
 * *total the team's total. Called by every work-item of the work-group with
 * the same size; l holds 2 * CLR_WG elements. */
T clr_team_scan_exclusive(local T *l, T v, uint size, T *total)
{
    if (size == 1) {
        *total = v;
        return CLR_IDENTITY;
    }
    /* l may still be read by the previous call. */
    barrier(CLK_LOCAL_MEM_FENCE);
    uint src, lid = (uint)get_local_id(0);
    uint lane = lid & (size - 1);
    clr_team_scan_hs(l, v, size, &src);
    *total = l[src * CLR_WG + (lid | (size - 1))];
    /* Every work-item reads (lane 0 its own value, unused): PoCL 3.1 gave
     * the identity to every lane when the read was inside the branch. */
    T before = l[src * CLR_WG + lid - (lane ? 1 : 0)];
    return lane ? before : CLR_IDENTITY;
}

CLR_KERNEL clr_scan_rows_team(global const T *in, ulong in_off, ulong rows, ulong len,
                              ulong pitch, global T *out, ulong out_off, ulong out_pitch,
                              uint team, uint per_group, int exclusive)
{
    local T l[2 * CLR_WG];
    ulong first = (ulong)get_group_id(0) * per_group;
#if CLR_HAS_SUBGROUPS
    if (team == CLR_TEAM_SUBGROUP) {
        /* Sub-groups take the work-group's rows in turn; every condition
         * here is the same for a whole sub-group. */
        for (uint j = clr_sg_id(); j < per_group; j += clr_sg_count()) {
            ulong row = first + j;
            if (row >= rows)
                break;
            clr_scan_row_subgroup(in + in_off + row * pitch, out + out_off + row * out_pitch,
                                  len, exclusive);
        }
        return;
    }
#endif
    uint lid = (uint)get_local_id(0), lane = lid & (team - 1);
    ulong row = first + lid / team;
    /* A team past the last row scans nothing, but takes its part in every
     * barrier: all teams walk the same blocks. */
    ulong n = row < rows ? len : 0;
    global const T *src = in + in_off + (n ? row * pitch : 0);
    global T *dst = out + out_off + (n ? row * out_pitch : 0);
    int aligned = clr_rows_aligned(src, dst);
    ulong block = (ulong)team * CLR_VEC;
    T carry = CLR_IDENTITY;
    for (ulong base = 0; base < len; base += block) {
        ulong k = base + (ulong)lane * CLR_VEC;
        T x[CLR_VEC], total;
        T s = clr_rows_load(src, k, n, aligned, x);
        T e = clr_team_scan_exclusive(l, s, team, &total);
        clr_rows_store(dst, k, n, aligned, x, clr_op(carry, e), exclusive);
        carry = clr_op(carry, total);
    }
}

/* ---- longer rows: tiles ------------------------------------------------------ */

CLR_KERNEL clr_scan_rows_tiles(global const T *in, ulong in_off, ulong len, ulong pitch,
                               global T *out, ulong out_off, ulong out_pitch, ulong parts,
                               ulong per_part, global const T *partials, int exclusive)
{
    local T l[2 * CLR_WG + 1];
    ulong g = (ulong)get_group_id(0), row = g / parts;
    ulong first = (g - row * parts) * per_part;
    T prefix = parts > 1 ? partials[g] : CLR_IDENTITY;
    clr_tile_run_scan(l, in + in_off + row * pitch, out + out_off + row * out_pitch, len, first,
                      first + per_part, prefix, exclusive);
}

CLR_KERNEL clr_scan_rows_reduce(global const T *in, ulong in_off, ulong len, ulong pitch,
                                ulong parts, ulong per_part, global T *partials)
{
    local T l[CLR_WG];
    ulong g = (ulong)get_group_id(0), row = g / parts;
    ulong first = (g - row * parts) * per_part;
    T total = clr_tile_run_total(l, in + in_off + row * pitch, len, first, first + per_part);
    if (clr_wg_is_leader())
        partials[g] = total;
}

CLR_KERNEL clr_scan_rows_spine(global T *partials, ulong parts)
{
    local T l[2 * CLR_WG];
    clr_wg_scan_exclusive_array(l, partials + (ulong)get_group_id(0) * parts, parts);
}
