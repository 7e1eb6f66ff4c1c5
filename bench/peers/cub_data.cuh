// The peers' input: random data on the device, copied so that calls rotate
// over the copies, its host reference, and the windows of it a scan's check
// reads; and CHECK, which ends the program on a failed CUDA call. Included
// by each peer (cub_reduce.cu, cub_segmented.cu, cub_operators.cu).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "cub_options.h"

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
// lowest() and highest() are the identities of max and min; the tolerances
// of float sums are relative to the sum of |x|, as clreduce-bench's.
template <typename T> struct Traits;
template <> struct Traits<float> {
    static const char *name() { return "float"; }
    static float draw(uint64_t x) { return (float)((int32_t)(x >> 40) - (1 << 23)) * 0x1p-23f; }
    static float low() { return -1.5f; }
    static float high() { return 1.5f; }
    static float lowest() { return -std::numeric_limits<float>::infinity(); }
    static float highest() { return std::numeric_limits<float>::infinity(); }
    static constexpr double reduce_tolerance = 1e-5, scan_tolerance = 2e-5;
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
    static double lowest() { return -std::numeric_limits<double>::infinity(); }
    static double highest() { return std::numeric_limits<double>::infinity(); }
    static constexpr double reduce_tolerance = 1e-12, scan_tolerance = 1e-12;
    static constexpr bool exact = false;
};
template <> struct Traits<int32_t> {
    static const char *name() { return "int32"; }
    static int32_t draw(uint64_t x) { return (int32_t)((x >> 32) % 2001) - 1000; }
    static int32_t low() { return -1001; }
    static int32_t high() { return 1001; }
    static int32_t lowest() { return INT32_MIN; }
    static int32_t highest() { return INT32_MAX; }
    static constexpr double reduce_tolerance = 0, scan_tolerance = 0;
    static constexpr bool exact = true;
};

// ---- the host reference -------------------------------------------------------

// Every operator's result over a prefix of the input.
template <typename T> struct Prefix {
    long double sum = 0, comp = 0, abs = 0; // Neumaier's compensated sum
    uint64_t isum = 0;                      // integers, wrapping
    T mn = Traits<T>::highest(), mx = Traits<T>::lowest();

    void add(T v)
    {
        if (Traits<T>::exact) {
            isum += (uint64_t)(int64_t)v;
        } else {
            long double x = v, t = sum + x;
            comp += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
            sum = t;
            abs += std::fabs(x);
        }
        if (v < mn)
            mn = v;
        if (v > mx)
            mx = v;
    }
};

template <typename T> std::string show(T v)
{
    char buf[64];
    if (Traits<T>::exact)
        std::snprintf(buf, sizeof buf, "%" PRId64, (int64_t)v);
    else
        std::snprintf(buf, sizeof buf, "%.17g", (double)v);
    return buf;
}

// Empty if `got` is `op` over the prefix `want`, else what is wrong.
template <typename T> std::string check_value(Op op, const Prefix<T> &want, T got, double rel)
{
    if (op != Op::Sum) {
        T ref = op == Op::Min ? want.mn : want.mx;
        if (std::memcmp(&got, &ref, sizeof(T)) == 0)
            return "";
        return show(got) + ", expected " + show(ref);
    }
    if (Traits<T>::exact) {
        T ref = (T)(uint32_t)want.isum; // wraps like the device
        return got == ref ? "" : show(got) + ", expected " + show(ref) + " (exact, wrapping)";
    }
    long double ref = want.sum + want.comp, tol = rel * want.abs;
    if (std::fabs((long double)got - ref) <= tol) // false for NaN
        return "";
    return show(got) + ", expected " + show((double)ref) + " (tolerance " + show((double)tol) + ")";
}

// ---- input on the device, its reference, the windows scans are checked at ----

// A run of the input kept on the host, with the prefix before it.
template <typename T> struct Window {
    size_t start = 0, length = 0;
    Prefix<T> before;
    std::vector<T> x;
};

template <typename T> struct Dataset {
    size_t n = 0, stride = 0, copies = 1, cursor = 0;
    T *d_buf = nullptr;
    Prefix<T> total;
    std::vector<Window<T>> windows; // for scans; sorted, disjoint
    size_t window_elements = 0;

    size_t next_index()
    {
        size_t i = cursor;
        cursor = (cursor + 1) % copies;
        return i;
    }
};

// clreduce-bench's windows: the whole input up to FULL_CHECK_MAX elements;
// beyond, the first and last 4096, 8 on each side of every power of two,
// and 8 random runs of 16384.
std::vector<std::pair<size_t, size_t>> choose_windows(size_t n, uint64_t seed)
{
    std::vector<std::pair<size_t, size_t>> spans; // [lo, hi)
    auto add = [&](size_t lo, size_t hi) {
        hi = std::min(hi, n);
        if (lo < hi)
            spans.push_back({lo, hi});
    };
    if (n <= FULL_CHECK_MAX) {
        add(0, n);
    } else {
        add(0, 4096);
        add(n - 4096, n);
        for (size_t p = 16; p < n; p *= 2)
            add(p - 8, p + 8);
        Rng r(seed ^ 0x5ca9c4ec4ull ^ (uint64_t)n * 0x9e3779b97f4a7c15ull);
        for (int i = 0; i < 8; i++) {
            size_t lo = r.next() % (n - 16384 + 1);
            add(lo, lo + 16384);
        }
    }
    std::sort(spans.begin(), spans.end());
    std::vector<std::pair<size_t, size_t>> merged;
    for (auto s : spans) {
        if (!merged.empty() && s.first <= merged.back().second)
            merged.back().second = std::max(merged.back().second, s.second);
        else
            merged.push_back(s);
    }
    return merged;
}

// The copies of a dataset of n elements, allocated: each starts on 512
// bytes, and there are as many as fill working_set, within limit bytes.
// Returns the bytes from one copy to the next.
template <typename T>
size_t dataset_allocate(Dataset<T> &ds, size_t n, size_t working_set, size_t limit)
{
    size_t stride_bytes = dataset_allocate(ds, n, working_set, limit);
    return stride_bytes;
}

// The first copy, once written, into all the others (doubling the copies
// made each time).
template <typename T> void dataset_replicate(Dataset<T> &ds, size_t stride_bytes)
{
    dataset_replicate(ds, stride_bytes);
}

template <typename T>
void dataset_create(Dataset<T> &ds, size_t n, size_t working_set, size_t limit, bool for_scans)
{
    ds.n = n;
    size_t bytes = n * sizeof(T);
    size_t stride_bytes = (bytes + 511) / 512 * 512;
    ds.stride = stride_bytes / sizeof(T);
    ds.copies = stride_bytes < working_set ? (working_set + stride_bytes - 1) / stride_bytes : 1;
    if (ds.copies * stride_bytes > limit)
        ds.copies = std::max<size_t>(1, limit / stride_bytes);
    CHECK(cudaMalloc(&ds.d_buf, ds.copies * stride_bytes));

    uint64_t seed = 0x5eed ^ ((uint64_t)sizeof(T) << 56) ^ (uint64_t)n * 0x9e3779b97f4a7c15ull;
    if (for_scans)
        for (auto s : choose_windows(n, seed)) {
            ds.windows.emplace_back();
            ds.windows.back().start = s.first;
            ds.windows.back().length = s.second - s.first;
            ds.window_elements += s.second - s.first;
        }
    Rng rng(seed);
    size_t plant_min = rng.next() % n, plant_max = rng.next() % n;
    if (plant_max == plant_min)
        plant_max = (plant_min + 1) % n;
    bool plant = n > 1;
    const size_t chunk = std::min<size_t>(n, (size_t)1 << 22);
    std::vector<T> host(chunk);
    size_t w = 0; // the window at or after the element being drawn
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
            while (w < ds.windows.size() && ds.windows[w].start + ds.windows[w].length <= g)
                w++;
            if (w < ds.windows.size() && ds.windows[w].start <= g) {
                if (ds.windows[w].start == g)
                    ds.windows[w].before = ds.total;
                ds.windows[w].x.push_back(v);
            }
            ds.total.add(v);
        }
        CHECK(cudaMemcpy(ds.d_buf + base, host.data(), m * sizeof(T), cudaMemcpyHostToDevice));
    }
    for (size_t have = 1; have < ds.copies;) {
        size_t k = std::min(have, ds.copies - have);
        CHECK(cudaMemcpy(reinterpret_cast<char *>(ds.d_buf) + have * stride_bytes, ds.d_buf,
                         k * stride_bytes, cudaMemcpyDeviceToDevice));
        have += k;
    }
    CHECK(cudaDeviceSynchronize());
}

} // namespace
