/*
 * grid_walk.cl — how a work-item of a grid-sized reduction over operators.cl's
 * accumulators walks its share of the input: a grid that fills the device
 * reads the input as vectors of CLR_VEC elements, CLR_UNROLL loads in flight
 * per work-item, each work-item's vectors in a fixed order (reduce_grid.cl
 * walks sum, min and max the same way). Written once, for any number of
 * accumulators fed from one walk (reduce_operators.cl: one; reduce_multi.cl:
 * one per operator).
 *
 * Compile-time parameters: those of types.cl (its aligned loads where
 * CLR_NV_LOAD), CLR_WG, CLR_UNROLL, CLR_SEGMENTED (1: each work-group
 * walks one contiguous run of the input; 0: the whole grid strides over it
 * together) and CLR_GRID_PER_GROUP (1: each work-group is a grid of its
 * own, over an input of its own, as one row of a matrix; default 0). Where
 * operators.cl precedes it with CLR_X_TWO_INPUTS set (dot), the walk reads
 * a second input `in2` too.
 *
 * Provides:
 *   clr_grid_group(), clr_grid_groups(), clr_grid_id()
 *                  the work-group's place in the grid, the grid's
 *                  work-groups and the work-item's place in it (for the
 *                  layers above, in place of get_group_id(0),
 *                  get_num_groups(0) and get_global_id(0))
 *   clr_share clr_grid_share(nv)  this work-item's vectors of the nv of the
 *                  input: first, first + CLR_WG, ... (CLR_UNROLL of them
 *                  per step), then `stride` further, up to `end`
 *   CLR_LOAD_ANY(p, k)   vector k of p at any element alignment (vloadN)
 *   CLR_WALK_ALL(ADD, share)  the work-item's vectors in order: vector k
 *                  of `in` (and `in2`) passed to ADD(x, y, tag, k), tags 0,
 *                  1, 2, ... (of type CLR_WALK_TAG: the operator's own
 *                  CLR_X_TAG unless the program sets it, as reduce_multi.cl's
 *                  do; y is zero with one input)
 */

#ifndef CLR_WALK_TAG
#define CLR_WALK_TAG CLR_X_TAG
#endif

#ifndef CLR_UNROLL
#define CLR_UNROLL 1
#endif

#if defined(CLR_X_TWO_INPUTS) && CLR_X_TWO_INPUTS
#define CLR_WALK_TWO_INPUTS 1
#else
#define CLR_WALK_TWO_INPUTS 0
#endif

#ifndef CLR_GRID_PER_GROUP
#define CLR_GRID_PER_GROUP 0
#endif
#if CLR_GRID_PER_GROUP
#define clr_grid_group() 0ul
#define clr_grid_groups() 1ul
#define clr_grid_id() ((ulong)get_local_id(0))
#else
#define clr_grid_group() ((ulong)get_group_id(0))
#define clr_grid_groups() ((ulong)get_num_groups(0))
#define clr_grid_id() ((ulong)get_global_id(0))
#endif

typedef struct clr_share {
    ulong first;  /* the work-item's first vector */
    ulong end;    /* the end of the run it walks */
    ulong stride; /* vectors from one step of CLR_UNROLL loads to the next */
} clr_share;

clr_share clr_grid_share(ulong nv)
{
    const ulong step = (ulong)CLR_WG * CLR_UNROLL;
    clr_share s;
#if CLR_SEGMENTED
    /* Each work-group walks its own contiguous run of whole tiles. */
    ulong tiles = (nv + step - 1) / step;
    ulong per_group = (tiles + clr_grid_groups() - 1) / clr_grid_groups() * step;
    s.first = clr_grid_group() * per_group + get_local_id(0);
    s.end = min(nv, (clr_grid_group() + 1) * per_group);
    s.stride = step;
#else
    s.first = clr_grid_group() * step + get_local_id(0);
    s.end = nv;
    s.stride = clr_grid_groups() * step;
#endif
    return s;
}

#if CLR_VEC > 1
#define CLR_LOAD_ANY(p, k) CLR_CAT(vload, CLR_VEC)((k), (p))
#else
#define CLR_LOAD_ANY(p, k) (p)[k]
#endif
#define CLR_LOAD_ALIGNED(p, k) clr_load_vec((global const VT *)(p) + (k))

#if CLR_WALK_TWO_INPUTS
#define CLR_SECOND(LOAD, k) LOAD(in2, k)
#else
#define CLR_SECOND(LOAD, k) ((VT)0)
#endif

#define CLR_WALK(LOAD, ADD, share)                                             \
    {                                                                          \
        const ulong nv_ = (share).end, stride_ = (share).stride;               \
        ulong i = (share).first;                                               \
        CLR_WALK_TAG tag = 0;                                                  \
        for (; i + (CLR_UNROLL - 1) * CLR_WG < nv_; i += stride_, tag += CLR_UNROLL) { \
            VT x[CLR_UNROLL], y[CLR_UNROLL];                                   \
            _Pragma("unroll") for (uint u = 0; u < CLR_UNROLL; u++) {          \
                x[u] = LOAD(in, i + u * CLR_WG);                               \
                y[u] = CLR_SECOND(LOAD, i + u * CLR_WG);                       \
            }                                                                  \
            _Pragma("unroll") for (uint u = 0; u < CLR_UNROLL; u++)            \
                ADD(x[u], y[u], tag + u, i + u * CLR_WG);                      \
        }                                                                      \
        for (uint u = 0; u < CLR_UNROLL; u++)                                  \
            if (i + u * CLR_WG < nv_)                                          \
                ADD(LOAD(in, i + u * CLR_WG), CLR_SECOND(LOAD, i + u * CLR_WG), tag + u, \
                    i + u * CLR_WG);                                           \
    }

/* As reduce_grid.cl: aligned ld.global.nc loads on NVIDIA where the range
 * (both ranges, for dot) starts on a vector boundary, vloadN elsewhere; the
 * result is the same at every offset. */
#if CLR_NV_LOAD && CLR_VEC > 1
#if CLR_WALK_TWO_INPUTS
#define CLR_ALIGNED (CLR_VEC_ALIGNED(in) && CLR_VEC_ALIGNED(in2))
#else
#define CLR_ALIGNED CLR_VEC_ALIGNED(in)
#endif
#define CLR_WALK_ALL(ADD, share)                                               \
    if (CLR_ALIGNED) {                                                         \
        CLR_WALK(CLR_LOAD_ALIGNED, ADD, share)                                 \
    } else {                                                                   \
        CLR_WALK(CLR_LOAD_ANY, ADD, share)                                     \
    }
#else
#define CLR_WALK_ALL(ADD, share) CLR_WALK(CLR_LOAD_ANY, ADD, share)
#endif
