/* The reproducible order of float and double sums (cl/fixed_order.cl) for
 * the families that take it: what a device and the settings must allow for
 * it, the rule of a reproducible context (clreduce_settings.reproducible),
 * and the plans and launches of rows and segments in that order, which the
 * flat sums of a map (operators.c) take as one row; the flat plain sum's
 * own kernel is reduce.c's. */
#include <string.h>

#include "families.h"

/* ---- the order's conditions ---------------------------------------------------- */

/* The map a sum in the fixed order applies to each element first
 * (cl/fixed_order.cl's CLR_FIXED_MAP), or -1 for an operator it does not
 * take. */
static int fixed_order_map(clreduce_op op)
{
    switch (op) {
    case CLREDUCE_OP_SUM: return 0;
    case CLREDUCE_OP_SUM_SQUARES: return 1;
    case CLREDUCE_OP_SUM_ABS: return 2;
    case CLREDUCE_OP_DOT: return 3;
    default: return -1;
    }
}

int has_fixed_order(clreduce_op op, clreduce_type type)
{
    return fixed_order_map(op) >= 0 && is_float_type(type);
}

/* Build options under which the compiler may reorder or flush float
 * arithmetic, which the reproducible order cannot survive. */
static const char *relaxing_option(const char *options)
{
    static const char *const relaxing[] = {"-cl-fast-relaxed-math",
                                           "-cl-unsafe-math-optimizations",
                                           "-cl-denorms-are-zero"};
    for (size_t i = 0; options && i < sizeof relaxing / sizeof *relaxing; i++)
        if (strstr(options, relaxing[i]))
            return relaxing[i];
    return NULL;
}

clreduce_status fixed_order_check(clreduce_ctx *ctx, plan *p, const char *what)
{
    const char *option = relaxing_option(ctx->settings.build_options);
    if (option)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "%s cannot keep its order under build option %s", what, option);
    if (ctx->info.max_work_group_size < CLR_FIXED_LANES)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "%s needs work-groups of %d; device \"%s\" allows %zu", what,
                         CLR_FIXED_LANES, ctx->info.name, ctx->info.max_work_group_size);
    if (p->type == CLREDUCE_FLOAT && !ctx->info.float_denorms)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "%s needs float subnormals, which device \"%s\" flushes to zero", what,
                         ctx->info.name);
    p->variant = CLREDUCE_REPRODUCIBLE;
    p->t.work_group_size = p->work_group_size = CLR_FIXED_LANES;
    p->t.vector_width = 16 / (unsigned)p->element_size;
    p->unroll = 1;
    p->path = CLREDUCE_SUBGROUP_PATH_NONE;
    return CLREDUCE_SUCCESS;
}

/* ---- a reproducible context ------------------------------------------------------ */

int op_depends_on_order(clreduce_op op, clreduce_type type)
{
    int floating = is_float_type(type) || is_storage_type(type);
    switch (op) {
    case CLREDUCE_OP_MIN:
    case CLREDUCE_OP_MAX:
    case CLREDUCE_OP_ARGMIN:
    case CLREDUCE_OP_ARGMAX:
    case CLREDUCE_OP_MINMAX: return 0;
    default: return floating;
    }
}

clreduce_status reproducible_check(clreduce_ctx *ctx, const op_family *f, const request *r)
{
    if (!ctx->settings.reproducible || r->routed)
        return CLREDUCE_SUCCESS; /* a routed request was checked before its route */
    if (r->custom)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "a reproducible context runs no user-defined operator: the library "
                         "cannot fix the order its results depend on");
    for (size_t i = 0; i < r->num_ops; i++)
        if (op_depends_on_order(r->ops[i], r->type))
            return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                             "a reproducible context cannot fix the order of %s of %s among "
                             "several operators in one pass",
                             clreduce_op_name(r->ops[i]), clreduce_type_name(r->type));
    if (r->ops || !op_depends_on_order(r->op, r->type))
        return CLREDUCE_SUCCESS;
    /* Scans take the order for plain sums, on variant auto. */
    int scans = f->outputs == OUTPUT_PER_ELEMENT || f->outputs == OUTPUT_ROWS;
    if (f->fixed_order && has_fixed_order(r->op, r->type) && (!scans || r->op == CLREDUCE_OP_SUM)) {
        if (r->variant == CLREDUCE_AUTO || (!scans && r->variant == CLREDUCE_REPRODUCIBLE))
            return CLREDUCE_SUCCESS;
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "a reproducible context runs %s of %s by variant auto%s only, not %s",
                         clreduce_op_name(r->op), clreduce_type_name(r->type),
                         scans ? "" : " or reproducible",
                         scans ? clreduce_scan_variant_name((clreduce_scan_variant)r->variant)
                               : clreduce_variant_name((clreduce_variant)r->variant));
    }
    return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                     "a reproducible context has no fixed order for %s of %s in this call: only "
                     "float and double sums, sums of squares, of absolute values and dot "
                     "products (flat, of rows, of segments) and sum scans (flat, of rows) have "
                     "one",
                     clreduce_op_name(r->op), clreduce_type_name(r->type));
}

/* ---- rows and segments ------------------------------------------------------------ */

static const char *const batch_sources[] = {
    clreduce_cl_contract,         clreduce_cl_types,       clreduce_cl_subgroup,
    clreduce_cl_workgroup_reduce, clreduce_cl_fixed_order, clreduce_cl_reduce_fixed_order_rows};
static const char *const rows_kernels[] = {"clr_fixed_rows_squads", "clr_fixed_rows_tiles",
                                           "clr_fixed_rows_levels"};
static const char *const segments_kernels[] = {
    "clr_fixed_segments_short", "clr_fixed_segments_tiles", "clr_fixed_segments_levels"};
enum { K_SQUADS = 0 /* rows */, K_SHORT = 0 /* segments */, K_TILES = 1, K_LEVELS = 2 };
static const program_spec fixed_rows_program = {
    batch_sources, sizeof batch_sources / sizeof *batch_sources, rows_kernels, 3, 0};
static const program_spec fixed_segments_program = {
    batch_sources, sizeof batch_sources / sizeof *batch_sources, segments_kernels, 3, 0};

int takes_fixed_order(const clreduce_ctx *ctx, const request *r)
{
    return ctx->settings.reproducible && !r->custom && has_fixed_order(r->op, r->type);
}

clreduce_status fixed_batches_plan(clreduce_ctx *ctx, const request *r, plan *p, int segments,
                                   const char *what)
{
    clreduce_status status = fixed_order_check(ctx, p, what);
    if (status != CLREDUCE_SUCCESS)
        return status;
    /* The kernels sum (CLR_OP), the map comes first; every such operator
     * gives 0 of no element. */
    p->op = CLREDUCE_OP_SUM;
    p->output_size = p->element_size;
    memset(p->empty_output, 0, sizeof p->empty_output);
    p->program = segments ? &fixed_segments_program : &fixed_rows_program;
    /* The squads join their last lanes by NVIDIA's warp shuffles where
     * they can (the same order through local memory elsewhere). */
    const char *lacks;
    if (ctx->subgroup_path == CLREDUCE_SUBGROUP_PATH_NV_PTX &&
        path_usable(&ctx->info, ctx->subgroup_path, &lacks))
        p->path = CLREDUCE_SUBGROUP_PATH_NV_PTX;
    defines_add(&p->family_defines, "CLR_NV_LOAD", p->t.nv_load);
    defines_add(&p->family_defines, "CLR_FIXED_MAP", fixed_order_map(r->op));
    return CLREDUCE_SUCCESS;
}

/* Work-groups of a launch over `items`, at most a grid that fills the
 * device (the kernels walk the rest). */
static size_t launch_groups(const clreduce_ctx *ctx, const plan *p, size_t items)
{
    size_t cap = (size_t)ctx->info.compute_units * p->t.groups_per_compute_unit;
    return items < cap ? (items ? items : 1) : cap;
}

static size_t tile_elements(const plan *p)
{
    return CLR_FIXED_TILE_BYTES / p->element_size;
}

clreduce_status fixed_rows_enqueue(clreduce_ctx *ctx, chain *c, const request *r, const plan *p,
                                   cached_kernel *k)
{
    const size_t wg = CLR_FIXED_LANES, tile = tile_elements(p);
    cl_ulong in_off = r->input_offset, rows = r->rows, length = r->row_length,
             pitch = request_input_pitch(r), out_off = r->output_offset;
    /* The second input of a dot product, else the first again (unread). */
    cl_mem in2 = r->input2 ? r->input2 : r->input;
    cl_ulong in2_off = r->input2 ? r->input2_offset : r->input_offset;
    /* Rows of at most one tile: a squad of work-items a row (the row's
     * lanes rounded up to a power of two, or CLR_FIXED_SQUAD), where the
     * row is one step long or the rows fill a work-group's squads; else a
     * work-group a tile. */
    size_t vec = p->t.vector_width; /* 16 bytes */
    cl_uint team = (cl_uint)rows_local_team(p, r->row_length, 1);
    if (r->row_length <= wg * vec ||
        (r->row_length <= tile && r->rows >= CLR_FIXED_LANES / CLR_FIXED_SQUAD)) {
        size_t per_group = wg / (team < CLR_FIXED_SQUAD ? team : CLR_FIXED_SQUAD);
        kernel_arg args[] = {ARG(r->input),  ARG(in_off),  ARG(rows), ARG(length),
                             ARG(pitch),     ARG(r->output), ARG(out_off),
                             ARG(in2),       ARG(in2_off),   ARG(team)};
        return enqueue_kernel_args(ctx, c, k, K_SQUADS,
                                   launch_groups(ctx, p, div_up(r->rows, per_group)), wg, args,
                                   10);
    }
    cl_ulong tiles = div_up(r->row_length, tile);
    cl_mem levels = r->output; /* not written for rows of one tile */
    clreduce_status status = CLREDUCE_SUCCESS;
    if (tiles > 1) {
        if ((status = create_temp(ctx, c, r->rows * tiles * p->element_size, &levels)) !=
            CLREDUCE_SUCCESS)
            return status;
        chain_intermediate(c); /* the levels follow */
    }
    kernel_arg tile_args[] = {ARG(r->input), ARG(in_off), ARG(rows),      ARG(length),
                              ARG(pitch),    ARG(tiles),  ARG(r->output), ARG(out_off),
                              ARG(levels),   ARG(in2),    ARG(in2_off)};
    status = enqueue_kernel_args(ctx, c, k, K_TILES, launch_groups(ctx, p, r->rows * tiles), wg,
                                 tile_args, 11);
    if (status == CLREDUCE_SUCCESS && tiles > 1) {
        kernel_arg finish[] = {ARG(levels), ARG(rows), ARG(tiles), ARG(r->output), ARG(out_off)};
        status = enqueue_kernel_args(ctx, c, k, K_LEVELS, launch_groups(ctx, p, r->rows), wg,
                                     finish, 5);
    }
    if (tiles > 1)
        clReleaseMemObject(levels); /* deleted once the commands using it are done */
    return status;
}

clreduce_status fixed_flat_enqueue(clreduce_ctx *ctx, chain *c, const request *r, const plan *p,
                                   cached_kernel *k)
{
    request one = *r;
    one.rows = 1;
    one.row_length = one.row_pitch = r->count;
    return fixed_rows_enqueue(ctx, c, &one, p, k);
}

clreduce_status fixed_segments_enqueue(clreduce_ctx *ctx, chain *c, const request *r,
                                       const plan *p, cached_kernel *k)
{
    const size_t wg = CLR_FIXED_LANES, tile = tile_elements(p);
    /* cl/reduce_fixed_order_rows.cl: the slots of the segments of several
     * tiles, two per tile of the input, and one. */
    cl_ulong slots = 2 * div_up(r->count, tile) + 1;
    cl_ulong in_off = r->input_offset, count = r->count, off_off = r->index_offset,
             segments = r->rows, out_off = r->output_offset;
    /* The second input of a dot product, else the first again (unread). */
    cl_mem in2 = r->input2 ? r->input2 : r->input;
    cl_ulong in2_off = r->input2 ? r->input2_offset : r->input_offset;
    cl_mem levels;
    clreduce_status status = create_temp(ctx, c, slots * p->element_size, &levels);
    if (status != CLREDUCE_SUCCESS)
        return status;
    kernel_arg short_args[] = {ARG(r->input), ARG(in_off),   ARG(count),     ARG(r->index),
                               ARG(off_off),  ARG(segments), ARG(r->output), ARG(out_off),
                               ARG(in2),      ARG(in2_off)};
    kernel_arg tile_args[] = {ARG(r->input), ARG(in_off),   ARG(count), ARG(r->index),
                              ARG(off_off),  ARG(segments), ARG(slots), ARG(levels),
                              ARG(in2),      ARG(in2_off)};
    kernel_arg level_args[] = {ARG(r->input), ARG(in_off),   ARG(count),    ARG(r->index),
                               ARG(off_off),  ARG(segments), ARG(levels),   ARG(r->output),
                               ARG(out_off),  ARG(in2),      ARG(in2_off)};
    chain_intermediate(c);
    status = enqueue_kernel_args(ctx, c, k, K_SHORT, launch_groups(ctx, p, div_up(r->rows, wg)),
                                 wg, short_args, sizeof short_args / sizeof *short_args);
    if (status == CLREDUCE_SUCCESS) {
        chain_intermediate(c);
        status = enqueue_kernel_args(ctx, c, k, K_TILES, launch_groups(ctx, p, slots), wg,
                                     tile_args, sizeof tile_args / sizeof *tile_args);
    }
    if (status == CLREDUCE_SUCCESS)
        status = enqueue_kernel_args(ctx, c, k, K_LEVELS,
                                     launch_groups(ctx, p, div_up(r->rows, wg)), wg, level_args,
                                     sizeof level_args / sizeof *level_args);
    clReleaseMemObject(levels);
    return status;
}

/* ---- scans -------------------------------------------------------------------------- */

static const char *const scan_sources[] = {
    clreduce_cl_contract,         clreduce_cl_types,       clreduce_cl_subgroup,
    clreduce_cl_workgroup_reduce, clreduce_cl_fixed_order, clreduce_cl_scan_fixed_order};
static const char *const scan_kernels[] = {"clr_fixed_scan_totals", "clr_fixed_scan_prefixes",
                                           "clr_fixed_scan_apply", "clr_fixed_scan_short"};
enum { K_SCAN_TOTALS = 0, K_SCAN_PREFIXES = 1, K_SCAN_APPLY = 2, K_SCAN_SHORT = 3 };
static const program_spec fixed_scan_program = {
    scan_sources, sizeof scan_sources / sizeof *scan_sources, scan_kernels, 4, 0};

int takes_fixed_scan(const clreduce_ctx *ctx, const request *r)
{
    return ctx->settings.reproducible && r->op == CLREDUCE_OP_SUM && !r->custom &&
           has_fixed_order(r->op, r->type);
}

clreduce_status fixed_scan_plan(clreduce_ctx *ctx, plan *p)
{
    clreduce_status status = fixed_order_check(ctx, p, "a reproducible context");
    if (status != CLREDUCE_SUCCESS)
        return status;
    p->program = &fixed_scan_program;
    p->family_defines.count = 0;
    defines_add(&p->family_defines, "CLR_NV_LOAD", p->t.nv_load);
    return CLREDUCE_SUCCESS;
}

int is_fixed_scan(const plan *p)
{
    return p->program == &fixed_scan_program;
}

clreduce_status fixed_scan_enqueue(clreduce_ctx *ctx, chain *c, const request *r, const plan *p,
                                   cached_kernel *k)
{
    const size_t wg = CLR_FIXED_LANES, lane = tile_elements(p) / CLR_FIXED_LANES;
    /* A flat scan is one row. */
    int flat = r->rows == 0;
    cl_ulong rows = flat ? 1 : r->rows, n = flat ? r->count : r->row_length;
    cl_ulong pitch = flat ? n : request_input_pitch(r);
    cl_ulong out_pitch = flat ? n : request_output_pitch(r);
    cl_ulong tiles = div_up(n, tile_elements(p));
    cl_ulong in_off = r->input_offset, out_off = r->output_offset;
    cl_uint exclusive = r->kind == CLREDUCE_EXCLUSIVE;
    if (n <= lane) {
        kernel_arg args[] = {ARG(r->input),  ARG(in_off),    ARG(rows),     ARG(n),    ARG(pitch),
                             ARG(r->output), ARG(out_off), ARG(out_pitch), ARG(exclusive)};
        return enqueue_kernel_args(ctx, c, k, K_SCAN_SHORT, launch_groups(ctx, p, div_up(rows, wg)),
                                   wg, args, 9);
    }
    cl_mem values = r->output; /* the tiles' totals, then their prefixes; unread for one */
    clreduce_status status = CLREDUCE_SUCCESS;
    if (tiles > 1 &&
        (status = create_temp(ctx, c, rows * 2 * tiles * p->element_size, &values)) !=
            CLREDUCE_SUCCESS)
        return status;
    kernel_arg totals[] = {ARG(r->input), ARG(in_off), ARG(rows), ARG(n),
                           ARG(pitch),    ARG(tiles),  ARG(values)};
    kernel_arg prefixes[] = {ARG(values), ARG(rows), ARG(tiles)};
    kernel_arg apply[] = {ARG(r->input), ARG(in_off),   ARG(rows),    ARG(n),
                          ARG(pitch),    ARG(tiles),    ARG(values),  ARG(r->output),
                          ARG(out_off),  ARG(out_pitch), ARG(exclusive)};
    if (tiles > 1) {
        chain_intermediate(c);
        status = enqueue_kernel_args(ctx, c, k, K_SCAN_TOTALS, launch_groups(ctx, p, rows * tiles),
                                     wg, totals, 7);
        if (status == CLREDUCE_SUCCESS) {
            chain_intermediate(c);
            status = enqueue_kernel_args(ctx, c, k, K_SCAN_PREFIXES, launch_groups(ctx, p, rows),
                                         wg, prefixes, 3);
        }
    }
    if (status == CLREDUCE_SUCCESS)
        status = enqueue_kernel_args(ctx, c, k, K_SCAN_APPLY, launch_groups(ctx, p, rows * tiles),
                                     wg, apply, 11);
    if (tiles > 1)
        clReleaseMemObject(values);
    return status;
}
