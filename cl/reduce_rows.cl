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

#if defined(CLR_ROWS_REPS) && CLR_SG_PATH == CLR_SG_NV_PTX
/* Lane `lane` of `size`'s share of in[0 .. n) where its vectors are one at
 * most (n <= size * CLR_VEC), with x that vector (read already, or the
 * identity): clr_team_range()'s order. */
T clr_lane_share(global const T *in, ulong n, uint lane, uint size, VT x)
{
    T s = CLR_IDENTITY;
#if CLR_VEC > 1
    for (ulong i = n / CLR_VEC * CLR_VEC + lane; i < n; i += size)
        s = clr_op(s, clr_map(in[i]));
#endif
    return clr_op(s, clr_acc_result(clr_acc_add(clr_acc_init(), clr_mapv(x))));
}

/* Teams of `team` lanes of one warp over rows of team * CLR_VEC elements or
 * fewer, CLR_ROWS_REPS rows a team, item k of a team being item first +
 * lid / team + k * (CLR_WG / team): a lane's vectors of all of them are
 * loaded before any is added, and each team reduces by shuffles, in the
 * tree of clr_team_reduce(). */
void clr_rows_by_lanes(global const T *in, ulong items, ulong len, ulong pitch, ulong first,
                       uint team, global T *out)
{
    uint lid = (uint)get_local_id(0), lane = lid & (team - 1), teams = CLR_WG / team;
    ulong nv = len / CLR_VEC;
    VT x[CLR_ROWS_REPS];
    _Pragma("unroll") for (uint k = 0; k < CLR_ROWS_REPS; k++) {
        ulong item = first + lid / team + k * (ulong)teams;
        global const T *row = in + item * pitch;
        x[k] = (VT)(CLR_IDENTITY);
        if (item < items && lane < nv) {
#if CLR_VEC > 1
            if (CLR_VEC_ALIGNED(row))
                x[k] = CLR_TEAM_LOAD_ALIGNED(row, lane);
            else
#endif
                x[k] = CLR_TEAM_LOAD(row, lane);
        }
    }
    _Pragma("unroll") for (uint k = 0; k < CLR_ROWS_REPS; k++) {
        ulong item = first + lid / team + k * (ulong)teams;
        T v = item < items ? clr_lane_share(in + item * pitch, len, lane, team, x[k])
                           : (T)(CLR_IDENTITY);
        for (uint d = team / 2; d > 0; d >>= 1)
            v = clr_op(v, clr_shfl_down(v, d));
        if (item < items && lane == 0)
            out[item] = v;
    }
}
#endif

CLR_KERNEL clr_reduce_rows(global const T *restrict in, ulong in_off, ulong items, ulong len,
                           ulong pitch, ulong parts, ulong chunk, global T *restrict out,
                           ulong out_off, uint team, uint per_group)
{
    local T l[CLR_WG];
    ulong first = (ulong)get_group_id(0) * per_group;
#if defined(CLR_ROWS_REPS) && CLR_SG_PATH == CLR_SG_NV_PTX
    if (team != CLR_TEAM_SUBGROUP && team <= CLR_WARP && parts == 1) {
        clr_rows_by_lanes(in + in_off, items, len, pitch, first, team, out + out_off);
        return;
    }
#endif
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
