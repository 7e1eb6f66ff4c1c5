/*
 * scan_ladder.cl — the classic scans: one block per work-group in local
 * memory; the blocks' totals go to `sums`, are scanned the same way
 * (exclusive) level by level, and clr_scan_add combines them back in.
 *
 * Compile-time parameters (besides those of types.cl and workgroup_scan.cl):
 *   CLR_SCAN  CLR_SCAN_HILLIS_STEELE (kernel clr_scan_hillis_steele, a block
 *             of CLR_WG elements) or CLR_SCAN_BLELLOCH (clr_scan_blelloch,
 *             2 * CLR_WG elements); both with clr_scan_add.
 *
 * Every block kernel takes `exclusive` (0 or 1) at run time. Input and output
 * may be the same range: every element is read before the work-item that
 * owns it writes it, and no other work-item reads it from global memory.
 */

#if CLR_SCAN == CLR_SCAN_HILLIS_STEELE
#define CLR_BLOCK CLR_WG

/* Hillis-Steele: every work-item owns one element. */
CLR_KERNEL clr_scan_hillis_steele(global const T *in, ulong in_off, ulong n, global T *out,
                                  ulong out_off, global T *sums, ulong sums_off,
                                  int exclusive)
{
    local T l[2 * CLR_WG];
    uint lid = (uint)get_local_id(0);
    ulong i = (ulong)get_group_id(0) * CLR_WG + lid;
    uint src;
    T incl = clr_wg_scan_hs(l, i < n ? in[in_off + i] : CLR_IDENTITY, &src);
    T r = incl;
    if (exclusive)
        r = lid ? l[src * CLR_WG + lid - 1] : CLR_IDENTITY;
    if (i < n)
        out[out_off + i] = r;
    if (sums && lid == CLR_WG - 1)
        sums[sums_off + get_group_id(0)] = incl;
}

#elif CLR_SCAN == CLR_SCAN_BLELLOCH
#define CLR_BLOCK (2 * CLR_WG)

/* One padding slot every 32 elements, so that the tree's strided accesses
 * spread over the local memory banks. */
#define CLR_PAD(i) ((i) + ((i) >> 5))

/* Blelloch: every work-item owns two elements; an up-sweep builds partial
 * sums in a balanced tree in place, the root is replaced by the identity, and
 * a down-sweep pushes prefixes back down: 2 * log2(2 * CLR_WG) steps and
 * O(n) work, giving the exclusive scan. */
CLR_KERNEL clr_scan_blelloch(global const T *in, ulong in_off, ulong n, global T *out,
                             ulong out_off, global T *sums, ulong sums_off, int exclusive)
{
    local T l[CLR_PAD(2 * CLR_WG) + 1];
    uint lid = (uint)get_local_id(0);
    ulong base = (ulong)get_group_id(0) * (2 * CLR_WG);
    uint a = lid, b = lid + CLR_WG;
    T xa = base + a < n ? in[in_off + base + a] : CLR_IDENTITY;
    T xb = base + b < n ? in[in_off + base + b] : CLR_IDENTITY;
    l[CLR_PAD(a)] = xa;
    l[CLR_PAD(b)] = xb;
    uint offset = 1;
    for (uint d = CLR_WG; d > 0; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d) {
            uint ai = offset * (2 * lid + 1) - 1, bi = offset * (2 * lid + 2) - 1;
            l[CLR_PAD(bi)] = clr_op(l[CLR_PAD(ai)], l[CLR_PAD(bi)]);
        }
        offset <<= 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        if (sums)
            sums[sums_off + get_group_id(0)] = l[CLR_PAD(2 * CLR_WG - 1)];
        l[CLR_PAD(2 * CLR_WG - 1)] = CLR_IDENTITY;
    }
    for (uint d = 1; d < 2 * CLR_WG; d <<= 1) {
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d) {
            uint ai = offset * (2 * lid + 1) - 1, bi = offset * (2 * lid + 2) - 1;
            T left = l[CLR_PAD(ai)];
            l[CLR_PAD(ai)] = l[CLR_PAD(bi)];
            l[CLR_PAD(bi)] = clr_op(l[CLR_PAD(bi)], left);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    T ea = l[CLR_PAD(a)], eb = l[CLR_PAD(b)];
    if (base + a < n)
        out[out_off + base + a] = exclusive ? ea : clr_op(ea, xa);
    if (base + b < n)
        out[out_off + base + b] = exclusive ? eb : clr_op(eb, xb);
}
#endif

/* Block g > 0 of data[off .. off + n) combines prefixes[pre_off + g] (the
 * exclusive prefix of the block totals) into each of its elements. Launched
 * with one work-group per block but the first. */
CLR_KERNEL clr_scan_add(global T *data, ulong off, ulong n, global const T *prefixes,
                        ulong pre_off)
{
    ulong g = (ulong)get_group_id(0) + 1;
    T p = prefixes[pre_off + g];
    for (uint k = (uint)get_local_id(0); k < CLR_BLOCK; k += CLR_WG) {
        ulong i = g * CLR_BLOCK + k;
        if (i < n)
            data[off + i] = clr_op(p, data[off + i]);
    }
}
