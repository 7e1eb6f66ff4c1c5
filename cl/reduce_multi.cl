/*
 * reduce_multi.cl — several operators over one input in one pass: the grid
 * of reduce_operators.cl walks the input once (grid_walk.cl), and every
 * vector it loads goes to each operator's accumulator in turn; then each
 * operator is combined over the work-group and over the work-groups as its
 * own reduction would be (reduce_multi_slot.cl), so that every result has
 * the bits the operator's reduction alone gives. Kernels:
 *   clr_reduce_multi         CLR_VARIANT CLR_REDUCE_SINGLE_PASS: the last
 *                            work-group to finish combines the partials and
 *                            stores the results; CLR_REDUCE_GRID_STRIDE: the
 *                            partials of each work-group (the results
 *                            themselves when there is one work-group), then
 *   clr_reduce_multi_finish  one work-group over those partials.
 *
 * Compile-time parameters (besides those of the layers below):
 *   CLR_M_COUNT  operators, 1 to 10; the program holds CLR_M_COUNT inclusions
 *                of operators.cl, team_lane.cl, grid_accumulators.cl
 *                and reduce_multi_slot.cl, the k-th (from 0) with CLR_OP set to
 *                CLR_M_OP<k> and its names ending in _<k>, then
 *                multi_walk.cl and this file.
 *   CLR_VARIANT  as in reduce_operators.cl.
 *
 * clr_reduce_multi(in, in_off, n, out, at, ticket, partials) reduces
 * in[in_off .. in_off + n) with every operator, operator k's result stored
 * at byte at.at[k] of out. ticket (single pass): a uint at byte 0, zero
 * between launches. partials: CLR_M_PARTIAL_BYTES per operator and
 * work-group, operator k's from byte k * groups * CLR_M_PARTIAL_BYTES.
 * clr_reduce_multi_finish(partials, groups, out, at). Offsets and counts are
 * 64-bit.
 *
 * With CLR_GRID_PER_GROUP=1 (grid_walk.cl) the program holds instead
 *   clr_reduce_rows_multi(in, in_off, items, len, pitch, parts, chunk, out,
 *                         at, partials, team, per_group)
 * for the rows of `len` elements, row r starting at in[in_off + r * pitch]:
 * item i is part i % parts of row i / parts, its elements [p * chunk,
 * min(len, (p + 1) * chunk)) (chunk a multiple of CLR_VEC), reduced by a
 * team of `team` work-items, per_group items a work-group (team.cl's
 * shape: a lane walks vectors lane, lane + team, ...). With parts 1, row
 * r's result of operator k goes to byte at.at[k] + r * at.record of out;
 * with more, item i's partial of operator k to partials as the grid's
 * partial of work-group i (CLR_M_PARTIALS(k, items)), and then
 *   clr_reduce_rows_multi_finish(partials, rows, parts, out, at)
 * combines each row's partials in order into its results.
 */

/* The work-group's value of operator k, in r<k> (valid in its leader). */
#define CLR_M_GROUP(k)                                                         \
    if (CLR_M_IS_TWIN(k)) {                                                    \
        CLR_M_TAKE_TWIN(k)                                                     \
    } else {                                                                   \
        r##k = CLR_M(clr_m_group, k)(l, CLR_M(clr_m_item, k)(acc##k, any, in, n, share)); \
    }

/* The walk over this work-item's share of in[0 .. n), every operator fed
 * from each vector, then each operator's work-group value r<k>: the start
 * of either variant's kernel. */
#define CLR_M_WALK_AND_GROUP CLR_M_WALK_AND_GROUP_FROM(0)

/* The same over in[from * CLR_VEC .. n) (elements before it count in the
 * indices of argmin and argmax). */
#define CLR_M_WALK_AND_GROUP_FROM(from)                                        \
    clr_share share = clr_grid_share(n / CLR_VEC);                             \
    share.first += (from);                                                     \
    int any = share.first < share.end;                                         \
    VT first_vector = any ? CLR_LOAD_ANY(in, share.first) : (VT)0;             \
    CLR_M_EACH(CLR_M_START)                                                    \
    CLR_WALK_ALL(CLR_M_ADD_ALL, share)                                         \
    CLR_M_EACH(CLR_M_DECLARE)                                                  \
    CLR_M_EACH(CLR_M_GROUP)

/* Operator k's result from the partials of `groups` work-groups, combined
 * by FN (clr_m_last or clr_m_finish, pasted as CLR_M does: those names are
 * also macros) and stored by its leader. */
#define CLR_M_RESULT(k, FN)                                                    \
    {                                                                          \
        CLR_M(clr_m_a, k) v = FN##_##k(l, CLR_M_PARTIALS(k, groups), groups);   \
        if (CLR_M(clr_m_leader, k)())                                          \
            CLR_M(clr_m_store, k)(out + at.at[k], v);                          \
    }

#if CLR_GRID_PER_GROUP

#define CLR_M_STORE_ROW(k, v)                                                  \
    if (CLR_M(clr_m_leader, k)())                                              \
        CLR_M(clr_m_store, k)(out + at.at[k] + row * at.record, v);

/* Lane 0 stores an item's value of operator k: a row's result, or a part's
 * partial. */
#define CLR_M_STORE_ITEM(k)                                                    \
    if (parts == 1)                                                            \
        CLR_M(clr_m_store, k)(out + at.at[k] + row * at.record, r##k);         \
    else                                                                       \
        CLR_M(clr_m_put, k)(CLR_M_PARTIALS(k, items), (uint)item, r##k);

/* Each work-group takes per_group items, one per team of `team`
 * work-items (a power of two up to CLR_WG; team.cl's shape); every
 * work-item takes part in each operator's combination over the teams. */
CLR_KERNEL clr_reduce_rows_multi(global const T *restrict input, ulong in_off, ulong items,
                                 ulong len, ulong pitch, ulong parts, ulong chunk,
                                 global uchar *restrict out, clr_m_offsets at,
                                 global uchar *partials, uint team, uint per_group)
{
    local ulong l[CLR_WG * CLR_M_PARTIAL_BYTES / 8];
    uint lid = (uint)get_local_id(0), lane = lid & (team - 1);
    ulong item = (ulong)get_group_id(0) * per_group + lid / team;
    ulong row = 0, start = 0, n = 0;
    if (item < items) {
        row = item / parts;
        start = (item - row * parts) * chunk;
        n = min(chunk, len - start);
    }
    global const T *restrict in = input + in_off + row * pitch + start;
    CLR_M_TEAM_RANGE
    if (item < items && lane == 0) {
        CLR_M_EACH(CLR_M_STORE_ITEM)
    }
}

/* Row `row`'s partials of operator k: the slice of its parts among the
 * items'. */
#define CLR_M_FINISH_ROW(k)                                                    \
    {                                                                          \
        CLR_M(clr_m_a, k) v = CLR_M(clr_m_finish, k)(                          \
            l, CLR_M_PARTIALS(k, items) + row * parts * sizeof(CLR_M(clr_m_a, k)), parts); \
        CLR_M_STORE_ROW(k, v)                                                  \
    }

CLR_KERNEL clr_reduce_rows_multi_finish(global uchar *partials, ulong rows, ulong parts,
                                        global uchar *restrict out, clr_m_offsets at)
{
    local ulong l[CLR_WG * CLR_M_PARTIAL_BYTES / 8];
    ulong items = rows * parts;
    for (ulong row = get_group_id(0); row < rows; row += get_num_groups(0)) {
        CLR_M_EACH(CLR_M_FINISH_ROW)
    }
}

#elif CLR_VARIANT == CLR_REDUCE_SINGLE_PASS

/* Each operator's leader publishes the work-group's partial; then one
 * work-item takes a ticket (reduce_grid.cl's single pass says why no
 * work-group waits for another). */
#define CLR_M_PUBLISH(k)                                                       \
    if (CLR_M(clr_m_leader, k)()) {                                            \
        CLR_M(clr_m_put, k)(CLR_M_PARTIALS(k, groups), get_group_id(0), r##k); \
        clr_fence_device();                                                    \
    }
#define CLR_M_LAST(k) CLR_M_RESULT(k, clr_m_last)

CLR_KERNEL clr_reduce_multi(global const T *restrict input, ulong in_off, ulong n,
                            global uchar *restrict out, clr_m_offsets at, global uchar *scratch,
                            global uchar *partials)
{
    local ulong l[CLR_WG * CLR_M_PARTIAL_BYTES / 8];
    local int is_last;
    volatile global uint *ticket = (volatile global uint *)scratch;
    uint groups = (uint)get_num_groups(0);
    global const T *restrict in = input + in_off;

    CLR_M_WALK_AND_GROUP
    CLR_M_EACH(CLR_M_PUBLISH)
    /* The global fence too: a leader's partial may be read below by another
     * work-item of this work-group. */
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        clr_fence_device();
        is_last = atomic_inc(ticket) == groups - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (is_last) {
        clr_fence_device();
        CLR_M_EACH(CLR_M_LAST)
        if (get_local_id(0) == 0)
            atomic_xchg(ticket, 0); /* every other access to it is atomic */
    }
}

#elif CLR_VARIANT == CLR_REDUCE_GRID_STRIDE

#define CLR_M_PUBLISH(k)                                                       \
    if (CLR_M(clr_m_leader, k)()) {                                            \
        if (groups == 1)                                                       \
            CLR_M(clr_m_store, k)(out + at.at[k], r##k);                       \
        else                                                                   \
            CLR_M(clr_m_put, k)(CLR_M_PARTIALS(k, groups), get_group_id(0), r##k); \
    }
#define CLR_M_FINISH(k) CLR_M_RESULT(k, clr_m_finish)

CLR_KERNEL clr_reduce_multi(global const T *restrict input, ulong in_off, ulong n,
                            global uchar *restrict out, clr_m_offsets at, global uchar *scratch,
                            global uchar *partials)
{
    local ulong l[CLR_WG * CLR_M_PARTIAL_BYTES / 8];
    uint groups = (uint)get_num_groups(0);
    global const T *restrict in = input + in_off;

    CLR_M_WALK_AND_GROUP
    CLR_M_EACH(CLR_M_PUBLISH)
}

CLR_KERNEL clr_reduce_multi_finish(global uchar *partials, ulong groups,
                                   global uchar *restrict out, clr_m_offsets at)
{
    local ulong l[CLR_WG * CLR_M_PARTIAL_BYTES / 8];
    CLR_M_EACH(CLR_M_FINISH)
}

#endif /* CLR_VARIANT */
