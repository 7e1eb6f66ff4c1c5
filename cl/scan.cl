/*
 * scan.cl — prefix scans, one algorithm per variant; the host compiles the
 * one it needs with CLR_SCAN (and leaves CLR_VARIANT undefined, so that
 * reduce.cl contributes nothing).
 *
 * Compile-time parameters (besides those of types.cl, subgroup.cl and
 * workgroup.cl):
 *   CLR_SCAN    1 Hillis-Steele, 2 Blelloch, 3 reduce-then-scan, 4 decoupled
 *               look-back (values of clreduce_scan_variant).
 *   CLR_UNROLL  vectors per work-item in a tile (3, 4).
 *   CLR_VEC     elements per vector (3, 4).
 *   CLR_FENCE   how work-groups publish to each other (4): 0 volatile
 *               accesses and mem_fence (CPUs), 1 OpenCL 2.0 release/acquire
 *               atomics at device scope, 2 PTX st.release.gpu /
 *               ld.acquire.gpu (NVIDIA).
 *
 * Every kernel takes `exclusive` (0 or 1) at run time, so one program serves
 * both kinds. Input and output may be the same range (an in-place scan):
 * every element is read before the work-item that owns it writes it, and no
 * other work-item reads it from global memory.
 */

#ifdef CLR_SCAN

#ifndef CLR_UNROLL
#define CLR_UNROLL 1
#endif

#define CLR_SCAN_KERNEL                                                        \
    __attribute__((reqd_work_group_size(CLR_WG, 1, 1))) kernel void

/* Hillis-Steele inclusive scan of one value per work-item over the
 * work-group, in the double buffer l (2 * CLR_WG elements): log2(CLR_WG)
 * steps, each combining every element with the one d places before it.
 * Returns the calling work-item's inclusive prefix; the scanned values stay
 * in l[*src * CLR_WG ..] until the next barrier, for the exclusive prefix
 * (the element before) and the total (the last). */
T clr_wg_scan_hs(local T *l, T x, uint *src_out)
{
    uint lid = (uint)get_local_id(0);
    uint src = 0;
    l[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < CLR_WG; d <<= 1) {
        T v = l[src * CLR_WG + lid];
        if (lid >= d)
            v = clr_op(l[src * CLR_WG + lid - d], v);
        l[(src ^ 1) * CLR_WG + lid] = v;
        src ^= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    *src_out = src;
    return l[src * CLR_WG + lid];
}

#if CLR_SCAN == 1 || CLR_SCAN == 2
/* ---- The classic ladder: one block per work-group in local memory; block
 * totals go to `sums`, are scanned the same way (exclusive) level by level,
 * and clr_scan_add adds them back. ---- */

#if CLR_SCAN == 1
#define CLR_BLOCK CLR_WG

/* Hillis-Steele: every work-item owns one element. */
CLR_SCAN_KERNEL clr_scan_block(global const T *in, ulong in_off, ulong n, global T *out,
                               ulong out_off, global T *sums, ulong sums_off, int exclusive)
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

#else
#define CLR_BLOCK (2 * CLR_WG)

/* One padding slot every 32 elements, so that the tree's strided accesses
 * spread over the local memory banks. */
#define CLR_PAD(i) ((i) + ((i) >> 5))

/* Blelloch: every work-item owns two elements; an up-sweep builds partial
 * sums in a balanced tree in place, the root is replaced by the identity, and
 * a down-sweep pushes prefixes back down: 2 * log2(2 * CLR_WG) steps and
 * O(n) work, giving the exclusive scan. */
CLR_SCAN_KERNEL clr_scan_block(global const T *in, ulong in_off, ulong n, global T *out,
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
CLR_SCAN_KERNEL clr_scan_add(global T *data, ulong off, ulong n, global const T *prefixes,
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

#else
/* ---- Tiles of CLR_TILE elements: each work-item holds CLR_ITEMS of them in
 * registers. With sub-groups, sub-group s owns the contiguous segment
 * [s * S * CLR_ITEMS, (s + 1) * S * CLR_ITEMS) of the tile (S its size) and
 * reads it as CLR_UNROLL rows of S vectors, lane l taking vector l of each
 * row: every load of the sub-group is one contiguous, aligned run. Without
 * sub-groups, work-item t owns elements [t * CLR_ITEMS, (t + 1) *
 * CLR_ITEMS). ---- */

#define CLR_ITEMS (CLR_UNROLL * CLR_VEC)
#define CLR_TILE ((ulong)CLR_WG * CLR_ITEMS)

#if CLR_HAS_SUBGROUPS
#define CLR_SEGMENTS (CLR_WG / clr_sg_size())
#else
#define CLR_SEGMENTS CLR_WG
#endif

/* Position in the tile of the first element of this work-item's vector u. */
uint clr_item_index(uint u)
{
#if CLR_HAS_SUBGROUPS
    uint s = clr_sg_size();
    return clr_sg_id() * s * CLR_ITEMS + (u * s + clr_sg_lane()) * CLR_VEC;
#else
    return (uint)get_local_id(0) * CLR_ITEMS + u * CLR_VEC;
#endif
}

#if CLR_VEC > 1
#define CLR_VLOAD(k, p) CLR_CAT(vload, CLR_VEC)(k, p)
#define CLR_VSTORE(v, k, p) CLR_CAT(vstore, CLR_VEC)(v, k, p)
#else
#define CLR_VLOAD(k, p) ((p)[k])
#define CLR_VSTORE(v, k, p) ((p)[k] = (v))
#endif

/* Loads this work-item's items of the tile at in[base ..], the identity past
 * n, into x. `fast`: the tile is whole and in is vector-aligned. (On the
 * H200, loads through the read-only path and streaming stores ran no faster
 * than plain ones here.) */
void clr_tile_load(global const T *in, ulong base, ulong n, int fast, private T *x)
{
    if (fast) {
#pragma unroll
        for (uint u = 0; u < CLR_UNROLL; u++) {
            VT v = *(global const VT *)(in + base + clr_item_index(u));
            CLR_VSTORE(v, u, x);
        }
    } else {
#pragma unroll
        for (uint u = 0; u < CLR_UNROLL; u++)
#pragma unroll
            for (uint k = 0; k < CLR_VEC; k++) {
                ulong i = base + clr_item_index(u) + k;
                x[u * CLR_VEC + k] = i < n ? in[i] : CLR_IDENTITY;
            }
    }
}

/* Writes this work-item's items, scanned from `prefix` (the combination of
 * everything before its vector u is prefix combined with pre[u]). */
void clr_tile_store(global T *out, ulong base, ulong n, int fast, const private T *x,
                    const private T *pre, T prefix, int exclusive)
{
#pragma unroll
    for (uint u = 0; u < CLR_UNROLL; u++) {
        T run = clr_op(prefix, pre[u]);
        T y[CLR_VEC];
#pragma unroll
        for (uint k = 0; k < CLR_VEC; k++) {
            T next = clr_op(run, x[u * CLR_VEC + k]);
            y[k] = exclusive ? run : next;
            run = next;
        }
        if (fast) {
            *(global VT *)(out + base + clr_item_index(u)) = CLR_VLOAD(0, y);
        } else {
#pragma unroll
            for (uint k = 0; k < CLR_VEC; k++) {
                ulong i = base + clr_item_index(u) + k;
                if (i < n)
                    out[i] = y[k];
            }
        }
    }
}

/* Scans the work-item's items within the tile: pre[u] receives the
 * combination of the tile's elements before vector u that precede it in its
 * segment, and the returned value is the combination of everything in the
 * tile before the work-item's segment. *total receives the tile's total.
 * Called by every work-item; l holds 2 * CLR_WG + 1 elements. */
T clr_tile_scan(local T *l, const private T *x, private T *pre, T *total)
{
    T t[CLR_UNROLL];
#pragma unroll
    for (uint u = 0; u < CLR_UNROLL; u++) {
        T s = x[u * CLR_VEC];
#pragma unroll
        for (uint k = 1; k < CLR_VEC; k++)
            s = clr_op(s, x[u * CLR_VEC + k]);
        t[u] = s;
    }
#if CLR_HAS_SUBGROUPS
    /* Row by row across the lanes, carrying each row's total to the next. */
    uint last = clr_sg_size() - 1;
    T carry = CLR_IDENTITY;
#pragma unroll
    for (uint u = 0; u < CLR_UNROLL; u++) {
        T e = clr_sg_scan_exclusive(t[u]);
        pre[u] = u ? clr_op(carry, e) : e;
        T row = clr_sg_broadcast(clr_op(e, t[u]), last);
        carry = u ? clr_op(carry, row) : row;
    }
    /* Segment totals, scanned by sub-group 0 in rows of its size. */
    uint sg = clr_sg_id(), lane = clr_sg_lane(), size = clr_sg_size();
    if (lane == last)
        l[sg] = carry;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (sg == 0) {
        T run = CLR_IDENTITY;
        for (uint base = 0; base < CLR_SEGMENTS; base += size) {
            T v = base + lane < CLR_SEGMENTS ? l[base + lane] : CLR_IDENTITY;
            T e = clr_sg_scan_exclusive(v);
            T row = clr_sg_broadcast(clr_op(e, v), last);
            if (base + lane < CLR_SEGMENTS)
                l[CLR_WG + base + lane] = clr_op(run, e);
            run = clr_op(run, row);
        }
        if (lane == 0)
            l[2 * CLR_WG] = run;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    *total = l[2 * CLR_WG];
    T before = l[CLR_WG + sg];
#else
    T run = CLR_IDENTITY;
#pragma unroll
    for (uint u = 0; u < CLR_UNROLL; u++) {
        pre[u] = run;
        run = clr_op(run, t[u]);
    }
    uint src;
    uint lid = (uint)get_local_id(0);
    clr_wg_scan_hs(l, run, &src);
    T before = lid ? l[src * CLR_WG + lid - 1] : CLR_IDENTITY;
    *total = l[src * CLR_WG + CLR_WG - 1];
#endif
    barrier(CLK_LOCAL_MEM_FENCE); /* l is free again */
    return before;
}

/* Whether the tile at base is whole and both ends are vector-aligned. */
int clr_tile_fast(global const T *in, global const T *out, ulong base, ulong n)
{
    ulong align = CLR_VEC * sizeof(T);
    return base + CLR_TILE <= n && (ulong)(uintptr_t)in % align == 0 &&
           (ulong)(uintptr_t)out % align == 0;
}

#if CLR_SCAN == 3
/* ---- Reduce, then scan. Work-group g owns tiles [g * per_group, (g + 1) *
 * per_group). ---- */

/* Phase 1: the total of each work-group's run of tiles, tile by tile as
 * phase 3 meets them: each tile's total is a work-item's items in sequence
 * then a tree over the work-group, and the tiles' totals are combined in
 * order. So every partial is grouped as phase 3 groups the prefixes, and
 * the scans' error bound (tiles before an element plus the elements of one
 * work-item) holds; a work-item adding its strided share of the whole run
 * in sequence would not. */
CLR_SCAN_KERNEL clr_rts_reduce(global const T *in, ulong in_off, ulong n, global T *partials,
                               ulong per_group)
{
    local T l[CLR_WG];
    in += in_off;
    ulong first = (ulong)get_group_id(0) * per_group;
    T acc = CLR_IDENTITY;
    for (ulong t = first; t < first + per_group && t * CLR_TILE < n; t++) {
        ulong base = t * CLR_TILE;
        T x[CLR_ITEMS];
        clr_tile_load(in, base, n, clr_tile_fast(in, in, base, n), x);
        T s = x[0];
#pragma unroll
        for (uint k = 1; k < CLR_ITEMS; k++)
            s = clr_op(s, x[k]);
        T total = clr_wg_reduce(l, s);
        if (clr_wg_is_leader())
            acc = clr_op(acc, total);
        barrier(CLK_LOCAL_MEM_FENCE); /* l is read until here */
    }
    if (clr_wg_is_leader())
        partials[get_group_id(0)] = acc;
}

/* Phase 2: one work-group turns the totals into exclusive prefixes. */
CLR_SCAN_KERNEL clr_rts_spine(global T *partials, ulong count)
{
    local T l[2 * CLR_WG];
    uint lid = (uint)get_local_id(0);
    T carry = CLR_IDENTITY;
    for (ulong base = 0; base < count; base += CLR_WG) {
        ulong i = base + lid;
        uint src;
        clr_wg_scan_hs(l, i < count ? partials[i] : CLR_IDENTITY, &src);
        T excl = lid ? l[src * CLR_WG + lid - 1] : CLR_IDENTITY;
        T total = l[src * CLR_WG + CLR_WG - 1];
        if (i < count)
            partials[i] = clr_op(carry, excl);
        carry = clr_op(carry, total);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Phase 3: every work-group scans its tiles in order from its prefix. */
CLR_SCAN_KERNEL clr_rts_scan(global const T *in, ulong in_off, ulong n, global T *out,
                             ulong out_off, global const T *partials, ulong per_group,
                             int exclusive)
{
    local T l[2 * CLR_WG + 1];
    in += in_off;
    out += out_off;
    ulong first = (ulong)get_group_id(0) * per_group;
    T prefix = partials[get_group_id(0)];
    for (ulong t = first; t < first + per_group && t * CLR_TILE < n; t++) {
        ulong base = t * CLR_TILE;
        int fast = clr_tile_fast(in, out, base, n);
        T x[CLR_ITEMS], pre[CLR_UNROLL], total;
        clr_tile_load(in, base, n, fast, x);
        T before = clr_tile_scan(l, x, pre, &total);
        clr_tile_store(out, base, n, fast, x, pre, clr_op(prefix, before), exclusive);
        prefix = clr_op(prefix, total);
    }
}

#elif CLR_SCAN == 4
/* ---- Single pass with decoupled look-back. scratch, laid out for
 * `capacity` tiles (the buffer's size, not the launch's count, so that every
 * launch on one buffer finds every region at the same place):
 *   byte 0            a uint ticket counter, zero between launches (the
 *                     work-group that draws the last ticket resets it);
 *   byte 128          one 8-byte slot per tile: its status word, or on NVIDIA
 *                     for 4-byte types the whole slot as a descriptor whose
 *                     low word is the status word and high word the value;
 *   128 + 8 capacity  the tiles' aggregates, then from 128 + 16 capacity
 *                     their inclusive prefixes (one element each).
 * A status word is (epoch << 2) | state, state 1 "aggregate published", 2
 * "inclusive prefix published"; a word from an earlier launch carries
 * another epoch and reads as "nothing yet", so the words need no clearing
 * between launches. Only status stores ever write a status word: values of
 * any launch, whatever its type, tile count or packing, land elsewhere or in
 * a descriptor's high word, so data can never pass for a status. ---- */

#if CLR_FENCE == 2
/* NVIDIA: mem_fence orders only within a work-group there, so the status
 * words are written with release and read with acquire semantics at GPU
 * scope, and the values read after an acquire go to L2 (ld.relaxed.gpu),
 * never to a stale L1 line. */
void clr_status_store(global uint *p, uint v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
uint clr_status_load(global uint *p)
{
    uint v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
T clr_value_load(global T *p)
{
#if CLR_IS_64
    ulong v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
#else
    uint v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
#endif
    return CLR_AS_T(v);
}
void clr_value_store(global T *p, T v) { *p = v; }

#elif CLR_FENCE == 1
void clr_status_store(global uint *p, uint v)
{
    atomic_store_explicit((global atomic_uint *)p, v, memory_order_release, memory_scope_device);
}
uint clr_status_load(global uint *p)
{
    return atomic_load_explicit((global atomic_uint *)p, memory_order_acquire,
                                memory_scope_device);
}
T clr_value_load(global T *p) { return *(volatile global T *)p; }
void clr_value_store(global T *p, T v) { *(volatile global T *)p = v; }

#else
/* CPUs: volatile accesses keep the compiler from caching or reordering, the
 * fence orders the value before its status word. */
void clr_status_store(global uint *p, uint v)
{
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    atomic_xchg((volatile global uint *)p, v);
}
uint clr_status_load(global uint *p)
{
    uint v = *(volatile global uint *)p;
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    return v;
}
T clr_value_load(global T *p) { return *(volatile global T *)p; }
void clr_value_store(global T *p, T v) { *(volatile global T *)p = v; }
#endif

#define CLR_AGGREGATE 1u
#define CLR_INCLUSIVE 2u

/* On NVIDIA a 4-byte value and its status word travel together in one
 * 64-bit descriptor per tile (CLR_PACKED), written and read whole, so that a
 * look-back step costs one load instead of a status load and a dependent
 * value load. */
#ifndef CLR_PACKED
#define CLR_PACKED (CLR_FENCE == 2 && !CLR_IS_64)
#endif

typedef struct clr_tiles {
    global uint *status; /* tile t's status word: status[2 * t] */
    global T *aggregates;
    global T *inclusives;
    global ulong *descriptors;
} clr_tiles;

/* The status word's half of an 8-byte slot: its low word, as a descriptor
 * holds it. */
#ifdef __ENDIAN_LITTLE__
#define CLR_STATUS_HALF 0
#else
#define CLR_STATUS_HALF 1
#endif

clr_tiles clr_tiles_at(global uchar *scratch, uint capacity)
{
    clr_tiles d;
    d.descriptors = (global ulong *)(scratch + 128);
    d.status = (global uint *)(scratch + 128) + CLR_STATUS_HALF;
    d.aggregates = (global T *)(scratch + 128 + 8 * (ulong)capacity);
    d.inclusives = (global T *)(scratch + 128 + 16 * (ulong)capacity);
    return d;
}

#if CLR_PACKED
void clr_publish(clr_tiles d, ulong tile, uint state, T v)
{
    ulong w = ((ulong)as_uint(v) << 32) | state;
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(d.descriptors + tile), "l"(w)
                 : "memory");
}

uint clr_wait_status(clr_tiles d, ulong p, uint epoch, T *value)
{
    ulong w;
    do
        asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];"
                     : "=l"(w)
                     : "l"(d.descriptors + p)
                     : "memory");
    while (((uint)w >> 2) != epoch);
    *value = CLR_AS_T((uint)(w >> 32));
    return (uint)w & 3u;
}
#else
/* Publishes v for the tile: the value first, then its status word. */
void clr_publish(clr_tiles d, ulong tile, uint state, T v)
{
    clr_value_store((state & 3u) == CLR_INCLUSIVE ? d.inclusives + tile : d.aggregates + tile, v);
    clr_status_store(d.status + 2 * tile, state);
}

/* Waits for tile p's status word of this epoch; returns its state and puts
 * the value it announces in *value. */
uint clr_wait_status(clr_tiles d, ulong p, uint epoch, T *value)
{
    uint s;
    do
        s = clr_status_load(d.status + 2 * p);
    while ((s >> 2) != epoch);
    s &= 3u;
    *value = clr_value_load(s == CLR_INCLUSIVE ? d.inclusives + p : d.aggregates + p);
    return s;
}
#endif

/* The combination of all tiles before `tile`: walks back from tile - 1,
 * combining aggregates until a tile with its inclusive prefix published.
 * Called by sub-group 0, or by work-item 0 without sub-groups. */
T clr_look_back(clr_tiles d, ulong tile, uint epoch)
{
    T prefix = CLR_IDENTITY;
#if CLR_HAS_SUBGROUPS
    /* Lane k at tile p - k. */
    uint lane = clr_sg_lane(), size = clr_sg_size();
    for (ulong p = tile - 1;; p -= size) {
        T v = CLR_IDENTITY;
        uint s = CLR_INCLUSIVE; /* before tile 0: an inclusive identity */
        if (p >= lane)
            s = clr_wait_status(d, p - lane, epoch, &v);
        uint stop = clr_sg_first_lane(s == CLR_INCLUSIVE);
        T window = clr_sg_broadcast(clr_sg_reduce(lane <= stop ? v : CLR_IDENTITY), 0);
        prefix = clr_op(window, prefix);
        if (stop < size)
            break;
    }
#else
    for (ulong p = tile;;) {
        p--;
        T v;
        uint s = clr_wait_status(d, p, epoch, &v);
        prefix = clr_op(v, prefix);
        if (s == CLR_INCLUSIVE)
            break;
    }
#endif
    return prefix;
}

/* Tiles in the order work-groups start: a tile waits only for tiles whose
 * work-groups are already running, so no work-group waits for one that may
 * never be scheduled. (Drawing a second ticket ahead, for a work-group to
 * take when done, made the H200 slower: a tile claimed early holds up every
 * later tile's look-back until its work-group gets to it.) */
CLR_SCAN_KERNEL clr_scan_lookback(global const T *in, ulong in_off, ulong n, global T *out,
                                  ulong out_off, global uchar *scratch, uint capacity,
                                  uint epoch, int exclusive)
{
    local T l[2 * CLR_WG + 1];
    local uint l_tile;
    local T l_prefix;
    uint tiles = (uint)get_num_groups(0);
    volatile global uint *counter = (volatile global uint *)scratch;
    clr_tiles d = clr_tiles_at(scratch, capacity);
    uint lid = (uint)get_local_id(0);
    in += in_off;
    out += out_off;

    if (lid == 0) {
        uint t = atomic_inc(counter);
        if (t == tiles - 1)
            atomic_xchg(counter, 0u); /* every ticket is drawn */
        l_tile = t;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong tile = l_tile;
    ulong base = tile * CLR_TILE;
    int fast = clr_tile_fast(in, out, base, n);
    T x[CLR_ITEMS], pre[CLR_UNROLL], total;
    clr_tile_load(in, base, n, fast, x);
    T before = clr_tile_scan(l, x, pre, &total);

    if (tile == 0) {
        if (lid == 0) {
            clr_publish(d, 0, (epoch << 2) | CLR_INCLUSIVE, total);
            l_prefix = CLR_IDENTITY;
        }
    } else {
        if (lid == 0)
            clr_publish(d, tile, (epoch << 2) | CLR_AGGREGATE, total);
#if CLR_HAS_SUBGROUPS
        if (clr_sg_id() == 0) {
#else
        if (lid == 0) {
#endif
            T prefix = clr_look_back(d, tile, epoch);
            if (lid == 0) {
                clr_publish(d, tile, (epoch << 2) | CLR_INCLUSIVE, clr_op(prefix, total));
                l_prefix = prefix;
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    clr_tile_store(out, base, n, fast, x, pre, clr_op(l_prefix, before), exclusive);
}
#endif /* CLR_SCAN == 3, 4 */

#endif /* CLR_SCAN == 1, 2 */

#endif /* CLR_SCAN */
