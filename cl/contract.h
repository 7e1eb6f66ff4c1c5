/*
 * contract.h — the codes and layouts the host and the kernels agree on.
 *
 * Read by the C host (src/) and by every OpenCL C program, where it is
 * embedded first, so that no number means something in two places. Only
 * preprocessor definitions: it is valid C and OpenCL C alike. The host passes
 * these codes with -D; the public enums of clreduce.h that share values with
 * them are pinned by _Static_assert in src/contract_check.c.
 */
#ifndef CLR_CONTRACT_H
#define CLR_CONTRACT_H

/* CLR_TYPE: the kernel's element type (clreduce_type's values; signed sums
 * are compiled as unsigned ones). */
#define CLR_TYPE_FLOAT 0
#define CLR_TYPE_DOUBLE 1
#define CLR_TYPE_INT 2
#define CLR_TYPE_UINT 3
#define CLR_TYPE_LONG 4
#define CLR_TYPE_ULONG 5
/* Storage types, read by user-defined operators only: IEEE binary16 and
 * bfloat16 (the top half of a float's bits), each held as a ushort and
 * handed to the operator's map as a float. */
#define CLR_TYPE_HALF 6
#define CLR_TYPE_BFLOAT16 7

/* CLR_OP: the operator (clreduce_op's values). */
#define CLR_OP_SUM 0
#define CLR_OP_MIN 1
#define CLR_OP_MAX 2
/* The operators of operators.cl, each with an accumulator and a result
 * layout of its own (clreduce_op's values too). */
#define CLR_OP_ARGMIN 3
#define CLR_OP_ARGMAX 4
#define CLR_OP_MINMAX 5
#define CLR_OP_SUM_SQUARES 6
#define CLR_OP_SUM_ABS 7
#define CLR_OP_NORM2 8
#define CLR_OP_MEAN_VAR 9
#define CLR_OP_DOT 10
/* A user-defined operator (clreduce_operator_create()): its accumulator and
 * functions come from a generated source (src/custom.c) that precedes
 * types.cl. Not a clreduce_op value. */
#define CLR_OP_CUSTOM 11

/* CLR_SG_PATH: how sub-group primitives are implemented
 * (clreduce_subgroup_path's values). */
#define CLR_SG_NONE 1
#define CLR_SG_NV_PTX 2
#define CLR_SG_SHUFFLE_RELATIVE 3
#define CLR_SG_SHUFFLE 4
#define CLR_SG_REDUCE 5

/* CLR_VARIANT: which reduction kernel a program holds. */
#define CLR_REDUCE_INTERLEAVED 1
#define CLR_REDUCE_SEQUENTIAL 2
#define CLR_REDUCE_FIRST_ADD 3
#define CLR_REDUCE_SUBGROUP_TAIL 4
#define CLR_REDUCE_SUBGROUP 5
#define CLR_REDUCE_UNROLLED 6
#define CLR_REDUCE_GRID_STRIDE 7
#define CLR_REDUCE_ATOMIC 8
#define CLR_REDUCE_SINGLE_PASS 9
#define CLR_REDUCE_REPRODUCIBLE 10

/* The order of the reproducible reduction (fixed_order.cl), a function
 * of the element count alone: tiles of CLR_FIXED_LANES lanes, each lane
 * combining CLR_FIXED_STEPS vectors of 16 bytes in sequence. A tile holds
 * CLR_FIXED_LANES * CLR_FIXED_STEPS * 16 bytes of elements. */
#define CLR_FIXED_LANES 256
#define CLR_FIXED_STEPS 16
#define CLR_FIXED_TILE_BYTES (CLR_FIXED_LANES * CLR_FIXED_STEPS * 16)
/* Segments of at most this many lanes of a step (CLR_FIXED_SHORT_LANES *
 * 16 bytes) are summed by one work-item in the same order. */
#define CLR_FIXED_SHORT_LANES 16
/* Rows of at most one tile are summed by squads of at most this many
 * work-items (a power of two, at most a warp), and rows longer than one
 * step that way only when there are at least CLR_FIXED_LANES /
 * CLR_FIXED_SQUAD of them, one work-group's worth of squads. */
#define CLR_FIXED_SQUAD 32

/* CLR_SCAN: which scan kernels a program holds. */
#define CLR_SCAN_HILLIS_STEELE 1
#define CLR_SCAN_BLELLOCH 2
#define CLR_SCAN_REDUCE_THEN_SCAN 3
#define CLR_SCAN_LOOKBACK 4

/* Rows and segments (reduce_rows.cl, reduce_segments.cl). The team size a
 * rows launch passes: this code for one sub-group per team (whatever the
 * sub-group's size), else a power of two of work-items up to CLR_WG. */
#define CLR_TEAM_SUBGROUP 0u

/* CLR_OFFSETS_TYPE: the element type of a segments launch's offsets array,
 * CLR_TYPE_UINT or CLR_TYPE_ULONG. */

/* CLR_ORDER: how one work-group's global stores become visible to another,
 * for the single-pass reduction and the look-back scan (device_order.cl).
 * NONE: the device promises nothing beyond OpenCL 1.2's mem_fence, which a
 * CPU's coherent caches make enough (elsewhere those variants are not used);
 * CL20: OpenCL C 2.0 atomics and fences at device scope; PTX: NVIDIA's
 * release/acquire instructions at GPU scope (mem_fence orders only within a
 * work-group there). */
#define CLR_ORDER_NONE 0
#define CLR_ORDER_CL20 1
#define CLR_ORDER_PTX 2

/* CLR_ATOMIC: how the atomic reduction combines work-group results. */
#define CLR_ATOMIC_CAS 0     /* a compare-and-swap loop on the bits */
#define CLR_ATOMIC_BUILTIN 1 /* the integer atomic built-ins */
#define CLR_ATOMIC_NV_FLOAT 2 /* PTX red.global.add.f32/.f64 */

/* Scratch kept between launches (src/scratch.c): a ticket counter at byte 0,
 * the rest from CLR_SCRATCH_HEADER bytes on, so that the ticket has a cache
 * line of its own. */
#define CLR_SCRATCH_HEADER 128

/* The look-back scan's scratch: a slot of its own cache line per tile
 * (tile_state.cl). */
#define CLR_LOOKBACK_SLOT_BYTES 128

/* A look-back status word: (epoch << CLR_STATUS_STATE_BITS) | state. */
#define CLR_STATUS_STATE_BITS 2
#define CLR_STATUS_AGGREGATE 1u /* the tile's aggregate is published */
#define CLR_STATUS_INCLUSIVE 2u /* its inclusive prefix is published */
#define CLR_EPOCH_LIMIT (1u << (32 - CLR_STATUS_STATE_BITS))

#endif
