/*
 * reduce_operators.cl — reductions with the operators of operators.cl, in
 * the grid shape of reduce_grid.cl: a grid that fills the device walks the
 * input with vector loads, CLR_UNROLL of them in flight per work-item, and
 * elements land in work-items exactly as there (grid_walk.cl); each
 * work-group reduces its work-items' accumulators in local memory
 * (grid_accumulators.cl). Kernels:
 *   clr_reduce_op         CLR_VARIANT CLR_REDUCE_SINGLE_PASS: the last
 *                         work-group to finish combines the others'
 *                         accumulators in group order and stores the result
 *                         (as reduce_grid.cl's single pass);
 *                         CLR_REDUCE_GRID_STRIDE: one accumulator per
 *                         work-group into `scratch` (the result itself when
 *                         there is one work-group), then
 *   clr_reduce_op_finish  one work-group over those accumulators.
 *
 * Compile-time parameters (besides those of types.cl, operators.cl,
 * grid_walk.cl and, for the single pass, device_order.cl): CLR_VARIANT.
 *
 * A user-defined operator (CLR_OP_CUSTOM) names the kernels CLR_U_KERNEL and
 * CLR_U_FINISH_KERNEL; unless it is commutative (CLR_U_COMMUTATIVE), the
 * kernels keep the order of elements (grid_accumulators.cl's CLR_ORDERED).
 *
 * clr_reduce_op(in, in_off, n, out, out_off, scratch, in2, in2_off) reduces
 * in[in_off .. in_off + n) (with in2[in2_off ..] for dot; other operators
 * ignore in2) into the result at byte out_off of out; offsets and counts are
 * 64-bit. clr_reduce_op_finish(partials, count, out, out_off).
 */

#if CLR_OP == CLR_OP_CUSTOM
#define CLR_REDUCE_KERNEL CLR_U_KERNEL
#define CLR_FINISH_KERNEL CLR_U_FINISH_KERNEL
#else
#define CLR_REDUCE_KERNEL clr_reduce_op
#define CLR_FINISH_KERNEL clr_reduce_op_finish
#endif

/* The host keeps 32 bytes per accumulator in scratch and partials
 * (src/operators.c's ACCUMULATOR_MAX). */
typedef char clr_accumulator_fits_32_bytes[sizeof(clr_a) <= 32 ? 1 : -1];

#if CLR_VARIANT == CLR_REDUCE_SINGLE_PASS
/* scratch: a uint ticket at byte 0 (zero between launches), accumulators
 * from byte CLR_SCRATCH_HEADER; reduce_grid.cl's single pass says why this
 * needs no work-group to wait for another. */
CLR_KERNEL CLR_REDUCE_KERNEL(global const T *restrict in, ulong in_off, ulong n,
                         global uchar *restrict out, ulong out_off, global uchar *scratch,
                         global const T *restrict in2, ulong in2_off)
{
    local clr_a l[CLR_WG];
    local int is_last;
    volatile global uint *ticket = (volatile global uint *)scratch;
    volatile global clr_a *partials = (volatile global clr_a *)(scratch + CLR_SCRATCH_HEADER);
    uint groups = (uint)get_num_groups(0);

    clr_a r = clr_wg_reduce_a(l, clr_thread_reduce(in + in_off, in2 + in2_off, n));
    if (get_local_id(0) == 0) {
        partials[get_group_id(0)] = r;
        clr_fence_device();
        is_last = atomic_inc(ticket) == groups - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (is_last) {
        clr_fence_device();
        r = clr_combine_partials(l, partials, groups);
        if (get_local_id(0) == 0) {
            clr_a_store(out + out_off, r);
            atomic_xchg(ticket, 0);
        }
    }
}

#elif CLR_VARIANT == CLR_REDUCE_GRID_STRIDE
CLR_KERNEL CLR_REDUCE_KERNEL(global const T *restrict in, ulong in_off, ulong n,
                         global uchar *restrict out, ulong out_off, global uchar *scratch,
                         global const T *restrict in2, ulong in2_off)
{
    local clr_a l[CLR_WG];
    clr_a r = clr_wg_reduce_a(l, clr_thread_reduce(in + in_off, in2 + in2_off, n));
    if (get_local_id(0) == 0) {
        if (get_num_groups(0) == 1)
            clr_a_store(out + out_off, r);
        else
            ((global clr_a *)scratch)[get_group_id(0)] = r;
    }
}

CLR_KERNEL CLR_FINISH_KERNEL(global uchar *partials, ulong count,
                                global uchar *restrict out, ulong out_off)
{
    local clr_a l[CLR_WG];
    clr_a r = clr_combine_partials(l, (volatile global clr_a *)partials, (uint)count);
    if (get_local_id(0) == 0)
        clr_a_store(out + out_off, r);
}
#endif /* CLR_VARIANT */
