/*
 * reduce_fixed_order.cl — the reproducible reduction: an order of operations
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
 * value is left (the host runs one launch per such level).
 *
 * Compile-time parameters: those of types.cl and workgroup_reduce.cl, with
 * CLR_WG == CLR_FIXED_LANES and CLR_VEC * sizeof(T) == 16; CLR_NV_LOAD as
 * in types.cl (the order does not depend on how a vector is loaded).
 *
 * Kernel: clr_reduce_fixed_order(in, in_off, n, out, out_off) writes the
 * value of tile t of in[in_off .. in_off + n) to out[out_off + t]; the
 * work-groups walk the tiles, as many of them as the host launches.
 * With CLR_FIXED_FINISH 1 (devices that order memory between work-groups,
 * device_order.cl) it takes (..., scratch, levels) and finishes in the same
 * launch: the tiles' values go to levels[], and the work-group that draws
 * the last ticket of scratch reduces the levels above in turn, into
 * out[out_off] (one tile alone goes there directly).
 */

#if CLR_WG != CLR_FIXED_LANES || CLR_VEC * CLR_T_BYTES != 16
#error "the fixed order needs CLR_FIXED_LANES work-items and 16-byte vectors"
#endif

#define CLR_FIXED_TILE (CLR_FIXED_TILE_BYTES / CLR_T_BYTES)

#if CLR_VEC > 1
#define CLR_FIXED_LOAD_ANY(k, p) CLR_CAT(vload, CLR_VEC)((k), (p))
#else
#define CLR_FIXED_LOAD_ANY(k, p) (p)[k]
#endif

/* This work-item's lane of the tile starting at element `base`, element by
 * element: any alignment, a partial tile, or values other work-groups of
 * this launch wrote (volatile: never through a read-only cache). */
T clr_fixed_lane_elements(volatile global const T *in, ulong n, ulong base)
{
    const uint lane = (uint)get_local_id(0);
    T a[CLR_VEC];
    for (uint j = 0; j < CLR_VEC; j++)
        a[j] = CLR_IDENTITY;
    for (uint k = 0; k < CLR_FIXED_STEPS; k++) {
        ulong first = base + ((ulong)k * CLR_FIXED_LANES + lane) * CLR_VEC;
        for (uint j = 0; j < CLR_VEC; j++)
            if (first + j < n)
                a[j] = clr_op(a[j], in[first + j]);
    }
#if CLR_VEC > 1
    return clr_hreduce(CLR_CAT(vload, CLR_VEC)(0, a));
#else
    return a[0];
#endif
}

/* This work-item's lane of the tile starting at element `base`, combined to
 * one value. A whole tile is read as vectors, CLR_FIXED_STEPS of them in
 * flight; the last, partial tile element by element. */
T clr_fixed_lane(global const T *restrict in, ulong n, ulong base)
{
    const uint lane = (uint)get_local_id(0);
    global const T *p = in + base + (ulong)lane * CLR_VEC;
    VT acc = (VT)(CLR_IDENTITY);
    if (n - base < CLR_FIXED_TILE)
        return clr_fixed_lane_elements(in, n, base);
    {
        VT v[CLR_FIXED_STEPS];
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
            acc = clr_opv(acc, v[k]);
    }
    return clr_hreduce(acc);
}

#if CLR_FIXED_FINISH
/* After this work-group's tiles: the work-group that draws the last ticket
 * has seen every tile's value published (as in reduce_grid.cl's single
 * pass) and reduces the levels above, each level's values after the last,
 * the final one into *result; then it resets the ticket for the next
 * launch. */
void clr_fixed_finish(local T *l, local int *is_last, global uchar *scratch, global T *levels,
                      ulong tiles, global T *result)
{
    volatile global uint *ticket = (volatile global uint *)scratch;
    if (get_local_id(0) == 0) {
        clr_fence_device();
        *is_last = atomic_inc(ticket) == (uint)get_num_groups(0) - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (!*is_last)
        return;
    clr_fence_device();
    volatile global T *src = levels, *dst = levels + tiles;
    for (ulong m = tiles;;) {
        const ulong above = (m + CLR_FIXED_TILE - 1) / CLR_FIXED_TILE;
        for (ulong t = 0; t < above; t++) {
            T r = clr_wg_reduce_tree(l, clr_fixed_lane_elements(src, m, t * CLR_FIXED_TILE));
            if (get_local_id(0) == 0) {
                if (above == 1)
                    *result = r;
                else
                    dst[t] = r;
            }
            barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        }
        if (above == 1)
            break;
        src = dst;
        dst += above;
        m = above;
    }
    if (get_local_id(0) == 0)
        atomic_xchg(ticket, 0); /* every other access to it is atomic */
}
#endif

CLR_KERNEL clr_reduce_fixed_order(global const T *restrict in, ulong in_off, ulong n,
                                  global T *restrict out, ulong out_off
#if CLR_FIXED_FINISH
                                  , global uchar *scratch, global T *levels
#endif
)
{
    local T l[CLR_WG];
    in += in_off;
    const ulong tiles = (n + CLR_FIXED_TILE - 1) / CLR_FIXED_TILE;
#if CLR_FIXED_FINISH
    local int is_last;
    global T *values = tiles == 1 ? out + out_off : levels;
#else
    global T *values = out + out_off;
#endif
    for (ulong t = get_group_id(0); t < tiles; t += get_num_groups(0)) {
        T r = clr_wg_reduce_tree(l, clr_fixed_lane(in, n, t * CLR_FIXED_TILE));
        if (get_local_id(0) == 0)
            values[t] = r;
        /* Every work-item has read l[0] before the next tile writes it. */
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#if CLR_FIXED_FINISH
    if (tiles > 1)
        clr_fixed_finish(l, &is_last, scratch, levels, tiles, out + out_off);
#endif
}
