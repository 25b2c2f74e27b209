#!/usr/bin/env python3
"""Draws dma.png from one dma run, or the preset comparison from several.

usage: plot_dma.py RUN_FOLDER                      -> RUN_FOLDER/dma.png
       plot_dma.py --compare OUT_FOLDER RUN...     -> OUT_FOLDER/latency.png, bandwidth.png
       plot_dma.py --against MEASURED_CSV RUN      -> RUN/against_measured.png, .csv

Latency: median latency of a single DMA read against transfer size.
Bandwidth: read and write bandwidth with many transfers in flight.
--against: the run beside measured points (a CSV in the shape of
results/pcie/pcie_bench_e5_2620v3.csv, '#' lines for its provenance), and
against_measured.csv with the model's value, the measured one and the gap
(model - measured) / measured in percent, per size both have.
"""
import csv
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(folder):
    folder = Path(folder)
    summary = json.loads((folder / "summary.json").read_text())
    with open(folder / "dma.csv", newline="") as f:
        rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]
    p = summary["pcie"]
    label = f"Gen{p['generation']} x{p['lanes']} ({p['link_gbps']:.1f} Gbit/s)"
    return label, rows


def detailed_label(folder, label):
    """The run's link (`label`) with what the comparison with measurements turns on."""
    p = json.loads((Path(folder) / "summary.json").read_text())["pcie"]
    return (f"{label}, {p['completion_bytes']} B completions, {p['read_tags']} tags, "
            f"lines {p.get('read_line_ns', 0):g} ns apart")


def size_axis(ax):
    ax.set_xscale("log", base=2)
    ax.set_xlabel("transfer size (bytes)")
    ax.grid(True, which="both", linestyle=":", linewidth=0.5)


def draw_latency(ax, runs):
    for label, rows in runs:
        ax.plot([r["size_bytes"] for r in rows], [r["read_latency_ns"] for r in rows],
                marker="o", markersize=3, label=label)
    size_axis(ax)
    ax.set_yscale("log")
    ax.set_ylabel("DMA read latency, median (ns)")
    ax.legend(fontsize=8)


def draw_bandwidth(ax, runs):
    for i, (label, rows) in enumerate(runs):
        colour = plt.get_cmap("tab10").colors[i % 10]
        sizes = [r["size_bytes"] for r in rows]
        ax.plot(sizes, [r["read_bw_gbps"] for r in rows], marker="o", markersize=3,
                color=colour, label=f"{label} read")
        ax.plot(sizes, [r["write_bw_gbps"] for r in rows], marker="s", markersize=3,
                linestyle="--", color=colour, label=f"{label} write")
    size_axis(ax)
    ax.set_ylabel("bandwidth (Gbit/s)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7)


def load_measured(path):
    with open(path, newline="") as f:
        lines = [line for line in f if not line.startswith("#")]
    rows = {}
    for r in csv.DictReader(lines):
        rows[int(r["size_bytes"])] = {k: float(v) for k, v in r.items() if v != ""}
    return rows


# (model column in dma.csv, measured column, what)
COMPARED = (("read_latency_ns", "read_latency_median_ns", "read latency, median (ns)"),
            ("read_bw_gbps", "read_bw_gbps", "read bandwidth (Gbit/s)"),
            ("write_bw_gbps", "write_bw_gbps", "write bandwidth (Gbit/s)"))


def against(measured_path, folder):
    folder = Path(folder)
    measured = load_measured(measured_path)
    label, rows = load(folder)
    model = {int(r["size_bytes"]): r for r in rows}
    with open(folder / "against_measured.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["quantity", "size_bytes", "model", "measured", "gap_percent"])
        for ours, theirs, _ in COMPARED:
            for size in sorted(set(model) & set(measured)):
                if theirs not in measured[size]:
                    continue
                m, x = model[size][ours], measured[size][theirs]
                out.writerow([ours, size, f"{m:.3f}", f"{x:.3f}", f"{100 * (m - x) / x:+.1f}"])
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    for ax, (ours, theirs, what) in zip(axes, COMPARED):
        sizes = sorted(s for s in model if s <= max(measured))
        ax.plot(sizes, [model[s][ours] for s in sizes], marker="o", markersize=3,
                label="model")
        points = sorted(s for s in measured if theirs in measured[s])
        ax.plot(points, [measured[s][theirs] for s in points], linestyle="none", marker="x",
                color="black", label="measured")
        size_axis(ax)
        ax.set_ylabel(what)
        if "bandwidth" in what:
            ax.set_ylim(bottom=0)
        ax.legend(fontsize=8)
    fig.suptitle(f"model: {detailed_label(folder, label)}; x: pcie-bench, measured", fontsize=10)
    fig.tight_layout()
    fig.savefig(folder / "against_measured.png", dpi=110)


def main(argv):
    if len(argv) == 3 and argv[0] == "--against":
        against(argv[1], argv[2])
        return
    if len(argv) >= 3 and argv[0] == "--compare":
        out = Path(argv[1])
        runs = [load(f) for f in argv[2:]]
        for name, draw in (("latency.png", draw_latency), ("bandwidth.png", draw_bandwidth)):
            fig, ax = plt.subplots(figsize=(7, 4.5))
            draw(ax, runs)
            fig.tight_layout()
            fig.savefig(out / name, dpi=110)
        return
    if len(argv) != 1:
        sys.exit(__doc__)
    runs = [load(argv[0])]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    draw_latency(left, runs)
    draw_bandwidth(right, runs)
    fig.tight_layout()
    fig.savefig(Path(argv[0]) / "dma.png", dpi=110)


if __name__ == "__main__":
    main(sys.argv[1:])
