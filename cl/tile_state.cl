/*
 * tile_state.cl — the look-back scan's tile states: each tile publishes its
 * aggregate, then its inclusive prefix, and a tile walks back over its
 * predecessors' states until it meets an inclusive prefix. Built on
 * types.cl, subgroup.cl and device_order.cl.
 *
 * The scratch (contract.h's constants), laid out for `capacity` tiles: the
 * buffer's size, not the launch's count, so that every launch on one buffer
 * finds every region at the same place:
 *   byte 0                 a uint ticket counter, zero between launches (the
 *                          work-group that draws the last ticket resets it);
 *   CLR_SCRATCH_HEADER     one CLR_LOOKBACK_SLOT_BYTES slot per tile: its
 *                          status word, or on NVIDIA for 4-byte types the whole
 *                          slot as a descriptor whose low word is the status
 *                          word and whose high word is the value;
 *   then                   the tiles' aggregates, then their inclusive
 *                          prefixes, in regions of 8 bytes per tile each.
 * A status word is (epoch << CLR_STATUS_STATE_BITS) | state, state
 * CLR_STATUS_AGGREGATE or CLR_STATUS_INCLUSIVE; a word from an earlier launch
 * carries another epoch and reads as "nothing yet", so the words need no
 * clearing between launches. Only status stores ever write a status word:
 * values of any launch, whatever its type, tile count or packing, land
 * elsewhere or in a descriptor's high word, so data can never pass for a
 * status.
 *
 * Compile-time parameters: those of types.cl, subgroup.cl and device_order.cl;
 * CLR_PACKED (default: PTX ordering and a 4-byte type) packs value and status
 * into one 64-bit descriptor.
 */

/* On NVIDIA a 4-byte value and its status word travel together in one
 * 64-bit descriptor per tile (CLR_PACKED), written and read whole, so that a
 * look-back step costs one load instead of a status load and a dependent
 * value load. */
#ifndef CLR_PACKED
#define CLR_PACKED (CLR_ORDER == CLR_ORDER_PTX && !CLR_IS_64)
#endif

typedef struct clr_tiles {
    global uint *status; /* tile t's status word: status[2 * t] */
    global T *aggregates;
    global T *inclusives;
    global ulong *descriptors;
} clr_tiles;

/* The state bits of a status word, and the status word's half of an 8-byte
 * slot: its low word, as a descriptor holds it. */
#define CLR_STATE_MASK ((1u << CLR_STATUS_STATE_BITS) - 1u)
#ifdef __ENDIAN_LITTLE__
#define CLR_STATUS_HALF 0
#else
#define CLR_STATUS_HALF 1
#endif

clr_tiles clr_tiles_at(global uchar *scratch, uint capacity)
{
    clr_tiles d;
    global uchar *slots = scratch + CLR_SCRATCH_HEADER;
    ulong region = (ulong)capacity * CLR_LOOKBACK_SLOT_BYTES;
    d.descriptors = (global ulong *)slots;
    d.status = (global uint *)slots + CLR_STATUS_HALF;
    d.aggregates = (global T *)(slots + region);
    d.inclusives = (global T *)(slots + 2 * region);
    return d;
}

#if CLR_PACKED
void clr_publish(clr_tiles d, ulong tile, uint epoch, uint state, T v)
{
    ulong w = ((ulong)as_uint(v) << 32) | (epoch << CLR_STATUS_STATE_BITS) | state;
    clr_relaxed_store64(d.descriptors + tile, w);
}

uint clr_wait_status(clr_tiles d, ulong p, uint epoch, T *value)
{
    ulong w;
    do
        w = clr_relaxed_load64(d.descriptors + p);
    while (((uint)w >> CLR_STATUS_STATE_BITS) != epoch);
    *value = CLR_AS_T((uint)(w >> 32));
    return (uint)w & CLR_STATE_MASK;
}
#else
/* Publishes v as the tile's state of this epoch: the value first, then its
 * status word. */
void clr_publish(clr_tiles d, ulong tile, uint epoch, uint state, T v)
{
    clr_value_store(state == CLR_STATUS_INCLUSIVE ? d.inclusives + tile : d.aggregates + tile, v);
    clr_status_store(d.status + 2 * tile, (epoch << CLR_STATUS_STATE_BITS) | state);
}

/* Waits for tile p's status word of this epoch; returns its state and puts
 * the value it announces in *value. */
uint clr_wait_status(clr_tiles d, ulong p, uint epoch, T *value)
{
    uint s;
    do
        s = clr_status_load(d.status + 2 * p);
    while ((s >> CLR_STATUS_STATE_BITS) != epoch);
    s &= CLR_STATE_MASK;
    *value = clr_value_load(s == CLR_STATUS_INCLUSIVE ? d.inclusives + p : d.aggregates + p);
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
        uint s = CLR_STATUS_INCLUSIVE; /* before tile 0: an inclusive identity */
        if (p >= lane)
            s = clr_wait_status(d, p - lane, epoch, &v);
        uint stop = clr_sg_first_lane(s == CLR_STATUS_INCLUSIVE);
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
        if (s == CLR_STATUS_INCLUSIVE)
            break;
    }
#endif
    return prefix;
}
