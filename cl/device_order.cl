/*
 * device_order.cl — how one work-group's global stores become visible to
 * another, in one place for the kernels that hand values between
 * work-groups (the single-pass reduction, the look-back scan).
 *
 * Compile-time parameters:
 *   CLR_ORDER  a CLR_ORDER_* code of contract.h: PTX (NVIDIA release/acquire
 *              at GPU scope), CL20 (OpenCL C 2.0 atomics at device scope;
 *              built with -cl-std=CL2.0 or CL3.0), NONE (mem_fence and
 *              volatile accesses, enough on CPUs' coherent caches).
 *
 * Provides:
 *   clr_fence_device()              orders this work-item's global accesses
 *                                   before and after it at device scope
 *   clr_status_store(p, v)          a status word, with release semantics
 *   clr_status_load(p)              a status word, with acquire semantics
 *   clr_value_store(p, v), clr_value_load(p)
 *                                   a value handed over by a status word
 *   clr_relaxed_store64(p, w), clr_relaxed_load64(p)
 *                                   a 64-bit word stored and loaded whole
 *   clr_relaxed_store64x2(p, a, b), clr_relaxed_load64x2(p, &a, &b)
 *                                   two such words at p (16-byte aligned)
 *                                   in one access; each word is whole, but
 *                                   a load may see one word of an earlier
 *                                   store and one of a later
 */

#if CLR_ORDER == CLR_ORDER_PTX
/* NVIDIA: mem_fence orders only within a work-group there, so status words
 * are written with release and read with acquire semantics at GPU scope,
 * and the values read after an acquire go to L2 (ld.relaxed.gpu), never to
 * a stale L1 line. */
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
#if CLR_T_BYTES == 2
    /* The storage types' bits: a volatile load is relaxed at system scope. */
    return *(volatile global T *)p;
#elif CLR_IS_64
    ulong v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return CLR_AS_T(v);
#else
    uint v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return CLR_AS_T(v);
#endif
}
void clr_value_store(global T *p, T v) { *p = v; }

/* A 64-bit word stored and loaded whole at GPU scope, without ordering
 * (for a value and its status word that travel together). */
void clr_relaxed_store64(global ulong *p, ulong w)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(w) : "memory");
}
ulong clr_relaxed_load64(global ulong *p)
{
    ulong w;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(p) : "memory");
    return w;
}
/* PTX treats a vector access as one access per element, in no set order:
 * hence the caveat above. */
void clr_relaxed_store64x2(global ulong *p, ulong a, ulong b)
{
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b)
                 : "memory");
}
void clr_relaxed_load64x2(global ulong *p, ulong *a, ulong *b)
{
    ulong x, y;
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
                 : "=l"(x), "=l"(y)
                 : "l"(p)
                 : "memory");
    *a = x;
    *b = y;
}

void clr_fence_device(void) { asm volatile("membar.gl;" ::: "memory"); }

#elif CLR_ORDER == CLR_ORDER_CL20
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

void clr_fence_device(void)
{
    atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acq_rel, memory_scope_device);
}

#else
/* CPUs: volatile accesses keep the compiler from caching or reordering, and
 * mem_fence orders the value before its status word (coherent caches do the
 * rest). */
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

void clr_fence_device(void) { mem_fence(CLK_GLOBAL_MEM_FENCE); }
#endif

#if CLR_ORDER != CLR_ORDER_PTX
/* Volatile aligned 8-byte accesses, whole on the CPUs where packed tile
 * states run as a test option (tile_state.cl). */
void clr_relaxed_store64(global ulong *p, ulong w) { *(volatile global ulong *)p = w; }
ulong clr_relaxed_load64(global ulong *p) { return *(volatile global ulong *)p; }
void clr_relaxed_store64x2(global ulong *p, ulong a, ulong b)
{
    clr_relaxed_store64(p, a);
    clr_relaxed_store64(p + 1, b);
}
void clr_relaxed_load64x2(global ulong *p, ulong *a, ulong *b)
{
    *a = clr_relaxed_load64(p);
    *b = clr_relaxed_load64(p + 1);
}
#endif
