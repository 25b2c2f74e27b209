#!/usr/bin/env python3
"""Draws throughput.png and queues.png from a fabric run: each flow's
goodput over time (in-order payload bytes per bin of about 1/100 of the run,
coarser than traffic.sample_ns where the samples would show single packets;
at most 16 flows drawn, the rest summed) and the egress queues that held the
most bytes; and rates.png when the run wrote rates.csv (DCQCN on): each QP
rate limiter's rate over time, at most 16 drawn.

usage: plot_fabric.py RUN_FOLDER
"""
import csv
import math
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MAX_FLOWS = 16
MAX_QUEUES = 8
BINS = 100


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def flow_labels(folder):
    labels = {}
    for row in read_rows(folder / "flows.csv"):
        labels[int(row["flow"])] = f"{row['flow']}: {row['source']}>{row['destination']}"
    return labels


def rebinned(series):
    """Each flow's samples summed into about BINS bins over the run (a
    sample's bits go to the bin its end falls in)."""
    times = sorted({t for ts, _ in series.values() for t in ts})
    if not times:
        return series
    before = dict(zip(times, [0.0] + times[:-1]))  # each sample's start
    sample = min(t - p for t, p in before.items() if p < t)
    # A whole number of samples per bin, so that no bin gets one sample more than another.
    width = sample * max(1, math.ceil(times[-1] / BINS / sample))
    out = {}
    for flow, (ts, gbps) in series.items():
        bins = defaultdict(float)
        for t, g in zip(ts, gbps):
            # Gbit/s x us = kbit; a bin's mean rate is its kbit over its width.
            bins[int((t - 1e-9) // width)] += g * (t - before[t])
        keys = sorted(bins)
        out[flow] = ([k * width for k in keys], [bins[k] / width for k in keys])
    return out


def draw_throughput(folder):
    series = defaultdict(lambda: ([], []))
    for row in read_rows(folder / "throughput.csv"):
        times, gbps = series[int(row["flow"])]
        times.append(float(row["time_us"]))
        gbps.append(float(row["gbps"]))
    series = rebinned(series)
    labels = flow_labels(folder)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    flows = sorted(series)
    for flow in flows[:MAX_FLOWS]:
        times, gbps = series[flow]
        ax.step(times, gbps, where="post", linewidth=1, label=labels.get(flow, str(flow)))
    if len(flows) > MAX_FLOWS:
        rest = defaultdict(float)
        for flow in flows[MAX_FLOWS:]:
            for t, g in zip(*series[flow]):
                rest[t] += g
        times = sorted(rest)
        ax.step(times, [rest[t] for t in times], where="post", color="black", linewidth=1,
                label=f"{len(flows) - MAX_FLOWS} more flows, summed")
    ax.set_xlabel("time since the flows' start (us)")
    ax.set_ylabel("goodput (Gbit/s, per bin)")
    ax.grid(True, linestyle=":", linewidth=0.5)
    ax.legend(fontsize=7, ncol=2, loc="upper right")
    fig.tight_layout()
    fig.savefig(folder / "throughput.png", dpi=110)
    plt.close(fig)


def draw_queues(folder):
    series = defaultdict(lambda: ([], []))
    for row in read_rows(folder / "queues.csv"):
        times, depth = series[(row["port"], row["class"])]
        times.append(float(row["time_us"]))
        depth.append(int(row["bytes"]) / 1024)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    biggest = sorted(series, key=lambda q: -max(series[q][1]))[:MAX_QUEUES]
    for port, klass in biggest:
        times, depth = series[(port, klass)]
        ax.step(times, depth, where="post", linewidth=1, label=f"{port} class {klass}")
    ax.set_xlabel("time since the flows' start (us)")
    ax.set_ylabel("egress queue (KiB)")
    ax.grid(True, linestyle=":", linewidth=0.5)
    if biggest:
        ax.legend(fontsize=7, loc="upper right")
    else:
        ax.text(0.5, 0.5, "no switch queue held a byte", transform=ax.transAxes, ha="center")
    fig.tight_layout()
    fig.savefig(folder / "queues.png", dpi=110)
    plt.close(fig)


def draw_rates(folder):
    series = defaultdict(lambda: ([], []))
    for row in read_rows(folder / "rates.csv"):
        times, gbps = series[f"{row['node']} QP {row['qpn']}"]
        times.append(float(row["time_us"]))
        gbps.append(float(row["rate_gbps"]))
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for name in sorted(series)[:MAX_FLOWS]:
        times, gbps = series[name]
        ax.step(times, gbps, where="post", linewidth=1, label=name)
    ax.set_xlabel("time since the flows' start (us)")
    ax.set_ylabel("DCQCN rate (Gbit/s)")
    ax.grid(True, linestyle=":", linewidth=0.5)
    if series:
        ax.legend(fontsize=7, ncol=2, loc="upper right")
    else:
        ax.text(0.5, 0.5, "no QP was cut", transform=ax.transAxes, ha="center")
    fig.tight_layout()
    fig.savefig(folder / "rates.png", dpi=110)
    plt.close(fig)


def main(folder):
    folder = Path(folder)
    draw_throughput(folder)
    draw_queues(folder)
    if (folder / "rates.csv").exists():
        draw_rates(folder)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
