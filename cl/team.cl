/*
 * team.cl — teams of work-items that reduce one range of global memory
 * together: the layer under the rows and segments kernels.
 *
 * A team is either `size` consecutive work-items of the work-group (size a
 * power of two from 1 to CLR_WG, the same for the whole work-group, which
 * then holds CLR_WG / size teams), reducing through local memory, or one
 * sub-group, reducing by shuffles (subgroup.cl).
 *
 * Compile-time parameters: those of types.cl, subgroup.cl and
 * workgroup_reduce.cl; for the operators of operators.cl (CLR_OP past
 * CLR_OP_MAX), those of types.cl and operators.cl only; CLR_TEAM_ANY_ALIGNMENT
 * (1: one walk by vloadN, below) or CLR_TEAM_PEEL (1: the head of a range
 * element by element, then one walk by aligned loads, below).
 *
 * Provides, for sum, min and max:
 *   clr_team_range(in, n, lane, size)  lane's share of in[0 .. n): vectors
 *                  lane, lane + size, ... (vloadN, any alignment), the last
 *                  n % CLR_VEC elements in the same turns; the combination order
 *                  depends only on n, size and CLR_VEC.
 *   clr_team_reduce(l, v, size)  the reduction of v over each team of `size`
 *                  work-items, valid where clr_team_is_leader(size); called
 *                  by every work-item of the work-group, l of CLR_WG
 *                  elements (reusable right after the call).
 * and for the operators of operators.cl:
 *   clr_team_range_a(CLR_TEAM_INPUTS(at), n, base, lane, size)  the same
 *                  share as an accumulator of the n elements from element
 *                  `at` of the kernel's input, element indices counted from
 *                  base;
 *   clr_team_accumulators(a, n, lane, size)  lane's share of n accumulators;
 *   clr_team_reduce_a(l, a, size)  clr_team_reduce over accumulators.
 * A kernel that calls clr_team_range_a takes its input as `in` and `in_off`
 * and, as its last parameters (CLR_TEAM_IN2_PARAMS), a second input `in2`
 * and `in2_off`, laid out as the first: that of dot or of a user-defined
 * operator of two inputs, else the first again, unread (CLR_TEAM_INPUTS
 * reads both; `at`, a sum of products, is pasted as it is, so that the
 * address arithmetic stays as it was). Where the operator does not commute
 * (CLR_ORDERED), a lane's share is a contiguous run of elements (or
 * accumulators) instead, and teams combine their lanes in order.
 */

#if CLR_VEC > 1
#define CLR_TEAM_LOAD(in, k) CLR_CAT(vload, CLR_VEC)((k), (in))
#else
#define CLR_TEAM_LOAD(in, k) (in)[k]
#endif
#define CLR_TEAM_LOAD_ALIGNED(in, k) clr_load_vec((global const VT *)(in) + (k))

/* Vector k of the second input where the operator has one (dot, a
 * user-defined operator of two), read by LOAD(in2, k) as the first input's
 * are; else nothing to read. */
#if defined(CLR_X_TWO_INPUTS) && CLR_X_TWO_INPUTS
#define CLR_TEAM_SECOND(LOAD, k) LOAD(in2, k)
#define CLR_TEAM_ALIGNED (CLR_VEC_ALIGNED(in) && CLR_VEC_ALIGNED(in2))
#else
#define CLR_TEAM_SECOND(LOAD, k) ((VT)0)
#define CLR_TEAM_ALIGNED CLR_VEC_ALIGNED(in)
#endif

/* A lane's vectors k = lane, lane + size, ... below nv, each read by
 * LOAD(in, k) (and LOAD(in2, k)) and passed to ADD(x, y, t), t counting
 * them from 0: CLR_UNROLL loads in flight, then their adds in order, so
 * that the result is that of a plain loop. Where the range (of both
 * inputs) starts on a vector boundary the vectors are read with aligned
 * loads (types.cl), else with vloadN: the same values either way, but
 * NVIDIA's compiler splits a vloadN into scalar loads (H200, dot products
 * of rows of 32 floats, y by vloadN: 1312 us for 2^28 elements). With
 * CLR_TEAM_ANY_ALIGNMENT 1, for ranges that seldom start on a boundary,
 * the vloadN walk alone: both walks in one kernel cost an operator's
 * kernels over segments more than the aligned loads gained (H100, argmax
 * of segments of 1-1000: 0.74-0.80x the time without the aligned walk,
 * bench/results/h100-2026-12-06-i.md). */
#define CLR_TEAM_WALK_WITH(LOAD, ADD)                                          \
    {                                                                          \
        ulong i_ = lane;                                                       \
        uint t_ = 0;                                                           \
        for (; i_ + (CLR_UNROLL - 1) * (ulong)size < nv;                       \
             i_ += CLR_UNROLL * (ulong)size, t_ += CLR_UNROLL) {               \
            VT x_[CLR_UNROLL], y_[CLR_UNROLL];                                 \
            _Pragma("unroll") for (uint u_ = 0; u_ < CLR_UNROLL; u_++) {       \
                x_[u_] = LOAD(in, i_ + u_ * (ulong)size);                      \
                y_[u_] = CLR_TEAM_SECOND(LOAD, i_ + u_ * (ulong)size);         \
            }                                                                  \
            _Pragma("unroll") for (uint u_ = 0; u_ < CLR_UNROLL; u_++)         \
                ADD(x_[u_], y_[u_], t_ + u_);                                  \
        }                                                                      \
        for (; i_ < nv; i_ += size, t_++)                                      \
            ADD(LOAD(in, i_), CLR_TEAM_SECOND(LOAD, i_), t_);                  \
    }
#ifndef CLR_TEAM_ANY_ALIGNMENT
#define CLR_TEAM_ANY_ALIGNMENT 0
#endif
#if CLR_VEC > 1 && !CLR_TEAM_ANY_ALIGNMENT
#define CLR_TEAM_WALK(ADD)                                                     \
    if (CLR_TEAM_ALIGNED)                                                      \
        CLR_TEAM_WALK_WITH(CLR_TEAM_LOAD_ALIGNED, ADD)                         \
    else                                                                       \
        CLR_TEAM_WALK_WITH(CLR_TEAM_LOAD, ADD)
#else
#define CLR_TEAM_WALK(ADD) CLR_TEAM_WALK_WITH(CLR_TEAM_LOAD, ADD)
#endif

/* CLR_TEAM_PEEL 1: clr_team_range_a takes a range's first elements, up to
 * its first vector boundary, one at a time (a lane each), then walks the
 * rest by aligned loads alone: one walk that reads whole vectors wherever a
 * range starts. Where the head ends depends on the range's address, so it
 * suits only operators of one input whose results do not depend on the
 * order of combination: the host asks for it for minmax (src/segment_layouts.c),
 * and for argmin and argmax under a tests' switch. */
#ifndef CLR_TEAM_PEEL
#define CLR_TEAM_PEEL 0
#endif
#if CLR_TEAM_PEEL && defined(CLR_X_TWO_INPUTS) && CLR_X_TWO_INPUTS
#error "CLR_TEAM_PEEL walks one input"
#endif
#define CLR_TEAM_PEELS (CLR_TEAM_PEEL && CLR_VEC > 1)

#if CLR_OP <= CLR_OP_MAX

T clr_team_range(global const T *in, ulong n, uint lane, uint size)
{
    T s = CLR_IDENTITY;
    ulong nv = n / CLR_VEC;
#if CLR_VEC > 1
    for (ulong i = nv * CLR_VEC + lane; i < n; i += size)
        s = clr_op(s, clr_map(in[i]));
#endif
    clr_acc acc = clr_acc_init();
#define CLR_TEAM_ADD(x, y, t) acc = clr_acc_add(acc, clr_mapv(x))
    CLR_TEAM_WALK(CLR_TEAM_ADD)
#undef CLR_TEAM_ADD
    return clr_op(s, clr_acc_result(acc));
}

int clr_team_is_leader(uint size)
{
    if (size == CLR_WG)
        return clr_wg_is_leader();
    return (get_local_id(0) & (size - 1)) == 0;
}

T clr_team_reduce(local T *l, T v, uint size)
{
    if (size == 1)
        return v;
    /* l may still be read by the previous call. */
    barrier(CLK_LOCAL_MEM_FENCE);
    if (size == CLR_WG)
        return clr_wg_reduce(l, v);
    uint lid = (uint)get_local_id(0);
    l[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = size / 2; s > 0; s >>= 1) {
        if ((lid & (size - 1)) < s)
            l[lid] = clr_op(l[lid], l[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return l[lid];
}

#else /* the operators of operators.cl */

#define CLR_TEAM_IN2_PARAMS , global const T *restrict in2, ulong in2_off
#define CLR_TEAM_INPUTS(at) in + in_off + at, in2 + in2_off + at

#if CLR_OP != CLR_OP_CUSTOM

/* The same shares and the same shape over operators.cl's accumulators: a
 * lane adds its vectors with the vector accumulator (tags 0, CLR_UNROLL,
 * 2 * CLR_UNROLL, ... so that clr_v_result finds vector lane + t * size),
 * the tail one element at a time, indices counted from `base` (the index
 * of in[0] in the range the result is of); dot multiplies by in2's. */
clr_a clr_team_range_a(global const T *in, global const T *in2, ulong n, ulong base, uint lane,
                       uint size)
{
#if CLR_TEAM_PEELS
    ulong misaligned = ((ulong)in / sizeof(T)) % CLR_VEC;
    uint h = (uint)min(n, (CLR_VEC - misaligned) % CLR_VEC);
    clr_a head = clr_a_identity();
    for (uint i = lane; i < h; i += size)
        head = clr_a_combine(head, clr_a_rebase(clr_a_of(in[i], in2[i], i), base));
    in += h;
    in2 += h;
    n -= h;
    base += h;
#define CLR_TEAM_FIRST CLR_TEAM_LOAD_ALIGNED
#else
#define CLR_TEAM_FIRST CLR_TEAM_LOAD
#endif
    ulong nv = n / CLR_VEC;
    int any = lane < nv;
    clr_v acc = clr_v_init(any ? CLR_TEAM_FIRST(in, lane) : (VT)0);
#define CLR_TEAM_ADD(x, y, t) acc = clr_v_add(acc, (x), (y), (CLR_X_TAG)(t) * CLR_UNROLL)
#if CLR_TEAM_PEELS
    CLR_TEAM_WALK_WITH(CLR_TEAM_LOAD_ALIGNED, CLR_TEAM_ADD)
#else
    CLR_TEAM_WALK(CLR_TEAM_ADD)
#endif
#undef CLR_TEAM_ADD
#undef CLR_TEAM_FIRST
    /* norm2 as the flat reduction: a lane whose squares could overflow or
     * underflow adds its share again, scaled. */
    clr_a a;
    clr_x_team_lane(&a, &acc, any, in, in2, n, base, lane, size);
#if CLR_TEAM_PEELS
    /* The order in which the shares meet does not matter here: minmax
     * keeps extremes, argmin and argmax break ties by index. */
    a = clr_a_combine(head, a);
#endif
    return a;
}

#else /* a user-defined operator */

/* Element k of the second input, as clr_a_of() takes it. */
#if CLR_X_TWO_INPUTS
#define CLR_TEAM_Y(k) in2[k]
#else
#define CLR_TEAM_Y(k) in[k]
#endif

#if CLR_ORDERED
/* Lane's run of n items: [*begin, *end), runs of ceil(n / size) in lane
 * order. */
void clr_team_run(ulong n, uint lane, uint size, ulong *begin, ulong *end)
{
    ulong per = n / size + (n % size != 0);
    *begin = min(n, (ulong)lane * per);
    *end = min(n, *begin + per);
}

/* Elements one at a time, in order: on GPUs each lane reads a run of its
 * own, which costs bandwidth beside the interleaved vectors of a
 * commutative operator. */
clr_a clr_team_range_a(global const T *in, global const T *in2, ulong n, ulong base, uint lane,
                       uint size)
{
    ulong b, e;
    clr_team_run(n, lane, size, &b, &e);
    clr_a a = clr_a_identity();
    for (ulong i = b; i < e; i++)
        a = clr_a_combine(a, clr_a_of(in[i], CLR_TEAM_Y(i), base + i));
    return a;
}
#else
/* The built-in operators' shares (above), each vector's elements mapped
 * from the index of its first (vector lane + t * size). */
clr_a clr_team_range_a(global const T *in, global const T *in2, ulong n, ulong base, uint lane,
                       uint size)
{
    clr_a tail = clr_a_identity();
    ulong nv = n / CLR_VEC;
#if CLR_VEC > 1
    for (ulong i = nv * CLR_VEC + lane; i < n; i += size)
        tail = clr_a_combine(tail, clr_a_of(in[i], CLR_TEAM_Y(i), base + i));
#endif
    clr_v acc = clr_v_init((VT)0);
#define CLR_TEAM_ADD(x, y, t)                                                  \
    {                                                                          \
        ulong k_ = lane + (ulong)(t) * size;                                   \
        acc = clr_v_add_from(acc, (x), (y), base + k_ * CLR_VEC);              \
    }
    CLR_TEAM_WALK(CLR_TEAM_ADD)
#undef CLR_TEAM_ADD
    return clr_a_combine(clr_v_result(acc, 1, lane, size), tail);
}
#endif /* CLR_ORDERED */

#endif /* CLR_OP != CLR_OP_CUSTOM */

/* Lane's share of accumulators a[0 .. n), combined in index order. */
clr_a clr_team_accumulators(global const clr_a *a, ulong n, uint lane, uint size)
{
    clr_a v = clr_a_identity();
#if CLR_ORDERED
    ulong b, e;
    clr_team_run(n, lane, size, &b, &e);
    for (ulong i = b; i < e; i++)
        v = clr_a_combine(v, a[i]);
#else
    for (ulong i = lane; i < n; i += size)
        v = clr_a_combine(v, a[i]);
#endif
    return v;
}

int clr_team_is_leader(uint size)
{
    return (get_local_id(0) & (size - 1)) == 0;
}

/* The combination of v over each team of `size` work-items as a fixed tree
 * in local memory, valid where clr_team_is_leader(size); called by every
 * work-item of the work-group, l of CLR_WG accumulators (reusable right
 * after the call). In order (CLR_ORDERED), each node combines a lane with
 * its right neighbour's subtree. */
clr_a clr_team_reduce_a(local clr_a *l, clr_a v, uint size)
{
    if (size == 1)
        return v;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint lid = (uint)get_local_id(0);
    l[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
#if CLR_ORDERED
    for (uint s = 1; s < size; s <<= 1) {
        if ((lid & (2 * s - 1)) == 0)
            l[lid] = clr_a_combine(l[lid], l[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#else
    for (uint s = size / 2; s > 0; s >>= 1) {
        if ((lid & (size - 1)) < s)
            l[lid] = clr_a_combine(l[lid], l[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
    return l[lid];
}

#endif
