/* clreduce-bench: declarations shared by the benchmark's source files. */
#ifndef CLREDUCE_BENCH_H
#define CLREDUCE_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include <clreduce/clreduce.h>

#define BENCH_MAX_SIZES 64
#define BENCH_NUM_OPS 3
#define BENCH_NUM_TYPES 6

/* ---- util.c -------------------------------------------------------------- */

/* Prints "clreduce-bench: <message>" on stderr and exits with status 1. */
_Noreturn void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Exits through fatal() unless err is CL_SUCCESS. */
void check_cl(cl_int err, const char *what);

/* The name of an OpenCL error code. */

/* Host monotonic clock in nanoseconds. */
double now_ns(void);

/* Ends a timed library call that started at host time t0 and enqueued
 * first .. done: a blocking read of `size` bytes at `offset` of buf into
 * value after done, then *device_ns from first's start to done's end and
 * *e2e_ns to the read's return. Releases both events; an OpenCL failure is
 * fatal (`what` names the read). */
void finish_timed_call(cl_command_queue queue, cl_mem buf, size_t offset, size_t size,
                       void *value, cl_event first, cl_event done, double t0, const char *what,
                       double *device_ns, double *e2e_ns);

/* Median and minimum of n values (the array is reordered). */
double median_of(double *v, size_t n);
double min_of(const double *v, size_t n);

/* "2^20" for a power of two, else the decimal count. */
void size_label(size_t count, char *out, size_t out_size);

/* Parses a count: 1048576, 2^20, 1e8, 1.5e6, 64Ki/64Mi/1Gi. 0 on error. */
int parse_count(const char *text, size_t *out);

/* Formats a byte count with a unit ("4.2 GB", "512.0 KB"; 1 GB = 1e9). */
void bytes_label(double bytes, char *out, size_t out_size);

/* Progress line on stderr ("[12/80] single_pass float sum 2^26"); a no-op
 * unless enabled. progress_done() clears it. */
void progress_enable(int on);
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void progress_done(void);

/* xoshiro256** seeded by splitmix64. */
typedef struct rng {
    uint64_t s[4];
} rng;
void rng_seed(rng *r, uint64_t seed);
uint64_t rng_next(rng *r);

/* ---- the device ----------------------------------------------------------- */

typedef struct bench_device {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue; /* in-order, profiling enabled */
    unsigned platform_index, device_index;
    char name[256];
    char vendor[256];
    char driver[128];
    char device_version[128];
    char platform_name[256];
    char platform_version[256];
    cl_device_type type;
    cl_uint compute_units;
    size_t max_work_group_size;
    cl_ulong max_alloc;
    cl_ulong global_mem;
    cl_ulong cache_size; /* CL_DEVICE_GLOBAL_MEM_CACHE_SIZE */
    int is_cpu;
} bench_device;

/* Bytes the benchmark allows itself in one buffer: the device's largest
 * allocation and 40% of its global memory, whichever is less. */
cl_ulong device_buffer_limit(const bench_device *d);

/* ---- data.c: input data, reference results and checks --------------------- */

/* Every operator's result over a prefix of the input: the sum (floating
 * point in extended precision, exact for float; integers wrapping, to be
 * truncated to the type), the sum of |x|, the minimum and the maximum (the
 * identities for the empty prefix). */
typedef struct prefix_state {
    long double sum_fp, abs_sum;
    uint64_t sum_int;
    unsigned char min[8], max[8];
} prefix_state;

/* A run of the input kept on the host for checking scans: its elements and
 * the prefix before it. */
typedef struct scan_window {
    size_t start, length;
    prefix_state before; /* of elements [0, start) */
    void *input;         /* elements [start, start + length) */
} scan_window;

typedef struct dataset {
    clreduce_type type;
    size_t count;       /* elements reduced per call */
    size_t esize;       /* bytes per element */
    size_t stride;      /* elements between copies in `buffer` */
    size_t copies;      /* identical copies, rotated to defeat the cache */
    size_t cursor;      /* next copy to use */
    cl_mem buffer;      /* copies * stride elements */
    cl_mem result;      /* one element */
    /* References: sums exact for integers (wrapping), in extended precision
     * for floating point; min and max exact. */
    long double ref_sum_fp;
    uint64_t ref_sum_int; /* wrapped to the type's width */
    unsigned char ref_min[8], ref_max[8];
    long double abs_sum;  /* sum of |x| (floating point) */
    scan_window *windows; /* owned; sorted and disjoint; NULL unless for scans */
    size_t window_count;
} dataset;

/* Fills a dataset of `count` random elements of `type` on the device, with
 * enough copies that their total is at least `min_working_set` bytes (within
 * the device's limits), and computes the references. */
void dataset_create(const bench_device *d, clreduce_type type, size_t count, uint64_t seed,
                    cl_ulong min_working_set, dataset *ds);
/* As dataset_create, with the copies limited to `max_bytes` in all, and the
 * input and the prefix before it filled into every window (whose `input`
 * must hold `length` elements). The dataset takes the array of windows. */
void dataset_create_with_windows(const bench_device *d, clreduce_type type, size_t count,
                                 uint64_t seed, cl_ulong min_working_set, cl_ulong max_bytes,
                                 scan_window *windows, size_t window_count, dataset *ds);
void dataset_release(dataset *ds);

/* The element offset of the next copy to reduce. */
size_t dataset_next_offset(dataset *ds);

/* Whether `value` (one element of ds->type) is right for `op`; on failure a
 * description of the difference goes to msg. */
int dataset_check(const dataset *ds, clreduce_op op, const void *value, char *msg,
                  size_t msg_size);

/* Working set that the rotation of copies should reach on this device. */
cl_ulong working_set_target(const bench_device *d);

/* One element of `type` as text (every digit a float or double needs). */
void format_value(clreduce_type type, const void *v, char *out, size_t size);

/* ---- measure (clreduce_bench.c) -------------------------------------------- */

typedef enum measure_status {
    MEASURE_OK = 0,
    MEASURE_UNSUPPORTED,
    MEASURE_WRONG,
    MEASURE_ERROR
} measure_status;

typedef struct measurement {
    double median_us, min_us, e2e_median_us;
    measure_status status;
    char message[1024]; /* reason for a status other than OK */
} measurement;

/* Fills m with the status for a failed call of the library (unsupported or
 * an error) and the reason from clreduce_last_error(). */
void set_failure(measurement *m, clreduce_ctx *ctx, clreduce_status s);

/* Checks support, runs once and checks the result, warms up, then times
 * `runs` calls (each result checked too). */
void measure_variant(const bench_device *d, clreduce_ctx *ctx, dataset *ds, clreduce_op op,
                     clreduce_variant variant, int warmup, int runs, measurement *m);

/* ---- scan.c: measuring and checking prefix scans --------------------------- */

/* Inputs up to this many elements have every element of a scan checked;
 * larger ones the windows scan_windows_choose() picks. */
#define SCAN_FULL_CHECK_MAX ((size_t)1 << 22)

/* The empty prefix: sums 0, min and max the identities of `type`. */
void prefix_init(clreduce_type type, prefix_state *s);

/* The windows of a `count`-element input that a scan's check reads: all of
 * it up to SCAN_FULL_CHECK_MAX elements; beyond, both ends, both sides of
 * every power of two, and random runs long enough to cross several tile
 * boundaries. Sorted, disjoint, their `input` allocated. */
void scan_windows_choose(size_t count, size_t esize, uint64_t seed, scan_window **windows,
                         size_t *window_count);

/* A one-line description of the windows that count elements are checked at. */
void scan_check_description(char *out, size_t size);

/* Where scans of a dataset write: a second buffer as large as the input's
 * copies (rotated with them, poisoned again after every call), or the input
 * itself (each copy restored from a pristine one after every call). */
typedef struct scan_target {
    int in_place;
    cl_mem output;   /* out of place */
    cl_mem pristine; /* in place: one copy of the input */
    void *readback;  /* host room for the windows of one output */
} scan_target;

void scan_target_create(const bench_device *d, const dataset *ds, int in_place, scan_target *t);
void scan_target_release(scan_target *t);

/* As measure_variant, for a scan: every call's output is checked at the
 * dataset's windows. */
void measure_scan(const bench_device *d, clreduce_ctx *ctx, dataset *ds, scan_target *t,
                  clreduce_op op, clreduce_scan_kind kind, clreduce_scan_variant variant,
                  int warmup, int runs, measurement *m);

/* ---- peak.c --------------------------------------------------------------- */

typedef struct peak_result {
    int measured;
    double copy_gbps;  /* clEnqueueCopyBuffer, read + write bytes */
    double read_gbps;  /* read-only streaming kernel, read bytes */
    size_t copy_bytes; /* size of the buffer copied / read */
} peak_result;

/* Measures both peaks (best of `runs`). */
void peak_measure(const bench_device *d, int runs, peak_result *out);

/* ---- report.c ------------------------------------------------------------- */

typedef struct row {
    const char *variant; /* static name */
    const char *resolved; /* for auto: the variant it runs; else NULL */
    int is_scan;          /* a prefix scan of operator `op`, else a reduction */
    clreduce_scan_kind kind; /* scans only */
    int in_place;            /* scans only */
    clreduce_op op;
    clreduce_type type;
    size_t elements;
    size_t bytes;
    double median_us, min_us, e2e_median_us; /* NAN when not measured */
    double gbps, pct_peak, peak_gbps, speedup; /* scans: bytes read + written, copy peak */
    char *status; /* "ok", "unsupported: ...", "wrong: ...", "error: ..." */
} row;

typedef struct row_list {
    row *rows;
    size_t count, capacity;
} row_list;

typedef struct report_meta {
    const bench_device *device;
    char date[64];
    const peak_result *peak;
    int runs, warmup;
    int scans; /* the run measures scans */
} report_meta;

row *row_list_add(row_list *list);
void row_list_free(row_list *list);

void report_header(const report_meta *meta, const char *settings_line);
void report_columns(void);
/* The scans' table: a line on what is measured and the column names. */
void report_scan_columns(const report_meta *meta, int in_place);
void report_row(const row *r);
int report_write_csv(const char *path, const report_meta *meta, const row_list *rows);
int report_write_json(const char *path, const report_meta *meta, const row_list *rows);

/* ---- tune.c --------------------------------------------------------------- */

typedef struct tune_options {
    clreduce_type type;
    clreduce_op op;
    const clreduce_variant *variants;
    size_t variant_count;
    const size_t *sizes;
    size_t size_count;
    int runs, warmup;
    int quick;                   /* a small grid */
    const clreduce_settings *fixed; /* non-zero fields pin a dimension */
    uint64_t seed;
} tune_options;

/* Returns 0, or 1 when a candidate failed its check. */
int run_tune(const bench_device *d, const tune_options *o);

/* First-call latency. Returns 0 or 1. */
int run_cold(const bench_device *d, const clreduce_settings *settings);

#endif
