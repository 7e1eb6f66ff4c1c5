/* Tuning values, kept apart from the algorithms: one table of entries from
 * the most specific (a named device) to the most general (any device). The
 * first entry that matches wins; settings override single fields. */
#include <string.h>

#include "internal.h"

typedef struct tuning_entry {
    device_vendor vendor;       /* VENDOR_OTHER: any vendor */
    cl_device_type type;        /* 0: any type */
    const char *name_contains;  /* NULL: any device */
    size_t work_group_size;
    unsigned groups_per_compute_unit;
    unsigned loads_per_work_item;
    unsigned vector_bytes;      /* bytes per vector load */
    size_t scan_work_group_size;
    unsigned scan_loads;        /* vectors per work-item in a scan tile */
} tuning_entry;

static const tuning_entry table[] = {
    /* NVIDIA: 8 groups of 256 fill an SM's 2048 threads; 16-byte loads.
     * Scans: tiles of 512 x 16 vectors (128 KiB, 128 registers a work-item,
     * one work-group per SM) ran the H200's look-back scan fastest: larger
     * tiles pay the per-tile ticket, look-back and barriers less often, and
     * smaller ones at higher occupancy did not make up for it. */
    {VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, NULL, 256, 8, 4, 16, 512, 16},
    {VENDOR_AMD, CL_DEVICE_TYPE_GPU, NULL, 256, 8, 4, 16, 256, 8},
    {VENDOR_OTHER, CL_DEVICE_TYPE_GPU, NULL, 256, 4, 4, 16, 256, 8},
    /* CPUs: a few work-groups per core, each walking long runs. */
    {VENDOR_OTHER, CL_DEVICE_TYPE_CPU, NULL, 256, 4, 2, 16, 256, 4},
    {VENDOR_OTHER, 0, NULL, 256, 4, 2, 16, 256, 4},
};

static int entry_matches(const tuning_entry *e, const device_info *info)
{
    if (e->vendor != VENDOR_OTHER && e->vendor != info->vendor)
        return 0;
    if (e->type != 0 && !(info->type & e->type))
        return 0;
    return e->name_contains == NULL || strstr(info->name, e->name_contains) != NULL;
}

static size_t floor_pow2(size_t x)
{
    size_t p = 1;
    while (p <= x / 2)
        p *= 2;
    return p;
}

void tuning_for_device(const device_info *info, size_t element_size,
                       const clreduce_settings *overrides, tuning *out)
{
    const tuning_entry *e = &table[sizeof table / sizeof table[0] - 1];
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (entry_matches(&table[i], info)) {
            e = &table[i];
            break;
        }
    }
    out->work_group_size = e->work_group_size;
    out->groups_per_compute_unit = e->groups_per_compute_unit;
    out->loads_per_work_item = e->loads_per_work_item;
    out->vector_width = e->vector_bytes / (unsigned)element_size;
    /* Per device kind: a CPU core streams best through one contiguous run
     * (the benchmark's read kernel on PoCL reads several times faster so);
     * on the H200 the read-only data path (ld.global.nc) gained about 0.5%,
     * within run-to-run spread, and L2 prefetch hints lost 5-7%. */
    out->segmented = (info->type & CL_DEVICE_TYPE_CPU) != 0;
    out->nv_load = info->vendor == VENDOR_NVIDIA;
    /* Short segments by runs of elements, one pass over a chunk
     * (segment_runs.cl), rather than a team per segment: on the H200 it ran
     * sums of 4-byte elements 11-29% faster (float segments of 1 to 10 and
     * of 1 to 1000 elements, arrays of 100 and of 1000; int32 likewise);
     * doubles gain only where segments are short (segment_layouts.c); on PoCL it
     * was not faster (bench/results/h200-2026-12-02-j.md, -r.md,
     * cpu-2026-12-02-segments.md). */
    out->segment_runs = info->vendor == VENDOR_NVIDIA && (info->type & CL_DEVICE_TYPE_GPU);
    /* Sums of squares, of absolute values and dot products of rows and
     * segments: shorter lanes than other operators' on GPUs, where they
     * gather a warp's loads into fewer cache lines; on PoCL and Intel's
     * CPU runtime they took up to 5.5x as long (rows.c, segments.c). On
     * GPUs, float and double sums of squares and of absolute values over
     * shorter segments take the sums' kernels too, which on those CPU
     * runtimes took up to 5.3x the operators' teams' time (segment_layouts.c). */
    out->sum_teams = (info->type & CL_DEVICE_TYPE_GPU) != 0;
    out->scan_work_group_size = e->scan_work_group_size;
    out->scan_loads = e->scan_loads;
    if (overrides) {
        if (overrides->work_group_size)
            out->work_group_size = out->scan_work_group_size = overrides->work_group_size;
        if (overrides->groups_per_compute_unit)
            out->groups_per_compute_unit = overrides->groups_per_compute_unit;
        if (overrides->loads_per_work_item)
            out->loads_per_work_item = out->scan_loads = overrides->loads_per_work_item;
        if (overrides->vector_width)
            out->vector_width = overrides->vector_width;
    }
    /* The local scratch of CLR_WG elements must fit, with room to spare. */
    size_t limit = info->max_work_group_size;
    if (info->local_mem_size / 2 / element_size < limit)
        limit = (size_t)(info->local_mem_size / 2 / element_size);
    if (out->work_group_size > limit)
        out->work_group_size = floor_pow2(limit);
    /* The scans keep about 2.1 elements a work-item in local memory. */
    size_t scan_limit = info->max_work_group_size;
    if (info->local_mem_size / 3 / element_size < scan_limit)
        scan_limit = (size_t)(info->local_mem_size / 3 / element_size);
    if (out->scan_work_group_size > scan_limit)
        out->scan_work_group_size = floor_pow2(scan_limit);
    /* At most 16 bytes a load for 8-byte types: on the H200 a double scan
     * tile read as 4 or 8 doubles a vector (two or four loads, each of them
     * half as coalesced) ran 23-34% slower than as 2 (2026-12-02). */
    if (out->vector_width * element_size > 16 && element_size == 8)
        out->vector_width = 2;
    if (out->vector_width < 1)
        out->vector_width = 1;
}

/* Changes to the table's tuning for min and max, the operators past max and
 * several operators in one pass, where the caller set none (`batched`: one
 * result per row or segment). Measured on the H200 (float, 2^28 elements
 * unless said):
 *  - max, in a sweep of 4-16 loads x 4-16 work-groups per compute unit,
 *    ran fastest with 4 loads and 4 work-groups; then min and max, timed in
 *    turn, ran back to back 5% faster than with 8 work-groups at 2^24
 *    elements and 0.45% at 2^28; the sum did not gain (2026-12-02);
 *  - alone, minmax and dot ran 4% and 2% faster with 4 work-groups per
 *    compute unit instead of 8, and mean_var 5% faster with 16 loads in
 *    flight instead of 4 (its accumulator leaves room for them); argmax,
 *    the sums and the norm were fastest with the table's values
 *    (2026-12-01);
 *  - sum, min, max and argmax in one pass ran 5% faster in work-groups of
 *    512 with 16 loads in flight and 2 work-groups per compute unit
 *    (1.10x one sum, against 1.16x); 256 x 16 loads x 4 groups came second
 *    (1.12x), and fewer loads or more groups were slower (2026-12-02);
 *    once min and max shared an accumulator (multi_walk.cl's twins), a
 *    sweep of 256-1024 x 8-16 loads x 1-4 groups found none faster than
 *    these, 1.07-1.08x (2026-12-03). Rows and segments of floats take them
 *    too.
 *  - the same four over a range of the other types (2026-12-04,
 *    bench/results/h200-2026-12-04-h.md): int32 and uint32 took 4-5% less
 *    time at 2^28 and 10-12% less at 2^24 with the float values than with
 *    the table's, double, int64 and uint64 3-7% and 6-19% less with 256
 *    work-items x 8 loads x 4 work-groups (the best of a sweep of 256-512
 *    x 4-16 x 2-4 for double). Over rows and segments those values were
 *    up to 28% slower for several shapes (segments of 1-1000 and 1-10^5,
 *    arrays of 1000), so batched calls of those types keep the table's.
 *    Sets other than those four are untimed.
 * Other devices are unmeasured and keep the table's. */
void tuning_for_operators(const device_info *info, const clreduce_settings *overrides,
                          const clreduce_op *ops, size_t count, clreduce_type type, int batched,
                          tuning *t)
{
    if (info->vendor != VENDOR_NVIDIA)
        return;
    unsigned groups = 0, loads = 0;
    size_t wg = 0;
    if (count > 1 && (type == CLREDUCE_FLOAT || !batched)) {
        int wide = clreduce_type_size(type) == 8;
        wg = wide ? 256 : 512;
        loads = wide ? 8 : 16;
        groups = wide ? 4 : 2;
    } else if (count > 1 || type != CLREDUCE_FLOAT) {
        return;
    } else if (ops[0] == CLREDUCE_OP_MIN || ops[0] == CLREDUCE_OP_MAX ||
               ops[0] == CLREDUCE_OP_MINMAX || ops[0] == CLREDUCE_OP_DOT) {
        groups = 4;
    } else if (ops[0] == CLREDUCE_OP_MEAN_VAR) {
        loads = 16;
    }
    if (wg && !overrides->work_group_size && wg <= info->max_work_group_size)
        t->work_group_size = wg;
    if (loads && !overrides->loads_per_work_item)
        t->loads_per_work_item = loads;
    if (groups && !overrides->groups_per_compute_unit)
        t->groups_per_compute_unit = groups;
}

/* The operator classes the rules below name. */
static int op_is_arg(clreduce_op op)
{
    return op == CLREDUCE_OP_ARGMIN || op == CLREDUCE_OP_ARGMAX;
}

static int op_is_minmax_or_mean_var(clreduce_op op)
{
    return op == CLREDUCE_OP_MINMAX || op == CLREDUCE_OP_MEAN_VAR;
}

/* On PoCL's CPU devices a flat sum, min or max of 4-byte elements, of
 * FLAT_WIDE_MIN elements or more, loads vectors of the device's native
 * float width where it is wider than the table's. On PoCL 3.1 on an
 * AVX-512 machine (native width 16; bench/results/cpu-2026-12-06-flat.txt,
 * three turns alternating, medians) vectors of 16 took float and int32
 * sums, minima and maxima of 2^20 and 2^22 elements in 0.44-0.62x the time
 * of the table's 4 (0.43-0.63x with the rule, old and new builds
 * alternating); at 2^16 float minima and maxima took 1.49-1.56x (15-17 µs
 * more), hence the bound, between which and 2^16 nothing was timed. Intel's
 * CPU runtime took float minima and maxima in 1.21-2.19x the time so, and
 * 8-byte types gained nothing on either: they keep the table's. Other
 * native widths, the variants a caller names and the other families are
 * untimed so. */
#define FLAT_WIDE_MIN ((size_t)1 << 20)

/* The same for float argmin, argmax, minmax and mean_var alone on Intel's
 * CPU runtime from FLAT_OPS_WIDE_MIN elements, and for float minmax and
 * mean_var alone on PoCL from FLAT_WIDE_MIN. On this machine
 * (bench/results/cpu-2026-12-06-flat-operators.txt, medians of three
 * turns) vectors of 16 rather than the table's 4 took Intel's float argmin
 * and argmax of 2^14 to 2^24 elements in 0.51-0.78x the time but at 2^16
 * (1.04-1.08x), minmax 0.22-0.73x, mean_var 0.22-0.97x; PoCL's float
 * minmax and mean_var from 2^18 in 0.59-1.00x, at 2^16 in 1.60-2.36x, its
 * argmin and argmax from 2^18 in 0.65-1.08x (at 2^16 1.37-1.55x); Intel's
 * doubles went either way (0.87-1.06x) and its norm2 up to 1.22x slower.
 * With the rule, old and new builds alternating, Intel's four took 2^18 to
 * 2^22 elements in 0.64-0.89x the time, PoCL's two 2^20 and 2^22 in
 * 0.67-0.76x. Sizes between 2^16 and 2^18 were not timed, nor other native
 * widths. */
#define FLAT_OPS_WIDE_MIN ((size_t)1 << 18)

/* Whether a flat range of `count` elements takes the native width, by the
 * two rules above. */
static int flat_wide(const device_info *info, clreduce_op op, clreduce_type type, size_t count)
{
    if (!(info->type & CL_DEVICE_TYPE_CPU))
        return 0;
    if (info->vendor == VENDOR_POCL)
        return count >= FLAT_WIDE_MIN &&
               ((op <= CLREDUCE_OP_MAX && clreduce_type_size(type) == 4) ||
                (op_is_minmax_or_mean_var(op) && type == CLREDUCE_FLOAT));
    if (info->vendor == VENDOR_INTEL)
        return count >= FLAT_OPS_WIDE_MIN && (op_is_minmax_or_mean_var(op) || op_is_arg(op)) &&
               type == CLREDUCE_FLOAT;
    return 0;
}

/* On Intel's CPU runtime double argmin, argmax, minmax and mean_var alone,
 * of FLAT_GROUPS_MIN elements or more, run FLAT_GROUPS_PER_UNIT work-groups
 * per compute unit rather than the table's 4. On this machine
 * (bench/results/cpu-2026-12-06-flat-operators.txt, part 4, medians of three
 * turns) 16 took them at 2^22 and 2^24 elements in 0.54-0.84x the time, at
 * 2^20 in 1.10-1.25x; 8 did less (0.58-0.97x at 2^22 and 2^24); double sums
 * and the float operators gained nothing. With the rule, old and new builds
 * alternating (part 5), the four took 2^22 and 2^24 elements in 0.56-0.85x
 * the time. Between 2^20 and 2^22 nothing was timed. */
#define FLAT_GROUPS_MIN ((size_t)1 << 22)
#define FLAT_GROUPS_PER_UNIT 16

void tuning_for_flat_range(const device_info *info, const clreduce_settings *overrides,
                           clreduce_op op, clreduce_type type, size_t count, tuning *t)
{
    unsigned native = info->native_float_width;
    if (flat_wide(info, op, type, count) && !overrides->vector_width &&
        native > t->vector_width && native <= 16 && (native & (native - 1)) == 0)
        t->vector_width = native;
    if (info->vendor == VENDOR_INTEL && (info->type & CL_DEVICE_TYPE_CPU) &&
        type == CLREDUCE_DOUBLE && (op_is_arg(op) || op_is_minmax_or_mean_var(op)) &&
        count >= FLAT_GROUPS_MIN &&
        !overrides->groups_per_compute_unit)
        t->groups_per_compute_unit = FLAT_GROUPS_PER_UNIT;
}

/* Look-back scans of up to SCAN_SMALL_TILE_MAX elements on NVIDIA GPUs, the
 * table's tile halved to 256 work-items of 16 vectors, where the settings
 * fix neither (bench/results/h200-2026-12-07-scan-tiles.md): on the H200 at
 * 2^24, 2^25 and 2^26 elements, the tiles alternating over four turns,
 * inclusive float sums and maxima and double maxima took 0.96-0.98x the
 * device span (float max at 2^24: 50.45 against 51.44 us), float sums at
 * 2^24 the same; double sums took 1.20-1.24x and keep the table's tile. On
 * an H100, the rule against the table's tile pinned, three turns, those
 * scans took 0.83-1.00x the span at 2^20 to 2^24 (float sums 1.00x from
 * 2^22) and 1.00-1.01x at 2^26.
 * Minima take the maxima's rule, 4-byte integers the floats', 8-byte
 * integers the doubles' (their kernels differ only in the operator; none
 * of them was timed). */
#define SCAN_SMALL_TILE_MAX ((size_t)1 << 26)

void tuning_for_scan(const device_info *info, const clreduce_settings *overrides,
                     clreduce_op op, size_t element_size, size_t count, tuning *t)
{
    if (info->vendor != VENDOR_NVIDIA || !(info->type & CL_DEVICE_TYPE_GPU) ||
        count > SCAN_SMALL_TILE_MAX || overrides->work_group_size ||
        overrides->loads_per_work_item || op > CLREDUCE_OP_MAX)
        return;
    if (element_size == 8 && op == CLREDUCE_OP_SUM)
        return;
    if (t->scan_work_group_size > 256)
        t->scan_work_group_size = 256;
}

/* Operators over short rows and segments read them an element at a time
 * (a vector width of 1), where the settings fix no width: a lane's few
 * elements then take no vector accumulator to fold and no vector load
 * split at an unaligned start. Rows of SCALAR_LENGTH_MAX elements or fewer,
 * segments of a mean shorter than that:
 * - NVIDIA GPUs, over rows float and double argmin, argmax, minmax and
 *   mean_var; on an H100 at 2^26 elements
 *   (bench/results/h100-2026-12-06-e.md) argmax, minmax and mean_var took
 *   rows of 4 in 0.72-0.79x the time so (doubles 0.88-0.96x), rows of 8 in
 *   0.87-0.90x (doubles 0.91-1.01x), rows of 16 in 1.16-1.32x; with the
 *   rule, old and new builds alternating, argmin took what argmax did. Dot
 *   of rows that short took 1.30-1.51x (floats), and keeps its vectors;
 * - NVIDIA GPUs, over segments every built-in operator that combines
 *   accumulators (segment_layouts.c asks for those alone); on the same H100
 *   (h100-2026-12-06-d.md) segments of 1-10 took 0.74-0.90x the time so
 *   for argmax, minmax, mean_var, norm2 and dot of floats, 0.59-0.76x for
 *   doubles; segments of 8 took 1.05-1.16x, of 16 1.37-1.44x (floats;
 *   doubles 1.00-1.08x and 0.84-1.28x); means between 5.5 and 8 untimed;
 * - NVIDIA GPUs, over segments sums, minima and maxima of 4-byte types
 *   (segment_layouts.c asks for those of no map); on the same H100, old and new
 *   builds alternating, two turns (h100-2026-12-06-f.md), segments of 1-5
 *   and 1-10 took 0.65-0.89x the time for floats (the sum of 1-10: 163.62
 *   -> 145.47 us), 0.88-0.90x for int32 and uint32 sums and 0.97-0.99x
 *   for their minima and maxima; segments of 8 and 1-1000 were unchanged.
 *   Double and int64 sums took 1.03-1.10x with a width of 1 (segments of
 *   1-10 and 1-16, h100-2026-12-06-f-multi.txt) and keep their vectors;
 * - CPU devices, float argmin and argmax and float and double mean_var,
 *   rows and segments alike; on Intel's CPU runtime and PoCL 3.1 (2^20 and
 *   2^21 elements, three turns, medians;
 *   bench/results/cpu-2026-12-06-scalar.txt) they took segments of 1-5 and
 *   1-10 and rows of 4 and 8 in 0.20-0.97x the time so, but for PoCL's
 *   float mean_var of segments of 1-10 at 2^20 (1.04x; the lesser times
 *   0.72x); minmax, norm2, dot and double argmax went either way by shape
 *   and runtime, and keep their vectors.
 * Other devices, types and operators are untimed. */
#define SCALAR_LENGTH_MAX 8

/* Whether items of `length` elements (rows), or of that mean (segments),
 * take a vector width of 1 for `op` of `type`, by the rules above. */
static int scalar_items(const device_info *info, clreduce_op op, clreduce_type type,
                        int segments, size_t length)
{
    int fd = is_float_type(type);
    if (segments ? length >= SCALAR_LENGTH_MAX : length > SCALAR_LENGTH_MAX)
        return 0;
    if (info->vendor == VENDOR_NVIDIA && op <= CLREDUCE_OP_MAX)
        return segments && clreduce_type_size(type) == 4;
    if (info->vendor == VENDOR_NVIDIA)
        return segments || (fd && (op_is_arg(op) || op_is_minmax_or_mean_var(op)));
    if (info->type & CL_DEVICE_TYPE_CPU)
        return (op_is_arg(op) && type == CLREDUCE_FLOAT) || (fd && op == CLREDUCE_OP_MEAN_VAR);
    return 0;
}

/* On NVIDIA GPUs float minmax over rows takes work-groups of 512. On an
 * H100 at 2^28 elements, minmax over rows of 32 floats took 764-791 µs in
 * the table's 256 (argmax 455, max 408-410) and 441-442 in 512; rows of
 * 512 to 65536 took 0.95-0.99x the time in 512, and 0.84-1.03x at 2^24
 * (bench/results/h100-2026-12-06-c.md); the work-groups per compute unit
 * (2-16) did not matter. Segments of floats took 1.16-1.29x the time in
 * 512 (they keep the table's), and argmax and mean_var were slower in 512
 * over rows and segments alike. Other types and operators are untimed. */
void tuning_for_row_operator(const device_info *info, const clreduce_settings *overrides,
                             clreduce_op op, clreduce_type type, size_t row_length, tuning *t)
{
    const size_t minmax_wg = 512;
    if (info->vendor == VENDOR_NVIDIA && op == CLREDUCE_OP_MINMAX && type == CLREDUCE_FLOAT &&
        !overrides->work_group_size && minmax_wg <= info->max_work_group_size)
        t->work_group_size = minmax_wg;
    if (!overrides->vector_width && scalar_items(info, op, type, 0, row_length))
        t->vector_width = 1;
}

/* On NVIDIA GPUs sums of 8-byte types alone over segments of a mean of
 * SUM_8_SCALAR_MIN to SUM_8_SCALAR_MAX elements read them an element at a
 * time too. On an H100 at 2^26 elements (bench/results/h100-2026-12-06-g.md,
 * the table's width against 1, two turns each) double and int64 sums took
 * segments of 1-300 in 0.88-0.90x the time so, of 256 in 0.93-0.95x and of
 * 1-1000 in 0.93-0.97x; of 1-100 1.02x, of 1000 0.99-1.02x, of 1-10^4
 * 0.99-1.02x and of 1-10^5 1.05-1.06x, hence the bounds (means between 50
 * and 150 and between 500 and 1000 untimed); with the rule, old and new
 * builds alternating, double, int64 and uint64 sums of segments of 1-300,
 * 256 and 1-1000 took 0.89-0.94x the time. Minima and maxima of those
 * segments took 0.99-1.14x so, and keep their vectors. */
#define SUM_8_SCALAR_MIN 128
#define SUM_8_SCALAR_MAX 512

void tuning_for_segment_operator(const device_info *info, const clreduce_settings *overrides,
                                 clreduce_op op, clreduce_type type, size_t mean, tuning *t)
{
    if (overrides->vector_width)
        return;
    if (scalar_items(info, op, type, 1, mean) ||
        (info->vendor == VENDOR_NVIDIA && op == CLREDUCE_OP_SUM &&
         clreduce_type_size(type) == 8 && mean >= SUM_8_SCALAR_MIN && mean <= SUM_8_SCALAR_MAX))
        t->vector_width = 1;
}

/* Several operators in one call of an 8-byte type over segments read them an
 * element at a time on NVIDIA GPUs where the settings fix no width: int64
 * and uint64 over segments of any mean length, doubles over segments of a
 * mean under SEVERAL_DOUBLE_SCALAR_MAX. On an H100 at 2^26 elements, sum,
 * min, max and argmax in one call, the teams' one walk by vloadN
 * (multi_walk.cl), two turns (bench/results/h100-2026-12-06-i.md): int64's
 * vectors of 2 took segments of 1-10 to 1-1000 in 1.21-1.35x the time of one
 * element at a time (arrays of 1000: 1.00x); doubles' vectors took segments
 * of 1-10 (mean 5.5) in 1.06x, of 1-20 (mean 10.5) in 0.92x, of 1-30 to
 * 1-1000 and arrays of 1000 in 0.75-0.85x; in a later call (-j.md) arrays
 * of 8 and segments of 1-15 (whose mean, 7.99, counts as 7) in 0.94x.
 * Several float operators keep their vectors (h100-2026-12-06-f.md: 1.38x
 * one at a time over 1-1000); other devices are untimed. */
#define SEVERAL_DOUBLE_SCALAR_MAX 7

void tuning_for_segment_operators(const device_info *info, const clreduce_settings *overrides,
                                  size_t count, clreduce_type type, size_t mean, tuning *t)
{
    if (info->vendor != VENDOR_NVIDIA || count < 2 || clreduce_type_size(type) != 8 ||
        overrides->vector_width)
        return;
    if (type != CLREDUCE_DOUBLE || mean < SEVERAL_DOUBLE_SCALAR_MAX)
        t->vector_width = 1;
}
