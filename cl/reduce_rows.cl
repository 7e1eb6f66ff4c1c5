/*
 * reduce_rows.cl — one reduction per row of a pitched matrix.
 *
 * Compile-time parameters: those of types.cl, subgroup.cl,
 * workgroup_reduce.cl and team.cl.
 *
 * Kernel clr_reduce_rows(in, in_off, items, len, pitch, parts, chunk, out,
 * out_off, team, per_group): item i (of `items`) is part i % parts of row
 * i / parts: elements [p * chunk, min(len, (p + 1) * chunk)) of the row that
 * starts at in[in_off + (i / parts) * pitch]; its reduction goes to
 * out[out_off + i]. With parts 1 an item is a whole row; with more, the host
 * runs the kernel again over the rows of partial results (parts elements
 * each), so that a few long rows still fill the device. Each work-group
 * takes per_group items in a row, one per team: `team` work-items each
 * (team.cl), or one sub-group each when team is CLR_TEAM_SUBGROUP. Offsets
 * and counts are 64-bit.
 *
 * For the operators of operators.cl (CLR_OP past CLR_OP_MAX; teams of
 * work-items only, no sub-groups) the kernel has the same arguments and
 * shape, and in2 and in2_off last (team.cl's CLR_TEAM_IN2_PARAMS: dot's
 * second input, laid out as the first), with out a byte buffer: with parts
 * 1, item i's result (CLR_RESULT_SIZE bytes, element indices counted from
 * the start of its row) is stored at result out_off + i; with more, its
 * accumulator at clr_a out_off + i. Then
 *   clr_reduce_rows_finish(partials, rows, parts, out, out_off, team,
 *                          per_group)
 * combines each row's `parts` accumulators in order and stores the row's
 * result at result out_off + row.
 */

#if CLR_OP <= CLR_OP_MAX

CLR_KERNEL clr_reduce_rows(global const T *restrict in, ulong in_off, ulong items, ulong len,
                           ulong pitch, ulong parts, ulong chunk, global T *restrict out,
                           ulong out_off, uint team, uint per_group)
{
    local T l[CLR_WG];
    ulong first = (ulong)get_group_id(0) * per_group;
#if CLR_HAS_SUBGROUPS
    if (team == CLR_TEAM_SUBGROUP) {
        /* Sub-groups take the work-group's items in turn; every condition
         * here is the same for a whole sub-group. */
        for (uint j = clr_sg_id(); j < per_group; j += clr_sg_count()) {
            ulong item = first + j;
            if (item >= items)
                break;
            ulong row = item / parts, part = item - row * parts;
            ulong start = part * chunk;
            ulong n = min(chunk, len - start);
            T v = clr_team_range(in + in_off + row * pitch + start, n, clr_sg_lane(),
                                 clr_sg_size());
            v = clr_sg_reduce(v);
            if (clr_sg_lane() == 0)
                out[out_off + item] = v;
        }
        return;
    }
#endif
    uint lid = (uint)get_local_id(0);
    ulong item = first + lid / team;
    T v = CLR_IDENTITY;
    if (item < items) {
        ulong row = item / parts, part = item - row * parts;
        ulong start = part * chunk;
        ulong n = min(chunk, len - start);
        v = clr_team_range(in + in_off + row * pitch + start, n, lid & (team - 1), team);
    }
    v = clr_team_reduce(l, v, team);
    if (item < items && clr_team_is_leader(team))
        out[out_off + item] = v;
}

#else /* the operators of operators.cl */

CLR_KERNEL clr_reduce_rows(global const T *restrict in, ulong in_off, ulong items, ulong len,
                           ulong pitch, ulong parts, ulong chunk, global uchar *restrict out,
                           ulong out_off, uint team, uint per_group CLR_TEAM_IN2_PARAMS)
{
    local clr_a l[CLR_WG];
    uint lid = (uint)get_local_id(0);
    ulong item = (ulong)get_group_id(0) * per_group + lid / team;
    clr_a v = clr_a_identity();
    if (item < items) {
        ulong row = item / parts, part = item - row * parts;
        ulong start = part * chunk;
        ulong n = min(chunk, len - start);
        v = clr_team_range_a(CLR_TEAM_INPUTS(row * pitch + start), n, start, lid & (team - 1),
                             team);
    }
    v = clr_team_reduce_a(l, v, team);
    if (item < items && clr_team_is_leader(team)) {
        if (parts > 1)
            ((global clr_a *)out)[out_off + item] = v;
        else
            clr_a_store(out + (out_off + item) * CLR_RESULT_SIZE, v);
    }
}

CLR_KERNEL clr_reduce_rows_finish(global const clr_a *restrict partials, ulong rows,
                                  ulong parts, global uchar *restrict out, ulong out_off,
                                  uint team, uint per_group)
{
    local clr_a l[CLR_WG];
    uint lid = (uint)get_local_id(0);
    ulong row = (ulong)get_group_id(0) * per_group + lid / team;
    clr_a v = clr_a_identity();
    if (row < rows)
        v = clr_team_accumulators(partials + row * parts, parts, lid & (team - 1), team);
    v = clr_team_reduce_a(l, v, team);
    if (row < rows && clr_team_is_leader(team))
        clr_a_store(out + (out_off + row) * CLR_RESULT_SIZE, v);
}

#endif
