/*
 * tile_state.cl — the look-back scan's tile states: each tile publishes its
 * aggregate, then its inclusive prefix, and a tile walks back over its
 * predecessors' states until it meets an inclusive prefix, or a tile that
 * has published nothing after a bounded number of polls (whose input its
 * work-group then reduces itself, scan_lookback.cl, and may offer as that
 * tile's aggregate). Built on types.cl, subgroup.cl and device_order.cl.
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
 * clearing between launches. Only status stores ever write a status word
 * (a publication, or an offer's compare-and-swap, which replaces only the
 * word of an earlier launch it read): values of any launch, whatever its
 * type, tile count or packing, land elsewhere or in a descriptor's high
 * word, so data can never pass for a status.
 *
 * Compile-time parameters: those of types.cl, subgroup.cl and device_order.cl;
 * CLR_PACKED (default: PTX ordering and a 4-byte type) packs value and status
 * into one 64-bit descriptor; CLR_LOOKBACK_SPIN (default
 * CLR_LOOKBACK_SPIN_DEFAULT of contract.h) bounds the polls.
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

#ifndef CLR_LOOKBACK_SPIN
#define CLR_LOOKBACK_SPIN CLR_LOOKBACK_SPIN_DEFAULT
#endif

/* The state of a tile whose status word shows nothing of this launch yet
 * (never stored: published states are CLR_STATUS_AGGREGATE and
 * CLR_STATUS_INCLUSIVE). */
#define CLR_STATUS_NONE 0u

/* Whether a status word is of this launch. */
#define CLR_STATUS_IS(word, epoch) (((uint)(word) >> CLR_STATUS_STATE_BITS) == (epoch))

#if CLR_PACKED
void clr_publish(clr_tiles d, ulong tile, uint epoch, uint state, T v)
{
    ulong w = ((ulong)as_uint(v) << 32) | (epoch << CLR_STATUS_STATE_BITS) | state;
    clr_relaxed_store64(d.descriptors + tile, w);
}

/* Polls tile p's descriptor until it shows this launch's epoch, at most
 * 1 + CLR_LOOKBACK_SPIN times: returns its state and puts its value in
 * *value, or returns CLR_STATUS_NONE (*value untouched). The first poll is
 * all a tile that finds its predecessor published pays: the polls are
 * counted in the slow branch only. */
uint clr_poll_status(clr_tiles d, ulong p, uint epoch, T *value)
{
    ulong w = clr_relaxed_load64(d.descriptors + p);
    if (!CLR_STATUS_IS(w, epoch)) {
        for (uint k = 0; k < CLR_LOOKBACK_SPIN && !CLR_STATUS_IS(w, epoch); k++)
            w = clr_relaxed_load64(d.descriptors + p);
        if (!CLR_STATUS_IS(w, epoch))
            return CLR_STATUS_NONE;
    }
    *value = CLR_AS_T((uint)(w >> 32));
    return (uint)w & CLR_STATE_MASK;
}

/* Tile p's state if published (once, no waiting), else CLR_STATUS_NONE
 * with the descriptor as read in *seen. */
uint clr_read_status(clr_tiles d, ulong p, uint epoch, T *value, ulong *seen)
{
    ulong w = clr_relaxed_load64(d.descriptors + p);
    *seen = w;
    if (!CLR_STATUS_IS(w, epoch))
        return CLR_STATUS_NONE;
    *value = CLR_AS_T((uint)(w >> 32));
    return (uint)w & CLR_STATE_MASK;
}

/* Publishes v as tile p's state unless its descriptor changed from `seen`
 * (then its owner published, with the same value). */
void clr_offer(clr_tiles d, ulong p, uint epoch, uint state, T v, ulong seen)
{
    ulong w = ((ulong)as_uint(v) << 32) | (epoch << CLR_STATUS_STATE_BITS) | state;
    clr_relaxed_cas64(d.descriptors + p, seen, w);
}
#else
/* Publishes v as the tile's state of this epoch: the value first, then its
 * status word. */
void clr_publish(clr_tiles d, ulong tile, uint epoch, uint state, T v)
{
    clr_value_store(state == CLR_STATUS_INCLUSIVE ? d.inclusives + tile : d.aggregates + tile, v);
    clr_status_store(d.status + 2 * tile, (epoch << CLR_STATUS_STATE_BITS) | state);
}

/* Polls tile p's status word until it shows this launch's epoch, at most
 * 1 + CLR_LOOKBACK_SPIN times: returns its state and puts the value it
 * announces in *value, or returns CLR_STATUS_NONE (*value untouched). The
 * first poll is all a tile that finds its predecessor published pays: the
 * polls are counted in the slow branch only. */
uint clr_poll_status(clr_tiles d, ulong p, uint epoch, T *value)
{
    uint s = clr_status_load(d.status + 2 * p);
    if (!CLR_STATUS_IS(s, epoch)) {
        for (uint k = 0; k < CLR_LOOKBACK_SPIN && !CLR_STATUS_IS(s, epoch); k++)
            s = clr_status_load(d.status + 2 * p);
        if (!CLR_STATUS_IS(s, epoch))
            return CLR_STATUS_NONE;
    }
    s &= CLR_STATE_MASK;
    *value = clr_value_load(s == CLR_STATUS_INCLUSIVE ? d.inclusives + p : d.aggregates + p);
    return s;
}

/* Tile p's state if published (once, no waiting), else CLR_STATUS_NONE
 * with the status word as read in *seen. */
uint clr_read_status(clr_tiles d, ulong p, uint epoch, T *value, uint *seen)
{
    uint s = clr_status_load(d.status + 2 * p);
    *seen = s;
    if (!CLR_STATUS_IS(s, epoch))
        return CLR_STATUS_NONE;
    s &= CLR_STATE_MASK;
    *value = clr_value_load(s == CLR_STATUS_INCLUSIVE ? d.inclusives + p : d.aggregates + p);
    return s;
}

/* Publishes v as tile p's state unless its status word changed from `seen`
 * (then its owner published, with the same value). The value may land
 * either way: it has the bits the owner stores there, and only a status
 * word of this epoch makes anyone read it. */
void clr_offer(clr_tiles d, ulong p, uint epoch, uint state, T v, uint seen)
{
    clr_value_store(state == CLR_STATUS_INCLUSIVE ? d.inclusives + p : d.aggregates + p, v);
    clr_status_cas(d.status + 2 * p, seen, (epoch << CLR_STATUS_STATE_BITS) | state);
}
#endif

/* What clr_look_back returns when it has met an inclusive prefix (or passed
 * tile 0): no tile is left to wait for. */
#define CLR_NO_TILE ((ulong)-1)

/* Combines into *prefix the states of the tiles before `from`, walking back
 * from tile from - 1 (*prefix: the combination of the tiles from `from` on
 * that the caller has already taken): combines aggregates until a tile with
 * its inclusive prefix published, and returns CLR_NO_TILE; or stops at a
 * tile that has published nothing after CLR_LOOKBACK_SPIN more polls,
 * having combined the tiles after it, and returns its index, for the
 * work-group to reduce it (scan_lookback.cl). Called by sub-group 0, or by
 * work-item 0 without sub-groups. */
ulong clr_look_back(clr_tiles d, ulong from, uint epoch, T *prefix)
{
#if CLR_HAS_SUBGROUPS
    /* Lane k at tile p - k. */
    uint lane = clr_sg_lane(), size = clr_sg_size();
    for (ulong p = from - 1;; p -= size) {
        T v = CLR_IDENTITY;
        uint s = CLR_STATUS_INCLUSIVE; /* before tile 0: an inclusive identity */
        if (p >= lane)
            s = clr_poll_status(d, p - lane, epoch, &v);
        /* The first lane that ends the window: an inclusive prefix, or a
         * tile with nothing published (whose v is the identity). */
        uint stop = clr_sg_first_lane(s != CLR_STATUS_AGGREGATE);
        T window = clr_sg_broadcast(clr_sg_reduce(lane <= stop ? v : CLR_IDENTITY), 0);
        *prefix = clr_op(window, *prefix);
        if (stop < size)
            return clr_sg_first_lane(s == CLR_STATUS_NONE) == stop ? p - stop : CLR_NO_TILE;
    }
#else
    for (ulong p = from;;) {
        p--;
        T v;
        uint s = clr_poll_status(d, p, epoch, &v);
        if (s == CLR_STATUS_NONE)
            return p;
        *prefix = clr_op(v, *prefix);
        if (s == CLR_STATUS_INCLUSIVE)
            return CLR_NO_TILE;
    }
#endif
}

/* After the work-group has reduced tile p's input to `total`: the state to
 * take for tile p, with its value in *value. A state published in the
 * meantime wins where `trust` is set: the input may since have been
 * overwritten by its scan in place, and what its owner published is right
 * in any case. Otherwise `total`, as its aggregate (its inclusive prefix for
 * tile 0), offered to the tiles that look back past it where nothing was
 * published. Called by one work-item. */
uint clr_settle(clr_tiles d, ulong p, uint epoch, T total, int trust, T *value)
{
#if CLR_PACKED
    ulong seen;
#else
    uint seen;
#endif
    T published;
    uint s = clr_read_status(d, p, epoch, &published, &seen);
    if (s != CLR_STATUS_NONE && trust) {
        *value = published;
        return s;
    }
    s = p ? CLR_STATUS_AGGREGATE : CLR_STATUS_INCLUSIVE;
    if (!CLR_STATUS_IS(seen, epoch))
        clr_offer(d, p, epoch, s, total, seen);
    *value = total;
    return s;
}
