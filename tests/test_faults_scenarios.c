/* The scenarios of unit.faults (see test_faults.c): a reduction, a scan or
 * a reduction of segments of one kind, each of whose OpenCL calls is failed
 * in turn. */
#include "test_faults.h"

#define R(name, entry, op, type, variant, count, offset, roff, ooo, warm, disk)                 \
    {name, REDUCE, entry, CLREDUCE_OP_##op, CLREDUCE_##type, CLREDUCE_##variant,              \
     CLREDUCE_INCLUSIVE, 0, count, offset, roff, ooo, warm, 0, disk, 0}
#define SC(name, entry, op, type, kind, variant, in_place, count, offset, roff, ooo, warm,      \
           warm_count, disk)                                                                  \
    {name, SCAN, entry, CLREDUCE_OP_##op, CLREDUCE_##type, CLREDUCE_SCAN_##variant,           \
     CLREDUCE_##kind, in_place, count, offset, roff, ooo, warm, warm_count, disk, 0}

/* Segments of sum, min or max (the variant and kind unused), in a context of
 * `passes` launches (0: the library's choice). */
#define SG(name, entry, op, type, count, offset, roff, ooo, warm, disk, passes)                 \
    {name, SEGMENTS, entry, CLREDUCE_OP_##op, CLREDUCE_##type, CLREDUCE_AUTO,                 \
     CLREDUCE_INCLUSIVE, 0, count, offset, roff, ooo, warm, 0, disk, passes}

/* A reduction's first call (it builds) and a later one (a cache hit), alike
 * otherwise. */
#define R2(name, entry, op, type, variant, count, offset, roff, ooo, disk)                    \
    R(name ", first call", entry, op, type, variant, count, offset, roff, ooo, 0, disk),      \
    R(name ", cached", entry, op, type, variant, count, offset, roff, ooo, 1, disk)

const scenario scenarios[] = {
    /* Every variant's first call (it builds) and a later one (cache hit). */
    R2("interleaved", ENTRY_MEM, SUM, FLOAT, INTERLEAVED, 100003, 5, 1, 0, DISK_OFF),
    R2("sequential", ENTRY_MEM, MAX, INT32, SEQUENTIAL, 70001, 3, 2, 0, DISK_OFF),
    R2("first_add", ENTRY_MEM, MIN, DOUBLE, FIRST_ADD, 300007, 7, 0, 0, DISK_OFF),
    R2("subgroup_tail", ENTRY_MEM, SUM, UINT32, SUBGROUP_TAIL, 100003, 1, 1, 0, DISK_OFF),
    R2("subgroup", ENTRY_MEM, MAX, FLOAT, SUBGROUP, 100003, 2, 1, 0, DISK_OFF),
    R2("unrolled", ENTRY_MEM, SUM, INT64, UNROLLED, 100003, 9, 1, 0, DISK_OFF),
    R2("grid_stride", ENTRY_MEM, MIN, UINT64, GRID_STRIDE, 100003, 4, 2, 0, DISK_OFF),
    R("atomic, first call", ENTRY_MEM, SUM, INT32, ATOMIC, 100003, 6, 1, 0, 0, DISK_OFF),
    R("atomic, cached", ENTRY_MEM, MAX, UINT32, ATOMIC, 100003, 6, 1, 0, 1, DISK_OFF),
    R2("single_pass", ENTRY_MEM, SUM, DOUBLE, SINGLE_PASS, 100003, 3, 1, 0, DISK_OFF),
    R2("auto", ENTRY_MEM, MAX, INT64, AUTO, 100003, 8, 1, 0, DISK_OFF),
    /* Out-of-order queues: a fresh scratch buffer per single-pass call. */
    R2("single_pass, out-of-order", ENTRY_MEM, MIN, FLOAT, SINGLE_PASS, 100003, 2, 1, 1, DISK_OFF),
    R("sequential, out-of-order, cached",
      ENTRY_MEM, SUM, UINT64, SEQUENTIAL, 100003, 2, 1, 1, 1, DISK_OFF),
    R("atomic, out-of-order, cached", ENTRY_MEM, SUM, UINT32, ATOMIC, 100003, 2, 1, 1, 1, DISK_OFF),
    /* The host entry point: its own queue, buffers and read-back. */
    R2("host, auto", ENTRY_HOST, SUM, FLOAT, AUTO, 100003, 0, 0, 0, DISK_OFF),
    R("host, sequential, cached", ENTRY_HOST, MIN, INT64, SEQUENTIAL, 70001, 0, 0, 0, 1, DISK_OFF),
    R("host, atomic, cached", ENTRY_HOST, MAX, INT32, ATOMIC, 70001, 0, 0, 0, 1, DISK_OFF),
    /* Count 0: only the identity fill (none at all from the host). */
    R("count 0, in-order", ENTRY_MEM, MIN, DOUBLE, SEQUENTIAL, 0, 3, 1, 0, 0, DISK_OFF),
    R("count 0, out-of-order", ENTRY_MEM, MAX, UINT32, AUTO, 0, 3, 2, 1, 0, DISK_OFF),
    R("count 0, host", ENTRY_HOST, SUM, INT32, AUTO, 0, 0, 0, 0, 0, DISK_OFF),
    /* The disk cache: storing a binary after a build, and loading one. */
    R("disk cache cold, auto, first call",
      ENTRY_MEM, SUM, INT32, AUTO, 100003, 5, 1, 0, 0, DISK_COLD),
    R("disk cache warm, auto, first call",
      ENTRY_MEM, SUM, INT32, AUTO, 100003, 5, 1, 0, 0, DISK_WARM),
    R("disk cache warm, host, grid_stride",
      ENTRY_HOST, MAX, FLOAT, GRID_STRIDE, 70001, 0, 0, 0, 0, DISK_WARM),

    /* Scans: every variant's first call and a cached one, at sizes that
     * take the two classics three levels deep. */
    SC("scan hillis_steele, first call",
       ENTRY_MEM, SUM, INT32, INCLUSIVE, HILLIS_STEELE, 0, 100003, 5, 2, 0, 0, 0, DISK_OFF),
    SC("scan hillis_steele, cached",
       ENTRY_MEM, MAX, FLOAT, EXCLUSIVE, HILLIS_STEELE, 0, 100003, 5, 2, 0, 1, 0, DISK_OFF),
    SC("scan blelloch, first call",
       ENTRY_MEM, SUM, FLOAT, EXCLUSIVE, BLELLOCH, 0, 300007, 3, 1, 0, 0, 0, DISK_OFF),
    SC("scan blelloch, cached",
       ENTRY_MEM, MIN, INT64, INCLUSIVE, BLELLOCH, 0, 300007, 3, 1, 0, 1, 0, DISK_OFF),
    SC("scan reduce_then_scan, first call",
       ENTRY_MEM, SUM, DOUBLE, INCLUSIVE, REDUCE_THEN_SCAN, 0, 100003, 4, 0, 0, 0, 0, DISK_OFF),
    SC("scan reduce_then_scan, cached",
       ENTRY_MEM, SUM, UINT32, EXCLUSIVE, REDUCE_THEN_SCAN, 0, 100003, 4, 0, 0, 1, 0, DISK_OFF),
    SC("scan lookback, first call",
       ENTRY_MEM, SUM, INT64, INCLUSIVE, LOOKBACK, 0, 100003, 2, 3, 0, 0, 0, DISK_OFF),
    SC("scan lookback, cached",
       ENTRY_MEM, MAX, UINT64, EXCLUSIVE, LOOKBACK, 0, 100003, 2, 3, 0, 1, 0, DISK_OFF),
    SC("scan auto, first call",
       ENTRY_MEM, MIN, UINT32, INCLUSIVE, AUTO, 0, 70001, 1, 1, 0, 0, 0, DISK_OFF),
    SC("scan auto, cached",
       ENTRY_MEM, SUM, FLOAT, INCLUSIVE, AUTO, 0, 70001, 1, 1, 0, 1, 0, DISK_OFF),
    /* The look-back's scratch per queue grows from what a call of 34000
     * elements needed (on a CPU's tuning, by less than twice: the library
     * asks for twice the old size, then for what it needs). */
    SC("scan lookback, scratch grows",
       ENTRY_MEM, SUM, INT32, INCLUSIVE, LOOKBACK, 0, 100003, 2, 1, 0, 1, 34000, DISK_OFF),
    SC("scan lookback, out-of-order, first call",
       ENTRY_MEM, SUM, INT32, EXCLUSIVE, LOOKBACK, 0, 100003, 2, 1, 1, 0, 0, DISK_OFF),
    SC("scan lookback, out-of-order, cached",
       ENTRY_MEM, MIN, DOUBLE, INCLUSIVE, LOOKBACK, 0, 100003, 2, 1, 1, 1, 0, DISK_OFF),
    SC("scan blelloch, out-of-order, cached",
       ENTRY_MEM, SUM, UINT64, INCLUSIVE, BLELLOCH, 0, 100003, 2, 1, 1, 1, 0, DISK_OFF),
    /* In place: the range is its own output. */
    SC("scan reduce_then_scan, in place, cached",
       ENTRY_MEM, SUM, INT32, INCLUSIVE, REDUCE_THEN_SCAN, 1, 100003, 6, 0, 0, 1, 0, DISK_OFF),
    SC("scan lookback, in place, cached",
       ENTRY_MEM, MAX, INT32, EXCLUSIVE, LOOKBACK, 1, 100003, 6, 0, 0, 1, 0, DISK_OFF),
    SC("scan hillis_steele, in place, cached",
       ENTRY_MEM, SUM, INT64, EXCLUSIVE, HILLIS_STEELE, 1, 100003, 6, 0, 0, 1, 0, DISK_OFF),
    /* The host entry point. */
    SC("scan host, auto, first call",
       ENTRY_HOST, SUM, INT32, INCLUSIVE, AUTO, 0, 100003, 0, 0, 0, 0, 0, DISK_OFF),
    SC("scan host, hillis_steele, cached",
       ENTRY_HOST, MIN, DOUBLE, EXCLUSIVE, HILLIS_STEELE, 0, 100003, 0, 0, 0, 1, 0, DISK_OFF),
    SC("scan host, in place, cached",
       ENTRY_HOST, SUM, UINT64, INCLUSIVE, REDUCE_THEN_SCAN, 1, 100003, 0, 0, 0, 1, 0, DISK_OFF),
    /* Count 0: a marker for the done event. */
    SC("scan count 0", ENTRY_MEM, SUM, INT32, INCLUSIVE, AUTO, 0, 0, 3, 1, 0, 0, 0, DISK_OFF),
    SC("scan disk cache warm, blelloch, first call",
       ENTRY_MEM, MAX, INT32, INCLUSIVE, BLELLOCH, 0, 100003, 3, 1, 0, 0, 0, DISK_WARM),

    /* Segments: the library's launches (two on CPUs: the chunks' heads,
     * then the segments), first call, cached, out of order, from the host. */
    SG("segments, first call", ENTRY_MEM, SUM, FLOAT, 100003, 3, 2, 0, 0, DISK_OFF, 0),
    SG("segments, cached", ENTRY_MEM, MIN, INT64, 100003, 1, 1, 0, 1, DISK_OFF, 0),
    SG("segments, out-of-order, cached", ENTRY_MEM, MAX, UINT32, 100003, 2, 0, 1, 1, DISK_OFF, 0),
    SG("segments host, cached", ENTRY_HOST, SUM, DOUBLE, 70001, 0, 0, 0, 1, DISK_OFF, 0),
    /* One launch, after the launch that finds each chunk's first segment
     * (from 32 chunks a compute unit: chunks of 512 here, so up to 18
     * compute units), its binary loaded from disk (PoCL 3.1 takes about a
     * minute to compile it). */
    SG("segments in one launch, starts, cached",
       ENTRY_MEM, SUM, INT32, 300007, 5, 1, 0, 1, DISK_WARM, 1),
    SG("segments in one launch, starts, out-of-order, cached",
       ENTRY_MEM, MAX, FLOAT, 300007, 5, 1, 1, 1, DISK_WARM, 1),
};

const size_t scenario_count = ARRAY_SIZE(scenarios);
