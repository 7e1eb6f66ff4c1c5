/* Scans of the rows of a pitched matrix with sum, min and max, as an
 * operation family of the request pipeline (request.c): the plan, which
 * picks teams for short rows and tiles for longer ones from the row length,
 * and the launches. The operators past max scan rows over their
 * accumulators (scan_operators.c). */

#include "families.h"

/* ---- program ------------------------------------------------------------------ */

static const char *const scan_rows_sources[] = {
    clreduce_cl_contract,       clreduce_cl_types, clreduce_cl_subgroup,
    clreduce_cl_workgroup_reduce, clreduce_cl_workgroup_scan, clreduce_cl_tile,
    clreduce_cl_tile_run,       clreduce_cl_scan_rows};
static const char *const scan_rows_kernels[] = {"clr_scan_rows_team", "clr_scan_rows_tiles",
                                                "clr_scan_rows_reduce", "clr_scan_rows_spine"};
enum { K_TEAM = 0, K_TILES = 1, K_REDUCE = 2, K_SPINE = 3 };
static const program_spec scan_rows_program = {
    scan_rows_sources, sizeof scan_rows_sources / sizeof *scan_rows_sources, scan_rows_kernels,
    sizeof scan_rows_kernels / sizeof *scan_rows_kernels, 0};

/* How a plan scans its rows (plan.variant): teams of the rows' work-group
 * size, or tiles of the scans' (cl/scan_rows.cl). */
enum { BY_TEAMS = 1, BY_TILES = 2 };

/* Rows of at least this many whole tiles are cut into parts, a work-group
 * each, when they are too few to fill the device: reading them twice
 * (reduce, then scan) costs less than leaving compute units idle. */
#define SPLIT_TILES 4

/* ---- plan --------------------------------------------------------------------------- */

/* The scans' full tile: scan_loads vectors per work-item. */
static size_t full_tile(const plan *p)
{
    return p->t.scan_work_group_size * p->t.scan_loads * p->t.vector_width;
}

/* The team of each row: rows.c's rule, but a work-item a row where that
 * gives teams smaller than a work-group, rows_by_items() says so (CPU
 * devices) and the operator is exact in any order (min, max, integer
 * sums): a work-item scans its row in one chain, which the float sums'
 * bound of batched.h allows for a few elements only. On PoCL 3.1 and
 * Intel's CPU runtime (2 cores, 2^22 elements;
 * bench/results/cpu-2026-12-05-scan-rows.txt) float and double max scans
 * of rows of 32 and 512 took 0.48-0.80x the time of the teams; rows of
 * 4096, in tiles, took up to 2.2x as long by a work-item each, hence the
 * teams' condition. */
static void scan_team(const clreduce_ctx *ctx, const plan *p, const request *r, cl_uint *team,
                      cl_uint *per_group)
{
    rows_team(ctx, p, r->row_length, team, per_group);
    if (*team < p->work_group_size && !op_depends_on_order(p->op, p->type) &&
        rows_by_items(ctx, p, r->rows, r->row_length)) {
        *team = 1;
        *per_group = (cl_uint)p->work_group_size;
    }
}

/* Teams while a team smaller than a work-group gives every lane a few
 * vectors of the row (scan_team()); past that a work-group per row (or
 * several, see scan_rows_enqueue), with tiles of one vector per work-item
 * for rows shorter than the scans' full tile and full tiles from there on.
 * The kernels of both are compiled in one program; the shapes differ in
 * work-group size and tile, so each builds its own. */
static clreduce_status scan_rows_plan(clreduce_ctx *ctx, const request *r, plan *p)
{
    if ((unsigned)r->kind > CLREDUCE_EXCLUSIVE)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown scan kind %d", r->kind);
    clreduce_status status = plan_start(ctx, r, p);
    if (status != CLREDUCE_SUCCESS)
        return status;
    if ((status = rows_check_pitch(ctx, r->rows, r->row_length, r->row_pitch, "row_pitch",
                                   "elements")) != CLREDUCE_SUCCESS ||
        (status = rows_check_pitch(ctx, r->rows, r->row_length, r->output_pitch, "output_pitch",
                                   "elements")) != CLREDUCE_SUCCESS)
        return status;
    if (takes_fixed_scan(ctx, r))
        return fixed_scan_plan(ctx, p);
    const char *lacks;
    p->path = path_usable(&ctx->info, ctx->subgroup_path, &lacks) ? ctx->subgroup_path
                                                                  : CLREDUCE_SUBGROUP_PATH_NONE;
    p->program = &scan_rows_program;
    p->family_defines.count = 0;
    p->variant = BY_TEAMS;
    p->work_group_size = p->t.work_group_size;
    p->unroll = 1;
    cl_uint team, per_group;
    scan_team(ctx, p, r, &team, &per_group);
    if (team != p->work_group_size)
        return CLREDUCE_SUCCESS;
    p->variant = BY_TILES;
    p->work_group_size = p->t.scan_work_group_size;
    if (r->row_length >= full_tile(p))
        p->unroll = p->t.scan_loads;
    return CLREDUCE_SUCCESS;
}

/* ---- launches ------------------------------------------------------------------------ */

static clreduce_status enqueue_teams(clreduce_ctx *ctx, chain *c, const request *r,
                                     const plan *p, cached_kernel *k, cl_int exclusive)
{
    cl_uint team, per_group;
    scan_team(ctx, p, r, &team, &per_group);
    cl_ulong in_off = r->input_offset, rows = r->rows, len = r->row_length,
             pitch = request_input_pitch(r), out_off = r->output_offset,
             out_pitch = request_output_pitch(r);
    kernel_arg args[] = {ARG(r->input), ARG(in_off),    ARG(rows),      ARG(len),
                         ARG(pitch),    ARG(r->output), ARG(out_off),   ARG(out_pitch),
                         ARG(team),     ARG(per_group), ARG(exclusive)};
    return enqueue_kernel_args(ctx, c, k, K_TEAM, div_up(r->rows, per_group), p->work_group_size,
                               args, sizeof args / sizeof *args);
}

/* Parts per row: several work-groups per row when the rows are too few to
 * fill the device with one work-group each (fewer than twice its compute
 * units times its work-groups per compute unit) and at least SPLIT_TILES
 * full tiles long; at most a part per tile. */
static size_t parts_per_row(const clreduce_ctx *ctx, const plan *p, size_t rows, size_t length,
                            size_t tiles)
{
    size_t fill = 2 * (size_t)ctx->info.compute_units * p->t.groups_per_compute_unit;
    if (rows >= fill || length / SPLIT_TILES < full_tile(p))
        return 1;
    size_t parts = div_up(fill, rows);
    return parts < tiles ? parts : tiles;
}

static clreduce_status enqueue_tiles(clreduce_ctx *ctx, chain *c, const request *r,
                                     const plan *p, cached_kernel *k, cl_int exclusive)
{
    size_t wg = p->work_group_size;
    size_t tiles = div_up(r->row_length, wg * p->unroll * p->t.vector_width);
    size_t parts = parts_per_row(ctx, p, r->rows, r->row_length, tiles);
    size_t per_part = div_up(tiles, parts);
    parts = div_up(tiles, per_part); /* none empty */
    cl_mem partials = NULL;
    clreduce_status status = CLREDUCE_SUCCESS;
    cl_ulong in_off = r->input_offset, len = r->row_length, pitch = request_input_pitch(r),
             out_off = r->output_offset, out_pitch = request_output_pitch(r), parts64 = parts,
             per_part64 = per_part;
    if (parts > 1) {
        /* parts > 1 only for fewer rows than fill the device: no overflow */
        status = create_temp(ctx, c, r->rows * parts * p->element_size, &partials);
        if (status != CLREDUCE_SUCCESS)
            return status;
        kernel_arg reduce_args[] = {ARG(r->input), ARG(in_off),     ARG(len),     ARG(pitch),
                                    ARG(parts64),  ARG(per_part64), ARG(partials)};
        kernel_arg spine_args[] = {ARG(partials), ARG(parts64)};
        chain_intermediate(c); /* the spine and the tiles follow */
        status = enqueue_kernel_args(ctx, c, k, K_REDUCE, r->rows * parts, wg, reduce_args,
                                     sizeof reduce_args / sizeof *reduce_args);
        chain_intermediate(c);
        if (status == CLREDUCE_SUCCESS)
            status = enqueue_kernel_args(ctx, c, k, K_SPINE, r->rows, wg, spine_args,
                                         sizeof spine_args / sizeof *spine_args);
    }
    kernel_arg scan_args[] = {ARG(r->input),  ARG(in_off),    ARG(len),        ARG(pitch),
                              ARG(r->output), ARG(out_off),   ARG(out_pitch),  ARG(parts64),
                              ARG(per_part64), ARG(partials), ARG(exclusive)};
    if (status == CLREDUCE_SUCCESS)
        status = enqueue_kernel_args(ctx, c, k, K_TILES, r->rows * parts, wg, scan_args,
                                     sizeof scan_args / sizeof *scan_args);
    if (partials)
        clReleaseMemObject(partials); /* deleted once the commands using it are done */
    return status;
}

static clreduce_status scan_rows_enqueue(clreduce_ctx *ctx, chain *c, const request *r,
                                         const plan *p, cached_kernel *k, int in_order)
{
    (void)in_order;
    if (is_fixed_scan(p))
        return fixed_scan_enqueue(ctx, c, r, p, k);
    cl_int exclusive = r->kind == CLREDUCE_EXCLUSIVE;
    return p->variant == BY_TEAMS ? enqueue_teams(ctx, c, r, p, k, exclusive)
                                  : enqueue_tiles(ctx, c, r, p, k, exclusive);
}

static const op_family scan_rows_family = {
    .output_name = "output", .output_offset_name = "output_offset", .host_input_name = "data",
    .index_name = NULL, .outputs = OUTPUT_ROWS, .in_place = 1,
    .plan = scan_rows_plan, .enqueue_empty = enqueue_nothing,
    .enqueue = scan_rows_enqueue, .storage = &custom_row_scans, .fixed_order = 1,
};

/* ---- API ------------------------------------------------------------------------------ */

/* Sum, min and max scan here; the operators past max through their
 * accumulators (scan_operators.c). */
static const op_family *family_of(clreduce_op op)
{
    return op_is_extended(op) ? &operator_row_scans : &scan_rows_family;
}

request scan_rows_request(cl_command_queue queue, clreduce_op op, clreduce_type type,
                          clreduce_scan_kind kind, cl_mem input, size_t offset, size_t rows,
                          size_t row_length, size_t row_pitch, cl_mem output,
                          size_t output_offset, size_t output_pitch, cl_uint num_wait,
                          const cl_event *wait)
{
    request r = {.queue = queue, .op = op, .type = type, .kind = (int)kind, .input = input,
                 .input_offset = offset, .output = output, .output_offset = output_offset,
                 .num_wait = num_wait, .wait = wait, .rows = rows, .row_length = row_length,
                 .row_pitch = row_pitch, .output_pitch = output_pitch};
    int overflow;
    r.count = rows_span(rows, row_length, request_input_pitch(&r), &overflow);
    return r;
}

clreduce_status clreduce_scan_rows_profiled(clreduce_ctx *ctx, cl_command_queue queue,
                                            clreduce_op op, clreduce_type type,
                                            clreduce_scan_kind kind, cl_mem input, size_t offset,
                                            size_t rows, size_t row_length, size_t row_pitch,
                                            cl_mem output, size_t output_offset,
                                            size_t output_pitch, cl_uint num_wait,
                                            const cl_event *wait, cl_event *first,
                                            cl_event *done)
{
    request r = scan_rows_request(queue, op, type, kind, input, offset, rows, row_length,
                                  row_pitch, output, output_offset, output_pitch, num_wait, wait);
    return request_enqueue(ctx, family_of(op), &r, first, done);
}

clreduce_status clreduce_scan_rows(clreduce_ctx *ctx, cl_command_queue queue, clreduce_op op,
                                   clreduce_type type, clreduce_scan_kind kind, cl_mem input,
                                   size_t offset, size_t rows, size_t row_length,
                                   size_t row_pitch, cl_mem output, size_t output_offset,
                                   size_t output_pitch, cl_uint num_wait, const cl_event *wait,
                                   cl_event *done)
{
    return clreduce_scan_rows_profiled(ctx, queue, op, type, kind, input, offset, rows,
                                       row_length, row_pitch, output, output_offset,
                                       output_pitch, num_wait, wait, NULL, done);
}

clreduce_status clreduce_scan_rows_host(clreduce_ctx *ctx, clreduce_op op, clreduce_type type,
                                        clreduce_scan_kind kind, const void *data, size_t rows,
                                        size_t row_length, size_t row_pitch, void *output)
{
    request r = scan_rows_request(NULL, op, type, kind, NULL, 0, rows, row_length, row_pitch,
                                  NULL, 0, row_pitch, 0, NULL);
    return request_host(ctx, family_of(op), &r, data, output);
}
