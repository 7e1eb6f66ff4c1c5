/* Reductions of the rows of a pitched matrix, as an operation family of the
 * request pipeline (request.c): the plan, the choice of teams per row from
 * the shape, and the launches. */

#include "families.h"

/* ---- program ------------------------------------------------------------------ */

static const char *const rows_sources[] = {clreduce_cl_contract, clreduce_cl_types,
                                           clreduce_cl_subgroup, clreduce_cl_workgroup_reduce,
                                           clreduce_cl_team, clreduce_cl_reduce_rows};
static const char *const rows_kernels[] = {"clr_reduce_rows"};
static const program_spec rows_program = {rows_sources, sizeof rows_sources / sizeof *rows_sources,
                                          rows_kernels, 1, 0};

/* The operators of cl/operators.cl: their accumulators in place of the
 * sub-group and work-group layers, and a kernel that combines the
 * accumulators of the parts of long rows. */
static const char *const operator_rows_sources[] = {clreduce_cl_contract, clreduce_cl_types,
                                                    clreduce_cl_operators, clreduce_cl_team_lane,
                                                    clreduce_cl_team,
                                                    clreduce_cl_reduce_rows};
static const char *const operator_rows_kernels[] = {"clr_reduce_rows", "clr_reduce_rows_finish"};
enum { K_ROWS = 0, K_FINISH = 1 };
const program_spec operator_rows_program = {
    operator_rows_sources, sizeof operator_rows_sources / sizeof *operator_rows_sources,
    operator_rows_kernels, 2, 0};

/* ---- shape ---------------------------------------------------------------------- */

/* Vectors a lane takes from a row before its team doubles: 4 loads in
 * flight, as the flat reduction's tuning has on every device. */
#define LANE_VECTORS 4
/* Rows of team sizes from SUBGROUP_MIN_TEAM work-items up to
 * SUBGROUP_MAX_ROW elements run one sub-group per row, where the device has
 * sub-groups; shorter ones by teams in local memory, longer ones by a
 * work-group. */
#define SUBGROUP_MIN_TEAM 16
#define SUBGROUP_MAX_ROW 2048

clreduce_status rows_check_pitch(clreduce_ctx *ctx, size_t rows, size_t length, size_t pitch,
                                 const char *pitch_name, const char *unit)
{
    size_t p = pitch ? pitch : length;
    if (p < length)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "%s %zu is smaller than row_length %zu", pitch_name, pitch, length);
    int overflow;
    rows_span(rows, length, p, &overflow);
    if (overflow)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "%zu rows of %s %zu span more %s than a size_t counts", rows,
                         pitch_name, p, unit);
    return CLREDUCE_SUCCESS;
}

/* How one launch of clr_reduce_rows covers its items. */
typedef struct rows_launch {
    size_t items, length, pitch, parts, chunk;
    cl_uint team;      /* work-items per item, or CLR_TEAM_SUBGROUP */
    cl_uint per_group; /* items per work-group */
} rows_launch;

/* That team, or a sub-group instead in the middle of the range. */
void rows_team(const clreduce_ctx *ctx, const plan *p, size_t length, cl_uint *team_out,
               cl_uint *per_group)
{
    size_t wg = p->work_group_size, team = rows_local_team(p, length, LANE_VECTORS);
    if (p->path != CLREDUCE_SUBGROUP_PATH_NONE && team >= SUBGROUP_MIN_TEAM && team < wg &&
        length <= SUBGROUP_MAX_ROW) {
        /* Sub-groups take the work-group's rows in turn, whatever their
         * size; this guess of it only sets how many rows that is. */
        size_t guess = ctx->info.nv_warp_size ? ctx->info.nv_warp_size : 16;
        *team_out = CLR_TEAM_SUBGROUP;
        *per_group = (cl_uint)(wg > guess ? wg / guess : 1);
    } else {
        *team_out = (cl_uint)team;
        *per_group = (cl_uint)(wg / team);
    }
}

/* The team of a row of `length` elements for operators that combine
 * accumulators (those past max, several in one pass, a user's): lanes of
 * ROWS_LANE_VECTORS vectors at most, so that few lanes share a row, since
 * every operator pays for each step of its combination over the team;
 * then doubled while one step of the team reads less than a cache line of
 * ROWS_LINE_BYTES and its lanes keep ROWS_LANE_MIN vectors or more. On the H200 (2^28 floats,
 * sum, min, max and argmax; bench/results/h200-2026-12-02-l.md and -m.md)
 * lanes of 4 vectors took 638, 690, 831 and 390 us for rows of 32, 512,
 * 4096 and 65536; this rule 593, 417, 340 and 353 (lanes of up to 32
 * vectors: 593, 417, 364-375 and 383-385). A lane's chain of additions is
 * that long: batched.h's bound for the operators' rows counts it. */
#define ROWS_LANE_VECTORS 64
#define ROWS_LANE_MIN 16
#define ROWS_LINE_BYTES 128

/* On GPUs (tuning's sum_teams), sums of squares, of absolute values and dot
 * products, whose accumulator is a single sum, take the team that gives
 * each lane SUM_LANE_LOADS vector loads at most (a dot product's two a
 * vector), up to SUM_TEAM_MAX work-items, where that is more than the rule
 * above gives: a row read by one work-item or two leaves each load of a
 * warp on its own cache line. On an H100 (2^26 elements,
 * bench/results/h100-2026-12-05-b.md) dot products over rows of 16, 32 and
 * 64 floats took 207, 213 and 199 us so against 224, 320 and 380 by the
 * rule above, over rows of 16 and 32 doubles 414 and 386 against 1348 and
 * 1465; sums of squares over rows of 64 floats 107 against 150, of 32
 * doubles 205 against 277. CPU runtimes keep the rule above: PoCL and
 * Intel's took up to 5.5x as long so over rows of 16 to 512 elements
 * (bench/results/cpu-2026-12-05-teams.txt). */
#define SUM_LANE_LOADS 4
#define SUM_TEAM_MAX 32

static size_t sum_inputs(clreduce_op op)
{
    switch (op) {
    case CLREDUCE_OP_SUM_SQUARES:
    case CLREDUCE_OP_SUM_ABS: return 1;
    case CLREDUCE_OP_DOT: return 2;
    default: return 0;
    }
}

size_t rows_accumulator_team(const plan *p, size_t length)
{
    size_t vec = p->t.vector_width, team = rows_local_team(p, length, ROWS_LANE_VECTORS);
    while (team < p->work_group_size && team * vec * p->element_size < ROWS_LINE_BYTES &&
           length >= 2 * team * ROWS_LANE_MIN * vec)
        team *= 2;
    size_t inputs = sum_inputs(p->op);
    if (inputs && p->t.sum_teams) {
        size_t sum = rows_local_team(p, length, SUM_LANE_LOADS / inputs);
        sum = sum < SUM_TEAM_MAX ? sum : SUM_TEAM_MAX;
        team = team > sum ? team : sum;
    }
    return team;
}

/* Parts per row: several work-groups per row when the rows are too few to
 * fill the device with one work-group each (fewer than twice its compute
 * units times its work-groups per compute unit), long enough that each
 * part still gives every lane of a work-group LANE_VECTORS vectors, and of
 * PARTS_MIN_ROW_BYTES or more: parts cost a second launch, some 10 us of a
 * call on NVIDIA's driver (H200: 256 rows of 64 Ki floats took 41 us in two
 * launches, CUB's segmented reduction 23 us). The limit
 * is an estimate of where a work-group per row stops being the cheaper,
 * not a measured crossing. */
#define PARTS_MIN_ROW_BYTES ((size_t)1 << 20)

size_t rows_parts(const clreduce_ctx *ctx, const plan *p, size_t rows, size_t length)
{
    size_t fill = 2 * (size_t)ctx->info.compute_units * p->t.groups_per_compute_unit;
    size_t part_min = p->work_group_size * LANE_VECTORS * p->t.vector_width;
    if (rows >= fill || length < 2 * part_min || length < PARTS_MIN_ROW_BYTES / p->element_size)
        return 1;
    size_t parts = div_up(fill, rows);
    if (parts > length / part_min)
        parts = length / part_min;
    return parts;
}

/* Rows of sum, min and max of 4-byte elements on NVIDIA GPUs (inline PTX
 * shuffles) of ROWS_LANES_VECTORS vectors, their team's lanes, or of a
 * little more than half that: a team of lanes of one warp a row, a vector
 * a lane, ROWS_REPS rows a team, their loads all in flight and each row
 * reduced by shuffles (cl/reduce_rows.cl's clr_rows_by_lanes), rather than
 * LANE_VECTORS vectors a lane reduced in local memory. On an H100 (2^26
 * elements, the lesser of two turns; bench/results/h100-2026-12-07-c.md)
 * rows of 32 floats took 0.94x the time so for sums and maxima, of 32
 * int32 0.93x; rows of 16, 64 and 128 floats 0.98-1.14x, rows of 16 to 64
 * doubles 0.92-1.02x for sums and 1.23-1.43x for maxima, so those keep
 * their teams. Minima and uint32 were not timed. Under the tests' switch
 * TEST_ROWS_LANES, for any type and any row of up to a warp's vectors. */
#define ROWS_REPS 4
#define ROWS_LANES_VECTORS 8
#define TEST_ROWS_LANES "CLR_TEST_ROWS_LANES"

static int rows_by_lanes(const clreduce_ctx *ctx, const plan *p, const request *r)
{
    size_t warp = ctx->info.nv_warp_size, vec = p->t.vector_width, length = r->row_length;
    if (p->path != CLREDUCE_SUBGROUP_PATH_NV_PTX || op_keeps_accumulators(p->op) || !warp ||
        p->work_group_size < warp || length > warp * vec)
        return 0;
    if (context_test_switch(ctx, TEST_ROWS_LANES))
        return 1;
    return p->element_size == 4 && length > ROWS_LANES_VECTORS / 2 * vec &&
           length <= ROWS_LANES_VECTORS * vec;
}

/* The team of rows_by_lanes(): a lane for each whole vector of a row, in a
 * power of two, and as many lanes as the vector's elements at least (for
 * the elements after the last whole vector). */
static cl_uint lanes_team(const plan *p, size_t length)
{
    size_t vec = p->t.vector_width, team = vec;
    while (team < length / vec)
        team *= 2;
    return (cl_uint)team;
}

/* ---- plan --------------------------------------------------------------------------- */

/* The tests' switch (in the build options) that gives CPU devices the
 * rows' shapes of GPUs: teams, and sub-groups where the device has them
 * (rows_by_items(), plan_rows()). */
#define TEST_ROWS_TEAMS "CLR_TEST_ROWS_TEAMS"

/* On CPU devices the rows of sum, min and max take no sub-groups: on
 * Intel's CPU runtime (2 cores, 2^22 elements, float, double and int32;
 * bench/results/cpu-2026-12-06-rows-subgroups.txt) rows of 32, 512, 4096
 * and 65536 elements took 0.13-0.56x the time without them, but sums of
 * rows of 512 (0.91x doubles, 1.02x floats), whether or not the launch
 * used the kernel's sub-group branch. (Several operators in one pass leave
 * them out there too, multi.c.) */
static int rows_take_subgroups(const clreduce_ctx *ctx)
{
    return !(ctx->info.type & CL_DEVICE_TYPE_CPU) || context_test_switch(ctx, TEST_ROWS_TEAMS);
}

/* The plan of rows of one input, or of two (dot_rows_family). */
static clreduce_status plan_rows(clreduce_ctx *ctx, const request *r, plan *p)
{
    clreduce_status status = plan_start(ctx, r, p);
    if (status != CLREDUCE_SUCCESS)
        return status;
    if ((status = rows_check_pitch(ctx, r->rows, r->row_length, r->row_pitch, "row_pitch",
                                   "elements")) != CLREDUCE_SUCCESS)
        return status;
    p->variant = 0;
    p->family_defines.count = 0;
    if (takes_fixed_order(ctx, r))
        return fixed_batches_plan(ctx, r, p, 0, "a reproducible context");
    if (!r->custom)
        tuning_for_row_operator(&ctx->info, &ctx->settings, r->op, p->type, r->row_length,
                                &p->t);
    status = plan_teams(ctx, r, p, "rows: ", &rows_program, &operator_rows_program);
    if (status == CLREDUCE_SUCCESS && !rows_take_subgroups(ctx))
        p->path = CLREDUCE_SUBGROUP_PATH_NONE;
    if (status == CLREDUCE_SUCCESS && rows_by_lanes(ctx, p, r))
        defines_add(&p->family_defines, "CLR_ROWS_REPS", ROWS_REPS);
    return status;
}

static clreduce_status rows_plan(clreduce_ctx *ctx, const request *r, plan *p)
{
    if (r->op == CLREDUCE_OP_DOT)
        return refuse_dot(ctx, "rows", "clreduce_dot_rows");
    return plan_rows(ctx, r, p);
}


/* ---- launches ------------------------------------------------------------------------ */

static clreduce_status enqueue_rows_kernel(clreduce_ctx *ctx, chain *c, const request *r,
                                           const plan *p, cached_kernel *k, cl_mem in,
                                           size_t in_off, const rows_launch *l, cl_mem out,
                                           size_t out_off)
{
    cl_ulong in_off64 = in_off, items = l->items, length = l->length, pitch = l->pitch,
             parts = l->parts, chunk = l->chunk, out_off64 = out_off;
    /* The accumulators' kernel reads a second input too: dot's or a
     * user-defined operator's, else the first again, unread. (It reads
     * the input alone: its partials go to enqueue_rows_finish().) */
    cl_mem in2 = r->input2 ? r->input2 : r->input;
    cl_ulong in2_off = r->input2 ? r->input2_offset : r->input_offset;
    kernel_arg args[] = {ARG(in),    ARG(in_off64), ARG(items),     ARG(length),
                         ARG(pitch), ARG(parts),    ARG(chunk),     ARG(out),
                         ARG(out_off64), ARG(l->team), ARG(l->per_group), ARG(in2),
                         ARG(in2_off)};
    cl_uint nargs = sizeof args / sizeof *args - (op_keeps_accumulators(p->op) ? 0 : 2);
    return enqueue_kernel_args(ctx, c, k, K_ROWS, div_up(l->items, l->per_group),
                               p->work_group_size, args, nargs);
}

/* The operators' second launch: each row's accumulators of its parts into
 * its result. */
static clreduce_status enqueue_rows_finish(clreduce_ctx *ctx, chain *c, const plan *p,
                                           cached_kernel *k, cl_mem partials,
                                           const rows_launch *l, cl_mem out, size_t out_off)
{
    cl_ulong rows = l->items, parts = l->length, out_off64 = out_off;
    kernel_arg args[] = {ARG(partials), ARG(rows),   ARG(parts),       ARG(out),
                         ARG(out_off64), ARG(l->team), ARG(l->per_group)};
    return enqueue_kernel_args(ctx, c, k, K_FINISH, div_up(l->items, l->per_group),
                               p->work_group_size, args, sizeof args / sizeof *args);
}

/* On CPU devices, sum, min and max give each row (or part) to one
 * work-item where that still leaves a work-group of them per compute unit:
 * on PoCL 3.1 and Intel's CPU runtime (2 cores; 2^22 elements, sums and
 * max of floats and doubles, bench/results/cpu-2026-12-05-rows.txt) rows of
 * 32, 512 and 4096 elements took 0.06-0.83x the time of the teams, whose
 * barriers cost a CPU runtime more than a work-item's longer walk. Rows of
 * 65536 (64 rows, too few there) keep the teams, though a work-item each
 * took them in 0.3-0.6x the time on those two cores: with a work-group per
 * 256 rows, a CPU of more cores would leave most of them idle. A work-item
 * adds each lane of its vectors in one chain of n / v additions, within
 * the 4 v of batched.h's bound (m <= n / w + 4 v + 2) for rows of
 * ITEM_CHAIN_MAX * v^2 elements or fewer: floating-point sums of longer
 * rows keep the teams (min, max and integer sums are exact in any order).
 * Not under the tests' switch TEST_ROWS_TEAMS. */
#define ITEM_CHAIN_MAX 4

int rows_by_items(const clreduce_ctx *ctx, const plan *p, size_t items, size_t length)
{
    size_t v = p->t.vector_width;
    return (ctx->info.type & CL_DEVICE_TYPE_CPU) &&
           items >= p->work_group_size * (size_t)ctx->info.compute_units &&
           (!op_depends_on_order(p->op, p->type) || length <= ITEM_CHAIN_MAX * v * v) &&
           !context_test_switch(ctx, TEST_ROWS_TEAMS);
}

/* The team of a launch over pieces of `length` elements: rows_team()'s
 * for sum, min and max (one work-item where rows_by_items() says so),
 * rows_accumulator_team()'s for accumulators. */
static void team_for(const clreduce_ctx *ctx, const plan *p, size_t length, rows_launch *l)
{
    if (!op_keeps_accumulators(p->op)) {
        if (rows_by_items(ctx, p, l->items, length)) {
            l->team = 1;
            l->per_group = (cl_uint)p->work_group_size;
        } else {
            rows_team(ctx, p, length, &l->team, &l->per_group);
        }
        return;
    }
    l->team = (cl_uint)rows_accumulator_team(p, length);
    l->per_group = (cl_uint)(p->work_group_size / l->team);
}

static clreduce_status rows_enqueue(clreduce_ctx *ctx, chain *c, const request *r, const plan *p,
                                    cached_kernel *k, int in_order)
{
    (void)in_order;
    if (p->variant == CLREDUCE_REPRODUCIBLE)
        return fixed_rows_enqueue(ctx, c, r, p, k);
    size_t length = r->row_length, pitch = request_input_pitch(r);
    size_t parts = rows_parts(ctx, p, r->rows, length);
    int extended = op_keeps_accumulators(p->op);
    /* Parts of whole vectors, so that an element's place in the combination
     * depends on the shape alone; then one row of partial results per row,
     * reduced in order. (The operators' kernel tells parts from whole rows
     * by parts > 1: whole rows when the rounding leaves one part.) */
    size_t vec = p->t.vector_width;
    size_t chunk = parts > 1 ? div_up(div_up(length, parts), vec) * vec : length;
    rows_launch whole = {r->rows, length, pitch, 1, length, 0, 0};
    if (parts == 1 || (extended && div_up(length, chunk) == 1)) {
        if (rows_by_lanes(ctx, p, r)) { /* rows that short are never split */
            whole.team = lanes_team(p, length);
            whole.per_group = (cl_uint)(p->work_group_size / whole.team * ROWS_REPS);
        } else {
            team_for(ctx, p, length, &whole);
        }
        return enqueue_rows_kernel(ctx, c, r, p, k, r->input, r->input_offset, &whole,
                                   r->output, r->output_offset);
    }
    parts = div_up(length, chunk);
    rows_launch split = {r->rows * parts, length, pitch, parts, chunk, 0, 0};
    rows_launch finish = {r->rows, parts, parts, 1, parts, 0, 0};
    team_for(ctx, p, chunk, &split);
    rows_team(ctx, p, parts, &finish.team, &finish.per_group);
    cl_mem partials;
    size_t partial_size = extended ? ACCUMULATOR_MAX : p->element_size;
    clreduce_status status = create_temp(ctx, c, r->rows * parts * partial_size, &partials);
    if (status != CLREDUCE_SUCCESS)
        return status;
    chain_intermediate(c); /* the finish follows */
    status = enqueue_rows_kernel(ctx, c, r, p, k, r->input, r->input_offset, &split, partials,
                                 0);
    if (status == CLREDUCE_SUCCESS && extended)
        status = enqueue_rows_finish(ctx, c, p, k, partials, &finish, r->output,
                                     r->output_offset);
    else if (status == CLREDUCE_SUCCESS)
        status = enqueue_rows_kernel(ctx, c, r, p, k, partials, 0, &finish, r->output,
                                     r->output_offset);
    clReleaseMemObject(partials); /* deleted once the commands using it are done */
    return status;
}

const op_family rows_family = {
    .output_name = "result", .output_offset_name = "result_offset", .host_input_name = "data",
    .index_name = NULL, .outputs = OUTPUT_PER_ROW, .in_place = 0,
    .plan = rows_plan, .enqueue_empty = enqueue_empty_rows, .enqueue = rows_enqueue,
    .storage = &rows_family, /* reads r->custom itself */
    .fixed_order = 1,
};

/* Dot products of rows: x's rows the input, y's input2, at the same pitch. */
static const op_family dot_rows_family = {
    .output_name = "result", .output_offset_name = "result_offset", .host_input_name = "x",
    .index_name = NULL, .outputs = OUTPUT_PER_ROW, .in_place = 0, .two_inputs = 1,
    .plan = plan_rows, .enqueue_empty = enqueue_empty_rows, .enqueue = rows_enqueue,
    .fixed_order = 1,
};

/* ---- API ------------------------------------------------------------------------------ */

/* The request of a rows call: the input range is the span of the rows (all
 * of size_t when it overflows, which the plan reports). */
request rows_request(cl_command_queue queue, clreduce_op op, clreduce_type type, cl_mem input,
                     size_t offset, size_t rows, size_t row_length, size_t row_pitch,
                     cl_mem result, size_t result_offset, cl_uint num_wait, const cl_event *wait)
{
    request r = {.queue = queue, .op = op, .type = type, .input = input, .input_offset = offset,
                 .output = result, .output_offset = result_offset, .num_wait = num_wait,
                 .wait = wait, .rows = rows, .row_length = row_length, .row_pitch = row_pitch};
    int overflow;
    r.count = rows_span(rows, row_length, request_input_pitch(&r), &overflow);
    return r;
}

clreduce_status clreduce_reduce_rows_profiled(clreduce_ctx *ctx, cl_command_queue queue,
                                              clreduce_op op, clreduce_type type, cl_mem input,
                                              size_t offset, size_t rows, size_t row_length,
                                              size_t row_pitch, cl_mem result,
                                              size_t result_offset, cl_uint num_wait,
                                              const cl_event *wait, cl_event *first,
                                              cl_event *done)
{
    request r = rows_request(queue, op, type, input, offset, rows, row_length, row_pitch, result,
                             result_offset, num_wait, wait);
    return request_enqueue(ctx, &rows_family, &r, first, done);
}

clreduce_status clreduce_reduce_rows(clreduce_ctx *ctx, cl_command_queue queue, clreduce_op op,
                                     clreduce_type type, cl_mem input, size_t offset,
                                     size_t rows, size_t row_length, size_t row_pitch,
                                     cl_mem result, size_t result_offset, cl_uint num_wait,
                                     const cl_event *wait, cl_event *done)
{
    return clreduce_reduce_rows_profiled(ctx, queue, op, type, input, offset, rows, row_length,
                                         row_pitch, result, result_offset, num_wait, wait, NULL,
                                         done);
}

clreduce_status clreduce_reduce_rows_host(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                                          const void *data, size_t rows, size_t row_length,
                                          size_t row_pitch, void *results)
{
    request r = rows_request(NULL, op, type, NULL, 0, rows, row_length, row_pitch, NULL, 0, 0,
                             NULL);
    return request_host(ctx, &rows_family, &r, data, results);
}

clreduce_status clreduce_dot_rows_profiled(clreduce_ctx *ctx, cl_command_queue queue,
                                           clreduce_type type, cl_mem x, size_t x_offset,
                                           cl_mem y, size_t y_offset, size_t rows,
                                           size_t row_length, size_t row_pitch, cl_mem result,
                                           size_t result_offset, cl_uint num_wait,
                                           const cl_event *wait, cl_event *first, cl_event *done)
{
    request r = rows_request(queue, CLREDUCE_OP_DOT, type, x, x_offset, rows, row_length,
                             row_pitch, result, result_offset, num_wait, wait);
    r.input2 = y;
    r.input2_offset = y_offset;
    return request_enqueue(ctx, &dot_rows_family, &r, first, done);
}

clreduce_status clreduce_dot_rows(clreduce_ctx *ctx, cl_command_queue queue, clreduce_type type,
                                  cl_mem x, size_t x_offset, cl_mem y, size_t y_offset,
                                  size_t rows, size_t row_length, size_t row_pitch, cl_mem result,
                                  size_t result_offset, cl_uint num_wait, const cl_event *wait,
                                  cl_event *done)
{
    return clreduce_dot_rows_profiled(ctx, queue, type, x, x_offset, y, y_offset, rows,
                                      row_length, row_pitch, result, result_offset, num_wait,
                                      wait, NULL, done);
}

clreduce_status clreduce_dot_rows_host(clreduce_ctx *ctx, clreduce_type type, const void *x,
                                       const void *y, size_t rows, size_t row_length,
                                       size_t row_pitch, void *results)
{
    request r = rows_request(NULL, CLREDUCE_OP_DOT, type, NULL, 0, rows, row_length, row_pitch,
                             NULL, 0, 0, NULL);
    return request_host_two(ctx, &dot_rows_family, &r, x, y, results);
}
