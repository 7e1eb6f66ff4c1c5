#!/usr/bin/env python3
"""Plots clreduce-bench results: GB/s against the element count.

usage: python3 bench/plot.py results.csv [more.csv ...] -o plot.png
                             [--op sum] [--type float] [--variants a,b]
                             [--peak GBPS] [--title TEXT]

Reads one or more CSV files written by `clreduce-bench --csv` (or by the CUB
yardstick in bench/peers, whose rows have variant "cub"), keeps the rows of
one operator and type that measured successfully, and draws one line per
variant: GB/s (from the median device time) against the number of elements
on a log2 axis. The bandwidth ceiling is drawn as a dashed horizontal line:
--peak, or else the largest peak_gbps found in the rows.
"""
import argparse
import csv
import math
import sys

# The variants in the order of the optimisation ladder; others (cub) follow.
LADDER = ["interleaved", "sequential", "first_add", "subgroup_tail", "subgroup", "unrolled",
          "grid_stride", "atomic", "single_pass", "auto"]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("csv", nargs="+", help="CSV file(s) from clreduce-bench --csv")
    p.add_argument("-o", "--output", required=True, help="PNG file to write")
    p.add_argument("--op", default="sum", help="operator to plot (default: sum)")
    p.add_argument("--type", default="float", help="element type to plot (default: float)")
    p.add_argument("--variants", help="comma-separated variants to plot (default: all found)")
    p.add_argument("--peak", type=float, help="ceiling in GB/s (default: from the CSV)")
    p.add_argument("--title", help="title (default: operator, type and device)")
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
            reader = csv.DictReader(f)
            missing = {"variant", "op", "type", "elements", "gbps", "status"} - set(
                reader.fieldnames or [])
            if missing:
                sys.exit(f"plot.py: {path}: missing column(s) {', '.join(sorted(missing))}")
            rows.extend(reader)
    return rows


def main(argv):
    args = parse_args(argv)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot.py: matplotlib is needed (pip install matplotlib)")

    rows = read_rows(args.csv)
    wanted = set(args.variants.split(",")) if args.variants else None
    series = {}
    devices = []
    peaks = []
    for r in rows:
        if r["op"] != args.op or r["type"] != args.type:
            continue
        if not r["status"].startswith("ok"):
            continue
        if wanted and r["variant"] not in wanted:
            continue
        elements, gbps = number(r["elements"]), number(r["gbps"])
        if elements is None or gbps is None or elements <= 0:
            continue
        series.setdefault(r["variant"], {})[elements] = gbps
        if r.get("device") and r["device"] not in devices:
            devices.append(r["device"])
        peak = number(r.get("peak_gbps"))
        if peak:
            peaks.append(peak)
    if not series:
        sys.exit(f"plot.py: no successful rows for op {args.op}, type {args.type}")

    peak = args.peak if args.peak is not None else (max(peaks) if peaks else None)

    fig, ax = plt.subplots(figsize=(10, 6))
    markers = "os^vD<>phx*+"
    def ladder_position(variant):
        return (LADDER.index(variant), "") if variant in LADDER else (len(LADDER), variant)
    for i, variant in enumerate(sorted(series, key=ladder_position)):
        points = series[variant]
        xs = sorted(points)
        ax.plot(xs, [points[x] for x in xs], marker=markers[i % len(markers)], markersize=4,
                linewidth=1.5, label=variant)
    if peak:
        ax.axhline(peak, linestyle="--", color="black", linewidth=1,
                   label=f"peak (read-only kernel) {peak:.0f} GB/s")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("elements")
    ax.set_ylabel("GB/s (1 GB = 1e9 bytes, median device time)")
    top = max(max(p.values()) for p in series.values())
    ax.set_ylim(0, max(top, peak or 0) * 1.08)
    ax.grid(True, which="major", alpha=0.3)
    device = ", ".join(devices) if devices else "unknown device"
    ax.set_title(args.title or f"clreduce {args.op} {args.type} on {device}")
    ax.legend(loc="upper left", fontsize="small")
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
