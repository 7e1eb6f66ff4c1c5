/*
 * subgroup.cl — sub-group ("warp") primitives, the OpenCL side of CUDA's
 * __shfl_down_sync, in one of several implementations chosen by the host from
 * the device's capabilities.
 *
 * Compile-time parameters:
 *   CLR_SG_PATH  a CLR_SG_* code of contract.h: NONE, NV_PTX (inline PTX
 *                shfl.sync), SHUFFLE_RELATIVE (sub_group_shuffle_down,
 *                cl_khr_subgroup_shuffle_relative), SHUFFLE (sub_group_shuffle,
 *                cl_khr_subgroup_shuffle), REDUCE (sub_group_reduce_* only,
 *                cl_khr_subgroups).
 *   CLR_WARP     warp size for NV_PTX (CL_DEVICE_WARP_SIZE_NV).
 *
 * Provides, when CLR_HAS_SUBGROUPS is 1:
 *   clr_sg_lane(), clr_sg_id(), clr_sg_size(), clr_sg_count()
 *   clr_sg_reduce(v)  reduction over the calling sub-group, valid in lane 0
 *                     (every lane calls it, in uniform control flow).
 *   clr_sg_broadcast(v, lane)  lane's v in every lane (lane uniform)
 *   clr_shfl_up(v, d), clr_shfl_up_uint(x, d)  the value of lane - d (not
 *                     with CLR_SG_REDUCE; lanes below d get an unspecified
 *                     value)
 *   clr_sg_scan_inclusive(v), clr_sg_scan_exclusive(v)
 *                     prefix over the lanes up to (before) the calling one,
 *                     in lane order: the counterpart of a __shfl_up_sync
 *                     ladder (exclusive gives the identity in lane 0)
 *   clr_sg_shift_up(v, identity)  the previous lane's v, identity in lane 0
 *                     (not with CLR_SG_REDUCE)
 *   clr_sg_first_lane(pred)  lowest lane whose pred is true, or the
 *                     sub-group size when none is
 *   CLR_SG_SCAN_LADDER(inclusive, exclusive, op, identity, idempotent)  the
 *                     two scans for another operator (not with CLR_SG_REDUCE)
 *
 * For NV_PTX the work-group is one-dimensional and a multiple of CLR_WARP work-items, so
 * warp w holds local ids [w*CLR_WARP, (w+1)*CLR_WARP): that is how NVIDIA
 * lays out a work-group.
 */

#ifndef CLR_SG_PATH
#define CLR_SG_PATH CLR_SG_NONE
#endif

#define CLR_HAS_SUBGROUPS (CLR_SG_PATH != CLR_SG_NONE)

#if CLR_SG_PATH == CLR_SG_NV_PTX

uint clr_sg_lane(void) { return (uint)get_local_id(0) & (CLR_WARP - 1); }
uint clr_sg_id(void) { return (uint)get_local_id(0) / CLR_WARP; }
uint clr_sg_size(void) { return CLR_WARP; }
uint clr_sg_count(void) { return (uint)get_local_size(0) / CLR_WARP; }

uint clr_shfl_down_u32(uint x, uint delta)
{
    uint r;
    asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;"
                 : "=r"(r)
                 : "r"(x), "r"(delta));
    return r;
}

T clr_shfl_down(T v, uint delta)
{
#if CLR_IS_64
    uint2 p = as_uint2(v);
    p.x = clr_shfl_down_u32(p.x, delta);
    p.y = clr_shfl_down_u32(p.y, delta);
    return CLR_AS_T(p);
#else
    return CLR_AS_T(clr_shfl_down_u32(as_uint(v), delta));
#endif
}

uint clr_shfl_up_u32(uint x, uint delta)
{
    uint r;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(r) : "r"(x), "r"(delta));
    return r;
}

uint clr_shfl_idx_u32(uint x, uint lane)
{
    uint r;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;"
                 : "=r"(r)
                 : "r"(x), "r"(lane));
    return r;
}

#if CLR_IS_64
#define CLR_SHFL_T(name, v, arg)                                               \
    uint2 p = as_uint2(v);                                                     \
    p.x = name(p.x, arg);                                                      \
    p.y = name(p.y, arg);                                                      \
    return CLR_AS_T(p)
#else
#define CLR_SHFL_T(name, v, arg) return CLR_AS_T(name(as_uint(v), arg))
#endif

T clr_shfl_up(T v, uint delta) { CLR_SHFL_T(clr_shfl_up_u32, v, delta); }
uint clr_shfl_up_uint(uint x, uint delta) { return clr_shfl_up_u32(x, delta); }
T clr_sg_broadcast(T v, uint lane) { CLR_SHFL_T(clr_shfl_idx_u32, v, lane); }

uint clr_sg_first_lane(int pred)
{
    uint mask;
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }"
                 : "=r"(mask)
                 : "r"((uint)(pred != 0)));
    /* Lowest set bit: the population count below it. */
    return mask ? popcount((mask & (0u - mask)) - 1u) : CLR_WARP;
}

#elif CLR_SG_PATH == CLR_SG_SHUFFLE_RELATIVE || CLR_SG_PATH == CLR_SG_SHUFFLE || \
    CLR_SG_PATH == CLR_SG_REDUCE

/* Built with -cl-std=CL2.0 or CL3.0, where the built-ins are declared as soon
 * as the device has the extension: no #pragma needed (and compilers warn). */

uint clr_sg_lane(void) { return get_sub_group_local_id(); }
uint clr_sg_id(void) { return get_sub_group_id(); }
uint clr_sg_size(void) { return get_sub_group_size(); }
uint clr_sg_count(void) { return get_num_sub_groups(); }

#if CLR_SG_PATH == CLR_SG_SHUFFLE_RELATIVE
T clr_shfl_down(T v, uint delta) { return sub_group_shuffle_down(v, delta); }
T clr_shfl_up(T v, uint delta) { return sub_group_shuffle_up(v, delta); }
uint clr_shfl_up_uint(uint x, uint delta) { return sub_group_shuffle_up(x, delta); }
#elif CLR_SG_PATH == CLR_SG_SHUFFLE
/* An index past the sub-group gives an undefined value; clr_sg_reduce never
 * uses it, and clr_shfl_up's lanes below delta read their own. */
T clr_shfl_down(T v, uint delta) { return sub_group_shuffle(v, get_sub_group_local_id() + delta); }
T clr_shfl_up(T v, uint delta)
{
    uint lane = get_sub_group_local_id();
    return sub_group_shuffle(v, lane >= delta ? lane - delta : lane);
}
uint clr_shfl_up_uint(uint x, uint delta)
{
    uint lane = get_sub_group_local_id();
    return sub_group_shuffle(x, lane >= delta ? lane - delta : lane);
}
#endif

T clr_sg_broadcast(T v, uint lane) { return sub_group_broadcast(v, lane); }

uint clr_sg_first_lane(int pred)
{
    return sub_group_reduce_min(pred ? get_sub_group_local_id() : get_sub_group_size());
}

#elif CLR_SG_PATH != CLR_SG_NONE
#error "CLR_SG_PATH must be a CLR_SG_* code"
#endif

#if CLR_HAS_SUBGROUPS

#if CLR_SG_PATH == CLR_SG_REDUCE

T clr_sg_reduce(T v)
{
#if CLR_OP == CLR_OP_SUM
    return sub_group_reduce_add(v);
#elif !CLR_IS_FLOAT && CLR_OP == CLR_OP_MIN
    return sub_group_reduce_min(v);
#elif !CLR_IS_FLOAT && CLR_OP == CLR_OP_MAX
    return sub_group_reduce_max(v);
#else
    /* The built-ins follow fmin/fmax, which drop NaN and may return either
     * zero: fix both up to clr_op's contract. */
    int any_nan = sub_group_any(isnan(v));
#if CLR_OP == CLR_OP_MIN
    T r = sub_group_reduce_min(v);
    int preferred_zero = sub_group_any(v == (T)0 && signbit(v));
    if (r == (T)0)
        r = preferred_zero ? -(T)0 : (T)0;
#else
    T r = sub_group_reduce_max(v);
    int preferred_zero = sub_group_any(v == (T)0 && !signbit(v));
    if (r == (T)0)
        r = preferred_zero ? (T)0 : -(T)0;
#endif
    /* The first NaN, as clr_op keeps it. */
    return any_nan ? sub_group_broadcast(v, clr_sg_first_lane(isnan(v))) : r;
#endif
}

#else

/* Tree of shuffles down: lane i combines with lane i + offset. Correct for any
 * sub-group size: lanes whose partner is past the end keep their value. */
T clr_sg_reduce(T v)
{
    uint n = clr_sg_size();
    uint lane = clr_sg_lane();
    uint offset = 1;
    while (offset < n)
        offset <<= 1;
    for (offset >>= 1; offset > 0; offset >>= 1) {
        T other = clr_shfl_down(v, offset);
        if (lane + offset < n)
            v = clr_op(v, other);
    }
    return v;
}

#endif

/* ---- scans ---------------------------------------------------------------- */

#if CLR_SG_PATH == CLR_SG_REDUCE

#if CLR_OP == CLR_OP_SUM
T clr_sg_scan_inclusive(T v) { return sub_group_scan_inclusive_add(v); }
T clr_sg_scan_exclusive(T v) { return sub_group_scan_exclusive_add(v); }
#elif !CLR_IS_FLOAT && CLR_OP == CLR_OP_MIN
T clr_sg_scan_inclusive(T v) { return sub_group_scan_inclusive_min(v); }
T clr_sg_scan_exclusive(T v) { return sub_group_scan_exclusive_min(v); }
#elif !CLR_IS_FLOAT && CLR_OP == CLR_OP_MAX
T clr_sg_scan_inclusive(T v) { return sub_group_scan_inclusive_max(v); }
T clr_sg_scan_exclusive(T v) { return sub_group_scan_exclusive_max(v); }
#else
/* As for clr_sg_reduce: the built-ins follow fmin/fmax, so NaN and the sign
 * of zero are fixed up from integer scans of flags (an empty exclusive
 * prefix scans to INT_MIN, hence the "> 0"). */
#if CLR_OP == CLR_OP_MIN
#define CLR_SG_SCAN_FIX(KIND)                                                  \
    T r = sub_group_scan_##KIND##_min(v);                                      \
    int zero = sub_group_scan_##KIND##_max((v == (T)0 && signbit(v)) ? 1 : 0); \
    if (r == (T)0)                                                             \
        r = zero > 0 ? -(T)0 : (T)0;
#else
#define CLR_SG_SCAN_FIX(KIND)                                                  \
    T r = sub_group_scan_##KIND##_max(v);                                      \
    int zero = sub_group_scan_##KIND##_max((v == (T)0 && !signbit(v)) ? 1 : 0);\
    if (r == (T)0)                                                             \
        r = zero > 0 ? (T)0 : -(T)0;
#endif
/* From the first NaN on (after it when exclusive), that NaN, as clr_op
 * keeps it. */
T clr_sg_nan_from(T v, T r, uint after)
{
    if (!sub_group_any(isnan(v)))
        return r;
    uint first = clr_sg_first_lane(isnan(v));
    T nan = sub_group_broadcast(v, first);
    return clr_sg_lane() >= first + after ? nan : r;
}
T clr_sg_scan_inclusive(T v)
{
    CLR_SG_SCAN_FIX(inclusive)
    return clr_sg_nan_from(v, r, 0);
}
T clr_sg_scan_exclusive(T v)
{
    CLR_SG_SCAN_FIX(exclusive)
    return clr_sg_nan_from(v, r, 1);
}
#endif

#else

/* The value of the lane before, the identity in lane 0: an exclusive scan
 * from an inclusive one. */
T clr_sg_shift_up(T inclusive, T identity)
{
    T r = clr_shfl_up(inclusive, 1);
    return clr_sg_lane() == 0 ? identity : r;
}

/* Whether clr_shfl_up gives the lanes below delta their own value (PTX's
 * shfl.sync.up does; sub_group_shuffle_up leaves it unspecified). */
#define CLR_SHFL_UP_KEEPS_OWN (CLR_SG_PATH == CLR_SG_NV_PTX || CLR_SG_PATH == CLR_SG_SHUFFLE)

/* Hillis-Steele over the lanes with shuffles up: log2(size) steps. A
 * generator, for tile.cl's scan of keys too: INCLUSIVE and EXCLUSIVE name the
 * two functions, OP(T, T) is the operator and IDENTITY its identity.
 * IDEMPOTENT (a constant): OP(x, x) is x, so that where the lanes below d
 * read their own value they may combine it unguarded (a select fewer per
 * step, two for 8-byte types). */
#define CLR_SG_SCAN_LADDER(INCLUSIVE, EXCLUSIVE, OP, IDENTITY, IDEMPOTENT)     \
    T INCLUSIVE(T v)                                                           \
    {                                                                          \
        uint n = clr_sg_size();                                                \
        uint lane = clr_sg_lane();                                             \
        for (uint d = 1; d < n; d <<= 1) {                                     \
            T other = clr_shfl_up(v, d);                                       \
            if (((IDEMPOTENT) && CLR_SHFL_UP_KEEPS_OWN) || lane >= d)          \
                v = OP(other, v);                                              \
        }                                                                      \
        return v;                                                              \
    }                                                                          \
                                                                               \
    T EXCLUSIVE(T v) { return clr_sg_shift_up(INCLUSIVE(v), IDENTITY); }

CLR_SG_SCAN_LADDER(clr_sg_scan_inclusive, clr_sg_scan_exclusive, clr_op, CLR_IDENTITY,
                   !CLR_IS_FLOAT && (CLR_OP == CLR_OP_MIN || CLR_OP == CLR_OP_MAX))

#endif

#endif /* CLR_HAS_SUBGROUPS */
