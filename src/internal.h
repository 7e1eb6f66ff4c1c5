/* Declarations shared by the library's source files; not installed. */
#ifndef CLREDUCE_INTERNAL_H
#define CLREDUCE_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>

#include "clreduce/clreduce.h"

#define CLREDUCE_SINGLE_PASS_SCRATCH_HEADER 128 /* bytes before the partials */

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

clreduce_status device_info_query(cl_device_id device, device_info *info, char *why, size_t why_size);

/* ---- tuning.c ------------------------------------------------------------ */

typedef struct tuning {
    size_t work_group_size;
    unsigned groups_per_compute_unit;
    unsigned loads_per_work_item;
    unsigned vector_width;
    int segmented; /* grid-sized kernels: contiguous run per work-group */
    int nv_load;   /* NVIDIA vector loads: 0 plain, 1 ld.global.nc */
    size_t scan_work_group_size;  /* the scans' work-group size */
    unsigned scan_loads;          /* vectors per work-item in a scan tile */
} tuning;

/* Tuning for elements of `element_size` bytes on the device: the table's
 * entry, with the non-zero fields of `overrides` on top, clamped to what the
 * device allows. */
void tuning_for_device(const device_info *info, size_t element_size,
                       const clreduce_settings *overrides, tuning *out);

/* ---- program_cache.c ---------------------------------------------------- */

/* One compiled program, its kernels, and the lock that serialises setting
 * their arguments and enqueueing them (cl_kernel arguments are not
 * thread-safe). */
#define CACHED_KERNELS_MAX 4

typedef struct cached_kernel {
    char *options;
    cl_program program;
    cl_kernel kernel; /* kernels[0] */
    cl_kernel kernels[CACHED_KERNELS_MAX];
    pthread_mutex_t lock;
    struct cached_kernel *next;
} cached_kernel;

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

/* Returns the program compiled with `options` and its kernels `names[0 ..
 * count)` (at most CACHED_KERNELS_MAX), building it on the first request.
 * `options` alone identify the program: the same options always come with
 * the same names. */
clreduce_status program_cache_get(clreduce_ctx *ctx, const char *options, const char *const *names,
                                  size_t count, cached_kernel **out);

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

/* Per-queue scratch memory for the single-pass kernel (ticket + partials),
 * zeroed once; the kernel leaves the ticket at zero. And the scan look-back's
 * scratch (ticket + status words + values), which grows with the count and
 * is zeroed when created; every launch takes the next epoch, so that status
 * words of earlier launches read as stale. */
typedef struct queue_scratch {
    cl_command_queue queue; /* retained */
    cl_mem buffer;          /* of the context's one scratch size */
    int zeroed;             /* the zero fill has been enqueued */
    pthread_mutex_t scan_lock; /* held from acquire to release of a lease */
    cl_mem scan_buffer;
    size_t scan_size;
    cl_uint scan_epoch;
    int scan_zeroed;
    struct queue_scratch *next;
} queue_scratch;

typedef struct scratch_pool {
    pthread_mutex_t lock;
    queue_scratch *head;
} scratch_pool;

void scratch_pool_init(scratch_pool *pool);
void scratch_pool_clear(scratch_pool *pool);

/* A scratch buffer of `size` bytes (always the same for a context) for calls
 * on `queue` (retained
 * for the caller: release it after enqueueing). *needs_zero tells whether the
 * caller must enqueue a zero fill of its first 128 bytes before the kernel,
 * and then call scratch_mark_zeroed() (in-order queues only). */
clreduce_status scratch_for_queue(clreduce_ctx *ctx, cl_command_queue queue, int in_order,
                                  size_t size, cl_mem *buffer, int *needs_zero);
void scratch_mark_zeroed(clreduce_ctx *ctx, cl_command_queue queue);

/* Look-back scratch for one launch: buffer (retained for the lease) of at
 * least the size asked, the launch's epoch (1 to 2^30 - 1), and whether the
 * caller must zero the whole buffer first. On an in-order queue the lease
 * holds the queue's scan lock until scan_scratch_release(), so that launches
 * reach the queue in the order of their epochs and after the zero fill. */
typedef struct scan_scratch_lease {
    cl_mem buffer;
    size_t size;
    cl_uint epoch;
    int needs_zero;
    queue_scratch *entry; /* NULL: a buffer of this launch alone */
} scan_scratch_lease;

clreduce_status scan_scratch_acquire(clreduce_ctx *ctx, cl_command_queue queue, int in_order,
                                     size_t size, scan_scratch_lease *lease);
/* `enqueued`: the zero fill (if any) and the kernel were enqueued. */
void scan_scratch_release(scan_scratch_lease *lease, int enqueued);

/* ---- context.c ------------------------------------------------------------ */

/* The context's tuning for elements of `element_size` (4 or 8) bytes. */
#define CONTEXT_TUNING(ctx, element_size) (&(ctx)->tuning_by_size[(element_size) == 8])

struct clreduce_ctx {
    cl_context context;
    cl_device_id device;
    device_info info;
    clreduce_settings settings;           /* build_options points at own copy */
    clreduce_subgroup_path subgroup_path; /* resolved, never _AUTO */
    tuning tuning_by_size[2];             /* [0] 4-byte, [1] 8-byte elements */
    const char *cl_std_option;            /* "" or "-cl-std=CL2.0"/"CL3.0" */
    int fence_kind;                       /* CLR_FENCE for the single pass */
    program_cache cache;
    char *disk_cache_dir;                 /* NULL: no disk cache */
    scratch_pool scratch;
    pthread_mutex_t queue_lock;
    cl_command_queue own_queue;           /* for clreduce_reduce_host */
};

/* How the single pass and the look-back order memory between work-groups
 * on this device (their CLR_FENCE): 2 PTX fences (NVIDIA), 1 OpenCL C
 * acquire-release atomics at device scope, 0 neither (plain fences, enough
 * on CPUs only). */
int fence_kind_for(const device_info *info);

/* Returns the context's own in-order queue, creating it on first use. */
clreduce_status context_own_queue(clreduce_ctx *ctx, cl_command_queue *out);

/* ---- command.c ------------------------------------------------------------ */

/* The kernel's element type (a CLR_TYPE value): signed sums run as unsigned
 * ones. */
int kernel_type(clreduce_op op, clreduce_type type);

/* Writes the identity of op for type (clreduce_type_size bytes) to out. */
void identity_value(clreduce_op op, clreduce_type type, void *out);

/* Whether the device can run sub-group path `path`; *lacks names what is
 * missing. */
int path_usable(const clreduce_ctx *ctx, clreduce_subgroup_path path, const char **lacks);

size_t div_up(size_t a, size_t b);

/* A chain of commands: each waits for the one before (the first for the
 * caller's wait list), so that the chain is ordered on out-of-order queues
 * too. */
typedef struct chain {
    cl_command_queue queue;
    cl_uint num_wait;
    const cl_event *wait;
    cl_event first;
    cl_event last;
    int count;
} chain;

void chain_push(chain *c, cl_event ev);
cl_uint chain_wait_count(const chain *c);
const cl_event *chain_wait_list(const chain *c);
void chain_finish(chain *c, cl_event *first, cl_event *done);

clreduce_status enqueue_fill(clreduce_ctx *ctx, chain *c, cl_mem buffer, const void *pattern,
                             size_t pattern_size, size_t offset, size_t size);

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
 * the buffer named `what`, without overflow. */
clreduce_status check_range(clreduce_ctx *ctx, const char *what, size_t offset, size_t count,
                            size_t elems, clreduce_type type);

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
