// cub_segmented: NVIDIA CUB's cub::DeviceSegmentedReduce (Sum, Min, Max with
// begin and end offsets) timed on the same terms as clreduce-bench --shapes,
// with the same shapes and columns, so that the two can be compared row by
// row:
//
//   rowsN      rows of N elements (offsets i*N)
//   randomN    segments of lengths uniform in [1, N], the last one cut to fit
//   fixedN     segments of exactly N elements
//   halfN      segments of N elements, and from a quarter of the input on one
//              of half of it
//   one        one segment of the whole input
//
// call_us is the median of cudaEventRecord just before the call to
// cudaEventRecord just after it, over --runs calls (default 40) after 5
// warm-up calls, each timed call right after an untimed one; b2b_us the host
// time per call of batches enqueued back to back between two
// cudaDeviceSynchronize (median of 3). Temporary storage is allocated once,
// outside the timed region. Inputs are drawn as clreduce-bench draws them and
// rotated over copies as cub_reduce does; before every checked call the
// results are poisoned, and every timed call and every batch is checked
// against a host reference: every segment up to 65536 segments, beyond that
// the first and last 64 and 4096 at random. Offsets are 32-bit.
//
//   nvcc -O3 -arch=sm_90 -std=c++17 bench/peers/cub_segmented.cu -o cub_segmented
//   ./cub_segmented --shapes all --sizes 2^20,2^24,2^28 --csv cub-segmented.csv
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cub_data.cuh"
#include "cub_options.h"
#include "cub_report.h"
#include "cub_timing.h"

namespace {

enum class ShapeKind { Rows, Random, Fixed, Half, One };

struct Shape {
    ShapeKind kind;
    size_t length = 0;
    std::string label;
};

bool parse_shape(const std::string &t, Shape &s)
{
    if (t == "one") {
        s = {ShapeKind::One, 0, "one"};
        return true;
    }
    static const struct {
        const char *prefix;
        ShapeKind kind;
    } kinds[] = {{"rows", ShapeKind::Rows},
                   {"random", ShapeKind::Random},
                   {"fixed", ShapeKind::Fixed},
                   {"half", ShapeKind::Half}};
    for (auto &k : kinds) {
        std::string p = k.prefix;
        size_t n;
        if (t.compare(0, p.size(), p) != 0 || !parse_count(t.substr(p.size()), n) || n == 0)
            continue;
        s.kind = k.kind;
        s.length = n;
        s.label = k.kind == ShapeKind::Random ? "random:[1," + size_label(n) + "]"
                                              : p + ":" + size_label(n);
        return true;
    }
    return false;
}

// Segment boundaries of `total` elements, as clreduce-bench makes them.
std::vector<int> segment_offsets(const Shape &s, size_t total, uint64_t seed)
{
    std::vector<int> o{0};
    if (s.kind == ShapeKind::One) {
        o.push_back((int)total);
    } else if (s.kind == ShapeKind::Random) {
        Rng r(seed ^ 0x5e65e65e65e65e6ull);
        size_t at = 0;
        while (at < total) {
            size_t len = 1 + (size_t)(r.next() % s.length);
            at = len < total - at ? at + len : total;
            o.push_back((int)at);
        }
    } else if (s.kind == ShapeKind::Half) {
        size_t at = 0, half = total / 2;
        while (at < total) {
            size_t len = at >= total / 4 && half ? half : s.length;
            if (len == half)
                half = 0;
            at = len < total - at ? at + len : total;
            o.push_back((int)at);
        }
    } else {
        for (size_t i = 1; i <= total / s.length; i++)
            o.push_back((int)(i * s.length));
    }
    return o;
}

std::vector<size_t> checked_segments(size_t segments, uint64_t seed)
{
    std::vector<size_t> pick;
    if (segments <= ((size_t)1 << 16)) {
        for (size_t i = 0; i < segments; i++)
            pick.push_back(i);
        return pick;
    }
    for (size_t i = 0; i < 64; i++) {
        pick.push_back(i);
        pick.push_back(segments - 1 - i);
    }
    Rng r(seed ^ 0xc4ec4ec4ec4ec4eull);
    for (int i = 0; i < 4096; i++)
        pick.push_back((size_t)(r.next() % segments));
    std::sort(pick.begin(), pick.end());
    pick.erase(std::unique(pick.begin(), pick.end()), pick.end());
    return pick;
}

struct Settings {
    std::vector<size_t> sizes;
    std::vector<std::string> types;
    std::vector<Op> ops;
    std::vector<Shape> shapes;
    int runs = 40, warmup = 5;
    std::string csv, command;
};

const std::vector<Column> COLUMNS = {
    {"lib", -6, cell_cub},          {"shape", -16, cell_shape},   {"segments", 10, cell_segments},
    {"op", -4, cell_op},            {"type", -6, cell_type},      {"elements", 9, cell_elements},
    {"bytes", 9, cell_bytes},       {"copies", 6, cell_copies},   {"call_us", 10, cell_call_us},
    {"b2b_us", 10, cell_b2b_us},    {"host_us", 9, cell_host_us}, {"GB/s", 9, cell_gbps}};

template <typename T>
cudaError_t call(Op op, void *temp, size_t &temp_bytes, const T *in, T *out, int segments,
                 const int *begin, cudaStream_t s)
{
    switch (op) {
    case Op::Sum:
        return cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, in, out, segments, begin,
                                               begin + 1, s);
    case Op::Min:
        return cub::DeviceSegmentedReduce::Min(temp, temp_bytes, in, out, segments, begin,
                                               begin + 1, s);
    default:
        return cub::DeviceSegmentedReduce::Max(temp, temp_bytes, in, out, segments, begin,
                                               begin + 1, s);
    }
}

template <typename T> struct Job {
    Dataset<T> *ds;
    Op op;
    int segments;
    int *d_offsets;
    T *d_out;
    void *temp;
    size_t temp_bytes;
    cudaStream_t stream;
    std::vector<size_t> checked;
    std::vector<Prefix<T>> want;

    void enqueue()
    {
        const T *in = ds->d_buf + ds->next_index() * ds->stride;
        CHECK(call<T>(op, temp, temp_bytes, in, d_out, segments, d_offsets, stream));
    }
    void poison() { CHECK(cudaMemsetAsync(d_out, 0xff, (size_t)segments * sizeof(T), stream)); }
    std::string check()
    {
        std::vector<T> got((size_t)segments);
        CHECK(cudaStreamSynchronize(stream));
        CHECK(cudaMemcpy(got.data(), d_out, got.size() * sizeof(T), cudaMemcpyDeviceToHost));
        for (size_t k = 0; k < checked.size(); k++) {
            std::string why =
                check_value(op, want[k], got[checked[k]], Traits<T>::reduce_tolerance);
            if (!why.empty())
                return "segment " + std::to_string(checked[k]) + ": " + why;
        }
        return "";
    }
};

template <typename T>
void run_type(const Settings &set, size_t working_set, cudaStream_t stream, cudaEvent_t start,
              cudaEvent_t stop, std::vector<Row> &out)
{
    for (size_t n : set.sizes) {
        Dataset<T> ds;
        dataset_create(ds, n, working_set, (size_t)-1 / 2, false);
        std::vector<T> host(n);
        CHECK(cudaMemcpy(host.data(), ds.d_buf, n * sizeof(T), cudaMemcpyDeviceToHost));
        for (const Shape &sh : set.shapes) {
            std::vector<int> offsets = segment_offsets(sh, n, 1);
            Job<T> j;
            j.ds = &ds;
            j.segments = (int)offsets.size() - 1;
            j.stream = stream;
            CHECK(cudaMalloc(&j.d_offsets, offsets.size() * sizeof(int)));
            CHECK(cudaMemcpy(j.d_offsets, offsets.data(), offsets.size() * sizeof(int),
                             cudaMemcpyHostToDevice));
            CHECK(cudaMalloc(&j.d_out, std::max(1, j.segments) * sizeof(T)));
            j.checked = checked_segments((size_t)j.segments, 1);
            for (size_t i : j.checked) {
                Prefix<T> p;
                for (int e = offsets[i]; e < offsets[i + 1]; e++)
                    p.add(host[(size_t)e]);
                j.want.push_back(p);
            }
            for (Op op : set.ops) {
                j.op = op;
                j.temp = nullptr;
                j.temp_bytes = 0;
                CHECK(call<T>(op, nullptr, j.temp_bytes, ds.d_buf, j.d_out, j.segments,
                              j.d_offsets, stream));
                CHECK(cudaMalloc(&j.temp, std::max<size_t>(j.temp_bytes, 1)));
                Row r = time_job(j, set.runs, set.warmup, start, stop);
                CHECK(cudaFree(j.temp));
                r.shape = sh.label;
                r.op = op_name(op);
                r.type = Traits<T>::name();
                r.segments = (size_t)j.segments;
                r.elements = (size_t)offsets.back();
                r.bytes = r.elements * sizeof(T);
                r.copies = ds.copies;
                r.gbps = r.bytes / (r.call_us * 1e3);
                print_row(COLUMNS, r);
                out.push_back(r);
            }
            CHECK(cudaFree(j.d_offsets));
            CHECK(cudaFree(j.d_out));
        }
        CHECK(cudaFree(ds.d_buf));
    }
}

} // namespace

int main(int argc, char **argv)
{
    Settings set;
    set.command = command_line(argc, argv);
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "cub_segmented: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--sizes") {
            for (auto &t : split(value())) {
                size_t n;
                if (!parse_count(t, n) || n == 0 || n > (size_t)INT32_MAX) {
                    std::fprintf(stderr, "cub_segmented: bad size %s\n", t.c_str());
                    return 2;
                }
                set.sizes.push_back(n);
            }
        } else if (a == "--types") {
            set.types = split(value());
        } else if (a == "--ops") {
            for (auto &t : split(value()))
                set.ops.push_back(t == "min" ? Op::Min : t == "max" ? Op::Max : Op::Sum);
        } else if (a == "--shapes") {
            for (auto &t : split(value())) {
                std::vector<std::string> names{t};
                if (t == "all")
                    names = {"rows32",    "rows512",   "rows4096", "rows65536", "random10",
                             "random1e3", "random1e5", "random1e7", "one",      "fixed1000"};
                for (auto &nm : names) {
                    Shape s;
                    if (!parse_shape(nm, s)) {
                        std::fprintf(stderr, "cub_segmented: bad shape %s\n", nm.c_str());
                        return 2;
                    }
                    set.shapes.push_back(s);
                }
            }
        } else if (a == "--runs") {
            set.runs = std::max(1, std::atoi(value().c_str()));
        } else if (a == "--warmup") {
            set.warmup = std::max(0, std::atoi(value().c_str()));
        } else if (a == "--csv") {
            set.csv = value();
        } else {
            std::fprintf(stderr,
                         "usage: cub_segmented [--shapes LIST|all] [--sizes LIST] [--types "
                         "float,int32,double] [--ops sum,min,max] [--runs N] [--warmup N] "
                         "[--csv FILE]\n");
            return a == "--help" ? 0 : 2;
        }
    }
    if (set.sizes.empty())
        set.sizes = {(size_t)1 << 20, (size_t)1 << 24, (size_t)1 << 28};
    if (set.types.empty())
        set.types = {"float"};
    if (set.ops.empty())
        set.ops = {Op::Sum};
    if (set.shapes.empty()) {
        Shape s;
        parse_shape("rows512", s);
        set.shapes.push_back(s);
    }

    Machine m = describe_machine(0);
    size_t working_set = std::max<size_t>(4 * (size_t)m.prop.l2CacheSize, (size_t)1 << 28);
    cudaStream_t stream;
    cudaEvent_t start, stop;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));

    std::printf("%s\n# command: %s\n%s\n", title_line("cub_segmented", m).c_str(),
                set.command.c_str(), device_line(m).c_str());
    std::printf("# method: cub::DeviceSegmentedReduce with 32-bit begin/end offsets; %d timed "
                "calls after %d warm-up calls, each right after an untimed call; call_us: median "
                "of cudaEventRecord before and after the call; host_us: median host time inside "
                "the timed calls; b2b_us: host time per call of batches between two "
                "cudaDeviceSynchronize, median of 3; inputs below %s rotated over copies\n",
                set.runs, set.warmup, bytes_label((double)working_set).c_str());
    print_columns(COLUMNS);

    std::vector<Row> rows;
    for (auto &t : set.types) {
        if (t == "float")
            run_type<float>(set, working_set, stream, start, stop, rows);
        else if (t == "double")
            run_type<double>(set, working_set, stream, start, stop, rows);
        else if (t == "int32")
            run_type<int32_t>(set, working_set, stream, start, stop, rows);
        else
            std::fprintf(stderr, "cub_segmented: type %s skipped (float, int32, double)\n",
                         t.c_str());
    }
    int wrong = 0;
    for (auto &r : rows)
        wrong += r.status != "ok";
    if (!set.csv.empty() && !write_csv(set.csv, m, {}, rows)) {
        std::perror(set.csv.c_str());
        return 1;
    }
    return wrong ? 1 : 0;
}
