/*
 * scan_operators.cl — inclusive and exclusive scans over operators.cl's
 * accumulators: the operators past max (argmin ... mean and variance) and
 * user-defined ones (CLR_OP_CUSTOM). Reduce-then-scan in three launches
 * that keep the elements' order throughout, so that associative operators
 * that do not commute (matrix products, affine maps) scan correctly:
 *   clr_scan_op_reduce    group g's aggregate of its contiguous range into
 *                         partials[g] (work-items' runs combined in order);
 *   clr_scan_op_partials  one work-group: partials[0 .. count) become their
 *                         exclusive prefixes, in place;
 *   clr_scan_op_apply     group g walks its range again from the prefix of
 *                         the groups before it, each work-item its run from
 *                         the prefix of the runs before it, and stores every
 *                         element's prefix.
 * Element i's result is the operator's result (clr_a_store: the layout of
 * clreduce.h, or a user's accumulator) at byte out_off + i *
 * CLR_RESULT_SIZE of out.
 *
 * Rows of a pitched matrix scan in one launch of their own:
 *   clr_scan_op_rows      group g scans rows g, g + groups, ... alone, each
 *                         work-item its run of the row from the prefix of
 *                         the runs before it; indices count from the row's
 *                         start, the output's offset and pitch in results.
 *
 * Compile-time parameters (besides those of types.cl and operators.cl):
 * CLR_WG, CLR_RESULT_SIZE, CLR_SCAN_EXCLUSIVE (1: exclusive, which needs an
 * identity).
 */

#if CLR_OP <= CLR_OP_MAX
#error "scan_operators.cl scans with operators.cl's accumulators: an operator past max"
#endif
#if CLR_OP == CLR_OP_CUSTOM && CLR_SCAN_EXCLUSIVE && !CLR_U_HAS_IDENTITY
#error "an exclusive scan needs an identity"
#endif

/* Element k of the range (and of the second input). */
#if CLR_X_TWO_INPUTS
#define CLR_ELEMENT(k) clr_a_of(in[k], in2[k], (k))
#else
#define CLR_ELEMENT(k) clr_a_of(in[k], in[k], (k))
#endif

/* [*begin, *end): run `part` of `parts` equal runs of [from, to). */
void clr_run(ulong from, ulong to, ulong part, ulong parts, ulong *begin, ulong *end)
{
    ulong len = to - from, per = len / parts + (len % parts != 0);
    *begin = from + min(len, part * per);
    *end = from + min(len, (part + 1) * per);
}

/* Inclusive scan of the work-items' values in local-id order (Hillis-Steele
 * in local memory, each step combining the earlier value first); *before
 * receives the combination of the values of the work-items before this one
 * (the identity for the first). Returns the work-group's total. */
clr_a clr_wg_scan_a(local clr_a *l, clr_a v, clr_a *before)
{
    uint lid = (uint)get_local_id(0);
    l[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < CLR_WG; s <<= 1) {
        clr_a t = lid >= s ? clr_a_combine(l[lid - s], l[lid]) : l[lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        l[lid] = t;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    *before = lid > 0 ? l[lid - 1] : clr_a_identity();
    clr_a total = l[CLR_WG - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

/* This work-item's run [*b, *e) of the range [from, to) of in (and in2),
 * combined in order and scanned over the work-group: returns the range's
 * aggregate; *before is that of the runs before this work-item's. */
clr_a clr_range_runs(local clr_a *l, global const T *restrict in, global const T *restrict in2,
                     ulong from, ulong to, ulong *b, ulong *e, clr_a *before)
{
    clr_run(from, to, get_local_id(0), CLR_WG, b, e);
    clr_a v = clr_a_identity();
    for (ulong k = *b; k < *e; k++)
        v = clr_a_combine(v, CLR_ELEMENT(k));
    return clr_wg_scan_a(l, v, before);
}

/* The same over this group's range of in[0 .. n): returns the group's
 * aggregate. */
clr_a clr_group_runs(local clr_a *l, global const T *restrict in, global const T *restrict in2,
                     ulong n, ulong *b, ulong *e, clr_a *before)
{
    ulong gb, ge;
    clr_run(0, n, get_group_id(0), get_num_groups(0), &gb, &ge);
    return clr_range_runs(l, in, in2, gb, ge, b, e, before);
}

/* Stores the prefix of every element k of [b, e) at o + k * CLR_RESULT_SIZE,
 * from acc, the combination of the elements before b: with element k
 * (inclusive) or without it (exclusive). */
void clr_store_prefixes(global uchar *o, global const T *restrict in,
                        global const T *restrict in2, ulong b, ulong e, clr_a acc)
{
    for (ulong k = b; k < e; k++) {
        clr_a x = CLR_ELEMENT(k);
#if CLR_SCAN_EXCLUSIVE
        clr_a_store(o + k * CLR_RESULT_SIZE, acc);
        acc = clr_a_combine(acc, x);
#else
        acc = clr_a_combine(acc, x);
        clr_a_store(o + k * CLR_RESULT_SIZE, acc);
#endif
    }
}

CLR_KERNEL clr_scan_op_reduce(global const T *restrict in, ulong in_off, ulong n,
                                  global clr_a *restrict partials, global const T *restrict in2,
                                  ulong in2_off)
{
    local clr_a l[CLR_WG];
    ulong b, e;
    clr_a before;
    clr_a total = clr_group_runs(l, in + in_off, in2 + in2_off, n, &b, &e, &before);
    if (get_local_id(0) == 0)
        partials[get_group_id(0)] = total;
}

CLR_KERNEL clr_scan_op_partials(global clr_a *partials, ulong count)
{
    local clr_a l[CLR_WG];
    ulong b, e;
    clr_run(0, count, get_local_id(0), CLR_WG, &b, &e);
    clr_a v = clr_a_identity();
    for (ulong k = b; k < e; k++)
        v = clr_a_combine(v, partials[k]);
    clr_a before;
    clr_wg_scan_a(l, v, &before);
    for (ulong k = b; k < e; k++) {
        clr_a p = partials[k];
        partials[k] = before;
        before = clr_a_combine(before, p);
    }
}

CLR_KERNEL clr_scan_op_apply(global const T *restrict in, ulong in_off, ulong n,
                                 global uchar *restrict out, ulong out_off,
                                 global const clr_a *restrict partials,
                                 global const T *restrict in2, ulong in2_off)
{
    local clr_a l[CLR_WG];
    in += in_off;
    in2 += in2_off;
    ulong b, e;
    clr_a before;
    clr_group_runs(l, in, in2, n, &b, &e, &before);
    clr_store_prefixes(out + out_off, in, in2, b, e,
                       clr_a_combine(partials[get_group_id(0)], before));
}

/* Row r: elements [0, row_length) from in + in_off + r * pitch (and the
 * same of in2), results from result out_off + r * out_pitch of out. The
 * loop runs alike in every work-item of a group (its rows depend on the
 * group alone), so the barriers of the work-group scan are reached by all. */
CLR_KERNEL clr_scan_op_rows(global const T *restrict in, ulong in_off, ulong rows,
                            ulong row_length, ulong pitch, global uchar *restrict out,
                            ulong out_off, ulong out_pitch, global const T *restrict in2,
                            ulong in2_off)
{
    local clr_a l[CLR_WG];
    for (ulong r = get_group_id(0); r < rows; r += get_num_groups(0)) {
        global const T *x = in + in_off + r * pitch, *y = in2 + in2_off + r * pitch;
        ulong b, e;
        clr_a before;
        clr_range_runs(l, x, y, 0, row_length, &b, &e, &before);
        clr_store_prefixes(out + (out_off + r * out_pitch) * CLR_RESULT_SIZE, x, y, b, e,
                           before);
    }
}
