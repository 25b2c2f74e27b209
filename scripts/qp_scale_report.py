#!/usr/bin/env python3
"""The QP-scalability experiment's report: reads the sweeps' results.csv
(scripts/run_qp_scale), and writes into results/qp_scale/ the curves
(qp_scale.csv), each curve's plateau and knee with the block that binds in
each region (report.md), and the plots (msg_rate.png, occupancy.png).

A block's occupancy is its busy time over the run's measured time (the
messages over the message rate): the requester's is over its engines (1.0 =
every engine busy all the time), the others' over one unit. The binding block
of a point is the one with the highest occupancy."""
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

VARIANTS = [("base", "preset (QPC 1024 entries, 4 KiB pages)"),
            ("qpc2x", "QPC 2048 entries"),
            ("qpc4x", "QPC 4096 entries"),
            ("pages2m", "2 MiB pages")]
VERBS = [("write", "RDMA WRITE"), ("read", "RDMA READ")]
CURVES = [(f"{verb}_{variant}", f"{verb_label}, {label}")
          for verb, verb_label in VERBS for variant, label in VARIANTS]
ENGINES = 8  # configs/qp_scale.json's transport.requester_engines


def load(folder):
    rows = []
    with open(folder / "results.csv") as f:
        for r in csv.DictReader(f):
            if not r.get("msg_rate_mpps"):
                continue
            qps = int(r["--qp"])
            rate = float(r["msg_rate_mpps"])
            ns = float(r["messages"]) / rate * 1e3  # measured time

            def share(column, units=1):
                return float(r[column]) / ns / units

            occ = {
                "requester engines (a)": share("a_transport_requester_busy_ns", ENGINES),
                "completer (a)": share("a_transport_completer_busy_ns"),
                "responder (b)": share("b_transport_responder_busy_ns"),
                "page walker (a)": share("a_translation_walk_ns"),
                "page walker (b)": share("b_translation_walk_ns"),
                "PCIe a, host to NIC": share("a_pcie_downstream_busy_ns"),
                "PCIe a, NIC to host": share("a_pcie_upstream_busy_ns"),
                "PCIe b, host to NIC": share("b_pcie_downstream_busy_ns"),
                "PCIe b, NIC to host": share("b_pcie_upstream_busy_ns"),
                "wire a to b": share("wire_a_to_b_busy_ns"),
                "wire b to a": share("wire_b_to_a_busy_ns"),
            }
            miss_rate = {}
            for side in "ab":
                misses = float(r[f"{side}_transport_qp_cache_misses"])
                lookups = misses + float(r[f"{side}_transport_qp_cache_hits"])
                miss_rate[side] = misses / lookups if lookups else 0.0
            rows.append({"qps": qps, "rate": rate, "occupancy": occ, "qpc_miss_rate": miss_rate,
                         "context_wait": {side: share(f"{side}_transport_context_wait_ns")
                                          for side in "ab"}})
    return sorted(rows, key=lambda r: r["qps"])


def knee(rows):
    """The plateau (the highest rate), the first QP count within 0.5% of it,
    and the knee: the first QP count past that where the rate is more than
    10% below the plateau (None if none is)."""
    plateau = max(r["rate"] for r in rows)
    reached = next(r["qps"] for r in rows if r["rate"] >= 0.995 * plateau)
    for r in rows:
        if r["qps"] > reached and r["rate"] < 0.9 * plateau:
            return plateau, reached, r["qps"]
    return plateau, reached, None


def binding(row):
    return max(row["occupancy"], key=row["occupancy"].get)


def main(sweeps, out):
    out.mkdir(parents=True, exist_ok=True)
    curves = {name: load(sweeps / name) for name, _ in CURVES
              if (sweeps / name / "results.csv").exists()}
    keys = list(next(iter(curves.values()))[0]["occupancy"])
    with open(out / "qp_scale.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["curve", "qps", "msg_rate_mpps", "qpc_miss_rate_a", "qpc_miss_rate_b",
                     "context_wait_a", "context_wait_b"] + keys + ["binding"])
        for name, rows in curves.items():
            for r in rows:
                w.writerow([name, r["qps"], f"{r['rate']:.3f}"] +
                           [f"{r['qpc_miss_rate'][s]:.3f}" for s in "ab"] +
                           [f"{r['context_wait'][s]:.3f}" for s in "ab"] +
                           [f"{r['occupancy'][k]:.3f}" for k in keys] + [binding(r)])
    lines = ["| curve | plateau (Mpps) | reached at QPs | knee (QPs: first 10% below the plateau) |",
             "|---|---|---|---|"]
    for name, label in CURVES:
        if name in curves:
            plateau, at, k = knee(curves[name])
            lines.append(f"| {label} | {plateau:.2f} | {at} | {k if k else 'none in range'} |")
    for name, label in CURVES:
        if name not in curves:
            continue
        lines += ["", f"{label}: the binding block at each point (highest occupancy)", "",
                  "| QPs | Mpps | QPC miss rate a / b | context wait a / b | binding block | "
                  "its occupancy |", "|---|---|---|---|---|---|"]
        for r in curves[name]:
            b = binding(r)
            lines.append(f"| {r['qps']} | {r['rate']:.2f} | {r['qpc_miss_rate']['a']:.3f} / "
                         f"{r['qpc_miss_rate']['b']:.3f} | {r['context_wait']['a']:.2f} / "
                         f"{r['context_wait']['b']:.2f} | {b} | {r['occupancy'][b]:.2f} |")
    (out / "report.md").write_text("\n".join(lines) + "\n")

    for verb, verb_label in VERBS:
        fig, ax = plt.subplots(figsize=(8, 5))
        for variant, label in VARIANTS:
            rows = curves.get(f"{verb}_{variant}")
            if rows:
                ax.plot([r["qps"] for r in rows], [r["rate"] for r in rows], "o-", ms=3, label=label)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("QPs")
        ax.set_ylabel(f"64 B {verb_label} message rate (Mpps)")
        ax.set_title(f"rnicsim qp_scale: {verb_label} message rate against QP count")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(out / f"msg_rate_{verb}.png", dpi=120)
        plt.close(fig)

        rows = curves.get(f"{verb}_base")
        if not rows:
            continue
        fig, ax = plt.subplots(figsize=(8, 5))
        for k in keys:
            if max(r["occupancy"][k] for r in rows) >= 0.2:  # the blocks that come near binding
                ax.plot([r["qps"] for r in rows], [r["occupancy"][k] for r in rows], "o-", ms=3,
                        label=k)
        for side in "ab":
            ax.plot([r["qps"] for r in rows], [r["qpc_miss_rate"][side] for r in rows], "--",
                    label=f"QPC miss rate ({side})")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("QPs")
        ax.set_ylabel("occupancy (busy / measured time), miss rate")
        ax.set_title(f"preset, {verb_label}: which block binds")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / f"occupancy_{verb}.png", dpi=120)
        plt.close(fig)
    print((out / "report.md").read_text())


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
