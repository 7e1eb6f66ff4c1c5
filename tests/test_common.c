/* Helpers shared by the clreduce test programs (see test_common.h). */
#include "test_common.h"

#include <ctype.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- random numbers: splitmix64, small and good enough for test data ---- */

static uint64_t base_seed;
static uint64_t test_seed;
static uint64_t rng_state;

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void tc_init_seed(void)
{
    const char *env = getenv("CLREDUCE_TEST_SEED");
    if (env && *env) {
        base_seed = strtoull(env, NULL, 0);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        base_seed = (uint64_t)ts.tv_sec * UINT64_C(1000000007) ^ (uint64_t)ts.tv_nsec ^
                    ((uint64_t)getpid() << 32);
    }
    printf("random seed: CLREDUCE_TEST_SEED=%" PRIu64 " repeats this run's data\n", base_seed);
    rng_state = base_seed;
    test_seed = base_seed;
}

void tc_seed_for(const char *name)
{
    /* FNV-1a of the name, so each test's data depends on the base seed and
     * on nothing that ran before it. */
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * UINT64_C(0x100000001b3);
    test_seed = base_seed ^ h;
    rng_state = test_seed;
    printf("[ seed     ] %s: CLREDUCE_TEST_SEED=%" PRIu64 "\n", name, base_seed);
    fflush(stdout);
}

uint64_t tc_seed(void)
{
    return base_seed;
}

uint64_t tc_rand64(void)
{
    return splitmix64(&rng_state);
}

double tc_rand_unit(void)
{
    return (double)(tc_rand64() >> 11) * (1.0 / 9007199254740992.0);
}

size_t tc_rand_below(size_t n)
{
    return (size_t)(tc_rand64() % (uint64_t)n);
}

/* ---- devices ----------------------------------------------------------------- */

static void device_string(cl_device_id device, cl_device_info what, char *buf, size_t size)
{
    buf[0] = '\0';
    if (clGetDeviceInfo(device, what, size - 1, buf, NULL) != CL_SUCCESS)
        snprintf(buf, size, "?");
    buf[size - 1] = '\0';
}

void tc_print_device(const clreduce_ctx *ctx)
{
    cl_device_id device = clreduce_get_cl_device(ctx);
    char name[256], version[256], driver[256], platform_name[256] = "?";
    cl_platform_id platform = NULL;
    device_string(device, CL_DEVICE_NAME, name, sizeof name);
    device_string(device, CL_DEVICE_VERSION, version, sizeof version);
    device_string(device, CL_DRIVER_VERSION, driver, sizeof driver);
    if (clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL) ==
        CL_SUCCESS)
        clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof platform_name - 1, platform_name,
                          NULL);
    platform_name[sizeof platform_name - 1] = '\0';
    printf("device: %s [%s, %s, driver %s], sub-group path: %s\n", name, platform_name, version,
           driver, clreduce_subgroup_path_name(clreduce_get_subgroup_path(ctx)));
    fflush(stdout);
}

/* Loads the OpenCL runtimes from the test program itself, before any
 * clreduce call: their start-up allocations live as long as the process, and
 * valgrind.supp names this function to ignore them without ignoring anything
 * allocated under libclreduce. */
#ifdef __GNUC__
__attribute__((noinline)) /* its name must stay on the stack */
#endif
void tc_preload_opencl_runtimes(void)
{
    cl_uint n = 0;
    cl_platform_id platforms[16];
    if (clGetPlatformIDs(16, platforms, &n) != CL_SUCCESS)
        return;
    for (cl_uint p = 0; p < n && p < 16; p++) {
        cl_uint nd = 0;
        clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
    }
}

/* Builds a trivial kernel on the context's device and reads its binary, from
 * the test program itself: a runtime that compiles with LLVM (PoCL) sets up
 * its compiler once per process, and valgrind.supp names this function to
 * ignore that set-up without ignoring anything allocated under libclreduce. */
#ifdef __GNUC__
__attribute__((noinline)) /* its name must stay on the stack */
#endif
void tc_warm_up_compiler(const clreduce_ctx *ctx)
{
    static const char *const source =
        "kernel void tc_warm_up(global int *p) { p[get_global_id(0)] += 1; }\n";
    cl_device_id device = clreduce_get_cl_device(ctx);
    cl_int err;
    cl_program program =
        clCreateProgramWithSource(clreduce_get_cl_context(ctx), 1, (const char **)&source, NULL,
                                  &err);
    if (err != CL_SUCCESS)
        return;
    size_t size = 0;
    if (clBuildProgram(program, 1, &device, "", NULL, NULL) == CL_SUCCESS &&
        clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) ==
            CL_SUCCESS &&
        size > 0) {
        unsigned char *binary = malloc(size);
        if (binary)
            clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL);
        free(binary);
    }
    clReleaseProgram(program);
}

clreduce_ctx *tc_create_default_or_skip(const char *program)
{
    clreduce_ctx *ctx = NULL;
    tc_preload_opencl_runtimes();
    clreduce_status s = clreduce_create_default(&ctx);
    if (s == CLREDUCE_ERROR_NO_DEVICE) {
        printf("%s: SKIP: no OpenCL device (%s); set CLREDUCE_DEVICE to choose one\n", program,
               clreduce_last_error(NULL));
        fflush(stdout);
        exit(TC_EXIT_SKIP);
    }
    if (s != CLREDUCE_SUCCESS || !ctx) {
        fprintf(stderr, "%s: clreduce_create_default failed: %s: %s\n", program,
                clreduce_status_string(s), clreduce_last_error(NULL));
        exit(1);
    }
    tc_print_device(ctx);
    tc_warm_up_compiler(ctx);
    return ctx;
}

int tc_device_supports_queue(const clreduce_ctx *ctx, cl_command_queue_properties props)
{
    cl_command_queue_properties have = 0;
    if (clGetDeviceInfo(clreduce_get_cl_device(ctx), CL_DEVICE_QUEUE_PROPERTIES, sizeof have,
                        &have, NULL) != CL_SUCCESS)
        return 0;
    return (have & props) == props;
}

cl_command_queue tc_create_queue(const clreduce_ctx *ctx, cl_command_queue_properties props)
{
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(clreduce_get_cl_context(ctx),
                                              clreduce_get_cl_device(ctx), props, &err);
    if (err != CL_SUCCESS) {
        printf("clCreateCommandQueue(properties 0x%llx) failed: %d\n", (unsigned long long)props,
               (int)err);
        return NULL;
    }
    return q;
}

size_t tc_device_max_work_group_size(const clreduce_ctx *ctx)
{
    size_t wg = 0;
    clGetDeviceInfo(clreduce_get_cl_device(ctx), CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg,
                    NULL);
    return wg;
}

int tc_type_supported(clreduce_ctx *ctx, clreduce_type type)
{
    return clreduce_check_support(ctx, CLREDUCE_OP_SUM, type, CLREDUCE_SEQUENTIAL) ==
           CLREDUCE_SUCCESS;
}

/* ---- data and references ------------------------------------------------------ */

int tc_is_float_type(clreduce_type type)
{
    return type == CLREDUCE_FLOAT || type == CLREDUCE_DOUBLE;
}

static size_t esize(clreduce_type type)
{
    size_t s = clreduce_type_size(type);
    return s ? s : 4;
}

void tc_get(clreduce_type type, const void *data, size_t i, tc_value *out)
{
    size_t s = esize(type);
    memset(out, 0, sizeof *out);
    memcpy(out->bytes, (const unsigned char *)data + i * s, s);
}

void tc_set(clreduce_type type, void *data, size_t i, const tc_value *v)
{
    size_t s = esize(type);
    memcpy((unsigned char *)data + i * s, v->bytes, s);
}

void tc_set_double(clreduce_type type, void *data, size_t i, double x)
{
    tc_value v;
    memset(&v, 0, sizeof v);
    switch (type) {
    case CLREDUCE_FLOAT: v.f = (float)x; break;
    case CLREDUCE_DOUBLE: v.d = x; break;
    case CLREDUCE_INT32: v.i32 = (int32_t)x; break;
    case CLREDUCE_UINT32: v.u32 = (uint32_t)x; break;
    case CLREDUCE_INT64: v.i64 = (int64_t)x; break;
    case CLREDUCE_UINT64: v.u64 = (uint64_t)x; break;
    }
    tc_set(type, data, i, &v);
}

/* Near the limits (so that sums overflow) one time in two, but never on them. */
static uint64_t random_bits(unsigned bits, int is_signed)
{
    uint64_t r = tc_rand64();
    uint64_t near = (r >> 40) % 1024 + 1;
    uint64_t mask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    uint64_t top = is_signed ? mask >> 1 : mask;          /* largest value */
    uint64_t bottom = is_signed ? (top + 1) & mask : 0;   /* smallest value's bits */
    uint64_t v;
    switch (r & 3) {
    case 0: v = top - near; break;
    case 1: v = (bottom + near) & mask; break;
    default: v = tc_rand64() & mask; break;
    }
    if (v == top || v == bottom || v == 0)
        v = 12345;
    return v;
}

void tc_fill_random(clreduce_type type, void *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        tc_value v;
        memset(&v, 0, sizeof v);
        if (tc_is_float_type(type)) {
            /* Magnitudes from 1/8 to 1024, both signs. */
            double mag = ldexp(1.0, (int)tc_rand_below(14) - 3);
            double x = (2.0 * tc_rand_unit() - 1.0) * mag;
            if (x == 0.0)
                x = 0.75;
            tc_set_double(type, data, i, x);
            continue;
        }
        switch (type) {
        case CLREDUCE_INT32: v.u32 = (uint32_t)random_bits(32, 1); break;
        case CLREDUCE_UINT32: v.u32 = (uint32_t)random_bits(32, 0); break;
        case CLREDUCE_INT64: v.u64 = random_bits(64, 1); break;
        default: v.u64 = random_bits(64, 0); break;
        }
        tc_set(type, data, i, &v);
    }
}

void tc_identity(clreduce_op op, clreduce_type type, tc_value *out)
{
    memset(out, 0, sizeof *out);
    if (op == CLREDUCE_OP_SUM)
        return;
    int lo = op == CLREDUCE_OP_MAX;
    switch (type) {
    case CLREDUCE_FLOAT: out->f = lo ? -INFINITY : INFINITY; break;
    case CLREDUCE_DOUBLE: out->d = lo ? -(double)INFINITY : (double)INFINITY; break;
    case CLREDUCE_INT32: out->i32 = lo ? INT32_MIN : INT32_MAX; break;
    case CLREDUCE_UINT32: out->u32 = lo ? 0 : UINT32_MAX; break;
    case CLREDUCE_INT64: out->i64 = lo ? INT64_MIN : INT64_MAX; break;
    case CLREDUCE_UINT64: out->u64 = lo ? 0 : UINT64_MAX; break;
    }
}

void tc_poison(clreduce_op op, clreduce_type type, tc_value *out)
{
    memset(out, 0, sizeof *out);
    if (type == CLREDUCE_FLOAT) {
        out->f = NAN;
    } else if (type == CLREDUCE_DOUBLE) {
        out->d = (double)NAN;
    } else if (op == CLREDUCE_OP_SUM) {
        out->u64 = UINT64_C(0x5BD1E9955BD1E995);
    } else {
        /* The extreme min/max would reach: the opposite of the identity. */
        tc_identity(op == CLREDUCE_OP_MIN ? CLREDUCE_OP_MAX : CLREDUCE_OP_MIN, type, out);
    }
}

/* min/max as the library defines them: NaN wins, -0.0 < +0.0. */
static int float_better(clreduce_op op, long double x, long double r)
{
    if (op == CLREDUCE_OP_MIN)
        return x < r || (x == r && signbit(x) && !signbit(r));
    return x > r || (x == r && !signbit(x) && signbit(r));
}

void tc_reference(clreduce_op op, clreduce_type type, const void *data, size_t n, tc_value *out,
                  long double *abs_sum)
{
    tc_identity(op, type, out);
    *abs_sum = 0;
    if (tc_is_float_type(type)) {
        int is_float = type == CLREDUCE_FLOAT;
        double sum_d = 0, abs_d = 0;
        long double sum_ld = 0, abs_ld = 0;
        long double r = is_float ? (long double)out->f : (long double)out->d;
        int nan = 0;
        for (size_t i = 0; i < n; i++) {
            tc_value v;
            tc_get(type, data, i, &v);
            long double x = is_float ? (long double)v.f : (long double)v.d;
            if (op == CLREDUCE_OP_SUM) {
                if (is_float) {
                    sum_d += (double)v.f;
                    abs_d += fabs((double)v.f);
                } else {
                    sum_ld += x;
                    abs_ld += fabsl(x);
                }
            } else if (isnan(x)) {
                nan = 1;
            } else if (float_better(op, x, r)) {
                r = x;
            }
        }
        if (op == CLREDUCE_OP_SUM) {
            r = is_float ? (long double)sum_d : sum_ld;
            *abs_sum = is_float ? (long double)abs_d : abs_ld;
        } else if (nan) {
            r = NAN;
        }
        if (is_float)
            out->f = (float)r;
        else
            out->d = (double)r;
        return;
    }
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        tc_value v;
        tc_get(type, data, i, &v);
        switch (op) {
        case CLREDUCE_OP_SUM:
            sum += type == CLREDUCE_INT32 || type == CLREDUCE_UINT32 ? (uint64_t)v.u32 : v.u64;
            break;
        case CLREDUCE_OP_MIN:
        case CLREDUCE_OP_MAX: {
            int mn = op == CLREDUCE_OP_MIN;
            switch (type) {
            case CLREDUCE_INT32:
                if (mn ? v.i32 < out->i32 : v.i32 > out->i32) out->i32 = v.i32;
                break;
            case CLREDUCE_UINT32:
                if (mn ? v.u32 < out->u32 : v.u32 > out->u32) out->u32 = v.u32;
                break;
            case CLREDUCE_INT64:
                if (mn ? v.i64 < out->i64 : v.i64 > out->i64) out->i64 = v.i64;
                break;
            default:
                if (mn ? v.u64 < out->u64 : v.u64 > out->u64) out->u64 = v.u64;
                break;
            }
            break;
        }
        }
    }
    if (op == CLREDUCE_OP_SUM) {
        memset(out, 0, sizeof *out);
        if (type == CLREDUCE_INT32 || type == CLREDUCE_UINT32)
            out->u32 = (uint32_t)sum; /* wrap-around modulo 2^32 */
        else
            out->u64 = sum;
    }
}

int tc_matches(clreduce_op op, clreduce_type type, const tc_value *got, const tc_value *ref,
               long double abs_sum)
{
    size_t s = esize(type);
    if (!tc_is_float_type(type))
        return memcmp(got->bytes, ref->bytes, s) == 0;
    int is_float = type == CLREDUCE_FLOAT;
    long double g = is_float ? (long double)got->f : (long double)got->d;
    long double r = is_float ? (long double)ref->f : (long double)ref->d;
    if (isnan(r))
        return isnan(g);
    if (op != CLREDUCE_OP_SUM || isinf(r))
        return memcmp(got->bytes, ref->bytes, s) == 0;
    long double tol = (is_float ? 1e-5L : 1e-12L) * abs_sum;
    return fabsl(g - r) <= tol; /* false for a NaN */
}

/* ---- prefix scans --------------------------------------------------------------- */

/* The running state of the reference scan after some prefix of the input. */
typedef struct scan_state {
    tc_value v;         /* integers: the exact result, in the element's bits */
    long double r;      /* floats: min/max so far, or the sum */
    long double abs;    /* float sums: sum of |x| */
    int nan;            /* float min/max: a NaN has been seen */
} scan_state;

static int is_32bit(clreduce_type type)
{
    return type == CLREDUCE_FLOAT || type == CLREDUCE_INT32 || type == CLREDUCE_UINT32;
}

static void scan_start(clreduce_op op, clreduce_type type, scan_state *st)
{
    memset(st, 0, sizeof *st);
    tc_identity(op, type, &st->v);
    if (type == CLREDUCE_FLOAT)
        st->r = op == CLREDUCE_OP_SUM ? 0.0L : (long double)st->v.f;
    else if (type == CLREDUCE_DOUBLE)
        st->r = op == CLREDUCE_OP_SUM ? 0.0L : (long double)st->v.d;
}

static void scan_add(clreduce_op op, clreduce_type type, scan_state *st, const tc_value *x)
{
    if (tc_is_float_type(type)) {
        long double v = type == CLREDUCE_FLOAT ? (long double)x->f : (long double)x->d;
        if (op == CLREDUCE_OP_SUM) {
            st->r += v;
            st->abs += fabsl(v);
        } else if (isnan(v)) {
            st->nan = 1;
        } else if (float_better(op, v, st->r)) {
            st->r = v;
        }
        return;
    }
    tc_value *a = &st->v;
    switch (op) {
    case CLREDUCE_OP_SUM:
        if (is_32bit(type))
            a->u32 += x->u32; /* wrap-around modulo 2^32 */
        else
            a->u64 += x->u64;
        break;
    case CLREDUCE_OP_MIN:
    case CLREDUCE_OP_MAX: {
        int mn = op == CLREDUCE_OP_MIN;
        switch (type) {
        case CLREDUCE_INT32:
            if (mn ? x->i32 < a->i32 : x->i32 > a->i32) a->i32 = x->i32;
            break;
        case CLREDUCE_UINT32:
            if (mn ? x->u32 < a->u32 : x->u32 > a->u32) a->u32 = x->u32;
            break;
        case CLREDUCE_INT64:
            if (mn ? x->i64 < a->i64 : x->i64 > a->i64) a->i64 = x->i64;
            break;
        default:
            if (mn ? x->u64 < a->u64 : x->u64 > a->u64) a->u64 = x->u64;
            break;
        }
        break;
    }
    }
}

/* The state's value in the element type. */
static void scan_value(clreduce_op op, clreduce_type type, const scan_state *st, tc_value *out)
{
    if (!tc_is_float_type(type)) {
        *out = st->v;
        return;
    }
    memset(out, 0, sizeof *out);
    long double r = op != CLREDUCE_OP_SUM && st->nan ? (long double)NAN : st->r;
    if (type == CLREDUCE_FLOAT)
        out->f = (float)r;
    else
        out->d = (double)r;
}

/* Whether `got` is right for the state; *tolerance receives the error
 * allowed (float sums, else 0). */
static int scan_element_ok(clreduce_op op, clreduce_type type, const scan_state *st,
                           const tc_value *got, const tc_value *expected, int exact_bits,
                           long double *tolerance)
{
    size_t s = esize(type);
    *tolerance = 0;
    if (!tc_is_float_type(type) || exact_bits)
        return memcmp(got->bytes, expected->bytes, s) == 0;
    int is_float = type == CLREDUCE_FLOAT;
    long double g = is_float ? (long double)got->f : (long double)got->d;
    if (op != CLREDUCE_OP_SUM) {
        if (st->nan)
            return isnan(g);
        return memcmp(got->bytes, expected->bytes, s) == 0;
    }
    if (isnan(st->r))
        return isnan(g);
    if (isinf(st->r))
        return g == st->r;
    *tolerance = (is_float ? TC_SCAN_TOL_FLOAT : TC_SCAN_TOL_DOUBLE) * st->abs +
                 (is_float ? (long double)FLT_MIN : (long double)DBL_MIN);
    return fabsl(g - st->r) <= *tolerance; /* false for a NaN */
}

int tc_check_scan(clreduce_op op, clreduce_type type, clreduce_scan_kind kind, const void *input,
                  size_t n, const void *output, tc_scan_mismatch *m)
{
    memset(m, 0, sizeof *m);
    scan_state st;
    scan_start(op, type, &st);
    for (size_t i = 0; i < n; i++) {
        tc_value x, got, want;
        tc_get(type, input, i, &x);
        tc_get(type, output, i, &got);
        if (kind == CLREDUCE_INCLUSIVE)
            scan_add(op, type, &st, &x);
        scan_value(op, type, &st, &want);
        /* The exclusive scan's first element is the identity itself. */
        int exact_bits = kind == CLREDUCE_EXCLUSIVE && i == 0;
        long double tolerance;
        if (!scan_element_ok(op, type, &st, &got, &want, exact_bits, &tolerance)) {
            if (m->wrong == 0) {
                m->index = i;
                m->got = got;
                m->expected = want;
                m->exact = tc_is_float_type(type) ? st.r : 0.0L;
                m->tolerance = tolerance;
            }
            m->wrong++;
            m->last = i;
        }
        if (kind == CLREDUCE_EXCLUSIVE)
            scan_add(op, type, &st, &x);
    }
    return m->wrong == 0;
}

void tc_reference_scan(clreduce_op op, clreduce_type type, clreduce_scan_kind kind,
                       const void *input, size_t n, void *output)
{
    scan_state st;
    scan_start(op, type, &st);
    for (size_t i = 0; i < n; i++) {
        tc_value x, want;
        tc_get(type, input, i, &x);
        if (kind == CLREDUCE_INCLUSIVE)
            scan_add(op, type, &st, &x);
        scan_value(op, type, &st, &want);
        tc_set(type, output, i, &want);
        if (kind == CLREDUCE_EXCLUSIVE)
            scan_add(op, type, &st, &x);
    }
}

void tc_format(clreduce_type type, const tc_value *v, char *buf, size_t size)
{
    switch (type) {
    case CLREDUCE_FLOAT: {
        uint32_t bits;
        memcpy(&bits, &v->f, sizeof bits);
        snprintf(buf, size, "%.9g (0x%08" PRIx32 ")", (double)v->f, bits);
        break;
    }
    case CLREDUCE_DOUBLE:
        snprintf(buf, size, "%.17g (0x%016" PRIx64 ")", v->d, v->u64);
        break;
    case CLREDUCE_INT32: snprintf(buf, size, "%" PRId32, v->i32); break;
    case CLREDUCE_UINT32: snprintf(buf, size, "%" PRIu32, v->u32); break;
    case CLREDUCE_INT64: snprintf(buf, size, "%" PRId64, v->i64); break;
    case CLREDUCE_UINT64: snprintf(buf, size, "%" PRIu64, v->u64); break;
    default: snprintf(buf, size, "0x%016" PRIx64, v->u64); break;
    }
}

int tc_contains(const char *text, const char *word)
{
    if (!text || !word)
        return 0;
    size_t n = strlen(word);
    for (; *text; text++) {
        size_t i = 0;
        while (i < n && text[i] &&
               tolower((unsigned char)text[i]) == tolower((unsigned char)word[i]))
            i++;
        if (i == n)
            return 1;
    }
    return n == 0;
}

const char *tc_variant_name(clreduce_variant v)
{
    const char *name = clreduce_variant_name(v);
    return name ? name : "?";
}

const char *tc_op_name(clreduce_op op)
{
    const char *name = clreduce_op_name(op);
    return name ? name : "?";
}

const char *tc_type_name(clreduce_type type)
{
    const char *name = clreduce_type_name(type);
    return name ? name : "?";
}

const char *tc_scan_kind_name(clreduce_scan_kind kind)
{
    const char *name = clreduce_scan_kind_name(kind);
    return name ? name : "?";
}

const char *tc_scan_variant_name(clreduce_scan_variant v)
{
    const char *name = clreduce_scan_variant_name(v);
    return name ? name : "?";
}

/* ---- one reduction on the device ------------------------------------------------- */

static int all_bytes(const unsigned char *p, size_t n, unsigned char b)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != b)
            return 0;
    return 1;
}

int tc_run_reduce(clreduce_ctx *ctx, cl_command_queue queue, clreduce_op op, clreduce_type type,
                  clreduce_variant variant, const void *data, size_t n, const tc_layout *layout,
                  tc_run *run)
{
    memset(run, 0, sizeof *run);
    run->status = CLREDUCE_ERROR_OPENCL;
    size_t es = esize(type);
    size_t total = layout->offset + n + layout->tail;
    size_t rcount = layout->result_offset + 3;
    unsigned char *host = malloc((total ? total : 1) * es);
    unsigned char *res = malloc(rcount * es);
    cl_mem in = NULL, out = NULL;
    cl_event upload = NULL, done = TC_EVENT_SENTINEL;
    cl_int err = CL_SUCCESS;
    if (!host || !res) {
        snprintf(run->problem, sizeof run->problem, "out of host memory");
        goto done_all;
    }
    tc_value poison;
    tc_poison(op, type, &poison);
    for (size_t i = 0; i < layout->offset; i++)
        tc_set(type, host, i, &poison);
    if (n)
        memcpy(host + layout->offset * es, data, n * es);
    for (size_t i = layout->offset + n; i < total; i++)
        tc_set(type, host, i, &poison);
    memset(res, TC_SENTINEL_BYTE, rcount * es);

    cl_context cl = clreduce_get_cl_context(ctx);
    in = clCreateBuffer(cl, CL_MEM_READ_WRITE, (total ? total : 1) * es, NULL, &err);
    if (err == CL_SUCCESS)
        out = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, rcount * es, res, &err);
    if (err == CL_SUCCESS && total)
        err = clEnqueueWriteBuffer(queue, in, layout->use_wait_list ? CL_FALSE : CL_TRUE, 0,
                                   total * es, host, 0, NULL,
                                   layout->use_wait_list ? &upload : NULL);
    if (err != CL_SUCCESS) {
        snprintf(run->problem, sizeof run->problem, "setting up the buffers failed: %d",
                 (int)err);
        goto done_all;
    }

    run->status = clreduce_reduce(ctx, queue, op, type, variant, in, layout->offset, n, out,
                                  layout->result_offset, upload ? 1 : 0, upload ? &upload : NULL,
                                  &done);
    int have_done = run->status == CLREDUCE_SUCCESS && done && done != TC_EVENT_SENTINEL;
    if (run->status == CLREDUCE_SUCCESS && !have_done) {
        snprintf(run->problem, sizeof run->problem, "success but no done event");
    } else if (have_done) {
        cl_int st = CL_QUEUED;
        cl_command_queue eq = NULL;
        err = clWaitForEvents(1, &done);
        if (err == CL_SUCCESS)
            err = clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
        if (err == CL_SUCCESS)
            err = clGetEventInfo(done, CL_EVENT_COMMAND_QUEUE, sizeof eq, &eq, NULL);
        if (err != CL_SUCCESS)
            snprintf(run->problem, sizeof run->problem, "waiting on done failed: %d", (int)err);
        else if (st != CL_COMPLETE)
            snprintf(run->problem, sizeof run->problem,
                     "done event not complete after clWaitForEvents (status %d)", (int)st);
        else if (eq != queue)
            snprintf(run->problem, sizeof run->problem, "done event belongs to another queue");
    } else if (done != TC_EVENT_SENTINEL) {
        snprintf(run->problem, sizeof run->problem, "done written although the call failed (%s)",
                 clreduce_status_string(run->status));
    }
    /* Read behind the done event only, on the read queue if there is one. */
    cl_command_queue rq = have_done && layout->read_queue ? layout->read_queue : queue;
    err = clEnqueueReadBuffer(rq, out, CL_TRUE, 0, rcount * es, res, have_done ? 1 : 0,
                              have_done ? &done : NULL, NULL);
    if (have_done)
        clReleaseEvent(done);
    if (err == CL_SUCCESS)
        err = clFinish(queue);
    if (err != CL_SUCCESS && !run->problem[0])
        snprintf(run->problem, sizeof run->problem, "reading the result failed: %d", (int)err);

    memcpy(run->got.bytes, res + layout->result_offset * es, es);
    run->result_untouched = all_bytes(res + layout->result_offset * es, es, TC_SENTINEL_BYTE);
    run->neighbours_untouched =
        all_bytes(res, layout->result_offset * es, TC_SENTINEL_BYTE) &&
        all_bytes(res + (layout->result_offset + 1) * es, (rcount - layout->result_offset - 1) * es,
                  TC_SENTINEL_BYTE);

done_all:
    if (upload) {
        clWaitForEvents(1, &upload);
        clReleaseEvent(upload);
    }
    if (in)
        clReleaseMemObject(in);
    if (out)
        clReleaseMemObject(out);
    free(host);
    free(res);
    return run->problem[0] ? -1 : 0;
}

int tc_scan_matches(clreduce_op op, clreduce_type type, clreduce_scan_kind kind,
                    const void *input, size_t n, const void *output, char *why, size_t why_size)
{
    tc_scan_mismatch m;
    if (tc_check_scan(op, type, kind, input, n, output, &m))
        return 1;
    char got[96], expected[96];
    tc_format(type, &m.got, got, sizeof got);
    tc_format(type, &m.expected, expected, sizeof expected);
    snprintf(why, why_size, "%zu of %zu elements wrong; first: element %zu = %s, expected %s",
             m.wrong, n, m.index, got, expected);
    return 0;
}
