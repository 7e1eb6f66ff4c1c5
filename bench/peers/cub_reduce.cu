// cub_reduce: the CUB yardstick for clreduce-bench.
//
// Times cub::DeviceReduce::Sum, ::Min and ::Max, and cub::DeviceScan's
// inclusive and exclusive scans (InclusiveSum, ExclusiveSum, and
// InclusiveScan / ExclusiveScan with cuda::minimum<> or cuda::maximum<>),
// over float, int32 and double, the way clreduce-bench times clreduce
// (bench/README.md), and writes the same columns:
//
//  call_us  the headline: the median over the timed calls of the time
//           between cudaEventRecord just before the call and just after it
//           (cudaEventElapsedTime), the CUB call's host work and launches
//           included;
//  b2b_us   calls enqueued back to back between two cudaDeviceSynchronize,
//           no events, host clock divided by the calls; median of 3
//           batches;
//  span_us  empty: events alone cannot see where the first kernel starts.
//
// Every timed call follows one untimed call of the same operation on another
// copy, waited for, as clreduce-bench's do (a call right after the host's
// check of a large result was measured slower).
//
// An empty kernel (one block of one thread) timed the same way gives the
// driver's floor (variant empty_kernel). Random input as clreduce-bench
// draws it; every result is checked against a host reference: the first
// call, every timed call and every back-to-back call (scans: the last output
// written to each copy). Temporary storage is allocated once, outside the
// timed region. Small inputs (and scans' outputs) are rotated over copies
// that together exceed four times the L2 cache, so that every call reads
// from memory. The bandwidth ceilings are a read-only streaming kernel
// (reductions) and a device-to-device copy (scans, read + write bytes),
// measured here as clreduce-bench measures its own.
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 bench/peers/cub_reduce.cu -o cub_reduce
// Run:   ./cub_reduce [--sizes 2^20,2^24,1e8] [--csv cub.csv]   (--help for all)

#include <cub/cub.cuh>
#include <cuda/functional>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cub_data.cuh"
#include "cub_options.h"
#include "cub_report.h"

namespace {

// ---- the run and its output ----------------------------------------------------

struct Context {
    Machine machine;
    double peak_gbps = NAN, copy_gbps = NAN;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    size_t working_set = 0;
    bool failed = false;
};

std::vector<std::string> header_lines(const Context &c, const Options &o)
{
    char buf[2048];
    std::vector<std::string> lines;
    const cudaDeviceProp &p = c.machine.prop;
    lines.push_back(title_line("cub_reduce", c.machine));
    lines.push_back("# command: " + o.command);
    std::snprintf(buf, sizeof buf,
                  "# device: %s (GPU, %d SMs, %.2f GB, compute capability %d.%d, L2 %s) | "
                  "driver: %s | platform: CUDA",
                  p.name, p.multiProcessorCount, (double)p.totalGlobalMem / 1e9, p.major, p.minor,
                  bytes_label((double)p.l2CacheSize).c_str(), c.machine.driver.c_str());
    lines.push_back(buf);
    std::string b2b = o.b2b_calls == 0 ? "not measured (--b2b-calls 0)"
                      : o.b2b_calls == B2B_AUTO
                          ? "host time of a batch of calls enqueued back to back between two "
                            "cudaDeviceSynchronize, no events, divided by the calls; batches of "
                            "as many calls as take 20 ms by call_us (10 to 2000, b2b_calls in "
                            "the CSV), median of 3 batches"
                          : "host time of a batch of " + std::to_string(o.b2b_calls) +
                                " calls enqueued back to back between two "
                                "cudaDeviceSynchronize, no events, divided by the calls; "
                                "median of 3 batches";
    std::snprintf(buf, sizeof buf,
                  "# method: %d timed calls after %d warm-up calls, each right after an untimed "
                  "call, every result checked against a host reference. call_us (the headline, to "
                  "compare with clreduce-bench's): median of cudaEventRecord just before the call "
                  "to cudaEventRecord just after it. span_us: not measured. host_us: median host "
                  "time inside the timed calls (the launch alone for the floor). b2b_us: %s. GB/s "
                  "and %%peak from call_us",
                  o.runs, o.warmup, b2b.c_str());
    lines.push_back(buf);
    lines.push_back("# rotation: inputs smaller than " + bytes_label((double)c.working_set) +
                    " are copied until their copies fill it, and calls rotate over the copies "
                    "(column copies), so that each call reads its input from memory rather "
                    "than from the L2 cache");
    if (o.peak) {
        std::snprintf(buf, sizeof buf,
                      "# peak: read-only kernel %.1f GB/s, copy %.1f GB/s (read+write bytes); "
                      "%%peak is against the read-only kernel for reductions, against the copy "
                      "for scans",
                      c.peak_gbps, c.copy_gbps);
        lines.push_back(buf);
    } else {
        lines.push_back("# peak: not measured (--no-peak)");
    }
    return lines;
}

std::string cell_scan(const Row &r) { return r.scan ? r.scan_op : "-"; }
std::string cell_not_measured(const Row &) { return "-"; }
std::string cell_pct_peak(const Row &r)
{
    double pct = 100.0 * r.gbps / r.peak_gbps;
    return std::isnan(pct) ? "-" : fixed(pct, "%.1f") + "%";
}

const std::vector<Column> COLUMNS = {
    {"", -11, cell_cub},          {"op", -14, cell_op},          {"scan", -4, cell_scan},
    {"type", -6, cell_type},      {"elements", 9, cell_elements}, {"bytes", 9, cell_bytes},
    {"copies", 6, cell_copies},   {"call_us", 10, cell_call_us}, {"b2b_us", 10, cell_b2b_us},
    {"span_us", 10, cell_not_measured}, {"host_us", 9, cell_host_us}, {"GB/s", 9, cell_gbps},
    {"%peak", 6, cell_pct_peak}};

void print_floor(const Row &r)
{
    std::printf("# driver floor: an empty kernel, one block of one thread, timed as a call\n");
    std::printf("%-18s %10s %10s %10s %9s  %s\n", "variant", "call_us", "b2b_us", "span_us",
                "host_us", "status");
    std::printf("%-18s %10s %10s %10s %9s  %s\n\n", "empty_kernel", fixed(r.call_us).c_str(),
                fixed(r.b2b_us).c_str(), "-", fixed(r.host_us).c_str(), r.status.c_str());
    std::fflush(stdout);
}

// ---- the CUB calls --------------------------------------------------------------

template <typename T>
cudaError_t run_op(Kind kind, Op op, void *temp, size_t &temp_bytes, const T *in, T *out,
                   size_t n, cudaStream_t s)
{
    int64_t items = (int64_t)n;
    if (kind == Kind::Reduce) {
        if (op == Op::Sum)
            return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, items, s);
        if (op == Op::Min)
            return cub::DeviceReduce::Min(temp, temp_bytes, in, out, items, s);
        return cub::DeviceReduce::Max(temp, temp_bytes, in, out, items, s);
    }
    if (kind == Kind::Inclusive) {
        if (op == Op::Sum)
            return cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, items, s);
        if (op == Op::Min)
            return cub::DeviceScan::InclusiveScan(temp, temp_bytes, in, out, cuda::minimum<>{},
                                                  items, s);
        return cub::DeviceScan::InclusiveScan(temp, temp_bytes, in, out, cuda::maximum<>{}, items,
                                              s);
    }
    if (op == Op::Sum)
        return cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, out, items, s);
    if (op == Op::Min)
        return cub::DeviceScan::ExclusiveScan(temp, temp_bytes, in, out, cuda::minimum<>{},
                                              Traits<T>::highest(), items, s);
    return cub::DeviceScan::ExclusiveScan(temp, temp_bytes, in, out, cuda::maximum<>{},
                                          Traits<T>::lowest(), items, s);
}

// ---- one measurement ------------------------------------------------------------

// Where one measurement's calls write, and how their results are checked.
// Reductions: call i of a phase writes slot i of a poisoned result array.
// Scans: the call on input copy k writes output copy k, poisoned again
// after the output is checked.
template <typename T> struct Target {
    Context &c;
    Dataset<T> &ds;
    Kind kind;
    Op op;
    T *d_out = nullptr; // results (reductions) or output copies (scans)
    T *h_out = nullptr; // pinned: results read back, or a scan's windows
    size_t slots = 0;
    void *temp = nullptr;
    size_t temp_bytes = 0;

    Target(Context &c_, Dataset<T> &ds_, Kind kind_, Op op_, int runs)
        : c(c_), ds(ds_), kind(kind_), op(op_)
    {
        bool scan = kind != Kind::Reduce;
        slots = scan ? ds.copies * ds.stride : (size_t)std::max(runs, B2B_MAX_CALLS) + 1;
        CHECK(cudaMalloc(&d_out, slots * sizeof(T)));
        CHECK(cudaMemset(d_out, 0xff, slots * sizeof(T))); // NaN for floats
        size_t host = scan ? ds.window_elements : slots;
        CHECK(cudaMallocHost(&h_out, std::max<size_t>(host, 1) * sizeof(T)));
        CHECK(run_op<T>(kind, op, nullptr, temp_bytes, ds.d_buf, d_out, ds.n, c.stream));
        CHECK(cudaMalloc(&temp, std::max<size_t>(temp_bytes, 1)));
    }
    ~Target()
    {
        CHECK(cudaFree(temp));
        CHECK(cudaFreeHost(h_out));
        CHECK(cudaFree(d_out));
    }

    // Enqueues the call on the next input copy into result slot `slot`
    // (reductions); returns the copy used.
    size_t call(size_t slot)
    {
        size_t k = ds.next_index();
        T *out = kind == Kind::Reduce ? d_out + slot : d_out + k * ds.stride;
        CHECK(run_op<T>(kind, op, temp, temp_bytes, ds.d_buf + k * ds.stride, out, ds.n,
                        c.stream));
        return k;
    }

    // Empty if result slots [first, first + count) are all right.
    std::string check_slots(size_t first, size_t count)
    {
        CHECK(cudaMemcpy(h_out, d_out + first, count * sizeof(T), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < count; i++) {
            std::string wrong = check_value(op, ds.total, h_out[i], Traits<T>::reduce_tolerance);
            if (!wrong.empty())
                return std::string(op_name(op)) + " = " + wrong;
        }
        return "";
    }

    // Empty if output copy k is right at every window, then poisons it.
    std::string check_copy(size_t k)
    {
        T *out = d_out + k * ds.stride;
        size_t at = 0;
        for (const auto &w : ds.windows) {
            CHECK(cudaMemcpyAsync(h_out + at, out + w.start, w.length * sizeof(T),
                                  cudaMemcpyDeviceToHost, c.stream));
            at += w.length;
        }
        CHECK(cudaStreamSynchronize(c.stream));
        // Poisoned again, and idle before the next timed call's first event.
        CHECK(cudaMemsetAsync(out, 0xff, ds.n * sizeof(T), c.stream));
        CHECK(cudaStreamSynchronize(c.stream));
        at = 0;
        size_t wrong = 0;
        std::string first;
        for (const auto &w : ds.windows) {
            Prefix<T> s = w.before;
            for (size_t i = 0; i < w.length; i++, at++) {
                Prefix<T> before = s;
                s.add(w.x[i]);
                std::string why = check_value(op, kind == Kind::Inclusive ? s : before, h_out[at],
                                              Traits<T>::scan_tolerance);
                if (!why.empty() && !wrong++)
                    first = "element " + std::to_string(w.start + i) + " = " + why;
            }
        }
        if (!wrong)
            return "";
        return std::to_string(wrong) + " of " + std::to_string(at) +
               " checked elements wrong; first: " + first;
    }
};

template <typename T> Row measure(Context &c, Dataset<T> &ds, Kind kind, Op op, const Options &o)
{
    Row r;
    r.scan = kind != Kind::Reduce;
    r.op = kind_column(kind, op);
    r.scan_op = r.scan ? op_name(op) : "";
    r.type = Traits<T>::name();
    r.elements = ds.n;
    r.bytes = ds.n * sizeof(T) * (r.scan ? 2 : 1);
    r.copies = ds.copies;
    r.peak_gbps = r.scan ? c.copy_gbps : c.peak_gbps;
    Target<T> t(c, ds, kind, op, o.runs);
    auto check = [&](size_t slot, size_t k) {
        return r.scan ? t.check_copy(k) : t.check_slots(slot, 1);
    };

    // The checked first call, then the warm-up.
    size_t k = t.call(0);
    CHECK(cudaStreamSynchronize(c.stream));
    std::string wrong = check(0, k);
    for (int w = 0; w < o.warmup && wrong.empty(); w++) {
        k = t.call(0);
        if (r.scan)
            CHECK(cudaMemsetAsync(t.d_out + k * ds.stride, 0xff, ds.n * sizeof(T), c.stream));
    }
    CHECK(cudaDeviceSynchronize());

    std::vector<double> times, host;
    for (int i = 0; i < o.runs && wrong.empty(); i++) {
        // One untimed call first, its output poisoned again, waited for: the
        // check of the last result can leave the host and device idle for
        // milliseconds, and a call right after such a pause is slower.
        k = t.call(0);
        if (r.scan)
            CHECK(cudaMemsetAsync(t.d_out + k * ds.stride, 0xff, ds.n * sizeof(T), c.stream));
        CHECK(cudaStreamSynchronize(c.stream));
        CHECK(cudaEventRecord(c.start, c.stream));
        double h0 = now_us();
        k = t.call((size_t)i + 1);
        host.push_back(now_us() - h0);
        CHECK(cudaEventRecord(c.stop, c.stream));
        CHECK(cudaEventSynchronize(c.stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, c.start, c.stop));
        times.push_back(ms * 1e3);
        wrong = check((size_t)i + 1, k);
        if (!wrong.empty())
            wrong = "timed run " + std::to_string(i + 1) + ": " + wrong;
    }
    if (wrong.empty()) {
        r.call_us = median(times);
        r.host_us = median(host);
    }

    int calls = wrong.empty() ? b2b_calls_for(o, r.call_us) : 0;
    if (calls > 0) {
        std::vector<double> batch_us;
        std::vector<size_t> used(calls);
        for (int w = 0; w < o.warmup; w++) {
            k = t.call(0);
            if (r.scan)
                CHECK(cudaMemsetAsync(t.d_out + k * ds.stride, 0xff, ds.n * sizeof(T), c.stream));
        }
        for (int b = 0; b < B2B_BATCHES && wrong.empty(); b++) {
            if (!r.scan)
                CHECK(cudaMemsetAsync(t.d_out + 1, 0xff, calls * sizeof(T), c.stream));
            CHECK(cudaDeviceSynchronize());
            double t0 = now_us();
            for (int i = 0; i < calls; i++)
                used[i] = t.call((size_t)i + 1);
            CHECK(cudaDeviceSynchronize());
            batch_us.push_back((now_us() - t0) / calls);
            // Reductions: every call's slot. Scans: the last output written
            // to each copy, by the last min(calls, copies) calls.
            if (!r.scan) {
                wrong = t.check_slots(1, calls);
            } else {
                size_t touched = std::min((size_t)calls, ds.copies);
                for (size_t i = calls - touched; i < (size_t)calls && wrong.empty(); i++)
                    wrong = t.check_copy(used[i]);
            }
            if (!wrong.empty())
                wrong = "back-to-back batch " + std::to_string(b + 1) + ": " + wrong;
        }
        CHECK(cudaDeviceSynchronize());
        if (wrong.empty()) {
            r.b2b_us = median(batch_us);
            r.b2b_calls = calls;
        }
    }
    if (wrong.empty()) {
        r.gbps = (double)r.bytes / (r.call_us * 1e3);
        r.status = "ok";
    } else {
        r.call_us = NAN;
        r.status = "WRONG RESULT: " + wrong;
        std::fprintf(stderr, "cub_reduce: WRONG RESULT: %s %s %s %zu: %s\n", r.op.c_str(),
                     r.scan_op.c_str(), r.type.c_str(), r.elements, wrong.c_str());
        c.failed = true;
    }
    return r;
}

// ---- the driver's floor ------------------------------------------------------

__global__ void empty_kernel() {}

// One kernel launch timed as measure() times a call: after the warm-up, each
// timed launch right after an untimed one, waited for; call_us and host_us
// (the medians) into r.
template <typename Launch> void time_launches(Context &c, const Options &o, Launch launch, Row &r)
{
    for (int w = 0; w < o.warmup + 1; w++)
        launch();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<double> times, host;
    for (int i = 0; i < o.runs; i++) {
        launch(); // the untimed call before, as in measure()
        CHECK(cudaStreamSynchronize(c.stream));
        CHECK(cudaEventRecord(c.start, c.stream));
        double h0 = now_us();
        launch();
        host.push_back(now_us() - h0);
        CHECK(cudaEventRecord(c.stop, c.stream));
        CHECK(cudaEventSynchronize(c.stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, c.start, c.stop));
        times.push_back(ms * 1e3);
    }
    r.call_us = median(times);
    r.host_us = median(host);
}

// Batches of launches back to back, as measure()'s: b2b_us and b2b_calls
// into r.
template <typename Launch> void b2b_launches(const Options &o, Launch launch, Row &r)
{
    int calls = b2b_calls_for(o, r.call_us);
    if (calls <= 0)
        return;
    std::vector<double> batch_us;
    for (int b = 0; b < B2B_BATCHES; b++) {
        CHECK(cudaDeviceSynchronize());
        double t0 = now_us();
        for (int i = 0; i < calls; i++)
            launch();
        CHECK(cudaDeviceSynchronize());
        batch_us.push_back((now_us() - t0) / calls);
    }
    CHECK(cudaGetLastError());
    r.b2b_us = median(batch_us);
    r.b2b_calls = calls;
}

Row measure_floor(Context &c, const Options &o)
{
    Row r;
    r.floor = true;
    auto launch = [&] { empty_kernel<<<1, 1, 0, c.stream>>>(); };
    time_launches(c, o, launch, r);
    b2b_launches(o, launch, r);
    r.status = "ok";
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
        int blocks = c.machine.prop.multiProcessorCount * groups;
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

// ---- the memory's floor ------------------------------------------------------------

// As clreduce-bench's read_kernel row: peak_read launched once over the next
// copy of the input (its bytes as float4, the copies 512 bytes apart), timed
// as a call is, in the fastest of ten grids (1 or 4 loads in flight; 1, 2, 4,
// 8 or 16 blocks of 256 an SM). It reads the input and writes nothing, so no
// reduction of one launch takes much less.
template <typename T> Row measure_read_floor(Context &c, Dataset<T> &ds, const Options &o)
{
    Row r;
    r.variant = "read_kernel";
    r.op = "read";
    r.type = Traits<T>::name();
    r.elements = ds.n;
    r.bytes = ds.n * sizeof(T);
    r.copies = ds.copies;
    r.peak_gbps = c.peak_gbps;
    size_t n4 = (r.bytes + 15) / 16;
    float *out = nullptr;
    CHECK(cudaMalloc(&out, sizeof(float)));
    auto launch = [&](int unroll, int blocks) {
        const float4 *in = reinterpret_cast<const float4 *>(ds.d_buf + ds.next_index() * ds.stride);
        if (unroll == 1)
            peak_read<1><<<blocks, 256, 0, c.stream>>>(in, n4, out);
        else
            peak_read<4><<<blocks, 256, 0, c.stream>>>(in, n4, out);
    };
    int best_unroll = 1, best_blocks = 0;
    for (int unroll : {1, 4})
        for (int groups : {1, 2, 4, 8, 16}) {
            int blocks = c.machine.prop.multiProcessorCount * groups;
            Row trial;
            time_launches(c, o, [&] { launch(unroll, blocks); }, trial);
            if (std::isnan(r.call_us) || trial.call_us < r.call_us) {
                r.call_us = trial.call_us;
                r.host_us = trial.host_us;
                best_unroll = unroll;
                best_blocks = blocks;
                r.status = "ok (unroll " + std::to_string(unroll) + ", " +
                           std::to_string(groups) + " blocks of 256 an SM)";
            }
        }
    b2b_launches(o, [&] { launch(best_unroll, best_blocks); }, r);
    r.gbps = (double)r.bytes / (r.call_us * 1e3);
    CHECK(cudaFree(out));
    return r;
}

template <typename T>
void run_type(Context &c, const Options &o, std::vector<Row> &rows, std::vector<Row> &scan_rows)
{
    bool scans = !o.scan_ops.empty() && !o.scan_kinds.empty();
    if (o.ops.empty() && !scans)
        return;
    for (size_t n : o.sizes) {
        size_t free_bytes = 0, total_bytes = 0;
        CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        size_t limit = free_bytes / 10 * 4;
        size_t need = n * sizeof(T) * (scans ? 2 : 1);
        if (need > limit) {
            std::printf("# skipped %s %s: %s do not fit in 40%% of the free memory\n",
                        size_label(n).c_str(), Traits<T>::name(),
                        bytes_label((double)need).c_str());
            continue;
        }
        Dataset<T> ds;
        // A scan's output rotates over as many copies as the input.
        dataset_create(ds, n, c.working_set, scans ? limit / 2 : limit, scans);
        if (!o.ops.empty() && o.read_floor) {
            rows.push_back(measure_read_floor(c, ds, o));
            print_row(COLUMNS, rows.back());
        }
        for (Op op : o.ops) {
            rows.push_back(measure(c, ds, Kind::Reduce, op, o));
            print_row(COLUMNS, rows.back());
        }
        if (scans)
            for (Op op : o.scan_ops)
                for (Kind k : o.scan_kinds) {
                    scan_rows.push_back(measure(c, ds, k, op, o));
                    if (o.ops.empty())
                        print_row(COLUMNS, scan_rows.back());
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
    c.machine = describe_machine(o.device);
    CHECK(cudaStreamCreate(&c.stream));
    CHECK(cudaEventCreate(&c.start));
    CHECK(cudaEventCreate(&c.stop));
    c.working_set = std::max<size_t>((size_t)4 * c.machine.prop.l2CacheSize, (size_t)256 << 20);

    if (o.peak)
        measure_peak(c);
    for (const std::string &line : header_lines(c, o))
        std::printf("%s\n", line.c_str());
    std::vector<Row> rows, scan_rows;
    rows.push_back(measure_floor(c, o));
    print_floor(rows.back());
    print_columns(COLUMNS);
    for (const std::string &type : o.types) {
        if (type == "float")
            run_type<float>(c, o, rows, scan_rows);
        else if (type == "int32")
            run_type<int32_t>(c, o, rows, scan_rows);
        else
            run_type<double>(c, o, rows, scan_rows);
    }
    if (!o.ops.empty() && !scan_rows.empty()) {
        std::printf("\n");
        print_columns(COLUMNS);
        for (const Row &r : scan_rows)
            print_row(COLUMNS, r);
    }
    rows.insert(rows.end(), scan_rows.begin(), scan_rows.end());
    if (!o.csv.empty() && !write_csv(o.csv, c.machine, header_lines(c, o), rows)) {
        std::fprintf(stderr, "cub_reduce: writing %s failed\n", o.csv.c_str());
        c.failed = true;
    }
    CHECK(cudaEventDestroy(c.start));
    CHECK(cudaEventDestroy(c.stop));
    CHECK(cudaStreamDestroy(c.stream));
    return c.failed ? 1 : 0;
}
