// cub_reduce's command line: the options, their parsing and the help text
// (host code only); the other peers use its operators and its parsing of
// counts and lists. Included by each peer.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

enum class Op { Sum, Min, Max };
enum class Kind { Reduce, Inclusive, Exclusive };

const char *op_name(Op op)
{
    return op == Op::Sum ? "sum" : op == Op::Min ? "min" : "max";
}

// The CSV's op column: the operator of a reduction, the kind of a scan.
const char *kind_column(Kind k, Op op)
{
    return k == Kind::Reduce ? op_name(op) : k == Kind::Inclusive ? "inclusive_scan"
                                                                   : "exclusive_scan";
}

constexpr int B2B_AUTO = -1, B2B_BATCHES = 3, B2B_MIN_CALLS = 10, B2B_MAX_CALLS = 2000;
constexpr double B2B_TARGET_MS = 20.0;
constexpr size_t FULL_CHECK_MAX = (size_t)1 << 22;
struct Options {
    std::vector<size_t> sizes;
    std::vector<std::string> types;
    std::vector<Op> ops, scan_ops;
    std::vector<Kind> scan_kinds;
    bool reductions = true;
    int runs = 40, warmup = 5, b2b_calls = B2B_AUTO;
    int device = 0;
    bool peak = true, read_floor = true;
    std::string csv, command;
};

int b2b_calls_for(const Options &o, double call_us)
{
    if (o.b2b_calls != B2B_AUTO)
        return o.b2b_calls;
    double want = B2B_TARGET_MS * 1e3 / call_us;
    if (!(want >= B2B_MIN_CALLS))
        return B2B_MIN_CALLS;
    return want >= B2B_MAX_CALLS ? B2B_MAX_CALLS : (int)std::ceil(want);
}

// ---- parsing ------------------------------------------------------------------------

void usage(FILE *f)
{
    std::fputs(
        "usage: cub_reduce [options]\n"
        "  --sizes LIST       element counts: 1048576, 2^20, 1e8 (default 2^20,2^24,1e8,2^28,\n"
        "                     2^30; sizes that do not fit in 40% of the free memory are\n"
        "                     skipped)\n"
        "  --types LIST       float, int32, double or all (default: all)\n"
        "  --ops LIST         sum, min, max or all, for reductions and scans (default: all);\n"
        "                     scan, kept from earlier versions, adds the inclusive sum scan\n"
        "                     alone (when --scan-kinds is not given)\n"
        "  --scan-kinds LIST  inclusive, exclusive, all or none (default: all): the scans of\n"
        "                     every --ops operator (DeviceScan::InclusiveSum, ExclusiveSum,\n"
        "                     InclusiveScan and ExclusiveScan with cuda::minimum<> or\n"
        "                     cuda::maximum<>); read + write bytes, against the copy peak\n"
        "  --no-reductions    scans only\n"
        "  --runs N           timed calls, whose median is call_us (default 40)\n"
        "  --warmup N         untimed calls before them (default 5)\n"
        "  --b2b-calls N      calls per back-to-back batch, auto (default: as many as take\n"
        "                     20 ms by call_us, 10 to 2000) or 0 (no b2b_us)\n"
        "  --device N         CUDA device index (default 0)\n"
        "  --no-peak          do not measure the bandwidth ceilings (read-only kernel, copy)\n"
        "  --no-read-floor    no read_kernel row (by default one per type and size: the\n"
        "                     fastest of ten grids of the ceiling's read kernel over the\n"
        "                     same input, timed as a call)\n"
        "  --csv FILE         also write the header as # lines and the rows as CSV\n"
        "                     (clreduce-bench's columns, variant cub)\n"
        "  --help             this text\n"
        "Columns: call_us, the headline to compare with clreduce-bench's: median of\n"
        "cudaEventRecord before and after one call; b2b_us: calls back to back between\n"
        "two cudaDeviceSynchronize, host clock / calls, median of 3 batches; span_us:\n"
        "empty (events cannot see a kernel's start); copies: input copies the calls\n"
        "rotate over; GB/s and %peak from call_us. empty_kernel: the driver's floor,\n"
        "an empty kernel of one block of one thread timed the same way.\n"
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

// The command line as typed, quoted where a shell would need it.
std::string command_line(int argc, char **argv)
{
    std::string cmd;
    for (int i = 0; i < argc; i++) {
        std::string a = argv[i];
        bool plain = !a.empty() &&
                     a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789-_./=:,^+@%") == std::string::npos;
        if (i)
            cmd += ' ';
        if (plain) {
            cmd += a;
        } else {
            cmd += '\'';
            for (char ch : a)
                cmd += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
            cmd += '\'';
        }
    }
    return cmd;
}

template <typename E> void add_unique(std::vector<E> &v, E e)
{
    if (std::find(v.begin(), v.end(), e) == v.end())
        v.push_back(e);
}

Options parse_options(int argc, char **argv)
{
    Options o;
    o.command = command_line(argc, argv);
    bool legacy_scan = false, kinds_given = false;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc)
                usage_error(a + " needs a value");
            return argv[++i];
        };
        auto number = [&](const std::string &v, long max) {
            char *end;
            long n = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || n < 0 || n > max)
                usage_error(a + " wants a whole number up to " + std::to_string(max) +
                            ", not \"" + v + "\"");
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
                if (item == "all")
                    for (const char *t : {"float", "int32", "double"})
                        add_unique(o.types, std::string(t));
                else if (item == "float" || item == "int32" || item == "double")
                    add_unique(o.types, item);
                else
                    usage_error("unknown type \"" + item + "\" (float, int32, double, all)");
            }
        } else if (a == "--ops") {
            for (const auto &item : split(value())) {
                if (item == "sum" || item == "all")
                    add_unique(o.ops, Op::Sum);
                if (item == "min" || item == "all")
                    add_unique(o.ops, Op::Min);
                if (item == "max" || item == "all")
                    add_unique(o.ops, Op::Max);
                if (item == "scan")
                    legacy_scan = true;
                else if (item != "sum" && item != "min" && item != "max" && item != "all")
                    usage_error("unknown op \"" + item + "\" (sum, min, max, all)");
            }
        } else if (a == "--scan-kinds") {
            kinds_given = true;
            for (const auto &item : split(value())) {
                if (item == "inclusive" || item == "all")
                    add_unique(o.scan_kinds, Kind::Inclusive);
                if (item == "exclusive" || item == "all")
                    add_unique(o.scan_kinds, Kind::Exclusive);
                if (item != "inclusive" && item != "exclusive" && item != "all" &&
                    item != "none")
                    usage_error("unknown scan kind \"" + item +
                                "\" (inclusive, exclusive, all, none)");
            }
        } else if (a == "--no-reductions") {
            o.reductions = false;
        } else if (a == "--runs") {
            o.runs = number(value(), 1000000);
            if (o.runs < 1)
                usage_error("--runs must be at least 1");
        } else if (a == "--warmup") {
            o.warmup = number(value(), 1000000);
        } else if (a == "--b2b-calls") {
            std::string v = value();
            o.b2b_calls = v == "auto" ? B2B_AUTO : number(v, B2B_MAX_CALLS);
        } else if (a == "--device") {
            o.device = number(value(), 1000);
        } else if (a == "--no-peak") {
            o.peak = false;
        } else if (a == "--no-read-floor") {
            o.read_floor = false;
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
    // Earlier versions' "--ops scan": the inclusive sum scan, and the
    // reductions of the other operators listed.
    if (legacy_scan) {
        o.reductions = o.reductions && !o.ops.empty();
        o.scan_ops = {Op::Sum};
        if (!kinds_given)
            o.scan_kinds = {Kind::Inclusive};
    } else {
        if (o.ops.empty())
            o.ops = {Op::Sum, Op::Min, Op::Max};
        o.scan_ops = o.ops;
        if (!kinds_given)
            o.scan_kinds = {Kind::Inclusive, Kind::Exclusive};
    }
    if (!o.reductions)
        o.ops.clear();
    return o;
}

} // namespace
