// cub_reduce: the CUB yardstick for clreduce-bench.
//
// Times cub::DeviceReduce::Sum, ::Min and ::Max over float, int32 and double,
// and cub::DeviceScan::InclusiveSum over float, the way clreduce-bench times
// clreduce: random input checked against a host reference before timing,
// warm-up, then timed runs with CUDA events around each call (temporary
// storage allocated once, outside the timed region); median and minimum
// device time, median end-to-end time (host clock, from before the call to
// the return of a blocking copy of the result), GB/s from the median. Small
// inputs are rotated over copies that together exceed the L2 cache, so every
// call reads from memory. The bandwidth ceiling is a read-only streaming
// kernel measured here, as clreduce-bench measures its own.
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 bench/peers/cub_reduce.cu -o cub_reduce
// Run:   ./cub_reduce [--sizes 2^20,2^24,1e8] [--csv cub.csv]   (--help for all)
//
// The CSV has the columns of clreduce-bench's, with variant "cub", so that
// bench/plot.py draws both on one chart. Scan rows have op "inclusive_scan"
// and scan_op "sum", count read + write bytes and are compared with the copy
// peak; their outputs rotate over as many copies as the inputs, as
// clreduce-bench's do.

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <type_traits>
#include <vector>

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t check_err_ = (call);                                                         \
        if (check_err_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "cub_reduce: %s failed: %s (line %d)\n", #call,                 \
                         cudaGetErrorString(check_err_), __LINE__);                              \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

namespace {

enum class Op { Sum, Min, Max, Scan };

const char *op_name(Op op)
{
    switch (op) {
    case Op::Sum: return "sum";
    case Op::Min: return "min";
    case Op::Max: return "max";
    case Op::Scan: return "inclusive_scan";
    }
    return "?";
}

struct Options {
    std::vector<size_t> sizes;
    std::vector<std::string> types;
    std::vector<Op> ops;
    int runs = 20, warmup = 5;
    int device = 0;
    bool peak = true;
    std::string csv;
};

struct Row {
    std::string op, type;
    size_t elements = 0, bytes = 0;
    double median_us = NAN, min_us = NAN, e2e_us = NAN, gbps = NAN;
    std::string status;
};

struct Context {
    cudaDeviceProp prop;
    std::string driver, date;
    double peak_gbps = NAN, copy_gbps = NAN;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    size_t working_set = 0;
    bool failed = false;
};

double now_us()
{
    return std::chrono::duration<double, std::micro>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// ---- random numbers (xoshiro256**, seeded by splitmix64) --------------------

struct Rng {
    uint64_t s[4];
    explicit Rng(uint64_t seed)
    {
        for (auto &w : s) {
            uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            w = z ^ (z >> 31);
        }
    }
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t next()
    {
        uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = rotl(s[3], 45);
        return result;
    }
};

// Values as clreduce-bench draws them: floating point uniform in [-1, 1),
// int32 in [-1000, 1000]; one planted minimum and maximum outside the range.
template <typename T> struct Traits;
template <> struct Traits<float> {
    static const char *name() { return "float"; }
    static float draw(uint64_t x) { return (float)((int32_t)(x >> 40) - (1 << 23)) * 0x1p-23f; }
    static float low() { return -1.5f; }
    static float high() { return 1.5f; }
    static constexpr double tolerance = 1e-5;
    static constexpr bool exact = false;
};
template <> struct Traits<double> {
    static const char *name() { return "double"; }
    static double draw(uint64_t x)
    {
        return (double)((int64_t)(x >> 11) - ((int64_t)1 << 52)) * 0x1p-52;
    }
    static double low() { return -1.5; }
    static double high() { return 1.5; }
    static constexpr double tolerance = 1e-12;
    static constexpr bool exact = false;
};
template <> struct Traits<int32_t> {
    static const char *name() { return "int32"; }
    static int32_t draw(uint64_t x) { return (int32_t)((x >> 32) % 2001) - 1000; }
    static int32_t low() { return -1001; }
    static int32_t high() { return 1001; }
    static constexpr double tolerance = 0;
    static constexpr bool exact = true;
};

// ---- input on the device and its reference ----------------------------------

template <typename T> struct Dataset {
    size_t n = 0, stride = 0, copies = 1, cursor = 0;
    T *d_buf = nullptr;
    long double sum = 0, abs_sum = 0;
    uint64_t isum = 0; // wrapped sum for integers
    T mn{}, mx{};
    // Inclusive-scan reference at sample positions.
    std::vector<size_t> sample_pos;
    std::vector<long double> sample_prefix, sample_abs;

    // The index of the next copy to use.
    size_t next_index()
    {
        size_t i = cursor;
        cursor = (cursor + 1) % copies;
        return i;
    }
};

template <typename T> void dataset_create(Dataset<T> &ds, size_t n, size_t working_set, size_t limit)
{
    ds.n = n;
    size_t bytes = n * sizeof(T);
    size_t stride_bytes = (bytes + 511) / 512 * 512;
    ds.stride = stride_bytes / sizeof(T);
    ds.copies = stride_bytes < working_set ? (working_set + stride_bytes - 1) / stride_bytes : 1;
    if (ds.copies * stride_bytes > limit)
        ds.copies = std::max<size_t>(1, limit / stride_bytes);
    CHECK(cudaMalloc(&ds.d_buf, ds.copies * stride_bytes));

    Rng rng(0x5eed ^ ((uint64_t)sizeof(T) << 56) ^ (uint64_t)n * 0x9e3779b97f4a7c15ull);
    size_t plant_min = rng.next() % n, plant_max = rng.next() % n;
    if (plant_max == plant_min)
        plant_max = (plant_min + 1) % n;
    bool plant = n > 1;
    for (int i = 0; i <= 64; i++) // 65 positions from 0 to n - 1
        ds.sample_pos.push_back((size_t)((double)(n - 1) * i / 64.0));
    size_t next_sample = 0;

    const size_t chunk = std::min<size_t>(n, (size_t)1 << 22);
    std::vector<T> host(chunk);
    long double comp = 0;
    for (size_t base = 0; base < n; base += chunk) {
        size_t m = std::min(chunk, n - base);
        for (size_t i = 0; i < m; i++) {
            size_t g = base + i;
            T v = Traits<T>::draw(rng.next());
            if (plant && g == plant_min)
                v = Traits<T>::low();
            if (plant && g == plant_max)
                v = Traits<T>::high();
            host[i] = v;
            if (g == 0 || v < ds.mn)
                ds.mn = v;
            if (g == 0 || v > ds.mx)
                ds.mx = v;
            if (Traits<T>::exact) {
                ds.isum += (uint64_t)(int64_t)v;
            } else { // Neumaier's compensated sum in extended precision
                long double x = v, t = ds.sum + x;
                comp += std::fabs(ds.sum) >= std::fabs(x) ? (ds.sum - t) + x : (x - t) + ds.sum;
                ds.sum = t;
                ds.abs_sum += std::fabs(x);
            }
            while (next_sample < ds.sample_pos.size() && ds.sample_pos[next_sample] == g) {
                ds.sample_prefix.push_back(ds.sum + comp);
                ds.sample_abs.push_back(ds.abs_sum);
                next_sample++;
            }
        }
        CHECK(cudaMemcpy(ds.d_buf + base, host.data(), m * sizeof(T), cudaMemcpyHostToDevice));
    }
    ds.sum += comp;
    for (size_t have = 1; have < ds.copies;) {
        size_t k = std::min(have, ds.copies - have);
        CHECK(cudaMemcpy(reinterpret_cast<char *>(ds.d_buf) + have * stride_bytes, ds.d_buf,
                         k * stride_bytes, cudaMemcpyDeviceToDevice));
        have += k;
    }
    CHECK(cudaDeviceSynchronize());
}

template <typename T> std::string show(T v)
{
    char buf[64];
    if (Traits<T>::exact)
        std::snprintf(buf, sizeof buf, "%" PRId64, (int64_t)v);
    else
        std::snprintf(buf, sizeof buf, "%.17g", (double)v);
    return buf;
}

// Empty string if right, else what is wrong.
template <typename T> std::string check_value(const Dataset<T> &ds, Op op, T got)
{
    if (op == Op::Min || op == Op::Max) {
        T want = op == Op::Min ? ds.mn : ds.mx;
        return std::memcmp(&got, &want, sizeof(T)) == 0
                   ? ""
                   : std::string(op_name(op)) + " = " + show(got) + ", expected " + show(want);
    }
    if (Traits<T>::exact) {
        T want = (T)(int64_t)ds.isum; // wraps like the device
        return got == want ? "" : "sum = " + show(got) + ", expected " + show(want);
    }
    long double diff = std::fabs((long double)got - ds.sum);
    long double tol = Traits<T>::tolerance * ds.abs_sum;
    if (diff <= tol)
        return "";
    return "sum = " + show(got) + ", expected " + show((double)ds.sum) + " (tolerance " +
           show((double)tol) + ")";
}

template <typename T> std::string check_scan(const Dataset<T> &ds, const T *d_out)
{
    for (size_t i = 0; i < ds.sample_pos.size(); i++) {
        T got;
        CHECK(cudaMemcpy(&got, d_out + ds.sample_pos[i], sizeof(T), cudaMemcpyDeviceToHost));
        long double diff = std::fabs((long double)got - ds.sample_prefix[i]);
        long double tol = Traits<T>::tolerance * ds.sample_abs[i] + 1e-6L;
        if (!(diff <= tol))
            return "scan[" + std::to_string(ds.sample_pos[i]) + "] = " + show(got) + ", expected " +
                   show((double)ds.sample_prefix[i]);
    }
    return "";
}

// ---- one measurement -------------------------------------------------------------

template <typename T>
cudaError_t run_op(Op op, void *temp, size_t &temp_bytes, const T *in, T *out, size_t n,
                   cudaStream_t s)
{
    switch (op) {
    case Op::Sum: return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, (int64_t)n, s);
    case Op::Min: return cub::DeviceReduce::Min(temp, temp_bytes, in, out, (int64_t)n, s);
    case Op::Max: return cub::DeviceReduce::Max(temp, temp_bytes, in, out, (int64_t)n, s);
    case Op::Scan: return cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, (int64_t)n, s);
    }
    return cudaErrorInvalidValue;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t k = v.size();
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

template <typename T> Row measure(Context &c, Dataset<T> &ds, Op op, const Options &o)
{
    Row r;
    r.op = op_name(op);
    r.type = Traits<T>::name();
    r.elements = ds.n;
    r.bytes = ds.n * sizeof(T) * (op == Op::Scan ? 2 : 1);

    // A scan's output rotates with its input: copy i of the input is scanned
    // into copy i of the output.
    bool scan = op == Op::Scan;
    size_t out_stride = scan ? ds.stride : 0;
    size_t out_elems = scan ? ds.copies * ds.stride : 1;
    T *d_out = nullptr;
    CHECK(cudaMalloc(&d_out, out_elems * sizeof(T)));
    size_t temp_bytes = 0;
    CHECK(run_op<T>(op, nullptr, temp_bytes, ds.d_buf, d_out, ds.n, c.stream));
    void *temp = nullptr;
    CHECK(cudaMalloc(&temp, std::max<size_t>(temp_bytes, 1)));
    size_t last = scan ? ds.n - 1 : 0;

    // Checked call into a poisoned result.
    CHECK(cudaMemset(d_out, 0xff, out_elems * sizeof(T)));
    size_t k = ds.next_index();
    T *out = d_out + k * out_stride;
    CHECK(run_op<T>(op, temp, temp_bytes, ds.d_buf + k * ds.stride, out, ds.n, c.stream));
    CHECK(cudaStreamSynchronize(c.stream));
    T got;
    CHECK(cudaMemcpy(&got, out + last, sizeof(T), cudaMemcpyDeviceToHost));
    std::string wrong = scan ? check_scan(ds, out) : check_value(ds, op, got);

    if (wrong.empty()) {
        for (int w = 0; w < o.warmup; w++) {
            k = ds.next_index();
            CHECK(run_op<T>(op, temp, temp_bytes, ds.d_buf + k * ds.stride, d_out + k * out_stride,
                            ds.n, c.stream));
        }
        CHECK(cudaStreamSynchronize(c.stream));
        std::vector<double> dev, e2e;
        for (int i = 0; i < o.runs && wrong.empty(); i++) {
            k = ds.next_index();
            const T *in = ds.d_buf + k * ds.stride;
            out = d_out + k * out_stride;
            double t0 = now_us();
            CHECK(cudaEventRecord(c.start, c.stream));
            CHECK(run_op<T>(op, temp, temp_bytes, in, out, ds.n, c.stream));
            CHECK(cudaEventRecord(c.stop, c.stream));
            CHECK(cudaMemcpyAsync(&got, out + last, sizeof(T), cudaMemcpyDeviceToHost, c.stream));
            CHECK(cudaStreamSynchronize(c.stream));
            double t1 = now_us();
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, c.start, c.stop));
            dev.push_back(ms * 1e3);
            e2e.push_back(t1 - t0);
            wrong = scan ? check_scan(ds, out) : check_value(ds, op, got);
            if (!wrong.empty())
                wrong = "timed run " + std::to_string(i + 1) + ": " + wrong;
        }
        if (wrong.empty()) {
            r.median_us = median(dev);
            r.min_us = *std::min_element(dev.begin(), dev.end());
            r.e2e_us = median(e2e);
            r.gbps = (double)r.bytes / (r.median_us * 1e3);
            r.status = "ok";
        }
    }
    if (!wrong.empty()) {
        r.status = "WRONG RESULT: " + wrong;
        std::fprintf(stderr, "cub_reduce: WRONG RESULT: %s %s %zu: %s\n", r.op.c_str(),
                     r.type.c_str(), r.elements, wrong.c_str());
        c.failed = true;
    }
    CHECK(cudaFree(temp));
    CHECK(cudaFree(d_out));
    return r;
}

// ---- bandwidth ceiling ------------------------------------------------------------

template <int U> __global__ void peak_read(const float4 *__restrict__ in, size_t n, float *out)
{
    size_t wg = blockDim.x;
    size_t i = (size_t)blockIdx.x * U * wg + threadIdx.x;
    size_t stride = (size_t)gridDim.x * U * wg;
    float4 acc = make_float4(0, 0, 0, 0);
    for (; i + (U - 1) * wg < n; i += stride) {
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            v[u] = in[i + u * wg];
#pragma unroll
        for (int u = 0; u < U; u++) {
            acc.x += v[u].x;
            acc.y += v[u].y;
            acc.z += v[u].z;
            acc.w += v[u].w;
        }
    }
    for (int u = 0; u < U; u++, i += wg)
        if (i < n) {
            float4 v = in[i];
            acc.x += v.x;
            acc.y += v.y;
            acc.z += v.z;
            acc.w += v.w;
        }
    float s = (acc.x + acc.y) + (acc.z + acc.w);
    if (s == -1.2345f) // never true for the data: keeps the reads
        out[0] = s;
}

template <int U> double best_peak(Context &c, const float4 *in, size_t n4, float *out)
{
    double best = 0;
    for (int groups : {4, 8, 16, 32}) {
        int blocks = c.prop.multiProcessorCount * groups;
        for (int r = 0; r <= 10; r++) {
            CHECK(cudaEventRecord(c.start, c.stream));
            peak_read<U><<<blocks, 256, 0, c.stream>>>(in, n4, out);
            CHECK(cudaGetLastError());
            CHECK(cudaEventRecord(c.stop, c.stream));
            CHECK(cudaEventSynchronize(c.stop));
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, c.start, c.stop));
            double gbps = (double)n4 * 16 / (ms * 1e6);
            if (r > 0)
                best = std::max(best, gbps);
        }
    }
    return best;
}

void measure_peak(Context &c)
{
    size_t bytes = (size_t)1 << 30;
    void *src = nullptr, *dst = nullptr;
    CHECK(cudaMalloc(&src, bytes));
    CHECK(cudaMalloc(&dst, bytes));
    CHECK(cudaMemset(src, 0, bytes)); // zeros: the kernel's condition stays false
    CHECK(cudaMemset(dst, 0, bytes));
    double best = 0;
    for (int r = 0; r <= 10; r++) {
        CHECK(cudaEventRecord(c.start, c.stream));
        CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, c.stream));
        CHECK(cudaEventRecord(c.stop, c.stream));
        CHECK(cudaEventSynchronize(c.stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, c.start, c.stop));
        if (r > 0)
            best = std::max(best, 2.0 * (double)bytes / (ms * 1e6));
    }
    c.copy_gbps = best;
    const float4 *in = static_cast<const float4 *>(src);
    float *out = static_cast<float *>(dst);
    size_t n4 = bytes / 16;
    c.peak_gbps = std::max({best_peak<1>(c, in, n4, out), best_peak<2>(c, in, n4, out),
                            best_peak<4>(c, in, n4, out), best_peak<8>(c, in, n4, out)});
    CHECK(cudaFree(dst));
    CHECK(cudaFree(src));
}

// ---- options ----------------------------------------------------------------------

void usage(FILE *f)
{
    std::fputs(
        "usage: cub_reduce [options]\n"
        "  --sizes LIST   element counts: 1048576, 2^20, 1e8 (default 2^20,2^24,1e8,2^28,2^30;\n"
        "                 sizes that do not fit in 40% of the free memory are skipped)\n"
        "  --types LIST   float, int32, double (default: all three)\n"
        "  --ops LIST     sum, min, max, scan (default: all; scan = DeviceScan::InclusiveSum,\n"
        "                 float only, read + write bytes)\n"
        "  --runs N       timed runs (default 20)\n"
        "  --warmup N     untimed runs before them (default 5)\n"
        "  --device N     CUDA device index (default 0)\n"
        "  --no-peak      do not measure the bandwidth ceilings (read-only kernel, copy)\n"
        "  --csv FILE     also write the rows as CSV (clreduce-bench's columns)\n"
        "  --help         this text\n"
        "Exit status: 0 success, 1 a CUDA failure or a wrong result, 2 bad usage.\n",
        f);
}

[[noreturn]] void usage_error(const std::string &msg)
{
    std::fprintf(stderr, "cub_reduce: %s (see --help)\n", msg.c_str());
    std::exit(2);
}

bool parse_count(const std::string &text, size_t &out)
{
    size_t caret = text.find('^');
    char *end = nullptr;
    if (caret != std::string::npos) {
        unsigned long base = std::strtoul(text.substr(0, caret).c_str(), &end, 10);
        if (*end || base < 2)
            return false;
        unsigned long e = std::strtoul(text.c_str() + caret + 1, &end, 10);
        if (*end || caret + 1 == text.size() || std::pow((double)base, (double)e) > 1e15)
            return false;
        out = 1;
        for (unsigned long i = 0; i < e; i++)
            out *= base;
        return true;
    }
    double v = std::strtod(text.c_str(), &end);
    if (*end || !(v >= 1) || v != std::floor(v) || v > 1e15)
        return false;
    out = (size_t)v;
    return true;
}

std::vector<std::string> split(const std::string &s)
{
    std::vector<std::string> items;
    size_t start = 0;
    while (start <= s.size()) {
        size_t comma = s.find(',', start);
        if (comma == std::string::npos)
            comma = s.size();
        std::string item = s.substr(start, comma - start);
        if (item.empty())
            usage_error("empty item in \"" + s + "\"");
        items.push_back(item);
        start = comma + 1;
    }
    return items;
}

Options parse_options(int argc, char **argv)
{
    Options o;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc)
                usage_error(a + " needs a value");
            return argv[++i];
        };
        auto number = [&](const std::string &v) {
            char *end;
            long n = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || n < 0 || n > 1000000)
                usage_error(a + " wants a whole number, not \"" + v + "\"");
            return (int)n;
        };
        if (a == "--help" || a == "-h") {
            usage(stdout);
            std::exit(0);
        } else if (a == "--sizes") {
            for (const auto &item : split(value())) {
                size_t n;
                if (!parse_count(item, n))
                    usage_error("bad size \"" + item + "\"");
                o.sizes.push_back(n);
            }
        } else if (a == "--types") {
            for (const auto &item : split(value())) {
                if (item != "float" && item != "int32" && item != "double")
                    usage_error("unknown type \"" + item + "\" (float, int32, double)");
                o.types.push_back(item);
            }
        } else if (a == "--ops") {
            for (const auto &item : split(value())) {
                if (item == "sum")
                    o.ops.push_back(Op::Sum);
                else if (item == "min")
                    o.ops.push_back(Op::Min);
                else if (item == "max")
                    o.ops.push_back(Op::Max);
                else if (item == "scan")
                    o.ops.push_back(Op::Scan);
                else
                    usage_error("unknown op \"" + item + "\" (sum, min, max, scan)");
            }
        } else if (a == "--runs") {
            o.runs = number(value());
            if (o.runs < 1)
                usage_error("--runs must be at least 1");
        } else if (a == "--warmup") {
            o.warmup = number(value());
        } else if (a == "--device") {
            o.device = number(value());
        } else if (a == "--no-peak") {
            o.peak = false;
        } else if (a == "--csv") {
            o.csv = value();
        } else {
            usage_error("unknown option \"" + a + "\"");
        }
    }
    if (o.sizes.empty())
        o.sizes = {(size_t)1 << 20, (size_t)1 << 24, (size_t)100000000, (size_t)1 << 28,
                   (size_t)1 << 30};
    if (o.types.empty())
        o.types = {"float", "int32", "double"};
    if (o.ops.empty())
        o.ops = {Op::Sum, Op::Min, Op::Max, Op::Scan};
    return o;
}

// ---- output ------------------------------------------------------------------------

std::string size_label(size_t n)
{
    if (n && !(n & (n - 1))) {
        int k = 0;
        while (((size_t)1 << k) != n)
            k++;
        return "2^" + std::to_string(k);
    }
    return std::to_string(n);
}

// peak: the read-only kernel's for reductions, the copy's for the scan.
void print_row(const Row &r, double peak)
{
    if (std::isnan(r.median_us)) {
        std::printf("%-6s %-14s %-6s %9s %11s %11s %11s %9s %6s  %s\n", "cub", r.op.c_str(),
                    r.type.c_str(), size_label(r.elements).c_str(), "-", "-", "-", "-", "-",
                    r.status.c_str());
        return;
    }
    char pct[16] = "-";
    if (!std::isnan(peak))
        std::snprintf(pct, sizeof pct, "%.1f%%", 100.0 * r.gbps / peak);
    std::printf("%-6s %-14s %-6s %9s %11.2f %11.2f %11.2f %9.1f %6s  %s\n", "cub", r.op.c_str(),
                r.type.c_str(), size_label(r.elements).c_str(), r.median_us, r.min_us, r.e2e_us,
                r.gbps, pct, r.status.c_str());
    std::fflush(stdout);
}

std::string csv_quote(const std::string &s)
{
    std::string q = "\"";
    for (char ch : s) {
        if (ch == '"')
            q += '"';
        q += ch == '\n' ? ' ' : ch;
    }
    return q + "\"";
}

std::string csv_num(double v, const char *fmt)
{
    if (std::isnan(v))
        return "";
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

bool write_csv(const Context &c, const std::string &path, const std::vector<Row> &rows)
{
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f)
        return false;
    std::fputs("device,driver,date,variant,op,type,elements,bytes,median_us,min_us,"
               "e2e_median_us,gbps,pct_peak,peak_gbps,speedup_vs_interleaved,status,scan_op,"
               "in_place,peak_kind\n",
               f);
    for (const Row &r : rows) {
        // A scan also writes: its peak is the copy's (read + write bytes).
        bool scan = r.op == "inclusive_scan";
        double peak = scan ? c.copy_gbps : c.peak_gbps;
        double pct = 100.0 * r.gbps / peak;
        const char *kind = std::isnan(peak) ? "" : scan ? "copy" : "read";
        std::fprintf(f, "%s,%s,%s,cub,%s,%s,%zu,%zu,%s,%s,%s,%s,%s,%s,,%s,%s,%s,%s\n",
                     csv_quote(c.prop.name).c_str(), csv_quote(c.driver).c_str(), c.date.c_str(),
                     r.op.c_str(), r.type.c_str(), r.elements, r.bytes,
                     csv_num(r.median_us, "%.3f").c_str(), csv_num(r.min_us, "%.3f").c_str(),
                     csv_num(r.e2e_us, "%.3f").c_str(), csv_num(r.gbps, "%.3f").c_str(),
                     csv_num(pct, "%.2f").c_str(), csv_num(peak, "%.3f").c_str(),
                     csv_quote(r.status).c_str(), scan ? "sum" : "", scan ? "0" : "", kind);
    }
    return std::fclose(f) == 0;
}

template <typename T> void run_type(Context &c, const Options &o, std::vector<Row> &rows)
{
    for (size_t n : o.sizes) {
        std::vector<Op> ops;
        for (Op op : o.ops)
            if (op != Op::Scan || std::is_same<T, float>::value)
                ops.push_back(op);
        if (ops.empty())
            continue;
        bool scan = std::find(ops.begin(), ops.end(), Op::Scan) != ops.end();
        size_t free_bytes = 0, total_bytes = 0;
        CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        size_t limit = free_bytes / 10 * 4;
        size_t need = n * sizeof(T) * (scan ? 2 : 1);
        if (need > limit) {
            std::printf("# skipped %s %s: %zu bytes do not fit in 40%% of the free memory\n",
                        size_label(n).c_str(), Traits<T>::name(), need);
            continue;
        }
        Dataset<T> ds;
        // The scan's output rotates over as many copies as the input.
        dataset_create(ds, n, c.working_set, scan ? limit / 2 : limit);
        for (Op op : ops) {
            rows.push_back(measure(c, ds, op, o));
            print_row(rows.back(), op == Op::Scan ? c.copy_gbps : c.peak_gbps);
        }
        CHECK(cudaFree(ds.d_buf));
    }
}

} // namespace

int main(int argc, char **argv)
{
    Options o = parse_options(argc, argv);
    Context c;
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    if (o.device >= count) {
        std::fprintf(stderr, "cub_reduce: no CUDA device %d (%d found)\n", o.device, count);
        return 2;
    }
    CHECK(cudaSetDevice(o.device));
    CHECK(cudaGetDeviceProperties(&c.prop, o.device));
    int drv = 0, rt = 0;
    CHECK(cudaDriverGetVersion(&drv));
    CHECK(cudaRuntimeGetVersion(&rt));
    c.driver = "CUDA driver " + std::to_string(drv / 1000) + "." + std::to_string(drv % 1000 / 10) +
               ", runtime " + std::to_string(rt / 1000) + "." + std::to_string(rt % 1000 / 10);
    char date[64];
    std::time_t t = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    c.date = date;
    CHECK(cudaStreamCreate(&c.stream));
    CHECK(cudaEventCreate(&c.start));
    CHECK(cudaEventCreate(&c.stop));
    c.working_set = std::max<size_t>((size_t)4 * c.prop.l2CacheSize, (size_t)256 << 20);

    if (o.peak)
        measure_peak(c);
    std::printf("# cub_reduce (CUB %d.%d.%d) | device: %s (%d SMs, %.1f GB) | driver: %s | date: %s "
                "| runs %d, warm-up %d | ",
                CUB_VERSION / 100000, CUB_VERSION / 100 % 1000, CUB_VERSION % 100, c.prop.name,
                c.prop.multiProcessorCount, (double)c.prop.totalGlobalMem / 1e9, c.driver.c_str(),
                c.date.c_str(), o.runs, o.warmup);
    if (o.peak)
        std::printf("peak: read-only kernel %.1f GB/s, copy %.1f GB/s (read+write bytes); %%peak "
                    "is relative to the read-only kernel peak for reductions, to the copy peak "
                    "for scans\n",
                    c.peak_gbps, c.copy_gbps);
    else
        std::printf("peak: not measured (--no-peak)\n");
    std::printf("%-6s %-14s %-6s %9s %11s %11s %11s %9s %6s  %s\n", "", "op", "type", "elements",
                "median_us", "min_us", "e2e_us", "GB/s", "%peak", "status");

    std::vector<Row> rows;
    for (const std::string &type : o.types) {
        if (type == "float")
            run_type<float>(c, o, rows);
        else if (type == "int32")
            run_type<int32_t>(c, o, rows);
        else
            run_type<double>(c, o, rows);
    }
    if (!o.csv.empty() && !write_csv(c, o.csv, rows)) {
        std::fprintf(stderr, "cub_reduce: writing %s failed\n", o.csv.c_str());
        c.failed = true;
    }
    CHECK(cudaEventDestroy(c.start));
    CHECK(cudaEventDestroy(c.stop));
    CHECK(cudaStreamDestroy(c.stream));
    return c.failed ? 1 : 0;
}
