/*
 * fixed_order.cl — the reproducible order of a sum: an order of operations
 * that depends on the element count alone, so that every device, grid and
 * driver that adds in IEEE round-to-nearest gives the same bits.
 *
 * The order. The input is cut into tiles of CLR_FIXED_TILE_BYTES bytes
 * (contract.h): CLR_FIXED_LANES lanes, CLR_VEC elements of 16 bytes in all
 * per lane and step, CLR_FIXED_STEPS steps. Element
 *     tile * CLR_FIXED_TILE + (step * CLR_FIXED_LANES + lane) * CLR_VEC + j
 * is combined into accumulator j of its lane, steps in order, each
 * accumulator starting from the identity; elements past the end are left
 * out. A lane's accumulators are then combined in pairs, and pairs of pairs
 * (clr_hreduce), and the lanes by the sequential-addressing tree (lane i
 * takes lane i + s, s = CLR_FIXED_LANES / 2 .. 1). The tiles' values, in
 * tile order, are the next input, cut and combined the same way, until one
 * value is left.
 *
 * Sums of a map: with CLR_FIXED_MAP, each element x (of a second input, y)
 * is replaced by x * x (1), |x| (2) or x * y (3) before it is added, in the
 * first level only; multiplications and additions are never contracted
 * into fused ones (FP_CONTRACT OFF), which some compilers would do and
 * others not.
 *
 * No lane's value is ever -0.0 (each accumulator starts from +0.0, and a
 * round-to-nearest sum is -0.0 only of two -0.0), so adding the identity
 * +0.0 changes no value: a lane with no element may be left out of the
 * tree, which clr_fixed_short() does.
 *
 * Compile-time parameters: those of types.cl and workgroup_reduce.cl, with
 * CLR_WG == CLR_FIXED_LANES and CLR_VEC * sizeof(T) == 16; CLR_NV_LOAD as
 * in types.cl (the order does not depend on how a vector is loaded).
 *
 *   clr_fixed_lane(in, in2, n, base)      this work-item's lane of a tile
 *   clr_fixed_lane_at(in, in2, n, base, lane)
 *                                         lane `lane` of a tile, element
 *                                         by element
 *   clr_fixed_value_lane_at(...)          the same over values other
 *                                         work-groups wrote, unmapped
 *   clr_fixed_add_vector(acc, in, in2, n, first, aligned)
 *                                         one vector of a lane added,
 *                                         whole where it can be
 *   clr_fixed_squad_sum(l, in, in2, n, active, team)
 *                                         a range of at most one tile
 *                                         by a squad of work-items
 *   clr_fixed_team_tree(l, v, team)       the tree of a team of `team`
 *                                         work-items (a power of two), its
 *                                         range's lanes all in its team
 *   clr_fixed_short(in, in2, n)           a whole range of at most
 *                                         CLR_FIXED_SHORT_MAX elements, by
 *                                         one work-item
 *   clr_fixed_levels(l, values, m, out)   the levels above a range's tiles,
 *                                         by one work-group
 */

#if CLR_WG != CLR_FIXED_LANES || CLR_VEC * CLR_T_BYTES != 16
#error "the fixed order needs CLR_FIXED_LANES work-items and 16-byte vectors"
#endif

#define CLR_FIXED_TILE (CLR_FIXED_TILE_BYTES / CLR_T_BYTES)

#pragma OPENCL FP_CONTRACT OFF

#ifndef CLR_FIXED_MAP
#define CLR_FIXED_MAP 0
#endif
#if CLR_FIXED_MAP == 1
#define CLR_FIXED_OF(x, y) ((x) * (x))
#elif CLR_FIXED_MAP == 2
#define CLR_FIXED_OF(x, y) fabs(x)
#elif CLR_FIXED_MAP == 3
#define CLR_FIXED_OF(x, y) ((x) * (y))
#else
#define CLR_FIXED_OF(x, y) (x)
#endif

/* A vector from any address and to any address; also a vector's elements
 * into a private array and back (indexed arrays, not pointers into a
 * vector, which leave the vector in memory rather than in registers). */
#if CLR_VEC > 1
#define CLR_FIXED_LOAD_ANY(k, p) CLR_CAT(vload, CLR_VEC)((k), (p))
#define CLR_FIXED_STORE_ANY(v, p) CLR_CAT(vstore, CLR_VEC)((v), 0, (p))
#else
#define CLR_FIXED_LOAD_ANY(k, p) (p)[k]
#define CLR_FIXED_STORE_ANY(v, p) (*(p) = (v))
#endif

/* Lane `lane` of the tile starting at element `base`, element by element,
 * any alignment and a partial tile: of the input, mapped (and reading in2,
 * for a product), by clr_fixed_lane_at(); of values other work-groups of
 * this launch wrote, by clr_fixed_value_lane_at() (volatile: never through
 * a read-only cache). The same code for both, written once. */
#define CLR_FIXED_LANE_AT(NAME, QUALIFIER, MAP)                                \
    T NAME(QUALIFIER global const T *in, QUALIFIER global const T *in2,         \
           ulong n, ulong base, uint lane)                                      \
    {                                                                           \
        T a[CLR_VEC];                                                           \
        for (uint j = 0; j < CLR_VEC; j++)                                      \
            a[j] = CLR_IDENTITY;                                                \
        for (uint k = 0; k < CLR_FIXED_STEPS; k++) {                            \
            ulong first = base + ((ulong)k * CLR_FIXED_LANES + lane) * CLR_VEC; \
            for (uint j = 0; j < CLR_VEC; j++)                                  \
                if (first + j < n)                                              \
                    a[j] = clr_op(a[j], MAP(in[first + j], in2[first + j]));    \
        }                                                                       \
        return CLR_FIXED_HREDUCE(a);                                            \
    }

#if CLR_VEC > 1
#define CLR_FIXED_HREDUCE(a) clr_hreduce(CLR_CAT(vload, CLR_VEC)(0, (a)))
#else
#define CLR_FIXED_HREDUCE(a) ((a)[0])
#endif
#define CLR_FIXED_VALUE(x, y) (x)

CLR_FIXED_LANE_AT(clr_fixed_lane_at, , CLR_FIXED_OF)
CLR_FIXED_LANE_AT(clr_fixed_value_lane_at, volatile, CLR_FIXED_VALUE)

/* This work-item's lane of the tile starting at element `base`, combined to
 * one value. A whole tile is read as vectors, CLR_FIXED_STEPS of them in
 * flight; the last, partial tile element by element. */
T clr_fixed_lane(global const T *restrict in, global const T *restrict in2, ulong n, ulong base)
{
    const uint lane = (uint)get_local_id(0);
    global const T *p = in + base + (ulong)lane * CLR_VEC;
    VT acc = (VT)(CLR_IDENTITY);
    if (n - base < CLR_FIXED_TILE)
        return clr_fixed_lane_at(in, in2, n, base, lane);
    {
        VT v[CLR_FIXED_STEPS], w[CLR_FIXED_STEPS];
#if CLR_FIXED_MAP == 3
        global const T *q = in2 + base + (ulong)lane * CLR_VEC;
        _Pragma("unroll") for (uint k = 0; k < CLR_FIXED_STEPS; k++)
            w[k] = CLR_FIXED_LOAD_ANY(k * CLR_FIXED_LANES, q);
#endif
#if CLR_NV_LOAD && CLR_VEC > 1
        if (CLR_VEC_ALIGNED(in)) {
            _Pragma("unroll") for (uint k = 0; k < CLR_FIXED_STEPS; k++)
                v[k] = clr_load_vec((global const VT *)p + k * CLR_FIXED_LANES);
        } else
#endif
        {
            _Pragma("unroll") for (uint k = 0; k < CLR_FIXED_STEPS; k++)
                v[k] = CLR_FIXED_LOAD_ANY(k * CLR_FIXED_LANES, p);
        }
        _Pragma("unroll") for (uint k = 0; k < CLR_FIXED_STEPS; k++)
            acc = clr_opv(acc, CLR_FIXED_OF(v[k], w[k]));
    }
    return clr_hreduce(acc);
}

/* acc with the vector of a range (n elements from in[0], and in2[0])
 * at element `first` added, as clr_fixed_lane_at() adds it: the whole
 * vector where it lies in the range (by aligned loads where the inputs
 * start on a vector boundary), element by element at the range's end,
 * nothing past it. */
VT clr_fixed_add_vector(VT acc, global const T *restrict in, global const T *restrict in2,
                        uint n, uint first, int aligned)
{
    if (first + CLR_VEC <= n) {
        VT x, y;
#if CLR_NV_LOAD && CLR_VEC > 1
        if (aligned) {
            x = clr_load_vec((global const VT *)(in + first));
            y = CLR_FIXED_MAP == 3 ? clr_load_vec((global const VT *)(in2 + first)) : x;
        } else
#endif
        {
            x = CLR_FIXED_LOAD_ANY(0, in + first);
            y = CLR_FIXED_MAP == 3 ? CLR_FIXED_LOAD_ANY(0, in2 + first) : x;
        }
        return clr_opv(acc, CLR_FIXED_OF(x, y));
    }
    if (first < n) {
        T a[CLR_VEC];
        CLR_FIXED_STORE_ANY(acc, a);
        for (uint j = 0; j < CLR_VEC; j++)
            if (first + j < n)
                a[j] = clr_op(a[j], CLR_FIXED_OF(in[first + j], in2[first + j]));
        return CLR_FIXED_LOAD_ANY(0, a);
    }
    return acc;
}

/* Ranges of at most this many elements are summed by one work-item: the
 * lanes of the tile's order that hold elements (a step each), then their
 * tree with the lanes past the range left out. */
#define CLR_FIXED_SHORT_MAX (CLR_FIXED_SHORT_LANES * CLR_VEC)

T clr_fixed_short(global const T *in, global const T *in2, uint n)
{
    const uint lanes = (n + CLR_VEC - 1) / CLR_VEC;
    T v[CLR_FIXED_SHORT_LANES];
    _Pragma("unroll") for (uint i = 0; i < CLR_FIXED_SHORT_LANES; i++) {
        T a[CLR_VEC];
        for (uint j = 0; j < CLR_VEC; j++)
            a[j] = i * CLR_VEC + j < n ? clr_op(CLR_IDENTITY, CLR_FIXED_OF(in[i * CLR_VEC + j],
                                                                           in2[i * CLR_VEC + j]))
                                       : CLR_IDENTITY;
#if CLR_VEC > 1
        v[i] = clr_hreduce(CLR_CAT(vload, CLR_VEC)(0, a));
#else
        v[i] = a[0];
#endif
    }
    _Pragma("unroll") for (uint s = CLR_FIXED_SHORT_LANES / 2; s > 0; s >>= 1)
        _Pragma("unroll") for (uint i = 0; i < s; i++)
            if (i + s < lanes)
                v[i] = clr_op(v[i], v[i + s]);
    return v[0];
}

/* The tree of the lanes of a range whose lanes number `team` or fewer (a
 * power of two: a range of one step, team * CLR_VEC elements at most), by
 * the team of work-items lid / team: the tile's tree but for its first
 * steps, which would add lanes past the range, +0.0, and so change
 * nothing. Every work-item of the work-group calls it with the same
 * `team`; the team's first work-item gets the value. */
T clr_fixed_team_tree(local T *l, T v, uint team)
{
    const uint lid = (uint)get_local_id(0), lane = lid & (team - 1);
    l[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = team / 2; s > 0; s >>= 1) {
        if (lane < s)
            l[lid] = clr_op(l[lid], l[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return l[lid];
}

/* The sum of a range of at most one tile (n elements from in[0], and
 * in2[0]; nothing read unless `active`) by a squad of
 * min(team, CLR_FIXED_SQUAD) work-items, `team` the range's lanes rounded
 * up to a power of two (all of a tile's lanes do too: those past the range
 * hold +0.0). Work-item t of the squad holds lanes t, t + squad, ...; the
 * tree's steps that join lanes `squad` or more apart join lanes of one
 * work-item, in registers, the last ones lanes of the squad, by shuffles
 * within a warp (NVIDIA's inline PTX) or else through l, CLR_WG values.
 * Every work-item of the work-group calls it with the same team; the
 * squad's first work-item gets the sum. */
#define CLR_FIXED_SQUAD_LANES (CLR_FIXED_LANES / CLR_FIXED_SQUAD)
#define CLR_FIXED_STEP (CLR_FIXED_LANES * CLR_VEC) /* elements of a step */
#define CLR_FIXED_SHUFFLES (CLR_SG_PATH == CLR_SG_NV_PTX && CLR_WARP % CLR_FIXED_SQUAD == 0)

T clr_fixed_squad_sum(local T *l, global const T *in, global const T *in2, uint n, int active,
                      uint team)
{
    const uint squad = min(team, (uint)CLR_FIXED_SQUAD), lanes = team / squad;
    const uint t = (uint)get_local_id(0) & (squad - 1);
    VT acc[CLR_FIXED_SQUAD_LANES];
    _Pragma("unroll") for (uint m = 0; m < CLR_FIXED_SQUAD_LANES; m++)
        acc[m] = (VT)(CLR_IDENTITY);
    if (active) {
        const int aligned = CLR_VEC_ALIGNED(in) && (CLR_FIXED_MAP != 3 || CLR_VEC_ALIGNED(in2));
        const uint steps = (n + CLR_FIXED_STEP - 1) / CLR_FIXED_STEP;
        for (uint k = 0; k < steps; k++)
            _Pragma("unroll") for (uint m = 0; m < CLR_FIXED_SQUAD_LANES; m++)
                if (m < lanes)
                    acc[m] = clr_fixed_add_vector(acc[m], in, in2, n,
                                                  (k * CLR_FIXED_LANES + t + m * squad) * CLR_VEC,
                                                  aligned);
    }
    T v[CLR_FIXED_SQUAD_LANES];
    _Pragma("unroll") for (uint m = 0; m < CLR_FIXED_SQUAD_LANES; m++)
        v[m] = clr_hreduce(acc[m]);
    _Pragma("unroll") for (uint s = CLR_FIXED_SQUAD_LANES / 2; s > 0; s >>= 1)
        if (s < lanes)
            _Pragma("unroll") for (uint m = 0; m < s; m++)
                v[m] = clr_op(v[m], v[m + s]);
#if CLR_FIXED_SHUFFLES
    (void)l;
    for (uint s = squad / 2; s > 0; s >>= 1) {
        const T other = clr_shfl_down(v[0], s);
        if (t < s)
            v[0] = clr_op(v[0], other);
    }
    return v[0];
#else
    const T sum = clr_fixed_team_tree(l, v[0], squad);
    barrier(CLK_LOCAL_MEM_FENCE); /* l read by all before it is written again */
    return sum;
#endif
}

/* Reduces values[0 .. m), m > 1, the values of a range's tiles: level by
 * level, each level's tiles into the first values of the level (in place:
 * value t is written after tile t's elements, and every later tile's, lie
 * past it), the last one into *result. Called by every work-item of one
 * work-group; values other work-groups wrote are read volatile, and a
 * barrier orders each tile's value before the next level reads it. */
void clr_fixed_levels(local T *l, volatile global T *values, ulong m, global T *result)
{
    for (;;) {
        const ulong above = (m + CLR_FIXED_TILE - 1) / CLR_FIXED_TILE;
        for (ulong t = 0; t < above; t++) {
            T r = clr_wg_reduce_tree(
                l, clr_fixed_value_lane_at(values, values, m, t * CLR_FIXED_TILE,
                                           (uint)get_local_id(0)));
            if (get_local_id(0) == 0) {
                if (above == 1)
                    *result = r;
                else
                    values[t] = r;
            }
            barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        }
        if (above == 1)
            return;
        m = above;
    }
}
