#!/usr/bin/env python3
"""Draws pipeline.png from a pipeline run's arrivals.csv and summary.json.

A timing diagram in the style of the seed figures: one panel per path, time on
the x axis, one row per Data (Data 0 on top), one coloured box per stage from
its start to its end, for the first 8 Data. arrivals.csv is read row by row
and only those rows are kept, so its size does not matter.

usage: plot_pipeline.py RUN_FOLDER
"""
import csv
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MAX_DATA = 8


def stage_names(header):
    return [c[: -len("_start_ns")] for c in header if c.endswith("_start_ns")]


def main(folder):
    folder = Path(folder)
    summary = json.loads((folder / "summary.json").read_text())
    with open(folder / "arrivals.csv", newline="") as f:
        reader = csv.DictReader(f)
        stages = stage_names(reader.fieldnames)
        rows = [r for r in reader if int(r["data_index"]) < MAX_DATA]
    if not rows:
        print("pipeline.png not drawn: arrivals.csv holds no Data (output.timeline_data is 0)")
        return

    colours = dict(zip(stages, plt.get_cmap("tab10").colors))
    paths = list(summary["paths"].keys())
    fig, axes = plt.subplots(len(paths), 1, figsize=(9, 2.2 + 0.45 * MAX_DATA * len(paths)),
                             squeeze=False)
    x_max = 0.0
    for ax, path in zip(axes[:, 0], paths):
        info = summary["paths"][path]
        data = [r for r in rows if r["path"] == path]
        for r in data:
            y = int(r["data_index"])
            for stage in info["stages"]:
                start = float(r[f"{stage}_start_ns"])
                end = float(r[f"{stage}_end_ns"])
                ax.barh(y, end - start, left=start, height=0.7, color=colours[stage],
                        edgecolor="black", linewidth=0.6)
            x_max = max(x_max, float(r["arrival_ns"]))
            ax.plot(float(r["produced_ns"]), y, marker="|", color="black", markersize=14)
        ax.set_yticks(range(len(data)))
        ax.set_yticklabels([f"Data {i}" for i in range(len(data))])
        ax.invert_yaxis()
        ax.set_title(f"{path}: {' → '.join(info['stages'])}   first latency "
                     f"{info['first_latency_ns']:g} ns, steady {info['steady_gbps']:g} Gbit/s, "
                     f"bottleneck {info['bottleneck']}", fontsize=9)
        ax.grid(axis="x", linestyle=":", linewidth=0.5)
    for ax in axes[:, 0]:
        ax.set_xlim(0, x_max * 1.02)
    axes[-1, 0].set_xlabel("time (ns); | marks when the application produced the Data")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours[s]) for s in stages]
    workload = summary["workload"]
    fig.suptitle(f"{workload['data_bits']}-bit Data every {workload['interval_ns']:g} ns",
                 fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    fig.legend(handles, stages, loc="upper center", bbox_to_anchor=(0.5, 0.965),
               ncol=len(stages), frameon=False)
    fig.savefig(folder / "pipeline.png", dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
