/*
 * operators.cl — the operators beyond sum, min and max, each written as
 *   an accumulator type            clr_a
 *   an identity                    clr_a_identity(): of no element
 *   a map from element(s)          clr_a_of(x, y, index): of element `index`
 *                                  (y: the second input of dot, else unused)
 *   a combine                      clr_a_combine(a, b): of a's elements and
 *                                  b's (deterministic: the same bits for the
 *                                  same arguments)
 *   a final step                   clr_a_store(out, a): the result, written
 *                                  at `out` in the layout clreduce.h gives
 *   a move of the index origin     clr_a_rebase(a, base): a's element indices
 *                                  counted `base` further (argmin/argmax; the
 *                                  others are unchanged), for a kernel that
 *                                  reduces a piece of a range from its start
 * so that any kernel (a grid, a row, a segment) can reduce with them; and a
 * vector accumulator for the bulk of a work-item's elements, which combines
 * whole vectors of CLR_VEC elements at a time:
 *   clr_v                          one accumulator per lane
 *   clr_v_init(first)              first: the first vector the work-item will
 *                                  add (argmin/argmax start from it, mean/var
 *                                  shift by it; the others ignore it)
 *   clr_v_add(acc, x, y, tag)      adds vector x (and y, dot); tag counts the
 *                                  adds of the work-item (0, 1, 2, ...)
 *   clr_v_result(acc, any, first, stride)
 *                                  the clr_a of what was added (the identity
 *                                  when nothing was: any == 0); the vector of
 *                                  tag t was element vector
 *                                  first + (t / CLR_UNROLL) * stride
 *                                        + (t % CLR_UNROLL) * CLR_WG
 *                                  (only argmin/argmax read this)
 *
 * Compile-time parameters: CLR_OP (a CLR_OP_* code past CLR_OP_MAX; also
 * CLR_OP_SUM, _MIN and _MAX, which reduce_multi.cl reduces with the others:
 * a sum of the identity map, and minmax's accumulator storing one side), those of
 * types.cl (T, VT, CLR_VEC), CLR_WG and CLR_UNROLL. For CLR_OP_CUSTOM, what
 * src/custom.c generates: the user's accumulator clr_u, clr_u_identity()
 * (where CLR_U_HAS_IDENTITY), clr_u_map(x, y, i), clr_u_combine(a, b),
 * CLR_U_INPUTS (1 or 2) and CLR_U_COMMUTATIVE; its vector accumulator takes
 * clr_v_add_at(acc, x, y, k), k the index of the vector, or
 * clr_v_add_from(acc, x, y, index), index that of the vector's first
 * element, in place of clr_v_add().
 *
 * CLR_X_TWO_INPUTS tells the kernels whether clr_a_of() reads a second input;
 * CLR_ORDERED whether they must combine in the elements' order (a
 * user-defined operator that is not commutative), which the shapes above
 * (lanes of vectors, interleaved work-items) do not.
 *
 * CLR_X_PADDING: accumulators have no padding bytes; where a field would
 * leave some, a member `unused` takes its place, zero in every accumulator
 * (initialisers name the other members). Accumulators are copied whole
 * through local and global memory, and a padding byte would be an
 * uninitialised value in each copy (Oclgrind reports those).
 *
 * Several operators in one program (reduce_multi.cl): the file is included
 * once per operator, each time after CLR_OP is set to the operator's code
 * and CLR_X_SLOT(name) to the name `name` takes in that inclusion. The block
 * that follows this comment then drops the macros the previous inclusion
 * defined for its operator and renames every function and type below: a
 * new macro that depends on the operator, or a new function or type, goes
 * there too.
 *
 * Floating-point keys (argmin, argmax, minmax): the bits of x with the
 * magnitude bits flipped when x is negative compare as signed integers as
 * min and max order floats, -0.0 below +0.0 (types.cl does the same). For
 * argmin/argmax every NaN becomes one key that beats all others, so that NaN
 * wins and ties among NaNs go to the smallest index; minmax sees a NaN as a
 * key beyond an infinity, as min and max do.
 */

#ifdef CLR_X_SLOT
#undef CLR_X_IS_ARG
#undef CLR_X_IS_EXTREMES
#undef KT
#undef KVT
#undef CLR_X_KEY_SHIFT
#undef CLR_X_KEY_MASK
#undef CLR_X_KEY_PINF
#undef CLR_X_KEY_NINF
#undef CLR_X_KEY_LOWEST
#undef CLR_X_KEY_HIGHEST
#undef CLR_X_BETTER
#undef CLR_X_KEY_NAN
#undef CLR_X_EMPTY_VALUE
#undef CLR_X_KEY_NONE
#undef TG
#undef TGV
#undef CLR_X_MASK
#undef CLR_X_TAG
#undef AT
#undef AVT
#undef CLR_X_MAP
#undef CLR_X_NORM_BIG
#undef CLR_X_NORM_SMALL
#undef CLR_X_NORM_NONE
#undef CLR_X_NORM_SCALE
#undef CLR_X_TWO_INPUTS

#define clr_x_keyv CLR_X_SLOT(clr_x_keyv)
#define clr_x_key CLR_X_SLOT(clr_x_key)
#define clr_x_value CLR_X_SLOT(clr_x_value)
#define clr_x_extreme CLR_X_SLOT(clr_x_extreme)
#define clr_a CLR_X_SLOT(clr_a)
#define clr_a_identity CLR_X_SLOT(clr_a_identity)
#define clr_a_of CLR_X_SLOT(clr_a_of)
#define clr_a_combine CLR_X_SLOT(clr_a_combine)
#define clr_a_rebase CLR_X_SLOT(clr_a_rebase)
#define clr_a_store CLR_X_SLOT(clr_a_store)
#define clr_v CLR_X_SLOT(clr_v)
#define clr_v_init CLR_X_SLOT(clr_v_init)
#define clr_v_add CLR_X_SLOT(clr_v_add)
#define clr_v_add_at CLR_X_SLOT(clr_v_add_at)
#define clr_v_result CLR_X_SLOT(clr_v_result)
#define clr_x_norm_exponent CLR_X_SLOT(clr_x_norm_exponent)
#define clr_x_norm_amax CLR_X_SLOT(clr_x_norm_amax)
#define clr_x_norm_add_scaled CLR_X_SLOT(clr_x_norm_add_scaled)
#define clr_x_norm_scaled_result CLR_X_SLOT(clr_x_norm_scaled_result)
#define clr_x_norm_strided CLR_X_SLOT(clr_x_norm_strided)
#endif

#ifndef CLR_UNROLL
#define CLR_UNROLL 1
#endif

/* argmin and argmax (their keys see every NaN as one key that wins); min,
 * max and minmax (one accumulator of both extremes). */
#define CLR_X_IS_ARG (CLR_OP == CLR_OP_ARGMIN || CLR_OP == CLR_OP_ARGMAX)
#define CLR_X_IS_EXTREMES (CLR_OP == CLR_OP_MINMAX || CLR_OP == CLR_OP_MIN || CLR_OP == CLR_OP_MAX)

#define CLR_X_VTYPE(S) CLR_CAT(S, CLR_X_VEC_SUFFIX)
#if CLR_VEC == 1
#define CLR_X_VEC_SUFFIX
#define CLR_X_VSTORE(v, p) (*(p) = (v))
/* select() on scalars wants a mask as wide as the value; a comparison gives
 * an int: the conditional operator serves every width. */
#define CLR_X_SELECT(a, b, m) ((m) ? (b) : (a))
#else
#define CLR_X_VEC_SUFFIX CLR_VEC
#define CLR_X_VSTORE(v, p) CLR_CAT(vstore, CLR_VEC)((v), 0, (p))
#define CLR_X_SELECT(a, b, m) select((a), (b), (m))
#endif

/* Lanes of a vector accumulator combined as a fixed tree, half against
 * half (as types.cl's clr_hreduce). */
#define CLR_X_REDUCE_LANES(a)                                                  \
    for (uint w_ = CLR_VEC / 2; w_ > 0; w_ >>= 1)                              \
        for (uint j_ = 0; j_ < w_; j_++)                                       \
            (a)[j_] = clr_a_combine((a)[j_], (a)[j_ + w_]);

/* Bits of a value, zero-extended to 64. */
#if CLR_IS_64
#define CLR_X_BITS64(v) as_ulong(v)
#elif CLR_IS_FLOAT
#define CLR_X_BITS64(v) ((ulong)as_uint(v))
#else
#define CLR_X_BITS64(v) ((ulong)(uint)(v))
#endif

/* ---- keys: argmin, argmax, minmax (min, max) ------------------------------ */

#if CLR_X_IS_ARG || CLR_X_IS_EXTREMES

#if CLR_IS_FLOAT && CLR_IS_64
#define KT long
#define CLR_X_KEY_SHIFT 63
#define CLR_X_KEY_MASK 0x7fffffffffffffffL
#define CLR_X_KEY_PINF 0x7ff0000000000000L          /* key of +inf */
#define CLR_X_KEY_NINF ((long)0x800fffffffffffffUL) /* key of -inf */
#define CLR_X_KEY_LOWEST LONG_MIN
#define CLR_X_KEY_HIGHEST LONG_MAX
#elif CLR_IS_FLOAT
#define KT int
#define CLR_X_KEY_SHIFT 31
#define CLR_X_KEY_MASK 0x7fffffff
#define CLR_X_KEY_PINF 0x7f800000
#define CLR_X_KEY_NINF ((int)0x807fffffu)
#define CLR_X_KEY_LOWEST INT_MIN
#define CLR_X_KEY_HIGHEST INT_MAX
#else
#define KT T /* integers are their own keys */
#define CLR_X_KEY_PINF CLR_MAX_VALUE
#define CLR_X_KEY_NINF CLR_MIN_VALUE
#endif
#define KVT CLR_X_VTYPE(KT)

#if CLR_OP == CLR_OP_ARGMAX
#define CLR_X_BETTER(a, b) ((a) > (b))
#define CLR_X_KEY_NAN CLR_X_KEY_HIGHEST
#define CLR_X_EMPTY_VALUE CLR_MIN_VALUE /* what no element gives */
#define CLR_X_KEY_NONE CLR_X_KEY_NINF
#else
#define CLR_X_BETTER(a, b) ((a) < (b))
#define CLR_X_KEY_NAN CLR_X_KEY_LOWEST
#define CLR_X_EMPTY_VALUE CLR_MAX_VALUE
#define CLR_X_KEY_NONE CLR_X_KEY_PINF
#endif

KVT clr_x_keyv(VT v)
{
#if CLR_IS_FLOAT
    KVT k = CLR_CAT(as_, KVT)(v);
    k ^= (k >> CLR_X_KEY_SHIFT) & CLR_X_KEY_MASK;
#if CLR_X_IS_ARG
    k = CLR_X_SELECT(k, (KVT)(CLR_X_KEY_NAN), isnan(v));
#endif
    return k;
#else
    return v;
#endif
}

KT clr_x_key(T x)
{
#if CLR_IS_FLOAT
    KT k = CLR_CAT(as_, KT)(x);
    k ^= (k >> CLR_X_KEY_SHIFT) & CLR_X_KEY_MASK;
#if CLR_X_IS_ARG
    if (isnan(x))
        k = CLR_X_KEY_NAN;
#endif
    return k;
#else
    return x;
#endif
}

/* The value of a key (a NaN key gives the canonical NaN). */
T clr_x_value(KT k)
{
#if CLR_IS_FLOAT
#if CLR_X_IS_ARG
    if (k == CLR_X_KEY_NAN)
        return (T)NAN;
#endif
    return CLR_AS_T(k ^ ((k >> CLR_X_KEY_SHIFT) & CLR_X_KEY_MASK));
#else
    return k;
#endif
}

#endif

/* ---- argmin, argmax -------------------------------------------------------- */

#if CLR_OP == CLR_OP_ARGMIN || CLR_OP == CLR_OP_ARGMAX

/* Tags: one per add, as wide as a key so that select() takes the keys'
 * comparison as its mask (32 bits for 4-byte types: exact while a
 * work-item adds fewer than 2^32 vectors, more than any device's memory
 * holds at the grid sizes the tuning allows). */
#if CLR_IS_64
#define TG ulong
#define CLR_X_MASK long
#else
#define TG uint
#define CLR_X_MASK int
#endif
#define TGV CLR_X_VTYPE(TG)
#define CLR_X_TAG TG

/* index ULONG_MAX: no element (it loses every tie). */
typedef struct clr_a {
    KT key;
#if !CLR_IS_64
    uint unused; /* see CLR_X_PADDING */
#endif
    ulong index;
} clr_a;

clr_a clr_a_identity(void)
{
    clr_a a = {.key = CLR_X_KEY_NONE, .index = ULONG_MAX};
    return a;
}

clr_a clr_a_of(T x, T y, ulong index)
{
    clr_a a = {.key = clr_x_key(x), .index = index};
    return a;
}

clr_a clr_a_combine(clr_a a, clr_a b)
{
    return CLR_X_BETTER(b.key, a.key) || (b.key == a.key && b.index < a.index) ? b : a;
}

clr_a clr_a_rebase(clr_a a, ulong base)
{
    if (a.index != ULONG_MAX)
        a.index += base;
    return a;
}

/* { value; zeros to byte 8; ulong index } */
void clr_a_store(global uchar *out, clr_a a)
{
    T value = a.index == ULONG_MAX ? (T)CLR_X_EMPTY_VALUE : clr_x_value(a.key);
    global ulong *o = (global ulong *)out;
    o[0] = CLR_X_BITS64(value);
    o[1] = a.index;
}

/* Each lane keeps its best key and the tag of the add that brought it; a
 * strict comparison keeps the first of equal keys, and a lane sees its
 * elements in increasing order. Starting from the first vector (tag 0) makes
 * the first element of each lane count even when it equals the identity. */
typedef struct clr_v {
    KVT key;
    TGV tag;
} clr_v;

clr_v clr_v_init(VT first)
{
    clr_v acc = {clr_x_keyv(first), (TGV)0};
    return acc;
}

clr_v clr_v_add(clr_v acc, VT x, VT y, TG tag)
{
    KVT k = clr_x_keyv(x);
    CLR_X_VTYPE(CLR_X_MASK) better = CLR_X_BETTER(k, acc.key);
    acc.key = CLR_X_SELECT(acc.key, k, better);
    acc.tag = CLR_X_SELECT(acc.tag, (TGV)tag, better);
    return acc;
}

clr_a clr_v_result(clr_v acc, int any, ulong first, ulong stride)
{
    if (!any)
        return clr_a_identity();
    KT keys[CLR_VEC];
    TG tags[CLR_VEC];
    CLR_X_VSTORE(acc.key, keys);
    CLR_X_VSTORE(acc.tag, tags);
    clr_a a[CLR_VEC];
    for (uint j = 0; j < CLR_VEC; j++) {
        ulong vector = first + (ulong)(tags[j] / CLR_UNROLL) * stride +
                       (ulong)(tags[j] % CLR_UNROLL) * CLR_WG;
        clr_a r = {.key = keys[j], .index = vector * CLR_VEC + j};
        a[j] = r;
    }
    CLR_X_REDUCE_LANES(a)
    return a[0];
}

/* ---- minmax (min, max) ---------------------------------------------------------- */

/* min and max keep both extremes too: a NaN may lie on either side of the
 * keys, and both are needed to see it. */
#elif CLR_X_IS_EXTREMES

typedef struct clr_a {
    KT lo;
    KT hi;
} clr_a;

clr_a clr_a_identity(void)
{
    clr_a a = {CLR_X_KEY_PINF, CLR_X_KEY_NINF};
    return a;
}

clr_a clr_a_of(T x, T y, ulong index)
{
    KT k = clr_x_key(x);
    clr_a a = {k, k};
    return a;
}

clr_a clr_a_combine(clr_a a, clr_a b)
{
    clr_a r = {min(a.lo, b.lo), max(a.hi, b.hi)};
    return r;
}

/* The value of key k, one of a's extremes: a NaN anywhere makes every
 * extreme NaN, as min and max. */
T clr_x_extreme(clr_a a, KT k)
{
#if CLR_IS_FLOAT
    if (a.lo < CLR_X_KEY_NINF || a.hi > CLR_X_KEY_PINF)
        return (T)NAN;
#endif
    return clr_x_value(k);
}

/* { T min; T max }; min and max: one T. */
void clr_a_store(global uchar *out, clr_a a)
{
    global T *o = (global T *)out;
#if CLR_OP == CLR_OP_MAX
    o[0] = clr_x_extreme(a, a.hi);
#else
    o[0] = clr_x_extreme(a, a.lo);
#endif
#if CLR_OP == CLR_OP_MINMAX
    o[1] = clr_x_extreme(a, a.hi);
#endif
}

typedef struct clr_v {
    KVT lo;
    KVT hi;
} clr_v;

clr_v clr_v_init(VT first)
{
    clr_v acc = {(KVT)(CLR_X_KEY_PINF), (KVT)(CLR_X_KEY_NINF)};
    return acc;
}

clr_v clr_v_add(clr_v acc, VT x, VT y, uint tag)
{
    KVT k = clr_x_keyv(x);
    acc.lo = min(acc.lo, k);
    acc.hi = max(acc.hi, k);
    return acc;
}

clr_a clr_v_result(clr_v acc, int any, ulong first, ulong stride)
{
    KT lo[CLR_VEC], hi[CLR_VEC];
    CLR_X_VSTORE(acc.lo, lo);
    CLR_X_VSTORE(acc.hi, hi);
    clr_a a[CLR_VEC];
    for (uint j = 0; j < CLR_VEC; j++) {
        a[j].lo = lo[j];
        a[j].hi = hi[j];
    }
    CLR_X_REDUCE_LANES(a)
    return a[0];
}

/* ---- sums of a map: sum of squares, sum of absolute values, dot (sum) ----- */

#elif CLR_OP == CLR_OP_SUM_SQUARES || CLR_OP == CLR_OP_SUM_ABS || CLR_OP == CLR_OP_DOT || \
    CLR_OP == CLR_OP_SUM

/* Integers accumulate unsigned: the bits of a signed result are the same,
 * and the sum wraps around without undefined behaviour. */
#if CLR_TYPE == CLR_TYPE_INT
#define AT uint
#elif CLR_TYPE == CLR_TYPE_LONG
#define AT ulong
#else
#define AT T
#endif
#define AVT CLR_X_VTYPE(AT)

typedef AT clr_a;

#if CLR_OP == CLR_OP_SUM
#define CLR_X_MAP(x, y, AS) AS(x)
#elif CLR_OP == CLR_OP_SUM_SQUARES
#define CLR_X_MAP(x, y, AS) (AS(x) * AS(x))
#elif CLR_OP == CLR_OP_SUM_ABS && CLR_IS_FLOAT
#define CLR_X_MAP(x, y, AS) fabs(x)
#elif CLR_OP == CLR_OP_SUM_ABS
/* abs() of a signed integer is unsigned: |INT_MIN| is 2^31. */
#define CLR_X_MAP(x, y, AS) abs(x)
#else
#define CLR_X_MAP(x, y, AS) (AS(x) * AS(y))
#endif

clr_a clr_a_identity(void) { return (AT)0; }
clr_a clr_a_of(T x, T y, ulong index) { return CLR_X_MAP(x, y, (AT)); }
clr_a clr_a_combine(clr_a a, clr_a b) { return a + b; }
void clr_a_store(global uchar *out, clr_a a) { *(global AT *)out = a; }

typedef AVT clr_v;
clr_v clr_v_init(VT first) { return (AVT)0; }
clr_v clr_v_add(clr_v acc, VT x, VT y, uint tag)
{
    return acc + CLR_X_MAP(x, y, CLR_CAT(as_, AVT));
}

clr_a clr_v_result(clr_v acc, int any, ulong first, ulong stride)
{
    AT a[CLR_VEC];
    CLR_X_VSTORE(acc, a);
    CLR_X_REDUCE_LANES(a)
    return a[0];
}

/* ---- Euclidean norm ------------------------------------------------------------ */

#elif CLR_OP == CLR_OP_NORM2

#if !CLR_IS_FLOAT
#error "norm2 is defined for float and double only"
#endif

/* norm^2 = q * 4^e. The bulk adds plain squares and the largest |x|; a
 * work-item whose largest |x| lies outside [CLR_X_NORM_SMALL,
 * CLR_X_NORM_BIG], where squares could overflow or lose precision to
 * underflow, adds its share again scaled by 2^-e (clr_x_norm_exponent), e
 * the exponent of its largest |x|. Within those limits m squares sum
 * without overflow for m up to 2^27 (float) or 2^120 (double). Scaling by a
 * power of two is exact, so the norm is as accurate as a plain sum of
 * squares, and finite whenever it fits in T. */
#if CLR_IS_64
#define CLR_X_NORM_BIG 0x1p450
#define CLR_X_NORM_SMALL 0x1p-450
#else
#define CLR_X_NORM_BIG 0x1p50f
#define CLR_X_NORM_SMALL 0x1p-40f
#endif
#define CLR_X_NORM_NONE (-(1 << 28)) /* e of q == 0 */

typedef struct clr_a {
    T q;
    int e;
#if CLR_IS_64
    int unused; /* see CLR_X_PADDING */
#endif
} clr_a;

clr_a clr_a_identity(void)
{
    clr_a a = {(T)0, CLR_X_NORM_NONE};
    return a;
}

/* x * 2^-e, exactly (but for results below the smallest normal number), in
 * two steps so that neither factor overflows. */
#define CLR_X_NORM_SCALE(x, e)                                                 \
    ((x) * ldexp((T)1, -((e) / 2)) * ldexp((T)1, (e) / 2 - (e)))

/* The exponent to scale a work-item's share by, or 0 to keep its plain
 * squares: amax, its largest |x|, and q, its sum of squares. */
int clr_x_norm_exponent(T amax, T q)
{
    if (!(amax > (T)0) || isinf(amax) || isnan(q))
        return 0; /* zeros only, an infinity (the norm is inf), or a NaN */
    if (amax >= CLR_X_NORM_SMALL && amax <= CLR_X_NORM_BIG && isfinite(q))
        return 0;
    return ilogb(amax) + 1;
}

clr_a clr_a_of(T x, T y, ulong index)
{
    T ax = fabs(x);
    clr_a a = {x * x, 0};
    int e = clr_x_norm_exponent(ax, (T)0);
    if (e != 0) {
        T s = CLR_X_NORM_SCALE(x, e);
        a.q = s * s;
        a.e = e;
    } else if (a.q == (T)0) {
        a.e = CLR_X_NORM_NONE;
    }
    return a;
}

clr_a clr_a_combine(clr_a a, clr_a b)
{
    int e = max(a.e, b.e);
    clr_a r = {ldexp(a.q, 2 * (a.e - e)) + ldexp(b.q, 2 * (b.e - e)), e};
    return r;
}

void clr_a_store(global uchar *out, clr_a a)
{
    *(global T *)out = a.q == (T)0 ? (T)0 : ldexp(sqrt(a.q), a.e);
}

typedef struct clr_v {
    VT q;    /* sum of squares */
    VT amax; /* largest |x| (NaN ignored: it is in q) */
} clr_v;

clr_v clr_v_init(VT first)
{
    clr_v acc = {(VT)0, (VT)0};
    return acc;
}

clr_v clr_v_add(clr_v acc, VT x, VT y, uint tag)
{
    acc.q += x * x;
    acc.amax = fmax(acc.amax, fabs(x));
    return acc;
}

/* Not inlined: where LLVM inlines it (its structure returned through a
 * pointer), it declares the pointer's alias scope with an intrinsic that
 * Oclgrind 21.10 cannot run (rows of several operators, on double). It
 * runs once per work-item. */
__attribute__((noinline)) clr_a clr_v_result(clr_v acc, int any, ulong first, ulong stride)
{
    T q[CLR_VEC];
    CLR_X_VSTORE(acc.q, q);
    for (uint w = CLR_VEC / 2; w > 0; w >>= 1)
        for (uint j = 0; j < w; j++)
            q[j] += q[j + w];
    clr_a a = {q[0], q[0] == (T)0 ? CLR_X_NORM_NONE : 0};
    return a;
}

T clr_x_norm_amax(clr_v acc)
{
    T m[CLR_VEC];
    CLR_X_VSTORE(acc.amax, m);
    T r = m[0];
    for (uint j = 1; j < CLR_VEC; j++)
        r = fmax(r, m[j]);
    return r;
}

/* The second walk of a work-item: squares of x * 2^-e. */
VT clr_x_norm_add_scaled(VT acc, VT x, int e)
{
    VT s = CLR_X_NORM_SCALE(x, e);
    return acc + s * s;
}

clr_a clr_x_norm_scaled_result(VT acc, int e)
{
    T q[CLR_VEC];
    CLR_X_VSTORE(acc, q);
    for (uint w = CLR_VEC / 2; w > 0; w >>= 1)
        for (uint j = 0; j < w; j++)
            q[j] += q[j + w];
    clr_a a = {q[0], q[0] == (T)0 ? CLR_X_NORM_NONE : e};
    return a;
}

/* *a, the result of a lane's vector accumulator acc over vectors first,
 * first + stride, ... below nv of in (any alignment; `any`: at least one),
 * again or rescaled, that share walked a second time where its squares
 * could overflow or underflow: the step after the walk of a team's lane
 * (team_lane.cl). Through pointers, as reduce_multi_slot.cl says why. */
void clr_x_norm_strided(clr_a *a, const clr_v *acc, int any, global const T *in, ulong first,
                        ulong nv, ulong stride)
{
    int e = any ? clr_x_norm_exponent(clr_x_norm_amax(*acc), a->q) : 0;
    if (e == 0)
        return;
    VT scaled = (VT)0;
    for (ulong i = first; i < nv; i += stride)
#if CLR_VEC > 1
        scaled = clr_x_norm_add_scaled(scaled, CLR_CAT(vload, CLR_VEC)(i, in), e);
#else
        scaled = clr_x_norm_add_scaled(scaled, in[i], e);
#endif
    *a = clr_x_norm_scaled_result(scaled, e);
}

/* ---- mean and variance --------------------------------------------------------- */

#elif CLR_OP == CLR_OP_MEAN_VAR

#if !CLR_IS_FLOAT
#error "mean_var is defined for float and double only"
#endif

/* (count, mean, m2), m2 the sum of squared deviations from the mean. Two
 * runs merge as Chan, Golub and LeVeque's pairwise update. The mean is kept
 * as shift + offset, the shift an element of the data (exact) and the
 * offset small beside it, so that the difference of two means, which the
 * update squares, keeps the precision of the spread rather than of the mean
 * (in float, a mean near 10^6 is only known to 1/16). The bulk of a
 * work-item's share is summed shifted by its first vector (lane by lane):
 * s1 = sum (x - c) and s2 = sum (x - c)^2 give offset = s1/n and m2 = s2 -
 * s1 * s1/n, whose cancellation is small while c lies near the data (within
 * a few standard deviations of the mean). */
typedef struct clr_a {
    T shift;
    T offset; /* mean - shift */
    T m2;
#if !CLR_IS_64
    uint unused; /* see CLR_X_PADDING */
#endif
    ulong count;
} clr_a;

clr_a clr_a_identity(void)
{
    clr_a a = {.shift = (T)0, .offset = (T)0, .m2 = (T)0, .count = 0};
    return a;
}

clr_a clr_a_of(T x, T y, ulong index)
{
    clr_a a = {.shift = x, .offset = (T)0, .m2 = (T)0, .count = 1};
    return a;
}

clr_a clr_a_combine(clr_a a, clr_a b)
{
    if (a.count == 0)
        return b;
    if (b.count == 0)
        return a;
    ulong n = a.count + b.count;
    T fb = (T)b.count / (T)n;
    T delta = (b.shift - a.shift) + (b.offset - a.offset);
    clr_a r = {.shift = a.shift,
               .offset = a.offset + delta * fb,
               .m2 = a.m2 + b.m2 + delta * delta * ((T)a.count * fb),
               .count = n};
    return r;
}

/* { T mean; T m2; ulong count } */
void clr_a_store(global uchar *out, clr_a a)
{
    global T *o = (global T *)out;
    o[0] = a.shift + a.offset;
    o[1] = a.m2;
    *(global ulong *)(out + 2 * sizeof(T)) = a.count;
}

typedef struct clr_v {
    VT shift;
    VT s1;
    VT s2;
    ulong count; /* vectors added */
} clr_v;

clr_v clr_v_init(VT first)
{
    clr_v acc = {first, (VT)0, (VT)0, 0};
    return acc;
}

clr_v clr_v_add(clr_v acc, VT x, VT y, uint tag)
{
    VT d = x - acc.shift;
    acc.s1 += d;
    acc.s2 += d * d;
    acc.count++;
    return acc;
}

clr_a clr_v_result(clr_v acc, int any, ulong first, ulong stride)
{
    if (!any || acc.count == 0)
        return clr_a_identity();
    T shift[CLR_VEC], s1[CLR_VEC], s2[CLR_VEC];
    CLR_X_VSTORE(acc.shift, shift);
    CLR_X_VSTORE(acc.s1, s1);
    CLR_X_VSTORE(acc.s2, s2);
    T n = (T)acc.count;
    clr_a a[CLR_VEC];
    for (uint j = 0; j < CLR_VEC; j++) {
        T d = s1[j] / n;
        clr_a r = {.shift = shift[j],
                   .offset = d,
                   .m2 = fmax(s2[j] - s1[j] * d, (T)0),
                   .count = acc.count};
        a[j] = r;
    }
    CLR_X_REDUCE_LANES(a)
    return a[0];
}

/* ---- user-defined operators ------------------------------------------------------ */

#elif CLR_OP == CLR_OP_CUSTOM

#define CLR_X_TWO_INPUTS (CLR_U_INPUTS == 2)
#define CLR_ORDERED (!CLR_U_COMMUTATIVE)

#if CLR_U_HAS_IDENTITY
typedef clr_u clr_a;
clr_a clr_a_identity(void) { return clr_u_identity(); }
clr_a clr_a_of(T x, T y, ulong index) { return clr_u_map(clr_value(x), clr_value(y), index); }
clr_a clr_a_combine(clr_a a, clr_a b) { return clr_u_combine(a, b); }
void clr_a_store(global uchar *out, clr_a a) { *(global clr_u *)out = a; }
#else
/* Without an identity, an accumulator of no element is a flag (its value
 * all zero bytes, so that copies of it copy no uninitialised value). A
 * reduction of no element never reaches a kernel (the host refuses it);
 * an empty segment does, and its result is stored as zero bytes. */
typedef struct clr_a {
    clr_u v;
    int has;
} clr_a;

clr_a clr_a_identity(void)
{
    clr_a a;
    for (uint i = 0; i < sizeof(clr_a); i++)
        ((private uchar *)&a)[i] = 0;
    return a;
}

clr_a clr_a_of(T x, T y, ulong index)
{
    clr_a a;
    a.v = clr_u_map(clr_value(x), clr_value(y), index);
    a.has = 1;
    return a;
}

clr_a clr_a_combine(clr_a a, clr_a b)
{
    if (!a.has)
        return b;
    if (!b.has)
        return a;
    a.v = clr_u_combine(a.v, b.v);
    return a;
}

void clr_a_store(global uchar *out, clr_a a)
{
    if (a.has)
        *(global clr_u *)out = a.v;
    else
        for (uint i = 0; i < sizeof(clr_u); i++)
            out[i] = 0;
}
#endif

/* One accumulator per lane: lane j of every vector a work-item adds goes to
 * lane j (the kernels use it for commutative operators only, where the
 * order of combines does not matter). */
typedef struct clr_v {
    clr_a lane[CLR_VEC];
} clr_v;

clr_v clr_v_init(VT first)
{
    clr_v acc;
    for (uint j = 0; j < CLR_VEC; j++)
        acc.lane[j] = clr_a_identity();
    return acc;
}

/* Lane j of vector x (and y) is element index + j. */
clr_v clr_v_add_from(clr_v acc, VT x, VT y, ulong index)
{
    /* Lanes through private arrays as wide as the vectors: plain stores and
     * loads that the compiler keeps in registers. */
    T xs[CLR_VEC] __attribute__((aligned(sizeof(VT))));
    T ys[CLR_VEC] __attribute__((aligned(sizeof(VT))));
    *(private VT *)xs = x;
    *(private VT *)ys = y;
    for (uint j = 0; j < CLR_VEC; j++)
        acc.lane[j] = clr_a_combine(acc.lane[j], clr_a_of(xs[j], ys[j], index + j));
    return acc;
}

clr_v clr_v_add_at(clr_v acc, VT x, VT y, ulong k)
{
    return clr_v_add_from(acc, x, y, k * CLR_VEC);
}

clr_a clr_v_result(clr_v acc, int any, ulong first, ulong stride)
{
    CLR_X_REDUCE_LANES(acc.lane)
    return acc.lane[0];
}

#else
#error "CLR_OP must be one of operators.cl's CLR_OP_* codes"
#endif

#ifndef CLR_X_TWO_INPUTS
#define CLR_X_TWO_INPUTS (CLR_OP == CLR_OP_DOT)
#endif
#ifndef CLR_ORDERED
#define CLR_ORDERED 0
#endif

#if CLR_OP != CLR_OP_ARGMIN && CLR_OP != CLR_OP_ARGMAX
clr_a clr_a_rebase(clr_a a, ulong base) { return a; }
#endif

/* The type of clr_v_add's tag. */
#ifndef CLR_X_TAG
#define CLR_X_TAG uint
#endif

