#!/usr/bin/env python3
"""Draws translation.png from a translation run: MTT cache hit rate and
translation latency (mean, p99) against cache size, the working set marked.

usage: plot_translation.py RUN_FOLDER
"""
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(folder):
    folder = Path(folder)
    summary = json.loads((folder / "summary.json").read_text())
    points = summary["points"]
    entries = [p["cache_entries"] for p in points]
    working_set = points[0]["working_set_pages"]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 7), sharex=True)
    top.plot(entries, [100 * p["hit_rate"] for p in points], marker="o")
    top.set_ylabel("MTT cache hit rate (%)")
    top.set_ylim(0, 105)
    bottom.plot(entries, [p["mean_translate_ns"] for p in points], marker="o", label="mean")
    bottom.plot(entries, [p["p99_translate_ns"] for p in points], marker="s", label="p99")
    bottom.set_ylabel("translation time (ns)")
    bottom.set_xlabel("MTT cache entries")
    bottom.legend()
    for ax in (top, bottom):
        ax.set_xscale("log", base=2)
        ax.axvline(working_set, color="grey", linestyle="--", linewidth=1)
        ax.grid(True, which="both", linestyle=":", linewidth=0.5)
    top.text(working_set, 50, " working set\n %d pages" % working_set, color="grey", fontsize=8)
    top.set_title(f"{summary['mrs']} MRs x {summary['pages_per_mr']} pages of "
                  f"{summary['page_bytes']} B, {summary['pattern']} accesses", fontsize=10)
    fig.tight_layout()
    fig.savefig(folder / "translation.png", dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
