#!/usr/bin/env python3
"""Draws breakdown.png from a `rnicsim perf ... --breakdown` run: one stacked
bar per message size, one segment per stage of the message's path (its share
of the mean time from the post to the end, so small and large sizes read
alike), the total written above each bar.

usage: plot_breakdown.py RUN_FOLDER
"""
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def label(stage):
    return f"{stage['block']}: {stage['point']}"


def main(folder):
    folder = Path(folder)
    doc = json.loads((folder / "breakdown.json").read_text())
    sizes = doc["sizes"]
    # Stages in path order: the order of the first size, then any others.
    order = []
    for size in sizes:
        for stage in size["stages"]:
            if label(stage) not in order and stage["point"] != "post":
                order.append(label(stage))
    fig, ax = plt.subplots(figsize=(max(7, 0.5 * len(sizes) + 4), 6))
    bottoms = [0.0] * len(sizes)
    colours = plt.get_cmap("tab20")
    names = [str(s["bytes"]) for s in sizes]
    totals = [max(s["ns_after_post"] for s in size["stages"]) for size in sizes]
    for i, name in enumerate(order):
        heights = []
        for size, total in zip(sizes, totals):
            ns = [s["ns"] for s in size["stages"] if label(s) == name]
            heights.append(100 * ns[0] / total if ns and total > 0 else 0.0)
        ax.bar(names, heights, bottom=bottoms, label=name, color=colours(i % 20))
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    for x, total in enumerate(totals):
        text = f"{total / 1000:.2f} us" if total < 1e6 else f"{total / 1e6:.2f} ms"
        ax.text(x, 101, text, ha="center", va="bottom", fontsize=7, rotation=90)
    ax.set_ylim(0, 125)
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("share of the time from post to end (%)")
    ax.set_title(f"{doc['test']}: where a message's time goes (mean per stage)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    plt.setp(ax.get_xticklabels(), rotation=45, ha="right")
    fig.tight_layout()
    fig.savefig(folder / "breakdown.png", dpi=120)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
