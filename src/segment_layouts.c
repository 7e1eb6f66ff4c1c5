/* The layouts of a segments call: its programs, the rules that choose
 * among its layouts (chunks read by runs, by teams, by the spans of
 * sub-groups, in wide or long chunks; a work-group or a work-item a
 * segment; one launch or two) from the device and the segments' mean
 * length, each with the measurements behind it, and the plan they make.
 * segments.c launches what the plan says. */

#include "families.h"

/* ---- programs ---------------------------------------------------------------------------- */

static const char *const segments_sources[] = {
    clreduce_cl_contract,         clreduce_cl_types,          clreduce_cl_subgroup,
    clreduce_cl_workgroup_reduce, clreduce_cl_team,           clreduce_cl_segment_warps,
    clreduce_cl_segment_runs,     clreduce_cl_segment_chunks, clreduce_cl_reduce_segments};
static const char *const segments_kernels[] = {"clr_segment_heads", "clr_reduce_segments"};
static const program_spec segments_program = {
    segments_sources, sizeof segments_sources / sizeof *segments_sources, segments_kernels, 2, 0};

/* Sum, min and max in a single launch (reduce_segments_single.cl), where
 * context_segment_passes() says so. */
static const char *const single_sources[] = {
    clreduce_cl_contract,         clreduce_cl_types,          clreduce_cl_subgroup,
    clreduce_cl_workgroup_reduce, clreduce_cl_team,           clreduce_cl_segment_warps,
    clreduce_cl_segment_runs,     clreduce_cl_segment_chunks, clreduce_cl_device_order,
    clreduce_cl_tile_state,       clreduce_cl_segment_carries,
    clreduce_cl_reduce_segments_single};
static const char *const single_kernels[] = {"clr_segment_starts", "clr_reduce_segments_single"};
static const program_spec single_program = {
    single_sources, sizeof single_sources / sizeof *single_sources, single_kernels, 2, 1};

/* Sum, min and max by a work-group a segment, in one launch
 * (reduce_segments_groups.cl), where takes_groups() says so. */
static const char *const groups_sources[] = {
    clreduce_cl_contract,         clreduce_cl_types,          clreduce_cl_subgroup,
    clreduce_cl_workgroup_reduce, clreduce_cl_team,           clreduce_cl_segment_chunks,
    clreduce_cl_device_order,     clreduce_cl_tile_state,     clreduce_cl_segment_carries,
    clreduce_cl_reduce_segments_groups};
static const char *const groups_kernels[] = {"clr_reduce_segment_groups"};
static const program_spec groups_program = {
    groups_sources, sizeof groups_sources / sizeof *groups_sources, groups_kernels, 1, 1};

/* Sum, min and max by a work-item a segment, in one launch, the same
 * source (reduce_segments_groups.cl), where takes_items() says so. */
static const char *const items_kernels[] = {"clr_reduce_segment_items"};
static const program_spec items_program = {
    groups_sources, sizeof groups_sources / sizeof *groups_sources, items_kernels, 1, 1};

/* Sum, min and max by a sub-group a segment, in one launch, the same
 * source (reduce_segments_groups.cl), where takes_lanes() says so. */
static const char *const lanes_kernels[] = {"clr_reduce_segment_lanes"};
static const program_spec lanes_program = {
    groups_sources, sizeof groups_sources / sizeof *groups_sources, lanes_kernels, 1, 1};

/* The operators of cl/operators.cl: their accumulators in place of the
 * sub-group and work-group layers. */
static const char *const operator_segments_sources[] = {
    clreduce_cl_contract, clreduce_cl_types,          clreduce_cl_operators,
    clreduce_cl_team_lane, clreduce_cl_team,         clreduce_cl_segment_chunks,
    clreduce_cl_reduce_segments};
const program_spec operator_segments_program = {
    operator_segments_sources, sizeof operator_segments_sources / sizeof *operator_segments_sources,
    segments_kernels, 2, 0};

/* ---- layouts of sum, min and max --------------------------------------------------------- */

/* Elements of a tile, one work-group's share (a chunk) in every layout but
 * the spans of sub-groups (WARPS_ROUNDS tiles, below): LANE_VECTORS vectors
 * per work-item, a run of segment_runs.cl (CLR_RUN) where the chunk is taken
 * by runs, two rounds of the teams' lane shares (CLR_LANE_ELEMENTS) for
 * segments of the chunk's mean length otherwise; LONG_LANE_VECTORS where
 * the mean segment spans LONG_CHUNKS such chunks or more, so that long
 * segments are read by fewer, longer work-groups. Runs of 8 vectors rather
 * than 4 took float sums of 2^26 elements on the H200 in 176-180 us rather
 * than 264 for segments of 1-1000, 165-170 rather than 248 for arrays of
 * 1000, 190-193 rather than 282-287 for segments of 1-200 (half the
 * work-groups, each with its fixed costs: bench/results/h200-2026-12-02-p.md). */
#define LANE_VECTORS 8
#define LONG_LANE_VECTORS 16
#define LONG_CHUNKS 4

/* The least mean segment length that takes the long chunks, in
 * work-groups of wg work-items loading vectors of vec elements. */
static size_t long_mean(size_t wg, size_t vec)
{
    return LONG_CHUNKS * wg * LANE_VECTORS * vec;
}

/* Short segments in a large input, where the tuning takes segments by runs
 * (NVIDIA GPUs): teams in chunks of WIDE_LANE_VECTORS vectors a work-item,
 * each lane taking that many to twice that of a segment of the chunk's
 * mean length, where the mean is WIDE_MEAN_MAX elements or less and the
 * input fills more than WIDE_CHUNKS_PER_UNIT such chunks a compute unit
 * (the single launch takes that many at most at such means). On the H200
 * (2^26 floats, sums; bench/results/h200-2026-12-02-n.md, -p.md) segments
 * of 1-10 took 245-250 us so, against 288 by runs of 8 vectors; segments
 * of 1-50 and 1-100 took 240-247 and 261-264 so, against 229 and 202 by
 * runs: with lengths that vary, a team's round waits for its longest
 * segment. At 10^7 elements (too few chunks) arrays of 100 were 5% slower
 * so. */
#define WIDE_LANE_VECTORS 32
#define WIDE_MEAN_MAX 16
#define WIDE_CHUNKS_PER_UNIT 8

/* Whether the plan takes the kernels of sum, min and max (in one launch
 * or two), not those of operators.cl. */
static int plain_program(const plan *p)
{
    return p->program == &segments_program || p->program == &single_program ||
           p->program == &groups_program || p->program == &items_program ||
           p->program == &lanes_program;
}

/* Whether the build options name a test switch of the chunks' layouts
 * (cl/segment_runs.cl, cl/segment_warps.cl, CLR_TEST_SEGMENT_CHUNKS): the
 * tests that give one need chunks of one tile. */
static int test_chunks(const clreduce_ctx *ctx)
{
    return context_test_switch(ctx, "CLR_TEST_SEGMENT_");
}

/* On CPU devices, segments of a mean of WIDE_CPU_MEAN_MIN elements or more,
 * short of the long chunks (LONG_CHUNKS), take the wide chunks too. On PoCL
 * 3.1 and Intel's CPU runtime (2^22 elements, sums and max of float, double
 * and int32; bench/results/cpu-2026-12-05-wide.txt) they took segments of
 * 1-1000 and arrays of 1000 in 0.19-0.74x the time of chunks of
 * LANE_VECTORS; segments of 1-10 in 0.72-1.31x, hence the least mean. In
 * one launch (a context's segment_passes 1) segments of 1-1000 and arrays
 * of 1000 took 0.18-0.70x the time so
 * (bench/results/cpu-2026-12-06-wide-single.txt); there unit.state's calls
 * behind a failed wait list check that the single kernel clamps what it
 * reads of the starts launch (cl/reduce_segments_single.cl). Not under the
 * tests' switches of the chunks (test_chunks()). */
#define WIDE_CPU_MEAN_MIN 64

static int takes_wide(const clreduce_ctx *ctx, const plan *p, const request *r)
{
    if (!plain_program(p) || !r->rows)
        return 0;
    size_t chunk = p->work_group_size * WIDE_LANE_VECTORS * p->t.vector_width;
    size_t mean = request_mean_length(r);
    if ((ctx->info.type & CL_DEVICE_TYPE_CPU) && !test_chunks(ctx))
        return mean >= WIDE_CPU_MEAN_MIN &&
               mean < long_mean(p->work_group_size, p->t.vector_width);
    return p->t.segment_runs && mean <= WIDE_MEAN_MAX &&
           r->count / chunk > (size_t)ctx->info.compute_units * WIDE_CHUNKS_PER_UNIT;
}

/* On GPUs (tuning's sum_teams), dot products over segments of a mean length
 * of DOT_MEAN_MIN elements or more take lanes of DOT_LANE_VECTORS vectors
 * rather than the operators' SEGMENT_ACCUMULATOR_LANE_VECTORS: their
 * accumulator is one sum, cheap to combine. On an H100 (2^26 elements;
 * bench/results/h100-2026-12-05-b.md) floats in segments of 1-1000, of 1000
 * and of 1-10^5 took 368, 226 and 208 us so against 406, 242 and 222,
 * doubles 670, 435 and 380 against 780, 447 and 387; segments of 1-10 took
 * 5% longer so (not taken there). Mean lengths between 6 and 500 were not
 * timed. PoCL and Intel's runtime took up to 1.8x as long so
 * (bench/results/cpu-2026-12-05-teams.txt): CPU runtimes keep 32. */
#define DOT_LANE_VECTORS 16
#define DOT_MEAN_MIN 64

static int dot_lanes(const plan *p, const request *r)
{
    return p->op == CLREDUCE_OP_DOT && p->t.sum_teams && r->rows &&
           request_mean_length(r) >= DOT_MEAN_MIN;
}

static size_t tile_elements(const clreduce_ctx *ctx, const plan *p, const request *r)
{
    if (op_keeps_accumulators(p->op))
        return p->work_group_size * p->t.vector_width *
               (dot_lanes(p, r) ? DOT_LANE_VECTORS : SEGMENT_ACCUMULATOR_LANE_VECTORS);
    size_t chunk = p->work_group_size * LANE_VECTORS * p->t.vector_width;
    if (takes_wide(ctx, p, r))
        return chunk / LANE_VECTORS * WIDE_LANE_VECTORS;
    if (request_mean_length(r) >= long_mean(p->work_group_size, p->t.vector_width))
        chunk = chunk / LANE_VECTORS * LONG_LANE_VECTORS;
    return chunk;
}

/* Sum, min and max of 8-byte elements on NVIDIA GPUs, where the settings
 * fix neither: work-groups of WG_8_BYTES work-items, each lane of a team
 * with LOADS_8_BYTES vectors in flight a step. On the H200 (double sums,
 * 2^26 elements; bench/results/h200-2026-12-03-b.md) segments of 1-1000
 * took 324 rather than 401 us so, arrays of 1000 282 rather than 354,
 * segments of 1-10 334 rather than 430; one segment of all 153 rather than
 * 145. */
#define WG_8_BYTES 128
#define LOADS_8_BYTES 2

static void tune_8_bytes(const clreduce_ctx *ctx, plan *p)
{
    if (p->program != &segments_program || p->element_size != 8 ||
        ctx->info.vendor != VENDOR_NVIDIA || !(ctx->info.type & CL_DEVICE_TYPE_GPU))
        return;
    if (!ctx->settings.work_group_size && p->work_group_size > WG_8_BYTES)
        p->work_group_size = WG_8_BYTES;
    if (!ctx->settings.loads_per_work_item)
        p->unroll = LOADS_8_BYTES;
}

/* The single launch, where the device allows it (context_segment_passes),
 * is the library's choice for inputs of SINGLE_CHUNKS_PER_UNIT chunks a
 * compute unit or fewer. On the H200 (sums; bench/results/h200-2026-12-03-a.md,
 * -b.md) it took floats as fast or faster up to 2^23 elements (1024 chunks
 * of 8192; at 2^22, 27-31 us rather than 35-36 for segments of 1-1000,
 * 28-31 rather than 36-40 for arrays of 1000), and doubles up to 2^21 (1024
 * chunks of 2048), where the driver's launch of some 13 us is much of a
 * call. From 10^7 floats on it was as fast or slower, by up to 20%: each
 * work-group then waits on its two searches of the offsets, which the
 * heads kernel takes apart at a cheaper occupancy. */
#define SINGLE_CHUNKS_PER_UNIT 8

/* For STARTS_CHUNKS_PER_UNIT chunks a compute unit or more, a launch of a
 * work-item's search a chunk (clr_segment_starts) precedes the single
 * launch, whose work-groups then search for nothing (CLR_SEGMENT_STARTS).
 * The library takes that pair, rather than the two kernels of
 * reduce_segments.cl (whose heads kernel reads the elements before each
 * chunk's first segment start a second time), for sums of 4-byte elements
 * and float min and max (takes_starts_by_default), where the mean segment
 * is STARTS_MEAN_MIN elements or more and
 * STARTS_MEAN_CHUNKS chunks or fewer. On the H200 (sums;
 * bench/results/h200-2026-12-03-h.md) it took float segments of 1-10^4 in
 * 114-121 us rather than 129-136 at 2^26 elements and in 404-408 rather
 * than 463-465 at 2^28; arrays of 1000 in 114-121 rather than 121-129 and
 * 389-402 rather than 460-462; arrays of 4000 in 114-123 rather than
 * 127-137; int32 segments of 1-10^4 in 114-122 rather than 129-135. It
 * was 2-9% slower for int32 segments of 1-100 (float: 6-12% faster), 7-12%
 * slower for one segment of all and 12-22% for doubles of 1-1000 elements,
 * and up to 16% slower at 2^24 (16 chunks a compute unit). Float min and
 * max take it too (bench/results/h200-2026-12-03-i.md, 2^26): segments of
 * 1-1000 in 161-162 us rather than 176, arrays of 1000 in 157-159 rather
 * than 167-168, segments of 1-10^4 in 152-153 rather than 173; int32 min
 * and max were 4% faster or 4% slower by shape, and keep two launches.
 * Where the single launch is asked for, it takes the pair for that many
 * chunks whatever the operator, type and lengths. */
#define STARTS_CHUNKS_PER_UNIT 32
#define STARTS_MEAN_MIN 128
#define STARTS_MEAN_CHUNKS 8

int segment_takes_starts(const clreduce_ctx *ctx, const plan *p, const request *r)
{
    size_t tiles = div_up(r->count, tile_elements(ctx, p, r));
    return tiles >= (size_t)ctx->info.compute_units * STARTS_CHUNKS_PER_UNIT;
}

/* The operators and types that take the starts and the single launch by
 * default (above). */
static int takes_starts_by_default(const plan *p)
{
    return p->element_size == 4 &&
           (p->op == CLREDUCE_OP_SUM ||
            (p->type == CLREDUCE_FLOAT && (p->op == CLREDUCE_OP_MIN || p->op == CLREDUCE_OP_MAX)));
}

static int takes_single(const clreduce_ctx *ctx, const plan *p, const request *r)
{
    size_t tile = tile_elements(ctx, p, r), tiles = div_up(r->count, tile);
    size_t mean = request_mean_length(r);
    unsigned passes = context_segment_passes(ctx);
    if (p->program != &segments_program || tiles > UINT32_MAX)
        return 0;
    if (passes == 1)
        return 1;
    return passes == 0 &&
           (tiles <= (size_t)ctx->info.compute_units * SINGLE_CHUNKS_PER_UNIT ||
            (takes_starts_by_default(p) && segment_takes_starts(ctx, p, r) &&
             mean >= STARTS_MEAN_MIN && mean <= STARTS_MEAN_CHUNKS * tile));
}

/* Elements of 8 bytes take runs where the mean segment is this long or
 * shorter. On the H200 (double sums, 2^26 and 10^7 elements;
 * bench/results/h200-2026-12-02-r.md) runs took segments of 1-100 in 420
 * rather than 649 us and 84 rather than 119, and of 1-10 in 508 rather than
 * 550 (in wide chunks, which takes_wide() gives them, in 429); arrays of 100
 * and of 1000 were 3-8% slower by runs, segments of 1-1000 2-5% faster. */
#define RUNS_MEAN_MAX_8_BYTES 64

/* Whether the plain kernels take a chunk's segments by runs
 * (CLR_SEGMENT_RUNS): where the tuning says so, for chunks of one tile of
 * runs (CLR_RUNS_TILE, the short chunks above), with the kernel's local
 * memory within the device's: the padded tile, its bounds, the scan of the
 * runs (its largest form, two values and flags a work-item; the sub-group
 * form needs less) and the rounds' own (the single launch's: a head and
 * two words more). */
static int takes_runs(const clreduce_ctx *ctx, const plan *p, const request *r)
{
    size_t wg = p->work_group_size, run = LANE_VECTORS * p->t.vector_width;
    size_t size = p->element_size;
    if (!p->t.segment_runs || !plain_program(p) ||
        tile_elements(ctx, p, r) != wg * run)
        return 0;
    if (size > 4 && (!r->rows || request_mean_length(r) > RUNS_MEAN_MAX_8_BYTES))
        return 0;
    size_t local = wg * (run + 1) * size + (wg * run / 4 + 1) * sizeof(cl_uint) +
                   2 * wg * (size + sizeof(cl_uint)) + (wg + 2) * size + 3 * sizeof(cl_uint);
    return local <= ctx->info.local_mem_size;
}

/* Segments whose mean is WARPS_MEAN_MIN elements or longer, and no longer
 * than a tile, take chunks by the spans of the work-group's sub-groups
 * (CLR_SEGMENT_WARPS, segment_warps.cl) rather than by runs or teams,
 * where the tuning takes segments by runs and the device has sub-groups:
 * sum, min and max of every type, min and max of 8-byte elements only from
 * WARPS_8_BYTES_EXTREMES_TILES tiles a compute unit. On the H200
 * (2^26 elements unless said, bench/results/h200-2026-12-03-g.md for one
 * tile a chunk, -k.md for the rounds below) float sums of segments of
 * 1-1000 took 136-138 us so rather than 165-172 by runs, arrays of 1000
 * 121-122 rather than 155-159. With chunks of rounds, against runs or
 * teams in the same run:
 * - float min and max of segments of 1-10^4: 104-105 us rather than 156-164;
 *   int32 min and max 87-89 rather than 149-156;
 * - double sums of segments of 1-1000: 203-205 rather than 328-331, arrays
 *   of 1000 198-199 rather than 289-293 (63-73 rather than 87-89 at 2^24);
 *   int64 sums and maxima of either: 155-196 rather than 296-351;
 * - double min and max of segments of 1-1000 and arrays of 1000: 8% less
 *   time at 2^26, 12-16% less at 2^28, but 4-15% more at 2^24 (62 tiles a
 *   compute unit; means of two runs), hence the threshold;
 * - segments of 1-10^4 and arrays of 4000, double and int64: within 3%.
 * With a mean of 50 floats, spans took 7-9% more than runs. */
#define WARPS_MEAN_MIN 128
#define WARPS_8_BYTES_EXTREMES_TILES 128

static int takes_warps(const clreduce_ctx *ctx, const plan *p, const request *r)
{
    size_t chunk = p->work_group_size * LANE_VECTORS * p->t.vector_width;
    size_t mean = request_mean_length(r);
    if (p->element_size == 8 && p->op != CLREDUCE_OP_SUM &&
        div_up(r->count, chunk) < (size_t)ctx->info.compute_units * WARPS_8_BYTES_EXTREMES_TILES)
        return 0;
    return p->t.segment_runs && plain_program(p) && p->path != CLREDUCE_SUBGROUP_PATH_NONE &&
           mean >= WARPS_MEAN_MIN && mean <= chunk &&
           tile_elements(ctx, p, r) == chunk;
}

/* The chunk of the spans of sub-groups is WARPS_ROUNDS of their tiles: each
 * sub-group walks its span in that many rounds of loads, so that a
 * work-group's fixed costs (its ticket, its starts, its offsets, the
 * hand-off of its carry) come once a WARPS_ROUNDS tiles. On the H200 (float
 * sums after the starts, bench/results/h200-2026-12-03-j.md) 8 rounds took
 * segments of 1-10^4 in 305-309 us rather than 399-402 at 2^28 elements and
 * in 101-104 rather than 118-124 at 2^26, arrays of 1000 in 322-326 rather
 * than 394-396 at 2^28, segments of 1-1000 in 343-350 rather than 445-452;
 * int32 likewise. A first form (a loop to the chunk's rounds, not
 * unrolled) took segments of 1-10^4 at 2^28 in 313-315 us with 8 rounds,
 * 338-344 with 4 and 423-430 with 2; loading a round's successor before
 * walking it gained nothing. */
#define WARPS_ROUNDS 8

/* Fewer rounds (halved in turn) where the input would make fewer than
 * WARPS_CHUNKS_PER_UNIT chunks a compute unit, so that short inputs keep
 * their work-groups busy. On the H200 (float sums,
 * bench/results/h200-2026-12-03-k.md) 4 rounds at 2^24 (2048 tiles) took
 * segments of 1-10^4 in 44-45 us rather than 50 with one tile a chunk,
 * segments of 1-1000 in 50-51 rather than 56-57; 2 rounds at 2^23 and one
 * at 2^22 took what one tile a chunk did. */
#define WARPS_CHUNKS_PER_UNIT 2

static size_t warps_rounds(const clreduce_ctx *ctx, size_t tiles)
{
    size_t rounds = WARPS_ROUNDS;
    while (rounds > 1 && tiles < rounds * ctx->info.compute_units * WARPS_CHUNKS_PER_UNIT)
        rounds /= 2;
    return rounds;
}

/* Elements of a chunk: the tile of the layout the plan takes, or a few of
 * them by the spans of sub-groups (warps_rounds). The choices between
 * layouts and launches are made on tiles. */
size_t segment_chunk_elements(const clreduce_ctx *ctx, const plan *p, const request *r)
{
    size_t tile = tile_elements(ctx, p, r);
    return takes_warps(ctx, p, r) ? tile * warps_rounds(ctx, div_up(r->count, tile)) : tile;
}

/* A work-group a segment (reduce_segments_groups.cl) where the launch may be
 * single (context_segment_passes) and the mean segment holds
 * GROUPS_MEAN_MIN_BYTES to GROUPS_MEAN_MAX_BYTES and is shorter than the
 * teams' long chunks (LONG_CHUNKS, above), a bound NVIDIA GPUs lift (see
 * below): each work-group reads its segment whole, and segments longer than a
 * piece are read by the pieces' work-groups. On the H200
 * (bench/results/h200-2026-12-04-a.md, sums unless said) it took float
 * segments of 1-10^4 elements in 75 us rather than 94 at 2^26 elements and in
 * 255 rather than 303 at 2^28, arrays of 4000 in 75 rather than 94 and 254
 * rather than 304, arrays of 2000 in 83 rather than 97; double arrays of 1000
 * in 152 rather than 192, double min and max of arrays of 4000 in 141-142
 * rather than 225-226. In the searches for the bounds, arrays of 1000 floats
 * (4 KB) took 7-18% longer so at 2^26 and 2^28, and double arrays of 500 3%
 * longer; 8 KB gained in both types, so the threshold lies between. Above 256
 * KB the long chunks stay: segments of 1-10^7 took 12-16% longer so. Between
 * the long chunks and 256 KB the layout was timed on NVIDIA GPUs only, and is
 * taken there only. On the H200 (h200-2026-12-04-b.md, against the long
 * chunks) it took float segments of 1-10^5 in 85 us rather than 93 at 2^26 and
 * 267 rather than 274 at 2^28, arrays of 65536 in 74 rather than 86 and 249
 * rather than 269, double arrays of 16000 and 32000 in 133-143 rather than
 * 145-156 at 2^26; int32 max of segments of 1-10^5 took 92 rather than 86. */
#define GROUPS_MEAN_MIN_BYTES 6144
#define GROUPS_MEAN_MAX_BYTES 262144

/* Work-groups of GROUPS_WG work-items where the settings fix none: on the
 * H200 work-groups of 256 took 2-24% longer than 128 (float sums, arrays
 * of 4000 to 16000, segments of 1-10^4, 2^24 to 2^28 elements). */
#define GROUPS_WG 128

/* A piece is the input cut into PIECES_PER_UNIT pieces a compute unit,
 * rounded up to a power of two, and no shorter than PIECE_MIN: on the H200
 * 2, 4 and 16 pieces a compute unit took one segment of half of 2^26
 * elements (among arrays of 4000) in 109, 84 and 80 us rather than 78, and
 * 2 and 4 one segment of 2^28 (the thresholds lifted) in 312 and 254
 * rather than 255. Every piece searches the offsets once, whatever the
 * segments. */
#define PIECES_PER_UNIT 8
#define PIECE_MIN 4096

/* Double min and max, the NaN and signed-zero keys of 8 bytes, whose teams
 * are slow for means of a few hundred elements (below): a work-item a
 * segment up to a mean of MINMAX_64_GROUPS_BYTES, a work-group a segment
 * from there. On NVIDIA GPUs a warp a segment (takes_lanes(), below) comes
 * before both from 1 KB to 6 KB. */
#define MINMAX_64_GROUPS_BYTES 3072

static int minmax_64(const plan *p)
{
    return p->type == CLREDUCE_DOUBLE && (p->op == CLREDUCE_OP_MIN || p->op == CLREDUCE_OP_MAX);
}

/* On PoCL too, since the segment groups' store is volatile
 * (reduce_segments_groups.cl says why): before, PoCL 3.1 ran the launch
 * without end for double arrays of 1000 elements in work-groups of 64. */
static int takes_groups(const clreduce_ctx *ctx, const plan *p, const request *r)
{
    if (p->program != &segments_program || !r->rows || context_segment_passes(ctx) == 2)
        return 0;
    size_t mean = request_mean_length(r), bytes = mean * p->element_size;
    int nvidia_gpu =
        ctx->info.vendor == VENDOR_NVIDIA && (ctx->info.type & CL_DEVICE_TYPE_GPU);
    size_t least = minmax_64(p) ? MINMAX_64_GROUPS_BYTES : GROUPS_MEAN_MIN_BYTES;
    return bytes >= least && bytes <= GROUPS_MEAN_MAX_BYTES &&
           (mean < long_mean(p->work_group_size, p->t.vector_width) || nvidia_gpu);
}

/* A work-item a segment (clr_reduce_segment_items) where the launch may be
 * single and the mean segment holds ITEMS_MEAN_MAX_BYTES or fewer: a
 * work-item reads a segment of ITEM_MAX elements or fewer whole,
 * ITEM_LOADS vector loads in flight, its work-group the longer ones up to a
 * piece, the pieces' work-groups those longer still. On the H200 (float
 * sums, against the chunks' teams: bench/results/h200-2026-12-04-c.md) it
 * took segments of 1-10 elements in 174 us rather than 249 at 2^26 and 657
 * rather than 940 at 2^28, segments of 1-100 in 107 rather than 192 and
 * 348 rather than 711, arrays of 32 to 128 in 100-107 rather than 150-173
 * at 2^26; arrays of 16 in 105 rather than 110; doubles and int32 likewise
 * (arrays of 16 int32: sum 109 rather than 107). Timed with each vector
 * added as a pairwise tree, not in order as now, which took the same time
 * (h200-2026-12-04-f.md). There, loading the elements on either side of
 * the vectors with the first ITEM_LOADS vectors rather than after them,
 * and 4 vectors in flight rather than 2, took segments of 1-10 floats in
 * 146 us rather than 170, of 1-30 in 101 rather than 129-132, arrays of 16
 * in 90 rather than 106-110; arrays of 32 and 64 the same, of 128 110-120
 * rather than 107-111; doubles and int32 from 1% slower to 15% faster. With 8
 * vectors in flight, floats took up to 10% longer than with 4 and doubles
 * up to 7% less (one run); timed again over more shapes (h200-2026-12-04-h.md),
 * 8 took doubles and int64 from 7% less time to 5% more. */
#define ITEMS_MEAN_MAX_BYTES 512
/* Not where the build options name a test switch of the chunks
 * (test_chunks()), which the tests give to reach the chunks' short
 * segments. */
#define ITEM_MAX 256
#define ITEM_LOADS 4
/* Double min and max (minmax_64()), whose teams were slow there, up to a
 * mean of MINMAX_64_GROUPS_BYTES, ITEM_MAX_WIDE elements a work-item: on
 * the H200 (2^26 elements, h200-2026-12-04-d.md) the max of arrays of 128
 * and 250 took 240 and 251 us rather than 406 and 404, of segments of
 * 1-500 271 rather than 432; their sums took 11-26% longer so, and float
 * sums of means of 250 to 1000 elements from 3% less to 13% more, so those
 * keep the teams. A work-group a segment (h200-2026-12-04-e.md) took
 * their min and max of arrays of 500 and 700 and segments of 1-1000 in
 * 236-277 us rather than 337-356, but arrays of 300 (2400 bytes) in
 * 395-398 rather than 379-382: the bound between the two, 3 KB, lies
 * where neither was timed. */
#define ITEM_MAX_WIDE 1024

static int takes_items(const clreduce_ctx *ctx, const plan *p, const request *r)
{
    if (p->program != &segments_program || !r->rows || r->rows > UINT32_MAX ||
        context_segment_passes(ctx) == 2 || ctx->info.vendor == VENDOR_POCL || test_chunks(ctx))
        return 0;
    size_t most = minmax_64(p) ? MINMAX_64_GROUPS_BYTES : ITEMS_MEAN_MAX_BYTES;
    return request_mean_length(r) * p->element_size <= most;
}

/* A team of lanes a segment (clr_reduce_segment_lanes; lanes_team() below)
 * where the launch may be single, on NVIDIA GPUs (inline PTX shuffles, the
 * tuning taking segments by runs), for a mean segment of
 * LANES_MEAN_MIN_BYTES (LANES_MEAN_MIN_BYTES_8 for 8-byte elements) up to
 * GROUPS_MEAN_MIN_BYTES (a work-group a segment from there), in
 * work-groups of LANES_WG work-items where the settings fix none: teams
 * read whole segments of LANES_MAX_VECTORS vectors a lane or fewer, their
 * work-group the longer ones up to a piece, the pieces' work-groups those
 * longer still. On an H100 (2^26 elements, sums and maxima, against the
 * layouts the library took before, the lesser of two turns;
 * bench/results/h100-2026-12-07-c.md):
 * - a whole warp a segment, in work-groups of 64, took float arrays of 300
 *   in 0.89x and 0.71x the time, segments of 1-1000 in 0.83x and 0.69x,
 *   arrays of 1000 in 0.81x and 0.74x; doubles 0.87x and 0.66x, 0.88x and
 *   0.67x, arrays of 128 (1024 bytes) 0.98x and 0.87x, segments of 1-300
 *   (1200 bytes) 0.99x and 0.97x; double arrays of 1000 (8000 bytes, left
 *   to a work-group a segment) 0.99x and 0.96x. Segments of 1-10^4 and
 *   arrays of 4000 lost (1.02-1.13x), and so did shorter means, where a
 *   warp keeps too few loads in flight: float arrays of 128 1.42x and
 *   1.58x;
 * - teams of fewer lanes for short means (LANES_TEAM_VECTORS) took float
 *   arrays of 128 in 0.78x and 0.74x the time, segments of 1-300 in 0.97x
 *   and 0.69x, of 1-500 in 0.90x and 0.68x, but segments of 1-100 (a mean
 *   of 200 bytes) in 1.36x and 1.26x and double segments of 1-100 (400
 *   bytes) in 1.12x and 1.28x; doubles of 512 to 1023 bytes and integers
 *   were not timed.
 * Under the tests' switch TEST_SEGMENT_LANES, on any device and at any mean
 * (a work-item is a sub-group of one where the device has none). */
#define LANES_MEAN_MIN_BYTES 512
#define LANES_MEAN_MIN_BYTES_8 1024
#define LANES_WG 64
#define LANES_MAX_VECTORS 16
#define TEST_SEGMENT_LANES "CLR_TEST_SEGMENT_LANES"

static int takes_lanes(const clreduce_ctx *ctx, const plan *p, const request *r)
{
    if (p->program != &segments_program || !r->rows || r->rows > UINT32_MAX ||
        context_segment_passes(ctx) == 2)
        return 0;
    if (context_test_switch(ctx, TEST_SEGMENT_LANES))
        return 1;
    size_t bytes = request_mean_length(r) * p->element_size;
    return !test_chunks(ctx) && p->t.segment_runs && p->path == CLREDUCE_SUBGROUP_PATH_NV_PTX &&
           ctx->info.vendor == VENDOR_NVIDIA && (ctx->info.type & CL_DEVICE_TYPE_GPU) &&
           bytes >= (p->element_size == 8 ? LANES_MEAN_MIN_BYTES_8 : LANES_MEAN_MIN_BYTES) &&
           bytes < GROUPS_MEAN_MIN_BYTES;
}

/* On NVIDIA GPUs a segment takes a team of lanes of one warp, sized so
 * that each lane reads LANES_TEAM_VECTORS vectors of a mean segment, in a
 * power of two (a warp's vectors in flight for several segments at once
 * where one would leave most lanes idle); a whole warp (0) where that is a
 * warp or more. The benchmark may try other counts by the build option
 * -DCLR_TEST_LANES_VECTORS=N (1 to 64). */
#define LANES_TEAM_VECTORS 4
#define TEST_LANES_VECTORS "CLR_TEST_LANES_VECTORS"

static size_t lanes_team(const clreduce_ctx *ctx, const plan *p, const request *r)
{
    size_t warp = ctx->info.nv_warp_size, team = 1;
    if (p->path != CLREDUCE_SUBGROUP_PATH_NV_PTX || !warp)
        return 0;
    size_t vectors = context_test_value(ctx, TEST_LANES_VECTORS);
    if (vectors < 1 || vectors > 64)
        vectors = LANES_TEAM_VECTORS;
    size_t want = div_up(request_mean_length(r), p->t.vector_width * vectors);
    while (team < want && team < warp)
        team *= 2;
    return team < warp ? team : 0;
}

/* The lanes of a segment: its team's, or the host's guess of a
 * sub-group's size, which sets how many segments a work-group takes; its
 * sub-groups take them in turn, whatever their size. */
static size_t lanes_of(const clreduce_ctx *ctx, const plan *p, const request *r)
{
    size_t team = lanes_team(ctx, p, r);
    if (team)
        return team;
    return p->path == CLREDUCE_SUBGROUP_PATH_NONE ? 1
           : ctx->info.nv_warp_size              ? ctx->info.nv_warp_size
                                                 : 16;
}

size_t segment_lanes_per_group(const clreduce_ctx *ctx, const plan *p, const request *r)
{
    size_t lanes = lanes_of(ctx, p, r);
    return p->work_group_size > lanes ? p->work_group_size / lanes : 1;
}

size_t segment_piece_elements(const clreduce_ctx *ctx, const request *r)
{
    size_t want = div_up(r->count, (size_t)ctx->info.compute_units * PIECES_PER_UNIT);
    size_t piece = PIECE_MIN;
    while (piece < want)
        piece *= 2;
    return piece;
}

/* ---- maps, sub-groups and walks ---------------------------------------------------------- */

/* On GPUs (tuning's sum_teams), sums of squares and of absolute values of
 * floats and doubles over segments of a mean short of the long chunks
 * (LONG_CHUNKS) run as sums of the map (CLR_MAP, types.cl), in the kernels
 * and layouts of sums: their accumulator is one value of the type, as a
 * sum's is, and the operators' teams read shorter segments of varying
 * lengths more slowly than the sums' layouts do. On an H100 at 2^28
 * elements (bench/results/h100-2026-12-05-c.md), in one run, a sum of
 * squares in the teams took 1.48-1.84x the time of a plain sum over
 * segments of 1-10 and of 1-1000 floats (doubles 1.50-1.79x), 1.20x over
 * arrays of 1000 (1.15x), but 0.97-1.01x over segments of 1-10^5 and of
 * 1-10^7 and one segment (doubles 0.94-0.97x): hence the bound on the
 * mean. With the map, on that H100 (bench/results/h100-2026-12-05-d.md):
 * 0.54-0.67x the teams' time over segments of 1-10, floats and doubles,
 * 0.60-0.98x over segments of 1-1000 and arrays of 1000 at 2^24, and for
 * doubles and float segments of 1-1000 at 2^28; float arrays of 1000 at
 * 2^28 took 1.45x (squares) and 1.11x (absolute values) the teams' time
 * there, until the spans of sub-groups mapped floats at the additions
 * (cl/segment_warps.cl): 0.88-1.04x a plain sum since
 * (bench/results/h200-2026-12-06.md). On PoCL and Intel's CPU runtime
 * (2^22 elements, bench/results/cpu-2026-12-05-maps.txt) the sums' kernels
 * took segments of 1-1000 and arrays of 1000 in up to 5.3x the time of the
 * operators' teams: CPU devices keep the teams, but under the tests'
 * switch TEST_SUM_MAPS. */
#define TEST_SUM_MAPS "CLR_TEST_SUM_MAPS"

static int sums_a_map(const clreduce_ctx *ctx, const plan *p, const request *r)
{
    /* Before the plan has its work-group size: the tuning's. */
    size_t least_long = long_mean(p->t.work_group_size, p->t.vector_width);
    return !r->custom && (r->op == CLREDUCE_OP_SUM_SQUARES || r->op == CLREDUCE_OP_SUM_ABS) &&
           is_float_type(r->type) && r->rows &&
           request_mean_length(r) < least_long &&
           (p->t.sum_teams || context_test_switch(ctx, TEST_SUM_MAPS));
}

/* On CPU devices min and max of segments of a mean of SUBGROUPS_CPU_MEAN_MIN
 * elements or more take no sub-groups: on Intel's CPU runtime (2^22
 * elements of float, double and int32; three turns, medians;
 * bench/results/cpu-2026-12-06-segments-subgroups.txt) they took segments
 * of 1-1000 to 1-10^5 and arrays of 1000 in 0.27-0.97x the time without.
 * Not under the tests' switches of the chunks (test_chunks()). */
#define SUBGROUPS_CPU_MEAN_MIN 64

static int takes_subgroups(const clreduce_ctx *ctx, const plan *p, const request *r)
{
    return !(ctx->info.type & CL_DEVICE_TYPE_CPU) || p->op == CLREDUCE_OP_SUM ||
           !r->rows || request_mean_length(r) < SUBGROUPS_CPU_MEAN_MIN || test_chunks(ctx);
}

/* How the teams of operators.cl's kernels walk segments on NVIDIA GPUs,
 * where their ranges start anywhere in a chunk, rather than by two walks
 * (aligned loads where a range starts on a vector boundary, vloadN
 * elsewhere). On an H100, 2^26 elements, builds alternating, two turns
 * (bench/results/h100-2026-12-06-i.md, -j.md):
 *
 * - takes_any_alignment(), the vloadN walk alone: argmin and argmax of any
 *   type, mean_var and dot of floats and doubles, over segments of a mean
 *   shorter than a chunk (tile_elements()). Segments of 1-1000 took
 *   0.68-0.81x the time so (int32 and int64 argmin 0.79x and 0.77x), arrays
 *   of 1000 (every start aligned) 0.96-1.09x; segments of 1-10^5 lost 5-6%
 *   for float argmin and argmax and keep both walks. Intel's CPU runtime
 *   takes this walk for dot and mean_var of floats and doubles too
 *   (intel_cpu()).
 * - takes_peeled_walk(), the head of a range element by element and then
 *   aligned loads alone (team.cl's CLR_TEAM_PEEL): minmax of every type but
 *   double, at every mean. Float, int32 and int64 minmax took segments of
 *   1-1000 in 0.75-0.77x the time so, arrays of 999 in 0.76-0.82x, arrays of
 *   1000 in 0.95-1.07x, segments of 1-10^5 in 0.93-1.01x and one segment
 *   (float, int32) in 1.00x; by the vloadN walk alone in 0.81-0.96x,
 *   0.88-0.95x and 0.97-1.21x (the first three). argmin and argmax do better
 *   by the vloadN walk (int32 argmin over 1-1000: 0.79x against 0.81x
 *   peeled, arrays of 1000 0.98x against 1.05x); doubles lost peeled
 *   wherever the teams walk (minmax 1.04-1.43x, argmin and argmax 1.03-1.48x
 *   the time). Where the head ends depends on the range's address: only
 *   operators whose results do not depend on the order of combination may
 *   take it. */
#define TEST_TEAM_WALKS "CLR_TEST_TEAM_WALKS" /* the tests' switch: these rules on any device */

/* Whether a built-in operator's teams read vectors over segments, the
 * walks above being a choice there. */
static int teams_may_walk(const plan *p, const request *r)
{
    return !r->custom && r->rows && p->t.vector_width > 1;
}

/* Whether the device takes the rules above (an NVIDIA GPU, or the tests'
 * switch). */
static int walk_rules_apply(const clreduce_ctx *ctx)
{
    return ctx->info.vendor == VENDOR_NVIDIA || context_test_switch(ctx, TEST_TEAM_WALKS);
}

static int operators_walk_segments(const clreduce_ctx *ctx, const plan *p, const request *r)
{
    return walk_rules_apply(ctx) && teams_may_walk(p, r);
}

/* Intel's CPU runtime takes the vloadN walk alone for dot and mean_var of
 * floats and doubles (takes_any_alignment()), and keeps both walks for the
 * rest. On this machine's 2 cores (2^22 elements, bench/results/
 * cpu-2026-12-06-walks-intel.txt, the least of three turns, both forms in
 * one build by the tests' switch) dot took segments of 1-10, 1-1000 and
 * arrays of 1000 in 0.16-0.58x the time so, mean_var segments of 1-1000
 * and arrays of 1000 in 0.45-0.58x and segments of 1-10 in 0.99-1.01x;
 * argmin moved by 0.89-1.01x. PoCL 3.1 took float mean_var in 1.08-1.22x
 * the time so, and keeps both walks. */
static int intel_cpu(const clreduce_ctx *ctx)
{
    return ctx->info.vendor == VENDOR_INTEL && (ctx->info.type & CL_DEVICE_TYPE_CPU);
}

static int takes_any_alignment(const clreduce_ctx *ctx, const plan *p, const request *r)
{
    if (!teams_may_walk(p, r) || request_mean_length(r) >= tile_elements(ctx, p, r))
        return 0;
    int fused = (p->op == CLREDUCE_OP_MEAN_VAR || p->op == CLREDUCE_OP_DOT) &&
                is_float_type(p->type);
    if (!walk_rules_apply(ctx))
        return fused && intel_cpu(ctx);
    return p->op == CLREDUCE_OP_ARGMIN || p->op == CLREDUCE_OP_ARGMAX || fused;
}

/* The tests' switch that gives argmin and argmax (and doubles) the peeled
 * walk too, so that its element indices are tested. */
#define TEST_TEAM_PEEL "CLR_TEST_TEAM_PEEL"

static int takes_peeled_walk(const clreduce_ctx *ctx, const plan *p, const request *r)
{
    if (!operators_walk_segments(ctx, p, r))
        return 0;
    if (context_test_switch(ctx, TEST_TEAM_PEEL))
        return p->op == CLREDUCE_OP_ARGMIN || p->op == CLREDUCE_OP_ARGMAX ||
               p->op == CLREDUCE_OP_MINMAX;
    return p->op == CLREDUCE_OP_MINMAX && p->type != CLREDUCE_DOUBLE;
}

/* ---- plan -------------------------------------------------------------------------------- */

/* The plan of segments of one input, or of two (dot_segments_family). */
clreduce_status segment_layouts_plan(clreduce_ctx *ctx, const request *r, plan *p)
{
    clreduce_status status = plan_start(ctx, r, p);
    if (status != CLREDUCE_SUCCESS)
        return status;
    p->variant = 0;
    p->family_defines.count = 0;
    if ((status = segments_plan_offsets(ctx, r, p)) != CLREDUCE_SUCCESS)
        return status;
    if (takes_fixed_order(ctx, r))
        return fixed_batches_plan(ctx, r, p, 1, "a reproducible context");
    request sum = *r;
    if (sums_a_map(ctx, p, r)) {
        sum.op = p->op = CLREDUCE_OP_SUM;
        identity_value(p->op, p->type, p->empty_output);
        defines_add(&p->family_defines, "CLR_MAP", (int)r->op);
    }
    status = plan_teams(ctx, &sum, p, "segments: ", &segments_program, &operator_segments_program);
    if (status == CLREDUCE_SUCCESS && !takes_subgroups(ctx, p, r))
        p->path = CLREDUCE_SUBGROUP_PATH_NONE;
    if (status == CLREDUCE_SUCCESS)
        tune_8_bytes(ctx, p);
    /* Short segments' sums, minima and maxima (not of a map) may read an
     * element at a time (tuning.c), before the chunks below are sized. */
    if (status == CLREDUCE_SUCCESS && !r->custom && r->op <= CLREDUCE_OP_MAX && r->rows)
        tuning_for_segment_operator(&ctx->info, &ctx->settings, r->op, p->type,
                                    request_mean_length(r), &p->t);
    if (status == CLREDUCE_SUCCESS && op_keeps_accumulators(p->op)) {
        if (!r->custom && r->rows)
            tuning_for_segment_operator(&ctx->info, &ctx->settings, p->op, p->type,
                                        request_mean_length(r), &p->t);
        if (takes_peeled_walk(ctx, p, r))
            defines_add(&p->family_defines, "CLR_TEAM_PEEL", 1);
        else if (takes_any_alignment(ctx, p, r))
            defines_add(&p->family_defines, "CLR_TEAM_ANY_ALIGNMENT", 1);
        defines_add_text(&p->family_defines, "CLR_LANE_ELEMENTS",
                         dot_lanes(p, r) ? LANE_ELEMENTS_DEFINE(DOT_LANE_VECTORS)
                                         : LANE_ELEMENTS_DEFINE(SEGMENT_ACCUMULATOR_LANE_VECTORS));
        return status;
    }
    if (status == CLREDUCE_SUCCESS && takes_lanes(ctx, p, r)) {
        p->program = &lanes_program;
        if (!ctx->settings.work_group_size && p->work_group_size > LANES_WG)
            p->work_group_size = LANES_WG;
        defines_add(&p->family_defines, "CLR_LANES_PER_GROUP",
                    (int)segment_lanes_per_group(ctx, p, r));
        defines_add(&p->family_defines, "CLR_LANES_MAX",
                    (int)(lanes_of(ctx, p, r) * LANES_MAX_VECTORS * p->t.vector_width));
        defines_add(&p->family_defines, "CLR_LANES_TEAM", (int)lanes_team(ctx, p, r));
        return status;
    }
    if (status == CLREDUCE_SUCCESS && takes_items(ctx, p, r)) {
        p->program = &items_program;
        defines_add(&p->family_defines, "CLR_ITEM_MAX",
                    minmax_64(p) ? ITEM_MAX_WIDE : ITEM_MAX);
        defines_add(&p->family_defines, "CLR_ITEM_LOADS", ITEM_LOADS);
        if (!ctx->settings.work_group_size && p->work_group_size > GROUPS_WG)
            p->work_group_size = GROUPS_WG;
        return status;
    }
    if (status == CLREDUCE_SUCCESS && takes_groups(ctx, p, r)) {
        p->program = &groups_program;
        if (!ctx->settings.work_group_size && p->work_group_size > GROUPS_WG)
            p->work_group_size = GROUPS_WG;
        return status;
    }
    if (status == CLREDUCE_SUCCESS && takes_single(ctx, p, r)) {
        p->program = &single_program;
        if (segment_takes_starts(ctx, p, r))
            defines_add(&p->family_defines, "CLR_SEGMENT_STARTS", 1);
    }
    if (status == CLREDUCE_SUCCESS && takes_wide(ctx, p, r))
        defines_add_text(&p->family_defines, "CLR_LANE_ELEMENTS",
                         LANE_ELEMENTS_DEFINE(WIDE_LANE_VECTORS));
    else if (status == CLREDUCE_SUCCESS && takes_warps(ctx, p, r)) {
        defines_add(&p->family_defines, "CLR_SEGMENT_WARPS", 1);
        /* The kernel's rounds for this chunk alone: one round compiles as
         * the walk of one tile did. */
        defines_add(&p->family_defines, "CLR_WARPS_ROUNDS_MAX",
                    warps_rounds(ctx, div_up(r->count, tile_elements(ctx, p, r))));
    }
    else if (status == CLREDUCE_SUCCESS && takes_runs(ctx, p, r))
        defines_add(&p->family_defines, "CLR_SEGMENT_RUNS", 1);
    return status;
}

/* ---- what the launches read -------------------------------------------------------------- */

segment_launch segment_launch_of(const plan *p)
{
    if (p->program == &groups_program)
        return SEGMENT_LAUNCH_GROUPS;
    if (p->program == &items_program)
        return SEGMENT_LAUNCH_ITEMS;
    if (p->program == &lanes_program)
        return SEGMENT_LAUNCH_LANES;
    if (p->program == &single_program)
        return SEGMENT_LAUNCH_SINGLE;
    return SEGMENT_LAUNCH_CHUNKS;
}
