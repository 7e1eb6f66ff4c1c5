/*
 * team_lane.cl — the end of a team lane's share of a range over
 * operators.cl's accumulators (not CLR_OP_CUSTOM), after the
 * lane added vectors lane, lane + size, ... of it: the layer between
 * operators.cl and the kernels whose teams walk rows or segments (team.cl
 * for one operator, reduce_multi.cl's rows for several). Included right
 * after operators.cl, as often as it is (renamed by CLR_X_SLOT as
 * operators.cl's names are).
 *
 * Compile-time parameters: those of operators.cl.
 *
 * Provides:
 *   clr_x_team_lane(&r, &acc, any, in, in2, n, base, lane, size)
 *       r = the lane's share of in[0 .. n) (and in2[0 .. n), dot's second
 *       input; in again for the others), element indices counted from
 *       base, after the lane added its vectors to acc with tags 0,
 *       CLR_UNROLL, 2 * CLR_UNROLL, ... (`any`: at least one): those
 *       vectors, rescaled for norm2 where need be, then the last
 *       n % CLR_VEC elements lane by lane. Through pointers, as
 *       reduce_multi_slot.cl says why.
 */

#ifdef CLR_X_SLOT
#define clr_x_team_lane CLR_X_SLOT(clr_x_team_lane)
#endif

#if CLR_OP != CLR_OP_CUSTOM
void clr_x_team_lane(clr_a *r, const clr_v *acc, int any, global const T *in,
                     global const T *in2, ulong n, ulong base, uint lane, uint size)
{
    clr_a tail = clr_a_identity();
    ulong nv = n / CLR_VEC;
#if CLR_VEC > 1
    for (ulong i = nv * CLR_VEC + lane; i < n; i += size)
        tail = clr_a_combine(tail, clr_a_of(in[i], in2[i], i));
#endif
    clr_a a = clr_v_result(*acc, any, lane, size);
#if CLR_OP == CLR_OP_NORM2
    clr_x_norm_strided(&a, acc, any, in, lane, nv, size);
#endif
    *r = clr_a_rebase(clr_a_combine(a, tail), base);
}
#endif
