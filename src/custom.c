/* User-defined operators: a description in OpenCL C (accumulator type,
 * identity, map, combine) becomes a few generated sources that define the
 * accumulator layer operators.cl builds its CLR_OP_CUSTOM operator on, so
 * that the operator runs in the kernels of reduce_operators.cl exactly as
 * the built-in operators do.
 *
 * Each piece of the user's text is a source string of its own that opens
 * with `#line 1 "<name>.<piece>"`, so that a compiler's positions (mapped by
 * build_log.c where the driver ignores #line) name the user's own text. At
 * creation a small probe kernel compiles the pieces, reports the
 * accumulator's size and alignment on the device, and writes the identity,
 * which a reduction of no element stores. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "families.h"

/* The pieces of the generated source, in program order. */
enum {
    PIECE_HEADER,     /* the CLR_U_* parameters */
    PIECE_ACC_SOURCE, /* the user's definitions (may be empty) */
    PIECE_TYPEDEF,
    PIECE_ACC_TYPE,
    PIECE_IDENTITY_OPEN,
    PIECE_IDENTITY,
    PIECE_MAP_OPEN,
    PIECE_MAP,
    PIECE_COMBINE_OPEN,
    PIECE_COMBINE,
    PIECE_CLOSE,
    PIECES
};

/* contract.h, the pieces, then types.cl, operators.cl, grid_walk.cl,
 * grid_accumulators.cl, device_order.cl and reduce_operators.cl. */
#define SOURCES_MAX (1 + PIECES + 6)

/* The programs of rows and segments for the built-in operators; an operator
 * builds its own of each: contract.h, its pieces, then the others'
 * sources after contract.h (at most BATCHED_SOURCES_MAX in all). */
#define BATCHED_PROGRAMS 2
#define BATCHED_SOURCES_MAX (PIECES + 8)
static const program_spec *const batched_bases[BATCHED_PROGRAMS] = {
    &operator_rows_program, &operator_segments_program};

struct clreduce_operator {
    clreduce_ctx *ctx;
    atomic_uint references;
    char name[CLREDUCE_OPERATOR_NAME_MAX + 1];
    clreduce_type type;
    unsigned inputs;
    int has_identity;
    int commutative;
    size_t acc_size;
    unsigned char identity[CLREDUCE_OPERATOR_ACC_MAX];
    char *pieces[PIECES];
    const char *grid_sources[SOURCES_MAX];
    const char *ordered_sources[SOURCES_MAX];
    char kernel_name[CLREDUCE_OPERATOR_NAME_MAX + 16];
    char finish_name[CLREDUCE_OPERATOR_NAME_MAX + 24];
    const char *kernels[2];
    const char *scan_sources[SOURCES_MAX];
    program_spec grid_program;
    program_spec single_pass_program;
    program_spec scan_program;
    const char *batched_sources[BATCHED_PROGRAMS][BATCHED_SOURCES_MAX];
    program_spec batched_programs[BATCHED_PROGRAMS]; /* of batched_bases */
};

/* The OpenCL C type of the map's x and y, by input type: the storage types
 * are read as floats. */
static const char *const type_names[] = {"float", "double", "int",   "uint",
                                         "long",  "ulong",  "float", "float"};

/* ---- description --------------------------------------------------------------- */

static int is_name(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return 0;
    for (s++; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return 0;
    return 1;
}

static size_t round_up(size_t n, size_t to)
{
    return div_up(n, to) * to;
}

/* Bytes of the kernels' accumulator: the user's, with a flag beside it when
 * there is no identity (operators.cl). */
static size_t kernel_accumulator_size(const clreduce_operator_desc *d)
{
    if (d->identity)
        return d->acc_size;
    size_t align = d->acc_align > 4 ? d->acc_align : 4;
    return round_up(round_up(d->acc_size, 4) + 4, align);
}

static clreduce_status check_desc(clreduce_ctx *ctx, const clreduce_operator_desc *d)
{
    if (!d->name)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "operator name is NULL");
    if (!is_name(d->name) || strlen(d->name) > CLREDUCE_OPERATOR_NAME_MAX)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "operator name \"%.80s\" is not an identifier of 1 to %d characters "
                         "([A-Za-z_][A-Za-z0-9_]*)",
                         d->name, CLREDUCE_OPERATOR_NAME_MAX);
    const char *n = d->name;
    if ((unsigned)d->input_type > CLREDUCE_BFLOAT16)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "operator %s: unknown input_type %d",
                         n, (int)d->input_type);
    if (d->input_type == CLREDUCE_DOUBLE && !ctx->info.has_fp64)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "operator %s: double needs cl_khr_fp64, which device \"%s\" lacks", n,
                         ctx->info.name);
    if (d->inputs != 1 && d->inputs != 2)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "operator %s: inputs is %u, not 1 or 2", n, d->inputs);
    const char *missing = !d->acc_type  ? "acc_type"
                          : !d->map     ? "map"
                          : !d->combine ? "combine"
                                        : NULL;
    if (missing)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "operator %s: %s is NULL", n,
                         missing);
    if (!d->acc_type[0] || !d->map[0] || !d->combine[0] || (d->identity && !d->identity[0]))
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "operator %s: %s is empty", n,
                         !d->acc_type[0] ? "acc_type" : !d->map[0] ? "map"
                         : !d->combine[0] ? "combine" : "identity");
    if (d->acc_size == 0 || d->acc_size > CLREDUCE_OPERATOR_ACC_MAX)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "operator %s: acc_size is %zu, not 1 to %d bytes", n, d->acc_size,
                         CLREDUCE_OPERATOR_ACC_MAX);
    if (d->acc_align == 0 || (d->acc_align & (d->acc_align - 1)) != 0 ||
        d->acc_size % d->acc_align != 0)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "operator %s: acc_align is %zu, not a power of two that divides acc_size "
                         "(%zu)",
                         n, d->acc_align, d->acc_size);
    if (kernel_accumulator_size(d) > CLREDUCE_OPERATOR_ACC_MAX)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "operator %s: an accumulator of %zu bytes without an identity needs %zu "
                         "bytes with its flag, more than %d: give an identity or a smaller "
                         "accumulator",
                         n, d->acc_size, kernel_accumulator_size(d), CLREDUCE_OPERATOR_ACC_MAX);
    return CLREDUCE_SUCCESS;
}

/* ---- generated source ---------------------------------------------------------- */

/* A piece: `#line 1 "<name><suffix>"`, then the text, then a newline, so
 * that the next piece's #line starts a line. */
static char *make_piece(const char *name, const char *suffix, const char *text)
{
    size_t size = strlen(name) + strlen(suffix) + strlen(text) + 16;
    char *s = malloc(size);
    if (s)
        snprintf(s, size, "#line 1 \"%s%s\"\n%s\n", name, suffix, text);
    return s;
}

static int make_pieces(clreduce_operator *op, const clreduce_operator_desc *d)
{
    const char *n = d->name, *t = type_names[d->input_type];
    char header[1024], map_open[256], identity_open[128];
    snprintf(header, sizeof header,
             "#ifdef cl_khr_fp64\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#endif\n"
             "#define CLR_U_INPUTS %u\n#define CLR_U_HAS_IDENTITY %d\n"
             "#define CLR_U_COMMUTATIVE %d\n#define CLR_U_KERNEL %s\n"
             "#define CLR_U_FINISH_KERNEL %s",
             d->inputs, d->identity != NULL, d->commutative != 0, op->kernel_name,
             op->finish_name);
    /* The typedef's name follows the type on a line of its own. */
    snprintf(identity_open, sizeof identity_open, "clr_u;%s",
             d->identity ? "\nclr_u clr_u_identity(void)\n{\n    return (" : "");
    /* One input: y is not a name the map can use. */
    snprintf(map_open, sizeof map_open, "%sclr_u clr_u_map(%s x, %s %s, ulong i)\n{\n    return (",
             d->identity ? ");\n}\n" : "", t, t, d->inputs == 2 ? "y" : "clr_u_unused_y");
    const char *texts[PIECES] = {
        [PIECE_HEADER] = header,
        [PIECE_ACC_SOURCE] = d->acc_source ? d->acc_source : "",
        [PIECE_TYPEDEF] = "typedef",
        [PIECE_ACC_TYPE] = d->acc_type,
        [PIECE_IDENTITY_OPEN] = identity_open,
        [PIECE_IDENTITY] = d->identity ? d->identity : "",
        [PIECE_MAP_OPEN] = map_open,
        [PIECE_MAP] = d->map,
        [PIECE_COMBINE_OPEN] = ");\n}\nclr_u clr_u_combine(clr_u a, clr_u b)\n{\n    return (",
        [PIECE_COMBINE] = d->combine,
        [PIECE_CLOSE] = ");\n}",
    };
    static const char *const suffixes[PIECES] = {
        [PIECE_HEADER] = "",
        [PIECE_ACC_SOURCE] = ".acc_source",
        [PIECE_TYPEDEF] = "",
        [PIECE_ACC_TYPE] = ".acc_type",
        [PIECE_IDENTITY_OPEN] = "",
        [PIECE_IDENTITY] = ".identity",
        [PIECE_MAP_OPEN] = "",
        [PIECE_MAP] = ".map",
        [PIECE_COMBINE_OPEN] = "",
        [PIECE_COMBINE] = ".combine",
        [PIECE_CLOSE] = "",
    };
    for (int i = 0; i < PIECES; i++)
        if (!(op->pieces[i] = make_piece(n, suffixes[i], texts[i])))
            return 0;
    return 1;
}

static void fill_specs(clreduce_operator *op)
{
    size_t k = 0;
    op->grid_sources[k] = clreduce_cl_contract;
    op->ordered_sources[k++] = clreduce_cl_contract;
    for (int i = 0; i < PIECES; i++, k++)
        op->grid_sources[k] = op->ordered_sources[k] = op->pieces[i];
    op->grid_sources[k] = op->ordered_sources[k] = clreduce_cl_types;
    k++;
    op->grid_sources[k] = op->ordered_sources[k] = clreduce_cl_operators;
    k++;
    for (size_t j = 0; j < k; j++)
        op->scan_sources[j] = op->grid_sources[j];
    op->scan_sources[k] = clreduce_cl_scan_operators;
    op->scan_program = (program_spec){op->scan_sources, k + 1, operator_scan_kernels, 4, 0};
    op->grid_sources[k] = op->ordered_sources[k] = clreduce_cl_grid_walk;
    k++;
    op->grid_sources[k] = op->ordered_sources[k] = clreduce_cl_grid_accumulators;
    k++;
    op->grid_sources[k] = clreduce_cl_reduce_operators;
    op->ordered_sources[k] = clreduce_cl_device_order;
    op->ordered_sources[k + 1] = clreduce_cl_reduce_operators;
    op->kernels[0] = op->kernel_name;
    op->kernels[1] = op->finish_name;
    op->grid_program = (program_spec){op->grid_sources, k + 1, op->kernels, 2, 0};
    op->single_pass_program = (program_spec){op->ordered_sources, k + 2, op->kernels, 1, 1};
    for (size_t b = 0; b < BATCHED_PROGRAMS; b++) {
        const program_spec *base = batched_bases[b];
        const char **sources = op->batched_sources[b];
        size_t n = 0;
        sources[n++] = clreduce_cl_contract;
        for (int i = 0; i < PIECES; i++)
            sources[n++] = op->pieces[i];
        for (size_t j = 1; j < base->nsources && n < BATCHED_SOURCES_MAX; j++)
            sources[n++] = base->sources[j];
        op->batched_programs[b] =
            (program_spec){sources, n, base->kernels, base->nkernels, base->orders_device};
    }
}

/* ---- probe ----------------------------------------------------------------------- */

static const char probe_source[] =
    "#line 1 \"clreduce operator probe\"\n"
    "kernel void clr_u_probe(global ulong *facts, global clr_u *identity)\n"
    "{\n"
    "    facts[0] = sizeof(clr_u);\n"
    "    facts[1] = __alignof__(clr_u);\n"
    "#if CLR_U_HAS_IDENTITY\n"
    "    identity[0] = clr_u_identity();\n"
    "#endif\n"
    "}\n";

/* Compiles the pieces with the probe kernel and runs it: the accumulator's
 * size and alignment on the device into facts, its identity into
 * op->identity. */
static clreduce_status run_probe(clreduce_ctx *ctx, clreduce_operator *op, cl_ulong facts[2])
{
    const char *sources[1 + PIECES + 1];
    sources[0] = clreduce_cl_contract;
    for (int i = 0; i < PIECES; i++)
        sources[1 + i] = op->pieces[i];
    sources[1 + PIECES] = probe_source;
    const cl_uint nsources = 1 + PIECES + 1;

    cl_int err;
    cl_program program = clCreateProgramWithSource(ctx->context, nsources, sources, NULL, &err);
    if (err != CL_SUCCESS)
        return set_error(ctx, status_from_cl(err), "clCreateProgramWithSource failed: %s",
                         cl_error_name(err));
    const char *options = ctx->settings.build_options ? ctx->settings.build_options : "";
    err = clBuildProgram(program, 1, &ctx->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        clreduce_status status = err == CL_BUILD_PROGRAM_FAILURE ? CLREDUCE_ERROR_BUILD
                                                                 : status_from_cl(err);
        set_error(ctx, status, "operator %s did not compile (%s)", op->name, cl_error_name(err));
        append_build_log(ctx, program, sources, nsources);
        clReleaseProgram(program);
        return status;
    }
    clreduce_status status = CLREDUCE_SUCCESS;
    cl_kernel kernel = clCreateKernel(program, "clr_u_probe", &err);
    cl_mem facts_mem = NULL, identity_mem = NULL;
    cl_command_queue queue;
    if (err == CL_SUCCESS)
        facts_mem = clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, 2 * sizeof(cl_ulong), NULL,
                                   &err);
    if (err == CL_SUCCESS)
        identity_mem = clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY,
                                      CLREDUCE_OPERATOR_ACC_MAX * 2, NULL, &err);
    if (err == CL_SUCCESS && (status = context_own_queue(ctx, &queue)) == CLREDUCE_SUCCESS) {
        size_t one = 1;
        if ((err = clSetKernelArg(kernel, 0, sizeof facts_mem, &facts_mem)) == CL_SUCCESS &&
            (err = clSetKernelArg(kernel, 1, sizeof identity_mem, &identity_mem)) == CL_SUCCESS &&
            (err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL)) ==
                CL_SUCCESS &&
            (err = clEnqueueReadBuffer(queue, facts_mem, CL_TRUE, 0, 2 * sizeof(cl_ulong), facts,
                                       0, NULL, NULL)) == CL_SUCCESS &&
            facts[0] <= CLREDUCE_OPERATOR_ACC_MAX * 2 && op->has_identity)
            err = clEnqueueReadBuffer(queue, identity_mem, CL_TRUE, 0, op->acc_size, op->identity,
                                      0, NULL, NULL);
    }
    if (status == CLREDUCE_SUCCESS && err != CL_SUCCESS)
        status = set_error(ctx, status_from_cl(err), "running operator %s's probe failed: %s",
                           op->name, cl_error_name(err));
    if (identity_mem)
        clReleaseMemObject(identity_mem);
    if (facts_mem)
        clReleaseMemObject(facts_mem);
    if (kernel)
        clReleaseKernel(kernel);
    clReleaseProgram(program);
    return status;
}

/* ---- create and release --------------------------------------------------------- */

static void free_operator(clreduce_operator *op)
{
    for (int i = 0; i < PIECES; i++)
        free(op->pieces[i]);
    free(op);
}

clreduce_status clreduce_operator_create(clreduce_ctx *ctx, const clreduce_operator_desc *desc,
                                         clreduce_operator **out)
{
    clear_error(ctx);
    if (!ctx)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "ctx is NULL");
    if (!out)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!desc)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "desc is NULL");
    clreduce_status status = check_desc(ctx, desc);
    if (status != CLREDUCE_SUCCESS)
        return status;

    clreduce_operator *op = calloc(1, sizeof *op);
    if (!op)
        return set_error(ctx, CLREDUCE_ERROR_OUT_OF_MEMORY, "out of host memory");
    op->ctx = ctx;
    atomic_init(&op->references, 1);
    snprintf(op->name, sizeof op->name, "%s", desc->name);
    op->type = desc->input_type;
    op->inputs = desc->inputs;
    op->has_identity = desc->identity != NULL;
    op->commutative = desc->commutative != 0;
    op->acc_size = desc->acc_size;
    snprintf(op->kernel_name, sizeof op->kernel_name, "clr_reduce_%s", desc->name);
    snprintf(op->finish_name, sizeof op->finish_name, "clr_reduce_%s_finish", desc->name);
    if (!make_pieces(op, desc)) {
        free_operator(op);
        return set_error(ctx, CLREDUCE_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    fill_specs(op);

    cl_ulong facts[2] = {0, 0};
    if ((status = run_probe(ctx, op, facts)) != CLREDUCE_SUCCESS) {
        free_operator(op);
        return status;
    }
    if (facts[0] != desc->acc_size || facts[1] != desc->acc_align) {
        free_operator(op);
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "operator %s: acc_size %zu and acc_align %zu disagree with the device's "
                         "sizeof(%s) = %llu and alignment %llu",
                         desc->name, desc->acc_size, desc->acc_align, desc->acc_type,
                         (unsigned long long)facts[0], (unsigned long long)facts[1]);
    }
    *out = op;
    return CLREDUCE_SUCCESS;
}

clreduce_operator *clreduce_operator_retain(clreduce_operator *op)
{
    if (op)
        atomic_fetch_add(&op->references, 1);
    return op;
}

void clreduce_operator_release(clreduce_operator *op)
{
    if (!op || atomic_fetch_sub(&op->references, 1) != 1)
        return;
    /* No call holds the operator: its programs go with it, so that operators
     * made and dropped do not grow the context's cache. Commands already
     * enqueued keep their kernels (the runtime retains them). */
    program_cache_drop(op->ctx, &op->grid_program);
    program_cache_drop(op->ctx, &op->single_pass_program);
    program_cache_drop(op->ctx, &op->scan_program);
    for (size_t b = 0; b < BATCHED_PROGRAMS; b++)
        program_cache_drop(op->ctx, &op->batched_programs[b]);
    free_operator(op);
}

size_t clreduce_operator_result_size(const clreduce_operator *op)
{
    return op ? op->acc_size : 0;
}

/* ---- plan and launches ------------------------------------------------------------ */

/* Work-groups combine accumulators of up to CLREDUCE_OPERATOR_ACC_MAX bytes
 * in local memory, as the built-in operators' do (fit_accumulators()). */
typedef char clr_custom_accumulators_fit[CLREDUCE_OPERATOR_ACC_MAX <= ACCUMULATOR_MAX ? 1 : -1];

/* A user operator's plan starts as that of a sum of its input type. */
static clreduce_status plan_start_custom(clreduce_ctx *ctx, const request *r, plan *p)
{
    request as_sum = *r;
    as_sum.op = CLREDUCE_OP_SUM;
    as_sum.type = r->custom->type;
    return plan_start(ctx, &as_sum, p);
}

static clreduce_status custom_plan(clreduce_ctx *ctx, const request *r, plan *p)
{
    const clreduce_operator *op = r->custom;
    if ((unsigned)r->variant >= CLREDUCE_VARIANT_COUNT)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "unknown variant %d", r->variant);
    clreduce_status status = plan_start_custom(ctx, r, p);
    if (status != CLREDUCE_SUCCESS)
        return status;
    if (r->count == 0 && !op->has_identity)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "operator %s has no identity: a reduction of no element has no result",
                         op->name);
    clreduce_variant v = r->variant == CLREDUCE_AUTO ? clreduce_auto_variant(ctx, op->type)
                                                     : (clreduce_variant)r->variant;
    if (v != CLREDUCE_GRID_STRIDE && v != CLREDUCE_SINGLE_PASS)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "operator %s runs on variants auto, grid_stride and single_pass, not %s",
                         op->name, clreduce_variant_name(v));
    p->op = (clreduce_op)CLR_OP_CUSTOM;
    p->variant = v;
    fit_accumulators(ctx, p);
    p->work_group_size = p->t.work_group_size;
    p->unroll = p->t.loads_per_work_item;
    p->program = v == CLREDUCE_SINGLE_PASS ? &op->single_pass_program : &op->grid_program;
    p->path = CLREDUCE_SUBGROUP_PATH_NONE;
    p->output_size = op->acc_size;
    memcpy(p->empty_output, op->identity, op->acc_size);
    grid_defines(p, v);
    return CLREDUCE_SUCCESS;
}

/* A reduction of no element stores the identity. */
static clreduce_status custom_enqueue_empty(clreduce_ctx *ctx, chain *c, const request *r,
                                            const plan *p, int wants_event)
{
    (void)wants_event;
    return enqueue_empty_results(ctx, c, r->output, p, r->output_offset, 1);
}

const op_family custom_reductions = {
    .output_name = "result", .output_offset_name = "result_offset", .host_input_name = "data",
    .outputs = OUTPUT_ONE, .in_place = 0, .two_inputs = 0,
    .plan = custom_plan, .enqueue_empty = custom_enqueue_empty, .enqueue = operator_enqueue,
};

static const op_family custom_reductions_two = {
    .output_name = "result", .output_offset_name = "result_offset", .host_input_name = "data",
    .outputs = OUTPUT_ONE, .in_place = 0, .two_inputs = 1,
    .plan = custom_plan, .enqueue_empty = custom_enqueue_empty, .enqueue = operator_enqueue,
};

clreduce_status custom_check_operator(clreduce_ctx *ctx, const clreduce_operator *op,
                                      int has_input2, const char *input2_name,
                                      custom_facts *facts)
{
    clear_error(ctx);
    if (!ctx)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "ctx is NULL");
    if (!op)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT, "op is NULL");
    if (op->ctx != ctx)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "operator %s belongs to another context", op->name);
    if (op->inputs == 1 && has_input2)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "operator %s has one input: %s must be NULL", op->name, input2_name);
    if (facts)
        *facts = (custom_facts){op->name, op->type, op->inputs == 2, op->has_identity};
    return CLREDUCE_SUCCESS;
}

clreduce_status clreduce_reduce_custom_profiled(clreduce_ctx *ctx, cl_command_queue queue,
                                                clreduce_operator *op, clreduce_variant variant,
                                                cl_mem input, size_t offset, cl_mem input2,
                                                size_t offset2, size_t count, cl_mem result,
                                                size_t result_offset, cl_uint num_wait,
                                                const cl_event *wait, cl_event *first,
                                                cl_event *done)
{
    clreduce_status status = custom_check_operator(ctx, op, input2 != NULL, "input2", NULL);
    if (status != CLREDUCE_SUCCESS)
        return status;
    request r = {.queue = queue, .type = op->type, .variant = (int)variant, .input = input,
                 .input_offset = offset, .count = count, .output = result,
                 .output_offset = result_offset, .num_wait = num_wait, .wait = wait,
                 .input2 = input2, .input2_offset = offset2, .custom = op};
    /* Held for the call, so that a release from another thread waits for
     * the programs' last use. */
    clreduce_operator_retain(op);
    status = request_enqueue(ctx, op->inputs == 2 ? &custom_reductions_two : &custom_reductions,
                             &r, first, done);
    clreduce_operator_release(op);
    return status;
}

clreduce_status clreduce_reduce_custom(clreduce_ctx *ctx, cl_command_queue queue,
                                       clreduce_operator *op, clreduce_variant variant,
                                       cl_mem input, size_t offset, cl_mem input2,
                                       size_t offset2, size_t count, cl_mem result,
                                       size_t result_offset, cl_uint num_wait,
                                       const cl_event *wait, cl_event *done)
{
    return clreduce_reduce_custom_profiled(ctx, queue, op, variant, input, offset, input2,
                                           offset2, count, result, result_offset, num_wait, wait,
                                           NULL, done);
}

clreduce_status clreduce_reduce_custom_host(clreduce_ctx *ctx, clreduce_operator *op,
                                            clreduce_variant variant, const void *data,
                                            const void *data2, size_t count, void *result)
{
    clreduce_status status = custom_check_operator(ctx, op, data2 != NULL, "data2", NULL);
    if (status != CLREDUCE_SUCCESS)
        return status;
    request r = {.type = op->type, .variant = (int)variant, .count = count, .custom = op};
    clreduce_operator_retain(op);
    status = request_host_two(ctx, op->inputs == 2 ? &custom_reductions_two : &custom_reductions,
                              &r, data, data2, result);
    clreduce_operator_release(op);
    return status;
}

/* ---- rows and segments ---------------------------------------------------------------- */

clreduce_status plan_custom_teams(clreduce_ctx *ctx, const request *r, plan *p,
                                  const char *family, const program_spec *base)
{
    const clreduce_operator *op = r->custom;
    if (!op->has_identity && r->rows > 0 && r->count == 0)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "%soperator %s has no identity: results of no element (row_length or "
                         "count 0) have none",
                         family, op->name);
    p->program = NULL;
    for (size_t b = 0; b < BATCHED_PROGRAMS; b++)
        if (batched_bases[b] == base)
            p->program = &op->batched_programs[b];
    if (!p->program)
        return set_error(ctx, CLREDUCE_ERROR_UNSUPPORTED,
                         "%soperator %s has no kernels of this family", family, op->name);
    p->op = (clreduce_op)CLR_OP_CUSTOM;
    fit_accumulators(ctx, p);
    p->path = CLREDUCE_SUBGROUP_PATH_NONE;
    p->output_size = op->acc_size;
    memcpy(p->empty_output, op->identity, op->acc_size);
    defines_add(&p->family_defines, "CLR_RESULT_SIZE", (long long)p->output_size);
    return CLREDUCE_SUCCESS;
}

/* ---- scans ------------------------------------------------------------------------ */

clreduce_status custom_scan_plan(clreduce_ctx *ctx, const request *r, plan *p)
{
    const clreduce_operator *op = r->custom;
    clreduce_status status = operator_scan_check(ctx, r, op->name);
    if (status == CLREDUCE_SUCCESS)
        status = plan_start_custom(ctx, r, p);
    if (status != CLREDUCE_SUCCESS)
        return status;
    if (r->kind == CLREDUCE_EXCLUSIVE && !op->has_identity)
        return set_error(ctx, CLREDUCE_ERROR_INVALID_ARGUMENT,
                         "operator %s has no identity: an exclusive scan starts from one",
                         op->name);
    p->op = (clreduce_op)CLR_OP_CUSTOM;
    p->program = &op->scan_program;
    p->output_size = op->acc_size;
    defines_add(&p->family_defines, "CLR_RESULT_SIZE", (long long)p->output_size);
    operator_scan_finish_plan(ctx, r, p);
    return CLREDUCE_SUCCESS;
}

const op_family custom_scans = {
    .output_name = "output", .output_offset_name = "output_offset", .host_input_name = "input",
    .outputs = OUTPUT_PER_ELEMENT, .in_place = 0, .two_inputs = 0,
    .plan = custom_scan_plan, .enqueue_empty = enqueue_nothing,
    .enqueue = operator_scan_enqueue,
};

static const op_family custom_scans_two = {
    .output_name = "output", .output_offset_name = "output_offset", .host_input_name = "input",
    .outputs = OUTPUT_PER_ELEMENT, .in_place = 0, .two_inputs = 1,
    .plan = custom_scan_plan, .enqueue_empty = enqueue_nothing,
    .enqueue = operator_scan_enqueue,
};

clreduce_status clreduce_scan_custom_profiled(
    clreduce_ctx *ctx, cl_command_queue queue, clreduce_operator *op, clreduce_scan_kind kind,
    clreduce_scan_variant variant, cl_mem input, size_t input_offset, cl_mem input2,
    size_t input2_offset, size_t count, cl_mem output, size_t output_offset, cl_uint num_wait,
    const cl_event *wait, cl_event *first, cl_event *done)
{
    clreduce_status status = custom_check_operator(ctx, op, input2 != NULL, "input2", NULL);
    if (status != CLREDUCE_SUCCESS)
        return status;
    request r = {.queue = queue, .type = op->type, .variant = (int)variant, .kind = (int)kind,
                 .input = input, .input_offset = input_offset, .count = count, .output = output,
                 .output_offset = output_offset, .num_wait = num_wait, .wait = wait,
                 .input2 = input2, .input2_offset = input2_offset, .custom = op};
    clreduce_operator_retain(op);
    status = request_enqueue(ctx, op->inputs == 2 ? &custom_scans_two : &custom_scans, &r, first,
                             done);
    clreduce_operator_release(op);
    return status;
}

clreduce_status clreduce_scan_custom(clreduce_ctx *ctx, cl_command_queue queue,
                                     clreduce_operator *op, clreduce_scan_kind kind,
                                     clreduce_scan_variant variant, cl_mem input,
                                     size_t input_offset, cl_mem input2, size_t input2_offset,
                                     size_t count, cl_mem output, size_t output_offset,
                                     cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    return clreduce_scan_custom_profiled(ctx, queue, op, kind, variant, input, input_offset,
                                         input2, input2_offset, count, output, output_offset,
                                         num_wait, wait, NULL, done);
}

clreduce_status clreduce_scan_custom_host(clreduce_ctx *ctx, clreduce_operator *op,
                                          clreduce_scan_kind kind, clreduce_scan_variant variant,
                                          const void *input, const void *input2, size_t count,
                                          void *output)
{
    clreduce_status status = custom_check_operator(ctx, op, input2 != NULL, "input2", NULL);
    if (status != CLREDUCE_SUCCESS)
        return status;
    request r = {.type = op->type, .variant = (int)variant, .kind = (int)kind, .count = count,
                 .custom = op};
    clreduce_operator_retain(op);
    status = request_host_two(ctx, op->inputs == 2 ? &custom_scans_two : &custom_scans, &r,
                              input, input2, output);
    clreduce_operator_release(op);
    return status;
}
