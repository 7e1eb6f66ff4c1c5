/* Several operators over one input in one pass (cl/reduce_multi.cl,
 * cl/reduce_segments_multi.cl), as three operation families of the request
 * pipeline, over a range, over each row of a matrix and over each segment
 * of a CSR layout: the checks of an operator set and of its results'
 * places, the plans (the grid of the operators' reductions, one program per
 * operator set), and the launches. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "families.h"

#define MULTI_MAX CLREDUCE_MULTI_MAX

/* The largest result of any operator (mean_var of double), so that the
 * results of a host call fit a plan's empty_output packed together. */
#define RESULT_MAX 24
_Static_assert(MULTI_MAX * RESULT_MAX <= PLAN_OUTPUT_MAX, "packed results fit a plan");
/* The family's defines (the grid's 3, 4 of its own, 2 for segments, one
 * per operator and 2 for twins) and the 8 every program has fit a plan. */
_Static_assert(MULTI_MAX <= 10 && 11 + MULTI_MAX + 8 <= DEFINES_MAX, "defines fit a plan");

/* ---- programs ----------------------------------------------------------------- */

/* A program of n operators: the layers below the accumulators, then for
 * operator k an opener that sets CLR_OP to its code and names its
 * inclusion (reduce_multi.cl says how), operators.cl, team_lane.cl,
 * grid_accumulators.cl and reduce_multi_slot.cl; then multi_walk.cl and the
 * kernels. */
#define OPENER(k)                                                                               \
    "#line 1 \"reduce_multi operator " #k "\"\n#undef CLR_OP\n#define CLR_OP CLR_M_OP" #k    \
    "\n#undef CLR_X_SLOT\n#define CLR_X_SLOT(name) name##_" #k "\n"

static const char *const openers[MULTI_MAX] = {OPENER(0), OPENER(1), OPENER(2), OPENER(3),
                                               OPENER(4), OPENER(5), OPENER(6), OPENER(7),
                                               OPENER(8), OPENER(9)};

#define LAYERS_MAX 6
#define PER_OPERATOR 5
#define SOURCES_MAX (LAYERS_MAX + PER_OPERATOR * MULTI_MAX + 2)

static const char *const grid_kernels[] = {"clr_reduce_multi", "clr_reduce_multi_finish"};
static const char *const rows_kernels[] = {"clr_reduce_rows_multi",
                                           "clr_reduce_rows_multi_finish"};
static const char *const segments_kernels[] = {"clr_segment_heads_multi",
                                               "clr_reduce_segments_multi"};

/* The programs of each operator count: grid stride, single pass, rows (the
 * grid stride's sources, with CLR_GRID_PER_GROUP set) and segments. */
enum { PROGRAM_GRID_STRIDE, PROGRAM_SINGLE_PASS, PROGRAM_ROWS, PROGRAM_SEGMENTS, PROGRAM_KINDS };

typedef struct multi_programs {
    /* [grid stride, single pass, segments][operators - 1] */
    const char *sources[3][MULTI_MAX][SOURCES_MAX];
    program_spec specs[PROGRAM_KINDS][MULTI_MAX];
} multi_programs;

static multi_programs programs;
static pthread_once_t programs_once = PTHREAD_ONCE_INIT;

static void fill_programs(void)
{
    for (int kind = 0; kind < 3; kind++) {
        int single_pass = kind == 1, segments = kind == 2;
        for (size_t n = 1; n <= MULTI_MAX; n++) {
            const char **s = programs.sources[kind][n - 1];
            size_t k = 0;
            s[k++] = clreduce_cl_contract;
            s[k++] = clreduce_cl_types;
            s[k++] = clreduce_cl_subgroup;
            s[k++] = clreduce_cl_workgroup_reduce;
            if (single_pass)
                s[k++] = clreduce_cl_device_order;
            s[k++] = clreduce_cl_grid_walk;
            if (segments)
                s[k++] = clreduce_cl_segment_chunks;
            for (size_t i = 0; i < n; i++) {
                s[k++] = openers[i];
                s[k++] = clreduce_cl_operators;
                s[k++] = clreduce_cl_team_lane;
                s[k++] = clreduce_cl_grid_accumulators;
                s[k++] = clreduce_cl_reduce_multi_slot;
            }
            s[k++] = clreduce_cl_multi_walk;
            s[k++] = segments ? clreduce_cl_reduce_segments_multi : clreduce_cl_reduce_multi;
            if (segments) {
                programs.specs[PROGRAM_SEGMENTS][n - 1] =
                    (program_spec){s, k, segments_kernels, 2, 0};
            } else {
                programs.specs[kind][n - 1] =
                    (program_spec){s, k, grid_kernels, single_pass ? 1 : 2, single_pass};
                if (!single_pass)
                    programs.specs[PROGRAM_ROWS][n - 1] = (program_spec){s, k, rows_kernels, 2, 0};
            }
        }
    }
}

/* ---- operators and their results ---------------------------------------------- */

/* Byte alignment of a result: its 8-byte fields, else its elements. */
static size_t result_alignment(clreduce_op op, clreduce_type type)
{
    if (op == CLREDUCE_OP_ARGMIN || op == CLREDUCE_OP_ARGMAX || op == CLREDUCE_OP_MEAN_VAR)
        return 8;
    return clreduce_type_size(type);
}

/* What a reduction of no element writes. */
static void empty_result(clreduce_op op, clreduce_type type, unsigned char *out)
{
    if (op_is_extended(op))
        operator_empty_result(op, type, out);
    else
        identity_value(op, type, out);
}

/* Checks a set of operators for one pass (clreduce_reduce_multi): 1 to
 * CLREDUCE_MULTI_MAX known operators of one input, none twice, each defined
 * for the type; dot_alone: a set of dot alone passes too (the tuning query
 * of clreduce_dot). */
static clreduce_status multi_check_ops(const clreduce_ctx *ctx, const clreduce_op *ops,
                                       size_t num_ops, clreduce_type type, int dot_alone)
{
    if (!ops)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "ops is NULL");
    if (num_ops == 0 || num_ops > MULTI_MAX)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "num_ops is %zu: one call takes 1 to %d operators", num_ops, MULTI_MAX);
    if ((unsigned)type > CLREDUCE_BFLOAT16)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown type %d", (int)type);
    if ((unsigned)type > CLREDUCE_UINT64)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "%s is a storage type: one operator at a time takes it (sum, min, "
                         "max), or a user-defined operator",
                         clreduce_type_name(type));
    for (size_t i = 0; i < num_ops; i++) {
        if ((unsigned)ops[i] >= CLREDUCE_OP_COUNT)
            return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "ops[%zu] is unknown op %d",
                             i, (int)ops[i]);
        if (ops[i] == CLREDUCE_OP_DOT && !(dot_alone && num_ops == 1))
            return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                             "ops[%zu] is dot, which has two inputs: call clreduce_dot()", i);
        for (size_t j = 0; j < i; j++)
            if (ops[j] == ops[i])
                return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                                 "ops[%zu] and ops[%zu] are both %s: give each operator once",
                                 j, i, clreduce_op_name(ops[i]));
    }
    for (size_t i = 0; i < num_ops; i++)
        if (clreduce_result_size(ops[i], type) == 0)
            return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                             "ops[%zu] is %s, which is defined for float and double only, not %s",
                             i, clreduce_op_name(ops[i]), clreduce_type_name(type));
    return CLREDUCE_SUCCESS;
}

static int has_op(const request *r, clreduce_op op)
{
    for (size_t i = 0; i < r->num_ops; i++)
        if (r->ops[i] == op)
            return 1;
    return 0;
}

/* ---- plan ------------------------------------------------------------------------ */

/* The plan of one pass of variant v (GRID_STRIDE or SINGLE_PASS; for rows
 * and segments, GRID_STRIDE) over the input by r's operators, after
 * plan_start(): the tuning, the sub-group path and the program (kind: a
 * PROGRAM_ of the range's variant, PROGRAM_ROWS or PROGRAM_SEGMENTS). */
static void plan_operators(clreduce_ctx *ctx, const request *r, plan *p, clreduce_variant v,
                           int kind)
{
    int rows = kind == PROGRAM_ROWS || kind == PROGRAM_SEGMENTS;
    int sum_layer = is_float_type(r->type) && has_op(r, CLREDUCE_OP_SUM);
    tuning_for_operators(&ctx->info, &ctx->settings, r->ops, r->num_ops, r->type, rows, &p->t);
    fit_accumulators(ctx, p);
    p->variant = v;
    p->work_group_size = p->t.work_group_size;
    p->unroll = p->t.loads_per_work_item;
    /* A floating-point sum takes the sub-group path of its own reduction,
     * but on CPUs with cl_khr_subgroups (Intel's CPU runtime), whose
     * compiler crashes on some such kernels (reading memory it never
     * wrote, in its pass over values that cross barriers): there it takes
     * the work-group tree (multi.h says what that costs). */
    const char *lacks;
    int khr_on_cpu = (ctx->info.type & CL_DEVICE_TYPE_CPU) &&
                     ctx->subgroup_path != CLREDUCE_SUBGROUP_PATH_NV_PTX;
    p->path = sum_layer && !khr_on_cpu && path_usable(&ctx->info, ctx->subgroup_path, &lacks)
                  ? ctx->subgroup_path
                  : CLREDUCE_SUBGROUP_PATH_NONE;
    /* Rows and segments on NVIDIA: every operator's teams combine by warp
     * shuffles (reduce_multi_slot.cl), which need whole warps. */
    if (rows && ctx->subgroup_path == CLREDUCE_SUBGROUP_PATH_NV_PTX &&
        path_usable(&ctx->info, ctx->subgroup_path, &lacks) && ctx->info.nv_warp_size &&
        p->work_group_size % ctx->info.nv_warp_size == 0)
        p->path = CLREDUCE_SUBGROUP_PATH_NV_PTX;
    pthread_once(&programs_once, fill_programs);
    p->program = &programs.specs[kind][r->num_ops - 1];
    grid_defines(p, v);
    defines_add_text(&p->family_defines, "CLR_WALK_TAG", "ulong");
    defines_add(&p->family_defines, "CLR_M_SUM_LAYER", sum_layer);
    defines_add(&p->family_defines, "CLR_M_COUNT", (long long)r->num_ops);
    if (rows)
        defines_add(&p->family_defines, "CLR_GRID_PER_GROUP", 1);
    static const char *const op_names[MULTI_MAX] = {"CLR_M_OP0", "CLR_M_OP1", "CLR_M_OP2",
                                                    "CLR_M_OP3", "CLR_M_OP4", "CLR_M_OP5",
                                                    "CLR_M_OP6", "CLR_M_OP7", "CLR_M_OP8",
                                                    "CLR_M_OP9"};
    for (size_t i = 0; i < r->num_ops; i++)
        defines_add(&p->family_defines, op_names[i], (int)r->ops[i]);
    /* min, max and minmax keep one accumulator (multi_walk.cl's twins): the
     * first of them walks the input for the others. */
    int first_extremes = -1;
    unsigned twins = 0;
    for (size_t i = 0; i < r->num_ops; i++) {
        if (r->ops[i] != CLREDUCE_OP_MIN && r->ops[i] != CLREDUCE_OP_MAX &&
            r->ops[i] != CLREDUCE_OP_MINMAX)
            continue;
        if (first_extremes < 0)
            first_extremes = (int)i;
        else
            twins |= 1u << i;
    }
    if (twins) {
        defines_add(&p->family_defines, "CLR_M_TWINS", twins);
        defines_add(&p->family_defines, "CLR_M_TWIN_OF", first_extremes);
    }
}

/* plan_start() for r's operators: the program's own CLR_OP compiles
 * types.cl, the sub-group and the work-group layers for a floating-point
 * sum, which adds in their order (reduce_multi_slot.cl); integer programs
 * take min, whose kernel type is the element type (a sum's is unsigned). */
static clreduce_status plan_start_operators(clreduce_ctx *ctx, const request *r, plan *p)
{
    request base = *r;
    base.op = is_float_type(r->type) ? CLREDUCE_OP_SUM : CLREDUCE_OP_MIN;
    return plan_start(ctx, &base, p);
}

/* Where the results of ops lie packed in the order of ops, each at the next
 * multiple of its alignment, as the members of a C structure; returns
 * their end. */
static size_t pack_results(const clreduce_op *ops, size_t num_ops, clreduce_type type,
                           size_t *offsets)
{
    size_t at = 0;
    for (size_t i = 0; i < num_ops; i++) {
        size_t a = result_alignment(ops[i], type);
        at = div_up(at, a) * a;
        offsets[i] = at;
        at += clreduce_result_size(ops[i], type);
    }
    return at;
}

/* The same, as a record of a rows call: its size rounded up to a multiple
 * of its largest alignment, as a C structure's is. */
static size_t record_layout(const clreduce_op *ops, size_t num_ops, clreduce_type type,
                            size_t *offsets)
{
    size_t align = 1;
    for (size_t i = 0; i < num_ops; i++)
        if (result_alignment(ops[i], type) > align)
            align = result_alignment(ops[i], type);
    return div_up(pack_results(ops, num_ops, type, offsets), align) * align;
}

static clreduce_status multi_plan(clreduce_ctx *ctx, const request *r, plan *p)
{
    clreduce_status status = multi_check_ops(ctx, r->ops, r->num_ops, r->type, 0);
    if (status != CLREDUCE_SUCCESS)
        return status;
    if (!r->result_offsets)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "result_offsets is NULL");
    if ((status = plan_start_operators(ctx, r, p)) != CLREDUCE_SUCCESS)
        return status;
    if ((unsigned)r->variant >= CLREDUCE_VARIANT_COUNT)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown variant %d", r->variant);
    clreduce_variant v = r->variant == CLREDUCE_AUTO ? clreduce_auto_variant(ctx, p->type)
                                                     : (clreduce_variant)r->variant;
    if (v != CLREDUCE_GRID_STRIDE && v != CLREDUCE_SINGLE_PASS)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "several operators run on variants auto, grid_stride and single_pass, "
                         "not %s",
                         clreduce_variant_name(v));
    plan_operators(ctx, r, p, v,
                   v == CLREDUCE_SINGLE_PASS ? PROGRAM_SINGLE_PASS : PROGRAM_GRID_STRIDE);
    /* One output of all results packed, as a host call lays them out. */
    size_t offsets[MULTI_MAX];
    p->output_size = pack_results(r->ops, r->num_ops, r->type, offsets);
    for (size_t i = 0; i < r->num_ops; i++)
        empty_result(r->ops[i], r->type, p->empty_output + offsets[i]);
    return CLREDUCE_SUCCESS;
}

/* One record of every operator's result per row or segment, as
 * clreduce_multi_record() lays it out: its size, and the record of no
 * element. */
static void plan_records(const request *r, plan *p)
{
    size_t offsets[MULTI_MAX];
    p->output_size = record_layout(r->ops, r->num_ops, r->type, offsets);
    memset(p->empty_output, 0, p->output_size);
    for (size_t i = 0; i < r->num_ops; i++)
        empty_result(r->ops[i], r->type, p->empty_output + offsets[i]);
}

/* Rows: one record per row. */
static clreduce_status rows_multi_plan(clreduce_ctx *ctx, const request *r, plan *p)
{
    clreduce_status status = multi_check_ops(ctx, r->ops, r->num_ops, r->type, 0);
    if (status != CLREDUCE_SUCCESS)
        return status;
    if ((status = plan_start_operators(ctx, r, p)) != CLREDUCE_SUCCESS)
        return status;
    if ((status = rows_check_pitch(ctx, r->rows, r->row_length, r->row_pitch, "row_pitch",
                                   "elements")) != CLREDUCE_SUCCESS)
        return status;
    plan_operators(ctx, r, p, CLREDUCE_GRID_STRIDE, PROGRAM_ROWS);
    /* Parts of rows start a whole number of vectors into their row: where
     * the offset and the pitch are whole vectors too, every team's range
     * starts on a vector boundary, and the teams walk with aligned loads
     * (multi_walk.cl). */
    size_t vec = p->t.vector_width;
    size_t pitch = request_input_pitch(r);
    if (vec > 1 && r->input_offset % vec == 0 && (r->rows <= 1 || pitch % vec == 0))
        defines_add(&p->family_defines, "CLR_M_ALIGNED", 1);
    plan_records(r, p);
    return CLREDUCE_SUCCESS;
}

/* Segments: the same records, one per segment, in chunks of
 * SEGMENT_ACCUMULATOR_LANE_VECTORS vectors a work-item (internal.h). */

static clreduce_status segments_multi_plan(clreduce_ctx *ctx, const request *r, plan *p)
{
    clreduce_status status = multi_check_ops(ctx, r->ops, r->num_ops, r->type, 0);
    if (status != CLREDUCE_SUCCESS)
        return status;
    if ((status = plan_start_operators(ctx, r, p)) != CLREDUCE_SUCCESS)
        return status;
    plan_operators(ctx, r, p, CLREDUCE_GRID_STRIDE, PROGRAM_SEGMENTS);
    /* Before the chunks are sized: 8-byte elements may be read one at a
     * time (tuning.c). */
    tuning_for_segment_operators(&ctx->info, &ctx->settings, r->num_ops, r->type,
                                 request_mean_length(r), &p->t);
    if ((status = segments_plan_offsets(ctx, r, p)) != CLREDUCE_SUCCESS)
        return status;
    defines_add_text(&p->family_defines, "CLR_LANE_ELEMENTS",
                     LANE_ELEMENTS_DEFINE(SEGMENT_ACCUMULATOR_LANE_VECTORS));
    plan_records(r, p);
    return CLREDUCE_SUCCESS;
}

/* ---- the results' places ------------------------------------------------------------ */

static clreduce_status multi_check_outputs(clreduce_ctx *ctx, const request *r, const plan *p)
{
    size_t size;
    clreduce_status status = mem_size(ctx, r->output, "result", &size);
    if (status != CLREDUCE_SUCCESS)
        return status;
    for (size_t i = 0; i < r->num_ops; i++) {
        clreduce_op op = r->ops[i];
        size_t at = r->result_offsets[i], bytes = clreduce_result_size(op, r->type);
        size_t align = result_alignment(op, r->type);
        if (at % align != 0)
            return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                             "result_offsets[%zu] is %zu, not a multiple of %zu (the alignment "
                             "of a result of %s on %s)",
                             i, at, align, clreduce_op_name(op), clreduce_type_name(r->type));
        if (at > size || bytes > size - at)
            return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                             "result_offsets[%zu] is %zu: the %zu bytes of the result of %s end "
                             "past the end of result (%zu bytes)",
                             i, at, bytes, clreduce_op_name(op), size);
        for (size_t j = 0; j < i; j++) {
            size_t other = r->result_offsets[j];
            if (at < other + clreduce_result_size(r->ops[j], r->type) && other < at + bytes)
                return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                                 "the results of ops[%zu] (%s, bytes [%zu, %zu)) and ops[%zu] "
                                 "(%s, at byte %zu) overlap",
                                 i, clreduce_op_name(op), at, at + bytes, j,
                                 clreduce_op_name(r->ops[j]), other);
        }
        char name[64];
        snprintf(name, sizeof name, "the result of ops[%zu] = %s", i, clreduce_op_name(op));
        if ((status = check_disjoint(ctx, r->input, "the input range",
                                     r->input_offset * p->element_size,
                                     r->count * p->element_size, r->output, name, at, bytes)) !=
            CLREDUCE_SUCCESS)
            return status;
    }
    return CLREDUCE_SUCCESS;
}

/* ---- launches -------------------------------------------------------------------------- */

static clreduce_status multi_enqueue(clreduce_ctx *ctx, chain *c, const request *r,
                                     const plan *p, cached_kernel *k, int in_order)
{
    size_t wg = p->work_group_size;
    size_t groups = grid_groups(ctx, p, r->count);
    cl_ulong at[MULTI_MAX];
    for (size_t i = 0; i < r->num_ops; i++)
        at[i] = r->result_offsets[i];
    cl_ulong in_off = r->input_offset, n = r->count;
    cl_mem ticket = NULL, partials = NULL;
    clreduce_status status = CLREDUCE_SUCCESS;

    if (p->variant == CLREDUCE_SINGLE_PASS)
        status = scratch_for_queue(ctx, c->queue, in_order, single_pass_scratch_size(ctx),
                                   &ticket);
    if (status == CLREDUCE_SUCCESS && (p->variant == CLREDUCE_SINGLE_PASS || groups > 1))
        status = create_temp(ctx, c, r->num_ops * groups * ACCUMULATOR_MAX, &partials);
    if (status == CLREDUCE_SUCCESS) {
        kernel_arg args[] = {ARG(r->input), ARG(in_off),  ARG(n),       ARG(r->output),
                             {r->num_ops * sizeof *at, at}, ARG(ticket), ARG(partials)};
        if (p->variant == CLREDUCE_GRID_STRIDE && groups > 1)
            chain_intermediate(c); /* the finish follows */
        status = enqueue_kernel_args(ctx, c, k, 0, groups, wg, args, 7);
    }
    if (status == CLREDUCE_SUCCESS && p->variant == CLREDUCE_GRID_STRIDE && groups > 1) {
        cl_ulong count = groups;
        kernel_arg args[] = {ARG(partials), ARG(count), ARG(r->output),
                             {r->num_ops * sizeof *at, at}};
        status = enqueue_kernel_args(ctx, c, k, 1, 1, wg, args, 4);
    }
    if (partials)
        clReleaseMemObject(partials);
    if (ticket)
        clReleaseMemObject(ticket);
    return status;
}

/* A reduction of nothing writes each operator's result of no element: a
 * fill per aligned word of it, as fill patterns must start at a multiple of
 * their size. */
static clreduce_status multi_enqueue_empty(clreduce_ctx *ctx, chain *c, const request *r,
                                           const plan *p, int wants_event)
{
    (void)p;
    (void)wants_event;
    for (size_t i = 0; i < r->num_ops; i++) {
        unsigned char empty[RESULT_MAX];
        empty_result(r->ops[i], r->type, empty);
        size_t word = result_alignment(r->ops[i], r->type);
        size_t bytes = clreduce_result_size(r->ops[i], r->type);
        for (size_t at = 0; at < bytes; at += word) {
            clreduce_status status = enqueue_fill(ctx, c, r->output, empty + at, word,
                                                  r->result_offsets[i] + at, word);
            if (status != CLREDUCE_SUCCESS)
                return status;
        }
    }
    return CLREDUCE_SUCCESS;
}

static const op_family multi_reductions = {
    .output_name = "result", .output_offset_name = "result_offsets", .host_input_name = "data",
    .outputs = OUTPUT_ONE, .in_place = 0, .two_inputs = 0,
    .plan = multi_plan, .enqueue_empty = multi_enqueue_empty, .enqueue = multi_enqueue,
    .check_outputs = multi_check_outputs,
};

/* The kernels' clr_m_offsets for records (reduce_multi.cl): each
 * operator's place in the first record written, then the record's size,
 * in at (MULTI_MAX + 1 entries), as a kernel argument. */
static kernel_arg record_places(const request *r, const plan *p, cl_ulong *at)
{
    size_t offsets[MULTI_MAX];
    record_layout(r->ops, r->num_ops, r->type, offsets);
    for (size_t i = 0; i < r->num_ops; i++)
        at[i] = r->output_offset * p->output_size + offsets[i];
    at[r->num_ops] = p->output_size;
    return (kernel_arg){(r->num_ops + 1) * sizeof *at, at};
}

/* Rows: a team of work-items per row (rows_accumulator_team(), team.cl's shape:
 * several rows a work-group for short rows, a work-group a row for long
 * ones); where the rows are too few to fill the device that way, in parts
 * of whole vectors (so that an element's place in the combination depends
 * on the shape alone), whose partials a second launch combines in order,
 * as rows.c cuts them. */
static clreduce_status rows_multi_enqueue(clreduce_ctx *ctx, chain *c, const request *r,
                                          const plan *p, cached_kernel *k, int in_order)
{
    (void)in_order;
    cl_ulong at[MULTI_MAX + 1];
    kernel_arg at_arg = record_places(r, p, at);
    size_t length = r->row_length, vec = p->t.vector_width;
    size_t parts = rows_parts(ctx, p, r->rows, length);
    size_t chunk = parts > 1 ? div_up(div_up(length, parts), vec) * vec : length;
    parts = div_up(length, chunk);
    cl_uint team = (cl_uint)rows_accumulator_team(p, chunk);
    cl_uint per_group = (cl_uint)(p->work_group_size / team);
    cl_ulong items = (cl_ulong)r->rows * parts, in_off = r->input_offset, len = length,
             pitch = request_input_pitch(r), parts64 = parts, chunk64 = chunk,
             rows = r->rows;
    cl_mem partials = NULL;
    clreduce_status status = CLREDUCE_SUCCESS;
    if (parts > 1)
        status = create_temp(ctx, c, r->num_ops * items * ACCUMULATOR_MAX, &partials);
    if (status == CLREDUCE_SUCCESS) {
        kernel_arg args[] = {ARG(r->input), ARG(in_off),  ARG(items),   ARG(len),
                             ARG(pitch),    ARG(parts64), ARG(chunk64), ARG(r->output),
                             at_arg,        ARG(partials), ARG(team),   ARG(per_group)};
        if (parts > 1)
            chain_intermediate(c); /* the finish follows */
        status = enqueue_kernel_args(ctx, c, k, 0, div_up(items, per_group), p->work_group_size,
                                     args, 12);
    }
    if (status == CLREDUCE_SUCCESS && parts > 1) {
        size_t fill = (size_t)ctx->info.compute_units * p->t.groups_per_compute_unit;
        kernel_arg args[] = {ARG(partials), ARG(rows), ARG(parts64), ARG(r->output), at_arg};
        status = enqueue_kernel_args(ctx, c, k, 1, r->rows < fill ? r->rows : fill,
                                     p->work_group_size, args, 5);
    }
    if (partials)
        clReleaseMemObject(partials); /* deleted once the commands using it are done */
    return status;
}

/* The records' places, counted in records, sharing no byte with the rows'
 * span or the segments' input. */
static clreduce_status records_check_outputs(clreduce_ctx *ctx, const request *r, const plan *p)
{
    size_t size;
    clreduce_status status = mem_size(ctx, r->output, "result", &size);
    if (status != CLREDUCE_SUCCESS)
        return status;
    size_t records = size / p->output_size;
    if (r->output_offset > records || r->rows > records - r->output_offset)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "result_offset %zu: records [%zu, %zu + %zu) lie past the end of result "
                         "(%zu records of %zu bytes)",
                         r->output_offset, r->output_offset, r->output_offset, r->rows, records,
                         p->output_size);
    return check_disjoint(ctx, r->input, r->index ? "the input range" : "the rows' span",
                          r->input_offset * p->element_size,
                          r->count * p->element_size, r->output, "the records",
                          r->output_offset * p->output_size, r->rows * p->output_size);
}

static const op_family rows_multi_reductions = {
    .output_name = "result", .output_offset_name = "result_offset", .host_input_name = "data",
    .index_name = NULL, .outputs = OUTPUT_PER_ROW, .in_place = 0,
    .plan = rows_multi_plan, .enqueue_empty = enqueue_empty_rows, .enqueue = rows_multi_enqueue,
    .check_outputs = records_check_outputs,
};

/* Segments: segment_layouts.c's chunks of elements, a work-group each (the heads
 * of the chunks by every operator, then the records of the segments each
 * chunk owns). */
static clreduce_status segments_multi_enqueue(clreduce_ctx *ctx, chain *c, const request *r,
                                              const plan *p, cached_kernel *k, int in_order)
{
    (void)in_order;
    cl_ulong at[MULTI_MAX + 1];
    kernel_arg at_arg = record_places(r, p, at);
    size_t chunk = p->work_group_size * SEGMENT_ACCUMULATOR_LANE_VECTORS * p->t.vector_width;
    size_t chunks = div_up(r->count, chunk);
    /* One temporary buffer: each operator's heads of the chunks, then the
     * chunks' first segments (64-bit, from element starts_off). */
    size_t starts_off = r->num_ops * chunks * ACCUMULATOR_MAX / sizeof(cl_ulong);
    cl_mem heads;
    clreduce_status status =
        create_temp(ctx, c, (starts_off + chunks) * sizeof(cl_ulong), &heads);
    if (status != CLREDUCE_SUCCESS)
        return status;
    cl_ulong in_off = r->input_offset, count = r->count, offsets_off = r->index_offset,
             segments = r->rows, chunk64 = chunk, chunks64 = chunks, starts_off64 = starts_off;
    kernel_arg head_args[] = {ARG(r->input), ARG(in_off),   ARG(count), ARG(r->index),
                              ARG(offsets_off), ARG(segments), ARG(heads), ARG(chunk64),
                              ARG(heads),     ARG(starts_off64)};
    kernel_arg segment_args[] = {ARG(r->input),     ARG(in_off),   ARG(count),
                                 ARG(r->index),     ARG(offsets_off), ARG(segments),
                                 ARG(r->output),    at_arg,        ARG(heads),
                                 ARG(chunk64),      ARG(chunks64), ARG(heads),
                                 ARG(starts_off64)};
    chain_intermediate(c); /* the segments kernel follows */
    status = enqueue_kernel_args(ctx, c, k, 0, chunks, p->work_group_size, head_args, 10);
    if (status == CLREDUCE_SUCCESS)
        status = enqueue_kernel_args(ctx, c, k, 1, chunks, p->work_group_size, segment_args, 13);
    clReleaseMemObject(heads); /* deleted once the commands using it are done */
    return status;
}

static const op_family segments_multi_reductions = {
    .output_name = "result", .output_offset_name = "result_offset", .host_input_name = "data",
    .index_name = "offsets", .outputs = OUTPUT_PER_ROW, .in_place = 0,
    .plan = segments_multi_plan, .enqueue_empty = enqueue_empty_rows,
    .enqueue = segments_multi_enqueue, .check_outputs = records_check_outputs,
};

/* ---- API ------------------------------------------------------------------------------- */

clreduce_status clreduce_get_operators_tuning(const clreduce_ctx *ctx, const clreduce_op *ops,
                                              size_t num_ops, clreduce_type type,
                                              clreduce_settings *out)
{
    /* Nothing is written to *out unless every argument is good. */
    clreduce_settings s;
    clreduce_status status = clreduce_get_tuning(ctx, type, out ? &s : NULL);
    if (status != CLREDUCE_SUCCESS ||
        (status = multi_check_ops(ctx, ops, num_ops, type, 1)) != CLREDUCE_SUCCESS)
        return status;
    tuning t = *CONTEXT_TUNING(ctx, clreduce_type_size(type));
    tuning_for_operators(&ctx->info, &ctx->settings, ops, num_ops, type, 0, &t);
    s.work_group_size = t.work_group_size;
    s.groups_per_compute_unit = t.groups_per_compute_unit;
    s.loads_per_work_item = t.loads_per_work_item;
    s.vector_width = t.vector_width;
    *out = s;
    return CLREDUCE_SUCCESS;
}

clreduce_status clreduce_reduce_multi_profiled(clreduce_ctx *ctx, cl_command_queue queue,
                                               const clreduce_op *ops, size_t num_ops,
                                               clreduce_type type, clreduce_variant variant,
                                               cl_mem input, size_t offset, size_t count,
                                               cl_mem result, const size_t *result_offsets,
                                               cl_uint num_wait, const cl_event *wait,
                                               cl_event *first, cl_event *done)
{
    request r = {.queue = queue, .type = type, .variant = (int)variant, .input = input,
                 .input_offset = offset, .count = count, .output = result,
                 .num_wait = num_wait, .wait = wait, .ops = ops, .num_ops = num_ops,
                 .result_offsets = result_offsets};
    return request_enqueue(ctx, &multi_reductions, &r, first, done);
}

clreduce_status clreduce_reduce_multi(clreduce_ctx *ctx, cl_command_queue queue,
                                      const clreduce_op *ops, size_t num_ops, clreduce_type type,
                                      clreduce_variant variant, cl_mem input, size_t offset,
                                      size_t count, cl_mem result, const size_t *result_offsets,
                                      cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    return clreduce_reduce_multi_profiled(ctx, queue, ops, num_ops, type, variant, input, offset,
                                          count, result, result_offsets, num_wait, wait, NULL,
                                          done);
}

size_t clreduce_multi_record(const clreduce_op *ops, size_t num_ops, clreduce_type type,
                             size_t *offsets)
{
    if (multi_check_ops(NULL, ops, num_ops, type, 0) != CLREDUCE_SUCCESS)
        return 0;
    size_t at[MULTI_MAX];
    size_t size = record_layout(ops, num_ops, type, at);
    if (offsets)
        memcpy(offsets, at, num_ops * sizeof *at);
    return size;
}

clreduce_status clreduce_reduce_rows_multi_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, const clreduce_op *ops, size_t num_ops,
    clreduce_type type, cl_mem input, size_t offset, size_t rows, size_t row_length,
    size_t row_pitch, cl_mem result, size_t result_offset, cl_uint num_wait, const cl_event *wait,
    cl_event *first, cl_event *done)
{
    request r = rows_request(queue, CLREDUCE_OP_SUM, type, input, offset, rows, row_length,
                             row_pitch, result, result_offset, num_wait, wait);
    r.ops = ops;
    r.num_ops = num_ops;
    return request_enqueue(ctx, &rows_multi_reductions, &r, first, done);
}

clreduce_status clreduce_reduce_rows_multi(clreduce_ctx *ctx, cl_command_queue queue,
                                           const clreduce_op *ops, size_t num_ops,
                                           clreduce_type type, cl_mem input, size_t offset,
                                           size_t rows, size_t row_length, size_t row_pitch,
                                           cl_mem result, size_t result_offset, cl_uint num_wait,
                                           const cl_event *wait, cl_event *done)
{
    return clreduce_reduce_rows_multi_profiled(ctx, queue, ops, num_ops, type, input, offset,
                                               rows, row_length, row_pitch, result,
                                               result_offset, num_wait, wait, NULL, done);
}

clreduce_status clreduce_reduce_rows_multi_host(clreduce_ctx *ctx, const clreduce_op *ops,
                                                size_t num_ops, clreduce_type type,
                                                const void *data, size_t rows,
                                                size_t row_length, size_t row_pitch,
                                                void *results)
{
    request r = rows_request(NULL, CLREDUCE_OP_SUM, type, NULL, 0, rows, row_length, row_pitch,
                             NULL, 0, 0, NULL);
    r.ops = ops;
    r.num_ops = num_ops;
    return request_host(ctx, &rows_multi_reductions, &r, data, results);
}

clreduce_status clreduce_reduce_segments_multi_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, const clreduce_op *ops, size_t num_ops,
    clreduce_type type, cl_mem input, size_t offset, size_t count, cl_mem offsets,
    size_t offsets_offset, clreduce_type offsets_type, size_t segments, cl_mem result,
    size_t result_offset, cl_uint num_wait, const cl_event *wait, cl_event *first,
    cl_event *done)
{
    request r = segments_request(queue, CLREDUCE_OP_SUM, type, input, offset, count, offsets,
                                 offsets_offset, offsets_type, segments, result, result_offset,
                                 num_wait, wait);
    r.ops = ops;
    r.num_ops = num_ops;
    return request_enqueue(ctx, &segments_multi_reductions, &r, first, done);
}

clreduce_status clreduce_reduce_segments_multi(
    clreduce_ctx *ctx, cl_command_queue queue, const clreduce_op *ops, size_t num_ops,
    clreduce_type type, cl_mem input, size_t offset, size_t count, cl_mem offsets,
    size_t offsets_offset, clreduce_type offsets_type, size_t segments, cl_mem result,
    size_t result_offset, cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    return clreduce_reduce_segments_multi_profiled(ctx, queue, ops, num_ops, type, input, offset,
                                                   count, offsets, offsets_offset, offsets_type,
                                                   segments, result, result_offset, num_wait,
                                                   wait, NULL, done);
}

clreduce_status clreduce_reduce_segments_multi_host(clreduce_ctx *ctx, const clreduce_op *ops,
                                                    size_t num_ops, clreduce_type type,
                                                    const void *data, size_t count,
                                                    const void *offsets,
                                                    clreduce_type offsets_type,
                                                    size_t segments, void *results)
{
    clear_error(ctx);
    if (!ctx)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "ctx is NULL");
    /* The operator set first, as clreduce_reduce_multi_host() checks it. */
    clreduce_status status = multi_check_ops(ctx, ops, num_ops, type, 0);
    if (status != CLREDUCE_SUCCESS)
        return status;
    request r = segments_request(NULL, CLREDUCE_OP_SUM, type, NULL, 0, count, NULL, 0,
                                 offsets_type, segments, NULL, 0, 0, NULL);
    r.ops = ops;
    r.num_ops = num_ops;
    return segments_host(ctx, &segments_multi_reductions, &r, data, NULL, offsets, NULL,
                         results);
}

/* Whether host arrays [a, a + a_bytes) and [b, b + b_bytes) share a byte. */
static int host_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes)
{
    const unsigned char *pa = a, *pb = b;
    return a_bytes && b_bytes && pa < pb + b_bytes && pb < pa + a_bytes;
}

/* The results' places in host memory: none NULL, none sharing a byte with
 * another or with the data. */
static clreduce_status check_host_results(clreduce_ctx *ctx, const clreduce_op *ops,
                                          size_t num_ops, clreduce_type type, const void *data,
                                          size_t count, void *const *results)
{
    if (!results)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "results is NULL");
    size_t data_bytes = count * clreduce_type_size(type);
    for (size_t i = 0; i < num_ops; i++) {
        size_t bytes = clreduce_result_size(ops[i], type);
        if (!results[i])
            return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "results[%zu] is NULL", i);
        if (data && host_overlap(data, data_bytes, results[i], bytes))
            return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                             "results[%zu] (%s) overlaps data", i, clreduce_op_name(ops[i]));
        for (size_t j = 0; j < i; j++)
            if (host_overlap(results[i], bytes, results[j],
                             clreduce_result_size(ops[j], type)))
                return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                                 "results[%zu] (%s) and results[%zu] (%s) overlap", i,
                                 clreduce_op_name(ops[i]), j, clreduce_op_name(ops[j]));
    }
    return CLREDUCE_SUCCESS;
}

clreduce_status clreduce_reduce_multi_host(clreduce_ctx *ctx, const clreduce_op *ops,
                                           size_t num_ops, clreduce_type type,
                                           clreduce_variant variant, const void *data,
                                           size_t count, void *const *results)
{
    clear_error(ctx);
    if (!ctx)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "ctx is NULL");
    clreduce_status status = multi_check_ops(ctx, ops, num_ops, type, 0);
    if (status == CLREDUCE_SUCCESS)
        status = check_host_results(ctx, ops, num_ops, type, data, count, results);
    if (status != CLREDUCE_SUCCESS)
        return status;
    /* The results travel packed, as one output, and are copied out once
     * they all arrived. */
    size_t offsets[MULTI_MAX];
    pack_results(ops, num_ops, type, offsets);
    unsigned char packed[PLAN_OUTPUT_MAX];
    request r = {.type = type, .variant = (int)variant, .count = count, .ops = ops,
                 .num_ops = num_ops, .result_offsets = offsets};
    if ((status = request_host(ctx, &multi_reductions, &r, data, packed)) != CLREDUCE_SUCCESS)
        return status;
    for (size_t i = 0; i < num_ops; i++)
        memcpy(results[i], packed + offsets[i], clreduce_result_size(ops[i], type));
    return CLREDUCE_SUCCESS;
}
