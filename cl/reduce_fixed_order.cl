/*
 * reduce_fixed_order.cl — the reproducible reduction of one range, in the
 * order of fixed_order.cl: a launch per level of tiles, or one launch.
 *
 * Compile-time parameters: those of fixed_order.cl.
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

#if CLR_FIXED_FINISH
/* After this work-group's tiles: the work-group that draws the last ticket
 * has seen every tile's value published (as in reduce_grid.cl's single
 * pass) and reduces the levels above (clr_fixed_levels), the final one
 * into *result; then it resets the ticket for the next launch. */
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
    clr_fixed_levels(l, levels, tiles, result);
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
        T r = clr_wg_reduce_tree(l, clr_fixed_lane(in, in, n, t * CLR_FIXED_TILE));
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
