#!/usr/bin/env python3
"""Draws a sweep's plots from its table (rnicsim sweep writes the folder).

usage: plot_sweep.py SWEEP_FOLDER

Reads SWEEP_FOLDER/sweep.json (axes, metrics, Pareto columns) and
results.jsonl (one row per point) and writes into SWEEP_FOLDER/plots/:
  line_<axis>.png     each metric against that axis, one line per combination
                      of the other axes (their mean over seeds; with more than
                      8 combinations, the mean over them, as one line)
  heatmap_<a>_<b>.png each metric over the first two axes, a row of maps per
                      value of a third axis of at most 6 values (mean over the rest)
  pareto.png          the two Pareto columns of every finished point, the
                      front (points no other beats on both) joined
Failed and missing points are left out. Numeric axes spanning more than a
factor of 16 (all positive) are drawn on a log scale.
"""
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MAX_LINES = 8


def numeric(values):
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def log_scale(values):
    return numeric(values) and min(values) > 0 and max(values) / min(values) > 16


def key_text(value):
    return json.dumps(value) if isinstance(value, list) else str(value)


def mean(values):
    return sum(values) / len(values) if values else math.nan


def metric_value(row, name):
    value = row["metrics"].get(name)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def column(row, name):
    if name in row["parameters"]:
        return row["parameters"][name]
    return metric_value(row, name)


def line_plots(out, axes, metrics, rows):
    for a, axis in enumerate(axes):
        others = [o for o in axes if o is not axis]
        # (other axes' values) -> axis value -> metric -> values over seeds
        groups = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
        for row in rows:
            other = tuple(key_text(row["parameters"][o["key"]]) for o in others)
            x = key_text(row["parameters"][axis["key"]])
            for m in metrics:
                value = metric_value(row, m)
                if value is not None:
                    groups[other][x][m].append(value)
        if len(groups) > MAX_LINES:
            merged = defaultdict(lambda: defaultdict(list))
            for per_x in groups.values():
                for x, per_metric in per_x.items():
                    for m, values in per_metric.items():
                        merged[x][m].append(mean(values))
            groups = {("mean over the other axes",): merged}
            labels = {k: k[0] for k in groups}
        else:
            labels = {k: ", ".join(f"{o['label']}={v}" for o, v in zip(others, k)) or axis["label"]
                      for k in groups}
        positions = axis["values"]
        x_numeric = numeric(positions)
        fig, plots = plt.subplots(len(metrics), 1, figsize=(7.5, 2.6 * len(metrics) + 0.6),
                                  sharex=True, squeeze=False)
        for m, plot in zip(metrics, plots[:, 0]):
            for key, per_x in groups.items():
                xs, ys = [], []
                for i, value in enumerate(positions):
                    values = per_x.get(key_text(value), {}).get(m)
                    if values:
                        xs.append(value if x_numeric else i)
                        ys.append(mean(values))
                plot.plot(xs, ys, marker="o", label=labels[key])
            plot.set_ylabel(m, fontsize=8)
            plot.grid(True, which="both", linestyle=":", linewidth=0.5)
            if log_scale(positions):
                plot.set_xscale("log", base=2)
        bottom = plots[-1, 0]
        bottom.set_xlabel(axis["key"])
        if not x_numeric:
            bottom.set_xticks(range(len(positions)))
            bottom.set_xticklabels([key_text(v) for v in positions])
        plots[0, 0].legend(fontsize=7)
        fig.suptitle(f"metrics against {axis['key']}", fontsize=10)
        fig.tight_layout()
        fig.savefig(out / f"line_{axis['label']}.png", dpi=100)
        plt.close(fig)


def heatmaps(out, axes, metrics, rows):
    if len(axes) < 2:
        return
    first, second = axes[0], axes[1]
    # A third axis of a few values gets a row of maps per value; the rest
    # (and the seeds) are averaged.
    third = axes[2] if len(axes) > 2 and len(axes[2]["values"]) <= 6 else None
    facets = third["values"] if third else [None]
    fig, plots = plt.subplots(len(facets), len(metrics),
                              figsize=(4.2 * len(metrics), 3.8 * len(facets)), squeeze=False)
    for f, facet in enumerate(facets):
        for m, plot in zip(metrics, plots[f]):
            cells = defaultdict(list)
            for row in rows:
                value = metric_value(row, m)
                if value is None or (third and row["parameters"][third["key"]] != facet):
                    continue
                cells[(key_text(row["parameters"][first["key"]]),
                       key_text(row["parameters"][second["key"]]))].append(value)
            grid = [[mean(cells.get((key_text(a), key_text(b)), [])) for b in second["values"]]
                    for a in first["values"]]
            image = plot.imshow(grid, aspect="auto", origin="lower", cmap="viridis")
            fig.colorbar(image, ax=plot, fraction=0.046)
            plot.set_xticks(range(len(second["values"])))
            plot.set_xticklabels([key_text(v) for v in second["values"]], rotation=45, fontsize=7)
            plot.set_yticks(range(len(first["values"])))
            plot.set_yticklabels([key_text(v) for v in first["values"]], fontsize=7)
            plot.set_xlabel(second["label"], fontsize=8)
            plot.set_ylabel(first["label"], fontsize=8)
            plot.set_title(m + (f" ({third['label']}={key_text(facet)})" if third else ""),
                           fontsize=9)
            low, high = image.get_clim()
            for i, line in enumerate(grid):
                for j, value in enumerate(line):
                    if not math.isnan(value):
                        bright = high > low and (value - low) / (high - low) > 0.6
                        plot.text(j, i, f"{value:.3g}", ha="center", va="center", fontsize=7,
                                  color="black" if bright else "white")
    fig.suptitle("mean over " + ("the seeds" if len(axes) <= (3 if third else 2)
                                 else "the other axes and the seeds"), fontsize=9)
    fig.tight_layout()
    fig.savefig(out / f"heatmap_{first['label']}_{second['label']}.png", dpi=100)
    plt.close(fig)


def pareto_plot(out, pareto, rows):
    x_name, y_name = pareto["x"], pareto["y"]
    sign_x = 1 if pareto["x_goal"] == "min" else -1
    sign_y = 1 if pareto["y_goal"] == "min" else -1
    points = []
    for row in rows:
        x, y = column(row, x_name), column(row, y_name)
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            points.append((x, y, row["folder"]))
    if not points:
        return
    front = [p for p in points
             if not any(sign_x * q[0] <= sign_x * p[0] and sign_y * q[1] <= sign_y * p[1]
                        and (q[0], q[1]) != (p[0], p[1]) for q in points)]
    front.sort()
    fig, plot = plt.subplots(figsize=(7, 5))
    plot.scatter([p[0] for p in points], [p[1] for p in points], s=14, color="grey",
                 label="points")
    plot.plot([p[0] for p in front], [p[1] for p in front], marker="o", color="C3",
              label="Pareto front")
    for x, y, _ in front:
        plot.annotate(f"({x:.4g}, {y:.4g})", (x, y), fontsize=6, xytext=(3, 3),
                      textcoords="offset points")
    xs = [p[0] for p in points]
    if min(xs) > 0 and max(xs) / min(xs) > 16:
        plot.set_xscale("log", base=2)
    plot.set_xlabel(f"{x_name} ({pareto['x_goal']})")
    plot.set_ylabel(f"{y_name} ({pareto['y_goal']})")
    plot.grid(True, which="both", linestyle=":", linewidth=0.5)
    plot.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "pareto.png", dpi=100)
    plt.close(fig)


def main(folder):
    folder = Path(folder)
    sweep = json.loads((folder / "sweep.json").read_text())
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()
            if line.strip()]
    rows = [r for r in rows if r["status"] == "ok"]
    metrics = [m["name"] for m in sweep["metrics"]
               if any(metric_value(r, m["name"]) is not None for r in rows)]
    out = folder / "plots"
    out.mkdir(exist_ok=True)
    if metrics:
        line_plots(out, sweep["axes"], metrics, rows)
        heatmaps(out, sweep["axes"], metrics, rows)
    if "pareto" in sweep:
        pareto_plot(out, sweep["pareto"], rows)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
