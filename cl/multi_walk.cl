/*
 * multi_walk.cl — how the kernels of several operators in one pass
 * (reduce_multi.cl over a range or rows, reduce_segments_multi.cl over
 * segments) name their operators and feed them: each vector is loaded once
 * and added to every operator's accumulator in turn. Included after the
 * CLR_M_COUNT inclusions of reduce_multi_slot.cl (reduce_multi.cl says
 * how a program is put together), before the kernels.
 *
 * Compile-time parameters: CLR_M_COUNT, CLR_UNROLL, CLR_GRID_PER_GROUP
 * (1 for rows and segments: records of results, team walks), CLR_M_ALIGNED
 * (1: every team's range starts on a vector boundary), CLR_M_TWINS and
 * CLR_M_TWIN_OF (below), and those of grid_walk.cl.
 *
 * Provides:
 *   clr_m_offsets            each operator's byte place in the output
 *                            (with CLR_GRID_PER_GROUP, the first record's,
 *                            and the size of a record)
 *   CLR_M(name, k), CLR_M_EACH(X)  operator k's name for `name`, and X(k)
 *                            for every operator k
 *   CLR_M_PARTIALS(k, groups)  operator k's partials in `partials`
 *   CLR_M_START(k), CLR_M_ADD_ALL(x, y, t, k)  the accumulators acc<k>
 *                            from a first vector `first_vector`, and vector x of
 *                            tag t fed to each (grid_walk.cl's ADD form)
 *   CLR_M_IS_TWIN(k), CLR_M_DECLARE(k), CLR_M_TAKE_TWIN(k)
 *                            whether operator k is a twin (below), the
 *                            declaration of its value r<k>, and r<k> taken
 *                            from the operator it is a twin of
 *   CLR_M_TEAM_WALK_ALL, CLR_M_TEAM_VALUE(k), CLR_M_TEAM_RANGE
 *                            (CLR_GRID_PER_GROUP) a team lane's walk of
 *                            in[0 .. nv * CLR_VEC), operator k's value of
 *                            the team's range, and both for every operator
 */

/* The room of one partial or one work-item's accumulator: the host's
 * ACCUMULATOR_MAX (grid_accumulators.cl's accumulators fit it). */
#define CLR_M_PARTIAL_BYTES 32

typedef struct clr_m_offsets {
    ulong at[CLR_M_COUNT];
#if CLR_GRID_PER_GROUP
    ulong record; /* bytes from one row's results to the next's */
#endif
} clr_m_offsets;

/* Operator k's name for `name` (reduce_multi_slot.cl), and X(k) for every
 * operator k. */
#define CLR_M(name, k) name##_##k
#define CLR_M_EACH(X) CLR_CAT(CLR_M_EACH_, CLR_M_COUNT)(X)
#define CLR_M_EACH_1(X) X(0)
#define CLR_M_EACH_2(X) CLR_M_EACH_1(X) X(1)
#define CLR_M_EACH_3(X) CLR_M_EACH_2(X) X(2)
#define CLR_M_EACH_4(X) CLR_M_EACH_3(X) X(3)
#define CLR_M_EACH_5(X) CLR_M_EACH_4(X) X(4)
#define CLR_M_EACH_6(X) CLR_M_EACH_5(X) X(5)
#define CLR_M_EACH_7(X) CLR_M_EACH_6(X) X(6)
#define CLR_M_EACH_8(X) CLR_M_EACH_7(X) X(7)
#define CLR_M_EACH_9(X) CLR_M_EACH_8(X) X(8)
#define CLR_M_EACH_10(X) CLR_M_EACH_9(X) X(9)

#define CLR_M_PARTIALS(k, groups) (partials + (ulong)(k) * (groups) * CLR_M_PARTIAL_BYTES)

/* Twins: min, max and minmax keep the same accumulator, both extremes
 * (operators.cl), fed the same way. Where a set holds several of them the
 * host sets bit k of CLR_M_TWINS for each but the first, CLR_M_TWIN_OF:
 * operator k then walks nothing, and takes the value of operator
 * CLR_M_TWIN_OF where that is combined, the same bits its own walk would
 * give, one accumulator fewer to feed per element. */
#ifndef CLR_M_TWINS
#define CLR_M_TWINS 0
#define CLR_M_TWIN_OF 0
#endif
#define CLR_M_IS_TWIN(k) ((CLR_M_TWINS >> (k)) & 1)
#define CLR_M_DECLARE(k) CLR_M(clr_m_a, k) r##k;
#define CLR_M_TAKE_TWIN(k) CLR_M(clr_m_twin, k)(&r##k, &CLR_CAT(r, CLR_M_TWIN_OF));

/* The walk: one load of each vector, every operator fed from it. */
#define CLR_M_START(k) CLR_M(clr_m_v, k) acc##k = CLR_M(clr_m_init, k)(first_vector);
#define CLR_M_ADD(k)                                                           \
    if (!CLR_M_IS_TWIN(k))                                                     \
        acc##k = CLR_M(clr_m_add, k)(acc##k, x_, t_);
#define CLR_M_ADD_ALL(x, y, t, k)                                              \
    {                                                                          \
        VT x_ = (x);                                                           \
        ulong t_ = (t);                                                        \
        CLR_M_EACH(CLR_M_ADD)                                                  \
    }

#if CLR_GRID_PER_GROUP

/* A lane's vectors of its team's range in[0 .. nv * CLR_VEC): lane,
 * lane + team, ..., CLR_UNROLL loads in flight, each fed to every operator
 * with tag t * CLR_UNROLL for the t-th (so that clr_v_result(acc, any,
 * lane, team) finds it), in the order team.cl walks one operator's. */
#define CLR_M_TEAM_WALK(LOAD)                                                  \
    {                                                                          \
        ulong iw = lane, tw = 0;                                               \
        for (; iw + (CLR_UNROLL - 1) * (ulong)team < nv;                       \
             iw += CLR_UNROLL * (ulong)team, tw += CLR_UNROLL) {               \
            VT vw[CLR_UNROLL];                                                 \
            _Pragma("unroll") for (uint uw = 0; uw < CLR_UNROLL; uw++)         \
                vw[uw] = LOAD(in, iw + uw * (ulong)team);                      \
            _Pragma("unroll") for (uint uw = 0; uw < CLR_UNROLL; uw++)         \
                CLR_M_ADD_ALL(vw[uw], 0, (tw + uw) * CLR_UNROLL, 0)            \
        }                                                                      \
        for (; iw < nv; iw += team, tw++)                                      \
            CLR_M_ADD_ALL(LOAD(in, iw), 0, tw * CLR_UNROLL, 0)                 \
    }
/* One walk: with aligned loads (types.cl) where the host knows that every
 * team's range starts on a vector boundary (CLR_M_ALIGNED: rows whose
 * offset and pitch are whole vectors), else by vloadN at any alignment.
 * Both walks in one kernel, the aligned one taken where a range starts on a
 * boundary, cost NVIDIA's kernels over segments: float sum, min, max and
 * argmax of segments of 1-100 and 1-1000 took 0.72-0.76x the time with the
 * vloadN walk alone (H100, 2^26 elements, bench/results/h100-2026-12-06-i.md),
 * arrays of 1000 0.99x. Rows need the aligned walk: by vloadN alone the
 * same four over rows of 32 floats took 2.0x the time. */
#if defined(CLR_M_ALIGNED) && CLR_M_ALIGNED
#define CLR_M_TEAM_WALK_ALL CLR_M_TEAM_WALK(CLR_LOAD_ALIGNED)
#else
#define CLR_M_TEAM_WALK_ALL CLR_M_TEAM_WALK(CLR_LOAD_ANY)
#endif

/* Each operator's value r<k> of the team's range in[0 .. n) (valid in
 * lane 0), element indices counted from `start`: the lane's walk, then the
 * team's combinations (l as for clr_m_team). */
#define CLR_M_TEAM_RANGE                                                       \
    ulong nv = n / CLR_VEC;                                                    \
    int any = lane < nv;                                                       \
    VT first_vector = any ? CLR_LOAD_ANY(in, lane) : (VT)0;                    \
    CLR_M_EACH(CLR_M_START)                                                    \
    CLR_M_TEAM_WALK_ALL                                                        \
    CLR_M_EACH(CLR_M_DECLARE)                                                  \
    CLR_M_EACH(CLR_M_TEAM_VALUE)

/* Operator k's value of the team's range in[0 .. n), element indices
 * counted from `start`, in r<k> (valid in lane 0); l as for clr_m_team. */
#define CLR_M_TEAM_VALUE(k)                                                    \
    if (CLR_M_IS_TWIN(k)) {                                                    \
        CLR_M_TAKE_TWIN(k)                                                     \
    } else {                                                                   \
        CLR_M(clr_m_team_item, k)(&r##k, &acc##k, any, in, n, start, lane, team); \
        CLR_M(clr_m_team, k)(l, &r##k, team);                                  \
    }

#endif
