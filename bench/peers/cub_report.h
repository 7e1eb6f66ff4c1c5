// The CUB peers' results, written once for all of them: a Row per
// measurement, the machine every header and CSV row names, the table on
// stdout (each peer lists its columns) and the CSV with clreduce-bench's
// columns (bench/README.md). Included by cub_reduce.cu, cub_segmented.cu and
// cub_operators.cu, after cub_data.cuh.
#pragma once

#include <cub/version.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "cub_data.cuh"

namespace {

// One measurement. The CSV's columns come from these fields: shape and
// segments are written where shape is set (cub_segmented), in_place where
// scan is, pct_peak and peak_kind where peak_gbps is a number.
struct Row {
    bool floor = false, scan = false; // floor: the empty kernel (variant empty_kernel)
    std::string variant = "cub";      // "read_kernel": the memory's floor (cub_reduce)
    std::string op, type, scan_op, status, shape;
    size_t elements = 0, bytes = 0, copies = 0, segments = 0;
    double call_us = NAN, b2b_us = NAN, gbps = NAN;
    double host_us = NAN;   // host time inside the timed calls (the launch alone for the floor)
    double peak_gbps = NAN; // the ceiling %peak is against: NaN where none was measured
    int b2b_calls = 0;
};

double now_us()
{
    return std::chrono::duration<double, std::micro>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

double median(std::vector<double> v)
{
    if (v.empty())
        return NAN;
    std::sort(v.begin(), v.end());
    size_t k = v.size();
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

// ---- the machine -----------------------------------------------------------------

// The device, the CUDA versions and the time of the run, as the headers and
// every CSV row name them.
struct Machine {
    cudaDeviceProp prop;
    std::string driver; // "CUDA driver 13.0, runtime 13.0"
    std::string date;   // UTC, ISO 8601
};

Machine describe_machine(int device)
{
    Machine m;
    CHECK(cudaGetDeviceProperties(&m.prop, device));
    int drv = 0, rt = 0;
    CHECK(cudaDriverGetVersion(&drv));
    CHECK(cudaRuntimeGetVersion(&rt));
    m.driver = "CUDA driver " + std::to_string(drv / 1000) + "." + std::to_string(drv % 1000 / 10) +
               ", runtime " + std::to_string(rt / 1000) + "." + std::to_string(rt % 1000 / 10);
    char date[64];
    std::time_t t = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    m.date = date;
    return m;
}

// ---- text -------------------------------------------------------------------------

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

std::string fixed(double v, const char *fmt = "%.2f")
{
    if (std::isnan(v))
        return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

std::string bytes_label(double b)
{
    char buf[32];
    if (b >= 1e9)
        std::snprintf(buf, sizeof buf, "%.2f GB", b / 1e9);
    else if (b >= 1e6)
        std::snprintf(buf, sizeof buf, "%.1f MB", b / 1e6);
    else if (b >= 1e3)
        std::snprintf(buf, sizeof buf, "%.1f KB", b / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.0f B", b);
    return buf;
}

// The first header line: "# <peer>, CUB x.y.z, <date> (UTC)".
std::string title_line(const char *peer, const Machine &m)
{
    char buf[256];
    std::snprintf(buf, sizeof buf, "# %s, CUB %d.%d.%d, %s (UTC)", peer, CUB_VERSION / 100000,
                  CUB_VERSION / 100 % 1000, CUB_VERSION % 100, m.date.c_str());
    return buf;
}

// The short device line of cub_segmented and cub_operators.
std::string device_line(const Machine &m)
{
    char buf[512];
    std::snprintf(buf, sizeof buf, "# device: %s (%d SMs, %.2f GB) | driver: %s", m.prop.name,
                  m.prop.multiProcessorCount, (double)m.prop.totalGlobalMem / 1e9,
                  m.driver.c_str());
    return buf;
}

// ---- the table on stdout ------------------------------------------------------------

// One column of a peer's table: its title, its width (negative: aligned left)
// and its text for a row. The status follows the last column.
struct Column {
    const char *title;
    int width;
    std::string (*cell)(const Row &);
};

std::string cell_cub(const Row &r) { return r.variant; }
std::string cell_op(const Row &r) { return r.op; }
std::string cell_type(const Row &r) { return r.type; }
std::string cell_shape(const Row &r) { return r.shape; }
std::string cell_segments(const Row &r) { return size_label(r.segments); }
std::string cell_elements(const Row &r) { return size_label(r.elements); }
std::string cell_bytes(const Row &r) { return bytes_label((double)r.bytes); }
std::string cell_copies(const Row &r) { return std::to_string(r.copies); }
std::string cell_call_us(const Row &r) { return fixed(r.call_us); }
std::string cell_b2b_us(const Row &r) { return fixed(r.b2b_us); }
std::string cell_host_us(const Row &r) { return fixed(r.host_us); }
std::string cell_gbps(const Row &r) { return fixed(r.gbps, "%.1f"); }

void print_line(const std::vector<Column> &columns, const std::vector<std::string> &cells,
                const std::string &status)
{
    for (size_t i = 0; i < columns.size(); i++)
        std::printf(i ? " %*s" : "%*s", columns[i].width, cells[i].c_str());
    std::printf("  %s\n", status.c_str());
}

void print_columns(const std::vector<Column> &columns)
{
    std::vector<std::string> titles;
    for (const Column &c : columns)
        titles.push_back(c.title);
    print_line(columns, titles, "status");
}

void print_row(const std::vector<Column> &columns, const Row &r)
{
    std::vector<std::string> cells;
    for (const Column &c : columns)
        cells.push_back(c.cell(r));
    print_line(columns, cells, r.status);
    std::fflush(stdout);
}

// ---- the CSV ----------------------------------------------------------------------

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

// A number, or an empty cell where there is none.
std::string csv_num(double v, const char *fmt)
{
    return std::isnan(v) ? "" : fixed(v, fmt);
}

// Writes the rows to `path` with clreduce-bench's columns, after the header
// lines given (each starting with "#"); false if the file cannot be written.
bool write_csv(const std::string &path, const Machine &m, const std::vector<std::string> &header,
               const std::vector<Row> &rows)
{
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f)
        return false;
    for (const std::string &line : header)
        std::fprintf(f, "%s\n", line.c_str());
    std::fputs("device,driver,date,variant,op,type,elements,bytes,copies,call_us,b2b_us,span_us,"
               "b2b_calls,gbps,pct_peak,peak_gbps,status,scan_op,in_place,peak_kind,shape,segments,"
               "host_us\n",
               f);
    for (const Row &r : rows) {
        const char *kind = std::isnan(r.peak_gbps) ? "" : r.scan ? "copy" : "read";
        std::string segments = r.shape.empty() ? "" : std::to_string(r.segments);
        std::fprintf(f, "%s,%s,%s,%s,%s,%s,%zu,%zu,%zu,%s,%s,,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
                     csv_quote(m.prop.name).c_str(), csv_quote(m.driver).c_str(), m.date.c_str(),
                     r.floor ? "empty_kernel" : r.variant.c_str(), r.op.c_str(),
                     r.type.c_str(), r.elements, r.bytes, r.copies,
                     csv_num(r.call_us, "%.3f").c_str(),
                     csv_num(r.b2b_us, "%.3f").c_str(),
                     r.b2b_calls ? std::to_string(r.b2b_calls).c_str() : "",
                     csv_num(r.gbps, "%.3f").c_str(),
                     csv_num(100.0 * r.gbps / r.peak_gbps, "%.2f").c_str(),
                     csv_num(r.peak_gbps, "%.3f").c_str(), csv_quote(r.status).c_str(),
                     r.scan_op.c_str(), r.scan ? "0" : "", kind, csv_quote(r.shape).c_str(),
                     segments.c_str(), csv_num(r.host_us, "%.3f").c_str());
    }
    return std::fclose(f) == 0;
}

} // namespace
