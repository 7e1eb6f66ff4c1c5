/*
 * tile_state.cl — the look-back scan's tile states: each tile publishes its
 * aggregate, then its inclusive prefix, and a tile walks back over its
 * predecessors' states until it meets an inclusive prefix. Built on
 * types.cl, subgroup.cl and device_order.cl.
 *
 * The scratch (contract.h's constants):
 *   byte 0                 a uint ticket counter, zero between launches (the
 *                          work-group that draws the last ticket resets it);
 *   CLR_SCRATCH_HEADER     one slot of CLR_LOOKBACK_SLOT_BYTES per tile, a
 *                          cache line of its own: its status word in bytes
 *                          0-3, its aggregate in bytes 16-23 and its
 *                          inclusive prefix in bytes 24-31; or, packed
 *                          (below), one or two descriptors of 8 bytes from
 *                          byte 0, each a status word in its low half and a
 *                          value or a value's half in its high half.
 * Every launch, whatever its type or tile count, finds tile t's slot at the
 * same place. A status word is (epoch << CLR_STATUS_STATE_BITS) | state,
 * state CLR_STATUS_AGGREGATE or CLR_STATUS_INCLUSIVE; a word from an earlier
 * launch carries another epoch and reads as "nothing yet", so the words need
 * no clearing between launches. Only status stores ever write a status word
 * (bytes 0-3 and 8-11 of a slot): values of any launch, whatever its type or
 * packing, land in bytes 4-7, 12-15 or 16-31, so data can never pass for a
 * status.
 *
 * With CLR_LOOKBACK_FALLBACK=1 a wait for a predecessor's state is bounded:
 * after `spins` polls in vain the look-back gives up on that tile and names
 * it, so that its work-group can reduce the tile itself from the input
 * (scan_lookback.cl). Nothing then depends on the predecessor's work-group
 * ever running again. With 0 (the default) waits last as long as it takes:
 * for devices that keep a started work-group running, where the fallback's
 * registers cost the H200's look-back 1 to 7%.
 *
 * Compile-time parameters: those of types.cl, subgroup.cl and device_order.cl;
 * CLR_LOOKBACK_FALLBACK as above; CLR_PACKED (default: PTX ordering) packs
 * each value with its status word, as below. For tests
 * only (each implies CLR_LOOKBACK_FALLBACK=1): CLR_TEST_LOOKBACK_SPINS
 * replaces every bounded wait's count of polls, and CLR_TEST_LOOKBACK_HIDE=1
 * makes the states of tiles 0, 3, 6, ... invisible to bounded waits, as if
 * their work-groups had stalled (=2 as 1, and scan_lookback.cl's fallback
 * then counts the tile it reduced twice: a wrong result the tests must see).
 */

/* Packed (the default on NVIDIA), a tile's value travels with its status
 * word, so that a look-back step costs one load instead of a status load and
 * a dependent value load: a 4-byte value in one descriptor, written and read
 * whole; an 8-byte value in two, its low and high halves, written and read
 * in one access of two whole words. The two may come from different
 * publications (a tile's aggregate and then its inclusive prefix, or another
 * launch's): they belong together only when their status words agree, and
 * a reader that finds them apart reads again. Elsewhere CLR_PACKED=1 is for
 * tests: it runs the same logic on CPU runtimes. */
#ifndef CLR_PACKED
#define CLR_PACKED (CLR_ORDER == CLR_ORDER_PTX)
#endif

/* The slots, from CLR_SCRATCH_HEADER on. (A line of its own for each
 * tile's state ran the H200's look-back scans of 2^28 elements 7-10% faster
 * than 16 bytes a tile: tiles polled and published side by side no longer
 * share a line.) */
typedef struct clr_tiles {
    global uchar *slots;
} clr_tiles;

/* The state bits of a status word. */
#define CLR_STATE_MASK ((1u << CLR_STATUS_STATE_BITS) - 1u)
#define CLR_STATUS_NONE 0u  /* no state of this epoch yet */
#define CLR_NO_TILE (~0ul)  /* the look-back met an inclusive prefix */
#define CLR_FOREVER (~0u)   /* polls of a wait that never gives up */

#ifndef CLR_TEST_LOOKBACK_HIDE
#define CLR_TEST_LOOKBACK_HIDE 0
#endif
#if defined(CLR_TEST_LOOKBACK_SPINS) || CLR_TEST_LOOKBACK_HIDE
#undef CLR_LOOKBACK_FALLBACK
#define CLR_LOOKBACK_FALLBACK 1
#endif
#ifndef CLR_LOOKBACK_FALLBACK
#define CLR_LOOKBACK_FALLBACK 0
#endif
#ifdef __ENDIAN_LITTLE__
#define CLR_STATUS_HALF 0
#else
#define CLR_STATUS_HALF 1
#endif

clr_tiles clr_tiles_at(global uchar *scratch)
{
    clr_tiles d = {scratch + CLR_SCRATCH_HEADER};
    return d;
}

global uchar *clr_slot(clr_tiles d, ulong tile) { return d.slots + tile * CLR_LOOKBACK_SLOT_BYTES; }

/* The slot's descriptors, its status word and its values. */
global ulong *clr_descriptors(clr_tiles d, ulong tile) { return (global ulong *)clr_slot(d, tile); }
global uint *clr_status_word(clr_tiles d, ulong tile)
{
    return (global uint *)clr_slot(d, tile) + CLR_STATUS_HALF;
}
global T *clr_state_value(clr_tiles d, ulong tile, uint state)
{
    return (global T *)(clr_slot(d, tile) + (state == CLR_STATUS_INCLUSIVE ? 24 : 16));
}

#if CLR_PACKED && !CLR_IS_64
void clr_publish(clr_tiles d, ulong tile, uint epoch, uint state, T v)
{
    ulong w = ((ulong)as_uint(v) << 32) | (epoch << CLR_STATUS_STATE_BITS) | state;
    clr_relaxed_store64(clr_descriptors(d, tile), w);
}

/* Tile p's state of this epoch, or CLR_STATUS_NONE; *value gets the value
 * it announces. */
uint clr_read_status(clr_tiles d, ulong p, uint epoch, T *value)
{
    ulong w = clr_relaxed_load64(clr_descriptors(d, p));
    if (((uint)w >> CLR_STATUS_STATE_BITS) != epoch)
        return CLR_STATUS_NONE;
    *value = CLR_AS_T((uint)(w >> 32));
    return (uint)w & CLR_STATE_MASK;
}
#elif CLR_PACKED
void clr_publish(clr_tiles d, ulong tile, uint epoch, uint state, T v)
{
    ulong status = (epoch << CLR_STATUS_STATE_BITS) | state, bits = as_ulong(v);
    clr_relaxed_store64x2(clr_descriptors(d, tile), (bits << 32) | status,
                          (bits & 0xffffffff00000000ul) | status);
}

uint clr_read_status(clr_tiles d, ulong p, uint epoch, T *value)
{
    ulong lo, hi;
    clr_relaxed_load64x2(clr_descriptors(d, p), &lo, &hi);
    uint s = (uint)lo;
    if (s != (uint)hi || (s >> CLR_STATUS_STATE_BITS) != epoch)
        return CLR_STATUS_NONE;
    *value = CLR_AS_T((hi & 0xffffffff00000000ul) | (lo >> 32));
    return s & CLR_STATE_MASK;
}
#else
/* Publishes v as the tile's state of this epoch: the value first, then its
 * status word. */
void clr_publish(clr_tiles d, ulong tile, uint epoch, uint state, T v)
{
    clr_value_store(clr_state_value(d, tile, state), v);
    clr_status_store(clr_status_word(d, tile), (epoch << CLR_STATUS_STATE_BITS) | state);
}

/* Tile p's state of this epoch, or CLR_STATUS_NONE; *value gets the value
 * it announces. */
uint clr_read_status(clr_tiles d, ulong p, uint epoch, T *value)
{
    uint s = clr_status_load(clr_status_word(d, p));
    if ((s >> CLR_STATUS_STATE_BITS) != epoch)
        return CLR_STATUS_NONE;
    s &= CLR_STATE_MASK;
    *value = clr_value_load(clr_state_value(d, p, s));
    return s;
}
#endif

/* Polls tile p's state at most `spins` times after the first (CLR_FOREVER,
 * or without CLR_LOOKBACK_FALLBACK: until it comes); returns it, or
 * CLR_STATUS_NONE if it did not come. */
uint clr_wait_status(clr_tiles d, ulong p, uint epoch, uint spins, T *value)
{
#if !CLR_LOOKBACK_FALLBACK
    uint s;
    (void)spins;
    do
        s = clr_read_status(d, p, epoch, value);
    while (s == CLR_STATUS_NONE);
    return s;
#else
#ifdef CLR_TEST_LOOKBACK_SPINS
    if (spins != CLR_FOREVER)
        spins = CLR_TEST_LOOKBACK_SPINS;
#endif
#if CLR_TEST_LOOKBACK_HIDE
    if (spins != CLR_FOREVER && p % 3 == 0)
        return CLR_STATUS_NONE;
#endif
    for (;;) {
        uint s = clr_read_status(d, p, epoch, value);
        if (s != CLR_STATUS_NONE || spins == 0)
            return s;
        spins -= spins != CLR_FOREVER;
    }
#endif
}

/* Whether this work-item takes part in the look-back: sub-group 0, or
 * work-item 0 without sub-groups. */
int clr_is_looker(void)
{
#if CLR_HAS_SUBGROUPS
    return clr_sg_id() == 0;
#else
    return get_local_id(0) == 0;
#endif
}

/* Looks back from tile `from` - 1 towards tile 0, combining into *prefix
 * (which holds the tiles from `from` up to the caller's) the aggregates of
 * the tiles it passes, until it meets a tile with its inclusive prefix
 * published: then returns CLR_NO_TILE. If a tile's state does not come
 * within `spins` polls, it returns that tile, *prefix holding everything
 * after it. Called by the lookers (clr_is_looker); `from` >= 1. */
ulong clr_look_back(clr_tiles d, ulong from, uint epoch, uint spins, T *prefix)
{
#if CLR_HAS_SUBGROUPS
    /* Lane k at tile p - k. */
    uint lane = clr_sg_lane(), size = clr_sg_size();
    for (ulong p = from - 1;; p -= size) {
        T v = CLR_IDENTITY;
        uint s = CLR_STATUS_INCLUSIVE; /* before tile 0: an inclusive identity */
        if (p >= lane)
            s = clr_wait_status(d, p - lane, epoch, spins, &v);
        uint stop = clr_sg_first_lane(s == CLR_STATUS_INCLUSIVE);
#if CLR_LOOKBACK_FALLBACK
        uint gap = clr_sg_first_lane(s == CLR_STATUS_NONE);
        int counts = lane <= stop && lane < gap;
#else
        int counts = lane <= stop;
#endif
        T window = clr_sg_broadcast(clr_sg_reduce(counts ? v : CLR_IDENTITY), 0);
        *prefix = clr_op(window, *prefix);
#if CLR_LOOKBACK_FALLBACK
        if (gap < stop)
            return p - gap;
#endif
        if (stop < size)
            return CLR_NO_TILE;
    }
#else
    for (ulong p = from;;) {
        p--;
        T v;
        uint s = clr_wait_status(d, p, epoch, spins, &v);
#if CLR_LOOKBACK_FALLBACK
        if (s == CLR_STATUS_NONE)
            return p;
#endif
        *prefix = clr_op(v, *prefix);
        if (s == CLR_STATUS_INCLUSIVE)
            return CLR_NO_TILE;
    }
#endif
}
