// cub_operators: NVIDIA CUB's reductions beyond sum, min and max, timed on
// the same terms as clreduce-bench and cub_reduce: cub::DeviceReduce::ArgMax
// and ::ArgMin (value and 64-bit index), the dot product of two arrays and
// the sum of squares through ::TransformReduce, and ::Sum as the yardstick
// in the same run. Over half and bfloat16, clreduce-bench's storage types,
// only the sum is timed: ::TransformReduce widening each element to float
// and adding in float.
//
// call_us is the median of cudaEventRecord just before the call to
// cudaEventRecord just after it, over --runs calls (default 40) after 5
// warm-up calls, each timed call right after an untimed one; host_us the
// median host time inside the timed calls; b2b_us the host time per call of
// batches enqueued back to back between two cudaDeviceSynchronize (median of
// 3). Temporary storage is allocated once, outside the timed region. The
// input is drawn as clreduce-bench draws it and rotated over copies as
// cub_reduce does; the dot product's second input is drawn the same way from
// another seed. Every result is poisoned before the call and checked against
// a host reference (argmax/argmin exactly; sums within 1e-5 (float) or 1e-12
// (double) of the sum of the absolute terms; half and bfloat16 sums exactly
// while that sum is at most 2^22, within 1e-5 of it beyond).
//
//   nvcc -O3 -arch=sm_90 -std=c++17 bench/peers/cub_operators.cu -o cub_operators
//   ./cub_operators --sizes 2^24,2^28 --types float,double --csv cub-operators.csv
//   ./cub_operators --sizes 2^24,2^28,2^30 --types float,half,bfloat16 --ops sum
#include <cub/cub.cuh>
#include <cuda/std/functional>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cub_data.cuh"
#include "cub_options.h"
#include "cub_report.h"
#include "cub_timing.h"

namespace {

enum class Which { Sum, ArgMax, ArgMin, Dot, SumSquares };

const char *which_name(Which w)
{
    switch (w) {
    case Which::Sum: return "sum";
    case Which::ArgMax: return "argmax";
    case Which::ArgMin: return "argmin";
    case Which::Dot: return "dot";
    default: return "sum_squares";
    }
}

template <typename T> struct Product {
    const T *a, *b;
    __host__ __device__ T operator()(int64_t i) const { return a[i] * b[i]; }
};
template <typename T> struct Square {
    __host__ __device__ T operator()(T x) const { return x * x; }
};

// half and bfloat16 hold the input only: their sum is taken in float, each
// element widened by the map of TransformReduce. narrow() makes the element
// from a float it holds exactly.
template <typename S> struct Widen;
template <> struct Widen<__half> {
    __host__ __device__ float operator()(__half x) const { return __half2float(x); }
    static __half narrow(float v) { return __float2half(v); }
};
template <> struct Widen<__nv_bfloat16> {
    __host__ __device__ float operator()(__nv_bfloat16 x) const { return __bfloat162float(x); }
    static __nv_bfloat16 narrow(float v) { return __float2bfloat16(v); }
};

// Their names, and the identities of min and max that Dataset's prefix starts
// from (never used: no min or max of them is timed).
template <> struct Traits<__half> {
    static const char *name() { return "half"; }
    static __half lowest() { return __float2half(-std::numeric_limits<float>::infinity()); }
    static __half highest() { return __float2half(std::numeric_limits<float>::infinity()); }
};
template <> struct Traits<__nv_bfloat16> {
    static const char *name() { return "bfloat16"; }
    static __nv_bfloat16 lowest()
    {
        return __float2bfloat16(-std::numeric_limits<float>::infinity());
    }
    static __nv_bfloat16 highest()
    {
        return __float2bfloat16(std::numeric_limits<float>::infinity());
    }
};

const std::vector<Column> COLUMNS = {
    {"lib", -6, cell_cub},        {"op", -12, cell_op},          {"type", -6, cell_type},
    {"elements", 9, cell_elements}, {"bytes", 9, cell_bytes},    {"copies", 6, cell_copies},
    {"call_us", 10, cell_call_us}, {"b2b_us", 10, cell_b2b_us}, {"host_us", 9, cell_host_us},
    {"GB/s", 9, cell_gbps}};

// The host references of one input.
template <typename T> struct Reference {
    long double sum = 0, sum_abs = 0, dot = 0, dot_abs = 0, sq = 0;
    T max = Traits<T>::lowest(), min = Traits<T>::highest();
    int64_t argmax = -1, argmin = -1;
};

template <typename T> struct Job {
    Which w;
    const Reference<T> *ref; // what the results must be
    Dataset<T> *ds;
    T *d_b;                  // the dot product's second input (one copy per input copy)
    T *d_value;              // result value
    int64_t *d_index;        // argmax/argmin index
    void *temp = nullptr;
    size_t temp_bytes = 0;
    cudaStream_t stream;
    size_t used = 0;         // the copy the last call read

    cudaError_t call(void *t, size_t &bytes, size_t k)
    {
        const T *a = ds->d_buf + k * ds->stride;
        const int64_t n = (int64_t)ds->n;
        switch (w) {
        case Which::Sum: return cub::DeviceReduce::Sum(t, bytes, a, d_value, n, stream);
        case Which::ArgMax:
            return cub::DeviceReduce::ArgMax(t, bytes, a, d_value, d_index, n, stream);
        case Which::ArgMin:
            return cub::DeviceReduce::ArgMin(t, bytes, a, d_value, d_index, n, stream);
        case Which::Dot:
            return cub::DeviceReduce::TransformReduce(
                t, bytes, thrust::counting_iterator<int64_t>(0), d_value, n,
                ::cuda::std::plus<T>{}, Product<T>{a, d_b + k * ds->stride}, T(0), stream);
        default:
            return cub::DeviceReduce::TransformReduce(t, bytes, a, d_value, n,
                                                      ::cuda::std::plus<T>{}, Square<T>{}, T(0),
                                                      stream);
        }
    }
    void enqueue()
    {
        used = ds->next_index();
        CHECK(call(temp, temp_bytes, used));
    }
    void poison()
    {
        CHECK(cudaMemsetAsync(d_value, 0xff, sizeof(T), stream));
        CHECK(cudaMemsetAsync(d_index, 0xff, sizeof(int64_t), stream));
    }
    std::string check()
    {
        T v;
        int64_t idx = -1;
        CHECK(cudaStreamSynchronize(stream));
        CHECK(cudaMemcpy(&v, d_value, sizeof v, cudaMemcpyDeviceToHost));
        if (w == Which::ArgMax || w == Which::ArgMin) {
            CHECK(cudaMemcpy(&idx, d_index, sizeof idx, cudaMemcpyDeviceToHost));
            T want = w == Which::ArgMax ? ref->max : ref->min;
            int64_t wi = w == Which::ArgMax ? ref->argmax : ref->argmin;
            if (v == want && idx == wi)
                return "";
            return "got " + show(v) + " at " + std::to_string(idx) + ", expected " + show(want) +
                   " at " + std::to_string(wi);
        }
        long double want = w == Which::Sum ? ref->sum : w == Which::Dot ? ref->dot : ref->sq;
        long double scale = w == Which::Sum   ? ref->sum_abs
                            : w == Which::Dot ? ref->dot_abs
                                              : ref->sq;
        long double tol = Traits<T>::reduce_tolerance * scale;
        if (std::fabs((long double)v - want) <= tol)
            return "";
        return "got " + show(v) + ", expected " + show((double)want);
    }
};

// A timed row completed with what was measured, printed and kept.
void report(Row &r, Which w, const char *type, size_t n, size_t bytes, size_t copies,
            std::vector<Row> &out)
{
    r.op = which_name(w);
    r.type = type;
    r.elements = n;
    r.bytes = bytes;
    r.copies = copies;
    r.gbps = r.bytes / (r.call_us * 1e3);
    print_row(COLUMNS, r);
    out.push_back(r);
}

// The reference of a half or bfloat16 sum: the widened elements added in
// long double, which holds every partial sum of them exactly.
struct WideReference {
    long double sum = 0, sum_abs = 0;
};

// A half or bfloat16 input as clreduce-bench draws it (bench/data.c): k / 4
// for k uniform in [-16, 16], which both hold exactly, with nothing planted
// (only the sum is timed); the same draws for both types, in copies laid out
// as dataset_create lays them (which cannot draw these types).
template <typename S>
void storage_create(Dataset<S> &ds, size_t n, size_t working_set, size_t limit,
                    WideReference &ref)
{
    size_t stride_bytes = dataset_allocate(ds, n, working_set, limit);

    // The 33 values, and what each widens to: the terms of the reference.
    S value[33];
    float wide[33];
    for (int k = 0; k < 33; k++) {
        value[k] = Widen<S>::narrow((float)(k - 16) * 0.25f);
        wide[k] = Widen<S>{}(value[k]);
    }
    Rng rng(0x5eed ^ ((uint64_t)sizeof(S) << 56) ^ (uint64_t)n * 0x9e3779b97f4a7c15ull);
    const size_t chunk = std::min<size_t>(n, (size_t)1 << 22);
    std::vector<S> host(chunk);
    for (size_t base = 0; base < n; base += chunk) {
        size_t m = std::min(chunk, n - base);
        for (size_t i = 0; i < m; i++) {
            int k = (int)((rng.next() >> 32) % 33);
            host[i] = value[k];
            ref.sum += wide[k];
            ref.sum_abs += std::fabs(wide[k]);
        }
        CHECK(cudaMemcpy(ds.d_buf + base, host.data(), m * sizeof(S), cudaMemcpyHostToDevice));
    }
    dataset_replicate(ds, stride_bytes);
}

// The float sum of a half or bfloat16 input, a job for time_job.
template <typename S> struct WideSumJob {
    const WideReference *ref; // what the sum must be
    Dataset<S> *ds;
    float *d_value;
    void *temp = nullptr;
    size_t temp_bytes = 0;
    cudaStream_t stream;

    cudaError_t call(void *t, size_t &bytes, size_t k)
    {
        return cub::DeviceReduce::TransformReduce(t, bytes, ds->d_buf + k * ds->stride, d_value,
                                                  (int64_t)ds->n, ::cuda::std::plus<float>{},
                                                  Widen<S>{}, 0.0f, stream);
    }
    void enqueue() { CHECK(call(temp, temp_bytes, ds->next_index())); }
    void poison() { CHECK(cudaMemsetAsync(d_value, 0xff, sizeof(float), stream)); }
    std::string check()
    {
        float v;
        CHECK(cudaStreamSynchronize(stream));
        CHECK(cudaMemcpy(&v, d_value, sizeof v, cudaMemcpyDeviceToHost));
        // The terms are multiples of 1/4: while sum|x| is at most 2^22, every partial sum, in
        // whatever order CUB takes it, is one a float holds, so the sum must be exact (as
        // clreduce-bench's sum_tolerance()); beyond, a float sum's tolerance.
        long double tol =
            ref->sum_abs <= 0x1p22L ? 0 : Traits<float>::reduce_tolerance * ref->sum_abs;
        if (std::fabs((long double)v - ref->sum) <= tol) // false for the poison, a NaN
            return "";
        return "got " + show(v) + ", expected " + show((double)ref->sum) +
               (tol == 0 ? " (exact)" : "");
    }
};

template <typename S>
void run_storage(const std::vector<size_t> &sizes, const std::vector<Which> &ops, int runs,
                 int warmup, size_t working_set, cudaStream_t stream, cudaEvent_t start,
                 cudaEvent_t stop, std::vector<Row> &out)
{
    bool sum = false;
    for (Which w : ops) {
        if (w == Which::Sum)
            sum = true;
        else
            std::fprintf(stderr, "cub_operators: %s of %s skipped (only the sum is timed)\n",
                         which_name(w), Traits<S>::name());
    }
    if (!sum)
        return;
    for (size_t n : sizes) {
        // working_set / 2, as the other types' inputs have: the same rotation as their sums
        Dataset<S> ds;
        WideReference ref;
        storage_create(ds, n, working_set / 2, (size_t)-1 / 4, ref);
        WideSumJob<S> j;
        j.ref = &ref;
        j.ds = &ds;
        j.stream = stream;
        CHECK(cudaMalloc(&j.d_value, sizeof(float)));
        CHECK(j.call(nullptr, j.temp_bytes, 0));
        CHECK(cudaMalloc(&j.temp, std::max<size_t>(j.temp_bytes, 1)));
        Row r = time_job(j, runs, warmup, start, stop);
        CHECK(cudaFree(j.temp));
        report(r, Which::Sum, Traits<S>::name(), n, n * sizeof(S), ds.copies, out);
        CHECK(cudaFree(j.d_value));
        CHECK(cudaFree(ds.d_buf));
    }
}

template <typename T>
void run_type(const std::vector<size_t> &sizes, const std::vector<Which> &ops, int runs,
              int warmup, size_t working_set, cudaStream_t stream, cudaEvent_t start,
              cudaEvent_t stop, std::vector<Row> &out)
{
    for (size_t n : sizes) {
        Dataset<T> ds;
        dataset_create(ds, n, working_set / 2, (size_t)-1 / 4, false);
        Job<T> j;
        j.ds = &ds;
        j.stream = stream;
        CHECK(cudaMalloc(&j.d_b, ds.copies * ds.stride * sizeof(T)));
        {
            std::vector<T> b(n);
            Rng rng(0xd07 ^ (uint64_t)n);
            for (auto &x : b)
                x = Traits<T>::draw(rng.next());
            CHECK(cudaMemcpy(j.d_b, b.data(), n * sizeof(T), cudaMemcpyHostToDevice));
        }
        for (size_t k = 1; k < ds.copies; k++)
            CHECK(cudaMemcpy(j.d_b + k * ds.stride, j.d_b, n * sizeof(T),
                             cudaMemcpyDeviceToDevice));
        CHECK(cudaMalloc(&j.d_value, sizeof(T)));
        CHECK(cudaMalloc(&j.d_index, sizeof(int64_t)));

        Reference<T> ref;
        j.ref = &ref;
        {
            std::vector<T> a(n), b(n);
            CHECK(cudaMemcpy(a.data(), ds.d_buf, n * sizeof(T), cudaMemcpyDeviceToHost));
            CHECK(cudaMemcpy(b.data(), j.d_b, n * sizeof(T), cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < n; i++) {
                long double x = a[i], y = b[i];
                ref.sum += x;
                ref.sum_abs += std::fabs(x);
                ref.dot += x * y;
                ref.dot_abs += std::fabs(x * y);
                ref.sq += x * x;
                if (a[i] > ref.max) {
                    ref.max = a[i];
                    ref.argmax = (int64_t)i;
                }
                if (a[i] < ref.min) {
                    ref.min = a[i];
                    ref.argmin = (int64_t)i;
                }
            }
        }
        for (Which w : ops) {
            j.w = w;
            j.temp_bytes = 0;
            CHECK(j.call(nullptr, j.temp_bytes, 0));
            CHECK(cudaMalloc(&j.temp, std::max<size_t>(j.temp_bytes, 1)));
            Row r = time_job(j, runs, warmup, start, stop);
            CHECK(cudaFree(j.temp));
            report(r, w, Traits<T>::name(), n, n * sizeof(T) * (w == Which::Dot ? 2 : 1),
                   ds.copies, out);
        }
        CHECK(cudaFree(j.d_b));
        CHECK(cudaFree(j.d_value));
        CHECK(cudaFree(j.d_index));
        CHECK(cudaFree(ds.d_buf));
    }
}

} // namespace

int main(int argc, char **argv)
{
    std::vector<size_t> sizes;
    std::vector<std::string> types;
    std::vector<Which> ops;
    int runs = 40, warmup = 5;
    std::string csv, command = command_line(argc, argv);
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "cub_operators: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--sizes") {
            for (auto &t : split(value())) {
                size_t n;
                if (!parse_count(t, n) || n == 0) {
                    std::fprintf(stderr, "cub_operators: bad size %s\n", t.c_str());
                    return 2;
                }
                sizes.push_back(n);
            }
        } else if (a == "--types") {
            types = split(value());
        } else if (a == "--ops") {
            for (auto &t : split(value())) {
                static const Which all[] = {Which::Sum, Which::ArgMax, Which::ArgMin, Which::Dot,
                                            Which::SumSquares};
                bool found = false;
                for (Which w : all)
                    if (t == which_name(w)) {
                        ops.push_back(w);
                        found = true;
                    }
                if (!found) {
                    std::fprintf(stderr, "cub_operators: unknown op %s\n", t.c_str());
                    return 2;
                }
            }
        } else if (a == "--runs") {
            runs = std::max(1, std::atoi(value().c_str()));
        } else if (a == "--warmup") {
            warmup = std::max(0, std::atoi(value().c_str()));
        } else if (a == "--csv") {
            csv = value();
        } else {
            std::fprintf(stderr, "usage: cub_operators [--sizes LIST] "
                                 "[--types float,double,int32,half,bfloat16] "
                                 "[--ops sum,argmax,argmin,dot,sum_squares] [--runs N] "
                                 "[--warmup N] [--csv FILE]\n");
            return a == "--help" ? 0 : 2;
        }
    }
    if (sizes.empty())
        sizes = {(size_t)1 << 20, (size_t)1 << 24, (size_t)1 << 28};
    if (types.empty())
        types = {"float"};
    if (ops.empty())
        ops = {Which::Sum, Which::ArgMax, Which::ArgMin, Which::Dot, Which::SumSquares};

    Machine m = describe_machine(0);
    size_t working_set = std::max<size_t>(4 * (size_t)m.prop.l2CacheSize, (size_t)1 << 28);
    cudaStream_t stream;
    cudaEvent_t start, stop;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    std::printf("%s\n# command: %s\n%s\n", title_line("cub_operators", m).c_str(),
                command.c_str(), device_line(m).c_str());
    std::printf("# method: %d timed calls after %d warm-up calls, each right after an untimed "
                "call; call_us: median of cudaEventRecord before and after the call; host_us: "
                "median host time inside the timed calls; b2b_us: host time per call of batches "
                "between two cudaDeviceSynchronize, median of 3; bytes: elements read (two "
                "inputs for dot)\n",
                runs, warmup);
    print_columns(COLUMNS);
    std::vector<Row> rows;
    for (auto &t : types) {
        if (t == "float")
            run_type<float>(sizes, ops, runs, warmup, working_set, stream, start, stop, rows);
        else if (t == "double")
            run_type<double>(sizes, ops, runs, warmup, working_set, stream, start, stop, rows);
        else if (t == "int32")
            run_type<int32_t>(sizes, ops, runs, warmup, working_set, stream, start, stop, rows);
        else if (t == "half")
            run_storage<__half>(sizes, ops, runs, warmup, working_set, stream, start, stop, rows);
        else if (t == "bfloat16")
            run_storage<__nv_bfloat16>(sizes, ops, runs, warmup, working_set, stream, start, stop,
                                       rows);
        else
            std::fprintf(stderr, "cub_operators: type %s skipped\n", t.c_str());
    }
    int wrong = 0;
    for (auto &r : rows)
        wrong += r.status != "ok";
    if (!csv.empty() && !write_csv(csv, m, {}, rows)) {
        std::perror(csv.c_str());
        return 1;
    }
    return wrong ? 1 : 0;
}
