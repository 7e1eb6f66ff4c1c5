// cub_reduce's results: the rows, the header, the tables on stdout and the
// CSV, with clreduce-bench's columns (bench/README.md). Included once, by
// cub_reduce.cu.
#pragma once

#include <cub/version.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cub_options.h"

namespace {

struct Row {
    bool floor = false, scan = false;
    std::string op, type, scan_op, status;
    size_t elements = 0, bytes = 0, copies = 0;
    double call_us = NAN, b2b_us = NAN, gbps = NAN;
    double host_us = NAN; // host time inside the timed calls (the launch alone for the floor)
    int b2b_calls = 0;
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

double median(std::vector<double> v)
{
    if (v.empty())
        return NAN;
    std::sort(v.begin(), v.end());
    size_t k = v.size();
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
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

double peak_of(const Context &c, const Row &r)
{
    return r.floor ? NAN : r.scan ? c.copy_gbps : c.peak_gbps;
}

std::vector<std::string> header_lines(const Context &c, const Options &o)
{
    char buf[2048];
    std::vector<std::string> lines;
    std::snprintf(buf, sizeof buf, "# cub_reduce, CUB %d.%d.%d, %s (UTC)", CUB_VERSION / 100000,
                  CUB_VERSION / 100 % 1000, CUB_VERSION % 100, c.date.c_str());
    lines.push_back(buf);
    lines.push_back("# command: " + o.command);
    std::snprintf(buf, sizeof buf,
                  "# device: %s (GPU, %d SMs, %.2f GB, compute capability %d.%d, L2 %s) | "
                  "driver: %s | platform: CUDA",
                  c.prop.name, c.prop.multiProcessorCount, (double)c.prop.totalGlobalMem / 1e9,
                  c.prop.major, c.prop.minor, bytes_label((double)c.prop.l2CacheSize).c_str(),
                  c.driver.c_str());
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
                  "call, every result checked against a host reference. call_us (the headline, to compare with "
                  "clreduce-bench's): median of cudaEventRecord just before the call to "
                  "cudaEventRecord just after it. span_us: not measured. host_us: median host "
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

const char *const ROW_FORMAT =
    "%-6s %-14s %-4s %-6s %9s %9s %6s %10s %10s %10s %9s %9s %6s  %s\n";

void print_columns()
{
    std::printf(ROW_FORMAT, "", "op", "scan", "type", "elements", "bytes", "copies", "call_us",
                "b2b_us", "span_us", "host_us", "GB/s", "%peak", "status");
}

void print_row(const Context &c, const Row &r)
{
    if (r.floor) {
        std::printf("# driver floor: an empty kernel, one block of one thread, timed as a call\n");
        std::printf("%-18s %10s %10s %10s %9s  %s\n", "variant", "call_us", "b2b_us", "span_us",
                    "host_us", "status");
        std::printf("%-18s %10s %10s %10s %9s  %s\n\n", "empty_kernel", fixed(r.call_us).c_str(),
                    fixed(r.b2b_us).c_str(), "-", fixed(r.host_us).c_str(), r.status.c_str());
    } else {
        double pct = 100.0 * r.gbps / peak_of(c, r);
        std::printf(ROW_FORMAT, "cub", r.op.c_str(), r.scan ? r.scan_op.c_str() : "-",
                    r.type.c_str(), size_label(r.elements).c_str(),
                    bytes_label((double)r.bytes).c_str(), std::to_string(r.copies).c_str(),
                    fixed(r.call_us).c_str(), fixed(r.b2b_us).c_str(), "-",
                    fixed(r.host_us).c_str(), fixed(r.gbps, "%.1f").c_str(),
                    std::isnan(pct) ? "-" : (fixed(pct, "%.1f") + "%").c_str(),
                    r.status.c_str());
    }
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
    return std::isnan(v) ? "" : fixed(v, fmt);
}

bool write_csv(const Context &c, const Options &o, const std::vector<Row> &rows)
{
    FILE *f = std::fopen(o.csv.c_str(), "w");
    if (!f)
        return false;
    for (const std::string &line : header_lines(c, o))
        std::fprintf(f, "%s\n", line.c_str());
    std::fputs("device,driver,date,variant,op,type,elements,bytes,copies,call_us,b2b_us,span_us,"
               "b2b_calls,gbps,pct_peak,peak_gbps,status,scan_op,in_place,peak_kind,shape,segments,"
               "host_us\n",
               f);
    for (const Row &r : rows) {
        double peak = peak_of(c, r);
        const char *kind = std::isnan(peak) ? "" : r.scan ? "copy" : "read";
        std::fprintf(f, "%s,%s,%s,%s,%s,%s,%zu,%zu,%zu,%s,%s,,%s,%s,%s,%s,%s,%s,%s,%s,,,%s\n",
                     csv_quote(c.prop.name).c_str(), csv_quote(c.driver).c_str(), c.date.c_str(),
                     r.floor ? "empty_kernel" : "cub", r.op.c_str(), r.type.c_str(), r.elements,
                     r.bytes, r.copies, csv_num(r.call_us, "%.3f").c_str(),
                     csv_num(r.b2b_us, "%.3f").c_str(),
                     r.b2b_calls ? std::to_string(r.b2b_calls).c_str() : "",
                     csv_num(r.gbps, "%.3f").c_str(),
                     csv_num(100.0 * r.gbps / peak, "%.2f").c_str(),
                     csv_num(peak, "%.3f").c_str(), csv_quote(r.status).c_str(),
                     r.scan_op.c_str(), r.scan ? "0" : "", kind, csv_num(r.host_us, "%.3f").c_str());
    }
    return std::fclose(f) == 0;
}

} // namespace
