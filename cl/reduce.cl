/*
 * reduce.cl — the device-level reduction kernels, one per variant; the host
 * compiles the one it needs with CLR_VARIANT.
 *
 * Compile-time parameters (besides those of types.cl, subgroup.cl and
 * workgroup.cl):
 *   CLR_VARIANT  1 interleaved, 2 sequential, 3 first add, 4 sub-group tail,
 *                5 sub-group, 6 unrolled, 7 grid stride, 8 atomic,
 *                9 single pass (values of clreduce_variant).
 *   CLR_UNROLL   independent vector loads in flight per work-item (7, 8, 9).
 *   CLR_SEGMENTED  1: each work-group reads one contiguous run of the input;
 *                0: the whole grid strides over it together (7, 8, 9).
 *   CLR_NV_LOAD  1: 16-byte loads through PTX ld.global.nc (NVIDIA only).
 *   CLR_FENCE    device-scope fence for 9: 0 mem_fence (OpenCL 1.x), 1
 *                atomic_work_item_fence (OpenCL 2.0+), 2 PTX membar.gl (NVIDIA,
 *                where mem_fence orders only within a work-group).
 *   CLR_ATOMIC   how 8 combines: 0 CAS loop, 1 integer atomic built-in,
 *                2 PTX red.global.add (NVIDIA float and double sums).
 *
 * Every kernel is `clr_reduce(in, in_off, n, out, out_off[, scratch])`: it
 * reduces in[in_off .. in_off + n) and writes one value per work-group to
 * out[out_off + group] (1 to 7), or the final value to out[out_off] (8, 9).
 * Offsets and counts are 64-bit: the kernels index beyond 2^32 elements.
 * Variants 1 to 6 read CLR_WG (1, 2) or 2 * CLR_WG (3 to 6) elements per
 * work-group and are run again over their partial results until one is left.
 */

#ifndef CLR_UNROLL
#define CLR_UNROLL 1
#endif

#define CLR_KERNEL                                                             \
    __attribute__((reqd_work_group_size(CLR_WG, 1, 1))) kernel void

/* Loads element i of the n at in, or the identity past the end. */
#define CLR_LOAD(in, i, n) ((i) < (n) ? (in)[i] : CLR_IDENTITY)

#if CLR_VARIANT == 1
/* Interleaved addressing: work-item lid is active when lid % (2*s) == 0. Half
 * the work-items of every warp idle from the first step on, and the modulo
 * is slow. */
CLR_KERNEL clr_reduce(global const T *restrict in, ulong in_off, ulong n,
                      global T *restrict out, ulong out_off)
{
    local T l[CLR_WG];
    uint lid = (uint)get_local_id(0);
    ulong i = (ulong)get_group_id(0) * CLR_WG + lid;
    l[lid] = CLR_LOAD(in + in_off, i, n);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < CLR_WG; s *= 2) {
        if (lid % (2 * s) == 0)
            l[lid] = clr_op(l[lid], l[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[out_off + get_group_id(0)] = l[0];
}

#elif CLR_VARIANT == 2
/* Sequential addressing: the active work-items are the first s, so whole
 * warps retire together and local memory is read without bank conflicts. */
CLR_KERNEL clr_reduce(global const T *restrict in, ulong in_off, ulong n,
                      global T *restrict out, ulong out_off)
{
    local T l[CLR_WG];
    ulong i = (ulong)get_group_id(0) * CLR_WG + get_local_id(0);
    T r = clr_wg_reduce_tree(l, CLR_LOAD(in + in_off, i, n));
    if (get_local_id(0) == 0)
        out[out_off + get_group_id(0)] = r;
}

#elif CLR_VARIANT == 3
/* First add during load: each work-item combines two elements before the
 * tree, so half as many work-groups do the same work. */
CLR_KERNEL clr_reduce(global const T *restrict in, ulong in_off, ulong n,
                      global T *restrict out, ulong out_off)
{
    local T l[CLR_WG];
    in += in_off;
    ulong i = (ulong)get_group_id(0) * (2 * CLR_WG) + get_local_id(0);
    T v = clr_op(CLR_LOAD(in, i, n), CLR_LOAD(in, i + CLR_WG, n));
    T r = clr_wg_reduce_tree(l, v);
    if (get_local_id(0) == 0)
        out[out_off + get_group_id(0)] = r;
}

#elif CLR_VARIANT == 4 && CLR_HAS_SUBGROUPS
/* First add, then the tree in local memory until one sub-group's worth is
 * left, which sub-group 0 finishes with shuffles: no barriers for the last
 * steps, and no `volatile` warp-synchronous trick (a race since Volta). */
CLR_KERNEL clr_reduce(global const T *restrict in, ulong in_off, ulong n,
                      global T *restrict out, ulong out_off)
{
    local T l[CLR_WG];
    in += in_off;
    uint lid = (uint)get_local_id(0);
    ulong i = (ulong)get_group_id(0) * (2 * CLR_WG) + lid;
    l[lid] = clr_op(CLR_LOAD(in, i, n), CLR_LOAD(in, i + CLR_WG, n));
    barrier(CLK_LOCAL_MEM_FENCE);
    uint s = CLR_WG / 2;
    for (; s > clr_sg_size(); s >>= 1) {
        if (lid < s)
            l[lid] = clr_op(l[lid], l[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    T r = clr_sg_finish(l, 2 * s);
    if (clr_is_sg_leader())
        out[out_off + get_group_id(0)] = r;
}

#elif CLR_VARIANT == 5 && CLR_HAS_SUBGROUPS
/* Sub-group shuffles all the way: every sub-group reduces its values with
 * shuffles, one value per sub-group goes through local memory, and sub-group
 * 0 reduces those. One barrier in all. */
CLR_KERNEL clr_reduce(global const T *restrict in, ulong in_off, ulong n,
                      global T *restrict out, ulong out_off)
{
    local T l[CLR_WG];
    in += in_off;
    ulong i = (ulong)get_group_id(0) * (2 * CLR_WG) + get_local_id(0);
    T v = clr_op(CLR_LOAD(in, i, n), CLR_LOAD(in, i + CLR_WG, n));
    T r = clr_wg_reduce_subgroups(l, v);
    if (clr_is_sg_leader())
        out[out_off + get_group_id(0)] = r;
}

#elif CLR_VARIANT == 6
/* Complete unrolling: CLR_WG is known to the compiler, so every step of the
 * tree is written out and the loop and its tests disappear. On NVIDIA the
 * last 64 values go to warp 0's shuffles. */
#define CLR_UNROLLED_STEP(s)                                                   \
    if (CLR_WG >= 2 * (s)) {                                                   \
        if (lid < (s))                                                         \
            l[lid] = clr_op(l[lid], l[lid + (s)]);                             \
        barrier(CLK_LOCAL_MEM_FENCE);                                          \
    }

CLR_KERNEL clr_reduce(global const T *restrict in, ulong in_off, ulong n,
                      global T *restrict out, ulong out_off)
{
    local T l[CLR_WG];
    in += in_off;
    uint lid = (uint)get_local_id(0);
    ulong i = (ulong)get_group_id(0) * (2 * CLR_WG) + lid;
    l[lid] = clr_op(CLR_LOAD(in, i, n), CLR_LOAD(in, i + CLR_WG, n));
    barrier(CLK_LOCAL_MEM_FENCE);
    CLR_UNROLLED_STEP(2048)
    CLR_UNROLLED_STEP(1024)
    CLR_UNROLLED_STEP(512)
    CLR_UNROLLED_STEP(256)
    CLR_UNROLLED_STEP(128)
#if CLR_SG_PATH == 2 && CLR_WARP == 32 && CLR_WG >= 64
    CLR_UNROLLED_STEP(64)
    if (lid < 32) {
        T v = clr_op(l[lid], l[lid + 32]);
        v = clr_sg_reduce(v);
        if (lid == 0)
            out[out_off + get_group_id(0)] = v;
    }
#else
    CLR_UNROLLED_STEP(64)
    CLR_UNROLLED_STEP(32)
    CLR_UNROLLED_STEP(16)
    CLR_UNROLLED_STEP(8)
    CLR_UNROLLED_STEP(4)
    CLR_UNROLLED_STEP(2)
    CLR_UNROLLED_STEP(1)
    if (lid == 0)
        out[out_off + get_group_id(0)] = l[0];
#endif
}

#elif CLR_VARIANT >= 7 && CLR_VARIANT <= 9
/* Many elements per work-item: a grid sized to fill the device walks the
 * input with vector loads, CLR_UNROLL of them in flight per work-item. */

/* Vector load. On NVIDIA (CLR_NV_LOAD 1), 16-byte vectors go through inline
 * PTX ld.global.nc, the read-only data path, which the compiler does not pick
 * for OpenCL's `const restrict` pointers by itself. */
#ifndef CLR_NV_LOAD
#define CLR_NV_LOAD 0
#endif
#if CLR_NV_LOAD && CLR_VEC * (CLR_IS_64 + 1) == 4
VT clr_load_vec(global const VT *p)
{
    uint4 r;
    asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
    return CLR_CAT(as_, VT)(r);
}
#else
#define clr_load_vec(p) (*(p))
#endif

/* This work-item's share of in[0 .. n), reduced to one value. Element k of
 * the range always lands in the same work-item and the same place in the
 * combination, whatever the range's address: the last n % CLR_VEC elements
 * are read one by one, the rest as vectors. vloadN reads vectors at any
 * element alignment; CPUs load them as fast as aligned ones, but NVIDIA's
 * compiler splits them into scalar loads, so there (CLR_NV_LOAD) a range that
 * starts on a vector boundary takes aligned ld.global.nc loads instead. The
 * result is the same at every offset. */
#define CLR_BULK_LOOP(LOAD)                                                    \
    for (; i + (CLR_UNROLL - 1) * CLR_WG < nv; i += stride) {                  \
        VT v[CLR_UNROLL];                                                      \
        _Pragma("unroll") for (uint u = 0; u < CLR_UNROLL; u++)                \
            v[u] = LOAD(i + u * CLR_WG);                                       \
        _Pragma("unroll") for (uint u = 0; u < CLR_UNROLL; u++)                \
            acc = clr_acc_add(acc, v[u]);                                      \
    }                                                                          \
    for (uint u = 0; u < CLR_UNROLL; u++)                                      \
        if (i + u * CLR_WG < nv)                                               \
            acc = clr_acc_add(acc, LOAD(i + u * CLR_WG));

#define CLR_LOAD_ALIGNED(k) clr_load_vec((global const VT *)in + (k))
#if CLR_VEC > 1
#define CLR_LOAD_ANY(k) CLR_CAT(vload, CLR_VEC)((k), in)
#else
#define CLR_LOAD_ANY(k) in[k]
#endif

T clr_thread_reduce(global const T *restrict in, ulong n)
{
    T s = CLR_IDENTITY;
    ulong nv = n / CLR_VEC;
#if CLR_VEC > 1
    ulong tail = nv * CLR_VEC, gid = get_global_id(0);
    if (gid < n - tail)
        s = in[tail + gid];
#endif
    clr_acc acc = clr_acc_init();
    const ulong step = (ulong)CLR_WG * CLR_UNROLL;
#if CLR_SEGMENTED
    /* Each work-group walks its own contiguous run of whole tiles. */
    ulong tiles = (nv + step - 1) / step;
    ulong per_group = (tiles + get_num_groups(0) - 1) / get_num_groups(0) * step;
    ulong i = (ulong)get_group_id(0) * per_group + get_local_id(0);
    ulong end = min(nv, (ulong)(get_group_id(0) + 1) * per_group);
    const ulong stride = step;
    nv = end;
#else
    ulong i = (ulong)get_group_id(0) * step + get_local_id(0);
    const ulong stride = (ulong)get_num_groups(0) * step;
#endif
#if CLR_NV_LOAD && CLR_VEC > 1
    if ((ulong)(uintptr_t)in % (CLR_VEC * sizeof(T)) == 0) {
        CLR_BULK_LOOP(CLR_LOAD_ALIGNED)
    } else
#endif
    {
        CLR_BULK_LOOP(CLR_LOAD_ANY)
    }
    return clr_op(s, clr_acc_result(acc));
}

#if CLR_VARIANT == 7
/* Run twice: over the input with a grid from the tuning table, then with one
 * work-group over the partial results. */
CLR_KERNEL clr_reduce(global const T *restrict in, ulong in_off, ulong n,
                      global T *restrict out, ulong out_off)
{
    local T l[CLR_WG];
    T r = clr_wg_reduce(l, clr_thread_reduce(in + in_off, n));
    if (clr_wg_is_leader())
        out[out_off + get_group_id(0)] = r;
}

#elif CLR_VARIANT == 8
/* One atomic per work-group into out[out_off], which the host has set to the
 * identity. */
#if CLR_IS_64
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define CLR_BITS ulong
#define CLR_AS_BITS as_ulong
#define CLR_CAS(p, e, d) atom_cmpxchg((volatile global ulong *)(p), e, d)
#else
#define CLR_BITS uint
#define CLR_AS_BITS as_uint
#define CLR_CAS(p, e, d) atomic_cmpxchg((volatile global uint *)(p), e, d)
#endif

void clr_atomic_combine(global T *p, T v)
{
#if CLR_ATOMIC == 2 && CLR_IS_64
    asm volatile("red.global.add.f64 [%0], %1;" ::"l"(p), "d"(v) : "memory");
#elif CLR_ATOMIC == 2
    asm volatile("red.global.add.f32 [%0], %1;" ::"l"(p), "f"(v) : "memory");
#elif CLR_ATOMIC == 1 && CLR_IS_64 && CLR_OP == 0
    atom_add((volatile global T *)p, v);
#elif CLR_ATOMIC == 1 && !CLR_IS_64 && CLR_OP == 0
    atomic_add((volatile global T *)p, v);
#elif CLR_ATOMIC == 1 && !CLR_IS_64 && CLR_OP == 1
    atomic_min((volatile global T *)p, v);
#elif CLR_ATOMIC == 1 && !CLR_IS_64 && CLR_OP == 2
    atomic_max((volatile global T *)p, v);
#else
    /* Compare-and-swap on the bits. The first attempt guesses that the
     * identity is stored, so that the stored value is only ever read by a
     * compare-and-swap (a plain read would race with the other work-groups'
     * atomics); a failed attempt returns what is stored, and the loop stops
     * as soon as that already absorbs v (min/max). */
    CLR_BITS old = CLR_AS_BITS(CLR_IDENTITY);
    for (;;) {
        CLR_BITS desired = CLR_AS_BITS(clr_op(CLR_AS_T(old), v));
        if (desired == old)
            return;
        CLR_BITS seen = CLR_CAS(p, old, desired);
        if (seen == old)
            return;
        old = seen;
    }
#endif
}

CLR_KERNEL clr_reduce(global const T *restrict in, ulong in_off, ulong n,
                      global T *out, ulong out_off)
{
    local T l[CLR_WG];
    T r = clr_wg_reduce(l, clr_thread_reduce(in + in_off, n));
    if (clr_wg_is_leader())
        clr_atomic_combine(out + out_off, r);
}

#elif CLR_VARIANT == 9
/* Single pass: every work-group writes its partial result to scratch and
 * takes a ticket; the work-group that draws the last ticket has seen every
 * other partial published, reduces them in group order (deterministic) and
 * writes the result, then resets the ticket for the next launch. Nothing
 * waits on another work-group, so no forward-progress guarantee is needed.
 * scratch: a uint ticket at byte 0 (zero between launches), partials from
 * byte 128. */
#if CLR_FENCE == 2
void clr_fence_device(void) { asm volatile("membar.gl;" ::: "memory"); }
#elif CLR_FENCE == 1
void clr_fence_device(void)
{
    atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acq_rel, memory_scope_device);
}
#else
void clr_fence_device(void) { mem_fence(CLK_GLOBAL_MEM_FENCE); }
#endif

CLR_KERNEL clr_reduce(global const T *restrict in, ulong in_off, ulong n,
                      global T *restrict out, ulong out_off, global uchar *scratch)
{
    local T l[CLR_WG];
    local int is_last;
    volatile global uint *ticket = (volatile global uint *)scratch;
    volatile global T *partials = (volatile global T *)(scratch + 128);
    uint groups = (uint)get_num_groups(0);

    T r = clr_wg_reduce(l, clr_thread_reduce(in + in_off, n));
    if (clr_wg_is_leader()) {
        partials[get_group_id(0)] = r;
        clr_fence_device();
        is_last = atomic_inc(ticket) == groups - 1;
    }
    /* The global fence too: the leader's own partial is read below by
     * another work-item of this work-group. */
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (is_last) {
        clr_fence_device();
        T v = CLR_IDENTITY;
        for (uint k = (uint)get_local_id(0); k < groups; k += CLR_WG)
            v = clr_op(v, partials[k]);
        barrier(CLK_LOCAL_MEM_FENCE);
        r = clr_wg_reduce(l, v);
        if (clr_wg_is_leader()) {
            out[out_off] = r;
            atomic_xchg(ticket, 0); /* every other access to it is atomic */
        }
    }
}
#endif

#endif /* CLR_VARIANT */
