/*
 * subgroup.cl — sub-group ("warp") primitives, the OpenCL side of CUDA's
 * __shfl_down_sync, in one of several implementations chosen by the host from
 * the device's capabilities.
 *
 * Compile-time parameters:
 *   CLR_SG_PATH  1 none, 2 NVIDIA inline PTX shfl.sync, 3 sub_group_shuffle_down
 *                (cl_khr_subgroup_shuffle_relative), 4 sub_group_shuffle
 *                (cl_khr_subgroup_shuffle), 5 sub_group_reduce_* only
 *                (cl_khr_subgroups). Values match clreduce_subgroup_path.
 *   CLR_WARP     warp size for path 2 (CL_DEVICE_WARP_SIZE_NV).
 *
 * Provides, when CLR_HAS_SUBGROUPS is 1:
 *   clr_sg_lane(), clr_sg_id(), clr_sg_size(), clr_sg_count()
 *   clr_sg_reduce(v)  reduction over the calling sub-group, valid in lane 0
 *                     (every lane calls it, in uniform control flow).
 *
 * For path 2 the work-group is one-dimensional and a multiple of CLR_WARP work-items, so
 * warp w holds local ids [w*CLR_WARP, (w+1)*CLR_WARP): that is how NVIDIA
 * lays out a work-group.
 */

#ifndef CLR_SG_PATH
#define CLR_SG_PATH 1
#endif

#define CLR_HAS_SUBGROUPS (CLR_SG_PATH >= 2)

#if CLR_SG_PATH == 2

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

#elif CLR_SG_PATH >= 3 && CLR_SG_PATH <= 5

/* Built with -cl-std=CL2.0 or CL3.0, where the built-ins are declared as soon
 * as the device has the extension: no #pragma needed (and compilers warn). */

uint clr_sg_lane(void) { return get_sub_group_local_id(); }
uint clr_sg_id(void) { return get_sub_group_id(); }
uint clr_sg_size(void) { return get_sub_group_size(); }
uint clr_sg_count(void) { return get_num_sub_groups(); }

#if CLR_SG_PATH == 3
T clr_shfl_down(T v, uint delta) { return sub_group_shuffle_down(v, delta); }
#elif CLR_SG_PATH == 4
/* An index past the sub-group gives an undefined value; clr_sg_reduce never
 * uses it. */
T clr_shfl_down(T v, uint delta) { return sub_group_shuffle(v, get_sub_group_local_id() + delta); }
#endif

#elif CLR_SG_PATH != 1
#error "CLR_SG_PATH must be 1..5"
#endif

#if CLR_HAS_SUBGROUPS

#if CLR_SG_PATH == 5

T clr_sg_reduce(T v)
{
#if CLR_OP == 0
    return sub_group_reduce_add(v);
#elif !CLR_IS_FLOAT && CLR_OP == 1
    return sub_group_reduce_min(v);
#elif !CLR_IS_FLOAT && CLR_OP == 2
    return sub_group_reduce_max(v);
#else
    /* The built-ins follow fmin/fmax, which drop NaN and may return either
     * zero: fix both up to clr_op's contract. */
    int any_nan = sub_group_any(isnan(v));
#if CLR_OP == 1
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
    return any_nan ? (T)NAN : r;
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

#endif /* CLR_HAS_SUBGROUPS */
