#!/usr/bin/env python3
"""Plots clreduce-bench results: GB/s against the element count.

usage: python3 bench/plot.py results.csv [more.csv ...] -o plot.png
                             [--op sum] [--type float] [--variants a,b]
                             [--peak GBPS] [--title TEXT]
                             [--scan-op sum] [--in-place]

Reads one or more CSV files written by `clreduce-bench --csv` (or by the CUB
yardstick in bench/peers, whose rows have variant "cub"), keeps the rows of
one operator and type that measured successfully, and draws one line per
variant: GB/s against the number of elements on a log2 axis. GB/s is the
CSV's gbps column, which comes from the headline time call_us (the median
device time of one call, launch included; bench/README.md). The bandwidth
ceiling is drawn as a dashed horizontal line: --peak, or else the largest
peak_gbps found in the rows.

With --op inclusive_scan or exclusive_scan it draws prefix scans instead, of
the operator --scan-op (default sum) out of place, or in place with
--in-place: two panels, call_us and the bandwidth in TB/s (bytes read +
written) against the number of elements, one line per variant; the ceiling
is the copy peak (--peak, or the largest peak_gbps of the rows whose
peak_kind is "copy"), and the floor on the time panel the call_us of the
empty kernel (variant empty_kernel) of each file that has one.

Lines starting with "#" (the header clreduce-bench and cub_reduce write)
are skipped. CSVs written before call_us existed are read too: their time
column is median_us, their rows lack scan_op (their scans are sums) and
in_place (out of place).
"""
import argparse
import csv
import math
import sys

# The variants in the order of the optimisation ladder; others (cub) follow.
LADDER = ["interleaved", "sequential", "first_add", "subgroup_tail", "subgroup", "unrolled",
          "grid_stride", "atomic", "single_pass", "auto"]
SCAN_LADDER = ["hillis_steele", "blelloch", "reduce_then_scan", "lookback", "auto"]
SCAN_OPS = ("inclusive_scan", "exclusive_scan")
MARKERS = "os^vD<>phx*+"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("csv", nargs="+", help="CSV file(s) from clreduce-bench --csv")
    p.add_argument("-o", "--output", required=True, help="PNG file to write")
    p.add_argument("--op", default="sum", help="operator to plot (default: sum)")
    p.add_argument("--type", default="float", help="element type to plot (default: float)")
    p.add_argument("--variants", help="comma-separated variants to plot (default: all found)")
    p.add_argument("--peak", type=float, help="ceiling in GB/s (default: from the CSV)")
    p.add_argument("--title", help="title (default: operator, type and device)")
    p.add_argument("--scan-op", default="sum",
                   help="operator of the scans to plot, with --op inclusive_scan or "
                        "exclusive_scan (default: sum)")
    p.add_argument("--in-place", action="store_true",
                   help="plot the scans measured in place (default: out of place)")
    return p.parse_args(argv)


def number(text):
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def read_rows(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            reader = csv.DictReader(line for line in f if not line.startswith("#"))
            missing = {"variant", "op", "type", "elements", "gbps", "status"} - set(
                reader.fieldnames or [])
            if missing:
                sys.exit(f"plot.py: {path}: missing column(s) {', '.join(sorted(missing))}")
            for r in reader:
                r["_file"] = path
                rows.append(r)
    return rows


def call_time(r):
    """The headline time of a row in µs: call_us, or median_us in older CSVs."""
    t = number(r.get("call_us"))
    return t if t is not None else number(r.get("median_us"))


def ordered(series, ladder):
    """The variants of series in ladder order, then the others by name."""
    def position(variant):
        return (ladder.index(variant), "") if variant in ladder else (len(ladder), variant)
    return sorted(series, key=position)


def select(args, rows, point, accept=lambda r: True):
    """What is drawn of the rows of args.op and args.type that measured
    successfully, of the variants --variants names (default: all), that
    accept(row) takes and for which point(row, gbps) is not None:
    {variant: {elements: point}}, the devices in order of appearance, and
    the rows drawn."""
    wanted = set(args.variants.split(",")) if args.variants else None
    series = {}
    devices = []
    drawn = []
    for r in rows:
        if r["op"] != args.op or r["type"] != args.type or not accept(r):
            continue
        if not r["status"].startswith("ok"):
            continue
        if wanted and r["variant"] not in wanted:
            continue
        elements, gbps = number(r["elements"]), number(r["gbps"])
        if elements is None or gbps is None or elements <= 0:
            continue
        value = point(r, gbps)
        if value is None:
            continue
        series.setdefault(r["variant"], {})[elements] = value
        if r.get("device") and r["device"] not in devices:
            devices.append(r["device"])
        drawn.append(r)
    return series, devices, drawn


def ceiling(args, drawn, peak_kind=None):
    """--peak, else the largest peak_gbps of the rows drawn (of that
    peak_kind, if given), else None."""
    if args.peak is not None:
        return args.peak
    peaks = [number(r.get("peak_gbps")) for r in drawn
             if peak_kind is None or r.get("peak_kind") == peak_kind]
    return max((p for p in peaks if p), default=None)


def save(fig, args):
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"wrote {args.output}")
    return 0


def plot_scans(args, rows, plt):
    """Two panels for the scans: call_us and TB/s against the element count."""
    in_place = "1" if args.in_place else "0"
    floors = {}  # file -> the empty kernel's call_us
    for r in rows:
        if r["variant"] == "empty_kernel" and r["status"].startswith("ok"):
            floor = call_time(r)
            if floor is not None:
                floors[r["_file"]] = (floor, r.get("device") or r["_file"])

    def scan_row(r):
        # Older CSVs lack these columns; their scans were sums out of place.
        return (r["variant"] != "empty_kernel" and (r.get("scan_op") or "sum") == args.scan_op
                and (r.get("in_place") or "0") == in_place)

    def time_and_gbps(r, gbps):
        time = call_time(r)
        return None if time is None else (time, gbps)

    # variant -> {elements: (call_us, gbps)}
    series, devices, drawn = select(args, rows, time_and_gbps, scan_row)
    if not series:
        sys.exit(f"plot.py: no successful rows for {args.op} of {args.scan_op}, type {args.type}"
                 f"{', in place' if args.in_place else ''}")
    peak = ceiling(args, drawn, "copy")

    fig, (ax_us, ax_bw) = plt.subplots(1, 2, figsize=(14, 6))
    for i, variant in enumerate(ordered(series, SCAN_LADDER)):
        points = series[variant]
        xs = sorted(points)
        style = dict(marker=MARKERS[i % len(MARKERS)], markersize=4, linewidth=1.5,
                     label=variant)
        ax_us.plot(xs, [points[x][0] for x in xs], **style)
        ax_bw.plot(xs, [points[x][1] / 1000 for x in xs], **style)
    if peak:
        ax_bw.axhline(peak / 1000, linestyle="--", color="black", linewidth=1,
                      label=f"peak (copy, read+write) {peak / 1000:.2f} TB/s")
    for i, (floor, device) in enumerate(floors.values()):
        label = "empty kernel" + (f" ({device})" if len(floors) > 1 else "")
        ax_us.axhline(floor, linestyle=":", color=f"C{7 + i % 3}", linewidth=1,
                      label=f"{label} {floor:.2f} µs")
    for ax in (ax_us, ax_bw):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("elements")
        ax.grid(True, which="major", alpha=0.3)
    ax_us.set_yscale("log")
    ax_us.set_ylabel("µs (call_us: median device time of one call)")
    ax_bw.set_ylabel("TB/s (bytes read + written, 1 TB = 1e12 bytes)")
    top = max(g for p in series.values() for _, g in p.values()) / 1000
    ax_bw.set_ylim(0, max(top, (peak or 0) / 1000) * 1.08)
    ax_us.legend(loc="upper left", fontsize="small")
    ax_bw.legend(loc="upper left", fontsize="small")
    device = ", ".join(devices) if devices else "unknown device"
    where = "in place" if args.in_place else "out of place"
    fig.suptitle(args.title or f"clreduce {args.op.replace('_', ' ')} ({args.scan_op}) "
                               f"{args.type}, {where}, on {device}")
    return save(fig, args)


def main(argv):
    args = parse_args(argv)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot.py: matplotlib is needed: apt install python3-matplotlib "
                 "(Debian, Ubuntu), or pip install matplotlib")

    rows = read_rows(args.csv)
    if args.op in SCAN_OPS:
        return plot_scans(args, rows, plt)
    series, devices, drawn = select(args, rows, lambda r, gbps: gbps)
    if not series:
        sys.exit(f"plot.py: no successful rows for op {args.op}, type {args.type}")

    peak = ceiling(args, drawn)

    fig, ax = plt.subplots(figsize=(10, 6))
    for i, variant in enumerate(ordered(series, LADDER)):
        points = series[variant]
        xs = sorted(points)
        ax.plot(xs, [points[x] for x in xs], marker=MARKERS[i % len(MARKERS)], markersize=4,
                linewidth=1.5, label=variant)
    if peak:
        ax.axhline(peak, linestyle="--", color="black", linewidth=1,
                   label=f"peak (read-only kernel) {peak:.0f} GB/s")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("elements")
    ax.set_ylabel("GB/s (1 GB = 1e9 bytes, from call_us: median device time of one call)")
    top = max(max(p.values()) for p in series.values())
    ax.set_ylim(0, max(top, peak or 0) * 1.08)
    ax.grid(True, which="major", alpha=0.3)
    device = ", ".join(devices) if devices else "unknown device"
    ax.set_title(args.title or f"clreduce {args.op} {args.type} on {device}")
    ax.legend(loc="upper left", fontsize="small")
    return save(fig, args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
