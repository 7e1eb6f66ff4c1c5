/*
 * types.cl — element type, operator and identity.
 *
 * Compile-time parameters (passed with -D by the host):
 *   CLR_TYPE  element type, a CLR_TYPE_* code of contract.h.
 *             (Signed sums are compiled as unsigned ones: the bits are the
 *             same and unsigned arithmetic wraps without undefined behaviour.)
 *   CLR_OP    operator, a CLR_OP_* code.
 *   CLR_VEC   elements per vector load: 1, 2, 4, 8 or 16 (default 1).
 *   CLR_NV_LOAD  1: aligned 16-byte loads through PTX (NVIDIA; default 0).
 *   CLR_MAP   for a float or double sum only: CLR_OP_SUM_SQUARES or
 *             CLR_OP_SUM_ABS, the map (x * x, |x|) that the kernels apply
 *             to every element as they read it (clr_map); default none.
 *
 *   CLR_WG    work-group size of every kernel (CLR_KERNEL).
 *
 * Provides: CLR_KERNEL, T, VT (vector of CLR_VEC T), clr_load_vec() and
 * CLR_VEC_ALIGNED() (aligned vector loads), CLR_IDENTITY, clr_op(T, T),
 * clr_opv(VT, VT) (sums, integer min/max), clr_hreduce(VT) -> T, clr_map(T)
 * and clr_mapv(VT) (CLR_MAP), CLR_IS_FLOAT, CLR_IS_64, CLR_AS_T,
 * and the vector accumulator clr_acc (clr_acc_init/_add/_result).
 *
 * min and max propagate NaN and order -0.0 below +0.0, so that they are
 * commutative and associative on every input, bit for bit.
 *
 * For the operators of operators.cl (CLR_OP past CLR_OP_MAX) only the type
 * part is compiled (T, VT, the loads, CLR_IS_FLOAT, CLR_IS_64, CLR_MIN_VALUE,
 * CLR_MAX_VALUE, CLR_AS_T, CLR_T_BYTES, and clr_value(T), which widens the
 * storage types half and bfloat16 to float): they bring their own
 * accumulators.
 */

/* Every kernel is compiled for work-groups of exactly CLR_WG work-items. */
#define CLR_KERNEL __attribute__((reqd_work_group_size(CLR_WG, 1, 1))) kernel void

#define CLR_CAT_(a, b) a##b
#define CLR_CAT(a, b) CLR_CAT_(a, b)

#ifndef CLR_VEC
#define CLR_VEC 1
#endif

#if CLR_TYPE == CLR_TYPE_FLOAT
#define T float
#define CLR_IS_FLOAT 1
#define CLR_IS_64 0
#define CLR_MIN_VALUE (-INFINITY)
#define CLR_MAX_VALUE INFINITY
#elif CLR_TYPE == CLR_TYPE_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define T double
#define CLR_IS_FLOAT 1
#define CLR_IS_64 1
#define CLR_MIN_VALUE (-(double)INFINITY)
#define CLR_MAX_VALUE ((double)INFINITY)
#elif CLR_TYPE == CLR_TYPE_INT
#define T int
#define CLR_IS_FLOAT 0
#define CLR_IS_64 0
#define CLR_MIN_VALUE INT_MIN
#define CLR_MAX_VALUE INT_MAX
#elif CLR_TYPE == CLR_TYPE_UINT
#define T uint
#define CLR_IS_FLOAT 0
#define CLR_IS_64 0
#define CLR_MIN_VALUE 0u
#define CLR_MAX_VALUE UINT_MAX
#elif CLR_TYPE == CLR_TYPE_LONG
#define T long
#define CLR_IS_FLOAT 0
#define CLR_IS_64 1
#define CLR_MIN_VALUE LONG_MIN
#define CLR_MAX_VALUE LONG_MAX
#elif CLR_TYPE == CLR_TYPE_ULONG
#define T ulong
#define CLR_IS_FLOAT 0
#define CLR_IS_64 1
#define CLR_MIN_VALUE 0ul
#define CLR_MAX_VALUE ULONG_MAX
#elif CLR_TYPE == CLR_TYPE_HALF || CLR_TYPE == CLR_TYPE_BFLOAT16
/* Storage only: T holds the bits, clr_value() gives the float. */
#define T ushort
#define CLR_IS_FLOAT 0
#define CLR_IS_64 0
#define CLR_MIN_VALUE 0
#define CLR_MAX_VALUE USHRT_MAX
#define CLR_IS_STORAGE 1
#else
#error "CLR_TYPE must be a CLR_TYPE_* code"
#endif

/* The value of an element as operators see it: T itself but for the
 * storage types, whose bits widen exactly to a float. A half is widened
 * from its fields rather than by vload_half, which NVIDIA's driver gives
 * a NaN of either sign as the same positive NaN: here a NaN keeps its sign
 * and payload, on every device. */
#ifndef CLR_IS_STORAGE
#define CLR_IS_STORAGE 0
#define clr_value(x) (x)
#elif CLR_TYPE == CLR_TYPE_HALF
float clr_value(ushort bits)
{
    uint sign = (uint)(bits & 0x8000u) << 16, e = (bits >> 10) & 0x1fu, m = bits & 0x3ffu;
    if (e == 0) /* zero or subnormal: m * 2^-24, exact in float */
        return as_float(sign | as_uint((float)m * 0x1p-24f));
    /* A normal number rebiased (15 to 127); infinity and NaN to 255. */
    return as_float(sign | ((e == 0x1fu ? 0xffu : e + 112u) << 23) | (m << 13));
}
#else
#define clr_value(x) as_float((uint)(x) << 16)
#endif

/* Bytes of T, for the preprocessor. */
#define CLR_T_BYTES (CLR_IS_STORAGE ? 2 : CLR_IS_64 ? 8 : 4)

#define CLR_AS_T CLR_CAT(as_, T)

#if CLR_VEC == 1
#define VT T
#else
#define VT CLR_CAT(T, CLR_VEC)
#endif

/* Load of a vector at an address aligned to its size. On NVIDIA
 * (CLR_NV_LOAD 1), 16-byte vectors go through inline PTX ld.global.nc, the
 * read-only data path, which the compiler does not pick for OpenCL's `const
 * restrict` pointers by itself; and vloadN, which reads at any element
 * alignment, is split there into scalar loads, so kernels read aligned
 * ranges with this instead. */
#ifndef CLR_NV_LOAD
#define CLR_NV_LOAD 0
#endif
#if CLR_NV_LOAD && CLR_VEC * CLR_T_BYTES == 16
VT clr_load_vec(global const VT *p)
{
    uint4 r;
    asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
    return CLR_CAT(as_, VT)(r);
}
#else
#define clr_load_vec(p) (*(p))
#endif

/* Whether in[0] lies on a vector boundary, so that clr_load_vec() may read
 * the vectors of a range that starts there. */
#define CLR_VEC_ALIGNED(in) (((ulong)(in) & (sizeof(VT) - 1)) == 0)

/* The map of an element (clr_map) or vector (clr_mapv) as it is read
 * (CLR_MAP), which maps the identity to itself; the value itself without
 * one. Functions, so that a load passed in is made once. */
#if !defined(CLR_MAP)
#define clr_map(x) (x)
#define clr_mapv(x) (x)
#elif CLR_OP == CLR_OP_SUM && CLR_IS_FLOAT && CLR_MAP == CLR_OP_SUM_SQUARES
T clr_map(T x) { return x * x; }
VT clr_mapv(VT x) { return x * x; }
#elif CLR_OP == CLR_OP_SUM && CLR_IS_FLOAT && CLR_MAP == CLR_OP_SUM_ABS
T clr_map(T x) { return fabs(x); }
VT clr_mapv(VT x) { return fabs(x); }
#else
#error "CLR_MAP is a float or double sum's CLR_OP_SUM_SQUARES or CLR_OP_SUM_ABS"
#endif

#if CLR_OP <= CLR_OP_MAX

#if CLR_OP == CLR_OP_SUM
#define CLR_IDENTITY ((T)0)
#elif CLR_OP == CLR_OP_MIN
#define CLR_IDENTITY ((T)CLR_MAX_VALUE)
#elif CLR_OP == CLR_OP_MAX
#define CLR_IDENTITY ((T)CLR_MIN_VALUE)
#else
#error "CLR_OP must be a CLR_OP_* code"
#endif

/* Scalar operator. */
T clr_op(T a, T b)
{
#if CLR_OP == CLR_OP_SUM
    return a + b;
#elif CLR_IS_FLOAT && CLR_OP == CLR_OP_MIN
    return (isnan(a) || a < b || (a == b && signbit(a))) ? a : b;
#elif CLR_IS_FLOAT && CLR_OP == CLR_OP_MAX
    return (isnan(a) || a > b || (a == b && !signbit(a))) ? a : b;
#elif CLR_OP == CLR_OP_MIN
    return min(a, b);
#else
    return max(a, b);
#endif
}

/* Element-wise operator on vectors, for sums and integer min/max (float
 * min/max combine vectors through the key accumulator below). */
VT clr_opv(VT a, VT b)
{
#if CLR_OP == CLR_OP_SUM
    return a + b;
#elif CLR_VEC == 1
    return clr_op(a, b);
#elif CLR_OP == CLR_OP_MIN
    return min(a, b);
#else
    return max(a, b);
#endif
}

/* Horizontal reduction of a vector, as a fixed pairwise tree. */
#if CLR_VEC >= 2
T clr_hreduce2(CLR_CAT(T, 2) v) { return clr_op(v.s0, v.s1); }
#endif
#if CLR_VEC >= 4
T clr_hreduce4(CLR_CAT(T, 4) v) { return clr_op(clr_hreduce2(v.lo), clr_hreduce2(v.hi)); }
#endif
#if CLR_VEC >= 8
T clr_hreduce8(CLR_CAT(T, 8) v) { return clr_op(clr_hreduce4(v.lo), clr_hreduce4(v.hi)); }
#endif
#if CLR_VEC >= 16
T clr_hreduce16(CLR_CAT(T, 16) v) { return clr_op(clr_hreduce8(v.lo), clr_hreduce8(v.hi)); }
#endif

#if CLR_VEC == 1
#define clr_hreduce(v) (v)
#else
#define clr_hreduce CLR_CAT(clr_hreduce, CLR_VEC)
#endif

/* Accumulator of the bulk loop, which combines whole vectors: acc_init,
 * acc_add(acc, vector), acc_result(acc) -> T.
 *
 * Float min and max run there as integer min and max on order-preserving
 * keys: the bits of x, with the magnitude bits flipped when x is negative,
 * compare as signed integers exactly as clr_op orders floats (-0.0 below
 * +0.0): two integer operations per element instead of tests for NaN and
 * the sign of zero (on the H200 the two forms ran within run-to-run noise of
 * each other). NaN keys sort past +-inf's, so a second accumulator with the
 * opposite operator tells whether any NaN was seen. */
#if CLR_IS_FLOAT && CLR_OP != CLR_OP_SUM
#if CLR_IS_64
#define KT long
#define CLR_KEY_SHIFT 63
#define CLR_KEY_MASK 0x7fffffffffffffffL
#define CLR_KEY_PINF 0x7ff0000000000000L                /* key of +inf */
#define CLR_KEY_NINF ((long)0x800fffffffffffffUL)       /* key of -inf */
#else
#define KT int
#define CLR_KEY_SHIFT 31
#define CLR_KEY_MASK 0x7fffffff
#define CLR_KEY_PINF 0x7f800000
#define CLR_KEY_NINF ((int)0x807fffffu)
#endif
#if CLR_VEC == 1
#define KVT KT
#else
#define KVT CLR_CAT(KT, CLR_VEC)
#endif
#if CLR_OP == CLR_OP_MIN
#define CLR_KEY_BEST min   /* the operator on keys     */
#define CLR_KEY_OTHER max  /* the NaN guard            */
#define CLR_KEY_START CLR_KEY_PINF
#define CLR_KEY_GUARD_START CLR_KEY_NINF
#else
#define CLR_KEY_BEST max
#define CLR_KEY_OTHER min
#define CLR_KEY_START CLR_KEY_NINF
#define CLR_KEY_GUARD_START CLR_KEY_PINF
#endif

typedef struct clr_acc {
    KVT best;  /* min (max) of the keys */
    KVT guard; /* max (min) of the keys */
} clr_acc;

/* The key of a float's bits b, or the bits of key b: the magnitude bits
 * flipped when the sign bit is set (the flip is its own inverse). */
#define CLR_KEY_FLIP(b) ((b) ^ (((b) >> CLR_KEY_SHIFT) & CLR_KEY_MASK))

KVT clr_key(VT v)
{
    KVT k = CLR_CAT(as_, KVT)(v);
    return CLR_KEY_FLIP(k);
}

/* Horizontal min or max of a key vector (F is min or max). */
#define CLR_KEY_HREDUCE(name, F)                                               \
    KT name(KVT k)                                                             \
    {                                                                          \
        CLR_KEY_HALVE_16(F)                                                    \
        CLR_KEY_HALVE_8(F)                                                     \
        CLR_KEY_HALVE_4(F)                                                     \
        return CLR_KEY_LAST(F);                                                \
    }
#if CLR_VEC >= 16
#define CLR_KEY_HALVE_16(F) CLR_CAT(KT, 8) k8 = F(k.lo, k.hi);
#elif CLR_VEC == 8
#define CLR_KEY_HALVE_16(F) CLR_CAT(KT, 8) k8 = k;
#else
#define CLR_KEY_HALVE_16(F)
#endif
#if CLR_VEC >= 8
#define CLR_KEY_HALVE_8(F) CLR_CAT(KT, 4) k4 = F(k8.lo, k8.hi);
#elif CLR_VEC == 4
#define CLR_KEY_HALVE_8(F) CLR_CAT(KT, 4) k4 = k;
#else
#define CLR_KEY_HALVE_8(F)
#endif
#if CLR_VEC >= 4
#define CLR_KEY_HALVE_4(F) CLR_CAT(KT, 2) k2 = F(k4.lo, k4.hi);
#elif CLR_VEC == 2
#define CLR_KEY_HALVE_4(F) CLR_CAT(KT, 2) k2 = k;
#else
#define CLR_KEY_HALVE_4(F)
#endif
#if CLR_VEC >= 2
#define CLR_KEY_LAST(F) F(k2.lo, k2.hi)
#else
#define CLR_KEY_LAST(F) k
#endif
CLR_KEY_HREDUCE(clr_key_reduce_best, CLR_KEY_BEST)
CLR_KEY_HREDUCE(clr_key_reduce_other, CLR_KEY_OTHER)

clr_acc clr_acc_init(void)
{
    clr_acc a;
    a.best = (KVT)(CLR_KEY_START);
    a.guard = (KVT)(CLR_KEY_GUARD_START);
    return a;
}

clr_acc clr_acc_add(clr_acc a, VT v)
{
    KVT k = clr_key(v);
    a.best = CLR_KEY_BEST(a.best, k);
    a.guard = CLR_KEY_OTHER(a.guard, k);
    return a;
}

T clr_acc_result(clr_acc a)
{
    KT best = clr_key_reduce_best(a.best);
    KT guard = clr_key_reduce_other(a.guard);
    KT lo = min(best, guard), hi = max(best, guard);
    if (lo < CLR_KEY_NINF || hi > CLR_KEY_PINF)
        return (T)NAN;
    return CLR_AS_T(CLR_KEY_FLIP(best));
}

#else

typedef VT clr_acc;
clr_acc clr_acc_init(void) { return (VT)(CLR_IDENTITY); }
clr_acc clr_acc_add(clr_acc a, VT v) { return clr_opv(a, v); }
T clr_acc_result(clr_acc a) { return clr_hreduce(a); }

#endif

#endif /* CLR_OP <= CLR_OP_MAX */
