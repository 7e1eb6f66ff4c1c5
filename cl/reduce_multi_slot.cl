/*
 * reduce_multi_slot.cl — one operator of a reduction of several operators
 * over one input (reduce_multi.cl), included once per operator after that
 * operator's inclusion of operators.cl and grid_accumulators.cl. It gives
 * the kernels one interface to every operator, whose names the inclusion
 * renames by CLR_X_SLOT as operators.cl's are:
 *
 *   clr_m_v                  what a work-item keeps while it walks its vectors
 *   clr_m_a                  what work-items and work-groups combine
 *   clr_m_init(first)        before the walk (first: its first vector)
 *   clr_m_add(acc, x, tag)   vector x, the tag-th of the walk
 *   clr_m_item(acc, any, in, n, share)
 *                            the work-item's share of in[0 .. n) after its
 *                            walk of `share`, the last n % CLR_VEC elements
 *                            included
 *   clr_m_group(l, v)        the work-group's combination of v (l: local
 *                            room for CLR_WG accumulators of 32 bytes, free
 *                            once every work-item has called), valid where
 *                            clr_m_leader()
 *   clr_m_last(l, partials, count)  (single pass) the last work-group's
 *                            combination of the work-groups' partials
 *   clr_m_finish(l, partials, count) (grid stride) the second launch's
 *   clr_m_team_item(&r, &acc, any, in, n, base, lane, size)
 *                            (rows) r = lane's share of in[0 .. n) after
 *                            its walk of vectors lane, lane + size, ...
 *                            (tags t * CLR_UNROLL), the last n % CLR_VEC
 *                            elements included, element indices counted
 *                            from base (through pointers, not by value:
 *                            Oclgrind cannot run the scope declarations
 *                            LLVM adds where it inlines a returned or
 *                            passed structure)
 *   clr_m_team(l, &r, size)  (rows) r = the combination of r over each
 *                            team of `size` work-items, valid in its lane 0
 *                            (l as for clr_m_group)
 *   clr_m_team_partials(&r, partials, n, lane, size)
 *                            (segments) r = lane's share of n partials
 *                            (clr_m_put's): lane, lane + size, ...
 *   clr_m_join(&r, &before)  (segments) r = the combination of before, then r
 *   clr_m_twin(&r, &src)     r = src, the value of a twin (multi_walk.cl)
 *   clr_m_put(partials, group, v), clr_m_store(out, v)
 *                            a partial, and the result in the layout of
 *                            clreduce.h
 *
 * Each takes the same steps, in the same order, as the operator's own
 * reduction, so that both give the same bits: operators.cl's accumulators
 * as reduce_operators.cl combines them, and for a floating-point sum (whose
 * result depends on the order of its additions) types.cl's sum as
 * reduce_grid.cl combines it, through the sub-group and work-group layers.
 * The host compiles those layers for the sum (the program's own CLR_OP)
 * where CLR_M_SUM_LAYER is 1.
 *
 * Compile-time parameters: those of types.cl, operators.cl, grid_walk.cl,
 * CLR_VARIANT and CLR_M_SUM_LAYER.
 */

#define clr_m_v CLR_X_SLOT(clr_m_v)
#define clr_m_a CLR_X_SLOT(clr_m_a)
#define clr_m_init CLR_X_SLOT(clr_m_init)
#define clr_m_add CLR_X_SLOT(clr_m_add)
#define clr_m_item CLR_X_SLOT(clr_m_item)
#define clr_m_leader CLR_X_SLOT(clr_m_leader)
#define clr_m_group CLR_X_SLOT(clr_m_group)
#define clr_m_last CLR_X_SLOT(clr_m_last)
#define clr_m_finish CLR_X_SLOT(clr_m_finish)
#define clr_m_put CLR_X_SLOT(clr_m_put)
#define clr_m_store CLR_X_SLOT(clr_m_store)
#define clr_m_team_item CLR_X_SLOT(clr_m_team_item)
#define clr_m_team CLR_X_SLOT(clr_m_team)
#define clr_m_team_partials CLR_X_SLOT(clr_m_team_partials)
#define clr_m_join CLR_X_SLOT(clr_m_join)
#define clr_m_twin CLR_X_SLOT(clr_m_twin)
#define clr_m_shfl_down CLR_X_SLOT(clr_m_shfl_down)
#define clr_m_fits_32_bytes CLR_X_SLOT(clr_m_fits_32_bytes)
#define clr_m_whole_words CLR_X_SLOT(clr_m_whole_words)

/* The body of clr_m_team: the combination of *r (of type A, by COMBINE)
 * over each team of `size` work-items, valid in the team's lane 0, as a
 * fixed tree whose node at lane i combines it with lane i + s, s from
 * size / 2 down to 1. On NVIDIA (CLR_SG_PATH NV_PTX) the steps within a
 * warp are shuffles, and a team of several warps then combines its warps'
 * values in order through local memory; elsewhere every step goes through
 * local memory, the loop running as many times whatever the size, as
 * workgroup_reduce.cl's trees do (PoCL took 17% longer to compile a
 * program of four operators with a loop of `size` steps). l may still be
 * read by the previous operator when it starts. Defined once for every
 * inclusion. */
#ifndef CLR_M_TEAM_TREE
#if CLR_SG_PATH == CLR_SG_NV_PTX
#define CLR_M_TEAM_TREE(A, COMBINE, SHFL_DOWN)                                 \
    A v = *r;                                                                  \
    for (uint s = min(size, (uint)CLR_WARP) / 2; s > 0; s >>= 1)               \
        v = COMBINE(v, SHFL_DOWN(v, s));                                       \
    if (size <= CLR_WARP) {                                                    \
        *r = v;                                                                \
        return;                                                                \
    }                                                                          \
    local A *t = (local A *)l;                                                 \
    uint lid = (uint)get_local_id(0);                                          \
    barrier(CLK_LOCAL_MEM_FENCE);                                              \
    if ((lid & (CLR_WARP - 1)) == 0)                                           \
        t[lid / CLR_WARP] = v;                                                 \
    barrier(CLK_LOCAL_MEM_FENCE);                                              \
    if ((lid & (size - 1)) == 0)                                               \
        for (uint w = 1; w < size / CLR_WARP; w++)                             \
            v = COMBINE(v, t[lid / CLR_WARP + w]);                             \
    *r = v;
#else
#define CLR_M_TEAM_TREE(A, COMBINE, SHFL_DOWN)                                 \
    local A *t = (local A *)l;                                                 \
    uint lid = (uint)get_local_id(0);                                          \
    barrier(CLK_LOCAL_MEM_FENCE);                                              \
    t[lid] = *r;                                                               \
    barrier(CLK_LOCAL_MEM_FENCE);                                              \
    for (uint s = CLR_WG / 2; s > 0; s >>= 1) {                                \
        if (s < size && (lid & (size - 1)) < s)                                \
            t[lid] = COMBINE(t[lid], t[lid + s]);                              \
        barrier(CLK_LOCAL_MEM_FENCE);                                          \
    }                                                                          \
    *r = t[lid];
#endif
#endif

#if CLR_OP == CLR_OP_SUM && CLR_M_SUM_LAYER

/* A floating-point sum: reduce_grid.cl's order. */
typedef clr_acc clr_m_v;
typedef T clr_m_a;

clr_m_v clr_m_init(VT first) { return clr_acc_init(); }
clr_m_v clr_m_add(clr_m_v acc, VT x, ulong tag) { return clr_acc_add(acc, x); }

clr_m_a clr_m_item(clr_m_v acc, int any, global const T *restrict in, ulong n, clr_share share)
{
    T s = CLR_IDENTITY;
#if CLR_VEC > 1
    ulong tail = n / CLR_VEC * CLR_VEC, gid = clr_grid_id();
    if (gid < n - tail)
        s = in[tail + gid];
#endif
    return clr_op(s, clr_acc_result(acc));
}

int clr_m_leader(void) { return clr_wg_is_leader(); }

clr_m_a clr_m_group(local ulong *l, clr_m_a v)
{
    barrier(CLK_LOCAL_MEM_FENCE); /* l may still be read by the previous operator */
    return clr_wg_reduce((local T *)l, v);
}

#if CLR_GRID_PER_GROUP
/* As team.cl's clr_team_range and clr_team_reduce. */
void clr_m_team_item(clr_m_a *r, const clr_m_v *acc, int any, global const T *in, ulong n,
                     ulong base, uint lane, uint size)
{
    T s = CLR_IDENTITY;
#if CLR_VEC > 1
    for (ulong i = n / CLR_VEC * CLR_VEC + lane; i < n; i += size)
        s = clr_op(s, in[i]);
#endif
    *r = clr_op(s, clr_acc_result(*acc));
}

void clr_m_team(local ulong *l, clr_m_a *r, uint size)
{
    CLR_M_TEAM_TREE(T, clr_op, clr_shfl_down)
}

void clr_m_team_partials(clr_m_a *r, global const uchar *partials, ulong n, uint lane, uint size)
{
    global const T *p = (global const T *)partials;
    T v = CLR_IDENTITY;
    for (ulong i = lane; i < n; i += size)
        v = clr_op(v, p[i]);
    *r = v;
}

void clr_m_join(clr_m_a *r, const clr_m_a *before) { *r = clr_op(*before, *r); }
#endif

#if CLR_VARIANT == CLR_REDUCE_SINGLE_PASS
clr_m_a clr_m_last(local ulong *l, volatile global uchar *partials, uint count)
{
    volatile global T *p = (volatile global T *)partials;
    T v = CLR_IDENTITY;
    for (uint k = (uint)get_local_id(0); k < count; k += CLR_WG)
        v = clr_op(v, p[k]);
    return clr_m_group(l, v);
}
#else
/* reduce_grid.cl's second launch: its walk over the partials as elements. */
#define CLR_M_ADD_SUM(x, y, t, k) acc = clr_acc_add(acc, (x));

clr_m_a clr_m_finish(local ulong *l, global const uchar *partials, ulong count)
{
    global const T *in = (global const T *)partials;
    clr_share share = clr_grid_share(count / CLR_VEC);
    clr_m_v acc = clr_acc_init();
    CLR_WALK_ALL(CLR_M_ADD_SUM, share)
    return clr_m_group(l, clr_m_item(acc, 1, in, count, share));
}
#endif

void clr_m_put(volatile global uchar *partials, uint group, clr_m_a v)
{
    ((volatile global T *)partials)[group] = v;
}

void clr_m_store(global uchar *out, clr_m_a v) { *(global T *)out = v; }

#else

/* operators.cl's accumulators (integer sums too: their bits do not depend
 * on the order of additions), as reduce_operators.cl combines them. */
typedef clr_v clr_m_v;
typedef clr_a clr_m_a;

clr_m_v clr_m_init(VT first) { return clr_v_init(first); }
clr_m_v clr_m_add(clr_m_v acc, VT x, ulong tag) { return clr_v_add(acc, x, (VT)0, tag); }

clr_m_a clr_m_item(clr_m_v acc, int any, global const T *restrict in, ulong n, clr_share share)
{
    return clr_a_combine(clr_item_result(acc, any, in, in, share), clr_item_tail(in, in, n));
}

int clr_m_leader(void) { return get_local_id(0) == 0; }

clr_m_a clr_m_group(local ulong *l, clr_m_a v)
{
    barrier(CLK_LOCAL_MEM_FENCE); /* l may still be read by the previous operator */
    return clr_wg_reduce_a((local clr_a *)l, v);
}

#if CLR_GRID_PER_GROUP
/* As team.cl's clr_team_range_a and clr_team_reduce_a. */
void clr_m_team_item(clr_m_a *r, const clr_m_v *acc, int any, global const T *in, ulong n,
                     ulong base, uint lane, uint size)
{
    clr_x_team_lane(r, acc, any, in, in, n, base, lane, size);
}

#if CLR_SG_PATH == CLR_SG_NV_PTX
/* v of the lane delta lanes down, word by word. */
clr_m_a clr_m_shfl_down(clr_m_a v, uint delta)
{
    union {
        clr_m_a a;
        uint w[sizeof(clr_m_a) / 4];
    } u;
    u.a = v;
    for (uint i = 0; i < sizeof(clr_m_a) / 4; i++)
        u.w[i] = clr_shfl_down_u32(u.w[i], delta);
    return u.a;
}
#endif

void clr_m_team(local ulong *l, clr_m_a *r, uint size)
{
    CLR_M_TEAM_TREE(clr_a, clr_a_combine, clr_m_shfl_down)
}

void clr_m_team_partials(clr_m_a *r, global const uchar *partials, ulong n, uint lane, uint size)
{
    global const clr_a *p = (global const clr_a *)partials;
    clr_a v = clr_a_identity();
    for (ulong i = lane; i < n; i += size)
        v = clr_a_combine(v, p[i]);
    *r = v;
}

void clr_m_join(clr_m_a *r, const clr_m_a *before) { *r = clr_a_combine(*before, *r); }
#endif

#if CLR_VARIANT == CLR_REDUCE_SINGLE_PASS
/* (clr_combine_partials waits for l to be free before it writes there.) */
clr_m_a clr_m_last(local ulong *l, volatile global uchar *partials, uint count)
{
    return clr_combine_partials((local clr_a *)l, (volatile global clr_a *)partials, count);
}
#else
clr_m_a clr_m_finish(local ulong *l, global const uchar *partials, ulong count)
{
    return clr_combine_partials((local clr_a *)l, (volatile global clr_a *)partials, (uint)count);
}
#endif

void clr_m_put(volatile global uchar *partials, uint group, clr_m_a v)
{
    ((volatile global clr_a *)partials)[group] = v;
}

void clr_m_store(global uchar *out, clr_m_a v) { clr_a_store(out, v); }

#endif

/* A twin's value (multi_walk.cl): that of an earlier operator of the same
 * accumulator, whose own type has the same layout. */
void clr_m_twin(clr_m_a *r, const void *src) { *r = *(const clr_m_a *)src; }

/* reduce_multi.cl keeps 32 bytes (CLR_M_PARTIAL_BYTES) per accumulator in
 * local memory and per partial. */
typedef char clr_m_fits_32_bytes[sizeof(clr_m_a) <= 32 ? 1 : -1];
/* clr_m_shfl_down moves 4-byte words. */
typedef char clr_m_whole_words[sizeof(clr_m_a) % 4 == 0 ? 1 : -1];
