/* Declarations the operation families share with one another (src/reduce.c
 * ... src/storage.c: what each family offers the others and the request
 * pipeline), on top of internal.h's pipeline, context and infrastructure;
 * not installed. */
#ifndef CLREDUCE_FAMILIES_H
#define CLREDUCE_FAMILIES_H

#include "internal.h"

/* ---- reduce.c, operators.c ------------------------------------------------ */

/* Bytes of the single-pass reductions' scratch on this context: the ticket,
 * then room for an accumulator of up to 32 bytes per work-group of the
 * largest grid. */
size_t single_pass_scratch_size(const clreduce_ctx *ctx);

/* Starts the family's defines of a grid-walking program (grid_walk.cl):
 * variant v and the tuning's load pattern. */
void grid_defines(plan *p, clreduce_variant v);

/* Work-groups of a grid-sized reduction of n elements. */
size_t grid_groups(const clreduce_ctx *ctx, const plan *p, size_t n);

/* Writes what a reduction of no element gives for one of those operators
 * (clreduce_result_size(op, type) bytes) to out. */
void operator_empty_result(clreduce_op op, clreduce_type type, unsigned char *out);

/* Bytes the host keeps for one accumulator of cl/operators.cl (the kernels
 * check that theirs fit). */
#define ACCUMULATOR_MAX 32

/* Halves the plan's work-group size until a work-group's accumulators of
 * ACCUMULATOR_MAX bytes fit in half of the device's local memory. */
void fit_accumulators(const clreduce_ctx *ctx, plan *p);

/* For any family that reduces with one of those operators: checks that the
 * operator is defined for the type (UNSUPPORTED otherwise, naming `family`),
 * sets the plan's output_size and empty_output to the operator's result,
 * halves the work-group size until its accumulators fit in half of local
 * memory, and appends -DCLR_RESULT_SIZE to the family options (which the
 * caller fills first). */
clreduce_status plan_operator(clreduce_ctx *ctx, const request *r, plan *p, const char *family);

/* CLREDUCE_ERROR_UNSUPPORTED for dot in a family of one input: `family`
 * ("rows", "scans") takes one, dot's call of two inputs is `call`. */
clreduce_status refuse_dot(clreduce_ctx *ctx, const char *family, const char *call);

/* The end of the rows' and segments' plans (cl/team.cl): `plain` with the
 * context's sub-group path for sum, min and max, `operators` without
 * sub-groups for the others (plan_operator()) and, built on the operator's
 * own source, for a user-defined operator (plan_custom_teams()), and the
 * tuning's work-group size and loads. */
clreduce_status plan_teams(clreduce_ctx *ctx, const request *r, plan *p, const char *family,
                           const program_spec *plain, const program_spec *operators);

/* Fills results [first, first + count) of `out` with the plan's
 * empty_output: a fill of its pattern where its size allows one (fill
 * patterns are powers of two), of zero bytes where it is all zero
 * (mean_var of double, 24 bytes), else the first result by fills and the
 * others by copies (a user's identity of 12 bytes). */
clreduce_status enqueue_empty_results(clreduce_ctx *ctx, chain *c, cl_mem out, const plan *p,
                                      size_t first, size_t count);

/* The commands of a rows or segments call over no elements: the identity in
 * every result; with no rows, nothing but a marker, when an event is
 * wanted (an op_family's enqueue_empty). */
clreduce_status enqueue_empty_rows(clreduce_ctx *ctx, chain *c, const request *r, const plan *p,
                                   int wants_event);

/* The family of the reductions with those operators (one input), and of
 * dot (two). */
extern const op_family operator_reductions;
extern const op_family dot_products;

/* The launches of those families (the grid of reduce_operators.cl), for a
 * plan whose program is built on operators.cl; also custom.c's. */
clreduce_status operator_enqueue(clreduce_ctx *ctx, chain *c, const request *r, const plan *p,
                                 cached_kernel *k, int in_order);

/* ---- scan_operators.c ------------------------------------------------------ */

/* The families of the scans with the operators past max (one input): flat,
 * and of rows (scan_rows.c's calls with those operators); and the flat
 * scan of dot products (x the input, y input2). */
extern const op_family operator_scans;
extern const op_family operator_row_scans;
extern const op_family dot_scans;

/* The kernels of cl/scan_operators.cl: the flat scan's three in the order
 * its launches take them, then the rows' (custom.c's programs built on a
 * user's operator take all four). */
extern const char *const operator_scan_kernels[4];

/* The checks of a scan over accumulators that come before its plan: a
 * known variant and kind, and a variant that scans in order (auto or
 * reduce_then_scan); `name` names the operator in the message. */
clreduce_status operator_scan_check(clreduce_ctx *ctx, const request *r, const char *name);

/* The end of such a scan's plan, once its program, output size and
 * -DCLR_RESULT_SIZE are set: the variant, the work-group size, no
 * sub-groups, -DCLR_SCAN_EXCLUSIVE. */
void operator_scan_finish_plan(const clreduce_ctx *ctx, const request *r, plan *p);

/* The launches of such a scan (reduce, scan the partials, apply):
 * op_family's enqueue. */
clreduce_status operator_scan_enqueue(clreduce_ctx *ctx, chain *c, const request *r,
                                      const plan *p, cached_kernel *k, int in_order);

/* The checks of a row scan's pitches over accumulators that come after its
 * plan: row_pitch, in elements, and output_pitch, in results, each at
 * least row_length (0: row_length) and spanning rows that fit a size_t. */
clreduce_status operator_row_scan_check_pitches(clreduce_ctx *ctx, const request *r);

/* The launch of such a row scan (cl/scan_operators.cl's clr_scan_op_rows):
 * op_family's enqueue. The rows of a second input (r->input2, for a
 * user-defined operator of two) lie at the first's pitch from
 * r->input2_offset. */
clreduce_status operator_row_scan_enqueue(clreduce_ctx *ctx, chain *c, const request *r,
                                          const plan *p, cached_kernel *k, int in_order);

/* ---- scan_rows.c ----------------------------------------------------------- */

/* The request of a row scan: the input range is the span of the input's
 * rows (0 when it overflows, which the plan reports); the output's span is
 * the pipeline's (OUTPUT_ROWS). */
request scan_rows_request(cl_command_queue queue, clreduce_op op, clreduce_type type,
                          clreduce_scan_kind kind, cl_mem input, size_t offset, size_t rows,
                          size_t row_length, size_t row_pitch, cl_mem output,
                          size_t output_offset, size_t output_pitch, cl_uint num_wait,
                          const cl_event *wait);

/* ---- rows.c ---------------------------------------------------------------- */

/* Parts per row of a rows call: several work-groups per row when the rows
 * are too few to fill the device (rows.c says when). */
size_t rows_parts(const clreduce_ctx *ctx, const plan *p, size_t rows, size_t length);
/* CLREDUCE_ERROR_INVALID_ARGUMENT, naming the pitch `pitch_name`, for a
 * pitch (0: length) below length or rows whose span overflows; `unit`
 * names what the pitch counts ("elements", "results") in the message. */
clreduce_status rows_check_pitch(clreduce_ctx *ctx, size_t rows, size_t length, size_t pitch,
                                 const char *pitch_name, const char *unit);

/* The team of work-items in local memory (cl/team.cl) for items of
 * `length` elements under plan p: the smallest power of two up to the
 * plan's work-group size that leaves each lane lane_vectors vectors at
 * most. Inline: the reproducible rows (fixed_order.c, below rows.c) size
 * their teams by it too. */
static inline size_t rows_local_team(const plan *p, size_t length, size_t lane_vectors)
{
    size_t wg = p->work_group_size, lane = lane_vectors * p->t.vector_width;
    size_t team = 1;
    while (team < wg && team * lane < length)
        team *= 2;
    return team;
}
/* The team (rows_local_team()'s kind) for items of `length` elements of an
 * operator that combines accumulators: longer lanes, since each step of the
 * combination moves a structure; on GPUs, shorter ones for the operators
 * whose accumulator is a single sum. */
size_t rows_accumulator_team(const plan *p, size_t length);
/* The team of a rows launch of plan p for items of `length` elements
 * (cl/team.cl): a power of two of work-items up to the plan's work-group
 * size, or CLR_TEAM_SUBGROUP where the plan's path has sub-groups and the
 * items are neither too short nor too long for one; *per_group receives the
 * items a work-group takes. */
void rows_team(const clreduce_ctx *ctx, const plan *p, size_t length, cl_uint *team,
               cl_uint *per_group);
/* Whether a launch of `items` rows (or parts) of `length` elements of sum,
 * min or max gives each one work-item: on CPU devices, where they still
 * make a work-group per compute unit, and for floating-point sums only
 * where a work-item's chain of additions keeps the bound (rows.c). */
int rows_by_items(const clreduce_ctx *ctx, const plan *p, size_t items, size_t length);

/* The family of rows (one input; a call of two copies it and sets
 * two_inputs), its program for the operators of cl/operators.cl (on which
 * a user-defined operator builds its own, custom.c), and the request of a
 * rows call (the input range is the span of the rows, all of size_t when
 * that overflows, which the plan reports). */
extern const op_family rows_family;
extern const program_spec operator_rows_program;
request rows_request(cl_command_queue queue, clreduce_op op, clreduce_type type, cl_mem input,
                     size_t offset, size_t rows, size_t row_length, size_t row_pitch,
                     cl_mem result, size_t result_offset, cl_uint num_wait, const cl_event *wait);

/* ---- segments.c ------------------------------------------------------------ */

/* The same for segments. */
extern const op_family segments_family;

/* ---- segment_layouts.c: the plan of a segments call ------------------------- */

extern const program_spec operator_segments_program;

/* The plan of a segments call of one input or two (dot): its program, its
 * layout and the defines that name it. */
clreduce_status segment_layouts_plan(clreduce_ctx *ctx, const request *r, plan *p);

/* The launch a plan of segment_layouts_plan() takes, and the kernels of
 * each program by their index. */
typedef enum segment_launch {
    SEGMENT_LAUNCH_CHUNKS, /* heads, then segments (reduce_segments.cl) */
    SEGMENT_LAUNCH_SINGLE, /* [the chunks' starts,] one launch (reduce_segments_single.cl) */
    SEGMENT_LAUNCH_GROUPS, /* a work-group a segment (reduce_segments_groups.cl) */
    SEGMENT_LAUNCH_ITEMS,  /* a work-item a segment (the same source) */
    SEGMENT_LAUNCH_LANES,  /* a sub-group a segment (the same source) */
} segment_launch;
enum { SEGMENTS_K_HEADS = 0, SEGMENTS_K_SEGMENTS = 1 };
enum { SEGMENTS_K_STARTS = 0, SEGMENTS_K_SINGLE = 1 };
segment_launch segment_launch_of(const plan *p);

/* Segments of a work-group where a plan takes a sub-group (or a team of
 * lanes) a segment. */
size_t segment_lanes_per_group(const clreduce_ctx *ctx, const plan *p, const request *r);

/* Elements of a chunk of the plan's layout: a work-group's share in the
 * chunks' and the single launches. */
size_t segment_chunk_elements(const clreduce_ctx *ctx, const plan *p, const request *r);

/* Whether the single launch follows a launch of the chunks' starts. */
int segment_takes_starts(const clreduce_ctx *ctx, const plan *p, const request *r);

/* Elements of a piece of the groups' and items' launch. */
size_t segment_piece_elements(const clreduce_ctx *ctx, const request *r);

/* Segments of operators that combine accumulators (those past max, several
 * in one pass, a user's): each lane of a team takes
 * SEGMENT_ACCUMULATOR_LANE_VECTORS to twice that of a segment of the
 * chunk's mean length (as rows' lanes take many: every operator pays for
 * each step of its combination), and a chunk is that many vectors a
 * work-item. On the H200 (2^26 floats, sum, min, max and argmax in one
 * call; bench/results/h200-2026-12-02-m.md) 32 took 540, 489, 199, 121 and
 * 234 us for segments of 1-10, 1-1000, 1-10^5 and 1-10^7 and arrays of
 * 1000; 16 took 573, 490-501, 186-193, 130-136 and 305-317, and 64 527,
 * 499, 222, 129 and 216. */
#define SEGMENT_ACCUMULATOR_LANE_VECTORS 32

/* The text of segment_chunks.cl's CLR_LANE_ELEMENTS for lanes of n vectors
 * (a literal: defines keep the pointer). */
#define LANE_ELEMENTS_TEXT(n) "(" #n "*CLR_VEC)"
#define LANE_ELEMENTS_DEFINE(n) LANE_ELEMENTS_TEXT(n)

/* ---- segment_offsets.c: what every family of segments shares ---------------- */

/* The request of a segments call (the offsets in r.index, the segments in
 * r.rows). */
request segments_request(cl_command_queue queue, clreduce_op op, clreduce_type type,
                         cl_mem input, size_t offset, size_t count, cl_mem offsets,
                         size_t offsets_offset, clreduce_type offsets_type, size_t segments,
                         cl_mem result, size_t result_offset, cl_uint num_wait,
                         const cl_event *wait);

/* A segments plan's offsets: the checks of their type and count, then the
 * define that gives the kernels their type (segment_chunks.cl). */
clreduce_status segments_plan_offsets(clreduce_ctx *ctx, const request *r, plan *p);

/* The blocking segments call of family f for request r (from
 * segments_request()) on host memory: checks the host `offsets` (of
 * r->index_type, r->rows + 1 of them), refusing empty segments too when
 * empty_refused is not NULL (it ends the message: "operator x has no
 * identity"), then runs request_host_two(). */
clreduce_status segments_host(clreduce_ctx *ctx, const op_family *f, request *r,
                              const void *data, const void *data2, const void *offsets,
                              const char *empty_refused, void *results);

/* ---- custom.c: what other families read of a user-defined operator ------- */

/* The families of user-defined operators of one input on one range: its
 * reduction (custom.c), its scan, and its row scans (custom_batched.c). */
extern const op_family custom_reductions;
extern const op_family custom_scans;
extern const op_family custom_row_scans;

/* What a call with an operator needs to know of it. */
typedef struct custom_facts {
    const char *name;
    clreduce_type type; /* of its input(s) */
    int two_inputs;
    int has_identity;
} custom_facts;

/* The checks every call with op makes first, after clearing the thread's
 * last error (ctx and op not NULL, op of ctx, no second input, named
 * input2_name, for an operator of one) and, where facts is not NULL, op's
 * facts. */
clreduce_status custom_check_operator(clreduce_ctx *ctx, const clreduce_operator *op,
                                      int has_input2, const char *input2_name,
                                      custom_facts *facts);

/* plan_teams() for a user-defined operator (r->custom): refuses results of
 * no element without an identity, and fills the plan's op, work-group
 * size, path, output size, empty output (the identity), -DCLR_RESULT_SIZE,
 * and the operator's program built on `base` (operator_rows_program or
 * operator_segments_program). */
clreduce_status plan_custom_teams(clreduce_ctx *ctx, const request *r, plan *p,
                                  const char *family, const program_spec *base);

/* The plan of a scan with a user-defined operator (r->custom), flat or of
 * rows (its scan program holds both): the checks of operator_scan_check(),
 * an exclusive scan refused without an identity, then the operator's scan
 * program, output size and -DCLR_RESULT_SIZE. */
clreduce_status custom_scan_plan(clreduce_ctx *ctx, const request *r, plan *p);

/* ---- fixed_order.c: the reproducible order --------------------------------- */

/* Whether the reproducible order fixes op's result on type, which depends
 * on the order of operations: float and double sums, of the elements, of
 * their squares or absolute values, of products (dot). (Min, max and
 * integer sums, which wrap, are associative bit for bit.) */
int has_fixed_order(clreduce_op op, clreduce_type type);

/* Whether op's result on type depends on the order of its operations at
 * all: sums of floating-point values, alone or inside another operator. */
int op_depends_on_order(clreduce_op op, clreduce_type type);

/* Whether the device and the settings can keep the reproducible order for
 * the plan's type (UNSUPPORTED naming `what` otherwise); then sets the
 * plan's variant to CLREDUCE_REPRODUCIBLE, its work-group to
 * CLR_FIXED_LANES and its vectors to 16 bytes, without sub-groups. */
clreduce_status fixed_order_check(clreduce_ctx *ctx, plan *p, const char *what);

/* In a reproducible context (clreduce_settings.reproducible), refuses a
 * request of family f whose results depend on the order of operations
 * where the family does not follow the reproducible order: called before
 * the plan. */
clreduce_status reproducible_check(clreduce_ctx *ctx, const op_family *f, const request *r);

/* Whether a rows or segments request takes the reproducible order: one of
 * has_fixed_order()'s in a reproducible context. Then fixed_batches_plan()
 * ends the plan (after the family's checks and defines; `what` names the
 * caller in messages) and fixed_rows_enqueue() or fixed_segments_enqueue()
 * launch it. The flat reductions of the operators past max take the rows'
 * program, as one row, by fixed_flat_enqueue(). */
int takes_fixed_order(const clreduce_ctx *ctx, const request *r);
clreduce_status fixed_batches_plan(clreduce_ctx *ctx, const request *r, plan *p, int segments,
                                   const char *what);
clreduce_status fixed_rows_enqueue(clreduce_ctx *ctx, chain *c, const request *r, const plan *p,
                                   cached_kernel *k);
clreduce_status fixed_flat_enqueue(clreduce_ctx *ctx, chain *c, const request *r, const plan *p,
                                   cached_kernel *k);
clreduce_status fixed_segments_enqueue(clreduce_ctx *ctx, chain *c, const request *r,
                                       const plan *p, cached_kernel *k);

/* The same for a scan, flat or of rows: whether it takes the order (a
 * float or double sum scan on variant auto, in a reproducible context),
 * its plan (after the family's checks), whether a plan is one of those,
 * and its launches (a flat scan, request.rows 0, as one row). */
int takes_fixed_scan(const clreduce_ctx *ctx, const request *r);
clreduce_status fixed_scan_plan(clreduce_ctx *ctx, plan *p);
int is_fixed_scan(const plan *p);
clreduce_status fixed_scan_enqueue(clreduce_ctx *ctx, chain *c, const request *r, const plan *p,
                                   cached_kernel *k);

/* ---- storage.c: sum, min and max of the storage types -------------------- */

/* Routes a request of sum, min or max on a storage type, where family *f
 * takes them (f->storage), to the context's user-defined operator for it
 * (created on first use): *routed, a copy of **r with its operator, and
 * *r = routed, *f = the family that runs it. Leaves *f and *r alone for
 * any other request. Returns the operator's creation status. */
clreduce_status storage_route(clreduce_ctx *ctx, const op_family **f, const request **r,
                              request *routed);

/* Releases the context's storage operators (clreduce_destroy). */
void storage_release(clreduce_ctx *ctx);

#endif /* CLREDUCE_FAMILIES_H */
