/* Declarations shared by the library's source files; not installed. */
#ifndef CLREDUCE_INTERNAL_H
#define CLREDUCE_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>

#include "clreduce/clreduce.h"
#include "contract.h"     /* cl/: the codes and layouts shared with the kernels */
#include "embedded_cl.h"  /* the kernels' sources, clreduce_cl_<file> */

/* Declarations in the order of the data path: the device and its tuning,
 * the request pipeline and what it calls, then the context and errors.
 * What the operation families offer one another is in families.h. */

/* ---- device_info.c ------------------------------------------------------ */

typedef enum device_vendor {
    VENDOR_OTHER = 0,
    VENDOR_NVIDIA,
    VENDOR_AMD,
    VENDOR_INTEL,
    VENDOR_POCL
} device_vendor;

typedef struct device_info {
    char name[256];
    char vendor_name[256];
    char driver_version[128];
    char device_version[128];
    char platform_version[256];
    device_vendor vendor;
    cl_device_type type;
    cl_uint compute_units;
    size_t max_work_group_size;
    cl_ulong local_mem_size;
    cl_ulong max_alloc_size;
    unsigned cl_major, cl_minor;     /* CL_DEVICE_VERSION */
    unsigned clc_major, clc_minor;   /* highest OpenCL C version */
    int has_fp64;
    int float_denorms;               /* CL_FP_DENORM in CL_DEVICE_SINGLE_FP_CONFIG */
    cl_uint native_float_width;      /* CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, 0 unknown */
    int has_int64_atomics;           /* cl_khr_int64_base_atomics */
    int has_subgroups;               /* cl_khr_subgroups or __opencl_c_subgroups */
    int has_subgroup_shuffle;        /* cl_khr_subgroup_shuffle */
    int has_subgroup_shuffle_relative;
    cl_uint nv_warp_size;            /* 0 unless CL_DEVICE_WARP_SIZE_NV answers */
    cl_bitfield atomic_memory_caps;  /* CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, 0 before 3.0 */
    cl_bitfield atomic_fence_caps;   /* CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, 0 before 3.0 */
} device_info;

/* Bits of the two capabilities above, as the OpenCL 3.0 headers name them
 * (CL_DEVICE_ATOMIC_ORDER_ACQ_REL, CL_DEVICE_ATOMIC_SCOPE_DEVICE), spelled
 * out: the build targets the 1.2 headers. */
#define DEVICE_ATOMIC_ORDER_ACQ_REL ((cl_bitfield)1 << 1)
#define DEVICE_ATOMIC_SCOPE_DEVICE ((cl_bitfield)1 << 5)

clreduce_status device_info_query(cl_device_id device, device_info *info, char *why,
                                  size_t why_size);

/* Whether the device can run sub-group path `path`; *lacks names what is
 * missing. */
int path_usable(const device_info *info, clreduce_subgroup_path path, const char **lacks);

/* Whether kernels on `path` must be built for OpenCL C 2.0 or later. */
int path_needs_cl_std(clreduce_subgroup_path path);

/* ---- tuning.c ------------------------------------------------------------ */

typedef struct tuning {
    size_t work_group_size;
    unsigned groups_per_compute_unit;
    unsigned loads_per_work_item;
    unsigned vector_width;
    int segmented; /* grid-sized kernels: contiguous run per work-group */
    int nv_load;   /* NVIDIA vector loads: 0 plain, 1 ld.global.nc */
    int segment_runs; /* segments: short ones by runs of elements (segment_runs.cl) */
    int sum_teams; /* rows and segments: short lanes for single sums (rows.c, segments.c) */
    size_t scan_work_group_size;  /* the scans' work-group size */
    unsigned scan_loads;          /* vectors per work-item in a scan tile */
} tuning;

/* Tuning for elements of `element_size` bytes on the device: the table's
 * entry, with the non-zero fields of `overrides` on top, clamped to what the
 * device allows. */
void tuning_for_device(const device_info *info, size_t element_size,
                       const clreduce_settings *overrides, tuning *out);
/* The changes to *t for `count` operators of `type` in one pass (one: min,
 * max or an operator past max alone; `batched`: a result per row or
 * segment), where `overrides` leaves the field unset. */
void tuning_for_operators(const device_info *info, const clreduce_settings *overrides,
                          const clreduce_op *ops, size_t count, clreduce_type type, int batched,
                          tuning *t);
/* The changes to *t for one built-in operator alone (reduce.c's sum, min
 * and max, operators.c's) over a flat range of `count` elements of `type`
 * whose variant the library chose, where `overrides` leaves the field
 * unset. */
void tuning_for_flat_range(const device_info *info, const clreduce_settings *overrides,
                           clreduce_op op, clreduce_type type, size_t count, tuning *t);
/* The changes to *t for a look-back scan by sum, min or max of `count`
 * elements of element_size bytes whose variant the library chose, where
 * `overrides` leaves the tile unset. */
void tuning_for_scan(const device_info *info, const clreduce_settings *overrides,
                     clreduce_op op, size_t element_size, size_t count, tuning *t);
/* The changes to *t for one operator past max alone over rows of
 * row_length elements (rows.c's teams; a call of several operators takes
 * tuning_for_operators()), where `overrides` leaves the field unset. */
void tuning_for_row_operator(const device_info *info, const clreduce_settings *overrides,
                             clreduce_op op, clreduce_type type, size_t row_length, tuning *t);
/* The same for one built-in operator alone over segments of a mean of
 * `mean` elements: sum, min or max without a map, or one that combines
 * accumulators (operators.c's op_keeps_accumulators()); not a user's. */
void tuning_for_segment_operator(const device_info *info, const clreduce_settings *overrides,
                                 clreduce_op op, clreduce_type type, size_t mean, tuning *t);
/* The same for `count` operators in one call over segments of a mean of
 * `mean` elements (multi.c). */
void tuning_for_segment_operators(const device_info *info, const clreduce_settings *overrides,
                                  size_t count, clreduce_type type, size_t mean, tuning *t);

/* ---- request.c -------------------------------------------------------------- */

/* What a program is built from: embedded sources, lowest layer first
 * (cl/contract.h first), and the names of its kernels. */
typedef struct program_spec {
    const char *const *sources;
    size_t nsources;
    const char *const *kernels;
    size_t nkernels;
    int orders_device; /* reads device_order.cl: needs the context's ordering */
} program_spec;

/* One call as the caller made it, for any operation family. */
typedef struct request {
    cl_command_queue queue;
    clreduce_op op;
    clreduce_type type;
    int variant; /* the family's variant enum, as asked (AUTO too) */
    int kind;    /* scans: clreduce_scan_kind */
    cl_mem input;
    size_t input_offset;
    size_t count;
    cl_mem output;
    size_t output_offset;
    cl_uint num_wait;
    const cl_event *wait;
    /* Rows and segments (rows.c, segments.c): `count` is then the input
     * range the rows or segments lie in. */
    size_t rows;           /* results: rows, or segments */
    size_t row_length;
    size_t row_pitch;      /* elements from a row's start to the next's */
    size_t output_pitch;   /* row scans: the same for the output's rows */
    cl_mem index;          /* segments: the offsets, rows + 1 of index_type */
    size_t index_offset;
    clreduce_type index_type;
    const void *host_index; /* request_host: the offsets in host memory */
    /* The second input of an operator with two (dot): the same count and
     * type as the first. */
    cl_mem input2;
    size_t input2_offset;
    /* A user-defined operator (custom.c): `op` and `type` are then its. */
    const struct clreduce_operator *custom;
    /* Set by storage_route(): `custom` is the context's own operator for a
     * built-in one on a storage type (the caller's request was checked
     * before it was routed). */
    int routed;
    /* Several operators over one input (multi.c): ops[i]'s result at byte
     * result_offsets[i] of `output`; `op` is then unused. */
    const clreduce_op *ops;
    size_t num_ops;
    const size_t *result_offsets;
} request;

/* The mean length of the rows or segments: elements a result, 0 for none. */
static inline size_t request_mean_length(const request *r)
{
    return r->rows ? r->count / r->rows : 0;
}

/* The pitches of rows as launches and ranges take them: row_pitch, in
 * elements, and a row scan's output_pitch, in the output's units (results
 * for the operators past max), each 0 meaning row_length. */
static inline size_t request_input_pitch(const request *r)
{
    return r->row_pitch ? r->row_pitch : r->row_length;
}

static inline size_t request_output_pitch(const request *r)
{
    return r->output_pitch ? r->output_pitch : r->row_length;
}

/* The elements `rows` rows of `length` at `pitch` (not 0) span: 0 for no
 * row or an empty one, and 0 with *overflow set where the span does not fit
 * a size_t. */
static inline size_t rows_span(size_t rows, size_t length, size_t pitch, int *overflow)
{
    *overflow = 0;
    if (rows == 0 || length == 0)
        return 0;
    if (rows - 1 > (SIZE_MAX - length) / pitch) {
        *overflow = 1;
        return 0;
    }
    return (rows - 1) * pitch + length;
}

/* Whether type is CLREDUCE_FLOAT or CLREDUCE_DOUBLE, the floating-point
 * types the kernels compute in. */
static inline int is_float_type(clreduce_type type)
{
    return type == CLREDUCE_FLOAT || type == CLREDUCE_DOUBLE;
}

/* Whether type is a storage type (CLREDUCE_HALF, CLREDUCE_BFLOAT16), whose
 * sum, min and max storage.c routes to operators of its own. */
static inline int is_storage_type(clreduce_type type)
{
    return type == CLREDUCE_HALF || type == CLREDUCE_BFLOAT16;
}

/* Whether op is one of operators.c's (past CLREDUCE_OP_MAX). */
static inline int op_is_extended(clreduce_op op)
{
    return op > CLREDUCE_OP_MAX && op < CLREDUCE_OP_COUNT;
}

/* Whether a plan's op reduces through cl/operators.cl's accumulators: one
 * of those, or a user-defined operator (CLR_OP_CUSTOM). */
static inline int op_keeps_accumulators(clreduce_op op)
{
    return op_is_extended(op) || op == (clreduce_op)CLR_OP_CUSTOM;
}

/* The largest output element of any family: clreduce_result_size(), or
 * the results of a multi call packed together (multi.c). */
#define PLAN_OUTPUT_MAX 256

/* ---- defines.c ----------------------------------------------------------- */

/* The -D options of a program, as pairs: -Dname=value, or -Dname=text where
 * text is not NULL. Names and texts are string literals. */
#define DEFINES_MAX 32

typedef struct define {
    const char *name;
    const char *text;
    long long value;
} define;

typedef struct defines {
    unsigned count;
    define items[DEFINES_MAX];
} defines;

void defines_add(defines *d, const char *name, long long value);
void defines_add_text(defines *d, const char *name, const char *text);
void defines_append(defines *d, const defines *more);
int defines_equal(const defines *a, const defines *b);

/* Writes the options as text into out (size bytes), then `extra` and
 * `more` where not NULL or empty; returns the length it needed (size or
 * more: cut short). */
size_t defines_write(const defines *d, const char *extra, const char *more, char *out,
                     size_t size);

/* Everything a call needs to know, decided before anything is enqueued. */
typedef struct plan {
    clreduce_op op;
    clreduce_type type;
    size_t element_size;
    int variant; /* resolved, never AUTO */
    tuning t;
    size_t work_group_size; /* of this family's kernels (CLR_WG) */
    unsigned unroll;        /* CLR_UNROLL */
    clreduce_subgroup_path path;
    const program_spec *program;
    defines family_defines; /* the family's own -D options */
    /* Bytes of one output element (a multiple of element_size), and what a
     * call of count 0 writes there (plan_start: the operator's identity). */
    size_t output_size;
    unsigned char empty_output[PLAN_OUTPUT_MAX];
    /* Set by validation, after the family's plan: the output is the input's
     * very range (an in-place call of a family that allows it). */
    int in_place;
} plan;

typedef struct chain chain;
typedef struct cached_kernel cached_kernel;

/* How many elements a call of a family writes. */
typedef enum output_shape {
    OUTPUT_ONE,         /* one: a reduction */
    OUTPUT_PER_ELEMENT, /* one per input element: a scan */
    OUTPUT_PER_ROW,     /* one per row or segment (request.rows) */
    OUTPUT_ROWS         /* a row of row_length per row, output_pitch apart
                           (0: row_length): a scan of rows */
} output_shape;

/* What an operation family supplies to the pipeline. */
typedef struct op_family {
    const char *output_name;        /* in messages: "result", "output" */
    const char *output_offset_name; /* "result_offset", "output_offset" */
    const char *host_input_name;    /* the host call's input: "data", "input" */
    const char *index_name;         /* a family that reads request.index: its
                                       name in messages ("offsets"); else NULL */
    output_shape outputs;
    int in_place;                   /* input and output may be the same range */
    int two_inputs;                 /* reads input2 too (request.input2) */
    /* Checks what is the family's own and fills *p, from plan_start(). */
    clreduce_status (*plan)(clreduce_ctx *ctx, const request *r, plan *p);
    /* The commands of a call of count 0 (wants_event: first or done asked). */
    clreduce_status (*enqueue_empty)(clreduce_ctx *ctx, chain *c, const request *r, const plan *p,
                                     int wants_event);
    clreduce_status (*enqueue)(clreduce_ctx *ctx, chain *c, const request *r, const plan *p,
                               cached_kernel *k, int in_order);
    /* A family whose outputs are not one range of output_size elements
     * (multi.c) checks them here, against their buffer and the input range
     * (after the input's checks); NULL: the pipeline checks the range. */
    clreduce_status (*check_outputs)(clreduce_ctx *ctx, const request *r, const plan *p);
    /* The family that runs sum, min or max of a storage type as one of the
     * context's user-defined operators (storage.c): this one or another;
     * NULL: the family refuses the storage types. */
    const struct op_family *storage;
    /* Sums float and double in the reproducible order where asked
     * (fixed_order.c): the flat reductions (of the elements, of a map, dot
     * products), rows, segments. */
    int fixed_order;
} op_family;

/* The checks and fields every plan starts with: operator, type, fp64,
 * element size, the context's tuning for the type. */
clreduce_status plan_start(clreduce_ctx *ctx, const request *r, plan *p);

/* The pipeline (request.c says its steps) on the caller's queue. */
clreduce_status request_enqueue(clreduce_ctx *ctx, const op_family *f, const request *r,
                                cl_event *first, cl_event *done);

/* The pipeline on host memory, through the context's own queue: r holds the
 * operator, type, variant, kind and count; input and output are host
 * arrays. */
clreduce_status request_host(clreduce_ctx *ctx, const op_family *f, request *r, const void *input,
                             void *output);

/* request_host() for a family of two inputs: input2 is the second. */
clreduce_status request_host_two(clreduce_ctx *ctx, const op_family *f, request *r,
                                 const void *input, const void *input2, void *output);

/* An op_family's enqueue_empty for the scans, whose calls of no element
 * write nothing: a marker, when an event is wanted. */
clreduce_status enqueue_nothing(clreduce_ctx *ctx, chain *c, const request *r, const plan *p,
                                int wants_event);

/* The plan's checks alone: whether the family can run op on type with
 * `variant` on this context. */
clreduce_status request_check_support(clreduce_ctx *ctx, const op_family *f, clreduce_op op,
                                      clreduce_type type, int variant, int kind);

/* ---- program_cache.c ---------------------------------------------------- */

/* One compiled program, its kernels, and the lock that serialises setting
 * their arguments and enqueueing them (cl_kernel arguments are not
 * thread-safe). */
#define CACHED_KERNELS_MAX 4

struct cached_kernel {
    const program_spec *spec;
    defines defs;  /* the key, with spec and needs_std */
    int needs_std;
    char *options; /* all of it as text */
    cl_program program;
    cl_kernel kernels[CACHED_KERNELS_MAX];
    pthread_mutex_t lock;
    struct cached_kernel *next;
};

typedef struct program_cache {
    pthread_mutex_t lock;
    cached_kernel *head;
    uint64_t programs_built;
    uint64_t programs_loaded;
    uint64_t cache_hits;
    char disk_status[256];           /* clreduce_cache_stats.disk_cache_status */
} program_cache;

void program_cache_init(program_cache *cache);
void program_cache_clear(program_cache *cache);

/* Returns the program of `spec` built with these defines, the cl_std
 * option where needs_std and the context's build options, and its kernels,
 * building it on the first request. */
clreduce_status program_cache_get(clreduce_ctx *ctx, const program_spec *spec,
                                  const defines *defs, int needs_std, cached_kernel **out);

/* Drops every program of `spec` (a user-defined operator's, at its last
 * release): no call may be using them. */
void program_cache_drop(clreduce_ctx *ctx, const program_spec *spec);

/* ---- build_log.c ---------------------------------------------------------- */

/* Appends the build log of `program`, built from `sources`, to this
 * thread's error message, every position in it named by file and line. */
void append_build_log(clreduce_ctx *ctx, cl_program program, const char *const *sources,
                      size_t nsources);

/* A copy (malloc'd; NULL when out of memory) of `log` in which each
 * "<name>:N:" that counts line N across the concatenated `sources` reads
 * "<file>:<line>:", by the `#line 1 "<file>"` that opens each source. */
char *build_log_map_positions(const char *log, const char *const *sources, size_t nsources);

/* ---- disk_cache.c --------------------------------------------------------- */

/* The directory of the disk cache (malloc'd), or NULL when it is disabled,
 * with the reason in why: $CLREDUCE_CACHE_DIR ("" or "off" disables), else
 * $XDG_CACHE_HOME/clreduce, else $HOME/.cache/clreduce. It is created when
 * the first binary is stored. */
char *disk_cache_directory(char *why, size_t why_size);

/* The functions below run under the program cache's lock: they note their
 * problems in ctx->cache.disk_status, and never fail the caller. */

/* A program built from the binary stored for these options and sources, or
 * NULL (nothing stored, stale, damaged, or it failed to load). */
cl_program disk_cache_load(clreduce_ctx *ctx, const char *options, const char *const *sources,
                           size_t nsources);

/* Notes that the program loaded for these options was unusable (`why`); the
 * caller builds it from source and stores it again. */
void disk_cache_reject(clreduce_ctx *ctx, const char *options, const char *const *sources,
                       size_t nsources, const char *why);

/* Stores the binary of a program built from source, replacing the file. */
void disk_cache_store(clreduce_ctx *ctx, const char *options, const char *const *sources,
                      size_t nsources, cl_program program);

/* ---- scratch.c ------------------------------------------------------------ */

/* Scratch kept between calls on one in-order queue (scratch.c says why each
 * buffer is zero from its creation): the single-pass reduction's ticket and
 * partials, which every launch leaves with its ticket at zero; and the
 * look-back scratch of the scan and of the segments' single pass (ticket,
 * status words and values), which grows with the count; every launch takes
 * the next epoch, so that status words of earlier launches read as stale. */
typedef struct queue_scratch {
    cl_command_queue queue;    /* not retained: scratch.c says why */
    cl_mem buffer;             /* of the context's one scratch size */
    pthread_mutex_t lookback_lock; /* held from acquire to release of a lease */
    cl_mem lookback_buffer;
    size_t lookback_size;
    cl_uint lookback_epoch; /* of the last lease */
    pthread_mutex_t temp_lock; /* held by a call from its temp_for_chain() to the
                                  end of its enqueueing (request.c) */
    cl_mem temp_buffer;        /* temporary results of the calls on this queue */
    size_t temp_size;
    unsigned leases;           /* look-back and temp leases held (under the pool's lock) */
    struct queue_scratch *next;
} queue_scratch;

typedef struct scratch_pool {
    pthread_mutex_t lock;
    queue_scratch *head;
} scratch_pool;

void scratch_pool_init(scratch_pool *pool);
void scratch_pool_clear(scratch_pool *pool);

/* A zeroed scratch buffer of `size` bytes (always the same for a context)
 * for calls on `queue`, retained for the caller: release it after
 * enqueueing. */
clreduce_status scratch_for_queue(clreduce_ctx *ctx, cl_command_queue queue, int in_order,
                                  size_t size, cl_mem *buffer);

/* Look-back scratch for one launch: buffer (retained for the lease) of at
 * least the size asked, zero but for what earlier launches of this lease's
 * queue left, and the launch's epoch (1 to 2^30 - 1). On an in-order queue
 * the lease holds the queue's look-back lock until lookback_scratch_release(), so
 * that launches reach the queue in the order of their epochs. */
typedef struct lookback_lease {
    cl_mem buffer;
    size_t size;
    cl_uint epoch;
    queue_scratch *entry; /* NULL: a buffer of this launch alone */
    scratch_pool *pool;
} lookback_lease;

/* Bytes of look-back scratch for `tiles` tiles (contract.h, tile_state.cl):
 * a header, then a slot per tile. */
size_t lookback_scratch_size(size_t tiles);

clreduce_status lookback_scratch_acquire(clreduce_ctx *ctx, cl_command_queue queue,
                                         int in_order, size_t size, lookback_lease *lease);
void lookback_scratch_release(lookback_lease *lease);

/* ---- context.c ------------------------------------------------------------ */

/* The context's tuning for elements of `element_size` (4 or 8) bytes. */
#define CONTEXT_TUNING(ctx, element_size)                                                       \
    (&(ctx)->tuning_by_size[(element_size) == 8 ? 1 : (element_size) == 2 ? 2 : 0])

/* Events a context keeps for PoCL (chain_start() in chain.c says why):
 * each group is a call's events but its last, released once `last` has
 * completed or failed, which the next call that keeps events, or
 * clreduce_destroy(), finds. */
typedef struct held_group {
    cl_event *events;
    size_t count;
    cl_event last;
    struct held_group *next;
} held_group;

typedef struct held_events {
    pthread_mutex_t lock;
    held_group *head;
} held_events;

/* Operators a context keeps for each storage type: sum, min and max. */
#define STORAGE_OPS (CLREDUCE_OP_MAX + 1)

struct clreduce_ctx {
    cl_context context;
    cl_device_id device;
    device_info info;
    clreduce_settings settings;           /* build_options points at own copy */
    clreduce_subgroup_path subgroup_path; /* resolved, never _AUTO */
    tuning tuning_by_size[3];             /* [0] 4-byte, [1] 8-byte, [2] 2-byte elements */
    const char *cl_std_option;            /* "" or "-cl-std=CL2.0"/"CL3.0" */
    int order_kind;                       /* a CLR_ORDER_* code (device_order.cl) */
    program_cache cache;
    char *disk_cache_dir;                 /* NULL: no disk cache */
    scratch_pool scratch;
    pthread_mutex_t queue_lock;
    cl_command_queue own_queue;           /* for the *_host calls */
    held_events held;                     /* PoCL's calls behind wait lists */
    pthread_mutex_t storage_lock;
    /* Sum, min and max of half [0] and bfloat16 [1] (storage.c), NULL
     * until first used. */
    clreduce_operator *storage_ops[2][STORAGE_OPS];
};

/* How the single pass and the look-back order memory between work-groups
 * on this device, a CLR_ORDER_* code: PTX (NVIDIA), CL20 (OpenCL C
 * acquire-release atomics and fences at device scope: OpenCL C 2.x, or 3.0
 * where the device reports them), NONE (plain fences, enough on CPUs
 * only). */
int order_kind_for(const device_info *info);

/* Returns the context's own in-order queue, creating it on first use. */
clreduce_status context_own_queue(clreduce_ctx *ctx, cl_command_queue *out);

/* Whether one work-group's global stores can be made visible to another
 * (device_order.cl): what the single-pass reduction and the look-back scan
 * need. */
int context_orders_work_groups(const clreduce_ctx *ctx);

/* Whether a started work-group keeps running while others wait for it:
 * true of NVIDIA GPUs and of CPUs; ARM Mali and Apple GPUs, for two, do not
 * promise it. */
int context_keeps_work_groups_running(const clreduce_ctx *ctx);

/* The launches of a segments reduction of sum, min or max, as
 * clreduce_settings' segment_passes says: 0 (chosen per call, on NVIDIA
 * GPUs), 1 or 2; 2 where the device allows no single launch, and for 0
 * on other devices. */
unsigned context_segment_passes(const clreduce_ctx *ctx);

/* Whether the context's build options name `name`: the tests' switches
 * (CLR_TEST_...), which keep a layout that a device's rule would replace,
 * so that the tests reach it there too. */
int context_test_switch(const clreduce_ctx *ctx, const char *name);
/* The number of a switch given as NAME=N in the context's build options,
 * for the benchmark's trials of a rule's constant; 0 where it is absent. */
unsigned long context_test_value(const clreduce_ctx *ctx, const char *name);

/* ---- validate.c ---------------------------------------------------------- */

/* Size in bytes of a caller's buffer, which must belong to ctx's context. */
clreduce_status mem_size(clreduce_ctx *ctx, cl_mem mem, const char *what, size_t *size);

/* Checks that queue belongs to ctx's context and device; *in_order tells
 * whether it runs commands in order. */
clreduce_status check_queue(clreduce_ctx *ctx, cl_command_queue queue, int *in_order);

/* The checks every enqueueing call starts with: no NULL queue or buffer,
 * num_wait and wait agree. */
clreduce_status check_call(clreduce_ctx *ctx, cl_command_queue queue, cl_mem input, cl_mem output,
                           const char *output_name, cl_uint num_wait, const cl_event *wait);

/* check_queue() and mem_size() of both buffers, sizes in elements. */
clreduce_status check_buffers(clreduce_ctx *ctx, cl_command_queue queue, cl_mem input,
                              cl_mem output, const char *output_name, size_t element_size,
                              int *in_order, size_t *in_elems, size_t *out_elems);

/* Whether elements [offset, offset + count) lie inside `elems` elements of
 * the buffer named `what`, without overflow; the message names the offset
 * as `offset_name`. */
clreduce_status check_range(clreduce_ctx *ctx, const char *what, const char *offset_name,
                            size_t offset, size_t count, size_t elems, clreduce_type type);

/* The same for results [offset, offset + count) of `result_size` bytes
 * inside `results` of them, the message counting results. */
clreduce_status check_result_range(clreduce_ctx *ctx, const char *what, const char *offset_name,
                                   size_t offset, size_t count, size_t results,
                                   size_t result_size);

/* Whether byte a_at of buffer a and byte b_at of buffer b are one place in
 * memory, sub-buffers counted as the bytes of their parent they cover; 1
 * where a query fails (validation reports that). Sets no error. */
int same_place(clreduce_ctx *ctx, cl_mem a, size_t a_at, cl_mem b, size_t b_at);

/* CLREDUCE_ERROR_INVALID_ARGUMENT where elements [out_offset, out_offset +
 * out_count) of `output` (out_size bytes each) share bytes with elements
 * [in_offset, in_offset + in_count) of `input` (in_size bytes each, named
 * input_name in messages), judged where they lie in memory: a sub-buffer
 * counts as the bytes of its parent it covers. With `same` non-NULL exactly
 * the same bytes pass too (an in-place scan), and *same says whether the two
 * are those. Call after check_range() of both ranges. */
clreduce_status check_overlap(clreduce_ctx *ctx, cl_mem input, const char *input_name,
                              size_t in_offset, size_t in_count, size_t in_size, cl_mem output,
                              const char *output_name, size_t out_offset, size_t out_count,
                              size_t out_size, int *same);

/* CLREDUCE_ERROR_INVALID_ARGUMENT where `a_bytes` bytes from byte `a_at` of
 * buffer a and `b_bytes` bytes from byte `b_at` of buffer b share a byte,
 * judged where they lie in memory as check_overlap() does; the message names
 * both by a_name and b_name. Call after check_range() of both ranges. */
clreduce_status check_disjoint(clreduce_ctx *ctx, cl_mem a, const char *a_name, size_t a_at,
                               size_t a_bytes, cl_mem b, const char *b_name, size_t b_at,
                               size_t b_bytes);

/* ---- chain.c ---------------------------------------------------------------- */

void held_events_init(held_events *h);
/* Releases every event kept, whatever its command's state. */
void held_events_clear(held_events *h);

/* A call's events kept at most: more commands than this let go early. */
#define CHAIN_KEPT_MAX 32

/* A call's commands in order (chain.c says how). */
struct chain {
    cl_command_queue queue;
    cl_uint num_wait;
    const cl_event *wait;
    cl_event first; /* events, where c->events */
    cl_event last;
    cl_event next;  /* the slot the command being enqueued fills */
    int count;      /* commands enqueued */
    int in_order;
    int events;     /* whether commands make events */
    int want_first; /* the caller asked for the first command's event */
    int skip_next;  /* the next command makes none (chain_intermediate) */
    int tail_event; /* the last command enqueued made one */
    /* Where the call's events go once it is enqueued (chain_start says
     * why), and those kept so far; NULL: none are kept. */
    held_events *hold;
    cl_event kept[CHAIN_KEPT_MAX];
    int nkept;
    /* The queue's temporary buffer, when a family took it (scratch.c):
     * locked until temp_release(). */
    struct queue_scratch *temp_entry;
    struct scratch_pool *temp_pool;
};

/* Starts a chain on `queue` behind the caller's wait list. With `hold`,
 * every command makes an event and the call's events are kept in *hold
 * until its last command has completed or failed: PoCL 3.1 aborts the
 * process (pocl_update_event_failed) when a failed wait event reaches a
 * command whose event has been released while another command follows
 * it, and calls no event callback on a failure. */
void chain_start(chain *c, cl_command_queue queue, int in_order, cl_uint num_wait,
                 const cl_event *wait, int first_wanted, int done_wanted, held_events *hold);
/* The next command is followed by another of the call, which an in-order
 * queue runs after it: unless the caller asked for its event as the
 * first, it makes none. On NVIDIA's OpenCL each command's event cost a
 * call some 5-12 us of the GPU's timeline (bench/results/h200-2026-12-02-q.md). */
void chain_intermediate(chain *c);
/* What a command being enqueued waits for, and where its event goes (NULL:
 * none); chain_push() after it was enqueued. */
cl_uint chain_wait_count(const chain *c);
const cl_event *chain_wait_list(const chain *c);
cl_event *chain_event_slot(chain *c);
void chain_push(chain *c);
/* After a family's commands: makes sure the last one has an event where
 * events are made (a marker behind a last command marked intermediate). */
clreduce_status chain_seal(clreduce_ctx *ctx, chain *c);
/* Hands the first and last events to the caller (NULL: released). */
void chain_finish(chain *c, cl_event *first, cl_event *done);
/* After a failure: waits for what was enqueued, then drops the events. */
void chain_abandon(chain *c);

clreduce_status enqueue_fill(clreduce_ctx *ctx, chain *c, cl_mem buffer, const void *pattern,
                             size_t pattern_size, size_t offset, size_t size);

/* A copy of `size` bytes of buffer from byte `from` to byte `to` (the two
 * ranges must not overlap). */
clreduce_status enqueue_copy(clreduce_ctx *ctx, chain *c, cl_mem buffer, size_t from, size_t to,
                             size_t size);

/* A marker after the chain's last command (its event ends the chain). */
clreduce_status enqueue_marker(clreduce_ctx *ctx, chain *c);

/* One kernel argument: a value of `size` bytes. */
typedef struct kernel_arg {
    size_t size;
    const void *value;
} kernel_arg;

#define ARG(v) {sizeof(v), &(v)}

/* Sets the arguments of kernel `which` of program k (under its lock) and
 * enqueues it over `groups` work-groups after the chain's last command. */
clreduce_status enqueue_kernel_args(clreduce_ctx *ctx, chain *c, cached_kernel *k, int which,
                                    size_t groups, size_t work_group_size, const kernel_arg *args,
                                    cl_uint nargs);

/* A buffer of `bytes` for a call's own temporary results. */
/* A buffer of at least `bytes` bytes for a call's temporary results, in
 * *out (the caller releases its reference once its commands are enqueued).
 * On an in-order queue it is the queue's own temporary buffer, kept between
 * calls and grown as needed, so that calls allocate nothing (an allocation
 * can cost more host time than the whole call, and on some drivers waits
 * for the device); it is the chain's until temp_release(). On an
 * out-of-order queue, or for a second temporary of one call, a fresh
 * buffer. (scratch.c) */
clreduce_status create_temp(clreduce_ctx *ctx, chain *c, size_t bytes, cl_mem *out);

/* Gives the queue's temporary buffer back, if the chain took it: after the
 * call's last command was enqueued (request.c). */
void temp_release(chain *c);

/* ---- types.c ---------------------------------------------------------------- */

/* The kernel's element type (a CLR_TYPE value): signed sums run as unsigned
 * ones. */
int kernel_type(clreduce_op op, clreduce_type type);

/* Writes the identity of op for type (clreduce_type_size bytes) to out. */
void identity_value(clreduce_op op, clreduce_type type, void *out);

static inline size_t div_up(size_t a, size_t b)
{
    return a / b + (a % b != 0);
}

/* ---- error.c ------------------------------------------------------------- */

/* Records a message for clreduce_last_error(ctx) on this thread and returns
 * `status`, so that failures read `return set_error(ctx, status, ...)`. */
clreduce_status set_error(const clreduce_ctx *ctx, clreduce_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Appends text to this thread's message (for build logs). */
void append_error(const char *text);

/* Clears this thread's message for ctx (called on entry of API functions). */
void clear_error(const clreduce_ctx *ctx);

/* Maps an OpenCL error to a status (allocation failures to OUT_OF_MEMORY). */
clreduce_status status_from_cl(cl_int err);

/* The name of an OpenCL error code ("CL_OUT_OF_RESOURCES"). */
const char *cl_error_name(cl_int err);

#endif
